// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce congestion control glue.  Requester: feeds ACK samples into
 * the device's algorithm, gates new packets by min(cwnd, credit) and paces
 * them with an hrtimer.  Responder: counts CE marks, grants credit from
 * the device pool in ACKs and, when the sender falls silent, in one CREDIT
 * packet before it releases its share.  All under qp->lock.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>

#include "mro_ackpol.h"
#include "mro_psn.h"
#include "mro_qp.h"
#include "mro_trace.h"

/* bytes a data packet of @mtu payload takes on the wire (IPv4) */
static u32 mro_cc_pkt_bytes(u32 mtu)
{
	return mtu + 20 + 8 + METAROCE_BTH_LEN + METAROCE_MSG_LEN +
	       METAROCE_CRC_LEN;
}

static const struct mro_cc_params *mro_cc_p(struct mro_qp *qp)
{
	return &qp->dev->cc.params;
}

bool mro_cc_skb_ce(struct sk_buff *skb)
{
	if (skb_network_header(skb) < skb->head ||
	    skb_network_header(skb) + sizeof(struct iphdr) > skb->data)
		return false;
	if (ip_hdr(skb)->version == 4)
		return INET_ECN_is_ce(ip_hdr(skb)->tos);
	if (ip_hdr(skb)->version == 6 &&
	    skb_network_header(skb) + sizeof(struct ipv6hdr) <= skb->data)
		return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
	return false;
}

static void mro_cc_run_locked(struct mro_qp *qp)
{
	struct sk_buff_head out;

	__skb_queue_head_init(&out);
	spin_lock(&qp->lock);
	if (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD)
		mro_req_run(qp, &out, 64);
	mro_qp_queue_tx(qp, &out);
	spin_unlock(&qp->lock);
	mro_qp_tx_drain(qp);
	mro_qp_notify_cqs(qp);
}

/*
 * Run the sender @ns from now unless the pacing timer is due sooner: it
 * doubles as the retry timer of a transmit that found no buffer.
 */
void mro_cc_run_after(struct mro_qp *qp, u64 ns)
{
	lockdep_assert_held(&qp->lock);
	if (!hrtimer_is_queued(&qp->cc.pace_timer))
		hrtimer_start(&qp->cc.pace_timer,
			      ns_to_ktime(ktime_get_ns() + ns),
			      HRTIMER_MODE_ABS_SOFT);
}

/* the pacing clock has come: release the send queue */
static enum hrtimer_restart mro_cc_pace_fire(struct hrtimer *t)
{
	struct mro_qp *qp = container_of(t, struct mro_qp, cc.pace_timer);

	mro_cc_run_locked(qp);
	return HRTIMER_NORESTART;
}

static void mro_cc_send_credit(struct mro_qp *qp, u32 grant,
			       struct sk_buff_head *out)
{
	struct mro_hdr hdr = {};
	struct sk_buff *skb;
	void *payload;

	lockdep_assert_held(&qp->lock);
	hdr.opcode = METAROCE_OP_CREDIT;
	hdr.flags = METAROCE_F_ECT;
	hdr.sqpn = qp->qpn;
	hdr.dqpn = qp->dest_qpn;
	/* an ACK's cum_psn: the requester takes the grant only if it is one */
	hdr.psn = qp->resp.win.base;
	hdr.tsval = mro_qp_tsval(qp, mro_now_us());
	hdr.ctrl.credit_psn = grant;
	skb = mro_tx_build(qp, &qp->av, &hdr, 0, &payload);
	if (!skb)
		return;
	mro_tx_seal(skb);
	__skb_queue_tail(out, skb);
	mro_count(qp->dev->stats, MRO_CNT_CC_CREDIT_SENT, 1);
	trace_mro_credit(qp->qpn, grant);
}

#define MRO_CC_IDLE_MAX_US	1000000

