# SPDX-License-Identifier: GPL-2.0
# tests/vm/lib.d/initiator.sh - the initiators: ib_srp (login, logout_all,
# disks, reload_ib_srp) and the tools in /tools (srp_ids, srp_tool,
# srp_login).
# Sourced by tests/vm/lib.sh (busybox ash, in the guest); the functions
# a case calls are listed in the header of lib.sh.

_srp_host() { echo "/sys/class/infiniband_srp/srp-$IBDEV-$IBPORT"; }
# disk_ready DEV: the block device DEV can be opened. /dev (devtmpfs) and
# /sys/block have a new disk from device_add() on, but add_disk() then
# registers its request queue and its bdi before it makes the block device
# known (bdev_add()): an open in between fails with ENXIO ("No such device
# or address"). On the sanitizer kernel that window is wide enough for
# login's 0.2 s poll to land in it: CI stop 24 failed on
# "007-targetcli-layout.read dd from /dev/sda failed". Case 220-disk-ready
# checks this criterion. (true, not ':': a redirection error of a special
# built-in would end the shell.)
disk_ready() { [ -b "$1" ] && { true < "$1"; } 2>/dev/null; }
# shellcheck disable=SC2010 # kernel names (sdX): no blanks or globs
_scsi_disks() { # (a glob is sorted like ls | sort; no exec)
	for _sd in /sys/block/sd*; do
		[ -e "$_sd" ] && echo "${_sd##*/}"
	done
	return 0
}
# Highest disk sequence number so far (diskseq, 5.15+, is never reused,
# unlike sdX names: a disk that appears while an old one is still being
# removed may get the old name).
_max_diskseq() {
	_mx=
	for _sf in /sys/block/sd*/diskseq; do
		[ -r "$_sf" ] && read -r _sv < "$_sf" || continue
		[ "${_mx:-0}" -ge "$_sv" ] || _mx=$_sv
	done
	echo "$_mx"
}

# add_target SPEC: write SPEC to ib_srp's add_target, retrying EEXIST for
# up to 60 s; 1 with the error in ERR otherwise. EEXIST: ib_srp still has a
# target port with these identifiers, an earlier login on its way out.
# logout_all only waits until its sysfs attributes are gone, the first
# step of ib_srp's removal; the rest (SCSI host removal, disconnect,
# freeing the channels) can wait for its fast_io_fail timer (15 s) when the
# target side went away first: a CI run of 538aaa7 saw 13 s. So the retries
# go by the clock (a count of retries shrinks when the guest runs faster).
add_target() {
	_sh=$(_srp_host)
	[ -e "$_sh/add_target" ] || { ERR="no $_sh (ib_srp not loaded?)"; return 1; }
	now_s
	_lend=$((NOW + 60))
	while :; do
		ERR=$( (echo "$1" > "$_sh/add_target") 2>&1 ) && return 0
		now_s
		case $ERR in
		*"$EEXIST"*) [ "$NOW" -lt $_lend ] && { nap 0.2; continue; } ;;
		esac
		ERR="add_target '$1': $ERR"
		return 1
	done
}

# srp_target_spec [OPTS]: the add_target line of this target (service GUID
# as id_ext and ioc_guid, dest=$IP:$CM_PORT), with the ib_srp options OPTS
srp_target_spec() {
	_sg=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid 2>/dev/null)
	_sg=${_sg#0x}
	_spec="id_ext=$_sg,ioc_guid=$_sg,dest=$IP:$CM_PORT"
	[ $# -eq 0 ] || _spec="$_spec,$(echo "$*" | tr ' ' ',')"
	echo "$_spec"
}

# new_disks SEQ [BEFORE]: NEW_DISKS = the SCSI disks (sdX) that came after
# the largest diskseq was SEQ (_max_diskseq); on a kernel without diskseq,
# those not in the list BEFORE (of _scsi_disks). No fork: 220-disk-ready
# polls it without a pause.
new_disks() {
	NEW_DISKS=""
	for _sd in /sys/block/sd*; do
		[ -e "$_sd" ] || continue
		if [ -r "$_sd/diskseq" ]; then
			_sq=
			read -r _sq < "$_sd/diskseq" 2>/dev/null
			[ "${_sq:-0}" -gt "$1" ] || continue
		else
			case " ${2:-} " in *" ${_sd##*/} "*) continue ;; esac
		fi
		NEW_DISKS="$NEW_DISKS ${_sd##*/}"
	done
}

