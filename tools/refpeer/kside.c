// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kside: the kernel side of an interop run against refpeer.  One process
 * is one RC QP on a kernel RDMA device (a metaroce device such as mr1),
 * driven through libibverbs, that speaks refpeer's TCP side channel
 * (Documentation/metaroce/refpeer.rst, "The side channel") and its data
 * pattern (rp_pattern.h), so that either program can be either end:
 *
 *   kside --server --listen PORT -d DEV -g GIDIDX    refpeer --client ...
 *   kside --client --connect IP:PORT -d DEV -g GIDIDX  refpeer --server ...
 *
 * As server it registers a region of --bytes + 64 bytes with remote read,
 * write and atomic access, filled with the region pattern, posts receive
 * buffers of --msg bytes, checks every SEND that arrives and, at DONE,
 * the region against the WRITE pattern.  As client it WRITEs, SENDs and
 * READs (--ops) like refpeer's client and checks what it READ.  Its IPv4
 * address is the one in the IPv4-mapped GID at index -g.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "rp_pattern.h"
#include "agent.h"

#define RECV_DEPTH	128	/* receive buffers posted (as refpeer's server) */
#define MAX_OUT		64	/* client: work requests outstanding */
#define CQ_DEPTH	(RECV_DEPTH + 2 * MAX_OUT + 64)

struct kside {
	/* options */
	bool server;
	bool agent;		/* --agent: the conformance suite's target */
	const char *counters;	/* --counters: the port's hw_counters dir */
	const char *dev_name;
	int gid_index;
	unsigned int listen_port;
	const char *connect;
	unsigned int udp_port;
	uint64_t bytes;
	uint32_t msg;
	bool op_write, op_send, op_read;
	uint64_t seed;
	int timeout_s;
	int verbose;

	/* verbs */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	union ibv_gid gid;
	struct in_addr ip;
	uint32_t psn;
	uint8_t rd_atom;

	/* the peer */
	uint32_t peer_qpn, peer_psn;
	struct in_addr peer_ip;

	/* side channel */
	int sc;
	char sc_buf[1024];
	size_t sc_len;
	double deadline;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("kside: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	printf("kside: FAILED\n");
	exit(1);
}

static uint32_t random24(void)
{
	uint32_t v = 0;

	while (!(v & 0xffffff))
		if (getrandom(&v, sizeof(v), 0) != sizeof(v))
			v = (uint32_t)getpid() * 40503u + (uint32_t)time(NULL);
	return v & 0xffffff;
}

static uint64_t size_arg(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (*end == 'k' || *end == 'K')
		return v << 10;
	if (*end == 'm' || *end == 'M')
		return v << 20;
	if (*end == 'g' || *end == 'G')
		return v << 30;
	return v;
}

/* ---- side channel: lines of key=value fields ---- */

static void sc_open(struct kside *k)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char host[64], *colon;
	int one = 1, lfd, i;

	if (k->server) {
		lfd = socket(AF_INET, SOCK_STREAM, 0);
		if (lfd < 0)
			die("socket: %s", strerror(errno));
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sa.sin_addr = k->ip;
		sa.sin_port = htons(k->listen_port);
		if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1))
			die("side channel on port %u: %s", k->listen_port,
			    strerror(errno));
		k->sc = accept(lfd, NULL, NULL);
		close(lfd);
		if (k->sc < 0)
			die("accept: %s", strerror(errno));
		return;
	}
	snprintf(host, sizeof(host), "%s", k->connect);
	colon = strchr(host, ':');
	if (!colon)
		die("--connect wants IP:PORT");
	*colon = 0;
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		die("bad address %s", host);
	sa.sin_port = htons(atoi(colon + 1));
	for (i = 0; i < 200; i++) {
		k->sc = socket(AF_INET, SOCK_STREAM, 0);
		if (k->sc < 0)
			die("socket: %s", strerror(errno));
		if (!connect(k->sc, (struct sockaddr *)&sa, sizeof(sa)))
			return;
		close(k->sc);
		usleep(50000);
	}
	die("side channel to %s: %s", k->connect, strerror(errno));
}

