// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce queues: a struct rxe_queue_buf header followed by a ring of
 * 2^n slots of 2^m bytes, in vmalloc_user() memory that user space may
 * map (mro_mmap.c).  librxe is the other end: it reads log2_elem_size and
 * index_mask from the header, keeps both indices masked, and calls the
 * ring full when ((producer + 1) & mask) == consumer, so a ring of 2^n
 * slots holds 2^n - 1 elements.
 *
 * The side of the ring the kernel owns keeps its index in q->index and
 * only ever writes it to the shared header; the other side's index is read
 * from the header (acquire) and masked, so hostile values written there by
 * user space can at worst make us consume garbage slots, never step out of
 * the ring.
 */
#include <kunit/visibility.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "mro.h"

/* bounds that keep every size computation far from overflow */
#define MRO_QUEUE_MAX_SLOTS	BIT(24)
#define MRO_QUEUE_MAX_ELEM_SIZE	BIT(16)

struct mro_queue *mro_queue_alloc(struct mro_dev *dev, u32 *num_elem,
				  u32 elem_size, enum mro_queue_dir dir)
{
	struct mro_queue *q;
	size_t ring_size, buf_size;
	u32 slots;

	if (*num_elem >= MRO_QUEUE_MAX_SLOTS || !elem_size ||
	    elem_size > MRO_QUEUE_MAX_ELEM_SIZE)
		return NULL;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return NULL;

	elem_size = max_t(u32, elem_size, cache_line_size());
	elem_size = roundup_pow_of_two(elem_size);
	slots = roundup_pow_of_two(*num_elem + 1);

	if (check_mul_overflow((size_t)slots, (size_t)elem_size, &ring_size) ||
	    check_add_overflow(ring_size, sizeof(struct rxe_queue_buf),
			       &buf_size))
		goto err_free;
	buf_size = PAGE_ALIGN(buf_size);

	q->buf = vmalloc_user(buf_size);	/* zeroed: both indices 0 */
	if (!q->buf)
		goto err_free;

	q->dev = dev;
	q->dir = dir;
	q->buf_size = buf_size;
	q->elem_size = elem_size;
	q->log2_elem_size = ilog2(elem_size);
	q->index_mask = slots - 1;
	q->index = 0;
	q->buf->log2_elem_size = q->log2_elem_size;
	q->buf->index_mask = q->index_mask;

	*num_elem = slots - 1;
	return q;

err_free:
	kfree(q);
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(mro_queue_alloc);

void mro_queue_free(struct mro_queue *q)
{
	if (!q)
		return;
	/*
	 * A published ring belongs to its mmap entry from then on: removing
	 * the entry stops new mappings, and mro_mmap_free() vfree()s the ring
	 * once the entry's last reference is gone.  Pages already mapped
	 * into a process are pinned by that mapping until munmap().
	 */
	if (q->mmap_entry)
		rdma_user_mmap_entry_remove(q->mmap_entry);
	else
		vfree(q->buf);
	kfree(q);
}
EXPORT_SYMBOL_IF_KUNIT(mro_queue_free);

u32 mro_queue_producer(struct mro_queue *q)
{
	if (q->dir == MRO_Q_KERNEL_PRODUCES)
		return q->index;
	/* acquire: pairs with the producer's release, slot after index */
	return smp_load_acquire(&q->buf->producer_index) & q->index_mask;
}
EXPORT_SYMBOL_IF_KUNIT(mro_queue_producer);

u32 mro_queue_consumer(struct mro_queue *q)
{
	if (q->dir == MRO_Q_USER_PRODUCES)
		return q->index;
	/* acquire: the consumer is done with the slots before this index */
	return smp_load_acquire(&q->buf->consumer_index) & q->index_mask;
}
EXPORT_SYMBOL_IF_KUNIT(mro_queue_consumer);

u32 mro_queue_count(struct mro_queue *q)
{
	return (mro_queue_producer(q) - mro_queue_consumer(q)) & q->index_mask;
}
EXPORT_SYMBOL_IF_KUNIT(mro_queue_count);

bool mro_queue_empty(struct mro_queue *q)
{
	return mro_queue_producer(q) == mro_queue_consumer(q);
}
EXPORT_SYMBOL_IF_KUNIT(mro_queue_empty);

bool mro_queue_full(struct mro_queue *q)
{
	return ((mro_queue_producer(q) + 1) & q->index_mask) ==
	       mro_queue_consumer(q);
}
EXPORT_SYMBOL_IF_KUNIT(mro_queue_full);

void *mro_queue_slot(struct mro_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->index_mask) <<
			       q->log2_elem_size);
}
EXPORT_SYMBOL_IF_KUNIT(mro_queue_slot);

void mro_queue_advance(struct mro_queue *q)
{
	q->index = (q->index + 1) & q->index_mask;
	if (q->dir == MRO_Q_KERNEL_PRODUCES)
		/* release: the CQE is written before the index moves */
		smp_store_release(&q->buf->producer_index, q->index);
	else
		/* release: the WQE is read before its slot is handed back */
		smp_store_release(&q->buf->consumer_index, q->index);
}
EXPORT_SYMBOL_IF_KUNIT(mro_queue_advance);

void *mro_queue_kernel_producer_slot(struct mro_queue *q)
{
	if (WARN_ON_ONCE(q->dir != MRO_Q_USER_PRODUCES) || mro_queue_full(q))
		return NULL;
	return mro_queue_slot(q, mro_queue_producer(q));
}
EXPORT_SYMBOL_IF_KUNIT(mro_queue_kernel_producer_slot);

void mro_queue_kernel_produce(struct mro_queue *q)
{
	u32 prod = mro_queue_producer(q);

	/* release: the WQE is written before the index moves */
	smp_store_release(&q->buf->producer_index,
			  (prod + 1) & q->index_mask);
}
EXPORT_SYMBOL_IF_KUNIT(mro_queue_kernel_produce);

int mro_queue_move(struct mro_queue *dst, struct mro_queue *src)
{
	u32 cons = mro_queue_consumer(src);
	u32 count = mro_queue_count(src);
	u32 i;

	if (dst->dir != src->dir || dst->elem_size != src->elem_size ||
	    count > dst->index_mask)
		return -EINVAL;

	for (i = 0; i < count; i++)
		memcpy(mro_queue_slot(dst, i), mro_queue_slot(src, cons + i),
		       dst->elem_size);

	/* @dst was empty: its consumer stays at 0, its producer is @count */
	dst->index = dst->dir == MRO_Q_KERNEL_PRODUCES ? count : 0;
	/* release: the copied elements before the index */
	smp_store_release(&dst->buf->producer_index, count);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_queue_move);
