// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce receive dispatch: a packet that passed mro_wire_decode() is
 * matched to its QP (number, type, state, peer) and handed to the
 * responder or the requester under the QP lock.  Packets produced in
 * response are sent after the lock is dropped.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>

#include "mro_qp.h"

static bool mro_ud_opcode(u8 op)
{
	return op == METAROCE_OP_UD_SEND || op == METAROCE_OP_UD_SEND_IMM;
}

/*
 * RC/UC: the packet comes from the peer's IP address (any UDP source
 * port: those are the paths).  Called under qp->lock (modify_qp sets the
 * address).
 */
static bool mro_from_peer(struct mro_qp *qp, struct sk_buff *skb)
{
	if (ip_hdr(skb)->version == 4)
		return qp->av.family == AF_INET &&
		       ip_hdr(skb)->saddr == qp->av.daddr.v4;
	return qp->av.family == AF_INET6 &&
	       ipv6_addr_equal(&ipv6_hdr(skb)->saddr, &qp->av.daddr.v6);
}

/* a request: the ACK it carries first, so its WQEs complete before it */
static void mro_rcv_request(struct mro_qp *qp, const struct mro_hdr *hdr,
			    struct sk_buff *skb, struct sk_buff_head *out)
{
	if (hdr->flags & METAROCE_F_ACK_PIGGY)
		mro_req_ack_piggy(qp, hdr->ack_psn, out);
	mro_resp_rcv(qp, hdr, skb, out);
}

void mro_rcv(struct mro_dev *dev, struct sk_buff *skb,
	     const struct mro_hdr *hdr)
{
	struct sk_buff_head out;
	struct mro_qp *qp;

	if (hdr->dqpn == METAROCE_QPN_MASK && mro_ud_opcode(hdr->opcode)) {
		mro_mcast_rcv(dev, skb, hdr);
		goto free;
	}
	qp = mro_qp_get(dev, hdr->dqpn);
	if (!qp) {
		mro_count(dev->stats, MRO_CNT_DROP_NO_QP, 1);
		goto free;
	}
	/* the packet's kind must match the QP's type and its peer */
	if (mro_qp_is_ud(qp)) {
		if (!mro_ud_opcode(hdr->opcode))
			goto mismatch;
	} else if (mro_ud_opcode(hdr->opcode) || hdr->sqpn != qp->dest_qpn) {
		goto mismatch;
	}
	__skb_queue_head_init(&out);
	spin_lock_bh(&qp->lock);
	if (!mro_qp_is_ud(qp) && !mro_from_peer(qp, skb)) {
		spin_unlock_bh(&qp->lock);
		goto mismatch;
	}
	mro_qp_count_rx(qp, skb->len);
	if (mro_ud_opcode(hdr->opcode))
		mro_resp_ud_rcv(qp, hdr, skb);
	else if (hdr->opcode == METAROCE_OP_PROBE)
		mro_resp_probe(qp, hdr, &out);
	else if (mro_wire_is_request(hdr->opcode))
		mro_rcv_request(qp, hdr, skb, &out);
	else
		mro_req_rcv(qp, hdr, skb, &out);
	mro_qp_queue_tx(qp, &out);
	spin_unlock_bh(&qp->lock);
	mro_qp_tx_drain(qp);
	mro_qp_notify_cqs(qp);
	if (qp->state == IB_QPS_ERR)
		mro_qp_flush(qp);
	goto put;

mismatch:
	mro_count(dev->stats, MRO_CNT_DROP_QP_MISMATCH, 1);
put:
	mro_qp_put(qp);
free:
	kfree_skb(skb);
}
