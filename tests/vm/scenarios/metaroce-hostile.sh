#!/bin/bash
# metaroce-hostile (netns topology): hostile packets at live metaroce devices.
# Hosts h1 (10.98.0.1, mr1), h2 (10.98.0.2, mr2) and h3 (10.98.0.3, no device:
# the attacker) on one bridge.  tools/mro-hostile sends malformed and spoofed
# metaroce packets (see its --help for the classes).
#   phase 1: while tools/datacheck runs h1 -> h2 (4 RC QPs, every byte checked),
#     h3 sends every class, including "live" (well-formed packets with the live
#     QPNs and PSNs) to both devices, and h1 (the peer's own address) sends
#     every class but "live" to h2.  The transfer must pass untouched; mr2's
#     drop counters must show each kind of drop (short, version, opcode,
#     hdr_len, crc, field, length, no_qp, qp_mismatch, window).  Then h1 and
#     h2 send "dupreq" (duplicate READ_REQs that fail the responder's checks)
#     at each other's live QPs from the peer's own address: the transfer must
#     still pass, nothing may be NAKed, rx_drop_dup_req counts; and
#     "feedback" (CE-marked PROBEs, responses and requests outside the
#     window, CREDITs beyond any window): no ECN mark may be echoed.
#     The first of those runs is traced (skb:kfree_skb): the drops must
#     show the reasons of usage.rst's "Drop tracing" table.
#   phase 1b: requests that fail ahead of the next expected PSN must be
#     dropped, not NAKed, but the one at that PSN legitimately ends the
#     connection, and a moving transfer can reach any PSN aimed ahead of a
#     position read earlier.  So tools/mro-idle holds a connection of two
#     QPs of mr2 still at a known PSN while h2 sends it "errors": it must
#     then carry checked SENDs and WRITEs, rx_drop_error_ahead counts and
#     nothing is NAKed.  A second one, receiving from an SRQ, gets "partial"
#     (first packets of two messages that never finish) and is moved to ERR:
#     the two SRQ WQEs those messages took must be flushed.  A third holds a
#     SEND out (no receive WQE: RNR) while h2 forges "ackforge" ACKs and NAKs
#     at its client: none may complete or fail it (rx_drop_ack_echo,
#     rx_drop_ack_range count them), nor may "feedback"'s CREDITs at its
#     position granting past any window move its grant (cc_bad_feedback);
#     once the WQE is posted it arrives whole.
#   phase 1c: an unprivileged user (uid 65534) on h1 and on h2 sends packets
#     at mr2: they come from no path source port (512-1023), so every one is
#     dropped before decode (rx_drop_sport) and nothing else counts them.
#   phase 1d: an unprivileged user races the indices and WQEs of its own
#     queue rings while it posts, flushes and destroys (tools/ringrace):
#     every call returns, no soft lockup or hung task is reported.
#   phase 2: while ib_write_bw runs h1 -> h2, h1 and h2 send "live" packets at
#     each other's QPs from the peers' own addresses (what an on-path spoofer
#     could do).  The transfer may fail (RDMA has no authentication); the kernel
#     must not: afterwards a fresh datacheck passes, the devices are deleted,
#     the module unloads (while h3 floods both devices), and dmesg is clean.
# Files (--files): metaroce.ko, metaroce-lib.sh, datacheck, ringrace, mro-hostile,
# mro-idle.
# Example:
#   tests/vm/run.sh --dist bookworm --topology netns --timeout 1800 \
#       --scenario tests/vm/scenarios/metaroce-hostile.sh \
#       --files out/bookworm/*/metaroce.ko tests/vm/scenarios/metaroce-lib.sh \
#               tools/datacheck/datacheck tools/mro-hostile tools/mro-idle
source "$LAB_LIB"
source "$LAB_FILES/metaroce-lib.sh"

DC=$LAB_FILES/datacheck
HOSTILE=$LAB_FILES/mro-hostile
IDLE=$LAB_FILES/mro-idle
N=${MRO_HOSTILE_COUNT:-300}
T=${MRO_TEST_TIMEOUT:-600}
DC_OK='^datacheck: role=[a-z]+ qps=[0-9]+ ops=[1-9][0-9]* bytes=[0-9]+ mismatches=0 errors=0 '

