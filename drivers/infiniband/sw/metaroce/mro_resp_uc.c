// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce UC responder under loss.  UC sends no ACKs and never
 * retransmits, so a lost packet would leave a hole in the receive window
 * and an unfinished message in the message ring for ever.  Instead the
 * responder gives up a PSN once later traffic is far enough past it (the
 * reordering allowance of multipath delivery), and drops a message once
 * all of its PSNs are received or given up and it is still incomplete:
 * it posts no completion and its receive WQE goes to the next message.
 * See protocol.rst, "UC: loss".
 */
#include "mro_psn.h"
#include "mro_qp.h"
#include "mro_ucgap.h"

/* the slot of message @msn if that message has claimed it */
static struct mro_rmsg *mro_uc_slot(struct mro_qp *qp, u32 msn)
{
	struct mro_rmsg *m = &qp->resp.rmsg[msn & (qp->resp.nmsg - 1)];

	return m->state != MRO_RMSG_FREE && m->msn == msn ? m : NULL;
}

/* the oldest message after the head that has arrived, or NULL */
static struct mro_rmsg *mro_uc_next_known(struct mro_qp *qp, u32 *msn)
{
	struct mro_rmsg *m;
	u32 k;

	for (k = 1; k < qp->resp.nmsg; k++) {
		m = mro_uc_slot(qp, qp->resp.msn + k);
		if (m) {
			*msn = qp->resp.msn + k;
			return m;
		}
	}
	return NULL;
}

/* a UC request that consumes a receive WQE (SEND_INV is RC's) */
static bool mro_uc_consumes(u8 op)
{
	return (mro_op(op)->mask &
		(MRO_OPM_REQUEST | MRO_OPM_RWQE | MRO_OPM_RC_ONLY)) ==
	       (MRO_OPM_REQUEST | MRO_OPM_RWQE);
}

/* whether any message slot is claimed */
static bool mro_uc_ring_empty(struct mro_qp *qp)
{
	u32 k;

	for (k = 0; k < qp->resp.nmsg; k++)
		if (mro_uc_slot(qp, qp->resp.msn + k))
			return false;
	return true;
}

/*
 * Whether the head message (rcv_msn) can no longer complete: every PSN it
 * has is behind the window base (received or given up), yet it is not
 * done.  Its last PSN is known from its LAST packet, or bounded by the
 * first PSN of any later message (the fence: the latest packet seen says
 * that the messages before its msn precede its first PSN).
 */
static bool mro_uc_head_lost(struct mro_qp *qp)
{
	struct mro_rmsg *m = mro_uc_slot(qp, qp->resp.msn), *n;
	u32 base = qp->resp.win.base, msn;

	if (m && m->state == MRO_RMSG_DONE)
		return false;	/* complete; waits for the base only */
	if (m && m->got_last && mro_seq_after(base, m->last_psn))
		return true;
	if (mro_seq_after(qp->resp.uc_fence_msn, qp->resp.msn) &&
	    mro_seq_before_eq(qp->resp.uc_fence_psn, base))
		return true;
	n = mro_uc_next_known(qp, &msn);
	return n && mro_seq_before_eq(n->first_psn, base);
}

/*
 * Hand the head message's receive WQE to the next message.  With an RQ,
 * message msn owns the WQE (msn - rcv_msn) places after the consumer;
 * later messages may already have claimed theirs (they hold copies), so
 * the ring elements from the consumer to the last one claimed rotate left
 * by one: every claimed message keeps its place relative to the new
 * rcv_msn and the head's WQE goes to the first message not yet claimed.
 */
static void mro_uc_pass_wqe(struct mro_qp *qp)
{
	struct mro_queue *q = qp->rq;
	u32 k, last = 0;

	for (k = 1; k < qp->resp.nmsg; k++)
		if (mro_uc_slot(qp, qp->resp.msn + k))
			last = k;
	if (last)
		mro_ring_rotate_left(q->buf->data, q->log2_elem_size,
				     q->index_mask, mro_queue_consumer(q),
				     last);
}

