/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef REFPEER_SHIM_LINUX_BUILD_BUG_H
#define REFPEER_SHIM_LINUX_BUILD_BUG_H

#include <assert.h>	/* static_assert */

#endif
