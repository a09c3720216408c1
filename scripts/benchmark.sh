#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/benchmark.sh - compare our ib_srpt with the in-kernel one.
#
# Usage: scripts/benchmark.sh [--rounds N] [--runtime S] [--ko PATH] [KVER...]
#
#   KVER       6.1, 6.12, 7.3 or a full kernel release (default: 6.1 6.12)
#   --ko PATH  our module (default: what tests/vm/run.sh picks for KVER)
#   --rounds N driver alternations per boot (default 3, minimum 3)
#   --runtime S seconds per fio job (default 6)
#
# For each kernel ONE VM boot (tests/vm/run.sh) runs, N times and
# alternating between the in-kernel driver (/ref/ib_srpt.ko in the guest)
# and ours, the same fio jobs against an rd_mcp LUN over Soft-RoCE:
#   4k random read and write at QD 1 and 32, 1 MiB sequential read and
#   write (QD 8),
# measuring IOPS and the guest CPU time per I/O (all CPUs, non-idle time
# from /proc/stat, so the target, the initiator and fio are all included).
# Each figure is printed as the ratio ours / in-kernel per round, with
# min / median / max over the rounds. A ratio above 1 means more IOPS
# (better) or more CPU per I/O (worse). Emulated RDMA: only ratios within
# one boot are meaningful, not absolute numbers.
#
# This is not a test: it never fails on slow results, only on setup errors.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=3 RUNTIME=6 KO="" KVERS=()
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--runtime) RUNTIME=$2; shift 2 ;;
	--ko) KO=$(readlink -f "$2"); shift 2 ;;
	-h | --help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "benchmark.sh: unknown option $1" >&2; exit 2 ;;
	*) KVERS+=("$1"); shift ;;
	esac
