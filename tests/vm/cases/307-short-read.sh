# SPDX-License-Identifier: GPL-2.0
# 307-short-read: a READ whose data-in descriptor is longer than what LIO
# transfers must RDMA-write only the bytes LIO produced (issue 10, finding
# 1). Before the fix the target wrote its whole descriptor-sized buffer,
# uninitialised kernel memory included. /tools/srp_xfer registers a region
# filled with 0xa5, sends one SRP_CMD with a direct data-in descriptor
# into it and counts the bytes that changed past the transfer length:
#  - READ(10) of 1 block with a 64 KiB descriptor: LIO cuts the transfer
#    to 512 bytes (target_cmd_size_check): exactly 512 bytes written (the
#    fresh rd_mcp LUN reads zeroes), nothing past them, DIUNDER with
#    data_in_res_cnt 65024;
#  - INQUIRY with allocation length 36 and a 4 KiB descriptor: at most 36
#    bytes written, DIUNDER with 4060;
#  - REPORT LUNS with allocation length and descriptor 4 KiB: LIO shortens
#    the transfer only when the command completes (one LUN: 16 bytes,
#    target_complete_cmd_with_length): at most 16 bytes written, DIUNDER
#    with 4080;
#  - READ(10) of 1 block with an exact 512-byte descriptor: no residual;
#  - READ(10) of 1 block with a 4 KiB descriptor after four READ(10)s of
#    8 blocks (4 KiB) on the same connection (srp_xfer -P): the channel
#    keeps their full 4 KiB buffers for the next commands
#    (srpt_spare_reuse(), docs/design.md "Spare data buffers"), so the
#    last command gets one, and still only 512 bytes may reach the
#    initiator; the dynamic debug line of srpt_spare_reuse() shows that
#    the buffer was reused.
# vmtest-timeout: 180


requires tool srp_xfer

# xfer NAME [srp_xfer options]: one login, the commands, OUT set
xfer() {
	_xn=$1
	shift
	OUT=$(srp_tool srp_xfer -i "$IPID" -T 5000 "$@" 2>&1)
	info "$_xn: $(echo "$OUT" | tr '\n' ' ')"
	if ! echo "$OUT" | grep -q '^result=accepted'; then
		fail "$_xn" "login failed: $(echo "$OUT" | tr '\n' ' ')"
		return 1
	fi
	if ! echo "$OUT" | grep -q '^responses=1$'; then
		fail "$_xn" "no response: $(echo "$OUT" | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# val KEY: value of KEY= in OUT
val() {
	echo "$OUT" | sed -n "s/^$1=//p" | head -n 1
}

# check_short NAME MAX_WRITTEN EXACT(0|1) RESIDUAL: the region kept its
# pattern past the transfer, at most (or, with EXACT, exactly) MAX_WRITTEN
# bytes changed, status GOOD, DIUNDER set with RESIDUAL (0: no DIUNDER)
check_short() {
	_rsp=$(val rsp_1)
	_cst=$(echo "$_rsp" | cut -d: -f1)
	_fl=$(echo "$_rsp" | cut -d: -f2)
	_di=$(echo "$_rsp" | cut -d: -f3)
	_tot=$(val changed_total)
	_bey=$(val changed_beyond)
	_nz=$(val nonzero_beyond)
	if [ "$_bey" != 0 ]; then
		xfail_ref "$1-beyond" "$_bey bytes written past the transfer length ($_nz of them non-zero)"
	else
		pass "$1-beyond" "pattern intact past the transfer"
	fi
	if [ -z "$_tot" ]; then
		fail "$1-written" "no byte count: $(echo "$OUT" | tr '\n' ' ')"
	elif [ "$_tot" -gt "$2" ]; then
		xfail_ref "$1-written" "$_tot bytes written, expected at most $2"
	elif [ "$3" = 1 ] && [ "$_tot" != "$2" ]; then
		fail "$1-written" "$_tot bytes written, expected $2"
	else
		pass "$1-written" "$_tot bytes"
	fi
	if [ "$_cst" != 00 ]; then
		fail "$1-status" "status $_cst"
	elif [ "$4" = 0 ]; then
		[ $((0x$_fl & 0x30)) = 0 ] && pass "$1-residual" "none" ||
			fail "$1-residual" "flags $_fl residual $_di, expected none"
	elif [ $((0x$_fl & 0x20)) = 0 ] || [ "$_di" != "$4" ]; then
		fail "$1-residual" "flags $_fl data_in_res_cnt $_di, expected DIUNDER with $4"
	else
		pass "$1-residual" "DIUNDER $_di"
	fi
}

case_begin --target
# leave non-zero data in free pages (a fresh guest's free memory is mostly
# zero, which would hide what an uninitialised buffer carries). Debian's
# kernels zero pages on allocation (init_on_alloc=1), so there the bytes
# written too many read as zero; the counts of bytes written are what the
# checks use.
dd if=/dev/urandom of=/tmp/307-junk bs=1M count=32 2>/dev/null
rm -f /tmp/307-junk

# READ(10), LBA 0, 1 block
xfer read10-64k -c 28000000000000000100 -d 65536 -e 512 &&
	check_short read10-64k 512 1 65024
# INQUIRY, allocation length 36
xfer inquiry-36 -c 120000002400 -d 4096 -e 36 &&
	check_short inquiry-36 36 0 4060
# REPORT LUNS, allocation length 4096
xfer report-luns -c a0000000000000001000000000 -d 4096 -e 16 &&
	check_short report-luns 16 0 4080
# READ(10) of 1 block with an exact descriptor
xfer read10-exact -c 28000000000000000100 -d 512 -m 4096 -e 512 &&
	check_short read10-exact 512 1 0

# READ(10) of 1 block after READ(10)s of 8 blocks into the same 4 KiB
dbg=0
is_ref || { dyndbg srpt_spare_reuse on && dbg=1; }
dmesg_mark
xfer read10-4k-spare -P 28000000000000000800 -c 28000000000000000100 \
	-d 4096 -e 512 && check_short read10-4k-spare 512 1 3584
[ "$(val prime_rsp)" = 00 ] || fail read10-4k-spare-prime "status of the 4 KiB READs: $(val prime_rsp)"
# srp_xfer writes its tags big-endian, the driver logs the 8 bytes as a
# little-endian u64: tag 1 (the command after the -P ones) reads as 1 << 56
n=$(count_since 'tag 0x100000000000000: spare buffer of 1 pages')
[ "$dbg" = 1 ] && dyndbg srpt_spare_reuse off
if ours read10-4k-spare-reused; then
	if [ "$dbg" = 0 ]; then
		skip read10-4k-spare-reused "no dynamic debug: $ERR"
	elif [ "$n" -ge 1 ]; then
		pass read10-4k-spare-reused "tag 1 got a spare buffer of 1 page ($(count_since 'spare buffer') commands in all)"
	else
		fail read10-4k-spare-reused "the last command did not get a spare buffer ($(count_since 'spare buffer') of the READs before it did)"
	fi
fi

teardown_target || fail teardown "configuration left behind"
