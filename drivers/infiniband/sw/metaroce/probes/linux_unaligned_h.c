// SPDX-License-Identifier: GPL-2.0-only
/* 6.12+: <asm/unaligned.h> moved to <linux/unaligned.h> */
#include <linux/unaligned.h>
