// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce address vectors and address handles.
 *
 * An AV is the resolved form the transmit path needs: IPv4 or IPv6
 * source and destination, destination MAC, and the GRH fields that map
 * to IP (traffic class, hop limit, flow label).  Only RoCE v2 GIDs
 * (IB_GID_TYPE_ROCE_UDP_ENCAP) can be a source.
 *
 * AHs are numbered (librxe puts ah_num in UD WQEs).  The number maps, in
 * dev->ahs, to a small copy {pd, av} that is freed after an RCU grace
 * period, so mro_ah_get_av() needs no lock and destroy_ah, which may be
 * called in atomic context, never waits.
 */
#include <linux/etherdevice.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "mro.h"

#define MRO_FLOW_LABEL_MASK	0xfffff

struct mro_ah_entry {
	struct rcu_head rcu;
	struct ib_pd *pd;
	struct mro_av av;
};

/* @raw: the 16 bytes of a GID, 8-byte aligned (ib_gid or rxe_gid) */
static bool mro_raw_gid_is_v4(const u8 *raw)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)raw);
}

static bool mro_gid_is_v4(const union ib_gid *gid)
{
	return mro_raw_gid_is_v4(gid->raw);
}

/* the source address of a RoCE v2 GID */
static void mro_av_set_saddr(struct mro_av *av, const union ib_gid *gid)
{
	if (mro_gid_is_v4(gid)) {
		av->family = AF_INET;
		memcpy(&av->saddr.v4, gid->raw + 12, sizeof(av->saddr.v4));
	} else {
		av->family = AF_INET6;
		memcpy(&av->saddr.v6, gid->raw, sizeof(av->saddr.v6));
	}
}

int mro_av_from_attr(struct mro_dev *dev, struct mro_av *av,
		     const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) ||
	    rdma_ah_get_port_num(attr) != 1)
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr || sgid_attr->device != &dev->ib_dev ||
	    sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	/* no IPv4 <-> IPv6 translation */
	if (mro_gid_is_v4(&sgid_attr->gid) != mro_gid_is_v4(&grh->dgid))
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	mro_av_set_saddr(av, &sgid_attr->gid);
	if (av->family == AF_INET)
		memcpy(&av->daddr.v4, grh->dgid.raw + 12, sizeof(av->daddr.v4));
	else
		memcpy(&av->daddr.v6, grh->dgid.raw, sizeof(av->daddr.v6));
	ether_addr_copy(av->dmac, attr->roce.dmac);
	av->traffic_class = grh->traffic_class;
	av->hop_limit = grh->hop_limit;
	av->flow_label = grh->flow_label & MRO_FLOW_LABEL_MASK;
	av->sgid_index = sgid_attr->index;
	return 0;
}

/*
 * librxe fills an rxe_av from the GIDs: sgid_addr/dgid_addr are sockaddrs
 * (for IPv4 with sin_family left 0), grh.dgid is the destination GID and
 * grh.sgid_index the source.  The source address is taken from our own
 * GID table, never from user memory; every address user space supplies
 * must agree with the others.
 */
static bool mro_gid_is_zero(const union rxe_gid *gid)
{
	return !memchr_inv(gid->raw, 0, sizeof(gid->raw));
}

static int mro_uav_daddr4(struct mro_av *av, const struct rxe_av *u)
{
	const struct sockaddr_in *sin = &u->dgid_addr._sockaddr_in;
	const union rxe_gid *dgid = &u->grh.dgid;
	__be32 from_gid = 0;

	if (sin->sin_family != AF_UNSPEC && sin->sin_family != AF_INET)
		return -EINVAL;
	if (!mro_gid_is_zero(dgid)) {
		if (!mro_raw_gid_is_v4(dgid->raw))
			return -EINVAL;
		memcpy(&from_gid, dgid->raw + 12, sizeof(from_gid));
	}
	if (sin->sin_addr.s_addr && from_gid &&
	    sin->sin_addr.s_addr != from_gid)
		return -EINVAL;
	av->daddr.v4 = sin->sin_addr.s_addr ?: from_gid;
	return av->daddr.v4 ? 0 : -EINVAL;
}

static int mro_uav_daddr6(struct mro_av *av, const struct rxe_av *u)
{
	const struct sockaddr_in6 *sin6 = &u->dgid_addr._sockaddr_in6;
	const union rxe_gid *dgid = &u->grh.dgid;
	bool have_sin6 = !ipv6_addr_any(&sin6->sin6_addr);
	bool have_gid = !mro_gid_is_zero(dgid);

	if (sin6->sin6_family != AF_UNSPEC && sin6->sin6_family != AF_INET6)
		return -EINVAL;
	if (have_gid && have_sin6 &&
	    memcmp(dgid->raw, &sin6->sin6_addr, sizeof(dgid->raw)))
		return -EINVAL;
	if (have_sin6)
		av->daddr.v6 = sin6->sin6_addr;
	else if (have_gid)
		memcpy(&av->daddr.v6, dgid->raw, sizeof(av->daddr.v6));
	else
		return -EINVAL;
	return ipv6_addr_v4mapped(&av->daddr.v6) ? -EINVAL : 0;
}

