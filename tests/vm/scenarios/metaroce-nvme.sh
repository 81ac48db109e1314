#!/bin/bash
# metaroce-nvme (pair topology): NVMe over Fabrics on RDMA, Debian's kernel ULPs
# unmodified. VM a is the target (nvmet-rdma exporting a brd RAM disk), VM b the
# host (nvme-rdma through nvme-cli). For every impairment in NV_IMPAIR, set on
# both VMs' eth0 by netem, fio writes and reads back with verify=crc32c
# (sequential 128 KiB and random 4 KiB); every job must verify, the host must
# not enter error recovery, and no QP may fail on either side (metaroce's
# `qp_errors` port counter, and the kernel log). Last, a disconnect while fio
# runs and a reconnect that must verify again.
#
# A host read is the target's RDMA WRITEs into the host's fast-registered MR
# followed by a SEND_WITH_INV of that MR's rkey; a host write is the target's
# RDMA READ of it: this is the check that a remote invalidation waits for every
# earlier PSN (Documentation/metaroce/protocol.rst, Memory keys and ordering).
#
# Files (--files): metaroce.ko, metaroce-lib.sh; optional nvme.conf (sourced):
#   NV_DRIVER=metaroce|rxe        rxe: the in-tree rdma_rxe on the same wire
#   NV_IMPAIR="clean loss1 loss5 reorder25"   names from mro_netem() (metaroce-lib.sh)
#   NV_JOBS="seq128k rand4k"      fio jobs from nv_job() below
#   NV_SIZE_SEQ=32M NV_SIZE_RAND=8M   bytes per job
#   NV_FIO_TIMEOUT=400            seconds per fio job
#   NV_RECONNECT=1                the disconnect/reconnect step
source "$LAB_LIB"

NV_DRIVER=metaroce
NV_IMPAIR="clean loss1 loss5 reorder25"
NV_JOBS="seq128k rand4k"
NV_SIZE_SEQ=32M
NV_SIZE_RAND=8M
NV_FIO_TIMEOUT=400
NV_RECONNECT=1
[ -f "$LAB_FILES/nvme.conf" ] && source "$LAB_FILES/nvme.conf"

NQN=nqn.2026-12.org.metaroce:lab
CFG=/sys/kernel/config/nvmet
NV_PORT=4420

# nv_job NAME -> fio arguments of that job
nv_job() {
    case $1 in
        seq128k) echo "--rw=write --bs=128k --iodepth=4 --size=$NV_SIZE_SEQ" ;;
        rand4k) echo "--rw=randwrite --bs=4k --iodepth=16 --size=$NV_SIZE_RAND" ;;
        rand4kqd1) echo "--rw=randwrite --bs=4k --iodepth=1 --size=$NV_SIZE_RAND" ;;
        *) echo "unknown job $1" >&2; return 1 ;;
    esac
}

modprobe -a ib_uverbs rdma_cm
source "$LAB_FILES/metaroce-lib.sh"
mro_device_up "$NV_DRIVER" || exit 1
modprobe sch_netem

target_setup() {
    mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
    lab_check modprobe-target modprobe -a nvmet nvmet-rdma || return 1
    # 64 MiB of RAM disk
    lab_check modprobe-brd modprobe brd rd_nr=1 rd_size=65536 || return 1
    mkdir "$CFG/subsystems/$NQN" &&
        echo 1 >"$CFG/subsystems/$NQN/attr_allow_any_host" &&
        mkdir "$CFG/subsystems/$NQN/namespaces/1" &&
        echo /dev/ram0 >"$CFG/subsystems/$NQN/namespaces/1/device_path" &&
        echo 1 >"$CFG/subsystems/$NQN/namespaces/1/enable" &&
        mkdir "$CFG/ports/1" &&
        echo rdma >"$CFG/ports/1/addr_trtype" &&
        echo ipv4 >"$CFG/ports/1/addr_adrfam" &&
        echo "$MY_IP" >"$CFG/ports/1/addr_traddr" &&
        echo $NV_PORT >"$CFG/ports/1/addr_trsvcid" &&
        ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN"
}

