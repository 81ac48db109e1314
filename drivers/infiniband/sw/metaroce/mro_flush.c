// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce RDMA FLUSH and ATOMIC_WRITE (the verbs of IBA 1.5 that Linux
 * offers from 6.2 on; without them, MRO_HAVE_IB_WR_FLUSH is not defined
 * and every function here refuses or does nothing).
 *
 * Both are RC requests of one packet that take a responder resource like
 * READ and atomics, run at the responder in PSN order (after every earlier
 * request has been placed), and complete at the requester on the ACK that
 * covers their PSN.  A duplicate (its PSN already covered) is only
 * acknowledged again, never executed twice.
 *
 * FLUSH: metaroce memory is ordinary kernel pages written by the CPU, so
 * global visibility needs no cache maintenance: the responder orders all
 * earlier placements before the ACK (a write barrier), which is what
 * "flushed to global visibility" means for it.  Nothing here is persistent
 * memory, so persistence is not offered: the device does not advertise
 * IB_DEVICE_FLUSH_PERSISTENT, no region can grant
 * IB_ACCESS_FLUSH_PERSISTENT, and a FLUSH that asks for persistence fails
 * the access check (remote access error), instead of pretending.
 */
#include "mro_qp.h"
#include "mro_unaligned.h"

#ifdef MRO_HAVE_IB_WR_FLUSH

/* the wire carries the IB values */
static_assert(METAROCE_FLUSH_GLOBAL == IB_FLUSH_GLOBAL);
static_assert(METAROCE_FLUSH_PERSISTENT == IB_FLUSH_PERSISTENT);
static_assert(METAROCE_FLUSH_RANGE == IB_FLUSH_RANGE);
static_assert(METAROCE_FLUSH_MR == IB_FLUSH_MR);

bool mro_flush_is_wr(u32 op)
{
	return op == IB_WR_FLUSH || op == IB_WR_ATOMIC_WRITE;
}

/* take a FLUSH/ATOMIC_WRITE WQE from the ring (librxe's layout) */
enum ib_wc_status mro_flush_swqe_load(struct mro_qp *qp,
				      struct rxe_send_wqe *w,
				      struct mro_swqe *s)
{
	u8 bytes[8];

	s->raddr = READ_ONCE(w->iova);
	if (s->opcode == IB_WR_ATOMIC_WRITE) {
		s->rkey = READ_ONCE(w->wr.wr.rdma.rkey);
		memcpy(bytes, w->dma.atomic_wr, sizeof(bytes));
		s->swap = get_unaligned_be64(bytes);
		s->length = sizeof(bytes);
		/* an 8-byte aligned 64-bit store, like every atomic */
		return s->raddr & 7 ? IB_WC_LOC_LEN_ERR : IB_WC_SUCCESS;
	}
	s->rkey = READ_ONCE(w->wr.wr.flush.rkey);
	s->flush_type = READ_ONCE(w->wr.wr.flush.type);
	s->flush_level = READ_ONCE(w->wr.wr.flush.level);
	s->length = READ_ONCE(w->dma.resid);
	if (!s->flush_type ||
	    (s->flush_type & ~(IB_FLUSH_GLOBAL | IB_FLUSH_PERSISTENT)) ||
	    (s->flush_level != IB_FLUSH_RANGE && s->flush_level != IB_FLUSH_MR))
		return IB_WC_LOC_QP_OP_ERR;
	return IB_WC_SUCCESS;
}

#else /* !MRO_HAVE_IB_WR_FLUSH */

bool mro_flush_is_wr(u32 op)
{
	return false;
}

enum ib_wc_status mro_flush_swqe_load(struct mro_qp *qp,
				      struct rxe_send_wqe *w,
				      struct mro_swqe *s)
{
	return IB_WC_LOC_QP_OP_ERR;
}

#endif /* MRO_HAVE_IB_WR_FLUSH */

/* the request header of a FLUSH/ATOMIC_WRITE WQE */
void mro_flush_fill_hdr(const struct mro_swqe *s, struct mro_hdr *hdr)
{
	if (hdr->opcode == METAROCE_OP_FLUSH) {
		hdr->flush.va = s->raddr;
		hdr->flush.rkey = s->rkey;
		hdr->flush.length = s->length;
		hdr->flush.msn = s->msn;
		hdr->flush.type = s->flush_type;
		hdr->flush.level = s->flush_level;
	} else {
		hdr->atomic.va = s->raddr;
		hdr->atomic.rkey = s->rkey;
		hdr->atomic.msn = s->msn;
		hdr->atomic.swap_add = s->swap;
		hdr->atomic.compare = 0;
	}
}

/*
 * Responder, in PSN order: 0 when done (the caller marks the PSN), or a
 * negative error after a NAK (remote access error).  The access a FLUSH
 * needs follows its type: global visibility needs IB_ACCESS_FLUSH_GLOBAL,
 * persistence IB_ACCESS_FLUSH_PERSISTENT, on the QP and on the region.
 */
int mro_resp_flush(struct mro_qp *qp, const struct mro_hdr *hdr)
{
	const struct mro_flush_hdr *f = &hdr->flush;
	int access = 0;
	struct mro_mem *mem;

#ifdef MRO_HAVE_IB_WR_FLUSH
	if (f->type & METAROCE_FLUSH_GLOBAL)
		access |= IB_ACCESS_FLUSH_GLOBAL;
	if (f->type & METAROCE_FLUSH_PERSISTENT)
		access |= IB_ACCESS_FLUSH_PERSISTENT;
#endif
	if (!access || (qp->access_flags & access) != access)
		return -EACCES;
	if (f->level == METAROCE_FLUSH_MR)
		mem = mro_mem_get_rkey_whole(qp->dev, qp->ibqp.pd, qp->qpn,
					     f->rkey, access);
	else
		mem = mro_mem_get_rkey(qp->dev, qp->ibqp.pd, qp->qpn, f->rkey,
				       f->va, f->length, access);
	if (!mem)
		return -EACCES;
	mro_mem_put(mem);
	/* every earlier placement is visible before the ACK leaves */
	wmb();
	return 0;
}

int mro_resp_atomic_write(struct mro_qp *qp, const struct mro_hdr *hdr)
{
	const struct mro_atomic_hdr *a = &hdr->atomic;
	struct mro_mem *mem;
	u64 orig;
	int err;

	if (!(qp->access_flags & IB_ACCESS_REMOTE_WRITE))
		return -EACCES;
	mem = mro_mem_get_rkey(qp->dev, qp->ibqp.pd, qp->qpn, a->rkey, a->va,
			       sizeof(u64), IB_ACCESS_REMOTE_WRITE);
	if (!mem)
		return -EACCES;
	err = mro_mem_atomic(mem, a->va, MRO_ATOMIC_WRITE, 0, a->swap_add,
			     &orig);
	mro_mem_put(mem);
	return err ? -EACCES : 0;
}
