// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce port counters: the base counters every layer bumps, and the
 * optional per-path-slot counters summed on demand from the QPs' paths.
 */
#include "mro_qp.h"

/* the base counters; the optional slot ones follow, from mro_counters_init() */
static struct rdma_stat_desc mro_counter_descs[MRO_NR_ALL_COUNTERS] = {
	[MRO_CNT_SENT_PKTS].name = "sent_pkts",
	[MRO_CNT_RCVD_PKTS].name = "rcvd_pkts",
	[MRO_CNT_SENT_BYTES].name = "sent_bytes",
	[MRO_CNT_RCVD_BYTES].name = "rcvd_bytes",
	[MRO_CNT_DROP_SHORT].name = "rx_drop_short",
	[MRO_CNT_DROP_SPORT].name = "rx_drop_sport",
	[MRO_CNT_DROP_VERSION].name = "rx_drop_version",
	[MRO_CNT_DROP_OPCODE].name = "rx_drop_opcode",
	[MRO_CNT_DROP_HDR_LEN].name = "rx_drop_hdr_len",
	[MRO_CNT_DROP_CRC].name = "rx_drop_crc",
	[MRO_CNT_DROP_FIELD].name = "rx_drop_field",
	[MRO_CNT_DROP_LENGTH].name = "rx_drop_length",
	[MRO_CNT_DROP_NO_QP].name = "rx_drop_no_qp",
	[MRO_CNT_DROP_NOMEM].name = "rx_drop_nomem",
	[MRO_CNT_TX_NOMEM].name = "tx_nomem",
	[MRO_CNT_DROP_QP_MISMATCH].name = "rx_drop_qp_mismatch",
	[MRO_CNT_DROP_WINDOW].name = "rx_drop_window",
	[MRO_CNT_DROP_QKEY].name = "rx_drop_qkey",
	[MRO_CNT_DROP_NO_WQE].name = "rx_drop_no_wqe",
	[MRO_CNT_DROP_DUP_REQ].name = "rx_drop_dup_req",
	[MRO_CNT_DROP_ACK_RANGE].name = "rx_drop_ack_range",
	[MRO_CNT_DROP_ACK_ECHO].name = "rx_drop_ack_echo",
	[MRO_CNT_DROP_ERR_AHEAD].name = "rx_drop_error_ahead",
	[MRO_CNT_DROP_QP_STATE].name = "rx_drop_qp_state",
	[MRO_CNT_DROP_BUSY].name = "rx_drop_busy",
	[MRO_CNT_DROP_STALE_RESP].name = "rx_drop_stale_resp",
	[MRO_CNT_RX_KEY_WAIT].name = "rx_key_order_wait",
	[MRO_CNT_RX_DUP].name = "rx_duplicate",
	[MRO_CNT_UC_PSN_LOST].name = "rx_uc_psn_lost",
	[MRO_CNT_UC_MSG_DROPPED].name = "rx_uc_msg_dropped",
	[MRO_CNT_SRQ_FLUSHED].name = "rx_srq_wqe_flushed",
	[MRO_CNT_RX_OOO].name = "rx_out_of_order",
	[MRO_CNT_TX_ERR].name = "tx_err",
	[MRO_CNT_ACKS_SENT].name = "acks_sent",
	[MRO_CNT_ACKS_RCVD].name = "acks_rcvd",
	[MRO_CNT_ACKS_PIGGY].name = "acks_piggybacked",
	[MRO_CNT_RETRANSMITS].name = "retransmits",
	[MRO_CNT_LOSS_DETECTED].name = "loss_detected",
	[MRO_CNT_LOSS_TIMER].name = "loss_detected_timer",
	[MRO_CNT_SPURIOUS_RETX].name = "spurious_retransmits",
	[MRO_CNT_RTO].name = "rto_expired",
	[MRO_CNT_SPURIOUS_RTO].name = "spurious_rtos",
	[MRO_CNT_RTO_WAITED].name = "rto_waited",
	[MRO_CNT_RTO_RETX_HELD].name = "rto_retx_held",
	[MRO_CNT_RTO_COPIES].name = "rto_copies",
	[MRO_CNT_RNR_NAK_SENT].name = "rnr_nak_sent",
	[MRO_CNT_RNR_NAK_RCVD].name = "rnr_nak_rcvd",
	[MRO_CNT_NAK_SENT].name = "nak_sent",
	[MRO_CNT_NAK_RCVD].name = "nak_rcvd",
	[MRO_CNT_RETRY_EXCEEDED].name = "retry_exceeded",
	[MRO_CNT_LINK_DOWNED].name = "link_downed",
	[MRO_CNT_PATH_RETIRED].name = "path_retired",
	[MRO_CNT_PATH_REVIVED].name = "path_revived",
	[MRO_CNT_PATH_SUSPENDED].name = "path_suspended",
	[MRO_CNT_PROBES_SENT].name = "probes_sent",
	[MRO_CNT_REPROBES_RCVD].name = "reprobes_rcvd",
	[MRO_CNT_TLP].name = "tail_loss_probes",
	[MRO_CNT_QP_ERRORS].name = "qp_errors",
	[MRO_CNT_CC_ECN_CE_RCVD].name = "cc_ecn_ce_rcvd",
	[MRO_CNT_CC_ECN_ECHOED].name = "cc_ecn_echoed",
	[MRO_CNT_CC_DECREASE].name = "cc_decrease",
	[MRO_CNT_CC_CWND_LIMITED].name = "cc_cwnd_limited",
	[MRO_CNT_CC_CREDIT_LIMITED].name = "cc_credit_limited",
	[MRO_CNT_CC_PACE_DEFERRED].name = "cc_pace_deferred",
	[MRO_CNT_CC_CREDIT_SENT].name = "cc_credit_sent",
	[MRO_CNT_CC_CREDIT_RCVD].name = "cc_credit_rcvd",
	[MRO_CNT_CC_BAD_FEEDBACK].name = "cc_bad_feedback",
	[MRO_CNT_CC_CREDIT_PROBE].name = "cc_credit_probe",
	[MRO_CNT_HELLO_SENT].name = "hello_sent",
	[MRO_CNT_HELLO_RCVD].name = "hello_rcvd",
	[MRO_CNT_NEGOTIATION_FAILED].name = "negotiation_failed",
	[MRO_CNT_DROP_AUTH].name = "rx_drop_auth",
	[MRO_CNT_DROP_REPLAY].name = "rx_drop_replay",
	[MRO_CNT_DROP_UNKEYED].name = "rx_drop_unkeyed",
};