mro_install
lab_check modprobe-metaroce modprobe metaroce || exit 1
modprobe -a ib_uverbs rdma_ucm
lab_netns_hosts 3
for i in 1 2; do
    lab_check "link-add-mr$i" ip netns exec "h$i" rdma link add "mr$i" type metaroce netdev eth0 ||
        exit 1
    lab_check "active-mr$i" mro_wait_state "mr$i" ACTIVE || exit 1
done
lab_check ping-h2 ip netns exec h1 ping -c 2 -W 2 10.98.0.2

# live_qps DEV FIELD: FIELD (lqpn or rqpn) of DEV's RC QPs in RTR or RTS (a perftest
# server's stay in RTR), comma-separated
live_qps() {
    rdma -j resource show qp link "$1/1" |
        jq -r --arg f "$2" '[.[] | select(.type == "RC" and (.state == "RTS" or .state == "RTR")) | .[$f]] |
            map(tostring) | join(",")'
}
# live_psns DEV KEY: the driver attribute KEY (rcv_psn, snd_nxt: hex) of DEV's RC QPs
live_psns() {
    rdma -dd resource show qp link "$1/1" | grep -oE "$2 0x[0-9a-f]+" | awk '{print $2}' |
        sed 's/^0x//' | paste -sd,
}
# qp_psns DEV KEY QPNS: the driver attribute KEY of each QP of QPNS (comma list),
# in that order
qp_psns() {
    local q
    for q in ${3//,/ }; do
        rdma -dd resource show qp link "$1/1" lqpn "$q" | grep -oE "$2 0x[0-9a-f]+" |
            awk '{print $2}' | sed 's/^0x//'
    done | paste -sd,
}
# wait_qps DEV N: until DEV has N RC QPs in RTR or RTS (120 tries)
wait_qps() {
    local i q
    for i in $(seq 120); do
        q=$(live_qps "$1" lqpn)
        [ -n "$q" ] && [ "$(tr ',' '\n' <<<"$q" | wc -l)" -ge "$2" ] && { echo "$q"; return 0; }
        sleep 0.5
    done
    echo "$1: fewer than $2 RC QPs in RTS: '$q'"
    return 1
}
# hostile NS TARGET ARGS...: run mro-hostile from namespace NS
hostile() {
    local ns=$1 target=$2
    shift 2
    ip netns exec "$ns" timeout "$T" python3 "$HOSTILE" "$target" -n "$N" "$@"
}

# --- phase 1: a checked transfer under fire ---------------------------------
lab_log "phase 1: datacheck h1 -> h2 while h3 and h1 send hostile packets"
ip netns exec h2 timeout -k 30 "$T" "$DC" -s -p 18600 -T 120 >"$LAB_WORK/dc1-server.log" 2>&1 &
srv=$!
sleep 2
# long enough to outlast the hostile runs below (dc1-client-alive checks it):
# three quarters of the test timeout (450 s; 675 s on the debug kernel,
# MRO_TEST_TIMEOUT=900), ended by mro_dc_finish once they are done
ip netns exec h1 timeout -k 30 "$T" "$DC" -c 10.98.0.2 -p 18600 -q 4 -t $((T * 3 / 4)) -T 120 \
    >"$LAB_WORK/dc1-client.log" 2>&1 &
cli=$!
lab_check dc1-qps-up wait_qps mr2 4
q2=$(live_qps mr2 lqpn); r2=$(live_qps mr2 rqpn)
q1=$(live_qps mr1 lqpn); r1=$(live_qps mr1 rqpn)
p2=$(live_psns mr2 rcv_psn); p1=$(live_psns mr1 snd_nxt)
lab_log "mr2 QPs $q2 (peers $r2, rcv_psn $p2); mr1 QPs $q1 (peers $r1, snd_nxt $p1)"
# an unprivileged user sees the QPs but not their PSNs: neither metaroce's
# attributes nor the core's rq-psn/sq-psn (read through query_qp: 0), nor
# the paths' source ports
ip netns exec h2 setpriv --reuid=65534 --regid=65534 --clear-groups \
    rdma -dd resource show qp link mr2/1 >"$LAB_OUT/qp-unprivileged.txt" 2>&1
rdma -dd resource show qp link mr2/1 >"$LAB_OUT/qp-root.txt" 2>&1
lab_check_grep unprivileged-sees-qps 'lqpn' cat "$LAB_OUT/qp-unprivileged.txt"
lab_check unprivileged-no-psns sh -c "! grep -E 'snd_una|snd_nxt|rcv_psn|credit_psn|grant_psn|_sport' '$LAB_OUT/qp-unprivileged.txt'"
lab_check unprivileged-core-psns-zero sh -c "grep -q 'sq-psn 0 ' '$LAB_OUT/qp-unprivileged.txt' &&
    ! grep -E '(rq|sq)-psn [1-9]' '$LAB_OUT/qp-unprivileged.txt'"
lab_check root-sees-psns sh -c "grep -q rcv_psn '$LAB_OUT/qp-root.txt' &&
    grep -q p0_sport '$LAB_OUT/qp-root.txt'"
lab_check_grep root-sees-core-psns 'sq-psn [1-9]' cat "$LAB_OUT/qp-root.txt"
b2=$(mro_snap mr2); b1=$(mro_snap mr1)
all=garbage,short,crc,header,fields,window
# the first run under the kernel's drop tracepoint: metaroce frees what it
# refuses with kfree_skb_reason() (usage.rst, "Drop tracing")
TR=/sys/kernel/tracing
mro_trace_reset 8192
echo 1 >"$TR/events/skb/kfree_skb/enable"
echo 1 >"$TR/events/metaroce/mro_rx_drop/enable"
lab_check hostile-h1-to-h2 hostile h1 10.98.0.2 -c "$all" -q "$q2" -Q "$r2" -P "$p2" -s 3
echo 0 >"$TR/events/skb/kfree_skb/enable"
echo 0 >"$TR/events/metaroce/mro_rx_drop/enable"
cp "$TR/trace" "$LAB_OUT/drop-trace.txt"
echo >"$TR/trace"
for r in PKT_TOO_SMALL UNHANDLED_PROTO DEV_HDR SKB_CSUM NO_SOCKET TCP_OVERWINDOW; do
    lab_check_grep "drop-traced-$r" "reason: $r" grep -m1 "reason: $r" "$LAB_OUT/drop-trace.txt"
done
# and metaroce's own event names the rule (a matched QP's refusals)
for v in window field; do
    lab_check_grep "rx-drop-traced-$v" "mro_rx_drop: .* $v\$" \
        grep -m1 -E "mro_rx_drop: .* $v\$" "$LAB_OUT/drop-trace.txt"
done
lab_check hostile-h2-to-h1 hostile h2 10.98.0.1 -c "$all" -q "$q1" -Q "$r1" -P "$p1" -s 4
lab_check hostile-h3-to-h2 hostile h3 10.98.0.2 -c "$all,live" -q "$q2" -Q "$r2" -P "$p2" -s 1
lab_check hostile-h3-to-h1 hostile h3 10.98.0.1 -c "$all,live" -q "$q1" -Q "$r1" -P "$p1" -s 2
# congestion feedback no packet of the connection carries, CE-marked
lab_check feedback-h1-to-h2 hostile h1 10.98.0.2 -c feedback -n 200 \
    -q "$q2" -Q "$r2" -P "$p2" -s 31
lab_check feedback-h2-to-h1 hostile h2 10.98.0.1 -c feedback -n 200 \
    -q "$q1" -Q "$r1" -P "$p1" -s 32
# duplicate requests that fail the responder's checks, from the peer's own
# address and QPN, behind the live positions read afresh each round
for i in 1 2; do
    q2=$(live_qps mr2 lqpn); r2=$(live_qps mr2 rqpn); p2=$(qp_psns mr2 rcv_psn "$q2")
    q1=$(live_qps mr1 lqpn); r1=$(live_qps mr1 rqpn); p1=$(qp_psns mr1 rcv_psn "$q1")
    lab_check "dupreq-h1-to-h2-$i" hostile h1 10.98.0.2 -c dupreq -n 60 \
        -q "$q2" -Q "$r2" -P "$p2" -s $((10 + i))
    lab_check "dupreq-h2-to-h1-$i" hostile h2 10.98.0.1 -c dupreq -n 60 \
        -q "$q1" -Q "$r1" -P "$p1" -s $((20 + i))
done
a2=$(mro_snap mr2); a1=$(mro_snap mr1)
lab_check dc1-client-alive kill -0 $cli
mro_dc_finish	# the hostile runs are over: the transfer may end
wait $cli; wait $srv
cp "$LAB_WORK"/dc1-*.log "$LAB_OUT/"
lab_check_grep dc1-client "$DC_OK" cat "$LAB_WORK/dc1-client.log"
lab_check_grep dc1-server "$DC_OK" cat "$LAB_WORK/dc1-server.log"
printf '%s\n---\n%s\n' "$b2" "$a2" >"$LAB_OUT/mr2-counters-phase1.txt"
printf '%s\n---\n%s\n' "$b1" "$a1" >"$LAB_OUT/mr1-counters-phase1.txt"
for c in rx_drop_short rx_drop_version rx_drop_opcode rx_drop_hdr_len rx_drop_crc \
        rx_drop_field rx_drop_length rx_drop_no_qp rx_drop_qp_mismatch rx_drop_window; do
    d=$(mro_delta "$b2" "$a2" "$c")
    lab_metric "mr2_$c" "$d"
    lab_check "mr2-counted-$c" test "$d" -gt 0
    lab_metric "mr1_$c" "$(mro_delta "$b1" "$a1" "$c")"
done
lab_check no-retry-exceeded test "$(mro_delta "$b1" "$a1" retry_exceeded)" -eq 0
# the failing requests were dropped and counted, none NAKed; no forged CE
# mark was taken (the bridge marks nothing)
for c in rx_drop_dup_req nak_sent cc_ecn_echoed; do
    d=$(( $(mro_delta "$b1" "$a1" "$c") + $(mro_delta "$b2" "$a2" "$c") ))
    lab_metric "hostile_$c" "$d"
    case $c in
    nak_sent|cc_ecn_echoed) lab_check "hostile-no-$c" test "$d" -eq 0 ;;
    *) lab_check "hostile-counted-$c" test "$d" -gt 0 ;;
    esac
