// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of metaroce's loss recovery building blocks: SACK
 * consumption and ACK bounds, per-path loss detection with the reordering
 * distance fallback and the resend guard (mro_loss.c), RTT, RTO, backoff
 * and tail-loss probe timeouts (mro_rto.c), path scoring, retirement,
 * re-probe and revival (mro_pathscore.c) and the retransmission path
 * choice (mro_path.c), with wrap-around and adversarial inputs.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "mro_loss.h"
#include "mro_psn.h"
#include "mro_path.h"
#include "mro_sched.h"
#include "mro_pathscore.h"
#include "mro_rto.h"

static void sack_next(struct kunit *test)
{
	u64 sack[METAROCE_SACK_WORDS] = {};

	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 128, 0), 128);
	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 0, 0), 0);
	sack[0] = BIT_ULL(0) | BIT_ULL(63);
	sack[1] = BIT_ULL(0) | BIT_ULL(63);
	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 128, 0), 0);
	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 128, 1), 63);
	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 128, 64), 64);
	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 128, 65), 127);
	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 128, 128), 128);
	/* bits at or beyond nbits do not count */
	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 127, 65), 127);
	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 64, 1), 63);
	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 63, 1), 63);
	/* adversarial bit counts are clamped to the bitmap */
	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 0xffff, 65), 127);
	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 0xffff, 128), 128);
	KUNIT_EXPECT_EQ(test, mro_sack_next(sack, 0xffff, 0xfff0), 128);
}

/* walking the SACK visits exactly the set bits, once each */
static void sack_walk(struct kunit *test)
{
	u64 sack[METAROCE_SACK_WORDS] = { 0xa5a5a5a5a5a5a5a5ULL,
					  0x8000000000000001ULL };
	u16 i, n = 0, want = hweight64(sack[0]) + hweight64(sack[1]);

	for (i = mro_sack_next(sack, 128, 0); i < 128;
	     i = mro_sack_next(sack, 128, i + 1)) {
		KUNIT_EXPECT_TRUE(test, (sack[i / 64] >> (i % 64)) & 1);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, want);
}

/* the loss scan stops at the highest delivered PSN, or a late resend */
static void loss_scan_end(struct kunit *test)
{
	u32 una = 0xfffffff0U, nxt = 0x100;

	/* nothing beyond una delivered: nothing to scan */
	KUNIT_EXPECT_EQ(test, mro_loss_scan_end(una, nxt, una, una), una);
	/* up to the highest PSN delivered */
	KUNIT_EXPECT_EQ(test, mro_loss_scan_end(una, nxt, 0x20, una), 0x20U);
	/* a resend or probe that left later: up to snd_nxt at that time */
	KUNIT_EXPECT_EQ(test, mro_loss_scan_end(una, nxt, 0x20, 0x80), 0x80U);
	KUNIT_EXPECT_EQ(test, mro_loss_scan_end(una, nxt, 0x90, 0x80), 0x90U);
	/* a stale hint (before una, or from before a wrap) is ignored */
	KUNIT_EXPECT_EQ(test, mro_loss_scan_end(una, nxt, 0x20, 0x80000000U),
			0x20U);
	KUNIT_EXPECT_EQ(test, mro_loss_scan_end(una, nxt, 0x20, una - 5),
			0x20U);
	/* never outside [una, nxt] */
	KUNIT_EXPECT_EQ(test, mro_loss_scan_end(una, nxt, 0x200, una), nxt);
	KUNIT_EXPECT_EQ(test, mro_loss_scan_end(una, nxt, una - 3, una), una);
	KUNIT_EXPECT_EQ(test, mro_loss_scan_end(una, una, una + 9, una + 9),
			una);
}

static void ack_bounds(struct kunit *test)
{
	u32 una = 0xfffffff0U, nxt = 0x10;

	KUNIT_EXPECT_TRUE(test, mro_ack_cum_ok(nxt, una, nxt, 512));
	KUNIT_EXPECT_TRUE(test, mro_ack_cum_ok(una, una, nxt, 512));
	KUNIT_EXPECT_TRUE(test, mro_ack_cum_ok(0, una, nxt, 512));
	KUNIT_EXPECT_FALSE(test, mro_ack_cum_ok(nxt + 1, una, nxt, 512));
	KUNIT_EXPECT_TRUE(test, mro_ack_cum_ok(una - 512, una, nxt, 512));
	KUNIT_EXPECT_FALSE(test, mro_ack_cum_ok(una - 513, una, nxt, 512));
	KUNIT_EXPECT_FALSE(test, mro_ack_cum_ok(una + 0x80000000U, una, nxt,
						512));
	/* echoed path sequences: only ones we sent, four windows back */
	KUNIT_EXPECT_EQ(test, mro_echo_span(512), 2048U);
	KUNIT_EXPECT_EQ(test, mro_echo_span(1), 4U * MRO_ECHO_WIN_MIN);
	KUNIT_EXPECT_EQ(test, mro_echo_span(0xffffffffU), 4U * MRO_WINDOW_MAX);
	KUNIT_EXPECT_TRUE(test, mro_echo_seq_ok(0xffffffffU, 2, 2048));
	KUNIT_EXPECT_TRUE(test, mro_echo_seq_ok(1, 2, 2048));
	KUNIT_EXPECT_FALSE(test, mro_echo_seq_ok(2, 2, 2048));
	KUNIT_EXPECT_FALSE(test, mro_echo_seq_ok(3, 2, 2048));
	KUNIT_EXPECT_TRUE(test, mro_echo_seq_ok(2 - 2048, 2, 2048));
	KUNIT_EXPECT_FALSE(test, mro_echo_seq_ok(2 - 2049, 2, 2048));
	KUNIT_EXPECT_FALSE(test, mro_echo_seq_ok(2 - (1U << 30), 2, 2048));
	/* a NAK names a PSN still out, a fatal one the next expected */
	KUNIT_EXPECT_TRUE(test, mro_nak_psn_ok(false, una, una, una, nxt));
	KUNIT_EXPECT_TRUE(test, mro_nak_psn_ok(false, 3, 3, una, nxt));
	KUNIT_EXPECT_FALSE(test, mro_nak_psn_ok(false, 4, 3, una, nxt));
	KUNIT_EXPECT_FALSE(test, mro_nak_psn_ok(false, 2, 3, una, nxt));
	KUNIT_EXPECT_FALSE(test, mro_nak_psn_ok(false, nxt, nxt, una, nxt));
	KUNIT_EXPECT_FALSE(test, mro_nak_psn_ok(false, una - 1, una - 1, una,
						nxt));
	/* an RNR NAK may refuse any PSN out at or after the next expected */
	KUNIT_EXPECT_TRUE(test, mro_nak_psn_ok(true, nxt - 1, una, una, nxt));
	KUNIT_EXPECT_TRUE(test, mro_nak_psn_ok(true, 3, 3, una, nxt));
	KUNIT_EXPECT_FALSE(test, mro_nak_psn_ok(true, 2, 3, una, nxt));
	KUNIT_EXPECT_FALSE(test, mro_nak_psn_ok(true, nxt, una, una, nxt));
	KUNIT_EXPECT_FALSE(test, mro_nak_psn_ok(true, una - 1, una - 1, una,
						nxt));
	/* nothing out: no NAK */
	KUNIT_EXPECT_FALSE(test, mro_nak_psn_ok(true, nxt, nxt, nxt, nxt));
}

/*
 * A connection with 1 ms path RTT, 100 us variation (reordering window
 * 250 us, srtt + 4 * rttvar = 1400 us), 8 paths; the newest delivered
 * transmission on the packet's path and on any path left at @acked_sent.
 */
static struct mro_loss_ctx loss_ctx(u32 now, u32 highest, u32 acked_next,
				    u32 acked_sent)
{
	struct mro_loss_ctx c = {
		.now_us = now,
		.highest_acked = highest,
		.known_end = highest + 1000,
		.reorder = mro_loss_reorder(8, 512),
		.guard_us = 1000,
		.path_acked_next = acked_next,
		.path_acked_sent_us = acked_sent,
		.acked_sent_us = acked_sent,
		.srtt_us = 1000,
		.rttvar_us = 100,
	};
	return c;
}

static void loss_per_path(struct kunit *test)
{
	struct mro_loss_pkt p = { .psn = 100, .sent_us = 5000,
				  .path_seq = 7, .on_path = true };
	struct mro_loss_ctx c;

	KUNIT_EXPECT_EQ(test, mro_loss_reorder(8, 512), 27U);
	/* seq 8 on the path, sent a reordering window later, delivered */
	c = loss_ctx(9000, 102, 9, 5000 + 250);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_PATH);
	/* sent right after it: the path may have reordered the two */
	c = loss_ctx(9000, 102, 9, 5000 + 249);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* a late ACK backlog ("now" far ahead) changes nothing */
	c = loss_ctx(5000 + 10000000, 102, 9, 5000 + 249);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* only itself (acked_next = seq + 1) or earlier delivered: not lost */
	c = loss_ctx(9000, 102, 8, 9000);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	c = loss_ctx(9000, 102, 0, 9000);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* no transmission of its own: the path rule does not apply */
	p.on_path = false;
	c = loss_ctx(5000 + 1399, 102, 9, 9000);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* the path rule works beyond the highest SACKed PSN (probe echo) */
	p.on_path = true;
	c = loss_ctx(9000, 90, 9, 9000);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_PATH);
	/* ... but not beyond what a (full) SACK could report */
	c.known_end = 100;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	c.known_end = 101;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_PATH);
}

