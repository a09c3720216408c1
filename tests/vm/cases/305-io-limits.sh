# SPDX-License-Identifier: GPL-2.0
# 305-io-limits: descriptor tables and send-queue limits (docs/design.md,
# "Data descriptors and buffers", "Write data", "Responses" and "Send queue
# accounting"), with fio verify=crc32c wherever data moves:
#   D  ib_srp cmd_sg_entries=4 (small) and indirect_sg_entries=2048 (large),
#      memory registration on, max_sect=16384: requests of 4 MiB span two
#      or more 2 MiB memory regions, so ib_srp sends an indirect table
#      (counted on the target through its pr_debug line);
#   X  the same with never_register=1 allow_ext_sg=1: a request with more
#      segments than fit in the IU carries an external table, which the
#      target does not fetch; the command must fail with CHECK CONDITION
#      (not hang, not BUSY forever) and single-segment I/O keep working;
#   Q  srp_sq_size=16 (the smallest send queue: 8 WRs guaranteed, 16 once
#      rdma_rw has added its own) at QD 32, on a null_blk LUN whose 20 ms
#      latency makes commands complete in bunches: RDMA READs and
#      responses find the send queue full and are retried through LIO
#      (-ENOMEM / -EAGAIN, each logged rate-limited); no byte may be lost;
#   W  a 1 MiB READ needs more send WRs than that queue can ever hold: the
#      target answers CHECK CONDITION, ABORTED COMMAND, INSUFFICIENT
#      RESOURCES (55h/03h) instead of retrying forever.
# vmtest-timeout: 600

