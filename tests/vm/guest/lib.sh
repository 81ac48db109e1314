# shellcheck shell=bash
# Guest-side helpers for scenarios: `source "$LAB_LIB"` at the top of a scenario.
# Environment given by the harness:
#   LAB_VM (a, b, or vm), ROLE (a|b in the pair topology, empty otherwise), MY_IP, PEER_IP,
#   LAB_TOPOLOGY, LAB_DIST, LAB_SCENARIO, LAB_FILES (the --files), LAB_OUT (results dir),
#   LAB_WORK (scratch dir, the cwd).
# Checks and metrics are appended to $LAB_OUT/checks.jsonl and metrics.jsonl; the harness
# turns them into result.json. The scenario fails if any check failed or it exits non-zero.

LAB_BARRIER_PORT=${LAB_BARRIER_PORT:-7700}
LAB_BARRIER_TIMEOUT=${LAB_BARRIER_TIMEOUT:-300}

lab_log() { printf '[%s %s] %s\n' "${LAB_VM:-?}" "$(cut -d' ' -f1 /proc/uptime)" "$*"; }

# lab_record NAME OK(true|false) DETAIL
lab_record() {
    jq -nc --arg name "$1" --argjson ok "$2" --arg detail "$3" \
        '{name: $name, ok: $ok, detail: $detail}' >>"$LAB_OUT/checks.jsonl"
    if [ "$2" = true ]; then lab_log "PASS $1"; else lab_log "FAIL $1: $(tail -c 400 <<<"$3")"; fi
}

# lab_check NAME CMD... — run CMD; the check passes if it exits 0. Output (last 4 KiB) is kept
# as detail. Returns CMD's exit status (so `lab_check ... || exit 1` stops the scenario).
lab_check() {
    local name=$1 out rc=0; shift
    out=$("$@" 2>&1) || rc=$?
    lab_record "$name" "$([ $rc = 0 ] && echo true || echo false)" "rc=$rc $(tail -c 4096 <<<"$out")"
    return $rc
}

# lab_check_grep NAME PATTERN CMD... — the check passes if CMD's output matches the
# extended regex PATTERN (whatever CMD's exit status). Returns 0 on a match, 1 otherwise.
lab_check_grep() {
    local name=$1 pat=$2 out rc=0; shift 2
    out=$("$@" 2>&1) || rc=$?
    if grep -Eq -- "$pat" <<<"$out"; then
        lab_record "$name" true "rc=$rc $(tail -c 4096 <<<"$out")"
    else
        lab_record "$name" false "no match for /$pat/ (rc=$rc): $(tail -c 4096 <<<"$out")"
        return 1
    fi
}

# lab_metric NAME VALUE — store a metric (number if VALUE parses as one, else string).
lab_metric() {
    jq -nc --arg name "$1" --arg v "$2" '{name: $name, value: ($v | tonumber? // $v)}' \
        >>"$LAB_OUT/metrics.jsonl"
    lab_log "metric $1=$2"
}

# lab_insnprof NAME — when the VM runs with the instruction-counting plugin (run.sh with
# LAB_INSNPROF=1: $LAB_OUT/insnprof exists), snapshot its counts as insnprof/NAME.snap and
# wait until the snapshot is written (at most 60 s); otherwise do nothing.
# Shell builtins only (a process per poll would be counted in the profile): the wait is a read
# with a timeout on a pipe nobody writes.
lab_insnprof() {
    local d=$LAB_OUT/insnprof i fd _
    [ -d "$d" ] || return 0
    echo "$1" >"$d/req"
    exec {fd}<> <(:)
    for ((i = 0; i < 600; i++)); do
        [ -e "$d/req" ] || break
        read -r -t 0.1 -u "$fd" _
    done
    exec {fd}<&-
    [ ! -e "$d/req" ] && return 0
    lab_log "insnprof: snapshot $1 not written"
    return 1
}

# lab_retry TRIES DELAY CMD... — run CMD until it succeeds, at most TRIES times.
lab_retry() {
    local tries=$1 delay=$2 i; shift 2
    for ((i = 1; i <= tries; i++)); do
        "$@" && return 0
        [ $i -lt $tries ] && sleep "$delay"
    done
    return 1
}

# lab_wait_port PORT [TIMEOUT] — wait until something listens on TCP PORT locally.
lab_wait_port() {
    local port=$1 end=$((SECONDS + ${2:-60}))
    while ! ss -Htln "sport = :$port" | grep -q .; do
        [ $SECONDS -ge $end ] && return 1
        sleep 0.2
    done
}

