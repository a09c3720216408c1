# SPDX-License-Identifier: GPL-2.0
# tests/vm/lib.sh - helpers for the VM test cases (busybox ash, sourced in the
# guest before every case file; the guest init sources it too).
#
# ---------------------------------------------------------------------------
# Environment available to every case (set by the guest init, exported):
#   SRPT_MODE      "ours" (module from the host at updates/) or "ref" (in-kernel)
#   KVER           uname -r
#   IBDEV          RDMA device (rxe0), IBPORT=1, NETDEV=dummy0
#   IP             192.0.2.1 (IPv4 of dummy0), CM_PORT=5555
#   GID0           GID index 0 of rxe0 port 1 (fe80:0000:...)
#   GUIDNAME       srpt port name, GUID form   (0000:00ff:fe00:0001)
#   GIDNAME        srpt port name, GID form    (0xfe80000000000000000000fffe000001)
#   T              /sys/kernel/config/target      SRPT=$T/srpt
#   CASE           name of the running case file without .sh (e.g. 001-load-unload)
# Directories in the guest: /ref/ib_srpt.ko (in-kernel driver), /selftest/*.ko
# (self-test module, if built), /tools/* (tests/tools binaries), /vmtest/.
#
# ---------------------------------------------------------------------------
# Result reporting. Every result line on the console is
#   VMTEST RESULT <case>.<name> PASS|FAIL|SKIP|XFAIL [detail]
#   pass NAME [detail...]          check passed
#   fail NAME detail...            check failed (the case and the run fail)
#   skip NAME why...               check not applicable here
#   check NAME cmd...              pass if cmd succeeds, else fail (with its output)
#   xfail_ref NAME detail...       a failure that is EXPECTED with the in-kernel
#                                  driver (--ref) because it is an upstream bug we
#                                  fix: XFAIL with --ref, FAIL with our module
#   xfail_ref_dmesg why...         with --ref, kernel warnings logged during this
#                                  case are an expected upstream bug: the case's
#                                  dmesg check reports XFAIL (not FAIL) and the
#                                  final whole-boot scan ignores this case's part
#                                  of the log. No effect with our module.
#   info text...                   free-form log line (VMTEST INFO <case> text)
#   reps FULL QUICK                print FULL, or QUICK when the run is a quick one
#                                  (run.sh --quick, used by `make check` for the
#                                  second and third kernel to stay in the CI time
#                                  budget): for loop counts, fio runtimes, sizes
#   is_quick                       true in a quick run ($VMTEST_QUICK=1)
#   is_sanitizer                   true on the sanitizer kernel (run.sh 6.12-debug:
#                                  3-6 times slower; $VMTEST_SANITIZER=1); there
#                                  fio_verify moves a quarter of its size
#                                  (san_size), at least 1m and one request
#   is_ref                         true when running the in-kernel driver
#   ours NAME                      false (and NAME reported SKIP) with --ref: guards
#                                  checks that read srpt-dkms log messages
#
# Utilities:
#   wait_for SECONDS cmd...        poll cmd every 0.2 s until it succeeds; 1 on timeout
#   run_bounded SECONDS cmd...     run cmd in the background; return its status, or
#                                  124 if it has not finished after SECONDS (it is
#                                  left running: used for ops that may hang forever,
#                                  e.g. rdma link delete with a leaked reference)
#   try cmd...                     run cmd, stderr captured in $ERR, returns its status
#   cfs_write FILE VALUE           write VALUE to FILE; status; error text in $ERR
#   expect_err NAME ERRTEXT cmd... pass if cmd FAILS and its stderr contains ERRTEXT
#                                  (use strerror text: "$EINVAL", "$ENODEV", ...)
#   expect_ok NAME cmd...          pass if cmd succeeds
#   module_refcnt [MOD]            /sys/module/MOD/refcnt (default ib_srpt), or -1
#   dmesg_mark                     write a marker to the kernel log; dmesg_since prints
#                                  the kernel log after the last marker
#
# Target / initiator:
#   setup_target [opts]            rd_mcp backstore (core/rd_mcp_0/vdisk<N>), srpt port
#                                  dir, tpgt_1, lun_0.., ACLs for every initiator-name
#                                  candidate (each mapping all LUNs),
#                                  discovery_auth/rdma_cm_port=$CM_PORT, enable=1.
#       --port gid|guid|both       port directory name form (default gid)
#       --backstore rd|iblock|fileio  (iblock: brd /dev/ram0; fileio: /tmp file)
#       --size MB                  backstore size per LUN (default 64)
#       --luns N                   number of LUNs (default 1)
#       --acl NAME                 create only this ACL (repeatable) instead of all
#                                  candidates
#       --no-enable                leave the TPG disabled
#     Sets PORTDIRS (list of port dirs), TPGS (list of tpg dirs), TPG (first),
#     BACKSTORES (list of core device dirs). Returns non-zero (after a fail line)
#     on error.
#   add_lun HBA NAME CONTROL       after setup_target: a backstore $T/core/HBA/NAME
#                                  (e.g. iblock_0, fileio_0) configured with
#                                  CONTROL ("udev_path=/dev/nullb0", ...), exported
#                                  as the next LUN of $TPG and mapped in every
#                                  ACL; SETUP_LUNS is raised, so login waits for
#                                  its disk. Non-zero (after a fail line) on error.
#   teardown_target                logout_all, then remove EVERYTHING under
#                                  $SRPT and $T/core (whatever created it), and
#                                  rmdir $SRPT. Non-zero if something could not
#                                  be removed.
#   login [add_target options]     log the kernel initiator (ib_srp) in over RDMA CM:
#                                  id_ext=<service guid>,ioc_guid=<service guid>,
#                                  dest=$IP:$CM_PORT[,extra]; retries EEXIST for
#                                  a while; waits for the disk(s). Sets DISK
#                                  (/dev/sdX, first new disk), DISKS (all new ones).
#                                  Non-zero on failure (error in $ERR).
#   logout_all                     delete every SRP remote port and wait until the
#                                  SCSI hosts are gone (so a new login cannot hit
#                                  EEXIST). Non-zero on timeout.
#   srpt_reload [params]           teardown_target, rmmod ib_srpt, modprobe ib_srpt
#                                  [params] (the same module: ours or in-kernel).
#                                  Without params: default parameters.
#   rxe_del / rxe_add              rdma link delete rxe0 (bounded: 60 s) / add it
#                                  back on dummy0 and wait for ACTIVE + GID 0.
#   initiator_names                print every ACL name candidate (one per line)
#   guest_state_clean              true if: not logged in, no srpt port dirs, no
#                                  backstores, ib_srpt loaded, rxe0 present
#   reload_ib_srp [params]         log out, rmmod ib_srp, modprobe ib_srp [params]
#                                  (a fail line on error)
#
# I/O:
#   fio_verify NAME DEV RW BS QD SIZE [fio args]
#                                  fio with O_DIRECT, libaio and verify=crc32c
#                                  ($FIO_COMMON): writes, then reads back and
#                                  verifies; pass/fail line NAME
#   dyndbg FUNC on|off             switch the pr_debug() lines of ib_srpt's FUNC
#                                  on or off (dynamic debug); non-zero if the
#                                  kernel has no dynamic debug
# ---------------------------------------------------------------------------

