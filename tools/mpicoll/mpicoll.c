// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mpicoll: latency and bus bandwidth of MPI collectives over message sizes,
 * every result checked, printed in the style of the OSU micro-benchmarks.
 *
 * For each collective of -c and each size from 8 bytes (or -n) to -m,
 * doubling, the ranks run -x untimed and then N timed operations, each
 * started after an MPI_Barrier; an operation's time is the slowest rank's.
 * N is -i, fewer for large sizes (at most -b bytes per rank per size, at
 * least 2 operations).  Sizes:
 *
 *   alltoall   bytes each rank sends to each other rank (and itself)
 *   allreduce  bytes of the vector each rank contributes (int32 sum)
 *   bcast      bytes rank 0 sends to all
 *
 * Every operation's buffers hold a pattern of (rank, peer, operation,
 * index) and every received element is compared with what its sender must
 * have sent (for allreduce: the sum over the ranks), so data moved wrong
 * is counted, not timed.  Bus bandwidth follows nccl-tests: the algorithm
 * bandwidth (size / time) times (n-1)/n for alltoall, 2(n-1)/n for
 * allreduce and 1 for bcast, in MB/s (10^6 bytes).
 *
 * Output (rank 0), one block per collective:
 *   # mpicoll MPI_Alltoall: 2 processes
 *   # Size  Avg Latency(us)  Min Latency(us)  Max Latency(us)  Iterations  Bus BW(MB/s)  Errors
 * and a last line "mpicoll: ranks=N errors=E"; exit 0 when E is 0.
 * -F (self-test): the last rank changes one received element of every
 * size's first operation before checking it: each size must then report
 * one error.
 *
 * Usage: mpicoll [-c alltoall,allreduce,bcast] [-n MIN] [-m MAX] [-i ITERS]
 *                [-x WARMUP] [-b BYTES] [-F]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum coll { C_ALLTOALL, C_ALLREDUCE, C_BCAST, C_N };

static const char *const coll_name[C_N] = { "alltoall", "allreduce", "bcast" };
static const char *const coll_mpi[C_N] = {
	"MPI_Alltoall", "MPI_Allreduce", "MPI_Bcast"
};

static int rank, nranks;

/* the int32 element IDX that rank FROM sends to rank TO in operation OP */
static int32_t pattern(int from, int to, long op, size_t idx)
{
	uint32_t x = (uint32_t)from * 2654435761u ^ (uint32_t)to * 40503u ^
		     (uint32_t)op * 2246822519u ^ (uint32_t)idx * 3266489917u;

	x ^= x >> 15;
	/* small enough that the sum over any number of ranks cannot overflow */
	return (int32_t)(x & 0xffffff);
}

static void fill(enum coll c, int32_t *sbuf, size_t n, long op)
{
	size_t i;
	int p;

	switch (c) {
	case C_ALLTOALL:
		for (p = 0; p < nranks; p++)
			for (i = 0; i < n; i++)
				sbuf[(size_t)p * n + i] = pattern(rank, p, op, i);
		break;
	case C_ALLREDUCE:
		for (i = 0; i < n; i++)
			sbuf[i] = pattern(rank, -1, op, i);
		break;
	case C_BCAST:
		for (i = 0; i < n; i++)
			sbuf[i] = rank == 0 ? pattern(0, -1, op, i) : -1;
		break;
	default:
		break;
	}
}

/* elements of the result of operation OP that differ from what must be */
static long check(enum coll c, const int32_t *rbuf, size_t n, long op)
{
	long bad = 0;
	size_t i;
	int p;

	switch (c) {
	case C_ALLTOALL:
		for (p = 0; p < nranks; p++)
			for (i = 0; i < n; i++)
				bad += rbuf[(size_t)p * n + i] != pattern(p, rank, op, i);
		break;
	case C_ALLREDUCE:
		for (i = 0; i < n; i++) {
			int64_t sum = 0;

			for (p = 0; p < nranks; p++)
				sum += pattern(p, -1, op, i);
			bad += rbuf[i] != (int32_t)sum;
		}
		break;
	case C_BCAST:
		for (i = 0; i < n; i++)
			bad += rbuf[i] != pattern(0, -1, op, i);
		break;
	default:
		break;
	}
	return bad;
}

