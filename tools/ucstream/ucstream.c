// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ucstream: a one-way stream of UC SENDs that checks the receiver keeps
 * completing when packets are lost.  UC never retransmits, so under loss
 * some messages are gone; every message that does complete must be intact,
 * in order, and completions must go on to the end of the stream.
 *
 *   ucstream -d DEV -g GIDX [-p PORT] [-s SIZE] [-n COUNT] [-r RXDEPTH]
 *            [-i GAP_US] [-T IDLE_S] [-m MIN_PCT]            (receiver)
 *   ucstream -d DEV -g GIDX [...] HOST                        (sender)
 *
 * Each message carries its sequence number in its first 8 bytes and a
 * pattern derived from it in the rest.  The receiver stops after COUNT
 * messages or IDLE_S seconds without a completion and prints
 *   ucstream: received=R count=N last=S corrupt=C reordered=O errors=E
 * It exits 0 if R >= MIN_PCT % of N, the last message of the stream (or
 * one of the final 5 %) arrived, and C, O and E are 0.  SIGUSR1 ends either
 * side where it is: the sender stops sending (and prints how many it sent),
 * the receiver reports with N the messages up to the last one it received.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct cfg {
	const char *dev, *host, *port;
	int gidx, size, count, rxdepth, gap_us, idle_s, min_pct;
};

static volatile sig_atomic_t stopped;

static void on_usr1(int sig)
{
	(void)sig;
	stopped = 1;
}

struct conn {
	uint32_t qpn, psn;
	union ibv_gid gid;
};

static void die(const char *what)
{
	fprintf(stderr, "ucstream: %s: %s\n", what, strerror(errno));
	exit(2);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint8_t pat(uint64_t seq, size_t i)
{
	return (uint8_t)(seq * 31 + i * 7 + 1);
}

static void fill(uint8_t *buf, size_t len, uint64_t seq)
{
	size_t i;

	memcpy(buf, &seq, sizeof(seq));
	for (i = sizeof(seq); i < len; i++)
		buf[i] = pat(seq, i);
}

static int check(const uint8_t *buf, size_t len, uint64_t *seq)
{
	size_t i;

	memcpy(seq, buf, sizeof(*seq));
	for (i = sizeof(*seq); i < len; i++)
		if (buf[i] != pat(*seq, i))
			return -1;
	return 0;
}

/* TCP: the receiver listens, the sender connects */
static int tcp_sock(const struct cfg *c)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = c->host ? 0 : AI_PASSIVE };
	struct addrinfo *res;
	int fd, one = 1, i;

	if (getaddrinfo(c->host, c->port, &hints, &res))
		die("getaddrinfo");
	fd = socket(res->ai_family, res->ai_socktype, 0);
	if (fd < 0)
		die("socket");
	if (c->host) {
		for (i = 0; connect(fd, res->ai_addr, res->ai_addrlen); i++) {
			if (i == 100)
				die("connect");
			usleep(200000);
		}
	} else {
		int l;

		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 1))
			die("bind");
		l = fd;
		fd = accept(l, NULL, NULL);
		if (fd < 0)
			die("accept");
		close(l);
	}
	freeaddrinfo(res);
	return fd;
}

static void xfer(int fd, void *buf, size_t len, int out)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = out ? write(fd, (char *)buf + done, len - done) :
			  read(fd, (char *)buf + done, len - done);
		if (n <= 0)
			die(out ? "tcp write" : "tcp read");
		done += n;
	}
}

static void modify(struct ibv_qp *qp, const struct cfg *c,
		   const struct conn *me, const struct conn *peer)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qpn;
	a.rq_psn = peer->psn;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = c->gidx;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		die("modify RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = me->psn;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("modify RTS");
}

static void post_recv(struct ibv_qp *qp, struct ibv_mr *mr, uint8_t *buf,
		      int size, int slot)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(buf + (size_t)slot * size),
			       .length = size, .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		die("post_recv");
}

static int receiver(const struct cfg *c, struct ibv_qp *qp, struct ibv_cq *cq,
		    struct ibv_mr *mr, uint8_t *buf, int fd)
{
	long received = 0, corrupt = 0, reordered = 0, errors = 0, count;
	int64_t last = -1;
	double t_last;
	char go = 'g';
	int i, n;

