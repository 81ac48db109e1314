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

#endif /* MRO_CC_ALGOS_H */
