# SPDX-License-Identifier: GPL-2.0
# 209-tpg-rmdir: removing one TPG of a port leaves the other TPGs of the port
# alone (issue 10, finding 12). A session logged in through tpgt_1 survives
# the rmdir of an enabled tpgt_2 of the same port, tpgt_1 still reads
# enable=1 and still accepts a new login. Removing the last enabled TPG does
# disable the port (no login is accepted without an enabled TPG).
# The in-kernel driver disables the whole port on the rmdir of any TPG: the
# checks that fail there are XFAIL with --ref.
# vmtest-timeout: 240

case_begin --target
T2=${TPG%/tpgt_1}/tpgt_2
if ! try mkdir "$T2"; then
	fail mkdir_tpgt_2 "$ERR"
	exit 0
fi
cfs_write "$T2/enable" 1 || fail enable_tpgt_2 "$ERR"

if ! login; then
	fail login "$ERR"
	exit 0
fi
pass login "$DISK"
dd if="$DISK" of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null &&
	pass read_before || fail read_before "dd from $DISK failed"

dmesg_mark
# First the rmdir of an enabled TPG, then (what rtslib's delete does)
# enable=0 followed by rmdir.
expect_ok rmdir_enabled_tpgt_2 rmdir "$T2"
if try mkdir "$T2" && cfs_write "$T2/enable" 1; then
	expect_ok disable_tpgt_2 sh -c "echo 0 > $T2/enable"
	expect_ok rmdir_disabled_tpgt_2 rmdir "$T2"
else
	fail recreate_tpgt_2 "$ERR"
fi
sleep 1

v=$(cat "$TPG/enable")
[ "$v" = 1 ] && pass tpgt_1_still_enabled || fail tpgt_1_still_enabled "enable=$v"
# shellcheck disable=SC2010 # sysfs names (port-N:M): no blanks or globs
if ls /sys/class/srp_remote_ports/ 2>/dev/null | grep -q port- &&
   dd if="$DISK" of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null; then
	pass session_survives
else
	xfail_ref session_survives "the session of tpgt_1 was closed by the rmdir of tpgt_2"
fi
if dmesg_since | grep -q 'has been disabled'; then
	xfail_ref no_port_disable "$(dmesg_since | grep 'has been disabled' | head -n 1)"
else
	pass no_port_disable
fi

logout_all || fail logout "$ERR"
if login; then
	pass login_after_rmdir "$DISK"
else
	xfail_ref login_after_rmdir "tpgt_1 reads enable=1 but refuses logins: $ERR"
fi
logout_all

# The last enabled TPG going away disables the port.
teardown_target || fail teardown "teardown_target failed"
