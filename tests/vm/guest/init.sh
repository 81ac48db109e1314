#!/bin/bash
# Guest harness (runs as PID 1 via /lab/init, from the read-only 9p share /lab/in).
# Sets up the VM, runs /lab/in/scenario.sh with a timeout, writes /lab/out/result.json,
# dmesg.txt and scenario.log, then powers the VM off.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
t0=$(date +%s)

mount -t devpts devpts /dev/pts -o gid=5,mode=620 2>/dev/null || { mkdir -p /dev/pts && mount -t devpts devpts /dev/pts; }
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mkdir -p /run/netns /var/run
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

# Per-VM settings written by run.sh: LAB_VM LAB_SCENARIO LAB_TOPOLOGY LAB_TIMEOUT ROLE MY_IP PEER_IP
set -a
# shellcheck disable=SC1091
. /lab/out/vm.env
set +a
export LAB_IN=/lab/in LAB_OUT=/lab/out LAB_FILES=/lab/in/files LAB_LIB=/lab/in/guest/lib.sh
export LAB_WORK=/tmp/lab
mkdir -p "$LAB_WORK"
: >"$LAB_OUT/checks.jsonl"
: >"$LAB_OUT/metrics.jsonl"

# A custom kernel (run.sh --kernel) brings its modules dir: modules.builtin makes modprobe of
# built-in drivers a no-op, and its loadable modules (rdma_rxe) become available.
if [ -d "/lab/in/kmods/$(uname -r)" ] && [ ! -e "/lib/modules/$(uname -r)/modules.builtin" ]; then
    cp -a "/lab/in/kmods/$(uname -r)" /lib/modules/
    depmod -a
fi

hostname "$LAB_VM"
ip link set lo up
if [ -n "${MY_IP:-}" ]; then
    ip addr add "$MY_IP/24" dev eth0
    ip link set eth0 up
fi
echo "lab: vm=$LAB_VM role=${ROLE:-} ip=${MY_IP:-} kernel=$(uname -r) boot=$(cut -d' ' -f1 /proc/uptime)s" >/dev/console

# timeout_state: what runs and where it waits, kernel stacks of blocked
# tasks (also into dmesg by sysrq w); the summary of the scenario's
# processes (kernel threads, this harness, udev and this pipeline left
# out) goes to $LAB_OUT/timeout-left
timeout_state() {
    local p
    echo "# processes ${LAB_TIMEOUT}s minus $((LAB_TIMEOUT - t_dump))s into the scenario"
    ps -eo pid,ppid,stat,etimes,wchan:32,args
    for p in /proc/[0-9]*; do
        [ "$(awk '{print $3}' "$p/stat" 2>/dev/null)" = D ] || continue
        echo "# ${p#/proc/} ($(cat "$p/comm")), uninterruptible:"
        cat "$p/stack"
    done
    echo 1 >/proc/sys/kernel/sysrq
    echo w >/proc/sysrq-trigger
    ps -eo args= | grep -vE '^\[|init|udevd|timeout -k|tee /lab|^(ps|sort|uniq|head|awk|paste|grep|sleep)( |$)' |
        sort | uniq -c | sort -rn | head -n 4 | awk '{$1 = $1; print}' |
        paste -sd ';' - >"$LAB_OUT/timeout-left"
}

cd "$LAB_WORK" || exit 1
# the timeout kills the scenario's whole process group: the state is taken
# shortly before, while it still runs
t_dump=$(( LAB_TIMEOUT > 60 ? LAB_TIMEOUT - 20 : LAB_TIMEOUT * 2 / 3 ))
( sleep "$t_dump" && timeout_state >"$LAB_OUT/timeout-state.txt" 2>&1 ) &
watcher=$!
timeout -k 10 "$LAB_TIMEOUT" bash "$LAB_IN/scenario.sh" </dev/null 2>&1 | tee "$LAB_OUT/scenario.log" >/dev/console
rc=${PIPESTATUS[0]}
pkill -P "$watcher" sleep 2>/dev/null
kill "$watcher" 2>/dev/null
why="" left=""
if [ "$rc" = 124 ]; then
    echo "lab: scenario timed out after ${LAB_TIMEOUT}s" | tee -a "$LAB_OUT/scenario.log" >/dev/console
    left=$(cat "$LAB_OUT/timeout-left" 2>/dev/null)
    why="scenario timed out after ${LAB_TIMEOUT}s"
elif [ "$rc" != 0 ]; then
    why="scenario exited $rc"
fi
if [ -n "$why" ]; then
    last=$(tail -n 1 "$LAB_OUT/checks.jsonl" | jq -r '.name // empty' 2>/dev/null)
    why="$why after check ${last:-(none)}${left:+; running $((LAB_TIMEOUT - t_dump))s before: $left}; see scenario.log${left:+, timeout-state.txt}"
fi

dmesg >"$LAB_OUT/dmesg.txt" 2>&1
jq -n \
    --arg vm "$LAB_VM" --arg scenario "$LAB_SCENARIO" --arg topology "$LAB_TOPOLOGY" \
    --arg dist "${LAB_DIST:-}" --arg kernel "$(uname -r)" --argjson rc "$rc" \
    --argjson duration "$(( $(date +%s) - t0 ))" --arg why "$why" \
    --slurpfile checks "$LAB_OUT/checks.jsonl" --slurpfile metrics "$LAB_OUT/metrics.jsonl" '
    ($checks | all(.ok)) as $allok |
    {vm: $vm, scenario: $scenario, topology: $topology, dist: $dist, kernel: $kernel,
     status: (if $rc == 0 and $allok then "pass" else "fail" end),
     exit_code: $rc, duration_s: $duration,
     checks: $checks,
     exit_detail: (if $why == "" then null else $why end),
     metrics: (reduce $metrics[] as $m ({}; .[$m.name] = $m.value))}' \
    >"$LAB_OUT/result.json.tmp" && mv "$LAB_OUT/result.json.tmp" "$LAB_OUT/result.json"
echo "lab: scenario exit $rc, result $(jq -r .status "$LAB_OUT/result.json" 2>/dev/null || echo missing)" >/dev/console
sync
echo o >/proc/sysrq-trigger
sleep 30
poweroff -f
