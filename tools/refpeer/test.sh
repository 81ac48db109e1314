#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Peer-vs-peer tests of the metaroce reference peer over loopback: two
# refpeer processes (server on 127.0.0.2, client on 127.0.0.1) connected
# through the TCP side channel, each case asserting that data moved and
# every byte was verified (or, for the failure cases, that the connection
# ended with the expected message, or that the receiver refused and
# counted every datagram).  Needs root (privileged source ports).
# Usage: ./test.sh [-v]

set -u
cd "$(dirname "$0")" || exit 1

PORT=${RP_PORT:-14796}
TCP=${RP_TCP:-18515}
KEY16=000102030405060708090a0b0c0d0e0f
KEY32=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
BADKEY=ff0102030405060708090a0b0c0d0e0f
VERBOSE=0
[ "${1:-}" = -v ] && VERBOSE=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

result() {
	if [ "$1" = 0 ]; then
		echo "ok - $2"
		pass=$((pass + 1))
	else
		echo "not ok - $2"
		fail=$((fail + 1))
		sed 's/^/#   /' "$TMP/c.out" "$TMP/c.err" "$TMP/s.out" "$TMP/s.err"
	fi
	if [ "$VERBOSE" = 1 ]; then
		sed 's/^/#   /' "$TMP/c.out" "$TMP/c.err" "$TMP/s.out" "$TMP/s.err"
	fi
}

