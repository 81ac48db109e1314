// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * HKDF (RFC 5869) over the crypto API's HMAC-SHA256, and the derivation of
 * a connection's two packet keys from a device key.  See mro_kdf.h.
 *
 * Connection keys.  For a device key K (the input keying material, shared
 * by the two ends), a connection identity and a key length L:
 *
 *   PRK        = HKDF-Extract(salt, K)
 *   key(dir)   = HKDF-Expand(PRK, info(dir), L)
 *
 * salt is the 16 ASCII bytes "metaroce v2 salt" (no terminator).  It is
 * 16 bytes, not shorter, because it is the HMAC key of the extract step
 * and a kernel in FIPS mode refuses HMAC keys below 112 bits.
 *
 * The two ends of the connection are sorted: each end is encoded as 32
 * bytes, its GID (16 bytes, as on the wire), its QPN (4 bytes,
 * big-endian), the first PSN it sends with (4 bytes, big-endian; the
 * driver passes 0 for both ends, protocol.rst, Packet protection) and its
 * HELLO nonce (8 bytes, big-endian), and the end whose encoding is lower
 * in unsigned byte order (memcmp) is "lo", the other "hi".  Both ends of a
 * connection thereby build the same info strings, whichever of them is
 * local.  info(dir) is 82 bytes:
 *
 *   offset  length  content
 *        0      16  ASCII "metaroce v2 conn" (no terminator)
 *       16       1  key id
 *       17      16  lo's GID
 *       33       4  lo's QPN, big-endian
 *       37       4  lo's first PSN, big-endian
 *       41       8  lo's HELLO nonce, big-endian
 *       49      16  hi's GID
 *       65       4  hi's QPN, big-endian
 *       69       4  hi's first PSN, big-endian
 *       73       8  hi's HELLO nonce, big-endian
 *       81       1  direction: 'L' (0x4c) for the packets lo sends to hi,
 *                   'H' (0x48) for the packets hi sends to lo
 *
 * The nonces, random, nonzero and new for every connection, make two
 * connections between the same QPNs with the same first PSNs derive
 * distinct keys, so that the AEAD nonce counter, which restarts at 0 with
 * every key, never repeats a nonce under one key.
 *
 * Datagram keys.  A UD QP's sending key is HKDF-Expand(PRK, dinfo, L)
 * with PRK as above and a 29-byte dinfo:
 *
 *   offset  length  content
 *        0      16  ASCII "metaroce v2 dgrm" (no terminator)
 *       16       1  key id
 *       17       4  the QP's QPN, big-endian
 *       21       7  its datagram nonce (56 bits), big-endian
 *       28       1  'D' (0x44)
 *
 * The nonce, random and drawn anew every time the QP enters RTS, gives
 * each life of a QPN its own key, under which the counter starts at 0.
 *
 * The direction byte gives the two directions of a connection distinct
 * keys.  A QP connected to itself (the two ends have the same GID and
 * QPN) is a single flow whose packets it both sends and receives: it
 * uses the 'L' key in both directions.
 */
#include <crypto/hash.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "mro_kdf.h"
#include "mro_unaligned.h"

#define MRO_KDF_LABEL		"metaroce v2 conn"
#define MRO_KDF_LABEL_LEN	(sizeof(MRO_KDF_LABEL) - 1)
#define MRO_KDF_END_LEN		32	/* GID, QPN, PSN, nonce */
#define MRO_KDF_INFO_LEN	(MRO_KDF_LABEL_LEN + 1 + 2 * MRO_KDF_END_LEN + 1)
#define MRO_KDF_DIR_LO		'L'
#define MRO_KDF_DIR_HI		'H'

static_assert(MRO_KDF_INFO_LEN == 82);

#define MRO_KDF_DGRAM_LABEL	"metaroce v2 dgrm"
#define MRO_KDF_DGRAM_INFO_LEN	(sizeof(MRO_KDF_DGRAM_LABEL) - 1 + 1 + 4 + 7 + 1)
#define MRO_KDF_DIR_DGRAM	'D'

static_assert(MRO_KDF_DGRAM_INFO_LEN == 29);

static const u8 mro_kdf_salt[] = "metaroce v2 salt";

