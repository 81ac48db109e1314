// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of metaroce congestion control: the registry (find by name
 * and id, refusals, the private area's and parameter block's bounds), the
 * "dual" window law (slow start, additive increase, one multiplicative
 * decrease per RTT on ECN or delay, loss without congestion, timeouts and
 * their undo, telemetry), the "off" algorithm, validation of echoed
 * feedback, the windowed minimum RTT, receiver credit accounting (no leak
 * when ACKs are lost or reordered, shares across senders) and pacing
 * arithmetic, including overflow and hostile inputs.
 */
#include <kunit/test.h>
#include <linux/limits.h>

#include "mro_cc.h"
#include "mro_cc_algos.h"
#include "mro_cc_dual.h"
#include "mro_credit.h"
#include "mro_psn.h"

static const struct mro_cc_params cc_params = {
	.min_cwnd = 2,
	.max_cwnd = 1000,
	.pace_gain_pct = 200,
};

/* dual with a fixed target of 500 us, no reverse split */
static const struct mro_dual_params dual_params = {
	.target_delay_us = 500,
	.ai = 1,
	.beta_pct = 80,
};

static u32 cw(struct mro_cc *cc)
{
	return cc->ops->cwnd(cc);
}

static void ack(struct mro_cc *cc, u32 now, u32 acked, u32 delay, u32 ecn)
{
	struct mro_cc_sample s = {
		.now_us = now, .acked = acked, .rtt_us = 100 + delay,
		.delay_us = delay, .ecn = ecn,
	};

	cc->ops->on_ack(cc, &s);
}

/* dual in congestion avoidance at @cwnd packets, srtt 1 ms */
static void cc_setup(struct mro_cc *cc, u32 cwnd)
{
	mro_cc_init(cc, &mro_cc_dual, &cc_params, &dual_params);
	cc->srtt_us = 1000;
	cc->cwnd_fp = cwnd << MRO_CC_FP_SHIFT;
	cc->ssthresh = cwnd;
}

static void cc_slow_start_then_ai(struct kunit *test)
{
	struct mro_cc cc;
	u32 i;

	mro_cc_init(&cc, &mro_cc_dual, &cc_params, &dual_params);
	cc.srtt_us = 1000;
	KUNIT_EXPECT_EQ(test, cw(&cc), (u32)MRO_CC_INIT_CWND);
	ack(&cc, 10, 16, 0, 0);
	KUNIT_EXPECT_EQ(test, cw(&cc), 32U);	/* doubled in one window */

	cc.ssthresh = 32;			/* congestion avoidance */
	for (i = 0; i < 32; i++)
		ack(&cc, 20 + i, 1, 100, 0);
	KUNIT_EXPECT_EQ(test, cw(&cc), 33U);	/* +ai per window of ACKs */
	for (i = 0; i < 34; i++)
		ack(&cc, 100 + i, 1, 499, 0);	/* just below target */
	KUNIT_EXPECT_EQ(test, cw(&cc), 34U);
	KUNIT_EXPECT_EQ(test, cc.decreases, 0U);
}

static void cc_ecn_once_per_rtt(struct kunit *test)
{
	struct mro_cc cc;

	cc_setup(&cc, 400);
	ack(&cc, 5000, 1, 0, 1);
	/* alpha starts at 1: the first mark halves the window */
	KUNIT_EXPECT_EQ(test, cw(&cc), 200U);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, 200U);
	ack(&cc, 5500, 1, 0, 1);	/* same RTT: no second cut */
	ack(&cc, 5999, 1, 0, 3);
	KUNIT_EXPECT_EQ(test, cw(&cc), 200U);
	KUNIT_EXPECT_EQ(test, cc.decreases, 1U);
	ack(&cc, 6000, 1, 0, 1);	/* one RTT later: cut again */
	KUNIT_EXPECT_LT(test, cw(&cc), 200U);
	KUNIT_EXPECT_GE(test, cw(&cc), 100U);	/* never more than half */
	KUNIT_EXPECT_EQ(test, cc.decreases, 2U);
	/* no increase on a marked ACK inside the RTT either */
	ack(&cc, 6100, 50, 0, 1);
	KUNIT_EXPECT_EQ(test, cc.decreases, 2U);
}

static void cc_delay_decrease(struct kunit *test)
{
	struct mro_cc cc;

	cc_setup(&cc, 1000);
	/* the first sample opens a round: no verdict before it ends */
	ack(&cc, 100, 1, 1000, 0);
	KUNIT_EXPECT_EQ(test, cw(&cc), 1000U);
	KUNIT_EXPECT_EQ(test, cc.decreases, 0U);
	/* delay 2x target all round: cut by beta * (d - t) / d = 40% */
	ack(&cc, 1100, 1, 1000, 0);
	KUNIT_EXPECT_GE(test, cw(&cc), 599U);
	KUNIT_EXPECT_LE(test, cw(&cc), 601U);
	KUNIT_EXPECT_TRUE(test, mro_dual(&cc)->delay_high);
	/* the window holds while the last round was above the target */
	ack(&cc, 1200, 50, 1000, 0);
	KUNIT_EXPECT_LE(test, cw(&cc), 601U);
	/* the next round's minimum is still 2x target: 40% again */
	ack(&cc, 2100, 1, 1000000, 0);
	KUNIT_EXPECT_GE(test, cw(&cc), 359U);
	KUNIT_EXPECT_LE(test, cw(&cc), 361U);
	/* huge delay all round: capped at halving */
	ack(&cc, 3100, 1, 1000000, 0);
	KUNIT_EXPECT_GE(test, cw(&cc), 179U);
	KUNIT_EXPECT_LE(test, cw(&cc), 180U);
	KUNIT_EXPECT_EQ(test, cc.decreases, 3U);
	/* one quiet sample in a round of late ones: no queue, no cut */
	ack(&cc, 3200, 1, 0, 0);
	ack(&cc, 4100, 1, 100000, 0);
	KUNIT_EXPECT_FALSE(test, mro_dual(&cc)->delay_high);
	KUNIT_EXPECT_EQ(test, cc.decreases, 3U);
	/* a round without RTT samples says nothing */
	{
		struct mro_cc_sample s = { .now_us = 5200, .acked = 1 };

		cc.ops->on_ack(&cc, &s);
		KUNIT_EXPECT_FALSE(test, mro_dual(&cc)->delay_high);
		KUNIT_EXPECT_EQ(test, cc.decreases, 3U);
	}
}

/* a small deterministic generator for noisy delays */
static u32 cc_noise(u32 *state, u32 range)
{
	*state = *state * 1664525U + 1013904223U;
	return (*state >> 8) % range;
}

