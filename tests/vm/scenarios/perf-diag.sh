#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf-diag (pair topology): where do packets go on a lossless unshaped wire?
# Runs short perftest points from b (requester) to a (responder) for every
# transport of $LAB_FILES/transports (see below) in one boot and, around
# every point, snapshots on both VMs what could drop or repeat a packet: the
# transport's port counters, UDP/IP SNMP counters, softnet drops, qdisc
# drops and the VM's CPU time (busy and kernel-only jiffies); prints the
# deltas that are not zero and records METRICs <label>_<point>_MiBps and
# the main counters.
# Optional: $LAB_FILES/sysctl, lines "KEY=VALUE" set with sysctl -w on
# both VMs before the first point (e.g. net.core.netdev_budget_usecs);
# $LAB_FILES/mtu, one number: eth0's MTU on both VMs (frames
# larger than ~1.2 KB reach the transport in page fragments on virtio-net);
# $LAB_FILES/points, lines "NAME TEST SIZE DUR [netem options]"
# (the netem options shape b's egress); $LAB_FILES/qpmem (tools/bench): the
# kernel memory per RC QP of each transport; $LAB_FILES/perfkit, a
# directory with a perf binary (and the shared libraries the rootfs lacks in
# perfkit/lib; bookworm's linux-perf from the host does): every point is
# sampled (cpu-clock, call graphs, all CPUs) on both VMs and the hottest
# kernel symbols are printed, self and inclusive; $LAB_FILES/ftrace,
# function names or globs: instead of perf, the function_graph tracer on
# those functions times them in the steady window (see ftrace_setup).
# Every point also records METRICs <label>_<point>_steady_{busy,kernel,
# rcvd,sent}: CPU jiffies and packets in its steady part only (see
# prof_start), the fair figure for CPU per packet: the whole point's
# counters include perftest's start, whose CPU time does not scale with
# the data moved.
# shellcheck source=tests/vm/guest/lib.sh
source "$LAB_LIB"
# shellcheck source=tests/vm/scenarios/metaroce-lib.sh
source "$LAB_IN/files/metaroce-lib.sh"

# transports: lines "LABEL KIND [MODULE [PARAM=VALUE ...]]" (KIND metaroce |
# rxe; MODULE a metaroce.ko in $LAB_FILES, loaded with those parameters);
# every one runs every point, in this order, in one boot: modules built from
# two trees, or with other parameters, compare on the same host load.
runs=$LAB_FILES/transports
[ -f "$runs" ] || { runs=/tmp/lab/transports; echo "metaroce metaroce metaroce.ko" >"$runs"; }
modprobe -a ib_uverbs rdma_ucm sch_netem udp_tunnel ip6_udp_tunnel libcrc32c crc32_generic 2>/dev/null

# up LABEL KIND MODULE [PARAMS]: load and add the device; sets dev and gid
up() {
	case $2 in
	metaroce)
		# shellcheck disable=SC2086 # parameters are words
		lab_check "$1-insmod" insmod "$LAB_FILES/$3" $4 || return 1
		lab_check "$1-link-add" rdma link add mr0 type metaroce netdev eth0 || return 1
		dev=mr0 ;;
	rxe)
		lab_check "$1-modprobe" modprobe rdma_rxe || return 1
		lab_check "$1-link-add" rdma link add rxe0 type rxe netdev eth0 || return 1
		dev=rxe0 ;;
	esac
	gid=$(lab_gid_index "$dev")
}

# down KIND: remove the device and the module
down() {
	rdma link delete "$dev"
	sleep 1
	case $1 in
	metaroce) lab_check "$dev-rmmod" rmmod metaroce ;;
	rxe) lab_check "$dev-rmmod" rmmod rdma_rxe ;;
	esac
}

# cpu_jiffies BUSY KERNEL: this VM's CPU time so far in jiffies, lines
# "BUSY N" and "KERNEL N" (kernel = system + irq + softirq)
cpu_jiffies() {
	awk -v b="$1" -v k="$2" '/^cpu / { print b, $2 + $3 + $4 + $7 + $8 + $9
					   print k, $4 + $7 + $8 }' /proc/stat
}

# hw NAME: one port counter of the transport's device (0 when absent)
hw() {
	cat "/sys/class/infiniband/$dev/ports/1/hw_counters/$1" 2>/dev/null || echo 0
}