bool mro_uc_drop_head(struct mro_qp *qp)
{
	struct mro_rmsg *m;

	if (qp->ibqp.qp_type != IB_QPT_UC || !mro_uc_head_lost(qp))
		return false;
	m = mro_uc_slot(qp, qp->resp.msn);
	if (!m && mro_seq_after(qp->resp.uc_fence_msn, qp->resp.msn) &&
	    mro_seq_before_eq(qp->resp.uc_fence_psn, qp->resp.win.base) &&
	    mro_uc_ring_empty(qp)) {
		/* none of the messages before the fence ever arrived */
		mro_qp_count(qp, MRO_CNT_UC_MSG_DROPPED,
			     qp->resp.uc_fence_msn - qp->resp.msn);
		qp->resp.msn = qp->resp.uc_fence_msn;
		return true;
	}
	mro_qp_count(qp, MRO_CNT_UC_MSG_DROPPED, 1);
	if (qp->srq && m) {
		/* an SRQ WQE cannot be put back: completed in error (IB) */
		m->status = IB_WC_REM_INV_REQ_ERR;
		m->state = MRO_RMSG_DONE;
		return true;
	}
	if (qp->rq)
		mro_uc_pass_wqe(qp);
	if (m)
		m->state = MRO_RMSG_FREE;
	qp->resp.msn++;
	return true;
}

static void mro_uc_give_up(struct mro_qp *qp, u32 to)
{
	u32 n = mro_rxwin_skip(&qp->resp.win, to);

	if (n)
		mro_qp_count(qp, MRO_CNT_UC_PSN_LOST, n);
}

/*
 * A new UC request packet (before it is classified): check its first PSN,
 * move the fence, and make room for it.  A PSN too far past the window
 * base (half the window) gives up the oldest PSNs; a message too far past
 * the oldest unfinished one (half the message ring) gives up the PSNs
 * before the next message that has arrived, or before this one, which
 * settles the oldest.  A packet behind the base moves nothing; one
 * MRO_UC_PSN_SPAN or more past it, or whose msn is not within
 * MRO_UC_MSN_SPAN from rcv_msn on, is dropped (-ERANGE): no loss burst of a
 * sender skips that far, and a blind forger would otherwise move the base
 * beyond every genuine PSN.  Returns -EINVAL for a malformed packet to
 * drop, 1 when the base moved (the caller then completes or drops what
 * became decidable and calls again), else 0.
 */
int mro_uc_make_room(struct mro_qp *qp, const struct mro_hdr *hdr)
{
	u32 base = qp->resp.win.base, to, msn = hdr->msg.msn, k;
	struct mro_rmsg *n;

	if (mro_seq_after(hdr->msg.first_psn, hdr->psn))
		return -EINVAL;
	/* behind the base: classification drops it, it moves nothing */
	if (mro_seq_before(hdr->psn, base))
		return 0;
	/*
	 * A jump this far is no loss burst: it could only be forged.  Nor
	 * can a packet new to the window belong to a message before rcv_msn:
	 * those were completed or given up with every PSN of theirs, and the
	 * base is past them.  So a blind sender must guess the msn too.
	 */
	if (hdr->psn - base >= MRO_UC_PSN_SPAN ||
	    msn - qp->resp.msn >= MRO_UC_MSN_SPAN)
		return -ERANGE;
	if (mro_seq_after(msn, qp->resp.uc_fence_msn)) {
		qp->resp.uc_fence_msn = msn;
		qp->resp.uc_fence_psn = hdr->msg.first_psn;
	}
	to = mro_uc_floor(base, hdr->psn, qp->resp.win.size / 2);
	if (to != base) {
		mro_uc_give_up(qp, to);
		return 1;
	}
	if (!mro_uc_consumes(hdr->opcode) || !mro_seq_after(msn, qp->resp.msn) ||
	    msn - qp->resp.msn < qp->resp.nmsg / 2)
		return 0;
	n = mro_uc_next_known(qp, &k);
	to = n && mro_seq_before(k, msn) ? n->first_psn : hdr->msg.first_psn;
	if (!mro_seq_after(to, base))
		return 0;
	mro_uc_give_up(qp, to);
	return 1;
}

void mro_uc_reset(struct mro_qp *qp)
{
	qp->resp.uc_fence_msn = qp->resp.msn;
	qp->resp.uc_fence_psn = qp->resp.win.base;
}
