// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metaroce receive window bitmap */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "mro_psn.h"
#include "mro_rxwin.h"

int mro_rxwin_init(struct mro_rxwin *w, u32 size, u32 base, gfp_t gfp)
{
	if (size < 64 || !is_power_of_2(size) || size > (1U << 20))
		return -EINVAL;
	w->bits = bitmap_zalloc(size, gfp);
	if (!w->bits)
		return -ENOMEM;
	w->size = size;
	w->base = base;
	w->highest = base;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_rxwin_init);

void mro_rxwin_free(struct mro_rxwin *w)
{
	bitmap_free(w->bits);
	w->bits = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(mro_rxwin_free);

void mro_rxwin_reset(struct mro_rxwin *w, u32 base)
{
	bitmap_zero(w->bits, w->size);
	w->base = base;
	w->highest = base;
}
EXPORT_SYMBOL_IF_KUNIT(mro_rxwin_reset);

static bool mro_rxwin_test(const struct mro_rxwin *w, u32 psn)
{
	return test_bit(psn & (w->size - 1), w->bits);
}

enum mro_rx_class mro_rxwin_classify(const struct mro_rxwin *w, u32 psn)
{
	if (mro_seq_before(psn, w->base))
		return w->base - psn <= MRO_RX_DUP_SPAN ? MRO_RX_DUP :
		       MRO_RX_AHEAD;
	if (!mro_seq_in(psn, w->base, w->size))
		return MRO_RX_AHEAD;
	return mro_rxwin_test(w, psn) ? MRO_RX_DUP : MRO_RX_NEW;
}
EXPORT_SYMBOL_IF_KUNIT(mro_rxwin_classify);

u32 mro_rxwin_mark(struct mro_rxwin *w, u32 psn)
{
	u32 moved = 0;

	if (mro_rxwin_classify(w, psn) != MRO_RX_NEW)
		return 0;
	__set_bit(psn & (w->size - 1), w->bits);
	if (mro_seq_after(psn + 1, w->highest))
		w->highest = psn + 1;
	/* slide the base over the contiguous run, clearing for reuse */
	while (mro_rxwin_test(w, w->base)) {
		__clear_bit(w->base & (w->size - 1), w->bits);
		w->base++;
		moved++;
	}
	return moved;
}
EXPORT_SYMBOL_IF_KUNIT(mro_rxwin_mark);

u32 mro_rxwin_skip(struct mro_rxwin *w, u32 to)
{
	u32 n = to - w->base, lost;

	if (!mro_seq_after(to, w->base))
		return 0;
	if (n >= w->size) {
		/* everything tracked is behind @to */
		lost = n - bitmap_weight(w->bits, w->size);
		bitmap_zero(w->bits, w->size);
		w->base = to;
	} else {
		for (lost = 0; w->base != to; w->base++) {
			if (mro_rxwin_test(w, w->base))
				__clear_bit(w->base & (w->size - 1), w->bits);
			else
				lost++;
		}
	}
	if (mro_seq_after(w->base, w->highest))
		w->highest = w->base;
	while (mro_rxwin_test(w, w->base)) {
		__clear_bit(w->base & (w->size - 1), w->bits);
		w->base++;
	}
	return lost;
}
EXPORT_SYMBOL_IF_KUNIT(mro_rxwin_skip);

bool mro_rxwin_ack_now(const struct mro_rxwin *w, u32 psn)
{
	/* highest == base without a hole: then only psn == base is in order */
	return psn != w->highest;
}
EXPORT_SYMBOL_IF_KUNIT(mro_rxwin_ack_now);

bool mro_rxwin_has_hole(const struct mro_rxwin *w)
{
	return mro_seq_after(w->highest, w->base);
}
EXPORT_SYMBOL_IF_KUNIT(mro_rxwin_has_hole);

bool mro_rxwin_probe_ok(const struct mro_rxwin *w, u32 psn)
{
	return mro_seq_in(psn, w->base - w->size, 2 * w->size + 1);
}
EXPORT_SYMBOL_IF_KUNIT(mro_rxwin_probe_ok);

void mro_rxwin_sack(const struct mro_rxwin *w,
		    u64 sack[METAROCE_SACK_WORDS], u16 *nbits)
{
	u32 span = w->highest - w->base;	/* base itself is missing */
	u32 i, n;

	memset(sack, 0, METAROCE_SACK_WORDS * sizeof(u64));
	n = span > 1 ? span - 1 : 0;
	n = min_t(u32, n, METAROCE_SACK_BITS);
	n = min_t(u32, n, w->size - 1);
	for (i = 0; i < n; i++)
		if (mro_rxwin_test(w, w->base + 1 + i))
			sack[i / 64] |= 1ULL << (i % 64);
	*nbits = n;
}
EXPORT_SYMBOL_IF_KUNIT(mro_rxwin_sack);
