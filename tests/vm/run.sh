#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/run.sh - run the srpt-dkms VM tests in qemu on a Debian kernel.
#
# Usage: tests/vm/run.sh <6.1|6.12|7.3|6.12-debug|7.3-debug|full-kver> [options]
#
#   6.12-debug          the sanitizer kernel (KASAN, KFENCE, lockdep, UBSAN,
#                       DEBUG_OBJECTS, DMA-API debug, kmemleak), built from
#                       linux-source-6.12 by scripts/build-debug-kernel.sh on
#                       first use (20-30 min on 2 cores; cached). Our module
#                       and the self-test module are always built against it
#                       (W=1) into build/vm-devbuild/<kver>/; the guest fails
#                       the run on any sanitizer report and on a kmemleak
#                       leak from ib_srpt (see tests/vm/README.md)
#   7.3-debug           the same on 7.3 (linux-source-7.3 of trixie-backports,
#                       build-debug-kernel.sh --line 7.3): the manual lane
#                       for what only 7.x kernels have (LIO direct
#                       completion); not part of scripts/check.sh
#   --ko PATH           our ib_srpt.ko (.ko or .ko.xz). Default:
#                       build/<kver>/src/ib_srpt.ko (or build/<6.1|6.12|7.3>/...);
#                       for 6.x, if absent, built with scripts/devbuild.sh into
#                       build/vm-devbuild/<kver>/
#   --selftest-ko PATH  self-test module (repeatable). Default: every
#                       build/<kver>/tests/selftest/*.ko if present
#   --cases GLOBS       comma-separated globs matched against the case file names
#                       in tests/vm/cases/ (e.g. '0*', '001-*,2*', '*configfs*');
#                       default: all. An entry with a slash is the path of a
#                       case file outside cases/ (tests/vm/kbug/repro-*.sh)
#   --skip-cases GLOBS  leave out the cases matching these globs (applied
#                       after --cases; scripts/check.sh splits the sanitizer
#                       lane in two runs with --cases/--skip-cases)
#   --ref               test the in-kernel ib_srpt instead (validates the cases;
#                       known upstream bugs report XFAIL there)
#   --params STR        ib_srpt module parameters for the initial load
#   --quick             quick run: cases use fewer iterations (VMTEST_QUICK=1,
#                       see reps/is_quick in lib.sh)
#   --timeout S         hard limit for the whole qemu run (default 2700; 4200
#                       on a sanitizer kernel, whose whole quick lane took
#                       2733 s on 7.3-debug, 2026-12-07)
#   --case-timeout S    default per-case limit inside the guest (default 300;
#                       a case may override it with a "# vmtest-timeout: N" line)
#   --append STR        extra kernel command line (e.g. 'slub_debug=FZPU')
#   --mem MB, --smp N   guest memory (2048) and CPUs (2)
#   --tcg               do not use KVM even if /dev/kvm is usable (KVM is used
#                       only if a probe boot works; SRPT_VM_ACCEL=kvm|tcg forces)
#   --icount            instruction-count timing: single-threaded TCG with
#                       '-icount shift=3,sleep=off' (guest time counts executed
#                       instructions, 8 ns each, and skips idle time; used by
#                       scripts/benchmark.sh, see its header). Implies --tcg
#   --tool PATH         an extra binary for /tools in the guest, with the
#                       shared libraries it needs (repeatable; also with
#                       --no-tools)
#   --console           kernel messages at loglevel 7 on the console
#   --kmsg              always print the guest's whole dmesg at the end
#   --no-tools          do not build/copy tests/tools
#   --log FILE          console log (default build/vm-logs/<kver>-<mode>-<time>.log)
#   --handoff FILE      a hand-off control disk: FILE is made (4 KiB of
#                       zeros) and given to the guest as its last virtio
#                       disk (the only one of 4 KiB); writing "stop_before=CASE"
#                       into it makes the guest stop before CASE (or the first
#                       case after it) and go on to its final checks, so that
#                       another run can take the rest (scripts/check.sh, the
#                       sanitizer lane's hand-off; guest-init.sh)
#   --quiet             do not echo results live (only the summary)
#   --keep              keep the work directory (initramfs) for inspection
#
# Known kernel bugs (tests/vm/README.md, "Known kernel bugs we work around"):
# if the guest dies inside a case of an oops that matches one exactly, the
# guest is booted again and starts at that case (at most
# $SRPT_VM_KBUG_RETRIES times, default 2); each reboot is reported
# (KNOWN_KERNEL_BUG lines, summary, RESULT line). Any other crash fails.
# A guest that dies, or hangs for $SRPT_VM_BOOT_LIMIT s (default 300),
# before /init runs is booted once more, with a log line saying so.
#
# Environment: SRPT_VM_QEMU_ARGS, extra qemu arguments (split on blanks).
#
# Kernels are cached in $SRPT_VM_CACHE (scripts/kernels.conf), see
# fetch-kernel.sh. Guest side: guest-init.sh (common setup, cases, final
# checks), lib.sh (helpers for cases: read its header), cases/NNN-*.sh.
#
# Exit status: 0 all checks passed (SKIP/XFAIL allowed); 1 a check failed or
# the guest did not reach the end; 2 usage/setup error; 124 qemu timed out.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
# shellcheck source=scripts/kernels.conf
. "$TOP/scripts/kernels.conf"
CACHE=$SRPT_VM_CACHE
export SRPT_VM_CACHE=$CACHE

