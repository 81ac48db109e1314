// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce requester, return path: consumes ACKs (cumulative PSN + SACK),
 * READ and atomic responses, detects lost PSNs per path, samples the RTT.
 * Sending is in mro_req.c, the requester's timers in mro_req_timer.c.
 */
#include "mro_loss.h"
#include "mro_pathscore.h"
#include "mro_psn.h"
#include "mro_qp.h"
#include "mro_rto.h"
#include "mro_trace.h"

/* IB RNR timer field (5 bits) to microseconds */
static u32 mro_rnr_timer_us(u8 code)
{
	static const u32 us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480,
		640, 960, 1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360,
		20480, 30720, 40960, 61440, 81920, 122880, 163840, 245760,
		327680, 491520,
	};

	return us[code & 31];
}

/*
 * A PSN loss detection declared lost was acknowledged by a packet that
 * echoes the send time @ts_echo (an ACK's, or a READ response's: its
 * READ_REQ's): was the declaration premature (the original arrived)?
 * Adapts the reordering window; counts spurious retransmissions.
 */
static void mro_fast_lost_acked(struct mro_qp *qp, struct mro_txslot *t,
				u32 ts_echo)
{
	u32 min_rtt = 0;
	bool spurious;

	if (t->retx > 1)
		return;	/* which of the resends arrived is unknown */
	if (t->on_path && t->path < qp->paths.n)
		min_rtt = qp->paths.path[t->path].min_rtt_us;
	/* declared lost, acknowledged before it was resent: premature */
	spurious = !t->retx || mro_retx_spurious(ts_echo, t->sent_us,
						 mro_now_us(), min_rtt);
	mro_reo_update(&qp->req.reo, spurious);
	if (spurious && t->retx)
		mro_qp_count(qp, MRO_CNT_SPURIOUS_RETX, 1);
}

/*
 * The oldest PSN an RTO resent was acknowledged by a packet echoing the
 * send time *@echo (NULL: no echo, an atomic response): if that is a
 * packet sent before the resend, the original arrived and the timer only
 * outran a slow round trip (a descheduled peer): undo what it did to the
 * congestion window (Eifel detection, as in TCP).
 */
static void mro_rto_lost_acked(struct mro_qp *qp, struct mro_txslot *t,
			       const u32 *echo)
{
	bool spurious = echo && t->retx == 1 &&
			mro_retx_spurious(*echo, t->sent_us, mro_now_us(), 0);

	t->rto_lost = false;
	if (spurious)
		mro_qp_count(qp, MRO_CNT_SPURIOUS_RTO, 1);
	mro_cc_rto_verdict(qp, spurious);
}

/* what acknowledged a PSN (mro_slot_acked()) */
enum mro_acked_by {
	MRO_ACKED_BY_ACK,	/* an ACK, on the path it names */
	MRO_ACKED_BY_PIGGY,	/* a request's piggybacked cumulative ACK */
	MRO_ACKED_BY_RESP,	/* a READ or atomic response */
};

/*
 * mark @psn acknowledged, @by what; slots of READ/atomic WQEs wait for
 * responses.  @echo: the send time the acknowledging packet echoes, NULL
 * if none.
 */
static void mro_slot_acked(struct mro_qp *qp, u32 psn, enum mro_acked_by by,
			   const u32 *echo)
{
	struct mro_txslot *t = mro_slot(qp, psn);
	struct mro_swqe *s = mro_swqe_at(qp, t->swqe);

	if (t->state == MRO_TX_ACKED)
		return;
	if (s->is_read_atomic && by != MRO_ACKED_BY_RESP)
		return;
	if (t->fast_lost && echo)
		mro_fast_lost_acked(qp, t, *echo);
	if (t->rto_lost)
		mro_rto_lost_acked(qp, t, echo);
	if (t->state == MRO_TX_LOST)
		qp->req.lost--;
	t->state = MRO_TX_ACKED;
	qp->req.acked_new = true;
	mro_cc_slot_acked(qp);	/* the window counts what is in flight */
	/*
	 * A resent PSN may have arrived by its first transmission while the
	 * last one is still on its way: crediting that one's path would
	 * find the packets before it lost.  Only the echo (ACK's echo_seq)
	 * names the transmission that arrived.
	 */
	if (t->on_path && t->path < qp->paths.n && t->retx) {
		qp->paths.path[t->path].acked++;
	} else if (t->on_path && t->path < qp->paths.n) {
		mro_path_acked(&qp->paths, t->path, t->path_seq, t->sent_us);
		if (mro_seq_after(t->sent_us, qp->req.acked_sent_us)) {
			qp->req.acked_sent_us = t->sent_us;
			qp->req.acked_at_us = mro_now_us();
		}
		/* the peer acknowledged it on its path: that echo is owed */
		if (by == MRO_ACKED_BY_ACK && mro_psn_self_acked(psn))
			mro_path_echo_owed(&qp->paths, t->path, t->path_seq,
					   mro_now_us());
	}
	if (++s->resp_pkts >= s->npkts && s->state == MRO_SWQE_WAITING) {
		s->state = MRO_SWQE_DONE;
		if (s->rd_res && qp->req.rd_atomic_inflight)
			qp->req.rd_atomic_inflight--;
	}
}

