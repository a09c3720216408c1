#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pkg-owner.sh ACTION DIR - refuse ACTION (for the message, e.g. "make
# install-dkms") when DIR, normally /usr/src/srpt-dkms-<version>, belongs
# to an installed package: dpkg -S (Debian, Ubuntu) or rpm -qf (RPM
# distributions), whichever is installed. Exit 0 = no package owns DIR;
# exit 1 = owned (the message names the package and how to go on);
# exit 2 = usage. Run by the Makefile's install-dkms and uninstall targets:
# overwriting or deleting a package's files would leave the package
# database, DKMS and the files disagreeing.
set -u
[ $# -eq 2 ] || { echo "usage: $0 ACTION DIR" >&2; exit 2; }
action=$1
dir=${2%/}

owner=
manager=
if command -v dpkg >/dev/null 2>&1; then
	# "pkg1, pkg2: /path"; diversions are not owners
	owner=$(dpkg -S "$dir" 2>/dev/null | grep -v '^diversion ' |
		sed -n 's/: .*//p' | head -n 1)
	[ -z "$owner" ] || manager=dpkg
fi
if [ -z "$owner" ] && command -v rpm >/dev/null 2>&1; then
	# the owner's name, or (exit 1) "file ... is not owned by any package"
	if out=$(rpm -qf --qf '%{NAME}\n' "$dir" 2>/dev/null); then
		owner=$(printf '%s\n' "$out" | head -n 1)
		manager=rpm
	fi
fi
[ -n "$owner" ] || exit 0

case $manager in
dpkg) remove="apt-get remove $owner" ;;
*) remove="dnf remove $owner (zypper remove $owner on SUSE)" ;;
esac
cat >&2 <<EOF
error: $dir belongs to the installed package $owner ($manager):
error: $action would change that package's files and its DKMS module.
error: Remove the package first ($remove), or keep using the package
error: (dkms autoinstall -k <kver> builds it for another kernel).
EOF
exit 1
