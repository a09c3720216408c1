# SPDX-License-Identifier: GPL-2.0
# 211-targetcli: the real targetcli-fb and python3-rtslib-fb of Debian 12
# drive ib_srpt as an operator would (issue 11, "Tests"): create a fileio
# LUN, the srpt port in the GID form (ib.<32 hex digits>, the only form
# rtslib-fb accepts for srpt) and an ACL for the initiator port ID;
# saveconfig; log in with ib_srp (RDMA/CM); "sessions detail" shows the
# session (needs the ACL "info" attribute, issue 11: SKIP while the module
# has none); fio verify; then a module reload as at a reboot: log out,
# clearconfig confirm=True (as the unit's ExecStop), rmmod, modprobe with
# "options ib_srpt rdma_cm_port=N" from /etc/modprobe.d, restoreconfig,
# and a login over RDMA/CM that reads back what was written before the
# reload. Without the rdma_cm_port parameter (the in-kernel driver) the
# listener is set by hand after the restore and the parameter check is a
# SKIP (rtslib-fb does not save discovery_auth/rdma_cm_port of srpt).
#
# One targetcli process per batch of commands (stdin): each start costs
# about 5 s under TCG, so the clear and restore are the ones of the
# reload, and "sessions detail" runs only where it can show something.
# The times of the batches are logged (INFO lines).
# rtslib-fb loads iscsi_target_mod at every saveconfig and clearconfig, and
# fails without it. The sanitizer kernel (6.12-debug) is built without it
# (scripts/build-debug-kernel.sh), so there this case is a SKIP; its kernel
# paths (the ACL info attribute, configfs writes, rdma_cm_port) run there in
# 214, 219 and the 0xx cases.
# vmtest-timeout: 240
requires module iscsi_target_mod
requires targetcli
case_begin