done

# --- phase 1b: failing requests at a connection that stands still -----------
lab_log "phase 1b: errors and partial messages at idle connections of mr2"
G2=$(lab_gid_index mr2)
# idle_start NAME ARGS...: mro-idle in h2, output in $LAB_WORK/NAME.out;
# sets ipid
idle_start() {
    local name=$1
    shift
    rm -f "$LAB_WORK/$name.go"
    ip netns exec h2 timeout "$T" python3 "$IDLE" -d mr2 -x "$G2" -P 0x2000 \
        -w "$LAB_WORK/$name.go" "$@" >"$LAB_WORK/$name.out" 2>&1 &
    ipid=$!
}
# idle_qpns NAME: "CLIENT SERVER", the QPNs mro-idle NAME printed (60 s)
idle_qpns() {
    local i
    for i in $(seq 120); do
        grep -q '^mro-idle: client QPN' "$LAB_WORK/$1.out" && break
        sleep 0.5
    done
    sed -n 's/^mro-idle: client QPN \([0-9]*\) server QPN \([0-9]*\) .*/\1 \2/p' \
        "$LAB_WORK/$1.out" | grep . || { cat "$LAB_WORK/$1.out"; return 1; }
}
# idle_end NAME CHECK: let mro-idle go on; CHECK is its exit status
idle_end() {
    local rc
    touch "$LAB_WORK/$1.go"
    wait "$ipid"
    rc=$?
    lab_check "$2" sh -c "cat '$LAB_WORK/$1.out'; exit $rc"
    cp "$LAB_WORK/$1.out" "$LAB_OUT/"
}
b2=$(mro_snap mr2)
idle_start idle
if lab_check idle-up idle_qpns idle; then
    read -r icli isrv <<<"$(idle_qpns idle)"
    lab_check errors-at-idle hostile h2 10.98.0.2 -c errors -n 120 \
        -q "$isrv" -Q "$icli" -P 2000 -s 41
