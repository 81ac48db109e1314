// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Negotiation and packet protection (protocol.rst: HELLO extension,
 * Negotiation, Packet protection).  The protection cases run only in a
 * protected run (conform --prot), against a target keyed with the same
 * device key.
 */
#include "conform.h"

static const u8 pat16[16] = "sixteen bytes...";

static bool pow2(u32 v)
{
	return v && !(v & (v - 1));
}

/* the HELLOs of the target, counted and the first one checked */
static void c_hello(struct cx *cx)
{
	struct cx_opts o = { 0 };
	unsigned int i, n = 0;
	struct pkt *first = NULL;

	if (cx_setup(cx, &o))
		return;
	cx_pump(cx, 200);
	for (i = 0; i < cx->nq; i++) {
		if (cx->q[i].h.opcode != METAROCE_OP_HELLO)
			continue;
		if (!first)
			first = &cx->q[i];
		n++;
	}
	CHECK(cx, first != NULL, "no HELLO from the target");
	if (!first)
		return;
	CHECK(cx, first->h.psn == cx->tpsn, "HELLO psn %u, want the first PSN %u",
	      first->h.psn, cx->tpsn);
	CHECK(cx, first->h.path == 0 && first->h.path_seq == 0,
	      "HELLO path %u path_seq %u, want 0 and 0", first->h.path,
	      first->h.path_seq);
	CHECK(cx, first->h.flags & METAROCE_F_ACK_REQ,
	      "the first HELLO does not ask for one back");
	CHECK(cx, !(first->h.flags & METAROCE_F_SEALED), "HELLO sealed");
	/* ECT is on every packet but HELLO */
	CHECK(cx, !(first->h.flags & METAROCE_F_ECT), "HELLO flags %#x: ECT set",
	      first->h.flags);
	CHECK(cx, first->h.hello.prot == cx->g->prot, "HELLO prot %u, want %u",
	      first->h.hello.prot, cx->g->prot);
	CHECK(cx, cx->g->prot || first->h.hello.key_id == 0,
	      "key_id %u with protection none", first->h.hello.key_id);
	CHECK(cx, first->h.hello.ack_every == METAROCE_ACK_EVERY &&
	      first->h.hello.msg_window == METAROCE_MSG_WINDOW &&
	      first->h.hello.sack_bits == METAROCE_SACK_BITS,
	      "contract ack_every %u msg_window %u sack_bits %u",
	      first->h.hello.ack_every, first->h.hello.msg_window,
	      first->h.hello.sack_bits);
	CHECK(cx, pow2(first->h.hello.window) && first->h.hello.window >= 64 &&
	      first->h.hello.window <= 16384, "window %u", first->h.hello.window);
	CHECK(cx, first->h.hello.nonce != 0, "nonce 0");
	CHECK(cx, first->h.hello.echo == 0 ||
	      first->h.hello.echo == cx->my_hello.hello.nonce,
	      "echo %#llx is neither 0 nor our nonce",
	      (unsigned long long)first->h.hello.echo);
	/* once we echoed it, the target stops asking */
	for (i = cx->nq; i-- > 0;)
		if (cx->q[i].h.opcode == METAROCE_OP_HELLO)
			break;
	CHECK(cx, !(cx->q[i].h.flags & METAROCE_F_ACK_REQ),
	      "the target's last of %u HELLOs still asks for one after ours echoed it",
	      n);
}

/* a contract that differs ends the connection */
static void c_mismatch(struct cx *cx)
{
	struct cx_opts o = { .window = 256, .no_wait = true };
	char st[16] = "?";
	u64 end;

	cx_snap(cx);		/* the failure may come within the setup */
	if (cx_setup(cx, &o))
		return;
	end = cx_now_us() + 1000000;
	while (cx_now_us() < end) {
		cx_pump(cx, 20);
		cx_state(cx, st, sizeof(st));
		if (!strcmp(st, "ERR"))
			break;
	}
	CHECK(cx, !strcmp(st, "ERR"),
	      "target QP in %s after a HELLO with window 256", st);
	CHECK_DELTA(cx, "negotiation_failed", 1);
}

