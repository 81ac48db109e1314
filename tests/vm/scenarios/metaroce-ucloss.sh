#!/bin/bash
# metaroce-ucloss (netns topology): UC under loss inside one VM. Namespace h1
# receives, h2 sends tools/ucstream's UC SENDs (4 KiB, 4 packets each at MTU
# 1024) through netem loss and reordering on h2's eth0. UC never retransmits:
# the receiver must drop the damaged messages and go on completing the later
# ones, intact and in order (>= 85 % of them, including one of the last 5 %),
# and count the dropped messages. Before UC loss handling this stopped at the
# first lost packet.
#
# Then the same stream, slower, while h2 (the sender's own address) sends
# forged UC SENDs at h1's UC QP (tools/mro-hostile class ucjump: a PSN far
# past the window, a message number far past the next one): the stream must
# still pass, the far PSNs counted as rx_drop_window.
#
# Files (--files): metaroce.ko, metaroce-lib.sh, ucstream (tools/ucstream),
# mro-hostile (tools/mro-hostile).
source "$LAB_LIB"
source "$LAB_IN/files/metaroce-lib.sh"

T=${MRO_TEST_TIMEOUT:-240}
UCS=$LAB_FILES/ucstream
UC_NETEM="loss 1% reorder 25% 50% delay 1ms"

lab_check ucstream-present test -x "$UCS" || exit 1
mro_install
lab_check modprobe-metaroce modprobe metaroce || exit 1
modprobe ib_uverbs
lab_netns_hosts 2
lab_check link-add-mr1 ip netns exec h1 rdma link add mr1 type metaroce netdev eth0 || exit 1
lab_check link-add-mr2 ip netns exec h2 rdma link add mr2 type metaroce netdev eth0 || exit 1
lab_check active-mr1 mro_wait_state mr1 ACTIVE || exit 1
lab_check active-mr2 mro_wait_state mr2 ACTIVE || exit 1
G1=$(lab_gid_index mr1) || exit 1
G2=$(lab_gid_index mr2) || exit 1
modprobe sch_netem
# shellcheck disable=SC2086
lab_check netem-add ip netns exec h2 tc qdisc add dev eth0 root netem $UC_NETEM || exit 1

ip netns exec h1 timeout "$T" "$UCS" -d mr1 -g "$G1" -n 2000 -s 4096 -T 30 \
    >"$LAB_WORK/receiver.out" 2>&1 &
rcv=$!
sleep 1
lab_check_grep uc-loss-sender '^ucstream: sent=2000' \
    ip netns exec h2 timeout "$T" "$UCS" -d mr2 -g "$G2" -n 2000 -s 4096 10.98.0.1
wait $rcv
rc=$?
lab_check uc-loss-receiver sh -c "cat '$LAB_WORK/receiver.out'; exit $rc"
cp "$LAB_WORK/receiver.out" "$LAB_OUT/"
ip netns exec h2 tc -s qdisc show dev eth0
lab_metric uc_loss_received "$(sed -n 's/^ucstream: received=\([0-9]*\).*/\1/p' "$LAB_WORK/receiver.out")"
for c in rx_uc_msg_dropped rx_uc_psn_lost rx_out_of_order rx_duplicate; do
    v=$(mro_counter mr1 "$c" 2>/dev/null || echo missing)
    lab_metric "mr1_$c" "$v"
done
lab_check uc-loss-dropped-counted test "$(mro_counter mr1 rx_uc_msg_dropped 2>/dev/null || echo 0)" -gt 0

# --- forged UC packets from the sender's own address ------------------------
# uc_qp FIELD: FIELD of mr1's UC QP in RTR or RTS (lqpn, rqpn)
uc_qp() {
    rdma -j resource show qp link mr1/1 |
        jq -r --arg f "$1" '[.[] | select(.type == "UC" and (.state == "RTS" or .state == "RTR")) | .[$f]][0] // empty'
}
if [ -x "$LAB_FILES/mro-hostile" ]; then
    w0=$(mro_counter mr1 rx_drop_window 2>/dev/null || echo 0)
    ip netns exec h1 timeout "$T" "$UCS" -d mr1 -g "$G1" -p 18700 -n 5000 -s 4096 -T 30 \
        >"$LAB_WORK/receiver2.out" 2>&1 &
    rcv=$!
    sleep 1
    ip netns exec h2 timeout "$T" "$UCS" -d mr2 -g "$G2" -p 18700 -n 5000 -s 4096 -i 3000 \
        10.98.0.1 >"$LAB_WORK/sender2.out" 2>&1 &
    snd=$!
    # the stream lasts 15 s or more: the forged packets land early in it
    for i in $(seq 50); do
        [ -n "$(uc_qp lqpn)" ] && break
        sleep 0.2
    done
    for i in 1 2 3; do
        q=$(uc_qp lqpn); r=$(uc_qp rqpn)
        [ -n "$q" ] || continue
        p=$(rdma -dd resource show qp link mr1/1 lqpn "$q" | grep -oE "rcv_psn 0x[0-9a-f]+" |
            awk '{print $2}' | sed 's/^0x//')
        lab_check "ucjump-$i" ip netns exec h2 timeout "$T" python3 "$LAB_FILES/mro-hostile" \
            10.98.0.1 -c ucjump -n 20 -q "$q" -Q "$r" -P "$p" -s "$i"
    done
    wait $snd
    wait $rcv
    rc=$?
    cp "$LAB_WORK"/receiver2.out "$LAB_WORK"/sender2.out "$LAB_OUT/"
    lab_check uc-forged-receiver sh -c "cat '$LAB_WORK/receiver2.out'; exit $rc"
    w1=$(mro_counter mr1 rx_drop_window 2>/dev/null || echo 0)
    lab_metric uc_forged_drop_window $((w1 - w0))
    lab_check uc-forged-counted test $((w1 - w0)) -gt 0
fi

lab_check dmesg-clean mro_dmesg_clean
