#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# test-ofed.sh [KVER] - prove that the top-level Makefile builds against an
# MLNX_OFED / DOCA-OFED tree when one is present:
#   1. auto-detection of <OFED_ROOT>/<arch>/<kver> and <OFED_ROOT>/default,
#      OFED_DIR= override and OFED=no;
#   2. the OFED include directory is searched before the kernel's (a marked
#      copy of rdma/ib_verbs.h and OFED's compat-2.6.h must be the ones used);
#   3. the OFED Module.symvers is used for symbol CRCs (fake CRCs for
#      ib_register_client/ib_unregister_client must end up in the module's
#      __versions table).
# The test builds the real Makefile, src/Kbuild and probe machinery from a
# copy of the tree, with the driver sources replaced by a small stand-in
# module (the driver itself is not under test here). Needs the headers of
# KVER (default SRPT_K61 of scripts/kernels.conf). Exit 0 = pass, 77 =
# skipped.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/kernels.conf
. "$top/scripts/kernels.conf"
kver=${1:-$SRPT_K61}
kdir=/usr/src/linux-headers-$kver

if [ ! -f "$kdir/Makefile" ] || [ ! -f "$kdir/Module.symvers" ]; then
	echo "SKIP test-ofed: no headers for $kver"
	exit 77
fi

t=$(mktemp -d "${TMPDIR:-/tmp}/srpt-ofed-test.XXXXXX")
trap 'rm -rf "$t"' EXIT
fails=0
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }

# --- a copy of the build machinery with a stand-in driver ---
mkdir "$t/tree"
tar -C "$top" -cf - dkms.conf Makefile src/Kbuild include scripts |
	tar -C "$t/tree" -xf -
objs=$(sed -n 's/^ib_srpt-y := //p; s/^[[:space:]]*\([a-z_ ]*\.o.*\)$/\1/p' \
	"$t/tree/src/Kbuild" | tr -d '\\' | tr ' ' '\n' | sed -n 's/\.o$//p')
# Empty stand-ins for the other objects: main.c alone includes
# srpt_compat.h and checks which headers were used; compiling that
# header once per object (it pulls in LIO's and the RDMA core's headers)
# only multiplied the build time by five builds.
for o in $objs; do
	printf '// SPDX-License-Identifier: GPL-2.0\n/* stand-in object */\n' \
		>"$t/tree/src/$o.c"
done
cat >"$t/tree/src/main.c" <<'EOC'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <rdma/ib_verbs.h>
#include "srpt_compat.h"

#ifdef SRPT_EXPECT_OFED
#ifndef SRPT_FAKE_OFED_IB_VERBS
#error "the OFED copy of rdma/ib_verbs.h was not used"
#endif
#ifndef SRPT_FAKE_OFED_COMPAT
#error "OFED's compat-2.6.h was not force-included"
#endif
#else
#ifdef SRPT_FAKE_OFED_IB_VERBS
#error "the OFED copy of rdma/ib_verbs.h was used although OFED is disabled"
#endif
#endif

static int stand_in_add(struct ib_device *device)
{
	return 0;
}

static void stand_in_remove(struct ib_device *device, void *data)
{
}

static struct ib_client stand_in_client = {
	.name = "srpt_ofed_test",
	.add = stand_in_add,
	.remove = stand_in_remove,
};

static int __init stand_in_init(void)
{
	return ib_register_client(&stand_in_client);
}
module_init(stand_in_init);

