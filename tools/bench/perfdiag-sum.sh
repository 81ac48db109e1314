#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perfdiag-sum.sh OUT: one line per transport and point of a perf-diag.sh run
# (tests/vm/run.sh --out OUT): goodput, then per 1000 data packets of the
# steady window, on the sender (VM b, per packet sent) and on the receiver
# (VM a, per packet received): kernel CPU in /proc/stat ticks (10 ms), local timer
# interrupts, virtio interrupts, HRTIMER and NET_RX softirqs.
set -euo pipefail
out=${1:?usage: perfdiag-sum.sh OUT}

for role in a b; do
	grep -h "metric " "$out/$role/console.log" | sed "s/.*metric //; s/^/$role /"
done | awk '
{
	split($2, kv, "="); k = kv[1]; v = kv[2]; r = $1
	if (k ~ /_MiBps$/) {
		sub(/_MiBps$/, "", k)
		bw[k] = v
		if (!(k in seen)) { seen[k] = 1; ord[++n] = k }
		next
	}
	if (k ~ /_steady_/) { split(k, p, "_steady_"); m[r, p[1], p[2]] = v }
}
function per(r, k, what, pk) { return 1000 * m[r, k, what] / pk }
END {
	printf "%-18s %6s | %-36s | %s\n", "label_point", "MiB/s",
	       "b per 1k sent: kern loc virtio hrt netrx", "a per 1k rcvd: kern loc virtio hrt netrx"
	for (i = 1; i <= n; i++) {
		k = ord[i]; sb = m["b", k, "sent"]; ra = m["a", k, "rcvd"]
		if (!sb || !ra) { printf "%-18s %6s | no steady counters\n", k, bw[k]; continue }
		printf "%-18s %6.2f | %5.2f %5.1f %6.1f %5.1f %5.1f | %5.2f %5.1f %6.1f %5.1f %5.1f\n", k, bw[k],
		       per("b", k, "kernel", sb), per("b", k, "irq_loc", sb), per("b", k, "irq_virtio", sb),
		       per("b", k, "softirq_hrtimer", sb), per("b", k, "softirq_net_rx", sb),
		       per("a", k, "kernel", ra), per("a", k, "irq_loc", ra), per("a", k, "irq_virtio", ra),
		       per("a", k, "softirq_hrtimer", ra), per("a", k, "softirq_net_rx", ra)
	}
}'