# shellcheck disable=SC2034 # for the case files (expect_err texts)
EINVAL="Invalid argument"
# shellcheck disable=SC2034 # for the case files
ENODEV="No such device"
EEXIST="File exists"
# shellcheck disable=SC2034 # for the case files
ENOENT="No such file or directory"
# shellcheck disable=SC2034 # for the case files
EBUSY="Device or resource busy"
# shellcheck disable=SC2034 # for the case files
EPERM="Operation not permitted"

T=${T:-/sys/kernel/config/target}
SRPT=${SRPT:-$T/srpt}
IBDEV=${IBDEV:-rxe0}
IBPORT=${IBPORT:-1}
NETDEV=${NETDEV:-dummy0}
IP=${IP:-192.0.2.1}
CM_PORT=${CM_PORT:-5555}
CASE=${CASE:-init}
RESULTS_DIR=${RESULTS_DIR:-/tmp/results}
mkdir -p "$RESULTS_DIR" 2>/dev/null

# --- reporting ---------------------------------------------------------------
_result() { # _result STATUS NAME [detail...]
	_st=$1 _n=$2
	shift 2
	echo "VMTEST RESULT $CASE.$_n $_st${*:+ $*}"
	echo "$_st $_n" >> "$RESULTS_DIR/$CASE"
	return 0
}
pass() { _result PASS "$@"; }
fail() { _result FAIL "$@"; }
skip() { _result SKIP "$@"; }
info() { echo "VMTEST INFO $CASE $*"; }
is_ref() { [ "${SRPT_MODE:-ours}" = ref ]; }
# ours NAME: a check that reads srpt-dkms log messages; with --ref it is
# reported as skipped and ours returns 1 (use as: ours NAME && ...)
ours() {
	is_ref || return 0
	skip "$1" "reads srpt-dkms log messages"
	return 1
}
xfail_ref() {
	if is_ref; then
		_n=$1
		shift
		_result XFAIL "$_n" "(known upstream bug, expected with --ref) $*"
	else
		fail "$@"
	fi
}
is_quick() { [ "${VMTEST_QUICK:-0}" = 1 ]; }
is_sanitizer() { [ "${VMTEST_SANITIZER:-0}" = 1 ]; }
reps() { if is_quick; then echo "$2"; else echo "$1"; fi; }
xfail_ref_dmesg() {
	is_ref && echo "$*" > "$RESULTS_DIR/$CASE.refdmesg"
	return 0
}
check() { # check NAME cmd...
	_cn=$1
	shift
	if _out=$("$@" 2>&1); then
		pass "$_cn"
	else
		fail "$_cn" "'$*' failed: $(echo "$_out" | tail -n 3 | tr '\n' ' ')"
	fi
}

