// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Remote key changes in PSN order: see mro_keyorder.h.  The table is
 * small (a fence lives for about one round trip, while a hole before it
 * is repaired), so a linear scan is the fast path and keeps no order.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <kunit/visibility.h>

#include "mro_keyorder.h"
#include "mro_psn.h"

int mro_keyorder_add(struct mro_keyorder *ko, u32 psn, u32 key, u32 msn)
{
	u32 i;

	for (i = 0; i < ko->n; i++)
		if (ko->f[i].psn == psn)
			return -EEXIST;
	if (mro_keyorder_full(ko))
		return -ENOSPC;
	ko->f[ko->n].psn = psn;
	ko->f[ko->n].key = key;
	ko->f[ko->n].msn = msn;
	ko->n++;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_keyorder_add);

bool mro_keyorder_holds(const struct mro_keyorder *ko, u32 psn, u32 key)
{
	u32 i;

	for (i = 0; i < ko->n; i++)
		if (ko->f[i].key == key && mro_seq_before(ko->f[i].psn, psn))
			return true;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(mro_keyorder_holds);

bool mro_keyorder_pop_due(struct mro_keyorder *ko, u32 base,
			  struct mro_key_fence *out)
{
	u32 i, best = ko->n;

	for (i = 0; i < ko->n; i++) {
		if (!mro_seq_before(ko->f[i].psn, base))
			continue;
		if (best == ko->n || mro_seq_before(ko->f[i].psn,
						    ko->f[best].psn))
			best = i;
	}
	if (best == ko->n)
		return false;
	*out = ko->f[best];
	ko->f[best] = ko->f[--ko->n];
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(mro_keyorder_pop_due);