static void sc_put(struct kside *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void sc_put(struct kside *k, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (k->verbose)
		fprintf(stderr, "kside: side channel > %s", line);
	if (write(k->sc, line, n) != n)
		die("side channel write: %s", strerror(errno));
}

/*
 * One line into @out (without its newline): 1, or 0 when none came within
 * @ms milliseconds; dies when the channel closes
 */
static int sc_get(struct kside *k, char *out, size_t room, int ms)
{
	struct pollfd pfd = { .fd = k->sc, .events = POLLIN };
	char *nl;
	size_t l;
	ssize_t n;

	for (;;) {
		nl = memchr(k->sc_buf, '\n', k->sc_len);
		if (nl) {
			l = nl - k->sc_buf;
			if (l >= room)
				l = room - 1;
			memcpy(out, k->sc_buf, l);
			out[l] = 0;
			k->sc_len -= nl + 1 - k->sc_buf;
			memmove(k->sc_buf, nl + 1, k->sc_len);
			if (k->verbose)
				fprintf(stderr, "kside: side channel < %s\n", out);
			return 1;
		}
		if (poll(&pfd, 1, ms) <= 0)
			return 0;
		if (k->sc_len >= sizeof(k->sc_buf) - 1)
			die("side channel: line too long");
		n = read(k->sc, k->sc_buf + k->sc_len,
			 sizeof(k->sc_buf) - 1 - k->sc_len);
		if (n <= 0)
			die("side channel closed");
		k->sc_len += n;
	}
}

/* a line starting with @tag, waiting until the deadline */
static void sc_expect(struct kside *k, const char *tag, char *out, size_t room)
{
	while (now() < k->deadline)
		if (sc_get(k, out, room, 100) && !strncmp(out, tag, strlen(tag)))
			return;
	die("no %s line on the side channel", tag);
}

/* the value of field @key ("qpn") in @line, as a number; dies if absent */
static uint64_t sc_num(const char *line, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (!p)
		die("side channel line '%s' has no %s", line, key);
	return strtoull(p + strlen(pat), NULL, 0);
}

static void sc_ip(const char *line, struct in_addr *ip)
{
	const char *p = strstr(line, " ip=");
	char s[INET_ADDRSTRLEN];
	size_t i = 0;

	if (!p)
		die("side channel line '%s' has no ip", line);
	for (p += 4; *p && *p != ' ' && i < sizeof(s) - 1; p++)
		s[i++] = *p;
	s[i] = 0;
	if (inet_pton(AF_INET, s, ip) != 1)
		die("side channel: bad ip %s", s);
}

/* both ends' REFPEER1 lines */
static void sc_hello(struct kside *k)
{
	char ip[INET_ADDRSTRLEN], line[512];

	inet_ntop(AF_INET, &k->ip, ip, sizeof(ip));
	sc_put(k, "REFPEER1 qpn=%u psn=%u ip=%s port=%u seed=%llu\n",
	       k->qp->qp_num, k->psn, ip, k->udp_port,
	       (unsigned long long)k->seed);
	sc_expect(k, "REFPEER1 ", line, sizeof(line));
	k->peer_qpn = sc_num(line, "qpn") & 0xffffff;
	k->peer_psn = sc_num(line, "psn") & 0xffffff;
	sc_ip(line, &k->peer_ip);
	if (sc_num(line, "port") != k->udp_port)
		die("the peer's metaroce port is %llu, this device's %u",
		    (unsigned long long)sc_num(line, "port"), k->udp_port);
	if (k->server)
		k->seed = sc_num(line, "seed");
}

/* ---- verbs ---- */

static void dev_open(struct kside *k)
{
	struct ibv_device **list;
	struct ibv_device_attr da;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		die("no RDMA devices: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), k->dev_name))
			break;
	if (i == n)
		die("no RDMA device %s", k->dev_name);
	k->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!k->ctx)
		die("open %s: %s", k->dev_name, strerror(errno));
	if (ibv_query_device(k->ctx, &da))
		die("query %s", k->dev_name);
	k->rd_atom = da.max_qp_rd_atom < 16 ? da.max_qp_rd_atom : 16;
	if (da.max_qp_init_rd_atom < k->rd_atom)
		k->rd_atom = da.max_qp_init_rd_atom;
	if (ibv_query_gid(k->ctx, 1, k->gid_index, &k->gid))
		die("GID %d of %s: %s", k->gid_index, k->dev_name, strerror(errno));
	/* ::ffff:a.b.c.d */
	for (i = 0; i < 10; i++)
		if (k->gid.raw[i])
			break;
	if (i < 10 || k->gid.raw[10] != 0xff || k->gid.raw[11] != 0xff)
		die("GID %d of %s is not IPv4-mapped", k->gid_index, k->dev_name);
	memcpy(&k->ip, &k->gid.raw[12], 4);

	k->pd = ibv_alloc_pd(k->ctx);
	k->ch = ibv_create_comp_channel(k->ctx);
	if (!k->pd || !k->ch)
		die("PD or completion channel: %s", strerror(errno));
	k->cq = ibv_create_cq(k->ctx, CQ_DEPTH, NULL, k->ch, 0);
	if (!k->cq || ibv_req_notify_cq(k->cq, 0))
		die("CQ: %s", strerror(errno));
}

static void qp_create(struct kside *k)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = k->cq, .recv_cq = k->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2 * MAX_OUT, .max_recv_wr = RECV_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC,
	};

	k->qp = ibv_create_qp(k->pd, &ia);
	if (!k->qp)
		die("create QP: %s", strerror(errno));
	if (ibv_modify_qp(k->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("QP to INIT: %s", strerror(errno));
	k->psn = random24();
}

/* RTR with the peer's QPN, PSN and GID, then RTS */
static void qp_connect(struct kside *k)
{
	struct ibv_qp_attr a;
	int e;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = k->peer_qpn;
	a.rq_psn = k->peer_psn;
	a.max_dest_rd_atomic = k->rd_atom;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.sgid_index = k->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.dgid.raw[10] = 0xff;
	a.ah_attr.grh.dgid.raw[11] = 0xff;
	memcpy(&a.ah_attr.grh.dgid.raw[12], &k->peer_ip, 4);
	a.ah_attr.port_num = 1;
	e = ibv_modify_qp(k->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (e)
		die("QP to RTR: %s", strerror(e));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = k->psn;
	a.max_rd_atomic = k->rd_atom;
	e = ibv_modify_qp(k->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC);
	if (e)
		die("QP to RTS: %s", strerror(e));
	if (k->verbose) {
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &k->peer_ip, ip, sizeof(ip));
		fprintf(stderr, "kside: QP %u (psn %u) connected to QP %u (psn %u) at %s\n",
			k->qp->qp_num, k->psn, k->peer_qpn, k->peer_psn, ip);
	}
}

static void *buf_alloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? len : 8))
		die("out of memory");
	memset(p, 0, len ? len : 8);
	return p;
}

static struct ibv_mr *mr_reg(struct kside *k, void *buf, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(k->pd, buf, len, access);

	if (!mr)
		die("register %zu bytes: %s", len, strerror(errno));
	return mr;
}

static void post_recv(struct kside *k, struct ibv_mr *mr, uint8_t *base,
		      uint64_t slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(base + slot * k->msg),
		.length = k->msg, .lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(k->qp, &wr, &bad))
		die("post receive: %s", strerror(errno));
}

/*
 * Completions into @wc (at most @n), waiting at most @ms for the first;
 * also returns when the side channel has something to read (*@sc_ready)
 */
