// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of metaroce's "swift" congestion control (mro_cc_swift.c):
 * the flow-scaled delay target and the delay cut as plain functions, then
 * the law through its ops: additive increase below the target, one cut
 * per round trip above it, loss and timeouts, undo, telemetry, and that
 * the registry takes it (state and parameters fit the fixed areas).
 */
#include <kunit/test.h>
#include <linux/limits.h>

#include "mro_cc.h"
#include "mro_cc_algos.h"

static const struct mro_cc_params swift_cc_params = {
	.min_cwnd = 2,
	.max_cwnd = 1000,
	.pace_gain_pct = 200,
};

/* target 1000 us, flow scaling 4000 us at one packet, none from 256 */
static void swift_target_flow_scaling(struct kunit *test)
{
	u32 c, prev = U32_MAX;

	KUNIT_EXPECT_EQ(test, mro_swift_target(1000, 4000, 256, 1), 5000U);
	KUNIT_EXPECT_EQ(test, mro_swift_target(1000, 4000, 256, 0), 5000U);
	/* 1/sqrt: 1/8 at 64 against 1/16 at 256: (8192 - 4096) / 61440 */
	KUNIT_EXPECT_EQ(test, mro_swift_target(1000, 4000, 256, 64),
			1000U + 4000 * 4096 / 61440);
	KUNIT_EXPECT_EQ(test, mro_swift_target(1000, 4000, 256, 256), 1000U);
	KUNIT_EXPECT_EQ(test, mro_swift_target(1000, 4000, 256, U32_MAX),
			1000U);
	/* never rises with the window, never leaves [base, base + range] */
	for (c = 1; c <= 300; c++) {
		u32 t = mro_swift_target(1000, 4000, 256, c);

		KUNIT_EXPECT_LE(test, t, prev);
		KUNIT_EXPECT_GE(test, t, 1000U);
		KUNIT_EXPECT_LE(test, t, 5000U);
		prev = t;
	}
	/* no scaling: a range of 0, or a scaling window of one */
	KUNIT_EXPECT_EQ(test, mro_swift_target(1000, 0, 256, 1), 1000U);
	KUNIT_EXPECT_EQ(test, mro_swift_target(1000, 4000, 1, 1), 1000U);
	/* saturates */
	KUNIT_EXPECT_EQ(test, mro_swift_target(1000, U32_MAX, 16384, 1),
			U32_MAX);
}

/* the cut: beta * (d - t) / d of the window, at most max_mdf */
static void swift_cut_law(struct kunit *test)
{
	const u32 w = 100 << MRO_CC_FP_SHIFT;

	/* d = 2 t: 0.8 * 1/2 = 40 % (409 / 1024) */
	KUNIT_EXPECT_EQ(test, mro_swift_cut(w, 1000, 500, 80, 50),
			w - w * 409 / 1024);
	/* at or below the target: no cut */
	KUNIT_EXPECT_EQ(test, mro_swift_cut(w, 500, 500, 80, 50), w);
	KUNIT_EXPECT_EQ(test, mro_swift_cut(w, 0, 500, 80, 50), w);
	/* far above: the cap */
	KUNIT_EXPECT_EQ(test, mro_swift_cut(w, 1000000, 500, 80, 50), w / 2);
	KUNIT_EXPECT_EQ(test, mro_swift_cut(w, U32_MAX, 0, 100, 100), 0U);
	/* no gain: no cut; hostile values stay bounded */
	KUNIT_EXPECT_EQ(test, mro_swift_cut(w, 1000, 500, 0, 50), w);
	KUNIT_EXPECT_EQ(test, mro_swift_cut(w, 1000, 500, 1000, 1000),
			w - w * 512 / 1024);
	KUNIT_EXPECT_EQ(test, mro_swift_cut(U32_MAX, U32_MAX, 0, 80, 50),
			U32_MAX - U32_MAX / 2);
}

static void swift_ack(struct mro_cc *cc, u32 now, u32 acked, u32 delay)
{
	struct mro_cc_sample s = {
		.now_us = now, .acked = acked, .rtt_us = 100 + delay,
		.delay_us = delay,
	};

	mro_cc_on_ack(cc, &s);
}

static void swift_setup(struct mro_cc *cc)
{
	mro_cc_init(cc, &mro_cc_swift, &swift_cc_params, mro_cc_swift.defaults);
	cc->srtt_us = 1000;
}

