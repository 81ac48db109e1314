// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the receive path over non-linear skbs (mro_skb.c): a
 * packet split at every interesting point between the linear head, page
 * fragments and a frag list decodes exactly as the flat packet does
 * (mro_wire_decode), its payload reads back byte for byte, and a flipped
 * bit anywhere past the base header is caught by the CRC.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <rdma/metaroce_wire.h>
#include "mro_skb.h"
#include "mro_wire.h"

#define SKB_PLEN	3000	/* payload: spans pages */
#define SKB_BUF_LEN	(SKB_PLEN + 256)

/* a sealed SEND_ONLY of SKB_PLEN payload bytes into @buf; returns its length */
static u32 skb_pkt(struct kunit *test, u8 *buf, struct mro_hdr *h)
{
	size_t n;
	u32 j;

	memset(h, 0, sizeof(*h));
	h->opcode = METAROCE_OP_SEND;
	h->flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	h->dqpn = 0x123456;
	h->sqpn = 0x654321;
	h->psn = 0xabcdef;
	h->path = 3;
	h->msg.msn = 7;
	h->msg.length = SKB_PLEN;
	h->msg.first_psn = 0xabcdef;
	n = mro_wire_encode(h, buf, SKB_BUF_LEN);
	KUNIT_ASSERT_NE(test, n, 0);
	for (j = 0; j < SKB_PLEN; j++)
		buf[n + j] = j * 7 + (j >> 8);
	mro_wire_seal(buf, n + SKB_PLEN);
	return n + SKB_PLEN + METAROCE_CRC_LEN;
}

/* @len bytes of @data in page fragments of @frag_len bytes each */
static int skb_add_pages(struct sk_buff *skb, const u8 *data, u32 len,
			 u32 frag_len)
{
	u32 off = 0;
	int i = 0;

	while (off < len) {
		u32 n = min(frag_len, len - off);
		struct page *page;

		if (i == MAX_SKB_FRAGS)
			return -E2BIG;
		page = alloc_page(GFP_KERNEL);
		if (!page)
			return -ENOMEM;
		/* not at the start of the page: offsets must be honoured */
		memcpy(page_address(page) + 16, data + off, n);
		skb_add_rx_frag(skb, i++, page, 16, n, PAGE_SIZE);
		off += n;
	}
	return 0;
}

/*
 * @buf[0, @len) as an skb: @head bytes linear, the rest in fragments of
 * @frag_len bytes; with @chain, the second half of the rest in a frag list
 * skb (as IP reassembly builds them).  NULL if that takes too many frags.
 */
static struct sk_buff *skb_build(const u8 *buf, u32 len, u32 head,
				 u32 frag_len, bool chain)
{
	u32 rest = len - head, mine = chain ? rest / 2 : rest;
	struct sk_buff *skb, *tail;

	skb = alloc_skb(head + 64, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_put_data(skb, buf, head);
	if (skb_add_pages(skb, buf + head, mine, frag_len))
		goto fail;
	if (!chain)
		return skb;
	tail = alloc_skb(0, GFP_KERNEL);
	if (!tail)
		goto fail;
	if (skb_add_pages(tail, buf + head + mine, rest - mine, frag_len)) {
		kfree_skb(tail);
		goto fail;
	}
	skb_shinfo(skb)->frag_list = tail;
	skb->len += tail->len;
	skb->data_len += tail->len;
	skb->truesize += tail->truesize;
	return skb;
fail:
	kfree_skb(skb);
	return NULL;
}

/* a piece function that appends to the buffer at *@ctx */
static int skb_collect(void *ctx, const void *data, u32 len)
{
	u8 **p = ctx;

	memcpy(*p, data, len);
	*p += len;
	return 0;
}

/* a piece function that fails on its second call */
static int skb_refuse(void *ctx, const void *data, u32 len)
{
	int *calls = ctx;

	return ++*calls == 2 ? -EFAULT : 0;
}

/* one split of the packet @buf: decodes as @flat, the payload reads back */
static bool skb_split_one(struct kunit *test, const u8 *buf, u32 len,
			  const struct mro_hdr *flat, u8 *out, u32 head,
			  u32 frag_len, bool chain)
{
	struct sk_buff *skb;
	struct mro_hdr d;
	u8 *p = out;

	skb = skb_build(buf, len, head, frag_len, chain);
	if (!skb)
		return false;	/* more fragments than an skb holds */
	memset(&d, 0, sizeof(d));
	KUNIT_EXPECT_EQ_MSG(test, mro_skb_decode(skb, len, &d), MRO_WIRE_OK,
			    "head %u frag %u chain %d", head, frag_len, chain);
	KUNIT_EXPECT_GE(test, skb_headlen(skb), flat->hdr_len);
	KUNIT_EXPECT_EQ(test, d.opcode, flat->opcode);
	KUNIT_EXPECT_EQ(test, d.flags, flat->flags);
	KUNIT_EXPECT_EQ(test, d.dqpn, flat->dqpn);
	KUNIT_EXPECT_EQ(test, d.sqpn, flat->sqpn);
	KUNIT_EXPECT_EQ(test, d.psn, flat->psn);
	KUNIT_EXPECT_EQ(test, d.hdr_len, flat->hdr_len);
	KUNIT_EXPECT_EQ(test, d.payload_len, flat->payload_len);
	KUNIT_EXPECT_EQ(test, d.msg.length, flat->msg.length);
	KUNIT_EXPECT_EQ(test, d.msg.msn, flat->msg.msn);

	memset(out, 0, SKB_BUF_LEN);
	KUNIT_EXPECT_EQ(test, mro_skb_walk(skb, d.hdr_len, d.payload_len,
					   skb_collect, &p), 0);
	KUNIT_EXPECT_EQ(test, p - out, (long)SKB_PLEN);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(out, buf + flat->hdr_len, SKB_PLEN), 0,
			    "payload, head %u frag %u chain %d", head,
			    frag_len, chain);
	kfree_skb(skb);
	return true;
}

