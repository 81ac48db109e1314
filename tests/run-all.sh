#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/run-all.sh: the tests of the project.  `make test` (what CI runs)
# runs the stages below with the core scenarios; `make test-full` (--full)
# adds the long scenarios and the bench smoke: run it before an issue is
# called done.
#
#   1. lint        scripts/lint.sh (checkpatch --strict, file sizes, ...)
#   1b. wireshark  tests/wireshark/run.sh: the dissector against a capture
#                  of known contents (tshark on this host)
#   1c. refpeer    tools/refpeer's self test and peer-vs-peer cases, and
#                  the conformance suite (tools/conform) peer against peer,
#                  over this host's loopback (libssl-dev)
#   2. build       scripts/matrix.sh: W=1 C=1 builds for Debian 12 (6.1) and
#                  Debian 13 (6.12), each in the rootfs its VMs boot
#   3. kunit       tests/kunit/run.sh (UML, linux-source-6.12)
#   4. vm          the VM-lab scenarios tests/vm/scenarios/metaroce-*.sh on
#                  both kernels, with the module built for that kernel
#                  ($once_scenarios on the first kernel only); --full: the
#                  long ones too ($full_scenarios, $full_once_scenarios);
#                  as many lab VMs at once as the host has cores
#                  (MRO_TEST_VMS=N to choose)
#   5. debug       opt-in (--with debug, or --only debug; `make test-debug`): the
#                  scenarios $debug_scenarios on trixie's rootfs booted with the
#                  lockdep/KASAN/kmemleak/UBSAN kernel of scripts/debug-kernel.sh
#                  (built once, cached; cold ~30-35 CPU-min, estimated), module built for it
#                  with W=1; see Documentation/metaroce/debug-kernel.rst
#   6. bench       --full (or --with bench): tests/vm/bench.sh --profile smoke
#                  on the first dist: the benchmark scripts must run (VMs
#                  up, every category measured, report written); the
#                  numbers are not judged
#
# Options: --full   the long scenarios and the bench smoke too (make test-full)
#          --dists "bookworm trixie"   --skip "lint kunit ..."  --only "vm"
#          --with "debug"   also run these opt-in stages
#          --scenarios "device verbs"   (names without metaroce- and .sh)
#          --once-scenarios "paths"   run on the first of --dists only
#          --debug-scenarios "device verbs datacheck nvme"   (for the debug stage)
#          --report-only "trixie/pyverbs"   DIST/SCENARIO runs whose checks are
#              reported (as XFAIL lines) but do not decide the result: only
#              for a known, tracked gap, named in the open issue.
#          -h, --help   this text
# Progress: each step logs its number and the time left, estimated from the
# last duration of each step, kept in $METAROCE_CACHE/test-durations.txt
# (default /var/cache/metaroce).
# Results: out/test/<stage>/..., summary in out/test/summary.txt; each failure
# line names the step's log and results and the command that reruns only it.
# The last line is "N passed, N failed" over all stages and VM checks.
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$REPO" || exit 1

dists="bookworm trixie"
skip=""
only=""
with=""
optin="debug bench"
debug_scenarios="device verbs datacheck protect nvme fuzz"
# make test: the core scenarios (47 min on a clean clone, warm caches, two VMs at a time)
scenarios="device devkey verbs datacheck protect pyverbs hostile nvme install conform"
once_scenarios="fabric nfs quickstart"
# make test-full adds: fabric, nfs, fuzz and refpeer on every dist, and the long scenarios
# whose checks do not depend on the kernel on the first dist
full_scenarios="fabric nfs fuzz refpeer"
full_once_scenarios="paths netdevs apps mpi collective bond blind quickstart"
# trixie's pyverbs (rdma-core 56) gates like the rest; on the debug kernel
# (opt-in) it is reported only
report_only="debug/pyverbs"
full=0
while [ $# -gt 0 ]; do
    case $1 in
        --full)
            full=1
            scenarios="$scenarios $full_scenarios"
            once_scenarios=$full_once_scenarios
            with="$with bench"; shift ;;
        --dists) dists=$2; shift 2 ;;
        --skip) skip=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --with) with=$2; shift 2 ;;
        --debug-scenarios) debug_scenarios=$2; shift 2 ;;
        --scenarios) scenarios=$2; shift 2 ;;
        --once-scenarios) once_scenarios=$2; shift 2 ;;
        --report-only) report_only=$2; shift 2 ;;
        -h|--help)
            # the header comment above, from its first line to the one before "set -uo"
            sed -n '/^# tests\/run-all.sh:/,/^set -uo pipefail/{/^set /d; s/^# \{0,1\}//; p}' \
                "$REPO/tests/run-all.sh"
            exit 0 ;;
        *) echo "unknown argument $1 (tests/run-all.sh --help lists the options)" >&2; exit 2 ;;
    esac
