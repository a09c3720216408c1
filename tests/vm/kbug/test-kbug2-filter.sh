#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vm/kbug/test-kbug2-filter.sh - host-side test of the dmesg filter of
# tests/vm/guest-init.sh (drop_known_kbugs + dmesg_bad) on the KASAN reports
# in tests/vm/kbug/kbug2/. Runs the functions as the guest does: busybox sh,
# busybox awk and grep. No VM, no root, about a second.
#
# kbug2/page-uaf.dmesg is a real KBUG-2 report (303-disrupt-during-io on
# 6.12.117-srptdebug); the others are edits of it, one per shape the filter
# must get right:
#   page-uaf               the report as seen: dropped
#   slab-uaf               "slab-use-after-free" (the freed request pages were
#                          reused for a slab before ib_srp read them), with
#                          Allocated/Freed stacks of other code: dropped
#   interleaved-srpt-log   ib_srpt log lines from another CPU inside the
#                          report (not frames): dropped
#   interleaved-warning    a WARNING from another CPU inside the report: the
#                          report is dropped, the WARNING still fails
#   srpt-frame             an ib_srpt frame in the stack: kept
#   slab-uaf-srpt-freed    an ib_srpt frame in the Freed-by stack: kept
#   other-caller           ib_process_cq_direct not called by srp_free_ch_ib:
#                          kept
#   free-ch-only-in-freed-stack  srp_free_ch_ib only as an unreliable "?"
#                          frame of the trace and in the Freed-by stack: kept
#   unterminated           no closing ===== line: kept
#   early-boot-irq         KBUG-4, a real report from the first 10 ms of a
#                          boot (interrupt during cpu_detect): dropped
#   early-boot-irq-not-swapper  the same in another task: kept
#
# Usage: tests/vm/kbug/test-kbug2-filter.sh   (exit 0 = every sample as expected)
set -u
D=$(cd "$(dirname "$0")" && pwd)
GI=$D/../guest-init.sh
BB=$(command -v busybox) || { echo "SKIP: no busybox"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/bin"
for a in awk grep sed cat wc; do ln -s "$BB" "$T/bin/$a"; done

# The filter functions exactly as guest-init.sh defines them.
{
	grep -E '^DMESG_(PAT|IGNORE)=' "$GI"
	grep -E '^dmesg_bad\(\)' "$GI"
	sed -n '/^drop_known_kbugs() {/,/^}/p' "$GI"
} > "$T/filter.sh"
grep -q '^drop_known_kbugs' "$T/filter.sh" || { echo "FAIL: drop_known_kbugs not found in $GI"; exit 1; }

# sample  KNOWN_KERNEL_BUG lines  suspicious lines left
expect='page-uaf 1 0
slab-uaf 1 0
interleaved-srpt-log 1 0
interleaved-warning 1 1
srpt-frame 0 2
slab-uaf-srpt-freed 0 2
other-caller 0 2
free-ch-only-in-freed-stack 0 2
unterminated 0 2
early-boot-irq 1 0
early-boot-irq-not-swapper 0 2'

rc=0
echo "$expect" | while read -r s nk nb; do
	f=$D/kbug2/$s.dmesg
	: > "$T/con"
	PATH=$T/bin KBUG_CONSOLE=$T/con CASE=test "$BB" sh -c \
		'. "$1"; dmesg_bad < "$2"' sh "$T/filter.sh" "$f" > "$T/bad"
	gk=$(grep -c 'VMTEST KNOWN_KERNEL_BUG KBUG-[0-9]* case=test ' "$T/con")
	gb=$(wc -l < "$T/bad")
	if [ "$gk" = "$nk" ] && [ "$gb" = "$nb" ]; then
		echo "PASS $s: known=$gk bad=$gb"
	else
		echo "FAIL $s: known=$gk bad=$gb (expected known=$nk bad=$nb)"
		sed 's/^/    bad: /' "$T/bad"
		sed 's/^/    console: /' "$T/con"
		echo x >> "$T/failed"
	fi
done
[ -e "$T/failed" ] && rc=1
[ $rc = 0 ] && echo "ALL PASS" || echo "FAILED"
exit $rc
