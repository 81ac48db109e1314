// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of metaroce's engine verdicts on a QP of their own (no
 * device, no packets sent): the job the requester's RTO timer names
 * (mro_rto_job()) and the responder's acceptance stage
 * (mro_resp_accept()).  They need the driver built in (run.sh leaves
 * this file out of a stand-in build).
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "mro_qp.h"
#include "mro_rto.h"

#define ENGINE_WIN	64

static struct mro_qp *engine_qp(struct kunit *test, enum ib_qp_type type)
{
	struct mro_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	spin_lock_init(&qp->lock);
	qp->ibqp.qp_type = type;
	qp->state = IB_QPS_RTS;
	qp->retry_cnt = 7;
	qp->req.win = ENGINE_WIN;
	qp->req.slot = kunit_kcalloc(test, ENGINE_WIN, sizeof(*qp->req.slot),
				     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->req.slot);
	qp->req.rto = ns_to_ktime(10 * NSEC_PER_MSEC);
	qp->req.rto_us = 10000;
	qp->req.retry_left = 7;
	KUNIT_ASSERT_EQ(test, mro_rxwin_init(&qp->resp.win, ENGINE_WIN, 1000,
					     GFP_KERNEL), 0);
	return qp;
}

static void engine_qp_free(struct mro_qp *qp)
{
	mro_rxwin_free(&qp->resp.win);
}

/* PSNs [una, una + n) out, all sent @age_us ago, the first asking */
static void engine_out(struct mro_qp *qp, u32 una, u32 n, u32 age_us)
{
	u32 psn;

	qp->req.una = una;
	qp->req.nxt = una + n;
	for (psn = una; psn != una + n; psn++) {
		struct mro_txslot *t = &qp->req.slot[psn & (ENGINE_WIN - 1)];

		t->state = MRO_TX_SENT;
		t->sent_us = mro_now_us() - age_us;
		t->asked = psn == una;
	}
}

static enum mro_rto_job engine_job(struct mro_qp *qp, u32 *left)
{
	enum mro_rto_job job;

	*left = 0;
	spin_lock_bh(&qp->lock);
	job = mro_rto_job(qp, left);
	spin_unlock_bh(&qp->lock);
	return job;
}

static void engine_rto_job(struct kunit *test)
{
	struct mro_qp *qp = engine_qp(test, IB_QPT_RC);
	struct mro_conn_prot unkeyed = {};
	u32 left;

	/* nothing out */
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_NONE);
	/* out, but the QP left RTS/SQD */
	engine_out(qp, 5, 4, 1000000);
	qp->state = IB_QPS_ERR;
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_NONE);
	qp->state = IB_QPS_SQD;
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_EXPIRE);
	qp->state = IB_QPS_RTS;
	/* a protected connection without keys retries its HELLO first */
	qp->prot = &unkeyed;
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_UNKEYED);
	unkeyed.keyed = true;
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_EXPIRE);
	qp->prot = NULL;
	/* an RNR wait is no timeout, whatever else holds */
	qp->req.rnr_wait = true;
	qp->req.pto_armed = true;
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_RNR_WAIT);
	qp->req.rnr_wait = false;
	/* the armed tail-loss probe, even with the oldest just sent */
	engine_out(qp, 5, 4, 0);
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_TLP);
	qp->req.pto_armed = false;
	/* early: the asked-for ACK is not due; the wait is what is left */
	engine_out(qp, 5, 4, 4000);
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_EARLY);
	KUNIT_EXPECT_GT(test, left, 5000U);
	KUNIT_EXPECT_LE(test, left, 6000U);
	/* ... counted with the backoff */
	qp->req.backoff = 1;
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_EARLY);
	KUNIT_EXPECT_GT(test, left, 15000U);
	qp->req.backoff = 0;
	/* no packet asks before one that is acked: not early */
	qp->req.slot[5 & (ENGINE_WIN - 1)].asked = false;
	qp->req.slot[6 & (ENGINE_WIN - 1)].state = MRO_TX_ACKED;
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_EXPIRE);
	/* due: the timeout proper while retries are left */
	engine_out(qp, 5, 4, 20000);
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_EXPIRE);
	/* none left, but the stall is younger than (retry_cnt + 1) timeouts */
	qp->req.retry_left = 0;
	qp->req.stall_us = mro_now_us() - 20000;
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_EXPIRE);
	/* ... and older */
	qp->req.stall_us = mro_now_us() - 81000;
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_EXHAUSTED);
	/* across the PSN wrap */
	qp->req.retry_left = 3;
	engine_out(qp, U32_MAX - 1, 4, 4000);
	KUNIT_EXPECT_EQ(test, engine_job(qp, &left), MRO_RTO_EARLY);
	engine_qp_free(qp);
}

