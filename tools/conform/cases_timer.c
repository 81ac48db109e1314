// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The target's requester timers (protocol.rst: Retransmission timeout,
 * Acknowledgements, Negotiation): the tester withholds its ACKs on
 * purpose and watches the target's first RTO, its cap, the tail-loss
 * probe, what progress resets and the HELLOs that ride the RTO.  Every
 * bound is a lower one, or an upper one with a wide margin: the target
 * may run under emulation, many times slower than the tester.
 */
#include "conform.h"

/* the IB local ACK timeout of @t, in us */
static u64 ib_timeout_us(unsigned int t)
{
	return (4096ULL << t) / 1000;
}

/* the target's packets of @opcode and @psn from q[@from] on, in order */
static struct pkt *nth_of(struct cx *cx, unsigned int from, u8 opcode,
			  u32 psn, unsigned int n)
{
	unsigned int i;

	for (i = from; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];

		if (p->h.opcode == opcode &&
		    (opcode == METAROCE_OP_PROBE || p->h.psn == psn) && !n--)
			return p;
	}
	return NULL;
}

/* pump until @n packets of @opcode at @psn arrived from q[@from] or @ms */
static struct pkt *await(struct cx *cx, unsigned int from, u8 opcode, u32 psn,
			 unsigned int n, int ms)
{
	u64 end = cx_now_us() + ms * 1000ULL;
	struct pkt *p;

	while (!(p = nth_of(cx, from, opcode, psn, n)) && cx_now_us() < end)
		cx_pump(cx, 5);
	return p;
}

/* a one-packet SEND of 16 bytes; its first transmission (NULL: none) */
static struct pkt *post_send(struct cx *cx, u64 wr, u32 psn)
{
	unsigned int from = cx->nq;
	struct pkt *p;

	CHECK(cx, !cx_agent(cx, "SEND wr=%llu off=0 len=16",
			    (unsigned long long)wr), "post SEND");
	p = await(cx, from, METAROCE_OP_SEND, psn, 0, 1000);
	CHECK(cx, p != NULL, "no SEND at PSN %u within 1 s", psn);
	if (p)
		p->used = true;
	return p;
}

/* a SEND answered at once: the target gets an RTT sample */
static bool warm_up(struct cx *cx)
{
	struct pkt *p = post_send(cx, 1, cx->tpsn);
	struct twc wc[2];

	if (!p)
		return false;
	cx_ack(cx, p, METAROCE_SYN_ACK, cx->tpsn + 1, 0, 0);
	CHECK(cx, cx_wc(cx, 1000, wc, 2) == 1 && !strcmp(wc[0].status, "success"),
	      "the answered SEND did not complete");
	return !cx->fails;
}

static unsigned int count_of(struct cx *cx, unsigned int from, u8 opcode,
			     u64 before_us)
{
	unsigned int i, n = 0;

	for (i = from; i < cx->nq; i++)
		n += cx->q[i].h.opcode == opcode && cx->q[i].t_us < before_us;
	return n;
}

/*
 * Before the first RTT sample the RTO is the IB local ACK timeout; each
 * expiry doubles it.  A timer can only be late: every bound is a floor,
 * less 3 ms and a tenth (the tester times a packet when it reads it, and
 * a busy emulated host may read one late and the next on time).
 */
