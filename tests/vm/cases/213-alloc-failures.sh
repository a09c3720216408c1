# SPDX-License-Identifier: GPL-2.0
# 213-alloc-failures: the error paths of the driver's allocations and verbs
# calls (debug build only, see src/debug.c, debug_fail_nth).
#
# Every allocation (and every verbs or LIO call that allocates) on the
# login path and on the per-command path is wrapped in srpt_dbg_alloc(),
# srpt_dbg_err_ptr() or srpt_dbg_err() (include/srpt_debug.h): a debug
# build makes the Nth call at a named site fail, once. Nothing else can
# reach those paths on a test machine, and a wrong unwind there is a leak,
# a double free or a use-after-free that only the sanitizer kernel (KASAN,
# kmemleak: the runner's dmesg and kmemleak checks) sees.
#
# L  login path, /tools/srp_login (RDMA CM): for each site, a login with
#    the site counting (debug_fail_nth very large) tells how many calls a
#    login makes there; then logins fail the first, a middle and the last
#    of them. Each must be rejected (any reason), except where the driver
#    retries: the CQ and QP are created again with half the send queue
#    (srpt_ch_create_qp()), so a failure there must be accepted. A failed
#    session allocation must be rejected, not retried under the next ACL
#    name (the unfixed driver did that, and so could match another ACL
#    with other LUNs). The port must have no
#    channel left afterwards (fabric_statistics channels_open 0), and a
#    site that a login does not reach is reported as INFO. The shared
#    buffer caches are created by the first channel and destroyed with the
#    last, so every login waits until the previous one is gone, and a
#    failure that did not fire (the cache still existed) is retried.
# C  command path, ib_srp: the data buffer, the rdma_rw context and the
#    rw context array of one command fail; the command is answered BUSY (or
#    CHECK CONDITION for read data that cannot be sent), the SCSI midlayer
#    retries it, and the data written and read back must be intact. The
#    rw context array is only allocated for a command with more than one
#    data descriptor, which ib_srp's defaults never send: INFO if it did
#    not fire.
# At the end a login and fio with verify work and the module unloads.
# vmtest-timeout: 900

P=/sys/module/ib_srpt/parameters
LOGIN_SITES="channel nexus session cache_entry cache ring ring_ctx iu_buf cq qp_create_attr qp qp_init_attr qp_attr"
RETRIED="cq qp_create_attr qp qp_init_attr"
CMD_SITES="data_buf rw_ctx rw_ctxs"

fail_arm() { # fail_arm SITE N
	echo "$1" > $P/debug_fail_site
	echo "$2" > $P/debug_fail_nth
}
fail_off() {
	echo 0 > $P/debug_fail_nth
	echo > $P/debug_fail_site
}
open_channels() { cat "$ST/channels_open"; }
no_channel() { [ "$(open_channels)" = 0 ]; }
# wait_idle: the previous login's channel is gone (its caches too, a moment
# after the unlink)
wait_idle() {
	wait_for 60 no_channel || return 1
	nap 0.5
}

# try_login SITE N: one login with the Nth call at SITE failing. Sets
# FIRED (1 if the failure fired) and the srp_login variables.
try_login() {
	dmesg_mark
	fail_arm "$1" "$2"
	srp_login -i "$IPID"
	fail_off
	FIRED=$(count_since "debug fail: call $2 ($1) fails")
}

requires hooks
requires ours
requires tool srp_login
case_begin --target
on_exit fail_off
PD=${PORTDIRS# }
ST=$PD/fabric_statistics/srpt_port

# --- L: login path
for site in $LOGIN_SITES; do
	wait_idle || { fail "$site" "channels_open $(open_channels) 60 s after the last login"; break; }
	fail_arm "$site" 1000000000
	srp_login -i "$IPID"
	calls=$(cat $P/debug_fail_calls)
	fail_off
	# shellcheck disable=SC2154 # result, reason: eval in srp_login()
	if [ "$result" != accepted ]; then
		fail "$site-count" "a counting login was not accepted: result=$result reason=$reason"
		continue
	fi
	if [ "$calls" = 0 ]; then
		info "$site: not on the RDMA CM login path"
		continue
	fi
	picks=1
	[ "$calls" -gt 2 ] && picks="$picks $(( (calls + 1) / 2 ))"
	[ "$calls" -gt 1 ] && picks="$picks $calls"
	for n in $picks; do
		tries=0
		while :; do
			wait_idle || break
			try_login "$site" "$n"
			tries=$((tries + 1))
			[ "$FIRED" -gt 0 ] || [ $tries -ge 3 ] && break
		done
		want=rejected
		case " $RETRIED " in *" $site "*) want=accepted ;; esac
		if [ "$FIRED" = 0 ]; then
			fail "$site-$n" "call $n of $calls at $site never failed in $tries logins (result=$result)"
		elif [ "$result" = accepted ] && [ $want = accepted ]; then
			pass "$site-$n" "call $n of $calls failed: accepted after the retry"
		elif [ "$result" = rejected ] && [ $want = rejected ]; then
			pass "$site-$n" "call $n of $calls failed: rejected, reason $reason"
		else
			fail "$site-$n" "call $n of $calls failed: result=$result, expected $want $(cat /tmp/srp_login.err)"
		fi
	done
done
if wait_idle; then
	pass login-idle "no channel left after the login failures"
else
	fail login-idle "channels_open $(open_channels)"
fi
expect_tool_login login-after srp_login

# --- C: command path
wait_idle
if ! login; then
	fail login "$ERR"
	exit 0
fi
dd if=/dev/urandom of=/tmp/pat bs=64k count=4 2>/dev/null
j=0
for site in $CMD_SITES; do
	j=$((j + 1))
	# New sizes each time (a spare buffer of the same size would be
	# reused); the read is longer than the write, its first W bytes are
	# compared.
	w=$(( (2 * j + 2) * 8 ))
	r=$(( (2 * j + 3) * 8 ))
	for dir in write read; do
		dmesg_mark
		fail_arm "$site" 1
		if [ $dir = write ]; then
			bs=${w}k
			dd if=/tmp/pat of="$DISK" bs=$bs count=1 oflag=direct 2>/tmp/dd.err
		else
			bs=${r}k
			dd if="$DISK" of=/tmp/back bs=$bs count=1 iflag=direct 2>/tmp/dd.err
		fi
		rc=$?
		fail_off
		fired=$(count_since "debug fail: call 1 ($site) fails")
		if [ $rc != 0 ]; then
			fail "$site-$dir" "dd bs=$bs failed: $(tr '\n' ' ' < /tmp/dd.err)"
		elif [ "$fired" = 0 ]; then
			if [ "$site" = rw_ctxs ]; then
				info "$site-$dir: not reached (one data descriptor per command)"
			else
				fail "$site-$dir" "the failure did not fire (bs=$bs)"
			fi
		else
			pass "$site-$dir" "failed once, dd bs=$bs completed after the retry"
		fi
	done
	head -c $((w * 1024)) /tmp/pat > /tmp/want
	head -c $((w * 1024)) /tmp/back > /tmp/got
	if cmp -s /tmp/want /tmp/got; then
		pass "$site-data" "the data read back is what was written"
	else
		fail "$site-data" "the first ${w} KiB read back differ from what was written"
	fi
done
rm -f /tmp/pat /tmp/back /tmp/want /tmp/got /tmp/dd.err
fio_verify fio-after "$DISK" randwrite 4k 8 "$(reps 4m 1m)"

teardown_target || fail teardown "configuration left behind"
if srpt_reload; then
	pass unload "ib_srpt unloaded and reloaded"
else
	fail unload "$ERR"
fi
