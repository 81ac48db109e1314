// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metaroce port counters */
#include "mro.h"

static const struct rdma_stat_desc mro_counter_descs[] = {
	[MRO_CNT_SENT_PKTS].name = "sent_pkts",
	[MRO_CNT_RCVD_PKTS].name = "rcvd_pkts",
	[MRO_CNT_SENT_BYTES].name = "sent_bytes",
	[MRO_CNT_RCVD_BYTES].name = "rcvd_bytes",
	[MRO_CNT_DROP_SHORT].name = "rx_drop_short",
	[MRO_CNT_DROP_VERSION].name = "rx_drop_version",
	[MRO_CNT_DROP_OPCODE].name = "rx_drop_opcode",
	[MRO_CNT_DROP_HDR_LEN].name = "rx_drop_hdr_len",
	[MRO_CNT_DROP_CRC].name = "rx_drop_crc",
	[MRO_CNT_DROP_FIELD].name = "rx_drop_field",
	[MRO_CNT_DROP_LENGTH].name = "rx_drop_length",
	[MRO_CNT_DROP_NO_QP].name = "rx_drop_no_qp",
	[MRO_CNT_DROP_NOMEM].name = "rx_drop_nomem",
	[MRO_CNT_DROP_QP_MISMATCH].name = "rx_drop_qp_mismatch",
	[MRO_CNT_DROP_WINDOW].name = "rx_drop_window",
	[MRO_CNT_DROP_QKEY].name = "rx_drop_qkey",
	[MRO_CNT_DROP_NO_WQE].name = "rx_drop_no_wqe",
	[MRO_CNT_RX_DUP].name = "rx_duplicate",
	[MRO_CNT_RX_OOO].name = "rx_out_of_order",
	[MRO_CNT_TX_ERR].name = "tx_err",
	[MRO_CNT_ACKS_SENT].name = "acks_sent",
	[MRO_CNT_ACKS_RCVD].name = "acks_rcvd",
	[MRO_CNT_RETRANSMITS].name = "retransmits",
	[MRO_CNT_LOSS_DETECTED].name = "loss_detected",
	[MRO_CNT_RTO].name = "rto_expired",
	[MRO_CNT_RNR_NAK_SENT].name = "rnr_nak_sent",
	[MRO_CNT_RNR_NAK_RCVD].name = "rnr_nak_rcvd",
	[MRO_CNT_NAK_SENT].name = "nak_sent",
	[MRO_CNT_NAK_RCVD].name = "nak_rcvd",
	[MRO_CNT_RETRY_EXCEEDED].name = "retry_exceeded",
	[MRO_CNT_LINK_DOWNED].name = "link_downed",
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
};

static_assert(ARRAY_SIZE(mro_counter_descs) == MRO_NR_COUNTERS);

struct rdma_hw_stats *mro_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port_num)
{
	return rdma_alloc_hw_stats_struct(mro_counter_descs,
					  ARRAY_SIZE(mro_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int mro_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index)
{
	struct mro_dev *dev = to_mro_dev(ibdev);
	int i;

	if (!port || stats->num_counters != MRO_NR_COUNTERS)
		return -EINVAL;
	for (i = 0; i < MRO_NR_COUNTERS; i++)
		stats->value[i] = atomic64_read(&dev->stats[i]);
	return MRO_NR_COUNTERS;
}
