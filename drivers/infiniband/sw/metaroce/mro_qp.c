// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce QP verbs: create, modify (the IB state machine), query, destroy,
 * kernel post_send/post_recv, error and flush.
 */
#include <linux/capability.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "mro_qp.h"
#include "mro_sched.h"
#include "mro_trace.h"

static void mro_qp_post_work(struct work_struct *work);

unsigned int mro_npaths = 8;
module_param_named(paths, mro_npaths, uint, 0644);
MODULE_PARM_DESC(paths, "paths (UDP source ports) per RC/UC QP, 1-64 (default 8)");

unsigned int mro_txwin = 512;
module_param_named(window, mro_txwin, uint, 0444);
MODULE_PARM_DESC(window, "PSNs in flight per QP, power of two 64-16384 (default 512)");

static bool mro_mtu_fill = true;
module_param_named(mtu_fill, mro_mtu_fill, bool, 0644);
MODULE_PARM_DESC(mtu_fill, "RC/UC packets fill the netdev MTU, below twice the path MTU (default Y)");

struct mro_qp *mro_qp_get(struct mro_dev *dev, u32 qpn)
{
	struct mro_qp *qp;

	rcu_read_lock();
	qp = xa_load(&dev->qps, qpn);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

static void mro_qp_release(struct kref *ref)
{
	complete(&container_of(ref, struct mro_qp, ref)->released);
}

void mro_qp_put(struct mro_qp *qp)
{
	kref_put(&qp->ref, mro_qp_release);
}

static int mro_qp_check_cap(struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;

	if (cap->max_send_wr > MRO_MAX_QP_WR ||
	    cap->max_send_sge > MRO_MAX_SGE ||
	    cap->max_inline_data > MRO_MAX_INLINE_DATA)
		return -EINVAL;
	if (!init->srq && (cap->max_recv_wr > MRO_MAX_QP_WR ||
			   cap->max_recv_sge > MRO_MAX_RECV_SGE))
		return -EINVAL;
	return 0;
}

static int mro_qp_alloc_sq(struct mro_qp *qp, struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 room, num = max_t(u32, cap->max_send_wr, 1);

	room = max_t(u32, cap->max_send_sge * sizeof(struct rxe_sge),
		     cap->max_inline_data);
	room = max_t(u32, room, sizeof(struct rxe_sge));
	qp->sq = mro_queue_alloc(qp->dev, &num,
				 sizeof(struct rxe_send_wqe) + room,
				 MRO_Q_USER_PRODUCES);
	if (!qp->sq)
		return -ENOMEM;
	qp->sq_max_sge = min_t(u32, room / sizeof(struct rxe_sge),
			       MRO_MAX_SGE);
	qp->sq_max_inline = min_t(u32, room, MRO_MAX_INLINE_DATA);
	cap->max_send_wr = num;
	cap->max_send_sge = qp->sq_max_sge;
	cap->max_inline_data = qp->sq_max_inline;
	qp->swqe = kvcalloc(qp->sq->index_mask + 1, sizeof(*qp->swqe),
			    GFP_KERNEL_ACCOUNT);
	qp->swqe_sge = kvcalloc((qp->sq->index_mask + 1) * qp->sq_max_sge,
				sizeof(*qp->swqe_sge), GFP_KERNEL_ACCOUNT);
	if (!qp->swqe || !qp->swqe_sge)
		return -ENOMEM;
	/* only datagram WQEs carry an address: 56 bytes per slot */
	if (init->qp_type == IB_QPT_UD || init->qp_type == IB_QPT_GSI) {
		qp->swqe_av = kvcalloc(qp->sq->index_mask + 1,
				       sizeof(*qp->swqe_av), GFP_KERNEL_ACCOUNT);
		if (!qp->swqe_av)
			return -ENOMEM;
	}
	return 0;
}

static int mro_qp_alloc_rq(struct mro_qp *qp, struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 num = max_t(u32, cap->max_recv_wr, 1);
	u32 sge = max_t(u32, cap->max_recv_sge, 1);

	if (init->srq) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
		return 0;
	}
	qp->rq = mro_queue_alloc(qp->dev, &num,
				 sizeof(struct rxe_recv_wqe) +
				 sge * sizeof(struct rxe_sge),
				 MRO_Q_USER_PRODUCES);
	if (!qp->rq)
		return -ENOMEM;
	qp->rq_max_sge = sge;
	cap->max_recv_wr = num;
	cap->max_recv_sge = sge;
	return 0;
}

