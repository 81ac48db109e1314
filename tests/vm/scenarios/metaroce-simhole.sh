#!/bin/bash
# metaroce-simhole (netns topology, one VM): issue 5's black hole timed in
# simulated time.  Meant for a VM on an instruction-counted clock
# (LAB_VM_ICOUNT="shift=0,sleep=off": the guest's time is its instruction
# count, so how busy the host is does not stretch or bunch it); it runs
# without one too, timed by the host's scheduling then.
#
# Hosts h1 and h2 are namespaces joined by one veth pair; the wire of the
# bench (tests/vm/bench/wire.sh) sits on both ends: a tbf bottleneck of
# SIMHOLE_RATE on each egress (data one way, ACKs the other).  mr1 (h1) runs
# ib_write_bw 64 KiB into mr2 (h2) over 8 paths.  After SIMHOLE_PRE seconds of
# data a u32 filter on h2's ingress drops one path's source port (one path
# of 8, a hole in the network the sender cannot see) for SIMHOLE_HOLE
# seconds.  The responder's function trace (every mro_resp_rcv call) gives
# each delivered packet's time, beside trace_marker lines around the
# filter's addition and removal and the path retire, revive and retransmit
# events; tools/bench/simhole.py turns it into 10 ms windows in 1 ms steps
# against the rate of the 3 s before the hole (metrics simhole_*:
# recovery_ms, the noise without a hole base_low_pct, ...).
# First an unshaped 64 KiB WRITE (unshaped_mibps) says where the CPU limit
# is.
#
# Checks: the transfer completes (no QP error), the path is retired in the
# hole and revived (a re-probe on a fresh port, during the hole or after it:
# the trace events; metaroce-paths checks what the telemetry shows, polling
# it here would take the CPU from the measured flow), the analysis ran; the
# numbers are metrics (the 10 ms criterion is reported, not asserted).
# Files (--files): metaroce.ko, metaroce-lib.sh, wire.sh, simhole.py and,
# optional, simhole.conf (SIMHOLE_* settings; SIMHOLE_UNA_OFF, the offset of
# snd_una in struct mro_qp, adds the sender's acknowledged progress;
# SIMHOLE_PATH_OFF, the offset of path in struct mro_hdr, the path of every
# packet received, so when the holed slot's last packet came).
# tests/vm/bench-simhole.sh runs it and reports.
# Example:
#   LAB_VM_ICOUNT=shift=0,sleep=off tests/vm/run.sh --dist bookworm \
#       --topology netns --scenario tests/vm/scenarios/metaroce-simhole.sh \
#       --files out/bookworm/*/metaroce.ko tests/vm/scenarios/metaroce-lib.sh \
#       tests/vm/bench/wire.sh tools/bench/simhole.py
source "$LAB_LIB"
source "$LAB_FILES/metaroce-lib.sh"
# shellcheck source=tests/vm/bench/wire.sh
source "$LAB_FILES/wire.sh"

SIMHOLE_UNA_OFF=
SIMHOLE_PATH_OFF=
# shellcheck disable=SC1091
[ -f "$LAB_FILES/simhole.conf" ] && . "$LAB_FILES/simhole.conf"
RATE=${SIMHOLE_RATE:-30mbit}
PRE=${SIMHOLE_PRE:-4}		# seconds, may be fractional
PATH_SLOT=${SIMHOLE_PATH:-3}	# the path slot whose source port is dropped
HOLE=${SIMHOLE_HOLE:-3}
POST=${SIMHOLE_POST:-4}
BENCH_PORT=4796
TR=/sys/kernel/tracing
T=1200	# wall-clock cap of each perftest process

mro_install
lab_check modprobe-metaroce modprobe metaroce paths=8 || exit 1
modprobe -a ib_uverbs rdma_ucm veth
lab_check wire-modules wire_modules || exit 1

