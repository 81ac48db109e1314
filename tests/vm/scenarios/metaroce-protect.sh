#!/bin/bash
# metaroce-protect (netns topology): packet protection between two devices
# (namespace h1's mr1 serves, h2's mr2 is the client) keyed with one logon
# key (keyutils' keyctl).  tools/datacheck over every verb with protection
# auth and then encrypt, clean and under netem loss and reordering: every
# byte checked, no packet refused (rx_drop_auth, rx_drop_replay 0), the
# QPs report their mode (rdma resource -dd), ib_write_bw (whose server
# stays in RTR) moves data, and a sniffer on h1's eth0
# sees every packet of the connections sealed but the HELLOs.  A QP
# connected to itself (tools/mro-selfqp) SENDs, WRITEs, READs and runs
# atomics on its own memory in both modes, its one flow under one key and
# one nonce sequence.  An on-path
# attacker's replays, bit flips and spliced tags are all dropped and
# counted while a transfer runs intact.  Keys rotate while a transfer
# runs: it finishes intact, and connections made afterwards take a key
# both ends hold.  Then the two ends disagree: mr2 with other key bytes
# under the same id (the connection carries nothing, mr1 counts
# rx_drop_auth and logs that the peer has another key), and mr2 without
# protection against mr1's auth (the negotiation ends the connection on
# both ends and says which mode each wants).  With the CPU's AES and
# GHASH drivers loaded (as udev loads them on a host), the connections
# seal and open with the vector gcm(aes) (/proc/crypto's "__gcm(aes)" is
# held while a transfer runs).
#
# UD datagrams (tools/mro-udcheck to a QP, rdma_cm's mckey to a multicast
# group) are sealed with their sender's key in both modes and arrive
# intact, the first ones after waiting for the key; under other key bytes
# or with protection off at the sender, every one is refused.
#
# Files (--files): metaroce.ko, metaroce-lib.sh, datacheck (tools/datacheck),
# mro-selfqp, mro-udcheck.
source "$LAB_LIB"
source "$LAB_IN/files/metaroce-lib.sh"

DC=$LAB_FILES/datacheck
PROT_NETEM="loss 1% reorder 25% 50% delay 1ms"
P1=/sys/class/infiniband/mr1/ports/1/metaroce
P2=/sys/class/infiniband/mr2/ports/1/metaroce

lab_check datacheck-present test -x "$DC" || exit 1
lab_check keyctl-present command -v keyctl || exit 1
mro_install
lab_check modprobe-metaroce modprobe metaroce || exit 1
modprobe -a ib_uverbs rdma_ucm sch_netem
# the CPU's AES and GHASH drivers, which udev loads on a host; the lab's
# guests do not run it
modprobe -q -a aesni_intel ghash_clmulni_intel
lab_netns_hosts 2
lab_check link-add-mr1 ip netns exec h1 rdma link add mr1 type metaroce netdev eth0 || exit 1
lab_check link-add-mr2 ip netns exec h2 rdma link add mr2 type metaroce netdev eth0 || exit 1
lab_check active-mr1 mro_wait_state mr1 ACTIVE || exit 1
lab_check active-mr2 mro_wait_state mr2 ACTIVE || exit 1
G1=$(lab_gid_index mr1) || exit 1
G2=$(lab_gid_index mr2) || exit 1

# put FILE LINE: write LINE as `echo LINE > FILE`, failing as it fails
put() {
    bash -c 'echo "$2" >"$1"' put "$1" "$2"
}

head -c 32 /dev/urandom >"$LAB_WORK/k1"
head -c 32 /dev/urandom >"$LAB_WORK/k1-other"
lab_check keyctl-k1 sh -c "keyctl padd logon metaroce:prot1 @u <$LAB_WORK/k1"
lab_check keyctl-k1-other sh -c "keyctl padd logon metaroce:other1 @u <$LAB_WORK/k1-other"
lab_check key-mr1 put "$P1/key" "1 metaroce:prot1"
lab_check key-mr2 put "$P2/key" "1 metaroce:prot1"

