// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce packet protection of an RC or UC connection (protocol.rst,
 * "Packet protection"): the connection's state from RTR on, its keys,
 * derived once both HELLO nonces are known, the seal of every packet it
 * transmits and the open of every packet it receives.
 *
 * Life of a protected connection:
 *  - mro_prot_alloc() (modify_qp to RTR, process context, before the QP
 *    lock) copies the device's mode, current and previous key ids and
 *    the current key: keys installed or removed later do not change the
 *    connection.
 *  - Once both nonces are known (mro_hello_qp.c; in RTR or RTS: a
 *    responder may stay in RTR), mro_prot_schedule() starts the key
 *    work: HKDF (mro_kdf.c) and the two AES-GCM transforms (mro_aead.c)
 *    need process context.  Until
 *    the work has installed them, the QP sends HELLOs and nothing else
 *    (mro_prot_tx_ready()), and drops sealed packets (rx_drop_unkeyed:
 *    its peer, keyed first, resends them).
 *  - mro_prot_seal(): the drainer seals each packet as it leaves, under
 *    the QP lock, so transmissions take counter values in the order they
 *    leave.  mro_prot_open(): a received packet is opened before the
 *    transport looks at it, under the QP lock.
 *  - mro_prot_free(): modify to RESET, destroy.
 */
#include <crypto/aead.h>
#include <crypto/hash.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "mro_devkey.h"
#include "mro_kdf.h"
#include "mro_qp.h"
#include "mro_unaligned.h"

/*
 * Instantiate the algorithms a connection's keys use, once: the crypto
 * API builds gcm(aes) from its templates and runs its self-tests on first
 * use, which took seconds under emulation, so that the first protected
 * connection would wait for it.  Called where protection is turned on
 * (process context); fails if the kernel lacks an algorithm.
 */
int mro_prot_warm_up(void)
{
	struct crypto_shash *hmac;

	hmac = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(hmac))
		return PTR_ERR(hmac);
	crypto_free_shash(hmac);
	return mro_aead_warm_up();
}

struct mro_conn_prot *mro_prot_alloc(struct mro_qp *qp)
{
	struct mro_conn_prot *p;
	unsigned int len;
	enum mro_prot mode;
	u8 id;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	mode = mro_devkey_snapshot(&qp->dev->devkey, &id, &p->prev_key_id,
				   p->dev_key, &len);
	if (mode == MRO_PROT_NONE) {
		kfree_sensitive(p);
		return NULL;
	}
	p->mode = mode;
	p->key_id = id;
	p->dev_key_len = len;
	p->qp = qp;
	mro_replay_init(&p->replay);
	INIT_WORK(&p->work, mro_prot_work);
	return p;
}

void mro_prot_free(struct mro_conn_prot *p)
{
	if (!p)
		return;
	cancel_work_sync(&p->work);
	mro_aead_dir_destroy(&p->tx);
	mro_aead_dir_destroy(&p->rx);
	kfree_sensitive(p);
}

/*
 * The peer's first HELLO came with its current and previous key ids: the
 * connection takes a key both ends hold (mro_hello_key_id()).  -ENOKEY
 * if there is none, or it was removed from this device since RTR.
 */
int mro_prot_choose_key(struct mro_qp *qp, u8 peer_cur, u8 peer_prev)
{
	struct mro_conn_prot *p = qp->prot;
	u8 key[MRO_DEVKEY_MAX_LEN];
	unsigned int len;
	u8 id;

	lockdep_assert_held(&qp->lock);
	if (!p || p->key_chosen)
		return 0;
	id = mro_hello_key_id(&qp->hello, peer_cur, peer_prev);
	if (!id)
		return -ENOKEY;
	if (id != p->key_id) {
		if (mro_devkey_get(&qp->dev->devkey, id, key, &len))
			return -ENOKEY;
		memcpy(p->dev_key, key, len);
		p->dev_key_len = len;
		p->key_id = id;
		memzero_explicit(key, sizeof(key));
	}
	p->key_chosen = true;
	return 0;
}

/* both nonces known: derive the keys once */
void mro_prot_schedule(struct mro_qp *qp)
{
	struct mro_conn_prot *p = qp->prot;

	lockdep_assert_held(&qp->lock);
	if (!p || p->keyed || p->deriving || !p->key_chosen ||
	    !qp->hello.peer_nonce)
		return;
	p->deriving = true;
	queue_work(system_unbound_wq, &p->work);
}

static int mro_prot_keys(struct mro_conn_prot *p, const struct mro_conn_id *id,
			 u8 dir_tx, u8 dir_rx, struct mro_aead_dir *tx,
			 struct mro_aead_dir *rx)
{
	u8 ktx[MRO_DEVKEY_MAX_LEN], krx[MRO_DEVKEY_MAX_LEN];
	struct crypto_shash *hmac;
	int err;

