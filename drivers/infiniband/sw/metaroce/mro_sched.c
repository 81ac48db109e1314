// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce path schedulers by name, and the health-weighted scheduler.
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
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "mro_path.h"
#include "mro_pathscore.h"

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
	s32 bound = ps->n * MRO_WEIGHT_MAX;
	u16 i;

	for (i = 0; i < ps->n; i++) {
		struct mro_path *path = &ps->path[i];

		path->weight = mro_sched_weight(mro_path_score(ps, i));
		path->wcredit = clamp(path->wcredit, -bound, bound);
	}
	ps->reweigh = 2 * ps->n;
}

static u16 mro_weighted_pick(struct mro_pathset *ps)
{
	s32 total = 0;
	u16 i, best = ps->n;

	if (!ps->reweigh)
		mro_sched_reweigh(ps);
	ps->reweigh--;
	for (i = 0; i < ps->n; i++) {
		struct mro_path *path = &ps->path[i];

		if (!mro_path_usable(ps, i) || !path->weight)
			continue;
		path->wcredit += path->weight;
		total += path->weight;
		if (best == ps->n || path->wcredit > ps->path[best].wcredit)
			best = i;
	}
	/*
	 * nothing weighed (revived since the last reweigh, all suspended or
	 * retired)
	 */
	if (best == ps->n)
		return mro_sched_rr.pick(ps);
	ps->path[best].wcredit -= total;
	return best;
}

const struct mro_sched_ops mro_sched_weighted = {
	.name = "weighted",
	.pick = mro_weighted_pick,
};
EXPORT_SYMBOL_IF_KUNIT(mro_sched_weighted);

static const struct mro_sched_ops *const mro_scheds[] = {
	&mro_sched_rr,
	&mro_sched_weighted,
};

const struct mro_sched_ops *mro_sched_find(const char *name)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(mro_scheds); i++)
		if (sysfs_streq(name, mro_scheds[i]->name))
			return mro_scheds[i];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(mro_sched_find);
