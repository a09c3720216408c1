# SPDX-License-Identifier: GPL-2.0
# repro-cq-race: NOT a regular case (it lives outside cases/ and crashes an
# affected kernel on purpose). It reproduces the RDMA core race described in
# tests/vm/README.md ("Known kernel bugs we work around"): ib_srp logs in
# and out while kbug_cq_delay.ko holds the softirq CQ poller inside the
# window between irq_poll_complete() and ib_req_notify_cq(). Run it with
#   make -C tests/vm/kbug KDIR=<headers of the VM kernel>
#   tests/vm/run.sh 7.3 --ref --append init_on_free=1 \
#     --selftest-ko tests/vm/kbug/kbug_cq_delay.ko \
#     --cases tests/vm/kbug/repro-cq-race.sh
# An affected kernel oopses at the first logout (RIP in rxe_req_notify_cq,
# called from ib_poll_handler / irq_poll_softirq); the guest then never
# reaches VMTEST DONE. Knobs (guest environment: pass them with
# run.sh --append 'NAME=VALUE'): KBUG_CYCLES (default 5), KBUG_DELAY_MS
# (default 20), KBUG_FIRST_BOOT_ONLY=1: no delay in a boot that run.sh
# started after a known kernel bug (vmtest.from= on the command line), so
# that the case passes there; this tests run.sh's reboot-and-rerun path end
# to end (expected: PASS with one known-kernel-bug reboot).
# vmtest-timeout: 900

cycles=${KBUG_CYCLES:-5}
ko=/selftest/kbug_cq_delay.ko
if ! [ -f $ko ]; then
	skip repro "no $ko (pass --selftest-ko tests/vm/kbug/kbug_cq_delay.ko)"
	exit 0
fi
grep -q init_on_free=1 /proc/cmdline ||
	info "no init_on_free=1 on the kernel command line: a use after free may go unnoticed"
if ! setup_target; then
	teardown_target
	exit 0
fi
delay=${KBUG_DELAY_MS:-20}
if [ "${KBUG_FIRST_BOOT_ONLY:-0}" = 1 ] && grep -q 'vmtest\.from=' /proc/cmdline; then
	info "boot after a known kernel bug: no delay (KBUG_FIRST_BOOT_ONLY=1)"
	delay=0
fi
if ! try insmod $ko delay_ms="$delay"; then
	fail insmod "$ERR"
	teardown_target
	exit 0
fi
i=0
while [ $i -lt "$cycles" ]; do
	i=$((i + 1))
	login || { fail "login_$i" "$ERR"; break; }
	info "cycle $i: logged in, delayed polls so far $(cat /sys/module/kbug_cq_delay/parameters/hits)"
	logout_all || { fail "logout_$i" "timed out"; break; }
	info "cycle $i: logged out, delayed polls so far $(cat /sys/module/kbug_cq_delay/parameters/hits)"
done
pass survived "$i cycles, $(cat /sys/module/kbug_cq_delay/parameters/hits) delayed polls"
rmmod kbug_cq_delay
teardown_target || fail teardown "configuration left behind"
