/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The congestion control algorithms built into metaroce, each in its own
 * file; mro_cc_param.c registers them at module load.
 */
#ifndef MRO_CC_ALGOS_H
#define MRO_CC_ALGOS_H

#include "mro_cc.h"

extern struct mro_cc_ops mro_cc_dual;	/* mro_cc_dual.c, the default */
extern struct mro_cc_ops mro_cc_off;	/* mro_cc_off.c */
extern struct mro_cc_ops mro_cc_swift;	/* mro_cc_swift.c */

/*
 * swift's law as plain functions: the delay target for a window of @cwnd
 * packets (base plus flow scaling, which falls as 1/sqrt(cwnd) from
 * @fs_range_us at one packet to nothing at @fs_max_cwnd), and the window
 * (packets << MRO_CC_FP_SHIFT) after a cut for @delay_us against
 * @target_us: by @beta_pct % of the excess's share of the delay, at most
 * @max_mdf_pct %.
 */
u32 mro_swift_target(u32 base_us, u32 fs_range_us, u32 fs_max_cwnd, u32 cwnd);
u32 mro_swift_cut(u32 cwnd_fp, u32 delay_us, u32 target_us, u32 beta_pct,
		  u32 max_mdf_pct);

#endif /* MRO_CC_ALGOS_H */
