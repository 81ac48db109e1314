#!/bin/bash
# metaroce-nfs (pair topology): NFS over RDMA, Debian's kernel and nfs-utils
# unmodified. VM a exports a tmpfs with the in-kernel NFS server, listening
# for RDMA on port 20049; VM b mounts it with proto=rdma (NFS 4.2). For each
# impairment in NFS_IMPAIR (netem on both VMs' eth0): fio writes and reads
# back a file with verify=crc32c, and a file tree is copied to the mount and
# back and compared by SHA-256; no QP may fail on either side (qp_errors),
# and the client must not log a lost or timed-out server.
#
# Files (--files): metaroce.ko, metaroce-lib.sh; optional nfs.conf (sourced):
#   NFS_DRIVER=metaroce|rxe   NFS_IMPAIR="clean loss1 loss5 reorder25"   NFS_SIZE=16M
#   NFS_TREE=/usr/share/perl5   (the tree copied)   NFS_TIMEOUT=400
source "$LAB_LIB"

NFS_DRIVER=metaroce
NFS_IMPAIR="clean loss1 loss5 reorder25"
NFS_SIZE=16M
NFS_TREE=/usr/share/perl5
NFS_TIMEOUT=400
[ -f "$LAB_FILES/nfs.conf" ] && source "$LAB_FILES/nfs.conf"
MNT=/mnt/nfs

modprobe -a ib_uverbs rdma_cm sch_netem
source "$LAB_FILES/metaroce-lib.sh"
mro_device_up "$NFS_DRIVER" || exit 1

# the server: NFSv4 only (no statd/lockd needed), short lease and grace
# times so that the first OPEN does not wait 90 s, RDMA listener on 20049
server_setup() {
    modprobe -a nfsd rpcrdma || return 1
    mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return 1
    mkdir -p /export /run/rpcbind /var/lib/nfs/v4recovery
    mount -t tmpfs -o size=256m tmpfs /export || return 1
    echo '/export *(rw,no_root_squash,insecure,no_subtree_check,fsid=0)' >/etc/exports
    rpcbind -w || return 1
    exportfs -ra || return 1
    echo 10 >/proc/fs/nfsd/nfsv4leasetime
    echo 10 >/proc/fs/nfsd/nfsv4gracetime 2>/dev/null
    rpc.mountd --no-nfs-version 3 || return 1
    rpc.nfsd --no-nfs-version 3 --no-udp 4 || return 1
    echo "rdma 20049" >/proc/fs/nfsd/portlist || return 1
    grep rdma /proc/fs/nfsd/portlist
}

client_mount() {
    modprobe -a nfs rpcrdma || return 1
    mkdir -p $MNT
    lab_retry 10 3 mount -t nfs -o vers=4.2,proto=rdma,port=20049 "$PEER_IP:/" $MNT || return 1
    grep " $MNT " /proc/mounts | grep -q 'proto=rdma'
}

nfs_fio() {   # nfs_fio NAME
    local name=$1 out=$LAB_WORK/$1.json rc=0
    timeout -k 30 "$NFS_TIMEOUT" fio --name="$name" --filename="$MNT/$name.dat" --direct=1 \
        --ioengine=libaio --rw=write --bs=128k --iodepth=4 --size="$NFS_SIZE" \
        --verify=crc32c --do_verify=1 --verify_fatal=1 --output-format=json \
        --output="$out" >"$LAB_WORK/$name.log" 2>&1 || rc=$?
    cp "$out" "$LAB_OUT/" 2>/dev/null
    if [ $rc = 0 ] && [ "$(jq '.jobs[0].error' "$out")" = 0 ]; then
        lab_record "$name" true "fio verified"
        lab_metric "${name}_write_MBps" "$(jq '.jobs[0].write.bw_bytes / 1e6 | . * 100 | round / 100' "$out")"
        lab_metric "${name}_read_MBps" "$(jq '.jobs[0].read.bw_bytes / 1e6 | . * 100 | round / 100' "$out")"
    else
        lab_record "$name" false "fio rc=$rc: $(tail -c 800 "$LAB_WORK/$name.log")"
    fi
    rm -f "$MNT/$name.dat"
}

# nfs_tree NAME: copy NFS_TREE to the mount and back, compare every file
nfs_tree() {
    local name=$1 t0 t1
    rm -rf "$MNT/$name" "$LAB_WORK/$name-back"
    (cd "$NFS_TREE" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$LAB_WORK/$name.sum"
    t0=$(date +%s.%N)
    timeout "$NFS_TIMEOUT" cp -a "$NFS_TREE" "$MNT/$name" &&
        sync && echo 3 >/proc/sys/vm/drop_caches &&
        timeout "$NFS_TIMEOUT" cp -a "$MNT/$name" "$LAB_WORK/$name-back"
    t1=$(date +%s.%N)
    lab_check "$name" bash -c "cd '$LAB_WORK/$name-back' && sha256sum --quiet -c '$LAB_WORK/$name.sum'"
    lab_metric "${name}_files" "$(wc -l <"$LAB_WORK/$name.sum")"
    lab_metric "${name}_seconds" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
    rm -rf "$MNT/$name" "$LAB_WORK/$name-back"
}

if [ "$ROLE" = a ]; then
    lab_check server-setup server_setup || exit 1
fi
lab_barrier server-ready || exit 1
if [ "$ROLE" = b ]; then
    lab_check mount client_mount || exit 1
fi
lab_barrier mounted || exit 1

for imp in $NFS_IMPAIR; do
    if ! netem=$(mro_netem "$imp"); then
        lab_record "$imp" false "unknown impairment"
        continue
    fi
    mark="metaroce-nfs: $imp begins"
    echo "$mark" >/dev/kmsg
    e0=$(mro_qp_errors)
    # shellcheck disable=SC2086
    [ -n "$netem" ] && tc qdisc add dev eth0 root netem $netem
    lab_barrier "$imp-up" || break
    if [ "$ROLE" = b ]; then
        lab_log "nfs over $DEV, $imp (netem: ${netem:-none})"
        nfs_fio "nfs-$imp-fio"
        nfs_tree "nfs-$imp-tree"
        lab_check "nfs-$imp-client-log" bash -c \
            "! dmesg | sed -n '/$mark/,\$p' | grep -E 'server .* not responding|timed out|rpcrdma.*(error|failed|disconnect)'"
    fi
    lab_barrier "$imp-done" 1200 || break
    [ -n "$netem" ] && tc qdisc del dev eth0 root
    if [ "$DEV" = mr0 ]; then
        e1=$(mro_qp_errors)
        lab_check "nfs-$imp-qp-errors" test "$e1" = "$e0"
    fi
done

[ "$ROLE" = b ] && umount $MNT
lab_barrier unmounted
[ "$DEV" = mr0 ] && lab_check dmesg-clean mro_dmesg_clean
lab_barrier finished