static int mro_qp_alloc_transport(struct mro_qp *qp)
{
	u32 win = mro_dev_window(qp->dev);
	u16 npaths = mro_dev_npaths(qp->dev);
	int err;

	qp->req.win = win;
	qp->req.slot = kvcalloc(win, sizeof(*qp->req.slot), GFP_KERNEL_ACCOUNT);
	if (!qp->req.slot)
		return -ENOMEM;
	err = mro_rxwin_init(&qp->resp.win, win, 0, GFP_KERNEL_ACCOUNT);
	if (err)
		return err;
	qp->resp.nmsg = METAROCE_MSG_WINDOW;
	qp->resp.rmsg = kvcalloc(qp->resp.nmsg, sizeof(*qp->resp.rmsg), GFP_KERNEL_ACCOUNT);
	if (!qp->resp.rmsg)
		return -ENOMEM;
	/* SGEs as many as a receive WQE of this QP can have, not the most */
	qp->resp.rmsg_max_sge = max_t(u32, 1, qp->srq ? qp->srq->max_sge :
					      qp->rq_max_sge);
	qp->resp.rmsg_sge = kvcalloc(qp->resp.nmsg * qp->resp.rmsg_max_sge,
				     sizeof(*qp->resp.rmsg_sge),
				     GFP_KERNEL_ACCOUNT);
	if (!qp->resp.rmsg_sge)
		return -ENOMEM;
	qp->resp.ares = kcalloc(MRO_MAX_RD_ATOM, sizeof(*qp->resp.ares), GFP_KERNEL_ACCOUNT);
	if (!qp->resp.ares)
		return -ENOMEM;
	qp->resp.rres = kcalloc(MRO_MAX_RD_ATOM, sizeof(*qp->resp.rres), GFP_KERNEL_ACCOUNT);
	if (!qp->resp.rres)
		return -ENOMEM;
	qp->resp.pend = kcalloc(MRO_NPEND, sizeof(*qp->resp.pend), GFP_KERNEL_ACCOUNT);
	if (!qp->resp.pend)
		return -ENOMEM;
	if (mro_qp_is_ud(qp))
		npaths = 1;
	qp->req.ts_off = get_random_u32();
	err = mro_paths_init(&qp->paths, npaths, get_random_u32(),
			     GFP_KERNEL_ACCOUNT);
	if (err)
		return err;
	mro_paths_seed_seqs(&qp->paths);
	mro_paths_set_sched(&qp->paths, mro_dev_sched_get(qp->dev));
	return mro_routes_init(qp);
}

static void mro_qp_free_all(struct mro_qp *qp)
{
	mro_routes_free(qp);
	mro_paths_free(&qp->paths);
	kfree(qp->resp.pend);
	kfree(qp->resp.rres);
	kfree(qp->resp.ares);
	kvfree(qp->resp.rmsg_sge);
	kvfree(qp->resp.rmsg);
	mro_rxwin_free(&qp->resp.win);
	kvfree(qp->req.slot);
	kvfree(qp->swqe_av);
	kvfree(qp->swqe_sge);
	kvfree(qp->swqe);
	if (qp->rq)
		mro_queue_free(qp->rq);
	if (qp->sq)
		mro_queue_free(qp->sq);
	qp->rq = NULL;
	qp->sq = NULL;
}

