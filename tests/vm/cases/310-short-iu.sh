# SPDX-License-Identifier: GPL-2.0
# 310-short-iu: information units shorter than their header, and the
# credits of SRP_CRED_RSP / SRP_AER_RSP (issue 10, findings 10 and 12).
#
# Receive buffers are reused: IU n + ring size lands in the buffer of IU n,
# and with use_srq=1 the buffers are shared by every channel of the HCA. A
# short IU must be parsed from the bytes received only, never from what an
# earlier IU (possibly another initiator's) left in the buffer. So each
# login first fills every receive buffer with a TEST UNIT READY carrying
# the tag D ("dirty", -r N with N > number of buffers), then sends 0-, 1-,
# 8- and 47-byte IUs of every opcode (SRP_CMD, SRP_TSK_MGMT, SRP_I_LOGOUT,
# SRP_CRED_RSP, SRP_AER_RSP, an unknown one) whose own tag (if they are
# long enough to carry one) is S, then a TEST UNIT READY with tag P.
# Expected (man ib_srpt, NOTES):
#  - no reply ever carries D except the N TURs, nor any tag the initiator
#    never sent (e.g. 0);
#  - an IU shorter than 16 bytes (opcode + tag) gets no reply;
#  - a 47-byte SRP_CMD gets CHECK CONDITION with tag S, a 47-byte
#    SRP_TSK_MGMT gets TASK MANAGEMENT FUNCTION FAILED with tag S, the
#    other opcodes get no reply;
#  - the channel stays usable: P is answered.
# Both without SRQ (ring of 128 buffers per channel) and with use_srq=1
# (srpt_srq_size=16, so 24 TURs dirty the whole SRQ).
# Credits: SRP_CRED_RSP and SRP_AER_RSP are responses; they do not use a
# request credit of the initiator, so the target must not give one back:
# TUR, CRED_RSP, AER_RSP, TUR -> the second SRP_RSP grants 1 credit. An
# unknown opcode uses a credit and gets it back (grant 2).
# vmtest-timeout: 600

D=d1d1d1d1d1d1d1d1
S=5151515151515151
P=a0a0a0a0a0a0a0a0
LUN0=0000000000000000
TUR_CDB=00000000000000000000000000000000
ZERO47=$(printf '%094d' 0)
# How long an IU that must get no reply is waited for. The IUs of a login
# are handled in order, so a reply that should not exist is still seen, as
# the reply read for a later IU (which then misses its own: the final TUR
# P is then counted as unanswered). Waiting longer finds nothing more and
# cost 60 s per run.
NOREPLY_MS=300

requires tool srp_login
# The in-kernel driver reads the tag of a short SRP_CMD from stale bytes
# (the bug under test) and oopses on some hostile IUs.
requires ours "the in-kernel driver is not safe against these IUs"
case_begin

# tur TAG: a 48-byte SRP_CMD with TEST UNIT READY
tur() {
	echo "0200000000000000${1}00000000${LUN0}00000000$TUR_CDB"
}

# short OP LEN: LEN bytes of an IU with opcode OP and tag S, zero padded
short() {
	_h="${1}00000000000000${S}$ZERO47"
	[ "$2" -eq 0 ] && { echo ""; return; }
	echo "$_h" | cut -c1-$(($2 * 2))
}

# login_send ARGS...: one login, the IUs in ARGS (srp_login -s/-S/-r/-W);
# sets OUT (the tool's output) and REPLIES (one reply per line, hex).
# It first waits until the channels of the NLOGIN earlier accepted logins
# since the dmesg mark are released: with use_srq=1 a login is refused
# while the channel before it still holds the SRQ's credits (finding 9).
NLOGIN=0
login_send() {
	if [ "$NLOGIN" -gt 0 ] && ! wait_released "$NLOGIN" 30; then
		info "the channels of $NLOGIN logins were not all released after 30 s"
	fi
	OUT=$(srp_tool srp_login -i "$IPID" -T 5000 "$@" 2>&1)
	REPLIES=$(echo "$OUT" | sed -n 's/^reply=//p' | grep -v '^none$')
	echo "$OUT" | grep -q '^result=accepted' || return 1
	NLOGIN=$((NLOGIN + 1))
}

