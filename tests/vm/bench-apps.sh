#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/bench-apps.sh (`make bench-apps`): real applications over
# metaroce and rdma_rxe on the same impaired wire, side by side.  Today:
# NVMe over Fabrics (tests/vm/scenarios/metaroce-nvme.sh: nvmet-rdma target,
# nvme-rdma host, fio with verify=crc32c) at every impairment, per
# transport, one pair boot each; writes DIR/report.md with the goodput of
# every job, whether it verified, and the QPs the driver failed.
#
#   tests/vm/bench-apps.sh [--dist bookworm|trixie] [--transports "metaroce rxe"]
#                          [--impair "clean loss1 loss5 reorder25"] [--jobs "seq128k rand4k"]
#                          [--size-seq 32M] [--size-rand 8M] [--ko metaroce.ko] [--out DIR]
#
# Defaults as shown; --out out/bench-apps/<UTC time>.  The module is built
# (scripts/matrix.sh) unless --ko names one.  rxe at 5 % loss moves
# well under 1 MB/s: give it smaller sizes, or fewer impairments, with a
# second run (--transports rxe --out DIR2), and read the two reports
# together.
set -euo pipefail
main() {
	local caller=$PWD repo dist=bookworm transports="metaroce rxe" ko='' out=''
	local impair="clean loss1 loss5 reorder25" jobs="seq128k rand4k" sseq=32M srand=8M
	repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
	while [ $# -gt 0 ]; do
		case $1 in
		--dist) dist=$2; shift 2 ;;
		--transports) transports=$2; shift 2 ;;
		--impair) impair=$2; shift 2 ;;
		--jobs) jobs=$2; shift 2 ;;
		--size-seq) sseq=$2; shift 2 ;;
		--size-rand) srand=$2; shift 2 ;;
		--ko) ko=$(cd "$caller" && realpath "$2"); shift 2 ;;
		--out) out=$2; shift 2 ;;
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

	if [ -z "$ko" ]; then
		log "building metaroce.ko for $dist"
		scripts/matrix.sh "$dist" >"$out/build.log" 2>&1
		local kos=(out/"$dist"/*/metaroce.ko)
		ko=$repo/${kos[0]}
	fi
	local t conf rc
	for t in $transports; do
		mkdir -p "$out/files-$t"
		cp "$ko" tests/vm/scenarios/metaroce-lib.sh "$out/files-$t/"
		conf=$out/files-$t/nvme.conf
		{
			echo "NV_DRIVER=$t"
			echo "NV_IMPAIR=\"$impair\""
			echo "NV_JOBS=\"$jobs\""
			echo "NV_SIZE_SEQ=$sseq"
			echo "NV_SIZE_RAND=$srand"
			echo "NV_RECONNECT=0"
			echo "NV_FIO_TIMEOUT=900"
		} >"$conf"
		log "nvme over $t on $dist: $impair"
		rc=0
		tests/vm/run.sh --dist "$dist" --topology pair \
			--scenario tests/vm/scenarios/metaroce-nvme.sh \
			--files "$out/files-$t"/* --out "$out/run-$t" --timeout 5400 \
			>"$out/run-$t.log" 2>&1 || rc=$?
		log "$t: $(tail -n 1 "$out/run-$t.log") (rc $rc)"
	done
	report "$out" "$dist" "$transports" "$impair" "$jobs" >"$out/report.md"
	log "report: $out/report.md"
}

# report OUT DIST TRANSPORTS IMPAIR JOBS: one row per impairment and job
report() {
	local out=$1 dist=$2 transports=$3 impair=$4 jobs=$5 t i j m w r ok e
	echo "# Applications over metaroce and rdma_rxe ($dist)"
	echo
	echo "NVMe over Fabrics (nvmet-rdma target on a brd RAM disk, nvme-rdma host),"
	echo "fio with verify=crc32c, netem on both VMs' eth0 (tests/vm/bench-apps.sh,"
	echo "$(date -u +%Y-%m-%d)). MB/s of the write pass and of the read-back"
	echo "(verify) pass; *verified* = fio's exit and error were 0; *QP errors* ="
	echo "metaroce's qp_errors on host + target (rxe has no such counter: -)."
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
				m=$out/run-$t/b/result.json
				w=$(jq -r --arg k "nvme-$i-${j}_write_MBps" '.metrics[$k] // "-"' "$m" 2>/dev/null || echo -)
				r=$(jq -r --arg k "nvme-$i-${j}_read_MBps" '.metrics[$k] // "-"' "$m" 2>/dev/null || echo -)
				ok=$(jq -r --arg k "nvme-$i-$j" '[.checks[] | select(.name == $k) | .ok][0] // "not run"' "$m" 2>/dev/null || echo "no result")
				e=-
				if [ "$t" = metaroce ]; then
					e=$(jq -rs --arg a "nvme_${i}_qp_errors_a" --arg b "nvme_${i}_qp_errors_b" \
						'[.[].metrics | (.[$a] // empty), (.[$b] // empty)] | add // "-"' \
						"$out/run-$t"/[ab]/result.json 2>/dev/null || echo -)
				fi
				printf ' %s | %s | %s | %s |' "$w" "$r" "$ok" "$e"
			done
			echo
		done
	done
	echo
	echo "Scenario checks that failed:"
	echo
	for t in $transports; do
		jq -r --arg t "$t" '.vm as $vm | .checks[] | select(.ok | not) |
			"- \($t) \($vm): \(.name)"' "$out/run-$t"/[ab]/result.json 2>/dev/null || echo "- $t: no result"
	done
}

main "$@"
