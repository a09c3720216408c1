#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vm/new-case.sh NNN-name ["what the case checks"] - write the skeleton
# of a new VM case, tests/vm/cases/NNN-name.sh, and check its syntax.
#
# The skeleton runs as it is: it declares its requirements (none yet),
# brings the target up and logs in with one call (case_begin, which also
# registers the teardown), reads from the new disk and runs fio with verify.
# Edit it from there; the framework is described in the header of
# tests/vm/lib.sh ("Case framework") and in tests/vm/README.md.
#
# NNN: three digits, by area (0xx configfs, 1xx self-test, 2xx logins, 3xx
# I/O, 4xx MAD); cases run in the order of their names. A number that a case
# already has, or an existing file, is refused. Run the new case with
#   tests/vm/run.sh 6.1 --cases 'NNN-*'
# Exit status: 0 written, 2 usage error or refused.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '3,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
name=${1%.sh}
what=${2:-TODO: what the case checks, and why}

case $name in
[0-9][0-9][0-9]-*) ;;
*) echo "new-case.sh: '$name' is not NNN-name" >&2; usage ;;
esac
if ! echo "${name#???-}" | grep -qx '[a-z0-9][a-z0-9-]*'; then
	echo "new-case.sh: the name after NNN- takes a-z, 0-9 and '-' only" >&2
	exit 2
fi
num=${name%%-*}
file=$here/cases/$name.sh
if [ -e "$file" ]; then
	echo "new-case.sh: $file exists" >&2
	exit 2
fi
for f in "$here/cases/$num"-*.sh; do
	[ -e "$f" ] || continue
	echo "new-case.sh: number $num is taken by $(basename "$f")" >&2
	exit 2
done
case $what in
*"
"*) echo "new-case.sh: the description is one line" >&2; exit 2 ;;
esac

cat > "$file" <<EOF
# SPDX-License-Identifier: GPL-2.0
# $name: $what
# (Describe the checks, what a failure means and which issue or part of
# docs/design.md the case covers. The framework: tests/vm/lib.sh, header
# "Case framework"; tests/vm/README.md, "Writing a case".)
# vmtest-timeout: 120

# Requirements, one line each; a missing one reports SKIP all <reason> and
# ends the case. E.g.: requires tool srp_login / requires ours "why" /
# requires hooks / requires module null_blk nr_devices=1

# The target (one 64 MiB rd_mcp LUN, an ACL for every initiator name),
# enabled, and the kernel initiator logged in: \$DISK is its disk. The
# teardown (logout, target removal) is registered and runs however the
# case ends. Options: lib.sh, target_up.
case_begin --login

check read dd if="\$DISK" of=/dev/null bs=4k count=16 iflag=direct
fio_verify fio-4k-qd8 "\$DISK" randwrite 4k 8 "\$(reps 4m 1m)"
EOF
if ! sh -n "$file"; then
	echo "new-case.sh: $file has a syntax error (removed)" >&2
	rm -f "$file"
	exit 2
fi
echo "$file"
echo "run it: tests/vm/run.sh 6.1 --cases '$num-*'" >&2
