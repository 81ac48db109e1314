// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of metaroce's transport building blocks: PSN arithmetic with
 * wrap-around (mro_psn.h), the receive window that drives out-of-order
 * placement, duplicate detection, the cumulative ACK and the SACK bitmap
 * (mro_rxwin.c), and the path set with its round-robin scheduler
 * (mro_path.c).
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "mro_path.h"
#include "mro_psn.h"
#include "mro_rxwin.h"

static void psn_wrap(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, mro_seq_before(0xfffffffeU, 1));
	KUNIT_EXPECT_TRUE(test, mro_seq_after(1, 0xfffffffeU));
	KUNIT_EXPECT_EQ(test, mro_seq_diff(2, 0xffffffffU), 3);
	KUNIT_EXPECT_EQ(test, mro_seq_diff(0xffffffffU, 2), -3);
	KUNIT_EXPECT_FALSE(test, mro_seq_before(5, 5));
	KUNIT_EXPECT_TRUE(test, mro_seq_before_eq(5, 5));
	KUNIT_EXPECT_TRUE(test, mro_seq_in(0, 0xfffffff0U, 32));
	KUNIT_EXPECT_TRUE(test, mro_seq_in(0x0f, 0xfffffff0U, 32));
	KUNIT_EXPECT_FALSE(test, mro_seq_in(0x10, 0xfffffff0U, 32));
	KUNIT_EXPECT_FALSE(test, mro_seq_in(0xffffffefU, 0xfffffff0U, 32));
	KUNIT_EXPECT_EQ(test, mro_seq_max(0xfffffff0U, 3), 3U);
	KUNIT_EXPECT_EQ(test, mro_seq_max(3, 0xfffffff0U), 3U);
}

/* silly-window avoidance: a closed window reopens only 1/8 free */
static void send_window(struct kunit *test)
{
	bool closed = false;

	/* open window: anything that fits goes */
	KUNIT_EXPECT_FALSE(test, mro_win_wait(0, 512, 1, 512 / 8, &closed));
	KUNIT_EXPECT_FALSE(test, mro_win_wait(511, 512, 1, 512 / 8, &closed));
	KUNIT_EXPECT_FALSE(test, closed);
	/* full: closes */
	KUNIT_EXPECT_TRUE(test, mro_win_wait(512, 512, 1, 512 / 8, &closed));
	KUNIT_EXPECT_TRUE(test, closed);
	/* a few PSNs acknowledged do not reopen it */
	KUNIT_EXPECT_TRUE(test, mro_win_wait(511, 512, 1, 512 / 8, &closed));
	KUNIT_EXPECT_TRUE(test, mro_win_wait(449, 512, 1, 512 / 8, &closed));
	KUNIT_EXPECT_TRUE(test, closed);
	/* an eighth free does */
	KUNIT_EXPECT_FALSE(test, mro_win_wait(448, 512, 1, 512 / 8, &closed));
	KUNIT_EXPECT_FALSE(test, closed);
	/* and then it fills to the last PSN again */
	KUNIT_EXPECT_FALSE(test, mro_win_wait(511, 512, 1, 512 / 8, &closed));
	/* a request larger than an eighth waits for its own room */
	KUNIT_EXPECT_TRUE(test, mro_win_wait(500, 512, 100, 512 / 8, &closed));
	KUNIT_EXPECT_TRUE(test, mro_win_wait(413, 512, 100, 512 / 8, &closed));
	KUNIT_EXPECT_FALSE(test, mro_win_wait(412, 512, 100, 512 / 8, &closed));
	/* an empty pipe always sends what fits */
	closed = true;
	KUNIT_EXPECT_FALSE(test, mro_win_wait(0, 64, 1, 8, &closed));
	/* more out than the window (a shrunk window) waits, no underflow */
	KUNIT_EXPECT_TRUE(test, mro_win_wait(600, 512, 1, 512 / 8, &closed));
	/* without a reopen share: the old rule, any room reopens */
	closed = true;
	KUNIT_EXPECT_FALSE(test, mro_win_wait(511, 512, 1, 0, &closed));
}

static void rxwin_in_order(struct kunit *test)
{
	struct mro_rxwin w;
	u32 i;

	KUNIT_ASSERT_EQ(test, mro_rxwin_init(&w, 64, 100, GFP_KERNEL), 0);
	for (i = 100; i < 200; i++) {
		KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, i), MRO_RX_NEW);
		KUNIT_EXPECT_EQ(test, mro_rxwin_mark(&w, i), 1U);
		KUNIT_EXPECT_FALSE(test, mro_rxwin_has_hole(&w));
	}
	KUNIT_EXPECT_EQ(test, w.base, 200U);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 150), MRO_RX_DUP);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 199), MRO_RX_DUP);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 263), MRO_RX_NEW);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 264), MRO_RX_AHEAD);
	mro_rxwin_free(&w);
}

