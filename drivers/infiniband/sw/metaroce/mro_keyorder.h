/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Remote key changes in PSN order (pure C, KUnit drives it).
 *
 * The responder places packets in whatever order they arrive, but IB
 * orders a SEND_WITH_INV's invalidation after every earlier request of
 * the connection and before every later one: a WRITE packet of an earlier
 * PSN, resent after the SEND_WITH_INV arrived, must still find its key
 * valid, and a request of a later PSN must find it invalid.  So the
 * responder records each complete SEND_WITH_INV here (a key fence: its
 * last PSN, the key, its message number) and runs the invalidation only
 * when the receive window's base has passed that PSN, i.e. when every
 * earlier PSN has been placed.  Until then a packet of a later PSN that
 * names the key is not accepted (its sender resends it, and the resend
 * meets the key as the fence left it).  protocol.rst, "Memory keys and
 * ordering".
 */
#ifndef MRO_KEYORDER_H
#define MRO_KEYORDER_H

#include <linux/types.h>

/* SEND_WITH_INVs complete but not yet in order, per QP */
#define MRO_KEYORDER_MAX	16

struct mro_key_fence {
	u32 psn;	/* the SEND_WITH_INV's last PSN */
	u32 key;	/* the rkey it invalidates */
	u32 msn;	/* its message, whose completion reports the result */
};

struct mro_keyorder {
	u32 n;
	struct mro_key_fence f[MRO_KEYORDER_MAX];
};

static inline void mro_keyorder_init(struct mro_keyorder *ko)
{
	ko->n = 0;
}

static inline bool mro_keyorder_full(const struct mro_keyorder *ko)
{
	return ko->n >= MRO_KEYORDER_MAX;
}

/* record a fence; -ENOSPC when full, -EEXIST when @psn has one already */
int mro_keyorder_add(struct mro_keyorder *ko, u32 psn, u32 key, u32 msn);

/* whether a fence before @psn names @key: a packet at @psn must wait */
bool mro_keyorder_holds(const struct mro_keyorder *ko, u32 psn, u32 key);

/*
 * Take the oldest fence whose PSN is before @base (every PSN up to it has
 * been placed) into @out; false when none is due.
 */
bool mro_keyorder_pop_due(struct mro_keyorder *ko, u32 base,
			  struct mro_key_fence *out);

#endif /* MRO_KEYORDER_H */
