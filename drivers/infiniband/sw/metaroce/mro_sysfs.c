// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce device attributes: /sys/class/infiniband/DEV/board_id, and in
 * /sys/class/infiniband/DEV/ports/1/metaroce/ (the port's directory, because
 * the device's single driver group is unnamed, for board_id):
 *   paths   paths (UDP source ports) of the RC/UC QPs created from now on,
 *           1-64; writing 0 returns to the module parameter `paths`.
 *           Reading shows what a new QP gets.
 *   sched   path scheduler of the RC/UC QPs created from now on: "rr"
 *           (round robin) or "weighted" (by path health, mro_sched.c);
 *           writing "default" returns to the module parameter `sched`.
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>
#include <rdma/ib_sysfs.h>

#include "mro.h"
#include "mro_cc_qp.h"
#include "mro_path.h"

static const struct mro_sched_ops *mro_sched_param = &mro_sched_rr;

static int mro_sched_param_set(const char *val, const struct kernel_param *kp)
{
	const struct mro_sched_ops *ops = mro_sched_find(val);

	if (!ops)
		return -EINVAL;
	WRITE_ONCE(mro_sched_param, ops);
	return 0;
}

static int mro_sched_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", READ_ONCE(mro_sched_param)->name);
}

static const struct kernel_param_ops mro_sched_param_ops = {
	.set = mro_sched_param_set,
	.get = mro_sched_param_get,
};

module_param_cb(sched, &mro_sched_param_ops, NULL, 0644);
MODULE_PARM_DESC(sched, "path scheduler of RC/UC QPs: rr (default) or weighted");

const struct mro_sched_ops *mro_dev_sched(struct mro_dev *dev)
{
	return READ_ONCE(dev->sched) ?: READ_ONCE(mro_sched_param);
}

u16 mro_dev_npaths(struct mro_dev *dev)
{
	u32 n = READ_ONCE(dev->paths);

	return clamp_t(u32, n ? n : READ_ONCE(mro_npaths), 1, MRO_MAX_PATHS);
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
	return sysfs_emit(buf, "%s\n", mro_dev_sched(to_mro_dev(ibdev))->name);
}

static ssize_t sched_store(struct ib_device *ibdev, u32 port,
			   struct ib_port_attribute *attr, const char *buf,
			   size_t count)
{
	const struct mro_sched_ops *ops = NULL;

	if (!sysfs_streq(buf, "default")) {
		ops = mro_sched_find(buf);
		if (!ops)
			return -EINVAL;
	}
	WRITE_ONCE(to_mro_dev(ibdev)->sched, ops);
	return count;
}

static IB_PORT_ATTR_RW(sched);

static struct attribute *mro_path_attrs[] = {
	&ib_port_attr_paths.attr,
	&ib_port_attr_sched.attr,
	NULL,
};

static const struct attribute_group mro_path_attr_group = {
	.name = "metaroce",
	.attrs = mro_path_attrs,
};

const struct attribute_group *mro_port_groups[] = {
	&mro_cc_attr_group,
	&mro_path_attr_group,
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
