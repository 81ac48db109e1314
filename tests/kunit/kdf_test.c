// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of mro_kdf.c: HKDF-SHA256 against the test vectors of RFC
 * 5869 Appendix A (cases 1 to 3, PRK and OKM byte for byte), and the
 * per-connection key derivation: known answers computed outside the kernel
 * from the layout documented in mro_kdf.c, agreement of the two ends,
 * distinct directions, a change of every identity field (the HELLO nonces
 * included) changing both keys, and the refusal of out-of-range fields.
 */
#include <kunit/test.h>
#include <crypto/hash.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "mro_kdf.h"

struct kdf_ctx {
	struct crypto_shash *hmac;
};

static int kdf_test_init(struct kunit *test)
{
	struct kdf_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->hmac = crypto_alloc_shash("hmac(sha256)", 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->hmac);
	test->priv = ctx;
	return 0;
}

static void kdf_test_exit(struct kunit *test)
{
	struct kdf_ctx *ctx = test->priv;

	if (ctx && !IS_ERR_OR_NULL(ctx->hmac))
		crypto_free_shash(ctx->hmac);
}

static struct crypto_shash *kdf_hmac(struct kunit *test)
{
	return ((struct kdf_ctx *)test->priv)->hmac;
}

/* the RFC's inputs are runs of consecutive byte values */
static void fill_seq(u8 *p, u8 first, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = first + i;
}

static void check_hkdf(struct kunit *test, const u8 *ikm, unsigned int ikm_len,
		       const u8 *salt, unsigned int salt_len,
		       const u8 *info, unsigned int info_len,
		       const u8 *prk_want, const u8 *okm_want,
		       unsigned int okm_len)
{
	struct crypto_shash *hmac = kdf_hmac(test);
	u8 prk[SHA256_DIGEST_SIZE];
	u8 okm[82];

	KUNIT_ASSERT_LE(test, okm_len, sizeof(okm));
	KUNIT_ASSERT_EQ(test, mro_hkdf_extract(hmac, salt, salt_len, ikm,
					       ikm_len, prk), 0);
	KUNIT_EXPECT_MEMEQ(test, prk, prk_want, sizeof(prk));
	KUNIT_ASSERT_EQ(test, mro_hkdf_expand(hmac, prk, info, info_len, okm,
					      okm_len), 0);
	KUNIT_EXPECT_MEMEQ(test, okm, okm_want, okm_len);
}

/*
 * A.1: IKM 0x0b0b..0b (22 octets), salt 0x000102..0c (13 octets),
 * info 0xf0f1..f9 (10 octets), L 42
 */
static void kdf_rfc5869_case1(struct kunit *test)
{
	static const u8 prk[SHA256_DIGEST_SIZE] = {
		0x07, 0x77, 0x09, 0x36, 0x2c, 0x2e, 0x32, 0xdf,
		0x0d, 0xdc, 0x3f, 0x0d, 0xc4, 0x7b, 0xba, 0x63,
		0x90, 0xb6, 0xc7, 0x3b, 0xb5, 0x0f, 0x9c, 0x31,
		0x22, 0xec, 0x84, 0x4a, 0xd7, 0xc2, 0xb3, 0xe5,
	};
	static const u8 okm[42] = {
		0x3c, 0xb2, 0x5f, 0x25, 0xfa, 0xac, 0xd5, 0x7a,
		0x90, 0x43, 0x4f, 0x64, 0xd0, 0x36, 0x2f, 0x2a,
		0x2d, 0x2d, 0x0a, 0x90, 0xcf, 0x1a, 0x5a, 0x4c,
		0x5d, 0xb0, 0x2d, 0x56, 0xec, 0xc4, 0xc5, 0xbf,
		0x34, 0x00, 0x72, 0x08, 0xd5, 0xb8, 0x87, 0x18,
		0x58, 0x65,
	};
	u8 ikm[22], salt[13], info[10];

	memset(ikm, 0x0b, sizeof(ikm));
	fill_seq(salt, 0x00, sizeof(salt));
	fill_seq(info, 0xf0, sizeof(info));
	check_hkdf(test, ikm, sizeof(ikm), salt, sizeof(salt), info,
		   sizeof(info), prk, okm, sizeof(okm));
}

