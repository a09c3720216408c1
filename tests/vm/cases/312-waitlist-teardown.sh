# SPDX-License-Identifier: GPL-2.0
# 312-waitlist-teardown: a hostile initiator (/tools/srp_flood -B) sends
# 2 x rq_size SRP_CMDs back to back to a slow LUN without waiting for
# credits, then disconnects at once. When the flood is faster than the LUN
# (blast_rsps small: few answers came back before the disconnect), every
# LIO tag is busy and the other half of the IUs wait for a tag on the
# channel's wait list when the channel is torn down; as the slow commands
# complete, the waiting IUs get tags and driver-built responses (the
# session is stopped) while the release work stops and frees the session
# and the QP. Under a loaded TCG host the flood can take longer than the
# LUN's 4 s, and then fewer IUs wait. On Debian's kernels (no KASAN) the
# unfixed driver passed this case too: the use-after-free is not visible
# there. Variants:
#   R  READ(10)s with a direct descriptor, per-channel receive ring;
#   I  WRITE(10)s with immediate data (receive buffers lent to commands);
#   S  READ(10)s with use_srq=1 (the SRQ buffers of waiting IUs must go back
#      to the SRQ).
# Each variant: the channel is released within a bounded time, nothing is
# logged as a kernel warning (the runner's dmesg check), and a new login
# still gets an answer; at the end the module unloads.
# vmtest-timeout: 420

RQ=128			# SRPT_MAX_RQ_SIZE: tags and receive ring of a channel
N=$((2 * RQ))
# Every null_blk request completes after 4 s (null_blk times out requests
# that take much longer): all commands are still in
# the backend when the initiator disconnects.
NULLB_NS=4000000000

# variant NAME SRQ srp_flood-args...
variant() {
	_v=$1 _srq=$2
	shift 2
	# (use_srq is only written for S, the last variant)
	_a=""
	[ "$_srq" = 1 ] && _a="--attr use_srq=1"
	# shellcheck disable=SC2086 # _a: words
	target_up --as "$_v-setup" --size 16 $_a \
		--lun iblock_0 slow udev_path=/dev/nullb0 || { teardown_target; return; }
	dmesg_mark
	run_bounded 120 srp_tool srp_flood -i "$IPID" -T 20000 -B $N -L 1 "$@"
	_out=$ERR
	info "$_v: $(echo "$_out" | tr '\n' ' ')"
	if echo "$_out" | grep -q "^blast_sent=$N\$"; then
		pass "$_v-blast" "$(echo "$_out" | grep '^blast_' | tr '\n' ' ')"
	else
		fail "$_v-blast" "$_out"
	fi
	if ! ours "$_v-released"; then
		:
	elif wait_released 1 90; then
		pass "$_v-released"
	else
		fail "$_v-released" "channel not released after 90 s: $(dmesg_since | tail -n 5 | tr '\n' ' ')"
	fi
	# The target still answers a login (nothing is stuck on the port).
	expect_tool_login "$_v-relogin" srp_flood
	teardown_target || fail "$_v-teardown" "configuration left behind"
}

requires tool srp_flood
requires module null_blk nr_devices=1 irqmode=2 completion_nsec=$NULLB_NS \
	gb=1 hw_queue_depth=256
case_begin

variant R 0
variant I 0 -W -f 0x80 -o 80
variant S 1

rmmod null_blk || fail rmmod_null_blk "null_blk still in use"
if srpt_reload; then
	pass unload "ib_srpt unloaded and reloaded"
else
	fail unload "$ERR"
fi
