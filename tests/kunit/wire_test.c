// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the metaroce wire format: include/uapi/rdma/metaroce_wire.h
 * and the driver's encode/decode layer (mro_wire.c / mro_wire.h).
 *
 * The golden packets below are written out byte by byte from the header's
 * documentation, independently of the encoder: every field has distinct byte
 * values so a swapped, shifted or byte-swapped field cannot go unnoticed.
 * Their CRCs were computed with a separate bitwise CRC32C (Castagnoli,
 * reflected, init ~0, final xor ~0) and are stored big-endian.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/swab.h>

#include <rdma/metaroce_wire.h>
#include "mro_wire.h"

#define BUF_LEN 512

/* byte-order helpers of our own, independent of the code under test */
static u16 rd_be16(const u8 *p)
{
	return (u16)p[0] << 8 | p[1];
}

static u32 rd_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static void wr_be16(u16 v, u8 *p)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void wr_be32(u32 v, u8 *p)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void wr_le16(u16 v, u8 *p)
{
	wr_be16(swab16(v), p);
}

static void wr_le32(u32 v, u8 *p)
{
	wr_be32(swab32(v), p);
}

/* every opcode the header defines, with its extension length */
static const struct {
	u8 op;
	const char *name;
	int ext_len;
	bool payload;
	bool request;
} opcodes[] = {
	{ METAROCE_OP_SEND,        "SEND",        METAROCE_MSG_LEN,         true,  true  },
	{ METAROCE_OP_SEND_IMM,    "SEND_IMM",    METAROCE_MSG_LEN,         true,  true  },
	{ METAROCE_OP_SEND_INV,    "SEND_INV",    METAROCE_MSG_LEN,         true,  true  },
	{ METAROCE_OP_WRITE,       "WRITE",       METAROCE_MSG_LEN,         true,  true  },
	{ METAROCE_OP_WRITE_IMM,   "WRITE_IMM",   METAROCE_MSG_LEN,         true,  true  },
	{ METAROCE_OP_READ_REQ,    "READ_REQ",    METAROCE_MSG_LEN,         false, true  },
	{ METAROCE_OP_CMP_SWAP,    "CMP_SWAP",    METAROCE_ATOMIC_LEN,      false, true  },
	{ METAROCE_OP_FETCH_ADD,   "FETCH_ADD",   METAROCE_ATOMIC_LEN,      false, true  },
	{ METAROCE_OP_FLUSH,       "FLUSH",       METAROCE_FLUSH_LEN,       false, true  },
	{ METAROCE_OP_ATOMIC_WRITE, "ATOMIC_WRITE", METAROCE_ATOMIC_LEN,    false, true  },
	{ METAROCE_OP_READ_RESP,   "READ_RESP",   METAROCE_READ_RESP_LEN,   true,  false },
	{ METAROCE_OP_ATOMIC_RESP, "ATOMIC_RESP", METAROCE_ATOMIC_RESP_LEN, false, false },
	{ METAROCE_OP_ACK,         "ACK",         METAROCE_ACK_LEN,         false, false },
	{ METAROCE_OP_UD_SEND,     "UD_SEND",     METAROCE_DETH_LEN,        true,  false },
	{ METAROCE_OP_UD_SEND_IMM, "UD_SEND_IMM", METAROCE_DETH_LEN,        true,  false },
	{ METAROCE_OP_PROBE,       "PROBE",       METAROCE_CTRL_LEN,        false, false },
	{ METAROCE_OP_CREDIT,      "CREDIT",      METAROCE_CTRL_LEN,        false, false },
	{ METAROCE_OP_HELLO,       "HELLO",       METAROCE_HELLO_LEN,       false, false },
};

static int known_opcode(unsigned int op)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(opcodes); i++)
		if (opcodes[i].op == op)
			return i;
	return -1;
}

static bool is_atomic_op(u8 op)
{
	return op == METAROCE_OP_CMP_SWAP || op == METAROCE_OP_FETCH_ADD ||
	       op == METAROCE_OP_ATOMIC_WRITE;
}

static bool is_msg_op(u8 op)
{
	return mro_wire_ext_len(op) == METAROCE_MSG_LEN && !is_atomic_op(op) &&
	       op != METAROCE_OP_HELLO;
}

static bool is_ctrl_op(u8 op)
{
	return op == METAROCE_OP_PROBE || op == METAROCE_OP_CREDIT;
}

static bool is_ud_op(u8 op)
{
	return op == METAROCE_OP_UD_SEND || op == METAROCE_OP_UD_SEND_IMM;
}

/* ------------------------------------------------------------------ layout */

static void wire_layout_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, METAROCE_WIRE_VERSION, 2);
	KUNIT_EXPECT_EQ(test, METAROCE_BTH_LEN, 28);
	KUNIT_EXPECT_EQ(test, METAROCE_MSG_LEN, 32);
	KUNIT_EXPECT_EQ(test, METAROCE_ATOMIC_LEN, 32);
	KUNIT_EXPECT_EQ(test, METAROCE_ATOMIC_RESP_LEN, 8);
	KUNIT_EXPECT_EQ(test, METAROCE_READ_RESP_LEN, 8);
	KUNIT_EXPECT_EQ(test, METAROCE_ACK_LEN, 48);
	KUNIT_EXPECT_EQ(test, METAROCE_DETH_LEN, 8);
	KUNIT_EXPECT_EQ(test, METAROCE_CTRL_LEN, 12);
	KUNIT_EXPECT_EQ(test, METAROCE_HELLO_LEN, 32);
	KUNIT_EXPECT_EQ(test, METAROCE_CRC_LEN, 4);
	KUNIT_EXPECT_EQ(test, METAROCE_SACK_BITS, 128);
	KUNIT_EXPECT_EQ(test, METAROCE_SACK_WORDS, 2);
	KUNIT_EXPECT_EQ(test, METAROCE_QPN_MASK, 0x00ffffff);
	KUNIT_EXPECT_EQ(test, METAROCE_F_ALL,
			METAROCE_F_FIRST | METAROCE_F_LAST | METAROCE_F_ACK_REQ |
			METAROCE_F_SOLICITED | METAROCE_F_RETX | METAROCE_F_ECT);

	KUNIT_EXPECT_EQ(test, sizeof(struct metaroce_bth), METAROCE_BTH_LEN);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_bth, ver), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_bth, opcode), 1);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_bth, flags), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_bth, dqpn), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_bth, sqpn), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_bth, psn), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_bth, path), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_bth, hdr_len), 18);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_bth, path_seq), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_bth, tsval), 24);

	KUNIT_EXPECT_EQ(test, sizeof(struct metaroce_msg), METAROCE_MSG_LEN);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_msg, msn), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_msg, offset), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_msg, length), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_msg, imm), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_msg, va), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_msg, rkey), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_msg, first_psn), 28);

	KUNIT_EXPECT_EQ(test, sizeof(struct metaroce_atomic), METAROCE_ATOMIC_LEN);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_atomic, va), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_atomic, rkey), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_atomic, msn), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_atomic, swap_add), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_atomic, compare), 24);

	KUNIT_EXPECT_EQ(test, sizeof(struct metaroce_atomic_resp), METAROCE_ATOMIC_RESP_LEN);

	KUNIT_EXPECT_EQ(test, sizeof(struct metaroce_ack), METAROCE_ACK_LEN);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ack, syndrome), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ack, nak_code), 1);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ack, sack_bits), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ack, cum_psn), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ack, nak_psn), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ack, credit_psn), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ack, sack), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ack, ts_echo), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ack, echo_path), 36);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ack, ecn_ce), 38);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ack, echo_seq), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ack, rsvd), 44);

	KUNIT_EXPECT_EQ(test, sizeof(struct metaroce_deth), METAROCE_DETH_LEN);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_deth, qkey), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_deth, imm), 4);

	KUNIT_EXPECT_EQ(test, sizeof(struct metaroce_ctrl), METAROCE_CTRL_LEN);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ctrl, token), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ctrl, credit_psn), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_ctrl, rsvd), 8);

	KUNIT_EXPECT_EQ(test, METAROCE_FLUSH_LEN, 24);
	KUNIT_EXPECT_EQ(test, sizeof(struct metaroce_flush), METAROCE_FLUSH_LEN);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_flush, va), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_flush, rkey), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_flush, length), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_flush, msn), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_flush, type), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_flush, level), 21);
	KUNIT_EXPECT_EQ(test, offsetof(struct metaroce_flush, rsvd), 22);
}

/* ----------------------------------------------------------- opcode tables */

static void wire_opcode_table_test(struct kunit *test)
{
	unsigned int op;

	for (op = 0; op < 256; op++) {
		int i = known_opcode(op);

		if (i < 0) {
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_ext_len(op), -1,
					    "opcode 0x%02x", op);
			KUNIT_EXPECT_FALSE_MSG(test, mro_wire_has_payload(op),
					       "opcode 0x%02x", op);
			KUNIT_EXPECT_FALSE_MSG(test, mro_wire_is_request(op),
					       "opcode 0x%02x", op);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_ext_len(op), opcodes[i].ext_len,
				    "%s", opcodes[i].name);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_has_payload(op), opcodes[i].payload,
				    "%s", opcodes[i].name);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_is_request(op), opcodes[i].request,
				    "%s", opcodes[i].name);
	}
}

/* --------------------------------------------------------------------- CRC */

static void wire_crc_vectors_test(struct kunit *test)
{
	static const u8 check[] = "123456789";
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* the CRC32C check value, and RFC 3720 B.4 vectors */
	KUNIT_EXPECT_EQ(test, mro_wire_crc(check, 9), 0xe3069283U);
	KUNIT_EXPECT_EQ(test, mro_wire_crc(buf, 32), 0x8a9136aaU);
	memset(buf, 0xff, 32);
	KUNIT_EXPECT_EQ(test, mro_wire_crc(buf, 32), 0x62a8ab43U);
	KUNIT_EXPECT_EQ(test, mro_wire_crc(buf, 0), 0U);

	/* seal: CRC of the first @len bytes, big-endian at buf + len */
	memcpy(buf, check, 9);
	memset(buf + 9, 0x5a, 8);
	mro_wire_seal(buf, 9);
	KUNIT_EXPECT_EQ(test, buf[9], 0xe3);
	KUNIT_EXPECT_EQ(test, buf[10], 0x06);
	KUNIT_EXPECT_EQ(test, buf[11], 0x92);
	KUNIT_EXPECT_EQ(test, buf[12], 0x83);
	KUNIT_EXPECT_EQ(test, buf[13], 0x5a);	/* nothing written past it */
	KUNIT_EXPECT_MEMEQ(test, buf, check, 9);	/* data untouched */

	/* unaligned start */
	memcpy(buf + 1, check, 9);
	KUNIT_EXPECT_EQ(test, mro_wire_crc(buf + 1, 9), 0xe3069283U);
}

