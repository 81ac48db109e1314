// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce congestion control algorithms.
 *
 * "dual": a window driven by queueing delay (RTT above the windowed
 * minimum; per round, the round's smallest sample) against a target that
 * adapts to the RTT variation, and by ECN marks echoed by the receiver:
 * slow start until the first signal, additive increase below the target,
 * one multiplicative decrease per RTT on ECN or delay, sized by the larger
 * of the delay excess and the DCTCP-style ECN fraction.  Loss alone does not
 * cut the window; repeated timeouts collapse it and slow start regrows it.
 *
 * "off": a fixed window (the parameter max_cwnd), no pacing.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <kunit/visibility.h>

#include "mro_cc.h"

static u32 mro_cc_pkts(const struct mro_cc *cc)
{
	return max_t(u32, cc->cwnd_fp >> MRO_CC_FP_SHIFT, 1);
}

static void mro_dual_init(struct mro_cc *cc)
{
	cc->cwnd_fp = mro_cc_clamp(cc, (u64)MRO_CC_INIT_CWND << MRO_CC_FP_SHIFT);
	cc->ssthresh = MRO_CC_MAX_CWND;
}

/* fold a sample into alpha, the EWMA of the fraction of marked packets */
static void mro_dual_alpha(struct mro_cc *cc, const struct mro_cc_sample *s)
{
	u32 frac;

	cc->win_acked += s->acked;
	cc->win_ecn += min(s->ecn, MRO_CC_MAX_CWND);
	if (cc->win_acked < mro_cc_pkts(cc) &&
	    s->now_us - cc->win_start_us < max_t(u32, cc->srtt_us, 1))
		return;
	if (cc->win_acked) {
		frac = min_t(u64, ((u64)cc->win_ecn << MRO_CC_FP_SHIFT) /
			     cc->win_acked, MRO_CC_ONE);
		cc->alpha = cc->alpha - (cc->alpha >> MRO_CC_ALPHA_SHIFT) +
			    (frac >> MRO_CC_ALPHA_SHIFT);
	}
	cc->win_acked = 0;
	cc->win_ecn = 0;
	cc->win_start_us = s->now_us;
}

/*
 * One multiplicative decrease per RTT, by the excess of @delay_us over
 * @target_us (and the ECN fraction with @ecn); true if the window was cut
 */
static bool mro_dual_decrease(struct mro_cc *cc, u32 now_us, u32 delay_us,
			      u32 target_us, bool ecn)
{
	const struct mro_cc_params *p = cc->p;
	u32 target = max_t(u32, target_us, 1);
	u64 f = 0;

	if (cc->dec_valid &&
	    now_us - cc->last_dec_us < max_t(u32, cc->srtt_us, 1))
		return false;
	if (delay_us > target)
		f = div_u64((u64)min_t(u32, p->beta_pct, 100) * MRO_CC_ONE *
			    (delay_us - target), 100ULL * delay_us);
	if (ecn)
		f = max_t(u64, f, cc->alpha / 2);
	f = clamp_t(u64, f, 1, MRO_CC_MAX_MDF);
	if (!ecn && delay_us > target)	/* will it shrink the delay? */
		mro_cc_delay_cut(cc, delay_us, f);
	cc->cwnd_fp = mro_cc_clamp(cc, (u64)cc->cwnd_fp -
				   (((u64)cc->cwnd_fp * f) >> MRO_CC_FP_SHIFT));
	cc->ssthresh = mro_cc_pkts(cc);
	cc->last_dec_us = now_us;
	cc->dec_valid = true;
	cc->decreases++;
	return true;
}

static void mro_dual_on_ack(struct mro_cc *cc, const struct mro_cc_sample *s)
{
	const struct mro_cc_params *p = cc->p;
	u32 cw = mro_cc_pkts(cc);
	bool round_end;
	u64 inc;

	mro_dual_alpha(cc, s);
	if (s->rtt_us)
		cc->last_delay_us = s->delay_us;
	if (s->acked)
		cc->timeouts = 0;
	/*
	 * Delay counts once per round, by the round's smallest sample
	 * against the adaptive target (mro_cc_round()); ECN counts at once.
	 * While the last round stayed above the target the window holds.
	 */
	round_end = mro_cc_round(cc, s);
	cc->congested = s->ecn || cc->delay_high;
	if (s->ecn || (round_end && cc->delay_high)) {
		mro_dual_decrease(cc, s->now_us,
				  cc->delay_high ? cc->round_delay_us : 0,
				  cc->target_us, s->ecn);
		return;
	}
	if (!s->acked || cc->congested)
		return;
	if (cw < cc->ssthresh)
		inc = (u64)min_t(u32, s->acked, cc->ssthresh - cw) <<
		      MRO_CC_FP_SHIFT;
	else
		inc = div_u64(((u64)max_t(u32, p->ai, 1) * s->acked) <<
			      MRO_CC_FP_SHIFT, cw);
	cc->cwnd_fp = mro_cc_clamp(cc, (u64)cc->cwnd_fp + inc);
}

/*
 * Loss alone is not congestion: cut only with a congestion signal, or
 * when the last round's delay stood above the loss target (a queue of
 * ours overflowed; mro_cc_loss_target()), down towards that target.
 */
static void mro_dual_on_loss(struct mro_cc *cc, u32 now_us, u32 lost)
{
	u32 t;

	if (!lost)
		return;
	if (cc->congested) {
		mro_dual_decrease(cc, now_us,
				  cc->delay_high ? cc->round_delay_us : 0,
				  cc->target_us, true);
		return;
	}
	t = mro_cc_loss_target(cc);
	if (cc->round_delay_us > t)
		mro_dual_decrease(cc, now_us, cc->round_delay_us, t, false);
}

static void mro_dual_on_timeout(struct mro_cc *cc, u32 now_us)
{
	u32 cw = mro_cc_pkts(cc);

	if (++cc->timeouts < 2) {
		mro_dual_on_loss(cc, now_us, 1);
		return;
	}
	/* no progress for two RTOs: restart, regrow fast to half */
	cc->ssthresh = max_t(u32, cw / 2, cc->p->min_cwnd);
	cc->cwnd_fp = mro_cc_clamp(cc, 0);
	cc->last_dec_us = now_us;
	cc->dec_valid = true;
	cc->decreases++;
}

static u32 mro_dual_cwnd(const struct mro_cc *cc)
{
	return mro_cc_pkts(cc);
}

static u64 mro_dual_pacing_rate(const struct mro_cc *cc, u32 pkt_bytes)
{
	return mro_pace_rate(mro_cc_pkts(cc), pkt_bytes, cc->srtt_us,
			     cc->p->pace_gain_pct);
}

const struct mro_cc_ops mro_cc_dual = {
	.name = "dual",
	.init = mro_dual_init,
	.on_ack = mro_dual_on_ack,
	.on_loss = mro_dual_on_loss,
	.on_timeout = mro_dual_on_timeout,
	.cwnd = mro_dual_cwnd,
	.pacing_rate = mro_dual_pacing_rate,
};
EXPORT_SYMBOL_IF_KUNIT(mro_cc_dual);

static void mro_off_init(struct mro_cc *cc)
{
	cc->cwnd_fp = mro_cc_clamp(cc, U64_MAX);
	cc->ssthresh = MRO_CC_MAX_CWND;
}

static void mro_off_on_ack(struct mro_cc *cc, const struct mro_cc_sample *s)
{
	if (s->rtt_us)
		cc->last_delay_us = s->delay_us;
}

static void mro_off_on_loss(struct mro_cc *cc, u32 now_us, u32 lost)
{
}

static void mro_off_on_timeout(struct mro_cc *cc, u32 now_us)
{
}

static u32 mro_off_cwnd(const struct mro_cc *cc)
{
	/* the parameter, read live */
	return mro_cc_clamp(cc, U64_MAX) >> MRO_CC_FP_SHIFT;
}

static u64 mro_off_pacing_rate(const struct mro_cc *cc, u32 pkt_bytes)
{
	return 0;
}

const struct mro_cc_ops mro_cc_off = {
	.name = "off",
	.init = mro_off_init,
	.on_ack = mro_off_on_ack,
	.on_loss = mro_off_on_loss,
	.on_timeout = mro_off_on_timeout,
	.cwnd = mro_off_cwnd,
	.pacing_rate = mro_off_pacing_rate,
};
EXPORT_SYMBOL_IF_KUNIT(mro_cc_off);
