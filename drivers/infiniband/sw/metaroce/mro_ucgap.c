// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metaroce UC loss rules (pure) */
#include <linux/export.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "mro_psn.h"
#include "mro_ucgap.h"

u32 mro_uc_floor(u32 base, u32 psn, u32 allow)
{
	allow = max_t(u32, allow, 1);
	if (mro_seq_diff(psn, base) < (s32)allow)
		return base;
	return psn - allow + 1;
}
EXPORT_SYMBOL_IF_KUNIT(mro_uc_floor);

static void mro_elem_swap(u64 *a, u64 *b, u32 words)
{
	u32 i;

	for (i = 0; i < words; i++)
		swap(a[i], b[i]);
}

void mro_ring_rotate_left(void *ring, u32 log2_esz, u32 mask, u32 first,
			  u32 n)
{
	u32 words = (1U << log2_esz) / sizeof(u64), i;

	if (log2_esz < 3)
		return;
	n = min(n, mask);
	for (i = 0; i < n; i++) {
		u64 *a = ring + ((size_t)((first + i) & mask) << log2_esz);
		u64 *b = ring + ((size_t)((first + i + 1) & mask) << log2_esz);

		mro_elem_swap(a, b, words);
	}
}
EXPORT_SYMBOL_IF_KUNIT(mro_ring_rotate_left);
