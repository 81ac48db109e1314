/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce limits and defaults: every tunable in one place, with its unit.
 * Module parameters (mro_main.c) override the ones marked "param".
 */
#ifndef MRO_PARAM_H
#define MRO_PARAM_H

#include <linux/bits.h>
#include <rdma/metaroce_wire.h>

#define MRO_VENDOR_ID		0xFFFFFF	/* no IEEE OUI */
#define MRO_VENDOR_PART_ID	0x4d52		/* "MR" */
#define MRO_HW_VERSION		1
#define MRO_FW_MAJOR		0
#define MRO_FW_MINOR		1
#define MRO_FW_SUB		0
#define MRO_UVERBS_ABI_VERSION	2		/* the rxe user ABI */

#define MRO_MAX_QP		0x10000
#define MRO_MAX_QP_WR		0x4000
#define MRO_MAX_SGE		32
#define MRO_MAX_SGE_RD		32
#define MRO_MAX_INLINE_DATA	400
#define MRO_MAX_CQ		0x4000
#define MRO_MAX_CQE		0x8000
#define MRO_MAX_MR		0x40000
#define MRO_MAX_MW		0x40000
#define MRO_MAX_PD		0x8000
#define MRO_MAX_AH		0x8000
#define MRO_MAX_SRQ		0x4000
#define MRO_MAX_SRQ_WR		0x4000
#define MRO_MAX_SRQ_SGE		27
#define MRO_MAX_RD_ATOM		128		/* responder resources */
#define MRO_TX_RETRY_NS		1000000ULL	/* after a failed packet allocation */
#define MRO_MAX_MR_SIZE		BIT_ULL(40)
#define MRO_PAGE_SIZE_CAP	0xfffff000
#define MRO_MAX_PKEYS		1
#define MRO_MAX_MCAST_GRP	8192
#define MRO_MAX_MCAST_QP_ATTACH	56
#define MRO_GID_TABLE_LEN	1024
#define MRO_MAX_MSG_SIZE	0x80000000U

/* default UDP destination port (param udp_port) */
#define MRO_DEFAULT_UDP_PORT	METAROCE_DEFAULT_UDP_PORT
/* the RoCE v2 port that rdma_rxe binds in init_net */
#define MRO_RXE_UDP_PORT	4791

/* bytes of headers below our payload in the worst case (IPv6) */
#define MRO_WIRE_OVERHEAD	(40 + 8 + METAROCE_BTH_LEN + METAROCE_MSG_LEN + \
				 METAROCE_ACK_PIGGY_LEN + METAROCE_CRC_LEN)

#endif /* MRO_PARAM_H */
