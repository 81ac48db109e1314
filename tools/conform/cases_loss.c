// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The target as RC requester under the tester's feedback (protocol.rst:
 * PSN semantics, CREDIT, Acknowledgements, Loss detection, Retransmission
 * timeout): how far a grant lets it send, which PSNs an ACK's SACK shows
 * lost at once and which only after the reorder timer, when the
 * tail-loss probe goes, and which packets of a small window ask for an
 * ACK.  The tester answers by hand; a round trip it wants the target to
 * measure it makes by holding its ACK of a first SEND.  Every time bound
 * is a floor (a timer can only be late), less a few milliseconds for a
 * packet that waited in the runner's socket, or the midpoint between the
 * time the rule sets and the time another rule would.
 */
#include "conform.h"

#define TVA	0x100000ULL	/* an address and key the target names */
#define TRKEY	0x4242

/* an ACK of cum_psn @cum, grant @credit, SACK bits @sack0 (bit k: cum+1+k) */
static void ack_to(struct cx *cx, const struct pkt *p, u32 cum, u32 credit,
		   u64 sack0)
{
	u64 sack[2] = { sack0, 0 };

	cx_ack_sack(cx, p, cum, credit, sack);
}

/* the first packet of @opcode at @psn from q[@from] on (@retx: a resend) */
static struct pkt *first_at(struct cx *cx, unsigned int from, u8 opcode,
			    u32 psn, bool retx)
{
	unsigned int i;

	for (i = from; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];

		if (p->h.opcode == opcode && p->h.psn == psn &&
		    !!(p->h.flags & METAROCE_F_RETX) == retx)
			return p;
	}
	return NULL;
}

/* pump until first_at() finds it, or @ms */
static struct pkt *await_at(struct cx *cx, unsigned int from, u8 opcode,
			    u32 psn, bool retx, int ms)
{
	u64 end = cx_now_us() + ms * 1000ULL;
	struct pkt *p;

	while (!(p = first_at(cx, from, opcode, psn, retx)) &&
	       cx_now_us() < end)
		cx_pump(cx, 2);
	return p;
}

/* the first PROBE from q[@from] on (NULL: none) */
static struct pkt *first_probe(struct cx *cx, unsigned int from)
{
	unsigned int i;

	for (i = from; i < cx->nq; i++)
		if (cx->q[i].h.opcode == METAROCE_OP_PROBE)
			return &cx->q[i];
	return NULL;
}

/* wait at most @ms for the target's first completions */
static int first_wc(struct cx *cx, int ms, struct twc *wc)
{
	return cx_wc_wait(cx, ms, wc, 4);
}

/* how long the tester held its latest ACK in warm_rtt(), in us */
static u64 last_hold_us;

/*
 * A SEND of 16 bytes at @psn acknowledged @rtt_ms after the tester read
 * it, with a grant of @grant PSNs: the target measures that round trip
 */
static bool warm_rtt(struct cx *cx, u64 wr, u32 psn, int rtt_ms, u32 grant)
{
	unsigned int from = cx->nq;
	struct twc wc[4];
	struct pkt *p;

	CHECK(cx, !cx_agent(cx, "SEND wr=%llu off=0 len=16",
			    (unsigned long long)wr), "post SEND");
	p = await_at(cx, from, METAROCE_OP_SEND, psn, false, 1000);
	CHECK(cx, p != NULL, "no SEND at PSN %u within 1 s", psn);
	if (!p)
		return false;
	while (cx_now_us() < p->t_us + rtt_ms * 1000ULL)
		cx_pump(cx, 1);
	/* the newest transmission of the PSN: a resend if the RTO came */
	for (; from < cx->nq; from++)
		if (cx->q[from].h.opcode == METAROCE_OP_SEND &&
		    cx->q[from].h.psn == psn)
			p = &cx->q[from];
	ack_to(cx, p, psn + 1, psn + 1 + grant, 0);
	last_hold_us = cx_now_us() - p->t_us;
	CHECK(cx, first_wc(cx, 1000, wc) == 1 && wc[0].wr == wr &&
	      !strcmp(wc[0].status, "success"),
	      "the answered SEND did not complete");
	cx_pump(cx, 2);
	return !cx->fails;
}

/* new (not resent) WRITE PSNs from q[@from] on: how many, the highest */
static unsigned int new_writes(struct cx *cx, unsigned int from, u32 base,
			       u32 *hi)
{
	unsigned int i, n = 0;

	*hi = base - 1;
	for (i = from; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];

		if (p->h.opcode != METAROCE_OP_WRITE ||
		    (p->h.flags & METAROCE_F_RETX))
			continue;
		n++;
		if ((s32)(p->h.psn - *hi) > 0)
			*hi = p->h.psn;
	}
	return n;
}

/*
 * the first transmissions of a WRITE from PSN @psn0 on, up to its LAST
 * packet: how many, the first and the last; false unless 6 or more
 */
static bool write_flight(struct cx *cx, unsigned int from, u32 psn0,
			 struct pkt **f, struct pkt **l, unsigned int *n)
{
	struct pkt *r;

