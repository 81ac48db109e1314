// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce congestion control core: the algorithm table, feedback
 * validation, the windowed minimum RTT and pacing arithmetic.
 */
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <kunit/visibility.h>

#include "mro_cc.h"

static const struct mro_cc_ops *const mro_cc_algos[] = {
	&mro_cc_dual,
	&mro_cc_off,
};

const struct mro_cc_ops *mro_cc_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mro_cc_algos); i++)
		if (sysfs_streq(name, mro_cc_algos[i]->name))
			return mro_cc_algos[i];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_find);

void mro_cc_init(struct mro_cc *cc, const struct mro_cc_ops *ops,
		 const struct mro_cc_params *p)
{
	memset(cc, 0, sizeof(*cc));
	cc->ops = ops;
	cc->p = p;
	cc->alpha = MRO_CC_ONE;
	mro_minrtt_reset(&cc->minrtt);
	mro_minrtt_reset(&cc->rev_min);
	cc->target_us = mro_cc_target(cc);
	ops->init(cc);
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_init);

u32 mro_cc_clamp(const struct mro_cc *cc, u64 cwnd_fp)
{
	u32 lo = clamp_t(u32, cc->p->min_cwnd, 1, MRO_CC_MAX_CWND);
	u32 hi = clamp_t(u32, cc->p->max_cwnd, lo, MRO_CC_MAX_CWND);

	return clamp_t(u64, cwnd_fp, (u64)lo << MRO_CC_FP_SHIFT,
		       (u64)hi << MRO_CC_FP_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_clamp);

u32 mro_cc_target(const struct mro_cc *cc)
{
	const struct mro_cc_params *p = cc->p;
	u32 base = max_t(u32, p->target_delay_us, 1);
	u32 hi = max(p->target_max_us, base);
	u64 t = base + div_u64((u64)cc->rttvar_us * p->target_var_pct, 100);

	if (p->target_var_pct)		/* a fixed target stays fixed */
		t += cc->noise_us;
	return min_t(u64, t, hi);
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_target);

u32 mro_cc_loss_target(const struct mro_cc *cc)
{
	u64 base = max_t(u32, cc->p->target_delay_us, 1);

	/* a fixed target is the base: the minimum is that target */
	return min_t(u64, base + cc->noise_us, mro_cc_target(cc));
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_loss_target);

void mro_cc_delay_cut(struct mro_cc *cc, u32 delay_us, u32 f)
{
	/* the first cut of an episode is judged */
	if (cc->cut_age || f < MRO_CC_NOISE_MIN_CUT)
		return;
	cc->cut_delay_us = delay_us;
	cc->cut_f = min_t(u32, f, MRO_CC_ONE);
	cc->cut_age = 1;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_delay_cut);

/* at a round's end: judge a pending cut against the round's delay @d */
static void mro_cc_noise(struct mro_cc *cc, u32 d)
{
	if (cc->cut_age && ++cc->cut_age > MRO_CC_NOISE_ROUNDS) {
		cc->cut_age = 0;
		/* d >= cut_delay * (1 - f / 2): it did not yield */
		if ((u64)d * 2 * MRO_CC_ONE >=
		    (u64)cc->cut_delay_us * (2 * MRO_CC_ONE - cc->cut_f))
			cc->noise_us = max(cc->noise_us, d);
		return;
	}
	if (d < cc->noise_us / 2)
		cc->noise_us -= cc->noise_us >> MRO_CC_NOISE_DECAY;
}

bool mro_cc_round(struct mro_cc *cc, const struct mro_cc_sample *s)
{
	if (!cc->round_valid) {
		cc->round_valid = true;
		cc->round_start_us = s->now_us;
		cc->round_sampled = false;
	}
	if (s->rtt_us) {
		cc->round_min_us = cc->round_sampled ?
				   min(cc->round_min_us, s->delay_us) :
				   s->delay_us;
		cc->round_sampled = true;
	}
	if (s->now_us - cc->round_start_us < max_t(u32, cc->srtt_us, 1))
		return false;
	if (cc->round_sampled)
		mro_cc_noise(cc, cc->round_min_us);
	cc->target_us = mro_cc_target(cc);
	/* a round without a sample says nothing: no queue, no cut */
	cc->round_delay_us = cc->round_sampled ? cc->round_min_us : 0;
	cc->delay_high = cc->round_sampled &&
			 cc->round_delay_us > cc->target_us;
	cc->round_start_us = s->now_us;
	cc->round_sampled = false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_round);

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

u32 mro_cc_rev_queue(struct mro_cc *cc, u32 now_us, u32 peer_ts)
{
	u32 owd = now_us - peer_ts;
	s32 rel = (s32)(owd - cc->rev_base);

	if (!cc->rev_synced || rel > (1 << 30) || rel < -(1 << 30)) {
		cc->rev_synced = true;
		cc->rev_base = owd;
		rel = 0;
		mro_minrtt_reset(&cc->rev_min);
	}
	owd = (u32)rel + (1U << 31);	/* from here on unsigned */
	/* windowed like the minimum RTT: a drifting clock moves it on */
	mro_minrtt_update(&cc->rev_min, now_us, owd, MRO_CC_MINRTT_WIN_US);
	cc->rev_q_us = owd - mro_minrtt_get(&cc->rev_min);
	return cc->rev_q_us;
}
EXPORT_SYMBOL_IF_KUNIT(mro_cc_rev_queue);

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
	cc->cwnd_fp = max(cc->cwnd_fp, mro_cc_clamp(cc, cc->undo_cwnd_fp));
	cc->ssthresh = max(cc->ssthresh, cc->undo_ssthresh);
	cc->timeouts = 0;
	cc->undo_valid = false;
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
