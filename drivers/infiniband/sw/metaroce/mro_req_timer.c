// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce requester timers: the retransmission timer (RTO) with its
 * tail-loss probe, the reorder timer and the RNR timer.  Each timer
 * decides its job under the QP lock, does it, and ends the same way: the
 * packets it built queued in order, the lock dropped, then sent.
 *
 * The RTO timer's jobs, in the order it considers them (mro_rto_job()):
 * nothing (the QP left RTS, nothing is out), the HELLO retry of a
 * protected connection without keys, the wait of an RNR NAK, an early
 * fire that waits for the ACK the oldest packets asked for, the
 * tail-loss probe, retry exhaustion, and the timeout proper.
 */
#include <kunit/visibility.h>

#include "mro_loss.h"
#include "mro_pathscore.h"
#include "mro_psn.h"
#include "mro_qp.h"
#include "mro_rto.h"
#include "mro_trace.h"

static enum hrtimer_restart mro_req_timer_done(struct mro_qp *qp,
					       struct sk_buff_head *out)
	__releases(&qp->lock)
{
	mro_qp_queue_tx(qp, out);
	spin_unlock(&qp->lock);
	mro_qp_tx_drain(qp);
	mro_qp_notify_cqs(qp);
	return HRTIMER_NORESTART;
}

/*
 * Whether the RTO that fired is early: no PSN after the oldest one out
 * was acknowledged yet, and the first of them that asks for an ACK
 * (mro_rto_left()) went out less than an RTO ago; then how long until it
 * is due, else 0.  Without the wait, a paced sender whose packets leave
 * one at a time timed the oldest PSN's ACK from when the previous ACK
 * came, but that ACK comes with the next PSN of the rhythm, up to 31
 * pacing gaps later: spurious RTOs (protocol.rst, Retransmission
 * timeout).
 */
static u32 mro_rto_early(struct mro_qp *qp)
{
	u32 psn;

	lockdep_assert_held(&qp->lock);
	for (psn = qp->req.una; mro_seq_before(psn, qp->req.nxt); psn++) {
		struct mro_txslot *t = mro_slot(qp, psn);

		if (t->state != MRO_TX_SENT)
			return 0;
		if (!t->asked && !mro_psn_self_acked(psn))
			continue;
		return mro_rto_left(mro_now_us(), t->sent_us,
				    min_t(u64, U32_MAX,
					  mro_rto_backoff(qp->req.rto_us,
							  qp->req.backoff)));
	}
	return 0;
}

VISIBLE_IF_KUNIT enum mro_rto_job mro_rto_job(struct mro_qp *qp, u32 *left)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return MRO_RTO_NONE;
	if (!mro_prot_tx_ready(qp->prot))
		return MRO_RTO_UNKEYED;
	if (qp->req.una == qp->req.nxt)
		return MRO_RTO_NONE;
	/* waiting out an RNR NAK is no timeout: keep the retries */
	if (qp->req.rnr_wait)
		return MRO_RTO_RNR_WAIT;
	if (qp->req.pto_armed)
		return MRO_RTO_TLP;
	*left = mro_rto_early(qp);
	if (*left)
		return MRO_RTO_EARLY;
	if (mro_retry_exhausted(qp->req.retry_left, qp->retry_cnt,
				ktime_to_us(qp->req.rto), qp->req.stall_us,
				mro_now_us()))
		return MRO_RTO_EXHAUSTED;
	return MRO_RTO_EXPIRE;
}
EXPORT_SYMBOL_IF_KUNIT(mro_rto_job);

/*
 * The tail-loss probe: a PROBE on every active path with packets still
 * out, whose echoed path sequence lets per-path loss detection find a
 * lost tail.
 */
static void mro_rto_send_tlp(struct mro_qp *qp, struct sk_buff_head *out)
{
	DECLARE_BITMAP(busy, MRO_MAX_PATHS);
	u16 p, probed = 0;
	u32 psn;

	bitmap_zero(busy, MRO_MAX_PATHS);
	for (psn = qp->req.una; mro_seq_before(psn, qp->req.nxt); psn++) {
		struct mro_txslot *t = mro_slot(qp, psn);

		if (t->state == MRO_TX_SENT && t->on_path &&
		    t->path < qp->paths.n)
			__set_bit(t->path, busy);
	}
	for_each_set_bit(p, busy, MRO_MAX_PATHS) {
		if (qp->paths.path[p].state != MRO_PATH_ACTIVE)
			continue;
		mro_pm_send_probe(qp, p, qp->paths.path[p].next_seq++, 0, out);
		probed++;
	}
	mro_count(qp->dev->stats, MRO_CNT_TLP, 1);
	trace_mro_tlp(qp->qpn, qp->req.una, qp->req.nxt, probed);
}

/* no progress since mro_arm_rto() armed the probe: send it */
static void mro_rto_probe_tail(struct mro_qp *qp, struct sk_buff_head *out)
{
	lockdep_assert_held(&qp->lock);
	qp->req.pto_armed = false;
	qp->req.tlp_done = true;
	mro_rto_send_tlp(qp, out);
	mro_arm_rto(qp);
}

/* the oldest WQE fails with IB_WC_RETRY_EXC_ERR, and the QP with it */
static void mro_rto_give_up(struct mro_qp *qp)
{
	struct mro_swqe *s;

	lockdep_assert_held(&qp->lock);
	s = mro_swqe_of_psn(qp, qp->req.una);
	if (s)
		mro_swqe_fail(qp, s, IB_WC_RETRY_EXC_ERR);
	mro_qp_count(qp, MRO_CNT_RETRY_EXCEEDED, 1);
	mro_req_complete_ready(qp);
}