# dc_pair NAME PORT LIMIT CLIENT-ARGS...: datacheck, server in h1, client in
# h2, each for at most LIMIT seconds; the server is stopped if the client
# failed.  Logs: $LAB_WORK/NAME-{client,server}.log
dc_pair() {
    local name=$1 port=$2 limit=$3 srv rc; shift 3
    ip netns exec h1 timeout -k 5 "$limit" "$DC" -s -p "$port" -T "$limit" \
        >"$LAB_WORK/$name-server.log" 2>&1 &
    srv=$!
    sleep 2
    ip netns exec h2 timeout -k 5 "$limit" "$DC" -c 10.98.0.1 -p "$port" -T "$limit" "$@" \
        >"$LAB_WORK/$name-client.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || kill "$srv" 2>/dev/null
    wait "$srv"
    cp "$LAB_WORK/$name-client.log" "$LAB_WORK/$name-server.log" "$LAB_OUT/"
    return $rc
}

# dc NAME PORT CLIENT-ARGS...: dc_pair, and the client's last line must
# report zero mismatches and errors
DC_PAT='^datacheck: role=client qps=[0-9]+ ops=[1-9][0-9]* bytes=[0-9]+ mismatches=0 errors=0 '
dc() {
    local name=$1 port=$2; shift 2
    dc_pair "$name" "$port" 120 "$@"
    lab_check_grep "$name" "$DC_PAT" cat "$LAB_WORK/$name-client.log"
}

# udc NAME PORT CLIENT-ARGS...: tools/mro-udcheck, server (UD QP) in h1,
# client in h2; both must report no altered or repeated datagram (and
# with --all every datagram and echo delivered)
UDC_PAT='^mro-udcheck: role=[a-z]+ sent=[0-9]+ received=[1-9][0-9]* echoed=[0-9]+ bad=0 dup=0$'
udc() {
    local name=$1 port=$2 srv rc; shift 2
    ip netns exec h1 timeout -k 5 120 "$LAB_FILES/mro-udcheck" -d mr1 -x "$G1" -s \
        -p "$port" -t 100 "$@" >"$LAB_WORK/$name-server.log" 2>&1 &
    srv=$!
    sleep 3
    ip netns exec h2 timeout -k 5 120 "$LAB_FILES/mro-udcheck" -d mr2 -x "$G2" \
        -c 10.98.0.1 -p "$port" "$@" >"$LAB_WORK/$name-client.log" 2>&1
    rc=$?
    wait "$srv"
    cp "$LAB_WORK/$name-client.log" "$LAB_WORK/$name-server.log" "$LAB_OUT/"
    lab_check_grep "$name-client" "$UDC_PAT" cat "$LAB_WORK/$name-client.log"
    lab_check_grep "$name-server" "$UDC_PAT" cat "$LAB_WORK/$name-server.log"
    return $rc
}

# ud_refused NAME PORT: 20 datagrams from h2's mr2 to h1's mr1 that mr1
# must all refuse as unauthentic: none delivered, rx_drop_auth counts each
ud_refused() {
    local name=$1 port=$2 a0 srv
    a0=$(mro_counter mr1 rx_drop_auth)
    ip netns exec h1 timeout -k 5 60 "$LAB_FILES/mro-udcheck" -d mr1 -x "$G1" -s \
        -p "$port" -t 40 >"$LAB_WORK/$name-server.log" 2>&1 &
    srv=$!
    sleep 3
    ip netns exec h2 timeout -k 5 60 "$LAB_FILES/mro-udcheck" -d mr2 -x "$G2" \
        -c 10.98.0.1 -p "$port" -n 20 >"$LAB_WORK/$name-client.log" 2>&1
    wait "$srv"
    cp "$LAB_WORK/$name-client.log" "$LAB_WORK/$name-server.log" "$LAB_OUT/"
    lab_check_grep "$name-none-delivered" '^mro-udcheck: role=server sent=0 received=0 ' \
        cat "$LAB_WORK/$name-server.log"
    lab_check "$name-refused" test "$(mro_counter mr1 rx_drop_auth)" -ge $((a0 + 20))
}

