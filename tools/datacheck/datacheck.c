// SPDX-License-Identifier: GPL-2.0-only
/*
 * datacheck: RDMA data-integrity checker (libibverbs + librdmacm).
 *
 * A client opens N RC connections (rdma_cm, RDMA_PS_TCP, one QP each) to a
 * server and, per QP in its own thread, runs every operation type over a
 * list of sizes for a number of iterations (or a duration):
 *
 *   send, send_imm, write, write_imm, read, cas, fadd
 *
 * Payloads are deterministic patterns of (seed, qp, op, iteration, size,
 * byte offset).  Whoever receives the data checks every byte: the server
 * for SEND / WRITE (plus guard bytes around the target and the wc's
 * byte_len / imm / opcode), the client for READ (plus the gaps between its
 * scatter entries).  Atomics run 8 pipelined operations on one 64-bit word;
 * the client checks each returned old value against a model, the server the
 * final memory value.  The two sides run in lock step over small control
 * SENDs on the same QP; the server reports its findings in its replies.
 *
 * Last line on stdout:
 *   datacheck: role=client ops=N bytes=N mismatches=N errors=N ...
 * Exit status 0 only with zero mismatches and zero errors (error
 * completions, timeouts, connection or protocol failures).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define DC_MAGIC	0x44436b31u	/* "DCk1" */
#define MAX_QPS		64
#define MAX_SIZES	32
#define RECV_SLOTS	4
#define CLI_RECV_SLOTS	8
#define GUARD		64
#define WOFF_SPAN	4096
#define ATOM_SLOTS	64
#define ATOM_BURST	8
#define MAX_SGE		3
#define SGE_GAP		71
#define POISON		0xa5
#define MAX_REPORT	40

enum op {
	OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_CAS, OP_FADD,
	OP_COUNT
};
static const char *const op_names[OP_COUNT] = {
	"send", "send_imm", "write", "write_imm", "read", "cas", "fadd"
};

enum ctrl_type {
	C_EXPECT = 1,	/* client -> server: verify op (data follows/preceded) */
	C_PREP,		/* client -> server: prepare READ source / atomic word */
	C_VERIFY,	/* client -> server: check final atomic value */
	C_FIN,		/* client -> server: done */
	C_REPLY,	/* server -> client */
};

struct ctrl {
	uint32_t magic;
	uint32_t type;
	uint32_t seq;
	uint32_t op;
	uint32_t iter;
	uint32_t size;
	uint64_t off;
	uint64_t value;
	uint32_t imm;
	uint32_t status;	/* reply: 0 ok */
	uint64_t mismatches;	/* reply: found by the server for this step */
	uint64_t ops;		/* reply to FIN: server totals */
	uint64_t bytes;
	uint64_t errors;
	uint64_t total_mismatches;
};

struct cli_pdata {
	uint32_t magic;
	uint32_t qp_index;
	uint32_t nqp;
	uint32_t max_size;
	uint64_t seed;
};

struct srv_pdata {
	uint32_t magic;
	uint32_t rkey;
	uint64_t wbuf;
	uint64_t wlen;
	uint64_t atom;
};

struct stats {
	uint64_t ops, bytes, mismatches, errors, remote_mismatches;
	uint64_t op_bad[OP_COUNT];	/* steps with mismatches, by operation */
};

struct conn {
	int idx;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *mem;
	size_t memlen;
	uint32_t max_size;
	uint32_t max_inline;
	uint64_t seed;
	/* server layout */
	uint8_t *slot[RECV_SLOTS];
	size_t slot_len;
	unsigned int slot_posts;
	uint8_t *wbuf;
	size_t wlen;
	uint64_t *atom;
	size_t dirty_off, dirty_len;
	/* client layout */
	uint8_t *src, *dst;
	size_t srclen;
	uint8_t *crecv[CLI_RECV_SLOTS];
	uint64_t *ares;
	struct srv_pdata remote;
	/* both */
	struct ctrl *csend;
	/* completion bookkeeping */
	struct ibv_wc rq[32];
	unsigned int rq_head, rq_tail;
	int sq_expect[64];
	uint64_t sq_wrid[64];
	unsigned int sq_head, sq_tail;
	uint64_t next_wrid;
	uint32_t seq;
	int cur_op;
	int failed;
	int fin_done;	/* the FIN exchange ended (see await_disconnect) */
	int disconnected;	/* RDMA_CM_EVENT_DISCONNECTED seen */
	struct stats st;
	pthread_t thr;
};

static struct {
	int server;
	const char *host;
	const char *bind_addr;
	const char *port;
	int nqp;
	long iters;
	double duration;
	int timeout_s;
	uint32_t sizes[MAX_SIZES];
	int nsizes;
	int ops[OP_COUNT];
	int nops;
	uint64_t seed;
	int verbose;
	uint8_t ack_timeout;
	int no_inline;
	int max_sge;
	int fault;
} cfg = {
	.port = "18600", .nqp = 4, .iters = 3, .timeout_s = 60,
	.seed = 0x5eed, .ack_timeout = 18, .max_sge = MAX_SGE,
};

/* SIGTERM / SIGINT: every wait gives up, the summary line is still printed */
static volatile sig_atomic_t stop;
/* SIGUSR1: a -t run ends after the current iteration, as if its time was up */
static volatile sig_atomic_t finish_early;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		finish_early = 1;
	else
		stop = 1;
}

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long reported;
static double t_start;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void logmsg(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	fprintf(stderr, "[%8.3f] ", now() - t_start);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&out_lock);
}

#define vlog(...) do { if (cfg.verbose) logmsg(__VA_ARGS__); } while (0)

/* report the first MAX_REPORT mismatches in detail */
static void report(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	if (++reported <= MAX_REPORT) {
		fprintf(stderr, "[%8.3f] MISMATCH ", now() - t_start);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	} else if (reported == MAX_REPORT + 1) {
		fprintf(stderr, "(further mismatches not shown)\n");
	}
	pthread_mutex_unlock(&out_lock);
}

/* ---------------------------------------------------------------- patterns */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t pkey(uint64_t seed, int qp, int op, uint32_t iter, uint32_t size)
{
	return mix64(seed ^ mix64(((uint64_t)qp << 48) ^ ((uint64_t)op << 40) ^
				  ((uint64_t)iter << 20) ^ size));
}

static inline uint8_t pbyte(uint64_t key, size_t off)
{
	return (uint8_t)(mix64(key + (off >> 3)) >> ((off & 7) * 8));
}

/* fill buf with the message bytes [moff, moff+len) of pattern key */
static void pfill(uint8_t *buf, size_t len, uint64_t key, size_t moff)
{
	size_t i = 0;

	while (i < len) {
		size_t o = moff + i;
		uint64_t w = mix64(key + (o >> 3));
		unsigned int b;

		for (b = o & 7; b < 8 && i < len; b++, i++)
			buf[i] = (uint8_t)(w >> (b * 8));
	}
}

