// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The target as RC responder: acknowledgements, duplicates and holes,
 * placement of SEND and WRITE, READ responses, atomics, the NAK
 * syndromes and RNR (protocol.rst: Acknowledgements, Messages and receive
 * WQEs, RDMA WRITE, RDMA READ, Atomics, NAK syndromes).
 */
#include "conform.h"

static void wr_hdr(struct cx *cx, struct mro_hdr *h, u32 psn, u32 off,
		   u32 len, u32 total, bool ack_req)
{
	cx_req(cx, h, METAROCE_OP_WRITE, psn);
	h->flags = (off ? 0 : METAROCE_F_FIRST) |
		   (off + len == total ? METAROCE_F_LAST : 0) |
		   (ack_req ? METAROCE_F_ACK_REQ : 0);
	h->msg.offset = off;
	h->msg.length = total;
	h->msg.va = cx->va;
	h->msg.rkey = cx->rkey;
}

/* the ACK that echoes the transmission @h, waiting at most @ms */
static struct pkt *ack_of(struct cx *cx, const struct mro_hdr *h, int ms)
{
	u64 end = cx_now_us() + ms * 1000ULL;
	struct pkt *p;

	while (cx_now_us() < end) {
		p = cx_wait(cx, METAROCE_OP_ACK, 5);
		if (p && p->h.ack.echo_seq == h->path_seq &&
		    p->h.ack.echo_path == h->path)
			return p;
	}
	return NULL;
}

static u8 pat[8192];

static void fill_pat(u32 seed)
{
	unsigned int i;

	for (i = 0; i < sizeof(pat); i++)
		pat[i] = (u8)(i * 7 + seed);
}

/* PROBE answered with a plain ACK that names the probe */
static void c_probe_ack(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *a;

	cx_req(cx, &h, METAROCE_OP_PROBE, cx->psn);
	cx->slot = 1;
	cx_send(cx, &h, NULL, 0);
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a != NULL, "no ACK echoing the PROBE (path %u seq %u)",
	      h.path, h.path_seq);
	if (!a)
		return;
	CHECK(cx, a->h.ack.syndrome == METAROCE_SYN_ACK, "syndrome %u",
	      a->h.ack.syndrome);
	CHECK(cx, a->h.ack.cum_psn == cx->psn, "cum_psn %u, want %u",
	      a->h.ack.cum_psn, cx->psn);
	CHECK(cx, a->h.ack.ts_echo == h.tsval, "ts_echo %u, want the PROBE's tsval %u",
	      a->h.ack.ts_echo, h.tsval);
	CHECK(cx, a->h.psn == 0 && a->h.path_seq == 0,
	      "ACK BTH psn %u path_seq %u, want 0 and 0", a->h.psn,
	      a->h.path_seq);
	CHECK(cx, (a->h.flags & ~METAROCE_F_SEALED) == METAROCE_F_ECT,
	      "ACK flags %#x, want ECT only", a->h.flags);
	CHECK(cx, a->h.path == 1, "ACK on path %u, want the probe's 1",
	      a->h.path);
	CHECK(cx, a->sport >= 512 && a->sport <= 1023,
	      "ACK from source port %u, outside 512..1023", a->sport);
	/* ECT in the BTH: ECT(0) in the IP header (its DF a socket never shows) */
	CHECK(cx, a->tos >= 0 && (a->tos & 3) == 2,
	      "ACK with ECT in IP TOS %#x, want ECT(0)", a->tos);
	CHECK(cx, (s32)(a->h.ack.credit_psn - a->h.ack.cum_psn) > 0,
	      "credit_psn %u not after cum_psn %u", a->h.ack.credit_psn,
	      a->h.ack.cum_psn);
	CHECK(cx, a->h.ack.nak_psn == 0, "nak_psn %u on a plain ACK",
	      a->h.ack.nak_psn);
}

/* in order, then a duplicate: counted and answered on another slot */
static void c_duplicate(struct cx *cx)
{
	struct mro_hdr h, d;
	struct pkt *a;

	fill_pat(1);
	wr_hdr(cx, &h, cx->psn, 0, 64, 64, true);
	cx_send(cx, &h, pat, 64);
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a && a->h.ack.cum_psn == cx->psn + 1, "WRITE not acknowledged");
	cx_snap(cx);
	d = h;
	cx->slot = 2;
	d.flags |= METAROCE_F_RETX;
	cx_send(cx, &d, pat, 64);
	a = ack_of(cx, &d, 1000);
	CHECK(cx, a != NULL, "the duplicate was not answered");
	if (a) {
		CHECK(cx, a->h.ack.cum_psn == cx->psn + 1, "cum_psn %u, want %u",
		      a->h.ack.cum_psn, cx->psn + 1);
		CHECK(cx, a->h.path != 2,
		      "the duplicate's ACK left on its own slot 2, want another");
		CHECK(cx, a->h.ack.echo_path == 2, "echo_path %u, want 2",
		      a->h.ack.echo_path);
	}
	CHECK_DELTA(cx, "rx_duplicate", 1);
}

/* a hole opened and filled: each answered at once, SACK shows the PSN */
static void c_hole(struct cx *cx)
{
	struct mro_hdr h1, h2;
	struct pkt *a;
	u8 got[128];

	fill_pat(2);
	cx_snap(cx);
	wr_hdr(cx, &h2, cx->psn + 1, 64, 64, 128, false);
	h2.msg.first_psn = cx->psn;
	cx_send(cx, &h2, pat + 64, 64);
	a = ack_of(cx, &h2, 1000);
	CHECK(cx, a != NULL, "no ACK to a packet that opens a hole");
	if (a) {
		CHECK(cx, a->h.ack.cum_psn == cx->psn, "cum_psn %u, want %u",
		      a->h.ack.cum_psn, cx->psn);
		CHECK(cx, a->h.ack.sack[0] == 1 && a->h.ack.sack_bits > 0,
		      "sack %#llx bits %u, want bit 0", (unsigned long long)a->h.ack.sack[0],
		      a->h.ack.sack_bits);
	}
	CHECK_DELTA(cx, "rx_out_of_order", 1);
	wr_hdr(cx, &h1, cx->psn, 0, 64, 128, false);
	cx_send(cx, &h1, pat, 64);
	a = ack_of(cx, &h1, 1000);
	CHECK(cx, a != NULL, "no ACK to a packet that fills a hole");
	if (a)
		CHECK(cx, a->h.ack.cum_psn == cx->psn + 2 && !a->h.ack.sack[0],
		      "cum_psn %u sack %#llx, want %u and 0", a->h.ack.cum_psn,
		      (unsigned long long)a->h.ack.sack[0], cx->psn + 2);
	CHECK(cx, !cx_mem(cx, 0, 128, got) && !memcmp(got, pat, 128),
	      "the two packets were not placed at va + offset");
}

/* the rhythm: a PSN ending in 11111 is acknowledged unasked */
static void c_rhythm(struct cx *cx)
{
	struct cx_opts o = { .psn = 0x12345e };	/* % 32 == 30 */
	struct mro_hdr h;
	struct pkt *a;
	unsigned int n;

	if (cx_setup(cx, &o))
		return;
	fill_pat(3);
	wr_hdr(cx, &h, cx->psn, 0, 16, 16, false);
	cx_send(cx, &h, pat, 16);
	n = cx_quiet(cx, METAROCE_OP_ACK, 40);
	CHECK(cx, n == 0, "%u ACK(s) to an in-order packet that asks none", n);
	wr_hdr(cx, &h, cx->psn + 1, 0, 16, 16, false);
	cx_send(cx, &h, pat, 16);
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a != NULL, "no ACK to PSN %#x (%% 32 == 31)", cx->psn + 1);
	if (a)
		CHECK(cx, a->h.ack.cum_psn == cx->psn + 2, "cum_psn %#x, want %#x",
		      a->h.ack.cum_psn, cx->psn + 2);
}

