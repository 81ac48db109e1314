// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The target as RC requester: what its requests look like on the wire,
 * how it takes ACKs, NAKs, RNR NAKs, responses and credits, and which
 * feedback it must drop (protocol.rst: Messages, RDMA READ, Atomics,
 * Acknowledgements, NAK syndromes, Retransmission timeout, CREDIT).  The
 * tester does not run its engine here: it answers by hand.
 */
#include "conform.h"

#define TVA	0x100000ULL	/* an address and key the target names */
#define TRKEY	0x4242

static u8 pat[8192];

/* the next packet of @opcode the target sends (its resends aside) */
static struct pkt *next_of(struct cx *cx, u8 opcode, int ms)
{
	return cx_wait(cx, opcode, ms);
}

/* the target's completions within @ms; how many, first in @wc */
static int wcs(struct cx *cx, int ms, struct twc *wc, int max)
{
	int n = cx_wc(cx, ms, wc, max);

	return n < 0 ? 0 : n;
}

/* a SEND of @len bytes: its packets, checked, and the last one's */
static struct pkt *req_send(struct cx *cx, u32 len)
{
	struct pkt *p, *last = NULL;
	u32 off = 0, mtu = 0, psn = cx->tpsn, npk = 0;
	unsigned int i;

	for (i = 0; i < sizeof(pat); i++)
		pat[i] = (u8)(i * 13 + 5);
	cx_setmem(cx, 0, pat, len);
	CHECK(cx, !cx_agent(cx, "SEND wr=31 off=0 len=%u", len), "post SEND");
	while (off < len) {
		p = next_of(cx, METAROCE_OP_SEND, 1000);
		CHECK(cx, p != NULL, "SEND packet at offset %u missing", off);
		if (!p)
			return NULL;
		if (!mtu)
			mtu = p->h.payload_len;
		npk++;
		CHECK(cx, p->h.psn == psn, "PSN %u, want %u", p->h.psn, psn);
		CHECK(cx, p->h.msg.offset == off, "offset %u, want %u",
		      p->h.msg.offset, off);
		CHECK(cx, p->h.msg.length == len && p->h.msg.msn == 0 &&
		      p->h.msg.first_psn == cx->tpsn,
		      "length %u msn %u first_psn %u, want %u, 0, %u",
		      p->h.msg.length, p->h.msg.msn, p->h.msg.first_psn, len,
		      cx->tpsn);
		CHECK(cx, !!(p->h.flags & METAROCE_F_FIRST) == !off,
		      "FIRST %s at offset %u", p->h.flags & METAROCE_F_FIRST ?
		      "set" : "clear", off);
		CHECK(cx, p->h.flags & METAROCE_F_ECT, "ECT clear on a request");
		CHECK(cx, !(p->h.flags & METAROCE_F_RETX), "RETX on a first transmission");
		CHECK(cx, p->sport >= 512 && p->sport <= 1023,
		      "source port %u outside 512..1023", p->sport);
		CHECK(cx, !memcmp(p->payload, pat + off, p->h.payload_len),
		      "payload at offset %u differs from the buffer", off);
		off += p->h.payload_len;
		psn++;
		last = p;
		if (!p->h.payload_len)
			break;
	}
	if (last) {
		CHECK(cx, (last->h.flags & (METAROCE_F_LAST | METAROCE_F_ACK_REQ)) ==
		      (METAROCE_F_LAST | METAROCE_F_ACK_REQ),
		      "last packet flags %#x: want LAST and ACK_REQ", last->h.flags);
		CHECK(cx, npk == (len + mtu - 1) / mtu,
		      "%u packets for %u bytes at %u per packet", npk, len, mtu);
	}
	return last;
}

/* a SEND's packets carry the message, the last asks and piggybacks */
static void c_send_wire(struct cx *cx)
{
	struct pkt *l = req_send(cx, 3000);
	struct twc wc[2];

	if (!l)
		return;
	CHECK(cx, l->h.flags & METAROCE_F_ACK_PIGGY,
	      "last packet without ACK_PIGGY");
	if (l->h.flags & METAROCE_F_ACK_PIGGY)
		CHECK(cx, l->h.ack_psn == cx->psn,
		      "ack_psn %u, want the receive base %u", l->h.ack_psn,
		      cx->psn);
	CHECK(cx, wcs(cx, 30, wc, 2) == 0, "completed before any ACK");
	cx_ack(cx, l, METAROCE_SYN_ACK, l->h.psn + 1, 0, 0);
	CHECK(cx, wcs(cx, 1000, wc, 2) == 1 && wc[0].wr == 31 &&
	      !strcmp(wc[0].status, "success"), "the ACK did not complete the SEND");
}

