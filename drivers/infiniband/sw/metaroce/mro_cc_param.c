// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce congestion control parameters: the built-in algorithms'
 * registration, the shared knobs' module parameters (the defaults of new
 * devices), and /sys/class/infiniband/<dev>/ports/1/cc/: each device's
 * algorithm, its shared knobs and every built-in algorithm's own knobs
 * (Documentation/metaroce/congestion.rst has the table).
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <rdma/ib_sysfs.h>

#include "mro.h"
#include "mro_cc_algos.h"
#include "mro_cc_qp.h"

static struct mro_cc_ops *const mro_cc_builtin[] = {
	&mro_cc_dual,		/* the first: the default and the fallback */
	&mro_cc_off,
	&mro_cc_swift,
};

static struct mro_cc_params mro_cc_defaults = {
	.min_cwnd = 2,
	.max_cwnd = MRO_CC_MAX_CWND,
	.pace_gain_pct = 200,
	.pace_burst_bytes = MRO_PACE_BURST_BYTES,
	.pace_burst_div = MRO_PACE_BURST_DIV,
	.credits = 1,
	.credit_budget = 256,
	.credit_quantum = 16,
	.spec_window = 32,
	.credit_idle_us = 2000,
};

static char mro_cc_algo[MRO_CC_NAME_MAX] = "dual";
module_param_string(cc_algo, mro_cc_algo, sizeof(mro_cc_algo), 0644);
MODULE_PARM_DESC(cc_algo, "congestion control of new devices: dual (delay + ECN), swift (delay), off, or another registered one (default dual)");

#define MRO_CC_PARAM(f, desc)	MRO_CC_MODULE_PARAM(mro_cc_defaults, f, desc)

MRO_CC_PARAM(min_cwnd, "smallest congestion window in packets (default 2)");
MRO_CC_PARAM(max_cwnd, "largest congestion window in packets (default 16384)");
MRO_CC_PARAM(pace_gain_pct, "pacing rate in percent of cwnd per RTT, 0 = no pacing (default 200)");
MRO_CC_PARAM(pace_burst_bytes, "payload bytes paced back to back, >= 1 packet (default 16384)");
MRO_CC_PARAM(pace_burst_div, "paced bursts <= cwnd / this, >= 1 packet; 0 = no cap (default 16)");
MRO_CC_PARAM(credits, "receiver credits: 1 on, 0 grant the whole window (default 1)");
MRO_CC_PARAM(credit_budget, "receiver credit pool in packets, ~ link BDP (default 256)");
MRO_CC_PARAM(credit_quantum, "smallest credit share in packets (default 16)");
MRO_CC_PARAM(spec_window, "packets a new sender sends before its first grant (default 32)");
MRO_CC_PARAM(credit_idle_us, "credit timer interval in us (default 2000)");

static const struct mro_cc_knob mro_cc_knobs[] = {
#define K(f, lo, hi) MRO_CC_KNOB(struct mro_cc_params, f, lo, hi)
	K(min_cwnd, 1, 1024),
	K(max_cwnd, 1, MRO_CC_MAX_CWND),
	K(pace_gain_pct, 0, 1000),
	K(pace_burst_bytes, 1, 1048576),
	K(pace_burst_div, 0, 1024),
	K(credits, 0, 1),
	K(credit_budget, 1, 65536),
	K(credit_quantum, 1, 65536),
	K(spec_window, 1, MRO_CC_MAX_CWND),
	K(credit_idle_us, 100, 1000000),
#undef K
};

static u32 *mro_cc_field(void *block, const struct mro_cc_knob *k)
{
	return (u32 *)((u8 *)block + k->off);
}

static u32 mro_cc_knob_clamp(const struct mro_cc_knob *k, u32 v)
{
	v = clamp(v, k->min, k->max);
	/* pacing below 100 % would throttle a window-limited flow */
	if (!strcmp(k->name, "pace_gain_pct") && v)
		v = max(v, 100U);
	return v;
}