int mro_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct mro_dev *dev = to_mro_dev(ibqp->device);
	struct mro_qp *qp = to_mro_qp(ibqp);
	struct rxe_create_qp_resp resp = {};
	u32 qpn;
	int err;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		if (udata)
			return -EOPNOTSUPP;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (udata && udata->inlen)
		return -EINVAL;
	err = mro_qp_check_cap(init);
	if (err)
		return err;
	err = mro_obj_charge(dev, MRO_OBJ_QP);
	if (err)
		return err;

	qp->dev = dev;
	qp->is_user = !!udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	kref_init(&qp->ref);
	init_completion(&qp->released);
	mutex_init(&qp->modify_lock);
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	qp->state = IB_QPS_RESET;
	qp->scq = to_mro_cq(init->send_cq);
	qp->rcq = to_mro_cq(init->recv_cq);
	if (init->srq)
		qp->srq = to_mro_srq(init->srq);
	qp->path_mtu = IB_MTU_1024;
	qp->mtu = 1024;
	hrtimer_init(&qp->req.rto_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->req.rto_timer.function = mro_req_rto;
	hrtimer_init(&qp->req.rnr_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->req.rnr_timer.function = mro_req_rnr;
	hrtimer_init(&qp->req.reo_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->req.reo_timer.function = mro_req_reo;
	hrtimer_init(&qp->probe_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->probe_timer.function = mro_pm_probe_timer;
	INIT_WORK(&qp->tx_work, mro_req_tx_work);
	INIT_WORK(&qp->post_work, mro_qp_post_work);
	mro_cc_qp_create(qp);
	__skb_queue_head_init(&qp->txq);

	err = mro_qp_alloc_sq(qp, init);
	if (!err)
		err = mro_qp_alloc_rq(qp, init);
	if (!err)
		err = mro_qp_alloc_transport(qp);
	if (err)
		goto err_free;

	if (init->qp_type == IB_QPT_GSI) {
		qpn = 1;
		err = xa_insert(&dev->qps, qpn, XA_ZERO_ENTRY, GFP_KERNEL);
	} else {
		/* QPN 0xffffff is the multicast QPN */
		err = mro_xa_alloc_random(&dev->qps, &qpn, XA_ZERO_ENTRY,
					  MRO_QPN_MIN, METAROCE_QPN_MASK - 1);
	}
	if (err < 0)
		goto err_free;
	qp->qpn = qpn;
	ibqp->qp_num = qpn;

	if (udata) {
		err = mro_queue_publish(qp->sq, udata, &resp.sq_mi);
		if (!err && qp->rq)
			err = mro_queue_publish(qp->rq, udata, &resp.rq_mi);
		if (!err && udata->outlen < sizeof(resp))
			err = -EINVAL;
		if (!err)
			err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_xa;
	}
	xa_store(&dev->qps, qpn, qp, GFP_KERNEL);
	return 0;

err_xa:
	xa_erase(&dev->qps, qpn);
err_free:
	mro_qp_free_all(qp);
	mro_obj_uncharge(dev, MRO_OBJ_QP);
	return err;
}

/* IB encoded ACK timeout 4.096 us * 2^t; 0 means infinite, floor 1 ms */
static ktime_t mro_timeout_to_ktime(u8 t)
{
	u64 ns;

	if (!t)
		return ms_to_ktime(1000);
	ns = 4096ULL << min_t(u8, t, 31);
	return ns_to_ktime(max_t(u64, ns, NSEC_PER_MSEC));
}

/*
 * The SRQ WQEs that messages in progress took out of the shared queue
 * belong to no ring of this QP: complete them with WR_FLUSH_ERR, in
 * message order, or they are lost to the consumer (IB flushes receive
 * WQEs a QP dequeued from its SRQ when the QP leaves service).
 */
static void mro_qp_flush_srq_claims(struct mro_qp *qp)
{
	struct ib_wc wc;
	u32 k;

	lockdep_assert_held(&qp->lock);
	if (!qp->srq)
		return;
	for (k = 0; k < qp->resp.nmsg; k++) {
		struct mro_rmsg *m = &qp->resp.rmsg[(qp->resp.msn + k) &
					       (qp->resp.nmsg - 1)];

		if (m->state == MRO_RMSG_FREE)
			continue;
		m->state = MRO_RMSG_FREE;
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = m->wr_id;
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.opcode = IB_WC_RECV;
		wc.qp = &qp->ibqp;
		mro_qp_count(qp, MRO_CNT_SRQ_FLUSHED, 1);
		if (mro_cq_post(qp->rcq, &wc, false))
			break;
	}
}

static void mro_qp_reset_transport(struct mro_qp *qp)
{
	u32 i;

	lockdep_assert_held(&qp->lock);
	mro_qp_flush_srq_claims(qp);
	__skb_queue_purge(&qp->txq);	/* built for the connection that ends */

	qp->sq_head = mro_queue_consumer(qp->sq);
	qp->sq_cur_valid = false;
	qp->last_wqe_sent = false;
	qp->req.lost = 0;
	qp->req.rd_atomic_inflight = 0;
	qp->req.rnr_wait = false;
	qp->req.backoff = 0;
	qp->resp.ack_pending = 0;
	memset(&qp->hello, 0, sizeof(qp->hello));
	memset(qp->req.slot, 0, qp->req.win * sizeof(*qp->req.slot));
	for (i = 0; i < qp->resp.nmsg; i++)
		qp->resp.rmsg[i].state = MRO_RMSG_FREE;
	for (i = 0; i < MRO_MAX_RD_ATOM; i++) {
		qp->resp.ares[i].valid = false;
		qp->resp.rres[i].valid = false;
	}
	for (i = 0; i < MRO_NPEND; i++)
		qp->resp.pend[i].valid = false;
	mro_keyorder_init(&qp->resp.keyorder);
}

static int mro_qp_apply(struct mro_qp *qp, struct ib_qp_attr *attr, int mask)
{
	struct mro_dev *dev = qp->dev;
	enum ib_mtu active;
	int err;

	if (mask & IB_QP_PORT && attr->port_num != 1)
		return -EINVAL;
	if (mask & IB_QP_PKEY_INDEX) {
		if (attr->pkey_index >= MRO_MAX_PKEYS)
			return -EINVAL;
		qp->pkey_index = attr->pkey_index;
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC &&
	    attr->max_rd_atomic > MRO_MAX_RD_ATOM)
		return -EINVAL;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	    attr->max_dest_rd_atomic > MRO_MAX_RD_ATOM)
		return -EINVAL;
	if (mask & IB_QP_AV) {
		err = mro_av_from_attr(dev, &qp->av, &attr->ah_attr);
		if (err)
			return err;
	}
	if (mask & IB_QP_PATH_MTU) {
		if (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)
			return -EINVAL;
		qp->path_mtu = attr->path_mtu;
	}
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access_flags = attr->qp_access_flags;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt & 7;
	if (mask & IB_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry & 7;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer & 0x1f;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	    qp->max_dest_rd_atomic != attr->max_dest_rd_atomic) {
		u32 i;

		/* the resource rings are max_dest_rd_atomic long: start over */
		for (i = 0; i < MRO_MAX_RD_ATOM; i++) {
			qp->resp.ares[i].valid = false;
			qp->resp.rres[i].valid = false;
		}
		qp->resp.ares_next = 0;
		qp->resp.rres_next = 0;
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	}
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num & METAROCE_QPN_MASK;
	if (mask & IB_QP_RQ_PSN) {
		mro_rxwin_reset(&qp->resp.win, attr->rq_psn & METAROCE_QPN_MASK);
		qp->resp.msn = 0;
		mro_uc_reset(qp);
	}
	if (mask & IB_QP_SQ_PSN) {
		qp->req.una = attr->sq_psn & METAROCE_QPN_MASK;
		qp->req.nxt = qp->req.una;
		qp->req.tx_last_psn = qp->req.una - 1;
		qp->req.highest_acked = qp->req.una;
		qp->req.ack_known_end = qp->req.una;
		qp->req.late_tx_end = qp->req.una;
		qp->req.win_closed = false;
		qp->req.acked_sent_us = mro_now_us();
		qp->req.acked_at_us = qp->req.acked_sent_us;
		qp->req.msn = 0;
	}
	/*
	 * UD has no path MTU: a datagram may fill the port's active MTU.  RC
	 * and UC fill the netdev only when the path MTU is the port's active
	 * MTU, the one rdma_cm and perftest derive from the netdev; a smaller
	 * one was chosen on purpose and is kept.
	 */
	active = READ_ONCE(dev->active_mtu);
	if (mro_qp_is_ud(qp))
		qp->mtu = ib_mtu_enum_to_int(active);
	else
		qp->mtu = mro_wire_rc_mtu(ib_mtu_enum_to_int(qp->path_mtu),
					  READ_ONCE(dev->payload_mtu) -
					  (qp->prot ? METAROCE_SEAL_LEN -
					   METAROCE_CRC_LEN : 0),
					  READ_ONCE(mro_mtu_fill) &&
					  qp->path_mtu >= active);
	qp->req.rto = mro_timeout_to_ktime(qp->timeout);
	return 0;
}

static void mro_qp_enter_err(struct mro_qp *qp, int status, unsigned long ip);

int mro_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	struct mro_conn_prot *prot = NULL, *old_prot = NULL;
	struct mro_dgram_tx *dgram = NULL, *old_dgram = NULL;
	enum ib_qp_state cur, new;
	struct sk_buff_head out;
	int err = 0;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (udata && udata->inlen)
		return -EINVAL;

	__skb_queue_head_init(&out);
	mutex_lock(&qp->modify_lock);
	/* a connection's protection, from the device as it is at RTR */
	if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RTR &&
	    !mro_qp_is_ud(qp) && !qp->prot) {
		prot = mro_prot_alloc(qp);
		if (IS_ERR(prot)) {
			mutex_unlock(&qp->modify_lock);
			return PTR_ERR(prot);
		}
	}
	/* a UD QP's sealing key, from the device as it is at RTS */
	if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RTS &&
	    qp->ibqp.qp_type == IB_QPT_UD && !qp->dgram) {
		dgram = mro_dgram_tx_alloc(qp);
		if (IS_ERR(dgram)) {
			mro_prot_free(prot);
			mutex_unlock(&qp->modify_lock);
			return PTR_ERR(dgram);
		}
	}
	spin_lock_bh(&qp->lock);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	if (mask & (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE)) {
		err = -EOPNOTSUPP;
		goto out;
	}
	if (prot && new == IB_QPS_RTR && cur == IB_QPS_INIT) {
		qp->prot = prot;	/* before the MTU is set */
		prot = NULL;
	}
	if (dgram && new == IB_QPS_RTS && cur == IB_QPS_RTR) {
		qp->dgram = dgram;
		dgram = NULL;
	}
	err = mro_qp_apply(qp, attr, mask);
	if (err)
		goto out;

	if (mask & IB_QP_STATE && new != qp->state) {
		mro_cc_qp_state(qp, new);
		switch (new) {
		case IB_QPS_RESET:
			mro_qp_reset_transport(qp);
			old_prot = qp->prot;
			qp->prot = NULL;
			old_dgram = qp->dgram;
			qp->dgram = NULL;
			break;
		case IB_QPS_RTR:
			mro_hello_prepare(qp);
			break;
		case IB_QPS_RTS:
			qp->req.retry_left = qp->retry_cnt;
			qp->req.stall_us = mro_now_us();
			qp->req.rnr_left = qp->rnr_retry;
			mro_hello_start(qp, &out);
			break;
		case IB_QPS_SQD:
			qp->sq_draining = true;
			break;
		case IB_QPS_ERR:
			mro_qp_enter_err(qp, 0, _THIS_IP_);
			break;
		default:
			break;
		}
		if (new != IB_QPS_ERR)
			qp->state = new;
		if (new != IB_QPS_SQD)
			qp->sq_draining = false;
	}