static void c_rto_first(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=14" };
	u64 rto = ib_timeout_us(14), t[4], end;
	unsigned int i, n = 0;
	struct pkt *f;

	if (cx_setup(cx, &o))
		return;
	f = post_send(cx, 11, cx->tpsn);
	if (!f)
		return;
	/* the expiries: transmissions of the PSN more than 15 ms apart */
	t[n++] = f->t_us;
	end = cx_now_us() + 4000000;
	while (n < 4 && cx_now_us() < end) {
		cx_pump(cx, 5);
		for (i = 0, n = 1; i < cx->nq && n < 4; i++)
			if (cx->q[i].h.opcode == METAROCE_OP_SEND &&
			    cx->q[i].h.psn == f->h.psn &&
			    cx->q[i].t_us - t[n - 1] > 15000)
				t[n++] = cx->q[i].t_us;
	}
	CHECK(cx, n == 4, "%u expiries of an unanswered SEND in 4 s, want 3",
	      n - 1);
	for (i = 1; i < n; i++)
		CHECK(cx, t[i] - t[i - 1] + 3000 + (rto << (i - 1)) / 10 >=
		      rto << (i - 1),
		      "expiry %u came %llu us after the previous transmission, before the RTO of %llu us (IB timeout 14, doubled per expiry)",
		      i, (unsigned long long)(t[i] - t[i - 1]),
		      (unsigned long long)(rto << (i - 1)));
}

/* an IB timeout of 8.6 s does not lengthen the first RTO past 2 s */
static void c_rto_cap(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=21" };
	struct pkt *f, *r;

	if (cx_setup(cx, &o))
		return;
	f = post_send(cx, 12, cx->tpsn);
	if (!f)
		return;
	r = await(cx, 0, METAROCE_OP_SEND, f->h.psn, 1, 3500);
	CHECK(cx, r != NULL, "no resend within 3.5 s (the RTO is at most 2 s; the IB timeout 21 is %llu us)",
	      (unsigned long long)ib_timeout_us(21));
	if (!r)
		return;
	/* 100 ms: the first transmission may have waited in the socket */
	CHECK(cx, r->t_us - f->t_us >= 1900000,
	      "resent after %llu us: before the RTO of 2 s",
	      (unsigned long long)(r->t_us - f->t_us));
	CHECK(cx, r->t_us - f->t_us < 3500000,
	      "resent after %llu us: the RTO is capped at 2 s",
	      (unsigned long long)(r->t_us - f->t_us));
}

/*
 * A tail unanswered after an RTT sample: one PROBE on its path first,
 * then the RTO resend, and the probe did not take a retry: with
 * retry_cnt 1 the PSN is still resent once before RETRY_EXC_ERR.
 */
static void c_tlp(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=12 retry=1" };
	struct pkt *b, *pr, *r;
	struct twc wc[4];
	unsigned int from, n = 0;
	u64 end;
	int k;

	if (cx_setup(cx, &o) || !warm_up(cx))
		return;
	from = cx->nq;
	b = post_send(cx, 21, cx->tpsn + 1);
	if (!b)
		return;
	r = await(cx, from, METAROCE_OP_SEND, b->h.psn, 1, 3000);
	pr = nth_of(cx, from, METAROCE_OP_PROBE, 0, 0);
	CHECK(cx, pr != NULL, "no PROBE before the resend of an unanswered tail");
	CHECK(cx, r != NULL, "the tail was not resent within 3 s of its PROBE: the probe used the only retry");
	if (!pr)
		return;
	CHECK(cx, !r || pr->t_us <= r->t_us, "the PROBE came after the RTO resend");
	CHECK(cx, pr->h.psn == b->h.psn + 1 && (pr->h.flags & METAROCE_F_ACK_REQ),
	      "PROBE psn %u flags %#x, want the next PSN %u and ACK_REQ",
	      pr->h.psn, pr->h.flags, b->h.psn + 1);
	CHECK(cx, pr->h.path == b->h.path,
	      "PROBE on path %u, the only path with a transmission out is %u",
	      pr->h.path, b->h.path);
	CHECK(cx, count_of(cx, from, METAROCE_OP_PROBE, r ? r->t_us : ~0ULL) == 1,
	      "%u PROBEs before the resend, want one (one busy path, once per episode)",
	      count_of(cx, from, METAROCE_OP_PROBE, r ? r->t_us : ~0ULL));
	end = cx_now_us() + 5000000;
	while (!n && cx_now_us() < end) {
		k = cx_wc(cx, 200, wc, 4);
		n = k > 0 ? k : 0;
	}
	CHECK(cx, n >= 1 && wc[0].wr == 21 && !strcmp(wc[0].status, "retry_exc"),
	      "completion %s, want retry_exc with retry_cnt 1",
	      n ? wc[0].status : "none in 5 s");
	CHECK(cx, count_of(cx, from, METAROCE_OP_PROBE, ~0ULL) == 1,
	      "%u PROBEs in the episode, want one",
	      count_of(cx, from, METAROCE_OP_PROBE, ~0ULL));
}

