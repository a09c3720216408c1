# SPDX-License-Identifier: GPL-2.0
# tests/vm/lib.sh - helpers for the VM test cases (busybox ash, sourced in the
# guest before every case file; the guest init sources it too). This file
# is their reference (below) and sets the common variables; the code is in
# tests/vm/lib.d/, one file per subject: report.sh, util.sh, target.sh,
# rdma.sh, initiator.sh, io.sh, targetcli.sh and case.sh.
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
#   hook_slept POINT               true if hook POINT logged "sleeping" since the
#                                  last dmesg_mark
#   release_started                true if a release work logged "releasing
#                                  channel" since the mark (needs dyndbg
#                                  srpt_release_channel_work on)
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
#   srp_target_spec [options]      print that add_target line (login's first step)
#   add_target SPEC                write SPEC to ib_srp's add_target, retrying
#                                  EEXIST for 60 s; non-zero with $ERR otherwise
#   new_disks SEQ [BEFORE]         set NEW_DISKS to the sdX disks newer than
#                                  diskseq SEQ (_max_diskseq before the login;
#                                  without diskseq: not in the list BEFORE)
#   disk_ready DEV                 DEV exists and opens (a new disk's node
#                                  comes before the block layer can open it)
#   logout_all                     delete every SRP remote port and wait until the
#                                  SCSI hosts are gone (so a new login cannot hit
#                                  EEXIST). Non-zero on timeout.
#   srpt_reload [params]           teardown_target, rmmod ib_srpt, modprobe ib_srpt
#                                  [params] (the same module: ours or in-kernel).
#                                  Without params: default parameters.
#   expect_unload                  teardown_target and srpt_reload (results
#                                  "teardown" on failure, "unload")
#   expect_relogin                 enable $TPG again, login, read from $DISK
#                                  (results "enable" / "relogin", "read")
#   expect_released N              wait up to 60 s for N "channel released"
#                                  lines since the mark (result "released")
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

# The helpers, one file per subject (tests/vm/lib.d/, /vmtest/lib.d/ in the
# guest). They only define functions and variables, except that target.sh
# sets the port names (refresh_names) when GID0 is not set yet.
. /vmtest/lib.d/report.sh
. /vmtest/lib.d/util.sh
. /vmtest/lib.d/target.sh
. /vmtest/lib.d/rdma.sh
. /vmtest/lib.d/initiator.sh
. /vmtest/lib.d/io.sh
. /vmtest/lib.d/targetcli.sh
. /vmtest/lib.d/case.sh