out:
	mro_qp_queue_tx(qp, &out);	/* sent by mro_qp_kick() */
	spin_unlock_bh(&qp->lock);
	mro_prot_free(prot);		/* not taken: the modify failed */
	mro_prot_free(old_prot);
	mro_dgram_tx_free(dgram);
	mro_dgram_tx_free(old_dgram);
	if (!err && qp->state == IB_QPS_ERR)
		mro_qp_flush(qp);
	mutex_unlock(&qp->modify_lock);
	if (!err)
		mro_qp_kick(qp);
	return err;
}

static void mro_av_to_attr(struct mro_qp *qp, struct rdma_ah_attr *ah)
{
	union ib_gid dgid;

	mro_av_gid(&qp->av, false, &dgid);
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, 1);
	rdma_ah_set_grh(ah, &dgid, qp->av.flow_label, qp->av.sgid_index,
			qp->av.hop_limit, qp->av.traffic_class);
	memcpy(ah->roce.dmac, qp->av.dmac, ETH_ALEN);
}

/*
 * Whether the caller may read the QP's PSNs.  With them and the QPNs, which
 * every reader of rdma netlink sees, anyone who can send UDP from a host of
 * the connection can inject packets the QP accepts.  The core's resource
 * dump (rdma resource show qp) reads them through query_qp in the reader's
 * context, so they go to CAP_NET_ADMIN in the device's network namespace,
 * to the process that owns a user QP, and to kernel threads (a kernel
 * ULP's own QPs); anyone else reads 0.
 */
