// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metaroce loss detection rules and SACK consumption (see mro_loss.h) */
#include <linux/bitops.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "mro_loss.h"
#include "mro_psn.h"

u32 mro_loss_reorder(u16 npaths, u32 inflight)
{
	return clamp_t(u32, inflight / 4, MRO_DUPTHRESH,
		       MRO_DUPTHRESH + 3 * (u32)npaths);
}
EXPORT_SYMBOL_IF_KUNIT(mro_loss_reorder);

u32 mro_loss_reo_wnd(u32 srtt, u32 rttvar, u8 steps, u32 spread)
{
	u64 base = max(srtt / 4, rttvar);
	u64 cap = srtt + 4ULL * rttvar;
	u64 wnd = base * clamp_t(u8, steps, 1, MRO_REO_STEPS_MAX) + spread;

	/* callers compare it as a signed time difference */
	return min3(wnd, cap, (u64)S32_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(mro_loss_reo_wnd);

/* the earliest of *@wait_us and @us (0 in *@wait_us: none yet) */
static void mro_loss_wait(u32 *wait_us, s64 us)
{
	u32 w = clamp_t(s64, us, 1, S32_MAX);

	if (wait_us && (!*wait_us || w < *wait_us))
		*wait_us = w;
}

/*
 * The time rule: the newest delivery that left @gap after the packet
 * (negative: before it) makes it lost once the frontier has stood long
 * enough for @gap + age to reach @wnd; else, how much longer.
 */
static bool mro_loss_aged(const struct mro_loss_ctx *c, s32 gap, u32 wnd,
			  u32 *wait_us)
{
	s64 have = (s64)gap + c->frontier_age_us;

	if (have >= (s64)wnd)
		return true;
	mro_loss_wait(wait_us, (s64)wnd - have);
	return false;
}

enum mro_loss_verdict mro_loss_check(const struct mro_loss_ctx *c,
				     const struct mro_loss_pkt *p,
				     u32 *wait_us)
{
	u32 elapsed = c->now_us - p->sent_us;
	u32 rto = c->srtt_us + 4 * c->rttvar_us;
	enum mro_loss_verdict v = MRO_NOT_LOST;
	u32 wnd;
	s32 gap;
	bool behind;

	/* sent in the future (clock read races): not out long enough */
	if ((s32)elapsed < 0)
		return MRO_NOT_LOST;
	if (p->on_path && c->path_acked_next &&
	    mro_seq_before(p->psn, c->known_end) &&
	    mro_seq_after(c->path_acked_next, p->path_seq + 1)) {
		wnd = mro_loss_reo_wnd(c->srtt_us, c->rttvar_us, c->reo_steps,
				       0);
		gap = (s32)(c->path_acked_sent_us - p->sent_us);
		if (mro_loss_aged(c, gap, wnd, wait_us))
			v = MRO_LOST_PATH;
	}
	behind = mro_seq_before(p->psn + c->reorder, c->highest_acked) &&
		 mro_seq_before(p->psn, c->highest_acked);
	if (v == MRO_NOT_LOST && behind && !p->on_path) {
		if (elapsed >= rto)
			v = MRO_LOST_REORDER;
		else
			mro_loss_wait(wait_us, rto - elapsed);
	} else if (v == MRO_NOT_LOST && behind &&
		   (s32)(c->acked_sent_us - p->sent_us) >= 0) {
		wnd = mro_loss_reo_wnd(c->srtt_us, c->rttvar_us, c->reo_steps,
				       mro_loss_spread(c->srtt_us,
						       c->fast_srtt_us));
		gap = (s32)(c->acked_sent_us - p->sent_us);
		if (mro_loss_aged(c, gap, wnd, wait_us))
			v = MRO_LOST_REORDER;
	}
	/* the resend guard: not twice within one RTT */
	if (v != MRO_NOT_LOST && p->retx && elapsed < c->guard_us) {
		mro_loss_wait(wait_us, c->guard_us - elapsed);
		return MRO_NOT_LOST;
	}
	return v;
}
EXPORT_SYMBOL_IF_KUNIT(mro_loss_check);

bool mro_retx_spurious(u32 ts_echo, u32 resent_us, u32 now_us,
		       u32 min_rtt_us)
{
	s32 back = (s32)(now_us - resent_us);

	if ((s32)(ts_echo - resent_us) < 0)
		return true;
	return min_rtt_us && back >= 0 && (u32)back < min_rtt_us;
}
EXPORT_SYMBOL_IF_KUNIT(mro_retx_spurious);

void mro_reo_update(struct mro_reo *r, bool spurious)
{
	u8 steps = clamp_t(u8, r->steps, 1, MRO_REO_STEPS_MAX);

	if (spurious) {
		r->steps = min_t(u8, steps + 1, MRO_REO_STEPS_MAX);
		r->clean = 0;
		return;
	}
	r->steps = steps;
	if (++r->clean < MRO_REO_DECAY)
		return;
	r->clean = 0;
	if (r->steps > 1)
		r->steps--;
}
EXPORT_SYMBOL_IF_KUNIT(mro_reo_update);

u32 mro_loss_scan_end(u32 una, u32 nxt, u32 highest_acked, u32 late_end)
{
	u32 out = nxt - una, end = highest_acked;

	if (mro_seq_in(late_end, una, out + 1) && mro_seq_after(late_end, end))
		end = late_end;
	if (!mro_seq_in(end, una, out + 1))
		end = mro_seq_before(end, una) ? una : nxt;
	return end;
}
EXPORT_SYMBOL_IF_KUNIT(mro_loss_scan_end);

u16 mro_sack_next(const u64 sack[METAROCE_SACK_WORDS], u16 nbits, u16 from)
{
	u16 i;

	nbits = min_t(u16, nbits, METAROCE_SACK_BITS);
	for (i = from; i < nbits; i++) {
		u64 w = sack[i / 64] >> (i % 64);

		if (!w) {
			i |= 63;	/* rest of this word is clear */
			continue;
		}
		i += __ffs64(w);
		return min(i, nbits);
	}
	return nbits;
}
EXPORT_SYMBOL_IF_KUNIT(mro_sack_next);

bool mro_ack_cum_ok(u32 cum, u32 una, u32 nxt, u32 txwin)
{
	return !mro_seq_after(cum, nxt) && !mro_seq_before(cum, una - txwin);
}
EXPORT_SYMBOL_IF_KUNIT(mro_ack_cum_ok);

bool mro_nak_psn_ok(bool rnr, u32 nak_psn, u32 cum, u32 una, u32 nxt)
{
	/* a PSN still out ... */
	if (!mro_seq_in(nak_psn, una, nxt - una))
		return false;
	/*
	 * ... that the responder refused: an RNR NAK's may lie ahead of its
	 * next expected PSN, a fatal NAK's is that PSN
	 */
	return rnr ? !mro_seq_before(nak_psn, cum) : nak_psn == cum;
}
EXPORT_SYMBOL_IF_KUNIT(mro_nak_psn_ok);

u32 mro_echo_span(u32 txwin)
{
	return 4 * clamp_t(u32, txwin, MRO_ECHO_WIN_MIN, MRO_WINDOW_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(mro_echo_span);

bool mro_echo_seq_ok(u32 echo_seq, u32 next_seq, u32 span)
{
	return mro_seq_before(echo_seq, next_seq) &&
	       next_seq - echo_seq <= span;
}
EXPORT_SYMBOL_IF_KUNIT(mro_echo_seq_ok);