/*
 * The 32nd accepted packet since the last ACK is acknowledged even off
 * the rhythm's PSNs: READ_REQs of two segments at even PSNs (none is %
 * 32 == 31), none asking, counted in the rhythm; the first 31 bring
 * their responses and no ACK, the 32nd its responses and an ACK
 */
static void c_ack_32nd(struct cx *cx)
{
	struct cx_opts o = { .psn = 0x123440 };	/* % 32 == 0 */
	unsigned int k, nresp = 0, nack = 0;
	struct mro_hdr h;
	struct pkt *p, *a = NULL;

	if (cx_setup(cx, &o))
		return;
	fill_pat(9);
	CHECK(cx, !cx_setmem(cx, 0, pat, 512), "SETMEM");
	for (k = 0; k < 32; k++) {
		cx_req(cx, &h, METAROCE_OP_READ_REQ, cx->psn + 2 * k);
		h.flags = METAROCE_F_FIRST;
		h.msg.va = cx->va;
		h.msg.length = 512;
		h.msg.imm = 256;
		h.msg.rkey = cx->rkey;
		cx_send(cx, &h, NULL, 0);
		if (k == 30) {
			/* the first 31: responses, no ACK */
			cx_pump(cx, 60);
			for (; (p = cx_wait(cx, 0, 0));) {
				nresp += p->h.opcode == METAROCE_OP_READ_RESP;
				nack += p->h.opcode == METAROCE_OP_ACK;
			}
			CHECK(cx, nresp == 62 && nack == 0,
			      "31 READ_REQs of 2 segments off the rhythm: %u responses and %u ACK(s), want 62 and none",
			      nresp, nack);
		}
	}
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a != NULL, "no ACK to the 32nd accepted packet since the last ACK");
	if (a)
		CHECK(cx, a->h.ack.syndrome == 0 && a->h.ack.cum_psn == cx->psn + 64,
		      "syndrome %u cum_psn %#x, want an ACK of %#x",
		      a->h.ack.syndrome, a->h.ack.cum_psn, cx->psn + 64);
}

/* PSNs count on past 2^24 in 32 bits */
static void c_psn_24bit(struct cx *cx)
{
	struct cx_opts o = { .psn = 0xfffffe };
	struct mro_hdr h;
	struct pkt *a;
	unsigned int i;

	if (cx_setup(cx, &o))
		return;
	fill_pat(4);
	for (i = 0; i < 4; i++) {
		wr_hdr(cx, &h, cx->psn + i, 0, 16, 16, i == 3);
		cx_send(cx, &h, pat, 16);
	}
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a != NULL, "no ACK at PSN %#x", cx->psn + 3);
	if (a)
		CHECK(cx, a->h.ack.cum_psn == 0x1000002,
		      "cum_psn %#x, want 0x1000002 (PSNs do not wrap at 2^24)",
		      a->h.ack.cum_psn);
}

/* a WRITE of three packets arriving last first is placed whole */
static void c_write_ooo(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *a = NULL;
	u8 got[768];
	int i;

	fill_pat(5);
	for (i = 2; i >= 0; i--) {
		wr_hdr(cx, &h, cx->psn + i, i * 256, 256, 768, i == 2);
		h.msg.first_psn = cx->psn;
		cx_send(cx, &h, pat + i * 256, 256);
	}
	cx_pump(cx, 30);
	a = cx_probe(cx);
	CHECK(cx, a && a->h.ack.cum_psn == cx->psn + 3, "cum_psn %u, want %u",
	      a ? a->h.ack.cum_psn : 0, cx->psn + 3);
	CHECK(cx, !cx_mem(cx, 0, 768, got) && !memcmp(got, pat, 768),
	      "the WRITE was not placed at va + offset");
}

/* two SENDs complete in msn order into their receive WQEs */
static void c_send_recv(struct cx *cx)
{
	struct mro_hdr h;
	struct twc wc[4];
	struct pkt *a;
	u8 got[300];
	int n;

	fill_pat(6);
	CHECK(cx, !cx_agent(cx, "RECV wr=11 off=4096 len=512") &&
	      !cx_agent(cx, "RECV wr=12 off=8192 len=512"), "post receive");
	/* message 1 first, then message 0 */
	cx_req(cx, &h, METAROCE_OP_SEND, cx->psn + 1);
	h.msg.msn = 1;
	h.msg.length = 200;
	cx_send(cx, &h, pat + 100, 200);
	cx_req(cx, &h, METAROCE_OP_SEND_IMM, cx->psn);
	h.flags |= METAROCE_F_ACK_REQ;
	h.msg.msn = 0;
	h.msg.length = 100;
	h.msg.imm = 0xabcdef;
	cx_send(cx, &h, pat, 100);
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a && a->h.ack.cum_psn == cx->psn + 2, "not acknowledged");
	n = cx_wc(cx, 1000, wc, 4);
	if (n < 2)
		n += cx_wc(cx, 1000, wc + (n > 0 ? n : 0), 4 - (n > 0 ? n : 0));
	CHECK(cx, n == 2, "%d receive completions, want 2", n);
	if (n == 2) {
		CHECK(cx, wc[0].wr == 11 && wc[0].len == 100 &&
		      !strcmp(wc[0].status, "success") && wc[0].imm == 0xabcdef,
		      "first completion wr %llu len %u %s imm %#x, want 11, 100, success, 0xabcdef",
		      (unsigned long long)wc[0].wr, wc[0].len, wc[0].status, wc[0].imm);
		CHECK(cx, wc[1].wr == 12 && wc[1].len == 200 &&
		      !strcmp(wc[1].status, "success"),
		      "second completion wr %llu len %u %s, want 12, 200, success",
		      (unsigned long long)wc[1].wr, wc[1].len, wc[1].status);
	}
	CHECK(cx, !cx_mem(cx, 4096, 100, got) && !memcmp(got, pat, 100),
	      "message 0 not in the first receive buffer");
	CHECK(cx, !cx_mem(cx, 8192, 200, got) && !memcmp(got, pat + 100, 200),
	      "message 1 not in the second receive buffer");
}

/* no receive WQE: RNR NAK with the QP's min_rnr_timer, PSN not taken */
static void c_rnr(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *a;
	char st[16];

	cx_snap(cx);
	cx_req(cx, &h, METAROCE_OP_SEND, cx->psn);
	h.flags |= METAROCE_F_ACK_REQ;
	h.msg.length = 32;
	cx_send(cx, &h, pat, 32);
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a != NULL, "no answer to a SEND without a receive WQE");
	if (a) {
		CHECK(cx, a->h.ack.syndrome == METAROCE_SYN_RNR_NAK,
		      "syndrome %u, want RNR_NAK", a->h.ack.syndrome);
		CHECK(cx, a->h.ack.nak_psn == cx->psn, "nak_psn %u, want %u",
		      a->h.ack.nak_psn, cx->psn);
		CHECK(cx, a->h.ack.nak_code < 32, "nak_code %u", a->h.ack.nak_code);
		CHECK(cx, a->h.ack.cum_psn == cx->psn,
		      "cum_psn %u: the refused SEND was marked received",
		      a->h.ack.cum_psn);
	}
	cx_state(cx, st, sizeof(st));
	CHECK(cx, !strcmp(st, "RTS"), "QP state %s after an RNR NAK", st);
	CHECK_DELTA(cx, "rnr_nak_sent", 1);
	/* with a WQE the resend is taken */
	cx_agent(cx, "RECV wr=1 off=0 len=64");
	h.flags |= METAROCE_F_RETX;
	cx_send(cx, &h, pat, 32);
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a && a->h.ack.syndrome == 0 && a->h.ack.cum_psn == cx->psn + 1,
	      "the resend with a receive WQE was not taken");
}

/* a NAK at the base: syndrome, nak_psn, and the responder QP in error */
static struct pkt *nak_at_base(struct cx *cx, struct mro_hdr *h, u8 syn)
{
	struct pkt *a = ack_of(cx, h, 1000);
	char st[16];

