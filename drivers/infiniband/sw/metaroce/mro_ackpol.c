// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce requester ACK policy: ACK requests and the reopening of closed
 * windows (mro_ackpol.h).
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <kunit/visibility.h>

#include "mro_ackpol.h"
#include "mro_psn.h"

#define MRO_ACKPOL_TXWIN_REOPEN	8	/* the send window reopens 1/8 free */

bool mro_ackpol_txwin_wait(u32 inflight, u32 win, u32 n, bool *closed)
{
	return mro_win_wait(inflight, win, n, win / MRO_ACKPOL_TXWIN_REOPEN,
			    closed);
}
EXPORT_SYMBOL_IF_KUNIT(mro_ackpol_txwin_wait);

/* what a closed congestion window needs free to reopen */
static u32 mro_ackpol_reopen(u32 cwnd)
{
	return max(cwnd / 4, min_t(u32, MRO_ACK_EVERY, cwnd / 2));
}

bool mro_ackpol_cwnd_wait(u32 pipe, u32 cwnd, u32 n, bool *closed)
{
	return mro_win_wait(pipe, cwnd, n, mro_ackpol_reopen(cwnd), closed);
}
EXPORT_SYMBOL_IF_KUNIT(mro_ackpol_cwnd_wait);

bool mro_ackpol_credit_wait(u32 avail, u32 span, u32 n, bool *closed)
{
	return mro_win_wait(0, avail, n, clamp_t(u32, span / 4, 1,
						 MRO_ACK_EVERY), closed);
}
EXPORT_SYMBOL_IF_KUNIT(mro_ackpol_credit_wait);

u32 mro_ackpol_burst_size(u32 n, u32 pipe, u32 cwnd, u32 credit)
{
	u32 room = cwnd > pipe ? cwnd - pipe : 0;

	return min(n, max3(min(room, credit), mro_ackpol_reopen(cwnd), 1U));
}
EXPORT_SYMBOL_IF_KUNIT(mro_ackpol_burst_size);

u32 mro_ackpol_span(u32 cwnd)
{
	if (cwnd >= 2 * MRO_ACK_EVERY)
		return MRO_ACK_EVERY;
	return cwnd < 4 ? 2 : rounddown_pow_of_two(cwnd / 2);
}
EXPORT_SYMBOL_IF_KUNIT(mro_ackpol_span);

bool mro_ackpol_need_ack(u32 psn, u32 una, u32 cwnd, u32 pipe, u32 credit)
{
	u32 span = mro_ackpol_span(cwnd);
	u32 gap = mro_psn_to_span_end(psn, span);
	u32 back = span - gap;	/* to the last span's end, which brings an ACK */

	if (mro_psn_self_acked(psn))
		return false;	/* acknowledged unasked */
	/*
	 * A window below two rhythms asks at the end of each of its own
	 * spans (two or more per window): asked only at its stops, such a
	 * window stopped at nearly every packet once ACKs clocked it, and
	 * each stop asked (congestion.rst, ACK requests).  The rules below
	 * count from the last span's end: acknowledged unasked, or asked
	 * (unless the window was larger when it left: then the tail-loss
	 * probe brings the ACK).
	 */
	if (!gap)
		return true;
	/*
	 * The grant stops the sender before it: the ACK of the last
	 * span's end, if still to come, grants again from that
	 * PSN on, beyond what was granted so far unless the share shrank
	 * meanwhile (the responder's credit timer covers that), so only a
	 * sender with no such ACK to come must ask.
	 * Asking at every stop cost an ACK per burst once the grant's edge
	 * was off the rhythm (congestion.rst, ACK requests).
	 */
	if (gap > credit)
		return mro_seq_before(psn - back, una);
	if (pipe + gap <= cwnd)
		return false;	/* the sender goes on to the next one */
	/*
	 * Stopped before it: the ACK of the last span's end, if still to
	 * come, leaves @back PSNs out; enough to reopen?
	 */
	return mro_seq_before(psn - back, una) ||
	       back + mro_ackpol_reopen(cwnd) > cwnd;
}
EXPORT_SYMBOL_IF_KUNIT(mro_ackpol_need_ack);
