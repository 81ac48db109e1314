// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce congestion control "swift": a window driven by delay alone,
 * after the law of Google's Swift (Kumar et al., SIGCOMM 2020).  The
 * target is a base delay plus flow scaling: a small window may queue
 * more (fs_range_us at one packet, nothing from fs_max_cwnd packets up,
 * in 1/sqrt(cwnd) between), so that many small flows on a link keep
 * their share without the target growing for large ones.  Below the
 * target the window grows by ai packets per round trip; above it, at most
 * once per round trip, it shrinks by beta * (delay - target) / delay, at
 * most max_mdf_pct %.  A loss found by SACK cuts by max_mdf_pct % once per
 * round trip; consecutive timeouts without progress cut likewise and, from
 * the fifth, drop the window to min_cwnd.  ECN is not used.  Parameters
 * are "swift_"-prefixed knobs of their own; pacing follows pace_gain_pct.
 */
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <kunit/visibility.h>

#include "mro_cc_algos.h"

#define MRO_SWIFT_RETX_RESET	5	/* timeouts in a row to min_cwnd */

struct mro_swift_params {
	u32 swift_target_us;	/* base target */
	u32 swift_fs_range_us;	/* flow scaling at a window of one */
	u32 swift_fs_max_cwnd;	/* no flow scaling from here up */
	u32 swift_ai;		/* packets per round trip */
	u32 swift_beta_pct;	/* decrease gain */
	u32 swift_max_mdf_pct;	/* largest cut per round trip */
};

struct mro_swift {
	u32 delay_us;		/* the last RTT sample's queueing delay */
	u32 target_us;		/* the target it was judged against */
	u32 last_dec_us;
	bool dec_valid;
	bool delay_valid;
	u32 timeouts;		/* consecutive, without progress */
};

static struct mro_swift_params mro_swift_defaults = {
	.swift_target_us = 1000,
	.swift_fs_range_us = 4000,
	.swift_fs_max_cwnd = 256,
	.swift_ai = 1,
	.swift_beta_pct = 80,
	.swift_max_mdf_pct = 50,
};

#define MRO_SWIFT_PARAM(f, desc) MRO_CC_MODULE_PARAM(mro_swift_defaults, f, desc)

MRO_SWIFT_PARAM(swift_target_us, "swift: base delay target in us (default 1000)");
MRO_SWIFT_PARAM(swift_fs_range_us, "swift: target added at a 1-packet window, us (default 4000)");
MRO_SWIFT_PARAM(swift_fs_max_cwnd, "swift: no flow scaling from this window on (default 256)");
MRO_SWIFT_PARAM(swift_ai, "swift: additive increase in packets per RTT (default 1)");
MRO_SWIFT_PARAM(swift_beta_pct, "swift: delay decrease gain in percent (default 80)");
MRO_SWIFT_PARAM(swift_max_mdf_pct, "swift: largest decrease per RTT in percent (default 50)");

static const struct mro_cc_knob mro_swift_knobs[] = {
#define K(f, lo, hi) MRO_CC_KNOB(struct mro_swift_params, f, lo, hi)
	K(swift_target_us, 1, 1000000),
	K(swift_fs_range_us, 0, 1000000),
	K(swift_fs_max_cwnd, 1, MRO_CC_MAX_CWND),
	K(swift_ai, 1, 1024),
	K(swift_beta_pct, 0, 100),
	K(swift_max_mdf_pct, 1, 100),
#undef K
};

static struct mro_swift *mro_swift(const struct mro_cc *cc)
{
	BUILD_BUG_ON(sizeof(struct mro_swift) > MRO_CC_PRIV_SIZE);
	return mro_cc_priv(cc);
}

static const struct mro_swift_params *mro_swift_p(const struct mro_cc *cc)
{
	BUILD_BUG_ON(sizeof(struct mro_swift_params) >
		     sizeof(struct mro_cc_aparams));
	return cc->ap;
}

/* 2^16 / sqrt(@c), @c >= 1 */
static u32 mro_swift_rsqrt(u32 c)
{
	return div64_u64(1ULL << 26, int_sqrt64((u64)max(c, 1U) << 20));
}

