#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-source.sh VER
#
# Make a pristine, extracted Linux source tree of Debian's linux-source-VER
# package available and print its path as the LAST line of stdout.
#
#   VER            6.12 or 6.1 (any VER for which bookworm has linux-source-VER)
#   METAROCE_CACHE cache root (default /var/cache/metaroce); the tree goes to
#                  $METAROCE_CACHE/src/linux-source-<full package version>
#
# The extracted tree is shared: treat it as READ-ONLY. Make a copy or an
# overlay if you need to modify it (tests/kunit/run.sh does).
#
# The package is installed with apt-get if missing (waits for the dpkg lock).
# Extraction happens once, into a temp dir that is renamed into place, and is
# serialised with flock so concurrent callers do not race.
# Progress messages go to stderr; stdout carries only the path.
set -euo pipefail

die() { echo "kernel-source.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: $0 VER   (e.g. 6.12 or 6.1)"
VER=$1
case "$VER" in
	[0-9]*.[0-9]*) ;;
	*) die "bad version '$VER'" ;;
esac
PKG=linux-source-$VER
CACHE=${METAROCE_CACHE:-/var/cache/metaroce}
SRCROOT=$CACHE/src

pkg_installed() {
	[ "$(dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null)" = "install ok installed" ]
}

apt_locked() {
	# returns 0 while some other process holds the dpkg/apt locks
	local f
	for f in /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock; do
		[ -e "$f" ] || continue
		# dpkg/apt use fcntl locks; without fuser we rely on
		# apt's own DPkg::Lock::Timeout below.
		command -v fuser >/dev/null 2>&1 || return 1
		fuser "$f" >/dev/null 2>&1 && return 0
	done
	return 1
}

install_pkg() {
	local tries=0
	export DEBIAN_FRONTEND=noninteractive
	while :; do
		while apt_locked; do
			echo "kernel-source.sh: dpkg/apt lock held by another process, waiting..." >&2
			sleep 10
		done
		# DPkg::Lock::Timeout makes apt itself wait too, should we race.
		if apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "$PKG" >&2; then
			return 0
		fi
		tries=$((tries + 1))
		[ $tries -lt 2 ] || die "apt-get install $PKG failed"
		echo "kernel-source.sh: install failed, running apt-get update and retrying" >&2
		apt-get -o DPkg::Lock::Timeout=600 update >&2 || true
	done
}

pkg_installed || install_pkg
pkg_installed || die "$PKG is not installed"

FULLVER=$(dpkg-query -W -f='${Version}' "$PKG")
# The tarball's own top-level dir is linux-source-VER; the cache dir carries
# the full Debian version so a package upgrade gets a fresh tree.
TARBALL=$(dpkg -L "$PKG" | grep -E "/usr/src/linux-source-$VER\.tar\.(xz|bz2|gz|zst)$" | head -n1)
[ -n "$TARBALL" ] && [ -f "$TARBALL" ] || die "cannot find the source tarball of $PKG"

DEST=$SRCROOT/linux-source-$FULLVER
mkdir -p "$SRCROOT"

if [ ! -f "$DEST/Makefile" ]; then
	exec 9>"$SRCROOT/.lock-linux-source-$FULLVER"
	flock 9
	if [ ! -f "$DEST/Makefile" ]; then
		echo "kernel-source.sh: extracting $TARBALL -> $DEST" >&2
		TMP=$(mktemp -d "$SRCROOT/.extract-$VER.XXXXXX")
		trap 'rm -rf "$TMP"' EXIT
		tar -C "$TMP" -xf "$TARBALL"
		top=$(find "$TMP" -mindepth 1 -maxdepth 1 -type d | head -n1)
		[ -n "$top" ] && [ -f "$top/Makefile" ] || die "unexpected tarball layout in $TARBALL"
		[ ! -e "$DEST" ] || rm -rf "$DEST"	# leftover without Makefile = broken
		mv -T "$top" "$DEST"
		rm -rf "$TMP"
		trap - EXIT
	fi
	flock -u 9
fi

echo "$DEST"