/* copy @ops's defaults into the device's block for it, clamped */
static void mro_cc_aparams_init(struct mro_cc_dev *c,
				const struct mro_cc_ops *ops)
{
	unsigned int slot = mro_cc_id_slot(ops->id), i;
	struct mro_cc_aparams *ap = &c->aparams[slot];

	memset(ap, 0, sizeof(*ap));
	if (ops->params_size)
		memcpy(ap, ops->defaults, ops->params_size);
	for (i = 0; i < ops->n_knobs; i++) {
		u32 *v = mro_cc_field(ap, &ops->knobs[i]);

		*v = mro_cc_knob_clamp(&ops->knobs[i], *v);
	}
	WRITE_ONCE(c->aparams_id[slot], ops->id);
}

void mro_cc_dev_init(struct mro_dev *dev)
{
	const struct mro_cc_ops *ops;
	struct mro_cc_dev *c = &dev->cc;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mro_cc_knobs); i++) {
		const struct mro_cc_knob *k = &mro_cc_knobs[i];

		*mro_cc_field(&c->params, k) =
			mro_cc_knob_clamp(k, *mro_cc_field(&mro_cc_defaults, k));
	}
	for (i = 0; i < MRO_CC_SLOTS; i++) {
		ops = mro_cc_slot(i);
		if (ops)
			mro_cc_aparams_init(c, ops);
	}
	ops = mro_cc_find(mro_cc_algo);
	if (!ops) {
		pr_warn("%s: unknown cc_algo '%s', using dual\n",
			MRO_DRV_NAME, mro_cc_algo);
		ops = &mro_cc_dual;
	}
	c->algo = ops->id;
	mro_credit_pool_init(&c->pool);
}

const struct mro_cc_ops *mro_cc_dev_algo(struct mro_cc_dev *d,
					 const void **ap)
{
	const struct mro_cc_ops *ops = mro_cc_get(READ_ONCE(d->algo));
	unsigned int slot;

	/* removed since it was chosen, or never set up here: the default */
	if (ops && READ_ONCE(d->aparams_id[mro_cc_id_slot(ops->id)]) !=
		   ops->id) {
		mro_cc_put(ops);
		ops = NULL;
	}
	if (!ops)
		ops = &mro_cc_dual;
	slot = mro_cc_id_slot(ops->id);
	*ap = &d->aparams[slot];
	return ops;
}

/*
 * sysfs: /sys/class/infiniband/<dev>/ports/1/cc/, one file per knob plus
 * "algo" (one of mro_port_groups, mro_sysfs.c).  A knob of the shared
 * block has no slot; an algorithm's knob names its slot.
 */
struct mro_cc_attr {
	struct ib_port_attribute attr;
	const struct mro_cc_knob *knob;
	int slot;			/* -1: struct mro_cc_params */
};

static u32 *mro_cc_attr_field(struct mro_dev *dev, const struct mro_cc_attr *a)
{
	void *block = a->slot < 0 ? (void *)&dev->cc.params :
				    (void *)&dev->cc.aparams[a->slot];

	return mro_cc_field(block, a->knob);
}

static ssize_t mro_cc_knob_show(struct ib_device *ibdev, u32 port,
				struct ib_port_attribute *attr, char *buf)
{
	struct mro_cc_attr *a = container_of(attr, struct mro_cc_attr, attr);

	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(*mro_cc_attr_field(to_mro_dev(ibdev), a)));
}

static ssize_t mro_cc_knob_store(struct ib_device *ibdev, u32 port,
				 struct ib_port_attribute *attr,
				 const char *buf, size_t count)
{
	struct mro_cc_attr *a = container_of(attr, struct mro_cc_attr, attr);
	u32 v;
	int err;

	err = kstrtou32(buf, 0, &v);
	if (err)
		return err;
	WRITE_ONCE(*mro_cc_attr_field(to_mro_dev(ibdev), a),
		   mro_cc_knob_clamp(a->knob, v));
	return count;
}

