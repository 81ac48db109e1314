# shellcheck shell=bash
# Shared helpers for the metaroce VM lab (sourced by lab.sh, run.sh and lib/*.sh).
# Everything human-readable goes to stderr; stdout is reserved for results (paths).

LAB_DIR=${LAB_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
export LAB_CACHE
LAB_CACHE=${METAROCE_CACHE:-/var/cache/metaroce}/vm
LAB_MIRROR=${LAB_MIRROR:-http://deb.debian.org/debian}
LAB_SECURITY_MIRROR=${LAB_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
LAB_DISTS="bookworm trixie"

log() { printf '[lab %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

check_dist() {
    case " $LAB_DISTS " in
        *" $1 "*) ;;
        *) die "unknown dist '$1' (known: $LAB_DISTS)" ;;
    esac
}

# need_host_pkgs CMD:PKG ... — apt-get install the packages whose command is missing.
need_host_pkgs() {
    local pair missing=()
    for pair in "$@"; do
        command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    log "installing host packages: ${missing[*]}"
    [ "$(id -u)" = 0 ] || die "need root to apt-get install ${missing[*]}"
    timeout 900 apt-get update -q >&2 || true
    DEBIAN_FRONTEND=noninteractive timeout 1800 \
        apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

# hash_inputs FILE... — short, stable content hash of files (plus extra strings via stdin-free args).
hash_files() { cat "$@" | sha256sum | cut -c1-12; }

# run_logged LOGFILE TIMEOUT CMD... — run CMD with a hard timeout, output to LOGFILE; on failure
# show the end of the log.
run_logged() {
    local logf=$1 secs=$2; shift 2
    if ! timeout --kill-after=30 "$secs" "$@" >>"$logf" 2>&1; then
        log "command failed (or timed out after ${secs}s): $*"
        tail -n 40 "$logf" >&2
        return 1
    fi
}
