#!/bin/bash
# metaroce-pyverbs (netns topology, one VM): rdma-core's own python test suite
# (shipped gzipped by python3-pyverbs under /usr/share/doc/rdma-core/tests) against
# rdma_rxe and against metaroce, each on the same veth pair in the init namespace
# (rxe is not netns aware; the two drivers exclude each other, so one after the
# other: rxe first, unloaded, then metaroce).
#
# Results in the result dir: pyverbs-rxe.json / pyverbs-metaroce.json
# ({"test id": "ok"|"FAIL"|"ERROR"|"skip"|"TIMEOUT"|...}), pyverbs-*.log (unittest
# output), pyverbs-regressions.json (passes on rxe, not on metaroce).
# Check pyverbs-rxe-passes-on-metaroce: every test that passes on rxe passes on metaroce.
#
# Files (--files): metaroce.ko, metaroce-lib.sh; optional pyverbs.conf (sourced):
#   PV_TEST_TIMEOUT=120   per-test alarm (the test errors with TIMEOUT)
#   PV_SUITE_TIMEOUT=1500 wall-clock limit per suite run
#   PV_FILTER=""          unittest name patterns (-k), e.g. "test_qp test_mr"
#   PV_EXCLUDE='^tests\.test_(mlx5|efa)'   test ids (regex) not run at all: vendor tests
#                         that only skip on soft devices (one of rdma-core 56's mlx5 tests
#                         segfaults the interpreter on rxe as well)
#   PV_RESTARTS=5         a suite that dies (segfault) is restarted without the tests that
#                         already ran; the test it died in is recorded as HUNG
#   PV_RERUN_HUNG=1       then each HUNG test runs once more, alone in a fresh interpreter,
#                         and that result is the one recorded (rdma-core 56's pyverbs
#                         segfaults while freeing objects of earlier tests, on rxe too:
#                         the test that happens to be running is not the culprit); the
#                         log says which tests were rerun
#   PV_DRIVERS="rxe metaroce"
#   PV_DEBUG=""           shell commands run after the metaroce suite (output in
#                         pyverbs-debug.txt), e.g. "ip maddr; cat /proc/net/igmp"
# Example:
#   tests/vm/run.sh --dist bookworm --topology netns --timeout 3600 \
#       --scenario tests/vm/scenarios/metaroce-pyverbs.sh \
#       --files drivers/infiniband/sw/metaroce/metaroce.ko tests/vm/scenarios/metaroce-lib.sh
source "$LAB_LIB"
source "$LAB_FILES/metaroce-lib.sh"

PV_TEST_TIMEOUT=120
PV_SUITE_TIMEOUT=1500
PV_FILTER=""
PV_EXCLUDE='^tests\.test_(mlx5|efa)'
PV_RESTARTS=5
PV_RERUN_HUNG=1
PV_DRIVERS="rxe metaroce"
PV_DEBUG=""
[ -f "$LAB_FILES/pyverbs.conf" ] && source "$LAB_FILES/pyverbs.conf"

