// SPDX-License-Identifier: GPL-2.0-only
/*
 * collective: collective flow completion times across N hosts of one machine.
 *
 * Every host is a network namespace with its own RDMA device (a netns lab
 * fabric); one process drives them all, one thread per host, the thread
 * moved into its host's namespace.  One process means one clock and one
 * barrier, so a flow's completion time is the receiver's completion minus
 * the sender's post on the same clock.
 *
 * Patterns, repeated --iters times after --warmup unmeasured ones:
 *   alltoall  every host sends --size bytes to every other host at once
 *   incast    hosts 1..N-1 each send --size bytes to host 0 at once
 *   ring      ring all-reduce of --size bytes: 2(N-1) steps, each host
 *             sends a --size/N chunk to its successor once it has the
 *             previous step's chunk from its predecessor
 * Transports:
 *   rdma      RC QPs (full mesh, connected in-process by GID), RDMA WRITE
 *             with immediate into the receiver's buffer
 *   tcp       TCP connections (full mesh), non-blocking sockets
 *
 * --event CMD --event-at K runs CMD (system(3), from host 0's namespace)
 * before measured iteration K starts: an impairment in the middle of a run,
 * at the same point of the collective whatever the transport's speed.
 *
 * Every received byte is checked against a pattern of (iteration, step,
 * source, destination, offset) unless --no-verify; the check runs outside
 * the timed interval.
 *
 * Output: a summary in the style of the OSU benchmarks (percentiles of the
 * collective's completion time and of single flows, in microseconds), and
 * with --raw FILE one line per collective ("coll ITER US START", START its
 * CLOCK_MONOTONIC start in seconds, the clock of tracefs's trace_clock "mono")
 * and per flow ("flow ITER SRC DST STEP US"), and over RDMA each QP once
 * ("qp HOST PEER QPN").  Exit status 0 only
 * when every iteration completed within --timeout seconds with no error
 * completion and no mismatch.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define MAX_HOSTS	32
#define MAX_STEPS	(2 * MAX_HOSTS)
#define RECV_DEPTH	(MAX_STEPS + 4)
#define SEND_DEPTH	(MAX_STEPS + 4)
#define TCP_QUEUE	MAX_STEPS

enum pattern { PAT_ALLTOALL, PAT_INCAST, PAT_RING };
enum transport { TR_RDMA, TR_TCP };

struct span {
	char *buf;
	size_t len, done;
};

struct host {
	int idx;
	char ns[64], dev[64];
	struct in_addr ip;
	pthread_t thread;

	/* buffers: send slot d (to host d) and receive slot s (from host s) */
	char *sbuf, *rbuf;

	/* rdma */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;
	struct ibv_cq *cq;
	struct ibv_mr *smr, *rmr;
	struct ibv_qp *qp[MAX_HOSTS];
	int gid_index;
	union ibv_gid gid;
	enum ibv_mtu mtu;

	/* tcp */
	int lfd;
	int fd[MAX_HOSTS];
	struct span outq[MAX_HOSTS][TCP_QUEUE];
	int outq_head[MAX_HOSTS], outq_tail[MAX_HOSTS];
	size_t in_done[MAX_HOSTS];	/* bytes of the current step from s */
	int in_step[MAX_HOSTS];

	/* one iteration */
	int recvd, sends_out, iter;
	double post_t[MAX_HOSTS][MAX_STEPS];	/* when this host posted to d */
	double recv_t[MAX_HOSTS][MAX_STEPS];	/* when s's data arrived here */
	double start_t;
};

static struct {
	enum pattern pattern;
	enum transport transport;
	int nhosts;
	size_t size, slot;
	int iters, warmup, timeout_s, port, event_at;
	bool verify;
	const char *raw, *event;
} cfg = {
	.pattern = PAT_ALLTOALL, .transport = TR_RDMA, .size = 262144,
	.iters = 50, .warmup = 3, .timeout_s = 60, .port = 18600,
	.verify = true, .event_at = -1,
};

static struct host hosts[MAX_HOSTS];
static int abort_run;	/* written under bar_lock, read anywhere */
static char abort_msg[256];
static long mismatches;

