#!/bin/bash
# metaroce-fabric (netns topology): a leaf-spine fabric in one VM.  Hosts h1
# and h2 hang off leaves l1 and l2; each leaf has a link to each of four
# spines s1..s4 and reaches the other host's subnet through an ECMP route over
# all four, hashed on the L4 ports (fib_multipath_hash_policy=1).  metaroce
# devices mr1 (h1) and mr2 (h2), 8 paths per QP through the per-device sysfs
# override (the module is loaded with paths=2).  Checks:
#   - per-device paths: /sys/class/infiniband/DEV/ports/1/metaroce/paths validates 1-64,
#     0 returns to the module parameter, new QPs get the device's value
#   - spraying: ib_write_bw h1 -> h2 (4 QPs x 8 paths) moves packets through every
#     spine (tx packet counters of each spine's interfaces, at least 0.2 % of the
#     transfer each), and every path of a QP
#     sends (rdma resource show qp -dd: pN_tx_pkts)
#   - per-QP counters: `rdma statistic qp set ... auto type on` (mr1) and
#     `rdma statistic qp bind ... lqpn N` (mr2) give counters that grow with the
#     traffic; the port counters still count each packet once
#   - optional counters: `rdma statistic mode supported` lists path0_tx_pkts...,
#     `rdma statistic set ... optional-counters` turns them on; they count
#   - per-device scheduler: /sys/class/infiniband/DEV/ports/1/metaroce/sched takes rr or
#     weighted, refuses other names, "default" returns to the module parameter
#   - failure: one leaf-spine link goes down in the middle of a transfer (mr1's
#     QPs use the weighted scheduler); the transfer completes (ib_write_bw exits
#     0, no QP error)
# Files (--files): metaroce.ko, metaroce-lib.sh.
# Example:
#   tests/vm/run.sh --dist bookworm --topology netns --timeout 1800 \
#       --scenario tests/vm/scenarios/metaroce-fabric.sh \
#       --files out/bookworm/*/metaroce.ko tests/vm/scenarios/metaroce-lib.sh
source "$LAB_LIB"
source "$LAB_FILES/metaroce-lib.sh"

SPINES="1 2 3 4"
T=${MRO_TEST_TIMEOUT:-300}
RUN_S=${MRO_FABRIC_SECONDS:-$((T / 3))}	# 100 s; 300 s on the debug kernel

# no_match ERE CMD...: CMD succeeds and its output does not match ERE
no_match() {
    local re=$1 out
    shift
    out=$("$@" 2>&1) || { echo "$out"; return 1; }
    echo "$out"
    ! grep -qE "$re" <<<"$out"
}

# stat_val TEXT NAME: the first value of counter NAME in `rdma statistic` text
stat_val() {
    grep -oE "(^| )$2 [0-9]+" <<<"$1" | head -n1 | awk '{print $2}'
}

# --- the fabric -------------------------------------------------------------
modprobe veth
for ns in h1 h2 l1 l2 s1 s2 s3 s4; do
    ip netns add $ns
    ip -n $ns link set lo up
done
# veth NS1 IF1 ADDR1 NS2 IF2 ADDR2 (addresses with prefix)
veth() {
    ip link add "$2" netns "$1" type veth peer name "$5" netns "$4"
    ip -n "$1" addr add "$3" dev "$2"
    ip -n "$4" addr add "$6" dev "$5"
    ip -n "$1" link set "$2" up
    ip -n "$4" link set "$5" up
}
veth h1 eth0 10.1.1.2/24 l1 hport 10.1.1.1/24
veth h2 eth0 10.1.2.2/24 l2 hport 10.1.2.1/24
for l in 1 2; do
    for s in $SPINES; do
        # leaf lL port sS: 10.10.LS.1, spine sS port lL: 10.10.LS.2
        veth l$l s$s 10.10.$l$s.1/24 s$s l$l 10.10.$l$s.2/24
    done
done
ip -n h1 route add default via 10.1.1.1
ip -n h2 route add default via 10.1.2.1
for ns in l1 l2 s1 s2 s3 s4; do
    ip netns exec $ns sysctl -qw net.ipv4.ip_forward=1
done
for l in 1 2; do
    ip netns exec l$l sysctl -qw net.ipv4.fib_multipath_hash_policy=1
    # a nexthop whose link is down is skipped (the kernel marks it dead)
    other=$((3 - l))
    hops=""
    for s in $SPINES; do
        hops="$hops nexthop via 10.10.$l$s.2 dev s$s weight 1"
    done
    # shellcheck disable=SC2086
    lab_check "ecmp-route-l$l" ip -n l$l route add 10.1.$other.0/24 $hops