/* dual with the adaptive target, srtt 8 ms, rttvar 3 ms, at @cwnd */
static void cc_setup_noisy(struct mro_cc *cc, struct mro_dual_params *p,
			   u32 cwnd)
{
	*p = dual_params;
	p->target_var_pct = MRO_DUAL_TARGET_VAR_PCT;
	p->target_max_us = MRO_DUAL_TARGET_MAX_US;
	mro_cc_init(cc, &mro_cc_dual, &cc_params, p);
	cc->srtt_us = 8000;
	cc->rttvar_us = 3000;
	cc->cwnd_fp = cwnd << MRO_CC_FP_SHIFT;
	cc->ssthresh = cwnd;
}

/*
 * RTT noise of milliseconds (a TCG VM) on an idle path: single samples
 * far above the base target, no standing queue.  The round minimum and
 * the rttvar-adaptive target keep the window growing; a real queue under
 * the same noise still cuts it.
 */
static void cc_noisy_rtt(struct kunit *test)
{
	u32 i, now = 0, seed = 1, start;
	struct mro_dual_params p;
	struct mro_cc cc;

	cc_setup_noisy(&cc, &p, 20);
	start = cw(&cc);
	/* 400 rounds of 16 ACKs, delays 0..12 ms */
	for (i = 0; i < 400 * 16; i++) {
		now += 500;
		ack(&cc, now, 1, cc_noise(&seed, 12000), 0);
	}
	KUNIT_EXPECT_EQ(test, cc.decreases, 0U);
	KUNIT_EXPECT_GT(test, cw(&cc), start + 80);	/* ~+1 per RTT */
	KUNIT_EXPECT_EQ(test, mro_dual(&cc)->target_us, 500U + 2 * 3000);

	KUNIT_EXPECT_EQ(test, mro_dual(&cc)->noise_us, 0U);

	/*
	 * The same noise on top of a queue this window builds (20 packets
	 * fill the path, each one more waits 0.5 ms): cuts until the queue
	 * is near the target, and the delay that yields is not noise.
	 */
	cc.cwnd_fp = 200 << MRO_CC_FP_SHIFT;
	cc.ssthresh = 200;
	for (i = 0; i < 60 * 16; i++) {
		u32 q = cw(&cc) > 20 ? (cw(&cc) - 20) * 500 : 0;

		now += 500;
		ack(&cc, now, 1, q + cc_noise(&seed, 12000), 0);
	}
	KUNIT_EXPECT_GT(test, cc.decreases, 3U);
	KUNIT_EXPECT_LE(test, cw(&cc), 20U + 2 * mro_dual(&cc)->target_us / 500);
	KUNIT_EXPECT_EQ(test, mro_dual(&cc)->noise_us, 0U);
}

/*
 * A delay that does not yield to the window (a busy host descheduling the
 * endpoints, or a queue other traffic holds): the first cuts cannot shrink
 * it, so it becomes part of the target and the window stops falling
 * instead of collapsing to its floor; once it is gone the floor decays.
 */
static void cc_delay_not_ours(struct kunit *test)
{
	u32 i, now = 0, seed = 7, dec;
	struct mro_dual_params p;
	struct mro_cc cc;

	cc_setup_noisy(&cc, &p, 200);
	for (i = 0; i < 40 * 16; i++) {
		now += 500;
		ack(&cc, now, 1, 20000 + cc_noise(&seed, 12000), 0);
	}
	/* cut in the rounds before the verdict, not after */
	KUNIT_EXPECT_GE(test, cc.decreases, 1U);
	KUNIT_EXPECT_LE(test, cc.decreases, (u32)MRO_DUAL_NOISE_ROUNDS + 1);
	KUNIT_EXPECT_GE(test, mro_dual(&cc)->noise_us, 20000U);
	KUNIT_EXPECT_GT(test, mro_dual(&cc)->target_us, 20000U);
	KUNIT_EXPECT_GE(test, cw(&cc), 25U);	/* >= 200 / 2^3, growing */
	KUNIT_EXPECT_FALSE(test, mro_dual(&cc)->delay_high);

	/* ECN still cuts at once, and is not taken for noise */
	dec = cc.decreases;
	now += 500;
	ack(&cc, now, 1, 20000, 1);
	KUNIT_EXPECT_EQ(test, cc.decreases, dec + 1);

	/* the delay is gone: the floor decays, the base target is back */
	for (i = 0; i < 200 * 16; i++) {
		now += 500;
		ack(&cc, now, 1, cc_noise(&seed, 1000), 0);
	}
	KUNIT_EXPECT_LT(test, mro_dual(&cc)->noise_us, 1000U);
	KUNIT_EXPECT_LT(test, mro_dual(&cc)->target_us, 500U + 2 * 3000 + 1000);

	/* a fixed target (target_var_pct 0) ignores the floor */
	p.target_var_pct = 0;
	mro_dual(&cc)->noise_us = 30000;
	KUNIT_EXPECT_EQ(test, mro_dual_target(&cc), 500U);
}

/*
 * Paths of different length (skewed links, ECMP routes of unequal hops):
 * each path's delay counts from its own base RTT, never from below the
 * QP's windowed minimum.
 */
