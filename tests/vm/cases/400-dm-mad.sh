# SPDX-License-Identifier: GPL-2.0
# 400-dm-mad: the Device Management MAD agent (docs/design.md, "Device
# management (DM) agent") over
# Soft-RoCE. IsDeviceManagementSupported in the port capability mask while
# ib_srpt is loaded; GET of ClassPortInfo, IOUnitInfo, IOControllerProfile
# and ServiceEntries with /tools/dm_query (a loopback query to GID 0 of the
# port, with a GRH), compared with what the device and the settings imply;
# the DM error statuses that can cross the wire; settings changes reflected
# in the profile; module unload and device removal leave no agent and no
# capability bit behind.
# vmtest-timeout: 300

CAP=/sys/class/infiniband/$IBDEV/ports/$IBPORT/cap_mask
DM_SUP=$((0x00080000))	# PortInfo.CapabilityMask bit 19
PARAMS=/sys/module/ib_srpt/parameters

Q_VARS="status method attr_id attr_mod tid_match base_version class_version
 capability_mask resp_time_value change_id max_controllers op_rom
 controller_list guid vendor_id device_id device_version subsys_vendor_id
 subsys_device_id io_class io_subclass protocol protocol_version service_conn
 initiators_supported send_queue_depth rdma_read_depth send_size rdma_size
 op_cap_mask svc_cap_mask num_svc_entries id_string svc0_name svc0_id
 svc1_name svc1_id svc2_name svc2_id svc3_name svc3_id"

# dmq ARGS...: run dm_query on our port; sets the variables of its output.
# Returns non-zero if no reply arrived (Q_ERR has dm_query's stderr).
dmq() {
	for _v in $Q_VARS; do unset "$_v"; done
	Q_OUT=$(dm_query -C "$IBDEV" -P "$IBPORT" "$@" 2>/tmp/dmq.err)
	_rc=$?
	Q_ERR=$(cat /tmp/dmq.err)
	[ $_rc -eq 0 ] || return 1
	eval "$(echo "$Q_OUT" | grep "^[a-z_0-9]*=")"
}

# fields VAR...: "VAR=value VAR=value ..." of the last query
fields() {
	_f=""
	for _v in "$@"; do
		eval "_f=\"\$_f \$_v=\${$_v-unset}\""
	done
	echo "${_f# }"
}

# expect_q NAME "EXPECTED" ARGS...: query with ARGS and compare the fields
# named in EXPECTED ("k=v k=v ...") with the reply.
expect_q() {
	_name=$1 _exp=$2
	shift 2
	if ! dmq "$@"; then
		fail "$_name" "no reply to dm_query $*: $Q_ERR"
		return 1
	fi
	_keys=$(echo "$_exp" | tr ' ' '\n' | sed 's/=.*//' | tr '\n' ' ')
	# shellcheck disable=SC2086
	_got=$(fields $_keys)
	if [ "$_got" = "$_exp" ]; then
		pass "$_name"
	else
		fail "$_name" "dm_query $*: got [$_got] expected [$_exp]"
		return 1
	fi
}

dm_bit_set() { [ $(($(cat "$CAP") & DM_SUP)) -ne 0 ]; }

# no_agent NAME: GET IOUnitInfo is not answered by a DM agent (the MAD
# core answers unclaimed GETs with status 0x000c, or nothing answers).
no_agent() {
	if dmq -t 1000 iou; then
		# shellcheck disable=SC2154 # status: eval of dm_query's output in dmq()
		if [ "$status" = 0x000c ]; then
			pass "$1" "MAD core reply status 0x000c"
		else
			fail "$1" "a DM agent answered: $(echo "$Q_OUT" | tr "\n" " ")"
		fi
	else
		pass "$1" "no reply"
	fi
}

# devattr NAME: attribute of the RDMA device as printed by ibv_devinfo -v
devattr() {
	ibv_devinfo -v -d "$IBDEV" 2>/dev/null |
		awk -v k="$1:" '$1 == k { print $2; exit }'
}

