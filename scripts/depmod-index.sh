#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/depmod-index.sh DIST KO OUT: write to OUT a tar of the module index
# files (KVER/modules.dep, modules.alias, their .bin forms, ...) that DIST's
# lab rootfs gets with KO installed as extra/metaroce.ko, made by the
# rootfs's own depmod in a chroot on the host (a few seconds).  The lab's
# guests boot an image of that rootfs; mro_install (metaroce-lib.sh) unpacks
# the tar instead of running `depmod -a` in the guest, which takes 20-27 s
# per VM under TCG.  The rootfs itself is not changed: depmod works on a
# hard-linked copy of its module tree under <rootfs>/tmp.
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 DIST KO OUT" >&2; exit 2; }
dist=$1
ko=$(realpath "$2")
out=$3
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

rootfs=$(bash "$repo/tests/vm/lab.sh" rootfs "$dist" | tail -n1)
[ -d "$rootfs" ] && [ -s "$rootfs.kver" ] || { echo "$0: no rootfs for $dist" >&2; exit 1; }
kver=$(head -n1 "$rootfs.kver")
mods=$rootfs/lib/modules/$kver
[ -d "$mods" ] || { echo "$0: no $mods" >&2; exit 1; }

work=$(mktemp -d "$rootfs/tmp/mro-depmod.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lib/modules"
cp -al "$mods" "$work/lib/modules/"
# depmod rewrites the index files: give it copies, never the rootfs's own
for f in "$work/lib/modules/$kver"/modules.*; do
    cp --remove-destination "$mods/${f##*/}" "$f"
done
mkdir -p "$work/lib/modules/$kver/extra"
cp --remove-destination "$ko" "$work/lib/modules/$kver/extra/metaroce.ko"
chroot "$rootfs" depmod -b "/tmp/${work##*/}" "$kver"
grep -q '^extra/metaroce\.ko:' "$work/lib/modules/$kver/modules.dep" ||
    { echo "$0: depmod did not index extra/metaroce.ko" >&2; exit 1; }
(cd "$work/lib/modules" && tar -cf - "$kver"/modules.*) >"$out"
echo "$out"
