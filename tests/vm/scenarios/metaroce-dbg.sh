#!/bin/bash
# metaroce-dbg (netns topology): quick checks inside one VM (developer aid):
# two metaroce devices in two namespaces, stock tools between them.
source "$LAB_LIB"
source "$LAB_IN/files/metaroce-lib.sh"
mro_install
modprobe metaroce
# two hosts (namespaces h1, h2) on a bridge: the RDMA core resolves
# addresses per namespace, not between two local addresses of one
lab_netns_hosts 2
ip netns exec h1 rdma link add mr1 type metaroce netdev eth0
ip netns exec h2 rdma link add mr2 type metaroce netdev eth0
sleep 1
G1=$(lab_gid_index mr1)
G2=$(lab_gid_index mr2)
pp() { # TOOL ARGS...: server on mr1, client on mr2
    local t=$1
    shift
    ip netns exec h1 timeout 60 "$t" -d mr1 -g "$G1" "$@" >"$LAB_WORK/srv-$t.out" 2>&1 &
    sleep 1
    lab_check_grep "$t $*" 'bytes in' ip netns exec h2 timeout 60 "$t" -d mr2 -g "$G2" "$@" 10.98.0.1
    wait
    cat "$LAB_WORK/srv-$t.out"
}
pp ibv_ud_pingpong -s 1024 -n 5
pp ibv_rc_pingpong -s 65536 -n 20 -c
pp ibv_srq_pingpong -s 65536 -n 20 -q 4 -c
ip netns exec h1 timeout 60 ib_send_lat -d mr1 -x "$G1" -s 64 -n 100 -F >"$LAB_WORK/lat.out" 2>&1 &
sleep 1
lab_check_grep send-lat '^ *64 +100' ip netns exec h2 timeout 60 ib_send_lat -d mr2 -x "$G2" -s 64 -n 100 -F 10.98.0.1
wait
ip netns exec h1 timeout 100 ib_write_bw -d mr1 -x "$G1" -s 65536 -n 100 -F >"$LAB_WORK/bw.out" 2>&1 &
sleep 1
(
    for _ in $(seq 120); do
        rdma resource show qp link mr2/1 -dd >"$LAB_WORK/res.txt" 2>&1
        grep -q 'p7_tx_pkts [1-9]' "$LAB_WORK/res.txt" && break
        sleep 0.5
    done
) &
lab_check_grep write-bw '^ *65536 +100' ip netns exec h2 timeout 100 ib_write_bw -d mr2 -x "$G2" -s 65536 -n 100 -F 10.98.0.1
wait
cat "$LAB_WORK/res.txt"
[ -f "$LAB_FILES/mro-paths" ] && python3 "$LAB_FILES/mro-paths" -i 0 || true
ip netns exec h1 timeout 100 ib_write_bw -d mr1 -x "$G1" -s 65536 -n 50 -F >/dev/null 2>&1 &
sleep 1
ip netns exec h2 timeout 100 ib_write_bw -d mr2 -x "$G2" -s 65536 -n 50 -F 10.98.0.1 >/dev/null 2>&1 &
sleep 3
rdma -j -dd resource show qp link mr2/1 | head -c 3000
echo
[ -f "$LAB_FILES/mro-paths" ] && python3 "$LAB_FILES/mro-paths" -d mr2 -i 0
wait
lab_check_grep qp-path-telemetry 'p7_tx_pkts [1-9]' cat "$LAB_WORK/res.txt"
for d in mr1 mr2; do
    echo "== $d"
    grep -H . /sys/class/infiniband/$d/ports/1/hw_counters/* | sed 's|.*/||' | grep -v ':0$'
done
dmesg | grep -v -E 'ACPI|ata|scsi|virtio|EXT4|9p|FS-Cache' | tail -n 20
