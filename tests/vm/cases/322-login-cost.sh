# SPDX-License-Identifier: GPL-2.0
# 322-login-cost: a login that no ACL matches must cost the target next to
# nothing, whatever the channel depth. With srp_rq_size at the HCA's
# maximum (rxe: 32748) a channel maps hundreds of MiB of rings; before the
# fix every login allocated them (and posted its receives) before the ACL
# lookup, and logins are handled one at a time, so a stream of unknown
# initiators held up everything else of the port. Now the ACL is looked up
# first (srpt_login_acl_known()).
#  - 12 logins with random initiator port IDs (srp_login_loop -r) are all
#    refused with CHANNEL_LIMIT_REACHED; MemFree, sampled every 0.1 s,
#    drops by less than 64 MiB meanwhile (before: by the rings of one
#    channel, about 340 MiB) and is back within 64 MiB afterwards;
#  - while 24 more are refused, a login of the known initiator (srp_login,
#    its ACL) is accepted;
#  - the time of the refused logins is printed.
# On the sanitizer kernel the depth is a quarter of the maximum (its
# KASAN shadow and quarantine make the known login's rings costly); the
# before/after difference shows on the stock kernels.
# vmtest-timeout: 400

requires tool srp_login_loop
requires tool srp_login
requires ours "srp_rq_size is an srpt-dkms attribute"
case_begin --target
on_exit 'cfs_write "$TPG/attrib/srp_rq_size" 128'

memfree() {
	sed -n 's/^MemFree: *\([0-9]*\) kB/\1/p' /proc/meminfo
}

# sampler FILE: the smallest MemFree into FILE until FILE.stop exists
sampler() {
	_min=$(memfree)
	while ! [ -e "$1.stop" ]; do
		_m=$(memfree)
		[ "$_m" -lt "$_min" ] && _min=$_m
		echo "$_min" > "$1"
		nap 0.1
	done
}

A=$TPG/attrib/srp_rq_size
dmesg_mark
try sh -c "echo 65536 > $A"
hi=$(dmesg_since | sed -n "s/.*srp_rq_size: invalid value '65536' (accepted: 16\.\.\([0-9]*\)).*/\1/p" | tail -n 1)
if [ -z "$hi" ] || ! cfs_write "$A" "$hi"; then
	fail max-depth "no upper bound of srp_rq_size ('$hi'): $ERR"
	exit 0
fi
# the sanitizer kernel: a quarter of it, for the known login's rings
is_sanitizer && hi=$((hi / 4)) && cfs_write "$A" "$hi"
pass max-depth "srp_rq_size $hi"

free0=$(memfree)
rm -f /tmp/322-min /tmp/322-min.stop
sampler /tmp/322-min &
spid=$!
OUT=$(srp_tool srp_login_loop -n 12 -r -T 60000 2>&1)
touch /tmp/322-min.stop
wait $spid
info "refused: $(echo "$OUT" | tr '\n' ' ')"
rej=$(echo "$OUT" | sed -n 's/^rejected=//p')
reason=$(echo "$OUT" | sed -n 's/^reason=//p')
if [ "$rej" = 12 ] && [ "$reason" = 0x00010006 ]; then
	pass refused "12 of 12 with CHANNEL_LIMIT_REACHED"
else
	fail refused "$(echo "$OUT" | tr '\n' ' ')"
fi
drop=$(( (free0 - $(cat /tmp/322-min)) / 1024 ))
if [ "$drop" -lt 64 ]; then
	pass memory-peak "MemFree dropped by $drop MiB at most"
else
	fail memory-peak "MemFree dropped by $drop MiB during refused logins"
fi
back() { [ $(( (free0 - $(memfree)) / 1024 )) -lt 64 ]; }
if wait_for 20 back; then
	pass memory-after "MemFree $free0 -> $(memfree) kB"
else
	fail memory-after "MemFree $free0 -> $(memfree) kB"
fi

# a known initiator gets in while unknown ones keep trying
srp_tool srp_login_loop -n 24 -r -T 60000 > /tmp/322-flood 2>&1 &
fpid=$!
nap 1
expect_tool_login known-login srp_login -T 60000
wait $fpid
info "second flood: $(tr '\n' ' ' < /tmp/322-flood)"
