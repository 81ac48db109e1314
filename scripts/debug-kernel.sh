#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh [kernel|module|all]   the lab's debug kernel (lockdep, KASAN, kmemleak, UBSAN)
#
#   kernel  build (or reuse) an x86_64 kernel from Debian's linux-source-6.12 with
#           `make allnoconfig` + scripts/debug-kernel/debug.config: every driver the lab VMs
#           need is built in (no initrd, no modules needed to boot the trixie rootfs image),
#           rdma_rxe is a module. The build lives in
#             $METAROCE_CACHE/debugk-<hash>/{build,install,bzImage,kver,build-time}
#           where <hash> covers the source package version, the fragment and the build
#           recipe (the text of this script's kernel-build functions, so editing the docs or
#           the module build does not force a kernel rebuild); it is built only when missing (a dir without the .done stamp is resumed).
#           Builds run under nice with -j$METAROCE_DEBUGK_JOBS (default 2).
#  module   build metaroce.ko with W=1 against that kernel into out/debugk/<kver>/
#           (fresh copy of the sources, the Kbuild.probes feature probes run against the
#           debug tree); fails on any warning of the project's files or modpost.
#  all      both (default).
#
# The LAST line of stdout is the cache dir (kernel) or the module path (module, all).
#
# Environment
#   METAROCE_CACHE          cache root (default /var/cache/metaroce)
#   METAROCE_DEBUGK_JOBS    make -j for the kernel build (default 2)
#   METAROCE_DEBUGK_TIMEOUT seconds for the kernel build (default 14400: a loaded host is slow)
set -euo pipefail

export MR_PROG=debug-kernel.sh
here=$(dirname "$(realpath "$0")")
# shellcheck source=scripts/lib-build.sh
. "$here/lib-build.sh"

FRAG=$here/debug-kernel/debug.config
JOBS=${METAROCE_DEBUGK_JOBS:-2}
TIMEOUT=${METAROCE_DEBUGK_TIMEOUT:-14400}
VER=6.12
what=${1:-all}
case $what in
kernel|module|all) ;;
*) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

mr_traps_install

# debugk_dir: print the cache dir of the current source + fragment + script
debugk_dir() {
	local src=$1 h
	h=$( { basename "$src"; cat "$FRAG"; declare -f debugk_dir check_config build_kernel; } |
		sha256sum | cut -c1-12)
	echo "$MR_CACHE/debugk-$h"
}

# check_config BUILD: every line of the fragment is in the final .config
check_config() {
	local cfg=$1/.config line bad=0 sym
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$cfg" || { mr_warn "config: wanted '$line', got '$(grep -E "^(# )?${line%%=*}[= ]" "$cfg" || echo unset)'"; bad=1; } ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			! grep -qE "^$sym=" "$cfg" || { mr_warn "config: wanted $sym off, got '$(grep -E "^$sym=" "$cfg")'"; bad=1; } ;;
		esac
	done <"$FRAG"
	return $bad
}

build_kernel() {
	local src dir b t0 kver rc=0
	mr_need_host_pkgs make:make gcc:gcc flex:flex bison:bison bc:bc
	[ -e /usr/include/libelf.h ] || mr_apt_install libelf-dev
	[ -e /usr/include/openssl/ssl.h ] || mr_apt_install libssl-dev
	src=$("$here/kernel-source.sh" "$VER" | tail -n1)
	dir=$(debugk_dir "$src")
	b=$dir/build
	mkdir -p "$MR_CACHE/locks" "$dir"
	exec 8>"$MR_CACHE/locks/$(basename "$dir").lock"
	flock 8
	if [ -e "$dir/.done" ]; then
		mr_log "cached: $dir ($(cat "$dir/kver"), built in $(cat "$dir/build-time"))"
	else
		mr_log "building $dir from $src (nice, -j$JOBS)"
		t0=$SECONDS
		mkdir -p "$b"
		env LC_ALL=C make -s -C "$src" O="$b" ARCH=x86_64 \
			KCONFIG_ALLCONFIG="$FRAG" allnoconfig >"$dir/config.log" 2>&1 ||
			mr_die "allnoconfig failed, see $dir/config.log"
		check_config "$b" || mr_die "the fragment did not apply (dependencies?)"
		mr_run_timeout "$TIMEOUT" nice -n 10 env LC_ALL=C \
			make -C "$src" O="$b" ARCH=x86_64 -j"$JOBS" bzImage modules \
			>"$dir/build.log" 2>&1 || rc=$?
		[ $rc -eq 0 ] || { tail -n 30 "$dir/build.log" >&2; mr_die "kernel build failed (rc=$rc), see $dir/build.log"; }
		rm -rf "$dir/install"
		env LC_ALL=C make -s -C "$src" O="$b" ARCH=x86_64 INSTALL_MOD_PATH="$dir/install" \
			INSTALL_MOD_STRIP=1 modules_install >>"$dir/build.log" 2>&1 ||
			mr_die "modules_install failed, see $dir/build.log"
		cp "$b/arch/x86/boot/bzImage" "$dir/bzImage"
		kver=$(cat "$b/include/config/kernel.release")
		echo "$kver" >"$dir/kver"
		t0=$((SECONDS - t0))
		echo "$((t0 / 60))m$((t0 % 60))s wall, -j$JOBS, $(date -u +%FT%TZ)" >"$dir/build-time"
		touch "$dir/.done"
		mr_log "built $kver in $(cat "$dir/build-time")"
	fi
	flock -u 8
	DEBUGK_DIR=$dir
}

build_module() {
	local dir=$1 kver src out log rc=0 bad
	kver=$(cat "$dir/kver")
	src=$MR_CACHE/debugk-module-build
	out=$MR_REPO/out/debugk/$kver
	mkdir -p "$out"
	exec 7>"$MR_CACHE/locks/debugk-module.lock"
	flock 7
	mr_copy_sources "$src"
	log=$out/build.log
	mr_log "make KDIR=$dir/build W=1 ($kver)"
	mr_run_timeout 1800 env LC_ALL=C make -C "$src" -j"$JOBS" KDIR="$dir/build" W=1 \
		>"$log" 2>&1 || rc=$?
	# counted: diagnostics in our files, tool diagnostics, modpost findings
	bad=$(grep -E "^([^ :]*/)?(drivers|include|tests|tools)/[^:]+:[0-9]+(:[0-9]+)?: (warning|error):|^(cc1|gcc[-0-9]*|ld|sparse): (warning|error):|\.o: warning: objtool:|^(WARNING|ERROR): modpost:" "$log" || true)
	[ $rc -eq 0 ] || { tail -n 30 "$log" >&2; mr_die "module build failed (rc=$rc), see $log"; }
	[ -z "$bad" ] || { echo "$bad" >&2; mr_die "module build has warnings, see $log"; }
	cp "$src/drivers/infiniband/sw/metaroce/metaroce.ko" "$out/"
	flock -u 7
	mr_log "0 warnings: $out/metaroce.ko"
	echo "$out/metaroce.ko"
}

build_kernel
case $what in
kernel) echo "$DEBUGK_DIR" ;;
*) build_module "$DEBUGK_DIR" ;;
esac
