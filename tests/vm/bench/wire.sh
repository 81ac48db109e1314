# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# bench wire (guest side): the impaired wire between the two lab VMs, built
# with tc on eth0 of each VM.  Only the transport's data traffic is impaired
# (UDP to BENCH_PORT, TCP to/from 5201); control traffic (the bench agent,
# perftest's TCP handshake, barriers) passes untouched.
#
#   egress eth0:  root prio 1:  band 1:1 control | band 1:2 data
#                 1:2 -> netem 20: (loss, delay, reorder) -> tbf 30: (the
#                 bottleneck: BENCH_RATE, queue BENCH_QUEUE bytes)
#   clsact:       ingress: one counting filter per source-port bucket
#                 (sport & 7) of data arriving here; in skew mode the same
#                 filters redirect to ifb0, where bucket k is delayed by
#                 k * SKEW ms (per-path delay skew behind the bottleneck)
#                 egress: the same counters for the data sent
#                 ingress prio 1: the black hole (one bucket dropped) when asked
#
# Environment: BENCH_PORT (UDP port of the RDMA transport), BENCH_RATE
# (tc rate, e.g. 12mbit, or "none"), BENCH_QUEUE (tbf limit, bytes),
# BENCH_BURST (tbf burst, bytes).

BENCH_DEV_NET=${BENCH_DEV_NET:-eth0}
BENCH_TCP_PORT=5201

# wire_data_matches PROTO_DPORT_SPORT...: u32 selectors of the data traffic
_wire_data_sel() {
	printf '%s\n' \
		"match ip protocol 17 0xff match ip dport $BENCH_PORT 0xffff" \
		"match ip protocol 6 0xff match ip dport $BENCH_TCP_PORT 0xffff" \
		"match ip protocol 6 0xff match ip sport $BENCH_TCP_PORT 0xffff"
}

wire_reset() {
	local d=$BENCH_DEV_NET
	tc qdisc del dev "$d" root 2>/dev/null
	tc qdisc del dev "$d" clsact 2>/dev/null
	[ -e /sys/class/net/ifb0 ] && ip link del ifb0
	return 0
}

# _wire_bucket_filters ingress|egress BUCKET ACTION: tc -batch lines of the
# counting filters of one bucket (prio 21+k: UDP, 31+k: TCP; prio 1 is the
# black hole's)
_wire_bucket_filters() {
	local d=$BENCH_DEV_NET
	echo "filter add dev $d $1 prio $((21 + $2)) protocol ip u32 match ip protocol 17 0xff" \
		"match ip dport $BENCH_PORT 0xffff match ip sport $2 0x7 $3"
	echo "filter add dev $d $1 prio $((31 + $2)) protocol ip u32 match ip protocol 6 0xff" \
		"match ip dport $BENCH_TCP_PORT 0xffff match ip sport $2 0x7 $3"
}