ip netns add h1
ip netns add h2
ip link add eth0 netns h1 type veth peer name eth0 netns h2
for i in 1 2; do
    ip -n "h$i" link set lo up
    ip -n "h$i" addr add "10.97.0.$i/24" dev eth0
    ip -n "h$i" link set eth0 up
    lab_check "link-add-mr$i" ip netns exec "h$i" rdma link add "mr$i" type metaroce netdev eth0 || exit 1
done
lab_check active mro_wait_state mr2 ACTIVE || exit 1
mro_wait_state mr1 ACTIVE
G1=$(lab_gid_index mr1) || exit 1
G2=$(lab_gid_index mr2) || exit 1
lab_check ping ip netns exec h1 ping -c 2 -W 5 10.97.0.2 || exit 1

# wire NS RATE: the bench wire on NS's eth0 (RATE "none": no bottleneck)
wire() {
    ip netns exec "$1" env BENCH_PORT=$BENCH_PORT BENCH_RATE="$2" bash -c \
        ". $LAB_FILES/wire.sh; wire_setup 0"
}

# write_bw OUT SECS: ib_write_bw 64 KiB h1 -> h2 for SECS; the client's output
# goes to OUT (its pid in CLI, the server's in SRV)
write_bw() {
    ip netns exec h2 timeout "$T" ib_write_bw -d mr2 -x "$G2" -s 65536 -D "$2" -F \
        >"$LAB_WORK/$1-server.out" 2>&1 &
    SRV=$!
    (
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            sleep 1
            ip netns exec h1 timeout "$T" ib_write_bw -d mr1 -x "$G1" -s 65536 -D "$2" -F \
                10.97.0.2 >"$LAB_WORK/$1.out" 2>&1 && exit 0
            grep -q 'Couldn.t connect' "$LAB_WORK/$1.out" || exit 1
        done
        exit 1
    ) &
    CLI=$!
}

# mibps OUT: perftest's average MiB/s
mibps() { awk '$1 == 65536 && NF >= 5 { v = $4 } END { print v }' "$LAB_WORK/$1.out"; }

# --- the CPU limit: unshaped -----------------------------------------------------
lab_check wire-unshaped-h1 wire h1 none
lab_check wire-unshaped-h2 wire h2 none
write_bw unshaped 8
wait $CLI; rc=$?
wait $SRV
lab_check unshaped-ran test $rc = 0
lab_metric unshaped_mibps "$(mibps unshaped)"
cp "$LAB_WORK/unshaped.out" "$LAB_OUT/"

# --- the hole ----------------------------------------------------------------------
lab_check wire-h1 wire h1 "$RATE"
lab_check wire-h2 wire h2 "$RATE"
[ -d $TR/events ] || mount -t tracefs nodev $TR
echo 0 >$TR/tracing_on
echo nop >$TR/current_tracer
echo 16384 >$TR/buffer_size_kb
lab_check ftrace-filter sh -c "echo mro_resp_rcv >$TR/set_ftrace_filter"
echo 1 >$TR/events/metaroce/mro_path_retire/enable
echo 1 >$TR/events/metaroce/mro_path_revive/enable
echo 1 >$TR/events/metaroce/mro_retransmit/enable
# the sender's acknowledged progress: snd_una at each entry of
# mro_advance_una (its offset in struct mro_qp from simhole.conf: the
# wrapper reads it from the module's debug info)
if [ -n "${SIMHOLE_UNA_OFF:-}" ]; then
    lab_check una-kprobe sh -c "echo 'p:simhole/una mro_advance_una qp=%di:x64 \
una=+$SIMHOLE_UNA_OFF(%di):u32' >>$TR/kprobe_events && echo 1 >$TR/events/simhole/una/enable"
fi
# the path of every request packet the responder received (the header is
# mro_resp_rcv's second argument): when the holed slot's last packet came
if [ -n "${SIMHOLE_PATH_OFF:-}" ]; then
    lab_check rcv-kprobe sh -c "echo 'p:simhole/rcv mro_resp_rcv \
path=+$SIMHOLE_PATH_OFF(%si):u16' >>$TR/kprobe_events && echo 1 >$TR/events/simhole/rcv/enable"
fi
lab_check ftrace-function sh -c "echo function >$TR/current_tracer"
echo >$TR/trace
echo 1 >$TR/tracing_on

