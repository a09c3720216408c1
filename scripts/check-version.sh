#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-version.sh [MODULE.ko...] - check that the one version number of
# srpt-dkms (PACKAGE_VERSION in dkms.conf, read by scripts/version.sh) is
# what every other place says:
#   - src/Kbuild passes PACKAGE_VERSION of dkms.conf as SRPT_VERSION (through
#     scripts/version.sh, or its own sed of dkms.conf),
#   - the driver sets MODULE_VERSION(SRPT_VERSION),
#   - the newest entry of debian/changelog,
#   - Version: in rpm/srpt-dkms.spec and its newest %changelog entry,
#   - the "version" field of each built module given on the command line.
# It also checks that the version sorts above 0.1, the version of the dummy
# ib_srpt that MLNX_OFED installs (dkms only replaces older modules).
# Prints one line per check; exits 1 if any check fails.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
fails=0

ok() { echo "PASS: version: $*"; }
bad() { echo "FAIL: version: $*"; fails=$((fails + 1)); }

if ! v=$(scripts/version.sh 2>/dev/null); then
	bad "dkms.conf must have exactly one line PACKAGE_VERSION=\"x.y.z\""
	exit 1
fi
case $v in
*[!0-9.]* | .* | *. | *..*)
	bad "dkms.conf PACKAGE_VERSION '$v' is not a plain dotted number" ;;
*)
	ok "dkms.conf PACKAGE_VERSION is $v" ;;
esac

# src/Kbuild must take the version from dkms.conf
if grep -q 'SRPT_VERSION' src/Kbuild &&
   { grep -q 'scripts/version\.sh' src/Kbuild ||
     { grep -q 'PACKAGE_VERSION=' src/Kbuild && grep -q 'dkms.conf' src/Kbuild; }; }; then
	ok "src/Kbuild reads it from dkms.conf into SRPT_VERSION"
else
	bad "src/Kbuild does not pass PACKAGE_VERSION of dkms.conf as SRPT_VERSION"
fi

# MODULE_VERSION() set from SRPT_VERSION, and no literal version in the code
mv=$(grep -h 'MODULE_VERSION(' src/*.c 2>/dev/null)
if [ "$(printf '%s\n' "$mv" | grep -c 'MODULE_VERSION(SRPT_VERSION)')" = 1 ] &&
   [ "$(printf '%s\n' "$mv" | grep -c .)" = 1 ]; then
	ok "MODULE_VERSION(SRPT_VERSION) set once in src/"
else
	bad "src/ must contain exactly one MODULE_VERSION(SRPT_VERSION) (found: ${mv:-none})"
fi

# debian/changelog: newest entry, native package => no Debian revision
dv=$(sed -n '1s/^srpt-dkms (\([^)]*\)).*/\1/p' debian/changelog)
if [ "$dv" = "$v" ]; then
	ok "debian/changelog is $dv"
else
	bad "debian/changelog says '${dv:-?}', dkms.conf says '$v'"
fi

# rpm spec: Version: and the newest %changelog entry (... - <version>-<release>)
rv=$(sed -n 's/^Version:[[:space:]]*\([^[:space:]]*\).*/\1/p' rpm/srpt-dkms.spec)
if [ "$rv" = "$v" ]; then
	ok "rpm/srpt-dkms.spec Version is $rv"
else
	bad "rpm/srpt-dkms.spec Version '${rv:-?}', dkms.conf says '$v'"
fi
rcv=$(sed -n '/^%changelog/,$p' rpm/srpt-dkms.spec |
      sed -n 's/^\*.* - \([^ -]*\)-[^ -]*$/\1/p' | head -n 1)
if [ "$rcv" = "$v" ]; then
	ok "rpm/srpt-dkms.spec newest %changelog entry is $rcv"
else
	bad "rpm/srpt-dkms.spec newest %changelog entry is '${rcv:-?}', dkms.conf says '$v'"
fi

# above MLNX_OFED's dummy ib_srpt (version 0.1)
if command -v dpkg >/dev/null; then
	if dpkg --compare-versions "$v" gt 0.1; then
		ok "$v sorts above MLNX_OFED's dummy ib_srpt 0.1"
	else
		bad "$v does not sort above MLNX_OFED's dummy ib_srpt 0.1"
	fi
fi

for ko in "$@"; do
	kv=$(modinfo -F version "$ko" 2>/dev/null)
	if [ "$kv" = "$v" ]; then
		ok "$ko has version $kv"
	else
		bad "$ko has version '${kv:-none}', dkms.conf says '$v'"
	fi
done

[ "$fails" = 0 ] || exit 1
exit 0