/* far behind base is not a duplicate: nothing a sender could still resend */
static void rxwin_stale(struct kunit *test)
{
	struct mro_rxwin w;
	u32 base = 0x00008000U;	/* the span reaches across zero */

	KUNIT_ASSERT_EQ(test, mro_rxwin_init(&w, 512, base, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, base - 1), MRO_RX_DUP);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, base - MRO_RX_DUP_SPAN),
			MRO_RX_DUP);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, base - MRO_RX_DUP_SPAN - 1),
			MRO_RX_AHEAD);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, base + 0x80000000U),
			MRO_RX_AHEAD);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, base - 0x7fffffffU),
			MRO_RX_AHEAD);
	/* a stale PSN marks nothing and moves nothing */
	KUNIT_EXPECT_EQ(test, mro_rxwin_mark(&w, base - MRO_RX_DUP_SPAN - 5), 0U);
	KUNIT_EXPECT_EQ(test, w.base, base);
	KUNIT_EXPECT_FALSE(test, mro_rxwin_has_hole(&w));
	mro_rxwin_free(&w);
}

/* a hole, packets beyond it, then the hole filled: base jumps over all */
/*
 * The receiver acknowledges at once a packet that opens a hole or fills
 * one, not the packets in order past a hole (they keep the ACK rhythm).
 */
static void rxwin_ack_now(struct kunit *test)
{
	struct mro_rxwin w;
	u32 psn;

	KUNIT_ASSERT_EQ(test, mro_rxwin_init(&w, 256, 0xfffffff0U, GFP_KERNEL), 0);
	/* in order, across the PSN wrap: never at once */
	for (psn = 0xfffffff0U; psn != 8; psn++) {
		KUNIT_EXPECT_FALSE(test, mro_rxwin_ack_now(&w, psn));
		mro_rxwin_mark(&w, psn);
	}
	/* 8 lost: 9 opens the hole */
	KUNIT_EXPECT_TRUE(test, mro_rxwin_ack_now(&w, 9));
	mro_rxwin_mark(&w, 9);
	/* 10..40 in order past the hole: none at once */
	for (psn = 10; psn <= 40; psn++) {
		KUNIT_EXPECT_FALSE(test, mro_rxwin_ack_now(&w, psn));
		mro_rxwin_mark(&w, psn);
	}
	/* 42 skips 41: a second hole, at once */
	KUNIT_EXPECT_TRUE(test, mro_rxwin_ack_now(&w, 42));
	mro_rxwin_mark(&w, 42);
	KUNIT_EXPECT_FALSE(test, mro_rxwin_ack_now(&w, 43));
	mro_rxwin_mark(&w, 43);
	/* the resend of 41 fills the later hole; of 8, the first */
	KUNIT_EXPECT_TRUE(test, mro_rxwin_ack_now(&w, 41));
	mro_rxwin_mark(&w, 41);
	KUNIT_EXPECT_TRUE(test, mro_rxwin_ack_now(&w, 8));
	mro_rxwin_mark(&w, 8);
	KUNIT_EXPECT_FALSE(test, mro_rxwin_has_hole(&w));
	KUNIT_EXPECT_EQ(test, w.base, 44U);
	/* whole again: the next in order is not at once, a jump is */
	KUNIT_EXPECT_FALSE(test, mro_rxwin_ack_now(&w, 44));
	KUNIT_EXPECT_TRUE(test, mro_rxwin_ack_now(&w, 45));
	mro_rxwin_free(&w);
}

/* a PROBE is answered in the window or up to a window behind its base */
static void rxwin_probe_psn(struct kunit *test)
{
	struct mro_rxwin w;
	u32 base = 5;	/* the window [5, 261) straddles the PSN wrap behind */

	KUNIT_ASSERT_EQ(test, mro_rxwin_init(&w, 256, base, GFP_KERNEL), 0);
	/* the sender's next PSN: from the base to size past it */
	KUNIT_EXPECT_TRUE(test, mro_rxwin_probe_ok(&w, base));
	KUNIT_EXPECT_TRUE(test, mro_rxwin_probe_ok(&w, base + 256));
	KUNIT_EXPECT_FALSE(test, mro_rxwin_probe_ok(&w, base + 257));
	/* overtaken by later data: behind the base, across the wrap */
	KUNIT_EXPECT_TRUE(test, mro_rxwin_probe_ok(&w, base - 1));
	KUNIT_EXPECT_TRUE(test, mro_rxwin_probe_ok(&w, base - 256));
	KUNIT_EXPECT_FALSE(test, mro_rxwin_probe_ok(&w, base - 257));
	KUNIT_EXPECT_FALSE(test, mro_rxwin_probe_ok(&w, base + 0x80000000U));
	mro_rxwin_free(&w);
}

