#!/bin/bash
# metaroce-incast (netns topology, one VM): N senders to one receiver through a
# rate-limited bottleneck with a shallow RED queue that marks ECN, run with
# three congestion-control settings side by side:
#   on      algo=dual, receiver credits on
#   sender  algo=dual, credits off (sender-only CC)
#   off     algo=off,  credits off (fixed window, the behaviour before issue 6)
#
# Topology: namespace sw holds bridge br0; h1..hN (10.98.0.i) and r (10.98.0.100)
# each hang off it by a veth.  The bottleneck is sw's port towards r: HTB at
# INCAST_RATE_MBIT with RED (ecn) as its queue.  One metaroce device per
# namespace (the RDMA core cannot connect two devices of one namespace).
# Every sender runs ib_write_bw (-D INCAST_SECS + 2 s per sender, at nice 19) to
# its own server on r.
#
# Metrics per setting S and sender count N (names S_nN_*), over the window in
# which every flow runs (from the receiver's per-QP rcv_psn, sampled about
# every second): window_s, goodput_mbit (sum over the flows), util (goodput /
# bottleneck rate), jain (over the flows' goodputs), link_mbit (what the RED
# queue forwarded in the window), window_drops (what it dropped in the
# window), q_mean_b / q_empty_pct (its backlog, sampled with the rates),
# cpu_busy_pct / cpu_nice_pct (the vCPU); over the whole run, flows joining
# and leaving included: perftest_sum_mbit (the senders' own averages),
# drop_pct, drops, drops_early (not ECT, dropped where RED marks),
# drops_overflow (the queue's limit) and marks (the RED queue), ce_rcvd.
# Then: convergence of a long and a new flow (conv_S_s, report only) and
# ib_send_lat through the bottleneck, unloaded vs loaded by a bulk flow
# (lat_S_idle_us, lat_S_loaded_us: perftest's typical, i.e. median, latency;
# _avg_us and _p99_us its average and 99th percentile).  What makes up the
# loaded latency: lat_S_side_*_us (the same ping between two senders, not
# through the bottleneck: CPU contention only), lat_S_icmp_*_us (kernel ICMP
# through the bottleneck), lat_S_q_* (the bottleneck backlog, sampled after
# the pings for as long as the loaded ping took, the bulk flow unchanged),
# lat_S_bulk_* (the bulk QP's srtt, min_rtt, cwnd, pipe and its goodput),
# lat_S_cpu_* (the vCPU), lat_S_{idle,loaded}_{mh2,mr}_* (the ping devices'
# counters: RTOs, resends, waits).
#
# Checks (robust things only; speed targets are numbers to report):
#   with CC on (and sender-only) every flow is seen at the receiver in a common
#   window of >= 3 s; with CC on (and sender-only) every flow completes with a bandwidth and no QP
#   reaches retry_exceeded; no kernel warnings; with credits on the bottleneck drops
#   no more packets than with CC off.  CC off is the reference: whether all its
#   flows completed is a metric (S_nN_flows_ok), not a check.
#
# Files (--files): metaroce.ko, metaroce-lib.sh; optional incast.conf (sourced)
# overriding the INCAST_* variables below.
source "$LAB_LIB"
source "$LAB_FILES/metaroce-lib.sh"

INCAST_NS="4 8"
INCAST_MODES="on sender off"
INCAST_RATE_MBIT=24
INCAST_SECS=15
INCAST_RED="limit 200000 min 24000 max 72000 avpkt 4200 burst 8 probability 1.0"
INCAST_TARGET_US=10000		# TCG RTT noise is milliseconds
INCAST_TARGET_VAR_PCT=""	# target_var_pct (empty: the device default)
INCAST_BUDGET=32
# a new sender's unasked first window lands on a queue that may already hold
# the whole pool: budget + spec must fit the RED queue's limit (32 + 4
# packets of 4.2 KB in 200 KB).  The default 32 (128 KiB at this MTU)
# overflows it when senders join.
INCAST_SPEC=4
INCAST_MIN_CWND=1
INCAST_QUANTUM=2
INCAST_IDLE_US=50000		# credit timer: above the TCG RTT (tens of ms)
INCAST_CC_EXTRA=""		# more cc knobs of every device: "NAME=VALUE ..."
# module parameters: RED's avpkt, the queue limit and the credit budget (in
# packets) above are sized for 4 KiB packets, the path MTU at this 9000-byte
# MTU; mtu_fill (the default) would send 8 KB packets (usage.rst)
INCAST_MRO_PARAMS="mtu_fill=0"
# the links' MTU: 9000 gives 4 KiB packets (1.4 ms each at 24 Mbit/s); 1500
# gives 1 KiB ones (the queue sizes above are then 4x too deep in packets)
INCAST_MTU=9000
# HTB sends at most a burst per wake-up of its watchdog timer, so a timer that
# fires late caps the link at burst / lateness: with 20k and the timers of a
# TCG VM on a loaded host the 24 Mbit/s link forwarded ~11 Mbit/s with a
# standing queue.  64k keeps the rate up to ~20 ms of timer lateness.
INCAST_HTB_BURST=64k
INCAST_LAT=1			# 0 skips the latency runs
INCAST_LAT_OPTS="-e"		# ib_send_lat options of the latency ping
# the ping's server: perftest 4.5's server with -e reads an unfilled ibv_wc
# when the client's next ping overtakes the client's ACK of its reply (which
# fq_codel's flow queues allow): "" busy-polls there
INCAST_LAT_SRV_OPTS="-e"
# iterations of the ping: 200 at ~1 ms took a fraction of a second, shorter
# than the stalls of a bulk flow without CC, so a ping could miss the queue
INCAST_LAT_ITERS=500
# command prefix of the pingers (default with more than one vCPU: pinned to
# the last one, so that perftest's cycle counter stays on one CPU)
INCAST_LAT_PIN=""
# seconds between the probe's samples of the bottleneck queue (taken after
# the pings: the probe runs at nice -15 and forks tc, and every fifth sample
# rdma, so on one vCPU each sample takes the CPU from whatever else runs)
INCAST_PROBE_S=0.1
# MODE[:LEAF[:TARGET_US[:VAR_PCT]]]: LEAF red (the default) or fq_codel with
# ecn; TARGET_US and VAR_PCT override INCAST_TARGET_US and INCAST_TARGET_VAR_PCT
# for that run (metrics lat_MODE[_LEAF][_tUS[vPCT]]_*)
INCAST_LAT_MODES="on off"
INCAST_FQ_CODEL=""		# fq_codel options (empty: its defaults, target 5 ms)
# paths per device for the QPs created later, "DEV=N ..." (e.g. "mh1=1": the
# bulk sender's QPs use one source port; default: the module's `paths`)
INCAST_PATHS=""
# extra ib_write_bw options (perftest 4.5 has no -e events for WRITE)
INCAST_BW_OPTS=""
INCAST_CONV=1			# 0 skips the convergence runs
# a round trip of the fabric's own: netem delays every host's egress (eth0)
# by this much, so a packet crosses two delays each way (0: none).  With it
# the link can hold tens of packets in flight, as a data centre's does,
# rather than a packet taking longer than the whole idle round trip
INCAST_DELAY_US=0
# perftest busy-polls its CQ.  On the VM's one vCPU, N pollers at the normal
# priority starve ksoftirqd (which runs the network stack and the driver's
# timers under load): with 8 senders the flows moved < 1 Mbit/s in all for
# 20 s.  At nice 19 they only take the CPU the stack leaves.
PERF_NICE="nice -n 19"
[ -f "$LAB_FILES/incast.conf" ] && source "$LAB_FILES/incast.conf"