# refusals: what both devices refused as unauthentic or replayed
refusals() {
    echo $(($(mro_counter mr1 rx_drop_auth) + $(mro_counter mr2 rx_drop_auth) +
            $(mro_counter mr1 rx_drop_replay) + $(mro_counter mr2 rx_drop_replay)))
}

# sniff SECONDS: the metaroce packets h1's eth0 receives for that long, or
# until 200 sealed ones came, as "sniffed=N sealed=S hello=H plain=P
# ud_sealed=U ud_plain=V gsi=G" (plain: neither sealed nor HELLO; the
# datagrams apart: UD QPs' sealed and unsealed ones, and the connection
# manager's to QP 1, which are never sealed, whatever their flags)
sniff() {
    ip netns exec h1 python3 - "$1" "$MRO_PORT" <<'PY'
import socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind(('eth0', 0))
s.settimeout(0.5)
end = time.time() + float(sys.argv[1])
port = int(sys.argv[2])
n = sealed = hello = plain = ud_sealed = ud_plain = gsi = 0
while time.time() < end and sealed + ud_sealed < 200:
    try:
        f = s.recv(65535)
    except socket.timeout:
        continue
    if len(f) < 14 + 20 + 8 + 28 or f[12:14] != b'\x08\x00' or f[23] != 17:
        continue
    u = 14 + (f[14] & 15) * 4
    if struct.unpack('>H', f[u + 2:u + 4])[0] != port:
        continue
    op, flags = f[u + 9], struct.unpack('>H', f[u + 10:u + 12])[0]
    if op in (0x20, 0x21):
        dqpn = struct.unpack('>I', f[u + 12:u + 16])[0]
        if dqpn == 1:
            gsi += 1
        elif flags & 0x100:
            ud_sealed += 1
        else:
            ud_plain += 1
        continue
    n += 1
    if op == 0x32:
        hello += 1
    elif flags & 0x100:
        sealed += 1
    else:
        plain += 1
print('sniffed=%d sealed=%d hello=%d plain=%d ud_sealed=%d ud_plain=%d gsi=%d' %
      (n, sealed, hello, plain, ud_sealed, ud_plain, gsi))
PY
}