static void loss_reorder_fallback(struct kunit *test)
{
	struct mro_loss_pkt p = { .psn = 100, .sent_us = 5000,
				  .path_seq = 7, .on_path = true };
	struct mro_loss_ctx c;

	/*
	 * Black hole: nothing later on its own path; far behind across
	 * paths, and a packet sent a reordering window (250 us) after it
	 * delivered.
	 */
	c = loss_ctx(9000, 100 + 28, 7, 5000 + 250);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_REORDER);
	/* delivered ones left sooner after it: reordering, wait */
	c = loss_ctx(9000, 100 + 28, 7, 5000 + 249);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	c = loss_ctx(5000 + 10000000, 100 + 28, 7, 5000 + 249);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* its path is 400 us slower than the fastest: 400 us more */
	c = loss_ctx(9000, 100 + 28, 7, 5000 + 649);
	c.fast_srtt_us = 600;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	c.acked_sent_us = 5000 + 650;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_REORDER);
	/* ... but never more than srtt + 4 * rttvar (the old rule) */
	c.fast_srtt_us = 0;
	c.reo_steps = 8;
	c.acked_sent_us = 5000 + 1399;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	c.acked_sent_us = 5000 + 1400;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_REORDER);
	/* a faster path of its own adds nothing */
	c = loss_ctx(9000, 100 + 28, 7, 5000 + 250);
	c.fast_srtt_us = 2000;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_REORDER);
	/* less than the reordering distance ahead: wait (RTO, probe) */
	c = loss_ctx(5000 + 100000, 100 + 27, 7, 5000 + 100000);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* a small window: the distance shrinks with it (20 out: 5) */
	c = loss_ctx(9000, 100 + 6, 7, 5000 + 250);
	c.reorder = mro_loss_reorder(8, 20);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_REORDER);
	c.highest_acked = 100 + 5;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* READ response slots: out for srtt + 4 * rttvar */
	p.on_path = false;
	c = loss_ctx(5000 + 1400, 100 + 28, 0, 0);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_REORDER);
	c = loss_ctx(5000 + 1399, 100 + 28, 0, 5000 + 1399);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* nothing after it delivered at all */
	p.on_path = true;
	c = loss_ctx(5000 + 100000, 100, 0, 5000 + 100000);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
}

/*
 * The reorder timer: with no later ACK, the time rules fire once the
 * newest delivery has been known long enough (frontier_age_us).
 */
static void loss_reorder_timer(struct kunit *test)
{
	struct mro_loss_pkt p = { .psn = 100, .sent_us = 5000,
				  .path_seq = 7, .on_path = true };
	struct mro_loss_ctx c;
	u32 wait;

	/* its path's next packet, sent 100 us later, delivered: 150 us */
	c = loss_ctx(9000, 102, 9, 5000 + 100);
	wait = 0;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, &wait), MRO_NOT_LOST);
	KUNIT_EXPECT_EQ(test, wait, 150U);
	c.frontier_age_us = 149;
	wait = 0;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, &wait), MRO_NOT_LOST);
	KUNIT_EXPECT_EQ(test, wait, 1U);
	c.frontier_age_us = 150;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_PATH);
	/* a deadline already nearer is kept */
	c.frontier_age_us = 0;
	wait = 20;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, &wait), MRO_NOT_LOST);
	KUNIT_EXPECT_EQ(test, wait, 20U);
	/* across paths, far behind, a delivery sent 50 us after it */
	c = loss_ctx(9000, 100 + 28, 7, 5000 + 50);
	wait = 0;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, &wait), MRO_NOT_LOST);
	KUNIT_EXPECT_EQ(test, wait, 200U);
	c.frontier_age_us = 200;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_REORDER);
	/* only deliveries sent after it count, however long they stood */
	p.sent_us = 6000;
	c = loss_ctx(9000, 100 + 28, 7, 5000 + 50);
	c.frontier_age_us = 100000;
	wait = 0;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, &wait), MRO_NOT_LOST);
	KUNIT_EXPECT_EQ(test, wait, 0U);
	/* not the reordering distance behind: no deadline */
	p.sent_us = 5000;
	c = loss_ctx(9000, 100 + 27, 7, 5000 + 50);
	c.frontier_age_us = 100000;
	wait = 0;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, &wait), MRO_NOT_LOST);
	KUNIT_EXPECT_EQ(test, wait, 0U);
	/* a resend the rules find lost waits out its guard */
	p.retx = 1;
	c = loss_ctx(5000 + 500, 102, 9, 5000 + 250);
	wait = 0;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, &wait), MRO_NOT_LOST);
	KUNIT_EXPECT_EQ(test, wait, 500U);
	/* a READ's response slot: out for srtt + 4 * rttvar */
	p.retx = 0;
	p.on_path = false;
	c = loss_ctx(5000 + 400, 100 + 28, 0, 0);
	wait = 0;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, &wait), MRO_NOT_LOST);
	KUNIT_EXPECT_EQ(test, wait, 1000U);
}

static void loss_reorder_distance(struct kunit *test)
{
	/* a quarter of the window, within [3, 3 + 3 * paths] */
	KUNIT_EXPECT_EQ(test, mro_loss_reorder(8, 0), 3U);
	KUNIT_EXPECT_EQ(test, mro_loss_reorder(8, 15), 3U);
	KUNIT_EXPECT_EQ(test, mro_loss_reorder(8, 20), 5U);
	KUNIT_EXPECT_EQ(test, mro_loss_reorder(8, 107), 26U);
	KUNIT_EXPECT_EQ(test, mro_loss_reorder(8, 108), 27U);
	KUNIT_EXPECT_EQ(test, mro_loss_reorder(8, 512), 27U);
	KUNIT_EXPECT_EQ(test, mro_loss_reorder(1, 512), 6U);
	/* adversarial: no paths, a window of the whole PSN space */
	KUNIT_EXPECT_EQ(test, mro_loss_reorder(0, 100), 3U);
	KUNIT_EXPECT_EQ(test, mro_loss_reorder(65535, 0xffffffffU),
			3U + 3U * 65535);
}

static void loss_reo_window(struct kunit *test)
{
	/* max(srtt / 4, rttvar) x steps (0 reads as 1), + spread */
	KUNIT_EXPECT_EQ(test, mro_loss_reo_wnd(1000, 100, 0, 0), 250U);
	KUNIT_EXPECT_EQ(test, mro_loss_reo_wnd(1000, 100, 1, 0), 250U);
	KUNIT_EXPECT_EQ(test, mro_loss_reo_wnd(1000, 100, 2, 0), 500U);
	KUNIT_EXPECT_EQ(test, mro_loss_reo_wnd(1000, 400, 1, 0), 400U);
	KUNIT_EXPECT_EQ(test, mro_loss_reo_wnd(1000, 100, 1, 300), 550U);
	/* capped at srtt + 4 * rttvar, steps at MRO_REO_STEPS_MAX */
	KUNIT_EXPECT_EQ(test, mro_loss_reo_wnd(1000, 100, 8, 0), 1400U);
	KUNIT_EXPECT_EQ(test, mro_loss_reo_wnd(100000, 0, 200, 0), 100000U);
	KUNIT_EXPECT_EQ(test, mro_loss_reo_wnd(100000, 1000, 200, 0), 104000U);
	KUNIT_EXPECT_EQ(test, mro_loss_reo_wnd(100000, 1000, 4, 0), 100000U);
	KUNIT_EXPECT_EQ(test, mro_loss_reo_wnd(100000, 1000, 4, 3000),
			103000U);
	KUNIT_EXPECT_EQ(test, mro_loss_reo_wnd(0, 0, 3, 500), 0U);
	/* absurd RTTs stay a positive signed time difference */
	KUNIT_EXPECT_EQ(test, mro_loss_reo_wnd(0xffffffffU, 0xffffffffU, 255,
					       0xffffffffU), (u32)S32_MAX);
}