/* ---------------------------------------------------------- golden packets */

/* the bth of the golden packets below, flags and hdr_len aside */
static const u8 gold_bth_bytes[METAROCE_BTH_LEN] = {
	0x20, 0x00, 0x00, 0x00,		/* ver, opcode, flags	*/
	0x00, 0xa1, 0xa2, 0xa3,		/* dqpn			*/
	0x00, 0xb1, 0xb2, 0xb3,		/* sqpn			*/
	0xc1, 0xc2, 0xc3, 0xc4,		/* psn			*/
	0xd1, 0xd2, 0x00, 0x00,		/* path, hdr_len	*/
	0xe1, 0xe2, 0xe3, 0xe4,		/* path_seq		*/
	0xf1, 0xf2, 0xf3, 0xf4,		/* tsval		*/
};

static void gold_bth(struct mro_hdr *h, u8 op, u16 flags)
{
	memset(h, 0, sizeof(*h));
	h->opcode = op;
	h->flags = flags;
	h->dqpn = 0x00a1a2a3;
	h->sqpn = 0x00b1b2b3;
	h->psn = 0xc1c2c3c4;
	h->path = 0xd1d2;
	h->path_seq = 0xe1e2e3e4;
	h->tsval = 0xf1f2f3f4;
}

/* WRITE_IMM, middle packet (ACK_REQ | ECT), 4 bytes of payload */
static const u8 gold_write_imm[] = {
	0x20,						/* ver		*/
	METAROCE_OP_WRITE_IMM,						/* opcode	*/
	0x00, 0x24,					/* flags	*/
	0x00, 0xa1, 0xa2, 0xa3,				/* dqpn		*/
	0x00, 0xb1, 0xb2, 0xb3,				/* sqpn		*/
	0xc1, 0xc2, 0xc3, 0xc4,				/* psn		*/
	0xd1, 0xd2,					/* path		*/
	0x00, 60,					/* hdr_len	*/
	0xe1, 0xe2, 0xe3, 0xe4,				/* path_seq	*/
	0xf1, 0xf2, 0xf3, 0xf4,				/* tsval	*/
	0x11, 0x12, 0x13, 0x14,				/* msn		*/
	0x00, 0x00, 0x10, 0x00,				/* offset	*/
	0x00, 0x00, 0x20, 0x00,				/* length	*/
	0x21, 0x22, 0x23, 0x24,				/* imm		*/
	0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38,	/* va		*/
	0x41, 0x42, 0x43, 0x44,				/* rkey		*/
	0x51, 0x52, 0x53, 0x54,				/* first_psn	*/
	'w', 'x', 'y', 'z',				/* payload	*/
	0x14, 0xbc, 0xa0, 0x3e,				/* crc		*/
};

static void gold_write_imm_hdr(struct mro_hdr *h)
{
	gold_bth(h, METAROCE_OP_WRITE_IMM, METAROCE_F_ACK_REQ | METAROCE_F_ECT);
	h->msg.msn = 0x11121314;
	h->msg.offset = 0x1000;
	h->msg.length = 0x2000;
	h->msg.imm = 0x21222324;
	h->msg.va = 0x3132333435363738ULL;
	h->msg.rkey = 0x41424344;
	h->msg.first_psn = 0x51525354;
}

/* CMP_SWAP, FIRST | LAST */
static const u8 gold_cmp_swap[] = {
	0x20,						/* ver		*/
	METAROCE_OP_CMP_SWAP,						/* opcode	*/
	0x00, 0x03,					/* flags	*/
	0x00, 0xa1, 0xa2, 0xa3,				/* dqpn		*/
	0x00, 0xb1, 0xb2, 0xb3,				/* sqpn		*/
	0xc1, 0xc2, 0xc3, 0xc4,				/* psn		*/
	0xd1, 0xd2,					/* path		*/
	0x00, 60,					/* hdr_len	*/
	0xe1, 0xe2, 0xe3, 0xe4,				/* path_seq	*/
	0xf1, 0xf2, 0xf3, 0xf4,				/* tsval	*/
	0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x30,	/* va (8-aligned) */
	0x41, 0x42, 0x43, 0x44,				/* rkey		*/
	0x11, 0x12, 0x13, 0x14,				/* msn		*/
	0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,	/* swap_add	*/
	0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78,	/* compare	*/
	0x89, 0xe1, 0xaf, 0xec,				/* crc		*/
};

static void gold_cmp_swap_hdr(struct mro_hdr *h)
{
	gold_bth(h, METAROCE_OP_CMP_SWAP, METAROCE_F_FIRST | METAROCE_F_LAST);
	h->atomic.va = 0x3132333435363730ULL;
	h->atomic.rkey = 0x41424344;
	h->atomic.msn = 0x11121314;
	h->atomic.swap_add = 0x6162636465666768ULL;
	h->atomic.compare = 0x7172737475767778ULL;
}

/* FLUSH, FIRST | LAST | ACK_REQ, global visibility of a range */
static const u8 gold_flush[] = {
	0x20,						/* ver		*/
	METAROCE_OP_FLUSH,				/* opcode	*/
	0x00, 0x07,					/* flags	*/
	0x00, 0xa1, 0xa2, 0xa3,				/* dqpn		*/
	0x00, 0xb1, 0xb2, 0xb3,				/* sqpn		*/
	0xc1, 0xc2, 0xc3, 0xc4,				/* psn		*/
	0xd1, 0xd2,					/* path		*/
	0x00, 52,					/* hdr_len	*/
	0xe1, 0xe2, 0xe3, 0xe4,				/* path_seq	*/
	0xf1, 0xf2, 0xf3, 0xf4,				/* tsval	*/
	0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38,	/* va		*/
	0x41, 0x42, 0x43, 0x44,				/* rkey		*/
	0x51, 0x52, 0x53, 0x54,				/* length	*/
	0x11, 0x12, 0x13, 0x14,				/* msn		*/
	0x01,						/* type: GLOBAL	*/
	0x00,						/* level: RANGE	*/
	0x00, 0x00,					/* rsvd		*/
	0x7d, 0xa4, 0x6c, 0xf7,				/* crc		*/
};

static void gold_flush_hdr(struct mro_hdr *h)
{
	gold_bth(h, METAROCE_OP_FLUSH, METAROCE_F_FIRST | METAROCE_F_LAST |
		 METAROCE_F_ACK_REQ);
	h->flush.va = 0x3132333435363738ULL;
	h->flush.rkey = 0x41424344;
	h->flush.length = 0x51525354;
	h->flush.msn = 0x11121314;
	h->flush.type = METAROCE_FLUSH_GLOBAL;
	h->flush.level = METAROCE_FLUSH_RANGE;
}

/* ATOMIC_WRITE, FIRST | LAST | ACK_REQ: the 8 bytes in swap_add */
static const u8 gold_atomic_write[] = {
	0x20,						/* ver		*/
	METAROCE_OP_ATOMIC_WRITE,			/* opcode	*/
	0x00, 0x07,					/* flags	*/
	0x00, 0xa1, 0xa2, 0xa3,				/* dqpn		*/
	0x00, 0xb1, 0xb2, 0xb3,				/* sqpn		*/
	0xc1, 0xc2, 0xc3, 0xc4,				/* psn		*/
	0xd1, 0xd2,					/* path		*/
	0x00, 60,					/* hdr_len	*/
	0xe1, 0xe2, 0xe3, 0xe4,				/* path_seq	*/
	0xf1, 0xf2, 0xf3, 0xf4,				/* tsval	*/
	0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x30,	/* va (8-aligned) */
	0x41, 0x42, 0x43, 0x44,				/* rkey		*/
	0x11, 0x12, 0x13, 0x14,				/* msn		*/
	0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,	/* the 8 bytes	*/
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* compare: 0	*/
	0x4d, 0xed, 0x47, 0x2f,				/* crc		*/
};

static void gold_atomic_write_hdr(struct mro_hdr *h)
{
	gold_bth(h, METAROCE_OP_ATOMIC_WRITE, METAROCE_F_FIRST |
		 METAROCE_F_LAST | METAROCE_F_ACK_REQ);
	h->atomic.va = 0x3132333435363730ULL;
	h->atomic.rkey = 0x41424344;
	h->atomic.msn = 0x11121314;
	h->atomic.swap_add = 0x6162636465666768ULL;
	h->atomic.compare = 0;
}

/* ATOMIC_RESP, RETX */
static const u8 gold_atomic_resp[] = {
	0x20,						/* ver		*/
	METAROCE_OP_ATOMIC_RESP,						/* opcode	*/
	0x00, 0x10,					/* flags	*/
	0x00, 0xa1, 0xa2, 0xa3,				/* dqpn		*/
	0x00, 0xb1, 0xb2, 0xb3,				/* sqpn		*/
	0xc1, 0xc2, 0xc3, 0xc4,				/* psn		*/
	0xd1, 0xd2,					/* path		*/
	0x00, 36,					/* hdr_len	*/
	0xe1, 0xe2, 0xe3, 0xe4,				/* path_seq	*/
	0xf1, 0xf2, 0xf3, 0xf4,				/* tsval	*/
	0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88,	/* orig		*/
	0x82, 0xda, 0x02, 0x5b,				/* crc		*/
};

static void gold_atomic_resp_hdr(struct mro_hdr *h)
{
	gold_bth(h, METAROCE_OP_ATOMIC_RESP, METAROCE_F_RETX);
	h->orig = 0x8182838485868788ULL;
}