/* a HELLO that is not the peer's first PSN nor echoes us: dropped */
static void c_stale_hello(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *a;
	char st[16];

	h = cx->my_hello;
	h.flags = METAROCE_F_ACK_REQ;
	h.psn = cx->cfg.sq_psn ^ 0x5555;
	h.hello.echo = 0;
	h.hello.window = 128;	/* would end the connection if taken */
	cx_snap(cx);
	cx_send(cx, &h, NULL, 0);
	CHECK(cx, cx_quiet(cx, METAROCE_OP_HELLO, 60) == 0,
	      "a stale HELLO was answered");
	CHECK_DELTA(cx, "rx_drop_field", 1);
	cx_state(cx, st, sizeof(st));
	CHECK(cx, !strcmp(st, "RTS"), "QP state %s after a stale HELLO", st);
	a = cx_probe(cx);
	CHECK(cx, a != NULL, "no ACK to a PROBE after a stale HELLO");
	/* another nonce at the right PSN: dropped too */
	h = cx->my_hello;
	h.flags = 0;
	h.hello.nonce ^= 0x1000;
	h.hello.window = 128;
	cx_snap(cx);
	cx_send(cx, &h, NULL, 0);
	cx_pump(cx, 50);
	CHECK_DELTA(cx, "rx_drop_field", 1);
	cx_state(cx, st, sizeof(st));
	CHECK(cx, !strcmp(st, "RTS"), "QP state %s after a HELLO with another nonce", st);
}

/* our HELLO again, asking: the target answers with its own */
static void c_hello_answer(struct cx *cx)
{
	struct mro_hdr h = cx->my_hello;
	struct pkt *p;

	cx_pump(cx, 30);
	while (cx_wait(cx, METAROCE_OP_HELLO, 0))
		;
	h.flags = METAROCE_F_ACK_REQ;
	cx_snap(cx);
	cx_send(cx, &h, NULL, 0);
	p = cx_wait(cx, METAROCE_OP_HELLO, 1000);
	CHECK(cx, p != NULL, "no HELLO back to a HELLO with ACK_REQ");
	if (p) {
		CHECK(cx, p->h.hello.echo == h.hello.nonce,
		      "answer echoes %#llx, want our nonce %#llx",
		      (unsigned long long)p->h.hello.echo,
		      (unsigned long long)h.hello.nonce);
		CHECK(cx, p->h.psn == cx->tpsn, "answer psn %u, want %u", p->h.psn,
		      cx->tpsn);
	}
	CHECK_DELTA(cx, "hello_rcvd", 1);
}

/* protected: the target's packets open under our keys; ours under its */
static void c_sealed(struct cx *cx)
{
	static const u8 data[32] = "sealed and opened both ways...";
	struct mro_hdr h;
	struct pkt *a;
	u8 got[32];

	cx_req(cx, &h, METAROCE_OP_WRITE, cx->psn);
	h.flags |= METAROCE_F_ACK_REQ;
	h.msg.length = 32;
	h.msg.va = cx->va + 64;
	h.msg.rkey = cx->rkey;
	cx_send(cx, &h, data, 32);
	a = cx_wait(cx, METAROCE_OP_ACK, 1000);
	CHECK(cx, a != NULL, "no ACK (opened) to a sealed WRITE");
	if (a) {
		CHECK(cx, a->h.flags & METAROCE_F_SEALED, "ACK not sealed");
		CHECK(cx, a->h.ack.cum_psn == cx->psn + 1, "cum_psn %u, want %u",
		      a->h.ack.cum_psn, cx->psn + 1);
	}
	CHECK(cx, !cx_mem(cx, 64, 32, got) && !memcmp(got, data, 32),
	      "the sealed WRITE's payload was not placed as sent");
	CHECK(cx, cx->refused == 0, "the tester refused %u packets of the target",
	      cx->refused);
}

/* a packet of the protected connection, sealed, in @buf */
static int sealed_write(struct cx *cx, u8 *buf, size_t room)
{
	static const u8 data[16] = "tamper-evident!";
	struct mro_hdr h;

	cx_req(cx, &h, METAROCE_OP_WRITE, cx->psn);
	h.flags |= METAROCE_F_ACK_REQ;
	h.msg.length = 16;
	h.msg.va = cx->va;
	h.msg.rkey = cx->rkey;
	return rp_build_hdr(cx->ep, &h, data, 16, cx->slot, buf, room);
}

/* dropped as @ctr, unanswered, PSN not taken */
static void prot_drop(struct cx *cx, const u8 *buf, int n, const char *ctr)
{
	struct pkt *a;

	cx_snap(cx);
	cx_raw(cx, buf, n);
	CHECK(cx, cx_quiet(cx, 0, 60) == 0, "answered a packet it must drop (%s)",
	      ctr);
	CHECK_DELTA(cx, ctr, 1);
	a = cx_probe(cx);
	CHECK(cx, a && a->h.ack.cum_psn == cx->psn,
	      "the dropped packet was taken (cum_psn %u, want %u)",
	      a ? a->h.ack.cum_psn : 0, cx->psn);
}