	*f = *l = NULL;
	for (*n = 0;; ++*n) {
		r = await_at(cx, from, METAROCE_OP_WRITE, psn0 + *n, false, 500);
		if (!r)
			break;
		if (!*n)
			*f = r;
		*l = r;
		if (r->h.flags & METAROCE_F_LAST) {
			++*n;
			break;
		}
	}
	CHECK(cx, *l && ((*l)->h.flags & METAROCE_F_LAST) && *n >= 6,
	      "the WRITE of 8192 bytes: %u packets, want 6 or more ending with LAST",
	      *n);
	return !cx->fails;
}

/* the newest transmission of @psn (NULL: none) */
static struct pkt *newest_of(struct cx *cx, u8 opcode, u32 psn)
{
	unsigned int i;

	for (i = cx->nq; i-- > 0;)
		if (cx->q[i].h.opcode == opcode && cx->q[i].h.psn == psn)
			return &cx->q[i];
	return NULL;
}

/*
 * Grants of 4 PSNs past cum_psn while a WRITE of 36 PSNs goes out, its
 * packets acknowledged in rounds 200 ms after the first of each left:
 * the grant moves past the speculative first window (32 PSNs, which a
 * smaller grant does not move back) and the target measures a round trip
 * of 200 ms or more, so its RTO does not fall inside the 100 ms steps
 * below.  Returns the grant's base (the WRITE's end), 0 on failure.
 */
static u32 grant_regime(struct cx *cx)
{
	u32 first = cx->tpsn, cum = first;
	unsigned int from = cx->nq, i;
	struct pkt *echo;
	struct twc wc[4];
	u64 end;
	int n = 0;

	CHECK(cx, !cx_agent(cx, "WRITE wr=1 off=0 len=49152 va=%llu rkey=%u",
			    TVA, TRKEY), "post WRITE");
	end = cx_now_us() + 5000000;
	while (!n && cx_now_us() < end) {
		echo = NULL;
		for (i = from; i < cx->nq && !echo; i++)
			if (cx->q[i].h.opcode == METAROCE_OP_WRITE &&
			    (s32)(cx->q[i].h.psn - cum) >= 0)
				echo = &cx->q[i];
		if (!echo) {
			cx_pump(cx, 2);
			continue;
		}
		while (cx_now_us() < echo->t_us + 200000)
			cx_pump(cx, 1);
		while (newest_of(cx, METAROCE_OP_WRITE, cum))
			cum++;
		ack_to(cx, echo, cum, cum + 4, 0);
		n = first_wc(cx, 20, wc);
	}
	CHECK(cx, n == 1 && wc[0].wr == 1 && !strcmp(wc[0].status, "success"),
	      "the first WRITE did not complete under grants of 4 PSNs");
	cx_pump(cx, 5);
	return cx->fails ? 0 : cum;
}

/*
 * The grant bounds the sender: with a grant 4 PSNs past the base, a WRITE
 * gets 4 PSNs out and no more; the next ACK's grant of 16 more lets new
 * PSNs out again, none past it; a CREDIT whose grant lies past the
 * target's own window (1000 PSNs; the window is 512 by default, 16384 at
 * most) is taken (clamped to the window), not dropped: more of the WRITE
 * goes out before any other ACK.
 */
static void c_credit_limit(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=18 retry=7" };
	u32 una, hi, end_psn;
	unsigned int from, n;
	struct mro_hdr h;
	struct twc wc[4];
	struct pkt *p;
	u64 end;

	if (cx_setup(cx, &o))
		return;
	una = grant_regime(cx);
	if (!una)
		return;
	from = cx->nq;
	CHECK(cx, !cx_agent(cx, "WRITE wr=2 off=0 len=49152 va=%llu rkey=%u",
			    TVA, TRKEY), "post WRITE");
	cx_pump(cx, 100);
	n = new_writes(cx, from, una, &hi);
	CHECK(cx, n == 4 && hi == una + 3,
	      "%u new PSNs up to %d past the grant's base with a grant of 4, want 4 up to 3",
	      n, (int)(hi - una));
	if (cx->fails)
		return;
	/* ACK-25: the next ACK's grant */
	p = newest_of(cx, METAROCE_OP_WRITE, una + 3);
	from = cx->nq;
	ack_to(cx, p, una + 4, una + 20, 0);
	cx_pump(cx, 100);
	n = new_writes(cx, from, una + 4, &hi);
	CHECK(cx, n >= 1, "no new PSN within 100 ms of an ACK granting 16 more");
	CHECK(cx, (s32)(hi - (una + 20)) < 0,
	      "new PSNs up to %d past the base after a grant of 20",
	      (int)(hi - una));
	if (cx->fails)
		return;
	end_psn = hi + 1;
	/* CTRL-8: a grant past the target's window is clamped, not dropped */
	cx_snap(cx);
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_CREDIT;
	h.psn = una + 4;
	h.ctrl.credit_psn = una + 4 + 1000;
	from = cx->nq;
	cx_send(cx, &h, NULL, 0);
	cx_pump(cx, 100);
	n = new_writes(cx, from, end_psn, &hi);
	CHECK(cx, n >= 1 && (s32)(hi - end_psn) >= 0,
	      "no new PSN within 100 ms of a CREDIT granting 1000 PSNs past the window base: the grant past the target's window was dropped, not clamped");
	CHECK_DELTA(cx, "cc_bad_feedback", 0);
	CHECK_DELTA(cx, "rx_drop_ack_range", 0);
/* the rest, acknowledged as it comes */
	end = cx_now_us() + 3000000;
	n = 0;
	while (!n && cx_now_us() < end) {
		p = newest_of(cx, METAROCE_OP_WRITE, end_psn - 1);
		while (newest_of(cx, METAROCE_OP_WRITE, end_psn))
			p = newest_of(cx, METAROCE_OP_WRITE, end_psn++);
		if (p)
			ack_to(cx, p, end_psn, end_psn + 512, 0);
		n = first_wc(cx, 30, wc);
	}
	CHECK(cx, n >= 1 && wc[0].wr == 2 && !strcmp(wc[0].status, "success"),
	      "the WRITE did not complete: %s", n ? wc[0].status : "no completion in 3 s");
}

