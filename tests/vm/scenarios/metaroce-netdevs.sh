#!/bin/bash
# metaroce-netdevs (pair topology): address families and link types. Over one
# metaroce device on eth0, each variant runs tools/datacheck (every verb,
# every byte verified, rdma_cm addressing by the variant's IP) and an
# ib_write_bw with the variant's GID:
#   ipv6       global IPv6 addresses (fd99::/64) on eth0
#   ipv6ll     the link-local IPv6 addresses of eth0 (rdma_cm with %eth0)
#   vlan       an 802.1Q VLAN netdev eth0.42 (10.42.0.0/24): the link stays
#              on the real device, the VLAN's addresses are GIDs of its port
#   mtu9000    eth0 at MTU 9000: active MTU 4096, packets of ~4 KiB
# Bonding needs two NICs per VM, which the pair topology does not have (see
# tests/vm/README.md): not covered here.
#
# Files (--files): datacheck, metaroce.ko, metaroce-lib.sh; optional
# netdevs.conf (sourced): NDV_VARIANTS="ipv6 ipv6ll vlan mtu9000",
# NDV_DC_ARGS="-n 1 -q 2", NDV_TIMEOUT=300.
source "$LAB_LIB"

NDV_VARIANTS="ipv6 ipv6ll vlan mtu9000"
NDV_DC_ARGS="-n 1 -q 2"
NDV_TIMEOUT=300
[ -f "$LAB_FILES/netdevs.conf" ] && source "$LAB_FILES/netdevs.conf"
DC=$LAB_FILES/datacheck
HW=/sys/class/infiniband/mr0/ports/1/hw_counters

lab_check datacheck-runs "$DC" -h || exit 1
modprobe -a ib_uverbs rdma_ucm 8021q
source "$LAB_FILES/metaroce-lib.sh"
mro_install
lab_check modprobe-metaroce modprobe metaroce || exit 1
lab_check link-add rdma link add mr0 type metaroce netdev eth0 || exit 1
lab_check active mro_wait_state mr0 ACTIVE || exit 1

if [ "$ROLE" = a ]; then n=1 peer_n=2; else n=2 peer_n=1; fi

# gid_index PREFIX: index of the RoCE v2 GID of mr0 that starts with PREFIX
# (the sysfs form, e.g. fd99:0000 or 0000:0000:0000:0000:0000:ffff:0a2a),
# waiting up to 10 s for it
gid_index() {
    local d=/sys/class/infiniband/mr0/ports/1 f i t
    for t in $(seq 50); do
        for f in "$d"/gids/*; do
            i=${f##*/}
            case $(cat "$f" 2>/dev/null) in
                "$1"*) [ "$(cat "$d/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] &&
                    { echo "$i"; return 0; } ;;
            esac
        done
        sleep 0.2
    done
    echo "no RoCE v2 GID starting with $1 on mr0" >&2
    return 1
}

# dc NAME SERVER-ADDR CLIENT-TARGET: datacheck, a serves on SERVER-ADDR, b
# connects to CLIENT-TARGET; both sides must report zero mismatches/errors
dc() {
    local name=$1 saddr=$2 target=$3 pat
    pat='^datacheck: role=[a-z]+ qps=[0-9]+ ops=[1-9][0-9]* bytes=[0-9]+ mismatches=0 errors=0 '
    if [ "$ROLE" = a ]; then
        timeout -k 30 "$NDV_TIMEOUT" "$DC" -s -a "$saddr" -p 18650 -T 120 \
            >"$LAB_WORK/$name-server.log" 2>&1 &
        local pid=$!
        sleep 2
        lab_barrier "$name" || { kill $pid; return 1; }
        wait $pid
        lab_check_grep "$name-server" "$pat" cat "$LAB_WORK/$name-server.log"
    else
        lab_barrier "$name" || return 1
        sleep 1
        # shellcheck disable=SC2086
        timeout -k 30 "$NDV_TIMEOUT" "$DC" -c "$target" -p 18650 -T 120 $NDV_DC_ARGS \
            >"$LAB_WORK/$name-client.log" 2>&1
        lab_check_grep "$name" "$pat" cat "$LAB_WORK/$name-client.log"
    fi
    cp "$LAB_WORK/$name"-*.log "$LAB_OUT/" 2>/dev/null
    lab_barrier "$name-done"
}