static void cc_path_delay(struct kunit *test)
{
	/* path 3 is 6 ms longer: its 6.2 ms RTT is 0.2 ms of queue */
	KUNIT_EXPECT_EQ(test, mro_cc_path_delay(6200, 300, 6000), 200U);
	/* without its own minimum yet, the QP's */
	KUNIT_EXPECT_EQ(test, mro_cc_path_delay(6200, 300, 0), 5900U);
	/* a path minimum below the QP's (the QP's window moved on) */
	KUNIT_EXPECT_EQ(test, mro_cc_path_delay(6200, 1000, 100), 5200U);
	/* never negative, no wrap */
	KUNIT_EXPECT_EQ(test, mro_cc_path_delay(100, 300, 6000), 0U);
	KUNIT_EXPECT_EQ(test, mro_cc_path_delay(U32_MAX, 0, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, mro_cc_path_delay(0, U32_MAX, U32_MAX), 0U);
}

/*
 * The reverse path's queueing: the clocks' offset cancels, wherever it
 * puts the raw one-way delay (across the u32 wrap too); the queueing is
 * measured from the windowed minimum; a clock jump starts over.
 */
static void cc_rev_queue(struct kunit *test)
{
	static const u32 offsets[] = { 0, 0x7fffff00, 0xfffffff0, 0x80000010 };
	struct mro_dual_params p = dual_params;
	struct mro_cc cc;
	u32 i, now;

	for (i = 0; i < ARRAY_SIZE(offsets); i++) {
		u32 off = offsets[i];

		mro_cc_init(&cc, &mro_cc_dual, &cc_params, &p);
		now = 1000;
		/* one-way 300 us, then 250 (the minimum), then queued */
		KUNIT_EXPECT_EQ(test, mro_dual_rev_queue(&cc, now, now - 300 - off),
				0U);
		now += 100;
		KUNIT_EXPECT_EQ(test, mro_dual_rev_queue(&cc, now, now - 250 - off),
				0U);
		now += 100;
		KUNIT_EXPECT_EQ(test, mro_dual_rev_queue(&cc, now, now - 1250 - off),
				1000U);
		KUNIT_EXPECT_EQ(test, mro_dual(&cc)->rev_q_us, 1000U);
		now += 100;
		KUNIT_EXPECT_EQ(test, mro_dual_rev_queue(&cc, now, now - 251 - off),
				1U);
	}

	/* the minimum is windowed: after two windows the new level is 0 */
	mro_cc_init(&cc, &mro_cc_dual, &cc_params, &p);
	now = 5;
	mro_dual_rev_queue(&cc, now, now - 100);
	now += MRO_CC_MINRTT_WIN_US / 2;
	mro_dual_rev_queue(&cc, now, now - 400);
	now += MRO_CC_MINRTT_WIN_US / 2;
	KUNIT_EXPECT_EQ(test, mro_dual_rev_queue(&cc, now, now - 400), 0U);

	/* a peer's clock that jumps by more than 2^30 us: start over */
	mro_cc_init(&cc, &mro_cc_dual, &cc_params, &p);
	now = 7;
	mro_dual_rev_queue(&cc, now, now - 100);
	KUNIT_EXPECT_EQ(test, mro_dual_rev_queue(&cc, now, now - 100 - (5U << 29)),
			0U);
	KUNIT_EXPECT_EQ(test, mro_dual_rev_queue(&cc, now, now - 600 - (5U << 29)),
			500U);
	/* a jump of less is a queue (bounded by the RTT's delay in use) */
	KUNIT_EXPECT_EQ(test, mro_dual_rev_queue(&cc, now, now - 100 - (5U << 29) -
					       (1U << 29)),
			1U << 29);
}

static void cc_target_and_pipe(struct kunit *test)
{
	struct mro_dual_params p = dual_params;
	struct mro_cc cc;

	mro_cc_init(&cc, &mro_cc_dual, &cc_params, &p);
	cc.rttvar_us = 100000;
	KUNIT_EXPECT_EQ(test, mro_dual_target(&cc), 500U);  /* fixed: pct 0 */
	p.target_var_pct = 200;
	p.target_max_us = 10000;
	cc.rttvar_us = 0;
	KUNIT_EXPECT_EQ(test, mro_dual_target(&cc), 500U);
	cc.rttvar_us = 1000;
	KUNIT_EXPECT_EQ(test, mro_dual_target(&cc), 2500U);
	cc.rttvar_us = U32_MAX;			/* bounded, no overflow */
	KUNIT_EXPECT_EQ(test, mro_dual_target(&cc), 10000U);
	p.target_max_us = 1;			/* never below the base */
	KUNIT_EXPECT_EQ(test, mro_dual_target(&cc), 500U);
	p.target_delay_us = 0;
	p.target_var_pct = 0;
	KUNIT_EXPECT_EQ(test, mro_dual_target(&cc), 1U);

	/* in flight = outstanding - SACKed above a hole - declared lost */
	KUNIT_EXPECT_EQ(test, mro_cc_pipe(10, 3, 2), 5U);
	KUNIT_EXPECT_EQ(test, mro_cc_pipe(10, 0, 0), 10U);
	KUNIT_EXPECT_EQ(test, mro_cc_pipe(10, 8, 5), 0U);
	KUNIT_EXPECT_EQ(test, mro_cc_pipe(U32_MAX, U32_MAX, U32_MAX), 0U);
	KUNIT_EXPECT_EQ(test, mro_cc_pipe(U32_MAX, 1, 0), U32_MAX - 1);
}

static void cc_loss_is_not_congestion(struct kunit *test)
{
	struct mro_cc cc;

	cc_setup(&cc, 100);
	ack(&cc, 10, 1, 10, 0);
	cc.ops->on_loss(&cc, 20, 5);
	KUNIT_EXPECT_EQ(test, cw(&cc), 100U);
	cc.ops->on_timeout(&cc, 30);	/* first RTO, no congestion */
	KUNIT_EXPECT_EQ(test, cw(&cc), 100U);
	KUNIT_EXPECT_EQ(test, cc.decreases, 0U);

	/* with a congestion signal, a loss cuts (once per RTT) */
	ack(&cc, 40, 0, 0, 1);
	KUNIT_EXPECT_EQ(test, cw(&cc), 50U);
	cc.ops->on_loss(&cc, 50, 1);
	KUNIT_EXPECT_EQ(test, cw(&cc), 50U);
	cc.ops->on_loss(&cc, 1040, 1);
	KUNIT_EXPECT_LT(test, cw(&cc), 50U);
}

/*
 * A loss while our queue stands above the loss target (base + noise, not
 * the rttvar-widened target) is an overflow: cut towards that target,
 * once per RTT; a loss with the queue below it cuts nothing.
 */
static void cc_loss_with_standing_queue(struct kunit *test)
{
	struct mro_dual_params p = dual_params;
	struct mro_cc cc;

	p.target_var_pct = 200;
	p.target_max_us = 50000;
	mro_cc_init(&cc, &mro_cc_dual, &cc_params, &p);
	cc.srtt_us = 1000;
	cc.rttvar_us = 5000;		/* target 500 + 10000 */
	cc.cwnd_fp = 100 << MRO_CC_FP_SHIFT;
	cc.ssthresh = 100;
	KUNIT_EXPECT_EQ(test, mro_dual_target(&cc), 10500U);
	KUNIT_EXPECT_EQ(test, mro_dual_loss_target(&cc), 500U);

	/* a round with 200 us of queue: below both targets */
	ack(&cc, 10, 1, 200, 0);
	ack(&cc, 1100, 1, 200, 0);
	KUNIT_EXPECT_EQ(test, mro_dual(&cc)->round_delay_us, 200U);
	cc.ops->on_loss(&cc, 1200, 3);
	KUNIT_EXPECT_EQ(test, cw(&cc), 100U);

	/* 5 ms of queue: under the delay target, so no delay cut ... */
	ack(&cc, 1300, 1, 5000, 0);
	ack(&cc, 2400, 1, 5000, 0);
	KUNIT_EXPECT_EQ(test, mro_dual(&cc)->round_delay_us, 5000U);
	KUNIT_EXPECT_FALSE(test, mro_dual(&cc)->delay_high);
	KUNIT_EXPECT_EQ(test, cw(&cc), 100U);
	KUNIT_EXPECT_EQ(test, cc.decreases, 0U);
	/* ... but a loss now is an overflow: 0.8 * 4500 / 5000, at most 1/2 */
	cc.ops->on_loss(&cc, 2500, 1);
	KUNIT_EXPECT_EQ(test, cw(&cc), 50U);
	cc.ops->on_loss(&cc, 2600, 1);	/* same RTT */
	KUNIT_EXPECT_EQ(test, cw(&cc), 50U);
	cc.ops->on_loss(&cc, 2600, 0);	/* nothing lost */
	KUNIT_EXPECT_EQ(test, cc.decreases, 1U);

	/* the noise floor raises the loss target: 5 ms of noise is not ours */
	mro_dual(&cc)->noise_us = 5000;
	KUNIT_EXPECT_EQ(test, mro_dual_loss_target(&cc), 5500U);
	cc.ops->on_loss(&cc, 4000, 1);
	KUNIT_EXPECT_EQ(test, cw(&cc), 50U);

	/* a fixed target decides alone */
	p.target_var_pct = 0;
	KUNIT_EXPECT_EQ(test, mro_dual_loss_target(&cc), mro_dual_target(&cc));
}

static void cc_timeouts_collapse_and_regrow(struct kunit *test)
{
	struct mro_cc cc;
	u32 rounds = 0, now = 0;

	cc_setup(&cc, 512);
	cc.ops->on_timeout(&cc, 100);
	KUNIT_EXPECT_EQ(test, cw(&cc), 512U);
	cc.ops->on_timeout(&cc, 200);
	KUNIT_EXPECT_EQ(test, cw(&cc), cc_params.min_cwnd);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, 256U);
	/* fast adaptation: slow start back to half in log2(256/2) RTTs */
	while (cw(&cc) < 256 && rounds < 100) {
		now += 1000;
		ack(&cc, now, cw(&cc), 0, 0);
		rounds++;
	}
	KUNIT_EXPECT_EQ(test, cw(&cc), 256U);
	KUNIT_EXPECT_LE(test, rounds, 8U);
	/* progress resets the timeout count */
	cc.ops->on_timeout(&cc, now + 10);
	KUNIT_EXPECT_EQ(test, cw(&cc), 256U);
}

