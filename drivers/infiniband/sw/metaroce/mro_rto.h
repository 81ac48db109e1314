/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce retransmission timing: the smoothed RTT and its variation
 * (RFC 6298 gains), the retransmission timeout with exponential backoff,
 * and the tail-loss probe timeout.  Pure C on plain values (KUnit drives
 * it); all times in microseconds.
 */
#ifndef MRO_RTO_H
#define MRO_RTO_H

#include <linux/limits.h>
#include <linux/types.h>

#define MRO_RTO_FLOOR_US	100		/* rto_min_us below this is raised */
#define MRO_RTO_MAX_US		(2 * 1000 * 1000)	/* before backoff */
#define MRO_RTO_MAX_BACKOFF	6		/* doublings at most */
#define MRO_RTO_COPIES_SHIFT	3		/* resend on 2^3 paths at most */
#define MRO_RTT_SANE_US		(10 * 1000 * 1000)	/* larger echoes: nonsense */

/*
 * Fold the sample @rtt_us into *srtt / *rttvar; *srtt == 0 means "no
 * sample yet".  Samples above MRO_RTT_SANE_US are ignored (false).
 */
bool mro_rtt_update(u32 *srtt, u32 *rttvar, u32 rtt_us);

/*
 * The RTO before backoff: srtt + max(4 * rttvar, @min_us), @min_us itself
 * at least MRO_RTO_FLOOR_US; at most MRO_RTO_MAX_US.  The minimum is a
 * margin over srtt, not a floor under srtt + 4 * rttvar (as Linux TCP's
 * rto_min bounds its variation term): a round trip that hardly varies
 * drives rttvar to a few microseconds, and one queue or scheduling delay
 * above that would fire the timer.  Without a sample (@srtt == 0),
 * @initial_us (the IB local ACK timeout), at least @min_us.
 */
u32 mro_rto_base(u32 srtt, u32 rttvar, u32 min_us, u32 initial_us);

/* the timer value after @backoff consecutive expirations */
u64 mro_rto_backoff(u32 base_us, u32 backoff);

/*
 * The tail-loss probe timeout: 2 * srtt, at least MRO_RTO_FLOOR_US; 0 when
 * no probe is worth sending (no RTT sample, or it would not fire before
 * the RTO @rto_us).
 */
u32 mro_pto(u32 srtt, u32 rto_us);

/*
 * The tail-loss probe by expectation, for a tail that no later delivery
 * can reveal lost (RACK's rules need one).  The newest packet still out
 * left @gap_us after the newest one delivered, whose delivery was learned
 * @age_us ago: had the tail met the same delay, its ACK would be due
 * @gap_us after that delivery.  The probe goes a reordering window @wnd_us
 * later: the time from now, at least MRO_RTO_FLOOR_US.  0 when @gap_us <
 * 0: the tail left before the newest delivery, and RACK's time rule covers
 * it.  This follows the newest round trip where 2 * srtt, smoothed, lags
 * a queue that drains by many round trips and waits out a queue long gone.
 */
u32 mro_pto_tail(s32 gap_us, u32 age_us, u32 wnd_us);

/*
 * When the RTO fires, besides the oldest PSN still out, those sent
 * MRO_RTO_OLD RTOs before the timer was due (@due_us, not the time it ran:
 * a late timer must not find the whole window old) are resent.  Whether
 * the PSN sent at @sent_us is more recent than that.
 */
#define MRO_RTO_OLD		4
bool mro_rto_recent(u32 due_us, u32 sent_us, u32 rto_us);

/*
 * The RTO times the packets that ask for an ACK (ACK_REQ, or a PSN of the
 * responder's rhythm, mro_psn.h): the others are acknowledged with the
 * next of them, which a paced sender may send long after.  The time left
 * (in us, at least 1) before the RTO of the one sent at @sent_us is due,
 * or 0 when it is due at @now_us.
 */
u32 mro_rto_left(u32 now_us, u32 sent_us, u32 rto_us);

/*
 * The IB retry count ends a QP that makes no progress: once @retry_left
 * RTO expirations are used up *and* (retry_cnt + 1) IB local ACK timeouts
 * (@timeout_us) have passed since the episode without progress began
 * (@since_us), as hardware waits at least that timeout per retry.  The
 * RTO follows the RTT and may be far shorter.  retry_cnt 7 is seven
 * retries, as in IB (rxe retries forever).  The wait is capped at
 * MRO_RETRY_WAIT_MAX_US: well inside the s32 range of the microsecond
 * clock's differences, with the longest backed-off RTO on top.
 */
#define MRO_RETRY_WAIT_MAX_US	(U32_MAX / 4)
bool mro_retry_exhausted(u32 retry_left, u8 retry_cnt, u64 timeout_us,
			 u32 since_us, u32 now_us);

#endif /* MRO_RTO_H */
