// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce requester: turns send WQEs into self-describing packets,
 * tracks every PSN in flight, consumes ACKs (cumulative + SACK), READ and
 * atomic responses, retransmits exactly the PSNs it finds lost (selective
 * repeat), runs the RTO and RNR timers and completes WQEs in order.
 */
#include <linux/slab.h>

#include "mro_ackpol.h"
#include "mro_pathscore.h"
#include "mro_psn.h"
#include "mro_qp.h"
#include "mro_rto.h"
#include "mro_trace.h"

static unsigned int mro_rto_min_us = 1000;
module_param_named(rto_min_us, mro_rto_min_us, uint, 0644);
MODULE_PARM_DESC(rto_min_us, "least margin of the retransmission timeout over the smoothed RTT, in microseconds, >= 100 (default 1000)");

#define MRO_READ_CHUNK		64	/* response packets per READ_REQ, at most */

u32 mro_now_us(void)
{
	return (u32)div_u64(ktime_get_ns(), NSEC_PER_USEC);
}

/* may @qp post work request opcode @op (mro_opcode.h)? */
static bool mro_opcode_ok(struct mro_qp *qp, u32 op)
{
	const struct mro_wrinfo *w = mro_wr(op);

	if (!(w->flags & MRO_WRF_VALID) ||
	    ((w->flags & MRO_WRF_KERNEL) && qp->is_user) ||
	    ((w->flags & MRO_WRF_USER) && !qp->is_user))
		return false;
	if (mro_qp_is_ud(qp))
		return w->ud_op;
	if (qp->ibqp.qp_type == IB_QPT_UC)
		return !mro_op_is(w->op, MRO_OPM_RC_ONLY);
	return qp->ibqp.qp_type == IB_QPT_RC;
}

/* queue indices are masked: the fetch cursor wraps with them */
static void mro_sq_head_next(struct mro_qp *qp)
{
	qp->sq_head = (qp->sq_head + 1) & qp->sq->index_mask;
}

static bool mro_is_local_op(u32 op)
{
	return mro_wr(op)->flags & MRO_WRF_LOCAL;
}

/* run a local operation (LOCAL_INV, REG_MR, BIND_MW); returns a status */
static enum ib_wc_status mro_local_op(struct mro_qp *qp,
				      struct rxe_send_wqe *w, u32 op)
{
	struct ib_pd *pd = qp->ibqp.pd;
	int err;

	switch (op) {
	case IB_WR_LOCAL_INV:
		err = mro_mem_invalidate(qp->dev, pd,
					 READ_ONCE(w->wr.ex.invalidate_rkey),
					 qp->qpn);
		break;
	case IB_WR_REG_MR:
		err = mro_mr_fast_reg(qp->dev, pd, w->wr.wr.reg.mr,
				      w->wr.wr.reg.key, w->wr.wr.reg.access);
		break;
	case IB_WR_BIND_MW:
		err = mro_mw_bind(qp->dev, pd, qp->qpn,
				  READ_ONCE(w->wr.wr.mw.mw_rkey),
				  READ_ONCE(w->wr.wr.mw.rkey),
				  READ_ONCE(w->wr.wr.mw.mr_lkey),
				  READ_ONCE(w->wr.wr.mw.addr),
				  READ_ONCE(w->wr.wr.mw.length),
				  READ_ONCE(w->wr.wr.mw.access));
		break;
	default:
		err = -EINVAL;
	}
	if (!err)
		return IB_WC_SUCCESS;
	return op == IB_WR_BIND_MW ? IB_WC_MW_BIND_ERR : IB_WC_LOC_PROT_ERR;
}

/*
 * Copy the WQE at SQ index @idx out of the shared ring and validate it.
 * Returns false when the WQE failed validation (s->status says why).
 */
