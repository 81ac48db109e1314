/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce loss detection: which PSNs still out are lost, from what the
 * ACKs (cumulative PSN, SACK bitmap, echoed path sequence) tell.  Pure C
 * on plain values (KUnit drives it); the caller owns the state.
 *
 * Times are compared between transmissions (when the delivered packet
 * was sent versus when this one was), not against "now": a sender that
 * was descheduled and reads a backlog of ACKs late does not find the
 * whole window lost.  Between ACKs, the reorder timer moves the delivery
 * frontier on by the time since the newest delivery was learned, counted
 * to when the timer was due (RACK, RFC 8985: a packet that left reo after
 * this one and met the same delay would have been delivered by now), so a
 * loss near a message's end, with no later ACK to reveal it, is found a
 * reordering window after the last delivery instead of by the tail-loss
 * probe's extra round trip.  The reordering window of a path is
 * reo = max(srtt / 4, rttvar) times the QP's adaptive step count (1 to
 * MRO_REO_STEPS_MAX, raised by each spurious fast retransmission, lowered
 * after MRO_REO_DECAY genuine ones), at most srtt + 4 * rttvar.  A PSN is
 * lost when
 *  - a transmission on the same path that left at least reo after it has
 *    been delivered (paths keep their order; the window absorbs
 *    reordering inside a path, e.g. netem or a bonded link), or
 *  - (across paths, RACK-like) a PSN at least the reordering distance
 *    after it has been delivered (mro_loss_reorder(): a quarter of the
 *    PSNs in flight, 3 to 3 + 3 * paths), and some delivered transmission
 *    left at least reo plus the amount by which its path's srtt exceeds
 *    the fastest path's after it (a slower path is not mistaken for a
 *    lossy one; capped at srtt + 4 * rttvar, the rule before adaptation);
 *  - (PSNs with no transmission of their own, not on_path) a PSN the
 *    reordering distance after it was delivered and it has been out for
 *    srtt + 4 * rttvar (the requester gives a READ's response slots the
 *    transmission of their READ_REQ);
 * and never twice within one RTT (the resend guard).  The per-path rule
 * needs the ACKs to have reported on the PSN: a SACK covers 128 PSNs after
 * the cumulative one, a later transmission on the path may lie beyond.
 */
#ifndef MRO_LOSS_H
#define MRO_LOSS_H

#include <linux/types.h>
#include <rdma/metaroce_wire.h>

#define MRO_DUPTHRESH		3	/* reordering distance floor, PSNs */
#define MRO_REO_STEPS_MAX	8	/* reordering window at most 8 x base */
#define MRO_REO_DECAY		16	/* genuine fast resends per step down */

/* one PSN still out, as loss detection sees it */
struct mro_loss_pkt {
	u32 psn;
	u32 sent_us;		/* time of its last transmission */
	u32 path_seq;		/* per-path sequence of that transmission */
	bool on_path;		/* path_seq is meaningful */
	u8 retx;		/* retransmissions so far */
};

/* the connection and the packet's path */
struct mro_loss_ctx {
	u32 now_us;
	u32 highest_acked;	/* highest PSN known delivered + 1 */
	u32 known_end;		/* the peer reported on every PSN before this */
	u32 reorder;		/* reordering distance in PSNs */
	u32 guard_us;		/* a resent PSN is not lost again sooner */
	u32 path_acked_next;	/* path's highest delivered path_seq + 1; 0: none */
	u32 path_acked_sent_us;	/* latest send time delivered on the path */
	u32 acked_sent_us;	/* latest send time delivered on any path */
	u32 srtt_us;		/* the path's (or else the QP's) RTT */
	u32 rttvar_us;
	u32 fast_srtt_us;	/* smallest srtt of an active path; 0: none */
	u8 reo_steps;		/* adaptive window multiplier (0 reads as 1) */
	u32 frontier_age_us;	/* newest delivery known for; 0: an ACK */
};

enum mro_loss_verdict {
	MRO_NOT_LOST = 0,
	MRO_LOST_PATH,		/* a later packet on its path was delivered */
	MRO_LOST_REORDER,	/* cross-path fallback */
};

/*
 * The reordering distance across paths for a QP spraying over @npaths
 * paths with @inflight PSNs out: a quarter of the window, at least
 * MRO_DUPTHRESH, at most MRO_DUPTHRESH + 3 * @npaths (a small window
 * holds few packets per path: a fixed distance would exceed it).
 */
