// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce packet protection of UD datagrams (mro_dgram.h; protocol.rst,
 * Packet protection, Datagrams).
 *
 * Sending: a UD QP entering RTS on a protected device takes the device's
 * mode, current key id and key (mro_dgram_tx_alloc(), process context,
 * before the QP lock), draws its datagram nonce and derives its key.  Its
 * datagrams carry the key id and nonce (mro_dgram_tx_fill()) and are
 * sealed as they leave, under the QP lock, with the next counter value
 * (mro_dgram_seal()).
 *
 * Receiving: mro_dgram_open() runs for every datagram before it reaches a
 * QP or a multicast group, in softirq.  A sender is known by (key id,
 * source QPN, datagram nonce).  One the device has no key for yet gets an
 * entry that collects its first datagrams while the device's work derives
 * the key (the crypto API's allocations sleep); the work then hands them
 * to mro_rcv() again.  The entries live on one list, most recently heard
 * first; a new sender takes the place of the least recent one whose key
 * is derived, and with it that sender's replay window.  The list's lock
 * serializes the opening of every datagram of the device: datagrams are
 * not the transport's bulk path.
 */
#include <crypto/hash.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "mro_devkey.h"
#include "mro_dgram.h"
#include "mro_kdf.h"
#include "mro_qp.h"
#include "mro_skb.h"
#include "mro_unaligned.h"

/* the connection manager's QP (GSI), whose datagrams are never sealed */
#define MRO_GSI_QPN	1

enum mro_dgram_state {
	MRO_DGRAM_WAIT,		/* its key is being derived */
	MRO_DGRAM_READY,
};

struct mro_dgram_sender {
	struct list_head node;		/* mro_dgram_rx.senders */
	u8 key_id;
	u32 qpn;
	u64 nonce;
	enum mro_dgram_state state;
	bool deriving;			/* the work took it */
	bool opened;			/* a datagram opened under its key */
	unsigned long heard;		/* jiffies: its latest datagram */
	struct sk_buff_head waiting;	/* MRO_DGRAM_WAIT: its datagrams */
	struct mro_aead_dir dir;	/* MRO_DGRAM_READY */
	struct mro_replay replay;
};

/* the sending key of (@qpn, @nonce) under device key @key_id (@dkey) */
static int mro_dgram_key(const u8 *dkey, unsigned int len, u8 key_id,
			 u32 qpn, u64 nonce, struct mro_aead_dir *dir)
{
	u8 key[MRO_DEVKEY_MAX_LEN];
	struct crypto_shash *hmac;
	int err;

	hmac = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(hmac))
		return PTR_ERR(hmac);
	err = mro_kdf_dgram_key(hmac, dkey, len, key_id, qpn, nonce, key, len);
	crypto_free_shash(hmac);
	if (!err)
		err = mro_aead_dir_init(dir, key, len, key_id,
					MRO_AEAD_DIR_DGRAM);
	memzero_explicit(key, sizeof(key));
	return err;
}

/* a sender's key, from the device key of @key_id it names */
static int mro_dgram_derive(struct mro_dev *dev, u8 key_id, u32 qpn,
			    u64 nonce, struct mro_aead_dir *dir)
{
	u8 dkey[MRO_DEVKEY_MAX_LEN];
	unsigned int len;
	int err;

	err = mro_devkey_get(&dev->devkey, key_id, dkey, &len);
	if (!err)
		err = mro_dgram_key(dkey, len, key_id, qpn, nonce, dir);
	memzero_explicit(dkey, sizeof(dkey));
	return err;
}

struct mro_dgram_tx *mro_dgram_tx_alloc(struct mro_qp *qp)
{
	u8 key[MRO_DEVKEY_MAX_LEN];
	struct mro_dgram_tx *t;
	enum mro_prot mode;
	unsigned int len;
	u8 id, prev;
	int err;

