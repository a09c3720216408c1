#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# uninstall.sh NAME VERSION [MODROOT] - undo "make install-dkms" and "make
# install-kbuild" (run by "make uninstall"):
#   1. refuse (exit 1) when an installed package owns
#      /usr/src/NAME-VERSION (scripts/pkg-owner.sh): a package is removed
#      with its package manager;
#   2. install-dkms: "dkms remove NAME/VERSION --all" when DKMS knows that
#      version (dkms deletes the modules it installed and runs depmod),
#      then delete /usr/src/NAME-VERSION;
#   3. install-kbuild: delete MODROOT/lib/modules/<kver>/updates/ib_srpt.ko
#      (or .ko.gz/.xz/.zst) of every kernel, but only a file whose modinfo
#      description names NAME (ours, not another driver's ib_srpt) and only
#      where DKMS has no NAME module installed for that kernel (dkms installs
#      into updates/ itself on SUSE); then depmod for each kernel touched.
# MODROOT is make's INSTALL_MOD_PATH. When it is given, only step 3 is
# done, in that root: install-kbuild honours INSTALL_MOD_PATH, install-dkms
# does not. Exit status 0 when everything found was removed (also when
# nothing was installed), 1 otherwise.
set -u
[ $# -ge 2 ] && [ $# -le 3 ] || {
	echo "usage: $0 NAME VERSION [MODROOT]" >&2
	exit 2
}
name=$1
version=$2
modroot=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
src=/usr/src/$name-$version
PATH=$PATH:/usr/sbin:/sbin
rc=0

have_dkms=
command -v dkms >/dev/null 2>&1 && have_dkms=1

# ---- install-dkms ----
if [ -z "$modroot" ]; then
	"$here/pkg-owner.sh" "make uninstall" "$src" || exit 1
	if [ -n "$have_dkms" ] &&
	   [ -n "$(dkms status -m "$name" -v "$version" 2>/dev/null)" ]; then
		echo "dkms remove $name/$version --all"
		dkms remove "$name/$version" --all || rc=1
	fi
	if [ -e "$src" ]; then
		echo "rm -rf $src"
		rm -rf "$src" || rc=1
	fi
fi

# ---- install-kbuild ----
for dir in "$modroot"/lib/modules/*/updates; do
	[ -d "$dir" ] || continue
	kver=${dir%/updates}
	kver=${kver##*/}
	removed=
	for f in "$dir"/ib_srpt.ko "$dir"/ib_srpt.ko.gz "$dir"/ib_srpt.ko.xz \
		 "$dir"/ib_srpt.ko.zst; do
		[ -f "$f" ] || continue
		case $(modinfo -F description "$f" 2>/dev/null) in
		*"($name)"*) ;;
		*) echo "keeping $f: not built from $name"; continue ;;
		esac
		if [ -n "$have_dkms" ] && [ -z "$modroot" ] &&
		   dkms status -m "$name" -k "$kver" 2>/dev/null | grep -q ': installed'; then
			echo "keeping $f: DKMS has $name installed for $kver (dkms status)"
			continue
		fi
		echo "rm -f $f"
		rm -f "$f" || rc=1
		removed=1
	done
	if [ -n "$removed" ]; then
		echo "depmod -a${modroot:+ -b $modroot} $kver"
		depmod -a ${modroot:+-b "$modroot"} "$kver" || rc=1
	fi
done
exit $rc
