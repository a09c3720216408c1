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
# Case framework (the model of blktests: requirements, one setup call, a
# registered teardown). A case is a script run from top to bottom:
#
#   # SPDX-License-Identifier: GPL-2.0
#   # NNN-name: what the case checks and why
#   # vmtest-timeout: 120
#   requires tool srp_login        # not met: "SKIP all <reason>", case ends
#   case_begin --login             # target up, logged in; teardown registered
#   check read dd if="$DISK" of=/dev/null bs=4k count=16 iflag=direct
#   fio_verify fio-4k "$DISK" randwrite 4k 8 1m
#
# tests/vm/new-case.sh NNN-name writes such a skeleton, which runs as it is.
#
#   requires WHAT [ARG...]         the case needs WHAT; if not, report SKIP
#                                  "all" with the reason and end the case
#                                  (exit 0; a registered teardown runs). WHAT:
#       tool NAME                  /tools/NAME exists ("/tools/NAME missing")
#       ours [WHY]                 not the in-kernel driver (--ref); the skip
#                                  reason is WHY (default "in-kernel driver")
#       hooks [PARAM]              a debug build (make SRPT_DEBUG_HOOKS=y):
#                                  ib_srpt has parameter PARAM (default
#                                  debug_delay_point)
#       module MOD [ARGS...]       kernel module MOD loaded with ARGS (unloaded
#                                  first if it was loaded); the case teardown
#                                  unloads it if the case did not
#       targetcli                  the real targetcli-fb and python3-rtslib-fb
#                                  of Debian 12 (tcli below): run.sh attaches
#                                  their Debian root (build-debroot.sh) only
#                                  when a selected case file has a line
#                                  "requires targetcli" or "have targetcli";
#                                  the case teardown unloads the
#                                  iscsi_target_mod that rtslib-fb loads
#   have WHAT [ARG...]             the same test, without the skip: status 0 if
#                                  met, else 1 with the reason in $WHY (for a
#                                  check or a part of a case that needs WHAT)
#   case_begin [target_up options] register the case teardown (trap on EXIT)
#                                  and set SG and IPID; with options, bring the
#                                  target up (target_up) and end the case if
#                                  that fails (target_up reported why)
#   target_up [options] [setup_target options]
#                                  setup_target with extras, in this order:
#       --srpt PARAMS              srpt_reload PARAMS first (module parameters
#                                  of ib_srpt; the teardown restores defaults)
#       --ib-srp PARAMS            reload_ib_srp PARAMS first (the same)
#       --lun HBA NAME CONTROL     add_lun HBA NAME CONTROL (repeatable)
#       --attr NAME=VALUE          TPG attribute written before the TPG is
#                                  enabled (repeatable)
#       --login                    log in (login) after the enable
#       --login-opts "OPTS"        log in with login options OPTS
#       --as NAME                  result name of a failed step (default
#                                  "setup"; a failed login is "login")
#       --target                   nothing more (case_begin --target: the
#                                  target as setup_target makes it)
#     Non-zero (after a fail line) if a step failed.
#   on_exit CMD...                 add CMD to the case teardown (eval'd; the
#                                  newest first), e.g. stop a background job
#   case_teardown                  the case teardown (the EXIT trap that
#                                  case_begin sets): 1. the on_exit commands;
#                                  2. if anything is configured or logged in,
#                                  teardown_target (bounded, 120 s), rxe0
#                                  added back, ib_srpt loaded; 3. modules of
#                                  requires/have module unloaded; 4. ib_srpt
#                                  and ib_srp reloaded with default parameters
#                                  if srpt_reload/reload_ib_srp last loaded
#                                  them with parameters. A failed step is
#                                  "FAIL teardown". Every step is skipped when
#                                  there is nothing to undo, so a case may
#                                  still clean up (and report) itself.
#     Subshells do not run the trap: a background job or run_bounded does not
#     tear the case down, and state changed there (e.g. srpt_reload PARAMS in
#     run_bounded) is not known to the teardown.
#   SG, IID, IPID                  set by case_begin (srp_ids): SG the target's
#                                  service GUID (srpt_service_guid, 16 hex
#                                  digits), IID the interface ID of GID 0 (16
#                                  hex digits), IPID the initiator port ID
#                                  8 zero bytes + IID (32 hex digits)
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
#   is_sanitizer                   true on a sanitizer kernel (run.sh 6.12-debug,
#                                  7.3-debug: 3-6 times slower; $VMTEST_SANITIZER=1); there
#                                  fio_verify moves a quarter of its size
#                                  (san_size), at least 1m and one request
#   is_ref                         true when running the in-kernel driver
#   $VMTEST_COMPL                  complete_type of every backstore that
#                                  setup_target and add_lun create, where the
#                                  kernel has it (7.x; default 1: direct
#                                  completion; see compl_type)
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
#   expect_refcnt_zero             pass/fail refcnt_zero: ib_srpt's refcnt is 0
#   dmesg_mark                     write a marker to the kernel log; dmesg_since prints
#                                  the kernel log after the last marker
#   count_since TEXT               number of kernel log lines with TEXT (grep
#                                  pattern) since the last dmesg_mark
#   released_ge N                  true if at least N channels were released
#                                  ("channel released") since the last dmesg_mark
#   wait_released N SECONDS        wait_for SECONDS released_ge N
#   debug_hook POINT MS            debug build: arm delay hook POINT (SRPT_DBG_*,
#                                  src/debug.c) for MS ms; debug_hook 0 0 disarms
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
#   srp_ids                        set SG, IID and IPID (see case_begin)
#   srp_tool TOOL [args]           /tools/TOOL -a $IP -p $CM_PORT -g $SG [args]
#                                  (srp_login, srp_xfer, srp_flood, ...). Run
#                                  in the background, $! is a subshell that
#                                  kill does not pass on: start a job that may
#                                  be killed with /tools/TOOL itself
#   expect_tool_login NAME TOOL [args]
#                                  pass NAME if srp_tool TOOL -i $IPID [args]
#                                  logs in (result=accepted) within 60 s
#   srp_login [args]               srp_tool srp_login [args], stderr in
#                                  /tmp/srp_login.err; its key=value output is
#                                  set as shell variables (result, reason,
#                                  rsp_flags, disconnected, max_ti_iu_len,
#                                  req_lim_delta, cm_status: unset first)
#
# I/O:
#   fio_verify NAME DEV RW BS QD SIZE [fio args]
#                                  fio with O_DIRECT, libaio and verify=crc32c
#                                  ($FIO_COMMON): writes, then reads back and
#                                  verifies; pass/fail line NAME (fio_verdict);
#                                  status 0 either way, like check
#   fio_verdict NAME RC OUTPUT DETAIL
#                                  the verdict on a fio run that exited with RC
#                                  and printed OUTPUT: FAIL if RC is not 0 or
#                                  OUTPUT has a verify error, an "err=" other
#                                  than 0 or an I/O error (status 1); else PASS
#                                  with DETAIL
#   tcli [ARGS]                    targetcli in the Debian root (chroot
#                                  $DEBROOT with /proc, /sys, /dev, the
#                                  guest's modules, tmpfs on
#                                  /tmp, /run, /root, /etc/rtslib-fb-target
#                                  and a system D-Bus, which Debian 12's
#                                  targetcli needs to start:
#                                  saveconfig's default file is
#                                  /etc/rtslib-fb-target/saveconfig.json there,
#                                  kept until the guest powers off). Without
#                                  ARGS it reads commands from stdin: one
#                                  process for a batch of commands (each start
#                                  costs seconds under TCG). A batch starts
#                                  with the prefs: no colours, no save on
#                                  exit. After "requires targetcli"
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
fail() { _result FAIL "$@"; _fail_dmesg || true; }
# The first FAIL of a case also prints the end of the case's kernel log, at
# every level, into the console log: the console itself shows only warnings
# and above, and a failure that does not come back must be explainable
# from the log of the run that saw it.
_fail_dmesg() {
	[ -z "${_FAIL_DMESG:-}" ] || return 0
	_FAIL_DMESG=1
	dmesg | sed -n "/VMTEST-CASE-START $CASE\$/,\$p" | tail -n 40 |
		sed "s/^/VMTEST INFO $CASE dmesg: /"
}
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
# The polling helpers below avoid forks: on the sanitizer kernel under TCG a
# fork and exec of busybox costs tens of milliseconds of guest CPU, and a
# poll every 0.2 s that forks date and sleep took that CPU from the code
# under test. Shell builtins (read, test, echo, arithmetic) do not fork.

