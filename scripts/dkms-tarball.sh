#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-tarball.sh DIST    DKMS builds metaroce for DIST's lab kernel, natively
#
#   DIST   bookworm | trixie
#
# `make dist`'s source tarball goes through Debian's dkms (`dkms add`, `dkms build`,
# `dkms mktarball`: the sources and the built module) inside the lab rootfs of DIST
# (tests/vm/lab.sh rootfs), for the kernel its VMs boot.  The rootfs is not changed: the build runs in a private
# mount namespace on an overlay whose upper layer is thrown away.  This is the DKMS build a
# host runs (dkms.conf's MAKE line against the distribution's headers) at native speed;
# the metaroce-install scenario loads the result with `dkms ldtarball` and installs it in
# a guest, where building from source under TCG takes about ten minutes (make test-full
# does that too).
#
# Writes out/DIST/KVER/metaroce-dkms.tar.gz and dkms.log beside it; the LAST line of
# stdout is the tarball's path.  Exit 1 when any step fails.
set -euo pipefail

MR_PROG=dkms-tarball.sh
# shellcheck source=scripts/lib-build.sh
. "$(dirname "$(realpath "$0")")/lib-build.sh"

dist=${1:-}
case $dist in
bookworm|trixie) ;;
*) sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || mr_die "must run as root (overlay mount, chroot)"
mr_need_host_pkgs unshare:util-linux
mr_traps_install

mr_lab_rootfs "$dist"
rootfs=$ROOTFS kver=$KVER
[ -x "$rootfs/usr/sbin/dkms" ] || mr_die "$rootfs has no dkms (tests/vm/lib/packages.txt)"
src=$(make -s -C "$MR_REPO" dist)
ver=$(basename "$src" .tar.gz)
ver=${ver#metaroce-}
out=$MR_REPO/out/$dist/$kver
mkdir -p "$out"
work=$(mktemp -d /tmp/metaroce-dkms.XXXXXX)
# (root only by rmdir: were a mount of the namespace ever left on it, rm -rf would
# reach through it)
mr_cleanup_hook() {
	rm -rf "$work/upper" "$work/work"
	rmdir "$work/root" "$work"
}
mkdir -p "$work/upper" "$work/work" "$work/root"

mr_log "$dist: dkms build metaroce/$ver for $kver in an overlay of $rootfs"
rc=0
mr_run_timeout 900 unshare --mount --propagation private -- /bin/bash -c '
	set -e
	r=$1 w=$2 ver=$3 kver=$4 src=$5
	mount -t overlay overlay -o "lowerdir=$r,upperdir=$w/upper,workdir=$w/work" "$w/root"
	mount -t proc proc "$w/root/proc"
	mount --rbind /sys "$w/root/sys"
	mount --rbind /dev "$w/root/dev"
	cp "$src" "$w/root/tmp/metaroce-src.tar.gz"
	chroot "$w/root" /bin/sh -ec "
		tar -xzf /tmp/metaroce-src.tar.gz -C /usr/src
		dkms add metaroce/$ver
		dkms build metaroce/$ver -k $kver
		dkms mktarball metaroce/$ver -k $kver
		cat /var/lib/dkms/metaroce/$ver/$kver/x86_64/log/make.log"
	' dkms "$rootfs" "$work" "$ver" "$kver" "$src" >"$out/dkms.log" 2>&1 || rc=$?
tb=$work/upper/var/lib/dkms/metaroce/$ver/tarball/metaroce-$ver-kernel$kver-x86_64.dkms.tar.gz
if [ $rc -ne 0 ] || [ ! -s "$tb" ]; then
	tail -n 30 "$out/dkms.log" >&2
	mr_die "$dist: dkms build failed (rc=$rc), see $out/dkms.log"
fi
cp "$tb" "$out/metaroce-dkms.tar.gz"
mr_log "$dist: $out/metaroce-dkms.tar.gz"
echo "$out/metaroce-dkms.tar.gz"
