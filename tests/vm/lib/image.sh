#!/bin/bash
# lab.sh image DIST — build (if missing) the cached ext4 disk image of the DIST rootfs and print
# the image path as the only line on stdout. Next to it: vmlinuz, initrd.img, kver.
# VMs never write to it: each boots from a throwaway qcow2 overlay (see lib/boot.sh).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

dist=${1:?usage: lab.sh image DIST}
check_dist "$dist"

rootfs=$(bash "$here/rootfs.sh" "$dist" | tail -n1)
[ -d "$rootfs" ] || die "rootfs build failed for $dist"
kver=$(cat "$rootfs.kver")
hash=$( { basename "$rootfs"; cat "$0"; } | sha256sum | cut -c1-12)
dir=$LAB_CACHE/image-$dist-$hash
img=$dir/disk.raw

if [ -s "$dir/kver" ]; then
    echo "$img"
    exit 0
fi

need_host_pkgs mke2fs:e2fsprogs flock:util-linux unshare:util-linux
exec 9>"$LAB_CACHE/.lock-image-$dist-$hash"
flock 9
if [ -s "$dir/kver" ]; then
    echo "$img"
    exit 0
fi

for old in "$LAB_CACHE/.tmp-image-$dist-$hash".*; do   # leftovers of interrupted builds
    [ -e "$old" ] && rm -rf "$old"
done
start=$SECONDS
tmp=$LAB_CACHE/.tmp-image-$dist-$hash.$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
# Size: the rootfs plus 3 GiB of room for module builds and scenario output (sparse file).
used_mb=$(du -sm --one-file-system "$rootfs" | cut -f1)
size_mb=$(( used_mb + 3072 ))
log "making ext4 image for $dist (${used_mb} MiB used, ${size_mb} MiB size)"
# In a private mount namespace, empty tmpfs hide whatever other users of the rootfs (e.g. module
# builds in the chroot) left in /tmp or mounted on /proc, /sys, /dev, /run: mke2fs -d copies
# the directory tree as it sees it.
# shellcheck disable=SC2016
timeout 1200 unshare --mount --propagation private -- bash -c '
    set -e; r=$1 img=$2 size=$3
    for d in tmp proc sys dev run; do mount -t tmpfs -o mode=0755,size=1M lab-empty "$r/$d"; done
    chmod 1777 "$r/tmp"
    mke2fs -q -t ext4 -L labroot -E lazy_itable_init=1,lazy_journal_init=1 -d "$r" "$img" "$size"
' lab-mkimage "$rootfs" "$tmp/disk.raw" "${size_mb}M" >&2
cp "$rootfs/boot/vmlinuz-$kver" "$tmp/vmlinuz"
cp "$rootfs/boot/initrd.img-$kver" "$tmp/initrd.img"
cp "$rootfs/boot/config-$kver" "$tmp/config"
echo "$kver" >"$tmp/kver"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
log "image $dist ready in $((SECONDS - start))s: $img (kernel $kver)"
echo "$img"
