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
 *
 * Datagrams (PROT-18..24): a UD QP's own sending key from its QPN and a
 * random 56-bit datagram nonce; a receiver keeps the keys and replay
 * windows of at most 64 senders, a new one taking the place of the least
 * recent that is free to go (nothing opened under its key, or nothing
 * for a second).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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

/* the window of counter values accepted (PROT-14, PROT-22) */
struct rp_replay {
	bool any;
	u64 high;
	u64 win[RP_REPLAY_WIN / 64];
};

struct rp_crypto {
	const EVP_CIPHER *cipher;
	EVP_CIPHER_CTX *tx, *rx;
	u8 prot;
	u8 key_id;
	u8 tx_dir, rx_dir;
	u64 tx_ctr;
	struct rp_replay rx_win;
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

/*
 * AES-GCM over a packet of @len bytes (@hdr_len of them headers) in @buf:
 * auth: all of it associated data; encrypt: the headers, the payload
 * encrypted in place.  The tag goes to @buf + @len.
 */
static int gcm_seal(EVP_CIPHER_CTX *ctx, u8 prot, const u8 iv[12], u8 *buf,
		    size_t hdr_len, size_t len)
{
	size_t aad = prot == METAROCE_PROT_ENCRYPT ? hdr_len : len;
	int outl;

	if (EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv) != 1 ||
	    EVP_EncryptUpdate(ctx, NULL, &outl, buf, aad) != 1)
		return -1;
	if (aad < len &&
	    EVP_EncryptUpdate(ctx, buf + aad, &outl, buf + aad, len - aad) != 1)
		return -1;
	if (EVP_EncryptFinal_ex(ctx, buf + len, &outl) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, RP_TAG_LEN,
				buf + len) != 1)
		return -1;
	return 0;
}

/* the reverse over @body bytes, the tag at @buf + @body: 0 or -1 */
static int gcm_open(EVP_CIPHER_CTX *ctx, u8 prot, const u8 iv[12], u8 *buf,
		    size_t hdr_len, size_t body)
{
	size_t aad = prot == METAROCE_PROT_ENCRYPT ? hdr_len : body;
	u8 scratch[16];
	int outl;

	if (EVP_DecryptInit_ex(ctx, NULL, NULL, NULL, iv) != 1 ||
	    EVP_DecryptUpdate(ctx, NULL, &outl, buf, aad) != 1)
		return -1;
	if (aad < body &&
	    EVP_DecryptUpdate(ctx, buf + aad, &outl, buf + aad,
			      body - aad) != 1)
		return -1;
	if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, RP_TAG_LEN,
				buf + body) != 1 ||
	    EVP_DecryptFinal_ex(ctx, scratch, &outl) != 1)
		return -1;
	return 0;
}

int rp_crypto_seal(struct rp_crypto *c, u8 *buf, size_t hdr_len, size_t len)
{
	u8 iv[12];

	if (c->tx_ctr > UINT64_MAX - 2)
		return -1;
	make_iv(iv, c->key_id, c->tx_dir, c->tx_ctr);
	if (gcm_seal(c->tx, c->prot, iv, buf, hdr_len, len))
		return -1;
	put_unaligned_be64(c->tx_ctr, buf + len + RP_TAG_LEN);
	c->tx_ctr++;
	return len + METAROCE_SEAL_LEN;
}

static bool replay_seen(const struct rp_replay *r, u64 ctr)
{
	if (!r->any || ctr > r->high)
		return false;
	if (r->high - ctr >= RP_REPLAY_WIN)
		return true;
	return (r->win[(ctr / 64) % (RP_REPLAY_WIN / 64)] >> (ctr % 64)) & 1;
}

static void replay_mark(struct rp_replay *r, u64 ctr)
{
	u64 i;

	if (!r->any) {
		r->any = true;
		r->high = ctr;
		memset(r->win, 0, sizeof(r->win));
	} else if (ctr > r->high) {
		if (ctr - r->high >= RP_REPLAY_WIN) {
			memset(r->win, 0, sizeof(r->win));
		} else {
			for (i = r->high + 1; i <= ctr; i++)
				r->win[(i / 64) % (RP_REPLAY_WIN / 64)] &=
					~(1ULL << (i % 64));
		}
		r->high = ctr;
	}
	r->win[(ctr / 64) % (RP_REPLAY_WIN / 64)] |= 1ULL << (ctr % 64);
}

int rp_crypto_open(struct rp_crypto *c, u8 *buf, size_t hdr_len, size_t len)
{
	size_t body = len - METAROCE_SEAL_LEN;
	u64 ctr = get_unaligned_be64(buf + body + RP_TAG_LEN);
	u8 iv[12];

	if (replay_seen(&c->rx_win, ctr))
		return -2;
	make_iv(iv, c->key_id, c->rx_dir, ctr);
	if (gcm_open(c->rx, c->prot, iv, buf, hdr_len, body))
		return -1;
	replay_mark(&c->rx_win, ctr);
	return 0;
}