/* a cumulative ACK of @cum, @by what: every PSN out before it */
static void mro_acked_before(struct mro_qp *qp, u32 cum, enum mro_acked_by by,
			     const u32 *echo)
{
	u32 psn;

	for (psn = qp->req.una; mro_seq_before(psn, cum); psn++)
		mro_slot_acked(qp, psn, by, echo);
	qp->req.highest_acked = mro_seq_max(qp->req.highest_acked, cum);
}

static void mro_advance_una(struct mro_qp *qp)
{
	bool moved = false;

	while (qp->req.una != qp->req.nxt &&
	       mro_slot(qp, qp->req.una)->state == MRO_TX_ACKED) {
		qp->req.una++;
		mro_cc_una_passed(qp);
		moved = true;
	}
	if (qp->req.acked_new) {
		/*
		 * The retry count is per episode without progress, and a
		 * PSN newly acknowledged (cumulatively or selectively) is
		 * progress: the peer is alive and the QP moves, while the
		 * oldest PSN may wait for its resend.
		 */
		qp->req.acked_new = false;
		qp->req.retry_left = qp->retry_cnt;
		qp->req.stall_us = mro_now_us();
	}
	if (moved) {
		qp->req.rnr_left = qp->rnr_retry;
		qp->req.backoff = 0;
		qp->req.tlp_done = false;
		if (qp->req.una == qp->req.nxt) {
			hrtimer_try_to_cancel(&qp->req.rto_timer);
			hrtimer_try_to_cancel(&qp->req.reo_timer);
		} else {
			mro_arm_rto(qp);
		}
	}
}

/*
 * Loss detection for a sprayed connection (rules in mro_loss.h): per
 * path first, then a RACK-like time rule across paths behind a
 * reordering distance that scales with the window.  A READ's response
 * slots count as transmissions of its READ_REQ (mro_send_new()).
 */
void mro_detect_loss(struct mro_qp *qp, bool timer)
{
	u32 wait = 0, lost = qp->req.lost;
	struct mro_loss_ctx c = {
		.now_us = mro_now_us(),
		.highest_acked = qp->req.highest_acked,
		.known_end = qp->req.ack_known_end,
		.acked_sent_us = qp->req.acked_sent_us,
		.reorder = mro_loss_reorder(qp->paths.n, mro_inflight(qp)),
		.guard_us = qp->req.srtt_us,
		.fast_srtt_us = mro_paths_best_srtt(&qp->paths),
		.reo_steps = qp->req.reo.steps,
	};
	u32 end = mro_loss_scan_end(qp->req.una, qp->req.nxt,
				    qp->req.highest_acked, qp->req.late_tx_end);
	u32 psn;

	lockdep_assert_held(&qp->lock);
	/*
	 * The reorder timer judges at the time it was due (a late timer, in
	 * a descheduled host, finds only what it was armed for); an ACK
	 * judges by send times alone.
	 */
	if (timer && mro_seq_after(qp->req.reo_due_us, qp->req.acked_at_us))
		c.frontier_age_us = qp->req.reo_due_us - qp->req.acked_at_us;
	/* a lossless window has nothing before highest_acked to look at */
	for (psn = qp->req.una; mro_seq_before(psn, end); psn++) {
		struct mro_txslot *t = mro_slot(qp, psn);
		struct mro_loss_pkt pkt;
		struct mro_path *p;
		bool on_path;

		if (t->state != MRO_TX_SENT)
			continue;
		on_path = t->on_path && t->path < qp->paths.n;
		pkt = (struct mro_loss_pkt){
			.psn = psn,
			.sent_us = t->sent_us,
			.path_seq = t->path_seq,
			.on_path = on_path,
			.retx = t->retx,
		};
		p = on_path ? &qp->paths.path[t->path] : NULL;
		c.path_acked_next = p ? p->acked_next : 0;
		c.path_acked_sent_us = p ? p->acked_sent_us : 0;
		c.srtt_us = p && p->srtt_us ? p->srtt_us : qp->req.srtt_us;
		c.rttvar_us = p && p->srtt_us ? p->rttvar_us : qp->req.rttvar_us;
		if (mro_loss_check(&c, &pkt, &wait) == MRO_NOT_LOST)
			continue;
		mro_slot_lose(qp, t, true);
		mro_qp_count(qp, MRO_CNT_LOSS_DETECTED, 1);
		if (p)	/* once per transmission (mro_path_lost()) */
			mro_pm_lost(qp, t->path, t->path_seq, false);
	}
	if (timer)
		mro_qp_count(qp, MRO_CNT_LOSS_TIMER, qp->req.lost - lost);
	if (wait) {
		qp->req.reo_due_us = mro_now_us() + wait;
		hrtimer_start(&qp->req.reo_timer, ns_to_ktime((u64)wait *
							  NSEC_PER_USEC),
			      HRTIMER_MODE_REL_SOFT);
	}
}

