#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-initramfs.sh - assemble the initramfs of the VM tests (see run.sh).
#
# Usage: build-initramfs.sh --kver KVER --kdir KDIR --out CPIO --conf FILE
#          --mode ours|ref [--ko PATH] [--selftest-ko PATH]... [--tool PATH]...
#          [--case PATH]... [--mod NAME]...
#
# The result is two concatenated newc archives (the kernel unpacks both):
#  1. a userspace base, independent of the kernel and cached in
#     $SRPT_VM_CACHE/base-<hash>.cpio: busybox, rdma, fio, sg3-utils, lsscsi,
#     libibverbs + librdmacm + libibumad + the rxe provider (with every shared
#     library from ldd, mode 0755), merged-/usr layout (/lib -> usr/lib, ...).
#     fio and its 83 MB of libraries go to an ext4 image instead
#     ($SRPT_VM_CACHE/fio-<hash>.img, linked as WORKDIR/fio.img), attached
#     read-only as /dev/vda and mounted at /opt/fio by the guest init; loading
#     a big initramfs under TCG costs about a minute per boot.
#  2. a per-run overlay: kernel modules (resolved with their dependencies
#     against KDIR, decompressed because busybox cannot load .ko.xz, staged
#     per kernel in the cache), our ib_srpt at updates/ (mode ours) with the
#     in-kernel one moved to /ref/ib_srpt.ko, depmod on the result, the
#     self-test module(s) in /selftest, tools in /tools, /init,
#     /vmtest/lib.sh, /vmtest/lib.d/, /vmtest/cases/, /etc/vmtest.conf.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/kernels.conf
. "$HERE/../../scripts/kernels.conf"
CACHE=$SRPT_VM_CACHE
KVER="" KDIR="" OUT="" CONF="" MODE=ours KO=""
SELFTEST=() TOOLS=() CASES=() EXTRA_MODS=()
while [ $# -gt 0 ]; do
	case $1 in
	--kver) KVER=$2; shift 2 ;;
	--kdir) KDIR=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--conf) CONF=$2; shift 2 ;;
	--mode) MODE=$2; shift 2 ;;
	--ko) KO=$2; shift 2 ;;
	--selftest-ko) SELFTEST+=("$2"); shift 2 ;;
	--tool) TOOLS+=("$2"); shift 2 ;;
	--case) CASES+=("$2"); shift 2 ;;
	--mod) EXTRA_MODS+=("$2"); shift 2 ;;
	*) echo "build-initramfs: unknown option $1" >&2; exit 2 ;;
	esac
done
[ -n "$KVER" ] && [ -n "$KDIR" ] && [ -n "$OUT" ] && [ -n "$CONF" ] ||
	{ echo "build-initramfs: --kver, --kdir, --out and --conf are required" >&2; exit 2; }
WORK=$(dirname "$OUT")
mkdir -p "$CACHE"