done
for s in $SPINES; do
    ip -n s$s route add 10.1.1.0/24 via 10.10.1$s.1
    ip -n s$s route add 10.1.2.0/24 via 10.10.2$s.1
done
lab_check_grep ecmp-4-hops 'nexthop.*nexthop.*nexthop.*nexthop' \
    sh -c 'ip -n l1 route show 10.1.2.0/24 | tr "\n" " "'
lab_check ping-h1-h2 ip netns exec h1 ping -c 2 -W 5 10.1.2.2 || exit 1

# spine_tx S: packets the spine sent on all its interfaces
spine_tx() {
    ip -n "s$1" -j -s link show | jq '[.[] | select(.ifname != "lo") | .stats64.tx.packets] | add'
}

# --- devices, per-device paths ---------------------------------------------------
mro_install
lab_check modprobe-metaroce modprobe metaroce paths=2 || exit 1
modprobe -a ib_uverbs rdma_ucm
lab_check link-add-mr1 ip netns exec h1 rdma link add mr1 type metaroce netdev eth0 || exit 1
lab_check link-add-mr2 ip netns exec h2 rdma link add mr2 type metaroce netdev eth0 || exit 1
lab_check active-mr1 mro_wait_state mr1 ACTIVE || exit 1
lab_check active-mr2 mro_wait_state mr2 ACTIVE || exit 1
G1=$(lab_gid_index mr1) || exit 1
G2=$(lab_gid_index mr2) || exit 1

P=/sys/class/infiniband/mr1/ports/1/metaroce/paths
lab_check_grep paths-default-is-param '^2$' cat $P
lab_check paths-65-refused sh -c "! echo 65 >$P"
lab_check paths-junk-refused sh -c "! echo x >$P"
lab_check paths-set-64 sh -c "echo 64 >$P && grep -qx 64 $P"
lab_check paths-0-resets sh -c "echo 0 >$P && grep -qx 2 $P"
for d in mr1 mr2; do
    lab_check "paths-set-8-$d" sh -c "echo 8 >/sys/class/infiniband/$d/ports/1/metaroce/paths"
done
lab_check_grep paths-mr2-8 '^8$' cat /sys/class/infiniband/mr2/ports/1/metaroce/paths

# --- per-device path scheduler -----------------------------------------------
S=/sys/class/infiniband/mr1/ports/1/metaroce/sched
lab_check_grep sched-default-rr '^rr$' cat $S
lab_check sched-junk-refused sh -c "! echo bogus >$S"
lab_check sched-set-weighted sh -c "echo weighted >$S && grep -qx weighted $S"
lab_check sched-default-resets sh -c "echo default >$S && grep -qx rr $S"

# --- optional counters ------------------------------------------------------
lab_check_grep optional-supported 'path0_tx_pkts.*path7_timeouts' \
    sh -c 'rdma statistic mode supported link mr1/1 | tr "\n" " "'
lab_check optional-off-by-default no_match 'path[0-9]_' rdma statistic show link mr1/1
OPT=$(for i in 0 1 2 3 4 5 6 7; do printf 'path%d_tx_pkts,path%d_retx,' "$i" "$i"; done)
lab_check optional-set rdma statistic set link mr1/1 optional-counters "${OPT%,}"
lab_check_grep optional-enabled 'path7_retx' rdma statistic mode link mr1/1

# --- per-QP counters: auto mode on mr1 ---------------------------------------
lab_check qp-auto-on rdma statistic qp set link mr1/1 auto type on
lab_check_grep qp-auto-mode 'auto' rdma statistic qp mode link mr1/1

# bw_run NAME SECONDS: ib_write_bw h2 (server) <- h1 (client), 4 QPs, in the
# background; sets SRV and CLI to their PIDs, output in $LAB_WORK/NAME-*.out
bw_run() {
    local name=$1 secs=$2
    ip netns exec h2 timeout "$T" ib_write_bw -d mr2 -x "$G2" -q 4 -s 65536 -D "$secs" -F \
        >"$LAB_WORK/$name-server.out" 2>&1 &
    SRV=$!
    # the client runs once: a retried transfer would hide a failed one (and
    # 30 retries of a hung one outlast the scenario's timeout)
    mro_wait_listen h2 18515 >"$LAB_WORK/$name-client.out"
    ip netns exec h1 timeout "$T" ib_write_bw -d mr1 -x "$G1" -q 4 -s 65536 \
        -D "$secs" -F 10.1.2.2 >>"$LAB_WORK/$name-client.out" 2>&1 &
    CLI=$!
}

