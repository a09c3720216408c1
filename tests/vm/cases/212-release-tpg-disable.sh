# SPDX-License-Identifier: GPL-2.0
# 212-release-tpg-disable: a TPG disabled while a channel of it is being
# released (debug build only, see src/debug.c).
#
# Disabling a TPG walks the port's channels under srpt_port.mutex and
# closes those whose session belongs to the TPG. A channel whose release
# work has already removed its LIO session is still linked until the
# release work takes the mutex to unlink it. The unfixed driver cleared
# ch->sess only after target_remove_session() had freed the session, and
# without the mutex, so the walk read the freed session's se_tpg:
# "BUG: KASAN: slab-use-after-free in srpt_channels_close" on the sanitizer
# kernel (CI of b08e753, 305-io-limits: teardown_target() writes enable=0
# right after ib_srp's remote ports are gone, which is before the target
# has released their channels). The stock kernels read the stale pointer
# silently, so only the sanitizer lane sees the bug.
#
# The hook SRPT_DBG_SESSION_REMOVED makes the release work sleep right after
# the session is removed, before the channel is unlinked. The case logs in
# with ib_srp, arms the hook, logs out, waits until a release work sleeps
# in the hook and disables the TPG inside the sleep; then it disarms the
# hook. Checks: the disable succeeds, every channel that slept is released,
# the TPG can be enabled again and ib_srp logs in and reads, no kernel
# warning (the runner's dmesg check: the KASAN report above), and at the
# end the module unloads.
# Seen on the sanitizer kernel (2026-12-06, quick run): unfixed (b08e753 +
# the hook) the KASAN report above from the enable=0 write; fixed (the
# release work clears ch->sess under srpt_port.mutex before it removes the
# session) no report.
# vmtest-timeout: 300

DELAY_MS=30000		# SRPT_DEBUG_SLEEP_MAX_MS; the case disarms it earlier

requires hooks
requires ours
case_begin --login
on_exit debug_hook 0 0

dmesg_mark
debug_hook 5 $DELAY_MS
logout_all || fail logout "ib_srp did not log out: $ERR"
if wait_for 60 hook_slept 5; then
	pass hook "a release work sleeps after removing its session"
else
	fail hook "no release work reached the hook"
fi
if cfs_write "$TPG/enable" 0; then
	pass disable "TPG disabled while a channel is being released"
else
	fail disable "$ERR"
fi
debug_hook 0 0
n=$(count_since 'debug hook 5: sleeping')
expect_released "$n"

expect_relogin
expect_unload