/*
 * The timeout proper: resend only the oldest PSN still out (and any sent
 * long before), back off, and let congestion control know; the ACKs the
 * resend brings back (SACK) find the rest.  "Long before" counts back
 * from when the timer was due, not from now: a timer that fired late,
 * e.g. in a descheduled VM whose ACKs still wait to be read, then costs
 * one packet, not a window.
 */
static void mro_rto_expire(struct mro_qp *qp, struct sk_buff_head *out)
{
	bool fired = false;
	u32 due, psn;

	lockdep_assert_held(&qp->lock);
	mro_qp_count(qp, MRO_CNT_RTO, 1);
	trace_mro_rto(qp->qpn, qp->req.una, qp->req.nxt, qp->req.rto_us,
		      min_t(u32, qp->req.backoff, U8_MAX),
		      min_t(u32, qp->req.retry_left, U8_MAX));
	/* the oldest PSN was known lost, its resend held by window or pacing */
	if (mro_slot(qp, qp->req.una)->state == MRO_TX_LOST)
		mro_count(qp->dev->stats, MRO_CNT_RTO_RETX_HELD, 1);
	mro_cc_timeout(qp);
	if (qp->req.retry_left)
		qp->req.retry_left--;
	mro_hello_resend(qp, out);
	due = mro_seq_before(qp->req.rto_due_us, mro_now_us()) ?
		qp->req.rto_due_us : mro_now_us();
	for (psn = qp->req.una; mro_seq_before(psn, qp->req.nxt); psn++) {
		struct mro_txslot *t = mro_slot(qp, psn);

		if (t->state != MRO_TX_SENT)
			continue;
		if (fired && mro_rto_recent(due, t->sent_us, qp->req.rto_us))
			continue;
		mro_slot_lose(qp, t, false);
		t->rto_lost = !fired;
		/*
		 * Only the oldest PSN weighs on its path's health: a late
		 * timer (a descheduled host) finds every PSN old.
		 */
		if (t->on_path && t->path < qp->paths.n && !fired)
			mro_pm_lost(qp, t->path, t->path_seq, true);
		else if (t->on_path && t->path < qp->paths.n)
			qp->paths.path[t->path].timeouts++;
		fired = true;
	}
	qp->req.backoff++;
	mro_req_run(qp, out, 64);
	if (fired || qp->req.una != qp->req.nxt)
		mro_arm_rto(qp);
}

enum hrtimer_restart mro_req_rto(struct hrtimer *timer)
{
	struct mro_qp *qp = container_of(timer, struct mro_qp, req.rto_timer);
	struct sk_buff_head out;
	u32 left = 0;

	__skb_queue_head_init(&out);
	spin_lock(&qp->lock);
	switch (mro_rto_job(qp, &left)) {
	case MRO_RTO_NONE:
		break;
	case MRO_RTO_UNKEYED:
		mro_hello_unkeyed_rto(qp, &out);
		break;
	case MRO_RTO_RNR_WAIT:
		mro_arm_rto(qp);
		break;
	case MRO_RTO_EARLY:
		mro_count(qp->dev->stats, MRO_CNT_RTO_WAITED, 1);
		mro_rto_start(qp, left);
		break;
	case MRO_RTO_TLP:
		mro_rto_probe_tail(qp, &out);
		break;
	case MRO_RTO_EXHAUSTED:
		mro_rto_give_up(qp);
		break;
	case MRO_RTO_EXPIRE:
		mro_rto_expire(qp, &out);
		break;
	}
	return mro_req_timer_done(qp, &out);
}

/*
 * The reorder timer (armed by mro_detect_loss()): no ACK came since, so
 * the time rules declare lost what they would have by now, and the
 * resends go out.
 */
enum hrtimer_restart mro_req_reo(struct hrtimer *timer)
{
	struct mro_qp *qp = container_of(timer, struct mro_qp, req.reo_timer);
	struct sk_buff_head out;
	u32 lost;

	__skb_queue_head_init(&out);
	spin_lock(&qp->lock);
	if ((qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD) &&
	    !qp->req.rnr_wait && qp->req.una != qp->req.nxt) {
		lost = qp->req.lost;
		mro_detect_loss(qp, true);
		if (qp->req.lost != lost) {
			mro_cc_loss(qp, lost);
			mro_req_run(qp, &out, 64);
		}
	}
	return mro_req_timer_done(qp, &out);
}

enum hrtimer_restart mro_req_rnr(struct hrtimer *timer)
{
	struct mro_qp *qp = container_of(timer, struct mro_qp, req.rnr_timer);
	struct sk_buff_head out;
	u32 psn;

	__skb_queue_head_init(&out);
	spin_lock(&qp->lock);
	if (qp->req.rnr_wait) {
		qp->req.rnr_wait = false;
		/* resend what the receiver refused and everything after it */
		for (psn = qp->req.rnr_psn; mro_seq_before(psn, qp->req.nxt);
		     psn++) {
			struct mro_txslot *t;

			if (!mro_seq_in(psn, qp->req.una, mro_inflight(qp)))
				continue;
			t = mro_slot(qp, psn);
			if (t->state == MRO_TX_SENT)
				mro_slot_lose(qp, t, false);
		}
		mro_req_run(qp, &out, 64);
	}
	return mro_req_timer_done(qp, &out);
}
