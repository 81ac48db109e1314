// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive validation (protocol.rst, "Receive validation", "Flags",
 * "Transport"): packets the target must drop and count.  Each case sends
 * one malformed request with ACK_REQ at the target's next expected PSN and
 * checks that nothing answers it, that the named counter grew by one, that
 * a PROBE then finds the PSN not received, and that the same request
 * well-formed is then taken (so a target that drops everything fails).
 */
#include <arpa/inet.h>
#include <sys/socket.h>

#include "conform.h"

/* a one-packet WRITE of @len bytes at the start of the target's region */
static void write_hdr(struct cx *cx, struct mro_hdr *h, u32 psn, u32 len)
{
	cx_req(cx, h, METAROCE_OP_WRITE, psn);
	h->flags |= METAROCE_F_ACK_REQ;
	h->msg.length = len;
	h->msg.va = cx->va;
	h->msg.rkey = cx->rkey;
}

static const u8 data16[16] = "conformance-16b";

/* the good packet at the next PSN is taken: its ACK moves cum_psn past it */
static void taken_after(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *a;
	u64 end = cx_now_us() + 1000000;

	write_hdr(cx, &h, cx->psn, sizeof(data16));
	cx_send(cx, &h, data16, sizeof(data16));
	do {
		a = cx_wait(cx, METAROCE_OP_ACK, 10);
	} while ((!a || a->h.ack.echo_seq != h.path_seq) && cx_now_us() < end);
	CHECK(cx, a && a->h.ack.echo_seq == h.path_seq,
	      "control: no ACK to a well-formed WRITE at PSN %u", cx->psn);
	if (a && a->h.ack.echo_seq == h.path_seq)
		CHECK(cx, a->h.ack.cum_psn == cx->psn + 1,
		      "control: ACK cum_psn %u, want %u", a->h.ack.cum_psn,
		      cx->psn + 1);
	cx->psn++;
}

/*
 * @buf (@len bytes) must be dropped: no answer, counter @ctr + 1, the
 * receive window unmoved; then the well-formed control is taken
 */
static void expect_drop(struct cx *cx, const u8 *buf, size_t len,
			const char *ctr)
{
	struct pkt *a;
	unsigned int n;

	cx_snap(cx);
	cx_raw(cx, buf, len);
	n = cx_quiet(cx, 0, 60);
	CHECK(cx, n == 0, "%u packet(s) answered a packet the target must drop",
	      n);
	CHECK_DELTA(cx, ctr, 1);
	a = cx_probe(cx);
	CHECK(cx, a != NULL, "no ACK to a PROBE after the dropped packet");
	if (a)
		CHECK(cx, a->h.ack.cum_psn == cx->psn && !a->h.ack.sack[0],
		      "the dropped packet was taken: cum_psn %u (want %u), sack %#llx",
		      a->h.ack.cum_psn, cx->psn,
		      (unsigned long long)a->h.ack.sack[0]);
	taken_after(cx);
}

/* the good WRITE at the next PSN, encoded, for a case to spoil */
static size_t good(struct cx *cx, u8 *buf)
{
	struct mro_hdr h;

	write_hdr(cx, &h, cx->psn, sizeof(data16));
	return cx_build(cx, &h, data16, sizeof(data16), buf);
}

static void put16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static u16 get16(const u8 *p)
{
	return p[0] << 8 | p[1];
}

static void c_short(struct cx *cx)
{
	u8 buf[256];

	good(cx, buf);
	expect_drop(cx, buf, 20, "rx_drop_short");
}

static void c_version(struct cx *cx)
{
	u8 buf[256];
	size_t n = good(cx, buf);

	buf[0] = 0x10;
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_version");
}

static void c_version_nibble(struct cx *cx)
{
	u8 buf[256];
	size_t n = good(cx, buf);

	buf[0] = 0x21;
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_version");
}

static void c_opcode(struct cx *cx)
{
	u8 buf[256];
	size_t n = good(cx, buf);

	buf[1] = 0x13;
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_opcode");
}

