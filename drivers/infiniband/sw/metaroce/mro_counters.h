/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce counters: port counters (`rdma statistic show`, sysfs
 * hw_counters), optional per-path-slot port counters, and per-QP counters
 * through the RDMA core's counter objects (`rdma statistic qp bind|auto`).
 */
#ifndef MRO_COUNTERS_H
#define MRO_COUNTERS_H

#include <rdma/ib_verbs.h>

enum mro_counter {
	MRO_CNT_SENT_PKTS,
	MRO_CNT_RCVD_PKTS,
	MRO_CNT_SENT_BYTES,
	MRO_CNT_RCVD_BYTES,
	MRO_CNT_DROP_SHORT,
	MRO_CNT_DROP_SPORT,
	MRO_CNT_DROP_VERSION,
	MRO_CNT_DROP_OPCODE,
	MRO_CNT_DROP_HDR_LEN,
	MRO_CNT_DROP_CRC,
	MRO_CNT_DROP_FIELD,
	MRO_CNT_DROP_LENGTH,
	MRO_CNT_DROP_NO_QP,
	MRO_CNT_DROP_NOMEM,
	MRO_CNT_TX_NOMEM,
	MRO_CNT_DROP_QP_MISMATCH,
	MRO_CNT_DROP_WINDOW,
	MRO_CNT_DROP_QKEY,
	MRO_CNT_DROP_NO_WQE,
	MRO_CNT_DROP_DUP_REQ,
	MRO_CNT_DROP_ACK_RANGE,
	MRO_CNT_DROP_ACK_ECHO,
	MRO_CNT_DROP_ERR_AHEAD,
	MRO_CNT_DROP_QP_STATE,
	MRO_CNT_DROP_BUSY,
	MRO_CNT_DROP_STALE_RESP,
	MRO_CNT_RX_KEY_WAIT,
	MRO_CNT_RX_DUP,
	MRO_CNT_RX_OOO,
	MRO_CNT_UC_PSN_LOST,
	MRO_CNT_UC_MSG_DROPPED,
	MRO_CNT_SRQ_FLUSHED,
	MRO_CNT_TX_ERR,
	MRO_CNT_ACKS_SENT,
	MRO_CNT_ACKS_RCVD,
	MRO_CNT_ACKS_PIGGY,
	MRO_CNT_RETRANSMITS,
	MRO_CNT_LOSS_DETECTED,
	MRO_CNT_LOSS_TIMER,
	MRO_CNT_SPURIOUS_RETX,
	MRO_CNT_RTO,
	MRO_CNT_SPURIOUS_RTO,
	MRO_CNT_RTO_WAITED,
	MRO_CNT_RTO_RETX_HELD,
	MRO_CNT_RTO_COPIES,
	MRO_CNT_RNR_NAK_SENT,
	MRO_CNT_RNR_NAK_RCVD,
	MRO_CNT_NAK_SENT,
	MRO_CNT_NAK_RCVD,
	MRO_CNT_RETRY_EXCEEDED,
	MRO_CNT_LINK_DOWNED,
	MRO_CNT_PATH_RETIRED,
	MRO_CNT_PATH_REVIVED,
	MRO_CNT_PATH_SUSPENDED,
	MRO_CNT_PROBES_SENT,
	MRO_CNT_REPROBES_RCVD,
	MRO_CNT_TLP,
	MRO_CNT_QP_ERRORS,
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
	MRO_CNT_HELLO_SENT,
	MRO_CNT_HELLO_RCVD,
	MRO_CNT_NEGOTIATION_FAILED,
	MRO_CNT_DROP_AUTH,
	MRO_CNT_DROP_REPLAY,
	MRO_CNT_DROP_UNKEYED,
	MRO_NR_COUNTERS
};

/*
 * Optional port counters, after the base ones (the core wants optional
 * counters last): for every path slot s < MRO_STAT_SLOTS, the sum over all
 * QPs of their paths p with p % MRO_STAT_SLOTS == s, e.g. path3_retx.
 * Off until `rdma statistic set link DEV/1 optional-counters ...`.
 */
#define MRO_STAT_SLOTS		8

enum mro_slot_counter {
	MRO_SLOT_TX_PKTS,
	MRO_SLOT_RETX,
	MRO_SLOT_LOST,
	MRO_SLOT_TIMEOUTS,
	MRO_NR_SLOT_COUNTERS
};

#define MRO_NR_SLOT_STATS	(MRO_STAT_SLOTS * MRO_NR_SLOT_COUNTERS)
#define MRO_NR_ALL_COUNTERS	(MRO_NR_COUNTERS + MRO_NR_SLOT_STATS)

struct mro_dev;
struct mro_qp;
struct rdma_counter;

static inline void mro_count(atomic64_t *c, enum mro_counter idx, s64 n)
{
	atomic64_add(n, &c[idx]);
}

struct rdma_hw_stats *mro_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port_num);
void mro_counters_init(void);
int mro_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index);
/* mro_pma.c: the PMA answers behind ports/N/counters/ */
int mro_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_mad_size, u16 *out_mad_pkey_index);
int mro_modify_hw_stat(struct ib_device *ibdev, u32 port, unsigned int index,
		       bool enable);
bool mro_counter_per_qp(unsigned int idx);
struct rdma_hw_stats *mro_alloc_stats_struct(bool per_qp);
void mro_stats_init(struct mro_dev *dev);
/* fold a dying QP's path telemetry into the port's slot counters */
void mro_stats_qp_destroy(struct mro_qp *qp);

/* mro_qpstats.c: per-QP counters (struct rdma_counter) */
int mro_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp);
int mro_counter_unbind_qp(struct ib_qp *ibqp);
int mro_counter_dealloc(struct rdma_counter *counter);
struct rdma_hw_stats *mro_counter_alloc_stats(struct rdma_counter *counter);
int mro_counter_update_stats(struct rdma_counter *counter);
/* what the counter objects (live and freed) hold, as of now */
void mro_cntr_held(struct mro_dev *dev, u64 *v);

#endif /* MRO_COUNTERS_H */