/* count bytes of buf that differ from the pattern; report the first few */
static uint64_t pcheck(const uint8_t *buf, size_t len, uint64_t key, size_t moff,
		       const char *what, int qp, int op, uint32_t iter, uint32_t size)
{
	uint64_t bad = 0;
	size_t i = 0, first = 0;

	while (i < len) {
		size_t o = moff + i;
		uint64_t w = mix64(key + (o >> 3));
		unsigned int b;

		for (b = o & 7; b < 8 && i < len; b++, i++) {
			if (buf[i] != (uint8_t)(w >> (b * 8))) {
				if (!bad)
					first = i;
				bad++;
			}
		}
	}
	if (bad)
		report("%s qp=%d op=%s iter=%u size=%u: %" PRIu64
		       " bytes differ, first at offset %zu (expected 0x%02x got 0x%02x)",
		       what, qp, op_names[op], iter, size, bad, moff + first,
		       pbyte(key, moff + first), buf[first]);
	return bad;
}

static uint64_t poison_check(const uint8_t *buf, size_t len, const char *what, int qp,
			     int op, uint32_t iter, uint32_t size)
{
	uint64_t bad = 0;
	size_t i, first = 0;

	for (i = 0; i < len; i++)
		if (buf[i] != POISON) {
			if (!bad)
				first = i;
			bad++;
		}
	if (bad)
		report("%s qp=%d op=%s iter=%u size=%u: %" PRIu64
		       " guard bytes overwritten, first at +%zu (got 0x%02x)",
		       what, qp, op_names[op], iter, size, bad, first, buf[first]);
	return bad;
}

static uint32_t imm_of(uint64_t seed, int qp, int op, uint32_t iter, uint32_t size)
{
	return htonl((uint32_t)mix64(pkey(seed, qp, op, iter, size) ^ 0x1111));
}

/* ----------------------------------------------------------- completions */

static void sq_push(struct conn *c, uint64_t wrid, int wcop)
{
	c->sq_wrid[c->sq_tail % 64] = wrid;
	c->sq_expect[c->sq_tail % 64] = wcop;
	c->sq_tail++;
}

static const char *wc_op_name(int op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_COMP_SWAP: return "COMP_SWAP";
	case IBV_WC_FETCH_ADD: return "FETCH_ADD";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "?";
	}
}

/* poll the CQ once, waiting up to ms; 0 ok (maybe nothing), -1 failure */
static int poll_cq(struct conn *c, int ms)
{
	struct ibv_wc wc[16];
	int n, i, tries;

	for (tries = 0; tries < 2; tries++) {
		n = ibv_poll_cq(c->cq, 16, wc);
		if (n < 0) {
			logmsg("qp %d: ibv_poll_cq failed: %d", c->idx, n);
			c->st.errors++;
			return -1;
		}
		if (n > 0)
			break;
		if (tries == 0) {
			struct pollfd pfd = { .fd = c->ch->fd, .events = POLLIN };
			struct ibv_cq *ecq;
			void *ectx;

			if (ibv_req_notify_cq(c->cq, 0)) {
				logmsg("qp %d: ibv_req_notify_cq failed", c->idx);
				c->st.errors++;
				return -1;
			}
			n = ibv_poll_cq(c->cq, 16, wc);
			if (n != 0) {
				if (n < 0) {
					c->st.errors++;
					return -1;
				}
				break;
			}
			if (poll(&pfd, 1, ms) <= 0)
				return 0;
			if (ibv_get_cq_event(c->ch, &ecq, &ectx) == 0)
				ibv_ack_cq_events(ecq, 1);
		}
	}
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			logmsg("qp %d: error completion: %s (%d) wr_id=%" PRIu64
			       " opcode=%d vendor_err=0x%x", c->idx,
			       ibv_wc_status_str(wc[i].status), wc[i].status,
			       wc[i].wr_id, wc[i].opcode, wc[i].vendor_err);
			c->st.errors++;
			c->failed = 1;
			continue;
		}
		if (wc[i].opcode & IBV_WC_RECV) {
			if (c->rq_tail - c->rq_head >= 32) {
				logmsg("qp %d: receive queue overflow", c->idx);
				c->st.errors++;
				c->failed = 1;
				continue;
			}
			c->rq[c->rq_tail++ % 32] = wc[i];
		} else {
			unsigned int h = c->sq_head % 64;

			if (c->sq_head == c->sq_tail) {
				logmsg("qp %d: unexpected send completion wr_id=%" PRIu64,
				       c->idx, wc[i].wr_id);
				c->st.mismatches++;
				continue;
			}
			if (wc[i].wr_id != c->sq_wrid[h] ||
			    (int)wc[i].opcode != c->sq_expect[h]) {
				report("qp=%d send completion out of order or wrong opcode: wr_id=%"
				       PRIu64 " opcode=%s, expected wr_id=%" PRIu64 " opcode=%s",
				       c->idx, wc[i].wr_id, wc_op_name(wc[i].opcode),
				       c->sq_wrid[h], wc_op_name(c->sq_expect[h]));
				c->st.mismatches++;
			}
			c->sq_head++;
		}
	}
	return c->failed ? -1 : 0;
}

static int wait_sends(struct conn *c)
{
	double end = now() + cfg.timeout_s;

	while (c->sq_head != c->sq_tail) {
		if (poll_cq(c, 100))
			return -1;
		if (c->sq_head != c->sq_tail && (now() > end || stop)) {
			logmsg("qp %d: %s waiting for %u send completion(s)", c->idx,
			       stop ? "interrupted" : "timeout", c->sq_tail - c->sq_head);
			c->st.errors++;
			c->failed = 1;
			return -1;
		}
	}
	return 0;
}

static int wait_recv(struct conn *c, struct ibv_wc *wc, int timeout_s)
{
	double end = now() + timeout_s;

	while (c->rq_head == c->rq_tail) {
		if (poll_cq(c, 100))
			return -1;
		if (c->rq_head == c->rq_tail && (now() > end || stop)) {
			logmsg("qp %d: %s waiting for a receive completion", c->idx,
			       stop ? "interrupted" : "timeout");
			c->st.errors++;
			c->failed = 1;
			return -1;
		}
	}
	*wc = c->rq[c->rq_head++ % 32];
	return 0;
}

static int post_send(struct conn *c, struct ibv_send_wr *wr, int wcop)
{
	struct ibv_send_wr *bad;
	int ret;

	wr->wr_id = ++c->next_wrid;
	wr->send_flags |= IBV_SEND_SIGNALED;
	ret = ibv_post_send(c->id->qp, wr, &bad);
	if (ret) {
		logmsg("qp %d: ibv_post_send failed: %s", c->idx, strerror(ret));
		c->st.errors++;
		c->failed = 1;
		return -1;
	}
	sq_push(c, wr->wr_id, wcop);
	return 0;
}

