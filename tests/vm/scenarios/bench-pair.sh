#!/bin/bash
# bench-pair (pair topology): one transport (metaroce, rxe or tcp) through the
# benchmark plan.  VM a runs the bench agent (tests/vm/bench/agent.py) and
# the servers; VM b conducts: for each point of $LAB_FILES/bench.plan it sets
# up the wire on both VMs, runs the client, and appends one JSON sample to
# $LAB_OUT/samples.jsonl.  Settings in $LAB_FILES/bench.conf (BENCH_TRANSPORT,
# BENCH_RATE, BENCH_QUEUE, BENCH_BURST).  Driven by tests/vm/bench.sh.
# shellcheck source=tests/vm/guest/lib.sh
source "$LAB_LIB"
set -a
# shellcheck disable=SC1091
. "$LAB_FILES/bench.conf"
set +a
PRELUDE=$LAB_FILES/prelude.sh
# shellcheck source=tests/vm/bench/prelude.sh
. "$PRELUDE"

lab_check "up-$BENCH_TRANSPORT" bench_up "$BENCH_TRANSPORT" || exit 1
# lab_check ran it in a subshell: read the settings it wrote
# shellcheck disable=SC1090
. "$BENCH_ENV"
lab_check wire-setup bash -c ". $PRELUDE; BENCH_RATE=1mbit wire_setup 0" || exit 1
lab_metric kernel "$(uname -r)"
lab_metric rdma_core "$(dpkg-query -W -f '${Version}' rdma-core 2>/dev/null)"
lab_metric perftest "$(dpkg-query -W -f '${Version}' perftest 2>/dev/null)"
lab_metric iperf3 "$(dpkg-query -W -f '${Version}' iperf3 2>/dev/null)"

if [ "$ROLE" = a ]; then
	python3 "$LAB_FILES/agent.py" "$PRELUDE" 7701 >"$LAB_WORK/agent.log" 2>&1 &
	agent=$!
	lab_wait_port 7701 60 || lab_record agent-listen false "agent did not listen"
	lab_barrier agent-up || exit 1
	lab_barrier bench-done "${BENCH_TIMEOUT:-36000}"
	kill "$agent"
	lab_check dmesg-clean mro_dmesg_clean
	exit 0
fi

lab_barrier agent-up || exit 1
if [ "${BENCH_SHOW:-0}" = 1 ] && [ -n "$BENCH_DEV" ]; then
	echo "---- rdma link"; rdma link show
	echo "---- ibv_devinfo -v -d $BENCH_DEV (abridged)"
	ibv_devinfo -v -d "$BENCH_DEV" | grep -E 'hca_id|transport|fw_ver|node_guid|max_qp:|max_cqe|port:|state|active_mtu|link_layer|GID\['
	echo "---- the wire (tc on eth0 of each VM): $(wire_describe)"
fi
# shellcheck source=tests/vm/bench/conduct.sh
. "$LAB_FILES/conduct.sh"
n=$(grep -c . "$LAB_FILES/bench.plan")
i=0
fails=0
while read -r line; do
	[ -n "$line" ] || continue
	i=$((i + 1))
	lab_log "point $i/$n: $line"
	if ! run_point "$line"; then
		fails=$((fails + 1))
	fi
done <"$LAB_FILES/bench.plan"
lab_metric points "$n"
lab_metric failed_points "$fails"
wire_reset
ag wire_reset >/dev/null
lab_barrier bench-done
lab_check dmesg-clean mro_dmesg_clean