/*
 * ---- Datagrams (protocol.rst, Packet protection, Datagrams) ----
 *
 * A sender's key: HKDF-SHA256 of the device key with the connections'
 * salt and the 29-byte info "metaroce v2 dgrm", key id, QPN (be32),
 * datagram nonce (7 bytes, be), 'D'; as long as the device key.
 * GCM nonce: key id, 'D', two zero bytes, the counter.
 */
#define RP_DKDF_LABEL		"metaroce v2 dgrm"
#define RP_DKDF_INFO_LEN	(16 + 1 + 4 + 7 + 1)
#define RP_DGRAM_DIR		'D'
#define RP_DGRAM_SENDERS	64	/* senders' keys a receiver keeps */
#define RP_DGRAM_IDLE_US	1000000	/* a sender silent this long may go */

int rp_kdf_dgram_key(const u8 *dev_key, size_t dev_key_len, u8 key_id,
		     u32 qpn, u64 nonce, u8 *key)
{
	u8 info[RP_DKDF_INFO_LEN];

	if ((dev_key_len != 16 && dev_key_len != 32) || nonce >> 56)
		return -1;
	memcpy(info, RP_DKDF_LABEL, 16);
	info[16] = key_id;
	put_unaligned_be32(qpn, info + 17);
	put_unaligned_be32(nonce >> 24, info + 21);
	put_unaligned_be16(nonce >> 8, info + 25);
	info[27] = nonce;
	info[28] = RP_DGRAM_DIR;
	return rp_hkdf_sha256((const u8 *)RP_KDF_SALT, 16, dev_key,
			      dev_key_len, info, sizeof(info), key,
			      dev_key_len);
}

static const EVP_CIPHER *cipher_of(size_t key_len)
{
	return key_len == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
}

int rp_dgram_seal(const u8 *key, size_t key_len, u8 prot, u8 key_id,
		  u64 ctr, u8 *buf, size_t hdr_len, size_t len)
{
	EVP_CIPHER_CTX *ctx;
	u8 iv[12];
	int r;

	if ((key_len != 16 && key_len != 32) || hdr_len > len)
		return -1;
	ctx = gcm_ctx(cipher_of(key_len), key, true);
	if (!ctx)
		return -1;
	make_iv(iv, key_id, RP_DGRAM_DIR, ctr);
	r = gcm_seal(ctx, prot, iv, buf, hdr_len, len);
	EVP_CIPHER_CTX_free(ctx);
	if (r)
		return -1;
	put_unaligned_be64(ctr, buf + len + RP_TAG_LEN);
	return len + METAROCE_SEAL_LEN;
}

int rp_dgram_open(const u8 *key, size_t key_len, u8 prot, u8 key_id,
		  u8 *buf, size_t hdr_len, size_t len)
{
	EVP_CIPHER_CTX *ctx;
	size_t body;
	u8 iv[12];
	int r;

	if ((key_len != 16 && key_len != 32) ||
	    len < hdr_len + METAROCE_SEAL_LEN)
		return -1;
	body = len - METAROCE_SEAL_LEN;
	ctx = gcm_ctx(cipher_of(key_len), key, false);
	if (!ctx)
		return -1;
	make_iv(iv, key_id, RP_DGRAM_DIR,
		get_unaligned_be64(buf + body + RP_TAG_LEN));
	r = gcm_open(ctx, prot, iv, buf, hdr_len, body);
	EVP_CIPHER_CTX_free(ctx);
	return r;
}

/* a sender whose key the receiver keeps (PROT-21) */
struct rp_dsender {
	bool used;
	bool opened;		/* a datagram has opened under its key */
	u8 key_id;
	u32 qpn;
	u64 nonce;
	u64 last_use;		/* ordering: the latest datagram's tick */
	u64 heard_us;		/* the latest datagram that opened */
	EVP_CIPHER_CTX *ctx;
	struct rp_replay win;
};

struct rp_dgram {
	u8 prot;		/* the mode the QP entered RTS with */
	u8 key_id;
	u8 key[RP_MAX_KEY];	/* the device key */
	u8 key_len;
	/* sending: this QP's nonce, key and counter (PROT-18, PROT-19) */
	bool tx_ready;
	u64 tx_nonce;
	u64 tx_ctr;
	EVP_CIPHER_CTX *tx;
	/* receiving */
	u64 tick;
	struct rp_dsender s[RP_DGRAM_SENDERS];
};

struct rp_dgram *rp_dgram_new(struct rp_ep *ep)
{
	struct rp_dgram *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->prot = ep->cfg.prot;
	d->key_id = ep->cfg.key_id;
	d->key_len = ep->cfg.key_len;
	memcpy(d->key, ep->cfg.key, sizeof(d->key));
	return d;
}

