/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The data pattern of the refpeer workload, shared by refpeer_cli.c and
 * kside.c so that both ends of an interop run generate and check the same
 * bytes: the byte at absolute offset o of stream @seed is byte o % 8
 * (little-endian) of the 64-bit word mix(seed + o / 8), where mix is the
 * SplitMix64 finalizer.  The side channel's seed= value and these
 * per-operation variations of it select the streams:
 */
#ifndef RP_PATTERN_H
#define RP_PATTERN_H

#include <stdint.h>

#define RP_PAT_WRITE	0x7777	/* WRITEs into the server's region */
#define RP_PAT_SEND	0x5e4d	/* SENDs; message k starts at offset k * msg */
#define RP_PAT_REGION	0xaaaa	/* the server region's first contents */
#define RP_PAT_UD	0xd6	/* UD datagrams */

static inline uint64_t rp_pat_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline uint8_t rp_pat_byte(uint64_t seed, uint64_t off)
{
	return rp_pat_mix(seed + off / 8) >> (8 * (off % 8));
}

static inline void rp_pat_fill(uint8_t *buf, uint64_t len, uint64_t seed,
			       uint64_t off)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		buf[i] = rp_pat_byte(seed, off + i);
}

/* the offset into @buf of the first byte that differs, or @len */
static inline uint64_t rp_pat_check(const uint8_t *buf, uint64_t len,
				    uint64_t seed, uint64_t off)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != rp_pat_byte(seed, off + i))
			return i;
	return len;
}

#endif /* RP_PATTERN_H */