static ssize_t algo_show(struct ib_device *ibdev, u32 port,
			 struct ib_port_attribute *attr, char *buf)
{
	u32 id = READ_ONCE(to_mro_dev(ibdev)->cc.algo);
	const struct mro_cc_ops *ops = mro_cc_slot(mro_cc_id_slot(id));

	if (!ops || ops->id != id)
		ops = &mro_cc_dual;	/* what its QPs get (mro_cc_dev_algo()) */
	return sysfs_emit(buf, "%s\n", ops->name);
}

static ssize_t algo_store(struct ib_device *ibdev, u32 port,
			  struct ib_port_attribute *attr, const char *buf,
			  size_t count)
{
	struct mro_cc_dev *c = &to_mro_dev(ibdev)->cc;
	const struct mro_cc_ops *ops = mro_cc_find(buf);

	if (!ops)
		return -EINVAL;
	/* an algorithm registered after the device: its defaults */
	if (READ_ONCE(c->aparams_id[mro_cc_id_slot(ops->id)]) != ops->id)
		mro_cc_aparams_init(c, ops);
	WRITE_ONCE(c->algo, ops->id);
	return count;
}
static IB_PORT_ATTR_RW(algo);

#define MRO_CC_ATTRS_MAX \
	(ARRAY_SIZE(mro_cc_knobs) + MRO_CC_SLOTS * MRO_CC_PARAMS_MAX)

/* filled by mro_cc_module_init() */
static struct mro_cc_attr mro_cc_attrs[MRO_CC_ATTRS_MAX];
static struct attribute *mro_cc_attr_list[MRO_CC_ATTRS_MAX + 2];
static unsigned int mro_cc_n_attrs;

const struct attribute_group mro_cc_attr_group = {
	.name = "cc",
	.attrs = mro_cc_attr_list,
};

static void mro_cc_attr_add(const struct mro_cc_knob *k, int slot)
{
	struct mro_cc_attr *a;
	unsigned int i;

	for (i = 0; i < mro_cc_n_attrs; i++) {
		if (!strcmp(mro_cc_attrs[i].knob->name, k->name)) {
			pr_warn("%s: cc knob %s is taken, not in sysfs\n",
				MRO_DRV_NAME, k->name);
			return;
		}
	}
	a = &mro_cc_attrs[mro_cc_n_attrs];
	sysfs_attr_init(&a->attr.attr);
	a->attr.attr.name = k->name;
	a->attr.attr.mode = 0644;
	a->attr.show = mro_cc_knob_show;
	a->attr.store = mro_cc_knob_store;
	a->knob = k;
	a->slot = slot;
	mro_cc_attr_list[mro_cc_n_attrs++] = &a->attr.attr;
}

/*
 * Register the built-in algorithms and fill the attribute table with
 * their knobs, once, before the first device registers.  An algorithm
 * another module registers later has no files here: its module's
 * parameters are its values.
 */
int mro_cc_module_init(void)
{
	const struct mro_cc_ops *ops;
	unsigned int i, j;
	int err;

	for (i = 0; i < ARRAY_SIZE(mro_cc_builtin); i++) {
		err = mro_cc_register(mro_cc_builtin[i]);
		if (err) {
			pr_err("%s: cc algorithm %s: %d\n", MRO_DRV_NAME,
			       mro_cc_builtin[i]->name, err);
			while (i--)
				mro_cc_unregister(mro_cc_builtin[i]);
			return err;
		}
	}
	for (i = 0; i < ARRAY_SIZE(mro_cc_knobs); i++)
		mro_cc_attr_add(&mro_cc_knobs[i], -1);
	for (i = 0; i < MRO_CC_SLOTS; i++) {
		ops = mro_cc_slot(i);
		for (j = 0; ops && j < ops->n_knobs; j++)
			mro_cc_attr_add(&ops->knobs[j], i);
	}
	mro_cc_attr_list[mro_cc_n_attrs++] = &ib_port_attr_algo.attr;
	mro_cc_attr_list[mro_cc_n_attrs] = NULL;
	return 0;
}