static void run(enum coll c, int32_t *sbuf, int32_t *rbuf, size_t n)
{
	switch (c) {
	case C_ALLTOALL:
		MPI_Alltoall(sbuf, (int)n, MPI_INT32_T, rbuf, (int)n, MPI_INT32_T,
			     MPI_COMM_WORLD);
		break;
	case C_ALLREDUCE:
		MPI_Allreduce(sbuf, rbuf, (int)n, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
		break;
	case C_BCAST:
		MPI_Bcast(sbuf, (int)n, MPI_INT32_T, 0, MPI_COMM_WORLD);
		break;
	default:
		break;
	}
}

static double bus_factor(enum coll c)
{
	switch (c) {
	case C_ALLTOALL:
		return (double)(nranks - 1) / nranks;
	case C_ALLREDUCE:
		return 2.0 * (nranks - 1) / nranks;
	default:
		return 1.0;
	}
}

static unsigned long parse_size(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*end == 'k' || *end == 'K')
		v <<= 10;
	else if (*end == 'm' || *end == 'M')
		v <<= 20;
	return v;
}

static void usage(void)
{
	if (rank == 0)
		fprintf(stderr, "usage: mpicoll [-c alltoall,allreduce,bcast] [-n MIN] [-m MAX]\n"
			"               [-i ITERS] [-x WARMUP] [-b BYTES] [-F]\n");
	MPI_Finalize();
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long minsz = 8, maxsz = 4UL << 20, budget = 64UL << 20;
	long iters = 50, warmup = 5, errors = 0;
	int want[C_N] = { 1, 1, 1 }, selftest = 0;
	int32_t *sbuf, *rbuf;
	size_t cap;
	int opt, c;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "c:n:m:i:x:b:F")) != -1) {
		switch (opt) {
		case 'c':
			memset(want, 0, sizeof(want));
			for (c = 0; c < C_N; c++)
				want[c] = strstr(optarg, coll_name[c]) != NULL;
			break;
		case 'n': minsz = parse_size(optarg); break;
		case 'm': maxsz = parse_size(optarg); break;
		case 'i': iters = atol(optarg); break;
		case 'x': warmup = atol(optarg); break;
		case 'b': budget = parse_size(optarg); break;
		case 'F': selftest = 1; break;
		default: usage();
		}
	}
	if (minsz < 4 || maxsz < minsz || maxsz > (1UL << 30) || iters < 1 || warmup < 0)
		usage();
	/* alltoall holds a block per rank */
	cap = maxsz / 4 * (size_t)nranks;
	sbuf = malloc(cap * 4);
	rbuf = malloc(cap * 4);
	if (!sbuf || !rbuf) {
		fprintf(stderr, "mpicoll: rank %d: out of memory\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	for (c = 0; c < C_N; c++) {
		unsigned long size;

		if (!want[c])
			continue;
		if (rank == 0) {
			printf("# mpicoll %s: %d processes\n", coll_mpi[c], nranks);
			printf("# %-10s %16s %16s %16s %11s %14s %8s\n", "Size",
			       "Avg Latency(us)", "Min Latency(us)", "Max Latency(us)",
			       "Iterations", "Bus BW(MB/s)", "Errors");
			fflush(stdout);
		}
		for (size = minsz; size <= maxsz; size *= 2) {
			size_t n = size / 4;
			long ops = iters, op, bad = 0, allbad;
			double t, sum = 0, mn = 1e30, mx = 0, slow, avg;

			if ((long)(budget / size) < ops)
				ops = budget / size < 2 ? 2 : (long)(budget / size);
			for (op = 0; op < warmup + ops; op++) {
				fill(c, sbuf, n, op);
				MPI_Barrier(MPI_COMM_WORLD);
				t = MPI_Wtime();
				run(c, sbuf, c == C_BCAST ? NULL : rbuf, n);
				t = MPI_Wtime() - t;
				if (selftest && op == 0 && rank == nranks - 1)
					(c == C_BCAST ? sbuf : rbuf)[n / 2] ^= 1;
				bad += check(c, c == C_BCAST ? sbuf : rbuf, n, op);
				MPI_Allreduce(&t, &slow, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
				if (op < warmup)
					continue;
				sum += slow;
				mn = slow < mn ? slow : mn;
				mx = slow > mx ? slow : mx;
			}
			MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
			errors += allbad;
			avg = sum / ops;
			if (rank == 0) {
				printf("%-12lu %16.2f %16.2f %16.2f %11ld %14.2f %8ld\n", size,
				       avg * 1e6, mn * 1e6, mx * 1e6, ops,
				       size / avg / 1e6 * bus_factor(c), allbad);
				fflush(stdout);
			}
		}
	}
	if (rank == 0)
		printf("mpicoll: ranks=%d errors=%ld\n", nranks, errors);
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return errors ? 1 : 0;
}
