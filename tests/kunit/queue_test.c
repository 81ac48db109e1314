// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the metaroce queues (mro_queue.c) and receive WQE checks
 * (mro_srq.c) on rings allocated without a user context: the geometry
 * librxe relies on (struct rxe_queue_buf header, power-of-two slots, one
 * slot kept free), index wrap-around, full/empty, and that index values
 * written into the shared header by a hostile user are masked while the
 * index the kernel owns is never read back.
 *
 * Expected values are computed here independently (loops, not the
 * helpers under test).
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>

#include "mro.h"

#if IS_ENABLED(CONFIG_METAROCE)

/* smallest power of two >= @n, by a loop */
static u32 qt_pow2(u32 n)
{
	u32 p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static struct mro_queue *qt_alloc(struct kunit *test, u32 *num, u32 esize,
				  enum mro_queue_dir dir)
{
	struct mro_queue *q = mro_queue_alloc(NULL, num, esize, dir);

	KUNIT_ASSERT_NOT_NULL(test, q);
	return q;
}

static void qt_header_layout(struct kunit *test)
{
	/* librxe's view of the header */
	KUNIT_EXPECT_EQ(test, offsetof(struct rxe_queue_buf, producer_index),
			128);
	KUNIT_EXPECT_EQ(test, offsetof(struct rxe_queue_buf, consumer_index),
			256);
	KUNIT_EXPECT_EQ(test, offsetof(struct rxe_queue_buf, data), 384);
	KUNIT_EXPECT_EQ(test, sizeof(struct rxe_recv_wqe), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct ib_uverbs_wc), 48);
	KUNIT_EXPECT_GE(test, sizeof(union mro_cqe), sizeof(struct ib_wc));
}

