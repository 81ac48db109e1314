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

MR_PROG=depmod-index.sh
# shellcheck source=scripts/lib-build.sh
. "$(dirname "$(realpath "$0")")/lib-build.sh"

[ $# -eq 3 ] || { echo "usage: $0 DIST KO OUT" >&2; exit 2; }
dist=$1
ko=$(realpath "$2")
out=$3

mr_lab_rootfs "$dist"
rootfs=$ROOTFS kver=$KVER
mods=$rootfs/lib/modules/$kver
[ -d "$mods" ] || mr_die "no $mods"

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
    mr_die "depmod did not index extra/metaroce.ko"
(cd "$work/lib/modules" && tar -cf - "$kver"/modules.*) >"$out"
echo "$out"
