// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce's health-weighted path scheduler.
 *
 * "weighted" sprays new packets over the active paths in proportion to a
 * weight taken from each path's health score (mro_path_score(): recent
 * loss, loss streak, RTT inflation).  A healthy path weighs
 * MRO_WEIGHT_MAX; every 256 of badness roughly halves that, never below
 * one, so a lossy or slow path keeps a trickle of traffic (its health is
 * still measured) while the healthy ones carry the rest.  Weights are
 * recomputed every two rounds over the paths; the order is smooth
 * weighted round robin: every active path gains its
 * weight, the path with the largest balance is picked and pays the sum of
 * the weights, so equal weights give plain round robin and no path waits
 * longer than a round.  Retired paths weigh nothing; suspended ones only
 * take their trickle (mro_path_usable()).
 */
#include <linux/build_bug.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "mro_path.h"
#include "mro_pathscore.h"
#include "mro_sched.h"

/* per path set */
struct mro_weighted {
	u16 reweigh;		/* picks until the weights are redone */
};

/* per path (mro_sched_path_priv()) */
struct mro_weighted_path {
	s32 credit;		/* smooth weighted round-robin balance */
	u8 weight;		/* share of new packets, 1..MRO_WEIGHT_MAX */
};

static struct mro_weighted_path *mro_wpath(struct mro_pathset *ps, u16 p)
{
	return mro_sched_path_priv(ps, p);
}

/* the weight a path with health score @score gets (0: not in use) */
static u8 mro_sched_weight(u32 score)
{
	if (score == U32_MAX)
		return 0;
	return max_t(u32, 1, MRO_WEIGHT_MAX * 256 / (256 + (u64)score));
}

/*
 * New weights; balances carry over (resetting them would favour light
 * paths), bounded in case paths left and joined the rotation meanwhile.
 */
static void mro_sched_reweigh(struct mro_pathset *ps)
{
	struct mro_weighted *w = mro_sched_priv(ps);
	s32 bound = ps->n * MRO_WEIGHT_MAX;
	u16 i;

	for (i = 0; i < ps->n; i++) {
		struct mro_weighted_path *wp = mro_wpath(ps, i);

		wp->weight = mro_sched_weight(mro_path_score(ps, i));
		wp->credit = clamp(wp->credit, -bound, bound);
	}
	w->reweigh = 2 * ps->n;
}

static u16 mro_weighted_get_send(struct mro_pathset *ps)
{
	struct mro_weighted *w = mro_sched_priv(ps);
	s32 total = 0;
	u16 i, best = ps->n;

	if (!w->reweigh)
		mro_sched_reweigh(ps);
	w->reweigh--;
	for (i = 0; i < ps->n; i++) {
		struct mro_weighted_path *wp = mro_wpath(ps, i);

		if (!mro_path_usable(ps, i) || !wp->weight)
			continue;
		wp->credit += wp->weight;
		total += wp->weight;
		if (best == ps->n || wp->credit > mro_wpath(ps, best)->credit)
			best = i;
	}
	/*
	 * nothing weighed (revived since the last reweigh, all suspended or
	 * retired)
	 */
	if (best == ps->n)
		return mro_sched_next_usable(ps);
	mro_wpath(ps, best)->credit -= total;
	return best;
}

s32 mro_sched_weighted_credit(struct mro_pathset *ps, u16 p)
{
	return mro_wpath(ps, p)->credit;
}
EXPORT_SYMBOL_IF_KUNIT(mro_sched_weighted_credit);

const struct mro_sched_ops mro_sched_weighted = {
	.name = "weighted",
	.priv_size = sizeof(struct mro_weighted),
	.path_priv_size = sizeof(struct mro_weighted_path),
	.get_send = mro_weighted_get_send,
	.get_retrans = mro_sched_healthiest,
};
EXPORT_SYMBOL_IF_KUNIT(mro_sched_weighted);

static_assert(sizeof(struct mro_weighted) <= MRO_SCHED_PRIV_SIZE);
static_assert(sizeof(struct mro_weighted_path) <= MRO_SCHED_PATH_PRIV_SIZE);