# snap FILE: every counter of interest, "name value" lines
snap() {
	{
		for f in "/sys/class/infiniband/$dev/ports/1/hw_counters"/*; do
			[ -f "$f" ] && echo "hw.${f##*/} $(cat "$f")"
		done
		nstat -saz 2>/dev/null | awk 'NR > 1 && $1 ~ /^(Udp|Ip|IpExt)/ { print "snmp." $1, $2 }'
		local d=0 sq=0 y z
		while read -r _ y z _; do
			d=$((d + 16#$y)) sq=$((sq + 16#$z))
		done </proc/net/softnet_stat
		echo "softnet.dropped $d"
		echo "softnet.squeezed $sq"
		tc -s qdisc show dev eth0 | awk '/^qdisc/ { q = $2 } /dropped/ { gsub(",", ""); print "qdisc." q ".dropped", $7; print "qdisc." q ".overlimits", $9; print "qdisc." q ".sent_pkts", $4 }'
		ip -s -s link show eth0 | awk '/RX:/ { getline; print "link.rx_pkts", $2; print "link.rx_dropped", $4; print "link.rx_over", $5 } /TX:/ { getline; print "link.tx_pkts", $2; print "link.tx_dropped", $4 }'
		cpu_jiffies cpu.busy_jiffies cpu.kernel_jiffies
	} >"$1"
}

# qp_snap WHAT DUR: about every second while the point runs (perftest's
# start under TCG takes seconds, so from 1 s to DUR + 4 s), the requester
# QP's congestion state (cwnd, pipe, delay against target, RTT) from rdma
# res show qp -dd, one line per sample with the seconds since the start
qp_snap() {
	local t0=$SECONDS

	sleep 1
	while [ $((SECONDS - t0)) -le $(($2 + 4)) ]; do
		rdma -dd res show qp link "$dev/1" 2>&1 | awk -v w="$1" -v t=$((SECONDS - t0)) '
			/cwnd/ && / RC / {
				o = ""
				for (i = 1; i < NF; i++) {
					k = $i
					sub(/^drv_/, "", k)
					if (k ~ /^(cwnd|ssthresh|inflight|srtt_us|rttvar_us|min_rtt_us|delay_us|target_us|noise_us|cc_decreases|credit_avail|pace_rate)$/)
						o = o " " k "=" $(i + 1)
				}
				if (o != "") print "   " w " qp t=" t "s:" o
			}'
		sleep 1
	done
}

# irqs: local timer interrupts (LOC), virtio interrupts and the softirqs
# of timers and the network, summed over CPUs: what a packet costs in
# wake-ups, which a TCG guest pays in host time
irqs() {
	awk '$1 == "LOC:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) l += $i }
	     /virtio/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) v += $i }
	     END { print "irq_loc", l + 0; print "irq_virtio", v + 0 }' /proc/interrupts
	awk '$1 ~ /^(HRTIMER|TIMER|NET_RX|NET_TX):$/ {
		s = 0; for (i = 2; i <= NF; i++) s += $i
		n = tolower($1); sub(/:$/, "", n); print "softirq_" n, s }' /proc/softirqs
}

# steady NAME: the VM's CPU jiffies, wake-ups and the transport's packet
# counters
steady() {
	{
		cpu_jiffies busy kernel
		irqs
		echo "rcvd $(hw rcvd_pkts)"
		echo "sent $(hw sent_pkts)"
		echo "txbytes $(cat /sys/class/net/eth0/statistics/tx_bytes)"
		echo "rxbytes $(cat /sys/class/net/eth0/statistics/rx_bytes)"
	} >"$1"
}

# pkts: packets this VM's transport received and sent so far
pkts() {
	echo $(($(hw rcvd_pkts) + $(hw sent_pkts)))
}

# prof_start NAME DUR / prof_end NAME: the steady part of a point, from a
# second after its data started flowing (perftest's start under TCG takes
# several seconds, more on a busy host) for DUR - 3 s: CPU jiffies per
# packet there, and with $LAB_FILES/perfkit, cpu-clock samples of the
# whole VM and its hottest kernel symbols.
perfkit=$LAB_FILES/perfkit
prof_pid=
prof_start() {
	local win=$(($2 > 4 ? $2 - 3 : 1)) p0 i

	(
		p0=$(pkts)
		for ((i = 0; i < 600; i++)); do
			[ $(($(pkts) - p0)) -ge 200 ] && break
			sleep 0.2
		done
		sleep 1
		steady "/tmp/lab/$1.s0"
		lab_insnprof "$1.s0"
		if [ -f "$LAB_FILES/ftrace" ]; then
			ftrace_window "$win"
		elif [ -x "$perfkit/perf" ]; then
			LD_LIBRARY_PATH=$perfkit/lib "$perfkit/perf" record -q \
				-e cpu-clock -F 199 -a -g -o "/tmp/lab/$1.perf" \
				-- sleep "$win"
		else
			sleep "$win"
		fi
		lab_insnprof "$1.s1"
		steady "/tmp/lab/$1.s1"
		# the text symbols, for the instruction profile (modules move)
		[ -d "$LAB_OUT/insnprof" ] &&
			awk '$2 ~ /^[tT]$/' /proc/kallsyms >"$LAB_OUT/insnprof/$1.kallsyms"
	) >/dev/null 2>&1 &
	prof_pid=$!
}
prof_end() {
	local perf=("$perfkit/perf" report -q --stdio -i "/tmp/lab/$1.perf")
	local k v

	[ -n "$prof_pid" ] || return 0
	wait "$prof_pid"
	prof_pid=
	while read -r k v; do
		echo "   $label $1 $ROLE steady $k $v"
		lab_metric "${1//-/_}_steady_$k" "$v"
	done < <(delta "/tmp/lab/$1.s0" "/tmp/lab/$1.s1")
	ftrace_sum | sed "s/^/   $label $1 $ROLE ftrace /"
	[ -f "/tmp/lab/$1.perf" ] || return 0
	export LD_LIBRARY_PATH=$perfkit/lib
	{
		"${perf[@]}" --no-children --sort dso -g none --percent-limit 1
		"${perf[@]}" --no-children --sort dso,sym -g none \
			--percent-limit 0.3 | grep -F '[k]' | head -n 30
		echo "inclusive (self + callees):"
		"${perf[@]}" --children --sort sym -g none --percent-limit 0.8 |
			grep -F '[k]' | head -n 45
	} 2>/dev/null | grep -v '^$' | sed "s/^/   $label $1 $ROLE perf /"
	unset LD_LIBRARY_PATH
	cp "/tmp/lab/$1.perf" "$LAB_OUT/" 2>/dev/null
}