/*
 * The credit timer's interval: credit_idle_us, or more when this QP has
 * shown it is longer between its sender's packets (a sender that came
 * back after a CREDIT was not idle: its RTT is longer than the interval).
 * It is coarse: it may run up to one more interval late, so that while
 * data flows (a tick every interval or two) it rides the interrupts of
 * other timers, the scheduler tick's mostly, instead of raising its own.
 */
static void mro_cc_credit_arm(struct mro_qp *qp)
{
	u32 us = max(READ_ONCE(mro_cc_p(qp)->credit_idle_us), qp->cc.idle_us);
	u64 ns = (u64)clamp(us, 100U, MRO_CC_IDLE_MAX_US) * NSEC_PER_USEC;

	hrtimer_start_range_ns(&qp->cc.credit_timer, ns_to_ktime(ns), ns,
			       HRTIMER_MODE_REL_SOFT);
}

/*
 * Responder credit timer: data in the last interval keeps the share; one
 * silent interval sends a CREDIT (the last grant's ACK may be lost), a
 * second gives the share back to the pool.
 */
static enum hrtimer_restart mro_cc_credit_fire(struct hrtimer *t)
{
	struct mro_qp *qp = container_of(t, struct mro_qp, cc.credit_timer);
	struct mro_credit_pool *pool = &qp->dev->cc.pool;
	struct mro_credit_rx *rx = &qp->cc.crx;
	struct sk_buff_head out;

	__skb_queue_head_init(&out);
	spin_lock(&qp->lock);
	if (!rx->active)
		goto unlock;
	if (qp->state != IB_QPS_RTR && qp->state != IB_QPS_RTS &&
	    qp->state != IB_QPS_SQD) {
		mro_credit_rx_release(pool, rx);
		goto unlock;
	}
	if (rx->seen) {
		/* silent for one interval, then back: the interval is short */
		if (rx->idle)
			qp->cc.idle_us = min(2 * max(qp->cc.idle_us,
						     READ_ONCE(mro_cc_p(qp)->credit_idle_us)),
					     (u32)MRO_CC_IDLE_MAX_US);
		rx->seen = false;
		rx->idle = 0;
		mro_cc_credit_arm(qp);
	} else if (!rx->idle++) {
		mro_cc_send_credit(qp, mro_cc_grant(qp), &out);
		mro_cc_credit_arm(qp);
	} else {
		mro_credit_rx_release(pool, rx);
	}
unlock:
	mro_qp_queue_tx(qp, &out);
	spin_unlock(&qp->lock);
	mro_qp_tx_drain(qp);
	return HRTIMER_NORESTART;
}