	mode = mro_devkey_snapshot(&qp->dev->devkey, &id, &prev, key, &len);
	if (mode == MRO_PROT_NONE)
		return NULL;
	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t) {
		t = ERR_PTR(-ENOMEM);
		goto out;
	}
	t->mode = mode;
	do {
		t->nonce = get_random_u64() & MRO_KDF_DGRAM_NONCE_MAX;
	} while (!t->nonce);
	err = mro_dgram_key(key, len, id, qp->qpn, t->nonce, &t->dir);
	if (err) {
		kfree(t);
		t = ERR_PTR(err);
	}
out:
	memzero_explicit(key, sizeof(key));
	return t;
}

void mro_dgram_tx_free(struct mro_dgram_tx *t)
{
	if (!t)
		return;
	mro_aead_dir_destroy(&t->dir);
	kfree_sensitive(t);
}

/* what a datagram of @t carries: SEALED and the datagram seal extension */
void mro_dgram_tx_fill(const struct mro_dgram_tx *t, struct mro_hdr *hdr)
{
	hdr->flags |= METAROCE_F_SEALED;
	hdr->deth.key_id = t->dir.key_id;
	hdr->deth.sender_nonce = t->nonce;
}

int mro_dgram_seal(struct mro_dgram_tx *t, struct sk_buff *skb, u16 hdr_len)
{
	if (!t)
		return -ENOKEY;
	return mro_aead_seal_packet(&t->dir, t->mode, skb->data, hdr_len,
				    skb->len);
}

static void mro_dgram_sender_free(struct mro_dgram_sender *s)
{
	__skb_queue_purge(&s->waiting);
	if (s->state == MRO_DGRAM_READY)
		mro_aead_dir_destroy(&s->dir);
	kfree_sensitive(s);
}

static struct mro_dgram_sender *mro_dgram_find(struct mro_dgram_rx *rx,
					       const struct mro_deth_hdr *d,
					       u32 qpn)
{
	struct mro_dgram_sender *s;

	lockdep_assert_held(&rx->lock);
	list_for_each_entry(s, &rx->senders, node)
		if (s->key_id == d->key_id && s->qpn == qpn &&
		    s->nonce == d->sender_nonce)
			return s;
	return NULL;
}

static void mro_dgram_forget(struct mro_dgram_rx *rx,
			     struct mro_dgram_sender *s)
{
	lockdep_assert_held(&rx->lock);
	if (s->state == MRO_DGRAM_WAIT)
		rx->waiting--;
	list_del(&s->node);
	rx->n--;
	mro_dgram_sender_free(s);
}

/*
 * Room for one more sender: the least recent one whose key is done and
 * that is free to go (no datagram opened under its key, or none came for
 * MRO_DGRAM_IDLE) goes, with its replay window.  So senders nobody can
 * vouch for, forged ones included, never push out a sender in use.
 */
static bool mro_dgram_make_room(struct mro_dgram_rx *rx)
{
	struct mro_dgram_sender *s;

	lockdep_assert_held(&rx->lock);
	if (rx->waiting >= MRO_DGRAM_DERIVING)
		return false;
	if (rx->n < MRO_DGRAM_SENDERS)
		return true;
	list_for_each_entry_reverse(s, &rx->senders, node) {
		if (s->state == MRO_DGRAM_WAIT ||
		    (s->opened && time_before(jiffies, s->heard +
					      MRO_DGRAM_IDLE)))
			continue;
		mro_dgram_forget(rx, s);
		return true;
	}
	return false;
}

/* a sender first heard from: its key to derive, @skb its first datagram */
static enum mro_rx_verdict mro_dgram_new(struct mro_dev *dev,
					 struct sk_buff *skb,
					 const struct mro_hdr *hdr)
{
	struct mro_dgram_rx *rx = &dev->dgram;
	struct mro_dgram_sender *s;

	lockdep_assert_held(&rx->lock);
	if (!mro_dgram_make_room(rx))
		return MRO_RXV_UNKEYED;
	s = kzalloc(sizeof(*s), GFP_ATOMIC);
	if (!s)
		return MRO_RXV_NOMEM;
	s->key_id = hdr->deth.key_id;
	s->qpn = hdr->sqpn;
	s->nonce = hdr->deth.sender_nonce;
	s->state = MRO_DGRAM_WAIT;
	s->heard = jiffies;
	__skb_queue_head_init(&s->waiting);
	mro_replay_init(&s->replay);
	__skb_queue_tail(&s->waiting, skb);
	list_add(&s->node, &rx->senders);
	rx->n++;
	rx->waiting++;
	queue_work(system_unbound_wq, &rx->work);
	return MRO_RXV_HELD;
}

