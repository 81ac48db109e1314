/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef REFPEER_SHIM_LINUX_LIMITS_H
#define REFPEER_SHIM_LINUX_LIMITS_H

#include_next <linux/limits.h>
#include <stdint.h>

#ifndef U16_MAX
#define U16_MAX UINT16_MAX
#endif
#ifndef U32_MAX
#define U32_MAX UINT32_MAX
#endif
#ifndef U64_MAX
#define U64_MAX UINT64_MAX
#endif

#endif
