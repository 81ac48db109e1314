// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce path manager: owns the health of a connection's paths.  The
 * requester tells it of losses (mro_pm_lost()) and the ACKs' echoes
 * (mro_pm_echo(), mro_pm_echo_check()); by the rules of mro_pathscore.c it
 * suspends a path on a short loss streak, retires one that black-holes
 * either way, re-probes a retired path later with a PROBE on a fresh
 * source port (from the requester as it runs, mro_pm_reprobe(), and from
 * a timer of its own, so that an idle QP re-probes too) and revives it
 * when the probe is answered.  Which path carries a packet is the
 * scheduler's (mro_sched.h) among the paths this leaves usable.
 * All under qp->lock.  Home of the tracepoints.
 */
#include "mro_pathscore.h"
#include "mro_psn.h"
#include "mro_qp.h"

#define CREATE_TRACE_POINTS
#include "mro_trace.h"

#define MRO_PROBE_RTOS		4	/* first re-probe after this many RTOs */

static void mro_trace_path(struct mro_qp *qp, u16 p, bool revive)
{
	const struct mro_path *path = &qp->paths.path[p];

	if (revive)
		trace_mro_path_revive(qp->qpn, p, path->sport, path->loss_ewma,
				      path->srtt_us);
	else
		trace_mro_path_retire(qp->qpn, p, path->sport, path->loss_ewma,
				      path->srtt_us);
}

/*
 * The path manager's timer: it fires when the next retired path is due
 * for a probe, so that a QP with nothing to send re-probes too (the
 * requester re-probes as it runs as well); stopped when none is retired.
 */
static void mro_pm_arm_probe(struct mro_qp *qp)
{
	u32 wait = mro_paths_probe_wait(&qp->paths, mro_now_us());

	lockdep_assert_held(&qp->lock);
	if (!wait) {
		hrtimer_try_to_cancel(&qp->probe_timer);
		return;
	}
	hrtimer_start(&qp->probe_timer, ns_to_ktime((u64)wait * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_SOFT);
}

static void mro_pm_retire(struct mro_qp *qp, u16 p)
{
	mro_path_retire(&qp->paths, p, mro_now_us(),
			MRO_PROBE_RTOS * qp->req.rto_us);
	mro_count(qp->dev->stats, MRO_CNT_PATH_RETIRED, 1);
	mro_trace_path(qp, p, false);
	mro_pm_arm_probe(qp);
}

void mro_pm_lost(struct mro_qp *qp, u16 p, u32 seq, bool timeout)
{
	u64 suspends = qp->paths.path[p].suspends;

	lockdep_assert_held(&qp->lock);
	if (mro_path_lost(&qp->paths, p, seq, timeout))
		mro_pm_retire(qp, p);
	if (qp->paths.path[p].suspends != suspends) {
		const struct mro_path *path = &qp->paths.path[p];

		mro_count(qp->dev->stats, MRO_CNT_PATH_SUSPENDED, 1);
		trace_mro_path_suspend(qp->qpn, p, path->sport,
				       path->loss_ewma, path->srtt_us);
	}
}

void mro_pm_echo_check(struct mro_qp *qp)
{
	u32 now = mro_now_us();
	u16 p;

	lockdep_assert_held(&qp->lock);
	/*
	 * An echo the peer owes is late by an RTO from when we learned its
	 * packet arrived: ACKs that left after it came by other paths.
	 */
	for (p = 0; p < qp->paths.n && qp->paths.owed; p++)
		if (mro_path_echo_overdue(&qp->paths, p, now, qp->req.rto_us))
			mro_pm_retire(qp, p);
}

void mro_pm_echo(struct mro_qp *qp, const struct mro_ack_hdr *a)
{
	lockdep_assert_held(&qp->lock);
	if (!mro_path_echo(&qp->paths, a->echo_path, a->echo_seq, a->ts_echo,
			   mro_now_us()))
		return;
	mro_count(qp->dev->stats, MRO_CNT_PATH_REVIVED, 1);
	mro_trace_path(qp, a->echo_path, true);
}

void mro_pm_send_probe(struct mro_qp *qp, u16 p, u32 seq, u16 flags,
		       struct sk_buff_head *out)
{
	struct mro_hdr hdr = {};
	struct sk_buff *skb;
	void *payload;

	hdr.opcode = METAROCE_OP_PROBE;
	/*
	 * ECT like the data: an ECN queue in its marking range drops what
	 * cannot be marked, and a dropped tail-loss probe leaves the tail
	 * to the RTO (incast: 103 of 126 RED drops were such "early" drops)
	 */
	hdr.flags = METAROCE_F_ECT | METAROCE_F_ACK_REQ | flags;
	hdr.sqpn = qp->qpn;
	hdr.dqpn = qp->dest_qpn;
	hdr.psn = qp->req.nxt;
	hdr.path = p;
	hdr.path_seq = seq;
	hdr.tsval = mro_qp_tsval(qp, mro_now_us());
	hdr.ctrl.token = seq;
	skb = mro_tx_build(qp, &qp->av, &hdr, 0, &payload);
	if (!skb)
		return;
	mro_tx_seal(skb);
	__skb_queue_tail(out, skb);
	mro_path_sent(&qp->paths, p, 0, false);
	qp->req.late_tx_end = qp->req.nxt;	/* see mro_loss_scan_end() */
	mro_count(qp->dev->stats, MRO_CNT_PROBES_SENT, 1);
}

void mro_pm_reprobe(struct mro_qp *qp, struct sk_buff_head *out)
{
	u32 now = mro_now_us();
	bool sent = false;
	u16 p;

	lockdep_assert_held(&qp->lock);
	for (p = 0; p < qp->paths.n; p++) {
		if (!mro_path_probe_due(&qp->paths, p, now))
			continue;
		/*
		 * mro_path_probe() gives it a fresh source port, and the flag
		 * asks the peer for one too: the hole may be on the way back
		 */
		mro_pm_send_probe(qp, p, mro_path_probe(&qp->paths, p, now),
				  METAROCE_F_NEW_PORT, out);
		sent = true;
	}
	if (sent)	/* the next probes are due later */
		mro_pm_arm_probe(qp);
}

enum hrtimer_restart mro_pm_probe_timer(struct hrtimer *timer)
{
	struct mro_qp *qp = container_of(timer, struct mro_qp, probe_timer);
	struct sk_buff_head out;

	__skb_queue_head_init(&out);
	spin_lock(&qp->lock);
	if ((qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD) &&
	    qp->ibqp.qp_type == IB_QPT_RC && mro_prot_tx_ready(qp->prot))
		mro_pm_reprobe(qp, &out);
	mro_qp_queue_tx(qp, &out);
	spin_unlock(&qp->lock);
	mro_qp_tx_drain(qp);
	return HRTIMER_NORESTART;
}
