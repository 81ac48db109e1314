// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce device attributes, /sys/class/infiniband/DEV/metaroce/:
 *   paths   paths (UDP source ports) of the RC/UC QPs created from now on,
 *           1-64; writing 0 returns to the module parameter `paths`.
 *           Reading shows what a new QP gets.
 *   cc_*    congestion control of this device (mro_cc_param.c,
 *           Documentation/metaroce/congestion.rst)
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/sysfs.h>

#include "mro.h"
#include "mro_path.h"
#include "mro_cc_qp.h"

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

/* paths, then mro_cc_attr_list (without its NULL), then NULL */
static struct attribute *mro_attrs[1 + MRO_CC_NR_ATTRS + 1];

void mro_sysfs_init(void)
{
	mro_cc_attrs_init();
	mro_attrs[0] = &dev_attr_paths.attr;
	memcpy(&mro_attrs[1], mro_cc_attr_list,
	       MRO_CC_NR_ATTRS * sizeof(mro_attrs[0]));
	mro_attrs[1 + MRO_CC_NR_ATTRS] = NULL;
}

const struct attribute_group mro_attr_group = {
	.name = "metaroce",
	.attrs = mro_attrs,
};
