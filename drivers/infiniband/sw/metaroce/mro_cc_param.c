// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce congestion control parameters: module parameters give the
 * defaults of new devices, /sys/class/infiniband/<dev>/ports/1/cc/ each
 * device's own values (Documentation/metaroce/congestion.rst has the table).
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <rdma/ib_sysfs.h>

#include "mro.h"
#include "mro_cc_qp.h"

static struct mro_cc_params mro_cc_defaults = {
	.target_delay_us = 500,
	.target_var_pct = MRO_CC_TARGET_VAR_PCT,
	.target_max_us = MRO_CC_TARGET_MAX_US,
	.min_cwnd = 2,
	.max_cwnd = MRO_CC_MAX_CWND,
	.ai = 1,
	.beta_pct = 80,
	.pace_gain_pct = 200,
	.pace_burst_bytes = MRO_PACE_BURST_BYTES,
	.pace_burst_div = MRO_PACE_BURST_DIV,
	.credits = 1,
	.credit_budget = 256,
	.credit_quantum = 16,
	.spec_window = 32,
	.credit_idle_us = 2000,
	.rev_split = 1,
};

static char mro_cc_algo[16] = "dual";
module_param_string(cc_algo, mro_cc_algo, sizeof(mro_cc_algo), 0644);
MODULE_PARM_DESC(cc_algo, "congestion control of new devices: dual (delay + ECN) or off (default dual)");

