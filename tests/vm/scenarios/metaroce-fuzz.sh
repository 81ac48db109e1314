#!/bin/bash
# metaroce-fuzz (netns topology): a million mutated packets at a live device.
#
# h1 and h2 (10.98.0.1/2 and fd98::1/2 on one bridge), mr1 and mr2 on their
# eth0.  ib_write_bw runs h1 -> h2 (2 QPs, unchecked); tools/mrofuzz in h1
# captures its traffic for a few seconds, then sends MRO_FUZZ_COUNT (10^6)
# packets made from it at h2, over IPv4 and IPv6, from the path ports the
# captured requests came from: bit flips, splices of one packet's fields into
# another, cuts, growth (past the MTU now and then: fragments, a non-linear
# skb), random opcodes and flags, the write_bw QPNs and nearby PSNs, random
# bytes; the CRC mostly right, some packets CE-marked.  The perftest
# connection may die of it (the fuzzer knows its QPNs, as an on-path sender
# would).  Meanwhile tools/datacheck runs h1 -> h2 (4 QPs, every byte
# checked), started after the capture, so the fuzzer knows nothing of it:
# it must finish without a mismatch or error.  Afterwards every refused
# packet was counted.  Then teardown under a flood: a new datacheck h1 -> h2
# with mrofuzz aimed at its QPs, and h2's eth0 moves to namespace h3 (mr2
# goes once its server's process, and with it the QPs, is gone); mr3 on the
# moved eth0, the same again, and h3 is deleted with its server still in it
# (mr3 goes with the namespace).  mr1 deletes, the module unloads and dmesg
# is clean (on the debug kernel: no KASAN, UBSAN, lockdep or kmemleak report).
# The debug stage sets MRO_FUZZ_COUNT to 50000: under TCG its checkers let
# the fuzzer through at about 100 packets a second.
# Files (--files): metaroce.ko, metaroce-lib.sh, datacheck, mrofuzz.
source "$LAB_LIB"
source "$LAB_FILES/metaroce-lib.sh"

DC=$LAB_FILES/datacheck
FUZZ=$LAB_FILES/mrofuzz
N=${MRO_FUZZ_COUNT:-1000000}
T=${MRO_TEST_TIMEOUT:-600}
DC_OK='^datacheck: role=[a-z]+ qps=[0-9]+ ops=[1-9][0-9]* bytes=[0-9]+ mismatches=0 errors=0 '

mro_install
mro_kmemleak_baseline
lab_check modprobe-metaroce modprobe metaroce || exit 1
modprobe -a ib_uverbs rdma_ucm
lab_netns_hosts 2
for i in 1 2; do
    ip -n "h$i" addr add "fd98::$i/64" dev eth0 nodad
    lab_check "link-add-mr$i" ip netns exec "h$i" rdma link add "mr$i" type metaroce netdev eth0 ||
        exit 1
    lab_check "active-mr$i" mro_wait_state "mr$i" ACTIVE || exit 1
done
lab_check ping-h2 ip netns exec h1 ping -c 2 -W 2 10.98.0.2
lab_check ping6-h2 ip netns exec h1 ping -6 -c 2 -W 2 fd98::2

# qps DEV FIELD COMM: FIELD (lqpn, rqpn) of DEV's RC QPs of process COMM
qps() {
    rdma -j resource show qp link "$1/1" |
        jq -r --arg f "$2" --arg c "$3" '[.[] | select(.type == "RC" and .comm == $c) |
            .[$f]] | map(tostring) | join(",")'
}

# --- the connection the fuzzer sees ----------------------------------------
G1=$(lab_gid_index mr1)
G2=$(lab_gid_index mr2)
ip netns exec h2 timeout $((2 * T)) ib_write_bw -d mr2 -x "$G2" -q 2 -s 4096 -D $((2 * T - 120)) -F \
    >"$LAB_WORK/bw-server.out" 2>&1 &
mro_wait_listen h2 18515 >"$LAB_WORK/bw-client.out"
ip netns exec h1 timeout $((2 * T)) ib_write_bw -d mr1 -x "$G1" -q 2 -s 4096 -D $((2 * T - 120)) -F \
    10.98.0.2 >>"$LAB_WORK/bw-client.out" 2>&1 &
