# SPDX-License-Identifier: GPL-2.0
# 214-rdma-cm-identity: RDMA/CM sessions are named after the initiator's
# address, and the rdma_cm_port module parameter starts the listener
# (docs/design.md, "RDMA CM session names" and "Listeners"; issue 11).
# dummy0 gets a second IPv4 address and two IPv6 addresses; ib_srp logs in
# to the target's address with src= the second one, under a GUID-named
# port directory whose one ACL is, in turn: the initiator's address
# (accepted, "Accepted login of <initiator>"), another address (rejected,
# CHANNEL_LIMIT_REACHED, the reject names both names tried), the target's
# own address, the name of earlier versions (accepted, with the warning
# to rename it exactly once per ACL over two logins; over IPv6 one login
# in quick runs). The same over IPv6
# (dest=[addr]:port, names uncompressed). Then: modprobe ib_srpt
# rdma_cm_port=N starts the listener (configfs shows N before anything
# wrote it, a login to N works), a configfs write moves it and the
# parameter file follows, invalid values refuse the load, a port that is
# taken only warns, and the module unloads.
# vmtest-timeout: 240

requires ours "the in-kernel driver names RDMA/CM sessions after the target's address"
requires tool cm_listen

V4_I=192.0.2.2
V4_X=192.0.2.9
V6_T=2001:db8::1
V6_I=2001:db8::2
# as the driver prints them (%pIS: IPv6 uncompressed)
V6_T_NAME=2001:0db8:0000:0000:0000:0000:0000:0001
V6_I_NAME=2001:0db8:0000:0000:0000:0000:0000:0002
V6_X_NAME=2001:0db8:0000:0000:0000:0000:0000:0009
ALT_PORT=5557

case_begin

# --- addresses ------------------------------------------------------------------
addrs_del() {
	ip addr del "$V4_I/24" dev "$NETDEV" 2>/dev/null
	ip -6 addr del "$V6_I/64" dev "$NETDEV" 2>/dev/null
	ip -6 addr del "$V6_T/64" dev "$NETDEV" 2>/dev/null
	return 0
}
on_exit addrs_del
if ! { ip addr add "$V4_I/24" dev "$NETDEV" &&
       ip -6 addr add "$V6_T/64" dev "$NETDEV" &&
       ip -6 addr add "$V6_I/64" dev "$NETDEV"; } 2>/tmp/214.err; then
	fail addresses "$(cat /tmp/214.err)"
	exit 0
