# SPDX-License-Identifier: GPL-2.0
# 308-data-budget: what one channel can make the target pin (issue 10,
# finding 7). The target allocates the buffers of a command at the length
# of its data descriptor, before LIO has seen the CDB. /tools/srp_xfer
# sends 32 READ(10) of one block at once, each with a 16 MiB direct
# descriptor, and posts no receive buffer for 6 s, so the responses wait in
# RNR retries and every command keeps its buffers; it samples MemFree
# before sending and every 100 ms of the wait (the target runs in this
# guest) and reports the largest drop. Without a bound that is 512 MiB; with the per-channel budget
# (srpt_ch_data_mb, default 128) at most 128 MiB, and the commands beyond
# it are answered with TASK SET FULL. Then the same with the module loaded
# with srpt_ch_data_mb=32 (0 must make loading fail). All commands get a response, the short reads
# still write only their 512 bytes, and the memory comes back.
# small-sq: the same with srp_sq_size=16 (8 send WRs for responses): most
# TASK SET FULL responses find the send queue full while the first ones
# wait in RNR retries. They are deferred until send completions give the
# queue back, never dropped (a dropped response leaves the initiator's
# command hanging until its own timeout). The port attributes srp_sq_size
# and use_srq outlive the TPG, so each run sets them explicitly.
# vmtest-timeout: 240

N=32
DLEN=$((16 << 20))
PARAM=/sys/module/ib_srpt/parameters/srpt_ch_data_mb

requires tool srp_xfer

# val KEY: value of KEY= in OUT
val() {
	echo "$OUT" | sed -n "s/^$1=//p" | head -n 1
}

memfree() {
	sed -n 's/^MemFree: *\([0-9]*\) kB/\1/p' /proc/meminfo
}

# hold NAME BUDGET_MB: N commands held; pinned memory at most BUDGET_MB
# plus SLACK_MB for everything else the guest does meanwhile: 16 MiB, 64 on
# the sanitizer kernel, where KASAN's quarantine keeps freed objects (up to
# 1/32 of memory) and they count as used (seen: 149 MB with budget 128 MiB)
SLACK_MB=16
is_sanitizer && SLACK_MB=64
hold() {
	OUT=$(srp_tool srp_xfer -i "$IPID" -c 28000000000000000100 -d $DLEN \
		-e 512 -n $N -w 6000 -T 60000 2>&1)
	info "$1: $(echo "$OUT" | grep -v '^rsp_' | tr '\n' ' ')"
	info "$1: statuses $(echo "$OUT" | sed -n 's/^rsp_[0-9]*=\(..\).*/\1/p' | sort | uniq -c | tr '\n' ' ')"
	if ! echo "$OUT" | grep -q '^result=accepted'; then
		fail "$1" "login failed: $(echo "$OUT" | tr '\n' ' ')"
		return
	fi
	# the in-kernel driver drops responses that find the send queue full
	_bad=fail
	[ "$1" = small-sq ] && _bad=xfail_ref
	_pin=$(val pinned_kb)
	_max=$((($2 + SLACK_MB) * 1024))
	if [ -z "$_pin" ] || [ "$_pin" -gt "$_max" ]; then
		xfail_ref "$1-pinned" "$_pin kB pinned by $N commands, budget $2 MiB (+$SLACK_MB)"
	else
		pass "$1-pinned" "$_pin kB pinned (budget $2 MiB)"
	fi
	[ "$(val responses)" = $N ] &&
		pass "$1-responses" "good $(val good), busy/task set full $(val busy)" ||
		$_bad "$1-responses" "$(val responses) of $N responses"
	_good=$(val good)
	_busy=$(val busy)
	if [ $((_good + _busy)) != $N ]; then
		$_bad "$1-status" "good $_good + busy $_busy != $N"
	elif [ "$_good" -lt 1 ]; then
		fail "$1-status" "no command ran"
	else
		pass "$1-status" "$_good GOOD, $_busy TASK SET FULL/BUSY"
	fi
	[ "$(val changed_beyond)" = 0 ] &&
		pass "$1-short-read" "nothing written past 512 bytes" ||
		xfail_ref "$1-short-read" "$(val changed_beyond) bytes written past 512"
}

# port_attribs SQ_SIZE: set the per-port attributes this case depends on
# (they outlive the TPG; earlier cases may have changed them)
port_attribs() {
	cfs_write "$TPG/attrib/use_srq" 0 &&
		cfs_write "$TPG/attrib/srp_sq_size" "$1"
}

case_begin --attr use_srq=0 --attr srp_sq_size=4096

# a first short run, so that the measured ones do not run through code
# the emulator translates for the first time (slow under TCG: the commands
# would still be arriving when MemFree is sampled)
srp_tool srp_xfer -i "$IPID" -c 28000000000000000100 -d 4096 -n 4 -w 500 \
	>/dev/null 2>&1
free0=$(memfree)
hold default 128
# the memory comes back once the responses are taken: MemFree returns to
# within 128 MiB of where it was (the 32 commands held 512 MiB without a
# budget; freed pages may linger a while in per-CPU lists)
returned() { [ $((free0 - $(memfree))) -lt 131072 ]; }
if wait_for 10 returned; then
	pass memory-returned "MemFree $free0 -> $(memfree) kB"
else
	fail memory-returned "MemFree $free0 -> $(memfree) kB"
fi

# small-sq: responses that find the send queue full are deferred
teardown_target || fail teardown "configuration left behind"
if target_up --as small-sq --attr use_srq=0 --attr srp_sq_size=16; then
	dmesg_mark
	hold small-sq 128
	n=$(count_since 'IB send queue full, response of tag .* deferred')
	# On a loaded host the commands can arrive so slowly that the
	# initiator's 6 s without receive buffers is over before the send
	# queue fills: then nothing was tested, and the run is repeated once
	# (seen once on 7.3 with four guests on two CPUs).
	if [ "$n" = 0 ] && ours small-sq-retry; then
		info "small-sq: no response was deferred; once more"
		dmesg_mark
		hold small-sq-retry 128
		n=$(count_since 'IB send queue full, response of tag .* deferred')
	fi
	if ours small-sq-deferred; then
		[ "$n" -gt 0 ] &&
			pass small-sq-deferred "$n responses deferred (rate-limited log lines)" ||
			fail small-sq-deferred "the send queue never filled up"
	fi
fi
teardown_target || fail teardown "configuration left behind"
if setup_target --no-enable && port_attribs 4096; then
	pass restore-attribs "srp_sq_size 4096, use_srq 0"
else
	fail restore-attribs "$ERR"
fi

if is_ref; then
	skip low-budget "no srpt_ch_data_mb in the in-kernel driver"
	teardown_target || fail teardown "configuration left behind"
	exit 0
fi
[ "$(cat $PARAM 2>/dev/null)" = 128 ] && pass param-default "128" ||
	fail param-default "$PARAM: '$(cat $PARAM 2>&1)'"
# out of range: loading fails
if srpt_reload srpt_ch_data_mb=0; then
	fail param-range "srpt_ch_data_mb=0 accepted"
else
	pass param-range "srpt_ch_data_mb=0 refused"
fi
if srpt_reload srpt_ch_data_mb=32 && setup_target; then
	hold low-budget 32
else
	fail low-budget "reload with srpt_ch_data_mb=32: $ERR"
fi
srpt_reload || fail reload "$ERR"