static void swift_law(struct kunit *test)
{
	struct mro_cc_info info;
	struct mro_cc cc;
	u32 i, w, t;

	swift_setup(&cc);
	KUNIT_EXPECT_EQ(test, mro_cc_pkts(&cc), (u32)MRO_CC_INIT_CWND);
	/* below the target: + ai (1) per window of ACKs */
	for (i = 0; i < 16; i++)
		swift_ack(&cc, 10 + i, 1, 100);
	KUNIT_EXPECT_EQ(test, mro_cc_pkts(&cc), 17U);
	KUNIT_EXPECT_EQ(test, cc.decreases, 0U);

	/* above it: one cut, by the law, then none for a round trip */
	w = cc.cwnd_fp;
	t = mro_swift_target(1000, 4000, 256, 17);
	swift_ack(&cc, 100, 1, 2 * t);
	KUNIT_EXPECT_EQ(test, cc.cwnd_fp, mro_swift_cut(w, 2 * t, t, 80, 50));
	KUNIT_EXPECT_EQ(test, cc.decreases, 1U);
	w = cc.cwnd_fp;
	swift_ack(&cc, 600, 1, 100 * t);
	KUNIT_EXPECT_EQ(test, cc.cwnd_fp, w);	/* held, not grown */
	swift_ack(&cc, 1100, 1, 100 * t);
	KUNIT_EXPECT_EQ(test, cc.decreases, 2U);
	KUNIT_EXPECT_GE(test, cc.cwnd_fp, w / 2);
	mro_cc_get_info(&cc, &info);
	KUNIT_EXPECT_EQ(test, info.delay_us, 100 * t);
	KUNIT_EXPECT_EQ(test, info.target_us,
			mro_swift_target(1000, 4000, 256, w >> MRO_CC_FP_SHIFT));

	/* a SACK loss: half, once per round trip */
	swift_setup(&cc);
	mro_cc_on_loss(&cc, 5000, 3);
	KUNIT_EXPECT_EQ(test, mro_cc_pkts(&cc), 8U);
	mro_cc_on_loss(&cc, 5500, 3);
	KUNIT_EXPECT_EQ(test, mro_cc_pkts(&cc), 8U);
	mro_cc_on_loss(&cc, 5000, 0);		/* nothing lost */
	KUNIT_EXPECT_EQ(test, cc.decreases, 1U);

	/* timeouts: cuts, the fifth in a row drops to min_cwnd */
	swift_setup(&cc);
	cc.cwnd_fp = 512 << MRO_CC_FP_SHIFT;
	for (i = 1; i < 5; i++)
		mro_cc_on_timeout(&cc, i * 2000);
	KUNIT_EXPECT_EQ(test, mro_cc_pkts(&cc), 512U >> 4);
	mro_cc_on_timeout(&cc, 10000);
	KUNIT_EXPECT_EQ(test, mro_cc_pkts(&cc), swift_cc_params.min_cwnd);
	/* ... spurious: the window from before the first comes back */
	KUNIT_EXPECT_TRUE(test, mro_cc_undo(&cc));
	KUNIT_EXPECT_EQ(test, mro_cc_pkts(&cc), 512U);
	/* progress resets the count */
	mro_cc_on_timeout(&cc, 20000);
	swift_ack(&cc, 20100, 1, 0);
	for (i = 0; i < 4; i++)
		mro_cc_on_timeout(&cc, 30000 + i * 2000);
	KUNIT_EXPECT_GT(test, mro_cc_pkts(&cc), swift_cc_params.min_cwnd);

	/* hostile samples: the window stays within its clamps */
	swift_setup(&cc);
	for (i = 0; i < 100; i++)
		swift_ack(&cc, i * 2000, U32_MAX, 0);
	KUNIT_EXPECT_EQ(test, mro_cc_pkts(&cc), swift_cc_params.max_cwnd);
	for (i = 0; i < 100; i++)
		swift_ack(&cc, 300000 + i * 2000, 0, U32_MAX);
	KUNIT_EXPECT_EQ(test, mro_cc_pkts(&cc), swift_cc_params.min_cwnd);
	KUNIT_EXPECT_NE(test, cc.ops->pacing_rate(&cc, 1024), 0ULL);
}

/* the registry takes it; with the driver built in it already has */
static void swift_registers(struct kunit *test)
{
	int err = mro_cc_register(&mro_cc_swift);

	KUNIT_EXPECT_TRUE(test, !err || err == -EEXIST);
	KUNIT_EXPECT_PTR_EQ(test, mro_cc_find("swift"), &mro_cc_swift);
	if (!err)
		mro_cc_unregister(&mro_cc_swift);
}

static struct kunit_case metaroce_cc_swift_cases[] = {
	KUNIT_CASE(swift_target_flow_scaling),
	KUNIT_CASE(swift_cut_law),
	KUNIT_CASE(swift_law),
	KUNIT_CASE(swift_registers),
	{}
};

static struct kunit_suite metaroce_cc_swift_suite = {
	.name = "metaroce_cc_swift",
	.test_cases = metaroce_cc_swift_cases,
};

kunit_test_suite(metaroce_cc_swift_suite);
