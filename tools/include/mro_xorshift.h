/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xorshift64*: the test tools' own random stream, repeatable from a seed
 * (not for anything that must be unpredictable).  @state must not be 0.
 */
#ifndef MRO_XORSHIFT_H
#define MRO_XORSHIFT_H

#include <stdint.h>

static inline uint32_t mro_xorshift(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return (uint32_t)((*state * 0x2545f4914f6cdd1dULL) >> 32);
}

#endif /* MRO_XORSHIFT_H */
