// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA FLUSH and ATOMIC_WRITE verbs (work requests, completions, access
 * flags, device caps, the rxe user ABI's flush WQE and atomic-write data)
 */
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

int probe_flush = IB_WR_FLUSH + IB_WR_ATOMIC_WRITE + IB_WC_FLUSH +
		  IB_WC_ATOMIC_WRITE + IB_FLUSH_GLOBAL + IB_FLUSH_PERSISTENT +
		  IB_FLUSH_RANGE + IB_FLUSH_MR;
u64 probe_flush_caps = IB_DEVICE_FLUSH_GLOBAL | IB_DEVICE_ATOMIC_WRITE |
		       IB_ACCESS_FLUSH_GLOBAL | IB_ACCESS_FLUSH_PERSISTENT;
size_t probe_flush_wqe = sizeof(((struct rxe_send_wqe *)0)->wr.wr.flush) +
			 sizeof(((struct rxe_send_wqe *)0)->dma.atomic_wr[0]);
