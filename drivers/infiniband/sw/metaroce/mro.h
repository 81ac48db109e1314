/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce: device-wide state and the glue between the layers.
 * See Documentation/metaroce/design.rst for the layer map.
 */
#ifndef MRO_H
#define MRO_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>

#include "mro_cc_qp.h"
#include "mro_compat.h"
#include "mro_counters.h"
#include "mro_devkey.h"
#include "mro_dgram.h"
#include "mro_obj.h"
#include "mro_param.h"

struct mro_sched_ops;

#define MRO_DRV_NAME	"metaroce"
#define MRO_LINK_TYPE	"metaroce"
#define MRO_VERSION	"0.9.0"

/* the smallest netdev MTU that carries a packet of the smallest IB MTU */
#define MRO_MIN_NETDEV_MTU	(256 + MRO_WIRE_OVERHEAD)

/* one metaroce ib_device on one netdev */
/* objects counted against the limits the device advertises */
enum mro_obj {
	MRO_OBJ_QP,
	MRO_OBJ_CQ,
	MRO_OBJ_PD,
	MRO_OBJ_MR,
	MRO_OBJ_MW,
	MRO_NR_OBJ
};

struct mro_dev {
	struct ib_device ib_dev;

	struct net_device *ndev;	/* held from newlink to dealloc */
	netdevice_tracker ndev_tracker;
	possible_net_t net;		/* ndev's namespace at newlink */

	struct ib_device_attr attr;	/* what query_device reports */

	struct list_head list;		/* mro_devs, under mro_devs_lock */
	bool listed;

	/* port, written under rtnl by the netdev notifier */
	enum ib_port_state port_state;
	enum ib_mtu active_mtu;
	u16 active_speed;
	u8 active_width;
	unsigned int payload_mtu;	/* bytes of payload per packet */
	bool mtu_too_small;		/* the netdev MTU fell below the minimum */

	atomic64_t stats[MRO_NR_COUNTERS];
	/*
	 * Per-QP counter objects (mro_qpstats.c).  The core shows a port
	 * counter as our value plus the sum of the counter objects (live
	 * and freed), so the port value leaves out what they hold.
	 */
	struct xarray counters;		/* counter id -> struct mro_cntr */
	struct mutex cntr_mutex;	/* bind/unbind/free vs. port reads */
	u64 cntr_base[MRO_NR_COUNTERS];	/* sum of the live objects' bases */
	u64 cntr_gone[MRO_NR_COUNTERS];	/* final values of freed objects */
	/* optional per-path-slot counters (mro_counters.c) */
	struct mutex slot_mutex;	/* readers vs. QPs folding in */
	DECLARE_BITMAP(slot_on, MRO_NR_SLOT_STATS);
	u64 slot_gone[MRO_NR_SLOT_STATS];	/* destroyed QPs */
	u32 paths;			/* paths per new QP; 0: param */
	u32 window;			/* window of new QPs; 0: param */
	/*
	 * path scheduler of new QPs, with a reference (mro_sysfs.c); NULL:
	 * the `sched` parameter's
	 */
	const struct mro_sched_ops __rcu *sched;
	struct mro_cc_dev cc;		/* congestion control (mro_cc_*.c) */
	struct mro_devkey devkey;	/* device keys, protection mode */
	struct mro_dgram_rx dgram;	/* datagram senders' keys */

	/*
	 * Objects the receive path finds by number.  Writers (create and
	 * destroy verbs, process context) take the xarray lock; readers use
	 * RCU and kref_get_unless_zero().
	 */
	struct xarray qps;		/* QPN -> struct mro_qp */
	struct xarray mems;		/* key >> 8 -> struct mro_mem */
	struct xarray srqs;		/* srq_num -> struct mro_srq */
	struct xarray ahs;		/* ah_num -> struct mro_ah */
	struct list_head mcgs;		/* multicast groups (mro_mcast.c) */
	struct mutex mcg_mutex;		/* joins and leaves */
	spinlock_t mcg_lock;		/* attached QPN lists */
	u32 nmcg;
	u32 srq_next;			/* cursors for xa_alloc_cyclic() */
	atomic_t nobj[MRO_NR_OBJ];	/* objects held, mro_obj_charge() */
	u32 ah_next;
};

struct mro_ucontext {
	struct ib_ucontext ibuc;
};

struct mro_pd {
	struct ib_pd ibpd;
};

static inline struct mro_dev *to_mro_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mro_dev, ib_dev);
}

static inline struct net *mro_dev_net(struct mro_dev *dev)
{
	return read_pnet(&dev->net);
}

/* module parameters: mro_main.c, mro_qp.c */
extern unsigned int mro_udp_port;
extern unsigned int mro_npaths;
extern unsigned int mro_txwin;

/* mro_dev.c: device table, link add, netdev events */
int mro_obj_charge(struct mro_dev *dev, enum mro_obj o);
void mro_obj_uncharge(struct mro_dev *dev, enum mro_obj o);

#define MRO_QPN_MIN		16	/* below: QP0, QP1 and reserved */
#define MRO_ID_TRIES		8	/* random ids tried before the lowest */
int mro_xa_alloc_random(struct xarray *xa, u32 *id, void *entry, u32 min,
			u32 max);
int mro_newlink(const char *ibdev_name, struct net_device *ndev);
struct mro_dev *mro_dev_get_by_netdev(struct net_device *ndev);
void mro_dev_put(struct mro_dev *dev);
void mro_unregister_all(void);
int mro_netdev_event(struct notifier_block *nb, unsigned long event,
		     void *ptr);
void mro_dev_dealloc(struct ib_device *ibdev);

/* mro_net.c: per-namespace UDP sockets and the receive entry */
int mro_net_init(void);
void mro_net_exit(void);
int mro_net_get(struct net *net);
void mro_net_put(struct net *net);
int mro_rxe_port_check(void);
struct sock *mro_net_sk6(struct net *net);

/* mro_sysfs.c: DEV/board_id, DEV/ports/1/{metaroce,cc}/ in /sys/class/infiniband */
extern const struct attribute_group mro_dev_attr_group;
extern const struct attribute_group *mro_port_groups[];
u16 mro_dev_npaths(struct mro_dev *dev);
u32 mro_dev_window(struct mro_dev *dev);
/* the scheduler of a new QP, with a reference (mro_sched_put()) */
const struct mro_sched_ops *mro_dev_sched_get(struct mro_dev *dev);
/* drop the device's own selection (its removal) */
void mro_dev_sched_clear(struct mro_dev *dev);

/* mro_verbs.c: the ib_device_ops table and its registration */
void mro_set_ops(struct mro_dev *dev);
int mro_register_device(struct mro_dev *dev, const char *ibdev_name);

#endif /* MRO_H */
