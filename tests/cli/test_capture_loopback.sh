#!/bin/sh
# cli-run: exclusive (captures on interfaces the machine shares, promiscuous mode)
# Network Capture on a loopback interface: every frame on lo is sent and
# received at once (the interface's statistics count it both ways), but
# the kernel hands a capture both copies and libpcap keeps only the
# received one; the sent counters are then the received ones, never 0.
# Traffic: 50 UDP datagrams from python3 to 127.0.0.1 (port 9, discard),
# over about a second, while getcounter captures lo for 3 samples.
set -e
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
G=$GETCOUNTER
capture_needs
ip link show lo >/dev/null 2>&1 || skip "no loopback interface"

tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

"$G" -i 1 -n 3 -f csv '\Network Capture(lo)\Frames Received/sec' \
	'\Network Capture(lo)\Frames Sent/sec' '\Network Capture(lo)\Bytes Received/sec' \
	'\Network Capture(lo)\Bytes Sent/sec' '\Network Capture(lo)\UDP Datagrams/sec' \
	>"$tmp/lo.csv" 2>"$tmp/lo.err" &
pid=$!
sleep 1.3
python3 - <<'PY'
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(50):
    s.sendto(b"getcounter-loopback-test", ("127.0.0.1", 9))
    time.sleep(0.02)
PY
wait "$pid" || fail "the capture of lo failed: $(cat "$tmp/lo.err")"
pid=""
rx=$(csv_total "$tmp/lo.csv" "Frames Received/sec")
tx=$(csv_total "$tmp/lo.csv" "Frames Sent/sec")
brx=$(csv_total "$tmp/lo.csv" "Bytes Received/sec")
btx=$(csv_total "$tmp/lo.csv" "Bytes Sent/sec")
udp=$(csv_total "$tmp/lo.csv" "UDP Datagrams/sec")
[ "$udp" -ge 50 ] || fail "UDP Datagrams on lo: $udp, want at least the 50 sent"
[ "$rx" -ge 50 ] || fail "Frames Received on lo: $rx, want at least 50"
[ "$tx" = "$rx" ] || fail "Frames Sent on lo: $tx, want the frames received ($rx)"
[ "$btx" = "$brx" ] || fail "Bytes Sent on lo: $btx, want the bytes received ($brx)"
exit 0
