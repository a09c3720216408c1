#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vm/guest-init.sh - /init of the VM test initramfs (busybox ash).
#
# 1. common setup: mounts; modules configfs, dummy, rdma_rxe, target_core_mod
#    (+ iblock/file backstores), sd_mod, sg, ib_umad, ib_uverbs, rdma_ucm,
#    ib_srp and ib_srpt; proof that the loaded ib_srpt is the expected one
#    (ours: updates/ path, taint O, srcversion of the host file; --ref: the
#    in-kernel one); dummy0 192.0.2.1/24 with rxe0 on it, port ACTIVE.
# 2. every /vmtest/cases/*.sh in order, each in its own session (setsid sh)
#    with /vmtest/lib.sh sourced, under a per-case timeout; after each case
#    the guest state is checked (and restored if the case left a mess) and
#    the new kernel log lines are scanned.
# 3. final: configfs teardown incl. rmdir $T/srpt, rmmod ib_srpt (must work),
#    rdma link delete, rmmod rdma_rxe target_core_mod (leak signals), on a
#    sanitizer kernel a kmemleak scan (see kmemleak_check), dmesg scan of the
#    whole boot, "VMTEST DONE overall=PASS|FAIL", poweroff.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:/tools
export HOME=/root
export RESULTS_DIR=/tmp/results

# Defaults, overridden by /etc/vmtest.conf (written by run.sh).
SRPT_MODE=ours
SRPT_EXPECT_SRCVERSION=
SRPT_PARAMS=
CASE_TIMEOUT=300
VERBOSE_KMSG=0
VMTEST_QUICK=0
VMTEST_SANITIZER=0
VMTEST_DEBROOT=
[ -f /etc/vmtest.conf ] && . /etc/vmtest.conf
export SRPT_MODE CASE_TIMEOUT VMTEST_QUICK VMTEST_SANITIZER VMTEST_DEBROOT

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /etc/target "$RESULTS_DIR" /var/tmp
echo /sbin/modprobe > /proc/sys/kernel/modprobe
# Report hung tasks after 60 s (the dmesg scan catches them).
echo 60 > /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
ip link set lo up

CASE=setup
# shellcheck source-path=SCRIPTDIR source=lib.sh # /vmtest/lib.sh is tests/vm/lib.sh
. /vmtest/lib.sh

up() { read -r _u _ < /proc/uptime; echo "$_u"; }
# FORKS: processes created since boot (/proc/stat), read without a fork.
forks_now() {
	while read -r _fk _fv _; do
		[ "$_fk" = processes ] && { FORKS=$_fv; return 0; }
	done < /proc/stat
}
# The per-case watchdog (see the case loop) interrupts wait with USR1.
trap 'CASE_TIMED_OUT=1' USR1
phase() { echo "VMTEST PHASE $1 t=$(up)"; }
# Kernel log lines that fail a case (and the run). The sanitizer kernel's
# reports are covered too: KASAN/KFENCE ("BUG: KASAN: ...", "BUG: KFENCE:
# ..."), lockdep ("WARNING: possible circular locking dependency", "WARNING:
# inconsistent lock state", "WARNING: suspicious RCU usage", "BUG: sleeping
# function called from invalid context"), UBSAN, DEBUG_OBJECTS ("ODEBUG:"),
# DMA-API debugging ("DMA-API:"), hung tasks, soft/hard lockups.
DMESG_PAT='WARNING:|BUG:|Oops|Call Trace|refcount_t|list_(add|del) corruption|general protection|UBSAN|KASAN|KFENCE|ODEBUG:|DMA-API:|kmemleak|possible circular locking|inconsistent lock state|suspicious RCU usage|sleeping function called|soft lockup|hard LOCKUP|blocked for more than|hung_task|use-after-free|still in use'
# Informational lines of the sanitizer kernel that DMESG_PAT would match:
# its boot banners, and the line of the final kmemleak scan (kmemleak_check
# judges the leaks itself).
DMESG_IGNORE='kmemleak: Kernel memory leak detector initialized|kmemleak: Automatic memory scanning thread|new suspected memory leaks \(see /sys/kernel/debug/kmemleak\)|DMA-API: preallocated [0-9]+ debug entries|DMA-API: debugging enabled by kernel config|KFENCE: initialized|DMA-API: cacheline tracking|RCU callback double-/use-after-free debug is enabled'
dmesg_bad() { drop_known_kbugs | grep -E "$DMESG_PAT" | grep -v -E "$DMESG_IGNORE"; }