/* a spurious timeout gives the window back; a genuine one keeps the cut */
static void cc_spurious_timeout_undo(struct kunit *test)
{
	struct mro_cc cc;

	cc_setup(&cc, 512);
	KUNIT_EXPECT_FALSE(test, mro_cc_undo(&cc));	/* nothing saved */
	mro_cc_undo_save(&cc);
	cc.ops->on_timeout(&cc, 100);
	mro_cc_undo_save(&cc);	/* the second keeps the first's window */
	cc.ops->on_timeout(&cc, 200);
	KUNIT_EXPECT_EQ(test, cw(&cc), cc_params.min_cwnd);
	KUNIT_EXPECT_TRUE(test, mro_cc_undo(&cc));
	KUNIT_EXPECT_EQ(test, cw(&cc), 512U);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, 512U);
	KUNIT_EXPECT_EQ(test, mro_dual(&cc)->timeouts, 0U);
	KUNIT_EXPECT_EQ(test, cc.undos, 1U);
	KUNIT_EXPECT_FALSE(test, mro_cc_undo(&cc));	/* once only */

	/* genuine: the verdict drops the saved window, the cut stays */
	mro_cc_undo_save(&cc);
	cc.ops->on_timeout(&cc, 300);
	cc.ops->on_timeout(&cc, 400);
	mro_cc_undo_drop(&cc);
	KUNIT_EXPECT_FALSE(test, mro_cc_undo(&cc));
	KUNIT_EXPECT_EQ(test, cw(&cc), cc_params.min_cwnd);

	/* a window that grew since the timeout is not shrunk by the undo */
	cc_setup(&cc, 8);
	mro_cc_undo_save(&cc);
	cc.cwnd_fp = 100 << MRO_CC_FP_SHIFT;
	KUNIT_EXPECT_TRUE(test, mro_cc_undo(&cc));
	KUNIT_EXPECT_EQ(test, cw(&cc), 100U);
}

static void cc_clamps_and_hostile_samples(struct kunit *test)
{
	struct mro_cc cc;
	u32 i, now = 0xfffff000U;	/* the clock wraps during the test */

	mro_cc_init(&cc, &mro_cc_dual, &cc_params, &dual_params);
	cc.srtt_us = 0;			/* no RTT yet: still bounded */
	for (i = 0; i < 50; i++)
		ack(&cc, now + i, U32_MAX, 0, 0);
	KUNIT_EXPECT_EQ(test, cw(&cc), cc_params.max_cwnd);
	cc.srtt_us = 10;
	for (i = 0; i < 200; i++) {
		now += 100;
		ack(&cc, now, 0, U32_MAX, U32_MAX);
	}
	KUNIT_EXPECT_EQ(test, cw(&cc), cc_params.min_cwnd);
	KUNIT_EXPECT_LE(test, mro_dual(&cc)->alpha, MRO_CC_ONE);
}

static void cc_off_is_fixed(struct kunit *test)
{
	struct mro_cc cc;

	mro_cc_init(&cc, &mro_cc_off, &cc_params, NULL);
	cc.srtt_us = 100;
	KUNIT_EXPECT_EQ(test, cw(&cc), cc_params.max_cwnd);
	ack(&cc, 1, 1, 100000, 50);
	mro_cc_on_loss(&cc, 2, 10);
	mro_cc_on_timeout(&cc, 3);
	mro_cc_on_timeout(&cc, 4);
	KUNIT_EXPECT_EQ(test, cw(&cc), cc_params.max_cwnd);
	KUNIT_EXPECT_EQ(test, cc.ops->pacing_rate(&cc, 1024), 0ULL);
	/* without undo_cwnd there is nothing to give back */
	KUNIT_EXPECT_FALSE(test, mro_cc_undo(&cc));
	KUNIT_EXPECT_FALSE(test, cc.undo_valid);
	KUNIT_EXPECT_EQ(test, cc.undos, 0U);
	mro_cc_release(&cc);
	KUNIT_EXPECT_NULL(test, cc.ops);
}

static void cc_test_init(struct mro_cc *cc)
{
	cc->cwnd_fp = mro_cc_clamp(cc, 4 << MRO_CC_FP_SHIFT);
}

static void cc_test_on_ack(struct mro_cc *cc, const struct mro_cc_sample *s)
{
}