static void c_tag(struct cx *cx)
{
	u8 buf[512];
	int n = sealed_write(cx, buf, sizeof(buf));

	CHECK(cx, n > 24, "no sealed packet built");
	if (n <= 24)
		return;
	buf[n - 9] ^= 0x01;		/* the tag's last byte */
	prot_drop(cx, buf, n, "rx_drop_auth");
	n = sealed_write(cx, buf, sizeof(buf));
	buf[n - 1] ^= 0x01;		/* the counter */
	prot_drop(cx, buf, n, "rx_drop_auth");
	n = sealed_write(cx, buf, sizeof(buf));
	buf[40] ^= 0x01;		/* a header byte (associated data) */
	prot_drop(cx, buf, n, "rx_drop_auth");
}

static void c_unsealed(struct cx *cx)
{
	static const u8 data[16] = "plain crc32c....";
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	cx_req(cx, &h, METAROCE_OP_WRITE, cx->psn);
	h.flags |= METAROCE_F_ACK_REQ | METAROCE_F_ECT;
	h.msg.length = 16;
	h.msg.va = cx->va;
	h.msg.rkey = cx->rkey;
	n = cx_build(cx, &h, data, 16, buf);
	prot_drop(cx, buf, n, "rx_drop_auth");
}

static void c_replay(struct cx *cx)
{
	u8 buf[512];
	int n = sealed_write(cx, buf, sizeof(buf));
	struct pkt *a;

	if (n <= 24) {
		CHECK(cx, 0, "no sealed packet built");
		return;
	}
	cx_raw(cx, buf, n);
	a = cx_wait(cx, METAROCE_OP_ACK, 1000);
	CHECK(cx, a && a->h.ack.cum_psn == cx->psn + 1,
	      "the original was not taken");
	cx->psn++;
	/* the same bytes again: a counter already accepted */
	prot_drop(cx, buf, n, "rx_drop_replay");
}

/*
 * Protected: the target repeats its HELLO until ours comes, and cannot
 * open our sealed packets before it has our HELLO
 */
static void c_unkeyed(struct cx *cx)
{
	struct cx_opts o = { .no_wait = true };
	u64 t[32], end;
	unsigned int i, n = 0, other = 0;
	struct mro_hdr h;
	struct pkt *a;
	u8 buf[512];
	int len;

	cx->block_hello = true;
	if (cx_setup(cx, &o))
		return;
	end = cx_now_us() + 1200000;
	while (cx_now_us() < end)
		cx_pump(cx, 10);
	for (i = 0; i < cx->nq; i++) {
		if (cx->q[i].h.opcode != METAROCE_OP_HELLO)
			other++;
		else if (n < 32)
			t[n++] = cx->q[i].t_us;
	}
	CHECK(cx, n >= 3, "%u HELLOs in 1.2 s from a target that never had ours", n);
	/*
	 * at least 10 ms apart, and backing off: the timer doubles, so the
	 * last gap is at least twice the first (1.5 times: a gap is seen
	 * when the tester reads the packet, and a busy emulated host may read
	 * one late and the next on time)
	 */
	for (i = 1; i < n; i++)
		CHECK(cx, t[i] - t[i - 1] >= 9000,
		      "HELLO %u came %llu us after the previous", i,
		      (unsigned long long)(t[i] - t[i - 1]));
	if (n >= 3)
		CHECK(cx, 2 * (t[n - 1] - t[n - 2]) >= 3 * (t[1] - t[0]),
		      "no backoff: the last of %u HELLOs came %llu us after the one before, the second %llu us after the first",
		      n, (unsigned long long)(t[n - 1] - t[n - 2]),
		      (unsigned long long)(t[1] - t[0]));
	CHECK(cx, other == 0, "%u packets other than HELLO before the keys", other);
	CHECK(cx, rp_negotiated(cx->ep), "the tester did not key from the target's HELLO");
	if (!rp_negotiated(cx->ep))
		return;
	cx_req(cx, &h, METAROCE_OP_WRITE, cx->psn);
	h.flags |= METAROCE_F_ACK_REQ;
	h.msg.length = 16;
	h.msg.va = cx->va;
	h.msg.rkey = cx->rkey;
	len = rp_build_hdr(cx->ep, &h, pat16, 16, 0, buf, sizeof(buf));
	cx_snap(cx);
	cx_raw(cx, buf, len);
	CHECK(cx, cx_quiet(cx, 0, 60) == 0, "a target without keys answered a sealed packet");
	CHECK_DELTA(cx, "rx_drop_unkeyed", 1);
	/* our HELLO now: the target keys, and takes the same packet */
	cx->block_hello = false;
	h = cx->my_hello;
	h.flags = METAROCE_F_ACK_REQ;
	cx_send(cx, &h, NULL, 0);
	cx_pump(cx, 50);
	cx_raw(cx, buf, len);
	a = cx_wait(cx, METAROCE_OP_ACK, 1000);
	CHECK(cx, a && a->h.ack.cum_psn == cx->psn + 1,
	      "the sealed packet was not taken once the target had our HELLO");
}

