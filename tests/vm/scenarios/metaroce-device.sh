#!/bin/bash
# metaroce-device (netns topology): module load, `rdma link add`, GIDs, port
# state, teardown paths, bad input, network namespaces, the rdma_rxe guard,
# and make install / uninstall (with the files Makefile, metaroce.conf and
# metaroce@.service).
source "$LAB_LIB"
source "$LAB_IN/files/metaroce-lib.sh"

mro_install
lab_check modprobe-metaroce modprobe metaroce || exit 1
lab_check_grep loaded-msg 'metaroce: loaded, version [0-9.]+, UDP port 4796' dmesg
lab_check_grep modinfo-version '^version: +[0-9]+\.[0-9]+\.[0-9]+' modinfo metaroce
lab_check_grep modinfo-softdep '^softdep: +pre: ib_uverbs rdma_ucm' modinfo metaroce

# a veth pair gives a netdev whose carrier we control from the other end
ip link add v0 type veth peer name v1
ip addr add 10.97.0.1/24 dev v0
ip link set v0 up
ip link set v1 up

lab_check link-add rdma link add mr0 type metaroce netdev v0 || exit 1
lab_check_grep link-show 'mr0/1 state ACTIVE physical_state LINK_UP netdev v0' rdma link show mr0/1
lab_check_grep ipv4-gid '^[0-9]+$' lab_gid_index mr0
lab_check_grep ibv-devices 'mr0' ibv_devices
lab_check_grep ibv-devinfo 'state:[[:space:]]+PORT_ACTIVE' ibv_devinfo -d mr0
lab_check_grep ibv-devinfo-v 'GID\[ *[0-9]+\]:.*::ffff:10\.97\.0\.1, RoCE v2' ibv_devinfo -v -d mr0
lab_check_grep ibv-devinfo-transport 'transport:[[:space:]]+InfiniBand' ibv_devinfo -d mr0
lab_check_grep active-mtu 'active_mtu:[[:space:]]+1024' ibv_devinfo -d mr0
lab_check_grep rate-from-netdev 'active_speed:[[:space:]]+10\.0 Gbps' ibv_devinfo -v -d mr0
lab_check_grep statistic 'rcvd_pkts' rdma statistic show link mr0/1
# the optional per-path-slot counters, named at module load
lab_check_grep optional-counters 'path0_tx_pkts,.*path7_timeouts' \
    sh -c 'rdma statistic mode supported link mr0/1 | tr "\n" " "'
lab_check_grep udp-socket ":$MRO_PORT" ss -Huln

# MTU follows the netdev
ip link set v0 mtu 9000
ip link set v1 mtu 9000
lab_check_grep mtu-9000 'active_mtu:[[:space:]]+4096' ibv_devinfo -d mr0
ip link set v0 mtu 1500
ip link set v1 mtu 1500

# carrier and admin state move the port
ip link set v1 down
lab_check carrier-down mro_wait_state mr0 DOWN
ip link set v1 up
lab_check carrier-up mro_wait_state mr0 ACTIVE
ip link set v0 down
lab_check admin-down mro_wait_state mr0 DOWN
ip link set v0 up
lab_check admin-up mro_wait_state mr0 ACTIVE
lab_check_grep link-downed-counted '^[1-9]' mro_counter mr0 link_downed

# every packet is validated: a corrupted one from a path source port
# (512-1023) is counted as a CRC drop, one from any other port before that
before=$(mro_counter mr0 rx_drop_crc)
before_sport=$(mro_counter mr0 rx_drop_sport)
python3 - <<'PY'
import socket, struct
bth = struct.pack('>BBHIIIHHII', 0x20, 0x12, 0, 1, 2, 0, 0, 28 + 48, 0, 0)
pkt = bth + bytes(48) + b'\xde\xad\xbe\xef'
for sport in (600, 0):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('10.97.0.1', sport))
    for _ in range(3):
        s.sendto(pkt, ('10.97.0.1', 4796))
PY
sleep 0.5
after=$(mro_counter mr0 rx_drop_crc)
lab_check crc-drop-counted test "$after" -ge $((before + 3))
lab_check sport-drop-counted test "$(mro_counter mr0 rx_drop_sport)" -eq $((before_sport + 3))
lab_log "rx_drop_crc $before -> $after"

