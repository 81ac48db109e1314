// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce per-QP counters: the RDMA core's counter objects (`rdma
 * statistic qp set ... auto` and `rdma statistic qp bind`).  Every QP
 * counts its own packets, bytes, retransmissions, losses, timeouts, RNR
 * NAKs, out-of-order and duplicate packets (qp->stats); a counter object
 * reports the sum over the QPs bound to it since they were bound.
 *
 * The core calls these ops under counter->lock, so they never race for
 * one counter; a bound QP is unbound before it is destroyed.
 */
#include <linux/slab.h>
#include <rdma/rdma_counter.h>

#include "mro_qp.h"

/*
 * Driver state of one counter object.  Its value is base + the sum of
 * the bound QPs' counts: binding subtracts the QP's count so far,
 * unbinding adds its count at that moment (u64 arithmetic wraps).
 */
struct mro_cntr {
	u64 base[MRO_NR_COUNTERS];
};

static struct mro_cntr *mro_cntr_of(struct rdma_counter *counter)
{
	return xa_load(&to_mro_dev(counter->device)->counters, counter->id);
}

/* @sign * the QP's counts, into @c's base */
static void mro_cntr_fold(struct mro_cntr *c, struct mro_qp *qp, int sign)
{
	unsigned int i;

	for (i = 0; i < MRO_NR_COUNTERS; i++)
		if (mro_counter_per_qp(i))
			c->base[i] += sign * atomic64_read(&qp->stats[i]);
}

int mro_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp)
{
	struct mro_dev *dev = to_mro_dev(counter->device);
	struct mro_cntr *c;
	u32 id;
	int err;

	if (!counter->id) {
		/* first QP: the counter gets its id (restrack uses it) */
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c)
			return -ENOMEM;
		err = xa_alloc(&dev->counters, &id, c, xa_limit_31b,
			       GFP_KERNEL);
		if (err) {
			kfree(c);
			return err;
		}
		counter->id = id;
	} else {
		c = mro_cntr_of(counter);
		if (!c)
			return -EINVAL;
	}
	mro_cntr_fold(c, to_mro_qp(ibqp), -1);
	WRITE_ONCE(ibqp->counter, counter);
	return 0;
}

int mro_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct rdma_counter *counter = ibqp->counter;
	struct mro_cntr *c = mro_cntr_of(counter);

	WRITE_ONCE(ibqp->counter, NULL);
	if (c)
		mro_cntr_fold(c, to_mro_qp(ibqp), 1);
	return 0;
}

int mro_counter_dealloc(struct rdma_counter *counter)
{
	struct mro_dev *dev = to_mro_dev(counter->device);

	if (counter->id)
		kfree(xa_erase(&dev->counters, counter->id));
	return 0;
}

struct rdma_hw_stats *mro_counter_alloc_stats(struct rdma_counter *counter)
{
	return mro_alloc_stats_struct(true);
}

int mro_counter_update_stats(struct rdma_counter *counter)
{
	struct mro_dev *dev = to_mro_dev(counter->device);
	struct mro_cntr *c = mro_cntr_of(counter);
	u64 *v = counter->stats->value;
	u64 sum[MRO_NR_COUNTERS];
	struct mro_qp *qp;
	unsigned long qpn;
	unsigned int i;

	if (!c)
		return -EINVAL;
	memcpy(sum, c->base, sizeof(sum));
	/* a QP bound here cannot be destroyed meanwhile (counter->lock) */
	xa_lock(&dev->qps);
	xa_for_each(&dev->qps, qpn, qp) {
		if (READ_ONCE(qp->ibqp.counter) != counter)
			continue;
		for (i = 0; i < MRO_NR_COUNTERS; i++)
			sum[i] += atomic64_read(&qp->stats[i]);
	}
	xa_unlock(&dev->qps);

	for (i = 0; i < MRO_NR_COUNTERS; i++) {
		if (!mro_counter_per_qp(i))
			continue;
		/* the port value leaves out what counters report */
		atomic64_add(sum[i] - v[i], &dev->attributed[i]);
		v[i] = sum[i];
	}
	return 0;
}
