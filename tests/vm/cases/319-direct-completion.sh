# SPDX-License-Identifier: GPL-2.0
# 319-direct-completion: on kernels whose LIO can complete commands
# directly from the backend (7.x, attrib/complete_type of the backstore;
# issue 13, "Direct completion"; docs/design.md, "Completion context:
# direct completion (7.x)") our responses are correct in every context
# LIO calls them from. SKIP where the kernel has no direct completion.
#
# LUN 1 is rd_mcp (completes in the submitting context: our CQ work), LUN 2
# an iblock backstore on a memory-backed null_blk that completes from an
# hrtimer (irqmode=2), i.e. in hardirq context. kprobe events on
# srpt_queue_status, srpt_queue_data_in and srpt_queue_data_in_work (the
# work that builds a data-in response LIO completed in atomic context)
# record where each ran (the hardirq/softirq flag of the trace line).
# Each step runs fio with verify (4 KiB random writes, 64 KiB sequential
# writes, each read back) and checks the calls:
#   default   complete_type 0 (the fabric's default, which is queued) on
#             the null_blk: every byte comes back, nothing ran in atomic
#             context, nothing was deferred to srpt_rsp_wq
#   hardirq   complete_type 1 (direct) on the null_blk: status-only
#             responses were posted from hardirq context, data-in
#             responses built on srpt_rsp_wq (srpt_queue_data_in_work)
#   process   complete_type 1 on rd_mcp: data-in responses are built where
#             LIO called (in our CQ work), none deferred
#   queued    complete_type 2 on the null_blk: as with 0
# A kernel without kprobe events (the sanitizer kernels) runs the I/O of
# every step and skips the *-ctx checks.
# On the sanitizer kernel (7.3-debug) this is where sleeping in atomic
# context, a lock taken with interrupts on that a hardirq also takes, or a
# use of a freed command would show.
# vmtest-timeout: 300

requires ours "direct completion is declared by srpt-dkms"
requires module null_blk nr_devices=1 irqmode=2 completion_nsec=50000 \
	memory_backed=1 gb=1
case_begin
on_exit 'kprobes_off'

# Without kprobe events (the sanitizer kernels have no tracing) the I/O
# with verify still runs in every mode; only the *-ctx checks are skipped.
TR=/sys/kernel/tracing
[ -e $TR/trace ] || mount -t tracefs nodev $TR 2>/dev/null
[ -e $TR/trace ] || TR=/sys/kernel/debug/tracing
KP=1
[ -e $TR/kprobe_events ] || KP=0

kprobes_off() {
	[ $KP = 1 ] || return 0
	[ -d $TR/events/srpt319 ] && echo 0 > $TR/events/srpt319/enable
	echo > $TR/trace
	sed -n 's/^p:\(srpt319\/[a-z]*\) .*/-:\1/p' $TR/kprobe_events |
		while read -r _k; do echo "$_k" >> $TR/kprobe_events; done
}

target_up --size 16 --lun iblock_0 nullb udev_path=/dev/nullb0 \
	--login-opts "ch_count=1" || exit 0
CT=$T/core/iblock_0/nullb/attrib/complete_type
if [ ! -e "$CT" ]; then
	skip all "kernel without direct completion (no attrib/complete_type)"
	exit 0