# analyze: one pass over REPLIES (forks are slow under TCG): sets nD, nS,
# nP (replies carrying D, S, P), OTHER (replies with any other tag) and
# RS (the first reply carrying S)
analyze() {
	# shellcheck disable=SC2046 # the counts, one per positional parameter
	set -- $(echo "$REPLIES" | awk -v d="$D" -v s="$S" -v p="$P" '
		NF { t = substr($0, 17, 16)
		     if (t == d) nd++
		     else if (t == s) { ns++; if (rs == "") rs = $0 }
		     else if (t == p) np++
		     else other = other "," $0 }
		END { printf "%d %d %d %s %s\n", nd, ns, np,
			     rs == "" ? "-" : rs, other == "" ? "-" : other }')
	nD=$1 nS=$2 nP=$3 RS=${4#-} OTHER=${5#-}
}

# reply_with TAG: the first reply carrying TAG
reply_with() {
	echo "$REPLIES" | awk -v t="$1" 'substr($0, 17, 16) == t { print; exit }'
}

# byte HEX N
byte() {
	echo "$1" | cut -c$(($2 * 2 + 1))-$(($2 * 2 + 2))
}

# run_mode MODE NDIRTY: every opcode in one login each
run_mode() {
	_m=$1 _nd=$2
	for op in 02 01 03 41 42 7f; do
		_name=$_m-op$op
		# 47 bytes: a reply is expected for SRP_CMD and SRP_TSK_MGMT
		_w47=$NOREPLY_MS
		case $op in 01|02) _w47=5000 ;; esac
		if ! login_send -W "$NOREPLY_MS" -s "$(tur $D)" -r "$_nd" -W 5000 \
			-s "$(short $op 0)" -s "$(short $op 1)" \
			-s "$(short $op 8)" -s "$(short $op 47)" -W "$_w47" \
			-s "$(tur $P)" -W 5000; then
			fail "$_name" "login failed: $(echo "$OUT" | tr '\n' ' ')"
			continue
		fi
		analyze
		_nD=$nD _nS=$nS _nP=$nP _other=$OTHER _rS=$RS
		_bad=""
		[ "$_nD" -gt "$_nd" ] &&
			_bad="$_bad $((_nD - _nd)) reply(ies) with the stale tag D;"
		[ "$_nD" -lt "$_nd" ] &&
			_bad="$_bad only $_nD of $_nd TURs answered;"
		[ -n "$_other" ] && _bad="$_bad replies with tags never sent:$_other;"
		[ "$_nP" -eq 1 ] || _bad="$_bad final TUR answered $_nP times;"
		case $op in
		02)
			if [ "$_nS" -ne 1 ] || [ "$(byte "$_rS" 0)" != c1 ] ||
			   [ "$(byte "$_rS" 19)" != 02 ]; then
				_bad="$_bad 47-byte SRP_CMD: $_nS replies, '$_rS' (expected CHECK CONDITION);"
			fi
			;;
		01)
			if [ "$_nS" -ne 1 ] || [ "$(byte "$_rS" 18)" != 01 ] ||
			   [ "$(byte "$_rS" 39)" != 05 ]; then
				_bad="$_bad 47-byte SRP_TSK_MGMT: $_nS replies, '$_rS' (expected FAILED);"
			fi
			;;
		*)
			[ "$_nS" -eq 0 ] ||
				_bad="$_bad $_nS replies to opcode $op;"
			;;
		esac
		if [ -z "$_bad" ]; then
			pass "$_name" "no stale tag; $(echo "$REPLIES" | grep -c .) replies"
		else
			fail "$_name" "$_bad replies after the dirtying TURs: $(echo "$REPLIES" | tail -n +$((_nd + 1)) | tr '\n' ' ')"
		fi
	done
}

# credits MODE: SRP_CRED_RSP / SRP_AER_RSP do not return a credit, an
# unknown opcode does. req_lim_delta is bytes 4..7 of an SRP_RSP.
credits() {
	_m=$1
	if login_send -W "$NOREPLY_MS" -s "$(tur $D)" -W 5000 -s "$(short 41 16)" \
		-s "$(short 42 16)" -s "$(tur $P)" -W 5000; then
		_d=$(reply_with $P | cut -c9-16)
		[ "$_d" = 00000001 ] &&
			pass "$_m-cred-aer-rsp-credit" "req_lim_delta 1" ||
			fail "$_m-cred-aer-rsp-credit" "req_lim_delta $_d after CRED_RSP + AER_RSP, expected 00000001"
	else
		fail "$_m-cred-aer-rsp-credit" "login failed: $(echo "$OUT" | tr '\n' ' ')"
	fi
	if login_send -W "$NOREPLY_MS" -s "$(tur $D)" -W 5000 -s "$(short 7f 16)" \
		-s "$(tur $P)" -W 5000; then
		_d=$(reply_with $P | cut -c9-16)
		[ "$_d" = 00000002 ] &&
			pass "$_m-unknown-op-credit" "req_lim_delta 2" ||
			fail "$_m-unknown-op-credit" "req_lim_delta $_d after an unknown opcode, expected 00000002"
	else
		fail "$_m-unknown-op-credit" "login failed: $(echo "$OUT" | tr '\n' ' ')"
	fi
}

# --- without SRQ: 128 receive buffers per channel ---------------------------
if setup_target; then
	dmesg_mark
	NLOGIN=0
	run_mode rq 130
	credits rq
	n=$(dmesg_since | grep -c 'too short')
	info "rq: $n 'too short' warnings"
fi
teardown_target || fail teardown-rq "configuration left behind"

# --- use_srq=1 with a 16-entry SRQ ------------------------------------------
if ! srpt_reload srpt_srq_size=16; then
	fail reload-srq "$ERR"
elif setup_target --no-enable; then
	if ! cfs_write "$TPG/attrib/use_srq" 1; then
		fail use_srq "$ERR"
	elif ! cfs_write "$TPG/enable" 1; then
		fail enable "$ERR"
	else
		dmesg_mark
		NLOGIN=0
		run_mode srq 24
		credits srq
	fi
fi
srpt_reload || fail reload-default "$ERR"