# --- utilities ---------------------------------------------------------------
wait_for() { # wait_for SECONDS cmd...
	_wt=$1
	shift
	_wend=$(( $(date +%s) + _wt ))
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$_wend" ] && return 1
		sleep 0.2
	done
	return 0
}

run_bounded() { # run_bounded SECONDS cmd...
	_bt=$1
	shift
	_bf=/tmp/bounded.$$.$(date +%s%N 2>/dev/null || date +%s)
	rm -f "$_bf.rc"
	( "$@" > "$_bf.out" 2>&1; echo $? > "$_bf.rc" ) &
	if wait_for "$_bt" test -s "$_bf.rc"; then
		_brc=$(cat "$_bf.rc")
	else
		_brc=124
	fi
	ERR=$(cat "$_bf.out" 2>/dev/null)
	rm -f "$_bf.rc" "$_bf.out"
	return "$_brc"
}

try() { # try cmd... ; stderr+stdout in $ERR
	ERR=$("$@" 2>&1)
}

cfs_write() { # cfs_write FILE VALUE
	ERR=$( (echo "$2" > "$1") 2>&1 )
}

expect_err() { # expect_err NAME ERRTEXT cmd...
	_en=$1 _ee=$2
	shift 2
	if _out=$("$@" 2>&1); then
		fail "$_en" "'$*' succeeded, expected failure ($_ee)"
		return 1
	fi
	case $_out in
	*"$_ee"*) pass "$_en"; return 0 ;;
	esac
	fail "$_en" "'$*' failed with '$(echo "$_out" | tail -n 1)', expected '$_ee'"
	return 1
}

expect_ok() { # expect_ok NAME cmd...
	_on=$1
	shift
	if _out=$("$@" 2>&1); then
		pass "$_on"
		return 0
	fi
	fail "$_on" "'$*': $(echo "$_out" | tail -n 2 | tr '\n' ' ')"
	return 1
}

module_refcnt() { # module_refcnt [MOD]
	cat "/sys/module/${1:-ib_srpt}/refcnt" 2>/dev/null || echo -1
}

_MARK=0
dmesg_mark() {
	_MARK=$((_MARK + 1))
	echo "VMTEST-MARK $CASE $_MARK" > /dev/kmsg
}
dmesg_since() {
	dmesg | sed -n "/VMTEST-MARK $CASE $_MARK\$/,\$p" | sed 1d
}

