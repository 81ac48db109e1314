# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib-build.sh - helpers shared by the scripts in scripts/.
# Source it, do not run it:   . "$(dirname "$0")/lib-build.sh"
#
# Provides
#   MR_CACHE           ${METAROCE_CACHE:-/var/cache/metaroce}
#   MR_REPO            top of the git work tree the calling script lives in
#   mr_log/mr_warn/mr_die   messages on stderr, prefixed with the script name
#   mr_need_host_pkgs CMD:PKG ...   apt-get install PKG when CMD is missing
#   mr_run_timeout SECS CMD...      run CMD with a hard timeout (kill after +30s),
#                                   interruptible: Ctrl-C/TERM stop it and run traps
#   mr_copy_sources DEST            fresh copy of git-tracked + untracked-not-ignored files
#   mr_chroot_run ROOT SECS CMD...  run CMD chrooted in ROOT with /proc /sys /dev mounted,
#                                   under a timeout; the mounts never outlive the call
#   mr_chroot_mount ROOT / mr_chroot_umount_all   the trap-guarded mount helpers it uses
#                                   when private mount namespaces are not available
#   mr_traps_install                EXIT/INT/TERM/HUP cleanup (unmounts, kills the
#                                   running timed job, runs mr_cleanup_hook if defined)
#   mr_lab_rootfs DIST              sets ROOTFS and KVER: DIST's lab rootfs
#                                   (tests/vm/lab.sh rootfs) and the kernel its VMs boot

MR_PROG=${MR_PROG:-$(basename "${0:-metaroce}")}
export MR_CACHE=${METAROCE_CACHE:-/var/cache/metaroce}

# Messages go to the stderr the script was started with (saved as fd MR_ERR), so that they
# stay visible when they are printed from a trap that fires inside a redirected call.
exec {MR_ERR}>&2
mr_log()  { printf '%s [%s] %s\n' "$MR_PROG" "$(date +%H:%M:%S)" "$*" >&"$MR_ERR"; }
mr_warn() { printf '%s [%s] WARNING: %s\n' "$MR_PROG" "$(date +%H:%M:%S)" "$*" >&"$MR_ERR"; }
mr_die()  { printf '%s [%s] ERROR: %s\n' "$MR_PROG" "$(date +%H:%M:%S)" "$*" >&"$MR_ERR"; exit 1; }


# ---------------------------------------------------------------- host packages

mr_apt_locked() {
	local f
	for f in /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock; do
		[ -e "$f" ] || continue
		flock -n "$f" true 2>/dev/null || return 0
	done
	return 1
}

# mr_apt_install [--root ROOT] PKG...  (waits for other apt users; one retry after update)
#   with --root the packages go into the chroot ROOT (its own dpkg database)
mr_apt_install() {
	local root=
	if [ "${1:-}" = --root ]; then root=$2; shift 2; fi
	local tries=0 waited=0
	export DEBIAN_FRONTEND=noninteractive
	_mr_apt() {	# _mr_apt SECS apt-get-args...
		local secs=$1; shift
		if [ -n "$root" ]; then
			mr_chroot_run "$root" "$secs" /usr/bin/env DEBIAN_FRONTEND=noninteractive \
				apt-get -q -o DPkg::Lock::Timeout=600 -o Dpkg::Use-Pty=0 "$@" >&2
		else
			timeout "$secs" apt-get -q -o DPkg::Lock::Timeout=600 "$@" >&2
		fi
	}
	while :; do
		if [ -z "$root" ]; then
			while mr_apt_locked; do
				[ $waited -lt 900 ] || mr_die "dpkg lock still held after 15 min"
				[ $((waited % 60)) -ne 0 ] || mr_log "dpkg/apt lock held by another process, waiting"
				sleep 5; waited=$((waited + 5))
			done
		fi
		if _mr_apt 1200 install -y --no-install-recommends "$@"; then
			return 0
		fi
		tries=$((tries + 1))
		[ $tries -lt 2 ] || mr_die "apt-get install $* failed${root:+ (in chroot $root)}"
		mr_log "apt-get install failed; apt-get update and retry"
		_mr_apt 600 update || true
	done
}

# mr_need_host_pkgs cmd:pkg ...  install the packages whose command is missing
mr_need_host_pkgs() {
	local spec missing=()
	for spec in "$@"; do
		command -v "${spec%%:*}" >/dev/null 2>&1 || missing+=("${spec#*:}")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || mr_die "missing host packages (${missing[*]}) and not root to install them"
	mr_log "installing host packages: ${missing[*]}"
	mr_apt_install "${missing[@]}"
}

# ---------------------------------------------------------------- timed jobs

MR_JOB_PID=

# mr_run_timeout SECS CMD...: runs CMD in the background under timeout(1) (own process
# group, so a TERM to it kills the whole tree) and waits.  Returns CMD's status; 124
# means timed out.  A trapped INT/TERM during the wait kills the job (see mr_cleanup).
mr_run_timeout() {
	local secs=$1 rc=0; shift
	timeout --kill-after=30 "$secs" "$@" &
	MR_JOB_PID=$!
	wait "$MR_JOB_PID" || rc=$?
	MR_JOB_PID=
	[ $rc -ne 124 ] || mr_warn "timed out after ${secs}s: $*"
	return $rc
}

# ---------------------------------------------------------------- sources

# mr_copy_sources DEST: DEST is wiped, then gets every file of
# `git ls-files -co --exclude-standard` (tracked + untracked-not-ignored) that exists.
mr_copy_sources() {
	local dest=$1
	case "$dest" in /|'') mr_die "refusing to copy sources to '$dest'" ;; esac
	rm -rf "$dest"
	mkdir -p "$dest"
	(cd "$MR_REPO" && git ls-files -z -co --exclude-standard |
		while IFS= read -r -d '' f; do
			# deleted-but-tracked files are listed too; skip them
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done | tar --null -T - -cf -) | tar -C "$dest" -xf -
}

