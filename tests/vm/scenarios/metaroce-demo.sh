#!/bin/bash
# metaroce-demo (pair topology): what a user sees: the device, its port and
# GIDs, a transfer with stock rdma-core tools, and the port counters.
source "$LAB_LIB"
source "$LAB_IN/files/metaroce-lib.sh"

mro_install
lab_check modprobe-metaroce modprobe metaroce || exit 1
lab_check link-add rdma link add mr0 type metaroce netdev eth0 || exit 1
mro_wait_state mr0 ACTIVE
GID=$(lab_gid_index mr0)
echo "---- rdma link"; rdma link show
echo "---- ibv_devinfo -v -d mr0 (abridged)"
ibv_devinfo -v -d mr0 | grep -E 'hca_id|transport|fw_ver|node_guid|vendor|max_qp:|max_cqe|max_mr_size|port:|state|active_mtu|active_width|active_speed|link_layer|GID\['
lab_barrier ready || exit 1
if [ "$ROLE" = a ]; then
    timeout 300 ib_write_bw -d mr0 -x "$GID" -q 4 -s 65536 -n 500 -F >"$LAB_WORK/bw.out" 2>&1 &
    pid=$!
    sleep 1
    lab_barrier bw
    wait $pid
    lab_check_grep write-bw-server '^ *65536' cat "$LAB_WORK/bw.out"
else
    lab_barrier bw
    sleep 1
    echo "---- ib_write_bw, 4 QPs, 64 KiB messages, VM b -> VM a"
    # live per-path telemetry of the sending QPs while the transfer runs
    if [ -f "$LAB_FILES/mro-paths" ]; then
        (
            sleep 3
            for _ in 1 2 3; do
                echo "---- per-path telemetry (tools/mro-paths, rdma resource show qp -dd)"
                python3 "$LAB_FILES/mro-paths" -d mr0 -i 0 | head -n 20
                sleep 4
            done
        ) &
    fi
    out=$(lab_retry 30 2 timeout 300 ib_write_bw -d mr0 -x "$GID" -q 4 -s 65536 -n 500 -F "$PEER_IP" 2>&1)
    wait
    echo "$out" | tail -n 6
    lab_check_grep write-bw '^ *65536' echo "$out"
    lab_metric write_bw_MBps "$(awk '/^ *65536 /{print $4; exit}' <<<"$out")"
fi
lab_barrier bw-done
echo "---- rdma statistic show link mr0/1"
rdma statistic show link mr0/1
lab_check dmesg-clean mro_dmesg_clean