/* no ACK: the PSN is resent with RETX and fresh path fields */
static void c_retransmit(struct cx *cx)
{
	struct pkt *f = req_send(cx, 64), *r = NULL;
	struct twc wc[2];
	u64 end;

	if (!f)
		return;
	end = cx_now_us() + 3000000;
	while (cx_now_us() < end) {
		r = next_of(cx, METAROCE_OP_SEND, 20);
		if (r)
			break;
	}
	CHECK(cx, r != NULL, "no resend within 3 s");
	if (!r)
		return;
	CHECK(cx, r->h.psn == f->h.psn, "resend PSN %u, want %u", r->h.psn,
	      f->h.psn);
	CHECK(cx, r->h.flags & METAROCE_F_RETX, "resend without RETX");
	CHECK(cx, r->h.path != f->h.path || r->h.path_seq != f->h.path_seq,
	      "resend with the same path and path_seq");
	CHECK(cx, r->h.tsval != f->h.tsval, "resend with the same tsval");
	CHECK(cx, r->t_us - f->t_us >= 1000,
	      "resent %llu us after the first transmission",
	      (unsigned long long)(r->t_us - f->t_us));
	cx_ack(cx, r, METAROCE_SYN_ACK, r->h.psn + 1, 0, 0);
	CHECK(cx, wcs(cx, 1000, wc, 2) == 1 && !strcmp(wc[0].status, "success"),
	      "the ACK of the resend did not complete the SEND");
}

/* RNR NAK: the PSN again after the RNR time */
static void c_rnr_nak(struct cx *cx)
{
	struct pkt *f = req_send(cx, 64), *r;
	struct twc wc[2];

	if (!f)
		return;
	cx_snap(cx);
	/* code 20: 10.24 ms */
	cx_ack(cx, f, METAROCE_SYN_RNR_NAK, f->h.psn, f->h.psn, 20);
	r = next_of(cx, METAROCE_OP_SEND, 2000);
	CHECK(cx, r != NULL, "nothing resent after an RNR NAK");
	if (!r)
		return;
	CHECK(cx, r->h.psn == f->h.psn, "resend PSN %u, want %u", r->h.psn,
	      f->h.psn);
	CHECK(cx, r->t_us - f->t_us >= 9000,
	      "resent %llu us after an RNR NAK of 10.24 ms",
	      (unsigned long long)(r->t_us - f->t_us));
	CHECK_DELTA(cx, "rnr_nak_rcvd", 1);
	cx_ack(cx, r, METAROCE_SYN_ACK, r->h.psn + 1, 0, 0);
	CHECK(cx, wcs(cx, 1000, wc, 2) == 1 && !strcmp(wc[0].status, "success"),
	      "the ACK after the RNR NAK did not complete the SEND");
}

/* a fatal NAK fails the WQE with @want and ends the QP */
static void nak_case(struct cx *cx, u8 syn, const char *want)
{
	struct pkt *w;
	struct twc wc[4];
	char st[16];
	int n;

	CHECK(cx, !cx_agent(cx, "WRITE wr=41 off=0 len=64 va=%llu rkey=%u",
			    TVA, TRKEY), "post WRITE");
	w = next_of(cx, METAROCE_OP_WRITE, 1000);
	CHECK(cx, w != NULL, "no WRITE");
	if (!w)
		return;
	CHECK(cx, w->h.msg.va == TVA && w->h.msg.rkey == TRKEY &&
	      w->h.msg.length == 64, "WRITE va %#llx rkey %#x length %u",
	      (unsigned long long)w->h.msg.va, w->h.msg.rkey, w->h.msg.length);
	cx_ack(cx, w, syn, w->h.psn, w->h.psn, 0);
	n = wcs(cx, 1000, wc, 4);
	CHECK(cx, n >= 1 && wc[0].wr == 41 && !strcmp(wc[0].status, want),
	      "completion %s, want %s", n >= 1 ? wc[0].status : "none", want);
	cx_state(cx, st, sizeof(st));
	CHECK(cx, !strcmp(st, "ERR"), "QP state %s after a NAK, want ERR", st);
}

static void c_nak_access(struct cx *cx)
{
	nak_case(cx, METAROCE_SYN_NAK_ACCESS, "rem_access");
}

static void c_nak_invalid(struct cx *cx)
{
	nak_case(cx, METAROCE_SYN_NAK_INVALID, "rem_inv_req");
}

static void c_nak_op(struct cx *cx)
{
	nak_case(cx, METAROCE_SYN_NAK_OP, "rem_op");
}

static void c_nak_range(struct cx *cx)
{
	nak_case(cx, METAROCE_SYN_NAK_RANGE, "rem_inv_req");
}

/* ACKs outside what was sent, and NAKs of PSNs not out, are dropped */
static void c_ack_range(struct cx *cx)
{
	struct pkt *f = req_send(cx, 64);
	struct twc wc[2];

	if (!f)
		return;
	cx_snap(cx);
	cx_ack(cx, f, METAROCE_SYN_ACK, f->h.psn + 5, 0, 0);
	CHECK(cx, wcs(cx, 50, wc, 2) == 0, "an ACK beyond the next PSN completed the SEND");
	CHECK_DELTA(cx, "rx_drop_ack_range", 1);
	cx_snap(cx);
	cx_ack(cx, f, METAROCE_SYN_NAK_ACCESS, f->h.psn, f->h.psn + 3, 0);
	CHECK(cx, wcs(cx, 50, wc, 2) == 0, "a NAK of a PSN not out failed the SEND");
	CHECK_DELTA(cx, "rx_drop_ack_range", 1);
	cx_ack(cx, f, METAROCE_SYN_ACK, f->h.psn + 1, 0, 0);
	CHECK(cx, wcs(cx, 1000, wc, 2) == 1 && !strcmp(wc[0].status, "success"),
	      "the good ACK did not complete the SEND");
}

