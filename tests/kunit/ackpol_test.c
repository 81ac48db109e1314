// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of metaroce's requester ACK policy (mro_ackpol.c): the
 * reopening of a closed congestion window, grant and READ burst, the ACK
 * requests against the responder's rhythm, and that a sender clocked by
 * its ACKs never stalls and asks for a bounded number of them.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/minmax.h>

#include "mro_ackpol.h"
#include "mro_psn.h"

/* the ACK rhythm's step (mro_psn.h), a power of two */
#define E	MRO_ACK_EVERY

/*
 * The congestion window reopens by a quarter (at least the ACK rhythm's
 * step, E PSNs, once the window is 2E or more), never by less than the
 * request; small windows still reopen.
 */
static void ackpol_window_reopen(struct kunit *test)
{
	bool closed = false;

	KUNIT_EXPECT_FALSE(test, mro_ackpol_cwnd_wait(4 * E - 2, 4 * E, 2,
						      &closed));
	KUNIT_EXPECT_TRUE(test, mro_ackpol_cwnd_wait(4 * E, 4 * E, 1, &closed));
	KUNIT_EXPECT_TRUE(test, closed);
	KUNIT_EXPECT_TRUE(test, mro_ackpol_cwnd_wait(4 * E - 1, 4 * E, 1,
						     &closed));
	KUNIT_EXPECT_TRUE(test, mro_ackpol_cwnd_wait(3 * E + 1, 4 * E, 1,
						     &closed));
	KUNIT_EXPECT_FALSE(test, mro_ackpol_cwnd_wait(3 * E, 4 * E, 1,
						      &closed));
	KUNIT_EXPECT_FALSE(test, closed);
	/* a large window: a quarter */
	closed = true;
	KUNIT_EXPECT_TRUE(test, mro_ackpol_cwnd_wait(301, 400, 1, &closed));
	KUNIT_EXPECT_FALSE(test, mro_ackpol_cwnd_wait(300, 400, 1, &closed));
	/* the smallest windows reopen with one or two free */
	closed = true;
	KUNIT_EXPECT_FALSE(test, mro_ackpol_cwnd_wait(1, 2, 1, &closed));
	closed = true;
	KUNIT_EXPECT_TRUE(test, mro_ackpol_cwnd_wait(3, 4, 1, &closed));
	KUNIT_EXPECT_FALSE(test, mro_ackpol_cwnd_wait(2, 4, 1, &closed));
	/* a shrunk window (more out than it) waits without underflow */
	KUNIT_EXPECT_TRUE(test, mro_ackpol_cwnd_wait(U32_MAX, 4, 1, &closed));
	KUNIT_EXPECT_TRUE(test, closed);
}

/*
 * The grant's silly-window avoidance: once the grant stopped new data,
 * it reopens only when a quarter of its span (at most E PSNs, at least
 * one) is free, never for less than the request.
 */
static void ackpol_credit_reopen(struct kunit *test)
{
	bool closed = false;

	/* room: goes */
	KUNIT_EXPECT_FALSE(test, mro_ackpol_credit_wait(3, 256, 2, &closed));
	/* no room: waits, closed */
	KUNIT_EXPECT_TRUE(test, mro_ackpol_credit_wait(1, 256, 2, &closed));
	KUNIT_EXPECT_TRUE(test, closed);
	/* a span of 256: E free to go on */
	KUNIT_EXPECT_TRUE(test, mro_ackpol_credit_wait(E - 1, 256, 1, &closed));
	KUNIT_EXPECT_FALSE(test, mro_ackpol_credit_wait(E, 256, 1, &closed));
	KUNIT_EXPECT_FALSE(test, closed);
	/* a span of 16: a quarter */
	closed = true;
	KUNIT_EXPECT_TRUE(test, mro_ackpol_credit_wait(3, 16, 1, &closed));
	KUNIT_EXPECT_FALSE(test, mro_ackpol_credit_wait(4, 16, 1, &closed));
	/* the request counts when it is larger */
	closed = true;
	KUNIT_EXPECT_TRUE(test, mro_ackpol_credit_wait(4, 16, 6, &closed));
	KUNIT_EXPECT_FALSE(test, mro_ackpol_credit_wait(6, 16, 6, &closed));
	/* tiny spans reopen on one; a wrapped span counts as large */
	closed = true;
	KUNIT_EXPECT_FALSE(test, mro_ackpol_credit_wait(1, 2, 1, &closed));
	closed = true;
	KUNIT_EXPECT_FALSE(test, mro_ackpol_credit_wait(1, 0, 1, &closed));
	closed = true;
	KUNIT_EXPECT_TRUE(test, mro_ackpol_credit_wait(E - 1, U32_MAX, 1,
						       &closed));
	KUNIT_EXPECT_FALSE(test, mro_ackpol_credit_wait(E, U32_MAX, 1, &closed));
}

