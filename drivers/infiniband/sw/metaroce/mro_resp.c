// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce responder: places every request packet on arrival, in any
 * order (each one carries its message number, offset, and for WRITE the
 * remote address and key), recognises duplicates with the receive window,
 * executes READ and atomics, completes receive WQEs in message order and
 * generates ACKs with a SACK bitmap.
 */

#include <kunit/visibility.h>

#include "mro_psn.h"
#include "mro_qp.h"
#include "mro_trace.h"

/* queue a packet that is all header (ACK, ATOMIC_RESP) for the peer */
static bool mro_queue_hdr_only(struct mro_qp *qp, struct mro_hdr *hdr,
			       struct sk_buff_head *out)
{
	struct sk_buff *skb;
	void *payload;

	skb = mro_tx_build(qp, &qp->av, hdr, 0, &payload);
	if (!skb)
		return false;
	mro_tx_seal(skb);
	__skb_queue_tail(out, skb);
	return true;
}

/* ACK @req on our path @path (the request's own, unless a duplicate) */
static void mro_send_ack_on(struct mro_qp *qp, const struct mro_hdr *req,
			    u16 path, u8 syndrome, u8 code, u32 nak_psn,
			    struct sk_buff_head *out)
{
	struct mro_hdr hdr = {};

	hdr.opcode = METAROCE_OP_ACK;
	/* an AQM marks it rather than drops it (protocol.rst, ECT) */
	hdr.flags = METAROCE_F_ECT;
	hdr.sqpn = qp->qpn;
	hdr.dqpn = qp->dest_qpn;
	hdr.path = path;
	hdr.tsval = mro_qp_tsval(qp, mro_now_us());
	hdr.ack.syndrome = syndrome;
	hdr.ack.nak_code = code;
	hdr.ack.cum_psn = qp->resp.win.base;
	hdr.ack.nak_psn = nak_psn;
	hdr.ack.credit_psn = mro_cc_grant(qp);
	mro_rxwin_sack(&qp->resp.win, hdr.ack.sack, &hdr.ack.sack_bits);
	hdr.ack.ts_echo = req->tsval;
	hdr.ack.echo_path = req->path;
	hdr.ack.echo_seq = req->path_seq;
	hdr.ack.ecn_ce = qp->resp.ecn_ce;

	if (!mro_queue_hdr_only(qp, &hdr, out))
		return;
	qp->resp.ack_pending = 0;
	mro_qp_count(qp, MRO_CNT_ACKS_SENT, 1);
}

static void mro_send_ack(struct mro_qp *qp, const struct mro_hdr *req,
			 u8 syndrome, u8 code, u32 nak_psn,
			 struct sk_buff_head *out)
{
	mro_send_ack_on(qp, req, req->path, syndrome, code, nak_psn, out);
}

/*
 * A duplicate means its sender missed our ACK, perhaps on a return path
 * that drops everything while the forward one works (a link down on one
 * side of an ECMP fabric): answer each duplicate on another of our paths
 * than the request's, in turn.  The echo still names the request's path.
 */
static void mro_send_dup_ack(struct mro_qp *qp, const struct mro_hdr *req,
			     struct sk_buff_head *out)
{
	u16 path = mro_path_dup_ack(req->path, qp->paths.n,
				    qp->resp.dup_ack_turn++);

	mro_send_ack_on(qp, req, path, METAROCE_SYN_ACK, 0, 0, out);
}

/*
 * Acknowledge @req ahead of what answering it queued: the ACK of a READ_REQ
 * is the requester's only delay sample for its READs (the responses
 * acknowledge the PSNs and grow the window); queued behind the response
 * burst it would time the burst's own serialization as queueing delay, and
 * shrink the window the burst was sized by.
 */
static void mro_ack_first(struct mro_qp *qp, const struct mro_hdr *req,
			  struct sk_buff_head *out)
{
	struct sk_buff_head ack;

	__skb_queue_head_init(&ack);
	mro_send_ack(qp, req, METAROCE_SYN_ACK, 0, 0, &ack);
	skb_queue_splice(&ack, out);
}

static void mro_nak(struct mro_qp *qp, const struct mro_hdr *req, u8 syn,
		    struct sk_buff_head *out)
{
	if (qp->ibqp.qp_type != IB_QPT_RC)
		return;
	mro_qp_count(qp, syn == METAROCE_SYN_RNR_NAK ?
		     MRO_CNT_RNR_NAK_SENT : MRO_CNT_NAK_SENT, 1);
	trace_mro_nak(qp->qpn, true, req->psn, syn);
	mro_send_ack(qp, req, syn,
		     syn == METAROCE_SYN_RNR_NAK ? qp->min_rnr_timer : 0,
		     req->psn, out);
	if (syn != METAROCE_SYN_RNR_NAK)
		mro_qp_error(qp);
}

/*
 * A request failed with @syn: NAK it and end the QP if it is the packet
 * at the next expected PSN (MRO_RXV_FAILED); ahead of it, it is dropped
 * instead, its resend judged in its turn (MRO_RXV_ERR_AHEAD,
 * mro_respres.h).
 */