# drop_known_kbugs (filter of kernel log lines): neutralises the sanitizer
# reports of known bugs OUTSIDE ib_srpt (tests/vm/README.md, "Known kernel
# bugs we work around") and prints one VMTEST KNOWN_KERNEL_BUG line for each
# instead (on the console, $KBUG_CONSOLE, not on stdout). A report is the
# block from its "BUG: KASAN:" line up to the next "=====" line. Other CPUs
# may log inside that block (the report is printed line by line), so lines
# are judged by their shape: a frame is "func+0xN/0xM", optionally with a
# [module] tag. A report is known only if it is complete (closed by its
# "=====" line), matches every condition of a signature and none of its
# frames (call trace, Allocated/Freed stacks) and no [module] tag in it names
# ib_srpt or an srpt_* function (the sanitizer kernel's release,
# 6.12.N-srptdebug or 7.3.N-srptdebug, is in every report and does not count). Of a known
# report only its title line and its first "Call Trace:" line are removed;
# every other line goes on to the dmesg pattern, so a warning that another
# CPU logged in the middle of the report still fails the case.
#  KBUG-2: "BUG: KASAN: use-after-free in __ib_process_cq" or
#          "slab-use-after-free" (the freed request pages were reused for a
#          slab before ib_srp read them), with the frames ib_process_cq_direct
#          and srp_free_ch_ib [ib_srp] (the initiator): ib_srp frees its SCSI
#          host's requests before it processes its send CQ, whose flushed
#          memory registration completions point into them.
#  KBUG-4: "BUG: KASAN: wild-memory-access in do_raw_spin_lock" by task
#          swapper/0/0 with the frames handle_edge_irq and start_kernel: an
#          interrupt taken during early boot (cpu_detect), before any module
#          exists, seen once in 15 boots of the sanitizer kernel under TCG.
drop_known_kbugs() {
	awk -v case="${name:-$CASE}" -v con="${KBUG_CONSOLE:-/dev/console}" '
		# frame(s): s is a stack frame line ("func+0x1/0x2 [mod]")
		function frame(s) {
			return s ~ /[A-Za-z0-9_.]+\+0x[0-9a-f]+\/0x[0-9a-f]+/
		}
		# srpt(s): s names ib_srpt (a [module] tag) or an srpt_* frame
		function srpt(s) {
			return s ~ /\[ib_srpt[a-z_]*\]/ ||
			       (frame(s) && s ~ /(^|[^A-Za-z0-9_])srpt_[A-Za-z0-9_]*\+0x/)
		}
		# closed: the report ended with its "=====" line (only a complete
		# report is ever dropped)
		function flush(closed,   i, kb, direct, freech, bad, ct, tr, edge, boot, swapper) {
			kb = ""; direct = 0; freech = 0; bad = 0; tr = 0
			edge = 0; boot = 0; swapper = 0
			for (i = 1; i <= n; i++) {
				if (srpt(lines[i]))
					bad = 1
				if (lines[i] ~ / by task swapper\/0\/0$/)
					swapper = 1
				# the call trace of the bad access: from the first
				# "Call Trace:" to its "</TASK>" (not the Allocated/Freed
				# stacks); only its reliable frames (no "?") count
				if (tr == 0 && lines[i] ~ /Call Trace:/)
					tr = 1
				else if (tr == 1 && lines[i] ~ /<\/TASK>|Allocated by task|Freed by task|buggy address/)
					tr = 2
				if (tr != 1 || !frame(lines[i]) || lines[i] ~ / \? /)
					continue
				if (lines[i] ~ / ib_process_cq_direct\+0x/)
					direct = 1
				if (lines[i] ~ / srp_free_ch_ib\+0x[0-9a-f]+\/0x[0-9a-f]+ \[ib_srp\]/)
					freech = 1
				if (lines[i] ~ / handle_edge_irq\+0x/)
					edge = 1
				if (lines[i] ~ / start_kernel\+0x/)
					boot = 1
			}
			if (closed && !bad && direct && freech &&
			    lines[1] ~ /BUG: KASAN: (slab-)?use-after-free in __ib_process_cq\+0x/)
				kb = "KBUG-2"
			if (closed && !bad && edge && boot && swapper &&
			    lines[1] ~ /BUG: KASAN: wild-memory-access in do_raw_spin_lock\+0x/)
				kb = "KBUG-4"
			if (kb != "") {
				printf "VMTEST KNOWN_KERNEL_BUG %s case=%s (sanitizer report dropped, %d lines)\n", kb, (cur != "" ? cur : case), n >> con
				close(con)
				ct = 0
				for (i = 2; i <= n; i++) {
					if (!ct && lines[i] ~ /Call Trace:/) { ct = 1; continue }
					print lines[i]
				}
			} else {
				for (i = 1; i <= n; i++) print lines[i]
			}
			n = 0; inblk = 0
		}
		# the case the kernel log is in (the final scan covers every case)
		/VMTEST-CASE-START / { cur = $NF }
		/BUG: KASAN:/ { if (inblk) flush(0); inblk = 1 }
		inblk {
			lines[++n] = $0
			if ($0 ~ /==========/) flush(1)
			else if (n >= 400) flush(0)
			next
		}
		{ print }
		END { if (inblk) flush(0) }'
}