fi
idle_end idle idle-survives-errors
idle_start idle-srq --srq --flush 2
if lab_check idle-srq-up idle_qpns idle-srq; then
    read -r icli isrv <<<"$(idle_qpns idle-srq)"
    lab_check partial-at-idle-srq hostile h2 10.98.0.2 -c partial \
        -q "$isrv" -Q "$icli" -P 2000 -s 42
fi
idle_end idle-srq idle-srq-flushes-partial
idle_start idle-pending --pending
if lab_check idle-pending-up idle_qpns idle-pending; then
    read -r icli isrv <<<"$(idle_qpns idle-pending)"
    lab_check ackforge-at-idle-pending hostile h2 10.98.0.2 -c ackforge -n 40 \
        -q "$icli" -Q "$isrv" -P 2000 -s 43
    # CREDITs at its position (a CREDIT's PSN must be in an ACK's bounds)
    # granting past any window: dropped (cc_bad_feedback)
    lab_check feedback-at-idle-pending hostile h2 10.98.0.2 -c feedback -n 40 \
        -q "$icli" -Q "$isrv" -P 2000 -s 44
fi
idle_end idle-pending idle-pending-survives-ackforge
a2=$(mro_snap mr2)
for c in rx_drop_dup_req rx_drop_error_ahead rx_srq_wqe_flushed \
    rx_drop_ack_echo rx_drop_ack_range cc_bad_feedback; do
    d=$(mro_delta "$b2" "$a2" "$c")
    lab_metric "idle_$c" "$d"
    lab_check "idle-counted-$c" test "$d" -gt 0
