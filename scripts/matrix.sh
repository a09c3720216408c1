#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# matrix.sh [PATTERN...] - build ib_srpt.ko (and the self-test module) with
# W=1 and sparse (C=2) against every supported kernel, with ZERO warnings.
#
# Kernels (pinned in scripts/kernels.conf):
#   host (Debian 12):  6.1 and 6.12 headers (ABIs SRPT_K61_ABI and
#                      SRPT_K612_ABI), flavours amd64, cloud-amd64 and
#                      rt-amd64 (installed with apt-get if missing)
#   chroots:           SRPT_CHROOTS: 5.10 (bullseye), 7.3
#                      (trixie-backports), 7.2 (sid), amd64 flavour, each
#                      built with its own gcc and sparse inside an
#                      mmdebstrap chroot created once by scripts/mkchroot.sh
#                      and cached in $SRPT_CACHE/chroots
# PATTERN (shell glob) limits the run to matching kernel releases or
# short names, e.g. "6.1*" or "7.3" or "*rt*".
#
# Each kernel is built in a fresh copy of the tree under build/<kver>/; the
# results are build/<kver>/src/ib_srpt.ko, build/<kver>/tests/selftest/*.ko
# (if tests/selftest exists), build/<kver>/build.log, build/<kver>/KVER and
# build/<kver>/RESULT. build/<short> (5.10, 6.1, 6.12, 7.2, 7.3) are
# symlinks to the generic-flavour build of that line, for the VM tests.
#
# Any output line of the builds that is not ordinary Kbuild progress counts
# as a warning (compiler, sparse, modpost, kernel Makefile). A kernel
# without CONFIG_INFINIBAND_ADDR_TRANS or CONFIG_TARGET_CORE is "skipped".
# Exit status: 0 if nothing failed, 1 otherwise.
#
# Environment (and every variable of scripts/kernels.conf: SRPT_CACHE,
# SRPT_K61_ABI, SRPT_K612_ABI, SRPT_CHROOTS, ...):
#   SRPT_MATRIX_FLAVOURS host flavours (default "amd64 cloud-amd64 rt-amd64")
#   SRPT_MATRIX_CHROOTS chroots to use (default: the names of SRPT_CHROOTS)
#   SRPT_MATRIX_NO_APT=1  never run apt-get (missing host headers: skipped)
#   SRPT_MATRIX_JOBS    make -j (default 2)
#   SRPT_MATRIX_EXCEPT  kernels (globs, like PATTERN) not to build, e.g. the
#                       one an earlier run already built and a VM run uses
#   SRPT_MATRIX_APPEND=1  add to build/matrix-summary.txt and
#                       matrix-findings.txt instead of starting them anew
#                       (scripts/check.sh builds the first VM run's kernel
#                       first and the rest in the background)
set -u

case ${1:-} in
-h | --help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
-*) echo "matrix.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/kernels.conf
. "$top/scripts/kernels.conf"
cache=$SRPT_CACHE
chroots=${SRPT_MATRIX_CHROOTS:-$(srpt_chroot_names | tr '\n' ' ')}
jobs=${SRPT_MATRIX_JOBS:-2}
builddir=$top/build
version=$("$top/scripts/version.sh") || exit 1
patterns=("$@")

mkdir -p "$builddir"
summary=$builddir/matrix-summary.txt
[ "${SRPT_MATRIX_APPEND:-0}" = 1 ] || : >"$summary"
failed=0
nresults=0	# kernels this run reported on (a PATTERN that matches none fails)

log() { echo "matrix: $*" >&2; }

