# SPDX-License-Identifier: GPL-2.0
# 316-deep-queue: the srp_rq_size TPG attribute sets the channel depth
# (credits granted at login, receive ring, LIO tags); issue 13, "Deeper
# queues"; docs/design.md, "Channel depth"; ib_srpt(4), attrib/srp_rq_size.
#
# The LUN is a memory-backed null_blk that completes every request after
# 200 ms, so requests pile up and the number in flight at the initiator
# (/sys/block/sdX/inflight) shows the depth the target grants. (With 10 ms
# the count followed the speed of the emulated CPU rather than the depth:
# 175 to 188 on an idle host, 82 in a clean-clone run with the host steps
# beside it. At 200 ms even an eighth of the slowest rate seen fills 256.) The kernel
# initiator logs in with one channel and queue_size=1024, so only the
# target's grant limits it; ib_srp sets can_queue to the credits minus one
# it keeps for task management.
#   default  srp_rq_size reads 128; the login grants 128 (log line,
#            req_lim), can_queue is 127 and fio at QD 256 never has more
#            than 127 requests in flight (the cap of every SRP target so far)
#   invalid  below 16, above 65535 or what rxe's queues hold (the range
#            in the warning), non-numeric: EINVAL, a one-line warning, the
#            value is kept; the bounds themselves are accepted
#   deep     srp_rq_size=512: the next login grants 512, can_queue is 511,
#            fio with verify at QD 256 passes and more than 128 requests
#            were in flight at once
# A failure of "deep" means the depth is not applied (or not advertised);
# of "default", that existing configurations changed behaviour. On the
# sanitizer kernel the two in-flight checks are skipped (see slow_kernel).
# vmtest-timeout: 180

requires ours "srp_rq_size is an srpt-dkms attribute"
requires module null_blk nr_devices=1 irqmode=2 completion_nsec=200000000 \
	memory_backed=1 gb=1
case_begin
# The attribute belongs to the port and outlives the TPG: put it back.
on_exit 'cfs_write "$TPG/attrib/srp_rq_size" 128'