static void mro_rtt_sample(struct mro_qp *qp, u32 ts_echo, u16 path)
{
	u32 rtt = mro_now_us() - ts_echo;

	if (!mro_rtt_update(&qp->req.srtt_us, &qp->req.rttvar_us, rtt))
		return;	/* nonsense echo */
	if (path < qp->paths.n)
		mro_path_rtt(&qp->paths, path, rtt);
}

/*
 * An ACK or NAK: acknowledge, fail or wait as it says.  MRO_RXV_ACK_RANGE
 * when its cumulative PSN lies outside what was sent: then nothing of it
 * is used.  Only when the QP took it and is still alive after it may the
 * congestion control read its other fields.
 */
static enum mro_rx_verdict mro_req_ack(struct mro_qp *qp,
				       const struct mro_ack_hdr *a)
{
	u16 nbits = min_t(u16, a->sack_bits, METAROCE_SACK_BITS), i;
	u32 cum = a->cum_psn, psn;
	struct mro_swqe *s;

	lockdep_assert_held(&qp->lock);
	/* an ACK for PSNs we never sent, or long acknowledged, is dropped */
	if (!mro_ack_cum_ok(cum, qp->req.una, qp->req.nxt, qp->req.win))
		return MRO_RXV_ACK_RANGE;
	/* as is a NAK of a PSN not out, or not one the responder refuses */
	if (a->syndrome != METAROCE_SYN_ACK &&
	    !mro_nak_psn_ok(a->syndrome == METAROCE_SYN_RNR_NAK, a->nak_psn,
			    cum, qp->req.una, qp->req.nxt))
		return MRO_RXV_ACK_RANGE;
	/*
	 * Every ACK answers a transmission of ours and echoes its path and
	 * per-path sequence, which started at a random value: one that names
	 * none is not the peer's.
	 */
	if (a->echo_path >= qp->paths.n ||
	    !mro_echo_seq_ok(a->echo_seq,
			     qp->paths.path[a->echo_path].next_seq,
			     mro_echo_span(qp->req.win)))
		return MRO_RXV_ACK_ECHO;
	/* a revived path forgets its old RTT before this sample */
	mro_pm_echo(qp, a);
	mro_rtt_sample(qp, a->ts_echo, a->echo_path);
	mro_qp_count(qp, a->syndrome == METAROCE_SYN_ACK ?
		     MRO_CNT_ACKS_RCVD : a->syndrome == METAROCE_SYN_RNR_NAK ?
		     MRO_CNT_RNR_NAK_RCVD : MRO_CNT_NAK_RCVD, 1);
	if (a->syndrome != METAROCE_SYN_ACK)
		trace_mro_nak(qp->qpn, false, a->nak_psn, a->syndrome);

	switch (a->syndrome) {
	case METAROCE_SYN_ACK:
		break;
	case METAROCE_SYN_RNR_NAK:
		s = mro_swqe_of_psn(qp, a->nak_psn);
		if (!s)
			break;
		if (qp->req.rnr_wait) {
			/*
			 * The responder refuses every packet in flight behind
			 * the first: one wait, one retry, resent from the
			 * earliest PSN refused.
			 */
			if (mro_seq_before(a->nak_psn, qp->req.rnr_psn))
				qp->req.rnr_psn = a->nak_psn;
			break;
		}
		if (qp->rnr_retry != 7 && !qp->req.rnr_left--) {
			mro_swqe_fail(qp, s, IB_WC_RNR_RETRY_EXC_ERR);
			return MRO_RXV_OK;
		}
		qp->req.rnr_wait = true;
		qp->req.rnr_psn = a->nak_psn;
		hrtimer_start(&qp->req.rnr_timer,
			      ns_to_ktime(mro_rnr_timer_us(a->nak_code) *
					  NSEC_PER_USEC),
			      HRTIMER_MODE_REL_SOFT);
		break;
	default:
		s = mro_swqe_of_psn(qp, a->nak_psn);
		if (!s)
			break;
		mro_swqe_fail(qp, s,
			      a->syndrome == METAROCE_SYN_NAK_ACCESS ?
			      IB_WC_REM_ACCESS_ERR :
			      a->syndrome == METAROCE_SYN_NAK_OP ?
			      IB_WC_REM_OP_ERR : IB_WC_REM_INV_REQ_ERR);
		return MRO_RXV_OK;
	}

	mro_acked_before(qp, cum, MRO_ACKED_BY_ACK, &a->ts_echo);
	for (i = mro_sack_next(a->sack, nbits, 0); i < nbits;
	     i = mro_sack_next(a->sack, nbits, i + 1)) {
		psn = cum + 1 + i;
		if (!mro_seq_in(psn, qp->req.una, mro_inflight(qp)))
			continue;
		mro_slot_acked(qp, psn, MRO_ACKED_BY_ACK, &a->ts_echo);
		qp->req.highest_acked = mro_seq_max(qp->req.highest_acked, psn + 1);
	}
	/* a full SACK may stop short of PSNs the peer has */
	qp->req.ack_known_end = nbits < METAROCE_SACK_BITS ? qp->req.nxt :
			    cum + 1 + nbits;
	mro_advance_una(qp);
	if (qp->req.una != qp->req.nxt)
		mro_detect_loss(qp, false);
	if (qp->paths.owed)
		mro_pm_echo_check(qp);
	return MRO_RXV_OK;
}