# all_paths_sent FILE QPS PATHS: FILE (rdma resource show qp -dd) has QPS QPs
# with PATHS paths, each of which has sent packets
all_paths_sent() {
    local p n
    n=$(grep -oE "paths $3 " "$1" | wc -l)
    [ "$n" -ge "$2" ] || { echo "$n QPs with $3 paths, want $2"; return 1; }
    for ((p = 0; p < $3; p++)); do
        n=$(grep -oE "p${p}_tx_pkts [1-9]" "$1" | wc -l)
        [ "$n" -ge "$2" ] || { echo "path $p sent on $n of $2 QPs"; return 1; }
    done
}

# wait_paths DEV: until 4 QPs of DEV sent on each of their 8 paths (max 180 s)
wait_paths() {
    local i
    for i in $(seq 360); do
        rdma resource show qp link "$1/1" -dd >"$LAB_WORK/res-$1.txt" 2>&1
        all_paths_sent "$LAB_WORK/res-$1.txt" 4 8 >/dev/null && return 0
        sleep 0.5
    done
    all_paths_sent "$LAB_WORK/res-$1.txt" 4 8
}

# Transfer 1 runs long; everything that needs live QPs is captured first
# (the VM is slow under a loaded host), checked after the transfer is stopped.
declare -A tx0 tx1
for s in $SPINES; do tx0[$s]=$(spine_tx $s); done
lab_log "transfer 1: all spines up"
# (T - 60 s: 240 s, 840 s on the debug kernel, where waiting for every path
# alone took 270 s and a fixed 240 s transfer ended before the checks)
bw_run bw1 $((T - 60))
lab_check qp-every-path-sent wait_paths mr1
cp "$LAB_WORK/res-mr1.txt" "$LAB_OUT/res-mr1.txt"
rdma resource show qp link mr2/1 -dd >"$LAB_OUT/res-mr2.txt" 2>&1
# tools/mro-paths: two samples as JSON, the second with per-path rates
[ -f "$LAB_FILES/mro-paths" ] &&
    python3 "$LAB_FILES/mro-paths" -d mr1 -i 2 -n 2 --json >"$LAB_OUT/mro-paths.json" 2>&1
# the auto counter: two samples while the transfer runs
s1=$(rdma statistic qp show link mr1/1 2>&1)
sleep 3
s2=$(rdma statistic qp show link mr1/1 2>&1)
# manual bind on the server side: one RC QP of mr2
lqpn=$(rdma resource show qp link mr2/1 | grep 'type RC' | grep -oE 'lqpn [0-9]+' |
    head -n1 | awk '{print $2}')
lab_check qp-bind rdma statistic qp bind link mr2/1 lqpn "$lqpn"
b1=$(rdma statistic qp show link mr2/1 2>&1)
# the bound QP's received packets must grow; one QP of four can pause for a
# few seconds on a loaded TCG host, so wait up to 30 s and report how long
r1=$(stat_val "$b1" rcvd_pkts)
rdma resource show qp link mr2/1 lqpn "$lqpn" -dd >"$LAB_OUT/qp-bind-res-before.txt" 2>&1
for bind_wait in $(seq 30); do
    sleep 1
    b2=$(rdma statistic qp show link mr2/1 2>&1)
    r2=$(stat_val "$b2" rcvd_pkts)
    [ "${r2:-0}" -gt "${r1:-0}" ] && [ "$bind_wait" -ge 3 ] && break
done
lab_metric qp_bind_rcvd_wait_s "$bind_wait"
rdma resource show qp link mr2/1 lqpn "$lqpn" -dd >"$LAB_OUT/qp-bind-res-after.txt" 2>&1
# and the senders' side at that moment (a sender idle with work queued?)
rdma resource show qp link mr1/1 -dd >"$LAB_OUT/qp-bind-res-mr1.txt" 2>&1
cntn=$(grep -oE 'cntn [0-9]+' <<<"$b2" | head -n1 | awk '{print $2}')
lab_check qp-unbind rdma statistic qp unbind link mr2/1 cntn "$cntn" lqpn "$lqpn"
lab_check qp-unbound-counter-gone no_match 'cntn' rdma statistic qp show link mr2/1
# the port counts each packet once with a counter bound: no more than the
# interface sent or dropped (veth drops when the peer's backlog is full)
port_sent=$(stat_val "$(rdma statistic show link mr1/1)" sent_pkts)
eth_sent=$(ip -n h1 -j -s link show eth0 | jq '.[0].stats64.tx | .packets + .dropped')
lab_check bw1-client-alive kill -0 $CLI
# stop the transfer (only our ib_write_bw runs in h1 and h2)
# shellcheck disable=SC2046
kill $(ip netns pids h1) $(ip netns pids h2) 2>/dev/null
wait $CLI $SRV 2>/dev/null
cp "$LAB_WORK"/bw1-*.out "$LAB_OUT/"

