# SPDX-License-Identifier: GPL-2.0
# 008-enable-refused-rtpi: a refused enable=1 (the port's HCA is gone) must
# not leak the TPG's relative target port identifier (issue 10, finding 11).
# LIO (6.2 and later) allocates the RTPI in a global xarray before it asks
# the fabric driver, and when the driver refuses it does not give the ID
# back (target_tpg_enable() erases it only for a TPG that was already
# enabled). The leaked entry keeps an xarray node allocated: kmemleak
# reports it when target_core_mod is unloaded, and every refusal uses up one
# of the 65535 IDs. The case makes the leak visible without kmemleak: LIO
# hands out the lowest free ID, so after the refused TPG is removed, a new
# TPG must get the same RTPI as the first one did.
# Kernels without the TPG "rtpi" attribute (before 6.2) have no such ID:
# the case is skipped there.
# vmtest-timeout: 240

case_begin --target
if ! [ -r "$TPG/rtpi" ]; then
	skip all "no TPG rtpi attribute on this kernel"
	exit 0
fi
rtpi0=$(cat "$TPG/rtpi")
info "RTPI of the enabled TPG: $rtpi0"

if ! rxe_del; then
	fail link_delete "$ERR"
	exit 0
fi
cfs_write "$TPG/enable" 0 || info "enable=0 on a removed port: $ERR"
# Refuse three times: with the leak every refusal costs one more ID.
for i in 1 2 3; do
	if cfs_write "$TPG/enable" 1; then
		is_ref || fail "refused_$i" "enable=1 accepted on a removed device"
	else
		pass "refused_$i" "$(echo "$ERR" | tail -n 1)"
	fi
done
teardown_target || fail teardown_removed "$ERR"
rxe_add || { fail link_add "$ERR"; exit 0; }

target_up || exit 0
rtpi1=$(cat "$TPG/rtpi")
if [ "$rtpi1" = "$rtpi0" ]; then
	pass rtpi_reused "$rtpi1"
else
	xfail_ref rtpi_reused "new TPG got RTPI $rtpi1, expected $rtpi0 again: the refused enable leaked an ID"
fi
teardown_target || fail teardown "teardown_target failed"
