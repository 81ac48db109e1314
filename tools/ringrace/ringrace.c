// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ringrace: a user who scribbles over its own queue rings while the kernel
 * works on them.
 *
 * A verbs device with the rxe user ABI shares each queue with user space:
 * a struct rxe_queue_buf (log2_elem_size, index_mask, producer_index at
 * byte 128, consumer_index at byte 256, the slots from byte 384) mapped
 * from /dev/infiniband/uverbsN.  The user writes the producer index of the
 * send, receive and shared receive queues and the consumer index of the
 * completion queue; the kernel must read each once, bound it by the ring,
 * and never let it decide how long a loop runs.
 *
 * Each round creates a CQ, every other round an SRQ, and an RC QP
 * connected to itself; a second thread then writes random and plausible
 * indices into every ring (both indices, whatever side owns them) and
 * random bytes over random slots (malformed WQEs and CQEs), while this
 * thread posts sends and receives, polls, moves the QP to the error state
 * (the flush), and destroys everything.  The racing thread goes on through
 * the destroys; a write to a ring already unmapped is caught (SIGSEGV) and
 * skipped.  Every verbs call must return: the longest one is reported, and
 * the kernel's soft-lockup and hung-task reports are the test's real
 * verdict (checked in dmesg by the caller).
 *
 * Each round runs in a child process: the provider reads the rings too
 * and may fault on what the racer wrote (user space hurting itself); the
 * kernel then tears down what the dead process left.  A line per round
 * (calls, failures, the longest call, ring writes), then a summary.
 *
 * Usage: ringrace [-d DEV] [-n ROUNDS] [-t SECONDS] [-s SEED]
 * Exit 0 when the rounds ran (errors from the verbs under attack are
 * expected and counted), 1 when the setup failed, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mro_xorshift.h"

#define RING_PROD_OFF	128
#define RING_CONS_OFF	256
#define RING_DATA_OFF	384
#define MAX_RINGS	16

struct ring {
	uint8_t *base;
	size_t len;
	uint32_t mask;
};

static struct ring rings[MAX_RINGS];
static atomic_int nrings;
static atomic_int stop;
static atomic_uint racer_gen;	/* bumped by the racer after each pass */
static atomic_ulong writes, faults;

static __thread sigjmp_buf race_jmp;
static __thread volatile sig_atomic_t in_race;

static double max_call_s;
static const char *max_call_name = "none";
static unsigned long calls, call_errors;

static uint64_t rng_state;