static u32 cc_test_cwnd(const struct mro_cc *cc)
{
	return mro_cc_pkts(cc);
}

static u64 cc_test_rate(const struct mro_cc *cc, u32 pkt_bytes)
{
	return 0;
}

struct cc_test_params {
	u32 a;
	u32 b;
};

static const struct cc_test_params cc_test_defaults = { 1, 2 };

static const struct mro_cc_knob cc_test_knobs[] = {
	{ "kunit_a", offsetof(struct cc_test_params, a), 0, 10 },
	{ "kunit_b", offsetof(struct cc_test_params, b), 0, 10 },
};

#define CC_TEST_OPS(n)							\
	{ .name = (n), .owner = THIS_MODULE, .init = cc_test_init,	\
	  .on_ack = cc_test_on_ack, .cwnd = cc_test_cwnd,		\
	  .pacing_rate = cc_test_rate }

/*
 * The registry: an algorithm is found by name (a sysfs write's newline
 * ignored) and by id while registered, and not after; a name taken, a
 * missing op, private state or parameters beyond the fixed areas and a
 * full table are refused; a slot taken again gets a new id.
 */
static void cc_registry(struct kunit *test)
{
	static struct mro_cc_ops a = CC_TEST_OPS("kunit_a");
	static struct mro_cc_ops dup = CC_TEST_OPS("kunit_a");
	static struct mro_cc_ops bad = CC_TEST_OPS("kunit_bad");
	static struct mro_cc_ops fill[MRO_CC_SLOTS];
	static const char *const names[MRO_CC_SLOTS] = {
		"kunit_0", "kunit_1", "kunit_2", "kunit_3",
		"kunit_4", "kunit_5", "kunit_6", "kunit_7",
	};
	int err[MRO_CC_SLOTS];
	u32 id, i;

	KUNIT_ASSERT_EQ(test, mro_cc_register(&a), 0);
	KUNIT_EXPECT_PTR_EQ(test, mro_cc_find("kunit_a"), &a);
	KUNIT_EXPECT_PTR_EQ(test, mro_cc_find("kunit_a\n"), &a);
	KUNIT_EXPECT_NULL(test, mro_cc_find("kunit"));
	KUNIT_EXPECT_NULL(test, mro_cc_find("cubic"));
	KUNIT_EXPECT_PTR_EQ(test, mro_cc_get(a.id), &a);
	mro_cc_put(&a);
	KUNIT_EXPECT_PTR_EQ(test, mro_cc_slot(mro_cc_id_slot(a.id)), &a);
	KUNIT_EXPECT_NULL(test, mro_cc_slot(MRO_CC_SLOTS));
	/* a name taken */
	KUNIT_EXPECT_EQ(test, mro_cc_register(&dup), -EEXIST);
	KUNIT_EXPECT_PTR_EQ(test, mro_cc_find("kunit_a"), &a);

	/* the private area: its size is allowed, one byte more is not */
	bad.priv_size = MRO_CC_PRIV_SIZE + 1;
	KUNIT_EXPECT_EQ(test, mro_cc_register(&bad), -EINVAL);
	bad.priv_size = MRO_CC_PRIV_SIZE;
	KUNIT_EXPECT_EQ(test, mro_cc_register(&bad), 0);
	mro_cc_unregister(&bad);
	/* parameters: within the block, knobs inside them */
	bad.params_size = sizeof(struct mro_cc_aparams) + 4;
	KUNIT_EXPECT_EQ(test, mro_cc_register(&bad), -EINVAL);
	bad.params_size = sizeof(u32);
	bad.knobs = cc_test_knobs;
	bad.n_knobs = ARRAY_SIZE(cc_test_knobs);
	bad.defaults = &cc_test_defaults;
	KUNIT_EXPECT_EQ(test, mro_cc_register(&bad), -EINVAL);
	bad.params_size = sizeof(struct cc_test_params);
	KUNIT_EXPECT_EQ(test, mro_cc_register(&bad), 0);
	mro_cc_unregister(&bad);
	/* a required op missing, a name too long or empty */
	bad.cwnd = NULL;
	KUNIT_EXPECT_EQ(test, mro_cc_register(&bad), -EINVAL);
	bad.cwnd = cc_test_cwnd;
	bad.name = "kunit_name_too_long";
	KUNIT_EXPECT_EQ(test, mro_cc_register(&bad), -EINVAL);
	bad.name = "";
	KUNIT_EXPECT_EQ(test, mro_cc_register(&bad), -EINVAL);

	/* the table fills up: the last ones are refused */
	for (i = 0; i < MRO_CC_SLOTS; i++) {
		fill[i] = (struct mro_cc_ops)CC_TEST_OPS(names[i]);
		err[i] = mro_cc_register(&fill[i]);
		KUNIT_EXPECT_TRUE(test, !err[i] || err[i] == -ENOSPC);
	}
	KUNIT_EXPECT_EQ(test, err[MRO_CC_SLOTS - 1], -ENOSPC);
	for (i = 0; i < MRO_CC_SLOTS; i++)
		if (!err[i])
			mro_cc_unregister(&fill[i]);

	/* gone: neither name nor id finds it; back: a new id */
	id = a.id;
	mro_cc_unregister(&a);
	KUNIT_EXPECT_NULL(test, mro_cc_find("kunit_a"));
	KUNIT_EXPECT_NULL(test, mro_cc_get(id));
	KUNIT_ASSERT_EQ(test, mro_cc_register(&a), 0);
	KUNIT_EXPECT_NE(test, a.id, id);
	KUNIT_EXPECT_NULL(test, mro_cc_get(id));
	mro_cc_unregister(&a);
}

/* dual's telemetry through get_info, the core's without one */
static void cc_get_info(struct kunit *test)
{
	struct mro_dual_params p = dual_params;
	struct mro_cc_info info;
	struct mro_cc cc;

	p.rev_split = 1;
	mro_cc_init(&cc, &mro_cc_dual, &cc_params, &p);
	cc.srtt_us = 1000;
	{
		struct mro_cc_sample s = {
			.now_us = 100, .acked = 1, .rtt_us = 900,
			.delay_us = 800, .peer_ts = 100 - 50,
		};

		mro_cc_on_ack(&cc, &s);
		/* the ACK's own queueing: 300 us above the first one's */
		s.now_us = 200;
		s.peer_ts = 200 - 350;
		mro_cc_on_ack(&cc, &s);
	}
	mro_cc_get_info(&cc, &info);
	KUNIT_EXPECT_EQ(test, info.rev_delay_us, 300U);
	KUNIT_EXPECT_EQ(test, info.delay_us, 500U);
	KUNIT_EXPECT_EQ(test, info.target_us, 500U);
	KUNIT_EXPECT_EQ(test, info.noise_us, 0U);
	KUNIT_EXPECT_EQ(test, cc.last_delay_us, 800U);

	mro_cc_init(&cc, &mro_cc_off, &cc_params, NULL);
	{
		struct mro_cc_sample s = {
			.now_us = 100, .acked = 1, .rtt_us = 900,
			.delay_us = 700,
		};

		mro_cc_on_ack(&cc, &s);
	}
	mro_cc_get_info(&cc, &info);
	KUNIT_EXPECT_EQ(test, info.delay_us, 700U);
	KUNIT_EXPECT_EQ(test, info.target_us, 0U);
}

