#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# plan.sh PROFILE TRANSPORT REPS: print the benchmark plan (one point per
# line, key=value words; see conduct.sh) of a profile for one transport.
#   smoke     one small point per category for metaroce (and metaroce-auth,
#             metaroce-encrypt), the ceiling and one loss point for rxe and
#             tcp (a few minutes; what CI runs)
#   quick     every category, short loss sweep
#   (quick, standard and full also repeat the unshaped ceiling for WRITE and
#   SEND at 64 and 4 KiB)
#   standard  make bench's default: the full loss sweep for WRITE 64 KiB at
#             1 and 4 QPs, the other categories at 0 and 1 % loss
#   full      the whole matrix (hours under TCG)
#   demo      make demo: WRITE 64 KiB, 4 QPs, lossless and 1 % loss
#   bottleneck issue 5's goodput criterion: WRITE and SEND 64 KiB, 1 QP, at
#             0, 0.1, 1 and 10 % loss (SEND as category ops)
# TCP (iperf3) runs the bandwidth points of WRITE (a byte stream has no
# READ or SEND) and no latency or memory points.
set -euo pipefail
profile=$1 transport=$2 reps=$3
rdma=1
[ "$transport" = tcp ] && rdma=0

# the emulator's own limit, unshaped and lossless, WRITE and (but in the
# short smoke and demo runs) SEND 64 KiB, once: --rate auto calibrates on
# the slower of the two
echo "cat=ceiling test=write_bw size=65536 qps=1 loss=0 rep=1"
case $rdma:$profile in
1:smoke | 1:demo | 0:*) ;;
*) echo "cat=ceiling test=send_bw size=65536 qps=1 loss=0 rep=1" ;;
esac
if [ "$profile" = demo ]; then	# make demo: lossless and 1 %, 4 QPs
	for l in 0 1; do
		echo "cat=loss test=write_bw size=65536 qps=4 loss=$l dur=10 rep=1"
	done
	exit 0
fi
if [ "$profile" = bottleneck ]; then
	for ((r = 1; r <= reps; r++)); do
		for l in 0 0.1 1 10; do
			echo "cat=loss test=write_bw size=65536 qps=1 loss=$l rep=$r"
			[ $rdma = 1 ] && echo "cat=ops test=send_bw size=65536 qps=1 loss=$l rep=$r"
		done
	done
	exit 0
fi
if [ "$profile" = smoke ]; then	# one short point per category
	for ((r = 1; r <= reps; r++)); do
		echo "cat=loss test=write_bw size=65536 qps=1 loss=1 dur=4 rep=$r"
		# the references' runners share every category's code with
		# metaroce's: their shaped loss point proves them (CI time)
		[[ $transport == metaroce* ]] || continue
		echo "cat=size test=write_bw size=4096 qps=1 loss=0 dur=4 rep=$r"
		[ $rdma = 1 ] && echo "cat=ops test=read_bw size=65536 qps=1 loss=0 dur=4 rep=$r"
		echo "cat=reorder test=write_bw size=65536 qps=1 loss=0 delay=4 reorder=25 dur=4 rep=$r"
		echo "cat=skew test=write_bw size=65536 qps=1 loss=0 skew=2 dur=4 rep=$r"
		echo "cat=blackhole test=write_bw size=65536 qps=1 loss=0 pre=1 hole=2 post=2 rep=$r"
		if [ $rdma = 1 ]; then
			echo "cat=lat test=send_lat size=64 iters=100 load=1 rep=$r"
			echo "cat=mem qps=100 rep=$r"
		fi
	done
	exit 0
fi
case $profile in
quick) losses="0 1 10"; qps4="4"; ops_losses="0"; sizes_losses="0"; iters=300; memqps=1000
       bh="pre=3 hole=4 post=4" ;;
standard) losses="0 0.1 1 5 10"; qps4="4"; ops_losses="0 1"; sizes_losses="0 1"; iters=500
       memqps=1000; bh="pre=4 hole=5 post=6" ;;
full) losses="0 0.1 1 5 10"; qps4="4"; ops_losses="0 0.1 1 5 10"; sizes_losses="0 0.1 1 5 10"
      iters=1000; memqps=1000; bh="pre=5 hole=8 post=8" ;;
*) echo "unknown profile $profile (smoke|quick|standard|full|demo|bottleneck)" >&2; exit 2 ;;
esac

for ((r = 1; r <= reps; r++)); do
	# issue 5's CPU-bound criterion: WRITE and SEND, 64 and 4 KiB, unshaped
	# (rep 1 of WRITE and SEND 64 KiB are the calibration points above)
	[ "$r" -gt 1 ] && echo "cat=ceiling test=write_bw size=65536 qps=1 loss=0 rep=$r"
	echo "cat=ceiling test=write_bw size=4096 qps=1 loss=0 rep=$r"
	if [ $rdma = 1 ]; then
		[ "$r" -gt 1 ] && echo "cat=ceiling test=send_bw size=65536 qps=1 loss=0 rep=$r"
		echo "cat=ceiling test=send_bw size=4096 qps=1 loss=0 rep=$r"
	fi
	for q in 1 $qps4; do
		for l in $losses; do
			echo "cat=loss test=write_bw size=65536 qps=$q loss=$l rep=$r"
		done
	done
	for l in $sizes_losses; do
		echo "cat=size test=write_bw size=4096 qps=1 loss=$l rep=$r"
		[ "$profile" = full ] && echo "cat=size test=write_bw size=4096 qps=4 loss=$l rep=$r"
	done
	if [ $rdma = 1 ]; then
		for t in send_bw read_bw; do
			for l in $ops_losses; do
				echo "cat=ops test=$t size=65536 qps=1 loss=$l rep=$r"
				[ "$profile" = full ] && echo "cat=ops test=$t size=65536 qps=4 loss=$l rep=$r"
				[ "$profile" = full ] && echo "cat=ops test=$t size=4096 qps=1 loss=$l rep=$r"
			done
		done
	fi
	echo "cat=reorder test=write_bw size=65536 qps=1 loss=0 delay=4 reorder=25 rep=$r"
	echo "cat=skew test=write_bw size=65536 qps=1 loss=0 skew=2 rep=$r"
	if [ "$profile" = full ]; then
		echo "cat=reorder test=write_bw size=65536 qps=4 loss=0 delay=4 reorder=25 rep=$r"
		echo "cat=skew test=write_bw size=65536 qps=4 loss=0 skew=2 rep=$r"
		echo "cat=skew test=write_bw size=65536 qps=1 loss=1 skew=2 rep=$r"
	fi
	echo "cat=blackhole test=write_bw size=65536 qps=1 loss=0 $bh rep=$r"
	[ "$profile" = full ] && echo "cat=blackhole test=write_bw size=65536 qps=4 loss=0 $bh rep=$r"
	if [ $rdma = 1 ]; then
		echo "cat=lat test=send_lat size=64 iters=$iters load=0 rep=$r"
		echo "cat=lat test=send_lat size=64 iters=$iters load=1 rep=$r"
		echo "cat=lat test=write_lat size=64 iters=$iters load=0 rep=$r"
		[ "$profile" = full ] && echo "cat=lat test=write_lat size=64 iters=$iters load=1 rep=$r"
		echo "cat=mem qps=$memqps rep=$r"
	fi
done