	CHECK(cx, a != NULL, "no NAK");
	if (a) {
		CHECK(cx, a->h.ack.syndrome == syn, "syndrome %u, want %u",
		      a->h.ack.syndrome, syn);
		CHECK(cx, a->h.ack.nak_psn == cx->psn && a->h.ack.cum_psn == cx->psn,
		      "nak_psn %u cum_psn %u, want %u", a->h.ack.nak_psn,
		      a->h.ack.cum_psn, cx->psn);
	}
	cx_pump(cx, 20);
	cx_state(cx, st, sizeof(st));
	CHECK(cx, !strcmp(st, "ERR"), "responder QP in %s after a NAK, want ERR",
	      st);
	return a;
}

static void c_send_too_long(struct cx *cx)
{
	struct mro_hdr h;
	struct twc wc[2];
	int n;

	cx_agent(cx, "RECV wr=5 off=0 len=64");
	cx_req(cx, &h, METAROCE_OP_SEND, cx->psn);
	h.flags |= METAROCE_F_ACK_REQ;
	h.msg.length = 200;
	cx_send(cx, &h, pat, 200);
	nak_at_base(cx, &h, METAROCE_SYN_NAK_INVALID);
	n = cx_wc(cx, 1000, wc, 2);
	CHECK(cx, n >= 1 && wc[0].wr == 5 && !strcmp(wc[0].status, "loc_len"),
	      "receive completion %s, want loc_len", n >= 1 ? wc[0].status : "none");
}

static void c_write_access(struct cx *cx)
{
	struct mro_hdr h;

	wr_hdr(cx, &h, cx->psn, 0, 16, 16, true);
	h.msg.rkey ^= 0x5a5a00;
	cx_send(cx, &h, pat, 16);
	nak_at_base(cx, &h, METAROCE_SYN_NAK_ACCESS);
}

static void c_write_bounds(struct cx *cx)
{
	struct mro_hdr h;

	wr_hdr(cx, &h, cx->psn, 0, 16, 16, true);
	h.msg.va = cx->va + cx->rlen - 8;
	cx_send(cx, &h, pat, 16);
	nak_at_base(cx, &h, METAROCE_SYN_NAK_ACCESS);
}

/* the same failure ahead of the base: dropped, counted, no NAK */
static void c_error_ahead(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *a;
	char st[16];
	unsigned int n;

	cx_snap(cx);
	wr_hdr(cx, &h, cx->psn + 1, 0, 16, 16, true);
	h.msg.rkey ^= 0x5a5a00;
	cx_send(cx, &h, pat, 16);
	cx_pump(cx, 50);
	n = 0;
	while ((a = cx_wait(cx, METAROCE_OP_ACK, 0)))
		n += a->h.ack.syndrome != METAROCE_SYN_ACK;
	CHECK(cx, n == 0, "%u NAK(s) for a bad packet ahead of the base", n);
	cx_state(cx, st, sizeof(st));
	CHECK(cx, !strcmp(st, "RTS"), "QP state %s, want RTS", st);
	CHECK_DELTA(cx, "rx_drop_error_ahead", 1);
	a = cx_probe(cx);
	CHECK(cx, a && a->h.ack.cum_psn == cx->psn && !a->h.ack.sack[0],
	      "the bad packet was marked received");
}

/* READ: segments of imm bytes, PSN p + k, FIRST/LAST, ts_echo, slot */
static void c_read(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *r[3];
	unsigned int k;
	struct pkt *a;

	fill_pat(7);
	CHECK(cx, !cx_setmem(cx, 1000, pat, 700), "SETMEM");
	cx_req(cx, &h, METAROCE_OP_READ_REQ, cx->psn);
	h.flags = METAROCE_F_FIRST | METAROCE_F_ACK_REQ;
	h.msg.va = cx->va + 1000 - 100;
	h.msg.offset = 100;
	h.msg.length = 700;
	h.msg.imm = 256;
	h.msg.rkey = cx->rkey;
	cx->slot = 3;
	cx_send(cx, &h, NULL, 0);
	for (k = 0; k < 3; k++) {
		r[k] = cx_wait(cx, METAROCE_OP_READ_RESP, 1000);
		CHECK(cx, r[k] != NULL, "READ response %u missing", k);
		if (!r[k])
			return;
	}
	for (k = 0; k < 3; k++) {
		const struct mro_hdr *q = &r[k]->h;
		u32 want = k < 2 ? 256 : 700 - 512;

		CHECK(cx, q->psn == cx->psn + k, "response %u PSN %u, want %u", k,
		      q->psn, cx->psn + k);
		CHECK(cx, q->rresp.offset == 100 + k * 256,
		      "response %u offset %u, want %u", k, q->rresp.offset,
		      100 + k * 256);
		CHECK(cx, q->payload_len == want, "response %u carries %u bytes, want %u",
		      k, q->payload_len, want);
		CHECK(cx, !memcmp(r[k]->payload, pat + k * 256, want),
		      "response %u: wrong bytes", k);
		CHECK(cx, !(q->flags & METAROCE_F_FIRST) &&
		      !!(q->flags & METAROCE_F_LAST) == (k == 2),
		      "response %u flags %#x (FIRST only at offset 0, LAST on the last)",
		      k, q->flags);
		CHECK(cx, q->rresp.ts_echo == h.tsval || q->rresp.ts_echo == 0,
		      "response %u ts_echo %u, want the READ_REQ's tsval %u", k,
		      q->rresp.ts_echo, h.tsval);
		CHECK(cx, q->path == 3, "response %u on slot %u, want the request's 3",
		      k, q->path);
	}
	/* its ACK_REQ is answered by an ACK after the responses */
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a != NULL, "no ACK after the READ's responses");
	if (a)
		CHECK(cx, a->h.ack.cum_psn == cx->psn + 3 &&
		      (s32)(a->h.ack.credit_psn - a->h.ack.cum_psn) > 0,
		      "ACK after the READ: cum_psn %u credit_psn %u, want %u and beyond",
		      a->h.ack.cum_psn, a->h.ack.credit_psn, cx->psn + 3);
	/* the READ took three PSNs: the next request is at p + 3 */
	cx->slot = 0;
	cx->psn += 3;
	a = cx_probe(cx);
	CHECK(cx, a && a->h.ack.cum_psn == cx->psn,
	      "cum_psn %u after the READ, want %u", a ? a->h.ack.cum_psn : 0,
	      cx->psn);
}

/* a READ_REQ answered by its responses, then replayed as a duplicate */
static void c_read_dup(struct cx *cx)
{
	struct mro_hdr h, d;
	struct pkt *r;
	char st[16];

	fill_pat(8);
	cx_setmem(cx, 0, pat, 512);
	cx_req(cx, &h, METAROCE_OP_READ_REQ, cx->psn);
	h.flags = METAROCE_F_FIRST | METAROCE_F_ACK_REQ;
	h.msg.va = cx->va;
	h.msg.length = 512;
	h.msg.imm = 256;
	h.msg.rkey = cx->rkey;
	cx_send(cx, &h, NULL, 0);
	CHECK(cx, cx_wait(cx, METAROCE_OP_READ_RESP, 1000) &&
	      cx_wait(cx, METAROCE_OP_READ_RESP, 1000), "READ not answered");
	cx_pump(cx, 20);
	/* its second segment again, as a one-segment READ_REQ */
	memset(pat, 0x77, 256);
	cx_setmem(cx, 256, pat, 256);
	d = h;
	d.psn = cx->psn + 1;
	d.flags = METAROCE_F_ACK_REQ;
	d.msg.offset = 256;
	d.msg.length = 256;
	d.msg.first_psn = d.psn;
	cx_snap(cx);
	cx_send(cx, &d, NULL, 0);
	r = cx_wait(cx, METAROCE_OP_READ_RESP, 1000);
	CHECK(cx, r != NULL, "the duplicate READ_REQ was not answered");
	if (r)
		CHECK(cx, r->h.psn == cx->psn + 1 && r->h.rresp.offset == 256 &&
		      r->payload[0] == 0x77,
		      "replay PSN %u offset %u byte %#x, want %u, 256, 0x77 (read again)",
		      r->h.psn, r->h.rresp.offset, r->payload[0], cx->psn + 1);
	/* a duplicate that names other memory is dropped, not NAKed */
	d.msg.va += 4096;
	cx_send(cx, &d, NULL, 0);
	CHECK(cx, cx_quiet(cx, 0, 60) == 0, "a foreign duplicate READ_REQ was answered");
	CHECK_DELTA(cx, "rx_drop_dup_req", 1);
	cx_state(cx, st, sizeof(st));
	CHECK(cx, !strcmp(st, "RTS"), "QP state %s after a bad duplicate", st);
}

