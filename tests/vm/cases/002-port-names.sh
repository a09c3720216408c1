# SPDX-License-Identifier: GPL-2.0
# 002-port-names: configfs port directory names. Both forms of an existing
# port are accepted (GUID form xxxx:xxxx:xxxx:xxxx and GID form 0x<32 hex>,
# also both at once); unknown or malformed names are rejected with EINVAL and
# leave no reference behind (module refcnt back to where it was).
# vmtest-timeout: 240

mkdir -p "$SRPT" || { fail fabric_dir "mkdir $SRPT"; exit 0; }
r0=$(module_refcnt)
info "GUIDNAME=$GUIDNAME GIDNAME=$GIDNAME refcnt=$r0"

for form in GUIDNAME GIDNAME; do
	eval n=\$$form
	# shellcheck disable=SC2154 # n is set by the eval above
	if try mkdir "$SRPT/$n"; then
		pass "mkdir_$form" "$n"
		r=$(module_refcnt)
		[ "$r" -gt "$r0" ] || info "refcnt did not grow with a port dir ($r)"
		try rmdir "$SRPT/$n" || fail "rmdir_$form" "$ERR"
		r=$(module_refcnt)
		[ "$r" = "$r0" ] && pass "refcnt_after_$form" || fail "refcnt_after_$form" "$r != $r0"
	else
		fail "mkdir_$form" "$n: $ERR"
	fi
done

# Both names of one port at the same time (they share one srpt_port).
if try mkdir "$SRPT/$GUIDNAME" && try mkdir "$SRPT/$GIDNAME"; then
	pass mkdir_both_forms
else
	fail mkdir_both_forms "$ERR"
fi
# Same name twice: EEXIST (from configfs), nothing leaked.
r1=$(module_refcnt)
expect_err mkdir_duplicate "$EEXIST" mkdir "$SRPT/$GIDNAME"
r=$(module_refcnt)
[ "$r" = "$r1" ] && pass refcnt_after_duplicate || fail refcnt_after_duplicate "$r != $r1"
rmdir "$SRPT/$GUIDNAME" "$SRPT/$GIDNAME" 2>/dev/null

# Names that must be rejected.
hex=$(echo "$GIDNAME" | sed 's/^0x//')
upper_guid=$(echo "$GUIDNAME" | tr a-f A-F)
upper_gid=0x$(echo "$hex" | tr a-f A-F)
i=0
for bad in \
	"$hex" \
	"0X$hex" \
	"${GIDNAME}0" \
	"$(echo "$GIDNAME" | cut -c1-33)" \
	"0xfe80000000000000000000fffe00ffff" \
	"0000:00ff:fe00:ffff" \
	"${GUIDNAME}:0000" \
	"$(echo "$GUIDNAME" | cut -d: -f1-3)" \
	"$upper_guid" \
	"$upper_gid" \
	"$IP" \
	"$IBDEV" \
	"garbage" \
	"ib.$hex" \
	"0x" \
	"::1"; do
	i=$((i + 1))
	# A case-insensitive name can only be rejected if it differs.
	[ "$bad" = "$GUIDNAME" ] || [ "$bad" = "$GIDNAME" ] && continue
	if try mkdir "$SRPT/$bad"; then
		fail "reject_$i" "'$bad' was accepted"
		rmdir "$SRPT/$bad"
	else
		case $ERR in
		*"$EINVAL"*) pass "reject_$i" "'$bad'" ;;
		*) fail "reject_$i" "'$bad': $ERR (expected EINVAL)" ;;
		esac
	fi
	[ -d "$SRPT/$bad" ] && fail "reject_${i}_dir" "'$bad' directory exists after failed mkdir"
done
r=$(module_refcnt)
[ "$r" = "$r0" ] && pass refcnt_after_rejects "$r" || fail refcnt_after_rejects "$r != $r0"

# The accepted names still work after all the rejections.
expect_ok mkdir_after_rejects mkdir "$SRPT/$GIDNAME"
rmdir "$SRPT/$GIDNAME" 2>/dev/null
rmdir "$SRPT"
expect_refcnt_zero
