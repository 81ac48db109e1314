/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce congestion control "dual": its parameters, its per-QP state
 * (in the QP's private area) and the rules of its law that KUnit drives
 * one by one.  The law is in mro_cc_dual.c; congestion.rst states it.
 */
#ifndef MRO_CC_DUAL_H
#define MRO_CC_DUAL_H

#include "mro_cc.h"

#define MRO_DUAL_ALPHA_SHIFT	4	/* ECN fraction EWMA gain 1/16 */
#define MRO_DUAL_TARGET_US	500	/* default base target */
#define MRO_DUAL_TARGET_VAR_PCT	200	/* target += 2 x rttvar ... */
#define MRO_DUAL_TARGET_MAX_US	50000	/* ... up to 50 ms in all */
#define MRO_DUAL_NOISE_ROUNDS	2	/* rounds after a delay cut to judge it */
#define MRO_DUAL_NOISE_DECAY	4	/* the floor loses 1/16 per quiet round */
#define MRO_DUAL_NOISE_MIN_CUT	(MRO_CC_ONE / 4)

/* dual's tunables, per device (sysfs ports/1/cc/, module cc_<name>) */
struct mro_dual_params {
	u32 target_delay_us;	/* base target */
	u32 target_var_pct;	/* + this % of rttvar (0: fixed target) */
	u32 target_max_us;	/* bound of the adaptive target */
	u32 ai;			/* packets per RTT */
	u32 beta_pct;		/* delay decrease gain, percent */
	u32 rev_split;		/* 1: the ACKs' own queueing is not ours */
};

/* per-QP state of dual, in struct mro_cc's private area */
struct mro_dual {
	/* delay signal: the smallest queueing delay seen in one round (srtt) */
	u32 round_start_us;
	u32 round_min_us;
	u32 round_delay_us;	/* the last round's minimum */
	u32 target_us;		/* the last effective target (telemetry) */
	bool round_sampled;	/* round_min_us holds a sample */
	bool round_valid;
	bool delay_high;	/* the last round stayed above the target */
	bool dec_valid;
	bool congested;		/* the last sample showed ECN or delay */
	bool rev_synced;
	u8 cut_age;		/* rounds since the cut judged; 0: none */
	/*
	 * Delay that did not yield to our own cuts (a busy host descheduling
	 * the endpoints, not a queue we build): added to the target
	 */
	u32 noise_us;
	u32 cut_delay_us;	/* the round delay behind a cut being judged */
	u32 cut_f;		/* and the cut, of MRO_CC_ONE */
	u32 last_dec_us;
	u32 alpha;		/* ECN fraction, MRO_CC_ONE = all marked */
	u32 win_acked;		/* alpha's observation window */
	u32 win_ecn;
	u32 win_start_us;
	u32 timeouts;		/* consecutive, without progress */
	u32 delay_us;		/* the last sample's, after the reverse split */
	/*
	 * The reverse path's one-way delay (our clock minus the ACK's send
	 * time on the peer's clock) relative to rev_base, offset by 2^31 so
	 * that its windowed minimum is an ordinary unsigned one
	 * (mro_dual_rev_queue())
	 */
	struct mro_minrtt rev_min;
	u32 rev_base;
	u32 rev_q_us;		/* the last ACK's reverse queueing */
};

static inline struct mro_dual *mro_dual(const struct mro_cc *cc)
{
	BUILD_BUG_ON(sizeof(struct mro_dual) > MRO_CC_PRIV_SIZE);
	return mro_cc_priv(cc);
}

static inline const struct mro_dual_params *mro_dual_p(const struct mro_cc *cc)
{
	BUILD_BUG_ON(sizeof(struct mro_dual_params) >
		     sizeof(struct mro_cc_aparams));
	return cc->ap;
}

/*
 * The delay target: the base target plus target_var_pct % of the RTT
 * variation plus the delay that did not yield to our cuts (noise_us), at
 * most target_max_us (never below the base).  A noisy path (virtual
 * machines, busy hosts) needs a target above its noise, a quiet one keeps
 * the base.
 */
u32 mro_dual_target(const struct mro_cc *cc);
/*
 * The delay target that decides whether a loss is congestion: the base
 * target plus the noise floor, without the RTT-variation term (which the
 * queue's own oscillation raises).  A loss while the last round's delay
 * stood above it was most likely our queue overflowing a shallow buffer
 * (Veno's test of the backlog at a loss): the window is cut towards it.
 * A random loss with no standing queue (delay below it) cuts nothing.
 * With a fixed target (target_var_pct 0) it is that target.
 */
u32 mro_dual_loss_target(const struct mro_cc *cc);
/*
 * Fold a sample's delay into the current round; at the end of a round
 * (one srtt) set delay_high from the round's minimum and return true.
 * The minimum filters noise: a single late sample is not a queue, a queue
 * delays every packet of the round.
 */
bool mro_dual_round(struct mro_cc *cc, const struct mro_cc_sample *s);
/*
 * A delay cut of @f (of MRO_CC_ONE) was made at round delay @delay_us:
 * judged MRO_DUAL_NOISE_ROUNDS rounds later (mro_dual_round()).  A queue
 * we build shrinks by at least the fraction we cut; a delay that fell by
 * less than half of it is not ours to fix, and raises noise_us to it.
 * Only cuts of MRO_DUAL_NOISE_MIN_CUT or more are judged (a small cut's
 * effect is within the noise), the first of an episode.  noise_us decays
 * once the round delay is below half of it.
 */
void mro_dual_delay_cut(struct mro_cc *cc, u32 delay_us, u32 f);
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
u32 mro_dual_rev_queue(struct mro_cc *cc, u32 now_us, u32 peer_ts);

#endif /* MRO_CC_DUAL_H */