/*
 * A READ_REQ's response burst: what the window and the grant have room
 * for, but never a packet at a time into a closed window, never 0, and
 * never more than asked.
 */
static void ackpol_read_burst_size(struct kunit *test)
{
	/* what a closed window of 40 needs free to reopen (mro_ackpol.c) */
	const u32 r = max_t(u32, 40 / 4, min_t(u32, MRO_ACK_EVERY, 40 / 2));
	bool closed = false;
	u32 n;

	/* an empty pipe: the whole chunk up to the window */
	KUNIT_EXPECT_EQ(test, mro_ackpol_burst_size(64, 0, 40, 1000), 40U);
	KUNIT_EXPECT_EQ(test, mro_ackpol_burst_size(16, 0, 40, 1000), 16U);
	/* the grant bounds it too */
	KUNIT_EXPECT_EQ(test, mro_ackpol_burst_size(64, 0, 40, 20), 20U);
	/* room for 30 of a window of 40 */
	KUNIT_EXPECT_EQ(test, mro_ackpol_burst_size(64, 10, 40, 1000), 30U);
	/*
	 * room for 2 of 40: asks for the reopening share, which the window
	 * refuses until that share is free (no one-packet READs)
	 */
	n = mro_ackpol_burst_size(64, 38, 40, 1000);
	KUNIT_EXPECT_EQ(test, n, r);
	KUNIT_EXPECT_TRUE(test, mro_ackpol_cwnd_wait(38, 40, n, &closed));
	KUNIT_EXPECT_TRUE(test, closed);
	n = mro_ackpol_burst_size(64, 40 - r + 1, 40, 1000);
	KUNIT_EXPECT_TRUE(test, mro_ackpol_cwnd_wait(40 - r + 1, 40, n, &closed));
	n = mro_ackpol_burst_size(64, 40 - r, 40, 1000);
	KUNIT_EXPECT_EQ(test, n, r);
	KUNIT_EXPECT_FALSE(test, mro_ackpol_cwnd_wait(40 - r, 40, n, &closed));
	/* a window past full, tiny windows, no grant: at least one */
	KUNIT_EXPECT_EQ(test, mro_ackpol_burst_size(64, U32_MAX, 1, 0), 1U);
	KUNIT_EXPECT_EQ(test, mro_ackpol_burst_size(64, 0, 1, 0), 1U);
	KUNIT_EXPECT_EQ(test, mro_ackpol_burst_size(1, 0, U32_MAX, U32_MAX), 1U);
	KUNIT_EXPECT_EQ(test, mro_ackpol_burst_size(0, 0, 40, 40), 0U);
}

/*
 * The ACK rhythm: the responder acknowledges PSNs E - 1, 2E - 1 ...
 * unasked, so a packet asks only when the grant, or the window, stops the
 * sender before the next of them and no ACK still to come reopens the
 * window; across the PSN wrap too.
 */
