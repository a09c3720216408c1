#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh - the whole srpt-dkms test suite (`make check`). Run as root on a
# Debian 12 machine, from a fresh clone or a work tree.
#
# Usage: scripts/check.sh [--only STEP[,STEP...]] [--skip STEP[,STEP...]] [--list]
#
# Steps (in order; the list is fixed: a step whose entry point is missing
# fails, so that deleting a test directory cannot turn the suite green):
#   deps      scripts/install-deps.sh
#   matrix    make matrix            (modules for every kernel, build/<kver>/)
#   (lint, unit, fuzz, ofed, matrix and install run in the background
#   during the first VM run unless CHECK_SERIAL=1; their lines are printed
#   after it. Only the module of that VM run's kernel is built before it, by
#   the step matrix-<kernel>: scripts/matrix.sh <kernel>; matrix then builds
#   the rest. pkg runs in the background during the later VM runs; its
#   lines are printed at the end)
#   lint      make lint
#   unit      make -C tests/unit check
#   fuzz      make -C tests/fuzz check
#   ofed      tests/build/test-ofed.sh (build against a fake MLNX_OFED tree)
#   pkg       tests/pkg/run.sh
#   install   tests/build/test-install.sh (make install-kbuild into a private
#             root; make install-dkms in an overlay of matrix's trixie chroot;
#             make uninstall after each)
#   vm-6.1    tests/vm/run.sh 6.1 --quick  (VM tests with our module)
#   vm-7.3    tests/vm/run.sh 7.3 --quick
#   debug-kernel  waits for scripts/build-debug-kernel.sh, started in the
#             background (nice 15) right after deps: the sanitizer kernel,
#             about 20 min of CPU on 2 cores the first time, then cached
#   (the Debian root of the targetcli VM cases, tests/vm/build-debroot.sh,
#   is also made in the background from the start, before the first VM
#   run needs it; it has no step of its own: a failure shows in that run)
#   vm-6.12-debug tests/vm/run.sh 6.12-debug --quick (the cases on the
#             sanitizer kernel: KASAN, lockdep, UBSAN, ... and kmemleak;
#             all of them, or with CHECK_DEBUG_TAIL all but those of
#             vm-6.12-debug-tail).
#             With debug-kernel it runs in the background, next to the
#             stock lanes (see "The VM runs" below); its lines are printed
#             at the end
#   vm-6.12-debug-tail  only with CHECK_DEBUG_TAIL: the last cases of the
#             sanitizer lane in a second guest, after the stock lanes (see
#             "The VM runs" below)
#   vm-6.12-debug-handoff  only with CHECK_DEBUG_HANDOFF=1: the cases the
#             sanitizer lane has not reached when the stock lanes are
#             done, about half of its remaining time, in a second
#             sanitizer guest (the hand-off, see below)
#   (vm-6.12  tests/vm/run.sh 6.12 --quick: only with CHECK_VM_KERNELS; the
#             sanitizer kernel is built from the same Debian 6.12 sources,
#             and the stock 6.12 module is built by matrix and pkg)
#
# Every step's full output goes to $CHECK_LOG_DIR (default
# build/check-logs/<date>/<step>.log); the console gets one status line per
# step (and the tail of the log of a failed step). The last line is
# "N passed, N failed, N skipped". Exit status 0 only if nothing failed.
#
# Environment: CHECK_VM_KERNELS (default "6.1 7.3 6.12-debug"; a "*-debug"
# kernel is built in the background and waited for by the debug-kernel step),
# CHECK_VM_FULL=1 (full cases, with their soak counts, on every kernel;
# by default every kernel gets the quick run so that the suite fits in 60
# minutes on 2 cores),
# CHECK_SERIAL=1 (host steps before the VM runs instead of during the first,
# and the sanitizer lane after the stock lanes),
# CHECK_VM_ARGS (extra run.sh arguments), CHECK_DEBUG_TAIL (the cases
# of the sanitizer lane's second guest, see below), CHECK_DEBUG_HANDOFF=1
# (the hand-off, see below), CHECK_VM_TIMEOUT and
# CHECK_VM_DEBUG_TIMEOUT (qemu limit of a stock and of a sanitizer run, see
# below).
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
ONLY="" SKIP=""
while [ $# -gt 0 ]; do
	case $1 in
	--only) ONLY=",$2,"; shift 2 ;;
	--skip) SKIP=",$2,"; shift 2 ;;
	--list) sed -n '/^# Steps/,/^#$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-h | --help) sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "check.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

