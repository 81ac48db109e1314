#!/bin/bash
# metaroce-mpi (pair topology): Open MPI from Debian's packages, unmodified,
# over UCX on the RDMA device.  VM a launches one rank on each VM with
# mpirun (ssh to b: a makes a key, b fetches its public half over TCP and
# runs sshd).  The ranks run tools/mpicoll (compiled in each guest with
# mpicc): MPI_Alltoall, MPI_Allreduce and MPI_Bcast from 8 bytes to
# MPI_MAX_SIZE, every received element checked, at each impairment in
# MPI_IMPAIR (netem on both VMs' eth0).  Open MPI's pml is ucx with
# UCX_TLS=rc_verbs,ud_verbs,self on DEV:1 (ud_verbs for UCX's wireup only),
# its control traffic (ORTE) is TCP on eth0.
# The same runs over TCP (pml ob1, btl tcp on eth0) for comparison
# (MPI_TRANSPORTS).  Checks per impairment and transport: mpirun exits 0 and
# mpicoll counted no wrong element; over UCX the payload crossed DEV (its
# sent + received bytes grew by at least half of what the ranks timed), and
# no QP failed (metaroce's qp_errors).  Metrics: each collective's latency at
# the smallest size and bus bandwidth at the largest.
#
# Files (--files): metaroce.ko, metaroce-lib.sh, mpicoll.c; optional
# mpi.conf (sourced):
#   MPI_DRIVER=metaroce|rxe   MPI_IMPAIR="clean loss1"   MPI_MAX_SIZE=4M
#   MPI_ITERS=20   MPI_BUDGET=8M (bytes per rank per size: fewer iterations
#   for large sizes)   MPI_TIMEOUT=900   MPI_TRANSPORTS="ucx tcp"
MPI_TRANSPORTS="ucx tcp"
source "$LAB_LIB"

MPI_DRIVER=metaroce
MPI_IMPAIR="clean loss1"
MPI_MAX_SIZE=4M
MPI_ITERS=20
MPI_BUDGET=8M
MPI_TIMEOUT=900
MPI_TRANSPORTS="ucx tcp"
[ -f "$LAB_FILES/mpi.conf" ] && source "$LAB_FILES/mpi.conf"
KEY_PORT=18650
BIN=/usr/local/bin/mpicoll

modprobe -a ib_uverbs rdma_ucm sch_netem
source "$LAB_FILES/metaroce-lib.sh"
mro_device_up "$MPI_DRIVER" || exit 1
GID=$(lab_gid_index "$DEV") || exit 1

lab_check mpicc mpicc -O2 -Wall -Werror -o "$BIN" "$LAB_FILES/mpicoll.c" || exit 1
# its checks can fail: with -F each of its 3 x 4 sizes must count one error
lab_check_grep mpicoll-selftest '^mpicoll: ranks=2 errors=12$' \
    timeout 120 mpirun --allow-run-as-root -np 2 --oversubscribe --mca pml ob1 \
    --mca btl "tcp,self" "$BIN" -m 64 -i 2 -F
# each rank sets its own device and GID index: the VMs' may differ
cat >/usr/local/bin/mpicoll-rank <<EOF
#!/bin/sh
export UCX_NET_DEVICES=$DEV:1 UCX_IB_GID_INDEX=$GID UCX_TLS=rc_verbs,ud_verbs,self
exec $BIN "\$@"
EOF
chmod +x /usr/local/bin/mpicoll-rank

# --- ssh from a to b ------------------------------------------------------
if [ "$ROLE" = a ]; then
    mkdir -p /root/.ssh && chmod 700 /root/.ssh
    rm -f /root/.ssh/id_ed25519
    ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519
    # mpirun's ssh (Open MPI 4's plm_rsh, 5's PRRTE) takes no questions
    printf 'Host *\n StrictHostKeyChecking no\n UserKnownHostsFile /dev/null\n BatchMode yes\n LogLevel ERROR\n' \
        >/root/.ssh/config
    timeout 120 nc -N -l "$KEY_PORT" </root/.ssh/id_ed25519.pub &
    lab_barrier key-served
    lab_barrier sshd-up
    lab_check ssh-to-b ssh "$PEER_IP" true || exit 1
    # mpirun is given host names: Open MPI 5's PRRTE, given two addresses,
    # counted one node (not enough slots for 2 ranks)
    PEER_NAME=$(ssh "$PEER_IP" hostname)
    printf '%s %s\n%s %s\n' "$MY_IP" "$(hostname)" "$PEER_IP" "$PEER_NAME" >>/etc/hosts