if [ ! -c /dev/infiniband/umad0 ] || ! command -v dm_query >/dev/null; then
	skip dm-query "no /dev/infiniband/umad0 or no dm_query"
	exit 0
fi

# --- what the device and the settings imply ---------------------------------
VENDOR=$(devattr vendor_id)
PART=$(devattr vendor_part_id)
HWVER=$(devattr hw_ver)
MAXQPWR=$(devattr max_qp_wr)
MAXSRQWR=$(devattr max_srq_wr)
if [ -z "$VENDOR" ] || [ -z "$MAXQPWR" ]; then
	# rxe's values (drivers/infiniband/sw/rxe/rxe_param.h)
	info "ibv_devinfo not usable; assuming rxe's device attributes"
	VENDOR=0xffffff PART=0 HWVER=0 MAXQPWR=16384 MAXSRQWR=16384
fi
GUID=$(cat $PARAMS/srpt_service_guid)
REQ=$(cat $PARAMS/srp_max_req_size)
SRQSZ=$(cat $PARAMS/srpt_srq_size)
DEPTH=$((MAXQPWR < 128 ? MAXQPWR : 128))
SRQDEPTH=$((SRQSZ < MAXSRQWR ? SRQSZ : MAXSRQWR))
info "device vendor=$VENDOR part=$PART hw=$HWVER max_qp_wr=$MAXQPWR" \
	"max_srq_wr=$MAXSRQWR; guid=$GUID req=$REQ srq=$SRQSZ"

IOC_FIXED="io_class=0x0100 io_subclass=0x609e protocol=0x0108 protocol_version=0x0001 service_conn=0 initiators_supported=0 rdma_read_depth=4 op_cap_mask=0x2b svc_cap_mask=0x00 num_svc_entries=1"
ioc_expect() { # ioc_expect DEPTH SEND_SIZE RDMA_SIZE
	echo "status=0x0000 method=0x81 tid_match=1" \
		"guid=$GUID vendor_id=$(printf 0x%08x "$VENDOR")" \
		"device_id=$(printf 0x%08x "$PART")" \
		"device_version=$(printf 0x%04x $((HWVER & 0xffff)))" \
		"subsys_vendor_id=$(printf 0x%08x "$VENDOR")" \
		"subsys_device_id=0x00000000 $IOC_FIXED" \
		"send_queue_depth=$1 send_size=$2 rdma_size=$3"
}
SVC_EXPECT="status=0x0000 method=0x81 tid_match=1 svc0_name=SRP.T10:${GUID#0x} svc0_id=$GUID svc1_name= svc1_id=0x0000000000000000 svc3_name= svc3_id=0x0000000000000000"
IOU_EXPECT="status=0x0000 method=0x81 tid_match=1 change_id=1 max_controllers=16 op_rom=0x00 controller_list=1000000000000000"
CPI_EXPECT="status=0x0000 method=0x81 tid_match=1 base_version=1 class_version=1 capability_mask=0x0000 resp_time_value=20"

# --- capability bit and the four attributes ---------------------------------
CAP_LOADED=$(cat "$CAP")
if dm_bit_set; then
	pass cap-bit-set "$CAP_LOADED"
else
	fail cap-bit-set "cap_mask $CAP_LOADED lacks IsDeviceManagementSupported"
fi

expect_q get-classportinfo "$CPI_EXPECT" cpi
expect_q get-iounitinfo "$IOU_EXPECT attr_id=0x0010" iou
expect_q get-iocprofile-slot1 "$(ioc_expect $DEPTH "$REQ" 65536) attr_mod=0x00000001" ioc 1
# shellcheck disable=SC2154 # id_string: eval of dm_query's output in dmq()
if [ "$id_string" = "Linux SRP target" ]; then
	pass ioc-id-string
else
	fail ioc-id-string "id_string='$id_string'"
fi
expect_q get-iocprofile-slot2 "$(ioc_expect $DEPTH "$REQ" 65536)" ioc 2
expect_q get-svc-entries "$SVC_EXPECT attr_mod=0x00010000" svc 0x00010000
expect_q get-svc-entries-0-1 "$SVC_EXPECT" svc 0x00020100

