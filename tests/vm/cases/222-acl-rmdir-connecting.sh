# SPDX-License-Identifier: GPL-2.0
# 222-acl-rmdir-connecting: removing the ACL of an RDMA/CM channel that the
# target accepted but whose connection the initiator never completed (no
# RTU, so no ESTABLISHED event) must not wait for the initiator.
# /tools/srp_login -E keeps the QP away from its cm_id, so its RDMA CM
# hands it the target's REP instead of sending the RTU, and it never calls
# rdma_establish(); it holds the half-open connection for 60 s. Before the
# fix the ACL rmdir disconnected the channel with rdma_disconnect(), which
# sends nothing before ESTABLISHED but returns 0, and then waited for a
# release that only the initiator's own timeout or exit could bring.
# Checks: the login was answered (CONNECT_RESPONSE), the ACL removal takes
# less than 20 s, the channel is released, the tool sees the target give
# up, a new login works.
# vmtest-timeout: 300

requires tool srp_login
case_begin --target

dmesg_mark
srp_tool srp_login -i "$IPID" -T 20000 -E 60000 > /tmp/222-login 2>&1 &
lpid=$!
if wait_for 30 grep -q '^result=' /tmp/222-login &&
   grep -q '^result=responded' /tmp/222-login; then
	pass half-open "$(tr '\n' ' ' < /tmp/222-login)"
else
	fail half-open "$(tr '\n' ' ' < /tmp/222-login)"
fi
# the ACL of the session: the initiator port ID with 0x, the first name a
# login on the GID-named port directory is looked up under
acl=$TPG/acls/0x$IPID
[ -d "$acl" ] || fail acl "no ACL ${acl##*/}"
info "removing ${acl##*/}"
now_s
t0=$NOW
_cfs_rm_links "$acl"
for l in "$acl"/lun_*; do [ -d "$l" ] && rmdir "$l"; done
if run_bounded 120 rmdir "$acl"; then
	now_s
	if [ $((NOW - t0)) -lt 20 ]; then
		pass acl-rmdir "$((NOW - t0)) s"
	else
		xfail_ref acl-rmdir "the ACL rmdir took $((NOW - t0)) s"
	fi
else
	fail acl-rmdir "rmdir did not return in 120 s: $ERR"
fi
ours released && { wait_released 1 30 && pass released ||
	fail released "$(dmesg_since | tail -n 3 | tr '\n' ' ')"; }
wait $lpid
info "tool: $(tr '\n' ' ' < /tmp/222-login)"
teardown_target || fail teardown "configuration left behind"
target_up --as relogin --login && pass relogin "$DISK"
