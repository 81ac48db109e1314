#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh     fast static checks of the metaroce tree; exits 1 if any check fails
#
# Checks (all run, failures are listed at the end):
#   checkpatch   scripts/checkpatch.pl --strict --no-tree -f of linux-source-6.12 (from
#                scripts/kernel-source.sh 6.12) on every .c/.h under
#                drivers/infiniband/sw/metaroce, include/uapi/rdma/metaroce_*.h and
#                tests/kunit/*.[ch]; any ERROR, WARNING or CHECK fails.  A repo-root
#                .checkpatch.conf (checkpatch's own mechanism) is honoured, ~/.checkpatch.conf not
#   length       no file under drivers/ longer than 1000 lines
#   whitespace   git diff --check on uncommitted changes (staged and unstaged) and on
#                every tracked C/Kbuild/Kconfig/Makefile/shell file
#   spdx         SPDX-License-Identifier in the first two lines of the top Makefile/Kbuild,
#                of Makefile/Kbuild*/Kconfig and *.sh under drivers/ include/ tests/kunit/,
#                and of scripts/*.sh (what would go upstream; checkpatch covers .c/.h)
#   uapi         each include/uapi/rdma/metaroce_*.h compiles alone in userspace
#                (gcc -fsyntax-only -Werror against /usr/include): catches kernel-only
#                types/includes that would break rdma-core
#   shell-lint   shellcheck: -S warning on scripts/*.sh, -S error on tests/ and tools/ *.sh
#   rst          docutils (rst2pseudoxml) parses every Documentation/**/*.rst without a
#                warning or error (Sphinx-only directives and roles are not docutils'
#                business and are ignored): catches broken tables and lists
#   diary        documents and comments describe the present: no work-log numbers
#                ("session 23"), run letters ("run K", "runs X-X3"), "since then", or
#                entries that open with a date, in *.rst, *.md (but the reports
#                Documentation/metaroce/bench/*.md that the bench scripts write),
#                and the C, shell and Python sources and tools
#   version      dkms.conf's PACKAGE_VERSION is MRO_VERSION (mro.h, the MODULE_VERSION)
#   wire         tools/mro-hostile's own copy of the wire format (opcodes, flags, header
#                layouts, extension per opcode) is metaroce_wire.h's and mro_wire.c's
#   rules        protocol.rst's rule identifiers ([AREA-N]) are unique and each area's
#                numbers run without a gap (tools/spec-rules.py --count)
#                (scripts/check-wire-tables.sh)
#
# Files considered: git ls-files -co --exclude-standard (tracked + untracked, not ignored).
# Environment:
#   METAROCE_CHECKPATCH   path of checkpatch.pl to use instead of the linux-source-6.12 one
#   METAROCE_LINT_SKIP    space-separated check names to skip (e.g. "shell_lint uapi")
#   METAROCE_CACHE        cache root (default /var/cache/metaroce)
set -euo pipefail

MR_PROG=lint.sh
# shellcheck source=scripts/lib-build.sh
. "$(dirname "$(realpath "$0")")/lib-build.sh"

case "${1:-}" in
-h|--help) sed -n '3,39p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
'') ;;
*) echo "usage: $0" >&2; exit 2 ;;
esac

MAX_LINES=1000
SKIP=" ${METAROCE_LINT_SKIP:-} "
FAILED=()
PASSED=()

mr_need_host_pkgs git:git perl:perl gcc:gcc shellcheck:shellcheck xz:xz-utils \
	rst2pseudoxml:python3-docutils python3:python3
mr_traps_install
cd "$MR_REPO"

mapfile -d '' -t ALL < <(git ls-files -z -co --exclude-standard)
EXISTING=()
for f in "${ALL[@]}"; do
	if [ -f "$f" ]; then EXISTING+=("$f"); fi
done
# pick FILES matching any of the extended regexes given
pick() {
	local re=$1 f
	for f in "${EXISTING[@]}"; do
		if [[ $f =~ $re ]]; then printf '%s\n' "$f"; fi
	done
}