static int cq_wait(struct kside *k, struct ibv_wc *wc, int n, int ms,
		   bool *sc_ready)
{
	struct pollfd pfd[2] = {
		{ .fd = k->ch->fd, .events = POLLIN },
		{ .fd = k->sc, .events = POLLIN },
	};
	struct ibv_cq *cq;
	void *ctx;
	int got;

	if (sc_ready)
		*sc_ready = false;
	got = ibv_poll_cq(k->cq, n, wc);
	if (got)
		return got;
	if (poll(pfd, sc_ready ? 2 : 1, ms) < 0 && errno != EINTR)
		die("poll: %s", strerror(errno));
	if (sc_ready && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
		*sc_ready = true;
	if (pfd[0].revents & POLLIN) {
		if (ibv_get_cq_event(k->ch, &cq, &ctx))
			die("CQ event: %s", strerror(errno));
		ibv_ack_cq_events(cq, 1);
		if (ibv_req_notify_cq(k->cq, 0))
			die("CQ notify: %s", strerror(errno));
	}
	got = ibv_poll_cq(k->cq, n, wc);
	if (got < 0)
		die("poll CQ");
	return got;
}

/* ---- server: refpeer --client drives, this end checks ---- */

static int run_server(struct kside *k)
{
	uint64_t len = k->bytes, sends = 0, send_bytes = 0, imms = 0;
	uint64_t bad = 0, writes, nsend, off, i;
	uint8_t *region, *rbuf;
	struct ibv_mr *rmr, *bmr;
	struct ibv_wc wc[32];
	char line[512], done[512] = "";
	bool sc_ready, seen_done = false;
	double quiet_until = 0;
	int n, j;

	sc_open(k);
	sc_hello(k);
	region = buf_alloc(len + 64);
	rp_pat_fill(region, len, k->seed ^ RP_PAT_REGION, 0);
	rmr = mr_reg(k, region, len + 64, IBV_ACCESS_LOCAL_WRITE |
		     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		     IBV_ACCESS_REMOTE_ATOMIC);
	rbuf = buf_alloc((size_t)RECV_DEPTH * k->msg);
	bmr = mr_reg(k, rbuf, (size_t)RECV_DEPTH * k->msg, IBV_ACCESS_LOCAL_WRITE);
	for (i = 0; i < RECV_DEPTH; i++)
		post_recv(k, bmr, rbuf, i);
	qp_connect(k);
	sc_put(k, "MR va=%llu rkey=%u len=%llu\n",
	       (unsigned long long)(uintptr_t)region, rmr->rkey,
	       (unsigned long long)len + 64);

	for (;;) {
		if (now() > k->deadline)
			die("timed out after %d s: %llu SENDs so far", k->timeout_s,
			    (unsigned long long)sends);
		n = cq_wait(k, wc, 32, seen_done ? 20 : 100,
			    seen_done ? NULL : &sc_ready);
		for (j = 0; j < n; j++) {
			if (wc[j].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "kside server: completion %llu: %s\n",
					(unsigned long long)wc[j].wr_id,
					ibv_wc_status_str(wc[j].status));
				bad++;
				continue;
			}
			if (wc[j].opcode == IBV_WC_RECV) {
				uint8_t *b = rbuf + wc[j].wr_id * k->msg;
				uint64_t m = (wc[j].wc_flags & IBV_WC_WITH_IMM) ?
					ntohl(wc[j].imm_data) : sends;

				off = rp_pat_check(b, wc[j].byte_len,
						   k->seed ^ RP_PAT_SEND, m * k->msg);
				if (off != wc[j].byte_len) {
					fprintf(stderr, "kside server: SEND %llu (%u bytes) differs at offset %llu\n",
						(unsigned long long)m, wc[j].byte_len,
						(unsigned long long)off);
					bad++;
				}
				sends++;
				send_bytes += wc[j].byte_len;
			} else if (wc[j].opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
				imms++;
			} else {
				fprintf(stderr, "kside server: unexpected completion opcode %d\n",
					wc[j].opcode);
				bad++;
				continue;
			}
			post_recv(k, bmr, rbuf, wc[j].wr_id);
		}
		if (seen_done) {
			if (n == 0 && now() > quiet_until)
				break;
			continue;
		}
		if (sc_ready && sc_get(k, line, sizeof(line), 0) &&
		    !strncmp(line, "DONE", 4)) {
			/* what is still in the CQ counts: 500 ms without one */
			memcpy(done, line, sizeof(done));
			seen_done = true;
			quiet_until = now() + 0.5;
		}
	}
	writes = sc_num(done, "write");
	nsend = sc_num(done, "send");
	if (writes > len) {
		fprintf(stderr, "kside server: the peer says it wrote %llu bytes into %llu\n",
			(unsigned long long)writes, (unsigned long long)len);
		bad++;
	} else if (writes) {
		off = rp_pat_check(region, writes, k->seed ^ RP_PAT_WRITE, 0);
		if (off != writes) {
			fprintf(stderr, "kside server: WRITE data differs at offset %llu\n",
				(unsigned long long)off);
			bad++;
		}
	}
	if (nsend != sends) {
		fprintf(stderr, "kside server: %llu SENDs received, the peer sent %llu\n",
			(unsigned long long)sends, (unsigned long long)nsend);
		bad++;
	}
	sc_put(k, "RESULT %s write=%llu send=%llu sendbytes=%llu\n",
	       bad ? "bad" : "ok", (unsigned long long)writes,
	       (unsigned long long)sends, (unsigned long long)send_bytes);
	/* stay until the peer closes, so that its last packets meet a QP */
	while (now() < k->deadline) {
		struct pollfd p = { .fd = k->sc, .events = POLLIN };
		char c[64];

		if (poll(&p, 1, 100) > 0 && read(k->sc, c, sizeof(c)) <= 0)
			break;
	}
	printf("kside server: %s: WRITE %llu bytes, %llu SENDs (%llu bytes), %llu WRITE_IMM verified\n",
	       bad ? "FAILED" : "ok", (unsigned long long)writes,
	       (unsigned long long)sends, (unsigned long long)send_bytes,
	       (unsigned long long)imms);
	return bad ? 1 : 0;
}