/* the user's idea of the source address, if any, must be the GID's */
static int mro_uav_check_saddr(const struct mro_av *av, const struct rxe_av *u)
{
	if (av->family == AF_INET) {
		const struct sockaddr_in *sin = &u->sgid_addr._sockaddr_in;

		if (sin->sin_family != AF_UNSPEC && sin->sin_family != AF_INET)
			return -EINVAL;
		if (sin->sin_addr.s_addr && sin->sin_addr.s_addr != av->saddr.v4)
			return -EINVAL;
	} else {
		const struct sockaddr_in6 *sin6 = &u->sgid_addr._sockaddr_in6;

		if (sin6->sin6_family != AF_UNSPEC &&
		    sin6->sin6_family != AF_INET6)
			return -EINVAL;
		if (!ipv6_addr_any(&sin6->sin6_addr) &&
		    !ipv6_addr_equal(&sin6->sin6_addr, &av->saddr.v6))
			return -EINVAL;
	}
	return 0;
}

int mro_av_from_user(struct mro_dev *dev, struct mro_av *av,
		     const struct rxe_av *uav)
{
	const struct ib_gid_attr *sgid_attr;
	struct rxe_av u;
	bool v4;
	int err;

	/* one read of the shared WQE; everything below uses the copy */
	memcpy(&u, uav, sizeof(u));
	barrier();

	if (u.port_num != 1)
		return -EINVAL;
	switch (u.network_type) {
	case RXE_NETWORK_TYPE_IPV4:
		v4 = true;
		break;
	case RXE_NETWORK_TYPE_IPV6:
		v4 = false;
		break;
	default:
		return -EINVAL;
	}

	memset(av, 0, sizeof(*av));
	sgid_attr = rdma_get_gid_attr(&dev->ib_dev, 1, u.grh.sgid_index);
	if (IS_ERR(sgid_attr))
		return -EINVAL;
	err = -EINVAL;
	if (sgid_attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
	    mro_gid_is_v4(&sgid_attr->gid) == v4) {
		mro_av_set_saddr(av, &sgid_attr->gid);
		av->sgid_index = sgid_attr->index;
		err = 0;
	}
	rdma_put_gid_attr(sgid_attr);
	if (err)
		return err;

	err = mro_uav_check_saddr(av, &u);
	if (err)
		return err;
	err = v4 ? mro_uav_daddr4(av, &u) : mro_uav_daddr6(av, &u);
	if (err)
		return err;

	ether_addr_copy(av->dmac, u.dmac);
	av->traffic_class = u.grh.traffic_class;
	av->hop_limit = u.grh.hop_limit;
	av->flow_label = u.grh.flow_label & MRO_FLOW_LABEL_MASK;
	return 0;
}

int mro_ah_get_av(struct mro_dev *dev, u32 ah_num, struct ib_pd *pd,
		  struct mro_av *av)
{
	struct mro_ah_entry *e;
	int err = -EINVAL;

	rcu_read_lock();
	e = xa_load(&dev->ahs, ah_num);
	if (e && e->pd == pd) {
		*av = e->av;
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

/*
 * dev->ahs is written with interrupts off: create_ah and destroy_ah may
 * be called in atomic context, so the lock must be irq safe and the
 * allocation atomic.
 */
static void mro_ah_unpublish(struct mro_dev *dev, u32 ah_num)
{
	struct mro_ah_entry *e;
	unsigned long flags;

	xa_lock_irqsave(&dev->ahs, flags);
	e = __xa_erase(&dev->ahs, ah_num);
	xa_unlock_irqrestore(&dev->ahs, flags);
	if (e)
		kfree_rcu(e, rcu);
}

int mro_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata)
{
	struct mro_dev *dev = to_mro_dev(ibah->device);
	struct mro_ah *ah = to_mro_ah(ibah);
	struct rxe_create_ah_resp resp = {};
	gfp_t gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ?
		    GFP_KERNEL : GFP_ATOMIC;
	struct mro_ah_entry *e;
	unsigned long flags;
	int err;

	err = mro_av_from_attr(dev, &ah->av, init->ah_attr);
	if (err)
		return err;

	e = kzalloc(sizeof(*e), gfp);
	if (!e)
		return -ENOMEM;
	e->pd = ibah->pd;
	e->av = ah->av;

	xa_lock_irqsave(&dev->ahs, flags);
	err = __xa_alloc_cyclic(&dev->ahs, &ah->ah_num, e,
				XA_LIMIT(1, MRO_MAX_AH), &dev->ah_next,
				GFP_ATOMIC);
	xa_unlock_irqrestore(&dev->ahs, flags);
	if (err < 0) {
		kfree(e);
		return err == -EBUSY ? -ENOMEM : err;
	}
	ah->is_user = !!udata;

	/* librxe 44 and 56 pass room for ah_num; without it they build AVs */
	if (udata && udata->outlen >= sizeof(resp)) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			mro_ah_unpublish(dev, ah->ah_num);
			return err;
		}
	}
	return 0;
}

int mro_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct mro_ah *ah = to_mro_ah(ibah);

	mro_ah_unpublish(to_mro_dev(ibah->device), ah->ah_num);
	return 0;
}

void mro_av_gid(const struct mro_av *av, bool local, union ib_gid *gid)
{
	if (av->family == AF_INET)
		ipv6_addr_set_v4mapped(local ? av->saddr.v4 : av->daddr.v4,
				       (struct in6_addr *)gid);
	else
		memcpy(gid->raw, local ? &av->saddr.v6 : &av->daddr.v6,
		       sizeof(gid->raw));
}

int mro_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct mro_ah *ah = to_mro_ah(ibah);
	const struct mro_av *av = &ah->av;
	union ib_gid dgid;

	mro_av_gid(av, false, &dgid);

	memset(attr, 0, sizeof(*attr));
	attr->type = ibah->type;
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_grh(attr, &dgid, av->flow_label, av->sgid_index,
			av->hop_limit, av->traffic_class);
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
	return 0;
}
