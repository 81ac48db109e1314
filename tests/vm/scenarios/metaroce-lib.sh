# shellcheck shell=bash
# Guest helpers for metaroce scenarios (sourced after $LAB_LIB).
# Expects the module, built for the VM's kernel, in $LAB_FILES/metaroce.ko.

MRO_PORT=${MRO_PORT:-4796}

# install the module where modprobe finds it, so dependencies load too.
# The index files for it come made by the host (scripts/depmod-index.sh,
# metaroce-depmod.tar) when they are for this kernel; depmod -a here is the
# fallback (20-27 s under TCG).
mro_install() {
    local kver kdir idx=$LAB_FILES/metaroce-depmod.tar
    kver=$(uname -r)
    kdir=/lib/modules/$kver/extra
    mkdir -p "$kdir"
    cp "$LAB_FILES/metaroce.ko" "$kdir/"
    if [ -f "$idx" ] && tar -tf "$idx" | grep -qxF "$kver/modules.dep" &&
        tar -xf "$idx" -C /lib/modules && modinfo -n metaroce | grep -q "^$kdir/metaroce\.ko$"; then
        lab_log "mro_install: module index from the host (metaroce-depmod.tar)"
    else
        depmod -a
    fi
    mro_findings_start
}

# mro_findings_start: the point from which every finding counts (see
# mro_dmesg_clean and mro_kmemleak_report), marked once, before metaroce loads
mro_findings_start() {
    mro_kmemleak_baseline
    dmesg | grep -qF "$MRO_KMSG_MARK" || echo "$MRO_KMSG_MARK" >/dev/kmsg
}

# mro_device_up metaroce|rxe: load the driver and add its device on eth0
# (mr0, or rxe0 for the in-tree rdma_rxe in side-by-side runs on the same
# wire), recording the checks; sets DEV.  Returns non-zero when it failed.
mro_device_up() {
    if [ "$1" = rxe ]; then
        DEV=rxe0
        modprobe crc32_generic
        lab_check modprobe-rxe modprobe rdma_rxe || return 1
        lab_check link-add rdma link add rxe0 type rxe netdev eth0 || return 1
    else
        DEV=mr0
        mro_install
        lab_check modprobe-metaroce modprobe metaroce || return 1
        lab_check link-add rdma link add mr0 type metaroce netdev eth0 || return 1
        lab_check active mro_wait_state mr0 ACTIVE || return 1
    fi
}

# written to the kernel log by the first mro_install, before metaroce is loaded
MRO_KMSG_MARK='metaroce-lab: module install, findings count from here'

# kmemleak (debug kernels only, see scripts/debug-kernel.sh): the debugfs control file
MRO_KMEMLEAK=/sys/kernel/debug/kmemleak

mro_kmemleak_on() {
    [ -d /sys/kernel/debug/tracing ] || [ -e $MRO_KMEMLEAK ] ||
        mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
    [ -w $MRO_KMEMLEAK ]
}

# mro_kmemleak_baseline: scan once and forget what is already suspected (boot-time
# objects), so the final scan reports only what leaked during the scenario
mro_kmemleak_baseline() {
    mro_kmemleak_on || return 0
    echo scan >$MRO_KMEMLEAK
    echo clear >$MRO_KMEMLEAK
}

# mro_kmemleak_report: print unreferenced objects found since the baseline. Objects
# younger than ~5 s are never reported, so wait, and scan twice as kmemleak advises.
mro_kmemleak_report() {
    mro_kmemleak_on || return 0
    sleep 6
    echo scan >$MRO_KMEMLEAK
    echo scan >$MRO_KMEMLEAK
    cat $MRO_KMEMLEAK
}

# mro_port_state DEV -> ACTIVE / DOWN ... from `rdma link`
mro_port_state() {
    rdma -j link show "$1/1" | jq -r '.[0].state'
}

# mro_wait_state DEV STATE [TRIES]
mro_wait_state() {
    local i
    for i in $(seq "${3:-50}"); do
        [ "$(mro_port_state "$1" 2>/dev/null)" = "$2" ] && return 0
        sleep 0.1
    done
    echo "$1 is $(mro_port_state "$1" 2>&1), wanted $2" >&2
    return 1
}

# mro_gone DEV [SECONDS]: the ib device has disappeared within SECONDS (10;
# waits for queued teardown)
mro_gone() {
    local i
    for i in $(seq $((${2:-10} * 10))); do
        [ -e "/sys/class/infiniband/$1" ] || return 0
        sleep 0.1
    done
    echo "$1 still exists" >&2
    return 1
}

# mro_trace_reset KB: tracefs mounted at /sys/kernel/tracing, a KB-kilobyte
# buffer per CPU, the trace empty (events are left as they are)
mro_trace_reset() {
    local tr=/sys/kernel/tracing
    [ -d "$tr/events" ] || mount -t tracefs nodev "$tr"
    echo "$1" >"$tr/buffer_size_kb"
    echo >"$tr/trace"
}