	hmac = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(hmac))
		return PTR_ERR(hmac);
	err = mro_kdf_conn_keys(hmac, p->dev_key, p->dev_key_len, id, ktx,
				krx, p->dev_key_len);
	crypto_free_shash(hmac);
	if (!err)
		err = mro_aead_dir_init(tx, ktx, p->dev_key_len, p->key_id,
					dir_tx);
	if (!err)
		err = mro_aead_dir_init(rx, krx, p->dev_key_len, p->key_id,
					dir_rx);
	memzero_explicit(ktx, sizeof(ktx));
	memzero_explicit(krx, sizeof(krx));
	return err;
}

void mro_prot_work(struct work_struct *work)
{
	struct mro_conn_prot *p = container_of(work, struct mro_conn_prot, work);
	struct mro_qp *qp = p->qp;
	struct mro_aead_dir tx = {}, rx = {};
	struct mro_conn_id id = {};
	union ib_gid gid;
	u8 dir_tx, dir_rx;
	int err;

	spin_lock_bh(&qp->lock);
	mro_av_gid(&qp->av, true, &gid);
	memcpy(id.a.gid, gid.raw, sizeof(id.a.gid));
	id.a.qpn = qp->qpn;
	/* the PSNs stay 0: a responder in RTR keys without its own */
	id.a.nonce = qp->hello.nonce;
	mro_av_gid(&qp->av, false, &gid);
	memcpy(id.b.gid, gid.raw, sizeof(id.b.gid));
	id.b.qpn = qp->dest_qpn;
	id.b.nonce = qp->hello.peer_nonce;
	id.key_id = p->key_id;
	spin_unlock_bh(&qp->lock);

	err = mro_aead_dirs(id.a.nonce, id.b.nonce, mro_conn_one_flow(&id),
			    &dir_tx, &dir_rx);
	if (!err)
		err = mro_prot_keys(p, &id, dir_tx, dir_rx, &tx, &rx);

	spin_lock_bh(&qp->lock);
	p->deriving = false;
	if (err) {
		ibdev_warn_ratelimited(&qp->dev->ib_dev,
				       "QP %u: no keys for the connection to peer QP %u (%d): connection ended\n",
				       qp->qpn, qp->dest_qpn, err);
		mro_aead_dir_destroy(&tx);
		mro_aead_dir_destroy(&rx);
		mro_qp_error(qp);
	} else {
		p->tx = tx;
		p->rx = rx;
		p->keyed = true;
		/* the HELLO timer; the data that now leaves arms it again */
		hrtimer_try_to_cancel(&qp->req.rto_timer);
	}
	spin_unlock_bh(&qp->lock);
	if (err)
		mro_qp_flush(qp);
	else
		mro_qp_kick(qp);	/* what waited for the keys */
}

/*
 * Seal @skb (built with METAROCE_F_SEALED: its last METAROCE_SEAL_LEN
 * bytes are room for the tag and the counter) with the connection's
 * next counter value; @hdr_len: its headers' length.
 */
int mro_prot_seal(struct mro_qp *qp, struct sk_buff *skb, u16 hdr_len)
{
	struct mro_conn_prot *p = qp->prot;

	lockdep_assert_held(&qp->lock);
	if (!p || !p->keyed)
		return -ENOKEY;
	return mro_aead_seal_packet(&p->tx, p->mode, skb->data, hdr_len,
				    skb->len);
}

enum mro_rx_verdict mro_prot_open(struct mro_qp *qp, struct sk_buff *skb,
				  const struct mro_hdr *hdr)
{
	struct mro_conn_prot *p = qp->prot;
	bool sealed = hdr->flags & METAROCE_F_SEALED;
	unsigned int len;
	u64 seq;
	u8 *pkt;

	lockdep_assert_held(&qp->lock);
	if (hdr->opcode == METAROCE_OP_HELLO)
		return MRO_RXV_OK;		/* never sealed */
	if (!p)
		return sealed ? MRO_RXV_AUTH : MRO_RXV_OK;
	if (!sealed)
		return MRO_RXV_AUTH;
	if (!p->keyed)
		return MRO_RXV_UNKEYED;
	len = hdr->hdr_len + hdr->payload_len + METAROCE_SEAL_LEN;
	/* one flat, private copy: encrypt mode decrypts in place */
	if (skb_linearize(skb) || skb_ensure_writable(skb, len))
		return MRO_RXV_NOMEM;
	pkt = skb->data;
	seq = mro_aead_get_seq(pkt + len - MRO_AEAD_SEQ_LEN);
	if (!mro_replay_check(&p->replay, seq))
		return MRO_RXV_REPLAY;
	if (mro_aead_open(&p->rx, p->mode, pkt, hdr->hdr_len,
			  len - MRO_AEAD_SEQ_LEN, seq)) {
		if (!p->auth_warned)
			ibdev_warn_ratelimited(&qp->dev->ib_dev,
					       "QP %u: a packet from peer QP %u fails authentication under key id %u: the peer has another key of that id, or the packet is forged (rx_drop_auth counts them)\n",
					       qp->qpn, qp->dest_qpn, p->key_id);
		p->auth_warned = true;
		return MRO_RXV_AUTH;
	}
	mro_replay_commit(&p->replay, seq);
	return MRO_RXV_OK;
}
