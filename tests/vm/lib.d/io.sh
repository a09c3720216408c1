# SPDX-License-Identifier: GPL-2.0
# tests/vm/lib.d/io.sh - fio with verification and its verdict.
# Sourced by tests/vm/lib.sh (busybox ash, in the guest); the functions
# a case calls are listed in the header of lib.sh.

FIO_COMMON="--direct=1 --ioengine=libaio --verify=crc32c --do_verify=1
 --verify_fatal=1 --randrepeat=0 --group_reporting"

# san_size SIZE: SIZE (fio syntax, k/m suffix) divided by 4 on the sanitizer
# kernel, where KASAN makes every I/O several times slower, but not below
# 1m or the request size $_bs (fio_verify uses it for every job).
san_size() {
	is_sanitizer || { echo "$1"; return; }
	case $1 in
	*m) _ss=$(( ${1%m} * 1024 / 4 )) ;;
	*k) _ss=$(( ${1%k} / 4 )) ;;
	*) echo "$1"; return ;;
	esac
	[ "$_ss" -ge 1024 ] || _ss=1024
	case ${_bs:-} in
	*m) [ "$_ss" -ge $(( ${_bs%m} * 1024 )) ] || _ss=$(( ${_bs%m} * 1024 )) ;;
	*k) [ "$_ss" -ge "${_bs%k}" ] || _ss=${_bs%k} ;;
	esac
	case $1 in *k) [ "$_ss" -le "${1%k}" ] || _ss=${1%k} ;; esac
	echo "${_ss}k"
}

fio_verdict() { # fio_verdict NAME RC OUTPUT DETAIL
	if [ "$2" != 0 ]; then
		fail "$1" "fio failed: $(echo "$3" | grep -v '^ *$' | tail -n 4 | tr '\n' ' ')"
		return 1
	fi
	case $3 in
	*"verify: bad"* | *"err= "[1-9]* | *"err="[1-9]* | *"Input/output error"*)
		fail "$1" "$(echo "$3" | grep -m3 -i 'err\|bad')"
		return 1 ;;
	esac
	pass "$1" "$4"
}

fio_verify() {
	_fn=$1 _dev=$2 _rw=$3 _bs=$4 _qd=$5 _sz=$6
	shift 6
	_sz=$(san_size "$_sz")
	_t0=$(date +%s)
	# shellcheck disable=SC2086
	_out=$(fio --name="$_fn" --filename="$_dev" --rw="$_rw" --bs="$_bs" \
		--iodepth="$_qd" --size="$_sz" $FIO_COMMON "$@" 2>&1)
	fio_verdict "$_fn" $? "$_out" \
		"$_rw bs=$_bs qd=$_qd size=$_sz $(( $(date +%s) - _t0 ))s" || true
}
