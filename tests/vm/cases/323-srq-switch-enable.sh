# SPDX-License-Identifier: GPL-2.0
# 323-srq-switch-enable: a use_srq switch against a TPG enable and a login
# (debug build only, see src/debug.c). The switch disables the ports of
# the HCA, waits for their channels to go away and then creates or destroys
# the SRQ. A TPG written enable=0/1 during that wait enables the port
# again; before the fix a login then built its channel on the SRQ that the
# switch was about to destroy: use-after-free when the destroy and the QP
# creation overlap, and otherwise the switch failing with EBUSY ("the SRQ
# is still in use") because of a login it should have refused. The hook
# SRPT_DBG_SRQ_SWITCH holds the switch (1 -> 0) between its wait and the
# destroy; inside it the case toggles the TPG and logs in with srp_login,
# holding the channel.
# Checks: the login during the switch is refused; the switch succeeds and
# use_srq reads 0; a login after it is accepted; no kernel warning.
# vmtest-timeout: 300

requires hooks
requires ours
requires tool srp_login
case_begin --target --attr use_srq=1
on_exit debug_hook 0 0
on_exit 'cfs_write "$TPG/attrib/use_srq" 0'

A=$TPG/attrib/use_srq
[ "$(cat "$A")" = 1 ] && pass srq-on "use_srq 1" || fail srq-on "use_srq $(cat "$A")"

dmesg_mark
debug_hook 8 30000
(echo 0 > "$A") 2>/tmp/323-switch.err &
spid=$!
if wait_for 60 hook_slept 8; then
	pass hook "the switch waits before destroying the SRQ"
else
	fail hook "the switch never reached the hook"
fi
# enable the port again from configfs, then log in
cfs_write "$TPG/enable" 0 && cfs_write "$TPG/enable" 1 ||
	fail toggle "enable 0/1: $ERR"
info "TPG enable reads $(cat "$TPG/enable")"
srp_tool srp_login -i "$IPID" -T 20000 -H 8000 > /tmp/323-login 2>&1 &
lpid=$!
wait_for 30 grep -q '^result=' /tmp/323-login
r=$(sed -n 's/^result=//p' /tmp/323-login)
info "target during the switch: $(dmesg_since | grep 'ib_srpt' | tail -n 6 | tr '\n' '|')"
if [ "$r" = accepted ]; then
	fail login-during-switch "a login was accepted while the SRQ was being destroyed"
else
	pass login-during-switch "$(tr '\n' ' ' < /tmp/323-login)"
fi
debug_hook 0 0
wait $spid
src=$?
wait $lpid
if [ "$src" = 0 ]; then
	pass switch "use_srq 1 -> 0"
else
	fail switch "the switch failed: $(cat /tmp/323-switch.err)"
fi
[ "$(cat "$A")" = 0 ] && pass srq-off "use_srq 0" || fail srq-off "use_srq $(cat "$A")"
expect_tool_login login-after srp_login
