// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroblind: what a blind off-path sender can throw at a live metaroce
 * connection.  It is told the victim QPs' numbers (-q) and their peers'
 * (-Q), as if it had guessed them, and nothing else: every PSN, message
 * number, path sequence, timestamp, key, address and source port it puts
 * in a packet is drawn at random (PSNs over the 24 bits an initial PSN
 * has).  The packets are built from include/uapi/rdma/metaroce_wire.h, the
 * definition the driver uses, and carry a correct CRC32C.  Classes (-c):
 *
 *   dupreq     READ_REQs failing the responder's checks: a segment size
 *              above the path MTU, a length of 2^30, a random rkey
 *   errors     WRITEs with a random rkey and SENDs longer than any receive
 *              buffer: fatal at the next expected PSN, dropped elsewhere
 *   dupread    plausible READ_REQs of 1 MiB (a duplicate would be answered
 *              with up to 256 responses: amplification)
 *   feedback   congestion feedback, every packet marked CE: ACKs with
 *              random ECN counts, grants and echoes, PROBEs, CREDITs, READ
 *              and atomic responses
 *   ackforge   ACKs, SACKs and every NAK syndrome for random PSNs, and
 *              requests carrying a piggy-backed ACK
 *   respforge  READ responses with a payload and atomic responses with a
 *              value, answering nothing the requester knows of
 *   reqforge   well-formed one-packet SENDs, SEND_IMMs and WRITE_IMMs
 *              (a PSN they hit in the window would be taken from the
 *              genuine packet)
 *   ucjump     UC SENDs with random PSNs, message numbers and FIRST/LAST
 *              flags (a skip too far ahead would desynchronise the stream)
 *   udforge    UD SENDs with random Q_Keys
 *
 * -n packets are spread evenly over -d seconds (as fast as possible with
 * -d 0), from 16 random source ports in 512-1023 (root).  The same seed
 * (-s) gives the same packets.  Prints
 *   mroblind: class=C sent=N errors=E seconds=S
 * and exits 0 when all were sent, 1 otherwise, 2 on bad usage.  SIGTERM or
 * SIGINT ends the sending early, with the report.
 *
 * Usage: mroblind -t ADDR -q QPN,.. -Q QPN,.. -c CLASS [-n COUNT]
 *                 [-d SECS] [-p PORT] [-s SEED]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rdma/metaroce_wire.h>

#include "mro_toolkit.h"
#include "mro_xorshift.h"

#define N_SOCKS		16
#define MAX_QPS		64
#define BUF_LEN		2048

enum cls { C_DUPREQ, C_ERRORS, C_DUPREAD, C_FEEDBACK, C_ACKFORGE, C_RESPFORGE,
	   C_REQFORGE, C_UCJUMP, C_UDFORGE, C_N };
static const char *const cls_name[C_N] = {
	"dupreq", "errors", "dupread", "feedback", "ackforge", "respforge",
	"reqforge", "ucjump", "udforge"
};

struct target {
	uint32_t qpn[MAX_QPS], peer[MAX_QPS];
	int n;
};

static uint64_t rng_state;

static uint32_t rnd(void)
{
	return mro_xorshift(&rng_state);
}

static uint64_t rnd64(void)
{
	return (uint64_t)rnd() << 32 | rnd();
}

/* a PSN a blind sender can only guess: initial PSNs have 24 random bits */
static uint32_t blind_psn(void)
{
	return rnd() & METAROCE_QPN_MASK;
}

/*
 * Write the base header for @op into @p with everything a blind sender
 * cannot know drawn at random; returns the header length so far.
 */
static size_t put_bth(uint8_t *p, const struct target *t, uint8_t op,
		      uint16_t flags, uint32_t psn, size_t ext_len)
{
	struct metaroce_bth b = { 0 };
	int k = rnd() % t->n;

	b.ver = METAROCE_WIRE_VERSION << 4;
	b.opcode = op;
	b.flags = htobe16(flags);
	b.dqpn = htobe32(t->qpn[k] & METAROCE_QPN_MASK);
	b.sqpn = htobe32(t->peer[k] & METAROCE_QPN_MASK);
	b.psn = htobe32(psn);
	b.path = htobe16(rnd() % 64);
	b.hdr_len = htobe16(METAROCE_BTH_LEN + ext_len);
	b.path_seq = htobe32(rnd());
	b.tsval = htobe32(rnd());
	memcpy(p, &b, METAROCE_BTH_LEN);
	return METAROCE_BTH_LEN;
}

