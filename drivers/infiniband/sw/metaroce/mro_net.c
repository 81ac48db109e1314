// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce network layer: one pair of UDP tunnel sockets (IPv4, IPv6) on the
 * metaroce port in every network namespace that holds a metaroce device,
 * and the receive entry point that validates packets before anyone else
 * looks at them.
 */
#include <linux/skbuff.h>
#include <linux/inetdevice.h>
#include <linux/proc_fs.h>
#include <linux/seq_file_net.h>
#include <linux/ip.h>
#include <linux/if_vlan.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "mro.h"
#include "mro_qp.h"
#include "mro_skb.h"
#include "mro_wire.h"

struct mro_net {
	struct mutex lock;	/* users, sk4, sk6 */
	unsigned int users;	/* metaroce devices in this namespace */
	struct socket *sk4;
	struct socket *sk6;
	/* packets to our port on a netdev that has no metaroce device */
	atomic64_t rx_no_device;
};

static unsigned int mro_net_id __read_mostly;

/* the IPv6 socket of @net (lives while a device in @net does) */
struct sock *mro_net_sk6(struct net *net)
{
	struct mro_net *mn = net_generic(net, mro_net_id);
	struct socket *sock = READ_ONCE(mn->sk6);

	return sock ? sock->sk : NULL;
}

/* how each decoder error is counted and told to the drop tracepoint */
static const struct {
	enum mro_counter counter;
	enum skb_drop_reason reason;
} mro_wire_drops[MRO_WIRE_NR_ERR] = {
	[MRO_WIRE_SHORT] = { MRO_CNT_DROP_SHORT, SKB_DROP_REASON_PKT_TOO_SMALL },
	[MRO_WIRE_VERSION] = { MRO_CNT_DROP_VERSION,
			       SKB_DROP_REASON_UNHANDLED_PROTO },
	[MRO_WIRE_OPCODE] = { MRO_CNT_DROP_OPCODE,
			      SKB_DROP_REASON_UNHANDLED_PROTO },
	[MRO_WIRE_HDR_LEN] = { MRO_CNT_DROP_HDR_LEN, SKB_DROP_REASON_DEV_HDR },
	[MRO_WIRE_CRC] = { MRO_CNT_DROP_CRC, SKB_DROP_REASON_SKB_CSUM },
	[MRO_WIRE_FIELD] = { MRO_CNT_DROP_FIELD, SKB_DROP_REASON_DEV_HDR },
	[MRO_WIRE_LENGTH] = { MRO_CNT_DROP_LENGTH, SKB_DROP_REASON_DEV_HDR },
};

/*
 * The netdev whose metaroce device receives @skb.  Packets between two
 * devices of one host (or a device and itself) arrive on the loopback
 * device: their owner is the netdev that holds the destination address.
 * A packet of a VLAN arrives on the VLAN netdev: its device is the real
 * one's (the VLAN's addresses are GIDs of that device's port).  Called
 * under RCU (the UDP receive path holds it).
 */
static struct net_device *mro_rx_netdev(struct sk_buff *skb)
{
	struct net_device *ndev = skb->dev;

	if (ndev && (ndev->flags & IFF_LOOPBACK)) {
		if (ip_hdr(skb)->version == 4)
			ndev = __ip_dev_find(dev_net(ndev), ip_hdr(skb)->daddr,
					     false);
#if IS_ENABLED(CONFIG_IPV6)
		else
			ndev = ipv6_dev_find(dev_net(ndev),
					     &ipv6_hdr(skb)->daddr, NULL);
#else
		else
			ndev = NULL;
#endif
	}
	while (ndev && is_vlan_dev(ndev))
		ndev = vlan_dev_real_dev(ndev);
	return ndev;
}

/*
 * A packet of another wire version: a peer that runs another release
 * drops ours as we drop its, so say which once in a while (the counter
 * rx_drop_version has every one).  The version nibble was in the linear
 * area for the check that refused it.
 */