/* open @skb (linear, writable) under @s's key: tag, then replay window */
static enum mro_rx_verdict mro_dgram_open_at(struct mro_dgram_rx *rx,
					     struct mro_dgram_sender *s,
					     enum mro_prot mode, u8 *pkt,
					     const struct mro_hdr *hdr)
{
	unsigned int len = hdr->hdr_len + hdr->payload_len + METAROCE_SEAL_LEN;
	u64 seq = mro_aead_get_seq(pkt + len - MRO_AEAD_SEQ_LEN);

	lockdep_assert_held(&rx->lock);
	if (!mro_replay_check(&s->replay, seq))
		return MRO_RXV_REPLAY;
	if (mro_aead_open(&s->dir, mode, pkt, hdr->hdr_len,
			  len - MRO_AEAD_SEQ_LEN, seq)) {
		if (s->opened)
			return MRO_RXV_AUTH;	/* a forgery in its name */
		/* a key no datagram opened under names no sender we know */
		if (__ratelimit(&rx->warn))
			ibdev_warn(&container_of(rx, struct mro_dev, dgram)->ib_dev,
				   "a datagram from QP %u fails authentication under key id %u: the sender has another key of that id or another mode, or the datagram is forged (rx_drop_auth counts them)\n",
				   s->qpn, s->key_id);
		mro_dgram_forget(rx, s);
		return MRO_RXV_AUTH;
	}
	mro_replay_commit(&s->replay, seq);
	s->opened = true;
	s->heard = jiffies;
	return MRO_RXV_OK;
}

enum mro_rx_verdict mro_dgram_open(struct mro_dev *dev, struct sk_buff *skb,
				   const struct mro_hdr *hdr)
{
	bool sealed = hdr->flags & METAROCE_F_SEALED;
	struct mro_dgram_rx *rx = &dev->dgram;
	struct mro_dgram_sender *s;
	enum mro_rx_verdict v;
	enum mro_prot mode;
	unsigned int len;
	bool held;

	/* the connection manager's datagrams are never sealed */
	if (hdr->dqpn == MRO_GSI_QPN)
		return sealed ? MRO_RXV_AUTH : MRO_RXV_OK;
	mode = mro_devkey_mode_holding(&dev->devkey, hdr->deth.key_id, &held);
	if (mode == MRO_PROT_NONE)
		return sealed ? MRO_RXV_AUTH : MRO_RXV_OK;
	if (!sealed || !held)
		return MRO_RXV_AUTH;
	len = hdr->hdr_len + hdr->payload_len + METAROCE_SEAL_LEN;
	/* one flat, private copy: encrypt mode decrypts in place */
	if (skb_linearize(skb) || skb_ensure_writable(skb, len))
		return MRO_RXV_NOMEM;

	spin_lock_bh(&rx->lock);
	if (rx->dead) {
		v = MRO_RXV_NO_QP;
		goto out;
	}
	s = mro_dgram_find(rx, &hdr->deth, hdr->sqpn);
	if (!s) {
		v = mro_dgram_new(dev, skb, hdr);
		goto out;
	}
	list_move(&s->node, &rx->senders);
	switch (s->state) {
	case MRO_DGRAM_WAIT:
		if (skb_queue_len(&s->waiting) >= MRO_DGRAM_WAITING) {
			v = MRO_RXV_UNKEYED;
			break;
		}
		__skb_queue_tail(&s->waiting, skb);
		v = MRO_RXV_HELD;
		break;
	default:
		v = mro_dgram_open_at(rx, s, mode, skb->data, hdr);
	}
out:
	spin_unlock_bh(&rx->lock);
	return v;
}