static enum mro_rx_verdict engine_accept(struct mro_qp *qp, u8 opcode,
					 u32 psn, enum mro_rx_class *cls)
{
	struct mro_hdr hdr = { .opcode = opcode, .psn = psn };
	enum mro_rx_verdict v;

	spin_lock_bh(&qp->lock);
	v = mro_resp_accept(qp, &hdr, cls);
	spin_unlock_bh(&qp->lock);
	return v;
}

/* the receive window's state, to show a refused packet changed nothing */
static void engine_win_copy(struct mro_qp *qp, u32 *base, unsigned long *bits)
{
	*base = qp->resp.win.base;
	bitmap_copy(bits, qp->resp.win.bits, ENGINE_WIN);
}

static void engine_resp_accept(struct kunit *test)
{
	struct mro_qp *qp = engine_qp(test, IB_QPT_RC);
	DECLARE_BITMAP(bits, ENGINE_WIN);
	DECLARE_BITMAP(bits2, ENGINE_WIN);
	enum mro_rx_class cls;
	u32 base, base2;

	/* new: the window's base and what lies inside the window */
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_SEND, 1000, &cls),
			MRO_RXV_OK);
	KUNIT_EXPECT_EQ(test, cls, MRO_RX_NEW);
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_WRITE, 1063, &cls),
			MRO_RXV_OK);
	KUNIT_EXPECT_EQ(test, cls, MRO_RX_NEW);
	/* a PSN placed before is a duplicate, and so is one behind the base */
	mro_rxwin_mark(&qp->resp.win, 1000);
	mro_rxwin_mark(&qp->resp.win, 1005);
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_SEND, 1005, &cls),
			MRO_RXV_OK);
	KUNIT_EXPECT_EQ(test, cls, MRO_RX_DUP);
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_READ_REQ, 1000,
					    &cls), MRO_RXV_OK);
	KUNIT_EXPECT_EQ(test, cls, MRO_RX_DUP);
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_SEND, 1001, &cls),
			MRO_RXV_OK);
	KUNIT_EXPECT_EQ(test, cls, MRO_RX_NEW);

	/* refused, and nothing changed: ahead of the window */
	engine_win_copy(qp, &base, bits);
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_SEND,
					    1001 + ENGINE_WIN, &cls),
			MRO_RXV_WINDOW);
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_WRITE,
					    1000 + (1U << 31), &cls),
			MRO_RXV_WINDOW);
	/* ... in a state that takes no request */
	qp->state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_SEND, 1001, &cls),
			MRO_RXV_QP_STATE);
	qp->state = IB_QPS_ERR;
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_SEND, 1001, &cls),
			MRO_RXV_QP_STATE);
	/* RTR takes requests (the responder is up before the requester) */
	qp->state = IB_QPS_RTR;
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_SEND, 1001, &cls),
			MRO_RXV_OK);
	engine_win_copy(qp, &base2, bits2);
	KUNIT_EXPECT_EQ(test, base2, base);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(bits, bits2, ENGINE_WIN));
	engine_qp_free(qp);

	/* a UC QP refuses what only RC carries, before its window moves */
	qp = engine_qp(test, IB_QPT_UC);
	engine_win_copy(qp, &base, bits);
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_READ_REQ, 1000,
					    &cls), MRO_RXV_QP_MISMATCH);
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_FETCH_ADD, 1000,
					    &cls), MRO_RXV_QP_MISMATCH);
	KUNIT_EXPECT_EQ(test, engine_accept(qp, METAROCE_OP_SEND_INV, 1000,
					    &cls), MRO_RXV_QP_MISMATCH);
	engine_win_copy(qp, &base2, bits2);
	KUNIT_EXPECT_EQ(test, base2, base);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(bits, bits2, ENGINE_WIN));
	engine_qp_free(qp);
}

static struct kunit_case metaroce_engine_cases[] = {
	KUNIT_CASE(engine_rto_job),
	KUNIT_CASE(engine_resp_accept),
	{}
};

static struct kunit_suite metaroce_engine_suite = {
	.name = "metaroce_engine",
	.test_cases = metaroce_engine_cases,
};

kunit_test_suite(metaroce_engine_suite);
