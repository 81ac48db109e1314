// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * UD QPs (protocol.rst: Datagram extension, Receive validation, PSN
 * semantics, Negotiation): datagrams received and sent, the Q_Key and
 * receive WQE checks; on a protected device (Packet protection,
 * Datagrams) sealed datagrams both ways, and the opening checks.
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
	/* a QP that entered RTS with mode none sends unsealed (PROT-18) */
	CHECK(cx, !(p->h.flags & METAROCE_F_SEALED) && !p->sealed,
	      "a device with protection none sent a sealed datagram");
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

/*
 * To a device with protection none: a sealed datagram (well formed, with
 * its seal extension) is rx_drop_auth (PROT-20, 1.); an RC opcode to a UD
 * QP rx_drop_qp_mismatch; then an unsealed datagram is received
 */
static void c_ud_refused(struct cx *cx)
{
	static const u8 key[16] = "any device key..";
	struct mro_hdr h;
	struct twc wc[2];
	u8 buf[512];
	size_t n;

	if (ud_setup(cx))
		return;
	cx_agent(cx, "RECV wr=7 off=0 len=1024");
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 1, cx->tqkey);
	n = cx_dgram(cx, &h, pat, 16, METAROCE_PROT_AUTH, key, 16, 1,
		     cx_rand_nonce(), 0, buf);
	CHECK(cx, n == 28 + 8 + 8 + 16 + 24, "sealed datagram of %zu bytes", n);
	cx_snap(cx);
	cx_raw(cx, buf, n);
	cx_pump(cx, 40);
	CHECK_DELTA(cx, "rx_drop_auth", 1);
	CHECK_DELTA(cx, "rx_drop_field", 0);
	CHECK(cx, cx_wc(cx, 20, wc, 2) == 0,
	      "a sealed datagram to an unprotected device was received");
	cx_req(cx, &h, METAROCE_OP_SEND, 1);
	h.msg.length = 16;
	n = cx_build(cx, &h, pat, 16, buf);
	cx_snap(cx);
	cx_raw(cx, buf, n);
	cx_pump(cx, 40);
	CHECK_DELTA(cx, "rx_drop_qp_mismatch", 1);
	CHECK(cx, cx_wc(cx, 20, wc, 2) == 0, "a refused packet was received");
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 2, cx->tqkey);
	cx_send(cx, &h, pat, 16);
	CHECK(cx, cx_wc(cx, 1000, wc, 2) == 1 && !strcmp(wc[0].status, "success"),
	      "control: an unsealed datagram after them was not received");
}

/* ---- protected devices: sealed datagrams (Packet protection, Datagrams) ---- */

/*
 * A hand-sealed datagram of the device's mode and key from the tester's
 * QPN under @key_id and @nonce, counter @ctr, @len bytes of pat from @off
 */
static size_t dg(struct cx *cx, u8 *buf, u8 key_id, u64 nonce, u64 ctr,
		 u32 off, u32 len, u32 imm)
{
	struct mro_hdr h;

	ud_hdr(cx, &h, imm ? METAROCE_OP_UD_SEND_IMM : METAROCE_OP_UD_SEND,
	       (u32)ctr, cx->tqkey);
	h.deth.imm = imm;
	return cx_dgram(cx, &h, pat + off, len, cx->g->prot, cx->g->key,
			cx->g->key_len, key_id, nonce, ctr, buf);
}

/*
 * Post a receive, send @buf, and expect it received (@want) or not: the
 * completion's bytes and immediate checked against pat + @off
 */