done
lab_check idle-no-nak_sent test "$(mro_delta "$b2" "$a2" nak_sent)" -eq 0

# --- phase 1c: an unprivileged local user -----------------------------------
lab_log "phase 1c: an unprivileged user on h1 and on h2 sends at mr2"
install -m 0755 "$HOSTILE" /tmp/mro-hostile-user
# unprivileged NS ARGS...: mro-hostile as uid 65534 (no path source port)
unprivileged() {
    local ns=$1
    shift
    ip netns exec "$ns" setpriv --reuid=65534 --regid=65534 --clear-groups \
        timeout "$T" python3 /tmp/mro-hostile-user "$@"
}
b2=$(mro_snap mr2)
lab_check unprivileged-h1-to-h2 unprivileged h1 10.98.0.2 -c fields,live -n 100 -s 51
lab_check unprivileged-h2-to-h2 unprivileged h2 10.98.0.2 -c fields,live -n 100 -s 52
a2=$(mro_snap mr2)
d=$(mro_delta "$b2" "$a2" rx_drop_sport)
lab_metric unprivileged_rx_drop_sport "$d"
lab_check unprivileged-all-dropped-sport test "$d" -eq 400
for c in rx_drop_no_qp rx_drop_field rx_drop_qp_mismatch rx_drop_window; do
    lab_check "unprivileged-no-$c" test "$(mro_delta "$b2" "$a2" "$c")" -eq 0
done

# --- phase 1d: an unprivileged user races its own queue rings ---------------
# tools/ringrace as uid 65534 (the uverbs nodes world-writable, as
# rdma-core's udev rule makes them): random indices and WQEs in its rings
# while it posts, polls, flushes and destroys.  Every verbs call returns; the
# soft-lockup and hung-task reports stay away (dmesg-clean); the device works
# on (phase 2, afterwards)
lab_log "phase 1d: an unprivileged user races its own rings on mr1"
chmod 0666 /dev/infiniband/uverbs*
install -m 0755 "$LAB_FILES/ringrace" /tmp/ringrace-user
lab_check ringrace-unprivileged sh -c "ip netns exec h1 setpriv --reuid=65534 --regid=65534 \
    --clear-groups timeout $T /tmp/ringrace-user -d mr1 -n 200 -t 60 -s 7 >'$LAB_OUT/ringrace.txt' 2>&1
    rc=\$?; cat '$LAB_OUT/ringrace.txt'; exit \$rc"
lab_metric ringrace_longest_round_s "$(sed -n 's/^ringrace:.* longest \([0-9.]*\) s.*/\1/p' "$LAB_OUT/ringrace.txt")"
lab_metric ringrace_user_faults "$(sed -n 's/^ringrace:.*, \([0-9]*\) ended by a fault.*/\1/p' "$LAB_OUT/ringrace.txt")"
w=$(awk '/^round/ { for (i = 1; i < NF; i++) if ($(i + 1) == "ring") n += $i } END { print n + 0 }' \
    "$LAB_OUT/ringrace.txt")
