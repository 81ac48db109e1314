// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce completion queues.  The kernel produces CQEs into a ring
 * (mro_queue.c); user CQs are polled by librxe straight from the mapped
 * ring (struct ib_uverbs_wc elements), kernel CQs through mro_poll_cq()
 * (struct ib_wc elements).
 *
 * Notification: cq->notify holds the armed mode.  A post that matches it
 * disarms it and owes one call of the completion handler.  The handler is
 * called without cq->lock held, by one caller at a time (cq->in_handler):
 * a post that finds the handler running only sets handler_pending and the
 * running caller loops.  So a kernel ULP may poll and re-arm, and even
 * post work that completes synchronously, from inside its handler.
 */
#include <linux/delay.h>
#include <rdma/uverbs_ioctl.h>

#include "mro.h"

/*
 * wc_flags as user space reads them (enum ibv_wc_flags): not the kernel's
 * enum ib_wc_flags, which numbers WITH_INVALIDATE and IP_CSUM_OK the other
 * way round.
 */
#define MRO_UWC_GRH		BIT(0)
#define MRO_UWC_WITH_IMM	BIT(1)
#define MRO_UWC_IP_CSUM_OK	BIT(2)
#define MRO_UWC_WITH_INV	BIT(3)

/*
 * User space has no network header type.  A RoCE completion of an mlx5
 * device carries it in sl (its CQE's L3 header type shares those bits), and
 * that is where UCX's UD transport reads it: with sl 0 it takes an IPv4
 * datagram's GRH area for an IPv6 header, finds no destination GID of its
 * own there and drops the datagram.
 */
#define MRO_UWC_SL_IPV6		1
#define MRO_UWC_SL_IPV4		2

static u32 mro_uwc_flags(int flags)
{
	u32 uflags = 0;

	if (flags & IB_WC_GRH)
		uflags |= MRO_UWC_GRH;
	if (flags & IB_WC_WITH_IMM)
		uflags |= MRO_UWC_WITH_IMM;
	if (flags & IB_WC_WITH_INVALIDATE)
		uflags |= MRO_UWC_WITH_INV;
	if (flags & IB_WC_IP_CSUM_OK)
		uflags |= MRO_UWC_IP_CSUM_OK;
	return uflags;
}

static void mro_wc_to_uwc(struct ib_uverbs_wc *uwc, const struct ib_wc *wc)
{
	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	/* enum ib_wc_opcode is defined on enum ib_uverbs_wc_opcode */
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		uwc->ex.invalidate_rkey = wc->ex.invalidate_rkey;
	else
		uwc->ex.imm_data = wc->ex.imm_data;
	uwc->qp_num = wc->qp ? wc->qp->qp_num : 0;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = mro_uwc_flags(wc->wc_flags);
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = (u16)wc->slid;
	uwc->sl = wc->sl;
	if (wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE)
		uwc->sl = wc->network_hdr_type == RDMA_NETWORK_IPV4 ?
			  MRO_UWC_SL_IPV4 : MRO_UWC_SL_IPV6;
	uwc->dlid_path_bits = wc->dlid_path_bits;
	uwc->port_num = wc->port_num;
}

static void mro_cq_event(struct mro_cq *cq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = type,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/* called with cq->in_handler claimed by us, cq->lock not held */
static void mro_cq_run_handler(struct mro_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	while (cq->handler_pending && !cq->dying) {
		cq->handler_pending = false;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
		spin_lock_irqsave(&cq->lock, flags);
	}
	cq->in_handler = false;
	spin_unlock_irqrestore(&cq->lock, flags);
}

int mro_cq_post(struct mro_cq *cq, const struct ib_wc *wc, bool solicited)
{
	struct mro_queue *q;
	union mro_cqe *cqe;
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	if (unlikely(cq->dying)) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return -EIO;
	}
	q = cq->queue;
	if (unlikely(mro_queue_full(q))) {
		/* sent by mro_cq_notify(), out of the QP lock */
		if (!cq->err_reported)
			cq->err_pending = true;
		cq->err_reported = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		return -ENOSPC;
	}

	cqe = mro_queue_slot(q, mro_queue_producer(q));
	if (cq->is_user)
		mro_wc_to_uwc(&cqe->uibwc, wc);
	else
		cqe->ibwc = *wc;
	mro_queue_advance(q);

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED && solicited)) {
		cq->notify = 0;
		cq->handler_pending = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return 0;
}

/*
 * Run the completion handler if a post armed it, and send the CQ_ERR
 * event a post found owed.  mro_cq_post() is called under the QP lock
 * (completions must enter the CQ in order); a handler may post to that QP,
 * modify it or sleep, so the QP layer calls this after dropping it.
 */