else
    lab_barrier key-served
    mkdir -p /root/.ssh /run/sshd
    chmod 700 /root/.ssh
    lab_check fetch-key sh -c "timeout 30 nc -N '$PEER_IP' $KEY_PORT </dev/null >/root/.ssh/authorized_keys &&
        grep -q ssh-ed25519 /root/.ssh/authorized_keys"
    ssh-keygen -A
    lab_check sshd /usr/sbin/sshd -o PermitRootLogin=prohibit-password
    lab_barrier sshd-up
fi

# mpi NAME TRANSPORT: mpicoll across both VMs, launched by a, output in
# NAME.out; TRANSPORT ucx (pml ucx on DEV) or tcp (pml ob1, btl tcp on eth0)
mpi() {
    local name=$1 rc=0 c0 c1 moved=0 min=0 mca count=0
    case $2 in
        ucx) mca=(--mca pml ucx --mca osc ucx --mca btl self) ;;
        tcp) mca=(--mca pml ob1 --mca btl "tcp,self" --mca btl_tcp_if_include eth0) ;;
    esac
    lab_barrier "$name" || return 1
    if [ "$ROLE" = a ]; then
        # the payload must cross the device: each rank sends at least half
        # of every size it timed (alltoall and allreduce send it, bcast
        # from a), counted at a's device, sent and received
        [ "$DEV" = mr0 ] && [ "$2" = ucx ] && count=1 && c0=$(mro_snap "$DEV")
        timeout "$MPI_TIMEOUT" mpirun --allow-run-as-root -np 2 --host "$(hostname),$PEER_NAME" \
            "${mca[@]}" \
            /usr/local/bin/mpicoll-rank -m "$MPI_MAX_SIZE" -i "$MPI_ITERS" -b "$MPI_BUDGET" \
            >"$LAB_WORK/$name.out" 2>&1 || rc=$?
        cp "$LAB_WORK/$name.out" "$LAB_OUT/"
        if [ $count = 1 ]; then
            c1=$(mro_snap "$DEV")
            moved=$(( $(mro_delta "$c0" "$c1" sent_bytes) + $(mro_delta "$c0" "$c1" rcvd_bytes) ))
            min=$(awk '/^[0-9]/ { s += $1 * $5 } END { printf "%d", s / 2 }' "$LAB_WORK/$name.out")
        fi
    fi
    lab_barrier "$name-done" "$MPI_TIMEOUT"
    [ "$ROLE" = a ] || return 0
    if [ $rc = 0 ] && grep -q '^mpicoll: ranks=2 errors=0$' "$LAB_WORK/$name.out" &&
        [ "$moved" -ge "$min" ]; then
        lab_record "$name" true "$moved bytes over $DEV (at least $min); $(tail -n 1 "$LAB_WORK/$name.out")"
        # the smallest size's latency and the largest's bus bandwidth
        awk -v n="$name" '/^# mpicoll/ { c = $3; sub(":", "", c); first = 1; next }
            /^[0-9]/ { if (first) printf "%s_%s_%sB_us %s\n", n, c, $1, $2
                first = 0; last[c] = n "_" c "_" $1 "B_busbw_MBps " $6 }
            END { for (k in last) print last[k] }' "$LAB_WORK/$name.out" |
            while read -r k v; do lab_metric "$k" "$v"; done
    else
        lab_record "$name" false "rc=$rc, $moved bytes over $DEV (need $min); $(tail -c 1500 "$LAB_WORK/$name.out")"
    fi
}

for imp in $MPI_IMPAIR; do
    if ! netem=$(mro_netem "$imp"); then
        lab_record "$imp" false "unknown impairment"
        continue
    fi
    e0=$(mro_qp_errors)
    # shellcheck disable=SC2086
    [ -n "$netem" ] && tc qdisc add dev eth0 root netem $netem
    lab_barrier "$imp-up" || break
    for t in $MPI_TRANSPORTS; do
        mpi "mpi-$imp-$t" "$t"
    done
    [ -n "$netem" ] && tc qdisc del dev eth0 root
    if [ "$DEV" = mr0 ]; then
        e1=$(mro_qp_errors)
        lab_check "mpi-$imp-qp-errors" test "$e1" = "$e0"
    fi
done

[ "$DEV" = mr0 ] && lab_check dmesg-clean mro_dmesg_clean
lab_barrier finished