static void c_sealed_hello(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	h = cx->my_hello;
	h.flags = 0;
	n = cx_build(cx, &h, NULL, 0, buf);
	put16(buf + 16, 0);
	put32(buf + 20, 0);
	put16(buf + 2, get16(buf + 2) | METAROCE_F_SEALED);
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_field");
}

static void c_hdr_len(struct cx *cx)
{
	u8 buf[256];
	size_t n = good(cx, buf);

	put16(buf + 18, 56);
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_hdr_len");
}

static void c_short_payload(struct cx *cx)
{
	u8 buf[256];

	good(cx, buf);
	/* the headers and no room for the CRC */
	expect_drop(cx, buf, METAROCE_BTH_LEN + METAROCE_MSG_LEN + 2,
		    "rx_drop_short");
}

static void c_crc(struct cx *cx)
{
	u8 buf[256];
	size_t n = good(cx, buf);

	buf[n - 1] ^= 0x01;
	expect_drop(cx, buf, n, "rx_drop_crc");
}

static void c_crc_before_fields(struct cx *cx)
{
	u8 buf[256];
	size_t n = good(cx, buf);
	long long d;

	/* an undefined flag bit and a bad CRC: the CRC is judged first */
	put16(buf + 2, get16(buf + 2) | 0x0200);
	buf[n - 2] ^= 0x40;
	cx_snap(cx);
	expect_drop(cx, buf, n, "rx_drop_crc");
	d = cx_delta(cx, "rx_drop_field");
	CHECK(cx, d <= 0, "rx_drop_field grew by %lld: a field was judged before the CRC",
	      d);
}

static void c_piggy_len(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	/* ACK_PIGGY with hdr_len not counting ack_psn */
	write_hdr(cx, &h, cx->psn, sizeof(data16));
	n = cx_build(cx, &h, data16, sizeof(data16), buf);
	put16(buf + 2, get16(buf + 2) | METAROCE_F_ACK_PIGGY);
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_hdr_len");
	/* hdr_len counting 4 bytes of ack_psn without ACK_PIGGY */
	write_hdr(cx, &h, cx->psn, sizeof(data16));
	h.flags |= METAROCE_F_ACK_PIGGY;
	h.ack_psn = cx->tpsn;
	n = cx_build(cx, &h, data16, sizeof(data16), buf);
	put16(buf + 2, get16(buf + 2) & ~METAROCE_F_ACK_PIGGY);
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_hdr_len");
}

static void c_flag_undefined(struct cx *cx)
{
	u8 buf[256];
	size_t n = good(cx, buf);

	put16(buf + 2, get16(buf + 2) | 0x0200);
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_field");
}

static void c_qpn_top(struct cx *cx)
{
	u8 buf[256];
	size_t n = good(cx, buf);

	buf[4] = 0x01;		/* dqpn's top byte */
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_field");
}

static void c_new_port(struct cx *cx)
{
	u8 buf[256];
	size_t n = good(cx, buf);

	put16(buf + 2, get16(buf + 2) | METAROCE_F_NEW_PORT);
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_field");
}

static void c_payload_on_read(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	cx_req(cx, &h, METAROCE_OP_READ_REQ, cx->psn);
	h.flags = METAROCE_F_FIRST | METAROCE_F_ACK_REQ;
	h.msg.length = 256;
	h.msg.imm = 256;
	h.msg.va = cx->va;
	h.msg.rkey = cx->rkey;
	n = cx_build(cx, &h, NULL, 0, buf);
	/* 8 bytes of payload before the CRC */
	memset(buf + n - METAROCE_CRC_LEN, 0xab, 8);
	n += 8;
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_length");
}