bool mro_qp_psns_visible(struct mro_qp *qp)
{
	struct task_struct *owner = qp->ibqp.res.task;

	if (ns_capable_noaudit(mro_dev_net(qp->dev)->user_ns, CAP_NET_ADMIN))
		return true;
	if (qp->ibqp.uobject)
		return owner && same_thread_group(owner, current);
	return current->flags & PF_KTHREAD;
}

int mro_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	bool psns = mro_qp_psns_visible(qp);

	memset(attr, 0, sizeof(*attr));
	spin_lock_bh(&qp->lock);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->path_mtu = qp->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = qp->qkey;
	if (psns) {
		attr->rq_psn = qp->resp.win.base & METAROCE_QPN_MASK;
		attr->sq_psn = qp->req.nxt & METAROCE_QPN_MASK;
	}
	attr->dest_qp_num = qp->dest_qpn;
	attr->qp_access_flags = qp->access_flags;
	attr->pkey_index = qp->pkey_index;
	attr->port_num = 1;
	attr->timeout = qp->timeout;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->sq_draining = qp->sq_draining;
	if (mro_qp_connected(qp))
		mro_av_to_attr(qp, &attr->ah_attr);
	spin_unlock_bh(&qp->lock);

	attr->cap.max_send_wr = qp->sq->index_mask;
	attr->cap.max_send_sge = qp->sq_max_sge;
	attr->cap.max_inline_data = qp->sq_max_inline;
	if (qp->rq) {
		attr->cap.max_recv_wr = qp->rq->index_mask;
		attr->cap.max_recv_sge = qp->rq_max_sge;
	}
	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = 1;
	return 0;
}

