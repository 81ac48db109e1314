// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Self test of librefpeer's building blocks: CRC32C check value, HKDF-SHA256
 * against RFC 5869 A.1-A.3, the connection key derivation against the
 * known answers of tests/kunit/kdf_test.c, and the wire codec round trip.
 */
#include <stdio.h>
#include <string.h>

#include <stdlib.h>
#include <arpa/inet.h>

#include "rp_internal.h"

static int fails;

static void expect(bool ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	if (!ok)
		fails++;
}

static void hex(const char *s, u8 *out)
{
	unsigned int b;

	while (*s) {
		sscanf(s, "%2x", &b);
		*out++ = b;
		s += 2;
	}
}

static void seq(u8 *p, u8 first, unsigned int n)
{
	while (n--)
		*p++ = first++;
}

static void rfc5869(void)
{
	u8 ikm[80], salt[80], info[80], okm[82], want[82];

	memset(ikm, 0x0b, 22);
	seq(salt, 0, 13);
	seq(info, 0xf0, 10);
	hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865", want);
	expect(!rp_hkdf_sha256(salt, 13, ikm, 22, info, 10, okm, 42) &&
	       !memcmp(okm, want, 42), "HKDF RFC 5869 A.1");
	seq(ikm, 0, 80);
	seq(salt, 0x60, 80);
	seq(info, 0xb0, 80);
	hex("b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87", want);
	expect(!rp_hkdf_sha256(salt, 80, ikm, 80, info, 80, okm, 82) &&
	       !memcmp(okm, want, 82), "HKDF RFC 5869 A.2");
	memset(ikm, 0x0b, 22);
	hex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8", want);
	expect(!rp_hkdf_sha256(NULL, 0, ikm, 22, NULL, 0, okm, 42) &&
	       !memcmp(okm, want, 42), "HKDF RFC 5869 A.3");
}

static void kdf_kat(void)
{
	struct rp_conn_end e1 = {
		.gid = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 1 },
		.qpn = 0x11, .psn = 0x123456, .nonce = 0x0123456789abcdefULL,
	};
	struct rp_conn_end e2 = {
		.gid = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 2 },
		.qpn = 0x12, .psn = 0xabcdef, .nonce = 0xfedcba9876543210ULL,
	};
	u8 key[32], ab[32], ba[32], ab2[32], ba2[32], w12[32], w21[32];

	seq(key, 0, 32);
	hex("f6456030e92913ff2d62c35d4fd0f5ad2f50fa1d3555bed10e28035c5efb4232", w12);
	hex("ef7bfd8c2150960cccecef19827073904a28065c71826fbadf5b26769212bc2f", w21);
	expect(!rp_kdf_conn_keys(key, 32, 1, &e1, &e2, ab, ba, 32) &&
	       !memcmp(ab, w12, 32) && !memcmp(ba, w21, 32),
	       "connection keys: kdf_test.c known answer");
	expect(!rp_kdf_conn_keys(key, 32, 1, &e2, &e1, ab2, ba2, 32) &&
	       !memcmp(ab2, ba, 32) && !memcmp(ba2, ab, 32),
	       "connection keys: both ends agree");
	expect(!rp_kdf_conn_keys(key, 32, 1, &e1, &e2, ab, ba, 16) &&
	       !memcmp(ab, w12, 16) && !memcmp(ba, w21, 16),
	       "connection keys: 16-byte keys are prefixes");
	expect(!rp_kdf_conn_keys(key, 32, 1, &e1, &e1, ab, ba, 32) &&
	       !memcmp(ab, ba, 32), "connection keys: self connection");
	e1.nonce = 0;
	expect(rp_kdf_conn_keys(key, 32, 1, &e1, &e2, ab, ba, 32) != 0,
	       "connection keys: nonce 0 refused");
}

static void codec(void)
{
	u8 buf[256], pay[5] = "abcd";
	struct mro_hdr h = { 0 }, d;
	size_t n;

	expect(mro_wire_crc("123456789", 9) == 0xe3069283,
	       "CRC32C check value");
	h.opcode = METAROCE_OP_SEND;
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST | METAROCE_F_ACK_PIGGY;
	h.dqpn = 0x123;
	h.sqpn = 0x456;
	h.psn = 0xfffffff0;
	h.ack_psn = 77;
	h.msg.length = 4;
	n = mro_wire_encode(&h, buf, sizeof(buf));
	memcpy(buf + n, pay, 4);
	mro_wire_seal(buf, n + 4);
	expect(n == 64 && mro_wire_decode(buf, n + 8, &d) == MRO_WIRE_OK &&
	       d.psn == h.psn && d.ack_psn == 77 && d.payload_len == 4,
	       "codec: SEND with ACK_PIGGY round trip");
	buf[n] ^= 1;
	expect(mro_wire_decode(buf, n + 8, &d) == MRO_WIRE_CRC,
	       "codec: corrupted payload fails the CRC");
}

