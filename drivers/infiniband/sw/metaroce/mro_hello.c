// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce connection negotiation: the pure rules of mro_hello.h.
 *
 * A HELLO belongs to the connection when it carries the peer's first PSN
 * (the rq_psn the connection was set up with: a blind sender must guess
 * it and the QP numbers) or echoes our nonce (an answer from a peer in
 * RTR, which does not know its own first PSN yet), the peer's nonce once
 * one was seen (a HELLO of an earlier connection between the same QP
 * numbers carries another), and, if it echoes a nonce, ours.  Only then
 * are the contracts compared.
 */
#include <linux/export.h>
#include <kunit/visibility.h>

#include "mro_hello.h"

void mro_contract_local(struct mro_contract *c, u8 prot, u8 key_id,
			u8 prev_key_id, u32 window)
{
	c->prot = prot;
	c->key_id = key_id;
	c->prev_key_id = prev_key_id;
	c->ack_every = METAROCE_ACK_EVERY;
	c->msg_window = METAROCE_MSG_WINDOW;
	c->sack_bits = METAROCE_SACK_BITS;
	c->window = window;
}
EXPORT_SYMBOL_IF_KUNIT(mro_contract_local);

void mro_contract_from_hdr(struct mro_contract *c,
			   const struct mro_hello_hdr *h)
{
	c->prot = h->prot;
	c->key_id = h->key_id;
	c->prev_key_id = h->prev_key_id;
	c->ack_every = h->ack_every;
	c->msg_window = h->msg_window;
	c->sack_bits = h->sack_bits;
	c->window = h->window;
}
EXPORT_SYMBOL_IF_KUNIT(mro_contract_from_hdr);

enum mro_contract_field mro_contract_diff(const struct mro_contract *ours,
					  const struct mro_contract *theirs,
					  u32 *our_val, u32 *their_val)
{
	const u32 a[MRO_CONTRACT_NR_FIELDS] = {
		[MRO_CONTRACT_PROT] = ours->prot,
		[MRO_CONTRACT_ACK_EVERY] = ours->ack_every,
		[MRO_CONTRACT_MSG_WINDOW] = ours->msg_window,
		[MRO_CONTRACT_SACK_BITS] = ours->sack_bits,
		[MRO_CONTRACT_WINDOW] = ours->window,
	};
	const u32 b[MRO_CONTRACT_NR_FIELDS] = {
		[MRO_CONTRACT_PROT] = theirs->prot,
		[MRO_CONTRACT_ACK_EVERY] = theirs->ack_every,
		[MRO_CONTRACT_MSG_WINDOW] = theirs->msg_window,
		[MRO_CONTRACT_SACK_BITS] = theirs->sack_bits,
		[MRO_CONTRACT_WINDOW] = theirs->window,
	};
	int f;

	for (f = MRO_CONTRACT_OK + 1; f < MRO_CONTRACT_NR_FIELDS; f++) {
		if (a[f] != b[f]) {
			*our_val = a[f];
			*their_val = b[f];
			return f;
		}
	}
	*our_val = 0;
	*their_val = 0;
	return MRO_CONTRACT_OK;
}
EXPORT_SYMBOL_IF_KUNIT(mro_contract_diff);

const char *mro_contract_name(enum mro_contract_field f)
{
	static const char * const names[MRO_CONTRACT_NR_FIELDS] = {
		[MRO_CONTRACT_OK] = "none",
		[MRO_CONTRACT_PROT] = "protection",
		[MRO_CONTRACT_ACK_EVERY] = "ack_every",
		[MRO_CONTRACT_MSG_WINDOW] = "msg_window",
		[MRO_CONTRACT_SACK_BITS] = "sack_bits",
		[MRO_CONTRACT_WINDOW] = "window",
	};

	if ((unsigned int)f >= MRO_CONTRACT_NR_FIELDS)
		return "?";
	return names[f];
}
EXPORT_SYMBOL_IF_KUNIT(mro_contract_name);

void mro_hello_init(struct mro_hello *h, const struct mro_contract *ours,
		    u64 nonce, u32 psn, u32 peer_psn)
{
	*h = (struct mro_hello) {
		.ours = *ours,
		.nonce = nonce,
		.psn = psn,
		.peer_psn = peer_psn,
	};
}
EXPORT_SYMBOL_IF_KUNIT(mro_hello_init);

enum mro_hello_verdict mro_hello_rcv(struct mro_hello *h, u32 psn,
				     const struct mro_hello_hdr *in, bool ask,
				     bool *answer,
				     enum mro_contract_field *field)
{
	struct mro_contract theirs;
	u32 ours_v, theirs_v;

	*answer = false;
	*field = MRO_CONTRACT_OK;
	if (!h->nonce || h->failed || !in->nonce)
		return MRO_HELLO_STALE;
	if (in->echo && in->echo != h->nonce)
		return MRO_HELLO_STALE;
	/* the peer's first PSN, or an answer that echoes our nonce */
	if (psn != h->peer_psn && !in->echo)
		return MRO_HELLO_STALE;
	if (h->peer_nonce && in->nonce != h->peer_nonce)
		return MRO_HELLO_STALE;

	h->peer_nonce = in->nonce;
	mro_contract_from_hdr(&theirs, in);
	*field = mro_contract_diff(&h->ours, &theirs, &ours_v, &theirs_v);
	if (*field != MRO_CONTRACT_OK) {
		/* once, so the peer sees our values even if ours was lost */
		h->failed = true;
		*answer = true;
		return MRO_HELLO_MISMATCH;
	}
	if (in->echo == h->nonce)
		h->echoed = true;
	*answer = ask || !h->echoed;
	return MRO_HELLO_ACCEPT;
}
EXPORT_SYMBOL_IF_KUNIT(mro_hello_rcv);

/* whether both ends hold key @id */
static bool mro_key_common(u8 id, u8 a_cur, u8 a_prev, u8 b_cur, u8 b_prev)
{
	return id && (id == a_cur || id == a_prev) &&
	       (id == b_cur || id == b_prev);
}

u8 mro_hello_key_id(const struct mro_hello *h, u8 peer_cur, u8 peer_prev)
{
	u8 cur = h->ours.key_id, prev = h->ours.prev_key_id;
	bool ours, theirs;

	if (cur && cur == peer_cur)
		return cur;
	ours = mro_key_common(cur, cur, prev, peer_cur, peer_prev);
	theirs = mro_key_common(peer_cur, cur, prev, peer_cur, peer_prev);
	if (ours && theirs)
		return h->nonce < h->peer_nonce ? cur : peer_cur;
	if (ours)
		return cur;
	if (theirs)
		return peer_cur;
	if (mro_key_common(prev, cur, prev, peer_cur, peer_prev))
		return prev;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_hello_key_id);

const char *mro_hello_state(const struct mro_hello *h)
{
	if (h->failed)
		return "failed";
	if (!h->nonce)
		return "none";
	return h->peer_nonce ? "agreed" : "waiting";
}
EXPORT_SYMBOL_IF_KUNIT(mro_hello_state);

void mro_hello_fill(const struct mro_hello *h, struct mro_hello_hdr *out)
{
	out->prot = h->ours.prot;
	out->key_id = h->ours.key_id;
	out->prev_key_id = h->ours.prev_key_id;
	out->ack_every = h->ours.ack_every;
	out->msg_window = h->ours.msg_window;
	out->sack_bits = h->ours.sack_bits;
	out->window = h->ours.window;
	out->nonce = h->nonce;
	out->echo = h->peer_nonce;
}
EXPORT_SYMBOL_IF_KUNIT(mro_hello_fill);