static void cc_feedback_validation(struct kunit *test)
{
	struct mro_cc_sample s;
	struct mro_cc cc;

	mro_cc_init(&cc, &mro_cc_dual, &cc_params, &dual_params);
	/* first ACK synchronises the ECN echo, counts nothing */
	KUNIT_EXPECT_EQ(test, mro_cc_make_sample(&cc, 1000, 900, 0xfff0, 4,
						 10, 0, &s), 0U);
	KUNIT_EXPECT_EQ(test, s.rtt_us, 100U);
	KUNIT_EXPECT_EQ(test, s.delay_us, 0U);
	KUNIT_EXPECT_EQ(test, s.ecn, 0U);
	/* 0x20 new marks across the u16 wrap, with 40 packets that could */
	KUNIT_EXPECT_EQ(test, mro_cc_make_sample(&cc, 2000, 1700, 0x0010, 30,
						 10, 0, &s), 0U);
	KUNIT_EXPECT_EQ(test, s.ecn, 0x20U);
	KUNIT_EXPECT_EQ(test, s.delay_us, 200U);
	/* an older ACK (smaller count) arriving late: no marks, not bad */
	KUNIT_EXPECT_EQ(test, mro_cc_make_sample(&cc, 2100, 1700, 0x0008, 0,
						 10, 0, &s), 0U);
	KUNIT_EXPECT_EQ(test, s.ecn, 0U);
	/* more marks than packets: rejected, resynchronised */
	KUNIT_EXPECT_EQ(test, mro_cc_make_sample(&cc, 2200, 2100, 0x4000, 1,
						 1, 0, &s),
			(unsigned int)MRO_CC_FB_BAD_ECN);
	KUNIT_EXPECT_EQ(test, s.ecn, 0U);
	KUNIT_EXPECT_EQ(test, mro_cc_make_sample(&cc, 2300, 2200, 0x4001, 1,
						 1, 0, &s), 0U);
	KUNIT_EXPECT_EQ(test, s.ecn, 1U);
	/* echo from the future, or absurdly old: no RTT sample */
	KUNIT_EXPECT_EQ(test, mro_cc_make_sample(&cc, 2400, 2500, 0x4001, 1,
						 1, 0, &s),
			(unsigned int)MRO_CC_FB_BAD_RTT);
	KUNIT_EXPECT_EQ(test, s.rtt_us, 0U);
	KUNIT_EXPECT_EQ(test, mro_cc_make_sample(&cc, 20000000, 1, 0x4001, 1,
						 1, 0, &s),
			(unsigned int)MRO_CC_FB_BAD_RTT);
	KUNIT_EXPECT_EQ(test, cc.ecn_total, 0x21ULL);
}

static void cc_minrtt_window(struct kunit *test)
{
	struct mro_minrtt m;

	mro_minrtt_reset(&m);
	KUNIT_EXPECT_EQ(test, mro_minrtt_get(&m), U32_MAX);
	mro_minrtt_update(&m, 0, 100, 1000);
	mro_minrtt_update(&m, 100, 300, 1000);
	KUNIT_EXPECT_EQ(test, mro_minrtt_get(&m), 100U);
	mro_minrtt_update(&m, 600, 300, 1000);	/* new half: 100 kept */
	KUNIT_EXPECT_EQ(test, mro_minrtt_get(&m), 100U);
	mro_minrtt_update(&m, 1100, 250, 1000);	/* 100 has aged out */
	KUNIT_EXPECT_EQ(test, mro_minrtt_get(&m), 250U);
	mro_minrtt_update(&m, 5000, 400, 1000);	/* a long silence */
	KUNIT_EXPECT_EQ(test, mro_minrtt_get(&m), 400U);
	/* wrapping clock */
	mro_minrtt_reset(&m);
	mro_minrtt_update(&m, 0xffffff00U, 50, 1000);
	mro_minrtt_update(&m, 0x100, 70, 1000);
	KUNIT_EXPECT_EQ(test, mro_minrtt_get(&m), 50U);
}

/* one sender, one receiver; most ACKs are lost, some arrive reordered */
static void credit_no_leak_with_lost_acks(struct kunit *test)
{
	struct mro_credit_pool pool;
	struct mro_credit_rx rx;
	struct mro_credit_tx tx;
	u32 base = 0xfffffff0U, nxt = base, una = base;
	u32 grants[8], i, n = 0, g = 0;

	mro_credit_pool_init(&pool);
	mro_credit_rx_reset(&rx, base, 0);
	mro_credit_tx_init(&tx, nxt, 8);	/* speculative window */
	KUNIT_EXPECT_EQ(test, mro_credit_tx_avail(&tx, nxt), 8U);

	for (i = 0; i < 400; i++) {
		/* send one packet if credit allows; it arrives */
		if (mro_credit_tx_avail(&tx, nxt)) {
			nxt++;
			mro_credit_rx_activate(&pool, &rx);
			base++;
			mro_credit_rx_account(&pool, &rx, base);
		}
		g = mro_credit_rx_grant(&pool, &rx, base, 512, 64, 4);
		KUNIT_EXPECT_EQ(test, (u32)atomic_read(&pool.outstanding),
				g - base);
		grants[n++ % 8] = g;
		/* only every 7th ACK arrives, then an old one reordered */
		if (i % 7)
			continue;
		una = base;
		mro_credit_tx_update(&tx, g, una, 512);
		KUNIT_EXPECT_EQ(test, mro_credit_tx_update(&tx, grants[0], una,
							   512),
				MRO_CREDIT_STALE);
		KUNIT_EXPECT_EQ(test, tx.credit_psn, g);
	}
	/* the sender never ran dry for long and sent past the wrap */
	KUNIT_EXPECT_GT(test, nxt - 0xfffffff0U, 300U);
	KUNIT_EXPECT_LE(test, mro_credit_tx_avail(&tx, nxt), 64U);
	/* everything granted is either received or still counted */
	KUNIT_EXPECT_EQ(test, (u32)atomic_read(&pool.outstanding),
			rx.grant_psn - base);
	mro_credit_rx_release(&pool, &rx);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.outstanding), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.active), 0);
	mro_credit_rx_release(&pool, &rx);	/* twice is harmless */
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.active), 0);
}