static void c_atomic_unaligned(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	cx_req(cx, &h, METAROCE_OP_FETCH_ADD, cx->psn);
	h.atomic.va = cx->va + 8;
	h.atomic.rkey = cx->rkey;
	h.atomic.swap_add = 1;
	n = cx_build(cx, &h, NULL, 0, buf);
	buf[METAROCE_BTH_LEN + 7] |= 4;		/* va + 12 */
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_field");
}

static void c_atomic_write_compare(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	cx_req(cx, &h, METAROCE_OP_ATOMIC_WRITE, cx->psn);
	h.atomic.va = cx->va + 8;
	h.atomic.rkey = cx->rkey;
	h.atomic.swap_add = 1;
	n = cx_build(cx, &h, NULL, 0, buf);
	buf[METAROCE_BTH_LEN + 31] = 1;		/* compare */
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_field");
}

static void c_flush_fields(struct cx *cx)
{
	static const struct { int off; u8 val; } bad[] = {
		{ 20, 0x00 },	/* type empty */
		{ 20, 0x05 },	/* type with another bit */
		{ 21, 2 },	/* level above 1 */
		{ 23, 1 },	/* rsvd */
	};
	struct mro_hdr h;
	unsigned int i;
	u8 buf[256];
	size_t n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cx_req(cx, &h, METAROCE_OP_FLUSH, cx->psn);
		h.flush.va = cx->va;
		h.flush.rkey = cx->rkey;
		h.flush.length = 64;
		h.flush.type = METAROCE_FLUSH_GLOBAL;
		h.flush.level = METAROCE_FLUSH_RANGE;
		n = cx_build(cx, &h, NULL, 0, buf);
		buf[METAROCE_BTH_LEN + bad[i].off] = bad[i].val;
		cx_recrc(buf, n);
		expect_drop(cx, buf, n, "rx_drop_field");
	}
}

/* an ACK the target (as requester) must drop as malformed */
static void ack_drop(struct cx *cx, int off, u8 val, const char *what)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_ACK;
	h.flags = METAROCE_F_ECT;
	h.ack.cum_psn = cx->tpsn;
	h.ack.credit_psn = cx->tpsn + 64;
	h.ack.sack_bits = 64;
	n = cx_build(cx, &h, NULL, 0, buf);
	buf[METAROCE_BTH_LEN + off] = val;
	cx_recrc(buf, n);
	cx_snap(cx);
	cx_raw(cx, buf, n);
	CHECK(cx, cx_quiet(cx, 0, 50) == 0, "%s: answered", what);
	cx_note(cx, "%s:", what);
	CHECK_DELTA(cx, "rx_drop_field", 1);
}

static void c_ack_fields(struct cx *cx)
{
	ack_drop(cx, 0, 6, "syndrome 6");
	ack_drop(cx, 2, 1, "sack_bits 320");	/* 0x0140 */
	ack_drop(cx, 31, 1, "SACK bit 64 set with sack_bits 64");
	ack_drop(cx, 47, 1, "rsvd non-zero");
}

static void c_probe_rsvd(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	cx_req(cx, &h, METAROCE_OP_PROBE, cx->psn);
	n = cx_build(cx, &h, NULL, 0, buf);
	buf[METAROCE_BTH_LEN + 11] = 1;
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_field");
}

static void hello_bad(struct cx *cx, int off, u8 val)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	/* our own HELLO, without ACK_REQ, spoiled in one field */
	h = cx->my_hello;
	h.flags = 0;
	n = cx_build(cx, &h, NULL, 0, buf);
	if (off == 16)		/* nonce 0 */
		memset(buf + METAROCE_BTH_LEN + 16, 0, 8);
	else
		buf[METAROCE_BTH_LEN + off] = val;
	put16(buf + 16, 0);
	put32(buf + 20, 0);
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_field");
}

static void c_hello_fields(struct cx *cx)
{
	hello_bad(cx, 0, 3);		/* prot above 2 */
	hello_bad(cx, 16, 0);		/* nonce 0 */
	hello_bad(cx, 10, 1);		/* rsvd */
}

