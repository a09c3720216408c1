# SPDX-License-Identifier: GPL-2.0
# 317-cq-fits: a channel never asks the CQ pool for a CQ larger than the
# HCA's max_cqe (docs/design.md, "Channel depth"). The CQ takes rq_size +
# the send queue size; Soft-RoCE has max_cqe 32767, so srp_sq_size=65535
# asks for 65663 entries at the default depth. ib_cq_pool_get() cannot
# give that and keeps allocating pool CQs (2 MiB each on rxe) that are
# all too small until memory runs out. The driver cuts the send queue to
# max_cqe - rq_size instead: the login works at once, I/O passes and at
# most 2 CQs of max_cqe entries were added (the pool allocates one per
# completion vector; the initiator's own CQs are small and not counted).
# vmtest-timeout: 180

requires ours "tests a fix of srpt-dkms"
case_begin --target
on_exit 'cfs_write "$TPG/attrib/srp_sq_size" 4096'

# cqs: number of CQs of the RDMA device with at least 32767 (rxe's
# max_cqe) entries (rdma resource show cq)
cqs() {
	rdma resource show cq dev "$IBDEV" 2>/dev/null |
		grep -o 'cqe [0-9]*' | awk '$2 >= 32767 { n++ } END { print n + 0 }'
}

cfs_write "$TPG/attrib/srp_sq_size" 65535 || { fail setup "srp_sq_size: $ERR"; exit 0; }
c0=$(cqs)
dmesg_mark
if login; then
	pass login "$DISK"
	fio_verify fio-4k-qd32 "$DISK" randwrite 4k 32 "$(reps 4m 2m)"
	c1=$(cqs)
	if [ -z "$c0" ] || [ -z "$c1" ]; then
		fail cq-count "no CQ count from 'rdma resource show cq': $(rdma resource show cq 2>&1 | head -n 2)"
	elif [ "$c1" -ge 1 ] && [ $((c1 - c0)) -le 2 ]; then
		pass cq-count "CQs of $IBDEV with 32767 entries: $c0 -> $c1"
	else
		fail cq-count "CQs of $IBDEV with 32767 entries: $c0 -> $c1 (too-small CQs piling up in the CQ pool); $(rdma resource show cq dev "$IBDEV" | head -n 3 | tr '\n' ' ')"
	fi
else
	fail login "$ERR"
fi
n=$(count_since 'creating a QP failed\|allocating a CQ')
[ "$n" -eq 0 ] && pass no-cq-failure ||
	fail no-cq-failure "$(dmesg_since | grep -m2 'creating a QP failed\|allocating a CQ' | tr '\n' ' ')"