static size_t put_msg(uint8_t *p, uint32_t msn, uint32_t offset,
		      uint32_t length, uint32_t imm, uint64_t va, uint32_t rkey,
		      uint32_t first_psn)
{
	struct metaroce_msg m = {
		.msn = htobe32(msn), .offset = htobe32(offset),
		.length = htobe32(length), .imm = htobe32(imm),
		.va = htobe64(va), .rkey = htobe32(rkey),
		.first_psn = htobe32(first_psn),
	};

	memcpy(p, &m, METAROCE_MSG_LEN);
	return METAROCE_MSG_LEN;
}

static size_t put_payload(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = rnd();
	return len;
}

/* a data request of @op with a message extension and @plen payload bytes */
static size_t request(uint8_t *p, const struct target *t, uint8_t op,
		      uint16_t flags, uint32_t length, uint32_t imm,
		      uint32_t rkey, size_t plen)
{
	uint32_t psn = blind_psn();
	size_t n;

	n = put_bth(p, t, op, flags, psn, METAROCE_MSG_LEN);
	n += put_msg(p + n, rnd(), 0, length, imm, rnd64(), rkey, psn);
	return n + put_payload(p + n, plen);
}

static size_t read_req(uint8_t *p, const struct target *t, uint32_t length,
		       uint32_t seg)
{
	return request(p, t, METAROCE_OP_READ_REQ,
		       METAROCE_F_FIRST | METAROCE_F_LAST, length, seg, rnd(), 0);
}

static size_t ack(uint8_t *p, const struct target *t, uint8_t syndrome)
{
	struct metaroce_ack a = { 0 };
	size_t n = put_bth(p, t, METAROCE_OP_ACK, 0, 0, METAROCE_ACK_LEN);
	unsigned int nbits;
	int i;

	a.syndrome = syndrome;
	a.nak_code = rnd() % 32;
	nbits = rnd() % (METAROCE_SACK_BITS + 1);
	a.sack_bits = htobe16(nbits);
	a.cum_psn = htobe32(blind_psn());
	a.nak_psn = htobe32(syndrome ? blind_psn() : 0);
	a.credit_psn = htobe32(blind_psn());
	for (i = 0; i < METAROCE_SACK_WORDS; i++, nbits -= nbits > 64 ? 64 : nbits)
		a.sack[i] = htobe64(nbits >= 64 ? rnd64() :
				    rnd64() & ((1ULL << nbits) - 1));
	a.ts_echo = htobe32(rnd());
	a.echo_path = htobe16(rnd() % 64);
	a.ecn_ce = htobe16(rnd());
	a.echo_seq = htobe32(rnd());
	memcpy(p + n, &a, METAROCE_ACK_LEN);
	return n + METAROCE_ACK_LEN;
}

static size_t ctrl(uint8_t *p, const struct target *t, uint8_t op)
{
	struct metaroce_ctrl c = { 0 };
	uint16_t flags = op == METAROCE_OP_PROBE ? METAROCE_F_ACK_REQ : 0;
	size_t n = put_bth(p, t, op, flags, blind_psn(), METAROCE_CTRL_LEN);

	c.token = htobe32(rnd());
	c.credit_psn = htobe32(blind_psn());
	memcpy(p + n, &c, METAROCE_CTRL_LEN);
	return n + METAROCE_CTRL_LEN;
}

/* response k of 16 to a READ the requester never sent (segment plen) */
static size_t read_resp(uint8_t *p, const struct target *t)
{
	uint32_t first = blind_psn(), plen = 64 + rnd() % 961, k = rnd() % 16;
	uint16_t flags = (k == 0 ? METAROCE_F_FIRST : 0) |
			 (k == 15 ? METAROCE_F_LAST : 0);
	struct metaroce_read_resp r = { .offset = htobe32(k * plen) };
	size_t n = put_bth(p, t, METAROCE_OP_READ_RESP, flags, first + k,
			   METAROCE_READ_RESP_LEN);

	memcpy(p + n, &r, METAROCE_READ_RESP_LEN);
	n += METAROCE_READ_RESP_LEN;
	return n + put_payload(p + n, plen);
}