# ftrace_setup / ftrace_window SECS / ftrace_off: with $LAB_FILES/ftrace
# (function names or globs, e.g. "mro_* rxe_* net_rx_action"; names this
# kernel lacks are skipped), the function_graph tracer on those functions
# only.  The setup (seconds of TCG time per name) runs once per transport,
# before its points; a window records SECS seconds into
# /tmp/lab/ftrace.txt.  ftrace_sum prints per function its calls, total
# and self microseconds (self: minus the traced functions it called), by
# self time: where the kernel time goes where cpu-clock samples cannot
# tell (a TCG guest samples its idle loop).  The tracer's own cost is in
# the figures, alike for every transport.
ftrace_dir=/sys/kernel/tracing
ftrace_setup() {
	local t=$ftrace_dir f fl

	[ -f "$LAB_FILES/ftrace" ] || return 0
	[ -d $t/options ] || mount -t tracefs nodev $t
	echo 0 >$t/tracing_on
	echo nop >$t/current_tracer
	echo 32768 >$t/buffer_size_kb
	echo >$t/set_ftrace_filter
	while read -ra fl; do
		for f in "${fl[@]}"; do
			echo "$f" >>$t/set_ftrace_filter 2>/dev/null
		done
	done <"$LAB_FILES/ftrace"
	echo function_graph >$t/current_tracer
	echo 1 >$t/options/funcgraph-tail
}
ftrace_window() {
	local t=$ftrace_dir

	echo >$t/trace
	echo 1 >$t/tracing_on
	sleep "$1"
	echo 0 >$t/tracing_on
	cat $t/trace >/tmp/lab/ftrace.txt
	echo "filter $(wc -l <$t/set_ftrace_filter) functions, buffer $(cat $t/buffer_size_kb) KB, $(grep -h -E '^(entries|overrun|dropped)' $t/per_cpu/cpu*/stats | tr '\n' ' ')" >/tmp/lab/ftrace.info
}
ftrace_off() {
	[ -f "$LAB_FILES/ftrace" ] || return 0
	echo nop >$ftrace_dir/current_tracer
	echo >$ftrace_dir/set_ftrace_filter
	echo 1 >$ftrace_dir/buffer_size_kb
}
ftrace_sum() {
	[ -f /tmp/lab/ftrace.txt ] || return 0
	cat /tmp/lab/ftrace.info
	awk -F'|' 'NF >= 2 {
		f = $2; n = f; sub(/[^ ].*$/, "", n); d = (length(n) - 2) / 2
		if (f ~ /\) \{ *$/) { ch[d + 1] = 0; next }
		if ($1 !~ /us/) next
		u = $1; sub(/^.*\) */, "", u); gsub(/[^0-9.]/, "", u)
		if (f ~ /\} \/\* /) { sub(/^.*\/\* /, "", f); sub(/ \*\/.*$/, "", f) }
		else if (f ~ /\(\);/) { sub(/^ */, "", f); sub(/\(\);.*$/, "", f); ch[d + 1] = 0 }
		else next
		sub(/ \[.*$/, "", f)	# the module
		c[f]++; t[f] += u; s[f] += u - ch[d + 1]; ch[d] += u; ch[d + 1] = 0
	} END { for (f in c) printf "%s calls %d total_us %.0f self_us %.0f\n", f, c[f], t[f], s[f] }' \
		/tmp/lab/ftrace.txt | sort -k7,7nr | head -n 70
	rm -f /tmp/lab/ftrace.txt
}