T=$((INCAST_SECS * 4 + 180))
NMAX=0
for n in $INCAST_NS; do [ "$n" -gt "$NMAX" ] && NMAX=$n; done

mro_install
# shellcheck disable=SC2086 # parameters are words
lab_check modprobe-metaroce modprobe metaroce $INCAST_MRO_PARAMS || exit 1
# the VM these numbers come from: one vCPU runs every namespace's stack and
# the emulated link, and the link then forwards less than its rate
lab_metric vcpus "$(nproc)"
lab_metric delay_us "$INCAST_DELAY_US"
lab_log "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# perftest's clock calibration fails on a TSC the kernel calls unstable
# (LAB_VM_APPEND=tsc=reliable); pinned, each pinger keeps one CPU's clock
[ -z "$INCAST_LAT_PIN" ] && [ "$(nproc)" -gt 1 ] && INCAST_LAT_PIN="taskset -c $(($(nproc) - 1))"
modprobe -a ib_uverbs rdma_ucm sch_htb sch_red sch_fq_codel sch_netem veth bridge

# --- topology ---------------------------------------------------------------
ip netns add sw
ip -n sw link add br0 type bridge
ip -n sw link set br0 mtu "$INCAST_MTU" up
ip -n sw link set lo up
add_host() {	# add_host NS IP
    ip netns add "$1"
    ip -n sw link add "v$1" mtu "$INCAST_MTU" type veth peer name eth0 mtu "$INCAST_MTU" netns "$1"
    ip -n sw link set "v$1" master br0 up
    ip -n "$1" link set lo up
    ip -n "$1" addr add "$2/24" dev eth0
    ip -n "$1" link set eth0 up
    if [ "$INCAST_DELAY_US" -gt 0 ]; then
        lab_check "netem-$1" tc -n "$1" qdisc add dev eth0 root netem \
            delay "${INCAST_DELAY_US}us" limit 100000
    fi
    ip netns exec "$1" rdma link add "m$1" type metaroce netdev eth0
}
add_host r 10.98.0.100
for ((i = 1; i <= NMAX; i++)); do add_host "h$i" "10.98.0.$i"; done
lab_check receiver-active mro_wait_state mr ACTIVE || exit 1
for ((i = 1; i <= NMAX; i++)); do mro_wait_state "mh$i" ACTIVE || lab_record "h$i-active" false "not active"; done
lab_check ping-receiver ip netns exec h1 ping -c 2 -W 2 10.98.0.100
for kv in $INCAST_PATHS; do
    lab_check "paths-${kv%%=*}" sh -c "echo ${kv#*=} >/sys/class/infiniband/${kv%%=*}/ports/1/metaroce/paths"
done

# the bottleneck: sw -> r.  metaroce (UDP) goes through RED; perftest's TCP side
# channel gets its own small class so a full RED queue cannot stop a flow from
# connecting.
tc -n sw qdisc add dev vr root handle 1: htb default 10
tc -n sw class add dev vr parent 1: classid 1:1 htb rate "${INCAST_RATE_MBIT}mbit" \
    ceil "${INCAST_RATE_MBIT}mbit" burst "$INCAST_HTB_BURST" cburst "$INCAST_HTB_BURST"
tc -n sw class add dev vr parent 1:1 classid 1:10 htb rate "$((INCAST_RATE_MBIT - 1))mbit" \
    ceil "${INCAST_RATE_MBIT}mbit" burst "$INCAST_HTB_BURST" cburst "$INCAST_HTB_BURST" prio 1
tc -n sw class add dev vr parent 1:1 classid 1:20 htb rate 1mbit \
    ceil "${INCAST_RATE_MBIT}mbit" burst "$INCAST_HTB_BURST" cburst "$INCAST_HTB_BURST" prio 0
tc -n sw filter add dev vr parent 1: protocol ip prio 1 u32 match ip protocol 6 0xff flowid 1:20
# shellcheck disable=SC2086
lab_check bottleneck-red tc -n sw qdisc add dev vr parent 1:10 handle 10: red $INCAST_RED \
    bandwidth "${INCAST_RATE_MBIT}mbit" ecn
