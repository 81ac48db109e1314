// SPDX-License-Identifier: GPL-2.0-only
/* IB_WR_FLUSH / IB_WR_ATOMIC_WRITE work requests */
#include <rdma/ib_verbs.h>

int probe_flush = IB_WR_FLUSH + IB_WR_ATOMIC_WRITE;
