// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce multicast: UD QPs attached to a multicast GID receive the
 * datagrams sent to its IP group.  Attaching the first QP joins the group
 * on the netdev (IGMP/MLD); the receive path fans a datagram addressed to
 * QPN 0xffffff out to every attached QP.
 *
 * Datagrams to a group leave through mro_mcast_xmit4/6, not the UDP tunnel
 * helpers, and on behalf of no socket: a UDP tunnel socket has
 * IP_MULTICAST_LOOP turned off (setup_udp_tunnel_sock() clears it), and
 * the tunnel transmit helpers of recent kernels count as a nested transmit,
 * which turns the loopback off as well.  Either way QPs on this host that
 * joined the group would never see the datagram.  Sent like this, the IP
 * stack's own multicast loopback delivers it to every local member (QPs of
 * this device and of other devices in the namespace), as for any multicast
 * socket with IP_MULTICAST_LOOP set.
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>
#include <net/udp.h>

#include "mro_qp.h"

struct mro_mcg {
	struct list_head list;		/* dev->mcgs, RCU readers */
	struct rcu_head rcu;
	struct in6_addr addr;		/* the GID: IPv6 or v4-mapped */
	u32 nqp;
	u32 qpn[MRO_MAX_MCAST_QP_ATTACH];
};

static struct mro_mcg *mro_mcg_find(struct mro_dev *dev,
				    const struct in6_addr *addr)
{
	struct mro_mcg *g;

	list_for_each_entry_rcu(g, &dev->mcgs, list,
				lockdep_is_held(&dev->mcg_mutex))
		if (ipv6_addr_equal(&g->addr, addr))
			return g;
	return NULL;
}

/* join or leave the IP group on the netdev (process context) */
static void mro_mcg_ip(struct mro_dev *dev, const struct in6_addr *addr,
		       bool join)
{
	struct net_device *ndev = dev->ndev;
	struct in_device *in_dev;

	if (!ndev)
		return;
	if (ipv6_addr_v4mapped(addr)) {
		rtnl_lock();
		in_dev = __in_dev_get_rtnl(ndev);
		if (in_dev) {
			if (join)
				ip_mc_inc_group(in_dev, addr->s6_addr32[3]);
			else
				ip_mc_dec_group(in_dev, addr->s6_addr32[3]);
		}
		rtnl_unlock();
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		if (join)
			ipv6_dev_mc_inc(ndev, addr);
		else
			ipv6_dev_mc_dec(ndev, addr);
	}
}

static bool mro_gid_is_mcast(const union ib_gid *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;

	if (ipv6_addr_v4mapped(a))
		return ipv4_is_multicast(a->s6_addr32[3]);
	return ipv6_addr_is_multicast(a);
}

int mro_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	struct mro_dev *dev = qp->dev;
	const struct in6_addr *addr = (const struct in6_addr *)gid->raw;
	struct mro_mcg *g;
	int err = 0;
	u32 i;

	if (ibqp->qp_type != IB_QPT_UD || !mro_gid_is_mcast(gid))
		return -EINVAL;

	mutex_lock(&dev->mcg_mutex);
	g = mro_mcg_find(dev, addr);
	if (!g) {
		if (dev->nmcg >= MRO_MAX_MCAST_GRP) {
			err = -ENOMEM;
			goto out;
		}
		g = kzalloc(sizeof(*g), GFP_KERNEL);
		if (!g) {
			err = -ENOMEM;
			goto out;
		}
		g->addr = *addr;
		mro_mcg_ip(dev, addr, true);
		dev->nmcg++;
		spin_lock_bh(&dev->mcg_lock);
		list_add_tail_rcu(&g->list, &dev->mcgs);
		spin_unlock_bh(&dev->mcg_lock);
	}
	for (i = 0; i < g->nqp; i++)
		if (g->qpn[i] == qp->qpn)
			goto out;	/* attached already */
	if (g->nqp >= MRO_MAX_MCAST_QP_ATTACH) {
		err = -ENOMEM;
		goto out;
	}
	spin_lock_bh(&dev->mcg_lock);
	g->qpn[g->nqp] = qp->qpn;
	g->nqp++;
	spin_unlock_bh(&dev->mcg_lock);
out:
	mutex_unlock(&dev->mcg_mutex);
	return err;
}