#define SW_PSNS	4096		/* PSNs c_silly_window() follows */

/*
 * An ACK of cum_psn @cum granting the window past it, echoing the newest
 * transmission of @cum - 1 with a send time 11 s old: no RTT sample
 * (ACK-21), so no delay the congestion control would cut for
 */
static void ack_no_sample(struct cx *cx, u8 opcode, u32 cum)
{
	struct pkt e, *p = newest_of(cx, opcode, cum - 1);

	if (!p)
		return;
	e = *p;
	e.h.tsval -= 11000000;
	ack_to(cx, &e, cum, cum + 512, 0);
}

/* new PSNs (first transmissions) from q[@from] on at or after @psn */
static unsigned int new_from(struct cx *cx, unsigned int from, u32 psn,
			     u32 *hi)
{
	unsigned int i, n = 0;

	*hi = psn - 1;
	for (i = from; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];

		if (p->h.opcode != METAROCE_OP_WRITE ||
		    (p->h.flags & METAROCE_F_RETX) ||
		    (s32)(p->h.psn - psn) < 0)
			continue;
		n++;
		if ((s32)(p->h.psn - *hi) > 0)
			*hi = p->h.psn;
	}
	return n;
}

/*
 * Silly-window avoidance (PSN-13).  WRITEs acknowledged in rounds, 250 ms
 * after the first new packet of each, every ACK granting the whole window
 * past its cum_psn: the congestion window doubles per round (it starts at
 * 16 PSNs) until a round's flight holds 256 PSNs; then the tester stops
 * acknowledging, and the next flight stops at the transport window, 512
 * PSNs from the oldest unacknowledged one, behind a congestion window
 * larger than it (against a target without one, the second round's).
 * Then the tester acknowledges the oldest PSNs and grants the window past
 * them, with ACKs that give no RTT sample: with 1 and then 63 PSNs of the
 * window free, no new PSN leaves within 150 ms; with 64 free (an eighth)
 * new ones do, at most those 64.
 */