finish() {
	CASE=final
	phase finish
	dmesg > /tmp/dmesg.txt
	# Leave out the log of cases whose warnings are an expected upstream bug
	# (--ref only, see xfail_ref_dmesg); they were reported as XFAIL.
	xf=$(cd "$RESULTS_DIR" && ls *.refdmesg 2>/dev/null | sed 's/\.refdmesg$//' | tr '\n' ' ')
	awk -v xf=" $xf " '
		/VMTEST-CASE-START / { n = $NF; skip = (index(xf, " " n " ") > 0) }
		!skip' /tmp/dmesg.txt | dmesg_bad > /tmp/dmesg.bad
	if [ -s /tmp/dmesg.bad ]; then
		fail dmesg_clean "$(wc -l < /tmp/dmesg.bad) suspicious kernel log lines"
		sed 's/^/VMTEST DMESG_BAD /' /tmp/dmesg.bad
	else
		pass dmesg_clean
	fi
	echo "VMTEST TAINT_AT_END $(cat /proc/sys/kernel/tainted)"
	if [ "$VERBOSE_KMSG" = 1 ] || [ -s /tmp/dmesg.bad ]; then
		echo "VMTEST DMESG_BEGIN"
		cat /tmp/dmesg.txt
		echo "VMTEST DMESG_END"
	fi
	overall=PASS
	cat "$RESULTS_DIR"/* 2>/dev/null | grep -q '^FAIL ' && overall=FAIL
	echo "VMTEST DONE overall=$overall t=$(up)"
	sync
	poweroff -f
	sleep 60
}
fatal() { fail "$1" "$2"; finish; }

# kmemleak_check: sanitizer kernel only, after the final unloads. Two scans
# 5 s apart (kmemleak reports an object that no scan found a reference to
# and that is older than 5 s); then every report is printed (VMTEST INFO
# final kmemleak[ours|other] lines) and the check fails if the allocation
# backtrace of a leaked object runs through ib_srpt or one of the test
# modules of tests/selftest (ib_srpt_selftest, srpt_ibcm_init).
# Those modules are unloaded by now, so their frames are bare addresses:
# they are attributed with the section addresses the module loader logged
# at each load (dyndbg "func move_module +p" on the command line, set by
# run.sh), taking the latest load at that address that is not later than
# the allocation (jiffies of the report, INITIAL_JIFFIES = 2^32 - 300 HZ).
# Leaks from other code (LIO, the RDMA core) are INFO only.
kmemleak_check() {
	_kml=/sys/kernel/debug/kmemleak
	if [ ! -e $_kml ]; then
		fail kmemleak "no $_kml (debugfs not mounted, or kmemleak disabled)"
		return
	fi
	_t0=$(up)
	for _i in 1 2; do
		[ $_i = 1 ] || sleep 5
		if ! echo scan 2>/tmp/kml.err > $_kml; then
			fail kmemleak "echo scan: $(cat /tmp/kml.err)"
			return
		fi
	done
	cat $_kml > /tmp/kmemleak.txt 2>/tmp/kml.err
	if dmesg | grep -q 'kmemleak: Kernel memory leak detector disabled'; then
		fail kmemleak "kmemleak disabled itself: $(dmesg | grep 'kmemleak:' | tail -n 3 | tr '\n' ' ')"
		return
	fi
	dmesg > /tmp/dmesg.mods
	awk -v hz="${VMTEST_HZ:-250}" '
	function hx(s,   i, v, l) {
		s = tolower(s)
		sub(/^0x/, "", s)
		l = length(s)
		HI = ""
		if (l > 8) { HI = substr(s, 1, l - 8); s = substr(s, l - 7) }
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function flush(   k, tag) {
		if (nl == 0) return
		total++
		if (ours) nours++
		tag = ours ? "ours" : "other"
		for (k = 1; k <= nl; k++)
			if (printed++ < 3000)
				print "VMTEST INFO final kmemleak[" tag "] " L[k]
		nl = 0
	}
	BEGIN { ij = 4294967296 - 300 * hz }
	FILENAME == ARGV[1] {
		t = -1
		if (match($0, /^\[ *[0-9]+\.[0-9]+\]/)) {
			ts = substr($0, RSTART + 1, RLENGTH - 2)
			gsub(/ /, "", ts)
			t = ts + 0
		}
		if (match($0, /Final section addresses for [^ :]+:/)) {
			cur = substr($0, RSTART + 28, RLENGTH - 29)
			curt = t
			next
		}
		if (cur != "" && match($0, /0x[0-9a-f]+ 0x[0-9a-f]+ [^ ]*text[^ ]*$/)) {
			split(substr($0, RSTART), f, " ")
			n++
			rs[n] = hx(f[1]); rhi[n] = HI
			re[n] = rs[n] + hx(f[2])
			rm[n] = cur; rsec[n] = f[3]; rt[n] = curt
		}
		next
	}
	/^unreferenced object/ { flush(); ours = 0; jal = -1 }
	/^  comm .*jiffies [0-9]+/ {
		match($0, /jiffies [0-9]+/)
		jal = substr($0, RSTART + 8, RLENGTH - 8) + 0
	}
	{
		line = $0
		if ($0 ~ /\[(ib_srpt|ib_srpt_selftest|srpt_ibcm_init)\]/) {
			ours = 1
		} else if ($0 ~ /^ +0x[0-9a-f]+$/) {
			lo = hx($1); ahi = HI
			ta = jal >= 0 ? (jal - ij) / hz : -1
			best = 0
			for (i = 1; i <= n; i++)
				if (rhi[i] == ahi && lo >= rs[i] && lo < re[i] &&
				    (ta < 0 || rt[i] <= ta + 1) && (!best || rt[i] >= rt[best]))
					best = i
			if (best) {
				line = line sprintf(" = %s %s+0x%x (unloaded)", rm[best], rsec[best], lo - rs[best])
				if (rm[best] == "ib_srpt" || rm[best] == "ib_srpt_selftest" ||
				    rm[best] == "srpt_ibcm_init")
					ours = 1
			} else {
				line = line " = ?"
			}
		}
		L[++nl] = line
	}
	END {
		flush()
		printf "KMEMLEAK_SUMMARY %d %d %d\n", total, nours, n
	}' /tmp/dmesg.mods /tmp/kmemleak.txt > /tmp/kmemleak.out
	grep -v '^KMEMLEAK_SUMMARY' /tmp/kmemleak.out
	# shellcheck disable=SC2046 # three numbers: $1, $2, $3
	set -- $(sed -n 's/^KMEMLEAK_SUMMARY //p' /tmp/kmemleak.out)
	_what="${1:-?} leak report(s), ${2:-?} from ib_srpt/ib_srpt_selftest/srpt_ibcm_init; $3 module text sections known; scans took $(awk -v a="$_t0" -v b="$(up)" 'BEGIN { printf "%.0f", b - a }') s"
	if [ "${1:-x}" = x ]; then
		fail kmemleak "could not parse the kmemleak report"
	elif [ "$2" != 0 ]; then
		fail kmemleak "$_what (kmemleak[ours] lines above)"
	else
		pass kmemleak "$_what"
	fi
}

phase init_start
echo "VMTEST KERNEL $(uname -r) $(cat /proc/cmdline)"
echo "VMTEST INFO setup mode=$SRPT_MODE quick=$VMTEST_QUICK cpus=$(grep -c ^processor /proc/cpuinfo) mem_kb=$(awk '/MemTotal/{print $2}' /proc/meminfo)"

# --- modules -------------------------------------------------------------------
modprobe configfs 2>/dev/null
mount -t configfs configfs /sys/kernel/config || fatal modules "mount configfs"
# crc helpers of rdma_rxe: module names differ between kernels; tolerate absence.
for m in crc32_generic crc32-pclmul crc32c_generic crc32c-intel; do
	modprobe "$m" 2>/dev/null
done
modprobe dummy numdummies=1 || fatal modules "modprobe dummy"
# fio lives on a read-only virtio disk (see build-initramfs.sh).
for m in virtio_pci virtio_blk ext4; do modprobe "$m" 2>/dev/null; done
if wait_for 10 disk_ready /dev/vda && mount -t ext4 -o ro /dev/vda /opt/fio; then
	:
else
	echo "VMTEST INFO setup fio disk not available: fio will not work"
fi
for m in rdma_rxe target_core_mod target_core_iblock target_core_file sd_mod sg \
	 ib_umad ib_uverbs rdma_ucm ib_srp; do
	try modprobe "$m" || fatal modules "modprobe $m: $ERR"
done
phase modules_base_loaded
# shellcheck disable=SC2086
try modprobe ib_srpt $SRPT_PARAMS || fatal modules "modprobe ib_srpt: $ERR"

# --- is the loaded ib_srpt the one we want? ----------------------------------------
path=$(modinfo -n ib_srpt 2>/dev/null)
srcv=$(cat /sys/module/ib_srpt/srcversion 2>/dev/null)
mtaint=$(cat /sys/module/ib_srpt/taint 2>/dev/null)
echo "VMTEST SRPT mode=$SRPT_MODE path=$path srcversion=$srcv module_taint=$mtaint version=$(cat /sys/module/ib_srpt/version 2>/dev/null) kernel_taint=$(cat /proc/sys/kernel/tainted)"
why=""
if [ "$SRPT_MODE" = ref ]; then
	case $path in */kernel/*/ib_srpt.ko) ;; *) why="$why path=$path (not in-tree)" ;; esac
	case $mtaint in *O*) why="$why module taint '$mtaint' has O" ;; esac
	[ -n "$why" ] && fatal srpt_is_in_kernel "$why"
	pass srpt_is_in_kernel "path=$path srcversion=$srcv"
else
	case $path in */updates/ib_srpt.ko) ;; *) why="$why path=$path (not updates/)" ;; esac
	case $mtaint in *O*) ;; *) why="$why module taint '$mtaint' lacks O" ;; esac
	[ "$srcv" = "$SRPT_EXPECT_SRCVERSION" ] || why="$why srcversion $srcv != host $SRPT_EXPECT_SRCVERSION"
	[ -n "$why" ] && fatal srpt_is_ours "$why"
	pass srpt_is_ours "path=$path taint=$mtaint srcversion=$srcv"
