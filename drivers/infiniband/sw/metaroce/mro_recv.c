// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce receive dispatch: a packet that passed mro_wire_decode() is
 * matched to its QP (number, type, peer) and handed to the responder or
 * the requester under the QP lock.  Their verdict (mro_rxverdict.h) is
 * counted and decides how the packet is freed.  Packets produced in
 * response are sent after the lock is dropped.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>

#include "mro_qp.h"
#include "mro_trace.h"

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

/*
 * How each verdict is counted and freed: consumed (SKB_NOT_DROPPED_YET:
 * the packet was taken, or as a duplicate answered again), else dropped
 * with the reason the drop tracepoint reports.
 */
static const struct {
	enum mro_counter counter;	/* MRO_NR_COUNTERS: counted elsewhere */
	enum skb_drop_reason reason;
} mro_rx_verdicts[MRO_RXV_NR_VERDICTS] = {
	[MRO_RXV_OK] = { MRO_NR_COUNTERS, SKB_NOT_DROPPED_YET },
	[MRO_RXV_NO_QP] = { MRO_CNT_DROP_NO_QP, SKB_DROP_REASON_NO_SOCKET },
	[MRO_RXV_QP_MISMATCH] = { MRO_CNT_DROP_QP_MISMATCH,
				  SKB_DROP_REASON_NO_SOCKET },
	[MRO_RXV_QP_STATE] = { MRO_CNT_DROP_QP_STATE,
			       SKB_DROP_REASON_DEV_READY },
	[MRO_RXV_FIELD] = { MRO_CNT_DROP_FIELD, SKB_DROP_REASON_DEV_HDR },
	[MRO_RXV_WINDOW] = { MRO_CNT_DROP_WINDOW,
			     SKB_DROP_REASON_TCP_OVERWINDOW },
	[MRO_RXV_DUP] = { MRO_CNT_RX_DUP, SKB_NOT_DROPPED_YET },
	[MRO_RXV_DUP_REQ] = { MRO_CNT_DROP_DUP_REQ,
			      SKB_DROP_REASON_TCP_OLD_DATA },
	[MRO_RXV_ERR_AHEAD] = { MRO_CNT_DROP_ERR_AHEAD,
				SKB_DROP_REASON_NOT_SPECIFIED },
	[MRO_RXV_KEY_WAIT] = { MRO_CNT_RX_KEY_WAIT,
			       SKB_DROP_REASON_NOT_SPECIFIED },
	[MRO_RXV_BUSY] = { MRO_CNT_DROP_BUSY, SKB_DROP_REASON_SOCKET_RCVBUFF },
	/* nak_sent counts it */
	[MRO_RXV_FAILED] = { MRO_NR_COUNTERS, SKB_DROP_REASON_NOT_SPECIFIED },
	[MRO_RXV_QKEY] = { MRO_CNT_DROP_QKEY, SKB_DROP_REASON_SOCKET_FILTER },
	[MRO_RXV_NO_WQE] = { MRO_CNT_DROP_NO_WQE,
			     SKB_DROP_REASON_SOCKET_RCVBUFF },
	[MRO_RXV_ACK_RANGE] = { MRO_CNT_DROP_ACK_RANGE,
				SKB_DROP_REASON_TCP_ACK_UNSENT_DATA },
	[MRO_RXV_ACK_ECHO] = { MRO_CNT_DROP_ACK_ECHO,
			       SKB_DROP_REASON_TCP_ACK_UNSENT_DATA },
	[MRO_RXV_STALE_RESP] = { MRO_CNT_DROP_STALE_RESP,
				 SKB_DROP_REASON_TCP_OLD_DATA },
	[MRO_RXV_BAD_FEEDBACK] = { MRO_CNT_CC_BAD_FEEDBACK,
				   SKB_DROP_REASON_TCP_ACK_UNSENT_DATA },
	/* a valid HELLO, taken: its sender disagrees with us */
	[MRO_RXV_NEGOTIATION] = { MRO_CNT_NEGOTIATION_FAILED,
				  SKB_NOT_DROPPED_YET },
	[MRO_RXV_AUTH] = { MRO_CNT_DROP_AUTH, SKB_DROP_REASON_SOCKET_FILTER },
	[MRO_RXV_REPLAY] = { MRO_CNT_DROP_REPLAY,
			     SKB_DROP_REASON_TCP_OLD_DATA },
	[MRO_RXV_UNKEYED] = { MRO_CNT_DROP_UNKEYED,
			      SKB_DROP_REASON_DEV_READY },
	[MRO_RXV_NOMEM] = { MRO_CNT_DROP_NOMEM, SKB_DROP_REASON_NOMEM },
	/* never passed here: mro_dgram.c owns the packet */
	[MRO_RXV_HELD] = { MRO_NR_COUNTERS, SKB_NOT_DROPPED_YET },
};

/*
 * The end of every received packet: its verdict counted (on @qp and the
 * port, or the port alone), a refusal traced, the skb consumed or dropped
 * with the verdict's reason.
 */