static void msg_drop(struct cx *cx, u32 offset, u32 length, u16 flags,
		     u32 plen, const char *ctr)
{
	static u8 pay[512];
	struct mro_hdr h;
	u8 buf[1024];
	size_t n;

	write_hdr(cx, &h, cx->psn, length);
	h.flags = flags | METAROCE_F_ACK_REQ;
	h.msg.offset = offset;
	n = cx_build(cx, &h, pay, plen, buf);
	if (!n) {
		/* the codec refuses it: put the fields in by hand */
		write_hdr(cx, &h, cx->psn, 16);
		h.flags = METAROCE_F_ACK_REQ;
		h.msg.offset = 0;
		n = cx_build(cx, &h, pay, plen, buf);
		put32(buf + METAROCE_BTH_LEN + 4, offset);
		put32(buf + METAROCE_BTH_LEN + 8, length);
		put16(buf + 2, flags | METAROCE_F_ACK_REQ | METAROCE_F_ECT);
		cx_recrc(buf, n);
	}
	expect_drop(cx, buf, n, ctr);
}

static void c_msg_length_big(struct cx *cx)
{
	msg_drop(cx, 0, 0x80000001u, METAROCE_F_FIRST, 16, "rx_drop_length");
}

static void c_read_imm(struct cx *cx)
{
	static const u32 imm[] = { 128, 65537 };
	struct mro_hdr h;
	unsigned int i;
	u8 buf[256];
	size_t n;

	for (i = 0; i < 2; i++) {
		cx_req(cx, &h, METAROCE_OP_READ_REQ, cx->psn);
		h.flags = METAROCE_F_FIRST | METAROCE_F_ACK_REQ;
		h.msg.length = 256;
		h.msg.imm = 256;
		h.msg.va = cx->va;
		h.msg.rkey = cx->rkey;
		n = cx_build(cx, &h, NULL, 0, buf);
		put32(buf + METAROCE_BTH_LEN + 12, imm[i]);
		cx_recrc(buf, n);
		expect_drop(cx, buf, n, "rx_drop_length");
	}
}

static void c_beyond_length(struct cx *cx)
{
	msg_drop(cx, 8, 16, 0, 16, "rx_drop_length");
}

static void c_first_offset(struct cx *cx)
{
	msg_drop(cx, 8, 32, METAROCE_F_FIRST, 8, "rx_drop_field");
}

static void c_last_short(struct cx *cx)
{
	msg_drop(cx, 0, 32, METAROCE_F_FIRST | METAROCE_F_LAST, 16,
		 "rx_drop_length");
}

static void c_piggy_on_ack(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_ACK;
	h.ack.cum_psn = cx->tpsn;
	h.ack.credit_psn = cx->tpsn + 64;
	n = cx_build(cx, &h, NULL, 0, buf);
	put16(buf + 2, get16(buf + 2) | METAROCE_F_ACK_PIGGY);
	cx_recrc(buf, n);
	cx_snap(cx);
	cx_raw(cx, buf, n);
	cx_pump(cx, 50);
	CHECK_DELTA(cx, "rx_drop_field", 1);
}

static void c_no_qp(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	write_hdr(cx, &h, cx->psn, sizeof(data16));
	h.dqpn = cx->tqpn ^ 0x800000;
	n = cx_build(cx, &h, data16, sizeof(data16), buf);
	expect_drop(cx, buf, n, "rx_drop_no_qp");
}

static void c_sqpn(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	write_hdr(cx, &h, cx->psn, sizeof(data16));
	h.sqpn = cx->cfg.qpn ^ 0x400000;
	n = cx_build(cx, &h, data16, sizeof(data16), buf);
	expect_drop(cx, buf, n, "rx_drop_qp_mismatch");
}

static void c_ud_on_rc(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_UD_SEND;
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	h.psn = cx->psn;
	h.deth.qkey = 0x11111111;
	n = cx_build(cx, &h, data16, sizeof(data16), buf);
	expect_drop(cx, buf, n, "rx_drop_qp_mismatch");
}