static void c_read_too_big(struct cx *cx)
{
	struct mro_hdr h;

	cx_req(cx, &h, METAROCE_OP_READ_REQ, cx->psn);
	h.flags = METAROCE_F_FIRST | METAROCE_F_ACK_REQ;
	h.msg.va = cx->va;
	h.msg.length = 65536;
	h.msg.imm = 65536;
	h.msg.rkey = cx->rkey;
	cx_send(cx, &h, NULL, 0);
	nak_at_base(cx, &h, METAROCE_SYN_NAK_INVALID);
}

static u64 mem64(struct cx *cx, u32 off)
{
	u64 v = 0;

	cx_mem(cx, off, 8, (u8 *)&v);
	return v;
}

/* FETCH_ADD, then its duplicate answered from the result cache */
static void c_atomic(struct cx *cx)
{
	u64 v = 1000;
	struct mro_hdr h;
	struct pkt *r;

	cx_setmem(cx, 64, (u8 *)&v, 8);
	cx_req(cx, &h, METAROCE_OP_FETCH_ADD, cx->psn);
	h.atomic.va = cx->va + 64;
	h.atomic.rkey = cx->rkey;
	h.atomic.swap_add = 5;
	cx->slot = 2;
	cx_send(cx, &h, NULL, 0);
	r = cx_wait(cx, METAROCE_OP_ATOMIC_RESP, 1000);
	CHECK(cx, r != NULL, "no ATOMIC_RESP");
	if (r) {
		CHECK(cx, r->h.psn == cx->psn, "ATOMIC_RESP PSN %u, want %u",
		      r->h.psn, cx->psn);
		CHECK(cx, r->h.orig == 1000, "orig %llu, want 1000",
		      (unsigned long long)r->h.orig);
		CHECK(cx, r->h.path == 2, "ATOMIC_RESP on slot %u, want 2",
		      r->h.path);
	}
	CHECK(cx, mem64(cx, 64) == 1005, "memory %llu after FETCH_ADD 5, want 1005",
	      (unsigned long long)mem64(cx, 64));
	cx_pump(cx, 20);
	/* the duplicate, from slot 1: the cached result, not executed again */
	cx->slot = 1;
	h.flags |= METAROCE_F_RETX;
	cx_send(cx, &h, NULL, 0);
	r = cx_wait(cx, METAROCE_OP_ATOMIC_RESP, 1000);
	CHECK(cx, r != NULL, "the duplicate atomic was not answered");
	if (r) {
		CHECK(cx, r->h.orig == 1000 && r->h.psn == cx->psn,
		      "duplicate answered orig %llu PSN %u, want 1000, %u",
		      (unsigned long long)r->h.orig, r->h.psn, cx->psn);
		CHECK(cx, r->h.path == 1,
		      "the duplicate's response on slot %u, want the duplicate's 1",
		      r->h.path);
	}
	CHECK(cx, mem64(cx, 64) == 1005, "memory %llu after the duplicate, want 1005",
	      (unsigned long long)mem64(cx, 64));
}

/* CMP_SWAP swaps only on a match */
static void c_cmp_swap(struct cx *cx)
{
	u64 v = 7;
	struct mro_hdr h;
	struct pkt *r;

	cx_setmem(cx, 128, (u8 *)&v, 8);
	cx_req(cx, &h, METAROCE_OP_CMP_SWAP, cx->psn);
	h.atomic.va = cx->va + 128;
	h.atomic.rkey = cx->rkey;
	h.atomic.compare = 8;
	h.atomic.swap_add = 99;
	cx_send(cx, &h, NULL, 0);
	r = cx_wait(cx, METAROCE_OP_ATOMIC_RESP, 1000);
	CHECK(cx, r && r->h.orig == 7, "orig %llu, want 7",
	      r ? (unsigned long long)r->h.orig : 0ULL);
	CHECK(cx, mem64(cx, 128) == 7, "swapped on a mismatch");
	cx_req(cx, &h, METAROCE_OP_CMP_SWAP, cx->psn + 1);
	h.atomic.va = cx->va + 128;
	h.atomic.rkey = cx->rkey;
	h.atomic.compare = 7;
	h.atomic.swap_add = 99;
	cx_send(cx, &h, NULL, 0);
	r = cx_wait(cx, METAROCE_OP_ATOMIC_RESP, 1000);
	CHECK(cx, r && r->h.orig == 7 && r->h.psn == cx->psn + 1,
	      "second CMP_SWAP not answered with orig 7");
	CHECK(cx, mem64(cx, 128) == 99, "not swapped on a match");
}

/* a duplicate atomic with no cached result: dropped, not executed */
static void c_atomic_dup_uncached(struct cx *cx)
{
	u64 v = 50;
	struct mro_hdr h;

	cx_setmem(cx, 64, (u8 *)&v, 8);
	/* PSN p is a WRITE; a FETCH_ADD claiming p is a duplicate */
	wr_hdr(cx, &h, cx->psn, 0, 8, 8, true);
	cx_send(cx, &h, pat, 8);
	CHECK(cx, ack_of(cx, &h, 1000) != NULL, "the WRITE was not acknowledged");
	cx_snap(cx);
	cx_req(cx, &h, METAROCE_OP_FETCH_ADD, cx->psn);
	h.atomic.va = cx->va + 64;
	h.atomic.rkey = cx->rkey;
	h.atomic.swap_add = 1;
	cx_send(cx, &h, NULL, 0);
	CHECK(cx, cx_quiet(cx, METAROCE_OP_ATOMIC_RESP, 80) == 0,
	      "an uncached duplicate atomic was answered");
	CHECK(cx, mem64(cx, 64) == 50, "an uncached duplicate atomic was executed");
	CHECK_DELTA(cx, "rx_drop_dup_req", 1);
}

/* atomics at a misaligned or foreign address: NAK_ACCESS */
static void c_atomic_access(struct cx *cx)
{
	struct mro_hdr h;

	cx_req(cx, &h, METAROCE_OP_FETCH_ADD, cx->psn);
	h.atomic.va = cx->va + cx->rlen;
	h.atomic.rkey = cx->rkey;
	h.atomic.swap_add = 1;
	cx_send(cx, &h, NULL, 0);
	nak_at_base(cx, &h, METAROCE_SYN_NAK_ACCESS);
}

/* ATOMIC_WRITE stores the 8 bytes big-endian; a duplicate is not stored */
static void c_atomic_write(struct cx *cx)
{
	static const u8 want[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	u8 got[8], z[8] = { 0 };
	struct mro_hdr h;
	struct pkt *a;

	cx_req(cx, &h, METAROCE_OP_ATOMIC_WRITE, cx->psn);
	h.atomic.va = cx->va + 256;
	h.atomic.rkey = cx->rkey;
	h.atomic.swap_add = 0x0102030405060708ULL;
	cx_send(cx, &h, NULL, 0);
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a && a->h.ack.syndrome == 0 && a->h.ack.cum_psn == cx->psn + 1,
	      "ATOMIC_WRITE not acknowledged by an ACK");
	CHECK(cx, !cx_mem(cx, 256, 8, got) && !memcmp(got, want, 8),
	      "memory %02x%02x%02x%02x%02x%02x%02x%02x, want 0102030405060708",
	      got[0], got[1], got[2], got[3], got[4], got[5], got[6], got[7]);
	cx_setmem(cx, 256, z, 8);
	h.flags |= METAROCE_F_RETX;
	cx_send(cx, &h, NULL, 0);
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a != NULL, "the duplicate ATOMIC_WRITE was not acknowledged");
	CHECK(cx, !cx_mem(cx, 256, 8, got) && !memcmp(got, z, 8),
	      "the duplicate ATOMIC_WRITE was stored again");
}