static void loss_reo_adapt(struct kunit *test)
{
	struct mro_loss_pkt p = { .psn = 100, .sent_us = 5000,
				  .path_seq = 7, .on_path = true };
	struct mro_reo r = {};
	struct mro_loss_ctx c;
	int i;

	/* the ACK's echo left before the resend: the original arrived */
	KUNIT_EXPECT_TRUE(test, mro_retx_spurious(999, 1000, 5000, 100));
	KUNIT_EXPECT_FALSE(test, mro_retx_spurious(1000, 1000, 5000, 100));
	/* back sooner than a round trip of the resend's path */
	KUNIT_EXPECT_TRUE(test, mro_retx_spurious(1000, 1000, 1099, 100));
	KUNIT_EXPECT_FALSE(test, mro_retx_spurious(1000, 1000, 1100, 100));
	KUNIT_EXPECT_FALSE(test, mro_retx_spurious(1000, 1000, 1001, 0));
	/* clock wrap; "now" before the resend (clock race) proves nothing */
	KUNIT_EXPECT_TRUE(test, mro_retx_spurious(0xffffffe0U, 0xfffffff0U,
						  0x10, 0x100));
	KUNIT_EXPECT_FALSE(test, mro_retx_spurious(0x10, 0xfffffff0U,
						   0x1000, 0x100));
	KUNIT_EXPECT_FALSE(test, mro_retx_spurious(2000, 2000, 1000, 100));

	/* up one step per spurious resend, to MRO_REO_STEPS_MAX */
	mro_reo_update(&r, true);
	KUNIT_EXPECT_EQ(test, r.steps, 2);
	for (i = 0; i < 20; i++)
		mro_reo_update(&r, true);
	KUNIT_EXPECT_EQ(test, r.steps, MRO_REO_STEPS_MAX);
	/* down one step per MRO_REO_DECAY genuine ones */
	for (i = 0; i < MRO_REO_DECAY - 1; i++)
		mro_reo_update(&r, false);
	KUNIT_EXPECT_EQ(test, r.steps, MRO_REO_STEPS_MAX);
	mro_reo_update(&r, true);	/* a spurious one restarts the count */
	for (i = 0; i < MRO_REO_DECAY - 1; i++)
		mro_reo_update(&r, false);
	KUNIT_EXPECT_EQ(test, r.steps, MRO_REO_STEPS_MAX);
	mro_reo_update(&r, false);
	KUNIT_EXPECT_EQ(test, r.steps, MRO_REO_STEPS_MAX - 1);
	r = (struct mro_reo){ .steps = 1 };
	for (i = 0; i < 100; i++)
		mro_reo_update(&r, false);
	KUNIT_EXPECT_EQ(test, r.steps, 1);
	r = (struct mro_reo){ .steps = 200 };	/* corrupt state */
	mro_reo_update(&r, true);
	KUNIT_EXPECT_EQ(test, r.steps, MRO_REO_STEPS_MAX);

	/* two steps: both rules wait twice as long */
	c = loss_ctx(9000, 100 + 28, 9, 5000 + 499);
	c.reo_steps = 2;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	c.path_acked_sent_us = 5000 + 500;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_PATH);
	c = loss_ctx(9000, 100 + 28, 7, 5000 + 500);
	c.reo_steps = 2;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_REORDER);
}

static void loss_resend_guard(struct kunit *test)
{
	struct mro_loss_pkt p = { .psn = 100, .sent_us = 5000,
				  .path_seq = 7, .on_path = true, .retx = 1 };
	struct mro_loss_ctx c;

	/* resent: not declared lost again within one RTT (guard 2 ms) */
	c = loss_ctx(5000 + 1999, 200, 20, 5000 + 1999);
	c.guard_us = 2000;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	c.now_us = 5000 + 2000;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_PATH);
	/* a first transmission has no guard */
	p.retx = 0;
	c.now_us = 5000 + 250;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_PATH);
}

static void loss_wrap(struct kunit *test)
{
	struct mro_loss_pkt p = { .psn = 0xfffffffeU, .sent_us = 0xffffff00U,
				  .path_seq = 0xffffffffU, .on_path = true };
	struct mro_loss_ctx c;

	/* PSN, path sequence and clock all wrap between send and ACK */
	c = loss_ctx(0xffffff00U + 2000, 5, 1, 0xffffff00U + 250);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_PATH);
	c = loss_ctx(0xffffff00U + 2000, 5, 0, 0xffffff00U + 250);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	c = loss_ctx(0xffffff00U + 2000, 0xfffffffeU + 28, 0,
		     0xffffff00U + 1400);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_REORDER);
	c = loss_ctx(0xffffff00U + 2000, 0xfffffffeU + 27, 0,
		     0xffffff00U + 1400);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* the cross-path time rule across the clock wrap */
	c = loss_ctx(0xffffff00U + 2000, 0xfffffffeU + 28, 0,
		     0xffffff00U + 250);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_REORDER);
	c.acked_sent_us = 0xffffff00U + 249;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
}

static void loss_adversarial(struct kunit *test)
{
	struct mro_loss_pkt p = { .psn = 100, .sent_us = 5000,
				  .path_seq = 7, .on_path = true };
	struct mro_loss_ctx c;

	/* a send time in the future is never "out long enough" */
	c = loss_ctx(4000, 1000, 100, 9000);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* a highest_acked half the space away reads as behind */
	c = loss_ctx(5000 + 100000, 100 + 0x80000001U, 0, 5000 + 100000);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* a path_acked_next half the space away reads as behind */
	c = loss_ctx(5000 + 100000, 100, 8 + 0x80000001U, 5000 + 100000);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* a delivered send time half the clock away reads as earlier */
	c = loss_ctx(9000, 200, 9, 5000 + 0x80000001U);
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* an absurd step count or path spread cannot make it negative */
	c = loss_ctx(9000, 200, 0, 5000 + 1399);
	c.reo_steps = 255;
	c.srtt_us = 0x7fffffffU;
	c.fast_srtt_us = 1;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_NOT_LOST);
	/* no RTT yet: the path rule fires on evidence alone */
	c = loss_ctx(5000, 100, 9, 5000);
	c.srtt_us = 0;
	c.rttvar_us = 0;
	KUNIT_EXPECT_EQ(test, mro_loss_check(&c, &p, NULL), MRO_LOST_PATH);
}

static void rtt_update(struct kunit *test)
{
	u32 srtt = 0, rttvar = 0, i;

	KUNIT_EXPECT_TRUE(test, mro_rtt_update(&srtt, &rttvar, 800));
	KUNIT_EXPECT_EQ(test, srtt, 800U);
	KUNIT_EXPECT_EQ(test, rttvar, 400U);
	KUNIT_EXPECT_TRUE(test, mro_rtt_update(&srtt, &rttvar, 1600));
	KUNIT_EXPECT_EQ(test, srtt, 900U);
	KUNIT_EXPECT_EQ(test, rttvar, 500U);
	/* nonsense (a wrapped or forged echo) is ignored */
	KUNIT_EXPECT_FALSE(test, mro_rtt_update(&srtt, &rttvar, 0xfffffff0U));
	KUNIT_EXPECT_FALSE(test, mro_rtt_update(&srtt, &rttvar,
						MRO_RTT_SANE_US + 1));
	KUNIT_EXPECT_EQ(test, srtt, 900U);
	/* a zero sample keeps srtt != 0 ("no sample") */
	srtt = 0;
	KUNIT_EXPECT_TRUE(test, mro_rtt_update(&srtt, &rttvar, 0));
	KUNIT_EXPECT_EQ(test, srtt, 1U);
	for (i = 0; i < 100; i++)
		mro_rtt_update(&srtt, &rttvar, 0);
	KUNIT_EXPECT_GE(test, srtt, 1U);
	/* converges to a steady RTT, and its variation decays */
	srtt = 0;
	mro_rtt_update(&srtt, &rttvar, 100000);
	for (i = 0; i < 200; i++)
		mro_rtt_update(&srtt, &rttvar, 500);
	KUNIT_EXPECT_LE(test, srtt, 600U);
	KUNIT_EXPECT_LE(test, rttvar, 100U);
}

