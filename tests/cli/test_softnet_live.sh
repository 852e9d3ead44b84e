#!/bin/sh
# First, on the fixture series irq-basic (no traffic needed): instance
# selection by CPU across the Interrupt set's ROW/CPU names, ERR/_Total, a
# RESET and a NEW row, through the real binary.
# Then live: UDP over a veth pair between two network namespaces this test
# creates (gc-sn-PID-a holds end A, NET.1; gc-sn-PID-b end B, NET.2; IPv6
# off, static neighbours: the only frames on the link are ours) while
# getcounter samples the receive path. A sender in gc-sn-PID-a, pinned to
# one CPU k, sends N = 3000 datagrams of 64 bytes to a socket in
# gc-sn-PID-b that is bound and never read (the kernel drops what overflows
# its buffer after the backlog has counted it). veth hands each frame to
# the backlog of the sending CPU (netif_rx; RPS is off on both ends), so
# softnet `processed` rises by N on CPU k and NET_RX softirqs run there.
# softnet_stat and /proc/softirqs are machine-wide: getcounter runs in
# gc-sn-PID-b and sees every CPU. Over 3 reads 1 s apart (2 samples, the
# datagrams sent from 0.3 s on), a rate summed over the samples x 1 s is
# the count in the window:
#   - \Per Processor Network Activity(_Total)\Received Packets/sec summed
#     is at least 90 % of N (2700; other traffic only adds);
#   - \Per Processor Network Activity(k)\Received Packets/sec summed is at
#     least 90 % of N too (the sending CPU's backlog took them);
#   - \Softirq(NET_RX/k)\Softirqs/sec summed is above 0 (NET_RX ran on the
#     sending CPU, so on some CPU);
#   - every CPU instance and _Total have a value in both samples.
# The trap kills the sender and the sink and deletes both namespaces (the
# veth goes with them) on every exit, failure and INT/TERM included; at the
# end the test deletes them itself and checks that `ip netns list` shows
# none left. Skips (77) only when `ip netns add` is refused or there is no
# python3 (or iproute2).
set -eu
. "$(dirname "$0")/lib.sh"

[ -n "${GETCOUNTER:-}" ] && [ -x "$GETCOUNTER" ] ||
	skip "no getcounter binary (GETCOUNTER unset or not built)"

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

# ---- live, over a veth pair
[ -r /proc/net/softnet_stat ] || skip "no /proc/net/softnet_stat on this kernel"
command -v python3 >/dev/null 2>&1 || skip "no python3 for the veth traffic"
command -v ip >/dev/null 2>&1 || skip "no ip command (iproute2) for the namespaces"
command -v timeout >/dev/null 2>&1 || skip "no timeout command"

pfx=gc-sn-$$
nsa=$pfx-a
nsb=$pfx-b
net=10.214.$(($$ % 250))
count=3000
samples=2
tmp=$(mktemp -d)
sender=""
sink=""
cleanup() {
	for p in $sender $sink; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	sender=""
	sink=""
	netns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

netns_add "$nsa"
netns_add "$nsb"
netns_veth "$nsa" "$nsb" "$net"

# The sink: a socket bound on NET.2, never read; its port goes to a file.
ip netns exec "$nsb" timeout 30 python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[2], 0))
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(25)
' "$tmp/port" "$net.2" &
sink=$!
i=0
while [ ! -s "$tmp/port" ]; do
	i=$((i + 1))
	[ "$i" -le 100 ] || fail "the UDP sink in $nsb did not start"
	sleep 0.1
done
port=$(cat "$tmp/port")

# The sender, 0.3 s on: it pins itself to the last CPU it may run on and
# names it. exec: the background job's pid is the sender's, for the trap.
send() {
	sleep 0.3
	exec ip netns exec "$nsa" timeout 10 python3 -c '
import os, socket, sys
cpu = max(os.sched_getaffinity(0))
os.sched_setaffinity(0, {cpu})
with open(sys.argv[1], "w") as f:
    f.write("%d\n" % cpu)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[4])):
    s.sendto(b"x" * 64, (sys.argv[2], int(sys.argv[3])))
' "$tmp/cpu" "$net.2" "$port" "$count"
}

rx() { ip netns exec "$nsb" cat "/sys/class/net/$veth_b/statistics/rx_packets"; }
rx0=$(rx)
# 3 reads 1 s apart (2 samples); the datagrams leave from 0.3 s on.
send &
sender=$!
ip netns exec "$nsb" "$GETCOUNTER" -i 1 -n "$samples" -f csv \
	'\Per Processor Network Activity(*)\Received Packets/sec' \
	'\Per Processor Network Activity(*)\Receive Indications/sec' \
	'\Softirq(NET_RX/*)\Softirqs/sec' >"$tmp/out.csv" 2>"$tmp/out.err" ||
	fail "getcounter failed: $(cat "$tmp/out.err")"
wait "$sender" || fail "the sender in $nsa failed"
sender=""
rx1=$(rx)
cpu=$(cat "$tmp/cpu")
cat "$tmp/out.csv"

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
		END { if (bad || !col || n != rows) exit 1; printf "%.0f\n", s }'
}

# Every column (each CPU and _Total) has a number in every sample.
bad=$(tr -d '\r' <"$tmp/out.csv" | awk -F'","' '
	NR == 1 { for (i = 2; i <= NF; i++) { h[i] = $i; gsub(/"/, "", h[i]) }; next }
	{ for (i = 2; i <= NF; i++) { v = $i; gsub(/"/, "", v); if (v !~ /^[0-9.]+$/) b = b " " h[i] } }
	END { print b }')
[ -z "$bad" ] || fail "no value:$bad"
[ "$(($(wc -l <"$tmp/out.csv") - 1))" -eq "$samples" ] || fail "not $samples samples"

total=$(csv_sum "$tmp/out.csv" '\Per Processor Network Activity(_Total)\Received Packets/sec') ||
	fail "no _Total Received Packets/sec"
oncpu=$(csv_sum "$tmp/out.csv" "\\Per Processor Network Activity($cpu)\\Received Packets/sec") ||
	fail "no Received Packets/sec for CPU $cpu"
netrx=$(csv_sum "$tmp/out.csv" "\\Softirq(NET_RX/$cpu)\\Softirqs/sec") ||
	fail "no NET_RX softirqs for CPU $cpu"
echo "sent $count datagrams over $veth_a -> $veth_b from CPU $cpu ($veth_b rx_packets" \
	"moved $((rx1 - rx0))); Received Packets summed: _Total $total, CPU $cpu $oncpu;" \
	"NET_RX on CPU $cpu $netrx"
[ "$total" -ge $((count * 9 / 10)) ] || fail "_Total Received Packets $total < 90 % of $count"
[ "$oncpu" -ge $((count * 9 / 10)) ] ||
	fail "CPU $cpu (the sender's) Received Packets $oncpu < 90 % of $count"
[ "$netrx" -gt 0 ] || fail "no NET_RX softirq seen on CPU $cpu"

cleanup
left=$(netns_left "$pfx-")
[ -z "$left" ] || fail "namespaces left behind: $left"
echo "ok"
