#!/bin/bash
# metaroce-apps (pair topology): verbs applications from Debian's packages,
# unmodified, at each impairment in APP_IMPAIR (netem on both VMs' eth0):
#   ucx        ucx_perftest at the UCT level on DEV:1 over rc_verbs (active
#              message bandwidth and latency, put and get bandwidth) and
#              ud_verbs (active messages), and at the UCP level over
#              rc_verbs with ud_verbs for wireup: tag, stream, put and get
#   qperf      qperf over rdma_cm: rc_bw, rc_lat, rc_rdma_read_bw
#   rping      APP_RPING_CONNS rping connections at once, each verifying
#              its data (-V); client and server use one buffer size (a
#              server buffer smaller than the client's fails the server's
#              RDMA READ, and the client then exits 0 having verified nothing)
# VM a serves, VM b is the client. Every run must exit 0 with its results
# line; each rping client must verify all its pings; no QP may fail
# (metaroce's qp_errors). ucx_perftest and qperf do not check the data they
# move: datacheck, nvme and nfs do.
#
# Files (--files): metaroce.ko, metaroce-lib.sh; optional apps.conf (sourced):
#   APP_DRIVER=metaroce|rxe   APP_IMPAIR="clean loss1"   APP_TESTS="ucx qperf rping"
#   APP_RPING_CONNS=16   APP_RPING_COUNT=20   APP_RPING_SIZE=4096
#   APP_TIMEOUT=300   APP_UCX_UD=1   APP_UCP_TESTS="tag_bw ..."
source "$LAB_LIB"

APP_DRIVER=metaroce
APP_IMPAIR="clean loss1"
APP_TESTS="ucx qperf rping"
APP_RPING_CONNS=16
APP_RPING_COUNT=20
APP_RPING_SIZE=4096
APP_TIMEOUT=300
APP_UCP_TESTS="tag_bw tag_lat stream_bw ucp_put_bw ucp_get"
# UCX's ud_verbs (and so UCP, whose wireup needs it) tells an IPv4 datagram
# from an IPv6 one by its completion's sl, where mlx5 devices report the L3
# header type: metaroce does too; rdma_rxe leaves it 0, and UCX drops every
# IPv4 datagram it receives (its UD endpoints time out).  APP_UCX_UD=0
# leaves ud_verbs and UCP out.
APP_UCX_UD=1
[ -f "$LAB_FILES/apps.conf" ] && source "$LAB_FILES/apps.conf"
[ "$APP_DRIVER" = rxe ] && APP_UCX_UD=0

modprobe -a ib_uverbs rdma_ucm sch_netem
source "$LAB_FILES/metaroce-lib.sh"
mro_device_up "$APP_DRIVER" || exit 1
GID=$(lab_gid_index "$DEV") || exit 1
export UCX_NET_DEVICES=$DEV:1 UCX_IB_GID_INDEX=$GID

# pair NAME SERVER-CMD -- CLIENT-CMD...: a runs the server, b the client;
# the client's output is kept as $LAB_WORK/NAME.out, its exit status returned
pair() {
    local name=$1 srv=() rc=0
    shift
    while [ "$1" != -- ]; do srv+=("$1"); shift; done
    shift
    if [ "$ROLE" = a ]; then
        timeout "$APP_TIMEOUT" "${srv[@]}" >"$LAB_WORK/$name-server.out" 2>&1 &
        local pid=$!
        sleep 2
        lab_barrier "$name" || { kill $pid; return 1; }
        lab_barrier "$name-done" "$APP_TIMEOUT"
        kill $pid 2>/dev/null
        wait $pid 2>/dev/null
        cp "$LAB_WORK/$name-server.out" "$LAB_OUT/"
        return 0
    fi
    lab_barrier "$name" || return 1
    sleep 1
    timeout "$APP_TIMEOUT" "$@" >"$LAB_WORK/$name.out" 2>&1 || rc=$?
    cp "$LAB_WORK/$name.out" "$LAB_OUT/"
    lab_barrier "$name-done" "$APP_TIMEOUT"
    return $rc
}