/* an ACK that echoes no transmission of the target's is dropped */
static void c_ack_echo(struct cx *cx)
{
	struct pkt *f = req_send(cx, 64);
	struct pkt bad;
	struct twc wc[2];

	if (!f)
		return;
	bad = *f;
	bad.h.path_seq += 1000000;
	cx_snap(cx);
	cx_ack(cx, &bad, METAROCE_SYN_ACK, f->h.psn + 1, 0, 0);
	CHECK(cx, wcs(cx, 50, wc, 2) == 0, "an ACK with a foreign echo_seq completed the SEND");
	CHECK_DELTA(cx, "rx_drop_ack_echo", 1);
	bad = *f;
	bad.h.path = 200;
	cx_snap(cx);
	cx_ack(cx, &bad, METAROCE_SYN_ACK, f->h.psn + 1, 0, 0);
	CHECK(cx, wcs(cx, 50, wc, 2) == 0, "an ACK naming no path slot completed the SEND");
	CHECK_DELTA(cx, "rx_drop_ack_echo", 1);
	cx_ack(cx, f, METAROCE_SYN_ACK, f->h.psn + 1, 0, 0);
	CHECK(cx, wcs(cx, 1000, wc, 2) == 1 && !strcmp(wc[0].status, "success"),
	      "the good ACK did not complete the SEND");
}

/* responses nobody asked for */
static void c_stale_resp(struct cx *cx)
{
	struct mro_hdr h;

	cx_snap(cx);
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_ATOMIC_RESP;
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	h.psn = cx->tpsn;
	h.orig = 5;
	cx_send(cx, &h, NULL, 0);
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_READ_RESP;
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	h.psn = cx->tpsn;
	cx_send(cx, &h, pat, 64);
	cx_pump(cx, 50);
	CHECK_DELTA(cx, "rx_drop_stale_resp", 2);
}

/* READ: the requester's READ_REQ, then responses checked before use */
static void c_read_req(struct cx *cx)
{
	struct pkt *q;
	struct mro_hdr h;
	struct twc wc[2];
	u32 seg, n, k, len = 700;
	u8 got[700];

	CHECK(cx, !cx_agent(cx, "READ wr=51 off=2048 len=%u va=%llu rkey=%u",
			    len, TVA, TRKEY), "post READ");
	q = next_of(cx, METAROCE_OP_READ_REQ, 1000);
	CHECK(cx, q != NULL, "no READ_REQ");
	if (!q)
		return;
	seg = q->h.msg.imm;
	CHECK(cx, seg >= 256 && seg <= 65536, "segment size %u", seg);
	CHECK(cx, q->h.msg.va == TVA && q->h.msg.rkey == TRKEY &&
	      q->h.msg.offset == 0 && q->h.msg.length == len,
	      "READ_REQ va %#llx rkey %#x offset %u length %u",
	      (unsigned long long)q->h.msg.va, q->h.msg.rkey, q->h.msg.offset,
	      q->h.msg.length);
	CHECK(cx, (q->h.flags & METAROCE_F_ACK_REQ) && !(q->h.flags & METAROCE_F_LAST),
	      "READ_REQ flags %#x: want ACK_REQ, never LAST", q->h.flags);
	if (seg < 256 || seg > 4096)
		return;
	n = (len + seg - 1) / seg;
	for (k = 0; k < len; k++)
		pat[k] = (u8)(k ^ 0x3c);
	/* an ACK covering the READ's PSNs does not complete it */
	cx_ack(cx, q, METAROCE_SYN_ACK, q->h.psn + n, 0, 0);
	CHECK(cx, wcs(cx, 40, wc, 2) == 0, "an ACK completed a READ");
	/* a response at the right PSN with a wrong offset is dropped */
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_READ_RESP;
	h.psn = q->h.psn;
	h.flags = METAROCE_F_FIRST | (n == 1 ? METAROCE_F_LAST : 0);
	h.rresp.offset = 8;
	h.rresp.ts_echo = q->h.tsval;
	cx_send(cx, &h, pat, seg < len ? seg : len);
	CHECK(cx, wcs(cx, 40, wc, 2) == 0, "a response with a wrong offset completed the READ");
	for (k = 0; k < n; k++) {
		u32 l = len - k * seg < seg ? len - k * seg : seg;

		memset(&h, 0, sizeof(h));
		h.opcode = METAROCE_OP_READ_RESP;
		h.psn = q->h.psn + k;
		h.flags = (k ? 0 : METAROCE_F_FIRST) |
			  (k == n - 1 ? METAROCE_F_LAST : 0);
		h.rresp.offset = k * seg;
		h.rresp.ts_echo = q->h.tsval;
		cx->slot = q->h.path < cx->cfg.paths ? q->h.path : 0;
		cx_send(cx, &h, pat + k * seg, l);
	}
	CHECK(cx, wcs(cx, 1000, wc, 2) == 1 && wc[0].wr == 51 &&
	      !strcmp(wc[0].status, "success"), "the READ did not complete");
	CHECK(cx, !cx_mem(cx, 2048, len, got) && !memcmp(got, pat, len),
	      "the READ's bytes are not in the buffer");
}

