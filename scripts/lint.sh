#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh [FILE...] - style checks of the kernel code and the shell scripts
# (`make lint`):
#   1. checkpatch.pl --strict on every file, with the exceptions listed in
#      scripts/lint-exceptions (each with its reason);
#   2. kernel-doc -none -Wall on src/*.c and include/*.h;
#   3. references (scripts/lint-refs.pl, always on the whole tree): every
#      repository path named in a comment under src/ and include/ or in
#      README.md, tests/vm/README.md and docs/design.md exists, every
#      heading of docs/design.md cited in the tree exists, and every function()
#      named in a comment under src/ and include/ is defined in the tree or
#      is a kernel symbol (installed kernel headers, or
#      scripts/lint-kernel-symbols). The header of lint-refs.pl has the
#      exact rules; its --self-test runs first;
#   4. the VM guest's filter of known kernel bugs on its samples
#      (tests/vm/kbug/test-kbug2-filter.sh, under busybox);
#   5. shell scripts: `sh -n` (`bash -n` for bash) and
#      `shellcheck -S warning` on every shell script of the tree (tracked or
#      new, not git-ignored; with FILE arguments, on those that are shell
#      scripts). The first line tells the shell: "#!" naming bash -> bash,
#      naming sh or dash -> sh, any other "#!" -> not a shell script,
#      "# shellcheck shell=sh" -> a sourced sh fragment (scripts/kernels.conf)
#      checked as sh. A *.sh
#      file without "#!" is a guest file (tests/vm/lib.sh,
#      tests/vm/lib.d/*.sh, tests/vm/cases/*.sh, tests/vm/kbug/repro-cq-race.sh) that
#      tests/vm/guest-init.sh sources under busybox ash after lib.sh: it is
#      checked as sh (-s sh; sh -n is dash, stricter than ash), on its own
#      (shellcheck has no prelude option; a wrapper sourcing lib.sh and a
#      case would check lib.sh again for each case). lib.sh's variables are
#      upper case, which shellcheck takes for environment variables, so a
#      case reading them is not flagged; lib.sh's variables that only the
#      cases read carry a disable=SC2034 directive. Each intended construct
#      gets its own disable=SCxxxx directive line with the reason after it,
#      never a global -e. shellcheck comes from scripts/install-deps.sh (run
#      when it is missing).
# Default files (1 and 2): src/*.c include/*.h tests/selftest/*.[ch].
# Exit status: 0 if clean, 1 on any finding, 2 if the tools (or, for 3, the
# kernel headers) are unavailable.
#
# checkpatch.pl, spelling.txt and const_structs.checkpatch are not in the
# headers packages: they are extracted once from Debian's kernel source
# package (SRPT_SOURCE_PKG of scripts/kernels.conf, linux-source-6.12;
# downloaded with `apt-get download`) into $SRPT_CACHE/checkpatch.
# kernel-doc comes from an installed headers tree of the same line
# (linux-headers-6.12.*-common), else from the same linux-source package.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/kernels.conf
. "$top/scripts/kernels.conf"
cache=$SRPT_CACHE/checkpatch
srcpkg=$SRPT_SOURCE_PKG
exceptions=$top/scripts/lint-exceptions

fetch_tools() {
	[ -x "$cache/checkpatch.pl" ] && [ -f "$cache/spelling.txt" ] &&
		[ -f "$cache/const_structs.checkpatch" ] &&
		[ -x "$cache/kernel-doc" ] && return 0
	echo "lint: extracting checkpatch.pl from $srcpkg into $cache (once)" >&2
	t=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$t'" EXIT
	chmod 755 "$t"
	(cd "$t" && apt-get -q download "$srcpkg" >&2) || {
		echo "lint: apt-get download $srcpkg failed" >&2
		return 1
	}
	dpkg-deb --fsys-tarfile "$t"/"$srcpkg"_*.deb |
		tar -C "$t" -xf - --wildcards './usr/src/linux-source-*.tar.xz' || return 1
	tarball=$(ls "$t"/usr/src/linux-source-*.tar.xz)
	d=$(basename "$tarball" .tar.xz)
	tar -C "$t" -xJf "$tarball" "$d/scripts/checkpatch.pl" \
		"$d/scripts/spelling.txt" "$d/scripts/const_structs.checkpatch" \
		"$d/scripts/kernel-doc" || return 1
	mkdir -p "$cache"
	for f in checkpatch.pl spelling.txt const_structs.checkpatch kernel-doc; do
		cp "$t/$d/scripts/$f" "$cache/$f"
	done
	chmod 755 "$cache/checkpatch.pl" "$cache/kernel-doc"
	echo "$d" >"$cache/SOURCE"
	rm -rf "$t"
	trap - EXIT
}

