#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/demo.sh (`make demo`): the README's main job, in under 10 minutes.
# Builds metaroce.ko for Debian 12's kernel (inside the VM rootfs), boots
# two QEMU VMs joined by a virtual wire made lossy and narrow with tc (1%
# random loss each way, a bottleneck at half the measured emulator rate with
# a shallow queue), loads
# the module in both, shows the device, and moves data with stock perftest
# (ib_write_bw, 4 QPs x 8 paths) while printing the driver's live per-path
# telemetry.  Then it boots the pair again with the in-tree rdma_rxe and
# runs the same transfers, and prints the two side by side.
# Everything is measured by the benchmark harness (tests/vm/bench.sh, one
# tiny profile); results: out/demo/ (report.md, samples.json, lab runs).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$REPO"
OUT=$REPO/out/demo
rm -rf "$OUT"

echo "== metaroce demo: metaroce, then rxe, on the same lossy wire between two VMs"
rc=0
tests/vm/bench.sh --profile demo --reps 1 --transports "metaroce rxe" --show --telemetry \
	--out "$OUT" "$@" || rc=$?

# side by side, from the samples
s=$OUT/samples.json
if [ -f "$s" ]; then
	echo
	echo "== side by side: ib_write_bw, 64 KiB messages, 4 QPs, bottleneck $(jq -r .info.bottleneck_rate "$s")"
	jq -r '
		def bw($t; $l): [.samples[] | select(.transport == $t and .cat == "loss" and .loss == $l)
			| .goodput_MiBps // 0] | if length > 0 then max else null end;
		def f: if . == null then "n/a" else (. * 100 | round / 100 | tostring) + " MiB/s" end;
		[0, 1][] as $l |
		"   loss \($l)% each way:  metaroce \(bw("metaroce"; $l) | f)   rxe \(bw("rxe"; $l) | f)" +
		(if (bw("rxe"; $l) // 0) > 0 and bw("metaroce"; $l) != null
		 then "   metaroce / rxe = \(bw("metaroce"; $l) / bw("rxe"; $l) * 100 | round / 100)"
		 else "" end)' "$s"
	jq -r '[.samples[] | select(.cat == "loss" and .loss == 1 and .transport == "metaroce")
		| .counters // {} | to_entries[] | select(.key | test("retrans|loss|rto")) |
		"\(.key)=\(.value)"] | if length > 0 then "   metaroce at 1% (sender counters): " + join(" ") else empty end' "$s"
fi
echo
echo "== demo $([ $rc = 0 ] && echo PASSED || echo FAILED): $OUT/report.md"
echo "   the full comparison (loss sweep, reordering, black-holed path, latency, CPU and"
echo "   memory, with TCP as well) is 'make bench' (about 95 min on a quiet host, more on a"
echo "   busy one): out/bench/<time>/report.md;"
echo "   the latest one is in Documentation/metaroce/bench/report.md"
exit $rc