/* FETCH_ADD: the request, and its response's orig delivered */
static void c_atomic_req(struct cx *cx)
{
	struct pkt *q;
	struct mro_hdr h;
	struct twc wc[2];
	u64 v = 0;

	CHECK(cx, !cx_agent(cx, "ATOMIC wr=61 off=512 op=fadd va=%llu rkey=%u add=9",
			    TVA + 8, TRKEY), "post atomic");
	q = next_of(cx, METAROCE_OP_FETCH_ADD, 1000);
	CHECK(cx, q != NULL, "no FETCH_ADD");
	if (!q)
		return;
	CHECK(cx, q->h.atomic.va == TVA + 8 && q->h.atomic.rkey == TRKEY &&
	      q->h.atomic.swap_add == 9, "FETCH_ADD va %#llx rkey %#x add %llu",
	      (unsigned long long)q->h.atomic.va, q->h.atomic.rkey,
	      (unsigned long long)q->h.atomic.swap_add);
	CHECK(cx, (q->h.flags & (METAROCE_F_ACK_REQ | METAROCE_F_FIRST | METAROCE_F_LAST)) ==
	      (METAROCE_F_ACK_REQ | METAROCE_F_FIRST | METAROCE_F_LAST),
	      "FETCH_ADD flags %#x", q->h.flags);
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_ATOMIC_RESP;
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	h.psn = q->h.psn;
	h.orig = 41;
	cx_send(cx, &h, NULL, 0);
	CHECK(cx, wcs(cx, 1000, wc, 2) == 1 && wc[0].wr == 61 &&
	      !strcmp(wc[0].status, "success"), "the atomic did not complete");
	cx_mem(cx, 512, 8, (u8 *)&v);
	CHECK(cx, v == 41, "result %llu, want 41", (unsigned long long)v);
}

/* CREDITs the target must drop */
static void c_credit(struct cx *cx)
{
	struct mro_hdr h;

	cx_snap(cx);
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_CREDIT;
	h.psn = cx->tpsn + 1000;	/* beyond its next PSN */
	h.ctrl.credit_psn = cx->tpsn + 1512;
	cx_send(cx, &h, NULL, 0);
	cx_pump(cx, 30);
	CHECK_DELTA(cx, "rx_drop_ack_range", 1);
	cx_snap(cx);
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_CREDIT;
	h.psn = cx->tpsn;
	h.ctrl.credit_psn = cx->tpsn + 20000;
	cx_send(cx, &h, NULL, 0);
	cx_pump(cx, 30);
	CHECK_DELTA(cx, "cc_bad_feedback", 1);
}

/* no ACK ever: RETRY_EXC_ERR once the retries are used up, QP in error */
static void c_retry_exceeded(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=8 retry=1" };
	struct twc wc[4];
	char st[16];
	int n = 0, k;
	u64 end;

	if (cx_setup(cx, &o))
		return;
	CHECK(cx, !cx_agent(cx, "SEND wr=71 off=0 len=16"), "post SEND");
	end = cx_now_us() + 10000000;
	while (!n && cx_now_us() < end) {
		k = cx_wc(cx, 200, wc, 4);
		n = k > 0 ? k : 0;
	}
	CHECK(cx, n >= 1 && wc[0].wr == 71 && !strcmp(wc[0].status, "retry_exc"),
	      "completion %s, want retry_exc within 10 s with retry_cnt 1",
	      n ? wc[0].status : "none");
	cx_state(cx, st, sizeof(st));
	CHECK(cx, !strcmp(st, "ERR"), "QP state %s after its retries ran out", st);
	/*
	 * it was sent, and resent once per retry at least; what left before
	 * the completion may not have been read yet
	 */
	end = cx_now_us() + 1000000;
	for (;;) {
		for (k = 0, n = 0; k < (int)cx->nq; k++)
			n += cx->q[k].h.opcode == METAROCE_OP_SEND;
		if (n >= 2 || cx_now_us() >= end)
			break;
		cx_pump(cx, 10);
	}
	CHECK(cx, n >= 2, "the SEND left %d times, want 2 or more with retry_cnt 1",
	      n);
}

/*
 * The resends of @f, unanswered for 1.5 s, in clusters of what left
 * within 15 ms: cluster k's start, size and distinct paths
 */
