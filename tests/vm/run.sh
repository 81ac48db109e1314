#!/bin/bash
# Run one scenario in the metaroce VM lab.
#   tests/vm/run.sh --dist bookworm|trixie --topology pair|netns --scenario FILE|NAME
#                   [--files PATH ...] [--out DIR] [--timeout SEC] [--boot-timeout SEC]
#                   [--build-timeout SEC] [--kernel PATH]
# --kernel (or env LAB_KERNEL) boots PATH instead of the image's Debian kernel, without an
# initrd: a bzImage with every driver the lab needs built in, or a scripts/debug-kernel.sh
# cache dir (its bzImage; its install/lib/modules/<kver> is shared with the guests, which
# install it so modprobe knows the built-ins and finds rdma_rxe.ko).
# LAB_GUEST_ENV="VAR=VALUE ..." is added to every VM's vm.env (e.g. longer guest timeouts
# for slow kernels: LAB_BARRIER_TIMEOUT=900). With --kernel the boot timeout defaults to
# 1200 s and LAB_VM_APPEND (extra kernel parameters) to the debug kernel's (see below).
# Results: DIR/<vm>/{result.json,console.log,dmesg.txt,scenario.log} and DIR/summary.json.
# Exits 0 only if every VM's result.json says "pass".
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib/common.sh"