int mro_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	struct mro_dev *dev = qp->dev;
	const struct in6_addr *addr = (const struct in6_addr *)gid->raw;
	struct mro_mcg *g;
	int err = -EINVAL;
	u32 i;

	mutex_lock(&dev->mcg_mutex);
	g = mro_mcg_find(dev, addr);
	if (!g)
		goto out;
	for (i = 0; i < g->nqp; i++) {
		if (g->qpn[i] != qp->qpn)
			continue;
		spin_lock_bh(&dev->mcg_lock);
		g->qpn[i] = g->qpn[g->nqp - 1];
		g->nqp--;
		if (!g->nqp)
			list_del_rcu(&g->list);
		spin_unlock_bh(&dev->mcg_lock);
		err = 0;
		break;
	}
	if (!err && !g->nqp) {
		mro_mcg_ip(dev, addr, false);
		dev->nmcg--;
		kfree_rcu(g, rcu);
	}
out:
	mutex_unlock(&dev->mcg_mutex);
	return err;
}

/*
 * A datagram sent to a multicast group: give it to every attached QP.
 * Taken if one of them took it; else the first refusal is the verdict.
 */
enum mro_rx_verdict mro_mcast_rcv(struct mro_dev *dev, struct sk_buff *skb,
				  const struct mro_hdr *hdr)
{
	enum mro_rx_verdict v = MRO_RXV_NO_QP, w;
	u32 qpn[MRO_MAX_MCAST_QP_ATTACH];
	struct in6_addr daddr;
	struct mro_mcg *g;
	u32 i, n = 0;

	if (ip_hdr(skb)->version == 4)
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, &daddr);
	else
		daddr = ipv6_hdr(skb)->daddr;

	rcu_read_lock();
	g = mro_mcg_find(dev, &daddr);
	if (g) {
		spin_lock_bh(&dev->mcg_lock);
		n = g->nqp;
		memcpy(qpn, g->qpn, n * sizeof(qpn[0]));
		spin_unlock_bh(&dev->mcg_lock);
	}
	rcu_read_unlock();

	for (i = 0; i < n; i++) {
		struct mro_qp *qp = mro_qp_get(dev, qpn[i]);

		if (!qp)
			continue;
		spin_lock_bh(&qp->lock);
		w = mro_resp_ud_rcv(qp, hdr, skb);
		spin_unlock_bh(&qp->lock);
		mro_qp_notify_cqs(qp);
		mro_qp_put(qp);
		if (w == MRO_RXV_OK || v == MRO_RXV_NO_QP)
			v = w;
	}
	return v;
}

/* push the UDP header; the caller has set the transport offset */
static void mro_mcast_udp(struct sk_buff *skb, __be16 sport, __be16 dport)
{
	struct udphdr *uh;

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = sport;
	uh->dest = dport;
	uh->len = htons(skb->len);
	uh->check = 0;
}

/* send @skb (metaroce packet, no headers) to an IPv4 group along @rt */
int mro_mcast_xmit4(struct net *net, struct rtable *rt, struct sk_buff *skb,
		    __be32 saddr, __be32 daddr, u8 tos, __be16 sport,
		    __be16 dport)
{
	struct iphdr *iph;

	mro_mcast_udp(skb, sport, dport);
	udp_set_csum(true, skb, saddr, daddr, skb->len);
	skb_dst_set(skb, &rt->dst);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = tos;
	iph->frag_off = 0;
	iph->ttl = ip4_dst_hoplimit(&rt->dst);
	iph->protocol = IPPROTO_UDP;
	iph->saddr = saddr;
	iph->daddr = daddr;
	__ip_select_ident(net, iph, 1);
	skb->protocol = htons(ETH_P_IP);
	/* tot_len and the header checksum are set by ip_local_out() */
	return ip_local_out(net, NULL, skb);
}

#if IS_ENABLED(CONFIG_IPV6)
/* the same for an IPv6 group; the UDP checksum is mandatory there */
int mro_mcast_xmit6(struct net *net, struct dst_entry *dst,
		    struct sk_buff *skb, const struct in6_addr *saddr,
		    const struct in6_addr *daddr, u8 tclass, __be16 sport,
		    __be16 dport)
{
	struct ipv6hdr *ip6h;

	mro_mcast_udp(skb, sport, dport);
	udp6_set_csum(false, skb, saddr, daddr, skb->len);
	skb_dst_set(skb, dst);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, tclass, 0);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = ip6_dst_hoplimit(dst);
	ip6h->saddr = *saddr;
	ip6h->daddr = *daddr;
	skb->protocol = htons(ETH_P_IPV6);
	/* payload_len is set by ip6_local_out() */
	return ip6_local_out(net, NULL, skb);
}
#endif

void mro_mcast_cleanup(struct mro_dev *dev)
{
	struct mro_mcg *g, *tmp;

	/* the core detaches every QP before it destroys it: normally empty */
	list_for_each_entry_safe(g, tmp, &dev->mcgs, list) {
		list_del(&g->list);
		kfree(g);
	}
}