static void c_sport(struct cx *cx)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	u8 buf[256];
	size_t n = good(cx, buf);
	unsigned int k;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr = cx->g->local_ip;
	for (k = 0; k < 50; k++) {
		sa.sin_port = htons(2000 + k * 7);
		if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
	}
	sa.sin_addr = cx->tip;
	sa.sin_port = htons(cx->g->port);
	cx_snap(cx);
	CHECK(cx, sendto(fd, buf, n, 0, (struct sockaddr *)&sa, sizeof(sa)) ==
	      (ssize_t)n, "sendto: %s", strerror(errno));
	close(fd);
	CHECK(cx, cx_quiet(cx, 0, 60) == 0,
	      "answered a datagram from an unprivileged source port");
	CHECK_DELTA(cx, "rx_drop_sport", 1);
	taken_after(cx);
}

static void c_window_beyond(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	write_hdr(cx, &h, cx->psn + 512 + 3, sizeof(data16));
	n = cx_build(cx, &h, data16, sizeof(data16), buf);
	expect_drop(cx, buf, n, "rx_drop_window");
	/* and one more than 2^16 behind the base */
	write_hdr(cx, &h, cx->psn - 70000, sizeof(data16));
	n = cx_build(cx, &h, data16, sizeof(data16), buf);
	expect_drop(cx, buf, n, "rx_drop_window");
}

static void c_probe_no_ack_req(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	cx_req(cx, &h, METAROCE_OP_PROBE, cx->psn);
	h.flags = 0;
	n = cx_build(cx, &h, NULL, 0, buf);
	expect_drop(cx, buf, n, "rx_drop_field");
}

static void c_probe_window(struct cx *cx)
{
	struct mro_hdr h;
	u8 buf[256];
	size_t n;

	cx_req(cx, &h, METAROCE_OP_PROBE, cx->psn + 3 * 512);
	n = cx_build(cx, &h, NULL, 0, buf);
	expect_drop(cx, buf, n, "rx_drop_window");
	cx_req(cx, &h, METAROCE_OP_PROBE, cx->psn - 3 * 512);
	n = cx_build(cx, &h, NULL, 0, buf);
	expect_drop(cx, buf, n, "rx_drop_window");
}

static void c_sealed_unprotected(struct cx *cx)
{
	u8 buf[256];
	size_t n = good(cx, buf);

	/* SEALED with a trailer of 24 bytes on an unprotected connection */
	put16(buf + 2, get16(buf + 2) | METAROCE_F_SEALED);
	memset(buf + n, 0, 20);
	n += 20;
	expect_drop(cx, buf, n, "rx_drop_auth");
}

/* a counter that must not have grown: the packet failed an earlier check */
static void not_counted(struct cx *cx, const char *ctr, const char *first)
{
	long long d = cx_delta(cx, ctr);

	CHECK(cx, d <= 0, "%s grew by %lld: the packet was judged by it before %s",
	      ctr, d, first);
}

/* two defects: the packet is dropped by the earlier check and counted once */
static void c_check_order(struct cx *cx)
{
	u8 buf[256];
	size_t n;

	n = good(cx, buf);
	buf[0] = 0x10;
	buf[1] = 0x13;
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_version");
	not_counted(cx, "rx_drop_opcode", "the version");

	n = good(cx, buf);
	put16(buf + 18, 56);
	cx_recrc(buf, n);
	buf[n - 1] ^= 0x01;
	expect_drop(cx, buf, n, "rx_drop_hdr_len");
	not_counted(cx, "rx_drop_crc", "hdr_len");

	n = good(cx, buf);
	put16(buf + 2, get16(buf + 2) | 0x0200);
	put32(buf + METAROCE_BTH_LEN + 8, 0x80000001u);
	cx_recrc(buf, n);
	expect_drop(cx, buf, n, "rx_drop_field");
	not_counted(cx, "rx_drop_length", "the flags");
}

