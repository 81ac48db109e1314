/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Receive window: which PSNs of [base, base + size) have arrived, for
 * out-of-order placement, duplicate detection, the cumulative ACK and the
 * SACK bitmap.  Pure C on a plain struct (KUnit drives it).
 */
#ifndef MRO_RXWIN_H
#define MRO_RXWIN_H

#include <linux/bits.h>
#include <linux/types.h>
#include <rdma/metaroce_wire.h>

struct mro_rxwin {
	u32 base;		/* every PSN before base has arrived */
	u32 size;		/* PSNs tracked; power of two, >= 64 */
	u32 highest;		/* highest PSN seen + 1 (== base: none ahead) */
	unsigned long *bits;	/* bit (psn & (size - 1)) for psn >= base */
};

/*
 * How far behind base a PSN may still be a duplicate: a sender resends
 * only PSNs of its send window (at most 16384, module parameter
 * `window`), and base never passes the sender's next PSN.  Anything
 * further behind was never sent on this connection lately: it is stale or
 * forged, and is not answered.
 */
#define MRO_RX_DUP_SPAN	BIT(16)

enum mro_rx_class {
	MRO_RX_NEW,		/* in the window, not seen before */
	MRO_RX_DUP,		/* already marked, or at most MRO_RX_DUP_SPAN behind base */
	MRO_RX_AHEAD,		/* beyond the window or further behind: cannot be tracked */
};

int mro_rxwin_init(struct mro_rxwin *w, u32 size, u32 base, gfp_t gfp);
void mro_rxwin_free(struct mro_rxwin *w);
/* forget everything and restart at @base */
void mro_rxwin_reset(struct mro_rxwin *w, u32 base);
enum mro_rx_class mro_rxwin_classify(const struct mro_rxwin *w, u32 psn);
/* mark @psn (must be MRO_RX_NEW); returns PSNs the base advanced by */
u32 mro_rxwin_mark(struct mro_rxwin *w, u32 psn);
/*
 * Give up the PSNs before @to that have not arrived (UC: nothing is ever
 * retransmitted): the base moves to @to, then over what arrived after it.
 * Returns the PSNs given up; 0 when @to is not after the base.
 */
u32 mro_rxwin_skip(struct mro_rxwin *w, u32 to);
/*
 * Whether new @psn (not yet marked) changes the holes the sender should
 * know of at once: it opens one (lands beyond every PSN seen) or fills one
 * (lands before the highest).  The next PSN past a hole does neither.
 */
bool mro_rxwin_ack_now(const struct mro_rxwin *w, u32 psn);
/* whether PSNs beyond base have arrived (a hole exists) */
bool mro_rxwin_has_hole(const struct mro_rxwin *w);
/*
 * Whether a PROBE naming @psn (its sender's next PSN when it left) may be
 * answered: in the window (base to size past it), or up to size behind
 * the base, where data sent after it on other paths leaves it.
 */
bool mro_rxwin_probe_ok(const struct mro_rxwin *w, u32 psn);
/*
 * SACK of the PSNs after base: bit i of @sack set when base + 1 + i has
 * arrived; *nbits = number of meaningful bits (<= METAROCE_SACK_BITS).
 */
void mro_rxwin_sack(const struct mro_rxwin *w,
		    u64 sack[METAROCE_SACK_WORDS], u16 *nbits);

#endif /* MRO_RXWIN_H */
