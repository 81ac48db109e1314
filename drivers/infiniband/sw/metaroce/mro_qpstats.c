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

/* @sign * the QP's counts, into @c's base and the device's sum of bases */
static void mro_cntr_fold(struct mro_dev *dev, struct mro_cntr *c,
			  struct mro_qp *qp, int sign)
{
	unsigned int i;
	s64 n;

	lockdep_assert_held(&dev->cntr_mutex);
	for (i = 0; i < MRO_NR_COUNTERS; i++) {
		if (!mro_counter_per_qp(i))
			continue;
		n = sign * atomic64_read(&qp->stats[i]);
		c->base[i] += n;
		dev->cntr_base[i] += n;
	}
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
	mutex_lock(&dev->cntr_mutex);
	mro_cntr_fold(dev, c, to_mro_qp(ibqp), -1);
	WRITE_ONCE(ibqp->counter, counter);
	mutex_unlock(&dev->cntr_mutex);
	return 0;
}

int mro_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct rdma_counter *counter = ibqp->counter;
	struct mro_dev *dev = to_mro_dev(counter->device);
	struct mro_cntr *c = mro_cntr_of(counter);

	mutex_lock(&dev->cntr_mutex);
	WRITE_ONCE(ibqp->counter, NULL);
	if (c)
		mro_cntr_fold(dev, c, to_mro_qp(ibqp), 1);
	mutex_unlock(&dev->cntr_mutex);
	return 0;
}

/* after the last unbind: the object's value is its base, for good */
int mro_counter_dealloc(struct rdma_counter *counter)
{
	struct mro_dev *dev = to_mro_dev(counter->device);
	struct mro_cntr *c;
	unsigned int i;

	if (!counter->id)
		return 0;
	c = xa_erase(&dev->counters, counter->id);
	if (!c)
		return 0;
	mutex_lock(&dev->cntr_mutex);
	for (i = 0; i < MRO_NR_COUNTERS; i++) {
		dev->cntr_base[i] -= c->base[i];
		dev->cntr_gone[i] += c->base[i];
	}
	mutex_unlock(&dev->cntr_mutex);
	kfree(c);
	return 0;
}

struct rdma_hw_stats *mro_counter_alloc_stats(struct rdma_counter *counter)
{
	return mro_alloc_stats_struct(true);
}

/* add the counts of the QPs bound to @counter (any, if NULL) to @sum */
static void mro_cntr_sum_qps(struct mro_dev *dev,
			     struct rdma_counter *counter, u64 *sum)
{
	struct rdma_counter *bound;
	struct mro_qp *qp;
	unsigned long qpn;
	unsigned int i;

	/* a bound QP is unbound before it is destroyed */
	xa_lock(&dev->qps);
	xa_for_each(&dev->qps, qpn, qp) {
		bound = READ_ONCE(qp->ibqp.counter);
		if (!bound || (counter && bound != counter))
			continue;
		for (i = 0; i < MRO_NR_COUNTERS; i++)
			sum[i] += atomic64_read(&qp->stats[i]);
	}
	xa_unlock(&dev->qps);
}

int mro_counter_update_stats(struct rdma_counter *counter)
{
	struct mro_dev *dev = to_mro_dev(counter->device);
	struct mro_cntr *c = mro_cntr_of(counter);
	u64 sum[MRO_NR_COUNTERS];
	unsigned int i;

	if (!c)
		return -EINVAL;
	/* counter->lock keeps this counter's bindings still */
	memcpy(sum, c->base, sizeof(sum));
	mro_cntr_sum_qps(dev, counter, sum);
	for (i = 0; i < MRO_NR_COUNTERS; i++)
		if (mro_counter_per_qp(i))
			counter->stats->value[i] = sum[i];
	return 0;
}

void mro_cntr_held(struct mro_dev *dev, u64 *v)
{
	unsigned int i;

	mutex_lock(&dev->cntr_mutex);
	for (i = 0; i < MRO_NR_COUNTERS; i++)
		v[i] = dev->cntr_gone[i] + dev->cntr_base[i];
	mro_cntr_sum_qps(dev, NULL, v);
	mutex_unlock(&dev->cntr_mutex);
}
