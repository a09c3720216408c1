# SPDX-License-Identifier: GPL-2.0
# 313-teardown-hooks: the teardown races of issue 10 findings 2 and 4 made
# deterministic with the delay hook SRPT_DBG_LOCAL_RSP_DONE (debug build:
# make SRPT_DEBUG_HOOKS=y, see src/debug.c; on other builds the case is
# skipped). 312-waitlist-teardown runs the same flood without the hook; it
# never failed against the unfixed driver because the windows are too
# narrow (and because, until srp_flood was fixed together with this case,
# the flood's LUN number went into a reserved field, so every command went
# to the fast LUN 0 and hardly any IU waited).
#
# A hostile initiator (/tools/srp_flood -B) sends rq_size + W READ(10)s to
# a LUN that answers after LAT seconds, then disconnects at once: every LIO
# tag is busy, W IUs wait for a tag. The release work stops the session and
# waits for LIO's commands; as they complete, the waiting IUs get tags and
# responses the driver builds itself (LIO refuses them), which LIO does not
# count. The hook makes the send completion of each such response sleep
# DELAY_MS before it frees its tag into the session. The first sleep lets
# every LIO command's completion queue up on the CQ, so the next driver-built
# response completes after the last command LIO counts, and its sleep gives
# the release work all the time it needs:
#  - the unfixed driver (before a2adbdf) removes the session there and,
#    with a receive ring, blocks in ib_drain_rq() until the sleeping
#    completion frees its tag into the removed session (ch->sess is NULL:
#    oops); with use_srq=1 it does not drain at all and frees the QP, the
#    send ring and the channel under the sleeping completion (KASAN
#    use-after-free in srpt_put_send_ioctx()).
#  - the fixed driver drains the QP before it removes the session, so it
#    waits for the sleeps.
# Seen on the sanitizer kernel with tests/vm/before/finding2-hook.patch on
# a0d0a55: S "BUG: KASAN: slab-use-after-free in srpt_put_send_ioctx", R
# "KASAN: null-ptr-deref" in sbitmap_queue_clear() called from
# srpt_send_done() and the channel never released.
# The sleeps must outlast the time the LIO commands take to complete one
# after the other (they were submitted during the flood, a few seconds on
# the sanitizer kernel): DELAY_MS is 8 s.
#
# Variants: S (use_srq=1), R (per-channel receive ring). Checks per variant:
# the hook ran (IUs waited and got driver-built responses), the channel is
# released in bounded time, a new login is answered, no kernel warning (the
# runner's dmesg check); at the end the module unloads.
# On the SRQ the W IUs past the grant no longer wait: each goes straight
# back to the SRQ and the channel is closed (docs/design.md, "SRQ credit
# bound"; 321-srq-overrun), so S checks that instead of the hook, while
# the release still waits for the LIO commands in the slow LUN. The race
# of driver-built responses with the release is left to R there.
# vmtest-timeout: 420

RQ=128			# SRPT_MAX_RQ_SIZE: LIO tags of a channel
W=3			# IUs left waiting for a tag
N=$((RQ + W))
DELAY_MS=8000
# The LUN answers after 12 s, so the whole flood is in the backend when the
# initiator disconnects (the flood takes 3-5 s on the sanitizer kernel);
# null_blk's own request timeout (5 s) is raised. The hung-task detector
# (60 s in the guest) bounds W * DELAY_MS: the release work waits that long.
LAT_NS=12000000000
IO_TIMEOUT_MS=60000

# variant NAME SRQ
variant() {
	_v=$1 _srq=$2
	# use_srq belongs to the HCA port and outlives the TPG: R writes 0
	_a="--attr use_srq=$_srq"
	# shellcheck disable=SC2086 # _a: words
	target_up --as "$_v-setup" --size 16 $_a \
		--lun iblock_0 slow udev_path=/dev/nullb0 || { teardown_target; return; }
	dmesg_mark
	debug_hook 3 $DELAY_MS
	_t0=$(date +%s)
	run_bounded 120 srp_tool srp_flood -i "$IPID" -T 20000 -B $N -L 1
	_out=$ERR
	info "$_v: flood took $(( $(date +%s) - _t0 )) s: $(echo "$_out" | tr '\n' ' ')"
	if echo "$_out" | grep -q "^blast_sent=$N\$"; then
		pass "$_v-blast" "$(echo "$_out" | grep '^blast_' | tr '\n' ' ')"
	else
		fail "$_v-blast" "$_out"
	fi
	# LAT, W sleeps, margin for the sanitizer kernel
	if wait_released 1 $((12 + W * DELAY_MS / 1000 + 60)); then
		pass "$_v-released" "after $(( $(date +%s) - _t0 )) s"
	else
		fail "$_v-released" "channel not released: $(dmesg_since | tail -n 5 | tr '\n' ' ')"
	fi
	debug_hook 0 0
	_n=$(count_since 'debug hook 3: sleeping')
	if [ "$_srq" = 1 ]; then
		# past the grant on the SRQ: not handled, the channel closed
		_c=$(count_since 'exceeded its credits .* on the SRQ; closing the channel')
		if [ "$_c" -ge 1 ]; then
			pass "$_v-over-credit" "$_c IUs past the grant refused, $_n driver-built responses"
		else
			fail "$_v-over-credit" "the flood past the grant did not close the channel"
		fi
	elif [ "$_n" -ge 1 ]; then
		pass "$_v-hook" "$_n driver-built responses slept in their send completion"
	else
		fail "$_v-hook" "no driver-built response completed: no IU waited for a tag (flood slower than the LUN?)"
	fi
	expect_tool_login "$_v-relogin" srp_flood
	teardown_target || fail "$_v-teardown" "configuration left behind"
}

requires hooks
requires ours
requires tool srp_flood
# Host-managed zoned (all zones conventional): the kernel does not scan a
# zoned disk for partitions, which with reads this slow would take minutes.
requires module null_blk nr_devices=1 irqmode=2 completion_nsec=$LAT_NS \
	gb=1 hw_queue_depth=256 zoned=1 zone_size=256 zone_nr_conv=3
case_begin
on_exit debug_hook 0 0
if ! cfs_write /sys/block/nullb0/queue/io_timeout $IO_TIMEOUT_MS; then
	fail io_timeout "$ERR"
fi

variant S 1
variant R 0

rmmod null_blk || fail rmmod_null_blk "null_blk still in use"
if srpt_reload; then
	pass unload "ib_srpt unloaded and reloaded"
else
	fail unload "$ERR"
fi