/*
 * A.2: IKM 0x000102..4f, salt 0x606162..af, info 0xb0b1b2..ff (80 octets
 * each), L 82
 */
static void kdf_rfc5869_case2(struct kunit *test)
{
	static const u8 prk[SHA256_DIGEST_SIZE] = {
		0x06, 0xa6, 0xb8, 0x8c, 0x58, 0x53, 0x36, 0x1a,
		0x06, 0x10, 0x4c, 0x9c, 0xeb, 0x35, 0xb4, 0x5c,
		0xef, 0x76, 0x00, 0x14, 0x90, 0x46, 0x71, 0x01,
		0x4a, 0x19, 0x3f, 0x40, 0xc1, 0x5f, 0xc2, 0x44,
	};
	static const u8 okm[82] = {
		0xb1, 0x1e, 0x39, 0x8d, 0xc8, 0x03, 0x27, 0xa1,
		0xc8, 0xe7, 0xf7, 0x8c, 0x59, 0x6a, 0x49, 0x34,
		0x4f, 0x01, 0x2e, 0xda, 0x2d, 0x4e, 0xfa, 0xd8,
		0xa0, 0x50, 0xcc, 0x4c, 0x19, 0xaf, 0xa9, 0x7c,
		0x59, 0x04, 0x5a, 0x99, 0xca, 0xc7, 0x82, 0x72,
		0x71, 0xcb, 0x41, 0xc6, 0x5e, 0x59, 0x0e, 0x09,
		0xda, 0x32, 0x75, 0x60, 0x0c, 0x2f, 0x09, 0xb8,
		0x36, 0x77, 0x93, 0xa9, 0xac, 0xa3, 0xdb, 0x71,
		0xcc, 0x30, 0xc5, 0x81, 0x79, 0xec, 0x3e, 0x87,
		0xc1, 0x4c, 0x01, 0xd5, 0xc1, 0xf3, 0x43, 0x4f,
		0x1d, 0x87,
	};
	u8 ikm[80], salt[80], info[80];

	fill_seq(ikm, 0x00, sizeof(ikm));
	fill_seq(salt, 0x60, sizeof(salt));
	fill_seq(info, 0xb0, sizeof(info));
	check_hkdf(test, ikm, sizeof(ikm), salt, sizeof(salt), info,
		   sizeof(info), prk, okm, sizeof(okm));
}

static const u8 case3_prk[SHA256_DIGEST_SIZE] = {
	0x19, 0xef, 0x24, 0xa3, 0x2c, 0x71, 0x7b, 0x16,
	0x7f, 0x33, 0xa9, 0x1d, 0x6f, 0x64, 0x8b, 0xdf,
	0x96, 0x59, 0x67, 0x76, 0xaf, 0xdb, 0x63, 0x77,
	0xac, 0x43, 0x4c, 0x1c, 0x29, 0x3c, 0xcb, 0x04,
};

static const u8 case3_okm[42] = {
	0x8d, 0xa4, 0xe7, 0x75, 0xa5, 0x63, 0xc1, 0x8f,
	0x71, 0x5f, 0x80, 0x2a, 0x06, 0x3c, 0x5a, 0x31,
	0xb8, 0xa1, 0x1f, 0x5c, 0x5e, 0xe1, 0x87, 0x9e,
	0xc3, 0x45, 0x4e, 0x5f, 0x3c, 0x73, 0x8d, 0x2d,
	0x9d, 0x20, 0x13, 0x95, 0xfa, 0xa4, 0xb6, 0x1a,
	0x96, 0xc8,
};

/* A.3: IKM 0x0b0b..0b (22 octets), salt and info empty, L 42 */
static void kdf_rfc5869_case3(struct kunit *test)
{
	u8 ikm[22];

	memset(ikm, 0x0b, sizeof(ikm));
	check_hkdf(test, ikm, sizeof(ikm), NULL, 0, NULL, 0, case3_prk,
		   case3_okm, sizeof(case3_okm));
}

