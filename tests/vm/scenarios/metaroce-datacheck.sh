#!/bin/bash
# metaroce-datacheck (pair topology): tools/datacheck between the two VMs over
# metaroce (server on VM a, client on VM b): SEND, SEND_WITH_IMM, RDMA_WRITE,
# RDMA_WRITE_WITH_IMM, RDMA_READ, CMP_AND_SWP and FETCH_AND_ADD on 4 RC QPs,
# every byte verified; then the same under netem loss/reordering/delay on eth0, and
# once more there with each other congestion control algorithm on both ends.
#
# Files (--files): datacheck (built on the host, see tools/datacheck), metaroce.ko,
# metaroce-lib.sh; optional datacheck.conf (sourced) to override:
#   DC_DRIVER=metaroce|rxe   (rxe: the in-tree rdma_rxe, to validate the tool)
#   DC_ARGS="-n 3"           client arguments for the clean run
#   DC_NETEM_ARGS="-n 1"     client arguments for the netem run
#   DC_NETEM="loss 1% reorder 25% 50% delay 1ms"   ("" skips the netem run)
#   DC_TIMEOUT=300           wall-clock limit per datacheck run (seconds)
#   DC_CC_ALGOS="swift"      congestion control algorithms (cc/algo) for the extra
#                            netem runs ("" skips them)
# Example:
#   tests/vm/run.sh --dist bookworm --topology pair \
#       --scenario tests/vm/scenarios/metaroce-datacheck.sh \
#       --files tools/datacheck/datacheck drivers/infiniband/sw/metaroce/metaroce.ko \
#               tests/vm/scenarios/metaroce-lib.sh
source "$LAB_LIB"

DC_DRIVER=metaroce
DC_ARGS="-n 3"
DC_NETEM_ARGS="-n 1"
DC_NETEM="loss 1% reorder 25% 50% delay 1ms"
DC_TIMEOUT=300
DC_CC_ALGOS="swift"
[ -f "$LAB_FILES/datacheck.conf" ] && source "$LAB_FILES/datacheck.conf"
DC=$LAB_FILES/datacheck

lab_check datacheck-runs "$DC" -h || exit 1
modprobe -a ib_uverbs rdma_ucm
source "$LAB_FILES/metaroce-lib.sh"
mro_device_up "$DC_DRIVER" || exit 1
lab_check gid lab_gid_index "$DEV" || exit 1
lab_barrier ready || exit 1

# dc_run NAME PORT CLIENT-ARGS...: a serves, b runs the client; both sides check
# the final "datacheck:" line (DC_EXPECT: ERE for its tail, default zero mismatches
# and errors); the client's ops/bytes/seconds become metrics.
dc_run() {
    local name=$1 port=$2 pat out; shift 2
    pat="^datacheck: role=[a-z]+ qps=[0-9]+ ops=[1-9][0-9]* bytes=[0-9]+ ${DC_EXPECT:-mismatches=0 errors=0 }"
    if [ "$ROLE" = a ]; then
        timeout -k 30 "$DC_TIMEOUT" "$DC" -s -p "$port" -T 120 >"$LAB_WORK/$name-server.log" 2>&1 &
        local pid=$!
        sleep 2   # rdma_cm listeners are not TCP sockets: no lab_wait_port
        lab_barrier "$name" || { kill $pid; return 1; }
        wait $pid
        lab_check_grep "$name-server" "$pat" cat "$LAB_WORK/$name-server.log"
        cp "$LAB_WORK/$name-server.log" "$LAB_OUT/"
    else
        lab_barrier "$name" || return 1
        sleep 1
        timeout -k 30 "$DC_TIMEOUT" "$DC" -c "$PEER_IP" -p "$port" -T 120 "$@" \
            >"$LAB_WORK/$name-client.log" 2>&1
        lab_check_grep "$name" "$pat" cat "$LAB_WORK/$name-client.log"
        cp "$LAB_WORK/$name-client.log" "$LAB_OUT/"
        out=$(grep '^datacheck: role=client' "$LAB_WORK/$name-client.log" | tail -n1)
        local k v
        for k in ops bytes mismatches errors seconds; do
            v=$(sed -n "s/.* $k=\([0-9.]*\).*/\1/p" <<<"$out")
            [ -n "$v" ] && lab_metric "${name}_$k" "$v"
        done
    fi
    lab_barrier "$name-done"
    counters "$name"
}

# counters NAME: metaroce's non-zero port counters after a run (cumulative) into the
# result dir; out-of-order / duplicate packet counts as metrics
counters() {
    [ "$DEV" = mr0 ] || return 0
    local d=/sys/class/infiniband/mr0/ports/1/hw_counters c
    grep -H . "$d"/* 2>/dev/null | sed 's|.*/||' | grep -v ':0$' >"$LAB_OUT/$1-counters.txt"
    cat "$LAB_OUT/$1-counters.txt"
    for c in rx_out_of_order rx_duplicate; do
        [ -r "$d/$c" ] && lab_metric "${1}_${c}_${ROLE}" "$(cat "$d/$c")"
    done
}

