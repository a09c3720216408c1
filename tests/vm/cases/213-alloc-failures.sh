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
#    data descriptor, which ib_srp's defaults never send (INFO if it did
#    not fire); so the same is done again with ib_srp reloaded without
#    memory registration (never_register=1, one descriptor per page, no
#    immediate data): the rw context array fails, then the second data
#    buffer and the second rw context of a command (call 2: the first one
#    is set up, chained or mapped, and must be undone); checks ind-*.
# D  device add (rdma link add of the Soft-RoCE device): the srpt_device
#    and its PD failing make the add fail ("adding the device failed"),
#    the DM MAD agent failing is not an error (no DM MADs); afterwards the
#    device is removed and added again without failures.
# P  configfs: the port directory and a TPG directory failing make their
#    mkdir fail (LIO reports any failure of a fabric's make_wwn or
#    make_tpg as EINVAL); the next mkdir works.
# S  the use_srq switch (TPG attribute use_srq=1): each allocation of the
#    switch failing makes the write fail; use_srq stays 0 and a login
#    works; then the switch to 1 and back to 0 works.
# At the end a login and fio with verify work and the module unloads.
# vmtest-timeout: 900

P=/sys/module/ib_srpt/parameters
LOGIN_SITES="channel nexus session cache_entry cache ring ring_ctx iu_buf cq qp_create_attr qp qp_init_attr qp_attr"
RETRIED="cq qp_create_attr qp qp_init_attr"
CMD_SITES="data_buf rw_ctx rw_ctxs"
DEV_SITES="sdev pd mad_agent"
SRQ_SITES="use_srq_bitmap srq cache_entry cache ring ring_ctx iu_buf"

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

# picks CALLS: the first, a middle and the last call
picks() {
	_pk=1
	[ "$1" -gt 2 ] && _pk="$_pk $(( ($1 + 1) / 2 ))"
	[ "$1" -gt 1 ] && _pk="$_pk $1"
	echo "$_pk"
}

# count_calls SITE CMD...: how many calls at SITE CMD makes (in CALLS);
# the exit status of CMD
count_calls() {
	_cs=$1
	shift
	fail_arm "$_cs" 1000000000
	"$@"
	_crc=$?
	CALLS=$(cat $P/debug_fail_calls)
	fail_off
	return $_crc
}

requires hooks
requires ours
requires tool srp_login
case_begin
on_exit fail_off
# a small SRQ: the use_srq switches of S allocate all of it each time
srpt_reload srpt_srq_size=256 || { fail reload "$ERR"; exit 0; }

# --- D: device add
add_failed() { [ "$(count_since 'adding the device failed')" -gt 0 ]; }
for site in $DEV_SITES; do
	rxe_del || { fail "$site-del" "$ERR"; break; }
	count_calls "$site" rxe_add || { fail "$site-add" "$ERR"; break; }
	if [ "$CALLS" = 0 ]; then
		info "$site: not on the add path of this device"
		continue
	fi
	for n in $(picks "$CALLS"); do
		rxe_del || { fail "$site-$n-del" "$ERR"; break 2; }
		dmesg_mark
		fail_arm "$site" "$n"
		rxe_add
		rc=$?
		fail_off
		fired=$(count_since "debug fail: call $n ($site) fails")
		if [ "$fired" = 0 ]; then
			fail "$site-$n" "call $n of $CALLS at $site did not fail"
		elif [ $rc != 0 ]; then
			fail "$site-$n" "rdma link add failed: $ERR"
		elif [ "$site" = mad_agent ]; then
			if [ "$(count_since 'DM MAD agent registration failed')" -gt 0 ] && ! add_failed; then
				pass "$site-$n" "device added without DM MADs"
			else
				fail "$site-$n" "no 'DM MAD agent registration failed', or the add failed"
			fi
		elif add_failed; then
			pass "$site-$n" "call $n of $CALLS failed: adding the device failed"
		else
			fail "$site-$n" "call $n of $CALLS failed but no 'adding the device failed'"
		fi
	done
done
if ! { rxe_del && rxe_add; }; then
	fail readd "$ERR"
fi
srp_ids