fetch_tools || exit 2

kerneldoc=
for k in /usr/src/linux-headers-"${srcpkg#linux-source-}"*-common/scripts/kernel-doc; do
	[ -x "$k" ] && kerneldoc=$k
done
[ -n "$kerneldoc" ] || kerneldoc=$cache/kernel-doc

cd "$top" || exit 2
if [ $# -gt 0 ]; then
	files="$*"
else
	files=$(ls src/*.c include/*.h tests/selftest/*.c tests/selftest/*.h 2>/dev/null)
fi

# Exceptions: lines "TYPE [GLOB...]  # reason". A TYPE without globs is
# ignored everywhere; with globs only in matching files.
global_ignore=
if [ -f "$exceptions" ]; then
	global_ignore=$(sed -e 's/#.*//' "$exceptions" |
		awk 'NF == 1 { printf "%s%s", sep, $1; sep = "," }')
fi
ignores_for() {	# ignores_for FILE: comma list of types excepted for FILE
	[ -f "$exceptions" ] || return 0
	sed -e 's/#.*//' "$exceptions" | while read -r type globs; do
		[ -n "$type" ] && [ -n "$globs" ] || continue
		for g in $globs; do
			# shellcheck disable=SC2254
			case $1 in $g) printf '%s,' "$type" ;; esac
		done
	done
}

rc=0
n_cp=0
for f in $files; do
	ign=$(ignores_for "$f")$global_ignore
	out=$(perl "$cache/checkpatch.pl" --strict --no-tree --terse \
		--show-types --no-summary --color=never \
		${ign:+--ignore "$ign"} -f "$f" 2>&1)
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
		n_cp=$((n_cp + $(printf '%s\n' "$out" | grep -c .)))
		rc=1
	fi
done

