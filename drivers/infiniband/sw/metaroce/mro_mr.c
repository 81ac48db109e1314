// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce memory regions: the key space shared with memory windows, key
 * lookup for the transport, and CPU copies between registered memory and
 * packet buffers.
 *
 * Three kinds of MR:
 *  - DMA (get_dma_mr): an iova is a kernel virtual address (the device
 *    does virt DMA, so ib_dma_map_*() hands kernel addresses to ULPs);
 *  - USER (reg_user_mr): an array of the pinned umem pages;
 *  - FAST (alloc_mr): map_mr_sg stores the kernel address of each page
 *    and a REG_MR work request makes the key valid.
 *
 * Objects live in dev->mems, indexed by key >> 8.  Lookups run under RCU
 * and take a kref; destroy unpublishes, drops the initial reference and
 * waits for the last one.  MRs are freed after an RCU grace period
 * (kfree_rcu) because a reader may still be about to try the kref.
 */
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "mro.h"
#include "mro_mem.h"
#include "mro_skb.h"

/* serialises metaroce atomics against each other, on every device */
static DEFINE_SPINLOCK(mro_atomic_lock);

/* ------------------------------------------------------------------ */
/* key space */

/* what an MR or MW counts against (mro_obj_charge()) */
static enum mro_obj mro_mem_obj(const struct mro_mem *mem)
{
	return mem->type == MRO_MEM_MW ? MRO_OBJ_MW : MRO_OBJ_MR;
}

int mro_mem_add(struct mro_dev *dev, struct mro_mem *mem, struct ib_pd *pd)
{
	u32 index;
	int err;

	err = mro_obj_charge(dev, mro_mem_obj(mem));
	if (err)
		return err;
	mem->dev = dev;
	mem->pd = pd;
	kref_init(&mem->ref);
	init_completion(&mem->released);

	/* a NULL entry reserves the index: xa_load() sees nothing yet */
	err = mro_xa_alloc_random(&dev->mems, &index, NULL, MRO_KEY_INDEX_MIN,
				  MRO_KEY_INDEX_MAX);
	if (err < 0) {
		mro_obj_uncharge(dev, mro_mem_obj(mem));
		return err;
	}
	mem->lkey = mro_key_make(index, get_random_u32());
	mem->rkey = mem->lkey;
	return 0;
}

void mro_mem_publish(struct mro_mem *mem)
{
	/* the index is reserved, so this store does not allocate */
	xa_store(&mem->dev->mems, mro_key_index(mem->lkey), mem, GFP_KERNEL);
}

static void mro_mem_release(struct kref *ref)
{
	struct mro_mem *mem = container_of(ref, struct mro_mem, ref);

	complete(&mem->released);
}

void mro_mem_put(struct mro_mem *mem)
{
	kref_put(&mem->ref, mro_mem_release);
}

void mro_mem_remove(struct mro_mem *mem)
{
	/* the index bits of the keys never change after mro_mem_add() */
	xa_erase(&mem->dev->mems, mro_key_index(READ_ONCE(mem->lkey)));
	mro_mem_put(mem);
	wait_for_completion(&mem->released);
	mro_obj_uncharge(mem->dev, mro_mem_obj(mem));
}

struct mro_mem *mro_mem_find(struct mro_dev *dev, u32 key)
{
	struct mro_mem *mem;

	rcu_read_lock();
	mem = xa_load(&dev->mems, mro_key_index(key));
	if (mem && !kref_get_unless_zero(&mem->ref))
		mem = NULL;
	rcu_read_unlock();
	return mem;
}

/* ------------------------------------------------------------------ */
/* lookup for the transport */

