// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce opcode table (mro_opcode.h).  Each row is the whole of what
 * the driver knows about one wire opcode; protocol.rst, Opcodes, is the
 * normative text.
 */
#include <linux/export.h>
#include <kunit/visibility.h>

#include "mro_opcode.h"

/*
 * The flags each kind may carry: a request its sender's ACK, a datagram
 * a seal of its own (mro_dgram.c), HELLO no seal
 */
#define MRO_F_REQ	(METAROCE_F_ALL | METAROCE_F_ACK_PIGGY | METAROCE_F_SEALED)
#define MRO_F_RESP	(METAROCE_F_ALL | METAROCE_F_SEALED)
#define MRO_F_PLAIN	METAROCE_F_ALL
#define MRO_F_DGRAM	(METAROCE_F_ALL | METAROCE_F_SEALED)

#define MRO_REQ_SEND	(MRO_OPM_REQUEST | MRO_OPM_PAYLOAD | MRO_OPM_RWQE)
#define MRO_REQ_RES	(MRO_OPM_REQUEST | MRO_OPM_RESPRES | MRO_OPM_RC_ONLY)

const struct mro_opinfo mro_opinfo[MRO_NR_OPCODES] = {
	[METAROCE_OP_SEND] = {
		.name = "SEND",
		.mask = MRO_REQ_SEND,
		.flags = MRO_F_REQ,
		.ext = MRO_EXT_MSG, .ext_len = METAROCE_MSG_LEN,
		.rx = MRO_OPRX_MSG,
	},
	[METAROCE_OP_SEND_IMM] = {
		.name = "SEND_IMM",
		.mask = MRO_REQ_SEND | MRO_OPM_IMM,
		.flags = MRO_F_REQ,
		.ext = MRO_EXT_MSG, .ext_len = METAROCE_MSG_LEN,
		.rx = MRO_OPRX_MSG,
	},
	[METAROCE_OP_SEND_INV] = {
		.name = "SEND_INV",
		.mask = MRO_REQ_SEND | MRO_OPM_INV | MRO_OPM_RC_ONLY,
		.flags = MRO_F_REQ,
		.ext = MRO_EXT_MSG, .ext_len = METAROCE_MSG_LEN,
		.rx = MRO_OPRX_MSG,
	},
	[METAROCE_OP_WRITE] = {
		.name = "WRITE",
		.mask = MRO_OPM_REQUEST | MRO_OPM_PAYLOAD | MRO_OPM_RDMA,
		.flags = MRO_F_REQ,
		.ext = MRO_EXT_MSG, .ext_len = METAROCE_MSG_LEN,
		.rx = MRO_OPRX_WRITE,
	},
	[METAROCE_OP_WRITE_IMM] = {
		.name = "WRITE_IMM",
		.mask = MRO_REQ_SEND | MRO_OPM_RDMA | MRO_OPM_IMM,
		.flags = MRO_F_REQ,
		.ext = MRO_EXT_MSG, .ext_len = METAROCE_MSG_LEN,
		.rx = MRO_OPRX_MSG,
	},
	[METAROCE_OP_READ_REQ] = {
		.name = "READ_REQ",
		.mask = MRO_REQ_RES | MRO_OPM_RDMA,
		.flags = MRO_F_REQ,
		.ext = MRO_EXT_MSG, .ext_len = METAROCE_MSG_LEN,
		.rx = MRO_OPRX_READ,
		.resp = METAROCE_OP_READ_RESP,
	},
	[METAROCE_OP_CMP_SWAP] = {
		.name = "CMP_SWAP",
		.mask = MRO_REQ_RES | MRO_OPM_ONLY,
		.flags = MRO_F_REQ,
		.ext = MRO_EXT_ATOMIC, .ext_len = METAROCE_ATOMIC_LEN,
		.rx = MRO_OPRX_ATOMIC,
		.resp = METAROCE_OP_ATOMIC_RESP,
	},
	[METAROCE_OP_FETCH_ADD] = {
		.name = "FETCH_ADD",
		.mask = MRO_REQ_RES | MRO_OPM_ONLY,
		.flags = MRO_F_REQ,
		.ext = MRO_EXT_ATOMIC, .ext_len = METAROCE_ATOMIC_LEN,
		.rx = MRO_OPRX_ATOMIC,
		.resp = METAROCE_OP_ATOMIC_RESP,
	},
	[METAROCE_OP_FLUSH] = {
		.name = "FLUSH",
		.mask = MRO_REQ_RES | MRO_OPM_ONLY,
		.flags = MRO_F_REQ,
		.ext = MRO_EXT_FLUSH, .ext_len = METAROCE_FLUSH_LEN,
		.rx = MRO_OPRX_FLUSH,
	},
	[METAROCE_OP_ATOMIC_WRITE] = {
		.name = "ATOMIC_WRITE",
		.mask = MRO_REQ_RES | MRO_OPM_ONLY,
		.flags = MRO_F_REQ,
		.ext = MRO_EXT_ATOMIC, .ext_len = METAROCE_ATOMIC_LEN,
		.rx = MRO_OPRX_ATOMIC_WRITE,
	},
	[METAROCE_OP_READ_RESP] = {
		.name = "READ_RESP",
		.mask = MRO_OPM_RESPONSE | MRO_OPM_PAYLOAD,
		.flags = MRO_F_RESP,
		.ext = MRO_EXT_READ_RESP, .ext_len = METAROCE_READ_RESP_LEN,
		.rx = MRO_OPRX_READ_RESP,
	},
	[METAROCE_OP_ATOMIC_RESP] = {
		.name = "ATOMIC_RESP",
		.mask = MRO_OPM_RESPONSE,
		.flags = MRO_F_RESP,
		.ext = MRO_EXT_ATOMIC_RESP, .ext_len = METAROCE_ATOMIC_RESP_LEN,
		.rx = MRO_OPRX_ATOMIC_RESP,
	},
	[METAROCE_OP_ACK] = {
		.name = "ACK",
		.mask = MRO_OPM_RESPONSE,
		.flags = MRO_F_RESP,
		.ext = MRO_EXT_ACK, .ext_len = METAROCE_ACK_LEN,
		.rx = MRO_OPRX_ACK,
	},
	/* UD is sealed with the sender's own key (mro_dgram.c) */
	[METAROCE_OP_UD_SEND] = {
		.name = "UD_SEND",
		.mask = MRO_OPM_DATAGRAM | MRO_OPM_PAYLOAD | MRO_OPM_RWQE |
			MRO_OPM_ONLY,
		.flags = MRO_F_DGRAM,
		.ext = MRO_EXT_DETH, .ext_len = METAROCE_DETH_LEN,
		.rx = MRO_OPRX_UD,
	},
	[METAROCE_OP_UD_SEND_IMM] = {
		.name = "UD_SEND_IMM",
		.mask = MRO_OPM_DATAGRAM | MRO_OPM_PAYLOAD | MRO_OPM_RWQE |
			MRO_OPM_ONLY | MRO_OPM_IMM,
		.flags = MRO_F_DGRAM,
		.ext = MRO_EXT_DETH, .ext_len = METAROCE_DETH_LEN,
		.rx = MRO_OPRX_UD,
	},
	[METAROCE_OP_PROBE] = {
		.name = "PROBE",
		.mask = MRO_OPM_CONTROL,
		.flags = MRO_F_RESP | METAROCE_F_NEW_PORT,
		.ext = MRO_EXT_CTRL, .ext_len = METAROCE_CTRL_LEN,
		.rx = MRO_OPRX_PROBE,
	},
	[METAROCE_OP_CREDIT] = {
		.name = "CREDIT",
		.mask = MRO_OPM_CONTROL,
		.flags = MRO_F_RESP,
		.ext = MRO_EXT_CTRL, .ext_len = METAROCE_CTRL_LEN,
		.rx = MRO_OPRX_CREDIT,
	},
	/* HELLO is never sealed */
	[METAROCE_OP_HELLO] = {
		.name = "HELLO",
		.mask = MRO_OPM_CONTROL,
		.flags = MRO_F_PLAIN,
		.ext = MRO_EXT_HELLO, .ext_len = METAROCE_HELLO_LEN,
		.rx = MRO_OPRX_HELLO,
	},
};
EXPORT_SYMBOL_IF_KUNIT(mro_opinfo);
