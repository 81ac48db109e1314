// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * UD QPs (protocol.rst: Datagram extension, Receive validation, PSN
 * semantics, Negotiation): datagrams received and sent, the Q_Key and
 * receive WQE checks.
 */
#include "conform.h"

static u8 pat[2048];

static int ud_setup(struct cx *cx)
{
	struct cx_opts o = { .ud = true };
	unsigned int i;

	for (i = 0; i < sizeof(pat); i++)
		pat[i] = (u8)(i * 3 + 1);
	return cx_setup(cx, &o);
}

static void ud_hdr(struct cx *cx, struct mro_hdr *h, u8 op, u32 psn, u32 qkey)
{
	memset(h, 0, sizeof(*h));
	h->opcode = op;
	h->flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	h->psn = psn;
	h->deth.qkey = qkey;
}

/* one datagram with immediate: one completion, the bytes in the buffer */
static void c_ud_recv(struct cx *cx)
{
	struct mro_hdr h;
	struct twc wc[2];
	u8 got[200];
	int n;

	if (ud_setup(cx))
		return;
	CHECK(cx, !cx_agent(cx, "RECV wr=7 off=0 len=1024"), "post receive");
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND_IMM, 77, cx->tqkey);
	h.deth.imm = 0x5eed;
	cx_send(cx, &h, pat, 200);
	n = cx_wc(cx, 1000, wc, 2);
	CHECK(cx, n == 1, "%d completions, want 1", n);
	if (n != 1)
		return;
	CHECK(cx, wc[0].wr == 7 && !strcmp(wc[0].status, "success") &&
	      !strcmp(wc[0].opcode, "recv"), "completion wr %llu %s %s",
	      (unsigned long long)wc[0].wr, wc[0].status, wc[0].opcode);
	CHECK(cx, wc[0].len == 200 + cx->grh, "byte_len %u, want 200 + %u",
	      wc[0].len, cx->grh);
	CHECK(cx, wc[0].imm == 0x5eed, "imm %#x, want 0x5eed", wc[0].imm);
	CHECK(cx, !cx_mem(cx, cx->grh, 200, got) && !memcmp(got, pat, 200),
	      "the datagram's bytes are not in the buffer");
}

static void c_ud_qkey(struct cx *cx)
{
	struct mro_hdr h;
	struct twc wc[2];

	if (ud_setup(cx))
		return;
	cx_agent(cx, "RECV wr=7 off=0 len=1024");
	cx_snap(cx);
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 1, cx->tqkey ^ 0x100);
	cx_send(cx, &h, pat, 64);
	CHECK(cx, cx_wc(cx, 60, wc, 2) == 0, "a datagram with another Q_Key was received");
	CHECK_DELTA(cx, "rx_drop_qkey", 1);
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 2, cx->tqkey);
	cx_send(cx, &h, pat, 64);
	CHECK(cx, cx_wc(cx, 1000, wc, 2) == 1, "control: the right Q_Key was not received");
}

static void c_ud_no_wqe(struct cx *cx)
{
	struct mro_hdr h;
	struct twc wc[2];

	if (ud_setup(cx))
		return;
	cx_snap(cx);
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 1, cx->tqkey);
	cx_send(cx, &h, pat, 64);
	cx_pump(cx, 40);
	CHECK_DELTA(cx, "rx_drop_no_wqe", 1);
	CHECK(cx, cx_quiet(cx, 0, 20) == 0, "a datagram without a WQE was answered");
	cx_agent(cx, "RECV wr=8 off=0 len=1024");
	CHECK(cx, cx_wc(cx, 60, wc, 2) == 0,
	      "the dropped datagram completed a WQE posted after it");
}

/* the receiver ignores a datagram's PSN */
static void c_ud_psn(struct cx *cx)
{
	static const u32 psn[3] = { 5, 5, 0x9abcdef0 };
	struct mro_hdr h;
	struct twc wc[4];
	int i, n = 0;

	if (ud_setup(cx))
		return;
	for (i = 0; i < 3; i++)
		cx_agent(cx, "RECV wr=%d off=%d len=512", 20 + i, 512 * i);
	for (i = 0; i < 3; i++) {
		ud_hdr(cx, &h, METAROCE_OP_UD_SEND, psn[i], cx->tqkey);
		cx_send(cx, &h, pat, 32);
	}
	for (i = 0; i < 5 && n < 3; i++) {
		int k = cx_wc(cx, 200, wc + n, 4 - n);

		n += k > 0 ? k : 0;
	}
	CHECK(cx, n == 3, "%d of 3 datagrams with PSNs 5, 5, 0x9abcdef0 received", n);
}