# --- names -------------------------------------------------------------------
# All GIDs of the port, "index:gid", without the empty ones (one grep: fast).
port_gids() {
	(cd "/sys/class/infiniband/$IBDEV/ports/$IBPORT/gids" && grep -H . * 2>/dev/null) |
		grep -v ':0000:0000:0000:0000:0000:0000:0000:0000$' | sort -n
}
refresh_names() {
	GID0=$(cat "/sys/class/infiniband/$IBDEV/ports/$IBPORT/gids/0" 2>/dev/null)
	GUIDNAME=$(echo "$GID0" | cut -d: -f5-8)
	GIDNAME=0x$(echo "$GID0" | tr -d :)
}
[ -n "$GID0" ] || refresh_names

# ACL name candidates: the RDMA CM session name (an IP address) and, for every
# GID, the GUID form of its interface ID and the 128-bit initiator port ID
# (8 zero bytes of id_ext + interface ID) with and without 0x.
initiator_names() {
	{
		echo "$IP"
		for _e in $(port_gids); do
			_iid=$(echo "${_e#*:}" | cut -d: -f5-8)
			_hex=$(echo "$_iid" | tr -d :)
			echo "$_iid"
			echo "0x0000000000000000$_hex"
			echo "0000000000000000$_hex"
		done
	} | awk '!s[$0]++'
}

# --- target --------------------------------------------------------------------
setup_target() {
	_port=gid _bs=rd _size=64 _luns=1 _acls="" _enable=1
	while [ $# -gt 0 ]; do
		case $1 in
		--port) _port=$2; shift 2 ;;
		--backstore) _bs=$2; shift 2 ;;
		--size) _size=$2; shift 2 ;;
		--luns) _luns=$2; shift 2 ;;
		--acl) _acls="$_acls $2"; shift 2 ;;
		--no-enable) _enable=0; shift ;;
		*) fail setup_target "unknown option $1"; return 2 ;;
		esac
	done
	[ -n "$_acls" ] || _acls=$(initiator_names)
	PORTDIRS="" TPGS="" TPG="" BACKSTORES=""
	if ! [ -d "$SRPT" ] && ! try mkdir "$SRPT"; then
		fail setup_target "mkdir $SRPT: $ERR"; return 1
	fi
	if [ -e "$SRPT/discovery_auth/rdma_cm_port" ] &&
	   ! cfs_write "$SRPT/discovery_auth/rdma_cm_port" "$CM_PORT"; then
		fail setup_target "rdma_cm_port=$CM_PORT: $ERR"; return 1
	fi
	# Backstores.
	case $_bs in
	rd) _hba=$T/core/rd_mcp_0 ;;
	iblock)
		_hba=$T/core/iblock_0
		if ! [ -b /dev/ram0 ]; then
			try modprobe brd rd_nr="$_luns" rd_size=$((_size * 1024)) ||
				{ fail setup_target "modprobe brd: $ERR"; return 1; }
		fi
		;;
	fileio) _hba=$T/core/fileio_0 ;;
	*) fail setup_target "unknown backstore $_bs"; return 2 ;;
	esac
	_i=0
	while [ $_i -lt "$_luns" ]; do
		_dev=$_hba/vdisk$_i
		try mkdir -p "$_dev" || { fail setup_target "mkdir $_dev: $ERR"; return 1; }
		case $_bs in
		rd) _ctl="rd_pages=$((_size * 256))" ;;
		iblock) _ctl="udev_path=/dev/ram$_i" ;;
		fileio) _ctl="fd_dev_name=/tmp/vdisk$_i.img,fd_dev_size=$((_size * 1048576))" ;;
		esac
		cfs_write "$_dev/control" "$_ctl" || { fail setup_target "$_dev/control $_ctl: $ERR"; return 1; }
		cfs_write "$_dev/enable" 1 || { fail setup_target "$_dev/enable: $ERR"; return 1; }
		BACKSTORES="$BACKSTORES $_dev"
		_i=$((_i + 1))
	done
	case $_port in
	gid) _names=$GIDNAME ;;
	guid) _names=$GUIDNAME ;;
	both) _names="$GUIDNAME $GIDNAME" ;;
	*) fail setup_target "unknown port form $_port"; return 2 ;;
	esac
	for _p in $_names; do
		_pd=$SRPT/$_p
		try mkdir "$_pd" || { fail setup_target "mkdir $_pd: $ERR"; return 1; }
		PORTDIRS="$PORTDIRS $_pd"
		_tpg=$_pd/tpgt_1
		try mkdir "$_tpg" || { fail setup_target "mkdir $_tpg: $ERR"; return 1; }
		TPGS="$TPGS $_tpg"
		[ -n "$TPG" ] || TPG=$_tpg
		_i=0
		for _dev in $BACKSTORES; do
			try mkdir "$_tpg/lun/lun_$_i" || { fail setup_target "mkdir lun_$_i: $ERR"; return 1; }
			try ln -s "$_dev" "$_tpg/lun/lun_$_i/$(basename "$_dev")" ||
				{ fail setup_target "lun_$_i link: $ERR"; return 1; }
			_i=$((_i + 1))
		done
		_nacl=0
		for _a in $_acls; do
			if ! try mkdir "$_tpg/acls/$_a"; then
				info "setup_target: ACL '$_a' rejected: $ERR"
				continue
			fi
			_nacl=$((_nacl + 1))
			_i=0
			for _dev in $BACKSTORES; do
				mkdir "$_tpg/acls/$_a/lun_$_i" &&
					ln -s "$_tpg/lun/lun_$_i" "$_tpg/acls/$_a/lun_$_i/map$_i" ||
					{ fail setup_target "ACL $_a lun_$_i mapping"; return 1; }
				_i=$((_i + 1))
			done
		done
		[ $_nacl -gt 0 ] || { fail setup_target "no ACL accepted under $_pd"; return 1; }
		if [ $_enable = 1 ]; then
			cfs_write "$_tpg/enable" 1 || { fail setup_target "enable $_tpg: $ERR"; return 1; }
		fi
	done
	SETUP_LUNS=$_luns
	return 0
}

