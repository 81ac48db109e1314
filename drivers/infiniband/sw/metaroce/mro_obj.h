/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce verbs objects (layer 1 of Documentation/metaroce/design.rst):
 * queues shared with user space in the rxe ABI layout, CQ, SRQ, AH, and
 * memory (MR/MW).  The QP and the transport live in mro_qp.h.
 *
 * Lifetimes: objects that the softirq receive path can find (MR, MW, SRQ,
 * QP) are published in a per-device xarray and found under RCU with
 * kref_get_unless_zero(); their destroy verb unpublishes them, drops the
 * initial reference and waits for the last one (a completion) before the
 * core frees the memory.
 */
#ifndef MRO_OBJ_H
#define MRO_OBJ_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

struct sk_buff;

struct mro_dev;

/* ------------------------------------------------------------------ */
/* queues: struct rxe_queue_buf header + power-of-two ring (mro_queue.c) */

enum mro_queue_dir {
	MRO_Q_KERNEL_PRODUCES,	/* CQ: kernel writes, consumer may be user */
	MRO_Q_USER_PRODUCES,	/* SQ, RQ, SRQ: producer may be user */
};

struct mro_queue {
	struct mro_dev *dev;
	struct rxe_queue_buf *buf;	/* vmalloc_user(): header + ring */
	size_t buf_size;		/* bytes, page aligned */
	u32 elem_size;			/* bytes, power of two >= cache line */
	u32 log2_elem_size;
	u32 index_mask;			/* slots - 1; capacity = slots - 1 */
	enum mro_queue_dir dir;
	/*
	 * The kernel's own copy of the index it owns (producer for
	 * KERNEL_PRODUCES, consumer for USER_PRODUCES): never read back from
	 * the shared page, which user space may scribble on.
	 */
	u32 index;
	struct rdma_user_mmap_entry *mmap_entry;	/* NULL for kernel users */
};

/*
 * Allocate a queue for at least *num_elem elements of elem_size bytes;
 * *num_elem is updated to the real capacity.  Returns NULL on failure
 * (no memory, or an absurd size).
 */
struct mro_queue *mro_queue_alloc(struct mro_dev *dev, u32 *num_elem,
				  u32 elem_size, enum mro_queue_dir dir);
/*
 * Make @q mappable by @udata's user context and write {offset, size} to
 * @mi (kernel memory; the caller copies it out).
 */
int mro_queue_publish(struct mro_queue *q, struct ib_udata *udata,
		      struct mminfo *mi);
/* unmap-safe free: the ring lives until the last user mapping is gone */
void mro_queue_free(struct mro_queue *q);

/* indices read from the shared page are masked; the owned one is private */
u32 mro_queue_producer(struct mro_queue *q);	/* acquire */
u32 mro_queue_consumer(struct mro_queue *q);	/* acquire */
bool mro_queue_empty(struct mro_queue *q);
bool mro_queue_full(struct mro_queue *q);
u32 mro_queue_count(struct mro_queue *q);
void *mro_queue_slot(struct mro_queue *q, u32 index);
/* advance the index the kernel owns by one and publish it (release) */
void mro_queue_advance(struct mro_queue *q);
/* kernel-side producer for USER_PRODUCES queues of kernel QPs/SRQs */
void *mro_queue_kernel_producer_slot(struct mro_queue *q); /* NULL if full */
void mro_queue_kernel_produce(struct mro_queue *q);
/*
 * Resize helper: copy the pending elements of @src (same direction and
 * element size) to the empty @dst, oldest first.  -EINVAL if they do not
 * fit.  The caller holds the locks of both ends of @src.
 */
int mro_queue_move(struct mro_queue *dst, struct mro_queue *src);

/* ops.mmap / ops.mmap_free */
int mro_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void mro_mmap_free(struct rdma_user_mmap_entry *entry);

/* ------------------------------------------------------------------ */
/* completion queues (mro_cq.c) */

/* one CQ ring element; user space sees the ib_uverbs_wc arm */
union mro_cqe {
	struct ib_wc ibwc;
	struct ib_uverbs_wc uibwc;
};

