#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/kunit/run.sh [--jobs N] [--outdir DIR] [--kver VER] [--] [kunit.py run args...]
#
# Build and run metaroce's KUnit suites on UML with the kernel's own
# tools/testing/kunit/kunit.py (Debian linux-source-6.12 by default).
#
#   --jobs N, -j N   parallel make jobs (default: nproc)
#   --outdir DIR     where kunit.log, test.log, ktap.txt, results.json go
#                    (default: $METAROCE_KUNIT_OUT or <repo>/out/kunit)
#   --kver VER       linux-source-VER to build against (default: $METAROCE_KUNIT_KVER or 6.12)
#   anything else    passed to "kunit.py run" unchanged (e.g. a filter glob
#                    'metaroce_wire.*', --kconfig_add CONFIG_KASAN=y, --timeout 300,
#                    --raw_output is NOT supported: the summary is needed)
#
# Environment:
#   METAROCE_CACHE            cache root (default /var/cache/metaroce)
#   METAROCE_KUNIT_TESTS_DIR  test sources (default <repo>/tests/kunit)
#   METAROCE_KUNIT_DRIVER     auto (default) | real | standin
#                             real: link the repo's drivers/infiniband/sw/metaroce
#                             standin: a cache-only Kconfig/Kbuild that builds just the
#                             pure-C objects listed in tests/kunit/driver-objs.mk
#                             auto: real if the repo dir has Kconfig and Kbuild/Makefile
#
# Layout under $METAROCE_CACHE/kunit/:
#   tree-<kernel version>/    hard-linked copy of the pristine source from
#                             scripts/kernel-source.sh; only this copy is modified
#   build-<kver>-<hash>/      kunit.py --build_dir; hash = kernel version +
#                             .kunitconfig content
#
# Exit status: 0 only if the build worked, at least one test ran, none failed
# or crashed, and kunit.py reported no parse errors. The last line of output is
# always "N passed, N failed".
set -uo pipefail

# The whole script is one function, called on the last line, so that bash has
# parsed all of it before running any: editing run.sh while it runs is safe.
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)