static enum mro_rx_verdict mro_resp_fail(struct mro_qp *qp,
					 const struct mro_hdr *req, u8 syn,
					 struct sk_buff_head *out)
{
	if (!mro_resp_may_fail(req->psn, qp->resp.win.base))
		return MRO_RXV_ERR_AHEAD;
	mro_nak(qp, req, syn, out);
	return MRO_RXV_FAILED;
}

/*
 * The receive WQE for message @msn: RQ WQEs are taken in message order, so
 * message msn uses the WQE (msn - rcv_msn) places after the consumer.
 */
int mro_rq_wqe_for(struct mro_qp *qp, u32 msn, struct mro_recv_wqe *w)
{
	struct mro_queue *q = qp->rq;
	u32 ahead = msn - qp->resp.msn, idx, n, i;
	struct rxe_recv_wqe *r;
	u64 len = 0;

	if (ahead >= mro_queue_count(q))
		return -ENOENT;
	idx = mro_queue_consumer(q) + ahead;
	r = mro_queue_slot(q, idx);
	n = READ_ONCE(r->dma.num_sge);
	if (n > qp->rq_max_sge || n > MRO_MAX_RECV_SGE)
		return -EINVAL;
	w->wr_id = READ_ONCE(r->wr_id);
	w->num_sge = n;
	for (i = 0; i < n; i++) {
		w->sge[i].addr = READ_ONCE(r->dma.sge[i].addr);
		w->sge[i].length = READ_ONCE(r->dma.sge[i].length);
		w->sge[i].lkey = READ_ONCE(r->dma.sge[i].lkey);
		len += w->sge[i].length;
	}
	if (len > MRO_MAX_MSG_SIZE)
		return -EINVAL;
	w->length = len;
	return 0;
}

/* take the receive WQE of message @msn into rmsg @m */
static int mro_claim_wqe(struct mro_qp *qp, u32 msn, struct mro_rmsg *m)
{
	struct mro_recv_wqe w = {};
	int err;

	if (qp->srq)
		err = mro_srq_take(qp->srq, &w);
	else
		err = mro_rq_wqe_for(qp, msn, &w);
	m->wr_id = w.wr_id;
	m->wqe_length = w.length;
	m->num_sge = 0;
	if (err)
		return err;
	if (w.num_sge > qp->resp.rmsg_max_sge)	/* the queue's own check */
		return -EINVAL;
	m->num_sge = w.num_sge;
	memcpy(mro_rmsg_sge(qp, m), w.sge, w.num_sge * sizeof(w.sge[0]));
	return 0;
}

static enum ib_wc_opcode mro_recv_wc_opcode(u8 op)
{
	return mro_op_is(op, MRO_OPM_RDMA) ? IB_WC_RECV_RDMA_WITH_IMM :
					     IB_WC_RECV;
}

/* post receive completions for the messages done, in message order */
static void mro_complete_rmsgs(struct mro_qp *qp)
{
	for (;;) {
		struct mro_rmsg *m = &qp->resp.rmsg[qp->resp.msn & (qp->resp.nmsg - 1)];
		struct ib_wc wc = {};

		/* all PSNs up to its last one (earlier WRITEs too) are in */
		if (m->state != MRO_RMSG_DONE || m->msn != qp->resp.msn ||
		    !mro_seq_after(qp->resp.win.base, m->last_psn)) {
			/* UC: a message that cannot complete is dropped */
			if (mro_uc_drop_head(qp))
				continue;
			break;
		}
		wc.wr_id = m->wr_id;
		wc.status = m->status;
		wc.opcode = mro_recv_wc_opcode(m->opcode);
		wc.qp = &qp->ibqp;
		wc.byte_len = m->length;
		wc.src_qp = qp->dest_qpn;
		wc.port_num = 1;
		wc.pkey_index = qp->pkey_index;
		if (mro_op_is(m->opcode, MRO_OPM_IMM)) {
			wc.ex.imm_data = cpu_to_be32(m->imm);
			wc.wc_flags |= IB_WC_WITH_IMM;
		} else if (mro_op_is(m->opcode, MRO_OPM_INV)) {
			wc.ex.invalidate_rkey = m->imm;
			wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		}
		if (mro_cq_post(qp->rcq, &wc, m->solicited))
			mro_qp_error(qp);
		if (qp->rq)
			mro_queue_advance(qp->rq);
		m->state = MRO_RMSG_FREE;
		qp->resp.msn++;
	}
}

/*
 * SEND*, WRITE_IMM: a packet of a message that consumes a receive WQE.
 * MRO_RXV_OK: its PSN is to be marked received.  MRO_RXV_FAILED: it
 * failed its message and the QP at the next expected PSN and was NAKed;
 * its PSN is marked too (the message completes with its error) but never
 * acknowledged, or the requester would take the ACK and drop the NAK.
 */
static enum mro_rx_verdict mro_resp_msg(struct mro_qp *qp,
					const struct mro_hdr *hdr,
					struct sk_buff *skb,
					struct sk_buff_head *out)
{
	u16 mask = mro_op(hdr->opcode)->mask;
	enum mro_rx_verdict v = MRO_RXV_OK;
	u32 msn = hdr->msg.msn;
	struct mro_rmsg *m;
	int err;

