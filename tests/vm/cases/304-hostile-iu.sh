# SPDX-License-Identifier: GPL-2.0
# 304-hostile-iu: malformed information units from a logged-in initiator
# (docs/design.md, "Reads stop at the received length"), sent with
# /tools/srp_login (one login per IU):
#  - an indirect table claiming 255 descriptors in a 68-byte IU,
#  - immediate data lengths 0xffffffff and 0xffffffb0 (which wraps
#    imm_data_offset + len to 0 in 32 bits),
#  - a truncated SRP_CMD and a bidirectional one,
#  - a truncated SRP_TSK_MGMT, an unknown opcode;
# and every task management function on an idle LUN: LUN RESET: SUCCESS;
# ABORT TASK SET, CLEAR TASK SET, CLEAR ACA: what LIO answers (it does not
# implement them: FAILED); ABORT TASK of an unknown tag: FAILED; an
# unknown function: NOT SUPPORTED.
# Each malformed SRP_CMD must be answered with an SRP_RSP carrying CHECK
# CONDITION / ILLEGAL REQUEST / INVALID FIELD IN COMMAND IU (0Eh/03h) and
# the tag echoed; the TMF with TASK MANAGEMENT FUNCTION FAILED; the unknown
# opcode with nothing. The target must stay healthy: a TEST UNIT READY
# afterwards is answered and the module unloads (final checks).
# The in-kernel driver oopses or reads out of bounds on some of these
# (BUSY before target_init_cmd, unbounded descriptor table), so with --ref
# only the harmless ones run.
# vmtest-timeout: 240

TAG=0102030405060708
Z4=00000000
LUN0=0000000000000000
READ10=28000000000000000800000000000000	# 8 blocks at LBA 0
WRITE10=2a000000000000000800000000000000
TUR_CDB=00000000000000000000000000000000

requires tool srp_login

# cmd FMT OUT IN CDB: the 48-byte SRP_CMD header as hex
cmd() {
	echo "0200000000$1$2$3$TAG$Z4${LUN0}00000000$4"
}

# byte N of $REPLY (hex), empty if absent
byte() {
	echo "$REPLY" | cut -c$(($1 * 2 + 1))-$(($1 * 2 + 2))
}