fi
phase modules_loaded

# --- Soft-RoCE ----------------------------------------------------------------------
ip link set "$NETDEV" address 02:00:00:00:00:01 || fatal net "set mac"
ip link set "$NETDEV" up || fatal net "$NETDEV up"
ip addr add "$IP/24" dev "$NETDEV" || fatal net "addr"
rxe_add || fatal rxe "rdma link add $IBDEV: $ERR"
export GID0 GUIDNAME GIDNAME IBDEV IBPORT NETDEV IP CM_PORT T SRPT KVER
KVER=$(uname -r)
phase rxe_up
echo "VMTEST INFO setup $IBDEV node_guid=$(cat /sys/class/infiniband/$IBDEV/node_guid) GUIDNAME=$GUIDNAME GIDNAME=$GIDNAME service_guid=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid 2>/dev/null)"
for e in $(port_gids); do echo "VMTEST INFO setup GID $e"; done
pass setup_done

# --- cases ------------------------------------------------------------------------------
case_timeout() { # per-case override: a line "# vmtest-timeout: N" in the case file
	_ct=$(sed -n 's/^# *vmtest-timeout: *\([0-9][0-9]*\).*/\1/p' "$1" | head -n1)
	_ct=${_ct:-$CASE_TIMEOUT}
	# The sanitizer kernel runs cases 3-6 times slower (quick mode and
	# san_size absorb most of it): twice the limit there.
	[ "${VMTEST_SANITIZER:-0}" = 1 ] && _ct=$((_ct * 2))
	echo "$_ct"
}
# vmtest.from=CASE (kernel command line): skip the cases before CASE. run.sh
# sets it when it boots again after a known kernel bug (see README.md).
VMTEST_FROM=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^vmtest\.from=//p')
[ -n "$VMTEST_FROM" ] && echo "VMTEST INFO setup starting at case $VMTEST_FROM (vmtest.from)"
# Hand-off (run.sh --handoff, used by scripts/check.sh for the sanitizer
# lane): a virtio disk of 4 KiB (8 sectors; no other is that small) that
# the host may write "stop_before=CASE" into while this guest runs; CASE
# and the cases after it then run in a second guest instead, and this one
# goes on to its final checks. Read before every case, past the guest's
# page cache.
HANDOFF_DEV=""
for _b in /sys/block/vd*; do
	[ "$(cat "$_b/size" 2>/dev/null)" = 8 ] && HANDOFF_DEV=/dev/${_b##*/}
done
[ -n "$HANDOFF_DEV" ] && echo "VMTEST INFO setup hand-off control disk $HANDOFF_DEV"
# handoff_at NAME: true if the host gave NAME (and the cases after it) away
handoff_at() {
	_ho=$(dd if="$HANDOFF_DEV" bs=512 count=1 iflag=direct 2>/dev/null | tr -d '\0' |
		sed -n 's/^stop_before=\([^ ]*\)$/\1/p')
	[ -n "$_ho" ] || return 1
	# NAME sorts at or after the first case given away
	[ "$(printf '%s\n%s\n' "$_ho" "$1" | sort | head -n 1)" = "$_ho" ]
}
ABORT=0
for cf in /vmtest/cases/*.sh; do
	[ -f "$cf" ] || continue
	name=$(basename "$cf" .sh)
	if [ -n "$VMTEST_FROM" ]; then
		[ "$name" = "$VMTEST_FROM" ] || continue
		VMTEST_FROM=
	fi
	if [ -n "$HANDOFF_DEV" ] && handoff_at "$name"; then
		echo "VMTEST HANDOFF $name: this case and the ones after it run in another guest"
		break
	fi
	CASE=$name
	to=$(case_timeout "$cf")
	echo "VMTEST CASE_START $name timeout=${to}s t=$(up)"
	echo "VMTEST-CASE-START $name" > /dev/kmsg
	: > "$RESULTS_DIR/$name"
	t0=$(date +%s)
	forks_now
	f0=$FORKS
	CASE=$name setsid sh -c '. /vmtest/lib.sh; . "$1"' sh "$cf" < /dev/null &
	pid=$!
	# The timeout: a watchdog that signals this shell. wait returns when
	# the case ends or when the signal comes, whichever is first; no
	# polling (each poll forked two or three processes every 0.2 s, which
	# on the sanitizer kernel took CPU from the case itself).
	CASE_TIMED_OUT=0
	(trap 'kill $! 2>/dev/null; exit 0' TERM; sleep "$to" & wait $!; kill -USR1 $$) &
	wdog=$!
	wait $pid
	rc=$?
	if [ $CASE_TIMED_OUT = 0 ]; then
		kill $wdog 2>/dev/null
		wait $wdog 2>/dev/null
	fi
	if [ $CASE_TIMED_OUT = 1 ] && kill -0 $pid 2>/dev/null &&
		! grep -q '^State:.*Z' /proc/$pid/status 2>/dev/null; then
		fail timeout "case still running after ${to}s: killed"
		echo "VMTEST INFO $name stack of the case's tasks:"
		for p in $(ps -o pid,pgid 2>/dev/null | awk -v g=$pid '$2==g{print $1}'); do
			echo "VMTEST INFO $name task $p $(cat /proc/$p/cmdline 2>/dev/null | tr '\0' ' ')"
			sed "s/^/VMTEST INFO $name   /" /proc/$p/stack 2>/dev/null
		done
		kill -KILL -- -$pid 2>/dev/null
		sleep 2
		if grep -q '^State:.*D' /proc/$pid/status 2>/dev/null; then
			fail hung "case process stuck in D state: aborting the remaining cases"
			echo w > /proc/sysrq-trigger 2>/dev/null
			ABORT=1
		fi
		rc=killed
	elif [ $CASE_TIMED_OUT = 1 ]; then
		# it ended just as the watchdog fired
		wait $pid
		rc=$?
	fi
	if [ "$rc" != killed ] && [ "$rc" != 0 ]; then
		fail exit_status "case exited with status $rc"
	fi
	# New kernel log lines of this case.
	dmesg | sed -n "/VMTEST-CASE-START $name\$/,\$p" | dmesg_bad > /tmp/case.bad
	if [ -s /tmp/case.bad ] && [ -f "$RESULTS_DIR/$name.refdmesg" ]; then
		_result XFAIL dmesg "(known upstream bug, expected with --ref: $(cat "$RESULTS_DIR/$name.refdmesg")) $(wc -l < /tmp/case.bad) suspicious kernel log lines"
		sed "s/^/VMTEST DMESG_XFAIL $name: /" /tmp/case.bad | head -n 40
	elif [ -s /tmp/case.bad ]; then
		fail dmesg "$(wc -l < /tmp/case.bad) suspicious kernel log lines during the case"
		sed "s/^/VMTEST DMESG_BAD $name: /" /tmp/case.bad | head -n 40
		# What follows the first of them (a call trace, a hung task's
		# stack): the console may not have it (loglevel), and a CI summary
		# shows only these lines of the run.
		read -r _fb < /tmp/case.bad
		dmesg | sed -n "/VMTEST-CASE-START $name\$/,\$p" |
			grep -F -A 40 -m 1 -- "$_fb" | sed "1d; s/^/VMTEST DMESG_CTX $name: /"
	fi
	[ $ABORT = 1 ] && break
	# The case must leave the guest as it found it; restore it if it did not.
	if ! guest_state_clean; then
		fail left_state "case left:$GUEST_DIRT"
		run_bounded 120 teardown_target || echo "VMTEST INFO $name cleanup: teardown failed: $ERR"
		[ -d "/sys/class/infiniband/$IBDEV" ] || rxe_add || echo "VMTEST INFO $name cleanup: rxe_add: $ERR"
		[ -d /sys/module/ib_srpt ] || try modprobe ib_srpt $SRPT_PARAMS
		if ! guest_state_clean; then
			fail cleanup "could not restore the guest:$GUEST_DIRT; aborting the remaining cases"
			ABORT=1
			break
		fi
	fi
	res=PASS
	grep -q '^SKIP ' "$RESULTS_DIR/$name" && ! grep -q '^PASS ' "$RESULTS_DIR/$name" && res=SKIP
	grep -q '^FAIL ' "$RESULTS_DIR/$name" && res=FAIL
	[ -s "$RESULTS_DIR/$name" ] || { fail no_results "case reported nothing"; res=FAIL; }
	forks_now
	echo "VMTEST CASE_END $name $res $(($(date +%s) - t0))s forks=$((FORKS - f0)) pass=$(grep -c '^PASS ' "$RESULTS_DIR/$name") fail=$(grep -c '^FAIL ' "$RESULTS_DIR/$name") skip=$(grep -c '^SKIP ' "$RESULTS_DIR/$name") xfail=$(grep -c '^XFAIL ' "$RESULTS_DIR/$name")"
done

# --- final checks ---------------------------------------------------------------------------
CASE=final
phase final
echo "VMTEST-CASE-START final" > /dev/kmsg
if [ $ABORT = 0 ]; then
	if run_bounded 120 teardown_target; then
		pass configfs_teardown
	else
		fail configfs_teardown "$ERR"
	fi
	if [ -d /sys/module/ib_srpt ]; then
		if run_bounded 60 rmmod ib_srpt && [ ! -d /sys/module/ib_srpt ]; then
			pass rmmod_ib_srpt
		else
			fail rmmod_ib_srpt "$ERR refcnt=$(module_refcnt)"
		fi
	else
		fail rmmod_ib_srpt "ib_srpt was not loaded at the end"
	fi
	rmmod ib_srp 2>/dev/null
	if rxe_del; then pass rxe_delete; else fail rxe_delete "rc=$? $ERR"; fi
	try rmmod rdma_ucm ib_uverbs ib_umad
	if try rmmod rdma_rxe; then pass rmmod_rdma_rxe; else fail rmmod_rdma_rxe "$ERR"; fi
	rmmod target_core_iblock target_core_file 2>/dev/null
	if try rmmod target_core_mod; then pass rmmod_target_core_mod; else
		fail rmmod_target_core_mod "$ERR refcnt=$(module_refcnt target_core_mod)"; fi
	[ "$VMTEST_SANITIZER" = 1 ] && kmemleak_check
fi
finish
