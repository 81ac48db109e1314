/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef REFPEER_SHIM_LINUX_STRING_H
#define REFPEER_SHIM_LINUX_STRING_H

#include <string.h>

#endif