GID_R=$(lab_gid_index mr) || exit 1
lab_check_grep cc-sysfs '^(dual|off)$' cat /sys/class/infiniband/mr/ports/1/cc/algo

CC_VAR_DEFAULT=$(cat /sys/class/infiniband/mr/ports/1/cc/target_var_pct)
# cc_set MODE: the same settings on every device
cc_set() {
    local algo=dual credits=1 d kv
    case $1 in
        sender) credits=0 ;;
        off) algo=off; credits=0 ;;
    esac
    for d in /sys/class/infiniband/m*/ports/1; do
        echo "$algo" >"$d/cc/algo"
        echo "$credits" >"$d/cc/credits"
        echo "$INCAST_TARGET_US" >"$d/cc/target_delay_us"
        echo "${INCAST_TARGET_VAR_PCT:-$CC_VAR_DEFAULT}" >"$d/cc/target_var_pct"
        echo "$INCAST_BUDGET" >"$d/cc/credit_budget"
        echo "$INCAST_SPEC" >"$d/cc/spec_window"
        echo "$INCAST_QUANTUM" >"$d/cc/credit_quantum"
        echo "$INCAST_IDLE_US" >"$d/cc/credit_idle_us"
        echo "$INCAST_MIN_CWND" >"$d/cc/min_cwnd"
        for kv in $INCAST_CC_EXTRA; do echo "${kv#*=}" >"$d/cc/${kv%%=*}"; done
    done
}

# red_stats -> "sent_pkts dropped marked early pdrop" of the RED queue
# (cumulative; early: dropped by RED's marking rule, i.e. packets without ECT;
# pdrop: the queue's byte limit overflowed)
red_stats() {
    tc -n sw -s qdisc show dev vr | python3 -c '
import re, sys
t = sys.stdin.read()
m = re.search(r"qdisc red 10:.*?Sent \d+ bytes (\d+) pkt \(dropped (\d+)", t, re.S)
k = re.search(r"marked (\d+) early (\d+) pdrop (\d+)", t)
print(m.group(1) if m else 0, m.group(2) if m else 0, *(k.groups() if k else (0, 0, 0)))'
}

# leaf_stats -> "backlog_bytes backlog_pkts sent_bytes dropped" of the
# bottleneck's queue (HTB class 1:10's leaf, handle 10:; now / cumulative)
leaf_stats() {
    tc -n sw -s qdisc show dev vr | awk '
        /^qdisc/ {leaf = ($4 == "10:" || $3 == "10:")}
        leaf && /Sent/ {s = $2; d = $7; sub(/,/, "", d)}
        leaf && /backlog/ {
            b = $2; p = $3; m = 1
            if (b ~ /Kb$/) m = 1024
            if (b ~ /Mb$/) m = 1048576
            sub(/[KM]?b$/, "", b); sub(/p$/, "", p); b *= m
        }
        END {printf "%s %s %s %s\n", b + 0, p + 0, s + 0, d + 0}'
}

# rx_psns -> "lqpn rcv_psn" of every RC QP on the receiver (its next expected PSN:
# every PSN below it has arrived, so its growth times the MTU is goodput)
rx_psns() {
    rdma -dd res show qp link mr/1 2>/dev/null | awk '{
        q = ""; t = ""; st = ""; p = ""
        for (i = 1; i < NF; i++) {
            if ($i == "lqpn") q = $(i + 1)
            if ($i == "type") t = $(i + 1)
            if ($i == "state") st = $(i + 1)
            if ($i == "drv_rcv_psn" || $i == "rcv_psn") p = $(i + 1)
        }
        # rcv_psn is set on the way to RTR (a server QP of a one-way test stays there)
        if (q != "" && t == "RC" && (st == "RTR" || st == "RTS") && p != "") print q, p
    }'
}

# trace_qps TAG SECS: every 2 s, the driver telemetry of sender h1's and the
# receiver's QPs (cwnd, credit, srtt, pacing ...) into $LAB_OUT/TAG-trace.txt
trace_qps() {
    local i
    renice -n -15 -p "$BASHPID" >/dev/null
    for ((i = 0; i < $2; i += 2)); do
        {
            echo "=== t=$i $(date +%s.%N) red $(tc -n sw -s qdisc show dev vr | grep -A1 'qdisc red' | tr -s ' \n' ' ')"
            rdma -dd res show qp link mh1/1 2>&1
            rdma -dd res show qp link mr/1 2>&1
        } >>"$LAB_OUT/$1-trace.txt"
        sleep 2
    done
}

# rx_sampler TAG: about every second until $LAB_WORK/TAG.stop exists, append
# "time lqpn rcv_psn" of the receiver's RC QPs to $LAB_WORK/TAG.samples (time =
# the middle of the dump).  It runs at a high priority: the perftest clients
# busy-poll the one vCPU, and at normal priority one sample took ~9 s with 8.
rx_sampler() {
    local f="$LAB_WORK/$1.samples" a b out qb qs qd
    renice -n -15 -p "$BASHPID" >/dev/null
    : >"$f"
    : >"$LAB_WORK/$1.cpu"
    : >"$LAB_WORK/$1.q"
    while [ ! -e "$LAB_WORK/$1.stop" ]; do
        a=$(date +%s.%N)
        out=$(rx_psns)
        b=$(date +%s.%N)
        [ -n "$out" ] && echo "$out" | awk -v a="$a" -v b="$b" '{printf "%.3f %s\n", (a + b) / 2, $0}' >>"$f"
        read -r qb _ qs qd < <(leaf_stats)
        echo "$a $(head -1 /proc/stat) $qs $qd" >>"$LAB_WORK/$1.cpu"
        echo "$a $qb" >>"$LAB_WORK/$1.q"
        sleep 1
    done
}