/*
 * The longest output RFC 5869 allows, 255 blocks, is produced and starts
 * with the shorter output of the same PRK and info; one byte more is
 * refused without writing anything.
 */
static void kdf_expand_limit(struct kunit *test)
{
	struct crypto_shash *hmac = kdf_hmac(test);
	u8 *okm = kunit_kzalloc(test, MRO_HKDF_MAX_OKM + 1, GFP_KERNEL);
	unsigned int i;
	bool all_set;

	KUNIT_ASSERT_NOT_NULL(test, okm);
	KUNIT_EXPECT_EQ(test, MRO_HKDF_MAX_OKM, 8160);
	KUNIT_ASSERT_EQ(test, mro_hkdf_expand(hmac, case3_prk, NULL, 0, okm,
					      MRO_HKDF_MAX_OKM), 0);
	KUNIT_EXPECT_MEMEQ(test, okm, case3_okm, sizeof(case3_okm));

	memset(okm, 0xa5, MRO_HKDF_MAX_OKM + 1);
	KUNIT_EXPECT_EQ(test, mro_hkdf_expand(hmac, case3_prk, NULL, 0, okm,
					      MRO_HKDF_MAX_OKM + 1), -EINVAL);
	all_set = true;
	for (i = 0; i <= MRO_HKDF_MAX_OKM; i++)
		all_set &= okm[i] == 0xa5;
	KUNIT_EXPECT_TRUE(test, all_set);
}

/* the connection of the known-answer test: two RoCE v2 IPv4 GIDs */
static const u8 dev_key[32] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
};

/* ::ffff:192.168.1.1, QPN 0x11, first PSN 0x123456 */
static const struct mro_conn_end end_1 = {
	.gid = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 1 },
	.qpn = 0x11,
	.psn = 0x123456,
	.nonce = 0x0123456789abcdefULL,
};

/* ::ffff:192.168.1.2, QPN 0x12, first PSN 0xabcdef */
static const struct mro_conn_end end_2 = {
	.gid = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 2 },
	.qpn = 0x12,
	.psn = 0xabcdef,
	.nonce = 0xfedcba9876543210ULL,
};

#define KAT_KEY_ID	1

/*
 * Computed outside the kernel, not with this code: a Python 3 script using
 * only the standard library's hmac and hashlib built the 82-byte info
 * strings byte by byte from the layout documented in mro_kdf.c (end_1 is
 * "lo", key id 1, direction byte last), ran HKDF-Extract with the salt
 * "metaroce v2 salt" over dev_key and HKDF-Expand to 32 bytes per
 * direction.  The same script, given the earlier 66-byte layout without
 * nonces, reproduced that layout's vectors.
 */
static const u8 kat_1_to_2[32] = {	/* direction 'L' */
	0xf6, 0x45, 0x60, 0x30, 0xe9, 0x29, 0x13, 0xff,
	0x2d, 0x62, 0xc3, 0x5d, 0x4f, 0xd0, 0xf5, 0xad,
	0x2f, 0x50, 0xfa, 0x1d, 0x35, 0x55, 0xbe, 0xd1,
	0x0e, 0x28, 0x03, 0x5c, 0x5e, 0xfb, 0x42, 0x32,
};

static const u8 kat_2_to_1[32] = {	/* direction 'H' */
	0xef, 0x7b, 0xfd, 0x8c, 0x21, 0x50, 0x96, 0x0c,
	0xcc, 0xec, 0xef, 0x19, 0x82, 0x70, 0x73, 0x90,
	0x4a, 0x28, 0x06, 0x5c, 0x71, 0x82, 0x6f, 0xba,
	0xdf, 0x5b, 0x26, 0x76, 0x92, 0x12, 0xbc, 0x2f,
};