	if (!mro_seq_in(msn, qp->resp.msn, qp->resp.nmsg))
		return MRO_RXV_WINDOW;	/* not trackable yet: resent */
	if (((mask & MRO_OPM_INV) && mro_keyorder_full(&qp->resp.keyorder)) ||
	    ((mask & MRO_OPM_RDMA) && hdr->payload_len &&
	     mro_keyorder_holds(&qp->resp.keyorder, hdr->psn, hdr->msg.rkey)))
		return MRO_RXV_KEY_WAIT;	/* not before the key fence */
	m = &qp->resp.rmsg[msn & (qp->resp.nmsg - 1)];
	if (m->state == MRO_RMSG_FREE) {
		err = mro_claim_wqe(qp, msn, m);
		if (err == -ENOENT) {
			mro_nak(qp, hdr, METAROCE_SYN_RNR_NAK, out);
			return MRO_RXV_BUSY;
		}
		m->state = MRO_RMSG_ACTIVE;
		m->msn = msn;
		m->first_psn = hdr->msg.first_psn;
		m->last_psn = hdr->psn;
		m->got_last = false;
		m->opcode = hdr->opcode;
		m->length = hdr->msg.length;
		m->received = 0;
		m->imm = hdr->msg.imm;
		m->solicited = false;
		m->status = IB_WC_SUCCESS;
		if (err)
			m->status = IB_WC_LOC_QP_OP_ERR;
		else if (!(mask & MRO_OPM_RDMA) && m->length > m->wqe_length)
			m->status = IB_WC_LOC_LEN_ERR;
	} else if (m->msn != msn || m->opcode != hdr->opcode ||
		   m->length != hdr->msg.length ||
		   m->first_psn != hdr->msg.first_psn) {
		return MRO_RXV_FIELD;	/* inconsistent with its message */
	}

	if (m->status == IB_WC_SUCCESS && hdr->payload_len) {
		if (mask & MRO_OPM_RDMA) {
			struct mro_mem *mem;
			u64 va = hdr->msg.va + hdr->msg.offset;

			mem = mro_mem_get_rkey(qp->dev, qp->ibqp.pd, qp->qpn,
					       hdr->msg.rkey, va,
					       hdr->payload_len,
					       IB_ACCESS_REMOTE_WRITE);
			if (!mem || !(qp->access_flags &
				      IB_ACCESS_REMOTE_WRITE)) {
				if (mem)
					mro_mem_put(mem);
				/* the status first: mro_nak() fails the QP */
				if (!mro_resp_may_fail(hdr->psn,
						       qp->resp.win.base))
					return MRO_RXV_ERR_AHEAD;
				m->status = IB_WC_REM_ACCESS_ERR;
				mro_nak(qp, hdr, METAROCE_SYN_NAK_ACCESS, out);
				if (qp->ibqp.qp_type == IB_QPT_RC)
					v = MRO_RXV_FAILED;
			} else {
				err = mro_mem_copy_skb(mem, va, skb,
						       hdr->hdr_len,
						       hdr->payload_len);
				mro_mem_put(mem);
				if (err)
					m->status = IB_WC_REM_ACCESS_ERR;
			}
		} else {
			err = mro_sge_copy_skb(qp->dev, qp->ibqp.pd,
					       mro_rmsg_sge(qp, m), m->num_sge,
					       hdr->msg.offset, skb,
					       hdr->hdr_len, hdr->payload_len,
					       IB_ACCESS_LOCAL_WRITE);
			if (err)
				m->status = IB_WC_LOC_PROT_ERR;
		}
	}
	if (m->status != IB_WC_SUCCESS && m->status != IB_WC_REM_ACCESS_ERR &&
	    qp->ibqp.qp_type == IB_QPT_RC) {
		v = mro_resp_fail(qp, hdr, m->status == IB_WC_LOC_LEN_ERR ?
				  METAROCE_SYN_NAK_INVALID :
				  METAROCE_SYN_NAK_OP, out);
		if (v == MRO_RXV_ERR_AHEAD)
			return v;	/* the message keeps its status */
	}

	m->received += hdr->payload_len;
	if (hdr->flags & METAROCE_F_SOLICITED)
		m->solicited = true;
	if (hdr->flags & METAROCE_F_LAST) {
		m->last_psn = hdr->psn;
		m->got_last = true;
	} else if (m->status != IB_WC_SUCCESS && !m->got_last) {
		m->last_psn = hdr->psn;
	}
	if ((m->got_last && m->received >= m->length) ||
	    m->status != IB_WC_SUCCESS) {
		/* the invalidation waits for every earlier PSN */
		if (m->status == IB_WC_SUCCESS && (mask & MRO_OPM_INV))
			mro_keyorder_add(&qp->resp.keyorder, m->last_psn, m->imm,
					 m->msn);
		m->state = MRO_RMSG_DONE;
	}
	return v;
}

/*
 * Run the SEND_WITH_INV invalidations that every earlier PSN has now
 * reached (mro_keyorder.h), before any request at the window's base
 * executes.  A key that cannot be invalidated fails the message's
 * completion and the QP, as IB's invalid-request class does.
 */
static void mro_resp_run_fences(struct mro_qp *qp)
{
	struct mro_key_fence f;

	lockdep_assert_held(&qp->lock);
	while (mro_keyorder_pop_due(&qp->resp.keyorder, qp->resp.win.base, &f)) {
		struct mro_rmsg *m = &qp->resp.rmsg[f.msn & (qp->resp.nmsg - 1)];

		if (!mro_mem_invalidate(qp->dev, qp->ibqp.pd, f.key, qp->qpn))
			continue;
		if (m->state == MRO_RMSG_DONE && m->msn == f.msn)
			m->status = IB_WC_LOC_PROT_ERR;
		mro_qp_error(qp);
	}
}