# cpu_share CPUFILE T0 T1 TAG QFILE (the "time backlog_bytes" samples):
# metrics TAG_cpu_busy_pct (user + system + irq + softirq) and TAG_cpu_nice_pct (the nice-19 perftest pollers) of the vCPU
# between the samples nearest T0 and T1 (is the stack short of CPU?), and
# TAG_link_mbit, what the bottleneck forwarded meanwhile (is the link slower
# than its rate?), TAG_window_drops, what it dropped meanwhile, and
# TAG_q_mean_b / TAG_q_empty_pct, its queue (mean bytes, share of the
# samples with an empty queue)
cpu_share() {
    local k v
    python3 - "$@" <<'PY' | while read -r k v; do lab_metric "$k" "$v"; done
import sys
rows = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 12 and f[1] == "cpu":
        rows.append((float(f[0]), [int(x) for x in f[2:]]))
if len(rows) < 2:
    sys.exit()
t0, t1, tag = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
ra = min(rows, key=lambda r: abs(r[0] - t0))
rb = min(rows, key=lambda r: abs(r[0] - t1))
a, b = ra[1], rb[1]
d = [y - x for x, y in zip(a, b)]
if rb[0] > ra[0]:	# the last columns: bytes sent and packets dropped by RED
    print(f"{tag}_link_mbit {d[-2] * 8 / (rb[0] - ra[0]) / 1e6:.3f}")
    print(f"{tag}_window_drops {d[-1]}")
tot = sum(d[:8]) or 1	# user nice system idle iowait irq softirq steal
print(f"{tag}_cpu_busy_pct {100.0 * (d[0] + d[2] + d[5] + d[6]) / tot:.1f}")
print(f"{tag}_cpu_nice_pct {100.0 * d[1] / tot:.1f}")
# the queue, sampled with the CPU: a link that forwards less than its rate
# while its queue is seldom empty is slower than its rate (the emulation)
b = []
for line in open(sys.argv[5]):
    f = line.split()
    if len(f) == 2 and ra[0] <= float(f[0]) <= rb[0]:
        b.append(float(f[1]))
if b:
    print(f"{tag}_q_mean_b {sum(b) / len(b):.0f}")
    print(f"{tag}_q_empty_pct {100.0 * sum(1 for x in b if x == 0) / len(b):.0f}")
PY
}

# window_rates SAMPLES N -> first line "seconds qps t0 t1", then Mbit/s per QP over the
# longest stretch of samples in which the most QPs (at most N) were present
window_rates() {
    python3 - "$@" <<'PY'
import sys
from collections import OrderedDict
snap = OrderedDict()
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3:
        snap.setdefault(f[0], {})[f[1]] = int(f[2], 0)
n = int(sys.argv[2])
times = list(snap)
if not times:
    print("0 0 0 0")
    sys.exit()
k = min(n, max(len(v) for v in snap.values()))
full = [t for t in times if len(snap[t]) >= k]
a, b = full[0], full[-1]
qs = [q for q in snap[b] if q in snap[a]]
secs = float(b) - float(a)
print(f"{secs:.2f} {len(qs)} {a} {b}")
for q in sorted(qs, key=int):
    d = (snap[b][q] - snap[a][q]) & 0xffffff	# PSNs are 24 bits
    print(f"{d * 4096 * 8 / secs / 1e6:.3f}" if secs > 0 else "0")
PY
}

# counter_sum NAME DEV... -> sum of a port counter
counter_sum() {
    local name=$1 s=0 d; shift
    for d in "$@"; do s=$((s + $(mro_counter "$d" "$name"))); done
    echo $s
}

# wait_listen N: until N perftest servers listen on r (at most 60 s)
wait_listen() {
    local k
    for k in $(seq 120); do
        [ "$(ip netns exec r ss -Hltn 2>/dev/null | grep -c ':18[5-7][0-9][0-9] ')" -ge "$1" ] && return 0
        sleep 0.5
    done
    return 1
}

# client NS DEV PORT SECS OUT: ib_write_bw to r, retried while the server starts
client() {
    local k gid
    gid=$(lab_gid_index "$2") || return 1
    for k in 1 2 3 4 5 6 7 8 9 10; do
        ip netns exec "$1" timeout "$T" $PERF_NICE ib_write_bw $INCAST_BW_OPTS -d "$2" -x "$gid" -p "$3" -s 65536 \
            -D "$4" -F 10.98.0.100 >"$5" 2>&1 && return 0
        sleep 2
    done
    return 1
}