# now_s: NOW = whole seconds since boot (from /proc/uptime, no fork).
now_s() {
	read -r _now _ < /proc/uptime
	NOW=${_now%.*}
}

# nap SECONDS: sleep without a fork: read -t on a FIFO that nobody writes
# to. A signal to the shell (SIGCHLD of a background job) restarts the
# timeout, so a nap can last longer than asked: for polling only.
NAP_FIFO=/tmp/.vmtest-nap
nap() {
	[ -p "$NAP_FIFO" ] || mkfifo "$NAP_FIFO" 2>/dev/null
	if [ -p "$NAP_FIFO" ]; then
		# shellcheck disable=SC3045 # busybox ash has read -t (fractions too)
		read -r -t "$1" _ <> "$NAP_FIFO" 2>/dev/null
	else
		sleep "$1"
	fi
	return 0
}

# read_file FILE: ERR = the contents of FILE (no fork; empty if missing).
read_file() {
	ERR=
	[ -f "$1" ] || return 0
	while IFS= read -r _rl || [ -n "$_rl" ]; do
		ERR="${ERR:+$ERR
}$_rl"
	done < "$1"
}

wait_for() { # wait_for SECONDS cmd...
	_wt=$1
	shift
	now_s
	_wend=$((NOW + _wt))
	while ! "$@" >/dev/null 2>&1; do
		now_s
		[ "$NOW" -ge "$_wend" ] && return 1
		nap 0.2
	done
	return 0
}