static unsigned int resend_clusters(struct cx *cx, const struct pkt *f,
				    u64 *start, unsigned int *size,
				    unsigned int *paths)
{
	unsigned int i, j, k, nc = 0;
	u32 seen[16][8];
	u64 end;

	end = cx_now_us() + 1500000;
	while (cx_now_us() < end)
		cx_pump(cx, 10);
	for (i = 0; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];
		bool dup = false;

		if (p->h.opcode != f->h.opcode || p == f || p->h.psn != f->h.psn)
			continue;
		if (!nc || p->t_us - start[nc - 1] > 15000) {
			if (nc == 16)
				break;
			start[nc] = p->t_us;
			size[nc] = paths[nc] = 0;
			nc++;
		}
		k = nc - 1;
		size[k]++;
		for (j = 0; j < paths[k] && j < 8; j++)
			dup |= seen[k][j] == p->h.path;
		if (!dup && paths[k] < 8)
			seen[k][paths[k]++] = p->h.path;
	}
	for (k = 0; k < nc; k++)
		cx_note(cx, "expiry %u: %u transmission(s) on %u path(s)", k + 1,
			size[k], paths[k]);
	return nc;
}

/* a READ_REQ resent on its RTO is never copied */
static void c_rto_read(struct cx *cx)
{
	unsigned int size[16], paths[16], nc, k;
	u64 start[16];
	struct pkt *q;

	CHECK(cx, !cx_agent(cx, "READ wr=91 off=0 len=512 va=%llu rkey=%u",
			    TVA, TRKEY), "post READ");
	q = next_of(cx, METAROCE_OP_READ_REQ, 1000);
	CHECK(cx, q != NULL, "no READ_REQ");
	if (!q)
		return;
	nc = resend_clusters(cx, q, start, size, paths);
	CHECK(cx, nc >= 3, "%u resends of an unanswered READ_REQ in 1.5 s", nc);
	for (k = 0; k < nc; k++)
		CHECK(cx, size[k] == 1, "expiry %u sent the READ_REQ %u times",
		      k + 1, size[k]);
}

/* unanswered: from the second expiry on, copies on distinct paths */
static void c_rto_copies(struct cx *cx)
{
	struct pkt *f = req_send(cx, 16);
	u64 start[16];
	unsigned int k, nc, size[16], paths[16];

	if (!f)
		return;
	nc = resend_clusters(cx, f, start, size, paths);
	CHECK(cx, nc >= 2, "%u resends of an unanswered PSN in 1.5 s", nc);
	/*
	 * expiry n sends 2^(n-1) copies (8 at most) on distinct active,
	 * unsuspended paths: 1, then 2 (the target has 8 paths, at most
	 * two of which lost anything yet), then no more than 4, 8, ...
	 */
	if (nc >= 2) {
		CHECK(cx, size[0] == 1, "the first expiry sent %u transmissions, want 1",
		      size[0]);
		CHECK(cx, size[1] == 2 && paths[1] == 2,
		      "the second expiry sent %u transmissions on %u paths, want 2 on 2",
		      size[1], paths[1]);
	}
	for (k = 2; k < nc; k++)
		CHECK(cx, size[k] >= 2 && size[k] <= (k < 3 ? 1U << k : 8U) &&
		      paths[k] == size[k],
		      "expiry %u sent %u copies on %u paths, want 2 to %u on as many",
		      k + 1, size[k], paths[k], k < 3 ? 1U << k : 8U);
	for (k = 2; k < nc; k++)
		CHECK(cx, start[k] - start[k - 1] + 2000 >= start[k - 1] - start[k - 2],
		      "expiry %u came %llu us after the previous, sooner than the one before (%llu)",
		      k + 1, (unsigned long long)(start[k] - start[k - 1]),
		      (unsigned long long)(start[k - 1] - start[k - 2]));
}

/*
 * The payload per packet of an RC SEND: the path MTU (1024, set by the
 * agent), or with mtu_fill what the link leaves, below twice the path
 * MTU and a multiple of 8; every packet but the last carries as much
 */
static void c_payload_mtu(struct cx *cx)
{
	struct pkt *l = req_send(cx, 4000);
	u32 mtu = 0;
	unsigned int i;

	if (!l)
		return;
	for (i = 0; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];

		if (p->h.opcode != METAROCE_OP_SEND || p == l)
			continue;
		if (!mtu)
			mtu = p->h.payload_len;
		CHECK(cx, p->h.payload_len == mtu,
		      "packet at offset %u carries %u bytes, the first %u",
		      p->h.msg.offset, p->h.payload_len, mtu);
	}
	cx_note(cx, "%u bytes per packet", mtu);
	CHECK(cx, mtu == 1024 || (mtu > 1024 && mtu < 2048 && !(mtu % 8)),
	      "%u bytes per packet at path MTU 1024: want 1024, or a multiple of 8 below 2048",
	      mtu);
	CHECK(cx, l->h.payload_len <= mtu && l->h.payload_len ==
	      4000 - l->h.msg.offset, "last packet %u bytes at offset %u",
	      l->h.payload_len, l->h.msg.offset);
}

/*
 * max_rd_atomic 2: of three READs posted, two READ_REQs go out; the
 * third waits until a READ completes
 */
