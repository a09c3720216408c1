#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-debug-kernel.sh - build (or take from the cache) the sanitizer VM
# kernel: a Debian kernel source with KASAN, KFENCE, lockdep, UBSAN,
# DEBUG_OBJECTS, DMA-API debugging, kmemleak and the lockup/hung-task
# detectors, for tests/vm/run.sh 6.12-debug and 7.3-debug (see
# tests/vm/README.md).
#
# Usage: scripts/build-debug-kernel.sh [--line 6.12|7.N] [--print-dir]
#
#   --line L     the kernel line (default: $SRPT_DEBUG_KERNEL_LINE, else 6.12):
#                6.12  Debian 12's linux-source-6.12 (the host package
#                      SRPT_SOURCE_PKG, /usr/src/linux-source-6.12.tar.xz)
#                      with the config of SRPT_K612 (the host's
#                      linux-headers-<SRPT_K612>/.config)
#                7.N   linux-source-7.N of SRPT_NEW_KERNEL_SUITE
#                      (trixie-backports), downloaded into
#                      $SRPT_VM_CACHE/debs by `tests/vm/fetch-kernel.sh --deb`
#                      (private apt lists, nothing installed), with the
#                      config of the Debian 7.N kernel that
#                      `tests/vm/fetch-kernel.sh 7.N` fetches (linux-base-*:
#                      the kernel the 7.N VM lane boots)
#
# Prints, like tests/vm/fetch-kernel.sh, on stdout:
#   KVER=<kernel release>           e.g. 6.12.117-srptdebug, 7.3.4-srptdebug
#   KDIR=<dir>                      <dir>/vmlinuz, <dir>/lib/modules/<kver>/
#                                   (depmod done), <dir>/build = the object
#                                   tree that out-of-tree modules build
#                                   against (make -C <dir>/build M=...)
# Progress goes to stderr, the build log to <dir>.log.
#
# Config: Debian's own config of the line (so the userspace side is the one
# the stock lanes boot), cut down with
# `make localmodconfig` to the modules the VM cases load (MODS below, the
# list of tests/vm/build-initramfs.sh plus what they depend on, one list per
# line: 7.x moved the crc code to lib/crc/ and crypto/*-cryptoapi), then
# scripts/debug-kernel.config (the sanitizers, the modules),
# scripts/debug-kernel-trim.config (built-in subsystems the guest does not
# use: audit, BPF, LSMs, netfilter, Xen, USB, ...) and, if it exists,
# scripts/debug-kernel-<line>.config (what one line needs differently)
# merged with
# scripts/kconfig/merge_config.sh, then olddefconfig. Debug info (DWARF, BTF), module signing and module
# compression are off: they only cost build time. Every option that
# debug-kernel.config and the line's fragment set is checked in the final
# .config; a missing one (olddefconfig drops
# options whose dependencies are not met) fails the build.
#
# Cache: $SRPT_DEBUG_KERNEL_CACHE (scripts/kernels.conf; default
# /var/cache/srpt-dkms/debug-kernel) for 6.12, $SRPT_DEBUG_KERNEL_CACHE-<line>
# (debug-kernel-7.3) for 7.x, so that the pruning below of one line never
# removes a build of the other; then /<hash>/, where <hash> covers the fragments, the base config, the
# source package version, MODS and RECIPE (bumped when a change of
# this script changes the kernel): the kernel is rebuilt only when one of
# them changes. An interrupted build resumes (make is incremental) once the
# configuration step has completed. Concurrent callers are serialized with flock on
# <cache>/.lock; the first one builds, the others wait and reuse the result.
# A new build starts from a copy of the object tree of the newest completed
# build of the same source package version (<dir>/srcver), if one is cached,
# so that a change of the fragments or of MODS recompiles only what it
# touches.
# Older builds are removed, the last 2 are kept. The build runs under
# `nice -n 5` with make -j$SRPT_DEBUG_KERNEL_JOBS (default: number of CPUs)
# and its wall time is written to <dir>/build-time.
# With --print-dir only the cache directory is printed (nothing is built;
# for 7.x the source package and the base config are fetched first if they
# are not cached, since the hash covers them).
#
# Measured on 2 cores (TCG host, -j2): see tests/vm/README.md.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/kernels.conf
. "$HERE/kernels.conf"
FRAG=$HERE/debug-kernel.config
TRIM=$HERE/debug-kernel-trim.config
FETCH=$HERE/../tests/vm/fetch-kernel.sh
JOBS=${SRPT_DEBUG_KERNEL_JOBS:-$(nproc)}
say() { echo "build-debug-kernel: $*" >&2; }
die() { say "ERROR: $*"; exit 2; }

LINE=${SRPT_DEBUG_KERNEL_LINE:-6.12}
PRINT_DIR=0
while [ $# -gt 0 ]; do
	case $1 in
	--line) LINE=${2:?--line needs a kernel line (6.12, 7.3)}; shift 2 ;;
	--line=*) LINE=${1#--line=}; shift ;;
	--print-dir) PRINT_DIR=1; shift ;;
	*) die "unknown argument '$1' (usage: $0 [--line 6.12|7.N] [--print-dir])" ;;
	esac