run_bounded() { # run_bounded SECONDS cmd...
	_bt=$1
	shift
	# A name of its own for every call, also in concurrent subshells
	# (which share $$): the pid of this shell process, read from
	# /proc/self by the shell itself, and a counter.
	read -r _bpid _ < /proc/self/stat
	_BOUNDED_SEQ=$((${_BOUNDED_SEQ:-0} + 1))
	_bf=/tmp/bounded.$_bpid.$_BOUNDED_SEQ
	( "$@" > "$_bf.out" 2>&1; echo $? > "$_bf.rc" ) &
	if wait_for "$_bt" test -s "$_bf.rc"; then
		read -r _brc < "$_bf.rc"
	else
		_brc=124
	fi
	read_file "$_bf.out"
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

expect_refcnt_zero() {
	_rc0=$(module_refcnt ib_srpt)
	if [ "$_rc0" = 0 ]; then
		pass refcnt_zero
	else
		fail refcnt_zero "refcnt $_rc0"
	fi
}

_MARK=0
dmesg_mark() {
	_MARK=$((_MARK + 1))
	echo "VMTEST-MARK $CASE $_MARK" > /dev/kmsg
}
dmesg_since() {
	dmesg | sed -n "/VMTEST-MARK $CASE $_MARK\$/,\$p" | sed 1d
}
count_since() { # count_since TEXT
	dmesg_since | grep -c "$1"
}
released_ge() { # released_ge N
	[ "$(count_since 'channel released')" -ge "$1" ]
}
wait_released() { # wait_released N SECONDS
	wait_for "$2" released_ge "$1"
}

debug_hook() { # debug_hook POINT MS
	_dhp=/sys/module/ib_srpt/parameters
	echo "$2" > $_dhp/debug_delay_ms
	echo "$1" > $_dhp/debug_delay_point
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

# ACL name candidates: the RDMA CM session name (the initiator's IP address,
# $IP: login connects from $IP to $IP) and, for every GID, the GUID form of
# its interface ID and the 128-bit initiator port ID (8 zero bytes of id_ext
# + interface ID) with and without 0x.
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
		compl_type "$_dev" || { fail setup_target "$_dev: $ERR"; return 1; }
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

# compl_type DEV: on kernels whose LIO can complete commands directly from
# the backend (7.x: DEV/attrib/complete_type exists), write $VMTEST_COMPL
# to it (default 1: direct completion, which srpt-dkms supports but does
# not choose by default), so that the cases exercise our callbacks in the
# backend's completion context (docs/design.md, "Completion context:
# direct completion (7.x)").
# The in-kernel driver does not support it: LIO queues its completions
# whatever the attribute says.
compl_type() {
	[ -e "$1/attrib/complete_type" ] || return 0
	cfs_write "$1/attrib/complete_type" "${VMTEST_COMPL:-1}"
}

add_lun() { # add_lun HBA NAME CONTROL
	_ld=$T/core/$1/$2
	_ln=${SETUP_LUNS:-1}
	mkdir -p "$_ld" && cfs_write "$_ld/control" "$3" &&
		cfs_write "$_ld/enable" 1 && compl_type "$_ld" ||
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
	# EEXIST: ib_srp still has a target port with these identifiers, an
	# earlier login on its way out. logout_all only waits until its sysfs
	# attributes are gone, the first step of ib_srp's removal; the rest
	# (SCSI host removal, disconnect, freeing the channels) can wait for
	# its fast_io_fail timer (15 s) when the target side went away first:
	# a CI run of 538aaa7 saw 13 s. So retry for up to 60 s, by the clock
	# (a count of retries shrinks when the guest runs faster).
	now_s
	_lend=$((NOW + 60))
	while :; do
		ERR=$( (echo "$_add" > "$_sh/add_target") 2>&1 ) && break
		now_s
		case $ERR in
		*"$EEXIST"*) [ "$NOW" -lt $_lend ] && { nap 0.2; continue; } ;;
		esac
		ERR="add_target '$_add': $ERR"
		return 1
	done
	_want=${SETUP_LUNS:-1}
	now_s
	_end=$((NOW + 60))
	while :; do
		DISKS=""
		for _d in $(_scsi_disks); do
			if [ -r "/sys/block/$_d/diskseq" ]; then
				_sq=
				read -r _sq < "/sys/block/$_d/diskseq" 2>/dev/null
				[ "${_sq:-0}" -gt "$_bseq" ] || continue
			else
				case " $_before " in *" $_d "*) continue ;; esac
			fi
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

logout_all() {
	srp_reconnect_off
	for _rp in /sys/class/srp_remote_ports/*; do
		[ -e "$_rp/delete" ] && (echo 1 > "$_rp/delete") 2>/dev/null
	done
	wait_for 60 sh -c '! ls /sys/class/srp_remote_ports/* >/dev/null 2>&1' &&
		wait_for 60 sh -c '! ls /sys/class/scsi_host/*/sgid >/dev/null 2>&1'
}

# ib_srpt / ib_srp loaded with parameters by srpt_reload / reload_ib_srp:
# the case teardown loads them again without.
_SRPT_PARAMS_SET=0
_IB_SRP_PARAMS_SET=0
srpt_reload() { # srpt_reload [params]
	[ $# -eq 0 ] || _SRPT_PARAMS_SET=1
	teardown_target || info "srpt_reload: teardown left something behind"
	if [ -d /sys/module/ib_srpt ]; then
		try rmmod ib_srpt || { ERR="rmmod ib_srpt: $ERR"; return 1; }
	fi
	try modprobe ib_srpt "$@" || { ERR="modprobe ib_srpt $*: $ERR"; return 1; }
	[ $# -gt 0 ] || _SRPT_PARAMS_SET=0
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

fio_verdict() { # fio_verdict NAME RC OUTPUT DETAIL
	if [ "$2" != 0 ]; then
		fail "$1" "fio failed: $(echo "$3" | grep -v '^ *$' | tail -n 4 | tr '\n' ' ')"
		return 1
	fi
	case $3 in
	*"verify: bad"* | *"err= "[1-9]* | *"err="[1-9]* | *"Input/output error"*)
		fail "$1" "$(echo "$3" | grep -m3 -i 'err\|bad')"
		return 1 ;;
	esac
	pass "$1" "$4"
}

fio_verify() {
	_fn=$1 _dev=$2 _rw=$3 _bs=$4 _qd=$5 _sz=$6
	shift 6
	_sz=$(san_size "$_sz")
	_t0=$(date +%s)
	# shellcheck disable=SC2086
	_out=$(fio --name="$_fn" --filename="$_dev" --rw="$_rw" --bs="$_bs" \
		--iodepth="$_qd" --size="$_sz" $FIO_COMMON "$@" 2>&1)
	fio_verdict "$_fn" $? "$_out" \
		"$_rw bs=$_bs qd=$_qd size=$_sz $(( $(date +%s) - _t0 ))s" || true
}

dyndbg() { # dyndbg FUNC on|off
	_dc=/sys/kernel/debug/dynamic_debug/control
	[ -w "$_dc" ] || { ERR="no $_dc"; return 1; }
	case $2 in on) _fl=+p ;; *) _fl=-p ;; esac
	cfs_write "$_dc" "module ib_srpt func $1 $_fl"
}

# --- case framework (see the header) -------------------------------------------
have() { # have WHAT [ARG...]: 0 if met, else 1 with the reason in $WHY
	WHY=""
	case $1 in
	tool) [ -x "/tools/$2" ] || WHY="/tools/$2 missing" ;;
	ours) ! is_ref || WHY=${2:-in-kernel driver} ;;
	hooks)
		[ -e "/sys/module/ib_srpt/parameters/${2:-debug_delay_point}" ] ||
			WHY="not a debug build (make SRPT_DEBUG_HOOKS=y)"
		;;
	module)
		_hm=$2
		shift 2
		[ -e "/sys/module/$_hm" ] && rmmod "$_hm" 2>/dev/null
		if try modprobe "$_hm" "$@"; then
			case " $_TD_MODULES " in
			*" $_hm "*) ;;
			*) _TD_MODULES="$_hm $_TD_MODULES" ;;
			esac
		else
			WHY="modprobe $_hm: $ERR"
		fi
		;;
	targetcli)
		if _debroot_up && [ -z "$_TCLI_ON_EXIT" ]; then
			_TCLI_ON_EXIT=1
			on_exit _tcli_down
		fi
		;;
	*) WHY="unknown requirement '$1'" ;;
	esac
	[ -z "$WHY" ]
}