static const char * const mro_slot_kinds[MRO_NR_SLOT_COUNTERS] = {
	[MRO_SLOT_TX_PKTS] = "tx_pkts",
	[MRO_SLOT_RETX] = "retx",
	[MRO_SLOT_LOST] = "lost",
	[MRO_SLOT_TIMEOUTS] = "timeouts",
};

static char mro_slot_names[MRO_NR_SLOT_STATS][24];

/*
 * Name the optional counters after the base ones, slot s and kind k at
 * s * MRO_NR_SLOT_COUNTERS + k ("path3_retx"): once, at module load,
 * before any device allocates its counters.
 */
void mro_counters_init(void)
{
	struct rdma_stat_desc *d;
	unsigned int i;

	for (i = 0; i < MRO_NR_SLOT_STATS; i++) {
		snprintf(mro_slot_names[i], sizeof(mro_slot_names[i]),
			 "path%u_%s", i / MRO_NR_SLOT_COUNTERS,
			 mro_slot_kinds[i % MRO_NR_SLOT_COUNTERS]);
		d = &mro_counter_descs[MRO_NR_COUNTERS + i];
		d->name = mro_slot_names[i];
		d->flags = IB_STAT_FLAG_OPTIONAL;
	}
}

/* the base counters a QP counts for itself (the rest are port-only) */
static const u8 mro_qp_counters[] = {
	MRO_CNT_SENT_PKTS, MRO_CNT_RCVD_PKTS, MRO_CNT_SENT_BYTES,
	MRO_CNT_RCVD_BYTES, MRO_CNT_DROP_FIELD, MRO_CNT_DROP_WINDOW,
	MRO_CNT_DROP_QKEY, MRO_CNT_DROP_NO_WQE, MRO_CNT_RX_DUP,
	MRO_CNT_RX_OOO, MRO_CNT_UC_PSN_LOST, MRO_CNT_UC_MSG_DROPPED,
	MRO_CNT_SRQ_FLUSHED,
	MRO_CNT_TX_ERR, MRO_CNT_ACKS_SENT,
	MRO_CNT_ACKS_RCVD, MRO_CNT_ACKS_PIGGY, MRO_CNT_RETRANSMITS,
	MRO_CNT_LOSS_DETECTED,
	MRO_CNT_SPURIOUS_RETX,
	MRO_CNT_RTO, MRO_CNT_SPURIOUS_RTO, MRO_CNT_RNR_NAK_SENT, MRO_CNT_RNR_NAK_RCVD,
	MRO_CNT_NAK_SENT, MRO_CNT_NAK_RCVD, MRO_CNT_RETRY_EXCEEDED,
};