/* what the target sends: one datagram, the Q_Key asked, no HELLO */
static void c_ud_send(struct cx *cx)
{
	struct pkt *p;
	unsigned int i;

	if (ud_setup(cx))
		return;
	cx_setmem(cx, 0, pat, 300);
	CHECK(cx, !cx_agent(cx, "SEND wr=9 off=0 len=300 imm=0x77"), "post UD send");
	p = cx_wait(cx, 0, 1000);
	CHECK(cx, p != NULL, "no datagram from the target");
	if (!p)
		return;
	CHECK(cx, p->h.opcode == METAROCE_OP_UD_SEND_IMM, "opcode %#x, want UD_SEND_IMM",
	      p->h.opcode);
	CHECK(cx, p->h.deth.qkey == cx->cfg.qkey && p->h.deth.imm == 0x77,
	      "qkey %#x imm %#x, want %#x and 0x77", p->h.deth.qkey,
	      p->h.deth.imm, cx->cfg.qkey);
	CHECK(cx, p->h.sqpn == cx->tqpn && p->h.dqpn == cx->cfg.qpn,
	      "sqpn %u dqpn %u", p->h.sqpn, p->h.dqpn);
	CHECK(cx, (p->h.flags & (METAROCE_F_FIRST | METAROCE_F_LAST | METAROCE_F_ECT)) ==
	      (METAROCE_F_FIRST | METAROCE_F_LAST | METAROCE_F_ECT),
	      "flags %#x: want FIRST, LAST and ECT", p->h.flags);
	CHECK(cx, p->h.payload_len == 300 && !memcmp(p->payload, pat, 300),
	      "payload of %u bytes differs", p->h.payload_len);
	cx_pump(cx, 100);
	for (i = 0; i < cx->nq; i++)
		CHECK(cx, cx->q[i].h.opcode != METAROCE_OP_HELLO,
		      "a UD QP sent a HELLO");
}

/*
 * UD datagrams fill the port's active MTU (the agent's mtu=): a SEND of
 * that many bytes leaves as one datagram of that payload, one byte more
 * is refused (by the post or a completion in error) and never sent
 */
static void c_ud_mtu(struct cx *cx)
{
	static u8 big[4097];
	struct twc wc[2];
	unsigned int i;
	struct pkt *p;
	int n;

	if (ud_setup(cx))
		return;
	if (!cx->tmtu || cx->tmtu >= sizeof(big)) {
		cx->skip = "the agent reports no MTU";
		return;
	}
	for (i = 0; i <= cx->tmtu; i++)
		big[i] = (u8)(i * 11 + 3);
	CHECK(cx, !cx_setmem(cx, 0, big, cx->tmtu + 1), "SETMEM");
	CHECK(cx, !cx_agent(cx, "SEND wr=10 off=0 len=%u", cx->tmtu),
	      "post a UD send of the MTU (%u bytes)", cx->tmtu);
	p = cx_wait(cx, 0, 1000);
	CHECK(cx, p != NULL, "no datagram of %u bytes", cx->tmtu);
	if (p)
		CHECK(cx, p->h.payload_len == cx->tmtu &&
		      !memcmp(p->payload, big, cx->tmtu < CX_PAYLOAD ?
			      cx->tmtu : CX_PAYLOAD),
		      "datagram of %u bytes, want the MTU %u and its bytes",
		      p->h.payload_len, cx->tmtu);
	n = cx_wc(cx, 1000, wc, 2);
	CHECK(cx, n == 1 && wc[0].wr == 10 && !strcmp(wc[0].status, "success"),
	      "the send of the MTU did not complete");
	if (!cx_agent(cx, "SEND wr=11 off=0 len=%u", cx->tmtu + 1)) {
		n = cx_wc(cx, 1000, wc, 2);
		CHECK(cx, n == 1 && wc[0].wr == 11 && strcmp(wc[0].status, "success"),
		      "a UD send one byte over the MTU %s",
		      n == 1 ? "completed without error" : "did not complete");
	}
	CHECK(cx, cx_quiet(cx, 0, 100) == 0,
	      "a datagram over the MTU (%u bytes) left", cx->tmtu + 1);
}