/* ACK carrying an RNR NAK and a full 128-bit SACK; bth.psn 0 */
static const u8 gold_ack[] = {
	0x20, METAROCE_OP_ACK, 0x00, 0x00,		/* ver, opcode, flags */
	0x00, 0xa1, 0xa2, 0xa3,				/* dqpn		*/
	0x00, 0xb1, 0xb2, 0xb3,				/* sqpn		*/
	0x00, 0x00, 0x00, 0x00,				/* psn (unused)	*/
	0xd1, 0xd2,					/* path		*/
	0x00, 76,					/* hdr_len	*/
	0xe1, 0xe2, 0xe3, 0xe4,				/* path_seq	*/
	0xf1, 0xf2, 0xf3, 0xf4,				/* tsval	*/
	0x01,						/* syndrome	*/
	0x1f,						/* nak_code	*/
	0x00, 0x80,					/* sack_bits	*/
	0x21, 0x22, 0x23, 0x24,				/* cum_psn	*/
	0x31, 0x32, 0x33, 0x34,				/* nak_psn	*/
	0x41, 0x42, 0x43, 0x44,				/* credit_psn	*/
	0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98,	/* sack[0]	*/
	0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8,	/* sack[1]	*/
	0x51, 0x52, 0x53, 0x54,				/* ts_echo	*/
	0x61, 0x62,					/* echo_path	*/
	0x71, 0x72,					/* ecn_ce	*/
	0x81, 0x82, 0x83, 0x84,				/* echo_seq	*/
	0x00, 0x00, 0x00, 0x00,				/* rsvd		*/
	0x47, 0x8c, 0xb0, 0x73,				/* crc		*/
};

static void gold_ack_hdr(struct mro_hdr *h)
{
	gold_bth(h, METAROCE_OP_ACK, 0);
	h->psn = 0;
	h->ack.syndrome = METAROCE_SYN_RNR_NAK;
	h->ack.nak_code = 0x1f;
	h->ack.sack_bits = 128;
	h->ack.cum_psn = 0x21222324;
	h->ack.nak_psn = 0x31323334;
	h->ack.credit_psn = 0x41424344;
	h->ack.sack[0] = 0x9192939495969798ULL;
	h->ack.sack[1] = 0xa1a2a3a4a5a6a7a8ULL;
	h->ack.ts_echo = 0x51525354;
	h->ack.echo_path = 0x6162;
	h->ack.ecn_ce = 0x7172;
	h->ack.echo_seq = 0x81828384;
}

/* UD_SEND_IMM, SOLICITED, 3 bytes of payload */
static const u8 gold_ud[] = {
	0x20,						/* ver		*/
	METAROCE_OP_UD_SEND_IMM,						/* opcode	*/
	0x00, 0x08,					/* flags	*/
	0x00, 0xa1, 0xa2, 0xa3,				/* dqpn		*/
	0x00, 0xb1, 0xb2, 0xb3,				/* sqpn		*/
	0xc1, 0xc2, 0xc3, 0xc4,				/* psn		*/
	0xd1, 0xd2,					/* path		*/
	0x00, 36,					/* hdr_len	*/
	0xe1, 0xe2, 0xe3, 0xe4,				/* path_seq	*/
	0xf1, 0xf2, 0xf3, 0xf4,				/* tsval	*/
	0x11, 0x12, 0x13, 0x14,				/* qkey		*/
	0x21, 0x22, 0x23, 0x24,				/* imm		*/
	'a', 'b', 'c',					/* payload	*/
	0xe1, 0x2e, 0xa4, 0x92,				/* crc		*/
};

static void gold_ud_hdr(struct mro_hdr *h)
{
	gold_bth(h, METAROCE_OP_UD_SEND_IMM, METAROCE_F_SOLICITED);
	h->deth.qkey = 0x11121314;
	h->deth.imm = 0x21222324;
}

/* PROBE asking for an echo */
static const u8 gold_probe[] = {
	0x20,						/* ver		*/
	METAROCE_OP_PROBE,						/* opcode	*/
	0x00, 0x04,					/* flags	*/
	0x00, 0xa1, 0xa2, 0xa3,				/* dqpn		*/
	0x00, 0xb1, 0xb2, 0xb3,				/* sqpn		*/
	0xc1, 0xc2, 0xc3, 0xc4,				/* psn		*/
	0xd1, 0xd2,					/* path		*/
	0x00, 40,					/* hdr_len	*/
	0xe1, 0xe2, 0xe3, 0xe4,				/* path_seq	*/
	0xf1, 0xf2, 0xf3, 0xf4,				/* tsval	*/
	0x11, 0x12, 0x13, 0x14,				/* token	*/
	0x21, 0x22, 0x23, 0x24,				/* credit_psn	*/
	0x00, 0x00, 0x00, 0x00,				/* rsvd		*/
	0x34, 0x4f, 0xc7, 0x62,				/* crc		*/
};

static void gold_probe_hdr(struct mro_hdr *h)
{
	gold_bth(h, METAROCE_OP_PROBE, METAROCE_F_ACK_REQ);
	h->ctrl.token = 0x11121314;
	h->ctrl.credit_psn = 0x21222324;
}

/* READ_RESP, the first of a READ (FIRST | ECT), 3 bytes of payload */
static const u8 gold_read_resp[] = {
	0x20,						/* ver		*/
	METAROCE_OP_READ_RESP,						/* opcode	*/
	0x00, 0x21,					/* flags	*/
	0x00, 0xa1, 0xa2, 0xa3,				/* dqpn		*/
	0x00, 0xb1, 0xb2, 0xb3,				/* sqpn		*/
	0xc1, 0xc2, 0xc3, 0xc4,				/* psn		*/
	0xd1, 0xd2,					/* path		*/
	0x00, 36,					/* hdr_len	*/
	0xe1, 0xe2, 0xe3, 0xe4,				/* path_seq	*/
	0xf1, 0xf2, 0xf3, 0xf4,				/* tsval	*/
	0x00, 0x01, 0x12, 0x13,				/* offset	*/
	0x21, 0x22, 0x23, 0x24,				/* ts_echo	*/
	'r', 'r', 'r',					/* payload	*/
	0x48, 0x9f, 0x82, 0x07,				/* crc		*/
};

static void gold_read_resp_hdr(struct mro_hdr *h)
{
	gold_bth(h, METAROCE_OP_READ_RESP, METAROCE_F_FIRST | METAROCE_F_ECT);
	h->rresp.offset = 0x00011213;
	h->rresp.ts_echo = 0x21222324;
}

/* HELLO asking for an answer, with distinct bytes in every field */
static const u8 gold_hello[] = {
	0x20,						/* ver		*/
	METAROCE_OP_HELLO,						/* opcode	*/
	0x00, 0x04,					/* flags	*/
	0x00, 0xa1, 0xa2, 0xa3,				/* dqpn		*/
	0x00, 0xb1, 0xb2, 0xb3,				/* sqpn		*/
	0xc1, 0xc2, 0xc3, 0xc4,				/* psn		*/
	0xd1, 0xd2,					/* path		*/
	0x00, 60,					/* hdr_len	*/
	0xe1, 0xe2, 0xe3, 0xe4,				/* path_seq	*/
	0xf1, 0xf2, 0xf3, 0xf4,				/* tsval	*/
	0x02, 0x17,					/* prot, key_id	*/
	0x21, 0x22,					/* ack_every	*/
	0x31, 0x32,					/* msg_window	*/
	0x41, 0x42,					/* sack_bits	*/
	0x18,						/* prev_key_id	*/
	0x00, 0x00, 0x00,				/* rsvd		*/
	0x51, 0x52, 0x53, 0x54,				/* window	*/
	0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,	/* nonce	*/
	0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78,	/* echo		*/
	0x3b, 0xcc, 0x72, 0x44,				/* crc		*/
};

static void gold_hello_hdr(struct mro_hdr *h)
{
	gold_bth(h, METAROCE_OP_HELLO, METAROCE_F_ACK_REQ);
	h->hello.prot = METAROCE_PROT_ENCRYPT;
	h->hello.key_id = 0x17;
	h->hello.prev_key_id = 0x18;
	h->hello.ack_every = 0x2122;
	h->hello.msg_window = 0x3132;
	h->hello.sack_bits = 0x4142;
	h->hello.window = 0x51525354;
	h->hello.nonce = 0x6162636465666768ULL;
	h->hello.echo = 0x7172737475767778ULL;
}

static const struct golden {
	const char *name;
	const u8 *pkt;
	size_t len;
	size_t payload_len;
	void (*fill)(struct mro_hdr *h);
} goldens[] = {
	{ "WRITE_IMM",   gold_write_imm,   sizeof(gold_write_imm),   4, gold_write_imm_hdr },
	{ "CMP_SWAP",    gold_cmp_swap,    sizeof(gold_cmp_swap),    0, gold_cmp_swap_hdr },
	{ "FLUSH",       gold_flush,       sizeof(gold_flush),       0, gold_flush_hdr },
	{ "ATOMIC_WRITE", gold_atomic_write, sizeof(gold_atomic_write), 0,
	  gold_atomic_write_hdr },
	{ "ATOMIC_RESP", gold_atomic_resp, sizeof(gold_atomic_resp), 0, gold_atomic_resp_hdr },
	{ "ACK",         gold_ack,         sizeof(gold_ack),         0, gold_ack_hdr },
	{ "UD_SEND_IMM", gold_ud,          sizeof(gold_ud),          3, gold_ud_hdr },
	{ "PROBE",       gold_probe,       sizeof(gold_probe),       0, gold_probe_hdr },
	{ "HELLO",       gold_hello,       sizeof(gold_hello),       0, gold_hello_hdr },
	{ "READ_RESP",   gold_read_resp,   sizeof(gold_read_resp),   3, gold_read_resp_hdr },
};

