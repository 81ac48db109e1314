#!/bin/bash
# metaroce-bond (netns topology): metaroce over a Linux bond.  Namespaces h1
# and h2 are joined by two veth pairs (h1:n1-h2:n1, h1:n2-h2:n2); in each a
# bond0 (balance-xor, xmit_hash_policy layer3+4, miimon 100) enslaves n1 and
# n2 and has 10.3.0.N/24.  metaroce devices mr1 (h1's bond0) and mr2 (h2's
# bond0), 8 paths per QP through the per-device sysfs override (the module is
# loaded with paths=2).  Checks:
#   - the bond: mode and hash policy in /proc/net/bonding/bond0, ping h1 -> h2
#   - devices: rdma link add on bond0 works, ports ACTIVE, a RoCE v2 GID
#   - datacheck (if given): h1 -> h2 over the bond, every byte verified
#   - spreading: ib_write_bw h1 -> h2 (2 QPs x 8 paths); each path's UDP source
#     port (rdma resource show qp -dd: pN_sport) gets a tc flower counter on
#     each slave's egress in h1 (clsact); the table of which slave carried
#     which path goes to $LAB_OUT/bond-paths.txt.  Every path is counted, on
#     one slave only; each slave carries at least one path and >= 5 % of the
#     packets both slaves sent (ip -s link, same window); the transfer
#     completes, qp_errors of mr1 and mr2 stay 0
#   - failover: n2 goes down (h1 and h2) in the middle of a transfer; the QPs
#     keep making progress over n1, the transfer completes, qp_errors 0
# Files (--files): metaroce.ko, metaroce-lib.sh; optional datacheck.
# Example:
#   tests/vm/run.sh --dist bookworm --topology netns --timeout 1200 \
#       --scenario tests/vm/scenarios/metaroce-bond.sh \
#       --files out/bookworm/*/metaroce.ko tests/vm/scenarios/metaroce-lib.sh \
#               tools/datacheck/datacheck
# shellcheck source=tests/vm/guest/lib.sh
source "$LAB_LIB"
# shellcheck source=tests/vm/scenarios/metaroce-lib.sh
source "$LAB_FILES/metaroce-lib.sh"

T=${MRO_TEST_TIMEOUT:-300}
BW_S=${MRO_BOND_SECONDS:-80}	# ib_write_bw -D of the spreading transfer
WIN_S=${MRO_BOND_WINDOW:-10}	# counting window inside it
SLAVES="n1 n2"

# --- the bond -----------------------------------------------------------------
modprobe -a veth bonding sch_ingress cls_flower act_gact
for ns in h1 h2; do
    ip netns add $ns
    ip -n $ns link set lo up
done
for s in $SLAVES; do
    ip link add "$s" netns h1 type veth peer name "$s" netns h2
done
for n in 1 2; do
    lab_check "bond-add-h$n" ip -n h$n link add bond0 type bond mode balance-xor \
        xmit_hash_policy layer3+4 miimon 100 || exit 1
    for s in $SLAVES; do
        lab_check "enslave-h$n-$s" ip -n h$n link set "$s" master bond0 || exit 1
        ip -n h$n link set "$s" up
    done
    ip -n h$n addr add 10.3.0.$n/24 dev bond0
    ip -n h$n link set bond0 up
done
lab_check_grep bond-mode 'load balancing \(xor\)' ip netns exec h1 cat /proc/net/bonding/bond0
lab_check_grep bond-hash 'Transmit Hash Policy: layer3\+4' ip netns exec h1 cat /proc/net/bonding/bond0
lab_check ping-h1-h2 lab_retry 10 1 ip netns exec h1 ping -c 2 -W 5 10.3.0.2 || exit 1

