# SPDX-License-Identifier: GPL-2.0
# 210-multichannel-io: verified I/O from both CPUs over a two-channel login.
# ib_srp logs in with ch_count=2 (one I_T nexus, two RDMA channels: the
# SINGLE then the MULTI action of docs/design.md, "Login stages") and maps
# each CPU's block-layer queue to one channel. fio then writes and verifies
# from two jobs, one pinned to each CPU, each in its own 8 MiB region, so
# that both channels carry commands at the same time. 201-multichannel
# checks the logins and reads; this case checks that no data is lost or
# mixed up when two channels of one nexus work at once.
# (Written from the skeleton of tests/vm/new-case.sh.)
# vmtest-timeout: 120

dmesg_mark
case_begin --login-opts ch_count=2

n=$(grep -c ^processor /proc/cpuinfo)
if ours channels; then
	got=$(count_since 'Accepted login of')
	[ "$got" -eq 2 ] && pass channels "2 channels accepted" ||
		fail channels "$got channels accepted, expected 2"
fi
check read dd if="$DISK" of=/dev/null bs=4k count=16 iflag=direct
# one job per CPU (at most two), each on its own region of the LUN
jobs=2
[ "$n" -ge 2 ] || jobs=1
fio_verify fio-2ch-4k-qd8 "$DISK" randwrite 4k 8 "$(reps 4m 2m)" \
	--numjobs=$jobs --offset_increment=8m --cpus_allowed=0-$((jobs - 1)) \
	--cpus_allowed_policy=split