# run NAME SERVER_ARGS -- CLIENT_ARGS; leaves exit codes in crc and src
run() {
	local sargs=() cargs=() spid
	while [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	TCP=$((TCP + 1))
	timeout 60 ./refpeer --server -l 127.0.0.2 --port "$PORT" \
		--listen "$TCP" "${sargs[@]}" >"$TMP/s.out" 2>"$TMP/s.err" &
	spid=$!
	timeout 60 ./refpeer --client -l 127.0.0.1 --port "$PORT" \
		--connect "127.0.0.2:$TCP" "${cargs[@]}" \
		>"$TMP/c.out" 2>"$TMP/c.err"
	crc=$?
	wait "$spid"
	src=$?
}

# a transfer that must succeed: both ends say ok, bytes moved > 0
expect_ok() {
	local name=$1 moved paths want_paths=${PATHS_WANT:-1}
	shift
	run "$@"
	moved=$(sed -n 's/.*ok: moved \([0-9]*\) bytes.*verified.*/\1/p' \
		"$TMP/c.out")
	paths=$(sed -n 's/^refpeer client: paths used \([0-9]*\).*/\1/p' \
		"$TMP/c.err")
	[ "$crc" = 0 ] && [ "$src" = 0 ] && [ "${moved:-0}" -gt 0 ] &&
		grep -q '^refpeer server: ok:' "$TMP/s.out" &&
		[ "${paths:-0}" -ge "$want_paths" ]
	result $? "$name (${moved:-0} bytes verified, ${paths:-0} paths)"
}

# a connection that must fail, with @pattern in the client's or server's
# messages
expect_fail() {
	local name=$1 pattern=$2
	shift 2
	run "$@"
	[ "$crc" != 0 ] && cat "$TMP/c.err" "$TMP/s.err" | grep -q -- "$pattern"
	result $? "$name"
}

# UD datagrams the server must refuse, every one, counted under @counter
# in its statistics line; @pattern must be in its messages
expect_ud_refused() {
	local name=$1 counter=$2 pattern=$3 sent refused
	shift 3
	run "$@"
	sent=$(sed -n 's/^refpeer server: 0 messages received, client sent \([0-9]*\)$/\1/p' \
		"$TMP/s.err")
	refused=$(sed -n "s/^refpeer server: tx .* $counter \([0-9]*\) .*/\1/p" \
		"$TMP/s.err")
	[ "$crc" != 0 ] && [ "$src" != 0 ] && [ "${sent:-0}" -gt 0 ] &&
		[ "$refused" = "$sent" ] && grep -q -- "$pattern" "$TMP/s.err"
	result $? "$name (${refused:-?} of ${sent:-?} refused as $counter)"
}

if [ "$(id -u)" != 0 ]; then
	echo "# test.sh needs root: the source ports are privileged (512..1023)"
	exit 1
fi
make -s || exit 1

./rp_selftest >"$TMP/c.out" 2>&1
crc=$?
: >"$TMP/c.err"; : >"$TMP/s.out"; : >"$TMP/s.err"
result "$crc" "self test: CRC32C, HKDF RFC 5869 A.1-A.3, kdf_test.c known answers, datagram key and seal known answers, codec"

expect_ok "none, 1 path, 64 MiB write+send+read" \
	--bytes 64M -- --bytes 64M
expect_ok "none, 1% loss, 1% reordering, 16 MiB write+send+read" \
	--bytes 16M --drop 1 --reorder 1 -- --bytes 16M --drop 1 --reorder 1
expect_ok "none, 10% loss, 16 MiB write+send+read" \
	--bytes 16M --drop 10 -- --bytes 16M --drop 10
PATHS_WANT=8 expect_ok "none, 8 paths, 2% loss, 5% reordering, 16 MiB" \
	--bytes 16M --paths 8 --drop 2 --reorder 5 -- \
	--bytes 16M --paths 8 --drop 2 --reorder 5
expect_ok "atomics (FETCH_ADD x17, CMP_SWAP) and read, 2% loss" \
	--bytes 1M --drop 2 -- --bytes 1M --ops atomic,read --drop 2
expect_ok "UD, 8 MiB in MTU datagrams with immediate" \
	--ud -- --ud --bytes 8M
expect_ok "UD sealed, auth AES-128-GCM, 8 MiB in MTU datagrams" \
	--ud --prot auth --key "$KEY16" -- \
	--ud --bytes 8M --prot auth --key "$KEY16"
expect_ok "UD sealed, encrypt AES-256-GCM, 8 MiB in MTU datagrams" \
	--ud --prot encrypt --key "$KEY32" -- \
	--ud --bytes 8M --prot encrypt --key "$KEY32"
expect_ud_refused "UD auth with a wrong key: every datagram fails its tag" \
	auth "a datagram from QP .* fails authentication under key id 1" \
	--ud --prot auth --key "$KEY16" -- \
	--ud --bytes 1M --prot auth --key "$BADKEY"
expect_ud_refused "UD encrypt datagrams to an auth receiver fail their tag" \
	auth "fails authentication under key id 1" \
	--ud --prot auth --key "$KEY16" -- \
	--ud --bytes 1M --prot encrypt --key "$KEY16"
expect_ud_refused "UD unsealed datagrams to a protected receiver refused" \
	auth "unsealed datagram" \
	--ud --prot encrypt --key "$KEY16" -v -v -v -- --ud --bytes 256K
expect_ud_refused "UD sealed datagrams to an unprotected receiver refused" \
	auth "sealed datagram, protection none" \
	--ud -v -v -v -- --ud --bytes 256K --prot auth --key "$KEY16"
PATHS_WANT=4 expect_ok "auth AES-128-GCM, 4 paths, 1% loss, 16 MiB" \
	--bytes 16M --paths 4 --prot auth --key "$KEY16" --drop 1 -- \
	--bytes 16M --paths 4 --prot auth --key "$KEY16" --drop 1
PATHS_WANT=4 expect_ok "encrypt AES-256-GCM, 4 paths, 1% loss, 16 MiB" \
	--bytes 16M --paths 4 --prot encrypt --key "$KEY32" --drop 1 -- \
	--bytes 16M --paths 4 --prot encrypt --key "$KEY32" --drop 1
expect_fail "auth with a wrong key fails authentication and gives up" \
	"fails authentication under key id 1" \
	--bytes 1M --prot auth --key "$KEY16" -- \
	--bytes 1M --prot auth --key "$BADKEY" --retry 3 --timeout 10
expect_fail "window mismatch ends the connection naming both values" \
	"has window 256, this end 512" \
	--bytes 1M --window 256 -- --bytes 1M
expect_fail "protection mismatch ends the connection naming both values" \
	"has protection none, this end encrypt" \
	--bytes 1M --prot encrypt --key "$KEY16" -- --bytes 1M

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