static void __exit stand_in_exit(void)
{
	ib_unregister_client(&stand_in_client);
}
module_exit(stand_in_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("srpt-dkms OFED build test");
MODULE_VERSION(SRPT_VERSION);
EOC

# --- a fake OFED tree ---
arch=$(uname -m)
mk_ofed() {	# mk_ofed DIR: fake OFED tree with marked headers and CRCs
	mkdir -p "$1/include/rdma" "$1/include/linux" "$1/include/uapi"
	common=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$kdir/Makefile")
	[ -n "$common" ] || common=$kdir
	{
		echo "#define SRPT_FAKE_OFED_IB_VERBS 1"
		cat "$common/include/rdma/ib_verbs.h"
	} >"$1/include/rdma/ib_verbs.h"
	echo "#define SRPT_FAKE_OFED_COMPAT 1" >"$1/include/linux/compat-2.6.h"
	printf '0x0badc0de\tib_register_client\t%s/drivers/infiniband/core/ib_core\tEXPORT_SYMBOL\t\n' "$1" >"$1/Module.symvers"
	printf '0x0badcafe\tib_unregister_client\t%s/drivers/infiniband/core/ib_core\tEXPORT_SYMBOL\t\n' "$1" >>"$1/Module.symvers"
}
mk_ofed "$t/root/$arch/$kver"

build() {	# build LOGNAME make-args...
	log=$t/$1.log
	shift
	make -C "$t/tree" clean KVER="$kver" KDIR="$kdir" >/dev/null 2>&1 || true
	make -C "$t/tree" KVER="$kver" KDIR="$kdir" OFED_ROOT="$t/root" \
		V=1 "$@" module >"$log" 2>&1
}
crc_of() {	# crc_of SYMBOL: CRC recorded in the built module
	modprobe --dump-modversions "$t/tree/src/ib_srpt.ko" |
		awk -v s="$1" '$2 == s { print $1 }'
}

# 1. auto-detected <root>/<arch>/<kver>
if build auto CFLAGS_MODULE=-DSRPT_EXPECT_OFED; then
	ok "build with auto-detected $arch/$kver OFED tree"
	c=$(crc_of ib_register_client)
	case $c in
	*badc0de) ok "OFED Module.symvers CRC used ($c)" ;;
	*) nok "ib_register_client CRC is '$c', expected 0x0badc0de" ;;
	esac
	if grep -q "$t/root/$arch/$kver/include/rdma/ib_verbs.h" \
		"$t/tree/src/.main.o.cmd"; then
		ok "dependency file names the OFED ib_verbs.h"
	else
		nok "dependency file does not name the OFED ib_verbs.h"
	fi
	# -I<ofed>/include must come before the kernel's include directories
	line=$(grep -- "-c -o $t/tree/src/main.o\|-o $t/tree/src/main.o" \
		"$t/auto.log" | head -n 1)
	o=$(printf '%s\n' "$line" | awk -v d="-I$t/root/$arch/$kver/include" \
		'{ for (i = 1; i <= NF; i++) if ($i == d) { print i; exit } }')
	k=$(printf '%s\n' "$line" | awk '{ for (i = 1; i <= NF; i++)
		if ($i ~ /^-I.*arch\/x86\/include$/ || $i ~ /^-I\.\/arch\//) { print i; exit } }')
	if [ -n "$o" ] && [ -n "$k" ] && [ "$o" -lt "$k" ]; then
		ok "OFED include dir (arg $o) precedes the kernel's (arg $k)"
	else
		nok "include order wrong or not found (ofed=$o kernel=$k)"
	fi
	if grep -q "OFED tree: $t/root/$arch/$kver" "$t/tree/src/generated/srpt_probes.h"; then
		ok "probes ran against the OFED tree"
	else
		nok "probe header does not mention the OFED tree"
	fi
else
	nok "build with auto-detected OFED tree failed:"
	tail -n 20 "$t/auto.log"
fi

# 2. <root>/default
mv "$t/root/$arch" "$t/arch.off"
mk_ofed "$t/root/default"
if build default CFLAGS_MODULE=-DSRPT_EXPECT_OFED &&
   [ "$(crc_of ib_unregister_client)" != "" ] &&
   modprobe --dump-modversions "$t/tree/src/ib_srpt.ko" | grep -q 'badcafe'; then
	ok "build with auto-detected default OFED tree"
else
	nok "build with OFED_ROOT/default failed or did not use its symvers"
	tail -n 20 "$t/default.log"
fi

# 3. OFED_DIR= override (root has nothing)
rm -rf "$t/root/default"
mk_ofed "$t/other"
if build override OFED_DIR="$t/other" CFLAGS_MODULE=-DSRPT_EXPECT_OFED &&
   grep -q "$t/other/include/rdma/ib_verbs.h" "$t/tree/src/.main.o.cmd"; then
	ok "OFED_DIR= override"
else
	nok "OFED_DIR= override"
	tail -n 20 "$t/override.log"
fi

# 4. OFED=no disables detection; 5. no OFED tree at all
mk_ofed "$t/root/default"
if build disabled OFED=no && [ "$(crc_of ib_register_client)" != 0x0badc0de ]; then
	ok "OFED=no ignores a present OFED tree"
else
	nok "OFED=no"
	tail -n 20 "$t/disabled.log"
fi
rm -rf "$t/root"
if build none && ! grep -q 'OFED tree' "$t/tree/src/generated/srpt_probes.h"; then
	ok "no OFED tree: plain kernel build"
else
	nok "plain build without OFED tree"
	tail -n 20 "$t/none.log"
fi

if [ "$fails" -ne 0 ]; then
	echo "FAIL test-ofed: $fails check(s) failed"
	exit 1
fi
echo "PASS test-ofed"