/* a datagram that waited for its sender's key: through mro_rcv() again */
static void mro_dgram_redeliver(struct mro_dev *dev, struct sk_buff *skb)
{
	struct mro_hdr hdr;

	local_bh_disable();
	if (mro_skb_decode(skb, skb->len, &hdr) != MRO_WIRE_OK) {
		/* it decoded before: only memory can fail now */
		mro_count(dev->stats, MRO_CNT_DROP_NOMEM, 1);
		kfree_skb_reason(skb, SKB_DROP_REASON_NOMEM);
	} else {
		hdr.ce = mro_cc_skb_ce(skb);
		mro_rcv(dev, skb, &hdr);
	}
	local_bh_enable();
}

/* one waiting sender whose key nobody derives yet, taken; or NULL */
static struct mro_dgram_sender *mro_dgram_next(struct mro_dgram_rx *rx)
{
	struct mro_dgram_sender *s;

	lockdep_assert_held(&rx->lock);
	if (rx->dead)
		return NULL;
	list_for_each_entry(s, &rx->senders, node) {
		if (s->state == MRO_DGRAM_WAIT && !s->deriving) {
			s->deriving = true;
			return s;
		}
	}
	return NULL;
}

static void mro_dgram_work(struct work_struct *work)
{
	struct mro_dgram_rx *rx = container_of(work, struct mro_dgram_rx, work);
	struct mro_dev *dev = container_of(rx, struct mro_dev, dgram);
	struct mro_dgram_sender *s;
	struct sk_buff_head ready;
	struct mro_aead_dir dir;
	struct sk_buff *skb;
	u32 qpn;
	u64 nonce;
	u8 id;
	int err;

	for (;;) {
		spin_lock_bh(&rx->lock);
		s = mro_dgram_next(rx);
		if (s) {
			id = s->key_id;
			qpn = s->qpn;
			nonce = s->nonce;
		}
		spin_unlock_bh(&rx->lock);
		if (!s)
			return;

		/* a waiting sender is never forgotten: s stays until we are done */
		err = mro_dgram_derive(dev, id, qpn, nonce, &dir);
		__skb_queue_head_init(&ready);
		spin_lock_bh(&rx->lock);
		s->deriving = false;
		skb_queue_splice_init(&s->waiting, &ready);
		if (err) {
			/* the key id went meanwhile, or no memory: try anew */
			mro_dgram_forget(rx, s);
		} else {
			s->dir = dir;
			s->state = MRO_DGRAM_READY;
			rx->waiting--;
		}
		spin_unlock_bh(&rx->lock);

		/* each opens, or fails, as if it came now */
		while ((skb = __skb_dequeue(&ready))) {
			if (!err) {
				mro_dgram_redeliver(dev, skb);
				continue;
			}
			mro_count(dev->stats, MRO_CNT_DROP_UNKEYED, 1);
			kfree_skb_reason(skb, SKB_DROP_REASON_DEV_READY);
		}
	}
}

void mro_dgram_rx_init(struct mro_dgram_rx *rx)
{
	spin_lock_init(&rx->lock);
	INIT_LIST_HEAD(&rx->senders);
	INIT_WORK(&rx->work, mro_dgram_work);
	ratelimit_state_init(&rx->warn, 60 * HZ, 1);
	ratelimit_set_flags(&rx->warn, RATELIMIT_MSG_ON_RELEASE);
}

/* the device goes (no datagram comes any more): forget every sender */
void mro_dgram_rx_destroy(struct mro_dgram_rx *rx)
{
	struct mro_dgram_sender *s, *tmp;

	spin_lock_bh(&rx->lock);
	rx->dead = true;
	spin_unlock_bh(&rx->lock);
	cancel_work_sync(&rx->work);
	spin_lock_bh(&rx->lock);
	list_for_each_entry_safe(s, tmp, &rx->senders, node)
		mro_dgram_forget(rx, s);
	spin_unlock_bh(&rx->lock);
}