static void deliver(struct cx *cx, int line, const u8 *buf, size_t n,
		    bool want, u32 off, u32 len, u32 imm, const char *what)
{
	struct twc wc[2];
	u8 got[512];
	int k;

	cx_raw(cx, buf, n);
	k = want ? cx_wc_wait(cx, 1000, wc, 2) : cx_wc(cx, 60, wc, 2);
	if (!want) {
		if (k != 0)
			cx_fail(cx, line, "%s: received (%d completions), want dropped",
				what, k);
		return;
	}
	if (k != 1 || strcmp(wc[0].status, "success")) {
		cx_fail(cx, line, "%s: %d completions%s%s, want 1 success", what,
			k, k > 0 ? ", status " : "", k > 0 ? wc[0].status : "");
		return;
	}
	if (wc[0].len != len + cx->grh || wc[0].imm != imm)
		cx_fail(cx, line, "%s: byte_len %u imm %#x, want %u + %u and %#x",
			what, wc[0].len, wc[0].imm, len, cx->grh, imm);
	if (len > sizeof(got) || cx_mem(cx, cx->grh, len, got) ||
	    memcmp(got, pat + off, len))
		cx_fail(cx, line, "%s: the bytes received differ from the bytes sent",
			what);
	cx_agent(cx, "RECV wr=%u off=0 len=1024", 100 + (unsigned int)line);
}

static int pud_setup(struct cx *cx)
{
	if (ud_setup(cx))
		return -1;
	return cx_agent(cx, "RECV wr=1 off=0 len=1024");
}

/*
 * Sealed datagrams with the device's key are delivered, decrypted: the
 * tester's own (its engine seals them, counters 0, 1, 2) and a second
 * sender's, the first of each waiting for its key (PROT-21), not dropped
 */
static void c_pud_deliver(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[1024];
	u64 nonce = cx_rand_nonce();
	size_t n;
	int i;

	if (pud_setup(cx))
		return;
	CHECK(cx, rp_dgram_nonce(cx->ep) != 0, "the tester does not seal");
	cx_snap(cx);
	for (i = 0; i < 3; i++) {
		struct twc wc[2];
		u8 got[300];
		int k;

		ud_hdr(cx, &h, METAROCE_OP_UD_SEND_IMM, 100 + i, cx->tqkey);
		h.deth.imm = 0x5eed + i;
		cx_send(cx, &h, pat + i, 300);
		k = cx_wc_wait(cx, 1000, wc, 2);
		CHECK(cx, k == 1 && !strcmp(wc[0].status, "success") &&
		      wc[0].len == 300 + cx->grh && wc[0].imm == 0x5eed + (u32)i,
		      "sealed datagram %d (counter %d): %d completions", i, i, k);
		CHECK(cx, !cx_mem(cx, cx->grh, 300, got) &&
		      !memcmp(got, pat + i, 300),
		      "sealed datagram %d: the bytes received differ", i);
		cx_agent(cx, "RECV wr=%d off=0 len=1024", 2 + i);
	}
	/* another sender (same QPN, another nonce), by hand: counter 7 first */
	n = dg(cx, buf, cx->g->key_id, nonce, 7, 5, 200, 0);
	deliver(cx, __LINE__, buf, n, true, 5, 200, 0, "a second sender's datagram");
	n = dg(cx, buf, cx->g->key_id, nonce, 3, 9, 1, 0x77);
	deliver(cx, __LINE__, buf, n, true, 9, 1, 0x77,
		"a lower counter of that sender, within the window");
	CHECK_DELTA(cx, "rx_drop_auth", 0);
	CHECK_DELTA(cx, "rx_drop_replay", 0);
	CHECK_DELTA(cx, "rx_drop_unkeyed", 0);
}

/*
 * An unsealed datagram (CRC, no seal extension) to a protected device:
 * rx_drop_auth, before its Q_Key or a receive WQE count
 */
static void c_pud_unsealed(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[512];
	size_t n;

	if (pud_setup(cx))
		return;
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 1, cx->tqkey);
	n = cx_build(cx, &h, pat, 64, buf);
	cx_snap(cx);
	deliver(cx, __LINE__, buf, n, false, 0, 64, 0, "an unsealed datagram");
	CHECK_DELTA(cx, "rx_drop_auth", 1);
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 2, cx->tqkey ^ 1);
	n = cx_build(cx, &h, pat, 64, buf);
	cx_snap(cx);
	deliver(cx, __LINE__, buf, n, false, 0, 64, 0,
		"an unsealed datagram with another Q_Key");
	CHECK_DELTA(cx, "rx_drop_auth", 1);
	CHECK_DELTA(cx, "rx_drop_qkey", 0);
	n = dg(cx, buf, cx->g->key_id, cx_rand_nonce(), 0, 0, 64, 0);
	deliver(cx, __LINE__, buf, n, true, 0, 64, 0, "control: a sealed datagram");
}

