// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce congestion control core: the algorithm registry, the per-QP
 * state every algorithm shares (window clamps, feedback validation, undo
 * of a spurious timeout), the windowed minimum RTT and pacing arithmetic.
 * Nothing here knows an algorithm's law.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <kunit/visibility.h>

#include "mro_cc.h"

/*
 * The registered algorithms, one per slot.  A slot's index also names
 * the algorithm's parameter block in each device (mro_cc_qp.h), so an
 * algorithm's id is its slot plus a generation that changes whenever the
 * slot is taken again: a device that chose an algorithm since removed
 * does not find its successor under the same id.
 */
static const struct mro_cc_ops __rcu *mro_cc_slots[MRO_CC_SLOTS];
static DEFINE_SPINLOCK(mro_cc_lock);	/* writers of mro_cc_slots */
static u32 mro_cc_gen;

static bool mro_cc_ops_valid(const struct mro_cc_ops *ops)
{
	unsigned int i;

	if (!ops->name || !ops->name[0] ||
	    strnlen(ops->name, MRO_CC_NAME_MAX) >= MRO_CC_NAME_MAX ||
	    !ops->init || !ops->on_ack || !ops->cwnd || !ops->pacing_rate ||
	    ops->priv_size > MRO_CC_PRIV_SIZE ||
	    ops->params_size > sizeof(struct mro_cc_aparams) ||
	    (ops->n_knobs && (!ops->knobs || !ops->defaults)))
		return false;
	for (i = 0; i < ops->n_knobs; i++)
		if (!ops->knobs[i].name ||
		    ops->knobs[i].off % sizeof(u32) ||
		    ops->knobs[i].off + sizeof(u32) > ops->params_size ||
		    ops->knobs[i].min > ops->knobs[i].max)
			return false;
	return true;
}

/* the slot holding @name (mro_cc_lock or RCU held); -1: none */
static int mro_cc_slot_of(const char *name)
{
	const struct mro_cc_ops *ops;
	unsigned int i;

	for (i = 0; i < MRO_CC_SLOTS; i++) {
		ops = rcu_dereference_check(mro_cc_slots[i],
					    lockdep_is_held(&mro_cc_lock));
		if (ops && sysfs_streq(name, ops->name))
			return i;
	}
	return -1;
}

int mro_cc_register(struct mro_cc_ops *ops)
{
	int slot = -1, i, err = 0;

	if (!mro_cc_ops_valid(ops))
		return -EINVAL;
	spin_lock(&mro_cc_lock);
	if (mro_cc_slot_of(ops->name) >= 0) {
		err = -EEXIST;
		goto unlock;
	}
	for (i = 0; i < MRO_CC_SLOTS && slot < 0; i++)
		if (!rcu_access_pointer(mro_cc_slots[i]))
			slot = i;
	if (slot < 0) {
		err = -ENOSPC;
		goto unlock;
	}
	ops->id = ++mro_cc_gen * MRO_CC_SLOTS + slot;
	rcu_assign_pointer(mro_cc_slots[slot], ops);
unlock:
	spin_unlock(&mro_cc_lock);
	return err;
}
EXPORT_SYMBOL_GPL(mro_cc_register);