static int send_ctrl(struct conn *c, const struct ctrl *m)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->csend, .length = sizeof(*m), .lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	};

	*c->csend = *m;
	c->csend->magic = DC_MAGIC;
	return post_send(c, &wr, IBV_WC_SEND);
}

/* ------------------------------------------------------------------ server */

static void srv_post_slot(struct conn *c, int s)
{
	struct ibv_sge sge[3];
	struct ibv_recv_wr wr = { .wr_id = s, .sg_list = sge }, *bad;
	size_t len = c->slot_len;
	int ret;

	/* every other post scatters into 3 pieces (contiguous in memory) */
	if ((c->slot_posts++ & 1) && len >= 3 && cfg.max_sge >= 3) {
		size_t a = len / 5 + 1, b = len / 3;

		sge[0] = (struct ibv_sge){ (uintptr_t)c->slot[s], a, c->mr->lkey };
		sge[1] = (struct ibv_sge){ (uintptr_t)c->slot[s] + a, b, c->mr->lkey };
		sge[2] = (struct ibv_sge){ (uintptr_t)c->slot[s] + a + b, len - a - b,
					   c->mr->lkey };
		wr.num_sge = 3;
	} else {
		sge[0] = (struct ibv_sge){ (uintptr_t)c->slot[s], len, c->mr->lkey };
		wr.num_sge = 1;
	}
	ret = ibv_post_recv(c->id->qp, &wr, &bad);
	if (ret) {
		logmsg("qp %d: ibv_post_recv failed: %s", c->idx, strerror(ret));
		c->st.errors++;
		c->failed = 1;
	}
}

static int srv_setup(struct conn *c)
{
	size_t slot_len = c->max_size > sizeof(struct ctrl) ? c->max_size : sizeof(struct ctrl);
	size_t slot_stride = (slot_len + GUARD + 63) & ~(size_t)63;
	size_t wlen = GUARD + WOFF_SPAN + c->max_size + GUARD;
	size_t off = 0;
	int i;

	c->slot_len = slot_len;
	c->memlen = RECV_SLOTS * slot_stride + ((wlen + 63) & ~(size_t)63) +
		    ATOM_SLOTS * 8 + 64 + 4096;
	if (posix_memalign((void **)&c->mem, 4096, c->memlen))
		return -1;
	memset(c->mem, POISON, c->memlen);
	for (i = 0; i < RECV_SLOTS; i++, off += slot_stride)
		c->slot[i] = c->mem + off;
	c->wbuf = c->mem + off;
	c->wlen = wlen;
	off += (wlen + 63) & ~(size_t)63;
	c->atom = (uint64_t *)(c->mem + off);
	off += ATOM_SLOTS * 8;
	c->csend = (struct ctrl *)(c->mem + off);
	c->mr = ibv_reg_mr(c->pd, c->mem, c->memlen,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!c->mr) {
		logmsg("qp %d: ibv_reg_mr(%zu) failed: %s", c->idx, c->memlen, strerror(errno));
		return -1;
	}
	for (i = 0; i < RECV_SLOTS; i++)
		srv_post_slot(c, i);
	return c->failed ? -1 : 0;
}

/* verify a received message in slot s against step m; returns mismatches */
static uint64_t srv_check_recv(struct conn *c, const struct ibv_wc *wc, const struct ctrl *m)
{
	int op = m->op, qp = c->idx;
	uint64_t bad = 0, key = pkey(c->seed, qp, op, m->iter, m->size);
	int want_op = op == OP_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	int want_imm = op != OP_SEND;
	uint32_t imm = imm_of(c->seed, qp, op, m->iter, m->size);

	if ((int)wc->opcode != want_op) {
		report("recv qp=%d op=%s iter=%u size=%u: wc opcode %s, expected %s", qp,
		       op_names[op], m->iter, m->size, wc_op_name(wc->opcode),
		       wc_op_name(want_op));
		bad++;
	}
	if (!!(wc->wc_flags & IBV_WC_WITH_IMM) != want_imm ||
	    (want_imm && wc->imm_data != imm)) {
		report("recv qp=%d op=%s iter=%u size=%u: imm flag %d value 0x%08x, expected %d 0x%08x",
		       qp, op_names[op], m->iter, m->size, !!(wc->wc_flags & IBV_WC_WITH_IMM),
		       ntohl(wc->imm_data), want_imm, ntohl(imm));
		bad++;
	}
	if (wc->byte_len != m->size) {
		report("recv qp=%d op=%s iter=%u size=%u: byte_len %u", qp, op_names[op],
		       m->iter, m->size, wc->byte_len);
		bad++;
	}
	if (op == OP_WRITE_IMM) {
		uint8_t *p = c->wbuf + m->off;

		bad += pcheck(p, m->size, key, 0, "write_imm-data", qp, op, m->iter, m->size);
		bad += poison_check(p - GUARD, GUARD, "write_imm-guard-before", qp, op, m->iter, m->size);
		bad += poison_check(p + m->size, GUARD, "write_imm-guard-after", qp, op, m->iter, m->size);
		memset(p - GUARD, POISON, m->size + 2 * GUARD);
		if (wc->wr_id < RECV_SLOTS)	/* the receive buffer stays untouched */
			bad += poison_check(c->slot[wc->wr_id], m->size < 64 ? m->size : 64,
					    "write_imm-recv-buffer", qp, op, m->iter, m->size);
	} else if (wc->wr_id < RECV_SLOTS) {
		uint8_t *p = c->slot[wc->wr_id];

		bad += pcheck(p, m->size, key, 0, "send-data", qp, op, m->iter, m->size);
		bad += poison_check(p + c->slot_len, GUARD, "send-guard-after", qp, op, m->iter,
				    m->size);
		if (m->size < c->slot_len)
			bad += poison_check(p + m->size, c->slot_len - m->size < GUARD ?
					    c->slot_len - m->size : GUARD, "send-beyond-length",
					    qp, op, m->iter, m->size);
		memset(p, POISON, m->size);
	}
	return bad;
}

