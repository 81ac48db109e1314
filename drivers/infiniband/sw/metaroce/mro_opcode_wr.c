// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce send work requests: what each IB_WR_* opcode becomes
 * (mro_opcode.h).  FLUSH and ATOMIC_WRITE exist from 6.2 on
 * (MRO_HAVE_IB_WR_FLUSH); they carry user addresses only, as librxe
 * lays them out.
 */
#include <linux/export.h>
#include <rdma/ib_verbs.h>
#include <kunit/visibility.h>

#include "mro_opcode.h"

#define MRO_WR_MAX	IB_WR_REG_MR

static const struct mro_wrinfo mro_wrinfo[MRO_WR_MAX + 1] = {
	[IB_WR_SEND] = {
		MRO_WRF_VALID, METAROCE_OP_SEND, METAROCE_OP_UD_SEND,
		IB_WC_SEND,
	},
	[IB_WR_SEND_WITH_IMM] = {
		MRO_WRF_VALID, METAROCE_OP_SEND_IMM, METAROCE_OP_UD_SEND_IMM,
		IB_WC_SEND,
	},
	[IB_WR_SEND_WITH_INV] = {
		MRO_WRF_VALID, METAROCE_OP_SEND_INV, 0, IB_WC_SEND,
	},
	[IB_WR_RDMA_WRITE] = {
		MRO_WRF_VALID, METAROCE_OP_WRITE, 0, IB_WC_RDMA_WRITE,
	},
	[IB_WR_RDMA_WRITE_WITH_IMM] = {
		MRO_WRF_VALID, METAROCE_OP_WRITE_IMM, 0, IB_WC_RDMA_WRITE,
	},
	[IB_WR_RDMA_READ] = {
		MRO_WRF_VALID, METAROCE_OP_READ_REQ, 0, IB_WC_RDMA_READ,
	},
	[IB_WR_ATOMIC_CMP_AND_SWP] = {
		MRO_WRF_VALID, METAROCE_OP_CMP_SWAP, 0, IB_WC_COMP_SWAP,
	},
	[IB_WR_ATOMIC_FETCH_AND_ADD] = {
		MRO_WRF_VALID, METAROCE_OP_FETCH_ADD, 0, IB_WC_FETCH_ADD,
	},
	[IB_WR_LOCAL_INV] = {
		MRO_WRF_VALID | MRO_WRF_LOCAL, 0, 0, IB_WC_LOCAL_INV,
	},
	[IB_WR_BIND_MW] = {
		MRO_WRF_VALID | MRO_WRF_LOCAL, 0, 0, IB_WC_BIND_MW,
	},
	/* carries a kernel pointer */
	[IB_WR_REG_MR] = {
		MRO_WRF_VALID | MRO_WRF_LOCAL | MRO_WRF_KERNEL, 0, 0,
		IB_WC_REG_MR,
	},
#ifdef MRO_HAVE_IB_WR_FLUSH
	[IB_WR_FLUSH] = {
		MRO_WRF_VALID | MRO_WRF_USER, METAROCE_OP_FLUSH, 0,
		IB_WC_FLUSH,
	},
	[IB_WR_ATOMIC_WRITE] = {
		MRO_WRF_VALID | MRO_WRF_USER, METAROCE_OP_ATOMIC_WRITE, 0,
		IB_WC_ATOMIC_WRITE,
	},
#endif
};

const struct mro_wrinfo *mro_wr(u32 wr_opcode)
{
	static const struct mro_wrinfo unknown;

	if (wr_opcode > MRO_WR_MAX)
		return &unknown;
	return &mro_wrinfo[wr_opcode];
}
EXPORT_SYMBOL_IF_KUNIT(mro_wr);