static void c_silly_window(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=18 retry=7" };
	static const u32 steps[2] = { 1, 63 };
	unsigned int from, i, n, round, nwr = 0, ndone = 0;
	u32 una, hi, nxt, flight = 0;
	struct pkt *first;
	struct twc wc[32];
	u64 end;

	if (cx_setup(cx, &o))
		return;
	una = cx->tpsn;
	for (i = 0; i < 32; i++, nwr++)
		CHECK(cx, !cx_agent(cx, "WRITE wr=%u off=0 len=60000 va=%llu rkey=%u",
				    100 + i, TVA, TRKEY), "post WRITE");
	if (cx->fails)
		return;
	/* rounds: the flights grow with the congestion window */
	for (round = 0, from = 0; round < 16 && flight < 256; round++) {
		first = NULL;
		end = cx_now_us() + 2000000;
		while (!first && cx_now_us() < end) {
			cx_pump(cx, 1);
			for (i = from; i < cx->nq && !first; i++)
				if (cx->q[i].h.opcode == METAROCE_OP_WRITE &&
				    !(cx->q[i].h.flags & METAROCE_F_RETX) &&
				    (s32)(cx->q[i].h.psn - una) >= 0)
					first = &cx->q[i];
		}
		CHECK(cx, first != NULL, "round %u: no new PSN within 2 s", round);
		if (!first)
			return;
		while (cx_now_us() < first->t_us + 250000)
			cx_pump(cx, 1);
		from = cx->nq;
		flight = new_from(cx, 0, una, &hi);
		if (hi - una + 1 >= 512)
			break;		/* a target without a congestion window */
		for (nxt = una; newest_of(cx, METAROCE_OP_WRITE, nxt); nxt++)
			;
		ack_to(cx, first, nxt, nxt + 512, 0);
		una = nxt;
		n = cx_wc(cx, 0, wc, 32);
		for (i = 0; i < (unsigned int)((int)n > 0 ? n : 0); i++)
			ndone += !strcmp(wc[i].status, "success");
	}
	cx_note(cx, "%u rounds, the last one's flight %u PSNs", round, flight);
	/* the window fills: wait until the target stops sending */
	for (n = new_from(cx, 0, una, &hi), end = cx_now_us() + 3000000;
	     cx_now_us() < end;) {
		unsigned int m;

		cx_pump(cx, 150);
		m = new_from(cx, 0, una, &hi);
		if (m == n && m)
			break;
		n = m;
	}
	nxt = hi + 1;
	cx_note(cx, "%u PSNs out from the oldest", nxt - una);
	if (nxt - una != 512) {
		CHECK(cx, nxt - una < 512, "%u PSNs out: more than the window of 512",
		      nxt - una);
		if (!cx->fails)
			cx->skip = "the congestion window did not grow past the transport window";
		return;
	}
	/* one, then 63 free: not an eighth of the window yet */
	for (i = 0; i < 2; i++) {
		from = cx->nq;
		ack_no_sample(cx, METAROCE_OP_WRITE, una + steps[i]);
		cx_pump(cx, 150);
		n = new_from(cx, from, nxt, &hi);
		CHECK(cx, n == 0,
		      "%u new PSNs within 150 ms with %u of the window's 512 PSNs free: want none before an eighth (64)",
		      n, steps[i]);
	}
	/* 64 free: the window reopens */
	from = cx->nq;
	ack_no_sample(cx, METAROCE_OP_WRITE, una + 64);
	for (end = cx_now_us() + 1000000;
	     !new_from(cx, from, nxt, &hi) && cx_now_us() < end;)
		cx_pump(cx, 2);
	cx_pump(cx, 100);
	n = new_from(cx, from, nxt, &hi);
	CHECK(cx, n >= 1, "no new PSN within 1 s with an eighth of the window free");
	CHECK(cx, n <= 64 && (s32)(hi - (una + 64 + 512)) < 0,
	      "%u new PSNs up to %d past the window's end with 64 free",
	      n, (int)(hi - (una + 64 + 512)));
	/* the rest, acknowledged as it comes */
	for (end = cx_now_us() + 15000000; ndone < nwr && cx_now_us() < end;) {
		int k;

		for (; newest_of(cx, METAROCE_OP_WRITE, nxt); nxt++)
			;
		ack_no_sample(cx, METAROCE_OP_WRITE, nxt);
		k = cx_wc(cx, 20, wc, 32);
		for (i = 0; i < (unsigned int)(k > 0 ? k : 0); i++) {
			CHECK(cx, !strcmp(wc[i].status, "success"),
			      "WRITE %llu completed %s",
			      (unsigned long long)wc[i].wr, wc[i].status);
			ndone++;
		}
		if (cx->fails)
			return;
	}
	CHECK(cx, ndone == nwr, "%u of %u WRITEs completed", ndone, nwr);
}

/*
 * SACK shows a PSN lost at once (LOSS-3): a SEND X, then 150 ms later a
 * WRITE of 6 or more PSNs, all SACKed, X not: a PSN at least the
 * reordering distance (3 here) above X was delivered, and it left 150 ms
 * after X, more than the reordering window (rttvar, about 110 ms after
 * the two samples).  The SACK echoes the warm-up SEND, not the WRITE:
 * its sample (about 350 ms) goes to the one path that has samples, so no
 * path looks faster than X's and the window has no spread (LOSS-3's
 * "spread"; a fresh 1 ms sample on the WRITE's path would add some 200 ms
 * to it, and X would be due when the tail-loss probe is).  X is resent
 * before the tail-loss probe.  Then the tester acknowledges X echoing X's
 * first transmission: the resend was spurious (LOSS-8).
 */
static void c_loss_sack(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=18 retry=7" };
	struct pkt *x, *f, *l, *r, *pr, *w;
	unsigned int from, n;
	u32 psn_x;
	u64 t_ack, sack = 0;

	if (cx_setup(cx, &o))
		return;
	from = cx->nq;
	if (!warm_rtt(cx, 1, cx->tpsn, 200, 512))
		return;
	/* the newest transmission of the warm-up SEND, as warm_rtt() took */
	for (w = NULL; from < cx->nq; from++)
		if (cx->q[from].h.opcode == METAROCE_OP_SEND &&
		    cx->q[from].h.psn == cx->tpsn)
			w = &cx->q[from];
	psn_x = cx->tpsn + 1;
	from = cx->nq;
	CHECK(cx, !cx_agent(cx, "SEND wr=2 off=0 len=16"), "post SEND");
	x = await_at(cx, from, METAROCE_OP_SEND, psn_x, false, 1000);
	CHECK(cx, x != NULL, "no SEND at PSN %u", psn_x);
	if (!x)
		return;
	while (cx_now_us() < x->t_us + 150000)
		cx_pump(cx, 1);
	CHECK(cx, !cx_agent(cx, "WRITE wr=3 off=0 len=8192 va=%llu rkey=%u",
			    TVA, TRKEY), "post WRITE");
	if (!write_flight(cx, from, psn_x + 1, &f, &l, &n))
		return;
	sack = (1ULL << n) - 1;
	cx_snap(cx);
	from = cx->nq;
	t_ack = cx_now_us();
	ack_to(cx, w, psn_x, psn_x + 512, sack);
	r = await_at(cx, from, METAROCE_OP_SEND, psn_x, true, 1000);
	pr = first_probe(cx, from);
	CHECK(cx, r != NULL, "X was not resent within 1 s of the SACK");
	if (!r)
		return;
	CHECK(cx, !pr || pr->t_us > r->t_us,
	      "a PROBE %llu us after the SACK came before X's resend (%llu us): the SACK's later PSNs did not show X lost",
	      (unsigned long long)(pr ? pr->t_us - t_ack : 0),
	      (unsigned long long)(r->t_us - t_ack));
	cx_note(cx, "X resent %llu us after the SACK",
		(unsigned long long)(r->t_us - t_ack));
	/* at once: not by the reorder timer, a reordering window later */
	CHECK(cx, r->t_us - t_ack < 50000,
	      "X resent %llu us after the SACK, not at once: the SACK's time condition did not hold",
	      (unsigned long long)(r->t_us - t_ack));
	/* the ACK of X echoes its first transmission: a spurious resend */
	cx_pump(cx, 5);
	ack_to(cx, x, psn_x + 1 + n, psn_x + 1 + n + 512, 0);
	cx_pump(cx, 30);
	CHECK_DELTA(cx, "spurious_retransmits", 1);
}

