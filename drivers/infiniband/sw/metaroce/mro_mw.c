// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce memory windows, type 1 and type 2B.
 *
 * A window shares the key space of MRs.  Type 1 windows are valid from
 * allocation (bound to nothing, length 0) and are (re)bound by a BIND_MW
 * work request, which is what libibverbs turns ibv_bind_mw() into; a
 * zero-length bind unbinds them.  Type 2 windows start FREE, a BIND_MW
 * makes them VALID for one QP, LOCAL_INV or SEND_WITH_INV make them FREE.
 *
 * A bound window holds a reference on its MR and counts in the MR's
 * num_mw, which makes dereg_mr fail with -EBUSY.  Lock order: window lock,
 * then MR lock.
 */
#include <linux/rcupdate.h>

#include "mro.h"
#include "mro_mem.h"

static struct mro_mw *mro_mem_to_mw(struct mro_mem *mem)
{
	return container_of(mem, struct mro_mw, mem);
}

void mro_mr_drop_window(struct mro_mem *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	if (!WARN_ON_ONCE(!mr->num_mw))
		mr->num_mw--;
	spin_unlock_irqrestore(&mr->lock, flags);
	mro_mem_put(mr);
}

/*
 * The MR behind a valid window and the address in it for [*iova, +len)
 * of the window's address space; takes a reference on the MR.
 */
struct mro_mem *mro_mw_resolve(struct mro_mem *mw, u64 *iova, u64 len)
{
	struct mro_mem *mr = NULL;
	unsigned long flags;
	u64 mr_iova = 0;

	spin_lock_irqsave(&mw->lock, flags);
	if (mw->state != MRO_MEM_VALID || !mw->mw_mr)
		goto out;
	if (mw->access & IB_ZERO_BASED) {
		if (!mro_range_ok(0, mw->length, *iova, len))
			goto out;
		/* bind checked that [iova, iova + length) is in the MR */
		mr_iova = mw->iova + *iova;
	} else {
		if (!mro_range_ok(mw->iova, mw->length, *iova, len))
			goto out;
		mr_iova = *iova;
	}
	/* a window over an invalidated fast-reg MR gives no access */
	spin_lock(&mw->mw_mr->lock);
	if (mw->mw_mr->state == MRO_MEM_VALID) {
		mr = mw->mw_mr;
		kref_get(&mr->ref);	/* the binding holds one */
	}
	spin_unlock(&mw->mw_mr->lock);
out:
	spin_unlock_irqrestore(&mw->lock, flags);
	if (mr)
		*iova = mr_iova;
	return mr;
}