# --- the real targetcli (Debian root on /dev/vdb, see build-debroot.sh) --------
DEBROOT=/opt/debian
_debroot_up() { # mount the Debian root and its chroot mounts once; WHY on error
	[ -e /tmp/.debroot-up ] && return 0
	if [ "${VMTEST_DEBROOT:-}" != 1 ]; then
		WHY="no Debian root disk (run.sh attaches it when a selected case says 'requires targetcli')"
		return 1
	fi
	mkdir -p "$DEBROOT"
	if ! grep -q " $DEBROOT ext4 " /proc/mounts; then
		wait_for 10 disk_ready /dev/vdb &&
			try mount -t ext4 -o ro /dev/vdb "$DEBROOT" ||
			{ WHY="mount /dev/vdb: ${ERR:-no such disk}"; return 1; }
	fi
	for _dd in tmp run root etc/rtslib-fb-target var/tmp; do
		try mount -t tmpfs tmpfs "$DEBROOT/$_dd" || { WHY="tmpfs $_dd: $ERR"; return 1; }
	done
	try mount -o bind /usr/lib/modules "$DEBROOT/usr/lib/modules" &&
		try mount -t proc proc "$DEBROOT/proc" &&
		try mount -o rbind /sys "$DEBROOT/sys" &&
		try mount -o rbind /dev "$DEBROOT/dev" ||
		{ WHY="chroot mounts: $ERR"; return 1; }
	# Debian 12's targetcli connects to the system bus at every start
	mkdir -p "$DEBROOT/run/dbus"
	try chroot "$DEBROOT" /usr/bin/dbus-daemon --system --fork ||
		{ WHY="dbus-daemon: $ERR"; return 1; }
	: > /tmp/.debroot-up
	return 0
}