/* compare every field that @op carries */
static void expect_hdr_eq(struct kunit *test, const struct mro_hdr *exp,
			  const struct mro_hdr *got, const char *what)
{
	u8 op = exp->opcode;
	int i;

	KUNIT_EXPECT_EQ_MSG(test, got->opcode, exp->opcode, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, got->flags, exp->flags, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, got->dqpn, exp->dqpn, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, got->sqpn, exp->sqpn, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, got->psn, exp->psn, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, got->path, exp->path, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, got->path_seq, exp->path_seq, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, got->tsval, exp->tsval, "%s", what);

	if (is_msg_op(op)) {
		KUNIT_EXPECT_EQ_MSG(test, got->msg.msn, exp->msg.msn, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->msg.offset, exp->msg.offset, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->msg.length, exp->msg.length, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->msg.imm, exp->msg.imm, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->msg.va, exp->msg.va, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->msg.rkey, exp->msg.rkey, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->msg.first_psn, exp->msg.first_psn, "%s", what);
	} else if (is_atomic_op(op)) {
		KUNIT_EXPECT_EQ_MSG(test, got->atomic.va, exp->atomic.va, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->atomic.rkey, exp->atomic.rkey, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->atomic.msn, exp->atomic.msn, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->atomic.swap_add, exp->atomic.swap_add, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->atomic.compare, exp->atomic.compare, "%s", what);
	} else if (op == METAROCE_OP_FLUSH) {
		KUNIT_EXPECT_EQ_MSG(test, got->flush.va, exp->flush.va, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->flush.rkey, exp->flush.rkey, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->flush.length, exp->flush.length, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->flush.msn, exp->flush.msn, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->flush.type, exp->flush.type, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->flush.level, exp->flush.level, "%s", what);
	} else if (op == METAROCE_OP_ATOMIC_RESP) {
		KUNIT_EXPECT_EQ_MSG(test, got->orig, exp->orig, "%s", what);
	} else if (op == METAROCE_OP_READ_RESP) {
		KUNIT_EXPECT_EQ_MSG(test, got->rresp.offset, exp->rresp.offset, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->rresp.ts_echo, exp->rresp.ts_echo, "%s", what);
	} else if (op == METAROCE_OP_ACK) {
		KUNIT_EXPECT_EQ_MSG(test, got->ack.syndrome, exp->ack.syndrome, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->ack.nak_code, exp->ack.nak_code, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->ack.sack_bits, exp->ack.sack_bits, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->ack.cum_psn, exp->ack.cum_psn, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->ack.nak_psn, exp->ack.nak_psn, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->ack.credit_psn, exp->ack.credit_psn, "%s", what);
		for (i = 0; i < METAROCE_SACK_WORDS; i++)
			KUNIT_EXPECT_EQ_MSG(test, got->ack.sack[i], exp->ack.sack[i],
					    "%s sack[%d]", what, i);
		KUNIT_EXPECT_EQ_MSG(test, got->ack.ts_echo, exp->ack.ts_echo, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->ack.echo_path, exp->ack.echo_path, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->ack.ecn_ce, exp->ack.ecn_ce, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->ack.echo_seq, exp->ack.echo_seq, "%s", what);
	} else if (is_ud_op(op)) {
		KUNIT_EXPECT_EQ_MSG(test, got->deth.qkey, exp->deth.qkey, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->deth.imm, exp->deth.imm, "%s", what);
	} else if (is_ctrl_op(op)) {
		KUNIT_EXPECT_EQ_MSG(test, got->ctrl.token, exp->ctrl.token, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->ctrl.credit_psn, exp->ctrl.credit_psn, "%s", what);
	} else if (op == METAROCE_OP_HELLO) {
		KUNIT_EXPECT_EQ_MSG(test, got->hello.prot, exp->hello.prot, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->hello.key_id, exp->hello.key_id, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->hello.prev_key_id, exp->hello.prev_key_id,
				    "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->hello.ack_every, exp->hello.ack_every, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->hello.msg_window, exp->hello.msg_window, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->hello.sack_bits, exp->hello.sack_bits, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->hello.window, exp->hello.window, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->hello.nonce, exp->hello.nonce, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, got->hello.echo, exp->hello.echo, "%s", what);
	} else {
		KUNIT_FAIL(test, "%s: opcode 0x%02x not covered", what, op);
	}
}

/* decode of a hand-built packet yields exactly the documented fields */
static void wire_golden_decode_test(struct kunit *test)
{
	struct mro_hdr exp, got;
	int i;

	for (i = 0; i < ARRAY_SIZE(goldens); i++) {
		const struct golden *g = &goldens[i];
		size_t hdr_len = g->len - METAROCE_CRC_LEN - g->payload_len;

		g->fill(&exp);
		memset(&got, 0xa5, sizeof(got));
		KUNIT_ASSERT_EQ_MSG(test, mro_wire_decode(g->pkt, g->len, &got),
				    MRO_WIRE_OK, "%s", g->name);
		expect_hdr_eq(test, &exp, &got, g->name);
		KUNIT_EXPECT_EQ_MSG(test, got.hdr_len, hdr_len, "%s", g->name);
		KUNIT_EXPECT_EQ_MSG(test, got.payload_len, g->payload_len, "%s", g->name);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_crc(g->pkt, g->len - METAROCE_CRC_LEN),
				    rd_be32(g->pkt + g->len - METAROCE_CRC_LEN),
				    "%s", g->name);
	}
}

/* encode + payload + seal reproduces the hand-built packet byte for byte */
static void wire_golden_encode_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(goldens); i++) {
		const struct golden *g = &goldens[i];
		size_t hdr_len = g->len - METAROCE_CRC_LEN - g->payload_len;
		size_t n;

		g->fill(&h);
		h.hdr_len = 0xbeef;
		memset(buf, 0x5a, BUF_LEN);
		n = mro_wire_encode(&h, buf, BUF_LEN);
		KUNIT_ASSERT_EQ_MSG(test, n, hdr_len, "%s", g->name);
		KUNIT_EXPECT_EQ_MSG(test, h.hdr_len, hdr_len, "%s", g->name);
		/* nothing written past the header */
		KUNIT_EXPECT_EQ_MSG(test, buf[n], 0x5a, "%s", g->name);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf, g->pkt, n, "%s header", g->name);

		memcpy(buf + n, g->pkt + n, g->payload_len);
		mro_wire_seal(buf, n + g->payload_len);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf, g->pkt, g->len, "%s sealed", g->name);
	}
}

/* ------------------------------------------------------------- round trips */

enum fill_kind { FILL_ZERO, FILL_MAX, FILL_MAX_FLAGS, FILL_PATTERN, FILL_NR };

static const char * const fill_names[] = { "zero", "max", "max-flags", "pattern" };

/*
 * Fill @h for opcode table entry @i so that it is valid and decodable.
 * FILL_MAX puts every field at its largest legal value; FILL_MAX_FLAGS sets
 * all flags (FIRST|LAST force offset 0 and length == payload on messages).
 */
static size_t fill_hdr(struct mro_hdr *h, int i, enum fill_kind kind)
{
	u8 op = opcodes[i].op;
	size_t plen = opcodes[i].payload ? 5 : 0;
	u32 m32 = kind == FILL_ZERO ? 0 : U32_MAX;
	u64 m64 = kind == FILL_ZERO ? 0 : U64_MAX;
	int w;

	memset(h, 0, sizeof(*h));
	h->opcode = op;
	if (kind == FILL_ZERO) {
		if (op == METAROCE_OP_READ_REQ)
			h->msg.imm = 256;	/* smallest segment size */
		if (op == METAROCE_OP_FLUSH)	/* at least one type bit */
			h->flush.type = METAROCE_FLUSH_GLOBAL;
		if (op == METAROCE_OP_HELLO)	/* the smallest nonce */
			h->hello.nonce = 1;
		return plen && is_msg_op(op) ? 0 : plen;
	}
	if (kind == FILL_PATTERN) {
		/* small, distinct, per-opcode values */
		h->flags = METAROCE_F_LAST;
		h->dqpn = 0x010203 + i;
		h->sqpn = 0x040506 + i;
		h->psn = 0x0708090a + i;
		h->path = 0x0b0c + i;
		h->path_seq = 0x0d0e0f10 + i;
		h->tsval = 0x11121314 + i;
		m32 = 0x21222324 + i;
		m64 = 0x3132333435363738ULL + 8 * i;
	} else {
		h->flags = METAROCE_F_ALL;
		h->dqpn = METAROCE_QPN_MASK;
		h->sqpn = METAROCE_QPN_MASK;
		h->psn = U32_MAX;
		h->path = U16_MAX;
		h->path_seq = U32_MAX;
		h->tsval = U32_MAX;
	}

	if (is_msg_op(op)) {
		h->msg.msn = m32;
		h->msg.imm = m32;
		h->msg.va = m64;
		h->msg.rkey = m32;
		h->msg.first_psn = m32;
		if (op == METAROCE_OP_READ_REQ) {
			/*
			 * [offset, offset + length) within 2^31 bytes,
			 * imm = response segment size, 256..65536
			 */
			h->msg.imm = kind == FILL_PATTERN ? 4096 : 65536;
			h->msg.offset = kind == FILL_PATTERN ? 0x1000 :
					kind == FILL_MAX ? 0x40000000U : 0;
			h->msg.length = kind == FILL_PATTERN ? m32 :
					kind == FILL_MAX ? 0x40000000U : 0x80000000U;
		} else if (kind == FILL_MAX_FLAGS) {
			/* FIRST|LAST: the whole message in this packet */
			h->msg.offset = 0;
			h->msg.length = plen;
		} else {
			/* the last packet of the largest message */
			if (kind == FILL_MAX)
				h->flags &= ~METAROCE_F_FIRST;
			h->msg.length = 0x80000000U;
			h->msg.offset = h->msg.length - plen;
		}
	} else if (is_atomic_op(op)) {
		h->atomic.va = m64 & ~7ULL;
		h->atomic.rkey = m32;
		h->atomic.msn = m32;
		h->atomic.swap_add = m64;
		/* only CMP_SWAP compares; ATOMIC_WRITE must carry 0 */
		h->atomic.compare = op == METAROCE_OP_ATOMIC_WRITE ? 0 : m64 - 1;
	} else if (op == METAROCE_OP_FLUSH) {
		h->flush.va = m64;
		h->flush.rkey = m32;
		h->flush.length = m32;
		h->flush.msn = m32;
		h->flush.type = kind == FILL_PATTERN ? METAROCE_FLUSH_GLOBAL :
			METAROCE_FLUSH_GLOBAL | METAROCE_FLUSH_PERSISTENT;
		h->flush.level = kind == FILL_PATTERN ? METAROCE_FLUSH_RANGE :
							METAROCE_FLUSH_MR;
	} else if (op == METAROCE_OP_ATOMIC_RESP) {
		h->orig = m64;
	} else if (op == METAROCE_OP_READ_RESP) {
		/* the payload ends at most at IB's largest message */
		h->rresp.offset = kind == FILL_PATTERN ? m32 : 0x80000000U - plen;
		h->rresp.ts_echo = m32;
	} else if (op == METAROCE_OP_ACK) {
		h->ack.syndrome = kind == FILL_PATTERN ? METAROCE_SYN_NAK_ACCESS :
							 METAROCE_SYN_MAX;
		h->ack.nak_code = kind == FILL_PATTERN ? 0x17 : U8_MAX;
		h->ack.sack_bits = kind == FILL_PATTERN ? 70 : METAROCE_SACK_BITS;
		h->ack.cum_psn = m32;
		h->ack.nak_psn = m32 - 1;
		h->ack.credit_psn = m32 - 2;
		for (w = 0; w < METAROCE_SACK_WORDS; w++)
			h->ack.sack[w] = m64;
		if (kind == FILL_PATTERN)	/* bits 0..69 only */
			h->ack.sack[1] &= GENMASK_ULL(5, 0);
		h->ack.ts_echo = m32;
		h->ack.echo_path = (u16)m32;
		h->ack.ecn_ce = (u16)(m32 >> 16);
		h->ack.echo_seq = m32 - 3;
	} else if (is_ud_op(op)) {
		h->deth.qkey = m32;
		h->deth.imm = m32 - 1;
	} else if (is_ctrl_op(op)) {
		h->ctrl.token = m32;
		h->ctrl.credit_psn = m32 - 1;
	} else if (op == METAROCE_OP_HELLO) {
		h->hello.prot = kind == FILL_PATTERN ? METAROCE_PROT_AUTH :
						       METAROCE_PROT_MAX;
		h->hello.key_id = (u8)m32;
		h->hello.prev_key_id = (u8)(m32 >> 8);
		h->hello.ack_every = (u16)m32;
		h->hello.msg_window = (u16)(m32 >> 16);
		h->hello.sack_bits = (u16)(m32 - 1);
		h->hello.window = m32;
		h->hello.nonce = m64 | 1;	/* never 0 */
		h->hello.echo = m64 - 1;
	}
	return plen;
}

