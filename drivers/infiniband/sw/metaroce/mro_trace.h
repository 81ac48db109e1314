/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce tracepoints (events/metaroce/): retransmissions, path
 * retirement and revival, a QP's move to the error state.
 * CREATE_TRACE_POINTS is defined in mro_recover.c.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM metaroce

#if !defined(_MRO_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MRO_TRACE_H

#include <linux/tracepoint.h>

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