# The whole script is one function, parsed before it runs: editing run.sh while a run is in
# progress cannot break that run.
main() {
    usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

    dist=bookworm topology='' scenario='' out='' timeout=900 boot_timeout=240 build_timeout=3000
    files=() kernel=${LAB_KERNEL:-} boot_given=
    while [ $# -gt 0 ]; do
        case $1 in
            --dist) dist=$2; shift 2 ;;
            --topology) topology=$2; shift 2 ;;
            --scenario) scenario=$2; shift 2 ;;
            --out) out=$2; shift 2 ;;
            --timeout) timeout=$2; shift 2 ;;
            --boot-timeout) boot_timeout=$2 boot_given=1; shift 2 ;;
            --build-timeout) build_timeout=$2; shift 2 ;;
            --kernel) kernel=$2; shift 2 ;;
            --files) shift
                     while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do files+=("$1"); shift; done ;;
            -h|--help) usage ;;
            *) echo "unknown argument: $1" >&2; usage ;;
        esac
    done
    check_dist "$dist"
    # --scenario takes a path, or a name from tests/vm/scenarios/ (with or without .sh)
    if [ ! -f "$scenario" ] && [ -n "$scenario" ]; then
        for c in "$here/scenarios/$scenario" "$here/scenarios/$scenario.sh"; do
            [ -f "$c" ] && { scenario=$c; break; }
        done
    fi
    [ -f "$scenario" ] || die "--scenario FILE|NAME is required (got '$scenario')"
    case $topology in
        pair) vms=(a b) ;;
        netns) vms=(vm) ;;
        *) die "--topology must be pair or netns" ;;
    esac
    name=$(basename "$scenario" .sh)
    guest_timeout=$(( timeout > 240 ? timeout - 120 : timeout / 2 ))

    need_host_pkgs qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils jq:jq

    # 1. image (cached)
    log "image for $dist (build timeout ${build_timeout}s)"
    t=$SECONDS
    img=$(timeout --kill-after=60 "$build_timeout" bash "$here/lab.sh" image "$dist" | tail -n1)
    [ -f "$img" ] || die "no image for $dist"
    log "image ready ($((SECONDS - t))s): $img"

    # 2. run directory: in/ (read-only share for all VMs) and one output dir per VM
    if [ -z "$out" ]; then
        out=$(mktemp -d "/tmp/metaroce-lab-$name-$dist-$(date +%Y%m%d-%H%M%S)-XXXX")
    fi
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    rm -rf "$out/in"
    mkdir -p "$out/in/guest" "$out/in/files"
    cp "$here/guest/init.sh" "$here/guest/lib.sh" "$out/in/guest/"
    cp "$scenario" "$out/in/scenario.sh"
    for f in "${files[@]}"; do cp -a "$f" "$out/in/files/"; done
    # custom kernel: vm-start.sh boots $LAB_KERNEL; the guests copy in/kmods to /lib/modules
    if [ -n "$kernel" ]; then
        if [ -d "$kernel" ]; then
            [ -f "$kernel/bzImage" ] || die "--kernel $kernel: no bzImage in that dir"
            if [ -d "$kernel/install/lib/modules" ]; then
                mkdir -p "$out/in/kmods"
                cp -a "$kernel/install/lib/modules/." "$out/in/kmods/"
            fi
            kernel=$kernel/bzImage
        fi
        [ -f "$kernel" ] || die "--kernel $kernel: no such kernel image"
        LAB_KERNEL=$(realpath "$kernel")
        export LAB_KERNEL
        # the custom kernel is the debug kernel (KASAN, lockdep, kmemleak under TCG): cut
        # boot-time work and noise. acpi=noirq: under TCG + KASAN the firmware's AML _PRT
        # method runs into ACPICA's 30 s loop timeout (AE_AML_LOOP_TIMEOUT), the virtio
        # devices get no INTx route (the kernel has no MSI) and the boot hangs on the
        # root disk or the 9p mount; the BIOS $PIR table routes them instead, no AML.
        # RCU stall warnings before init are suppressed and the
        # stall timeout is 60 s (a starved TCG vCPU is not a kernel bug); after boot a
        # longer stall is still reported, and mro_dmesg_clean fails on it. KASAN reports
        # every bug, not only the first. LAB_VM_APPEND set by the caller wins.
        LAB_VM_APPEND=${LAB_VM_APPEND-acpi=noirq rcupdate.rcu_cpu_stall_suppress_at_boot=1 rcupdate.rcu_cpu_stall_timeout=60 mitigations=off nokaslr kasan_multi_shot no_hash_pointers}
        export LAB_VM_APPEND
        [ -n "$boot_given" ] || boot_timeout=1200
        log "kernel: $LAB_KERNEL (no initrd), append: $LAB_VM_APPEND"
    else
        unset LAB_KERNEL
    fi
    scratch=$(mktemp -d /tmp/metaroce-vm.XXXXXX)   # overlays, sockets: short paths, thrown away

    pids=()
    cleanup() {
        local p
        for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
        sleep 1
        for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
        rm -rf "$scratch"
    }
    trap cleanup EXIT
    trap 'exit 130' INT TERM

    # 3. boot
    declare -A ip=([a]=10.99.0.1 [b]=10.99.0.2) mac=([a]=52:54:00:99:00:01 [b]=52:54:00:99:00:02 [vm]=52:54:00:98:00:01)
    declare -A peer=([a]=b [b]=a)
    t_boot=$SECONDS
    for vm in "${vms[@]}"; do
        vmdir=$out/$vm
        rm -rf "$vmdir"; mkdir -p "$vmdir"
        netdev=
        {
            echo "LAB_VM=$vm"
            echo "LAB_SCENARIO=$name"
            echo "LAB_TOPOLOGY=$topology"
            echo "LAB_DIST=$dist"
            echo "LAB_TIMEOUT=$guest_timeout"
            for kv in ${LAB_GUEST_ENV:-}; do
                [[ $kv =~ ^[A-Z_][A-Z0-9_]*=[^\'\"\$\`]*$ ]] || die "bad LAB_GUEST_ENV entry '$kv'"
                echo "$kv"
            done
            if [ "$topology" = pair ]; then
                echo "ROLE=$vm"
                echo "MY_IP=${ip[$vm]}"
                echo "PEER_IP=${ip[${peer[$vm]}]}"
            fi
        } >"$vmdir/vm.env"
        if [ "$topology" = pair ]; then
            netdev="dgram,local.type=unix,local.path=$scratch/$vm.sock,remote.type=unix,remote.path=$scratch/${peer[$vm]}.sock"
        fi
        pid=$(bash "$here/lib/vm-start.sh" "$img" "$vmdir" "$scratch" "${mac[$vm]}" "$out/in" "$netdev")
        pids+=("$pid")
        log "booted VM $vm (pid $pid), console: $vmdir/console.log"
    done

    # stall_report CONSOLE: what the host and each QEMU see of a stalled
    # virtio-net queue (the VM behind CONSOLE), twice 3 s apart: the host's
    # AF_UNIX link sockets (Recv-Q: datagrams the receiving QEMU has not
    # read), the QEMUs' state and CPU time, each monitor's virtqueue indexes
    # (queue 0 receives, 1 transmits); then whether a link flap (set_link
    # off/on) gets the queue moving again
    stall_report() {
        local console=$1 round vm n0 n1 svm
        # mon VM CMD...: VM's monitor answers CMD... (lib/vm-monitor.py)
        mon() { timeout 20 python3 "$here/lib/vm-monitor.py" "$scratch/$1.mon" "${@:2}"; }
        svm=$(basename "$(dirname "$console")")
        for round in 1 2; do
            echo "# round $round, $(date -u +%T)"
            echo "## host unix sockets"
            ss -xa 2>&1 | grep -F "$scratch" || true
            echo "## QEMU processes"
            ps -o pid,stat,time,wchan:24,args -p "$(IFS=,; echo "${pids[*]}")" 2>&1 | cut -c1-140
            for vm in "${vms[@]}"; do
                echo "# VM $vm"
                mon "$vm" 'info network' 'info virtio-queue-status @virtio-net 0' \
                    'info virtio-queue-status @virtio-net 1' || echo "(monitor not read)"
            done
            [ "$round" = 2 ] || sleep 3
        done
        n0=$(grep -c 'NETDEV WATCHDOG' "$console" || true)
        mon "$svm" 'set_link n0 off' || true
        sleep 2
        mon "$svm" 'set_link n0 on' || true
        sleep 15
        n1=$(grep -c 'NETDEV WATCHDOG' "$console" || true)
        echo "# after set_link n0 off/on on VM $svm: $((n1 - n0)) new watchdog reports in 15 s"
        mon "$svm" 'info virtio-queue-status @virtio-net 1' || true
    }

    # 4. wait: every VM must reach the harness ("lab: vm=" on its console) within the boot
    #    timeout and power off within the overall timeout; then kill only our own QEMUs.
    deadline=$((SECONDS + timeout))
    boot_deadline=$((SECONDS + boot_timeout))
    declare -A booted=() gone=()
    peer_grace=${LAB_PEER_GRACE:-30}
    while :; do
        alive=0
        for i in "${!vms[@]}"; do
            vm=${vms[$i]}
            if kill -0 "${pids[$i]}" 2>/dev/null; then
                alive=1
            elif [ -z "${gone[$vm]:-}" ]; then
                gone[$vm]=1
                if [ ! -s "$out/$vm/result.json" ]; then
                    # crashed (panic, triple fault) or powered off early: the peers cannot finish
                    log "VM $vm stopped without a result; giving the others ${peer_grace}s"
                    [ $((SECONDS + peer_grace)) -lt $deadline ] && deadline=$((SECONDS + peer_grace))
                fi
            fi
        done
        [ $alive = 0 ] && break
        for vm in "${vms[@]}"; do
            if [ -z "${booted[$vm]:-}" ] && grep -q '^lab: vm=' "$out/$vm/console.log" 2>/dev/null; then
                booted[$vm]=1
                log "VM $vm reached the harness after $((SECONDS - t_boot))s"
            fi
        done
        # not the scenario's fault: a guest's virtio-net transmit queue stopped
        # and never started again (seen a few times, always on bookworm
        # guests with the pair's dgram link under TCG; the guest's watchdog
        # reports it every 5 s; every stall.txt so far shows QEMU had taken
        # and signalled every packet, so the guest never reclaimed them); the
        # run cannot finish, so stop it now (run-all.sh retries it once)
        # (for 30 s: a vCPU starved for a few seconds must not count)
        stalled=""
        for vm in "${vms[@]}"; do
            grep -oE 'NETDEV WATCHDOG: .* timed out [0-9]+ ms' "$out/$vm/console.log" 2>/dev/null |
                awk '{ if ($(NF - 1) >= 30000) f = 1 } END { exit !f }' &&
                stalled=$out/$vm/console.log
        done
        if [ -n "$stalled" ]; then
            log "a virtio-net transmit queue stalled ($stalled): recording the emulator's side in $out/stall.txt"
            stall_report "$stalled" >"$out/stall.txt" 2>&1 || true
            log "killing VMs ${pids[*]}"
            break
        fi
        if [ ${#booted[@]} -lt ${#vms[@]} ] && [ $SECONDS -ge $boot_deadline ]; then
            log "boot timeout (${boot_timeout}s): killing VMs ${pids[*]}"
            break
        fi
        if [ $SECONDS -ge $deadline ]; then
            log "timeout after ${timeout}s: killing VMs ${pids[*]}"
            break
        fi
        sleep 1
    done
    cleanup
    pids=()
    wall=$((SECONDS - t_boot))

    # 5. collect
    rc=0
    results=()
    for vm in "${vms[@]}"; do
        r=$out/$vm/result.json
        results+=("$r")
        if ! jq -e . "$r" >/dev/null 2>&1; then
            why="no result.json from guest (timeout, crash or boot failure; see console.log)"
            if grep -qE 'Kernel panic|BUG:|Oops' "$out/$vm/console.log" 2>/dev/null; then
                why="guest kernel crashed: $(grep -m1 -oE '(Kernel panic|BUG:|Oops).*' "$out/$vm/console.log" | tr -d '\r')"
            elif [ -n "${stalled:-}" ]; then
                why="run stopped: a guest's virtio-net transmit queue stopped for good ($(grep -oE 'NETDEV WATCHDOG.*' "$stalled" | tail -n1 | tr -d '\r'), in ${stalled#"$out"/}; see stall.txt)"
            fi
            # keep the checks and metrics the guest recorded before it stopped
            touch "$out/$vm/checks.jsonl" "$out/$vm/metrics.jsonl"
            jq -n --arg vm "$vm" --arg s "$name" --arg dist "$dist" --arg topo "$topology" --arg why "$why" \
                --slurpfile checks "$out/$vm/checks.jsonl" --slurpfile metrics "$out/$vm/metrics.jsonl" \
                '{vm: $vm, scenario: $s, topology: $topo, dist: $dist, status: "fail", exit_code: -1,
                  error: $why, checks: $checks,
                  metrics: (reduce $metrics[] as $m ({}; .[$m.name] = $m.value))}' >"$r"
            log "VM $vm left no result; end of its console.log and qemu.log:"
            tail -n 15 "$out/$vm/console.log" "$out/$vm/qemu.log" >&2 2>/dev/null || true
        fi
        [ -f "$out/$vm/dmesg.txt" ] || cp "$out/$vm/console.log" "$out/$vm/dmesg.txt" 2>/dev/null || true
        jq -r --arg vm "$vm" '.checks[] | "\(if .ok then "PASS" else "FAIL" end) \($vm)/\(.name)"' "$r"
        jq -r --arg vm "$vm" '.metrics // {} | to_entries[] | "METRIC \($vm)/\(.key)=\(.value)"' "$r"
        st=$(jq -r .status "$r")
        echo "VM $vm: $st (exit_code $(jq -r .exit_code "$r"), $(jq '.checks | length' "$r") checks)$(jq -r '.error // .exit_detail // "" | if . == "" then "" else ": " + . end' "$r")"
        [ "$st" = pass ] || rc=1
    done
    jq -s --arg dist "$dist" --arg s "$name" --argjson wall "$wall" \
        '{scenario: $s, dist: $dist, wall_s: $wall, status: (if all(.status == "pass") then "pass" else "fail" end), vms: .}' \
        "${results[@]}" >"$out/summary.json"
    echo "scenario $name on $dist ($topology): $([ $rc = 0 ] && echo PASS || echo FAIL) in ${wall}s; results: $out"
    exit $rc
}

main "$@"
exit $?