done

case $LINE in
6.12)
	CACHE=$SRPT_DEBUG_KERNEL_CACHE
	SRCPKG=$SRPT_SOURCE_PKG
	TARBALL=/usr/src/$SRCPKG.tar.xz
	BASEKVER=$SRPT_K612
	# Modules the guest loads (tests/vm/build-initramfs.sh MODS, the
	# cases' modprobe/rmmod calls) and their dependencies. Names as lsmod
	# shows them.
	MODS="configfs dummy rdma_rxe ib_srpt ib_srp scsi_transport_srp sd_mod sg
      target_core_mod target_core_iblock target_core_file brd null_blk loop
      iscsi_target_mod
      ib_umad ib_uverbs rdma_ucm rdma_cm iw_cm ib_cm ib_core
      crc32_generic crc32_pclmul crc32c_generic crc32c_intel crc_t10dif
      crct10dif_generic crct10dif_pclmul crc64_rocksoft crc64 t10_pi
      virtio_pci virtio_pci_legacy_dev virtio_pci_modern_dev virtio_blk virtio
      virtio_ring ext4 jbd2 mbcache crc16 ip6_udp_tunnel udp_tunnel
      scsi_mod scsi_common ipv6"
	BASECONF=/usr/src/linux-headers-$BASEKVER/.config
	[ -f "$TARBALL" ] || die "no $TARBALL (apt-get install $SRCPKG, see scripts/install-deps.sh)"
	[ -f "$BASECONF" ] || die "no $BASECONF (apt-get install linux-headers-$BASEKVER)"
	srcver=$(dpkg-query -W -f '${Version}' "$SRCPKG" 2>/dev/null || stat -c %Y "$TARBALL")
	unpack_source() { tar -C "$1" --strip-components=1 -xf "$TARBALL"; }
	;;
7.*)
	CACHE=$SRPT_DEBUG_KERNEL_CACHE-$LINE
	SRCPKG=linux-source-$LINE
	# As for 6.12, for the 7.x modules: the crc32/crc32c/crc64/crc-t10dif
	# libraries are built in (lib/crc/), "crc32"/"crc32c" of the crypto
	# API are crc32_cryptoapi/crc32c_cryptoapi, ib_uverbs needs
	# ib_uverbs_support; Debian builds virtio_pci in (the fragment makes
	# it a module, as on 6.12).
	MODS="configfs dummy rdma_rxe ib_srpt ib_srp scsi_transport_srp sd_mod sg
      target_core_mod target_core_iblock target_core_file brd null_blk loop
      iscsi_target_mod
      ib_umad ib_uverbs ib_uverbs_support rdma_ucm rdma_cm iw_cm ib_cm ib_core
      crc32_cryptoapi crc32c_cryptoapi crc16
      virtio_pci virtio_pci_legacy_dev virtio_pci_modern_dev virtio_blk virtio
      virtio_ring ext4 jbd2 mbcache ip6_udp_tunnel udp_tunnel
      scsi_mod scsi_common ipv6"
	# the Debian kernel of the line (the one `run.sh 7.N` boots): its config
	kout=$("$FETCH" "$LINE") || die "tests/vm/fetch-kernel.sh $LINE failed"
	BASEKVER=$(sed -n 's/^KVER=//p' <<< "$kout")
	BASECONF=$(sed -n 's/^KDIR=//p' <<< "$kout")/config
	[ -f "$BASECONF" ] || die "no $BASECONF (the config of $BASEKVER: linux-base-$BASEKVER)"
	# the source package (a .deb in the VM cache; the tarball is read
	# from it when a build starts from scratch)
	SRCDEB=$("$FETCH" --deb "$SRCPKG" | sed -n 's/^DEB=//p') && [ -f "$SRCDEB" ] ||
		die "cannot download $SRCPKG from $SRPT_NEW_KERNEL_SUITE (tests/vm/fetch-kernel.sh --deb $SRCPKG)"
	srcver=$(dpkg-deb -f "$SRCDEB" Version)
	unpack_source() {
		dpkg-deb --fsys-tarfile "$SRCDEB" | tar -xOf - "./usr/src/$SRCPKG.tar.xz" |
			tar -C "$1" --strip-components=1 -xJf -
	}
	;;
*) die "unknown kernel line '$LINE' (6.12 or 7.N)" ;;
esac
# what this line needs differently (renamed options, ...); merged last,
# checked like debug-kernel.config
LINEFRAG=$HERE/debug-kernel-$LINE.config
[ -f "$LINEFRAG" ] || LINEFRAG=""

# Bump RECIPE when a change of this script changes the kernel it builds.
RECIPE=1
# (the 6.12 input is the one of before --line: its cached build stays valid)
hash=$( { echo "$RECIPE $srcver $MODS"; cat "$FRAG" "$TRIM" ${LINEFRAG:+"$LINEFRAG"} "$BASECONF"; } |
	md5sum | cut -c1-16)
OUT=$CACHE/$hash
if [ "$PRINT_DIR" = 1 ]; then
	echo "$OUT"
	exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
	say "waiting for another build (lock $CACHE/.lock)"
	flock 9
