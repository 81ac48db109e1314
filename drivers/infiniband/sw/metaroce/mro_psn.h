/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * PSN and sequence arithmetic.  PSNs, per-path sequences and message
 * numbers are 32-bit and wrap; compare them only through these helpers.
 * Two values compare correctly while they are less than 2^31 apart.
 */
#ifndef MRO_PSN_H
#define MRO_PSN_H

#include <linux/types.h>
#include <rdma/metaroce_wire.h>

/* the send and receive window (module parameter `window`), PSNs */
#define MRO_WINDOW_MIN	METAROCE_WINDOW_MIN
#define MRO_WINDOW_MAX	METAROCE_WINDOW_MAX

/* signed distance a - b */
static inline s32 mro_seq_diff(u32 a, u32 b)
{
	return (s32)(a - b);
}

static inline bool mro_seq_before(u32 a, u32 b)
{
	return mro_seq_diff(a, b) < 0;
}

static inline bool mro_seq_after(u32 a, u32 b)
{
	return mro_seq_diff(a, b) > 0;
}

static inline bool mro_seq_before_eq(u32 a, u32 b)
{
	return mro_seq_diff(a, b) <= 0;
}

/* whether @seq lies in [start, start + len) */
static inline bool mro_seq_in(u32 seq, u32 start, u32 len)
{
	return seq - start < len;
}

static inline u32 mro_seq_max(u32 a, u32 b)
{
	return mro_seq_after(a, b) ? a : b;
}

/*
 * The ACK rhythm both sides know (and check in HELLO): besides the
 * packets that ask for one (and anything out of order), a responder
 * acknowledges on its own every PSN whose low bits are all ones, one in
 * MRO_ACK_EVERY.  A requester asks only when it cannot send up to the
 * next such PSN.
 */
#define MRO_ACK_EVERY	METAROCE_ACK_EVERY

static inline bool mro_psn_self_acked(u32 psn)
{
	return (psn & (MRO_ACK_EVERY - 1)) == MRO_ACK_EVERY - 1;
}

/* PSNs after @psn up to the next end of a @span (a power of two) */
static inline u32 mro_psn_to_span_end(u32 psn, u32 span)
{
	return (span - 1 - psn) & (span - 1);
}

/*
 * The send window: whether @n more PSNs must wait, with @inflight of @win
 * out.  Silly-window avoidance: a window that closed (*@closed) opens
 * again only once @need PSNs of it are free.  Sent into a PSN or two at a
 * time, every packet would be among the window's last, which ask for an
 * ACK: one ACK per packet.
 */
static inline bool mro_win_wait(u32 inflight, u32 win, u32 n, u32 need,
				bool *closed)
{
	u32 room = inflight < win ? win - inflight : 0;

	if (n > room) {
		*closed = true;
		return true;
	}
	if (*closed && room < (n > need ? n : need))
		return true;
	*closed = false;
	return false;
}

#endif /* MRO_PSN_H */