/*
 * The reorder timer (LOSS-7): a WRITE of 6 or more PSNs, every one but
 * the first SACKed at once.  The later PSNs left within milliseconds of
 * the first, less than the reordering window (half the 100 ms round trip
 * of one sample, 50 ms): no rule's time condition holds at the ACK, and
 * no later ACK comes.  The first PSN is resent once the delivery
 * frontier has moved the reordering window past its send time, about
 * 50 ms after the ACK and at least a quarter of the round trip (the
 * window's floor) less the spread of the WRITE's send times; before the
 * tail-loss probe (2 srtt, 200 ms, after the WRITE left).
 */
static void c_reorder_timer(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=18 retry=7" };
	struct pkt *f, *l, *r, *pr;
	unsigned int from, n;
	u64 t_ack, sack;
	s64 floor_us;
	u32 psn0;

	if (cx_is_refpeer(cx)) {
		cx->skip = "the reference peer has no reorder timer";
		return;
	}
	if (cx_setup(cx, &o) || !warm_rtt(cx, 1, cx->tpsn, 100, 512))
		return;
	psn0 = cx->tpsn + 1;
	from = cx->nq;
	CHECK(cx, !cx_agent(cx, "WRITE wr=2 off=0 len=8192 va=%llu rkey=%u",
			    TVA, TRKEY), "post WRITE");
	if (!write_flight(cx, from, psn0, &f, &l, &n))
		return;
	sack = (1ULL << (n - 1)) - 1;
	cx_snap(cx);
	from = cx->nq;
	t_ack = cx_now_us();
	ack_to(cx, l, psn0, psn0 + 512, sack);
	r = await_at(cx, from, METAROCE_OP_WRITE, psn0, true, 1000);
	pr = first_probe(cx, from);
	CHECK(cx, r != NULL, "the first PSN was not resent within 1 s");
	if (!r)
		return;
	cx_note(cx, "resent %llu us after the SACK; the WRITE spread over %llu us",
		(unsigned long long)(r->t_us - t_ack),
		(unsigned long long)(l->t_us - f->t_us));
	CHECK(cx, !pr || pr->t_us > r->t_us,
	      "a PROBE came before the resend: no reorder timer");
	floor_us = 100000 / 4 - (s64)(l->t_us - f->t_us) - 3000;
	CHECK(cx, (s64)(r->t_us - t_ack) >= floor_us,
	      "resent %llu us after the SACK, before the reordering window (at least %lld us): the time condition was not waited for",
	      (unsigned long long)(r->t_us - t_ack), (long long)floor_us);
	if (cx_delta(cx, "loss_detected_timer") >= 0)
		CHECK(cx, cx_delta(cx, "loss_detected_timer") >= 1,
		      "loss_detected_timer did not grow");
}

/*
 * The tail's probe time (RTO-13): after one RTT sample R (the tester
 * holds its ACK 200 ms, H as it measured the hold), srtt = R,
 * rttvar = R / 2, the reordering window R / 2 and the RTO 3 R.  A SEND
 * posted at once is a tail (the last packet of the last message, asking
 * for its ACK, sent after the newest delivered transmission): its probe
 * is due when it is as late as its send time after that delivery plus
 * the reordering window, 1.5 R after it left, sooner than 2 srtt.  The
 * PROBE leaves (by the target's own tsval) from 1.5 H (less 3 ms; R is
 * H and the way there and back) to the midpoint 1.75 H.
 */
