# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# bench runners (guest side, both VMs): bring a transport up, start and reap
# servers, build the client commands, snapshot CPU time and wire counters.
# Sourced by the scenario (VM b, the conductor) and by every agent command
# (VM a); the settings live in $BENCH_ENV so both see the same ones.

BENCH_ENV=${BENCH_ENV:-/tmp/lab/bench.env}
BENCH_PT_OPTS=${BENCH_PT_OPTS:--F -u 16}
# shellcheck disable=SC1090
[ -f "$BENCH_ENV" ] && . "$BENCH_ENV"

# bench_protect DEV MODE: packet protection MODE (none|auth|encrypt) on
# metaroce device DEV.  auth and encrypt first install the device key: the
# 32 bytes BENCH_MRO_KEY (hex, from bench.conf, the same on both VMs) as
# the logon key metaroce:bench in the user keyring, key id 1.  Changing the
# mode applies to connections made afterwards.
bench_protect() {
	local dev=$1 mode=$2 d=/sys/class/infiniband/$1/ports/1/metaroce
	if [ "$mode" != none ]; then
		[ ${#BENCH_MRO_KEY} = 64 ] || { echo "bench_protect: no BENCH_MRO_KEY" >&2; return 1; }
		python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))' \
			"$BENCH_MRO_KEY" | keyctl padd logon metaroce:bench @u >/dev/null || return 1
		echo "1 metaroce:bench" >"$d/key" || return 1
	fi
	echo "$mode" >"$d/protection" || return 1
	[ "$(cat "$d/protection")" = "$mode" ] ||
		{ echo "bench_protect: $dev reads protection $(cat "$d/protection"), not $mode" >&2; return 1; }
}

# bench_gcm_driver: the gcm(aes) implementations metaroce's protection can
# get on this VM with their priorities (/proc/crypto; the highest priority
# of each kind wins): the synchronous ones, e.g.
# "gcm_base(ctr(aes-aesni),ghash-generic):200", and the vector ones it
# calls directly where the FPU is usable ("__gcm(aes)", e.g.
# "__generic-gcm-aesni:400"); a template instance is there while a user
# (metaroce) holds it or keeps it warm
bench_gcm_driver() {
	awk '/^name/ { n = $3 } /^driver/ { d = $3 } /^priority/ { p = $3 } /^async/ { a = $3 }
		/^$/ { if ((n == "gcm(aes)" && a != "yes") || n == "__gcm(aes)") print d ":" p
			n = d = p = a = "" }' /proc/crypto |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}

# bench_up TRANSPORT: load and configure metaroce|metaroce-auth|
# metaroce-encrypt|rxe|tcp; writes $BENCH_ENV.  metaroce-auth and
# metaroce-encrypt: metaroce with that packet protection (bench_protect),
# set before any connection is made
bench_up() {
	local t=$1 dev='' port=0 gid=''
	modprobe -a ib_uverbs rdma_ucm 2>/dev/null
	wire_modules || return 1
	case $t in
	metaroce | metaroce-auth | metaroce-encrypt)
		# the CPU's AES and GHASH drivers, which udev loads on a host (the
		# lab's guests run no udev); without them the crypto API has only
		# aes-generic and ghash-generic for packet protection
		modprobe -q -a aesni_intel ghash_clmulni_intel 2>/dev/null || true
		# shellcheck disable=SC2086 # a list of NAME=VALUE words
		mro_install && modprobe metaroce ${BENCH_MRO_PARAMS:-} || return 1
		rdma link add mr0 type metaroce netdev eth0 || return 1
		mro_wait_state mr0 ACTIVE || return 1
		case $t in
		metaroce-auth) bench_protect mr0 auth || return 1 ;;
		metaroce-encrypt) bench_protect mr0 encrypt || return 1 ;;
		esac
		dev=mr0 port=4796 ;;
	rxe)
		modprobe crc32_generic
		modprobe rdma_rxe || return 1
		rdma link add rxe0 type rxe netdev eth0 || return 1
		dev=rxe0 port=4791 ;;
	tcp)
		port=4791 ;;
	*)
		echo "unknown transport $t" >&2; return 1 ;;
	esac
	[ -n "$dev" ] && { gid=$(lab_gid_index "$dev") || return 1; }
	cat >"$BENCH_ENV" <<-EOT
		BENCH_TRANSPORT=$t
		BENCH_DEV=$dev
		BENCH_GID=$gid
		BENCH_PORT=$port
		BENCH_RATE=${BENCH_RATE:-none}
		BENCH_QUEUE=${BENCH_QUEUE:-32768}
		BENCH_BURST=${BENCH_BURST:-12000}
	EOT
	# shellcheck disable=SC1090
	. "$BENCH_ENV"
}

