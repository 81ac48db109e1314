#!/bin/bash
# metaroce-collective (netns topology): collective flow completion times across
# eight hosts of a leaf-spine fabric in one VM, metaroce beside TCP on the same
# wire.  Hosts h1..h8 (10.1.N.2/24), two per leaf l1..l4; each leaf has a link
# to each of four spines s1..s4 and reaches every other leaf's hosts through an
# ECMP route over all four, hashed on the L4 ports.  metaroce devices mr1..mr8,
# 8 paths per QP.  tools/collective runs one thread per host (each in its
# host's namespace, one clock): every pattern of COLL_PATTERNS over every
# transport of COLL_TRANSPORTS under every impairment of COLL_IMPAIRS:
#   clean      nothing (clean2, clean3...: the same again, later in the run,
#              to show how much the lab itself drifts between runs)
#   loss1      netem loss 1 % on every spine port (a packet between leaves
#              crosses one: 1 % each way)
#   spinedown  the l1-s1 link goes down mid-run; after COLL_CONVERGE_S the
#              other leaves stop routing l1's hosts through s1 (what a
#              routing protocol would do); both restored after the run
#   blackhole  spine s2 drops everything mid-run (netem loss 100 % on all its
#              ports) while every route still uses it: a silent black hole
# "Mid-run" is before a third of the measured iterations (tools/collective
# --event-at), the same point of the collective for both transports.  Every
# link has MTU COLL_MTU (9000: RoCE's 4096-byte path MTU, as RDMA fabrics run).
# rxe is not beside it here: on these kernels rdma_rxe is not network-namespace
# aware (one device per host is not possible).
# Checks: fabric up; every metaroce run completes every iteration with its data
# verified (tools/collective exit 0) under every impairment; TCP clean and
# loss1 runs complete (TCP under spinedown/blackhole, with COLL_TCP_UNCHECKED=1,
# is measured, not checked: a TCP flow hashed onto a black-holed spine waits
# for RTOs, or forever where nothing rehashes it); no QP error on
# any of the eight devices (qp_errors); kernel log clean.
# Results: $LAB_OUT/coll-IMPAIR-PATTERN-TRANSPORT.{txt,raw} (summary, and one
# line per collective and per flow for tests/vm/bench-collective.sh's report;
# metaroce runs also .counters: the port counters the run moved, summed over
# the eight devices, and .qps: mr1's QPs a third of the way in, for the
# impairments set before the run),
# metrics coll_<impair>_<pattern>_<transport>_{p50,p99,max} (collective FCT, us).
# Knobs (environment or $LAB_FILES/collective.conf): COLL_ITERS (4; make
# bench-collective runs 50), COLL_TCP_UNCHECKED (0: TCP under spinedown and
# blackhole is skipped; 1 runs and reports it, as make bench-collective does),
# COLL_SIZE (131072), COLL_PATTERNS, COLL_TRANSPORTS, COLL_IMPAIRS,
# COLL_TIMEOUT_S (60: one iteration), COLL_CONVERGE_S (1), COLL_MTU (9000),
# COLL_MODPARAMS (more metaroce module parameters, e.g. cc_algo=off),
# COLL_TRACE (empty; a list of metaroce tracepoints, e.g. "mro_rto mro_tlp",
# recorded during each metaroce run into .trace with trace_clock mono, the
# clock of the .raw file's collective start times).
# Files (--files): metaroce.ko, metaroce-lib.sh, collective (tools/collective).
# Example:
#   tests/vm/run.sh --dist bookworm --topology netns --timeout 1800 \
#       --scenario tests/vm/scenarios/metaroce-collective.sh --files \
#       out/bookworm/*/metaroce.ko tests/vm/scenarios/metaroce-lib.sh tools/collective/collective
# shellcheck source=tests/vm/guest/lib.sh
source "$LAB_LIB"
# shellcheck source=tests/vm/scenarios/metaroce-lib.sh
source "$LAB_FILES/metaroce-lib.sh"
# shellcheck disable=SC1091
[ -f "$LAB_FILES/collective.conf" ] && . "$LAB_FILES/collective.conf"

COLL_ITERS=${COLL_ITERS:-4}
COLL_TCP_UNCHECKED=${COLL_TCP_UNCHECKED:-0}
COLL_SIZE=${COLL_SIZE:-131072}
COLL_PATTERNS=${COLL_PATTERNS:-alltoall incast ring}
COLL_TRANSPORTS=${COLL_TRANSPORTS:-rdma tcp}
COLL_IMPAIRS=${COLL_IMPAIRS:-clean loss1 spinedown blackhole}
COLL_TIMEOUT_S=${COLL_TIMEOUT_S:-60}
COLL_CONVERGE_S=${COLL_CONVERGE_S:-1}
COLL_MTU=${COLL_MTU:-9000}
COLL_MODPARAMS=${COLL_MODPARAMS:-}
COLL_TRACE=${COLL_TRACE:-}
TR=/sys/kernel/tracing
COLL=$LAB_FILES/collective
HOSTS="1 2 3 4 5 6 7 8"
LEAVES="1 2 3 4"
SPINES="1 2 3 4"