static void rto_compute(struct kunit *test)
{
	/* srtt + 4 * rttvar when the variation exceeds the minimum */
	KUNIT_EXPECT_EQ(test, mro_rto_base(1000, 500, 1000, 0), 3000U);
	KUNIT_EXPECT_EQ(test, mro_rto_base(1000, 251, 1000, 0), 2004U);
	/* otherwise srtt + the minimum, itself at least 100 us */
	KUNIT_EXPECT_EQ(test, mro_rto_base(1000, 249, 1000, 0), 2000U);
	KUNIT_EXPECT_EQ(test, mro_rto_base(10, 5, 1000, 0), 1010U);
	KUNIT_EXPECT_EQ(test, mro_rto_base(10, 5, 100, 0), 110U);
	KUNIT_EXPECT_EQ(test, mro_rto_base(10, 5, 1, 0), 110U);
	KUNIT_EXPECT_EQ(test, mro_rto_base(10, 5, 0, 0), 110U);
	/*
	 * a steady round trip (rttvar decayed to nothing) keeps the whole
	 * margin: one delay of less than the minimum fires no timer
	 */
	KUNIT_EXPECT_EQ(test, mro_rto_base(2050, 1, 1000, 0), 3050U);
	KUNIT_EXPECT_EQ(test, mro_rto_base(2050, 0, 100, 0), 2150U);
	/* no sample: the initial (IB ACK timeout) value */
	KUNIT_EXPECT_EQ(test, mro_rto_base(0, 0, 1000, 500000), 500000U);
	KUNIT_EXPECT_EQ(test, mro_rto_base(0, 0, 1000, 10), 1000U);
	/* capped, also with absurd inputs (no overflow) */
	KUNIT_EXPECT_EQ(test, mro_rto_base(0xffffffffU, 0xffffffffU, 0, 0),
			(u32)MRO_RTO_MAX_US);
	KUNIT_EXPECT_EQ(test, mro_rto_base(0, 0, 0xffffffffU, 0),
			(u32)MRO_RTO_MAX_US);
	/* exponential backoff, at most 2^6 */
	KUNIT_EXPECT_EQ(test, mro_rto_backoff(1000, 0), 1000ULL);
	KUNIT_EXPECT_EQ(test, mro_rto_backoff(1000, 1), 2000ULL);
	KUNIT_EXPECT_EQ(test, mro_rto_backoff(1000, 6), 64000ULL);
	KUNIT_EXPECT_EQ(test, mro_rto_backoff(1000, 7), 64000ULL);
	KUNIT_EXPECT_EQ(test, mro_rto_backoff(MRO_RTO_MAX_US, 0xffffffffU),
			64ULL * MRO_RTO_MAX_US);
	/* the tail-loss probe: two RTTs, before the RTO or not at all */
	KUNIT_EXPECT_EQ(test, mro_pto(0, 5000), 0U);
	KUNIT_EXPECT_EQ(test, mro_pto(1000, 5000), 2000U);
	KUNIT_EXPECT_EQ(test, mro_pto(1000, 2000), 0U);
	KUNIT_EXPECT_EQ(test, mro_pto(10, 5000), 100U);
	KUNIT_EXPECT_EQ(test, mro_pto(0xffffffffU, 0xffffffffU), 0U);
}

/*
 * The probe by expectation: the tail is due as long after the newest
 * delivery as it left after the delivered packet, plus a reordering window.
 */
static void pto_tail_expectation(struct kunit *test)
{
	/*
	 * A drained queue: srtt is still 150 ms (2 * srtt = 300 ms), but the
	 * tail left 2 ms after a packet whose delivery was learned just now:
	 * probe 2 ms + the window (5 ms) from now.
	 */
	KUNIT_EXPECT_EQ(test, mro_pto_tail(2000, 0, 5000), 7000U);
	/* learned 4 ms ago: 3 ms left */
	KUNIT_EXPECT_EQ(test, mro_pto_tail(2000, 4000, 5000), 3000U);
	/* overdue: at once, but not sooner than the floor */
	KUNIT_EXPECT_EQ(test, mro_pto_tail(2000, 60000, 5000),
			(u32)MRO_RTO_FLOOR_US);
	/* the tail left with the delivered packet: one window */
	KUNIT_EXPECT_EQ(test, mro_pto_tail(0, 0, 5000), 5000U);
	/* it left before the newest delivery: RACK's rules, no probe here */
	KUNIT_EXPECT_EQ(test, mro_pto_tail(-1, 0, 5000), 0U);
	/*
	 * After an idle minute: delivered packet sent at 0, learned at 800 us
	 * (its round trip), tail sent at 60 s, now 60 s + 10 us: a round trip
	 * and a window after the tail left
	 */
	KUNIT_EXPECT_EQ(test, mro_pto_tail(60000000, 60000010 - 800, 200),
			800U + 200U - 10U);
	/* no overflow at the extremes */
	KUNIT_EXPECT_EQ(test, mro_pto_tail(S32_MAX, 0, 0xffffffffU),
			(u32)S32_MAX);
}

/* an RTO resends besides the oldest PSN only those old when it was due */
static void rto_old_psns(struct kunit *test)
{
	u32 due = 0x10, rto = 1000;

	/* sent 4 RTOs or more before the timer was due: old */
	KUNIT_EXPECT_FALSE(test, mro_rto_recent(due, due - 4 * rto, rto));
	KUNIT_EXPECT_FALSE(test, mro_rto_recent(due, due - 9 * rto, rto));
	/* younger: recent, however late the timer runs (due, not now) */
	KUNIT_EXPECT_TRUE(test, mro_rto_recent(due, due - 4 * rto + 1, rto));
	KUNIT_EXPECT_TRUE(test, mro_rto_recent(due, due, rto));
	/* sent after it was due (clock races): recent */
	KUNIT_EXPECT_TRUE(test, mro_rto_recent(due, due + 5, rto));
	/* a huge RTO does not overflow */
	KUNIT_EXPECT_TRUE(test, mro_rto_recent(due, due - 0x7fffffffU,
					       0xffffffffU));
	KUNIT_EXPECT_FALSE(test, mro_rto_recent(due, due - 0x7fffffffU, 1));
}

/* the RTO waits for the ACK of a packet that asked, an RTO after it left */
static void rto_wait_left(struct kunit *test)
{
	u32 sent = 0xffffff00U, rto = 1000;	/* the wait straddles the wrap */

	KUNIT_EXPECT_EQ(test, mro_rto_left(sent, sent, rto), rto);
	KUNIT_EXPECT_EQ(test, mro_rto_left(sent + 999, sent, rto), 1U);
	KUNIT_EXPECT_EQ(test, mro_rto_left(sent + 1000, sent, rto), 0U);
	KUNIT_EXPECT_EQ(test, mro_rto_left(sent + 0x7fffffffU, sent, rto), 0U);
	/* sent "after" now (clock races): a whole RTO left, never more */
	KUNIT_EXPECT_EQ(test, mro_rto_left(sent, sent + 50, rto), rto);
	/* half the clock away reads as ahead: one RTO more, not a loop */
	KUNIT_EXPECT_EQ(test, mro_rto_left(sent, sent + 0x80000000U, rto), rto);
	/* no RTO: nothing to wait for */
	KUNIT_EXPECT_EQ(test, mro_rto_left(sent, sent, 0), 0U);
	KUNIT_EXPECT_EQ(test, mro_rto_left(0, 1, U32_MAX), U32_MAX);
}

/* the retry count ends a QP: expirations used up and the IB wait passed */
static void retry_exhausted(struct kunit *test)
{
	u32 t0 = 0xfffff000U;	/* the wait straddles the clock's wrap */
	u64 to = 67109;		/* IB timeout 14: 4.096 us << 14 */

	/* 7 is seven retries: 8 timeouts from the start of the episode */
	KUNIT_EXPECT_FALSE(test, mro_retry_exhausted(0, 7, to, t0, t0 + 8 * to - 1));
	KUNIT_EXPECT_TRUE(test, mro_retry_exhausted(0, 7, to, t0, t0 + 8 * to));
	/* expirations left: not yet, however long */
	KUNIT_EXPECT_FALSE(test, mro_retry_exhausted(1, 7, to, t0, t0 + 100 * to));
	/* retry_cnt 0: one timeout */
	KUNIT_EXPECT_FALSE(test, mro_retry_exhausted(0, 0, to, t0, t0 + to - 1));
	KUNIT_EXPECT_TRUE(test, mro_retry_exhausted(0, 0, to, t0, t0 + to));
	/* a huge IB timeout (code 31, 8796 s) is capped inside the clock */
	KUNIT_EXPECT_FALSE(test, mro_retry_exhausted(0, 7, 4096ULL << 22, t0,
						     t0 + MRO_RETRY_WAIT_MAX_US - 1));
	KUNIT_EXPECT_TRUE(test, mro_retry_exhausted(0, 7, 4096ULL << 22, t0,
						    t0 + MRO_RETRY_WAIT_MAX_US));
	/* a start stamped after now (clock races) is no wait at all */
	KUNIT_EXPECT_FALSE(test, mro_retry_exhausted(0, 7, to, t0, t0 - 1));
	KUNIT_EXPECT_FALSE(test, mro_retry_exhausted(0, 0, 1, t0, t0 - 0x7fffffffU));
}

/* a transmission on @p is lost */
static bool lose(struct mro_pathset *ps, u16 p, bool timeout)
{
	return mro_path_lost(ps, p, ps->path[p].next_seq++, timeout);
}

