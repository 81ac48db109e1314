/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce responder acceptance rules for requests that can fail or be
 * replayed (protocol.rst, "Responder acceptance"):
 *  - an error that ends the connection (a NAK other than RNR) is acted on
 *    only for the packet at the next expected PSN; a failing packet ahead
 *    of it is dropped and counted, and its sender's resend is judged when
 *    its turn comes (IB acts on a request's error in PSN order), so a blind
 *    packet that lands anywhere in the receive window cannot end the QP;
 *  - a duplicate READ_REQ is answered again only when it asks for part of
 *    a READ the responder executed and still remembers (its responder
 *    resource: PSNs, address, key, segment size), as IB's responder
 *    resources are replayed; anything else is dropped and counted.  The
 *    requester splits a large READ into READ_REQs at consecutive PSNs and
 *    offsets; they extend one resource, so that a READ WQE takes one, as
 *    max_dest_rd_atomic counts them.
 * Pure C on plain values (KUnit drives it).
 */
#ifndef MRO_RESPRES_H
#define MRO_RESPRES_H

#include <linux/types.h>

/* a READ the responder executed: the responder resource it holds */
struct mro_read_res {
	u32 psn;		/* the READ_REQ's PSN, its first response's */
	u32 npsn;		/* response PSNs */
	u64 va;			/* the request's va (its offset is apart) */
	u32 rkey;
	u32 offset;		/* byte offset of the first response */
	u64 end;		/* offset + length */
	u32 seg;		/* payload per response */
	bool valid;
};

/* may a failing request packet with @psn end the QP (next expected: @base)? */
static inline bool mro_resp_may_fail(u32 psn, u32 base)
{
	return psn == base;
}

/*
 * Is the READ_REQ (@psn, @va, @rkey, @seg, @offset) executed just after
 * @r the next part of the same READ: same address, key and segment size,
 * its first PSN and first byte right after @r's last ones?
 */
static inline bool mro_read_res_extends(const struct mro_read_res *r,
					u32 psn, u64 va, u32 rkey, u32 seg,
					u32 offset)
{
	return r->valid && va == r->va && rkey == r->rkey && seg == r->seg &&
	       psn == r->psn + r->npsn && offset == r->end;
}

/*
 * Does the duplicate READ_REQ (@psn, @va, @rkey, @seg, @offset, @len) ask
 * for responses of @r: the same READ (address, key, segment size), a PSN
 * among its responses, at that response's offset, within its length?
 * This is what a requester resends for a lost response.
 */
static inline bool mro_read_replay_ok(const struct mro_read_res *r, u32 psn,
				      u64 va, u32 rkey, u32 seg, u32 offset,
				      u32 len)
{
	u32 k = psn - r->psn;

	if (!r->valid || va != r->va || rkey != r->rkey || seg != r->seg ||
	    !seg || k >= r->npsn)
		return false;
	if ((u64)k * seg + r->offset != offset)
		return false;
	return (u64)offset + len <= r->end;
}

#endif /* MRO_RESPRES_H */