# ucx NAME LEVEL TLS TEST SIZE ITERS [LAYOUT]: ucx_perftest, LEVEL uct (one
# transport on the device, -x TLS -d DEV:1, data layout -D LAYOUT) or ucp
# (UCX_TLS=TLS,self, wireup included);
# the final line's bandwidth (MB/s overall, column 7 of "Final:") or median
# latency (us, column 3) as a metric
ucx() {
    local name=$1 level=$2 tls=$3 test=$4 size=$5 iters=$6 rc=0 v args=()
    [ "$level" = uct ] && args=(-x "$tls" -d "$DEV:1")
    [ -n "${7:-}" ] && args+=(-D "$7")
    # a ucx_perftest built with MPI (Debian 13's) runs as an MPI job unless
    # told otherwise (-P 0): alone, it then refuses ("exactly 2 processes");
    # and its server wants the UCT transport and device too ("A device must
    # be specified with -d flag for UCT test")
    local srv=() c0 c1 moved
    ucx_perftest -h 2>&1 | grep -q '^ *-P ' && srv=(-P 0) && args+=(-P 0)
    [ "$level" = uct ] && srv+=(-x "$tls" -d "$DEV:1")
    [ "$ROLE" = b ] && c0=$(mro_snap "$DEV")
    pair "$name" env UCX_TLS="$tls,self" ucx_perftest "${srv[@]}" -- \
        env UCX_TLS="$tls,self" ucx_perftest -t "$test" -s "$size" -n "$iters" \
        "${args[@]}" "$PEER_IP" || rc=$?
    [ "$ROLE" = b ] || return 0
    # the payload must have crossed the RDMA device, not TCP
    c1=$(mro_snap "$DEV")
    moved=$(( $(mro_delta "$c0" "$c1" sent_bytes) + $(mro_delta "$c0" "$c1" rcvd_bytes) ))
    if [ $rc = 0 ] && grep -q 'Final:' "$LAB_WORK/$name.out" &&
        { [ "$DEV" != mr0 ] || [ "$moved" -ge $((size * iters)) ]; }; then
        lab_record "$name" true "$moved bytes over $DEV; $(grep 'Final:' "$LAB_WORK/$name.out")"
        case $test in
            *lat) v=$(awk '/Final:/ {print $3; exit}' "$LAB_WORK/$name.out"); lab_metric "${name}_us" "$v" ;;
            *) v=$(awk '/Final:/ {print $7; exit}' "$LAB_WORK/$name.out"); lab_metric "${name}_MBps" "$v" ;;
        esac
    else
        lab_record "$name" false "rc=$rc, $moved bytes over $DEV; $(grep -v '^ *[0-9]* *0x\|^[0-9]* *[/a-z]' "$LAB_WORK/$name.out" | tail -c 1500)"
    fi
}

qperf_run() {   # qperf_run NAME
    local name=$1 rc=0 t
    pair "$name" qperf -- qperf -cm1 -t 5 "$PEER_IP" rc_bw rc_lat rc_rdma_read_bw || rc=$?
    [ "$ROLE" = b ] || return 0
    if [ $rc = 0 ] && [ "$(grep -c 'bw *=\|latency *=' "$LAB_WORK/$name.out")" -ge 3 ]; then
        lab_record "$name" true "$(tr '\n' ' ' <"$LAB_WORK/$name.out")"
        for t in rc_bw rc_rdma_read_bw; do
            lab_metric "${name}_${t}" "$(awk -v t="$t:" '$1 == t {f = 1} f && /bw *=/ {print $3 $4; exit}' "$LAB_WORK/$name.out")"
        done
        lab_metric "${name}_rc_lat" "$(awk '$1 == "rc_lat:" {f = 1} f && /latency *=/ {print $3 $4; exit}' "$LAB_WORK/$name.out")"
    else
        lab_record "$name" false "rc=$rc $(tail -c 1500 "$LAB_WORK/$name.out")"
    fi
}

