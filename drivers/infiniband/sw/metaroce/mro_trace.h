/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce tracepoints (events/metaroce/): what a person debugging a
 * connection needs to see happen: retransmissions, RTOs and tail-loss
 * probes, path suspension, retirement and revival, congestion window
 * cuts, credit grants, NAKs, refused packets, a QP's move to the error
 * state (usage.rst, "Tracepoints").  CREATE_TRACE_POINTS is defined in
 * mro_pathmgr.c.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM metaroce

#if !defined(_MRO_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MRO_TRACE_H

#include <linux/tracepoint.h>

#include "mro_rxverdict.h"

TRACE_EVENT(mro_retransmit,
	    TP_PROTO(u32 qpn, u32 psn, u16 old_path, u16 path, u8 retx),
	    TP_ARGS(qpn, psn, old_path, path, retx),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, psn)
			     __field(u16, old_path)
			     __field(u16, path)
			     __field(u8, retx)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->psn = psn;
			   __entry->old_path = old_path;
			   __entry->path = path;
			   __entry->retx = retx;),
	    TP_printk("qpn=%#x psn=%#x path %u -> %u retx=%u", __entry->qpn,
		      __entry->psn, __entry->old_path, __entry->path,
		      __entry->retx)
);

DECLARE_EVENT_CLASS(mro_path_class,
		    TP_PROTO(u32 qpn, u16 path, u16 sport, u16 loss_ewma,
			     u32 srtt_us),
		    TP_ARGS(qpn, path, sport, loss_ewma, srtt_us),
		    TP_STRUCT__entry(__field(u32, qpn)
				     __field(u16, path)
				     __field(u16, sport)
				     __field(u16, loss_ewma)
				     __field(u32, srtt_us)),
		    TP_fast_assign(__entry->qpn = qpn;
				   __entry->path = path;
				   __entry->sport = sport;
				   __entry->loss_ewma = loss_ewma;
				   __entry->srtt_us = srtt_us;),
		    TP_printk("qpn=%#x path=%u sport=%u loss=%u/1024 srtt_us=%u",
			      __entry->qpn, __entry->path, __entry->sport,
			      __entry->loss_ewma, __entry->srtt_us)
);

DEFINE_EVENT(mro_path_class, mro_path_retire,
	     TP_PROTO(u32 qpn, u16 path, u16 sport, u16 loss_ewma,
		      u32 srtt_us),
	     TP_ARGS(qpn, path, sport, loss_ewma, srtt_us));

DEFINE_EVENT(mro_path_class, mro_path_revive,
	     TP_PROTO(u32 qpn, u16 path, u16 sport, u16 loss_ewma,
		      u32 srtt_us),
	     TP_ARGS(qpn, path, sport, loss_ewma, srtt_us));

/* a loss streak: the path gets a trickle of new data until it delivers */
DEFINE_EVENT(mro_path_class, mro_path_suspend,
	     TP_PROTO(u32 qpn, u16 path, u16 sport, u16 loss_ewma,
		      u32 srtt_us),
	     TP_ARGS(qpn, path, sport, loss_ewma, srtt_us));

/* the retransmission timer expired with @snd_una..@snd_nxt out */
TRACE_EVENT(mro_rto,
	    TP_PROTO(u32 qpn, u32 snd_una, u32 snd_nxt, u32 rto_us, u8 backoff,
		     u8 retry_left),
	    TP_ARGS(qpn, snd_una, snd_nxt, rto_us, backoff, retry_left),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, snd_una)
			     __field(u32, snd_nxt)
			     __field(u32, rto_us)
			     __field(u8, backoff)
			     __field(u8, retry_left)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->snd_una = snd_una;
			   __entry->snd_nxt = snd_nxt;
			   __entry->rto_us = rto_us;
			   __entry->backoff = backoff;
			   __entry->retry_left = retry_left;),
	    TP_printk("qpn=%#x snd_una=%#x snd_nxt=%#x rto_us=%u backoff=%u retry_left=%u",
		      __entry->qpn, __entry->snd_una, __entry->snd_nxt,
		      __entry->rto_us, __entry->backoff, __entry->retry_left)
);

/* a tail-loss probe: a PROBE on each of @paths paths with packets out */
TRACE_EVENT(mro_tlp,
	    TP_PROTO(u32 qpn, u32 snd_una, u32 snd_nxt, u16 paths),
	    TP_ARGS(qpn, snd_una, snd_nxt, paths),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, snd_una)
			     __field(u32, snd_nxt)
			     __field(u16, paths)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->snd_una = snd_una;
			   __entry->snd_nxt = snd_nxt;
			   __entry->paths = paths;),
	    TP_printk("qpn=%#x snd_una=%#x snd_nxt=%#x paths=%u",
		      __entry->qpn, __entry->snd_una, __entry->snd_nxt,
		      __entry->paths)
);

/* congestion control cut the window @cuts times (@rto: on a timeout) */
TRACE_EVENT(mro_cc_cut,
	    TP_PROTO(u32 qpn, u32 cwnd, u32 cuts, bool rto),
	    TP_ARGS(qpn, cwnd, cuts, rto),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, cwnd)
			     __field(u32, cuts)
			     __field(bool, rto)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->cwnd = cwnd;
			   __entry->cuts = cuts;
			   __entry->rto = rto;),
	    TP_printk("qpn=%#x cwnd=%u cuts=%u%s", __entry->qpn,
		      __entry->cwnd, __entry->cuts,
		      __entry->rto ? " rto" : "")
);