/*
 * QP 1 (GSI) is not protected (PROT-17): a sealed datagram to it is
 * rx_drop_auth (PROT-20, 1.); an unsealed one is not refused for being
 * unsealed.  Its MAD is a response (GetResp) of a vendor class no agent
 * registers, which the GSI QP's MAD layer drops without a word.
 */
static void c_pud_qp1(struct cx *cx)
{
	static u8 mad[256];
	struct mro_hdr h;
	u8 buf[512];
	size_t n;

	if (pud_setup(cx))
		return;
	mad[0] = 1;		/* base_version */
	mad[1] = 0x09;		/* mgmt_class: vendor range 1 */
	mad[2] = 1;		/* class_version */
	mad[3] = 0x81;		/* method: GetResp */
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 1, 0x80010000);
	h.dqpn = 1;
	n = cx_dgram(cx, &h, mad, sizeof(mad), cx->g->prot, cx->g->key,
		     cx->g->key_len, cx->g->key_id, cx_rand_nonce(), 0, buf);
	CHECK(cx, n > 0, "no sealed datagram built");
	cx_snap(cx);
	cx_raw(cx, buf, n);
	CHECK(cx, cx_quiet(cx, 0, 60) == 0, "a sealed datagram to QP 1 was answered");
	CHECK_DELTA(cx, "rx_drop_auth", 1);
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 2, 0x80010000);
	h.dqpn = 1;
	n = cx_build(cx, &h, mad, sizeof(mad), buf);
	cx_snap(cx);
	cx_raw(cx, buf, n);
	cx_pump(cx, 60);
	CHECK_DELTA(cx, "rx_drop_auth", 0);
}

/* a key id the device does not hold: rx_drop_auth; its own: delivered */
static void c_pud_key_id(struct cx *cx)
{
	u8 other = cx->g->key_id ^ 0x40, buf[512];
	u64 nonce = cx_rand_nonce();
	size_t n;

	if (pud_setup(cx))
		return;
	/* the device's key bytes under another id: only the id is wrong */
	n = dg(cx, buf, other, nonce, 0, 0, 64, 0);
	cx_snap(cx);
	deliver(cx, __LINE__, buf, n, false, 0, 64, 0, "key id not held");
	CHECK_DELTA(cx, "rx_drop_auth", 1);
	n = dg(cx, buf, cx->g->key_id, nonce, 0, 0, 64, 0);
	deliver(cx, __LINE__, buf, n, true, 0, 64, 0,
		"control: the same datagram under the device's key id");
}

/*
 * EXT-13: key_id 0 or sender_nonce 0 in the seal extension is
 * rx_drop_field, even when the datagram is sealed right for those values
 */
static void c_pud_zero(struct cx *cx)
{
	u8 buf[512];
	size_t n;

	if (pud_setup(cx))
		return;
	n = dg(cx, buf, 0, cx_rand_nonce(), 0, 0, 64, 0);
	cx_snap(cx);
	deliver(cx, __LINE__, buf, n, false, 0, 64, 0, "key_id 0");
	CHECK_DELTA(cx, "rx_drop_field", 1);
	CHECK_DELTA(cx, "rx_drop_auth", 0);
	n = dg(cx, buf, cx->g->key_id, 0, 0, 0, 64, 0);
	cx_snap(cx);
	deliver(cx, __LINE__, buf, n, false, 0, 64, 0, "sender_nonce 0");
	CHECK_DELTA(cx, "rx_drop_field", 1);
	CHECK_DELTA(cx, "rx_drop_auth", 0);
	n = dg(cx, buf, cx->g->key_id, 1, 0, 0, 64, 0);
	deliver(cx, __LINE__, buf, n, true, 0, 64, 0, "control: sender_nonce 1");
}