/*
 * Datagram keys and seals (PROT-18, PROT-19, EXT-13): known answers
 * computed apart from this code (Python: hmac/hashlib HKDF, the
 * cryptography package's AESGCM) from protocol.rst's layout
 */
static void dgram_kat(void)
{
	static const char *const want_tail[2] = {
		/* auth, counter 5: the clear payload, tag, counter */
		"646174616772616d353e76153ae2328865c39b67a4568d8f0000000000000005",
		/* encrypt, counter 6 */
		"e34c2e39604d92bf80b099e346b2910160ed156cb8784d1f0000000000000006",
	};
	u8 dev[32], key[32], want[32], buf[128], copy[128], tail[32];
	struct mro_hdr h = { 0 }, d;
	size_t n;
	int i, len;

	seq(dev, 0, 32);
	hex("4bdec3e38e667c5219e95f8da1d651fadd6a6b45b3a0c209e7ac9cf34f9c1e0d", want);
	expect(!rp_kdf_dgram_key(dev, 32, 1, 0x11, 0x0123456789abcdULL, key) &&
	       !memcmp(key, want, 32), "datagram key: known answer, 32 bytes");
	hex("abd2fac542278e1943969591ab45c46668f2111e0baa7b8bbd9b3b728337a4cc", want);
	expect(!rp_kdf_dgram_key(dev, 32, 1, 0x123456, 0x0123456789abcdULL, key) &&
	       !memcmp(key, want, 32), "datagram key: kdf_test.c known answer");
	hex("ee54cc7c474c77c57368005fbd4bed1f", want);
	expect(!rp_kdf_dgram_key(dev, 16, 2, 0xabcdef, 0xfedcba98765432ULL, key) &&
	       !memcmp(key, want, 16), "datagram key: known answer, 16 bytes");
	expect(rp_kdf_dgram_key(dev, 16, 2, 0xabcdef, 1ULL << 56, key) != 0,
	       "datagram key: a nonce over 56 bits refused");

	/* UD_SEND_IMM with the seal extension: 44 header bytes */
	h.opcode = METAROCE_OP_UD_SEND_IMM;
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST | METAROCE_F_SEALED;
	h.dqpn = 0x123;
	h.sqpn = 0xabcdef;
	h.psn = 7;
	h.path_seq = 9;
	h.tsval = 10;
	h.deth.qkey = 0x1c0ffee1;
	h.deth.imm = 0x5eed;
	h.deth.key_id = 2;
	h.deth.sender_nonce = 0xfedcba98765432ULL;
	n = mro_wire_encode(&h, buf, sizeof(buf));
	expect(n == 44 && buf[36] == 2 && buf[37] == 0xfe && buf[43] == 0x32,
	       "codec: sealed UD_SEND_IMM carries key id and nonce at 36..43");
	for (i = 0; i < 2; i++) {
		u8 prot = i ? METAROCE_PROT_ENCRYPT : METAROCE_PROT_AUTH;

		n = mro_wire_encode(&h, buf, sizeof(buf));
		memcpy(buf + n, "datagram", 8);
		len = rp_dgram_seal(key, 16, prot, 2, 5 + i, buf, n, n + 8);
		hex(want_tail[i], tail);
		expect(len == 76 && !memcmp(buf + 44, tail, 32),
		       i ? "datagram seal: encrypt known answer" :
			   "datagram seal: auth known answer");
		memcpy(copy, buf, len);
		expect(mro_wire_decode(copy, len, &d) == MRO_WIRE_OK &&
		       d.hdr_len == 44 && d.payload_len == 8 &&
		       d.deth.key_id == 2 &&
		       d.deth.sender_nonce == 0xfedcba98765432ULL &&
		       !rp_dgram_open(key, 16, prot, 2, copy, 44, len) &&
		       !memcmp(copy + 44, "datagram", 8),
		       "datagram seal: decodes and opens");
		memcpy(copy, buf, len);
		copy[40] ^= 0x80;	/* the nonce is authenticated */
		expect(rp_dgram_open(key, 16, prot, 2, copy, 44, len) == -1,
		       "datagram seal: an altered seal extension fails the tag");
		memcpy(copy, buf, len);
		expect(rp_dgram_open(key, 16, prot ^ 3, 2, copy, 44, len) == -1,
		       "datagram seal: the other mode fails the tag (PROT-24)");
	}
	buf[36] = 0;
	expect(mro_wire_parse(buf, 76, &d) == MRO_WIRE_FIELD,
	       "codec: seal extension key id 0 is a field error");
	buf[36] = 2;
	memset(buf + 37, 0, 7);
	expect(mro_wire_parse(buf, 76, &d) == MRO_WIRE_FIELD,
	       "codec: seal extension nonce 0 is a field error");
	buf[18] = 0;		/* hdr_len */
	buf[19] = 36;
	expect(mro_wire_parse(buf, 76, &d) == MRO_WIRE_HDR_LEN,
	       "codec: sealed datagram with hdr_len 36 is a hdr_len error");
}