void mro_cc_qp_create(struct mro_qp *qp)
{
	struct mro_cc_qp *c = &qp->cc;

	hrtimer_init(&c->pace_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	c->pace_timer.function = mro_cc_pace_fire;
	hrtimer_init(&c->credit_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	c->credit_timer.function = mro_cc_credit_fire;
}

/* the sender's algorithm ends: its release, the reference on its owner */
static void mro_cc_stop(struct mro_qp *qp)
{
	struct mro_cc_qp *c = &qp->cc;
	const struct mro_cc_ops *ops = c->cc.ops;

	lockdep_assert_held(&qp->lock);
	if (!c->on)
		return;
	c->on = false;
	mro_cc_release(&c->cc);
	mro_cc_put(ops);
}

void mro_cc_qp_destroy(struct mro_qp *qp)
{
	hrtimer_cancel(&qp->cc.pace_timer);
	hrtimer_cancel(&qp->cc.credit_timer);
	spin_lock_bh(&qp->lock);
	mro_cc_stop(qp);
	mro_credit_rx_release(&qp->dev->cc.pool, &qp->cc.crx);
	spin_unlock_bh(&qp->lock);
}

/* a state change; timers are only stopped, not waited */
void mro_cc_qp_state(struct mro_qp *qp, int new_state)
{
	struct mro_cc_qp *c = &qp->cc;
	struct mro_cc_dev *d = &qp->dev->cc;
	const struct mro_cc_ops *ops;
	const void *ap;

	lockdep_assert_held(&qp->lock);
	if (qp->ibqp.qp_type != IB_QPT_RC)
		return;
	switch (new_state) {
	case IB_QPS_RTR:
		mro_credit_rx_release(&d->pool, &c->crx);
		mro_credit_rx_reset(&c->crx, qp->resp.win.base,
				    READ_ONCE(d->params.credits) ?
				    READ_ONCE(d->params.spec_window) : 0);
		c->idle_us = 0;
		break;
	case IB_QPS_RTS:
		if (c->on)
			break;	/* SQD -> RTS keeps the window */
		ops = mro_cc_dev_algo(d, &ap);
		mro_cc_init(&c->cc, ops, &d->params, ap);
		/* without credits here, no speculation: the whole window */
		mro_credit_tx_init(&c->ctx, qp->req.nxt,
				   READ_ONCE(d->params.credits) ?
				   READ_ONCE(d->params.spec_window) :
				   qp->req.win);
		c->pace_rate = 0;
		c->pace_next_ns = 0;
		c->cwnd_closed = false;
		c->credit_closed = false;
		c->sacked = 0;
		c->on = true;
		break;
	case IB_QPS_RESET:
	case IB_QPS_ERR:
		mro_cc_stop(qp);
		hrtimer_try_to_cancel(&c->pace_timer);
		mro_credit_rx_release(&d->pool, &c->crx);
		break;
	default:
		break;
	}
}

/* PSNs in the network (mro_cc_pipe()) */
static u32 mro_cc_qp_pipe(struct mro_qp *qp)
{
	return mro_cc_pipe(mro_inflight(qp), qp->cc.sacked, qp->req.lost);
}

/* packets in the pacing clock's burst (mro_pace_burst()) */
static u32 mro_cc_burst_pkts(struct mro_qp *qp)
{
	const struct mro_cc_params *p = mro_cc_p(qp);
	struct mro_cc *cc = &qp->cc.cc;

	return mro_pace_burst(READ_ONCE(p->pace_burst_bytes), qp->mtu,
			      cc->ops->cwnd(cc), READ_ONCE(p->pace_burst_div));
}

/*
 * The pacing clock; false (and the timer armed) when it has not come.
 * The timer wakes once a burst is due (mro_pace_wake()); an ACK in the
 * meantime still sends at the clock's own time.
 */
static bool mro_cc_pace_ok(struct mro_qp *qp)
{
	struct mro_cc_qp *c = &qp->cc;
	u64 now, gap;

	if (!c->pace_rate)
		return true;
	now = ktime_get_ns();
	if (now >= c->pace_next_ns)
		return true;
	if (!hrtimer_is_queued(&c->pace_timer)) {
		u32 burst = mro_cc_burst_pkts(qp);

		gap = mro_pace_gap_ns(mro_cc_pkt_bytes(qp->mtu), c->pace_rate);
		hrtimer_start(&c->pace_timer,
			      ns_to_ktime(mro_pace_wake(c->pace_next_ns, gap,
							burst)),
			      HRTIMER_MODE_ABS_SOFT);
	}
	mro_count(qp->dev->stats, MRO_CNT_CC_PACE_DEFERRED, 1);
	return false;
}

/*
 * @npsn more PSNs fit the window; an empty pipe always takes one step.
 * New data (@reopen) waits, once the window closed, until a share of it
 * is free (mro_ackpol_cwnd_wait()); a retransmission only needs room.
 */
static bool mro_cc_window_ok(struct mro_qp *qp, u32 pipe, u32 npsn,
			     bool reopen)
{
	struct mro_cc_qp *c = &qp->cc;
	u32 cwnd = c->cc.ops->cwnd(&c->cc);
	bool closed = false;

	if (!pipe) {
		c->cwnd_closed = false;
		return true;
	}
	if (!mro_ackpol_cwnd_wait(pipe, cwnd, npsn,
				  reopen ? &c->cwnd_closed : &closed))
		return true;
	mro_count(qp->dev->stats, MRO_CNT_CC_CWND_LIMITED, 1);
	return false;
}

bool mro_cc_may_send(struct mro_qp *qp, u32 npsn)
{
	struct mro_cc_qp *c = &qp->cc;
	u32 pipe, avail;

	lockdep_assert_held(&qp->lock);
	if (!c->on)
		return true;
	pipe = mro_cc_qp_pipe(qp);
	if (!mro_cc_window_ok(qp, pipe, npsn, true))
		return false;
	avail = mro_credit_tx_avail(&c->ctx, qp->req.nxt);
	if (mro_ackpol_credit_wait(avail, c->ctx.credit_psn - qp->req.una,
				   npsn, &c->credit_closed)) {
		if (pipe) {
			mro_count(qp->dev->stats, MRO_CNT_CC_CREDIT_LIMITED, 1);
			return false;
		}
		/* nothing out, so no ACK to wait for: go on */
		if (avail < npsn)
			mro_count(qp->dev->stats, MRO_CNT_CC_CREDIT_PROBE, 1);
	}
	return mro_cc_pace_ok(qp);
}

/* responses a READ_REQ asks for, of @n wanted (mro_ackpol_burst_size()) */
u32 mro_cc_read_burst(struct mro_qp *qp, u32 n)
{
	struct mro_cc_qp *c = &qp->cc;

	lockdep_assert_held(&qp->lock);
	if (!c->on)
		return n;
	return mro_ackpol_burst_size(n, mro_cc_qp_pipe(qp),
				     c->cc.ops->cwnd(&c->cc),
				     mro_credit_tx_avail(&c->ctx, qp->req.nxt));
}

/*
 * A retransmission replaces a packet that left the pipe (qp->req.lost): it
 * takes a place in the window and on the pacing clock like a new one,
 * but no credit (its PSN was granted before).  The first resend after
 * an RTO goes regardless.
 */
bool mro_cc_may_retx(struct mro_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (!qp->cc.on)
		return true;
	/* the pipe may be full of packets lost unseen: never stall an RTO */
	if (qp->cc.rto_retx) {
		qp->cc.rto_retx = false;
		return true;
	}
	return mro_cc_window_ok(qp, mro_cc_qp_pipe(qp), 1, false) &&
	       mro_cc_pace_ok(qp);
}

void mro_cc_slot_acked(struct mro_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->cc.sacked++;
}

void mro_cc_una_passed(struct mro_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (qp->cc.sacked)
		qp->cc.sacked--;
}

/*
 * Whether the packet with @psn must ask for an ACK: the window or the
 * grant stops the sender before the next PSN the responder acknowledges
 * unasked (mro_psn.h), which would leave the window to the RTO.
 */
bool mro_cc_ack_req(struct mro_qp *qp, u32 psn)
{
	struct mro_cc_qp *c = &qp->cc;

	lockdep_assert_held(&qp->lock);
	if (!c->on)
		return false;
	return mro_ackpol_need_ack(psn, qp->req.una, c->cc.ops->cwnd(&c->cc),
				   mro_cc_qp_pipe(qp) + 1,
				   mro_credit_tx_avail(&c->ctx, psn + 1));
}

void mro_cc_sent(struct mro_qp *qp, u32 bytes)
{
	struct mro_cc_qp *c = &qp->cc;
	u64 gap;

	lockdep_assert_held(&qp->lock);
	if (!c->on || !c->pace_rate)
		return;
	gap = mro_pace_gap_ns(mro_cc_pkt_bytes(bytes), c->pace_rate);
	c->pace_next_ns = mro_pace_next(c->pace_next_ns, ktime_get_ns(), gap,
					gap * mro_cc_burst_pkts(qp));
}

/* count and trace the algorithm's window cuts since @dec (@rto: a timeout) */
static void mro_cc_count_cuts(struct mro_qp *qp, u32 dec, bool rto)
{
	struct mro_cc_qp *c = &qp->cc;

	if (c->cc.decreases == dec)
		return;
	mro_count(qp->dev->stats, MRO_CNT_CC_DECREASE, c->cc.decreases - dec);
	trace_mro_cc_cut(qp->qpn, c->cc.cwnd_fp >> MRO_CC_FP_SHIFT,
			 c->cc.decreases - dec, rto);
}

/* after the algorithm saw feedback: count its cuts since @dec, re-pace */
static void mro_cc_feedback_done(struct mro_qp *qp, u32 dec)
{
	struct mro_cc_qp *c = &qp->cc;

	mro_cc_count_cuts(qp, dec, false);
	c->pace_rate = c->cc.ops->pacing_rate(&c->cc,
					      mro_cc_pkt_bytes(qp->mtu));
}

void mro_cc_loss(struct mro_qp *qp, u32 old_lost)
{
	struct mro_cc_qp *c = &qp->cc;
	u32 dec = c->cc.decreases;

	lockdep_assert_held(&qp->lock);
	if (!c->on || qp->req.lost <= old_lost)
		return;
	mro_cc_on_loss(&c->cc, mro_now_us(), qp->req.lost - old_lost);
	mro_cc_feedback_done(qp, dec);
}

void mro_cc_ack(struct mro_qp *qp, const struct mro_hdr *hdr, u32 old_una,
		u32 old_lost)
{
	const struct mro_ack_hdr *a = &hdr->ack;
	struct mro_cc_qp *c = &qp->cc;
	struct mro_cc_sample s;
	u32 dec, pmin = 0, now = mro_now_us();
	unsigned int bad;

	lockdep_assert_held(&qp->lock);
	if (!c->on || mro_seq_after(a->cum_psn, qp->req.nxt))
		return;
	switch (mro_credit_tx_update(&c->ctx, a->credit_psn, qp->req.una,
				     qp->req.win)) {
	case MRO_CREDIT_BAD:
		mro_count(qp->dev->stats, MRO_CNT_CC_BAD_FEEDBACK, 1);
		break;
	default:
		break;
	}
	dec = c->cc.decreases;
	c->cc.srtt_us = qp->req.srtt_us;
	c->cc.rttvar_us = qp->req.rttvar_us;
	/* delay counts from the echoed path's own base RTT */
	if (a->echo_path < qp->paths.n)
		pmin = qp->paths.path[a->echo_path].min_rtt_us;
	bad = mro_cc_make_sample(&c->cc, now, a->ts_echo, a->ecn_ce,
				 qp->req.una - old_una, mro_inflight(qp), pmin,
				 &s);
	s.peer_ts = hdr->tsval;
	if (bad & MRO_CC_FB_BAD_ECN)
		mro_count(qp->dev->stats, MRO_CNT_CC_BAD_FEEDBACK, 1);
	if (s.ecn) {
		mro_count(qp->dev->stats, MRO_CNT_CC_ECN_ECHOED, s.ecn);
		if (a->echo_path < qp->paths.n)
			qp->paths.path[a->echo_path].ecn += s.ecn;
	}
	mro_cc_on_ack(&c->cc, &s);
	if (qp->req.lost > old_lost)
		mro_cc_on_loss(&c->cc, now, qp->req.lost - old_lost);
	mro_cc_feedback_done(qp, dec);
}

/*
 * READ or atomic responses acknowledged the PSNs from @old_una on (@ce: this
 * one arrived CE-marked).  ACKs never acknowledge a READ's PSNs, so the
 * window grows by the responses; the delay is judged by the READ_REQs'
 * ACKs (the responder sends them ahead of the responses).  The requester
 * is the data's receiver here: it sees the CE mark itself.
 */
void mro_cc_resp(struct mro_qp *qp, u32 old_una, bool ce)
{
	struct mro_cc_qp *c = &qp->cc;
	struct mro_cc_sample s = {
		.now_us = mro_now_us(),
		.acked = qp->req.una - old_una,
		.ecn = ce,
	};
	u32 dec;

	lockdep_assert_held(&qp->lock);
	if (!c->on || (!s.acked && !s.ecn))
		return;
	if (s.ecn) {
		mro_count(qp->dev->stats, MRO_CNT_CC_ECN_ECHOED, 1);
		c->cc.ecn_total++;
	}
	dec = c->cc.decreases;
	c->cc.srtt_us = qp->req.srtt_us;
	c->cc.rttvar_us = qp->req.rttvar_us;
	mro_cc_on_ack(&c->cc, &s);
	mro_cc_feedback_done(qp, dec);
}

void mro_cc_timeout(struct mro_qp *qp)
{
	struct mro_cc_qp *c = &qp->cc;
	u32 dec = c->cc.decreases;

	lockdep_assert_held(&qp->lock);
	if (!c->on)
		return;
	c->rto_retx = true;
	mro_cc_on_timeout(&c->cc, mro_now_us());
	mro_cc_count_cuts(qp, dec, true);
}

/* the oldest PSN an RTO resent was acknowledged: was the RTO spurious? */
void mro_cc_rto_verdict(struct mro_qp *qp, bool spurious)
{
	struct mro_cc *cc = &qp->cc.cc;

	lockdep_assert_held(&qp->lock);
	if (!qp->cc.on)
		return;
	if (spurious)
		mro_cc_undo(cc);
	else
		mro_cc_undo_drop(cc);
}

/* a CREDIT: MRO_RXV_BAD_FEEDBACK if its grant reaches past any window */
enum mro_rx_verdict mro_cc_credit_rcv(struct mro_qp *qp, u32 psn,
				      const struct mro_ctrl_hdr *ctrl)
{
	struct mro_cc_qp *c = &qp->cc;

	lockdep_assert_held(&qp->lock);
	/* its PSN is the responder's cum_psn, held to an ACK's bounds */
	if (!mro_ack_cum_ok(psn, qp->req.una, qp->req.nxt, qp->req.win))
		return MRO_RXV_ACK_RANGE;
	mro_count(qp->dev->stats, MRO_CNT_CC_CREDIT_RCVD, 1);
	if (!c->on)
		return MRO_RXV_OK;
	if (mro_credit_tx_update(&c->ctx, ctrl->credit_psn, qp->req.una,
				 qp->req.win) == MRO_CREDIT_BAD)
		return MRO_RXV_BAD_FEEDBACK;
	return MRO_RXV_OK;
}

/* join the pool; active => the credit timer runs (mro_cc_credit_fire) */
static void mro_cc_rx_activate(struct mro_qp *qp)
{
	struct mro_credit_rx *rx = &qp->cc.crx;

	if (rx->active)
		return;
	mro_credit_rx_activate(&qp->dev->cc.pool, rx);
	/* a new sender's speculation counts from its first packet */
	mro_credit_rx_account(&qp->dev->cc.pool, rx, qp->resp.win.base);
	mro_cc_credit_arm(qp);
}

void mro_cc_rx(struct mro_qp *qp, const struct mro_hdr *hdr)
{
	struct mro_credit_rx *rx = &qp->cc.crx;

	lockdep_assert_held(&qp->lock);
	if (hdr->ce)
		qp->resp.ecn_ce++;
	if (qp->ibqp.qp_type != IB_QPT_RC ||
	    !READ_ONCE(mro_cc_p(qp)->credits))
		return;
	rx->seen = true;
	rx->idle = 0;
	mro_cc_rx_activate(qp);
}

u32 mro_cc_grant(struct mro_qp *qp)
{
	const struct mro_cc_params *p = mro_cc_p(qp);
	struct mro_credit_rx *rx = &qp->cc.crx;
	u32 base = qp->resp.win.base, win = qp->resp.win.size;

	lockdep_assert_held(&qp->lock);
	if (!READ_ONCE(p->credits)) {
		mro_credit_rx_release(&qp->dev->cc.pool, rx);
		return base + win;
	}
	mro_cc_rx_activate(qp);
	return mro_credit_rx_grant(&qp->dev->cc.pool, rx, base, win,
				   READ_ONCE(p->credit_budget),
				   READ_ONCE(p->credit_quantum));
}