int mro_mw_bind(struct mro_dev *dev, struct ib_pd *pd, u32 qpn,
		u32 mw_rkey, u32 new_rkey, u32 mr_lkey, u64 addr, u64 length,
		int access)
{
	struct mro_bind_req req = {
		.access = access,
		.addr = addr,
		.length = length,
	};
	struct mro_mem *mw, *mr = NULL, *old = NULL;
	unsigned long flags;
	int err;

	mw = mro_mem_find(dev, mw_rkey);
	if (!mw)
		return -EINVAL;
	if (mw->type != MRO_MEM_MW) {
		err = -EINVAL;
		goto out_mw;
	}
	if (length) {
		mr = mro_mem_find(dev, mr_lkey);
		if (mr && mr->type == MRO_MEM_MW) {
			mro_mem_put(mr);
			mr = NULL;
		}
	}

	spin_lock_irqsave(&mw->lock, flags);
	if (mw->rkey != mw_rkey || !mro_key_same_index(mw_rkey, new_rkey)) {
		err = -EINVAL;
		goto out_unlock;
	}
	req.mw_type = mw->mw_type;
	req.mw_valid = mw->state == MRO_MEM_VALID;
	req.mw_free = mw->state == MRO_MEM_FREE;
	req.mw_pd_ok = mw->pd == pd;
	if (mr) {
		/* irqs are off already: the window lock is held */
		spin_lock(&mr->lock);
		req.has_mr = mr->lkey == mr_lkey;
		req.mr_valid = mr->state == MRO_MEM_VALID;
		req.mr_pd_ok = mr->pd == pd;
		req.mr_access = mr->access;
		req.mr_iova = mr->iova;
		req.mr_length = mr->length;
		err = mro_mw_bind_check(&req);
		if (!err)
			mr->num_mw++;
		spin_unlock(&mr->lock);
	} else {
		err = mro_mw_bind_check(&req);
	}
	if (err)
		goto out_unlock;

	old = mw->mw_mr;
	mw->mw_mr = mr;		/* the lookup reference becomes the binding's */
	mr = NULL;
	mw->lkey = new_rkey;
	mw->rkey = new_rkey;
	mw->access = access;
	mw->iova = addr;
	mw->length = length;
	mw->mw_qpn = mw->mw_type == IB_MW_TYPE_2 ? qpn : 0;
	mw->state = MRO_MEM_VALID;
	WRITE_ONCE(mro_mem_to_mw(mw)->ibmw.rkey, new_rkey);
out_unlock:
	spin_unlock_irqrestore(&mw->lock, flags);
	if (old)
		mro_mr_drop_window(old);
	if (mr)
		mro_mem_put(mr);
out_mw:
	mro_mem_put(mw);
	return err;
}

/* LOCAL_INV / SEND_WITH_INV of a window (type 2 only, o10-37.2.26) */
int mro_mw_invalidate(struct mro_mem *mw, struct ib_pd *pd, u32 rkey,
		      u32 qpn)
{
	struct mro_mem *mr = NULL;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&mw->lock, flags);
	if (mw->rkey != rkey || mw->pd != pd ||
	    mw->mw_type != IB_MW_TYPE_2 || mw->state != MRO_MEM_VALID ||
	    mw->mw_qpn != qpn) {
		err = -EINVAL;
	} else {
		mr = mw->mw_mr;
		mw->mw_mr = NULL;
		mw->access = 0;
		mw->iova = 0;
		mw->length = 0;
		mw->mw_qpn = 0;
		mw->state = MRO_MEM_FREE;
	}
	spin_unlock_irqrestore(&mw->lock, flags);

	if (mr)
		mro_mr_drop_window(mr);
	return err;
}

int mro_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct mro_dev *dev = to_mro_dev(ibmw->device);
	struct mro_mem *mem = &to_mro_mw(ibmw)->mem;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;

	mem->type = MRO_MEM_MW;
	spin_lock_init(&mem->lock);
	err = mro_mem_add(dev, mem, ibmw->pd);
	if (err)
		return err;
	mem->mw_type = ibmw->type;
	/* an unbound type 1 window is valid but covers nothing */
	mem->state = ibmw->type == IB_MW_TYPE_1 ? MRO_MEM_VALID :
						  MRO_MEM_FREE;
	ibmw->rkey = mem->rkey;
	mro_mem_publish(mem);
	return 0;
}

int mro_dealloc_mw(struct ib_mw *ibmw)
{
	struct mro_mem *mem = &to_mro_mw(ibmw)->mem;
	struct mro_mem *mr;
	unsigned long flags;

	/* INVALID fails every later bind, resolve and lookup */
	spin_lock_irqsave(&mem->lock, flags);
	mem->state = MRO_MEM_INVALID;
	mr = mem->mw_mr;
	mem->mw_mr = NULL;
	mem->length = 0;
	spin_unlock_irqrestore(&mem->lock, flags);
	if (mr)
		mro_mr_drop_window(mr);

	mro_mem_remove(mem);
	/*
	 * The core frees the ib_mw with kfree() when this returns: wait for
	 * readers that found it in the xarray before the erase.
	 */
	synchronize_rcu();
	return 0;
}