static void *srv_thread(void *arg)
{
	struct conn *c = arg;
	struct ctrl m, r;
	struct ibv_wc wc, wc2;

	for (;;) {
		uint64_t bad = 0;

		if (wait_recv(c, &wc, cfg.timeout_s * 3))
			break;
		if (wc.wr_id >= RECV_SLOTS || wc.byte_len != sizeof(m) ||
		    (wc.wc_flags & IBV_WC_WITH_IMM)) {
			logmsg("qp %d: protocol error: expected a control message, got %s len %u",
			       c->idx, wc_op_name(wc.opcode), wc.byte_len);
			c->st.errors++;
			break;
		}
		memcpy(&m, c->slot[wc.wr_id], sizeof(m));
		memset(c->slot[wc.wr_id], POISON, sizeof(m));
		srv_post_slot(c, wc.wr_id);
		if (m.magic != DC_MAGIC) {
			logmsg("qp %d: protocol error: bad magic 0x%08x", c->idx, m.magic);
			c->st.errors++;
			break;
		}
		if (c->dirty_len) {	/* READ source from the previous step */
			memset(c->wbuf + c->dirty_off, POISON, c->dirty_len);
			c->dirty_len = 0;
		}
		memset(&r, 0, sizeof(r));
		r.type = C_REPLY;
		r.seq = m.seq;
		if (m.type == C_FIN) {
			r.ops = c->st.ops;
			r.bytes = c->st.bytes;
			r.errors = c->st.errors;
			r.total_mismatches = c->st.mismatches;
			/*
			 * The client keeps its QP until we disconnect.  Were
			 * it gone as soon as the reply arrived, a lost ACK
			 * would leave the reply retried to nobody: the send
			 * fails after the retries (seconds with our timeout),
			 * or never completes where retry_count 7 means
			 * forever (rxe).
			 */
			if (send_ctrl(c, &r) == 0 && wait_sends(c) == 0) {
				c->fin_done = 1;
				rdma_disconnect(c->id);
			}
			vlog("qp %d: FIN", c->idx);
			break;
		}
		if (m.op >= OP_COUNT ||
		    (m.op == OP_CAS || m.op == OP_FADD ? m.off >= ATOM_SLOTS :
		     m.size > c->max_size || m.off < GUARD || m.off + m.size + GUARD > c->wlen)) {
			logmsg("qp %d: protocol error: bad step op=%u size=%u off=%" PRIu64,
			       c->idx, m.op, m.size, m.off);
			c->st.errors++;
			break;
		}
		if (m.type == C_EXPECT) {
			uint64_t key = pkey(c->seed, c->idx, m.op, m.iter, m.size);

			switch (m.op) {
			case OP_SEND:
			case OP_SEND_IMM:
			case OP_WRITE_IMM:
				if (wait_recv(c, &wc2, cfg.timeout_s))
					goto out;
				bad = srv_check_recv(c, &wc2, &m);
				if (wc2.wr_id < RECV_SLOTS)
					srv_post_slot(c, wc2.wr_id);
				break;
			case OP_WRITE: {
				uint8_t *p = c->wbuf + m.off;

				bad += pcheck(p, m.size, key, 0, "write-data", c->idx, m.op, m.iter,
					      m.size);
				bad += poison_check(p - GUARD, GUARD, "write-guard-before", c->idx,
						    m.op, m.iter, m.size);
				bad += poison_check(p + m.size, GUARD, "write-guard-after", c->idx,
						    m.op, m.iter, m.size);
				memset(p - GUARD, POISON, m.size + 2 * GUARD);
				break;
			}
			default:
				logmsg("qp %d: protocol error: EXPECT for op %u", c->idx, m.op);
				c->st.errors++;
				goto out;
			}
			c->st.ops++;
			c->st.bytes += m.size;
		} else if (m.type == C_PREP) {
			if (m.op == OP_READ) {
				pfill(c->wbuf + m.off, m.size,
				      pkey(c->seed, c->idx, m.op, m.iter, m.size), 0);
				c->dirty_off = m.off;
				c->dirty_len = m.size;
			} else {
				c->atom[m.off] = m.value;
			}
		} else if (m.type == C_VERIFY) {
			if (c->atom[m.off] != m.value) {
				report("atomic-final qp=%d op=%s iter=%u: memory 0x%016" PRIx64
				       ", model 0x%016" PRIx64, c->idx, op_names[m.op], m.iter,
				       c->atom[m.off], m.value);
				bad++;
			}
			c->st.ops++;
		}
		r.mismatches = bad;
		c->st.mismatches += bad;
		if (bad && m.op < OP_COUNT)
			c->st.op_bad[m.op]++;
		if (send_ctrl(c, &r) || wait_sends(c))
			break;
	}
out:
	return NULL;
}

/* ------------------------------------------------------------------ client */

static void cli_post_ctrl_recv(struct conn *c, int s)
{
	struct ibv_sge sge = {
		(uintptr_t)c->crecv[s], sizeof(struct ctrl), c->mr->lkey
	};
	struct ibv_recv_wr wr = { .wr_id = s, .sg_list = &sge, .num_sge = 1 }, *bad;
	int ret = ibv_post_recv(c->id->qp, &wr, &bad);

	if (ret) {
		logmsg("qp %d: ibv_post_recv failed: %s", c->idx, strerror(ret));
		c->st.errors++;
		c->failed = 1;
	}
}

static int cli_setup(struct conn *c)
{
	size_t srclen = (size_t)c->max_size + MAX_SGE * (SGE_GAP + 64) + 64;
	size_t stride = (srclen + 63) & ~(size_t)63;
	size_t off = 0;
	int i;

	c->srclen = srclen;
	c->memlen = 2 * stride + CLI_RECV_SLOTS * 128 + 128 + ATOM_BURST * 8 + 4096;
	if (posix_memalign((void **)&c->mem, 4096, c->memlen))
		return -1;
	memset(c->mem, POISON, c->memlen);
	c->src = c->mem;
	c->dst = c->mem + stride;
	off = 2 * stride;
	for (i = 0; i < CLI_RECV_SLOTS; i++, off += 128)
		c->crecv[i] = c->mem + off;
	c->csend = (struct ctrl *)(c->mem + off);
	off += 128;
	c->ares = (uint64_t *)(c->mem + off);
	c->mr = ibv_reg_mr(c->pd, c->mem, c->memlen, IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr) {
		logmsg("qp %d: ibv_reg_mr(%zu) failed: %s", c->idx, c->memlen, strerror(errno));
		return -1;
	}
	for (i = 0; i < CLI_RECV_SLOTS; i++)
		cli_post_ctrl_recv(c, i);
	return c->failed ? -1 : 0;
}

/*
 * Split a message of len bytes into nsge pieces placed in buf with SGE_GAP
 * bytes of untouched space between them.  Fills sge[] and returns the count.
 */
static int layout_sges(struct conn *c, uint8_t *buf, uint32_t len, int nsge,
		       struct ibv_sge *sge)
{
	uint32_t done = 0, piece;
	size_t pos = 0;
	int i;

	if ((uint32_t)nsge > len)
		nsge = len ? (int)len : 1;
	for (i = 0; i < nsge; i++) {
		piece = i == nsge - 1 ? len - done : len / nsge + (i == 0 ? len % nsge : 0);
		sge[i].addr = (uintptr_t)(buf + pos);
		sge[i].length = piece;
		sge[i].lkey = c->mr->lkey;
		pos += piece + SGE_GAP;
		done += piece;
	}
	return nsge;
}