static void c_rd_limit(struct cx *cx)
{
	struct cx_opts o = { .create = "rd_atom=2" };
	struct pkt *q[3] = { NULL }, *p;
	struct mro_hdr h;
	struct twc wc[4];
	unsigned int k, n = 0;

	if (cx_setup(cx, &o))
		return;
	for (k = 0; k < 3; k++)
		CHECK(cx, !cx_agent(cx, "READ wr=%u off=%u len=256 va=%llu rkey=%u",
				    81 + k, 4096 + 256 * k, TVA + 256 * k, TRKEY),
		      "post READ %u", k);
	while (n < 3 && (p = next_of(cx, METAROCE_OP_READ_REQ, 300)))
		if (!(p->h.flags & METAROCE_F_RETX))
			q[n++] = p;
	CHECK(cx, n == 2, "%u READ_REQs out with max_rd_atomic 2, want 2", n);
	if (n != 2)
		return;
	/* answer the first READ: the third may go now */
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_READ_RESP;
	h.psn = q[0]->h.psn;
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	h.rresp.ts_echo = q[0]->h.tsval;
	cx->slot = q[0]->h.path < cx->cfg.paths ? q[0]->h.path : 0;
	cx_send(cx, &h, pat, 256);
	CHECK(cx, wcs(cx, 1000, wc, 4) >= 1 && wc[0].wr == 81 &&
	      !strcmp(wc[0].status, "success"), "the first READ did not complete");
	while ((p = next_of(cx, METAROCE_OP_READ_REQ, 1000)) &&
	       (p->h.flags & METAROCE_F_RETX))
		;
	CHECK(cx, p && p->h.msg.va == TVA + 512,
	      "the third READ_REQ did not follow the first READ's completion");
}

/* SOLICITED on the last packet of a SEND posted with it, on no other */
static void c_solicited(struct cx *cx)
{
	struct pkt *p;
	unsigned int k, n = 0;

	for (k = 0; k < 2; k++) {
		CHECK(cx, !cx_agent(cx, "SEND wr=%u off=0 len=2500%s", 101 + k,
				    k ? "" : " se=1"), "post SEND");
		do {
			p = next_of(cx, METAROCE_OP_SEND, 1000);
			if (!p)
				break;
			n++;
			if (k == 0 && (p->h.flags & METAROCE_F_LAST))
				CHECK(cx, p->h.flags & METAROCE_F_SOLICITED,
				      "the last packet of a solicited SEND: flags %#x",
				      p->h.flags);
			else
				CHECK(cx, !(p->h.flags & METAROCE_F_SOLICITED),
				      "SOLICITED on %s packet at offset %u",
				      k ? "an unsolicited SEND's" : "a non-last",
				      p->h.msg.offset);
			if (p->h.flags & METAROCE_F_LAST)
				cx_ack(cx, p, METAROCE_SYN_ACK, p->h.psn + 1, 0, 0);
		} while (!(p->h.flags & METAROCE_F_LAST));
		CHECK(cx, p != NULL, "SEND %u incomplete on the wire", k);
		if (!p)
			return;
	}
	CHECK(cx, n >= 4, "%u packets for two SENDs of 2500 bytes", n);
}

/*
 * The rhythm's PSNs (psn % 32 == 31) leave on the active path slots in
 * turn: three WRITEs of 60000 bytes, acknowledged as they go; no two of
 * the first (up to 8) rhythm PSNs on the same slot (a round robin over 8
 * slots would put every 32nd PSN on one)
 */
static void c_rhythm_paths(struct cx *cx)
{
	static bool got[1024];
	unsigned int nr = 0, lasts = 0, i, j;
	u32 first = cx->tpsn, cum = first;
	u16 rpath[8];
	struct pkt *p;
	u64 end;

	memset(got, 0, sizeof(got));
	for (i = 0; i < 3; i++)
		CHECK(cx, !cx_agent(cx, "WRITE wr=%u off=0 len=60000 va=%llu rkey=%u",
				    111 + i, TVA, TRKEY), "post WRITE");
	end = cx_now_us() + 5000000;
	while (lasts < 3 && cx_now_us() < end) {
		p = next_of(cx, METAROCE_OP_WRITE, 20);
		if (!p || p->h.psn - first >= 1024)
			continue;
		if (!(p->h.flags & METAROCE_F_RETX)) {
			if (p->h.psn % 32 == 31 && nr < 8)
				rpath[nr++] = p->h.path;
			lasts += !!(p->h.flags & METAROCE_F_LAST);
		}
		got[p->h.psn - first] = true;
		while (cum - first < 1024 && got[cum - first])
			cum++;
		if ((p->h.flags & METAROCE_F_ACK_REQ) || p->h.psn % 32 == 31)
			cx_ack(cx, p, METAROCE_SYN_ACK, cum, 0, 0);
	}
	CHECK(cx, lasts == 3, "%u of 3 WRITEs on the wire in 5 s", lasts);
	cx_note(cx, "%u rhythm PSNs, first on path %u", nr, nr ? rpath[0] : 0);
	CHECK(cx, nr >= 3, "%u rhythm PSNs in three WRITEs of 60000 bytes", nr);
	for (i = 1; i < nr; i++)
		for (j = 0; j < i; j++)
			CHECK(cx, rpath[i] != rpath[j],
			      "rhythm PSNs %u and %u of the WRITEs both on path %u",
			      j + 1, i + 1, rpath[i]);
}