done

OUT=$REPO/out/test
rm -rf "$OUT"
mkdir -p "$OUT"
passed=0
failed=0
summary=$OUT/summary.txt
dc=$REPO/tools/datacheck/datacheck
: >"$summary"

# CI gives the whole run 90 minutes: past this budget no further VM stage
# starts (each is recorded as failed, "over budget"), and a stage's VM
# timeout never reaches beyond it, so a hung guest shows up as a failure
# with its details instead of a killed run.  A passing run took 34 min here.
# (The opt-in debug stage alone takes longer: no default budget with it.)
budget_s=${MRO_TEST_BUDGET_S:-4800}
grep -qw debug <<<"$only $with" && budget_s=${MRO_TEST_BUDGET_S:-86400}
left_s() { echo $((budget_s - SECONDS)); }
# not_started NAME LABEL: step NAME is skipped, the budget being spent
not_started() {
    log "$1: not started, the run is over its budget (${budget_s}s)"
    echo "FAIL $2 over-budget (not started) -- $(hint "$1")" >>"$summary"
}

log() { printf '[test %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
want() {
    [ -n "$only" ] && ! grep -qw "$1" <<<"$only" && return 1
    # opt-in stages run only when named in --with or --only
    [ -z "$only" ] && grep -qw "$1" <<<"$optin" && ! grep -qw "$1" <<<"$with" && return 1
    ! grep -qw "$1" <<<"$skip"
}
# record NAME RC: count step NAME as passed (RC 0) or failed; a failure names
# its log and the command that reruns it
record() {
    local h
    step_done "$1"
    if [ "$2" = 0 ]; then
        passed=$((passed + 1)); echo "PASS $1" >>"$summary"; log "PASS $1"
    else
        h=$(hint "$1")
        failed=$((failed + 1)); echo "FAIL $1 (rc=$2) -- $h" >>"$summary"
        log "FAIL $1 (rc=$2) -- $h"
    fi
}

# q WORDS: WORDS as one shell word (double-quoted when empty or with spaces)
q() {
    case $1 in
        '' | *' '*) printf '"%s"' "$1" ;;
        *) printf '%s' "$1" ;;
    esac
}
# hint NAME: where step NAME's log and results are, and the command that reruns only it
hint() {
    local n=$1 logf="" res="" cmd dist
    case $n in
        lint) logf=lint.log; cmd="tests/run-all.sh --only lint" ;;
        wireshark) logf=wireshark.log; cmd="tests/run-all.sh --only wireshark" ;;
        refpeer) logf=refpeer.log; cmd="tests/run-all.sh --only refpeer" ;;
        build-matrix)
            logf=matrix.log; cmd="tests/run-all.sh --only build --dists $(q "$dists")" ;;
        kunit) logf=kunit.log; res=kunit; cmd="tests/run-all.sh --only kunit" ;;
        debug-build)
            logf=debug-build.log; cmd='tests/run-all.sh --only debug --debug-scenarios ""' ;;
        debug-*)
            logf=$n.log; res=$n
            cmd="tests/run-all.sh --only debug --debug-scenarios ${n#debug-}" ;;
        bench-smoke)
            logf=bench.log; res=bench
            cmd="tests/run-all.sh --only bench --dists ${dists%% *}" ;;
        vm-*-module)
            dist=${n#vm-}; dist=${dist%-module}
            printf 'no out/%s/*/metaroce.ko, ' "$dist"
            cmd="tests/run-all.sh --only build --dists $dist" ;;
        vm-*)
            logf=$n.log; res=$n; dist=${n#vm-}; dist=${dist%%-*}
            cmd="tests/run-all.sh --only vm --dists $dist --scenarios ${n#vm-"$dist"-}"
            cmd="$cmd --once-scenarios \"\"" ;;
        *-build) logf=$n.log; cmd="make -C tools/${n%-build}" ;;
        *) cmd="tests/run-all.sh" ;;
    esac
    [ -n "$logf" ] && [ -f "$OUT/$logf" ] && printf 'log %s, ' "${OUT#"$REPO"/}/$logf"
    [ -n "$res" ] && [ -d "$OUT/$res" ] && printf 'results %s/, ' "${OUT#"$REPO"/}/$res"
    printf 'rerun: %s\n' "$cmd"
}

