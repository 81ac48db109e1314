/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce packet protection of UD datagrams (protocol.rst, Packet
 * protection, Datagrams): each sending UD QP seals with a key of its own,
 * derived from the device key, its QPN and a random datagram nonce that
 * every datagram names (struct metaroce_dseal); a receiving device derives
 * each sender's key when it first hears from it, keeps the keys of the
 * MRO_DGRAM_SENDERS senders it heard from most recently, and opens every
 * datagram before it reaches a QP or a multicast group.
 */
#ifndef MRO_DGRAM_H
#define MRO_DGRAM_H

#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/ratelimit.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "mro_aead.h"
#include "mro_rxverdict.h"

struct mro_dev;
struct mro_hdr;
struct mro_qp;

/* the senders whose keys a device keeps */
#define MRO_DGRAM_SENDERS	64
/* the datagrams of one sender that wait for its key */
#define MRO_DGRAM_WAITING	64
/* the senders whose keys are being derived at once */
#define MRO_DGRAM_DERIVING	8
/* a sender not heard from for this long may be forgotten (jiffies) */
#define MRO_DGRAM_IDLE		HZ

/* a UD QP's sending key, from RTS until it is reset */
struct mro_dgram_tx {
	enum mro_prot mode;
	u64 nonce;			/* 56 bits, never 0 */
	struct mro_aead_dir dir;	/* its key id, the counter */
};

/* the senders a device has heard from, most recent first */
struct mro_dgram_rx {
	spinlock_t lock;		/* the list and each sender; _bh */
	struct list_head senders;
	unsigned int n;
	unsigned int waiting;		/* of them, waiting for their keys */
	bool dead;			/* the device goes: take nothing */
	struct ratelimit_state warn;	/* a sender's key fails: once a minute */
	struct work_struct work;	/* derives the waiting senders' keys */
};

struct mro_dgram_tx *mro_dgram_tx_alloc(struct mro_qp *qp);
void mro_dgram_tx_free(struct mro_dgram_tx *t);
void mro_dgram_tx_fill(const struct mro_dgram_tx *t, struct mro_hdr *hdr);
int mro_dgram_seal(struct mro_dgram_tx *t, struct sk_buff *skb, u16 hdr_len);

void mro_dgram_rx_init(struct mro_dgram_rx *rx);
void mro_dgram_rx_destroy(struct mro_dgram_rx *rx);
enum mro_rx_verdict mro_dgram_open(struct mro_dev *dev, struct sk_buff *skb,
				   const struct mro_hdr *hdr);

#endif /* MRO_DGRAM_H */