leaf_of() { echo $(((($1) + 1) / 2)); }

# --- the fabric -------------------------------------------------------------
modprobe veth
for ns in h1 h2 h3 h4 h5 h6 h7 h8 l1 l2 l3 l4 s1 s2 s3 s4; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
done
# veth NS1 IF1 ADDR1 NS2 IF2 ADDR2 (addresses with prefix)
veth() {
    ip link add "$2" netns "$1" type veth peer name "$5" netns "$4"
    ip -n "$1" addr add "$3" dev "$2"
    ip -n "$4" addr add "$6" dev "$5"
    ip -n "$1" link set "$2" mtu "$COLL_MTU"
    ip -n "$4" link set "$5" mtu "$COLL_MTU"
    ip -n "$1" link set "$2" up
    ip -n "$4" link set "$5" up
}
for h in $HOSTS; do
    veth "h$h" eth0 "10.1.$h.2/24" "l$(leaf_of "$h")" "h$h" "10.1.$h.1/24"
    ip -n "h$h" route add default via "10.1.$h.1"
done
for l in $LEAVES; do
    for s in $SPINES; do
        # leaf lL port sS: 10.10.LS.1, spine sS port lL: 10.10.LS.2
        veth "l$l" "s$s" "10.10.$l$s.1/24" "s$s" "l$l" "10.10.$l$s.2/24"
    done
    ip netns exec "l$l" sysctl -qw net.ipv4.ip_forward=1
    ip netns exec "l$l" sysctl -qw net.ipv4.fib_multipath_hash_policy=1
done
for s in $SPINES; do
    ip netns exec "s$s" sysctl -qw net.ipv4.ip_forward=1
done
# ecmp_routes L SPINES: leaf L reaches the other leaves' hosts over SPINES
ecmp_routes() {
    local l=$1 h hops s
    for h in $HOSTS; do
        [ "$(leaf_of "$h")" = "$l" ] && continue
        hops=""
        for s in $2; do
            hops="$hops nexthop via 10.10.$l$s.2 dev s$s weight 1"
        done
        # shellcheck disable=SC2086
        ip -n "l$l" route replace "10.1.$h.0/24" $hops || return 1
    done
}
ok=0
for l in $LEAVES; do
    ecmp_routes "$l" "$SPINES" || ok=1
done
for s in $SPINES; do
    for h in $HOSTS; do
        ip -n "s$s" route add "10.1.$h.0/24" via "10.10.$(leaf_of "$h")$s.1" || ok=1
    done
done
lab_check ecmp-routes test $ok = 0 || exit 1
lab_check_grep ecmp-4-hops 'nexthop.*nexthop.*nexthop.*nexthop' \
    sh -c 'ip -n l1 route show 10.1.8.0/24 | tr "\n" " "'
lab_check ping-h1-h8 ip netns exec h1 ping -c 2 -W 5 10.1.8.2 || exit 1
lab_check ping-h8-h3 ip netns exec h8 ping -c 2 -W 5 10.1.3.2 || exit 1

# --- devices ------------------------------------------------------------------
mro_install
# shellcheck disable=SC2086
lab_check modprobe-metaroce modprobe metaroce paths=8 $COLL_MODPARAMS || exit 1
modprobe -a ib_uverbs
ok=0
for h in $HOSTS; do
    ip netns exec "h$h" rdma link add "mr$h" type metaroce netdev eth0 || ok=1
done
lab_check links-added test $ok = 0 || exit 1
ok=0
for h in $HOSTS; do
    mro_wait_state "mr$h" ACTIVE || ok=1
    lab_gid_index "mr$h" >/dev/null || ok=1
done
lab_check devices-active test $ok = 0 || exit 1
SPEC=$(for h in $HOSTS; do printf 'h%s:mr%s:10.1.%s.2,' "$h" "$h" "$h"; done)
SPEC=${SPEC%,}

