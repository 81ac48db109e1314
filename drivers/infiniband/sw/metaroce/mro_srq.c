// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce receive WQEs and shared receive queues.
 *
 * RQ and SRQ rings hold struct rxe_recv_wqe + rxe_sge[max_sge] elements.
 * User space (librxe) produces them with no system call, so everything in
 * a slot is hostile: mro_recv_wqe_peek() reads each field once into a
 * kernel copy and checks it before anyone uses it.
 *
 * An SRQ is published in dev->srqs under its srq_num; the receive path
 * may find it under RCU (mro_srq_get()).  srq->lock serialises the
 * consumer, kernel producers and the ring swap of a resize.
 */
#include <kunit/visibility.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <rdma/uverbs_ioctl.h>

#include "mro.h"

#define MRO_MAX_RECV_LEN	SZ_2G		/* one message: 2^31 bytes */

int mro_recv_wqe_peek(struct mro_queue *q, u32 max_sge,
		      struct mro_recv_wqe *wqe)
{
	const struct rxe_recv_wqe *uw;
	u64 total = 0;
	u32 i, n;

	if (mro_queue_empty(q))		/* acquire: the slot is written */
		return -ENOENT;
	uw = mro_queue_slot(q, mro_queue_consumer(q));

	wqe->wr_id = READ_ONCE(uw->wr_id);
	wqe->num_sge = 0;
	wqe->length = 0;

	n = READ_ONCE(uw->dma.num_sge);
	if (n > max_sge || n > MRO_MAX_RECV_SGE ||
	    mro_recv_wqe_size(n) > q->elem_size)
		return -EINVAL;

	for (i = 0; i < n; i++) {
		u32 len = READ_ONCE(uw->dma.sge[i].length);

		if (len > MRO_MAX_RECV_LEN)
			return -EINVAL;
		total += len;
		wqe->sge[i].addr = READ_ONCE(uw->dma.sge[i].addr);
		wqe->sge[i].length = len;
		wqe->sge[i].lkey = READ_ONCE(uw->dma.sge[i].lkey);
	}
	if (total > MRO_MAX_RECV_LEN)
		return -EINVAL;

	wqe->num_sge = n;
	wqe->length = total;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_recv_wqe_peek);

/* write one kernel receive WR into @q; the producer lock is held */
static int mro_recv_wqe_produce(struct mro_queue *q, u32 max_sge,
				const struct ib_recv_wr *wr)
{
	struct rxe_recv_wqe *slot;
	u64 total = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > max_sge ||
	    mro_recv_wqe_size(wr->num_sge) > q->elem_size)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > MRO_MAX_RECV_LEN)
		return -EINVAL;

	slot = mro_queue_kernel_producer_slot(q);
	if (!slot)
		return -ENOMEM;

	memset(slot, 0, sizeof(*slot));
	slot->wr_id = wr->wr_id;
	slot->dma.length = total;
	slot->dma.resid = total;
	slot->dma.num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		slot->dma.sge[i].addr = wr->sg_list[i].addr;
		slot->dma.sge[i].length = wr->sg_list[i].length;
		slot->dma.sge[i].lkey = wr->sg_list[i].lkey;
	}
	mro_queue_kernel_produce(q);	/* release: the slot first */
	return 0;
}

static int mro_post_recv_locked(struct mro_queue *q, u32 max_sge,
				const struct ib_recv_wr *wr,
				const struct ib_recv_wr **bad_wr)
{
	int err;

	for (; wr; wr = wr->next) {
		err = mro_recv_wqe_produce(q, max_sge, wr);
		if (err) {
			*bad_wr = wr;
			return err;
		}
	}
	return 0;
}