add_lun() { # add_lun HBA NAME CONTROL
	_ld=$T/core/$1/$2
	_ln=${SETUP_LUNS:-1}
	mkdir -p "$_ld" && cfs_write "$_ld/control" "$3" &&
		cfs_write "$_ld/enable" 1 ||
		{ fail "add_lun_$2" "backstore $1/$2 ($3): $ERR"; return 1; }
	mkdir "$TPG/lun/lun_$_ln" && ln -s "$_ld" "$TPG/lun/lun_$_ln/$2" ||
		{ fail "add_lun_$2" "$TPG/lun/lun_$_ln"; return 1; }
	for _a in "$TPG"/acls/*; do
		mkdir "$_a/lun_$_ln" &&
			ln -s "$TPG/lun/lun_$_ln" "$_a/lun_$_ln/map$_ln" ||
			{ fail "add_lun_$2" "ACL ${_a##*/}"; return 1; }
	done
	SETUP_LUNS=$((_ln + 1))
}

# Remove a directory tree the way configfs wants it: symlinks, then child
# directories (deepest first), then the directory. Default groups
# (attrib/, param/, ...) cannot be removed and are skipped silently.
_cfs_rm_links() { # remove all symlinks below DIR
	find "$1" -type l 2>/dev/null | while read -r _l; do rm -f "$_l"; done
}