# drops_start / drops_stop NAME: the kernel's drop tracepoint (skb:kfree_skb,
# pointers unhashed) and metaroce's mro_rx_drop during a run; the drops made
# inside metaroce.ko (location in its text, /proc/modules) go to
# $LAB_OUT/NAME-drops.txt, their count to a metric.  On a lossless link the
# only packets metaroce may drop are those that reach a QP in a state that
# takes none (rx_drop_qp_state: the connection's teardown, and the HELLO
# the passive side sends on entering RTS, which reaches the active side's
# QP before its RTR); duplicates, resent requests' answers included, are
# consumed: checked
TR=/sys/kernel/tracing
drops_start() {
    [ "$DEV" = mr0 ] || return 0
    QPSTATE0=$(mro_counter mr0 rx_drop_qp_state)
    mro_trace_reset 8192
    echo 0 >"$TR/options/hash-ptr"
    echo 1 >"$TR/events/skb/kfree_skb/enable"
    echo 1 >"$TR/events/metaroce/mro_rx_drop/enable"
}
drops_stop() {
    local base size n
    [ "$DEV" = mr0 ] || return 0
    echo 0 >"$TR/events/skb/kfree_skb/enable"
    echo 0 >"$TR/events/metaroce/mro_rx_drop/enable"
    read -r _ size _ _ _ base _ < <(grep '^metaroce ' /proc/modules)
    # addresses as 16 hex digits compare as strings
    awk -v lo="$(printf '%016x' $((base)))" -v hi="$(printf '%016x' $((base + size)))" '
        / mro_rx_drop: / { print; next }
        / kfree_skb: .*location=[^ ]* \[metaroce\]/ { print; next }
        / kfree_skb: / && match($0, /location=(0x)?[0-9a-f]+ /) {
            a = substr($0, RSTART + 9, RLENGTH - 10); sub(/^0x/, "", a)
            while (length(a) < 16)
                a = "0" a
            if ((a "") >= (lo "") && (a "") < (hi "")) print
        }' "$TR/trace" >"$LAB_OUT/$1-drops.txt"
    cp "$TR/trace" "$LAB_OUT/$1-trace.txt"
    echo >"$TR/trace"
    n=$(grep -c ' kfree_skb: ' "$LAB_OUT/$1-drops.txt")
    lab_metric "$1_kfree_skb_metaroce_$ROLE" "$n"
    lab_check "$1-drops-qp-state-only" test "$n" -eq \
        $(($(mro_counter mr0 rx_drop_qp_state) - QPSTATE0))
}

# cc_run ALGO: datacheck under netem with the congestion control algorithm ALGO
# on both ends (cc/algo, read when a QP reaches RTS; dual again afterwards); the
# client's side checks that its QPs ran ALGO (rdma resource show qp -dd: cc)
cc_run() {
    local algo=$1 d=/sys/class/infiniband/$DEV/ports/1/cc pid=
    echo "$algo" >"$d/algo"
    lab_check_grep "cc-$algo-set" "^$algo\$" cat "$d/algo"
    lab_barrier "cc-$algo-set"
    if [ "$ROLE" = b ]; then
        (for _ in $(seq 100); do
            rdma -dd resource show qp link "$DEV/1" >"$LAB_OUT/cc-$algo-qps.txt" 2>&1
            grep -Eq " drv_cc $algo( |\$)" "$LAB_OUT/cc-$algo-qps.txt" && { echo 1; exit 0; }
            sleep 0.2
        done; echo 0) >"$LAB_WORK/cc-$algo-seen" &
        pid=$!
    fi
    lab_log "datacheck over $DEV with netem $DC_NETEM, cc $algo: $DC_NETEM_ARGS"
    # shellcheck disable=SC2086
    dc_run "datacheck-cc-$algo" 18603 $DC_NETEM_ARGS
    if [ -n "$pid" ]; then
        wait "$pid"
        lab_check "cc-$algo-qps" grep -qx 1 "$LAB_WORK/cc-$algo-seen"
    fi
    echo dual >"$d/algo"
}

lab_log "datacheck over $DEV (clean link): $DC_ARGS"
drops_start
# shellcheck disable=SC2086
dc_run datacheck 18600 $DC_ARGS
drops_stop datacheck

# self-test of the checker: -F corrupts one byte (or atomic value) per step on QP 0 in
# iteration 0; both sides must notice (and the client exit non-zero)
DC_EXPECT='mismatches=[1-9][0-9]* errors=0 ' dc_run datacheck-selftest 18602 -F -n 1 -q 2 -S 1,4096,65536

if [ -n "$DC_NETEM" ]; then
    modprobe sch_netem
    # shellcheck disable=SC2086
    lab_check netem-add tc qdisc add dev eth0 root netem $DC_NETEM
    lab_barrier netem-up
    lab_log "datacheck over $DEV with netem $DC_NETEM: $DC_NETEM_ARGS"
    # metaroce's tracepoints under loss: the events are counted (metrics);
    # that the client's lost packets are resent, and seen to be, is checked
    if [ "$DEV" = mr0 ]; then
        mro_trace_reset 8192
        echo 1 >"$TR/events/metaroce/enable"
    fi
    # shellcheck disable=SC2086
    dc_run datacheck-netem 18601 $DC_NETEM_ARGS
    if [ "$DEV" = mr0 ]; then
        echo 0 >"$TR/events/metaroce/enable"
        cp "$TR/trace" "$LAB_OUT/trace-netem.txt"
        for e in mro_retransmit mro_rto mro_tlp mro_path_suspend mro_cc_cut mro_credit \
                mro_nak mro_rx_drop; do
            lab_metric "trace_${e}_$ROLE" "$(grep -c " $e: " "$LAB_OUT/trace-netem.txt")"
        done
        [ "$ROLE" = b ] && lab_check_grep traced-retransmit \
            ' mro_retransmit: qpn=0x[0-9a-f]+ psn=' \
            grep -m1 ' mro_retransmit: ' "$LAB_OUT/trace-netem.txt"
    fi
    if [ "$DEV" = mr0 ]; then
        for algo in $DC_CC_ALGOS; do
            cc_run "$algo"
        done
    fi
    tc -s qdisc show dev eth0
    tc qdisc del dev eth0 root
fi

[ "$DEV" = mr0 ] && lab_check dmesg-clean mro_dmesg_clean
lab_barrier finished