/* ---- client: this end drives refpeer --server ---- */

enum { K_WRITE, K_SEND, K_READ };

/* @total bytes of one kind in messages of --msg, MAX_OUT outstanding */
static void client_phase(struct kside *k, int kind, uint8_t *buf,
			 struct ibv_mr *mr, uint64_t total, uint64_t va,
			 uint32_t rkey)
{
	static const char *const name[] = { "WRITE", "SEND", "READ" };
	uint64_t nmsg = (total + k->msg - 1) / k->msg, posted = 0, done = 0;
	struct ibv_send_wr wr, *badwr;
	struct ibv_sge sge;
	struct ibv_wc wc[32];
	int n, j, e;

	while (done < nmsg) {
		while (posted < nmsg && posted - done < MAX_OUT) {
			uint64_t off = posted * k->msg;
			uint32_t l = total - off < k->msg ? total - off : k->msg;

			memset(&wr, 0, sizeof(wr));
			sge.addr = (uintptr_t)(buf + off);
			sge.length = l;
			sge.lkey = mr->lkey;
			wr.wr_id = posted;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.send_flags = IBV_SEND_SIGNALED;
			if (kind == K_WRITE) {
				/* every eighth with an immediate, as refpeer's */
				wr.opcode = posted % 8 == 7 ?
					IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
				wr.imm_data = htonl((uint32_t)posted);
			} else if (kind == K_SEND) {
				/* every other one with its index as immediate */
				wr.opcode = posted % 2 ? IBV_WR_SEND_WITH_IMM :
					IBV_WR_SEND;
				wr.imm_data = htonl((uint32_t)posted);
			} else {
				wr.opcode = IBV_WR_RDMA_READ;
			}
			if (kind != K_SEND) {
				wr.wr.rdma.remote_addr = va + off;
				wr.wr.rdma.rkey = rkey;
			}
			e = ibv_post_send(k->qp, &wr, &badwr);
			if (e)
				die("post %s %llu: %s", name[kind],
				    (unsigned long long)posted, strerror(e));
			posted++;
		}
		if (now() > k->deadline)
			die("timed out in the %s phase: %llu of %llu done",
			    name[kind], (unsigned long long)done,
			    (unsigned long long)nmsg);
		n = cq_wait(k, wc, 32, 100, NULL);
		for (j = 0; j < n; j++) {
			if (wc[j].status != IBV_WC_SUCCESS)
				die("%s %llu failed: %s", name[kind],
				    (unsigned long long)wc[j].wr_id,
				    ibv_wc_status_str(wc[j].status));
			done++;
		}
	}
}

static int run_client(struct kside *k)
{
	uint64_t len, va, peer_len, nsend = 0, moved = 0, off;
	uint32_t rkey;
	uint8_t *src, *dst;
	struct ibv_mr *smr, *dmr;
	char line[512];
	double t0, t1;

	sc_open(k);
	sc_hello(k);
	sc_expect(k, "MR ", line, sizeof(line));
	va = sc_num(line, "va");
	rkey = sc_num(line, "rkey");
	peer_len = sc_num(line, "len");
	if (peer_len < 64)
		die("the peer's region (%llu bytes) is too small",
		    (unsigned long long)peer_len);
	len = k->bytes < peer_len - 64 ? k->bytes : peer_len - 64;
	src = buf_alloc(len);
	dst = buf_alloc(len);
	smr = mr_reg(k, src, len ? len : 8, IBV_ACCESS_LOCAL_WRITE);
	dmr = mr_reg(k, dst, len ? len : 8, IBV_ACCESS_LOCAL_WRITE);
	qp_connect(k);

	t0 = now();
	if (k->op_write) {
		rp_pat_fill(src, len, k->seed ^ RP_PAT_WRITE, 0);
		client_phase(k, K_WRITE, src, smr, len, va, rkey);
		moved += len;
	}
	if (k->op_send) {
		rp_pat_fill(src, len, k->seed ^ RP_PAT_SEND, 0);
		client_phase(k, K_SEND, src, smr, len, 0, 0);
		nsend = (len + k->msg - 1) / k->msg;
		moved += len;
	}
	if (k->op_read) {
		client_phase(k, K_READ, dst, dmr, len, va, rkey);
		off = rp_pat_check(dst, len, k->seed ^ (k->op_write ?
					RP_PAT_WRITE : RP_PAT_REGION), 0);
		if (off != len)
			die("READ data differs at offset %llu of %llu",
			    (unsigned long long)off, (unsigned long long)len);
		moved += len;
	}
	t1 = now();
	sc_put(k, "DONE write=%llu send=%llu\n",
	       (unsigned long long)(k->op_write ? len : 0),
	       (unsigned long long)nsend);
	sc_expect(k, "RESULT ", line, sizeof(line));
	if (strncmp(line, "RESULT ok", 9))
		die("the peer says: %s", line);
	printf("kside client: ok: moved %llu bytes (%s%s%s) in %.3f s, every byte verified\n",
	       (unsigned long long)moved, k->op_write ? "write " : "",
	       k->op_send ? "send " : "", k->op_read ? "read" : "", t1 - t0);
	return 0;
}

/*
 * ---- agent: the conformance suite's target (tools/conform) ----
 *
 * kside --agent PORT -d DEV -g GIDIDX serves the agent protocol of
 * Documentation/metaroce/conformance.rst on TCP port PORT: it creates,
 * connects and drives one RC QP on DEV at a time for the runner and
 * reports the device's port counters (hw_counters).
 */

struct kagent {
	struct kside *k;
	struct agent_conn conn;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *region;
	uint32_t psn;
	unsigned int timeout, retry, rnr_timer, rd_atom;
	bool flush;		/* the region and QP grant FLUSH (global) */
	bool ud;		/* a UD QP (CREATE type=ud) */
	bool uc;		/* a UC QP (CREATE type=uc) */
	struct ibv_srq *srq;	/* CREATE srq=1: its receive WQEs */
	uint32_t qkey;		/* UD: this QP's Q_Key */
	struct ibv_ah *ah;	/* UD: the tester */
	uint32_t peer_qpn, peer_qkey;
};