fi
NB="" RD=""
for d in $DISKS; do
	if [ "$(cat "/sys/block/${d#/dev/}/size")" -gt 262144 ]; then
		NB=$d
	else
		RD=$d
	fi
done
if [ -z "$NB" ] || [ -z "$RD" ]; then
	fail login "want the null_blk and the rd_mcp disk, have '$DISKS'"
	exit 0
fi

if [ $KP = 1 ]; then
	kprobes_off
	printf '%s\n' 'p:srpt319/qs ib_srpt:srpt_queue_status' \
		'p:srpt319/qd ib_srpt:srpt_queue_data_in' >> $TR/kprobe_events
	# a module without the work (before direct completion) counts 0 for it
	echo 'p:srpt319/dw ib_srpt:srpt_queue_data_in_work' >> $TR/kprobe_events ||
		info "no kprobe on srpt_queue_data_in_work"
	if [ ! -d $TR/events/srpt319/qd ]; then
		fail kprobes "kprobes on ib_srpt could not be set: $(tr '\n' ' ' < $TR/kprobe_events)"
		exit 0
	fi
	echo 1 > $TR/events/srpt319/enable
fi

# calls NAME [CTX]: how many NAME records the trace holds (in hardirq or
# softirq context with CTX=irq: the flags field has h, H or s)
calls() {
	if [ "${2:-}" = irq ]; then
		grep " $1: (" $TR/trace |
			sed -n 's/.*\] \([^ ]*\) .*/\1/p' | grep -c '[hHs]'
	else
		grep -c " $1: (" $TR/trace
	fi
}

# run NAME DISK: fio with verify, writes then reads, 4 KiB and 64 KiB
run() {
	[ $KP = 0 ] || echo > $TR/trace
	fio_verify "$1-4k" "$2" randwrite 4k 16 4m
	fio_verify "$1-64k" "$2" write 64k 16 8m
	if [ $KP = 0 ]; then
		skip "$1-ctx" "no kprobe events in this kernel"
		return 1
	fi
	QS=$(calls qs) QSI=$(calls qs irq) QD=$(calls qd) QDI=$(calls qd irq)
	DW=$(calls dw)
	info "$1: queue_status $QS ($QSI in irq), queue_data_in $QD ($QDI in irq), data_in_work $DW"
}

# ctype VALUE DEV...: write VALUE to the complete_type of every DEV
ctype() {
	_v=$1
	shift
	for _d in "$@"; do
		cfs_write "$_d/attrib/complete_type" "$_v" ||
			{ fail "ctype-$_v" "${_d##*/}: $ERR"; return 1; }
	done
}
# the backstores go with the case's teardown, and their attributes with them
NBDEV=$T/core/iblock_0/nullb

# queued_check NAME: nothing ran in atomic context or on srpt_rsp_wq
queued_check() {
	if [ "$QD" -gt 0 ] && [ "$DW" = 0 ] && [ "$QDI" = 0 ] && [ "$QSI" = 0 ]; then
		pass "$1-ctx" "$QD data-in and $QS status responses from LIO's work"
	else
		fail "$1-ctx" "data-in $QD ($QDI in irq), status $QS ($QSI in irq), data_in_work $DW (want >0, 0, 0)"
	fi
}

# --- default: the fabric's choice, queued -----------------------------------
# shellcheck disable=SC2086 # BACKSTORES: paths without blanks
ctype 0 $BACKSTORES "$NBDEV" || exit 0
run default "$NB" && queued_check default

# --- hardirq: null_blk completes from an hrtimer ----------------------------
# shellcheck disable=SC2086 # as above
ctype 1 $BACKSTORES "$NBDEV" || exit 0
if ! run hardirq "$NB"; then
	:
elif [ "$QSI" -gt 0 ] && [ "$QDI" -gt 0 ] && [ "$DW" -gt 0 ] && [ "$DW" -le "$QD" ]; then
	pass hardirq-ctx "$QSI status responses posted in irq context, $DW of $QDI data-in responses built on srpt_rsp_wq"
else
	fail hardirq-ctx "status in irq $QSI, data-in $QD ($QDI in irq), data_in_work $DW (want >0, >0, 0 < work <= data-in)"
fi

# --- process: rd_mcp completes in the submitting context --------------------
if ! run process "$RD"; then
	:
elif [ "$QD" -gt 0 ] && [ "$DW" = 0 ] && [ "$QDI" = 0 ] && [ "$QSI" = 0 ]; then
	pass process-ctx "$QD data-in and $QS status responses where LIO called, none deferred"
else
	fail process-ctx "data-in $QD ($QDI in irq), status $QS ($QSI in irq), data_in_work $DW (want >0, 0, 0)"
fi

# --- queued: LIO's completion workqueue --------------------------------------
ctype 2 "$NBDEV" || exit 0
run queued "$NB" && queued_check queued
logout_all || fail logout "$ERR"
