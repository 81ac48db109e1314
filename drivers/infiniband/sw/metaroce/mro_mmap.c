// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce queue mmap: each user-visible ring gets an entry in the user
 * context's mmap table (the core rdma_user_mmap_entry API).  librxe gets
 * {offset, size} in the create/resize response and mmap()s the verbs fd at
 * that offset; ops.mmap finds the entry and maps the vmalloc'd ring.
 *
 * Once published, the ring belongs to its entry: mro_queue_free() removes
 * the entry (no new mappings) and the core calls ops.mmap_free, which
 * frees the ring, when the last reference is gone -- the reference an
 * mro_mmap() in progress holds included.  Pages already mapped stay
 * pinned by the process's mapping (remap_vmalloc_range() takes a page
 * reference for each) until it is unmapped.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "mro.h"

struct mro_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;			/* vmalloc_user() */
};

static struct mro_mmap_entry *to_mro_mmap_entry(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct mro_mmap_entry, rdma);
}

int mro_queue_publish(struct mro_queue *q, struct ib_udata *udata,
		      struct mminfo *mi)
{
	struct mro_ucontext *uctx;
	struct mro_mmap_entry *entry;
	int err;

	if (WARN_ON_ONCE(!udata || q->mmap_entry))
		return -EINVAL;
	/* librxe's mminfo.size is a u32 */
	if (q->buf_size > U32_MAX)
		return -EINVAL;

	uctx = rdma_udata_to_drv_context(udata, struct mro_ucontext, ibuc);
	if (!uctx)
		return -EINVAL;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->buf = q->buf;

	err = rdma_user_mmap_entry_insert(&uctx->ibuc, &entry->rdma,
					  q->buf_size);
	if (err) {
		kfree(entry);
		return err;
	}
	q->mmap_entry = &entry->rdma;

	memset(mi, 0, sizeof(*mi));
	mi->offset = rdma_user_mmap_get_offset(&entry->rdma);
	mi->size = q->buf_size;		/* page aligned: what librxe maps */
	return 0;
}

int mro_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	int err;

	/* checks VM_SHARED, the offset and that the size is the entry's */
	rdma = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma)
		return -EINVAL;

	err = remap_vmalloc_range(vma, to_mro_mmap_entry(rdma)->buf, 0);
	rdma_user_mmap_entry_put(rdma);
	return err;
}

void mro_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	struct mro_mmap_entry *entry = to_mro_mmap_entry(rdma);

	vfree(entry->buf);
	kfree(entry);
}
