// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce transmit: build a packet (headers + payload + CRC32C) for a
 * path, then route it with the UDP ports in the flow key (so L4-hash ECMP
 * spreads the paths) in the device's network namespace and send it.  A
 * connected QP's routes are cached per path (mro_route.c).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/dst_cache.h>
#include <net/inet_ecn.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "mro_qp.h"

/* where a built packet goes; lives in skb->cb until transmission */
struct mro_skb_cb {
	union {
		struct in6_addr v6;
		__be32 v4;
	} saddr, daddr;
	u16 sport;
	u16 path;
	u16 hdr_len;
	u8 family;
	u8 ect;
	bool cached;		/* the QP's peer: cache the route per path */
	bool sealed;		/* protected: sealed when it leaves */
};

static struct mro_skb_cb *mro_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct mro_skb_cb) > sizeof(skb->cb));
	return (struct mro_skb_cb *)skb->cb;
}

struct sk_buff *mro_tx_build(struct mro_qp *qp, const struct mro_av *av,
			     struct mro_hdr *hdr, u32 payload_len,
			     void **payload)
{
	struct net_device *ndev = qp->dev->ndev;
	bool ud = mro_qp_is_ud(qp);
	bool sealed = (ud ? !!qp->dgram : !!qp->prot) &&
		      (mro_op(hdr->opcode)->flags & METAROCE_F_SEALED);
	unsigned int hlen, headroom, trailer;
	int len;
	struct mro_skb_cb *cb;
	struct sk_buff *skb;
	void *buf;

	if (!ndev)
		return NULL;
	/* a protected connection sends nothing but HELLO before its keys */
	if (sealed && !ud && !qp->prot->keyed)
		return NULL;
	if (sealed && ud)
		mro_dgram_tx_fill(qp->dgram, hdr);
	else if (sealed)
		hdr->flags |= METAROCE_F_SEALED;
	len = mro_wire_hdr_len(hdr->opcode, hdr->flags);
	if (len < 0)
		return NULL;
	trailer = mro_wire_trailer_len(hdr->flags);
	hlen = len;
	headroom = LL_RESERVED_SPACE(ndev) + sizeof(struct ipv6hdr) +
		   sizeof(struct udphdr);
	skb = alloc_skb(headroom + hlen + payload_len + trailer, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, headroom);
	buf = skb_put(skb, hlen + payload_len + trailer);
	if (mro_wire_encode(hdr, buf, hlen) != hlen) {
		kfree_skb(skb);
		return NULL;
	}
	*payload = (u8 *)buf + hlen;

	cb = mro_cb(skb);
	cb->family = av->family;
	cb->saddr.v6 = av->saddr.v6;
	cb->daddr.v6 = av->daddr.v6;
	cb->sport = hdr->path < qp->paths.n ? qp->paths.path[hdr->path].sport :
		    MRO_SPORT_BASE;
	cb->ect = !!(hdr->flags & METAROCE_F_ECT);
	cb->path = hdr->path;
	cb->cached = av == &qp->av && mro_qp_connected(qp);
	cb->hdr_len = hlen;
	cb->sealed = sealed;
	return skb;
}

void mro_tx_seal(struct sk_buff *skb)
{
	/* a protected packet gets its tag when it leaves */
	if (!mro_cb(skb)->sealed)
		mro_wire_seal(skb->data, skb->len - METAROCE_CRC_LEN);
}

/*
 * Seal the protected packets of @batch, in order, as they leave: each
 * takes the connection's next counter value.  One that cannot be sealed
 * is dropped; an exhausted counter ends the QP (it must be rekeyed).
 */
void mro_tx_seal_batch(struct mro_qp *qp, struct sk_buff_head *batch)
{
	struct sk_buff *skb, *tmp;
	int err;

	lockdep_assert_held(&qp->lock);
	skb_queue_walk_safe(batch, skb, tmp) {
		if (!mro_cb(skb)->sealed)
			continue;
		if (mro_qp_is_ud(qp))
			err = mro_dgram_seal(qp->dgram, skb,
					     mro_cb(skb)->hdr_len);
		else
			err = mro_prot_seal(qp, skb, mro_cb(skb)->hdr_len);
		if (!err)
			continue;
		__skb_unlink(skb, batch);
		mro_qp_count(qp, MRO_CNT_TX_ERR, 1);
		kfree_skb_reason(skb, SKB_DROP_REASON_NOT_SPECIFIED);
		if (err == -EKEYEXPIRED)
			mro_qp_error(qp);
	}
}

/* the route cache for @skb's path and addresses, if it may use one */
static struct dst_cache *mro_tx_cache(struct mro_qp *qp, struct sk_buff *skb)
{
	struct mro_skb_cb *cb = mro_cb(skb);

	if (!cb->cached)
		return NULL;
	return mro_route_cache(qp, cb->path, &cb->saddr.v6, &cb->daddr.v6,
			       cb->sport);
}

