# SPDX-License-Identifier: GPL-2.0
# tests/vm/lib.d/target.sh - the LIO target: port and initiator names,
# setup_target, add_lun, teardown_target and reloading ib_srpt.
# Sourced by tests/vm/lib.sh (busybox ash, in the guest); the functions
# a case calls are listed in the header of lib.sh.

# --- names ---------------------------------------------------------------------
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

# --- target configuration ------------------------------------------------------
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

# ib_srpt loaded with parameters by srpt_reload: the case teardown loads it
# again without.
_SRPT_PARAMS_SET=0
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
