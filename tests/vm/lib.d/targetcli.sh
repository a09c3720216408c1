# SPDX-License-Identifier: GPL-2.0
# tests/vm/lib.d/targetcli.sh - the real targetcli-fb in the Debian root on
# /dev/vdb (build-debroot.sh): tcli.
# Sourced by tests/vm/lib.sh (busybox ash, in the guest); the functions
# a case calls are listed in the header of lib.sh.

DEBROOT=/opt/debian
# shellcheck disable=SC2034 # WHY: the reason for have() in case.sh
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