# bench_down: remove the transport bench_up brought up (its device, then its
# module: metaroce and rdma_rxe refuse to be loaded together)
bench_down() {
	local mod i
	case $BENCH_TRANSPORT in
	metaroce | metaroce-auth | metaroce-encrypt) mod=metaroce ;;
	rxe) mod=rdma_rxe ;;
	*) return 0 ;;
	esac
	rdma link delete "$BENCH_DEV" || return 1
	# the last uverbs file may close a moment after its process exits
	for ((i = 0; i < 20; i++)); do
		modprobe -r "$mod" 2>/dev/null && return 0
		sleep 0.5
	done
	modprobe -r "$mod"
}

# bench_snap: "UPTIME BUSY_JIFFIES KERNEL_JIFFIES RX_DATA_BYTES WIRE_DROPS
# KERNEL_INSNS USER_INSNS VCPU_TICKS MAIN_TICKS HZ" of this VM (WIRE_DROPS:
# wire_drops, its egress; the rest from the lab's insnprof plugin, bench.sh
# --insnprof, else 0 0 0 0 1: bench_insns)
bench_snap() {
	local up busy kern
	up=$(cut -d' ' -f1 /proc/uptime)
	read -r busy kern < <(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $4 + $7 + $8 }' /proc/stat)
	echo "$up $busy $kern $(wire_rx_bytes) $(wire_drops) $(bench_insns)"
}

# bench_insns: "KERNEL USER VCPU MAIN HZ": the kernel and user instructions
# this VM executed so far, and the host CPU time (in HZ ticks) of its QEMU's
# vCPU threads and of its other threads (the main loop, which emulates the
# devices and timers); the vCPU's host time counts only when the host ran it,
# where the guest's /proc/stat counts the time the host took it away too
# (0 0 0 0 1 without the plugin)
bench_insns() {
	local name=t-$BASHPID-$RANDOM k=0 u=0 vc=0 mn=0 hz=1 key v c ut st
	if [ -d "$LAB_OUT/insnprof" ] && lab_insnprof "$name"; then
		while read -r key v c ut st; do
			case $key in
			kernel) k=$v ;;
			user) u=$v ;;
			ticks) hz=$v ;;
			task)
				case $c in
				CPU_*) vc=$((vc + ut + st)) ;;
				*) mn=$((mn + ut + st)) ;;
				esac
				;;
			esac
		done <"$LAB_OUT/insnprof/$name.snap"
	fi
	echo "$k $u $vc $mn $hz"
}

# srv_start NAME CMD...: run CMD in the background (its own session), log in
# /tmp/lab/srv-NAME.log; returns at once
srv_start() {
	local name=$1
	shift
	setsid "$@" >"/tmp/lab/srv-$name.log" 2>&1 </dev/null &
	echo $! >"/tmp/lab/srv-$name.pid"
}

