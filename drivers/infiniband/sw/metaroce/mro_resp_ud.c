// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce UD responder: a datagram takes the next receive WQE (of the
 * QP's RQ or its SRQ) whole, behind the 40-byte GRH area rdma-core's UD
 * consumers expect, and completes it at once; there is no window, no
 * message ring and no ACK (protocol.rst, "Datagram extension").
 */
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>

#include "mro_qp.h"

/* a datagram for this UD QP */
enum mro_rx_verdict mro_resp_ud_rcv(struct mro_qp *qp,
				    const struct mro_hdr *hdr,
				    struct sk_buff *skb)
{
	struct mro_recv_wqe w;
	u8 grh[40] = {};
	struct ib_wc wc = {};
	int err;

	lockdep_assert_held(&qp->lock);
	if (qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR)
		return MRO_RXV_QP_STATE;
	if (hdr->deth.qkey != qp->qkey)
		return MRO_RXV_QKEY;
	if (qp->srq)
		err = mro_srq_take(qp->srq, &w);
	else
		err = mro_rq_wqe_for(qp, qp->resp.msn, &w);
	if (err)
		return MRO_RXV_NO_WQE;
	if (!qp->srq)
		mro_queue_advance(qp->rq);

	wc.wr_id = w.wr_id;
	wc.qp = &qp->ibqp;
	wc.opcode = IB_WC_RECV;
	wc.src_qp = hdr->sqpn;
	wc.port_num = 1;
	wc.pkey_index = qp->pkey_index;
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	wc.byte_len = hdr->payload_len + sizeof(grh);
	if (mro_op_is(hdr->opcode, MRO_OPM_IMM)) {
		wc.ex.imm_data = cpu_to_be32(hdr->deth.imm);
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	/*
	 * A datagram of a VLAN: the core picks the GID to answer from by the
	 * VLAN id (rdma_cm's replies on QP1), as for any RoCE device.
	 */
	if (skb->dev && is_vlan_dev(skb->dev)) {
		wc.wc_flags |= IB_WC_WITH_VLAN;
		wc.vlan_id = vlan_dev_vlan_id(skb->dev);
	}
	/* the GRH area holds the network header, as RoCE v2 defines it */
	if (ip_hdr(skb)->version == 4) {
		memcpy(grh + 20, skb_network_header(skb), 20);
		wc.network_hdr_type = RDMA_NETWORK_IPV4;
	} else {
		memcpy(grh, skb_network_header(skb), 40);
		wc.network_hdr_type = RDMA_NETWORK_IPV6;
	}
	wc.status = IB_WC_SUCCESS;
	if (wc.byte_len > w.length) {
		wc.status = IB_WC_LOC_LEN_ERR;
	} else if (mro_sge_copy(qp->dev, qp->ibqp.pd, w.sge, w.num_sge, 0,
				grh, sizeof(grh), MRO_COPY_TO_MEM,
				IB_ACCESS_LOCAL_WRITE) ||
		   mro_sge_copy_skb(qp->dev, qp->ibqp.pd, w.sge, w.num_sge,
				    sizeof(grh), skb, hdr->hdr_len,
				    hdr->payload_len, IB_ACCESS_LOCAL_WRITE)) {
		wc.status = IB_WC_LOC_PROT_ERR;
	}
	qp->resp.msn++;
	if (mro_cq_post(qp->rcq, &wc, hdr->flags & METAROCE_F_SOLICITED))
		mro_qp_error(qp);
	return MRO_RXV_OK;
}
