// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce device attributes: /sys/class/infiniband/DEV/board_id, and in
 * /sys/class/infiniband/DEV/ports/1/metaroce/ (the port's directory, because
 * the device's single driver group is unnamed, for board_id):
 *   paths   paths (UDP source ports) of the RC/UC QPs created from now on,
 *           1-64; writing 0 returns to the module parameter `paths`.
 *           Reading shows what a new QP gets.
 *   sched   path scheduler of the RC/UC QPs created from now on: "rr"
 *           (round robin, mro_sched_rr.c), "weighted" (by path health,
 *           mro_sched_weighted.c) or one another module registered;
 *           writing "default" returns to the module parameter `sched`.
 *   window  PSNs in flight per RC/UC QP created from now on, a power of
 *           two 64-16384; writing 0 returns to the module parameter
 *           `window`.  Both ends of a connection must have the same
 *           (HELLO checks it).
 *   key     (write-only, CAP_NET_ADMIN in the device's network namespace)
 *           "ID DESC" installs the logon key DESC of the writer's keyrings
 *           (16 or 32 bytes) as device key ID (1-255), the new current key;
 *           "-ID" removes key ID (mro_devkey.h has the rules)
 *   key_ids the installed device key ids, current first ("3 2"), or an
 *           empty line
 *   protection  "none", "auth" or "encrypt": the packet protection of the
 *           connections established from now on (CAP_NET_ADMIN to write;
 *           mro_prot.c)
 */
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <rdma/ib_sysfs.h>

#include "mro.h"
#include "mro_cc_qp.h"
#include "mro_devkey.h"
#include "mro_path.h"
#include "mro_prot.h"
#include "mro_psn.h"
#include "mro_sched.h"

/*
 * The scheduler of new QPs: the device's, else the module parameter's.
 * Each selection holds a reference on its scheduler (mro_sched_get());
 * readers use RCU and take their own.
 */
static const struct mro_sched_ops __rcu *mro_sched_param =
	RCU_INITIALIZER(&mro_sched_rr);
static DEFINE_SPINLOCK(mro_sched_sel_lock);	/* writers of selections */

/* make @ops, whose reference it takes over, the selection in @slot */
static void mro_sched_select(const struct mro_sched_ops __rcu **slot,
			     const struct mro_sched_ops *ops)
{
	const struct mro_sched_ops *old;

	spin_lock(&mro_sched_sel_lock);
	old = rcu_replace_pointer(*slot, ops,
				  lockdep_is_held(&mro_sched_sel_lock));
	spin_unlock(&mro_sched_sel_lock);
	mro_sched_put(old);
}

static int mro_sched_param_set(const char *val, const struct kernel_param *kp)
{
	const struct mro_sched_ops *ops = mro_sched_get(val);

	if (!ops)
		return -EINVAL;
	mro_sched_select(&mro_sched_param, ops);
	return 0;
}

static int mro_sched_param_get(char *buf, const struct kernel_param *kp)
{
	int n;

	rcu_read_lock();
	n = sysfs_emit(buf, "%s\n", rcu_dereference(mro_sched_param)->name);
	rcu_read_unlock();
	return n;
}

static const struct kernel_param_ops mro_sched_param_ops = {
	.set = mro_sched_param_set,
	.get = mro_sched_param_get,
};

module_param_cb(sched, &mro_sched_param_ops, NULL, 0644);
MODULE_PARM_DESC(sched, "path scheduler of RC/UC QPs: rr (default) or weighted");

/* the selection a new QP of @dev gets (RCU held) */
static const struct mro_sched_ops *mro_dev_sched_rcu(struct mro_dev *dev)
{
	return rcu_dereference(dev->sched) ?: rcu_dereference(mro_sched_param);
}

const struct mro_sched_ops *mro_dev_sched_get(struct mro_dev *dev)
{
	const struct mro_sched_ops *ops;

	rcu_read_lock();
	ops = mro_dev_sched_rcu(dev);
	/* its module is leaving (the selection changed meanwhile) */
	if (!mro_sched_hold(ops))
		ops = &mro_sched_rr;
	rcu_read_unlock();
	return ops;
}

void mro_dev_sched_clear(struct mro_dev *dev)
{
	mro_sched_select(&dev->sched, NULL);
}

u16 mro_dev_npaths(struct mro_dev *dev)
{
	u32 n = READ_ONCE(dev->paths);

	return clamp_t(u32, n ? n : READ_ONCE(mro_npaths), 1, MRO_MAX_PATHS);
}

/* the window of a new RC/UC QP: a power of two, METAROCE_WINDOW_MIN..MAX */
u32 mro_dev_window(struct mro_dev *dev)
{
	u32 w = READ_ONCE(dev->window);

	w = clamp_t(u32, w ? w : READ_ONCE(mro_txwin), MRO_WINDOW_MIN,
		    MRO_WINDOW_MAX);
	return rounddown_pow_of_two(w);
}

static ssize_t paths_show(struct ib_device *ibdev, u32 port,
			  struct ib_port_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", mro_dev_npaths(to_mro_dev(ibdev)));
}

static ssize_t paths_store(struct ib_device *ibdev, u32 port,
			   struct ib_port_attribute *attr, const char *buf,
			   size_t count)
{
	u32 n;
	int err;

	err = kstrtou32(buf, 0, &n);
	if (err)
		return err;
	if (n > MRO_MAX_PATHS)
		return -EINVAL;
	WRITE_ONCE(to_mro_dev(ibdev)->paths, n);
	return count;
}

static IB_PORT_ATTR_RW(paths);

static ssize_t sched_show(struct ib_device *ibdev, u32 port,
			  struct ib_port_attribute *attr, char *buf)
{
	ssize_t n;

	rcu_read_lock();
	n = sysfs_emit(buf, "%s\n", mro_dev_sched_rcu(to_mro_dev(ibdev))->name);
	rcu_read_unlock();
	return n;
}

static ssize_t sched_store(struct ib_device *ibdev, u32 port,
			   struct ib_port_attribute *attr, const char *buf,
			   size_t count)
{
	const struct mro_sched_ops *ops = NULL;

	if (!sysfs_streq(buf, "default")) {
		ops = mro_sched_get(buf);
		if (!ops)
			return -EINVAL;
	}
	mro_sched_select(&to_mro_dev(ibdev)->sched, ops);
	return count;
}

static IB_PORT_ATTR_RW(sched);

static ssize_t window_show(struct ib_device *ibdev, u32 port,
			   struct ib_port_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", mro_dev_window(to_mro_dev(ibdev)));
}

static ssize_t window_store(struct ib_device *ibdev, u32 port,
			    struct ib_port_attribute *attr, const char *buf,
			    size_t count)
{
	u32 w;
	int err;

	err = kstrtou32(buf, 0, &w);
	if (err)
		return err;
	if (w && (w < MRO_WINDOW_MIN || w > MRO_WINDOW_MAX ||
		  !is_power_of_2(w)))
		return -EINVAL;
	WRITE_ONCE(to_mro_dev(ibdev)->window, w);
	return count;
}

static IB_PORT_ATTR_RW(window);

/* who may change the device's keys and protection */
static bool mro_key_admin(struct mro_dev *dev)
{
	return ns_capable(mro_dev_net(dev)->user_ns, CAP_NET_ADMIN);
}

static ssize_t key_store(struct ib_device *ibdev, u32 port,
			 struct ib_port_attribute *attr, const char *buf,
			 size_t count)
{
	struct mro_dev *dev = to_mro_dev(ibdev);
	struct mro_devkey_cmd cmd;
	char *desc;
	int err;

	if (!mro_key_admin(dev))
		return -EPERM;
	err = mro_devkey_parse_cmd(buf, count, &cmd);
	if (err)
		return err;
	if (cmd.remove) {
		err = mro_devkey_remove(&dev->devkey, cmd.id);
	} else {
		desc = kmemdup_nul(cmd.desc, cmd.desc_len, GFP_KERNEL);
		if (!desc)
			return -ENOMEM;
		err = mro_devkey_install_logon(&dev->devkey, cmd.id, desc);
		kfree(desc);
	}
	return err ? err : count;
}

static IB_PORT_ATTR_WO(key);

static ssize_t key_ids_show(struct ib_device *ibdev, u32 port,
			    struct ib_port_attribute *attr, char *buf)
{
	u8 ids[MRO_DEVKEY_SLOTS];
	unsigned int i, n;
	int len = 0;

	n = mro_devkey_ids(&to_mro_dev(ibdev)->devkey, ids);
	for (i = 0; i < n; i++)
		len += sysfs_emit_at(buf, len, "%s%u", i ? " " : "", ids[i]);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static IB_PORT_ATTR_RO(key_ids);

static ssize_t protection_show(struct ib_device *ibdev, u32 port,
			       struct ib_port_attribute *attr, char *buf)
{
	enum mro_prot mode = mro_devkey_mode(&to_mro_dev(ibdev)->devkey);

	return sysfs_emit(buf, "%s\n", mro_prot_name(mode));
}

static ssize_t protection_store(struct ib_device *ibdev, u32 port,
				struct ib_port_attribute *attr,
				const char *buf, size_t count)
{
	struct mro_dev *dev = to_mro_dev(ibdev);
	enum mro_prot mode;
	int err;

	if (!mro_key_admin(dev))
		return -EPERM;
	err = mro_prot_parse(buf, &mode);
	/* the first connection must not wait for the crypto's set-up */
	if (!err && mode != MRO_PROT_NONE)
		err = mro_prot_warm_up();
	if (!err)
		err = mro_devkey_set_mode(&dev->devkey, mode);
	return err ? err : count;
}

static IB_PORT_ATTR_RW(protection);

static struct attribute *mro_port_attrs[] = {
	&ib_port_attr_paths.attr,
	&ib_port_attr_sched.attr,
	&ib_port_attr_window.attr,
	&ib_port_attr_key.attr,
	&ib_port_attr_key_ids.attr,
	&ib_port_attr_protection.attr,
	NULL,
};

static const struct attribute_group mro_port_attr_group = {
	.name = "metaroce",
	.attrs = mro_port_attrs,
};

const struct attribute_group *mro_port_groups[] = {
	&mro_cc_attr_group,
	&mro_port_attr_group,
	NULL,
};

/*
 * board_id, as hardware RDMA drivers have it: tools that describe every
 * RDMA device (the node exporter's infiniband collector) require it.
 */
static ssize_t board_id_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "metaroce\n");
}

static DEVICE_ATTR_RO(board_id);

static struct attribute *mro_dev_attrs[] = {
	&dev_attr_board_id.attr,
	NULL,
};

const struct attribute_group mro_dev_attr_group = {
	.attrs = mro_dev_attrs,
};