static void credit_shares_across_senders(struct kunit *test)
{
	struct mro_credit_pool pool;
	struct mro_credit_rx rx[8];
	u32 base[8], i, sum = 0;

	mro_credit_pool_init(&pool);
	for (i = 0; i < 8; i++) {
		base[i] = i * 0x40000000U;
		mro_credit_rx_reset(&rx[i], base[i], 0);
		mro_credit_rx_activate(&pool, &rx[i]);
	}
	KUNIT_EXPECT_EQ(test, mro_credit_share(&pool, 256, 16), 32U);
	for (i = 0; i < 8; i++)
		sum += mro_credit_rx_grant(&pool, &rx[i], base[i], 512, 256,
					   16) - base[i];
	KUNIT_EXPECT_EQ(test, sum, 256U);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.outstanding), 256);
	/* half the senders go idle: the others' shares double */
	for (i = 4; i < 8; i++)
		mro_credit_rx_release(&pool, &rx[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.outstanding), 128);
	KUNIT_EXPECT_EQ(test, mro_credit_rx_grant(&pool, &rx[0], base[0], 512,
						  256, 16) - base[0], 64U);
	/* a grant is never taken back, even when the share shrinks */
	for (i = 4; i < 8; i++)
		mro_credit_rx_activate(&pool, &rx[i]);
	KUNIT_EXPECT_EQ(test, mro_credit_rx_grant(&pool, &rx[0], base[0], 512,
						  256, 16) - base[0], 64U);
	/* many senders: the quantum is the floor; the window the ceiling */
	KUNIT_EXPECT_EQ(test, mro_credit_share(&pool, 64, 16), 16U);
	KUNIT_EXPECT_EQ(test, mro_credit_rx_grant(&pool, &rx[1], base[1], 8,
						  256, 16) - base[1], 32U);
	KUNIT_EXPECT_EQ(test, mro_credit_share(&pool, 0, 0), 1U);
	for (i = 0; i < 8; i++)
		mro_credit_rx_release(&pool, &rx[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.outstanding), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.active), 0);
}

/*
 * A sender joins four others that hold the whole pool: its speculative
 * window counts from its first packet, and the others' grants are not
 * extended past the pool's room (the quantum aside) until it is used.
 */
static void credit_pool_counts_speculation(struct kunit *test)
{
	struct mro_credit_pool pool;
	struct mro_credit_rx rx[5];
	u32 base[5], i;

	mro_credit_pool_init(&pool);
	for (i = 0; i < 4; i++) {
		base[i] = 1000 * i;
		mro_credit_rx_reset(&rx[i], base[i], 0);
		mro_credit_rx_activate(&pool, &rx[i]);
	}
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, mro_credit_rx_grant(&pool, &rx[i],
							  base[i], 512, 32, 2),
				base[i] + 8);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.outstanding), 32);
	/* the newcomer starts past the PSN wrap with 16 unasked packets */
	base[4] = 0xfffffff8U;
	mro_credit_rx_reset(&rx[4], base[4], 16);
	mro_credit_rx_activate(&pool, &rx[4]);
	mro_credit_rx_account(&pool, &rx[4], base[4]);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.outstanding), 48);
	/* sender 0 got half its grant through: no extension, pool is full */
	base[0] += 4;
	KUNIT_EXPECT_EQ(test, mro_credit_rx_grant(&pool, &rx[0], base[0], 512,
						  32, 2), base[0] + 4);
	/* and once all of it: the quantum only */
	base[0] += 4;
	KUNIT_EXPECT_EQ(test, mro_credit_rx_grant(&pool, &rx[0], base[0], 512,
						  32, 2), base[0] + 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.outstanding), 42);
	/* the speculation arrived: the newcomer gets what is left */
	base[4] += 16;
	KUNIT_EXPECT_EQ(test, mro_credit_rx_grant(&pool, &rx[4], base[4], 512,
						  32, 2), base[4] + 6);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.outstanding), 32);
	for (i = 0; i < 5; i++)
		mro_credit_rx_release(&pool, &rx[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.active), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool.outstanding), 0);
	/* without speculation there is no grant until one is asked for */
	mro_credit_rx_reset(&rx[4], 7, 0);
	KUNIT_EXPECT_FALSE(test, rx[4].granted);
}

static void credit_hostile_grants(struct kunit *test)
{
	struct mro_credit_tx tx;

	mro_credit_tx_init(&tx, 100, 10);
	KUNIT_EXPECT_EQ(test, mro_credit_tx_update(&tx, 50, 100, 512),
			MRO_CREDIT_STALE);
	/* beyond any window: not taken (review H4, half of random grants) */
	KUNIT_EXPECT_EQ(test, mro_credit_tx_update(&tx, 100 + 0x7fffffffU,
						   100, 512),
			MRO_CREDIT_BAD);
	KUNIT_EXPECT_EQ(test, tx.credit_psn, 110U);
	KUNIT_EXPECT_EQ(test, mro_credit_tx_update(&tx, 100 + MRO_WINDOW_MAX + 1,
						   100, 512),
			MRO_CREDIT_BAD);
	KUNIT_EXPECT_EQ(test, tx.credit_psn, 110U);
	/* a receiver with a larger window: clamped to ours */
	KUNIT_EXPECT_EQ(test, mro_credit_tx_update(&tx, 100 + MRO_WINDOW_MAX,
						   100, 512),
			MRO_CREDIT_MOVED);
	KUNIT_EXPECT_EQ(test, tx.credit_psn, 612U);
	KUNIT_EXPECT_EQ(test, mro_credit_tx_update(&tx, 600, 100, 512),
			MRO_CREDIT_STALE);
	KUNIT_EXPECT_EQ(test, mro_credit_tx_avail(&tx, 612), 0U);
	KUNIT_EXPECT_EQ(test, mro_credit_tx_avail(&tx, 700), 0U);
	KUNIT_EXPECT_EQ(test, mro_credit_tx_avail(&tx, 600), 12U);
	/* a receive base that ran past an old grant drags it along */
	{
		struct mro_credit_pool pool;
		struct mro_credit_rx rx;

		mro_credit_pool_init(&pool);
		mro_credit_rx_reset(&rx, 0, 0);
		KUNIT_EXPECT_EQ(test, mro_credit_rx_grant(&pool, &rx, 0, 512,
							  16, 16), 16U);
		KUNIT_EXPECT_EQ(test, mro_credit_rx_grant(&pool, &rx, 40, 512,
							  16, 16), 56U);
		mro_credit_rx_account(&pool, &rx, 100);
		KUNIT_EXPECT_EQ(test, atomic_read(&pool.outstanding), 0);
		mro_credit_rx_release(&pool, &rx);
	}
}