for i in $(seq 120); do
    q2=$(qps mr2 lqpn ib_write_bw)
    [ "$(tr ',' '\n' <<<"$q2" | grep -c .)" -ge 2 ] && break
    sleep 0.5
done
r2=$(qps mr2 rqpn ib_write_bw)
lab_log "ib_write_bw QPs at mr2: $q2 (peers $r2)"
lab_check bw-qps-up test -n "$q2"

# --- the fuzzer: capture, then send ----------------------------------------
b2=$(mro_snap mr2)
ip netns exec h1 timeout $((2 * T)) "$FUZZ" -t 10.98.0.2 -T fd98::2 -i eth0 -c 10 -n "$N" \
    -q "$q2" -Q "$r2" -s 1 >"$LAB_OUT/mrofuzz.txt" 2>&1 &
fz=$!
for i in $(seq 60); do
    grep -q '^mrofuzz: captured' "$LAB_OUT/mrofuzz.txt" && break
    sleep 1
done
lab_check_grep fuzz-captured '^mrofuzz: captured [1-9]' cat "$LAB_OUT/mrofuzz.txt"

# --- the checked transfer the fuzzer knows nothing of ----------------------
# (it outlasts the fuzzer, whose limit is 2 T, and is ended when it is done)
ip netns exec h2 timeout -k 30 $((2 * T + 240)) "$DC" -s -p 18600 -T 120 \
    >"$LAB_WORK/dc-server.log" 2>&1 &
srv=$!
sleep 2
ip netns exec h1 timeout -k 30 $((2 * T + 240)) "$DC" -c 10.98.0.2 -p 18600 -q 4 -t $((2 * T + 120)) \
    -T 120 >"$LAB_WORK/dc-client.log" 2>&1 &
cli=$!

wait $fz
fzrc=$?
a2=$(mro_snap mr2)
lab_check fuzz-sent sh -c "cat '$LAB_OUT/mrofuzz.txt'; test $fzrc -eq 0"
sent=$(sed -n 's/^mrofuzz: \([0-9]*\) packets.*/\1/p' "$LAB_OUT/mrofuzz.txt")
lab_metric fuzz_packets "${sent:-0}"
lab_metric fuzz_seconds "$(sed -n 's/^mrofuzz: .* in \([0-9.]*\) s .*/\1/p' "$LAB_OUT/mrofuzz.txt")"
lab_check dc-client-alive kill -0 $cli
mro_dc_finish
wait $cli; wait $srv
cp "$LAB_WORK"/dc-*.log "$LAB_WORK"/bw-*.out "$LAB_OUT/"
lab_check_grep dc-client "$DC_OK" cat "$LAB_WORK/dc-client.log"
lab_check_grep dc-server "$DC_OK" cat "$LAB_WORK/dc-server.log"

# every packet mr2 refused was counted under a named rule: the drops add
# up to a large part of what the fuzzer sent (the rest went to the
# perftest QPs, or was taken as a duplicate)
printf '%s\n---\n%s\n' "$b2" "$a2" >"$LAB_OUT/mr2-counters.txt"
drops=0
for c in $(awk '$1 ~ /^rx_drop_/ { print $1 }' <<<"$a2"); do
    d=$(mro_delta "$b2" "$a2" "$c")
    drops=$((drops + d))
    [ "$d" -gt 0 ] && lab_metric "mr2_$c" "$d"
done
lab_metric mr2_rx_drops "$drops"
for c in rx_drop_crc rx_drop_opcode rx_drop_hdr_len rx_drop_no_qp rx_drop_length; do
    lab_check "counted-$c" test "$(mro_delta "$b2" "$a2" "$c")" -gt 0
done
lab_check drops-counted sh -c "echo $drops of ${sent:-0}; test ${sent:-0} -gt 0 && test $drops -ge $((${sent:-0} / 2))"

