# SPDX-License-Identifier: GPL-2.0
# 220-disk-ready: the harness's test for a usable disk (lib.sh disk_ready,
# which login() waits for) holds: a disk that passes it reads at once.
# Each cycle adds the target port with ib_srp and polls without a pause,
# so that the poll lands in the window where /dev already has the new
# disk but the block layer cannot open it yet (ENXIO). The old test,
# "[ -b /dev/sdX ]" alone, failed here in 6 of 13 cycles on the sanitizer
# kernel, and a CI run once in 007 (lib.sh, disk_ready). How often the
# window was seen is logged, not checked: it depends on the kernel's speed.
# vmtest-timeout: 600

CYCLES=20
is_sanitizer && is_quick && CYCLES=10

case_begin --target
add=$(srp_target_spec)

bad=0 seen=0 ok=0 i=0
while [ $i -lt $CYCLES ]; do
	i=$((i + 1))
	before=$(_scsi_disks | tr '\n' ' ')
	bseq=$(_max_diskseq)
	bseq=${bseq:-0}
	if ! add_target "$add"; then
		fail "cycle_$i" "$ERR"
		break
	fi
	window=0 ready=0
	now_s
	end=$((NOW + 60))
	while [ "$NOW" -lt $end ]; do
		new_disks "$bseq" "$before"
		if [ -n "$NEW_DISKS" ]; then
			D=/dev/${NEW_DISKS# }
			D=${D%% *}
			if disk_ready "$D"; then
				ready=1
				break
			fi
			[ -b "$D" ] && window=1
		fi
		now_s
	done
	if [ $ready = 0 ]; then
		fail "cycle_$i" "no new disk became ready in 60 s"
		logout_all
		break
	fi
	seen=$((seen + window))
	if ERR=$(dd if="$D" of=/dev/null bs=4k count=1 iflag=direct 2>&1); then
		ok=$((ok + 1))
	else
		bad=$((bad + 1))
		info "cycle $i: $D passed disk_ready, then: $(echo "$ERR" | head -n 1)"
	fi
	logout_all || { fail "logout_$i" "remote ports did not go away"; break; }
done
info "$seen of $i cycles saw the disk in /dev before it could be opened"
if [ $bad = 0 ] && [ $ok = $CYCLES ]; then
	pass reads_when_ready "$ok disks"
else
	fail reads_when_ready "$bad of $((ok + bad)) disks that passed disk_ready could not be read"
fi
teardown_target
expect_refcnt_zero
