#!/bin/bash
# metaroce-paths (pair topology): multipath loss recovery between two VMs.
# VM a serves tools/datacheck, VM b is the client (the requester of RDMA
# WRITEs, so its egress carries the data packets); all tc rules sit on b's
# eth0 egress.
#
#   blackhole-sport  a tc u32 filter drops one path's UDP source port mid-transfer:
#                    the path is retired (path_retired), no QP error, traffic goes on,
#                    and a re-probe on a fresh source port revives it (path_revived,
#                    new pN_sport) while the filter still drops the old port
#   blackhole-slot   a u32 filter drops every packet of one path slot (the BTH path
#                    field, whatever the port): the slot is retired and shown as
#                    "retired" in `rdma res show qp -dd`, probes keep failing, goodput
#                    (snd_una progress) continues; after the filter is removed the slot
#                    is revived
#   blackhole-read   ib_read_bw, b reads from a; a filter on a's egress drops a's
#                    port of path slot 3: READ responses come back on the request's
#                    slot, so b retires slot 3 (path_retired), no QP error; b's
#                    re-probe asks a for a fresh port too (reprobes_rcvd, new a-side
#                    p3_sport), so the slot revives while the filter still drops
#   reorder          netem reorder 25% with no loss: retransmits < 1% of data packets
#   loss-ratio       netem loss 1% on b's egress: retransmits <= 1.3 x packets dropped
#   hostile          netem loss 10%, reorder 25%, duplicate 1%, corrupt 1% on both
#                    VMs: datacheck with every operation passes
# Every datacheck run must end with mismatches=0 errors=0 (a QP error fails it).
#
# Files (--files): datacheck, metaroce.ko, metaroce-lib.sh.
source "$LAB_LIB"
source "$LAB_FILES/metaroce-lib.sh"

DC=$LAB_FILES/datacheck
DEV=mr0
T=${MRO_TEST_TIMEOUT:-420}	# wall-clock cap per datacheck run, above every -t

mro_install
lab_check modprobe-metaroce modprobe metaroce || exit 1
modprobe -a ib_uverbs rdma_ucm sch_netem sch_prio cls_u32 act_gact
lab_check link-add rdma link add $DEV type metaroce netdev eth0 || exit 1
lab_check active mro_wait_state $DEV ACTIVE || exit 1
lab_barrier ready || exit 1
# retransmit / retire / revive events of every phase go to the result dir
TR=/sys/kernel/tracing
[ -d $TR/events ] || mount -t tracefs nodev $TR 2>/dev/null
echo 4096 >$TR/buffer_size_kb 2>/dev/null
echo 1 >$TR/events/metaroce/mro_path_retire/enable 2>/dev/null
echo 1 >$TR/events/metaroce/mro_path_revive/enable 2>/dev/null

# qp_attr NAME: attribute NAME (e.g. state, p3_sport) of the first RC QP on mr0,
# from `rdma -j -dd resource show qp` (driver attributes are "drv_NAME" there)
qp_attr() {
    rdma -j -dd resource show qp link $DEV/1 2>/dev/null |
        jq -r --arg k "$1" \
            '[.[] | select(.type == "RC")][0] | (.[$k] // .["drv_" + $k]) // empty' 2>/dev/null
}

# wait_for SECONDS CMD...: poll CMD every 0.5 s until it succeeds
wait_for() {
    local i t=$1
    shift
    for ((i = 0; i < t * 2; i++)); do
        "$@" && return 0
        sleep 0.5
    done
    return 1
}

cnt() { mro_counter $DEV "$1"; }
gt() { [ "$(cnt "$1")" -gt "$2" ]; }
attr_is() { [ "$(qp_attr "$1")" = "$2" ]; }
attr_not() { local v; v=$(qp_attr "$1"); [ -n "$v" ] && [ "$v" != "$2" ]; }
attr_gt() { local v; v=$(qp_attr "$1"); [ -n "$v" ] && [ "$v" -gt "$2" ]; }

# psn_rate SECONDS: PSNs acknowledged per second (snd_una progress) of the RC QP
psn_rate() {
    local u0 u1
    u0=$(qp_attr snd_una)
    sleep "$1"
    u1=$(qp_attr snd_una)
    [ -n "$u0" ] && [ -n "$u1" ] || { echo 0; return; }
    echo $(( ((u1 - u0) & 0xffffffff) / $1 ))
}