# delta A B: the counters that moved
delta() {
	awk 'NR == FNR { a[$1] = $2; next } { d = $2 - a[$1]; if (d != 0) print $1, d }' "$1" "$2"
}

points=$LAB_FILES/points
[ -f "$points" ] || {
	points=/tmp/lab/points
	cat >"$points" <<-EOT
		write64k write_bw 65536 6
		write4k write_bw 4096 6
		send64k send_bw 65536 6
		send4k send_bw 4096 6
		reorder64k write_bw 65536 6 delay 4ms reorder 25%
		btl64k write_bw 65536 6 rate 8mbit limit 30
	EOT
}

# qdisc NETEM...: b's data leaves through one FIFO netem (the bench's
# wire: no fq_codel, whose per-flow queues would reorder the paths)
qdisc() {
	tc qdisc del dev eth0 root 2>/dev/null
	[ "$ROLE" = b ] && tc qdisc add dev eth0 root netem limit 10000 "$@"
}

if [ -f "$LAB_FILES/sysctl" ]; then
	while read -r kv; do
		[ -n "$kv" ] || continue
		lab_check "sysctl-$kv" sysctl -w "$kv" || exit 1
	done <"$LAB_FILES/sysctl"
fi
if [ -f "$LAB_FILES/mtu" ]; then
	lab_check set-mtu ip link set eth0 mtu "$(cat "$LAB_FILES/mtu")" || exit 1
fi

port=18600
while read -r label kind mod params; do
	[ -n "$label" ] || continue
	up "$label" "$kind" "$mod" "$params" || exit 1
	ftrace_setup
	lab_barrier "up-$label" || exit 1
	while read -r name test size dur netem; do
		[ -n "$name" ] || continue
		port=$((port + 1))
		# shellcheck disable=SC2086 # netem options are words
		qdisc $netem
		args=(-d "$dev" -x "$gid" -s "$size" -D "$dur" --margin 1 -F -u 16 -p "$port")
		lab_barrier "pre-$label-$name" || exit 1
		snap "/tmp/lab/$name.0"
		if [ "$ROLE" = a ]; then
			timeout 120 "ib_$test" "${args[@]}" >"$name.log" 2>&1 &
			srv=$!
			lab_wait_port $port 60
			lab_barrier "srv-$label-$name" || exit 1
			prof_start "$label-$name" "$dur"
			wait $srv
		else
			lab_barrier "srv-$label-$name" || exit 1
			prof_start "$label-$name" "$dur"
			# (not while counting instructions: its processes are
			# in the profile and metaroce's only)
			[ "$kind" = metaroce ] && [ ! -d "$LAB_OUT/insnprof" ] &&
				qp_snap "$label $name" "$dur" &
			lab_retry 3 2 timeout 120 "ib_$test" "${args[@]}" "$PEER_IP" >"$name.log" 2>&1
			wait
		fi
		snap "/tmp/lab/$name.1"
		prof_end "$label-$name"
		tc qdisc del dev eth0 root 2>/dev/null
		bw=$(awk -v s="$size" '$1 == s && NF >= 5 { v = $4 } END { print v }' "$name.log")
		echo "== $label $name ($ROLE) $test $size ${netem:-lossless}: ${bw:-none} MiB/s"
		[ -n "$bw" ] || tail -n 8 "$name.log" | sed "s/^/   $label $name $ROLE | /"
		delta "/tmp/lab/$name.0" "/tmp/lab/$name.1" | grep -Ev '^(snmp\.(Ip6|IpExt)|link)' |
			sed "s/^/   $label $name $ROLE /"
		[ -n "$bw" ] && lab_metric "${label}_${name}_MiBps" "$bw"
		while read -r k v; do
			lab_metric "${label}_${name}_${k//./_}" "$v"
		done < <(delta "/tmp/lab/$name.0" "/tmp/lab/$name.1" |
			 grep -E '^(hw\.(acks|retrans|rx_dup|loss|rto|sent_pkts|rcvd_pkts)|softnet|qdisc.*dropped|cpu)')
		lab_barrier "post-$label-$name" || exit 1
	done <"$points"
	# kernel memory per RC QP (tools/bench/qpmem), when given
	if [ -x "$LAB_FILES/qpmem" ] && [ "$ROLE" = b ]; then
		mem=$("$LAB_FILES/qpmem" -d "$dev" -n 100 2>&1 | tail -n 1)
		echo "== $label qpmem: $mem"
	fi
	ftrace_off
	down "$kind"
	lab_barrier "down-$label" || exit 1
done <"$runs"
lab_check dmesg-clean bash -c "! dmesg | grep -E '$MRO_DMESG_BAD'"
lab_barrier finished