static size_t atomic_resp(uint8_t *p, const struct target *t)
{
	struct metaroce_atomic_resp r = { .orig = htobe64(rnd64()) };
	size_t n = put_bth(p, t, METAROCE_OP_ATOMIC_RESP,
			   METAROCE_F_FIRST | METAROCE_F_LAST, blind_psn(),
			   METAROCE_ATOMIC_RESP_LEN);

	memcpy(p + n, &r, METAROCE_ATOMIC_RESP_LEN);
	return n + METAROCE_ATOMIC_RESP_LEN;
}

/* a one-packet SEND with a piggy-backed ACK of a random PSN */
static size_t piggy_send(uint8_t *p, const struct target *t)
{
	uint32_t psn = blind_psn(), ack_psn = htobe32(blind_psn());
	size_t n = put_bth(p, t, METAROCE_OP_SEND,
			   METAROCE_F_FIRST | METAROCE_F_LAST |
			   METAROCE_F_ACK_PIGGY, psn,
			   METAROCE_MSG_LEN + METAROCE_ACK_PIGGY_LEN);

	n += put_msg(p + n, rnd(), 0, 64, 0, 0, 0, psn);
	memcpy(p + n, &ack_psn, METAROCE_ACK_PIGGY_LEN);
	n += METAROCE_ACK_PIGGY_LEN;
	return n + put_payload(p + n, 64);
}

static size_t ud_send(uint8_t *p, const struct target *t)
{
	struct metaroce_deth d = { .qkey = htobe32(rnd()), .imm = htobe32(rnd()) };
	size_t n = put_bth(p, t, rnd() % 2 ? METAROCE_OP_UD_SEND :
			   METAROCE_OP_UD_SEND_IMM,
			   METAROCE_F_FIRST | METAROCE_F_LAST, blind_psn(),
			   METAROCE_DETH_LEN);

	memcpy(p + n, &d, METAROCE_DETH_LEN);
	n += METAROCE_DETH_LEN;
	return n + put_payload(p + n, 16 + rnd() % 1009);
}

/* packet k of a random m-packet UC SEND, at a random PSN and msn */
static size_t uc_send(uint8_t *p, const struct target *t)
{
	uint32_t psn = blind_psn(), plen = 64 + rnd() % 961;
	uint32_t m = 1 + rnd() % 4, k = rnd() % m;
	uint16_t flags = (k == 0 ? METAROCE_F_FIRST : 0) |
			 (k == m - 1 ? METAROCE_F_LAST : 0);
	size_t n = put_bth(p, t, METAROCE_OP_SEND, flags, psn, METAROCE_MSG_LEN);

	n += put_msg(p + n, rnd(), k * plen, m * plen, 0, 0, 0, psn - k);
	return n + put_payload(p + n, plen);
}

