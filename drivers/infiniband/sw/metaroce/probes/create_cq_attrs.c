// SPDX-License-Identifier: GPL-2.0-only
/* 6.11+: ops.create_cq takes a uverbs_attr_bundle instead of ib_udata */
#include <rdma/ib_verbs.h>

static int probe_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *a,
			   struct uverbs_attr_bundle *attrs)
{
	return 0;
}

const struct ib_device_ops probe_ops = { .create_cq = probe_create_cq };