/* IB_UVERBS_ACCESS_FLUSH_GLOBAL, for an rdma-core that has no name for it */
#define KS_ACCESS_FLUSH_GLOBAL	(1 << 8)

static void ka_reply(struct kagent *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void ka_reply(struct kagent *a, const char *fmt, ...)
{
	static char line[AGENT_LINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line) - 1)
		n = snprintf(line, sizeof(line), "ERR reply too long");
	if (a->k->verbose)
		fprintf(stderr, "kside agent: < %.300s\n", line);
	line[n++] = '\n';
	line[n] = 0;
	agent_put(&a->conn, line);
}

static void ka_destroy(struct kagent *a)
{
	struct ibv_wc wc[16];

	if (a->qp)
		ibv_destroy_qp(a->qp);
	a->qp = NULL;
	if (a->srq)
		ibv_destroy_srq(a->srq);
	a->srq = NULL;
	if (a->ah)
		ibv_destroy_ah(a->ah);
	a->ah = NULL;
	if (a->mr)
		ibv_dereg_mr(a->mr);
	a->mr = NULL;
	/* what the QP left in the shared CQ is not the next case's */
	while (ibv_poll_cq(a->k->cq, 16, wc) > 0)
		;
}

/* a UD QP through RTS (UD QPs have no connection) */
static void ka_create_ud(struct kagent *a, const char *l)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = a->k->cq, .recv_cq = a->k->cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
	};
	char ip[INET_ADDRSTRLEN];
	uint64_t v;

	a->qkey = agent_u64(l, "qkey", &v) ? v : 0x11111111;
	at.qkey = a->qkey;
	a->qp = ibv_create_qp(a->k->pd, &ia);
	if (!a->qp) {
		ka_reply(a, "ERR create UD QP: %s", strerror(errno));
		return;
	}
	a->psn = random24();
	if (ibv_modify_qp(a->qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY)) {
		ka_reply(a, "ERR UD QP to INIT: %s", strerror(errno));
		return;
	}
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(a->qp, &at, IBV_QP_STATE)) {
		ka_reply(a, "ERR UD QP to RTR: %s", strerror(errno));
		return;
	}
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = a->psn;
	if (ibv_modify_qp(a->qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN)) {
		ka_reply(a, "ERR UD QP to RTS: %s", strerror(errno));
		return;
	}
	inet_ntop(AF_INET, &a->k->ip, ip, sizeof(ip));
	ka_reply(a, "OK qpn=%u psn=%u ip=%s port=%u", a->qp->qp_num, a->psn,
		 ip, a->k->udp_port);
}

/* UD: the tester's address handle, QPN and Q_Key */
static void ka_connect_ud(struct kagent *a, const char *l, uint64_t qpn,
			  struct in_addr pip)
{
	struct ibv_ah_attr ah = { .is_global = 1, .port_num = 1 };
	struct ibv_port_attr pa;
	uint64_t v;

	ah.grh.sgid_index = a->k->gid_index;
	ah.grh.hop_limit = 64;
	ah.grh.dgid.raw[10] = 0xff;
	ah.grh.dgid.raw[11] = 0xff;
	memcpy(&ah.grh.dgid.raw[12], &pip, 4);
	a->ah = ibv_create_ah(a->k->pd, &ah);
	if (!a->ah) {
		ka_reply(a, "ERR address handle: %s", strerror(errno));
		return;
	}
	a->peer_qpn = qpn & 0xffffff;
	a->peer_qkey = agent_u64(l, "qkey", &v) ? v : 0;
	/* the largest datagram: the port's active MTU */
	if (ibv_query_port(a->k->ctx, 1, &pa)) {
		ka_reply(a, "ERR query port: %s", strerror(errno));
		return;
	}
	/* a UD receive buffer starts with the 40 bytes of the GRH area */
	ka_reply(a, "OK va=%llu rkey=%u len=%u grh=40 mtu=%u",
		 (unsigned long long)(uintptr_t)a->region, a->mr->rkey,
		 AGENT_REGION, 128u << pa.active_mtu);
}

static void ka_create(struct kagent *a, const char *l)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = a->k->cq, .recv_cq = a->k->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC,
	};
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	char ip[INET_ADDRSTRLEN];
	uint64_t v;

	ka_destroy(a);
	a->timeout = agent_u64(l, "timeout", &v) ? v : 14;
	a->retry = agent_u64(l, "retry", &v) ? v : 7;
	a->rnr_timer = agent_u64(l, "rnr_timer", &v) ? v : 12;
	a->rd_atom = agent_u64(l, "rd_atom", &v) ? v : a->k->rd_atom;
	/* nowrite=1: a region without remote write (the QP keeps it) */
	if (agent_u64(l, "nowrite", &v) && v)
		access &= ~IBV_ACCESS_REMOTE_WRITE;
	memset(a->region, 0, AGENT_REGION);
	/* FLUSH where the kernel has it (6.2+), else without */
	a->flush = true;
	a->mr = ibv_reg_mr(a->k->pd, a->region, AGENT_REGION,
			   access | KS_ACCESS_FLUSH_GLOBAL);
	if (!a->mr) {
		a->flush = false;
		a->mr = ibv_reg_mr(a->k->pd, a->region, AGENT_REGION, access);
	}
	if (!a->mr) {
		ka_reply(a, "ERR register: %s", strerror(errno));
		return;
	}
	a->ud = strstr(l, " type=ud") != NULL;
	if (a->ud) {
		ka_create_ud(a, l);
		return;
	}
	/* type=uc: a UC QP, remote write only (IB's UC has no READ or atomics) */
	a->uc = strstr(l, " type=uc") != NULL;
	if (a->uc) {
		ia.qp_type = IBV_QPT_UC;
		at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				     IBV_ACCESS_REMOTE_WRITE;
		a->flush = false;
	}
	if (agent_u64(l, "srq", &v) && v) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = 64, .max_sge = 1 },
		};

		a->srq = ibv_create_srq(a->k->pd, &sa);
		if (!a->srq) {
			ka_reply(a, "ERR create SRQ: %s", strerror(errno));
			return;
		}
		ia.srq = a->srq;
	}
	a->qp = ibv_create_qp(a->k->pd, &ia);
	if (!a->qp) {
		ka_reply(a, "ERR create QP: %s", strerror(errno));
		return;
	}
	if (a->flush)
		at.qp_access_flags |= KS_ACCESS_FLUSH_GLOBAL;
	if (ibv_modify_qp(a->qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		if (!a->flush) {
			ka_reply(a, "ERR QP to INIT: %s", strerror(errno));
			return;
		}
		/* a region with FLUSH but a QP refused it: none at all */
		a->flush = false;
		at.qp_access_flags &= ~KS_ACCESS_FLUSH_GLOBAL;
		ibv_dereg_mr(a->mr);
		a->mr = ibv_reg_mr(a->k->pd, a->region, AGENT_REGION, access);
		if (!a->mr || ibv_modify_qp(a->qp, &at, IBV_QP_STATE |
					    IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					    IBV_QP_ACCESS_FLAGS)) {
			ka_reply(a, "ERR QP to INIT: %s", strerror(errno));
			return;
		}
	}
	a->psn = random24();
	inet_ntop(AF_INET, &a->k->ip, ip, sizeof(ip));
	ka_reply(a, "OK qpn=%u psn=%u ip=%s port=%u", a->qp->qp_num, a->psn,
		 ip, a->k->udp_port);
}