# --- teardown under a flood -----------------------------------------------
# flood DEV NS PORT: a datacheck server in NS (at 10.98.0.2, on DEV) and its
# client in h1, and once the server's QPs are up, mrofuzz in h1 aimed at
# them.  The fuzzer knows their QPNs and PSNs, as an on-path sender would:
# the transfer may fail or take forged data (nothing on the wire is keyed),
# so only the kernel is judged here, not the transfer.
flood() {
    local dev=$1 ns=$2 port=$3 i q r
    ip netns exec "$ns" timeout -k 10 600 "$DC" -s -p "$port" -T 30 \
        >"$LAB_OUT/td-$ns-server.log" 2>&1 &
    sleep 2
    ip netns exec h1 timeout -k 10 600 "$DC" -c 10.98.0.2 -p "$port" -q 4 -t 500 -T 30 \
        >"$LAB_OUT/td-$ns-client.log" 2>&1 &
    for i in $(seq 60); do
        q=$(qps "$dev" lqpn datacheck)
        [ "$(tr ',' '\n' <<<"$q" | grep -c .)" -ge 4 ] && break
        sleep 0.5
    done
    r=$(qps "$dev" rqpn datacheck)
    lab_log "teardown: datacheck QPs at $dev: $q (peers $r)"
    ip netns exec h1 timeout -k 10 600 "$FUZZ" -t 10.98.0.2 -i eth0 -c 3 -n 100000000 \
        -q "$q" -Q "$r" -s 2 >"$LAB_OUT/td-$ns-mrofuzz.txt" 2>&1 &
    for i in $(seq 30); do
        grep -q '^mrofuzz: captured' "$LAB_OUT/td-$ns-mrofuzz.txt" && break
        sleep 1
    done
    sleep 5
    test -n "$q" && grep -q '^mrofuzz: captured [1-9]' "$LAB_OUT/td-$ns-mrofuzz.txt"
}

# exits_within SECONDS PID..: every PID has exited within SECONDS
exits_within() {
    local t=$1 i p
    shift
    for i in $(seq $((t * 10))); do
        for p in "$@"; do
            kill -0 "$p" 2>/dev/null && continue 2
        done
        return 0
    done
    echo "still running: $(ps -o pid=,stat=,wchan:32=,args= -p "$*" 2>/dev/null)" >&2
    return 1
}

# kill_exits NAME PID..: kill the PIDs; check NAME: all exit within 60 s
kill_exits() {
    local name=$1
    shift
    kill "$@" 2>/dev/null
    lab_check "$name" exits_within 60 "$@"
}

# shellcheck disable=SC2046
kill $(ip netns pids h1) $(ip netns pids h2) 2>/dev/null
sleep 1
lab_log "teardown: h2's eth0 moves to namespace h3 under a flood"
lab_check td-move-flood flood mr2 h2 18610
ip netns add h3
ip -n h2 link set eth0 netns h3
# mr2 goes once the QPs of its server, the flood's target, are gone
# shellcheck disable=SC2046 # the PIDs are words
kill_exits td-move-server-exits $(ip netns pids h2)
lab_check td-move-mr2-gone mro_gone mr2 60
ip -n h3 link set lo up
ip -n h3 addr add 10.98.0.2/24 dev eth0
ip -n h3 link set eth0 up
lab_check td-moved-link-add ip netns exec h3 rdma link add mr3 type metaroce netdev eth0 || exit 1
lab_check td-moved-active mro_wait_state mr3 ACTIVE || exit 1
# shellcheck disable=SC2046
kill_exits td-move-client-exits $(ip netns pids h1)

lab_log "teardown: namespace h3 is deleted under a flood"
lab_check td-netns-flood flood mr3 h3 18611
p3=$(ip netns pids h3)
ip netns del h3
# shellcheck disable=SC2086 # the PIDs are words
kill_exits td-netns-server-exits $p3
lab_check td-netns-mr3-gone mro_gone mr3 120
# shellcheck disable=SC2046
kill_exits td-netns-client-exits $(ip netns pids h1)

# --- afterwards: the device left and the module --------------------------
lab_check link-delete-mr1 ip netns exec h1 rdma link delete mr1
lab_check mr1-gone mro_gone mr1
lab_check rmmod-metaroce rmmod metaroce
lab_check dmesg-clean mro_dmesg_clean