# srv_wait NAME TIMEOUT: wait for the server to exit (killing it after TIMEOUT
# seconds), print its log; status 0 if it exited 0 by itself
srv_wait() {
	local name=$1 t=$2 pid i rc=0
	pid=$(cat "/tmp/lab/srv-$name.pid" 2>/dev/null) || return 1
	for ((i = 0; i < t * 5; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -- -"$pid" 2>/dev/null
		sleep 0.5
		kill -9 -- -"$pid" 2>/dev/null
		rc=124
	fi
	cat "/tmp/lab/srv-$name.log"
	rm -f "/tmp/lab/srv-$name.pid"
	return $rc
}

# srv_listening TCPPORT [TIMEOUT]
srv_listening() {
	lab_wait_port "$1" "${2:-60}"
}

# pt_bw_cmd TEST SIZE QPS DURATION [PEER] [-p PORT]: perftest bandwidth command
# (ib_write_bw / ib_send_bw / ib_read_bw); DURATION includes the margins
BENCH_PT_MARGIN=1
pt_bw_cmd() {
	local test=$1 size=$2 qps=$3 dur=$4
	shift 4
	# shellcheck disable=SC2086 # BENCH_PT_OPTS is a list of options
	echo "ib_$test -d $BENCH_DEV -x $BENCH_GID -s $size -q $qps -D $dur --margin $BENCH_PT_MARGIN $BENCH_PT_OPTS $*"
}

# pt_lat_cmd TEST SIZE ITERS [PEER] [-p PORT]: ib_send_lat / ib_write_lat
pt_lat_cmd() {
	local test=$1 size=$2 iters=$3
	shift 3
	echo "ib_$test -d $BENCH_DEV -x $BENCH_GID -s $size -n $iters $BENCH_PT_OPTS $*"
}

# pt_bw_parse SIZE DURATION < output: "MIBPS SOURCE", the average MiB/s
# (perftest's MB/sec are 2^20 bytes) and where it came from.  perftest's
# duration mode counts the iterations completed between its two alarms
# (DURATION - 2 x margin apart) and divides by the cycle counter's reading of
# that window.  Under TCG it has printed 0.00 with hundreds of iterations
# counted (3 metaroce samples so far; the cause inside perftest is not known).
# Then the figure is the iterations over the alarms' nominal window, SOURCE
# "iterations".
pt_bw_parse() {
	awk -v s="$1" -v w="$(($2 - 2 * BENCH_PT_MARGIN))" '
		$1 == s && NF >= 5 { v = $4; n = $2 }
		END {
			if (v == "")
				exit
			if (v + 0 == 0 && n > 0 && w > 0)
				printf "%.2f iterations\n", n * s / w / 1048576
			else
				print v, "perftest"
		}'
}

# iperf_parse < iperf3 -J output: received MiB/s
iperf_parse() {
	jq -r '.end.sum_received.bits_per_second // empty | . / 8 / 1048576'
}

# bench_hw_counters: this VM's port counters as one JSON object (empty for tcp)
bench_hw_counters() {
	local d=/sys/class/infiniband/${BENCH_DEV:-none}/ports/1/hw_counters f
	{
		[ -d "$d" ] && for f in "$d"/*; do
			[ -f "$f" ] && printf '%s %s\n' "${f##*/}" "$(cat "$f" 2>/dev/null || echo 0)"
		done
	} | jq -Rn '[inputs | split(" ") | {(.[0]): (.[1] | tonumber? // 0)}] | add // {}'
}

# bench_sampler INTERVAL: print "UPTIME B0 .. B7" (data bytes received per
# source-port bucket) every INTERVAL seconds until killed
bench_sampler() {
	while :; do
		echo "$(cut -d' ' -f1 /proc/uptime) $(wire_buckets ingress)"
		sleep "$1"
	done
}

# bench_fast_sampler: "UPTIME PKTS" (packets the transport received) at
# each tick of /proc/uptime (10 ms) until killed; nothing without an RDMA
# device.  Builtins only, no process per sample: a read with a timeout on
# a pipe nobody writes paces it at about 5 ms, leaving the CPU to the
# transport.
bench_fast_sampler() {
	local f=/sys/class/infiniband/${BENCH_DEV:-none}/ports/1/hw_counters/rcvd_pkts
	local up last='' v fd _

	[ -r "$f" ] || return 0
	exec {fd}<> <(:)
	while :; do
		read -r up _ </proc/uptime
		if [ "$up" != "$last" ]; then
			read -r v <"$f"
			echo "$up $v"
			last=$up
		fi
		read -r -t 0.005 -u "$fd" _
	done
}

bench_uptime() {
	cut -d' ' -f1 /proc/uptime
}

# bench_retry CMD...: run CMD up to 5 times, but retry only a quick failure
# (the server not listening yet); a run that failed after 20 s is a result
bench_retry() {
	local i t rc
	for i in 1 2 3 4 5; do
		t=$SECONDS
		"$@" && return 0
		rc=$?
		[ $((SECONDS - t)) -gt 20 ] && return $rc
		sleep 2
	done
	return $rc
}
