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

need_host_pkgs debootstrap:debootstrap flock:util-linux unshare:util-linux
[ -s /usr/share/keyrings/debian-archive-keyring.gpg ] || need_host_pkgs __none__:debian-archive-keyring
[ "$(id -u)" = 0 ] || die "building a rootfs needs root (debootstrap, chroot)"

mkdir -p "$LAB_CACHE/logs" "$LAB_CACHE/debs-$dist"
exec 9>"$LAB_CACHE/.lock-rootfs-$dist-$hash"
flock 9
if [ -d "$final" ] && [ -s "$final.kver" ]; then   # built by someone else while we waited
    echo "$final"
    exit 0
fi

# Holding the lock, any temp dir of this entry is a leftover of an interrupted build.
for old in "$LAB_CACHE/.tmp-rootfs-$dist-$hash".*; do
    [ -e "$old" ] || continue
    log "removing leftover $old"
    rm -rf --one-file-system "$old"
done

tmp=$LAB_CACHE/.tmp-rootfs-$dist-$hash.$$
logf=$LAB_CACHE/logs/rootfs-$dist-$hash.log
: >"$logf"
trap 'rm -rf --one-file-system "$tmp" "$tmp.kver"' EXIT

# Everything that mounts (debootstrap, chroot) runs in a private mount namespace: its mounts
# are invisible to others and vanish with it, even when the build is killed.
private_ns=(unshare --mount --propagation private --)

# in_chroot SECS CMD... — run CMD in the new rootfs with /proc, /sys, /dev, /dev/pts and the
# shared .deb cache mounted.
in_chroot() {
    local secs=$1; shift
    # shellcheck disable=SC2016
    run_logged "$logf" "$secs" "${private_ns[@]}" bash -c '
        set -e; r=$1 debs=$2; shift 2
        mount -t proc proc "$r/proc"
        mount -t sysfs sysfs "$r/sys"
        mount --bind /dev "$r/dev"
        mount -t devpts -o newinstance,ptmxmode=0666 devpts "$r/dev/pts"
        mount --bind "$debs" "$r/var/cache/apt/archives"
        exec chroot "$r" "$@"' lab-chroot "$tmp" "$LAB_CACHE/debs-$dist" "$@"
}

start=$SECONDS
log "building rootfs $dist -> $final (log: $logf)"
pkgs=$(sed -e 's/#.*//' "$pkgfile" | xargs)

log "debootstrap --variant=minbase $dist"
run_logged "$logf" 1800 "${private_ns[@]}" debootstrap --variant=minbase --components=main \
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
# initramfs: MODULES=most (the default) carries virtio_pci (a module on 6.1), virtio_blk, ext4.
mkdir -p "$tmp/etc/initramfs-tools/conf.d"
printf 'MODULES=most\n' >"$tmp/etc/initramfs-tools/conf.d/metaroce-lab.conf"
echo "lab" >"$tmp/etc/hostname"
: >"$tmp/etc/fstab"

log "apt-get install ($(wc -w <<<"$pkgs") packages)"
in_chroot 900 apt-get update
# shellcheck disable=SC2086
in_chroot 2400 env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends -o Dpkg::Use-Pty=0 $pkgs

kvers=$(ls "$tmp/lib/modules")
[ "$(wc -w <<<"$kvers")" = 1 ] || die "expected exactly one kernel in rootfs, got: $kvers"
kver=$kvers
[ -f "$tmp/boot/vmlinuz-$kver" ] || die "no /boot/vmlinuz-$kver"
[ -f "$tmp/boot/initrd.img-$kver" ] || die "no /boot/initrd.img-$kver"
# inside the rootfs: Debian's build link is absolute (/usr/src/...), so
# from the host it would name the host's headers, not the rootfs's
chroot "$tmp" test -e "/lib/modules/$kver/build/Makefile" ||
    die "headers for $kver missing (lib/modules/$kver/build)"

install -D -m 0755 "$stub" "$tmp/lab/init"
chroot "$tmp" passwd -d root >/dev/null 2>&1 || true
rm -f "$tmp/usr/sbin/policy-rc.d"

echo "$kver" >"$tmp.kver"
mv "$tmp.kver" "$final.kver"
rm -rf --one-file-system "$final"      # a half-renamed leftover, if any
mv "$tmp" "$final"
log "rootfs $dist ready in $((SECONDS - start))s: kernel $kver"
echo "$final"