teardown_target() {
	_ok=0
	logout_all || _ok=1
	if [ -d "$SRPT" ]; then
		for _pd in "$SRPT"/*; do
			[ -d "$_pd" ] || continue
			case ${_pd##*/} in discovery_auth) continue ;; esac
			for _tpg in "$_pd"/*; do
				[ -d "$_tpg/acls" ] || continue
				# (may fail with ENODEV on a removed device: not an error here)
				[ -e "$_tpg/enable" ] && [ "$(cat "$_tpg/enable" 2>/dev/null)" != 0 ] &&
					(echo 0 > "$_tpg/enable") 2>/dev/null
				for _a in "$_tpg"/acls/*; do
					[ -d "$_a" ] || continue
					_cfs_rm_links "$_a"
					for _l in "$_a"/lun_*; do [ -d "$_l" ] && { rmdir "$_l" || _ok=1; }; done
					rmdir "$_a" || _ok=1
				done
				for _l in "$_tpg"/lun/lun_*; do
					[ -d "$_l" ] || continue
					_cfs_rm_links "$_l"
					rmdir "$_l" || _ok=1
				done
				rmdir "$_tpg" || _ok=1
			done
			rmdir "$_pd" || _ok=1
		done
	fi
	if [ -d "$T/core" ]; then
		for _hba in "$T"/core/*_*; do
			[ -d "$_hba" ] || continue
			case ${_hba##*/} in alua) continue ;; esac
			for _dev in "$_hba"/*; do
				[ -d "$_dev" ] || continue
				rmdir "$_dev" || _ok=1
			done
			rmdir "$_hba" || _ok=1
		done
	fi
	if [ -d "$SRPT" ]; then
		rmdir "$SRPT" || _ok=1
	fi
	rm -f /tmp/vdisk*.img
	PORTDIRS="" TPGS="" TPG="" BACKSTORES=""
	return $_ok
}

# --- initiator -----------------------------------------------------------------
_srp_host() { echo "/sys/class/infiniband_srp/srp-$IBDEV-$IBPORT"; }
# shellcheck disable=SC2010 # kernel names (sdX): no blanks or globs
_scsi_disks() { ls /sys/block 2>/dev/null | grep '^sd' | sort; }
# Highest disk sequence number so far (diskseq, 5.15+, is never reused,
# unlike sdX names: a disk that appears while an old one is still being
# removed may get the old name).
_max_diskseq() {
	cat /sys/block/sd*/diskseq 2>/dev/null | sort -n | tail -n 1
}

login() {
	_sh=$(_srp_host)
	[ -e "$_sh/add_target" ] || { ERR="no $_sh (ib_srp not loaded?)"; return 1; }
	_sg=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid 2>/dev/null)
	_sg=${_sg#0x}
	_add="id_ext=$_sg,ioc_guid=$_sg,dest=$IP:$CM_PORT"
	[ $# -gt 0 ] && _add="$_add,$(echo "$*" | tr ' ' ',')"
	_before=$(_scsi_disks | tr '\n' ' ')
	_bseq=$(_max_diskseq)
	_bseq=${_bseq:-0}
	_n=0
	while :; do
		ERR=$( (echo "$_add" > "$_sh/add_target") 2>&1 ) && break
		_n=$((_n + 1))
		case $ERR in
		*"$EEXIST"*) [ $_n -lt 50 ] && { sleep 0.2; continue; } ;;
		esac
		ERR="add_target '$_add': $ERR"
		return 1
	done
	_want=${SETUP_LUNS:-1}
	_end=$(( $(date +%s) + 60 ))
	while :; do
		DISKS=""
		for _d in $(_scsi_disks); do
			if [ -r "/sys/block/$_d/diskseq" ]; then
				_sq=$(cat "/sys/block/$_d/diskseq" 2>/dev/null)
				[ "${_sq:-0}" -gt "$_bseq" ] || continue
			else
				case " $_before " in *" $_d "*) continue ;; esac
			fi
			[ -b "/dev/$_d" ] && DISKS="$DISKS /dev/$_d"
		done
		set -- $DISKS
		[ $# -ge "$_want" ] && break
		if [ "$(date +%s)" -ge $_end ]; then
			ERR="add_target '$_add' accepted but only $# of $_want disks appeared"
			[ $# -gt 0 ] && break
			return 1
		fi
		sleep 0.2
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

logout_all() {
	srp_reconnect_off
	for _rp in /sys/class/srp_remote_ports/*; do
		[ -e "$_rp/delete" ] && (echo 1 > "$_rp/delete") 2>/dev/null
	done
	wait_for 60 sh -c '! ls /sys/class/srp_remote_ports/* >/dev/null 2>&1' &&
		wait_for 60 sh -c '! ls /sys/class/scsi_host/*/sgid >/dev/null 2>&1'
}

srpt_reload() { # srpt_reload [params]
	teardown_target || info "srpt_reload: teardown left something behind"
	if [ -d /sys/module/ib_srpt ]; then
		try rmmod ib_srpt || { ERR="rmmod ib_srpt: $ERR"; return 1; }
	fi
	try modprobe ib_srpt "$@" || { ERR="modprobe ib_srpt $*: $ERR"; return 1; }
	return 0
}

# --- RDMA device -------------------------------------------------------------------
rxe_del() {
	# The initiator (ib_srp) shares the device with the target here. Its
	# reconnect work racing the device removal was seen to oops inside
	# ib_srp's own CQ polling (KBUG-3): switch reconnects off first.
	srp_reconnect_off
	run_bounded 60 rdma link delete "$IBDEV"
}
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

guest_state_clean() {
	GUEST_DIRT=""
	ls /sys/class/srp_remote_ports/* >/dev/null 2>&1 && GUEST_DIRT="$GUEST_DIRT logged-in"
	if [ -d "$SRPT" ]; then
		for _pd in "$SRPT"/*; do
			case ${_pd##*/} in discovery_auth|'*') continue ;; esac
			[ -d "$_pd" ] && GUEST_DIRT="$GUEST_DIRT port-dir:${_pd##*/}"
		done
	fi
	for _hba in "$T"/core/*_*; do
		[ -d "$_hba" ] || continue
		case ${_hba##*/} in alua) continue ;; esac
		GUEST_DIRT="$GUEST_DIRT backstore:${_hba##*/}"
	done
	[ -d /sys/module/ib_srpt ] || GUEST_DIRT="$GUEST_DIRT ib_srpt-not-loaded"
	[ -d "/sys/class/infiniband/$IBDEV" ] || GUEST_DIRT="$GUEST_DIRT no-$IBDEV"
	[ -z "$GUEST_DIRT" ]
}