bool mro_counter_per_qp(unsigned int idx)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mro_qp_counters); i++)
		if (mro_qp_counters[i] == idx)
			return true;
	return false;
}

/* the counter set of a port and of every per-QP counter object */
struct rdma_hw_stats *mro_alloc_stats_struct(bool per_qp)
{
	struct rdma_hw_stats *stats;
	unsigned int i;

	stats = rdma_alloc_hw_stats_struct(mro_counter_descs,
					   ARRAY_SIZE(mro_counter_descs),
					   RDMA_HW_STATS_DEFAULT_LIFESPAN);
	if (!stats)
		return NULL;
	/* optional counters start off; a QP shows only its own ones */
	for (i = 0; i < MRO_NR_ALL_COUNTERS; i++)
		if (i >= MRO_NR_COUNTERS || (per_qp && !mro_counter_per_qp(i)))
			set_bit(i, stats->is_disabled);
	return stats;
}

struct rdma_hw_stats *mro_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port_num)
{
	return mro_alloc_stats_struct(false);
}

void mro_stats_init(struct mro_dev *dev)
{
	xa_init_flags(&dev->counters, XA_FLAGS_ALLOC1);
	mutex_init(&dev->cntr_mutex);
	mutex_init(&dev->slot_mutex);
}

/* add @qp's path telemetry to the slot sums @v */
static void mro_slot_add(struct mro_qp *qp, u64 *v)
{
	const struct mro_path *p;
	u64 *s;
	u16 i;

	spin_lock_bh(&qp->lock);
	for (i = 0; i < qp->paths.n; i++) {
		p = &qp->paths.path[i];
		s = &v[(i % MRO_STAT_SLOTS) * MRO_NR_SLOT_COUNTERS];
		s[MRO_SLOT_TX_PKTS] += p->tx_pkts;
		s[MRO_SLOT_RETX] += p->retx;
		s[MRO_SLOT_LOST] += p->lost;
		s[MRO_SLOT_TIMEOUTS] += p->timeouts;
	}
	spin_unlock_bh(&qp->lock);
}

/* slot sums over the live QPs and the destroyed ones, if any is on */
static void mro_slot_read(struct mro_dev *dev, u64 *v)
{
	struct mro_qp *qp;
	unsigned long qpn;

	if (bitmap_empty(dev->slot_on, MRO_NR_SLOT_STATS)) {
		memset(v, 0, MRO_NR_SLOT_STATS * sizeof(*v));
		return;
	}
	mutex_lock(&dev->slot_mutex);
	memcpy(v, dev->slot_gone, sizeof(dev->slot_gone));
	/* destroy erases the QP under this lock before freeing it */
	xa_lock(&dev->qps);
	xa_for_each(&dev->qps, qpn, qp)
		mro_slot_add(qp, v);
	xa_unlock(&dev->qps);
	mutex_unlock(&dev->slot_mutex);
}

void mro_stats_qp_destroy(struct mro_qp *qp)
{
	struct mro_dev *dev = qp->dev;

	/* in the sum until erased, from the gone sum after: hold the lock */
	mutex_lock(&dev->slot_mutex);
	mro_slot_add(qp, dev->slot_gone);
	xa_erase(&dev->qps, qp->qpn);
	mutex_unlock(&dev->slot_mutex);
}

int mro_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index)
{
	struct mro_dev *dev = to_mro_dev(ibdev);
	u64 in_cntr[MRO_NR_COUNTERS];
	int i;

	if (!port || stats->num_counters != MRO_NR_ALL_COUNTERS)
		return -EINVAL;
	/* first: a QP counts after the port, so this never exceeds it */
	mro_cntr_held(dev, in_cntr);
	for (i = 0; i < MRO_NR_COUNTERS; i++)
		stats->value[i] = atomic64_read(&dev->stats[i]) - in_cntr[i];
	mro_slot_read(dev, &stats->value[MRO_NR_COUNTERS]);
	return MRO_NR_ALL_COUNTERS;
}

/* ops.modify_hw_stat: turn an optional counter on or off */
int mro_modify_hw_stat(struct ib_device *ibdev, u32 port, unsigned int index,
		       bool enable)
{
	struct mro_dev *dev = to_mro_dev(ibdev);

	if (port != 1 || index < MRO_NR_COUNTERS ||
	    index >= MRO_NR_ALL_COUNTERS)
		return -EINVAL;
	if (enable)
		set_bit(index - MRO_NR_COUNTERS, dev->slot_on);
	else
		clear_bit(index - MRO_NR_COUNTERS, dev->slot_on);
	return 0;
}
