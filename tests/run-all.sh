#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/run-all.sh: every test of the project, as CI runs it (`make test`).
#
#   1. lint        scripts/lint.sh (checkpatch --strict, file sizes, ...)
#   2. build       scripts/matrix.sh: W=1 C=1 builds for Debian 12 (6.1) and
#                  Debian 13 (6.12), each in the rootfs its VMs boot
#   3. kunit       tests/kunit/run.sh (UML, linux-source-6.12)
#   4. vm          the VM-lab scenarios tests/vm/scenarios/metaroce-*.sh on
#                  both kernels, with the module built for that kernel
#
# Options: --dists "bookworm trixie"   --skip "lint kunit ..."  --only "vm"
#          --scenarios "device verbs"   (names without metaroce- and .sh)
#          --report-only "trixie/pyverbs"   DIST/SCENARIO runs whose checks are
#              reported (as XFAIL lines) but do not decide the result: only
#              for a known, tracked gap, named in the open issue.
# Results: out/test/<stage>/..., summary in out/test/summary.txt.
# The last line is "N passed, N failed" over all stages and VM checks.
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$REPO" || exit 1

dists="bookworm trixie"
skip=""
only=""
scenarios="device verbs datacheck pyverbs"
# nothing is report-only: trixie's pyverbs (rdma-core 56) gates like the rest
report_only=""
while [ $# -gt 0 ]; do
    case $1 in
        --dists) dists=$2; shift 2 ;;
        --skip) skip=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --scenarios) scenarios=$2; shift 2 ;;
        --report-only) report_only=$2; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done

OUT=$REPO/out/test
rm -rf "$OUT"
mkdir -p "$OUT"
passed=0
failed=0
summary=$OUT/summary.txt
: >"$summary"

log() { printf '[test %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
want() {
    [ -n "$only" ] && ! grep -qw "$1" <<<"$only" && return 1
    ! grep -qw "$1" <<<"$skip"
}
record() { # NAME RC
    if [ "$2" = 0 ]; then
        passed=$((passed + 1)); echo "PASS $1" >>"$summary"; log "PASS $1"
    else
        failed=$((failed + 1)); echo "FAIL $1 (rc=$2)" >>"$summary"; log "FAIL $1 (rc=$2)"
    fi
}

if want lint; then
    log "lint"
    scripts/lint.sh >"$OUT/lint.log" 2>&1
    rc=$?
    tail -n 20 "$OUT/lint.log"
    record lint $rc
fi

if want build; then
    log "build matrix: $dists"
    # shellcheck disable=SC2086
    scripts/matrix.sh $dists >"$OUT/matrix.log" 2>&1
    rc=$?
    tail -n 15 "$OUT/matrix.log"
    record "build-matrix" $rc
fi

if want kunit; then
    log "kunit"
    tests/kunit/run.sh --outdir "$OUT/kunit" >"$OUT/kunit.log" 2>&1
    rc=$?
    tail -n 25 "$OUT/kunit.log"
    record kunit $rc
fi

if want vm; then
    # the data-integrity tool runs in the guests; build it on the host
    dc=$REPO/tools/datacheck/datacheck
    if ! { dpkg -s libibverbs-dev librdmacm-dev >/dev/null 2>&1 ||
           DEBIAN_FRONTEND=noninteractive apt-get install -y -q libibverbs-dev librdmacm-dev >/dev/null; } ||
       ! make -C tools/datacheck >"$OUT/datacheck-build.log" 2>&1; then
        record datacheck-build 1
    fi
    for dist in $dists; do
        ko=$(ls "$REPO"/out/"$dist"/*/metaroce.ko 2>/dev/null | head -n1)
        if [ -z "$ko" ]; then
            record "vm-$dist-module" 1
            continue
        fi
        files=$OUT/files-$dist
        mkdir -p "$files"
        cp "$ko" "$files/metaroce.ko"
        cp tests/vm/scenarios/metaroce-lib.sh "$files/"
        [ -x "$dc" ] && cp "$dc" "$files/"
        for sc in $scenarios; do
            script=tests/vm/scenarios/metaroce-$sc.sh
            topo=$(sed -n 's/^# metaroce-[a-z-]* (\([a-z]*\) topology[,)].*/\1/p' "$script")
            log "vm $dist $sc ($topo)"
            tests/vm/run.sh --dist "$dist" --topology "$topo" --scenario "$script" \
                --files "$files"/* \
                --out "$OUT/vm-$dist-$sc" --timeout 2400 >"$OUT/vm-$dist-$sc.log" 2>&1
            rc=$?
            # a VM that crashed or never reported (emulator trouble under
            # TCG) is retried once; a failed check is never retried
            if [ $rc != 0 ] && jq -e '[.vms[] | select(.error)] | length > 0' \
                    "$OUT/vm-$dist-$sc/summary.json" >/dev/null 2>&1; then
                log "vm $dist $sc: a VM gave no result ($(jq -r '[.vms[].error // empty] | join("; ")' \
                    "$OUT/vm-$dist-$sc/summary.json")); retrying once"
                echo "RETRY vm-$dist-$sc (VM gave no result)" >>"$summary"
                mv "$OUT/vm-$dist-$sc" "$OUT/vm-$dist-$sc.try1"
                tests/vm/run.sh --dist "$dist" --topology "$topo" --scenario "$script" \
                    --files "$files"/* \
                    --out "$OUT/vm-$dist-$sc" --timeout 2400 >"$OUT/vm-$dist-$sc.log" 2>&1
                rc=$?
            fi
            grep -E '^(PASS|FAIL)|check|result' "$OUT/vm-$dist-$sc.log" | tail -n 80
            if grep -qw "$dist/$sc" <<<"$report_only"; then
                for r in "$OUT/vm-$dist-$sc"/*/result.json; do
                    [ -f "$r" ] || continue
                    jq -r --arg s "$dist/$sc" '.checks[] | select(.ok | not) |
                        "XFAIL \($s) \(.name): \(.detail[0:300])"' "$r" >>"$summary"
                done
                echo "REPORT-ONLY vm-$dist-$sc (rc=$rc; known gap, not counted)" >>"$summary"
                log "vm-$dist-$sc: report only (rc=$rc)"
                continue
            fi
            # every guest check counts
            for r in "$OUT/vm-$dist-$sc"/*/result.json; do
                [ -f "$r" ] || continue
                p=$(jq '[.checks[] | select(.ok)] | length' "$r")
                f=$(jq '[.checks[] | select(.ok | not)] | length' "$r")
                passed=$((passed + p)); failed=$((failed + f))
                jq -r --arg s "$dist/$sc" '.checks[] | select(.ok | not) | "FAIL \($s) \(.name)"' \
                    "$r" >>"$summary"
            done
            record "vm-$dist-$sc" $rc
        done
    done
fi

log "summary ($summary):"
cat "$summary"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
