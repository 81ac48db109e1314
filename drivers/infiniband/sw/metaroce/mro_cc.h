/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce congestion control, sender side: the algorithm interface (in
 * the manner of tcp_congestion_ops), the registry, the per-QP state that
 * every algorithm shares (window, RTT, echoed feedback, undo), the sample
 * builder, a windowed minimum and the pacing arithmetic.  An algorithm
 * keeps its own state in the QP's private area (mro_cc_priv()) and its
 * own parameters in a per-device block.  Pure C on plain structs (KUnit
 * drives it); see Documentation/metaroce/congestion.rst.
 */
#ifndef MRO_CC_H
#define MRO_CC_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

struct module;

#define MRO_CC_FP_SHIFT		10	/* cwnd in 1/1024 packet */
#define MRO_CC_ONE		BIT(MRO_CC_FP_SHIFT)
#define MRO_CC_INIT_CWND	16	/* packets */
#define MRO_CC_MAX_CWND		16384	/* packets */
#define MRO_CC_MAX_MDF		(MRO_CC_ONE / 2)	/* largest cut per RTT */
#define MRO_CC_MINRTT_WIN_US	(10 * 1000 * 1000)
#define MRO_CC_RTT_MAX_US	(10 * 1000 * 1000)	/* saner samples only */
#define MRO_CC_ECN_SLACK	64	/* marks beyond acked + in flight */
#define MRO_PACE_BURST_BYTES	16384	/* default of pace_burst_bytes */
#define MRO_PACE_BURST_DIV	16	/* default of pace_burst_div */
#define MRO_PACE_MAX_GAP_NS	1000000000ULL

#define MRO_CC_NAME_MAX		16	/* with the NUL */
#define MRO_CC_PRIV_SIZE	128	/* bytes of per-QP algorithm state */
#define MRO_CC_PARAMS_MAX	16	/* u32 parameters per algorithm */
#define MRO_CC_SLOTS		8	/* algorithms registered at once */

/* tunables of one device that every algorithm shares; units in the names */
struct mro_cc_params {
	u32 min_cwnd;		/* packets */
	u32 max_cwnd;		/* packets */
	u32 pace_gain_pct;	/* 0: no pacing */
	u32 pace_burst_bytes;	/* payload the clock lets go at once */
	u32 pace_burst_div;	/* ... at most cwnd / this (0: no cap) */
	/* receiver credits (mro_credit.h) */
	u32 credits;		/* 0: grant the whole receive window */
	u32 credit_budget;	/* packets, ~ the link's BDP */
	u32 credit_quantum;	/* packets, smallest share */
	u32 spec_window;	/* packets before the first grant */
	u32 credit_idle_us;
};

/*
 * One u32 parameter: its name (the sysfs file, the module parameter with
 * "cc_" before it), where it sits in its block, its range.
 */
struct mro_cc_knob {
	const char *name;
	size_t off;
	u32 min;
	u32 max;
};

/* the knob of field @f in parameter struct @type, range @lo..@hi */
#define MRO_CC_KNOB(type, f, lo, hi)	{ #f, offsetof(type, f), lo, hi }

/*
 * The default of field @f of the parameter struct @var as the module
 * parameter cc_<f> (needs linux/moduleparam.h)
 */