# a packet to the port on a netdev without a metaroce device: counted per
# namespace in /proc/net/metaroce
ip link add d0 type dummy
ip addr add 10.97.1.1/24 dev d0
ip link set d0 up
lab_check_grep proc-net '^udp_port 4796$' cat /proc/net/metaroce
nodev=$(sed -n 's/^rx_no_device //p' /proc/net/metaroce)
python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('10.97.1.1', 600))
for _ in range(2):
    s.sendto(bytes(64), ('10.97.1.1', 4796))"
sleep 0.5
lab_check_grep no-device-counted "^rx_no_device $((nodev + 2))\$" cat /proc/net/metaroce
ip link del d0

# bad input leaves nothing half-created
lab_check_grep double-add-refused 'error|Error|exists' rdma link add mr1 type metaroce netdev v0
lab_check no-half-device test ! -e /sys/class/infiniband/mr1
lab_check_grep double-add-msg 'metaroce: v0 already has a metaroce device' dmesg
lab_check_grep unknown-netdev-refused 'error|Error|No such' rdma link add mr1 type metaroce netdev nosuchdev
ip link add link v0 name v0.10 type vlan id 10
lab_check_grep vlan-refused 'error|Error|not supported' rdma link add mr1 type metaroce netdev v0.10
lab_check no-vlan-device test ! -e /sys/class/infiniband/mr1
ip link del v0.10
# what a user can act on: the reason is in the kernel log
lab_check_grep vlan-refused-msg 'v0.10 is a VLAN device; add the link on its real device' dmesg
lab_check_grep loopback-refused 'error|Error|not supported' rdma link add mr1 type metaroce netdev lo
lab_check_grep loopback-refused-msg 'metaroce: lo is a loopback device' dmesg
ip link add s0 type dummy
ip link set s0 mtu 300 up
lab_check_grep small-mtu-refused 'error|Error|Invalid' rdma link add mr1 type metaroce netdev s0
lab_check_grep small-mtu-refused-msg 's0: MTU 300 is below the minimum 372' dmesg
lab_check no-small-mtu-device test ! -e /sys/class/infiniband/mr1
ip link set s0 mtu 1500
# no link-local address either (an MTU back above 1280 gave it one)
sysctl -qw net.ipv6.conf.s0.disable_ipv6=1
lab_check no-address-link-add rdma link add mr1 type metaroce netdev s0
lab_check_grep no-address-msg 's0 has no IPv4 or IPv6 address: mr1 reaches no peer' dmesg
ip link set s0 mtu 300
lab_check_grep mtu-lowered-msg 's0: MTU 300 is below the minimum 372 .*packets will not fit' dmesg
lab_check no-address-link-delete rdma link delete mr1
ip link del s0

# Prometheus node_exporter (Debian's prometheus-node-exporter) scrapes this
# host while mr0 exists and has counted packets.  Its infiniband collector
# needs, for every device, fw_ver (and board_id on bookworm's 1.5.0), then each
# port's state, phys_state, rate and counters/ (the PMA counters, which ib_core
# makes for a driver with process_mad: mro_pma.c); hw_counters/ it does not
# read.  Without one of them it answers "no data" for the whole host.  The
# full hw_counters/ set goes through its textfile collector.
NE_PORT=9100

# ne_scrape OUT ARG...: run node_exporter with only the collectors in ARG...,
# save one /metrics to OUT and its debug log to OUT.log, stop it
ne_scrape() {
    local out=$1 pid rc=0
    shift
    if ss -Htln "sport = :$NE_PORT" | grep -q .; then
        echo "port $NE_PORT is taken"
        return 1
    fi
    prometheus-node-exporter --web.listen-address="127.0.0.1:$NE_PORT" \
        --log.level=debug --collector.disable-defaults "$@" >"$out.log" 2>&1 &
    pid=$!
    lab_wait_port "$NE_PORT" 60 || echo "node_exporter does not listen on $NE_PORT"
    python3 -c '
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=30) as r:
    sys.stdout.buffer.write(r.read())' "http://127.0.0.1:$NE_PORT/metrics" >"$out" || rc=1
    kill "$pid" || rc=1
    wait "$pid"
    grep -v '^#' "$out" | grep -v '^go_\|^process_\|^promhttp_'
    tail -n 5 "$out.log"
    return $rc
}