static void qt_geometry(struct kunit *test)
{
	static const struct {
		u32 num;
		u32 esize;
	} c[] = {
		{ 0, 1 }, { 1, 48 }, { 3, 64 }, { 7, 100 }, { 8, 64 },
		{ 1000, 200 }, { 4095, 1024 }, { 4096, 40 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		u32 num = c[i].num;
		u32 slots = qt_pow2(c[i].num + 1);
		u32 esize = qt_pow2(max_t(u32, c[i].esize, cache_line_size()));
		struct mro_queue *q = qt_alloc(test, &num, c[i].esize,
					       MRO_Q_USER_PRODUCES);

		KUNIT_EXPECT_EQ(test, num, slots - 1);
		KUNIT_EXPECT_GE(test, num, c[i].num);
		KUNIT_EXPECT_EQ(test, q->elem_size, esize);
		KUNIT_EXPECT_EQ(test, 1U << q->log2_elem_size, esize);
		KUNIT_EXPECT_EQ(test, q->index_mask, slots - 1);
		KUNIT_EXPECT_EQ(test, q->buf->log2_elem_size,
				q->log2_elem_size);
		KUNIT_EXPECT_EQ(test, q->buf->index_mask, slots - 1);
		KUNIT_EXPECT_EQ(test, q->buf_size % PAGE_SIZE, 0);
		KUNIT_EXPECT_GE(test, q->buf_size,
				384 + (size_t)slots * esize);
		KUNIT_EXPECT_EQ(test, q->buf->producer_index, 0);
		KUNIT_EXPECT_EQ(test, q->buf->consumer_index, 0);
		KUNIT_EXPECT_TRUE(test, mro_queue_empty(q));
		KUNIT_EXPECT_EQ(test, mro_queue_count(q), 0);
		KUNIT_EXPECT_PTR_EQ(test, q->mmap_entry, NULL);
		mro_queue_free(q);
	}
}

static void qt_absurd_sizes(struct kunit *test)
{
	u32 num;

	num = 1U << 24;
	KUNIT_EXPECT_NULL(test, mro_queue_alloc(NULL, &num, 64,
						MRO_Q_USER_PRODUCES));
	num = U32_MAX;
	KUNIT_EXPECT_NULL(test, mro_queue_alloc(NULL, &num, 64,
						MRO_Q_USER_PRODUCES));
	num = 4;
	KUNIT_EXPECT_NULL(test, mro_queue_alloc(NULL, &num, 0,
						MRO_Q_USER_PRODUCES));
	num = 4;
	KUNIT_EXPECT_NULL(test, mro_queue_alloc(NULL, &num, SZ_128K,
						MRO_Q_USER_PRODUCES));
}

/* kernel producer and consumer of a USER_PRODUCES ring (kernel SQ/RQ) */
static void qt_kernel_ring_wrap(struct kunit *test)
{
	u32 num = 3, next_put = 0, next_get = 0, step, count;
	struct mro_queue *q = qt_alloc(test, &num, 64, MRO_Q_USER_PRODUCES);
	u32 *slot;

	KUNIT_ASSERT_EQ(test, num, 3);
	/* produce on 3 steps of 5, consume on the others: wraps many times */
	for (step = 0; step < 100; step++) {
		if (step % 5 < 3 && !mro_queue_full(q)) {
			slot = mro_queue_kernel_producer_slot(q);
			KUNIT_ASSERT_NOT_NULL(test, slot);
			/* the slot of the n-th element, computed by hand */
			KUNIT_EXPECT_PTR_EQ(test, (void *)slot,
					    (void *)(q->buf->data +
						     (next_put % 4) * 64));
			*slot = next_put++;
			mro_queue_kernel_produce(q);
			KUNIT_EXPECT_EQ(test, q->buf->producer_index,
					next_put % 4);
		} else if (!mro_queue_empty(q)) {
			slot = mro_queue_slot(q, mro_queue_consumer(q));
			KUNIT_EXPECT_EQ(test, *slot, next_get);
			next_get++;
			mro_queue_advance(q);
			KUNIT_EXPECT_EQ(test, q->buf->consumer_index,
					next_get % 4);
		}
		count = next_put - next_get;
		KUNIT_EXPECT_EQ(test, mro_queue_count(q), count);
		KUNIT_EXPECT_EQ(test, mro_queue_full(q), count == 3);
		KUNIT_EXPECT_EQ(test, mro_queue_empty(q), count == 0);
		if (count == 3)
			KUNIT_EXPECT_NULL(test,
					  mro_queue_kernel_producer_slot(q));
	}
	KUNIT_EXPECT_GT(test, next_put, 16);
	mro_queue_free(q);
}

/* a CQ-style ring: the kernel produces, "user space" consumes */
static void qt_cq_ring(struct kunit *test)
{
	u32 num = 7, i;
	struct mro_queue *q = qt_alloc(test, &num, 48,
				       MRO_Q_KERNEL_PRODUCES);

	KUNIT_ASSERT_EQ(test, num, 7);
	for (i = 0; i < 7; i++) {
		KUNIT_ASSERT_FALSE(test, mro_queue_full(q));
		mro_queue_advance(q);
		KUNIT_EXPECT_EQ(test, q->buf->producer_index, i + 1);
	}
	KUNIT_EXPECT_TRUE(test, mro_queue_full(q));
	KUNIT_EXPECT_EQ(test, mro_queue_count(q), 7);

	/* the user consumes 5 (librxe stores masked indices) */
	WRITE_ONCE(q->buf->consumer_index, 5);
	KUNIT_EXPECT_EQ(test, mro_queue_count(q), 2);
	for (i = 0; i < 5; i++)
		mro_queue_advance(q);
	/* producer wrapped: 12 & 7 */
	KUNIT_EXPECT_EQ(test, q->buf->producer_index, 4);
	KUNIT_EXPECT_EQ(test, mro_queue_count(q), 7);
	KUNIT_EXPECT_TRUE(test, mro_queue_full(q));
	mro_queue_free(q);
}

static void qt_hostile_indices(struct kunit *test)
{
	u32 num = 15, i;
	struct mro_queue *q = qt_alloc(test, &num, 128, MRO_Q_USER_PRODUCES);
	u8 *lo = q->buf->data, *hi = q->buf->data + 16 * q->elem_size;
	static const u32 evil[] = {
		0xffffffff, 0x80000000, 0xdeadbeef, 16, 17, 0x7fffffff,
	};
	u8 *slot;

	for (i = 0; i < ARRAY_SIZE(evil); i++) {
		WRITE_ONCE(q->buf->producer_index, evil[i]);
		KUNIT_EXPECT_EQ(test, mro_queue_producer(q), evil[i] & 15);
		KUNIT_EXPECT_LE(test, mro_queue_count(q), 15);
		slot = mro_queue_slot(q, mro_queue_producer(q));
		KUNIT_EXPECT_TRUE(test, slot >= lo && slot < hi);
		slot = mro_queue_slot(q, evil[i]);
		KUNIT_EXPECT_TRUE(test, slot >= lo && slot < hi);
	}

	/* the consumer index is ours: scribbling on the header is ignored */
	WRITE_ONCE(q->buf->producer_index, 5);
	mro_queue_advance(q);
	mro_queue_advance(q);
	WRITE_ONCE(q->buf->consumer_index, 0xabcdef);
	KUNIT_EXPECT_EQ(test, mro_queue_consumer(q), 2);
	KUNIT_EXPECT_EQ(test, mro_queue_count(q), 3);
	mro_queue_advance(q);
	KUNIT_EXPECT_EQ(test, q->buf->consumer_index, 3);
	mro_queue_free(q);

	/* and the producer index of a CQ ring likewise */
	num = 3;
	q = qt_alloc(test, &num, 64, MRO_Q_KERNEL_PRODUCES);
	mro_queue_advance(q);
	WRITE_ONCE(q->buf->producer_index, 0x55555555);
	WRITE_ONCE(q->buf->consumer_index, 0xfffffffe);
	KUNIT_EXPECT_EQ(test, mro_queue_producer(q), 1);
	KUNIT_EXPECT_EQ(test, mro_queue_consumer(q), 2);
	KUNIT_EXPECT_EQ(test, mro_queue_count(q), 3);
	KUNIT_EXPECT_TRUE(test, mro_queue_full(q));
	mro_queue_advance(q);
	KUNIT_EXPECT_EQ(test, q->buf->producer_index, 2);
	mro_queue_free(q);
}

static void qt_move(struct kunit *test)
{
	u32 num = 3, big = 8, small = 1, i;
	struct mro_queue *src = qt_alloc(test, &num, 64, MRO_Q_KERNEL_PRODUCES);
	struct mro_queue *dst = qt_alloc(test, &big, 64, MRO_Q_KERNEL_PRODUCES);
	struct mro_queue *tiny = qt_alloc(test, &small, 64,
					  MRO_Q_KERNEL_PRODUCES);
	u32 *slot;

	/* put 3 pending CQEs across the wrap: slots 2, 3, 0 */
	mro_queue_advance(src);
	mro_queue_advance(src);
	WRITE_ONCE(src->buf->consumer_index, 2);
	for (i = 0; i < 3; i++) {
		slot = mro_queue_slot(src, mro_queue_producer(src));
		*slot = 100 + i;
		mro_queue_advance(src);
	}
	KUNIT_ASSERT_EQ(test, mro_queue_count(src), 3);

	KUNIT_EXPECT_EQ(test, mro_queue_move(tiny, src), -EINVAL);
	KUNIT_ASSERT_EQ(test, mro_queue_move(dst, src), 0);
	KUNIT_EXPECT_EQ(test, mro_queue_count(dst), 3);
	KUNIT_EXPECT_EQ(test, dst->buf->producer_index, 3);
	KUNIT_EXPECT_EQ(test, dst->buf->consumer_index, 0);
	for (i = 0; i < 3; i++) {
		slot = mro_queue_slot(dst, i);
		KUNIT_EXPECT_EQ(test, *slot, 100 + i);
	}
	/* the kernel keeps producing after the moved ones */
	mro_queue_advance(dst);
	KUNIT_EXPECT_EQ(test, dst->buf->producer_index, 4);

	mro_queue_free(src);
	mro_queue_free(dst);
	mro_queue_free(tiny);
}

static struct rxe_recv_wqe *qt_user_post(struct mro_queue *q)
{
	struct rxe_recv_wqe *w = mro_queue_slot(q, q->buf->producer_index);

	memset(w, 0, q->elem_size);
	return w;
}

static void qt_user_commit(struct mro_queue *q)
{
	q->buf->producer_index = (q->buf->producer_index + 1) & q->index_mask;
}

static void qt_recv_peek(struct kunit *test)
{
	u32 num = 7, max_sge = 4;
	struct mro_queue *q = qt_alloc(test, &num, mro_recv_wqe_size(max_sge),
				       MRO_Q_USER_PRODUCES);
	struct mro_recv_wqe *wqe = kunit_kzalloc(test, sizeof(*wqe),
						 GFP_KERNEL);
	struct rxe_recv_wqe *w;

	KUNIT_ASSERT_NOT_NULL(test, wqe);
	KUNIT_EXPECT_EQ(test, mro_recv_wqe_peek(q, max_sge, wqe), -ENOENT);

	/* good: 2 sges, the total at the 2^31 limit; dma.length is a lie */
	w = qt_user_post(q);
	w->wr_id = 0x1122334455667788ULL;
	w->dma.num_sge = 2;
	w->dma.length = 7;
	w->dma.sge[0].addr = 0x1000;
	w->dma.sge[0].length = 0x40000000;
	w->dma.sge[0].lkey = 0x101;
	w->dma.sge[1].addr = 0x2000;
	w->dma.sge[1].length = 0x40000000;
	w->dma.sge[1].lkey = 0x202;
	qt_user_commit(q);
	KUNIT_ASSERT_EQ(test, mro_recv_wqe_peek(q, max_sge, wqe), 0);
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 2);
	KUNIT_EXPECT_EQ(test, wqe->length, 0x80000000U);
	KUNIT_EXPECT_EQ(test, wqe->sge[1].addr, 0x2000);
	KUNIT_EXPECT_EQ(test, wqe->sge[1].lkey, 0x202);
	/* peek does not consume */
	KUNIT_EXPECT_EQ(test, mro_queue_count(q), 1);
	mro_queue_advance(q);

	/* num_sge beyond max_sge */
	w = qt_user_post(q);
	w->wr_id = 42;
	w->dma.num_sge = max_sge + 1;
	qt_user_commit(q);
	KUNIT_EXPECT_EQ(test, mro_recv_wqe_peek(q, max_sge, wqe), -EINVAL);
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 42);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 0);
	mro_queue_advance(q);

	/* a huge num_sge */
	w = qt_user_post(q);
	w->dma.num_sge = 0xffffffff;
	qt_user_commit(q);
	KUNIT_EXPECT_EQ(test, mro_recv_wqe_peek(q, max_sge, wqe), -EINVAL);
	mro_queue_advance(q);

	/* one sge longer than 2^31 */
	w = qt_user_post(q);
	w->dma.num_sge = 1;
	w->dma.sge[0].length = 0x80000001;
	qt_user_commit(q);
	KUNIT_EXPECT_EQ(test, mro_recv_wqe_peek(q, max_sge, wqe), -EINVAL);
	mro_queue_advance(q);

	/* sum beyond 2^31, each one fine; also wraps a u32 sum */
	w = qt_user_post(q);
	w->dma.num_sge = 3;
	w->dma.sge[0].length = 0x80000000;
	w->dma.sge[1].length = 0x80000000;
	w->dma.sge[2].length = 1;
	qt_user_commit(q);
	KUNIT_EXPECT_EQ(test, mro_recv_wqe_peek(q, max_sge, wqe), -EINVAL);
	mro_queue_advance(q);

	/* zero sges is a valid zero-length receive */
	w = qt_user_post(q);
	w->wr_id = 9;
	qt_user_commit(q);
	KUNIT_EXPECT_EQ(test, mro_recv_wqe_peek(q, max_sge, wqe), 0);
	KUNIT_EXPECT_EQ(test, wqe->length, 0);
	mro_queue_advance(q);
	KUNIT_EXPECT_TRUE(test, mro_queue_empty(q));
	mro_queue_free(q);
}