/*
 * Progress resets the backoff and the tail-loss probe: a SEND that
 * expired twice (two copies), then acknowledged; the next unanswered
 * SEND is probed again and its first expiry sends one copy.
 */
static void c_progress_resets(struct cx *cx)
{
	struct pkt *a, *r, *pr, *b;
	unsigned int from, i, n;

	if (!warm_up(cx))
		return;
	from = cx->nq;
	a = post_send(cx, 31, cx->tpsn + 1);
	if (!a)
		return;
	/* the second expiry's copy: the first resend, then two */
	r = await(cx, from, METAROCE_OP_SEND, a->h.psn, 3, 4000);
	CHECK(cx, r != NULL, "fewer than three resends of an unanswered SEND in 4 s");
	if (!r)
		return;
	cx_pump(cx, 5);
	/* acknowledge it, echoing its newest transmission */
	for (i = cx->nq; i-- > from;)
		if (cx->q[i].h.opcode == METAROCE_OP_SEND &&
		    cx->q[i].h.psn == a->h.psn)
			break;
	cx_ack(cx, &cx->q[i], METAROCE_SYN_ACK, a->h.psn + 1, 0, 0);
	cx_pump(cx, 20);
	from = cx->nq;
	b = post_send(cx, 32, a->h.psn + 1);
	if (!b)
		return;
	r = await(cx, from, METAROCE_OP_SEND, b->h.psn, 1, 3000);
	CHECK(cx, r != NULL, "no resend of the next unanswered SEND in 3 s");
	if (!r)
		return;
	pr = nth_of(cx, from, METAROCE_OP_PROBE, 0, 0);
	CHECK(cx, pr && pr->t_us <= r->t_us,
	      "no PROBE before the new tail's resend: progress did not reset the tail-loss probe");
	cx_pump(cx, 15);
	for (i = from, n = 0; i < cx->nq; i++)
		n += cx->q[i].h.opcode == METAROCE_OP_SEND &&
		     cx->q[i].h.psn == b->h.psn && cx->q[i].t_us >= r->t_us &&
		     cx->q[i].t_us - r->t_us < 15000;
	CHECK(cx, n == 1,
	      "the first expiry after progress sent %u transmissions, want 1 (backoff reset)",
	      n);
}

/*
 * A lossless exchange that does not cross ends after three HELLOs: the
 * target's, the tester's answer echoing it (asking back), the target's
 * answer echoing that, which asks for nothing more.
 */
static void c_hello_count(struct cx *cx)
{
	struct cx_opts o = { .no_wait = true };
	unsigned int i, n = 0;
	struct pkt *last = NULL;
	struct mro_hdr h;
	u64 end;

	cx->block_hello = true;
	if (cx_setup(cx, &o))
		return;
	end = cx_now_us() + 2000000;
	while (!rp_negotiated(cx->ep) && cx_now_us() < end)
		cx_pump(cx, 5);
	CHECK(cx, rp_negotiated(cx->ep), "no HELLO from the target in 2 s");
	if (!rp_negotiated(cx->ep))
		return;
	/* the tester's answer, which the engine made echoing the target's */
	cx->block_hello = false;
	h = cx->my_hello;
	h.flags = METAROCE_F_ACK_REQ;
	cx_send(cx, &h, NULL, 0);
	cx_pump(cx, 300);
	for (i = 0; i < cx->nq; i++) {
		if (cx->q[i].h.opcode != METAROCE_OP_HELLO)
			continue;
		n++;
		last = &cx->q[i];
	}
	CHECK(cx, n == 2, "%u HELLOs from the target, want its own and one answer",
	      n);
	if (last && n >= 2)
		CHECK(cx, !(last->h.flags & METAROCE_F_ACK_REQ) &&
		      last->h.hello.echo == h.hello.nonce,
		      "the answer flags %#x echo %#llx: want no ACK_REQ and our nonce",
		      last->h.flags, (unsigned long long)last->h.hello.echo);
	CHECK(cx, n + cx->hellos_out <= 3,
	      "%u HELLOs from the target and %u from the tester: more than three",
	      n, cx->hellos_out);
}