# ne_has OUT LINE...: OUT has every LINE
ne_has() {
    local f=$1 l rc=0
    shift
    for l; do
        grep -xF -- "$l" "$f" || { echo "missing: $l"; rc=1; }
    done
    return $rc
}

# ne_eq OUT SERIES VALUE: OUT has SERIES with VALUE, compared as numbers (the
# exporter writes 1e+06 and above in exponent form)
ne_eq() {
    awk -v s="$2" -v want="$3" '$1 == s { found = 1; v = $2 }
        END { if (!found) { print "missing: " s; exit 1 }
              if (v + 0 != want + 0) { print s " is " v ", wanted " want; exit 1 } }' "$1"
}

# ne_ib_mr0 OUT: the collector exported mr0's port: state, and the PMA
# counters as ib_core shows them in counters/ (data in 4-octet units, which
# the exporter turns into bytes), equal to our own counters (mr0 is idle)
ne_ib_mr0() {
    local c=/sys/class/infiniband/mr0/ports/1/counters l='{device="mr0",port="1"}' rc=0
    ls "$c"
    ne_has "$1" 'node_scrape_collector_success{collector="infiniband"} 1' \
        "node_infiniband_state_id$l 4" || rc=1
    ne_eq "$1" "node_infiniband_port_packets_received_total$l" "$(mro_counter mr0 rcvd_pkts)" || rc=1
    ne_eq "$1" "node_infiniband_port_packets_transmitted_total$l" "$(mro_counter mr0 sent_pkts)" || rc=1
    ne_eq "$1" "node_infiniband_port_data_received_bytes_total$l" \
        "$(($(cat "$c/port_rcv_data") * 4))" || rc=1
    return $rc
}

ne=$LAB_OUT/node-exporter
lab_check_grep pma-counters-dir '^port_rcv_data$' ls /sys/class/infiniband/mr0/ports/1/counters
lab_check_grep board-id '^metaroce$' cat /sys/class/infiniband/mr0/board_id
lab_check_grep pma-rcv-packets "^$(mro_counter mr0 rcvd_pkts)\$" cat /sys/class/infiniband/mr0/ports/1/counters/port_rcv_packets
lab_check_grep pma-xmit-data "^$(($(mro_counter mr0 sent_bytes) / 4))\$" cat /sys/class/infiniband/mr0/ports/1/counters/port_xmit_data
# the malformed packets counted above are receive errors
lab_check pma-rcv-errors test "$(cat /sys/class/infiniband/mr0/ports/1/counters/port_rcv_errors)" -ge \
    "$(mro_counter mr0 rx_drop_crc)"
lab_check node-exporter-scrape ne_scrape "$ne-ib.txt" --collector.infiniband
lab_metric node_exporter_ib_mr0_series "$(grep -c '^node_infiniband_.*device="mr0"' "$ne-ib.txt")"
lab_check node-exporter-ib-mr0 ne_ib_mr0 "$ne-ib.txt"

# the textfile collector serves hw_counters/ as written to a .prom file
# (metaroce_hw_counter{counter="rx_drop_crc",device="mr0",port="1"}, counted
# above); lifespan is the core's cache time, not a counter
tf=$LAB_WORK/ne-textfile
mkdir -p "$tf"
for f in /sys/class/infiniband/mr0/ports/1/hw_counters/*; do
    [ "${f##*/}" = lifespan ] && continue
    echo "metaroce_hw_counter{device=\"mr0\",port=\"1\",counter=\"${f##*/}\"} $(cat "$f")"
done >"$tf/metaroce.prom"
crc=$(mro_counter mr0 rx_drop_crc)
lab_check node-exporter-scrape-textfile ne_scrape "$ne-textfile.txt" --collector.textfile \
    --collector.textfile.directory="$tf"
lab_check node-exporter-textfile-mr0 ne_has "$ne-textfile.txt" 'node_textfile_scrape_error 0' \
    "metaroce_hw_counter{counter=\"rx_drop_crc\",device=\"mr0\",port=\"1\"} $crc"

# rdma link delete
lab_check link-delete rdma link delete mr0
lab_check link-delete-gone mro_gone mr0

# netdev deletion removes the device
lab_check link-add-2 rdma link add mr2 type metaroce netdev v0
mro_wait_state mr2 ACTIVE
lab_check netdev-del mro_run_or_dump 60 ip link del v0
lab_check netdev-del-gone mro_gone mr2