static void qt_post_recv_ring(struct kunit *test)
{
	u32 num = 3, max_sge = 2;
	struct mro_queue *q = qt_alloc(test, &num, mro_recv_wqe_size(max_sge),
				       MRO_Q_USER_PRODUCES);
	struct ib_sge sge[3] = {
		{ .addr = 0x10, .length = 100, .lkey = 1 },
		{ .addr = 0x20, .length = 200, .lkey = 2 },
		{ .addr = 0x30, .length = 300, .lkey = 3 },
	};
	struct ib_recv_wr wr[4] = {};
	const struct ib_recv_wr *bad = NULL;
	struct mro_recv_wqe *wqe = kunit_kzalloc(test, sizeof(*wqe),
						 GFP_KERNEL);
	DEFINE_SPINLOCK(lock);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, wqe);
	for (i = 0; i < 4; i++) {
		wr[i].wr_id = 500 + i;
		wr[i].sg_list = sge;
		wr[i].num_sge = 2;
		if (i < 3)
			wr[i].next = &wr[i + 1];
	}

	/* too many sges: nothing posted, bad_wr is the first */
	wr[0].num_sge = 3;
	KUNIT_EXPECT_EQ(test, mro_post_recv_ring(q, &lock, max_sge, wr, &bad),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[0]);
	KUNIT_EXPECT_TRUE(test, mro_queue_empty(q));

	/* four into a ring of three: the fourth is refused */
	wr[0].num_sge = 2;
	KUNIT_EXPECT_EQ(test, mro_post_recv_ring(q, &lock, max_sge, wr, &bad),
			-ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[3]);
	KUNIT_EXPECT_EQ(test, mro_queue_count(q), 3);

	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, mro_recv_wqe_peek(q, max_sge, wqe), 0);
		KUNIT_EXPECT_EQ(test, wqe->wr_id, 500 + i);
		KUNIT_EXPECT_EQ(test, wqe->num_sge, 2);
		KUNIT_EXPECT_EQ(test, wqe->length, 300);
		KUNIT_EXPECT_EQ(test, wqe->sge[1].lkey, 2);
		mro_queue_advance(q);
	}
	KUNIT_EXPECT_TRUE(test, mro_queue_empty(q));
	mro_queue_free(q);
}

static struct kunit_case metaroce_queue_cases[] = {
	KUNIT_CASE(qt_header_layout),
	KUNIT_CASE(qt_geometry),
	KUNIT_CASE(qt_absurd_sizes),
	KUNIT_CASE(qt_kernel_ring_wrap),
	KUNIT_CASE(qt_cq_ring),
	KUNIT_CASE(qt_hostile_indices),
	KUNIT_CASE(qt_move),
	KUNIT_CASE(qt_recv_peek),
	KUNIT_CASE(qt_post_recv_ring),
	{}
};

static struct kunit_suite metaroce_queue_suite = {
	.name = "metaroce_queue",
	.test_cases = metaroce_queue_cases,
};

kunit_test_suite(metaroce_queue_suite);

#endif /* IS_ENABLED(CONFIG_METAROCE) */
