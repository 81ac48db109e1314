// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce congestion control "off": a fixed window (the parameter
 * max_cwnd, read live), no pacing; loss and timeouts change nothing.
 * With credits 0 it is the transport without congestion control.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <kunit/visibility.h>

#include "mro_cc_algos.h"

static void mro_off_init(struct mro_cc *cc)
{
	cc->cwnd_fp = mro_cc_clamp(cc, U64_MAX);
	cc->ssthresh = MRO_CC_MAX_CWND;
}

static void mro_off_on_ack(struct mro_cc *cc, const struct mro_cc_sample *s)
{
}

static u32 mro_off_cwnd(const struct mro_cc *cc)
{
	return mro_cc_clamp(cc, U64_MAX) >> MRO_CC_FP_SHIFT;
}

static u64 mro_off_pacing_rate(const struct mro_cc *cc, u32 pkt_bytes)
{
	return 0;
}

struct mro_cc_ops mro_cc_off = {
	.name = "off",
	.owner = THIS_MODULE,
	.init = mro_off_init,
	.on_ack = mro_off_on_ack,
	.cwnd = mro_off_cwnd,
	.pacing_rate = mro_off_pacing_rate,
};
EXPORT_SYMBOL_IF_KUNIT(mro_cc_off);