result() {	# result NAME STATUS(0=ok) [detail]
	if [ "$2" -eq 0 ]; then PASSED+=("$1"); mr_log "PASS $1${3:+: $3}"
	else FAILED+=("$1"); mr_log "FAIL $1${3:+: $3}"; fi
}

skipped() {
	case "$SKIP" in *" $1 "*) mr_log "skip $1 (METAROCE_LINT_SKIP)"; return 0 ;; esac
	return 1
}

# ------------------------------------------------------------------ checkpatch
check_checkpatch() {
	local cp=${METAROCE_CHECKPATCH:-} ksrc out f rc n bad=0 total=0
	mapfile -t files < <(pick '^(drivers/infiniband/sw/metaroce/.*\.[ch]|include/uapi/rdma/metaroce_[^/]*\.h|tests/kunit/[^/]*\.[ch])$')
	if [ ${#files[@]} -eq 0 ]; then
		result checkpatch 0 "no files yet"; return
	fi
	if [ -z "$cp" ]; then
		out=$(mktemp)
		if ! mr_run_timeout 900 bash "$MR_REPO/scripts/kernel-source.sh" 6.12 >"$out"; then
			rm -f "$out"; result checkpatch 1 "scripts/kernel-source.sh 6.12 failed"; return
		fi
		ksrc=$(tail -n1 "$out"); rm -f "$out"
		cp=$ksrc/scripts/checkpatch.pl
	fi
	[ -f "$cp" ] || { result checkpatch 1 "no checkpatch.pl at $cp"; return; }
	# one checkpatch per file, nproc in parallel; reports are printed in file order.
	# checkpatch reads .checkpatch.conf from ., $HOME and .scripts: HOME points to an
	# empty dir so that only the repo's own .checkpatch.conf (if any) counts.
	local tmp i=0
	tmp=$(mktemp -d)
	for f in "${files[@]}"; do printf '%s\0%s\0' "$tmp/$((i++))" "$f"; done |
		HOME=$tmp timeout 600 xargs -0 -n2 -P"$(nproc)" sh -c \
			'timeout 120 perl "$0" --strict --no-tree --show-types --color=never -f "$2" \
				>"$1.out" 2>&1; echo $? >"$1.rc"' "$cp" || true
	i=0
	for f in "${files[@]}"; do
		total=$((total + 1)); out=$tmp/$i; i=$((i + 1))
		rc=$(cat "$out.rc" 2>/dev/null || echo 255)
		n=$(grep -cE '^(ERROR|WARNING|CHECK):' "$out.out" 2>/dev/null || true)
		if [ "$rc" -ne 0 ] || [ "${n:-0}" -ne 0 ]; then
			bad=$((bad + 1))
			echo "---- checkpatch: $f (${n:-0} finding(s), rc=$rc)"
			# findings up to checkpatch's "total:" line, without blank lines and NOTEs
			awk 'NF && !/^total:/ { print } /^total:/ { print; exit }' "$out.out" 2>/dev/null | head -n 400
		fi
	done
	rm -rf "$tmp"
	result checkpatch "$bad" "$total file(s), $bad with findings (checkpatch: ${cp#"$MR_CACHE"/})"
}

# ------------------------------------------------------------------ file length
check_length() {
	local f n bad=0
	while IFS= read -r f; do
		n=$(wc -l <"$f")
		if [ "$n" -gt $MAX_LINES ]; then
			echo "---- length: $f has $n lines (max $MAX_LINES)"; bad=$((bad + 1))
		fi
	done < <(pick '^drivers/')
	result length "$bad" "files under drivers/ <= $MAX_LINES lines"
}

# ------------------------------------------------------------------ whitespace
check_whitespace() {
	local rc=0 empty
	empty=$(git hash-object -t tree /dev/null)
	echo "---- git diff --check" >/tmp/.mr-lint-ws.$$
	# uncommitted changes, unstaged and staged (the latter also when there is no HEAD yet)
	git diff --check >>/tmp/.mr-lint-ws.$$ 2>&1 || rc=1
	if git rev-parse -q --verify HEAD >/dev/null; then
		git diff --cached --check >>/tmp/.mr-lint-ws.$$ 2>&1 || rc=1
	else
		git diff --cached --check "$empty" >>/tmp/.mr-lint-ws.$$ 2>&1 || rc=1
	fi
	# whole tracked content of source-like files (working tree vs empty tree)
	git diff --check "$empty" -- '*.c' '*.h' '*.sh' '*Makefile' '*Kbuild' '*Kconfig' \
		>>/tmp/.mr-lint-ws.$$ 2>&1 || rc=1
	# untracked source-like files: trailing whitespace / space before tab
	local f
	while IFS= read -r f; do
		git ls-files --error-unmatch -- "$f" >/dev/null 2>&1 && continue
		if grep -nE '[[:space:]]+$| +	' "$f" | sed "s|^|$f:|" | grep . >>/tmp/.mr-lint-ws.$$; then
			rc=1
		fi
	done < <(pick '(\.(c|h|sh)|(^|/)(Makefile|Kbuild|Kconfig))$')
	[ $rc -eq 0 ] || sort -u /tmp/.mr-lint-ws.$$
	rm -f /tmp/.mr-lint-ws.$$
	result whitespace $rc "no whitespace errors / conflict markers"
}

# ------------------------------------------------------------------ SPDX
check_spdx() {
	local f bad=0
	while IFS= read -r f; do
		if ! head -n 2 "$f" | grep -q 'SPDX-License-Identifier:'; then
			echo "---- spdx: $f has no SPDX-License-Identifier in its first two lines"; bad=$((bad + 1))
		fi
	done < <(pick '^((Makefile|Kbuild)|(drivers|include|tests/kunit)/.*(/(Makefile|Kbuild[^/]*|Kconfig)|\.sh)|scripts/[^/]*\.sh)$')
	result spdx "$bad" "Makefile/Kbuild/Kconfig files and scripts/*.sh carry an SPDX tag"
}

# ------------------------------------------------------------------ uapi headers
check_uapi() {
	local f bad=0 n=0 out tmp
	tmp=$(mktemp -d)
	# the repo's own uapi dir first, so metaroce headers can include each other
	while IFS= read -r f; do
		n=$((n + 1))
		printf '#include <%s>\nint main(void) { return 0; }\n' "${f#include/uapi/}" >"$tmp/t.c"
		if ! out=$(timeout 60 gcc -std=gnu11 -Wall -Wextra -Werror -fsyntax-only \
				-I"$MR_REPO/include/uapi" "$tmp/t.c" 2>&1); then
			echo "---- uapi: $f does not compile on its own in userspace:"; echo "$out"
			bad=$((bad + 1))
		fi
		if grep -nE '\b(u8|u16|u32|u64|s8|s16|s32|s64|bool)\b' "$f" | grep -v '^\s*[0-9]*:\s*/?\*' | grep .; then
			echo "---- uapi: $f uses kernel-internal types (use __u32 etc.)"; bad=$((bad + 1))
		fi
	done < <(pick '^include/uapi/rdma/metaroce_[^/]*\.h$')
	rm -rf "$tmp"
	result uapi "$bad" "$n uapi header(s) self-contained, __uXX types only"
}

# ------------------------------------------------------------------ shellcheck
check_shell_lint() {
	# scripts/ (CI tooling): severity >= warning; other shell scripts (VM lab, guest
	# helpers, whose sourced-library style gives many false warnings): errors only
	local -a mine other
	mapfile -t mine < <(pick '^scripts/[^/]*\.sh$')
	mapfile -t other < <(pick '^(tests|tools)/.*\.sh$')
	local rc=0
	if [ ${#mine[@]} -gt 0 ]; then
		timeout 300 shellcheck -x -S warning -f gcc "${mine[@]}" || rc=1
	fi
	if [ ${#other[@]} -gt 0 ]; then
		timeout 300 shellcheck -S error -f gcc "${other[@]}" || rc=1
	fi
	result shell_lint $rc "${#mine[@]} script(s) in scripts/ (>= warning), ${#other[@]} in tests/ tools/ (errors)"
}

# ------------------------------------------------------------------ rst
check_rst() {
	local f out bad=0 n=0
	while IFS= read -r f; do
		n=$((n + 1))
		out=$(timeout 60 rst2pseudoxml --report=2 --halt=5 "$f" 2>&1 >/dev/null |
			grep -E '\((WARNING|ERROR|SEVERE)/' |
			grep -vE 'Unknown (directive type|interpreted text role)' || true)
		if [ -n "$out" ]; then
			echo "---- rst: $f"; echo "$out"; bad=$((bad + 1))
		fi
	done < <(pick '^Documentation/.*\.rst$')
	result rst "$bad" "$n rst file(s) parse cleanly"
}

# ------------------------------------------------------------------ diary
check_diary() {
	local out
	out=$(pick '(\.(rst|md|c|h|sh|py)$|^tools/mro-[a-z]+$|^Makefile$|/Kbuild)' |
		grep -vE '^Documentation/metaroce/bench/.*\.md$|^scripts/lint\.sh$' |
		xargs -r -d '\n' grep -nHE \
			-e '\b[Ss]ession [0-9]+' -e '\b[Ss]ince then\b' \
			-e '\bruns? [A-Z][0-9]?(-[A-Z][0-9]?)?([^/[:alnum:]]|$)' \
			-e '^[[:space:]]*([-*#/]+[[:space:]]*)?[*]*20[0-9]{2}-[0-9]{2}-[0-9]{2}' ||
		true)
	if [ -n "$out" ]; then
		echo "---- diary: history belongs in commit messages and issue notes"
		echo "$out"
	fi
	result diary "$([ -z "$out" ]; echo $?)" "no work-log text in docs and comments"
}

# ------------------------------------------------------------------ version
check_version() {
	local mod pkg
	mod=$(sed -n 's/^#define MRO_VERSION[[:space:]]*"\(.*\)"$/\1/p' drivers/infiniband/sw/metaroce/mro.h)
	pkg=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
	result version "$([ -n "$mod" ] && [ "$mod" = "$pkg" ]; echo $?)" \
		"MRO_VERSION '$mod', dkms.conf PACKAGE_VERSION '$pkg'"
}

# ------------------------------------------------------------------ wire tables
check_wire() {
	local out rc=0
	out=$(CC=gcc timeout 120 bash "$MR_REPO/scripts/check-wire-tables.sh" 2>&1) || rc=1
	if [ $rc -ne 0 ]; then
		echo "---- wire: scripts/check-wire-tables.sh"; echo "$out"
	fi
	result wire $rc "tools/mro-hostile's wire tables are metaroce_wire.h's and mro_wire.c's"
}

# ------------------------------------------------------------------ rule ids
check_rules() {
	local out rc=0
	out=$(python3 "$MR_REPO/tools/spec-rules.py" --count 2>&1) || rc=1
	if [ $rc -ne 0 ]; then
		echo "---- rules: tools/spec-rules.py --count"; echo "$out"
	fi
	result rules $rc "protocol.rst's rule identifiers: $(tail -n 1 <<<"$out" | tr '\t' ' ')"
}

T0=$SECONDS
for c in checkpatch length whitespace spdx uapi shell_lint rst diary version wire rules; do
	skipped $c || "check_$c"
done

echo
echo "lint: passed: ${PASSED[*]:-none}"
echo "lint: failed: ${FAILED[*]:-none}   ($((SECONDS - T0))s)"
[ ${#FAILED[@]} -eq 0 ]