/*
 * ATOMIC_WRITE needs remote write on the region: against a region that
 * grants atomics but not remote write, a FETCH_ADD runs and the
 * ATOMIC_WRITE after it is NAKed NAK_ACCESS, its 8 bytes not stored
 */
static void c_atomic_write_access(struct cx *cx)
{
	struct cx_opts o = { .create = "nowrite=1" };
	u8 got[8], z[8] = { 0 };
	struct mro_hdr h;
	struct pkt *r;

	if (cx_setup(cx, &o))
		return;
	cx_req(cx, &h, METAROCE_OP_FETCH_ADD, cx->psn);
	h.atomic.va = cx->va + 64;
	h.atomic.rkey = cx->rkey;
	h.atomic.swap_add = 5;
	cx_send(cx, &h, NULL, 0);
	r = cx_wait(cx, METAROCE_OP_ATOMIC_RESP, 1000);
	CHECK(cx, r != NULL && r->h.orig == 0,
	      "FETCH_ADD on the region without remote write not answered with orig 0");
	CHECK(cx, mem64(cx, 64) == 5, "memory %llu after FETCH_ADD 5, want 5",
	      (unsigned long long)mem64(cx, 64));
	if (cx->fails)
		return;
	cx_pump(cx, 20);
	cx->psn++;
	cx_req(cx, &h, METAROCE_OP_ATOMIC_WRITE, cx->psn);
	h.atomic.va = cx->va + 256;
	h.atomic.rkey = cx->rkey;
	h.atomic.swap_add = 0x0102030405060708ULL;
	cx_send(cx, &h, NULL, 0);
	nak_at_base(cx, &h, METAROCE_SYN_NAK_ACCESS);
	CHECK(cx, !cx_mem(cx, 256, 8, got) && !memcmp(got, z, 8),
	      "the ATOMIC_WRITE was stored in a region without remote write");
}

/* FLUSH global, range and region: acknowledged (a target that grants it) */
static void c_flush(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *a;
	u8 lvl;

	if (!cx->flush) {
		cx->skip = "the target's region does not grant FLUSH";
		return;
	}
	for (lvl = METAROCE_FLUSH_RANGE; lvl <= METAROCE_FLUSH_MR; lvl++) {
		cx_req(cx, &h, METAROCE_OP_FLUSH, cx->psn);
		h.flush.va = cx->va;
		h.flush.rkey = cx->rkey;
		h.flush.length = 4096;
		h.flush.type = METAROCE_FLUSH_GLOBAL;
		h.flush.level = lvl;
		cx_send(cx, &h, NULL, 0);
		a = ack_of(cx, &h, 1000);
		CHECK(cx, a && a->h.ack.syndrome == 0 &&
		      a->h.ack.cum_psn == cx->psn + 1,
		      "FLUSH (global, level %u) not acknowledged", lvl);
		cx->psn++;
	}
}

/* FLUSH for persistence, or without the right: NAK_ACCESS */
static void c_flush_denied(struct cx *cx)
{
	struct mro_hdr h;

	cx_req(cx, &h, METAROCE_OP_FLUSH, cx->psn);
	h.flush.va = cx->va;
	h.flush.rkey = cx->rkey;
	h.flush.length = 64;
	h.flush.type = cx->flush ? METAROCE_FLUSH_PERSISTENT :
				   METAROCE_FLUSH_GLOBAL;
	h.flush.level = METAROCE_FLUSH_RANGE;
	if (!cx->flush)
		cx_note(cx, "the target's region does not grant FLUSH: a global FLUSH must fail");
	cx_send(cx, &h, NULL, 0);
	nak_at_base(cx, &h, METAROCE_SYN_NAK_ACCESS);
}

/* CE-marked requests are counted in the ACK's ecn_ce */
static void c_ecn(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *a;
	u8 buf[256];
	size_t n;
	u16 ce0;

	a = cx_probe(cx);
	if (!a) {
		CHECK(cx, 0, "no ACK to a PROBE");
		return;
	}
	ce0 = a->h.ack.ecn_ce;
	wr_hdr(cx, &h, cx->psn, 0, 16, 16, true);
	h.flags |= METAROCE_F_ECT;
	n = cx_build(cx, &h, pat, 16, buf);
	rp_send_datagram_tos(cx->ep, buf, n, cx->slot, 0x03);
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a != NULL, "no ACK to a CE-marked WRITE");
	if (a)
		CHECK(cx, (u16)(a->h.ack.ecn_ce - ce0) == 1,
		      "ecn_ce went %u -> %u, want +1", ce0, a->h.ack.ecn_ce);
	/* a duplicate CE-marked packet is not new to the window: not counted */
	h.flags |= METAROCE_F_RETX;
	n = cx_build(cx, &h, pat, 16, buf);
	rp_send_datagram_tos(cx->ep, buf, n, cx->slot, 0x03);
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a && (u16)(a->h.ack.ecn_ce - ce0) == 1,
	      "ecn_ce %u after a CE-marked duplicate, want %u",
	      a ? a->h.ack.ecn_ce : 0, (u16)(ce0 + 1));
}

/* ACK_PIGGY: a request's ack_psn acknowledges the target's own SEND */
static void c_piggy_applied(struct cx *cx)
{
	struct mro_hdr h;
	struct twc wc[2];
	struct pkt *s;
	int n;

	CHECK(cx, !cx_agent(cx, "SEND wr=21 off=0 len=32"), "post send");
	s = cx_wait(cx, METAROCE_OP_SEND, 500);
	CHECK(cx, s != NULL, "the target's SEND did not come");
	if (!s)
		return;
	/* no ACK from us; an out-of-range ack_psn is ignored */
	cx_req(cx, &h, METAROCE_OP_WRITE, cx->psn);
	h.flags |= METAROCE_F_ACK_PIGGY | METAROCE_F_ACK_REQ;
	h.ack_psn = s->h.psn + 5;
	h.msg.length = 8;
	h.msg.va = cx->va + 1024;
	h.msg.rkey = cx->rkey;
	cx_send(cx, &h, pat, 8);
	n = cx_wc(cx, 30, wc, 2);
	CHECK(cx, n == 0, "ack_psn past the next PSN completed the SEND (%d: %s)",
	      n, cx->reply);
	cx->psn++;
	cx_req(cx, &h, METAROCE_OP_WRITE, cx->psn);
	h.flags |= METAROCE_F_ACK_PIGGY | METAROCE_F_ACK_REQ;
	h.ack_psn = s->h.psn + 1;
	h.msg.length = 8;
	h.msg.va = cx->va + 1024;
	h.msg.rkey = cx->rkey;
	cx_send(cx, &h, pat, 8);
	n = cx_wc(cx, 1000, wc, 2);
	CHECK(cx, n == 1 && wc[0].wr == 21 && !strcmp(wc[0].status, "success"),
	      "the piggybacked ACK did not complete the SEND (%d completions)", n);
}

/* a READ_REQ ahead of a WRITE to the same bytes reads what it wrote */
static void c_read_waits(struct cx *cx)
{
	static u8 w[64];
	struct mro_hdr h, q;
	struct pkt *r;

	memset(w, 0xee, sizeof(w));
	cx_req(cx, &q, METAROCE_OP_READ_REQ, cx->psn + 1);
	q.flags = METAROCE_F_FIRST | METAROCE_F_ACK_REQ;
	q.msg.va = cx->va + 3072;
	q.msg.length = 64;
	q.msg.imm = 256;
	q.msg.rkey = cx->rkey;
	cx_send(cx, &q, NULL, 0);
	CHECK(cx, cx_quiet(cx, METAROCE_OP_READ_RESP, 40) == 0,
	      "a READ_REQ ahead of its turn was answered at once");
	wr_hdr(cx, &h, cx->psn, 0, 64, 64, false);
	h.msg.va = cx->va + 3072;
	cx_send(cx, &h, w, 64);
	r = cx_wait(cx, METAROCE_OP_READ_RESP, 1000);
	CHECK(cx, r != NULL, "the waiting READ_REQ was not answered");
	if (r)
		CHECK(cx, r->h.psn == cx->psn + 1 && r->payload[0] == 0xee &&
		      r->payload[63] == 0xee,
		      "READ response PSN %u byte %#x: not what the earlier WRITE left",
		      r->h.psn, r->payload[0]);
}