# the suite, un-gzipped into a scratch dir
SRC=/usr/share/doc/rdma-core/tests
SUITE=$LAB_WORK/pyverbs/tests
lab_check pyverbs-suite-present test -f "$SRC/run_tests.py" || exit 1
mkdir -p "$SUITE"
cp -a "$SRC/." "$SUITE/"
gunzip -f "$SUITE"/*.gz
python3 -c 'import pyverbs' || { lab_record pyverbs-import false "python3 cannot import pyverbs"; exit 1; }

# A runner equivalent to run_tests.py that records every outcome as it happens (JSON
# lines, so a hung or crashed suite still leaves the tests done so far) and arms a
# per-test alarm (SIGALRM raises inside the test: it errors instead of hanging).
cat >"$LAB_WORK/pyverbs/runner.py" <<'EOF'
import json, os, re, signal, sys, time, unittest
from importlib.machinery import SourceFileLoader

suite_dir, out_path, per_test = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.argv = [sys.argv[0]] + sys.argv[4:]
sys.path.insert(0, suite_dir)
from args_parser import parser  # noqa: E402

tests = SourceFileLoader('tests', os.path.join(suite_dir, '__init__.py')).load_module()
parser.parse_args()          # --dev/--gid/-v, leaves unittest's own args in sys.argv
out = open(out_path, 'a', buffering=1)


class TestTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise TestTimeout('test exceeded %d s' % per_test)


signal.signal(signal.SIGALRM, on_alarm)


class Result(unittest.TextTestResult):
    def startTest(self, test):
        self._t0 = time.time()
        self._timed_out = False
        out.write(json.dumps({'test': test.id(), 'status': 'start'}) + '\n')
        signal.alarm(per_test)
        super().startTest(test)

    def stopTest(self, test):
        signal.alarm(0)
        super().stopTest(test)

    def _rec(self, test, status, detail=''):
        signal.alarm(0)
        out.write(json.dumps({'test': test.id(), 'status': status,
                              'seconds': round(time.time() - getattr(self, '_t0', time.time()), 2),
                              'detail': detail[-2000:]}) + '\n')

    def addSuccess(self, test):
        super().addSuccess(test)
        self._rec(test, 'ok')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._rec(test, 'FAIL', self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        status = 'TIMEOUT' if err[0] is TestTimeout else 'ERROR'
        self._rec(test, status, self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._rec(test, 'skip', str(reason))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._rec(test, 'expected-failure')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._rec(test, 'unexpected-success')


# not run: ids in PV_SKIP_FILE (ran before a crash of an earlier pass) and PV_EXCLUDE;
# with PV_ONLY (a test id), only that test
skip = set()
if os.environ.get('PV_SKIP_FILE') and os.path.exists(os.environ['PV_SKIP_FILE']):
    skip = set(open(os.environ['PV_SKIP_FILE']).read().split())
exclude = re.compile(os.environ['PV_EXCLUDE']) if os.environ.get('PV_EXCLUDE') else None
only = os.environ.get('PV_ONLY')


def flatten(s):
    for t in s:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


class Program(unittest.TestProgram):
    def runTests(self):
        self.test = unittest.TestSuite(
            [t for t in flatten(self.test)
             if t.id() not in skip and not (exclude and exclude.search(t.id()))
             and (not only or t.id() == only)])
        super().runTests()


Program(module=tests, testRunner=unittest.TextTestRunner(
    resultclass=Result, verbosity=2, stream=sys.stdout), exit=True)
EOF

# summarize a JSON-lines record into {test: status}; a test that started and never
# finished (suite killed or crashed) is "HUNG"
summarize() {
    jq -s 'reduce .[] as $r ({}; if $r.status == "start" then .[$r.test] = "HUNG"
                                  else .[$r.test] = $r.status end)' "$1"
}

# a veth pair in the init namespace: v0 (10.97.0.1) carries the device, v1 is its peer
modprobe veth
ip link add v0 type veth peer name v1
ip addr add 10.97.0.1/24 dev v0
ip link set v0 up
ip link set v1 up
modprobe -a ib_uverbs rdma_ucm

# run_suite DRIVER DEV
run_suite() {
    local drv=$1 dev=$2 gid rc=0 k
    local jl=$LAB_OUT/pyverbs-$drv.jsonl log=$LAB_OUT/pyverbs-$drv.log
    gid=$(lab_gid_index "$dev") || { lab_record "pyverbs-$drv-gid" false "no RoCE v2 IPv4 GID"; return 1; }
    lab_log "pyverbs suite on $drv ($dev, gid $gid)"
    local filt=()
    for k in $PV_FILTER; do filt+=(-k "$k"); done
    : >"$jl"
    : >"$log"
    local end=$((SECONDS + PV_SUITE_TIMEOUT)) pass left
    for ((pass = 0; pass <= PV_RESTARTS; pass++)); do
        left=$((end - SECONDS))
        [ "$left" -gt 10 ] || break
        jq -r .test "$jl" | sort -u >"$LAB_WORK/pyverbs/skip-$drv"
        rc=0
        (cd "$LAB_WORK/pyverbs" && PV_SKIP_FILE="$LAB_WORK/pyverbs/skip-$drv" PV_EXCLUDE="$PV_EXCLUDE" \
            timeout -k 10 "$left" python3 runner.py "$SUITE" "$jl" "$PV_TEST_TIMEOUT" \
            --dev "$dev" --gid "$gid" -v "${filt[@]}") >>"$log" 2>&1 || rc=$?
        # 0/1: the suite ran to its end; 124/137: out of time; else it died: go on without
        # the tests that ran (the one it died in stays HUNG)
        case $rc in 0|1|124|137) break ;; esac
        lab_log "pyverbs on $drv died (exit $rc) after $(jq -r .test "$jl" | sort -u | wc -l) tests; restarting"
        echo "=== runner exit $rc; restarting without the tests that ran" >>"$log"
    done
    # a test the interpreter died in runs once more, alone
    if [ "$PV_RERUN_HUNG" = 1 ]; then
        local t
        for t in $(summarize "$jl" | jq -r 'to_entries[] | select(.value == "HUNG") | .key'); do
            lab_log "pyverbs on $drv: rerunning $t alone (the suite died in it)"
            echo "=== rerun alone: $t" >>"$log"
            (cd "$LAB_WORK/pyverbs" && PV_ONLY="$t" \
                timeout -k 10 $((PV_TEST_TIMEOUT + 60)) python3 runner.py "$SUITE" "$jl" \
                "$PV_TEST_TIMEOUT" --dev "$dev" --gid "$gid" -v) >>"$log" 2>&1
        done
    fi
    summarize "$jl" >"$LAB_OUT/pyverbs-$drv.json"
    tail -n 5 "$log"
    local st
    for st in ok FAIL ERROR skip TIMEOUT HUNG; do
        lab_metric "pyverbs_${drv}_${st}" "$(jq --arg s "$st" '[.[] | select(. == $s)] | length' "$LAB_OUT/pyverbs-$drv.json")"
    done
    lab_metric "pyverbs_${drv}_exit" "$rc"
    # the suite ran (some tests reported), whatever their outcome
    lab_check_grep "pyverbs-$drv-ran" '^[1-9]' jq 'length' "$LAB_OUT/pyverbs-$drv.json"
}

# PD_LIMIT DEV: allocate PDs until the device refuses one; it must refuse
# with ENOMEM within a few of max_pd (the kernel holds some), and allocate
# again once one is freed
PD_LIMIT='
import errno, sys
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
ctx = Context(name=sys.argv[1])
limit = ctx.query_device().max_pd
pds, err = [], None
try:
    while len(pds) <= limit:
        pds.append(PD(ctx))
except PyverbsRDMAError as e:
    err = e
got = len(pds)
ok = err is not None and err.error_code == errno.ENOMEM and limit - 16 <= got < limit
pds.pop().close()
pds.append(PD(ctx))
print("pd-limit %s: max_pd %d, allocated %d, then %s" %
      ("ok" if ok else "FAILED", limit, got, err))
'
for drv in $PV_DRIVERS; do
    case $drv in
    rxe)
        modprobe crc32_generic
        lab_check modprobe-rxe modprobe rdma_rxe || continue
        lab_check rxe-link-add rdma link add rxe0 type rxe netdev v0 || continue
        run_suite rxe rxe0
        rdma link del rxe0
        lab_check rxe-unload timeout 60 modprobe -r rdma_rxe
        ;;
    metaroce)
        mro_install
        lab_check modprobe-metaroce modprobe metaroce || continue
        lab_check mr-link-add rdma link add mr0 type metaroce netdev v0 || continue
        lab_check mr-active mro_wait_state mr0 ACTIVE || continue
        run_suite metaroce mr0
        # the PD limit the device advertises is enforced, and freeing makes room
        lab_check_grep mr-pd-limit '^pd-limit ok' python3 -c "$PD_LIMIT" mr0
        # port counters (drops by reason) help to diagnose a failing test
        (cd /sys/class/infiniband/mr0/ports/1/hw_counters && grep . *) \
            >"$LAB_OUT/pyverbs-metaroce-counters.txt" 2>&1
        [ -n "$PV_DEBUG" ] && eval "$PV_DEBUG" >"$LAB_OUT/pyverbs-debug.txt" 2>&1
        lab_check mr-link-del timeout 60 rdma link del mr0
        lab_check mr-unload timeout 60 modprobe -r metaroce
        lab_check dmesg-clean mro_dmesg_clean
        ;;
    esac
done

# every test that passes on rxe passes on metaroce
R=$LAB_OUT/pyverbs-rxe.json M=$LAB_OUT/pyverbs-metaroce.json
if [ -f "$R" ] && [ -f "$M" ]; then
    jq -n --slurpfile r "$R" --slurpfile m "$M" \
        '[$r[0] | to_entries[] | select(.value == "ok") | .key as $k
          | select(($m[0][$k] // "missing") != "ok") | {test: $k, metaroce: ($m[0][$k] // "missing")}]' \
        >"$LAB_OUT/pyverbs-regressions.json"
    n=$(jq length "$LAB_OUT/pyverbs-regressions.json")
    lab_metric pyverbs_regressions "$n"
    lab_record pyverbs-rxe-passes-on-metaroce "$([ "$n" = 0 ] && echo true || echo false)" \
        "$n test(s) pass on rxe but not on metaroce: $(jq -r '.[] | "\(.test)=\(.metaroce)"' "$LAB_OUT/pyverbs-regressions.json" | tr '\n' ' ')"
else
    lab_record pyverbs-rxe-passes-on-metaroce false "missing results: $(ls "$LAB_OUT"/pyverbs-*.json 2>&1)"
fi