/*
 * A READ or atomic response for @psn of WQE @s, echoing *@echo (NULL:
 * none), was copied into local memory with result @err: fail the WQE, or
 * acknowledge the PSN.  Returns whether the PSN was acknowledged.
 */
static bool mro_resp_placed(struct mro_qp *qp, struct mro_swqe *s, u32 psn,
			    const u32 *echo, int err)
{
	if (err) {
		mro_swqe_fail(qp, s, IB_WC_LOC_PROT_ERR);
		return false;
	}
	mro_slot_acked(qp, psn, MRO_ACKED_BY_RESP, echo);
	qp->req.highest_acked = mro_seq_max(qp->req.highest_acked, psn + 1);
	mro_advance_una(qp);
	return true;
}

/*
 * A response for a PSN the window already passed (behind snd_una, at
 * most a window back): the answer to a request resent while its first
 * answer was on its way, arriving after the WQE completed.  Taken as a
 * duplicate: nothing of it is used.
 */
static bool mro_resp_late(const struct mro_qp *qp, u32 psn)
{
	return mro_seq_in(psn, qp->req.una - qp->req.win, qp->req.win);
}

/*
 * A READ response: placed into the WQE's local buffer if it is one we
 * asked for and still wait for (MRO_RXV_OK); only then does its CE mark
 * count.
 */
static enum mro_rx_verdict mro_req_read_resp(struct mro_qp *qp,
					     const struct mro_hdr *hdr,
					     struct sk_buff *skb)
{
	struct mro_txslot *t;
	struct mro_swqe *s;
	int err;

	if (mro_resp_late(qp, hdr->psn))
		return MRO_RXV_DUP;
	s = mro_swqe_of_psn(qp, hdr->psn);
	if (!s || mro_wr_resp(s->opcode) != hdr->opcode)
		return MRO_RXV_STALE_RESP;
	t = mro_slot(qp, hdr->psn);
	if (t->state == MRO_TX_ACKED)
		return MRO_RXV_DUP;	/* the answer to a resend, or its twin */
	/* the responder is not trusted: the packet must be what we asked */
	if (hdr->rresp.offset != t->offset || hdr->payload_len != t->len)
		return MRO_RXV_FIELD;
	err = mro_sge_copy_skb(qp->dev, qp->ibqp.pd,
			       mro_swqe_sges(qp, t->swqe), s->num_sge,
			       t->offset, skb, hdr->hdr_len, t->len,
			       IB_ACCESS_LOCAL_WRITE);
	/*
	 * The RTT of a READ is until its responses arrive, the responder's
	 * work included: its READ_REQ's ACK leaves before that work, and
	 * alone would set the RTO too short.  Karn: not for a resent PSN.
	 */
	if (!err && !t->retx)
		mro_rtt_update(&qp->req.srtt_us, &qp->req.rttvar_us,
			       mro_now_us() - t->sent_us);
	/* the READ_REQ's send time; 0 from a responder that does not echo */
	if (mro_resp_placed(qp, s, hdr->psn,
			    hdr->rresp.ts_echo ? &hdr->rresp.ts_echo : NULL,
			    err))
		mro_detect_loss(qp, false);
	return MRO_RXV_OK;
}

