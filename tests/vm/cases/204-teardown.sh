# SPDX-License-Identifier: GPL-2.0
# 204-teardown: removing the ACL of a logged-in initiator logs it out
# (close_session = synchronous disconnect); echo 0 > enable closes the
# channels; rdma link delete rxe0 with live sessions completes within a
# bounded time and the module unloads (docs/design.md, "Channel release",
# "TPG enable" and "Device add and remove").
# vmtest-timeout: 420

case_begin

# 1. ACL removal of a logged-in initiator.
if setup_target; then
	dmesg_mark
	if login; then
		n=$(count_since 'Accepted login of')
		rc=0
		for a in "$TPG"/acls/*; do
			[ -d "$a" ] || continue
			find "$a" -type l -exec rm -f {} \;
			for l in "$a"/lun_*; do [ -d "$l" ] && rmdir "$l"; done
			run_bounded 60 rmdir "$a" || rc=$?
		done
		[ $rc -eq 0 ] && pass acl_rmdir_bounded || fail acl_rmdir_bounded "rmdir status $rc: $ERR"
		if ! ours released; then
			:
		elif wait_released "$n" 30; then
			pass acl_removal_logs_out "$n channel(s) released"
		else
			fail acl_removal_logs_out "$(count_since 'channel released') of $n released"
		fi
	else
		fail acl_login "$ERR"
	fi
fi
teardown_target || fail teardown_1 "configuration left behind"

# 2. Disabling the TPG closes every channel.
if setup_target; then
	dmesg_mark
	if login; then
		n=$(count_since 'Accepted login of')
		if run_bounded 30 sh -c "echo 0 > $TPG/enable"; then
			pass disable_bounded
		else
			fail disable_bounded "echo 0 > enable: $? $ERR"
		fi
		if ! ours released; then
			:
		elif wait_released "$n" 30; then
			pass disable_closes "$n channel(s) released"
		else
			fail disable_closes "$(count_since 'channel released') of $n released"
		fi
		if ! ours disable_logged; then
			:
		elif dmesg_since | grep -q 'because target .* has been disabled'; then
			pass disable_logged
		else
			fail disable_logged "no message"
		fi
	else
		fail disable_login "$ERR"
	fi
fi
teardown_target || fail teardown_2 "configuration left behind"

# 3. Device removal with live sessions. ib_srp logs in without memory
# registration (never_register=1): with it, ib_srp's removal processes
# flushed registration completions that point into request memory it has
# already freed (KBUG-2 in tests/vm/README.md); when that memory has been
# reused or zeroed, it calls a NULL function pointer, its removal work dies
# and rdma link delete never returns (CI of 9eca145; init_on_free=1 makes
# it happen every time, with the in-kernel target too).
if reload_ib_srp never_register=1 && setup_target; then
	dmesg_mark
	if login; then
		( dd if="$DISK" of=/dev/null bs=64k count=100000 >/dev/null 2>&1 & )
		sleep 1
		if rxe_del; then
			pass rxe_delete_bounded
		else
			fail rxe_delete_bounded "rdma link delete: status $? $ERR"
		fi
		[ -d /sys/class/infiniband/$IBDEV ] && fail rxe_gone "$IBDEV still present" || pass rxe_gone
	else
		fail remove_login "$ERR"
	fi
fi
logout_all
teardown_target || fail teardown_3 "configuration left behind"
expect_refcnt_zero
if run_bounded 60 rmmod ib_srpt; then
	pass rmmod_after_remove
else
	fail rmmod_after_remove "$ERR"
fi
rxe_add || fail rxe_add "$ERR"
try modprobe ib_srpt || fail modprobe "$ERR"