# slave_tx SLAVE: packets the bond in h1 gave SLAVE: sent, or dropped by the
# veth when its peer's backlog was full (the flower counters see both)
slave_tx() { ip -n h1 -j -s link show "$1" | jq '.[0].stats64.tx | .packets + .dropped'; }
hw() { mro_counter "$1" "$2"; }
# fcount SLAVE: "HANDLE PACKETS" of each flower filter on SLAVE's egress in h1
fcount() {
    tc -n h1 -s -j filter show dev "$1" egress | jq -r '.[] |
        select(.options.handle != null) |
        "\(.options.handle) \(.options.actions[0].stats.packets // 0)"' | sort -n
}

# --- devices ----------------------------------------------------------------------
mro_install
lab_check modprobe-metaroce modprobe metaroce paths=2 || exit 1
modprobe -a ib_uverbs rdma_ucm
lab_check link-add-mr1 ip netns exec h1 rdma link add mr1 type metaroce netdev bond0 || exit 1
lab_check link-add-mr2 ip netns exec h2 rdma link add mr2 type metaroce netdev bond0 || exit 1
lab_check active-mr1 mro_wait_state mr1 ACTIVE || exit 1
lab_check active-mr2 mro_wait_state mr2 ACTIVE || exit 1
lab_check gid-mr1 lab_gid_index mr1 || exit 1
lab_check gid-mr2 lab_gid_index mr2 || exit 1
G1=$(lab_gid_index mr1) G2=$(lab_gid_index mr2)
for d in mr1 mr2; do
    lab_check "paths-8-$d" sh -c "echo 8 >/sys/class/infiniband/$d/ports/1/metaroce/paths"
done

# --- datacheck ----------------------------------------------------------------
DC=$LAB_FILES/datacheck
if [ -x "$DC" ]; then
    pat='^datacheck: role=[a-z]+ qps=[0-9]+ ops=[1-9][0-9]* bytes=[0-9]+ mismatches=0 errors=0 '
    ip netns exec h2 timeout -k 30 "$T" "$DC" -s -a 10.3.0.2 -p 18650 -T 120 \
        >"$LAB_WORK/dc-server.log" 2>&1 &
    dsrv=$!
    sleep 2	# rdma_cm listeners are not TCP sockets: no mro_wait_listen
    ip netns exec h1 timeout -k 30 "$T" "$DC" -c 10.3.0.2 -p 18650 -T 120 -n 1 -q 2 \
        >"$LAB_WORK/dc-client.log" 2>&1
    wait $dsrv
    cp "$LAB_WORK"/dc-*.log "$LAB_OUT/"
    lab_check_grep datacheck-client "$pat" cat "$LAB_WORK/dc-client.log"
    lab_check_grep datacheck-server "$pat" cat "$LAB_WORK/dc-server.log"
else
    lab_log "no datacheck in \$LAB_FILES: datacheck skipped"
fi

# bw_run NAME SECONDS: ib_write_bw h2 (server) <- h1 (client), 2 QPs, in the
# background; sets SRV and CLI to their PIDs, output in $LAB_WORK/NAME-*.out
bw_run() {
    ip netns exec h2 timeout "$T" ib_write_bw -d mr2 -x "$G2" -q 2 -s 65536 -D "$2" -F \
        >"$LAB_WORK/$1-server.out" 2>&1 &
    SRV=$!
    mro_wait_listen h2 18515 >"$LAB_WORK/$1-client.out"
    ip netns exec h1 timeout "$T" ib_write_bw -d mr1 -x "$G1" -q 2 -s 65536 -D "$2" -F \
        10.3.0.2 >>"$LAB_WORK/$1-client.out" 2>&1 &
    CLI=$!
}

# bw_end NAME: wait for the transfer; checks its exit, result line, QP errors
bw_end() {
    local rc
    wait "$CLI"; rc=$?
    wait "$SRV"
    cp "$LAB_WORK/$1"-*.out "$LAB_OUT/"
    lab_check "$1-client-completes" sh -c \
        "echo rc=$rc; tail -n 4 '$LAB_WORK/$1-client.out'; test $rc -eq 0"
    lab_check_grep "$1-result" '^ *65536 +[0-9]+' cat "$LAB_WORK/$1-client.out"
    lab_metric "$1_MBps" "$(awk '/^ *65536 +[0-9]+/ {print $4; exit}' "$LAB_WORK/$1-client.out")"
    for d in mr1 mr2; do
        lab_check "$1-qp-errors-$d" sh -c "echo qp_errors $(hw $d qp_errors); test $(hw $d qp_errors) -eq 0"
    done
}