# --- impairments ----------------------------------------------------------------
# spine_qdisc S ARGS...: the same root qdisc on every port of spine S
spine_qdisc() {
    local s=$1 l
    shift
    for l in $LEAVES; do
        ip netns exec "s$s" tc qdisc replace dev "l$l" root "$@"
    done
}
spine_clear() {
    local s l
    for s in $SPINES; do
        for l in $LEAVES; do
            ip netns exec "s$s" tc qdisc del dev "l$l" root 2>/dev/null
        done
    done
    return 0
}
# impair_before IMPAIR / impair_after IMPAIR: set before the run, undo after it
impair_before() {
    case $1 in
        loss1) for s in $SPINES; do spine_qdisc "$s" netem loss 1%; done ;;
    esac
}
# event_script IMPAIR TRANSPORT PATTERN: a script that starts IMPAIR mid-run
# (tools/collective --event runs it between two iterations; what takes time
# runs in the background), or for the other impairments over rdma, saves
# mr1's QPs (rdma resource show -dd) a third of the way in; prints its path,
# or nothing
event_script() {
    local f=$LAB_WORK/event-$1.sh l h
    case $1 in
        spinedown)
            {
                echo "ip -n l1 link set s1 down"
                echo "("
                echo "sleep $COLL_CONVERGE_S"
                for l in $LEAVES; do
                    [ "$l" = 1 ] && continue
                    # l1's hosts no longer through s1
                    for h in 1 2; do
                        echo "ip -n l$l route replace 10.1.$h.0/24" \
                            "nexthop via 10.10.${l}2.2 dev s2 weight 1" \
                            "nexthop via 10.10.${l}3.2 dev s3 weight 1" \
                            "nexthop via 10.10.${l}4.2 dev s4 weight 1"
                    done
                done
                echo ") >/dev/null 2>&1 &"
            } >"$f"
            ;;
        blackhole)
            for l in $LEAVES; do
                echo "ip netns exec s2 tc qdisc replace dev l$l root netem loss 100%"
            done >"$f"
            ;;
        *)
            # no impairment: mr1's QPs a third of the way in (srtt, window, paths)
            [ "$2" = rdma ] || return 0
            echo "rdma -dd resource show qp link mr1/1 >'$LAB_OUT/coll-$1-$3-rdma.qps' 2>&1" >"$f"
            ;;
    esac
    echo "$f"
}
impair_after() {
    local l
    spine_clear
    if [ "$1" = spinedown ]; then
        sleep "$COLL_CONVERGE_S"	# the rerouting started mid-run is done
        ip -n l1 link set s1 up
        sleep 1
        for l in $LEAVES; do
            ecmp_routes "$l" "$SPINES"
        done
    fi
}

# port_counters: every metaroce port counter, summed over the eight devices
port_counters() {
    local h
    for h in $HOSTS; do
        grep -H . "/sys/class/infiniband/mr$h/ports/1/hw_counters/"* | sed 's|.*/||'
    done | awk -F: '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | sort
}

# trace_start / trace_stop FILE: COLL_TRACE's events during one run
trace_start() {
    local e
    mro_trace_reset 16384
    echo mono >"$TR/trace_clock"	# also empties the buffer
    for e in $COLL_TRACE; do
        echo 1 >"$TR/events/metaroce/$e/enable"
    done
}
trace_stop() {
    echo 0 >"$TR/events/metaroce/enable"
    cp "$TR/trace" "$1"
}

# run_one IMPAIR PATTERN TRANSPORT: one collective run; 0 if it passed
run_one() {
    local imp=$1 pat=$2 tr=$3 base ev rc evargs=()
    base=$LAB_OUT/coll-$imp-$pat-$tr
    ev=$(event_script "$imp" "$tr" "$pat")
    [ -n "$ev" ] && evargs=(--event "bash $ev" --event-at $((COLL_ITERS / 3)))
    impair_before "$imp"
    port_counters >"$LAB_WORK/counters-before"
    [ "$tr" = rdma ] && [ -n "$COLL_TRACE" ] && trace_start
    rc=0
    "$COLL" --hosts "$SPEC" --transport "$tr" --pattern "$pat" --size "$COLL_SIZE" \
        --iters "$COLL_ITERS" --timeout "$COLL_TIMEOUT_S" --raw "$base.raw" \
        "${evargs[@]}" >"$base.txt" 2>&1 || rc=$?
    impair_after "$imp"
    [ "$tr" = rdma ] && [ -n "$COLL_TRACE" ] && trace_stop "$base.trace"
    if [ "$tr" = rdma ]; then
        port_counters | join - "$LAB_WORK/counters-before" |
            awk '$2 != $3 { print $1, $2 - $3 }' >"$base.counters"
    fi
    cat "$base.txt"
    awk -v m="coll_${imp}_${pat}_${tr}" '$1 == "coll_fct" {
        printf "%s_p50 %s\n%s_p99 %s\n%s_max %s\n", m, $3, m, $4, m, $5 }' "$base.txt" |
        while read -r name v; do lab_metric "$name" "$v"; done
    return $rc
}

for imp in $COLL_IMPAIRS; do
    for pat in $COLL_PATTERNS; do
        for tr in $COLL_TRANSPORTS; do
            lab_log "collective: $imp $pat $tr"
            if [ "$tr" = rdma ] || [ "${imp#clean}" != "$imp" ] || [ "$imp" = loss1 ]; then
                lab_check "coll-$imp-$pat-$tr" run_one "$imp" "$pat" "$tr"
            elif [ "$COLL_TCP_UNCHECKED" = 1 ]; then
                run_one "$imp" "$pat" "$tr" >/dev/null ||
                    lab_log "collective $imp $pat $tr did not complete (measured, not checked)"
            fi
        done
    done
done

# --- afterwards -------------------------------------------------------------------
qp_err() {
    local h n rc=0
    for h in $HOSTS; do
        n=$(mro_counter "mr$h" qp_errors)
        echo "mr$h qp_errors $n"
        [ "$n" = 0 ] || rc=1
    done
    return $rc
}
lab_check qp-errors-none qp_err
for h in $HOSTS; do
    mro_counters_nonzero "mr$h" >"$LAB_OUT/counters-mr$h.txt"
done
lab_check dmesg-clean mro_dmesg_clean