u32 mro_loss_reorder(u16 npaths, u32 inflight);

/*
 * The reordering window (us) of a path with @srtt/@rttvar for the rule
 * on the same path (@spread 0) or across paths (@spread: how much slower
 * the packet's path is than the fastest); see the top of this file.
 */
u32 mro_loss_reo_wnd(u32 srtt, u32 rttvar, u8 steps, u32 spread);

/*
 * The spread for mro_loss_reo_wnd(): how much a path with @srtt is slower
 * than the fastest active path's @fast_srtt (0: none known).
 */
static inline u32 mro_loss_spread(u32 srtt, u32 fast_srtt)
{
	return fast_srtt && srtt > fast_srtt ? srtt - fast_srtt : 0;
}

/*
 * Whether @p is lost.  When it is not yet but a time rule will make it
 * so if no other ACK comes, *@wait_us (if @wait_us) is lowered to the
 * time (us, at least 1) until then: the reorder timer's deadline.
 */
enum mro_loss_verdict mro_loss_check(const struct mro_loss_ctx *c,
				     const struct mro_loss_pkt *p,
				     u32 *wait_us);

/*
 * Adaptive reordering window (RACK's DSACK feedback, from the sender's
 * side).  A fast retransmission is spurious when the ACK that first
 * reports the PSN was triggered by a transmission that left before the
 * resend (@ts_echo before @resent_us: the original arrived), or came back
 * sooner than the resend's path can carry a round trip (@min_rtt_us, 0:
 * unknown).
 */
struct mro_reo {
	u8 steps;		/* 1..MRO_REO_STEPS_MAX; 0 reads as 1 */
	u8 clean;		/* genuine fast resends since the last change */
};

bool mro_retx_spurious(u32 ts_echo, u32 resent_us, u32 now_us,
		       u32 min_rtt_us);
void mro_reo_update(struct mro_reo *r, bool spurious);

/*
 * Where a loss scan over [una, nxt) can stop.  Both rules need a
 * transmission that left after the PSN to have been delivered: by the
 * reordering rule that is a PSN before @highest_acked; by the per-path
 * rule, past @highest_acked, only a resend or a probe (a first
 * transmission that left later has a higher PSN).  @late_end is snd_nxt
 * when the latest resend or probe left.  Returns a PSN in [una, nxt].
 */
u32 mro_loss_scan_end(u32 una, u32 nxt, u32 highest_acked, u32 late_end);

/*
 * SACK consumption.  Bit i of @sack names PSN cum + 1 + i; @nbits comes
 * from the wire and is clamped to METAROCE_SACK_BITS.  Returns the index
 * of the first set bit >= @from, or the (clamped) bit count if none.
 */
u16 mro_sack_next(const u64 sack[METAROCE_SACK_WORDS], u16 nbits, u16 from);

/* an ACK's cumulative PSN must lie in [una - txwin, nxt] */
bool mro_ack_cum_ok(u32 cum, u32 una, u32 nxt, u32 txwin);

/*
 * A NAK names the PSN the responder refused: one still out (in [@una,
 * @nxt)), at its next expected PSN (@cum) for a fatal NAK, at or after it
 * for an RNR NAK (@rnr), which refuses every request behind the first.
 */
bool mro_nak_psn_ok(bool rnr, u32 nak_psn, u32 cum, u32 una, u32 nxt);

/*
 * An echoed per-path sequence can only name a transmission we made: it
 * lies before the path's next sequence, and at most @span back.
 */
bool mro_echo_seq_ok(u32 echo_seq, u32 next_seq, u32 span);

/*
 * How far back an ACK's echo may reach on its path for a QP with a window
 * of @txwin PSNs: four windows (one path may carry a whole window, some
 * PSNs more than once, and probes), over a window of at least
 * MRO_ECHO_WIN_MIN.  Per-path sequences start at random values, so a
 * blind sender names a transmission once in 2^32 / span guesses (2^21 at
 * the default window of 512).  An ACK older than that is stale anyway.
 */
#define MRO_ECHO_WIN_MIN	64
u32 mro_echo_span(u32 txwin);

#endif /* MRO_LOSS_H */
