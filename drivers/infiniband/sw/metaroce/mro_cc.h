/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce congestion control, sender side: a small ops table (in the
 * manner of tcp_congestion_ops) that turns ACK samples into a congestion
 * window and a pacing rate, the sample builder that validates the echoed
 * feedback, a windowed minimum RTT and the pacing arithmetic.  Pure C on
 * plain structs (KUnit drives it); see Documentation/metaroce/congestion.rst.
 */
#ifndef MRO_CC_H
#define MRO_CC_H

#include <linux/bits.h>
#include <linux/types.h>

#define MRO_CC_FP_SHIFT		10	/* cwnd in 1/1024 packet */
#define MRO_CC_ONE		BIT(MRO_CC_FP_SHIFT)
#define MRO_CC_INIT_CWND	16	/* packets */
#define MRO_CC_MAX_CWND		16384	/* packets */
#define MRO_CC_MAX_MDF		(MRO_CC_ONE / 2)	/* largest cut per RTT */
#define MRO_CC_ALPHA_SHIFT	4	/* ECN fraction EWMA gain 1/16 */
#define MRO_CC_MINRTT_WIN_US	(10 * 1000 * 1000)
#define MRO_CC_RTT_MAX_US	(10 * 1000 * 1000)	/* saner samples only */
#define MRO_CC_ECN_SLACK	64	/* marks beyond acked + in flight */
#define MRO_CC_TARGET_VAR_PCT	200	/* target += 2 x rttvar ... */
#define MRO_CC_TARGET_MAX_US	50000	/* ... up to 50 ms in all */
#define MRO_CC_NOISE_ROUNDS	2	/* rounds after a delay cut to judge it */
#define MRO_CC_NOISE_DECAY	4	/* the floor loses 1/16 per quiet round */
#define MRO_CC_NOISE_MIN_CUT	(MRO_CC_ONE / 4)
#define MRO_PACE_BURST_BYTES	16384	/* default of pace_burst_bytes */
#define MRO_PACE_BURST_DIV	16	/* default of pace_burst_div */
#define MRO_PACE_MAX_GAP_NS	1000000000ULL

/* tunables of one device; units in the names */
struct mro_cc_params {
	u32 target_delay_us;	/* base target */
	u32 target_var_pct;	/* + this % of rttvar (0: fixed target) */
	u32 target_max_us;	/* bound of the adaptive target */
	u32 min_cwnd;		/* packets */
	u32 max_cwnd;		/* packets */
	u32 ai;			/* packets per RTT */
	u32 beta_pct;		/* delay decrease gain, percent */
	u32 pace_gain_pct;	/* 0: no pacing */
	u32 pace_burst_bytes;	/* payload the clock lets go at once */
	u32 pace_burst_div;	/* ... at most cwnd / this (0: no cap) */
	/* receiver credits (mro_credit.h) */
	u32 credits;		/* 0: grant the whole receive window */
	u32 credit_budget;	/* packets, ~ the link's BDP */
	u32 credit_quantum;	/* packets, smallest share */
	u32 spec_window;	/* packets before the first grant */
	u32 credit_idle_us;
	u32 rev_split;		/* 1: the ACKs' own queueing is not ours */
};

/* minimum over a sliding window, kept as two half-window minima */
struct mro_minrtt {
	u32 cur;		/* U32_MAX: none */
	u32 prev;
	u32 epoch_us;
	bool started;
};

/* one ACK's worth of feedback, validated by mro_cc_make_sample() */
struct mro_cc_sample {
	u32 now_us;
	u32 acked;		/* PSNs newly acknowledged cumulatively */
	u32 rtt_us;		/* 0: no valid sample */
	u32 delay_us;		/* rtt - windowed min */
	u32 ecn;		/* newly reported CE marks */
};

struct mro_cc;

struct mro_cc_ops {
	const char *name;
	void (*init)(struct mro_cc *cc);
	void (*on_ack)(struct mro_cc *cc, const struct mro_cc_sample *s);
	/* @lost PSNs were declared lost by SACK */
	void (*on_loss)(struct mro_cc *cc, u32 now_us, u32 lost);
	void (*on_timeout)(struct mro_cc *cc, u32 now_us);
	/* window in packets */
	u32 (*cwnd)(const struct mro_cc *cc);
	/* bytes per second; 0: unpaced */
	u64 (*pacing_rate)(const struct mro_cc *cc, u32 pkt_bytes);
};

