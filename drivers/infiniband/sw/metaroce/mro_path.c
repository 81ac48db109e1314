// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metaroce path set and the round-robin scheduler */
#include <linux/errno.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "mro_path.h"

/* round robin over the active paths; all retired: use them anyway */
static u16 mro_rr_pick(struct mro_pathset *ps)
{
	u16 i, p;

	for (i = 0; i < ps->n; i++) {
		p = ps->cursor;
		ps->cursor = (ps->cursor + 1) % ps->n;
		if (ps->path[p].state == MRO_PATH_ACTIVE)
			return p;
	}
	p = ps->cursor;
	ps->cursor = (ps->cursor + 1) % ps->n;
	return p;
}

const struct mro_sched_ops mro_sched_rr = {
	.name = "rr",
	.pick = mro_rr_pick,
};
EXPORT_SYMBOL_IF_KUNIT(mro_sched_rr);

/* distinct source ports in 0xc000..0xffff, spread by a multiplicative hash */
static u16 mro_sport(u32 seed, u16 i)
{
	return MRO_SPORT_BASE | ((seed + i * 0x9e37U) & MRO_SPORT_MASK);
}

int mro_paths_init(struct mro_pathset *ps, u16 n, u32 seed, gfp_t gfp)
{
	u16 i, j;

	if (!n || n > MRO_MAX_PATHS)
		return -EINVAL;
	ps->path = kcalloc(n, sizeof(*ps->path), gfp);
	if (!ps->path)
		return -ENOMEM;
	ps->n = n;
	ps->cursor = 0;
	ps->sched = &mro_sched_rr;
	for (i = 0; i < n; i++) {
		u16 sport = mro_sport(seed, i);

		/* keep ports unique within the set */
		for (j = 0; j < i; j++) {
			if (ps->path[j].sport == sport) {
				sport = MRO_SPORT_BASE |
					((sport + 1) & MRO_SPORT_MASK);
				j = (u16)-1;	/* restart the scan */
			}
		}
		ps->path[i].sport = sport;
		ps->path[i].state = MRO_PATH_ACTIVE;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_paths_init);

void mro_paths_free(struct mro_pathset *ps)
{
	kfree(ps->path);
	ps->path = NULL;
	ps->n = 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_paths_free);

u16 mro_path_pick(struct mro_pathset *ps, u32 *seq)
{
	u16 p = ps->sched->pick(ps);

	*seq = ps->path[p].next_seq++;
	return p;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_pick);

void mro_path_sent(struct mro_pathset *ps, u16 p, u32 bytes, bool retx)
{
	struct mro_path *path = &ps->path[p];

	path->tx_pkts++;
	path->tx_bytes += bytes;
	if (retx)
		path->retx++;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_sent);

void mro_path_rtt(struct mro_pathset *ps, u16 p, u32 rtt_us)
{
	struct mro_path *path = &ps->path[p];
	u32 err;

	if (!path->min_rtt_us || rtt_us < path->min_rtt_us)
		path->min_rtt_us = rtt_us;
	if (!path->srtt_us) {
		path->srtt_us = rtt_us;
		path->rttvar_us = rtt_us / 2;
		return;
	}
	/* RFC 6298 gains: 1/8 for the mean, 1/4 for the variation */
	err = rtt_us > path->srtt_us ? rtt_us - path->srtt_us :
				       path->srtt_us - rtt_us;
	path->rttvar_us = path->rttvar_us - path->rttvar_us / 4 + err / 4;
	path->srtt_us = path->srtt_us - path->srtt_us / 8 + rtt_us / 8;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_rtt);