static bool mro_swqe_load(struct mro_qp *qp, u32 idx, struct mro_swqe *s)
{
	struct rxe_send_wqe *w = mro_queue_slot(qp->sq, idx);
	struct ib_sge *sge = mro_swqe_sges(qp, idx);
	const struct mro_opinfo *op;
	u64 len = 0;
	u32 i;

	memset(s, 0, sizeof(*s));
	s->wr_id = READ_ONCE(w->wr.wr_id);
	s->opcode = READ_ONCE(w->wr.opcode);
	s->send_flags = READ_ONCE(w->wr.send_flags);
	if (s->opcode == IB_WR_SEND_WITH_IMM ||
	    s->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		/* immediate data is carried in network order, as given */
		s->ex = be32_to_cpu(READ_ONCE(w->wr.ex.imm_data));
	else
		s->ex = READ_ONCE(w->wr.ex.invalidate_rkey);
	s->state = MRO_SWQE_SENDING;
	s->status = IB_WC_SUCCESS;
	if (mro_qp_is_ud(qp) || qp->sig_all)
		s->send_flags |= IB_SEND_SIGNALED;

	if (!mro_opcode_ok(qp, s->opcode)) {
		s->status = IB_WC_LOC_QP_OP_ERR;
		return false;
	}
	if (mro_is_local_op(s->opcode)) {
		s->status = mro_local_op(qp, w, s->opcode);
		return s->status == IB_WC_SUCCESS;
	}
	if (mro_flush_is_wr(s->opcode)) {
		s->status = mro_flush_swqe_load(qp, w, s);
		return s->status == IB_WC_SUCCESS;
	}

	op = mro_op(mro_wr(s->opcode)->op);
	if (op->mask & MRO_OPM_RDMA) {
		s->raddr = READ_ONCE(w->wr.wr.rdma.remote_addr);
		s->rkey = READ_ONCE(w->wr.wr.rdma.rkey);
	} else if (op->rx == MRO_OPRX_ATOMIC) {
		s->raddr = READ_ONCE(w->wr.wr.atomic.remote_addr);
		s->rkey = READ_ONCE(w->wr.wr.atomic.rkey);
		s->compare_add = READ_ONCE(w->wr.wr.atomic.compare_add);
		s->swap = READ_ONCE(w->wr.wr.atomic.swap);
	}

	if (s->send_flags & IB_SEND_INLINE) {
		/* its SGEs take the response: nothing to inline */
		if (op->resp) {
			s->status = IB_WC_LOC_QP_OP_ERR;
			return false;
		}
		len = READ_ONCE(w->dma.length);
		if (len > qp->sq_max_inline) {
			s->status = IB_WC_LOC_LEN_ERR;
			return false;
		}
		s->inline_data = true;
	} else {
		s->num_sge = READ_ONCE(w->dma.num_sge);
		if (s->num_sge > qp->sq_max_sge) {
			s->status = IB_WC_LOC_LEN_ERR;
			return false;
		}
		for (i = 0; i < s->num_sge; i++) {
			sge[i].addr = READ_ONCE(w->dma.sge[i].addr);
			sge[i].length = READ_ONCE(w->dma.sge[i].length);
			sge[i].lkey = READ_ONCE(w->dma.sge[i].lkey);
			len += sge[i].length;
		}
	}
	if (len > MRO_MAX_MSG_SIZE) {
		s->status = IB_WC_LOC_LEN_ERR;
		return false;
	}
	s->length = len;

	if (op->rx == MRO_OPRX_ATOMIC) {
		if (s->length < 8 || (s->raddr & 7)) {
			s->status = IB_WC_LOC_LEN_ERR;
			return false;
		}
		s->length = 8;
	}

	if (mro_qp_is_ud(qp)) {
		u32 ah_num = READ_ONCE(w->wr.wr.ud.ah_num);
		int err;

		if (s->length > qp->mtu) {
			s->status = IB_WC_LOC_LEN_ERR;
			return false;
		}
		s->remote_qpn = READ_ONCE(w->wr.wr.ud.remote_qpn) &
				METAROCE_QPN_MASK;
		s->remote_qkey = READ_ONCE(w->wr.wr.ud.remote_qkey);
		if (ah_num) {
			err = mro_ah_get_av(qp->dev, ah_num, qp->ibqp.pd,
					    mro_swqe_av(qp, idx));
		} else if (qp->is_user) {
			struct rxe_av uav;

			memcpy(&uav, &w->wr.wr.ud.av, sizeof(uav));
			err = mro_av_from_user(qp->dev, mro_swqe_av(qp, idx),
					       &uav);
		} else {
			err = -EINVAL;
		}
		if (err) {
			s->status = IB_WC_LOC_QP_OP_ERR;
			return false;
		}
	}
	return true;
}

static u8 mro_wr_to_op(u32 opcode, bool ud)
{
	return ud ? mro_wr(opcode)->ud_op : mro_wr(opcode)->op;
}

/* the row of the RC/UC opcode a send WQE becomes (mro_opcode.h) */
static const struct mro_opinfo *mro_swqe_op(const struct mro_swqe *s)
{
	return mro_op(mro_wr_to_op(s->opcode, false));
}

static u32 mro_swqe_pkts(struct mro_qp *qp, const struct mro_swqe *s)
{
	if (mro_swqe_op(s)->mask & MRO_OPM_ONLY)
		return 1;
	return max_t(u32, 1, DIV_ROUND_UP(s->length, qp->mtu));
}

static bool mro_consumes_rwqe(const struct mro_swqe *s)
{
	return mro_swqe_op(s)->mask & MRO_OPM_RWQE;
}

/* copy @len payload bytes at message @offset of WQE @idx into @buf */
static int mro_swqe_read(struct mro_qp *qp, u32 idx, struct mro_swqe *s,
			 u32 offset, void *buf, u32 len)
{
	struct rxe_send_wqe *w;

	if (!len)
		return 0;
	if (s->inline_data) {
		if ((u64)offset + len > s->length)
			return -EINVAL;
		w = mro_queue_slot(qp->sq, idx);
		memcpy(buf, w->dma.inline_data + offset, len);
		return 0;
	}
	return mro_sge_copy(qp->dev, qp->ibqp.pd, mro_swqe_sges(qp, idx),
			    s->num_sge, offset, buf, len, MRO_COPY_FROM_MEM, 0);
}

/* the send queue holds WQEs posted but not yet taken by the requester */
static bool mro_sq_posted(struct mro_qp *qp)
{
	return qp->sq_head != mro_queue_producer(qp->sq);
}

/*
 * One transmission the requester decided on: which bytes, on which path,
 * and what the packet asks of the peer.  Building it (mro_tx_send()) is
 * encoding, copying and sealing, nothing else.
 */
struct mro_txdesc {
	u32 psn;
	u32 offset;		/* message byte offset */
	u32 len;		/* message bytes it covers (READ_REQ: asked) */
	u32 plen;		/* payload bytes it carries */
	u32 path_seq;
	u32 ack_psn;		/* with METAROCE_F_ACK_PIGGY */
	u32 now_us;		/* its send time */
	u16 path;
	u16 flags;		/* METAROCE_F_* */
	bool retx;
};

/* the FIRST, LAST and SOLICITED flags and a last packet's ACK request */
static u16 mro_tx_msg_flags(struct mro_qp *qp, const struct mro_swqe *s,
			    const struct mro_opinfo *op, u32 offset, u32 len)
{
	u16 flags = 0;

	if (op->mask & MRO_OPM_ONLY)
		flags |= METAROCE_F_FIRST | METAROCE_F_LAST;
	switch (op->rx) {
	case MRO_OPRX_ATOMIC:
	case MRO_OPRX_FLUSH:
	case MRO_OPRX_ATOMIC_WRITE:
		break;
	case MRO_OPRX_UD:
		if (s->send_flags & IB_SEND_SOLICITED)
			flags |= METAROCE_F_SOLICITED;
		break;
	case MRO_OPRX_READ:
		if (!offset)
			flags |= METAROCE_F_FIRST;
		break;
	default:
		if (!offset)
			flags |= METAROCE_F_FIRST;
		if (offset + len == s->length) {
			flags |= METAROCE_F_LAST;
			/*
			 * The last packet of the last message asks; behind
			 * it, the next messages' packets bring the ACK
			 * (mro_psn.h rhythm) and the window rules ask.
			 */
			if (!mro_sq_posted(qp))
				flags |= METAROCE_F_ACK_REQ;
			if (s->send_flags & IB_SEND_SOLICITED)
				flags |= METAROCE_F_SOLICITED;
		}
		break;
	}
	return flags;
}

/*
 * The sender's decision for PSN @psn of @s, message bytes [offset,
 * offset + len): its path (a resend, @retx, goes outside the mask @avoid;
 * a PSN of the ACK rhythm takes the active paths in turn; the rest the
 * scheduler's), and its flags.
 */
static void mro_tx_plan(struct mro_qp *qp, const struct mro_swqe *s,
			const struct mro_opinfo *op, u32 psn, u32 offset,
			u32 len, bool retx, u64 avoid, struct mro_txdesc *d)
{
	u16 old_path;

	lockdep_assert_held(&qp->lock);
	d->psn = psn;
	d->offset = offset;
	d->len = len;
	d->plen = op->mask & MRO_OPM_PAYLOAD ? len : 0;
	d->retx = retx;
	if (retx) {
		/* a different, healthy path than the ones that lost it */
		old_path = mro_slot(qp, psn)->path;
		d->path = mro_path_pick_retx(&qp->paths, avoid, &d->path_seq);
		qp->req.late_tx_end = qp->req.nxt;
		trace_mro_retransmit(qp->qpn, psn, old_path, d->path,
				     mro_slot(qp, psn)->retx + 1);
	} else if (mro_psn_self_acked(psn)) {
		/* its ACK comes back by its path: every path takes a turn */
		d->path = mro_path_pick_rhythm(&qp->paths, &d->path_seq);
	} else {
		d->path = mro_path_pick(&qp->paths, &d->path_seq);
	}
	d->now_us = mro_now_us();
	d->flags = METAROCE_F_ECT;
	if (retx)
		d->flags |= METAROCE_F_RETX;
	if (mro_cc_ack_req(qp, psn) ||	/* the window closes: ask now */
	    (qp->ibqp.qp_type == IB_QPT_RC &&
	     mro_ackpol_txwin_ask(psn, qp->req.una, qp->req.win)))
		d->flags |= METAROCE_F_ACK_REQ;
	/* its answer, or the ACK, frees a responder resource: ask at once */
	if (op->mask & MRO_OPM_RESPRES)
		d->flags |= METAROCE_F_ACK_REQ;
	d->flags |= mro_tx_msg_flags(qp, s, op, offset, len);
	/*
	 * A message's last packet carries the ACK we owe the peer: were the
	 * two to cross on different paths, the peer could complete our
	 * message (its answer to what the ACK acknowledges, say) before the
	 * WQE the ACK completes (METAROCE_F_ACK_PIGGY).
	 */
	d->ack_psn = 0;
	if (qp->ibqp.qp_type == IB_QPT_RC && (d->flags & METAROCE_F_LAST)) {
		d->flags |= METAROCE_F_ACK_PIGGY;
		d->ack_psn = qp->resp.win.base;
	}
}

/* the header of transmission @d of @s */
static void mro_tx_hdr(struct mro_qp *qp, const struct mro_swqe *s,
		       const struct mro_opinfo *op, u8 opcode,
		       const struct mro_txdesc *d, struct mro_hdr *hdr)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->opcode = opcode;
	hdr->sqpn = qp->qpn;
	hdr->dqpn = mro_qp_is_ud(qp) ? s->remote_qpn : qp->dest_qpn;
	hdr->psn = d->psn;
	hdr->path = d->path;
	hdr->path_seq = d->path_seq;
	hdr->tsval = mro_qp_tsval(qp, d->now_us);
	hdr->flags = d->flags;
	hdr->ack_psn = d->ack_psn;

	switch (op->rx) {
	case MRO_OPRX_ATOMIC:
		hdr->atomic.va = s->raddr;
		hdr->atomic.rkey = s->rkey;
		hdr->atomic.msn = s->msn;
		hdr->atomic.swap_add = s->opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
				       s->swap : s->compare_add;
		hdr->atomic.compare = s->opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
				      s->compare_add : 0;
		break;
	case MRO_OPRX_FLUSH:
	case MRO_OPRX_ATOMIC_WRITE:
		mro_flush_fill_hdr(s, hdr);
		break;
	case MRO_OPRX_UD:
		hdr->deth.qkey = (s->remote_qkey & 0x80000000) ? qp->qkey :
				 s->remote_qkey;
		hdr->deth.imm = s->ex;
		break;
	case MRO_OPRX_READ:
		hdr->msg.msn = s->msn;
		hdr->msg.offset = d->offset;
		hdr->msg.length = d->len;
		hdr->msg.imm = qp->mtu;
		hdr->msg.va = s->raddr;
		hdr->msg.rkey = s->rkey;
		hdr->msg.first_psn = d->psn;
		break;
	default:
		hdr->msg.msn = s->msn;
		hdr->msg.offset = d->offset;
		hdr->msg.length = s->length;
		hdr->msg.imm = s->ex;
		hdr->msg.va = s->raddr;
		hdr->msg.rkey = s->rkey;
		hdr->msg.first_psn = s->first_psn;
		break;
	}
}