printf '%s\n---\n%s\n' "$s1" "$s2" >"$LAB_OUT/qp-counter-auto.txt"
printf '%s\n---\n%s\n' "$b1" "$b2" >"$LAB_OUT/qp-counter-bind.txt"
lab_check_grep mr2-qp-has-8-paths 'paths 8 ' cat "$LAB_OUT/res-mr2.txt"
# RTT samples come from the echoed timestamps, which travel on each QP's
# own clock (a random offset): every RC QP and most paths have a smoothed RTT,
# none of them absurd (a sample above 10 s is refused)
lab_check qp-srtt-sane awk '/type RC/ {
        for (i = 1; i < NF; i++) {
            if ($i == "drv_srtt_us") { q++; if ($(i + 1) <= 0 || $(i + 1) >= 5000000) bad++ }
            if ($i ~ /^drv_p[0-9]+_srtt_us$/ && $(i + 1) > 0) { p++; if ($(i + 1) >= 5000000) bad++ }
        }
    } END { print q + 0 " QPs, " p + 0 " paths with an srtt, " bad + 0 " outside (0, 5 s)"
            exit !(q >= 4 && p >= 8 && !bad) }' "$LAB_OUT/res-mr1.txt"
# the second sample: a QP with 8 paths, each with a tx_pps rate, some above 0
lab_check mro-paths-json-rates jq -e -s '.[1].qps | map(select((.paths | length) == 8 and
    all(.paths[]; has("tx_pps")))) | length > 0 and
    ([.[].paths[].tx_pps] | max) > 0' "$LAB_OUT/mro-paths.json"
lab_check_grep qp-auto-counter 'cntn [0-9]+.*qp-type RC' echo "$s1"
a1=$(stat_val "$s1" sent_pkts); a2=$(stat_val "$s2" sent_pkts)
lab_check qp-auto-sent-grows sh -c "echo sent_pkts $a1 to $a2; test ${a2:-0} -gt ${a1:-0}"
for c in sent_bytes rcvd_pkts retransmits loss_detected rto_expired rnr_nak_rcvd \
        rx_out_of_order rx_duplicate; do
    lab_check_grep "qp-auto-has-$c" "$c [0-9]+" echo "$s2"
done
lab_check qp-auto-hides-port-counters no_match 'rx_drop_short|link_downed|path0_' echo "$s2"
lab_check_grep qp-bind-lqpn "LQPN: <$lqpn>" echo "$b1"
lab_check qp-bind-rcvd-grows sh -c "echo rcvd_pkts $r1 to $r2 in ${bind_wait}s; test ${r2:-0} -gt ${r1:-0}"
lab_check port-not-double-counted sh -c \
    "echo port sent_pkts $port_sent, eth0 tx+dropped $eth_sent; test ${port_sent:-x} -le ${eth_sent:-0}"

total=0
for s in $SPINES; do
    tx1[$s]=$(( $(spine_tx $s) - tx0[$s] ))
    total=$((total + tx1[$s]))
    lab_metric "spine${s}_tx_pkts" "${tx1[$s]}"
done
# 32 flows (4 QPs x 8 paths) over 4 spines: each spine must carry some of
# them.  How many land on a spine is up to the L4 hash of random source
# ports: a spine with one flow carries about 1/32 (3 %) of the packets, less
# when that flow's QP is slow (1.8 % seen), and a spine with no flow in
# either direction carries only ARP/ND.  So the floor is 0.2 % of the
# packets, a sixteenth of one flow's share and far above the control
# traffic (a spine gets no data flow by chance about once in 2500 runs).
for s in $SPINES; do
    lab_check "spine$s-carried" sh -c \
        "echo spine $s: ${tx1[$s]} of $total; test $total -gt 0 && test $((tx1[$s] * 500)) -ge $total"
done

# optional counters counted the transfer
ps=$(rdma statistic show link mr1/1)
echo "$ps" >"$LAB_OUT/port-stats.txt"
for i in 0 1 2 3 4 5 6 7; do
    lab_check "optional-path${i}-counted" test "$(stat_val "$ps" path${i}_tx_pkts)" -gt 0
