# SPDX-License-Identifier: GPL-2.0
# 315-small-qp: an HCA whose max_qp_wr is smaller than the send queue that
# srp_sq_size asks for (issue 10, review finding 3; docs/design.md, "Send
# queue accounting"). The QP then holds fewer send WRs than half of
# srp_sq_size, and a command that needs more than the QP holds but not more
# than half of srp_sq_size passed the driver's "can this ever be posted"
# check: its RDMA WRITEs waited for send queue room that can never be there,
# LIO retried it forever and the initiator's command hung.
#
# Soft-RoCE allows 16384 WRs per queue, so the debug build's parameter
# debug_max_qp_wr (make SRPT_DEBUG_HOOKS=y, src/debug.c; the case is skipped
# on other builds) makes new channels size their QP as if the HCA allowed 8:
# 6 send WRs for responses and RDMA, 2 spare. With the default srp_sq_size
# (4096) the unfixed check allowed 2048.
#  small-io   64 KiB reads (one RDMA WRITE and the response) work;
#  fio        256 KiB writes and reads at QD 4 with verify: commands wait for
#             send queue room and none is lost;
#  big-read   a 1 MiB READ(10) (256 pages: 8 RDMA WRITEs of 32 SGEs and the
#             response, 9 WRs) is answered with CHECK CONDITION, ABORTED
#             COMMAND, INSUFFICIENT RESOURCES (55h/03h) and the log line
#             "the send queue holds 6"; it must not hang.
# vmtest-timeout: 420

P=/sys/module/ib_srpt/parameters
QP_WR=8
ROOM=$((QP_WR - 2))

requires hooks debug_max_qp_wr
requires ours
case_begin

# a 1 MiB SG_IO buffer is 256 separate pages: indirect_sg_entries lets it
# through the initiator, memory registration makes it one descriptor
reload_ib_srp indirect_sg_entries=2048 || exit 0
echo $QP_WR > $P/debug_max_qp_wr
on_exit "echo 0 > $P/debug_max_qp_wr"
# (the teardown: debug_max_qp_wr 0, target removed, ib_srp defaults)
if target_up --size 64 --login-opts max_sect=2048; then
	LUN=$DISK
	_q=/sys/block/${LUN#/dev/}/queue
	_kb=$(cat "$_q/max_hw_sectors_kb")
	[ "$_kb" -gt 1024 ] && _kb=1024
	echo "$_kb" > "$_q/max_sectors_kb" 2>/dev/null
	info "max_sectors_kb $(cat "$_q/max_sectors_kb")"

	check small-io dd if="$LUN" of=/dev/null bs=64k count=16 iflag=direct
	fio_verify fio-256k-qd4 "$LUN" randwrite 256k 4 "$(reps 16m 8m)"

	# READ(10) of 2048 blocks
	dmesg_mark
	run_bounded 60 sg_raw -r 1048576 -o /tmp/rbuf "$LUN" \
		28 00 00 00 00 00 00 08 00 00
	rc=$?
	ERR=$(echo "$ERR" | tr '\n' ' ')
	held=$(dmesg_since | grep -m1 'send WRs, the send queue holds' |
	       sed 's/.*: tag/tag/')
	if [ $rc = 124 ]; then
		fail big-read "1 MiB READ hung for 60 s (the QP holds $ROOM send WRs)"
	else
		case $ERR in
		*"Aborted"*[Ii]nsufficient*resources* | *"Aborted"*"55 03"* | *"Aborted"*"0x55"*)
			case $held in
			*"holds $ROOM") pass big-read "CHECK CONDITION, INSUFFICIENT RESOURCES: $held" ;;
			*) fail big-read "sense, but the log says: ${held:-nothing}" ;;
			esac ;;
		*) fail big-read "rc $rc: $ERR" ;;
		esac
	fi
	check after dd if="$LUN" of=/dev/null bs=64k count=16 iflag=direct
fi
