// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the opcode tables (mro_opcode.h): every row agrees with
 * the wire layer (extension length, payload, direction, flags, what the
 * encoder writes and the decoder takes), the rows agree with each other
 * (a responder resource only for RC requests, a receive WQE only for
 * what the responder places into one), and every send work request
 * becomes an opcode its QP types can carry.
 */
#include <kunit/test.h>
#include <rdma/ib_verbs.h>

#include "mro_opcode.h"
#include "mro_wire.h"

#define OPC_BUF		256

/* the length of each extension header, from the uapi header's sizes */
static const u8 ext_lens[] = {
	[MRO_EXT_NONE] = 0,
	[MRO_EXT_MSG] = METAROCE_MSG_LEN,
	[MRO_EXT_ATOMIC] = METAROCE_ATOMIC_LEN,
	[MRO_EXT_FLUSH] = METAROCE_FLUSH_LEN,
	[MRO_EXT_READ_RESP] = METAROCE_READ_RESP_LEN,
	[MRO_EXT_ATOMIC_RESP] = METAROCE_ATOMIC_RESP_LEN,
	[MRO_EXT_ACK] = METAROCE_ACK_LEN,
	[MRO_EXT_DETH] = METAROCE_DETH_LEN,
	[MRO_EXT_CTRL] = METAROCE_CTRL_LEN,
	[MRO_EXT_HELLO] = METAROCE_HELLO_LEN,
};

/* each of the 256 values of bth.opcode: the row says what the decoder does */
static void opcode_rows_are_the_wire(struct kunit *test)
{
	int op;

	for (op = 0; op < 256; op++) {
		const struct mro_opinfo *o = mro_op(op);

		if (mro_wire_ext_len(op) < 0) {
			KUNIT_EXPECT_EQ_MSG(test, o->mask, 0, "0x%02x", op);
			KUNIT_EXPECT_EQ_MSG(test, o->ext, MRO_EXT_NONE,
					    "0x%02x", op);
			KUNIT_EXPECT_EQ_MSG(test, o->rx, MRO_OPRX_NONE,
					    "0x%02x", op);
			continue;
		}
		KUNIT_EXPECT_NE_MSG(test, o->mask, 0, "0x%02x", op);
		KUNIT_EXPECT_NOT_NULL_MSG(test, o->name, "0x%02x", op);
		KUNIT_EXPECT_EQ_MSG(test, o->ext_len, mro_wire_ext_len(op),
				    "0x%02x", op);
		KUNIT_ASSERT_LT(test, o->ext, ARRAY_SIZE(ext_lens));
		KUNIT_EXPECT_EQ_MSG(test, o->ext_len, ext_lens[o->ext],
				    "0x%02x", op);
		KUNIT_EXPECT_EQ_MSG(test, !!(o->mask & MRO_OPM_PAYLOAD),
				    mro_wire_has_payload(op), "0x%02x", op);
		KUNIT_EXPECT_EQ_MSG(test, !!(o->mask & MRO_OPM_REQUEST),
				    mro_wire_is_request(op), "0x%02x", op);
		KUNIT_EXPECT_EQ_MSG(test, o->flags, mro_wire_flags_valid(op),
				    "0x%02x", op);
	}
}

/* a header of @op that the encoder takes */
static void opc_fill(struct mro_hdr *h, u8 op, u16 flags)
{
	memset(h, 0, sizeof(*h));
	h->opcode = op;
	h->flags = flags;
	h->dqpn = 0x12;
	h->sqpn = 0x34;
	if (op == METAROCE_OP_HELLO)
		h->hello.nonce = 1;
	if (mro_op(op)->ext == MRO_EXT_ATOMIC)
		h->atomic.va = 0x1000;
	if (mro_op(op)->ext == MRO_EXT_FLUSH)
		h->flush.type = METAROCE_FLUSH_GLOBAL;
	if (op == METAROCE_OP_READ_REQ) {
		h->msg.length = 4096;
		h->msg.imm = 1024;
	}
}