/* the PSNs of one READ_REQ share its transmission: lost once, not per PSN */
static void loss_counted_once(struct kunit *test)
{
	struct mro_pathset ps;
	u32 seq;
	u16 i, k;

	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 99, GFP_KERNEL), 0);
	for (k = 0; k < 16; k++)
		KUNIT_EXPECT_FALSE(test, mro_path_lost(&ps, 1, 7, false));
	KUNIT_EXPECT_FALSE(test, mro_path_lost(&ps, 1, 7, true));
	KUNIT_EXPECT_EQ(test, ps.path[1].lost, 1ULL);
	KUNIT_EXPECT_EQ(test, ps.path[1].timeouts, 0ULL);
	KUNIT_EXPECT_EQ(test, ps.path[1].streak, 1);
	/* a black hole under READs of 16 PSNs: retired on its 8th READ */
	for (i = 1; i <= MRO_RETIRE_STREAK; i++) {
		seq = ps.path[2].next_seq++;
		for (k = 0; k < 16; k++)
			KUNIT_EXPECT_EQ(test, mro_path_lost(&ps, 2, seq, false),
					i == MRO_RETIRE_STREAK && !k);
	}
	KUNIT_EXPECT_EQ(test, ps.path[2].lost, (u64)MRO_RETIRE_STREAK);
	/* the sequence 0 of a fresh path is a transmission like any other */
	KUNIT_EXPECT_FALSE(test, mro_path_lost(&ps, 3, 0, false));
	KUNIT_EXPECT_EQ(test, ps.path[3].lost, 1ULL);
	mro_paths_free(&ps);
}

/*
 * Per-path sequences seeded at random values: a transmission's loss
 * weighs on its path like any other (not taken for one sent before a
 * revival), the echo of a transmission is taken, and the paths do not
 * share one start.
 */
static void paths_seeded_seqs(struct kunit *test)
{
	struct mro_pathset ps;
	bool distinct = false;
	u32 seq;
	u16 i;

	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 99, GFP_KERNEL), 0);
	mro_paths_seed_seqs(&ps);
	for (i = 0; i < ps.n; i++) {
		KUNIT_EXPECT_EQ(test, ps.path[i].epoch_seq, ps.path[i].next_seq);
		if (ps.path[i].next_seq != ps.path[0].next_seq)
			distinct = true;
	}
	KUNIT_EXPECT_TRUE(test, distinct);
	KUNIT_EXPECT_FALSE(test, lose(&ps, 3, false));
	KUNIT_EXPECT_EQ(test, ps.path[3].lost, 1ULL);
	KUNIT_EXPECT_GT(test, ps.path[3].loss_ewma, 0);
	seq = ps.path[5].next_seq++;
	KUNIT_EXPECT_TRUE(test, mro_echo_seq_ok(seq, ps.path[5].next_seq,
						mro_echo_span(512)));
	KUNIT_EXPECT_FALSE(test, mro_echo_seq_ok(seq + 1, ps.path[5].next_seq,
						 mro_echo_span(512)));
	KUNIT_EXPECT_FALSE(test, mro_echo_seq_ok(seq + 0x80000000U,
						 ps.path[5].next_seq,
						 mro_echo_span(512)));
	mro_paths_free(&ps);
}

/*
 * A path whose way back drops everything while its way out works: its
 * packets arrive (other paths' ACKs say so) but the ACKs the peer sends
 * on it for the rhythm's PSNs never come.  Owed echoes overdue by the
 * wait are lost; MRO_RETIRE_ECHO_MISSES in a row retire the path, an
 * echo in between starts the count again, and no more than half the
 * paths retire.
 */
static void echo_owed_retires(struct kunit *test)
{
	u32 now = 0xfffff000U, wait = 1000, seq;
	struct mro_pathset ps;
	u16 i, p;

	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 4, 5, GFP_KERNEL), 0);
	/* an echo that came first: nothing owed */
	seq = ps.path[1].next_seq++;
	KUNIT_EXPECT_FALSE(test, mro_path_echo(&ps, 1, seq, now, now));
	mro_path_echo_owed(&ps, 1, seq, now);
	KUNIT_EXPECT_FALSE(test, ps.path[1].echo_owed);
	KUNIT_EXPECT_EQ(test, ps.owed, 0);
	/* owed, then echoed in time: not lost */
	seq = ps.path[1].next_seq++;
	mro_path_echo_owed(&ps, 1, seq, now);
	KUNIT_EXPECT_EQ(test, ps.owed, 1);
	KUNIT_EXPECT_FALSE(test, mro_path_echo_overdue(&ps, 1, now + wait,
						       wait));
	KUNIT_EXPECT_FALSE(test, mro_path_echo(&ps, 1, seq, now, now + wait));
	KUNIT_EXPECT_EQ(test, ps.owed, 0);
	KUNIT_EXPECT_FALSE(test, mro_path_echo_overdue(&ps, 1, now + 9 * wait,
						       wait));
	KUNIT_EXPECT_EQ(test, ps.path[1].echo_lost, 0ULL);
	/* one owed at a time: a second waits for the first's verdict */
	mro_path_echo_owed(&ps, 1, ps.path[1].next_seq++, now);
	mro_path_echo_owed(&ps, 1, ps.path[1].next_seq++, now + 10);
	KUNIT_EXPECT_EQ(test, ps.path[1].echo_owed_us, now);
	KUNIT_EXPECT_EQ(test, ps.owed, 1);
	/* lost twice (across the clock's wrap), then an echo: count again */
	for (i = 0; i < MRO_RETIRE_ECHO_MISSES - 1; i++) {
		mro_path_echo_owed(&ps, 1, ps.path[1].next_seq++, now);
		now += wait + 1;
		KUNIT_EXPECT_FALSE(test, mro_path_echo_overdue(&ps, 1, now,
							       wait));
	}
	KUNIT_EXPECT_EQ(test, ps.path[1].echo_lost,
			(u64)MRO_RETIRE_ECHO_MISSES - 1);
	seq = ps.path[1].next_seq++;
	KUNIT_EXPECT_FALSE(test, mro_path_echo(&ps, 1, seq, now, now));
	KUNIT_EXPECT_EQ(test, ps.path[1].echo_misses, 0);
	/* then lost in a row: the last one retires it */
	for (i = 0; i < MRO_RETIRE_ECHO_MISSES; i++) {
		mro_path_echo_owed(&ps, 1, ps.path[1].next_seq++, now);
		now += wait + 1;
		KUNIT_EXPECT_EQ(test, mro_path_echo_overdue(&ps, 1, now, wait),
				i == MRO_RETIRE_ECHO_MISSES - 1);
	}
	mro_path_retire(&ps, 1, now, 0);
	KUNIT_EXPECT_EQ(test, ps.owed, 0);
	/* a retired path owes nothing */
	mro_path_echo_owed(&ps, 1, ps.path[1].next_seq++, now);
	KUNIT_EXPECT_FALSE(test, ps.path[1].echo_owed);
	/* retiring clears what was owed (the count stays right) */
	mro_path_echo_owed(&ps, 2, ps.path[2].next_seq++, now);
	mro_path_echo_owed(&ps, 3, ps.path[3].next_seq++, now);
	KUNIT_EXPECT_EQ(test, ps.owed, 2);
	/* half the paths stay: path 2 may go, path 3 then may not */
	for (p = 2; p <= 3; p++) {
		for (i = 0; i < MRO_RETIRE_ECHO_MISSES; i++) {
			if (i)
				mro_path_echo_owed(&ps, p,
						   ps.path[p].next_seq++, now);
			now += wait + 1;
			KUNIT_EXPECT_EQ(test,
					mro_path_echo_overdue(&ps, p, now,
							      wait),
					p == 2 && i == MRO_RETIRE_ECHO_MISSES - 1);
		}
		if (p == 2)
			mro_path_retire(&ps, 2, now, 0);
	}
	KUNIT_EXPECT_EQ(test, ps.path[3].state, MRO_PATH_ACTIVE);
	KUNIT_EXPECT_EQ(test, ps.owed, 0);
	/* an echo for a later transmission settles an earlier one owed */
	mro_path_echo_owed(&ps, 0, ps.path[0].next_seq++, now);
	seq = ps.path[0].next_seq++;
	KUNIT_EXPECT_FALSE(test, mro_path_echo(&ps, 0, seq, now, now));
	KUNIT_EXPECT_FALSE(test, ps.path[0].echo_owed);
	KUNIT_EXPECT_EQ(test, ps.owed, 0);
	mro_paths_free(&ps);
}

/*
 * Losses found in a batch after the deliveries around them (READs under
 * random loss: one lost response of many) are not a black hole; losses
 * with nothing delivered after them on their path are.
 */