/*
 * One path slot black-holed: the tester drops every packet that arrives
 * on the slot of the WRITEs' first packet and acknowledges the others
 * (cumulative and SACK).  Every PSN lost there is resent first on
 * another slot, and the WRITEs complete: the QP sees no error.
 */
static void c_black_hole(struct cx *cx)
{
	static bool got[1024], lost[1024], resent[1024];
	u32 first = cx->tpsn, cum = first, d;
	unsigned int ndone = 0, nlost = 0, nwrong = 0, i, k;
	struct mro_hdr h;
	struct twc wc[4];
	int hole = -1, n;
	struct pkt *p;
	u64 end, poll_at = 0;

	memset(got, 0, sizeof(got));
	memset(lost, 0, sizeof(lost));
	memset(resent, 0, sizeof(resent));
	for (i = 0; i < 3; i++)
		CHECK(cx, !cx_agent(cx, "WRITE wr=%u off=0 len=60000 va=%llu rkey=%u",
				    121 + i, TVA, TRKEY), "post WRITE");
	end = cx_now_us() + 10000000;
	while (ndone < 3 && cx_now_us() < end) {
		p = next_of(cx, METAROCE_OP_WRITE, 10);
		if (p && (d = p->h.psn - first) < 1024) {
			if (hole < 0)
				hole = p->h.path;
			if (lost[d] && !resent[d] &&
			    (p->h.flags & METAROCE_F_RETX)) {
				resent[d] = true;
				nwrong += p->h.path == hole;
			}
			if (p->h.path == hole) {
				if (!got[d] && !lost[d]) {
					lost[d] = true;
					nlost++;
				}
				continue;
			}
			got[d] = true;
			while (cum - first < 1024 && got[cum - first])
				cum++;
			memset(&h, 0, sizeof(h));
			h.opcode = METAROCE_OP_ACK;
			h.ack.syndrome = METAROCE_SYN_ACK;
			h.ack.cum_psn = cum;
			h.ack.credit_psn = cum + cx->cfg.window;
			h.ack.sack_bits = METAROCE_SACK_BITS;
			for (k = 0; k < METAROCE_SACK_BITS; k++)
				if (cum - first + 1 + k < 1024 &&
				    got[cum - first + 1 + k])
					h.ack.sack[k / 64] |= 1ULL << (k % 64);
			h.ack.ts_echo = p->h.tsval;
			h.ack.echo_path = p->h.path;
			h.ack.echo_seq = p->h.path_seq;
			rp_send_hdr(cx->ep, &h, NULL, 0, cx->slot, false);
		}
		if (cx_now_us() >= poll_at) {
			n = cx_wc(cx, 0, wc, 4);
			for (k = 0; k < (unsigned int)(n > 0 ? n : 0); k++) {
				CHECK(cx, !strcmp(wc[k].status, "success"),
				      "WRITE %llu completed %s",
				      (unsigned long long)wc[k].wr, wc[k].status);
				ndone++;
			}
			poll_at = cx_now_us() + 50000;
		}
	}
	cx_note(cx, "slot %d black-holed: %u PSNs lost there, %u PSNs in all",
		hole, nlost, cum - first);
	CHECK(cx, ndone == 3, "%u of 3 WRITEs completed in 10 s with one slot black-holed",
	      ndone);
	CHECK(cx, nlost >= 1, "no PSN went out on slot %d after the first", hole);
	for (i = 0, k = 0; i < 1024; i++)
		k += lost[i] && !resent[i];
	CHECK(cx, k == 0, "%u PSNs lost on the black hole were never resent", k);
	CHECK(cx, nwrong == 0,
	      "%u PSNs lost on slot %d were first resent on that slot again",
	      nwrong, hole);
}

/* one READ response */
static void read_resp(struct cx *cx, const struct pkt *q, u32 k, u32 off,
		      const u8 *data, u32 len, bool last)
{
	struct mro_hdr h;

	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_READ_RESP;
	h.psn = q->h.psn + k;
	h.flags = (off ? 0 : METAROCE_F_FIRST) | (last ? METAROCE_F_LAST : 0);
	h.rresp.offset = off;
	h.rresp.ts_echo = q->h.tsval;
	cx->slot = q->h.path < cx->cfg.paths ? q->h.path : 0;
	cx_send(cx, &h, data, len);
}

/*
 * A READ's response slot counts as a transmission of its READ_REQ: the
 * tester answers every segment but the second; the target resends a
 * one-segment READ_REQ for it (the others arrived), and the READ completes
 */
