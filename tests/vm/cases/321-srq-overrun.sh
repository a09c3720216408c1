# SPDX-License-Identifier: GPL-2.0
# 321-srq-overrun: on a port with use_srq=1 every channel of the HCA
# receives into the same srpt_srq_size buffers, and the credit grants add
# up to at most that (309-srq-credits). An initiator that ignores its
# credits must not take the buffers of the others: /tools/srp_flood (its
# own initiator port ID, so its own nexus) posts no receive buffer for its
# responses (they wait in the target's RNR retries, so its send contexts
# stay busy) and sends 1000 READs past its grant, then stays connected.
# Before the fix every IU past the grant kept an SRQ buffer on the
# channel's wait list, the SRQ ran dry and the ib_srp channels of the same
# HCA received nothing. Now an IU past the grant on the SRQ goes straight
# back to the SRQ and the channel is closed (the initiator broke the
# protocol; ib_srp never does).
# Checks: 4 MiB written, read back and compared through ib_srp while the
# flood runs, within 90 s (the time is printed beside the idle one); the
# flooding channel is closed and released, its tool sees the disconnect;
# the ib_srp disk still works afterwards; the module unloads.
# vmtest-timeout: 480

requires tool srp_flood
case_begin
on_exit stop_flood

FPID=""
stop_flood() {
	[ -n "$FPID" ] && kill "$FPID" 2>/dev/null
	[ -n "$FPID" ] && wait "$FPID" 2>/dev/null
	FPID=""
}

# io NAME: 4 MiB through the ib_srp disk and back, compared; IO_S = seconds
io() {
	now_s
	_t0=$NOW
	if run_bounded 90 sh -c "dd if=/tmp/so.pat of='$DISK' bs=64k oflag=direct 2>&1 &&
		dd if='$DISK' of=/tmp/so.back bs=64k count=64 iflag=direct 2>&1 &&
		cmp /tmp/so.pat /tmp/so.back"; then
		now_s
		IO_S=$((NOW - _t0))
		pass "$1" "4 MiB written, read and compared in ${IO_S} s"
	else
		now_s
		IO_S=$((NOW - _t0))
		fail "$1" "4 MiB not through in ${IO_S} s: $(echo "$ERR" | tail -n 2 | tr '\n' ' ')"
	fi
}

srpt_reload srpt_srq_size=256 || { fail reload "$ERR"; exit 0; }
target_up --attr use_srq=1 --login || exit 0
# an ACL of its own for the flooding initiator port ID (a nexus of its own)
FID=0000000000000001$IID
FACL=$TPG/acls/0x$FID
if ! mkdir "$FACL" || ! mkdir "$FACL/lun_0" ||
   ! ln -s "$TPG/lun/lun_0" "$FACL/lun_0/map0"; then
	fail flood-acl "ACL 0x$FID"
	exit 0
fi
dd if=/dev/urandom of=/tmp/so.pat bs=64k count=64 2>/dev/null
io idle-io
t_idle=$IO_S

dmesg_mark
/tools/srp_flood -a "$IP" -p "$CM_PORT" -g "$SG" \
	-i "$FID" -T 20000 -B 1000 -N -H 120000 \
	> /tmp/so.flood 2>&1 &
FPID=$!
if wait_for 60 grep -q '^blast_sent=' /tmp/so.flood; then
	pass flood "$(grep '^result=\|^req_lim_delta=\|^blast_sent=' /tmp/so.flood | tr '\n' ' ')"
else
	fail flood "the flood did not start: $(tr '\n' ' ' < /tmp/so.flood)"
fi
io flood-io
info "4 MiB: ${t_idle} s idle, ${IO_S} s during the flood"

if ours flood-closed; then
	if wait_for 120 grep -q '^disconnected=1' /tmp/so.flood; then
		pass flood-closed "$(grep '^blast_\|^disconnected=' /tmp/so.flood | tr '\n' ' ')"
	else
		fail flood-closed "the flooding channel stayed connected: $(tr '\n' ' ' < /tmp/so.flood)"
	fi
	n=$(count_since 'exceeded its credits')
	[ "$n" -gt 0 ] && pass credits-logged "$n log lines" ||
		fail credits-logged "no 'exceeded its credits' line"
fi
stop_flood
io after-io
expect_unload