# incast MODE N: N concurrent ib_write_bw flows into r
incast() {
    local mode=$1 n=$2 tag="$1_n$2" i port pids=() devs=() bw rc ok=1
    cc_set "$mode"
    for ((i = 1; i <= n; i++)); do devs+=("mh$i"); done
    read -r s0 d0 m0 e0 p0 < <(red_stats)
    local re0 ce0
    re0=$(counter_sum retry_exceeded mr "${devs[@]}")
    ce0=$(counter_sum cc_ecn_ce_rcvd mr)
    # the flows connect one after the other (seconds apart on TCG): each runs
    # INCAST_SECS plus 2 s per sender, so that they all overlap for a while
    local dur=$((INCAST_SECS + 2 * n))
    for ((i = 1; i <= n; i++)); do
        port=$((18500 + i))
        ip netns exec r timeout "$T" $PERF_NICE ib_write_bw $INCAST_BW_OPTS -d mr -x "$GID_R" -p "$port" -s 65536 \
            -D "$dur" -F >"$LAB_WORK/$tag-srv$i.out" 2>&1 &
    done
    wait_listen "$n" || lab_log "$tag: not all servers listen"
    for ((i = 1; i <= n; i++)); do
        port=$((18500 + i))
        client "h$i" "mh$i" "$port" "$dur" "$LAB_WORK/$tag-cli$i.out" &
        pids+=($!)
    done
    [ "${INCAST_TRACE:-0}" = 1 ] && trace_qps "$tag" "$dur" &
    # goodput and fairness over the stretch in which every flow runs, from the
    # receiver's QPs (sampled about every second while the flows run)
    rm -f "$LAB_WORK/$tag.stop"
    rx_sampler "$tag" &
    local sampler=$!
    sleep $((dur / 2))
    rdma res show qp link mh1/1 -dd >"$LAB_OUT/$tag-h1-qp.txt" 2>&1
    rdma res show qp link mr/1 -dd >"$LAB_OUT/$tag-r-qp.txt" 2>&1
    local bws=()
    for ((i = 1; i <= n; i++)); do
        wait "${pids[$((i - 1))]}"
        rc=$?
        bw=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ {print $4; exit}' "$LAB_WORK/$tag-cli$i.out")
        if [ "$rc" -ne 0 ] || [ -z "$bw" ]; then
            ok=0
            bw=0
        fi
        bws+=("$bw")
    done
    touch "$LAB_WORK/$tag.stop"
    wait "$sampler"
    wait
    window_rates "$LAB_WORK/$tag.samples" "$n" >"$LAB_WORK/$tag.win"
    cp "$LAB_WORK/$tag.samples" "$LAB_OUT/"
    local wsecs wqps wa wb
    read -r wsecs wqps wa wb <"$LAB_WORK/$tag.win"
    cpu_share "$LAB_WORK/$tag.cpu" "$wa" "$wb" "$tag" "$LAB_WORK/$tag.q"
    tail -n +2 "$LAB_WORK/$tag.win" >"$LAB_WORK/$tag.rates"
    lab_metric "${tag}_window_s" "$wsecs"
    # every flow seen at the receiver over a window of at least 3 s (CC off:
    # a flow may die of the loss, so only a metric)
    if [ "$mode" = off ]; then
        lab_metric "${tag}_window_qps" "$wqps"
    else
        lab_check "$tag-receiver-qps-visible" awk -v s="$wsecs" -v q="$wqps" -v n="$n" \
            'BEGIN {exit !(q >= n && s >= 3)}'
    fi
    cp "$LAB_WORK/$tag"-*.out "$LAB_OUT/" 2>/dev/null
    # CC off is the reference: its flows may die of the loss it causes
    if [ "$mode" = off ]; then
        lab_metric "${tag}_flows_ok" "$ok"
        lab_log "$tag MB/s: ${bws[*]}"
    else
        lab_record "$tag-flows-complete" "$([ $ok = 1 ] && echo true || echo false)" "MB/s: ${bws[*]}"
    fi
    read -r s1 d1 m1 e1 p1 < <(red_stats)
    local sent=$((s1 - s0)) drops=$((d1 - d0)) marks=$((m1 - m0))
    lab_metric "${tag}_drops_early" $((e1 - e0))
    lab_metric "${tag}_drops_overflow" $((p1 - p0))
    [ "$mode" = off ] || lab_check "$tag-no-retry-exceeded" test "$(counter_sum retry_exceeded mr "${devs[@]}")" -eq "$re0"
    cp "$LAB_WORK/$tag.rates" "$LAB_OUT/"
    python3 - "$tag" "$INCAST_RATE_MBIT" "$sent" "$drops" "$marks" "$n" "$LAB_WORK/$tag.rates" \
        "${bws[@]}" >"$LAB_WORK/$tag.metrics" <<'PY'
import sys
tag, rate, sent, drops, marks = sys.argv[1], float(sys.argv[2]), *map(int, sys.argv[3:6])
n = int(sys.argv[6])
mbit = [float(x) for x in open(sys.argv[7]) if x.strip()]
# a flow whose QP was not there in both samples counts as 0
mbit = (mbit + [0.0] * n)[:max(n, len(mbit))]
# perftest's own averages (MB/sec = 2^20 B/s), over each flow's own run
perf = sum(float(x) for x in sys.argv[8:]) * 1048576 * 8 / 1e6
print(f"{tag}_perftest_sum_mbit {perf:.3f}")
tot = sum(mbit)
jain = tot * tot / (len(mbit) * sum(x * x for x in mbit)) if tot else 0
print(f"{tag}_goodput_mbit {tot:.3f}")
print(f"{tag}_util {tot / rate:.3f}")
print(f"{tag}_jain {jain:.3f}")
print(f"{tag}_drops {drops}")
print(f"{tag}_marks {marks}")
print(f"{tag}_drop_pct {100.0 * drops / max(sent + drops, 1):.3f}")
PY
    while read -r k v; do lab_metric "$k" "$v"; done <"$LAB_WORK/$tag.metrics"
    lab_metric "${tag}_ce_rcvd" $(($(counter_sum cc_ecn_ce_rcvd mr) - ce0))
    echo "$drops" >"$LAB_WORK/$tag.drops"
    rdma statistic show link mr/1 >"$LAB_OUT/$tag-receiver-counters.txt" 2>&1
    rdma statistic show link mh1/1 >"$LAB_OUT/$tag-h1-counters.txt" 2>&1
}

for n in $INCAST_NS; do
    [ "$n" -le "$NMAX" ] || continue
    for mode in $INCAST_MODES; do
        lab_log "incast $mode N=$n"
        incast "$mode" "$n"
    done
    if [ -f "$LAB_WORK/on_n$n.drops" ] && [ -f "$LAB_WORK/off_n$n.drops" ]; then
        lab_check "n$n-credits-drop-no-more-than-off" \
            test "$(cat "$LAB_WORK/on_n$n.drops")" -le "$(cat "$LAB_WORK/off_n$n.drops")"
    fi
done