static struct mro_mem *mro_mem_lkey_lookup(struct mro_dev *dev,
					   struct ib_pd *pd, u32 lkey,
					   u64 iova, u64 len, int access)
{
	struct mro_mem *mem = mro_mem_find(dev, lkey);
	unsigned long flags;
	int err = 0;

	if (!mem)
		return ERR_PTR(-EACCES);

	spin_lock_irqsave(&mem->lock, flags);
	if (mem->type == MRO_MEM_MW || mem->lkey != lkey || mem->pd != pd ||
	    mem->state != MRO_MEM_VALID || !mro_access_ok(mem->access, access))
		err = -EACCES;
	else if (!mro_range_ok(mem->iova, mem->length, iova, len))
		err = -EFAULT;
	spin_unlock_irqrestore(&mem->lock, flags);

	if (err) {
		mro_mem_put(mem);
		return ERR_PTR(err);
	}
	return mem;
}

struct mro_mem *mro_mem_get_lkey(struct mro_dev *dev, struct ib_pd *pd,
				 u32 lkey, u64 iova, u64 len, int access)
{
	struct mro_mem *mem = mro_mem_lkey_lookup(dev, pd, lkey, iova, len,
						  access);

	return IS_ERR(mem) ? NULL : mem;
}

/* rkey lookup; @whole: the request names the whole region, not a range */
static struct mro_mem *mro_mem_rkey_lookup(struct mro_dev *dev,
					   struct ib_pd *pd, u32 qpn, u32 rkey,
					   u64 va, u64 len, int access,
					   bool whole)
{
	struct mro_mem *mem = mro_mem_find(dev, rkey);
	unsigned long flags;
	bool ok;

	if (!mem)
		return NULL;

	spin_lock_irqsave(&mem->lock, flags);
	ok = mem->rkey == rkey && mem->pd == pd &&
	     mem->state == MRO_MEM_VALID &&
	     mro_access_ok(mem->access, access);
	if (ok && mem->type == MRO_MEM_MW &&
	    mem->mw_type == IB_MW_TYPE_2 && mem->mw_qpn != qpn)
		ok = false;
	if (ok && !whole) {
		if (mem->type == MRO_MEM_MW && (mem->access & IB_ZERO_BASED))
			ok = mro_range_ok(0, mem->length, va, len);
		else
			ok = mro_range_ok(mem->iova, mem->length, va, len);
	}
	spin_unlock_irqrestore(&mem->lock, flags);

	if (!ok) {
		mro_mem_put(mem);
		return NULL;
	}
	return mem;
}

struct mro_mem *mro_mem_get_rkey(struct mro_dev *dev, struct ib_pd *pd,
				 u32 qpn, u32 rkey, u64 va, u64 len,
				 int access)
{
	return mro_mem_rkey_lookup(dev, pd, qpn, rkey, va, len, access, false);
}

struct mro_mem *mro_mem_get_rkey_whole(struct mro_dev *dev, struct ib_pd *pd,
				       u32 qpn, u32 rkey, int access)
{
	return mro_mem_rkey_lookup(dev, pd, qpn, rkey, 0, 0, access, true);
}

/* ------------------------------------------------------------------ */
/* data movement */

/* the page geometry of an MR, read once under its lock */
struct mro_mr_view {
	u64 iova;
	u64 length;
	u64 page_offset;
	u32 page_shift;
	u32 num_pages;
};

static void mro_mr_view(struct mro_mem *mem, struct mro_mr_view *v)
{
	unsigned long flags;

	spin_lock_irqsave(&mem->lock, flags);
	v->iova = mem->iova;
	v->length = mem->length;
	v->page_offset = mem->page_offset;
	v->page_shift = mem->page_shift;
	v->num_pages = min(READ_ONCE(mem->num_pages), mem->max_pages);
	spin_unlock_irqrestore(&mem->lock, flags);
}

static void mro_copy_chunk(void *addr, void *buf, u32 len,
			   enum mro_copy_dir dir)
{
	if (dir == MRO_COPY_TO_MEM)
		memcpy(addr, buf, len);
	else
		memcpy(buf, addr, len);
}

/* copy within one MR (not a window); the range is checked again here */
static int mro_mr_copy(struct mro_mem *mem, u64 iova, void *buf, u32 len,
		       enum mro_copy_dir dir)
{
	struct mro_mr_view v;
	u64 off, page_size;