static void c_tlp_tail(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=18 retry=7" };
	struct pkt *s, *pr;
	unsigned int from;
	u64 dt, hold;

	if (cx_is_refpeer(cx)) {
		cx->skip = "the reference peer probes at 2 srtt only";
		return;
	}
	if (cx_setup(cx, &o) || !warm_rtt(cx, 1, cx->tpsn, 200, 512))
		return;
	hold = last_hold_us;
	from = cx->nq;
	CHECK(cx, !cx_agent(cx, "SEND wr=2 off=0 len=16"), "post SEND");
	s = await_at(cx, from, METAROCE_OP_SEND, cx->tpsn + 1, false, 1000);
	CHECK(cx, s != NULL, "no SEND");
	if (!s)
		return;
	while (!(pr = first_probe(cx, from)) && cx_now_us() < s->t_us + 1000000)
		cx_pump(cx, 2);
	CHECK(cx, pr != NULL, "no PROBE within 1 s of an unanswered tail");
	if (!pr)
		return;
	/* the target's clock: its tsvals, in us */
	dt = (u32)(pr->h.tsval - s->h.tsval);
	cx_note(cx, "PROBE %llu us after the tail (target's clock; %llu us as read), hold %llu us",
		(unsigned long long)dt, (unsigned long long)(pr->t_us - s->t_us),
		(unsigned long long)hold);
	CHECK(cx, dt + 3000 >= hold * 3 / 2,
	      "PROBE %llu us after the tail, before 1.5 R (%llu us)",
	      (unsigned long long)dt, (unsigned long long)(hold * 3 / 2));
	CHECK(cx, dt < hold * 7 / 4,
	      "PROBE %llu us after the tail: not at the tail's time (1.5 R, %llu us) but later, as at 2 srtt (%llu us)",
	      (unsigned long long)dt, (unsigned long long)(hold * 3 / 2),
	      (unsigned long long)(hold * 2));
}

/*
 * No probe when neither 2 srtt nor the tail's time is below the RTO
 * (RTO-16): fourteen SENDs each acknowledged 200 ms after it left make
 * srtt 200 ms and rttvar a few ms (it shrinks by a quarter per sample
 * from 100 ms), the RTO about 210 to 230 ms; 2 srtt is 400 ms and the
 * tail's time srtt plus a reordering window of at least srtt / 4, 250 ms.  The
 * next unanswered SEND is resent at the RTO, with no PROBE before it.
 */
static void c_no_probe(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=18 retry=7" };
	struct pkt *s, *r, *pr;
	u64 srtt = 0, rttvar = 0, d;
	unsigned int from, k;
	u32 psn = 0;

	if (cx_setup(cx, &o))
		return;
	/*
	 * the tester's holds, smoothed as the target smooths its samples:
	 * a busy runner that held some ACKs much longer leaves rttvar high
	 * (4 rttvar must stay well below srtt / 4); more samples then
	 */
	for (k = 0; k < 24; k++) {
		psn = cx->tpsn + k;
		if (!warm_rtt(cx, 1 + k, psn, 200, 512))
			return;
		d = last_hold_us > srtt ? last_hold_us - srtt : srtt - last_hold_us;
		if (!k) {
			srtt = last_hold_us;
			rttvar = srtt / 2;
		} else {
			rttvar = (3 * rttvar + d) / 4;
			srtt = (7 * srtt + last_hold_us) / 8;
		}
		if (k >= 13 && 20 * rttvar < srtt)
			break;
	}
	cx_note(cx, "%u samples: the tester's holds give srtt %llu us, rttvar %llu us",
		k + 1, (unsigned long long)srtt, (unsigned long long)rttvar);
	if (20 * rttvar >= srtt) {
		cx->skip = "the tester's round trips varied too much to bring the RTO below 2 srtt";
		return;
	}
	psn++;
	from = cx->nq;
	CHECK(cx, !cx_agent(cx, "SEND wr=20 off=0 len=16"), "post SEND");
	s = await_at(cx, from, METAROCE_OP_SEND, psn, false, 1000);
	CHECK(cx, s != NULL, "no SEND");
	if (!s)
		return;
	r = await_at(cx, from, METAROCE_OP_SEND, psn, true, 2000);
	pr = first_probe(cx, from);
	CHECK(cx, r != NULL, "the unanswered SEND was not resent within 2 s");
	if (r)
		cx_note(cx, "resent %llu us after it left",
			(unsigned long long)(r->t_us - s->t_us));
	CHECK(cx, !pr || (r && pr->t_us > r->t_us),
	      "a PROBE %llu us after the SEND, before its RTO resend: with 2 srtt and the tail's time above the RTO there is no probe",
	      (unsigned long long)(pr ? pr->t_us - s->t_us : 0));
}

/*
 * A congestion window below two rhythms asks at the end of each of its
 * spans (ACK-7): the first flight of two WRITEs of 60000 bytes, unanswered
 * for 250 ms (the target paces it over about one round trip, 100 ms; its
 * RTO is 300 ms), is the window W (the grant is the whole window); if W
 * is below 64,
 * every PSN of the flight that ends a span (the largest power of two at
 * most W / 2, at least 2; span ends are PSNs that are span - 1 modulo
 * the span) asks for an ACK.
 */
