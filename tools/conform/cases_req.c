// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "conform.h"

const struct ccase cases_req[] = {
	{ NULL, NULL, NULL, 0 },
};
