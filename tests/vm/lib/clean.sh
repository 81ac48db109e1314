#!/bin/bash
# lab.sh clean [--all] — delete the lab's cached rootfs and image directories (and unfinished
# builds). --all also drops the downloaded .deb cache and build logs.
# Refuses while anything is mounted below the cache (e.g. a module build in a rootfs chroot).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

[ -d "$LAB_CACHE" ] || { log "nothing to clean ($LAB_CACHE does not exist)"; exit 0; }
cache=$(realpath "$LAB_CACHE")
busy=$(findmnt -rn -o TARGET | awk -v r="$cache/" 'index($0, r) == 1')
[ -z "$busy" ] || die "still mounted below $cache: $busy"
shopt -s nullglob
victims=("$cache"/rootfs-* "$cache"/image-* "$cache"/.tmp-* "$cache"/.lock-*)
if [ "${1:-}" = --all ]; then victims+=("$cache"/debs-* "$cache"/logs); fi
for v in "${victims[@]}"; do
    log "removing $v"
    rm -rf --one-file-system "$v"
done