static uint32_t rnd(void)
{
	return mro_xorshift(&rng_state);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* time one verbs call; @err: its result was a failure */
static void timed(const char *name, double t0, int err)
{
	double d = now_s() - t0;

	calls++;
	if (err)
		call_errors++;
	if (d > max_call_s) {
		max_call_s = d;
		max_call_name = name;
	}
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (in_race) {
		in_race = 0;
		siglongjmp(race_jmp, 1);
	}
	/* the provider tripped over its own scribbled ring: the round ends */
	if (getenv("RINGRACE_DEBUG")) {
		void *bt[32];
		char msg[96];
		int n = snprintf(msg, sizeof(msg), "fault at %p\n", si->si_addr);

		write(2, msg, n);
		backtrace_symbols_fd(bt, backtrace(bt, 32), 2);
	}
	_exit(128 + sig);
}

/* the racer's random stream (not a local: it lives across siglongjmp) */
static __thread uint64_t race_rng;

static void *racer(void *arg)
{
	race_rng = (uintptr_t)arg | 1;

	while (!atomic_load(&stop)) {
		int i, n = atomic_load(&nrings);

		if (sigsetjmp(race_jmp, 1))
			atomic_fetch_add(&faults, 1);	/* unmapped meanwhile */
		for (i = 0; i < n && !atomic_load(&stop); i++) {
			struct ring r = rings[i];
			volatile uint32_t *prod, *cons;
			uint32_t v;

			v = mro_xorshift(&race_rng);
			if (!r.base || atomic_load(&nrings) <= i)
				continue;
			prod = (volatile uint32_t *)(r.base + RING_PROD_OFF);
			cons = (volatile uint32_t *)(r.base + RING_CONS_OFF);
			in_race = 1;
			/*
			 * Mostly indices inside the ring: the provider keeps
			 * them masked and computes slot addresses from them
			 * unchecked, so an unmasked one (now and then) makes it
			 * fault, and the round ends early.
			 */
			switch (v & 7) {
			case 0:
				*prod = v & r.mask;	/* anywhere */
				break;
			case 1:
				*cons = v & r.mask;
				break;
			case 2:	/* a plausible step, or a whole ring ahead */
				*prod = (*prod + 1 + (v >> 8) % (r.mask + 2)) &
					r.mask;
				break;
			case 3:
				*cons = (*cons - 1 - (v >> 8) % (r.mask + 2)) &
					r.mask;
				break;
			case 4:
				*prod = *cons;	/* empty */
				break;
			case 5:
				if (!((v >> 8) & 255)) {
					*prod = v;	/* unmasked */
					break;
				}
				/* fall through */
			default: {	/* a malformed element somewhere */
				size_t room = r.len - RING_DATA_OFF, off;
				int k;

				off = RING_DATA_OFF + ((size_t)v * 64) % room;
				for (k = 0; k < 16 && off + 4 * k + 4 <= r.len; k++)
					*(volatile uint32_t *)(r.base + off + 4 * k) =
						(uint32_t)(race_rng >> (k & 31)) ^ v;
				break;
			}
			}
			in_race = 0;
			atomic_fetch_add(&writes, 1);
		}
		atomic_fetch_add(&racer_gen, 1);
		if (!n)
			usleep(100);
	}
	return NULL;
}

/* the queue rings mapped now: every uverbs mapping with a sane header */
static int find_rings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return 0;
	while (n < MAX_RINGS && fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		const uint32_t *h;

		if (!strstr(line, "uverbs") ||
		    sscanf(line, "%lx-%lx", &a, &b) != 2 || b - a <= RING_DATA_OFF)
			continue;
		h = (const uint32_t *)a;
		if (h[0] < 4 || h[0] > 16 || (h[1] & (h[1] + 1)))
			continue;
		rings[n].base = (uint8_t *)a;
		rings[n].len = b - a;
		rings[n].mask = h[1];
		n++;
	}
	fclose(f);
	return n;
}

/* stop racing the rings, and wait until the racer has let go of them */
static void rings_release(void)
{
	unsigned int g;

	atomic_store(&nrings, 0);
	g = atomic_load(&racer_gen);
	while (atomic_load(&racer_gen) - g < 2)
		usleep(50);
}

static int self_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	struct ibv_port_attr pa;
	int i;

	if (ibv_query_port(ctx, 1, &pa))
		return -1;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };

		if (ibv_query_gid(ctx, 1, i, gid))
			continue;
		if (!memcmp(gid->raw, v4, sizeof(v4)))
			return i;
	}
	return -1;
}