# since T0: seconds elapsed since date +%s.%N printed T0
since() { awk -v t0="$1" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.2f", t1 - t0 }'; }

tc_clear() { tc qdisc del dev eth0 root 2>/dev/null || true; }

# drop_sport PORT: drop every UDP packet leaving eth0 from source port PORT
drop_sport() {
    tc qdisc add dev eth0 root handle 1: prio &&
        tc filter add dev eth0 parent 1: protocol ip prio 1 u32 \
            match ip protocol 17 0xff match ip sport "$1" 0xffff action drop
}

# dc_start NAME PORT ARGS...: a serves in the background; b starts the client in
# the background (DC_PID) after a barrier
dc_start() {
    local name=$1 port=$2
    shift 2
    if [ "$ROLE" = a ]; then
        timeout -k 30 "$T" "$DC" -s -p "$port" -T 120 >"$LAB_WORK/$name-server.log" 2>&1 &
        DC_PID=$!
        sleep 2
        lab_barrier "$name"
    else
        lab_barrier "$name" || return 1
        sleep 3
        # a slow server may not listen yet: retry a refused connection
        (
            for _ in 1 2 3 4 5; do
                timeout -k 30 "$T" "$DC" -c "$PEER_IP" -p "$port" -T 120 "$@" \
                    >"$LAB_WORK/$name-client.log" 2>&1 && exit 0
                grep -q 'REJECTED' "$LAB_WORK/$name-client.log" || exit 1
                sleep 3
            done
            exit 1
        ) &
        DC_PID=$!
    fi
}

# dc_end NAME: wait for datacheck; it must report no mismatch and no error
dc_end() {
    local name=$1 pat='^datacheck: role=[a-z]+ qps=[0-9]+ ops=[1-9][0-9]* bytes=[0-9]+ mismatches=0 errors=0 '
    wait "$DC_PID"
    if [ "$ROLE" = a ]; then
        lab_check_grep "$name-server" "$pat" cat "$LAB_WORK/$name-server.log"
        cp "$LAB_WORK/$name-server.log" "$LAB_OUT/"
    else
        lab_check_grep "$name" "$pat" cat "$LAB_WORK/$name-client.log"
        cp "$LAB_WORK/$name-client.log" "$LAB_OUT/"
        rdma resource show qp link $DEV/1 -dd >"$LAB_OUT/$name-qp.txt" 2>&1
        rdma -j -dd resource show qp link $DEV/1 >"$LAB_OUT/$name-qp.json" 2>&1
    fi
    lab_barrier "$name-done"
    cat $TR/trace >"$LAB_OUT/$name-trace-$ROLE.txt" 2>/dev/null
    echo >$TR/trace 2>/dev/null
    grep -H . /sys/class/infiniband/$DEV/ports/1/hw_counters/* 2>/dev/null |
        sed 's|.*/||' | grep -v ':0$' >"$LAB_OUT/$name-counters-$ROLE.txt"
}

# ---------------------------------------------------------------- blackhole-sport
# the transfers must outlast the checks on a slow TCG guest (-t is a cap:
# mro_dc_finish ends them when the checks are done)
dc_start blackhole-sport 18700 -q 1 -o write -S 65536 -t 150
if [ "$ROLE" = b ]; then
    lab_check bh1-traffic wait_for 60 attr_gt p3_tx_pkts 50
    ret0=$(cnt path_retired)
    rev0=$(cnt path_revived)
    sport=$(qp_attr p3_sport)
    lab_log "black-holing path 3 (UDP source port $sport)"
    lab_check bh1-filter drop_sport "$sport"
    t0=$(date +%s.%N)
    lab_check bh1-retired wait_for 30 gt path_retired "$ret0"
    lab_metric bh1_retire_seconds "$(since "$t0")"
    # the fresh port is not black-holed: a probe on it brings the path back
    lab_check bh1-revived-fresh-port wait_for 30 gt path_revived "$rev0"
    rdma -j -dd resource show qp link $DEV/1 >"$LAB_OUT/bh1-revived-qp.json" 2>&1
    lab_check bh1-new-sport attr_not p3_sport "$sport"
    lab_check bh1-qp-rts wait_for 1 attr_is state RTS
    tc -s filter show dev eth0 >"$LAB_OUT/bh1-filter.txt" 2>&1
    tc_clear
    mro_dc_finish	# checked: the transfer may end
fi
dc_end blackhole-sport

# ---------------------------------------------------------------- blackhole-slot
dc_start blackhole-slot 18701 -q 1 -o write -S 65536 -t 240
if [ "$ROLE" = b ]; then
    lab_check bh2-traffic wait_for 60 attr_gt p5_tx_pkts 50
    rate0=$(psn_rate 5)
    lab_metric bh2_psn_per_s_before "$rate0"
    ret0=$(cnt path_retired)
    rev0=$(cnt path_revived)
    lab_log "black-holing path slot 5 (BTH path field)"
    tc qdisc add dev eth0 root handle 1: prio
    # IPv4 20 + UDP 8: the BTH starts at 28, its path field at 28 + 16
    lab_check bh2-filter tc filter add dev eth0 parent 1: protocol ip prio 1 u32 \
        match ip protocol 17 0xff match ip dport 4796 0xffff \
        match u16 5 0xffff at 44 action drop
    t0=$(date +%s.%N)
    lab_check bh2-retired wait_for 30 attr_is p5_state retired
    rdma -j -dd resource show qp link $DEV/1 >"$LAB_OUT/bh2-retired-qp.json" 2>&1
    lab_metric bh2_retire_seconds "$(since "$t0")"
    probes0=$(cnt probes_sent)
    rate1=$(psn_rate 5)
    lab_metric bh2_psn_per_s_retired "$rate1"
    # goodput continues on 7 paths; the TCG host is CPU bound and noisy, so
    # the assertion is loose (the metric has the ratio)
    lab_metric bh2_goodput_ratio "$(awk -v a="$rate1" -v b="$rate0" 'BEGIN { printf "%.3f", a / (b + 1) }')"
    lab_check bh2-goodput-continues test "$((rate1 * 2))" -gt "$rate0"
    lab_check bh2-still-retired attr_is p5_state retired
    lab_check bh2-probes-fail gt probes_sent "$probes0"
    # port-wide retire/revive events while one slot was filtered (other slots
    # flapping show up here)
    lab_metric bh2_retired_events "$(( $(cnt path_retired) - ret0 ))"
    lab_metric bh2_revived_events "$(( $(cnt path_revived) - rev0 ))"
    lab_check bh2-retired-telemetry attr_gt paths_retired 0
    tc -s filter show dev eth0 >"$LAB_OUT/bh2-filter.txt" 2>&1
    tc_clear
    t0=$(date +%s.%N)
    lab_check bh2-revived wait_for 30 attr_is p5_state active
    lab_metric bh2_revive_seconds "$(since "$t0")"
    lab_check bh2-revive-counted gt path_revived "$rev0"
    lab_check bh2-qp-rts attr_is state RTS
    mro_dc_finish
fi
dc_end blackhole-slot

# ---------------------------------------------------------------- blackhole-read
# READ responses come back on the responder's port of the request's path
# slot: a filter on a's egress drops a's port of slot 3.  b, the requester,
# must retire that slot; its re-probe (fresh port, NEW_PORT flag) makes a
# answer, and send on the slot from then on, from a fresh port of its own,
# so the slot revives while the filter still drops the old port.
# Plain ib_read_bw: b sends nothing but READ requests, so no SEND whose
# ACK dies on that port can score the slot instead.
G=$(lab_gid_index $DEV)
if [ "$ROLE" = a ]; then
    timeout -k 10 300 ib_read_bw -d $DEV -x "$G" -s 65536 -q 1 -D 60 -F -p 18710 \
        >"$LAB_WORK/bh3-server.log" 2>&1 &
    BW_PID=$!
    sleep 2
    lab_barrier bh3-go
    lab_barrier bh3-ready || exit 1
    sport=$(qp_attr p3_sport)
    rep0=$(cnt reprobes_rcvd)
    lab_log "black-holing our (the READ responder's) path 3 port $sport"
    lab_check bh3-filter drop_sport "$sport"
    lab_barrier bh3-hole
    lab_check bh3-reprobe-rcvd wait_for 30 gt reprobes_rcvd "$rep0"
    lab_check bh3-new-return-sport attr_not p3_sport "$sport"
    lab_barrier bh3-judged
    tc -s filter show dev eth0 >"$LAB_OUT/bh3-filter.txt" 2>&1
    lab_check_grep bh3-filter-dropped 'Sent [0-9]+ bytes [1-9][0-9]* pkt' \
        cat "$LAB_OUT/bh3-filter.txt"
    tc_clear
    wait "$BW_PID"
    cp "$LAB_WORK/bh3-server.log" "$LAB_OUT/"
else
    lab_barrier bh3-go || exit 1
    sleep 2
    lab_retry 5 2 timeout -k 10 300 ib_read_bw -d $DEV -x "$G" -s 65536 -q 1 -D 60 -F \
        -p 18710 "$PEER_IP" >"$LAB_WORK/bh3-client.log" 2>&1 &
    BW_PID=$!
    lab_check bh3-traffic wait_for 60 attr_gt p3_tx_pkts 50
    ret0=$(cnt path_retired)
    rev0=$(cnt path_revived)
    lab_barrier bh3-ready
    lab_barrier bh3-hole
    t0=$(date +%s.%N)
    lab_check bh3-retired wait_for 30 gt path_retired "$ret0"
    lab_metric bh3_retire_seconds "$(since "$t0")"
    # the hole is still open: only a fresh port on a's side brings it back
    lab_check bh3-revived-in-hole wait_for 30 gt path_revived "$rev0"
    lab_metric bh3_revive_seconds "$(since "$t0")"
    rdma -j -dd resource show qp link $DEV/1 >"$LAB_OUT/bh3-revived-qp.json" 2>&1
    lab_check bh3-active-in-hole wait_for 10 attr_is p3_state active
    lab_check bh3-qp-rts attr_is state RTS
    lab_barrier bh3-judged
    wait "$BW_PID"
    lab_check_grep bh3-read-bw '^ *65536 +[0-9]+' cat "$LAB_WORK/bh3-client.log"
    cp "$LAB_WORK/bh3-client.log" "$LAB_OUT/"
fi
lab_barrier bh3-done
cat $TR/trace >"$LAB_OUT/blackhole-read-trace-$ROLE.txt" 2>/dev/null
echo >$TR/trace 2>/dev/null

# ---------------------------------------------------------------- reorder (no loss)
[ "$ROLE" = b ] && tc qdisc add dev eth0 root netem delay 1ms reorder 25% 50%
lab_barrier reorder-up
if [ "$ROLE" = b ]; then
    retx0=$(cnt retransmits)
    sent0=$(cnt sent_pkts)
fi
dc_start reorder 18702 -q 2 -o write -S 65536 -t 30
dc_end reorder
if [ "$ROLE" = b ]; then
    retx=$(( $(cnt retransmits) - retx0 ))
    sent=$(( $(cnt sent_pkts) - sent0 ))
    tc -s qdisc show dev eth0 >"$LAB_OUT/reorder-qdisc.txt"
    lab_metric reorder_retransmits "$retx"
    lab_metric reorder_sent_pkts "$sent"
    lab_check reorder-enough-packets test "$sent" -gt 1000
    lab_check reorder-spurious-below-1pct test "$((retx * 100))" -lt "$sent"
    tc_clear
fi

# ---------------------------------------------------------------- loss-ratio
[ "$ROLE" = b ] && tc qdisc add dev eth0 root netem loss 1%
lab_barrier loss-up
[ "$ROLE" = b ] && retx0=$(cnt retransmits)
dc_start loss-ratio 18703 -q 2 -o write -S 65536 -t 30
dc_end loss-ratio
if [ "$ROLE" = b ]; then
    retx=$(( $(cnt retransmits) - retx0 ))
    tc -s qdisc show dev eth0 >"$LAB_OUT/loss-qdisc.txt"
    dropped=$(mro_qdisc_dropped <"$LAB_OUT/loss-qdisc.txt")
    lab_metric loss_retransmits "$retx"
    lab_metric loss_dropped "$dropped"
    lab_check loss-dropped-some test "${dropped:-0}" -gt 10
    # retransmits <= 1.3 x lost
    lab_check loss-retx-ratio test "$((retx * 10))" -le "$((${dropped:-0} * 13))"
    tc_clear
fi

# ---------------------------------------------------------------- hostile network
tc qdisc add dev eth0 root netem loss 10% reorder 25% 50% delay 1ms duplicate 1% corrupt 1%
lab_barrier hostile-up
dc_start hostile 18704 -q 2 -n 1
dc_end hostile
tc -s qdisc show dev eth0 >"$LAB_OUT/hostile-qdisc-$ROLE.txt"
tc_clear

lab_check dmesg-clean mro_dmesg_clean
lab_barrier finished
