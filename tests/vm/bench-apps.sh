#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/bench-apps.sh (`make bench-apps`): real applications over
# metaroce and rdma_rxe (and TCP where the application has a TCP mode) on
# the same impaired wire, side by side, one pair boot per application and
# transport:
#   nvme   NVMe over Fabrics (metaroce-nvme.sh: nvmet-rdma target, nvme-rdma
#          host, fio with verify=crc32c): MB/s of each job's write and
#          read-back pass
#   nfs    NFS over RDMA (metaroce-nfs.sh): fio verify MB/s, the checked
#          file-tree copy's seconds
#   apps   qperf (rc_bw, rc_lat, rc_rdma_read_bw), UCX ucx_perftest (UCT
#          rc_verbs and ud_verbs, UCP tag/stream/put/get), rping
#          (metaroce-apps.sh); rxe runs no ud_verbs and so no UCP (its UD
#          completions carry no L3 header type; UCX drops them)
#   mpi    Open MPI over UCX on the device against Open MPI over TCP
#          (metaroce-mpi.sh, tools/mpicoll): latency at 8 B and bus
#          bandwidth at the largest size of MPI_Alltoall, MPI_Allreduce and
#          MPI_Bcast; metaroce only (Open MPI's pml ucx needs UCX ud_verbs)
# Writes DIR/report.md: a table per application with each transport's
# figures at each impairment, whether the data verified, and the checks
# that failed.
#
#   tests/vm/bench-apps.sh [--dist bookworm|trixie] [--transports "metaroce rxe"]
#                          [--apps "nvme nfs apps mpi"] [--impair "clean loss1"]
#                          [--nvme-impair "clean loss1 loss5 reorder25"]
#                          [--jobs "seq128k rand4k"] [--size-seq 32M] [--size-rand 8M]
#                          [--ko metaroce.ko] [--out DIR] [--report-only]
#
# --impair is the impairments of nfs, apps and mpi; nvme has its own list.
# Defaults as shown; --out out/bench-apps/<UTC time>.  The module is built
# (scripts/matrix.sh) unless --ko names one.  --report-only runs nothing
# and writes DIR/report.md from the runs already in --out DIR (after one
# application's runs were redone there, e.g. on a host that was busy).  rxe at 5 % loss moves
# well under 1 MB/s: give it smaller sizes, or fewer impairments, with a
# second run (--transports rxe --out DIR2), and read the two reports
# together.
set -euo pipefail
main() {
	local caller=$PWD repo dist=bookworm transports="metaroce rxe" ko='' out='' runs=1
	local apps="nvme nfs apps mpi" impair="clean loss1"
	local nv_impair="clean loss1 loss5 reorder25" jobs="seq128k rand4k" sseq=32M srand=8M
	repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
	while [ $# -gt 0 ]; do
		case $1 in
		--dist) dist=$2; shift 2 ;;
		--transports) transports=$2; shift 2 ;;
		--apps) apps=$2; shift 2 ;;
		--impair) impair=$2; shift 2 ;;
		--nvme-impair) nv_impair=$2; shift 2 ;;
		--jobs) jobs=$2; shift 2 ;;
		--size-seq) sseq=$2; shift 2 ;;
		--size-rand) srand=$2; shift 2 ;;
		--ko) ko=$(cd "$caller" && realpath "$2"); shift 2 ;;
		--out) out=$2; shift 2 ;;
		--report-only) runs=0; shift ;;
		-h|--help) sed -n '4,/^set -e/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
		*) echo "unknown argument: $1" >&2; exit 2 ;;
		esac
	done
	cd "$repo"
	out=${out:-$repo/out/bench-apps/$(date -u +%Y%m%d-%H%M%S)}
	mkdir -p "$out"
	out=$(cd "$out" && pwd -P)
	log() { printf '[bench-apps %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
	command -v jq >/dev/null || apt-get install -y -q jq >/dev/null

	if [ "$runs" = 1 ] && [ -z "$ko" ]; then
		log "building metaroce.ko for $dist"
		scripts/matrix.sh "$dist" >"$out/build.log" 2>&1
		local kos=(out/"$dist"/*/metaroce.ko)
		ko=$repo/${kos[0]}
	fi
	local a t files rc
	for a in $apps; do
		[ "$runs" = 1 ] || break
		for t in $transports; do
			[ "$a" = mpi ] && [ "$t" != metaroce ] && continue
			files=$out/files-$a-$t
			mkdir -p "$files"
			cp "$ko" "$files/metaroce.ko"	# --ko may name it otherwise
			cp tests/vm/scenarios/metaroce-lib.sh "$files/"
			case $a in
			nvme) {
				echo "NV_DRIVER=$t"
				echo "NV_IMPAIR=\"$nv_impair\""
				echo "NV_JOBS=\"$jobs\""
				echo "NV_SIZE_SEQ=$sseq"
				echo "NV_SIZE_RAND=$srand"
				echo "NV_RECONNECT=0"
				echo "NV_FIO_TIMEOUT=900"
			} >"$files/nvme.conf" ;;
			nfs) printf 'NFS_DRIVER=%s\nNFS_IMPAIR="%s"\n' "$t" "$impair" >"$files/nfs.conf" ;;
			apps) printf 'APP_DRIVER=%s\nAPP_IMPAIR="%s"\n' "$t" "$impair" >"$files/apps.conf" ;;
			mpi)
				cp tools/mpicoll/mpicoll.c "$files/"
				printf 'MPI_DRIVER=%s\nMPI_IMPAIR="%s"\n' "$t" "$impair" >"$files/mpi.conf" ;;
			*) echo "unknown application: $a" >&2; exit 2 ;;
			esac
			log "$a over $t on $dist"
			rc=0
			tests/vm/run.sh --dist "$dist" --topology pair \
				--scenario "tests/vm/scenarios/metaroce-$a.sh" \
				--files "$files"/* --out "$out/run-$a-$t" --timeout 5400 \
				>"$out/run-$a-$t.log" 2>&1 || rc=$?
			log "$a over $t: $(tail -n 1 "$out/run-$a-$t.log") (rc $rc)"
		done
	done
	{
		echo "# Applications over metaroce and rdma_rxe ($dist)"
		echo
		local cmd="tests/vm/bench-apps.sh --dist $dist --transports \"$transports\" --apps \"$apps\""
		[ "$apps" = nvme ] || cmd+=" --impair \"$impair\""
		case " $apps " in
		*" nvme "*) cmd+=" --nvme-impair \"$nv_impair\" --jobs \"$jobs\""
			    cmd+=" --size-seq $sseq --size-rand $srand" ;;
		esac
		echo "Command: \`$cmd\`" \
			"($(date -u +%Y-%m-%d)); one pair boot per application and transport, netem on" \
			"both VMs' eth0.  *QP errors* (NVMe) = metaroce's qp_errors over both VMs" \
			"(rxe has no such counter: -); the other scenarios check it among their checks."
		for a in $apps; do
			case $a in
			nvme) report_nvme "$out" "$transports" "$nv_impair" "$jobs" ;;
			*) report_metrics "$out" "$a" "$transports" ;;
			esac
		done
		echo
		echo "## Scenario checks that failed"
		echo
		for a in $apps; do
			for t in $transports; do
				[ -d "$out/run-$a-$t" ] || continue
				jq -r --arg t "$a over $t" '.vm as $vm | .checks[] | select(.ok | not) |
					"- \($t) \($vm): \(.name)"' "$out/run-$a-$t"/[ab]/result.json 2>/dev/null ||
					echo "- $a over $t: no result"
			done
		done
	} >"$out/report.md"
	log "report: $out/report.md"
}

# report_nvme OUT TRANSPORTS IMPAIR JOBS: one row per impairment and job
report_nvme() {
	local out=$1 transports=$2 impair=$3 jobs=$4 t i j m w r ok e
	echo
	echo "## NVMe over Fabrics"
	echo
	echo "nvmet-rdma target on a brd RAM disk, nvme-rdma host, fio with verify=crc32c."
	echo "MB/s of the write pass and of the read-back (verify) pass; *verified* ="
	echo "fio's exit and error were 0."
	echo
	printf '| impairment | job |'
	for t in $transports; do printf ' %s write | %s read | %s verified | %s QP errors |' "$t" "$t" "$t" "$t"; done
	echo
	printf '|---|---|'
	for t in $transports; do printf -- '---|---|---|---|'; done
	echo
	for i in $impair; do
		for j in $jobs; do
			printf '| %s | %s |' "$i" "$j"
			for t in $transports; do
				m=$out/run-nvme-$t/b/result.json
				w=$(jq -r --arg k "nvme-$i-${j}_write_MBps" '.metrics[$k] // "-"' "$m" 2>/dev/null || echo -)
				r=$(jq -r --arg k "nvme-$i-${j}_read_MBps" '.metrics[$k] // "-"' "$m" 2>/dev/null || echo -)
				ok=$(jq -r --arg k "nvme-$i-$j" '[.checks[] | select(.name == $k) | .ok] | if length > 0 then .[0] else "not run" end' "$m" 2>/dev/null || echo "no result")
				e=-
				if [ "$t" = metaroce ]; then
					e=$(jq -rs --arg a "nvme_${i}_qp_errors_a" --arg b "nvme_${i}_qp_errors_b" \
						'[.[].metrics | (.[$a] // empty), (.[$b] // empty)] | add // "-"' \
						"$out/run-nvme-$t"/[ab]/result.json 2>/dev/null || echo -)
				fi
				printf ' %s | %s | %s | %s |' "$w" "$r" "$ok" "$e"
			done
			echo
		done
	done
}

# report_metrics OUT APP TRANSPORTS: every metric either VM of APP's runs
# recorded, a row each, a column per transport; then each run's checks
# passed / run and its QP errors
report_metrics() {
	local out=$1 app=$2 transports=$3 t runs=()
	echo
	case $app in
	nfs) echo "## NFS over RDMA"
	     echo
	     echo "NFS 4.2 with proto=rdma on a tmpfs export; fio verify=crc32c (MB/s), a file"
	     echo "tree copied there and back and compared by SHA-256 (files, seconds)." ;;
	apps) echo "## qperf, UCX, rping"
	      echo
	      echo "qperf over rdma_cm; ucx_perftest (UCT: MB/s or median us; UCP over"
	      echo "rc_verbs with ud_verbs for wireup); rping: connections that verified all"
	      echo "their pings.  qperf and ucx_perftest do not check the data they move." ;;
	mpi) echo "## Open MPI"
	     echo
	     echo "tools/mpicoll, one rank per VM, every received element checked; pml ucx"
	     echo "on the metaroce device against pml ob1 with btl tcp on eth0, same boot." ;;
	esac
	echo
	for t in $transports; do
		[ -d "$out/run-$app-$t" ] && runs+=("$t")
	done
	[ ${#runs[@]} -gt 0 ] || { echo "(not run)"; return 0; }
	printf '| metric |'
	for t in "${runs[@]}"; do printf ' %s |' "$t"; done
	echo
	printf '|---|'
	for t in "${runs[@]}"; do printf -- '---|'; done
	echo
	local keys
	keys=$(for t in "${runs[@]}"; do
		jq -r '.metrics | keys[]' "$out/run-$app-$t"/[ab]/result.json 2>/dev/null
	done | grep -v 'qp_errors' | sort -u)
	local k v
	for k in $keys; do
		printf '| %s |' "$k"
		for t in "${runs[@]}"; do
			v=$(jq -rs --arg k "$k" '[.[].metrics[$k] // empty][0] // "-"' \
				"$out/run-$app-$t"/[ab]/result.json 2>/dev/null || echo -)
			printf ' %s |' "$v"
		done
		echo
	done
	printf '| checks passed |'
	for t in "${runs[@]}"; do
		printf ' %s |' "$(jq -rs '[.[].checks[]] | "\(map(select(.ok)) | length) of \(length)"' \
			"$out/run-$app-$t"/[ab]/result.json 2>/dev/null || echo -)"
	done
	echo
}

main "$@"
