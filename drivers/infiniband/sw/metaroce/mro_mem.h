/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce memory internals shared by mro_mr.c and mro_mw.c: the key
 * format, overflow-safe range checks and the memory window bind rules.
 * The static inlines are pure (no device, no mro_obj.h) so that KUnit
 * can test them.
 */
#ifndef MRO_MEM_H
#define MRO_MEM_H

#include <linux/errno.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct mro_dev;
struct mro_mem;

/*
 * A key is (xarray index << 8) | key byte; the index, drawn at random
 * (mro_xa_alloc_random()), never changes, the byte does (REG_MR, BIND_MW).
 */
#define MRO_KEY_BYTE_MASK	0xffU
#define MRO_KEY_INDEX_MIN	1U
#define MRO_KEY_INDEX_MAX	0xffffffU

static inline u32 mro_key_index(u32 key)
{
	return key >> 8;
}

static inline u32 mro_key_make(u32 index, u32 key_byte)
{
	return (index << 8) | (key_byte & MRO_KEY_BYTE_MASK);
}

/* REG_MR and BIND_MW may only change the key byte */
static inline bool mro_key_same_index(u32 old_key, u32 new_key)
{
	return ((old_key ^ new_key) & ~MRO_KEY_BYTE_MASK) == 0;
}

/*
 * Is [iova, iova + len) inside [start, start + length)?  No addition can
 * wrap: a range that wraps around the top of the address space is
 * rejected, a zero-length access at the end of the region is accepted.
 */
static inline bool mro_range_ok(u64 start, u64 length, u64 iova, u64 len)
{
	if (iova < start || len > length)
		return false;
	return iova - start <= length - len;
}

/* does a region granting @have allow the operation that needs @want? */
static inline bool mro_access_ok(int have, int want)
{
	return (have & want) == want;
}

/* access flags a window may be bound with (local write is ignored) */
#define MRO_MW_BIND_ACCESS	(IB_ACCESS_LOCAL_WRITE |		\
				 IB_ACCESS_REMOTE_READ |		\
				 IB_ACCESS_REMOTE_WRITE |		\
				 IB_ACCESS_REMOTE_ATOMIC |		\
				 IB_ZERO_BASED)

/*
 * RDMA FLUSH to global visibility (6.2+ verbs).  Persistence is not
 * offered: no metaroce memory is persistent (see mro_flush.c).
 */
#ifdef MRO_HAVE_IB_WR_FLUSH
#define MRO_ACCESS_FLUSH	IB_ACCESS_FLUSH_GLOBAL
#else
#define MRO_ACCESS_FLUSH	0
#endif

/* access flags of an MR (reg_user_mr, get_dma_mr, REG_MR WQE) */
#define MRO_MR_ACCESS		(IB_ACCESS_LOCAL_WRITE |		\
				 IB_ACCESS_REMOTE_READ |		\
				 IB_ACCESS_REMOTE_WRITE |		\
				 IB_ACCESS_REMOTE_ATOMIC |		\
				 IB_ACCESS_MW_BIND |			\
				 IB_ACCESS_HUGETLB |			\
				 MRO_ACCESS_FLUSH |			\
				 IB_ACCESS_OPTIONAL)

/* remote write and atomic need local write on the memory (C10-74) */
static inline bool mro_writable_ok(int access, int mem_access)
{
	if (!(access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)))
		return true;
	return mem_access & IB_ACCESS_LOCAL_WRITE;
}

/* everything a BIND_MW decision depends on, gathered under the locks */
struct mro_bind_req {
	u8 mw_type;			/* IB_MW_TYPE_1 or IB_MW_TYPE_2 */
	bool mw_valid;			/* state MRO_MEM_VALID */
	bool mw_free;			/* state MRO_MEM_FREE */
	bool mw_pd_ok;			/* window's PD is the QP's PD */
	int access;			/* requested window access */
	u64 addr;			/* in the MR's address space */
	u64 length;
	bool has_mr;			/* length != 0: the MR was found */
	bool mr_valid;			/* MR state MRO_MEM_VALID */
	bool mr_pd_ok;			/* MR's PD is the QP's PD */
	int mr_access;
	u64 mr_iova;
	u64 mr_length;
};

/*
 * The IB rules for binding a window (o10-36.2.2, o10-37.2.30, o10-37.2.40,
 * C10-72..C10-75).  Access rights of the window need not be a subset of
 * the MR's remote rights; only writable windows need a locally writable
 * MR.  A zero-based window still has to lie inside the MR at @addr.
 */
static inline int mro_mw_bind_check(const struct mro_bind_req *r)
{
	if (r->access & ~MRO_MW_BIND_ACCESS)
		return -EINVAL;
	if (!r->mw_pd_ok)
		return -EINVAL;
	if (r->mw_type == IB_MW_TYPE_1) {
		if (!r->mw_valid)
			return -EINVAL;
		if (r->access & IB_ZERO_BASED)
			return -EINVAL;
		if (!r->length)
			return 0;	/* unbind */
	} else if (r->mw_type == IB_MW_TYPE_2) {
		if (!r->mw_free)
			return -EINVAL;
		if (!r->length)
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	if (!r->has_mr || !r->mr_valid || !r->mr_pd_ok)
		return -EINVAL;
	if (r->mr_access & IB_ZERO_BASED)
		return -EINVAL;
	if (!(r->mr_access & IB_ACCESS_MW_BIND))
		return -EACCES;
	if (!mro_writable_ok(r->access, r->mr_access))
		return -EACCES;
	if (!mro_range_ok(r->mr_iova, r->mr_length, r->addr, r->length))
		return -EINVAL;
	return 0;
}

/* ---- shared between mro_mr.c and mro_mw.c (not for other layers) ---- */

/*
 * Initialise the common part and reserve an index in dev->mems (not yet
 * visible to lookups).  The caller sets mem->type and initialises
 * mem->lock at its own call site, so that MR and MW locks get distinct
 * lockdep classes.
 */
int mro_mem_add(struct mro_dev *dev, struct mro_mem *mem, struct ib_pd *pd);
/* make a fully initialised object visible to lookups */
void mro_mem_publish(struct mro_mem *mem);
/* unpublish, drop the initial reference and wait for the last user */
void mro_mem_remove(struct mro_mem *mem);
/* lookup by key index with a reference; no checks */
struct mro_mem *mro_mem_find(struct mro_dev *dev, u32 key);

/* mro_mw.c */
int mro_mw_invalidate(struct mro_mem *mw, struct ib_pd *pd, u32 rkey,
		      u32 qpn);
struct mro_mem *mro_mw_resolve(struct mro_mem *mw, u64 *iova, u64 len);
/* a window let go of @mr (unbind, invalidate, dealloc) */
void mro_mr_drop_window(struct mro_mem *mr);

#endif /* MRO_MEM_H */