/*
 * The target's HELLO never echoed (the tester's are kept off the wire):
 * it goes again with each retransmission timeout of a SEND in flight.
 */
static void c_hello_rto(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=14", .no_wait = true };
	unsigned int i, h0 = 0, hn = 0, exp = 0;
	struct pkt *f;
	u64 last, end;

	cx->block_hello = true;
	if (cx_setup(cx, &o))
		return;
	cx_pump(cx, 100);
	for (i = 0; i < cx->nq; i++)
		h0 += cx->q[i].h.opcode == METAROCE_OP_HELLO;
	CHECK(cx, h0 >= 1, "no HELLO from the target");
	f = post_send(cx, 41, cx->tpsn);
	if (!f)
		return;
	end = cx_now_us() + 1500000;
	while (cx_now_us() < end)
		cx_pump(cx, 10);
	last = f->t_us;
	for (i = 0; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];

		if (p->t_us <= f->t_us)
			continue;
		hn += p->h.opcode == METAROCE_OP_HELLO;
		if (p->h.opcode == METAROCE_OP_SEND && p->h.psn == f->h.psn &&
		    p->t_us - last > 15000) {
			exp++;
			last = p->t_us;
		}
	}
	cx_note(cx, "%u HELLOs before the SEND, %u after it, %u expiries",
		h0, hn, exp);
	CHECK(cx, exp >= 2, "%u expiries of an unanswered SEND in 1.5 s", exp);
	CHECK(cx, hn >= exp && h0 + hn <= 16,
	      "%u HELLOs (%u before the SEND) over %u expiries: want one per expiry, 16 at most",
	      h0 + hn, h0, exp);
	CHECK(cx, hn >= 1, "the HELLO was not sent again");
}

/* the expiries that resent @psn from q[@from] on: transmissions > 8 ms apart */
static unsigned int expiries(struct cx *cx, unsigned int from, u8 opcode,
			     u32 psn, u64 first_us)
{
	unsigned int i, n = 0;
	u64 last = first_us;

	for (i = from; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];

		if (p->h.opcode == opcode && p->h.psn == psn &&
		    p->t_us > last + 8000) {
			n++;
			last = p->t_us;
		}
	}
	return n;
}

/* retry_cnt 7 is seven resends, then RETRY_EXC_ERR */
static void c_retry_seven(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=12 retry=7" };
	unsigned int n;
	struct twc wc[4];
	struct pkt *f;

	if (cx_setup(cx, &o))
		return;
	f = post_send(cx, 51, cx->tpsn);
	if (!f)
		return;
	CHECK(cx, cx_wc_wait(cx, 15000, wc, 4) >= 1 && wc[0].wr == 51 &&
	      !strcmp(wc[0].status, "retry_exc"),
	      "no retry_exc completion in 15 s with retry_cnt 7");
	cx_pump(cx, 50);
	n = expiries(cx, 0, METAROCE_OP_SEND, f->h.psn, f->t_us);
	CHECK(cx, n == 7, "%u expiries resent the PSN before RETRY_EXC_ERR, want 7",
	      n);
}

/*
 * Progress by SACK alone resets the retry count: with retry_cnt 1 the
 * oldest PSN, resent once, is resent again after a later PSN was SACKed
 * instead of failing
 */
