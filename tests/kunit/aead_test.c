// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of mro_aead.c.  Known answers: test cases 1, 2, 4 (AES-128)
 * and 14 (AES-256) of McGrew and Viega's GCM specification, run through
 * the driver's seal with an explicit nonce, and answers computed outside
 * the kernel (OpenSSL's AES-GCM) for the auth mode over test case 4's
 * inputs and for a full seal with the nonce layout of mro_aead.c.  Then
 * round trips in both modes, a flipped bit anywhere making open fail,
 * wrong keys, key ids and directions, nonce and tag uniqueness over 10,000
 * seals, the counter's end, and the replay window.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "mro_aead.h"

#define TAG	MRO_AEAD_TAG_LEN

struct aead_ctx {
	struct mro_aead_dir d[3];
};

static int aead_test_init(struct kunit *test)
{
	struct aead_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	return 0;
}

static void aead_test_exit(struct kunit *test)
{
	struct aead_ctx *ctx = test->priv;
	unsigned int i;

	for (i = 0; ctx && i < ARRAY_SIZE(ctx->d); i++)
		mro_aead_dir_destroy(&ctx->d[i]);
}

/* context i of the test, set up with key; destroyed by aead_test_exit() */
static struct mro_aead_dir *dir_new(struct kunit *test, unsigned int i,
				    const u8 *key, unsigned int key_len,
				    u8 key_id, u8 dir)
{
	struct aead_ctx *ctx = test->priv;
	struct mro_aead_dir *d = &ctx->d[i];

	mro_aead_dir_destroy(d);
	KUNIT_ASSERT_EQ(test, mro_aead_dir_init(d, key, key_len, key_id, dir), 0);
	return d;
}

/* a packet buffer in the linear mapping, with room for the tag */
static u8 *pkt_new(struct kunit *test, unsigned int len)
{
	u8 *p = kunit_kzalloc(test, len + TAG, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* McGrew & Viega, "The Galois/Counter Mode of Operation", appendix B */
static const u8 tc4_key[16] = {
	0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c,
	0x6d, 0x6a, 0x8f, 0x94, 0x67, 0x30, 0x83, 0x08,
};

static const u8 tc4_iv[12] = {
	0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad,
	0xde, 0xca, 0xf8, 0x88,
};

static const u8 tc4_aad[20] = {
	0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef,
	0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef,
	0xab, 0xad, 0xda, 0xd2,
};

static const u8 tc4_pt[60] = {
	0xd9, 0x31, 0x32, 0x25, 0xf8, 0x84, 0x06, 0xe5,
	0xa5, 0x59, 0x09, 0xc5, 0xaf, 0xf5, 0x26, 0x9a,
	0x86, 0xa7, 0xa9, 0x53, 0x15, 0x34, 0xf7, 0xda,
	0x2e, 0x4c, 0x30, 0x3d, 0x8a, 0x31, 0x8a, 0x72,
	0x1c, 0x3c, 0x0c, 0x95, 0x95, 0x68, 0x09, 0x53,
	0x2f, 0xcf, 0x0e, 0x24, 0x49, 0xa6, 0xb5, 0x25,
	0xb1, 0x6a, 0xed, 0xf5, 0xaa, 0x0d, 0xe6, 0x57,
	0xba, 0x63, 0x7b, 0x39,
};

static const u8 tc4_ct[60] = {
	0x42, 0x83, 0x1e, 0xc2, 0x21, 0x77, 0x74, 0x24,
	0x4b, 0x72, 0x21, 0xb7, 0x84, 0xd0, 0xd4, 0x9c,
	0xe3, 0xaa, 0x21, 0x2f, 0x2c, 0x02, 0xa4, 0xe0,
	0x35, 0xc1, 0x7e, 0x23, 0x29, 0xac, 0xa1, 0x2e,
	0x21, 0xd5, 0x14, 0xb2, 0x54, 0x66, 0x93, 0x1c,
	0x7d, 0x8f, 0x6a, 0x5a, 0xac, 0x84, 0xaa, 0x05,
	0x1b, 0xa3, 0x0b, 0x39, 0x6a, 0x0a, 0xac, 0x97,
	0x3d, 0x58, 0xe0, 0x91,
};

static const u8 tc4_tag[16] = {
	0x5b, 0xc9, 0x4f, 0xbc, 0x32, 0x21, 0xa5, 0xdb,
	0x94, 0xfa, 0xe9, 0x5a, 0xe7, 0x12, 0x1a, 0x47,
};

static const u8 tc4_gmac_tag[16] = {
	0x4b, 0x28, 0x35, 0x7f, 0x19, 0x8f, 0xc8, 0x34,
	0x46, 0x18, 0xfa, 0x46, 0x30, 0x6b, 0x82, 0x7f,
};

static const u8 ctr_nonce[12] = {
	0x07, 0x48, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04,
	0x05, 0x06, 0x07, 0x08,
};

static const u8 ctr_enc_ct[60] = {
	0xb7, 0xac, 0x1b, 0x56, 0xc9, 0xdf, 0x24, 0x44,
	0x24, 0x2d, 0xca, 0x1f, 0x46, 0x08, 0x1d, 0xf5,
	0x11, 0x7b, 0x6c, 0xf4, 0x4b, 0xb6, 0x82, 0x76,
	0xf1, 0x88, 0x49, 0x74, 0xbb, 0xdd, 0x08, 0x14,
	0xda, 0x98, 0x29, 0x2e, 0x18, 0x8a, 0xa8, 0xef,
	0x00, 0x0c, 0xb1, 0xf8, 0x97, 0x3e, 0x2f, 0x29,
	0x2b, 0x68, 0x87, 0xd6, 0x68, 0x6a, 0x03, 0x88,
	0xad, 0xcf, 0x29, 0x54,
};

static const u8 ctr_enc_tag[16] = {
	0x70, 0xa3, 0xba, 0x91, 0x05, 0x1e, 0x98, 0x1e,
	0xd4, 0x1c, 0xaf, 0x67, 0xee, 0xe6, 0xec, 0xa8,
};

static const u8 ctr_auth_tag[16] = {
	0x14, 0x32, 0xa3, 0x76, 0x97, 0xc9, 0x2a, 0xe4,
	0xb5, 0xd3, 0x0b, 0x00, 0x1f, 0x6d, 0xf6, 0x3b,
};

static const u8 tc1_tag[16] = {
	0x58, 0xe2, 0xfc, 0xce, 0xfa, 0x7e, 0x30, 0x61,
	0x36, 0x7f, 0x1d, 0x57, 0xa4, 0xe7, 0x45, 0x5a,
};

static const u8 tc2_ct[16] = {
	0x03, 0x88, 0xda, 0xce, 0x60, 0xb6, 0xa3, 0x92,
	0xf3, 0x28, 0xc2, 0xb9, 0x71, 0xb2, 0xfe, 0x78,
};

static const u8 tc2_tag[16] = {
	0xab, 0x6e, 0x47, 0xd4, 0x2c, 0xec, 0x13, 0xbd,
	0xf5, 0x3a, 0x67, 0xb2, 0x12, 0x57, 0xbd, 0xdf,
};

static const u8 tc14_ct[16] = {
	0xce, 0xa7, 0x40, 0x3d, 0x4d, 0x60, 0x6b, 0x6e,
	0x07, 0x4e, 0xc5, 0xd3, 0xba, 0xf3, 0x9d, 0x18,
};

static const u8 tc14_tag[16] = {
	0xd0, 0xd1, 0xc8, 0xa7, 0x99, 0x99, 0x6b, 0xf0,
	0x26, 0x5b, 0x98, 0xb5, 0xd4, 0x8a, 0xb9, 0x19,
};

static const u8 zero_key[32];
static const u8 zero_iv[MRO_AEAD_NONCE_LEN];

/* test case 1: K = 0^128, P empty, IV = 0^96: a GMAC of nothing */
static void aead_kat_tc1(struct kunit *test)
{
	struct mro_aead_dir *d = dir_new(test, 0, zero_key, 16, 0, 'L');
	u8 *pkt = pkt_new(test, 0);

	KUNIT_ASSERT_EQ(test, mro_aead_seal_nonce(d, MRO_PROT_AUTH, zero_iv,
						  pkt, 0, 0), 0);
	KUNIT_EXPECT_MEMEQ(test, pkt, tc1_tag, TAG);
	KUNIT_ASSERT_EQ(test, mro_aead_seal_nonce(d, MRO_PROT_ENCRYPT, zero_iv,
						  pkt, 0, 0), 0);
	KUNIT_EXPECT_MEMEQ(test, pkt, tc1_tag, TAG);
}

/* encrypt mode, everything encrypted: K, P = 0^128 or 0^256, IV = 0^96 */
static void check_zero_case(struct kunit *test, unsigned int key_len,
			    const u8 *ct, const u8 *tag)
{
	struct mro_aead_dir *d = dir_new(test, 0, zero_key, key_len, 0, 'L');
	u8 *pkt = pkt_new(test, 16);

	KUNIT_ASSERT_EQ(test, mro_aead_seal_nonce(d, MRO_PROT_ENCRYPT, zero_iv,
						  pkt, 0, 16), 0);
	KUNIT_EXPECT_MEMEQ(test, pkt, ct, 16);
	KUNIT_EXPECT_MEMEQ(test, pkt + 16, tag, TAG);
}

static void aead_kat_tc2(struct kunit *test)
{
	check_zero_case(test, 16, tc2_ct, tc2_tag);
}

static void aead_kat_tc14(struct kunit *test)
{
	check_zero_case(test, 32, tc14_ct, tc14_tag);
}

/* tc4's inputs as a packet: the AAD as the header, P as the payload */
static u8 *tc4_packet(struct kunit *test)
{
	u8 *pkt = pkt_new(test, sizeof(tc4_aad) + sizeof(tc4_pt));

	memcpy(pkt, tc4_aad, sizeof(tc4_aad));
	memcpy(pkt + sizeof(tc4_aad), tc4_pt, sizeof(tc4_pt));
	return pkt;
}

/* test case 4: header = A (20 bytes), payload = P (60 bytes) */
static void aead_kat_tc4(struct kunit *test)
{
	struct mro_aead_dir *d = dir_new(test, 0, tc4_key, 16, 0, 'L');
	const unsigned int hdr = sizeof(tc4_aad), len = hdr + sizeof(tc4_pt);
	u8 *pkt = tc4_packet(test);

	KUNIT_ASSERT_EQ(test, mro_aead_seal_nonce(d, MRO_PROT_ENCRYPT, tc4_iv,
						  pkt, hdr, len), 0);
	KUNIT_EXPECT_MEMEQ(test, pkt, tc4_aad, hdr);
	KUNIT_EXPECT_MEMEQ(test, pkt + hdr, tc4_ct, sizeof(tc4_ct));
	KUNIT_EXPECT_MEMEQ(test, pkt + len, tc4_tag, TAG);

	/* auth mode: A | P all associated data, the packet unchanged */
	pkt = tc4_packet(test);
	KUNIT_ASSERT_EQ(test, mro_aead_seal_nonce(d, MRO_PROT_AUTH, tc4_iv,
						  pkt, hdr, len), 0);
	KUNIT_EXPECT_MEMEQ(test, pkt, tc4_aad, hdr);
	KUNIT_EXPECT_MEMEQ(test, pkt + hdr, tc4_pt, sizeof(tc4_pt));
	KUNIT_EXPECT_MEMEQ(test, pkt + len, tc4_gmac_tag, TAG);
}

/* the nonce layout of mro_aead.c, and the counter's encoding */
static void aead_nonce_layout(struct kunit *test)
{
	static const u8 seq_be[MRO_AEAD_SEQ_LEN] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	};
	u8 nonce[MRO_AEAD_NONCE_LEN];
	u8 buf[MRO_AEAD_SEQ_LEN];

	mro_aead_nonce(nonce, 7, MRO_AEAD_DIR_HI, 0x0102030405060708ULL);
	KUNIT_EXPECT_MEMEQ(test, nonce, ctr_nonce, sizeof(nonce));
	mro_aead_put_seq(buf, 0x0102030405060708ULL);
	KUNIT_EXPECT_MEMEQ(test, buf, seq_be, sizeof(buf));
	KUNIT_EXPECT_EQ(test, mro_aead_get_seq(buf), 0x0102030405060708ULL);
	KUNIT_EXPECT_EQ(test, MRO_AEAD_DIR_LO, 0x4c);
	KUNIT_EXPECT_EQ(test, MRO_AEAD_DIR_HI, 0x48);
}

/*
 * The full path: key id 7, direction 'H', counter 0x0102030405060708,
 * against OpenSSL with the nonce 07 48 00 00 01 02 .. 08
 */
static void aead_kat_seal_counter(struct kunit *test)
{
	struct mro_aead_dir *d = dir_new(test, 0, tc4_key, 16, 7,
					 MRO_AEAD_DIR_HI);
	const unsigned int hdr = sizeof(tc4_aad), len = hdr + sizeof(tc4_pt);
	u8 *pkt = tc4_packet(test);
	u64 seq = 0;

	d->next_seq = 0x0102030405060708ULL;
	KUNIT_ASSERT_EQ(test, mro_aead_seal(d, MRO_PROT_ENCRYPT, pkt, hdr, len,
					    &seq), 0);
	KUNIT_EXPECT_EQ(test, seq, 0x0102030405060708ULL);
	KUNIT_EXPECT_EQ(test, d->next_seq, 0x0102030405060709ULL);
	KUNIT_EXPECT_MEMEQ(test, pkt, tc4_aad, hdr);
	KUNIT_EXPECT_MEMEQ(test, pkt + hdr, ctr_enc_ct, sizeof(ctr_enc_ct));
	KUNIT_EXPECT_MEMEQ(test, pkt + len, ctr_enc_tag, TAG);
	KUNIT_EXPECT_EQ(test, mro_aead_open(d, MRO_PROT_ENCRYPT, pkt, hdr,
					    len + TAG, seq), 0);
	KUNIT_EXPECT_MEMEQ(test, pkt + hdr, tc4_pt, sizeof(tc4_pt));

	pkt = tc4_packet(test);
	d->next_seq = 0x0102030405060708ULL;
	KUNIT_ASSERT_EQ(test, mro_aead_seal(d, MRO_PROT_AUTH, pkt, hdr, len,
					    &seq), 0);
	KUNIT_EXPECT_MEMEQ(test, pkt + hdr, tc4_pt, sizeof(tc4_pt));
	KUNIT_EXPECT_MEMEQ(test, pkt + len, ctr_auth_tag, TAG);
	KUNIT_EXPECT_EQ(test, mro_aead_open(d, MRO_PROT_AUTH, pkt, hdr,
					    len + TAG, seq), 0);
}

static void fill(u8 *p, unsigned int len, u8 seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = seed + i * 37;
}

/* seal at tx, open at rx (the same key), for a few header and payload sizes */
static void aead_round_trip(struct kunit *test)
{
	static const unsigned int sizes[][2] = {
		{ 0, 0 }, { 12, 0 }, { 0, 1 }, { 28, 1 }, { 28, 15 },
		{ 28, 16 }, { 40, 17 }, { 48, 1024 }, { 60, 4096 },
	};
	u8 key[32];
	struct mro_aead_dir *tx, *rx;
	enum mro_prot mode;
	unsigned int i;
	u8 *pkt, *want;
	u64 seq, next = 0;

	fill(key, sizeof(key), 0x11);
	tx = dir_new(test, 0, key, 32, 3, MRO_AEAD_DIR_LO);
	rx = dir_new(test, 1, key, 32, 3, MRO_AEAD_DIR_LO);
	for (mode = MRO_PROT_AUTH; mode <= MRO_PROT_ENCRYPT; mode++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			unsigned int hdr = sizes[i][0];
			unsigned int len = hdr + sizes[i][1];

			pkt = pkt_new(test, len);
			want = pkt_new(test, len);
			fill(want, len, i);
			memcpy(pkt, want, len);
			KUNIT_ASSERT_EQ(test, mro_aead_seal(tx, mode, pkt, hdr,
							    len, &seq), 0);
			KUNIT_EXPECT_EQ(test, seq, next);
			next++;
			KUNIT_EXPECT_MEMEQ(test, pkt, want, hdr);
			if (mode == MRO_PROT_AUTH)
				KUNIT_EXPECT_MEMEQ(test, pkt, want, len);
			else if (len - hdr >= 4)
				KUNIT_EXPECT_MEMNEQ(test, pkt + hdr, want + hdr,
						    len - hdr);
			KUNIT_EXPECT_EQ(test, mro_aead_open(rx, mode, pkt, hdr,
							    len + TAG, seq), 0);
			KUNIT_EXPECT_MEMEQ(test, pkt, want, len);
		}
	}
	/* the receiver's counter is not the sender's business */
	KUNIT_EXPECT_EQ(test, rx->next_seq, 0ULL);
}

/*
 * Every single flipped bit of a sealed packet, header, payload or tag,
 * and of its counter, makes open fail with -EBADMSG, and open leaves no
 * payload behind.
 */
static void check_tamper(struct kunit *test, enum mro_prot mode)
{
	const unsigned int hdr = 24, len = 64, total = len + TAG;
	struct mro_aead_dir *d;
	u8 *sealed, *pkt, *want;
	unsigned int bit;
	u8 key[16];
	u64 seq;

	fill(key, sizeof(key), 0x5a);
	d = dir_new(test, 0, key, 16, 1, MRO_AEAD_DIR_LO);
	want = pkt_new(test, len);
	sealed = pkt_new(test, len);
	pkt = pkt_new(test, len);
	fill(want, len, 3);
	memcpy(sealed, want, len);
	d->next_seq = 1000;
	KUNIT_ASSERT_EQ(test, mro_aead_seal(d, mode, sealed, hdr, len, &seq), 0);

	for (bit = 0; bit < total * 8; bit++) {
		memcpy(pkt, sealed, total);
		pkt[bit / 8] ^= 1 << (bit % 8);
		KUNIT_EXPECT_EQ_MSG(test, mro_aead_open(d, mode, pkt, hdr,
							total, seq),
				    -EBADMSG, "bit %u", bit);
		KUNIT_EXPECT_TRUE_MSG(test, !memchr_inv(pkt + hdr, 0,
							total - hdr),
				      "bit %u: payload left", bit);
	}
	for (bit = 0; bit < 64; bit++) {
		memcpy(pkt, sealed, total);
		KUNIT_EXPECT_EQ_MSG(test, mro_aead_open(d, mode, pkt, hdr,
							total,
							seq ^ (1ULL << bit)),
				    -EBADMSG, "seq bit %u", bit);
	}
	/* the wrong header length is another split of the same bytes */
	if (mode == MRO_PROT_ENCRYPT) {
		memcpy(pkt, sealed, total);
		KUNIT_EXPECT_EQ(test, mro_aead_open(d, mode, pkt, hdr - 1,
						    total, seq), -EBADMSG);
	}
	/* a truncated tag */
	memcpy(pkt, sealed, total);
	KUNIT_EXPECT_EQ(test, mro_aead_open(d, mode, pkt, hdr, total - 1, seq),
			-EBADMSG);
	/* too short to hold a tag at all */
	KUNIT_EXPECT_EQ(test, mro_aead_open(d, mode, pkt, hdr, hdr + TAG - 1,
					    seq), -EBADMSG);

	memcpy(pkt, sealed, total);
	KUNIT_EXPECT_EQ(test, mro_aead_open(d, mode, pkt, hdr, total, seq), 0);
	KUNIT_EXPECT_MEMEQ(test, pkt, want, len);
}

static void aead_tamper_auth(struct kunit *test)
{
	check_tamper(test, MRO_PROT_AUTH);
}

static void aead_tamper_encrypt(struct kunit *test)
{
	check_tamper(test, MRO_PROT_ENCRYPT);
}

/*
 * A receiver with another key id, the other direction or a datagram's
 * direction byte, or the other direction's key cannot open; neither can
 * the other mode.
 */
static void aead_wrong_key(struct kunit *test)
{
	const unsigned int hdr = 16, len = 48, total = len + TAG;
	static const struct {
		u8 key_seed, key_id, dir;
	} rx_keys[] = {
		{ 0x20, 5, MRO_AEAD_DIR_LO },	/* another key id */
		{ 0x20, 4, MRO_AEAD_DIR_HI },	/* the other direction */
		{ 0x20, 4, MRO_AEAD_DIR_DGRAM },	/* a datagram's nonce */
		{ 0x21, 4, MRO_AEAD_DIR_LO },	/* the other direction's key */
		{ 0x21, 4, MRO_AEAD_DIR_HI },
	};
	struct mro_aead_dir *tx, *rx;
	enum mro_prot mode;
	u8 *sealed, *pkt;
	unsigned int i;
	u8 key[16];
	u64 seq;

	fill(key, sizeof(key), 0x20);
	tx = dir_new(test, 0, key, 16, 4, MRO_AEAD_DIR_LO);
	sealed = pkt_new(test, len);
	pkt = pkt_new(test, len);
	for (mode = MRO_PROT_AUTH; mode <= MRO_PROT_ENCRYPT; mode++) {
		fill(sealed, len, 9);
		KUNIT_ASSERT_EQ(test, mro_aead_seal(tx, mode, sealed, hdr, len,
						    &seq), 0);
		for (i = 0; i < ARRAY_SIZE(rx_keys); i++) {
			fill(key, sizeof(key), rx_keys[i].key_seed);
			rx = dir_new(test, 1, key, 16, rx_keys[i].key_id,
				     rx_keys[i].dir);
			memcpy(pkt, sealed, total);
			KUNIT_EXPECT_EQ_MSG(test, mro_aead_open(rx, mode, pkt,
								hdr, total,
								seq),
					    -EBADMSG, "receiver %u", i);
		}
		memcpy(pkt, sealed, total);
		KUNIT_EXPECT_EQ(test, mro_aead_open(tx, mode == MRO_PROT_AUTH ?
						    MRO_PROT_ENCRYPT :
						    MRO_PROT_AUTH, pkt, hdr,
						    total, seq), -EBADMSG);
		memcpy(pkt, sealed, total);
		KUNIT_EXPECT_EQ(test, mro_aead_open(tx, mode, pkt, hdr, total,
						    seq), 0);
	}
}

#define UNIQ_SEALS	10000
#define UNIQ_PAYLOADS	100

static int cmp_nonce(const void *a, const void *b)
{
	return memcmp(a, b, MRO_AEAD_NONCE_LEN);
}

static int cmp_tag(const void *a, const void *b)
{
	return memcmp(a, b, TAG);
}

/*
 * 10,000 consecutive seals, each of 100 payloads sent 100 times (the
 * retransmissions of one payload are identical packets), alternating the
 * two modes: 10,000 distinct counter values, nonces and tags.
 */
static void aead_nonce_unique(struct kunit *test)
{
	const unsigned int hdr = 20, len = 52;
	u8 (*nonces)[MRO_AEAD_NONCE_LEN];
	struct mro_aead_dir *d;
	u8 (*tags)[TAG];
	unsigned int i;
	u8 key[16];
	u8 *pkt;
	u64 seq;

	fill(key, sizeof(key), 0x77);
	d = dir_new(test, 0, key, 16, 2, MRO_AEAD_DIR_HI);
	nonces = kunit_kmalloc_array(test, UNIQ_SEALS, sizeof(*nonces),
				     GFP_KERNEL);
	tags = kunit_kmalloc_array(test, UNIQ_SEALS, sizeof(*tags), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nonces);
	KUNIT_ASSERT_NOT_NULL(test, tags);
	pkt = pkt_new(test, len);

	for (i = 0; i < UNIQ_SEALS; i++) {
		fill(pkt, len, i % UNIQ_PAYLOADS);
		KUNIT_ASSERT_EQ(test, mro_aead_seal(d, i & 1 ? MRO_PROT_ENCRYPT :
						    MRO_PROT_AUTH, pkt, hdr,
						    len, &seq), 0);
		KUNIT_ASSERT_EQ(test, seq, (u64)i);
		mro_aead_nonce(nonces[i], d->key_id, d->dir, seq);
		memcpy(tags[i], pkt + len, TAG);
	}
	sort(nonces, UNIQ_SEALS, sizeof(*nonces), cmp_nonce, NULL);
	sort(tags, UNIQ_SEALS, sizeof(*tags), cmp_tag, NULL);
	for (i = 1; i < UNIQ_SEALS; i++) {
		KUNIT_ASSERT_NE_MSG(test, cmp_nonce(nonces[i - 1], nonces[i]),
				    0, "nonce %u repeats", i);
		KUNIT_ASSERT_NE_MSG(test, cmp_tag(tags[i - 1], tags[i]), 0,
				    "tag %u repeats", i);
	}
}

/* the last counter value seals; after it the direction must rekey */
static void aead_counter_end(struct kunit *test)
{
	const unsigned int len = 40;
	struct mro_aead_dir *d;
	u8 key[16];
	u8 *pkt;
	u64 seq = 0;

	fill(key, sizeof(key), 0x42);
	d = dir_new(test, 0, key, 16, 0, MRO_AEAD_DIR_LO);
	pkt = pkt_new(test, len);
	d->next_seq = MRO_AEAD_SEQ_MAX;
	KUNIT_ASSERT_EQ(test, mro_aead_seal(d, MRO_PROT_AUTH, pkt, 8, len,
					    &seq), 0);
	KUNIT_EXPECT_EQ(test, seq, MRO_AEAD_SEQ_MAX);
	KUNIT_EXPECT_EQ(test, mro_aead_open(d, MRO_PROT_AUTH, pkt, 8,
					    len + TAG, seq), 0);

	memset(pkt, 0xee, len + TAG);
	seq = 0;
	KUNIT_EXPECT_EQ(test, mro_aead_seal(d, MRO_PROT_AUTH, pkt, 8, len,
					    &seq), -EKEYEXPIRED);
	KUNIT_EXPECT_EQ(test, mro_aead_seal(d, MRO_PROT_ENCRYPT, pkt, 8, len,
					    &seq), -EKEYEXPIRED);
	KUNIT_EXPECT_EQ(test, d->next_seq, U64_MAX);
	KUNIT_EXPECT_EQ(test, seq, 0ULL);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(pkt, 0xee, len + TAG));
	/* no sender uses U64_MAX: a receiver refuses it outright */
	KUNIT_EXPECT_EQ(test, mro_aead_open(d, MRO_PROT_AUTH, pkt, 8,
					    len + TAG, U64_MAX), -EBADMSG);
}

