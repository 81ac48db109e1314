#!/bin/bash
# lab.sh rootfs DIST — build (if missing) the cached Debian rootfs for DIST and print its path
# as the only line on stdout. The directory name carries a hash of every input, so changing
# the package list or this script makes a new cache entry. The kernel version the rootfs boots
# (and has headers for) is written to "<rootfs>.kver".
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

dist=${1:?usage: lab.sh rootfs DIST}
check_dist "$dist"

pkgfile=$here/packages.txt
stub=$LAB_DIR/guest/stub-init
hash=$( { echo "$dist"; cat "$pkgfile" "$0" "$here/common.sh" "$stub"; } | sha256sum | cut -c1-12)
final=$LAB_CACHE/rootfs-$dist-$hash

if [ -d "$final" ] && [ -s "$final.kver" ]; then
    echo "$final"
    exit 0
fi

need_host_pkgs debootstrap:debootstrap flock:util-linux
[ -s /usr/share/keyrings/debian-archive-keyring.gpg ] || need_host_pkgs __none__:debian-archive-keyring
[ "$(id -u)" = 0 ] || die "building a rootfs needs root (debootstrap, chroot)"

mkdir -p "$LAB_CACHE/logs" "$LAB_CACHE/debs-$dist"
exec 9>"$LAB_CACHE/.lock-rootfs-$dist-$hash"
flock 9
if [ -d "$final" ] && [ -s "$final.kver" ]; then   # built by someone else while we waited
    echo "$final"
    exit 0
fi

tmp=$LAB_CACHE/.tmp-rootfs-$dist-$hash.$$
logf=$LAB_CACHE/logs/rootfs-$dist-$hash.log
: >"$logf"
mounts=()
cleanup() {
    local i
    for ((i=${#mounts[@]}-1; i>=0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
    [ -d "$tmp" ] && rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
mount_in() { mount "$@"; mounts+=("${@: -1}"); }

start=$SECONDS
log "building rootfs $dist -> $final (log: $logf)"
pkgs=$(sed -e 's/#.*//' "$pkgfile" | xargs)

log "debootstrap --variant=minbase $dist"
run_logged "$logf" 1800 debootstrap --variant=minbase --components=main \
    --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
    --cache-dir="$LAB_CACHE/debs-$dist" \
    "$dist" "$tmp" "$LAB_MIRROR"

cat >"$tmp/etc/apt/sources.list" <<SRC
deb $LAB_MIRROR $dist main
deb $LAB_MIRROR $dist-updates main
deb $LAB_SECURITY_MIRROR $dist-security main
SRC
printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
chmod +x "$tmp/usr/sbin/policy-rc.d"
# initramfs: MODULES=most (the default) carries virtio_blk and ext4 (virtio_pci is built in).
mkdir -p "$tmp/etc/initramfs-tools/conf.d"
printf 'MODULES=most\n' >"$tmp/etc/initramfs-tools/conf.d/metaroce-lab.conf"
echo "lab" >"$tmp/etc/hostname"
: >"$tmp/etc/fstab"

mount_in -t proc proc "$tmp/proc"
mount_in -t sysfs sysfs "$tmp/sys"
mount_in --bind /dev "$tmp/dev"
mount_in -t devpts devpts "$tmp/dev/pts"
mount_in --bind "$LAB_CACHE/debs-$dist" "$tmp/var/cache/apt/archives"

log "apt-get install ($(wc -w <<<"$pkgs") packages)"
run_logged "$logf" 900 chroot "$tmp" apt-get update
# shellcheck disable=SC2086
run_logged "$logf" 2400 env DEBIAN_FRONTEND=noninteractive chroot "$tmp" \
    apt-get install -y --no-install-recommends -o Dpkg::Use-Pty=0 $pkgs

kvers=$(ls "$tmp/lib/modules")
[ "$(wc -w <<<"$kvers")" = 1 ] || die "expected exactly one kernel in rootfs, got: $kvers"
kver=$kvers
[ -f "$tmp/boot/vmlinuz-$kver" ] || die "no /boot/vmlinuz-$kver"
[ -f "$tmp/boot/initrd.img-$kver" ] || die "no /boot/initrd.img-$kver"
[ -e "$tmp/lib/modules/$kver/build/Makefile" ] || die "headers for $kver missing (lib/modules/$kver/build)"

install -D -m 0755 "$stub" "$tmp/lab/init"
chroot "$tmp" passwd -d root >/dev/null 2>&1 || true
rm -f "$tmp/usr/sbin/policy-rc.d"

for ((i=${#mounts[@]}-1; i>=0; i--)); do umount "${mounts[$i]}"; done
mounts=()

echo "$kver" >"$tmp.kver"
mv "$tmp.kver" "$final.kver"
rm -rf --one-file-system "$final"      # a half-renamed leftover, if any
mv "$tmp" "$final"
log "rootfs $dist ready in $((SECONDS - start))s: kernel $kver"
echo "$final"
