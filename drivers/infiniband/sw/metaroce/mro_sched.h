/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce path schedulers, in the manner of mptcp_sched_ops.  A scheduler
 * chooses the path of a connection's next new packet (get_send) and of a
 * retransmission (get_retrans), among the paths the path manager lets
 * carry traffic (mro_pathscore.h: active, unsuspended or with a
 * suspended path's trickle due).  It keeps its own state in the path
 * set's private area and in each path's (mro_sched_priv(),
 * mro_sched_path_priv()).  The choices that are the transport's own rules,
 * not a preference (the ACK rhythm's PSNs, READ responses, duplicates'
 * ACKs), are the path set's (mro_path.h).  Pure C on plain structs (KUnit
 * drives it).
 */
#ifndef MRO_SCHED_H
#define MRO_SCHED_H

#include <linux/list.h>
#include <linux/types.h>

#include "mro_path.h"

struct module;

#define MRO_SCHED_NAME_MAX	16	/* with the NUL */

/*
 * A scheduler.  Required: name, get_send, get_retrans; init and release
 * may be NULL.  All run under the QP's lock; a path index returned is
 * below ps->n.
 */
struct mro_sched_ops {
	struct list_head list;		/* registered ones (mro_sched.c) */
	const char *name;
	struct module *owner;
	size_t priv_size;		/* <= MRO_SCHED_PRIV_SIZE */
	size_t path_priv_size;		/* <= MRO_SCHED_PATH_PRIV_SIZE */
	/* the private areas are zeroed before init */
	void (*init)(struct mro_pathset *ps);
	void (*release)(struct mro_pathset *ps);
	/* the path of the next new packet */
	u16 (*get_send)(struct mro_pathset *ps);
	/*
	 * The path of a retransmission of a packet sent on the paths in the
	 * mask @avoid (bit p: path p): one outside @avoid whenever
	 * mro_path_spare() says there is one.
	 */
	u16 (*get_retrans)(struct mro_pathset *ps, u64 avoid);
};

extern const struct mro_sched_ops mro_sched_rr;
extern const struct mro_sched_ops mro_sched_weighted;

/* weighted: the weight of a path without loss, timeouts or RTT inflation */
#define MRO_WEIGHT_MAX		16
/* weighted: path @p's balance (|balance| <= ps->n * MRO_WEIGHT_MAX) */
s32 mro_sched_weighted_credit(struct mro_pathset *ps, u16 p);

static inline void *mro_sched_priv(struct mro_pathset *ps)
{
	return ps->sched_priv;
}

static inline void *mro_sched_path_priv(struct mro_pathset *ps, u16 p)
{
	return ps->path[p].sched_priv;
}

/*
 * Register a scheduler of another module (the built-in ones need not be):
 * -EINVAL if it lacks a required op or its private areas are too large,
 * -EEXIST if its name is taken.
 */
int mro_sched_register(struct mro_sched_ops *ops);
/* its QPs and selections hold references on its owner: none are left */
void mro_sched_unregister(struct mro_sched_ops *ops);
/* the scheduler called @name (NULL if none is), unreferenced */
const struct mro_sched_ops *mro_sched_find(const char *name);
/* ... and a reference on its owner (NULL if none or it is going away) */
const struct mro_sched_ops *mro_sched_get(const char *name);
/* another reference on @ops' owner; false if it is going away */
bool mro_sched_hold(const struct mro_sched_ops *ops);
/* drop a reference of mro_sched_get() or mro_sched_hold(); NULL is none */
void mro_sched_put(const struct mro_sched_ops *ops);

/*
 * Library of the schedulers: the next path in round-robin order that may
 * carry new packets (mro_path_usable()); when every active path is
 * suspended, the next active one; all retired: the next one anyway.
 */
u16 mro_sched_next_usable(struct mro_pathset *ps);
/*
 * The healthiest active, unsuspended path outside @avoid (lowest
 * mro_path_score(), ties in round-robin order); get_send's choice if
 * there is none.
 */
u16 mro_sched_healthiest(struct mro_pathset *ps, u64 avoid);

#endif /* MRO_SCHED_H */