static void ackpol_ack_request_rhythm(struct kunit *test)
{
	/* self-acknowledged PSNs never ask */
	KUNIT_EXPECT_FALSE(test, mro_ackpol_need_ack(E - 1, 0, 10, 4, 0));
	KUNIT_EXPECT_FALSE(test, mro_ackpol_need_ack(U32_MAX, 0, 2, 9, 0));
	/* the grant stops the sender before PSN E - 1 */
	KUNIT_EXPECT_TRUE(test, mro_ackpol_need_ack(0, 0, 100, 1, E - 2));
	KUNIT_EXPECT_FALSE(test, mro_ackpol_need_ack(E - 2, 0, 1000, 3, 1));
	/* the window lets it reach PSN E - 1 */
	KUNIT_EXPECT_FALSE(test, mro_ackpol_need_ack(0, 0, 2 * E, 1, 100));
	/* it does not, and no self-acknowledged PSN is out */
	KUNIT_EXPECT_TRUE(test, mro_ackpol_need_ack(0, 0, 2 * E, 2 * E, 100));
	/* ... one is (E - 1): its ACK leaves 2 out, enough to reopen */
	KUNIT_EXPECT_FALSE(test, mro_ackpol_need_ack(E + 1, E - 2, 2 * E, 2 * E,
						     100));
	/* below two rhythms, the window's own span: 8 PSNs in E - 1 */
	KUNIT_EXPECT_FALSE(test, mro_ackpol_need_ack(0, 0, E - 1, 1, 100));
	KUNIT_EXPECT_TRUE(test, mro_ackpol_need_ack(7, 0, E - 1, 8, 100));
	/* a window of 8 (span 4) stopped before PSN 3, none to come */
	KUNIT_EXPECT_TRUE(test, mro_ackpol_need_ack(1, 0, 8, 8, 100));
	/* ... stopped before PSN 7 with PSN 3 out: its ACK reopens */
	KUNIT_EXPECT_FALSE(test, mro_ackpol_need_ack(5, 0, 8, 7, 100));
	/* ... unless PSN 3 was acknowledged already */
	KUNIT_EXPECT_TRUE(test, mro_ackpol_need_ack(5, 4, 8, 7, 100));
	/* a window of 2 asks every second PSN */
	KUNIT_EXPECT_TRUE(test, mro_ackpol_need_ack(E + 1, E, 2, 2, 100));
	KUNIT_EXPECT_FALSE(test, mro_ackpol_need_ack(E + 2, E, 2, 1, 100));
	/* across the wrap: U32_MAX - E is self-acknowledged and still out */
	KUNIT_EXPECT_FALSE(test, mro_ackpol_need_ack(U32_MAX - 1,
						     U32_MAX - E - 2, 4 * E, 4 * E,
						     100));
	/* ... or already acknowledged */
	KUNIT_EXPECT_TRUE(test, mro_ackpol_need_ack(U32_MAX - 1, U32_MAX - E + 1,
						    4 * E, 4 * E, 100));
}

/* the requester's own rhythm below two of the responder's */
static void ackpol_ack_span(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mro_ackpol_span(0), 2U);
	KUNIT_EXPECT_EQ(test, mro_ackpol_span(2), 2U);
	KUNIT_EXPECT_EQ(test, mro_ackpol_span(7), 2U);
	KUNIT_EXPECT_EQ(test, mro_ackpol_span(8), 4U);
	KUNIT_EXPECT_EQ(test, mro_ackpol_span(16), 8U);
	KUNIT_EXPECT_EQ(test, mro_ackpol_span(2 * E - 1), E / 2);
	KUNIT_EXPECT_EQ(test, mro_ackpol_span(2 * E), (u32)E);
	KUNIT_EXPECT_EQ(test, mro_ackpol_span(U32_MAX), (u32)E);
}

/*
 * Every packet in [@una, @nxt) delivered: the PSN after the newest one
 * that brings an ACK (a rhythm PSN, or @last_ask if @have_ask) into
 * *@acked_to; false if none does (the flow stalls).
 */
static bool deliver_all(u32 una, u32 nxt, bool have_ask, u32 last_ask,
			u32 *acked_to)
{
	bool got = false;
	u32 psn;

	*acked_to = una;
	for (psn = una; psn != nxt; psn++)
		if (mro_psn_self_acked(psn) || (have_ask && psn == last_ask)) {
			*acked_to = psn + 1;
			got = true;
		}
	return got;
}

