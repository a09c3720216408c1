# SPDX-License-Identifier: GPL-2.0
# 300-io-integrity: data integrity through the I/O path (docs/design.md,
# "I/O path").
# fio with verify=crc32c, O_DIRECT, block sizes 512 B to 1 MiB, sequential,
# random and mixed, QD 1 and 32, on two LUNs with different backstores
# (rd_mcp and fileio), in three configurations:
#   A  defaults: per-channel receive rings, ib_srp immediate data on
#   B  use_srq=1 (shared receive queue; immediate data not negotiated)
#   C  immediate data off and ib_srp never_register=1, so that every
#      request of more than one segment uses an indirect descriptor table;
#      cmd_sg_entries=indirect_sg_entries=255 makes the tables as large as
#      SRP allows inline (with never_register, indirect_sg_entries >
#      cmd_sg_entries would need external tables, which the target does
#      not fetch: 305-io-limits covers small cmd_sg_entries with large
#      indirect_sg_entries, with memory registration, and the refusal of
#      external tables)
# About 290 MiB are written and verified in total, mostly in 1 MiB
# requests to keep the run short under emulation; a quick run
# (run.sh --quick) keeps the large sequential jobs, so that it still
# verifies more than 256 MiB (about 265 MiB with the mixed jobs).
# vmtest-timeout: 600

# The 512-byte QD 1 jobs: 512 requests, 128 on the sanitizer kernel, where
# each takes 50-100 ms (san_size keeps sizes of at least 1m). With the
# mixed jobs (san_size) this takes the case there from 315 s to about 200 s.
QD1_512=256k
is_sanitizer && QD1_512=64k

# mixed NAME DEV: random writes with verify while another job reads.
fio_mixed() {
	_fn=$1 _dev=$2
	# shellcheck disable=SC2086
	if _out=$(fio $FIO_COMMON --filename="$_dev" \
		--name="$_fn-w" --rw=randwrite --bs=64k --iodepth=16 \
		--offset=0 --size="$(san_size 8m)" \
		--name="$_fn-r" --rw=randread --bs=4k --iodepth=16 \
		--offset=32m --size="$(san_size 8m)" --verify=0 --do_verify=0 2>&1); then
		case $_out in
		*"verify: bad"* | *"err= "[1-9]*)
			fail "$_fn" "$(echo "$_out" | grep -m3 -i 'err\|bad')" ;;
		*) pass "$_fn" "randwrite 64k + randread 4k, qd 16 each" ;;
		esac
	else
		fail "$_fn" "fio failed: $(echo "$_out" | tail -n 4 | tr '\n' ' ')"
	fi
}

# config NAME: set up the target (with $1 use_srq value), log in.
start_config() {
	_use_srq=$1
	shift
	setup_target --size 128 --no-enable || return 1
	add_lun fileio_0 vdisk1 \
		"fd_dev_name=/tmp/vdisk1.img,fd_dev_size=$((64 * 1048576))" ||
		return 1
	if ! cfs_write "$TPG/attrib/use_srq" "$_use_srq"; then
		fail "use_srq_$_use_srq" "$ERR"
		return 1
	fi
	cfs_write "$TPG/enable" 1 || { fail enable "$ERR"; return 1; }
	if ! login "$@"; then
		fail login "$ERR"
		return 1
	fi
	set -- $DISKS
	LUN0=$1 LUN1=$2
	[ -b "$LUN1" ] || { fail login "second LUN missing ($DISKS)"; return 1; }
	return 0
}

# --- A: defaults -----------------------------------------------------------
if start_config 0; then
	fio_verify A-rand4k-qd32 "$LUN0" randwrite 4k 32 8m
	fio_verify A-seq1m-qd32 "$LUN0" write 1m 32 96m
	fio_verify A-rand512-qd1 "$LUN0" randwrite 512 1 "$QD1_512"
	fio_verify A-rand64k-qd1 "$LUN0" randwrite 64k 1 4m
	fio_verify A-range-qd32 "$LUN0" randwrite 4k 32 "$(reps 16m 8m)" \
		--bsrange=512-1m
	fio_mixed A-mixed "$LUN0"
	fio_verify A-fileio-4k-qd32 "$LUN1" randwrite 4k 32 4m
	fio_verify A-fileio-1m-qd1 "$LUN1" write 1m 1 "$(reps 24m 8m)"
fi
teardown_target || fail teardown "config A"

# --- B: SRQ ----------------------------------------------------------------
if start_config 1; then
	fio_verify B-rand4k-qd32 "$LUN0" randwrite 4k 32 4m
	fio_verify B-seq1m-qd32 "$LUN0" write 1m 32 48m
	fio_verify B-rand512-qd1 "$LUN0" randwrite 512 1 "$QD1_512"
	fio_mixed B-mixed "$LUN0"
	fio_verify B-fileio-256k-qd32 "$LUN1" randwrite 256k 32 8m
fi
teardown_target || fail teardown "config B"

# --- C: indirect descriptors, no immediate data -----------------------------
if reload_ib_srp never_register=1 cmd_sg_entries=255 indirect_sg_entries=255 \
	use_imm_data=0 && start_config 0; then
	fio_verify C-rand4k-qd32 "$LUN0" randwrite 4k 32 4m
	fio_verify C-seq1m-qd32 "$LUN0" write 1m 32 32m
	fio_verify C-rand512-qd1 "$LUN0" randwrite 512 1 "$QD1_512"
	fio_verify C-rand256k-qd32 "$LUN0" randwrite 256k 32 8m
	fio_mixed C-mixed "$LUN0"
	fio_verify C-fileio-1m-qd32 "$LUN1" write 1m 32 8m
fi
teardown_target || fail teardown "config C"
reload_ib_srp || true