/* end_1 connected to itself: the 'L' key, in both directions */
static const u8 kat_self[32] = {
	0x55, 0xdb, 0x33, 0xc4, 0x5a, 0x9c, 0x4e, 0x55,
	0x87, 0xb6, 0x2c, 0x43, 0xd7, 0x2f, 0xa2, 0x44,
	0x88, 0x27, 0x3a, 0x15, 0x0e, 0xf9, 0x27, 0x44,
	0x89, 0x95, 0xb2, 0xca, 0x63, 0x3c, 0x98, 0x0c,
};

static void kat_id(struct mro_conn_id *id, const struct mro_conn_end *a,
		   const struct mro_conn_end *b)
{
	memset(id, 0, sizeof(*id));
	id->a = *a;
	id->b = *b;
	id->key_id = KAT_KEY_ID;
}

static int conn_keys(struct kunit *test, const struct mro_conn_id *id,
		     u8 *ab, u8 *ba)
{
	return mro_kdf_conn_keys(kdf_hmac(test), dev_key, sizeof(dev_key), id,
				 ab, ba, 32);
}

/* each end computes the keys with itself as a: the same pair, swapped */
static void kdf_conn_both_ends(struct kunit *test)
{
	u8 ab1[32], ba1[32], ab2[32], ba2[32];
	struct mro_conn_id id;

	kat_id(&id, &end_1, &end_2);
	KUNIT_ASSERT_EQ(test, conn_keys(test, &id, ab1, ba1), 0);
	kat_id(&id, &end_2, &end_1);
	KUNIT_ASSERT_EQ(test, conn_keys(test, &id, ab2, ba2), 0);

	KUNIT_EXPECT_MEMEQ(test, ab1, kat_1_to_2, sizeof(ab1));
	KUNIT_EXPECT_MEMEQ(test, ba1, kat_2_to_1, sizeof(ba1));
	/* what end 1 sends with, end 2 receives with, and back */
	KUNIT_EXPECT_MEMEQ(test, ab1, ba2, sizeof(ab1));
	KUNIT_EXPECT_MEMEQ(test, ba1, ab2, sizeof(ba1));
	/* the two directions never share a key */
	KUNIT_EXPECT_MEMNEQ(test, ab1, ba1, sizeof(ab1));
}

/* a shorter key is the prefix of a longer one, as HKDF-Expand gives */
static void kdf_conn_key_len(struct kunit *test)
{
	u8 ab[16], ba[16];
	struct mro_conn_id id;

	kat_id(&id, &end_1, &end_2);
	KUNIT_ASSERT_EQ(test, mro_kdf_conn_keys(kdf_hmac(test), dev_key,
						sizeof(dev_key), &id, ab, ba,
						sizeof(ab)), 0);
	KUNIT_EXPECT_MEMEQ(test, ab, kat_1_to_2, sizeof(ab));
	KUNIT_EXPECT_MEMEQ(test, ba, kat_2_to_1, sizeof(ba));
}

static void expect_both_changed(struct kunit *test,
				const struct mro_conn_id *id, const u8 *ab0,
				const u8 *ba0, const char *what)
{
	u8 ab[32], ba[32];

	KUNIT_ASSERT_EQ_MSG(test, conn_keys(test, id, ab, ba), 0, "%s", what);
	KUNIT_EXPECT_MEMNEQ_MSG(test, ab, ab0, sizeof(ab), "%s", what);
	KUNIT_EXPECT_MEMNEQ_MSG(test, ba, ba0, sizeof(ba), "%s", what);
	KUNIT_EXPECT_MEMNEQ_MSG(test, ab, ba, sizeof(ab), "%s", what);
}