static int mro_xmit4(struct mro_qp *qp, struct net *net, struct sk_buff *skb)
{
	struct dst_cache *dc = mro_tx_cache(qp, skb);
	struct mro_skb_cb *cb = mro_cb(skb);
	struct mro_dev *dev = qp->dev;
	__be16 sport = htons(cb->sport), dport = htons(mro_udp_port);
	__be32 saddr = cb->saddr.v4, daddr = cb->daddr.v4;
	u8 tos = cb->ect ? INET_ECN_ECT_0 : 0;
	struct flowi4 fl = {
		.daddr = daddr,
		.saddr = saddr,
		.flowi4_proto = IPPROTO_UDP,
		.fl4_sport = sport,
		.fl4_dport = dport,
	};
	struct rtable *rt = NULL;

	/* a multicast group is reached through our own netdev */
	if (ipv4_is_multicast(daddr) && dev->ndev)
		fl.flowi4_oif = dev->ndev->ifindex;
	local_bh_disable();	/* the cache's per-CPU slot */
	if (dc)
		rt = dst_cache_get_ip4(dc, &fl.saddr);
	if (!rt) {
		rt = ip_route_output_key(net, &fl);
		if (!IS_ERR(rt) && dc)
			dst_cache_set_ip4(dc, &rt->dst, fl.saddr);
	}
	local_bh_enable();
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	memset(skb->cb, 0, sizeof(skb->cb));
	if (ipv4_is_multicast(daddr)) {
		/* consumes the skb, whatever happens to it */
		mro_mcast_xmit4(net, rt, skb, fl.saddr, daddr, tos, sport,
				dport);
		return 0;
	}
	udp_tunnel_xmit_skb(rt, NULL, skb, fl.saddr, daddr, tos,
			    ip4_dst_hoplimit(&rt->dst), htons(IP_DF), sport,
			    dport, false, true);
	return 0;
}

static int mro_xmit6(struct mro_qp *qp, struct net *net, struct sk_buff *skb)
{
	struct dst_cache *dc = mro_tx_cache(qp, skb);
	struct mro_skb_cb *cb = mro_cb(skb);
	struct mro_dev *dev = qp->dev;
	__be16 sport = htons(cb->sport), dport = htons(mro_udp_port);
	struct in6_addr saddr = cb->saddr.v6, daddr = cb->daddr.v6;
	u8 tclass = cb->ect ? INET_ECN_ECT_0 : 0;
	struct sock *sk = mro_net_sk6(net);
	struct flowi6 fl6 = {
		.daddr = daddr,
		.saddr = saddr,
		.flowi6_proto = IPPROTO_UDP,
		.fl6_sport = sport,
		.fl6_dport = dport,
	};
	struct dst_entry *dst = NULL;

	if (!sk || !ipv6_stub->ipv6_dst_lookup_flow)
		return -EAFNOSUPPORT;
	if (ipv6_addr_is_multicast(&daddr) && dev->ndev)
		fl6.flowi6_oif = dev->ndev->ifindex;
	local_bh_disable();	/* the cache's per-CPU slot */
#if IS_ENABLED(CONFIG_IPV6)
	if (dc)
		dst = dst_cache_get_ip6(dc, &fl6.saddr);
#endif
	if (!dst) {
		dst = ipv6_stub->ipv6_dst_lookup_flow(net, sk, &fl6, NULL);
#if IS_ENABLED(CONFIG_IPV6)
		if (!IS_ERR(dst) && dc)
			dst_cache_set_ip6(dc, dst, &fl6.saddr);
#endif
	}
	local_bh_enable();
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	memset(skb->cb, 0, sizeof(skb->cb));
	if (IS_ENABLED(CONFIG_IPV6) && ipv6_addr_is_multicast(&daddr)) {
		mro_mcast_xmit6(net, dst, skb, &saddr, &daddr, tclass, sport,
				dport);
		return 0;
	}
	/*
	 * No stats device: the tunnel helpers count into a tunnel netdev's
	 * per-CPU tstats, which an ordinary NIC does not have (6.1 writes
	 * through its NULL pointer, 6.12 warns).
	 */
	udp_tunnel6_xmit_skb(dst, sk, skb, NULL, &saddr, &daddr, tclass,
			     ip6_dst_hoplimit(dst), 0, sport, dport, false);
	return 0;
}

void mro_tx_send_list(struct mro_qp *qp, struct sk_buff_head *list)
{
	struct mro_dev *dev = qp->dev;
	struct net *net = mro_dev_net(dev);
	struct sk_buff *skb;
	int err;

	while ((skb = __skb_dequeue(list))) {
		unsigned int len = skb->len;

		if (mro_cb(skb)->family == AF_INET)
			err = mro_xmit4(qp, net, skb);
		else
			err = mro_xmit6(qp, net, skb);
		if (err) {
			mro_qp_count(qp, MRO_CNT_TX_ERR, 1);
			kfree_skb_reason(skb, SKB_DROP_REASON_IP_OUTNOROUTES);
			continue;
		}
		mro_qp_count(qp, MRO_CNT_SENT_PKTS, 1);
		mro_qp_count(qp, MRO_CNT_SENT_BYTES, len);
	}
}