port=18700
for mode in auth encrypt; do
    lab_check "protection-$mode-mr1" put "$P1/protection" "$mode"
    lab_check "protection-$mode-mr2" put "$P2/protection" "$mode"
    (
        for _ in $(seq 60); do
            rdma resource show qp link mr2/1 -dd >"$LAB_WORK/res-$mode.txt" 2>&1
            grep -q "protection $mode" "$LAB_WORK/res-$mode.txt" && break
            sleep 0.5
        done
    ) &
    sampler=$!
    sniff 40 >"$LAB_WORK/sniff-$mode.txt" &
    sniffer=$!
    dc "dc-$mode" $((port++)) -n 2
    kill $sampler 2>/dev/null
    wait $sampler 2>/dev/null
    wait $sniffer
    cat "$LAB_WORK/sniff-$mode.txt"
    # on the wire: every packet of the connections sealed but the HELLOs
    lab_check_grep "wire-sealed-$mode" '^sniffed=[0-9]+ sealed=[1-9][0-9]+ hello=[0-9]+ plain=0 ' \
        cat "$LAB_WORK/sniff-$mode.txt"
    # datagrams: each UD QP seals with its own key, the first datagram
    # (and the first echo) wait at the receiver while it derives the
    # sender's key; to mr1's QP, and from rdma_cm's mckey to a multicast
    # group that mckey in h1 joined
    sniff 30 >"$LAB_WORK/sniff-ud-$mode.txt" &
    sniffer=$!
    udc "ud-$mode" $((port++)) -n 100 --all
    ip netns exec h1 timeout 60 mckey -m 230.1.1.1 -b 10.98.0.1 -C 20 \
        >"$LAB_WORK/mckey-$mode-recv.log" 2>&1 &
    srv=$!
    sleep 3
    ip netns exec h2 timeout 60 mckey -m 230.1.1.1 -b 10.98.0.2 -s -C 20 \
        >"$LAB_WORK/mckey-$mode-send.log" 2>&1
    wait "$srv"
    lab_check "mckey-$mode-recv" test $? -eq 0
    cp "$LAB_WORK/mckey-$mode-recv.log" "$LAB_WORK/mckey-$mode-send.log" "$LAB_OUT/"
    lab_check_grep "mckey-$mode-received" 'data transfers complete' \
        cat "$LAB_WORK/mckey-$mode-recv.log"
    wait $sniffer
    cat "$LAB_WORK/sniff-ud-$mode.txt"
    lab_check_grep "wire-ud-sealed-$mode" ' ud_sealed=[1-9][0-9]* ud_plain=0 ' \
        cat "$LAB_WORK/sniff-ud-$mode.txt"
    lab_check_grep "qp-protection-$mode" "protection $mode" cat "$LAB_WORK/res-$mode.txt"
    # perftest without rdma_cm: its server's QP stays in RTR, and keys
    # with the HELLO it answers from there
    ip netns exec h1 timeout 120 ib_write_bw -d mr1 -x "$G1" -s 65536 -n 100 -F \
        >"$LAB_WORK/wbw-$mode-server.log" 2>&1 &
    srv=$!
    sleep 2
    lab_check_grep "write-bw-rtr-server-$mode" '^ *65536 +100 +[0-9.]+' \
        ip netns exec h2 timeout 120 ib_write_bw -d mr2 -x "$G2" -s 65536 -n 100 -F 10.98.0.1
    wait "$srv"
    lab_check "no-refusals-$mode" test "$(refusals)" -eq 0
    # shellcheck disable=SC2086
    lab_check "netem-$mode" ip netns exec h2 tc qdisc add dev eth0 root netem $PROT_NETEM
    dc "dc-$mode-loss" $((port++)) -n 1
    dropped=$(ip netns exec h2 tc -s qdisc show dev eth0 | mro_qdisc_dropped)
    lab_check "netem-dropped-$mode" test "${dropped:-0}" -gt 0
    ip netns exec h2 tc qdisc del dev eth0 root
    lab_check "no-refusals-$mode-loss" test "$(refusals)" -eq 0
    # a QP connected to itself: one flow, one key and nonce sequence
    lab_check_grep "self-qp-$mode" ': 3 rounds, 589824 bytes verified: ok$' \
        ip netns exec h1 timeout 120 "$LAB_FILES/mro-selfqp" -d mr1 -x "$G1" -n 3
    lab_check "no-refusals-$mode-self" test "$(refusals)" -eq 0
done
for c in hello_sent hello_rcvd rx_drop_auth rx_drop_replay rx_drop_unkeyed retransmits; do
    lab_metric "mr1_$c" "$(mro_counter mr1 $c)"
    lab_metric "mr2_$c" "$(mro_counter mr2 $c)"
done

# An on-path attacker (a raw socket on h2's eth0, which sees every packet
# mr2 sends) replays sealed packets, flips one bit in copies of them (the
# UDP checksum cleared, so that only the transport can refuse them), and
# splices one packet's tag and counter onto another while a transfer runs
# (mode encrypt): every forged packet must be dropped and counted, and the
# transfer must finish intact.
drops() {
    cat /sys/class/infiniband/mr1/ports/1/hw_counters/rx_drop_* | awk '{ s += $1 } END { print s }'
}
d0=$(drops)
r0=$(mro_counter mr1 rx_drop_replay)
a0=$(mro_counter mr1 rx_drop_auth)
dc_pair onpath $((port++)) 120 -n 8 &
pair=$!
sleep 3
# gcm_held: "DRIVER REFCNT" of the vector gcm(aes) implementations; the
# crypto API holds each registered one once, every transform of it once more
gcm_held() {
    awk '/^name/ { n = $3 } /^driver/ { d = $3 } /^refcnt/ { r = $3 }
        /^$/ { if (n == "__gcm(aes)") print d, r; n = d = r = "" }' /proc/crypto
}
gcm_held | tee "$LAB_WORK/gcm-held.txt"
ip netns exec h2 python3 - "$MRO_PORT" >"$LAB_WORK/onpath.txt" 2>&1 <<'PY'
import random, socket, struct, sys, time
port = int(sys.argv[1])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind(('eth0', 0))
s.settimeout(0.5)
got, end = [], time.time() + 20
while len(got) < 200 and time.time() < end:
    try:
        f, addr = s.recvfrom(65535)
    except socket.timeout:
        continue
    if addr[2] != socket.PACKET_OUTGOING or f[12:14] != b'\x08\x00' or f[23] != 17:
        continue
    u = 14 + (f[14] & 15) * 4
    if struct.unpack('>H', f[u + 2:u + 4])[0] != port:
        continue
    if not struct.unpack('>H', f[u + 10:u + 12])[0] & 0x100:
        continue		# only sealed packets: HELLOs and datagrams are not
    got.append(bytearray(f))