	mro_mr_view(mem, &v);
	if (!mro_range_ok(v.iova, v.length, iova, len))
		return -EFAULT;

	if (mem->type == MRO_MEM_DMA) {
		mro_copy_chunk((void *)(uintptr_t)iova, buf, len, dir);
		return 0;
	}
	if (mem->type != MRO_MEM_USER && mem->type != MRO_MEM_FAST)
		return -EINVAL;

	page_size = 1ULL << v.page_shift;
	off = iova - v.iova + v.page_offset;
	while (len) {
		u64 idx = off >> v.page_shift;
		u32 in_page = off & (page_size - 1);
		u32 chunk = min_t(u64, len, page_size - in_page);
		void *addr;

		if (idx >= v.num_pages)
			return -EFAULT;
		if (mem->type == MRO_MEM_USER) {
			struct page *page = mem->pages[idx];

			addr = kmap_local_page(page);
			mro_copy_chunk(addr + in_page, buf, chunk, dir);
			kunmap_local(addr);
			if (dir == MRO_COPY_TO_MEM)
				flush_dcache_page(page);
		} else {
			addr = (void *)(uintptr_t)READ_ONCE(mem->fast_addrs[idx]);
			mro_copy_chunk(addr + in_page, buf, chunk, dir);
		}
		off += chunk;
		buf += chunk;
		len -= chunk;
	}
	return 0;
}

int mro_mem_copy(struct mro_mem *mem, u64 iova, void *buf, u32 len,
		 enum mro_copy_dir dir)
{
	struct mro_mem *mr;
	int err;

	if (!len)
		return 0;
	if (mem->type != MRO_MEM_MW)
		return mro_mr_copy(mem, iova, buf, len, dir);

	mr = mro_mw_resolve(mem, &iova, len);
	if (!mr)
		return -EFAULT;
	err = mro_mr_copy(mr, iova, buf, len, dir);
	mro_mem_put(mr);
	return err;
}

static int mro_mr_atomic(struct mro_mem *mem, u64 iova, enum mro_atomic_op op,
			 u64 compare, u64 swap_add, u64 *orig)
{
	struct mro_mr_view v;
	unsigned long flags;
	struct page *page = NULL;
	void *map = NULL;
	u64 *p, old;

	mro_mr_view(mem, &v);
	if (!mro_range_ok(v.iova, v.length, iova, sizeof(u64)))
		return -EFAULT;

	if (mem->type == MRO_MEM_DMA) {
		p = (u64 *)(uintptr_t)iova;
	} else if (mem->type == MRO_MEM_USER || mem->type == MRO_MEM_FAST) {
		u64 off = iova - v.iova + v.page_offset;
		u64 idx = off >> v.page_shift;
		u64 in_page = off & ((1ULL << v.page_shift) - 1);

		if (idx >= v.num_pages)
			return -EFAULT;
		if (mem->type == MRO_MEM_USER) {
			page = mem->pages[idx];
			map = kmap_local_page(page);
			p = map + in_page;
		} else {
			p = (u64 *)(uintptr_t)(READ_ONCE(mem->fast_addrs[idx]) +
					       in_page);
		}
	} else {
		return -EINVAL;
	}

	/* an iova with another alignment than the memory behind it */
	if ((uintptr_t)p & (sizeof(u64) - 1)) {
		if (map)
			kunmap_local(map);
		return -EINVAL;
	}

	spin_lock_irqsave(&mro_atomic_lock, flags);
	old = READ_ONCE(*p);
	if (op == MRO_ATOMIC_FETCH_ADD)
		WRITE_ONCE(*p, old + swap_add);
	else if (op == MRO_ATOMIC_CMP_SWAP && old == compare)
		WRITE_ONCE(*p, swap_add);
	else if (op == MRO_ATOMIC_WRITE)
		WRITE_ONCE(*p, (__force u64)cpu_to_be64(swap_add));
	spin_unlock_irqrestore(&mro_atomic_lock, flags);

	if (map) {
		kunmap_local(map);
		flush_dcache_page(page);
	}
	*orig = old;
	return 0;
}