static void c_ack_span(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=18 retry=7" };
	unsigned int from, i, w = 0, span, asked = 0;
	u32 psn0;

	if (cx_setup(cx, &o) || !warm_rtt(cx, 1, cx->tpsn, 100, 512))
		return;
	psn0 = cx->tpsn + 1;
	from = cx->nq;
	/* 88 PSNs or more: a window of 64 or more shows as such */
	CHECK(cx, !cx_agent(cx, "WRITE wr=2 off=0 len=60000 va=%llu rkey=%u",
			    TVA, TRKEY), "post WRITE");
	CHECK(cx, !cx_agent(cx, "WRITE wr=3 off=0 len=60000 va=%llu rkey=%u",
			    TVA, TRKEY), "post WRITE");
	cx_pump(cx, 250);
	for (i = from; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];

		if (p->h.opcode == METAROCE_OP_WRITE &&
		    !(p->h.flags & METAROCE_F_RETX) && p->h.psn - psn0 + 1 > w)
			w = p->h.psn - psn0 + 1;
	}
	cx_note(cx, "first flight: %u PSNs", w);
	CHECK(cx, w >= 1, "no WRITE packet");
	if (w >= 64 || !w) {
		if (!cx->fails)
			cx->skip = "the first window is 64 PSNs or more: no spans";
		return;
	}
	for (span = 2; span * 2 <= w / 2; span *= 2)
		;
	for (i = from; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];

		if (p->h.opcode != METAROCE_OP_WRITE ||
		    (p->h.flags & METAROCE_F_RETX) || p->h.psn - psn0 >= w)
			continue;
		if (p->h.psn % span != span - 1 || p->h.psn % 32 == 31)
			continue;
		asked++;
		CHECK(cx, p->h.flags & METAROCE_F_ACK_REQ,
		      "PSN %u ends a span of %u in a window of %u but does not ask for an ACK",
		      p->h.psn, span, w);
	}
	CHECK(cx, asked >= 1 || w < span,
	      "no span end in a flight of %u", w);
}

/*
 * A piggybacked ack_psn is cumulative only (ACK-14): it completes what it
 * acknowledges but gives no RTT sample.  SENDs A and B out, never ACKed;
 * 50 ms after A left a WRITE from the tester carries ack_psn = A + 1: A
 * completes, and B, still out, is resent at its RTO with no tail-loss
 * probe before it (a probe needs an RTT sample: one of 50 ms from the
 * ack_psn would send a PROBE 100 ms later, before an RTO of 150 ms)
 */
static void c_piggy_no_sample(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=14 retry=7" };
	static const u8 d8[8];
	struct pkt *a, *b, *r, *pr;
	struct mro_hdr h;
	struct twc wc[4];
	unsigned int from;
	int n;

	if (cx_setup(cx, &o))
		return;
	from = cx->nq;
	CHECK(cx, !cx_agent(cx, "SEND wr=1 off=0 len=16"), "post SEND");
	CHECK(cx, !cx_agent(cx, "SEND wr=2 off=0 len=16"), "post SEND");
	a = await_at(cx, from, METAROCE_OP_SEND, cx->tpsn, false, 1000);
	b = await_at(cx, from, METAROCE_OP_SEND, cx->tpsn + 1, false, 1000);
	CHECK(cx, a && b, "the two SENDs did not come");
	if (!a || !b)
		return;
	while (cx_now_us() < a->t_us + 50000)
		cx_pump(cx, 1);
	from = cx->nq;
	cx_req(cx, &h, METAROCE_OP_WRITE, cx->psn);
	h.flags |= METAROCE_F_ACK_PIGGY;
	h.ack_psn = a->h.psn + 1;
	h.msg.length = 8;
	h.msg.va = cx->va + 1024;
	h.msg.rkey = cx->rkey;
	cx_send(cx, &h, d8, 8);
	n = cx_wc_wait(cx, 1000, wc, 4);
	CHECK(cx, n >= 1 && wc[0].wr == 1 && !strcmp(wc[0].status, "success"),
	      "the piggybacked ack_psn did not complete A");
	r = await_at(cx, from, METAROCE_OP_SEND, b->h.psn, true, 2000);
	pr = first_probe(cx, from);
	CHECK(cx, r != NULL, "B was not resent within 2 s");
	CHECK(cx, !pr || (r && pr->t_us > r->t_us),
	      "a PROBE before B's resend: the piggybacked ack_psn gave an RTT sample");
}

/* the first PROBE on slot @path from q[@from] on, pumping at most @ms */
static struct pkt *await_probe(struct cx *cx, unsigned int from, u16 path,
			       int ms)
{
	u64 end = cx_now_us() + ms * 1000ULL;
	unsigned int i;

	for (;;) {
		for (i = from; i < cx->nq; i++)
			if (cx->q[i].h.opcode == METAROCE_OP_PROBE &&
			    cx->q[i].h.path == path)
				return &cx->q[i];
		if (cx_now_us() >= end)
			return NULL;
		cx_pump(cx, 2);
	}
}

/* transmissions of @psn resent from q[@from] on before @until (arrival) */
static unsigned int resends_before(struct cx *cx, unsigned int from, u8 opcode,
				   u32 psn, u64 until)
{
	unsigned int i, n = 0;

	for (i = from; i < cx->nq; i++)
		n += cx->q[i].h.opcode == opcode && cx->q[i].h.psn == psn &&
		     (cx->q[i].h.flags & METAROCE_F_RETX) &&
		     cx->q[i].t_us < until;
	return n;
}