int mro_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mro_qp *qp = to_mro_qp(ibqp);

	mutex_lock(&qp->modify_lock);
	spin_lock_bh(&qp->lock);
	qp->state = IB_QPS_ERR;
	spin_unlock_bh(&qp->lock);
	mutex_unlock(&qp->modify_lock);
	/* the key work runs the QP when it is done: not from now on */
	if (qp->prot)
		cancel_work_sync(&qp->prot->work);

	mro_stats_qp_destroy(qp);	/* and out of dev->qps */
	synchronize_rcu();	/* no receive-path lookup still holds the pointer */
	mro_qp_put(qp);
	wait_for_completion(&qp->released);
	cancel_work_sync(&qp->post_work);
	hrtimer_cancel(&qp->req.rto_timer);
	hrtimer_cancel(&qp->req.rnr_timer);
	hrtimer_cancel(&qp->req.reo_timer);
	hrtimer_cancel(&qp->probe_timer);
	mro_cc_qp_destroy(qp);
	cancel_work_sync(&qp->tx_work);
	__skb_queue_purge(&qp->txq);
	mro_prot_free(qp->prot);
	qp->prot = NULL;
	mro_dgram_tx_free(qp->dgram);
	qp->dgram = NULL;
	mro_qp_free_all(qp);
	mro_obj_uncharge(qp->dev, MRO_OBJ_QP);
	return 0;
}

void mro_qp_event(struct mro_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* the move to ERR itself; pending WQEs are flushed by mro_qp_flush() */
static void mro_qp_enter_err(struct mro_qp *qp, int status, unsigned long ip)
{
	lockdep_assert_held(&qp->lock);
	trace_mro_qp_error(qp->qpn, status, qp->req.una, qp->req.nxt,
			   qp->resp.win.base, ip);
	qp->state = IB_QPS_ERR;
	hrtimer_try_to_cancel(&qp->req.rto_timer);
	hrtimer_try_to_cancel(&qp->req.rnr_timer);
	hrtimer_try_to_cancel(&qp->req.reo_timer);
	hrtimer_try_to_cancel(&qp->probe_timer);
}

/* the driver moves the QP to ERR (not a modify): counted as qp_errors */
void mro_qp_error_at(struct mro_qp *qp, int status, unsigned long ip)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state == IB_QPS_ERR)
		return;
	mro_qp_count(qp, MRO_CNT_QP_ERRORS, 1);
	mro_qp_enter_err(qp, status, ip);
}

/*
 * Flush every WQE still in the SQ and RQ with WR_FLUSH_ERR.  User space
 * writes the producer indices and the CQ's consumer index at any time:
 * each loop runs at most the count of WQEs it found on entry.
 */