void mro_cc_unregister(struct mro_cc_ops *ops)
{
	unsigned int slot = mro_cc_id_slot(ops->id);

	spin_lock(&mro_cc_lock);
	if (rcu_access_pointer(mro_cc_slots[slot]) == ops)
		RCU_INIT_POINTER(mro_cc_slots[slot], NULL);
	spin_unlock(&mro_cc_lock);
	/* a QP that found it holds a reference on its owner */
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(mro_cc_unregister);

const struct mro_cc_ops *mro_cc_find(const char *name)
{
	const struct mro_cc_ops *ops = NULL;
	int slot;

	rcu_read_lock();
	slot = mro_cc_slot_of(name);
	if (slot >= 0)
		ops = rcu_dereference(mro_cc_slots[slot]);
	rcu_read_unlock();
	return ops;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_find);

const struct mro_cc_ops *mro_cc_slot(unsigned int slot)
{
	const struct mro_cc_ops *ops;

	if (slot >= MRO_CC_SLOTS)
		return NULL;
	rcu_read_lock();
	ops = rcu_dereference(mro_cc_slots[slot]);
	rcu_read_unlock();
	return ops;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_slot);

/* an algorithm of this module needs no reference: it lives as long */
static bool mro_cc_owner_get(const struct mro_cc_ops *ops)
{
	return ops->owner == THIS_MODULE || try_module_get(ops->owner);
}

const struct mro_cc_ops *mro_cc_get(u32 id)
{
	const struct mro_cc_ops *ops;

	rcu_read_lock();
	ops = rcu_dereference(mro_cc_slots[mro_cc_id_slot(id)]);
	if (ops && (ops->id != id || !mro_cc_owner_get(ops)))
		ops = NULL;
	rcu_read_unlock();
	return ops;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_get);

void mro_cc_put(const struct mro_cc_ops *ops)
{
	if (ops && ops->owner != THIS_MODULE)
		module_put(ops->owner);
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_put);

void mro_cc_init(struct mro_cc *cc, const struct mro_cc_ops *ops,
		 const struct mro_cc_params *p, const void *ap)
{
	memset(cc, 0, sizeof(*cc));
	cc->ops = ops;
	cc->p = p;
	cc->ap = ap;
	mro_minrtt_reset(&cc->minrtt);
	ops->init(cc);
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_init);

void mro_cc_release(struct mro_cc *cc)
{
	if (cc->ops && cc->ops->release)
		cc->ops->release(cc);
	cc->ops = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_release);

u32 mro_cc_clamp(const struct mro_cc *cc, u64 cwnd_fp)
{
	u32 lo = clamp_t(u32, cc->p->min_cwnd, 1, MRO_CC_MAX_CWND);
	u32 hi = clamp_t(u32, cc->p->max_cwnd, lo, MRO_CC_MAX_CWND);

	return clamp_t(u64, cwnd_fp, (u64)lo << MRO_CC_FP_SHIFT,
		       (u64)hi << MRO_CC_FP_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_clamp);

u32 mro_cc_pkts(const struct mro_cc *cc)
{
	return max_t(u32, cc->cwnd_fp >> MRO_CC_FP_SHIFT, 1);
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_pkts);

u64 mro_cc_pace_window(const struct mro_cc *cc, u32 pkt_bytes)
{
	return mro_pace_rate(mro_cc_pkts(cc), pkt_bytes, cc->srtt_us,
			     cc->p->pace_gain_pct);
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_pace_window);

void mro_cc_on_ack(struct mro_cc *cc, const struct mro_cc_sample *s)
{
	if (s->rtt_us)
		cc->last_delay_us = s->delay_us;
	cc->ops->on_ack(cc, s);
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_on_ack);

void mro_cc_on_loss(struct mro_cc *cc, u32 now_us, u32 lost)
{
	if (lost && cc->ops->on_loss)
		cc->ops->on_loss(cc, now_us, lost);
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_on_loss);

void mro_cc_on_timeout(struct mro_cc *cc, u32 now_us)
{
	mro_cc_undo_save(cc);
	if (cc->ops->on_timeout)
		cc->ops->on_timeout(cc, now_us);
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_on_timeout);

void mro_cc_get_info(const struct mro_cc *cc, struct mro_cc_info *info)
{
	memset(info, 0, sizeof(*info));
	info->delay_us = cc->last_delay_us;
	if (cc->ops->get_info)
		cc->ops->get_info(cc, info);
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_get_info);

u32 mro_cc_pipe(u32 outstanding, u32 sacked, u32 lost)
{
	u64 gone = (u64)sacked + lost;

	return gone >= outstanding ? 0 : outstanding - (u32)gone;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_pipe);

unsigned int mro_cc_make_sample(struct mro_cc *cc, u32 now_us, u32 ts_echo,
				u16 ecn_ce, u32 acked, u32 inflight,
				u32 path_min_us, struct mro_cc_sample *s)
{
	unsigned int bad = MRO_CC_FB_OK;
	u32 rtt = now_us - ts_echo;
	u16 delta;

	memset(s, 0, sizeof(*s));
	s->now_us = now_us;
	s->acked = acked;
	/* a wrapped difference also catches echoes from the future */
	if (rtt <= MRO_CC_RTT_MAX_US) {
		mro_minrtt_update(&cc->minrtt, now_us, rtt,
				  MRO_CC_MINRTT_WIN_US);
		s->rtt_us = max_t(u32, rtt, 1);
		s->delay_us = mro_cc_path_delay(rtt,
						mro_minrtt_get(&cc->minrtt),
						path_min_us);
	} else {
		bad |= MRO_CC_FB_BAD_RTT;
	}

	if (!cc->ecn_synced) {
		cc->ecn_synced = true;
		cc->ecn_seen = ecn_ce;
		return bad;
	}
	delta = ecn_ce - cc->ecn_seen;
	if (delta >= 0x8000)
		return bad;	/* an older ACK overtaken by a newer one */
	if ((u64)delta > (u64)acked + inflight + MRO_CC_ECN_SLACK) {
		cc->ecn_seen = ecn_ce;	/* resynchronise, use nothing */
		return bad | MRO_CC_FB_BAD_ECN;
	}
	cc->ecn_seen = ecn_ce;
	s->ecn = delta;
	cc->ecn_total += delta;
	return bad;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_make_sample);

u32 mro_cc_path_delay(u32 rtt_us, u32 qp_min_us, u32 path_min_us)
{
	u32 base = max(qp_min_us, path_min_us);

	return rtt_us > base ? rtt_us - base : 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_path_delay);

void mro_minrtt_reset(struct mro_minrtt *m)
{
	m->cur = U32_MAX;
	m->prev = U32_MAX;
	m->epoch_us = 0;
	m->started = false;
}
EXPORT_SYMBOL_IF_KUNIT(mro_minrtt_reset);

void mro_minrtt_update(struct mro_minrtt *m, u32 now_us, u32 rtt_us,
		       u32 win_us)
{
	if (!m->started) {
		m->started = true;
		m->epoch_us = now_us;
	} else if (now_us - m->epoch_us >= win_us / 2) {
		/* more than a whole window since: the old half is gone too */
		m->prev = now_us - m->epoch_us >= win_us ? U32_MAX : m->cur;
		m->cur = U32_MAX;
		m->epoch_us = now_us;
	}
	m->cur = min(m->cur, rtt_us);
}
EXPORT_SYMBOL_IF_KUNIT(mro_minrtt_update);

u32 mro_minrtt_get(const struct mro_minrtt *m)
{
	return min(m->cur, m->prev);
}
EXPORT_SYMBOL_IF_KUNIT(mro_minrtt_get);

void mro_cc_undo_save(struct mro_cc *cc)
{
	if (cc->undo_valid)
		return;
	cc->undo_cwnd_fp = cc->cwnd_fp;
	cc->undo_ssthresh = cc->ssthresh;
	cc->undo_valid = true;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_undo_save);

bool mro_cc_undo(struct mro_cc *cc)
{
	if (!cc->undo_valid)
		return false;
	cc->undo_valid = false;
	if (!cc->ops->undo_cwnd)
		return false;
	cc->cwnd_fp = cc->ops->undo_cwnd(cc, cc->undo_cwnd_fp);
	cc->ssthresh = max(cc->ssthresh, cc->undo_ssthresh);
	cc->undos++;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_undo);

void mro_cc_undo_drop(struct mro_cc *cc)
{
	cc->undo_valid = false;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_undo_drop);

/* gain_pct % of cwnd * pkt_bytes per srtt, saturating */
u64 mro_pace_rate(u32 cwnd_pkts, u32 pkt_bytes, u32 srtt_us, u32 gain_pct)
{
	u64 bytes = (u64)cwnd_pkts * pkt_bytes;
	u64 factor = (u64)gain_pct * (USEC_PER_SEC / 100);

	if (!srtt_us || !gain_pct || !bytes)
		return 0;
	if (bytes > U64_MAX / factor)
		return U64_MAX;
	return div_u64(bytes * factor, srtt_us);
}
EXPORT_SYMBOL_IF_KUNIT(mro_pace_rate);

/* time to put @bytes on the wire at @rate; 0 = unpaced, at most 1 s */
u64 mro_pace_gap_ns(u32 bytes, u64 rate)
{
	if (!rate)
		return 0;
	return min_t(u64, div64_u64((u64)bytes * NSEC_PER_SEC, rate),
		     MRO_PACE_MAX_GAP_NS);
}
EXPORT_SYMBOL_IF_KUNIT(mro_pace_gap_ns);

/*
 * Earliest time of the packet after one sent now: the clock never lags
 * @now by more than @burst, so an idle QP earns at most a short burst.
 */
u64 mro_pace_next(u64 next_ns, u64 now_ns, u64 gap_ns, u64 burst_ns)
{
	u64 floor = now_ns > burst_ns ? now_ns - burst_ns : 0;

	return max(next_ns, floor) + gap_ns;
}
EXPORT_SYMBOL_IF_KUNIT(mro_pace_next);

/*
 * When the pacing timer of a sender held back at @next_ns wakes: once
 * @burst packets of @gap_ns each are due, not at the first, so one expiry
 * releases a burst (mro_pace_next() keeps up to that much credit) rather
 * than a packet.  A timer expiry costs more CPU than the packets it sends.
 */
u64 mro_pace_wake(u64 next_ns, u64 gap_ns, u32 burst)
{
	return next_ns + gap_ns * (max(burst, 1U) - 1);
}
EXPORT_SYMBOL_IF_KUNIT(mro_pace_wake);

/*
 * Packets the pacing clock lets go back to back: @burst_bytes of full
 * @mtu packets, but no more than @cwnd / @div (0: no such cap), and at
 * least one.  A burst is a queue at the bottleneck; as a share of the
 * window it is a share of the flow's own round trip, whatever the link's
 * speed, so a sparse flow behind it (a ping) waits a bounded fraction of
 * its own latency.
 */
u32 mro_pace_burst(u32 burst_bytes, u32 mtu, u32 cwnd, u32 div)
{
	u32 n = burst_bytes / max(mtu, 1U);

	if (div)
		n = min(n, cwnd / div);
	return max(n, 1U);
}
EXPORT_SYMBOL_IF_KUNIT(mro_pace_burst);
