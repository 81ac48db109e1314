// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce congestion control telemetry for `rdma resource show qp -dd`:
 * the QP's algorithm, window, credit (as sender and as receiver), ECN
 * marks, last delay sample and target, minimum RTT, pacing rate,
 * decreases and the ACKs' reverse queueing, as many of them as the
 * netlink message still has room for.
 */
#include <net/netlink.h>
#include <rdma/restrack.h>

#include "mro_qp.h"

/* room for one whole attribute (name, print type, 64-bit value) */
static bool mro_cc_room(struct sk_buff *msg)
{
	return skb_tailroom(msg) >= 64;
}

struct mro_cc_snap {
	const char *algo;
	u32 cwnd;
	u32 ssthresh;
	u32 credit_psn;
	u32 credit_avail;
	u32 grant_psn;
	u32 ecn_rcvd;
	u64 ecn_echoed;
	u32 delay_us;
	u32 rev_delay_us;
	u32 target_us;
	u32 noise_us;
	u32 min_rtt_us;
	u64 pace_rate;
	u32 decreases;
};

void mro_cc_fill_res(struct sk_buff *msg, struct mro_qp *qp, bool psns)
{
	struct mro_cc_qp *c = &qp->cc;
	struct mro_cc_snap s = {};

	spin_lock_bh(&qp->lock);
	s.algo = c->on ? c->cc.ops->name : "none";
	if (c->on) {
		struct mro_cc_info info;

		mro_cc_get_info(&c->cc, &info);
		s.cwnd = c->cc.ops->cwnd(&c->cc);
		s.ssthresh = c->cc.ssthresh;
		s.credit_psn = c->ctx.credit_psn;
		s.credit_avail = mro_credit_tx_avail(&c->ctx, qp->req.nxt);
		s.ecn_echoed = c->cc.ecn_total;
		s.delay_us = info.delay_us;
		s.rev_delay_us = info.rev_delay_us;
		s.target_us = info.target_us;
		s.noise_us = info.noise_us;
		s.min_rtt_us = mro_minrtt_get(&c->cc.minrtt);
		s.pace_rate = c->pace_rate;
		s.decreases = c->cc.decreases;
	}
	s.grant_psn = c->crx.grant_psn;
	s.ecn_rcvd = qp->resp.ecn_ce;
	spin_unlock_bh(&qp->lock);
	if (s.min_rtt_us == U32_MAX)
		s.min_rtt_us = 0;

	/*
	 * Best effort, most useful first (the algorithm's name, then its
	 * window): rdma(8) reads dumps with a 4 KiB buffer and the per-path
	 * attributes come first.  An attribute is added only with room for
	 * all of it, so none is ever cut in half.
	 */
	if (!mro_cc_room(msg) ||
	    rdma_nl_put_driver_string(msg, "cc", s.algo) || !mro_cc_room(msg) ||
	    rdma_nl_put_driver_u32(msg, "cwnd", s.cwnd) || !mro_cc_room(msg) ||
	    rdma_nl_put_driver_u32(msg, "credit_avail", s.credit_avail) ||
	    !mro_cc_room(msg) ||
	    rdma_nl_put_driver_u32(msg, "ecn_rcvd", s.ecn_rcvd) ||
	    !mro_cc_room(msg) ||
	    rdma_nl_put_driver_u64(msg, "ecn_echoed", s.ecn_echoed) ||
	    !mro_cc_room(msg) ||
	    rdma_nl_put_driver_u32(msg, "delay_us", s.delay_us) ||
	    !mro_cc_room(msg) ||
	    rdma_nl_put_driver_u32(msg, "target_us", s.target_us) ||
	    !mro_cc_room(msg) ||
	    rdma_nl_put_driver_u32(msg, "noise_us", s.noise_us) ||
	    !mro_cc_room(msg) ||
	    rdma_nl_put_driver_u32(msg, "min_rtt_us", s.min_rtt_us) ||
	    !mro_cc_room(msg) ||
	    rdma_nl_put_driver_u64(msg, "pace_rate", s.pace_rate) ||
	    !mro_cc_room(msg) ||
	    rdma_nl_put_driver_u32(msg, "cc_decreases", s.decreases) ||
	    !mro_cc_room(msg) ||
	    rdma_nl_put_driver_u32(msg, "ssthresh", s.ssthresh) ||
	    !mro_cc_room(msg))
		return;
	/* the grants are PSNs: shown as mro_fill_res_qp_entry() shows PSNs */
	if (psns &&
	    (rdma_nl_put_driver_u32_hex(msg, "credit_psn", s.credit_psn) ||
	     !mro_cc_room(msg) ||
	     rdma_nl_put_driver_u32_hex(msg, "grant_psn", s.grant_psn) ||
	     !mro_cc_room(msg)))
		return;
	rdma_nl_put_driver_u32(msg, "rev_delay_us", s.rev_delay_us);
}