void mro_cq_notify(struct mro_cq *cq)
{
	unsigned long flags;
	bool run = false, err;

	if (!cq || (!READ_ONCE(cq->handler_pending) &&
		    !READ_ONCE(cq->err_pending)))
		return;
	spin_lock_irqsave(&cq->lock, flags);
	err = cq->err_pending && !cq->dying;
	cq->err_pending = false;
	if (cq->handler_pending && !cq->in_handler && !cq->dying) {
		cq->in_handler = true;
		run = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (err)
		mro_cq_event(cq, IB_EVENT_CQ_ERR);
	if (run)
		mro_cq_run_handler(cq);
}

static int mro_cq_check_size(struct mro_dev *dev, int cqe)
{
	if (cqe <= 0 || cqe > dev->ib_dev.attrs.max_cqe)
		return -EINVAL;
	return 0;
}

int mro_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  MRO_CQ_UDATA *attrs)
{
	struct ib_udata *udata = mro_create_cq_udata(attrs);
	struct mro_dev *dev = to_mro_dev(ibcq->device);
	struct mro_cq *cq = to_mro_cq(ibcq);
	struct rxe_create_cq_resp resp = {};
	u32 num = attr->cqe;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	err = mro_cq_check_size(dev, attr->cqe);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = mro_obj_charge(dev, MRO_OBJ_CQ);
	if (err)
		return err;

	spin_lock_init(&cq->lock);
	cq->is_user = !!udata;
	cq->queue = mro_queue_alloc(dev, &num, sizeof(union mro_cqe),
				    MRO_Q_KERNEL_PRODUCES);
	if (!cq->queue) {
		mro_obj_uncharge(dev, MRO_OBJ_CQ);
		return -ENOMEM;
	}

	if (udata) {
		err = mro_queue_publish(cq->queue, udata, &resp.mi);
		if (err)
			goto err_free;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_free;
	}
	ibcq->cqe = num;
	return 0;

err_free:
	mro_queue_free(cq->queue);
	cq->queue = NULL;
	mro_obj_uncharge(dev, MRO_OBJ_CQ);
	return err;
}

int mro_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct mro_dev *dev = to_mro_dev(ibcq->device);
	struct mro_cq *cq = to_mro_cq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	struct mro_queue *nq, *old;
	unsigned long flags;
	u32 num = cqe;
	int err;

	err = mro_cq_check_size(dev, cqe);
	if (err)
		return err;
	if (cq->is_user && (!udata || udata->outlen < sizeof(resp)))
		return -EINVAL;

	nq = mro_queue_alloc(dev, &num, sizeof(union mro_cqe),
			     MRO_Q_KERNEL_PRODUCES);
	if (!nq)
		return -ENOMEM;
	if (cq->is_user) {
		/* librxe ignores the response if the verb fails */
		err = mro_queue_publish(nq, udata, &resp.mi);
		if (!err)
			err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_free;
	}

	spin_lock_irqsave(&cq->lock, flags);
	old = cq->queue;
	/* fails if more CQEs are pending than the new ring holds */
	err = mro_queue_move(nq, old);
	if (!err) {
		cq->queue = nq;
		cq->err_reported = false;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (err)
		goto err_free;

	/* librxe unmaps the old ring itself and maps the new one */
	mro_queue_free(old);
	ibcq->cqe = num;
	return 0;

err_free:
	mro_queue_free(nq);
	return err;
}

int mro_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct mro_cq *cq = to_mro_cq(ibcq);

	spin_lock_irq(&cq->lock);
	cq->dying = true;
	/* a handler loop on another CPU sees dying and stops after one call */
	while (cq->in_handler) {
		spin_unlock_irq(&cq->lock);
		usleep_range(50, 100);
		spin_lock_irq(&cq->lock);
	}
	spin_unlock_irq(&cq->lock);

	mro_queue_free(cq->queue);
	cq->queue = NULL;
	mro_obj_uncharge(to_mro_dev(ibcq->device), MRO_OBJ_CQ);
	return 0;
}

/* kernel CQs: the kernel is the consumer too, under cq->lock */
static void mro_cq_consume(struct mro_queue *q)
{
	u32 cons = mro_queue_consumer(q);

	/* release: the CQE is copied out before its slot is handed back */
	smp_store_release(&q->buf->consumer_index, (cons + 1) & q->index_mask);
}

int mro_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct mro_cq *cq = to_mro_cq(ibcq);
	struct mro_queue *q;
	union mro_cqe *cqe;
	unsigned long flags;
	int n = 0;

	if (WARN_ON_ONCE(cq->is_user))
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, flags);
	q = cq->queue;
	while (n < num_entries && !mro_queue_empty(q)) {
		cqe = mro_queue_slot(q, mro_queue_consumer(q));
		wc[n++] = cqe->ibwc;
		mro_cq_consume(q);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int mro_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct mro_cq *cq = to_mro_cq(ibcq);
	u8 mode = flags & IB_CQ_SOLICITED_MASK;
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* NEXT_COMP is the wider arm: a SOLICITED request does not narrow it */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = mode;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && !mro_queue_empty(cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