/*
 * RX-7: a sealed datagram's hdr_len is 44; 36 (the seal extension
 * counted as payload) is rx_drop_hdr_len, and so is 44 on an unsealed one
 */
static void c_pud_hdr_len(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[512];
	size_t n;

	if (pud_setup(cx))
		return;
	n = dg(cx, buf, cx->g->key_id, cx_rand_nonce(), 0, 0, 64, 0);
	CHECK(cx, buf[18] == 0 && buf[19] == 44, "hdr_len %u, want 44",
	      buf[18] << 8 | buf[19]);
	buf[19] = 36;
	cx_snap(cx);
	deliver(cx, __LINE__, buf, n, false, 0, 64, 0, "SEALED with hdr_len 36");
	CHECK_DELTA(cx, "rx_drop_hdr_len", 1);
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 1, cx->tqkey);
	n = cx_build(cx, &h, pat, 64, buf);
	buf[19] = 44;
	cx_recrc(buf, n);
	cx_snap(cx);
	deliver(cx, __LINE__, buf, n, false, 0, 64, 0, "unsealed with hdr_len 44");
	CHECK_DELTA(cx, "rx_drop_hdr_len", 1);
	n = dg(cx, buf, cx->g->key_id, cx_rand_nonce(), 0, 0, 64, 0);
	deliver(cx, __LINE__, buf, n, true, 0, 64, 0, "control: hdr_len 44, sealed");
}

/*
 * PROT-22: a counter of a sender already accepted, or more than 1024
 * behind its highest, is rx_drop_replay; another sender's same counter is
 * not
 */
static void c_pud_replay(struct cx *cx)
{
	u64 nonce = cx_rand_nonce();
	u8 buf[512], old[512];
	size_t n, nold;

	if (pud_setup(cx))
		return;
	nold = dg(cx, old, cx->g->key_id, nonce, 0, 0, 64, 0);
	deliver(cx, __LINE__, old, nold, true, 0, 64, 0, "counter 0");
	cx_snap(cx);
	deliver(cx, __LINE__, old, nold, false, 0, 64, 0, "counter 0 again");
	CHECK_DELTA(cx, "rx_drop_replay", 1);
	n = dg(cx, buf, cx->g->key_id, nonce, 2000, 1, 64, 0);
	deliver(cx, __LINE__, buf, n, true, 1, 64, 0, "counter 2000");
	/* the window's edge: 1023 behind is in it, 1024 behind is not */
	n = dg(cx, buf, cx->g->key_id, nonce, 977, 2, 64, 0);
	deliver(cx, __LINE__, buf, n, true, 2, 64, 0,
		"counter 977, 1023 behind the highest");
	n = dg(cx, buf, cx->g->key_id, nonce, 976, 3, 64, 0);
	cx_snap(cx);
	deliver(cx, __LINE__, buf, n, false, 3, 64, 0,
		"counter 976, 1024 behind the highest");
	CHECK_DELTA(cx, "rx_drop_replay", 1);
	CHECK_DELTA(cx, "rx_drop_auth", 0);
	n = dg(cx, buf, cx->g->key_id, nonce ^ 1, 0, 4, 64, 0);
	deliver(cx, __LINE__, buf, n, true, 4, 64, 0,
		"counter 0 of another sender (nonce)");
}

/*
 * PROT-23: a bit flipped in the payload, the Q_Key (authenticated: not a
 * Q_Key mismatch), the seal extension's nonce or the tag is
 * rx_drop_auth; the datagram unaltered then opens (its counter was not
 * taken by the forgeries)
 */
