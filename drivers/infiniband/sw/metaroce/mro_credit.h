/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce receiver credits: a device-wide pool of about one BDP shared by
 * the QPs that receive data, grants as absolute PSNs (so a lost ACK loses
 * no credit), and the sender's view of its grant.  Pure C (KUnit drives
 * it); see Documentation/metaroce/congestion.rst.
 */
#ifndef MRO_CREDIT_H
#define MRO_CREDIT_H

#include <linux/atomic.h>
#include <linux/types.h>

/* per device: shared by all its QPs, each under its own lock */
struct mro_credit_pool {
	atomic_t active;	/* QPs holding a share */
	atomic_t outstanding;	/* granted, not yet received, PSNs */
};

/* per QP, responder side (QP lock) */
struct mro_credit_rx {
	u32 grant_psn;		/* sender may send PSNs before this */
	u32 counted;		/* this QP's part of pool->outstanding */
	bool active;
	bool granted;		/* grant_psn is meaningful */
	u8 idle;		/* credit timer ticks without data */
	bool seen;		/* data since the last tick */
};

/* per QP, requester side (QP lock) */
struct mro_credit_tx {
	u32 credit_psn;		/* may send PSNs before this */
};

enum mro_credit_upd {
	MRO_CREDIT_STALE = 0,	/* not ahead of what we have */
	MRO_CREDIT_MOVED,
	MRO_CREDIT_BAD,		/* beyond any window: not taken */
};

void mro_credit_pool_init(struct mro_credit_pool *pool);
/* packets one active QP may have granted: max(quantum, budget / active) */
u32 mro_credit_share(struct mro_credit_pool *pool, u32 budget, u32 quantum);

/* @spec: the speculative window the sender starts with, counted as granted */
void mro_credit_rx_reset(struct mro_credit_rx *rx, u32 base, u32 spec);
void mro_credit_rx_activate(struct mro_credit_pool *pool,
			    struct mro_credit_rx *rx);
/* recompute this QP's outstanding grant against the receive base */
void mro_credit_rx_account(struct mro_credit_pool *pool,
			   struct mro_credit_rx *rx, u32 base);
/* leave the pool: idle or torn down */
void mro_credit_rx_release(struct mro_credit_pool *pool,
			   struct mro_credit_rx *rx);
/*
 * The grant to put in an ACK: at least the last one, base + share when
 * that is further and the pool has room (the quantum always), never more
 * than @win past @base.
 */
u32 mro_credit_rx_grant(struct mro_credit_pool *pool,
			struct mro_credit_rx *rx, u32 base, u32 win,
			u32 budget, u32 quantum);

void mro_credit_tx_init(struct mro_credit_tx *tx, u32 snd_nxt, u32 spec);
/*
 * Take a received grant: one more than MRO_WINDOW_MAX past @snd_una is
 * dropped (MRO_CREDIT_BAD), one more than @max_ahead (our window) past it
 * is clamped to that.
 */
enum mro_credit_upd mro_credit_tx_update(struct mro_credit_tx *tx,
					 u32 grant, u32 snd_una,
					 u32 max_ahead);
/* PSNs that may still be sent from @snd_nxt */
u32 mro_credit_tx_avail(const struct mro_credit_tx *tx, u32 snd_nxt);

#endif /* MRO_CREDIT_H */
