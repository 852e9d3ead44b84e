#!/bin/sh
# Live: traffic over loopback raises the TCP/IP counters, each sampled by
# getcounter -i 1 -n 2 (two 1 s intervals) while the traffic runs inside
# that window, so the sum of a rate's two values is about the count:
#   - TCP: a listener on 127.0.0.1 (a free port) takes 3 connections of
#     2 MiB each, 0.4 s apart: \TCP\Connections Active/sec must sum to
#     about 3 (>= 2.5) and \TCP\Segments Sent/sec to at least 50 (6 MiB
#     in 64 KiB loopback segments is about 96, plus the receiver's ACKs);
#   - UDP: 200 datagrams to a socket on 127.0.0.1: \UDPv4\Datagrams
#     Sent/sec must sum to at least 180;
#   - ICMP: 3 echo requests to 127.0.0.1 (ping, or a raw socket when there
#     is no ping), each answered: \ICMP\Messages Sent/sec must sum to at
#     least 3.
# Other traffic on the machine only adds to these. Everything is bounded by
# timeouts; the listener is killed by the trap. Skips (77) without python3.
set -eu
. "$(dirname "$0")/lib.sh"

[ -n "${GETCOUNTER:-}" ] && [ -x "$GETCOUNTER" ] ||
	skip "no getcounter binary (GETCOUNTER unset or not built)"
[ -r /proc/net/snmp ] || skip "no /proc/net/snmp on this machine"
command -v python3 >/dev/null 2>&1 || skip "no python3 for the loopback traffic"
command -v timeout >/dev/null 2>&1 || skip "no timeout command"

tmp=$(mktemp -d)
listener=""
sampler=""
cleanup() {
	for p in $sampler $listener; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# sum_col FILE N: the sum of column N (2 = the first counter) over the data
# rows of a PDH-CSV file; fails unless there are two rows of numbers.
sum_col() {
	tr -d '\r' <"$1" | awk -F'","' -v n="$2" '
		NR > 1 { v = $n; gsub(/"/, "", v); if (v !~ /^[0-9.]+$/) bad = 1; s += v }
		END { if (bad || NR != 3) exit 1; printf "%.3f\n", s }'
}

# sample OUT PATH...: start getcounter over two 1 s intervals in the
# background, then give it time for its first read.
sample() {
	out=$1
	shift
	"$GETCOUNTER" -i 1 -n 2 -f csv "$@" >"$out" 2>"$out.err" &
	sampler=$!
	sleep 0.5
}

# sample_end OUT: wait for the sampler; fail if it failed.
sample_end() {
	wait "$sampler" || fail "getcounter failed: $(cat "$1.err")"
	sampler=""
}

# ---- TCP
timeout 30 python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(8)
s.settimeout(20)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
total = 0
for i in range(3):
    c, _ = s.accept()
    c.settimeout(20)
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        total += len(b)
    c.close()
print(total)
' "$tmp/port" >"$tmp/received" &
listener=$!
i=0
while [ ! -s "$tmp/port" ]; do
	i=$((i + 1))
	[ "$i" -le 100 ] || fail "the loopback listener did not start"
	sleep 0.1
done
port=$(cat "$tmp/port")

sample "$tmp/tcp.csv" '\TCP\Segments Sent/sec' '\TCP\Connections Active/sec'
timeout 10 python3 -c '
import socket, sys, time
data = b"x" * (2 << 20)
for i in range(3):
    c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    c.sendall(data)
    c.close()
    time.sleep(0.4)
' "$port" || fail "the TCP transfer to 127.0.0.1:$port failed"
sample_end "$tmp/tcp.csv"
wait "$listener" || fail "the loopback listener failed"
listener=""
[ "$(cat "$tmp/received")" -eq $((3 * 2 * 1024 * 1024)) ] ||
	fail "the listener received $(cat "$tmp/received") bytes, not 6 MiB"

segs=$(sum_col "$tmp/tcp.csv" 2) || fail "no Segments Sent/sec values in: $(cat "$tmp/tcp.csv")"
active=$(sum_col "$tmp/tcp.csv" 3) ||
	fail "no Connections Active/sec values in: $(cat "$tmp/tcp.csv")"
echo "TCP: Segments Sent/sec summed $segs, Connections Active/sec summed $active"
awk -v v="$segs" 'BEGIN { exit !(v >= 50) }' ||
	fail "Segments Sent/sec summed to $segs over a 6 MiB transfer, wanted >= 50"
awk -v v="$active" 'BEGIN { exit !(v >= 2.5) }' ||
	fail "Connections Active/sec summed to $active over 3 connections, wanted >= 2.5"

# ---- UDP
sample "$tmp/udp.csv" '\UDPv4\Datagrams Sent/sec'
timeout 10 python3 -c '
import socket, time
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(200):
    s.sendto(b"y" * 100, r.getsockname())
    time.sleep(0.002)
' || fail "the UDP send to 127.0.0.1 failed"
sample_end "$tmp/udp.csv"
udp=$(sum_col "$tmp/udp.csv" 2) || fail "no Datagrams Sent/sec values in: $(cat "$tmp/udp.csv")"
echo "UDPv4: Datagrams Sent/sec summed $udp"
awk -v v="$udp" 'BEGIN { exit !(v >= 180) }' ||
	fail "UDPv4 Datagrams Sent/sec summed to $udp over 200 datagrams, wanted >= 180"

# ---- ICMP: ping, or echo requests from a raw (or ping) socket
if command -v ping >/dev/null 2>&1; then
	pinger() { timeout 10 ping -n -q -c 3 -i 0.2 -W 1 127.0.0.1 >/dev/null; }
else
	pinger() {
		timeout 10 python3 -c '
import socket, struct, sys, time
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return ~s & 0xffff
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
except OSError:
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
    except OSError:
        sys.exit(3)
for i in range(3):
    m = struct.pack("!BBHHH", 8, 0, 0, 0x4743, i) + b"getcounter"
    m = m[:2] + struct.pack("!H", csum(m)) + m[4:]
    s.sendto(m, ("127.0.0.1", 0))
    time.sleep(0.2)
'
	}
fi
sample "$tmp/icmp.csv" '\ICMP\Messages Sent/sec'
rc=0
pinger || rc=$?
sample_end "$tmp/icmp.csv"
if [ "$rc" -eq 3 ]; then
	echo "ICMP: no ping and no ICMP socket allowed here, not checked"
	exit 0
fi
[ "$rc" -eq 0 ] || fail "pinging 127.0.0.1 failed (exit $rc)"
icmp=$(sum_col "$tmp/icmp.csv" 2) || fail "no Messages Sent/sec values in: $(cat "$tmp/icmp.csv")"
echo "ICMP: Messages Sent/sec summed $icmp"
awk -v v="$icmp" 'BEGIN { exit !(v >= 3) }' ||
	fail "ICMP Messages Sent/sec summed to $icmp over 3 echo requests, wanted >= 3"
