#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tests/wireshark/run.sh: the Wireshark dissector tools/wireshark/metaroce.lua
# against a capture of known contents (tools/wireshark/mkcapture.py): every
# opcode, unprotected and sealed, decodes to the fields that were sent, with
# no expert info; every malformed packet is flagged as one, with the reason
# the driver's decode would drop it; the UDP port preference moves the
# dissector, and so does Decode As; protocol.rst, metaroce_wire.h and the
# dissector name the fields of every header alike; damaged packets (cut,
# bit-flipped, random) raise no Lua error, and every bit flip of a valid
# unsealed packet is flagged malformed.
#
# Installs tshark with apt when it is missing (root).  Prints one
# "ok N - name" / "not ok N - name" line per check and "N passed, N failed";
# exits 1 if a check failed.
#
# Usage: tests/wireshark/run.sh [--keep DIR]   (keep the capture and outputs)
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
LUA=$REPO/tools/wireshark/metaroce.lua
keep=""
case ${1:-} in
--keep) keep=${2:?--keep DIR}; mkdir -p "$keep" || exit 1 ;;
'') ;;
*) echo "usage: $0 [--keep DIR]" >&2; exit 2 ;;
esac

n=0
passed=0
failed=0
ok() {	# ok STATUS NAME [detail lines]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		passed=$((passed + 1)); echo "ok $n - $2"
	else
		failed=$((failed + 1)); echo "not ok $n - $2"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/#   /' | head -n 20
	fi
	return 0
}
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

if [ -n "$keep" ]; then
	tmp=$keep
else
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
fi

if ! command -v tshark >/dev/null 2>&1; then
	# wireshark-common asks whether non-root users may capture: no
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections 2>/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q tshark >"$tmp/apt.log" 2>&1
fi
command -v tshark >/dev/null 2>&1
ok $? "tshark is installed" "$(tail -n 5 "$tmp/apt.log" 2>/dev/null)"
command -v tshark >/dev/null 2>&1 || finish

python3 "$REPO/tools/wireshark/mkcapture.py" "$tmp/capture.pcap" "$tmp/expected.json" \
	"$tmp/fuzz.pcap" >"$tmp/mkcapture.log" 2>&1
ok $? "mkcapture.py writes the capture, its contents and the damaged packets" \
	"$(cat "$tmp/mkcapture.log")"
flips=$(tail -n 1 "$tmp/mkcapture.log")
if ! [ -s "$tmp/expected.json" ] || ! [[ $flips =~ ^[0-9]+$ ]]; then
	finish
fi

# tshark as root warns that it runs as root; anything else on stderr is the
# dissector's (a Lua error when loading, or while dissecting)
tshark_run() {	# tshark_run OUT ERR ARGS...
	local out=$1 err=$2
	shift 2
	tshark "$@" >"$out" 2>"$err"
	local rc=$?
	grep -v 'Running as user "root"' "$err" >"$err.rest"
	[ $rc -eq 0 ] && [ ! -s "$err.rest" ]
}

tshark_run "$tmp/fields.txt" "$tmp/fields.err" -G fields -X lua_script:"$LUA"
ok $? "the dissector loads (tshark -G fields)" "$(cat "$tmp/fields.err.rest")"

tshark_run "$tmp/decoded.json" "$tmp/decoded.err" -X lua_script:"$LUA" \
	-r "$tmp/capture.pcap" -T json --no-duplicate-keys
ok $? "tshark decodes the capture without an error" "$(cat "$tmp/decoded.err.rest")"

tshark_run "$tmp/decoded-alt.json" "$tmp/decoded-alt.err" -X lua_script:"$LUA" \
	-o metaroce.udp_port:5000 -r "$tmp/capture.pcap" -T json --no-duplicate-keys
ok $? "tshark decodes the capture with udp_port 5000 without an error" \
	"$(cat "$tmp/decoded-alt.err.rest")"

tshark_run "$tmp/fuzz.txt" "$tmp/fuzz.err" -X lua_script:"$LUA" -r "$tmp/fuzz.pcap" \
	-T fields -E occurrence=a -E aggregator=';' -e frame.number -e _ws.col.Protocol \
	-e _ws.expert.group -e _ws.expert.message
ok $? "tshark decodes the damaged packets without an error" "$(cat "$tmp/fuzz.err.rest")"

# Decode As: the packet to port 5000 decodes when the user says so
tshark_run "$tmp/decode-as.txt" "$tmp/decode-as.err" -X lua_script:"$LUA" \
	-d udp.port==5000,metaroce -r "$tmp/capture.pcap" -Y udp.dstport==5000 \
	-T fields -e metaroce.bth.opcode -e metaroce.crc.status
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$tmp/decode-as.txt")" = "$(printf '0x01\t1')" ]
ok $? "Decode As udp.port 5000 decodes the packet to port 5000" \
	"$(cat "$tmp/decode-as.txt" "$tmp/decode-as.err.rest")"

python3 "$REPO/tests/wireshark/compare.py" --expected "$tmp/expected.json" \
	--decoded "$tmp/decoded.json" --decoded-alt "$tmp/decoded-alt.json" \
	--fields "$tmp/fields.txt" --rst "$REPO/Documentation/metaroce/protocol.rst" \
	--header "$REPO/include/uapi/rdma/metaroce_wire.h" \
	--fuzz "$tmp/fuzz.txt" --fuzz-flips "$flips" \
	--first $((n + 1)) --passed "$passed" --failed "$failed" >"$tmp/compare.out" 2>&1
rc=$?
cat "$tmp/compare.out"
# compare.py ends with the summary line; without it, it crashed
if ! tail -n 1 "$tmp/compare.out" | grep -qE '^[0-9]+ passed, [0-9]+ failed$'; then
	ok 1 "compare.py runs to its end (exit status $rc)"
	finish
fi
exit "$rc"
