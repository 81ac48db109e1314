/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce path health: a per-path score from recent loss, timeouts and
 * RTT; retirement of a path that black-holes, re-probing it later on a
 * fresh source port, and its revival when a probe comes back.  Pure C on
 * struct mro_pathset (KUnit drives it); the caller sends the probes.
 */
#ifndef MRO_PATHSCORE_H
#define MRO_PATHSCORE_H

#include "mro_path.h"

#define MRO_LOSS_ONE		1024	/* loss_ewma of a path losing everything */
#define MRO_SUSPEND_STREAK	1	/* losses in a row: suspended */
#define MRO_SUSPEND_ROUNDS	3	/* a suspended path's packet per rounds */
#define MRO_RETIRE_STREAK	8	/* losses in a row, nothing delivered after */
#define MRO_RETIRE_EWMA		512	/* ... or half lost recently and */
#define MRO_RETIRE_EWMA_STREAK	3	/* ... this many in a row */
#define MRO_RETIRE_ECHO_MISSES	4	/* owed echoes lost in a row */
#define MRO_TROUBLE_EWMA	256	/* a quarter lost recently: not calm */
#define MRO_PROBE_MIN_US	1000	/* first re-probe after at least */
#define MRO_PROBE_MAX_US	(1000 * 1000)	/* re-probe interval cap */

/* a packet on @p was delivered (this lifts a suspension) */
void mro_path_delivered(struct mro_pathset *ps, u16 p);
/*
 * Transmission @seq on @p was lost (@timeout: found by the RTO).  Returns
 * true when @p should now be retired: it black-holes, at least half the
 * paths stay active without it, and the other paths are calm (below).
 * Losses of transmissions from before the path's last revival are counted
 * but do not weigh on its health; a loss older than the path's latest
 * delivery (acked_next) weighs on its loss rate but does not extend its
 * loss streak.
 *
 * Suspension, short of retirement: a loss with nothing delivered after
 * it on its path (MRO_SUSPEND_STREAK) suspends an active path while the
 * others are calm.  A suspended path takes one new packet per
 * MRO_SUSPEND_ROUNDS rounds over the paths instead of one per round
 * (mro_path_usable()): a hole costs a few packets instead of an eighth of
 * the traffic while the streak grows to retirement, and a path that only
 * lost one by chance is lifted by its next delivery.
 *
 * Calm: fewer than half of the other active paths are in trouble: on a
 * streak of MRO_SUSPEND_STREAK, or a quarter of their packets lost
 * recently (MRO_TROUBLE_EWMA).  When most paths lose at once (a queue
 * overflowing as a flow starts, an RTO that finds the whole window lost),
 * the trouble is not one path: nothing is suspended or retired.  A hole
 * in up to 3 of 8 paths (a dead spine of 4 may take 2 or 3) is still
 * seen as one.
 */
bool mro_path_lost(struct mro_pathset *ps, u16 p, u32 seq, bool timeout);
/*
 * @p may take a new packet: active, and not suspended or suspended with
 * its trickle due (MRO_SUSPEND_ROUNDS rounds of picks since its last).
 */
static inline bool mro_path_usable(const struct mro_pathset *ps, u16 p)
{
	const struct mro_path *path = &ps->path[p];

	return path->state == MRO_PATH_ACTIVE &&
	       (!path->suspended ||
		ps->picks - path->pick_at >= MRO_SUSPEND_ROUNDS * (u32)ps->n);
}

/* badness of @p: 0 best; loss, loss streak and RTT inflation add */
u32 mro_path_score(const struct mro_pathset *ps, u16 p);
/* paths carrying traffic */
u16 mro_paths_active(const struct mro_pathset *ps);
/* the smallest srtt of an active path with a sample; 0 if none */
u32 mro_paths_best_srtt(const struct mro_pathset *ps);
/* stop using @p; probe it first after @wait_us (bounded) */
void mro_path_retire(struct mro_pathset *ps, u16 p, u32 now_us, u32 wait_us);
/* retired @p is due for a probe at @now_us */
bool mro_path_probe_due(const struct mro_pathset *ps, u16 p, u32 now_us);
/*
 * Microseconds from @now_us until the first retired path is due for a
 * probe (at least 1: one overdue is due at once); 0 when none is retired.
 * The path manager's timer waits that long, traffic or none.
 */
u32 mro_paths_probe_wait(const struct mro_pathset *ps, u32 now_us);
/*
 * A probe leaves on retired @p: it gets a fresh source port; returns the
 * probe's path sequence.  The next probe waits twice as long (capped).
 */
u32 mro_path_probe(struct mro_pathset *ps, u16 p, u32 now_us);
/*
 * An ACK echoed transmission @echo_seq of path @p, sent at @ts_echo
 * (untrusted: both checked against the path and the clock @now_us).
 * Advances the path's delivered sequence; returns true when this revived
 * a retired path (the echo answers its probe).
 */
bool mro_path_echo(struct mro_pathset *ps, u16 p, u32 echo_seq, u32 ts_echo,
		   u32 now_us);

/*
 * The way back.  Every PSN the responder acknowledges unasked (the rhythm,
 * mro_psn.h) is acknowledged on the path it came by, so its ACK echoes
 * it.  Transmission @seq on @p was such a PSN, sent once, and is now known
 * to have arrived (an ACK by another path said so): unless its echo came,
 * it is owed from @now_us.  One owed echo per path at a time.
 */
void mro_path_echo_owed(struct mro_pathset *ps, u16 p, u32 seq, u32 now_us);
/*
 * Path @p's owed echo, if any, is @wait_us overdue at @now_us: it is
 * counted lost (echo_lost).  Returns true when @p should now be retired:
 * MRO_RETIRE_ECHO_MISSES were lost with no echo on @p between them (its
 * way back drops everything while its way out works), and at least half
 * the paths stay active without it.
 */
bool mro_path_echo_overdue(struct mro_pathset *ps, u16 p, u32 now_us,
			   u32 wait_us);

#endif /* MRO_PATHSCORE_H */