void mro_qp_flush(struct mro_qp *qp)
{
	struct ib_wc wc;
	bool last_wqe = false;
	u32 n;

	spin_lock_bh(&qp->lock);
	if (qp->state != IB_QPS_ERR) {
		spin_unlock_bh(&qp->lock);
		return;
	}
	/* first complete what finished, in order, then flush the rest */
	mro_req_complete_ready(qp);
	for (n = mro_queue_count(qp->sq); n; n--) {
		u32 idx = mro_queue_consumer(qp->sq);
		struct rxe_send_wqe *w = mro_queue_slot(qp->sq, idx);

		memset(&wc, 0, sizeof(wc));
		wc.wr_id = READ_ONCE(w->wr.wr_id);
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.opcode = mro_wc_opcode(READ_ONCE(w->wr.opcode));
		wc.qp = &qp->ibqp;
		qp->swqe[idx & qp->sq->index_mask].state = MRO_SWQE_FREE;
		mro_queue_advance(qp->sq);
		if (mro_cq_post(qp->scq, &wc, false))
			break;
	}
	qp->sq_head = mro_queue_consumer(qp->sq);
	qp->sq_cur_valid = false;
	if (qp->rq) {
		for (n = mro_queue_count(qp->rq); n; n--) {
			struct rxe_recv_wqe *r;

			r = mro_queue_slot(qp->rq, mro_queue_consumer(qp->rq));
			memset(&wc, 0, sizeof(wc));
			wc.wr_id = READ_ONCE(r->wr_id);
			wc.status = IB_WC_WR_FLUSH_ERR;
			wc.opcode = IB_WC_RECV;
			wc.qp = &qp->ibqp;
			mro_queue_advance(qp->rq);
			if (mro_cq_post(qp->rcq, &wc, false))
				break;
		}
	} else if (qp->srq && !qp->last_wqe_sent) {
		mro_qp_flush_srq_claims(qp);
		/* once per error: a consumer may wait for it, as UCX does */
		qp->last_wqe_sent = true;
		last_wqe = true;
	}
	spin_unlock_bh(&qp->lock);
	mro_qp_notify_cqs(qp);
	if (last_wqe)
		mro_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/* Run the requester now (it hands over to tx_work past its budget). */
void mro_qp_kick(struct mro_qp *qp)
{
	struct sk_buff_head out;

	__skb_queue_head_init(&out);
	spin_lock_bh(&qp->lock);
	mro_req_run(qp, &out, 64);
	mro_qp_queue_tx(qp, &out);
	spin_unlock_bh(&qp->lock);
	mro_qp_tx_drain(qp);
	mro_qp_notify_cqs(qp);
}

/*
 * Transmit the QP's queued packets in the order they were built.  Packets
 * are queued under qp->lock by whoever built them; one context at a time
 * drains, so a softirq that builds later PSNs while process context is
 * between its unlock and its transmit cannot overtake it.  An empty queue
 * needs no lock: what this context queued is still there unless another
 * context took it to send it (most received packets queue nothing).
 */
void mro_qp_tx_drain(struct mro_qp *qp)
{
	struct sk_buff_head batch;

	if (skb_queue_empty_lockless(&qp->txq))
		return;
	__skb_queue_head_init(&batch);
	spin_lock_bh(&qp->lock);
	if (qp->tx_draining) {
		spin_unlock_bh(&qp->lock);
		return;
	}
	qp->tx_draining = true;
	while (!skb_queue_empty(&qp->txq)) {
		skb_queue_splice_tail_init(&qp->txq, &batch);
		mro_tx_seal_batch(qp, &batch);
		spin_unlock_bh(&qp->lock);
		mro_tx_send_list(qp, &batch);
		spin_lock_bh(&qp->lock);
	}
	qp->tx_draining = false;
	spin_unlock_bh(&qp->lock);
}

/* after a kernel post: run the requester, or flush a QP in error */
static void mro_qp_ring(struct mro_qp *qp)
{
	if (qp->state == IB_QPS_ERR)
		mro_qp_flush(qp);
	else
		mro_qp_kick(qp);
}

static void mro_qp_post_work(struct work_struct *work)
{
	mro_qp_ring(container_of(work, struct mro_qp, post_work));
}

/*
 * Kernel ULPs may post with interrupts off (ib_post_send_mad() holds an
 * irqsave lock; rdma_cm's accept posts the CM REP that way): qp->lock is
 * a _bh lock, so the doorbell then runs from a work item.
 */
static void mro_qp_doorbell(struct mro_qp *qp)
{
	if (irqs_disabled() || in_hardirq())
		queue_work(system_highpri_wq, &qp->post_work);
	else
		mro_qp_ring(qp);
}

/* write one kernel send WR into the SQ ring, in the rxe layout */
static int mro_post_one_send(struct mro_qp *qp, const struct ib_send_wr *ibwr)
{
	struct rxe_send_wqe *w;
	u32 i, len = 0;

	if (ibwr->num_sge > qp->sq_max_sge)
		return -EINVAL;
	if (mro_queue_full(qp->sq))
		return -ENOMEM;
	w = mro_queue_kernel_producer_slot(qp->sq);
	memset(w, 0, sizeof(*w));
	w->wr.wr_id = ibwr->wr_id;
	w->wr.opcode = ibwr->opcode;
	w->wr.send_flags = ibwr->send_flags;
	if (ibwr->opcode == IB_WR_SEND_WITH_INV)
		w->wr.ex.invalidate_rkey = ibwr->ex.invalidate_rkey;
	else
		w->wr.ex.imm_data = ibwr->ex.imm_data;

	switch (ibwr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		w->wr.wr.rdma.remote_addr = rdma_wr(ibwr)->remote_addr;
		w->wr.wr.rdma.rkey = rdma_wr(ibwr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		w->wr.wr.atomic.remote_addr = atomic_wr(ibwr)->remote_addr;
		w->wr.wr.atomic.compare_add = atomic_wr(ibwr)->compare_add;
		w->wr.wr.atomic.swap = atomic_wr(ibwr)->swap;
		w->wr.wr.atomic.rkey = atomic_wr(ibwr)->rkey;
		break;
	case IB_WR_REG_MR:
		w->wr.wr.reg.mr = reg_wr(ibwr)->mr;
		w->wr.wr.reg.key = reg_wr(ibwr)->key;
		w->wr.wr.reg.access = reg_wr(ibwr)->access;
		break;
	case IB_WR_LOCAL_INV:
		w->wr.ex.invalidate_rkey = ibwr->ex.invalidate_rkey;
		break;
	default:
		break;
	}
	if (mro_qp_is_ud(qp)) {
		struct mro_ah *ah = to_mro_ah(ud_wr(ibwr)->ah);

		w->wr.wr.ud.remote_qpn = ud_wr(ibwr)->remote_qpn;
		w->wr.wr.ud.remote_qkey = ud_wr(ibwr)->remote_qkey;
		w->wr.wr.ud.ah_num = ah->ah_num;
	}

	if (ibwr->send_flags & IB_SEND_INLINE) {
		u8 *p = w->dma.inline_data;

		for (i = 0; i < ibwr->num_sge; i++) {
			u32 l = ibwr->sg_list[i].length;

			if (len + l > qp->sq_max_inline)
				return -EINVAL;
			memcpy(p + len, (void *)(uintptr_t)ibwr->sg_list[i].addr,
			       l);
			len += l;
		}
	} else {
		for (i = 0; i < ibwr->num_sge; i++) {
			w->dma.sge[i].addr = ibwr->sg_list[i].addr;
			w->dma.sge[i].length = ibwr->sg_list[i].length;
			w->dma.sge[i].lkey = ibwr->sg_list[i].lkey;
			len += ibwr->sg_list[i].length;
		}
		w->dma.num_sge = ibwr->num_sge;
	}
	w->dma.length = len;
	w->dma.resid = len;
	mro_queue_kernel_produce(qp->sq);
	return 0;
}

int mro_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	unsigned long flags;
	int err = 0;

	/* RESET, INIT and RTR cannot send (ERR flushes) */
	if (qp->state < IB_QPS_RTS) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (qp->is_user) {
		/* the rxe ABI doorbell: a POST_SEND with no work requests */
		if (qp->state == IB_QPS_ERR)
			mro_qp_flush(qp);
		else
			mro_qp_kick(qp);
		return 0;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		err = mro_post_one_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	mro_qp_doorbell(qp);
	return err;
}

int mro_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	int err;

	if (qp->srq || !qp->rq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (qp->state == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	err = mro_post_recv_ring(qp->rq, &qp->rq_lock, qp->rq_max_sge, wr,
				 bad_wr);
	if (qp->state == IB_QPS_ERR)
		mro_qp_doorbell(qp);
	return err;
}
