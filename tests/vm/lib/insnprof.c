// SPDX-License-Identifier: GPL-2.0
/*
 * insnprof: a QEMU TCG plugin that counts the guest's executed
 * instructions, per translation block in the guest kernel and as one total
 * for user space, and writes snapshots of the counts when the guest asks.
 *
 * Under TCG, perf in the guest cannot profile (cpu-clock lands in the idle
 * loop) and /proc/stat CPU time is sampled and depends on the host's load.
 * The same work executes the same instructions whatever the host does
 * (per-second costs such as timer ticks still weigh more in a slow
 * window; tests/vm/README.md).  A string instruction with a rep prefix counts
 * once per iteration (TCG runs each iteration as its own block).
 *
 * Use: qemu-system-x86_64 ... -plugin insnprof.so,dir=DIR
 * The guest asks for a snapshot by creating DIR/req (shared over 9p) with
 * a name in it; the plugin writes DIR/NAME.snap (a line "user N", then
 * "vaddr ninsns count" per kernel block executed at least once, then
 * "kernel N", their sum; a NAME starting with "t-" gets no block lines) and
 * removes DIR/req when the snapshot is complete.  The snapshot also has
 * "time SECONDS" (host monotonic clock), "ticks HZ" and one "task TID COMM
 * UTIME STIME" line per QEMU thread (host CPU time in ticks: the vCPU
 * thread and the main loop that emulates the devices).  The counts are
 * cumulative; a profile is the difference of two snapshots
 * (tests/vm/lib/insnprof-report.py).  The vCPUs are not stopped while the
 * snapshot is written; with one vCPU per VM the counts are exact.
 *
 * Only the plugin API calls below are used (QEMU 7.2's API version 1:
 * register_vcpu_tb_exec_inline was replaced by per-vCPU scoreboards in
 * QEMU 9); the declarations are ours.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_info_t;

#define PLUGIN_EXPORT __attribute__((visibility("default")))
#define PLUGIN_OP_ADD_U64 0	/* enum qemu_plugin_op's first member */

typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      int op, void *ptr,
					      uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

PLUGIN_EXPORT int qemu_plugin_version = 1;

/* x86-64: the kernel's half of the canonical address space */
#define KERNEL_START 0xffff800000000000ULL

struct block {
	uint64_t count;		/* executions, added to inline */
	uint64_t vaddr;
	uint64_t ninsns;
};

#define CHUNK_BLOCKS 65536
#define MAX_CHUNKS 4096

static struct block *chunks[MAX_CHUNKS];
static uint64_t nblocks;		/* published with a release store */
static uint64_t user_insns;
static pthread_mutex_t add_lock = PTHREAD_MUTEX_INITIALIZER;
static char dir[4096];

/*
 * A block for this translation, filled and published under the lock; NULL
 * when out of room (the block goes uncounted).
 */
static struct block *block_add(uint64_t vaddr, uint64_t ninsns)
{
	struct block *b = NULL;
	uint64_t n, c;

	pthread_mutex_lock(&add_lock);
	n = nblocks;
	c = n / CHUNK_BLOCKS;
	if (c < MAX_CHUNKS && !chunks[c])
		chunks[c] = calloc(CHUNK_BLOCKS, sizeof(struct block));
	if (c < MAX_CHUNKS && chunks[c]) {
		b = &chunks[c][n % CHUNK_BLOCKS];
		b->vaddr = vaddr;
		b->ninsns = ninsns;
		__atomic_store_n(&nblocks, n + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&add_lock);
	return b;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	uint64_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	(void)id;
	if (vaddr < KERNEL_START) {
		qemu_plugin_register_vcpu_tb_exec_inline(tb, PLUGIN_OP_ADD_U64,
							 &user_insns, n);
		return;
	}
	b = block_add(vaddr, n);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, PLUGIN_OP_ADD_U64,
							 &b->count, 1);
}

/*
 * QEMU's own threads' CPU time (the vCPU, the main loop that runs the
 * virtio devices and the timers, workers): "task TID COMM UTIME STIME" in
 * clock ticks, from /proc/self/task/TID/stat.
 */
static void tasks(FILE *out)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[300], buf[1024], *p, *q;
		unsigned long ut, st;
		FILE *f;
		size_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat",
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		p = strchr(buf, '(');
		q = strrchr(buf, ')');
		if (!p || !q || q < p)
			continue;
		*q = 0;
		for (char *c = p + 1; *c; c++)
			if (*c == ' ')
				*c = '_';
		/* after ")": state is field 3; utime, stime are 14 and 15 */
		if (sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			   &ut, &st) == 2)
			fprintf(out, "task %s %s %lu %lu\n", e->d_name, p + 1,
				ut, st);
	}
	closedir(d);
}

/* a name starting "t-" asks for the totals and QEMU's threads only */
static int snapshot(const char *name)
{
	uint64_t n = __atomic_load_n(&nblocks, __ATOMIC_ACQUIRE), i;
	int blocks = strncmp(name, "t-", 2) != 0;
	uint64_t kernel = 0;
	char path[8192], tmp[8300];
	struct timespec now;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.snap", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	clock_gettime(CLOCK_MONOTONIC, &now);
	fprintf(f, "user %" PRIu64 "\n",
		__atomic_load_n(&user_insns, __ATOMIC_RELAXED));
	fprintf(f, "time %lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
	fprintf(f, "ticks %ld\n", sysconf(_SC_CLK_TCK));
	tasks(f);
	for (i = 0; i < n; i++) {
		struct block *b = &chunks[i / CHUNK_BLOCKS][i % CHUNK_BLOCKS];
		uint64_t c = __atomic_load_n(&b->count, __ATOMIC_RELAXED);

		kernel += b->ninsns * c;
		if (blocks && c)
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				b->vaddr, b->ninsns, c);
	}
	fprintf(f, "kernel %" PRIu64 "\n", kernel);
	if (fclose(f))
		return -errno;
	return rename(tmp, path) ? -errno : 0;
}

/*
 * The guest's request: DIR/req holds a name, written in one write(); an
 * empty file is one not written yet.  Characters outside [A-Za-z0-9._-]
 * become '_'.
 */
static void *watch(void *arg)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	struct timespec ms20 = { 0, 20 * 1000 * 1000 };
	char req[4200], name[256];

	(void)arg;
	snprintf(req, sizeof(req), "%s/req", dir);
	for (;;) {
		FILE *f = fopen(req, "r");
		size_t len, i;

		if (!f) {
			nanosleep(&ms20, NULL);
			continue;
		}
		len = fread(name, 1, sizeof(name) - 1, f);
		fclose(f);
		name[len] = 0;
		while (len && (name[len - 1] == '\n' || name[len - 1] == ' '))
			name[--len] = 0;
		if (!len) {
			/* created, not written yet */
			nanosleep(&ms20, NULL);
			continue;
		}
		for (i = 0; i < len; i++)
			if (!strchr(ok, name[i]))
				name[i] = '_';
		if (snapshot(name))
			fprintf(stderr, "insnprof: snapshot %s failed\n", name);
		unlink(req);
	}
	return NULL;
}

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
				      const struct qemu_info_t *info,
				      int argc, char **argv)
{
	pthread_t t;
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "dir=", 4))
			snprintf(dir, sizeof(dir), "%s", argv[i] + 4);
	if (!dir[0]) {
		fprintf(stderr, "insnprof: needs dir=DIR\n");
		return -1;
	}
	if (pthread_create(&t, NULL, watch, NULL))
		return -1;
	pthread_detach(t);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
