// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metaroce loss detection rules and SACK consumption (see mro_loss.h) */
#include <linux/bitops.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "mro_loss.h"
#include "mro_psn.h"

#define MRO_ECHO_SPAN		BIT(30)

u32 mro_loss_reorder(u16 npaths)
{
	return MRO_DUPTHRESH + 3 * (u32)npaths;
}
EXPORT_SYMBOL_IF_KUNIT(mro_loss_reorder);

enum mro_loss_verdict mro_loss_check(const struct mro_loss_ctx *c,
				     const struct mro_loss_pkt *p)
{
	u32 elapsed = c->now_us - p->sent_us;
	u32 reo_wnd = max(c->srtt_us / 4, c->rttvar_us);
	u32 rto = c->srtt_us + 4 * c->rttvar_us;
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
	    (s32)(c->path_acked_sent_us - p->sent_us) >= (s32)reo_wnd)
		return MRO_LOST_PATH;
	behind = mro_seq_before(p->psn + c->reorder, c->highest_acked) &&
		 mro_seq_before(p->psn, c->highest_acked);
	if (!behind)
		return MRO_NOT_LOST;
	if (p->on_path ? (s32)(c->acked_sent_us - p->sent_us) >= (s32)rto :
			 elapsed >= rto)
		return MRO_LOST_REORDER;
	return MRO_NOT_LOST;
}
EXPORT_SYMBOL_IF_KUNIT(mro_loss_check);

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
