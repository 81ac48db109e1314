// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce device attributes, /sys/class/infiniband/DEV/metaroce/:
 *   paths   paths (UDP source ports) of the RC/UC QPs created from now on,
 *           1-64; writing 0 returns to the module parameter `paths`.
 *           Reading shows what a new QP gets.
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/sysfs.h>

#include "mro.h"
#include "mro_path.h"

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

static struct attribute *mro_attrs[] = {
	&dev_attr_paths.attr,
	NULL,
};

const struct attribute_group mro_attr_group = {
	.name = "metaroce",
	.attrs = mro_attrs,
};