static void ka_connect(struct kagent *a, const char *l)
{
	struct ibv_qp_attr at;
	char ip[64];
	uint64_t qpn, psn;
	struct in_addr pip;
	int e;

	if (!a->qp || !agent_u64(l, "qpn", &qpn) || !agent_u64(l, "psn", &psn) ||
	    !agent_word(l, "ip", ip, sizeof(ip)) || inet_pton(AF_INET, ip, &pip) != 1) {
		ka_reply(a, "ERR CONNECT wants qpn, psn and ip after CREATE");
		return;
	}
	if (a->ud) {
		ka_connect_ud(a, l, qpn, pip);
		return;
	}
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	at.dest_qp_num = qpn & 0xffffff;
	at.rq_psn = psn & 0xffffff;
	at.max_dest_rd_atomic = a->rd_atom;
	at.min_rnr_timer = a->rnr_timer;
	at.ah_attr.is_global = 1;
	at.ah_attr.grh.sgid_index = a->k->gid_index;
	at.ah_attr.grh.hop_limit = 64;
	at.ah_attr.grh.dgid.raw[10] = 0xff;
	at.ah_attr.grh.dgid.raw[11] = 0xff;
	memcpy(&at.ah_attr.grh.dgid.raw[12], &pip, 4);
	at.ah_attr.port_num = 1;
	e = ibv_modify_qp(a->qp, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  (a->uc ? 0 : IBV_QP_MAX_DEST_RD_ATOMIC |
			   IBV_QP_MIN_RNR_TIMER));
	if (e) {
		ka_reply(a, "ERR QP to RTR: %s", strerror(e));
		return;
	}
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.timeout = a->timeout;
	at.retry_cnt = a->retry;
	at.rnr_retry = 7;
	at.sq_psn = a->psn;
	at.max_rd_atomic = a->rd_atom;
	e = ibv_modify_qp(a->qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  (a->uc ? 0 : IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC));
	if (e) {
		ka_reply(a, "ERR QP to RTS: %s", strerror(e));
		return;
	}
	ka_reply(a, "OK va=%llu rkey=%u len=%u rnr_timer=%u flush=%d",
		 (unsigned long long)(uintptr_t)a->region, a->mr->rkey,
		 AGENT_REGION, a->rnr_timer, a->flush);
}

static void ka_post(struct kagent *a, const char *verb, const char *l)
{
	uint64_t wr = 0, off = 0, len = 0, va = 0, rkey = 0, imm = 0, add = 0,
		 cmp = 0, se = 0;
	bool with_imm = agent_u64(l, "imm", &imm);
	struct ibv_send_wr swr, *sbad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge sge;
	char op[16] = "";
	int e;

	if (!a->qp) {
		ka_reply(a, "ERR no QP");
		return;
	}
	agent_u64(l, "wr", &wr);
	agent_u64(l, "off", &off);
	agent_u64(l, "len", &len);
	agent_u64(l, "va", &va);
	agent_u64(l, "rkey", &rkey);
	if (!strcmp(verb, "ATOMIC"))
		len = 8;
	if (off > AGENT_REGION || len > AGENT_REGION - off) {
		ka_reply(a, "ERR off/len outside the region");
		return;
	}
	sge.addr = (uintptr_t)(a->region + off);
	sge.length = len;
	sge.lkey = a->mr->lkey;
	if (!strcmp(verb, "RECV")) {
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = wr;
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
		e = a->srq ? ibv_post_srq_recv(a->srq, &rwr, &rbad) :
			     ibv_post_recv(a->qp, &rwr, &rbad);
		goto out;
	}
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = wr;
	swr.sg_list = &sge;
	swr.num_sge = len ? 1 : 0;
	swr.send_flags = IBV_SEND_SIGNALED;
	if (agent_u64(l, "se", &se) && se)
		swr.send_flags |= IBV_SEND_SOLICITED;
	if (!strcmp(verb, "SEND")) {
		swr.opcode = with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
		swr.imm_data = htonl(imm);
		if (a->ud) {
			swr.wr.ud.ah = a->ah;
			swr.wr.ud.remote_qpn = a->peer_qpn;
			swr.wr.ud.remote_qkey = a->peer_qkey;
		}
	} else if (!strcmp(verb, "WRITE")) {
		swr.opcode = with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM :
					IBV_WR_RDMA_WRITE;
		swr.imm_data = htonl(imm);
		swr.wr.rdma.remote_addr = va;
		swr.wr.rdma.rkey = rkey;
	} else if (!strcmp(verb, "READ")) {
		swr.opcode = IBV_WR_RDMA_READ;
		swr.wr.rdma.remote_addr = va;
		swr.wr.rdma.rkey = rkey;
	} else {
		agent_word(l, "op", op, sizeof(op));
		agent_u64(l, "add", &add);
		agent_u64(l, "cmp", &cmp);
		swr.opcode = !strcmp(op, "cswap") ? IBV_WR_ATOMIC_CMP_AND_SWP :
						    IBV_WR_ATOMIC_FETCH_AND_ADD;
		swr.wr.atomic.remote_addr = va;
		swr.wr.atomic.rkey = rkey;
		swr.wr.atomic.compare_add = !strcmp(op, "cswap") ? cmp : add;
		swr.wr.atomic.swap = add;
	}
	e = ibv_post_send(a->qp, &swr, &sbad);
out:
	if (e)
		ka_reply(a, "ERR post %s: %s", verb, strerror(e));
	else
		ka_reply(a, "OK");
}