/* a slot index the responder does not have still gets an answer */
static void c_foreign_slot(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *a = NULL;
	u8 buf[256];
	size_t n;
	u64 end;

	cx_req(cx, &h, METAROCE_OP_PROBE, cx->psn);
	n = cx_build(cx, &h, NULL, 0, buf);
	buf[16] = 0;
	buf[17] = 61;		/* path 61 */
	cx_recrc(buf, n);
	cx_raw(cx, buf, n);
	end = cx_now_us() + 1000000;
	while (cx_now_us() < end) {
		a = cx_wait(cx, METAROCE_OP_ACK, 10);
		if (a && a->h.ack.echo_seq == h.path_seq)
			break;
		a = NULL;
	}
	CHECK(cx, a != NULL, "no ACK to a PROBE on slot 61");
	if (a)
		CHECK(cx, a->h.ack.echo_path == 61, "echo_path %u, want 61",
		      a->h.ack.echo_path);
}

/* a packet that disagrees with its message's length is dropped */
static void c_msg_mismatch(struct cx *cx)
{
	static u8 d[1024];
	struct mro_hdr h;
	struct pkt *a;

	cx_agent(cx, "RECV wr=1 off=0 len=8192");
	cx_req(cx, &h, METAROCE_OP_SEND, cx->psn);
	h.flags = METAROCE_F_FIRST;
	h.msg.length = 2048;
	cx_send(cx, &h, d, 1024);
	/* at a rhythm PSN (psn % 32 == 31) the first packet is acknowledged */
	cx_pump(cx, 20);
	while (cx_wait(cx, METAROCE_OP_ACK, 0))
		;
	cx_snap(cx);
	cx_req(cx, &h, METAROCE_OP_SEND, cx->psn + 1);
	h.flags = METAROCE_F_LAST | METAROCE_F_ACK_REQ;
	h.msg.first_psn = cx->psn;
	h.msg.length = 4096;	/* not the message's 2048 */
	h.msg.offset = 3072;
	cx_send(cx, &h, d, 1024);
	CHECK(cx, cx_quiet(cx, METAROCE_OP_ACK, 60) == 0,
	      "a packet disagreeing with its message was answered");
	CHECK_DELTA(cx, "rx_drop_field", 1);
	a = cx_probe(cx);
	CHECK(cx, a && a->h.ack.cum_psn == cx->psn + 1 && !a->h.ack.sack[0],
	      "the disagreeing packet was taken");
}

/* a message 64 or more ahead of the next to complete is dropped */
static void c_msn_window(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *a;

	cx_agent(cx, "RECV wr=1 off=0 len=64");
	cx_snap(cx);
	cx_req(cx, &h, METAROCE_OP_SEND, cx->psn);
	h.flags |= METAROCE_F_ACK_REQ;
	h.msg.msn = 64;
	h.msg.length = 16;
	cx_send(cx, &h, pat, 16);
	CHECK(cx, cx_quiet(cx, METAROCE_OP_ACK, 60) == 0,
	      "a SEND 64 messages ahead was answered");
	CHECK_DELTA(cx, "rx_drop_window", 1);
	a = cx_probe(cx);
	CHECK(cx, a && a->h.ack.cum_psn == cx->psn, "the SEND 64 ahead was taken");
}

/* a QP in the error state drops requests and PROBEs */
static void c_error_state(struct cx *cx)
{
	struct mro_hdr h;

	wr_hdr(cx, &h, cx->psn, 0, 16, 16, true);
	h.msg.rkey ^= 0x5a5a00;
	cx_send(cx, &h, pat, 16);
	nak_at_base(cx, &h, METAROCE_SYN_NAK_ACCESS);
	cx_snap(cx);
	cx_req(cx, &h, METAROCE_OP_PROBE, cx->psn);
	cx_send(cx, &h, NULL, 0);
	CHECK(cx, cx_quiet(cx, METAROCE_OP_ACK, 60) == 0,
	      "a QP in the error state answered a PROBE");
	CHECK_DELTA(cx, "rx_drop_qp_state", 1);
}

/* READ_RESP whose offset + payload passes 2^31: a length error */
static void c_resp_length(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_READ_RESP;
	h.flags = METAROCE_F_LAST;
	h.psn = cx->tpsn;
	h.rresp.offset = 0x7ffffff0;
	n = cx_build(cx, &h, pat, 64, buf);
	cx_snap(cx);
	cx_raw(cx, buf, n);
	cx_pump(cx, 40);
	CHECK_DELTA(cx, "rx_drop_length", 1);
}

/* protection none: data flows from RTS, before the HELLO exchange */
static void c_no_wait(struct cx *cx)
{
	struct cx_opts o = { .no_wait = true };
	struct mro_hdr h;
	struct pkt *a;

	if (cx_setup(cx, &o))
		return;
	wr_hdr(cx, &h, cx->psn, 0, 16, 16, true);
	cx_send(cx, &h, pat, 16);
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a && a->h.ack.cum_psn == cx->psn + 1,
	      "a WRITE sent with the HELLOs was not taken");
}

/* the error state flushes the receive WQEs no message completed */
static void c_flush_rq(struct cx *cx)
{
	struct mro_hdr h;
	struct twc wc[4];
	int n = 0, k, i;

	cx_agent(cx, "RECV wr=81 off=0 len=256");
	cx_agent(cx, "RECV wr=82 off=256 len=256");
	wr_hdr(cx, &h, cx->psn, 0, 16, 16, true);
	h.msg.rkey ^= 0x5a5a00;
	cx_send(cx, &h, pat, 16);
	nak_at_base(cx, &h, METAROCE_SYN_NAK_ACCESS);
	for (i = 0; i < 5 && n < 2; i++) {
		k = cx_wc(cx, 200, wc + n, 4 - n);
		n += k > 0 ? k : 0;
	}
	CHECK(cx, n == 2, "%d completions after the QP entered ERR, want 2", n);
	for (i = 0; i < n; i++)
		CHECK(cx, wc[i].wr == (u64)(81 + i) && !strcmp(wc[i].status, "flush"),
		      "completion %d: wr %llu %s, want %d flush", i,
		      (unsigned long long)wc[i].wr, wc[i].status, 81 + i);
}

/* no responder resources (max_dest_rd_atomic 0): NAK_INVALID */
static void c_no_rd_atomic(struct cx *cx)
{
	struct cx_opts o = { .create = "rd_atom=0" };
	struct mro_hdr h;

	if (cx_setup(cx, &o))
		return;
	cx_req(cx, &h, METAROCE_OP_READ_REQ, cx->psn);
	h.flags = METAROCE_F_FIRST | METAROCE_F_ACK_REQ;
	h.msg.va = cx->va;
	h.msg.length = 64;
	h.msg.imm = 256;
	h.msg.rkey = cx->rkey;
	cx_send(cx, &h, NULL, 0);
	CHECK(cx, cx_quiet(cx, METAROCE_OP_READ_RESP, 0) == 0, "answered");
	nak_at_base(cx, &h, METAROCE_SYN_NAK_INVALID);
}

/* the ACK of a PROBE on slot 1 */
static struct pkt *probe_slot(struct cx *cx, u16 flags)
{
	struct mro_hdr h;

	cx_req(cx, &h, METAROCE_OP_PROBE, cx->psn);
	h.flags |= flags;
	cx->slot = 1;
	cx_send(cx, &h, NULL, 0);
	return ack_of(cx, &h, 1000);
}