/* SEALED on a UD datagram, and an RC opcode to a UD QP, dropped */
static void c_ud_refused(struct cx *cx)
{
	struct mro_hdr h;
	struct twc wc[2];
	u8 buf[256];
	size_t n;

	if (ud_setup(cx))
		return;
	cx_agent(cx, "RECV wr=7 off=0 len=1024");
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 1, cx->tqkey);
	n = cx_build(cx, &h, pat, 16, buf);
	buf[2] |= METAROCE_F_SEALED >> 8;
	memset(buf + n, 0, 20);
	n += 20;
	cx_snap(cx);
	cx_raw(cx, buf, n);
	cx_pump(cx, 40);
	CHECK_DELTA(cx, "rx_drop_field", 1);
	cx_req(cx, &h, METAROCE_OP_SEND, 1);
	h.msg.length = 16;
	n = cx_build(cx, &h, pat, 16, buf);
	cx_snap(cx);
	cx_raw(cx, buf, n);
	cx_pump(cx, 40);
	CHECK_DELTA(cx, "rx_drop_qp_mismatch", 1);
	CHECK(cx, cx_wc(cx, 20, wc, 2) == 0, "a refused packet was received");
}

/* a PROBE or a READ_RESP to a UD QP: dropped, counted, unanswered */
static void c_ud_not_rc(struct cx *cx)
{
	struct mro_hdr h;
	struct twc wc[2];

	if (ud_setup(cx))
		return;
	CHECK(cx, !cx_agent(cx, "RECV wr=7 off=0 len=1024"), "post receive");
	cx_snap(cx);
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_PROBE;
	h.flags = METAROCE_F_ACK_REQ;
	h.psn = 1;
	cx_send(cx, &h, NULL, 0);
	CHECK(cx, cx_quiet(cx, 0, 40) == 0, "a PROBE to a UD QP was answered");
	CHECK_DELTA(cx, "rx_drop_qp_mismatch", 1);
	cx_snap(cx);
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_READ_RESP;
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	h.psn = 2;
	cx_send(cx, &h, pat, 16);
	CHECK(cx, cx_quiet(cx, 0, 40) == 0, "a READ_RESP to a UD QP was answered");
	CHECK_DELTA(cx, "rx_drop_qp_mismatch", 1);
	CHECK(cx, cx_wc(cx, 20, wc, 2) == 0, "a refused packet completed a receive");
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 3, cx->tqkey);
	cx_send(cx, &h, pat, 64);
	CHECK(cx, cx_wc(cx, 1000, wc, 2) == 1 && !strcmp(wc[0].status, "success"),
	      "control: a datagram after them was not received");
}

const struct ccase cases_ud[] = {
	{ "RX-33 CTRL-3", "PROBE and READ_RESP to a UD QP dropped", c_ud_not_rc, CF_MANUAL },
	{ "EXT-12 OP-1 MSG-6", "UD datagram with immediate received", c_ud_recv, CF_MANUAL },
	{ "RX-30 EXT-12", "UD datagram with another Q_Key dropped", c_ud_qkey, CF_MANUAL },
	{ "RX-31", "UD datagram without a receive WQE dropped", c_ud_no_wqe, CF_MANUAL },
	{ "PSN-10", "UD receiver ignores the PSN", c_ud_psn, CF_MANUAL },
	{ "NEG-11 EXT-12 FLAG-6 UDP-2", "UD datagram sent; no HELLO", c_ud_send, CF_MANUAL },
	{ "PSN-5", "UD datagrams up to the port's active MTU", c_ud_mtu, CF_MANUAL },
	{ "RX-6 RX-26 PROT-17", "SEALED UD datagram and RC opcode to UD dropped", c_ud_refused, CF_MANUAL },
	{ NULL, NULL, NULL, 0 },
};
