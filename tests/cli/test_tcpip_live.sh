#!/bin/sh
# Live: TCP, UDP and ICMP over a veth pair between two network namespaces
# this test creates: gc-ti-PID-a (end A, NET.1, the client and sender),
# gc-ti-PID-b (end B, NET.2, the server and receiver), plus gc-ti-PID-c, a
# third namespace with no link and no traffic. IPv6 is off and the
# neighbours are static: the only packets in these namespaces are ours.
# /proc/net/snmp is per network namespace, so for each protocol getcounter
# runs inside all three (`ip netns exec`), each -i 1 -n 3 (three 1 s
# intervals) while the traffic runs from 0.5 s on, well inside the window;
# a rate summed over the 3 samples x 1 s is the count in the window (the
# intervals are about 1 s: a count of 3 sums to about 3, hence >= 2.5):
#   - TCP: a listener in b takes 3 connections from a of 2 MiB each, 0.2 s
#     apart (it must receive 6 MiB = 6291456 bytes).
#     a: \TCP\Segments Sent/sec sums to >= 3879: OutSegs counts MSS-sized
#        segments, the MSS on a 1500-byte MTU is at most 1500 - 20 IP -
#        20 TCP = 1460, so 6291456 / 1460 = 4310 or more, of which 90 %;
#        \TCP\Connections Active/sec >= 2.5 (3), Connections Passive/sec 0;
#     b: \TCP\Segments Received/sec >= 86: veth passes a GSO packet of up
#        to 64 KiB whole and InSegs counts it once, so at least 6 MiB /
#        64 KiB = 96 data segments, of which 90 %; Connections Passive/sec
#        >= 2.5 (3), Connections Active/sec 0;
#     c: Segments Received/sec and Segments Sent/sec 0.
#   - UDP: 200 datagrams of 100 bytes from a to a socket in b, 2 ms apart.
#     a: \UDPv4\Datagrams Sent/sec >= 180 (90 % of 200), Received/sec 0;
#     b: \UDPv4\Datagrams Received/sec >= 180, Sent/sec 0;
#     c: both 0.
#   - ICMP: 3 echo requests from a to NET.2 (ping, or a raw socket when
#     there is no ping), each answered by b.
#     a: \ICMP\Messages Sent/sec >= 2.5 (3 requests), Received/sec >= 2.5
#        (3 replies); b: Received/sec >= 2.5, Sent/sec >= 2.5; c: both 0.
# A "0" is a sum below 0.5: one packet in a 1 s interval would show as 1.
# Every process is bounded by `timeout`; the trap kills them and deletes the
# three namespaces (the veth goes with them) on every exit, failure and
# INT/TERM included; at the end the test deletes them itself and checks
# that `ip netns list` shows none left. Skips (77) only when `ip netns add`
# is refused or there is no python3 (or iproute2).
set -eu
. "$(dirname "$0")/lib.sh"

[ -n "${GETCOUNTER:-}" ] && [ -x "$GETCOUNTER" ] ||
	skip "no getcounter binary (GETCOUNTER unset or not built)"
[ -r /proc/net/snmp ] || skip "no /proc/net/snmp on this machine"
command -v python3 >/dev/null 2>&1 || skip "no python3 for the veth traffic"
command -v ip >/dev/null 2>&1 || skip "no ip command (iproute2) for the namespaces"
command -v timeout >/dev/null 2>&1 || skip "no timeout command"

