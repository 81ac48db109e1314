#!/bin/bash
# metaroce-dbg (netns topology): quick checks inside one VM (developer aid):
# two metaroce devices on the two ends of a veth pair, pingpong between them.
source "$LAB_LIB"
source "$LAB_IN/files/metaroce-lib.sh"
mro_install
modprobe metaroce
ip link add v0 type veth peer name v1
ip addr add 10.97.0.1/24 dev v0
ip addr add 10.97.0.2/24 dev v1
ip link set v0 up
ip link set v1 up
rdma link add mr1 type metaroce netdev v0
rdma link add mr2 type metaroce netdev v1
sleep 1
G1=$(lab_gid_index mr1)
G2=$(lab_gid_index mr2)
pp() { # TOOL ARGS...: server on mr1, client on mr2
    local t=$1
    shift
    timeout 60 "$t" -d mr1 -g "$G1" "$@" >"$LAB_WORK/srv-$t.out" 2>&1 &
    sleep 1
    lab_check_grep "$t $*" 'bytes in' timeout 60 "$t" -d mr2 -g "$G2" "$@" 10.97.0.1
    wait
    cat "$LAB_WORK/srv-$t.out"
}
pp ibv_ud_pingpong -s 1024 -n 5
pp ibv_rc_pingpong -s 65536 -n 20 -c
pp ibv_srq_pingpong -s 65536 -n 20 -q 4 -c
for d in mr1 mr2; do
    echo "== $d"
    grep -H . /sys/class/infiniband/$d/ports/1/hw_counters/* | sed 's|.*/||' | grep -v ':0$'
done
dmesg | grep -v -E 'ACPI|ata|scsi|virtio|EXT4|9p|FS-Cache' | tail -n 20