fi

if [ ! -f "$OUT/.complete" ]; then
	say "building the debug kernel into $OUT (log $OUT.log); about 20-40 min on 2 cores"
	t0=$(date +%s)
	B=$OUT/build
	SEED=""
	while read -r c; do
		d=$(dirname "$c")
		if [ "$(cat "$d/srcver" 2>/dev/null)" = "$srcver" ] && [ -d "$d/build" ]; then
			SEED=$d
			break
		fi
	done < <(ls -1dt "$CACHE"/*/.complete 2>/dev/null)
	if [ -f "$OUT/.configured" ]; then
		say "resuming the interrupted build in $B"
		exec 8>>"$OUT.log"
	else
		rm -rf "$OUT"
		mkdir -p "$OUT"
		exec 8>"$OUT.log"
	fi
	configure() {
		local lsmod=$OUT/lsmod
		mkdir -p "$B" || return 1
		# A completed build of the same source package (an earlier
		# recipe or module list) is copied as the starting point:
		# kbuild then recompiles only what the new .config changes
		# (minutes instead of about 27 minutes of 2 idle cores).
		# Without one the sources are unpacked.
		if [ -n "$SEED" ]; then
			say "starting from the object tree of $SEED"
			cp -a "$SEED/build/." "$B/"
		else
			unpack_source "$B"
		fi &&
		cp "$BASECONF" "$B/.config" || return 1
		{
			echo "Module                  Size  Used by"
			for m in $MODS; do echo "$m 16384 0"; done
		} > "$lsmod"
		# localmodconfig turns off every =m the listed modules do not need
		make -C "$B" LSMOD="$lsmod" localmodconfig < <(yes "") &&
		(cd "$B" && scripts/kconfig/merge_config.sh -m .config "$FRAG" "$TRIM" ${LINEFRAG:+"$LINEFRAG"}) &&
		make -C "$B" olddefconfig
	}
	[ -f "$OUT/.configured" ] || configure >&8 2>&8 ||
		{ tail -n 30 "$OUT.log" >&2; die "configuration failed"; }

	# Every option the fragments set must be in the final .config as set
	# (debug-kernel-trim.config is best effort).
	bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$B/.config" ||
				{ say "option not in the final .config: $line (have: $(grep "^${line%%=*}=" "$B/.config" || echo 'not set'))"; bad=1; }
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			! grep -q "^$opt=" "$B/.config" ||
				{ say "option should be off: $(grep "^$opt=" "$B/.config")"; bad=1; }
			;;
		esac
	done < <(cat "$FRAG" ${LINEFRAG:+"$LINEFRAG"})
	[ "$bad" = 0 ] || die "the debug kernel config lacks options (see above)"
	touch "$OUT/.configured"

	say "config ok ($(grep -c '=m$' "$B/.config") modules); make -j$JOBS (nice -n 5)"
	nice -n 5 make -C "$B" -j"$JOBS" bzImage modules >&8 2>&8 ||
		{ tail -n 40 "$OUT.log" >&2; die "kernel build failed (log $OUT.log)"; }
	KVER=$(make -s -C "$B" kernelrelease)
	make -C "$B" INSTALL_MOD_PATH="$OUT" INSTALL_MOD_STRIP=1 DEPMOD=true modules_install >&8 2>&8 ||
		die "modules_install failed (log $OUT.log)"
	cp "$B/arch/x86/boot/bzImage" "$OUT/vmlinuz"
	cp "$B/.config" "$OUT/config"
	rm -f "$OUT/lib/modules/$KVER/build" "$OUT/lib/modules/$KVER/source"
	ln -s ../../../build "$OUT/lib/modules/$KVER/build"
	depmod -b "$OUT" "$KVER"
	for m in ib_srpt ib_srp rdma_rxe target_core_mod iscsi_target_mod null_blk brd dummy; do
		modinfo -b "$OUT" -k "$KVER" -n "$m" >/dev/null 2>&1 ||
			die "module $m missing from the debug kernel's modules"
	done
	echo "$KVER" > "$OUT/kver"
	echo "$srcver" > "$OUT/srcver"
	t1=$(date +%s)
	# CPU time of everything this script ran (children user, system)
	times > "$OUT/times"
	cpu=$(tail -n 1 "$OUT/times")
	echo "$((t1 - t0)) s wall (make -j$JOBS, $(nproc) CPUs, load average at the end $(cut -d' ' -f1-3 /proc/loadavg)); CPU user/sys $cpu; $(date -u +%F)" > "$OUT/build-time"
	touch "$OUT/.complete"
	say "built $KVER: $(cat "$OUT/build-time")"
	# keep the 2 most recent builds
	ls -1dt "$CACHE"/*/.complete 2>/dev/null | tail -n +3 | while read -r c; do
		d=$(dirname "$c")
		say "removing old build $d"
		rm -rf "$d" "$d.log"
	done
else
	say "cached $(cat "$OUT/kver") in $OUT (built in $(cat "$OUT/build-time" 2>/dev/null))"
fi
echo "KVER=$(cat "$OUT/kver")"
echo "KDIR=$OUT"