# --- error statuses ----------------------------------------------------------
expect_q ioc-slot0-invalid "status=0x001c method=0x81 attr_mod=0x00000000" ioc 0
expect_q ioc-slot17-invalid "status=0x001c method=0x81" ioc 17
expect_q ioc-slot3-no-ioc "status=0x0100 method=0x81" ioc 3
expect_q svc-slot0-invalid "status=0x001c method=0x81" svc 0x00000000
expect_q svc-lo-gt-hi "status=0x0100 method=0x81" svc 0x00010001
expect_q svc-hi-gt-1 "status=0x0100 method=0x81" svc 0x00010200
expect_q set-iounitinfo "status=0x000c method=0x81 attr_id=0x0010" -m set iou
expect_q get-unknown-attr "status=0x000c method=0x81 attr_id=0x0013" 0x0013

# --- byte-for-byte comparison with the in-kernel driver ----------------------
# Whole 256-byte replies to the same queries, with the transaction ID
# masked (the kernel puts the umad agent's ID in its high half).
DIFF_QUERIES="cpi|iou|ioc_1|ioc_2|svc_0x10000|svc_0x20100|ioc_0|ioc_17|ioc_3|svc_0|svc_0x110000|svc_0x10001|svc_0x10200|-m_set_iou|-m_set_ioc_1|0x0013|cpi_7"
dump_all() { # dump_all FILE
	: > "$1"
	_IFS=$IFS
	IFS='|'
	for _q in $DIFF_QUERIES; do
		IFS=$_IFS
		echo "== $_q" >> "$1"
		# shellcheck disable=SC2046
		dm_query -C "$IBDEV" -P "$IBPORT" -x $(echo "$_q" | tr _ ' ') 2>&1 |
			grep '^# ' | awk 'NR == 1 { for (i = 10; i <= 17; i++) $i = "tt" } { print }' >> "$1"
		IFS='|'
	done
	IFS=$_IFS
}
if is_ref; then
	skip compare-with-in-kernel "running the in-kernel driver"
elif [ ! -f /ref/ib_srpt.ko ]; then
	skip compare-with-in-kernel "no /ref/ib_srpt.ko"
else
	dump_all /tmp/dm-ours.txt
	if try rmmod ib_srpt && try insmod /ref/ib_srpt.ko; then
		dump_all /tmp/dm-ref.txt
		try rmmod ib_srpt || info "rmmod of the in-kernel ib_srpt: $ERR"
		if [ "$(grep -c '^# ' /tmp/dm-ours.txt)" -ne $((17 * 16)) ]; then
			fail compare-with-in-kernel "missing replies: $(grep -c '^# ' /tmp/dm-ours.txt) lines"
		elif diff /tmp/dm-ref.txt /tmp/dm-ours.txt > /tmp/dm-diff.txt; then
			pass compare-with-in-kernel "17 replies identical"
		else
			fail compare-with-in-kernel "differences (ref < > ours): $(head -c 1500 /tmp/dm-diff.txt | tr '\n' '|')"
		fi
	else
		fail compare-with-in-kernel "cannot swap in /ref/ib_srpt.ko: $ERR"
	fi
	try modprobe ib_srpt || fail modprobe-after-ref "$ERR"
fi

# --- settings are reflected in the profile -----------------------------------
if setup_target; then
	A=$TPG/attrib
	if cfs_write "$A/srp_max_rdma_size" 1048576; then
		expect_q ioc-rdma-size "$(ioc_expect $DEPTH "$REQ" 1048576)" ioc 1
	else
		fail ioc-rdma-size "srp_max_rdma_size=1048576: $ERR"
	fi
	if cfs_write "$A/use_srq" 1; then
		expect_q ioc-depth-srq "$(ioc_expect $SRQDEPTH "$REQ" 1048576)" ioc 1
		cfs_write "$A/use_srq" 0 || fail use-srq-off "$ERR"
		expect_q ioc-depth-no-srq "$(ioc_expect $DEPTH "$REQ" 1048576)" ioc 1
	else
		fail ioc-depth-srq "use_srq=1: $ERR"
	fi
	cfs_write "$A/srp_max_rdma_size" 65536 || fail rdma-size-restore "$ERR"
	teardown_target || fail teardown "left: $(ls "$SRPT")"
