// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metaroce RTT estimation, RTO with backoff, tail-loss probe timeout */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "mro_rto.h"

bool mro_rtt_update(u32 *srtt, u32 *rttvar, u32 rtt_us)
{
	u32 err;

	if (rtt_us > MRO_RTT_SANE_US)
		return false;
	if (!rtt_us)
		rtt_us = 1;	/* keeps "0 = no sample" unambiguous */
	if (!*srtt) {
		*srtt = rtt_us;
		*rttvar = rtt_us / 2;
		return true;
	}
	/* RFC 6298 gains: 1/8 for the mean, 1/4 for the variation */
	err = rtt_us > *srtt ? rtt_us - *srtt : *srtt - rtt_us;
	*rttvar = *rttvar - *rttvar / 4 + err / 4;
	*srtt = *srtt - *srtt / 8 + rtt_us / 8;
	if (!*srtt)
		*srtt = 1;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(mro_rtt_update);

u32 mro_rto_base(u32 srtt, u32 rttvar, u32 min_us, u32 initial_us)
{
	u64 margin = max_t(u32, min_us, MRO_RTO_FLOOR_US);
	u64 us;

	if (srtt)
		us = srtt + max_t(u64, 4ULL * rttvar, margin);
	else
		us = max_t(u64, margin, initial_us);
	return min_t(u64, us, MRO_RTO_MAX_US);
}
EXPORT_SYMBOL_IF_KUNIT(mro_rto_base);

u64 mro_rto_backoff(u32 base_us, u32 backoff)
{
	return (u64)base_us << min_t(u32, backoff, MRO_RTO_MAX_BACKOFF);
}
EXPORT_SYMBOL_IF_KUNIT(mro_rto_backoff);

u32 mro_pto(u32 srtt, u32 rto_us)
{
	u64 pto;

	if (!srtt)
		return 0;
	pto = max_t(u64, 2ULL * srtt, MRO_RTO_FLOOR_US);
	return pto < rto_us ? pto : 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_pto);

u32 mro_pto_tail(s32 gap_us, u32 age_us, u32 wnd_us)
{
	s64 due = (s64)gap_us + wnd_us - age_us;

	if (gap_us < 0)
		return 0;
	return clamp_t(s64, due, MRO_RTO_FLOOR_US, S32_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(mro_pto_tail);

bool mro_rto_recent(u32 due_us, u32 sent_us, u32 rto_us)
{
	s32 age = (s32)(due_us - sent_us);

	return age < 0 || (u64)age < MRO_RTO_OLD * (u64)rto_us;
}
EXPORT_SYMBOL_IF_KUNIT(mro_rto_recent);

u32 mro_rto_left(u32 now_us, u32 sent_us, u32 rto_us)
{
	s32 age = (s32)(now_us - sent_us);

	/* a send time after now (clock races) is a send just now */
	if (age < 0)
		age = 0;
	return (u32)age < rto_us ? rto_us - (u32)age : 0;
}
EXPORT_SYMBOL_IF_KUNIT(mro_rto_left);

bool mro_retry_exhausted(u32 retry_left, u8 retry_cnt, u64 timeout_us,
			 u32 since_us, u32 now_us)
{
	u64 wait = min_t(u64, ((u64)retry_cnt + 1) * timeout_us,
			 MRO_RETRY_WAIT_MAX_US);
	s32 age = (s32)(now_us - since_us);

	/* a start after now (clock races) is no wait at all */
	return !retry_left && age >= 0 && (u64)age >= wait;
}
EXPORT_SYMBOL_IF_KUNIT(mro_retry_exhausted);
