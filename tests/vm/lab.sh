#!/bin/bash
# metaroce VM lab dispatcher: lab.sh SUBCOMMAND ARGS...
#   rootfs DIST   build (if missing) the cached Debian rootfs; prints its path
#   image DIST    build (if missing) the cached ext4 disk image; prints its path
#                 (vmlinuz, initrd.img and kver sit next to it)
#   clean [--stale|--all]  delete cached rootfs/images (--stale: only outdated ones;
#                 --all: also the .deb cache and logs); entries in use are kept
# Each sub-command lives in lib/SUBCOMMAND.sh.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cmd=${1:-}
if [ -z "$cmd" ] || [ ! -f "$here/lib/$cmd.sh" ] || [ "$cmd" = common ]; then
    echo "usage: $0 {rootfs|image} DIST | $0 clean [--stale|--all]" >&2
    exit 2
fi
shift
exec bash "$here/lib/$cmd.sh" "$@"