# the block device of our subsystem, once a controller of it is live (with
# native multipath the disk hangs off the subsystem, nvmeXnY, not nvmeXcZnY)
nv_bdev() {
    local c b live=0
    for c in /sys/class/nvme/nvme*; do
        grep -qx "$NQN" "$c/subsysnqn" 2>/dev/null &&
            grep -qx live "$c/state" 2>/dev/null && live=1
    done
    [ $live = 1 ] || return 1
    for b in /sys/block/nvme*; do
        [[ ${b##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
        grep -qx "$NQN" "$b/device/subsysnqn" 2>/dev/null || continue
        echo "/dev/${b##*/}"
        return 0
    done
    return 1
}

nv_connect() {
    local i d
    nvme connect -t rdma -a "$PEER_IP" -s $NV_PORT -n "$NQN" \
        --ctrl-loss-tmo=60 --reconnect-delay=2 || return 1
    for i in $(seq 100); do
        d=$(nv_bdev) && [ -b "$d" ] && { echo "$d"; return 0; }
        sleep 0.2
    done
    echo "no live namespace of $NQN" >&2
    return 1
}

# nv_fio NAME JOB: one fio run with write + read-back verify; metrics from its json
nv_fio() {
    local name=$1 job=$2 dev out rc=0 args
    dev=$(nv_bdev) || { lab_record "$name" false "no live controller"; return 1; }
    args=$(nv_job "$job") || return 1
    out=$LAB_WORK/$name.json
    # shellcheck disable=SC2086
    timeout -k 30 "$NV_FIO_TIMEOUT" fio --name="$name" --filename="$dev" --direct=1 \
        --ioengine=libaio $args --verify=crc32c --do_verify=1 --verify_fatal=1 \
        --verify_backlog=0 --randrepeat=0 --output-format=json --output="$out" \
        >"$LAB_WORK/$name.log" 2>&1 || rc=$?
    cp "$out" "$LAB_WORK/$name.log" "$LAB_OUT/" 2>/dev/null
    if [ $rc = 0 ] && [ "$(jq '.jobs[0].error' "$out")" = 0 ]; then
        lab_record "$name" true "fio verified ($args)"
    else
        lab_record "$name" false "fio rc=$rc: $(tail -c 800 "$LAB_WORK/$name.log")"
        return 1
    fi
    lab_metric "${name}_write_MBps" "$(jq '.jobs[0].write.bw_bytes / 1e6 | . * 100 | round / 100' "$out")"
    lab_metric "${name}_read_MBps" "$(jq '.jobs[0].read.bw_bytes / 1e6 | . * 100 | round / 100' "$out")"
}

# the kernel log lines that mean the ULP saw a failure
NV_HOST_BAD='error recovery|Reconnecting in|I/O [0-9]+ QID [0-9]+ timeout|I/O tag .* timeout|failed with status|Identify Controller failed'
NV_TARGET_BAD='keep-alive timer .* expired|failed with status|fatal error|QP event'

nv_log_clean() {   # nv_log_clean SINCE-MARK PATTERN
    ! dmesg | sed -n "/$1/,\$p" | grep -E "$2"
}

if [ "$ROLE" = a ]; then
    lab_check target-setup target_setup || exit 1
fi
lab_barrier target-ready || exit 1
if [ "$ROLE" = b ]; then
    lab_check modprobe-host modprobe nvme-rdma || exit 1
    [ -s /etc/nvme/hostnqn ] || { mkdir -p /etc/nvme; nvme gen-hostnqn >/etc/nvme/hostnqn; }
    lab_check connect nv_connect || exit 1
fi
lab_barrier connected || exit 1

for imp in $NV_IMPAIR; do
    netem=$(mro_netem "$imp") || continue
    mark="metaroce-nvme: $imp begins"
    echo "$mark" >/dev/kmsg
    errs0=$(mro_qp_errors)
    tc qdisc del dev eth0 root 2>/dev/null
    # shellcheck disable=SC2086
    [ -n "$netem" ] && tc qdisc add dev eth0 root netem $netem
    lab_barrier "$imp-up" || break
    if [ "$ROLE" = b ]; then
        lab_log "nvme over $DEV, $imp (netem: ${netem:-none})"
        for job in $NV_JOBS; do
            nv_fio "nvme-$imp-$job" "$job"
        done
        lab_check "nvme-$imp-host-log" nv_log_clean "$mark" "$NV_HOST_BAD"
    fi
    lab_barrier "$imp-done" 1200 || break
    [ -n "$netem" ] && tc -s qdisc show dev eth0 && tc qdisc del dev eth0 root
    [ "$ROLE" = a ] && lab_check "nvme-$imp-target-log" nv_log_clean "$mark" "$NV_TARGET_BAD"
    if [ "$DEV" = mr0 ]; then
        errs1=$(mro_qp_errors)
        lab_check "nvme-$imp-qp-errors" test "$errs1" = "$errs0"
        lab_metric "nvme_${imp}_qp_errors_$ROLE" "$((errs1 - errs0))"
        mro_counters_nonzero mr0 >"$LAB_OUT/$imp-counters.txt"
    fi
done

if [ "$NV_RECONNECT" = 1 ]; then
    lab_barrier reconnect || exit 1
    if [ "$ROLE" = b ]; then
        # fio is cut short by the disconnect: its errors are expected
        dev=$(nv_bdev)
        timeout 120 fio --name=cut --filename="$dev" --direct=1 --ioengine=libaio \
            --rw=randwrite --bs=4k --iodepth=16 --size=8M --time_based --runtime=60 \
            >"$LAB_WORK/cut.log" 2>&1 &
        fpid=$!
        sleep 3
        lab_check disconnect-under-io nvme disconnect -n "$NQN"
        wait $fpid
        lab_check reconnect nv_connect
        nv_fio nvme-reconnected rand4k
    fi
    lab_barrier reconnect-done 600
fi

if [ "$ROLE" = b ]; then
    nvme disconnect -n "$NQN" >/dev/null 2>&1
fi
lab_barrier finished-io
[ "$DEV" = mr0 ] && lab_check dmesg-clean mro_dmesg_clean
lab_barrier finished
