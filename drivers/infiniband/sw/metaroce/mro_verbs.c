// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce verbs: the ib_device_ops table, device and port queries, and
 * registration with the RDMA core under the rxe user ABI.
 */
#include <linux/if_addr.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>

#include "mro_qp.h"

static int mro_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	/* the core zeroes ibdev->attrs before asking: keep our own copy */
	*attr = to_mro_dev(ibdev)->attr;
	return 0;
}

static int mro_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	struct mro_dev *dev = to_mro_dev(ibdev);

	/* the core zeroes @attr */
	attr->state = READ_ONCE(dev->port_state);
	if (attr->state != IB_PORT_ACTIVE)
		attr->state = IB_PORT_DOWN;
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = READ_ONCE(dev->active_mtu);
	attr->gid_tbl_len = MRO_GID_TABLE_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = MRO_MAX_MSG_SIZE;
	attr->bad_pkey_cntr = 0;
	attr->qkey_viol_cntr = 0;
	attr->pkey_tbl_len = MRO_MAX_PKEYS;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->lmc = 0;
	attr->max_vl_num = 1;
	attr->sm_sl = 0;
	attr->subnet_timeout = 0;
	attr->init_type_reply = 0;
	attr->active_width = READ_ONCE(dev->active_width);
	attr->active_speed = READ_ONCE(dev->active_speed);
	return 0;
}

static int mro_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int mro_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index >= MRO_MAX_PKEYS)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static enum rdma_link_layer mro_get_link_layer(struct ib_device *ibdev,
					       u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static void mro_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%d.%d.%d", MRO_FW_MAJOR,
		 MRO_FW_MINOR, MRO_FW_SUB);
}

static int mro_alloc_ucontext(struct ib_ucontext *ibuc,
			      struct ib_udata *udata)
{
	/* the rxe user ABI passes no driver data here */
	return 0;
}

static void mro_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

static int mro_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return mro_obj_charge(to_mro_dev(ibpd->device), MRO_OBJ_PD);
}

static int mro_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	mro_obj_uncharge(to_mro_dev(ibpd->device), MRO_OBJ_PD);
	return 0;
}

static const struct ib_device_ops mro_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = MRO_UVERBS_ABI_VERSION,
	.port_groups = mro_port_groups,

	.alloc_hw_port_stats = mro_alloc_hw_port_stats,
	.alloc_mr = mro_alloc_mr,
	.alloc_mw = mro_alloc_mw,
	.alloc_pd = mro_alloc_pd,
	.alloc_ucontext = mro_alloc_ucontext,
	.attach_mcast = mro_attach_mcast,
	.counter_alloc_stats = mro_counter_alloc_stats,
	.counter_bind_qp = mro_counter_bind_qp,
	.counter_dealloc = mro_counter_dealloc,
	.counter_unbind_qp = mro_counter_unbind_qp,
	.counter_update_stats = mro_counter_update_stats,
	.create_ah = mro_create_ah,
	.create_cq = mro_create_cq,
	.create_qp = mro_create_qp,
	.create_srq = mro_create_srq,
	.create_user_ah = mro_create_ah,
	.dealloc_driver = mro_dev_dealloc,
	.dealloc_mw = mro_dealloc_mw,
	.dealloc_pd = mro_dealloc_pd,
	.dealloc_ucontext = mro_dealloc_ucontext,
	.dereg_mr = mro_dereg_mr,
	.destroy_ah = mro_destroy_ah,
	.destroy_cq = mro_destroy_cq,
	.destroy_qp = mro_destroy_qp,
	.destroy_srq = mro_destroy_srq,
	.detach_mcast = mro_detach_mcast,
	.device_group = &mro_dev_attr_group,
	.fill_res_qp_entry = mro_fill_res_qp_entry,
	.get_dev_fw_str = mro_get_dev_fw_str,
	.get_dma_mr = mro_get_dma_mr,
	.get_hw_stats = mro_get_hw_stats,
	.get_link_layer = mro_get_link_layer,
	.get_port_immutable = mro_get_port_immutable,
	.map_mr_sg = mro_map_mr_sg,
	.mmap = mro_mmap,
	.mmap_free = mro_mmap_free,
	.modify_hw_stat = mro_modify_hw_stat,
	.modify_qp = mro_modify_qp,
	.modify_srq = mro_modify_srq,
	.poll_cq = mro_poll_cq,
	.post_recv = mro_post_recv,
	.post_send = mro_post_send,
	.post_srq_recv = mro_post_srq_recv,
	.process_mad = mro_process_mad,
	.query_ah = mro_query_ah,
	.query_device = mro_query_device,
	.query_pkey = mro_query_pkey,
	.query_port = mro_query_port,
	.query_qp = mro_query_qp,
	.query_srq = mro_query_srq,
	.reg_user_mr = mro_reg_user_mr,
	.req_notify_cq = mro_req_notify_cq,
	.resize_cq = mro_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, mro_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, mro_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, mro_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, mro_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mro_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, mro_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, mro_ucontext, ibuc),
};