/* encode @h with @plen payload bytes into @buf and seal; returns total */
static size_t build_pkt(struct kunit *test, struct mro_hdr *h, size_t plen,
			u8 *buf)
{
	size_t n = mro_wire_encode(h, buf, BUF_LEN);
	size_t j;

	KUNIT_EXPECT_EQ_MSG(test, n, METAROCE_BTH_LEN + mro_wire_ext_len(h->opcode),
			    "opcode 0x%02x", h->opcode);
	if (!n)
		return 0;
	for (j = 0; j < plen; j++)
		buf[n + j] = 0xc0 + j;
	mro_wire_seal(buf, n + plen);
	return n + plen + METAROCE_CRC_LEN;
}

static void wire_roundtrip_test(struct kunit *test)
{
	u8 *raw = kunit_kzalloc(test, BUF_LEN + 1, GFP_KERNEL);
	struct mro_hdr h, d;
	int i, k, unaligned;

	KUNIT_ASSERT_NOT_NULL(test, raw);
	for (unaligned = 0; unaligned <= 1; unaligned++) {
		u8 *buf = raw + unaligned;	/* headers may sit at any address */

		for (k = 0; k < FILL_NR; k++) {
			for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
				size_t plen = fill_hdr(&h, i, k);
				size_t len = build_pkt(test, &h, plen, buf);
				char what[48];

				snprintf(what, sizeof(what), "%s/%s%s", opcodes[i].name,
					 fill_names[k], unaligned ? "/unaligned" : "");
				KUNIT_ASSERT_NE_MSG(test, len, 0, "%s", what);
				memset(&d, 0xa5, sizeof(d));
				KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
						    MRO_WIRE_OK, "%s", what);
				expect_hdr_eq(test, &h, &d, what);
				KUNIT_EXPECT_EQ_MSG(test, d.hdr_len, h.hdr_len, "%s", what);
				KUNIT_EXPECT_EQ_MSG(test, d.payload_len, plen, "%s", what);
			}
		}
	}
}

/* the bth bytes of every opcode, checked against the documented layout */
static void wire_bth_bytes_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		int hl = METAROCE_BTH_LEN + opcodes[i].ext_len;
		u8 exp[METAROCE_BTH_LEN];

		memcpy(exp, gold_bth_bytes, sizeof(exp));
		exp[1] = opcodes[i].op;
		exp[3] = METAROCE_F_ALL;
		exp[19] = hl;

		gold_bth(&h, opcodes[i].op, METAROCE_F_ALL);	/* extension all 0 */
		h.hello.nonce = opcodes[i].op == METAROCE_OP_HELLO; /* never 0 */
		KUNIT_ASSERT_EQ_MSG(test, mro_wire_encode(&h, buf, BUF_LEN), (size_t)hl,
				    "%s", opcodes[i].name);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf, exp, METAROCE_BTH_LEN, "%s",
				       opcodes[i].name);
	}
}

/* --------------------------------------------------------------- encoding */

static void wire_encode_reject_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h;
	unsigned int op, bit;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);

	for (op = 0; op < 256; op++) {
		if (known_opcode(op) >= 0)
			continue;
		memset(&h, 0, sizeof(h));
		h.opcode = op;
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_encode(&h, buf, BUF_LEN), 0,
				    "opcode 0x%02x", op);
	}

	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		size_t hl = METAROCE_BTH_LEN + opcodes[i].ext_len;

		fill_hdr(&h, i, FILL_MAX);
		/* room: one byte short fails, exact fits */
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_encode(&h, buf, hl - 1), 0,
				    "%s", opcodes[i].name);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_encode(&h, buf, 0), 0,
				    "%s", opcodes[i].name);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_encode(&h, buf, hl), hl,
				    "%s", opcodes[i].name);

		for (bit = 0; bit < 16; bit++) {
			if (BIT(bit) & mro_wire_flags_valid(opcodes[i].op))
				continue;
			fill_hdr(&h, i, FILL_MAX);
			h.flags |= BIT(bit);
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_encode(&h, buf, BUF_LEN), 0,
					    "%s flag bit %u", opcodes[i].name, bit);
		}
		for (bit = 24; bit < 32; bit++) {
			fill_hdr(&h, i, FILL_ZERO);
			h.dqpn = BIT(bit);
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_encode(&h, buf, BUF_LEN), 0,
					    "%s dqpn bit %u", opcodes[i].name, bit);
			fill_hdr(&h, i, FILL_ZERO);
			h.sqpn = BIT(bit);
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_encode(&h, buf, BUF_LEN), 0,
					    "%s sqpn bit %u", opcodes[i].name, bit);
		}
	}

	i = known_opcode(METAROCE_OP_ACK);
	fill_hdr(&h, i, FILL_MAX);
	h.ack.syndrome = METAROCE_SYN_MAX + 1;
	KUNIT_EXPECT_EQ(test, mro_wire_encode(&h, buf, BUF_LEN), 0);
	h.ack.syndrome = U8_MAX;
	KUNIT_EXPECT_EQ(test, mro_wire_encode(&h, buf, BUF_LEN), 0);
	fill_hdr(&h, i, FILL_MAX);
	h.ack.sack_bits = METAROCE_SACK_BITS + 1;
	KUNIT_EXPECT_EQ(test, mro_wire_encode(&h, buf, BUF_LEN), 0);
	h.ack.sack_bits = U16_MAX;
	KUNIT_EXPECT_EQ(test, mro_wire_encode(&h, buf, BUF_LEN), 0);
}

/* ----------------------------------------------------------------- decoding */

/* re-seal after editing a header so only the edited field can be at fault */
static void reseal(u8 *buf, size_t len)
{
	mro_wire_seal(buf, len - METAROCE_CRC_LEN);
}

static void wire_decode_short_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	size_t len, cut;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (cut = 0; cut < METAROCE_BTH_LEN + METAROCE_CRC_LEN; cut++)
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, cut, &d),
				    MRO_WIRE_SHORT, "len %zu", cut);

	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		size_t plen = fill_hdr(&h, i, FILL_MAX);

		len = build_pkt(test, &h, plen, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		KUNIT_ASSERT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_OK);
		for (cut = 0; cut < len; cut++) {
			enum mro_wire_err err = mro_wire_decode(buf, cut, &d);

			/* too short for its own headers and CRC */
			if (cut < h.hdr_len + METAROCE_CRC_LEN)
				KUNIT_EXPECT_EQ_MSG(test, err, MRO_WIRE_SHORT,
						    "%s len %zu", opcodes[i].name, cut);
			else	/* cut into the payload: CRC read from the wrong place */
				KUNIT_EXPECT_NE_MSG(test, err, MRO_WIRE_OK,
						    "%s len %zu", opcodes[i].name, cut);
		}
	}
}

static void wire_decode_version_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	unsigned int ver;
	size_t len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	fill_hdr(&h, known_opcode(METAROCE_OP_PROBE), FILL_PATTERN);
	len = build_pkt(test, &h, 0, buf);
	KUNIT_ASSERT_NE(test, len, 0);
	/* version in the high nibble, reserved low nibble 0 */
	KUNIT_EXPECT_EQ(test, buf[0], METAROCE_WIRE_VERSION << 4);

	for (ver = 0; ver < 256; ver++) {
		if (ver == METAROCE_WIRE_VERSION << 4)
			continue;
		buf[0] = ver;
		reseal(buf, len);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
				    MRO_WIRE_VERSION, "ver byte 0x%02x", ver);
	}
	buf[0] = METAROCE_WIRE_VERSION << 4;
	reseal(buf, len);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_OK);
}

static void wire_decode_opcode_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	unsigned int op;
	size_t len;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	fill_hdr(&h, known_opcode(METAROCE_OP_SEND), FILL_PATTERN);
	len = build_pkt(test, &h, 5, buf);
	KUNIT_ASSERT_NE(test, len, 0);

	for (op = 0; op < 256; op++) {
		i = known_opcode(op);
		buf[1] = op;
		reseal(buf, len);
		if (i < 0)
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
					    MRO_WIRE_OPCODE, "opcode 0x%02x", op);
		else if (opcodes[i].ext_len != METAROCE_MSG_LEN)
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
					    MRO_WIRE_HDR_LEN, "%s", opcodes[i].name);
	}
}