static void loss_behind_delivery(struct kunit *test)
{
	struct mro_pathset ps;
	u32 seq, base;
	u16 i;

	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 99, GFP_KERNEL), 0);
	/* 40 READs on path 1, each partly delivered, each found lost later */
	base = ps.path[1].next_seq;
	for (i = 0; i < 40; i++) {
		seq = ps.path[1].next_seq++;
		mro_path_acked(&ps, 1, seq, 1000 + i);
	}
	for (i = 0; i < 40; i++)
		KUNIT_EXPECT_FALSE(test, mro_path_lost(&ps, 1, base + i, false));
	KUNIT_EXPECT_EQ(test, ps.path[1].lost, 40ULL);
	KUNIT_EXPECT_EQ(test, ps.path[1].streak, 0);
	KUNIT_EXPECT_GT(test, ps.path[1].loss_ewma, 0);
	KUNIT_EXPECT_EQ(test, ps.path[1].state, MRO_PATH_ACTIVE);
	/* WRITEs: seq 20 got through, 0..19 are found lost after it */
	base = ps.path[2].next_seq;
	ps.path[2].next_seq += 21;
	mro_path_acked(&ps, 2, base + 20, 5000);
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_FALSE(test, mro_path_lost(&ps, 2, base + i, true));
	KUNIT_EXPECT_EQ(test, ps.path[2].timeouts, 20ULL);
	KUNIT_EXPECT_EQ(test, ps.path[2].streak, 0);
	/* so much loss, then two in a row with nothing after: retired */
	KUNIT_EXPECT_GE(test, ps.path[2].loss_ewma, MRO_RETIRE_EWMA);
	for (i = 1; i < MRO_RETIRE_EWMA_STREAK; i++)
		KUNIT_EXPECT_FALSE(test, lose(&ps, 2, false));
	KUNIT_EXPECT_TRUE(test, lose(&ps, 2, false));
	mro_path_retire(&ps, 2, 0, 0);
	/* a hole after a delivery: the 8th loss with nothing after retires */
	seq = ps.path[4].next_seq++;
	mro_path_acked(&ps, 4, seq, 6000);
	for (i = 1; i < MRO_RETIRE_STREAK; i++)
		KUNIT_EXPECT_FALSE(test, lose(&ps, 4, false));
	KUNIT_EXPECT_TRUE(test, lose(&ps, 4, false));
	mro_path_retire(&ps, 4, 0, 0);
	/* the same once the path sequence wraps */
	ps.path[3].next_seq = U32_MAX - 2;
	seq = ps.path[3].next_seq++;
	mro_path_acked(&ps, 3, seq, 7000);
	KUNIT_EXPECT_FALSE(test, mro_path_lost(&ps, 3, seq, false));
	KUNIT_EXPECT_EQ(test, ps.path[3].streak, 0);
	for (i = 1; i < MRO_RETIRE_STREAK; i++)
		KUNIT_EXPECT_FALSE(test, lose(&ps, 3, false));
	KUNIT_EXPECT_TRUE(test, lose(&ps, 3, false));
	mro_paths_free(&ps);
}

static void score_and_retire(struct kunit *test)
{
	struct mro_pathset ps;
	u16 i;

	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 99, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, mro_paths_active(&ps), 8);
	/* random loss: a delivery between losses never retires */
	for (i = 0; i < 1000; i++) {
		KUNIT_EXPECT_FALSE(test, lose(&ps, 1, false));
		mro_path_delivered(&ps, 1);
	}
	KUNIT_EXPECT_EQ(test, ps.path[1].lost, 1000ULL);
	KUNIT_EXPECT_EQ(test, ps.path[1].streak, 0);
	/* a black hole: MRO_RETIRE_STREAK losses in a row */
	for (i = 1; i < MRO_RETIRE_STREAK; i++)
		KUNIT_EXPECT_FALSE(test, lose(&ps, 2, false));
	KUNIT_EXPECT_TRUE(test, lose(&ps, 2, false));
	/* timeouts count, and weigh more in the loss rate */
	KUNIT_EXPECT_FALSE(test, lose(&ps, 3, true));
	KUNIT_EXPECT_EQ(test, ps.path[3].timeouts, 1ULL);
	KUNIT_EXPECT_EQ(test, ps.path[3].lost, 0ULL);
	KUNIT_EXPECT_GT(test, ps.path[3].loss_ewma, ps.path[2].loss_ewma / 8);
	/* scores: clean < lossy < black-holed; retired is worst */
	KUNIT_EXPECT_LT(test, mro_path_score(&ps, 0), mro_path_score(&ps, 1));
	KUNIT_EXPECT_LT(test, mro_path_score(&ps, 1), mro_path_score(&ps, 2));
	/* RTT inflation makes a path worse */
	mro_path_rtt(&ps, 4, 1000);
	mro_path_rtt(&ps, 5, 8000);
	KUNIT_EXPECT_LT(test, mro_path_score(&ps, 4), mro_path_score(&ps, 5));
	KUNIT_EXPECT_EQ(test, mro_path_score(&ps, 4), 0U);
	mro_path_retire(&ps, 2, 0, 0);
	KUNIT_EXPECT_EQ(test, mro_path_score(&ps, 2), U32_MAX);
	KUNIT_EXPECT_EQ(test, mro_paths_active(&ps), 7);
	KUNIT_EXPECT_EQ(test, ps.path[2].retired, 1ULL);
	/* mostly lost recently and a short streak */
	for (i = 0; i < 40; i++) {
		lose(&ps, 6, false);
		lose(&ps, 6, false);
		mro_path_delivered(&ps, 6);
	}
	KUNIT_EXPECT_GE(test, ps.path[6].loss_ewma, MRO_RETIRE_EWMA);
	KUNIT_EXPECT_FALSE(test, lose(&ps, 6, false));
	KUNIT_EXPECT_FALSE(test, lose(&ps, 6, false));
	KUNIT_EXPECT_TRUE(test, lose(&ps, 6, false));
	/* at most half the paths are retired: the rest is a QP problem */
	mro_paths_free(&ps);
	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 99, GFP_KERNEL), 0);
	for (i = 0; i < 3; i++)
		mro_path_retire(&ps, i, 0, 0);
	for (i = 1; i < MRO_RETIRE_STREAK; i++)
		KUNIT_EXPECT_FALSE(test, lose(&ps, 4, false));
	KUNIT_EXPECT_TRUE(test, lose(&ps, 4, false));
	mro_path_retire(&ps, 4, 0, 0);
	for (i = 0; i < 3 * MRO_RETIRE_STREAK; i++)
		KUNIT_EXPECT_FALSE(test, lose(&ps, 5, false));
	KUNIT_EXPECT_EQ(test, mro_paths_active(&ps), 4);
	/* the last active path is never retired */
	for (i = 0; i < 8; i++)
		if (i != 7)
			mro_path_retire(&ps, i, 0, 0);
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_FALSE(test, lose(&ps, 7, true));
	KUNIT_EXPECT_EQ(test, mro_paths_active(&ps), 1);
	/* the streak saturates instead of wrapping */
	ps.path[7].streak = U16_MAX;
	lose(&ps, 7, false);
	KUNIT_EXPECT_EQ(test, ps.path[7].streak, U16_MAX);
	KUNIT_EXPECT_LE(test, ps.path[7].loss_ewma, MRO_LOSS_ONE);
	mro_paths_free(&ps);
}

/*
 * The path manager's timer: how long until the first retired path is due
 * for a probe, whatever the traffic; none retired, no wait.
 */
static void probe_wait_next(struct kunit *test)
{
	u32 now = 0xffffff00U;	/* the clock wraps before the probes */
	struct mro_pathset ps;

	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 5, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, mro_paths_probe_wait(&ps, now), 0);
	mro_path_retire(&ps, 6, now, 9000);
	KUNIT_EXPECT_EQ(test, mro_paths_probe_wait(&ps, now), 9000);
	mro_path_retire(&ps, 2, now + 1000, 4000);
	KUNIT_EXPECT_EQ(test, mro_paths_probe_wait(&ps, now), 5000);
	KUNIT_EXPECT_EQ(test, mro_paths_probe_wait(&ps, now + 4999), 1);
	/* due, or overdue: at once */
	KUNIT_EXPECT_EQ(test, mro_paths_probe_wait(&ps, now + 5000), 1);
	KUNIT_EXPECT_EQ(test, mro_paths_probe_wait(&ps, now + 7000), 1);
	/* path 2's probe leaves: its next one waits twice as long, 6 is next */
	mro_path_probe(&ps, 2, now + 5000);
	KUNIT_EXPECT_EQ(test, mro_paths_probe_wait(&ps, now + 5000), 4000);
	/* at now + 9000 both are due; 6's probe leaves, 2's is due still */
	mro_path_probe(&ps, 6, now + 9000);
	KUNIT_EXPECT_EQ(test, mro_paths_probe_wait(&ps, now + 9000), 1);
	/* a revived path is nobody's wait; with neither retired, none */
	ps.path[2].state = MRO_PATH_ACTIVE;
	KUNIT_EXPECT_EQ(test, mro_paths_probe_wait(&ps, now + 9000), 9000);
	ps.path[6].state = MRO_PATH_ACTIVE;
	KUNIT_EXPECT_EQ(test, mro_paths_probe_wait(&ps, now + 9000), 0);
	mro_paths_free(&ps);
}

