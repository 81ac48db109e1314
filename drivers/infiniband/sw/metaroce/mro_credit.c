// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metaroce receiver credit accounting and the sender's grant */
#include <linux/kernel.h>
#include <kunit/visibility.h>

#include "mro_credit.h"
#include "mro_psn.h"

void mro_credit_pool_init(struct mro_credit_pool *pool)
{
	atomic_set(&pool->active, 0);
	atomic_set(&pool->outstanding, 0);
}
EXPORT_SYMBOL_IF_KUNIT(mro_credit_pool_init);

/* a budget of at least one packet, and a quantum within it */
static void mro_credit_norm(u32 *budget, u32 *quantum)
{
	*budget = max_t(u32, *budget, 1);
	*quantum = clamp_t(u32, *quantum, 1, *budget);
}

u32 mro_credit_share(struct mro_credit_pool *pool, u32 budget, u32 quantum)
{
	int active = atomic_read(&pool->active);

	mro_credit_norm(&budget, &quantum);
	return max_t(u32, budget / max(active, 1), quantum);
}
EXPORT_SYMBOL_IF_KUNIT(mro_credit_share);

void mro_credit_rx_reset(struct mro_credit_rx *rx, u32 base, u32 spec)
{
	/* what the sender may send unasked (mro_credit_tx_init()) is granted */
	rx->grant_psn = base + spec;
	rx->counted = 0;
	rx->active = false;
	rx->granted = spec != 0;
	rx->idle = 0;
	rx->seen = false;
}
EXPORT_SYMBOL_IF_KUNIT(mro_credit_rx_reset);

void mro_credit_rx_activate(struct mro_credit_pool *pool,
			    struct mro_credit_rx *rx)
{
	if (rx->active)
		return;
	rx->active = true;
	atomic_inc(&pool->active);
}
EXPORT_SYMBOL_IF_KUNIT(mro_credit_rx_activate);

void mro_credit_rx_account(struct mro_credit_pool *pool,
			   struct mro_credit_rx *rx, u32 base)
{
	u32 c = 0;

	if (!rx->active)
		return;
	if (rx->granted && mro_seq_after(rx->grant_psn, base))
		c = rx->grant_psn - base;
	if (c != rx->counted)
		atomic_add((int)(c - rx->counted), &pool->outstanding);
	rx->counted = c;
}
EXPORT_SYMBOL_IF_KUNIT(mro_credit_rx_account);

void mro_credit_rx_release(struct mro_credit_pool *pool,
			   struct mro_credit_rx *rx)
{
	if (!rx->active)
		return;
	atomic_sub(rx->counted, &pool->outstanding);
	atomic_dec(&pool->active);
	rx->counted = 0;
	rx->active = false;
	rx->idle = 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_credit_rx_release);

u32 mro_credit_rx_grant(struct mro_credit_pool *pool,
			struct mro_credit_rx *rx, u32 base, u32 win,
			u32 budget, u32 quantum)
{
	u32 g, others, room;

	mro_credit_rx_activate(pool, rx);
	mro_credit_rx_account(pool, rx, base);
	/*
	 * The share, as far as the pool has room: a grant is never taken
	 * back, so when senders join the old grants (and the newcomers'
	 * speculation) can fill the pool; the quantum keeps everyone moving.
	 */
	mro_credit_norm(&budget, &quantum);
	others = max(atomic_read(&pool->outstanding) - (int)rx->counted, 0);
	room = budget > others ? budget - others : 0;
	g = base + min3(mro_credit_share(pool, budget, quantum), win,
			max(room, quantum));
	if (!rx->granted || mro_seq_after(g, rx->grant_psn))
		rx->grant_psn = g;
	/* a base that ran past an old grant (speculation) drags it along */
	if (mro_seq_before(rx->grant_psn, base))
		rx->grant_psn = base;
	rx->granted = true;
	mro_credit_rx_account(pool, rx, base);
	return rx->grant_psn;
}
EXPORT_SYMBOL_IF_KUNIT(mro_credit_rx_grant);

void mro_credit_tx_init(struct mro_credit_tx *tx, u32 snd_nxt, u32 spec)
{
	tx->credit_psn = snd_nxt + spec;
}
EXPORT_SYMBOL_IF_KUNIT(mro_credit_tx_init);

enum mro_credit_upd mro_credit_tx_update(struct mro_credit_tx *tx,
					 u32 grant, u32 snd_una,
					 u32 max_ahead)
{
	/* behind what is acknowledged: an ACK overtaken by a newer one */
	if (mro_seq_before(grant, snd_una))
		return MRO_CREDIT_STALE;
	/* further than any receiver's window: forged, or broken */
	if (grant - snd_una > MRO_WINDOW_MAX)
		return MRO_CREDIT_BAD;
	/* a receiver with a larger window than ours: what we may use */
	if (grant - snd_una > max_ahead)
		grant = snd_una + max_ahead;
	if (!mro_seq_after(grant, tx->credit_psn))
		return MRO_CREDIT_STALE;
	tx->credit_psn = grant;
	return MRO_CREDIT_MOVED;
}
EXPORT_SYMBOL_IF_KUNIT(mro_credit_tx_update);

u32 mro_credit_tx_avail(const struct mro_credit_tx *tx, u32 snd_nxt)
{
	return mro_seq_after(tx->credit_psn, snd_nxt) ?
	       tx->credit_psn - snd_nxt : 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_credit_tx_avail);