static void c_sack_progress(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=12 retry=1" };
	struct pkt *a, *b, *r;
	struct mro_hdr h;
	struct twc wc[4];
	int n;

	if (cx_setup(cx, &o))
		return;
	a = post_send(cx, 61, cx->tpsn);
	b = a ? post_send(cx, 62, cx->tpsn + 1) : NULL;
	if (!b)
		return;
	r = await(cx, 0, METAROCE_OP_SEND, a->h.psn, 1, 2000);
	CHECK(cx, r != NULL, "no resend of the oldest PSN");
	if (!r)
		return;
	/* SACK the second PSN only, echoing its transmission */
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_ACK;
	h.ack.syndrome = METAROCE_SYN_ACK;
	h.ack.cum_psn = a->h.psn;
	h.ack.credit_psn = a->h.psn + cx->cfg.window;
	h.ack.sack_bits = METAROCE_SACK_BITS;
	h.ack.sack[0] = 1;
	h.ack.ts_echo = b->h.tsval;
	h.ack.echo_path = b->h.path;
	h.ack.echo_seq = b->h.path_seq;
	rp_send_hdr(cx->ep, &h, NULL, 0, cx->slot, false);
	n = cx_wc(cx, 20, wc, 4);
	CHECK(cx, n <= 0 || strcmp(wc[0].status, "retry_exc"),
	      "the SEND failed at once");
	r = await(cx, 0, METAROCE_OP_SEND, a->h.psn, 2, 3000);
	n = cx_wc(cx, 0, wc, 4);
	CHECK(cx, r != NULL && n <= 0,
	      "after a SACK the oldest PSN was %s: progress did not reset the retry count",
	      n > 0 ? wc[0].status : "not resent in 3 s");
	if (!r || n > 0)
		return;
	cx_ack(cx, r, METAROCE_SYN_ACK, b->h.psn + 1, 0, 0);
	n = cx_wc_wait(cx, 1000, wc, 4);
	CHECK(cx, n >= 1 && !strcmp(wc[0].status, "success"),
	      "the ACK of both did not complete them");
}

/*
 * The timer restarts when the oldest PSN advances: A and B out, A
 * acknowledged 40 ms later (an RTT sample of 40 ms or more, so an RTO of
 * 120 ms or more); B is not resent within 60 ms of that ACK (the timer
 * armed for A, at 67 ms from its send, is gone), but later (a tail-loss
 * probe may come first)
 */
static void c_rto_restart(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=14" };
	struct pkt *a, *b, *r;
	unsigned int i, early = 0;
	u64 t_ack, end;

	if (cx_setup(cx, &o))
		return;
	a = post_send(cx, 71, cx->tpsn);
	b = a ? post_send(cx, 72, cx->tpsn + 1) : NULL;
	if (!b)
		return;
	while (cx_now_us() < a->t_us + 40000)
		cx_pump(cx, 2);
	t_ack = cx_now_us();
	cx_ack(cx, a, METAROCE_SYN_ACK, a->h.psn + 1, 0, 0);
	end = t_ack + 3000000;
	r = NULL;
	while (!r && cx_now_us() < end) {
		cx_pump(cx, 5);
		r = nth_of(cx, 0, METAROCE_OP_SEND, b->h.psn, 1);
	}
	CHECK(cx, r != NULL, "B was not resent within 3 s");
	for (i = 0; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];

		if (p->t_us < t_ack || p->t_us >= t_ack + 60000)
			continue;
		early += p->h.opcode == METAROCE_OP_SEND &&
			 (p->h.flags & METAROCE_F_RETX);
	}
	CHECK(cx, early == 0,
	      "%u resend(s) within 60 ms of the ACK that advanced the oldest PSN: the timer was not restarted",
	      early);
}

/*
 * An echo older than 10 s gives no RTT sample: A acknowledged at once
 * with a ts_echo 11 s old; had it been taken, the RTO would be 2 s (the
 * cap); B is resent at the IB timeout's RTO (67 ms) instead
 */