#define MRO_CC_PARAM(field, desc)					\
	module_param_named(cc_##field, mro_cc_defaults.field, uint, 0644); \
	MODULE_PARM_DESC(cc_##field, desc)

MRO_CC_PARAM(target_delay_us, "queueing delay target in us (default 500)");
MRO_CC_PARAM(target_var_pct, "delay target grows by this % of rttvar, 0 = fixed (default 200)");
MRO_CC_PARAM(target_max_us, "largest adaptive delay target in us (default 50000)");
MRO_CC_PARAM(min_cwnd, "smallest congestion window in packets (default 2)");
MRO_CC_PARAM(max_cwnd, "largest congestion window in packets (default 16384)");
MRO_CC_PARAM(ai, "additive increase in packets per RTT (default 1)");
MRO_CC_PARAM(beta_pct, "delay decrease gain in percent (default 80)");
MRO_CC_PARAM(pace_gain_pct, "pacing rate in percent of cwnd per RTT, 0 = no pacing (default 200)");
MRO_CC_PARAM(pace_burst_bytes, "payload bytes paced back to back, >= 1 packet (default 16384)");
MRO_CC_PARAM(pace_burst_div, "paced bursts <= cwnd / this, >= 1 packet; 0 = no cap (default 16)");
MRO_CC_PARAM(credits, "receiver credits: 1 on, 0 grant the whole window (default 1)");
MRO_CC_PARAM(credit_budget, "receiver credit pool in packets, ~ link BDP (default 256)");
MRO_CC_PARAM(credit_quantum, "smallest credit share in packets (default 16)");
MRO_CC_PARAM(spec_window, "packets a new sender sends before its first grant (default 32)");
MRO_CC_PARAM(credit_idle_us, "credit timer interval in us (default 2000)");
MRO_CC_PARAM(rev_split, "1: the delay leaves out the ACKs' one-way queueing (default 1)");

struct mro_cc_knob {
	const char *name;
	size_t off;
	u32 min;
	u32 max;
};

static const struct mro_cc_knob mro_cc_knobs[] = {
#define K(f, lo, hi) { #f, offsetof(struct mro_cc_params, f), lo, hi }
	K(target_delay_us, 1, 1000000),
	K(target_var_pct, 0, 1000),
	K(target_max_us, 1, 1000000),
	K(min_cwnd, 1, 1024),
	K(max_cwnd, 1, MRO_CC_MAX_CWND),
	K(ai, 1, 1024),
	K(beta_pct, 0, 100),
	K(pace_gain_pct, 0, 1000),
	K(pace_burst_bytes, 1, 1048576),
	K(pace_burst_div, 0, 1024),
	K(credits, 0, 1),
	K(credit_budget, 1, 65536),
	K(credit_quantum, 1, 65536),
	K(spec_window, 1, MRO_CC_MAX_CWND),
	K(credit_idle_us, 100, 1000000),
	K(rev_split, 0, 1),
#undef K
};

static u32 *mro_cc_field(struct mro_cc_params *p, const struct mro_cc_knob *k)
{
	return (u32 *)((u8 *)p + k->off);
}

static u32 mro_cc_knob_clamp(const struct mro_cc_knob *k, u32 v)
{
	v = clamp(v, k->min, k->max);
	/* pacing below 100 % would throttle a window-limited flow */
	if (k->off == offsetof(struct mro_cc_params, pace_gain_pct) && v)
		v = max(v, 100U);
	return v;
}

void mro_cc_dev_init(struct mro_dev *dev)
{
	struct mro_cc_dev *c = &dev->cc;
	size_t i;

	c->ops = mro_cc_find(mro_cc_algo);
	if (!c->ops) {
		pr_warn("%s: unknown cc_algo '%s', using dual\n",
			MRO_DRV_NAME, mro_cc_algo);
		c->ops = &mro_cc_dual;
	}
	for (i = 0; i < ARRAY_SIZE(mro_cc_knobs); i++) {
		const struct mro_cc_knob *k = &mro_cc_knobs[i];

		*mro_cc_field(&c->params, k) =
			mro_cc_knob_clamp(k, *mro_cc_field(&mro_cc_defaults, k));
	}
	mro_credit_pool_init(&c->pool);
}

/*
 * sysfs: /sys/class/infiniband/<dev>/ports/1/cc/, one file per knob plus
 * "algo" (one of mro_port_groups, mro_sysfs.c).
 */
struct mro_cc_attr {
	struct ib_port_attribute attr;
	const struct mro_cc_knob *knob;
};

static ssize_t mro_cc_knob_show(struct ib_device *ibdev, u32 port,
				struct ib_port_attribute *attr, char *buf)
{
	struct mro_cc_attr *a = container_of(attr, struct mro_cc_attr, attr);
	struct mro_dev *dev = to_mro_dev(ibdev);

	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(*mro_cc_field(&dev->cc.params, a->knob)));
}

static ssize_t mro_cc_knob_store(struct ib_device *ibdev, u32 port,
				 struct ib_port_attribute *attr,
				 const char *buf, size_t count)
{
	struct mro_cc_attr *a = container_of(attr, struct mro_cc_attr, attr);
	struct mro_dev *dev = to_mro_dev(ibdev);
	u32 v;
	int err;

	err = kstrtou32(buf, 0, &v);
	if (err)
		return err;
	WRITE_ONCE(*mro_cc_field(&dev->cc.params, a->knob),
		   mro_cc_knob_clamp(a->knob, v));
	return count;
}

static ssize_t algo_show(struct ib_device *ibdev, u32 port,
			 struct ib_port_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", READ_ONCE(to_mro_dev(ibdev)->cc.ops)->name);
}

static ssize_t algo_store(struct ib_device *ibdev, u32 port,
			  struct ib_port_attribute *attr, const char *buf,
			  size_t count)
{
	const struct mro_cc_ops *ops = mro_cc_find(buf);

	if (!ops)
		return -EINVAL;
	WRITE_ONCE(to_mro_dev(ibdev)->cc.ops, ops);
	return count;
}
static IB_PORT_ATTR_RW(algo);

/* filled from the knob table by mro_cc_attrs_init() */
static struct mro_cc_attr mro_cc_attrs[ARRAY_SIZE(mro_cc_knobs)];
static struct attribute *mro_cc_attr_list[ARRAY_SIZE(mro_cc_knobs) + 2];

const struct attribute_group mro_cc_attr_group = {
	.name = "cc",
	.attrs = mro_cc_attr_list,
};

/* fill the attribute table once, before the first device registers */
void mro_cc_attrs_init(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mro_cc_knobs); i++) {
		struct mro_cc_attr *a = &mro_cc_attrs[i];

		sysfs_attr_init(&a->attr.attr);
		a->attr.attr.name = mro_cc_knobs[i].name;
		a->attr.attr.mode = 0644;
		a->attr.show = mro_cc_knob_show;
		a->attr.store = mro_cc_knob_store;
		a->knob = &mro_cc_knobs[i];
		mro_cc_attr_list[i] = &a->attr.attr;
	}
	mro_cc_attr_list[i] = &ib_port_attr_algo.attr;
	mro_cc_attr_list[i + 1] = NULL;
}