static int cli_reply(struct conn *c, uint32_t seq, struct ctrl *r)
{
	struct ibv_wc wc;

	if (wait_recv(c, &wc, cfg.timeout_s))
		return -1;
	if (wc.wr_id >= CLI_RECV_SLOTS || wc.byte_len != sizeof(*r)) {
		logmsg("qp %d: protocol error: reply len %u", c->idx, wc.byte_len);
		c->st.errors++;
		c->failed = 1;
		return -1;
	}
	memcpy(r, c->crecv[wc.wr_id], sizeof(*r));
	cli_post_ctrl_recv(c, wc.wr_id);
	if (r->magic != DC_MAGIC || r->type != C_REPLY || r->seq != seq) {
		logmsg("qp %d: protocol error: reply magic 0x%x type %u seq %u (want %u)",
		       c->idx, r->magic, r->type, r->seq, seq);
		c->st.errors++;
		c->failed = 1;
		return -1;
	}
	if (r->mismatches) {
		c->st.remote_mismatches += r->mismatches;
		if (r->type == C_REPLY && c->cur_op < OP_COUNT)
			c->st.op_bad[c->cur_op]++;
	}
	return 0;
}

static int cli_data_step(struct conn *c, int op, uint32_t iter, int si)
{
	uint32_t size = cfg.sizes[si];
	uint64_t key = pkey(c->seed, c->idx, op, iter, size);
	struct ctrl m = { .type = C_EXPECT, .op = op, .iter = iter, .size = size };
	struct ctrl r;
	struct ibv_sge sge[MAX_SGE];
	struct ibv_send_wr wr = { .sg_list = sge };
	int nsge = 1 + (int)((iter + si + op) % (unsigned int)cfg.max_sge), i, wcop;
	uint32_t seq = ++c->seq;

	c->cur_op = op;

	m.seq = seq;
	m.off = GUARD + (iter * 131u + si * 17u + op * 5u) % WOFF_SPAN;
	if (op == OP_READ) {
		struct ctrl p = m;

		p.type = C_PREP;
		if (send_ctrl(c, &p) || wait_sends(c) || cli_reply(c, seq, &r))
			return -1;
		seq = m.seq = ++c->seq;
	}

	nsge = layout_sges(c, op == OP_READ ? c->dst : c->src, size, nsge, sge);
	wr.num_sge = nsge;
	if (op != OP_READ)
		for (i = 0; i < nsge; i++)
			pfill((uint8_t *)(uintptr_t)sge[i].addr, sge[i].length, key,
			      sge[i].addr - sge[0].addr - (size_t)i * SGE_GAP);
	/* -F: self-test, one wrong byte per step on QP 0, iteration 0 */
	if (cfg.fault && c->idx == 0 && iter == 0 && op != OP_READ)
		((uint8_t *)(uintptr_t)sge[nsge - 1].addr)[sge[nsge - 1].length - 1] ^= 0x40;
	if (size <= c->max_inline && op != OP_READ && (iter & 1) == 0 && !cfg.no_inline)
		wr.send_flags = IBV_SEND_INLINE;

	switch (op) {
	case OP_SEND:
		wr.opcode = IBV_WR_SEND;
		wcop = IBV_WC_SEND;
		break;
	case OP_SEND_IMM:
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wcop = IBV_WC_SEND;
		break;
	case OP_WRITE:
		wr.opcode = IBV_WR_RDMA_WRITE;
		wcop = IBV_WC_RDMA_WRITE;
		break;
	case OP_WRITE_IMM:
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wcop = IBV_WC_RDMA_WRITE;
		break;
	default:
		wr.opcode = IBV_WR_RDMA_READ;
		wcop = IBV_WC_RDMA_READ;
		break;
	}
	if (op == OP_SEND_IMM || op == OP_WRITE_IMM)
		wr.imm_data = imm_of(c->seed, c->idx, op, iter, size);
	if (op == OP_WRITE || op == OP_WRITE_IMM || op == OP_READ) {
		wr.wr.rdma.remote_addr = c->remote.wbuf + m.off;
		wr.wr.rdma.rkey = c->remote.rkey;
	}
	if (op == OP_READ)	/* the gaps and the space behind stay poisoned */
		memset(c->dst, POISON, size + MAX_SGE * SGE_GAP + GUARD);

	vlog("qp %d: %s iter %u size %u sges %d%s off %" PRIu64, c->idx, op_names[op], iter,
	     size, nsge, wr.send_flags & IBV_SEND_INLINE ? " inline" : "", m.off);
	/* messages that consume a receive are announced first; WRITE after */
	if (op == OP_SEND || op == OP_SEND_IMM || op == OP_WRITE_IMM) {
		if (send_ctrl(c, &m) || post_send(c, &wr, wcop))
			return -1;
	} else if (op == OP_WRITE) {
		if (post_send(c, &wr, wcop) || send_ctrl(c, &m))
			return -1;
	} else if (post_send(c, &wr, wcop)) {
		return -1;
	}
	if (wait_sends(c))
		return -1;
	c->st.ops++;
	c->st.bytes += size;
	if (op == OP_READ) {
		uint64_t bad = 0;
		uint8_t *end = c->dst;

		if (cfg.fault && c->idx == 0 && iter == 0)
			c->dst[0] ^= 0x40;
		for (i = 0; i < nsge; i++) {
			uint8_t *p = (uint8_t *)(uintptr_t)sge[i].addr;

			bad += pcheck(p, sge[i].length, key, p - c->dst - (size_t)i * SGE_GAP,
				      "read-data", c->idx, op, iter, size);
			bad += poison_check(p + sge[i].length, SGE_GAP, "read-gap", c->idx, op,
					    iter, size);
			end = p + sge[i].length + SGE_GAP;
		}
		bad += poison_check(end, GUARD, "read-beyond", c->idx, op, iter, size);
		c->st.mismatches += bad;
		if (bad)
			c->st.op_bad[op]++;
		return 0;	/* no round trip: the next step's control resets the source */
	}
	return cli_reply(c, seq, &r);
}