fi
# the RoCE GIDs of the new addresses (the RDMA CM needs them)
if wait_for 20 sh -c "grep -q ':ffff:c000:0202\$' /sys/class/infiniband/$IBDEV/ports/$IBPORT/gids/* &&
		      grep -q '^$V6_I_NAME\$' /sys/class/infiniband/$IBDEV/ports/$IBPORT/gids/*"; then
	pass addresses "$V4_I $V6_T $V6_I"
else
	fail addresses "no GID for $V4_I or $V6_I: $(port_gids | tr '\n' ' ')"
	exit 0
fi

# --- ACLs -----------------------------------------------------------------------
acl_add() { # acl_add NAME: an ACL in $TPG with LUN 0 mapped
	mkdir "$TPG/acls/$1" && mkdir "$TPG/acls/$1/lun_0" &&
		ln -s "$TPG/lun/lun_0" "$TPG/acls/$1/lun_0/map0"
}
acl_del() { # acl_del NAME
	rm -f "$TPG/acls/$1/lun_0/map0"
	rmdir "$TPG/acls/$1/lun_0" "$TPG/acls/$1"
}

# try_acl NAME ACL EXPECT(ok|rej) DEST SRC: the only ACL is ACL; ib_srp
# logs in to DEST (an address, IPv6 in brackets; login adds the port) from
# SRC
try_acl() {
	ta_n=$1 ta_acl=$2 ta_want=$3 ta_dest=$4 ta_src=$5
	if ! acl_add "$ta_acl"; then
		fail "$ta_n" "cannot create ACL $ta_acl"
		return 1
	fi
	dmesg_mark
	ta_ip=$IP
	IP=$ta_dest
	if login "src=$ta_src"; then
		ta_got=ok
		logout_all
	else
		ta_got=rej
	fi
	IP=$ta_ip
	if [ $ta_got = "$ta_want" ]; then
		pass "$ta_n" "ACL $ta_acl: $ta_got"
	else
		fail "$ta_n" "ACL $ta_acl: got $ta_got, expected $ta_want ($ERR)"
	fi
	acl_del "$ta_acl" || fail "${ta_n}_acl_del" "ACL $ta_acl left behind"
	[ $ta_got = "$ta_want" ]
}

# expect_log NAME PATTERN [COUNT]: PATTERN logged COUNT times (default: at
# least once) since the last dmesg_mark
expect_log() {
	el_c=$(count_since "$2")
	if [ -n "${3:-}" ] && [ "$el_c" = "$3" ]; then
		pass "$1" "$el_c"
	elif [ -z "${3:-}" ] && [ "$el_c" -ge 1 ]; then
		pass "$1"
	else
		fail "$1" "'$2' logged $el_c times, expected ${3:-at least 1}: $(dmesg_since | grep ib_srpt | tail -n 3 | tr '\n' ' ')"
	fi
}

# family NAME DEST SRC INITIATOR_NAME TARGET_NAME OTHER_NAME OLD_LOGINS
family() {
	fm=$1 fm_dest=$2 fm_src=$3 fm_i=$4 fm_t=$5 fm_x=$6 fm_n=$7
	try_acl "${fm}_initiator_acl" "$fm_i" ok "$fm_dest" "$fm_src" &&
		expect_log "${fm}_session_name" "Accepted login of $fm_i "
	try_acl "${fm}_other_acl" "$fm_x" rej "$fm_dest" "$fm_src" &&
{
		expect_log "${fm}_reject_names" "no ACL for $fm_i (old name: $fm_t) or 0x"
		info "$(dmesg_since | grep -m1 'no ACL for')"
	}
	# the old name: accepted, warned once for this ACL over OLD_LOGINS logins
	acl_add "$fm_t" || { fail "${fm}_old_acl" "cannot create ACL $fm_t"; return; }
	dmesg_mark
	fm_ok=0 fm_k=0
	while [ $fm_k -lt "$fm_n" ]; do
		fm_k=$((fm_k + 1))
		ta_ip=$IP
		IP=$fm_dest
		login "src=$fm_src" && fm_ok=$((fm_ok + 1))
		IP=$ta_ip
		logout_all
	done
	if [ $fm_ok = "$fm_n" ]; then
		pass "${fm}_old_acl" "$fm_n login(s)"
	else
		fail "${fm}_old_acl" "$fm_ok of $fm_n logins accepted ($ERR)"
	fi
	expect_log "${fm}_old_acl_warned_once" "matched ACL $fm_t of .*initiator's address, $fm_i, instead" 1
	info "$(dmesg_since | grep -m1 'matched ACL')"
	acl_del "$fm_t" || fail "${fm}_old_acl_del" "ACL $fm_t left behind"
}

if setup_target --port guid --acl "$V4_X"; then
	# setup_target needs an ACL; start with none
	acl_del "$V4_X"
	family v4 "$IP" "$V4_I" "$V4_I" "$IP" "$V4_X" 2
	# quick runs: once-per-ACL is checked over IPv4 only
	family v6 "[$V6_T]" "[$V6_I]" "$V6_I_NAME" "$V6_T_NAME" "$V6_X_NAME" \
		"$(reps 2 1)"
fi
teardown_target || fail teardown_v4_v6 "configuration left behind"

# --- the rdma_cm_port module parameter --------------------------------------------
PARAM=/sys/module/ib_srpt/parameters/rdma_cm_port
param_is() { [ "$(cat "$PARAM" 2>/dev/null)" = "$1" ]; }

if srpt_reload "rdma_cm_port=$ALT_PORT"; then
	pass param_load "rdma_cm_port=$ALT_PORT"
	check param_reads param_is "$ALT_PORT"
	# nothing has written discovery_auth/rdma_cm_port since the load
	mkdir -p "$SRPT"
	check param_configfs_reads [ "$(cat "$SRPT/discovery_auth/rdma_cm_port")" = "$ALT_PORT" ]
	save_port=$CM_PORT
	CM_PORT=$ALT_PORT
	if setup_target --port guid --acl "$IP" && login; then
		pass param_login "port $ALT_PORT"
	else
		fail param_login "$ERR"
	fi
	CM_PORT=$save_port
	logout_all
	# configfs moves the listener; the parameter shows where it is now
	if cfs_write "$SRPT/discovery_auth/rdma_cm_port" "$CM_PORT" &&
	   param_is "$CM_PORT"; then
		pass param_follows_configfs "$(cat "$PARAM")"
	else
		fail param_follows_configfs "write: $ERR; reads $(cat "$PARAM")"
	fi
	teardown_target || fail param_teardown "configuration left behind"
	# unload with the listener up
	expect_ok param_unload rmmod ib_srpt
else
	fail param_load "$ERR"
fi

# invalid values refuse the load; a taken port only warns
dmesg_mark
[ -d /sys/module/ib_srpt ] && rmmod ib_srpt
for v in 65536 abc; do
	if try modprobe ib_srpt "rdma_cm_port=$v"; then
		fail "param_invalid_$v" "loaded"
		rmmod ib_srpt
	else
		pass "param_invalid_$v"
	fi
done
expect_log param_invalid_logged "rdma_cm_port: invalid value '65536'"
/tools/cm_listen -p "$ALT_PORT" -t 60 > /tmp/214.listen 2>&1 &
listener=$!
on_exit "kill $listener 2>/dev/null"
if wait_for 10 grep -q '^listening=' /tmp/214.listen; then
	dmesg_mark
	if try modprobe ib_srpt "rdma_cm_port=$ALT_PORT"; then
		pass param_port_taken_loads
		check param_port_taken_reads_0 param_is 0
		expect_log param_port_taken_warned "rdma_cm_port=$ALT_PORT: the RDMA/CM listener could not be created"
	else
		fail param_port_taken_loads "$ERR"
	fi
else
	fail param_port_taken "cm_listen: $(cat /tmp/214.listen)"
fi
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null

# /etc/modprobe.d, as an administrator makes it persistent
mkdir -p /etc/modprobe.d
echo "options ib_srpt rdma_cm_port=$ALT_PORT" > /etc/modprobe.d/ib_srpt.conf
on_exit rm -f /etc/modprobe.d/ib_srpt.conf
[ -d /sys/module/ib_srpt ] && rmmod ib_srpt
if try modprobe ib_srpt && param_is "$ALT_PORT"; then
	pass param_modprobe_d "$(cat "$PARAM")"
else
	fail param_modprobe_d "modprobe: $ERR; reads $(cat "$PARAM" 2>/dev/null)"
fi
rm -f /etc/modprobe.d/ib_srpt.conf
srpt_reload || fail param_default_reload "$ERR"
check param_default_0 param_is 0
expect_refcnt_zero
