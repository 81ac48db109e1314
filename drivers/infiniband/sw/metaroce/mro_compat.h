/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Differences between the kernels metaroce builds for (6.1 and 6.12),
 * keyed on Kbuild feature probes (probes/NAME.c gives MRO_HAVE_NAME), never on the
 * kernel version.
 */
#ifndef MRO_COMPAT_H
#define MRO_COMPAT_H

#include <linux/mm.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/* ops.create_cq's last argument: the attribute bundle (6.11+) or udata */
#ifdef MRO_HAVE_CREATE_CQ_ATTRS
#define MRO_CQ_UDATA struct uverbs_attr_bundle
static inline struct ib_udata *
mro_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define MRO_CQ_UDATA struct ib_udata
static inline struct ib_udata *mro_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

#ifndef MRO_HAVE_MARK_NAME_ASSIGNED
static inline void ib_mark_name_assigned_by_user(struct ib_device *dev)
{
}
#endif

static inline void mro_vm_flags_set(struct vm_area_struct *vma,
				    unsigned long flags)
{
#ifdef MRO_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

#endif /* MRO_COMPAT_H */