kd_files=$(for f in $files; do
	case $f in src/*.c | include/*.h) echo "$f" ;; esac
done)
n_kd=0
if [ -n "$kd_files" ]; then
	# shellcheck disable=SC2086
	out=$(perl "$kerneldoc" -none -Wall $kd_files 2>&1)
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
		n_kd=$(printf '%s\n' "$out" | grep -c .)
		rc=1
	fi
fi

# The checker first proves on its own fixture that it still finds
# dangling references; a failed self-test counts as one finding.
n_refs=0
if ! out=$(perl "$top/scripts/lint-refs.pl" --self-test 2>&1); then
	printf '%s\n' "$out"
	n_refs=1
	rc=1
fi
out=$(perl "$top/scripts/lint-refs.pl" "$top")
rc_refs=$?
if [ -n "$out" ]; then
	printf '%s\n' "$out"
	n_refs=$((n_refs + $(printf '%s\n' "$out" | grep -c .)))
fi
case $rc_refs in
0) ;;
1) rc=1 ;;
*) [ $rc -eq 0 ] && rc=2 ;;
esac

# The VM guest's filter of known kernel bugs (tests/vm/guest-init.sh,
# drop_known_kbugs) on its sample reports: it must drop exactly the known
# ones. Runs under busybox, as in the guest.
n_kb=0
if ! out=$(sh "$top/tests/vm/kbug/test-kbug2-filter.sh" 2>&1); then
	printf '%s\n' "$out" | grep -v '^PASS'
	n_kb=$(printf '%s\n' "$out" | grep -c '^FAIL')
	[ "$n_kb" -gt 0 ] || n_kb=1
	rc=1
fi

# Shell scripts (5). shell_kind FILE sets kind from the first line of FILE:
# bash, sh, guest (a *.sh file without "#!") or "" (not a shell script).
shell_kind() {
	kind="" _l=""
	IFS= read -r _l <"$1" 2>/dev/null
	case $_l in
	'#!'*[/\ ]bash | '#!'*[/\ ]bash[\ \	]*) kind="bash" ;;
	'#!'*[/\ ]sh | '#!'*[/\ ]sh[\ \	]*) kind="sh" ;;
	'#!'*[/\ ]dash | '#!'*[/\ ]dash[\ \	]*) kind="sh" ;;
	'#!'*) ;;
	'# shellcheck shell=sh') kind="sh" ;;
	*) case $1 in *.sh) kind=guest ;; esac ;;
	esac
}
# run_shellcheck [OPTION...] -- FILE...: add its findings to n_sh
run_shellcheck() {
	# -x: follow the source directives (guest-init.sh reads lib.sh)
	out=$(shellcheck --norc -x -S warning -f gcc "$@" 2>&1)
	rc_sc=$?
	[ -n "$out" ] && printf '%s\n' "$out"
	case $rc_sc in
	0) ;;
	1)
		n_sh=$((n_sh + $(printf '%s\n' "$out" |
			grep -c ':[0-9]*:[0-9]*: [a-z]*: .*\[SC[0-9]*\]$')))
		rc=1
		;;
	*) [ $rc -eq 0 ] && rc=2 ;;
	esac
}
if [ $# -gt 0 ]; then
	sh_cands=$files
elif git rev-parse --git-dir >/dev/null 2>&1; then
	# tracked files and new ones that git does not ignore
	sh_cands=$(git ls-files --cached --others --exclude-standard)
else
	sh_cands=$(find . -path ./.git -prune -o -path ./build -prune -o \
		-type f -print | sed 's|^\./||')
fi
sh_shebang="" sh_guest=""
n_sh=0
for f in $sh_cands; do
	[ -f "$f" ] || continue
	shell_kind "$f"
	case $kind in
	bash) syntax="bash -n" ;;
	sh) syntax="sh -n" ;;
	guest) syntax="sh -n" ;;
	*) continue ;;
	esac
	# shellcheck disable=SC2086 # "bash -n" or "sh -n": two words
	if ! out=$($syntax "$f" 2>&1) || [ -n "$out" ]; then
		printf '%s: %s:\n%s\n' "$f" "$syntax" "$out"
		n_sh=$((n_sh + 1))
		rc=1
	fi
	if [ "$kind" = guest ]; then
		sh_guest="$sh_guest $f"
	else
		sh_shebang="$sh_shebang $f"
	fi
done
if [ -n "$sh_shebang$sh_guest" ] && ! command -v shellcheck >/dev/null; then
	echo "lint: shellcheck missing: running scripts/install-deps.sh" >&2
	"$top/scripts/install-deps.sh" >&2
fi
if [ -z "$sh_shebang$sh_guest" ]; then
	:
elif ! command -v shellcheck >/dev/null; then
	echo "lint: shellcheck unavailable: shell scripts not checked" >&2
	[ $rc -eq 0 ] && rc=2
else
	# shellcheck disable=SC2086 # lists of file names (no blanks in them)
	[ -z "$sh_shebang" ] || run_shellcheck -- $sh_shebang
	# shellcheck disable=SC2086 # lists of file names (no blanks in them)
	[ -z "$sh_guest" ] || run_shellcheck -s sh -- $sh_guest
fi

echo "lint: checkpatch --strict: $n_cp finding(s); kernel-doc -Wall ($kerneldoc): $n_kd finding(s); references: $n_refs finding(s); known-kernel-bug filter: $n_kb finding(s); shell: $n_sh finding(s)"
exit $rc
