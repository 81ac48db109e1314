/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* CRC32C (Castagnoli) in the kernel's calling convention: no inversion */
#ifndef REFPEER_SHIM_LINUX_CRC32C_H
#define REFPEER_SHIM_LINUX_CRC32C_H

#include <linux/types.h>

u32 crc32c(u32 crc, const void *buf, size_t len);

#endif