/*
 * A window-limited sender against a responder that follows the rhythm,
 * every packet delivered, the newest ACK returned: the flow never stalls
 * (the sender always has room or an ACK to wait for), and for windows of
 * 2E or more at most one packet in E asks.
 */
static void ackpol_ack_rhythm_no_stall(struct kunit *test)
{
	u32 cwnd;

	for (cwnd = 2; cwnd <= 12 * E; cwnd++) {
		u32 una = U32_MAX - 100, nxt = una, asked = 0, sent = 0;
		u32 last_ask = 0, step;
		bool closed = false, have_ask = false;

		for (step = 0; step < 400; step++) {
			u32 acked_to;
			bool got;

			while (!mro_ackpol_cwnd_wait(nxt - una, cwnd, 1,
						     &closed) ||
			       nxt == una) {
				if (mro_ackpol_need_ack(nxt, una, cwnd,
							nxt - una + 1, 1000)) {
					asked++;
					last_ask = nxt;
					have_ask = true;
				}
				nxt++;
				sent++;
			}
			got = deliver_all(una, nxt, have_ask, last_ask,
					  &acked_to);
			KUNIT_ASSERT_TRUE_MSG(test, got,
					      "cwnd %u stalls at %u", cwnd, una);
			una = acked_to;
		}
		if (cwnd >= 2 * E)
			KUNIT_EXPECT_LE_MSG(test, asked * E, sent,
					    "cwnd %u: %u asks in %u", cwnd,
					    asked, sent);
	}
}

/*
 * A grant-limited sender (a share of @share PSNs past the responder's
 * base, renewed by every ACK) against the rhythm, every packet delivered,
 * the newest ACK returned: the flow never stalls, and once the share
 * spans two rhythm PSNs the rhythm alone keeps it going: the packets at
 * the grant's edge do not ask (not at every stop once the edge is off the
 * rhythm, as it is here from the start).
 */
static void ackpol_ack_credit_no_stall(struct kunit *test)
{
	u32 share;

	for (share = 1; share <= 12 * E; share++) {
		u32 una = U32_MAX - 100, nxt = una, grant = una + share;
		u32 asked = 0, sent = 0, last_ask = 0, step;
		bool have_ask = false;

		for (step = 0; step < 400; step++) {
			u32 acked_to;
			bool got;

			while (mro_seq_before(nxt, grant)) {
				if (mro_ackpol_need_ack(nxt, una, 100000,
							nxt - una + 1,
							grant - nxt - 1)) {
					asked++;
					last_ask = nxt;
					have_ask = true;
				}
				nxt++;
				sent++;
			}
			got = deliver_all(una, nxt, have_ask, last_ask,
					  &acked_to);
			KUNIT_ASSERT_TRUE_MSG(test, got,
					      "share %u stalls at %u", share,
					      una);
			una = acked_to;
			grant = una + share;
		}
		if (share >= E)
			KUNIT_EXPECT_LE_MSG(test, asked * E, sent,
					    "share %u: %u asks in %u", share,
					    asked, sent);
		if (share >= 2 * E)
			KUNIT_EXPECT_LE_MSG(test, asked, 1U,
					    "share %u: %u asks in %u", share,
					    asked, sent);
	}
}

/*
 * An ACK-clocked sender: one packet per tick, @d (< 16) ticks each way,
 * every packet delivered, the responder acknowledging the rhythm's PSNs
 * and those that ask, each ACK cumulative.  Packets and ACKs in @ticks.
 */