	for (i = 0; i < c->rxdepth; i++)
		post_recv(qp, mr, buf, c->size, i);
	xfer(fd, &go, 1, 1);
	t_last = now_s();
	while (last < c->count - 1 && now_s() - t_last < c->idle_s && !stopped) {
		struct ibv_wc wc[16];

		n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			die("poll_cq");
		if (!n) {
			usleep(100);
			continue;
		}
		t_last = now_s();
		for (i = 0; i < n; i++) {
			uint64_t seq;
			int slot = (int)wc[i].wr_id;

			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].byte_len != (uint32_t)c->size ||
			    slot < 0 || slot >= c->rxdepth) {
				fprintf(stderr, "ucstream: bad completion status %d len %u wr_id %d\n",
					wc[i].status, wc[i].byte_len, slot);
				errors++;
				continue;
			}
			received++;
			if (check(buf + (size_t)slot * c->size, c->size, &seq)) {
				fprintf(stderr, "ucstream: message %llu (slot %d) corrupt\n",
					(unsigned long long)seq, slot);
				corrupt++;
			} else if ((int64_t)seq <= last || seq >= (uint64_t)c->count) {
				fprintf(stderr, "ucstream: message %llu after %lld\n",
					(unsigned long long)seq, (long long)last);
				reordered++;
			} else {
				last = (int64_t)seq;
			}
			memset(buf + (size_t)slot * c->size, 0, c->size);
			post_recv(qp, mr, buf, c->size, slot);
		}
	}
	/* ended by SIGUSR1: the stream is what was sent up to the last seen */
	count = stopped ? last + 1 : c->count;
	printf("ucstream: received=%ld count=%ld last=%lld corrupt=%ld reordered=%ld errors=%ld\n",
	       received, count, (long long)last, corrupt, reordered, errors);
	return received * 100 >= (long)c->min_pct * count &&
	       last >= count - 1 - count / 20 &&
	       !corrupt && !reordered && !errors ? 0 : 1;
}

static int sender(const struct cfg *c, struct ibv_qp *qp, struct ibv_cq *cq,
		  struct ibv_mr *mr, uint8_t *buf, int fd)
{
	int outstanding = 0, i, n, slots = c->rxdepth;
	char go;
	long s;

	xfer(fd, &go, 1, 0);
	for (s = 0; s < c->count && !stopped; s++) {
		int slot = s % slots;
		struct ibv_sge sge = { .addr = (uintptr_t)(buf + (size_t)slot * c->size),
				       .length = c->size, .lkey = mr->lkey };
		struct ibv_send_wr wr = { .wr_id = s, .sg_list = &sge,
					  .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;
		struct ibv_wc wc[16];

		/* a slot is reused only after its last send completed */
		for (;;) {
			n = ibv_poll_cq(cq, 16, wc);
			if (n < 0)
				die("poll_cq");
			for (i = 0; i < n; i++)
				if (wc[i].status != IBV_WC_SUCCESS) {
					fprintf(stderr, "ucstream: send status %d\n",
						wc[i].status);
					return 1;
				}
			outstanding -= n;
			if (outstanding < slots / 2)
				break;
			if (!n)
				usleep(50);
		}
		fill(buf + (size_t)slot * c->size, c->size, s);
		if (ibv_post_send(qp, &wr, &bad))
			die("post_send");
		outstanding++;
		if (c->gap_us)
			usleep(c->gap_us);
	}
	printf("ucstream: sent=%ld\n", s);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: ucstream -d DEV -g GIDX [-p PORT] [-s SIZE] [-n COUNT] [-r RXDEPTH] [-i GAP_US] [-T IDLE_S] [-m MIN_PCT] [HOST]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct cfg c = { .port = "18777", .gidx = -1, .size = 4096,
			 .count = 2000, .rxdepth = 256, .gap_us = 1000,
			 .idle_s = 20, .min_pct = 85 };
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_qp_init_attr qa = {};
	struct conn me = {}, peer;
	struct ibv_port_attr pa;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	uint8_t *buf;
	int opt, i, fd, rc;

	signal(SIGUSR1, on_usr1);
	while ((opt = getopt(argc, argv, "d:g:p:s:n:r:i:T:m:h")) != -1) {
		switch (opt) {
		case 'd': c.dev = optarg; break;
		case 'g': c.gidx = atoi(optarg); break;
		case 'p': c.port = optarg; break;
		case 's': c.size = atoi(optarg); break;
		case 'n': c.count = atoi(optarg); break;
		case 'r': c.rxdepth = atoi(optarg); break;
		case 'i': c.gap_us = atoi(optarg); break;
		case 'T': c.idle_s = atoi(optarg); break;
		case 'm': c.min_pct = atoi(optarg); break;
		default: usage();
		}
	}
	if (optind < argc)
		c.host = argv[optind];
	if (!c.dev || c.gidx < 0 || c.size < 8 || c.count < 1 ||
	    c.rxdepth < 2)
		usage();

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), c.dev))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("open device");
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, c.rxdepth * 2, NULL, NULL, 0) : NULL;
	buf = calloc(c.rxdepth, c.size);
	mr = cq && buf ? ibv_reg_mr(pd, buf, (size_t)c.rxdepth * c.size,
				    IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!mr)
		die("pd/cq/mr");
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_UC;
	qa.cap.max_send_wr = c.rxdepth;
	qa.cap.max_recv_wr = c.rxdepth;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &qa);
	if (!qp)
		die("create_qp");
	if (ibv_query_port(ctx, 1, &pa) ||
	    ibv_query_gid(ctx, 1, c.gidx, &me.gid))
		die("query port/gid");
	srand48(getpid() ^ time(NULL));
	me.qpn = qp->qp_num;
	me.psn = lrand48() & 0xffffff;

	fd = tcp_sock(&c);
	xfer(fd, &me, sizeof(me), 1);
	xfer(fd, &peer, sizeof(peer), 0);
	modify(qp, &c, &me, &peer);
	rc = c.host ? sender(&c, qp, cq, mr, buf, fd) :
		      receiver(&c, qp, cq, mr, buf, fd);
	close(fd);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(buf);
	return rc;
}
