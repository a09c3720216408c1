# SPDX-License-Identifier: GPL-2.0
# 003-tpg-lun-acl: TPG, LUN and ACL lifecycle under both port name forms:
# create, enable, disable, re-enable, remove in reverse order; default TPG
# attribute values; attributes shared by the GUID- and GID-named directories
# of one port; the fabric-level version file; no module reference left.
# vmtest-timeout: 240

mkdir -p "$SRPT" || { fail fabric_dir "mkdir $SRPT"; exit 0; }
r0=$(module_refcnt)
if [ -r "$SRPT/version" ]; then
	pass version_readable "$(head -n 1 "$SRPT/version")"
else
	fail version_readable "no $SRPT/version"
fi
[ -e "$SRPT/discovery_auth/rdma_cm_port" ] && pass rdma_cm_port_exists ||
	fail rdma_cm_port_exists "no $SRPT/discovery_auth/rdma_cm_port"

DEV=$T/core/rd_mcp_0/vdisk0
mkdir -p "$DEV" && echo rd_pages=4096 > "$DEV/control" && echo 1 > "$DEV/enable" ||
	{ fail backstore "cannot create $DEV"; exit 0; }

for form in GUIDNAME GIDNAME; do
	eval p=\$$form
	# shellcheck disable=SC2154 # p is set by the eval above
	P=$SRPT/$p
	TP=$P/tpgt_1
	expect_ok "$form.mkdir_port" mkdir "$P" || continue
	expect_ok "$form.mkdir_tpg" mkdir "$TP" || { rmdir "$P"; continue; }
	for a in srp_max_rdma_size:65536 srp_max_rsp_size:256 srp_sq_size:4096 use_srq:0; do
		f=${a%%:*} want=${a#*:}
		got=$(cat "$TP/attrib/$f" 2>/dev/null)
		[ "$got" = "$want" ] && pass "$form.default_$f" ||
			fail "$form.default_$f" "'$got' != '$want'"
	done
	[ "$(cat "$TP/enable")" = 0 ] && pass "$form.initially_disabled" ||
		fail "$form.initially_disabled" "enable=$(cat "$TP/enable")"
	expect_ok "$form.mkdir_lun" mkdir "$TP/lun/lun_0"
	expect_ok "$form.link_lun" ln -s "$DEV" "$TP/lun/lun_0/vdisk0"
	acl=$(initiator_names | head -n 1)
	expect_ok "$form.mkdir_acl" mkdir "$TP/acls/$acl"
	expect_ok "$form.mkdir_mapped_lun" mkdir "$TP/acls/$acl/lun_0"
	expect_ok "$form.link_mapped_lun" ln -s "$TP/lun/lun_0" "$TP/acls/$acl/lun_0/map0"
	for v in 1 0 1 0; do
		if cfs_write "$TP/enable" $v && [ "$(cat "$TP/enable")" = $v ]; then
			pass "$form.enable_$v"
		else
			fail "$form.enable_$v" "${ERR:-read back $(cat "$TP/enable")}"
		fi
	done
	# Writing the same value twice is harmless.
	cfs_write "$TP/enable" 1 && cfs_write "$TP/enable" 1 && pass "$form.enable_twice" ||
		fail "$form.enable_twice" "$ERR"
	cfs_write "$TP/enable" 0
	expect_ok "$form.rm_mapped_lun" sh -c "rm $TP/acls/$acl/lun_0/map0 && rmdir $TP/acls/$acl/lun_0"
	expect_ok "$form.rmdir_acl" rmdir "$TP/acls/$acl"
	expect_ok "$form.rm_lun" sh -c "rm $TP/lun/lun_0/vdisk0 && rmdir $TP/lun/lun_0"
	expect_ok "$form.rmdir_tpg" rmdir "$TP"
	expect_ok "$form.rmdir_port" rmdir "$P"
done

# One port, both names: attributes are per port, enable is per TPG.
mkdir "$SRPT/$GUIDNAME" "$SRPT/$GUIDNAME/tpgt_1" "$SRPT/$GIDNAME" "$SRPT/$GIDNAME/tpgt_1" ||
	fail both_forms "mkdir failed"
if cfs_write "$SRPT/$GIDNAME/tpgt_1/attrib/srp_max_rsp_size" 512; then
	v=$(cat "$SRPT/$GUIDNAME/tpgt_1/attrib/srp_max_rsp_size")
	[ "$v" = 512 ] && pass attrib_shared_by_both_names ||
		fail attrib_shared_by_both_names "GUID dir shows $v after writing 512 via GID dir"
	cfs_write "$SRPT/$GIDNAME/tpgt_1/attrib/srp_max_rsp_size" 256
else
	fail attrib_shared_by_both_names "write: $ERR"
fi
# A second TPG under one port name.
if try mkdir "$SRPT/$GIDNAME/tpgt_2"; then
	pass second_tpg
	rmdir "$SRPT/$GIDNAME/tpgt_2"
else
	fail second_tpg "$ERR"
fi
rmdir "$SRPT/$GUIDNAME/tpgt_1" "$SRPT/$GUIDNAME" "$SRPT/$GIDNAME/tpgt_1" "$SRPT/$GIDNAME" ||
	fail both_forms_rmdir "rmdir failed"
r=$(module_refcnt)
[ "$r" = "$r0" ] && pass refcnt_back "$r" || fail refcnt_back "$r != $r0"
teardown_target || fail teardown "teardown_target failed"
expect_refcnt_zero
