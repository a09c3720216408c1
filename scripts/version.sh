#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# version.sh [--name] - print the version of srpt-dkms (PACKAGE_VERSION of
# dkms.conf, the one place that holds it), or with --name its PACKAGE_NAME.
# Every script, the Makefile and debian/rules read the version through this
# script; scripts/check-version.sh checks the places that must repeat it
# (debian/changelog, the RPM spec, MODULE_VERSION()).
#
# dkms.conf must hold exactly one line VAR="value" for the variable; any
# other shape is an error (exit 1, nothing on stdout), so that a caller never
# goes on with an empty version.
set -eu

var=PACKAGE_VERSION
case ${1:-} in
'') ;;
--name) var=PACKAGE_NAME ;;
*) echo "usage: $0 [--name]" >&2; exit 2 ;;
esac
conf=$(cd "$(dirname "$0")/.." && pwd)/dkms.conf

n=$(grep -c "^$var=" "$conf" || true)
v=$(sed -n "s/^$var=\"\([^\"]*\)\"\$/\1/p" "$conf")
if [ "$n" != 1 ] || [ -z "$v" ]; then
	echo "version.sh: $conf must have exactly one line $var=\"...\"" >&2
	exit 1
fi
echo "$v"