r = random.Random(1)
n = {'replay': 0, 'flip': 0, 'splice': 0}
for i, f in enumerate(got):
    u = 14 + (f[14] & 15) * 4
    s.send(bytes(f))
    n['replay'] += 1
    g = bytearray(f)
    g[u + 6:u + 8] = b'\0\0'		# no UDP checksum
    pos = r.randrange(u + 8, len(g))
    g[pos] ^= 1 << r.randrange(8)
    s.send(bytes(g))
    n['flip'] += 1
    h = got[(i + 1) % len(got)]
    if len(h) == len(f) and h != f:
        g = bytearray(f)
        g[u + 6:u + 8] = b'\0\0'
        g[-24:] = h[-24:]		# another packet's tag and counter
        s.send(bytes(g))
        n['splice'] += 1
print(' '.join('%s=%d' % kv for kv in n.items()))
PY
wait "$pair"
gcm_held | tee "$LAB_WORK/gcm-held-after.txt"
cp "$LAB_WORK/gcm-held.txt" "$LAB_WORK/gcm-held-after.txt" "$LAB_OUT/"
# the transfer's connections held a vector implementation: its count was
# higher while they ran than after they ended
lab_check vector-gcm-held awk 'NR == FNR { during[$1] = $2; next }
    during[$1] > $2 { held = 1 } END { exit !held }' \
    "$LAB_WORK/gcm-held.txt" "$LAB_WORK/gcm-held-after.txt"
cat "$LAB_WORK/onpath.txt"
cp "$LAB_WORK/onpath.txt" "$LAB_OUT/"
lab_check_grep onpath-transfer "$DC_PAT" cat "$LAB_WORK/onpath-client.log"
replays=$(sed -n 's/.*replay=\([0-9]*\).*/\1/p' "$LAB_WORK/onpath.txt")
flips=$(sed -n 's/.*flip=\([0-9]*\).*/\1/p' "$LAB_WORK/onpath.txt")
splices=$(sed -n 's/.*splice=\([0-9]*\).*/\1/p' "$LAB_WORK/onpath.txt")
injected=$((${replays:-0} + ${flips:-0} + ${splices:-0}))
lab_metric onpath_injected "$injected"
lab_metric onpath_dropped $(($(drops) - d0))
lab_metric onpath_rx_drop_replay $(($(mro_counter mr1 rx_drop_replay) - r0))
lab_metric onpath_rx_drop_auth $(($(mro_counter mr1 rx_drop_auth) - a0))
lab_check onpath-injected test "${replays:-0}" -ge 50
# every forged packet dropped (and counted): none accepted
lab_check onpath-all-dropped test $(($(drops) - d0)) -ge "$injected"
lab_check onpath-replays-counted test $(($(mro_counter mr1 rx_drop_replay) - r0)) -ge "$replays"