/*
 * Build transmission @d of WQE @idx (encode, copy the payload, seal),
 * queue it on @out, and record it in its path and its PSN's slot.
 */
static int mro_tx_send(struct mro_qp *qp, u32 idx, struct mro_swqe *s,
		       const struct mro_opinfo *op, u8 opcode,
		       const struct mro_txdesc *d, struct sk_buff_head *out)
{
	struct mro_hdr hdr;
	struct sk_buff *skb;
	void *payload;
	int err;

	mro_tx_hdr(qp, s, op, opcode, d, &hdr);
	skb = mro_tx_build(qp, mro_qp_is_ud(qp) ? mro_swqe_av(qp, idx) :
			   &qp->av, &hdr, d->plen, &payload);
	if (!skb)
		return -ENOMEM;
	err = mro_swqe_read(qp, idx, s, d->offset, payload, d->plen);
	if (err) {
		kfree_skb(skb);
		return err;
	}
	mro_tx_seal(skb);
	__skb_queue_tail(out, skb);
	mro_path_sent(&qp->paths, d->path, d->plen, d->retx);

	if (mro_qp_connected(qp) && qp->ibqp.qp_type == IB_QPT_RC) {
		struct mro_txslot *t = mro_slot(qp, d->psn);

		t->sent_us = d->now_us;
		t->path = d->path;
		t->path_seq = d->path_seq;
		t->on_path = true;
		t->asked = d->flags & METAROCE_F_ACK_REQ;
		qp->req.tx_last_psn = d->psn;
		if (d->retx) {
			/* saturates: 0 would read as a first transmission */
			if (t->retx < U8_MAX)
				t->retx++;
			t->state = MRO_TX_SENT;
		}
	}
	return 0;
}