# --- P: configfs directories
[ -d "$SRPT" ] || mkdir "$SRPT"
# expect_mkdir_fail SITE DIR: mkdir DIR with the first call at SITE failing
expect_mkdir_fail() {
	dmesg_mark
	fail_arm "$1" 1
	if mkdir "$2" 2>/tmp/mkdir.err; then
		fail "$1" "mkdir $2 succeeded"
		rmdir "$2"
	elif [ "$(count_since "debug fail: call 1 ($1) fails")" = 0 ]; then
		fail "$1" "mkdir failed, but not at $1: $(cat /tmp/mkdir.err)"
	else
		pass "$1" "mkdir failed: $(cat /tmp/mkdir.err)"
	fi
	fail_off
}
expect_mkdir_fail port_id "$SRPT/$GIDNAME"
target_up || exit 0
PD=${PORTDIRS# }
ST=$PD/fabric_statistics/srpt_port
expect_mkdir_fail tpg "$PD/tpgt_9"
if try mkdir "$PD/tpgt_9" && try rmdir "$PD/tpgt_9"; then
	pass tpg-again "a TPG can be made and removed"
else
	fail tpg-again "$ERR"
fi
rm -f /tmp/mkdir.err

# --- L: login path
for site in $LOGIN_SITES; do
	wait_idle || { fail "$site" "channels_open $(open_channels) 60 s after the last login"; break; }
	count_calls "$site" srp_login -i "$IPID"
	calls=$CALLS
	# shellcheck disable=SC2154 # result, reason: eval in srp_login()
	if [ "$result" != accepted ]; then
		fail "$site-count" "a counting login was not accepted: result=$result reason=$reason"
		continue
	fi
	if [ "$calls" = 0 ]; then
		info "$site: not on the RDMA CM login path"
		continue
	fi
	for n in $(picks "$calls"); do
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

# --- S: the use_srq switch
use_srq() { cfs_write "$TPG/attrib/use_srq" "$1"; }
for site in $SRQ_SITES; do
	wait_idle
	count_calls "$site" use_srq 1 || { fail "$site-count" "use_srq=1: $ERR"; break; }
	use_srq 0 || { fail "$site-count" "use_srq=0: $ERR"; break; }
	if [ "$CALLS" = 0 ]; then
		info "$site: not on the use_srq path"
		continue
	fi
	# first and last only: each switch allocates the whole SRQ ring
	ns=1
	[ "$CALLS" -gt 1 ] && ns="1 $CALLS"
	for n in $ns; do
		wait_idle
		dmesg_mark
		fail_arm "$site" "$n"
		use_srq 1
		rc=$?
		fail_off
		fired=$(count_since "debug fail: call $n ($site) fails")
		now=$(cat "$TPG/attrib/use_srq")
		if [ "$fired" = 0 ]; then
			fail "$site-$n" "call $n of $CALLS at $site did not fail"
		elif [ $rc = 0 ]; then
			fail "$site-$n" "use_srq=1 succeeded although call $n of $CALLS failed"
			use_srq 0
		elif [ "$now" != 0 ]; then
			fail "$site-$n" "the write failed ($ERR), but use_srq reads $now"
		else
			pass "$site-$n" "call $n of $CALLS failed: use_srq=1 refused ($ERR), still 0"
		fi
	done
done
expect_tool_login login-no-srq srp_login
wait_idle
if use_srq 1; then
	expect_tool_login login-srq srp_login
	wait_idle
	use_srq 0 || fail use_srq-0 "$ERR"
else
	fail use_srq-1 "$ERR"
fi

# --- C: command path
# cmd_io LABEL N SITE...: for each SITE, a write and then a longer read of a
# new size with the Nth call at SITE failing; the data read back compared.
# LABEL prefixes the check names.
cmd_io() {
	_cio_lb=$1 _cio_n=$2
	shift 2
	for site in "$@"; do
		j=$((j + 1))
		# New sizes each time (a spare buffer of the same size would
		# be reused); the read is longer than the write, its first W
		# bytes are compared.
		w=$(( (2 * j + 2) * 8 ))
		r=$(( (2 * j + 3) * 8 ))
		for dir in write read; do
			dmesg_mark
			fail_arm "$site" "$_cio_n"
			if [ $dir = write ]; then
				bs=${w}k
				dd if=/tmp/pat of="$DISK" bs=$bs count=1 oflag=direct 2>/tmp/dd.err
			else
				bs=${r}k
				dd if="$DISK" of=/tmp/back bs=$bs count=1 iflag=direct 2>/tmp/dd.err
			fi
			rc=$?
			fail_off
			fired=$(count_since "debug fail: call $_cio_n ($site) fails")
			if [ $rc != 0 ]; then
				fail "$_cio_lb$site-$dir" "dd bs=$bs failed: $(tr '\n' ' ' < /tmp/dd.err)"
			elif [ "$fired" = 0 ]; then
				if [ -z "$_cio_lb" ] && [ "$site" = rw_ctxs ]; then
					info "$site-$dir: not reached (one data descriptor per command)"
				else
					fail "$_cio_lb$site-$dir" "the failure did not fire (bs=$bs)"
				fi
			else
				pass "$_cio_lb$site-$dir" "call $_cio_n failed, dd bs=$bs completed after the retry"
			fi
		done
		head -c $((w * 1024)) /tmp/pat > /tmp/want
		head -c $((w * 1024)) /tmp/back > /tmp/got
		if cmp -s /tmp/want /tmp/got; then
			pass "$_cio_lb$site-data" "the data read back is what was written"
		else
			fail "$_cio_lb$site-data" "the first ${w} KiB read back differ from what was written"
		fi
	done
}

wait_idle
if ! login; then
	fail login "$ERR"
	exit 0
fi
dd if=/dev/urandom of=/tmp/pat bs=64k count=4 2>/dev/null
j=0
cmd_io "" 1 $CMD_SITES
# Indirect descriptors: without memory registration ib_srp sends one
# descriptor per page (in the SRP_CMD), so the rw context array is
# allocated, and the second rw context of a command can fail after the
# first was set up. No immediate data: writes are RDMA READs.
if reload_ib_srp never_register=1 cmd_sg_entries=255 indirect_sg_entries=255 \
	use_imm_data=0 && login; then
	cmd_io ind- 1 rw_ctxs
	cmd_io ind- 2 data_buf rw_ctx
else
	fail ind-login "${ERR:-}"
fi
rm -f /tmp/pat /tmp/back /tmp/want /tmp/got /tmp/dd.err
fio_verify fio-after "$DISK" randwrite 4k 8 "$(reps 4m 1m)"

expect_unload