int mro_post_recv_ring(struct mro_queue *q, spinlock_t *producer_lock,
		       u32 max_sge, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	unsigned long flags;
	int err;

	spin_lock_irqsave(producer_lock, flags);
	err = mro_post_recv_locked(q, max_sge, wr, bad_wr);
	spin_unlock_irqrestore(producer_lock, flags);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(mro_post_recv_ring);

int mro_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct mro_srq *srq = to_mro_srq(ibsrq);
	unsigned long flags;
	int err;

	if (WARN_ON_ONCE(srq->is_user)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	/* srq->queue only changes under srq->lock (resize) */
	spin_lock_irqsave(&srq->lock, flags);
	err = mro_post_recv_locked(srq->queue, srq->max_sge, wr, bad_wr);
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}

static void mro_srq_event(struct mro_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

int mro_srq_take(struct mro_srq *srq, struct mro_recv_wqe *wqe)
{
	struct mro_queue *q;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&srq->lock, flags);
	q = srq->queue;
	err = mro_recv_wqe_peek(q, srq->max_sge, wqe);
	if (err != -ENOENT) {
		/* a malformed WQE is consumed too, or it would block the SRQ */
		mro_queue_advance(q);
		if (srq->limit && mro_queue_count(q) < srq->limit) {
			srq->limit = 0;		/* fires once per arm */
			srq->limit_pending = true;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}

/*
 * The event mro_srq_take() found owed.  Not sent from there: it runs under
 * the QP lock with BHs off, and a kernel ULP's handler may post to the
 * SRQ, modify the QP or sleep.
 */
void mro_srq_notify(struct mro_srq *srq)
{
	unsigned long flags;
	bool hit;

	if (!srq || !READ_ONCE(srq->limit_pending))
		return;
	spin_lock_irqsave(&srq->lock, flags);
	hit = srq->limit_pending;
	srq->limit_pending = false;
	spin_unlock_irqrestore(&srq->lock, flags);
	if (hit)
		mro_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
}

struct mro_srq *mro_srq_get(struct mro_dev *dev, u32 srq_num)
{
	struct mro_srq *srq;

	rcu_read_lock();
	srq = xa_load(&dev->srqs, srq_num);
	if (srq && !kref_get_unless_zero(&srq->ref))
		srq = NULL;
	rcu_read_unlock();
	return srq;
}

static void mro_srq_release(struct kref *ref)
{
	struct mro_srq *srq = container_of(ref, struct mro_srq, ref);

	complete(&srq->released);
}

void mro_srq_put(struct mro_srq *srq)
{
	kref_put(&srq->ref, mro_srq_release);
}

static int mro_srq_check_max_wr(struct mro_dev *dev, u32 max_wr)
{
	if (!max_wr || max_wr > dev->ib_dev.attrs.max_srq_wr)
		return -EINVAL;
	return 0;
}

int mro_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct mro_dev *dev = to_mro_dev(ibsrq->device);
	struct mro_srq *srq = to_mro_srq(ibsrq);
	struct rxe_create_srq_resp resp = {};
	u32 max_wr = init->attr.max_wr;
	u32 max_sge = init->attr.max_sge;
	int err;

	BUILD_BUG_ON(MRO_MAX_SRQ_SGE > MRO_MAX_RECV_SGE);

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	err = mro_srq_check_max_wr(dev, max_wr);
	if (err)
		return err;
	if (max_sge > dev->ib_dev.attrs.max_srq_sge ||
	    max_sge > MRO_MAX_RECV_SGE)
		return -EINVAL;
	if (!max_sge)
		max_sge = 1;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	srq->dev = dev;
	kref_init(&srq->ref);
	init_completion(&srq->released);
	spin_lock_init(&srq->lock);
	srq->is_user = !!udata;
	srq->max_sge = max_sge;
	srq->limit = 0;		/* srq_limit is ignored at creation */

	srq->queue = mro_queue_alloc(dev, &max_wr, mro_recv_wqe_size(max_sge),
				     MRO_Q_USER_PRODUCES);
	if (!srq->queue)
		return -ENOMEM;
	srq->max_wr = max_wr;

	/* reserve the number; the SRQ becomes visible at the end */
	err = xa_alloc_cyclic(&dev->srqs, &srq->srq_num, NULL,
			      XA_LIMIT(1, MRO_MAX_SRQ), &dev->srq_next,
			      GFP_KERNEL);
	if (err < 0)
		goto err_queue;

	if (udata) {
		err = mro_queue_publish(srq->queue, udata, &resp.mi);
		if (err)
			goto err_num;
		resp.srq_num = srq->srq_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_num;
	}

	/* a reserved slot needs no memory: this cannot fail */
	WARN_ON(xa_is_err(xa_store(&dev->srqs, srq->srq_num, srq,
				   GFP_KERNEL)));

	init->attr.max_wr = srq->max_wr;
	init->attr.max_sge = srq->max_sge;
	return 0;

err_num:
	xa_erase(&dev->srqs, srq->srq_num);
err_queue:
	mro_queue_free(srq->queue);
	srq->queue = NULL;
	return err;
}

/* IB_SRQ_MAX_WR: swap in a ring of @max_wr, keeping the posted WQEs */
static int mro_srq_resize(struct mro_srq *srq, u32 max_wr, u32 limit,
			  struct ib_udata *udata)
{
	struct mro_dev *dev = srq->dev;
	struct rxe_modify_srq_cmd cmd = {};
	struct mminfo mi = {};
	struct mro_queue *nq, *old;
	unsigned long flags;
	int err;

	if (srq->is_user) {
		/* librxe passes a user pointer for the new mminfo */
		if (!udata || udata->inlen < sizeof(cmd))
			return -EINVAL;
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
	}

	nq = mro_queue_alloc(dev, &max_wr, mro_recv_wqe_size(srq->max_sge),
			     MRO_Q_USER_PRODUCES);
	if (!nq)
		return -ENOMEM;
	if (limit > max_wr) {
		err = -EINVAL;
		goto err_free;
	}
	if (srq->is_user) {
		err = mro_queue_publish(nq, udata, &mi);
		if (err)
			goto err_free;
		if (copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi,
				 sizeof(mi))) {
			err = -EFAULT;
			goto err_free;
		}
	}

	spin_lock_irqsave(&srq->lock, flags);
	old = srq->queue;
	/* fails if more WQEs are posted than the new ring holds */
	err = mro_queue_move(nq, old);
	if (!err) {
		srq->queue = nq;
		srq->max_wr = max_wr;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		goto err_free;

	mro_queue_free(old);	/* librxe unmaps it and maps the new one */
	return 0;

err_free:
	mro_queue_free(nq);
	return err;
}

int mro_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct mro_srq *srq = to_mro_srq(ibsrq);
	unsigned long flags;
	u32 limit;
	int err = 0;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;

	spin_lock_irqsave(&srq->lock, flags);
	limit = mask & IB_SRQ_LIMIT ? attr->srq_limit : srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);

	if (mask & IB_SRQ_MAX_WR) {
		err = mro_srq_check_max_wr(srq->dev, attr->max_wr);
		if (err)
			return err;
		err = mro_srq_resize(srq, attr->max_wr, limit, udata);
		if (err)
			return err;
	}

	if (mask & IB_SRQ_LIMIT) {
		spin_lock_irqsave(&srq->lock, flags);
		if (attr->srq_limit > srq->max_wr)
			err = -EINVAL;
		else
			srq->limit = attr->srq_limit;	/* 0 disarms */
		spin_unlock_irqrestore(&srq->lock, flags);
		if (err)
			return err;
	}
	return 0;
}

int mro_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct mro_srq *srq = to_mro_srq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

int mro_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct mro_srq *srq = to_mro_srq(ibsrq);

	xa_erase(&srq->dev->srqs, srq->srq_num);
	/* no reader still holds a pointer it found before the erase */
	synchronize_rcu();
	mro_srq_put(srq);
	wait_for_completion(&srq->released);

	mro_queue_free(srq->queue);
	srq->queue = NULL;
	return 0;
}