r0=$(mro_counter mr2 rcvd_pkts)
sus0=$(mro_counter mr1 path_suspended)
ret0=$(mro_counter mr1 path_retired)
CLI='' SRV=''
write_bw hole "$(awk -v a="$PRE" -v b="$HOLE" -v c="$POST" 'BEGIN { printf "%d", a + b + c + 5 }')"
lab_check hole-started test -n "$CLI" || exit 1
# the data flows: the responder received 100 packets more
for _ in $(seq 120); do
    [ "$(mro_counter mr2 rcvd_pkts)" -gt $((r0 + 100)) ] && break
    sleep 0.5
done
sleep "$PRE"
lab_check hole-client-running kill -0 $CLI
qp=$(rdma -j -dd resource show qp link mr1/1 | jq -c '[.[] | select(.type == "RC")][0]')
sport=$(jq -r --arg k "p${PATH_SLOT}_sport" '.["drv_" + $k] // .[$k] // empty' <<<"$qp")
lab_check hole-sport test -n "$sport"
lab_metric hole_sport "$sport"
lab_metric hole_slot "$PATH_SLOT"
lab_metric hole_pre_s "$PRE"
echo "simhole on0" >$TR/trace_marker
ip netns exec h2 tc filter add dev eth0 ingress prio 1 protocol ip u32 match ip protocol 17 0xff \
    match ip dport $BENCH_PORT 0xffff match ip sport "$sport" 0xffff action drop
echo "simhole on1" >$TR/trace_marker
# nothing else runs in the hole: an rdma command here takes the CPU from
# the flow for a 10 ms window
sleep "$HOLE"
echo "simhole off0" >$TR/trace_marker
ip netns exec h2 tc filter del dev eth0 ingress prio 1
echo "simhole off1" >$TR/trace_marker
wait $CLI; rc=$?
wait $SRV
echo 0 >$TR/tracing_on
rdma resource show qp link mr1/1 -dd >"$LAB_OUT/qp-after.txt" 2>&1
cp "$LAB_WORK/hole.out" "$LAB_OUT/"
lab_check hole-transfer-completed test $rc = 0
lab_metric hole_mibps "$(mibps hole)"
# the sender's suspensions and retirements over the whole transfer
lab_metric hole_path_suspended $(($(mro_counter mr1 path_suspended) - sus0))
lab_metric hole_path_retired $(($(mro_counter mr1 path_retired) - ret0))
cat $TR/trace >"$LAB_OUT/trace.txt"
echo nop >$TR/current_tracer
if [ -n "${SIMHOLE_UNA_OFF:-}" ]; then
    echo 0 >$TR/events/simhole/una/enable
    echo '-:simhole/una' >>$TR/kprobe_events
fi
if [ -n "${SIMHOLE_PATH_OFF:-}" ]; then
    echo 0 >$TR/events/simhole/rcv/enable
    echo '-:simhole/rcv' >>$TR/kprobe_events
fi
# the holed slot itself was retired and revived (not some other path)
lab_check_grep hole-retire-traced "mro_path_retire: .* path=$PATH_SLOT " cat "$LAB_OUT/trace.txt"
lab_check_grep hole-revive-traced "mro_path_revive: .* path=$PATH_SLOT " cat "$LAB_OUT/trace.txt"
python3 "$LAB_FILES/simhole.py" "$LAB_OUT/trace.txt" "$PATH_SLOT" >"$LAB_OUT/simhole.txt" 2>&1
lab_check_grep simhole-analysed '^recovery_ms ' cat "$LAB_OUT/simhole.txt"
while read -r k v; do
    [ "$k" = "#" ] || [ -z "$v" ] || lab_metric "simhole_$k" "$v"
done <"$LAB_OUT/simhole.txt"
lab_check dmesg-clean mro_dmesg_clean
