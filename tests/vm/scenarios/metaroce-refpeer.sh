#!/bin/bash
# metaroce-refpeer (netns topology): the userspace reference peer against a
# kernel metaroce QP.  Namespace h1 has the metaroce device mr1 and runs
# tools/refpeer/kside (an RC QP on mr1 through libibverbs); h2 has no
# metaroce device and runs tools/refpeer's refpeer on plain UDP sockets.
# The two meet over refpeer's TCP side channel (QPN, PSN, address, memory
# region, pattern seed) and move data both ways: refpeer as client WRITEs,
# SENDs, READs back and runs atomics against kside's region (kernel as
# responder), refpeer READs the kernel's own region contents, and kside as
# client WRITEs, SENDs and READs against refpeer (kernel as requester),
# and READs alone at 10 % loss (small READ_REQs, resent segment by segment).
# Each case runs clean, under netem loss 1 % and 10 % and reorder 25 % on
# both namespaces' eth0 (h2's shapes the peer's packets, h1's the
# kernel's), and with packet protection auth and encrypt (one device key:
# keyctl + sysfs on mr1, the same bytes to refpeer's --key).  Every case:
# both ends report every byte verified and a nonzero amount moved; where
# no loss is injected, mr1's drop counters that would show the two reading
# the wire differently (rx_drop_crc, _field, _hdr_len, _auth, _length,
# _opcode, _version, _short, _sport) stay 0, refpeer refused nothing and
# no socket dropped a datagram for a full buffer.  Other key bytes at the
# peer: nothing moves and mr1 refuses the peer's packets.
#
# Files (--files): metaroce.ko, metaroce-lib.sh, refpeer and kside (built
# on the host: make -C tools/refpeer refpeer kside).
# shellcheck source=tests/vm/guest/lib.sh
source "$LAB_LIB"
# shellcheck source=tests/vm/scenarios/metaroce-lib.sh
source "$LAB_IN/files/metaroce-lib.sh"

RP=$LAB_FILES/refpeer
KS=$LAB_FILES/kside
P1=/sys/class/infiniband/mr1/ports/1/metaroce
MSG=64K
LIMIT=150
SPEC_DROPS="rx_drop_crc rx_drop_field rx_drop_hdr_len rx_drop_auth rx_drop_length
rx_drop_opcode rx_drop_version rx_drop_short rx_drop_sport"

lab_check_grep refpeer-runs '^usage: refpeer' "$RP" --help || exit 1
lab_check_grep kside-runs '^usage: kside' "$KS" --help || exit 1
lab_check keyctl-present command -v keyctl || exit 1
mro_install
lab_check modprobe-metaroce modprobe metaroce || exit 1
modprobe -a ib_uverbs sch_netem
# the CPU's AES and GHASH drivers, which udev would load on a host
modprobe -q -a aesni_intel ghash_clmulni_intel
lab_netns_hosts 2
lab_check link-add-mr1 ip netns exec h1 rdma link add mr1 type metaroce netdev eth0 || exit 1
lab_check active-mr1 mro_wait_state mr1 ACTIVE || exit 1
G1=$(lab_gid_index mr1) || exit 1

# put FILE LINE: write LINE as `echo LINE > FILE`, failing as it fails
put() {
    bash -c 'echo "$2" >"$1"' put "$1" "$2"
}

# spec_grown BEFORE: the counters of $SPEC_DROPS that grew on mr1 since the
# mro_snap BEFORE, as "name +N"; fails if any did
spec_grown() {
    local now c d rc=0
    now=$(mro_snap mr1)
    for c in $SPEC_DROPS; do
        d=$(mro_delta "$1" "$now" "$c")
        if [ "$d" -ne 0 ]; then
            echo "$c +$d"
            rc=1
        fi
    done
    return $rc
}

# rcvbuf_errors NS: UDP datagrams NS's sockets dropped for a full receive
# buffer (a loss no netem injected)
rcvbuf_errors() {
    # shellcheck disable=SC2016
    ip netns exec "$1" awk '$1 == "Udp:" { if (!n) { for (i = 2; i <= NF; i++) c[$i] = i; n = 1 }
        else print $c["RcvbufErrors"] }' /proc/net/snmp
}

# netem ARGS...: the same netem on h1's and h2's eth0 ("" removes it)
netem() {
    local h
    for h in h1 h2; do
        ip netns exec $h tc qdisc del dev eth0 root 2>/dev/null
        if [ -n "$*" ]; then
            # shellcheck disable=SC2048,SC2086
            ip netns exec $h tc qdisc add dev eth0 root netem $* || return 1
        fi
    done
}