static enum mro_rx_verdict mro_resp_write(struct mro_qp *qp,
					  const struct mro_hdr *hdr,
					  struct sk_buff *skb,
					  struct sk_buff_head *out)
{
	u64 va = hdr->msg.va + hdr->msg.offset;
	struct mro_mem *mem;
	int err;

	if (!hdr->payload_len)
		return MRO_RXV_OK;
	if (mro_keyorder_holds(&qp->resp.keyorder, hdr->psn, hdr->msg.rkey))
		return MRO_RXV_KEY_WAIT;	/* not before the key fence */
	if (!(qp->access_flags & IB_ACCESS_REMOTE_WRITE))
		goto access;
	mem = mro_mem_get_rkey(qp->dev, qp->ibqp.pd, qp->qpn, hdr->msg.rkey,
			       va, hdr->payload_len, IB_ACCESS_REMOTE_WRITE);
	if (!mem)
		goto access;
	err = mro_mem_copy_skb(mem, va, skb, hdr->hdr_len, hdr->payload_len);
	mro_mem_put(mem);
	if (!err)
		return MRO_RXV_OK;
access:
	return mro_resp_fail(qp, hdr, METAROCE_SYN_NAK_ACCESS, out);
}

/*
 * Answer a READ_REQ with its response packets; returns how many, or
 * -EACCES/-EINVAL.  A duplicate (@dup, the PSN is behind the window)
 * that no longer passes the checks, e.g. its key was invalidated by a
 * later SEND_WITH_INV, is not NAKed: its original was answered, and an
 * error now would blame a request the QP already accepted.
 */
static int mro_resp_read(struct mro_qp *qp, const struct mro_hdr *hdr,
			 bool dup, struct sk_buff_head *out)
{
	u32 seg = hdr->msg.imm, len = hdr->msg.length, k, n, off;
	u64 va = hdr->msg.va + hdr->msg.offset;
	struct mro_mem *mem = NULL;

	if (seg > qp->dev->payload_mtu)
		goto invalid;
	n = max_t(u32, 1, DIV_ROUND_UP(len, seg));
	if (n > qp->resp.win.size / 2)
		goto invalid;
	if (len) {
		if (!(qp->access_flags & IB_ACCESS_REMOTE_READ))
			goto access;
		mem = mro_mem_get_rkey(qp->dev, qp->ibqp.pd, qp->qpn,
				       hdr->msg.rkey, va, len,
				       IB_ACCESS_REMOTE_READ);
		if (!mem)
			goto access;
	}
	for (k = 0; k < n; k++) {
		struct mro_hdr r = {};
		struct sk_buff *skb;
		void *payload;
		u32 plen;

		off = k * seg;
		plen = min_t(u32, seg, len - min(off, len));
		r.opcode = METAROCE_OP_READ_RESP;
		r.sqpn = qp->qpn;
		r.dqpn = qp->dest_qpn;
		r.psn = hdr->psn + k;
		r.path = mro_path_reply(&qp->paths, hdr->path, &r.path_seq);
		r.tsval = mro_qp_tsval(qp, mro_now_us());
		r.flags = METAROCE_F_ECT;
		if (k == n - 1)
			r.flags |= METAROCE_F_LAST;
		r.rresp.offset = hdr->msg.offset + off;
		/* the request's send time: its sender tells which arrived */
		r.rresp.ts_echo = hdr->tsval;
		if (!r.rresp.offset)
			r.flags |= METAROCE_F_FIRST;
		skb = mro_tx_build(qp, &qp->av, &r, plen, &payload);
		if (!skb)
			break;
		if (plen && mro_mem_copy(mem, va + off, payload, plen,
					 MRO_COPY_FROM_MEM)) {
			kfree_skb(skb);
			break;
		}
		mro_tx_seal(skb);
		__skb_queue_tail(out, skb);
		mro_path_sent(&qp->paths, r.path, plen, false);
	}
	if (mem)
		mro_mem_put(mem);
	return n;

access:
	if (dup)
		goto drop;
	mro_nak(qp, hdr, METAROCE_SYN_NAK_ACCESS, out);
	return -EACCES;
invalid:
	if (dup)
		goto drop;
	mro_nak(qp, hdr, METAROCE_SYN_NAK_INVALID, out);
	return -EINVAL;
drop:
	return -EINVAL;
}

/* responder resources: max_dest_rd_atomic, at least one remembered */
static u32 mro_resp_res(struct mro_qp *qp)
{
	return clamp_t(u32, qp->max_dest_rd_atomic, 1, MRO_MAX_RD_ATOM);
}

/*
 * Remember the READ at @req, answered with @n responses: as the next part
 * of the READ remembered last, or in a resource of its own.  The oldest
 * one makes room: a requester keeps at most max_dest_rd_atomic READs and
 * atomics outstanding, so the one evicted has completed there.
 */
