# SPDX-License-Identifier: GPL-2.0
# 324-initiator-budget: what one initiator, and all initiators of a port
# together, can make the target pin, however many channels they open. The
# per-channel budget (srpt_ch_data_mb, 308-data-budget) alone lets an
# initiator pin 128 MiB more with each channel it logs in. Each hold below
# runs 4 /tools/srp_xfer at once, each on its own channel (-M: multichannel
# MULTI), each sending 8 READ(10) of one block with a 16 MiB descriptor and
# posting no receive buffer for 15 s: every admitted command keeps its
# 16 MiB meanwhile, the others get TASK SET FULL. MemFree (the target runs
# in this guest) is sampled by each tool.
#  - one initiator port ID on all 4 channels, srpt_nexus_data_mb=128: at
#    most 8 commands are admitted in all (8 x 16 MiB), pinned memory stays
#    within 128 MiB (before: 32 admitted, 512 MiB); meanwhile a second
#    initiator's commands all run;
#  - 4 initiator port IDs, srpt_nexus_data_mb=1024 and srpt_port_data_mb=128:
#    the same bound for the port;
#  - the parameters' defaults (1024, 4096) and their range (0 refused).
# vmtest-timeout: 300

requires tool srp_xfer
requires ours "srpt_nexus_data_mb and srpt_port_data_mb are srpt-dkms parameters"

P=/sys/module/ib_srpt/parameters
N=8
K=4
DLEN=$((16 << 20))
HOLD_MS=15000

# port IDs: initiator k (1..K+1) is 00..0k + the interface ID; 1 is IPID
ipid_of() {
	printf '%014x%02x%s' 0 "$1" "$IID"
}

srp_ids	# IID, for the ACL names
acls=""
k=1
while [ $k -le $((K + 1)) ]; do
	acls="$acls --acl 0x$(ipid_of $k)"
	k=$((k + 1))
done
# shellcheck disable=SC2086
case_begin --attr use_srq=0 --attr srp_sq_size=4096 $acls
on_exit 'echo 1024 > $P/srpt_nexus_data_mb; echo 4096 > $P/srpt_port_data_mb'

[ "$(cat $P/srpt_nexus_data_mb 2>/dev/null)" = 1024 ] &&
	pass nexus-default 1024 || fail nexus-default "'$(cat $P/srpt_nexus_data_mb 2>&1)'"
[ "$(cat $P/srpt_port_data_mb 2>/dev/null)" = 4096 ] &&
	pass port-default 4096 || fail port-default "'$(cat $P/srpt_port_data_mb 2>&1)'"
for v in 0 1048577 x; do
	if cfs_write $P/srpt_nexus_data_mb $v; then
		fail "range-$v" "srpt_nexus_data_mb=$v accepted"
	else
		pass "range-$v" "refused: $ERR"
	fi
done

# val FILE KEY: value of KEY= in FILE
val() {
	sed -n "s/^$2=//p" "$1" | head -n 1
}

# a warm-up, so that the measured holds do not run through code the
# emulator translates for the first time
srp_tool srp_xfer -i "$(ipid_of 1)" -c 28000000000000000100 -d 4096 -n 4 \
	-w 500 >/dev/null 2>&1

# hold NAME BUDGET_MB SAME: K tools at once, on one initiator port ID if
# SAME is 1, else on K different ones; at most BUDGET_MB / 16 commands may
# be admitted (GOOD) in all, and the memory they pin stays within the
# budget plus SLACK_MB (see 308-data-budget) plus the 16 MiB regions of
# the other K - 1 tools (each tool takes its first sample after filling
# its own region, but perhaps before the others fill theirs)
SLACK_MB=$((16 + (K - 1) * 16))
is_sanitizer && SLACK_MB=$((SLACK_MB + 48))
hold() {
	_k=1
	while [ $_k -le $K ]; do
		_id=1
		[ "$3" = 1 ] || _id=$_k
		srp_tool srp_xfer -M -i "$(ipid_of $_id)" -c 28000000000000000100 \
			-d $DLEN -e 512 -n $N -w $HOLD_MS -T 90000 \
			> /tmp/324.$_k 2>&1 &
		_k=$((_k + 1))
	done
	if [ "$1" = nexus ]; then
		# a second initiator, while the first holds its budget
		nap 5
		OUT=$(srp_tool srp_xfer -i "$(ipid_of $((K + 1)))" \
			-c 28000000000000000100 -d $((1 << 20)) -e 512 -n 4 \
			-T 60000 2>&1)
		[ "$(echo "$OUT" | sed -n 's/^good=//p')" = 4 ] &&
			pass other-initiator "4 of 4 commands GOOD" ||
			fail other-initiator "$(echo "$OUT" | grep -v '^rsp_' | tr '\n' ' ')"
	fi
	wait
	_good=0 _busy=0 _rsp=0 _pin=0 _acc=0
	_k=1
	while [ $_k -le $K ]; do
		_f=/tmp/324.$_k
		info "$1 tool $_k: $(grep -v '^rsp_' $_f | tr '\n' ' ')"
		grep -q '^result=accepted' $_f && _acc=$((_acc + 1))
		_v=$(val $_f good)
		_good=$((_good + ${_v:-0}))
		_v=$(val $_f busy)
		_busy=$((_busy + ${_v:-0}))
		_v=$(val $_f responses)
		_rsp=$((_rsp + ${_v:-0}))
		_p=$(val $_f pinned_kb)
		[ -n "$_p" ] && [ "$_p" -gt $_pin ] && _pin=$_p
		_k=$((_k + 1))
	done
	rm -f /tmp/324.*
	if [ $_acc != $K ]; then
		fail "$1-logins" "$_acc of $K logins accepted"
		return
	fi
	[ $_rsp = $((K * N)) ] && pass "$1-responses" "$_rsp" ||
		fail "$1-responses" "$_rsp of $((K * N)) responses"
	_max=$(($2 / 16))
	if [ $_good -ge 1 ] && [ $_good -le $_max ]; then
		pass "$1-admitted" "$_good GOOD (at most $_max), $_busy TASK SET FULL"
	else
		fail "$1-admitted" "$_good GOOD (1..$_max allowed), $_busy TASK SET FULL"
	fi
	if [ $_pin -le $((($2 + SLACK_MB) * 1024)) ]; then
		pass "$1-pinned" "$_pin kB pinned at most (budget $2 MiB)"
	else
		fail "$1-pinned" "$_pin kB pinned, budget $2 MiB (+$SLACK_MB)"
	fi
}

cfs_write $P/srpt_nexus_data_mb 128 || fail set-nexus "$ERR"
hold nexus 128 1

cfs_write $P/srpt_nexus_data_mb 1024 || fail reset-nexus "$ERR"
cfs_write $P/srpt_port_data_mb 128 || fail set-port "$ERR"
hold port 128 0