LOGDIR=${CHECK_LOG_DIR:-$TOP/build/check-logs/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$LOGDIR"
VM_KERNELS=${CHECK_VM_KERNELS:-6.1 7.3 6.12-debug}
VM_TIMEOUT=${CHECK_VM_TIMEOUT:-1200}
NPASS=0 NFAIL=0 NSKIP=0
FAILED=""
T_START=$(date +%s)

status() { # status STEP RESULT SECONDS [note]
	printf '[check] %-8s %-4s %5ss%s\n' "$1" "$2" "$3" "${4:+  $4}"
}

has_make_target() { # has_make_target TARGET [DIR] (reads make's database, runs nothing)
	{ make -C "${2:-.}" -pRrq : 2>/dev/null || true; } | grep -q "^$1:"
}

# step NAME COMMAND... : run, log, count
step() {
	local name=$1
	shift
	if [ -n "$ONLY" ] && [[ $ONLY != *",$name,"* ]]; then return 0; fi
	if [ -n "$SKIP" ] && [[ $SKIP == *",$name,"* ]]; then
		status "$name" SKIP 0 "(--skip)"
		NSKIP=$((NSKIP + 1))
		return 0
	fi
	local log=$LOGDIR/$name.log t0 rc
	t0=$(date +%s)
	echo "+ $*" > "$log"
	"$@" < /dev/null >> "$log" 2>&1
	rc=$?
	local dt=$(( $(date +%s) - t0 ))
	echo "+ exit status $rc after ${dt}s" >> "$log"
	if [ $rc = 0 ]; then
		status "$name" PASS "$dt" "$(step_note "$name" "$log")"
		NPASS=$((NPASS + 1))
	else
		status "$name" FAIL "$dt" "exit $rc, log $log"
		grep -a -E '^(RESULT|  .* FAIL|FAIL)|VMTEST RESULT .* FAIL' "$log" | head -n 20 | sed 's/^/    /'
		# the kernel log lines of the first case that had any (with the
		# lines after the first one), as the guest printed them
		grep -a -E '^  DMESG_(BAD|CTX) ' "$log" | head -n 50 | sed 's/^/    /'
		# the kernel log of the first failed check, at every level (the
		# guest prints it with the FAIL: an I/O error is not a warning)
		grep -a -E '^  INFO [^ ]+ dmesg: ' "$log" | head -n 40 | sed 's/^/    /'
		tail -n 15 "$log" | sed 's/^/    | /'
		NFAIL=$((NFAIL + 1))
		FAILED="$FAILED $name"
	fi
}
missing_step() { # missing_step NAME ENTRY: the step's entry point is missing
	if [ -n "$ONLY" ] && [[ $ONLY != *",$1,"* ]]; then return 0; fi
	if [ -n "$SKIP" ] && [[ $SKIP == *",$1,"* ]]; then
		status "$1" SKIP 0 "(--skip)"
		NSKIP=$((NSKIP + 1))
		return 0
	fi
	status "$1" FAIL 0 "missing: $2"
	NFAIL=$((NFAIL + 1))
	FAILED="$FAILED $1"
}
step_note() { # one-line summary of a passed step, if its log has one
	case $1 in
	vm-*) grep -a '^RESULT ' "$2" | tail -n 1 | sed 's/; log .*//' ;;
	debug-kernel) grep -a -E '^build-debug-kernel: (built|cached)' "$2" | tail -n 1 ;;
	*) grep -a -E -i '^[0-9]+ passed|passed, [0-9]+ failed|^# (pass|fail)' "$2" | tail -n 1 ;;
	esac
}

echo "[check] srpt-dkms test suite in $TOP (logs: $LOGDIR)"

if [ -x scripts/install-deps.sh ]; then
	step deps scripts/install-deps.sh
else
	missing_step deps scripts/install-deps.sh
fi

# The sanitizer kernel (about 20 minutes of CPU the first time on 2 cores,
# then cached) is built in the background from here on, at low priority, so
# that it uses what the following steps leave idle (downloads, chroot
# creation, guests waiting for I/O). The debug-kernel step below waits for it.
DK_RC=$LOGDIR/debug-kernel.rc
DK_LOG=$LOGDIR/debug-kernel.bg.log
if [[ " $VM_KERNELS " == *"-debug "* ]] && { [ -z "$ONLY" ] || [[ $ONLY == *",debug-kernel,"* ]] ||
						[[ $ONLY == *",vm-"*"-debug,"* ]] ||
						[[ $ONLY == *",vm-"*"-debug-tail,"* ]]; }; then
	( nice -n 15 scripts/build-debug-kernel.sh < /dev/null > "$DK_LOG" 2>&1
	  echo $? > "$DK_RC" ) &
	DK_PID=$!