else
	fail setup-target "$ERR"
fi

if srpt_reload srp_max_req_size=4200; then
	expect_q ioc-send-size "$(ioc_expect $DEPTH 4200 65536)" ioc 1
else
	fail reload-req-size "$ERR"
fi

# --- port refresh (PORT_ERR / PORT_ACTIVE) keeps exactly one agent ----------
# On RoCE lid and sm_lid are 0, so every port event runs the refresh work,
# which registers again: that must neither fail nor stack a second agent.
ip link set "$NETDEV" down
wait_for 20 sh -c "! grep -q ACTIVE /sys/class/infiniband/$IBDEV/ports/$IBPORT/state"
ip link set "$NETDEV" up
if wait_for 30 grep -q ACTIVE "/sys/class/infiniband/$IBDEV/ports/$IBPORT/state"; then
	wait_for 10 sh -c "grep -q ':ffff:' /sys/class/infiniband/$IBDEV/ports/$IBPORT/gids/*"
	sleep 1
	check refresh-cap-bit-set dm_bit_set
	expect_q refresh-get-iounitinfo "$IOU_EXPECT" iou
else
	fail refresh-port-active "port not ACTIVE after link up"
fi

# --- unload and reload while queries arrive ----------------------------------
(
	i=0
	while [ $i -lt 30 ]; do
		dm_query -C "$IBDEV" -P "$IBPORT" -t 300 iou >/dev/null 2>&1
		i=$((i + 1))
	done
) &
QPID=$!
cycles_ok=1
for n in 1 2 3; do
	try rmmod ib_srpt || { cycles_ok=0; info "rmmod $n: $ERR"; }
	try modprobe ib_srpt || { cycles_ok=0; info "modprobe $n: $ERR"; }
done
wait $QPID
if [ $cycles_ok = 1 ]; then
	pass reload-under-queries
else
	fail reload-under-queries "rmmod/modprobe failed while queries arrived"
fi
expect_q reload-under-queries-iou "$IOU_EXPECT" iou

# --- module unload -----------------------------------------------------------
teardown_target >/dev/null 2>&1
if try rmmod ib_srpt; then
	if dm_bit_set; then
		fail unload-clears-cap-bit "cap_mask $(cat "$CAP") after rmmod"
	elif [ $(($(cat "$CAP") | DM_SUP)) -eq $((CAP_LOADED)) ]; then
		pass unload-clears-cap-bit "$CAP_LOADED -> $(cat "$CAP")"
	else
		fail unload-clears-cap-bit "$CAP_LOADED -> $(cat "$CAP"): other bits changed"
	fi
	no_agent unload-no-agent
else
	fail rmmod "$ERR"
fi
if try modprobe ib_srpt; then
	check reload-cap-bit-set dm_bit_set
	expect_q reload-get-iounitinfo "$IOU_EXPECT" iou
else
	fail modprobe "$ERR"
fi

# --- device removal and re-add ------------------------------------------------
if rxe_del; then
	pass rxe-del
	if rxe_add; then
		check readd-cap-bit-set dm_bit_set
		expect_q readd-get-iounitinfo "$IOU_EXPECT" iou
		expect_q readd-get-svc-entries "$SVC_EXPECT" svc 0x00010000
	else
		fail rxe-add "$ERR"
	fi
else
	fail rxe-del "rdma link delete $IBDEV did not finish"
fi

# removal with the module loaded, then unload: nothing may be left registered
if rxe_del && try rmmod ib_srpt; then
	pass remove-then-unload
else
	fail remove-then-unload "$ERR"
fi
try modprobe ib_srpt || fail modprobe-2 "$ERR"
rxe_add || fail rxe-add-2 "$ERR"
check final-cap-bit-set dm_bit_set
if guest_state_clean; then
	pass guest-clean
else
	fail guest-clean "$GUEST_DIRT"
fi
