// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metaroce path health, retirement, re-probe and revival */
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "mro_loss.h"
#include "mro_pathscore.h"
#include "mro_psn.h"

#define MRO_EPOCH_SPAN		BIT(30)

void mro_path_delivered(struct mro_pathset *ps, u16 p)
{
	struct mro_path *path = &ps->path[p];

	path->streak = 0;
	path->suspended = false;
	path->loss_ewma -= path->loss_ewma >> 4;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_delivered);

u16 mro_paths_active(const struct mro_pathset *ps)
{
	u16 i, n = 0;

	for (i = 0; i < ps->n; i++)
		n += ps->path[i].state == MRO_PATH_ACTIVE;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(mro_paths_active);

/* see mro_path_lost(): few active paths but @p are in trouble */
static bool mro_paths_calm(const struct mro_pathset *ps, u16 p)
{
	u16 i, active = 0, others = 0;

	for (i = 0; i < ps->n; i++) {
		const struct mro_path *path = &ps->path[i];

		if (path->state != MRO_PATH_ACTIVE)
			continue;
		active++;
		if (i != p && (path->streak >= MRO_SUSPEND_STREAK ||
			       path->loss_ewma >= MRO_TROUBLE_EWMA))
			others++;
	}
	return active >= 2 && 2 * others < active - 1;
}

bool mro_path_lost(struct mro_pathset *ps, u16 p, u32 seq, bool timeout)
{
	struct mro_path *path = &ps->path[p];

	/*
	 * A transmission is lost once: the PSNs of one READ_REQ share it,
	 * and are found lost one by one, in one scan or several.
	 */
	if (path->lost_valid && path->lost_seq == seq)
		return false;
	path->lost_valid = true;
	path->lost_seq = seq;
	if (timeout)
		path->timeouts++;
	else
		path->lost++;
	/* keep the epoch comparable (within 2^30 of next_seq) */
	if (path->next_seq - path->epoch_seq > MRO_EPOCH_SPAN)
		path->epoch_seq = path->next_seq - MRO_EPOCH_SPAN;
	if (mro_seq_before(seq, path->epoch_seq))
		return false;	/* sent before the path was revived */
	path->loss_ewma += (MRO_LOSS_ONE - path->loss_ewma) >>
			   (timeout ? 3 : 4);
	/*
	 * Something the path carried after this transmission, or a part of
	 * it (a READ's other responses), got through: the path works and
	 * dropped one.  Losses are often found in a batch, after the
	 * deliveries around them were counted; only a loss with nothing
	 * delivered after it on its path extends a run that may be a hole.
	 */
	if (path->acked_next && mro_seq_before(seq, path->acked_next))
		return false;
	if (path->streak < U16_MAX)
		path->streak++;
	if (path->state != MRO_PATH_ACTIVE || !mro_paths_calm(ps, p))
		return false;
	if (path->streak >= MRO_SUSPEND_STREAK && !path->suspended) {
		path->suspended = true;
		path->suspends++;
	}
	/*
	 * Never retire more than half the paths: when most of them lose at
	 * once, the trouble is the connection (a stall, congestion), not a
	 * path.
	 */
	if (2 * (mro_paths_active(ps) - 1) < ps->n)
		return false;
	return path->streak >= MRO_RETIRE_STREAK ||
	       (path->loss_ewma >= MRO_RETIRE_EWMA &&
		path->streak >= MRO_RETIRE_EWMA_STREAK);
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_lost);

u32 mro_paths_best_srtt(const struct mro_pathset *ps)
{
	u32 best = 0;
	u16 i;

	for (i = 0; i < ps->n; i++) {
		u32 s = ps->path[i].srtt_us;

		if (ps->path[i].state == MRO_PATH_ACTIVE && s &&
		    (!best || s < best))
			best = s;
	}
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(mro_paths_best_srtt);

u32 mro_path_score(const struct mro_pathset *ps, u16 p)
{
	const struct mro_path *path = &ps->path[p];
	u32 best, score;

	if (path->state != MRO_PATH_ACTIVE)
		return U32_MAX;
	score = path->loss_ewma + 64U * min_t(u16, path->streak, 64);
	best = mro_paths_best_srtt(ps);
	/* RTT inflation over the best active path, 256 per extra srtt */
	if (best && path->srtt_us > 2 * best)
		score += 256 * min_t(u32, path->srtt_us / best - 1, 16);
	return score;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_score);

static void mro_path_echo_clear(struct mro_pathset *ps, struct mro_path *path)
{
	if (!path->echo_owed)
		return;
	path->echo_owed = false;
	if (ps->owed)
		ps->owed--;
}

void mro_path_echo_owed(struct mro_pathset *ps, u16 p, u32 seq, u32 now_us)
{
	struct mro_path *path = &ps->path[p];

	if (path->echo_owed || path->state != MRO_PATH_ACTIVE)
		return;
	if (path->echo_next && mro_seq_before(seq, path->echo_next))
		return;	/* echoed already (or a later one was) */
	path->echo_owed = true;
	path->echo_owed_seq = seq;
	path->echo_owed_us = now_us;
	ps->owed++;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_echo_owed);

bool mro_path_echo_overdue(struct mro_pathset *ps, u16 p, u32 now_us,
			   u32 wait_us)
{
	struct mro_path *path = &ps->path[p];

	if (!path->echo_owed || now_us - path->echo_owed_us <= wait_us)
		return false;
	mro_path_echo_clear(ps, path);
	path->echo_lost++;
	if (path->echo_misses < U16_MAX)
		path->echo_misses++;
	if (path->state != MRO_PATH_ACTIVE ||
	    2 * (mro_paths_active(ps) - 1) < ps->n)
		return false;
	return path->echo_misses >= MRO_RETIRE_ECHO_MISSES;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_echo_overdue);

void mro_path_retire(struct mro_pathset *ps, u16 p, u32 now_us, u32 wait_us)
{
	struct mro_path *path = &ps->path[p];

	mro_path_echo_clear(ps, path);
	path->echo_misses = 0;
	path->state = MRO_PATH_RETIRED;
	path->suspended = false;
	path->retired++;
	path->probing = false;
	path->probe_wait_us = clamp_t(u32, wait_us, MRO_PROBE_MIN_US,
				      MRO_PROBE_MAX_US);
	path->probe_us = now_us + path->probe_wait_us;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_retire);

bool mro_path_probe_due(const struct mro_pathset *ps, u16 p, u32 now_us)
{
	const struct mro_path *path = &ps->path[p];

	return path->state == MRO_PATH_RETIRED &&
	       !mro_seq_before(now_us, path->probe_us);
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_probe_due);

u32 mro_paths_probe_wait(const struct mro_pathset *ps, u32 now_us)
{
	u32 wait = 0, w;
	s32 left;
	u16 p;

	for (p = 0; p < ps->n; p++) {
		if (ps->path[p].state != MRO_PATH_RETIRED)
			continue;
		left = (s32)(ps->path[p].probe_us - now_us);
		w = left > 0 ? left : 1;
		if (!wait || w < wait)
			wait = w;
	}
	return wait;
}
EXPORT_SYMBOL_IF_KUNIT(mro_paths_probe_wait);

u32 mro_path_probe(struct mro_pathset *ps, u16 p, u32 now_us)
{
	struct mro_path *path = &ps->path[p];

	mro_path_new_sport(ps, p);
	path->probing = true;
	path->probe_seq = path->next_seq++;
	path->probe_us = now_us + path->probe_wait_us;
	path->probe_wait_us = min_t(u32, 2 * path->probe_wait_us,
				    MRO_PROBE_MAX_US);
	return path->probe_seq;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_probe);

bool mro_path_echo(struct mro_pathset *ps, u16 p, u32 echo_seq, u32 ts_echo,
		   u32 now_us)
{
	struct mro_path *path;

	if (p >= ps->n)
		return false;
	path = &ps->path[p];
	if (!mro_echo_seq_ok(echo_seq, path->next_seq,
			     mro_echo_span(MRO_WINDOW_MAX)) ||
	    mro_seq_after(ts_echo, now_us))
		return false;
	mro_path_seen(path, echo_seq, ts_echo);
	if (!path->echo_next || !mro_seq_before(echo_seq, path->echo_next))
		path->echo_next = echo_seq + 1;
	/* the way back works */
	path->echo_misses = 0;
	if (path->echo_owed && !mro_seq_before(echo_seq, path->echo_owed_seq))
		mro_path_echo_clear(ps, path);
	if (path->state != MRO_PATH_RETIRED) {
		mro_path_delivered(ps, p);
		return false;
	}
	/* only the answer to a probe on the fresh port revives */
	if (!path->probing || mro_seq_before(echo_seq, path->probe_seq))
		return false;
	path->state = MRO_PATH_ACTIVE;
	path->probing = false;
	path->revived++;
	/* what was lost on the old port is not this path's health */
	path->epoch_seq = path->probe_seq;
	path->streak = 0;
	path->loss_ewma /= 2;
	/* a new port may be a new route: forget the old RTT */
	path->srtt_us = 0;
	path->rttvar_us = 0;
	path->min_rtt_us = 0;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(mro_path_echo);