# pick_nullb: set NB to the null_blk disk (1 GiB) among $DISKS.
pick_nullb() {
	NB=""
	for _d in $DISKS; do
		[ "$(cat "/sys/block/${_d#/dev/}/size")" -gt 262144 ] && NB=$_d
	done
	[ -n "$NB" ] || { fail login "no null_blk disk among $DISKS"; return 1; }
}

# host_attr DISK ATTR: the scsi_host attribute ATTR of DISK's SCSI host.
host_attr() {
	_h=$(readlink -f "/sys/block/${1#/dev/}/device" |
		sed -n 's|.*/\(host[0-9]*\)/.*|\1|p')
	cat "/sys/class/scsi_host/$_h/$2" 2>/dev/null
}

# inflight_max DISK FILE: write to FILE the most requests DISK has had in
# flight at once, until FILE.stop exists (at most 90 s). Run in the
# background.
inflight_max() {
	_m=0 _end=$(( $(date +%s) + 90 ))
	echo 0 > "$2"
	while [ ! -e "$2.stop" ] && [ "$(date +%s)" -lt $_end ]; do
		# shellcheck disable=SC2046 # two numbers: reads, writes
		set -- "$1" "$2" $(cat "/sys/block/${1#/dev/}/inflight")
		[ $(($3 + $4)) -gt $_m ] && { _m=$(($3 + $4)); echo $_m > "$2"; }
		sleep 0.05
	done
}

req_lim_is() { [ "$(host_attr "$NB" req_lim)" = "$1" ]; }
# grant_check NAME DEPTH: the login since the last dmesg_mark was granted
# DEPTH credits and the initiator saw them.
grant_check() {
	_g=$(dmesg_since | sed -n 's/.*Accepted login of .*rq_size \([0-9]*\).*/\1/p' | tr '\n' ' ')
	# req_lim counts the credits not in use: wait until the commands of
	# the disk scan (200 ms each) have completed
	wait_for 20 req_lim_is "$2"
	_rl=$(host_attr "$NB" req_lim) _cq=$(host_attr "$NB" can_queue)
	if [ "$_g" = "$2 " ] && [ "$_rl" = "$2" ] && [ "$_cq" = $(($2 - 1)) ]; then
		pass "$1-grant" "rq_size $_g, req_lim $_rl, can_queue $_cq"
	else
		fail "$1-grant" "rq_size '$_g', req_lim '$_rl', can_queue '$_cq' (want $2, $2, $(($2 - 1)))"
	fi
}

# slow_kernel NAME MAX: on the sanitizer kernel, report the in-flight
# check NAME as skipped and return 0. There each command costs about
# 45 ms of CPU under TCG (1024 4 KiB I/Os took 46 s), so the initiator
# dispatches too slowly for requests to pile up even behind a 200 ms
# backend: the in-flight count says nothing about the depth. The grant, can_queue
# and the verify at QD 256 are still checked there.
slow_kernel() {
	is_sanitizer || return 1
	skip "$1" "sanitizer kernel too slow to pile up requests (max $2 in flight)"
}

LOGIN="queue_size=1024 ch_count=1"

# --- default ----------------------------------------------------------------
dmesg_mark
target_up --size 16 --lun iblock_0 nullb udev_path=/dev/nullb0 \
	--login-opts "$LOGIN" || exit 0
pick_nullb || exit 0
d=$(cat "$TPG/attrib/srp_rq_size")
[ "$d" = 128 ] && pass default-attr "srp_rq_size $d" ||
	fail default-attr "srp_rq_size '$d', want 128"
grant_check default 128
rm -f /tmp/316-if /tmp/316-if.stop
inflight_max "$NB" /tmp/316-if &
ipid=$!
fio --name=qd256 --filename="$NB" --rw=randread --bs=4k --iodepth=256 \
	--ioengine=libaio --direct=1 --time_based --runtime=2 \
	--output=/dev/null 2>/dev/null
touch /tmp/316-if.stop
wait $ipid
m=$(cat /tmp/316-if)
if slow_kernel default-inflight "$m"; then
	:
elif [ "$m" -le 127 ] && [ "$m" -ge 32 ]; then
	pass default-inflight "at most $m requests in flight at QD 256"
else
	fail default-inflight "$m requests in flight at QD 256 (want 32..127)"
fi
logout_all || fail logout "$ERR"

# --- invalid values -----------------------------------------------------------
A=$TPG/attrib/srp_rq_size
dmesg_mark
for v in 15 0 65536 -1 abc 4294967312 ""; do
	expect_err "reject-'$v'" "$EINVAL" sh -c "echo '$v' > $A"
done
# The upper bound depends on the HCA (rxe: 32748, from its max_cqe);
# the refusal names the range.
hi=$(dmesg_since | sed -n "s/.*srp_rq_size: invalid value '65536' (accepted: 16\.\.\([0-9]*\)).*/\1/p" | tail -n 1)
if [ -n "$hi" ] && [ "$hi" -ge 512 ] && [ "$hi" -le 65535 ]; then
	pass reject-range "accepted: 16..$hi"
else
	fail reject-range "no range in the kernel log ('$hi')"
	hi=512
fi
[ "$hi" -lt 65535 ] &&
	expect_err "reject-max+1" "$EINVAL" sh -c "echo $((hi + 1)) > $A"
d=$(cat "$A")
[ "$d" = 128 ] && pass reject-kept "srp_rq_size $d" ||
	fail reject-kept "srp_rq_size '$d' after invalid writes"
n=$(count_since 'srp_rq_size: invalid value')
[ "$n" -ge 7 ] && pass reject-warn "$n warnings" ||
	fail reject-warn "$n 'srp_rq_size: invalid value' lines for 7 or 8 writes"
for v in 16 "$hi" 0x200; do
	if cfs_write "$A" "$v" && [ "$(cat "$A")" = $((v)) ]; then
		pass "accept-$v"
	else
		fail "accept-$v" "${ERR:-read back $(cat "$A")}"
	fi
done

# --- depth 512 ----------------------------------------------------------------
d=$(cat "$A")
[ "$d" = 512 ] || fail deep-attr "srp_rq_size '$d', want 512"
dmesg_mark
if login $LOGIN && pick_nullb; then
	grant_check deep 512
	rm -f /tmp/316-if /tmp/316-if.stop
	inflight_max "$NB" /tmp/316-if &
	ipid=$!
	fio_verify deep-qd256 "$NB" randwrite 4k 256 "$(reps 16m 8m)"
	touch /tmp/316-if.stop
	wait $ipid
	m=$(cat /tmp/316-if)
	if slow_kernel deep-inflight "$m"; then
		:
	elif [ "$m" -gt 128 ]; then
		pass deep-inflight "$m requests in flight at QD 256"
	else
		fail deep-inflight "at most $m requests in flight at QD 256 (want > 128)"
	fi
else
	fail login "${ERR:-no null_blk disk}"
fi