# Rotation while traffic runs: key 2 goes onto mr1, then mr2, and key 1
# comes off both, while a transfer keyed with 1 runs on; it must finish
# intact, and no QP may fail.  Connections made afterwards take key 2,
# also once mr1 alone has a third key (each takes a key both ends hold).
head -c 32 /dev/urandom >"$LAB_WORK/k2"
head -c 16 /dev/urandom >"$LAB_WORK/k3"
lab_check keyctl-k2 sh -c "keyctl padd logon metaroce:prot2 @u <$LAB_WORK/k2"
lab_check keyctl-k3 sh -c "keyctl padd logon metaroce:prot3 @u <$LAB_WORK/k3"
err0=$(($(mro_counter mr1 qp_errors) + $(mro_counter mr2 qp_errors)))
dc_pair rotate $((port++)) 120 -n 8 &
pair=$!
sleep 5
lab_check rotate-k2-mr1 put "$P1/key" "2 metaroce:prot2"
sleep 2
lab_check rotate-k2-mr2 put "$P2/key" "2 metaroce:prot2"
sleep 2
lab_check rotate-k1-off-mr1 put "$P1/key" "-1"
lab_check rotate-k1-off-mr2 put "$P2/key" "-1"
# the keys changed under the transfer, not after it
lab_check rotate-while-transfer-runs kill -0 "$pair"
wait "$pair"
lab_check_grep rotate-transfer "$DC_PAT" cat "$LAB_WORK/rotate-client.log"
lab_check rotate-no-qp-error test \
    $(($(mro_counter mr1 qp_errors) + $(mro_counter mr2 qp_errors))) -eq "$err0"
lab_check rotate-k3-mr1 put "$P1/key" "3 metaroce:prot3"
lab_check_grep rotate-ids-mr1 '^3 2$' cat "$P1/key_ids"
(
    for _ in $(seq 60); do
        rdma resource show qp link mr2/1 -dd >"$LAB_WORK/res-rotated.txt" 2>&1
        grep -q "key_id" "$LAB_WORK/res-rotated.txt" && break
        sleep 0.5
    done
) &
sampler=$!
ref0=$(refusals)
dc dc-rotated $((port++)) -n 1
kill $sampler 2>/dev/null
wait $sampler 2>/dev/null
lab_check_grep rotated-key-2 'key_id 2' cat "$LAB_WORK/res-rotated.txt"
lab_check "no-refusals-rotated" test "$(refusals)" -eq "$ref0"

# mr2 keyed with other bytes under id 2, which mr1 holds too: the HELLOs
# agree (mode, and key 2 in common), the keys do not
lab_check other-key-mode-none put "$P2/protection" none
lab_check other-key-remove put "$P2/key" "-2"
lab_check other-key-install put "$P2/key" "2 metaroce:other1"
lab_check other-key-auth put "$P2/protection" auth
lab_check protection-auth-mr1 put "$P1/protection" auth
auth0=$(mro_counter mr1 rx_drop_auth)
dc_pair other-key $((port++)) 30 -n 1
cat "$LAB_WORK/other-key-client.log"
lab_check other-key-no-data sh -c "! grep -Eq '$DC_PAT' '$LAB_WORK/other-key-client.log'"
lab_check other-key-refused test "$(mro_counter mr1 rx_drop_auth)" -gt "$auth0"
lab_check_grep other-key-logged 'mr1: QP [0-9]+: a packet from peer QP [0-9]+ fails authentication under key id 2: the peer has another key of that id' dmesg
# its datagrams too: a key derived from other bytes opens none of them,
# and the first sender whose key fails is logged
ud_refused ud-other-key $((port++))
lab_check_grep ud-other-key-logged 'mr1: a datagram from QP [0-9]+ fails authentication under key id 2: the sender has another key of that id or another mode' dmesg

# mr2 without protection against mr1's auth: the negotiation ends it
lab_check mode-none-mr2 put "$P2/protection" none
f1=$(mro_counter mr1 negotiation_failed)
dc_pair mode $((port++)) 20 -n 1
lab_check mode-mismatch-counted test "$(mro_counter mr1 negotiation_failed)" -gt "$f1"
lab_check_grep mode-mismatch-logged-mr1 'mr1: QP [0-9]+: peer QP [0-9]+ wants protection none, this end auth: connection ended' dmesg
lab_check_grep mode-mismatch-logged-mr2 'mr2: QP [0-9]+: peer QP [0-9]+ wants protection auth, this end none: connection ended' dmesg
# datagrams have no negotiation: mr1 refuses mr2's unsealed ones
ud_refused ud-mode $((port++))

lab_check link-del-mr1 ip netns exec h1 rdma link delete mr1
lab_check link-del-mr2 ip netns exec h2 rdma link delete mr2
lab_check rmmod rmmod metaroce
lab_check dmesg-clean mro_dmesg_clean