/* changing any one field of the identity changes both keys */
static void kdf_conn_every_field(struct kunit *test)
{
	u8 ab0[32], ba0[32], ab[32], ba[32];
	struct mro_conn_id base, id;

	kat_id(&base, &end_1, &end_2);
	KUNIT_ASSERT_EQ(test, conn_keys(test, &base, ab0, ba0), 0);

	id = base;
	id.a.gid[15] ^= 0x80;
	expect_both_changed(test, &id, ab0, ba0, "a.gid[15]");
	id = base;
	id.a.gid[0] ^= 0x01;	/* a now sorts above b */
	expect_both_changed(test, &id, ab0, ba0, "a.gid[0]");
	id = base;
	id.b.gid[15] ^= 0x80;
	expect_both_changed(test, &id, ab0, ba0, "b.gid[15]");
	id = base;
	id.b.gid[0] ^= 0x01;
	expect_both_changed(test, &id, ab0, ba0, "b.gid[0]");
	id = base;
	id.a.qpn ^= 0x800000;
	expect_both_changed(test, &id, ab0, ba0, "a.qpn");
	id = base;
	id.b.qpn ^= 0x000001;
	expect_both_changed(test, &id, ab0, ba0, "b.qpn");
	id = base;
	id.a.psn ^= 0x000001;
	expect_both_changed(test, &id, ab0, ba0, "a.psn");
	id = base;
	id.b.psn ^= 0x800000;
	expect_both_changed(test, &id, ab0, ba0, "b.psn");
	id = base;
	id.a.nonce ^= 0x8000000000000000ULL;
	expect_both_changed(test, &id, ab0, ba0, "a.nonce high bit");
	id = base;
	id.a.nonce ^= 0x1;
	expect_both_changed(test, &id, ab0, ba0, "a.nonce low bit");
	id = base;
	id.b.nonce ^= 0x8000000000000000ULL;
	expect_both_changed(test, &id, ab0, ba0, "b.nonce high bit");
	id = base;
	id.b.nonce ^= 0x1;
	expect_both_changed(test, &id, ab0, ba0, "b.nonce low bit");
	id = base;
	id.key_id ^= 0x80;
	expect_both_changed(test, &id, ab0, ba0, "key_id");

	/* and so does another device key */
	KUNIT_ASSERT_EQ(test, mro_kdf_conn_keys(kdf_hmac(test), dev_key,
						sizeof(dev_key) - 1, &base,
						ab, ba, 32), 0);
	KUNIT_EXPECT_MEMNEQ(test, ab, ab0, sizeof(ab));
	KUNIT_EXPECT_MEMNEQ(test, ba, ba0, sizeof(ba));
}

/* a QP connected to itself sends what it receives: one key */
static void kdf_conn_self(struct kunit *test)
{
	u8 ab[32], ba[32];
	struct mro_conn_id id;

	kat_id(&id, &end_1, &end_1);
	KUNIT_ASSERT_EQ(test, conn_keys(test, &id, ab, ba), 0);
	KUNIT_EXPECT_MEMEQ(test, ab, kat_self, sizeof(ab));
	KUNIT_EXPECT_MEMEQ(test, ba, kat_self, sizeof(ba));
}

/*
 * lengths out of range, no device key, QPNs and PSNs beyond 24 bits, a
 * nonce of 0; each refusal leaves both keys zeroed
 */