static void retire_probe_revive(struct kunit *test)
{
	u32 now = 0xffffff00U, seq, old_next;
	struct mro_pathset ps;
	u16 old_sport, i, j;

	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 5, GFP_KERNEL), 0);
	mro_path_rtt(&ps, 2, 700);
	old_sport = ps.path[2].sport;
	mro_path_retire(&ps, 2, now, 4000);
	KUNIT_EXPECT_EQ(test, ps.path[2].state, MRO_PATH_RETIRED);
	/* the clock wraps before the probe is due */
	KUNIT_EXPECT_FALSE(test, mro_path_probe_due(&ps, 2, now + 3999));
	KUNIT_EXPECT_TRUE(test, mro_path_probe_due(&ps, 2, now + 4000));
	KUNIT_EXPECT_FALSE(test, mro_path_probe_due(&ps, 3, now + 4000));
	now += 4000;
	old_next = ps.path[2].next_seq;
	seq = mro_path_probe(&ps, 2, now);
	KUNIT_EXPECT_EQ(test, seq, old_next);
	/* a fresh source port, unique in the set */
	KUNIT_EXPECT_NE(test, ps.path[2].sport, old_sport);
	for (i = 0; i < 8; i++)
		if (i != 2)
			KUNIT_EXPECT_NE(test, ps.path[i].sport,
					ps.path[2].sport);
	/* backoff of the re-probe interval */
	KUNIT_EXPECT_EQ(test, ps.path[2].probe_wait_us, 8000U);
	KUNIT_EXPECT_FALSE(test, mro_path_probe_due(&ps, 2, now + 3999));
	KUNIT_EXPECT_TRUE(test, mro_path_probe_due(&ps, 2, now + 4000));
	/* echoes that do not answer the probe do not revive */
	KUNIT_EXPECT_FALSE(test, mro_path_echo(&ps, 2, seq - 1, now, now));
	KUNIT_EXPECT_FALSE(test, mro_path_echo(&ps, 2, seq + 1, now, now));
	KUNIT_EXPECT_FALSE(test, mro_path_echo(&ps, 8, seq, now, now));
	KUNIT_EXPECT_FALSE(test, mro_path_echo(&ps, 0xffff, seq, now, now));
	KUNIT_EXPECT_EQ(test, ps.path[2].state, MRO_PATH_RETIRED);
	/* the probe's echo does */
	KUNIT_EXPECT_TRUE(test, mro_path_echo(&ps, 2, seq, now, now));
	KUNIT_EXPECT_EQ(test, ps.path[2].state, MRO_PATH_ACTIVE);
	KUNIT_EXPECT_EQ(test, ps.path[2].revived, 1ULL);
	KUNIT_EXPECT_EQ(test, ps.path[2].srtt_us, 0U);
	KUNIT_EXPECT_EQ(test, ps.path[2].acked_next, seq + 1);
	KUNIT_EXPECT_FALSE(test, mro_path_echo(&ps, 2, seq, now, now));
	/* what was in flight on the old port is lost later: no new retirement */
	for (i = 0; i < 3 * MRO_RETIRE_STREAK; i++)
		KUNIT_EXPECT_FALSE(test, mro_path_lost(&ps, 2, seq - 1 - i, false));
	KUNIT_EXPECT_EQ(test, ps.path[2].streak, 0);
	KUNIT_EXPECT_EQ(test, ps.path[2].lost, 3ULL * MRO_RETIRE_STREAK);
	/* new transmissions lost in a row do */
	for (i = 1; i < MRO_RETIRE_STREAK; i++)
		KUNIT_EXPECT_FALSE(test, lose(&ps, 2, false));
	KUNIT_EXPECT_TRUE(test, lose(&ps, 2, false));
	/* retired without a probe out: an echo does not revive */
	mro_path_retire(&ps, 2, now, 0);
	KUNIT_EXPECT_EQ(test, ps.path[2].probe_wait_us,
			(u32)MRO_PROBE_MIN_US);
	KUNIT_EXPECT_FALSE(test, mro_path_echo(&ps, 2, seq, now, now));
	/* the interval is capped */
	mro_path_retire(&ps, 3, now, 0xffffffffU);
	KUNIT_EXPECT_EQ(test, ps.path[3].probe_wait_us,
			(u32)MRO_PROBE_MAX_US);
	for (i = 0; i < 20; i++)
		mro_path_probe(&ps, 3, now);
	KUNIT_EXPECT_EQ(test, ps.path[3].probe_wait_us,
			(u32)MRO_PROBE_MAX_US);
	/* many fresh ports: always unique within the set */
	for (i = 0; i < 500; i++) {
		mro_path_new_sport(&ps, i % 8);
		for (j = 0; j < 8; j++)
			if (j != i % 8)
				KUNIT_EXPECT_NE(test, ps.path[j].sport,
						ps.path[i % 8].sport);
		KUNIT_EXPECT_GE(test, ps.path[i % 8].sport, MRO_SPORT_BASE);
	}
	mro_paths_free(&ps);
}

/*
 * A loss with nothing delivered after it on its path suspends the path:
 * it takes one new packet per MRO_SUSPEND_ROUNDS rounds, resends avoid
 * it, a delivery lifts it, and its trickle's losses still retire it.
 * Many paths in trouble at once (congestion, a stall) suspend and retire
 * nothing.
 */
static void suspend_trickle(struct kunit *test)
{
	u32 seq, picks = 8 * MRO_SUSPEND_ROUNDS * 10, counts[8] = {};
	struct mro_pathset ps;
	u16 i, p;

	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 11, GFP_KERNEL), 0);
	ps.picks = U32_MAX - 20;	/* the pick count wraps */
	/* a loss found after its path's next packet was delivered: no */
	seq = ps.path[2].next_seq;
	ps.path[2].next_seq += 2;
	mro_path_acked(&ps, 2, seq + 1, 0);
	KUNIT_EXPECT_FALSE(test, mro_path_lost(&ps, 2, seq, false));
	KUNIT_EXPECT_FALSE(test, ps.path[2].suspended);
	KUNIT_EXPECT_EQ(test, ps.path[2].streak, 0);
	/* a loss with nothing delivered after it suspends, once */
	KUNIT_EXPECT_FALSE(test, lose(&ps, 3, false));
	KUNIT_EXPECT_TRUE(test, ps.path[3].suspended);
	KUNIT_EXPECT_FALSE(test, lose(&ps, 3, false));
	KUNIT_EXPECT_TRUE(test, ps.path[3].suspended);
	KUNIT_EXPECT_EQ(test, ps.path[3].suspends, 1ULL);
	/* round robin: path 3 takes one packet per 3 rounds, or a little less */
	for (i = 0; i < picks; i++)
		counts[mro_path_pick(&ps, &seq)]++;
	KUNIT_EXPECT_GE(test, counts[3], picks / (8 * MRO_SUSPEND_ROUNDS + 8));
	KUNIT_EXPECT_LE(test, counts[3], picks / (8 * MRO_SUSPEND_ROUNDS) + 1);
	for (i = 0; i < 8; i++)
		if (i != 3)
			KUNIT_EXPECT_GE(test, counts[i],
					(picks - counts[3]) / 7 - 1);
	/* resends never go to it */
	for (i = 0; i < 64; i++)
		KUNIT_EXPECT_NE(test, mro_path_pick_retx(&ps, BIT_ULL(0), &seq), 3);
	/* nor their copies: with the others taken, it is no spare */
	KUNIT_EXPECT_FALSE(test, mro_path_spare(&ps, 0xffULL & ~BIT_ULL(3)));
	KUNIT_EXPECT_TRUE(test, mro_path_spare(&ps, 0xffULL & ~BIT_ULL(2)));
	/* its trickle's packet arrives: lifted, round robin again */
	mro_path_acked(&ps, 3, ps.path[3].next_seq - 1, 0);
	KUNIT_EXPECT_FALSE(test, ps.path[3].suspended);
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < 80; i++)
		counts[mro_path_pick(&ps, &seq)]++;
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, counts[i], 10U);
	/* a hole: suspended on the 1st loss, retired on the 8th */
	for (i = 1; i < MRO_RETIRE_STREAK; i++) {
		KUNIT_EXPECT_FALSE(test, lose(&ps, 4, false));
		KUNIT_EXPECT_EQ(test, ps.path[4].suspended,
				i >= MRO_SUSPEND_STREAK);
	}
	KUNIT_EXPECT_EQ(test, ps.path[4].suspends, 1ULL);
	KUNIT_EXPECT_TRUE(test, lose(&ps, 4, false));
	mro_path_retire(&ps, 4, 0, 0);
	KUNIT_EXPECT_FALSE(test, ps.path[4].suspended);
	/* the weighted scheduler keeps to the trickle too */
	mro_paths_set_sched(&ps, &mro_sched_weighted);
	lose(&ps, 6, false);
	lose(&ps, 6, false);
	KUNIT_EXPECT_TRUE(test, ps.path[6].suspended);
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < picks; i++)
		counts[mro_path_pick(&ps, &seq)]++;
	KUNIT_EXPECT_EQ(test, counts[4], 0U);
	KUNIT_EXPECT_GE(test, counts[6], picks / (8 * MRO_SUSPEND_ROUNDS + 8));
	KUNIT_EXPECT_LE(test, counts[6], picks / (8 * MRO_SUSPEND_ROUNDS) + 1);
	/* every active path suspended (forced): the active ones, in turn */
	for (i = 0; i < 8; i++)
		ps.path[i].suspended = true;
	mro_paths_set_sched(&ps, &mro_sched_rr);
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < 70; i++) {
		p = mro_path_pick(&ps, &seq);
		KUNIT_EXPECT_NE(test, p, 4);
		counts[p]++;
	}
	for (i = 0; i < 8; i++)
		if (i != 4)
			KUNIT_EXPECT_GE(test, counts[i], 5U);
	mro_paths_free(&ps);

	/* paths 0-3 streak first: 4 is not alone, half the others are too */
	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 11, GFP_KERNEL), 0);
	for (p = 0; p < 5; p++) {
		lose(&ps, p, false);
		lose(&ps, p, false);
		KUNIT_EXPECT_EQ(test, ps.path[p].suspended, p < 4);
	}
	for (i = MRO_SUSPEND_STREAK; i < 3 * MRO_RETIRE_STREAK; i++)
		KUNIT_EXPECT_FALSE(test, lose(&ps, 4, false));
	KUNIT_EXPECT_FALSE(test, ps.path[4].suspended);
	/* one recovers: path 4, beside 3 in trouble of 7, goes on its next */
	mro_path_delivered(&ps, 0);
	KUNIT_EXPECT_TRUE(test, lose(&ps, 4, false));
	KUNIT_EXPECT_TRUE(test, ps.path[4].suspended);
	/* a hole in 3 of 8 paths: all three retire */
	mro_paths_free(&ps);
	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 11, GFP_KERNEL), 0);
	for (i = 1; i <= MRO_RETIRE_STREAK; i++)
		for (p = 0; p < 3; p++)
			if (lose(&ps, p, false)) {
				KUNIT_EXPECT_EQ(test, i, MRO_RETIRE_STREAK);
				mro_path_retire(&ps, p, 0, 0);
			}
	KUNIT_EXPECT_EQ(test, mro_paths_active(&ps), 5);
	/* losing a quarter of their packets lately is trouble too */
	mro_paths_free(&ps);
	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 11, GFP_KERNEL), 0);
	for (p = 0; p < 4; p++)
		ps.path[p].loss_ewma = MRO_TROUBLE_EWMA;
	for (i = 1; i <= MRO_RETIRE_STREAK; i++)
		KUNIT_EXPECT_FALSE(test, lose(&ps, 5, false));
	KUNIT_EXPECT_FALSE(test, ps.path[5].suspended);
	ps.path[3].loss_ewma = MRO_TROUBLE_EWMA - 1;
	KUNIT_EXPECT_TRUE(test, lose(&ps, 5, false));
	KUNIT_EXPECT_TRUE(test, ps.path[5].suspended);
	/* an RTO finds every path's packets lost: none is singled out */
	mro_paths_free(&ps);
	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 11, GFP_KERNEL), 0);
	for (i = 0; i < MRO_RETIRE_STREAK + 2; i++)
		for (p = 0; p < 8; p++)
			KUNIT_EXPECT_FALSE(test, lose(&ps, p, true));
	for (p = 0, i = 0; p < 8; p++)
		i += ps.path[p].suspended;
	KUNIT_EXPECT_LE(test, i, 4);
	KUNIT_EXPECT_EQ(test, mro_paths_active(&ps), 8);
	/* two paths: one may be suspended, never both */
	mro_paths_free(&ps);
	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 2, 11, GFP_KERNEL), 0);
	for (i = 0; i < 4; i++) {
		lose(&ps, 0, false);
		lose(&ps, 1, false);
	}
	KUNIT_EXPECT_TRUE(test, ps.path[0].suspended);
	KUNIT_EXPECT_FALSE(test, ps.path[1].suspended);
	mro_paths_free(&ps);
	/* one path is never suspended */
	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 1, 11, GFP_KERNEL), 0);
	for (i = 0; i < 4; i++)
		lose(&ps, 0, false);
	KUNIT_EXPECT_FALSE(test, ps.path[0].suspended);
	mro_paths_free(&ps);
}

