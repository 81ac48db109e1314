// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce devices: `rdma link add`, our own device table (we never look
 * devices up by driver id: rdma_rxe shares it), netdev events that drive
 * the port, and teardown.
 */
#include <linux/ethtool.h>
#include <linux/random.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/wait.h>
#include <net/addrconf.h>

#include "mro_qp.h"

static LIST_HEAD(mro_devs);		/* RCU readers, writers hold the lock */
static DEFINE_MUTEX(mro_devs_lock);
static atomic_t mro_devs_alive = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(mro_devs_wq);

/* Find the device on @ndev and take a reference, from any context. */
struct mro_dev *mro_dev_get_by_netdev(struct net_device *ndev)
{
	struct mro_dev *dev, *found = NULL;

	if (!ndev)
		return NULL;
	rcu_read_lock();
	list_for_each_entry_rcu(dev, &mro_devs, list) {
		if (dev->ndev == ndev) {
			if (ib_device_try_get(&dev->ib_dev))
				found = dev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static const u32 mro_obj_max[MRO_NR_OBJ] = {
	[MRO_OBJ_QP] = MRO_MAX_QP,
	[MRO_OBJ_CQ] = MRO_MAX_CQ,
	[MRO_OBJ_PD] = MRO_MAX_PD,
	[MRO_OBJ_MR] = MRO_MAX_MR,
	[MRO_OBJ_MW] = MRO_MAX_MW,
};

/*
 * One more object of kind @o on @dev, within the limit the device
 * advertises (ib_device_attr.max_qp, ...): -ENOMEM beyond it.
 */
int mro_obj_charge(struct mro_dev *dev, enum mro_obj o)
{
	if (!atomic_add_unless(&dev->nobj[o], 1, mro_obj_max[o]))
		return -ENOMEM;
	return 0;
}

void mro_obj_uncharge(struct mro_dev *dev, enum mro_obj o)
{
	atomic_dec(&dev->nobj[o]);
}

/*
 * Reserve an unused id in [@min, @max] of @xa for @entry, chosen at
 * random: a QPN or a memory key index that an off-path sender cannot
 * guess from how many objects the host created before.  A few random
 * tries, then the lowest free id (a nearly full space).
 */
int mro_xa_alloc_random(struct xarray *xa, u32 *id, void *entry, u32 min,
			u32 max)
{
	u64 span = (u64)max - min + 1;
	int i, err;

	for (i = 0; i < MRO_ID_TRIES; i++) {
		*id = min + (u32)((get_random_u32() * span) >> 32);
		err = xa_insert(xa, *id, entry, GFP_KERNEL);
		if (err != -EBUSY)
			return err;
	}
	return xa_alloc(xa, id, entry, XA_LIMIT(min, max), GFP_KERNEL);
}

void mro_dev_put(struct mro_dev *dev)
{
	ib_device_put(&dev->ib_dev);
}

static struct mro_dev *mro_dev_find_locked(struct net_device *ndev)
{
	struct mro_dev *dev;

	lockdep_assert_held(&mro_devs_lock);
	list_for_each_entry(dev, &mro_devs, list)
		if (dev->ndev == ndev)
			return dev;
	return NULL;
}

/* Take @dev out of the table and drop its namespace's sockets; once. */
static void mro_dev_delist(struct mro_dev *dev)
{
	bool was_listed;

	mutex_lock(&mro_devs_lock);
	was_listed = dev->listed;
	if (was_listed) {
		list_del_rcu(&dev->list);
		dev->listed = false;
	}
	mutex_unlock(&mro_devs_lock);
	if (!was_listed)
		return;
	synchronize_rcu();
	mro_net_put(mro_dev_net(dev));
}

/* IB MTU enum for @bytes of payload room */
static enum ib_mtu mro_mtu_enum(int bytes)
{
	if (bytes >= 4096)
		return IB_MTU_4096;
	if (bytes >= 2048)
		return IB_MTU_2048;
	if (bytes >= 1024)
		return IB_MTU_1024;
	if (bytes >= 512)
		return IB_MTU_512;
	return IB_MTU_256;
}

/* IB speed/width that best describe an Ethernet link of @mbps */
static void mro_eth_speed(u32 mbps, u16 *speed, u8 *width)
{
	static const struct {
		u32 mbps;
		u16 speed;
		u8 width;
	} map[] = {
		{ 2500, IB_SPEED_SDR, IB_WIDTH_1X },
		{ 5000, IB_SPEED_DDR, IB_WIDTH_1X },
		{ 10000, IB_SPEED_FDR10, IB_WIDTH_1X },
		{ 20000, IB_SPEED_DDR, IB_WIDTH_4X },
		{ 25000, IB_SPEED_EDR, IB_WIDTH_1X },
		{ 40000, IB_SPEED_FDR10, IB_WIDTH_4X },
		{ 50000, IB_SPEED_HDR, IB_WIDTH_1X },
		{ 100000, IB_SPEED_EDR, IB_WIDTH_4X },
		{ 200000, IB_SPEED_HDR, IB_WIDTH_4X },
		{ 400000, IB_SPEED_NDR, IB_WIDTH_4X },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(map) - 1; i++)
		if (mbps <= map[i].mbps)
			break;
	*speed = map[i].speed;
	*width = map[i].width;
}

/* Refresh the port from the netdev; caller holds rtnl. */
static void mro_port_update(struct mro_dev *dev, bool notify)
{
	struct net_device *ndev = dev->ndev;
	struct ethtool_link_ksettings ks;
	enum ib_port_state state;
	u32 mbps = SPEED_UNKNOWN;
	int room;

	ASSERT_RTNL();
	room = (int)ndev->mtu - MRO_WIRE_OVERHEAD;
	dev->payload_mtu = max(room, 256);
	dev->active_mtu = mro_mtu_enum(room);
	/* link add refuses such a netdev; an MTU lowered later is told */
	if (ndev->mtu < MRO_MIN_NETDEV_MTU && !dev->mtu_too_small)
		pr_warn("%s: %s: MTU %u is below the minimum %u (IB MTU 256 + %u bytes of headers): packets will not fit\n",
			MRO_DRV_NAME, ndev->name, ndev->mtu, MRO_MIN_NETDEV_MTU,
			MRO_WIRE_OVERHEAD);
	dev->mtu_too_small = ndev->mtu < MRO_MIN_NETDEV_MTU;

	if (!__ethtool_get_link_ksettings(ndev, &ks))
		mbps = ks.base.speed;
	/* unknown (e.g. virtio without a speed): report 10 Gb/s */
	if (mbps == (u32)SPEED_UNKNOWN || !mbps)
		mbps = 10000;
	mro_eth_speed(mbps, &dev->active_speed, &dev->active_width);

	state = netif_running(ndev) && netif_carrier_ok(ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
	if (state == dev->port_state)
		return;
	if (state == IB_PORT_DOWN && dev->port_state == IB_PORT_ACTIVE)
		mro_count(dev->stats, MRO_CNT_LINK_DOWNED, 1);
	dev->port_state = state;
	if (notify) {
		struct ib_event ev = {
			.device = &dev->ib_dev,
			.element.port_num = 1,
			.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
							   IB_EVENT_PORT_ERR,
		};

		ib_dispatch_event(&ev);
	}
}

/* whether @ndev has an IP address, which a GID of the port stands for */
static bool mro_netdev_has_addr(struct net_device *ndev)
{
	struct in_device *in4;
	bool any = false;

	rcu_read_lock();
	in4 = __in_dev_get_rcu(ndev);
	if (in4 && rcu_dereference(in4->ifa_list))
		any = true;
#if IS_ENABLED(CONFIG_IPV6)
	if (!any) {
		struct inet6_dev *in6 = __in6_dev_get(ndev);

		any = in6 && !list_empty(&in6->addr_list);
	}
#endif
	rcu_read_unlock();
	return any;
}

int mro_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct net *net = dev_net(ndev);
	struct mro_dev *dev;
	int err;

	if (is_vlan_dev(ndev)) {
		pr_err("%s: %s is a VLAN device; add the link on its real device\n",
		       MRO_DRV_NAME, ndev->name);
		return -EOPNOTSUPP;
	}
	if (ndev->flags & IFF_LOOPBACK) {
		pr_err("%s: %s is a loopback device; devices of one host reach each other over it without a link of their own\n",
		       MRO_DRV_NAME, ndev->name);
		return -EOPNOTSUPP;
	}
	if (ndev->mtu < MRO_MIN_NETDEV_MTU) {
		pr_err("%s: %s: MTU %u is below the minimum %u (IB MTU 256 + %u bytes of headers)\n",
		       MRO_DRV_NAME, ndev->name, ndev->mtu, MRO_MIN_NETDEV_MTU,
		       MRO_WIRE_OVERHEAD);
		return -EINVAL;
	}

	dev = ib_alloc_device(mro_dev, ib_dev);
	if (!dev)
		return -ENOMEM;
	mro_set_ops(dev);
	mro_cc_dev_init(dev);
	mro_devkey_init(&dev->devkey);
	mro_dgram_rx_init(&dev->dgram);
	atomic_inc(&mro_devs_alive);
	INIT_LIST_HEAD(&dev->list);
	xa_init_flags(&dev->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->mems, XA_FLAGS_ALLOC1);
	xa_init_flags(&dev->srqs, XA_FLAGS_ALLOC1);
	xa_init_flags(&dev->ahs, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&dev->mcgs);
	mutex_init(&dev->mcg_mutex);
	spin_lock_init(&dev->mcg_lock);
	mro_stats_init(dev);
	dev->port_state = IB_PORT_NOP;	/* forces the first update */
	write_pnet(&dev->net, net);
	netdev_hold(ndev, &dev->ndev_tracker, GFP_KERNEL);
	dev->ndev = ndev;

	rtnl_lock();
	mro_port_update(dev, false);
	rtnl_unlock();

	err = mro_net_get(net);
	if (err)
		goto err_dealloc;

	mutex_lock(&mro_devs_lock);
	if (mro_dev_find_locked(ndev)) {
		mutex_unlock(&mro_devs_lock);
		pr_err("%s: %s already has a metaroce device\n", MRO_DRV_NAME,
		       ndev->name);
		mro_net_put(net);
		err = -EEXIST;
		goto err_dealloc;
	}
	dev->listed = true;
	list_add_tail_rcu(&dev->list, &mro_devs);
	mutex_unlock(&mro_devs_lock);

	err = mro_register_device(dev, ibdev_name);
	if (err) {
		pr_err("%s: registering %s on %s failed: %d\n", MRO_DRV_NAME,
		       ibdev_name, ndev->name, err);
		goto err_dealloc;	/* dealloc_driver delists it */
	}
	if (!mro_netdev_has_addr(ndev))
		pr_warn("%s: %s has no IPv4 or IPv6 address: %s reaches no peer until one is added\n",
			MRO_DRV_NAME, ndev->name, ibdev_name);
	return 0;

err_dealloc:
	ib_dealloc_device(&dev->ib_dev);
	return err;
}

/* ops.dealloc_driver: the last thing that happens to a device */
void mro_dev_dealloc(struct ib_device *ibdev)
{
	struct mro_dev *dev = to_mro_dev(ibdev);
	int i;

	mro_dev_delist(dev);
	mro_dgram_rx_destroy(&dev->dgram);	/* no datagram comes any more */
	if (dev->ndev)
		netdev_put(dev->ndev, &dev->ndev_tracker);
	dev->ndev = NULL;
	/* every object was destroyed before the device could be */
	WARN_ON(!xa_empty(&dev->qps) || !xa_empty(&dev->mems) ||
		!xa_empty(&dev->srqs) || !xa_empty(&dev->ahs));
	xa_destroy(&dev->qps);
	xa_destroy(&dev->mems);
	xa_destroy(&dev->srqs);
	xa_destroy(&dev->ahs);
	for (i = 0; i < MRO_NR_OBJ; i++)
		WARN_ON(atomic_read(&dev->nobj[i]));
	WARN_ON(!xa_empty(&dev->counters));
	xa_destroy(&dev->counters);
	mro_mcast_cleanup(dev);
	mro_devkey_destroy(&dev->devkey);
	mro_dev_sched_clear(dev);
	if (atomic_dec_and_test(&mro_devs_alive))
		wake_up(&mro_devs_wq);
}

/* Unregister every device; returns when all are gone (module exit). */
void mro_unregister_all(void)
{
	struct mro_dev *dev, *victim;

	for (;;) {
		victim = NULL;
		mutex_lock(&mro_devs_lock);
		list_for_each_entry(dev, &mro_devs, list) {
			if (ib_device_try_get(&dev->ib_dev)) {
				victim = dev;
				break;
			}
		}
		mutex_unlock(&mro_devs_lock);
		if (!victim)
			break;
		ib_unregister_device_and_put(&victim->ib_dev);
	}
	/* devices already on their way out (queued unregistration) */
	wait_event(mro_devs_wq, !atomic_read(&mro_devs_alive));
}

int mro_netdev_event(struct notifier_block *nb, unsigned long event,
		     void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct mro_dev *dev;

	mutex_lock(&mro_devs_lock);
	dev = mro_dev_find_locked(ndev);
	if (dev && !ib_device_try_get(&dev->ib_dev))
		dev = NULL;
	mutex_unlock(&mro_devs_lock);
	if (!dev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		/* also on a move to another namespace */
		mro_dev_delist(dev);
		ib_unregister_device_queued(&dev->ib_dev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
	case NETDEV_CHANGEUPPER:
		mro_port_update(dev, true);
		break;
	default:
		break;
	}
	mro_dev_put(dev);
	return NOTIFY_DONE;
}
