# SPDX-License-Identifier: GPL-2.0
# 301-sense-residual: SRP_RSP status, sense data and residuals
# (docs/design.md, "Responses") as the initiator sees them through sg_raw:
#  - READ(10) past the end of the LUN: CHECK CONDITION, ILLEGAL REQUEST,
#    LOGICAL BLOCK ADDRESS OUT OF RANGE (21h/00h);
#  - a READ(10) of one block with a two-block buffer: GOOD status and a
#    data-in residual of one block (DIUNDER);
#  - a WRITE(10) of one block with a two-block buffer: LIO rejects length
#    mismatches of WRITE data CDBs, the CHECK CONDITION must arrive;
#  - a READ(10) of two blocks with a one-block buffer: LIO rejects data
#    overflow when the fabric supplies the buffers; must not hang;
#  - an unsupported opcode: CHECK CONDITION, INVALID COMMAND OPERATION
#    CODE (20h/00h), with the sense intact.
# vmtest-timeout: 180

# be32 N: N as four hex bytes separated by spaces (sg_raw CDB syntax)
be32() {
	printf '%02x %02x %02x %02x' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) \
		$(($1 >> 8 & 255)) $(($1 & 255))
}

case_begin --size 16 --login
SG=$DISK
BLOCKS=$(cat "/sys/block/${DISK#/dev/}/size")	# rd_mcp: 512-byte blocks
info "disk $DISK, $BLOCKS blocks of 512 bytes"

# Past the end: LBA = number of blocks.
# shellcheck disable=SC2046 # be32 prints four bytes: four arguments
out=$(sg_raw -r 512 "$SG" 28 00 $(be32 "$BLOCKS") 00 00 01 00 2>&1)
case $out in
*"Check Condition"*)
	case $out in
	*"out of range"* | *"asc=0x21"* | *"21 00"*)
		pass read-past-end "CHECK CONDITION, LBA out of range" ;;
	*) fail read-past-end "wrong sense: $(echo "$out" | tr '\n' ' ')" ;;
	esac ;;
*) fail read-past-end "no CHECK CONDITION: $(echo "$out" | tr '\n' ' ')" ;;
esac

# A CHECK CONDITION from the first LBA that does not exist, also via dd.
if dd if="$DISK" of=/dev/null bs=512 skip="$BLOCKS" count=1 iflag=direct 2>/dev/null; then
	info "dd past the end returned success (0 bytes read is fine)"
fi

# Data-in underflow: CDB wants 1 block, SRP descriptor offers 2.
out=$(sg_raw -r 1024 "$SG" 28 00 00 00 00 00 00 00 01 00 2>&1)
case $out in
*"Received 512 bytes"*) pass read-underflow "residual 512 reported" ;;
*) fail read-underflow "$(echo "$out" | tr '\n' ' ')" ;;
esac

# Data-out length mismatch: CDB writes 1 block, buffer has 2. LIO refuses
# underflow/overflow of WRITE data CDBs ("Rejecting underflow/overflow for
# WRITE data CDB"): CHECK CONDITION, INVALID FIELD IN COMMAND INFORMATION
# UNIT, which must reach the initiator intact.
dd if=/dev/zero of=/tmp/wbuf bs=1024 count=1 2>/dev/null
out=$(sg_raw -s 1024 -i /tmp/wbuf "$SG" 2a 00 00 00 00 10 00 00 01 00 2>&1)
case $out in
*"Invalid field in command information unit"*)
	pass write-mismatch "CHECK CONDITION, INVALID FIELD IN COMMAND IU" ;;
*"Good"* | *"GOOD"*) pass write-mismatch "GOOD status" ;;
*) fail write-mismatch "$(echo "$out" | tr '\n' ' ')" ;;
esac

# Data-in overflow: CDB wants 2 blocks, buffer has 1. Must complete.
out=$(run_bounded 60 sg_raw -r 512 "$SG" 28 00 00 00 00 00 00 00 02 00)
rc=$?
if [ $rc = 124 ]; then
	fail read-overflow "sg_raw hung"
else
	pass read-overflow "completed (rc $rc): $(echo "$ERR" | grep -i 'status\|received\|resid' | tr '\n' ' ')"
fi

# Unsupported opcode: sense must arrive complete.
out=$(sg_raw "$SG" ff 00 00 00 00 00 2>&1)
case $out in
*"Check Condition"*)
	case $out in
	*"Invalid command operation code"* | *"asc=0x20"* | *"20 00"*)
		pass bad-opcode "CHECK CONDITION, INVALID COMMAND OPERATION CODE" ;;
	*) fail bad-opcode "wrong sense: $(echo "$out" | tr '\n' ' ')" ;;
	esac ;;
*) fail bad-opcode "no CHECK CONDITION: $(echo "$out" | tr '\n' ' ')" ;;
esac

# The disk still works after all this.
if dd if="$DISK" of=/dev/null bs=4096 count=16 iflag=direct 2>/dev/null; then
	pass disk-still-works
else
	fail disk-still-works "read after the error cases failed"
fi

teardown_target || fail teardown "left something behind"