static void c_old_echo(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=14" };
	struct pkt *a, *b, *r;
	struct mro_hdr h;
	u64 t_ack;

	if (cx_setup(cx, &o))
		return;
	a = post_send(cx, 81, cx->tpsn);
	b = a ? post_send(cx, 82, cx->tpsn + 1) : NULL;
	if (!b)
		return;
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_ACK;
	h.ack.syndrome = METAROCE_SYN_ACK;
	h.ack.cum_psn = a->h.psn + 1;
	h.ack.credit_psn = a->h.psn + 1 + cx->cfg.window;
	h.ack.sack_bits = METAROCE_SACK_BITS;
	h.ack.ts_echo = a->h.tsval - 11000000;
	h.ack.echo_path = a->h.path;
	h.ack.echo_seq = a->h.path_seq;
	t_ack = cx_now_us();
	rp_send_hdr(cx->ep, &h, NULL, 0, cx->slot, false);
	r = await(cx, 0, METAROCE_OP_SEND, b->h.psn, 1, 3000);
	CHECK(cx, r != NULL, "B was not resent within 3 s");
	if (r)
		CHECK(cx, r->t_us - t_ack < 1000000,
		      "B resent %llu us after the ACK: its 11 s old echo was taken as an RTT sample",
		      (unsigned long long)(r->t_us - t_ack));
}

/*
 * The IB timeout does not cap the RTO: IB timeout 8 (1 ms), an RTT
 * sample of 60 ms or more (A acknowledged 60 ms after it left, echoing
 * its first transmission); B, still out, is not resent from 15 ms (the
 * target has taken the ACK by then) to 120 ms after that ACK (the RTO is
 * now 180 ms or more), but later
 */
static void c_rto_not_capped(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=8 retry=7" };
	struct pkt *a, *b, *r;
	unsigned int i, early = 0;
	u64 t_ack;

	if (cx_setup(cx, &o))
		return;
	a = post_send(cx, 91, cx->tpsn);
	b = a ? post_send(cx, 92, cx->tpsn + 1) : NULL;
	if (!b)
		return;
	while (cx_now_us() < a->t_us + 60000)
		cx_pump(cx, 2);
	t_ack = cx_now_us();
	cx_ack(cx, a, METAROCE_SYN_ACK, a->h.psn + 1, 0, 0);
	r = NULL;
	while (!r && cx_now_us() < t_ack + 3000000) {
		cx_pump(cx, 5);
		for (i = 0; i < cx->nq && !r; i++)
			if (cx->q[i].h.opcode == METAROCE_OP_SEND &&
			    cx->q[i].h.psn == b->h.psn && cx->q[i].t_us > t_ack)
				r = &cx->q[i];
	}
	CHECK(cx, r != NULL, "B was not resent within 3 s of the ACK");
	for (i = 0; i < cx->nq; i++)
		early += cx->q[i].h.opcode == METAROCE_OP_SEND &&
			 cx->q[i].h.psn == b->h.psn &&
			 cx->q[i].t_us > t_ack + 15000 &&
			 cx->q[i].t_us < t_ack + 120000;
	CHECK(cx, early == 0,
	      "B resent %u time(s) 15 to 120 ms after an ACK that gave a 60 ms RTT sample: the RTO follows the 1 ms IB timeout",
	      early);
}

#define TVA	0x100000ULL	/* an address and key the target names */
#define TRKEY	0x4242

/* the first packet of @opcode at @psn from q[@from] on (@retx: a resend) */
static struct pkt *tx_of(struct cx *cx, unsigned int from, u8 opcode, u32 psn,
			 bool retx, int ms)
{
	u64 end = cx_now_us() + ms * 1000ULL;
	unsigned int i;

	for (;;) {
		for (i = from; i < cx->nq; i++) {
			struct pkt *p = &cx->q[i];

			if (p->h.opcode == opcode && p->h.psn == psn &&
			    !!(p->h.flags & METAROCE_F_RETX) == retx)
				return p;
		}
		if (cx_now_us() >= end)
			return NULL;
		cx_pump(cx, 2);
	}
}