/* a barrier that gives up when the run is aborted */
static pthread_mutex_t bar_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bar_cond = PTHREAD_COND_INITIALIZER;
static int bar_count;
static unsigned int bar_gen;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&bar_lock);
	if (!abort_run) {
		va_start(ap, fmt);
		vsnprintf(abort_msg, sizeof(abort_msg), fmt, ap);
		va_end(ap);
		__atomic_store_n(&abort_run, 1, __ATOMIC_RELAXED);
	}
	pthread_cond_broadcast(&bar_cond);
	pthread_mutex_unlock(&bar_lock);
}

static bool aborted(void)
{
	return __atomic_load_n(&abort_run, __ATOMIC_RELAXED);
}

static int barrier(void)
{
	unsigned int gen;

	pthread_mutex_lock(&bar_lock);
	gen = bar_gen;
	if (++bar_count == cfg.nhosts) {
		bar_count = 0;
		bar_gen++;
		pthread_cond_broadcast(&bar_cond);
	} else {
		while (gen == bar_gen && !abort_run)
			pthread_cond_wait(&bar_cond, &bar_lock);
	}
	pthread_mutex_unlock(&bar_lock);
	return aborted() ? -1 : 0;
}

/* --- the pattern ---------------------------------------------------------- */

static int nsteps(void)
{
	return cfg.pattern == PAT_RING ? 2 * (cfg.nhosts - 1) : 1;
}

static size_t flow_bytes(void)
{
	return cfg.pattern == PAT_RING ? (cfg.size / cfg.nhosts) & ~(size_t)7 : cfg.size;
}

/* where step @step of a flow lands in its slot */
static size_t step_off(int step)
{
	return cfg.pattern == PAT_RING ? (size_t)step * flow_bytes() : 0;
}

/* receivers of host h's step-0 data (ring: later steps follow receipts) */
static bool sends_to(int src, int dst)
{
	if (src == dst)
		return false;
	switch (cfg.pattern) {
	case PAT_ALLTOALL:
		return true;
	case PAT_INCAST:
		return dst == 0;
	case PAT_RING:
		return dst == (src + 1) % cfg.nhosts;
	}
	return false;
}

/* flows host h receives in one iteration */
static int expected_recvs(int h)
{
	switch (cfg.pattern) {
	case PAT_ALLTOALL:
		return cfg.nhosts - 1;
	case PAT_INCAST:
		return h == 0 ? cfg.nhosts - 1 : 0;
	case PAT_RING:
		return nsteps();
	}
	return 0;
}

static uint64_t pat_word(int iter, int step, int src, int dst, size_t n)
{
	uint64_t k = ((uint64_t)iter << 40) | ((uint64_t)step << 24) |
		     ((uint64_t)src << 12) | (uint64_t)dst;

	return (n + 1) * 0x9e3779b97f4a7c15ull ^ k;
}

static void fill(char *p, size_t len, int iter, int step, int src, int dst)
{
	uint64_t *w = (uint64_t *)p;
	size_t n;

	for (n = 0; n < len / 8; n++)
		w[n] = pat_word(iter, step, src, dst, n);
}

static void check(const char *p, size_t len, int iter, int step, int src, int dst)
{
	const uint64_t *w = (const uint64_t *)p;
	size_t n;

	for (n = 0; n < len / 8; n++) {
		if (w[n] != pat_word(iter, step, src, dst, n)) {
			__atomic_add_fetch(&mismatches, 1, __ATOMIC_RELAXED);
			if (__atomic_load_n(&mismatches, __ATOMIC_RELAXED) <= 5)
				fprintf(stderr, "mismatch: iter %d step %d %d->%d word %zu\n",
					iter, step, src, dst, n);
			return;
		}
	}
}

static char *send_at(struct host *h, int dst, int step)
{
	return h->sbuf + (size_t)dst * cfg.slot + step_off(step);
}

static char *recv_at(struct host *h, int src, int step)
{
	return h->rbuf + (size_t)src * cfg.slot + step_off(step);
}

/* --- rdma ----------------------------------------------------------------- */