main() {
	CACHE=${METAROCE_CACHE:-/var/cache/metaroce}
	KVER=${METAROCE_KUNIT_KVER:-6.12}
	JOBS=$(nproc)
	OUTDIR=${METAROCE_KUNIT_OUT:-$REPO/out/kunit}
	TESTS_DIR=${METAROCE_KUNIT_TESTS_DIR:-$REPO/tests/kunit}
	DRIVER_MODE=${METAROCE_KUNIT_DRIVER:-auto}
	EXTRA=()

	PASSED=0
	FAILED=0
	final() {
		echo "$PASSED passed, $FAILED failed"
		exit "$1"
	}
	die() {
		echo "run.sh: error: $*" >&2
		final 2
	}

	# setup_driver real|standin: (re)create <tree>/drivers/infiniband/sw/metaroce
	setup_driver() {
		local mode=$1 f pure o
		rm -rf "$DRV_TREE"
		mkdir -p "$DRV_TREE"
		for f in "$DRV_REPO"/*.[ch] "$DRV_REPO"/Kconfig "$DRV_REPO"/Kbuild \
			 "$DRV_REPO"/Makefile "$DRV_REPO"/Kbuild.* "$DRV_REPO"/probes; do
			[ -e "$f" ] || continue
			[ "$mode" = standin ] && [ "$(basename "$f")" = Kbuild ] && continue
			[ "$mode" = standin ] && [ "$(basename "$f")" = Makefile ] && continue
			ln -sfn "$f" "$DRV_TREE/$(basename "$f")"
		done
		# The driver's Kbuild.probes puts $(KBUILD_CPPFLAGS) before
		# $(LINUXINCLUDE); on UML that picks x86's asm/bug.h and every probe
		# including a kernel header fails. Use probes.mk (same probes/, same
		# MRO_HAVE_* names, real include order) in this copy of the tree.
		if [ -f "$DRV_REPO/Kbuild.probes" ] &&
		   grep -q 'KBUILD_CPPFLAGS) $(LINUXINCLUDE)' "$DRV_REPO/Kbuild.probes"; then
			ln -sfn "$TESTS_DIR/probes.mk" "$DRV_TREE/Kbuild.probes"
			echo "run.sh: note: driver's Kbuild.probes replaced by tests/kunit/probes.mk (UML include order)" >&2
		fi
		if [ "$mode" = standin ]; then
			# the engine's tests need the whole driver
			rm -f "$KT/engine_test.c"
			if [ ! -f "$DRV_REPO/Kconfig" ]; then
				cat >"$DRV_TREE/Kconfig" <<-'EOF'
				# stand-in written by tests/kunit/run.sh (no driver Kconfig in the repo)
				config METAROCE
					tristate "metaroce (KUnit stand-in)"
					depends on INFINIBAND && INET && INFINIBAND_VIRT_DMA
					select NET_UDP_TUNNEL
					select LIBCRC32C
				EOF
			fi
			# (backslash-continued lines joined first)
			pure=$(sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$TESTS_DIR/driver-objs.mk" |
				sed -n 's/^metaroce-pure-objs[[:space:]]*:*=//p')
			{
				echo "# stand-in written by tests/kunit/run.sh: pure-C objects only"
				echo "include \$(srctree)/drivers/infiniband/sw/metaroce-kunit/probes.mk"
				for o in $pure; do
					[ -f "$DRV_REPO/${o%.o}.c" ] && echo "obj-\$(CONFIG_METAROCE) += $o"
				done
			} >"$DRV_TREE/Kbuild"
		fi
		USED_MODE=$mode
	}

	run_kunit() {
		rm -f "$BUILD/test.log"
		echo "run.sh: kernel $FULLVER, driver=$USED_MODE, build dir $BUILD, jobs $JOBS" >&2
		(cd "$TREE" && PYTHONDONTWRITEBYTECODE=1 python3 tools/testing/kunit/kunit.py run \
			--build_dir="$BUILD" --kunitconfig="$KUNITCONFIG" --jobs="$JOBS" \
			--json="$OUTDIR/results.json" "${EXTRA[@]}" 2>&1) | tee "$LOG"
		RC=${PIPESTATUS[0]}
	}

	has_summary() {
		sed 's/\x1b\[[0-9;]*m//g' "$LOG" | grep -qE 'Testing complete\. Ran [0-9]+ tests'
	}

	while [ $# -gt 0 ]; do
		case "$1" in
		-j|--jobs) JOBS=$2; shift 2 ;;
		-j*) JOBS=${1#-j}; shift ;;
		--jobs=*) JOBS=${1#--jobs=}; shift ;;
		--outdir) OUTDIR=$2; shift 2 ;;
		--outdir=*) OUTDIR=${1#--outdir=}; shift ;;
		--kver) KVER=$2; shift 2 ;;
		--kver=*) KVER=${1#--kver=}; shift ;;
		-h|--help) sed -n '3,34p' "$0"; exit 0 ;;
		--) shift; EXTRA+=("$@"); break ;;
		*) EXTRA+=("$1"); shift ;;
		esac
	done
	case "$JOBS" in ''|*[!0-9]*) die "--jobs needs a number" ;; esac
	for a in "${EXTRA[@]}"; do
		case "$a" in --raw_output*|--build_dir*|--kunitconfig*|--json*)
			die "$a is set by run.sh and cannot be passed through" ;;
		esac
	done

	KUNITCONFIG=$TESTS_DIR/.kunitconfig
	[ -f "$KUNITCONFIG" ] || die "no $KUNITCONFIG"

	# --- host tools a UML kernel build needs (a fresh machine lacks flex) --------
	# shellcheck source=scripts/lib-build.sh
	(. "$REPO/scripts/lib-build.sh" &&
		mr_need_host_pkgs make:make gcc:gcc flex:flex bison:bison bc:bc \
			python3:python3 xz:xz-utils) ||
		die "cannot install the host tools the KUnit build needs"

	# --- pristine kernel source --------------------------------------------------
	SRC=$("$REPO/scripts/kernel-source.sh" "$KVER" | tail -n1) || die "scripts/kernel-source.sh $KVER failed"
	[ -f "$SRC/Makefile" ] || die "bad kernel source dir '$SRC'"
	SRCNAME=$(basename "$SRC")		# linux-source-<full version>
	FULLVER=${SRCNAME#linux-source-}

	KDIR=$CACHE/kunit
	mkdir -p "$KDIR" "$OUTDIR" || die "cannot create $KDIR or $OUTDIR"
	OUTDIR=$(cd "$OUTDIR" && pwd -P)

	# One run at a time per cache (the tree copy and build dirs are shared).
	exec 8>"$KDIR/.lock"
	if ! flock -n 8; then
		echo "run.sh: another run holds $KDIR/.lock, waiting..." >&2
		flock 8
	fi

	# --- the kunit copy of the tree ----------------------------------------------
	# A hard-linked copy: cheap (~seconds, no extra data), and every file we
	# change is replaced by a new inode (write to temp + rename), never edited in
	# place, so the shared pristine tree is never touched.
	TREE=$KDIR/tree-$FULLVER
	if [ ! -f "$TREE/.metaroce-tree-complete" ]; then
		echo "run.sh: creating kunit tree copy $TREE" >&2
		rm -rf "$TREE" "$TREE.tmp"
		cp -al "$SRC" "$TREE.tmp" || die "cp -al $SRC failed"
		touch "$TREE.tmp/.metaroce-tree-complete"
		mv -T "$TREE.tmp" "$TREE" || die "cannot rename $TREE.tmp"
	fi

	# replace_file DEST < content: write only if it changed, via a new inode.
	replace_file() {
		local dest=$1 tmp
		tmp=$(mktemp "$dest.XXXXXX") || return 1
		cat >"$tmp"
		if [ -f "$dest" ] && [ ! -L "$dest" ] && cmp -s "$tmp" "$dest"; then
			rm -f "$tmp"
		else
			chmod 0644 "$tmp" && mv -f "$tmp" "$dest"
		fi
	}

	# add_line FILE AFTER_REGEX LINE: insert LINE after the last line matching
	# AFTER_REGEX (or at the end), unless LINE is already present.
	add_line() {
		local file=$1 after=$2 line=$3
		grep -qxF "$line" "$file" && return 0
		awk -v after="$after" -v line="$line" '
			{ a[NR] = $0; if ($0 ~ after) last = NR }
			END { for (i = 1; i <= NR; i++) { print a[i]; if (i == last) print line }
			      if (!last) print line }' "$file" | replace_file "$file"
	}

	IB=$TREE/drivers/infiniband
	add_line "$IB/Kconfig" '^source "drivers/infiniband/sw/siw/Kconfig"' \
		'source "drivers/infiniband/sw/metaroce/Kconfig"' || die "patching Kconfig"
	add_line "$IB/Kconfig" '^source "drivers/infiniband/sw/metaroce/Kconfig"' \
		'source "drivers/infiniband/sw/metaroce-kunit/Kconfig"' || die "patching Kconfig"
	add_line "$IB/Makefile" '^obj-' 'obj-$(CONFIG_METAROCE) += sw/metaroce/' || die "patching Makefile"
	add_line "$IB/Makefile" '^obj-' 'obj-$(CONFIG_METAROCE_KUNIT_TEST) += sw/metaroce-kunit/' || die "patching Makefile"

	# uapi headers: <rdma/metaroce_*.h>
	for l in "$TREE"/include/uapi/rdma/metaroce_*.h; do
		[ -L "$l" ] && rm -f "$l"
	done
	for h in "$REPO"/include/uapi/rdma/metaroce_*.h; do
		[ -f "$h" ] && ln -sfn "$h" "$TREE/include/uapi/rdma/$(basename "$h")"
	done

	# the driver: a directory of per-file symlinks to the repo's driver sources
	# (never a link to the whole directory: in-place out-of-tree builds leave
	# .o/.cmd files there, which kbuild's VPATH could pick up).
	DRV_REPO=$REPO/drivers/infiniband/sw/metaroce
	DRV_TREE=$IB/sw/metaroce
	WANT_MODE=$DRIVER_MODE
	case "$WANT_MODE" in
	auto|real|standin) ;;
	*) die "METAROCE_KUNIT_DRIVER must be auto, real or standin" ;;
	esac
	if [ "$WANT_MODE" != standin ] && { [ ! -f "$DRV_REPO/Kconfig" ] ||
	   { [ ! -f "$DRV_REPO/Kbuild" ] && [ ! -f "$DRV_REPO/Makefile" ]; }; }; then
		[ "$WANT_MODE" = real ] && die "$DRV_REPO has no Kconfig and Kbuild (try METAROCE_KUNIT_DRIVER=standin)"
		WANT_MODE=standin
	fi
	[ "$WANT_MODE" = auto ] && WANT_MODE=real

	# --- the tests: a real directory of symlinks, rebuilt every run so added or
	# removed files are picked up.
	KT=$IB/sw/metaroce-kunit
	rm -rf "$KT"
	mkdir -p "$KT"
	for f in "$TESTS_DIR"/*.c "$TESTS_DIR"/*.h "$TESTS_DIR"/Kbuild "$TESTS_DIR"/Kconfig "$TESTS_DIR"/*.mk; do
		[ -f "$f" ] && ln -sfn "$f" "$KT/$(basename "$f")"
	done
	[ -f "$KT/Kbuild" ] && [ -f "$KT/Kconfig" ] || die "$TESTS_DIR needs Kbuild and Kconfig"
	# pure-C driver sources and the driver's feature probes, compiled into the
	# tests when CONFIG_METAROCE != y
	for f in "$DRV_REPO"/*.c "$DRV_REPO"/Kbuild.probes "$DRV_REPO"/probes; do
		[ -e "$f" ] && [ ! -e "$KT/$(basename "$f")" ] && ln -sfn "$f" "$KT/$(basename "$f")"
	done

	# --- build dir, keyed by kernel version + kunitconfig content ------------------
	# (Kconfig/Kbuild changes of the driver or tests are picked up by kbuild itself.)
	KEY=$( { echo "$FULLVER"; cat "$KUNITCONFIG"; } | sha256sum | cut -c1-12)
	BUILD=$KDIR/build-$FULLVER-$KEY
	mkdir -p "$BUILD"
	# The sources are symlinks into a checkout; kbuild compares an object
	# with its source's mtime only, so after a run from another checkout
	# (a second clone or git worktree) its newer objects would be reused.
	# Rebuild the driver and tests whenever the checkout changes.
	if [ "$(cat "$BUILD/.metaroce-repo" 2>/dev/null)" != "$REPO" ]; then
		rm -rf "$BUILD/drivers/infiniband/sw/metaroce" \
			"$BUILD/drivers/infiniband/sw/metaroce-kunit"
		echo "$REPO" >"$BUILD/.metaroce-repo"
	fi
	LOG=$OUTDIR/kunit.log
	# no stale results from an earlier run
	rm -f "$OUTDIR/kunit-real-driver.log" "$LOG" "$OUTDIR/test.log" "$OUTDIR/ktap.txt" \
		"$OUTDIR/results.json" "$OUTDIR/config"
	START=$(date +%s)

	# auto: remember that this exact driver source did not build on UML, so
	# the next runs go straight to the stand-in until the driver changes.
	DRV_HASH=$(cd "$DRV_REPO" 2>/dev/null && find . \( -name '*.[ch]' -o -name 'Kconfig' -o -name 'Kbuild*' \
		-o -name Makefile \) -type f -print0 | sort -z | xargs -0 cat 2>/dev/null | sha256sum | cut -c1-16)
	REAL_FAILED=$BUILD/.metaroce-real-driver-failed
	if [ "$DRIVER_MODE" = auto ] && [ "$WANT_MODE" = real ] && [ -f "$REAL_FAILED" ] &&
	   [ "$(cat "$REAL_FAILED")" = "$DRV_HASH" ]; then
		echo "run.sh: WARNING: this driver source did not build on UML last time; using the stand-in" >&2
		echo "run.sh: WARNING: (METAROCE_KUNIT_DRIVER=real to try again, or change the driver)" >&2
		WANT_MODE=standin
	fi

	setup_driver "$WANT_MODE"
	run_kunit
	if [ "$DRIVER_MODE" = auto ] && [ "$WANT_MODE" = real ] && ! has_summary &&
	   grep -qE '(sw/metaroce/[^ :]*:[0-9]+:[0-9]+: error:|sw/metaroce/[^ ]*\.o\] Error)' "$LOG"; then
		mv "$LOG" "$OUTDIR/kunit-real-driver.log"
		echo "$DRV_HASH" >"$REAL_FAILED"
		echo "run.sh: WARNING: the driver does not build on UML (see $OUTDIR/kunit-real-driver.log);" >&2
		echo "run.sh: WARNING: running again with the stand-in driver Kbuild (pure-C objects only)" >&2
		setup_driver standin
		run_kunit
	elif [ "$WANT_MODE" = real ] && has_summary; then
		rm -f "$REAL_FAILED"
	fi
	END=$(date +%s)

	[ -f "$BUILD/test.log" ] && cp "$BUILD/test.log" "$OUTDIR/test.log"
	# Raw KTAP: the console output from the first "KTAP version"/"TAP version" line.
	if [ -f "$BUILD/test.log" ]; then
		sed -n '/K\?TAP version [0-9]/,$p' "$BUILD/test.log" >"$OUTDIR/ktap.txt"
	else
		: >"$OUTDIR/ktap.txt"
	fi
	[ -f "$BUILD/.config" ] && cp "$BUILD/.config" "$OUTDIR/config"

	# --- verdict -----------------------------------------------------------------
	STATUS=0
	plain=$(sed 's/\x1b\[[0-9;]*m//g' "$LOG")
	summary=$(grep -E 'Testing complete\. Ran [0-9]+ tests' <<<"$plain" | tail -n1)
	count() { sed -n "s/.*[ ,:]$1: \([0-9]\+\).*/\1/p" <<<"$summary" | head -n1; }
	if [ -n "$summary" ]; then
		PASSED=$(count passed); PASSED=${PASSED:-0}
		f=$(count failed); c=$(count crashed); s=$(count skipped); e=$(count errors)
		f=${f:-0}; c=${c:-0}; s=${s:-0}; e=${e:-0}
		FAILED=$((f + c))
		total=$(sed -n 's/.*Ran \([0-9]\+\) tests.*/\1/p' <<<"$summary")
		[ "$c" -gt 0 ] && { echo "run.sh: FAIL: $c test(s) crashed" >&2; STATUS=1; }
		[ "$f" -gt 0 ] && { echo "run.sh: FAIL: $f test(s) failed" >&2; STATUS=1; }
		[ "$e" -gt 0 ] && { echo "run.sh: FAIL: kunit.py reported $e parse error(s)" >&2; STATUS=1; }
		[ "${total:-0}" -eq 0 ] && { echo "run.sh: FAIL: no tests ran" >&2; STATUS=1; }
		[ "$s" -gt 0 ] && echo "run.sh: note: $s test(s) skipped" >&2
	else
		echo "run.sh: FAIL: no kunit.py summary (build error or kernel did not run, see $LOG)" >&2
		STATUS=1
	fi
	if [ -n "$summary" ] && ! grep -q 'metaroce' "$OUTDIR/ktap.txt"; then
		echo "run.sh: FAIL: no metaroce suite in the KTAP output" >&2
		STATUS=1
	fi
	[ "$RC" -ne 0 ] && { echo "run.sh: FAIL: kunit.py exited $RC" >&2; STATUS=1; }
	if [ -f "$BUILD/.config" ] && ! grep -qx 'CONFIG_METAROCE=y' "$BUILD/.config"; then
		echo "run.sh: note: CONFIG_METAROCE is not y in $BUILD/.config" >&2
	fi
	[ "$USED_MODE" = standin ] &&
		echo "run.sh: note: driver=standin: only the pure-C objects of driver-objs.mk were built" >&2
	echo "run.sh: $((END - START)) s; logs in $OUTDIR (kunit.log, test.log, ktap.txt, results.json, config)" >&2
	final $STATUS
}

main "$@"