/* refused arguments, none of which takes a counter value */
static void aead_bad_args(struct kunit *test)
{
	struct aead_ctx *ctx = test->priv;
	struct mro_aead_dir *d;
	u8 key[32] = { 1 };
	u8 *pkt = pkt_new(test, 32);
	u64 seq;

	KUNIT_EXPECT_EQ(test, mro_aead_dir_init(&ctx->d[2], key, 24, 0,
						MRO_AEAD_DIR_LO), -EINVAL);
	KUNIT_EXPECT_EQ(test, mro_aead_dir_init(&ctx->d[2], key, 0, 0,
						MRO_AEAD_DIR_LO), -EINVAL);
	KUNIT_EXPECT_EQ(test, mro_aead_dir_init(&ctx->d[2], key, 16, 0, 'X'),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, ctx->d[2].tfm);
	mro_aead_dir_destroy(&ctx->d[2]);

	d = dir_new(test, 0, key, 16, 0, MRO_AEAD_DIR_LO);
	KUNIT_EXPECT_EQ(test, mro_aead_seal(d, MRO_PROT_NONE, pkt, 0, 32, &seq),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mro_aead_seal(d, MRO_PROT_ENCRYPT, pkt, 33, 32,
					    &seq), -EINVAL);
	KUNIT_EXPECT_EQ(test, d->next_seq, 0ULL);
	KUNIT_EXPECT_EQ(test, mro_aead_open(d, MRO_PROT_NONE, pkt, 0, 32, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mro_aead_open(d, MRO_PROT_AUTH, pkt, 33, 32, 0),
			-EBADMSG);
}

/* the replay window */

static void replay_in_order(struct kunit *test)
{
	struct mro_replay w;
	u64 s;

	mro_replay_init(&w);
	for (s = 0; s < 3 * MRO_REPLAY_WIN; s++) {
		KUNIT_ASSERT_TRUE(test, mro_replay_check(&w, s));
		KUNIT_ASSERT_TRUE(test, mro_replay_commit(&w, s));
		KUNIT_ASSERT_FALSE(test, mro_replay_check(&w, s));
		KUNIT_ASSERT_EQ(test, w.top, s + 1);
	}
	/* every value in the window is a duplicate, every older one too old */
	for (s = 0; s < 3 * MRO_REPLAY_WIN; s++)
		KUNIT_ASSERT_FALSE(test, mro_replay_check(&w, s));
	KUNIT_EXPECT_TRUE(test, mro_replay_check(&w, 3 * MRO_REPLAY_WIN));
}

/* the first packet may carry any counter value, 0 included */
static void replay_first(struct kunit *test)
{
	struct mro_replay w;

	mro_replay_init(&w);
	KUNIT_EXPECT_TRUE(test, mro_replay_check(&w, 0));
	KUNIT_EXPECT_TRUE(test, mro_replay_commit(&w, 0));
	KUNIT_EXPECT_FALSE(test, mro_replay_commit(&w, 0));

	mro_replay_init(&w);
	KUNIT_EXPECT_TRUE(test, mro_replay_commit(&w, 5000));
	KUNIT_EXPECT_FALSE(test, mro_replay_check(&w, 5000));
	/* the values below it within the window were not seen */
	KUNIT_EXPECT_TRUE(test, mro_replay_check(&w, 4999));
	KUNIT_EXPECT_TRUE(test, mro_replay_check(&w, 5000 - MRO_REPLAY_WIN + 1));
	KUNIT_EXPECT_FALSE(test, mro_replay_check(&w, 5000 - MRO_REPLAY_WIN));
	KUNIT_EXPECT_FALSE(test, mro_replay_check(&w, 0));
}

/* any order within the window, each value once */
static void replay_out_of_order(struct kunit *test)
{
	struct mro_replay w;
	unsigned int i;
	u64 s;

	mro_replay_init(&w);
	KUNIT_ASSERT_TRUE(test, mro_replay_commit(&w, MRO_REPLAY_WIN - 1));
	/* the rest of 0 .. WIN - 1, odd values descending, then even ones */
	for (s = MRO_REPLAY_WIN - 3; s < MRO_REPLAY_WIN; s -= 2) {
		KUNIT_ASSERT_TRUE(test, mro_replay_check(&w, s));
		KUNIT_ASSERT_TRUE(test, mro_replay_commit(&w, s));
	}
	for (i = 0; i < MRO_REPLAY_WIN / 2; i++) {
		s = (i * 2 * 7) % MRO_REPLAY_WIN;	/* even, all of them */
		KUNIT_ASSERT_TRUE_MSG(test, mro_replay_commit(&w, s), "%llu", s);
	}
	KUNIT_EXPECT_EQ(test, w.top, (u64)MRO_REPLAY_WIN);
	for (s = 0; s < MRO_REPLAY_WIN; s++)
		KUNIT_ASSERT_FALSE(test, mro_replay_check(&w, s));
	/* top moves up by two: 0 and 1 fall out, the rest stays seen */
	KUNIT_EXPECT_TRUE(test, mro_replay_commit(&w, MRO_REPLAY_WIN + 1));
	KUNIT_EXPECT_TRUE(test, mro_replay_check(&w, MRO_REPLAY_WIN));
	KUNIT_EXPECT_FALSE(test, mro_replay_check(&w, 1));
	KUNIT_EXPECT_FALSE(test, mro_replay_check(&w, 2));
	KUNIT_EXPECT_TRUE(test, mro_replay_commit(&w, MRO_REPLAY_WIN));
}

/* duplicates and too-old values are refused and change nothing */
static void replay_refused(struct kunit *test)
{
	struct mro_replay w, before;

	mro_replay_init(&w);
	KUNIT_ASSERT_TRUE(test, mro_replay_commit(&w, 3000));
	KUNIT_ASSERT_TRUE(test, mro_replay_commit(&w, 2500));
	before = w;
	KUNIT_EXPECT_FALSE(test, mro_replay_commit(&w, 3000));
	KUNIT_EXPECT_FALSE(test, mro_replay_commit(&w, 2500));
	KUNIT_EXPECT_FALSE(test, mro_replay_commit(&w, 3000 - MRO_REPLAY_WIN));
	KUNIT_EXPECT_FALSE(test, mro_replay_commit(&w, 0));
	KUNIT_EXPECT_FALSE(test, mro_replay_commit(&w, U64_MAX));
	KUNIT_EXPECT_FALSE(test, mro_replay_check(&w, U64_MAX));
	KUNIT_EXPECT_MEMEQ(test, &w, &before, sizeof(w));
	/* the oldest value the window still holds */
	KUNIT_EXPECT_TRUE(test, mro_replay_commit(&w, 3001 - MRO_REPLAY_WIN));
}

/* a jump forward by more than the window forgets everything below */
static void replay_jump(struct kunit *test)
{
	const u64 far = 1ULL << 40;
	struct mro_replay w;
	u64 s;

	mro_replay_init(&w);
	for (s = 0; s < 100; s++)
		KUNIT_ASSERT_TRUE(test, mro_replay_commit(&w, s));
	KUNIT_ASSERT_TRUE(test, mro_replay_commit(&w, far));
	KUNIT_EXPECT_EQ(test, w.top, far + 1);
	/* no stale bit of 0 .. 99 shows through at the same positions */
	for (s = far - MRO_REPLAY_WIN + 1; s < far; s++)
		KUNIT_ASSERT_TRUE(test, mro_replay_check(&w, s));
	KUNIT_EXPECT_FALSE(test, mro_replay_check(&w, far - MRO_REPLAY_WIN));
	KUNIT_EXPECT_FALSE(test, mro_replay_check(&w, 50));
	/* a jump by less than the window keeps what it still covers */
	KUNIT_ASSERT_TRUE(test, mro_replay_commit(&w, far - 10));
	KUNIT_ASSERT_TRUE(test, mro_replay_commit(&w, far + 500));
	KUNIT_EXPECT_FALSE(test, mro_replay_check(&w, far - 10));
	KUNIT_EXPECT_FALSE(test, mro_replay_check(&w, far));
	KUNIT_EXPECT_TRUE(test, mro_replay_check(&w, far + 499));
	KUNIT_EXPECT_TRUE(test, mro_replay_check(&w, far + 1));
	/* the last usable value */
	KUNIT_EXPECT_TRUE(test, mro_replay_commit(&w, MRO_AEAD_SEQ_MAX));
	KUNIT_EXPECT_EQ(test, w.top, U64_MAX);
	KUNIT_EXPECT_FALSE(test, mro_replay_check(&w, MRO_AEAD_SEQ_MAX));
	KUNIT_EXPECT_TRUE(test, mro_replay_check(&w, MRO_AEAD_SEQ_MAX - 1));
}

/* check alone never changes the window, whatever it is asked */
static void replay_check_only(struct kunit *test)
{
	struct mro_replay w, before;
	u64 s;

	mro_replay_init(&w);
	KUNIT_ASSERT_TRUE(test, mro_replay_commit(&w, 2000));
	KUNIT_ASSERT_TRUE(test, mro_replay_commit(&w, 1990));
	before = w;
	for (s = 0; s < 4000; s++)
		mro_replay_check(&w, s);
	KUNIT_EXPECT_TRUE(test, mro_replay_check(&w, 1ULL << 50));
	KUNIT_EXPECT_MEMEQ(test, &w, &before, sizeof(w));
	/* so a packet checked but never committed is still new */
	KUNIT_EXPECT_TRUE(test, mro_replay_check(&w, 1995));
	KUNIT_EXPECT_TRUE(test, mro_replay_check(&w, 2001));
}

/* PROT-7 and PROT-4: who sends as L, and a QP connected to itself */
static void aead_dirs(struct kunit *test)
{
	u8 tx = 0, rx = 0;

	KUNIT_EXPECT_EQ(test, mro_aead_dirs(5, 9, false, &tx, &rx), 0);
	KUNIT_EXPECT_EQ(test, tx, MRO_AEAD_DIR_LO);
	KUNIT_EXPECT_EQ(test, rx, MRO_AEAD_DIR_HI);
	/* the other end of the same connection: the mirror image */
	KUNIT_EXPECT_EQ(test, mro_aead_dirs(9, 5, false, &tx, &rx), 0);
	KUNIT_EXPECT_EQ(test, tx, MRO_AEAD_DIR_HI);
	KUNIT_EXPECT_EQ(test, rx, MRO_AEAD_DIR_LO);
	/* unsigned: a nonce with the top bit set is the higher one */
	KUNIT_EXPECT_EQ(test, mro_aead_dirs(1ULL << 63, 1, false, &tx, &rx), 0);
	KUNIT_EXPECT_EQ(test, tx, MRO_AEAD_DIR_HI);
	/* one flow: L both ways, so its own packets open */
	KUNIT_EXPECT_EQ(test, mro_aead_dirs(7, 7, true, &tx, &rx), 0);
	KUNIT_EXPECT_EQ(test, tx, MRO_AEAD_DIR_LO);
	KUNIT_EXPECT_EQ(test, rx, MRO_AEAD_DIR_LO);
	/* two ends with one nonce would share a nonce sequence */
	tx = 0;
	rx = 0;
	KUNIT_EXPECT_EQ(test, mro_aead_dirs(7, 7, false, &tx, &rx), -EINVAL);
	/* one flow with two nonces is no QP connected to itself */
	KUNIT_EXPECT_EQ(test, mro_aead_dirs(7, 8, true, &tx, &rx), -EINVAL);
	KUNIT_EXPECT_EQ(test, tx, 0);
	KUNIT_EXPECT_EQ(test, rx, 0);
}

static struct kunit_case metaroce_aead_cases[] = {
	KUNIT_CASE(aead_kat_tc1),
	KUNIT_CASE(aead_kat_tc2),
	KUNIT_CASE(aead_kat_tc4),
	KUNIT_CASE(aead_kat_tc14),
	KUNIT_CASE(aead_nonce_layout),
	KUNIT_CASE(aead_kat_seal_counter),
	KUNIT_CASE(aead_round_trip),
	KUNIT_CASE(aead_tamper_auth),
	KUNIT_CASE(aead_tamper_encrypt),
	KUNIT_CASE(aead_wrong_key),
	KUNIT_CASE(aead_nonce_unique),
	KUNIT_CASE(aead_counter_end),
	KUNIT_CASE(aead_bad_args),
	KUNIT_CASE(aead_dirs),
	KUNIT_CASE(replay_in_order),
	KUNIT_CASE(replay_first),
	KUNIT_CASE(replay_out_of_order),
	KUNIT_CASE(replay_refused),
	KUNIT_CASE(replay_jump),
	KUNIT_CASE(replay_check_only),
	{}
};

static struct kunit_suite metaroce_aead_suite = {
	.name = "metaroce_aead",
	.init = aead_test_init,
	.exit = aead_test_exit,
	.test_cases = metaroce_aead_cases,
};

kunit_test_suite(metaroce_aead_suite);