#define MRO_CC_MODULE_PARAM(var, f, desc)				\
	module_param_named(cc_##f, var.f, uint, 0644);			\
	MODULE_PARM_DESC(cc_##f, desc)

/* an algorithm's parameter block: a struct of u32 fields, at most this */
struct mro_cc_aparams {
	u32 v[MRO_CC_PARAMS_MAX];
};

/* minimum over a sliding window, kept as two half-window minima */
struct mro_minrtt {
	u32 cur;		/* U32_MAX: none */
	u32 prev;
	u32 epoch_us;
	bool started;
};

/* one ACK's worth of feedback, validated by mro_cc_make_sample() */
struct mro_cc_sample {
	u32 now_us;
	u32 acked;		/* PSNs newly acknowledged cumulatively */
	u32 rtt_us;		/* 0: no valid sample */
	u32 delay_us;		/* rtt above the path's base (windowed min) */
	u32 ecn;		/* newly reported CE marks */
	u32 peer_ts;		/* the ACK's send time on the peer's clock */
};

/* what `rdma resource show qp -dd` shows of an algorithm */
struct mro_cc_info {
	u32 delay_us;		/* the last delay the law used */
	u32 target_us;		/* its delay target, 0: none */
	u32 noise_us;
	u32 rev_delay_us;	/* the ACKs' own queueing */
};

struct mro_cc;

/*
 * An algorithm.  Required: name, init, on_ack, cwnd, pacing_rate; the
 * rest may be NULL.  All run under the QP's lock, on plain state.
 */
struct mro_cc_ops {
	const char *name;
	struct module *owner;
	size_t priv_size;	/* of its per-QP state, <= MRO_CC_PRIV_SIZE */
	/* its parameters: a block of params_size bytes, defaults given */
	const struct mro_cc_knob *knobs;
	unsigned int n_knobs;
	size_t params_size;
	const void *defaults;

	void (*init)(struct mro_cc *cc);
	void (*release)(struct mro_cc *cc);
	void (*on_ack)(struct mro_cc *cc, const struct mro_cc_sample *s);
	/* @lost PSNs were declared lost by SACK */
	void (*on_loss)(struct mro_cc *cc, u32 now_us, u32 lost);
	void (*on_timeout)(struct mro_cc *cc, u32 now_us);
	/*
	 * A timeout proved spurious: the window to return to, given the
	 * one saved before it (@saved_fp); NULL: nothing is given back
	 */
	u32 (*undo_cwnd)(struct mro_cc *cc, u32 saved_fp);
	void (*get_info)(const struct mro_cc *cc, struct mro_cc_info *info);
	/* window in packets */
	u32 (*cwnd)(const struct mro_cc *cc);
	/* bytes per second; 0: unpaced */
	u64 (*pacing_rate)(const struct mro_cc *cc, u32 pkt_bytes);

	/* set by mro_cc_register() */
	u32 id;			/* slot and generation */
};

/* per-QP sender state */
struct mro_cc {
	const struct mro_cc_ops *ops;
	const struct mro_cc_params *p;
	const void *ap;		/* the algorithm's parameter block */
	u32 cwnd_fp;		/* packets << MRO_CC_FP_SHIFT */
	u32 ssthresh;		/* packets */
	u32 srtt_us;		/* the QP's smoothed RTT, fed by the glue */
	u32 rttvar_us;		/* and its RTT variation */
	struct mro_minrtt minrtt;
	u16 ecn_seen;		/* last ecn_ce echoed by the peer */
	bool ecn_synced;
	u32 undo_cwnd_fp;	/* before the first timeout of an episode */
	u32 undo_ssthresh;
	bool undo_valid;	/* a timeout's verdict is pending */
	/* telemetry */
	u32 undos;		/* spurious timeouts undone */
	u32 last_delay_us;	/* the last sample's */
	u32 decreases;		/* window cuts, counted by the algorithm */
	u64 ecn_total;
	u64 priv[MRO_CC_PRIV_SIZE / sizeof(u64)];
};

/*
 * The algorithm's own state.  Each algorithm wraps this in an accessor
 * that checks, at build time, that its struct fits:
 * BUILD_BUG_ON(sizeof(struct x) > MRO_CC_PRIV_SIZE).
 */
static inline void *mro_cc_priv(const struct mro_cc *cc)
{
	return (void *)cc->priv;
}

/*
 * The registry.  mro_cc_register() refuses a name already taken
 * (-EEXIST), a missing required op, private state or parameters larger
 * than the fixed areas (-EINVAL) and a full table (-ENOSPC).  Lookups
 * are RCU-safe.  mro_cc_get() also takes a reference on the owner (none
 * for an algorithm of this module), mro_cc_put() drops it.
 */
int mro_cc_register(struct mro_cc_ops *ops);
void mro_cc_unregister(struct mro_cc_ops *ops);
/* by name (sysfs-style: a trailing newline is ignored); NULL: unknown */
const struct mro_cc_ops *mro_cc_find(const char *name);
/* by mro_cc_ops.id, with a reference on the owner; NULL: gone */
const struct mro_cc_ops *mro_cc_get(u32 id);
void mro_cc_put(const struct mro_cc_ops *ops);
/* the algorithm in slot @slot, for walking the table; NULL: free */
const struct mro_cc_ops *mro_cc_slot(unsigned int slot);

static inline unsigned int mro_cc_id_slot(u32 id)
{
	return id % MRO_CC_SLOTS;
}

/*
 * Start a QP's sender on @ops with the shared parameters @p and the
 * algorithm's own @ap; mro_cc_release() ends it (the owner's reference
 * taken by mro_cc_get() is the caller's to drop).
 */
void mro_cc_init(struct mro_cc *cc, const struct mro_cc_ops *ops,
		 const struct mro_cc_params *p, const void *ap);
void mro_cc_release(struct mro_cc *cc);
/* the window clamped to the parameters, in packets << MRO_CC_FP_SHIFT */
u32 mro_cc_clamp(const struct mro_cc *cc, u64 cwnd_fp);
/* the window in whole packets, at least 1 (an ops->cwnd) */
u32 mro_cc_pkts(const struct mro_cc *cc);
/*
 * pace_gain_pct % of the window per srtt, 0 before the first RTT sample
 * (an ops->pacing_rate)
 */
u64 mro_cc_pace_window(const struct mro_cc *cc, u32 pkt_bytes);

/* feedback into the algorithm (optional ops handled here) */
void mro_cc_on_ack(struct mro_cc *cc, const struct mro_cc_sample *s);
void mro_cc_on_loss(struct mro_cc *cc, u32 now_us, u32 lost);
/* saves the window for an undo first (mro_cc_undo()) */
void mro_cc_on_timeout(struct mro_cc *cc, u32 now_us);
void mro_cc_get_info(const struct mro_cc *cc, struct mro_cc_info *info);

/*
 * The queueing delay of an RTT sample that came back on a path whose own
 * minimum RTT is @path_min_us (0: none yet): measured from the larger of
 * that and the QP's windowed minimum @qp_min_us, so a path that is
 * longer than the others (ECMP routes of different length, skewed
 * links) does not read its extra propagation delay as a queue.
 */
u32 mro_cc_path_delay(u32 rtt_us, u32 qp_min_us, u32 path_min_us);
/*
 * Packets really in the network: sent and not acknowledged (@outstanding),
 * minus those SACKed above a hole and those declared lost (RFC 6675's
 * pipe; a retransmission puts a lost one back).  Saturates at 0.
 */
u32 mro_cc_pipe(u32 outstanding, u32 sacked, u32 lost);

enum mro_cc_feedback {
	MRO_CC_FB_OK = 0,
	MRO_CC_FB_BAD_RTT = 1,	/* echo in the future or > 10 s old */
	MRO_CC_FB_BAD_ECN = 2,	/* more marks than packets could carry */
};

/*
 * Build a sample from an ACK: @ts_echo and @ecn_ce are the peer's
 * (untrusted) echoes, @acked PSNs were newly acknowledged and @inflight are
 * still out; @path_min_us is the minimum RTT of the path the echoed packet
 * took (0: unknown), the delay's base with the windowed minimum
 * (mro_cc_path_delay()).  Returns MRO_CC_FB_* bits for what was rejected.
 */
unsigned int mro_cc_make_sample(struct mro_cc *cc, u32 now_us, u32 ts_echo,
				u16 ecn_ce, u32 acked, u32 inflight,
				u32 path_min_us, struct mro_cc_sample *s);

void mro_minrtt_reset(struct mro_minrtt *m);
void mro_minrtt_update(struct mro_minrtt *m, u32 now_us, u32 rtt_us,
		       u32 win_us);
/* U32_MAX when there is no sample */
u32 mro_minrtt_get(const struct mro_minrtt *m);

/*
 * Before a timeout acts: keep the window it may have to give back (the
 * first timeout of an episode keeps the window from before the episode).
 * mro_cc_undo() returns it, through the algorithm's undo_cwnd, once the
 * timeout proved spurious and says whether it did; mro_cc_undo_drop()
 * forgets it when it proved genuine.
 */
void mro_cc_undo_save(struct mro_cc *cc);
bool mro_cc_undo(struct mro_cc *cc);
void mro_cc_undo_drop(struct mro_cc *cc);

/* pacing arithmetic; rates in bytes per second, times in ns */
u64 mro_pace_rate(u32 cwnd_pkts, u32 pkt_bytes, u32 srtt_us, u32 gain_pct);
u64 mro_pace_gap_ns(u32 bytes, u64 rate);
u64 mro_pace_next(u64 next_ns, u64 now_ns, u64 gap_ns, u64 burst_ns);
u64 mro_pace_wake(u64 next_ns, u64 gap_ns, u32 burst);
u32 mro_pace_burst(u32 burst_bytes, u32 mtu, u32 cwnd, u32 div);

#endif /* MRO_CC_H */