static void mro_read_res_save(struct mro_qp *qp, const struct mro_hdr *req,
			      u32 n)
{
	u32 res = mro_resp_res(qp);
	struct mro_read_res *r = &qp->resp.rres[(qp->resp.rres_next - 1) % res];

	if (mro_read_res_extends(r, req->psn, req->msg.va, req->msg.rkey,
				 req->msg.imm, req->msg.offset)) {
		r->npsn += n;
		r->end = (u64)req->msg.offset + req->msg.length;
		return;
	}
	r = &qp->resp.rres[qp->resp.rres_next++ % res];

	r->psn = req->psn;
	r->npsn = n;
	r->va = req->msg.va;
	r->rkey = req->msg.rkey;
	r->offset = req->msg.offset;
	r->end = (u64)req->msg.offset + req->msg.length;
	r->seg = req->msg.imm;
	r->valid = true;
}

/*
 * A duplicate READ_REQ: answered again only when it asks for responses of
 * a READ the responder remembers (mro_respres.h) and still passes the
 * checks; else dropped.
 */
static enum mro_rx_verdict mro_resp_read_replay(struct mro_qp *qp,
						const struct mro_hdr *req,
						struct sk_buff_head *out)
{
	u32 i;

	for (i = 0; i < mro_resp_res(qp); i++)
		if (mro_read_replay_ok(&qp->resp.rres[i], req->psn, req->msg.va,
				       req->msg.rkey, req->msg.imm,
				       req->msg.offset, req->msg.length))
			return mro_resp_read(qp, req, true, out) < 0 ?
			       MRO_RXV_DUP_REQ : MRO_RXV_OK;
	return MRO_RXV_DUP_REQ;
}

static void mro_send_atomic_resp(struct mro_qp *qp, const struct mro_hdr *req,
				 u64 orig, struct sk_buff_head *out)
{
	struct mro_hdr r = {};

	r.opcode = METAROCE_OP_ATOMIC_RESP;
	r.flags = METAROCE_F_ECT;
	r.sqpn = qp->qpn;
	r.dqpn = qp->dest_qpn;
	r.psn = req->psn;
	r.path = mro_path_reply(&qp->paths, req->path, &r.path_seq);
	r.tsval = mro_qp_tsval(qp, mro_now_us());
	r.orig = orig;
	mro_queue_hdr_only(qp, &r, out);
}

static struct mro_atomic_res *mro_ares_find(struct mro_qp *qp, u32 psn)
{
	u32 i;

	for (i = 0; i < mro_resp_res(qp); i++)
		if (qp->resp.ares[i].valid && qp->resp.ares[i].psn == psn)
			return &qp->resp.ares[i];
	return NULL;
}

/*
 * Execute an atomic, or answer a duplicate (@dup) from the remembered
 * result: MRO_RXV_OK, MRO_RXV_DUP_REQ (nothing remembered), MRO_RXV_FAILED.
 */
static enum mro_rx_verdict mro_resp_atomic(struct mro_qp *qp,
					   const struct mro_hdr *hdr,
					   bool dup, struct sk_buff_head *out)
{
	const struct mro_atomic_hdr *a = &hdr->atomic;
	struct mro_atomic_res *res;
	struct mro_mem *mem;
	u64 orig;
	int err;

	res = mro_ares_find(qp, hdr->psn);
	if (res) {
		mro_send_atomic_resp(qp, hdr, res->orig, out);
		return MRO_RXV_OK;
	}
	if (dup)	/* too old to answer; never execute twice */
		return MRO_RXV_DUP_REQ;
	if (!(qp->access_flags & IB_ACCESS_REMOTE_ATOMIC))
		goto access;
	mem = mro_mem_get_rkey(qp->dev, qp->ibqp.pd, qp->qpn, a->rkey, a->va,
			       8, IB_ACCESS_REMOTE_ATOMIC);
	if (!mem)
		goto access;
	err = mro_mem_atomic(mem, a->va,
			     hdr->opcode == METAROCE_OP_CMP_SWAP ?
			     MRO_ATOMIC_CMP_SWAP : MRO_ATOMIC_FETCH_ADD,
			     a->compare, a->swap_add, &orig);
	mro_mem_put(mem);
	if (err)
		goto access;
	/*
	 * The oldest result makes room: a requester keeps at most
	 * max_dest_rd_atomic of these outstanding, so the one evicted has
	 * been answered and its answer received.
	 */
	res = &qp->resp.ares[qp->resp.ares_next++ % mro_resp_res(qp)];
	res->psn = hdr->psn;
	res->orig = orig;
	res->valid = true;
	mro_send_atomic_resp(qp, hdr, orig, out);
	return MRO_RXV_OK;
access:
	mro_nak(qp, hdr, METAROCE_SYN_NAK_ACCESS, out);
	return MRO_RXV_FAILED;
}

/*
 * Would a READ/atomic that arrived ahead of its turn pass the checks its
 * execution makes now?  One that would not is dropped (MRO_RXV_ERR_AHEAD)
 * rather than kept: kept, it would fail in its turn and end the QP, and as
 * the one waiting at its PSN it would also have the genuine packet of that
 * PSN dropped as its duplicate, so that a sender who guessed a PSN of the
 * window, but no key, could end the connection.  The requester's own
 * request, if it is one, is resent and judged again in its turn.
 */
