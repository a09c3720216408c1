# SPDX-License-Identifier: GPL-2.0
# 004-attributes: TPG attributes and discovery_auth/rdma_cm_port. Boundary
# values are accepted and read back; out-of-range and non-numeric values are
# rejected with EINVAL and the old value is kept.
#   srp_max_rdma_size 65536..16777216   srp_max_rsp_size 40..1024
#   srp_sq_size 4..65535                use_srq 0|1
#   srp_rq_size 16..what the HCA's queues hold (ours only; rxe: 32748)
#   discovery_auth/rdma_cm_port u16 (0 = no listener)
# vmtest-timeout: 300

mkdir -p "$SRPT/$GIDNAME/tpgt_1" || { fail setup "mkdir $SRPT/$GIDNAME/tpgt_1"; exit 0; }
A=$SRPT/$GIDNAME/tpgt_1/attrib

# check_attr FILE NAME MIN MAX DEFAULT_TO_RESTORE
check_attr() {
	f=$1 n=$2 lo=$3 hi=$4 restore=$5
	old=$(cat "$f")
	for v in "$lo" "$hi" "$restore"; do
		if cfs_write "$f" "$v" && [ "$(cat "$f")" = "$v" ]; then
			pass "$n.accept_$v"
		else
			fail "$n.accept_$v" "${ERR:-read back $(cat "$f")}"
		fi
	done
	# base 0 parsing: hex is accepted
	hx=$(printf '0x%x' "$hi")
	if cfs_write "$f" "$hx" && [ "$(cat "$f")" = "$hi" ]; then
		pass "$n.accept_hex"
	else
		fail "$n.accept_hex" "'$hx': ${ERR:-read back $(cat "$f")}"
	fi
	cfs_write "$f" "$restore"
	for v in $((lo - 1)) $((hi + 1)) -1 abc "" 12abc 99999999999999999999999 4294967296; do
		[ "$v" = -1 ] && [ "$lo" = 0 ] && continue
		if cfs_write "$f" "$v"; then
			fail "$n.reject_'$v'" "accepted (now $(cat "$f"))"
			cfs_write "$f" "$restore"
			continue
		fi
		case $ERR in
		*"$EINVAL"*) ;;
		*"Numerical result out of range"*)
			# in-kernel: kstrtou16/kstrtoul errors passed through (ERANGE)
			xfail_ref "$n.reject_'$v'" "$ERR (ERANGE, we return EINVAL)"
			continue ;;
		*) fail "$n.reject_'$v'" "$ERR (expected EINVAL)"; continue ;;
		esac
		now=$(cat "$f")
		[ "$now" = "$restore" ] && pass "$n.reject_'$v'" ||
			fail "$n.reject_'$v'" "value changed to $now (was $restore)"
	done
	cfs_write "$f" "$old"
}

check_attr "$A/srp_max_rdma_size" srp_max_rdma_size 65536 16777216 65536
check_attr "$A/srp_max_rsp_size" srp_max_rsp_size 40 1024 256
check_attr "$A/srp_sq_size" srp_sq_size 4 65535 4096
if is_ref; then
	skip srp_rq_size "the in-kernel driver has no srp_rq_size"
else
	# the upper bound is the HCA's: the refusal of 65536 names it
	dmesg_mark
	cfs_write "$A/srp_rq_size" 65536
	hi=$(dmesg_since | sed -n "s/.*srp_rq_size: invalid value '65536' (accepted: 16\.\.\([0-9]*\)).*/\1/p" | tail -n 1)
	info "srp_rq_size range 16..$hi"
	check_attr "$A/srp_rq_size" srp_rq_size 16 "${hi:-65535}" 128
fi
check_attr "$A/use_srq" use_srq 0 1 0
check_attr "$SRPT/discovery_auth/rdma_cm_port" rdma_cm_port 0 65535 "$CM_PORT"

# The listener follows rdma_cm_port: a login works after 0 -> CM_PORT.
cfs_write "$SRPT/discovery_auth/rdma_cm_port" 0
cfs_write "$SRPT/discovery_auth/rdma_cm_port" "$CM_PORT"
[ "$(cat "$SRPT/discovery_auth/rdma_cm_port")" = "$CM_PORT" ] && pass rdma_cm_port_restored ||
	fail rdma_cm_port_restored "$(cat "$SRPT/discovery_auth/rdma_cm_port")"

teardown_target || fail teardown "teardown_target failed"
expect_refcnt_zero
