/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * UC loss rules (pure C, KUnit drives them): UC never retransmits, so the
 * responder gives up PSNs and messages that cannot complete any more, and
 * hands the receive WQE of a dropped message to the next message.  The
 * rules themselves are in protocol.rst, "UC: loss".
 */
#ifndef MRO_UCGAP_H
#define MRO_UCGAP_H

#include <linux/types.h>

/*
 * The receive window base a UC responder must have so that @psn lies less
 * than @allow PSNs past it (@allow >= 1): @base when it already does,
 * otherwise psn - allow + 1 (the PSNs before that are given up).
 */
u32 mro_uc_floor(u32 base, u32 psn, u32 allow);

/*
 * Rotate the ring elements @first .. @first + @n (n + 1 elements, indices
 * masked with @mask) left by one: element first + 1 moves to first, ...,
 * and element @first to @first + @n.  Elements are 1 << @log2_esz bytes,
 * at least 8 and a multiple of 8.
 */
void mro_ring_rotate_left(void *ring, u32 log2_esz, u32 mask, u32 first,
			  u32 n);

#endif /* MRO_UCGAP_H */