# qp_paths: "LQPN PATH SPORT TX_PKTS" for each path of each RC QP of mr1
qp_paths() {
    rdma resource show qp link mr1/1 -dd | awk '
        { for (i = 1; i < NF; i++) {
            if ($i == "lqpn") q = $(i + 1)
            if ($i == "type") rc = $(i + 1) == "RC"
            if (!rc) continue
            if ($i ~ /^drv_p[0-9]+_sport$/) { p = substr($i, 6) + 0; sp[q " " p] = $(i + 1) }
            if ($i ~ /^drv_p[0-9]+_tx_pkts$/) { p = substr($i, 6) + 0; tx[q " " p] = $(i + 1) }
        } }
        END { for (k in sp) print k, sp[k], tx[k] }' | sort -n -k1,1 -k2,2
}

# wait_paths N: until mr1 has N paths that sent packets (at most 180 s)
wait_paths() {
    local i n
    for i in $(seq 360); do
        n=$(qp_paths | awk '$4 > 0' | wc -l)
        [ "$n" -ge "$1" ] && return 0
        sleep 0.5
    done
    echo "$n paths of mr1 sent, want $1"
    qp_paths
    return 1
}

# --- spreading over the slaves ------------------------------------------------
lab_log "transfer 1: 2 QPs x 8 paths over bond0 for ${BW_S} s"
declare -A t0 t1
bw_run bw1 "$BW_S"
lab_check bw1-all-paths-sent wait_paths 16
qp_paths >"$LAB_WORK/paths.txt"
# a flower counter per path (handle = line number) on each slave's egress,
# all added by one tc (one process per filter is slow under TCG)
for s in $SLAVES; do lab_check "clsact-$s" tc -n h1 qdisc add dev "$s" clsact; done
for s in $SLAVES; do
    awk -v s="$s" -v port="$MRO_PORT" '{ printf "filter add dev %s egress protocol ip pref 10 handle %d flower ip_proto udp src_port %s dst_port %s action pass\n", s, NR, $3, port }' \
        "$LAB_WORK/paths.txt"
done >"$LAB_WORK/filters.batch"
lab_check tc-filters ip netns exec h1 tc -b "$LAB_WORK/filters.batch"
for s in $SLAVES; do
    t0[$s]=$(slave_tx "$s")
    fcount "$s" >"$LAB_WORK/count0-$s.txt"
done
sleep "$WIN_S"
for s in $SLAVES; do
    t1[$s]=$(( $(slave_tx "$s") - t0[$s] ))
    fcount "$s" >"$LAB_WORK/count1-$s.txt"
done
# the paths' source ports at the window's end: a path retired and re-probed
# meanwhile has a fresh one, which no filter counts
qp_paths >"$LAB_WORK/paths-win.txt"
# the transfer ran through the whole window (the slow dumps below come after)
lab_check bw1-client-alive kill -0 "$CLI"
for s in $SLAVES; do
    # the window's packets per filter
    awk 'NR == FNR { c0[$1] = $2; next } { print $1, $2 - c0[$1] }' \
        "$LAB_WORK/count0-$s.txt" "$LAB_WORK/count1-$s.txt" >"$LAB_WORK/count-$s.txt"
    tc -n h1 -s filter show dev "$s" egress >"$LAB_OUT/filters-$s.txt"
done
qp_paths >"$LAB_WORK/paths-end.txt"
bw_end bw1

