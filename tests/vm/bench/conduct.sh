# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# bench conductor (guest, VM b): runs one plan point at a time.  A point is
# a line of key=value words: cat= (loss|size|ops|reorder|skew|ceiling|
# blackhole|lat|mem), test=, size=, qps=, loss=, delay=, reorder=, skew=,
# load=, rep=, and (bench.sh --interleave) transport=: when it is not the
# transport up, both VMs switch to it first (the device and its module go
# down and come up again, so a metaroce protection mode is in force before
# the point's connections are made).  Each point appends one JSON
# object (the point's keys plus its results) to $LAB_OUT/samples.jsonl and
# logs one line.

SAMPLES=$LAB_OUT/samples.jsonl
BENCH_DUR=${BENCH_DUR:-6}

# ag CMD...: run CMD on VM a through its agent; prints the output, returns its status
ag() {
	local out rc
	out=$(timeout 300 bash -c 'exec 3<>"/dev/tcp/$0/7701" || exit 111
		printf "%s\n" "$1" >&3; cat <&3' "$PEER_IP" "$*") || { echo "$out"; return 111; }
	rc=$(tail -n1 <<<"$out")
	sed '$d' <<<"$out"
	return "${rc#rc=}"
}

# record POINT_LINE JSON_RESULT
record() {
	jq -nc --arg kv "$1" --argjson res "$2" --arg tr "$BENCH_TRANSPORT" '
		($kv | split(" ") | map(select(length > 0) | split("=") |
			{(.[0]): (.[1] | tonumber? // .)}) | add) + {transport: $tr} + $res' >>"$SAMPLES"
}

# rows_json: lines of space-separated numbers on stdin -> a JSON array of arrays
rows_json() {
	jq -Rsc 'split("\n") | map(select(length > 0) | split(" ") | map(tonumber))'
}

# snap_delta "BEFORE" "AFTER": seconds busy_s kernel_s rx_bytes wire_drops
# kernel_insns host_vcpu_s host_main_s (bench_snap)
snap_delta() {
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x); split(b, y); hz = y[10] > 0 ? y[10] : 1
		printf "%.3f %.2f %.2f %d %d %.0f %.2f %.2f\n", y[1] - x[1], (y[2] - x[2]) / 100,
			(y[3] - x[3]) / 100, y[4] - x[4], y[5] - x[5], y[6] - x[6],
			(y[8] - x[8]) / hz, (y[9] - x[9]) / hz }'
}

# bw_client TEST SIZE QPS DUR: run the client side, print its output
bw_client() {
	local test=$1 size=$2 qps=$3 dur=$4
	if [ "$BENCH_TRANSPORT" = tcp ]; then
		bench_retry timeout $((dur + 60)) iperf3 -c "$PEER_IP" -p 5201 -t $((dur - 1)) -O 1 \
			-P "$qps" -l "$size" -J
	else
		# shellcheck disable=SC2046 # the command is a word list
		bench_retry timeout $((dur + 90)) $(pt_bw_cmd "$test" "$size" "$qps" "$dur" "$PEER_IP")
	fi
}

# bw_server TEST SIZE QPS DUR: start the server on VM a and wait for it to
# listen; prints VM a's bench_snap taken just before
bw_server() {
	if [ "$BENCH_TRANSPORT" = tcp ]; then
		ag "bench_snap; srv_start bw iperf3 -s -1 -p 5201 && srv_listening 5201 60"
	else
		ag "bench_snap; srv_start bw $(pt_bw_cmd "$@") && srv_listening 18515 60"
	fi
}

# bw_parse SIZE DUR < client output: "MIBPS SOURCE" (see pt_bw_parse)
bw_parse() {
	if [ "$BENCH_TRANSPORT" = tcp ]; then
		iperf_parse | awk '{ print $1, "iperf3" }'
	else
		pt_bw_parse "$1" "$2"
	fi
}

# point_wire: configure both ends for the point's loss/delay/reorder/skew
point_wire() {
	local rate=$BENCH_RATE
	[ "${P[cat]}" = ceiling ] && rate=none
	local args="${P[loss]:-0} ${P[delay]:-0} ${P[reorder]:-0} ${P[skew]:-0}" pid rc=0
	# both ends at once
	# shellcheck disable=SC2086
	ag BENCH_RATE="$rate" wire_setup $args >"$LAB_WORK/wire-a.log" 2>&1 &
	pid=$!
	# shellcheck disable=SC2086
	BENCH_RATE=$rate wire_setup $args || rc=1
	wait $pid || { rc=1; cat "$LAB_WORK/wire-a.log"; }
	return $rc
}

# telemetry_loop: metaroce's live per-path table of the sending QPs
telemetry_loop() {
	sleep 2
	while :; do
		echo "---- per-path telemetry, t=$(cut -d' ' -f1 /proc/uptime)s (tools/mro-paths: rdma resource show qp -dd)"
		python3 "$LAB_FILES/mro-paths" -d "$BENCH_DEV" -i 0 | head -n 40
		sleep 3
	done
}

point_bw() {
	local test=${P[test]} size=${P[size]} qps=${P[qps]:-1} dur=${P[dur]:-$BENCH_DUR}
	local sa0 sb0 sa1 sb1 out rc=0 srv bw src da db hw0 hw1 err=''
	hw0=$(bench_hw_counters)
	sb0=$(bench_snap)
	sa0=$(bw_server "$test" "$size" "$qps" "$dur") || err="server did not start"
	lab_log "server up"
	sa0=$(head -n1 <<<"$sa0")
	local tele=''
	if [ "${BENCH_TELEMETRY:-0}" = 1 ] && [[ $BENCH_TRANSPORT == metaroce* ]]; then
		telemetry_loop &
		tele=$!
	fi
	out=$(bw_client "$test" "$size" "$qps" "$dur" 2>&1) || rc=$?
	[ -n "$tele" ] && { kill "$tele"; wait "$tele"; } 2>/dev/null
	lab_log "client done (rc=$rc)"
	sb1=$(bench_snap)
	srv=$(ag "srv_wait bw 5 >/tmp/lab/srv-bw.out; bench_snap; tail -c 300 /tmp/lab/srv-bw.out" 2>&1)
	sa1=$(head -n1 <<<"$srv")
	hw1=$(bench_hw_counters)
	bw=$(bw_parse "$size" "$dur" <<<"$out")
	src=${bw#* } bw=${bw%% *}
	[ -z "$bw" ] && err=${err:-"client rc=$rc: $(tail -c 300 <<<"$out" | tr '\n' ' ')"}
	da=$(snap_delta "$sa0" "$sa1") db=$(snap_delta "$sb0" "$sb1")
	# the receiver of the data: VM a, except for READ (responses flow a -> b)
	local rd=false
	[ "$test" = read_bw ] && rd=true
	record "$LINE" "$(jq -nc --arg bw "$bw" --arg src "$src" --arg err "$err" --arg da "$da" \
		--arg db "$db" --argjson rd "$rd" --argjson hw0 "$hw0" --argjson hw1 "$hw1" \
		--arg srv "$(tail -c 300 <<<"$srv")" --arg gcm "$(bench_gcm_driver)" '
		($da | split(" ") | map(tonumber)) as $a | ($db | split(" ") | map(tonumber)) as $b |
		{goodput_MiBps: ($bw | tonumber? // null), goodput_from: (if $bw == "" then null else $src end),
		 error: (if $err == "" then null else $err end),
		 wall_s: $b[0], cpu_busy_s: ($a[1] + $b[1]), cpu_kernel_s: ($a[2] + $b[2]),
		 kernel_insns: (if ($a[5] // 0) > 0 and ($b[5] // 0) > 0 then $a[5] + $b[5] else null end),
		 per_vm: {a: {cpu_busy_s: $a[1], cpu_kernel_s: $a[2], kernel_insns: $a[5],
			      host_vcpu_s: $a[6], host_main_s: $a[7]},
			  b: {cpu_busy_s: $b[1], cpu_kernel_s: $b[2], kernel_insns: $b[5],
			      host_vcpu_s: $b[6], host_main_s: $b[7]}},
		 rx_wire_bytes: (if $rd then $b[3] else $a[3] end), server_tail: $srv,
		 gcm_aes: (if $gcm == "" then null else $gcm end),
		 wire_drops_data: (if $rd then $a[4] else $b[4] end),
		 wire_drops_back: (if $rd then $b[4] else $a[4] end),
		 counters: ($hw1 | with_entries(.value -= ($hw0[.key] // 0)) | with_entries(select(.value != 0)))}')"
	lab_log "result: ${bw:-FAILED} MiB/s${err:+ ($err)}${bw:+ (from $src)}"
	[ -n "$bw" ]
}

# lat_parse < perftest -H output: JSON {summary fields, samples_us: [...]}
lat_parse() {
	awk -v s="$1" '
		/^[0-9]+, *[0-9.]+$/ { sub(",", ""); v[n++] = $2; next }
		$1 == s && NF >= 9 { min = $3; max = $4; med = $5; avg = $6; p99 = $8; p999 = $9 }
		END { printf "{\"t_min_us\": %s, \"t_max_us\": %s, \"median_us\": %s, \"avg_us\": %s, \"p99_us\": %s, \"p999_us\": %s, \"samples_us\": [",
			min + 0, max + 0, med + 0, avg + 0, p99 + 0, p999 + 0
		      for (i = 0; i < n; i++) printf "%s%s", (i ? "," : ""), v[i]; print "]}" }'
}

point_lat() {
	local test=${P[test]} size=${P[size]:-64} iters=${P[iters]:-500} out rc=0 err='' res
	local bulk=''
	if [ "${P[load]:-0}" = 1 ]; then
		# a bulk WRITE flow on its own QP (perftest port 18600) shares the wire
		ag srv_start bulk "$(pt_bw_cmd write_bw 65536 1 300 -p 18600)" &&
			ag srv_listening 18600 60 || err="bulk server did not start"
		# --foreground: timeout stays in this session's process group, so
		# the kill below reaches the client too (else it outlives the point,
		# retrying for ever against the stopped server: retry_cnt 7)
		setsid bash -c ". $PRELUDE; bench_retry timeout --foreground 320 $(pt_bw_cmd write_bw 65536 1 300 \
			-p 18600 "$PEER_IP")" >"$LAB_WORK/bulk.log" 2>&1 </dev/null &
		bulk=$!
		sleep 4
	fi
	ag srv_start lat "$(pt_lat_cmd "$test" "$size" "$iters")" && ag srv_listening 18515 60 ||
		err="server did not start"
	# shellcheck disable=SC2046
	# a ping-pong of ITERS round trips: even at 100 ms each, 120 + ITERS s is plenty
	out=$(bench_retry timeout $((120 + iters)) $(pt_lat_cmd "$test" "$size" "$iters" \
		-H "$PEER_IP") 2>&1) || rc=$?
	ag srv_wait lat 10 >/dev/null
	if [ -n "$bulk" ]; then
		kill -- -"$bulk" 2>/dev/null
		ag srv_wait bulk 2 >/dev/null
		wait "$bulk" 2>/dev/null
	fi
	res=$(lat_parse "$size" <<<"$out")
	if [ "$(jq '.samples_us | length' <<<"$res")" = 0 ] && [ "$(jq .median_us <<<"$res")" = 0 ]; then
		err=${err:-"client rc=$rc: $(tail -c 300 <<<"$out" | tr '\n' ' ')"}
	fi
	record "$LINE" "$(jq -c --arg err "$err" '. + {error: (if $err == "" then null else $err end)}' <<<"$res")"
	lab_log "result: median $(jq .median_us <<<"$res") us, p99 $(jq .p99_us <<<"$res") us${err:+ ($err)}"
	[ -z "$err" ]
}

# point_blackhole: goodput over time while one source-port bucket is dropped
# (pre s after the data starts, hole s black-holed, then post s); VM a's
# per-bucket counters are sampled every tick s.  The hole is made on VM a's
# ingress; hole_on/off are VM a's clock, like the samples.
point_blackhole() {
	local size=${P[size]:-65536} qps=${P[qps]:-1} pre=${P[pre]:-4} hole=${P[hole]:-5} post=${P[post]:-6}
	local dur t_on t_off b0 b1 bucket out rc=0 bw src tl ftl err='' off u0 u1 ua tx0 tx=0
	# slack: on a busy TCG host the control steps before the hole take 20 s
	dur=$((pre + hole + post + 40))
	u0=$(bench_uptime); ua=$(ag bench_uptime); u1=$(bench_uptime)
	off=$(awk -v a="$ua" -v x="$u0" -v y="$u1" 'BEGIN { printf "%.3f", a - (x + y) / 2 }')
	ag srv_start tl bash -c "'. $PRELUDE; bench_sampler ${P[tick]:-0.2}'" >/dev/null
	ag srv_start ftl bash -c "'. $PRELUDE; bench_fast_sampler'" >/dev/null
	bw_server write_bw "$size" "$qps" "$dur" >/dev/null || err="server did not start"
	tx0=$(wire_buckets egress | awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }')
	bw_client write_bw "$size" "$qps" "$dur" >"$LAB_WORK/bh.out" 2>&1 &
	local cpid=$!
	# wait for the data to flow, then pick the busiest bucket over one second
	local end=$((SECONDS + 90))
	while kill -0 "$cpid" 2>/dev/null && [ $SECONDS -lt $end ]; do
		tx=$(wire_buckets egress | awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }')
		[ $((tx - tx0)) -gt 65536 ] && break
		sleep 0.2
	done
	lab_log "data flowing (sent $((tx - tx0)) bytes)"
	sleep "$pre"
	b0=$(wire_buckets egress); sleep 1; b1=$(wire_buckets egress)
	bucket=$(awk -v a="$b0" -v b="$b1" 'BEGIN { split(a, x); split(b, y); m = -1
		for (k = 1; k <= 8; k++) if (y[k] - x[k] > m) { m = y[k] - x[k]; best = k - 1 }
		print best }')
	kill -0 "$cpid" 2>/dev/null || err="the transfer ended before the hole"
	t_on=$(ag "wire_blackhole $bucket && bench_uptime")
	sleep "$hole"
	t_off=$(ag "wire_blackhole off; bench_uptime")
	wait "$cpid" || rc=$?
	out=$(cat "$LAB_WORK/bh.out")
	ag srv_wait bw 5 >/dev/null
	tl=$(ag srv_wait tl 0 | awk 'NF == 9' | rows_json)
	# the 10 ms timeline from 3 s before the hole to 3 s after it
	ftl=$(ag srv_wait ftl 0 | awk -v a="$t_on" -v b="$t_off" 'NF == 2 && $1 >= a - 3 && $1 <= b + 3' |
		rows_json)
	bw=$(bw_parse "$size" "$dur" <<<"$out")
	src=${bw#* } bw=${bw%% *}
	[ -z "$bw" ] && err="client rc=$rc: $(tail -c 300 <<<"$out" | tr '\n' ' ')${err:+; $err}"
	record "$LINE" "$(jq -nc --arg bw "$bw" --arg src "$src" --arg err "$err" --argjson tl "${tl:-[]}" --argjson ftl "${ftl:-[]}" \
		--arg on "$t_on" --arg off "$t_off" --arg d "$off" --arg bucket "$bucket" '
		{goodput_MiBps: ($bw | tonumber? // null), goodput_from: (if $bw == "" then null else $src end),
		 error: (if $err == "" then null else $err end), bucket: ($bucket | tonumber? // null), hole_on: ($on | tonumber? // null),
		 hole_off: ($off | tonumber? // null), clock_offset_s: ($d | tonumber? // null),
		 timeline: $tl, fast_timeline: $ftl}')"
	lab_log "result: bucket $bucket black-holed for ${hole}s, avg ${bw:-FAILED} MiB/s${err:+ ($err)}"
	[ -n "$bw" ]
}

# point_mem: kernel memory per QP (tools/bench/qpmem, on this VM)
point_mem() {
	local out
	if [ -z "$BENCH_DEV" ]; then
		return 0
	fi
	out=$(timeout 600 "$LAB_FILES/qpmem" -d "$BENCH_DEV" -n "${P[qps]:-1000}" 2>&1 | tail -n 1)
	if jq -e . <<<"$out" >/dev/null 2>&1; then
		record "$LINE" "$(jq -c '. + {error: null}' <<<"$out")"
		lab_log "result: $(jq -r '"\(.qps_created) QPs: slab \(.slab_per_qp) B/QP, vmalloc \(.vmalloc_per_qp) B/QP"' <<<"$out")"
		return 0
	fi
	record "$LINE" "$(jq -nc --arg e "$out" '{error: $e}')"
	lab_log "result: FAILED ($out)"
	return 1
}

# calibrate MIBPS: BENCH_RATE=auto becomes half the emulator's measured
# ceiling (so the bottleneck, not TCG, sets the pace), on both VMs; MIBPS
# is the slower of the operations measured (ceiling_mibps)
calibrate() {
	local kbit
	kbit=$(awk -v m="${1:-0}" 'BEGIN { k = m * 8 * 1048.576 * 0.5
		if (k < 1000) k = 1000
		p = 10 ^ int(log(k) / log(10) - 1); printf "%d", int(k / p) * p }')
	BENCH_RATE=${kbit}kbit
	sed -i "s/^BENCH_RATE=.*/BENCH_RATE=$BENCH_RATE/" "$BENCH_ENV"
	ag "sed -i 's/^BENCH_RATE=.*/BENCH_RATE=$BENCH_RATE/' $BENCH_ENV"
	lab_metric bench_rate "$BENCH_RATE"
	lab_log "bottleneck rate: $BENCH_RATE (half the measured ceiling ${1:-?} MiB/s)"
}

# ceiling_mibps: the unshaped 64 KiB goodput of the slower operation
# measured so far (each operation's best sample; failed samples ignored),
# 0 when none: SEND's receive path costs the guests more CPU than WRITE's,
# and a bottleneck above SEND's own limit would measure the CPU, not loss
ceiling_mibps() {
	jq -s '[.[] | select(.cat == "ceiling" and .size == 65536 and
		(.test == "write_bw" or .test == "send_bw") and (.goodput_MiBps // 0) > 0)] |
		group_by(.test) | map(map(.goodput_MiBps) | max) | min // 0' \
		"$SAMPLES" 2>/dev/null || echo 0
}

# switch_to TRANSPORT: both VMs take the current transport down and bring
# TRANSPORT up (VM a through the agent), then this shell reads the new settings
switch_to() {
	local pid rc=0
	lab_log "switching from $BENCH_TRANSPORT to $1"
	ag "bench_down && bench_up $1" >"$LAB_WORK/switch-a.log" 2>&1 &
	pid=$!
	bench_down && bench_up "$1" || rc=1
	wait $pid || { rc=1; cat "$LAB_WORK/switch-a.log"; }
	# shellcheck disable=SC1090
	. "$BENCH_ENV"
	return $rc
}

# run_point LINE
run_point() {
	LINE=$1
	unset P
	declare -gA P=()
	local kv
	for kv in $LINE; do P[${kv%%=*}]=${kv#*=}; done
	if [ -n "${P[transport]:-}" ] && [ "${P[transport]}" != "$BENCH_TRANSPORT" ] &&
		! switch_to "${P[transport]}"; then
		record "$LINE" '{"error": "transport switch failed"}'
		return 1
	fi
	if [ "${P[cat]}" != ceiling ] && [ "$BENCH_RATE" = auto ]; then
		calibrate "$(ceiling_mibps)"
	fi
	if [ "${P[cat]}" != mem ] && ! point_wire; then
		record "$LINE" '{"error": "wire setup failed"}'
		return 1
	fi
	lab_log "wire set"
	case ${P[cat]} in
	lat) point_lat ;;
	blackhole) point_blackhole ;;
	mem) point_mem ;;
	*) point_bw ;;
	esac
}
