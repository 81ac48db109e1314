#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# matrix.sh [DIST...]     build metaroce.ko against every target kernel, warning-free
#
#   DIST     bookworm | trixie | host            (default: bookworm trixie)
#            bookworm/trixie: build inside the Debian rootfs that `tests/vm/lab.sh rootfs DIST`
#              prints (the same kernel the test VMs boot), in <rootfs>/tmp/metaroce-build,
#              with /proc /sys /dev mounted only for the build: in a private mount namespace
#              (unshare -m) when possible, else by mount + umount in an EXIT/INT/TERM trap;
#              either way nothing stays mounted (checked with findmnt afterwards).
#            host: quick developer path, build on this machine against the installed
#              /lib/modules/*/build headers (bookworm's 6.1); no chroot.
#
# Each build runs `make KDIR=/lib/modules/<kver>/build W=1 C=1` (C=1 = sparse on the files
# compiled) on a fresh copy of the sources (`git ls-files -co --exclude-standard`), and
# stores out/<DIST>/<kver>/{metaroce.ko,build.log,diagnostics.txt} in the repo.
#
# Warning rule (a build FAILS when make fails or any of these lines is in its log):
#   a) `FILE:LINE[:COL]: warning|error: ...` (gcc/sparse/ld format) where FILE is one of the
#      project's files (relative, or absolute under the build copy);
#   b) location-less tool diagnostics: `cc1: warning: ...`, `gcc-14: error: ...`,
#      `sparse: error: ...`, `ld: warning: ...`, `<anything>.o: warning: objtool: ...`;
#   c) modpost findings: `WARNING: modpost: ...` / `ERROR: modpost: ...` (in an M= build
#      modpost only looks at our module).
#   Not counted (listed as "ignored" in diagnostics.txt and in the summary): diagnostics
#   located in kernel headers (/usr/src/linux-headers-*; sparse is noisy there) and lines
#   printed by the kernel's own Makefiles/scripts, e.g. "Skipping BTF generation" or
#   "warning: the compiler differs from the one used to build the kernel".
#
# Environment
#   METAROCE_CACHE           cache root (default /var/cache/metaroce; locks live there)
#   METAROCE_ROOTFS_<DIST>   use this rootfs instead of asking tests/vm/lab.sh (dev/testing)
#   METAROCE_KO              module path in the build tree
#                            (default drivers/infiniband/sw/metaroce/metaroce.ko)
#   METAROCE_BUILD_TIMEOUT   seconds per make run (default 1800)
#   METAROCE_ROOTFS_TIMEOUT  seconds for `lab.sh rootfs` (default 3600: first run debootstraps)
#   METAROCE_MAKE_ARGS       extra make arguments (e.g. "V=1")
#   METAROCE_NO_UNSHARE=1    mount in the host namespace (trap-guarded) instead of unshare -m
#
# Exit status: 0 if every DIST built without counted warnings, 1 otherwise, 2 usage.
set -euo pipefail

MR_PROG=matrix.sh
# shellcheck source=scripts/lib-build.sh
. "$(dirname "$(realpath "$0")")/lib-build.sh"

usage() { sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

BUILD_TIMEOUT=${METAROCE_BUILD_TIMEOUT:-1800}
ROOTFS_TIMEOUT=${METAROCE_ROOTFS_TIMEOUT:-3600}
KO_REL=${METAROCE_KO:-drivers/infiniband/sw/metaroce/metaroce.ko}
CHROOT_BUILD=/tmp/metaroce-build		# path inside the rootfs
JOBS=$(nproc 2>/dev/null || echo 2)

[ $# -gt 0 ] || set -- bookworm trixie
for d in "$@"; do
	case $d in
	bookworm|trixie|host) ;;
	-h|--help) usage ;;
	*) echo "matrix.sh: unknown DIST '$d'" >&2; usage ;;
	esac
done
[ "$(id -u)" -eq 0 ] || mr_die "must run as root (chroot, mount)"

mr_need_host_pkgs git:git tar:tar findmnt:util-linux flock:util-linux \
	timeout:coreutils readelf:binutils awk:mawk unshare:util-linux
mr_traps_install
mkdir -p "$MR_CACHE/locks"

SUMMARY=()	# "dist|kver|gcc|counted|ignored|result|seconds"
FAILED=0
NOTES=()	# things the user must know (printed under the table)

