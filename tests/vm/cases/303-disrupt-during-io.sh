# SPDX-License-Identifier: GPL-2.0
# 303-disrupt-during-io: the channel goes away while commands are in flight
# (docs/design.md, "Channel release"): logout, ACL removal and rdma link
# delete, each
# while fio runs at QD 32; then logout and enable=0 with use_srq=1 (the
# channel's QP is on the shared receive queue: its receives must be drained
# through Last WQE Reached before the channel is freed). Nothing may hang,
# no warning may appear (the final dmesg scan) and the module must unload
# afterwards.
# How long fio goes on after the disruption is printed and bounded: after
# a logout or a device removal its I/O fails at once (within 20 s here,
# 40 s on the sanitizer kernel);
# after a disconnect by the target (ACL removal, enable=0) ib_srp holds
# the I/O in flight and queued until its fast_io_fail_tmo (15 s by
# default) expires, with either driver, even when the remote port is then
# deleted. The last step shows that this wait is the initiator's timer:
# with fast_io_fail_tmo set to 2 s, fio ends within 2 s + that margin.
# vmtest-timeout: 420

FIO_LOG=/tmp/303-fio.log

# The disk of a disrupted session can outlive its SCSI host for a moment;
# login() only counts disks that did not exist before, so wait them out.
# Also remove regular files a disrupted fio may have left at /dev/sdX,
# which would hide the block device node of the next login.
no_disks() {
	# shellcheck disable=SC2010 # kernel names (sdX): no blanks or globs
	wait_for 60 sh -c '! ls /sys/block | grep -q "^sd"' ||
		info "an sd disk is still present: $(ls /sys/block | grep '^sd' | tr '\n' ' ')"
	for _f in /dev/sd*; do
		[ -e "$_f" ] && ! [ -b "$_f" ] && { info "removing stale $_f"; rm -f "$_f"; }
	done
	return 0
}

start_fio() {
	fio --name=disrupt --filename="$DISK" --allow_file_create=0 \
		--direct=1 --ioengine=libaio \
		--rw=randrw --bs=32k --iodepth=32 --size=48m --time_based \
		--runtime=60 > "$FIO_LOG" 2>&1 &
	FIO=$!
	sleep 3
}

# stop_fio NAME [MAX]: fio must end by itself (its disk went away) within
# MAX s (default M) of the time the disruption started (T_DISRUPT, set by
# disrupted).
disrupted() {
	now_s
	T_DISRUPT=$NOW
}
stop_fio() {
	_max=${2:-$M}
	if wait_for 90 sh -c "! kill -0 $FIO"; then
		now_s
		_el=$((NOW - T_DISRUPT))
		if [ $_el -le "$_max" ]; then
			pass "$1-fio-ended" "$_el s after the disruption (at most $_max)"
		else
			fail "$1-fio-ended" "$_el s after the disruption (at most $_max)"
		fi
	else
		kill -9 $FIO 2>/dev/null
		fail "$1-fio-ended" "fio still running 90 s after the disruption"
	fi
	wait $FIO 2>/dev/null
}

# ib_srp without memory registration (never_register=1) in every step: when
# the connection goes away under I/O, a registering ib_srp's later removal
# processes flushed registration completions that point into request memory
# it has already freed (KBUG-2 in tests/vm/README.md). When that memory has
# been zeroed or reused, it calls a NULL function pointer and its removal
# work dies: the logout or rdma link delete never ends. With init_on_free=1
# that happened in step 5 (and in 204's device removal, also with the
# in-kernel target). The target sees indirect descriptors instead of one
# registered buffer; the rest of what it does here is the same.
case_begin
reload_ib_srp never_register=1 || exit 0
# ib_srp's default fast_io_fail_tmo (seconds), as a new remote port gets
# it, and the margin for the rest (logout_all, fio's own exit)
FAST_IO_FAIL=15
M=20
is_sanitizer && M=40

# 1. logout
if no_disks; setup_target --size 64 && login; then
	start_fio
	disrupted
	if run_bounded 60 sh -c 'for p in /sys/class/srp_remote_ports/*; do echo 1 > $p/delete; done'; then
		pass logout-returned
	else
		fail logout-returned "deleting the remote port hung or failed: $ERR"
	fi
	stop_fio logout
