/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce paths (layer 4): a connection sprays its packets over several
 * paths, each a UDP source port, so that ECMP with L4 hashing spreads
 * them.  Every path keeps its own sequence and telemetry.  Which path
 * carries the next new packet or a retransmission is the scheduler's
 * choice (mro_sched.h); the ACK rhythm's PSNs, READ responses and
 * duplicates' ACKs take paths by the rules below.  Pure C on plain
 * structs (KUnit drives it).
 */
#ifndef MRO_PATH_H
#define MRO_PATH_H

#include <linux/types.h>
#include <rdma/metaroce_wire.h>

#define MRO_MAX_PATHS		64
#define MRO_SPORT_BASE		METAROCE_SPORT_BASE
#define MRO_SPORT_MASK		METAROCE_SPORT_MASK
#define MRO_SCHED_PRIV_SIZE	16	/* scheduler's bytes per path set */
#define MRO_SCHED_PATH_PRIV_SIZE 8	/* scheduler's bytes per path */

/* a source port a metaroce sender may use (metaroce_wire.h) */
static inline bool mro_sport_ok(u16 sport)
{
	return (sport & ~MRO_SPORT_MASK) == MRO_SPORT_BASE;
}

enum mro_path_state {
	MRO_PATH_ACTIVE = 0,
	MRO_PATH_RETIRED,	/* black-holed: carries nothing until probed */
};

struct mro_path {
	u16 sport;
	u8 state;
	u32 next_seq;		/* per-path sequence of the next packet */
	u32 acked_next;		/* highest path sequence acked + 1; 0: none */
	u32 acked_sent_us;	/* latest send time delivered (with acked_next) */
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
	/* health (mro_pathscore.c) */
	u16 loss_ewma;		/* recent loss rate in 1/1024 */
	u16 streak;		/* losses and timeouts since a delivery */
	bool suspended;		/* a short streak: new packets only trickle */
	bool probing;		/* retired, a probe is out (probe_seq) */
	bool lost_valid;	/* lost_seq holds a transmission */
	u32 probe_seq;		/* path_seq of the latest probe */
	u32 lost_seq;		/* path_seq of the latest loss counted */
	u32 probe_us;		/* retired: time of the next probe */
	u32 probe_wait_us;	/* retired: current re-probe interval */
	u32 epoch_seq;		/* first path_seq since the last revival */
	u64 retired;		/* times retired */
	u64 revived;		/* times revived by a probe */
	u64 suspends;		/* times suspended */
	u32 pick_at;		/* ps->picks when it last took a packet */
	/* the way back (mro_pathscore.c): an ACK the peer owes on it */
	bool echo_owed;		/* echo_owed_seq arrived, its echo has not */
	u32 echo_owed_seq;
	u32 echo_owed_us;	/* when we learned it arrived */
	u32 echo_next;		/* highest path_seq echoed + 1; 0: none */
	u16 echo_misses;	/* owed echoes that never came, in a row */
	u64 echo_lost;		/* owed echoes that never came */
	/* the scheduler's (mro_sched_path_priv()) */
	u64 sched_priv[MRO_SCHED_PATH_PRIV_SIZE / sizeof(u64)];
};

struct mro_sched_ops;

struct mro_pathset {
	u16 n;
	u16 cursor;		/* the schedulers' round-robin position */
	u16 rcursor;		/* where retransmissions look first */
	u16 acursor;		/* the next path for a PSN acked unasked */
	u32 seed;		/* source port derivation */
	u32 gen;		/* fresh source ports taken */
	u16 owed;		/* paths with echo_owed */
	u32 picks;		/* packets given a path so far */
	const struct mro_sched_ops *sched;
	u64 sched_priv[MRO_SCHED_PRIV_SIZE / sizeof(u64)];
	struct mro_path *path;
};

/* @n paths under the round-robin scheduler */
int mro_paths_init(struct mro_pathset *ps, u16 n, u32 seed, gfp_t gfp);
/* releases the scheduler and its reference */
void mro_paths_free(struct mro_pathset *ps);
/*
 * Hand @ps to the scheduler @ops, whose reference (mro_sched_get()) the
 * set takes over: the old one is released and put, the private areas
 * zeroed, @ops initialised.
 */
void mro_paths_set_sched(struct mro_pathset *ps,
			 const struct mro_sched_ops *ops);
/*
 * Start every path's sequence at a random value: an ACK must echo one of
 * our transmissions (mro_echo_seq_ok()), which a blind sender cannot name.
 */
void mro_paths_seed_seqs(struct mro_pathset *ps);
/* the scheduler's path for the next new packet; takes its next sequence */
u16 mro_path_pick(struct mro_pathset *ps, u32 *seq);
/*
 * The path for a new packet whose PSN the responder acknowledges unasked
 * (mro_psn_self_acked()): the active paths in turn, whatever the
 * scheduler.  That ACK goes back by the packet's own path, and left to a
 * schedule whose cycle divides the rhythm (round robin over 2, 4, 8 or 16
 * paths) all of them took one path: the only path with RTT samples, and
 * when its way back failed, most of the QP's ACKs were lost.  The
 * scheduler's choice when every path is retired; takes the sequence.
 */
u16 mro_path_pick_rhythm(struct mro_pathset *ps, u32 *seq);
/* account one transmission of @bytes on path @p */
void mro_path_sent(struct mro_pathset *ps, u16 p, u32 bytes, bool retx);
/* fold an RTT sample into path @p (microseconds) */
void mro_path_rtt(struct mro_pathset *ps, u16 p, u32 rtt_us);
/*
 * The scheduler's path for a retransmission of a packet sent on the paths
 * in the mask @avoid (bit p: path p); takes its next sequence.
 */
u16 mro_path_pick_retx(struct mro_pathset *ps, u64 avoid, u32 *seq);
/*
 * The healthiest active, unsuspended path outside @avoid (lowest
 * mro_path_score(), ties in order from @ps->rcursor); @ps->n if none.
 */
u16 mro_path_best(const struct mro_pathset *ps, u64 avoid);
/* whether a retransmission has an active, unsuspended path outside @avoid */
bool mro_path_spare(const struct mro_pathset *ps, u64 avoid);
/*
 * The path for the ACK of a duplicate that came on @path (of @n): each
 * turn (@turn counts them) another path than @path, all the others in
 * turn, so a return path that drops everything cannot eat every answer.
 * @path itself when there is no other; the result is always below @n.
 */
u16 mro_path_dup_ack(u16 path, u16 n, u16 turn);
/*
 * The path for a response to a request that came on @req_path (READ
 * responses): the same path of ours, so that the requester, whose choice
 * it was, judges a loss on either way against that one path; the
 * scheduler's choice when @req_path is not one of ours or is not usable
 * here (retired, or suspended between its trickle's packets).  Takes the
 * path's next sequence into @seq.
 */
u16 mro_path_reply(struct mro_pathset *ps, u16 req_path, u32 *seq);
/* record delivered transmission @path_seq, sent at @sent_us (no stats) */
void mro_path_seen(struct mro_path *path, u32 path_seq, u32 sent_us);
/* give path @p a source port it never had and no other path has */
u16 mro_path_new_sport(struct mro_pathset *ps, u16 p);
/* the transmission @path_seq on path @p, sent at @sent_us, was delivered */
void mro_path_acked(struct mro_pathset *ps, u16 p, u32 path_seq,
		    u32 sent_us);

#endif /* MRO_PATH_H */