int mro_mem_atomic(struct mro_mem *mem, u64 iova, enum mro_atomic_op op,
		   u64 compare, u64 swap_add, u64 *orig)
{
	struct mro_mem *mr;
	int err;

	if (iova & (sizeof(u64) - 1))
		return -EINVAL;
	if (mem->type != MRO_MEM_MW)
		return mro_mr_atomic(mem, iova, op, compare, swap_add, orig);

	mr = mro_mw_resolve(mem, &iova, sizeof(u64));
	if (!mr)
		return -EFAULT;
	err = mro_mr_atomic(mr, iova, op, compare, swap_add, orig);
	mro_mem_put(mr);
	return err;
}

static u64 mro_sge_total(const struct ib_sge *sge, u32 num_sge)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < num_sge; i++)
		total += sge[i].length;
	return total;
}

int mro_sge_copy(struct mro_dev *dev, struct ib_pd *pd,
		 const struct ib_sge *sge, u32 num_sge, u32 offset,
		 void *buf, u32 len, enum mro_copy_dir dir, int access)
{
	u32 i;

	if ((u64)offset + len > mro_sge_total(sge, num_sge))
		return -EINVAL;

	for (i = 0; i < num_sge && len; i++) {
		u32 chunk, slen = sge[i].length;
		struct mro_mem *mem;
		u64 iova;
		int err;

		if (offset >= slen) {
			offset -= slen;
			continue;
		}
		chunk = min(slen - offset, len);
		if (check_add_overflow(sge[i].addr, (u64)offset, &iova))
			return -EFAULT;

		mem = mro_mem_lkey_lookup(dev, pd, sge[i].lkey, iova, chunk,
					  access);
		if (IS_ERR(mem))
			return PTR_ERR(mem);
		err = mro_mr_copy(mem, iova, buf, chunk, dir);
		mro_mem_put(mem);
		if (err)
			return err;

		buf += chunk;
		len -= chunk;
		offset = 0;
	}
	return len ? -EINVAL : 0;
}

/* one piece of a received packet's payload into an MR or MW */
struct mro_skb_to_mem {
	struct mro_mem *mem;
	u64 iova;
};

static int mro_skb_mem_piece(void *ctx, const void *data, u32 len)
{
	struct mro_skb_to_mem *c = ctx;
	int err;

	err = mro_mem_copy(c->mem, c->iova, (void *)data, len,
			   MRO_COPY_TO_MEM);
	c->iova += len;
	return err;
}

int mro_mem_copy_skb(struct mro_mem *mem, u64 iova, struct sk_buff *skb,
		     u32 off, u32 len)
{
	struct mro_skb_to_mem c = { .mem = mem, .iova = iova };

	return mro_skb_walk(skb, off, len, mro_skb_mem_piece, &c);
}

/* one piece of a received packet's payload into a scatter list */
struct mro_skb_to_sge {
	struct mro_dev *dev;
	struct ib_pd *pd;
	const struct ib_sge *sge;
	u32 num_sge;
	u32 offset;
	int access;
};

static int mro_skb_sge_piece(void *ctx, const void *data, u32 len)
{
	struct mro_skb_to_sge *c = ctx;
	int err;

	err = mro_sge_copy(c->dev, c->pd, c->sge, c->num_sge, c->offset,
			   (void *)data, len, MRO_COPY_TO_MEM, c->access);
	c->offset += len;
	return err;
}

int mro_sge_copy_skb(struct mro_dev *dev, struct ib_pd *pd,
		     const struct ib_sge *sge, u32 num_sge, u32 offset,
		     struct sk_buff *skb, u32 off, u32 len, int access)
{
	struct mro_skb_to_sge c = {
		.dev = dev, .pd = pd, .sge = sge, .num_sge = num_sge,
		.offset = offset, .access = access,
	};

	/* the whole range first: no partial copy of a too-long payload */
	if ((u64)offset + len > mro_sge_total(sge, num_sge))
		return -EINVAL;
	return mro_skb_walk(skb, off, len, mro_skb_sge_piece, &c);
}