static int find_gid(struct host *h)
{
	struct ibv_gid_entry e;
	struct ibv_port_attr pa;
	int i;

	if (ibv_query_port(h->ctx, 1, &pa))
		return -1;
	h->mtu = pa.active_mtu;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(h->ctx, 1, i, &e, 0) ||
		    e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		/* IPv4-mapped ::ffff:a.b.c.d */
		if (!memcmp(e.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) &&
		    !memcmp(e.gid.raw + 12, &h->ip, 4)) {
			h->gid_index = i;
			h->gid = e.gid;
			return 0;
		}
	}
	return -1;
}

static int rdma_setup(struct host *h, struct ibv_device **list)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SEND_DEPTH, .max_recv_wr = RECV_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	size_t len = (size_t)cfg.nhosts * cfg.slot;
	int d;

	for (d = 0; list[d]; d++)
		if (!strcmp(ibv_get_device_name(list[d]), h->dev))
			break;
	if (!list[d]) {
		fprintf(stderr, "host %d: no device %s\n", h->idx, h->dev);
		return -1;
	}
	h->ctx = ibv_open_device(list[d]);
	if (!h->ctx)
		return -1;
	if (find_gid(h)) {
		fprintf(stderr, "host %d: %s has no GID for %s\n", h->idx, h->dev,
			inet_ntoa(h->ip));
		return -1;
	}
	h->pd = ibv_alloc_pd(h->ctx);
	h->chan = ibv_create_comp_channel(h->ctx);
	if (!h->pd || !h->chan)
		return -1;
	fcntl(h->chan->fd, F_SETFL, fcntl(h->chan->fd, F_GETFL) | O_NONBLOCK);
	h->cq = ibv_create_cq(h->ctx, cfg.nhosts * (SEND_DEPTH + RECV_DEPTH), NULL,
			      h->chan, 0);
	if (!h->cq)
		return -1;
	h->smr = ibv_reg_mr(h->pd, h->sbuf, len, 0);
	h->rmr = ibv_reg_mr(h->pd, h->rbuf, len,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!h->smr || !h->rmr)
		return -1;
	ia.send_cq = h->cq;
	ia.recv_cq = h->cq;
	for (d = 0; d < cfg.nhosts; d++) {
		if (d == h->idx)
			continue;
		h->qp[d] = ibv_create_qp(h->pd, &ia);
		if (!h->qp[d]) {
			fprintf(stderr, "host %d: create_qp: %s\n", h->idx, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int post_recv(struct host *h, int src)
{
	struct ibv_recv_wr wr = { .wr_id = src }, *bad;

	return ibv_post_recv(h->qp[src], &wr, &bad);
}

static int rdma_connect(struct host *h)
{
	int d, i, e;

	for (d = 0; d < cfg.nhosts; d++) {
		struct host *p = &hosts[d];
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
			.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
		};

		if (d == h->idx)
			continue;
		e = ibv_modify_qp(h->qp[d], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
		if (e)
			goto err;
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = h->mtu < p->mtu ? h->mtu : p->mtu;
		a.dest_qp_num = p->qp[h->idx]->qp_num;
		a.rq_psn = 0;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = p->gid;
		a.ah_attr.grh.sgid_index = h->gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		e = ibv_modify_qp(h->qp[d], &a, IBV_QP_STATE | IBV_QP_AV |
				  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
		if (e)
			goto err;
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 0;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		e = ibv_modify_qp(h->qp[d], &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
		if (e)
			goto err;
		for (i = 0; i < RECV_DEPTH; i++)
			if (post_recv(h, d))
				goto err;
	}
	return 0;
err:
	fprintf(stderr, "host %d: connect to %d: %s\n", h->idx, d, strerror(e ? e : errno));
	return -1;
}

static int rdma_post(struct host *h, int dst, int step)
{
	struct host *p = &hosts[dst];
	struct ibv_sge sge = {
		.addr = (uintptr_t)send_at(h, dst, step),
		.length = flow_bytes(), .lkey = h->smr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = dst, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(((uint32_t)h->idx << 16) | (uint32_t)step),
		.wr.rdma = { .remote_addr = (uintptr_t)recv_at(p, h->idx, step),
			     .rkey = p->rmr->rkey },
	}, *bad;
	int e;

	h->post_t[dst][step] = now_us();
	e = ibv_post_send(h->qp[dst], &wr, &bad);
	if (e) {
		fail("host %d: post_send to %d: %s", h->idx, dst, strerror(e));
		return -1;
	}
	h->sends_out++;
	return 0;
}

/* --- tcp ------------------------------------------------------------------ */

static int tcp_listen(struct host *h)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = h->ip,
				  .sin_port = htons(cfg.port) };
	int one = 1;

	h->lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (h->lfd < 0)
		return -1;
	setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(h->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(h->lfd, MAX_HOSTS)) {
		fprintf(stderr, "host %d: listen %s:%d: %s\n", h->idx,
			inet_ntoa(h->ip), cfg.port, strerror(errno));
		return -1;
	}
	return 0;
}

static int tcp_opts(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* connect to every higher host, then accept every lower one */
static int tcp_connect(struct host *h)
{
	int d, fd, i;
	int32_t id;

	for (d = h->idx + 1; d < cfg.nhosts; d++) {
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_addr = hosts[d].ip,
					  .sin_port = htons(cfg.port) };

		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			fprintf(stderr, "host %d: connect to %d: %s\n", h->idx, d,
				strerror(errno));
			return -1;
		}
		id = h->idx;
		if (write(fd, &id, sizeof(id)) != sizeof(id))
			return -1;
		h->fd[d] = fd;
	}
	for (i = 0; i < h->idx; i++) {
		fd = accept(h->lfd, NULL, NULL);
		if (fd < 0 || read(fd, &id, sizeof(id)) != sizeof(id) ||
		    id < 0 || id >= h->idx || h->fd[id] >= 0) {
			fprintf(stderr, "host %d: accept: bad peer\n", h->idx);
			return -1;
		}
		h->fd[id] = fd;
	}
	for (d = 0; d < cfg.nhosts; d++)
		if (d != h->idx && tcp_opts(h->fd[d]))
			return -1;
	return 0;
}

static int tcp_post(struct host *h, int dst, int step)
{
	int t = h->outq_tail[dst];

	if (t - h->outq_head[dst] >= TCP_QUEUE) {
		fail("host %d: tcp queue to %d full", h->idx, dst);
		return -1;
	}
	h->outq[dst][t % TCP_QUEUE] = (struct span){ send_at(h, dst, step), flow_bytes(), 0 };
	h->outq_tail[dst] = t + 1;
	h->post_t[dst][step] = now_us();
	h->sends_out++;
	return 0;
}

/* --- one iteration -------------------------------------------------------- */

/* send step @step's data to @dst, as it is in the send buffer */
static int transmit(struct host *h, int dst, int step)
{
	return cfg.transport == TR_RDMA ? rdma_post(h, dst, step) : tcp_post(h, dst, step);
}

/* fill step @step's data for @dst (when verifying), then send it */
static int post(struct host *h, int dst, int step)
{
	if (cfg.verify)
		fill(send_at(h, dst, step), flow_bytes(), h->iter, step, h->idx, dst);
	return transmit(h, dst, step);
}

/* data of (src, step) has arrived */
static int arrived(struct host *h, int src, int step)
{
	h->recv_t[src][step] = now_us();
	h->recvd++;
	if (cfg.pattern == PAT_RING && step + 1 < nsteps())
		return post(h, (h->idx + 1) % cfg.nhosts, step + 1);
	return 0;
}

static int rdma_poll(struct host *h)
{
	struct ibv_wc wc[16];
	int n, i, src, step;

	n = ibv_poll_cq(h->cq, 16, wc);
	if (n < 0) {
		fail("host %d: poll_cq failed", h->idx);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			fail("host %d: completion error %s (opcode %d, peer %d)", h->idx,
			     ibv_wc_status_str(wc[i].status), wc[i].opcode,
			     (int)wc[i].wr_id);
			return -1;
		}
		if (wc[i].opcode == IBV_WC_RDMA_WRITE) {
			h->sends_out--;
			continue;
		}
		src = ntohl(wc[i].imm_data) >> 16;
		step = ntohl(wc[i].imm_data) & 0xffff;
		if (src != (int)wc[i].wr_id || step >= nsteps()) {
			fail("host %d: unexpected immediate %#x on QP of %d", h->idx,
			     ntohl(wc[i].imm_data), (int)wc[i].wr_id);
			return -1;
		}
		if (post_recv(h, src)) {
			fail("host %d: post_recv: %s", h->idx, strerror(errno));
			return -1;
		}
		if (arrived(h, src, step))
			return -1;
	}
	return n;
}

static int rdma_wait(struct host *h, double deadline)
{
	struct pollfd pfd = { .fd = h->chan->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;
	int n;

	while (h->recvd < expected_recvs(h->idx) || h->sends_out) {
		n = rdma_poll(h);
		if (n < 0)
			return -1;
		if (n)
			continue;
		if (ibv_req_notify_cq(h->cq, 0))
			return -1;
		n = rdma_poll(h);	/* a completion that raced the arming */
		if (n < 0)
			return -1;
		if (n)
			continue;
		if (aborted())
			return -1;
		if (now_us() > deadline) {
			fail("host %d: iteration %d: %d of %d flows in, %d sends out after %d s",
			     h->idx, h->iter, h->recvd, expected_recvs(h->idx),
			     h->sends_out, cfg.timeout_s);
			return -1;
		}
		if (poll(&pfd, 1, 100) > 0 && !ibv_get_cq_event(h->chan, &cq, &ctx))
			ibv_ack_cq_events(cq, 1);
	}
	return 0;
}

static int tcp_wait(struct host *h, double deadline)
{
	struct pollfd pfd[MAX_HOSTS];
	int peer[MAX_HOSTS];
	int d, n, i, src, step;
	ssize_t r;

	while (h->recvd < expected_recvs(h->idx) || h->sends_out) {
		n = 0;
		for (d = 0; d < cfg.nhosts; d++) {
			short ev = 0;

			if (d == h->idx)
				continue;
			if (h->outq_head[d] != h->outq_tail[d])
				ev |= POLLOUT;
			ev |= POLLIN;
			pfd[n] = (struct pollfd){ .fd = h->fd[d], .events = ev };
			peer[n++] = d;
		}
		if (aborted())
			return -1;
		if (now_us() > deadline) {
			fail("host %d: iteration %d: %d of %d flows in, %d sends out after %d s",
			     h->idx, h->iter, h->recvd, expected_recvs(h->idx),
			     h->sends_out, cfg.timeout_s);
			return -1;
		}
		if (poll(pfd, n, 100) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			d = peer[i];
			if (pfd[i].revents & POLLOUT) {
				struct span *s = &h->outq[d][h->outq_head[d] % TCP_QUEUE];

				r = send(h->fd[d], s->buf + s->done, s->len - s->done,
					 MSG_NOSIGNAL);
				if (r < 0 && errno != EAGAIN) {
					fail("host %d: send to %d: %s", h->idx, d, strerror(errno));
					return -1;
				}
				if (r > 0)
					s->done += r;
				if (s->done == s->len) {
					h->outq_head[d]++;
					h->sends_out--;
				}
			}
			if (pfd[i].revents & (POLLIN | POLLERR | POLLHUP)) {
				src = d;
				step = h->in_step[src];
				if (step >= nsteps()) {
					fail("host %d: unexpected data from %d", h->idx, src);
					return -1;
				}
				r = recv(h->fd[src], recv_at(h, src, step) + h->in_done[src],
					 flow_bytes() - h->in_done[src], 0);
				if (r == 0 || (r < 0 && errno != EAGAIN)) {
					fail("host %d: recv from %d: %s", h->idx, src,
					     r ? strerror(errno) : "closed");
					return -1;
				}
				if (r > 0)
					h->in_done[src] += r;
				if (h->in_done[src] == flow_bytes()) {
					h->in_done[src] = 0;
					h->in_step[src]++;
					if (arrived(h, src, step))
						return -1;
				}
			}
		}
	}
	return 0;
}

static int iteration(struct host *h, int iter)
{
	double deadline;
	int d, s, src;

	h->iter = iter;
	h->recvd = 0;
	for (d = 0; d < cfg.nhosts; d++)
		h->in_step[d] = 0;
	/* alltoall and incast fill their buffers before the clock starts */
	if (cfg.verify && cfg.pattern != PAT_RING)
		for (d = 0; d < cfg.nhosts; d++)
			if (sends_to(h->idx, d))
				fill(send_at(h, d, 0), flow_bytes(), iter, 0, h->idx, d);
	if (barrier())
		return -1;
	h->start_t = now_us();
	for (d = 0; d < cfg.nhosts; d++) {
		if (!sends_to(h->idx, d))
			continue;
		/* alltoall and incast filled theirs above, off the clock */
		if (cfg.pattern == PAT_RING ? post(h, d, 0) : transmit(h, d, 0))
			return -1;
	}
	deadline = h->start_t + cfg.timeout_s * 1e6;
	if (cfg.transport == TR_RDMA ? rdma_wait(h, deadline) : tcp_wait(h, deadline))
		return -1;
	if (cfg.verify) {
		for (src = 0; src < cfg.nhosts; src++) {
			if (cfg.pattern == PAT_RING) {
				if (src != (h->idx + cfg.nhosts - 1) % cfg.nhosts)
					continue;
				for (s = 0; s < nsteps(); s++)
					check(recv_at(h, src, s), flow_bytes(), iter, s, src, h->idx);
			} else if (sends_to(src, h->idx)) {
				check(recv_at(h, src, 0), flow_bytes(), iter, 0, src, h->idx);
			}
		}
	}
	return barrier();
}

/* --- results -------------------------------------------------------------- */

static double *coll_fct, *flow_fct;
static int ncoll, nflow;
static FILE *raw;

/* after every thread passed the iteration's closing barrier */
static void record(int iter)
{
	static bool qps_listed;
	double start = 1e300, end = 0, t;
	int h, s, d, st;

	for (h = 0; h < cfg.nhosts; h++) {
		if (hosts[h].start_t < start)
			start = hosts[h].start_t;
		for (d = 0; !qps_listed && raw && d < cfg.nhosts; d++) {
			if (cfg.transport == TR_RDMA && hosts[h].qp[d])
				fprintf(raw, "qp %d %d %#x\n", h, d, hosts[h].qp[d]->qp_num);
		}
	}
	qps_listed = true;
	for (d = 0; d < cfg.nhosts; d++) {
		for (s = 0; s < cfg.nhosts; s++) {
			for (st = 0; st < nsteps(); st++) {
				bool flow;

				if (cfg.pattern == PAT_RING)
					flow = s == (d + cfg.nhosts - 1) % cfg.nhosts;
				else
					flow = st == 0 && sends_to(s, d);

				if (!flow)
					continue;
				t = hosts[d].recv_t[s][st];
				if (t > end)
					end = t;
				if (iter < 0)
					continue;
				flow_fct[nflow++] = t - hosts[s].post_t[d][st];
				if (raw)
					fprintf(raw, "flow %d %d %d %d %.1f\n", iter, s, d, st,
						t - hosts[s].post_t[d][st]);
			}
		}
	}
	if (iter < 0)
		return;
	coll_fct[ncoll++] = end - start;
	if (raw)
		fprintf(raw, "coll %d %.1f %.6f\n", iter, end - start, start / 1e6);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
	int i;

	if (!n)
		return 0;
	i = (int)(p / 100.0 * n + 0.999999) - 1;
	if (i < 0)
		i = 0;
	if (i >= n)
		i = n - 1;
	return v[i];
}

static void summary_line(const char *name, double *v, int n)
{
	double sum = 0;
	int i;

	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	printf("%-10s %8d %12.1f %12.1f %12.1f %12.1f %12.1f\n", name, n,
	       pct(v, n, 50), pct(v, n, 99), n ? v[n - 1] : 0, n ? v[0] : 0,
	       n ? sum / n : 0);
}

/* --- threads -------------------------------------------------------------- */

static struct ibv_device **devlist;
static int setup_failed;

static void *host_main(void *arg)
{
	struct host *h = arg;
	int fd, i;

	if (strcmp(h->ns, "-")) {
		char path[128];

		snprintf(path, sizeof(path), "/var/run/netns/%s", h->ns);
		fd = open(path, O_RDONLY);
		if (fd < 0 || setns(fd, CLONE_NEWNET)) {
			fprintf(stderr, "host %d: netns %s: %s\n", h->idx, h->ns, strerror(errno));
			setup_failed = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	if (!setup_failed && (cfg.transport == TR_RDMA ? rdma_setup(h, devlist) : tcp_listen(h)))
		setup_failed = 1;
	if (barrier())
		return NULL;
	if (setup_failed) {
		fail("setup failed");
		return NULL;
	}
	if (cfg.transport == TR_RDMA ? rdma_connect(h) : tcp_connect(h)) {
		fail("host %d: connection setup failed", h->idx);
		return NULL;
	}
	for (i = -cfg.warmup; i < cfg.iters; i++) {
		if (h->idx == 0 && i == cfg.event_at && cfg.event) {
			fprintf(stderr, "# iteration %d: running %s\n", i, cfg.event);
			if (system(cfg.event))
				fprintf(stderr, "# event command failed\n");
		}
		if (iteration(h, i + cfg.warmup))
			return NULL;
		if (h->idx == 0)
			record(i);
		if (barrier())
			return NULL;
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: collective --hosts NS:DEV:IP,NS:DEV:IP,... [--transport rdma|tcp]\n"
		"       [--pattern alltoall|incast|ring] [--size BYTES] [--iters N] [--warmup N]\n"
		"       [--timeout SEC] [--port TCPPORT] [--raw FILE] [--no-verify]\n"
		"       [--event CMD --event-at ITER]\n"
		"NS is a name under /var/run/netns (\"-\": stay), DEV the RDMA device\n"
		"(ignored for tcp), IP the host's IPv4 address.\n");
	exit(2);
}

static int parse_hosts(char *arg)
{
	char *tok, *save = NULL, *ns, *dev, *ip;

	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct host *h = &hosts[cfg.nhosts];

		if (cfg.nhosts == MAX_HOSTS)
			return -1;
		ns = tok;
		dev = strchr(ns, ':');
		if (!dev)
			return -1;
		*dev++ = 0;
		ip = strchr(dev, ':');
		if (!ip)
			return -1;
		*ip++ = 0;
		if (strlen(ns) >= sizeof(h->ns) || strlen(dev) >= sizeof(h->dev) ||
		    !inet_aton(ip, &h->ip))
			return -1;
		snprintf(h->ns, sizeof(h->ns), "%s", ns);
		snprintf(h->dev, sizeof(h->dev), "%s", dev);
		h->idx = cfg.nhosts++;
	}
	return cfg.nhosts >= 2 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hosts", 1, NULL, 'H' }, { "transport", 1, NULL, 't' },
		{ "pattern", 1, NULL, 'p' }, { "size", 1, NULL, 's' },
		{ "iters", 1, NULL, 'n' }, { "warmup", 1, NULL, 'w' },
		{ "timeout", 1, NULL, 'T' }, { "port", 1, NULL, 'P' },
		{ "raw", 1, NULL, 'r' }, { "no-verify", 0, NULL, 'V' },
		{ "event", 1, NULL, 'e' }, { "event-at", 1, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	static const char * const pname[] = { "alltoall", "incast", "ring" };
	double t0, elapsed;
	int c, h, d, ok;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'H':
			if (parse_hosts(optarg))
				usage();
			break;
		case 't':
			if (!strcmp(optarg, "rdma"))
				cfg.transport = TR_RDMA;
			else if (!strcmp(optarg, "tcp"))
				cfg.transport = TR_TCP;
			else
				usage();
			break;
		case 'p':
			for (d = 0; d < 3 && strcmp(optarg, pname[d]); d++)
				;
			if (d == 3)
				usage();
			cfg.pattern = d;
			break;
		case 's':
			cfg.size = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			cfg.iters = atoi(optarg);
			break;
		case 'w':
			cfg.warmup = atoi(optarg);
			break;
		case 'T':
			cfg.timeout_s = atoi(optarg);
			break;
		case 'P':
			cfg.port = atoi(optarg);
			break;
		case 'r':
			cfg.raw = optarg;
			break;
		case 'V':
			cfg.verify = false;
			break;
		case 'e':
			cfg.event = optarg;
			break;
		case 'E':
			cfg.event_at = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (cfg.nhosts < 2 || cfg.iters < 1 || cfg.warmup < 0 || cfg.timeout_s < 1 ||
	    cfg.iters > 100000 || cfg.warmup > 1000)
		usage();
	if (flow_bytes() < 8 || cfg.size > (1ul << 30))
		usage();
	/* ring steps land side by side in a slot of 2 * size */
	cfg.slot = cfg.pattern == PAT_RING ? 2 * cfg.size : cfg.size;
	cfg.slot = (cfg.slot + 4095) & ~(size_t)4095;
	for (h = 0; h < cfg.nhosts; h++) {
		hosts[h].sbuf = aligned_alloc(4096, cfg.nhosts * cfg.slot);
		hosts[h].rbuf = aligned_alloc(4096, cfg.nhosts * cfg.slot);
		if (!hosts[h].sbuf || !hosts[h].rbuf) {
			fprintf(stderr, "out of memory\n");
			return 1;
		}
		memset(hosts[h].sbuf, 0, cfg.nhosts * cfg.slot);
		memset(hosts[h].rbuf, 0, cfg.nhosts * cfg.slot);
		for (d = 0; d < MAX_HOSTS; d++)
			hosts[h].fd[d] = -1;
	}
	coll_fct = calloc(cfg.iters, sizeof(double));
	flow_fct = calloc((size_t)cfg.iters * cfg.nhosts * MAX_STEPS, sizeof(double));
	if (!coll_fct || !flow_fct)
		return 1;
	if (cfg.raw) {
		raw = fopen(cfg.raw, "w");
		if (!raw) {
			perror(cfg.raw);
			return 1;
		}
	}
	if (cfg.transport == TR_RDMA) {
		devlist = ibv_get_device_list(NULL);
		if (!devlist) {
			perror("ibv_get_device_list");
			return 1;
		}
	}
	t0 = now_us();
	for (h = 0; h < cfg.nhosts; h++)
		pthread_create(&hosts[h].thread, NULL, host_main, &hosts[h]);
	for (h = 0; h < cfg.nhosts; h++)
		pthread_join(hosts[h].thread, NULL);
	elapsed = (now_us() - t0) / 1e6;
	if (raw)
		fclose(raw);

	printf("# collective: pattern %s, transport %s, hosts %d, size %zu B, flow %zu B,"
	       " iterations %d (+%d warm-up)\n", pname[cfg.pattern],
	       cfg.transport == TR_RDMA ? "rdma" : "tcp", cfg.nhosts, cfg.size,
	       flow_bytes(), cfg.iters, cfg.warmup);
	printf("%-10s %8s %12s %12s %12s %12s %12s\n", "# metric", "count", "p50_us",
	       "p99_us", "max_us", "min_us", "mean_us");
	summary_line("coll_fct", coll_fct, ncoll);
	summary_line("flow_fct", flow_fct, nflow);
	ok = !abort_run && !mismatches && ncoll == cfg.iters;
	printf("collective: pattern=%s transport=%s hosts=%d size=%zu iterations=%d/%d"
	       " mismatches=%ld elapsed_s=%.1f result=%s%s%s\n", pname[cfg.pattern],
	       cfg.transport == TR_RDMA ? "rdma" : "tcp", cfg.nhosts, cfg.size, ncoll,
	       cfg.iters, mismatches, elapsed, ok ? "pass" : "FAIL",
	       abort_run ? " error=" : "", abort_run ? abort_msg : "");
	return ok ? 0 : 1;
}