# wbw NAME GID-INDEX: ib_write_bw over that GID (the out-of-band TCP
# exchange uses the lab's IPv4 addresses)
wbw() {
    local name=$1 gid=$2 out bw
    if [ "$ROLE" = a ]; then
        timeout 120 ib_write_bw -d mr0 -x "$gid" -q 2 -s 65536 -n 200 -F \
            >"$LAB_WORK/$name.out" 2>&1 &
        local pid=$!
        sleep 1
        lab_barrier "$name" || return 1
        wait $pid
        lab_check "$name-server" test $? -eq 0
    else
        lab_barrier "$name" || return 1
        sleep 1
        out=$(lab_retry 10 2 timeout 120 ib_write_bw -d mr0 -x "$gid" -q 2 -s 65536 \
            -n 200 -F "$PEER_IP" 2>&1)
        lab_check_grep "$name" '^ *[0-9]+ +[0-9]+' echo "$out"
        bw=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ {print $4; exit}' <<<"$out")
        [ -n "$bw" ] && lab_metric "${name}_MBps" "$bw"
    fi
    lab_barrier "$name-done"
}

for v in $NDV_VARIANTS; do
    lab_log "variant $v"
    case $v in
    ipv6)
        ip -6 addr add "fd99::$n/64" dev eth0 nodad
        lab_barrier "$v-addr" || break
        lab_check "$v-ping" lab_retry 10 1 ping -6 -c 1 -W 2 "fd99::$peer_n"
        gid=$(gid_index fd99:0000); lab_check "$v-gid" test -n "$gid"
        dc "$v-datacheck" "fd99::1" "fd99::1"
        [ -n "$gid" ] && wbw "$v-write-bw" "$gid"
        ip -6 addr del "fd99::$n/64" dev eth0
        ;;
    ipv6ll)
        # the link-local address follows from the MAC (52:54:00:99:00:0N)
        lab_check "$v-ping" lab_retry 10 1 ping -6 -c 1 -W 2 "fe80::5054:ff:fe99:$peer_n%eth0"
        gid=$(gid_index fe80:0000); lab_check "$v-gid" test -n "$gid"
        dc "$v-datacheck" "fe80::5054:ff:fe99:1%eth0" "fe80::5054:ff:fe99:1%eth0"
        [ -n "$gid" ] && wbw "$v-write-bw" "$gid"
        ;;
    vlan)
        ip link add link eth0 name eth0.42 type vlan id 42 &&
            ip addr add "10.42.0.$n/24" dev eth0.42 && ip link set eth0.42 up
        lab_barrier "$v-addr" || break
        lab_check "$v-ping" lab_retry 10 1 ping -c 1 -W 2 "10.42.0.$peer_n"
        # the VLAN's address is a GID of mr0's port (::ffff:10.42.0.N)
        gid=$(gid_index "0000:0000:0000:0000:0000:ffff:0a2a:000$n"); lab_check "$v-gid" test -n "$gid"
        # the link cannot be added on the VLAN netdev itself
        lab_check_grep "$v-link-refused" 'VLAN|not supported|Operation not supported' \
            rdma link add mr1 type metaroce netdev eth0.42
        rdma link delete mr1 2>/dev/null
        dc "$v-datacheck" "10.42.0.1" "10.42.0.1"
        [ -n "$gid" ] && wbw "$v-write-bw" "$gid"
        ip link del eth0.42
        ;;
    mtu9000)
        lab_check "$v-set" ip link set eth0 mtu 9000
        lab_barrier "$v-addr" || break
        lab_check_grep "$v-active-mtu" 'active_mtu:[[:space:]]*4096' ibv_devinfo -d mr0
        gid=$(lab_gid_index mr0)
        p0=$(cat $HW/sent_pkts) b0=$(cat $HW/sent_bytes)
        dc "$v-datacheck" "$MY_IP" "$PEER_IP"
        wbw "$v-write-bw" "$gid"
        p1=$(cat $HW/sent_pkts) b1=$(cat $HW/sent_bytes)
        # the writer (b) sends full 4 KiB packets: bytes per packet well above 1500
        if [ "$ROLE" = b ]; then
            lab_metric "${v}_bytes_per_pkt" "$(( (b1 - b0) / (p1 - p0) ))"
            lab_check "$v-big-packets" test $(( (b1 - b0) / (p1 - p0) )) -gt 2000
        fi
        ip link set eth0 mtu 1500
        ;;
    *) lab_record "$v" false "unknown variant" ;;
    esac
done

lab_check dmesg-clean mro_dmesg_clean
lab_barrier finished
