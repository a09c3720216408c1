# SPDX-License-Identifier: GPL-2.0
# 007-targetcli-layout: the configfs layout that targetcli-fb/rtslib-fb
# creates (and restores from saveconfig.json) for an srpt target works:
# port name = "0x" + the 32 hex digits of /sys/class/infiniband/*/ports/*/gids/0
# (rtslib turns ib.<32hex> into 0x<32hex>), tpgt_1, lun/lun_0 with a symlink
# named by 10 hex digits, ACL 0x<32hex> with lun_0 mapped by a 10-hex symlink,
# TPG attributes written from the saved values, enable=1; a kernel initiator
# logs in and reads data; then rtslib's delete order.
# vmtest-timeout: 240

rand10() { od -An -N5 -tx1 /dev/urandom | tr -d ' \n'; }

# rtslib: "ib." + gids/0 without colons; to_fabric_wwn: "0x" + wwn[3:]
gid=$(cat "/sys/class/infiniband/$IBDEV/ports/$IBPORT/gids/0")
wwn=0x$(echo "$gid" | tr -d :)
[ "$wwn" = "$GIDNAME" ] && pass wwn_is_gid_form "$wwn" || fail wwn_is_gid_form "$wwn != $GIDNAME"

# rtslib loads the module and creates the fabric dir, then reads 'version'.
mkdir -p "$SRPT" && cat "$SRPT/version" >/dev/null 2>&1 && pass fabric_version ||
	fail fabric_version "no readable $SRPT/version"
cfs_write "$SRPT/discovery_auth/rdma_cm_port" "$CM_PORT" || fail rdma_cm_port "$ERR"

SO=$T/core/rd_mcp_1/disk1
mkdir -p "$SO" && echo rd_pages=8192 > "$SO/control" &&
	echo "$(cat /proc/sys/kernel/random/uuid | tr -d -)" > "$SO/wwn/vpd_unit_serial" 2>/dev/null
echo 1 > "$SO/enable" || { fail storage_object "cannot create $SO"; teardown_target; exit 0; }

TP=$SRPT/$wwn/tpgt_1
ok=1
mkdir "$SRPT/$wwn" && mkdir "$TP" || ok=0
mkdir "$TP/lun/lun_0" && ln -s "$SO" "$TP/lun/lun_0/$(rand10)" || ok=0
[ $ok = 1 ] && pass create_port_tpg_lun || fail create_port_tpg_lun "mkdir/ln failed"
# saveconfig.json "attributes" of an srpt TPG with typical values
for a in srp_max_rdma_size=65536 srp_max_rsp_size=256 srp_sq_size=4096 use_srq=0; do
	cfs_write "$TP/attrib/${a%%=*}" "${a#*=}" || fail "restore_${a%%=*}" "$ERR"
done
nacl=0
for acl in $(initiator_names | grep '^0x'); do
	mkdir "$TP/acls/$acl" || { fail acl_create "$acl rejected"; continue; }
	mkdir "$TP/acls/$acl/lun_0" && ln -s "$TP/lun/lun_0" "$TP/acls/$acl/lun_0/$(rand10)" ||
		fail acl_map "$acl"
	nacl=$((nacl + 1))
done
[ $nacl -gt 0 ] && pass acls_created "$nacl" || fail acls_created "none"
cfs_write "$TP/enable" 1 && pass enable || fail enable "$ERR"

if login; then
	pass login "$DISK"
	if ERR=$(dd if="$DISK" of=/dev/null bs=64k count=16 iflag=direct 2>&1); then
		pass read
	else
		fail read "dd from $DISK failed: $(echo "$ERR" | head -n 1)"
	fi
	logout_all && pass logout || fail logout "remote ports did not go away"
else
	fail login "$ERR"
fi

# rtslib delete order: disable, mapped LUNs, ACLs, LUNs, TPG, port.
ok=1
cfs_write "$TP/enable" 0 || ok=0
for a in "$TP"/acls/*; do
	[ -d "$a" ] || continue
	find "$a/lun_0" -type l -exec rm {} \; && rmdir "$a/lun_0" && rmdir "$a" || ok=0
done
find "$TP/lun/lun_0" -type l -exec rm {} \; && rmdir "$TP/lun/lun_0" || ok=0
rmdir "$TP" && rmdir "$SRPT/$wwn" || ok=0
[ $ok = 1 ] && pass rtslib_delete || fail rtslib_delete "some step failed"
teardown_target || fail teardown "teardown_target failed"
expect_refcnt_zero