# the table: one line per path (filter handle = its line in paths.txt), which
# slave carried it in the window ("reprobed": its source port changed in the
# window, so its filter saw only part of it); drv_tx_pkts is the path's count
# at its end
total=$((t1[n1] + t1[n2]))
TAB=$LAB_OUT/bond-paths.txt
{
    printf '%-6s %-4s %-6s %-11s %-9s %-9s %s\n' lqpn path sport drv_tx_pkts n1_pkts \
        n2_pkts slave
    awk 'FILENAME == ARGV[1] { n1[$1] = $2; next }
         FILENAME == ARGV[2] { n2[$1] = $2; next }
         FILENAME == ARGV[3] { tx[$1 " " $2] = $4; next }
         FILENAME == ARGV[4] { sp[$1 " " $2] = $3; next }
         { h++; a = n1[h] + 0; b = n2[h] + 0
           s = a && b ? "both" : a ? "n1" : b ? "n2" : "none"
           if (sp[$1 " " $2] != $3) s = "reprobed"
           printf "%-6s %-4s %-6s %-11s %-9s %-9s %s\n", $1, $2, $3, tx[$1 " " $2], a, b, s }' \
        "$LAB_WORK/count-n1.txt" "$LAB_WORK/count-n2.txt" "$LAB_WORK/paths-end.txt" \
        "$LAB_WORK/paths-win.txt" "$LAB_WORK/paths.txt"
    for s in $SLAVES; do
        printf '# %s: %s of %s packets h1 sent on the slaves in %s s\n' "$s" "${t1[$s]}" \
            "$total" "$WIN_S"
    done
} >"$TAB"
cat "$TAB"
lab_check paths-16-rows sh -c "n=\$(grep -vc -e '^#' -e '^lqpn' $TAB); echo \$n rows; test \$n -eq 16"
lab_metric paths_reprobed "$(grep -c ' reprobed$' "$TAB")"
lab_check paths-all-counted sh -c "! grep ' none\$' $TAB"
lab_check paths-one-slave-each sh -c "! grep ' both\$' $TAB"
for s in $SLAVES; do
    n=$(grep -cE " $s\$" "$TAB")
    lab_metric "paths_on_$s" "$n"
    lab_check "paths-on-$s" sh -c "echo $n paths on $s; test $n -ge 1"
    lab_metric "${s}_tx_pkts" "${t1[$s]}"
    lab_check "share-$s" sh -c \
        "echo $s: ${t1[$s]} of $total; test $total -gt 0 && test $((t1[$s] * 20)) -ge $total"
done

# --- failover: n2 goes down in the middle of a transfer ------------------------
lab_log "transfer 2: n2 goes down mid-transfer"
bw_run bw2 $((BW_S * 2 / 3))
lab_check bw2-running wait_paths 16
sleep 3
lab_check bw2-client-alive kill -0 "$CLI"
lab_check link-down-h1 ip -n h1 link set n2 down
lab_check link-down-h2 ip -n h2 link set n2 down
d0=$(slave_tx n2) u0=$(slave_tx n1) k0=$(hw mr1 acks_rcvd)
progress() {
    local i k
    for i in $(seq 60); do
        sleep 1
        k=$(hw mr1 acks_rcvd)
        [ "$k" -gt "$k0" ] && { echo "acks_rcvd $k0 to $k after ${i}s"; return 0; }
    done
    echo "acks_rcvd stuck at $k0"
    return 1
}
lab_check bw2-progress-after-down progress
lab_check_grep bond-n2-down 'Slave Interface: n2\s+MII Status: down' \
    sh -c 'ip netns exec h1 cat /proc/net/bonding/bond0 | tr "\n" " "'
bw_end bw2
lab_metric down_n1_tx_pkts "$(( $(slave_tx n1) - u0 ))"
lab_metric down_n2_tx_pkts "$(( $(slave_tx n2) - d0 ))"
lab_check down-n1-carried sh -c "test $(( $(slave_tx n1) - u0 )) -gt 0"
for d in mr1 mr2; do mro_counters_nonzero $d >"$LAB_OUT/counters-$d.txt"; done
ip -n h1 link set n2 up
ip -n h2 link set n2 up

lab_check dmesg-clean mro_dmesg_clean