struct mro_cq {
	struct ib_cq ibcq;
	spinlock_t lock;		/* queue producer side, notify */
	struct mro_queue *queue;
	bool is_user;
	u8 notify;			/* IB_CQ_SOLICITED / NEXT_COMP armed */
	bool in_handler;		/* re-entrancy guard for comp_handler */
	bool handler_pending;		/* comp_handler owed, under lock */
	bool err_reported;		/* IB_EVENT_CQ_ERR already owed */
	bool err_pending;		/* ... and not yet sent, under lock */
	bool dying;
};

static inline struct mro_cq *to_mro_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct mro_cq, ibcq);
}

/*
 * Post one completion.  @wc is the kernel form; it is converted for user
 * CQs.  If the CQ was armed (solicited-only arms fire for @solicited
 * completions only) the handler becomes pending: the caller runs it with
 * mro_cq_notify() once it holds no QP lock.
 * Returns -ENOSPC on overflow (the caller moves the QP to error and the
 * core gets IB_EVENT_CQ_ERR).
 */
int mro_cq_post(struct mro_cq *cq, const struct ib_wc *wc, bool solicited);
/* run the completion handler armed by earlier posts; no QP lock held */
void mro_cq_notify(struct mro_cq *cq);

int mro_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  MRO_CQ_UDATA *attrs);
int mro_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int mro_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int mro_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int mro_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* ------------------------------------------------------------------ */
/* receive WQEs: validated kernel copies (mro_srq.c) */

#define MRO_MAX_RECV_SGE	32

/* a receive WQE copied out of the shared ring and bounds-checked */
struct mro_recv_wqe {
	u64 wr_id;
	u32 num_sge;
	u32 length;			/* sum of sge lengths, <= 2^31 */
	struct ib_sge sge[MRO_MAX_RECV_SGE];
};

/*
 * Bytes of one RQ/SRQ ring element before rounding (mro_queue_alloc()
 * rounds up to a power of two): struct rxe_recv_wqe + @max_sge rxe_sges.
 */
static inline u32 mro_recv_wqe_size(u32 max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

/*
 * Copy the WQE at the consumer end of @q (RQ or SRQ ring, rxe layout)
 * into @wqe after checking num_sge <= max_sge and the total length;
 * does not advance the queue.  Returns -ENOENT if the queue is empty,
 * -EINVAL for a malformed WQE (@wqe->wr_id is still filled in).
 */
int mro_recv_wqe_peek(struct mro_queue *q, u32 max_sge,
		      struct mro_recv_wqe *wqe);

struct mro_srq {
	struct ib_srq ibsrq;
	struct mro_dev *dev;
	struct kref ref;
	struct completion released;
	spinlock_t lock;		/* consumer side of the queue */
	struct mro_queue *queue;
	u32 srq_num;			/* index in dev->srqs */
	u32 max_wr;
	u32 max_sge;
	u32 limit;			/* armed SRQ limit, 0 = off */
	bool limit_pending;		/* SRQ_LIMIT_REACHED owed, under lock */
	bool is_user;
};

static inline struct mro_srq *to_mro_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct mro_srq, ibsrq);
}

/*
 * Take the next receive WQE of @srq (copy into @wqe and advance); when
 * the armed limit is crossed, IB_EVENT_SRQ_LIMIT_REACHED is owed and
 * mro_srq_notify() sends it (the caller holds a QP lock).  Safe in
 * softirq.  Returns -ENOENT when empty, -EINVAL for a malformed WQE
 * (which is consumed; @wqe->wr_id is valid so it can be completed in error).
 */
int mro_srq_take(struct mro_srq *srq, struct mro_recv_wqe *wqe);
/* find a published SRQ by number and take a reference; softirq safe */
struct mro_srq *mro_srq_get(struct mro_dev *dev, u32 srq_num);
/* send the SRQ event mro_srq_take() found owed; no QP lock held */
void mro_srq_notify(struct mro_srq *srq);
void mro_srq_put(struct mro_srq *srq);