/*
 * The target's transmission counter: from 0 with its key, one value per
 * transmission, a retransmission's included; with encrypt the payload
 * on the wire is not the plaintext, with auth it is
 */
static void c_seal_ctr(struct cx *cx)
{
	static u8 data[3000];
	u64 seen[64], end;
	unsigned int i, j, n = 0, retx = 0, payl = 0, clear = 0;
	struct pkt *p, *last = NULL;
	bool enc = cx->g->prot == METAROCE_PROT_ENCRYPT;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 7 + 3);
	cx_setmem(cx, 0, data, sizeof(data));
	CHECK(cx, !cx_agent(cx, "SEND wr=5 off=0 len=3000"), "post SEND");
	end = cx_now_us() + 3000000;
	while (!retx && cx_now_us() < end) {
		p = cx_wait(cx, METAROCE_OP_SEND, 20);
		if (!p)
			continue;
		last = p;
		retx += !!(p->h.flags & METAROCE_F_RETX);
	}
	CHECK(cx, retx > 0, "no retransmission of an unanswered SEND in 3 s");
	if (last)
		cx_ack(cx, last, METAROCE_SYN_ACK, last->h.psn + 1, 0, 0);
	cx_pump(cx, 30);
	for (i = 0; i < cx->nq; i++) {
		p = &cx->q[i];
		if (p->h.opcode == METAROCE_OP_HELLO)
			continue;
		CHECK(cx, p->sealed, "opcode %#x from the target not sealed",
		      p->h.opcode);
		if (!p->sealed || n == 64)
			continue;
		seen[n++] = p->seal_ctr;
		if (p->h.opcode == METAROCE_OP_SEND && p->h.payload_len) {
			payl++;
			clear += p->clear_payload;
		}
	}
	CHECK(cx, n >= 4, "%u sealed packets from the target", n);
	/* the counters are 0 .. n-1, each once, in whatever order they came */
	for (i = 0; i < n; i++) {
		for (j = 0; j < n && seen[j] != i; j++)
			;
		CHECK(cx, j < n, "no packet with counter %u among the first %u sealed ones",
		      i, n);
		for (j = i + 1; j < n; j++)
			CHECK(cx, seen[i] != seen[j],
			      "two transmissions with counter %llu",
			      (unsigned long long)seen[i]);
	}
	CHECK(cx, payl >= 3, "%u SEND packets with a payload", payl);
	if (enc)
		CHECK(cx, clear == 0, "%u of %u SEND payloads in the clear under encrypt",
		      clear, payl);
	else
		CHECK(cx, clear == payl, "%u of %u SEND payloads altered under auth",
		      payl - clear, payl);
}

const struct ccase cases_neg[] = {
	{ "PROT-6 PROT-8 PROT-9", "transmission counter from 0, resends included; payload encrypted or not", c_seal_ctr, CF_PROT },
	{ "NEG-10 PROT-13", "protected: HELLO repeated until ours; unkeyed packet dropped", c_unkeyed, CF_MANUAL | CF_PROT },
	{ "HELLO-1 HELLO-2 HELLO-3 NEG-1 PROT-17 FLAG-6", "the target's HELLO", c_hello, CF_MANUAL },
	{ "HELLO-1 HELLO-2 HELLO-3 NEG-1 PROT-17", "the target's HELLO, protected", c_hello, CF_MANUAL | CF_PROT },
	{ "NEG-4", "a contract mismatch (window) ends the connection", c_mismatch, CF_MANUAL },
	{ "NEG-2", "a HELLO not at the first PSN, or with another nonce, dropped", c_stale_hello, 0 },
	{ "NEG-3 NEG-6 HELLO-2", "a HELLO with ACK_REQ answered with ours echoed", c_hello_answer, 0 },
	{ "PROT-2 PROT-3 PROT-5 PROT-7 PROT-16 NEG-5", "sealed both ways under independently derived keys", c_sealed, CF_PROT },
	{ "PROT-15 PROT-10 PROT-8", "altered tag, counter or header dropped", c_tag, CF_PROT },
	{ "PROT-12", "an unsealed packet on a protected connection dropped", c_unsealed, CF_PROT },
	{ "PROT-14", "a replayed packet dropped", c_replay, CF_PROT },
	{ NULL, NULL, NULL, 0 },
};
