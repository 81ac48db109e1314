/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef REFPEER_SHIM_LINUX_MINMAX_H
#define REFPEER_SHIM_LINUX_MINMAX_H

#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))

#endif
