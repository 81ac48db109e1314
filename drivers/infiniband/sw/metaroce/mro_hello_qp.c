// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce connection negotiation on a QP: the HELLO an RC or UC QP sends
 * when it enters RTS, again with each retransmission timeout until the
 * peer has echoed it, the answer to the peer's, and the end of a
 * connection whose two ends disagree (mro_hello.c decides).  Every
 * function runs under qp->lock.
 */
#include <linux/random.h>

#include "mro_devkey.h"
#include "mro_qp.h"
#include "mro_rto.h"

/* the QP enters RTR: its nonce and contract, the peer's first PSN */
void mro_hello_prepare(struct mro_qp *qp)
{
	struct mro_contract c;
	u64 nonce;

	lockdep_assert_held(&qp->lock);
	if (mro_qp_is_ud(qp))
		return;
	do {
		nonce = get_random_u64();
	} while (!nonce);
	if (qp->prot)
		mro_contract_local(&c, qp->prot->mode, qp->prot->key_id,
				   qp->prot->prev_key_id, qp->req.win);
	else
		mro_contract_local(&c, METAROCE_PROT_NONE, 0, 0, qp->req.win);
	/* our first PSN is known at RTS (mro_hello_start()) */
	mro_hello_init(&qp->hello, &c, nonce, 0, qp->resp.win.base);
}

static void mro_hello_send(struct mro_qp *qp, struct sk_buff_head *out)
{
	struct mro_hdr hdr = {};
	struct sk_buff *skb;
	void *payload;

	hdr.opcode = METAROCE_OP_HELLO;
	hdr.flags = mro_hello_ask(&qp->hello) ? METAROCE_F_ACK_REQ : 0;
	hdr.sqpn = qp->qpn;
	hdr.dqpn = qp->dest_qpn;
	hdr.psn = qp->hello.psn;
	hdr.tsval = mro_qp_tsval(qp, mro_now_us());
	mro_hello_fill(&qp->hello, &hdr.hello);
	skb = mro_tx_build(qp, &qp->av, &hdr, 0, &payload);
	if (!skb)
		return;
	mro_tx_seal(skb);
	__skb_queue_tail(out, skb);
	qp->hello.sent++;
	mro_count(qp->dev->stats, MRO_CNT_HELLO_SENT, 1);
}

/* a protected QP without keys waits for HELLOs with this timer */
static void mro_hello_arm(struct mro_qp *qp)
{
	u64 us = max_t(u64, ktime_to_us(qp->req.rto), MRO_HELLO_MIN_WAIT_US);

	mro_rto_start(qp, mro_rto_backoff(us, min_t(u32, qp->hello.sent,
						    MRO_RTO_MAX_BACKOFF)));
}

/* the QP enters RTS: its first HELLO, its first PSN in it */
void mro_hello_start(struct mro_qp *qp, struct sk_buff_head *out)
{
	lockdep_assert_held(&qp->lock);
	if (mro_qp_is_ud(qp) || !qp->hello.nonce || qp->hello.psn_set)
		return;
	qp->hello.psn = qp->req.nxt;
	qp->hello.psn_set = true;
	mro_hello_send(qp, out);
	if (!mro_prot_tx_ready(qp->prot)) {
		mro_hello_arm(qp);
		mro_prot_schedule(qp);	/* if the peer's HELLO came in RTR */
	}
}

/*
 * The RTO timer of a protected QP that has no keys yet: it repeats its
 * HELLO until the peer's comes, and gives up after MRO_HELLO_MAX_SENT.
 */
