#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/bench-simhole.sh (`make bench-simhole`): issue 5's black hole in
# simulated time.  Runs tests/vm/scenarios/metaroce-simhole.sh REPS times,
# one boot each, in a VM on an instruction-counted clock (QEMU -icount), and
# writes DIR/report.md (tools/bench/simhole_report.py).
#
#   tests/vm/bench-simhole.sh [--dist bookworm|trixie] [--reps N] [--ko metaroce.ko]
#                             [--rate TCRATE] [--icount QEMU_ICOUNT] [--out DIR]
#
# Defaults: --dist bookworm, --reps 3, --rate 30mbit, --icount
# shift=0,sleep=off (1 ns per guest instruction), --out
# out/bench-simhole/<UTC time>; the module is built (scripts/matrix.sh)
# unless --ko names one.  The offsets of snd_una in struct mro_qp (for the
# sender's acknowledged progress) and of path in struct mro_hdr (which path
# each packet came by) come from the module's debug info (gdb, installed
# with apt when missing).  About 4 minutes per boot here.
set -euo pipefail
main() {
	local caller=$PWD repo dist=bookworm reps=3 ko='' rate=30mbit icount=shift=0,sleep=off out=''
	repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
	while [ $# -gt 0 ]; do
		case $1 in
		--dist) dist=$2; shift 2 ;;
		--reps) reps=$2; shift 2 ;;
		--ko) ko=$(cd "$caller" && realpath "$2"); shift 2 ;;
		--rate) rate=$2; shift 2 ;;
		--icount) icount=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		-h|--help) sed -n '4,/^set -e/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
		*) echo "unknown argument: $1" >&2; exit 2 ;;
		esac
	done
	cd "$repo"
	out=${out:-$repo/out/bench-simhole/$(date -u +%Y%m%d-%H%M%S)}
	mkdir -p "$out/files"
	out=$(cd "$out" && pwd -P)
	log() { printf '[simhole %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

	if [ -z "$ko" ]; then
		log "building metaroce.ko for $dist"
		scripts/matrix.sh "$dist" >"$out/build.log" 2>&1
		local kos=(out/"$dist"/*/metaroce.ko)
		ko=$repo/${kos[0]}
	fi
	cp "$ko" "$out/files/metaroce.ko"
	command -v gdb >/dev/null || apt-get install -y -q gdb >/dev/null 2>&1 || true
	# offset STRUCT FIELD: the field's offset in the module's struct, or
	# nothing without gdb or debug info
	offset() {
		command -v gdb >/dev/null || return 0
		gdb -batch -ex "print (int)&((struct $1 *)0)->$2" "$ko" 2>/dev/null |
			sed -n 's/^\$1 = \([0-9]*\)$/\1/p'
	}
	local off poff
	off=$(offset mro_qp snd_una)
	[ -n "$off" ] || log "no offset of snd_una (gdb): no acknowledged-progress figures"
	poff=$(offset mro_hdr path)
	[ -n "$poff" ] || log "no offset of the header's path (gdb): no per-path arrivals"
	cp tests/vm/scenarios/metaroce-lib.sh tests/vm/bench/wire.sh tools/bench/simhole.py "$out/files/"

	# The clock is the instruction count: boots with the same settings run
	# (almost) the same.  Each one holes another path slot, at another time.
	local r rc=0 slot pre
	for r in $(seq "$reps"); do
		slot=$(((3 + 5 * (r - 1)) % 8))
		pre=$(awk -v r="$r" 'BEGIN { printf "%.2f", 4 + 0.37 * (r - 1) }')
		{
			echo "SIMHOLE_RATE=$rate"
			echo "SIMHOLE_UNA_OFF=$off"
			echo "SIMHOLE_PATH_OFF=$poff"
			echo "SIMHOLE_PATH=$slot"
			echo "SIMHOLE_PRE=$pre"
		} >"$out/files/simhole.conf"
		log "boot $r of $reps ($dist, -icount $icount, bottleneck $rate, path $slot after $pre s)"
		LAB_VM_ICOUNT=$icount tests/vm/run.sh --dist "$dist" --topology netns \
			--scenario tests/vm/scenarios/metaroce-simhole.sh --files "$out"/files/* \
			--timeout 1800 --out "$out/rep-$r" >"$out/rep-$r.log" 2>&1 || rc=1
		tail -n 1 "$out/rep-$r.log"
	done
	/usr/bin/python3 tools/bench/simhole_report.py --dist "$dist" --icount "$icount" \
		--rate "$rate" "$out" >"$out/report.md"
	log "report: $out/report.md"
	return $rc
}
main "$@"