/*
 * Send one packet of WQE @idx: PSN @psn, message bytes [offset, offset +
 * len).  READ_REQ packets ask for @len bytes.  A resend (@retx) goes on a
 * path outside the mask @avoid.
 */
static int mro_emit(struct mro_qp *qp, u32 idx, struct mro_swqe *s, u32 psn,
		    u32 offset, u32 len, bool retx, u64 avoid,
		    struct sk_buff_head *out)
{
	u8 opcode = mro_wr_to_op(s->opcode, mro_qp_is_ud(qp));
	const struct mro_opinfo *op = mro_op(opcode);
	struct mro_txdesc d;

	mro_tx_plan(qp, s, op, psn, offset, len, retx, avoid, &d);
	return mro_tx_send(qp, idx, s, op, opcode, &d, out);
}

/*
 * The tail-loss probe by expectation (mro_pto_tail()) for the newest
 * transmission still out, when it is a tail: sent on a path and asking for
 * its ACK (the last packet of the last message posted, mro_send_new()),
 * or a resend (which fills a hole, so the peer acknowledges it at once).
 * A lost resend behind which nothing left has no later delivery to reveal
 * it either.  0: none.
 */
static u32 mro_tail_pto(struct mro_qp *qp)
{
	u32 psn = qp->req.tx_last_psn, wnd;
	struct mro_txslot *t;

	lockdep_assert_held(&qp->lock);
	if (qp->req.una == qp->req.nxt || !qp->req.srtt_us)
		return 0;
	if (!mro_seq_in(psn, qp->req.una, mro_inflight(qp)))
		psn = qp->req.nxt - 1;
	t = mro_slot(qp, psn);
	if (t->state != MRO_TX_SENT || !(t->asked || t->retx) ||
	    !t->on_path || t->path >= qp->paths.n)
		return 0;
	/* a READ's last response comes after the responder's whole burst */
	if (mro_swqe_at(qp, t->swqe)->opcode == IB_WR_RDMA_READ)
		return 0;
	/* a slower path's tail is not due as early as the fastest path's */
	wnd = mro_loss_reo_wnd(qp->req.srtt_us, qp->req.rttvar_us, qp->req.reo.steps,
			       mro_loss_spread(qp->paths.path[t->path].srtt_us,
					       mro_paths_best_srtt(&qp->paths)));
	return mro_pto_tail((s32)(t->sent_us - qp->req.acked_sent_us),
			    mro_now_us() - qp->req.acked_at_us, wnd);
}