# Copy an executable or library into ROOT together with the libraries it
# needs. Paths are canonicalized to /usr/lib/... (merged /usr in the image).
canon() { # /lib/x/y -> /usr/lib/x/y
	case $1 in
	/lib/* | /lib64/* | /bin/* | /sbin/*) echo "/usr$1" ;;
	*) echo "$1" ;;
	esac
}
copy_with_libs() { # copy_with_libs ROOT SRC [DEST]
	local root=$1 src=$2 dst=${3:-} lib
	[ -n "$dst" ] || dst=$(canon "$src")
	[ -e "$root$dst" ] || install -D -m 0755 "$(readlink -f "$src")" "$root$dst"
	for lib in $(ldd "$src" 2>/dev/null | awk '/=> \//{print $3} /^\t\/lib/{print $1}'); do
		[ -e "$root$(canon "$lib")" ] && continue
		install -D -m 0755 "$(readlink -f "$lib")" "$root$(canon "$lib")"
	done
}
mkcpio() { # mkcpio DIR OUT
	(cd "$1" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet -R 0:0) > "$2"
}

# --- 1. userspace base (cached) ----------------------------------------------------
SG_TOOLS=$(ls /usr/bin/sg_* 2>/dev/null || true)
# perftest (ib_send_bw, ...) is not part of the base: only the benchmark
# uses it and brings it along with run.sh --tool (scripts/benchmark.sh), so
# that installing it on the host does not change the initramfs of the tests.
OPT_BINS="/usr/bin/lsscsi /usr/bin/ibv_devinfo /usr/bin/ibv_devices /usr/bin/rping
	  /usr/sbin/ibstat /usr/bin/strace"
USR_LIBS=""
for l in libibverbs.so.1 librdmacm.so.1 libibumad.so.3 libibmad.so.5 libaio.so.1; do
	f=$(ls /usr/lib/x86_64-linux-gnu/$l 2>/dev/null || true)
	USR_LIBS="$USR_LIBS $f"
done
PROVIDERS=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-*.so 2>/dev/null || true)
base_key=$( {
	cat "$0"
	for f in /bin/busybox /usr/bin/rdma /usr/bin/fio $SG_TOOLS $OPT_BINS $USR_LIBS $PROVIDERS; do
		[ -e "$f" ] && stat -L -c '%n %s %Y' "$f"
	done
} | md5sum | cut -c1-12)
BASE=$CACHE/base-$base_key.cpio
if [ ! -s "$BASE" ]; then
	echo "build-initramfs: building the userspace base $BASE" >&2
	R=$(mktemp -d "$CACHE/base.XXXXXX")
	mkdir -p "$R"/usr/{bin,sbin,lib/x86_64-linux-gnu,lib64} "$R"/{etc,proc,sys,dev,tmp,run,mnt,root,var/tmp}
	ln -s usr/bin "$R/bin"
	ln -s usr/sbin "$R/sbin"
	ln -s usr/lib "$R/lib"
	ln -s usr/lib64 "$R/lib64"
	install -m 0755 /bin/busybox "$R/usr/bin/busybox"
	for a in $(/bin/busybox --list-full); do
		a=$(canon "/$a")
		[ -e "$R$a" ] || ln -s /usr/bin/busybox "$R$a"
	done
	for b in /usr/bin/rdma $SG_TOOLS; do
		[ -x "$b" ] || { echo "build-initramfs: missing $b (see scripts/install-deps.sh)" >&2; exit 2; }
		rm -f "$R$(canon "$b")"
		copy_with_libs "$R" "$b"
	done
	for b in $OPT_BINS; do
		[ -x "$b" ] || continue
		rm -f "$R$(canon "$b")"
		copy_with_libs "$R" "$b"
	done
	for l in $USR_LIBS $PROVIDERS; do
		copy_with_libs "$R" "$l"
	done
	# Symlinks for the unversioned/short sonames, so that dlopen() works too.
	for l in $USR_LIBS; do
		real=$(readlink -f "$l")
		ln -sf "$(basename "$real")" "$R$(canon "$l")" 2>/dev/null || true
		install -m 0755 "$real" "$R/usr/lib/x86_64-linux-gnu/$(basename "$real")"
	done
	mkdir -p "$R/etc/libibverbs.d"
	[ -f /etc/libibverbs.d/rxe.driver ] && cp /etc/libibverbs.d/rxe.driver "$R/etc/libibverbs.d/"
	[ -f /etc/rdma/rdma_cm.conf ] || true
	echo "root:x:0:0:root:/root:/bin/sh" > "$R/etc/passwd"
	echo "root:x:0:" > "$R/etc/group"
	# fio (83 MB with its libraries: rbd, gluster, icu...) lives on a
	# read-only disk image (see below); this wrapper runs it from there.
	cat > "$R/usr/bin/fio" <<-'EOW'
	#!/bin/sh
	[ -x /opt/fio/bin/fio ] || { echo "fio: /opt/fio not mounted" >&2; exit 127; }
	exec /opt/fio/ld.so --library-path /opt/fio/lib /opt/fio/bin/fio "$@"
	EOW
	chmod 0755 "$R/usr/bin/fio"
	mkdir -p "$R/opt/fio"
	mkcpio "$R" "$BASE.tmp"
	mv "$BASE.tmp" "$BASE"
	rm -rf "$R"
fi

# --- 1b. fio disk image (cached; attached as a read-only virtio disk) ----------------
FIOIMG=$CACHE/fio-$base_key.img
if [ ! -s "$FIOIMG" ]; then
	echo "build-initramfs: building the fio disk image $FIOIMG" >&2
	R=$(mktemp -d "$CACHE/fio.XXXXXX")
	mkdir -p "$R/bin" "$R/lib"
	install -m 0755 /usr/bin/fio "$R/bin/fio"
	for lib in $(ldd /usr/bin/fio | awk '/=> \//{print $3}'); do
		install -m 0755 "$(readlink -f "$lib")" "$R/lib/$(basename "$lib")"
	done
	install -m 0755 "$(readlink -f /lib64/ld-linux-x86-64.so.2)" "$R/ld.so"
	mb=$(( $(du -sm "$R" | cut -f1) + 16 ))
	mke2fs -q -F -t ext4 -O ^has_journal -L srptfio -d "$R" "$FIOIMG.tmp" "${mb}M"
	mv "$FIOIMG.tmp" "$FIOIMG"
	rm -rf "$R"
fi
ln -sf "$FIOIMG" "$WORK/fio.img"

# --- 2. kernel modules (staged per kernel, cached) -----------------------------------
MODDIR=$KDIR/lib/modules/$KVER
[ -d "$MODDIR/kernel" ] || { echo "build-initramfs: no modules in $MODDIR" >&2; exit 2; }
# crc32_generic/crc32-pclmul: rdma_rxe allocates "crc32" (a module up to 6.x;
# gone in 7.x). Missing names are ignored.
# --mod NAME adds more (run.sh: iscsi_target_mod for the targetcli cases,
# rtslib-fb loads it whenever it saves or clears a configuration).
MODS="configfs dummy rdma_rxe ib_srpt ib_srp scsi_transport_srp sd_mod sg
      target_core_mod target_core_iblock target_core_file brd null_blk loop
      ${EXTRA_MODS[*]}
      ib_umad ib_uverbs rdma_ucm crc32_generic crc32-pclmul crc32c_generic crc32c-intel
      virtio_pci virtio_blk ext4"
for k in "$KO" "${SELFTEST[@]}"; do
	[ -n "$k" ] || continue
	for d in $(modinfo -F depends "$k" | tr ',' ' '); do MODS="$MODS $d"; done
done
MODS=$(echo "$MODS" | tr ' \t' '\n\n' | grep -v '^$' | sort -u | tr '\n' ' ')
mods_key=$( { echo "$MODS"; stat -c '%Y' "$MODDIR/modules.dep"; } | md5sum | cut -c1-12)
MSTAGE=$CACHE/mods-$KVER-$mods_key
if [ ! -d "$MSTAGE" ]; then
	echo "build-initramfs: staging modules for $KVER" >&2
	S=$(mktemp -d "$CACHE/mods.XXXXXX")
	files=$(for m in $MODS; do
		modprobe -d "$KDIR" -S "$KVER" --show-depends --ignore-install "$m" 2>/dev/null |
			awk '$1=="insmod"{print $2}' || true
	done | sort -u)
	for f in $files; do
		rel=${f#"$MODDIR"/}
		mkdir -p "$S/$(dirname "$rel")"
		case $rel in
		*.ko.xz) xz -dc "$f" > "$S/${rel%.xz}" ;;
		*.ko.zst) zstd -qdc "$f" > "$S/${rel%.zst}" ;;
		*.ko.gz) gzip -dc "$f" > "$S/${rel%.gz}" ;;
		*.ko) cp "$f" "$S/$rel" ;;
		esac
	done
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		[ -f "$MODDIR/$f" ] && cp "$MODDIR/$f" "$S/"
	done
	# another run may have staged it meanwhile: keep theirs
	mv -T "$S" "$MSTAGE" 2>/dev/null || rm -rf "$S"
fi

O=$WORK/overlay
rm -rf "$O"
mkdir -p "$O/usr/lib/modules" "$O/vmtest/cases" "$O/etc" "$O/ref" "$O/selftest" "$O/tools"
cp -a "$MSTAGE" "$O/usr/lib/modules/$KVER"
OM=$O/usr/lib/modules/$KVER
intree=$(find "$OM/kernel" -name ib_srpt.ko | head -n1)
[ -n "$intree" ] || { echo "build-initramfs: no in-kernel ib_srpt.ko for $KVER" >&2; exit 2; }
cp "$intree" "$O/ref/ib_srpt.ko"
if [ "$MODE" = ours ]; then
	rm -f "$intree"
	mkdir -p "$OM/updates"
	case $KO in
	*.xz) xz -dc "$KO" > "$OM/updates/ib_srpt.ko" ;;
	*.zst) zstd -qdc "$KO" > "$OM/updates/ib_srpt.ko" ;;
	*) cp "$KO" "$OM/updates/ib_srpt.ko" ;;
	esac
fi
ln -s usr/lib "$O/lib"
depmod -b "$O" "$KVER"
rm "$O/lib"

for s in "${SELFTEST[@]}"; do
	case $s in
	*.xz) xz -dc "$s" > "$O/selftest/$(basename "${s%.xz}")" ;;
	*) cp "$s" "$O/selftest/" ;;
	esac
done
for t in "${TOOLS[@]}"; do
	copy_with_libs "$O" "$t" "/tools/$(basename "$t")"
done
install -m 0755 "$HERE/guest-init.sh" "$O/init"
install -m 0644 "$HERE/lib.sh" "$O/vmtest/lib.sh"
mkdir -p "$O/vmtest/lib.d"
install -m 0644 "$HERE"/lib.d/*.sh "$O/vmtest/lib.d/"
for c in "${CASES[@]}"; do
	install -m 0755 "$c" "$O/vmtest/cases/"
done
cp "$CONF" "$O/etc/vmtest.conf"
mkcpio "$O" "$WORK/overlay.cpio"
cat "$BASE" "$WORK/overlay.cpio" > "$OUT"
echo "build-initramfs: $OUT ($(du -h "$OUT" | cut -f1); base $(basename "$BASE"), modules $(find "$OM" -name '*.ko' | wc -l), tools ${#TOOLS[@]}, cases ${#CASES[@]})" >&2