selected() {	# selected KVER SHORT: does KVER match the command-line patterns?
	local p
	[ ${#patterns[@]} -eq 0 ] && return 0
	for p in "${patterns[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $p || $2 == $p ]] && return 0
	done
	return 1
}

excluded() {	# excluded KVER SHORT: does SRPT_MATRIX_EXCEPT name KVER?
	local p
	for p in ${SRPT_MATRIX_EXCEPT:-}; do
		# shellcheck disable=SC2053
		[[ $1 == $p || ( -n $2 && $2 == $p ) ]] && return 0
	done
	return 1
}

result() {	# result KVER WHERE RESULT WARNINGS SECONDS NOTE
	printf '%-28s %-24s %-7s %8s %5s  %s\n' "$@" >>"$summary"
	nresults=$((nresults + 1))
}

# ---- tools on the host ----
need_pkgs=
command -v sparse >/dev/null 2>&1 || need_pkgs="$need_pkgs sparse"
command -v mmdebstrap >/dev/null 2>&1 || need_pkgs="$need_pkgs mmdebstrap"
command -v modinfo >/dev/null 2>&1 || need_pkgs="$need_pkgs kmod"
if [ -n "$need_pkgs" ] && [ "${SRPT_MATRIX_NO_APT:-0}" != 1 ]; then
	log "installing$need_pkgs"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need_pkgs >&2 ||
		log "apt-get install$need_pkgs failed"
fi

# ---- the chroots (created in the background while the host builds run) ----
declare -A chroot_pid
for c in $chroots; do
	short=$(srpt_chroot_line "$c") || short=
	selected "$c" "$short" || [ ${#patterns[@]} -eq 0 ] || continue
	excluded "$c" "$short" && continue
	if [ ! -e "$cache/chroots/$c/.srpt-chroot-ok" ]; then
		mkdir -p "$cache/chroots"
		"$top/scripts/mkchroot.sh" "$c" "$cache/chroots/$c" \
			>"$cache/chroots/$c.log" 2>&1 &
		chroot_pid[$c]=$!
		log "creating chroot $c in the background (log: $cache/chroots/$c.log)"
	fi
done

# fix_headers ROOT KDIR: repair known omissions of Debian's headers packages
# in OUR chroots only (never on the host): the 7.x headers lack
# scripts/checker-valid.sh, which the kernel Makefile runs to decide whether
# sparse is usable; without it C=2 is silently dropped. The stand-in reports
# sparse as usable when it runs with the kernel's CHECKFLAGS.
fix_headers() {
	local mk common
	mk=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$1$2/Makefile")
	common=$1${mk:-$2}
	if grep -q 'scripts/checker-valid.sh' "$common/Makefile" &&
	   [ ! -e "$common/scripts/checker-valid.sh" ]; then
		cat >"$common/scripts/checker-valid.sh" <<'EOS'
#!/bin/sh
# Stand-in written by srpt-dkms scripts/matrix.sh (missing from the headers
# package): print 1 if the checker ("$@") runs at all.
if "$@" -E -x c /dev/null >/dev/null 2>&1; then echo 1; else echo 0; fi
EOS
		chmod +x "$common/scripts/checker-valid.sh"
	fi
}

# ---- one build ----
# build_one KVER KDIR ROOT SHORT: ROOT is "" for the host or a chroot dir
# (KDIR is then the path inside the chroot).
build_one() {
	local kver=$1 kdir=$2 root=$3 short=$4
	local where=${root:+chroot:$(basename "$root")}
	local out=$builddir/$kver
	local cfg=$root$kdir/.config
	local start end rc=0 findings=0 note=

	where=${where:-host}
	start=$(date +%s)
	if [ ! -f "$root$kdir/Makefile" ]; then
		result "$kver" "$where" FAIL - 0 "no headers at $root$kdir"
		failed=1
		return
	fi
	if ! grep -q '^CONFIG_INFINIBAND_ADDR_TRANS=y' "$cfg" ||
	   ! grep -q '^CONFIG_TARGET_CORE=[ym]' "$cfg"; then
		result "$kver" "$where" skipped - 0 \
			"no CONFIG_INFINIBAND_ADDR_TRANS or CONFIG_TARGET_CORE"
		return
	fi

	log "building $kver ($where)"
	rm -rf "$out"
	mkdir -p "$out"
	# shellcheck disable=SC2046 # no word or one word (tests/selftest)
	tar -C "$top" --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude=generated \
		--exclude=modules.order --exclude=Module.symvers \
		-cf - dkms.conf Makefile src include scripts \
		$( [ -d "$top/tests/selftest" ] && echo tests/selftest ) |
		tar -C "$out" -xf -
	echo "$kver" >"$out/KVER"

	# The commands run in $out (host) or /srpt (chroot, bind mount).
	local cmds
	# shellcheck disable=SC2016
	cmds='set -e
		make -j'"$jobs"' KVER='"$kver"' KDIR='"$kdir"' W=1 C=2 module
		if [ -d tests/selftest ]; then
			make -C '"$kdir"' M="$PWD/tests/selftest" W=1 C=2 \
				-j'"$jobs"' modules
		fi'
	if [ -n "$root" ]; then
		fix_headers "$root" "$kdir"
	fi
	if [ -z "$root" ]; then
		(cd "$out" && sh -c "$cmds") >"$out/build.log" 2>&1 || rc=$?
	else
		mkdir -p "$root/srpt"
		unshare --mount --propagation private sh -c '
			set -e
			mount -t proc proc "$1/proc"
			mount --bind "$2" "$1/srpt"
			exec chroot "$1" sh -c "cd /srpt && $3"
		' sh "$root" "$out" "$cmds" >"$out/build.log" 2>&1 || rc=$?
	fi

	# Everything that is not ordinary Kbuild progress is a finding.
	grep -v -E \
		-e '^  (CC|CC \[M\]|LD|LD \[M\]|AR|MODPOST|CHECK|BTF \[M\]|BTF|MKDIR|HOSTCC|CLEAN|SIGN|INSTALL|DEPMOD|STRIP|OBJTOOL|GEN) ' \
		-e '^make(\[[0-9]+\])?: (Entering|Leaving) directory' \
		-e '^make(\[[0-9]+\])?: Nothing to be done' \
		-e '^Skipping BTF generation for .* due to unavailability of vmlinux$' \
		-e '^  OFED    building against ' \
		-e '^make -C "?/[^ ]*"? M=' \
		-e '^$' \
		"$out/build.log" >"$out/findings.log"
	findings=$(wc -l <"$out/findings.log")
	# report the number of warning/error lines (context lines not counted)
	nwarn=$(grep -c -i -E 'warning|error' "$out/findings.log")
	[ "$nwarn" -gt 0 ] || nwarn=$findings

	if [ "$rc" -eq 0 ] && [ ! -f "$out/src/ib_srpt.ko" ]; then
		rc=1
		note="no ib_srpt.ko"
	fi
	if [ "$rc" -eq 0 ]; then
		local v
		v=$(modinfo -F version "$out/src/ib_srpt.ko" 2>/dev/null)
		if [ "$v" != "$version" ]; then
			rc=1
			note="modinfo version '$v' != '$version'"
		fi
	fi
	end=$(date +%s)
	if [ "$rc" -ne 0 ]; then
		[ -n "$note" ] || note="make failed (exit $rc)"
		result "$kver" "$where" FAIL "$nwarn" $((end - start)) "$note"
		echo FAIL >"$out/RESULT"
		failed=1
	elif [ "$findings" -ne 0 ]; then
		result "$kver" "$where" FAIL "$nwarn" $((end - start)) \
			"warnings: see build/$kver/findings.log"
		echo FAIL >"$out/RESULT"
		failed=1
	else
		result "$kver" "$where" ok 0 $((end - start)) \
			"$(cd "$out" && ls src/ib_srpt.ko tests/selftest/*.ko 2>/dev/null | tr '\n' ' ')"
		echo ok >"$out/RESULT"
	fi
	if [ "$findings" -ne 0 ] || [ "$rc" -ne 0 ]; then
		{
			echo "---- $kver ($where): first findings / log tail"
			head -n 40 "$out/findings.log"
		} >>"$builddir/matrix-findings.txt"
	fi
	# build/<short> -> the generic-flavour build of this kernel line
	if [ -n "$short" ]; then
		ln -sfn "$kver" "$builddir/$short"
	fi
}

[ "${SRPT_MATRIX_APPEND:-0}" = 1 ] || : >"$builddir/matrix-findings.txt"

# ---- host kernels ----
for abi in "$SRPT_K61_ABI" "$SRPT_K612_ABI"; do
	line=$(echo "$abi" | cut -d. -f1,2)
	for flavour in ${SRPT_MATRIX_FLAVOURS:-amd64 cloud-amd64 rt-amd64}; do
		kver=$abi-$flavour
		short=
		[ "$flavour" = amd64 ] && short=$line
		selected "$kver" "$short" || continue
		excluded "$kver" "$short" && continue
		kdir=/usr/src/linux-headers-$kver
		if [ ! -f "$kdir/Makefile" ] && [ "${SRPT_MATRIX_NO_APT:-0}" != 1 ]; then
			log "installing linux-headers-$kver"
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
				--no-install-recommends "linux-headers-$kver" >&2 ||
				log "apt-get install linux-headers-$kver failed"
		fi
		if [ ! -f "$kdir/Makefile" ]; then
			result "$kver" host FAIL - 0 "headers not installed"
			failed=1
			continue
		fi
		build_one "$kver" "$kdir" "" "$short"
	done
done

# ---- chroot kernels ----
for c in $chroots; do
	short=$(srpt_chroot_line "$c") || short=
	root=$cache/chroots/$c
	excluded "$c" "$short" && continue
	if [ ${#patterns[@]} -ne 0 ] && ! selected "$c" "$short"; then
		# the pattern may name the full release: look at what is there
		k=$(cd "$root/usr/src" 2>/dev/null && ls -d linux-headers-*-amd64 2>/dev/null | head -n 1)
		selected "${k#linux-headers-}" "$short" || continue
	fi
	if [ -n "${chroot_pid[$c]:-}" ]; then
		log "waiting for chroot $c"
		if ! wait "${chroot_pid[$c]}"; then
			result "$c" "chroot:$c" FAIL - 0 \
				"chroot creation failed: $cache/chroots/$c.log"
			failed=1
			continue
		fi
	fi
	if [ ! -e "$root/.srpt-chroot-ok" ]; then
		result "$c" "chroot:$c" FAIL - 0 "no chroot at $root"
		failed=1
		continue
	fi
	found=0
	for d in "$root"/usr/src/linux-headers-*-amd64; do
		[ -f "$d/Makefile" ] || continue
		kver=${d##*/linux-headers-}
		found=1
		if [ -n "$short" ] && [ "$(echo "$kver" | cut -d. -f1,2)" != "$short" ]; then
			log "warning: chroot $c has $kver, but SRPT_CHROOTS of scripts/kernels.conf says line $short (update it, or SRPT_CHROOT_REFRESH=1 scripts/mkchroot.sh $c)"
		fi
		build_one "$kver" "/usr/src/linux-headers-$kver" "$root" "$short"
		log "$c: kernel $kver"
	done
	if [ "$found" = 0 ]; then
		result "$c" "chroot:$c" FAIL - 0 "no headers in the chroot"
		failed=1
	fi
done

if [ ${#patterns[@]} -ne 0 ] && [ "$nresults" = 0 ]; then
	log "no kernel matches ${patterns[*]} (see --help)"
	failed=1
fi

# ---- summary ----
{
	echo
	echo "build matrix of srpt-dkms $version (W=1 C=2)"
	printf '%-28s %-24s %-7s %8s %5s  %s\n' kernel where result warnings secs note
	cat "$summary"
	for s in $(for a in "$SRPT_K61_ABI" "$SRPT_K612_ABI"; do
			   echo "$a" | cut -d. -f1,2; done) \
		 $(for c in $chroots; do srpt_chroot_line "$c"; done); do
		[ -L "$builddir/$s" ] && echo "build/$s -> $(readlink "$builddir/$s")"
	done
} | tee "$builddir/matrix-summary.out"
if [ -s "$builddir/matrix-findings.txt" ]; then
	echo
	echo "findings (full logs in build/<kver>/build.log):"
	cat "$builddir/matrix-findings.txt"
fi
exit $failed