/* what the encoder writes is the row's header, and the decoder takes it */
static void opcode_encoder_writes_the_row(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, OPC_BUF, GFP_KERNEL);
	struct mro_hdr h, d;
	int op, piggy;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (op = 0; op < MRO_NR_OPCODES; op++) {
		const struct mro_opinfo *o = mro_op(op);

		for (piggy = 0; piggy <= 1; piggy++) {
			u16 flags = piggy ? METAROCE_F_ACK_PIGGY : 0;
			size_t n, want;

			if (!o->mask)
				continue;
			opc_fill(&h, op, flags);
			n = mro_wire_encode(&h, buf, OPC_BUF);
			if (piggy && !(o->flags & METAROCE_F_ACK_PIGGY)) {
				KUNIT_EXPECT_EQ_MSG(test, n, 0, "0x%02x", op);
				continue;
			}
			want = METAROCE_BTH_LEN + o->ext_len +
			       (piggy ? METAROCE_ACK_PIGGY_LEN : 0);
			KUNIT_EXPECT_EQ_MSG(test, n, want, "0x%02x", op);
			KUNIT_EXPECT_EQ_MSG(test, mro_wire_hdr_len(op, flags),
					    (int)want, "0x%02x", op);
			if (n != want)
				continue;
			mro_wire_seal(buf, n);
			KUNIT_EXPECT_EQ_MSG(test,
					    mro_wire_decode(buf,
							    n + METAROCE_CRC_LEN,
							    &d),
					    MRO_WIRE_OK, "0x%02x", op);
			KUNIT_EXPECT_EQ_MSG(test, d.hdr_len, want,
					    "0x%02x", op);
		}
	}
}

static bool opc_one_bit(u16 v)
{
	return v && !(v & (v - 1));
}

/* the facts of a row agree with each other */
static void opcode_rows_agree(struct kunit *test)
{
	int op;

	for (op = 1; op < MRO_NR_OPCODES; op++) {
		const struct mro_opinfo *o = mro_op(op);
		u16 m = o->mask;

		if (!m)
			continue;
		KUNIT_EXPECT_TRUE_MSG(test, opc_one_bit(m & MRO_OPM_KIND),
				      "%s", o->name);
		KUNIT_EXPECT_NE_MSG(test, o->rx, MRO_OPRX_NONE, "%s", o->name);
		/* a responder resource: an RC request without payload */
		if (m & MRO_OPM_RESPRES) {
			KUNIT_EXPECT_TRUE_MSG(test, m & MRO_OPM_REQUEST,
					      "%s", o->name);
			KUNIT_EXPECT_TRUE_MSG(test, m & MRO_OPM_RC_ONLY,
					      "%s", o->name);
			KUNIT_EXPECT_FALSE_MSG(test, m & MRO_OPM_PAYLOAD,
					       "%s", o->name);
		}
		/* a request is placed into a WQE, at an address, or ordered */
		if (m & MRO_OPM_REQUEST)
			KUNIT_EXPECT_EQ_MSG(test, o->rx == MRO_OPRX_MSG ||
					    o->rx == MRO_OPRX_WRITE,
					    !(m & MRO_OPM_RESPRES),
					    "%s", o->name);
		KUNIT_EXPECT_EQ_MSG(test, o->rx == MRO_OPRX_MSG,
				    (m & (MRO_OPM_REQUEST | MRO_OPM_RWQE)) ==
				    (MRO_OPM_REQUEST | MRO_OPM_RWQE),
				    "%s", o->name);
		KUNIT_EXPECT_EQ_MSG(test, o->rx == MRO_OPRX_UD,
				    !!(m & MRO_OPM_DATAGRAM), "%s", o->name);
		/* what consumes a receive WQE carries the data it gets */
		if (m & MRO_OPM_RWQE)
			KUNIT_EXPECT_TRUE_MSG(test, m & MRO_OPM_PAYLOAD,
					      "%s", o->name);
		if (m & (MRO_OPM_IMM | MRO_OPM_INV))
			KUNIT_EXPECT_TRUE_MSG(test, m & MRO_OPM_RWQE,
					      "%s", o->name);
		KUNIT_EXPECT_FALSE_MSG(test, (m & MRO_OPM_IMM) &&
				       (m & MRO_OPM_INV), "%s", o->name);
		if (m & MRO_OPM_INV)
			KUNIT_EXPECT_TRUE_MSG(test, m & MRO_OPM_RC_ONLY,
					      "%s", o->name);
		if (m & MRO_OPM_RDMA)
			KUNIT_EXPECT_EQ_MSG(test, o->ext, MRO_EXT_MSG,
					    "%s", o->name);
		/* an answer other than an ACK is a response */
		if (o->resp) {
			KUNIT_EXPECT_TRUE_MSG(test, m & MRO_OPM_RESPRES,
					      "%s", o->name);
			KUNIT_EXPECT_TRUE_MSG(test,
					      mro_op_is(o->resp,
							MRO_OPM_RESPONSE),
					      "%s", o->name);
		}
		/* only requests piggyback an ACK; all but HELLO are sealed */
		KUNIT_EXPECT_EQ_MSG(test, !!(o->flags & METAROCE_F_ACK_PIGGY),
				    !!(m & MRO_OPM_REQUEST), "%s", o->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(o->flags & METAROCE_F_SEALED),
				    o->rx != MRO_OPRX_HELLO, "%s", o->name);
	}
	/* past the last row: the unknown row */
	KUNIT_EXPECT_PTR_EQ(test, mro_op(MRO_NR_OPCODES), mro_op(0));
	KUNIT_EXPECT_PTR_EQ(test, mro_op(0xff), mro_op(0));
}

