/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce connection negotiation (HELLO): what each end of an RC or UC
 * connection requires of the other, and the rules that decide whether a
 * received HELLO is this connection's, whether the two ends agree, and
 * whether to answer.  Pure C on plain values, driven by KUnit; the QP
 * glue is mro_hello_qp.c.  Protocol: Documentation/metaroce/protocol.rst,
 * "Negotiation".
 */
#ifndef MRO_HELLO_H
#define MRO_HELLO_H

#include <linux/types.h>

#include "mro_wire.h"

/*
 * What one end of a connection requires of the other: all must be equal
 * but the key ids, the end's current and previous device keys, of which
 * the connection takes one both ends hold (mro_hello_key_id()).
 */
struct mro_contract {
	u8 prot;		/* enum metaroce_prot */
	u8 key_id;		/* 0 with METAROCE_PROT_NONE */
	u8 prev_key_id;		/* 0: none */
	u16 ack_every;
	u16 msg_window;
	u16 sack_bits;
	u32 window;
};

/* the first field two contracts differ in, in this order */
enum mro_contract_field {
	MRO_CONTRACT_OK = 0,
	MRO_CONTRACT_PROT,
	MRO_CONTRACT_ACK_EVERY,
	MRO_CONTRACT_MSG_WINDOW,
	MRO_CONTRACT_SACK_BITS,
	MRO_CONTRACT_WINDOW,
	MRO_CONTRACT_NR_FIELDS
};

/* negotiation state of one end of a connection */
struct mro_hello {
	struct mro_contract ours;
	u64 nonce;		/* ours: random, never 0 */
	u64 peer_nonce;		/* the peer's, 0 until its HELLO came */
	u32 psn;		/* our first PSN (sq_psn), from RTS; else 0 */
	u32 peer_psn;		/* the peer's first PSN (rq_psn): its HELLOs' */
	u16 sent;		/* HELLOs sent */
	bool psn_set;		/* @psn is known: the QP reached RTS */
	bool echoed;		/* the peer has our nonce: it echoed it */
	bool failed;		/* the contracts differ: the connection ends */
};

/* what became of a received HELLO */
enum mro_hello_verdict {
	MRO_HELLO_ACCEPT,	/* the contracts agree */
	MRO_HELLO_STALE,	/* not this connection's HELLO: drop it */
	MRO_HELLO_MISMATCH,	/* the contracts differ: end the connection */
};

/* HELLOs an end sends unanswered before it gives up asking */
#define MRO_HELLO_MAX_SENT	16
/* a protected QP without keys repeats its HELLO at least this far apart */
#define MRO_HELLO_MIN_WAIT_US	10000

/*
 * The contract of a connection protected with @prot by an end whose
 * current and previous keys are @key_id and @prev_key_id, with @window
 * PSNs
 */
void mro_contract_local(struct mro_contract *c, u8 prot, u8 key_id,
			u8 prev_key_id, u32 window);
/* the contract a received HELLO announces */
void mro_contract_from_hdr(struct mro_contract *c,
			   const struct mro_hello_hdr *h);
/*
 * The first field @ours and @theirs differ in (MRO_CONTRACT_OK: none),
 * with the two values in *@our_val and *@their_val.
 */
enum mro_contract_field mro_contract_diff(const struct mro_contract *ours,
					  const struct mro_contract *theirs,
					  u32 *our_val, u32 *their_val);
/* the field's name as the protocol document and the kernel log say it */
const char *mro_contract_name(enum mro_contract_field f);

/*
 * Start negotiating a connection whose first PSNs are @psn (ours) and
 * @peer_psn (the peer's), with @nonce (nonzero) and contract @ours.
 */
void mro_hello_init(struct mro_hello *h, const struct mro_contract *ours,
		    u64 nonce, u32 psn, u32 peer_psn);

/*
 * A HELLO @in with PSN @psn arrived from the connection's peer address
 * and QP; @ask: it carries METAROCE_F_ACK_REQ.  Decides, and on
 * MRO_HELLO_ACCEPT or MRO_HELLO_MISMATCH records what it learned; on
 * MRO_HELLO_STALE changes nothing.  *@answer: send our HELLO back (with
 * ACK_REQ iff mro_hello_ask()).  *@field: the mismatching field.
 */
enum mro_hello_verdict mro_hello_rcv(struct mro_hello *h, u32 psn,
				     const struct mro_hello_hdr *in, bool ask,
				     bool *answer,
				     enum mro_contract_field *field);

/*
 * The device key the connection is keyed with, once the peer's HELLO has
 * come with its current and previous key ids: the two ends' common
 * current key; else the one current key the other end holds too; else,
 * if both are held by both, the current key of the end with the lower
 * nonce; else the previous key both hold.  0: they hold no key in common.
 * Both ends reach the same id.
 */
u8 mro_hello_key_id(const struct mro_hello *h, u8 peer_cur, u8 peer_prev);

/* whether our next HELLO asks for one back: the peer has not echoed us */
static inline bool mro_hello_ask(const struct mro_hello *h)
{
	return !h->echoed;
}

/* whether a retransmission timeout should send our HELLO again */
static inline bool mro_hello_resend_due(const struct mro_hello *h)
{
	return h->nonce && h->psn_set && !h->echoed && !h->failed &&
	       h->sent < MRO_HELLO_MAX_SENT;
}

/*
 * Where the negotiation stands, for `rdma resource show qp -dd`: "none"
 * (not begun: before RTR, or a UD QP), "waiting" (the peer's HELLO has
 * not come), "agreed", "failed"
 */
const char *mro_hello_state(const struct mro_hello *h);

/* fill the HELLO extension of our next HELLO */
void mro_hello_fill(const struct mro_hello *h, struct mro_hello_hdr *out);

#endif /* MRO_HELLO_H */
