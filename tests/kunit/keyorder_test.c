// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the responder's key fences (mro_keyorder.h): a
 * SEND_WITH_INV's invalidation runs only when every earlier PSN has been
 * placed, a packet of a later PSN naming the key waits for it, and a
 * resent packet of an earlier PSN still finds the key valid.  The receive
 * window is the driver's own (mro_rxwin), driven as the responder drives
 * it.
 */
#include <kunit/test.h>
#include <linux/errno.h>

#include "mro_keyorder.h"
#include "mro_psn.h"
#include "mro_rxwin.h"

#define KEY_A	0x00001234U
#define KEY_B	0x00005678U

/*
 * An NVMe-oF read: WRITEs at PSNs 10..13 into the host's MR (KEY_A), the
 * response SEND_WITH_INV at 14.  13 and 14 arrive, 12 is lost and resent
 * after the SEND_WITH_INV: the resend must still be accepted, and the key
 * invalidated only once 12 is in.
 */
static void keyorder_resend_before_fence(struct kunit *test)
{
	struct mro_keyorder ko;
	struct mro_key_fence f;
	struct mro_rxwin w;

	mro_keyorder_init(&ko);
	KUNIT_ASSERT_EQ(test, mro_rxwin_init(&w, 64, 10, GFP_KERNEL), 0);
	mro_rxwin_mark(&w, 10);
	mro_rxwin_mark(&w, 11);
	mro_rxwin_mark(&w, 13);
	/* the SEND_WITH_INV is complete: a fence, not an invalidation */
	KUNIT_EXPECT_EQ(test, mro_keyorder_add(&ko, 14, KEY_A, 3), 0);
	mro_rxwin_mark(&w, 14);
	KUNIT_EXPECT_EQ(test, w.base, 12U);
	KUNIT_EXPECT_FALSE(test, mro_keyorder_pop_due(&ko, w.base, &f));
	/* the resent WRITE at 12 precedes the fence: accepted */
	KUNIT_EXPECT_FALSE(test, mro_keyorder_holds(&ko, 12, KEY_A));
	mro_rxwin_mark(&w, 12);
	KUNIT_EXPECT_EQ(test, w.base, 15U);
	/* now every PSN before 15 is in: the invalidation is due, once */
	KUNIT_ASSERT_TRUE(test, mro_keyorder_pop_due(&ko, w.base, &f));
	KUNIT_EXPECT_EQ(test, f.key, KEY_A);
	KUNIT_EXPECT_EQ(test, f.psn, 14U);
	KUNIT_EXPECT_EQ(test, f.msn, 3U);
	KUNIT_EXPECT_FALSE(test, mro_keyorder_pop_due(&ko, w.base, &f));
	mro_rxwin_free(&w);
}

/*
 * A packet after the fence that names the key waits; one naming another
 * key does not; a READ or atomic executed at the base sees the fence run
 * first (the responder pops what is due before executing at the base).
 */
static void keyorder_later_packet_waits(struct kunit *test)
{
	struct mro_keyorder ko;
	struct mro_key_fence f;

	mro_keyorder_init(&ko);
	KUNIT_ASSERT_EQ(test, mro_keyorder_add(&ko, 20, KEY_A, 1), 0);
	KUNIT_EXPECT_TRUE(test, mro_keyorder_holds(&ko, 21, KEY_A));
	KUNIT_EXPECT_TRUE(test, mro_keyorder_holds(&ko, 40, KEY_A));
	KUNIT_EXPECT_FALSE(test, mro_keyorder_holds(&ko, 21, KEY_B));
	KUNIT_EXPECT_FALSE(test, mro_keyorder_holds(&ko, 20, KEY_A));
	KUNIT_EXPECT_FALSE(test, mro_keyorder_holds(&ko, 19, KEY_A));
	/* a READ at 21, the base: the fence at 20 is due before it runs */
	KUNIT_EXPECT_FALSE(test, mro_keyorder_pop_due(&ko, 20, &f));
	KUNIT_ASSERT_TRUE(test, mro_keyorder_pop_due(&ko, 21, &f));
	KUNIT_EXPECT_EQ(test, f.psn, 20U);
	KUNIT_EXPECT_FALSE(test, mro_keyorder_holds(&ko, 21, KEY_A));
	KUNIT_EXPECT_EQ(test, ko.n, 0U);
}

/* several fences due at once come out oldest first, across the PSN wrap */
static void keyorder_order_and_wrap(struct kunit *test)
{
	struct mro_keyorder ko;
	struct mro_key_fence f;

	mro_keyorder_init(&ko);
	KUNIT_ASSERT_EQ(test, mro_keyorder_add(&ko, 2, KEY_B, 9), 0);
	KUNIT_ASSERT_EQ(test, mro_keyorder_add(&ko, 0xfffffffeU, KEY_A, 7), 0);
	KUNIT_ASSERT_EQ(test, mro_keyorder_add(&ko, 0, KEY_A, 8), 0);
	/* a packet at 1 waits for the fence at 0xfffffffe, before the wrap */
	KUNIT_EXPECT_TRUE(test, mro_keyorder_holds(&ko, 1, KEY_A));
	KUNIT_EXPECT_FALSE(test, mro_keyorder_holds(&ko, 1, KEY_B));
	KUNIT_ASSERT_TRUE(test, mro_keyorder_pop_due(&ko, 3, &f));
	KUNIT_EXPECT_EQ(test, f.msn, 7U);
	KUNIT_ASSERT_TRUE(test, mro_keyorder_pop_due(&ko, 3, &f));
	KUNIT_EXPECT_EQ(test, f.msn, 8U);
	KUNIT_ASSERT_TRUE(test, mro_keyorder_pop_due(&ko, 3, &f));
	KUNIT_EXPECT_EQ(test, f.msn, 9U);
	KUNIT_EXPECT_FALSE(test, mro_keyorder_pop_due(&ko, 3, &f));
}

/* a full table refuses (the responder then does not accept the packet) */
static void keyorder_full_and_duplicate(struct kunit *test)
{
	struct mro_keyorder ko;
	struct mro_key_fence f;
	u32 i;

	mro_keyorder_init(&ko);
	for (i = 0; i < MRO_KEYORDER_MAX; i++)
		KUNIT_ASSERT_EQ(test, mro_keyorder_add(&ko, 100 + i, i, i), 0);
	KUNIT_EXPECT_TRUE(test, mro_keyorder_full(&ko));
	KUNIT_EXPECT_EQ(test, mro_keyorder_add(&ko, 500, 1, 1), -ENOSPC);
	KUNIT_EXPECT_EQ(test, mro_keyorder_add(&ko, 100, 1, 1), -EEXIST);
	KUNIT_ASSERT_TRUE(test, mro_keyorder_pop_due(&ko, 101, &f));
	KUNIT_EXPECT_EQ(test, f.psn, 100U);
	KUNIT_EXPECT_FALSE(test, mro_keyorder_full(&ko));
	KUNIT_EXPECT_EQ(test, mro_keyorder_add(&ko, 500, 1, 1), 0);
}

static struct kunit_case metaroce_keyorder_cases[] = {
	KUNIT_CASE(keyorder_resend_before_fence),
	KUNIT_CASE(keyorder_later_packet_waits),
	KUNIT_CASE(keyorder_order_and_wrap),
	KUNIT_CASE(keyorder_full_and_duplicate),
	{}
};

static struct kunit_suite metaroce_keyorder_suite = {
	.name = "metaroce_keyorder",
	.test_cases = metaroce_keyorder_cases,
};

kunit_test_suite(metaroce_keyorder_suite);