fi
# The Debian root of the VM cases that run the real targetcli
# (tests/vm/build-debroot.sh: about 1.5 minutes the first time, mostly
# downloads and dpkg; then cached) is made in the background as well; the
# first VM run that needs it waits for it (flock) instead of making it.
if [ -n "${VM_KERNELS// /}" ] && [ -x tests/vm/build-debroot.sh ] &&
   { [ -z "$ONLY" ] || [[ $ONLY == *",vm-"* ]]; }; then
	( nice -n 15 tests/vm/build-debroot.sh < /dev/null > "$LOGDIR/debroot.bg.log" 2>&1 ) &
fi
wait_debug_kernel() { # the debug-kernel step: wait for the background build
	[ -n "${DK_PID:-}" ] || { echo "debug kernel build was not started"; return 1; }
	# (polled: this may run in a background group, which cannot wait for
	# a child of the main shell)
	while [ ! -s "$DK_RC" ] && kill -0 "$DK_PID" 2>/dev/null; do sleep 5; done
	sleep 1
	cat "$DK_LOG"
	return "$(cat "$DK_RC" 2>/dev/null || echo 1)"
}

# In the background mode below, only the first VM run's module is built
# here (about 20 s instead of 150); matrix builds the other kernels in the
# background, after the other host steps and one job at a time, and is
# joined before the second VM run, which needs its module.
VM_FIRST=$(echo $VM_KERNELS | cut -d' ' -f1)
MATRIX_BG=""
if ! has_make_target matrix; then
	missing_step matrix "the matrix target of the Makefile"
elif [ "${CHECK_SERIAL:-0}" = 1 ] || [ -z "$VM_FIRST" ]; then
	step matrix make matrix
else
	case $VM_FIRST in
	*-debug) ;;	# run.sh builds that module itself
	*) step "matrix-$VM_FIRST" scripts/matrix.sh "$VM_FIRST" ;;
	esac
	MATRIX_BG=$VM_FIRST
fi

# The host steps (lint, unit, fuzz, ofed: about 4 minutes of mostly one
# CPU, then the rest of matrix and install: about 6 minutes) run in the
# background, at nice 5 (beside the sanitizer lane, which the second VM
# run waits for no more than for these), during the first VM run: a guest
# keeps the 2 cores only 50-75 % busy (it waits for timeouts, disconnects
# and its own I/O), so this takes about 7 minutes off the suite. Their status lines are
# printed when they are joined, after that VM run. CHECK_SERIAL=1 runs them
# one after the other before the VM runs.
# Not better (tried 2026-12-07, c2a7830, reverted): the host steps and pkg
# in one group at nice 10, the second stock run waiting only for its
# module. The stock lanes were done after 1640 s instead of about 2200,
# but the group, starved beside them, left pkg for the sanitizer lane's
# last 25 minutes, and nice does not protect that guest: its cases ran
# 1.4-2.2 times slower than alone next to pkg at nice 10 (300-io-integrity
# 278 s against 176, 307-short-read 46 against 21). At 47 minutes it had
# 10 minutes of its own time left; stopped. Whatever runs beside the
# sanitizer lane costs it about as much CPU as it takes, so its last part
# is left to it alone.
host_steps() {
	if has_make_target lint; then
		step lint make lint
	else
		missing_step lint "the lint target of the Makefile"
	fi

	if [ -f tests/unit/Makefile ]; then
		step unit make -C tests/unit check
	else
		missing_step unit tests/unit/Makefile
	fi

	if [ -f tests/fuzz/Makefile ]; then
		step fuzz make -C tests/fuzz check
	else
		missing_step fuzz tests/fuzz/Makefile
	fi

	# Build-system tests: building against an MLNX_OFED-like tree (fake tree).
	if [ -f tests/build/test-ofed.sh ]; then
		step ofed sh tests/build/test-ofed.sh
	else
		missing_step ofed tests/build/test-ofed.sh
	fi

	# last: the first VM run already has its module
	if [ -n "$MATRIX_BG" ]; then
		step matrix env SRPT_MATRIX_EXCEPT="$MATRIX_BG" SRPT_MATRIX_APPEND=1 \
			SRPT_MATRIX_JOBS=1 scripts/matrix.sh
	fi

	# after matrix: the dkms half uses its trixie-backports chroot
	if [ -f tests/build/test-install.sh ]; then
		step install sh tests/build/test-install.sh
	else
		missing_step install tests/build/test-install.sh
	fi
}
# The packaging tests (install, build and purge in chroots of Debian 11, 12
# and 13: about 10 minutes of mostly one CPU) need no module of ours, so
# they run in a second background group, during the VM runs after the
# first one, and are joined at the end. In the first group they would make
# the second VM run wait for them.
pkg_steps() {
	if [ -x tests/pkg/run.sh ]; then
		step pkg tests/pkg/run.sh
	elif [ -f tests/pkg/run.sh ]; then
		step pkg bash tests/pkg/run.sh
	else
		missing_step pkg tests/pkg/run.sh
	fi
}