/* a re-probe (NEW_PORT): the responder's side of the slot moves too */
static void c_new_port_probe(struct cx *cx)
{
	struct pkt *a;
	u16 s1, s2;

	a = probe_slot(cx, 0);
	CHECK(cx, a && a->h.path == 1, "no ACK on slot 1 to a PROBE on slot 1");
	if (!a)
		return;
	s1 = a->sport;
	cx_snap(cx);
	a = probe_slot(cx, METAROCE_F_NEW_PORT);
	CHECK(cx, a != NULL, "no ACK to a PROBE with NEW_PORT");
	if (!a)
		return;
	s2 = a->sport;
	CHECK(cx, s2 != s1 && s2 >= 512 && s2 <= 1023,
	      "the re-probe's ACK came from port %u (before: %u): want a fresh one in 512..1023",
	      s2, s1);
	CHECK_DELTA(cx, "reprobes_rcvd", 1);
	a = probe_slot(cx, 0);
	CHECK(cx, a && a->sport == s2,
	      "the slot's next ACK came from port %u, not its new %u",
	      a ? a->sport : 0, s2);
}

/*
 * max_dest_rd_atomic 2: three READ_REQs waiting behind a hole; the third
 * is over the limit, dropped and counted, and taken when resent
 */
static void c_rd_ahead_limit(struct cx *cx)
{
	struct cx_opts o = { .create = "rd_atom=2" };
	static u8 w[64];
	struct mro_hdr h, q[3];
	struct pkt *r, *a;
	unsigned int k, got = 0;

	if (cx_setup(cx, &o))
		return;
	cx_snap(cx);
	for (k = 0; k < 3; k++) {
		cx_req(cx, &q[k], METAROCE_OP_READ_REQ, cx->psn + 1 + k);
		q[k].flags = METAROCE_F_FIRST | METAROCE_F_ACK_REQ;
		q[k].msg.va = cx->va + 1024 + 64 * k;
		q[k].msg.length = 64;
		q[k].msg.imm = 256;
		q[k].msg.rkey = cx->rkey;
		cx_send(cx, &q[k], NULL, 0);
	}
	CHECK(cx, cx_quiet(cx, METAROCE_OP_READ_RESP, 40) == 0,
	      "a READ_REQ ahead of its turn was answered at once");
	CHECK_DELTA(cx, "rx_drop_error_ahead", 1);
	memset(w, 0x5c, sizeof(w));
	wr_hdr(cx, &h, cx->psn, 0, 64, 64, false);
	h.msg.va = cx->va + 1024;
	cx_send(cx, &h, w, 64);
	while ((r = cx_wait(cx, METAROCE_OP_READ_RESP, 300))) {
		CHECK(cx, r->h.psn == cx->psn + 1 + got,
		      "READ response at PSN %u, want %u", r->h.psn,
		      cx->psn + 1 + got);
		got++;
	}
	CHECK(cx, got == 2, "%u READ_REQs answered once the hole was filled, want the 2 taken",
	      got);
	a = cx_probe(cx);
	CHECK(cx, a && a->h.ack.cum_psn == cx->psn + 3,
	      "after the fill cum_psn %u, want %u: the READ_REQ over the limit was taken",
	      a ? a->h.ack.cum_psn : 0, cx->psn + 3);
	q[2].flags |= METAROCE_F_RETX;
	cx_send(cx, &q[2], NULL, 0);
	r = cx_wait(cx, METAROCE_OP_READ_RESP, 1000);
	CHECK(cx, r && r->h.psn == cx->psn + 3,
	      "the resent READ_REQ was not answered");
}

/*
 * SEND_INV behind a hole, of the region's own key (an ordinary region,
 * which no SEND_INV can invalidate): a WRITE naming the key that
 * arrived before it was taken; one after it, while the fence waits, is
 * held back; one before it (filling the hole) still finds the key; then
 * the invalidation runs and fails: LOC_PROT_ERR and the QP in error.
 */
static void c_send_inv_fence(struct cx *cx)
{
	u32 p = cx->psn;
	struct mro_hdr h, inv;
	struct twc wc[4];
	struct pkt *a;
	u8 got[16];
	char st[16];
	int n;

	fill_pat(9);
	CHECK(cx, !cx_agent(cx, "RECV wr=95 off=8192 len=64"), "post receive");
	/* ORD-5: a later WRITE that arrives before the SEND_INV is taken */
	wr_hdr(cx, &h, p + 2, 0, 16, 16, true);
	h.msg.va = cx->va + 2048;
	h.msg.msn = cx->msn + 1;
	cx_send(cx, &h, pat, 16);
	cx_pump(cx, 30);
	cx_req(cx, &inv, METAROCE_OP_SEND_INV, p + 1);
	inv.flags |= METAROCE_F_ACK_REQ;
	inv.msg.length = 16;
	inv.msg.imm = cx->rkey;
	cx_send(cx, &inv, pat + 16, 16);
	cx_pump(cx, 30);
	/* ORD-2: a later WRITE naming the key waits for the fence */
	cx_snap(cx);
	wr_hdr(cx, &h, p + 3, 0, 16, 16, true);
	h.msg.va = cx->va + 2064;
	h.msg.msn = cx->msn + 1;
	cx_send(cx, &h, pat + 32, 16);
	cx_pump(cx, 40);
	CHECK_DELTA(cx, "rx_key_order_wait", 1);
	while (cx_wait(cx, 0, 0))
		;
	a = cx_probe(cx);
	CHECK(cx, a != NULL, "no answer to a PROBE");
	if (a)
		CHECK(cx, a->h.ack.cum_psn == p &&
		      (a->h.ack.sack[0] & 7) == 3,
		      "cum_psn %u sack %#llx: want %u, PSNs +1 and +2 received, +3 not",
		      a->h.ack.cum_psn, (unsigned long long)a->h.ack.sack[0], p);
	/* ORD-1: nothing invalidated, nothing completed, before the base */
	n = cx_wc(cx, 30, wc, 4);
	CHECK(cx, n <= 0, "the SEND_INV completed before every earlier PSN arrived");
	cx_state(cx, st, sizeof(st));
	CHECK(cx, !strcmp(st, "RTS"), "QP state %s before the fence was due", st);
	/* an earlier PSN still finds the key valid */
	wr_hdr(cx, &h, p, 0, 16, 16, true);
	h.msg.va = cx->va + 1024;
	cx_send(cx, &h, pat + 48, 16);
	cx_pump(cx, 50);
	CHECK(cx, !cx_mem(cx, 1024, 16, got) && !memcmp(got, pat + 48, 16),
	      "the WRITE before the SEND_INV was not placed");
	CHECK(cx, !cx_mem(cx, 2048, 16, got) && !memcmp(got, pat, 16),
	      "the WRITE that arrived before the SEND_INV was not placed");
	/* ORD-4, MSG-9: the invalidation ran and failed before the completion */
	n = cx_wc(cx, 1000, wc, 4);
	CHECK(cx, n >= 1 && wc[0].wr == 95 && !strcmp(wc[0].status, "loc_prot"),
	      "receive completion %s, want loc_prot: the region's key cannot be invalidated",
	      n >= 1 ? wc[0].status : "none");
	cx_state(cx, st, sizeof(st));
	CHECK(cx, !strcmp(st, "ERR"), "QP state %s after a failed invalidation", st);
}

