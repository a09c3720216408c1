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
SG=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
SG=${SG#0x}
IID=$(echo "$GID0" | cut -d: -f5-8 | tr -d :)
IPID=0000000000000000$IID

if ! [ -x /tools/srp_login ]; then
	skip all "/tools/srp_login missing"
	exit 0
fi
if is_ref; then
	skip all "tests a fix of srpt-dkms"
	exit 0
fi

if ! srpt_reload srpt_srq_size=$SRQ; then
	fail reload "$ERR"
	srpt_reload
	exit 0
fi
pids=""
if setup_target --no-enable && cfs_write "$TPG/attrib/use_srq" 1 &&
   cfs_write "$TPG/enable" 1; then
	dmesg_mark
	if login queue_size=128; then
		i=0
		while [ $i -lt $NHOLD ]; do
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
else
	fail setup "use_srq=1: $ERR"
fi
# shellcheck disable=SC2086
[ -n "$pids" ] && kill $pids 2>/dev/null
for p in $pids; do wait "$p" 2>/dev/null; done
rm -f /tmp/309-hold*
logout_all
srpt_reload || fail reload-default "$ERR"