static void c_pud_flip(struct cx *cx)
{
	static const unsigned int at[4] = { 44 + 10, 28 + 1, 40, 44 + 64 + 3 };
	static const char *const what[4] = { "payload", "Q_Key", "nonce", "tag" };
	u64 nonce = cx_rand_nonce();
	u8 buf[512], bad[512];
	unsigned int i;
	size_t n;

	if (pud_setup(cx))
		return;
	n = dg(cx, buf, cx->g->key_id, nonce, 0, 0, 64, 0);
	for (i = 0; i < 4; i++) {
		char w[64];

		memcpy(bad, buf, n);
		bad[at[i]] ^= 0x10;
		snprintf(w, sizeof(w), "a bit flipped in the %s", what[i]);
		cx_snap(cx);
		deliver(cx, __LINE__, bad, n, false, 0, 64, 0, w);
		CHECK_DELTA(cx, "rx_drop_auth", 1);
		CHECK_DELTA(cx, "rx_drop_qkey", 0);
	}
	deliver(cx, __LINE__, buf, n, true, 0, 64, 0,
		"control: the datagram unaltered");
}

/* PROT-24: sealed in the other mode (auth against encrypt): rx_drop_auth */
static void c_pud_mode(struct cx *cx)
{
	u8 other = cx->g->prot == METAROCE_PROT_AUTH ? METAROCE_PROT_ENCRYPT :
						      METAROCE_PROT_AUTH;
	u64 nonce = cx_rand_nonce();
	struct mro_hdr h;
	u8 buf[512];
	size_t n;

	if (pud_setup(cx))
		return;
	ud_hdr(cx, &h, METAROCE_OP_UD_SEND, 1, cx->tqkey);
	n = cx_dgram(cx, &h, pat, 64, other, cx->g->key, cx->g->key_len,
		     cx->g->key_id, nonce, 0, buf);
	cx_snap(cx);
	deliver(cx, __LINE__, buf, n, false, 0, 64, 0, "sealed in the other mode");
	CHECK_DELTA(cx, "rx_drop_auth", 1);
	n = dg(cx, buf, cx->g->key_id, nonce, 0, 0, 64, 0);
	deliver(cx, __LINE__, buf, n, true, 0, 64, 0,
		"control: the same sender, the device's mode");
}

/*
 * PROT-21, PROT-22: forged senders never push out a sender in use; a
 * sender silent for a second, then pushed out by 64 new senders, is
 * forgotten with its replay window, and its old datagram is taken once
 * more.  Sender A keeps sending while the forgeries come, so that it is
 * in use throughout.
 */
static void c_pud_forget(struct cx *cx)
{
	u64 nonce = cx_rand_nonce(), ctr = 100;
	u8 buf[512], old[512];
	long long auth, unkeyed;
	size_t n, nold;
	unsigned int i;

	if (pud_setup(cx))
		return;
	nold = dg(cx, old, cx->g->key_id, nonce, 5, 0, 32, 0);
	deliver(cx, __LINE__, old, nold, true, 0, 32, 0, "sender A, counter 5");
	cx_snap(cx);
	/* 72 forged senders (each a new nonce, a wrong tag), 8 at a time */
	for (i = 0; i < 72; i++) {
		n = dg(cx, buf, cx->g->key_id, cx_rand_nonce(), 0, 0, 32, 0);
		buf[n - 9] ^= 1;		/* the tag */
		cx_raw(cx, buf, n);
		if (i % 8 == 7) {
			n = dg(cx, buf, cx->g->key_id, nonce, ctr, 1, 32, 0);
			deliver(cx, __LINE__, buf, n, true, 1, 32, 0,
				"sender A among the forgeries");
			ctr++;
		}
	}
	/* the last keys may still be in the making: up to 2 s */
	for (i = 0; i < 20; i++) {
		auth = cx_delta(cx, "rx_drop_auth");
		unkeyed = cx_delta(cx, "rx_drop_unkeyed");
		if (auth < 0 || auth + (unkeyed > 0 ? unkeyed : 0) >= 72)
			break;
		cx_pump(cx, 100);
	}
	CHECK(cx, auth < 0 || auth + (unkeyed > 0 ? unkeyed : 0) == 72,
	      "72 forged datagrams: rx_drop_auth grew by %lld, rx_drop_unkeyed by %lld",
	      auth, unkeyed);
	cx_snap(cx);
	deliver(cx, __LINE__, old, nold, false, 0, 32, 0,
		"sender A's counter 5 again, after the forgeries");
	CHECK_DELTA(cx, "rx_drop_replay", 1);
	if (cx->fails)
		return;
	/* A silent for a second, then 64 senders in use take every place */
	cx_pump(cx, 1200);
	for (i = 0; i < 64 && !cx->fails; i++) {
		n = dg(cx, buf, cx->g->key_id, nonce ^ (u64)(i + 1) << 8, 0, i,
		       32, 0);
		deliver(cx, __LINE__, buf, n, true, i, 32, 0,
			"one of 64 new senders");
	}
	if (cx->fails)
		return;
	/* and a second for them to be free to go, so that A finds a place */
	cx_pump(cx, 1200);
	deliver(cx, __LINE__, old, nold, true, 0, 32, 0,
		"sender A's counter 5 once more, A forgotten");
	cx_snap(cx);
	deliver(cx, __LINE__, old, nold, false, 0, 32, 0,
		"and then not again");
	CHECK_DELTA(cx, "rx_drop_replay", 1);
}