# bg_start NAME FUNCTION [NICE]: run the steps of FUNCTION in the background
# at nice 10 (or NICE); their status lines and counts are taken in by bg_join NAME.
declare -A BG_PID=()
bg_start() { # bg_start NAME FUNCTION [NICE, default 10]
	( renice -n "${3:-10}" -p "$BASHPID" > /dev/null 2>&1 || true
	  NPASS=0 NFAIL=0 NSKIP=0 FAILED=""
	  "$2"
	  echo "$NPASS $NFAIL $NSKIP$FAILED" > "$LOGDIR/$1.counts" ) > "$LOGDIR/$1.out" 2>&1 < /dev/null &
	BG_PID[$1]=$!
}
bg_join() { # bg_join NAME: print the group's results, count them
	local pid c
	pid=${BG_PID[$1]:-}
	[ -n "$pid" ] || return 0
	wait "$pid" || true
	BG_PID[$1]=""
	cat "$LOGDIR/$1.out"
	c=$(cat "$LOGDIR/$1.counts" 2>/dev/null) || c="0 1 0 $1"
	set -- $c
	NPASS=$((NPASS + $1)) NFAIL=$((NFAIL + $2)) NSKIP=$((NSKIP + $3))
	shift 3
	[ $# = 0 ] || FAILED="$FAILED $*"
}
BG_MODE=1
if [ "${CHECK_SERIAL:-0}" = 1 ] || [ -z "${VM_KERNELS// /}" ]; then
	BG_MODE=0
	host_steps
	pkg_steps
else
	echo "[check] lint, unit, fuzz, ofed${MATRIX_BG:+, matrix} and install run in the background during the first VM run, pkg during the later ones"
	bg_start host-steps host_steps 5
fi
# after the first VM run: take in the first group, start the second
join_host_steps() {
	bg_join host-steps
	if [ "$BG_MODE" = 1 ] && [ -z "${PKG_STARTED:-}" ]; then
		PKG_STARTED=1
		bg_start pkg-steps pkg_steps
	fi
}

# The VM runs: every case on every kernel, in quick mode (fewer iterations,
# see reps in tests/vm/lib.sh) unless CHECK_VM_FULL=1.
#
# The sanitizer lane (a "*-debug" kernel: about 30 minutes, the longest
# step) runs in a background group of its own, at nice 5, from the start:
# it waits for the debug kernel (the debug-kernel step) and then runs next
# to the stock lanes, which run one after the other in the foreground at
# normal priority (their cases that depend on timing, such as filling a
# send queue, get the CPU first). A stock guest keeps about one CPU busy,
# the sanitizer guest one and a half, and both spend much of their time
# waiting (timeouts, disconnects, their own I/O): in series the suite took
# 60 minutes, side by side it fits with room to spare. CHECK_SERIAL=1 runs
# every lane after the other.
#
# Each run's qemu limit: CHECK_VM_TIMEOUT (default 1200 s for a quick
# stock run, 1800 s for a full one), the sanitizer lane
# CHECK_VM_DEBUG_TIMEOUT (default 3500 s: it runs 3-6 times slower and,
# next to the stock lanes, with less CPU). A run that is slow is reported
# by the total time, not failed by a limit it would not need.
#
# The sanitizer lane is the longest path of the suite. Its last cases can
# be left out of the background guest (run.sh --skip-cases) and run in a
# second sanitizer guest, in the foreground, after the stock lanes (step
# vm-<kernel>-tail): CHECK_DEBUG_TAIL=GLOBS (DEBUG_TAIL_DEFAULT when unset;
# empty: no split; an --only without the tail step does not split either;
# CHECK_SERIAL=1 never splits). The default is no split: tried on
# 2026-12-04 with the tails 31x+400 and 305-319+400, the second guest took
# CPU from the first one instead of using idle time (the 2 cores are
# saturated while pkg runs), and the suite got slower: 3414 s in a
# clean-clone run, then CI's run of 563e539 hit the first guest's qemu
# limit at 3500 s (tests/vm/README.md).
DEBUG_TAIL_DEFAULT=''
quick=--quick
[ "${CHECK_VM_FULL:-0}" = 1 ] && quick=""
vm_timeout() { # vm_timeout KERNEL
	case $1 in
	*-debug) echo "${CHECK_VM_DEBUG_TIMEOUT:-3500}" ;;
	*) if [ -n "$quick" ]; then echo "$VM_TIMEOUT"; else echo "${CHECK_VM_TIMEOUT:-1800}"; fi ;;
	esac
}
vm_lane() { # vm_lane KERNEL: the debug-kernel step first for a sanitizer kernel
	local split=()
	case $1 in
	*-debug)
		step debug-kernel wait_debug_kernel
		[ -z "${DEBUG_TAIL:-}" ] || split=(--skip-cases "$DEBUG_TAIL")
		[ -z "${HANDOFF_CTL:-}" ] || split=(--handoff "$HANDOFF_CTL")
		;;
	esac
	# shellcheck disable=SC2086
	step "vm-$1" tests/vm/run.sh "$1" --timeout "$(vm_timeout "$1")" $quick \
		"${split[@]}" ${CHECK_VM_ARGS:-}
}
debug_tail() { # debug_tail KERNEL: the cases DEBUG_TAIL on the sanitizer kernel
	wait_debug_kernel > /dev/null || { echo "the debug kernel build failed"; return 1; }
	# shellcheck disable=SC2086
	tests/vm/run.sh "$1" --timeout "$(vm_timeout "$1")" $quick \
		--cases "$DEBUG_TAIL" ${CHECK_VM_ARGS:-}
}
# The hand-off (CHECK_DEBUG_HANDOFF=1; off by default, see below; never with
# a static tail, CHECK_SERIAL=1, --only or a CHECK_VM_ARGS that picks
# cases): the sanitizer lane's guest gets a control disk (run.sh
# --handoff). Once the stock lanes are done, the cases the lane has not
# reached yet are split in two by their run times in this run's stock
# lanes (CASE_END lines of vm-6.1 and vm-7.3, the larger of the two; a
# case without one counts 30 s): the guest keeps the first part, and a
# second sanitizer guest, at the lane's nice 5, runs the rest (step
# vm-<kernel>-handoff) from the first case of that part on, which the
# first guest is told to stop before ("stop_before=CASE" on the control
# disk, read before every case). Unlike a tail fixed in advance, the split
# is made when only the sanitizer lane and pkg (nice 10) are left, from
# where the lane really is: the second guest takes the CPU the first one
# leaves idle (a guest keeps about 1.2 of the 2 cores busy) instead of
# CPU the stock lanes need. The first part keeps the case after the
# running one (the guest may already have started it), and the second
# guest's boot counts HANDOFF_BOOT seconds; no hand-off if that gains
# nothing. Off by default: on 2 cores it made the suite slower (a
# clean-clone run of 7ae5392, 2026-12-06, stopped after 53 minutes with
# the first guest 7 cases from its end): two 2-vCPU TCG guests on 2 busy
# cores each ran 2.2-2.7 times slower than alone, so together they moved
# on more slowly than one guest alone (tests/vm/README.md, "Hand-off").
HANDOFF_BOOT=20
handoff_split() { # handoff_split KERNEL: print the cases for a second guest, if any
	local k
	local lane=$LOGDIR/vm-$1.log stock=()
	for k in $VM_KERNELS; do
		case $k in *-debug) ;; *) [ -s "$LOGDIR/vm-$k.log" ] && stock+=("$LOGDIR/vm-$k.log") ;; esac
	done
	if [ ! -f "$lane" ]; then
		echo "(the lane has not started: its kernel is not built yet?)" >&2
		return 0
	elif grep -a -q '^  DONE ' "$lane"; then
		echo "(the lane is done)" >&2
		return 0
	fi
	# shellcheck disable=SC2012 # case names: no blanks
	ls tests/vm/cases/ | sed -n 's/\.sh$//p' |
	awk -v boot="$HANDOFF_BOOT" '
	FILENAME != file { f++; file = FILENAME }
	f == 1 && $1 == "CASE_END" { ended[$2] = 1; next }
	f > 1 && f < nf && $1 == "CASE_END" {
		t = $4; sub(/s$/, "", t); t += 0
		if (t > w[$2]) w[$2] = t
		next
	}
	f == nf { c[++n] = $1 }
	END {
		for (i = 1; i <= n; i++) if (!(c[i] in ended)) r[++m] = c[i]
		for (i = 1; i <= m; i++) if (!(r[i] in w)) w[r[i]] = 30
		# r[1] runs now (about half of it left); r[2] stays too
		total = w[r[1]] / 2
		for (i = 2; i <= m; i++) total += w[r[i]]
		best = total; bj = 0
		for (j = 3; j <= m; j++) {
			a = w[r[1]] / 2
			for (i = 2; i < j; i++) a += w[r[i]]
			b = boot
			for (i = j; i <= m; i++) b += w[r[i]]
			x = a > b ? a : b
			if (x < best) { best = x; bj = j }
		}
		if (!bj) {
			printf "(the lane is near its end: %.0f stock-lane seconds left)\n", total > "/dev/stderr"
			exit
		}
		printf "%s", r[bj]
		for (i = bj + 1; i <= m; i++) printf ",%s", r[i]
		printf "\n"
		printf "(%.0f of %.0f stock-lane seconds left to the lane)\n", best, total > "/dev/stderr"
	}' nf=$((2 + ${#stock[@]})) "$lane" "${stock[@]}" -
}
debug_handoff() { # debug_handoff KERNEL: the hand-off step (see above)
	local cases est
	cases=$(handoff_split "$1" 2> "$LOGDIR/handoff.est")
	est=$(cat "$LOGDIR/handoff.est")
	if [ -z "$cases" ]; then
		echo "[check] hand-off: none $est"
		return 0
	fi
	printf 'stop_before=%s\n' "${cases%%,*}" |
		dd of="$HANDOFF_CTL" conv=notrunc status=none
	echo "[check] hand-off: a second sanitizer guest runs ${cases//,/ } $est"
	# shellcheck disable=SC2086
	step "vm-$1-handoff" nice -n 5 tests/vm/run.sh "$1" --timeout "$(vm_timeout "$1")" \
		$quick --cases "$cases" ${CHECK_VM_ARGS:-}
}
debug_lanes() {
	local k
	for k in $VM_KERNELS; do
		case $k in *-debug) vm_lane "$k" ;; esac
	done
}
if [ "$BG_MODE" = 1 ] && [[ " $VM_KERNELS " == *"-debug "* ]]; then
	echo "[check] the sanitizer lane runs in the background next to the stock lanes; its lines are printed at the end"
	DEBUG_BG=1
	DEBUG_TAIL=${CHECK_DEBUG_TAIL-$DEBUG_TAIL_DEFAULT}
	# --only without the tail step: every case in the one guest
	if [ -n "$ONLY" ] && [[ $ONLY != *",vm-"*"-debug-tail,"* ]]; then DEBUG_TAIL=""; fi
	if [ -z "$DEBUG_TAIL" ] && [ "${CHECK_DEBUG_HANDOFF:-0}" = 1 ] && [ -z "$ONLY" ] &&
	   [[ " ${CHECK_VM_ARGS:-} " != *" --cases "* ]] &&
	   [[ " ${CHECK_VM_ARGS:-} " != *" --skip-cases "* ]]; then
		HANDOFF_CTL=$LOGDIR/handoff.ctl
	fi
	bg_start debug-lane debug_lanes 5
fi
for k in $VM_KERNELS; do
	case $k in *-debug) [ -n "${DEBUG_BG:-}" ] && continue ;; esac
	vm_lane "$k"
	join_host_steps
done
join_host_steps
# the tail of the sanitizer lane, in a guest of its own now that the stock
# lanes are done (see "The VM runs" above)
if [ -n "${DEBUG_BG:-}" ] && [ -n "${DEBUG_TAIL:-}" ]; then
	for k in $VM_KERNELS; do
		case $k in *-debug) step "vm-$k-tail" debug_tail "$k" ;; esac
	done
fi
# or the hand-off of what the sanitizer lane has left
if [ -n "${HANDOFF_CTL:-}" ]; then
	for k in $VM_KERNELS; do
		case $k in *-debug) debug_handoff "$k" ;; esac
	done
fi
bg_join debug-lane
bg_join pkg-steps

echo "[check] total $(( $(date +%s) - T_START ))s; logs in $LOGDIR${FAILED:+; failed:$FAILED}"
echo "$NPASS passed, $NFAIL failed, $NSKIP skipped"
[ "$NFAIL" = 0 ]
