/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* metaroce port counters: `rdma statistic show`, sysfs hw_counters */
#ifndef MRO_COUNTERS_H
#define MRO_COUNTERS_H

#include <rdma/ib_verbs.h>

enum mro_counter {
	MRO_CNT_SENT_PKTS,
	MRO_CNT_RCVD_PKTS,
	MRO_CNT_SENT_BYTES,
	MRO_CNT_RCVD_BYTES,
	MRO_CNT_DROP_SHORT,
	MRO_CNT_DROP_VERSION,
	MRO_CNT_DROP_OPCODE,
	MRO_CNT_DROP_HDR_LEN,
	MRO_CNT_DROP_CRC,
	MRO_CNT_DROP_FIELD,
	MRO_CNT_DROP_LENGTH,
	MRO_CNT_DROP_NO_QP,
	MRO_CNT_DROP_NOMEM,
	MRO_CNT_DROP_QP_MISMATCH,
	MRO_CNT_DROP_WINDOW,
	MRO_CNT_DROP_QKEY,
	MRO_CNT_DROP_NO_WQE,
	MRO_CNT_RX_DUP,
	MRO_CNT_RX_OOO,
	MRO_CNT_TX_ERR,
	MRO_CNT_ACKS_SENT,
	MRO_CNT_ACKS_RCVD,
	MRO_CNT_RETRANSMITS,
	MRO_CNT_LOSS_DETECTED,
	MRO_CNT_RTO,
	MRO_CNT_RNR_NAK_SENT,
	MRO_CNT_RNR_NAK_RCVD,
	MRO_CNT_NAK_SENT,
	MRO_CNT_NAK_RCVD,
	MRO_CNT_RETRY_EXCEEDED,
	MRO_CNT_LINK_DOWNED,
	MRO_CNT_CC_ECN_CE_RCVD,
	MRO_CNT_CC_ECN_ECHOED,
	MRO_CNT_CC_DECREASE,
	MRO_CNT_CC_CWND_LIMITED,
	MRO_CNT_CC_CREDIT_LIMITED,
	MRO_CNT_CC_PACE_DEFERRED,
	MRO_CNT_CC_CREDIT_SENT,
	MRO_CNT_CC_CREDIT_RCVD,
	MRO_CNT_CC_BAD_FEEDBACK,
	MRO_CNT_CC_CREDIT_PROBE,
	MRO_NR_COUNTERS
};

struct mro_dev;

static inline void mro_count(atomic64_t *c, enum mro_counter idx, s64 n)
{
	atomic64_add(n, &c[idx]);
}

struct rdma_hw_stats *mro_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port_num);
int mro_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index);

#endif /* MRO_COUNTERS_H */