/* every send work request becomes an opcode its QP types can carry */
static void opcode_wr_rows(struct kunit *test)
{
	u32 wr;

	for (wr = 0; wr <= 0x100; wr++) {
		const struct mro_wrinfo *w = mro_wr(wr);
		const struct mro_opinfo *o = mro_op(w->op);

		if (!(w->flags & MRO_WRF_VALID)) {
			KUNIT_EXPECT_EQ_MSG(test, w->op, 0, "wr %u", wr);
			KUNIT_EXPECT_EQ_MSG(test, w->ud_op, 0, "wr %u", wr);
			KUNIT_EXPECT_EQ_MSG(test, w->flags, 0, "wr %u", wr);
			KUNIT_EXPECT_EQ_MSG(test, w->wc, IB_WC_SEND,
					    "wr %u", wr);
			continue;
		}
		KUNIT_EXPECT_FALSE_MSG(test, (w->flags & MRO_WRF_KERNEL) &&
				       (w->flags & MRO_WRF_USER), "wr %u", wr);
		if (w->flags & MRO_WRF_LOCAL) {
			KUNIT_EXPECT_EQ_MSG(test, w->op, 0, "wr %u", wr);
			KUNIT_EXPECT_EQ_MSG(test, w->ud_op, 0, "wr %u", wr);
			continue;
		}
		KUNIT_EXPECT_TRUE_MSG(test, o->mask & MRO_OPM_REQUEST,
				      "wr %u", wr);
		if (w->ud_op) {
			const struct mro_opinfo *u = mro_op(w->ud_op);

			KUNIT_EXPECT_TRUE_MSG(test, u->mask & MRO_OPM_DATAGRAM,
					      "wr %u", wr);
			/* the same message, on a connection or not */
			KUNIT_EXPECT_EQ_MSG(test, u->mask & MRO_OPM_IMM,
					    o->mask & MRO_OPM_IMM, "wr %u", wr);
			KUNIT_EXPECT_TRUE_MSG(test, o->mask & MRO_OPM_RWQE,
					      "wr %u", wr);
		}
	}
	KUNIT_EXPECT_EQ(test, mro_wr(IB_WR_RDMA_READ)->op,
			METAROCE_OP_READ_REQ);
	KUNIT_EXPECT_EQ(test, mro_wr(IB_WR_RDMA_READ)->wc, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, mro_wr(IB_WR_SEND_WITH_IMM)->ud_op,
			METAROCE_OP_UD_SEND_IMM);
	KUNIT_EXPECT_TRUE(test, mro_wr(IB_WR_REG_MR)->flags & MRO_WRF_KERNEL);
	KUNIT_EXPECT_EQ(test, mro_wr(U32_MAX)->flags, 0);
}

static struct kunit_case metaroce_opcode_cases[] = {
	KUNIT_CASE(opcode_rows_are_the_wire),
	KUNIT_CASE(opcode_encoder_writes_the_row),
	KUNIT_CASE(opcode_rows_agree),
	KUNIT_CASE(opcode_wr_rows),
	{}
};

static struct kunit_suite metaroce_opcode_suite = {
	.name = "metaroce_opcode",
	.test_cases = metaroce_opcode_cases,
};

kunit_test_suite(metaroce_opcode_suite);