static void ack_clock_run(u32 cwnd, u32 d, u32 ticks, u32 *sent, u32 *acks)
{
	u32 pkt_psn[16] = {}, ack_cum[16] = {};
	bool pkt_on[16] = {}, pkt_ask[16] = {}, ack_on[16] = {};
	u32 una = U32_MAX - 100, nxt = una, t, s, a;
	bool closed = false;

	*sent = 0;
	*acks = 0;
	for (t = 0; t < ticks; t++) {
		s = t % 16;
		a = (t + d) % 16;
		if (ack_on[s] && mro_seq_after(ack_cum[s], una))
			una = ack_cum[s];
		ack_on[s] = false;
		if (pkt_on[s] && (pkt_ask[s] || mro_psn_self_acked(pkt_psn[s]))) {
			ack_on[a] = true;
			ack_cum[a] = pkt_psn[s] + 1;
			(*acks)++;
		}
		pkt_on[s] = false;
		if (mro_ackpol_cwnd_wait(nxt - una, cwnd, 1, &closed))
			continue;
		pkt_on[a] = true;
		pkt_psn[a] = nxt;
		pkt_ask[a] = mro_ackpol_need_ack(nxt, una, cwnd, nxt - una + 1,
						 1000);
		nxt++;
		(*sent)++;
	}
}

/*
 * Clocked by its ACKs, a window stops at nearly every packet: asked at
 * its stops alone, a window below the rhythm had one ACK per 1.2-3.5
 * packets (windows of 8-24, 3 ticks each way, before this test).  At most
 * two ACKs per span of mro_ackpol_span(), and the window still fills at
 * least 0.4 of what it could move (one packet per tick, or a window per
 * round trip).
 */
static void ackpol_ack_clocked_span(struct kunit *test)
{
	static const u32 delays[] = { 1, 3, 8 };
	u32 i, cwnd, sent, acks, ideal;

	for (i = 0; i < ARRAY_SIZE(delays); i++) {
		for (cwnd = 2; cwnd <= 4 * E; cwnd++) {
			ack_clock_run(cwnd, delays[i], 4000, &sent, &acks);
			ideal = min_t(u32, 4000,
				      4000 * cwnd / (2 * delays[i] + 1));
			KUNIT_EXPECT_LE_MSG(test, acks * mro_ackpol_span(cwnd),
					    2 * sent,
					    "cwnd %u, %u ticks: %u ACKs for %u",
					    cwnd, delays[i], acks, sent);
			KUNIT_EXPECT_GE_MSG(test, sent * 5, ideal * 2,
					    "cwnd %u, %u ticks: %u sent",
					    cwnd, delays[i], sent);
		}
	}
}

#undef E

/* the transport window reopens with an eighth of it free */
static void ackpol_txwin_reopen(struct kunit *test)
{
	bool closed = false;

	KUNIT_EXPECT_FALSE(test, mro_ackpol_txwin_wait(511, 512, 1, &closed));
	KUNIT_EXPECT_TRUE(test, mro_ackpol_txwin_wait(512, 512, 1, &closed));
	KUNIT_EXPECT_TRUE(test, mro_ackpol_txwin_wait(449, 512, 1, &closed));
	KUNIT_EXPECT_FALSE(test, mro_ackpol_txwin_wait(448, 512, 1, &closed));
	KUNIT_EXPECT_FALSE(test, closed);
	/* the packet that fills the window asks */
	KUNIT_EXPECT_FALSE(test, mro_ackpol_txwin_ask(510, 0, 512));
	KUNIT_EXPECT_TRUE(test, mro_ackpol_txwin_ask(511, 0, 512));
	KUNIT_EXPECT_TRUE(test, mro_ackpol_txwin_ask(U32_MAX, U32_MAX - 511,
						     512));
}

static struct kunit_case metaroce_ackpol_cases[] = {
	KUNIT_CASE(ackpol_txwin_reopen),
	KUNIT_CASE(ackpol_window_reopen),
	KUNIT_CASE(ackpol_credit_reopen),
	KUNIT_CASE(ackpol_read_burst_size),
	KUNIT_CASE(ackpol_ack_request_rhythm),
	KUNIT_CASE(ackpol_ack_span),
	KUNIT_CASE(ackpol_ack_rhythm_no_stall),
	KUNIT_CASE(ackpol_ack_credit_no_stall),
	KUNIT_CASE(ackpol_ack_clocked_span),
	{}
};

static struct kunit_suite metaroce_ackpol_suite = {
	.name = "metaroce_ackpol",
	.test_cases = metaroce_ackpol_cases,
};

kunit_test_suite(metaroce_ackpol_suite);
