# SPDX-License-Identifier: GPL-2.0
# 306-abort-task: ABORT TASK of a command that is still in flight in the
# backend (docs/design.md, "Task management"). LUN 1 is an iblock
# backstore on a null_blk
# device that completes every request after 4 s. sg_raw sends a READ and a
# WRITE through /dev/sg with a 1 s timeout, so the SCSI midlayer aborts them
# and ib_srp sends an SRP_TSK_MGMT ABORT TASK for a command LIO is executing:
#  - the TMF completes (LIO: "ABORT_TASK: Sending TMR_FUNCTION_COMPLETE"),
#    the aborted command gets no response, nothing hangs;
#  - the initiator's credits (req_lim) return to their idle value, so the
#    aborted command's credit came back with a later response;
#  - I/O on both LUNs works afterwards (fio verify on LUN 0).
# vmtest-timeout: 300

# Every null_blk request completes after 4 s: long enough for a 1 s SG_IO
# timeout (which the block layer rounds up to whole seconds) to fire first,
# short enough for the TMF response to come back within ib_srp's 5 s abort
# timeout.
NULLB_NS=4000000000

# scsi_host_of DISK: the SCSI host directory of /dev/sdX
scsi_host_of() {
	_h=$(readlink -f "/sys/block/${1#/dev/}/device" | grep -o 'host[0-9]*' | head -n 1)
	echo "/sys/class/scsi_host/$_h"
}

tmf_logged() { dmesg_since | grep -q 'ABORT_TASK: Sending'; }
# lim_ge N: the initiator holds at least N credits. The idle value is
# sampled when the disks have nothing in flight, but a command the block
# layer does not count (a TEST UNIT READY of the SCSI midlayer, say) may
# still hold one credit then: CI's run of f6ffa9f on 7.3 sampled 127 and
# ended at 128, the full grant. A lost credit only ever makes it smaller.
lim_ge() { [ "$(cat "$HOST/req_lim")" -ge "$1" ]; }
# idle: no request in flight on any of the disks (the partition scan of the
# slow LUN takes a while)
idle() {
	for _d in $DISKS; do
		# shellcheck disable=SC2046 # two numbers: $1 reads, $2 writes
		set -- $(cat "/sys/block/${_d#/dev/}/inflight")
		[ "$1" = 0 ] && [ "$2" = 0 ] || return 1
	done
}

# abort_one NAME sg_raw-args...: a command that times out after 1 s.
abort_one() {
	_an=$1
	shift
	dmesg_mark
	run_bounded 60 sg_raw -t 1 "$@"
	_rc=$?
	if [ $_rc = 124 ]; then
		fail "$_an" "sg_raw hung"
		return
	fi
	# LIO completes the TMF once the backend has finished the command.
	wait_for 20 tmf_logged
	_abort=$(count_since 'SRP abort called')
	_done=$(count_since 'ABORT_TASK: Sending TMR_FUNCTION_COMPLETE')
	_none=$(count_since 'TMR_TASK_DOES_NOT_EXIST')
	if [ $_rc = 0 ]; then
		fail "$_an" "the command did not time out (null_blk delay not in effect?)"
	elif [ "$_abort" -ge 1 ] && [ "$_done" -ge 1 ]; then
		pass "$_an" "ABORT TASK of an in-flight command: FUNCTION COMPLETE (sg_raw rc $_rc)"
	else
		fail "$_an" "abort called $_abort, complete $_done, no task $_none: $(dmesg_since | tail -n 4 | tr '\n' ' ')"
	fi
}

modprobe sg 2>/dev/null
if ! have module null_blk nr_devices=1 irqmode=2 completion_nsec=$NULLB_NS gb=1; then
	skip abort "$WHY"
	exit 0
fi
# The partition scan of the slow LUN takes a few of its 4 s reads.
case_begin --size 16 --lun iblock_0 slow udev_path=/dev/nullb0 --login
FAST="" SLOW=""
for d in $DISKS; do
	# rd_mcp LUN: 16 MiB; null_blk LUN: 1 GiB
	if [ "$(cat "/sys/block/${d#/dev/}/size")" -gt 65536 ]; then
		SLOW=$d
	else
		FAST=$d
	fi
done
if [ -z "$FAST" ] || [ -z "$SLOW" ]; then
	fail luns "cannot tell the LUNs apart: $DISKS"
else
	HOST=$(scsi_host_of "$SLOW")
	wait_for 90 idle || info "the disks are still busy: $(cat /sys/block/*/inflight | tr '\n' ' ')"
	lim0=$(cat "$HOST/req_lim")
	info "fast $FAST, slow $SLOW, $HOST, idle req_lim $lim0"

	# The sg driver, not SG_IO on the disk: the block layer raises SG_IO
	# timeouts below 7 s to 7 s, /dev/sg takes them as they are, and
	# passthrough commands are not retried (no escalation to a LUN reset).
	SG=/dev/$(ls "/sys/block/${SLOW#/dev/}/device/scsi_generic/")
	info "slow LUN: $SG"
	abort_one abort-read -r 4096 -o /tmp/rbuf "$SG" 28 00 00 00 00 00 00 00 08 00
	dd if=/dev/zero of=/tmp/wbuf bs=4096 count=1 2>/dev/null
	abort_one abort-write -s 4096 -i /tmp/wbuf "$SG" 2a 00 00 00 00 10 00 00 08 00

	# Let a response carry the returned credits, then compare at idle.
	dd if="$FAST" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
	if wait_for 20 lim_ge "$lim0"; then
		pass credits "req_lim back to $(cat "$HOST/req_lim") (idle value $lim0)"
	else
		fail credits "req_lim $(cat "$HOST/req_lim"), idle value was $lim0"
	fi

	fio_verify after-fast "$FAST" randwrite 4k 16 4m
	check after-slow dd if="$SLOW" of=/dev/null bs=4k count=1 iflag=direct
fi
teardown_target || fail teardown "null_blk LUN"
rmmod null_blk || fail rmmod "null_blk still in use"
