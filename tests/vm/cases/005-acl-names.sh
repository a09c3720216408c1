# SPDX-License-Identifier: GPL-2.0
# 005-acl-names: initiator (ACL) name validation (fabric_init_nodeacl):
# accepted: GUID form %hx:%hx:%hx:%hx, optional 0x/0X + an even number of hex
# digits (up to 32 used), IPv4, IPv6; rejected with EINVAL: anything else.
# Nothing may leak: the module refcnt is back to its value afterwards.
# (Like the in-kernel driver, the GUID form is parsed with sscanf, so extra
# ":..." groups after four are ignored: "1:2:3:4:5" is accepted.)
# vmtest-timeout: 240

mkdir -p "$SRPT/$GIDNAME/tpgt_1" || { fail setup "mkdir tpg"; exit 0; }
A=$SRPT/$GIDNAME/tpgt_1/acls
r0=$(module_refcnt)

i=0
for good in \
	"$GUIDNAME" \
	"fe80:0:ff:1" \
	"0x0000000000000000000000fffe000001" \
	"0X0000000000000000000000FFFE000001" \
	"0000000000000000000000fffe000001" \
	"0x00fffe000001" \
	"0xfe80000000000000000000fffe000001" \
	"192.0.2.1" \
	"10.0.0.255" \
	"fe80::1" \
	"fe80:0000:0000:0000:0000:00ff:fe00:0001" \
	"::1" \
	"2001:db8::ff00:42:8329"; do
	i=$((i + 1))
	if try mkdir "$A/$good"; then
		pass "accept_$i" "'$good'"
		try rmdir "$A/$good" || fail "accept_${i}_rmdir" "$ERR"
	else
		fail "accept_$i" "'$good': $ERR"
	fi
done

i=0
for bad in \
	"garbage" \
	"iqn.2003-01.org.linux-iscsi:x" \
	"0x12345" \
	"0xzz00000000000000000000fffe000001" \
	"fe80:0:ff" \
	"192.0.2.256" \
	"192.0.2" \
	"g000:0000:0000:0001" \
	"naa.6001405" \
	"fe80::1::2"; do
	i=$((i + 1))
	if try mkdir "$A/$bad"; then
		fail "reject_$i" "'$bad' accepted"
		rmdir "$A/$bad"
	else
		case $ERR in
		*"$EINVAL"*) pass "reject_$i" "'$bad'" ;;
		*) fail "reject_$i" "'$bad': $ERR (expected EINVAL)" ;;
		esac
	fi
done
n=$(ls "$A" | wc -l)
[ "$n" = 0 ] && pass acls_empty || fail acls_empty "$n ACL dirs left: $(ls "$A" | tr '\n' ' ')"
r=$(module_refcnt)
[ "$r" = "$r0" ] && pass refcnt_back "$r" || fail refcnt_back "$r != $r0"
teardown_target || fail teardown "teardown_target failed"
expect_refcnt_zero