int mro_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int mro_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int mro_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int mro_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int mro_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
/* kernel post_recv into any USER_PRODUCES receive ring (RQ or SRQ) */
int mro_post_recv_ring(struct mro_queue *q, spinlock_t *producer_lock,
		       u32 max_sge, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);

/* ------------------------------------------------------------------ */
/* address vectors and AHs (mro_ah.c) */

struct mro_av {
	int family;			/* AF_INET or AF_INET6 */
	union {
		struct in6_addr v6;
		__be32 v4;
	} saddr, daddr;
	u8 dmac[ETH_ALEN];
	u8 traffic_class;
	u8 hop_limit;
	u32 flow_label;
	u32 sgid_index;
};

struct mro_ah {
	struct ib_ah ibah;
	struct mro_av av;
	u32 ah_num;			/* index in dev->ahs, > 0 */
	bool is_user;
};

static inline struct mro_ah *to_mro_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct mro_ah, ibah);
}

/* fill @av from an rdma_ah_attr (resolves the SGID attribute) */
int mro_av_from_attr(struct mro_dev *dev, struct mro_av *av,
		     const struct rdma_ah_attr *attr);
/*
 * The RoCE v2 GID of @av's local (@local) or remote address, as the wire
 * and the verbs have it: IPv4 as ::ffff:a.b.c.d
 */
void mro_av_gid(const struct mro_av *av, bool local, union ib_gid *gid);
/* validate and convert an rxe_av that user space embedded in a UD WQE */
int mro_av_from_user(struct mro_dev *dev, struct mro_av *av,
		     const struct rxe_av *uav);
/* look up an AH by number for a UD send; copies the av (softirq safe) */
int mro_ah_get_av(struct mro_dev *dev, u32 ah_num, struct ib_pd *pd,
		  struct mro_av *av);

int mro_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata);
int mro_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int mro_destroy_ah(struct ib_ah *ibah, u32 flags);

/* ------------------------------------------------------------------ */
/* memory: MRs and MWs share one key space (mro_mr.c, mro_mw.c) */

enum mro_mem_type {
	MRO_MEM_DMA,		/* get_dma_mr: iova is a kernel address */
	MRO_MEM_USER,		/* reg_user_mr: ib_umem pages */
	MRO_MEM_FAST,		/* alloc_mr + map_mr_sg + REG_MR WQE */
	MRO_MEM_MW,		/* memory window over an MR */
};

enum mro_mem_state {
	MRO_MEM_INVALID,	/* fast-reg MR / MW not (yet) valid */
	MRO_MEM_FREE,		/* fast-reg MR mapped but not registered */
	MRO_MEM_VALID,
};

struct mro_mem {
	struct mro_dev *dev;
	enum mro_mem_type type;
	enum mro_mem_state state;
	struct kref ref;
	struct completion released;
	spinlock_t lock;		/* state, keys, bounds (MW bind, inv) */
	u32 lkey;
	u32 rkey;
	struct ib_pd *pd;
	int access;			/* IB_ACCESS_* */
	u64 iova;			/* first valid address */
	u64 length;

	/* MR backing: pages of page_size each, for USER and FAST */
	struct ib_umem *umem;
	struct page **pages;
	u64 *fast_addrs;		/* FAST: kernel addresses of pages */
	u32 num_pages;
	u32 max_pages;
	u32 page_shift;
	u64 page_offset;		/* offset of iova in the first page */

	/* MW: the MR it is bound to, and for type 2 the QP */
	struct mro_mem *mw_mr;
	u32 mw_qpn;
	u8 mw_type;
	u32 num_mw;			/* MR: windows bound to it */

	struct rcu_head rcu;		/* MR: freed by kfree_rcu() */
};

struct mro_mr {
	struct ib_mr ibmr;
	struct mro_mem mem;
};

struct mro_mw {
	struct ib_mw ibmw;
	struct mro_mem mem;
};

static inline struct mro_mr *to_mro_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct mro_mr, ibmr);
}

static inline struct mro_mw *to_mro_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct mro_mw, ibmw);
}

