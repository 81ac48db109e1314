#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# follow.sh LOG TAG [ALL]: print the bench conductor's point and result
# lines (ALL=1: every line) from LOG as they appear (LOG may not exist yet);
# runs until killed.
log=$1 tag=$2 all=${3:-0}
pat='point [0-9]+/|result:|FAIL'
[ "$all" = 1 ] && pat=.
while [ ! -f "$log" ]; do sleep 2; done
tail -n +1 -F "$log" 2>/dev/null | grep --line-buffered -E "$pat" |
	sed -u "s/^\[b [0-9.]*\] //; s/^/  [$tag] /"
