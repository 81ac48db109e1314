# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# bench prelude (guest): everything a bench command needs, for the scenario
# and for each command the agent runs.
# shellcheck source=tests/vm/guest/lib.sh
. "${LAB_LIB:-/lab/in/guest/lib.sh}"
for _f in metaroce-lib.sh wire.sh runners.sh; do
	# shellcheck disable=SC1090
	. "${LAB_FILES:-/lab/in/files}/$_f"
done
unset _f