# the steps of this run, in order, as `want` and the options select them (this
# plan follows the stages below: a new stage or loop needs its step here too)
steps=()
want lint && steps+=(lint)
want wireshark && steps+=(wireshark)
want refpeer && steps+=(refpeer)
want build && steps+=(build-matrix)
want kunit && steps+=(kunit)
if want vm; then
    once=$once_scenarios
    for dist in $dists; do
        for sc in $scenarios $once; do
            steps+=("vm-$dist-$sc")
        done
        once=""
    done
fi
if want debug; then
    steps+=(debug-build)
    for sc in $debug_scenarios; do
        steps+=("debug-$sc")
    done
fi
want bench && steps+=(bench-smoke)
step_i=0
step_name=""
step_t0=0

# the last duration in seconds of each step ("NAME SECONDS" lines); none when
# the cache is not writable
durations=${METAROCE_CACHE:-/var/cache/metaroce}/test-durations.txt
if ! mkdir -p "${durations%/*}" 2>/dev/null || ! [ -w "${durations%/*}" ]; then
    durations=""
fi
declare -A took=()
if [ -n "$durations" ] && [ -f "$durations" ]; then
    while read -r n s; do
        [ -n "$n" ] && [[ $s =~ ^[0-9]+$ ]] && took[$n]=$s
    done <"$durations"
fi

# fmt_s SECONDS: 42s, 6m12s, 1h05m
fmt_s() {
    if [ "$1" -lt 60 ]; then
        printf '%ds' "$1"
    elif [ "$1" -lt 3600 ]; then
        printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
    else
        printf '%dh%02dm' $(($1 / 3600)) $(($1 % 3600 / 60))
    fi
}
# fmt_left SECONDS: 42s under a minute, else rounded to the minute: 31m, 1h05m
fmt_left() {
    local m=$((($1 + 30) / 60))
    if [ "$1" -lt 60 ]; then
        printf '%ds' "$1"
    elif [ "$m" -lt 60 ]; then
        printf '%dm' "$m"
    else
        printf '%dh%02dm' $((m / 60)) $((m % 60))
    fi
}

