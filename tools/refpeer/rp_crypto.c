// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librefpeer: packet protection (protocol.rst, Packet protection) with
 * OpenSSL's libcrypto: HKDF-SHA256 (EVP_KDF "HKDF") for the connection
 * keys, AES-GCM (EVP) for sealing and opening, and the replay window.
 *
 * Connection keys: PRK = HKDF-Extract("metaroce v2 salt", device key);
 * key(dir) = HKDF-Expand(PRK, info(dir), key length), with the 82-byte
 * info of the two ends sorted by their 32-byte encodings (GID, QPN, first
 * PSN, HELLO nonce): "metaroce v2 conn", key id, lo's end, hi's end,
 * direction 'L' (lo sends) or 'H' (hi sends).
 * GCM nonce: key id, direction ('L' for the end with the lower HELLO
 * nonce), two zero bytes, the 64-bit transmission counter.
 */
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <linux/unaligned.h>

#include "rp_internal.h"

#define RP_KDF_SALT	"metaroce v2 salt"
#define RP_KDF_LABEL	"metaroce v2 conn"
#define RP_KDF_END_LEN	32
#define RP_KDF_INFO_LEN	(16 + 1 + 2 * RP_KDF_END_LEN + 1)
#define RP_REPLAY_WIN	1024
#define RP_TAG_LEN	16

struct rp_crypto {
	const EVP_CIPHER *cipher;
	EVP_CIPHER_CTX *tx, *rx;
	u8 prot;
	u8 key_id;
	u8 tx_dir, rx_dir;
	u64 tx_ctr;
	bool rx_any;
	u64 rx_high;
	u64 rx_win[RP_REPLAY_WIN / 64];
};

int rp_hkdf_sha256(const u8 *salt, size_t salt_len, const u8 *ikm,
		   size_t ikm_len, const u8 *info, size_t info_len, u8 *okm,
		   size_t okm_len)
{
	OSSL_PARAM params[5], *p = params;
	EVP_KDF_CTX *kctx;
	EVP_KDF *kdf;
	int ret;

	if (!okm_len || okm_len > 255 * 32)
		return -1;
	kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	if (!kdf)
		return -1;
	kctx = EVP_KDF_CTX_new(kdf);
	EVP_KDF_free(kdf);
	if (!kctx)
		return -1;
	*p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST,
						(char *)"SHA256", 0);
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
						 (void *)ikm, ikm_len);
	if (salt_len)
		*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT,
							 (void *)salt, salt_len);
	if (info_len)
		*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO,
							 (void *)info, info_len);
	*p = OSSL_PARAM_construct_end();
	ret = EVP_KDF_derive(kctx, okm, okm_len, params) == 1 ? 0 : -1;
	EVP_KDF_CTX_free(kctx);
	return ret;
}

static void encode_end(const struct rp_conn_end *e, u8 *out)
{
	memcpy(out, e->gid, 16);
	put_unaligned_be32(e->qpn, out + 16);
	put_unaligned_be32(e->psn, out + 20);
	put_unaligned_be64(e->nonce, out + 24);
}

