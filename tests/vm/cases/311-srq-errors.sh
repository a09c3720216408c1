# SPDX-License-Identifier: GPL-2.0
# 311-srq-errors: receive buffers of the shared receive queue survive
# receive completions with an error status (issue 10, finding 8).
#
# With use_srq=1 the receive buffers belong to the HCA's SRQ, not to a
# channel. An IU larger than the receive buffer (srp_max_req_size) ends in
# a receive completion with an error status on the target, and the channel
# dies; the buffer it had taken from the SRQ must go back to the SRQ, or
# every such login shrinks the HCA-wide queue by one until no initiator
# can send anything. Here the SRQ has 8 entries (srpt_srq_size=8), 12
# logins each send one 9000-byte IU (above the 8276-byte default), then a
# new login must still get answers to 12 TEST UNIT READYs in a row, and
# the kernel initiator must log in and pass a verified fio run.
# vmtest-timeout: 400

P=a0a0a0a0a0a0a0a0
TUR="0200000000000000${P}000000000000000000000000000000000000000000000000000000000000000000000000"
NBAD=12

requires tool srp_login
requires ours "tests a fix of srpt-dkms"
case_begin

if ! srpt_reload srpt_srq_size=8; then
	fail reload "$ERR"
	exit 0
fi
if target_up --attr use_srq=1; then
	dmesg_mark
	# One login at a time: each channel holds its share of the SRQ's
	# credits until it is released, and logins are refused when the SRQ
	# is fully promised (finding 9), so wait for the release.
	i=0 errs=0
	while [ $i -lt $NBAD ]; do
		srp_tool srp_login -i "$IPID" -T 3000 -s "$TUR" -S 9000 -W 1000 2>&1 |
			grep -q '^result=accepted' || errs=$((errs + 1))
		i=$((i + 1))
		wait_for 30 released_ge $((i - errs)) ||
			info "channel of oversized login $i not released after 30 s"
	done
	[ $errs -eq 0 ] || info "$errs of $NBAD oversized logins not accepted"
	n=$(dmesg_since | grep -c 'receive failed')
	info "$n receive completions with an error status logged"
	out=$(srp_tool srp_login -i "$IPID" -T 5000 -s "$TUR" -r 12 -W 3000 2>&1)
	echo "$out" | grep -q '^result=accepted' ||
		info "final login: $(echo "$out" | grep '^result=\|^reason=' | tr '\n' ' ')"
	n=$(echo "$out" | grep -c "^reply=c1")
	if [ "$n" -eq 12 ]; then
		pass srq-after-oversized "12 of 12 TURs answered after $NBAD oversized IUs"
		if login; then
			fio_verify fio-srq "$DISK" randwrite 4k 32 4m
		else
			fail login "$ERR"
		fi
	else
		fail srq-after-oversized "$n of 12 TURs answered after $NBAD oversized IUs (SRQ of 8 drained?)"
	fi
fi
srpt_reload || fail reload-default "$ERR"