/* per-QP sender state */
struct mro_cc {
	const struct mro_cc_ops *ops;
	const struct mro_cc_params *p;
	u32 cwnd_fp;		/* packets << MRO_CC_FP_SHIFT */
	u32 ssthresh;		/* packets */
	u32 srtt_us;		/* the QP's smoothed RTT, fed by the glue */
	u32 rttvar_us;		/* and its RTT variation */
	/* delay signal: the smallest queueing delay seen in one round (srtt) */
	u32 round_start_us;
	u32 round_min_us;
	bool round_sampled;	/* round_min_us holds a sample */
	bool round_valid;
	bool delay_high;	/* the last round stayed above the target */
	u32 round_delay_us;	/* the last round's minimum */
	u32 target_us;		/* the last effective target (telemetry) */
	/*
	 * Delay that did not yield to our own cuts (a busy host descheduling
	 * the endpoints, not a queue we build): added to the target
	 */
	u32 noise_us;
	u32 cut_delay_us;	/* the round delay behind a cut being judged */
	u32 cut_f;		/* and the cut, of MRO_CC_ONE */
	u8 cut_age;		/* rounds since that cut; 0: none judged */
	u32 last_dec_us;
	bool dec_valid;
	bool congested;		/* the last sample showed ECN or delay */
	u32 alpha;		/* ECN fraction, MRO_CC_ONE = all marked */
	u32 win_acked;		/* alpha's observation window */
	u32 win_ecn;
	u32 win_start_us;
	u32 timeouts;		/* consecutive, without progress */
	u32 undo_cwnd_fp;	/* before the first timeout of an episode */
	u32 undo_ssthresh;
	bool undo_valid;	/* a timeout's verdict is pending */
	u32 undos;		/* spurious timeouts undone */
	u32 last_delay_us;
	u16 ecn_seen;		/* last ecn_ce echoed by the peer */
	bool ecn_synced;
	struct mro_minrtt minrtt;
	/*
	 * The reverse path's one-way delay (our clock minus the ACK's send
	 * time on the peer's clock) relative to rev_base, offset by 2^31 so
	 * that its windowed minimum is an ordinary unsigned one
	 * (mro_cc_rev_queue())
	 */
	struct mro_minrtt rev_min;
	u32 rev_base;
	bool rev_synced;
	u32 rev_q_us;		/* the last ACK's reverse queueing */
	/* telemetry */
	u32 decreases;
	u64 ecn_total;
};

extern const struct mro_cc_ops mro_cc_dual;
extern const struct mro_cc_ops mro_cc_off;

/* algorithm by name (NULL: unknown) */
const struct mro_cc_ops *mro_cc_find(const char *name);
void mro_cc_init(struct mro_cc *cc, const struct mro_cc_ops *ops,
		 const struct mro_cc_params *p);
/* the window clamped to the parameters, in packets */
u32 mro_cc_clamp(const struct mro_cc *cc, u64 cwnd_fp);

/*
 * The delay target: the base target plus target_var_pct % of the RTT
 * variation plus the delay that did not yield to our cuts (noise_us), at
 * most target_max_us (never below the base).  A noisy path (virtual
 * machines, busy hosts) needs a target above its noise, a quiet one keeps
 * the base.
 */
u32 mro_cc_target(const struct mro_cc *cc);
/*
 * The delay target that decides whether a loss is congestion: the base
 * target plus the noise floor, without the RTT-variation term (which the
 * queue's own oscillation raises).  A loss while the last round's delay
 * stood above it was most likely our queue overflowing a shallow buffer
 * (Veno's test of the backlog at a loss): the window is cut towards it.
 * A random loss with no standing queue (delay below it) cuts nothing.
 * With a fixed target (target_var_pct 0) it is that target.
 */
u32 mro_cc_loss_target(const struct mro_cc *cc);
/*
 * Fold a sample's delay into the current round; at the end of a round
 * (one srtt) set delay_high from the round's minimum and return true.
 * The minimum filters noise: a single late sample is not a queue, a queue
 * delays every packet of the round.
 */