static void rxwin_out_of_order(struct kunit *test)
{
	u64 sack[METAROCE_SACK_WORDS];
	struct mro_rxwin w;
	u16 nbits;

	KUNIT_ASSERT_EQ(test, mro_rxwin_init(&w, 256, 0, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, mro_rxwin_mark(&w, 2), 0U);
	KUNIT_EXPECT_EQ(test, mro_rxwin_mark(&w, 4), 0U);
	KUNIT_EXPECT_EQ(test, mro_rxwin_mark(&w, 70), 0U);
	KUNIT_EXPECT_TRUE(test, mro_rxwin_has_hole(&w));
	KUNIT_EXPECT_EQ(test, w.base, 0U);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 4), MRO_RX_DUP);
	KUNIT_EXPECT_EQ(test, mro_rxwin_mark(&w, 4), 0U);	/* dup: no-op */

	/* bit i is PSN base + 1 + i */
	mro_rxwin_sack(&w, sack, &nbits);
	KUNIT_EXPECT_EQ(test, nbits, 70);
	KUNIT_EXPECT_EQ(test, sack[0], BIT_ULL(1) | BIT_ULL(3));
	KUNIT_EXPECT_EQ(test, sack[1], BIT_ULL(69 - 64));

	KUNIT_EXPECT_EQ(test, mro_rxwin_mark(&w, 0), 1U);
	KUNIT_EXPECT_EQ(test, mro_rxwin_mark(&w, 1), 2U);	/* 1, 2 */
	KUNIT_EXPECT_EQ(test, w.base, 3U);
	KUNIT_EXPECT_EQ(test, mro_rxwin_mark(&w, 3), 2U);	/* 3, 4 */
	KUNIT_EXPECT_EQ(test, w.base, 5U);
	mro_rxwin_sack(&w, sack, &nbits);
	KUNIT_EXPECT_EQ(test, nbits, 65);	/* 6..70 */
	KUNIT_EXPECT_EQ(test, sack[0], 0ULL);
	KUNIT_EXPECT_EQ(test, sack[1], BIT_ULL(0));
	mro_rxwin_free(&w);
}

/* the window straddles 2^32 */
static void rxwin_wrap(struct kunit *test)
{
	u64 sack[METAROCE_SACK_WORDS];
	struct mro_rxwin w;
	u16 nbits;
	u32 i;

	KUNIT_ASSERT_EQ(test, mro_rxwin_init(&w, 64, 0xfffffffcU, GFP_KERNEL),
			0);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 0xfffffffbU), MRO_RX_DUP);
	KUNIT_EXPECT_EQ(test, mro_rxwin_mark(&w, 1), 0U);
	mro_rxwin_sack(&w, sack, &nbits);
	KUNIT_EXPECT_EQ(test, nbits, 5);	/* fffffffd..1 */
	KUNIT_EXPECT_EQ(test, sack[0], BIT_ULL(4));
	for (i = 0xfffffffcU; i != 1; i++)
		mro_rxwin_mark(&w, i);
	KUNIT_EXPECT_EQ(test, w.base, 2U);
	KUNIT_EXPECT_FALSE(test, mro_rxwin_has_hole(&w));
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 0xffffffffU), MRO_RX_DUP);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 65), MRO_RX_NEW);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 66), MRO_RX_AHEAD);
	mro_rxwin_free(&w);
}

/* hostile PSNs: far ahead, far behind, the reuse of ring bits */
static void rxwin_adversarial(struct kunit *test)
{
	struct mro_rxwin w;

	KUNIT_EXPECT_NE(test, mro_rxwin_init(&w, 48, 0, GFP_KERNEL), 0);
	KUNIT_EXPECT_NE(test, mro_rxwin_init(&w, 32, 0, GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, mro_rxwin_init(&w, 64, 1000, GFP_KERNEL), 0);
	/* half the PSN space away: neither trackable nor a duplicate */
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 1000 + 0x80000000U),
			MRO_RX_AHEAD);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 1000 + 64), MRO_RX_AHEAD);
	KUNIT_EXPECT_EQ(test, mro_rxwin_mark(&w, 1000 + 64), 0U);
	KUNIT_EXPECT_FALSE(test, mro_rxwin_has_hole(&w));
	/* PSN 1000 + 64 shares a bit with 1000: it must not count as 1000 */
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 1000), MRO_RX_NEW);
	mro_rxwin_mark(&w, 1063);
	mro_rxwin_mark(&w, 1000);
	KUNIT_EXPECT_EQ(test, w.base, 1001U);
	/* 1063's bit is still set, 1064 (same bit as 1000) is not yet seen */
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 1063), MRO_RX_DUP);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 1064), MRO_RX_NEW);
	mro_rxwin_reset(&w, 7);
	KUNIT_EXPECT_EQ(test, w.base, 7U);
	KUNIT_EXPECT_EQ(test, mro_rxwin_classify(&w, 1063), MRO_RX_AHEAD);
	KUNIT_EXPECT_FALSE(test, mro_rxwin_has_hole(&w));
	mro_rxwin_free(&w);
}