else
	fail login "logout test: $ERR"
fi
teardown_target || fail teardown "after logout test"

# 2. ACL removal (LIO close_session -> disconnect). ib_srp would try to
# reconnect, and its reconnect work racing the logout below oopses inside
# ib_srp (KBUG-3 in tests/vm/README.md): reconnects are switched off first.
if no_disks; setup_target --size 64 && login; then
	start_fio
	srp_reconnect_off
	disrupted
	ok=1
	for a in "$TPG"/acls/*; do
		find "$a" -type l -exec rm -f {} \; 2>/dev/null
		for l in "$a"/lun_*; do rmdir "$l" 2>/dev/null; done
		run_bounded 60 rmdir "$a" || ok=0
	done
	if [ $ok = 1 ]; then
		pass acl-removal-returned
	else
		fail acl-removal-returned "rmdir of an ACL hung or failed: $ERR"
	fi
	logout_all
	stop_fio acl-removal "$((FAST_IO_FAIL + M))"
else
	fail login "ACL test: $ERR"
fi
teardown_target || fail teardown "after ACL test"

# 3. rdma link delete (srpt_remove_one with live channels)
if no_disks; setup_target --size 64 && login; then
	start_fio
	disrupted
	if rxe_del; then
		pass rxe-delete-returned
	else
		fail rxe-delete-returned "rdma link delete hung ($?): $ERR"
	fi
	logout_all
	stop_fio rxe-delete
	if rxe_add; then
		pass rxe-readded
	else
		fail rxe-readded "$ERR"
	fi
else
	fail login "rxe test: $ERR"
fi
teardown_target || fail teardown "after rxe test"

# srq_login: a target with use_srq=1, logged in.
srq_login() {
	setup_target --size 64 --no-enable || return 1
	cfs_write "$TPG/attrib/use_srq" 1 || { ERR="use_srq: $ERR"; return 1; }
	cfs_write "$TPG/enable" 1 || { ERR="enable: $ERR"; return 1; }
	login
}

# 4. logout with use_srq=1
if no_disks; srq_login; then
	start_fio
	disrupted
	if run_bounded 60 sh -c 'for p in /sys/class/srp_remote_ports/*; do echo 1 > $p/delete; done'; then
		pass srq-logout-returned
	else
		fail srq-logout-returned "deleting the remote port hung or failed: $ERR"
	fi
	stop_fio srq-logout
else
	fail login "SRQ logout test: $ERR"
fi
teardown_target || fail teardown "after SRQ logout test"

# 5. enable=0 with use_srq=1 (the target closes the channel; no reconnect,
# as in 2.)
if no_disks; srq_login; then
	start_fio
	srp_reconnect_off
	disrupted
	if run_bounded 60 sh -c "echo 0 > $TPG/enable"; then
		pass srq-disable-returned
	else
		fail srq-disable-returned "echo 0 > enable hung or failed: $ERR"
	fi
	logout_all
	stop_fio srq-disable "$((FAST_IO_FAIL + M))"
else
	fail login "SRQ disable test: $ERR"
fi
teardown_target || fail teardown "after SRQ disable test"

# 6. enable=0 with the initiator's fast_io_fail_tmo at 2 s
if no_disks; setup_target --size 64 && login; then
	for p in /sys/class/srp_remote_ports/*; do
		echo 2 > "$p/fast_io_fail_tmo" ||
			fail fast-io-fail-tmo "cannot set $p/fast_io_fail_tmo"
	done
	start_fio
	srp_reconnect_off
	disrupted
	if run_bounded 60 sh -c "echo 0 > $TPG/enable"; then
		pass short-tmo-disable-returned
	else
		fail short-tmo-disable-returned "echo 0 > enable hung or failed: $ERR"
	fi
	logout_all
	stop_fio short-tmo-disable "$((2 + M))"
else
	fail login "short fast_io_fail_tmo test: $ERR"
fi
teardown_target || fail teardown "after short fast_io_fail_tmo test"

# The module must unload and load again.
if srpt_reload; then
	pass module-reload
else
	fail module-reload "$ERR"
fi