bool mro_cc_round(struct mro_cc *cc, const struct mro_cc_sample *s);
/*
 * A delay cut of @f (of MRO_CC_ONE) was made at round delay @delay_us:
 * judged MRO_CC_NOISE_ROUNDS rounds later (mro_cc_round()).  A queue we
 * build shrinks by at least the fraction we cut; a delay that fell by
 * less than half of it is not ours to fix, and raises noise_us to it.
 * Only cuts of MRO_CC_NOISE_MIN_CUT or more are judged (a small cut's
 * effect is within the noise), the first of an episode.  noise_us decays
 * once the round delay is below half of it.
 */
void mro_cc_delay_cut(struct mro_cc *cc, u32 delay_us, u32 f);
/*
 * The queueing delay of an RTT sample that came back on a path whose own
 * minimum RTT is @path_min_us (0: none yet): measured from the larger of
 * that and the QP's windowed minimum @qp_min_us, so a path that is
 * longer than the others (ECMP routes of different length, skewed
 * links) does not read its extra propagation delay as a queue.
 */
u32 mro_cc_path_delay(u32 rtt_us, u32 qp_min_us, u32 path_min_us);
/*
 * The queueing an ACK met on its way back, sent at @peer_ts on the peer's
 * clock and processed at @now_us on ours: its one-way delay above the
 * windowed minimum of those (the clocks' offset cancels).  What the ACKs
 * wait for is not the forward queue the window builds: the reverse
 * direction's own traffic, and on a CPU-bound host the sender's backlog
 * of received packets behind the sending it does itself.  A one-way delay
 * more than 2^30 us from the first one's (a peer's clock that jumped)
 * starts over.
 */
u32 mro_cc_rev_queue(struct mro_cc *cc, u32 now_us, u32 peer_ts);
/*
 * Packets really in the network: sent and not acknowledged (@outstanding),
 * minus those SACKed above a hole and those declared lost (RFC 6675's
 * pipe; a retransmission puts a lost one back).  Saturates at 0.
 */
u32 mro_cc_pipe(u32 outstanding, u32 sacked, u32 lost);

enum mro_cc_feedback {
	MRO_CC_FB_OK = 0,
	MRO_CC_FB_BAD_RTT = 1,	/* echo in the future or > 10 s old */
	MRO_CC_FB_BAD_ECN = 2,	/* more marks than packets could carry */
};

/*
 * Build a sample from an ACK: @ts_echo and @ecn_ce are the peer's
 * (untrusted) echoes, @acked PSNs were newly acknowledged and @inflight are
 * still out; @path_min_us is the minimum RTT of the path the echoed packet
 * took (0: unknown), the delay's base with the windowed minimum
 * (mro_cc_path_delay()).  Returns MRO_CC_FB_* bits for what was rejected.
 */
unsigned int mro_cc_make_sample(struct mro_cc *cc, u32 now_us, u32 ts_echo,
				u16 ecn_ce, u32 acked, u32 inflight,
				u32 path_min_us, struct mro_cc_sample *s);

void mro_minrtt_reset(struct mro_minrtt *m);
void mro_minrtt_update(struct mro_minrtt *m, u32 now_us, u32 rtt_us,
		       u32 win_us);
/* U32_MAX when there is no sample */
u32 mro_minrtt_get(const struct mro_minrtt *m);

/*
 * Before a timeout acts: keep the window it may have to give back (the
 * first timeout of an episode keeps the window from before the episode).
 * mro_cc_undo() restores it once the timeout proved spurious and returns
 * whether it did; mro_cc_undo_drop() forgets it when it proved genuine.
 */
void mro_cc_undo_save(struct mro_cc *cc);
bool mro_cc_undo(struct mro_cc *cc);
void mro_cc_undo_drop(struct mro_cc *cc);

/* pacing arithmetic; rates in bytes per second, times in ns */
u64 mro_pace_rate(u32 cwnd_pkts, u32 pkt_bytes, u32 srtt_us, u32 gain_pct);
u64 mro_pace_gap_ns(u32 bytes, u64 rate);
u64 mro_pace_next(u64 next_ns, u64 now_ns, u64 gap_ns, u64 burst_ns);
u64 mro_pace_wake(u64 next_ns, u64 gap_ns, u32 burst);
u32 mro_pace_burst(u32 burst_bytes, u32 mtu, u32 cwnd, u32 div);

#endif /* MRO_CC_H */