# wire_setup LOSS_PCT DELAY_MS REORDER_PCT SKEW_MS (one tc -batch: a tc
# process costs ~0.5 s in a busy TCG guest)
wire_setup() {
	local loss=${1:-0} delay=${2:-0} reorder=${3:-0} skew=${4:-0} d=$BENCH_DEV_NET sel k
	local netem='limit 10000' act='action pass' b=/tmp/lab/wire.batch
	wire_reset
	[ "$loss" != 0 ] && netem+=" loss $loss%"
	[ "$delay" != 0 ] && netem+=" delay ${delay}ms"
	[ "$reorder" != 0 ] && netem+=" reorder $reorder%"
	if [ "$skew" != 0 ]; then
		ip link add ifb0 type ifb && ip link set ifb0 up || return 1
		act='action mirred egress redirect dev ifb0'
	fi
	{
		echo "qdisc add dev $d root handle 1: prio bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
		while read -r sel; do
			echo "filter add dev $d parent 1: prio 2 protocol ip u32 $sel flowid 1:2"
		done < <(_wire_data_sel)
		echo "qdisc add dev $d parent 1:2 handle 20: netem $netem"
		[ "${BENCH_RATE:-none}" != none ] && echo "qdisc add dev $d parent 20:1 handle 30: tbf" \
			"rate $BENCH_RATE burst ${BENCH_BURST:-12000} limit ${BENCH_QUEUE:-32768}"
		# per-bucket counters of the data arriving here (and the skew redirect)
		echo "qdisc add dev $d clsact"
		if [ "$skew" != 0 ]; then
			echo "qdisc add dev ifb0 root handle 2: prio bands 8 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
			for k in 0 1 2 3 4 5 6 7; do
				echo "qdisc add dev ifb0 parent 2:$((k + 1)) handle $((40 + k)): netem limit 10000" \
					"delay $((k * skew))ms"
				echo "filter add dev ifb0 parent 2: prio 1 protocol ip u32 match ip sport $k 0x7" \
					"flowid 2:$((k + 1))"
			done
		fi
		for k in 0 1 2 3 4 5 6 7; do
			_wire_bucket_filters ingress "$k" "$act"
			_wire_bucket_filters egress "$k" 'action pass'
		done
	} >"$b"
	tc -batch "$b"
}

# wire_modules: load the qdiscs, classifiers and actions once
wire_modules() {
	modprobe -a sch_prio sch_netem sch_tbf sch_ingress cls_u32 act_gact act_mirred &&
		modprobe ifb numifbs=0
}

# wire_buckets [ingress|egress]: "b0 b1 ... b7" bytes of data received
# (sent) per source-port bucket
wire_buckets() {
	tc -s filter show dev "$BENCH_DEV_NET" "${1:-ingress}" | awk '
		/^filter .* pref [0-9]+ / { for (i = 1; i <= NF; i++) if ($i == "pref") p = $(i + 1) }
		/^[ \t]*Sent [0-9]+ bytes/ && p > 20 { b[(p - 21) % 10] += $2 }
		END { for (k = 0; k < 8; k++) printf "%s%d", (k ? " " : ""), b[k] + 0; print "" }'
}

# wire_drops: packets the data path of this VM's egress dropped so far: the
# random loss plus the bottleneck's overflow.  netem 20: alone: it counts
# the drops of its child (tbf 30:) as its own too (netem_dequeue()).
wire_drops() {
	tc -s qdisc show dev "$BENCH_DEV_NET" | awk '
		/^qdisc/ { q = $2 == "netem" && $3 == "20:" }
		q && /dropped/ { for (i = 1; i < NF; i++) if ($i ~ /dropped$/) { v = $(i + 1); sub(",", "", v); s += v } }
		END { print s + 0 }'
}

# wire_rx_bytes: all data bytes received here so far
wire_rx_bytes() {
	wire_buckets ingress | awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }'
}

# wire_blackhole BUCKET | off: drop the data arriving here from source ports
# with (sport & 7) == BUCKET (ingress of the receiver, before the counters:
# a hole in the network, invisible to the sender's stack; a drop at the
# sender's egress would be reported to it, and rxe then retries at once, for
# ever: a soft lockup)
wire_blackhole() {
	local d=$BENCH_DEV_NET
	tc filter del dev "$d" ingress prio 1 2>/dev/null
	[ "$1" = off ] && return 0
	tc filter add dev "$d" ingress prio 1 protocol ip u32 match ip protocol 17 0xff \
		match ip dport "$BENCH_PORT" 0xffff match ip sport "$1" 0x7 action drop &&
	tc filter add dev "$d" ingress prio 1 protocol ip u32 match ip protocol 6 0xff \
		match ip dport "$BENCH_TCP_PORT" 0xffff match ip sport "$1" 0x7 action drop
}

# wire_describe: one line for the report
wire_describe() {
	tc qdisc show dev "$BENCH_DEV_NET" | tr '\n' ';'
}
