#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# install-dkms-src.sh DESTDIR - copy what dkms needs to build ib_srpt.ko
# into DESTDIR (normally [root]/usr/src/srpt-dkms-<version>): dkms.conf,
# the Makefile, the sources and headers, the build scripts that the
# Makefile runs (the compat probes) and docs/ (the design document that
# comments in the sources refer to). Used by debian/rules and the RPM spec
# (and usable by "make install" through dkms). Object files and generated
# headers from earlier builds are left out; tests and packaging are not
# needed by dkms.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DESTDIR" >&2; exit 2; }
dest=$1
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Scripts and directories under scripts/ that the Makefile and src/Kbuild
# use (not in comments; not the test and lint entry points, which dkms
# never runs), plus the probes (scripts/probes/ or probes/) if any.
extra=$(grep -hv '^[[:space:]]*#' Makefile src/Kbuild 2>/dev/null |
	grep -o 'scripts/[A-Za-z0-9_./-]*' | sed 's,/*$,,' |
	grep -Ev '^scripts/(check|matrix|lint)\.sh$' | sort -u)
for d in scripts/probes probes compat; do
	[ -e "$d" ] && extra="$extra $d"
done

files="dkms.conf Makefile src include docs"
[ -f LICENSE ] && files="$files LICENSE"
for f in $extra; do
	[ -e "$f" ] && files="$files $f"
done

mkdir -p "$dest"
# shellcheck disable=SC2086
tar -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.ko.*' \
	--exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' \
	--exclude='modules.order' --exclude='Module.symvers' \
	--exclude='*.a' --exclude='.tmp*' --exclude='*.orig' --exclude='*.rej' \
	--exclude='src/generated' --exclude='*/generated' \
	$files | tar -C "$dest" --no-same-owner -xf -
# plain permissions: directories 755, files 644, scripts 755
find "$dest" -type d -exec chmod 755 {} +
find "$dest" -type f -exec chmod 644 {} +
find "$dest" -type f -name '*.sh' -exec chmod 755 {} +