/* 16 SEND_INVs waiting behind a hole hold every fence: a 17th waits */
static void c_send_inv_fences_full(struct cx *cx)
{
	u32 p = cx->psn;
	struct mro_hdr inv;
	struct pkt *a;
	unsigned int k;

	fill_pat(10);
	for (k = 0; k < 17; k++)
		CHECK(cx, !cx_agent(cx, "RECV wr=%u off=%u len=64", 200 + k,
				    8192 + 64 * k), "post receive %u", k);
	for (k = 0; k < 17; k++) {
		if (k == 16) {
			cx_pump(cx, 30);
			cx_snap(cx);
		}
		cx_req(cx, &inv, METAROCE_OP_SEND_INV, p + 1 + k);
		inv.flags |= k == 16 ? METAROCE_F_ACK_REQ : 0;
		inv.msg.msn = cx->msn + k;
		inv.msg.length = 16;
		inv.msg.imm = 0x7700 + k;
		cx_send(cx, &inv, pat + k, 16);
	}
	cx_pump(cx, 40);
	CHECK_DELTA(cx, "rx_key_order_wait", 1);
	while (cx_wait(cx, 0, 0))
		;
	a = cx_probe(cx);
	CHECK(cx, a != NULL, "no answer to a PROBE");
	if (a)
		CHECK(cx, a->h.ack.cum_psn == p &&
		      (a->h.ack.sack[0] & 0x1ffff) == 0xffff,
		      "cum_psn %u sack %#llx: want %u, the 16 SEND_INVs received and the 17th not",
		      a->h.ack.cum_psn, (unsigned long long)a->h.ack.sack[0], p);
}

/*
 * A sender that falls silent gets a CREDIT: psn the receive window base,
 * token 0, a grant from the base within the target's window
 */
static void c_credit_idle(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *a, *c;

	fill_pat(11);
	wr_hdr(cx, &h, cx->psn, 0, 64, 64, true);
	cx_send(cx, &h, pat, 64);
	a = ack_of(cx, &h, 1000);
	CHECK(cx, a != NULL, "no ACK to a WRITE");
	if (!a)
		return;
	c = cx_wait(cx, METAROCE_OP_CREDIT, 1000);
	CHECK(cx, c != NULL, "no CREDIT within 1 s of the sender falling silent");
	if (!c)
		return;
	cx_note(cx, "CREDIT %llu us after the ACK, grant %u PSNs",
		(unsigned long long)(c->t_us - a->t_us),
		c->h.ctrl.credit_psn - c->h.psn);
	CHECK(cx, c->h.psn == cx->psn + 1 && c->h.ctrl.token == 0,
	      "CREDIT psn %u token %u, want the base %u and 0", c->h.psn,
	      c->h.ctrl.token, cx->psn + 1);
	CHECK(cx, c->h.ctrl.credit_psn - c->h.psn <= 16384,
	      "grant %u PSNs past the base", c->h.ctrl.credit_psn - c->h.psn);
}

const struct ccase cases_resp[] = {
	{ "CTRL-5", "a silent sender gets a CREDIT at the receive base", c_credit_idle, 0 },
	{ "ORD-3", "a SEND_INV finding the 16 key fences in use waits", c_send_inv_fences_full, 0 },
	{ "MSG-9 ORD-1 ORD-2 ORD-4 ORD-5", "SEND_INV's key fence: later WRITEs wait, a failed invalidation ends the QP", c_send_inv_fence, 0 },
	{ "RES-3", "READ_REQs ahead over max_dest_rd_atomic: the extra one dropped", c_rd_ahead_limit, CF_MANUAL },
	{ "PATH-15 FLAG-7", "a PROBE with NEW_PORT moves the responder's port of the slot", c_new_port_probe, 0 },
	{ "RES-2", "max_dest_rd_atomic 0: READ_REQ answered NAK_INVALID", c_no_rd_atomic, CF_MANUAL },
	{ "MSG-10", "the error state flushes the receive WQEs", c_flush_rq, 0 },
	{ "ORD-6 NAK-9", "READ_REQ ahead of a WRITE waits and reads what it wrote", c_read_waits, 0 },
	{ "EXT-8", "PROBE on a slot the responder lacks answered", c_foreign_slot, 0 },
	{ "RX-35", "packet disagreeing with its message dropped", c_msg_mismatch, 0 },
	{ "RX-37 MSG-3", "SEND 64 messages ahead dropped", c_msn_window, 0 },
	{ "RX-32 NAK-7", "QP in error drops PROBEs", c_error_state, 0 },
	{ "RX-19 EXT-2", "READ_RESP offset + payload above 2^31 dropped", c_resp_length, 0 },
	{ "NEG-9", "protection none: data flows before the HELLO exchange ends", c_no_wait, CF_MANUAL },
	{ "CTRL-1 CTRL-2 ACK-1 ACK-2 EXT-9 EXT-11 UDP-2 UDP-5 NAK-1 FLAG-6", "PROBE answered by a plain ACK naming it", c_probe_ack, 0 },
	{ "RX-28 ACK-4 EXT-10", "duplicate counted and answered on another slot", c_duplicate, 0 },
	{ "ACK-3 RX-29 EXT-11 WRITE-1", "hole opened and filled answered at once, SACK", c_hole, 0 },
	{ "ACK-5", "rhythm PSN (psn % 32 == 31) acknowledged unasked", c_rhythm, CF_MANUAL },
	{ "ACK-6 ACK-10", "the 32nd accepted packet since the last ACK acknowledged", c_ack_32nd, CF_MANUAL },
	{ "PSN-1 PSN-2", "PSNs count past 2^24 in 32 bits", c_psn_24bit, CF_MANUAL },
	{ "WRITE-1 MSG-6 PSN-7", "WRITE packets placed in any order", c_write_ooo, 0 },
	{ "MSG-1 MSG-2 MSG-4 MSG-6 MSG-7 OP-1", "SENDs complete in msn order into their WQEs", c_send_recv, 0 },
	{ "NAK-2 RX-38", "SEND without a receive WQE: RNR NAK, PSN not taken", c_rnr, 0 },
	{ "MSG-8 NAK-3 NAK-7", "SEND longer than the WQE: NAK_INVALID, LOC_LEN_ERR", c_send_too_long, 0 },
	{ "WRITE-2 NAK-4 NAK-7", "WRITE with a bad rkey at the base: NAK_ACCESS, QP error", c_write_access, 0 },
	{ "WRITE-2 NAK-4", "WRITE beyond the region: NAK_ACCESS", c_write_bounds, 0 },
	{ "NAK-8", "bad WRITE ahead of the base dropped, counted, not NAKed", c_error_ahead, 0 },
	{ "RD-2 EXT-2 EXT-7 PSN-8 ACK-9 ACK-10 OP-1", "READ answered in segments of imm bytes", c_read, 0 },
	{ "RD-4 RD-5 RD-6 ORD-7", "duplicate READ_REQ replayed, a foreign one dropped", c_read_dup, 0 },
	{ "RD-3 NAK-3", "READ_REQ segment above the payload MTU: NAK_INVALID", c_read_too_big, 0 },
	{ "ATOM-1 ATOM-2 EXT-3 EXT-5 EXT-6 EXT-7 RES-4", "FETCH_ADD and its duplicate from the cache", c_atomic, 0 },
	{ "ATOM-1 EXT-5", "CMP_SWAP swaps only on a match", c_cmp_swap, 0 },
	{ "ORD-8", "duplicate atomic without a cached result dropped", c_atomic_dup_uncached, 0 },
	{ "NAK-4", "atomic outside the region: NAK_ACCESS", c_atomic_access, 0 },
	{ "ATOM-3 ATOM-5 EXT-3", "ATOMIC_WRITE stored big-endian, duplicate not stored", c_atomic_write, 0 },
	{ "ATOM-4 NAK-4", "ATOMIC_WRITE to a region without remote write: NAK_ACCESS", c_atomic_write_access, CF_MANUAL },
	{ "FLUSH-1 FLUSH-3 EXT-4", "FLUSH global (range and region) acknowledged", c_flush, 0 },
	{ "FLUSH-2 FLUSH-4", "FLUSH for persistence or without the right: NAK_ACCESS", c_flush_denied, 0 },
	{ "ACK-1 EXT-11", "CE-marked requests counted in ecn_ce", c_ecn, 0 },
	{ "ACK-12 ACK-13 ACK-15 FLAG-8", "a request's ack_psn completes the target's SEND", c_piggy_applied, 0 },
	{ NULL, NULL, NULL, 0 },
};
