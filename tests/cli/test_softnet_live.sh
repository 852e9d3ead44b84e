#!/bin/sh
# Live: UDP over loopback while getcounter samples the receive path. N
# datagrams to 127.0.0.1 (a socket this test binds and never reads: the
# kernel drops what overflows its buffer after the backlog has counted it)
# go through the loopback device's backlog, so softnet `processed` rises by
# at least N on the CPUs that sent them, and NET_RX softirqs run there.
#   - \Per Processor Network Activity(_Total)\Received Packets/sec x 1 s,
#     summed over the 2 samples, is at least 90 % of N (other traffic only
#     adds);
#   - \Softirq(NET_RX/*)\Softirqs/sec is above 0 on some CPU;
#   - every CPU instance and _Total have a value in both samples.
# Then, on the fixture series irq-basic (no traffic needed): instance
# selection by CPU across the Interrupt set's ROW/CPU names, ERR/_Total, a
# RESET and a NEW row, through the real binary.
set -eu
. "$(dirname "$0")/lib.sh"

[ -n "${GETCOUNTER:-}" ] && [ -x "$GETCOUNTER" ] ||
	skip "no getcounter binary (GETCOUNTER unset or not built)"
[ -r /proc/net/softnet_stat ] || skip "no /proc/net/softnet_stat on this kernel"

count=3000
sender=""
cleanup() {
	if [ -n "$sender" ]; then
		kill "$sender" 2>/dev/null || true
		wait "$sender" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

if command -v python3 >/dev/null 2>&1; then
	send() {
		python3 -c 'import socket
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range('"$count"'):
    s.sendto(b"x" * 64, r.getsockname())'
	}
elif command -v bash >/dev/null 2>&1; then
	count=1000
	send() {
		bash -c 'for i in $(seq '"$count"'); do printf x >/dev/udp/127.0.0.1/9; done'
	}
else
	fail "neither python3 nor bash to send the datagrams"
fi

# 3 reads 1 s apart (2 samples); the datagrams leave from 0.3 s on.
(sleep 0.3 && send) &
sender=$!
csv=$("$GETCOUNTER" -i 1 -n 2 -f csv \
	'\Per Processor Network Activity(_Total)\Received Packets/sec' \
	'\Per Processor Network Activity(*)\Receive Indications/sec' \
	'\Softirq(NET_RX/*)\Softirqs/sec') || fail "getcounter failed: $csv"
wait "$sender" || fail "the sender failed"
sender=""
printf '%s\n' "$csv"

# Column 2 is _Total's Received Packets/sec; NET_RX columns are named.
header=$(printf '%s\n' "$csv" | head -1 | tr -d '\r')
result=$(printf '%s\n' "$csv" | tr -d '\r' | tail -n +2 | awk -F'","' -v hdr="$header" '
	BEGIN { n = split(hdr, h, "\",\"") }
	{
		for (i = 2; i <= NF; i++) {
			v = $i; gsub(/"/, "", v)
			if (v !~ /^[0-9.]+$/) bad = bad " " h[i]
			else if (h[i] ~ /Softirq\(NET_RX\//) netrx += v
		}
		gsub(/"/, "", $2); packets += $2; rows++
	}
	END {
		if (rows != 2) print "rows " rows
		else if (bad != "") print "no value:" bad
		else printf "ok %.0f %.0f\n", packets, netrx
	}')
case $result in
ok*) ;;
*) fail "$result" ;;
esac
set -- $result
packets=$2
netrx=$3
echo "sent $count datagrams over loopback; Received Packets summed $packets, NET_RX $netrx"
[ "$packets" -ge $((count * 9 / 10)) ] || fail "Received Packets $packets < 90 % of $count"
[ "$netrx" -gt 0 ] || fail "no NET_RX softirq seen"

# The Interrupt set on a fixture series: columns are CPUs 0 and 3.
F=${FIXTURES:-$(dirname "$0")/../fixtures}/irq-basic
out=$("$GETCOUNTER" --root "$F/t0" --root "$F/t1" -f csv '\Interrupt(*/3)\Interrupts/sec' \
	'\Interrupt(ERR/_Total)\Interrupts/sec') || fail "getcounter on irq-basic: $out"
printf '%s\n' "$out"
want='"\\fixture\Interrupt(0/3)\Interrupts/sec","\\fixture\Interrupt(9/3)\Interrupts/sec","\\fixture\Interrupt(16/3)\Interrupts/sec","\\fixture\Interrupt(27/3)\Interrupts/sec","\\fixture\Interrupt(30/3)\Interrupts/sec","\\fixture\Interrupt(NMI/3)\Interrupts/sec","\\fixture\Interrupt(LOC/3)\Interrupts/sec","\\fixture\Interrupt(ERR/_Total)\Interrupts/sec"'
got=$(printf '%s\n' "$out" | head -1 | tr -d '\r' | cut -d, -f2-)
[ "$got" = "$want" ] || fail "irq-basic columns: $got"
# 0/3 0, 9/3 (10-4)/2 = 3, 16/3 RESET, 27/3 (30-10)/2 = 10, 30/3 NEW,
# NMI/3 (6-2)/2 = 2, LOC/3 (2100-2000)/2 = 50, ERR (7-3)/2 = 2.
vals=$(printf '%s\n' "$out" | tail -1 | tr -d '\r' | cut -d, -f2-)
[ "$vals" = '"0.000000","3.000000"," ","10.000000"," ","2.000000","50.000000","2.000000"' ] ||
	fail "irq-basic values: $vals"
echo "ok"
