#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/bench.sh (`make bench`): metaroce vs rxe vs TCP on the same
# impaired wire between two lab VMs (one boot per transport: metaroce and
# rdma_rxe cannot be loaded together), then a report.
#
#   tests/vm/bench.sh [--profile smoke|quick|standard|full|bottleneck] [--reps N]
#                     [--out DIR] [--dist bookworm|trixie] [--rate TCRATE]
#                     [--queue BYTES] [--transports "metaroce rxe tcp"]
#                     [--ko metaroce.ko] [--show] [--telemetry] [--cats "loss lat ..."]
#                     [--mro-params "cc_algo=off cc_credits=0"] [--interleave]
#                     [--insnprof]
#
# Defaults: --profile standard (~95 min here), --reps 3 (smoke: 1),
# --rate auto (half the slower of the unshaped WRITE and SEND 64 KiB rates
# the first transport measures in its boot; the later boots reuse it),
# --queue 32768, --out out/bench/<UTC time>.
# Writes DIR/report.md, DIR/samples.json (every sample), DIR/*.png and the
# lab runs in DIR/run-<transport>/.  Prints DIR at the end.  Installs what
# it needs (jq, gcc, libibverbs-dev, python3-matplotlib) with apt.
# --transports: any of metaroce (packet protection none), rxe, tcp, and
# metaroce-auth / metaroce-encrypt: metaroce with that packet protection,
# set on both VMs right after the device is created, keyed with 32 random
# bytes drawn here once per run (bench.conf BENCH_MRO_KEY, installed by
# bench_protect in tests/vm/bench/runners.sh); the report labels them
# "metaroce auth" / "metaroce encrypt" and compares them with metaroce.
# --ko: use this module instead of building one; --show: print the device
# and the conductor's whole log live; --telemetry: metaroce's per-path table
# (tools/mro-paths) every few seconds during bandwidth points (make demo).
# --mro-params: module parameters for metaroce's modprobe in both VMs (e.g.
# congestion control off: "cc_algo=off cc_credits=0"; default: none, the
# module's defaults).  --cats: only these plan categories (and, with
# --rate auto, the ceiling points it calibrates on); a word CAT:TEST or
# CAT:TEST:SIZE keeps only that test and message size of the category
# (ceiling:write_bw:65536: the WRITE 64 KiB ceiling).  With an
# existing --out DIR, a transport that already has DIR/run-T runs into
# DIR/run-T.2 (.3, ...) and the report merges them (e.g. to redo a
# category after a failure).  --interleave: all transports in ONE boot,
# alternating by repetition (rep 1: A B, rep 2: B A, ...; each switch
# unloads one module and loads the next), so that pairs compare on the same
# host load; the report adds per-pair ratios (run-interleaved/).
# --insnprof: count the guests' executed instructions (QEMU plugin,
# tests/vm/README.md): every bandwidth sample also gets kernel_insns, the
# kernel instructions both VMs executed during it, and the report their
# figure per GiB beside the sampled kernel CPU time.
set -euo pipefail
# One function, parsed before it runs: editing this file while a benchmark
# runs cannot break that run.
main() {
	CALLER=$PWD
	REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
	cd "$REPO"

	profile=standard reps='' out='' dist=${DIST:-bookworm} rate=auto queue=32768
	transports="metaroce rxe tcp"
	ko='' show=0 telemetry=0 cats='' mro_params='' interleave=0
	while [ $# -gt 0 ]; do
		case $1 in
		--profile) profile=$2; shift 2 ;;
		--reps) reps=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--dist) dist=$2; shift 2 ;;
		--rate) rate=$2; shift 2 ;;
		--queue) queue=$2; shift 2 ;;
		--transports) transports=$2; shift 2 ;;
		--ko) ko=$(cd "$CALLER" && realpath "$2"); shift 2 ;;
		--show) show=1; shift ;;
		--telemetry) telemetry=1; shift ;;
		--cats) cats=$2; shift 2 ;;
		--mro-params) mro_params=$2; shift 2 ;;
		--interleave) interleave=1; shift ;;
		--insnprof) export LAB_INSNPROF=1; shift ;;
		-h|--help) sed -n '4,/^set -e/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
		*) echo "unknown argument: $1" >&2; exit 2 ;;
		esac
	done
	[ -n "$reps" ] || { [ "$profile" = smoke ] && reps=1 || reps=3; }
	bash tests/vm/bench/plan.sh "$profile" metaroce 1 >/dev/null || exit 2
	out=${out:-$REPO/out/bench/$(date -u +%Y%m%d-%H%M%S)}
	mkdir -p "$out"
	out=$(cd "$out" && pwd -P)
	log() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
	# any metaroce variant needs the module; the protected ones a device key
	# both VMs install: 32 random bytes of this run, in hex
	use_mro=0
	[[ " $transports " =~ \ metaroce(-auth|-encrypt)?\  ]] && use_mro=1
	mro_key=$(head -c 32 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
	T0=$SECONDS

	need=()
	for p in jq gcc make libibverbs-dev python3-matplotlib; do
		dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
	done
	if [ ${#need[@]} -gt 0 ]; then
		log "installing ${need[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >"$out/apt.log" 2>&1
	fi

	log "profile $profile, $reps repetition(s), bottleneck $rate, queue $queue B, $dist; output $out"
	[ -z "$mro_params" ] || log "metaroce module parameters: $mro_params"
	log "building metaroce.ko for $dist (scripts/matrix.sh) and tools/bench"
	if [ "$use_mro" = 1 ] && [ -z "$ko" ]; then
		nice scripts/matrix.sh "$dist" >"$out/matrix.log" 2>&1 || { tail -n 20 "$out/matrix.log"; exit 1; }
	fi
	make -s -C tools/bench >"$out/tools.log" 2>&1 || { cat "$out/tools.log"; exit 1; }
	[ -n "$ko" ] || ko=$(ls out/"$dist"/*/metaroce.ko 2>/dev/null | head -n1 || true)

	# plan_for T: T's plan points, only --cats (and with --rate auto the
	# ceiling points it calibrates on).  A --cats word is CAT, CAT:TEST or
	# CAT:TEST:SIZE (e.g. ceiling:write_bw:65536)
	plan_for() {
		bash tests/vm/bench/plan.sh "$profile" "$1" "$reps" |
			awk -v c="$cats" -v auto="$([ "$rate" = auto ] && echo 1 || echo 0)" '
				function want(   i, k, f, l) {
					l = " " $0 " "
					for (i = 1; i <= n; i++) {
						k = split(w[i], f, ":")
						if ($1 == "cat=" f[1] && (k < 2 || index(l, " test=" f[2] " ")) &&
							(k < 3 || index(l, " size=" f[3] " ")))
							return 1
					}
					return 0
				}
				BEGIN { n = split(c, w, " ") }
				n == 0 || want() ||
				(auto && $1 == "cat=ceiling" && / size=65536 / && / rep=1( |$)/)'
	}
	# boot NAME TRANSPORT PLAN: one boot of the pair through PLAN (TRANSPORT: the first one up)
	boot() {
		local name=$1 t=$2 plan=$3 files=$out/files-$1 n tmo t1 run i follower attempt ok
		rm -rf "$files"
		mkdir -p "$files"
		cp tests/vm/bench/{agent.py,prelude.sh,wire.sh,runners.sh,conduct.sh} \
			tests/vm/scenarios/metaroce-lib.sh tools/bench/qpmem tools/mro-paths "$files/"
		if [ "$use_mro" = 1 ] && [[ " metaroce metaroce-auth metaroce-encrypt interleaved " == *" $name "* ]]; then
			cp "$ko" "$files/metaroce.ko"
		fi
		cp "$plan" "$files/bench.plan"
		printf 'BENCH_TRANSPORT=%s\nBENCH_RATE=%s\nBENCH_QUEUE=%s\nBENCH_SHOW=%s\nBENCH_TELEMETRY=%s\n' \
			"$t" "$rate" "$queue" "$show" "$telemetry" >"$files/bench.conf"
		printf 'BENCH_MRO_PARAMS=%q\nBENCH_MRO_KEY=%s\n' "$mro_params" "$mro_key" \
			>>"$files/bench.conf"
		n=$(wc -l <"$files/bench.plan")
		# a point takes 20-90 s under TCG (host load), a smoke point (4 s
		# transfers) 20-40 s; the guest gets timeout - 120 s
		if [ "$profile" = smoke ]; then tmo=$((n * 60 + 360)); else tmo=$((n * 90 + 900)); fi
		log "$name: $n points (VM timeout ${tmo}s)"
		t1=$SECONDS
		run=$out/run-$name
		i=2
		while [ -e "$run" ]; do run=$out/run-$name.$i; i=$((i + 1)); done
		# a run stopped because a guest's virtio-net transmit queue
		# stopped for good (run.sh) is set aside as stalled-NAME and run
		# again, once
		for attempt in 1 2; do
			setsid bash tests/vm/bench/follow.sh "$run/b/scenario.log" "$name" "$show" &
			follower=$!
			ok=1
			tests/vm/run.sh --dist "$dist" --topology pair --scenario tests/vm/scenarios/bench-pair.sh \
				--files "$files"/* --out "$run" --timeout "$tmo" >"$run.log" 2>&1 || ok=0
			sleep 3
			kill -- -"$follower" 2>/dev/null || true
			wait "$follower" 2>/dev/null || true
			[ "$ok" = 0 ] || break
			if [ "$attempt" = 1 ] && grep -q 'virtio-net transmit queue stopped for good' "$run.log"; then
				log "$name: a guest's virtio-net transmit queue stopped; set aside as $out/stalled-$name, running the boot again"
				rm -rf "$out/stalled-$name" "$out/stalled-$name.log"
				mv "$run" "$out/stalled-$name"
				mv "$run.log" "$out/stalled-$name.log"
				continue
			fi
			rc=1; log "$name: lab run failed, see $run.log"; tail -n 5 "$run.log"
			break
		done
		if [ "$rate" = auto ]; then
			r=$(jq -rs '[.[] | select(.name == "bench_rate") | .value][0] // empty' \
				"$run/b/metrics.jsonl" 2>/dev/null || true)
			[ -n "$r" ] && { rate=$r; log "bottleneck rate calibrated in the $name boot: $rate"; }
		fi
		log "$name: done in $((SECONDS - t1))s"
		echo "$name $((SECONDS - t1))" >>"$out/durations.txt"
	}

	rc=0
	if [ "$interleave" = 1 ]; then
		# every transport's plan tagged with it; repetition r runs them in
		# this order when r is odd, reversed when even
		local t r order
		for t in $transports; do
			plan_for "$t" | sed "s/\$/ transport=$t interleaved=1/" >"$out/plan-$t"
		done
		: >"$out/plan-interleaved"
		for ((r = 1; r <= reps; r++)); do
			order=$transports
			[ $((r % 2)) = 0 ] && order=$(tr ' ' '\n' <<<"$transports" | tac | tr '\n' ' ')
			for t in $order; do
				grep -E "(^| )rep=$r( |\$)" "$out/plan-$t" >>"$out/plan-interleaved" || true
			done
		done
		# the calibration point (rep 1 of the first transport's ceiling) first
		boot interleaved "$(head -n1 "$out/plan-interleaved" | sed 's/.*transport=//')" \
			"$out/plan-interleaved"
	else
		for t in $transports; do
			plan_for "$t" >"$out/plan-$t"
			boot "$t" "$t" "$out/plan-$t"
		done
	fi

	log "report"
	/usr/bin/python3 tools/bench/report.py --out "$out" --profile "$profile" --reps "$reps" \
		--rate "$rate" --queue "$queue" --dist "$dist" --wall "$((SECONDS - T0))" \
		--mro-params "${mro_params:-defaults}" || rc=1
	log "finished in $((SECONDS - T0))s: report $out/report.md, samples $out/samples.json, plots $out/*.png"
	return $rc
}

main "$@"