static void mro_rx_version_warn(struct mro_dev *dev, struct sk_buff *skb)
{
	u8 ver = skb_headlen(skb) ? skb->data[0] : 0;

	if (ip_hdr(skb)->version == 4)
		ibdev_warn_ratelimited(&dev->ib_dev,
				       "dropped a packet of wire version %u from %pI4: this end speaks version %u\n",
				       ver >> 4, &ip_hdr(skb)->saddr,
				       METAROCE_WIRE_VERSION);
	else
		ibdev_warn_ratelimited(&dev->ib_dev,
				       "dropped a packet of wire version %u from %pI6c: this end speaks version %u\n",
				       ver >> 4, &ipv6_hdr(skb)->saddr,
				       METAROCE_WIRE_VERSION);
}

/*
 * UDP encap_rcv: called in softirq for every datagram to our port.  The
 * packet is ours whatever happens to it (returns 0): dropped with a
 * reason and counted, or handed to mro_rcv().
 */
static int mro_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	enum skb_drop_reason reason;
	struct mro_dev *dev;
	struct mro_hdr hdr;
	unsigned int len;
	int err;

	dev = mro_dev_get_by_netdev(mro_rx_netdev(skb));
	if (!dev) {
		struct mro_net *mn = net_generic(sock_net(sk), mro_net_id);

		atomic64_inc(&mn->rx_no_device);
		reason = SKB_DROP_REASON_NO_SOCKET;
		goto drop;
	}

	mro_count(dev->stats, MRO_CNT_RCVD_PKTS, 1);
	reason = SKB_DROP_REASON_PKT_TOO_SMALL;
	/* the UDP layer pulled its header; make sure, it costs nothing */
	if (!pskb_may_pull(skb, sizeof(struct udphdr))) {
		mro_count(dev->stats, MRO_CNT_DROP_SHORT, 1);
		goto drop_dev;
	}
	/* not from a path's port: a local user's socket, or no metaroce */
	if (!mro_sport_ok(ntohs(udp_hdr(skb)->source))) {
		mro_count(dev->stats, MRO_CNT_DROP_SPORT, 1);
		reason = SKB_DROP_REASON_SOCKET_FILTER;
		goto drop_dev;
	}
	/* trust the UDP length only as far as it agrees with the skb */
	len = min_t(unsigned int, skb->len, ntohs(udp_hdr(skb)->len));
	if (len < sizeof(struct udphdr)) {
		mro_count(dev->stats, MRO_CNT_DROP_SHORT, 1);
		goto drop_dev;
	}
	__skb_pull(skb, sizeof(struct udphdr));
	len -= sizeof(struct udphdr);
	mro_count(dev->stats, MRO_CNT_RCVD_BYTES, len);

	/* headers pulled, payload left in the fragments */
	err = mro_skb_decode(skb, len, &hdr);
	if (err < 0) {
		mro_count(dev->stats, MRO_CNT_DROP_NOMEM, 1);
		reason = SKB_DROP_REASON_NOMEM;
		goto drop_dev;
	}
	if (err != MRO_WIRE_OK) {
		mro_count(dev->stats, mro_wire_drops[err].counter, 1);
		reason = mro_wire_drops[err].reason;
		if (err == MRO_WIRE_VERSION)
			mro_rx_version_warn(dev, skb);
		goto drop_dev;
	}
	hdr.ce = mro_cc_skb_ce(skb);
	if (hdr.ce)
		mro_count(dev->stats, MRO_CNT_CC_ECN_CE_RCVD, 1);
	mro_rcv(dev, skb, &hdr);	/* frees the packet */
	mro_dev_put(dev);
	return 0;

drop_dev:
	mro_dev_put(dev);
drop:
	kfree_skb_reason(skb, reason);
	return 0;
}

static struct socket *mro_sock_create(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {
		.encap_type = 1,
		.encap_rcv = mro_udp_encap_recv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(mro_udp_port),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.ipv6_v6only = 1;
	} else {
		cfg.family = AF_INET;
	}
	err = udp_sock_create(net, &cfg, &sock);
	if (err < 0)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tnl_cfg);
	return sock;
}

static void mro_net_release(struct mro_net *mn)
{
	if (mn->sk4)
		udp_tunnel_sock_release(mn->sk4);
	if (mn->sk6)
		udp_tunnel_sock_release(mn->sk6);
	mn->sk4 = NULL;
	mn->sk6 = NULL;
}