static void wire_decode_hdr_len_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	static const int delta[] = { -1, 1, -4, 4, -8, 8, -16, 16 };
	struct mro_hdr h, d;
	size_t len;
	int i, j;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		u16 good;

		fill_hdr(&h, i, FILL_PATTERN);
		len = build_pkt(test, &h, 0, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		good = rd_be16(buf + 18);
		KUNIT_EXPECT_EQ_MSG(test, good, METAROCE_BTH_LEN + opcodes[i].ext_len,
				    "%s", opcodes[i].name);

		for (j = 0; j < ARRAY_SIZE(delta); j++) {
			/*
			 * a request's hdr_len may count a piggybacked ACK:
			 * 4 more passes the header check and this packet
			 * is then too short for it (wire_ack_piggy_test
			 * has one long enough)
			 */
			bool piggy = mro_wire_is_request(h.opcode) &&
				     delta[j] == METAROCE_ACK_PIGGY_LEN;

			wr_be16(good + delta[j], buf + 18);
			reseal(buf, len);
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
					    piggy ? MRO_WIRE_SHORT :
					    MRO_WIRE_HDR_LEN, "%s hdr_len %d",
					    opcodes[i].name, good + delta[j]);
		}
		wr_be16(0, buf + 18);
		reseal(buf, len);
		KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_HDR_LEN);
		wr_be16(U16_MAX, buf + 18);
		reseal(buf, len);
		KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_HDR_LEN);
		/* hdr_len byte order: the swapped value is wrong too */
		wr_le16(good, buf + 18);
		reseal(buf, len);
		KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_HDR_LEN);
	}
}

static void wire_decode_bth_fields_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	unsigned int bit;
	size_t len;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		size_t plen = fill_hdr(&h, i, FILL_PATTERN);

		len = build_pkt(test, &h, plen, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		KUNIT_ASSERT_EQ_MSG(test, mro_wire_decode(buf, len, &d), MRO_WIRE_OK,
				    "%s", opcodes[i].name);

		for (bit = 0; bit < 16; bit++) {
			u16 fl = h.flags | BIT(bit);

			if (BIT(bit) & mro_wire_flags_valid(opcodes[i].op))
				continue;
			wr_be16(fl, buf + 2);
			reseal(buf, len);
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
					    MRO_WIRE_FIELD, "%s flags 0x%04x",
					    opcodes[i].name, fl);
		}
		wr_be16(h.flags, buf + 2);

		/* QPNs are 24 bits: any bit of the high byte is refused */
		for (bit = 0; bit < 8; bit++) {
			buf[4] = BIT(bit);
			reseal(buf, len);
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
					    MRO_WIRE_FIELD, "%s dqpn high bit %u",
					    opcodes[i].name, bit);
			buf[4] = 0;
			buf[8] = BIT(bit);
			reseal(buf, len);
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
					    MRO_WIRE_FIELD, "%s sqpn high bit %u",
					    opcodes[i].name, bit);
			buf[8] = 0;
		}
		reseal(buf, len);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d), MRO_WIRE_OK,
				    "%s restored", opcodes[i].name);
	}
}

/* opcodes without payload refuse any; the others accept it */
static void wire_decode_payload_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	size_t len;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		if (opcodes[i].payload)
			continue;
		fill_hdr(&h, i, FILL_PATTERN);
		len = build_pkt(test, &h, 1, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
				    MRO_WIRE_LENGTH, "%s with 1 payload byte",
				    opcodes[i].name);
		len = build_pkt(test, &h, 64, buf);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
				    MRO_WIRE_LENGTH, "%s with 64 payload bytes",
				    opcodes[i].name);
	}
}

#define F_FIRST METAROCE_F_FIRST
#define F_LAST METAROCE_F_LAST

static const struct msg_case {
	u8 op;
	u16 flags;
	u32 offset;
	u32 length;
	unsigned int plen;
	enum mro_wire_err exp;
} msg_cases[] = {
	/* largest message is 2^31 bytes */
	{ METAROCE_OP_SEND, 0, 0, 0x80000000U, 8, MRO_WIRE_OK },
	{ METAROCE_OP_SEND, 0, 0, 0x80000001U, 8, MRO_WIRE_LENGTH },
	{ METAROCE_OP_SEND, 0, 0, U32_MAX, 8, MRO_WIRE_LENGTH },
	{ METAROCE_OP_READ_REQ, 0, 0, 0x80000000U, 0, MRO_WIRE_OK },
	{ METAROCE_OP_READ_REQ, 0, 0, 0x80000001U, 0, MRO_WIRE_LENGTH },
	/* payload must fit: offset + payload <= length */
	{ METAROCE_OP_SEND, 0, 92, 100, 8, MRO_WIRE_OK },
	{ METAROCE_OP_SEND, 0, 93, 100, 8, MRO_WIRE_LENGTH },
	{ METAROCE_OP_SEND, 0, 100, 100, 0, MRO_WIRE_OK },
	{ METAROCE_OP_SEND, 0, 101, 100, 0, MRO_WIRE_LENGTH },
	{ METAROCE_OP_READ_RESP, 0, 0x7ffffff8U, 0x80000000U, 8, MRO_WIRE_OK },
	{ METAROCE_OP_READ_RESP, 0, 0x7ffffff9U, 0x80000000U, 8, MRO_WIRE_LENGTH },
	/* offset + payload must not wrap around 2^32 */
	{ METAROCE_OP_SEND, 0, U32_MAX, 0x80000000U, 8, MRO_WIRE_LENGTH },
	{ METAROCE_OP_SEND, 0, 0xfffffffcU, 0x80000000U, 8, MRO_WIRE_LENGTH },
	/* FIRST: offset 0 */
	{ METAROCE_OP_SEND, F_FIRST, 0, 100, 8, MRO_WIRE_OK },
	{ METAROCE_OP_SEND, F_FIRST, 8, 100, 8, MRO_WIRE_FIELD },
	/* LAST: the payload ends the message */
	{ METAROCE_OP_SEND, F_LAST, 92, 100, 8, MRO_WIRE_OK },
	{ METAROCE_OP_SEND, F_LAST, 84, 100, 8, MRO_WIRE_LENGTH },
	{ METAROCE_OP_SEND, F_FIRST | F_LAST, 0, 8, 8, MRO_WIRE_OK },
	{ METAROCE_OP_SEND, F_FIRST | F_LAST, 0, 9, 8, MRO_WIRE_LENGTH },
	{ METAROCE_OP_SEND, F_FIRST | F_LAST, 0, 0, 0, MRO_WIRE_OK },
	/* READ_REQ: bytes [offset, offset + length) within 2^31, no wrap */
	{ METAROCE_OP_READ_REQ, 0, 4096, 4096, 0, MRO_WIRE_OK },
	{ METAROCE_OP_READ_REQ, 0, 0x7ffff000U, 0x1000, 0, MRO_WIRE_OK },
	{ METAROCE_OP_READ_REQ, 0, 0x7ffff001U, 0x1000, 0, MRO_WIRE_LENGTH },
	{ METAROCE_OP_READ_REQ, 0, 0x80000000U, 0, 0, MRO_WIRE_OK },
	{ METAROCE_OP_READ_REQ, 0, 0x80000001U, 0, 0, MRO_WIRE_LENGTH },
	{ METAROCE_OP_READ_REQ, 0, U32_MAX, 0x1000, 0, MRO_WIRE_LENGTH },
};

static const struct {
	u32 imm;
	enum mro_wire_err exp;
} read_seg[] = {
	{ 0, MRO_WIRE_LENGTH },
	{ 255, MRO_WIRE_LENGTH },
	{ 256, MRO_WIRE_OK },
	{ 4096, MRO_WIRE_OK },
	{ 65536, MRO_WIRE_OK },
	{ 65537, MRO_WIRE_LENGTH },
	{ U32_MAX, MRO_WIRE_LENGTH },
};

/* offset/length bounds of message packets */
static void wire_decode_msg_bounds_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	size_t len;
	int c;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (c = 0; c < ARRAY_SIZE(msg_cases); c++) {
		const struct msg_case *mc = &msg_cases[c];
		int i = known_opcode(mc->op);

		fill_hdr(&h, i, FILL_PATTERN);
		h.flags = mc->flags;
		if (mc->op == METAROCE_OP_READ_RESP) {
			/* no length: the payload ends within 2^31 bytes */
			h.rresp.offset = mc->offset;
		} else {
			h.msg.offset = mc->offset;
			h.msg.length = mc->length;
		}
		len = build_pkt(test, &h, mc->plen, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d), mc->exp,
				    "%s flags 0x%x offset 0x%x length 0x%x payload %u",
				    opcodes[i].name, mc->flags, mc->offset,
				    mc->length, mc->plen);
	}

	/* READ_REQ: imm is the response segment size, 256..65536 */
	for (c = 0; c < ARRAY_SIZE(read_seg); c++) {
		fill_hdr(&h, known_opcode(METAROCE_OP_READ_REQ), FILL_PATTERN);
		h.msg.imm = read_seg[c].imm;
		len = build_pkt(test, &h, 0, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
				    read_seg[c].exp, "READ_REQ segment size %u",
				    read_seg[c].imm);
	}
}

static void wire_decode_atomic_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	unsigned int k;
	size_t len;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		if (!is_atomic_op(opcodes[i].op))
			continue;
		for (k = 0; k < 8; k++) {
			fill_hdr(&h, i, FILL_PATTERN);
			h.atomic.va = 0x1000 + k;
			len = build_pkt(test, &h, 0, buf);
			KUNIT_ASSERT_NE(test, len, 0);
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
					    k ? MRO_WIRE_FIELD : MRO_WIRE_OK,
					    "%s va 0x%llx", opcodes[i].name,
					    h.atomic.va);
		}
	}
}

/* ATOMIC_WRITE carries no compare value; the other atomics may */
static void wire_decode_atomic_write_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	int i;
	size_t len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		if (!is_atomic_op(opcodes[i].op))
			continue;
		fill_hdr(&h, i, FILL_PATTERN);
		h.atomic.compare = 1;
		len = build_pkt(test, &h, 0, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
				    opcodes[i].op == METAROCE_OP_ATOMIC_WRITE ?
				    MRO_WIRE_FIELD : MRO_WIRE_OK,
				    "%s compare 1", opcodes[i].name);
	}
}

