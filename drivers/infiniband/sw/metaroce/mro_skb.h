/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce receive over a non-linear skb: only the headers are pulled into
 * the linear area; the CRC and the payload are read where the skb keeps
 * them (head, page fragments, frag list).
 */
#ifndef MRO_SKB_H
#define MRO_SKB_H

#include <linux/skbuff.h>

#include "mro_wire.h"

/* called on each contiguous piece of a range, in order; nonzero stops */
typedef int (*mro_skb_piece_fn)(void *ctx, const void *data, u32 len);

/*
 * Call @fn on the bytes [@off, @off + @len) of @skb, piece by piece.
 * Returns 0, -EINVAL if the range is not inside @skb, or what @fn returned.
 */
int mro_skb_walk(struct sk_buff *skb, u32 off, u32 len, mro_skb_piece_fn fn,
		 void *ctx);

/*
 * Validate and decode the metaroce packet at @skb->data, @len bytes (CRC
 * included; at most @skb->len), into @h.  Pulls the headers into the
 * linear area (so @skb->data may move) and checks the CRC over the whole
 * packet.  Returns MRO_WIRE_OK, another enum mro_wire_err, or -ENOMEM when
 * the headers could not be pulled.  The payload is the bytes
 * [h->hdr_len, h->hdr_len + h->payload_len) of @skb.
 */
int mro_skb_decode(struct sk_buff *skb, u32 len, struct mro_hdr *h);

#endif /* MRO_SKB_H */
