#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/bench-collective.sh (`make bench-collective`): collective flow
# completion times across the eight hosts of the lab's netns leaf-spine
# fabric, metaroce beside TCP on the same wire
# (tests/vm/scenarios/metaroce-collective.sh, tools/collective): all-to-all,
# incast (7 to 1) and ring all-reduce, each lossless, at 1 % loss, with a
# leaf-spine link down mid-run and with a spine black-holed mid-run, and
# lossless again at the end (clean2: how far the lab drifts in one boot).  Writes
# DIR/report.md (tools/bench/collective_report.py) and DIR/collective-cdf.png.
#
#   tests/vm/bench-collective.sh [--dist bookworm|trixie] [--iters 50]
#                                [--size 131072] [--patterns "alltoall incast ring"]
#                                [--impairs "clean loss1 spinedown blackhole clean2"]
#                                [--mro-params "cc_algo=off ..."] [--ko metaroce.ko] [--out DIR]
#                                [--trace "mro_rto mro_tlp"] [--icount QEMU_ICOUNT|none]
#
# Defaults as shown; --out out/bench-collective/<UTC time>.  The module is
# built (scripts/matrix.sh) unless --ko names one.  One VM (one vCPU, TCG):
# every host, switch and transport shares that CPU, so the times are those
# of this lab, to be read as ratios between transports and impairments.
# --trace records those metaroce tracepoints during each metaroce run
# (DIR/run/vm/coll-*.trace, trace_clock mono as the .raw start times).
# --icount is the VM's instruction-counted clock (QEMU's -icount, default
# shift=0,sleep=off: one nanosecond per instruction): the guest's times are
# its own instruction counts, the same on a busy host as on a quiet one, and
# its CPU runs at about a native pace against its timers.  --icount none
# runs on TCG's real-time clock, where the one vCPU runs 20-50 times slower
# than native and its stalls fire spurious RTOs that set every tail.
set -euo pipefail
main() {
	local caller=$PWD repo dist=bookworm ko="" out="" iters=50 size=131072
	local patterns="alltoall incast ring" impairs="clean loss1 spinedown blackhole clean2"
	local params="" trace="" icount=shift=0,sleep=off
	repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
	while [ $# -gt 0 ]; do
		case $1 in
		--dist) dist=$2; shift 2 ;;
		--iters) iters=$2; shift 2 ;;
		--size) size=$2; shift 2 ;;
		--patterns) patterns=$2; shift 2 ;;
		--impairs) impairs=$2; shift 2 ;;
		--mro-params) params=$2; shift 2 ;;
		--trace) trace=$2; shift 2 ;;
		--icount) icount=$2; shift 2 ;;
		--ko) ko=$(cd "$caller" && realpath "$2"); shift 2 ;;
		--out) out=$2; shift 2 ;;
		-h|--help) sed -n '4,/^set -e/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
		*) echo "unknown argument: $1" >&2; exit 2 ;;
		esac
	done
	cd "$repo"
	out=${out:-$repo/out/bench-collective/$(date -u +%Y%m%d-%H%M%S)}
	mkdir -p "$out"
	out=$(cd "$out" && pwd -P)
	log() { printf '[bench-collective %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
	local p
	for p in jq gcc make libibverbs-dev python3-matplotlib; do
		dpkg -s "$p" >/dev/null 2>&1 ||
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$p" >/dev/null
	done
	if [ -z "$ko" ]; then
		log "building metaroce.ko for $dist"
		scripts/matrix.sh "$dist" >"$out/build.log" 2>&1
		local kos=(out/"$dist"/*/metaroce.ko)
		ko=$repo/${kos[0]}
	fi
	make -C tools/collective >"$out/tool-build.log" 2>&1
	mkdir -p "$out/files"
	# the scenario loads files/metaroce.ko, whatever --ko's file is called
	cp "$ko" "$out/files/metaroce.ko"
	cp tests/vm/scenarios/metaroce-lib.sh tools/collective/collective "$out/files/"
	{
		echo "COLL_ITERS=$iters"
		echo "COLL_SIZE=$size"
		echo "COLL_PATTERNS=\"$patterns\""
		echo "COLL_IMPAIRS=\"$impairs\""
		echo "COLL_MODPARAMS=\"$params\""
		echo "COLL_TCP_UNCHECKED=1"
		echo "COLL_TRACE=\"$trace\""
	} >"$out/files/collective.conf"
	[ "$icount" = none ] && icount=""
	log "collective on $dist: $patterns; $impairs; $iters iterations of $size B${icount:+; -icount $icount}"
	local rc=0
	LAB_VM_ICOUNT=$icount tests/vm/run.sh --dist "$dist" --topology netns \
		--scenario tests/vm/scenarios/metaroce-collective.sh \
		--files "$out/files"/* --out "$out/run" --timeout 14400 \
		>"$out/run.log" 2>&1 || rc=$?
	log "run: $(tail -n 1 "$out/run.log") (rc $rc)"
	# Debian's python3 has python3-matplotlib; another python3 first in PATH may not
	/usr/bin/python3 tools/bench/collective_report.py "$out/run/vm" \
		--title "Collective flow completion times ($dist, 8 hosts, $size B, $iters iterations${params:+, $params}${icount:+, -icount $icount})" \
		--plot "$out/collective-cdf.png" --icount "$icount" >"$out/report.md"
	local failed
	failed=$(jq -r '.checks[] | select(.ok | not) | "- \(.name)"' "$out/run/vm/result.json" 2>/dev/null ||
		echo "- no result")
	if [ -n "$failed" ]; then
		printf 'Scenario checks that failed:\n\n%s\n' "$failed"
	else
		echo "Scenario checks that failed: none"
	fi >>"$out/report.md"
	log "report: $out/report.md"
	return $rc
}
main "$@"