static void c_read_slot_lost(struct cx *cx)
{
	struct pkt *q, *r;
	struct twc wc[2];
	u32 seg, n, k, len = 4096;
	u8 got[4096];
	u64 end;

	for (k = 0; k < len; k++)
		pat[k] = (u8)(k * 5 + 1);
	CHECK(cx, !cx_agent(cx, "READ wr=131 off=8192 len=%u va=%llu rkey=%u",
			    len, TVA, TRKEY), "post READ");
	q = next_of(cx, METAROCE_OP_READ_REQ, 1000);
	CHECK(cx, q != NULL, "no READ_REQ");
	if (!q)
		return;
	seg = q->h.msg.imm;
	if (seg < 256 || seg > 2048) {
		cx_fail(cx, __LINE__, "segment size %u", seg);
		return;
	}
	n = (len + seg - 1) / seg;
	for (k = 0; k < n; k++)
		if (k != 1)
			read_resp(cx, q, k, k * seg, pat + k * seg,
				  k == n - 1 ? len - k * seg : seg, k == n - 1);
	end = cx_now_us() + 3000000;
	r = NULL;
	while (!r && cx_now_us() < end)
		r = next_of(cx, METAROCE_OP_READ_REQ, 20);
	CHECK(cx, r != NULL, "no READ_REQ for the missing response in 3 s");
	if (!r)
		return;
	CHECK(cx, r->h.psn == q->h.psn + 1 && r->h.msg.offset == seg &&
	      r->h.msg.length == seg && r->h.msg.imm == seg &&
	      (r->h.flags & METAROCE_F_RETX),
	      "resent READ_REQ psn %u offset %u length %u imm %u flags %#x, want %u %u %u %u and RETX",
	      r->h.psn, r->h.msg.offset, r->h.msg.length, r->h.msg.imm,
	      r->h.flags, q->h.psn + 1, seg, seg, seg);
	read_resp(cx, r, 0, seg, pat + seg, seg, true);
	CHECK(cx, wcs(cx, 1000, wc, 2) == 1 && wc[0].wr == 131 &&
	      !strcmp(wc[0].status, "success"), "the READ did not complete");
	CHECK(cx, !cx_mem(cx, 8192, len, got) && !memcmp(got, pat, len),
	      "the READ's bytes are not in the buffer");
}

const struct ccase cases_req[] = {
	{ "LOSS-4", "a lost READ response: one-segment READ_REQ resent for it", c_read_slot_lost, 0 },
	{ "LOSS-10 PATH-10", "a black-holed slot: its PSNs resent on other slots, no error", c_black_hole, 0 },
	{ "ACK-8", "rhythm PSNs on the path slots in turn", c_rhythm_paths, 0 },
	{ "FLAG-4", "SOLICITED on the last packet of a solicited SEND only", c_solicited, 0 },
	{ "RD-8 RES-1", "max_rd_atomic READs outstanding, the next after a completion", c_rd_limit, CF_MANUAL },
	{ "PSN-6", "RC payload per packet: the path MTU or what the link leaves", c_payload_mtu, 0 },
	{ "RTO-7 RTO-6", "unanswered PSN: backoff, copies on distinct paths", c_rto_copies, 0 },
	{ "RTO-8", "an unanswered READ_REQ is resent, never copied", c_rto_read, 0 },
	{ "RTO-9", "retries used up: RETRY_EXC_ERR and the QP in error", c_retry_exceeded, CF_MANUAL },
	{ "MSG-1 MSG-2 EXT-1 FLAG-1 FLAG-2 FLAG-3 FLAG-6 ACK-12 PSN-4 UDP-2 NAK-1 ACK-23", "SEND on the wire, completed by its ACK", c_send_wire, 0 },
	{ "PSN-9 FLAG-5 RTO-6", "unacknowledged PSN resent with RETX and fresh path fields", c_retransmit, 0 },
	{ "NAK-2 ACK-22", "RNR NAK: the PSN resent after the RNR time", c_rnr_nak, 0 },
	{ "NAK-4 ACK-22", "NAK_ACCESS fails the WRITE with REM_ACCESS_ERR", c_nak_access, 0 },
	{ "NAK-3", "NAK_INVALID fails the WRITE with REM_INV_REQ_ERR", c_nak_invalid, 0 },
	{ "NAK-5", "NAK_OP fails the WRITE with REM_OP_ERR", c_nak_op, 0 },
	{ "NAK-6", "NAK_RANGE fails the WRITE with REM_INV_REQ_ERR", c_nak_range, 0 },
	{ "ACK-17 RX-40", "ACK beyond the next PSN, NAK of a PSN not out dropped", c_ack_range, 0 },
	{ "ACK-18 RX-41", "ACK echoing no transmission dropped", c_ack_echo, 0 },
	{ "RX-39", "responses for nothing outstanding dropped", c_stale_resp, 0 },
	{ "RD-1 RD-7 RX-36 ACK-9 ACK-16 FLAG-2", "READ_REQ on the wire; responses checked", c_read_req, 0 },
	{ "ATOM-1 EXT-3 EXT-5 EXT-6", "FETCH_ADD on the wire; orig delivered", c_atomic_req, 0 },
	{ "CTRL-6 CTRL-7 RX-42 RX-43", "CREDIT outside an ACK's bounds or past any window dropped", c_credit, 0 },
	{ NULL, NULL, NULL, 0 },
};