# start SQ_SIZE [--nullb] [login options]: target with a 128 MiB rd_mcp LUN
# (and with --nullb an iblock LUN on /dev/nullb0) and the given srp_sq_size,
# logged in. Sets LUN (the rd_mcp disk) and NULLB (the null_blk disk).
start() {
	_sq=$1 _nb=0 _lun=""
	shift
	[ "$1" = --nullb ] && { _nb=1 _lun="--lun iblock_0 nullb udev_path=/dev/nullb0"; shift; }
	# shellcheck disable=SC2086 # _lun: words
	target_up --as "srp_sq_size_$_sq" --size 128 $_lun \
		--attr "srp_sq_size=$_sq" --login-opts "$*" || return 1
	LUN=$DISK NULLB=""
	for _d in $DISKS; do	# rd_mcp: 128 MiB, null_blk: 1 GiB
		if [ "$(cat "/sys/block/${_d#/dev/}/size")" -gt 262144 ]; then
			NULLB=$_d
		else
			LUN=$_d
		fi
	done
	[ $_nb = 0 ] || [ -n "$NULLB" ] ||
		{ fail login "no null_blk disk among $DISKS"; return 1; }
	return 0
}

# max_kb DISK KB: raise max_sectors_kb of DISK to KB (or its hardware limit).
max_kb() {
	_q=/sys/block/${1#/dev/}/queue
	_hw=$(cat "$_q/max_hw_sectors_kb")
	_kb=$2
	[ "$_hw" -lt "$_kb" ] && _kb=$_hw
	echo "$_kb" > "$_q/max_sectors_kb" 2>/dev/null
	cat "$_q/max_sectors_kb"
}

case_begin

# --- D: indirect tables from memory registration -----------------------------
if reload_ib_srp cmd_sg_entries=4 indirect_sg_entries=2048 &&
	start 4096 max_sect=16384; then
	kb=$(max_kb "$LUN" 4096)
	info "D: max_sectors_kb $kb (hw $(cat "/sys/block/${LUN#/dev/}/queue/max_hw_sectors_kb"))"
	dbg=0
	is_ref || { dyndbg srpt_cmd_data on && dbg=1; }
	dmesg_mark
	fio_verify D-seq4m-qd8 "$LUN" write 4m 8 "$(reps 64m 32m)"
	fio_verify D-range-qd16 "$LUN" randwrite 4k 16 "$(reps 32m 16m)" \
		--bsrange=512-4m
	n=$(count_since 'indirect table')
	[ "$dbg" = 1 ] && dyndbg srpt_cmd_data off
	if ours D-indirect-used; then
		if [ "$dbg" = 0 ]; then
			skip D-indirect-used "no dynamic debug: $ERR"
		elif [ "$n" -gt 0 ]; then
			pass D-indirect-used "$n commands with an indirect table ($(dmesg_since | grep -m1 'indirect table' | sed 's/.*: tag/tag/'))"
		else
			fail D-indirect-used "no indirect table seen (max_sectors_kb $kb)"
		fi
	fi
fi
teardown_target || fail teardown "config D"

# --- X: external tables are refused cleanly -------------------------------------
if ours X-external-table &&
	reload_ib_srp never_register=1 allow_ext_sg=1 cmd_sg_entries=4 \
		indirect_sg_entries=64 && start 4096; then
	check X-one-segment dd if=/dev/zero of="$LUN" bs=4k count=16 oflag=direct
	dmesg_mark
	# 256 KiB from an anonymous buffer: 64 pages, far more than 4 segments.
	if run_bounded 120 dd if="$LUN" of=/dev/null bs=256k count=4 iflag=direct; then
		info "X: the 256 KiB read succeeded (its pages were contiguous?)"
	elif [ $? = 124 ]; then
		fail X-external-table "dd hung"
	fi
	n=$(count_since 'malformed SRP_CMD')
	if [ "$n" -gt 0 ]; then
		pass X-external-table "$n commands with an external table answered with CHECK CONDITION"
	else
		fail X-external-table "no external table refused: $(dmesg_since | tail -n 3 | tr '\n' ' ')"
	fi
	check X-after dd if="$LUN" of=/dev/null bs=4k count=16 iflag=direct
fi
teardown_target || fail teardown "config X"

# --- Q, W: the smallest send queue ------------------------------------------------
# indirect_sg_entries lets a 1 MiB SG_IO buffer (256 separate pages) through
# the initiator; memory registration turns it into one descriptor.
# The null_blk LUN completes each request after 20 ms, so that many commands
# finish together and their responses compete for the send queue.
qok=0
if reload_ib_srp indirect_sg_entries=2048; then
	if have module null_blk nr_devices=1 irqmode=2 \
		completion_nsec=20000000 memory_backed=1 gb=1; then
		qok=1
	else
		fail null_blk "$WHY"
	fi
fi
if [ $qok = 1 ] && start 16 --nullb max_sect=2048; then
	kb=$(max_kb "$LUN" 1024)
	dmesg_mark
	# 512 KiB: 4 RDMA WRs per command, 32 commands want 4 times the queue.
	fio_verify Q-rand512k-qd32 "$NULLB" randwrite 512k 32 "$(reps 48m 24m)"
	fio_verify Q-rand4k-qd32 "$NULLB" randwrite 4k 32 "$(reps 8m 4m)"
	fio_verify Q-rd-512k-qd32 "$LUN" randwrite 512k 32 "$(reps 16m 8m)"
	full_w=$(count_since 'IB send queue full (needed')
	full_r=$(count_since 'IB send queue full, response')
	if ours Q-queue-full; then
		if [ $((full_w + full_r)) -gt 0 ]; then
			pass Q-queue-full "retried (rate-limited log lines): $full_w RDMA READ posts, $full_r responses"
		else
			fail Q-queue-full "the send queue never filled up"
		fi
	fi

	# W: READ(10) of 2048 blocks. 1 MiB is 256 pages, 8 RDMA WRITE WRs of 32 SGEs plus the SEND.
	dmesg_mark
	run_bounded 120 sg_raw -r 1048576 -o /tmp/rbuf "$LUN" 28 00 00 00 00 00 00 08 00 00
	rc=$?
	ERR=$(echo "$ERR" | tr '\n' ' ')
	if [ $rc = 124 ]; then
		fail W-too-many-wrs "1 MiB READ hung (max_sectors_kb $kb)"
	elif ours W-too-many-wrs; then
		case $ERR in
		*"Aborted"*[Ii]nsufficient*resources* | *"Aborted"*"55 03"* | *"Aborted"*"0x55"*)
			if [ "$(count_since 'send WRs, the send queue holds')" -gt 0 ]; then
				pass W-too-many-wrs "CHECK CONDITION, ABORTED COMMAND, INSUFFICIENT RESOURCES"
			else
				fail W-too-many-wrs "sense without our log line: $ERR"
			fi ;;
		*) fail W-too-many-wrs "rc $rc: $ERR" ;;
		esac
	else
		info "W: in-kernel driver: rc $rc: $ERR"
	fi
	check W-after dd if="$LUN" of=/dev/null bs=64k count=16 iflag=direct
fi
teardown_target || fail teardown "config Q"
# (the teardown unloads null_blk and loads ib_srp with default parameters)