_TCLI_ON_EXIT=""
# _tcli_down (case teardown of "requires targetcli"): rtslib-fb loads
# iscsi_target_mod at every saveconfig or clearconfig (it looks for iSCSI
# discovery settings) and makes $T/iscsi; both would keep target_core_mod
# loaded
_tcli_down() {
	[ -d "$T/iscsi" ] && rmdir "$T/iscsi" 2>/dev/null
	if [ -d /sys/module/iscsi_target_mod ] && ! try rmmod iscsi_target_mod; then
		fail teardown "rmmod iscsi_target_mod (loaded by rtslib-fb): $ERR"
	fi
	return 0
}

tcli() { # tcli [ARGS]: targetcli-fb in the Debian root; stdin: commands
	if [ $# -gt 0 ]; then
		_tcli "$@"
		return
	fi
	# a batch starts with the preferences: plain text, and no saveconfig
	# when it ends (that would overwrite the saved configuration after a
	# clearconfig)
	{
		echo 'set global color_mode=false auto_save_on_exit=false'
		cat
	} | _tcli
}
_tcli() {
	chroot "$DEBROOT" /usr/bin/env -i HOME=/root TERM=dumb LC_ALL=C.UTF-8 \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/bin/targetcli "$@"
}

requires() { # requires WHAT [ARG...]: SKIP all and end the case if not met
	have "$@" && return 0
	skip all "$WHY"
	exit 0
}

_TD_MODULES=""
_ON_EXIT=""
on_exit() { # on_exit CMD...: run CMD in the case teardown (newest first)
	_ON_EXIT="$*
$_ON_EXIT"
}

case_teardown() {
	trap - EXIT
	# 1. what the case registered, newest first
	_td_cmds=$_ON_EXIT
	_ON_EXIT=""
	while IFS= read -r _td_c; do
		[ -n "$_td_c" ] && eval "$_td_c"
	done <<TDEOF
$_td_cmds
TDEOF
	# 2. the target, the device, the module
	guest_state_clean
	if [ -n "$GUEST_DIRT" ] || [ -d "$SRPT" ]; then
		info "teardown: undoing what the case left:${GUEST_DIRT:- $SRPT}"
		run_bounded 120 teardown_target ||
			fail teardown "configuration left behind: $ERR"
		if ! [ -d "/sys/class/infiniband/$IBDEV" ]; then
			rxe_add || fail teardown "rxe_add: $ERR"
		fi
		if ! [ -d /sys/module/ib_srpt ]; then
			try modprobe ib_srpt || fail teardown "modprobe ib_srpt: $ERR"
		fi
	fi
	# 3. modules of requires/have module
	for _td_m in $_TD_MODULES; do
		if [ -d "/sys/module/$_td_m" ] && ! try rmmod "$_td_m"; then
			fail teardown "rmmod $_td_m: $ERR"
		fi
	done
	# 4. default module parameters
	if [ "$_SRPT_PARAMS_SET" = 1 ]; then
		srpt_reload || fail teardown "$ERR"
	fi
	if [ "$_IB_SRP_PARAMS_SET" = 1 ]; then
		reload_ib_srp || true
	fi
}

case_begin() { # case_begin [target_up options]
	trap case_teardown EXIT
	srp_ids
	[ $# -eq 0 ] && return 0
	target_up "$@" || exit 0
}

target_up() { # target_up [options] [setup_target options]
	_tu_srpt="" _tu_srpt_set=0 _tu_srp="" _tu_srp_set=0 _tu_luns="" _tu_attrs=""
	_tu_login=0 _tu_lopts="" _tu_as=setup _tu_enable=1 _tu_st=""
	while [ $# -gt 0 ]; do
		case $1 in
		--srpt) _tu_srpt=$2 _tu_srpt_set=1; shift 2 ;;
		--ib-srp) _tu_srp=$2 _tu_srp_set=1; shift 2 ;;
		--lun) _tu_luns="$_tu_luns$2 $3 $4
"; shift 4 ;;
		--attr) _tu_attrs="$_tu_attrs $2"; shift 2 ;;
		--login) _tu_login=1; shift ;;
		--login-opts) _tu_login=1 _tu_lopts=$2; shift 2 ;;
		--as) _tu_as=$2; shift 2 ;;
		--target) shift ;;
		--no-enable) _tu_enable=0; shift ;;
		--port | --backstore | --size | --luns | --acl)
			_tu_st="$_tu_st $1 $2"; shift 2 ;;
		*) fail "$_tu_as" "target_up: unknown option $1"; return 2 ;;
		esac
	done
	if [ $_tu_srpt_set = 1 ]; then
		# shellcheck disable=SC2086 # PARAMS: words, no globs
		srpt_reload $_tu_srpt || { fail "$_tu_as" "$ERR"; return 1; }
	fi
	if [ $_tu_srp_set = 1 ]; then
		# shellcheck disable=SC2086 # as above
		reload_ib_srp $_tu_srp || return 1
	fi
	# shellcheck disable=SC2086 # setup_target options: words, no globs
	setup_target $_tu_st --no-enable || return 1
	while read -r _tu_h _tu_n _tu_c; do
		[ -n "$_tu_h" ] || continue
		add_lun "$_tu_h" "$_tu_n" "$_tu_c" || return 1
	done <<TUEOF
$_tu_luns
TUEOF
	for _tu_a in $_tu_attrs; do
		cfs_write "$TPG/attrib/${_tu_a%%=*}" "${_tu_a#*=}" ||
			{ fail "$_tu_as" "${_tu_a}: $ERR"; return 1; }
	done
	if [ $_tu_enable = 1 ]; then
		for _tu_t in $TPGS; do
			cfs_write "$_tu_t/enable" 1 ||
				{ fail "$_tu_as" "enable $_tu_t: $ERR"; return 1; }
		done
	fi
	[ $_tu_login = 1 ] || return 0
	# shellcheck disable=SC2086 # login options: words
	login $_tu_lopts || { fail login "$ERR"; return 1; }
}