static bool mro_rd_atomic_checks_ok(struct mro_qp *qp,
				    const struct mro_hdr *hdr)
{
	const struct mro_atomic_hdr *a = &hdr->atomic;
	u8 rx = mro_op(hdr->opcode)->rx;
	struct mro_mem *mem;
	int access;
	u32 rkey, len;
	u64 va;

	switch (rx) {
	case MRO_OPRX_READ:
		/* mro_resp_read()'s checks; the decoder bounds imm to 256.. */
		if (hdr->msg.imm > qp->dev->payload_mtu ||
		    max_t(u32, 1, DIV_ROUND_UP(hdr->msg.length, hdr->msg.imm)) >
		    qp->resp.win.size / 2)
			return false;
		if (!hdr->msg.length)
			return true;
		access = IB_ACCESS_REMOTE_READ;
		rkey = hdr->msg.rkey;
		va = hdr->msg.va + hdr->msg.offset;
		len = hdr->msg.length;
		break;
	case MRO_OPRX_ATOMIC:
	case MRO_OPRX_ATOMIC_WRITE:
		access = rx == MRO_OPRX_ATOMIC_WRITE ?
			 IB_ACCESS_REMOTE_WRITE : IB_ACCESS_REMOTE_ATOMIC;
		rkey = a->rkey;
		va = a->va;
		len = sizeof(u64);
		break;
	case MRO_OPRX_FLUSH:
		/* it checks, and orders placements, and changes nothing */
		return !mro_resp_flush(qp, hdr);
	default:
		return false;
	}
	if (!(qp->access_flags & access))
		return false;
	mem = mro_mem_get_rkey(qp->dev, qp->ibqp.pd, qp->qpn, rkey, va, len,
			       access);
	if (!mem)
		return false;
	mro_mem_put(mem);
	return true;
}

/*
 * Keep a READ/atomic that arrived early.  Returns 0, -ENOSPC when there is
 * no room (dropped: the requester sends it again), or -EPROTO when the
 * requester has more requests outstanding than max_dest_rd_atomic allows
 * (none of those waiting has been answered, so all are outstanding).
 */
static int mro_pend_add(struct mro_qp *qp, const struct mro_hdr *hdr)
{
	u32 i, used = 0;
	int free = -1;

	for (i = 0; i < MRO_NPEND; i++) {
		if (qp->resp.pend[i].valid && qp->resp.pend[i].hdr.psn == hdr->psn)
			return 0;	/* a duplicate of one waiting */
		if (!qp->resp.pend[i].valid && free < 0)
			free = i;
		else if (qp->resp.pend[i].valid &&
			 (qp->resp.pend[i].hdr.flags & METAROCE_F_FIRST))
			used++;
	}
	if ((hdr->flags & METAROCE_F_FIRST) && used >= qp->max_dest_rd_atomic)
		return -EPROTO;
	if (free < 0)
		return -ENOSPC;
	qp->resp.pend[free].hdr = *hdr;
	qp->resp.pend[free].valid = true;
	return 0;
}

/* execute a READ/atomic now in PSN order; marks its PSNs */
static int mro_exec_rd_atomic(struct mro_qp *qp, const struct mro_hdr *hdr,
			      struct sk_buff_head *out)
{
	u8 rx = mro_op(hdr->opcode)->rx;
	int n, i;

	switch (rx) {
	case MRO_OPRX_READ:
		n = mro_resp_read(qp, hdr, false, out);
		if (n < 0)
			return n;
		mro_read_res_save(qp, hdr, n);
		/* the responses use the PSNs after this one */
		for (i = 1; i < n; i++)
			if (mro_rxwin_classify(&qp->resp.win, hdr->psn + i) ==
			    MRO_RX_NEW)
				mro_rxwin_mark(&qp->resp.win, hdr->psn + i);
		break;
	case MRO_OPRX_FLUSH:
	case MRO_OPRX_ATOMIC_WRITE:
		if (rx == MRO_OPRX_FLUSH ?
		    mro_resp_flush(qp, hdr) : mro_resp_atomic_write(qp, hdr)) {
			mro_nak(qp, hdr, METAROCE_SYN_NAK_ACCESS, out);
			return -EACCES;
		}
		break;
	default:
		if (mro_resp_atomic(qp, hdr, false, out) != MRO_RXV_OK)
			return -EACCES;
		break;
	}
	mro_rxwin_mark(&qp->resp.win, hdr->psn);
	return 0;
}

/*
 * Run the key fences and the waiting READ/atomic requests whose turn has
 * come, in PSN order: the fences before the base first (also on a QP that
 * has just failed, so that no completion reports an invalidation that did
 * not happen), then a request at the base, then the fences it let through.
 */
static void mro_pend_run(struct mro_qp *qp, struct sk_buff_head *out)
{
	bool again = true;
	int i;

	mro_resp_run_fences(qp);
	while (again && qp->state != IB_QPS_ERR) {
		again = false;
		for (i = 0; i < MRO_NPEND && qp->state != IB_QPS_ERR; i++) {
			struct mro_pending_req *p = &qp->resp.pend[i];

			if (!p->valid)
				continue;
			if (mro_seq_before(p->hdr.psn, qp->resp.win.base)) {
				p->valid = false;	/* covered meanwhile */
				continue;
			}
			if (p->hdr.psn != qp->resp.win.base)
				continue;
			p->valid = false;
			if (!mro_exec_rd_atomic(qp, &p->hdr, out)) {
				again = true;
				mro_resp_run_fences(qp);
			}
		}
	}
}