/* every split decodes as the flat packet, and the payload reads back */
static void skb_decode_split_test(struct kunit *test)
{
	static const u32 frag_lens[] = { 1000, 1500, PAGE_SIZE - 16, 100 };
	u8 *buf = kunit_kzalloc(test, SKB_BUF_LEN, GFP_KERNEL);
	u8 *out = kunit_kzalloc(test, SKB_BUF_LEN, GFP_KERNEL);
	int f, k, c, tried = 0, fitting = 0;
	struct mro_hdr h, flat;
	u32 len, hl, heads[10];

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, out);
	len = skb_pkt(test, buf, &h);
	hl = h.hdr_len;
	KUNIT_ASSERT_EQ(test, mro_wire_decode(buf, len, &flat), MRO_WIRE_OK);
	heads[0] = 0;
	heads[1] = 1;
	heads[2] = METAROCE_BTH_LEN - 1;
	heads[3] = METAROCE_BTH_LEN;
	heads[4] = hl - 1;
	heads[5] = hl;
	heads[6] = hl + 1;
	heads[7] = 1024;
	heads[8] = len - METAROCE_CRC_LEN - 1;	/* CRC in the fragments */
	heads[9] = len;				/* all linear */

	for (c = 0; c < 2; c++) {
		for (f = 0; f < ARRAY_SIZE(frag_lens); f++) {
			for (k = 0; k < ARRAY_SIZE(heads); k++) {
				if (c && heads[k] == len)
					continue;
				/* 100-byte fragments may not fit an skb */
				if (frag_lens[f] >= 1000)
					fitting++;
				tried += skb_split_one(test, buf, len, &flat,
						       out, heads[k],
						       frag_lens[f], c);
			}
		}
	}
	KUNIT_EXPECT_GE(test, tried, fitting);
}

/* a flipped bit past the base header, in head or fragments: a CRC drop */
static void skb_decode_bad_crc_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, SKB_BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	u32 len, i, bit = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = skb_pkt(test, buf, &h);
	for (i = METAROCE_BTH_LEN; i < len; i += (i < 80 || i > len - 8) ? 1 : 37) {
		struct sk_buff *skb;

		buf[i] ^= 1 << (bit++ & 7);
		/* i % 3: the flipped byte in the head or in a fragment */
		skb = skb_build(buf, len, (i % 3) ? h.hdr_len : len / 2,
				PAGE_SIZE - 16, i & 1);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_EQ_MSG(test, mro_skb_decode(skb, len, &d),
				    MRO_WIRE_CRC, "byte %u", i);
		kfree_skb(skb);
		buf[i] ^= 1 << ((bit - 1) & 7);
	}
	/* and the restored packet is good again */
	{
		struct sk_buff *skb = skb_build(buf, len, 8, 1000, true);

		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_EQ(test, mro_skb_decode(skb, len, &d), MRO_WIRE_OK);
		kfree_skb(skb);
	}
}

/* too short for the headers: refused without reading past the skb */
static void skb_decode_short_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, SKB_BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	u32 len, cut;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = skb_pkt(test, buf, &h);
	for (cut = 0; cut < h.hdr_len + METAROCE_CRC_LEN; cut++) {
		struct sk_buff *skb = skb_build(buf, cut, min(cut, 3U), 16,
						false);

		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_EQ_MSG(test, mro_skb_decode(skb, cut, &d),
				    MRO_WIRE_SHORT, "len %u", cut);
		kfree_skb(skb);
	}
	/* a length beyond the skb is cut to it: the CRC no longer matches */
	{
		struct sk_buff *skb = skb_build(buf, len - 1, 40, 1500, false);

		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_NE(test, mro_skb_decode(skb, len, &d), MRO_WIRE_OK);
		kfree_skb(skb);
	}
}

/* ranges outside the skb are refused; a piece's error stops the walk */
static void skb_walk_bounds_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, SKB_BUF_LEN, GFP_KERNEL);
	struct sk_buff *skb;
	struct mro_hdr h;
	int calls = 0;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = skb_pkt(test, buf, &h);
	skb = skb_build(buf, len, 100, 1000, false);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, mro_skb_walk(skb, 0, len + 1, skb_refuse, &calls),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mro_skb_walk(skb, len, 1, skb_refuse, &calls),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mro_skb_walk(skb, 0xffffffffU, 2, skb_refuse,
					   &calls), -EINVAL);
	KUNIT_EXPECT_EQ(test, calls, 0);
	KUNIT_EXPECT_EQ(test, mro_skb_walk(skb, len, 0, skb_refuse, &calls), 0);
	KUNIT_EXPECT_EQ(test, calls, 0);
	/* head, then the first fragment: the second piece fails */
	KUNIT_EXPECT_EQ(test, mro_skb_walk(skb, 0, len, skb_refuse, &calls),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, calls, 2);
	kfree_skb(skb);
}

static struct kunit_case metaroce_skb_cases[] = {
	KUNIT_CASE(skb_decode_split_test),
	KUNIT_CASE(skb_decode_bad_crc_test),
	KUNIT_CASE(skb_decode_short_test),
	KUNIT_CASE(skb_walk_bounds_test),
	{}
};

static struct kunit_suite metaroce_skb_suite = {
	.name = "metaroce_skb",
	.test_cases = metaroce_skb_cases,
};

kunit_test_suite(metaroce_skb_suite);