# --- convergence: a long flow, a second one joins; per-flow goodput sampled from
# the receiver's QPs every second; report only ----------------------------------
converge() {	# converge MODE
    local mode=$1 secs=$((INCAST_SECS * 2)) j
    cc_set "$mode"
    for j in 1 2; do
        ip netns exec r timeout "$T" $PERF_NICE ib_write_bw $INCAST_BW_OPTS -d mr -x "$GID_R" -p $((18600 + j)) -s 65536 \
            -D "$secs" -F >"$LAB_WORK/conv-$mode-srv$j.out" 2>&1 &
    done
    sleep 2
    client h1 mh1 18601 "$secs" "$LAB_WORK/conv-$mode-cli1.out" &
    sleep $((secs / 3))
    client h2 mh2 18602 "$secs" "$LAB_WORK/conv-$mode-cli2.out" &
    local t0
    t0=$(date +%s.%N)
    rm -f "$LAB_WORK/conv-$mode.stop"
    rx_sampler "conv-$mode" &
    local sampler=$!
    sleep $((secs * 2 / 3))
    touch "$LAB_WORK/conv-$mode.stop"
    wait "$sampler"
    wait
    cp "$LAB_WORK/conv-$mode.samples" "$LAB_OUT/"
    # per interval between samples: "seconds-since-the-second-flow rate..."
    python3 - "$LAB_WORK/conv-$mode.samples" "$t0" >"$LAB_OUT/conv-$mode-rates.txt" <<'PY'
import sys
from collections import OrderedDict
snap = OrderedDict()
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3:
        snap.setdefault(f[0], {})[f[1]] = int(f[2], 0)
t0, times = float(sys.argv[2]), list(snap)
for a, b in zip(times, times[1:]):
    qs = sorted((q for q in snap[b] if q in snap[a]), key=int)
    secs = float(b) - float(a)
    r = [((snap[b][q] - snap[a][q]) & 0xffffff) * 4096 * 8 / secs / 1e6 for q in qs]
    print(f"{float(b) - t0:.1f} " + " ".join(f"{x:.3f}" for x in r))
PY
    # converged: the end of the second of two consecutive sampling intervals
    # in which both flows run and the slower gets at least 2/3 of the faster
    # (|a - b| / (a + b) < 0.2), in seconds after the second flow was started
    local conv
    conv=$(python3 - "$LAB_OUT/conv-$mode-rates.txt" <<'PY'
import sys
ok = 0
for line in open(sys.argv[1]):
    f = [float(x) for x in line.split()]
    if len(f) == 3 and f[1] > 0 and f[2] > 0 and abs(f[1] - f[2]) / (f[1] + f[2]) < 0.2:
        ok += 1
        if ok == 2:
            print(f"{f[0]:.1f}")
            break
    else:
        ok = 0
else:
    print(-1)
PY
)
    lab_metric "conv_${mode}_s" "$conv"
}
if [ "$INCAST_CONV" = 1 ]; then
    for mode in on off; do converge "$mode"; done
fi

# --- latency through the bottleneck: idle vs loaded by a bulk flow ----------
# The ping sleeps on CQ events at the normal priority (INCAST_LAT_OPTS): two
# busy-polling pingers on the VM's one vCPU take turns at the scheduler tick,
# which measured 4.0 ms idle whatever the network did.
send_lat() {	# send_lat TAG [CLI_NS SRV_NS SRV_IP] -> typical latency (us) of 64-byte sends
    local cns=${2:-h2} sns=${3:-r} sip=${4:-10.98.0.100}
    # shellcheck disable=SC2086 # a list of options
    ip netns exec "$sns" timeout "$T" $INCAST_LAT_PIN ib_send_lat $INCAST_LAT_SRV_OPTS -d "m$sns" -x "$(lab_gid_index "m$sns")" \
        -p 18701 -s 64 -n "$INCAST_LAT_ITERS" -F >"$LAB_WORK/lat-$1-srv.out" 2>&1 &
    sleep 2
    # shellcheck disable=SC2086
    lab_retry 10 2 ip netns exec "$cns" timeout "$T" $INCAST_LAT_PIN ib_send_lat $INCAST_LAT_OPTS -d "m$cns" \
        -x "$(lab_gid_index "m$cns")" -p 18701 -s 64 -n "$INCAST_LAT_ITERS" -F "$sip" \
        >"$LAB_WORK/lat-$1-cli.out" 2>&1
    wait
    cp "$LAB_WORK/lat-$1-cli.out" "$LAB_WORK/lat-$1-srv.out" "$LAB_OUT/"
    # columns: bytes iterations t_min t_max t_typical ...
    awk -v n="$INCAST_LAT_ITERS" '$1 == 64 && $2 == n && $3 ~ /^[0-9.]+$/ {print $5; exit}' "$LAB_WORK/lat-$1-cli.out"
}

# icmp_rtt NS IP -> median RTT (us) of 40 kernel ICMP echoes (no RDMA, no
# user-space wake-up on the path: the bottleneck queue plus the softirq work)
icmp_rtt() {
    ip netns exec "$1" ping -n -c 40 -i 0.05 -s 56 "$2" 2>/dev/null |
        awk -F'time=' 'NF > 1 {split($2, a, " "); printf "%.0f\n", a[1] * 1000}' | sort -n |
        awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}'
}

# set_leaf red|fq_codel: the bottleneck's queue (HTB class 1:10)
set_leaf() {
    # a qdisc cannot be replaced by one of another kind under the same handle
    tc -n sw qdisc del dev vr parent 1:10 handle 10: 2>/dev/null
    if [ "$1" = fq_codel ]; then
        # shellcheck disable=SC2086
        tc -n sw qdisc add dev vr parent 1:10 handle 10: fq_codel $INCAST_FQ_CODEL ecn
    else
        # shellcheck disable=SC2086
        tc -n sw qdisc add dev vr parent 1:10 handle 10: red $INCAST_RED \
            bandwidth "${INCAST_RATE_MBIT}mbit" ecn
    fi
}