PORT=ib.${GIDNAME#0x}
ACL=ib.$IPID
PDIR=$SRPT/$GIDNAME
TPGD=$PDIR/tpgt_1
ACLD=$TPGD/acls/0x$IPID
SAVED=$DEBROOT/etc/rtslib-fb-target/saveconfig.json

up() { read -r _u _ < /proc/uptime; echo "$_u"; }
# batch NAME: run the commands on stdin in one targetcli process; the
# output is in /tmp/tcli.NAME, the time in the log
batch() {
	_b0=$(up)
	tcli > "/tmp/tcli.$1" 2>&1
	_brc=$?
	info "targetcli batch $1: rc $_brc, $(awk -v a="$_b0" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }') s"
	return $_brc
}
# layout NAME: the configfs tree that the targetcli commands below make
layout() {
	_miss=""
	[ "$(cat "$TPGD/enable" 2>/dev/null)" = 1 ] || _miss="$_miss tpgt_1/enable=1"
	[ -d "$TPGD/lun/lun_0" ] || _miss="$_miss lun_0"
	[ -d "$ACLD/lun_0" ] || _miss="$_miss acls/0x$IPID/lun_0"
	[ -d "$T/core/fileio_0/fd0" ] || _miss="$_miss core/fileio_0/fd0"
	if [ -z "$_miss" ]; then
		pass "$1"
	else
		fail "$1" "missing:$_miss; targetcli said: $(tail -n 8 "/tmp/tcli.$2" | tr '\n' ' ')"
	fi
}
listener() { # set the RDMA/CM port by hand (rtslib does not save it)
	cfs_write "$SRPT/discovery_auth/rdma_cm_port" "$CM_PORT" ||
		fail "$1" "rdma_cm_port=$CM_PORT: $ERR"
}

batch create <<EOF
/backstores/fileio create name=fd0 file_or_dev=/tmp/fd0.img size=32M
/srpt create $PORT
/srpt/$PORT/luns create /backstores/fileio/fd0
/srpt/$PORT/acls create $ACL
saveconfig
EOF
layout create create
if grep -q "\"wwn\": \"$PORT\"" "$SAVED" 2>/dev/null &&
   grep -q "\"node_wwn\": \"$ACL\"" "$SAVED"; then
	pass saveconfig
else
	fail saveconfig "$SAVED lacks $PORT or $ACL: $(tail -n 5 /tmp/tcli.create | tr '\n' ' ')"
fi

listener login
if ! login; then
	fail login "$ERR"
	exit 0
fi
pass login

# sessions: only where the ACL has the attribute that rtslib-fb reads
# (without it targetcli prints "(no open sessions)": no need to start it)
if ! [ -e "$ACLD/info" ]; then
	skip sessions "no ACL attribute 'info' ($SRPT_MODE ib_srpt): targetcli would list no session"
else
	batch sessions <<EOF
sessions detail
EOF
	sed 's/^/VMTEST INFO 211-targetcli sessions: /' /tmp/tcli.sessions
	if grep -q "name: $ACL" /tmp/tcli.sessions &&
	   grep -q 'session-state:' /tmp/tcli.sessions; then
		pass sessions
	else
		fail sessions "no session of $ACL: $(tr '\n' ' ' < /tmp/tcli.sessions | tail -c 400)"
	fi
fi

fio_verify fio-4k "$DISK" randwrite 4k 8 "$(reps 2m 1m)"
# a pattern after fio's area, read back after the reload
dd if=/dev/urandom of=/tmp/tcli.pat bs=64k count=8 2>/dev/null
check pattern_write dd if=/tmp/tcli.pat of="$DISK" bs=64k seek=64 oflag=direct

# --- reload, as at a reboot: the unit's ExecStop clears, then the module
# goes and comes back with modprobe.d, and the restore runs ---
logout_all || fail logout "ib_srp did not log out"
batch clear <<EOF
clearconfig confirm=True
ls /srpt 0
ls /backstores/fileio 0
EOF
_n=$(grep -o 'Targets: [0-9]*' /tmp/tcli.clear | tr -d -c '0-9')
_so=$(grep -o 'Storage Objects: [0-9]*' /tmp/tcli.clear | tr -d -c '0-9')
if [ "$_n" = 0 ] && [ "$_so" = 0 ] && ! [ -e "$PDIR" ]; then
	pass clearconfig
else
	fail clearconfig "targets '$_n', storage objects '$_so', $PDIR $( [ -e "$PDIR" ] && echo still there): $(tr '\n' ' ' < /tmp/tcli.clear | tail -c 400)"
fi
rmdir "$SRPT" 2>/dev/null
# (the initramfs has no /etc/modprobe.d; busybox modprobe reads it)
mkdir -p /etc/modprobe.d
echo "options ib_srpt rdma_cm_port=$CM_PORT" > /etc/modprobe.d/ib_srpt.conf
on_exit rm -f /etc/modprobe.d/ib_srpt.conf
# the teardown loads ib_srpt again with default parameters
_SRPT_PARAMS_SET=1
if ! try rmmod ib_srpt || ! try modprobe ib_srpt; then
	fail reload "$ERR"
	exit 0
fi
_param=/sys/module/ib_srpt/parameters/rdma_cm_port
if ! [ -e "$_param" ]; then
	skip rdma_cm_port_param "ib_srpt ($SRPT_MODE) has no parameter rdma_cm_port: listener set by hand after the restore"
elif [ "$(cat "$_param")" = "$CM_PORT" ]; then
	pass rdma_cm_port_param
else
	fail rdma_cm_port_param "$_param is '$(cat "$_param")', modprobe.d says $CM_PORT"
fi
batch restore <<EOF
restoreconfig
EOF
layout restoreconfig restore
# without the listener from the parameter, the rest is still checked
[ "$(cat "$_param" 2>/dev/null)" = "$CM_PORT" ] || listener login_after_reload
if ! login; then
	fail login_after_reload "$ERR"
	exit 0
fi
pass login_after_reload
check pattern_read sh -c "dd if='$DISK' of=/tmp/tcli.back bs=64k skip=64 count=8 iflag=direct 2>&1 &&
	cmp /tmp/tcli.pat /tmp/tcli.back"
