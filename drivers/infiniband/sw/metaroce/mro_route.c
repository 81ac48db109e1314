// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce route cache: a connected QP sends every packet of a path to
 * the same addresses and UDP ports, so the route of each path is looked up
 * once and kept in a dst_cache, which drops it when the routing tables
 * change (the dst's check fails).  An entry is keyed by the addresses and
 * the source port it was looked up for: a path given a fresh source port
 * (re-probe) or a QP given a new peer looks its route up again.
 *
 * Only the one context that transmits a QP's packets (mro_qp_tx_drain)
 * uses its entries, with BHs off for the dst_cache's per-CPU slots.
 */
#include <linux/slab.h>
#include <net/dst_cache.h>

#include "mro_qp.h"

struct mro_route {
	struct dst_cache dc;
	struct in6_addr saddr;		/* the key; IPv4 in the first word */
	struct in6_addr daddr;
	u16 sport;
	bool keyed;
};

int mro_routes_init(struct mro_qp *qp)
{
	u16 i, n = qp->paths.n;
	int err;

	if (!mro_qp_connected(qp) || !n)
		return 0;
	qp->routes = kcalloc(n, sizeof(*qp->routes), GFP_KERNEL);
	if (!qp->routes)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		err = dst_cache_init(&qp->routes[i].dc, GFP_KERNEL);
		if (err) {
			while (i--)
				dst_cache_destroy(&qp->routes[i].dc);
			kfree(qp->routes);
			qp->routes = NULL;
			return err;
		}
	}
	qp->nroutes = n;
	return 0;
}

void mro_routes_free(struct mro_qp *qp)
{
	u16 i;

	for (i = 0; i < qp->nroutes; i++)
		dst_cache_destroy(&qp->routes[i].dc);
	kfree(qp->routes);
	qp->routes = NULL;
	qp->nroutes = 0;
}

/*
 * The cache of path @path for this destination and source port, emptied
 * first if it held another one's route; NULL when the packet has none.
 */
struct dst_cache *mro_route_cache(struct mro_qp *qp, u16 path,
				  const struct in6_addr *saddr,
				  const struct in6_addr *daddr, u16 sport)
{
	struct mro_route *r;

	if (path >= qp->nroutes)
		return NULL;
	r = &qp->routes[path];
	if (!r->keyed || r->sport != sport || !ipv6_addr_equal(&r->saddr, saddr) ||
	    !ipv6_addr_equal(&r->daddr, daddr)) {
		dst_cache_reset(&r->dc);
		r->saddr = *saddr;
		r->daddr = *daddr;
		r->sport = sport;
		r->keyed = true;
	}
	return &r->dc;
}
