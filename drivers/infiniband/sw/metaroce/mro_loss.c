// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metaroce loss detection rules and SACK consumption (see mro_loss.h) */
#include <linux/bitops.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "mro_loss.h"
#include "mro_psn.h"

#define MRO_ECHO_SPAN		BIT(30)

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

enum mro_loss_verdict mro_loss_check(const struct mro_loss_ctx *c,
				     const struct mro_loss_pkt *p)
{
	u32 elapsed = c->now_us - p->sent_us;
	u32 rto = c->srtt_us + 4 * c->rttvar_us;
	u32 spread = 0;
	bool behind;

	/* sent in the future (clock read races): not out long enough */
	if ((s32)elapsed < 0)
		return MRO_NOT_LOST;
	/* the resend guard: not twice within one RTT */
	if (p->retx && elapsed < c->guard_us)
		return MRO_NOT_LOST;
	if (p->on_path && c->path_acked_next &&
	    mro_seq_before(p->psn, c->known_end) &&
	    mro_seq_after(c->path_acked_next, p->path_seq + 1) &&
	    (s32)(c->path_acked_sent_us - p->sent_us) >=
	    (s32)mro_loss_reo_wnd(c->srtt_us, c->rttvar_us, c->reo_steps, 0))
		return MRO_LOST_PATH;
	behind = mro_seq_before(p->psn + c->reorder, c->highest_acked) &&
		 mro_seq_before(p->psn, c->highest_acked);
	if (!behind)
		return MRO_NOT_LOST;
	if (!p->on_path)
		return elapsed >= rto ? MRO_LOST_REORDER : MRO_NOT_LOST;
	if (c->fast_srtt_us && c->srtt_us > c->fast_srtt_us)
		spread = c->srtt_us - c->fast_srtt_us;
	if ((s32)(c->acked_sent_us - p->sent_us) >=
	    (s32)mro_loss_reo_wnd(c->srtt_us, c->rttvar_us, c->reo_steps,
				  spread))
		return MRO_LOST_REORDER;
	return MRO_NOT_LOST;
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

bool mro_echo_seq_ok(u32 echo_seq, u32 next_seq)
{
	return mro_seq_before(echo_seq, next_seq) &&
	       next_seq - echo_seq <= MRO_ECHO_SPAN;
}
EXPORT_SYMBOL_IF_KUNIT(mro_echo_seq_ok);