/* the receiver granted its sender the PSNs before @grant (CREDIT) */
TRACE_EVENT(mro_credit,
	    TP_PROTO(u32 qpn, u32 grant),
	    TP_ARGS(qpn, grant),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, grant)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->grant = grant;),
	    TP_printk("qpn=%#x grant=%#x", __entry->qpn, __entry->grant)
);

/* a NAK (syndrome 1: RNR, 2-5: errors, protocol.rst) sent or received */
TRACE_EVENT(mro_nak,
	    TP_PROTO(u32 qpn, bool sent, u32 psn, u8 syndrome),
	    TP_ARGS(qpn, sent, psn, syndrome),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(bool, sent)
			     __field(u32, psn)
			     __field(u8, syndrome)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->sent = sent;
			   __entry->psn = psn;
			   __entry->syndrome = syndrome;),
	    TP_printk("qpn=%#x %s psn=%#x syndrome=%u", __entry->qpn,
		      __entry->sent ? "sent" : "rcvd", __entry->psn,
		      __entry->syndrome)
);

/* the verdicts by name in the trace (user space resolves the values) */
TRACE_DEFINE_ENUM(MRO_RXV_NO_QP);
TRACE_DEFINE_ENUM(MRO_RXV_QP_MISMATCH);
TRACE_DEFINE_ENUM(MRO_RXV_QP_STATE);
TRACE_DEFINE_ENUM(MRO_RXV_FIELD);
TRACE_DEFINE_ENUM(MRO_RXV_WINDOW);
TRACE_DEFINE_ENUM(MRO_RXV_DUP_REQ);
TRACE_DEFINE_ENUM(MRO_RXV_ERR_AHEAD);
TRACE_DEFINE_ENUM(MRO_RXV_KEY_WAIT);
TRACE_DEFINE_ENUM(MRO_RXV_BUSY);
TRACE_DEFINE_ENUM(MRO_RXV_FAILED);
TRACE_DEFINE_ENUM(MRO_RXV_QKEY);
TRACE_DEFINE_ENUM(MRO_RXV_NO_WQE);
TRACE_DEFINE_ENUM(MRO_RXV_ACK_RANGE);
TRACE_DEFINE_ENUM(MRO_RXV_ACK_ECHO);
TRACE_DEFINE_ENUM(MRO_RXV_STALE_RESP);
TRACE_DEFINE_ENUM(MRO_RXV_BAD_FEEDBACK);

/* a matched packet the receive path refused, and the rule that did */
TRACE_EVENT(mro_rx_drop,
	    TP_PROTO(u32 dqpn, u32 psn, u8 opcode, int verdict),
	    TP_ARGS(dqpn, psn, opcode, verdict),
	    TP_STRUCT__entry(__field(u32, dqpn)
			     __field(u32, psn)
			     __field(u8, opcode)
			     __field(int, verdict)),
	    TP_fast_assign(__entry->dqpn = dqpn;
			   __entry->psn = psn;
			   __entry->opcode = opcode;
			   __entry->verdict = verdict;),
	    TP_printk("qpn=%#x psn=%#x opcode=%#x %s", __entry->dqpn,
		      __entry->psn, __entry->opcode,
		      __print_symbolic(__entry->verdict,
				       { MRO_RXV_NO_QP, "no_qp" },
				       { MRO_RXV_QP_MISMATCH, "qp_mismatch" },
				       { MRO_RXV_QP_STATE, "qp_state" },
				       { MRO_RXV_FIELD, "field" },
				       { MRO_RXV_WINDOW, "window" },
				       { MRO_RXV_DUP_REQ, "dup_req" },
				       { MRO_RXV_ERR_AHEAD, "error_ahead" },
				       { MRO_RXV_KEY_WAIT, "key_wait" },
				       { MRO_RXV_BUSY, "busy" },
				       { MRO_RXV_FAILED, "failed" },
				       { MRO_RXV_QKEY, "qkey" },
				       { MRO_RXV_NO_WQE, "no_wqe" },
				       { MRO_RXV_ACK_RANGE, "ack_range" },
				       { MRO_RXV_ACK_ECHO, "ack_echo" },
				       { MRO_RXV_STALE_RESP, "stale_resp" },
				       { MRO_RXV_BAD_FEEDBACK, "bad_feedback" }))
);

/*
 * A QP went to ERR: @status is the failed WQE's ib_wc_status (0 when no
 * WQE failed: a NAK sent, a CQ overflow, modify_qp), @ip where it was
 * decided, with the requester's and the responder's positions.
 */
TRACE_EVENT(mro_qp_error,
	    TP_PROTO(u32 qpn, int status, u32 snd_una, u32 snd_nxt,
		     u32 rcv_psn, unsigned long ip),
	    TP_ARGS(qpn, status, snd_una, snd_nxt, rcv_psn, ip),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(int, status)
			     __field(u32, snd_una)
			     __field(u32, snd_nxt)
			     __field(u32, rcv_psn)
			     __field(unsigned long, ip)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->status = status;
			   __entry->snd_una = snd_una;
			   __entry->snd_nxt = snd_nxt;
			   __entry->rcv_psn = rcv_psn;
			   __entry->ip = ip;),
	    TP_printk("qpn=%#x status=%d snd_una=%#x snd_nxt=%#x rcv_psn=%#x at %pS",
		      __entry->qpn, __entry->status, __entry->snd_una,
		      __entry->snd_nxt, __entry->rcv_psn,
		      (void *)__entry->ip)
);

#endif /* _MRO_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mro_trace
#include <trace/define_trace.h>
