/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* get/put_unaligned_*: the header moved in 6.12 (probe linux_unaligned_h) */
#ifndef MRO_UNALIGNED_H
#define MRO_UNALIGNED_H

#ifdef MRO_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#endif /* MRO_UNALIGNED_H */
