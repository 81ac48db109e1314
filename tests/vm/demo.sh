#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/demo.sh (`make demo`): the README's main job.  Builds metaroce.ko
# for Debian 12's kernel (inside the VM rootfs), boots two QEMU VMs joined
# by a virtual wire, loads the module in both, creates mr0 on eth0, shows
# the device (`rdma link`, `ibv_devinfo -v`), moves data with stock
# rdma-core tools and prints the port counters.  Progress is shown live.
# Results: out/demo/ (per-VM result.json, scenario.log, console.log).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$REPO"
DIST=${DIST:-bookworm}
OUT=$REPO/out/demo

echo "== metaroce demo: building the module for $DIST (first run also builds the VM image)"
scripts/matrix.sh "$DIST" | tail -n 4
ko=$(ls out/"$DIST"/*/metaroce.ko | head -n1)
files=$(mktemp -d /tmp/metaroce-demo.XXXXXX)
cp "$ko" tests/vm/scenarios/metaroce-lib.sh tools/mro-paths "$files/"

echo "== booting two VMs (QEMU, TCG) and running the demo scenario"
rm -rf "$OUT"
mkdir -p "$OUT"
tests/vm/run.sh --dist "$DIST" --topology pair \
    --scenario tests/vm/scenarios/metaroce-demo.sh \
    --files "$files/metaroce.ko" "$files/metaroce-lib.sh" "$files/mro-paths" \
    --out "$OUT" --timeout 900 >"$OUT/run.log" 2>&1 &
pid=$!
# show the guests' progress while they run
shown_a=0 shown_b=0
while kill -0 $pid 2>/dev/null; do
    for vm in a b; do
        f=$OUT/$vm/scenario.log
        [ -f "$f" ] || continue
        n=$(wc -l <"$f")
        var=shown_$vm
        if [ "$n" -gt "${!var}" ]; then
            tail -n +"$((${!var} + 1))" "$f" | head -n "$((n - ${!var}))" | sed "s/^/[$vm] /"
            eval "$var=$n"
        fi
    done
    sleep 2
done
rc=0
wait $pid || rc=$?
for vm in a b; do
    f=$OUT/$vm/scenario.log
    var=shown_$vm
    [ -f "$f" ] && tail -n +"$((${!var} + 1))" "$f" | sed "s/^/[$vm] /"
done
rm -rf "$files"
echo "== demo $([ $rc = 0 ] && echo PASSED || echo FAILED); full logs in $OUT (run.log, a/, b/)"
exit $rc
