// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce device attributes, /sys/class/infiniband/DEV/metaroce/:
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

#include "mro.h"
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

static struct mro_dev *mro_attr_dev(struct device *device)
{
	return rdma_device_to_drv_device(device, struct mro_dev, ib_dev);
}

static ssize_t paths_show(struct device *device,
			  struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", mro_dev_npaths(mro_attr_dev(device)));
}

static ssize_t paths_store(struct device *device,
			   struct device_attribute *attr, const char *buf,
			   size_t count)
{
	u32 n;
	int err;

	err = kstrtou32(buf, 0, &n);
	if (err)
		return err;
	if (n > MRO_MAX_PATHS)
		return -EINVAL;
	WRITE_ONCE(mro_attr_dev(device)->paths, n);
	return count;
}

static DEVICE_ATTR_RW(paths);

static ssize_t sched_show(struct device *device,
			  struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  mro_dev_sched(mro_attr_dev(device))->name);
}

static ssize_t sched_store(struct device *device,
			   struct device_attribute *attr, const char *buf,
			   size_t count)
{
	const struct mro_sched_ops *ops = NULL;

	if (!sysfs_streq(buf, "default")) {
		ops = mro_sched_find(buf);
		if (!ops)
			return -EINVAL;
	}
	WRITE_ONCE(mro_attr_dev(device)->sched, ops);
	return count;
}

static DEVICE_ATTR_RW(sched);

static struct attribute *mro_attrs[] = {
	&dev_attr_paths.attr,
	&dev_attr_sched.attr,
	NULL,
};

const struct attribute_group mro_attr_group = {
	.name = "metaroce",
	.attrs = mro_attrs,
};