# mro_counter DEV NAME -> value of a port hw counter
mro_counter() {
    cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# mro_qp_errors: QPs the driver itself moved to the error state on mr0
# (qp_errors); prints nothing when DEV is not mr0 (rxe has no such counter)
mro_qp_errors() {
    [ "$DEV" = mr0 ] && mro_counter mr0 qp_errors
}

# mro_snap DEV: its port counters as "name value" lines
mro_snap() {
    grep -H . "/sys/class/infiniband/$1/ports/1/hw_counters/"* | sed 's|.*/||; s|:| |'
}

# mro_delta BEFORE AFTER NAME: growth of counter NAME between two mro_snaps
mro_delta() {
    local a b
    a=$(awk -v n="$3" '$1 == n { print $2 }' <<<"$1")
    b=$(awk -v n="$3" '$1 == n { print $2 }' <<<"$2")
    echo $(( ${b:-0} - ${a:-0} ))
}

# mro_counters_nonzero DEV: DEV's port counters that are not zero, NAME:VALUE
mro_counters_nonzero() {
    grep -H . "/sys/class/infiniband/$1/ports/1/hw_counters/"* | sed 's|.*/||' |
        grep -v ':0$'
}

# mro_dc_finish: every running datacheck client (-t) ends its run after the
# current iteration (SIGUSR1), checks and disconnects as if its time was up:
# scenarios give a transfer a long -t to outlast their checks on a slow guest,
# then end it when the checks are done.  Only datacheck itself is signalled
# (its command line starts with its path), never a timeout(1) around it.
mro_dc_finish() {
    pkill -USR1 -f '^[^ ]*/datacheck -c ' || true
}

# mro_netem NAME: the netem arguments of a named impairment ("" for clean);
# fails, saying so, for an unknown name
mro_netem() {
    case $1 in
        clean) echo "" ;;
        loss1) echo "loss 1%" ;;
        loss5) echo "loss 5%" ;;
        reorder25) echo "delay 1ms reorder 25% 50%" ;;
        loss1reorder25) echo "loss 1% delay 1ms reorder 25% 50%" ;;
        *) echo "unknown impairment $1" >&2; return 1 ;;
    esac
}

# mro_qdisc_dropped < "tc -s qdisc show" output -> packets its first qdisc
# dropped (the "(dropped N," field)
mro_qdisc_dropped() {
    sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1
}

# Kernel log lines that are findings: warnings, oopses, leaks, and the reports of the
# debug kernel's checkers (lockdep, KASAN, UBSAN, kmemleak, debugobjects, list debugging,
# atomic-sleep checks print "BUG: sleeping function called from invalid context").
# kmemleak's "N new suspected memory leaks" is not matched: the baseline scan prints it
# for boot-time objects; mro_kmemleak_report reads the leaks since the baseline instead.
# Lockdep's own splats all start with "WARNING:" or "BUG:"; the bare word "lockdep" is
# not matched (the debug kernel logs "RCU lockdep checking is enabled" at boot, and
# stack traces name lockdep_* functions), only its "turned off" notices.
MRO_DMESG_BAD='WARNING:|BUG:|Oops|Call Trace|refcount_t|unreferenced object|unregister_netdevice: waiting|lockdep is turned off|turning off the locking correctness validator|INFO: task|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|KASAN|UBSAN:|ODEBUG:|list_(add|del) corruption|detected stalls'
# the same without the stack-trace and stall lines of an RCU CPU stall report
MRO_DMESG_BAD_NOSTALL='WARNING:|BUG:|Oops|refcount_t|unreferenced object|lockdep is turned off|turning off the locking correctness validator|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|KASAN|UBSAN:|ODEBUG:|list_(add|del) corruption'

# mro_dmesg_clean: no kernel warnings, oopses, checker reports or leaks since boot.
# One exception, announced in the scenario log: an RCU CPU stall report logged during
# boot, before the first mro_install (so before metaroce was loaded). Under TCG on a
# loaded host the guest's vCPU can be starved for tens of seconds while the debug
# kernel boots; that stall is the host's doing, not the driver's. Everything else
# before the mark still counts, and after the mark every finding counts, stalls too.
mro_dmesg_clean() {
    local rc=0 log pre post
    log=$(dmesg)
    if grep -qF "$MRO_KMSG_MARK" <<<"$log"; then
        pre=$(sed "/$MRO_KMSG_MARK/,\$d" <<<"$log")
        post=$(sed -n "/$MRO_KMSG_MARK/,\$p" <<<"$log")
    else
        pre='' post=$log
    fi
    if grep -qE 'detected stalls|kthread starved' <<<"$pre"; then
        echo "dmesg-clean: IGNORED: an RCU stall report logged at boot, before metaroce was loaded:"
        grep -E 'detected stalls|kthread starved' <<<"$pre" | sed 's/^/dmesg-clean:   /'
        grep -E "$MRO_DMESG_BAD_NOSTALL" <<<"$pre" && rc=1
    else
        grep -E "$MRO_DMESG_BAD" <<<"$pre" && rc=1
    fi
    grep -E "$MRO_DMESG_BAD" <<<"$post" && rc=1
    if mro_kmemleak_report | grep -A30 'unreferenced object'; then
        rc=1
    fi
    return $rc
}

# mro_wait_listen NS PORT [SECONDS]: until something listens on TCP PORT in
# network namespace NS (a perftest server is ready for its client); at most
# SECONDS (60)
mro_wait_listen() {
    local end=$((SECONDS + ${3:-60}))
    until ip netns exec "$1" ss -Htln "sport = :$2" | grep -q .; do
        [ $SECONDS -ge $end ] && { echo "nothing listens on $1 port $2"; return 1; }
        sleep 0.2
    done
}

# mro_run_or_dump SECONDS CMD...: run CMD; if it is still running after
# SECONDS, dump the blocked tasks to the kernel log (for the console) and
# fail
mro_run_or_dump() {
    local t=$1 pid i
    shift
    "$@" &
    pid=$!
    for ((i = 0; i < t * 5; i++)); do
        kill -0 $pid 2>/dev/null || { wait $pid; return; }
        sleep 0.2
    done
    echo 1 >/proc/sys/kernel/sysrq
    echo w >/proc/sysrq-trigger
    ls /sys/class/infiniband >&2
    dmesg | tail -n 150 >&2
    return 1
}