# lab_barrier NAME [TIMEOUT] — pair topology: wait until both VMs reached barrier NAME.
# VM a listens (nc) on LAB_BARRIER_PORT and answers every connection with the
# name of the barrier it is at; VM b connects (retrying), sends NAME and passes
# once a's answer shows that a's listener took it: NAME, or a later barrier's
# name (a passed NAME with an earlier attempt of b's).  A connect and a send
# alone prove nothing: a connection that reaches a's port while a's previous
# listener still runs waits in that listener's backlog and is reset unread
# when it exits, after which b used to be one barrier ahead of a.
# A no-op without a peer. Returns non-zero (and records a failed check) on timeout/mismatch.
lab_barrier() {
    local name=$1 t=${2:-$LAB_BARRIER_TIMEOUT} got
    [ -n "${PEER_IP:-}" ] || return 0
    lab_log "barrier $name ..."
    if [ "${ROLE:-}" = a ]; then
        # VM b's 5 s send timeout on a slow guest (netem on eth0, a loaded
        # host) can cut an attempt short: an empty connection means it tries
        # again, so listen again; or the send got through before the timeout
        # and b retried it, so a late copy of an earlier barrier's name
        # arrives: skip it (b cannot be ahead, it passes only when a listens)
        local end=$((SECONDS + t))
        while :; do
            got=$(printf '%s\n' "$name" | timeout "$((end > SECONDS ? end - SECONDS : 1))" \
                nc -l "$LAB_BARRIER_PORT") || true
            [ "$got" = "$name" ] && break
            [ $SECONDS -lt $end ] || got="${got:-nothing}"
            if [ -n "$got" ] && ! grep -qxF -- "$got" <<<"$LAB_BARRIERS_PASSED"; then
                lab_record "barrier-$name" false "expected '$name', got '$got' (timeout ${t}s?)"
                return 1
            fi
            [ -n "$got" ] && lab_log "barrier $name: skipping a late copy of '$got'"
            sleep 0.1
        done
    else
        local end=$((SECONDS + t))
        # a's answer: NAME, or a name b has not passed (a is ahead); a
        # barrier b already passed means a's old listener: try again
        until timeout 5 bash -c 'exec 3<>"/dev/tcp/$0/$1" && printf "%s\n" "$2" >&3 &&
                IFS= read -r r <&3 && [ -n "$r" ] &&
                { [ "$r" = "$2" ] || ! grep -qxF -- "$r" <<<"$3"; }' \
                "$PEER_IP" "$LAB_BARRIER_PORT" "$name" "$LAB_BARRIERS_PASSED" 2>/dev/null; do
            if [ $SECONDS -ge $end ]; then
                lab_record "barrier-$name" false "peer $PEER_IP did not reach it in ${t}s"
                return 1
            fi
            sleep 0.3
        done
    fi
    LAB_BARRIERS_PASSED+="$name"$'\n'
    lab_log "barrier $name passed"
}

# lab_gid_index DEV [PORT] — print the GID index of DEV's RoCE v2 IPv4-mapped GID
# (::ffff:a.b.c.d), waiting up to 10 s for it to appear. Use it as perftest's -x.
lab_gid_index() {
    local dev=$1 port=${2:-1} d=/sys/class/infiniband/$1/ports/${2:-1} f i gid type tries
    for tries in $(seq 50); do
        for f in "$d"/gids/*; do
            i=${f##*/}
            gid=$(cat "$f" 2>/dev/null) || continue
            type=$(cat "$d/gid_attrs/types/$i" 2>/dev/null) || continue
            case "$gid" in
                0000:0000:0000:0000:0000:ffff:*)
                    if [ "$type" = "RoCE v2" ]; then echo "$i"; return 0; fi ;;
            esac
        done
        sleep 0.2
    done
    echo "lab_gid_index: no RoCE v2 IPv4 GID on $dev port $port" >&2
    return 1
}

# lab_netns_hosts N [BRIDGE] — create netns h1..hN, each with eth0 (10.98.0.i/24) on a veth
# whose other end (veth-hI) is a port of BRIDGE (default br0, left up in the init netns).
lab_netns_hosts() {
    local n=$1 br=${2:-br0} i
    modprobe veth
    modprobe bridge
    ip link add "$br" type bridge 2>/dev/null || true
    ip link set "$br" up
    for ((i = 1; i <= n; i++)); do
        ip netns add "h$i"
        ip link add "veth-h$i" type veth peer name eth0 netns "h$i"
        ip link set "veth-h$i" master "$br" up
        ip -n "h$i" link set lo up
        ip -n "h$i" addr add "10.98.0.$i/24" dev eth0
        ip -n "h$i" link set eth0 up
    done
}