# step_start NAME [WHAT]: log that step NAME (running WHAT) starts, its number
# and the time left by the last durations of it and the steps after it
step_start() {
    local i=$step_i n=${#steps[@]} s left=0 known=0 unknown=0 eta=""
    while [ "$i" -lt "$n" ] && [ "${steps[i]}" != "$1" ]; do
        i=$((i + 1))
    done
    # a step the plan did not foresee comes next
    if [ "$i" -ge "$n" ]; then
        i=$step_i; n=$((n + 1))
        steps=("${steps[@]:0:i}" "$1" "${steps[@]:i}")
    fi
    step_i=$((i + 1)); step_name=$1; step_t0=$SECONDS
    for s in "${steps[@]:i}"; do
        if [ -n "${took[$s]:-}" ]; then
            left=$((left + ${took[$s]})); known=$((known + 1))
        else
            unknown=$((unknown + 1))
        fi
    done
    if [ "$known" -gt 0 ]; then
        eta=", about $(fmt_left "$left") left"
        [ "$unknown" = 1 ] && eta="$eta (1 step not timed yet)"
        [ "$unknown" -gt 1 ] && eta="$eta ($unknown steps not timed yet)"
    fi
    log "step $step_i/$n $1${2:+ ($2)}: $(fmt_s "$SECONDS") so far$eta"
}
# step_done NAME: when NAME is the step running, keep its duration in $durations
step_done() {
    local t
    [ "$1" = "$step_name" ] || return 0
    step_name=""
    t=$((SECONDS - step_t0))
    took[$1]=$t
    [ -n "$durations" ] || return 0
    if { awk -v n="$1" '$1 != n' "$durations" 2>/dev/null; echo "$1 $t"; } \
            >"$durations.$$" 2>/dev/null; then
        mv -f "$durations.$$" "$durations" 2>/dev/null
    fi
    rm -f "$durations.$$"
}

# vm_files NAME KO: the files every scenario VM gets (module, scenario lib, datacheck,
# ucstream, collective, ringrace, mrofuzz, mroblind, refpeer and kside, mro-hostile, mro-idle, mro-rnr, mro-retry, mro-order, mro-selfqp, mro-udcheck, mro-pathidle, mro-mwbind,
# mro-paths, mpicoll.c (compiled in the guest), for make install: Makefile, metaroce.conf, metaroce@.service; for DKMS:
# metaroce-src.tar.gz, made by make dist; the module index, metaroce-depmod.tar);
# prints the dir
vm_files() {
    local files=$OUT/files-$1
    mkdir -p "$files"
    cp "$2" "$files/metaroce.ko"
    cp tests/vm/scenarios/metaroce-lib.sh "$files/"
    [ -x "$dc" ] && cp "$dc" "$files/"
    [ -x tools/ucstream/ucstream ] && cp tools/ucstream/ucstream "$files/"
    [ -x tools/collective/collective ] && cp tools/collective/collective "$files/"
    [ -x tools/ringrace/ringrace ] && cp tools/ringrace/ringrace "$files/"
    [ -x tools/mrofuzz/mrofuzz ] && cp tools/mrofuzz/mrofuzz "$files/"
    [ -x tools/mroblind/mroblind ] && cp tools/mroblind/mroblind "$files/"
    [ -x tools/refpeer/refpeer ] && [ -x tools/refpeer/kside ] &&
        cp tools/refpeer/refpeer tools/refpeer/kside "$files/"
    [ -x tools/conform/conform ] && cp tools/conform/conform tools/conform/rules.txt "$files/"
    cp tools/mro-hostile tools/mro-idle tools/mro-rnr tools/mro-retry tools/mro-order tools/mro-selfqp tools/mro-udcheck tools/mro-pathidle tools/mro-mwbind \
        "$files/"
    cp tools/mpicoll/mpicoll.c "$files/"
    cp Makefile tools/install/metaroce.conf tools/install/metaroce@.service tools/mro-paths \
        "$files/"
    cp "$(make -s dist)" "$files/metaroce-src.tar.gz"
    # the guests' module index with this module in it, made on the host
    # (mro_install falls back to depmod -a in the guest without it)
    rm -f "$files/metaroce-depmod.tar"
    case $1 in
    bookworm|trixie)
        scripts/depmod-index.sh "$1" "$2" "$files/metaroce-depmod.tar" \
            >>"$OUT/depmod-index.log" 2>&1 ||
            log "vm_files $1: no host-made module index (depmod-index.log)" >&2 ;;
    esac
    echo "$files"
}