static void kdf_conn_refused(struct kunit *test)
{
	struct crypto_shash *hmac = kdf_hmac(test);
	u8 *ab = kunit_kzalloc(test, MRO_HKDF_MAX_OKM + 1, GFP_KERNEL);
	u8 *ba = kunit_kzalloc(test, MRO_HKDF_MAX_OKM + 1, GFP_KERNEL);
	struct mro_conn_id id;

	KUNIT_ASSERT_NOT_NULL(test, ab);
	KUNIT_ASSERT_NOT_NULL(test, ba);
	kat_id(&id, &end_1, &end_2);
	KUNIT_EXPECT_EQ(test, mro_kdf_conn_keys(hmac, dev_key, sizeof(dev_key),
						&id, ab, ba,
						MRO_HKDF_MAX_OKM + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, mro_kdf_conn_keys(hmac, dev_key, sizeof(dev_key),
						&id, ab, ba, MRO_HKDF_MAX_OKM),
			0);
	KUNIT_EXPECT_MEMEQ(test, ab, kat_1_to_2, sizeof(kat_1_to_2));
	KUNIT_EXPECT_EQ(test, mro_kdf_conn_keys(hmac, dev_key, sizeof(dev_key),
						&id, ab, ba, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, mro_kdf_conn_keys(hmac, dev_key, 0, &id, ab, ba,
						32), -EINVAL);

	id.a.qpn = 0x1000000;
	KUNIT_EXPECT_EQ(test, conn_keys(test, &id, ab, ba), -EINVAL);
	kat_id(&id, &end_1, &end_2);
	id.b.psn = 0x1000000;
	KUNIT_EXPECT_EQ(test, conn_keys(test, &id, ab, ba), -EINVAL);
	/* the largest 24-bit values are fine */
	id.a.qpn = 0xffffff;
	id.b.psn = 0xffffff;
	KUNIT_EXPECT_EQ(test, conn_keys(test, &id, ab, ba), 0);

	kat_id(&id, &end_1, &end_2);
	id.a.nonce = 0;
	memset(ab, 0xa5, 32);
	memset(ba, 0xa5, 32);
	KUNIT_EXPECT_EQ(test, conn_keys(test, &id, ab, ba), -EINVAL);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(ab, 0, 32));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(ba, 0, 32));
	kat_id(&id, &end_1, &end_2);
	id.b.nonce = 0;
	KUNIT_EXPECT_EQ(test, conn_keys(test, &id, ab, ba), -EINVAL);
	kat_id(&id, &end_1, &end_1);
	id.a.nonce = 0;
	id.b.nonce = 0;
	KUNIT_EXPECT_EQ(test, conn_keys(test, &id, ab, ba), -EINVAL);
	/* any nonzero nonce is fine, the largest too */
	kat_id(&id, &end_1, &end_2);
	id.a.nonce = 1;
	id.b.nonce = U64_MAX;
	KUNIT_EXPECT_EQ(test, conn_keys(test, &id, ab, ba), 0);
}

/*
 * A UD QP's sending key: QPN 0x123456, datagram nonce 0x0123456789abcd,
 * key id 1, dev_key above.  Computed outside the kernel as kat_1_to_2 was
 * (Python's hmac and hashlib), from the 29-byte layout in mro_kdf.c.
 */
#define DGRAM_QPN	0x123456
#define DGRAM_NONCE	0x0123456789abcdULL

static const u8 kat_dgram[32] = {
	0xab, 0xd2, 0xfa, 0xc5, 0x42, 0x27, 0x8e, 0x19,
	0x43, 0x96, 0x95, 0x91, 0xab, 0x45, 0xc4, 0x66,
	0x68, 0xf2, 0x11, 0x1e, 0x0b, 0xaa, 0x7b, 0x8b,
	0xbd, 0x9b, 0x3b, 0x72, 0x83, 0x37, 0xa4, 0xcc,
};

static int dgram_key(struct kunit *test, u8 key_id, u32 qpn, u64 nonce,
		     u8 *key, unsigned int len)
{
	return mro_kdf_dgram_key(kdf_hmac(test), dev_key, sizeof(dev_key),
				 key_id, qpn, nonce, key, len);
}

/* the known answer; a shorter key is its prefix */
static void kdf_dgram_known(struct kunit *test)
{
	u8 key[32], k16[16];

	KUNIT_ASSERT_EQ(test, dgram_key(test, KAT_KEY_ID, DGRAM_QPN,
					DGRAM_NONCE, key, sizeof(key)), 0);
	KUNIT_EXPECT_MEMEQ(test, key, kat_dgram, sizeof(key));
	KUNIT_ASSERT_EQ(test, dgram_key(test, KAT_KEY_ID, DGRAM_QPN,
					DGRAM_NONCE, k16, sizeof(k16)), 0);
	KUNIT_EXPECT_MEMEQ(test, k16, kat_dgram, sizeof(k16));
}

/*
 * Every input changes the key: the key id, the QPN, each byte of the
 * nonce (a new life of the QPN), and a datagram key is never the key of
 * a connection.
 */
