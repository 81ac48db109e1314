// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce receive over a non-linear skb.  virtio-net and most NICs hand
 * the UDP payload over in page fragments: linearising every packet copied
 * it (and often allocated a new head).  Here only the headers are pulled;
 * the CRC and the payload consumers read the fragments in place.
 */
#include <linux/export.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "mro_skb.h"
#include "mro_unaligned.h"

int mro_skb_walk(struct sk_buff *skb, u32 off, u32 len, mro_skb_piece_fn fn,
		 void *ctx)
{
	struct skb_seq_state st;
	unsigned int done = 0, n;
	const u8 *data;
	int err = 0;

	if ((u64)off + len > skb->len)
		return -EINVAL;
	if (!len)
		return 0;
	/* all in the linear part (virtio-net at a 1500 MTU): one piece */
	if (off + len <= skb_headlen(skb))
		return fn(ctx, skb->data + off, len);
	skb_prepare_seq_read(skb, off, off + len, &st);
	/* a piece may run past the end of the range: clamp it */
	while (done < len && (n = skb_seq_read(done, &data, &st))) {
		n = min_t(unsigned int, n, len - done);
		err = fn(ctx, data, n);
		if (err)
			break;
		done += n;
	}
	skb_abort_seq_read(&st);
	if (!err && done != len)
		err = -EINVAL;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(mro_skb_walk);

static int mro_skb_crc_piece(void *ctx, const void *data, u32 len)
{
	u32 *state = ctx;

	*state = mro_wire_crc_add(*state, data, len);
	return 0;
}

int mro_skb_decode(struct sk_buff *skb, u32 len, struct mro_hdr *h)
{
	u32 state = MRO_WIRE_CRC_SEED;
	u8 copy[METAROCE_CRC_LEN];
	enum mro_wire_err err;
	const void *field;
	u16 hdr_len;

	len = min(len, skb->len);
	/* the base header, or all there is (mro_wire_peek() refuses it) */
	if (!pskb_may_pull(skb, min_t(u32, len, METAROCE_BTH_LEN)))
		return -ENOMEM;
	err = mro_wire_peek(skb->data, len, &hdr_len);
	if (err != MRO_WIRE_OK)
		return err;
	/* hdr_len + trailer <= len <= skb->len: checked by peek */
	if (!pskb_may_pull(skb, hdr_len))
		return -ENOMEM;
	/* a sealed packet's tag is checked by its connection (mro_prot.c) */
	if (get_unaligned_be16(skb->data + 2) & METAROCE_F_SEALED)
		return mro_wire_parse(skb->data, len, h);

	if (mro_skb_walk(skb, 0, len - METAROCE_CRC_LEN, mro_skb_crc_piece,
			 &state))
		return MRO_WIRE_SHORT;
	field = skb_header_pointer(skb, len - METAROCE_CRC_LEN,
				   METAROCE_CRC_LEN, copy);
	if (!field || !mro_wire_crc_ok(~state, field))
		return MRO_WIRE_CRC;
	return mro_wire_parse(skb->data, len, h);
}
EXPORT_SYMBOL_IF_KUNIT(mro_skb_decode);