void mro_arm_rto(struct mro_qp *qp)
{
	u64 us;
	u32 pto, tail;

	lockdep_assert_held(&qp->lock);
	/*
	 * RFC 6298 shape (mro_rto.c); before the first RTT sample, the IB ACK
	 * timeout.  The IB timeout does not cap it: a queue that makes the
	 * RTT longer than the timeout would otherwise fire the timer on every
	 * window.  Once per episode without progress, a tail-loss probe comes
	 * first: at two RTTs, or sooner when the tail's ACK, expected from
	 * the newest delivery, is a reordering window late.
	 */
	qp->req.rto_us = mro_rto_base(qp->req.srtt_us, qp->req.rttvar_us,
				      READ_ONCE(mro_rto_min_us),
				      ktime_to_us(qp->req.rto));
	us = mro_rto_backoff(qp->req.rto_us, qp->req.backoff);
	pto = 0;
	if (!qp->req.tlp_done && !qp->req.backoff) {
		pto = mro_pto(qp->req.srtt_us, us);
		tail = mro_tail_pto(qp);
		if (tail && tail < us && (!pto || tail < pto))
			pto = tail;
	}
	qp->req.pto_armed = pto;
	if (pto)
		us = pto;
	mro_rto_start(qp, us);
}

/* the RTO timer fires @us from now; rto_due_us records when */
void mro_rto_start(struct mro_qp *qp, u64 us)
{
	lockdep_assert_held(&qp->lock);
	qp->req.rto_due_us = mro_now_us() + (u32)min_t(u64, us, U32_MAX / 2);
	hrtimer_start(&qp->req.rto_timer, ns_to_ktime(us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_SOFT);
}

/*
 * No buffer for a packet (GFP_ATOMIC): a transient shortage, not the
 * WQE's fault.  The send queue stays where it is and runs again in
 * MRO_TX_RETRY_NS; the QP lives.
 */
static void mro_tx_nomem(struct mro_qp *qp)
{
	mro_count(qp->dev->stats, MRO_CNT_TX_NOMEM, 1);
	mro_cc_run_after(qp, MRO_TX_RETRY_NS);
}

/* a WQE failed: complete it with @status and take the QP to error */
noinline void mro_swqe_fail(struct mro_qp *qp, struct mro_swqe *s,
			    enum ib_wc_status status)
{
	s->status = status;
	s->state = MRO_SWQE_DONE;
	mro_qp_error_at(qp, status, _RET_IP_);
}

/*
 * Room for one more receive-consuming message: the responder's ring tracks
 * METAROCE_MSG_WINDOW of them from its next one to complete, and every
 * message before the one holding snd_una has completed there (its PSNs are
 * acknowledged); beyond that it drops them unanswered.
 */
static bool mro_msg_room(struct mro_qp *qp)
{
	struct mro_swqe *oldest = mro_swqe_of_psn(qp, qp->req.una);

	return !oldest || qp->req.msn - oldest->msn < METAROCE_MSG_WINDOW;
}

/*
 * The local invalidate fence (IB's LIF), always on: a LOCAL_INV runs only
 * when every WQE before it (@idx) has completed, so no resend of an
 * earlier request reads memory through the key it invalidates.
 */
static bool mro_sq_all_done(struct mro_qp *qp, u32 idx)
{
	mro_req_complete_ready(qp);
	return mro_queue_consumer(qp->sq) == idx;
}

/* start the next WQE of the SQ; false when there is none or we must wait */
static bool mro_fetch(struct mro_qp *qp)
{
	struct mro_swqe *s;
	u32 idx;

	if (qp->sq_cur_valid)
		return true;
	if (!mro_sq_posted(qp))
		return false;
	if (qp->sq_draining)
		return false;
	idx = qp->sq_head;
	s = mro_swqe_at(qp, idx);
	if (!mro_swqe_load(qp, idx, s)) {
		mro_sq_head_next(qp);
		mro_swqe_fail(qp, s, s->status);
		return false;
	}
	if (((s->send_flags & IB_SEND_FENCE) && qp->req.rd_atomic_inflight) ||
	    (s->opcode == IB_WR_LOCAL_INV && !mro_sq_all_done(qp, idx)) ||
	    (mro_consumes_rwqe(s) &&
	     qp->ibqp.qp_type == IB_QPT_RC && !mro_msg_room(qp))) {
		s->state = MRO_SWQE_FREE;	/* load again later */
		return false;
	}
	mro_sq_head_next(qp);
	if (mro_is_local_op(s->opcode)) {
		s->state = MRO_SWQE_DONE;
		return true;	/* nothing to send; look at the next one */
	}
	s->npkts = mro_swqe_pkts(qp, s);
	s->first_psn = qp->req.nxt;
	s->msn = qp->req.msn;
	if (mro_consumes_rwqe(s) && !mro_qp_is_ud(qp))
		qp->req.msn++;
	s->is_read_atomic = mro_wr_resp(s->opcode);
	s->rd_res = mro_swqe_op(s)->mask & MRO_OPM_RESPRES;
	qp->sq_cur = idx;
	qp->sq_cur_valid = true;
	return true;
}

/* send packets of the current WQE; returns packets sent, -1 to stop */
static int mro_send_new(struct mro_qp *qp, struct sk_buff_head *out,
			int budget)
{
	struct mro_swqe *s = mro_swqe_at(qp, qp->sq_cur);
	bool rc = qp->ibqp.qp_type == IB_QPT_RC;
	int sent = 0;

	while (s->sent < s->npkts && sent < budget) {
		u32 off = s->sent * qp->mtu;
		u32 len = min_t(u32, qp->mtu, s->length - min(off, s->length));
		u32 n = 1, i, psn = qp->req.nxt;
		struct mro_txslot *t;
		int err;

		if (s->opcode == IB_WR_RDMA_READ) {
			/*
			 * the responder takes at most half its window and
			 * answers in one burst: sized to the congestion window
			 */
			n = min3(s->npkts - s->sent, (u32)MRO_READ_CHUNK,
				 qp->req.win / 4);
			if (rc)
				n = mro_cc_read_burst(qp, n);
			len = min_t(u32, n * qp->mtu, s->length - off);
		}
		if (rc && mro_ackpol_txwin_wait(mro_inflight(qp), qp->req.win, n,
						&qp->req.win_closed))
			return -1;
		if (rc && !mro_cc_may_send(qp, n))	/* cwnd, credit, pacing */
			return -1;
		if (s->rd_res && !s->sent &&
		    qp->req.rd_atomic_inflight >= max_t(u8, qp->max_rd_atomic, 1))
			return -1;

		if (rc) {
			for (i = 0; i < n; i++) {
				t = mro_slot(qp, psn + i);
				memset(t, 0, sizeof(*t));
				t->swqe = qp->sq_cur;
				t->offset = off + i * qp->mtu;
				t->len = min_t(u32, qp->mtu,
					       s->length - min(t->offset,
							       s->length));
				t->state = MRO_TX_SENT;
			}
		}
		err = mro_emit(qp, qp->sq_cur, s, psn, off, len, false, 0, out);
		if (err == -ENOMEM) {
			/* nothing advanced: the same packet goes out later */
			mro_tx_nomem(qp);
			return -1;
		}
		if (err) {
			mro_swqe_fail(qp, s, IB_WC_LOC_PROT_ERR);
			return -1;
		}
		/*
		 * a READ's other PSNs were asked for by this packet: its
		 * responses are timed, and judged lost, from its send time,
		 * and they come back on its path (mro_path_reply()), which
		 * a lost one counts against
		 */
		t = mro_slot(qp, psn);
		for (i = 1; rc && i < n; i++) {
			struct mro_txslot *r = mro_slot(qp, psn + i);

			r->sent_us = t->sent_us;
			r->path = t->path;
			r->path_seq = t->path_seq;
			r->on_path = t->on_path;
			r->asked = t->asked;
		}
		if (s->rd_res && !s->sent)
			qp->req.rd_atomic_inflight++;
		if (rc && qp->req.una == qp->req.nxt)
			qp->req.stall_us = mro_now_us();	/* out of idle */
		qp->req.nxt += n;
		s->sent += n;
		/*
		 * armed with the PSNs in flight, so that a tail sent out of
		 * idle gets the tail's probe time (mro_tail_pto())
		 */
		if (rc && !hrtimer_active(&qp->req.rto_timer))
			mro_arm_rto(qp);
		if (rc)
			mro_cc_sent(qp, len);
		sent++;
	}
	if (s->sent >= s->npkts) {
		/* UD and UC complete once sent; RC waits for the peer */
		s->state = rc ? MRO_SWQE_WAITING : MRO_SWQE_DONE;
		qp->sq_cur_valid = false;
	}
	return sent;
}

/*
 * How many more copies of the resend of @psn (slot @t) to send: after n
 * timeouts in a row the oldest PSN goes out on 2^(n-1) distinct paths
 * (n >= 2; at most 2^MRO_RTO_COPIES_SHIFT).  A path that died shows only
 * once a timeout finds a packet lost on it, and mro_path_lost() suspends
 * nothing while many paths are in trouble; so one resend at a time can
 * land on one dead path after another (a leaf-spine fabric with one
 * spine link down breaks the round trip of about half the paths), each
 * costing one of the QP's few retries.  The copies cost a few packets per
 * backed-off RTO; the responder acknowledges the duplicates on other
 * paths (mro_path_dup_ack()).  Not a READ_REQ: each copy of it would
 * cost the responder the READ's responses.
 */
static u32 mro_rto_copies(const struct mro_qp *qp, u32 psn,
			  const struct mro_txslot *t, const struct mro_swqe *s)
{
	if (psn != qp->req.una || !t->rto_lost || qp->req.backoff < 2 ||
	    mro_wr_to_op(s->opcode, false) == METAROCE_OP_READ_REQ)
		return 0;
	return (1U << min_t(u32, qp->req.backoff - 1, MRO_RTO_COPIES_SHIFT)) - 1;
}

static u64 mro_slot_path_mask(const struct mro_qp *qp,
			      const struct mro_txslot *t)
{
	return t->on_path && t->path < qp->paths.n ? BIT_ULL(t->path) : 0;
}

/* retransmit the PSNs declared lost; returns packets sent */
static int mro_send_lost(struct mro_qp *qp, struct sk_buff_head *out,
			 int budget)
{
	u32 psn;
	int sent = 0;

	for (psn = qp->req.una; qp->req.lost && sent < budget &&
	     mro_seq_before(psn, qp->req.nxt); psn++) {
		struct mro_txslot *t = mro_slot(qp, psn);
		struct mro_swqe *s;
		u32 copies;
		u64 tried;
		int err;

		if (t->state != MRO_TX_LOST)
			continue;
		if (!mro_cc_may_retx(qp))	/* cwnd, pacing */
			break;
		s = mro_swqe_at(qp, t->swqe);
		tried = mro_slot_path_mask(qp, t);
		err = mro_emit(qp, t->swqe, s, psn, t->offset,
			       t->len, true, tried, out);
		if (err == -ENOMEM) {
			mro_tx_nomem(qp);	/* still MRO_TX_LOST */
			return sent;
		}
		if (err) {
			mro_swqe_fail(qp, s, IB_WC_LOC_PROT_ERR);
			return sent;
		}
		qp->req.lost--;
		mro_qp_count(qp, MRO_CNT_RETRANSMITS, 1);
		mro_cc_sent(qp, t->len);
		sent++;
		/* the resend went out: a copy that cannot, ends the copies */
		for (copies = mro_rto_copies(qp, psn, t, s); copies; copies--) {
			tried |= mro_slot_path_mask(qp, t);
			if (!mro_path_spare(&qp->paths, tried) ||
			    mro_emit(qp, t->swqe, s, psn, t->offset, t->len,
				     true, tried, out))
				break;
			mro_qp_count(qp, MRO_CNT_RETRANSMITS, 1);
			mro_count(qp->dev->stats, MRO_CNT_RTO_COPIES, 1);
			mro_cc_sent(qp, t->len);
		}
		/*
		 * The oldest PSN was resent: the RTO counts from now (as
		 * TCP's does), or it fires on a resend still on its way.
		 */
		if (psn == qp->req.una && t->fast_lost)
			mro_arm_rto(qp);
	}
	return sent;
}

void mro_req_run(struct mro_qp *qp, struct sk_buff_head *out, int budget)
{
	int n;

	lockdep_assert_held(&qp->lock);
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		goto complete;
	if (qp->req.rnr_wait)
		goto complete;
	/* a protected connection sends once its keys are in place */
	if (!mro_prot_tx_ready(qp->prot))
		goto complete;

	if (qp->ibqp.qp_type == IB_QPT_RC)
		mro_pm_reprobe(qp, out);
	budget -= mro_send_lost(qp, out, budget);
	while (budget > 0 && qp->state == IB_QPS_RTS) {
		if (!mro_fetch(qp))
			break;
		if (!qp->sq_cur_valid)
			continue;	/* a local op completed */
		n = mro_send_new(qp, out, budget);
		if (n < 0)
			break;
		budget -= n;
		if (!n && qp->sq_cur_valid)
			break;
	}
	if (budget <= 0)
		queue_work(system_highpri_wq, &qp->tx_work);
complete:
	mro_req_complete_ready(qp);
}

void mro_req_tx_work(struct work_struct *work)
{
	struct mro_qp *qp = container_of(work, struct mro_qp, tx_work);

	mro_qp_kick(qp);
}

/* the completion opcode of a send WQE's IB_WR_* opcode */
enum ib_wc_opcode mro_wc_opcode(u32 opcode)
{
	/* an unknown opcode's row says IB_WC_SEND (0) */
	return mro_wr(opcode)->wc;
}

/* complete finished WQEs in SQ order; the consumer index moves only here */
void mro_req_complete_ready(struct mro_qp *qp)
{
	bool error = false;

	while (mro_queue_consumer(qp->sq) != qp->sq_head) {
		u32 idx = mro_queue_consumer(qp->sq);
		struct mro_swqe *s = mro_swqe_at(qp, idx);
		struct ib_wc wc = {};

		if (s->state != MRO_SWQE_DONE)
			break;
		if (s->status != IB_WC_SUCCESS || (s->send_flags &
						   IB_SEND_SIGNALED)) {
			wc.wr_id = s->wr_id;
			wc.status = s->status;
			wc.opcode = mro_wc_opcode(s->opcode);
			wc.qp = &qp->ibqp;
			if (mro_wr_resp(s->opcode))
				wc.byte_len = s->length;
			if (mro_cq_post(qp->scq, &wc, false))
				mro_qp_error(qp);
		}
		if (s->status != IB_WC_SUCCESS)
			error = true;
		s->state = MRO_SWQE_FREE;
		mro_queue_advance(qp->sq);
		if (error)
			break;
	}
	if (error)
		mro_qp_error(qp);
	if (qp->sq_draining && mro_queue_consumer(qp->sq) == qp->sq_head &&
	    !qp->sq_cur_valid)
		qp->sq_draining = false;
}
