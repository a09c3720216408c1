# SPDX-License-Identifier: GPL-2.0
# 320-nullio-read: a READ that the backstore completes without writing its
# buffer (rd_mcp with rd_nullio=1 reports GOOD and transfers nothing of its
# own) must not carry data of another LUN to the initiator. One ib_srp
# channel (ch_count=1) sees a ramdisk LUN 0 and a nullio LUN 1; a random
# pattern is written to and read back from LUN 0 with 4 KiB and 64 KiB
# requests, so the channel's spare buffers (docs/design.md, "Spare data
# buffers") hold it; then LUN 1 is read with the same sizes. Every byte
# read from LUN 1 must be zero, as the in-kernel driver returns on a
# kernel that clears the pages it hands out. The same is then checked
# with srpt_ch_spare_kb=0 (no pool: fresh, zeroed buffers only).
# vmtest-timeout: 240

# disk_of_lun L: the disk among $DISKS whose SCSI address ends in :L
disk_of_lun() {
	for _d in $DISKS; do
		_a=$(readlink -f "/sys/block/${_d#/dev/}/device")
		case ${_a##*/} in *:"$1") echo "$_d"; return 0 ;; esac
	done
	return 1
}

# nonzero FILE: number of bytes in FILE that are not zero
nonzero() {
	tr -d '\000' < "$1" | wc -c | tr -d ' '
}

# round NAME: pattern through LUN 0, then LUN 1 must read zeroes
round() {
	if ! RD=$(disk_of_lun 0) || ! NUL=$(disk_of_lun 1); then
		fail "$1-disks" "no disk for LUN 0 or 1 in '$DISKS'"
		return
	fi
	info "$1: LUN 0 $RD, LUN 1 (nullio) $NUL"
	dd if=/dev/urandom of=/tmp/nr.pat bs=64k count=16 2>/dev/null
	check "$1-write" dd if=/tmp/nr.pat of="$RD" bs=64k oflag=direct
	for _bs in 4k 64k; do
		rm -f /tmp/nr.back /tmp/nr.null
		if ! dd if="$RD" of=/tmp/nr.back bs=$_bs count=$((1048576 / ${_bs%k} / 1024)) \
			iflag=direct 2>/dev/null || ! cmp -s /tmp/nr.pat /tmp/nr.back; then
			fail "$1-read-$_bs" "LUN 0 did not read back its pattern"
			continue
		fi
		if ! dd if="$NUL" of=/tmp/nr.null bs=$_bs count=$((262144 / ${_bs%k} / 1024)) \
			iflag=direct 2>/dev/null; then
			fail "$1-nullio-$_bs" "read of LUN 1 failed"
			continue
		fi
		_nz=$(nonzero /tmp/nr.null)
		if [ "$_nz" = 0 ]; then
			pass "$1-nullio-$_bs" "256 KiB of zeroes"
		else
			fail "$1-nullio-$_bs" "$_nz of 262144 bytes read from the nullio LUN are not zero"
		fi
	done
}

case_begin --lun rd_mcp_0 vnull "rd_pages=16384,rd_nullio=1" \
	--login-opts ch_count=1
round pool

# no pool: every buffer is a fresh one (the parameter is writable; a new
# channel starts with an empty pool)
SPARE=/sys/module/ib_srpt/parameters/srpt_ch_spare_kb
is_ref && { skip nopool "no srpt_ch_spare_kb in the in-kernel driver"; exit 0; }
spare0=$(cat $SPARE)
on_exit cfs_write $SPARE "$spare0"
logout_all
if cfs_write $SPARE 0 && login ch_count=1; then
	round nopool
else
	fail nopool "srpt_ch_spare_kb=0 and a new login: $ERR"
fi