static void pacing_arithmetic(struct kunit *test)
{
	u64 next;

	/* 200% of 10 x 1000 B per 1000 us = 20 MB/s; 1000 B = 50 us */
	KUNIT_EXPECT_EQ(test, mro_pace_rate(10, 1000, 1000, 200), 20000000ULL);
	KUNIT_EXPECT_EQ(test, mro_pace_gap_ns(1000, 20000000ULL), 50000ULL);
	KUNIT_EXPECT_EQ(test, mro_pace_rate(10, 1000, 0, 200), 0ULL);
	KUNIT_EXPECT_EQ(test, mro_pace_rate(10, 1000, 1000, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, mro_pace_rate(0, 1000, 1000, 200), 0ULL);
	KUNIT_EXPECT_EQ(test, mro_pace_gap_ns(1000, 0), 0ULL);
	/* saturation at both ends */
	KUNIT_EXPECT_EQ(test, mro_pace_rate(U32_MAX, U32_MAX, 1, 1000),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, mro_pace_gap_ns(U32_MAX, 1), MRO_PACE_MAX_GAP_NS);
	KUNIT_EXPECT_EQ(test, mro_pace_gap_ns(U32_MAX, U64_MAX), 0ULL);
	/* 16384 x 64 KiB in 1 us at 10x: still exact in 64 bits */
	KUNIT_EXPECT_EQ(test, mro_pace_rate(16384, 65536, 1, 1000),
			16384ULL * 65536 * 10 * 1000000);

	/* back-to-back: the clock advances by the gap */
	next = mro_pace_next(1000, 1000, 50, 200);
	KUNIT_EXPECT_EQ(test, next, 1050ULL);
	next = mro_pace_next(next, 1010, 50, 200);
	KUNIT_EXPECT_EQ(test, next, 1100ULL);
	/* after idling, at most a burst's worth of credit */
	next = mro_pace_next(next, 100000, 50, 200);
	KUNIT_EXPECT_EQ(test, next, 100000ULL - 200 + 50);
	/* near time zero, no underflow */
	KUNIT_EXPECT_EQ(test, mro_pace_next(0, 10, 50, 200), 50ULL);
	/* a timer woken at mro_pace_wake() releases the whole burst, once */
	KUNIT_EXPECT_EQ(test, mro_pace_wake(1000, 50, 4), 1150ULL);
	KUNIT_EXPECT_EQ(test, mro_pace_wake(1000, 50, 1), 1000ULL);
	KUNIT_EXPECT_EQ(test, mro_pace_wake(1000, 50, 0), 1000ULL);
	{
		u64 now = mro_pace_wake(1000, 50, 4);
		int sent = 0;

		for (next = 1000; now >= next && sent < 100; sent++)
			next = mro_pace_next(next, now, 50, 4 * 50);
		KUNIT_EXPECT_EQ(test, sent, 4);
		/* and the clock stays on the rate: the next is a gap away */
		KUNIT_EXPECT_EQ(test, next, now + 50);
	}
	/* the burst: bytes in full packets, capped by cwnd / div, >= 1 */
	KUNIT_EXPECT_EQ(test, mro_pace_burst(16384, 1024, 1000, 8), 16U);
	KUNIT_EXPECT_EQ(test, mro_pace_burst(16384, 1024, 17, 8), 2U);
	KUNIT_EXPECT_EQ(test, mro_pace_burst(16384, 4096, 64, 8), 4U);
	KUNIT_EXPECT_EQ(test, mro_pace_burst(16384, 1024, 17, 0), 16U);
	KUNIT_EXPECT_EQ(test, mro_pace_burst(16384, 1024, 7, 8), 1U);
	KUNIT_EXPECT_EQ(test, mro_pace_burst(16384, 1024, 0, 8), 1U);
	KUNIT_EXPECT_EQ(test, mro_pace_burst(1, 4096, 1000, 8), 1U);
	KUNIT_EXPECT_EQ(test, mro_pace_burst(16384, 0, 1000, 0), 16384U);
	KUNIT_EXPECT_EQ(test, mro_pace_burst(U32_MAX, 1, U32_MAX, 1),
			U32_MAX);
	/* dual: rate follows cwnd and srtt */
	{
		struct mro_cc cc;

		mro_cc_init(&cc, &mro_cc_dual, &cc_params, &dual_params);
		KUNIT_EXPECT_EQ(test, cc.ops->pacing_rate(&cc, 1024), 0ULL);
		cc.srtt_us = 1000;
		KUNIT_EXPECT_EQ(test, cc.ops->pacing_rate(&cc, 1024),
				mro_pace_rate(MRO_CC_INIT_CWND, 1024, 1000,
					      200));
	}
}

static struct kunit_case metaroce_cc_cases[] = {
	KUNIT_CASE(cc_slow_start_then_ai),
	KUNIT_CASE(cc_ecn_once_per_rtt),
	KUNIT_CASE(cc_delay_decrease),
	KUNIT_CASE(cc_noisy_rtt),
	KUNIT_CASE(cc_delay_not_ours),
	KUNIT_CASE(cc_path_delay),
	KUNIT_CASE(cc_rev_queue),
	KUNIT_CASE(cc_target_and_pipe),
	KUNIT_CASE(cc_loss_is_not_congestion),
	KUNIT_CASE(cc_loss_with_standing_queue),
	KUNIT_CASE(cc_timeouts_collapse_and_regrow),
	KUNIT_CASE(cc_spurious_timeout_undo),
	KUNIT_CASE(cc_clamps_and_hostile_samples),
	KUNIT_CASE(cc_off_is_fixed),
	KUNIT_CASE(cc_registry),
	KUNIT_CASE(cc_get_info),
	KUNIT_CASE(cc_feedback_validation),
	KUNIT_CASE(cc_minrtt_window),
	KUNIT_CASE(credit_no_leak_with_lost_acks),
	KUNIT_CASE(credit_shares_across_senders),
	KUNIT_CASE(credit_pool_counts_speculation),
	KUNIT_CASE(credit_hostile_grants),
	KUNIT_CASE(pacing_arithmetic),
	{}
};

static struct kunit_suite metaroce_cc_suite = {
	.name = "metaroce_cc",
	.test_cases = metaroce_cc_cases,
};

kunit_test_suite(metaroce_cc_suite);