static const char *ka_status(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_SUCCESS: return "success";
	case IBV_WC_RETRY_EXC_ERR: return "retry_exc";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "rnr_retry_exc";
	case IBV_WC_REM_INV_REQ_ERR: return "rem_inv_req";
	case IBV_WC_REM_ACCESS_ERR: return "rem_access";
	case IBV_WC_REM_OP_ERR: return "rem_op";
	case IBV_WC_LOC_LEN_ERR: return "loc_len";
	case IBV_WC_LOC_PROT_ERR: return "loc_prot";
	case IBV_WC_WR_FLUSH_ERR: return "flush";
	default: return "other";
	}
}

static const char *ka_opcode(enum ibv_wc_opcode o)
{
	switch (o) {
	case IBV_WC_SEND: return "send";
	case IBV_WC_RDMA_WRITE: return "write";
	case IBV_WC_RDMA_READ: return "read";
	case IBV_WC_COMP_SWAP: return "cmp_swap";
	case IBV_WC_FETCH_ADD: return "fetch_add";
	case IBV_WC_RECV: return "recv";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "recv_rdma_imm";
	default: return "other";
	}
}

static void ka_poll(struct kagent *a, const char *l)
{
	static char line[AGENT_LINE];
	struct ibv_wc wc[32];
	uint64_t ms = 0;
	double end;
	size_t n = 0;
	int got, i;

	agent_u64(l, "ms", &ms);
	end = now() + ms / 1000.0;
	for (;;) {
		got = ibv_poll_cq(a->k->cq, 32, wc);
		if (got || now() >= end)
			break;
		usleep(200);
	}
	if (got < 0)
		got = 0;
	for (i = 0; i < got && n < sizeof(line) - 100; i++)
		n += snprintf(line + n, sizeof(line) - n, " wc=%llu:%s:%s:%u:%u",
			      (unsigned long long)wc[i].wr_id,
			      ka_status(wc[i].status), ka_opcode(wc[i].opcode),
			      wc[i].byte_len,
			      wc[i].wc_flags & IBV_WC_WITH_IMM ?
			      ntohl(wc[i].imm_data) : 0);
	line[n] = 0;
	ka_reply(a, "OK n=%d%s", got, line);
}

/* every file of the port's hw_counters, as name=value */
static void ka_counters(struct kagent *a)
{
	static char line[AGENT_LINE];
	char dir[256], path[512], val[64];
	struct dirent *d;
	size_t n = 0;
	DIR *dp;
	FILE *f;

	if (a->k->counters)
		snprintf(dir, sizeof(dir), "%s", a->k->counters);
	else
		snprintf(dir, sizeof(dir),
			 "/sys/class/infiniband/%s/ports/1/hw_counters",
			 a->k->dev_name);
	dp = opendir(dir);
	if (!dp) {
		ka_reply(a, "ERR %s: %s", dir, strerror(errno));
		return;
	}
	while ((d = readdir(dp)) && n < sizeof(line) - 128) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, "lifespan"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(val, sizeof(val), f))
			n += snprintf(line + n, sizeof(line) - n, " %s=%llu",
				      d->d_name, strtoull(val, NULL, 0));
		fclose(f);
	}
	closedir(dp);
	line[n] = 0;
	ka_reply(a, "OK%s", line);
}

static void ka_state(struct kagent *a)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr at;

	if (!a->qp || ibv_query_qp(a->qp, &at, IBV_QP_STATE, &ia)) {
		ka_reply(a, "OK state=RESET");
		return;
	}
	ka_reply(a, "OK state=%s", at.qp_state < 7 ? names[at.qp_state] : "?");
}