/* two ends of one connection, keyed as the HELLOs would key them */
static void fake_pair(struct rp_ep *a, struct rp_ep *b, u8 prot)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	rp_cfg_default(&a->cfg);
	inet_pton(AF_INET, "192.168.1.1", &a->cfg.local_ip);
	inet_pton(AF_INET, "192.168.1.2", &a->cfg.peer_ip);
	a->cfg.qpn = 0x11;
	a->cfg.peer_qpn = 0x12;
	a->cfg.sq_psn = 0x123456;
	a->cfg.rq_psn = 0xabcdef;
	a->cfg.prot = prot;
	a->cfg.key_len = 32;
	seq(a->cfg.key, 0, 32);
	b->cfg = a->cfg;
	b->cfg.local_ip = a->cfg.peer_ip;
	b->cfg.peer_ip = a->cfg.local_ip;
	b->cfg.qpn = 0x12;
	b->cfg.peer_qpn = 0x11;
	b->cfg.sq_psn = 0xabcdef;
	b->cfg.rq_psn = 0x123456;
	a->nonce = b->peer_nonce = 0xfedcba9876543210ULL;
	b->nonce = a->peer_nonce = 0x0123456789abcdefULL;
	a->chosen_key_id = b->chosen_key_id = 1;
}

static void protection(u8 prot, const char *name)
{
	struct rp_ep *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct rp_crypto *ca, *cb;
	u8 pkt[128], copy[128], old[128];
	char what[96];
	int n = 0, i;

	fake_pair(a, b, prot);
	ca = rp_crypto_new(a);
	cb = rp_crypto_new(b);
	memset(pkt, 0x5a, 100);		/* 64 header bytes, 36 payload */
	n = rp_crypto_seal(ca, pkt, 64, 100);
	memcpy(copy, pkt, n);
	memcpy(old, pkt, n);
	snprintf(what, sizeof(what), "%s: sealed packet opens at the peer", name);
	expect(n == 124 && !rp_crypto_open(cb, copy, 64, n) &&
	       copy[99] == 0x5a, what);
	snprintf(what, sizeof(what), "%s: payload %s on the wire", name,
		 prot == METAROCE_PROT_ENCRYPT ? "encrypted" : "in clear");
	expect((pkt[99] != 0x5a) == (prot == METAROCE_PROT_ENCRYPT), what);
	memcpy(copy, pkt, n);
	snprintf(what, sizeof(what), "%s: a replayed counter is refused", name);
	expect(rp_crypto_open(cb, copy, 64, n) == -2, what);
	for (i = 0; i < 1100; i++) {
		memset(pkt, 0x5a, 100);
		rp_crypto_seal(ca, pkt, 64, 100);
	}
	memcpy(copy, pkt, n);
	copy[10] ^= 1;
	snprintf(what, sizeof(what), "%s: an altered header fails the tag", name);
	expect(rp_crypto_open(cb, copy, 64, n) == -1, what);
	memcpy(copy, pkt, n);
	copy[n - 1] ^= 1;
	snprintf(what, sizeof(what), "%s: an altered counter fails the tag", name);
	expect(rp_crypto_open(cb, copy, 64, n) == -1, what);
	memcpy(copy, pkt, n);
	expect(!rp_crypto_open(cb, copy, 64, n), "  and the genuine one opens");
	/* counter 0 is now 1024 or more behind the highest accepted */
	snprintf(what, sizeof(what), "%s: a counter 1024 behind is refused", name);
	expect(rp_crypto_open(cb, old, 64, n) == -2, what);
	rp_crypto_free(ca);
	rp_crypto_free(cb);
	free(a);
	free(b);
}

int main(void)
{
	u8 ws[32];

	hex("55db33c45a9c4e5587b62c43d72fa24488273a150ef927448995b2ca633c980c", ws);
	{
		struct rp_conn_end e1 = {
			.gid = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 1 },
			.qpn = 0x11, .psn = 0x123456, .nonce = 0x0123456789abcdefULL,
		};
		u8 key[32], ab[32], ba[32];

		seq(key, 0, 32);
		expect(!rp_kdf_conn_keys(key, 32, 1, &e1, &e1, ab, ba, 32) &&
		       !memcmp(ab, ws, 32), "connection keys: self known answer");
	}
	rfc5869();
	kdf_kat();
	codec();
	dgram_kat();
	protection(METAROCE_PROT_AUTH, "auth");
	protection(METAROCE_PROT_ENCRYPT, "encrypt");
	printf("%d failed\n", fails);
	return fails ? 1 : 0;
}