const struct ccase cases_rx[] = {
	{ "RX-2", "two defects: dropped by the earlier check, counted once", c_check_order, 0 },
	{ "RX-3", "datagram shorter than BTH + CRC dropped", c_short, 0 },
	{ "RX-4 HDR-4", "version 1 dropped", c_version, 0 },
	{ "RX-4", "reserved version nibble dropped", c_version_nibble, 0 },
	{ "RX-5 OP-1", "unknown opcode 0x13 dropped", c_opcode, 0 },
	{ "RX-6 FLAG-9", "SEALED on HELLO dropped as a field error", c_sealed_hello, 0 },
	{ "RX-7 HDR-1", "hdr_len not the opcode's dropped", c_hdr_len, 0 },
	{ "RX-8", "payload shorter than hdr_len + CRC dropped", c_short_payload, 0 },
	{ "RX-9 HDR-2", "CRC32C mismatch dropped", c_crc, 0 },
	{ "RX-10", "bad CRC counted as CRC even with a bad field", c_crc_before_fields, 0 },
	{ "RX-11 FLAG-8 HDR-1", "ACK_PIGGY and hdr_len disagreeing dropped", c_piggy_len, 0 },
	{ "RX-12 FLAG-10", "undefined flag bit dropped", c_flag_undefined, 0 },
	{ "RX-12 HDR-4", "QPN with top bits set dropped", c_qpn_top, 0 },
	{ "FLAG-7", "NEW_PORT on a WRITE dropped", c_new_port, 0 },
	{ "RX-13 OP-1", "payload on READ_REQ dropped", c_payload_on_read, 0 },
	{ "RX-14 EXT-3", "atomic va not 8-byte aligned dropped", c_atomic_unaligned, 0 },
	{ "RX-14 EXT-3", "ATOMIC_WRITE with non-zero compare dropped", c_atomic_write_compare, 0 },
	{ "RX-15 EXT-4", "FLUSH type, level, rsvd checked", c_flush_fields, 0 },
	{ "RX-16 EXT-11", "ACK syndrome above 5, sack_bits above 128 dropped", c_ack_fields, 0 },
	{ "RX-17 CTRL-9", "PROBE rsvd non-zero dropped", c_probe_rsvd, 0 },
	{ "RX-18 HELLO-3", "HELLO prot above 2, nonce 0, rsvd dropped", c_hello_fields, 0 },
	{ "RX-20 EXT-1", "message length above 2^31 dropped", c_msg_length_big, 0 },
	{ "RX-21", "READ_REQ segment size outside 256..65536 dropped", c_read_imm, 0 },
	{ "RX-22", "offset + payload beyond length dropped", c_beyond_length, 0 },
	{ "RX-23 FLAG-1", "FIRST with non-zero offset dropped", c_first_offset, 0 },
	{ "RX-24 FLAG-2", "LAST short of length dropped", c_last_short, 0 },
	{ "FLAG-8", "ACK_PIGGY on an ACK dropped", c_piggy_on_ack, 0 },
	{ "RX-25", "unknown dqpn dropped", c_no_qp, 0 },
	{ "RX-26", "wrong sqpn dropped", c_sqpn, 0 },
	{ "RX-26 OP-2", "UD opcode to an RC QP dropped", c_ud_on_rc, 0 },
	{ "UDP-3", "datagram from an unprivileged source port dropped", c_sport, 0 },
	{ "RX-27 PSN-11", "PSN beyond the window or 2^16 behind dropped", c_window_beyond, 0 },
	{ "RX-34 CTRL-3", "PROBE without ACK_REQ dropped unanswered", c_probe_no_ack_req, 0 },
	{ "CTRL-4", "PROBE outside the receive window dropped", c_probe_window, 0 },
	{ "PROT-12 FLAG-9", "SEALED on an unprotected connection dropped", c_sealed_unprotected, 0 },
	{ NULL, NULL, NULL, 0 },
};