static void connect_self(struct ibv_qp *qp, int gidx, const union ibv_gid *gid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	uint32_t psn = rnd() & 0xffffff;
	double t0 = now_s();

	timed("modify_qp(INIT)", t0, ibv_modify_qp(qp, &a, IBV_QP_STATE |
			IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.rq_psn = psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	t0 = now_s();
	timed("modify_qp(RTR)", t0, ibv_modify_qp(qp, &a, IBV_QP_STATE |
			IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 8;
	a.retry_cnt = 1;
	a.rnr_retry = 1;
	a.sq_psn = psn;
	a.max_rd_atomic = 1;
	t0 = now_s();
	timed("modify_qp(RTS)", t0, ibv_modify_qp(qp, &a, IBV_QP_STATE |
			IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC));
}

static void poll_some(struct ibv_cq *cq, int rounds)
{
	struct ibv_wc wc[16];
	int i;

	for (i = 0; i < rounds; i++) {
		double t0 = now_s();
		int n = ibv_poll_cq(cq, 16, wc);

		timed("poll_cq", t0, n < 0);
		if (n <= 0)
			usleep(1000);
	}
}

static void post_some(struct ibv_qp *qp, struct ibv_srq *srq, int k)
{
	struct ibv_recv_wr rwr = { .wr_id = k }, *rbad;
	struct ibv_send_wr swr = { .wr_id = k }, *sbad;
	double t0;
	int i;

	for (i = 0; i < 8; i++) {
		swr.opcode = (i & 1) ? IBV_WR_RDMA_WRITE : IBV_WR_SEND;
		swr.send_flags = IBV_SEND_SIGNALED;
		swr.wr.rdma.remote_addr = ((uint64_t)rnd() << 32) | rnd();
		swr.wr.rdma.rkey = rnd();
		t0 = now_s();
		timed("post_send", t0, ibv_post_send(qp, &swr, &sbad));
		t0 = now_s();
		timed("post_recv", t0, srq ? ibv_post_srq_recv(srq, &rwr, &rbad) :
					    ibv_post_recv(qp, &rwr, &rbad));
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: ringrace [-d DEV] [-n ROUNDS] [-t SECONDS] [-s SEED]\n");
	exit(2);
}

/* one round, in a child process; exits 0, 1 (no device), or 128 + signal */
static int round_child(const char *devname, int k, unsigned long seed)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct ibv_srq_init_attr sra = {
		.attr = { .max_wr = 16, .max_sge = 2 },
	};
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	struct sigaction sa = { 0 };
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	union ibv_gid gid;
	pthread_t thr;
	int gidx, i;
	double t0;

	rng_state = (seed + k) * 0x9e3779b97f4a7c15ULL + 1;
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!devname || !strcmp(ibv_get_device_name(list[i]), devname)) {
			ctx = ibv_open_device(list[i]);
			break;
		}
	if (!ctx)
		return 1;
	pd = ibv_alloc_pd(ctx);
	gidx = self_gid(ctx, &gid);
	if (!pd || gidx < 0)
		return 1;
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	pthread_create(&thr, NULL, racer, (void *)(uintptr_t)((seed + k) * 7919));

	t0 = now_s();
	cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	timed("create_cq", t0, !cq);
	if (cq && (k & 1)) {
		t0 = now_s();
		srq = ibv_create_srq(pd, &sra);
		timed("create_srq", t0, !srq);
	}
	if (cq) {
		qa.send_cq = cq;
		qa.recv_cq = cq;
		qa.srq = srq;
		t0 = now_s();
		qp = ibv_create_qp(pd, &qa);
		timed("create_qp", t0, !qp);
	}
	if (qp) {
		atomic_store(&nrings, find_rings());
		connect_self(qp, gidx, &gid);
		post_some(qp, srq, k);
		poll_some(cq, 20);
		t0 = now_s();
		timed("modify_qp(ERR)", t0, ibv_modify_qp(qp, &err, IBV_QP_STATE));
		post_some(qp, srq, k);
		poll_some(cq, 5);
		t0 = now_s();
		timed("destroy_qp", t0, ibv_destroy_qp(qp));
	}
	if (srq) {
		t0 = now_s();
		timed("destroy_srq", t0, ibv_destroy_srq(srq));
	}
	if (cq) {
		t0 = now_s();
		timed("destroy_cq", t0, ibv_destroy_cq(cq));
	}
	rings_release();
	atomic_store(&stop, 1);
	pthread_join(thr, NULL);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("round %d: %lu verbs calls (%lu failed), longest %.3f s (%s), %lu ring writes, %lu after unmap\n",
	       k, calls, call_errors, max_call_s, max_call_name,
	       atomic_load(&writes), atomic_load(&faults));
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = 50, k, c, ran = 0, crashed = 0, status;
	const char *devname = NULL;
	double secs = 60, start, longest = 0;
	unsigned long seed = 1;

	while ((c = getopt(argc, argv, "d:n:t:s:")) != -1) {
		switch (c) {
		case 'd': devname = optarg; break;
		case 'n': rounds = atoi(optarg); break;
		case 't': secs = atof(optarg); break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	start = now_s();
	for (k = 0; k < rounds && now_s() - start < secs; k++) {
		double t0 = now_s();
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid)
			_exit(round_child(devname, k, seed));
		if (waitpid(pid, &status, 0) < 0)
			return 1;
		if (now_s() - t0 > longest)
			longest = now_s() - t0;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 1) {
			fprintf(stderr, "ringrace: no device %s, or no PD or IPv4 GID\n",
				devname ? devname : "");
			return 1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			crashed++;
		ran++;
	}
	printf("ringrace: %d rounds in %.1f s, longest %.3f s, %d ended by a fault in user space\n",
	       ran, now_s() - start, longest, crashed);
	return ran > 0 ? 0 : 1;
}
