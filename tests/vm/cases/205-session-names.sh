# SPDX-License-Identifier: GPL-2.0
# 205-session-names: the session-name rules and lookup order of
# docs/design.md, "Session and ACL names", so that existing targetcli
# configurations log in
# unchanged. GUID-named port directory: the RDMA CM name (the initiator's
# address; here ib_srp connects from $IP to $IP, so it equals the target's
# address, the name of earlier versions, and no old-name warning is due)
# matches; GID-named port directory: the initiator port ID with and
# without "0x" matches. Other combinations are rejected with
# CHANNEL_LIMIT_REACHED. Initiator and target addresses that differ, IPv6
# and the old name: 214-rdma-cm-identity.
# vmtest-timeout: 300

case_begin

# try_names NAME EXPECT(ok|rej) setup_target-options...
try_names() {
	tn_name=$1 tn_want=$2
	shift 2
	if ! setup_target "$@"; then
		teardown_target
		return
	fi
	dmesg_mark
	if login; then
		tn_got=ok
		logout_all
	else
		tn_got=rej
	fi
	if [ $tn_got = "$tn_want" ]; then
		pass "$tn_name" "$tn_got"
	else
		fail "$tn_name" "got $tn_got, expected $tn_want ($ERR)"
	fi
	if [ "$tn_want" = ok ] && ours "${tn_name}_no_old_name_warning"; then
		[ "$(count_since 'matched ACL')" = 0 ] &&
			pass "${tn_name}_no_old_name_warning" ||
			fail "${tn_name}_no_old_name_warning" "$(dmesg_since | grep 'matched ACL')"
	fi
	if [ "$tn_want" = rej ] && ours "${tn_name}_reason"; then
		dmesg_since | grep -q 'Rejecting login.*reason 0x10006' &&
			pass "${tn_name}_reason" || fail "${tn_name}_reason" "no CHANNEL_LIMIT_REACHED reject"
	fi
	teardown_target || fail "${tn_name}_teardown" "configuration left behind"
}

try_names guid_dir_ip_acl ok --port guid --acl "$IP"
try_names gid_dir_0x_port_id ok --port gid --acl "0x$IPID"
try_names gid_dir_plain_port_id ok --port gid --acl "$IPID"
try_names both_dirs_ip_acl ok --port both --acl "$IP"
try_names guid_dir_port_id_acl rej --port guid --acl "0x$IPID"
try_names gid_dir_ip_acl rej --port gid --acl "$IP"
expect_refcnt_zero