# qp_drv DEV FIELD...: one line "time VALUE..." per RC QP of DEV, the values
# of its driver attributes drv_FIELD (rdma resource show qp -dd)
qp_drv() {
    local dev=$1
    shift
    rdma -dd res show qp link "$dev/1" 2>/dev/null | awk -v t="$(date +%s.%N)" -v f="$*" '
        / type RC / {
            for (i = 1; i < NF; i++) v[$i] = $(i + 1)
            n = split(f, k, " ")
            line = t
            for (j = 1; j <= n; j++) line = line " " v["drv_" k[j]]
            print line
        }'
}

# lat_probe TAG: every INCAST_PROBE_S (0.1 s) until $LAB_WORK/TAG.stop, "time
# backlog_bytes backlog_pkts red_bytes_sent cpu..." into TAG.q; every fifth
# sample the bulk sender's QP telemetry (srtt, min_rtt, cwnd, delay) into TAG.qp
lat_probe() {
    renice -n -15 -p "$BASHPID" >/dev/null
    : >"$LAB_WORK/$1.q"
    : >"$LAB_WORK/$1.qp"
    local k=0
    while [ ! -e "$LAB_WORK/$1.stop" ]; do
        echo "$(date +%s.%N) $(leaf_stats | cut -d' ' -f1-3) $(head -1 /proc/stat)" >>"$LAB_WORK/$1.q"
        if [ $((k++ % 5)) = 0 ]; then
            qp_drv mh1 srtt_us min_rtt_us cwnd delay_us inflight >>"$LAB_WORK/$1.qp"
        fi
        sleep "$INCAST_PROBE_S"
    done
}

# lat_stats TAG T0 T1: metrics from lat-TAG's probe files between T0 and T1
# (the window after the loaded ping): the bottleneck backlog (mean, median,
# max, share of samples with an empty queue), what it forwarded, the vCPU's
# idle share, the bulk QP's srtt / min_rtt / cwnd (lat_probe)
lat_stats() {
    local k v
    python3 - "$LAB_WORK/lat-$1.q" "$LAB_WORK/lat-$1.qp" "$2" "$3" "lat_$1" <<'PY' | while read -r k v; do lab_metric "$k" "$v"; done
import sys
t0, t1, tag = float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
q = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 12 and f[4] == "cpu":
        q.append((float(f[0]), int(f[1]), int(f[2]), int(f[3]), [int(x) for x in f[5:13]]))
q = [r for r in q if t0 <= r[0] <= t1]
if len(q) >= 2:
    b = sorted(r[1] for r in q)
    print(f"{tag}_q_mean_b {sum(b) / len(b):.0f}")
    print(f"{tag}_q_median_b {b[len(b) // 2]}")
    print(f"{tag}_q_max_b {b[-1]}")
    print(f"{tag}_q_empty_pct {100.0 * sum(1 for x in b if x == 0) / len(b):.0f}")
    print(f"{tag}_q_samples {len(b)}")
    dt = q[-1][0] - q[0][0]
    print(f"{tag}_link_mbit {(q[-1][3] - q[0][3]) * 8 / dt / 1e6:.3f}")
    d = [y - x for x, y in zip(q[0][4], q[-1][4])]
    print(f"{tag}_cpu_idle_pct {100.0 * d[3] / (sum(d) or 1):.1f}")
    print(f"{tag}_cpu_softirq_pct {100.0 * d[6] / (sum(d) or 1):.1f}")
s = []
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 6 and t0 <= float(f[0]) <= t1:
        s.append([int(x) for x in f[1:]])
if s:
    for i, name in enumerate(("srtt_us", "min_rtt_us", "cwnd", "delay_us", "inflight")):
        print(f"{tag}_bulk_{name} {sum(x[i] for x in s) / len(s):.0f}")
PY
}

# ping_counters TAG: what the ping's two devices counted while send_lat TAG
# ran, as metrics lat_TAG_DEV_NAME.  mh2 carries the ping alone; on mr the
# requester's counters (RTOs, probes, window and credit waits) are the
# ping's replies', the receiver's (CE marks) include the bulk flow's
LAT_COUNTERS="sent_pkts retransmits loss_detected rto_expired spurious_rtos rto_waited tail_loss_probes
cc_cwnd_limited cc_credit_limited cc_pace_deferred cc_ecn_ce_rcvd cc_decrease rx_out_of_order rx_duplicate"
ping_snap() {	# ping_snap FILE: "DEV NAME VALUE" of mh2's and mr's LAT_COUNTERS
    local d n
    for d in mh2 mr; do
        for n in $LAT_COUNTERS; do echo "$d $n $(mro_counter "$d" "$n")"; done
    done >"$1"
}
ping_counters() {	# ping_counters TAG BEFORE AFTER
    local k v
    paste "$2" "$3" | awk -v t="lat_$1" '{print t "_" $1 "_" $2, $6 - $3}' |
        while read -r k v; do lab_metric "$k" "$v"; done
}