usage() { sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
case $1 in -h | --help | -*) usage ;; esac
KARG=$1
shift
KO="" SELFTEST=() GLOBS="" SKIP_GLOBS="" MODE=ours PARAMS="" TIMEOUT="" CASE_TIMEOUT=300
QUICK=0 APPEND="" MEM=2048 SMP=2 TCG=0 CONSOLE=0 KMSG=0 TOOLS=1 LOG="" QUIET=0 KEEP=0
ICOUNT=0 EXTRA_TOOLS=() HANDOFF=""
while [ $# -gt 0 ]; do
	case $1 in
	--ko) KO=$(readlink -f "$2"); shift 2 ;;
	--selftest-ko) SELFTEST+=("$(readlink -f "$2")"); shift 2 ;;
	--cases) GLOBS=$2; shift 2 ;;
	--skip-cases) SKIP_GLOBS=$2; shift 2 ;;
	--ref) MODE=ref; shift ;;
	--params) PARAMS=$2; shift 2 ;;
	--quick) QUICK=1; shift ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--case-timeout) CASE_TIMEOUT=$2; shift 2 ;;
	--append) APPEND=$2; shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	--smp) SMP=$2; shift 2 ;;
	--tcg) TCG=1; shift ;;
	--icount) ICOUNT=1; TCG=1; shift ;;
	--tool) EXTRA_TOOLS+=("$(readlink -f "$2")"); shift 2 ;;
	--console) CONSOLE=1; shift ;;
	--kmsg) KMSG=1; shift ;;
	--no-tools) TOOLS=0; shift ;;
	--log) LOG=$(readlink -f "$2"); shift 2 ;;
	--handoff) HANDOFF=$(readlink -f "$2"); shift 2 ;;
	--quiet) QUIET=1; shift ;;
	--keep) KEEP=1; shift ;;
	-h | --help) usage ;;
	*) echo "run.sh: unknown option $1" >&2; usage ;;
	esac
done
log() { echo "[vm] $*"; }
die() { echo "[vm] ERROR: $*" >&2; exit 2; }

missing=""
for t in qemu-system-x86_64:qemu-system-x86 /bin/busybox:busybox-static rdma:iproute2 \
	 depmod:kmod modinfo:kmod cpio:cpio xz:xz-utils zstd:zstd fio:fio sg_raw:sg3-utils \
	 timeout:coreutils flock:util-linux; do
	command -v "${t%%:*}" >/dev/null || missing="$missing ${t#*:}"
done
[ -e /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so ] ||
	ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-*.so >/dev/null 2>&1 || missing="$missing ibverbs-providers"
[ -z "$missing" ] || die "missing host packages:$missing (run scripts/install-deps.sh)"

