// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce performance management agent: answers the PerformanceManagement
 * GETs that ib_core asks the driver itself (process_mad without a work
 * completion) to fill /sys/class/infiniband/DEV/ports/1/counters/, the
 * directory that distribution tools (Prometheus' node exporter, for one)
 * read.  ClassPortInfo announces 64-bit counters, so ib_core takes the data
 * and packet counts from PortCountersExtended and the error counts from
 * PortCounters.  Data is in units of four octets, as on InfiniBand; the
 * 32-bit and narrower PortCounters fields stop at their maximum.
 *
 * MADs that arrive from the wire (with a work completion) are not answered
 * here: they go on to the MAD agents, so a remote PMA query gets no reply.
 */
#include <linux/minmax.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>

#include "mro.h"
#include "mro_counters.h"

/* the malformed packets: PortRcvErrors */
static const enum mro_counter mro_pma_rcv_errors[] = {
	MRO_CNT_DROP_SHORT, MRO_CNT_DROP_VERSION, MRO_CNT_DROP_OPCODE,
	MRO_CNT_DROP_HDR_LEN, MRO_CNT_DROP_CRC, MRO_CNT_DROP_FIELD,
	MRO_CNT_DROP_LENGTH,
};

static u64 mro_pma_cnt(struct mro_dev *dev, enum mro_counter c)
{
	return atomic64_read(&dev->stats[c]);
}

static void mro_pma_class_port_info(struct ib_pma_mad *pma)
{
	struct ib_class_port_info *cpi = (void *)pma->data;

	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = 1;
	cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH;
}

/* @c, saturated at @max (PortCounters' fields stop at their maximum) */
static u64 mro_pma_sat(struct mro_dev *dev, enum mro_counter c, u64 div,
		       u64 max)
{
	return min_t(u64, mro_pma_cnt(dev, c) / div, max);
}

static void mro_pma_port_counters(struct mro_dev *dev, struct ib_pma_mad *pma)
{
	struct ib_pma_portcounters *pc = (void *)pma->data;
	u64 rcv_err = 0, discards;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mro_pma_rcv_errors); i++)
		rcv_err += mro_pma_cnt(dev, mro_pma_rcv_errors[i]);
	discards = mro_pma_cnt(dev, MRO_CNT_TX_NOMEM) +
		   mro_pma_cnt(dev, MRO_CNT_TX_ERR);
	pc->link_downed_counter =
		mro_pma_sat(dev, MRO_CNT_LINK_DOWNED, 1, U8_MAX);
	pc->port_rcv_errors = cpu_to_be16(min_t(u64, rcv_err, U16_MAX));
	pc->port_xmit_discards = cpu_to_be16(min_t(u64, discards, U16_MAX));
	pc->port_xmit_data =
		cpu_to_be32(mro_pma_sat(dev, MRO_CNT_SENT_BYTES, 4, U32_MAX));
	pc->port_rcv_data =
		cpu_to_be32(mro_pma_sat(dev, MRO_CNT_RCVD_BYTES, 4, U32_MAX));
	pc->port_xmit_packets =
		cpu_to_be32(mro_pma_sat(dev, MRO_CNT_SENT_PKTS, 1, U32_MAX));
	pc->port_rcv_packets =
		cpu_to_be32(mro_pma_sat(dev, MRO_CNT_RCVD_PKTS, 1, U32_MAX));
}

static void mro_pma_port_counters_ext(struct mro_dev *dev,
				      struct ib_pma_mad *pma)
{
	struct ib_pma_portcounters_ext *pc = (void *)pma->data;
	u64 tx = mro_pma_cnt(dev, MRO_CNT_SENT_PKTS);
	u64 rx = mro_pma_cnt(dev, MRO_CNT_RCVD_PKTS);

	pc->port_xmit_data =
		cpu_to_be64(mro_pma_cnt(dev, MRO_CNT_SENT_BYTES) / 4);
	pc->port_rcv_data =
		cpu_to_be64(mro_pma_cnt(dev, MRO_CNT_RCVD_BYTES) / 4);
	pc->port_xmit_packets = cpu_to_be64(tx);
	pc->port_rcv_packets = cpu_to_be64(rx);
	/* no multicast count of its own: every packet is counted as unicast */
	pc->port_unicast_xmit_packets = cpu_to_be64(tx);
	pc->port_unicast_rcv_packets = cpu_to_be64(rx);
}

/* ib_device_ops.process_mad */
int mro_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	const struct ib_pma_mad *req = (const void *)in;
	struct ib_pma_mad *resp = (void *)out;
	struct mro_dev *dev = to_mro_dev(ibdev);

	/* from the wire: not ours to answer, the MAD layer delivers it */
	if (in_wc || port_num != 1 || *out_mad_size < sizeof(*resp))
		return IB_MAD_RESULT_SUCCESS;
	if (in->mad_hdr.mgmt_class != IB_MGMT_CLASS_PERF_MGMT ||
	    in->mad_hdr.method != IB_MGMT_METHOD_GET ||
	    in->mad_hdr.base_version != IB_MGMT_BASE_VERSION ||
	    in->mad_hdr.class_version != 1)
		return IB_MAD_RESULT_SUCCESS;
	/* PortSelect names the port (ClassPortInfo has no port) */
	if (in->mad_hdr.attr_id != IB_PMA_CLASS_PORT_INFO &&
	    req->data[1] != port_num)
		return IB_MAD_RESULT_SUCCESS;

	memset(resp, 0, sizeof(*resp));
	resp->mad_hdr = in->mad_hdr;
	resp->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	resp->mad_hdr.status = 0;
	switch (in->mad_hdr.attr_id) {
	case IB_PMA_CLASS_PORT_INFO:
		mro_pma_class_port_info(resp);
		break;
	case IB_PMA_PORT_COUNTERS:
		resp->data[1] = req->data[1];
		mro_pma_port_counters(dev, resp);
		break;
	case IB_PMA_PORT_COUNTERS_EXT:
		resp->data[1] = req->data[1];
		mro_pma_port_counters_ext(dev, resp);
		break;
	default:
		return IB_MAD_RESULT_SUCCESS;
	}
	*out_mad_size = sizeof(*resp);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
