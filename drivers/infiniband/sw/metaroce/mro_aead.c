// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * AES-GCM packet protection of one direction of a connection, and the
 * receiver's replay window.  See mro_aead.h.  Nothing here is AES or GHASH
 * code: both come from the crypto API's "gcm(aes)", with asynchronous
 * implementations masked out so that every call completes before it
 * returns.
 *
 * Implementations.  The fast gcm(aes) implementations (AES-NI with
 * PCLMULQDQ on x86) use the FPU, and the crypto API offers them only
 * behind an asynchronous wrapper that defers a request to a kernel thread
 * when the FPU cannot be used in the calling context.  A packet is sealed
 * and opened in the context that sends or receives it, so each direction
 * holds two transforms with the same key: the vector implementation the
 * wrapper would call ("__gcm(aes)", CRYPTO_ALG_INTERNAL), used whenever
 * crypto_simd_usable() says the FPU may be used here (the wrapper's own
 * test), and the best synchronous "gcm(aes)" otherwise, or when the
 * kernel has no vector implementation.  Both compute the same function
 * of key, nonce and bytes, so a packet sealed by one opens with the
 * other.
 *
 * Nonce.  The 96-bit GCM nonce of a packet is
 *
 *   offset  length  content
 *        0       1  key id
 *        1       1  direction: 'L' (0x4c) for the packets the lower end
 *                   sends, 'H' (0x48) for the packets the higher end sends
 *                   (the direction byte of the KDF's info string); 'D'
 *                   (0x44) for a UD QP's datagrams
 *        2       2  zero
 *        4       8  transmission counter, big-endian
 *
 * The transmission counter of a direction starts at 0 with the key and
 * advances by one with every packet sealed, whatever the packet: a
 * retransmission is a new transmission and takes the next value, never
 * its original's.  The values run up to 2^64 - 2; a sender whose counter
 * has reached 2^64 - 1 seals nothing more under that key.  The counter is
 * carried in the packet as 8 bytes, big-endian, and the receiver builds
 * the nonce from the key id and direction of the key it opens with and
 * the counter the packet carries.
 *
 * No nonce repeats under one key: one key protects one direction of one
 * connection (the KDF binds it to the connection, the key id and the
 * direction) or the datagrams of one life of a UD QP (its QPN and random
 * datagram nonce), that has one sender, and the sender never uses a
 * counter value twice.  The key id and direction in the nonce keep
 * nonces distinct even where one key should ever serve two senders.
 *
 * Protection.  With the nonce above, a 16-byte tag and
 *
 *   auth     associated data = the whole packet, plaintext = empty
 *            (GMAC): the packet goes out unchanged, the tag appended
 *   encrypt  associated data = the first hdr_len bytes (the headers),
 *            plaintext = the rest (the payload), encrypted in place, the
 *            tag appended
 *
 * the protected packet is the packet followed by the tag.  A receiver
 * accepts a packet only if the tag verifies and its replay window
 * (mro_replay_*) has not seen the counter.
 */
#include <crypto/aead.h>
#include <crypto/aes.h>
#include <crypto/internal/simd.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/limits.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include <asm/simd.h>

#include "mro_aead.h"
#include "mro_unaligned.h"

static_assert((MRO_REPLAY_WIN & (MRO_REPLAY_WIN - 1)) == 0);

/* the nonce of the packet with counter value seq; see the layout above */
void mro_aead_nonce(u8 nonce[MRO_AEAD_NONCE_LEN], u8 key_id, u8 dir, u64 seq)
{
	nonce[0] = key_id;
	nonce[1] = dir;
	nonce[2] = 0;
	nonce[3] = 0;
	put_unaligned_be64(seq, nonce + 4);
}
EXPORT_SYMBOL_IF_KUNIT(mro_aead_nonce);

/* the counter as carried in the packet: MRO_AEAD_SEQ_LEN bytes, big-endian */
void mro_aead_put_seq(u8 *p, u64 seq)
{
	put_unaligned_be64(seq, p);
}
EXPORT_SYMBOL_IF_KUNIT(mro_aead_put_seq);

u64 mro_aead_get_seq(const u8 *p)
{
	return get_unaligned_be64(p);
}
EXPORT_SYMBOL_IF_KUNIT(mro_aead_get_seq);

/* the two implementations of a direction (see Implementations above) */
#define MRO_AEAD_SYNC_ALG	"gcm(aes)"
#define MRO_AEAD_SYNC_TYPE	0
#define MRO_AEAD_SYNC_MASK	CRYPTO_ALG_ASYNC
#define MRO_AEAD_SIMD_ALG	"__gcm(aes)"
#define MRO_AEAD_SIMD_TYPE	CRYPTO_ALG_INTERNAL
#define MRO_AEAD_SIMD_MASK	(CRYPTO_ALG_INTERNAL | CRYPTO_ALG_ASYNC)

/*
 * Instantiate both implementations once, so that the crypto API builds
 * the synchronous one from its templates and self-tests it before the
 * first connection needs it.  Fails only if there is no synchronous one;
 * sleeps.
 */
int mro_aead_warm_up(void)
{
	struct crypto_aead *tfm;

	tfm = crypto_alloc_aead(MRO_AEAD_SYNC_ALG, MRO_AEAD_SYNC_TYPE,
				MRO_AEAD_SYNC_MASK);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	crypto_free_aead(tfm);
	tfm = crypto_alloc_aead(MRO_AEAD_SIMD_ALG, MRO_AEAD_SIMD_TYPE,
				MRO_AEAD_SIMD_MASK);
	if (!IS_ERR(tfm))
		crypto_free_aead(tfm);
	return 0;
}

/* a transform of alg keyed with key, and its request; sleeps */
static int mro_aead_tfm_new(const char *alg, u32 type, u32 mask,
			    const u8 *key, unsigned int key_len,
			    struct crypto_aead **tfmp, struct aead_request **reqp)
{
	struct crypto_aead *tfm;
	struct aead_request *req;
	int err;

	tfm = crypto_alloc_aead(alg, type, mask);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	err = crypto_aead_setkey(tfm, key, key_len);
	if (!err)
		err = crypto_aead_setauthsize(tfm, MRO_AEAD_TAG_LEN);
	if (err)
		goto free_tfm;
	req = aead_request_alloc(tfm, GFP_KERNEL);
	if (!req) {
		err = -ENOMEM;
		goto free_tfm;
	}
	aead_request_set_callback(req, 0, NULL, NULL);
	*tfmp = tfm;
	*reqp = req;
	return 0;

free_tfm:
	crypto_free_aead(tfm);
	return err;
}

int mro_aead_dirs(u64 own_nonce, u64 peer_nonce, bool one_flow, u8 *dir_tx,
		  u8 *dir_rx)
{
	if (one_flow && own_nonce == peer_nonce) {
		*dir_tx = MRO_AEAD_DIR_LO;
		*dir_rx = MRO_AEAD_DIR_LO;
		return 0;
	}
	if (one_flow || own_nonce == peer_nonce)
		return -EINVAL;
	*dir_tx = own_nonce < peer_nonce ? MRO_AEAD_DIR_LO : MRO_AEAD_DIR_HI;
	*dir_rx = own_nonce < peer_nonce ? MRO_AEAD_DIR_HI : MRO_AEAD_DIR_LO;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_aead_dirs);

/*
 * Set up d for a key of 16 or 32 bytes (AES-128 or AES-256).  key_id and
 * dir go into every nonce; the counter starts at 0.  Sleeps (allocates
 * with GFP_KERNEL).  On error d is left zeroed, and destroying it is
 * harmless.  The caller wipes its own copy of the key.
 */
int mro_aead_dir_init(struct mro_aead_dir *d, const u8 *key,
		      unsigned int key_len, u8 key_id, u8 dir)
{
	int err;

	memset(d, 0, sizeof(*d));
	if (key_len != AES_KEYSIZE_128 && key_len != AES_KEYSIZE_256)
		return -EINVAL;
	if (dir != MRO_AEAD_DIR_LO && dir != MRO_AEAD_DIR_HI &&
	    dir != MRO_AEAD_DIR_DGRAM)
		return -EINVAL;

	err = mro_aead_tfm_new(MRO_AEAD_SYNC_ALG, MRO_AEAD_SYNC_TYPE,
			       MRO_AEAD_SYNC_MASK, key, key_len, &d->tfm,
			       &d->req);
	if (err)
		return err;
	/* none is no error: the synchronous transform does all the work */
	if (mro_aead_tfm_new(MRO_AEAD_SIMD_ALG, MRO_AEAD_SIMD_TYPE,
			     MRO_AEAD_SIMD_MASK, key, key_len, &d->simd_tfm,
			     &d->simd_req)) {
		d->simd_tfm = NULL;
		d->simd_req = NULL;
	}
	d->key_id = key_id;
	d->dir = dir;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_aead_dir_init);

/*
 * Free d's transform and request, which the crypto API wipes on free (the
 * key schedule and the request's GHASH and counter state), and zero d.
 */
void mro_aead_dir_destroy(struct mro_aead_dir *d)
{
	if (d->simd_req)
		aead_request_free(d->simd_req);
	if (d->simd_tfm)
		crypto_free_aead(d->simd_tfm);
	if (d->req)
		aead_request_free(d->req);
	if (d->tfm)
		crypto_free_aead(d->tfm);
	memzero_explicit(d, sizeof(*d));
}
EXPORT_SYMBOL_IF_KUNIT(mro_aead_dir_destroy);

/*
 * One synchronous GCM operation in place on buf (buf_len bytes): the
 * first assoclen bytes associated data, the next cryptlen bytes the
 * plaintext (encrypt, the tag written after it) or the ciphertext and tag
 * (decrypt).
 */
static int mro_aead_crypt(struct mro_aead_dir *d, bool enc,
			  const u8 nonce[MRO_AEAD_NONCE_LEN], u8 *buf,
			  unsigned int buf_len, unsigned int assoclen,
			  unsigned int cryptlen)
{
	struct aead_request *req;
	u8 iv[MRO_AEAD_NONCE_LEN];
	struct scatterlist sg;
	int err;

	req = d->simd_req && crypto_simd_usable() ? d->simd_req : d->req;
	memcpy(iv, nonce, sizeof(iv));
	sg_init_one(&sg, buf, buf_len);
	aead_request_set_ad(req, assoclen);
	aead_request_set_crypt(req, &sg, &sg, cryptlen, iv);
	err = enc ? crypto_aead_encrypt(req) : crypto_aead_decrypt(req);
	/* CRYPTO_ALG_ASYNC was masked out at allocation */
	if (WARN_ON_ONCE(err == -EINPROGRESS || err == -EBUSY))
		err = -EIO;
	return err;
}

/*
 * Seal pkt with an explicit nonce: mro_aead_seal() without the counter.
 * Only the known-answer tests call it directly.
 */
/* what seal refuses before it takes a counter value */
static int mro_aead_seal_args(enum mro_prot mode, unsigned int hdr_len,
			      unsigned int len)
{
	if (mode != MRO_PROT_AUTH && mode != MRO_PROT_ENCRYPT)
		return -EINVAL;
	if (hdr_len > len || len > UINT_MAX - MRO_AEAD_TAG_LEN)
		return -EINVAL;
	return 0;
}

/* seal with @nonce; the arguments have passed mro_aead_seal_args() */
static int mro_aead_seal_at(struct mro_aead_dir *d, enum mro_prot mode,
			    const u8 nonce[MRO_AEAD_NONCE_LEN], u8 *pkt,
			    unsigned int hdr_len, unsigned int len)
{
	unsigned int assoclen = mode == MRO_PROT_AUTH ? len : hdr_len;

	return mro_aead_crypt(d, true, nonce, pkt, len + MRO_AEAD_TAG_LEN,
			      assoclen, len - assoclen);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* seal with a given nonce: known-answer tests only */
int mro_aead_seal_nonce(struct mro_aead_dir *d, enum mro_prot mode,
			const u8 nonce[MRO_AEAD_NONCE_LEN], u8 *pkt,
			unsigned int hdr_len, unsigned int len)
{
	int err = mro_aead_seal_args(mode, hdr_len, len);

	return err ?: mro_aead_seal_at(d, mode, nonce, pkt, hdr_len, len);
}
EXPORT_SYMBOL_IF_KUNIT(mro_aead_seal_nonce);
#endif

/*
 * Protect the len bytes at pkt, of which the first hdr_len are headers
 * (ignored in auth mode, where all of it is associated data), and write
 * the tag at pkt + len: the caller provides MRO_AEAD_TAG_LEN bytes of room
 * there.  pkt must be in the kernel's linear mapping (kmalloc or an skb's
 * linear data; not the stack, not vmalloc).  *seq_out is the counter value
 * taken, which the caller puts into the packet (mro_aead_put_seq()).
 *
 * Every call that gets past the argument checks takes a counter value,
 * even if the crypto API then fails, so no value is ever used twice.
 * Returns -EKEYEXPIRED once the counter is exhausted (rekey), -EINVAL for
 * bad arguments.
 */
int mro_aead_seal(struct mro_aead_dir *d, enum mro_prot mode, u8 *pkt,
		  unsigned int hdr_len, unsigned int len, u64 *seq_out)
{
	u8 nonce[MRO_AEAD_NONCE_LEN];
	u64 seq;
	int err;

	err = mro_aead_seal_args(mode, hdr_len, len);
	if (err)
		return err;
	if (d->next_seq > MRO_AEAD_SEQ_MAX)
		return -EKEYEXPIRED;
	seq = d->next_seq++;
	mro_aead_nonce(nonce, d->key_id, d->dir, seq);
	*seq_out = seq;
	return mro_aead_seal_at(d, mode, nonce, pkt, hdr_len, len);
}
EXPORT_SYMBOL_IF_KUNIT(mro_aead_seal);

int mro_aead_seal_packet(struct mro_aead_dir *d, enum mro_prot mode, u8 *pkt,
			 unsigned int hdr_len, unsigned int pkt_len)
{
	unsigned int len;
	u64 seq;
	int err;

	if (pkt_len < METAROCE_SEAL_LEN)
		return -EINVAL;
	len = pkt_len - METAROCE_SEAL_LEN;
	err = mro_aead_seal(d, mode, pkt, hdr_len, len, &seq);
	if (err)
		return err;
	mro_aead_put_seq(pkt + len + MRO_AEAD_TAG_LEN, seq);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_aead_seal_packet);

/*
 * Verify, and in encrypt mode decrypt in place, the len_with_tag bytes at
 * pkt (the packet as sealed, then its tag) that carried counter value
 * seq.  hdr_len must be the sender's.  On success the payload is the
 * plaintext the sender sealed, and the tag may be dropped.
 *
 * Returns -EBADMSG if the packet is not authentic: the tag does not
 * verify, the packet is too short to hold one, or seq is a value no
 * sender uses.  The bytes from hdr_len on are then zeroed, so that no
 * unauthenticated payload is ever used; the headers are left as they came
 * and are not to be trusted either.  The replay window is the caller's:
 * mro_replay_commit() only after this returned 0.
 */
int mro_aead_open(struct mro_aead_dir *d, enum mro_prot mode, u8 *pkt,
		  unsigned int hdr_len, unsigned int len_with_tag, u64 seq)
{
	u8 nonce[MRO_AEAD_NONCE_LEN];
	unsigned int assoclen;
	int err;

	if (mode != MRO_PROT_AUTH && mode != MRO_PROT_ENCRYPT)
		return -EINVAL;
	if (hdr_len > len_with_tag)
		return -EBADMSG;
	if (len_with_tag - hdr_len < MRO_AEAD_TAG_LEN || seq > MRO_AEAD_SEQ_MAX) {
		err = -EBADMSG;
		goto wipe;
	}
	assoclen = mode == MRO_PROT_AUTH ? len_with_tag - MRO_AEAD_TAG_LEN :
					   hdr_len;
	mro_aead_nonce(nonce, d->key_id, d->dir, seq);
	err = mro_aead_crypt(d, false, nonce, pkt, len_with_tag, assoclen,
			     len_with_tag - assoclen);
	if (!err)
		return 0;
wipe:
	memzero_explicit(pkt + hdr_len, len_with_tag - hdr_len);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(mro_aead_open);

static unsigned int mro_replay_bit(u64 seq)
{
	return (unsigned int)(seq & (MRO_REPLAY_WIN - 1));
}

/* an empty window: every counter value is new */
void mro_replay_init(struct mro_replay *w)
{
	w->top = 0;
	bitmap_zero(w->bits, MRO_REPLAY_WIN);
}
EXPORT_SYMBOL_IF_KUNIT(mro_replay_init);

/*
 * Whether a packet with counter value seq would be accepted, without
 * changing w: yes if seq is above every value committed, or within the
 * MRO_REPLAY_WIN values below top and not committed yet; no if it was
 * committed, is older than the window, or is above MRO_AEAD_SEQ_MAX.
 * The receiver checks before it opens the packet, to skip the crypto for
 * a replay, and commits after the tag verified.
 */
bool mro_replay_check(const struct mro_replay *w, u64 seq)
{
	if (seq > MRO_AEAD_SEQ_MAX)
		return false;
	if (seq >= w->top)
		return true;
	if (w->top - seq > MRO_REPLAY_WIN)
		return false;
	return !test_bit(mro_replay_bit(seq), w->bits);
}
EXPORT_SYMBOL_IF_KUNIT(mro_replay_check);

/*
 * Record seq as seen, for a packet whose tag verified.  Returns false,
 * and changes nothing, if mro_replay_check() would refuse seq (a packet
 * with the same counter was committed since it was checked): the caller
 * drops the packet.  A value above top moves the window up; the values
 * skipped on the way are left unseen, and any that fall out of the window
 * are forgotten.
 */
bool mro_replay_commit(struct mro_replay *w, u64 seq)
{
	u64 s;

	if (!mro_replay_check(w, seq))
		return false;
	if (seq >= w->top) {
		if (seq - w->top >= MRO_REPLAY_WIN)
			bitmap_zero(w->bits, MRO_REPLAY_WIN);
		else
			for (s = w->top; s < seq; s++)
				__clear_bit(mro_replay_bit(s), w->bits);
		w->top = seq + 1;
	}
	__set_bit(mro_replay_bit(seq), w->bits);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(mro_replay_commit);