done
[ "$ROUNDS" -ge 3 ] || { echo "benchmark.sh: --rounds must be >= 3" >&2; exit 2; }
[ ${#KVERS[@]} -gt 0 ] || KVERS=(6.1 6.12)

# A private copy of the VM harness whose only case is the benchmark, so
# that nothing in tests/vm/cases changes and CI never runs it.
W=$(mktemp -d /tmp/srpt-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
for e in "$TOP"/*; do
	[ "$(basename "$e")" = tests ] || ln -s "$e" "$W/"
done
mkdir -p "$W/tests"
for e in "$TOP"/tests/*; do
	[ "$(basename "$e")" = vm ] || ln -s "$e" "$W/tests/"
done
mkdir -p "$W/tests/vm/cases"
for e in "$TOP"/tests/vm/*; do
	[ "$(basename "$e")" = cases ] || cp -a "$e" "$W/tests/vm/"
done

cat > "$W/tests/vm/cases/900-benchmark.sh" <<EOF
# vmtest-timeout: 3000
ROUNDS=$ROUNDS RUNTIME=$RUNTIME
EOF
cat >> "$W/tests/vm/cases/900-benchmark.sh" <<'EOF'
JOBS="randread-4k-qd1:randread:4k:1 randread-4k-qd32:randread:4k:32
 randwrite-4k-qd1:randwrite:4k:1 randwrite-4k-qd32:randwrite:4k:32
 read-1m-qd8:read:1m:8 write-1m-qd8:write:1m:8"

busy_ticks() { # non-idle jiffies of all CPUs
	awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat
}

use_driver() { # use_driver ours|ref
	teardown_target >/dev/null 2>&1
	rmmod ib_srpt 2>/dev/null
	if [ "$1" = ref ]; then
		insmod /ref/ib_srpt.ko || return 1
	else
		modprobe ib_srpt || return 1
	fi
	setup_target --size 256 && login
}

r=1
while [ $r -le "$ROUNDS" ]; do
	# alternate which driver goes first
	if [ $((r % 2)) = 1 ]; then order="ref ours"; else order="ours ref"; fi
	for drv in $order; do
		if ! use_driver "$drv"; then
			fail "setup-$drv-$r" "$ERR"
			continue
		fi
		for j in $JOBS; do
			IFS=: read -r name rw bs qd <<J
$j
J
			t0=$(busy_ticks)
			out=$(fio --name="$name" --filename="$DISK" --direct=1 \
				--ioengine=libaio --rw="$rw" --bs="$bs" --iodepth="$qd" \
				--size=200m --time_based --runtime="$RUNTIME" \
				--minimal 2>/dev/null)
			t1=$(busy_ticks)
			echo "$out" | awk -F';' -v d="$drv" -v n="$name" -v r="$r" \
				-v ticks=$((t1 - t0)) '{
				ios = $8 * $9 / 1000 + $49 * $50 / 1000
				iops = $8 + $49
				cpu = ios > 0 ? ticks * 10000 / ios : 0
				printf "VMTEST INFO 900-benchmark BENCH round=%d drv=%s job=%s iops=%.1f cpu_us_per_io=%.2f\n", r, d, n, iops, cpu
			}'
		done
	done
	r=$((r + 1))
done
teardown_target >/dev/null 2>&1
rmmod ib_srpt 2>/dev/null
modprobe ib_srpt
pass benchmark-done
EOF

summarize() { # summarize LOG
	grep -o 'BENCH round=.*' "$1" | awk '
	{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		r = v["round"]
		key = v["job"]; jobs[key] = 1
		iops[v["drv"], key, r] = v["iops"]; cpu[v["drv"], key, r] = v["cpu_us_per_io"]
		rounds[r] = 1
	}
	function stats(arr, n,    i, j, t) {
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
		return sprintf("%5.2f %6.2f %5.2f", arr[1],
			n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2, arr[n])
	}
	END {
		printf "%-18s %-20s %-20s %s\n", "job", "IOPS ours/ref", "CPU/IO ours/ref", "median IOPS ref ours, CPU us/IO ref ours"
		printf "%-18s %-20s %-20s\n", "", "min  median  max", "min  median  max"
		n = split("randread-4k-qd1 randread-4k-qd32 randwrite-4k-qd1 randwrite-4k-qd32 read-1m-qd8 write-1m-qd8", order, " ")
		for (k = 1; k <= n; k++) {
			j = order[k]
			if (!(j in jobs)) continue
			m = 0
			delete a; delete b; delete ri; delete oi; delete rc; delete oc
			for (r in rounds) {
				if (iops["ref", j, r] > 0 && iops["ours", j, r] > 0) {
					m++
					a[m] = iops["ours", j, r] / iops["ref", j, r]
					b[m] = cpu["ref", j, r] > 0 ? cpu["ours", j, r] / cpu["ref", j, r] : 0
					ri[m] = iops["ref", j, r]; oi[m] = iops["ours", j, r]
					rc[m] = cpu["ref", j, r]; oc[m] = cpu["ours", j, r]
				}
			}
			if (m == 0) { printf "%-18s no complete round\n", j; continue }
			s1 = stats(a, m); s2 = stats(b, m)
			split(stats(ri, m), x, " "); split(stats(oi, m), y, " ")
			split(stats(rc, m), z, " "); split(stats(oc, m), w, " ")
			printf "%-18s %-20s %-20s %s %s, %s %s  (%d rounds)\n", j, s1, s2, x[2], y[2], z[2], w[2], m
		}
	}'
}

rc=0
for k in "${KVERS[@]}"; do
	log=$TOP/build/bench-$k-$(date +%Y%m%d-%H%M%S).log
	mkdir -p "$TOP/build"
	args=("$k" --quiet --timeout 3600 --case-timeout 3300 --log "$log" --no-tools)
	[ -n "$KO" ] && args+=(--ko "$KO")
	echo "== kernel $k: one boot, $ROUNDS rounds, ${RUNTIME}s per job (log $log)"
	if ! "$W/tests/vm/run.sh" "${args[@]}" > "$W/run.out" 2>&1; then
		tail -n 15 "$W/run.out"
		rc=1
	fi
	grep -q 'BENCH round=' "$log" 2>/dev/null && summarize "$log"
done
exit $rc