/* ------------------------------------------------------------------ */
/* local operations carried by send WQEs */

int mro_mr_fast_reg(struct mro_dev *dev, struct ib_pd *pd, struct ib_mr *ibmr,
		    u32 key, int access)
{
	struct mro_mem *mem = &to_mro_mr(ibmr)->mem;
	u64 iova = ibmr->iova, length = ibmr->length, page_size, span;
	unsigned long flags;
	u32 page_shift;
	int err = 0;

	if (mem->dev != dev || mem->type != MRO_MEM_FAST)
		return -EINVAL;
	if (access & ~MRO_MR_ACCESS)
		return -EINVAL;
	if (!mro_writable_ok(access, access))
		return -EINVAL;

	page_size = ibmr->page_size;
	if (!is_power_of_2(page_size))
		return -EINVAL;
	page_shift = ilog2(page_size);

	/* the mapped pages must cover [iova, iova + length) */
	span = (iova & (page_size - 1)) + length;
	if (span < length ||
	    DIV_ROUND_UP_ULL(span, page_size) > READ_ONCE(mem->num_pages))
		return -EINVAL;

	spin_lock_irqsave(&mem->lock, flags);
	if (mem->pd != pd || mem->state != MRO_MEM_FREE ||
	    !mro_key_same_index(mem->lkey, key)) {
		err = -EINVAL;
	} else {
		mem->lkey = key;
		mem->rkey = key;
		mem->access = access;
		mem->iova = iova;
		mem->length = length;
		mem->page_shift = page_shift;
		mem->page_offset = iova & (page_size - 1);
		mem->state = MRO_MEM_VALID;
	}
	spin_unlock_irqrestore(&mem->lock, flags);

	if (!err) {
		WRITE_ONCE(ibmr->lkey, key);
		WRITE_ONCE(ibmr->rkey, key);
	}
	return err;
}

int mro_mem_invalidate(struct mro_dev *dev, struct ib_pd *pd, u32 key,
		       u32 qpn)
{
	struct mro_mem *mem = mro_mem_find(dev, key);
	unsigned long flags;
	int err = 0;

	if (!mem)
		return -EINVAL;

	if (mem->type == MRO_MEM_MW) {
		err = mro_mw_invalidate(mem, pd, key, qpn);
		mro_mem_put(mem);
		return err;
	}

	spin_lock_irqsave(&mem->lock, flags);
	if (mem->type != MRO_MEM_FAST || mem->rkey != key || mem->pd != pd ||
	    mem->state == MRO_MEM_INVALID)
		err = -EINVAL;
	else
		mem->state = MRO_MEM_FREE;
	spin_unlock_irqrestore(&mem->lock, flags);

	mro_mem_put(mem);
	return err;
}

/* ------------------------------------------------------------------ */
/* verbs */

static struct mro_mr *mro_mr_new(struct ib_pd *ibpd, enum mro_mem_type type,
				 int access)
{
	struct mro_dev *dev = to_mro_dev(ibpd->device);
	struct mro_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->mem.type = type;
	spin_lock_init(&mr->mem.lock);
	err = mro_mem_add(dev, &mr->mem, ibpd);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->mem.access = access;
	mr->ibmr.lkey = mr->mem.lkey;
	mr->ibmr.rkey = mr->mem.rkey;
	return mr;
}