static int cli_atomic_step(struct conn *c, int op, uint32_t iter)
{
	uint64_t key = pkey(c->seed, c->idx, op, iter, 8);
	uint64_t model = mix64(key), expect_old[ATOM_BURST];
	uint32_t slot = (iter * 7u + op + c->idx) % ATOM_SLOTS;
	struct ctrl m = { .type = C_PREP, .op = op, .iter = iter, .size = 8, .off = slot,
			  .value = model };
	struct ctrl r;
	uint64_t bad = 0;
	int i;

	c->cur_op = op;
	/* atomic words live in their own area on the server: off is a slot index */
	m.seq = ++c->seq;
	if (send_ctrl(c, &m) || wait_sends(c) || cli_reply(c, m.seq, &r))
		return -1;

	memset(c->ares, POISON, ATOM_BURST * 8);
	for (i = 0; i < ATOM_BURST; i++) {
		struct ibv_sge sge = { (uintptr_t)&c->ares[i], 8, c->mr->lkey };
		struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1 };
		uint64_t v = mix64(key + 100 + i);

		wr.wr.atomic.remote_addr = c->remote.atom + slot * 8;
		wr.wr.atomic.rkey = c->remote.rkey;
		expect_old[i] = model;
		if (op == OP_CAS) {
			/* every third compare is meant to fail */
			wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
			wr.wr.atomic.compare_add = i % 3 == 1 ? model ^ (1ull << (i * 7)) : model;
			wr.wr.atomic.swap = v;
			if (wr.wr.atomic.compare_add == model)
				model = v;
		} else {
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.compare_add = i & 1 ? v : (v & 0xff);
			model += wr.wr.atomic.compare_add;
		}
		if (post_send(c, &wr, op == OP_CAS ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD))
			return -1;
	}
	if (wait_sends(c))
		return -1;
	for (i = 0; i < ATOM_BURST; i++) {
		c->st.ops++;
		c->st.bytes += 8;
		if (c->ares[i] != expect_old[i]) {
			report("atomic-old qp=%d op=%s iter=%u #%d: returned 0x%016" PRIx64
			       ", model 0x%016" PRIx64, c->idx, op_names[op], iter, i,
			       c->ares[i], expect_old[i]);
			bad++;
		}
	}
	c->st.mismatches += bad;
	if (bad)
		c->st.op_bad[op]++;
	m.type = C_VERIFY;
	m.value = model ^ (cfg.fault && c->idx == 0 && iter == 0);
	m.seq = ++c->seq;
	if (send_ctrl(c, &m) || wait_sends(c) || cli_reply(c, m.seq, &r))
		return -1;
	return 0;
}

static void *cli_thread(void *arg)
{
	struct conn *c = arg;
	double end = cfg.duration > 0 ? now() + cfg.duration : 0;
	uint32_t iter;
	struct ctrl m = { .type = C_FIN, .seq = 0x7fffffff }, r;

	c->cur_op = OP_COUNT;

	for (iter = 0; ; iter++) {
		int oi, si;

		if (end ? now() >= end || (finish_early && iter) : iter >= cfg.iters)
			break;
		for (oi = 0; oi < cfg.nops; oi++) {
			int op = cfg.ops[oi];

			if (op == OP_CAS || op == OP_FADD) {
				if (cli_atomic_step(c, op, iter))
					goto fail;
				continue;
			}
			for (si = 0; si < cfg.nsizes; si++)
				if (cli_data_step(c, op, iter, si))
					goto fail;
		}
		vlog("qp %d: iteration %u done (ops %" PRIu64 ")", c->idx, iter, c->st.ops);
	}
	/*
	 * The reply proves that the FIN arrived: do not wait for its send
	 * completion, whose ACK may be lost after the server has gone.
	 */
	if (send_ctrl(c, &m) || cli_reply(c, m.seq, &r))
		goto fail;
	c->fin_done = 1;
	vlog("qp %d: server: ops=%" PRIu64 " bytes=%" PRIu64 " mismatches=%" PRIu64
	     " errors=%" PRIu64, c->idx, r.ops, r.bytes, r.total_mismatches, r.errors);
	if (r.errors) {
		logmsg("qp %d: server reports %" PRIu64 " error(s)", c->idx, r.errors);
		c->st.errors += r.errors;
	}
	return NULL;
fail:
	logmsg("qp %d: aborted after %" PRIu64 " ops", c->idx, c->st.ops);
	if (!c->st.errors)
		c->st.errors++;
	return NULL;
}

/* -------------------------------------------------------- connection setup */

static struct ibv_pd *shared_pd;
static struct ibv_context *shared_ctx;

static int setup_qp(struct conn *c, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa;
	struct ibv_device_attr da;
	int inl;

	c->id = id;
	id->context = c;
	if (!shared_pd) {
		shared_ctx = id->verbs;
		shared_pd = ibv_alloc_pd(id->verbs);
		if (!shared_pd) {
			logmsg("ibv_alloc_pd failed");
			return -1;
		}
	} else if (shared_ctx != id->verbs) {
		logmsg("connections on different devices are not supported");
		return -1;
	}
	if (ibv_query_device(id->verbs, &da) == 0 && da.max_sge < cfg.max_sge)
		cfg.max_sge = da.max_sge;
	c->pd = shared_pd;
	c->ch = ibv_create_comp_channel(id->verbs);
	if (!c->ch)
		return -1;
	c->cq = ibv_create_cq(id->verbs, 128, c, c->ch, 0);
	if (!c->cq) {
		logmsg("ibv_create_cq failed: %s", strerror(errno));
		return -1;
	}
	for (inl = cfg.no_inline ? 0 : 64; ; inl = 0) {
		memset(&qa, 0, sizeof(qa));
		qa.send_cq = qa.recv_cq = c->cq;
		qa.qp_type = IBV_QPT_RC;
		qa.cap.max_send_wr = 32;
		qa.cap.max_recv_wr = 16;
		qa.cap.max_send_sge = MAX_SGE;
		qa.cap.max_recv_sge = MAX_SGE;
		qa.cap.max_inline_data = inl;
		if (rdma_create_qp(id, c->pd, &qa) == 0)
			break;
		if (!inl) {
			logmsg("rdma_create_qp failed: %s", strerror(errno));
			return -1;
		}
		vlog("rdma_create_qp with inline %d failed, retrying without", inl);
	}
	c->max_inline = qa.cap.max_inline_data;
	return 0;
}

static void fill_conn_param(struct rdma_conn_param *p, const void *pd, int len,
			    struct ibv_context *ctx)
{
	struct ibv_device_attr da;
	int depth = 8;