static void mro_init_device_attr(struct mro_dev *dev)
{
	struct ib_device_attr *a = &dev->attr;

	memset(a, 0, sizeof(*a));
	a->vendor_id = MRO_VENDOR_ID;
	a->vendor_part_id = MRO_VENDOR_PART_ID;
	a->hw_ver = MRO_HW_VERSION;
	a->fw_ver = ((u64)MRO_FW_MAJOR << 32) | ((u64)MRO_FW_MINOR << 16) |
		    MRO_FW_SUB;
	a->sys_image_guid = dev->ib_dev.node_guid;
	a->max_mr_size = MRO_MAX_MR_SIZE;
	a->page_size_cap = MRO_PAGE_SIZE_CAP;
	a->max_qp = MRO_MAX_QP;
	a->max_qp_wr = MRO_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
			      IB_DEVICE_BAD_QKEY_CNTR |
			      IB_DEVICE_SYS_IMAGE_GUID |
			      IB_DEVICE_RC_RNR_NAK_GEN |
			      IB_DEVICE_SRQ_RESIZE |
			      IB_DEVICE_MEM_MGT_EXTENSIONS |
			      IB_DEVICE_MEM_WINDOW |
			      IB_DEVICE_MEM_WINDOW_TYPE_2B;
#ifdef MRO_HAVE_IB_WR_FLUSH
	/* global visibility only: see mro_flush.c */
	a->device_cap_flags |= IB_DEVICE_FLUSH_GLOBAL | IB_DEVICE_ATOMIC_WRITE;
#endif
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	a->max_send_sge = MRO_MAX_SGE;
	a->max_recv_sge = MRO_MAX_SGE;
	a->max_sge_rd = MRO_MAX_SGE_RD;
	a->max_cq = MRO_MAX_CQ;
	a->max_cqe = MRO_MAX_CQE - 1;
	a->max_mr = MRO_MAX_MR;
	a->max_mw = MRO_MAX_MW;
	a->max_pd = MRO_MAX_PD;
	a->max_qp_rd_atom = MRO_MAX_RD_ATOM;
	a->max_qp_init_rd_atom = MRO_MAX_RD_ATOM;
	a->max_res_rd_atom = MRO_MAX_RD_ATOM * MRO_MAX_QP;
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_ah = MRO_MAX_AH;
	a->max_srq = MRO_MAX_SRQ;
	a->max_srq_wr = MRO_MAX_SRQ_WR;
	a->max_srq_sge = MRO_MAX_SRQ_SGE;
	a->max_fast_reg_page_list_len = 512;
	a->max_pkeys = MRO_MAX_PKEYS;
	a->max_mcast_grp = MRO_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = MRO_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = MRO_MAX_MCAST_GRP *
				       MRO_MAX_MCAST_QP_ATTACH;
	a->local_ca_ack_delay = 15;
}

/*
 * Install the ops table first thing after allocation: from then on
 * ib_dealloc_device() runs our dealloc_driver, which undoes newlink.
 */
void mro_set_ops(struct mro_dev *dev)
{
	ib_set_device_ops(&dev->ib_dev, &mro_dev_ops);
}

int mro_register_device(struct mro_dev *dev, const char *ibdev_name)
{
	struct ib_device *ibdev = &dev->ib_dev;
	int err;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	strscpy(ibdev->node_desc, "metaroce", sizeof(ibdev->node_desc));
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    dev->ndev->dev_addr);
	mro_init_device_attr(dev);

	/* librxe rings the send doorbell and arms CQs with these two */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	err = ib_device_set_netdev(ibdev, dev->ndev, 1);
	if (err)
		return err;
	ib_mark_name_assigned_by_user(ibdev);
	return ib_register_device(ibdev, ibdev_name, NULL);
}