pfx=gc-ti-$$
net=10.215.$(($$ % 250))
samples=3
tmp=$(mktemp -d)
server=""
samplers=""
cleanup() {
	for p in $samplers $server; do
		kill "${p#*:}" 2>/dev/null || true
		wait "${p#*:}" 2>/dev/null || true
	done
	samplers=""
	server=""
	netns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

netns_add "$pfx-a"
netns_add "$pfx-b"
netns_add "$pfx-c"
netns_veth "$pfx-a" "$pfx-b" "$net"

# csv_sum FILE NAME: the sum over the data rows of a PDH-CSV file of the
# column whose path is \\host then NAME; fails unless there are $samples
# rows and each has a number there.
csv_sum() {
	tr -d '\r' <"$1" | NAME=$2 awk -F'","' -v rows="$samples" '
		NR == 1 {
			name = ENVIRON["NAME"]
			for (i = 2; i <= NF; i++) {
				h = $i; gsub(/"/, "", h)
				if (substr(h, length(h) - length(name) + 1) == name) col = i
			}
			next
		}
		{ v = $col; gsub(/"/, "", v); if (!col || v !~ /^[0-9.]+$/) bad = 1; s += v; n++ }
		END { if (bad || !col || n != rows) exit 1; printf "%.3f\n", s }'
}

# sample PHASE PATH...: getcounter over $samples 1 s intervals in each of
# the namespaces a, b and c, in the background (PHASE.SIDE.csv); then time
# for their first read.
sample() {
	phase=$1
	shift
	for side in a b c; do
		ip netns exec "$pfx-$side" "$GETCOUNTER" -i 1 -n "$samples" -f csv "$@" \
			>"$tmp/$phase.$side.csv" 2>"$tmp/$phase.$side.err" &
		samplers="$samplers $side:$!"
	done
	sleep 0.5
}

# sample_end PHASE: waits for the samplers; fails if one failed.
sample_end() {
	for p in $samplers; do
		wait "${p#*:}" || fail "getcounter in $pfx-${p%%:*} failed:" \
			"$(cat "$tmp/$1.${p%%:*}.err")"
	done
	samplers=""
	for side in a b c; do
		echo "$pfx-$side:"
		cat "$tmp/$1.$side.csv"
	done
}

# check PHASE SIDE NAME OP LIMIT: NAME's column summed over the samples in
# PHASE.SIDE.csv must be OP (>= or <) LIMIT.
check() {
	v=$(csv_sum "$tmp/$1.$2.csv" "$3") ||
		fail "no $3 values in $pfx-$2: $(cat "$tmp/$1.$2.csv")"
	echo "$pfx-$2: $3 summed $v, wanted $4 $5"
	awk -v v="$v" -v op="$4" -v l="$5" 'BEGIN { exit !(op == ">=" ? v >= l : v < l) }' ||
		fail "$pfx-$2: $3 summed to $v, wanted $4 $5"
}

# wait_port FILE WHO: waits (up to 10 s) for a server to write its port.
wait_port() {
	i=0
	while [ ! -s "$1" ]; do
		i=$((i + 1))
		[ "$i" -le 100 ] || fail "$2 did not start"
		sleep 0.1
	done
}

# ---- TCP: 3 connections a -> b of 2 MiB each
ip netns exec "$pfx-b" timeout 30 python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[2], 0))
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
' "$tmp/tcp.port" "$net.2" >"$tmp/tcp.received" &
server=b:$!
wait_port "$tmp/tcp.port" "the TCP listener in $pfx-b"
port=$(cat "$tmp/tcp.port")

sample tcp '\TCP\Segments Received/sec' '\TCP\Segments Sent/sec' \
	'\TCP\Connections Active/sec' '\TCP\Connections Passive/sec'
ip netns exec "$pfx-a" timeout 10 python3 -c '
import socket, sys, time
data = b"x" * (2 << 20)
for i in range(3):
    c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
    c.sendall(data)
    c.close()
    time.sleep(0.2)
' "$net.2" "$port" || fail "the TCP transfer to $net.2:$port failed"
sample_end tcp
wait "${server#*:}" || fail "the TCP listener in $pfx-b failed"
server=""
[ "$(cat "$tmp/tcp.received")" -eq $((3 * 2 * 1024 * 1024)) ] ||
	fail "the listener received $(cat "$tmp/tcp.received") bytes, not 6 MiB"
check tcp a '\TCP\Segments Sent/sec' '>=' 3879
check tcp a '\TCP\Connections Active/sec' '>=' 2.5
check tcp a '\TCP\Connections Passive/sec' '<' 0.5
check tcp b '\TCP\Segments Received/sec' '>=' 86
check tcp b '\TCP\Connections Passive/sec' '>=' 2.5
check tcp b '\TCP\Connections Active/sec' '<' 0.5
check tcp c '\TCP\Segments Received/sec' '<' 0.5
check tcp c '\TCP\Segments Sent/sec' '<' 0.5

# ---- UDP: 200 datagrams a -> b, read by a socket in b
ip netns exec "$pfx-b" timeout 30 python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[2], 0))
s.settimeout(5)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
n = 0
try:
    while n < 200:
        s.recv(2048)
        n += 1
except socket.timeout:
    pass
print(n)
' "$tmp/udp.port" "$net.2" >"$tmp/udp.received" &
server=b:$!
wait_port "$tmp/udp.port" "the UDP receiver in $pfx-b"
port=$(cat "$tmp/udp.port")

sample udp '\UDPv4\Datagrams Received/sec' '\UDPv4\Datagrams Sent/sec'
ip netns exec "$pfx-a" timeout 10 python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(200):
    s.sendto(b"y" * 100, (sys.argv[1], int(sys.argv[2])))
    time.sleep(0.002)
' "$net.2" "$port" || fail "the UDP send to $net.2:$port failed"
sample_end udp
wait "${server#*:}" || fail "the UDP receiver in $pfx-b failed"
server=""
echo "the UDP receiver read $(cat "$tmp/udp.received") of 200 datagrams"
check udp a '\UDPv4\Datagrams Sent/sec' '>=' 180
check udp a '\UDPv4\Datagrams Received/sec' '<' 0.5
check udp b '\UDPv4\Datagrams Received/sec' '>=' 180
check udp b '\UDPv4\Datagrams Sent/sec' '<' 0.5
check udp c '\UDPv4\Datagrams Received/sec' '<' 0.5
check udp c '\UDPv4\Datagrams Sent/sec' '<' 0.5

# ---- ICMP: 3 echo requests a -> b by ping, or by a raw (or ping) socket
if command -v ping >/dev/null 2>&1; then
	pinger() {
		ip netns exec "$pfx-a" timeout 10 ping -n -q -c 3 -i 0.2 -W 1 "$net.2" >/dev/null
	}
else
	pinger() {
		ip netns exec "$pfx-a" timeout 10 python3 -c '
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
    s.sendto(m, (sys.argv[1], 0))
    time.sleep(0.2)
' "$net.2"
	}
fi
sample icmp '\ICMP\Messages Received/sec' '\ICMP\Messages Sent/sec'
rc=0
pinger || rc=$?
sample_end icmp
if [ "$rc" -eq 3 ]; then
	echo "ICMP: no ping and no ICMP socket allowed here, not checked"
else
	[ "$rc" -eq 0 ] || fail "pinging $net.2 from $pfx-a failed (exit $rc)"
	check icmp a '\ICMP\Messages Sent/sec' '>=' 2.5
	check icmp a '\ICMP\Messages Received/sec' '>=' 2.5
	check icmp b '\ICMP\Messages Received/sec' '>=' 2.5
	check icmp b '\ICMP\Messages Sent/sec' '>=' 2.5
	check icmp c '\ICMP\Messages Received/sec' '<' 0.5
	check icmp c '\ICMP\Messages Sent/sec' '<' 0.5
fi

cleanup
left=$(netns_left "$pfx-")
[ -z "$left" ] || fail "namespaces left behind: $left"
echo "ok"
