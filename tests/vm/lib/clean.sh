#!/bin/bash
# lab.sh clean [--stale|--all] — delete cached lab entries.
#   (no option)  every rootfs and image (and unfinished builds)
#   --stale      only rootfs/image entries that the current scripts would not use any more
#   --all        everything, including the downloaded .deb cache and the build logs
# Entries in use are skipped: being built (flock held, or the temp dir's builder PID alive), a
# mount below them, a process chrooted/working in them, or a process (a running VM) holding one
# of their files open.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

mode=${1:-}
case $mode in ''|--stale|--all) ;; *) die "usage: lab.sh clean [--stale|--all]" ;; esac
[ -d "$LAB_CACHE" ] || { log "nothing to clean ($LAB_CACHE does not exist)"; exit 0; }
cache=$(realpath "$LAB_CACHE")

# The names the current scripts build (same formulas as lib/rootfs.sh and lib/image.sh).
current=()
for dist in $LAB_DISTS; do
    h=$( { echo "$dist"; cat "$here/packages.txt" "$here/rootfs.sh" "$here/common.sh" \
           "$LAB_DIR/guest/stub-init"; } | sha256sum | cut -c1-12)
    current+=("rootfs-$dist-$h" "rootfs-$dist-$h.kver")
    ih=$( { echo "rootfs-$dist-$h"; cat "$here/image.sh"; } | sha256sum | cut -c1-12)
    current+=("image-$dist-$ih")
done

in_use() {
    local d=$1 p l
    findmnt -rn -o TARGET | awk -v r="$d/" 'index($0, r) == 1 || $0 == substr(r, 1, length(r) - 1)' |
        grep -q . && return 0
    for p in /proc/[0-9]*; do
        for l in "$p/root" "$p/cwd" "$p"/fd/*; do
            case $(readlink "$l" 2>/dev/null) in "$d"|"$d"/*) return 0 ;; esac
        done
    done
    return 1
}

# entry_lock NAME: the flock file guarding a cache entry (or its temp dir / .kver file).
entry_lock() {
    local b=${1%.kver}
    case $b in
        .tmp-*) b=${b#.tmp-}; b=${b%.*} ;;
        .lock-*) b=${b#.lock-} ;;
    esac
    echo "$cache/.lock-$b"
}
# held LOCKFILE: true while a build holds it
held() { [ -e "$1" ] && ! flock -n "$1" true; }

shopt -s nullglob
for v in "$cache"/rootfs-* "$cache"/image-* "$cache"/.tmp-* "$cache"/.lock-*; do
    b=$(basename "$v")
    if [ "$mode" = --stale ]; then
        case " ${current[*]} " in *" $b "*) continue ;; esac
    fi
    if held "$(entry_lock "$b")"; then log "being built, kept: $v"; continue; fi
    case $b in
        .tmp-*) pid=${b%.kver}; pid=${pid##*.}
                if kill -0 "$pid" 2>/dev/null; then log "builder $pid alive, kept: $v"; continue; fi ;;
    esac
    case $b in
        .lock-*|*.kver) ;;
        *) if in_use "$v"; then log "in use, kept: $v"; continue; fi ;;
    esac
    log "removing $v"
    rm -rf --one-file-system "$v"
done
if [ "$mode" = --all ]; then
    for v in "$cache"/debs-* "$cache"/logs; do log "removing $v"; rm -rf "$v"; done
fi