/*
 * The RTO checks what it times (RTO-3, RTO-4).  After one RTT sample R
 * (the tester holds the ACK of its first PSNs 200 ms: srtt R, rttvar
 * R / 2, the RTO 3 R), a WRITE of two PSNs: O, which does not ask for an
 * ACK (the warm-up's length puts it off the span and rhythm ends), and A,
 * its last packet, which asks.  Neither is answered.  The tail-loss probe
 * sends a PROBE on each one's slot 1.5 R later and arms the RTO 3 R
 * after it.  The tester answers the PROBE on A's slot 1.5 R after it
 * left: A is lost by its path's rule and resent, asking again; O, on
 * another path, is not.  When the RTO fires, 1.5 R after A's resend, no
 * PSN after O was acknowledged and the first that asks from O on is A's
 * resend: the timer waits until an RTO after that resend (rto_waited)
 * and declares nothing lost; then it resends O.  On the target's own
 * clock (its tsvals) O's resend leaves at least 3 R after A's, where
 * without the check it would leave 1.5 R after it: the bound is the
 * midpoint, 2.25 R.
 */
static void c_rto_waits(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=18 retry=7" };
	struct pkt *w, *ow, *a, *pa, *ar, *orr;
	unsigned int from, k, i;
	u64 hold, dt;
	struct twc wc[2];
	u32 psn;

	if (cx_is_refpeer(cx)) {
		cx->skip = "the reference peer has no rto_waited check";
		return;
	}
	if (cx_setup(cx, &o))
		return;
	/* the warm-up: 1 PSN, or 2 if O would end a span (psn % 8 == 7) */
	k = (cx->tpsn + 1) % 8 == 7 ? 2 : 1;
	psn = cx->tpsn + k;
	from = cx->nq;
	if (k == 1)
		CHECK(cx, !cx_agent(cx, "SEND wr=1 off=0 len=16"), "post SEND");
	else
		CHECK(cx, !cx_agent(cx, "WRITE wr=1 off=0 len=2048 va=%llu rkey=%u",
				    TVA, TRKEY), "post WRITE");
	w = tx_of(cx, from, k == 1 ? METAROCE_OP_SEND : METAROCE_OP_WRITE,
		  psn - 1, false, 1000);
	CHECK(cx, w != NULL, "no warm-up packet at PSN %u", psn - 1);
	if (!w)
		return;
	while (cx_now_us() < w->t_us + 200000)
		cx_pump(cx, 1);
	cx_ack(cx, w, METAROCE_SYN_ACK, psn, 0, 0);
	hold = cx_now_us() - w->t_us;
	CHECK(cx, cx_wc_wait(cx, 1000, wc, 2) == 1 && wc[0].wr == 1 &&
	      !strcmp(wc[0].status, "success"), "the warm-up did not complete");
	if (cx->fails)
		return;
	cx_pump(cx, 2);
	cx_snap(cx);
	from = cx->nq;
	CHECK(cx, !cx_agent(cx, "WRITE wr=2 off=0 len=2048 va=%llu rkey=%u",
			    TVA, TRKEY), "post WRITE");
	ow = tx_of(cx, from, METAROCE_OP_WRITE, psn, false, 1000);
	a = tx_of(cx, from, METAROCE_OP_WRITE, psn + 1, false, 1000);
	CHECK(cx, ow && a && (a->h.flags & METAROCE_F_LAST),
	      "the WRITE of 2048 bytes did not come as two packets");
	if (cx->fails)
		return;
	CHECK(cx, !(ow->h.flags & METAROCE_F_ACK_REQ) && psn % 32 != 31 &&
	      (a->h.flags & METAROCE_F_ACK_REQ),
	      "O flags %#x, A flags %#x: want O not asking, A asking",
	      ow->h.flags, a->h.flags);
	CHECK(cx, ow->h.path != a->h.path, "O and A on one slot %u",
	      a->h.path);
	if (cx->fails)
		return;
	for (pa = NULL; !pa && cx_now_us() < a->t_us + 2000000;) {
		cx_pump(cx, 2);
		for (i = from; i < cx->nq && !pa; i++)
			if (cx->q[i].h.opcode == METAROCE_OP_PROBE &&
			    cx->q[i].h.path == a->h.path)
				pa = &cx->q[i];
	}
	CHECK(cx, pa != NULL, "no tail-loss PROBE on A's slot within 2 s");
	if (!pa)
		return;
	while (cx_now_us() < pa->t_us + hold * 3 / 2)
		cx_pump(cx, 1);
	from = cx->nq;
	cx_ack(cx, pa, METAROCE_SYN_ACK, psn, 0, 0);
	ar = tx_of(cx, from, METAROCE_OP_WRITE, psn + 1, true, 100);
	CHECK(cx, ar != NULL,
	      "A was not resent within 100 ms of the ACK of its slot's PROBE");
	if (!ar)
		return;
	CHECK(cx, ar->h.flags & METAROCE_F_ACK_REQ, "A's resend does not ask");
	orr = tx_of(cx, 0, METAROCE_OP_WRITE, psn, true, 4000);
	CHECK(cx, orr != NULL, "O was not resent within 4 s");
	if (!orr)
		return;
	dt = (u32)(orr->h.tsval - ar->h.tsval);
	cx_note(cx, "hold %llu us; PROBE %llu us after A; O resent %llu us after A's resend (target's clock)",
		(unsigned long long)hold,
		(unsigned long long)(u32)(pa->h.tsval - a->h.tsval),
		(unsigned long long)dt);
	CHECK(cx, dt >= hold * 9 / 4,
	      "O resent %llu us after A's resend, before the midpoint %llu us between the RTO after it (3 R) and the RTO after the PROBE (1.5 R after it): the timer did not wait for the asking PSN",
	      (unsigned long long)dt, (unsigned long long)(hold * 9 / 4));
	if (cx_delta(cx, "rto_waited") >= 0)
		CHECK(cx, cx_delta(cx, "rto_waited") >= 1,
		      "rto_waited did not grow");
}