enum mro_copy_dir {
	MRO_COPY_TO_MEM,	/* packet/buffer -> registered memory */
	MRO_COPY_FROM_MEM,	/* registered memory -> packet/buffer */
};

/*
 * Find the MR for a local key, check it belongs to @pd, is VALID, allows
 * @access (0 for local read) and covers [iova, iova + len).  Takes a
 * reference (mro_mem_put).  Softirq safe.  Returns NULL on any failure.
 */
struct mro_mem *mro_mem_get_lkey(struct mro_dev *dev, struct ib_pd *pd,
				 u32 lkey, u64 iova, u64 len, int access);
/*
 * Find the MR or MW for a remote key (rkey from a packet), check the PD
 * (@pd is the QP's PD), the QP binding of type-2 windows (@qpn), state,
 * @access (IB_ACCESS_REMOTE_*) and bounds.  Softirq safe.  NULL on failure.
 */
struct mro_mem *mro_mem_get_rkey(struct mro_dev *dev, struct ib_pd *pd,
				 u32 qpn, u32 rkey, u64 va, u64 len,
				 int access);
/* the same without the bounds check: the request covers the whole region */
struct mro_mem *mro_mem_get_rkey_whole(struct mro_dev *dev, struct ib_pd *pd,
				       u32 qpn, u32 rkey, int access);
void mro_mem_put(struct mro_mem *mem);

/*
 * Copy @len bytes between @buf and the memory at @iova (already checked to
 * be inside @mem, for an MW: inside the window, resolved to its MR).
 */
int mro_mem_copy(struct mro_mem *mem, u64 iova, void *buf, u32 len,
		 enum mro_copy_dir dir);

enum mro_atomic_op {
	MRO_ATOMIC_FETCH_ADD,
	MRO_ATOMIC_CMP_SWAP,
	MRO_ATOMIC_WRITE,	/* store @swap_add as 8 big-endian bytes */
};

/*
 * 64-bit atomic at @iova (8-byte aligned), serialised against every other
 * metaroce atomic; returns the old value in @orig.
 */
int mro_mem_atomic(struct mro_mem *mem, u64 iova, enum mro_atomic_op op,
		   u64 compare, u64 swap_add, u64 *orig);

/*
 * Copy @len bytes at byte @offset of the scatter list @sge[0..num_sge)
 * to/from @buf, looking up each lkey in @pd with @access.  Returns 0, or
 * -EFAULT/-EACCES/-EINVAL when a key, bound or permission check fails.
 */
int mro_sge_copy(struct mro_dev *dev, struct ib_pd *pd,
		 const struct ib_sge *sge, u32 num_sge, u32 offset,
		 void *buf, u32 len, enum mro_copy_dir dir, int access);

/*
 * The same, to memory only, from the bytes [@off, @off + @len) of a
 * received @skb (head and fragments) instead of a flat buffer.
 */
int mro_mem_copy_skb(struct mro_mem *mem, u64 iova, struct sk_buff *skb,
		     u32 off, u32 len);
int mro_sge_copy_skb(struct mro_dev *dev, struct ib_pd *pd,
		     const struct ib_sge *sge, u32 num_sge, u32 offset,
		     struct sk_buff *skb, u32 off, u32 len, int access);

/* local operations carried by send WQEs */
int mro_mem_invalidate(struct mro_dev *dev, struct ib_pd *pd, u32 key,
		       u32 qpn);
int mro_mr_fast_reg(struct mro_dev *dev, struct ib_pd *pd, struct ib_mr *ibmr,
		    u32 key, int access);
int mro_mw_bind(struct mro_dev *dev, struct ib_pd *pd, u32 qpn,
		u32 mw_rkey, u32 new_rkey, u32 mr_lkey, u64 addr, u64 length,
		int access);

struct ib_mr *mro_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *mro_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
struct ib_mr *mro_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg);
int mro_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
int mro_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int mro_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int mro_dealloc_mw(struct ib_mw *ibmw);

#endif /* MRO_OBJ_H */