	if (ibv_query_device(ctx, &da) == 0) {
		if (da.max_qp_rd_atom < depth)
			depth = da.max_qp_rd_atom;
		if (da.max_qp_init_rd_atom < depth)
			depth = da.max_qp_init_rd_atom;
	}
	memset(p, 0, sizeof(*p));
	p->private_data = pd;
	p->private_data_len = len;
	p->responder_resources = depth;
	p->initiator_depth = depth;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static int get_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev, int timeout_s)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	double end = now() + timeout_s;
	int ret = 0;

	while (!stop && now() < end) {
		ret = poll(&pfd, 1, 200);
		if (ret > 0)
			break;
	}
	if (ret <= 0) {
		logmsg("%s waiting for a connection manager event",
		       stop ? "interrupted" : "timeout");
		return -1;
	}
	if (rdma_get_cm_event(ch, ev)) {
		logmsg("rdma_get_cm_event: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* wait for event want; copy up to pdlen bytes of its private data to pd */
static int wait_event(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		      void *pd, size_t pdlen)
{
	struct rdma_cm_event *ev;

	if (get_event(ch, &ev, cfg.timeout_s))
		return -1;
	if (ev->event != want) {
		logmsg("rdma_cm: got %s (status %d), wanted %s", rdma_event_str(ev->event),
		       ev->status, rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (pd) {
		if (!ev->param.conn.private_data || ev->param.conn.private_data_len < pdlen) {
			logmsg("rdma_cm: %s without the expected private data",
			       rdma_event_str(want));
			rdma_ack_cm_event(ev);
			return -1;
		}
		memcpy(pd, ev->param.conn.private_data, pdlen);
	}
	rdma_ack_cm_event(ev);
	return 0;
}

static int resolve(const char *host, const char *port, struct sockaddr_storage *ss, int passive)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
	int ret;

	if (passive)
		hints.ai_flags = AI_PASSIVE;
	ret = getaddrinfo(host, port, &hints, &ai);
	if (ret) {
		logmsg("getaddrinfo(%s): %s", host ? host : "*", gai_strerror(ret));
		return -1;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

static void sum_stats(struct conn *conns, int n, struct stats *t)
{
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		t->ops += conns[i].st.ops;
		t->bytes += conns[i].st.bytes;
		t->mismatches += conns[i].st.mismatches + conns[i].st.remote_mismatches;
		t->errors += conns[i].st.errors;
	}
}

static int finish(const char *role, struct conn *conns, int n, int extra_errors)
{
	struct stats t;
	double el = now() - t_start;

	sum_stats(conns, n, &t);
	t.errors += extra_errors;
	if (t.mismatches) {
		int o, i;

		printf("datacheck: role=%s steps with mismatches by op:", role);
		for (o = 0; o < OP_COUNT; o++) {
			uint64_t k = 0;

			for (i = 0; i < n; i++)
				k += conns[i].st.op_bad[o];
			printf(" %s=%" PRIu64, op_names[o], k);
		}
		printf("\n");
	}
	printf("datacheck: role=%s qps=%d ops=%" PRIu64 " bytes=%" PRIu64 " mismatches=%" PRIu64
	       " errors=%" PRIu64 " seconds=%.1f\n", role, n, t.ops, t.bytes, t.mismatches,
	       t.errors, el);
	fflush(stdout);
	return t.mismatches || t.errors ? 1 : 0;
}

/* ev is a DISCONNECTED event: mark its QP; the QP if newly marked, else NULL */
static struct conn *mark_disconnected(struct rdma_cm_event *ev)
{
	struct conn *c = ev->id->context;

	if (!c || c->disconnected)
		return NULL;
	c->disconnected = 1;
	return c;
}

/*
 * Wait for the disconnect of every QP whose FIN exchange ended.  The
 * client waits for the server's disconnect, which comes once our ACK of
 * its last reply reached it; the server for its own disconnect to be
 * answered (or to time out), so that a lost DREQ is sent again rather than
 * dropped with the exiting process.  Not getting there is not an error of
 * this side: the server reports a reply that did not complete.
 */
static void await_disconnect(struct rdma_event_channel *ch, struct conn *conns, int n)
{
	double end = now() + cfg.timeout_s;
	int i, want = 0;

	for (i = 0; i < n; i++)
		want += conns[i].fin_done && !conns[i].disconnected;
	while (want > 0 && now() < end) {
		struct rdma_cm_event *ev;
		struct conn *c = NULL;

		if (get_event(ch, &ev, (int)(end - now()) + 1))
			break;
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			c = mark_disconnected(ev);
		if (c)
			want -= c->fin_done;
		else
			vlog("rdma_cm: %s while waiting for disconnects",
			     rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
	}
	if (want > 0)
		logmsg("%d QP(s) not disconnected in time", want);
}

static int run_server(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *listen_id;
	struct sockaddr_storage ss;
	static struct conn conns[MAX_QPS];
	int nconn = 0, established = 0, nqp = -1, extra = 0, i;
	struct srv_pdata sp[MAX_QPS];

	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP)) {
		logmsg("rdma_create_id: %s", strerror(errno));
		return 1;
	}
	if (resolve(cfg.bind_addr, cfg.port, &ss, 1))
		return 1;
	if (rdma_bind_addr(listen_id, (struct sockaddr *)&ss) || rdma_listen(listen_id, MAX_QPS)) {
		logmsg("rdma_bind_addr/listen: %s", strerror(errno));
		return 1;
	}
	printf("datacheck: server listening on port %s\n", cfg.port);
	fflush(stdout);

	while (nqp < 0 || established < nqp) {
		struct rdma_cm_event *ev;
		/* the first client may take a while; afterwards use the normal timeout */
		int to = nconn ? cfg.timeout_s : cfg.timeout_s * 10;

		if (get_event(ch, &ev, to)) {
			extra++;
			goto done;
		}
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			const struct cli_pdata *cp = ev->param.conn.private_data;
			struct rdma_cm_id *id = ev->id;
			struct rdma_conn_param par;
			struct conn *c;

			if (!cp || ev->param.conn.private_data_len < sizeof(*cp) ||
			    cp->magic != DC_MAGIC || cp->qp_index >= MAX_QPS ||
			    cp->nqp > MAX_QPS || (nqp >= 0 && cp->nqp != (uint32_t)nqp) ||
			    nconn >= MAX_QPS) {
				logmsg("rejecting a connection with bad private data");
				rdma_reject(id, NULL, 0);
				rdma_ack_cm_event(ev);
				continue;
			}
			nqp = cp->nqp;
			c = &conns[nconn];
			c->idx = cp->qp_index;
			c->max_size = cp->max_size;
			c->seed = cp->seed;
			if (setup_qp(c, id) || srv_setup(c)) {
				rdma_reject(id, NULL, 0);
				rdma_ack_cm_event(ev);
				extra++;
				goto done;
			}
			sp[nconn] = (struct srv_pdata){
				.magic = DC_MAGIC, .rkey = c->mr->rkey,
				.wbuf = (uintptr_t)c->wbuf, .wlen = c->wlen,
				.atom = (uintptr_t)c->atom,
			};
			fill_conn_param(&par, &sp[nconn], sizeof(sp[0]), id->verbs);
			nconn++;
			if (rdma_accept(id, &par)) {
				logmsg("rdma_accept: %s", strerror(errno));
				rdma_ack_cm_event(ev);
				extra++;
				goto done;
			}
			vlog("accepted qp index %d (%d of %d)", c->idx, nconn, nqp);
		} else if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
			struct conn *c = ev->id->context;

			established++;
			pthread_create(&c->thr, NULL, srv_thread, c);
		} else {
			logmsg("rdma_cm: unexpected %s (status %d)", rdma_event_str(ev->event),
			       ev->status);
			if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
				mark_disconnected(ev);
			} else {
				rdma_ack_cm_event(ev);
				extra++;
				goto done;
			}
		}
		rdma_ack_cm_event(ev);
	}
	logmsg("server: %d connections established", established);
done:
	for (i = 0; i < nconn; i++)
		if (conns[i].thr)
			pthread_join(conns[i].thr, NULL);
	await_disconnect(ch, conns, nconn);
	i = finish("server", conns, nconn, extra);
	return i;
}