reload_ib_srp() {
	logout_all
	rmmod ib_srp 2>/dev/null
	modprobe ib_srp "$@" || { fail ib_srp "modprobe ib_srp $*"; return 1; }
}

# --- I/O ---------------------------------------------------------------------
FIO_COMMON="--direct=1 --ioengine=libaio --verify=crc32c --do_verify=1
 --verify_fatal=1 --randrepeat=0 --group_reporting"

# san_size SIZE: SIZE (fio syntax, k/m suffix) divided by 4 on the sanitizer
# kernel, where KASAN makes every I/O several times slower, but not below
# 1m or the request size $_bs (fio_verify uses it for every job).
san_size() {
	is_sanitizer || { echo "$1"; return; }
	case $1 in
	*m) _ss=$(( ${1%m} * 1024 / 4 )) ;;
	*k) _ss=$(( ${1%k} / 4 )) ;;
	*) echo "$1"; return ;;
	esac
	[ "$_ss" -ge 1024 ] || _ss=1024
	case ${_bs:-} in
	*m) [ "$_ss" -ge $(( ${_bs%m} * 1024 )) ] || _ss=$(( ${_bs%m} * 1024 )) ;;
	*k) [ "$_ss" -ge "${_bs%k}" ] || _ss=${_bs%k} ;;
	esac
	case $1 in *k) [ "$_ss" -le "${1%k}" ] || _ss=${1%k} ;; esac
	echo "${_ss}k"
}

fio_verify() {
	_fn=$1 _dev=$2 _rw=$3 _bs=$4 _qd=$5 _sz=$6
	shift 6
	_sz=$(san_size "$_sz")
	_t0=$(date +%s)
	# shellcheck disable=SC2086
	if _out=$(fio --name="$_fn" --filename="$_dev" --rw="$_rw" --bs="$_bs" \
		--iodepth="$_qd" --size="$_sz" $FIO_COMMON "$@" 2>&1); then
		case $_out in
		*"verify: bad"* | *"err= "[1-9]* | *"Input/output error"*)
			fail "$_fn" "$(echo "$_out" | grep -m3 -i 'err\|bad')" ;;
		*) pass "$_fn" "$_rw bs=$_bs qd=$_qd size=$_sz $(( $(date +%s) - _t0 ))s" ;;
		esac
	else
		fail "$_fn" "fio failed: $(echo "$_out" | grep -v '^ *$' | tail -n 4 | tr '\n' ' ')"
	fi
}

dyndbg() { # dyndbg FUNC on|off
	_dc=/sys/kernel/debug/dynamic_debug/control
	[ -w "$_dc" ] || { ERR="no $_dc"; return 1; }
	case $2 in on) _fl=+p ;; *) _fl=-p ;; esac
	cfs_write "$_dc" "module ib_srpt func $1 $_fl"
}
