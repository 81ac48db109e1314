#!/bin/bash
# metaroce-dbg (netns topology): quick two-host check inside one VM.
source "$LAB_LIB"
source "$LAB_IN/files/metaroce-lib.sh"
mro_install
modprobe metaroce
lab_netns_hosts 2
ip netns exec h1 rdma link add mr1 type metaroce netdev eth0
ip netns exec h2 rdma link add mr2 type metaroce netdev eth0
sleep 1
G1=$(lab_gid_index mr1); G2=$(lab_gid_index mr2)
dump() {
    for d in mr1 mr2; do
        echo "== $d"; grep -H . /sys/class/infiniband/$d/ports/1/hw_counters/* | sed 's|.*/||' | grep -v ':0$'
    done
}
pp() { # TOOL ARGS...: server in h1, client in h2
    local t=$1; shift
    ip netns exec h1 timeout 60 $t -d mr1 -g "$G1" "$@" > "$LAB_WORK/srv-$t.out" 2>&1 &
    sleep 1
    lab_check_grep "$t $*" 'bytes in' ip netns exec h2 timeout 60 $t -d mr2 -g "$G2" "$@" 10.98.0.1
    wait
    cat "$LAB_WORK/srv-$t.out"
}
pp ibv_rc_pingpong -s 4096 -n 5
pp ibv_ud_pingpong -s 1024 -n 5
pp ibv_srq_pingpong -s 65536 -n 20 -q 4 -c
dump
dmesg | tail -n 30
# teardown by netdev deletion; dump blocked tasks if it hangs
timeout 60 ip link del veth-h1 &
p=$!
sleep 15
if kill -0 $p 2>/dev/null; then
    echo 1 > /proc/sys/kernel/sysrq
    echo w > /proc/sysrq-trigger
    sleep 2
    dmesg | tail -n 120
fi
wait $p
lab_check_grep netdev-del-gone '^$' bash -c 'ls /sys/class/infiniband | grep mr1 || true'