# classify LOG SRCDIR LOGDIR OUT: writes OUT (diagnostics.txt), prints "<counted> <ignored>"
#   SRCDIR = build copy as seen from here, LOGDIR = the same dir as named in the log
#   (inside the chroot it is /tmp/metaroce-build)
classify() {
	local log=$1 src=$2 logdir=$3 out=$4
	# "ours" = every file in the build copy: the sources plus what the build generated
	# (e.g. metaroce.mod.c), but nothing from the kernel headers
	find "$src" -type f -printf '%P\n' >"$out.files"
	awk -v src="$logdir/" -v files="$out.files" -v out="$out" '
	BEGIN {
		while ((getline f < files) > 0) ours[f] = 1
		counted = 0; ignored = 0
	}
	function verdict(line, why) {
		if (why == "count") { counted++; c[counted] = line }
		else { ignored++; ig[ignored] = line }
	}
	/(WARNING|ERROR): modpost:/ { verdict($0, "count"); next }
	/(^|[^A-Za-z])(warning|error):/ {
		line = $0
		# location-bearing diagnostics: PATH:LINE[:COL]: (warning|error):
		if (match(line, /^[^ :]+:[0-9]+(:[0-9]+)?: (fatal )?(warning|error):/)) {
			path = line; sub(/:[0-9].*$/, "", path)
			p = path
			if (index(p, src) == 1) p = substr(p, length(src) + 1)
			sub(/^\.\//, "", p)
			if (p in ours) verdict(line, "count"); else verdict(line, "ignore")
			next
		}
		# objtool: "path/foo.o: warning: objtool: ..."
		if (match(line, /^[^ :]+\.o: (warning|error):/)) { verdict(line, "count"); next }
		# location-less tool diagnostics: cc1:, gcc:, gcc-14:, x86_64-linux-gnu-gcc-14:, ld:, sparse:
		if (match(line, /^([a-z0-9_.+-]*-)?(cc1|cc1plus|gcc|gcc-[0-9]+|cc|ld|ld\.bfd|as|sparse|cgcc)(-[0-9]+)?: (fatal )?(warning|error):/)) {
			verdict(line, "count"); next
		}
		verdict(line, "ignore")
	}
	END {
		print "# counted (fail the build):" > out
		for (i = 1; i <= counted; i++) print c[i] > out
		print "# ignored (kernel headers / kernel scripts):" > out
		for (i = 1; i <= ignored; i++) print ig[i] > out
		print counted, ignored
	}' "$log"
	rm -f "$out.files"
}

# gcc that built the module (from its .comment), falling back to `gcc --version`
module_gcc() {
	local ko=$1 fallback=$2 v
	v=$(readelf -p .comment "$ko" 2>/dev/null | sed -n 's/.*GCC: \(.*\)$/\1/p' | sort -u | tail -n1)
	if [ -z "$v" ]; then v=${fallback#*gcc* }; fi	# "gcc (Debian 12.2.0-14) 12.2.0" -> "(Debian ...)..."
	echo "$v"
}

# get_rootfs DIST -> sets ROOTFS (no command substitution: the timed job must stay
# visible to the INT/TERM trap of this shell)
get_rootfs() {
	local dist=$1 var="METAROCE_ROOTFS_$1" out
	if [ -n "${!var:-}" ]; then
		mr_log "$dist: using \$$var=${!var}"
		ROOTFS=${!var}; return
	fi
	local lab=$MR_REPO/tests/vm/lab.sh
	if [ ! -f "$lab" ]; then
		mr_warn "$lab does not exist (yet); set $var=/path/to/rootfs to use another rootfs"
		return 1
	fi
	mr_log "$dist: tests/vm/lab.sh rootfs $dist (may debootstrap on first use; timeout ${ROOTFS_TIMEOUT}s)"
	local rc=0
	out=$(mktemp)
	mr_run_timeout "$ROOTFS_TIMEOUT" bash "$lab" rootfs "$dist" >"$out" || rc=$?
	ROOTFS=$(tail -n1 "$out"); rm -f "$out"
	if [ $rc -ne 0 ]; then
		# tolerate a non-zero exit when a complete rootfs (dir + .kver) was printed anyway
		if [ -n "$ROOTFS" ] && [ -d "$ROOTFS" ] && [ -s "$ROOTFS.kver" ]; then
			mr_warn "$dist: tests/vm/lab.sh rootfs $dist exited $rc but printed a complete rootfs; using it"
		else
			mr_warn "$dist: tests/vm/lab.sh rootfs $dist failed (rc=$rc)"; return 1
		fi
	fi
	if [ ! -d "$ROOTFS" ]; then
		mr_warn "$dist: lab.sh printed '$ROOTFS', which is not a directory"; return 1
	fi
}

# finish DIST KVER SRCDIR LOGDIR LOG MAKE_RC SECONDS GCC_FALLBACK: collect artefacts, summary
finish() {
	local dist=$1 kver=$2 src=$3 logdir=$4 log=$5 mrc=$6 secs=$7 gccfb=$8
	local dest=$MR_REPO/out/$dist/$kver counted ignored result=ok gccv="?" n
	mkdir -p "$dest"
	rm -f "$dest/metaroce.ko" "$dest"/*.ko
	cp "$log" "$dest/build.log"; chmod 644 "$dest/build.log"
	read -r counted ignored < <(classify "$log" "$src" "$logdir" "$dest/diagnostics.txt")
	if [ -f "$src/$KO_REL" ]; then
		cp "$src/$KO_REL" "$dest/metaroce.ko"
		gccv=$(module_gcc "$dest/metaroce.ko" "$gccfb")
	else
		gccv=${gccfb#*gcc* }
	fi
	if [ "$mrc" -eq 124 ] || [ "$mrc" -eq 137 ]; then
		result="FAIL(timeout ${BUILD_TIMEOUT}s)"
	elif [ "$mrc" -ne 0 ]; then
		result="FAIL(make rc=$mrc)"
	elif [ ! -f "$dest/metaroce.ko" ]; then
		result="FAIL(no $KO_REL)"
	elif [ "$counted" -ne 0 ]; then
		result="FAIL(warnings)"
	fi
	if [ "$counted" -ne 0 ]; then
		mr_warn "$dist/$kver: $counted counted diagnostic line(s):"
		sed -n '2,/^# ignored/p' "$dest/diagnostics.txt" | grep -v '^# ignored' | sed 's/^/    /' >&2
	fi
	if [ "$ignored" -ne 0 ]; then
		mr_log "$dist/$kver: $ignored ignored line(s) (kernel headers/scripts), see $dest/diagnostics.txt"
	fi
	[ "$result" = ok ] || FAILED=1
	if [ "$mrc" -ne 0 ]; then
		mr_warn "$dist/$kver: $result; last lines of $dest/build.log:"
		tail -n 25 "$log" | sed 's/^/    /' >&2
	fi
	n=$(find "$src" -name '*.ko' | wc -l)
	[ "$n" -le 1 ] || mr_warn "$dist: $n .ko files built; only $KO_REL is copied"
	mr_log "$dist/$kver: $result in ${secs}s -> ${dest#"$MR_REPO"/}/"
	SUMMARY+=("$dist|$kver|$gccv|$counted|$ignored|$result|$secs")
}

# skip_dist DIST RESULT [KVER]: record a DIST that could not be built at all
skip_dist() {
	FAILED=1
	SUMMARY+=("$1|${3:-?}|?|-|-|$2|0")
}

# lock_dist DIST: one matrix.sh build per DIST (shared build dir) at a time, on fd 8
lock_dist() {
	exec 8>"$MR_CACHE/locks/matrix-$1.lock"
	if ! flock -n 8; then
		mr_log "$1: another matrix.sh is building $1; waiting for it (max 30 min)"
		flock -w 1800 8 || mr_die "$1: gave up waiting for the lock"
	fi
}

build_host() {
	local kver="" k n=0 src log rc=0 t0
	for k in /lib/modules/*/build; do
		[ -e "$k/Makefile" ] || continue
		kver=$(basename "$(dirname "$k")"); n=$((n + 1))
	done
	if [ $n -eq 0 ]; then
		mr_log "host: no kernel headers installed; installing linux-headers-amd64"
		mr_apt_install linux-headers-amd64
		for k in /lib/modules/*/build; do
			[ -e "$k/Makefile" ] && kver=$(basename "$(dirname "$k")") && n=$((n + 1))
		done
		[ $n -gt 0 ] || mr_die "host: still no /lib/modules/*/build"
	fi
	[ $n -eq 1 ] || mr_warn "host: $n header trees installed, using the last: $kver"
	mr_need_host_pkgs make:make gcc:gcc sparse:sparse
	src=$MR_CACHE/host-build
	lock_dist host
	mr_copy_sources "$src"
	log=$(mktemp); t0=$SECONDS
	mr_log "host: make KDIR=/lib/modules/$kver/build W=1 C=1 (timeout ${BUILD_TIMEOUT}s)"
	# shellcheck disable=SC2086
	mr_run_timeout "$BUILD_TIMEOUT" env LC_ALL=C make -C "$src" -j"$JOBS" \
		KDIR="/lib/modules/$kver/build" W=1 C=1 ${METAROCE_MAKE_ARGS:-} >"$log" 2>&1 || rc=$?
	finish host "$kver" "$src" "$src" "$log" "$rc" $((SECONDS - t0)) "$(gcc --version | head -n1)"
	rm -f "$log"
	flock -u 8
}

build_dist() {
	local dist=$1 rootfs kver src log rc=0 t0 gccfb t
	get_rootfs "$dist" || { skip_dist "$dist" "FAIL(no rootfs)"; return 0; }
	rootfs=$(realpath "$ROOTFS")
	[ "$rootfs" != / ] || mr_die "$dist: rootfs is /"
	if [ -s "$rootfs.kver" ]; then
		kver=$(head -n1 "$rootfs.kver")
	else
		kver=$(find "$rootfs/lib/modules" -mindepth 2 -maxdepth 2 -name build -printf '%h\n' 2>/dev/null |
			xargs -r -n1 basename | sort -V | tail -n1)
		mr_warn "$dist: $rootfs.kver missing; using kernel $kver found in the rootfs"
	fi
	# resolve inside the chroot: bookworm's build symlink is absolute
	if [ -z "$kver" ] || ! chroot "$rootfs" test -e "/lib/modules/$kver/build/Makefile"; then
		mr_warn "$dist: no kernel headers for '$kver' in $rootfs/lib/modules"
		skip_dist "$dist" "FAIL(no headers)" "$kver"; return 0
	fi

	# one build per rootfs at a time
	lock_dist "$dist"

	for t in make gcc sparse; do
		if ! chroot "$rootfs" /bin/sh -c "command -v $t" >/dev/null 2>&1; then
			if [ "$t" != sparse ]; then
				mr_warn "$dist: '$t' missing in $rootfs (the rootfs should have build-essential)"
				skip_dist "$dist" "FAIL(no $t)" "$kver"; flock -u 8; return 0
			fi
			mr_warn "$dist: sparse is missing in $rootfs; INSTALLING it into the rootfs (needed by C=1)"
			[ -s "$rootfs/etc/resolv.conf" ] || cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
			mr_apt_install --root "$rootfs" sparse
			NOTES+=("$dist: sparse was missing in $rootfs and has been installed into it")
		fi
	done
	gccfb=$(chroot "$rootfs" gcc --version | head -n1)

	src=$rootfs$CHROOT_BUILD
	mr_copy_sources "$src"
	log=$(mktemp); t0=$SECONDS
	mr_log "$dist: chroot $rootfs: make KDIR=/lib/modules/$kver/build W=1 C=1 (timeout ${BUILD_TIMEOUT}s)"
	# clean environment: the host's CC/ARCH/CFLAGS/locale must not leak into the build
	# shellcheck disable=SC2086,SC2016
	mr_chroot_run "$rootfs" "$BUILD_TIMEOUT" /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C TERM=dumb \
		/bin/sh -c 'cd "$1" && shift && exec make "$@"' sh "$CHROOT_BUILD" -j"$JOBS" \
		KDIR="/lib/modules/$kver/build" W=1 C=1 ${METAROCE_MAKE_ARGS:-} >"$log" 2>&1 || rc=$?
	finish "$dist" "$kver" "$src" "$CHROOT_BUILD" "$log" "$rc" $((SECONDS - t0)) "$gccfb"
	rm -f "$log"
	flock -u 8
}

for d in "$@"; do
	case $d in
	host) build_host ;;
	*) build_dist "$d" ;;
	esac
done

{
	printf '\n%-9s %-28s %-36s %5s %7s %6s  %s\n' DIST KVER GCC WARN IGNORED SECS RESULT
	for row in "${SUMMARY[@]}"; do
		IFS='|' read -r d k g c i r s <<<"$row"
		printf '%-9s %-28s %-36s %5s %7s %6s  %s\n' "$d" "$k" "${g:0:36}" "$c" "$i" "$s" "$r"
	done
	for n in "${NOTES[@]}"; do echo "NOTE: $n"; done
}
exit $FAILED