/*
 * classify and accept: the acceptance rules of a request-direction packet
 * (the QP's state and type, UC's bounds, the receive window) and its
 * class in the window (*@cls: new or duplicate).  A packet that fails
 * one changes nothing.
 */
VISIBLE_IF_KUNIT enum mro_rx_verdict
mro_resp_accept(struct mro_qp *qp, const struct mro_hdr *hdr,
		enum mro_rx_class *cls)
{
	const struct mro_opinfo *op = mro_op(hdr->opcode);
	bool rc = qp->ibqp.qp_type == IB_QPT_RC;
	int n;

	lockdep_assert_held(&qp->lock);
	if (qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR)
		return MRO_RXV_QP_STATE;
	if (!rc && (op->mask & MRO_OPM_RC_ONLY))
		return MRO_RXV_QP_MISMATCH;
	if (!rc) {
		/* UC never retransmits: give up what later traffic passed */
		while ((n = mro_uc_make_room(qp, hdr)) > 0)
			mro_complete_rmsgs(qp);
		if (n == -ERANGE)
			return MRO_RXV_WINDOW;
		if (n < 0)
			return MRO_RXV_FIELD;
	}
	*cls = mro_rxwin_classify(&qp->resp.win, hdr->psn);
	if (*cls == MRO_RX_AHEAD)
		return MRO_RXV_WINDOW;
	return MRO_RXV_OK;
}
EXPORT_SYMBOL_IF_KUNIT(mro_resp_accept);

/* a duplicate: answered again if it can be, never placed or run again */
static enum mro_rx_verdict mro_resp_duplicate(struct mro_qp *qp,
					      const struct mro_hdr *hdr,
					      struct sk_buff_head *out)
{
	const struct mro_opinfo *op = mro_op(hdr->opcode);
	enum mro_rx_verdict v = MRO_RXV_OK;

	lockdep_assert_held(&qp->lock);
	if (op->rx == MRO_OPRX_READ &&
	    mro_seq_before(hdr->psn, qp->resp.win.base))
		v = mro_resp_read_replay(qp, hdr, out);
	else if (op->rx == MRO_OPRX_ATOMIC)
		v = mro_resp_atomic(qp, hdr, true, out);
	else if (qp->ibqp.qp_type == IB_QPT_RC)
		mro_send_dup_ack(qp, hdr, out);
	return v == MRO_RXV_OK ? MRO_RXV_DUP : v;
}

/* what placing a new packet did to its PSN (mro_resp_place()) */
enum mro_placed {
	MRO_PLACED,		/* payload placed: the PSN is to be marked */
	MRO_PLACED_MARKED,	/* executed in order, the PSN marked */
	MRO_PLACED_DEFERRED,	/* READ/atomic kept for its turn: unmarked */
};

/*
 * place: a new packet's payload placed, or its READ, atomic or FLUSH
 * executed (in PSN order: ahead of its turn it waits in qp->resp.pend).
 * MRO_RXV_OK with *@placed, else the verdict that ends the packet;
 * MRO_RXV_FAILED leaves the PSN marked, its completion carrying the
 * error.
 */
static enum mro_rx_verdict mro_resp_place(struct mro_qp *qp,
					  const struct mro_hdr *hdr,
					  struct sk_buff *skb,
					  struct sk_buff_head *out,
					  enum mro_placed *placed)
{
	const struct mro_opinfo *op = mro_op(hdr->opcode);
	enum mro_rx_verdict v;
	int n;

	lockdep_assert_held(&qp->lock);
	*placed = MRO_PLACED;
	switch (op->rx) {
	case MRO_OPRX_MSG:
		v = mro_resp_msg(qp, hdr, skb, out);
		if (v == MRO_RXV_FAILED) {
			/* NAKed: its completion carries the error, no ACK */
			mro_rxwin_mark(&qp->resp.win, hdr->psn);
			mro_complete_rmsgs(qp);
		}
		/* not accepted: the PSN stays unmarked */
		return v;
	case MRO_OPRX_WRITE:
		return mro_resp_write(qp, hdr, skb, out);
	case MRO_OPRX_READ:
	case MRO_OPRX_ATOMIC:
	case MRO_OPRX_FLUSH:
	case MRO_OPRX_ATOMIC_WRITE:
		if (!qp->max_dest_rd_atomic)	/* IB's invalid request */
			return mro_resp_fail(qp, hdr, METAROCE_SYN_NAK_INVALID,
					     out);
		/* they see memory as every earlier request left it */
		if (hdr->psn != qp->resp.win.base) {
			if (!mro_rd_atomic_checks_ok(qp, hdr))
				return MRO_RXV_ERR_AHEAD;
			n = mro_pend_add(qp, hdr);
			if (n == -EPROTO)	/* past max_dest_rd_atomic */
				return mro_resp_fail(qp, hdr,
						     METAROCE_SYN_NAK_INVALID,
						     out);
			if (n)
				return MRO_RXV_BUSY;	/* resent later */
			*placed = MRO_PLACED_DEFERRED;
			return MRO_RXV_OK;
		}
		if (mro_exec_rd_atomic(qp, hdr, out))
			return MRO_RXV_FAILED;
		*placed = MRO_PLACED_MARKED;
		return MRO_RXV_OK;
	default:
		return MRO_RXV_FIELD;
	}
}