int rp_dgram_tx_start(struct rp_dgram *d, u32 qpn)
{
	u8 key[RP_MAX_KEY];
	u64 n = 0;

	/* a random nonzero 56-bit nonce, new every time the QP enters RTS */
	while (!n) {
		if (getrandom(&n, sizeof(n), 0) != sizeof(n))
			return -1;
		n &= (1ULL << 56) - 1;
	}
	if (rp_kdf_dgram_key(d->key, d->key_len, d->key_id, qpn, n, key))
		return -1;
	EVP_CIPHER_CTX_free(d->tx);
	d->tx = gcm_ctx(cipher_of(d->key_len), key, true);
	memset(key, 0, sizeof(key));
	if (!d->tx)
		return -1;
	d->tx_nonce = n;
	d->tx_ctr = 0;
	d->tx_ready = true;
	return 0;
}

bool rp_dgram_tx_fields(const struct rp_dgram *d, u8 *key_id, u64 *nonce)
{
	if (!d || !d->tx_ready)
		return false;
	*key_id = d->key_id;
	*nonce = d->tx_nonce;
	return true;
}

int rp_dgram_tx_seal(struct rp_dgram *d, u8 *buf, size_t hdr_len, size_t len)
{
	u8 iv[12];

	if (!d->tx_ready || d->tx_ctr > UINT64_MAX - 2)
		return -1;
	make_iv(iv, d->key_id, RP_DGRAM_DIR, d->tx_ctr);
	if (gcm_seal(d->tx, d->prot, iv, buf, hdr_len, len))
		return -1;
	put_unaligned_be64(d->tx_ctr, buf + len + RP_TAG_LEN);
	d->tx_ctr++;
	return len + METAROCE_SEAL_LEN;
}

static void sender_forget(struct rp_dsender *s)
{
	EVP_CIPHER_CTX_free(s->ctx);
	memset(s, 0, sizeof(*s));
}

/* whether a kept sender may give its place to a new one (PROT-21) */
static bool sender_free(const struct rp_dsender *s, u64 now)
{
	return !s->used || !s->opened || now - s->heard_us >= RP_DGRAM_IDLE_US;
}

/*
 * The sender's key: kept, or derived now in a free place, the least
 * recent sender free to go giving it up; NULL (*@full) when none is
 */
static struct rp_dsender *sender_get(struct rp_dgram *d, u8 key_id, u32 qpn,
				     u64 nonce, bool *full)
{
	struct rp_dsender *s, *victim = NULL;
	u64 now = rp_now_us();
	u8 key[RP_MAX_KEY];
	unsigned int i;

	*full = false;
	for (i = 0; i < RP_DGRAM_SENDERS; i++) {
		s = &d->s[i];
		if (s->used && s->key_id == key_id && s->qpn == qpn &&
		    s->nonce == nonce)
			goto found;
		if (!sender_free(s, now))
			continue;
		if (!victim || !s->used ||
		    (victim->used && s->last_use < victim->last_use))
			victim = s;
	}
	if (!victim) {
		*full = true;
		return NULL;
	}
	s = victim;
	sender_forget(s);
	if (rp_kdf_dgram_key(d->key, d->key_len, key_id, qpn, nonce, key))
		return NULL;
	s->ctx = gcm_ctx(cipher_of(d->key_len), key, false);
	memset(key, 0, sizeof(key));
	if (!s->ctx)
		return NULL;
	s->used = true;
	s->key_id = key_id;
	s->qpn = qpn;
	s->nonce = nonce;
	s->heard_us = now;
found:
	s->last_use = ++d->tick;
	return s;
}

int rp_dgram_rx_open(struct rp_dgram *d, u8 key_id, u32 qpn, u64 nonce,
		     u8 *buf, size_t hdr_len, size_t len)
{
	size_t body = len - METAROCE_SEAL_LEN;
	u64 ctr = get_unaligned_be64(buf + body + RP_TAG_LEN);
	struct rp_dsender *s;
	bool full;
	u8 iv[12];

	if (key_id != d->key_id)	/* the one key this device holds */
		return -3;
	s = sender_get(d, key_id, qpn, nonce, &full);
	if (!s)
		return full ? -4 : -1;
	if (replay_seen(&s->win, ctr))
		return -2;
	make_iv(iv, key_id, RP_DGRAM_DIR, ctr);
	if (gcm_open(s->ctx, d->prot, iv, buf, hdr_len, body)) {
		/* a key under which nothing opened goes with it (PROT-23) */
		if (!s->opened)
			sender_forget(s);
		return -1;
	}
	s->opened = true;
	s->heard_us = rp_now_us();
	replay_mark(&s->win, ctr);
	return 0;
}

void rp_dgram_free(struct rp_dgram *d)
{
	unsigned int i;

	if (!d)
		return;
	EVP_CIPHER_CTX_free(d->tx);
	for (i = 0; i < RP_DGRAM_SENDERS; i++)
		EVP_CIPHER_CTX_free(d->s[i].ctx);
	memset(d->key, 0, sizeof(d->key));
	free(d);
}