/* FLUSH: type is a non-empty set of known bits, level one of two, rsvd 0 */
static void wire_decode_flush_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	int fl = known_opcode(METAROCE_OP_FLUSH);
	const size_t type_at = METAROCE_BTH_LEN + 20;
	struct mro_hdr h, d;
	unsigned int v;
	size_t len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (v = 0; v < 256; v++) {
		fill_hdr(&h, fl, FILL_PATTERN);
		len = build_pkt(test, &h, 0, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		buf[type_at] = v;
		reseal(buf, len);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
				    v >= 1 && v <= 3 ? MRO_WIRE_OK : MRO_WIRE_FIELD,
				    "type %u", v);
		if (v >= 1 && v <= 3)
			KUNIT_EXPECT_EQ(test, d.flush.type, v);

		buf[type_at] = METAROCE_FLUSH_GLOBAL;
		buf[type_at + 1] = v;
		reseal(buf, len);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
				    v <= METAROCE_FLUSH_MR ? MRO_WIRE_OK : MRO_WIRE_FIELD,
				    "level %u", v);

		buf[type_at + 1] = METAROCE_FLUSH_RANGE;
		buf[type_at + 2 + (v & 1)] = v;
		reseal(buf, len);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
				    v ? MRO_WIRE_FIELD : MRO_WIRE_OK, "rsvd %u", v);
	}
	/* no payload */
	fill_hdr(&h, fl, FILL_PATTERN);
	len = build_pkt(test, &h, 4, buf);
	KUNIT_ASSERT_NE(test, len, 0);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_LENGTH);
}

static void wire_decode_ack_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	int ack = known_opcode(METAROCE_OP_ACK);
	struct mro_hdr h, d;
	unsigned int syn, nbits, bit;
	size_t len;

	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* every syndrome up to MAX decodes, anything above is refused */
	for (syn = 0; syn < 256; syn++) {
		fill_hdr(&h, ack, FILL_PATTERN);
		len = build_pkt(test, &h, 0, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		buf[METAROCE_BTH_LEN] = syn;
		reseal(buf, len);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
				    syn <= METAROCE_SYN_MAX ? MRO_WIRE_OK : MRO_WIRE_FIELD,
				    "syndrome %u", syn);
	}

	/* sack_bits bounds */
	fill_hdr(&h, ack, FILL_MAX);
	len = build_pkt(test, &h, 0, buf);
	KUNIT_ASSERT_NE(test, len, 0);
	wr_be16(METAROCE_SACK_BITS + 1, buf + METAROCE_BTH_LEN + 2);
	reseal(buf, len);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_FIELD);
	wr_be16(U16_MAX, buf + METAROCE_BTH_LEN + 2);
	reseal(buf, len);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_FIELD);

	/* rsvd must be 0: any byte of it set is refused */
	for (bit = 0; bit < 32; bit++) {
		fill_hdr(&h, ack, FILL_PATTERN);
		len = build_pkt(test, &h, 0, buf);
		wr_be32(BIT(bit), buf + METAROCE_BTH_LEN + 44);
		reseal(buf, len);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
				    MRO_WIRE_FIELD, "rsvd bit %u", bit);
	}

	/*
	 * For each sack_bits value n, SACK bit n-1 (if any) may be set, bit n
	 * may not.  Bit i lives in word i / 64, bit i % 64, big-endian.
	 */
	for (nbits = 0; nbits <= METAROCE_SACK_BITS; nbits++) {
		fill_hdr(&h, ack, FILL_PATTERN);
		h.ack.sack_bits = nbits;
		h.ack.sack[0] = 0;
		h.ack.sack[1] = 0;
		if (nbits)
			h.ack.sack[(nbits - 1) / 64] = BIT_ULL((nbits - 1) % 64);
		len = build_pkt(test, &h, 0, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		if (nbits) {
			/* byte position of bit nbits-1 in the big-endian words */
			unsigned int b = nbits - 1;
			size_t at = METAROCE_BTH_LEN + 16 + (b / 64) * 8 + 7 - (b % 64) / 8;

			KUNIT_EXPECT_EQ_MSG(test, buf[at], 1 << (b % 8),
					    "sack bit %u position", b);
		}
		memset(&d, 0, sizeof(d));
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d), MRO_WIRE_OK,
				    "sack_bits %u, top bit set", nbits);
		KUNIT_EXPECT_EQ(test, d.ack.sack[0], h.ack.sack[0]);
		KUNIT_EXPECT_EQ(test, d.ack.sack[1], h.ack.sack[1]);

		if (nbits < METAROCE_SACK_BITS) {
			/* set bit nbits on the wire: out of range */
			size_t at = METAROCE_BTH_LEN + 16 + (nbits / 64) * 8 +
				    7 - (nbits % 64) / 8;

			buf[at] |= 1 << (nbits % 8);
			reseal(buf, len);
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
					    MRO_WIRE_FIELD, "sack_bits %u, bit %u set",
					    nbits, nbits);
			/* and the highest bit of all */
			buf[at] &= ~(1 << (nbits % 8));
			buf[METAROCE_BTH_LEN + 16 + 8] |= 0x80;
			reseal(buf, len);
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
					    MRO_WIRE_FIELD, "sack_bits %u, bit 127 set",
					    nbits);
		}
	}
}

static void wire_decode_ctrl_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	unsigned int bit;
	size_t len;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		if (!is_ctrl_op(opcodes[i].op))
			continue;
		fill_hdr(&h, i, FILL_PATTERN);
		len = build_pkt(test, &h, 0, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		/* encode writes rsvd as 0 */
		KUNIT_EXPECT_EQ(test, rd_be32(buf + METAROCE_BTH_LEN + 8), 0);
		for (bit = 0; bit < 32; bit++) {
			wr_be32(BIT(bit), buf + METAROCE_BTH_LEN + 8);
			reseal(buf, len);
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
					    MRO_WIRE_FIELD, "%s rsvd bit %u",
					    opcodes[i].name, bit);
		}
	}
}

/*
 * NEW_PORT (a re-probe from a fresh port) is a PROBE's flag alone: it
 * round-trips on PROBE and is refused, both ways, on every other opcode.
 */
static void wire_new_port_flag_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	size_t len;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, METAROCE_F_NEW_PORT, 0x0040);
	KUNIT_EXPECT_EQ(test, METAROCE_F_ALL & METAROCE_F_NEW_PORT, 0);
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		bool probe = opcodes[i].op == METAROCE_OP_PROBE;
		size_t plen = fill_hdr(&h, i, FILL_PATTERN);

		h.flags |= METAROCE_F_NEW_PORT;
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_encode(&h, buf, BUF_LEN) != 0,
				    probe, "%s encode", opcodes[i].name);
		/* a packet without the flag, then the flag set on the wire */
		h.flags &= ~METAROCE_F_NEW_PORT;
		len = build_pkt(test, &h, plen, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		KUNIT_ASSERT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
				    MRO_WIRE_OK, "%s", opcodes[i].name);
		wr_be16(h.flags | METAROCE_F_NEW_PORT, buf + 2);
		reseal(buf, len);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, len, &d),
				    probe ? MRO_WIRE_OK : MRO_WIRE_FIELD,
				    "%s decode", opcodes[i].name);
		if (probe)
			KUNIT_EXPECT_EQ(test, d.flags,
					h.flags | METAROCE_F_NEW_PORT);
	}
}

/*
 * ACK_PIGGY: a request's piggybacked cumulative ACK, 4 bytes after the
 * extension counted in hdr_len.  It round-trips on every request (with
 * its payload intact behind it), cannot be encoded on anything else, and
 * a packet whose flag and hdr_len disagree is refused.
 */
static void wire_ack_piggy_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	size_t plen, base, n, j;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, METAROCE_F_ACK_PIGGY, 0x0080);
	KUNIT_EXPECT_EQ(test, METAROCE_F_ALL & METAROCE_F_ACK_PIGGY, 0);
	KUNIT_EXPECT_EQ(test, METAROCE_F_NEW_PORT & METAROCE_F_ACK_PIGGY, 0);
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		u8 op = opcodes[i].op;
		bool req = mro_wire_is_request(op);

		plen = fill_hdr(&h, i, FILL_PATTERN);
		base = METAROCE_BTH_LEN + mro_wire_ext_len(op);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_hdr_len(op, METAROCE_F_ACK_PIGGY),
				    (int)(req ? base + 4 : base), "%s",
				    opcodes[i].name);
		h.flags |= METAROCE_F_ACK_PIGGY;
		h.ack_psn = 0xa1b2c3d4;
		n = mro_wire_encode(&h, buf, BUF_LEN);
		if (!req) {
			KUNIT_EXPECT_EQ_MSG(test, n, 0, "%s", opcodes[i].name);
			continue;
		}
		KUNIT_ASSERT_EQ_MSG(test, n, base + 4, "%s", opcodes[i].name);
		KUNIT_EXPECT_EQ(test, h.hdr_len, base + 4);
		KUNIT_EXPECT_EQ(test, rd_be32(buf + base), 0xa1b2c3d4);
		KUNIT_EXPECT_EQ(test, rd_be32(buf + 18) >> 16, base + 4);
		for (j = 0; j < plen; j++)
			buf[n + j] = 0xc0 + j;
		mro_wire_seal(buf, n + plen);
		memset(&d, 0x5a, sizeof(d));
		KUNIT_ASSERT_EQ_MSG(test, mro_wire_decode(buf, n + plen + 4, &d),
				    MRO_WIRE_OK, "%s", opcodes[i].name);
		KUNIT_EXPECT_EQ(test, d.ack_psn, 0xa1b2c3d4);
		KUNIT_EXPECT_EQ(test, d.flags, h.flags);
		KUNIT_EXPECT_EQ(test, d.hdr_len, base + 4);
		KUNIT_EXPECT_EQ(test, d.payload_len, plen);
		for (j = 0; j < plen; j++)
			KUNIT_EXPECT_EQ(test, buf[d.hdr_len + j], 0xc0 + j);

		/* the flag cleared on the wire: hdr_len is 4 too long */
		wr_be16(h.flags & ~METAROCE_F_ACK_PIGGY, buf + 2);
		reseal(buf, n + plen + 4);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, n + plen + 4, &d),
				    MRO_WIRE_HDR_LEN, "%s", opcodes[i].name);

		/* a packet without it, the flag set on the wire: 4 short */
		h.flags &= ~METAROCE_F_ACK_PIGGY;
		n = mro_wire_encode(&h, buf, BUF_LEN);
		KUNIT_ASSERT_EQ(test, n, base);
		KUNIT_EXPECT_EQ(test, h.hdr_len, base);
		mro_wire_seal(buf, n + plen);
		KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, n + plen + 4, &d),
				MRO_WIRE_OK);
		KUNIT_EXPECT_EQ(test, d.ack_psn, 0);
		wr_be16(h.flags | METAROCE_F_ACK_PIGGY, buf + 2);
		reseal(buf, n + plen + 4);
		KUNIT_EXPECT_EQ_MSG(test, mro_wire_decode(buf, n + plen + 4, &d),
				    MRO_WIRE_HDR_LEN, "%s", opcodes[i].name);
	}
}