void mro_hello_unkeyed_rto(struct mro_qp *qp, struct sk_buff_head *out)
{
	lockdep_assert_held(&qp->lock);
	if (qp->hello.failed)
		return;
	if (!qp->hello.peer_nonce && qp->hello.sent >= MRO_HELLO_MAX_SENT) {
		ibdev_warn_ratelimited(&qp->dev->ib_dev,
				       "QP %u: no HELLO from peer QP %u after %u of ours: connection ended\n",
				       qp->qpn, qp->dest_qpn, qp->hello.sent);
		mro_qp_error(qp);
		return;
	}
	if (!qp->hello.peer_nonce)
		mro_hello_send(qp, out);
	mro_hello_arm(qp);	/* keys on their way, or the peer's HELLO */
}

/* a retransmission timeout: the peer may not have our HELLO */
void mro_hello_resend(struct mro_qp *qp, struct sk_buff_head *out)
{
	lockdep_assert_held(&qp->lock);
	if (mro_hello_resend_due(&qp->hello))
		mro_hello_send(qp, out);
}

/* the contracts differ: say which field and both values, end the QP */
static void mro_hello_fail(struct mro_qp *qp, const struct mro_hdr *hdr,
			   enum mro_contract_field field)
{
	struct mro_contract theirs;
	u32 ours_v, theirs_v;

	mro_contract_from_hdr(&theirs, &hdr->hello);
	mro_contract_diff(&qp->hello.ours, &theirs, &ours_v, &theirs_v);
	if (field == MRO_CONTRACT_PROT)
		ibdev_warn_ratelimited(&qp->dev->ib_dev,
				       "QP %u: peer QP %u wants protection %s, this end %s: connection ended\n",
				       qp->qpn, qp->dest_qpn,
				       mro_prot_name((enum mro_prot)theirs_v),
				       mro_prot_name((enum mro_prot)ours_v));
	else
		ibdev_warn_ratelimited(&qp->dev->ib_dev,
				       "QP %u: peer QP %u has %s %u, this end %u: connection ended\n",
				       qp->qpn, qp->dest_qpn,
				       mro_contract_name(field), theirs_v,
				       ours_v);
	mro_qp_error(qp);
}

enum mro_rx_verdict mro_hello_qp_rcv(struct mro_qp *qp,
				     const struct mro_hdr *hdr,
				     struct sk_buff_head *out)
{
	enum mro_contract_field field;
	enum mro_hello_verdict v;
	bool answer, can_send;

	lockdep_assert_held(&qp->lock);
	if (mro_qp_is_ud(qp))
		return MRO_RXV_QP_MISMATCH;
	if (qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR)
		return MRO_RXV_QP_STATE;
	v = mro_hello_rcv(&qp->hello, hdr->psn, &hdr->hello,
			  hdr->flags & METAROCE_F_ACK_REQ, &answer, &field);
	if (v == MRO_HELLO_STALE)
		return MRO_RXV_FIELD;
	/*
	 * In RTR our first PSN is not known: the answer carries 0, and the
	 * peer takes it for the echo of its nonce
	 */
	can_send = qp->state == IB_QPS_RTR || qp->state == IB_QPS_RTS ||
		   qp->state == IB_QPS_SQD;
	if (answer && can_send)
		mro_hello_send(qp, out);
	if (v == MRO_HELLO_MISMATCH) {
		mro_hello_fail(qp, hdr, field);
		return MRO_RXV_NEGOTIATION;
	}
	if (mro_prot_choose_key(qp, hdr->hello.key_id,
				hdr->hello.prev_key_id)) {
		ibdev_warn_ratelimited(&qp->dev->ib_dev,
				       "QP %u: peer QP %u holds device keys %u and %u, this end %u and %u: no key in common, connection ended\n",
				       qp->qpn, qp->dest_qpn, hdr->hello.key_id,
				       hdr->hello.prev_key_id,
				       qp->hello.ours.key_id,
				       qp->hello.ours.prev_key_id);
		qp->hello.failed = true;
		mro_qp_error(qp);
		return MRO_RXV_NEGOTIATION;
	}
	mro_count(qp->dev->stats, MRO_CNT_HELLO_RCVD, 1);
	mro_prot_schedule(qp);
	return MRO_RXV_OK;
}