lab_metric ringrace_ring_writes "$w"
lab_check ringrace-raced test "$w" -gt 1000

# --- phase 2: spoofed packets from the peers' own addresses ------------------
lab_log "phase 2: ib_write_bw h1 -> h2 while h1 and h2 send live spoofed packets"
G1=$(lab_gid_index mr1)
ip netns exec h2 timeout "$T" ib_write_bw -d mr2 -x "$G2" -q 2 -s 65536 -D 30 -F \
    >"$LAB_WORK/bw-server.out" 2>&1 &
srv=$!
# one client run (a retried one would hide a failed transfer)
mro_wait_listen h2 18515 >"$LAB_WORK/bw-client.out"
ip netns exec h1 timeout "$T" ib_write_bw -d mr1 -x "$G1" -q 2 -s 65536 -D 30 \
    -F 10.98.0.2 >>"$LAB_WORK/bw-client.out" 2>&1 &
cli=$!
lab_check bw-qps-up wait_qps mr2 2
q2=$(live_qps mr2 lqpn); r2=$(live_qps mr2 rqpn)
q1=$(live_qps mr1 lqpn); r1=$(live_qps mr1 rqpn)
p2=$(live_psns mr2 rcv_psn); p1=$(live_psns mr1 snd_nxt)
lab_check hostile-live-h1-to-h2 hostile h1 10.98.0.2 -c live -q "$q2" -Q "$r2" -P "$p2" -s 5
lab_check hostile-live-h2-to-h1 hostile h2 10.98.0.1 -c live -q "$q1" -Q "$r1" -P "$p1" -s 6
# the transfer may end in an error: spoofing a live connection is not survivable
wait $cli; lab_metric bw_client_rc $?
kill $srv 2>/dev/null; wait $srv
cp "$LAB_WORK"/bw-*.out "$LAB_OUT/"
mro_snap mr1 >"$LAB_OUT/mr1-counters-phase2.txt"
mro_snap mr2 >"$LAB_OUT/mr2-counters-phase2.txt"

# --- afterwards: the devices and the module are fine -------------------------
lab_log "after: a fresh datacheck, then delete the devices and unload"
ip netns exec h2 timeout -k 30 "$T" "$DC" -s -p 18601 -T 120 >"$LAB_WORK/dc2-server.log" 2>&1 &
srv=$!
sleep 2
ip netns exec h1 timeout -k 30 "$T" "$DC" -c 10.98.0.2 -p 18601 -q 2 -n 1 -T 120 \
    >"$LAB_WORK/dc2-client.log" 2>&1
wait $srv
cp "$LAB_WORK"/dc2-*.log "$LAB_OUT/"
lab_check_grep dc2-client "$DC_OK" cat "$LAB_WORK/dc2-client.log"
lab_check_grep dc2-server "$DC_OK" cat "$LAB_WORK/dc2-server.log"
# teardown under a flood: h3 keeps sending malformed and well-formed packets
# at both devices (at QPNs of theirs, if any are left) while the links go
# and the module unloads
q2=$(live_qps mr2 lqpn); q1=$(live_qps mr1 lqpn)
flood=""
for i in 1 2 3 4; do
    ip netns exec h3 timeout 120 python3 "$HOSTILE" "10.98.0.$((i % 2 + 1))" \
        -c window,live,garbage -n 100000 -q "$q1,$q2" -s $((50 + i)) >/dev/null 2>&1 &
    flood="$flood $!"
done
sleep 2
lab_check link-delete-mr1 ip netns exec h1 rdma link delete mr1
lab_check link-delete-mr2 ip netns exec h2 rdma link delete mr2
lab_check mr1-gone mro_gone mr1
lab_check mr2-gone mro_gone mr2
lab_check rmmod-metaroce rmmod metaroce
# shellcheck disable=SC2086 # the PIDs are words
kill $flood 2>/dev/null
# shellcheck disable=SC2086
wait $flood
lab_check dmesg-clean mro_dmesg_clean