/* an atomic response, as mro_req_read_resp() */
static enum mro_rx_verdict mro_req_atomic_resp(struct mro_qp *qp,
					       const struct mro_hdr *hdr)
{
	struct mro_txslot *t;
	struct mro_swqe *s;
	u64 val = hdr->orig;	/* host order, as IB returns it */
	int err;

	if (mro_resp_late(qp, hdr->psn))
		return MRO_RXV_DUP;
	s = mro_swqe_of_psn(qp, hdr->psn);
	if (!s || mro_wr_resp(s->opcode) != hdr->opcode)
		return MRO_RXV_STALE_RESP;
	t = mro_slot(qp, hdr->psn);
	if (t->state == MRO_TX_ACKED)
		return MRO_RXV_DUP;
	err = mro_sge_copy(qp->dev, qp->ibqp.pd, mro_swqe_sges(qp, t->swqe),
			   s->num_sge, 0, &val, sizeof(val), MRO_COPY_TO_MEM,
			   IB_ACCESS_LOCAL_WRITE);
	mro_resp_placed(qp, s, hdr->psn, NULL, err);
	return MRO_RXV_OK;
}

/*
 * The cumulative ACK @ack_psn a request of the peer carried
 * (METAROCE_F_ACK_PIGGY), applied before the request itself.
 * Cumulative only: no RTT, SACK, ECN or credit; the ACK that follows
 * brings those.  The window grows by what it acknowledged, as by READ
 * responses (mro_cc_resp()), so the later ACK is not needed for that.
 */
void mro_req_ack_piggy(struct mro_qp *qp, u32 ack_psn,
		       struct sk_buff_head *out)
{
	u32 una = qp->req.una;

	lockdep_assert_held(&qp->lock);
	if (qp->ibqp.qp_type != IB_QPT_RC)
		return;
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return;
	if (!mro_seq_after(ack_psn, una) ||
	    !mro_ack_cum_ok(ack_psn, una, qp->req.nxt, qp->req.win))
		return;
	mro_acked_before(qp, ack_psn, MRO_ACKED_BY_PIGGY, NULL);
	mro_advance_una(qp);
	mro_qp_count(qp, MRO_CNT_ACKS_PIGGY, 1);
	mro_cc_resp(qp, una, false);
	/* completes what it acknowledged, sends what the window allows */
	mro_req_run(qp, out, 64);
}

/* a response-direction packet for this QP */
enum mro_rx_verdict mro_req_rcv(struct mro_qp *qp, const struct mro_hdr *hdr,
				struct sk_buff *skb, struct sk_buff_head *out)
{
	u32 una = qp->req.una, lost = qp->req.lost;
	enum mro_rx_verdict v;

	lockdep_assert_held(&qp->lock);
	if (qp->ibqp.qp_type != IB_QPT_RC)
		return MRO_RXV_QP_MISMATCH;
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return MRO_RXV_QP_STATE;
	switch (mro_op(hdr->opcode)->rx) {
	case MRO_OPRX_ACK:
		v = mro_req_ack(qp, &hdr->ack);
		if (v == MRO_RXV_OK && qp->state != IB_QPS_ERR)
			mro_cc_ack(qp, hdr, una, lost);
		break;
	case MRO_OPRX_CREDIT:
		v = mro_cc_credit_rcv(qp, hdr->psn, &hdr->ctrl);
		break;
	case MRO_OPRX_READ_RESP:
		/* a response we did not ask for says nothing of congestion */
		v = mro_req_read_resp(qp, hdr, skb);
		if (v == MRO_RXV_OK)
			mro_cc_resp(qp, una, hdr->ce);
		break;
	case MRO_OPRX_ATOMIC_RESP:
		v = mro_req_atomic_resp(qp, hdr);
		if (v == MRO_RXV_OK)
			mro_cc_resp(qp, una, hdr->ce);
		break;
	default:
		return MRO_RXV_FIELD;
	}
	/*
	 * The window this ACK opened, in the softirq: a budget below what
	 * one ACK frees (32 PSNs by the rhythm, more with window-end
	 * requests) handed the rest to tx_work, a kworker round trip per
	 * ACK or two.
	 */
	mro_req_run(qp, out, 64);
	return v;
}