static void sched_retx_and_retired(struct kunit *test)
{
	struct mro_pathset ps;
	u32 seq, counts[8] = {};
	u64 mask;
	u16 i, p;

	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 11, GFP_KERNEL), 0);
	/* a retransmission never takes the path that lost the packet */
	for (i = 0; i < 64; i++) {
		p = mro_path_pick_retx(&ps, BIT_ULL(3), &seq);
		KUNIT_EXPECT_NE(test, p, 3);
		counts[p]++;
	}
	/* ... and spreads over the healthy ones */
	for (i = 0; i < 8; i++)
		if (i != 3)
			KUNIT_EXPECT_GT(test, counts[i], 0U);
	/* a resend's copies: each on a path no other took, while any is left */
	mask = BIT_ULL(3);
	for (i = 0; i < 7; i++) {
		KUNIT_EXPECT_TRUE(test, mro_path_spare(&ps, mask));
		p = mro_path_pick_retx(&ps, mask, &seq);
		KUNIT_EXPECT_FALSE(test, mask & BIT_ULL(p));
		mask |= BIT_ULL(p);
	}
	KUNIT_EXPECT_EQ(test, mask, 0xffULL);
	KUNIT_EXPECT_FALSE(test, mro_path_spare(&ps, mask));
	/* it prefers the healthier path */
	for (i = 0; i < 8; i++)
		if (i != 5)
			lose(&ps, i, false);
	KUNIT_EXPECT_EQ(test, mro_path_pick_retx(&ps, BIT_ULL(3), &seq), 5);
	KUNIT_EXPECT_EQ(test, mro_path_pick_retx(&ps, BIT_ULL(3), &seq), 5);
	/* never a retired one; all others retired: the scheduler decides */
	mro_path_retire(&ps, 5, 0, 0);
	KUNIT_EXPECT_NE(test, mro_path_pick_retx(&ps, BIT_ULL(3), &seq), 5);
	KUNIT_EXPECT_FALSE(test, mro_path_spare(&ps, (u64)~BIT_ULL(5)));
	for (i = 0; i < 8; i++)
		if (i != 3)
			mro_path_retire(&ps, i, 0, 0);
	KUNIT_EXPECT_EQ(test, mro_path_pick_retx(&ps, BIT_ULL(3), &seq), 3);
	/* the round robin skips retired paths */
	mro_paths_free(&ps);
	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 8, 11, GFP_KERNEL), 0);
	mro_path_retire(&ps, 6, 0, 0);
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_NE(test, mro_path_pick(&ps, &seq), 6);
	seq = mro_path_probe(&ps, 6, 0);
	KUNIT_EXPECT_TRUE(test, mro_path_echo(&ps, 6, seq, 0, 0));
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < 80; i++)
		counts[mro_path_pick(&ps, &seq)]++;
	KUNIT_EXPECT_EQ(test, counts[6], 10U);
	mro_paths_free(&ps);
	/* one path: a retransmission has nowhere else to go */
	KUNIT_ASSERT_EQ(test, mro_paths_init(&ps, 1, 11, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, mro_path_pick_retx(&ps, BIT_ULL(0), &seq), 0);
	KUNIT_EXPECT_FALSE(test, lose(&ps, 0, true));
	mro_paths_free(&ps);
}

static struct kunit_case metaroce_recovery_cases[] = {
	KUNIT_CASE(sack_next),
	KUNIT_CASE(sack_walk),
	KUNIT_CASE(ack_bounds),
	KUNIT_CASE(loss_scan_end),
	KUNIT_CASE(loss_per_path),
	KUNIT_CASE(loss_reorder_fallback),
	KUNIT_CASE(loss_reorder_timer),
	KUNIT_CASE(loss_reorder_distance),
	KUNIT_CASE(loss_reo_window),
	KUNIT_CASE(loss_reo_adapt),
	KUNIT_CASE(loss_resend_guard),
	KUNIT_CASE(loss_wrap),
	KUNIT_CASE(loss_adversarial),
	KUNIT_CASE(rtt_update),
	KUNIT_CASE(rto_compute),
	KUNIT_CASE(pto_tail_expectation),
	KUNIT_CASE(rto_old_psns),
	KUNIT_CASE(rto_wait_left),
	KUNIT_CASE(retry_exhausted),
	KUNIT_CASE(loss_counted_once),
	KUNIT_CASE(paths_seeded_seqs),
	KUNIT_CASE(loss_behind_delivery),
	KUNIT_CASE(score_and_retire),
	KUNIT_CASE(retire_probe_revive),
	KUNIT_CASE(probe_wait_next),
	KUNIT_CASE(echo_owed_retires),
	KUNIT_CASE(sched_retx_and_retired),
	KUNIT_CASE(suspend_trickle),
	{}
};

static struct kunit_suite metaroce_recovery_suite = {
	.name = "metaroce_recovery",
	.test_cases = metaroce_recovery_cases,
};

kunit_test_suite(metaroce_recovery_suite);