latency() {	# latency MODE [LEAF [NAME]] (NAME of the CC knobs, for the metrics)
    local mode=$1 leaf=${2:-red} tag idle loaded t0 t1 bulk
    tag=$mode
    [ "$leaf" = red ] || tag="${mode}_$leaf"
    [ -n "$3" ] && tag="${tag}_t$3"
    # a repeated setting gets its own files and metrics: on, on_r2, ...
    LAT_RUNS[$tag]=$((${LAT_RUNS[$tag]:-0} + 1))
    [ "${LAT_RUNS[$tag]}" -gt 1 ] && tag="${tag}_r${LAT_RUNS[$tag]}"
    cc_set "$mode"
    set_leaf "$leaf"
    ping_snap "$LAB_WORK/pc-$tag-0"
    idle=$(send_lat "$tag-idle")
    ping_snap "$LAB_WORK/pc-$tag-1"
    ping_counters "${tag}_idle" "$LAB_WORK/pc-$tag-0" "$LAB_WORK/pc-$tag-1"
    lab_metric "lat_${tag}_icmp_idle_us" "$(icmp_rtt h2 10.98.0.100)"
    # the same ping between two senders: no bottleneck on the way (CPU only)
    [ "$NMAX" -ge 3 ] && lab_metric "lat_${tag}_side_idle_us" "$(send_lat "$tag-side-idle" h2 h3 10.98.0.3)"
    local secs=$((INCAST_SECS * 5))
    ip netns exec r timeout "$T" $PERF_NICE ib_write_bw $INCAST_BW_OPTS -d mr -x "$GID_R" -p 18702 -s 65536 \
        -D "$secs" -F >"$LAB_WORK/lat-$tag-bulk-srv.out" 2>&1 &
    sleep 2
    client h1 mh1 18702 "$secs" "$LAB_WORK/lat-$tag-bulk-cli.out" &
    bulk=$!
    sleep 4
    # the bottleneck's counters around the loaded ping (fq_codel: new_flow_count)
    tc -n sw -s qdisc show dev vr >"$LAB_OUT/lat-$tag-qdisc-before.txt"
    ping_snap "$LAB_WORK/pc-$tag-2"
    t0=$(date +%s.%N)
    loaded=$(send_lat "$tag-loaded")
    t1=$(date +%s.%N)
    ping_snap "$LAB_WORK/pc-$tag-3"
    ping_counters "${tag}_loaded" "$LAB_WORK/pc-$tag-2" "$LAB_WORK/pc-$tag-3"
    tc -n sw -s qdisc show dev vr >"$LAB_OUT/lat-$tag-qdisc-after.txt"
    # the ping must have run while the bulk flow did
    lab_metric "lat_${tag}_bulk_alive" "$(kill -0 "$bulk" 2>/dev/null && echo 1 || echo 0)"
    lab_metric "lat_${tag}_icmp_loaded_us" "$(icmp_rtt h2 10.98.0.100)"
    [ "$NMAX" -ge 3 ] && lab_metric "lat_${tag}_side_loaded_us" "$(send_lat "$tag-side-loaded" h2 h3 10.98.0.3)"
    # The queue, the vCPU and the bulk QP are sampled after the pings, for
    # as long as the loaded ping took, while the bulk flow goes on: on one
    # vCPU the probe (nice -15, forking tc every 0.1 s and rdma every 0.5 s)
    # delays the pings it measures, which makes most of their 99th percentile.
    # The ping QPs' srtt is therefore not sampled.
    rm -f "$LAB_WORK/lat-$tag.stop"
    lat_probe "lat-$tag" &
    local probe=$! p0 p1
    p0=$(date +%s.%N)
    sleep "$(awk -v a="$t0" -v b="$t1" 'BEGIN {d = b - a; print (d < 2 ? 2 : d)}')"
    p1=$(date +%s.%N)
    touch "$LAB_WORK/lat-$tag.stop"
    wait "$probe"
    lab_metric "lat_${tag}_bulk_alive_end" "$(kill -0 "$bulk" 2>/dev/null && echo 1 || echo 0)"
    lat_stats "$tag" "$p0" "$p1"
    cp "$LAB_WORK/lat-$tag.q" "$LAB_WORK/lat-$tag.qp" "$LAB_OUT/"
    wait
    cp "$LAB_WORK/lat-$tag-bulk-cli.out" "$LAB_OUT/" 2>/dev/null
    # the bulk flow's own goodput (perftest average, Mbit/s)
    lab_metric "lat_${tag}_bulk_mbit" "$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ {printf "%.3f", $4 * 1048576 * 8 / 1e6; exit}' \
        "$LAB_WORK/lat-$tag-bulk-cli.out")"
    lab_record "lat-$tag-measured" "$([ -n "$idle" ] && [ -n "$loaded" ] && echo true || echo false)" \
        "idle=$idle loaded=$loaded"
    [ -n "$idle" ] && lab_metric "lat_${tag}_idle_us" "$idle"
    [ -n "$loaded" ] && lab_metric "lat_${tag}_loaded_us" "$loaded"
    # the tail: ib_send_lat's average and 99th percentile, through the
    # bottleneck and between two senders (the CPUs' share of the tail)
    local k c
    for k in idle loaded side-idle side-loaded; do
        [ -f "$LAB_WORK/lat-$tag-$k-cli.out" ] || continue
        for c in avg:6 p99:8; do
            lab_metric "lat_${tag}_${k//-/_}_${c%%:*}_us" "$(awk -v n="$INCAST_LAT_ITERS" -v c="${c#*:}" \
                '$1 == 64 && $2 == n && $3 ~ /^[0-9.]+$/ {print $c; exit}' "$LAB_WORK/lat-$tag-$k-cli.out")"
        done
    done
    set_leaf red
}
declare -A LAT_RUNS
if [ "$INCAST_LAT" = 1 ]; then
    for spec in $INCAST_LAT_MODES; do
        IFS=: read -r mode leaf tgt var <<<"$spec"
        INCAST_TARGET_US=${tgt:-$INCAST_TARGET_US} INCAST_TARGET_VAR_PCT=${var:-$INCAST_TARGET_VAR_PCT} \
            latency "$mode" "${leaf:-red}" "$tgt${var:+v$var}"
    done
fi

tc -n sw -s qdisc show dev vr >"$LAB_OUT/bottleneck-qdisc.txt"
rdma statistic show link mr/1 >"$LAB_OUT/receiver-counters.txt" 2>&1
lab_check dmesg-clean mro_dmesg_clean
