// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librefpeer: the HELLO negotiation (protocol.rst, Negotiation).  Each end
 * announces its contract (protection, ACK rhythm, message window, SACK
 * size, window) and a random nonce; a difference ends the connection with
 * a message naming the field and both values.  A protected connection
 * chooses the device key both ends hold and derives its keys from the two
 * HELLOs (rp_crypto.c); until then it sends nothing but HELLO.
 */
#include <string.h>

#include "rp_internal.h"

#define RP_HELLO_MAX	16

int rp_hello_send(struct rp_ep *ep, bool ask)
{
	struct mro_hdr h;

	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_HELLO;
	h.psn = ep->cfg.sq_psn;
	if (ask)
		h.flags = METAROCE_F_ACK_REQ;
	h.hello.prot = ep->cfg.prot;
	if (ep->cfg.prot != METAROCE_PROT_NONE) {
		h.hello.key_id = ep->cfg.key_id;
		h.hello.prev_key_id = ep->cfg.prev_key_id;
	}
	h.hello.ack_every = ep->cfg.ack_every;
	h.hello.msg_window = ep->cfg.msg_window;
	h.hello.sack_bits = ep->cfg.sack_bits;
	h.hello.window = ep->cfg.window;
	h.hello.nonce = ep->nonce;
	h.hello.echo = ep->peer_nonce;
	ep->hello_sent_n++;
	ep->st.hello_sent++;
	return rp_xmit(ep, &h, NULL, 0, 0);
}

void rp_hello_start(struct rp_ep *ep)
{
	u32 ivl = (4096ULL << ep->cfg.timeout) / 1000;

	ep->hello_ivl_us = ivl < 10000 ? 10000 : ivl;
	ep->hello_ivl_max_us = ep->hello_ivl_us * 64;	/* 6 doublings at most */
	rp_hello_send(ep, true);
	ep->hello_due_us = rp_now_us() + ep->hello_ivl_us;
}

void rp_hello_timer(struct rp_ep *ep, u64 now)
{
	if (!ep->hello_due_us || now < ep->hello_due_us || ep->dead)
		return;
	if (ep->hello_rcvd && ep->hello_echoed) {
		ep->hello_due_us = 0;
		return;
	}
	if (ep->hello_sent_n >= RP_HELLO_MAX) {
		ep->hello_due_us = 0;
		if (!ep->hello_rcvd && ep->cfg.prot != METAROCE_PROT_NONE)
			rp_fail(ep, "QP %u: no HELLO from peer QP %u after %u of ours: connection ended",
				ep->cfg.qpn, ep->cfg.peer_qpn, RP_HELLO_MAX);
		return;
	}
	rp_hello_send(ep, true);
	if (ep->hello_ivl_us < ep->hello_ivl_max_us)
		ep->hello_ivl_us *= 2;
	ep->hello_due_us = now + ep->hello_ivl_us;
}

static const char *const prot_name[] = { "none", "auth", "encrypt" };

static bool contract_differs(struct rp_ep *ep, const struct mro_hello_hdr *p)
{
	const char *field = NULL;
	u32 mine = 0, theirs = 0;

	if (p->prot != ep->cfg.prot) {
		rp_hello_send(ep, false);
		rp_fail(ep, "QP %u: peer QP %u has protection %s, this end %s: connection ended",
			ep->cfg.qpn, ep->cfg.peer_qpn, prot_name[p->prot],
			prot_name[ep->cfg.prot]);
		return true;
	}
	if (p->ack_every != ep->cfg.ack_every) {
		field = "ack_every";
		mine = ep->cfg.ack_every;
		theirs = p->ack_every;
	} else if (p->msg_window != ep->cfg.msg_window) {
		field = "msg_window";
		mine = ep->cfg.msg_window;
		theirs = p->msg_window;
	} else if (p->sack_bits != ep->cfg.sack_bits) {
		field = "sack_bits";
		mine = ep->cfg.sack_bits;
		theirs = p->sack_bits;
	} else if (p->window != ep->cfg.window) {
		field = "window";
		mine = ep->cfg.window;
		theirs = p->window;
	}
	if (!field)
		return false;
	rp_hello_send(ep, false);
	rp_fail(ep, "QP %u: peer QP %u has %s %u, this end %u: connection ended",
		ep->cfg.qpn, ep->cfg.peer_qpn, field, theirs, mine);
	return true;
}

/* rule 4: the device key both ends hold; 0 if none */
static u8 choose_key(struct rp_ep *ep, const struct mro_hello_hdr *p)
{
	u8 c1 = ep->cfg.key_id, p1 = ep->cfg.prev_key_id;
	u8 c2 = p->key_id, p2 = p->prev_key_id;
	bool mine_held = c1 && c1 == p2, theirs_held = c2 && c2 == p1;

	if (c1 && c1 == c2)
		return c1;
	if (mine_held && !theirs_held)
		return c1;
	if (theirs_held && !mine_held)
		return c2;
	if (mine_held && theirs_held)
		return ep->nonce < p->nonce ? c1 : c2;
	if (p1 && p1 == p2)
		return p1;
	return 0;
}

void rp_hello_rx(struct rp_ep *ep, const struct mro_hdr *h)
{
	const struct mro_hello_hdr *p = &h->hello;
	bool first = !ep->hello_rcvd;
	u8 key;

	/* rule 1 */
	if ((h->psn != ep->cfg.rq_psn && p->echo != ep->nonce) ||
	    (ep->peer_nonce && p->nonce != ep->peer_nonce) ||
	    (p->echo && p->echo != ep->nonce)) {
		ep->st.rx_drop_field++;
		return;
	}
	/* rule 2 */
	ep->peer_nonce = p->nonce;
	if (p->echo == ep->nonce)
		ep->hello_echoed = true;
	/* rule 3 */
	if (contract_differs(ep, p)) {
		ep->st.negotiation_failed++;
		return;
	}
	/* rule 4 */
	if (first && ep->cfg.prot != METAROCE_PROT_NONE) {
		key = choose_key(ep, p);
		if (!key) {
			ep->st.negotiation_failed++;
			rp_hello_send(ep, false);
			rp_fail(ep, "QP %u: peer QP %u holds keys %u/%u, this end %u/%u: no key in common, connection ended",
				ep->cfg.qpn, ep->cfg.peer_qpn, p->key_id,
				p->prev_key_id, ep->cfg.key_id,
				ep->cfg.prev_key_id);
			return;
		}
		if (key != ep->cfg.key_id) {
			rp_hello_send(ep, false);
			rp_fail(ep, "QP %u: the negotiation chose key id %u; this peer holds only the bytes of key id %u",
				ep->cfg.qpn, key, ep->cfg.key_id);
			return;
		}
		ep->chosen_key_id = key;
		ep->crypto = rp_crypto_new(ep);
		if (!ep->crypto) {
			rp_fail(ep, "QP %u: key derivation failed", ep->cfg.qpn);
			return;
		}
	}
	/* rule 5 */
	ep->hello_rcvd = true;
	ep->st.hello_rcvd++;
	if ((h->flags & METAROCE_F_ACK_REQ) || !ep->hello_echoed)
		rp_hello_send(ep, !ep->hello_echoed);
}
