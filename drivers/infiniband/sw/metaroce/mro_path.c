// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metaroce path set: source ports, sequences, telemetry, path choices */
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "mro_path.h"
#include "mro_pathscore.h"
#include "mro_psn.h"
#include "mro_rto.h"
#include "mro_sched.h"

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
	ps->rcursor = 0;
	ps->acursor = 0;
	ps->seed = seed;
	ps->gen = 0;
	ps->owed = 0;
	ps->picks = 0;
	ps->sched = NULL;
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
	mro_paths_set_sched(ps, &mro_sched_rr);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_paths_init);

void mro_paths_seed_seqs(struct mro_pathset *ps)
{
	u16 i;

	for (i = 0; i < ps->n; i++) {
		ps->path[i].next_seq = get_random_u32();
		ps->path[i].epoch_seq = ps->path[i].next_seq;
	}
}
EXPORT_SYMBOL_IF_KUNIT(mro_paths_seed_seqs);

void mro_paths_set_sched(struct mro_pathset *ps,
			 const struct mro_sched_ops *ops)
{
	const struct mro_sched_ops *old = ps->sched;
	u16 i;

	if (old && old->release)
		old->release(ps);
	mro_sched_put(old);
	memset(ps->sched_priv, 0, sizeof(ps->sched_priv));
	for (i = 0; i < ps->n; i++)
		memset(ps->path[i].sched_priv, 0,
		       sizeof(ps->path[i].sched_priv));
	ps->sched = ops;
	if (ops->init)
		ops->init(ps);
}
EXPORT_SYMBOL_IF_KUNIT(mro_paths_set_sched);

void mro_paths_free(struct mro_pathset *ps)
{
	const struct mro_sched_ops *ops = ps->sched;

	if (ops && ops->release)
		ops->release(ps);
	mro_sched_put(ops);
	ps->sched = NULL;
	kfree(ps->path);
	ps->path = NULL;
	ps->n = 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_paths_free);

/* @p takes the next packet: its next sequence into @seq */
static u16 mro_path_take(struct mro_pathset *ps, u16 p, u32 *seq)
{
	struct mro_path *path;

	/* a scheduler's answer out of range: the first path, not memory */
	if (WARN_ON_ONCE(p >= ps->n))
		p = 0;
	path = &ps->path[p];

	*seq = path->next_seq++;
	path->pick_at = ps->picks++;
	return p;
}

u16 mro_path_pick(struct mro_pathset *ps, u32 *seq)
{
	return mro_path_take(ps, ps->sched->get_send(ps), seq);
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_pick);

u16 mro_path_pick_rhythm(struct mro_pathset *ps, u32 *seq)
{
	u16 i, p;

	for (i = 0; i < ps->n; i++) {
		p = ps->acursor;
		ps->acursor = (p + 1) % ps->n;
		if (mro_path_usable(ps, p))
			return mro_path_take(ps, p, seq);
	}
	return mro_path_pick(ps, seq);
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_pick_rhythm);

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

	if (!mro_rtt_update(&path->srtt_us, &path->rttvar_us, rtt_us))
		return;
	if (!path->min_rtt_us || rtt_us < path->min_rtt_us)
		path->min_rtt_us = rtt_us;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_rtt);

void mro_path_seen(struct mro_path *path, u32 path_seq, u32 sent_us)
{
	if (!path->acked_next) {
		path->acked_next = path_seq + 1;
		path->acked_sent_us = sent_us;
		return;
	}
	if (mro_seq_after(path_seq + 1, path->acked_next))
		path->acked_next = path_seq + 1;
	if (mro_seq_after(sent_us, path->acked_sent_us))
		path->acked_sent_us = sent_us;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_seen);

u16 mro_path_best(const struct mro_pathset *ps, u64 avoid)
{
	u32 score, best_score = U32_MAX;
	u16 i, p, best = ps->n;

	for (i = 0; i < ps->n; i++) {
		p = (ps->rcursor + i) % ps->n;
		/* a suspended path is no place for a resend */
		if ((avoid & BIT_ULL(p)) || ps->path[p].state != MRO_PATH_ACTIVE ||
		    ps->path[p].suspended)
			continue;
		score = mro_path_score(ps, p);
		if (score < best_score) {
			best_score = score;
			best = p;
		}
	}
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_best);

bool mro_path_spare(const struct mro_pathset *ps, u64 avoid)
{
	return mro_path_best(ps, avoid) < ps->n;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_spare);

u16 mro_path_pick_retx(struct mro_pathset *ps, u64 avoid, u32 *seq)
{
	return mro_path_take(ps, ps->sched->get_retrans(ps, avoid), seq);
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_pick_retx);

u16 mro_path_reply(struct mro_pathset *ps, u16 req_path, u32 *seq)
{
	if (req_path >= ps->n || !mro_path_usable(ps, req_path))
		return mro_path_pick(ps, seq);
	return mro_path_take(ps, req_path, seq);
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_reply);

u16 mro_path_dup_ack(u16 path, u16 n, u16 turn)
{
	if (n < 2)
		return n ? min_t(u16, path, n - 1) : 0;
	return (path % n + 1 + turn % (n - 1)) % n;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_dup_ack);

static bool mro_sport_taken(const struct mro_pathset *ps, u16 sport)
{
	u16 i;

	for (i = 0; i < ps->n; i++)
		if (ps->path[i].sport == sport)
			return true;
	return false;
}

u16 mro_path_new_sport(struct mro_pathset *ps, u16 p)
{
	u16 sport, tries;

	ps->gen++;
	sport = mro_sport(ps->seed ^ (ps->gen * 0x61c88647U), p);
	/* at most MRO_MAX_PATHS ports are taken: a free one is near */
	for (tries = 0; tries <= MRO_SPORT_MASK; tries++) {
		if (!mro_sport_taken(ps, sport))
			break;
		sport = MRO_SPORT_BASE | ((sport + 1) & MRO_SPORT_MASK);
	}
	ps->path[p].sport = sport;
	return sport;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_new_sport);

void mro_path_acked(struct mro_pathset *ps, u16 p, u32 path_seq,
		    u32 sent_us)
{
	struct mro_path *path = &ps->path[p];

	path->acked++;
	mro_path_seen(path, path_seq, sent_us);
	mro_path_delivered(ps, p);
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_acked);
