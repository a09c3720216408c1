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
# vmtest-timeout: 240

SG=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
SG=${SG#0x}
IID=$(echo "$GID0" | cut -d: -f5-8 | tr -d :)
IPID=0000000000000000$IID
N=32
DLEN=$((16 << 20))
PARAM=/sys/module/ib_srpt/parameters/srpt_ch_data_mb

if ! [ -x /tools/srp_xfer ]; then
	skip all "/tools/srp_xfer missing"
	exit 0
fi

# val KEY: value of KEY= in OUT
val() {
	echo "$OUT" | sed -n "s/^$1=//p" | head -n 1
}

memfree() {
	sed -n 's/^MemFree: *\([0-9]*\) kB/\1/p' /proc/meminfo
}

# hold NAME BUDGET_MB: N commands held; pinned memory at most BUDGET_MB
# (plus 16 MiB of slack for everything else the guest does meanwhile)
hold() {
	OUT=$(/tools/srp_xfer -a "$IP" -p "$CM_PORT" -g "$SG" -i "$IPID" \
		-c 28000000000000000100 -d $DLEN -e 512 -n $N -w 6000 \
		-T 60000 2>&1)
	info "$1: $(echo "$OUT" | grep -v '^rsp_' | tr '\n' ' ')"
	info "$1: statuses $(echo "$OUT" | sed -n 's/^rsp_[0-9]*=\(..\).*/\1/p' | sort | uniq -c | tr '\n' ' ')"
	if ! echo "$OUT" | grep -q '^result=accepted'; then
		fail "$1" "login failed: $(echo "$OUT" | tr '\n' ' ')"
		return
	fi
	_pin=$(val pinned_kb)
	_max=$((($2 + 16) * 1024))
	if [ -z "$_pin" ] || [ "$_pin" -gt "$_max" ]; then
		xfail_ref "$1-pinned" "$_pin kB pinned by $N commands, budget $2 MiB"
	else
		pass "$1-pinned" "$_pin kB pinned (budget $2 MiB)"
	fi
	[ "$(val responses)" = $N ] &&
		pass "$1-responses" "good $(val good), busy/task set full $(val busy)" ||
		fail "$1-responses" "$(val responses) of $N responses"
	_good=$(val good)
	_busy=$(val busy)
	if [ $((_good + _busy)) != $N ]; then
		fail "$1-status" "good $_good + busy $_busy != $N"
	elif [ "$_good" -lt 1 ]; then
		fail "$1-status" "no command ran"
	else
		pass "$1-status" "$_good GOOD, $_busy TASK SET FULL/BUSY"
	fi
	[ "$(val changed_beyond)" = 0 ] &&
		pass "$1-short-read" "nothing written past 512 bytes" ||
		xfail_ref "$1-short-read" "$(val changed_beyond) bytes written past 512"
}

if ! setup_target; then
	teardown_target
	exit 0
fi

# a first short run, so that the measured ones do not run through code
# the emulator translates for the first time (slow under TCG: the commands
# would still be arriving when MemFree is sampled)
/tools/srp_xfer -a "$IP" -p "$CM_PORT" -g "$SG" -i "$IPID" \
	-c 28000000000000000100 -d 4096 -n 4 -w 500 >/dev/null 2>&1
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
