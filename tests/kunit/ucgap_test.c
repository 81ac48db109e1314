// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the UC loss rules: giving up PSNs in the receive window
 * (mro_rxwin_skip), the reordering allowance that decides when
 * (mro_uc_floor), and the ring rotation that hands a dropped message's
 * receive WQE to the next message (mro_ring_rotate_left).
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "mro_psn.h"
#include "mro_rxwin.h"
#include "mro_ucgap.h"

/* a hole at 2 with 3..5 in: giving up 2 slides the base over 3..5 */
static void uc_skip_hole(struct kunit *test)
{
	struct mro_rxwin w;

	KUNIT_ASSERT_EQ(test, mro_rxwin_init(&w, 64, 0, GFP_KERNEL), 0);
	mro_rxwin_mark(&w, 0);
	mro_rxwin_mark(&w, 1);
	mro_rxwin_mark(&w, 3);
	mro_rxwin_mark(&w, 4);
	mro_rxwin_mark(&w, 5);
	mro_rxwin_mark(&w, 8);
	KUNIT_EXPECT_EQ(test, w.base, 2U);
	KUNIT_EXPECT_EQ(test, mro_rxwin_skip(&w, 3), 1U);
	KUNIT_EXPECT_EQ(test, w.base, 6U);
	KUNIT_EXPECT_TRUE(test, mro_rxwin_has_hole(&w));
	/* 6, 7 missing, 8 in: skipping to 8 gives up two, base 9 */
	KUNIT_EXPECT_EQ(test, mro_rxwin_skip(&w, 8), 2U);
	KUNIT_EXPECT_EQ(test, w.base, 9U);
	KUNIT_EXPECT_FALSE(test, mro_rxwin_has_hole(&w));
	/* given-up and received PSNs are duplicates now */
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 2), MRO_RX_DUP);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 7), MRO_RX_DUP);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 9), MRO_RX_NEW);
	/* not after the base: nothing happens */
	KUNIT_EXPECT_EQ(test, mro_rxwin_skip(&w, 9), 0U);
	KUNIT_EXPECT_EQ(test, mro_rxwin_skip(&w, 4), 0U);
	KUNIT_EXPECT_EQ(test, w.base, 9U);
	mro_rxwin_free(&w);
}

/* far beyond the window, across the PSN wrap; bits are clean afterwards */
static void uc_skip_far_wrap(struct kunit *test)
{
	struct mro_rxwin w;
	u32 i;

	KUNIT_ASSERT_EQ(test, mro_rxwin_init(&w, 64, 0xfffffff0U, GFP_KERNEL),
			0);
	mro_rxwin_mark(&w, 0xfffffff5U);
	mro_rxwin_mark(&w, 0xfffffff6U);
	/* 1000 PSNs ahead: 998 of them never arrived */
	KUNIT_EXPECT_EQ(test, mro_rxwin_skip(&w, 0xfffffff0U + 1000), 998U);
	KUNIT_EXPECT_EQ(test, w.base, 0xfffffff0U + 1000);
	KUNIT_EXPECT_EQ(test, w.highest, w.base);
	for (i = 0; i < 64; i++)
		KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, w.base + i),
				MRO_RX_NEW);
	KUNIT_EXPECT_EQ(test, mro_rxwin_mark(&w, w.base), 1U);
	mro_rxwin_free(&w);
}

static void uc_floor(struct kunit *test)
{
	/* within the allowance: the base stays */
	KUNIT_EXPECT_EQ(test, mro_uc_floor(100, 100, 256), 100U);
	KUNIT_EXPECT_EQ(test, mro_uc_floor(100, 355, 256), 100U);
	/* beyond: the packet becomes the newest the allowance covers */
	KUNIT_EXPECT_EQ(test, mro_uc_floor(100, 356, 256), 101U);
	KUNIT_EXPECT_EQ(test, mro_uc_floor(100, 10000, 256), 10000U - 255);
	/* behind the base (a late duplicate): never moves back */
	KUNIT_EXPECT_EQ(test, mro_uc_floor(100, 50, 256), 100U);
	/* wrap */
	KUNIT_EXPECT_EQ(test, mro_uc_floor(0xffffff00U, 0x100, 256),
			0x100U - 255);
	KUNIT_EXPECT_EQ(test, mro_uc_floor(0xffffff00U, 0xff, 512),
			0xffffff00U);
	/* a zero allowance acts as one */
	KUNIT_EXPECT_EQ(test, mro_uc_floor(5, 9, 0), 9U);
}

/* 8 slots of 16 bytes; rotating wraps around the ring end */
static void uc_ring_rotate(struct kunit *test)
{
	u64 ring[8][2];
	u32 i;

	for (i = 0; i < 8; i++) {
		ring[i][0] = i;
		ring[i][1] = 100 + i;
	}
	/* slots 6, 7, 0, 1: 6 goes last, the others move up by one */
	mro_ring_rotate_left(ring, 4, 7, 6, 3);
	KUNIT_EXPECT_EQ(test, ring[6][0], 7ULL);
	KUNIT_EXPECT_EQ(test, ring[7][0], 0ULL);
	KUNIT_EXPECT_EQ(test, ring[0][0], 1ULL);
	KUNIT_EXPECT_EQ(test, ring[1][0], 6ULL);
	KUNIT_EXPECT_EQ(test, ring[1][1], 106ULL);
	KUNIT_EXPECT_EQ(test, ring[0][1], 101ULL);
	/* untouched */
	for (i = 2; i < 6; i++)
		KUNIT_EXPECT_EQ(test, ring[i][0], (u64)i);
	/* n = 0 is a no-op; n is capped to the ring */
	mro_ring_rotate_left(ring, 4, 7, 2, 0);
	KUNIT_EXPECT_EQ(test, ring[2][0], 2ULL);
	mro_ring_rotate_left(ring, 4, 7, 0, 1000);
	KUNIT_EXPECT_EQ(test, ring[7][0], 1ULL);
	KUNIT_EXPECT_EQ(test, ring[0][0], 6ULL);
}

static struct kunit_case metaroce_ucgap_cases[] = {
	KUNIT_CASE(uc_skip_hole),
	KUNIT_CASE(uc_skip_far_wrap),
	KUNIT_CASE(uc_floor),
	KUNIT_CASE(uc_ring_rotate),
	{}
};

static struct kunit_suite metaroce_ucgap_suite = {
	.name = "metaroce_ucgap",
	.test_cases = metaroce_ucgap_cases,
};

kunit_test_suite(metaroce_ucgap_suite);