/* a single flipped bit anywhere, CRC included, is never accepted */
/*
 * A sealed datagram: the datagram seal extension follows the DETH (key id,
 * then the 56-bit nonce, big-endian) and counts in hdr_len; the decoder
 * takes it only with SEALED, refuses a key id or nonce of 0 and a sealed
 * datagram without it.  The trailer is the tag's, which it does not check.
 */
static void wire_sealed_datagram_test(struct kunit *test)
{
	static const u8 dseal[METAROCE_DSEAL_LEN] = {
		0x07, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	};
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	const size_t hlen = METAROCE_BTH_LEN + METAROCE_DETH_LEN +
			    METAROCE_DSEAL_LEN;
	const size_t len = hlen + 3 + METAROCE_SEAL_LEN;
	struct mro_hdr h, d;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, sizeof(struct metaroce_dseal), 8);
	KUNIT_EXPECT_EQ(test, mro_wire_hdr_len(METAROCE_OP_UD_SEND,
					       METAROCE_F_SEALED), 44);
	KUNIT_EXPECT_EQ(test, mro_wire_hdr_len(METAROCE_OP_SEND,
					       METAROCE_F_SEALED), 60);
	gold_ud_hdr(&h);
	h.flags |= METAROCE_F_SEALED;
	h.deth.key_id = 7;
	/* bits above the 56 are not the nonce's: never sent */
	h.deth.sender_nonce = 0xff01020304050607ULL;
	KUNIT_ASSERT_EQ(test, mro_wire_encode(&h, buf, BUF_LEN), hlen);
	KUNIT_EXPECT_EQ(test, rd_be16(buf + 18), hlen);
	KUNIT_EXPECT_MEMEQ(test, buf + METAROCE_BTH_LEN + METAROCE_DETH_LEN,
			   dseal, sizeof(dseal));
	memcpy(buf + hlen, "abc", 3);

	KUNIT_ASSERT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_OK);
	KUNIT_EXPECT_EQ(test, d.hdr_len, hlen);
	KUNIT_EXPECT_EQ(test, d.payload_len, 3);
	KUNIT_EXPECT_EQ(test, d.deth.qkey, h.deth.qkey);
	KUNIT_EXPECT_EQ(test, d.deth.imm, h.deth.imm);
	KUNIT_EXPECT_EQ(test, d.deth.key_id, 7);
	KUNIT_EXPECT_EQ(test, d.deth.sender_nonce, 0x01020304050607ULL);

	/* a key id or a nonce of 0 */
	buf[METAROCE_BTH_LEN + METAROCE_DETH_LEN] = 0;
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_FIELD);
	buf[METAROCE_BTH_LEN + METAROCE_DETH_LEN] = 7;
	memset(buf + METAROCE_BTH_LEN + METAROCE_DETH_LEN + 1, 0, 7);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_FIELD);
	buf[hlen - 1] = 1;	/* the nonce's lowest byte alone will do */
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_OK);
	KUNIT_EXPECT_EQ(test, d.deth.sender_nonce, 1);

	/* SEALED with the unsealed header length: no extension */
	wr_be16(METAROCE_BTH_LEN + METAROCE_DETH_LEN, buf + 18);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_HDR_LEN);
	/* the extension on an unsealed datagram */
	wr_be16(hlen, buf + 18);
	wr_be16(rd_be16(buf + 2) & ~METAROCE_F_SEALED, buf + 2);
	reseal(buf, len);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_HDR_LEN);
	/* HELLO is never sealed */
	KUNIT_EXPECT_FALSE(test, mro_wire_flags_valid(METAROCE_OP_HELLO) &
			   METAROCE_F_SEALED);
}

static void wire_crc_bitflip_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	size_t len, pos;
	unsigned int bit;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		size_t plen = opcodes[i].payload ? 13 : 0;

		fill_hdr(&h, i, FILL_PATTERN);
		if (is_msg_op(h.opcode)) {
			h.flags = 0;
			h.msg.offset = 0;
			h.msg.length = 4096;
		}
		len = build_pkt(test, &h, plen, buf);
		KUNIT_ASSERT_NE(test, len, 0);
		KUNIT_ASSERT_EQ_MSG(test, mro_wire_decode(buf, len, &d), MRO_WIRE_OK,
				    "%s", opcodes[i].name);

		for (pos = 0; pos < len; pos++) {
			for (bit = 0; bit < 8; bit++) {
				enum mro_wire_err err;

				buf[pos] ^= 1 << bit;
				err = mro_wire_decode(buf, len, &d);
				buf[pos] ^= 1 << bit;
				/*
				 * ver, opcode, hdr_len and the SEALED flag
				 * (which says whether a CRC or a tag ends the
				 * packet) are checked before the CRC;
				 * everything else must fail the CRC.
				 */
				if (pos < 2 || pos == 18 || pos == 19 ||
				    (pos == 2 && bit == 0))
					KUNIT_EXPECT_NE_MSG(test, err, MRO_WIRE_OK,
							    "%s byte %zu bit %u",
							    opcodes[i].name, pos, bit);
				else
					KUNIT_EXPECT_EQ_MSG(test, err, MRO_WIRE_CRC,
							    "%s byte %zu bit %u",
							    opcodes[i].name, pos, bit);
			}
		}
		/* the untouched packet still decodes */
		KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_OK);
	}
}

/* the CRC is big-endian on the wire: the byte-swapped CRC is refused */
static void wire_crc_byte_order_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mro_hdr h, d;
	size_t len;
	u32 crc;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	fill_hdr(&h, known_opcode(METAROCE_OP_ACK), FILL_PATTERN);
	len = build_pkt(test, &h, 0, buf);
	KUNIT_ASSERT_NE(test, len, 0);
	crc = mro_wire_crc(buf, len - METAROCE_CRC_LEN);
	KUNIT_EXPECT_EQ(test, rd_be32(buf + len - METAROCE_CRC_LEN), crc);
	wr_le32(crc, buf + len - METAROCE_CRC_LEN);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d),
			swab32(crc) == crc ? MRO_WIRE_OK : MRO_WIRE_CRC);
	/* the CRC of the payload-less packet must cover the whole header */
	wr_be32(crc, buf + len - METAROCE_CRC_LEN);
	KUNIT_EXPECT_EQ(test, mro_wire_decode(buf, len, &d), MRO_WIRE_OK);
}

/* payload per RC/UC packet: fills the netdev below twice the path MTU */
static void wire_rc_mtu_test(struct kunit *test)
{
	/* 1500-byte Ethernet MTU: 1388 bytes of room, path MTU 1024 */
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(1024, 1388, true), 1384U);
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(1024, 1388, false), 1024U);
	/* 9000: below twice 4096, in multiples of 8 */
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(4096, 8888, true), 8184U);
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(4096, 8888, false), 4096U);
	/* a path MTU set below the link's: stays below twice it */
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(256, 1388, true), 504U);
	/* a path MTU above what the netdev takes: the room, as before */
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(4096, 1388, true), 1388U);
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(4096, 1388, false), 1388U);
	/* room not a multiple of 8 and below the path MTU: never rounded */
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(1024, 1001, true), 1001U);
	/* exactly the room of a path MTU: no growth past it */
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(1024, 1024, true), 1024U);
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(1024, 1031, true), 1024U);
	/* a little more room: rounded down to 8 bytes */
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(1024, 1039, true), 1032U);
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(1024, 1088, true), 1088U);
	/* huge room: capped at twice the path MTU less one, rounded */
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(1024, U32_MAX, true), 2040U);
	KUNIT_EXPECT_EQ(test, mro_wire_rc_mtu(0x80000000U, U32_MAX, true),
			0x80000000U);
}

static struct kunit_case metaroce_wire_cases[] = {
	KUNIT_CASE(wire_layout_test),
	KUNIT_CASE(wire_opcode_table_test),
	KUNIT_CASE(wire_crc_vectors_test),
	KUNIT_CASE(wire_golden_decode_test),
	KUNIT_CASE(wire_golden_encode_test),
	KUNIT_CASE(wire_bth_bytes_test),
	KUNIT_CASE(wire_roundtrip_test),
	KUNIT_CASE(wire_encode_reject_test),
	KUNIT_CASE(wire_decode_short_test),
	KUNIT_CASE(wire_decode_version_test),
	KUNIT_CASE(wire_decode_opcode_test),
	KUNIT_CASE(wire_decode_hdr_len_test),
	KUNIT_CASE(wire_decode_bth_fields_test),
	KUNIT_CASE(wire_decode_payload_test),
	KUNIT_CASE(wire_decode_msg_bounds_test),
	KUNIT_CASE(wire_decode_atomic_test),
	KUNIT_CASE(wire_decode_atomic_write_test),
	KUNIT_CASE(wire_decode_flush_test),
	KUNIT_CASE(wire_decode_ack_test),
	KUNIT_CASE(wire_decode_ctrl_test),
	KUNIT_CASE(wire_new_port_flag_test),
	KUNIT_CASE(wire_ack_piggy_test),
	KUNIT_CASE(wire_sealed_datagram_test),
	KUNIT_CASE(wire_crc_bitflip_test),
	KUNIT_CASE(wire_crc_byte_order_test),
	KUNIT_CASE(wire_rc_mtu_test),
	{}
};

static struct kunit_suite metaroce_wire_suite = {
	.name = "metaroce_wire",
	.test_cases = metaroce_wire_cases,
};

kunit_test_suite(metaroce_wire_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests of the metaroce wire format");
MODULE_LICENSE("GPL");