# a link inside a network namespace
ip netns add ns1
ip link add w0 type veth peer name w1
ip link set w0 netns ns1
ip -n ns1 addr add 10.96.0.1/24 dev w0
ip -n ns1 link set w0 up
ip -n ns1 link set lo up
ip link set w1 up
lab_check netns-link-add ip netns exec ns1 rdma link add mr3 type metaroce netdev w0
lab_check netns-active mro_wait_state mr3 ACTIVE
lab_check_grep netns-gid 'ffff:0a60:0001' cat /sys/class/infiniband/mr3/ports/1/gids/1 /sys/class/infiniband/mr3/ports/1/gids/2 /sys/class/infiniband/mr3/ports/1/gids/3
lab_check_grep netns-socket ":$MRO_PORT" ip netns exec ns1 ss -Huln
lab_check no-socket-in-init-ns bash -c "! ss -Huln | grep -q ':$MRO_PORT'"
before=$(mro_counter mr3 rx_drop_crc)
ip netns exec ns1 python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('0.0.0.0', 601))
s.sendto(bytes([0x20, 0x12]) + bytes(90), ('10.96.0.1', 4796))"
sleep 0.5
lab_check netns-rx-path test "$(( $(mro_counter mr3 rx_drop_crc) + $(mro_counter mr3 rx_drop_hdr_len) ))" -gt "$before"
ip netns del ns1
lab_check netns-del-gone mro_gone mr3

# rmmod with a device present
ip link add x0 type veth peer name x1
ip link set x0 up
ip link set x1 up
lab_check link-add-4 rdma link add mr4 type metaroce netdev x0
lab_check rmmod-with-device rmmod metaroce
lab_check rmmod-gone mro_gone mr4

# the installed module loads itself on rdma link add (its rdma-link alias)
lab_check not-loaded sh -c '! grep -q "^metaroce " /proc/modules'
lab_check autoload-link-add rdma link add mr4 type metaroce netdev x0
lab_check_grep autoloaded '^metaroce ' cat /proc/modules
lab_check autoload-active mro_wait_state mr4 ACTIVE
lab_check autoload-rmmod rmmod metaroce

# rdma_rxe and metaroce exclude each other, with a message each way
modprobe crc32_generic 2>/dev/null || true
lab_check reload modprobe metaroce
lab_check_grep rxe-refused 'rror|not permitted|busy' modprobe rdma_rxe
lab_check_grep rxe-refused-msg 'refusing to load rdma_rxe while metaroce is loaded' dmesg
lab_check rmmod-again rmmod metaroce
lab_check rxe-loads modprobe rdma_rxe
lab_check_grep metaroce-refused 'rror|busy' modprobe metaroce
lab_check_grep metaroce-refused-msg 'rdma_rxe is loaded' dmesg
lab_check rxe-unload rmmod rdma_rxe

# make install and make uninstall, from a tree laid out as the source's
# (files: Makefile, metaroce.conf, metaroce@.service)
if [ -f "$LAB_FILES/Makefile" ]; then
    t=$LAB_WORK/tree
    mkdir -p "$t/drivers/infiniband/sw/metaroce" "$t/tools/install"
    cp "$LAB_FILES/Makefile" "$t/"
    cp "$LAB_FILES/metaroce.ko" "$t/drivers/infiniband/sw/metaroce/"
    cp "$LAB_FILES/metaroce.conf" "$LAB_FILES/metaroce@.service" "$t/tools/install/"
    rm -f "/lib/modules/$(uname -r)/extra/metaroce.ko"
    depmod -a
    lab_check make-install make -C "$t" install
    # (a pattern without the release: 6.12's has a '+')
    lab_check_grep installed-module '^/lib/modules/[^/]+/extra/metaroce\.ko$' modinfo -n metaroce
    lab_check installed-modprobe-conf test -f /etc/modprobe.d/metaroce.conf
    lab_check installed-unit test -f /etc/systemd/system/metaroce@.service
    lab_check installed-loads modprobe metaroce
    lab_check installed-unload rmmod metaroce
    lab_check make-uninstall make -C "$t" uninstall
    lab_check uninstalled sh -c '! modinfo -n metaroce'
    lab_check uninstall-keeps-conf test -f /etc/modprobe.d/metaroce.conf
fi

lab_check dmesg-clean mro_dmesg_clean
