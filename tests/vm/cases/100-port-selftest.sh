# SPDX-License-Identifier: GPL-2.0
# 100-port-selftest: load the port table self-test module
# (/selftest/ib_srpt_selftest.ko, built from tests/selftest/), which runs
# src/port.c and src/names.c against fake HCAs at module load and prints
# KTAP to the kernel log; report every KTAP case as one result, then unload.
# It does not touch ib_srpt or configfs.
# vmtest-timeout: 120

KO=/selftest/ib_srpt_selftest.ko
if [ ! -f "$KO" ]; then
	skip load "$KO not in the image (build tests/selftest)"
	exit 0
fi
if [ -d /sys/module/ib_srpt_selftest ]; then
	rmmod ib_srpt_selftest 2>/dev/null
fi

dmesg_mark
if ! try insmod "$KO"; then
	fail load "insmod failed: $ERR"
	exit 0
fi
pass load

# kernel log since the mark, without the "[ time] " prefix
log=$RESULTS_DIR/$CASE.ktap
dmesg_since | sed 's/^\[[^]]*\] \{0,1\}//' > "$log"

if ! grep -q '^KTAP version 1$' "$log"; then
	fail ktap_header "no 'KTAP version 1' line in the kernel log"
fi
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$log" | head -n 1)

# one result per "ok N name" / "not ok N name"; the "    # ..." lines
# printed before a failing case are its diagnostics
n=0
diag=""
while IFS= read -r line; do
	case $line in
	"    # "*)
		diag="$diag ${line#    # }"
		;;
	"ok "[0-9]*)
		n=$((n + 1))
		set -- $line
		pass "$3"
		[ -z "$diag" ] || info "$3:$diag"
		diag=""
		;;
	"not ok "[0-9]*)
		n=$((n + 1))
		set -- $line
		fail "$4" "${diag:-(no diagnostics)}"
		diag=""
		;;
	esac
done < "$log"

if [ -z "$plan" ]; then
	fail ktap_plan "no '1..N' plan line"
elif [ "$n" -ne "$plan" ]; then
	fail ktap_plan "plan 1..$plan but $n results"
else
	pass ktap_plan "$n cases"
fi
totals=$(grep '^# Totals:' "$log")
if [ -n "$totals" ]; then
	info "$totals"
else
	fail ktap_totals "no '# Totals:' line"
fi

if grep -Eq 'WARNING:|BUG:|Oops|refcount_t|list_(add|del) corruption' "$log"; then
	fail kernel_log "$(grep -Em 3 'WARNING:|BUG:|Oops|refcount_t|list_' "$log" | tr '\n' ' ')"
else
	pass kernel_log
fi

if try rmmod ib_srpt_selftest; then
	pass unload
else
	fail unload "rmmod failed: $ERR"
fi
