#!/bin/bash
# metaroce-conform (netns topology): the conformance suite (tools/conform)
# against a kernel metaroce QP.  Namespace h1 has the metaroce device mr1
# and runs kside --agent, the agent that creates and drives an RC QP on
# mr1 for each case and reads mr1's port counters; h2 has no metaroce
# device and runs the runner, conform, whose librefpeer endpoint sends
# the cases' crafted packets over plain UDP and checks what comes back.
# One check per case (named by its rule ids and a short name), then the
# cases of packet protection with auth and encrypt (one device key:
# keyctl + sysfs on mr1, the same bytes to conform's --key), the coverage
# (rules with a case / rules in protocol.rst) as metrics, and a clean
# dmesg.
#
# Files (--files): metaroce.ko, metaroce-lib.sh, kside (make -C
# tools/refpeer kside), conform and rules.txt (make -C tools/conform).
# shellcheck source=tests/vm/guest/lib.sh
source "$LAB_LIB"
# shellcheck source=tests/vm/scenarios/metaroce-lib.sh
source "$LAB_IN/files/metaroce-lib.sh"

KS=$LAB_FILES/kside
CF=$LAB_FILES/conform
RULES=$LAB_FILES/rules.txt
P1=/sys/class/infiniband/mr1/ports/1/metaroce

lab_check_grep kside-runs '^usage: kside' "$KS" --help || exit 1
lab_check_grep conform-runs '^usage: conform' "$CF" --help || exit 1
lab_check rules-present test -s "$RULES" || exit 1
mro_install
lab_check modprobe-metaroce modprobe metaroce || exit 1
modprobe -a ib_uverbs
modprobe -q -a aesni_intel ghash_clmulni_intel
lab_netns_hosts 2
lab_check link-add-mr1 ip netns exec h1 rdma link add mr1 type metaroce netdev eth0 || exit 1
lab_check active-mr1 mro_wait_state mr1 ACTIVE || exit 1
G1=$(lab_gid_index mr1) || exit 1
# mr1's port counters as the root namespace's sysfs shows them (ip netns
# exec mounts h1's own sysfs)
CTRS=/proc/1/root/sys/class/infiniband/mr1/ports/1/hw_counters
lab_check counters-visible-in-h1 ip netns exec h1 test -r "$CTRS/rx_drop_crc" || exit 1

# put FILE LINE: write LINE as `echo LINE > FILE`, failing as it fails
put() {
    bash -c 'echo "$2" >"$1"' put "$1" "$2"
}

# case_ok TAP LINE: pass when the TAP line says ok
case_ok() {
    [[ $1 == ok* ]]
}

tcp=18900

# suite MODE [CONFORM-ARGS...]: one run of the suite against a fresh
# agent; one check per case, the coverage as metrics
suite() {
    local mode=$1 log agent rc line name n=0 cov
    shift
    tcp=$((tcp + 1))
    log=$LAB_WORK/conform-$mode.tap
    ip netns exec h1 timeout -k 5 900 "$KS" --agent $tcp -d mr1 -g "$G1" \
        --port "$MRO_PORT" --counters "$CTRS" >"$LAB_WORK/agent-$mode.log" 2>&1 &
    agent=$!
    mro_wait_listen h1 $tcp 30
    ip netns exec h2 timeout -k 5 900 "$CF" -l 10.98.0.2 --agent 10.98.0.1:$tcp \
        --port "$MRO_PORT" --rules "$RULES" --coverage "$LAB_WORK/coverage-$mode.txt" \
        "$@" >"$log" 2>&1
    rc=$?
    kill "$agent" 2>/dev/null
    wait "$agent"
    cp "$log" "$LAB_WORK/agent-$mode.log" "$LAB_OUT/"
    [ -f "$LAB_WORK/coverage-$mode.txt" ] && cp "$LAB_WORK/coverage-$mode.txt" "$LAB_OUT/"
    while IFS= read -r line; do
        case $line in
            "ok "* | "not ok "*) ;;
            *) continue ;;
        esac
        # "ok 3 - [RX-4 HDR-4] version 1 dropped # 91 ms" -> RX-4_HDR-4-version-1-dropped
        name=${line#*- [}
        name=${name% \# *}
        name=$(tr -c 'A-Za-z0-9\n-' '-' <<<"${name/] /_}" | tr -s '-' | cut -c1-80)
        name=${name%-}
        [[ $line == *"# SKIP "* ]] && name=$name-skipped
        lab_check "$mode-$name" case_ok "$line"
        n=$((n + 1))
    done <"$log"
    lab_check "$mode-suite-ran" test "$n" -gt 0
    lab_metric "conform_${mode}_cases" "$n"
    lab_metric "conform_${mode}_failed" "$(grep -c '^not ok ' "$log")"
    cov=$(sed -n 's/^# coverage: \([0-9]*\) of \([0-9]*\) rules.*/\1 \2/p' "$log")
    if [ -n "$cov" ]; then
        lab_metric "conform_${mode}_rules_covered" "${cov% *}"
        lab_metric "conform_rules_total" "${cov#* }"
    fi
    lab_check "$mode-suite-exit" test "$rc" -eq 0
}

suite none -v

# packet protection: one device key, the same bytes at both ends
head -c 16 /dev/urandom >"$LAB_WORK/key"
KEYHEX=$(od -An -tx1 -v "$LAB_WORK/key" | tr -d ' \n')
lab_check keyctl-key sh -c "keyctl padd logon metaroce:conform @u <$LAB_WORK/key"
lab_check key-mr1 put "$P1/key" "1 metaroce:conform"
for mode in auth encrypt; do
    lab_check "protection-$mode" put "$P1/protection" "$mode"
    suite "$mode" --prot "$mode" --key "$KEYHEX" --key-id 1
done
lab_check protection-none put "$P1/protection" none

# the coverage of the three runs together: rules with a case in any
covered=$(cat "$LAB_WORK"/coverage-*.txt | awk -F'\t' '$1 ~ /^# [A-Z]+-[0-9]+$/ && $2 > 0 { print $1 }' | sort -u | wc -l)
lab_metric conform_rules_covered_all "$covered"

mro_counters_nonzero mr1 >"$LAB_OUT/mr1-counters.txt"
lab_check link-del-mr1 ip netns exec h1 rdma link delete mr1
lab_check rmmod rmmod metaroce
lab_check dmesg-clean mro_dmesg_clean
