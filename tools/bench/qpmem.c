// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qpmem: kernel memory per RC QP of an RDMA device.
 *
 * Reads Slab and VmallocUsed from /proc/meminfo, creates N RC QPs (one PD,
 * one CQ; each QP max_send_wr = max_recv_wr = W, 1 SGE), reads them again,
 * destroys everything and reads a third time (what did not come back).
 * Also reports the slab caches that grew most (/proc/slabinfo, active
 * objects x object size).  Prints one JSON line.
 *
 *   qpmem -d DEV [-n N] [-w W]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define MAX_CACHES 512

struct cache {
	char name[64];
	long long bytes;
};

static long long meminfo_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = atoll(line + n + 1);
			break;
		}
	}
	fclose(f);
	return v;
}

static int slabinfo(struct cache *c, int max)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		long long active, total, size;

		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (sscanf(line, "%63s %lld %lld %lld", c[n].name, &active, &total, &size) != 4)
			continue;
		c[n].bytes = active * size;
		n++;
	}
	fclose(f);
	return n;
}

static void settle(void)
{
	/* let deferred frees (RCU, workqueues) run before reading */
	sync();
	sleep(2);
}

int main(int argc, char **argv)
{
	static struct cache c0[MAX_CACHES], c1[MAX_CACHES];
	const char *devname = NULL;
	int n = 1000, wr = 128, opt, i, j, made = 0, nc0, nc1, num;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp **qps;
	long long s0, v0, s1, v1, s2, v2;
	int shown = 0;
	long long grown = 0;

	while ((opt = getopt(argc, argv, "d:n:w:")) != -1) {
		switch (opt) {
		case 'd': devname = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'w': wr = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s -d DEV [-n QPS] [-w WRS]\n", argv[0]);
			return 2;
		}
	}
	if (n <= 0 || wr <= 0)
		return 2;
	list = ibv_get_device_list(&num);
	for (i = 0; list && i < num; i++)
		if (!devname || !strcmp(ibv_get_device_name(list[i]), devname))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "qpmem: cannot open device %s\n", devname ? devname : "(any)");
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 256, NULL, NULL, 0) : NULL;
	qps = calloc(n, sizeof(*qps));
	if (!cq || !qps) {
		fprintf(stderr, "qpmem: pd/cq: %s\n", strerror(errno));
		return 1;
	}
	settle();
	s0 = meminfo_kb("Slab");
	v0 = meminfo_kb("VmallocUsed");
	nc0 = slabinfo(c0, MAX_CACHES);
	for (i = 0; i < n; i++) {
		struct ibv_qp_init_attr a = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = wr, .max_recv_wr = wr,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		qps[i] = ibv_create_qp(pd, &a);
		if (!qps[i]) {
			fprintf(stderr, "qpmem: QP %d: %s\n", i, strerror(errno));
			break;
		}
		made++;
	}
	settle();
	s1 = meminfo_kb("Slab");
	v1 = meminfo_kb("VmallocUsed");
	nc1 = slabinfo(c1, MAX_CACHES);
	for (i = 0; i < made; i++)
		ibv_destroy_qp(qps[i]);
	settle();
	s2 = meminfo_kb("Slab");
	v2 = meminfo_kb("VmallocUsed");

	printf("{\"device\": \"%s\", \"qps_wanted\": %d, \"qps_created\": %d, \"wr\": %d, "
	       "\"slab_kb\": [%lld, %lld, %lld], \"vmalloc_kb\": [%lld, %lld, %lld], "
	       "\"slab_per_qp\": %.0f, \"vmalloc_per_qp\": %.0f, "
	       "\"slab_not_freed_kb\": %lld, \"vmalloc_not_freed_kb\": %lld, \"caches\": {",
	       ibv_get_device_name(ctx->device), n, made, wr, s0, s1, s2, v0, v1, v2,
	       made ? (s1 - s0) * 1024.0 / made : 0.0, made ? (v1 - v0) * 1024.0 / made : 0.0,
	       s2 - s0, v2 - v0);
	/* caches that grew by more than 16 bytes per QP */
	for (j = 0; j < nc1; j++) {
		long long before = 0;

		for (i = 0; i < nc0; i++)
			if (!strcmp(c0[i].name, c1[j].name))
				before = c0[i].bytes;
		grown += c1[j].bytes - before;
		if (made && c1[j].bytes - before > 16LL * made)
			printf("%s\"%s\": %lld", shown++ ? ", " : "", c1[j].name,
			       (c1[j].bytes - before) / made);
	}
	/* Slab also counts kmalloc() calls too large for a cache (page allocations) */
	printf("}, \"slab_caches_per_qp\": %.0f}\n", made ? (double)grown / made : 0.0);
	free(qps);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return made == n ? 0 : 1;
}
