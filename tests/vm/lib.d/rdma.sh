# SPDX-License-Identifier: GPL-2.0
# tests/vm/lib.d/rdma.sh - the Soft-RoCE device rxe0: delete it and add it back.
# Sourced by tests/vm/lib.sh (busybox ash, in the guest); the functions
# a case calls are listed in the header of lib.sh.

rxe_del() {
	# The initiator (ib_srp) shares the device with the target here. Its
	# reconnect work racing the device removal was seen to oops inside
	# ib_srp's own CQ polling (KBUG-3): switch reconnects off first.
	srp_reconnect_off
	run_bounded 60 rdma link delete "$IBDEV"
}

# shellcheck disable=SC2034 # ERR: the error for the caller, as try sets it
rxe_add() {
	try rdma link add "$IBDEV" type rxe netdev "$NETDEV" || return 1
	wait_for 20 grep -q ACTIVE "/sys/class/infiniband/$IBDEV/ports/$IBPORT/state" ||
		{ ERR="port not ACTIVE"; return 1; }
	wait_for 20 sh -c "! grep -qx '0000:0000:0000:0000:0000:0000:0000:0000' /sys/class/infiniband/$IBDEV/ports/$IBPORT/gids/0" ||
		{ ERR="GID 0 not populated"; return 1; }
	wait_for 10 sh -c "grep -q ':ffff:' /sys/class/infiniband/$IBDEV/ports/$IBPORT/gids/*"
	refresh_names
	return 0
}