# netem_dropped: packets both netems dropped
netem_dropped() {
    local h n s=0
    for h in h1 h2; do
        n=$(ip netns exec $h tc -s qdisc show dev eth0 | mro_qdisc_dropped)
        s=$((s + ${n:-0}))
    done
    echo $s
}

tcp=18800
PROT_ARGS=()

# run_case NAME DIR OPS BYTES LOSSY [REFPEER-ARGS...]: one transfer.
# DIR "in": refpeer --client in h2 against kside --server in h1 (refpeer
# runs OPS); "out": kside --client in h1 against refpeer --server in h2
# (kside runs OPS).  LOSSY 0: no loss injected, so the spec counters and
# refpeer's refusals must stay 0.  Logs: NAME-kside.log, NAME-refpeer.log.
run_case() {
    local name=$1 dir=$2 ops=$3 bytes=$4 lossy=$5 srv rc t0 snap kl rl rb1 rb2
    shift 5
    tcp=$((tcp + 1))
    kl=$LAB_WORK/$name-kside.log
    rl=$LAB_WORK/$name-refpeer.log
    snap=$(mro_snap mr1)
    rb1=$(rcvbuf_errors h1) rb2=$(rcvbuf_errors h2)
    t0=$SECONDS
    if [ "$dir" = in ]; then
        ip netns exec h1 timeout -k 5 $LIMIT "$KS" --server --listen $tcp -d mr1 -g "$G1" \
            --port "$MRO_PORT" --bytes "$bytes" --msg $MSG -T $((LIMIT - 10)) -v >"$kl" 2>&1 &
        srv=$!
        mro_wait_listen h1 $tcp 30
        ip netns exec h2 timeout -k 5 $LIMIT "$RP" --client -l 10.98.0.2 \
            --connect 10.98.0.1:$tcp --port "$MRO_PORT" --bytes "$bytes" --msg $MSG \
            --ops "$ops" "${PROT_ARGS[@]}" "$@" >"$rl" 2>&1
    else
        ip netns exec h2 timeout -k 5 $LIMIT "$RP" --server -l 10.98.0.2 --listen $tcp \
            --port "$MRO_PORT" --bytes "$bytes" --msg $MSG "${PROT_ARGS[@]}" "$@" >"$rl" 2>&1 &
        srv=$!
        mro_wait_listen h2 $tcp 30
        ip netns exec h1 timeout -k 5 $LIMIT "$KS" --client --connect 10.98.0.2:$tcp -d mr1 \
            -g "$G1" --port "$MRO_PORT" --bytes "$bytes" --msg $MSG --ops "$ops" \
            -T $((LIMIT - 10)) -v >"$kl" 2>&1
    fi
    rc=$?
    [ $rc -eq 0 ] || kill "$srv" 2>/dev/null
    wait "$srv"
    lab_metric "${name}_s" $((SECONDS - t0))
    cp "$kl" "$rl" "$LAB_OUT/"
    if [ "$dir" = in ]; then
        lab_check_grep "$name-refpeer" '^refpeer client: ok: moved [1-9][0-9]* bytes .*every byte verified' cat "$rl"
        if [[ $ops == *write* ]]; then
            lab_check_grep "$name-kernel" '^kside server: ok: WRITE [1-9][0-9]* bytes, [1-9][0-9]* SENDs \([1-9][0-9]* bytes\), [1-9][0-9]* WRITE_IMM verified' cat "$kl"
        else
            lab_check_grep "$name-kernel" '^kside server: ok: ' cat "$kl"
        fi
    else
        lab_check_grep "$name-kernel" '^kside client: ok: moved [1-9][0-9]* bytes .*every byte verified' cat "$kl"
        if [[ $ops == *write* ]]; then
            lab_check_grep "$name-refpeer" '^refpeer server: ok: WRITE [1-9][0-9]* bytes, [1-9][0-9]* SENDs \([1-9][0-9]* bytes\) verified' cat "$rl"
        else
            lab_check_grep "$name-refpeer" '^refpeer server: ok: ' cat "$rl"
        fi
    fi
    if [ "$lossy" = 0 ]; then
        # nothing lost on the way either: no socket of either namespace
        # dropped a datagram for a full buffer
        lab_check "$name-no-rcvbuf-drops" test $(($(rcvbuf_errors h1) - rb1)) -eq 0 \
            -a $(($(rcvbuf_errors h2) - rb2)) -eq 0
        lab_check "$name-no-spec-drops" spec_grown "$snap"
        lab_check_grep "$name-refpeer-refused-nothing" \
            'drops wire 0 auth 0 replay 0 unkeyed 0 ' cat "$rl"
    fi
}