/*
 * PROT-18, PROT-19: the target's own datagrams are sealed with the
 * seal extension (the device's key id, a nonzero 56-bit nonce, the same
 * for both), counters 0 and 1, and open under the key derived from the
 * device key, the key id, its QPN and that nonce; encrypt hides the
 * payload, auth does not
 */
static void c_pud_target(struct cx *cx)
{
	u8 dev_key[RP_MAX_KEY], key[RP_MAX_KEY], copy[4096];
	u64 nonce0 = 0;
	unsigned int i, j;

	if (ud_setup(cx))
		return;
	memcpy(dev_key, cx->g->key, sizeof(dev_key));
	cx_setmem(cx, 0, pat, 600);
	for (i = 0; i < 2; i++) {
		u32 len = 300 + i, hl;
		struct pkt *p;
		u64 ctr, nonce;
		const u8 *r;

		cx->raw_len = 0;
		CHECK(cx, !cx_agent(cx, "SEND wr=%u off=%u len=%u imm=0x%x",
				    9 + i, i, len, 0x70 + i),
		      "post UD send %u", i);
		p = cx_wait(cx, 0, 1000);
		cx_pump(cx, 10);
		r = cx->raw;
		if (!cx->raw_len) {
			CHECK(cx, 0, "datagram %u: %s", i, p ?
			      "arrived unsealed" : "none came");
			return;
		}
		CHECK(cx, !cx->raw_why[0],
		      "datagram %u: the tester could not open it: %s", i,
		      cx->raw_why);
		hl = r[18] << 8 | r[19];
		CHECK(cx, hl == 44 && (r[2] & (METAROCE_F_SEALED >> 8)) &&
		      r[1] == METAROCE_OP_UD_SEND_IMM,
		      "datagram %u: opcode %#x flags %#x hdr_len %u, want UD_SEND_IMM, SEALED, 44",
		      i, r[1], r[2] << 8 | r[3], hl);
		if (hl != 44 || cx->raw_len != 44 + len + METAROCE_SEAL_LEN) {
			CHECK(cx, 0, "datagram %u: %zu bytes, want %u", i,
			      cx->raw_len, 44 + len + METAROCE_SEAL_LEN);
			return;
		}
		nonce = 0;
		for (j = 0; j < 7; j++)
			nonce = nonce << 8 | r[37 + j];
		ctr = 0;
		for (j = 0; j < 8; j++)
			ctr = ctr << 8 | r[cx->raw_len - 8 + j];
		CHECK(cx, r[36] == cx->g->key_id, "datagram %u: key_id %u, want %u",
		      i, r[36], cx->g->key_id);
		CHECK(cx, nonce != 0, "datagram %u: sender_nonce 0", i);
		if (!i)
			nonce0 = nonce;
		CHECK(cx, nonce == nonce0, "datagram 1: nonce %#llx, datagram 0 had %#llx",
		      (unsigned long long)nonce, (unsigned long long)nonce0);
		CHECK(cx, ctr == i, "datagram %u: counter %llu, want %u", i,
		      (unsigned long long)ctr, i);
		CHECK(cx, (memcmp(r + 44, pat + i, len) != 0) ==
		      (cx->g->prot == METAROCE_PROT_ENCRYPT),
		      "datagram %u: payload %s on the wire, the mode is %s", i,
		      memcmp(r + 44, pat + i, len) ? "encrypted" : "in clear",
		      cx->g->prot == METAROCE_PROT_ENCRYPT ? "encrypt" : "auth");
		/* opened here from the spec's derivation, not the engine's cache */
		memcpy(copy, r, cx->raw_len);
		CHECK(cx, !rp_kdf_dgram_key(dev_key, cx->g->key_len, r[36], cx->tqpn,
					    nonce, key) &&
		      !rp_dgram_open(key, cx->g->key_len, cx->g->prot, r[36], copy,
				     44, cx->raw_len) &&
		      !memcmp(copy + 44, pat + i, len),
		      "datagram %u does not open under HKDF(device key, key id %u, QPN %u, nonce %#llx)",
		      i, r[36], cx->tqpn, (unsigned long long)nonce);
		CHECK(cx, p && p->h.deth.imm == 0x70 + i && p->h.payload_len == len &&
		      !memcmp(p->payload, pat + i, len),
		      "datagram %u: imm or payload after opening differ", i);
	}
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
	{ "NEG-11 EXT-12 FLAG-6 UDP-2 PROT-18", "UD datagram sent, unsealed; no HELLO", c_ud_send, CF_MANUAL },
	{ "PSN-5", "UD datagrams up to the port's active MTU", c_ud_mtu, CF_MANUAL },
	{ "PROT-20 RX-26", "sealed UD datagram to an unprotected device and RC opcode to UD dropped", c_ud_refused, CF_MANUAL },
	{ "EXT-13 PROT-19 PROT-20 PROT-21", "sealed datagrams with the device's key delivered", c_pud_deliver, CF_MANUAL | CF_PROT },
	{ "PROT-20", "unsealed datagram to a protected device: rx_drop_auth", c_pud_unsealed, CF_MANUAL | CF_PROT },
	{ "PROT-17 PROT-20", "sealed datagram to QP 1: rx_drop_auth; unsealed not", c_pud_qp1, CF_MANUAL | CF_PROT },
	{ "PROT-20", "sealed datagram under a key id not held: rx_drop_auth", c_pud_key_id, CF_MANUAL | CF_PROT },
	{ "EXT-13", "seal extension key_id 0 or sender_nonce 0: rx_drop_field", c_pud_zero, CF_MANUAL | CF_PROT },
	{ "RX-7", "sealed datagram hdr_len 36, unsealed 44: rx_drop_hdr_len", c_pud_hdr_len, CF_MANUAL | CF_PROT },
	{ "PROT-22", "replayed or too old datagram counter: rx_drop_replay", c_pud_replay, CF_MANUAL | CF_PROT },
	{ "PROT-23 PROT-19", "a bit flipped in a sealed datagram: rx_drop_auth", c_pud_flip, CF_MANUAL | CF_PROT },
	{ "PROT-24", "datagram sealed in the other mode: rx_drop_auth", c_pud_mode, CF_MANUAL | CF_PROT },
	{ "PROT-21 PROT-22 PROT-23", "forged senders do not push out one in use; a silent one forgotten", c_pud_forget, CF_MANUAL | CF_PROT },
	{ "PROT-18 PROT-19", "the target's sealed datagrams open under the derived key", c_pud_target, CF_MANUAL | CF_PROT },
	{ NULL, NULL, NULL, 0 },
};