# --- kernel ----------------------------------------------------------------------------
KBUILD=""
kout=$("$HERE/fetch-kernel.sh" "$KARG") || die "cannot fetch kernel $KARG"
eval "$kout"
[ -f "$KDIR/vmlinuz" ] || die "no $KDIR/vmlinuz"
case $KARG in
6.1 | 6.12 | 7.3) SHORT=$KARG ;;
*debug) SHORT=$KVER ;;
*) SHORT=$(echo "$KVER" | cut -d. -f1,2) ;;
esac
# A sanitizer kernel (kmemleak) gets a big log buffer, a log of every
# module's section addresses (guest-init.sh attributes the backtraces of
# leaks from modules unloaded by then with it) and kasan_multi_shot: KASAN
# otherwise reports only the first bad access of a boot, so one known
# kernel bug (tests/vm/README.md) would hide every later report.
SANITIZER=0
if grep -q '^CONFIG_DEBUG_KMEMLEAK=y' "$KDIR/config" 2>/dev/null; then
	SANITIZER=1
	APPEND="log_buf_len=32M kasan_multi_shot dyndbg=\"func move_module +p\"${APPEND:+ $APPEND}"
fi
if [ -z "$TIMEOUT" ]; then
	TIMEOUT=2700
	[ "$SANITIZER" = 0 ] || TIMEOUT=4200
fi
log "kernel $KVER ($KDIR)"