done
lab_check optional-unset rdma statistic unset link mr1/1 optional-counters
lab_check optional-off no_match 'path[0-9]_' rdma statistic show link mr1/1
lab_check qp-auto-off rdma statistic qp set link mr1/1 auto off

# --- a spine link fails in the middle of a transfer -------------------------
lab_log "transfer 2: l1-s1 goes down mid-transfer (mr1: weighted scheduler)"
lab_check sched-weighted-mr1 sh -c "echo weighted >$S"
for s in $SPINES; do tx0[$s]=$(spine_tx $s); done
bw_run bw2 "$RUN_S"
lab_check bw2-running wait_paths mr1
lab_check_grep bw2-sched-weighted 'sched weighted' cat "$LAB_WORK/res-mr1.txt"
lab_check_grep bw2-mr2-sched-rr 'sched rr' rdma resource show qp link mr2/1 -dd
sleep 3
lab_check bw2-client-alive kill -0 $CLI
# the recovery's events from the link's failure on ($LAB_OUT/bw2-trace.txt)
TR=/sys/kernel/tracing
mro_trace_reset 4096
for e in mro_rto mro_retransmit mro_path_retire mro_path_revive mro_path_suspend mro_qp_error; do
    echo 1 >"$TR/events/metaroce/$e/enable"
done
lab_check link-down ip -n l1 link set s1 down
lab_check_grep ecmp-hop-dead 'dead|linkdown' ip -n l1 route show 10.1.2.0/24
s1_down=$(spine_tx 1)
# the QPs keep making progress on the remaining spines (within 60 s: packets
# lost on the dead link wait for an RTO, and RTOs are long under TCG)
acks() { stat_val "$(rdma statistic show link mr1/1)" acks_rcvd; }
ps_down=$(rdma statistic show link mr1/1)
k0=$(stat_val "$ps_down" acks_rcvd)
progress() {
    local i k
    for i in $(seq 60); do
        sleep 1
        k=$(acks)
        [ "${k:-0}" -gt "$k0" ] && { echo "acks_rcvd $k0 to $k after ${i}s"; return 0; }
    done
    echo "acks_rcvd stuck at $k0"
    return 1
}
lab_check bw2-progress-after-down progress
lab_check bw2-qps-alive no_match 'state (ERR|SQE)' rdma resource show qp link mr1/1
wait $CLI; rc=$?
wait $SRV
echo 0 >"$TR/events/metaroce/enable"
cp "$TR/trace" "$LAB_OUT/bw2-trace.txt"
cp "$LAB_WORK"/bw2-*.out "$LAB_OUT/"
# the detail says why a failed client failed: its last lines and the port's
# RTO and retry counts since the link went down
ps_end=$(rdma statistic show link mr1/1)
why=""
for c in retry_exceeded rto_expired rto_copies spurious_rtos tail_loss_probes retransmits \
        path_retired path_suspended rx_drop_ack_range rx_drop_ack_echo; do
    why="$why $c+$(( $(stat_val "$ps_end" $c) - $(stat_val "$ps_down" $c) ))"
done
lab_check bw2-client-completes sh -c \
    "echo rc=$rc since link down:$why; tail -n 4 '$LAB_WORK/bw2-client.out'; test $rc -eq 0"
lab_check_grep bw2-result '^ *65536 +[0-9]+' cat "$LAB_WORK/bw2-client.out"
lab_check bw2-no-qp-error no_match 'rror|failed' cat "$LAB_WORK/bw2-client.out"
lab_metric bw2_MBps "$(awk '/^ *65536 +[0-9]+/ {print $4; exit}' "$LAB_WORK/bw2-client.out")"
# how close a QP came to its retry limit: the fewest retries left at an RTO
lab_metric bw2_min_retry_left "$(grep -o 'retry_left=[0-9]*' "$LAB_OUT/bw2-trace.txt" |
    cut -d= -f2 | sort -n | head -n1)"
for s in $SPINES; do lab_metric "down_spine${s}_tx_pkts" "$(( $(spine_tx $s) - tx0[$s] ))"; done
lab_metric h1_eth0_tx_dropped "$(ip -n h1 -j -s link show eth0 | jq '.[0].stats64.tx.dropped')"
lab_metric down_spine1_after_down "$(( $(spine_tx 1) - s1_down ))"
rdma statistic show link mr1/1 >"$LAB_OUT/port-stats-end.txt"
ip -n l1 link set s1 up

lab_check dmesg-clean mro_dmesg_clean
