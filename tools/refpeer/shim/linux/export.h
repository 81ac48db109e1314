/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef REFPEER_SHIM_LINUX_EXPORT_H
#define REFPEER_SHIM_LINUX_EXPORT_H
#endif
