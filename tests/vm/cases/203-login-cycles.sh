# SPDX-License-Identifier: GPL-2.0
# 203-login-cycles: 50 login/logout cycles of ib_srp over RDMA CM; the
# module reference count and our slab caches (srpt-* in /proc/slabinfo)
# are back where they started, every channel was released, and
# rmmod ib_srpt works afterwards.
# vmtest-timeout: 600

# A quick run on the sanitizer kernel does 12 (50 take 540 s there).
if [ -z "${CYCLES:-}" ]; then
	CYCLES=50
	is_sanitizer && is_quick && CYCLES=12
fi

slab_srpt() { grep '^srpt' /proc/slabinfo 2>/dev/null | awk '{print $1, $2}' | sort; }

case_begin --target
ref0=$(module_refcnt)
slab0=$(slab_srpt)
dmesg_mark
ok=0 accepted=0
i=0
while [ $i -lt "$CYCLES" ]; do
	i=$((i + 1))
	if ! login; then
		fail "cycle_$i" "login: $ERR"
		break
	fi
	# our caches while logged in: the same in the first and last cycle
	[ $i -eq 1 ] && slab_in1=$(slab_srpt)
	# (channels of the previous cycle may still be in their release work)
	if [ $i -eq "$CYCLES" ]; then
		wait_for 30 sh -c "[ \"\$(grep '^srpt' /proc/slabinfo | awk '{print \$1, \$2}' | sort)\" = \"$slab_in1\" ]"
		slab_inN=$(slab_srpt)
	fi
	if ! logout_all; then
		fail "cycle_$i" "logout timed out"
		break
	fi
	ok=$((ok + 1))
done
[ $ok -eq "$CYCLES" ] && pass cycles "$ok login/logout cycles"
accepted=$(count_since 'Accepted login of')
if ! ours all_released; then
	:
elif wait_released "$accepted" 60; then
	pass all_released "$accepted channels"
else
	fail all_released "$(count_since 'channel released') of $accepted released"
fi
# active_objs is only exact to a few slabs (per-CPU slabs count as full):
# allow two slabs' worth of objects per cache
slab_close() { # slab_close "LIST1" "LISTN": same caches, counts within 2 slabs
	[ "$(echo "$1" | awk '{print $1}')" = "$(echo "$2" | awk '{print $1}')" ] || return 1
	echo "$2" | while read -r _c _nn; do
		_n1=$(echo "$1" | awk -v c="$_c" '$1 == c {print $2}')
		_per=$(awk -v c="$_c" '$1 == c {print $5}' /proc/slabinfo)
		[ "$_nn" -le $((_n1 + 2 * ${_per:-1})) ] || exit 1
	done
}
# (the in-kernel driver keeps up to ~20 more buffers in later cycles)
if ! ours slab_logged_in_stable; then
	:
elif [ -n "$slab_in1" ] && slab_close "$slab_in1" "$slab_inN"; then
	pass slab_logged_in_stable "$(echo "$slab_in1" | tr '\n' ' ')"
else
	fail slab_logged_in_stable "cycle 1: $(echo "$slab_in1" | tr '\n' ' ') cycle $CYCLES: $(echo "$slab_inN" | tr '\n' ' ')"
fi
ref1=$(module_refcnt)
wait_for 30 sh -c "[ \"\$(grep '^srpt' /proc/slabinfo | awk '{print \$1, \$2}' | sort)\" = \"$slab0\" ]"
slab1=$(slab_srpt)
[ "$ref0" = "$ref1" ] && pass refcnt_stable "$ref1" || fail refcnt_stable "$ref0 -> $ref1"
if [ "$slab0" = "$slab1" ]; then
	pass slab_stable "$(echo "$slab1" | tr '\n' ' ')"
else
	fail slab_stable "before: $(echo "$slab0" | tr '\n' ' ') after: $(echo "$slab1" | tr '\n' ' ')"
fi
teardown_target || fail teardown "could not remove the configuration"
expect_refcnt_zero
if srpt_reload; then pass rmmod_reload; else fail rmmod_reload "$ERR"; fi