int rp_kdf_conn_keys(const u8 *dev_key, size_t dev_key_len, u8 key_id,
		     const struct rp_conn_end *a, const struct rp_conn_end *b,
		     u8 *key_a_to_b, u8 *key_b_to_a, size_t key_len)
{
	u8 ea[RP_KDF_END_LEN], eb[RP_KDF_END_LEN], info[RP_KDF_INFO_LEN];
	u8 kl[64], kh[64];
	const u8 *lo, *hi;
	int cmp;

	if (!dev_key_len || !key_len || key_len > sizeof(kl) ||
	    (a->qpn | b->qpn | a->psn | b->psn) >> 24 || !a->nonce ||
	    !b->nonce)
		return -1;
	encode_end(a, ea);
	encode_end(b, eb);
	cmp = memcmp(ea, eb, RP_KDF_END_LEN);
	lo = cmp <= 0 ? ea : eb;
	hi = cmp <= 0 ? eb : ea;
	/* HKDF-Extract and HKDF-Expand in one EVP call per direction */
	memcpy(info, RP_KDF_LABEL, 16);
	info[16] = key_id;
	memcpy(info + 17, lo, RP_KDF_END_LEN);
	memcpy(info + 17 + RP_KDF_END_LEN, hi, RP_KDF_END_LEN);
	info[RP_KDF_INFO_LEN - 1] = 'L';
	if (rp_hkdf_sha256((const u8 *)RP_KDF_SALT, 16, dev_key, dev_key_len,
			   info, sizeof(info), kl, key_len))
		return -1;
	info[RP_KDF_INFO_LEN - 1] = 'H';
	if (rp_hkdf_sha256((const u8 *)RP_KDF_SALT, 16, dev_key, dev_key_len,
			   info, sizeof(info), kh, key_len))
		return -1;
	if (cmp == 0) {		/* connected to itself: 'L' both ways */
		memcpy(key_a_to_b, kl, key_len);
		memcpy(key_b_to_a, kl, key_len);
	} else if (cmp < 0) {
		memcpy(key_a_to_b, kl, key_len);
		memcpy(key_b_to_a, kh, key_len);
	} else {
		memcpy(key_a_to_b, kh, key_len);
		memcpy(key_b_to_a, kl, key_len);
	}
	return 0;
}