/*
 * complete: the PSN marked, the requests that waited for it run, the
 * messages whose turn came completed.
 */
static void mro_resp_complete(struct mro_qp *qp, const struct mro_hdr *hdr,
			      enum mro_placed placed, struct sk_buff_head *out)
{
	lockdep_assert_held(&qp->lock);
	if (placed == MRO_PLACED_DEFERRED)
		return;
	if (placed == MRO_PLACED)
		mro_rxwin_mark(&qp->resp.win, hdr->psn);
	mro_pend_run(qp, out);
	mro_complete_rmsgs(qp);
}

/*
 * acknowledge (RC): at once when asked, when the packet opened or filled
 * a hole (@ack_now) or its PSN is one of the rhythm's; else every
 * MRO_ACK_EVERY packets.  The packets in order past a hole keep the
 * rhythm: the SACK of the next ACK shows them.  Acknowledging each of
 * those (every packet of the RTT or two a hole lasts) cost more than the
 * loss itself (design.rst, ACK coalescing).
 */
static void mro_resp_acknowledge(struct mro_qp *qp, const struct mro_hdr *hdr,
				 bool ack_now, struct sk_buff_head *out)
{
	lockdep_assert_held(&qp->lock);
	if (qp->ibqp.qp_type != IB_QPT_RC)
		return;
	if (hdr->flags & METAROCE_F_ACK_REQ)
		ack_now = true;
	if (ack_now || mro_psn_self_acked(hdr->psn) ||
	    ++qp->resp.ack_pending >= MRO_ACK_EVERY)
		mro_ack_first(qp, hdr, out);
}

/*
 * A request-direction packet for this RC/UC QP, through the responder's
 * stages: classify and accept (a packet that fails changes nothing),
 * then what it carries: the piggy-backed ACK (before the request itself,
 * so that the WQEs it completes complete first), a duplicate's answer,
 * CE and credit activity, place, complete, acknowledge.
 */
enum mro_rx_verdict mro_resp_rcv(struct mro_qp *qp,
				 const struct mro_hdr *hdr,
				 struct sk_buff *skb, struct sk_buff_head *out)
{
	enum mro_rx_verdict v;
	enum mro_rx_class cls;
	enum mro_placed placed;
	bool ack_now;

	v = mro_resp_accept(qp, hdr, &cls);
	if (v != MRO_RXV_OK)
		return v;
	/* a packet of the window's: its cumulative ACK may count */
	if (hdr->flags & METAROCE_F_ACK_PIGGY)
		mro_req_ack_piggy(qp, hdr->ack_psn, out);
	if (cls == MRO_RX_DUP)
		return mro_resp_duplicate(qp, hdr, out);
	/* CE count, credit activity: only a packet of the receive window's */
	mro_cc_rx(qp, hdr);
	if (mro_rxwin_has_hole(&qp->resp.win) ||
	    hdr->psn != qp->resp.win.base)
		mro_qp_count(qp, MRO_CNT_RX_OOO, 1);
	/* before placing: whether this PSN opens or fills a hole */
	ack_now = mro_rxwin_ack_now(&qp->resp.win, hdr->psn);
	v = mro_resp_place(qp, hdr, skb, out, &placed);
	if (v != MRO_RXV_OK)
		return v;
	mro_resp_complete(qp, hdr, placed, out);
	mro_resp_acknowledge(qp, hdr, ack_now, out);
	return MRO_RXV_OK;
}

/* a path probe: answered by an ACK that echoes it */
enum mro_rx_verdict mro_resp_probe(struct mro_qp *qp,
				   const struct mro_hdr *hdr,
				   struct sk_buff_head *out)
{
	lockdep_assert_held(&qp->lock);
	if (qp->ibqp.qp_type != IB_QPT_RC)
		return MRO_RXV_QP_MISMATCH;
	if (!(hdr->flags & METAROCE_F_ACK_REQ))
		return MRO_RXV_FIELD;
	if (qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR)
		return MRO_RXV_QP_STATE;
	/*
	 * Its PSN is its sender's next one when it left (the sender keeps
	 * inside our grant), perhaps overtaken since by later data: nothing
	 * else can be answered, nor its CE mark or port change taken.
	 */
	if (!mro_rxwin_probe_ok(&qp->resp.win, hdr->psn))
		return MRO_RXV_WINDOW;
	if (hdr->ce)		/* echoed like a marked request */
		qp->resp.ecn_ce++;
	/*
	 * A re-probe: the requester retired this slot and took a fresh
	 * port for it.  What it lost may have been our answers on our port
	 * of the slot (READ responses, ACKs), so the answer to the probe,
	 * and what follows on the slot, leave from a fresh port too.
	 */
	if ((hdr->flags & METAROCE_F_NEW_PORT) && hdr->path < qp->paths.n) {
		mro_path_new_sport(&qp->paths, hdr->path);
		mro_qp_count(qp, MRO_CNT_REPROBES_RCVD, 1);
	}
	mro_send_ack(qp, hdr, METAROCE_SYN_ACK, 0, 0, out);
	return MRO_RXV_OK;
}
