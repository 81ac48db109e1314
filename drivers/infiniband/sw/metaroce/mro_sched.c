// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce path schedulers by name: the built-in ones and those other
 * modules register, references on their owners, and the library the
 * schedulers share.
 *
 * A QP's path set and each selection of a scheduler (a device's, the
 * module parameter's) hold a reference on the scheduler's owner, as TCP's
 * congestion control does, so a module cannot leave while anything uses
 * its scheduler.  The built-in schedulers need none.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "mro_path.h"
#include "mro_pathscore.h"
#include "mro_sched.h"

static const struct mro_sched_ops *const mro_sched_builtin[] = {
	&mro_sched_rr,
	&mro_sched_weighted,
};

static LIST_HEAD(mro_sched_list);		/* registered (RCU) */
static DEFINE_SPINLOCK(mro_sched_lock);	/* writers of mro_sched_list */

/* the scheduler called @name (mro_sched_lock or RCU held) */
static const struct mro_sched_ops *mro_sched_lookup(const char *name)
{
	const struct mro_sched_ops *ops;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mro_sched_builtin); i++)
		if (sysfs_streq(name, mro_sched_builtin[i]->name))
			return mro_sched_builtin[i];
	list_for_each_entry_rcu(ops, &mro_sched_list, list,
				lockdep_is_held(&mro_sched_lock))
		if (sysfs_streq(name, ops->name))
			return ops;
	return NULL;
}

static bool mro_sched_ops_valid(const struct mro_sched_ops *ops)
{
	return ops->name && ops->name[0] &&
	       strnlen(ops->name, MRO_SCHED_NAME_MAX) < MRO_SCHED_NAME_MAX &&
	       ops->get_send && ops->get_retrans &&
	       ops->priv_size <= MRO_SCHED_PRIV_SIZE &&
	       ops->path_priv_size <= MRO_SCHED_PATH_PRIV_SIZE;
}

int mro_sched_register(struct mro_sched_ops *ops)
{
	int err = 0;

	if (!mro_sched_ops_valid(ops))
		return -EINVAL;
	spin_lock(&mro_sched_lock);
	if (mro_sched_lookup(ops->name))
		err = -EEXIST;
	else
		list_add_tail_rcu(&ops->list, &mro_sched_list);
	spin_unlock(&mro_sched_lock);
	return err;
}
EXPORT_SYMBOL_GPL(mro_sched_register);

void mro_sched_unregister(struct mro_sched_ops *ops)
{
	spin_lock(&mro_sched_lock);
	list_del_rcu(&ops->list);
	spin_unlock(&mro_sched_lock);
	/* lookups that found it took a reference or gave up */
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(mro_sched_unregister);

const struct mro_sched_ops *mro_sched_find(const char *name)
{
	const struct mro_sched_ops *ops;

	rcu_read_lock();
	ops = mro_sched_lookup(name);
	rcu_read_unlock();
	return ops;
}
EXPORT_SYMBOL_IF_KUNIT(mro_sched_find);

/* a scheduler of this module needs no reference: it lives as long */
bool mro_sched_hold(const struct mro_sched_ops *ops)
{
	return !ops->owner || ops->owner == THIS_MODULE ||
	       try_module_get(ops->owner);
}
EXPORT_SYMBOL_IF_KUNIT(mro_sched_hold);

const struct mro_sched_ops *mro_sched_get(const char *name)
{
	const struct mro_sched_ops *ops;

	rcu_read_lock();
	ops = mro_sched_lookup(name);
	if (ops && !mro_sched_hold(ops))
		ops = NULL;
	rcu_read_unlock();
	return ops;
}
EXPORT_SYMBOL_IF_KUNIT(mro_sched_get);

void mro_sched_put(const struct mro_sched_ops *ops)
{
	if (ops && ops->owner && ops->owner != THIS_MODULE)
		module_put(ops->owner);
}
EXPORT_SYMBOL_IF_KUNIT(mro_sched_put);

u16 mro_sched_next_usable(struct mro_pathset *ps)
{
	u16 start = ps->cursor, active = ps->n, i, p;

	for (i = 0; i < ps->n; i++) {
		p = (start + i) % ps->n;
		if (mro_path_usable(ps, p))
			break;
		if (active == ps->n && ps->path[p].state == MRO_PATH_ACTIVE)
			active = p;
	}
	if (i == ps->n)
		p = active < ps->n ? active : start;
	ps->cursor = (p + 1) % ps->n;
	return p;
}
EXPORT_SYMBOL_IF_KUNIT(mro_sched_next_usable);

u16 mro_sched_healthiest(struct mro_pathset *ps, u64 avoid)
{
	u16 best = mro_path_best(ps, avoid);

	if (best == ps->n)
		return ps->sched->get_send(ps);
	ps->rcursor = (best + 1) % ps->n;
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(mro_sched_healthiest);