static EVP_CIPHER_CTX *gcm_ctx(const EVP_CIPHER *c, const u8 *key, bool enc)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

	if (!ctx)
		return NULL;
	if (EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) != 1 ||
	    EVP_CipherInit_ex(ctx, NULL, NULL, key, NULL, enc) != 1) {
		EVP_CIPHER_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

struct rp_crypto *rp_crypto_new(struct rp_ep *ep)
{
	struct rp_conn_end me = { 0 }, peer = { 0 };
	u8 ktx[RP_MAX_KEY], krx[RP_MAX_KEY];
	struct rp_crypto *c;

	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	rp_ipv4_gid(ep->cfg.local_ip, me.gid);
	me.qpn = ep->cfg.qpn;
	me.psn = 0;	/* both PSN fields are 0 (protocol.rst, Keys) */
	me.nonce = ep->nonce;
	rp_ipv4_gid(ep->cfg.peer_ip, peer.gid);
	peer.qpn = ep->cfg.peer_qpn;
	peer.psn = 0;
	peer.nonce = ep->peer_nonce;
	if (rp_kdf_conn_keys(ep->cfg.key, ep->cfg.key_len, ep->chosen_key_id,
			     &me, &peer, ktx, krx, ep->cfg.key_len))
		goto fail;
	c->cipher = ep->cfg.key_len == 16 ? EVP_aes_128_gcm() :
					    EVP_aes_256_gcm();
	c->prot = ep->cfg.prot;
	c->key_id = ep->chosen_key_id;
	if (ep->nonce == ep->peer_nonce) {
		c->tx_dir = 'L';
		c->rx_dir = 'L';
	} else {
		c->tx_dir = ep->nonce < ep->peer_nonce ? 'L' : 'H';
		c->rx_dir = ep->nonce < ep->peer_nonce ? 'H' : 'L';
	}
	c->tx = gcm_ctx(c->cipher, ktx, true);
	c->rx = gcm_ctx(c->cipher, krx, false);
	memset(ktx, 0, sizeof(ktx));
	memset(krx, 0, sizeof(krx));
	if (!c->tx || !c->rx)
		goto fail;
	return c;
fail:
	rp_crypto_free(c);
	return NULL;
}

void rp_crypto_free(struct rp_crypto *c)
{
	if (!c)
		return;
	EVP_CIPHER_CTX_free(c->tx);
	EVP_CIPHER_CTX_free(c->rx);
	free(c);
}

static void make_iv(u8 iv[12], u8 key_id, u8 dir, u64 ctr)
{
	iv[0] = key_id;
	iv[1] = dir;
	iv[2] = 0;
	iv[3] = 0;
	put_unaligned_be64(ctr, iv + 4);
}

int rp_crypto_seal(struct rp_crypto *c, u8 *buf, size_t hdr_len, size_t len)
{
	size_t aad = c->prot == METAROCE_PROT_ENCRYPT ? hdr_len : len;
	u8 iv[12];
	int outl;

	if (c->tx_ctr > UINT64_MAX - 2)
		return -1;
	make_iv(iv, c->key_id, c->tx_dir, c->tx_ctr);
	if (EVP_EncryptInit_ex(c->tx, NULL, NULL, NULL, iv) != 1 ||
	    EVP_EncryptUpdate(c->tx, NULL, &outl, buf, aad) != 1)
		return -1;
	if (aad < len &&
	    EVP_EncryptUpdate(c->tx, buf + aad, &outl, buf + aad,
			      len - aad) != 1)
		return -1;
	if (EVP_EncryptFinal_ex(c->tx, buf + len, &outl) != 1 ||
	    EVP_CIPHER_CTX_ctrl(c->tx, EVP_CTRL_GCM_GET_TAG, RP_TAG_LEN,
				buf + len) != 1)
		return -1;
	put_unaligned_be64(c->tx_ctr, buf + len + RP_TAG_LEN);
	c->tx_ctr++;
	return len + METAROCE_SEAL_LEN;
}

static bool replay_seen(struct rp_crypto *c, u64 ctr)
{
	if (!c->rx_any || ctr > c->rx_high)
		return false;
	if (c->rx_high - ctr >= RP_REPLAY_WIN)
		return true;
	return (c->rx_win[(ctr / 64) % (RP_REPLAY_WIN / 64)] >> (ctr % 64)) & 1;
}

static void replay_mark(struct rp_crypto *c, u64 ctr)
{
	u64 i;

	if (!c->rx_any) {
		c->rx_any = true;
		c->rx_high = ctr;
		memset(c->rx_win, 0, sizeof(c->rx_win));
	} else if (ctr > c->rx_high) {
		if (ctr - c->rx_high >= RP_REPLAY_WIN) {
			memset(c->rx_win, 0, sizeof(c->rx_win));
		} else {
			for (i = c->rx_high + 1; i <= ctr; i++)
				c->rx_win[(i / 64) % (RP_REPLAY_WIN / 64)] &=
					~(1ULL << (i % 64));
		}
		c->rx_high = ctr;
	}
	c->rx_win[(ctr / 64) % (RP_REPLAY_WIN / 64)] |= 1ULL << (ctr % 64);
}

int rp_crypto_open(struct rp_crypto *c, u8 *buf, size_t hdr_len, size_t len)
{
	size_t body = len - METAROCE_SEAL_LEN;
	size_t aad = c->prot == METAROCE_PROT_ENCRYPT ? hdr_len : body;
	u64 ctr = get_unaligned_be64(buf + body + RP_TAG_LEN);
	u8 iv[12];
	int outl;

	if (replay_seen(c, ctr))
		return -2;
	make_iv(iv, c->key_id, c->rx_dir, ctr);
	if (EVP_DecryptInit_ex(c->rx, NULL, NULL, NULL, iv) != 1 ||
	    EVP_DecryptUpdate(c->rx, NULL, &outl, buf, aad) != 1)
		return -1;
	if (aad < body &&
	    EVP_DecryptUpdate(c->rx, buf + aad, &outl, buf + aad,
			      body - aad) != 1)
		return -1;
	if (EVP_CIPHER_CTX_ctrl(c->rx, EVP_CTRL_GCM_SET_TAG, RP_TAG_LEN,
				buf + body) != 1 ||
	    EVP_DecryptFinal_ex(c->rx, iv, &outl) != 1)
		return -1;
	replay_mark(c, ctr);
	return 0;
}
