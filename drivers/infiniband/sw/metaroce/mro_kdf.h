/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Key derivation for wire protocol v2's packet authentication: HKDF
 * (RFC 5869) with HMAC-SHA256, and the per-connection keys derived from a
 * device key with it.  Pure C over the kernel crypto API, driven by KUnit.
 *
 * The caller allocates the HMAC transform, crypto_alloc_shash("hmac(sha256)",
 * 0, 0), and passes it in.  Every function here sets that transform's key,
 * so the caller serializes the calls that share one transform.
 */
#ifndef MRO_KDF_H
#define MRO_KDF_H

#include <crypto/sha2.h>
#include <linux/types.h>

struct crypto_shash;

/* RFC 5869: L <= 255 * HashLen */
#define MRO_HKDF_MAX_OKM	(255 * SHA256_DIGEST_SIZE)

/* the largest QPN and PSN: both are 24-bit numbers */
#define MRO_KDF_24BIT_MAX	0xffffffU

/* one end of a connection */
struct mro_conn_end {
	u8 gid[16];	/* as on the wire (network order) */
	u32 qpn;	/* its QP number, host order, < 2^24 */
	u32 psn;	/* the first PSN it sends with, host order, < 2^24 */
	u64 nonce;	/* its HELLO nonce, host order, never 0 */
};

/*
 * What a connection's keys are bound to.  a and b may be filled in either
 * order (typically a is the local end): the derivation sorts the two ends
 * itself, and key_a_to_b of mro_kdf_conn_keys() always protects the packets
 * that a sends to b.  key_id names which device key is in use, so that a
 * key can be replaced while connections keyed with the old one drain.
 * The two nonces are those of the connection's HELLOs (struct
 * metaroce_hello): new for every connection, they keep a connection
 * between the same QPNs with the same first PSNs from deriving the keys,
 * and so reusing the AEAD nonces, of an earlier one.
 */
struct mro_conn_id {
	struct mro_conn_end a;
	struct mro_conn_end b;
	u8 key_id;
};

/*
 * A QP connected to itself: the same GID and QPN at both ends (PROT-4),
 * one flow whose key and nonce direction serve both ways
 */
bool mro_conn_one_flow(const struct mro_conn_id *id);

int mro_hkdf_extract(struct crypto_shash *hmac, const u8 *salt,
		     unsigned int salt_len, const u8 *ikm, unsigned int ikm_len,
		     u8 prk[SHA256_DIGEST_SIZE]);
int mro_hkdf_expand(struct crypto_shash *hmac, const u8 *prk, const u8 *info,
		    unsigned int info_len, u8 *okm, unsigned int okm_len);
int mro_kdf_conn_keys(struct crypto_shash *hmac, const u8 *dev_key,
		      unsigned int dev_key_len, const struct mro_conn_id *id,
		      u8 *key_a_to_b, u8 *key_b_to_a, unsigned int key_len);

/* the datagram nonce: 56 bits, never 0 (struct metaroce_dseal) */
#define MRO_KDF_DGRAM_NONCE_MAX	0x00ffffffffffffffULL

/*
 * The sending key of a UD QP (@qpn, 24 bits) with datagram nonce @nonce
 * (1 to MRO_KDF_DGRAM_NONCE_MAX) under device key @key_id (not 0): key_len
 * bytes (1 to MRO_HKDF_MAX_OKM).  Other arguments are refused (-EINVAL);
 * on any error @key is zeroed, unless key_len itself is refused.
 */
int mro_kdf_dgram_key(struct crypto_shash *hmac, const u8 *dev_key,
		      unsigned int dev_key_len, u8 key_id, u32 qpn, u64 nonce,
		      u8 *key, unsigned int key_len);

#endif /* MRO_KDF_H */