# clean, no protection
run_case in-clean in write,send,read,atomic 8M 0
run_case in-read in read 4M 0
run_case in-paths4 in write,send,read 4M 0 --paths 4
run_case out-clean out write,send,read 8M 0

# loss and reordering on both namespaces' eth0
for imp in "loss1:loss 1%:4M" "loss10:loss 10%:1M" "reorder25:delay 1ms reorder 25% 50%:4M"; do
    n=${imp%%:*} rest=${imp#*:}
    args=${rest%:*} bytes=${rest##*:}
    for dir in in out; do
        lab_check "netem-$dir-$n" netem "$args"
        if [ "$dir" = in ]; then
            run_case "$dir-$n" in write,send,read,atomic "$bytes" 1
        else
            run_case "$dir-$n" out write,send,read "$bytes" 1
        fi
        case $n in
            loss*) lab_check "netem-dropped-$dir-$n" test "$(netem_dropped)" -gt 0 ;;
        esac
        netem ""
    done
done

# the kernel READs alone at 10 % loss: its congestion window splits each
# READ into small READ_REQs, and it resends lost responses one segment at
# a time, which the peer must replay
lab_check netem-out-read-loss10 netem "loss 10%"
run_case out-read-loss10 out read 2M 1
netem ""

# packet protection: one device key, the same bytes at both ends
head -c 32 /dev/urandom >"$LAB_WORK/key"
KEYHEX=$(od -An -tx1 -v "$LAB_WORK/key" | tr -d ' \n')
lab_check keyctl-key sh -c "keyctl padd logon metaroce:interop @u <$LAB_WORK/key"
lab_check key-mr1 put "$P1/key" "1 metaroce:interop"
PROT_ARGS=(--key "$KEYHEX" --key-id 1)
for mode in auth encrypt; do
    lab_check "protection-$mode" put "$P1/protection" "$mode"
    PROT_ARGS=(--prot "$mode" --key "$KEYHEX" --key-id 1)
    run_case "in-$mode" in write,send,read,atomic 4M 0
    run_case "out-$mode" out write,send,read 4M 0
done
lab_check encrypt-loss1-netem netem "loss 1%"
run_case in-encrypt-loss1 in write,send,read 2M 1
netem ""
# other key bytes at the peer under the same id: nothing may move, and mr1
# must refuse the peer's packets as unauthentic
head -c 32 /dev/urandom >"$LAB_WORK/key-other"
OTHERHEX=$(od -An -tx1 -v "$LAB_WORK/key-other" | tr -d ' \n')
auth0=$(mro_counter mr1 rx_drop_auth)
tcp=$((tcp + 1))
ip netns exec h1 timeout -k 5 60 "$KS" --server --listen $tcp -d mr1 -g "$G1" --port "$MRO_PORT" \
    --bytes 1M --msg $MSG -T 50 >"$LAB_WORK/wrong-key-kside.log" 2>&1 &
srv=$!
mro_wait_listen h1 $tcp 30
ip netns exec h2 timeout -k 5 60 "$RP" --client -l 10.98.0.2 --connect 10.98.0.1:$tcp \
    --port "$MRO_PORT" --bytes 1M --msg $MSG --ops write --prot encrypt --key "$OTHERHEX" \
    --key-id 1 --retry 3 >"$LAB_WORK/wrong-key-refpeer.log" 2>&1
kill "$srv" 2>/dev/null
wait "$srv"
cp "$LAB_WORK/wrong-key-kside.log" "$LAB_WORK/wrong-key-refpeer.log" "$LAB_OUT/"
lab_check_grep wrong-key-refpeer-fails '^refpeer client: FAILED' cat "$LAB_WORK/wrong-key-refpeer.log"
lab_check wrong-key-kernel-refuses test "$(mro_counter mr1 rx_drop_auth)" -gt "$auth0"
lab_check_grep wrong-key-logged 'mr1: QP [0-9]+: a packet from peer QP [0-9]+ fails authentication under key id 1: the peer has another key of that id' dmesg

lab_check protection-none put "$P1/protection" none
PROT_ARGS=()

for c in $SPEC_DROPS rx_drop_replay rx_drop_unkeyed rx_drop_window rx_drop_dup_req \
    retransmits hello_sent hello_rcvd; do
    [ -e "/sys/class/infiniband/mr1/ports/1/hw_counters/$c" ] &&
        lab_metric "mr1_$c" "$(mro_counter mr1 "$c")"
done
mro_counters_nonzero mr1 >"$LAB_OUT/mr1-counters.txt"
lab_check link-del-mr1 ip netns exec h1 rdma link delete mr1
lab_check rmmod rmmod metaroce
lab_check dmesg-clean mro_dmesg_clean