# vm_scenario_run DIST SC FILES NAME TIMEOUT [run.sh args...]: run one scenario
# (results in $OUT/NAME, its run.sh output in $OUT/NAME.log, its exit code in
# $OUT/NAME.rc); may run in the background beside others
vm_scenario_run() {
    local dist=$1 sc=$2 files=$3 name=$4 tmo=$5 script topo rc
    shift 5
    [ "$(left_s)" -lt "$tmo" ] && tmo=$(left_s)
    script=tests/vm/scenarios/metaroce-$sc.sh
    topo=$(scenario_topology "$sc")
    tests/vm/run.sh --dist "$dist" --topology "$topo" --scenario "$script" "$@" \
        --files "$files"/* \
        --out "$OUT/$name" --timeout "$tmo" >"$OUT/$name.log" 2>&1
    rc=$?
    # a VM that crashed or never reported (emulator trouble under
    # TCG) is retried once; a failed check is never retried
    if [ $rc != 0 ] && [ "$(left_s)" -ge 180 ] && jq -e '[.vms[] | select(.error)] | length > 0' \
            "$OUT/$name/summary.json" >/dev/null 2>&1; then
        [ "$(left_s)" -lt "$tmo" ] && tmo=$(left_s)
        log "vm $name: a VM gave no result ($(jq -r '[.vms[].error // empty] | join("; ")' \
            "$OUT/$name/summary.json")); retrying once"
        echo "RETRY $name (VM gave no result)" >"$OUT/$name.retry"
        mv "$OUT/$name" "$OUT/$name.try1"
        tests/vm/run.sh --dist "$dist" --topology "$topo" --scenario "$script" "$@" \
            --files "$files"/* \
            --out "$OUT/$name" --timeout "$tmo" >"$OUT/$name.log" 2>&1
        rc=$?
    fi
    echo "$rc" >"$OUT/$name.rc"
    return "$rc"
}

# vm_scenario_collect NAME LABEL: count the checks of the run vm_scenario_run
# left in $OUT/NAME (LABEL, DIST/SC, names it in the summary and --report-only)
vm_scenario_collect() {
    local name=$1 label=$2 rc r p f h
    rc=$(cat "$OUT/$name.rc" 2>/dev/null || echo 1)
    [ -f "$OUT/$name.retry" ] && cat "$OUT/$name.retry" >>"$summary"
    grep -E '^(PASS|FAIL)|check|result' "$OUT/$name.log" | tail -n 80
    if grep -qw "$label" <<<"$report_only"; then
        for r in "$OUT/$name"/*/result.json; do
            [ -f "$r" ] || continue
            jq -r --arg s "$label" '.checks[] | select(.ok | not) |
                "XFAIL \($s) \(.name): \(.detail[0:300])"' "$r" >>"$summary"
        done
        step_done "$name"
        echo "REPORT-ONLY $name (rc=$rc; known gap, not counted)" >>"$summary"
        log "$name: report only (rc=$rc)"
        return 0
    fi
    # every guest check counts
    h=$(hint "$name")
    for r in "$OUT/$name"/*/result.json; do
        [ -f "$r" ] || continue
        p=$(jq '[.checks[] | select(.ok)] | length' "$r")
        f=$(jq '[.checks[] | select(.ok | not)] | length' "$r")
        passed=$((passed + p)); failed=$((failed + f))
        jq -r --arg s "$label" --arg h "$h" \
            '.checks[] | select(.ok | not) | "FAIL \($s) \(.name) -- \($h)"' "$r" >>"$summary"
    done
    record "$name" "$rc"
}

# scenario_topology SC: pair or netns, from the scenario's header line
scenario_topology() {
    sed -n 's/^# metaroce-[a-z-]* (\([a-z]*\) topology[,)].*/\1/p' \
        "tests/vm/scenarios/metaroce-$1.sh"
}

# vm_scenario DIST SC FILES NAME LABEL TIMEOUT [run.sh args...]: run one
# scenario now and count its checks
vm_scenario() {
    local dist=$1 sc=$2 files=$3 name=$4 label=$5 tmo=$6
    shift 6
    if [ "$(left_s)" -lt 180 ]; then
        not_started "$name" "$label"
        record "$name" 1
        return 1
    fi
    step_start "$name" "$(scenario_topology "$sc")"
    vm_scenario_run "$dist" "$sc" "$files" "$name" "$tmo" "$@"
    vm_scenario_collect "$name" "$label"
}