static void mro_rx_done(struct mro_dev *dev, struct mro_qp *qp,
			struct sk_buff *skb, const struct mro_hdr *hdr,
			enum mro_rx_verdict v)
{
	enum mro_counter c = mro_rx_verdicts[v].counter;
	enum skb_drop_reason reason = mro_rx_verdicts[v].reason;

	if (c != MRO_NR_COUNTERS) {
		if (qp)
			mro_qp_count(qp, c, 1);
		else
			mro_count(dev->stats, c, 1);
	}
	if (reason == SKB_NOT_DROPPED_YET) {
		consume_skb(skb);
		return;
	}
	trace_mro_rx_drop(hdr->dqpn, hdr->psn, hdr->opcode, v);
	kfree_skb_reason(skb, reason);
}

/*
 * The echoes of the QP's own timestamps (an ACK's ts_echo, a READ
 * response's ts_echo) back from the wire clock to mro_now_us()
 * (mro_qp_tsval()); a READ response's 0, no echo, stays 0.
 */
static void mro_echo_to_local(const struct mro_qp *qp, struct mro_hdr *hdr)
{
	if (hdr->opcode == METAROCE_OP_ACK)
		hdr->ack.ts_echo -= qp->req.ts_off;
	else if (hdr->opcode == METAROCE_OP_READ_RESP && hdr->rresp.ts_echo)
		hdr->rresp.ts_echo -= qp->req.ts_off;
}

/* the handler of an accepted packet, by its opcode's row (mro_opcode.h) */
static enum mro_rx_verdict mro_rcv_qp(struct mro_qp *qp,
				      const struct mro_hdr *hdr,
				      struct sk_buff *skb,
				      struct sk_buff_head *out)
{
	const struct mro_opinfo *op = mro_op(hdr->opcode);

	switch (op->rx) {
	case MRO_OPRX_UD:
		return mro_resp_ud_rcv(qp, hdr, skb);
	case MRO_OPRX_PROBE:
		return mro_resp_probe(qp, hdr, out);
	case MRO_OPRX_HELLO:
		return mro_hello_qp_rcv(qp, hdr, out);
	default:
		if (op->mask & MRO_OPM_REQUEST)
			return mro_resp_rcv(qp, hdr, skb, out);
		return mro_req_rcv(qp, hdr, skb, out);
	}
}

void mro_rcv(struct mro_dev *dev, struct sk_buff *skb, struct mro_hdr *hdr)
{
	bool ud = mro_op_is(hdr->opcode, MRO_OPM_DATAGRAM);
	enum mro_rx_verdict v = MRO_RXV_OK;
	struct mro_qp *qp = NULL;
	struct sk_buff_head out;

	/* a datagram is opened once, before any QP or group sees it */
	if (ud) {
		v = mro_dgram_open(dev, skb, hdr);
		if (v == MRO_RXV_HELD)
			return;		/* until its sender's key is derived */
		if (v != MRO_RXV_OK)
			goto done;
	}
	if (hdr->dqpn == METAROCE_QPN_MASK && ud) {
		v = mro_mcast_rcv(dev, skb, hdr);
		goto done;
	}
	qp = mro_qp_get(dev, hdr->dqpn);
	if (!qp) {
		v = MRO_RXV_NO_QP;
		goto done;
	}
	/*
	 * A connection's QP before RTR has no peer to match: nothing is
	 * its yet (the HELLO of a peer that reached RTS first comes so)
	 */
	if (!mro_qp_is_ud(qp) && READ_ONCE(qp->state) < IB_QPS_RTR) {
		v = MRO_RXV_QP_STATE;
		goto done;
	}
	/* the packet's kind must match the QP's type and its peer */
	if (mro_qp_is_ud(qp)) {
		if (!ud)
			v = MRO_RXV_QP_MISMATCH;
	} else if (ud || hdr->sqpn != qp->dest_qpn) {
		v = MRO_RXV_QP_MISMATCH;
	}
	if (v != MRO_RXV_OK)
		goto done;
	__skb_queue_head_init(&out);
	spin_lock_bh(&qp->lock);
	if (!mro_qp_is_ud(qp) && !mro_from_peer(qp, skb))
		v = MRO_RXV_QP_MISMATCH;
	else if (!ud)
		v = mro_prot_open(qp, skb, hdr);	/* tag and replay */
	if (v == MRO_RXV_OK) {
		mro_qp_count_rx(qp, skb->len);
		mro_echo_to_local(qp, hdr);
		v = mro_rcv_qp(qp, hdr, skb, &out);
	}
	mro_qp_queue_tx(qp, &out);
	spin_unlock_bh(&qp->lock);
	mro_qp_tx_drain(qp);
	mro_qp_notify_cqs(qp);
	if (qp->state == IB_QPS_ERR)
		mro_qp_flush(qp);
	if (v == MRO_RXV_NEGOTIATION)
		mro_qp_event(qp, IB_EVENT_QP_FATAL);
done:
	mro_rx_done(dev, qp, skb, hdr, v);
	if (qp)
		mro_qp_put(qp);
}