u32 mro_swift_target(u32 base_us, u32 fs_range_us, u32 fs_max_cwnd, u32 cwnd)
{
	u32 lo, r;

	if (fs_max_cwnd <= 1 || cwnd >= fs_max_cwnd)
		return base_us;
	lo = mro_swift_rsqrt(fs_max_cwnd);
	r = mro_swift_rsqrt(cwnd);
	return min_t(u64, (u64)base_us +
		     div_u64((u64)fs_range_us * (r - lo),
			     mro_swift_rsqrt(1) - lo), U32_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(mro_swift_target);

u32 mro_swift_cut(u32 cwnd_fp, u32 delay_us, u32 target_us, u32 beta_pct,
		  u32 max_mdf_pct)
{
	u64 f, cap = div_u64((u64)min(max_mdf_pct, 100U) * MRO_CC_ONE, 100);

	if (delay_us <= target_us)
		return cwnd_fp;
	f = div_u64((u64)min(beta_pct, 100U) * MRO_CC_ONE *
		    (delay_us - target_us), 100ULL * delay_us);
	f = min(f, cap);
	return cwnd_fp - (u32)(((u64)cwnd_fp * f) >> MRO_CC_FP_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(mro_swift_cut);

static void mro_swift_init(struct mro_cc *cc)
{
	const struct mro_swift_params *p = mro_swift_p(cc);

	cc->cwnd_fp = mro_cc_clamp(cc, (u64)MRO_CC_INIT_CWND << MRO_CC_FP_SHIFT);
	cc->ssthresh = MRO_CC_MAX_CWND;
	mro_swift(cc)->target_us = p->swift_target_us;
}

/* at most one decrease per round trip */
static bool mro_swift_may_cut(struct mro_cc *cc, u32 now_us)
{
	struct mro_swift *w = mro_swift(cc);

	if (w->dec_valid &&
	    now_us - w->last_dec_us < max_t(u32, cc->srtt_us, 1))
		return false;
	w->last_dec_us = now_us;
	w->dec_valid = true;
	cc->decreases++;
	return true;
}

static void mro_swift_set(struct mro_cc *cc, u32 cwnd_fp)
{
	cc->cwnd_fp = mro_cc_clamp(cc, cwnd_fp);
	cc->ssthresh = mro_cc_pkts(cc);
}

static void mro_swift_on_ack(struct mro_cc *cc, const struct mro_cc_sample *s)
{
	const struct mro_swift_params *p = mro_swift_p(cc);
	struct mro_swift *w = mro_swift(cc);
	u32 cw = mro_cc_pkts(cc);

	if (s->acked)
		w->timeouts = 0;
	w->target_us = mro_swift_target(READ_ONCE(p->swift_target_us),
					READ_ONCE(p->swift_fs_range_us),
					READ_ONCE(p->swift_fs_max_cwnd), cw);
	if (s->rtt_us) {
		w->delay_us = s->delay_us;
		w->delay_valid = true;
	}
	if (w->delay_valid && w->delay_us > w->target_us) {
		if (mro_swift_may_cut(cc, s->now_us))
			mro_swift_set(cc, mro_swift_cut(cc->cwnd_fp, w->delay_us,
							w->target_us,
							READ_ONCE(p->swift_beta_pct),
							READ_ONCE(p->swift_max_mdf_pct)));
		return;
	}
	cc->cwnd_fp = mro_cc_clamp(cc, (u64)cc->cwnd_fp +
				   div_u64(((u64)max_t(u32, p->swift_ai, 1) *
					    s->acked) << MRO_CC_FP_SHIFT, cw));
}

/* the largest cut, once per round trip */
static void mro_swift_on_loss(struct mro_cc *cc, u32 now_us, u32 lost)
{
	u32 mdf = min_t(u32, READ_ONCE(mro_swift_p(cc)->swift_max_mdf_pct), 100);

	if (mro_swift_may_cut(cc, now_us))
		mro_swift_set(cc, cc->cwnd_fp -
			      (u32)div_u64((u64)cc->cwnd_fp * mdf, 100));
}

static void mro_swift_on_timeout(struct mro_cc *cc, u32 now_us)
{
	struct mro_swift *w = mro_swift(cc);

	if (++w->timeouts < MRO_SWIFT_RETX_RESET) {
		mro_swift_on_loss(cc, now_us, 1);
		return;
	}
	mro_swift_set(cc, 0);
	w->last_dec_us = now_us;
	w->dec_valid = true;
	cc->decreases++;
}

static u32 mro_swift_undo_cwnd(struct mro_cc *cc, u32 saved_fp)
{
	mro_swift(cc)->timeouts = 0;
	return max(cc->cwnd_fp, mro_cc_clamp(cc, saved_fp));
}

static void mro_swift_get_info(const struct mro_cc *cc,
			       struct mro_cc_info *info)
{
	info->delay_us = mro_swift(cc)->delay_us;
	info->target_us = mro_swift(cc)->target_us;
}

struct mro_cc_ops mro_cc_swift = {
	.name = "swift",
	.owner = THIS_MODULE,
	.priv_size = sizeof(struct mro_swift),
	.knobs = mro_swift_knobs,
	.n_knobs = ARRAY_SIZE(mro_swift_knobs),
	.params_size = sizeof(struct mro_swift_params),
	.defaults = &mro_swift_defaults,
	.init = mro_swift_init,
	.on_ack = mro_swift_on_ack,
	.on_loss = mro_swift_on_loss,
	.on_timeout = mro_swift_on_timeout,
	.undo_cwnd = mro_swift_undo_cwnd,
	.get_info = mro_swift_get_info,
	.cwnd = mro_cc_pkts,
	.pacing_rate = mro_cc_pace_window,
};
EXPORT_SYMBOL_IF_KUNIT(mro_cc_swift);