/*
 * The rule of the same path (LOSS-2): after one RTT sample R (200 ms), a
 * WRITE of two PSNs, X on one slot and Y, its last packet (asking), on
 * another, neither answered.  The tail-loss probe sends a PROBE on each
 * slot, 1.5 R after the WRITE (RTO-13); the tester answers only the one on
 * Y's slot, at once, with an ACK that acknowledges no PSN (cum_psn X, no
 * SACK).  That PROBE is a transmission on Y's path that left more than
 * the reordering window (R / 2) after Y, and it was delivered: Y is lost,
 * and resent at once, though no PSN above it was delivered (the rule
 * across paths cannot hold; without this one Y waits for the RTO, 1.5 R
 * later, which resends X first).  X, on another path, is not lost by it.
 */
static void c_loss_same_path(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=18 retry=7" };
	struct pkt *x, *y, *pr, *r;
	unsigned int from;
	u64 t_ack;
	u32 psn;

	if (cx_is_refpeer(cx)) {
		cx->skip = "the reference peer has no rule of the same path";
		return;
	}
	if (cx_setup(cx, &o) || !warm_rtt(cx, 1, cx->tpsn, 200, 512))
		return;
	psn = cx->tpsn + 1;
	from = cx->nq;
	/* two packets at any payload MTU from 1024 to 2047 bytes */
	CHECK(cx, !cx_agent(cx, "WRITE wr=2 off=0 len=2048 va=%llu rkey=%u",
			    TVA, TRKEY), "post WRITE");
	x = await_at(cx, from, METAROCE_OP_WRITE, psn, false, 1000);
	y = await_at(cx, from, METAROCE_OP_WRITE, psn + 1, false, 1000);
	CHECK(cx, x && y && !(x->h.flags & METAROCE_F_LAST) &&
	      (y->h.flags & METAROCE_F_LAST),
	      "the WRITE of 2048 bytes did not come as two packets");
	if (cx->fails)
		return;
	CHECK(cx, x->h.path != y->h.path,
	      "the WRITE's two packets on one slot %u", x->h.path);
	if (cx->fails)
		return;
	pr = await_probe(cx, from, y->h.path, 2000);
	CHECK(cx, pr != NULL, "no tail-loss PROBE on Y's slot within 2 s");
	if (!pr)
		return;
	CHECK(cx, !resends_before(cx, from, METAROCE_OP_WRITE, psn + 1,
				  pr->t_us),
	      "Y was resent before its slot's PROBE");
	cx_snap(cx);
	from = cx->nq;
	t_ack = cx_now_us();
	ack_to(cx, pr, psn, psn + 512, 0);
	r = await_at(cx, from, METAROCE_OP_WRITE, psn + 1, true, 1000);
	CHECK(cx, r != NULL,
	      "Y was not resent within 1 s of the ACK of a later transmission on its path");
	if (!r)
		return;
	cx_note(cx, "PROBE %llu us after Y; Y resent %llu us after its ACK",
		(unsigned long long)(u32)(pr->h.tsval - y->h.tsval),
		(unsigned long long)(r->t_us - t_ack));
	/* at once: before the RTO (1.5 R on), which would resend X first */
	CHECK(cx, r->t_us - t_ack < 50000,
	      "Y resent %llu us after the ACK of its path's PROBE, not at once",
	      (unsigned long long)(r->t_us - t_ack));
	CHECK(cx, r->h.path != y->h.path,
	      "Y resent on the slot %u that lost it", r->h.path);
	/* X's path delivered nothing after it */
	cx_pump(cx, 50);
	CHECK(cx, !resends_before(cx, from, METAROCE_OP_WRITE, psn,
				  t_ack + 50000),
	      "X, on another path, was resent at the ACK of Y's path's PROBE");
	if (cx_delta(cx, "loss_detected") >= 0)
		CHECK(cx, cx_delta(cx, "loss_detected") >= 1,
		      "loss_detected did not grow");
}

const struct ccase cases_loss[] = {
	{ "PSN-12 ACK-25 CTRL-8", "the grant bounds the sender; a grant past its window is clamped", c_credit_limit, CF_MANUAL },
	{ "PSN-13", "a full window reopens once an eighth of it is free", c_silly_window, CF_MANUAL },
	{ "LOSS-1 LOSS-3 LOSS-8", "SACKed later PSNs show a PSN lost; an echo of the original makes it spurious", c_loss_sack, CF_MANUAL },
	{ "LOSS-2", "a later transmission on the same path delivered: the PSN lost at once", c_loss_same_path, CF_MANUAL },
	{ "LOSS-7", "reorder timer: a PSN lost once the reordering window passed", c_reorder_timer, CF_MANUAL },
	{ "RTO-13", "tail-loss probe at the tail's time, before 2 srtt", c_tlp_tail, CF_MANUAL },
	{ "RTO-16", "no probe when 2 srtt and the tail's time are above the RTO", c_no_probe, CF_MANUAL },
	{ "ACK-7", "a window below two rhythms asks at each span's end", c_ack_span, CF_MANUAL },
	{ "ACK-14", "a piggybacked ack_psn gives no RTT sample", c_piggy_no_sample, CF_MANUAL },
	{ NULL, NULL, NULL, 0 },
};