# rping_many NAME: APP_RPING_CONNS verifying rping clients against one
# persistent server, all at once
rping_many() {
    local name=$1 i ok=0 pids=()
    if [ "$ROLE" = a ]; then
        pair "$name" rping -s -P -S "$APP_RPING_SIZE" -a "$MY_IP" -- true
        grep -v '^server ping data' "$LAB_WORK/$name-server.out" | sort | uniq -c | head -n 20
        return 0
    fi
    lab_barrier "$name" || return 1
    sleep 1
    for i in $(seq "$APP_RPING_CONNS"); do
        timeout "$APP_TIMEOUT" rping -c -a "$PEER_IP" -v -V -C "$APP_RPING_COUNT" -S "$APP_RPING_SIZE" \
            >"$LAB_WORK/$name-$i.out" 2>&1 &
        pids+=($!)
    done
    local failed=''
    for i in "${!pids[@]}"; do
        # rping exits 0 when the server disconnects early: a client is
        # good only if it verified every ping
        if wait "${pids[$i]}" &&
            [ "$(grep -c '^ping data: ' "$LAB_WORK/$name-$((i + 1)).out")" = "$APP_RPING_COUNT" ]; then
            ok=$((ok + 1))
        else
            failed="$failed [$((i + 1))] $(tail -c 300 "$LAB_WORK/$name-$((i + 1)).out" | tr '\n' ' ')"
        fi
    done
    lab_barrier "$name-done" "$APP_TIMEOUT"
    lab_metric "${name}_ok" "$ok"
    lab_record "$name" "$([ "$ok" -eq "$APP_RPING_CONNS" ] && echo true || echo false)" \
        "$ok of $APP_RPING_CONNS verified;${failed:0:1200}"
}

for imp in $APP_IMPAIR; do
    if ! netem=$(mro_netem "$imp"); then
        lab_record "$imp" false "unknown impairment"
        continue
    fi
    e0=$(mro_qp_errors)
    # shellcheck disable=SC2086
    [ -n "$netem" ] && tc qdisc add dev eth0 root netem $netem
    lab_barrier "$imp-up" || break
    for t in $APP_TESTS; do
        case $t in
        rping) rping_many "rping-$imp" ;;
        ucx)
            ucx "ucx-$imp-rc-am-bw" uct rc_verbs am_bw 8192 2000 bcopy
            ucx "ucx-$imp-rc-am-lat" uct rc_verbs am_lat 8 2000
            ucx "ucx-$imp-rc-put-bw" uct rc_verbs put_bw 65536 1000 zcopy
            ucx "ucx-$imp-rc-get-bw" uct rc_verbs get 65536 1000 zcopy
            if [ "$APP_UCX_UD" = 1 ]; then
                ucx "ucx-$imp-ud-am-bw" uct ud_verbs am_bw 1016 2000 bcopy
                ucx "ucx-$imp-ud-am-lat" uct ud_verbs am_lat 8 2000
            fi
            if [ "$APP_UCX_UD" = 1 ]; then
                for u in $APP_UCP_TESTS; do
                    ucx "ucx-$imp-ucp-$u" ucp rc_verbs,ud_verbs "$u" 65536 1000
                done
            fi
            ;;
        qperf) qperf_run "qperf-$imp" ;;
        esac
    done
    [ -n "$netem" ] && tc qdisc del dev eth0 root
    if [ "$DEV" = mr0 ]; then
        e1=$(mro_qp_errors)
        lab_check "apps-$imp-qp-errors" test "$e1" = "$e0"
        mro_counters_nonzero mr0 >"$LAB_OUT/$imp-counters.txt"
    fi
done

[ "$DEV" = mr0 ] && lab_check dmesg-clean mro_dmesg_clean
lab_barrier finished