/* build one packet of class @c into @p; *@ce: send it marked CE */
static size_t build(enum cls c, uint8_t *p, const struct target *t, int *ce)
{
	uint32_t len;

	*ce = 0;
	switch (c) {
	case C_DUPREQ:	/* what the decoder takes and the responder refuses */
		switch (rnd() % 3) {
		case 0:	/* a segment size above the path MTU */
			return read_req(p, t, 65536, 8192 << (rnd() % 4));
		case 1:	/* more responses than any window holds */
			return read_req(p, t, 1u << 30, 256);
		default:	/* a key that names nothing */
			return read_req(p, t, 4096, 4096);
		}
	case C_ERRORS:
		if (rnd() % 2)
			return request(p, t, METAROCE_OP_WRITE,
				       METAROCE_F_FIRST | METAROCE_F_LAST, 512,
				       0, rnd(), 512);
		len = 1u << (24 + rnd() % 7);
		return request(p, t, METAROCE_OP_SEND, METAROCE_F_FIRST, len, 0,
			       0, 1024);
	case C_DUPREAD:
		return read_req(p, t, 1u << 20, 4096);
	case C_FEEDBACK:
		*ce = 1;
		switch (rnd() % 5) {
		case 0: return ack(p, t, METAROCE_SYN_ACK);
		case 1: return ctrl(p, t, METAROCE_OP_PROBE);
		case 2: return ctrl(p, t, METAROCE_OP_CREDIT);
		case 3: return read_resp(p, t);
		default: return atomic_resp(p, t);
		}
	case C_ACKFORGE:
		if (rnd() % 8 == 0)
			return piggy_send(p, t);
		return ack(p, t, rnd() % (METAROCE_SYN_MAX + 1));
	case C_RESPFORGE:
		return rnd() % 4 ? read_resp(p, t) : atomic_resp(p, t);
	case C_REQFORGE:
		len = 16 + rnd() % 1009;
		switch (rnd() % 3) {
		case 0:
			return request(p, t, METAROCE_OP_SEND,
				       METAROCE_F_FIRST | METAROCE_F_LAST, len,
				       0, 0, len);
		case 1:
			return request(p, t, METAROCE_OP_SEND_IMM,
				       METAROCE_F_FIRST | METAROCE_F_LAST, len,
				       rnd(), 0, len);
		default:
			return request(p, t, METAROCE_OP_WRITE_IMM,
				       METAROCE_F_FIRST | METAROCE_F_LAST, len,
				       rnd(), rnd(), len);
		}
	case C_UCJUMP:	/* packet k of an m-packet SEND */
		return uc_send(p, t);
	case C_UDFORGE:
		return ud_send(p, t);
	default:
		return 0;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: mroblind -t ADDR -q QPN,.. -Q QPN,.. -c CLASS [-n COUNT]\n"
			"                [-d SECS] [-p PORT] [-s SEED]\nclasses:");
	for (int i = 0; i < C_N; i++)
		fprintf(stderr, " %s", cls_name[i]);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	unsigned long count = 100000, sent = 0, errs = 0, seed = 1;
	int port = METAROCE_DEFAULT_UDP_PORT, c, npeer = 0, fd[N_SOCKS];
	int nfd = 0, i;
	enum cls cl = C_N;
	static uint8_t buf[BUF_LEN];
	struct target t = { .n = 0 };
	const char *dsts = NULL;
	double secs = 0, start;

	while ((c = getopt(argc, argv, "t:q:Q:c:n:d:p:s:")) != -1) {
		switch (c) {
		case 't': dsts = optarg; break;
		case 'q': t.n = mro_parse_list(optarg, t.qpn, MAX_QPS); break;
		case 'Q': npeer = mro_parse_list(optarg, t.peer, MAX_QPS); break;
		case 'c':
			for (cl = 0; cl < C_N; cl++)
				if (!strcmp(optarg, cls_name[cl]))
					break;
			break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'd': secs = atof(optarg); break;
		case 'p': port = atoi(optarg); break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!dsts || inet_pton(AF_INET, dsts, &dst.sin_addr) != 1 || !t.n ||
	    npeer != t.n || cl == C_N || secs < 0)
		usage();
	dst.sin_port = htons(port);
	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	for (i = 0; nfd < N_SOCKS && i < 256; i++) {
		int s = mro_open_sport(AF_INET, METAROCE_SPORT_BASE +
				  (rnd() & METAROCE_SPORT_MASK));

		if (s >= 0)
			fd[nfd++] = s;
	}
	if (!nfd) {
		fprintf(stderr, "mroblind: no source port in 512-1023 (root?)\n");
		return 1;
	}

	signal(SIGTERM, mro_on_stop);
	signal(SIGINT, mro_on_stop);
	start = mro_now_s();
	while (sent < count && !mro_stopped) {
		struct iovec iov = { .iov_base = buf };
		struct msghdr mh = {
			.msg_name = &dst, .msg_namelen = sizeof(dst),
			.msg_iov = &iov, .msg_iovlen = 1,
		};
		size_t len;
		uint32_t crc;
		int ce;

		/* pace: packet k goes out at start + k * secs / count */
		if (secs > 0 && !(sent % 32)) {
			double ahead = start + sent * secs / count - mro_now_s();

			if (ahead > 0)
				usleep(ahead * 1e6);
		}
		len = build(cl, buf, &t, &ce);
		crc = htobe32(mro_crc32c(buf, len));
		memcpy(buf + len, &crc, METAROCE_CRC_LEN);
		iov.iov_len = len + METAROCE_CRC_LEN;
		if (!mro_send_ce(fd[rnd() % nfd], &mh, ce, 0)) {
			if (++errs > count)
				break;	/* nothing goes out: give up */
			continue;
		}
		sent++;
	}
	printf("mroblind: class=%s sent=%lu errors=%lu seconds=%.1f\n",
	       cls_name[cl], sent, errs, mro_now_s() - start);
	return sent >= count ? 0 : 1;
}