login() {
	_add=$(srp_target_spec "$@")
	_before=$(_scsi_disks | tr '\n' ' ')
	_bseq=$(_max_diskseq)
	_bseq=${_bseq:-0}
	add_target "$_add" || return 1
	_want=${SETUP_LUNS:-1}
	now_s
	_end=$((NOW + 60))
	while :; do
		DISKS=""
		new_disks "$_bseq" "$_before"
		for _d in $NEW_DISKS; do
			disk_ready "/dev/$_d" && DISKS="$DISKS /dev/$_d"
		done
		set -- $DISKS
		[ $# -ge "$_want" ] && break
		now_s
		if [ "$NOW" -ge $_end ]; then
			ERR="add_target '$_add' accepted but only $# of $_want disks appeared"
			[ $# -gt 0 ] && break
			return 1
		fi
		nap 0.2
	done
	# shellcheck disable=SC2034 # for the case files: the first disk
	DISK=$1
	info "logged in ($_add): $DISKS"
	return 0
}

# srp_reconnect_off: no further reconnect attempts of ib_srp. Its reconnect
# work racing its own removal (a logout, a device removal) oopses inside
# ib_srp (KBUG-3 in tests/vm/README.md), which is not what any case tests.
srp_reconnect_off() {
	for _rp in /sys/class/srp_remote_ports/port-*; do
		[ -e "$_rp/reconnect_delay" ] &&
			echo off > "$_rp/reconnect_delay" 2>/dev/null
	done
	return 0
}

# srp_hosts_gone: no SCSI host of ib_srp is left. ib_srp's removal takes
# the remote port and the host's sgid attribute away first, then removes
# the SCSI host with its disks, and only then disconnects: a target that
# disconnects in between (a teardown's enable=0) makes ib_srp block the
# disks being removed, and the SCSI core warns "scsi_internal_device_block
# (0:0:0:1) failed: ret = -22" (seen once on 6.1, an initiator-side race).
# So a logout is complete only when the hosts are gone.
srp_hosts_gone() {
	! grep -qx ib_srp /sys/class/scsi_host/*/proc_name 2>/dev/null
}

logout_all() {
	srp_reconnect_off
	for _rp in /sys/class/srp_remote_ports/*; do
		[ -e "$_rp/delete" ] && (echo 1 > "$_rp/delete") 2>/dev/null
	done
	wait_for 60 sh -c '! ls /sys/class/srp_remote_ports/* >/dev/null 2>&1' &&
		wait_for 60 sh -c '! ls /sys/class/scsi_host/*/sgid >/dev/null 2>&1' &&
		wait_for 60 srp_hosts_gone
}

# ib_srp loaded with parameters by reload_ib_srp: the case teardown loads it
# again without.
_IB_SRP_PARAMS_SET=0
reload_ib_srp() {
	[ $# -eq 0 ] || _IB_SRP_PARAMS_SET=1
	logout_all
	rmmod ib_srp 2>/dev/null
	modprobe ib_srp "$@" || { fail ib_srp "modprobe ib_srp $*"; return 1; }
	[ $# -gt 0 ] || _IB_SRP_PARAMS_SET=0
}

# srp_ids: the identifiers the tools in /tools log in with
srp_ids() {
	SG=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid 2>/dev/null)
	SG=${SG#0x}
	IID=$(echo "$GID0" | cut -d: -f5-8 | tr -d :)
	# shellcheck disable=SC2034 # for the case files
	IPID=0000000000000000$IID
}

srp_tool() { # srp_tool TOOL [args]
	_tool=$1
	shift
	"/tools/$_tool" -a "$IP" -p "$CM_PORT" -g "$SG" "$@"
}

# expect_tool_login NAME TOOL [args]: a login of /tools/TOOL with the
# initiator port ID IPID is accepted (60 s at most): pass/fail NAME
expect_tool_login() {
	_etn=$1
	shift
	_ett=$1
	shift
	run_bounded 60 srp_tool "$_ett" -i "$IPID" "$@"
	if echo "$ERR" | grep -q '^result=accepted'; then
		pass "$_etn"
	else
		fail "$_etn" "$(echo "$ERR" | tr '\n' ' ')"
	fi
}

srp_login() { # srp_login [args]: the tool's key=value lines as variables
	unset result reason rsp_flags disconnected max_ti_iu_len req_lim_delta cm_status
	_o=$(srp_tool srp_login "$@" 2>/tmp/srp_login.err)
	eval "$(echo "$_o" | grep '^[a-z_]*=[0-9a-zA-Z]*$')"
}