static void ka_handle(struct kagent *a, const char *l)
{
	static char hex[AGENT_LINE];
	uint64_t off = 0, len = 0;
	const char *p;
	char verb[16];
	size_t i = 0;
	int n;

	while (l[i] && l[i] != ' ' && i + 1 < sizeof(verb)) {
		verb[i] = l[i];
		i++;
	}
	verb[i] = 0;
	if (a->k->verbose)
		fprintf(stderr, "kside agent: > %.300s\n", l);
	agent_u64(l, "off", &off);
	agent_u64(l, "len", &len);
	if (!strcmp(verb, "INFO")) {
		ka_reply(a, "OK impl=kernel dev=%s counters=hw_counters",
			 a->k->dev_name);
	} else if (!strcmp(verb, "CREATE")) {
		ka_create(a, l);
	} else if (!strcmp(verb, "CONNECT")) {
		ka_connect(a, l);
	} else if (!strcmp(verb, "RECV") || !strcmp(verb, "SEND") ||
		   !strcmp(verb, "WRITE") || !strcmp(verb, "READ") ||
		   !strcmp(verb, "ATOMIC")) {
		ka_post(a, verb, l);
	} else if (!strcmp(verb, "POLL")) {
		ka_poll(a, l);
	} else if (!strcmp(verb, "MEM")) {
		if (off > AGENT_REGION || len > AGENT_REGION - off ||
		    2 * len + 32 > sizeof(hex)) {
			ka_reply(a, "ERR off/len");
			return;
		}
		agent_hex(a->region + off, len, hex);
		ka_reply(a, "OK hex=%s", hex);
	} else if (!strcmp(verb, "SETMEM")) {
		p = strstr(l, " hex=");
		n = p && off <= AGENT_REGION ?
		    agent_unhex(p + 5, a->region + off, AGENT_REGION - off) : -1;
		if (n < 0)
			ka_reply(a, "ERR off/hex");
		else
			ka_reply(a, "OK len=%d", n);
	} else if (!strcmp(verb, "COUNTERS")) {
		ka_counters(a);
	} else if (!strcmp(verb, "STATE")) {
		ka_state(a);
	} else if (!strcmp(verb, "DESTROY")) {
		ka_destroy(a);
		ka_reply(a, "OK");
	} else {
		ka_reply(a, "ERR unknown verb %s", verb);
	}
}

static int run_agent(struct kside *k)
{
	static char line[AGENT_LINE];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct kagent a = { .k = k };
	int lfd, one = 1;

	a.region = buf_alloc(AGENT_REGION);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_port = htons(k->listen_port);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1))
		die("agent port %u: %s", k->listen_port, strerror(errno));
	a.conn.fd = accept(lfd, NULL, NULL);
	close(lfd);
	if (a.conn.fd < 0)
		die("accept: %s", strerror(errno));
	while (agent_getline(&a.conn, line, sizeof(line), -1) > 0)
		ka_handle(&a, line);
	ka_destroy(&a);
	close(a.conn.fd);
	free(a.region);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
"usage: kside --server --listen PORT -d DEV -g GIDIDX [options]\n"
"       kside --client --connect IP:PORT -d DEV -g GIDIDX [options]\n"
"       kside --agent PORT -d DEV -g GIDIDX [--port N] [--counters DIR] [-v]\n"
"         (the conformance suite's agent: tools/conform)\n"
"  -d, --dev DEV        RDMA device (mr1)\n"
"  -g, --gid N          index of the device's IPv4-mapped RoCE v2 GID\n"
"      --port N         the device's metaroce UDP port (4796)\n"
"      --bytes SIZE     workload (8M); --msg SIZE: message size (64K)\n"
"      --ops LIST       client: write,send,read (all)\n"
"      --seed N         client: pattern seed (random)\n"
"  -T, --timeout S      give up after S seconds (120)\n"
"  -v                   log the side channel and the connection\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "server", 0, NULL, 'S' }, { "client", 0, NULL, 'C' },
		{ "listen", 1, NULL, 'L' }, { "connect", 1, NULL, 'c' },
		{ "dev", 1, NULL, 'd' }, { "gid", 1, NULL, 'g' },
		{ "port", 1, NULL, 'P' }, { "bytes", 1, NULL, 'b' },
		{ "msg", 1, NULL, 'm' }, { "ops", 1, NULL, 'o' },
		{ "seed", 1, NULL, 's' }, { "timeout", 1, NULL, 'T' },
		{ "verbose", 0, NULL, 'v' }, { "help", 0, NULL, 'h' },
		{ "agent", 1, NULL, 'A' }, { "counters", 1, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	struct kside k = {
		.gid_index = -1, .udp_port = 4796, .bytes = 8 << 20,
		.msg = 64 << 10, .op_write = true, .op_send = true,
		.op_read = true, .timeout_s = 120, .sc = -1,
	};
	bool role = false;
	char *tok, *save;
	int ch, rc;

	while ((ch = getopt_long(argc, argv, "d:g:T:vh", lo, NULL)) != -1) {
		switch (ch) {
		case 'S': k.server = true; role = true; break;
		case 'C': k.server = false; role = true; break;
		case 'N': k.counters = optarg; break;
		case 'A': k.agent = true; k.listen_port = atoi(optarg); role = true; break;
		case 'L': k.listen_port = atoi(optarg); break;
		case 'c': k.connect = optarg; break;
		case 'd': k.dev_name = optarg; break;
		case 'g': k.gid_index = atoi(optarg); break;
		case 'P': k.udp_port = atoi(optarg); break;
		case 'b': k.bytes = size_arg(optarg); break;
		case 'm': k.msg = size_arg(optarg); break;
		case 'o':
			k.op_write = k.op_send = k.op_read = false;
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (!strcmp(tok, "write"))
					k.op_write = true;
				else if (!strcmp(tok, "send"))
					k.op_send = true;
				else if (!strcmp(tok, "read"))
					k.op_read = true;
				else
					usage();
			}
			break;
		case 's': k.seed = strtoull(optarg, NULL, 0); break;
		case 'T': k.timeout_s = atoi(optarg); break;
		case 'v': k.verbose++; break;
		default: usage();
		}
	}
	if (!role || !k.dev_name || k.gid_index < 0 || !k.msg || k.msg & 7 ||
	    k.msg > (1u << 30) || k.timeout_s < 1 ||
	    (k.server || k.agent ? !k.listen_port : !k.connect))
		usage();
	if (!k.seed)
		k.seed = ((uint64_t)random24() << 24) | random24();
	k.deadline = now() + k.timeout_s;
	dev_open(&k);
	if (k.agent) {
		rc = run_agent(&k);
		ibv_destroy_cq(k.cq);
		ibv_destroy_comp_channel(k.ch);
		return rc;
	}
	qp_create(&k);
	rc = k.server ? run_server(&k) : run_client(&k);
	ibv_destroy_qp(k.qp);
	ibv_destroy_cq(k.cq);
	ibv_destroy_comp_channel(k.ch);
	close(k.sc);
	return rc;
}
