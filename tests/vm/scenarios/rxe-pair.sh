#!/bin/bash
# rxe-pair (pair topology): in-tree rdma_rxe on eth0 of both VMs, ib_write_bw from b to a.
# Records the average bandwidth (perftest "MB/sec" = MiB/s) as metric ib_write_bw_MiBps.
# shellcheck source=tests/vm/guest/lib.sh
source "$LAB_LIB"

# rdma_rxe needs crc32_generic preloaded; without udev nothing loads ib_uverbs for us.
lab_check modprobe-crc32 modprobe crc32_generic
lab_check modprobe-rxe modprobe rdma_rxe || exit 1
lab_check modprobe-uverbs modprobe -a ib_uverbs rdma_ucm || exit 1
lab_check rdma-link-add rdma link add rxe0 type rxe netdev eth0 || exit 1
lab_check_grep rdma-link-active 'rxe0.*ACTIVE' rdma link show
gid=$(lab_gid_index rxe0) || true
lab_check gid-index test -n "$gid" || exit 1
lab_metric gid_index "$gid"
lab_check_grep ibv-devinfo 'PORT_ACTIVE' ibv_devinfo -d rxe0

lab_barrier rdma-up || exit 1
lab_check_grep ping-peer ' 0% packet loss' ping -c 3 -W 5 "$PEER_IP"

# -u 18: QP ACK timeout 4.096 us * 2^18 ~ 1 s (default 14 ~ 67 ms): TCG VMs on a busy host
# are slow enough to exhaust the default retries (IBV_WC_RETRY_EXC_ERR, status 9).
bw_args=(-d rxe0 -x "$gid" -s 65536 -n 500 -u 18 -F)
if [ "$ROLE" = a ]; then
    ib_write_bw "${bw_args[@]}" >bw.log 2>&1 &
    srv=$!
    lab_wait_port 18515 60 || lab_record server-listen false "ib_write_bw server not listening"
    lab_barrier server-up || exit 1
    rc=0; timeout 300 tail --pid=$srv -f /dev/null || { rc=$?; kill $srv; }
    wait $srv || rc=$?
else
    lab_barrier server-up || exit 1
    rc=0; lab_retry 3 2 timeout 300 ib_write_bw "${bw_args[@]}" "$PEER_IP" >bw.log 2>&1 || rc=$?
fi
cat bw.log
bw=$(awk '$1 == 65536 && NF >= 5 {print $4}' bw.log | tail -n1)
lab_check "ib_write_bw-$ROLE" test "$rc" = 0 -a -n "$bw"
[ -n "$bw" ] && lab_metric ib_write_bw_MiBps "$bw"
lab_barrier finished