# send NAME HEX [srp_login options]: log in, send the IU, set REPLY
send() {
	_sn=$1 _hex=$2
	shift 2
	_o=$(srp_tool srp_login -i "$IPID" -f 0x80 -o 80 -T 3000 -s "$_hex" "$@" 2>&1)
	REPLY=$(echo "$_o" | sed -n 's/^reply=//p')
	if ! echo "$_o" | grep -q '^result=accepted'; then
		fail "$_sn" "login failed: $(echo "$_o" | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# expect_check NAME: REPLY is SRP_RSP, tag echoed, CHECK CONDITION with
# sense ILLEGAL REQUEST / 0Eh / 03h
expect_check() {
	if [ "$(byte 0)" != c1 ]; then
		fail "$1" "no SRP_RSP: reply='$REPLY'"
	elif [ "$(echo "$REPLY" | cut -c17-32)" != "$TAG" ]; then
		fail "$1" "tag not echoed: $REPLY"
	elif [ "$(byte 19)" != 02 ] || [ "$(byte 18)" != 02 ]; then
		fail "$1" "status $(byte 19) flags $(byte 18), expected CHECK CONDITION with sense"
	elif [ "$(byte 38)" != 05 ] || [ "$(byte 48)" != 0e ] || [ "$(byte 49)" != 03 ]; then
		fail "$1" "sense key $(byte 38) asc $(byte 48) ascq $(byte 49)"
	else
		pass "$1" "CHECK CONDITION 5/0e/03"
	fi
}

case_begin --target
dmesg_mark

if is_ref; then
	skip malformed "the in-kernel driver is not safe against these IUs"
else
	# indirect data-in table of 255 descriptors, IU ends after the header
	send indirect-overrun "$(cmd 02 00 ff $READ10)0000000000000000${Z4}00000ff000100000" &&
		expect_check indirect-overrun
	# same with a long IU whose table still does not fit
	send indirect-overrun-long "$(cmd 02 00 ff $READ10)0000000000000000${Z4}00000ff000100000" -S 1024 &&
		expect_check indirect-overrun-long
	# immediate data lengths that overflow
	send imm-huge "$(cmd 30 01 00 $WRITE10)ffffffff" -S 96 &&
		expect_check imm-huge
	send imm-wrap "$(cmd 30 01 00 $WRITE10)ffffffb0" -S 96 &&
		expect_check imm-wrap
	# immediate data announced but not sent
	send imm-short "$(cmd 30 01 00 $WRITE10)00001000" -S 96 &&
		expect_check imm-short
	# bidirectional
	send bidi "$(cmd 11 01 01 $READ10)$(printf '%064d' 0)" &&
		expect_check bidi
	# truncated SRP_CMD (tag present, CDB missing)
	send cmd-truncated "0200000000000000${TAG}00000000" &&
		[ "$(byte 0)" = c1 ] && [ "$(byte 19)" = 02 ] &&
		pass cmd-truncated "CHECK CONDITION" ||
		fail cmd-truncated "reply='$REPLY'"
	# truncated SRP_TSK_MGMT: TMF response FAILED (05)
	send tmf-truncated "0100000000000000${TAG}00000000" &&
		if [ "$(byte 0)" = c1 ] && [ "$(byte 18)" = 01 ] && [ "$(byte 39)" = 05 ]; then
			pass tmf-truncated "FUNCTION FAILED"
		else
			fail tmf-truncated "reply='$REPLY'"
		fi
fi

# task management functions on an idle LUN (docs/design.md, "Task
# management"): response code in byte 3 of the response data (reply byte 39)
# tmf NAME FUNC TASK_TAG EXPECTED_CODES
tmf() {
	send "$1" "0100000000000000${TAG}${Z4}${LUN0}0000${2}00${3}0000000000000000" || return
	if [ "$(byte 0)" != c1 ] || [ "$(byte 18)" != 01 ] ||
	   [ "$(echo "$REPLY" | cut -c17-32)" != "$TAG" ]; then
		fail "$1" "no TMF response: reply='$REPLY'"
		return
	fi
	case " $4 " in
	*" $(byte 39) "*) pass "$1" "response code $(byte 39)" ;;
	*) fail "$1" "response code $(byte 39), expected one of $4" ;;
	esac
}
tmf tmf-lun-reset 08 0000000000000000 00
tmf tmf-abort-task-set 02 0000000000000000 "00 04 05"	# LIO: not supported
tmf tmf-clear-task-set 04 0000000000000000 "00 04 05"
tmf tmf-abort-unknown-tag 01 ffffffffffffffff 05
tmf tmf-clear-aca 40 0000000000000000 "00 04 05"
tmf tmf-unknown-function 80 0000000000000000 04

# unknown opcode: no response, channel stays usable
send unknown-opcode "55000000000000000102030405060708" &&
	[ -z "$REPLY" ] || [ "$REPLY" = none ] && pass unknown-opcode "no response" ||
	fail unknown-opcode "unexpected reply '$REPLY'"

# a valid TEST UNIT READY is still answered with the tag echoed
send tur "$(cmd 00 00 00 $TUR_CDB)" &&
	if [ "$(byte 0)" = c1 ] && [ "$(echo "$REPLY" | cut -c17-32)" = "$TAG" ]; then
		pass tur-after "status $(byte 19)"
	else
		fail tur-after "reply='$REPLY'"
	fi

if ! is_ref; then
	n=$(count_since 'malformed SRP_CMD')
	[ "$n" -gt 0 ] && pass malformed-logged "$n warnings" ||
		fail malformed-logged "no 'malformed SRP_CMD' warning in the log"
fi
teardown_target || fail teardown "configuration left behind"
