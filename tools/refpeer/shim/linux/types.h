/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* userspace stand-in for the kernel's <linux/types.h>, for mro_wire.c */
#ifndef REFPEER_SHIM_LINUX_TYPES_H
#define REFPEER_SHIM_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#endif
