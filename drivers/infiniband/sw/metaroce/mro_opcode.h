/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce opcodes: one table, indexed by bth.opcode, of what each wire
 * opcode is (its extension header, the flags it may carry, whether it
 * carries payload, its direction) and what it does (whether it consumes a
 * receive WQE or takes a responder resource, what answers it, which
 * handler takes it).  The requester, the responder and the receive
 * dispatch decide from the table instead of naming opcodes; a new opcode
 * is a row here and its handler.  An opcode with no row (mask 0) is
 * unknown and refused by the decoder (MRO_WIRE_OPCODE).  Pure C, driven
 * by KUnit.
 */
#ifndef MRO_OPCODE_H
#define MRO_OPCODE_H

#include <linux/bits.h>
#include <linux/types.h>
#include <rdma/metaroce_wire.h>

/* the extension header that follows the bth */
enum mro_op_ext {
	MRO_EXT_NONE = 0,	/* unknown opcode */
	MRO_EXT_MSG,		/* struct metaroce_msg */
	MRO_EXT_ATOMIC,		/* struct metaroce_atomic */
	MRO_EXT_FLUSH,		/* struct metaroce_flush */
	MRO_EXT_READ_RESP,	/* struct metaroce_read_resp */
	MRO_EXT_ATOMIC_RESP,	/* struct metaroce_atomic_resp */
	MRO_EXT_ACK,		/* struct metaroce_ack */
	MRO_EXT_DETH,		/* struct metaroce_deth */
	MRO_EXT_CTRL,		/* struct metaroce_ctrl */
	MRO_EXT_HELLO,		/* struct metaroce_hello */
};

/* the handler of an opcode: what the requester builds, what takes it */
enum mro_op_rx {
	MRO_OPRX_NONE = 0,	/* unknown opcode */
	MRO_OPRX_MSG,		/* placed into a receive WQE (mro_resp_msg()) */
	MRO_OPRX_WRITE,		/* placed at its address (mro_resp_write()) */
	MRO_OPRX_READ,		/* READ_REQ: answered by READ responses */
	MRO_OPRX_ATOMIC,	/* CMP_SWAP, FETCH_ADD: answered once */
	MRO_OPRX_ATOMIC_WRITE,	/* an 8-byte store (mro_flush.c) */
	MRO_OPRX_FLUSH,		/* mro_flush.c */
	MRO_OPRX_READ_RESP,	/* requester: mro_req_read_resp() */
	MRO_OPRX_ATOMIC_RESP,	/* requester: mro_req_atomic_resp() */
	MRO_OPRX_ACK,		/* requester: mro_req_ack() */
	MRO_OPRX_CREDIT,	/* requester: the credit grant */
	MRO_OPRX_UD,		/* a datagram: mro_resp_ud_rcv() */
	MRO_OPRX_PROBE,		/* responder: mro_resp_probe() */
	MRO_OPRX_HELLO,		/* negotiation: mro_hello_qp_rcv() */
};

/* struct mro_opinfo.mask */
#define MRO_OPM_REQUEST		BIT(0)	/* RC/UC, requester to responder */
#define MRO_OPM_RESPONSE	BIT(1)	/* RC, responder to requester */
#define MRO_OPM_DATAGRAM	BIT(2)	/* UD */
#define MRO_OPM_CONTROL		BIT(3)	/* of the connection, not a verb */
#define MRO_OPM_PAYLOAD		BIT(4)	/* may carry payload */
#define MRO_OPM_RWQE		BIT(5)	/* consumes a receive WQE (a msn) */
#define MRO_OPM_RESPRES		BIT(6)	/* takes a responder resource and
					 * runs in PSN order
					 */
#define MRO_OPM_RC_ONLY		BIT(7)	/* a UC QP refuses it */
#define MRO_OPM_ONLY		BIT(8)	/* one packet: FIRST and LAST */
#define MRO_OPM_RDMA		BIT(9)	/* names remote memory (va, rkey) */
#define MRO_OPM_IMM		BIT(10)	/* carries immediate data */
#define MRO_OPM_INV		BIT(11)	/* carries an rkey to invalidate */

#define MRO_OPM_KIND	(MRO_OPM_REQUEST | MRO_OPM_RESPONSE | \
			 MRO_OPM_DATAGRAM | MRO_OPM_CONTROL)

struct mro_opinfo {
	const char *name;
	u16 mask;		/* MRO_OPM_*; 0: unknown opcode */
	u16 flags;		/* the METAROCE_F_* it may carry */
	u8 ext;			/* enum mro_op_ext */
	u8 ext_len;		/* bytes of that extension header */
	u8 rx;			/* enum mro_op_rx */
	u8 resp;		/* the opcode that answers it, 0: an ACK */
};

/* one past the highest opcode */
#define MRO_NR_OPCODES		(METAROCE_OP_HELLO + 1)

extern const struct mro_opinfo mro_opinfo[MRO_NR_OPCODES];

/* the row of @opcode; an unknown opcode's has mask 0 */
static inline const struct mro_opinfo *mro_op(u8 opcode)
{
	return &mro_opinfo[opcode < MRO_NR_OPCODES ? opcode : 0];
}

static inline bool mro_op_is(u8 opcode, u16 mask)
{
	return mro_op(opcode)->mask & mask;
}

/*
 * What each send work request (IB_WR_*) becomes: its wire opcode, on a
 * connection and on UD, and its completion.  Which QP types may post it
 * follows from the wire opcode's row: RC all, UC none that is RC-only,
 * UD those with a datagram opcode (mro_opcode_wr.c).
 */
#define MRO_WRF_VALID		BIT(0)	/* a work request metaroce takes */
#define MRO_WRF_LOCAL		BIT(1)	/* local: runs at the requester */
#define MRO_WRF_KERNEL		BIT(2)	/* kernel QPs only */
#define MRO_WRF_USER		BIT(3)	/* user QPs only */

struct mro_wrinfo {
	u8 flags;		/* MRO_WRF_* */
	u8 op;			/* RC/UC opcode, 0 for a local operation */
	u8 ud_op;		/* UD opcode, 0 if UD cannot post it */
	u8 wc;			/* enum ib_wc_opcode of its completion */
};

/* the row of send work request opcode @wr_opcode; all 0 if unknown */
const struct mro_wrinfo *mro_wr(u32 wr_opcode);

/* the response opcode that answers work request @wr_opcode, 0: an ACK */
static inline u8 mro_wr_resp(u32 wr_opcode)
{
	return mro_op(mro_wr(wr_opcode)->op)->resp;
}

#endif /* MRO_OPCODE_H */
