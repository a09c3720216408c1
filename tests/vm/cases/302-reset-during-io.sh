# SPDX-License-Identifier: GPL-2.0
# 302-reset-during-io: task management while I/O runs (docs/design.md,
# "Task management").
# sg_reset of the device (LUN RESET) and of the target while fio writes
# with verify: I/O resumes after each reset and the verification passes.
# Also checks that the TMF path leaves no command or credit behind: a
# second fio run afterwards at QD 32 completes.
# vmtest-timeout: 300

case_begin --size 64 --login

FIO_LOG=/tmp/302-fio.log
# smaller on the sanitizer kernel (san_size), where I/O is several times slower
_bs=16k
fio --name=reset --filename="$DISK" --direct=1 --ioengine=libaio \
	--rw=randwrite --bs=16k --iodepth=32 --size="$(san_size 32m)" --verify=crc32c \
	--do_verify=1 --verify_fatal=1 > "$FIO_LOG" 2>&1 &
FIO=$!
sleep 3
n=0
for kind in -d -t -d -t; do
	if kill -0 $FIO 2>/dev/null; then
		if out=$(sg_reset "$kind" "$DISK" 2>&1); then
			n=$((n + 1))
		else
			info "sg_reset $kind: $out"
		fi
		sleep 1
	fi
done
info "$n resets sent while fio ran"
if wait_for 240 sh -c "! kill -0 $FIO"; then
	wait $FIO
	rc=$?
	fio_verdict fio-verify-across-resets "$rc" "$(cat "$FIO_LOG")" "$n resets" || true
else
	kill $FIO 2>/dev/null
	fail fio-verify-across-resets "fio hung after the resets"
fi
[ $n -gt 0 ] || skip resets-sent "sg_reset refused every reset"

if fio --name=after --filename="$DISK" --direct=1 --ioengine=libaio \
	--rw=randread --bs=4k --iodepth=32 --size="$(san_size 16m)" > "$FIO_LOG" 2>&1; then
	pass io-after-resets
else
	fail io-after-resets "$(tail -n 3 "$FIO_LOG" | tr '\n' ' ')"
fi
teardown_target || fail teardown "left something behind"