struct ib_mr *mro_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct mro_mr *mr;

	if (access & ~MRO_MR_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	mr = mro_mr_new(ibpd, MRO_MEM_DMA, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	mr->mem.iova = 0;
	mr->mem.length = U64_MAX;
	mr->mem.state = MRO_MEM_VALID;
	mro_mem_publish(&mr->mem);
	return &mr->ibmr;
}

struct ib_mr *mro_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct sg_page_iter piter;
	struct ib_umem *umem;
	struct mro_mr *mr;
	size_t npages, n = 0;
	struct page **pages;
	u64 end;
	int err;

	if (access & ~MRO_MR_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || length > MRO_MAX_MR_SIZE ||
	    check_add_overflow(iova, length, &end))
		return ERR_PTR(-EINVAL);

	umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);

	npages = ib_umem_num_pages(umem);
	if (!npages || npages > U32_MAX) {
		err = -EINVAL;
		goto err_umem;
	}
	pages = kvcalloc(npages, sizeof(*pages), GFP_KERNEL_ACCOUNT);
	if (!pages) {
		err = -ENOMEM;
		goto err_umem;
	}
	/* CPU pages, not DMA blocks: with virt DMA these are the same */
	for_each_sgtable_page(&umem->sgt_append.sgt, &piter, 0) {
		if (n == npages)
			break;
		pages[n++] = sg_page_iter_page(&piter);
	}
	if (n != npages) {
		err = -EFAULT;
		goto err_pages;
	}

	mr = mro_mr_new(ibpd, MRO_MEM_USER, access);
	if (IS_ERR(mr)) {
		err = PTR_ERR(mr);
		goto err_pages;
	}
	mr->mem.umem = umem;
	mr->mem.pages = pages;
	mr->mem.num_pages = npages;
	mr->mem.max_pages = npages;
	mr->mem.page_shift = PAGE_SHIFT;
	mr->mem.page_offset = ib_umem_offset(umem);
	mr->mem.iova = iova;
	mr->mem.length = length;
	mr->mem.state = MRO_MEM_VALID;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mro_mem_publish(&mr->mem);
	return &mr->ibmr;

err_pages:
	kvfree(pages);
err_umem:
	ib_umem_release(umem);
	return ERR_PTR(err);
}

struct ib_mr *mro_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct mro_dev *dev = to_mro_dev(ibpd->device);
	struct mro_mr *mr;
	u64 *addrs;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg ||
	    max_num_sg > dev->ib_dev.attrs.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);

	addrs = kcalloc(max_num_sg, sizeof(*addrs), GFP_KERNEL_ACCOUNT);
	if (!addrs)
		return ERR_PTR(-ENOMEM);
	mr = mro_mr_new(ibpd, MRO_MEM_FAST, 0);
	if (IS_ERR(mr)) {
		kfree(addrs);
		return ERR_CAST(mr);
	}
	mr->mem.fast_addrs = addrs;
	mr->mem.max_pages = max_num_sg;
	mr->mem.page_shift = PAGE_SHIFT;
	mr->mem.state = MRO_MEM_FREE;
	mro_mem_publish(&mr->mem);
	return &mr->ibmr;
}

static int mro_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct mro_mem *mem = &to_mro_mr(ibmr)->mem;
	u32 n = mem->num_pages;

	if (n >= mem->max_pages)
		return -ENOMEM;
	/* virt DMA: the "DMA address" of a page is its kernel address */
	WRITE_ONCE(mem->fast_addrs[n], addr);
	WRITE_ONCE(mem->num_pages, n + 1);
	return 0;
}

int mro_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct mro_mem *mem = &to_mro_mr(ibmr)->mem;

	if (mem->type != MRO_MEM_FAST)
		return -EINVAL;
	WRITE_ONCE(mem->num_pages, 0);
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mro_set_page);
}

int mro_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mro_mr *mr = to_mro_mr(ibmr);
	struct mro_mem *mem = &mr->mem;
	unsigned long flags;

	spin_lock_irqsave(&mem->lock, flags);
	if (mem->num_mw) {
		spin_unlock_irqrestore(&mem->lock, flags);
		return -EBUSY;
	}
	/* no new window can bind, no REG_MR can revive it */
	mem->state = MRO_MEM_INVALID;
	spin_unlock_irqrestore(&mem->lock, flags);

	mro_mem_remove(mem);

	if (mem->umem)
		ib_umem_release(mem->umem);
	kvfree(mem->pages);
	kfree(mem->fast_addrs);
	/* a lookup may still be about to try kref_get_unless_zero() */
	kfree_rcu(mr, mem.rcu);
	return 0;
}