const struct ccase cases_timer[] = {
	{ "RTO-3 RTO-4", "the RTO waits for the first asking PSN, sent less than an RTO ago", c_rto_waits, CF_MANUAL },
	{ "RTO-5", "the IB timeout does not cap the RTO", c_rto_not_capped, CF_MANUAL },
	{ "ACK-21", "an echo older than 10 s gives no RTT sample", c_old_echo, CF_MANUAL },
	{ "RTO-2", "the timer restarts when the oldest PSN advances", c_rto_restart, CF_MANUAL },
	{ "RTO-11 RTO-9", "retry_cnt 7: seven resends, then RETRY_EXC_ERR", c_retry_seven, CF_MANUAL },
	{ "RTO-10", "progress by SACK alone resets the retry count", c_sack_progress, CF_MANUAL },
	{ "NEG-8", "a lossless exchange: three HELLOs, the last asks nothing", c_hello_count, CF_MANUAL },
	{ "NEG-7", "an unechoed HELLO goes again with each RTO", c_hello_rto, CF_MANUAL },
	{ "RTO-1", "first RTO: the IB timeout, doubled per expiry", c_rto_first, CF_MANUAL },
	{ "RTO-1", "the RTO is capped at 2 s", c_rto_cap, CF_MANUAL },
	{ "RTO-12 RTO-14 RTO-15", "tail-loss probe: one PROBE, then the RTO; no retry spent", c_tlp, CF_MANUAL },
	{ "ACK-24 RTO-12", "progress resets the backoff and the tail-loss probe", c_progress_resets, 0 },
	{ NULL, NULL, NULL, 0 },
};
