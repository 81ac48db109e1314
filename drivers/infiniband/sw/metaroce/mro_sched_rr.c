// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce's default path scheduler: new packets go round robin over the
 * usable paths, retransmissions to the healthiest path that did not carry
 * the packet before.  No state of its own besides the path set's cursor.
 */
#include <kunit/visibility.h>

#include "mro_sched.h"

const struct mro_sched_ops mro_sched_rr = {
	.name = "rr",
	.get_send = mro_sched_next_usable,
	.get_retrans = mro_sched_healthiest,
};
EXPORT_SYMBOL_IF_KUNIT(mro_sched_rr);