# ---------------------------------------------------------------- chroot mounts

MR_MOUNTS=()

mr_chroot_mount() {
	local root fs
	root=$(realpath "$1")
	if [ ! -d "$root" ] || [ "$root" = / ]; then mr_die "bad chroot root '$1'"; fi
	for fs in proc sys dev; do
		mkdir -p "$root/$fs"
		case $fs in
		proc) mount -t proc -o nosuid,nodev,noexec proc "$root/proc" ;;
		sys)  mount -t sysfs -o nosuid,nodev,noexec,ro sysfs "$root/sys" ;;
		# non-recursive bind: nothing below /dev comes along, so one umount undoes it
		dev)  mount --bind /dev "$root/dev" ;;
		esac || mr_die "mounting $root/$fs failed"
		MR_MOUNTS+=("$root/$fs")
	done
}

# lists mount points at or below ROOT (ROOT itself excluded)
mr_mounts_below() {
	local root
	root=$(realpath "$1")
	findmnt -rn -o TARGET | awk -v r="$root/" 'index($0, r) == 1'
}

# Unmount, newest first, what mr_chroot_mount mounted (only that: a concurrent user of
# the same rootfs keeps its own mounts).  Returns 1 if something could not be unmounted.
mr_chroot_umount_all() {
	local i m rc=0
	for ((i = ${#MR_MOUNTS[@]} - 1; i >= 0; i--)); do
		m=${MR_MOUNTS[i]}
		if ! umount "$m" 2>/dev/null; then
			sleep 1
			if ! umount "$m" 2>/dev/null; then
				mr_warn "umount $m busy; detaching lazily"
				umount -l "$m" || { mr_warn "cannot unmount $m"; rc=1; }
			fi
		fi
	done
	MR_MOUNTS=()
	return $rc
}

# Can we use a private mount namespace?  Preferred: the chroot mounts are then invisible
# to everybody else (e.g. the VM lab running `mke2fs -d <rootfs>` at the same moment) and
# the kernel drops them when the last process in the namespace exits, even on SIGKILL.
mr_have_unshare() {
	if [ -z "${MR_UNSHARE_OK:-}" ]; then
		if [ "${METAROCE_NO_UNSHARE:-0}" != 1 ] &&
			unshare --mount --propagation private true 2>/dev/null; then
			MR_UNSHARE_OK=yes
		else
			MR_UNSHARE_OK=no
		fi
	fi
	[ "$MR_UNSHARE_OK" = yes ]
}

# mr_chroot_run ROOT SECS CMD...: CMD runs as `chroot ROOT CMD` with /proc, /sys and /dev
# mounted, killed after SECS.  Returns CMD's status (124 = timeout, 1 = mount trouble).
# Afterwards nothing that this call mounted is left below ROOT (checked).
mr_chroot_run() {
	local root secs=$2 rc=0 left
	root=$(realpath "$1"); shift 2
	if [ ! -d "$root" ] || [ "$root" = / ]; then mr_die "bad chroot root '$root'"; fi
	if mr_have_unshare; then
		# shellcheck disable=SC2016
		mr_run_timeout "$secs" unshare --mount --propagation private -- /bin/bash -c '
			set -e; r=$1; shift
			mount -t proc -o nosuid,nodev,noexec proc "$r/proc"
			mount -t sysfs -o nosuid,nodev,noexec sysfs "$r/sys"
			mount --bind /dev "$r/dev"
			exec chroot "$r" "$@"' mr-chroot "$root" "$@" || rc=$?
	else
		mr_chroot_mount "$root"
		mr_run_timeout "$secs" chroot "$root" "$@" || rc=$?
		mr_chroot_umount_all || mr_die "could not unmount everything below $root"
	fi
	left=$(mr_mounts_below "$root")
	[ -z "$left" ] || mr_warn "still mounted below $root (not by this script?): $(echo "$left" | tr '\n' ' ')"
	return $rc
}

# ---------------------------------------------------------------- traps

mr_cleanup() {
	local rc=$?
	trap - EXIT INT TERM HUP
	if [ -n "${MR_JOB_PID:-}" ]; then
		kill -TERM "$MR_JOB_PID" 2>/dev/null || true
		wait "$MR_JOB_PID" 2>/dev/null || true
		MR_JOB_PID=
	fi
	[ ${#MR_MOUNTS[@]} -eq 0 ] || mr_chroot_umount_all || rc=1
	if declare -F mr_cleanup_hook >/dev/null; then mr_cleanup_hook || true; fi
	exit $rc
}

mr_traps_install() {
	trap mr_cleanup EXIT
	trap 'mr_warn "interrupted"; exit 130' INT
	trap 'mr_warn "terminated"; exit 143' TERM
	trap 'mr_warn "hangup"; exit 129' HUP
}

# ---------------------------------------------------------------- repo
command -v git >/dev/null 2>&1 || mr_need_host_pkgs git:git
MR_REPO=$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel 2>/dev/null) ||
	mr_die "scripts must live inside the metaroce git work tree"
export MR_REPO

# ---------------------------------------------------------------- lab rootfs
mr_lab_rootfs() {
	ROOTFS=$(bash "$MR_REPO/tests/vm/lab.sh" rootfs "$1" | tail -n1)
	[ -d "$ROOTFS" ] && [ -s "$ROOTFS.kver" ] || mr_die "no rootfs for $1 ('$ROOTFS')"
	# shellcheck disable=SC2034 # the caller's
	KVER=$(head -n1 "$ROOTFS.kver")
}