static int run_client(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	static struct conn conns[MAX_QPS];
	struct sockaddr_storage dst;
	int i, extra = 0, nconn = 0;
	uint32_t max_size = 0;

	for (i = 0; i < cfg.nsizes; i++)
		if (cfg.sizes[i] > max_size)
			max_size = cfg.sizes[i];
	if (!ch || resolve(cfg.host, cfg.port, &dst, 0))
		return 1;
	for (i = 0; i < cfg.nqp; i++) {
		struct conn *c = &conns[i];
		struct rdma_cm_id *id;
		struct rdma_conn_param par;
		struct cli_pdata cp = {
			.magic = DC_MAGIC, .qp_index = i, .nqp = cfg.nqp,
			.max_size = max_size, .seed = cfg.seed,
		};

		c->idx = i;
		c->max_size = max_size;
		c->seed = cfg.seed;
		if (rdma_create_id(ch, &id, c, RDMA_PS_TCP))
			goto fail;
		if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
				    &cfg.ack_timeout, sizeof(cfg.ack_timeout)))
			vlog("rdma_set_option(ACK_TIMEOUT) failed: %s", strerror(errno));
		if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 5000) ||
		    wait_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, 0) ||
		    rdma_resolve_route(id, 5000) ||
		    wait_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, 0))
			goto fail;
		if (setup_qp(c, id) || cli_setup(c))
			goto fail;
		nconn++;
		fill_conn_param(&par, &cp, sizeof(cp), id->verbs);
		if (rdma_connect(id, &par) ||
		    wait_event(ch, RDMA_CM_EVENT_ESTABLISHED, &c->remote, sizeof(c->remote)))
			goto fail;
		if (c->remote.magic != DC_MAGIC) {
			logmsg("qp %d: bad server private data", i);
			goto fail;
		}
		vlog("qp %d connected: qpn 0x%x max_inline %u sge %d", i, id->qp->qp_num,
		     c->max_inline, cfg.max_sge);
	}
	logmsg("client: %d connections, %d sizes, %d ops, %s", nconn, cfg.nsizes, cfg.nops,
	       cfg.duration > 0 ? "duration" : "iterations");
	for (i = 0; i < nconn; i++)
		pthread_create(&conns[i].thr, NULL, cli_thread, &conns[i]);
	for (i = 0; i < nconn; i++)
		pthread_join(conns[i].thr, NULL);
	await_disconnect(ch, conns, nconn);
	for (i = 0; i < nconn; i++)
		rdma_disconnect(conns[i].id);
	return finish("client", conns, nconn, extra);
fail:
	logmsg("client: connection %d failed: %s", i, strerror(errno));
	return finish("client", conns, nconn, extra + 1) | 1;
}

/* ------------------------------------------------------------------- main */

static void usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: datacheck -s [-a BIND_ADDR] [options]        (server)\n"
		"       datacheck -c HOST [options]                 (client)\n"
		"  -p PORT      rdma_cm port (default 18600)\n"
		"  -q N         QPs / connections (client, default 4, max %d)\n"
		"  -n N         iterations (client, default 3)\n"
		"  -t SECONDS   run for a duration instead of -n iterations (client;\n"
		"               SIGUSR1 ends it early, after the current iteration)\n"
		"  -S LIST      sizes in bytes, k/m suffixes (default 1,63,4096,65536,1m)\n"
		"  -o LIST      operations (default send,send_imm,write,write_imm,read,cas,fadd)\n"
		"  -T SECONDS   timeout for every completion / cm event (default 60)\n"
		"  -u N         ACK timeout exponent (client, 4.096us*2^N, default 18)\n"
		"  -g N         max SGEs per work request (1-3, default 3)\n"
		"  -I           no inline sends\n"
		"  -x SEED      pattern seed\n"
		"  -v           verbose\n"
		"  -F           self-test: corrupt one byte / atomic value per step on QP 0 in\n"
		"               iteration 0 (client); the run must then report mismatches\n",
		MAX_QPS);
	exit(code);
}

static uint32_t parse_size(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end || v == 0 || v > (64ul << 20)) {
		fprintf(stderr, "bad size '%s'\n", s);
		usage(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	char *list, *tok, *save;
	const char *sizes = "1,63,4096,65536,1m";
	const char *ops = "send,send_imm,write,write_imm,read,cas,fadd";
	int opt, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	t_start = now();
	{
		struct sigaction sa = { .sa_handler = on_signal };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sa.sa_flags = SA_RESTART;	/* nothing gives up on this one */
		sigaction(SIGUSR1, &sa, NULL);
	}
	while ((opt = getopt(argc, argv, "sc:a:p:q:n:t:S:o:T:u:g:Ix:vFh")) != -1) {
		switch (opt) {
		case 's': cfg.server = 1; break;
		case 'c': cfg.host = optarg; break;
		case 'a': cfg.bind_addr = optarg; break;
		case 'p': cfg.port = optarg; break;
		case 'q': cfg.nqp = atoi(optarg); break;
		case 'n': cfg.iters = atol(optarg); break;
		case 't': cfg.duration = atof(optarg); break;
		case 'S': sizes = optarg; break;
		case 'o': ops = optarg; break;
		case 'T': cfg.timeout_s = atoi(optarg); break;
		case 'u': cfg.ack_timeout = atoi(optarg); break;
		case 'g': cfg.max_sge = atoi(optarg); break;
		case 'I': cfg.no_inline = 1; break;
		case 'x': cfg.seed = strtoull(optarg, NULL, 0); break;
		case 'v': cfg.verbose = 1; break;
		case 'F': cfg.fault = 1; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc || cfg.server == !!cfg.host || cfg.nqp < 1 || cfg.nqp > MAX_QPS ||
	    cfg.timeout_s < 1 || cfg.max_sge < 1 || cfg.max_sge > MAX_SGE)
		usage(2);

	list = strdup(sizes);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (cfg.nsizes == MAX_SIZES)
			usage(2);
		cfg.sizes[cfg.nsizes++] = parse_size(tok);
	}
	free(list);
	list = strdup(ops);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < OP_COUNT; i++)
			if (!strcmp(tok, op_names[i]))
				break;
		if (i == OP_COUNT) {
			fprintf(stderr, "unknown operation '%s'\n", tok);
			usage(2);
		}
		cfg.ops[cfg.nops++] = i;
	}
	free(list);
	if (!cfg.nsizes || !cfg.nops)
		usage(2);

	ret = cfg.server ? run_server() : run_client();
	return ret;
}
