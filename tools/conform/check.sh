#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The conformance suite peer against peer over loopback: conform-agent
# (the reference peer as the target) on 127.0.0.2, the runner on
# 127.0.0.1, first unprotected, then with packet protection auth and
# encrypt.  Needs root (privileged source ports).  Usage: ./check.sh [-v]
# [--only PAT]

set -u
cd "$(dirname "$0")" || exit 1

PORT=${CONFORM_PORT:-14797}
TCP=${CONFORM_TCP:-18610}
KEY=000102030405060708090a0b0c0d0e0f
TMP=$(mktemp -d)
apid=
# shellcheck disable=SC2317  # called by the trap
cleanup() {
	[ -n "$apid" ] && kill "$apid" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

if [ "$(id -u)" != 0 ]; then
	echo "# check.sh needs root: the source ports are privileged (512..1023)"
	exit 1
fi
python3 ../spec-rules.py >"$TMP/rules" || exit 1

rc=0
for mode in none auth encrypt; do
	prot=()
	[ "$mode" != none ] && prot=(--prot "$mode" --key "$KEY" --key-id 1)
	TCP=$((TCP + 1))
	./conform-agent -l 127.0.0.2 --listen "$TCP" --port "$PORT" --once \
		"${prot[@]}" 2>"$TMP/agent.err" &
	apid=$!
	echo "# protection $mode"
	timeout 600 ./conform -l 127.0.0.1 --agent "127.0.0.2:$TCP" \
		--port "$PORT" --rules "$TMP/rules" "${prot[@]}" \
		--coverage "$TMP/coverage-$mode" "$@"
	r=$?
	[ $r = 0 ] || rc=1
	wait "$apid"
	apid=
	sed 's/^/# agent: /' "$TMP/agent.err"
done
# the coverage of the three runs together: rules with a case in any
total=$(grep -c . "$TMP/rules")
covered=$(cat "$TMP"/coverage-* | awk -F'\t' '$1 ~ /^# [A-Z]+-[0-9]+$/ && $2 > 0 { print $1 }' | sort -u | wc -l)
echo "# coverage of the three runs: $covered of $total rules have a case"
exit $rc