static void paths_rr(struct kunit *test)
{
	struct mro_pathset ps;
	u32 seq, counts[8] = {};
	u16 i, j, p;

	KUNIT_EXPECT_NE(test, mro_paths_init(&ps, 0, 1, GFP_KERNEL), 0);
	KUNIT_EXPECT_NE(test, mro_paths_init(&ps, MRO_MAX_PATHS + 1, 1,
					     GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 0x1234, GFP_KERNEL), 0);
	for (i = 0; i < 8; i++) {
		KUNIT_EXPECT_GE(test, ps.path[i].sport, MRO_SPORT_BASE);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, ps.path[i].sport,
					ps.path[j].sport);
	}
	for (i = 0; i < 80; i++) {
		p = mro_path_pick(&ps, &seq);
		KUNIT_ASSERT_LT(test, p, 8);
		KUNIT_EXPECT_EQ(test, seq, counts[p]);	/* per-path sequence */
		counts[p]++;
	}
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, counts[i], 10U);

	/* a retired path is skipped while others are active */
	ps.path[3].state = MRO_PATH_RETIRED;
	for (i = 0; i < 70; i++)
		KUNIT_EXPECT_NE(test, mro_path_pick(&ps, &seq), 3);
	for (i = 0; i < 8; i++)
		ps.path[i].state = MRO_PATH_RETIRED;
	p = mro_path_pick(&ps, &seq);
	KUNIT_EXPECT_LT(test, p, 8);	/* all retired: still sends */
	mro_paths_free(&ps);
}

/* every seed gives distinct ports even when the hash collides */
static void paths_unique_ports(struct kunit *test)
{
	struct mro_pathset ps;
	u32 seed;
	u16 i, j;

	for (seed = 0; seed < 2000; seed += 37) {
		KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, MRO_MAX_PATHS, seed,
						     GFP_KERNEL), 0);
		for (i = 0; i < MRO_MAX_PATHS; i++)
			for (j = 0; j < i; j++)
				KUNIT_EXPECT_NE(test, ps.path[i].sport,
						ps.path[j].sport);
		mro_paths_free(&ps);
	}
}

static void paths_rtt(struct kunit *test)
{
	struct mro_pathset ps;

	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 2, 7, GFP_KERNEL), 0);
	mro_path_rtt(&ps, 1, 800);
	KUNIT_EXPECT_EQ(test, ps.path[1].srtt_us, 800U);
	KUNIT_EXPECT_EQ(test, ps.path[1].rttvar_us, 400U);
	KUNIT_EXPECT_EQ(test, ps.path[1].min_rtt_us, 800U);
	mro_path_rtt(&ps, 1, 1600);
	/* srtt += (1600 - 800) / 8, rttvar = 3/4 * 400 + 800 / 4 */
	KUNIT_EXPECT_EQ(test, ps.path[1].srtt_us, 900U);
	KUNIT_EXPECT_EQ(test, ps.path[1].rttvar_us, 500U);
	mro_path_rtt(&ps, 1, 100);
	KUNIT_EXPECT_EQ(test, ps.path[1].min_rtt_us, 100U);
	KUNIT_EXPECT_EQ(test, ps.path[0].srtt_us, 0U);
	mro_path_sent(&ps, 0, 1000, false);
	mro_path_sent(&ps, 0, 500, true);
	KUNIT_EXPECT_EQ(test, ps.path[0].tx_pkts, 2ULL);
	KUNIT_EXPECT_EQ(test, ps.path[0].tx_bytes, 1500ULL);
	KUNIT_EXPECT_EQ(test, ps.path[0].retx, 1ULL);
	mro_paths_free(&ps);
}

static struct kunit_case metaroce_transport_cases[] = {
	KUNIT_CASE(psn_wrap),
	KUNIT_CASE(send_window),
	KUNIT_CASE(rxwin_in_order),
	KUNIT_CASE(rxwin_stale),
	KUNIT_CASE(rxwin_ack_now),
	KUNIT_CASE(rxwin_probe_psn),
	KUNIT_CASE(rxwin_out_of_order),
	KUNIT_CASE(rxwin_wrap),
	KUNIT_CASE(rxwin_adversarial),
	KUNIT_CASE(paths_rr),
	KUNIT_CASE(paths_unique_ports),
	KUNIT_CASE(paths_rtt),
	{}
};

static struct kunit_suite metaroce_transport_suite = {
	.name = "metaroce_transport",
	.test_cases = metaroce_transport_cases,
};

kunit_test_suite(metaroce_transport_suite);