static bool mro_kdf_is_sha256(struct crypto_shash *hmac)
{
	return crypto_shash_digestsize(hmac) == SHA256_DIGEST_SIZE;
}

/* PRK = HMAC-Hash(salt, IKM); no salt means HashLen zero bytes */
int mro_hkdf_extract(struct crypto_shash *hmac, const u8 *salt,
		     unsigned int salt_len, const u8 *ikm, unsigned int ikm_len,
		     u8 prk[SHA256_DIGEST_SIZE])
{
	static const u8 zero_salt[SHA256_DIGEST_SIZE];
	int err;

	if (!mro_kdf_is_sha256(hmac))
		return -EINVAL;
	if (!salt_len) {
		salt = zero_salt;
		salt_len = sizeof(zero_salt);
	}
	err = crypto_shash_setkey(hmac, salt, salt_len);
	if (err)
		return err;
	err = crypto_shash_tfm_digest(hmac, ikm, ikm_len, prk);
	if (err)
		memzero_explicit(prk, SHA256_DIGEST_SIZE);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(mro_hkdf_extract);

/*
 * OKM = the first okm_len bytes of T(1) | T(2) | ..., where
 * T(i) = HMAC-Hash(PRK, T(i - 1) | info | i) and T(0) is empty.
 * On error okm is zeroed, never left partly written.
 */
int mro_hkdf_expand(struct crypto_shash *hmac, const u8 *prk, const u8 *info,
		    unsigned int info_len, u8 *okm, unsigned int okm_len)
{
	SHASH_DESC_ON_STACK(desc, hmac);
	u8 t[SHA256_DIGEST_SIZE];
	unsigned int done = 0, n;
	u8 i = 0;
	int err;

	if (!mro_kdf_is_sha256(hmac) || okm_len > MRO_HKDF_MAX_OKM)
		return -EINVAL;
	err = crypto_shash_setkey(hmac, prk, SHA256_DIGEST_SIZE);
	if (err)
		return err;
	desc->tfm = hmac;
	while (done < okm_len) {
		i++;	/* at most 255: okm_len <= 255 * HashLen */
		err = crypto_shash_init(desc);
		if (!err && i > 1)
			err = crypto_shash_update(desc, t, sizeof(t));
		if (!err && info_len)
			err = crypto_shash_update(desc, info, info_len);
		if (!err)
			err = crypto_shash_finup(desc, &i, 1, t);
		if (err)
			break;
		n = min_t(unsigned int, okm_len - done, sizeof(t));
		memcpy(okm + done, t, n);
		done += n;
	}
	shash_desc_zero(desc);
	memzero_explicit(t, sizeof(t));
	if (err)
		memzero_explicit(okm, okm_len);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(mro_hkdf_expand);

static bool mro_kdf_end_ok(const struct mro_conn_end *e)
{
	return e->qpn <= MRO_KDF_24BIT_MAX && e->psn <= MRO_KDF_24BIT_MAX &&
	       e->nonce;
}

bool mro_conn_one_flow(const struct mro_conn_id *id)
{
	return !memcmp(id->a.gid, id->b.gid, sizeof(id->a.gid)) &&
	       id->a.qpn == id->b.qpn;
}
EXPORT_SYMBOL_IF_KUNIT(mro_conn_one_flow);

static void mro_kdf_put_end(u8 *p, const struct mro_conn_end *e)
{
	memcpy(p, e->gid, sizeof(e->gid));
	put_unaligned_be32(e->qpn, p + sizeof(e->gid));
	put_unaligned_be32(e->psn, p + sizeof(e->gid) + 4);
	put_unaligned_be64(e->nonce, p + sizeof(e->gid) + 8);
}

/*
 * key_a_to_b protects the packets id->a sends to id->b, key_b_to_a the
 * others; both are key_len bytes (1 to MRO_HKDF_MAX_OKM).  QPNs and PSNs
 * above 24 bits are refused: they have no single encoding the other end
 * would also use.  So is a nonce of 0, which no HELLO carries: it would be
 * an end whose nonce is not known yet.  On error both keys are zeroed,
 * unless key_len itself is refused: then nothing is written.
 */
int mro_kdf_conn_keys(struct crypto_shash *hmac, const u8 *dev_key,
		      unsigned int dev_key_len, const struct mro_conn_id *id,
		      u8 *key_a_to_b, u8 *key_b_to_a, unsigned int key_len)
{
	u8 end_a[MRO_KDF_END_LEN], end_b[MRO_KDF_END_LEN];
	u8 info[MRO_KDF_INFO_LEN];
	u8 prk[SHA256_DIGEST_SIZE] = {};
	u8 *lo_key, *hi_key;
	const u8 *lo, *hi;
	u8 *p = info;
	int err;

	if (!key_len || key_len > MRO_HKDF_MAX_OKM)
		return -EINVAL;
	if (!dev_key_len || !mro_kdf_end_ok(&id->a) ||
	    !mro_kdf_end_ok(&id->b)) {
		err = -EINVAL;
		goto out;
	}

	mro_kdf_put_end(end_a, &id->a);
	mro_kdf_put_end(end_b, &id->b);
	if (memcmp(end_a, end_b, MRO_KDF_END_LEN) <= 0) {
		lo = end_a;
		hi = end_b;
		lo_key = key_a_to_b;
		hi_key = key_b_to_a;
	} else {
		lo = end_b;
		hi = end_a;
		lo_key = key_b_to_a;
		hi_key = key_a_to_b;
	}

	memcpy(p, MRO_KDF_LABEL, MRO_KDF_LABEL_LEN);
	p += MRO_KDF_LABEL_LEN;
	*p++ = id->key_id;
	memcpy(p, lo, MRO_KDF_END_LEN);
	p += MRO_KDF_END_LEN;
	memcpy(p, hi, MRO_KDF_END_LEN);
	p += MRO_KDF_END_LEN;

	err = mro_hkdf_extract(hmac, mro_kdf_salt, sizeof(mro_kdf_salt) - 1,
			       dev_key, dev_key_len, prk);
	if (err)
		goto out;
	*p = MRO_KDF_DIR_LO;
	err = mro_hkdf_expand(hmac, prk, info, sizeof(info), lo_key, key_len);
	if (err)
		goto out;
	if (mro_conn_one_flow(id)) {
		memcpy(hi_key, lo_key, key_len);
	} else {
		*p = MRO_KDF_DIR_HI;
		err = mro_hkdf_expand(hmac, prk, info, sizeof(info), hi_key,
				      key_len);
	}
out:
	memzero_explicit(prk, sizeof(prk));
	if (err) {
		memzero_explicit(key_a_to_b, key_len);
		memzero_explicit(key_b_to_a, key_len);
	}
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(mro_kdf_conn_keys);

int mro_kdf_dgram_key(struct crypto_shash *hmac, const u8 *dev_key,
		      unsigned int dev_key_len, u8 key_id, u32 qpn, u64 nonce,
		      u8 *key, unsigned int key_len)
{
	u8 info[MRO_KDF_DGRAM_INFO_LEN];
	u8 prk[SHA256_DIGEST_SIZE] = {};
	u8 nonce_be[8];
	u8 *p = info;
	int err;

	if (!key_len || key_len > MRO_HKDF_MAX_OKM)
		return -EINVAL;
	if (!dev_key_len || !key_id || qpn > MRO_KDF_24BIT_MAX || !nonce ||
	    nonce > MRO_KDF_DGRAM_NONCE_MAX) {
		err = -EINVAL;
		goto out;
	}
	memcpy(p, MRO_KDF_DGRAM_LABEL, sizeof(MRO_KDF_DGRAM_LABEL) - 1);
	p += sizeof(MRO_KDF_DGRAM_LABEL) - 1;
	*p++ = key_id;
	put_unaligned_be32(qpn, p);
	p += 4;
	put_unaligned_be64(nonce, nonce_be);
	memcpy(p, nonce_be + 1, 7);
	p += 7;
	*p = MRO_KDF_DIR_DGRAM;

	err = mro_hkdf_extract(hmac, mro_kdf_salt, sizeof(mro_kdf_salt) - 1,
			       dev_key, dev_key_len, prk);
	if (!err)
		err = mro_hkdf_expand(hmac, prk, info, sizeof(info), key,
				      key_len);
out:
	memzero_explicit(prk, sizeof(prk));
	if (err)
		memzero_explicit(key, key_len);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(mro_kdf_dgram_key);
