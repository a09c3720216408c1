# SPDX-License-Identifier: GPL-2.0
# 309-srq-credits: with use_srq=1 the credits granted to all channels of
# the HCA never add up to more than the SRQ holds (issue 10, finding 9).
#
# Each credit lets the initiator send one IU without waiting; with an SRQ
# every channel receives from the same srpt_srq_size buffers. Here the SRQ
# has 64 entries; the kernel initiator logs in with one channel per CPU
# and queue_size=128, then 5 more channels (srp_login, multichannel, same
# nexus) log in and stay connected. The grants (the rq_size of the
# "Accepted login" lines) must add up to at most 64; logins beyond that
# are refused with INSUFFICIENT RESOURCES (man ib_srpt.4, srpt_srq_size).
# With all of them connected, fio with verify at queue depth 128 must pass
# without SCSI aborts, resets or timeouts.
# vmtest-timeout: 500

SRQ=64
NHOLD=5

requires tool srp_login
requires ours "tests a fix of srpt-dkms"
case_begin
# (the teardown stops the holders, then logs out and reloads ib_srpt)
on_exit stop_holders

pids=""
stop_holders() {
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2>/dev/null
	for p in $pids; do wait "$p" 2>/dev/null; done
	pids=""
	rm -f /tmp/309-hold*
}

if ! srpt_reload srpt_srq_size=$SRQ; then
	fail reload "$ERR"
	exit 0
fi
if target_up --attr use_srq=1; then
	dmesg_mark
	if login queue_size=128; then
		i=0
		while [ $i -lt $NHOLD ]; do
			# (the tool itself, not srp_tool: kill must reach it)
			/tools/srp_login -a "$IP" -p "$CM_PORT" -g "$SG" \
				-i "$IPID" -f 1 -T 5000 -H 120000 \
				> /tmp/309-hold$i 2>&1 &
			pids="$pids $!"
			wait_for 20 grep -q '^result=' /tmp/309-hold$i ||
				info "holder $i: no login result"
			info "holder $i: $(grep '^result=\|^req_lim_delta=\|^reason=' /tmp/309-hold$i | tr '\n' ' ')"
			i=$((i + 1))
		done
		grants=$(dmesg_since | sed -n 's/.*Accepted login of .*rq_size \([0-9]*\).*/\1/p' | tr '\n' ' ')
		sum=0
		for g in $grants; do sum=$((sum + g)); done
		if [ "$sum" -le $SRQ ]; then
			pass credit-sum "grants $grants= $sum <= srpt_srq_size $SRQ"
		else
			fail credit-sum "grants $grants= $sum > srpt_srq_size $SRQ"
		fi
		n=$(grep -l '^result=rejected' /tmp/309-hold* 2>/dev/null | wc -l)
		info "$n of $NHOLD extra logins refused"
		fio_verify fio-srq-qd128 "$DISK" randwrite 4k 128 16m
		fio_verify fio-srq-seq-qd64 "$DISK" write 64k 64 32m
		bad=$(dmesg_since | grep -i -c 'abort\|timed out\|timing out\|host reset\|device reset\|RNR')
		[ "$bad" -eq 0 ] && pass no-stalls "no aborts, resets or timeouts" ||
			fail no-stalls "$(dmesg_since | grep -i -m3 'abort\|timed out\|timing out\|host reset\|device reset\|RNR' | tr '\n' ' ')"
	else
		fail login "$ERR"
	fi
fi
stop_holders
logout_all
srpt_reload || fail reload-default "$ERR"
