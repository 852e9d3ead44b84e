#!/bin/sh
# getcounter -q -x -v / -l -v 'RDMA Activity': the provider's note on a
# saturated legacy 32-bit port counter and on a counter with no source
# (COUNTERS.md section 7). tests/fixtures/rdma-basic/t1 has qib0 (legacy
# counters, no unicast_*) with port_xmit_data and port_xmit_packets at
# 4294967295 and no CM or hw_counters; mlx5_0/1 has extended counters, its
# port_xmit_packets also at 4294967395 (past 0xFFFFFFFF: counting).
set -eu
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/rdma-basic/t1
SAT='a saturated legacy 32-bit counter gives no rate'
expect_exit 0 "$GETCOUNTER" --root "$F" -q -x -v 'RDMA Activity'
# the line after an instance's path is its help text
help_of() {
	printf '%s\n' "$out" | awk -v p="$1" 'f { print; exit } $0 == p { f = 1 }'
}
h=$(help_of '\RDMA Activity(qib0/1)\RDMA Outbound Bytes/sec')
case $h in
*". here port_xmit_data sits at 0xFFFFFFFF: $SAT") ;;
*) fail "qib0/1 Outbound Bytes/sec help: '$h'" ;;
esac
h=$(help_of '\RDMA Activity(qib0/1)\RDMA Outbound Frames/sec')
case $h in
*". here port_xmit_packets sits at 0xFFFFFFFF: $SAT") ;;
*) fail "qib0/1 Outbound Frames/sec help: '$h'" ;;
esac
# counting: no note
for p in '\RDMA Activity(qib0/1)\RDMA Inbound Bytes/sec' \
	'\RDMA Activity(mlx5_0/1)\RDMA Outbound Frames/sec'; do
	h=$(help_of "$p")
	[ -n "$h" ] || fail "no help line after $p"
	case $h in
	*here*) fail "$p has a note: '$h'" ;;
	esac
done
h=$(help_of '\RDMA Activity(qib0/1)\RDMA Completion Queue Errors')
case $h in
*". here no source on this port: no req_cqe_error or resp_cqe_error file (bit 25 of the Missing Counter Mask)") ;;
*) fail "qib0/1 Completion Queue Errors help: '$h'" ;;
esac
h=$(help_of '\RDMA Activity(qib0/1)\Missing Counter Mask')
case $h in
*". here set: 0 1 2 3 4 25 (counters with no source on this port)") ;;
*) fail "qib0/1 Missing Counter Mask help: '$h'" ;;
esac
# the values agree: no rate (a blank CSV cell) for the saturated counter;
# Inbound: port_rcv_data 1000000 -> 1250000 in 2 s, 250000 x 4 / 2
expect_exit 0 "$GETCOUNTER" --root "$FIXTURES/rdma-basic/t0" --root "$F" -f csv \
	'\RDMA Activity(qib0/1)\RDMA Outbound Bytes/sec' '\RDMA Activity(qib0/1)\RDMA Inbound Bytes/sec'
last=$(printf '%s\n' "$out" | tail -1 | tr -d '\r')
case $last in
*'," ","500000.000000"') ;;
*) fail "csv sample: '$last'" ;;
esac

# -l -v (no instance): the ports where each is so
expect_exit 0 "$GETCOUNTER" --root "$F" -l -v 'RDMA Activity'
printf '%s\n' "$out" | grep -qF \
	"here saturated at 0xFFFFFFFF (a legacy 32-bit counter: no rate) on qib0/1" ||
	fail "-l -v has no saturation note: $out"
printf '%s\n' "$out" | grep -qF "here no source on mlx5_0/2, qib0/1" ||
	fail "-l -v has no no-source note for the CQ errors: $out"
exit 0
