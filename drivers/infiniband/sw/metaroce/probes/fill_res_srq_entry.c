// SPDX-License-Identifier: GPL-2.0-only
/* ops.fill_res_srq_entry for `rdma resource show srq -dd` */
#include <rdma/ib_verbs.h>

static int probe_fill(struct sk_buff *msg, struct ib_srq *srq)
{
	return 0;
}

const struct ib_device_ops probe_ops = { .fill_res_srq_entry = probe_fill };
