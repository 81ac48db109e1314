/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce paths (layer 4): a connection sprays its packets over several
 * paths, each a UDP source port, so that ECMP with L4 hashing spreads
 * them.  Every path keeps its own sequence and telemetry.  Which path
 * carries the next packet is the scheduler's choice (struct
 * mro_sched_ops).  Pure C on plain structs (KUnit drives it).
 */
#ifndef MRO_PATH_H
#define MRO_PATH_H

#include <linux/types.h>

#define MRO_MAX_PATHS		64
#define MRO_SPORT_BASE		0xc000
#define MRO_SPORT_MASK		0x3fff

enum mro_path_state {
	MRO_PATH_ACTIVE = 0,
	MRO_PATH_RETIRED,	/* black-holed: carries nothing until probed */
};

struct mro_path {
	u16 sport;
	u8 state;
	u32 next_seq;		/* per-path sequence of the next packet */
	u32 acked_next;		/* highest path sequence acked + 1; 0: none */
	/* telemetry */
	u64 tx_pkts;
	u64 tx_bytes;
	u64 retx;
	u64 lost;
	u64 timeouts;
	u64 acked;
	u32 srtt_us;
	u32 rttvar_us;
	u32 min_rtt_us;
	u32 ecn;
};

struct mro_pathset;

/* path choice for the next packet; returns a path index < ps->n */
struct mro_sched_ops {
	const char *name;
	u16 (*pick)(struct mro_pathset *ps);
};

struct mro_pathset {
	u16 n;
	u16 cursor;
	const struct mro_sched_ops *sched;
	struct mro_path *path;
};

extern const struct mro_sched_ops mro_sched_rr;

int mro_paths_init(struct mro_pathset *ps, u16 n, u32 seed, gfp_t gfp);
void mro_paths_free(struct mro_pathset *ps);
/* pick the path for the next packet and take its next sequence */
u16 mro_path_pick(struct mro_pathset *ps, u32 *seq);
/* account one transmission of @bytes on path @p */
void mro_path_sent(struct mro_pathset *ps, u16 p, u32 bytes, bool retx);
/* fold an RTT sample into path @p (microseconds) */
void mro_path_rtt(struct mro_pathset *ps, u16 p, u32 rtt_us);

#endif /* MRO_PATH_H */