# --- our module ------------------------------------------------------------------------
first_file() { for f in "$@"; do [ -f "$f" ] && { echo "$f"; return 0; }; done; return 1; }
SRCV=""
if [ "$MODE" = ours ]; then
	if [ -z "$KO" ]; then
		KO=$(first_file "$TOP/build/$KVER/src/ib_srpt.ko" "$TOP/build/$SHORT/src/ib_srpt.ko" \
			"$TOP/build/$KVER/src/ib_srpt.ko.xz") || KO=""
	fi
	if [ -z "$KO" ]; then
		[ -n "$KBUILD" ] || [ -d "/usr/src/linux-headers-$KVER" ] ||
			die "no build/$KVER/src/ib_srpt.ko and no headers to build it (run 'make matrix' or pass --ko)"
		DB=$TOP/build/vm-devbuild/$KVER
		log "no module in build/$KVER/src: building with scripts/devbuild.sh into $DB"
		mkdir -p "$DB"
		# A kernel built here (KBUILD): W=1, the self-test module too,
		# and the test hooks (SRPT_DEBUG_HOOKS=y: module parameters
		# that cases 208, 313, 314 and 315 use for deterministic race
		# and resource checks on the sanitizer kernel).
		dbargs=()
		[ -z "$KBUILD" ] || dbargs=(W=1 SRPT_DEBUG_HOOKS=y)
		(flock 9; SRPT_KDIR=$KBUILD SRPT_DEVBUILD_SELFTEST=${KBUILD:+1} \
			"$TOP/scripts/devbuild.sh" "$KVER" "$DB" "${dbargs[@]}") \
			9>"$TOP/build/vm-devbuild/.lock-$KVER" > "$DB.log" 2>&1 ||
			{ tail -n 30 "$DB.log" >&2; die "devbuild for $KVER failed (log $DB.log)"; }
		KO=$DB/src/ib_srpt.ko
		if [ -n "$KBUILD" ]; then
			nw=$(grep -c -E 'warning:|error:' "$DB.log" || true)
			log "built against $KBUILD with W=1: $nw warning(s) (log $DB.log)"
			[ "$nw" = 0 ] || grep -E 'warning:|error:' "$DB.log" | head -n 10 | sed 's/^/[vm]   /'
			[ ${#SELFTEST[@]} -gt 0 ] || for f in "$DB"/tests/selftest/*.ko; do
				[ -f "$f" ] && SELFTEST+=("$f")
			done
		fi
	fi
	[ -f "$KO" ] || die "no such module: $KO"
	vm=$(modinfo -F vermagic "$KO" | awk '{print $1}')
	[ "$vm" = "$KVER" ] || die "$KO was built for '$vm', not $KVER"
	SRCV=$(modinfo -F srcversion "$KO")
	newest=$(find "$TOP/src" "$TOP/include" -newer "$KO" -name '*.[ch]' 2>/dev/null | head -n 3 | tr '\n' ' ')
	[ -z "$newest" ] || log "WARNING: $KO is older than: $newest"
	log "module $KO srcversion=$SRCV version=$(modinfo -F version "$KO" 2>/dev/null)"
else
	log "mode ref: in-kernel ib_srpt"
fi
# every self-test module (ib_srpt_selftest.ko, srpt_ibcm_init.ko) of the
# first build directory that has any (build/<short> may link to the other)
if [ ${#SELFTEST[@]} = 0 ]; then
	for d in "$TOP/build/$KVER" "$TOP/build/$SHORT"; do
		for f in "$d"/tests/selftest/*.ko; do
			[ -f "$f" ] && SELFTEST+=("$f")
		done
		[ ${#SELFTEST[@]} = 0 ] || break
	done
fi
[ ${#SELFTEST[@]} = 0 ] || log "self-test module: ${SELFTEST[*]}"

# --- tools -------------------------------------------------------------------------------
TOOL_FILES=()
if [ "$TOOLS" = 1 ] && [ -f "$TOP/tests/tools/Makefile" ]; then
	mkdir -p "$TOP/build"
	if (flock 9; make -s -C "$TOP/tests/tools") 9>"$TOP/build/.tools.lock" > "$TOP/build/tools.log" 2>&1; then
		while IFS= read -r f; do
			[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
			TOOL_FILES+=("$f")
		done < <(find "$TOP/tests/tools" -type f -perm -u+x ! -name '*.ko' ! -name '*.so' ! -name '*.sh' | sort)
		log "tools: ${#TOOL_FILES[@]} binaries from tests/tools"
	else
		tail -n 20 "$TOP/build/tools.log" >&2
		die "make -C tests/tools failed (log build/tools.log)"
	fi
fi
for f in "${EXTRA_TOOLS[@]}"; do
	[ -x "$f" ] || die "--tool $f: not an executable file"
	TOOL_FILES+=("$f")
done

# --- cases ---------------------------------------------------------------------------------
CASE_FILES=()
# A --cases entry with a slash is a case file outside cases/ (e.g. the
# reproducers in tests/vm/kbug/).
IFS=, read -ra gl <<< "$GLOBS"
for g in "${gl[@]}"; do
	case $g in */*) [ -f "$g" ] || die "no case file $g"; CASE_FILES+=("$(readlink -f "$g")") ;; esac
done
matches_glob() { # matches_glob FILE GLOBS: FILE's name (with or without .sh) matches one of GLOBS
	local g gl
	IFS=, read -ra gl <<< "$2"
	for g in "${gl[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $g ]] || [[ $1 == $g.sh ]] && return 0
	done
	return 1
}
for f in "$HERE"/cases/*.sh; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	[ -z "$GLOBS" ] || matches_glob "$b" "$GLOBS" || continue
	[ -z "$SKIP_GLOBS" ] || ! matches_glob "$b" "$SKIP_GLOBS" || continue
	CASE_FILES+=("$f")
done
# fail closed: a run without cases would pass on the setup checks alone
[ ${#CASE_FILES[@]} -gt 0 ] || die "no case matches '${GLOBS:-*}'${SKIP_GLOBS:+ but not '$SKIP_GLOBS'} in $HERE/cases"
log "cases: $(for f in "${CASE_FILES[@]}"; do basename "$f" .sh; done | tr '\n' ' ')"

# The Debian root with the real targetcli-fb (build-debroot.sh: cached; the
# first build takes minutes) is made and attached only when a selected case
# needs it ("requires targetcli" or "have targetcli" in lib.sh).
DEBROOT=""
if grep -q -E '^[[:space:]]*(requires|have) targetcli' "${CASE_FILES[@]}"; then
	t0=$(date +%s)
	DEBROOT=$("$HERE/build-debroot.sh") || die "cannot build the Debian root (tests/vm/build-debroot.sh)"
	log "Debian root for targetcli: $DEBROOT ($(( $(date +%s) - t0 )) s)"
fi

# --- initramfs -------------------------------------------------------------------------------
WORK=$(mktemp -d /tmp/srpt-vm.XXXXXX)
# shellcheck disable=SC2064
[ "$KEEP" = 1 ] || trap "rm -rf '$WORK'" EXIT
{
	echo "SRPT_MODE=$MODE"
	echo "SRPT_EXPECT_SRCVERSION='$SRCV'"
	echo "SRPT_PARAMS='$PARAMS'"
	echo "CASE_TIMEOUT=$CASE_TIMEOUT"
	echo "VERBOSE_KMSG=$KMSG"
	echo "VMTEST_QUICK=$QUICK"
	echo "VMTEST_SANITIZER=$SANITIZER"
	echo "VMTEST_DEBROOT=${DEBROOT:+1}"
	echo "VMTEST_HZ=$(sed -n 's/^CONFIG_HZ=//p' "$KDIR/config" 2>/dev/null)"
} > "$WORK/vmtest.conf"
args=(--kver "$KVER" --kdir "$KDIR" --out "$WORK/initramfs.cpio" --conf "$WORK/vmtest.conf" --mode "$MODE")
[ "$MODE" = ours ] && args+=(--ko "$KO")
for f in "${SELFTEST[@]}"; do args+=(--selftest-ko "$f"); done
for f in "${TOOL_FILES[@]}"; do args+=(--tool "$f"); done
for f in "${CASE_FILES[@]}"; do args+=(--case "$f"); done
# rtslib-fb loads iscsi_target_mod at every saveconfig and clearconfig
[ -z "$DEBROOT" ] || args+=(--mod iscsi_target_mod)
t0=$(date +%s)
"$HERE/build-initramfs.sh" "${args[@]}" || die "initramfs build failed"
log "initramfs built in $(( $(date +%s) - t0 )) s"

# --- boot ---------------------------------------------------------------------------------------
if [ -z "$LOG" ]; then
	mkdir -p "$TOP/build/vm-logs"
	LOG=$TOP/build/vm-logs/$KVER-$MODE-$(date +%Y%m%d-%H%M%S)-$$.log
fi
mkdir -p "$(dirname "$LOG")"
# shellcheck disable=SC2054 # the comma is part of the qemu argument
ACCEL=(-accel tcg,thread=multi)
CPU=max
KVM_CPU=${SRPT_VM_KVM_CPU:-max,-arch-capabilities}
# /dev/kvm may exist but be unusable (nested virtualization on this kind of
# host: the guest hangs before the first kernel message). Probe once per host
# boot: KVM counts as usable if the kernel prints its banner within 20 s.
kvm_usable() {
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	# shellcheck disable=SC2155 # no boot_id still gives a usable stamp name
	local stamp=$CACHE/kvm-probe.$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
	if [ ! -f "$stamp" ]; then
		timeout 20 qemu-system-x86_64 -machine q35 -accel kvm -cpu "$KVM_CPU" -smp 1 -m 256 \
			-nographic -no-reboot -nic none -kernel "$KDIR/vmlinuz" \
			-append 'console=ttyS0 earlyprintk=ttyS0 panic=-1 loglevel=8 rdinit=/nonexistent' \
			< /dev/null > "$stamp.out" 2>&1 || true
		if grep -a -q 'Linux version' "$stamp.out"; then
			echo yes > "$stamp"
		else
			echo no > "$stamp"
		fi
		log "KVM probe: $(cat "$stamp") (cached in $stamp)"
	fi
	[ "$(cat "$stamp")" = yes ]
}
ICOUNT_ARGS=()
if [ "$ICOUNT" = 1 ]; then
	# icount needs one TCG thread for all vCPUs (qemu refuses it with
	# MTTCG) and cannot work with KVM.
	# shellcheck disable=SC2054 # the commas are part of the qemu arguments
	ACCEL=(-accel tcg,thread=single)
	# shellcheck disable=SC2054 # as above
	ICOUNT_ARGS=(-icount shift=3,sleep=off)
else
	case ${SRPT_VM_ACCEL:-auto} in
	kvm) ACCEL=(-accel kvm); CPU=$KVM_CPU ;;
	tcg) ;;
	*) if [ "$TCG" = 0 ] && kvm_usable; then ACCEL=(-accel kvm); CPU=$KVM_CPU; fi ;;
	esac
fi
LOGLEVEL=4
[ "$CONSOLE" = 1 ] && LOGLEVEL=7
CMDLINE="console=ttyS0 panic=-1 loglevel=$LOGLEVEL mitigations=off rdinit=/init${APPEND:+ $APPEND}"
QEMU=(qemu-system-x86_64 -machine q35 "${ACCEL[@]}" "${ICOUNT_ARGS[@]}" -cpu "$CPU" -smp "$SMP" -m "$MEM"
      -nographic -no-reboot -nic none -pidfile "$WORK/qemu.pid"
      -kernel "$KDIR/vmlinuz" -initrd "$WORK/initramfs.cpio"
      -drive "file=$WORK/fio.img,format=raw,if=virtio,readonly=on")
# the Debian root: the second virtio disk, /dev/vdb in the guest
[ -z "$DEBROOT" ] || QEMU+=(-drive "file=$DEBROOT,format=raw,if=virtio,readonly=on")
# the hand-off control disk (--handoff), last: the others keep their names
# (/dev/vda, /dev/vdb: virtio disks are named in the order given here)
if [ -n "$HANDOFF" ]; then
	head -c 4096 /dev/zero > "$HANDOFF"
	QEMU+=(-drive "file=$HANDOFF,format=raw,if=virtio,readonly=on")
fi
# extra qemu arguments from the environment (scripts/benchmark.sh
# --profile: its plugin and a disk for the guest's symbol table)
# shellcheck disable=SC2206 # split on blanks on purpose
[ -z "${SRPT_VM_QEMU_ARGS:-}" ] || QEMU+=($SRPT_VM_QEMU_ARGS)
log "qemu ${ACCEL[*]}${ICOUNT_ARGS:+ ${ICOUNT_ARGS[*]}} -smp $SMP -m $MEM, timeout ${TIMEOUT}s, log $LOG"
us() { local t=$EPOCHREALTIME; echo $(( 10#${t/./} )); }
T_START=$(us)
# A guest that has not reached /init after BOOT_LIMIT seconds is stopped
# (see boot): once in 30-odd boots the sanitizer kernel hangs in early boot
# after KASAN reports during identify_cpu() (KBUG-4 in tests/vm/README.md),
# and would otherwise hold the run until its timeout. A normal boot reaches
# /init in 5-30 s, 90 s on a loaded host.
BOOT_LIMIT=${SRPT_VM_BOOT_LIMIT:-300}
boot_watchdog() { # boot_watchdog: background; stops qemu if /init never ran
	local waited=0
	while [ $waited -lt "$BOOT_LIMIT" ]; do
		sleep 5
		waited=$((waited + 5))
		grep -a -q 'VMTEST PHASE init_start' "$LOG" 2>/dev/null && return 0
	done
	echo "no /init after ${BOOT_LIMIT}s" > "$WORK/boot-hung"
	kill "$(cat "$WORK/qemu.pid" 2>/dev/null)" 2>/dev/null
	return 0
}
boot_once() { # boot_once [EXTRA-CMDLINE]: one qemu run, console into $LOG, status in $qrc
	local left=$(( TIMEOUT - ($(us) - T_START) / 1000000 )) wd
	[ $left -gt 0 ] || left=1
	start=$(us)
	rm -f "$WORK/boot-hung" "$WORK/qemu.pid"
	boot_watchdog &
	wd=$!
	set +e
	timeout -k 10 "$left" "${QEMU[@]}" -append "$CMDLINE${1:+ $1}" < /dev/null 2>&1 |
		while IFS= read -r line; do
			line=${line%$'\r'}
			t=$(( $(us) - start ))
			printf '[%4d.%03d] %s\n' $((t / 1000000)) $(((t / 1000) % 1000)) "$line" >> "$LOG"
			if [ "$QUIET" = 0 ]; then
				case $line in
				*"VMTEST RESULT"* | *"VMTEST CASE_END"* | *"VMTEST DMESG_BAD"* | *"VMTEST DMESG_CTX"* | *"VMTEST DONE"* | *"VMTEST INFO "*" dmesg: "*)
					echo "  ${line#*VMTEST }" ;;
				esac
			fi
		done
	qrc=${PIPESTATUS[0]}
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	set -e
}
boot() { # boot [EXTRA-CMDLINE]
	boot_once "$@"
	# A guest that dies before /init runs is not a test result: under
	# multi-threaded TCG the 7.3 kernel occasionally oopses during early boot
	# (int3 while patching kernel text). Boot once more in that case.
	if [ -e "$WORK/boot-hung" ]; then
		log "guest hung before /init ($(cat "$WORK/boot-hung"); $(grep -a -c 'BUG: KASAN' "$LOG") KASAN report(s) in early boot; log kept as $LOG.early$nboot): booting again"
		echo "VMTEST RETRY early-boot-hang log=$LOG.early$nboot" >> "$LOG"
		mv "$LOG" "$LOG.early$nboot"
		boot_once "$@"
		if [ -e "$WORK/boot-hung" ]; then
			log "guest hung before /init again ($(cat "$WORK/boot-hung")): giving up"
		fi
	elif [ "$qrc" != 124 ] && [ "$qrc" != 137 ] && ! grep -a -q 'VMTEST PHASE init_start' "$LOG"; then
		log "guest died before /init (qemu exit $qrc; log kept as $LOG.early$nboot): booting again"
		mv "$LOG" "$LOG.early$nboot"
		boot_once "$@"
	fi
}

# kbug_match LOG: if the guest died of one of the known kernel bugs listed in
# tests/vm/README.md ("Known kernel bugs we work around"), print its id and
# the oops line that identifies it. The match is deliberately narrow: the
# log must hold exactly one oops, and that oops must carry the whole
# signature and mention ib_srpt nowhere (the module list excepted): a crash
# that may be ours is never retried.
kbug_match() {
	# (strip the time stamps of run.sh and of printk)
	sed 's/^\[[ 0-9.]*\] //; s/^\[[ 0-9.]*\] //' "$1" | awk '
	/\[#[0-9]+\]/ { oops++ }
	!started && /^(BUG: |Oops: |general protection fault|kernel BUG at)/ { started = 1 }
	started && !ended {
		# the module list (it may wrap) names ib_srpt without
		# meaning anything
		if ($0 ~ /^(Modules linked in:|Unloaded tainted modules:)/) modlist = 1
		else if (!(modlist && $0 ~ /^ / && $0 !~ /\+0x/)) modlist = 0
		if ($0 ~ /srpt/ && !modlist) ours = 1
		if ($0 ~ /^RIP: [0-9a-f]+:/ && rip == "") rip = $0
		if ($0 ~ /(^| )ib_poll_handler\+/) poll = 1
		if ($0 ~ /(^| )irq_poll_softirq\+/) softirq = 1
		if ($0 ~ /^---\[ end trace/) ended = 1
	}
	END {
		if (oops != 1 || ours) exit 1
		# KBUG-1: RDMA core, ib_poll_handler() re-arms a CQ that
		# ib_free_cq() freed in the meantime (rdma_rxe: rxe_req_notify_cq).
		if (rip ~ /:rxe_req_notify_cq\+/ && poll && softirq) {
			print "KBUG-1 " rip
			exit 0
		}
		exit 1
	}'
}
# kbug_case LOG: the case that was running when the guest died (empty if the
# guest died outside a case)
kbug_case() {
	local c
	c=$(grep -a -o 'VMTEST CASE_START [^ ]*' "$1" | tail -n 1 | awk '{print $3}')
	[ -n "$c" ] && ! grep -a -q "VMTEST CASE_END $c " "$1" && echo "$c"
}

KBUG_RETRIES=${SRPT_VM_KBUG_RETRIES:-2}
KBUG_SEEN=()
nboot=1
boot
while [ "$qrc" != 124 ] && [ "$qrc" != 137 ] && ! grep -a -q 'VMTEST DONE' "$LOG"; do
	kb=$(kbug_match "$LOG") || break
	kc=$(kbug_case "$LOG") || break
	[ -n "$kc" ] || break
	if [ ${#KBUG_SEEN[@]} -ge "$KBUG_RETRIES" ]; then
		log "known kernel bug ${kb%% *} in $kc again, but $KBUG_RETRIES reboots were used up: the run fails"
		break
	fi
	nboot=$((nboot + 1))
	line="VMTEST KNOWN_KERNEL_BUG ${kb%% *} case=$kc boot=$((nboot - 1)) log=$LOG.boot$((nboot - 1)) ${kb#* }"
	log "${line#VMTEST }"
	log "see tests/vm/README.md (Known kernel bugs we work around): boot $nboot starts again at $kc"
	KBUG_SEEN+=("${line#VMTEST }")
	mv "$LOG" "$LOG.boot$((nboot - 1))"
	# Keep what the earlier boots completed; the crashed case runs again.
	{
		[ -f "$LOG.done" ] && cat "$LOG.done"
		awk -v c="VMTEST CASE_START $kc " 'index($0, c) { exit } { print }' "$LOG.boot$((nboot - 1))"
		echo "$line"
	} > "$LOG.done.new"
	mv "$LOG.done.new" "$LOG.done"
	boot "vmtest.from=$kc"
done
if [ -f "$LOG.done" ]; then
	cat "$LOG.done" "$LOG" > "$LOG.all" && mv "$LOG.all" "$LOG" && rm -f "$LOG.done"
fi
wall=$(( ($(us) - T_START) / 1000000 ))

# --- summary -------------------------------------------------------------------------------------
res() { grep -o "VMTEST RESULT [^ ]* $1\b.*" "$LOG" | sed 's/^VMTEST RESULT //' || true; }
np=$(res PASS | grep -c . || true)
nf=$(res FAIL | grep -c . || true)
ns=$(res SKIP | grep -c . || true)
nx=$(res XFAIL | grep -c . || true)
echo "==== VM test summary: $KVER mode=$MODE (qemu exit $qrc, ${wall}s, ${ACCEL[1]}) ===="
grep -o 'VMTEST CASE_END .*' "$LOG" | sed 's/^VMTEST CASE_END /  /' || true
if [ "$nf" -gt 0 ]; then
	echo "---- failures ----"
	res FAIL | sed 's/^/  /'
fi
[ "$nx" -gt 0 ] && { echo "---- expected failures (--ref, upstream bugs) ----"; res XFAIL | sed 's/^/  /'; }
if [ ${#KBUG_SEEN[@]} -gt 0 ]; then
	echo "---- known kernel bugs worked around (guest rebooted, case run again; tests/vm/README.md) ----"
	printf '  %s\n' "${KBUG_SEEN[@]}"
fi
# Sanitizer reports of known bugs that the guest left out of its dmesg
# checks (drop_known_kbugs in guest-init.sh; the per-case and the final scan
# both print the line, hence sort -u).
kr=$(grep -o 'VMTEST KNOWN_KERNEL_BUG KBUG-[0-9]* case=.*(sanitizer report dropped.*' "$LOG" |
	sed 's/^VMTEST //' | sort -u || true)
if [ -n "$kr" ]; then
	echo "---- known kernel bugs: sanitizer reports left out of the dmesg checks (tests/vm/README.md) ----"
	printf '%s\n' "$kr" | sed 's/^/  /'
fi
rc=0
[ "$nf" -gt 0 ] && rc=1
if ! grep -q 'VMTEST DONE' "$LOG"; then
	echo "  guest did not reach the end (no VMTEST DONE): last lines:"
	tail -n 25 "$LOG" | sed 's/^/    /'
	rc=1
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "  qemu TIMED OUT after ${TIMEOUT}s"
	rc=124
fi
echo "RESULT $KVER $MODE: $np passed, $nf failed, $ns skipped, $nx xfail${KBUG_SEEN:+, ${#KBUG_SEEN[@]} known-kernel-bug reboot(s)}; wall ${wall}s; log $LOG"
exit $rc