# dkms_wait DIST: wait until the DKMS build of DIST started in the
# background (pid in dkms_pid[DIST]) has ended; a failure is recorded once
dkms_wait() {
    local pid=${dkms_pid[$1]:-}
    [ -n "$pid" ] || return 0
    unset "dkms_pid[$1]"
    wait "$pid" || record "dkms-tarball-$1" 1
}

# vm_scenarios JOB...: run the scenario JOBs ("DIST SC FILES TIMEOUT"), as
# many VMs at once as the host has cores ($MRO_TEST_VMS overrides): each lab
# VM is one TCG vCPU, one host thread, so a netns scenario (one VM) keeps one
# core busy and a pair scenario (two VMs) both.  The two-VM jobs go first, in
# order, then the one-VM jobs, longest first by their last duration (so
# the last to end is a short one); a one-VM job starts whenever a core is
# free (install once its DKMS build is done).
# Each job is counted when it ends.
vm_scenarios() {
    local slots=${MRO_TEST_VMS:-$(nproc)} free need j pid dist sc files tmo
    local -a jobs=()
    local -A job_of=() need_of=() t0_of=()
    # the jobs in start order, each as "NEED DIST SC FILES TIMEOUT"
    for j in "$@"; do
        read -r dist sc files tmo <<<"$j"
        [ "$(scenario_topology "$sc")" = pair ] &&
            jobs+=("$((slots < 2 ? slots : 2)) $j")
    done
    while read -r j; do
        [ -n "$j" ] && jobs+=("1 $j")
    done < <(for j in "$@"; do
        read -r dist sc files tmo <<<"$j"
        [ "$(scenario_topology "$sc")" = pair ] ||
            printf '%s %s\n' "${took[vm-$dist-$sc]:-600}" "$j"
    done | sort -s -k1,1nr | cut -d' ' -f2-)
    free=$slots
    while [ ${#jobs[@]} -gt 0 ] || [ ${#job_of[@]} -gt 0 ]; do
        # start every job that fits, first the first in order
        j=0
        while [ "$j" -lt ${#jobs[@]} ]; do
            read -r need dist sc files tmo <<<"${jobs[j]}"
            # install waits for its DKMS build; others go first meanwhile
            if [ "$sc" = install ] && [ -n "${dkms_pid[$dist]:-}" ]; then
                if kill -0 "${dkms_pid[$dist]}" 2>/dev/null; then
                    j=$((j + 1))
                    continue
                fi
                dkms_wait "$dist"
            fi
            if [ "$need" -le "$free" ]; then
                if [ "$(left_s)" -lt 180 ]; then
                    not_started "vm-$dist-$sc" "$dist/$sc"
                    record "vm-$dist-$sc" 1
                else
                    log "start vm-$dist-$sc ($need of $slots cores)"
                    vm_scenario_run "$dist" "$sc" "$files" "vm-$dist-$sc" "$tmo" &
                    pid=$!
                    job_of[$pid]="$dist $sc"; need_of[$pid]=$need; t0_of[$pid]=$SECONDS
                    free=$((free - need))
                fi
                jobs=("${jobs[@]:0:j}" "${jobs[@]:j+1}")
                continue
            fi
            [ "$free" = 0 ] && break
            j=$((j + 1))
        done
        if [ ${#job_of[@]} = 0 ]; then
            # nothing runs: what is left waits for a DKMS build
            for dist in "${!dkms_pid[@]}"; do
                dkms_wait "$dist"
            done
            continue
        fi
        # wait for one to end and count it
        pid=""
        wait -n -p pid "${!job_of[@]}"
        [ -n "$pid" ] || continue
        read -r dist sc <<<"${job_of[$pid]}"
        free=$((free + need_of[$pid]))
        log "end vm-$dist-$sc after $(fmt_s $((SECONDS - t0_of[$pid])))"
        step_name="vm-$dist-$sc"; step_t0=${t0_of[$pid]}
        vm_scenario_collect "vm-$dist-$sc" "$dist/$sc"
        unset "job_of[$pid]" "need_of[$pid]" "t0_of[$pid]"
    done
}

if want lint; then
    step_start lint
    scripts/lint.sh >"$OUT/lint.log" 2>&1
    rc=$?
    tail -n 20 "$OUT/lint.log"
    record lint $rc
fi

if want wireshark; then
    step_start wireshark
    tests/wireshark/run.sh >"$OUT/wireshark.log" 2>&1
    rc=$?
    tail -n 1 "$OUT/wireshark.log"
    record wireshark $rc
fi

if want refpeer; then
    step_start refpeer
    {
        dpkg -s libssl-dev >/dev/null 2>&1 ||
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q libssl-dev
        make -s -C tools/refpeer check && make -s -C tools/conform check
    } >"$OUT/refpeer.log" 2>&1
    rc=$?
    tail -n 1 "$OUT/refpeer.log"
    record refpeer $rc
fi

if want build; then
    step_start build-matrix "$dists"
    # shellcheck disable=SC2086
    scripts/matrix.sh $dists >"$OUT/matrix.log" 2>&1
    rc=$?
    tail -n 15 "$OUT/matrix.log"
    record "build-matrix" $rc
fi

if want kunit; then
    step_start kunit
    tests/kunit/run.sh --outdir "$OUT/kunit" >"$OUT/kunit.log" 2>&1
    rc=$?
    tail -n 25 "$OUT/kunit.log"
    record kunit $rc
fi

if want vm || want debug; then
    # the data-integrity tool runs in the guests; build it on the host
    if ! { dpkg -s libibverbs-dev librdmacm-dev >/dev/null 2>&1 ||
           DEBIAN_FRONTEND=noninteractive apt-get install -y -q libibverbs-dev librdmacm-dev >/dev/null; } ||
       ! make -C tools/datacheck >"$OUT/datacheck-build.log" 2>&1; then
        record datacheck-build 1
    fi
    make -C tools/ucstream >"$OUT/ucstream-build.log" 2>&1 || record ucstream-build 1
    make -C tools/collective >"$OUT/collective-build.log" 2>&1 || record collective-build 1
    make -C tools/ringrace >"$OUT/ringrace-build.log" 2>&1 || record ringrace-build 1
    make -C tools/mrofuzz >"$OUT/mrofuzz-build.log" 2>&1 || record mrofuzz-build 1
    make -C tools/mroblind >"$OUT/mroblind-build.log" 2>&1 || record mroblind-build 1
    # the reference peer, its kernel-side program and the conformance
    # suite's runner (metaroce-refpeer, metaroce-conform)
    { dpkg -s libssl-dev >/dev/null 2>&1 ||
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q libssl-dev >/dev/null; } &&
        make -C tools/refpeer refpeer kside >"$OUT/refpeer-kside-build.log" 2>&1 &&
        make -C tools/conform conform rules.txt >>"$OUT/refpeer-kside-build.log" 2>&1 ||
        record refpeer-kside-build 1
fi

if want vm; then
    vm_jobs=()
    declare -A dkms_pid=()
    for dist in $dists; do
        ko=$(ls "$REPO"/out/"$dist"/*/metaroce.ko 2>/dev/null | head -n1)
        if [ -z "$ko" ]; then
            record "vm-$dist-module" 1
            continue
        fi
        files=$(vm_files "$dist" "$ko")
        # metaroce-install: DKMS's build for this kernel, made natively while
        # the first scenarios run (vm_scenarios waits for it before it
        # starts install); make test-full has the guest build it from source
        # instead
        (
            dkt=$(scripts/dkms-tarball.sh "$dist" 2>"$OUT/dkms-$dist.log" | tail -n1) &&
                [ -s "$dkt" ] &&
                cp "$dkt" "$files/.metaroce-dkms.tar.gz" &&
                mv "$files/.metaroce-dkms.tar.gz" "$files/metaroce-dkms.tar.gz"
        ) &
        dkms_pid[$dist]=$!
        [ "$full" = 1 ] && echo "DKMS_FROM_SOURCE=1" >"$files/install.conf"
        # the VM image, before the scenarios that share it start at once
        bash tests/vm/lab.sh image "$dist" >"$OUT/image-$dist.log" 2>&1 ||
            record "vm-$dist-image" 1
        for sc in $scenarios; do
            timeout=1200
            [ "$sc" = install ] && [ "$full" = 1 ] && timeout=2400
            [ "$sc" = fuzz ] && timeout=1800	# the fuzzer may take 2 x 600 s
            vm_jobs+=("$dist $sc $files $timeout")
        done
        for sc in $once_scenarios; do
            timeout=1200
            [ "$sc" = blind ] && timeout=2400	# 20 transfers of a minute
            vm_jobs+=("$dist $sc $files $timeout")
        done
        once_scenarios=""
    done
    vm_scenarios "${vm_jobs[@]}"
    for dist in "${!dkms_pid[@]}"; do
        dkms_wait "$dist"
    done
fi

if want debug; then
    step_start debug-build "debug kernel, cached after the first run, and metaroce.ko W=1 for it"
    dk=$(scripts/debug-kernel.sh kernel 2>"$OUT/debug-build.log" | tail -n1)
    ko=$(scripts/debug-kernel.sh module 2>>"$OUT/debug-build.log" | tail -n1)
    tail -n 5 "$OUT/debug-build.log"
    if [ -f "$dk/bzImage" ] && [ -f "$ko" ]; then
        record debug-build 0
        files=$(vm_files debug "$ko")
        # TCG + KASAN + lockdep: boots take minutes, scenarios run several times
        # slower, so every wait inside the guests gets longer too
        echo "DC_TIMEOUT=1200" >"$files/datacheck.conf"
        for sc in $debug_scenarios; do
            LAB_GUEST_ENV="LAB_BARRIER_TIMEOUT=1200 MRO_TEST_TIMEOUT=900 MRO_FUZZ_COUNT=50000" \
                vm_scenario trixie "$sc" "$files" "debug-$sc" "debug/$sc" 5400 \
                --kernel "$dk" --boot-timeout 1200
        done
    else
        record debug-build 1
    fi
fi

if want bench; then
    bdist=${dists%% *}
    bko=$(ls "$REPO"/out/"$bdist"/*/metaroce.ko 2>/dev/null | head -n1)
    # its VMs' own timeouts add up to ~40 min at worst: it starts only with
    # 8 min of the budget left (a passing smoke takes ~6 min) and is cut at
    # the budget's end
    if [ "$(left_s)" -lt 480 ]; then
        not_started bench-smoke bench
        rc=1
    else
        step_start bench-smoke "on $bdist, numbers reported, not judged"
        timeout -k 30 "$(left_s)" tests/vm/bench.sh --profile smoke --dist "$bdist" \
            --out "$OUT/bench" ${bko:+--ko "$bko"} >"$OUT/bench.log" 2>&1
        rc=$?
        [ -s "$OUT/bench/report.md" ] || rc=1
        tail -n 25 "$OUT/bench.log"
    fi
    record bench-smoke $rc
fi

# why things failed, compactly and last: CI shows only the end of the output
fail_details() {
    local j d
    find "$OUT" -maxdepth 3 -name summary.json |
        sort | while read -r j; do
        d=${j#"$OUT"/}
        jq -r --arg d "${d%/summary.json}" '.vms[]? |
            (select(.error) | "WHY \($d)/\(.vm): \(.error)"),
            (select(.exit_detail) | "WHY \($d)/\(.vm): \(.exit_detail)"),
            (.checks[]? | select(.ok | not) | (.detail | gsub("\n"; " | ")) as $t |
                "WHY \($d) \(.name): \(if ($t | length) > 400
                    then $t[0:120] + " [...] " + $t[-280:] else $t end)")' \
            "$j" 2>/dev/null
    done
    grep -h 'lab run failed' "$OUT/bench.log" 2>/dev/null | sed 's/^/WHY bench: /'
    sed -n '/^## Failed samples/,/^## /{/^- /s/^- /WHY bench sample: /p}' \
        "$OUT/bench/report.md" 2>/dev/null | cut -c1-200
}

log "summary ($summary):"
cat "$summary"
fail_details | head -n 20
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
