// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce congestion control "dual" (the default): a window driven by
 * queueing delay (RTT above the path's base; per round, the round's
 * smallest sample, the ACKs' own queueing on the way back taken out)
 * against a target that adapts to the RTT variation and to delay that
 * does not yield to cuts, and by ECN marks echoed by the receiver: slow
 * start until the first signal, additive increase below the target, one
 * multiplicative decrease per RTT on ECN or delay, sized by the larger of
 * the delay excess and the DCTCP-style ECN fraction.  Loss alone does not
 * cut the window, loss behind a standing queue of ours does; repeated
 * timeouts collapse it and slow start regrows it.  Its parameters are its
 * own (struct mro_dual_params).
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <kunit/visibility.h>

#include "mro_cc_algos.h"
#include "mro_cc_dual.h"

static struct mro_dual_params mro_dual_defaults = {
	.target_delay_us = MRO_DUAL_TARGET_US,
	.target_var_pct = MRO_DUAL_TARGET_VAR_PCT,
	.target_max_us = MRO_DUAL_TARGET_MAX_US,
	.ai = 1,
	.beta_pct = 80,
	.rev_split = 1,
};

#define MRO_DUAL_PARAM(f, desc)	MRO_CC_MODULE_PARAM(mro_dual_defaults, f, desc)

MRO_DUAL_PARAM(target_delay_us, "dual: queueing delay target in us (default 500)");
MRO_DUAL_PARAM(target_var_pct, "dual: target grows by this % of rttvar, 0 = fixed (default 200)");
MRO_DUAL_PARAM(target_max_us, "dual: largest adaptive delay target in us (default 50000)");
MRO_DUAL_PARAM(ai, "dual: additive increase in packets per RTT (default 1)");
MRO_DUAL_PARAM(beta_pct, "dual: delay decrease gain in percent (default 80)");
MRO_DUAL_PARAM(rev_split, "dual: 1 = delay without the ACKs' one-way queueing (default 1)");

static const struct mro_cc_knob mro_dual_knobs[] = {
#define K(f, lo, hi) MRO_CC_KNOB(struct mro_dual_params, f, lo, hi)
	K(target_delay_us, 1, 1000000),
	K(target_var_pct, 0, 1000),
	K(target_max_us, 1, 1000000),
	K(ai, 1, 1024),
	K(beta_pct, 0, 100),
	K(rev_split, 0, 1),
#undef K
};

u32 mro_dual_target(const struct mro_cc *cc)
{
	const struct mro_dual_params *p = mro_dual_p(cc);
	u32 base = max_t(u32, p->target_delay_us, 1);
	u32 hi = max(p->target_max_us, base);
	u64 t = base + div_u64((u64)cc->rttvar_us * p->target_var_pct, 100);

	if (p->target_var_pct)		/* a fixed target stays fixed */
		t += mro_dual(cc)->noise_us;
	return min_t(u64, t, hi);
}
EXPORT_SYMBOL_IF_KUNIT(mro_dual_target);

u32 mro_dual_loss_target(const struct mro_cc *cc)
{
	u64 base = max_t(u32, mro_dual_p(cc)->target_delay_us, 1);

	/* a fixed target is the base: the minimum is that target */
	return min_t(u64, base + mro_dual(cc)->noise_us, mro_dual_target(cc));
}
EXPORT_SYMBOL_IF_KUNIT(mro_dual_loss_target);

void mro_dual_delay_cut(struct mro_cc *cc, u32 delay_us, u32 f)
{
	struct mro_dual *d = mro_dual(cc);

	/* the first cut of an episode is judged */
	if (d->cut_age || f < MRO_DUAL_NOISE_MIN_CUT)
		return;
	d->cut_delay_us = delay_us;
	d->cut_f = min_t(u32, f, MRO_CC_ONE);
	d->cut_age = 1;
}
EXPORT_SYMBOL_IF_KUNIT(mro_dual_delay_cut);

/* at a round's end: judge a pending cut against the round's delay @dl */
static void mro_dual_noise(struct mro_dual *d, u32 dl)
{
	if (d->cut_age && ++d->cut_age > MRO_DUAL_NOISE_ROUNDS) {
		d->cut_age = 0;
		/* dl >= cut_delay * (1 - f / 2): it did not yield */
		if ((u64)dl * 2 * MRO_CC_ONE >=
		    (u64)d->cut_delay_us * (2 * MRO_CC_ONE - d->cut_f))
			d->noise_us = max(d->noise_us, dl);
		return;
	}
	if (dl < d->noise_us / 2)
		d->noise_us -= d->noise_us >> MRO_DUAL_NOISE_DECAY;
}

bool mro_dual_round(struct mro_cc *cc, const struct mro_cc_sample *s)
{
	struct mro_dual *d = mro_dual(cc);

	if (!d->round_valid) {
		d->round_valid = true;
		d->round_start_us = s->now_us;
		d->round_sampled = false;
	}
	if (s->rtt_us) {
		d->round_min_us = d->round_sampled ?
				  min(d->round_min_us, s->delay_us) :
				  s->delay_us;
		d->round_sampled = true;
	}
	if (s->now_us - d->round_start_us < max_t(u32, cc->srtt_us, 1))
		return false;
	if (d->round_sampled)
		mro_dual_noise(d, d->round_min_us);
	d->target_us = mro_dual_target(cc);
	/* a round without a sample says nothing: no queue, no cut */
	d->round_delay_us = d->round_sampled ? d->round_min_us : 0;
	d->delay_high = d->round_sampled && d->round_delay_us > d->target_us;
	d->round_start_us = s->now_us;
	d->round_sampled = false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(mro_dual_round);

u32 mro_dual_rev_queue(struct mro_cc *cc, u32 now_us, u32 peer_ts)
{
	struct mro_dual *d = mro_dual(cc);
	u32 owd = now_us - peer_ts;
	s32 rel = (s32)(owd - d->rev_base);

	if (!d->rev_synced || rel > (1 << 30) || rel < -(1 << 30)) {
		d->rev_synced = true;
		d->rev_base = owd;
		rel = 0;
		mro_minrtt_reset(&d->rev_min);
	}
	owd = (u32)rel + (1U << 31);	/* from here on unsigned */
	/* windowed like the minimum RTT: a drifting clock moves it on */
	mro_minrtt_update(&d->rev_min, now_us, owd, MRO_CC_MINRTT_WIN_US);
	d->rev_q_us = owd - mro_minrtt_get(&d->rev_min);
	return d->rev_q_us;
}
EXPORT_SYMBOL_IF_KUNIT(mro_dual_rev_queue);

static void mro_dual_init(struct mro_cc *cc)
{
	struct mro_dual *d = mro_dual(cc);

	d->alpha = MRO_CC_ONE;
	mro_minrtt_reset(&d->rev_min);
	d->target_us = mro_dual_target(cc);
	cc->cwnd_fp = mro_cc_clamp(cc, (u64)MRO_CC_INIT_CWND << MRO_CC_FP_SHIFT);
	cc->ssthresh = MRO_CC_MAX_CWND;
}

/* fold a sample into alpha, the EWMA of the fraction of marked packets */
static void mro_dual_alpha(struct mro_cc *cc, const struct mro_cc_sample *s)
{
	struct mro_dual *d = mro_dual(cc);
	u32 frac;

	d->win_acked += s->acked;
	d->win_ecn += min(s->ecn, MRO_CC_MAX_CWND);
	if (d->win_acked < mro_cc_pkts(cc) &&
	    s->now_us - d->win_start_us < max_t(u32, cc->srtt_us, 1))
		return;
	if (d->win_acked) {
		frac = min_t(u64, ((u64)d->win_ecn << MRO_CC_FP_SHIFT) /
			     d->win_acked, MRO_CC_ONE);
		d->alpha = d->alpha - (d->alpha >> MRO_DUAL_ALPHA_SHIFT) +
			   (frac >> MRO_DUAL_ALPHA_SHIFT);
	}
	d->win_acked = 0;
	d->win_ecn = 0;
	d->win_start_us = s->now_us;
}

/*
 * One multiplicative decrease per RTT, by the excess of @delay_us over
 * @target_us (and the ECN fraction with @ecn); true if the window was cut
 */
static bool mro_dual_decrease(struct mro_cc *cc, u32 now_us, u32 delay_us,
			      u32 target_us, bool ecn)
{
	struct mro_dual *d = mro_dual(cc);
	u32 target = max_t(u32, target_us, 1);
	u64 f = 0;

	if (d->dec_valid &&
	    now_us - d->last_dec_us < max_t(u32, cc->srtt_us, 1))
		return false;
	if (delay_us > target)
		f = div_u64((u64)min_t(u32, mro_dual_p(cc)->beta_pct, 100) *
			    MRO_CC_ONE * (delay_us - target), 100ULL * delay_us);
	if (ecn)
		f = max_t(u64, f, d->alpha / 2);
	f = clamp_t(u64, f, 1, MRO_CC_MAX_MDF);
	if (!ecn && delay_us > target)	/* will it shrink the delay? */
		mro_dual_delay_cut(cc, delay_us, f);
	cc->cwnd_fp = mro_cc_clamp(cc, (u64)cc->cwnd_fp -
				   (((u64)cc->cwnd_fp * f) >> MRO_CC_FP_SHIFT));
	cc->ssthresh = mro_cc_pkts(cc);
	d->last_dec_us = now_us;
	d->dec_valid = true;
	cc->decreases++;
	return true;
}

static void mro_dual_on_ack(struct mro_cc *cc, const struct mro_cc_sample *in)
{
	const struct mro_dual_params *p = mro_dual_p(cc);
	struct mro_dual *d = mro_dual(cc);
	struct mro_cc_sample s = *in;
	u32 cw = mro_cc_pkts(cc);
	bool round_end;
	u64 inc;

	/* the window answers for the forward queue only */
	if (s.rtt_us && READ_ONCE(p->rev_split))
		s.delay_us -= min(s.delay_us,
				  mro_dual_rev_queue(cc, s.now_us, s.peer_ts));
	mro_dual_alpha(cc, &s);
	if (s.rtt_us)
		d->delay_us = s.delay_us;
	if (s.acked)
		d->timeouts = 0;
	/*
	 * Delay counts once per round, by the round's smallest sample
	 * against the adaptive target (mro_dual_round()); ECN counts at
	 * once.  While the last round stayed above the target the window
	 * holds.
	 */
	round_end = mro_dual_round(cc, &s);
	d->congested = s.ecn || d->delay_high;
	if (s.ecn || (round_end && d->delay_high)) {
		mro_dual_decrease(cc, s.now_us,
				  d->delay_high ? d->round_delay_us : 0,
				  d->target_us, s.ecn);
		return;
	}
	if (!s.acked || d->congested)
		return;
	if (cw < cc->ssthresh)
		inc = (u64)min_t(u32, s.acked, cc->ssthresh - cw) <<
		      MRO_CC_FP_SHIFT;
	else
		inc = div_u64(((u64)max_t(u32, p->ai, 1) * s.acked) <<
			      MRO_CC_FP_SHIFT, cw);
	cc->cwnd_fp = mro_cc_clamp(cc, (u64)cc->cwnd_fp + inc);
}

/*
 * Loss alone is not congestion: cut only with a congestion signal, or
 * when the last round's delay stood above the loss target (a queue of
 * ours overflowed; mro_dual_loss_target()), down towards that target.
 */
static void mro_dual_on_loss(struct mro_cc *cc, u32 now_us, u32 lost)
{
	struct mro_dual *d = mro_dual(cc);
	u32 t;

	if (!lost)
		return;
	if (d->congested) {
		mro_dual_decrease(cc, now_us,
				  d->delay_high ? d->round_delay_us : 0,
				  d->target_us, true);
		return;
	}
	t = mro_dual_loss_target(cc);
	if (d->round_delay_us > t)
		mro_dual_decrease(cc, now_us, d->round_delay_us, t, false);
}

static void mro_dual_on_timeout(struct mro_cc *cc, u32 now_us)
{
	struct mro_dual *d = mro_dual(cc);
	u32 cw = mro_cc_pkts(cc);

	if (++d->timeouts < 2) {
		mro_dual_on_loss(cc, now_us, 1);
		return;
	}
	/* no progress for two RTOs: restart, regrow fast to half */
	cc->ssthresh = max_t(u32, cw / 2, cc->p->min_cwnd);
	cc->cwnd_fp = mro_cc_clamp(cc, 0);
	d->last_dec_us = now_us;
	d->dec_valid = true;
	cc->decreases++;
}

/* a spurious timeout: the window from before it, unless it grew since */
static u32 mro_dual_undo_cwnd(struct mro_cc *cc, u32 saved_fp)
{
	mro_dual(cc)->timeouts = 0;
	return max(cc->cwnd_fp, mro_cc_clamp(cc, saved_fp));
}

static void mro_dual_get_info(const struct mro_cc *cc,
			      struct mro_cc_info *info)
{
	const struct mro_dual *d = mro_dual(cc);

	info->delay_us = d->delay_us;
	info->target_us = d->target_us;
	info->noise_us = d->noise_us;
	info->rev_delay_us = d->rev_q_us;
}

struct mro_cc_ops mro_cc_dual = {
	.name = "dual",
	.owner = THIS_MODULE,
	.priv_size = sizeof(struct mro_dual),
	.knobs = mro_dual_knobs,
	.n_knobs = ARRAY_SIZE(mro_dual_knobs),
	.params_size = sizeof(struct mro_dual_params),
	.defaults = &mro_dual_defaults,
	.init = mro_dual_init,
	.on_ack = mro_dual_on_ack,
	.on_loss = mro_dual_on_loss,
	.on_timeout = mro_dual_on_timeout,
	.undo_cwnd = mro_dual_undo_cwnd,
	.get_info = mro_dual_get_info,
	.cwnd = mro_cc_pkts,
	.pacing_rate = mro_cc_pace_window,
};
EXPORT_SYMBOL_IF_KUNIT(mro_cc_dual);