static void kdf_dgram_every_field(struct kunit *test)
{
	u8 key[32], ab[32], ba[32];
	struct mro_conn_id id;
	int i;

	KUNIT_ASSERT_EQ(test, dgram_key(test, 2, DGRAM_QPN, DGRAM_NONCE, key,
					sizeof(key)), 0);
	KUNIT_EXPECT_MEMNEQ(test, key, kat_dgram, sizeof(key));
	KUNIT_ASSERT_EQ(test, dgram_key(test, KAT_KEY_ID, DGRAM_QPN ^ 1,
					DGRAM_NONCE, key, sizeof(key)), 0);
	KUNIT_EXPECT_MEMNEQ(test, key, kat_dgram, sizeof(key));
	for (i = 0; i < 7; i++) {
		KUNIT_ASSERT_EQ(test, dgram_key(test, KAT_KEY_ID, DGRAM_QPN,
						DGRAM_NONCE ^ (1ULL << (8 * i)),
						key, sizeof(key)), 0);
		KUNIT_EXPECT_MEMNEQ_MSG(test, key, kat_dgram, sizeof(key),
					"nonce byte %d", i);
	}
	kat_id(&id, &end_1, &end_2);
	KUNIT_ASSERT_EQ(test, conn_keys(test, &id, ab, ba), 0);
	KUNIT_EXPECT_MEMNEQ(test, ab, kat_dgram, sizeof(ab));
	KUNIT_EXPECT_MEMNEQ(test, ba, kat_dgram, sizeof(ba));
}

/* out-of-range inputs are refused and leave the key zeroed */
static void kdf_dgram_refused(struct kunit *test)
{
	static const u8 zero[32];
	u8 key[32];

	memset(key, 0xa5, sizeof(key));
	KUNIT_EXPECT_EQ(test, dgram_key(test, 0, DGRAM_QPN, DGRAM_NONCE, key,
					sizeof(key)), -EINVAL);
	KUNIT_EXPECT_MEMEQ(test, key, zero, sizeof(key));
	memset(key, 0xa5, sizeof(key));
	KUNIT_EXPECT_EQ(test, dgram_key(test, 1, 0x1000000, DGRAM_NONCE, key,
					sizeof(key)), -EINVAL);
	KUNIT_EXPECT_MEMEQ(test, key, zero, sizeof(key));
	memset(key, 0xa5, sizeof(key));
	KUNIT_EXPECT_EQ(test, dgram_key(test, 1, DGRAM_QPN, 0, key,
					sizeof(key)), -EINVAL);
	KUNIT_EXPECT_MEMEQ(test, key, zero, sizeof(key));
	memset(key, 0xa5, sizeof(key));
	KUNIT_EXPECT_EQ(test, dgram_key(test, 1, DGRAM_QPN, 1ULL << 56, key,
					sizeof(key)), -EINVAL);
	KUNIT_EXPECT_MEMEQ(test, key, zero, sizeof(key));
	KUNIT_EXPECT_EQ(test, dgram_key(test, 1, DGRAM_QPN, DGRAM_NONCE, key,
					0), -EINVAL);
}

static struct kunit_case metaroce_kdf_cases[] = {
	KUNIT_CASE(kdf_rfc5869_case1),
	KUNIT_CASE(kdf_rfc5869_case2),
	KUNIT_CASE(kdf_rfc5869_case3),
	KUNIT_CASE(kdf_expand_limit),
	KUNIT_CASE(kdf_conn_both_ends),
	KUNIT_CASE(kdf_conn_key_len),
	KUNIT_CASE(kdf_conn_every_field),
	KUNIT_CASE(kdf_conn_self),
	KUNIT_CASE(kdf_conn_refused),
	KUNIT_CASE(kdf_dgram_known),
	KUNIT_CASE(kdf_dgram_every_field),
	KUNIT_CASE(kdf_dgram_refused),
	{}
};

static struct kunit_suite metaroce_kdf_suite = {
	.name = "metaroce_kdf",
	.init = kdf_test_init,
	.exit = kdf_test_exit,
	.test_cases = metaroce_kdf_cases,
};

kunit_test_suite(metaroce_kdf_suite);