/* a device in @net needs the sockets; the first one creates them */
int mro_net_get(struct net *net)
{
	struct mro_net *mn = net_generic(net, mro_net_id);
	struct socket *sock;
	int err = 0;

	mutex_lock(&mn->lock);
	if (mn->users++)
		goto out;

	sock = mro_sock_create(net, false);
	if (IS_ERR(sock)) {
		err = PTR_ERR(sock);
		pr_err("%s: cannot bind UDP port %u (IPv4): %d\n",
		       MRO_DRV_NAME, mro_udp_port, err);
		mn->users--;
		goto out;
	}
	mn->sk4 = sock;
	/* IPv6 may be disabled in this namespace: carry on with IPv4 */
	sock = mro_sock_create(net, true);
	if (IS_ERR(sock))
		pr_info("%s: no IPv6 socket on UDP port %u: %ld\n",
			MRO_DRV_NAME, mro_udp_port, PTR_ERR(sock));
	else
		mn->sk6 = sock;
out:
	mutex_unlock(&mn->lock);
	return err;
}

void mro_net_put(struct net *net)
{
	struct mro_net *mn = net_generic(net, mro_net_id);

	mutex_lock(&mn->lock);
	if (!WARN_ON_ONCE(!mn->users) && !--mn->users)
		mro_net_release(mn);
	mutex_unlock(&mn->lock);
}

/*
 * /proc/net/metaroce, per namespace: what no device's counters can show,
 * "KEY VALUE" lines:
 *   udp_port      the module's UDP port
 *   devices       metaroce devices in this namespace
 *   rx_no_device  packets to the port that arrived on a netdev without a
 *                 metaroce device (dropped)
 */
static int mro_net_proc_show(struct seq_file *seq, void *v)
{
	struct mro_net *mn = net_generic(seq_file_single_net(seq), mro_net_id);

	seq_printf(seq, "udp_port %u\n", mro_udp_port);
	seq_printf(seq, "devices %u\n", READ_ONCE(mn->users));
	seq_printf(seq, "rx_no_device %lld\n",
		   (long long)atomic64_read(&mn->rx_no_device));
	return 0;
}

static int __net_init mro_pernet_init(struct net *net)
{
	struct mro_net *mn = net_generic(net, mro_net_id);

	mutex_init(&mn->lock);
	mn->users = 0;
	mn->sk4 = NULL;
	mn->sk6 = NULL;
	atomic64_set(&mn->rx_no_device, 0);
	if (IS_ENABLED(CONFIG_PROC_FS) &&
	    !proc_create_net_single(MRO_DRV_NAME, 0444, net->proc_net,
				    mro_net_proc_show, NULL))
		return -ENOMEM;
	return 0;
}

static void __net_exit mro_pernet_exit(struct net *net)
{
	struct mro_net *mn = net_generic(net, mro_net_id);

	remove_proc_entry(MRO_DRV_NAME, net->proc_net);
	/*
	 * Devices leave the table on NETDEV_UNREGISTER, which the namespace's
	 * device exit sends before this runs; release whatever is left.
	 */
	mutex_lock(&mn->lock);
	mro_net_release(mn);
	mn->users = 0;
	mutex_unlock(&mn->lock);
}

static struct pernet_operations mro_pernet_ops = {
	.init = mro_pernet_init,
	.exit = mro_pernet_exit,
	.id = &mro_net_id,
	.size = sizeof(struct mro_net),
};

/*
 * rdma_rxe binds UDP 4791 in init_net when it loads.  If that port is taken
 * rdma_rxe (or another RoCE v2 stack in software) is running, and we must
 * not load: we register with the same driver id.
 */
int mro_rxe_port_check(void)
{
	struct udp_port_cfg cfg = {
		.family = AF_INET,
		.local_udp_port = htons(MRO_RXE_UDP_PORT),
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(&init_net, &cfg, &sock);
	if (err == -EADDRINUSE) {
		pr_err("%s: UDP port %u is in use: rdma_rxe is loaded; metaroce shares its driver id and cannot run beside it (rmmod rdma_rxe first)\n",
		       MRO_DRV_NAME, MRO_RXE_UDP_PORT);
		return -EBUSY;
	}
	if (err)
		return err;
	udp_tunnel_sock_release(sock);
	return 0;
}

int mro_net_init(void)
{
	return register_pernet_subsys(&mro_pernet_ops);
}

void mro_net_exit(void)
{
	unregister_pernet_subsys(&mro_pernet_ops);
}
