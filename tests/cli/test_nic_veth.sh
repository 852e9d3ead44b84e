#!/bin/sh
# Live: traffic over a veth pair between two network namespaces this test
# creates (gc-test-PID-rx holds veth end A, gc-test-PID-tx end B; nothing
# touches the root namespace). IPv6 is off and the neighbours are static,
# so the only frames on the link are ours: N UDP datagrams of P payload
# bytes, each N x (14 Ethernet + 20 IP + 8 UDP + P) bytes on the wire.
# getcounter runs inside the receiving namespace (netlink there) and
#   - Bytes Received/sec summed over the samples x 1 s matches the bytes
#     sent within 5 %, Packets Received/sec x 1 s the datagrams;
#   - % Utilization (veth: 10000 Mbit/s, full duplex) is in each sample
#     100 x max(received, sent bytes/s) x 8 / 1e10, and summed x 1 s
#     matches 100 x bytes sent x 8 / 1e10 within 5 %;
#   - Current Bandwidth is the veth's 10000 Mbit/s;
#   - netlink == sysfs: the unit test binary test_nic, run in the namespace
#     with GC_NIC_QUIET_IF=A, reads sysfs, netlink (the RTM_GETSTATS read),
#     sysfs and requires all three equal on the now quiet veth, and the
#     RTM_GETSTATS dump equal to the RTM_GETLINK dumps around it;
#   - with GC_NIC_LINK_CHANGES=1 the same binary adds, renames, brings up
#     and deletes veths in the namespace between provider reads, and 150
#     pairs at once (more notifications than the socket holds): each change
#     shows in the very next read;
#   - under valgrind (when installed and the binary is not ASan) a short
#     live run of every counter reports no error and no definite leak.
# Skips (77) only when `ip netns add` is refused.
set -eu
. "$(dirname "$0")/lib.sh"

[ -n "${GETCOUNTER:-}" ] && [ -x "$GETCOUNTER" ] ||
	skip "no getcounter binary (GETCOUNTER unset or not built)"
command -v ip >/dev/null 2>&1 || fail "no ip command: install iproute2"

nsr=gc-test-$$-rx
nst=gc-test-$$-tx
a=gcra$$
b=gcta$$
net=10.213.$(($$ % 250))
count=200
payload=1000
frame=$((14 + 20 + 8 + payload))
sender=""

cleanup() {
	if [ -n "$sender" ]; then
		kill "$sender" 2>/dev/null || true
		wait "$sender" 2>/dev/null || true
	fi
	ip netns del "$nsr" 2>/dev/null || true
	ip netns del "$nst" 2>/dev/null || true
	[ -z "${rtmp:-}" ] || rm -rf "$rtmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

errfile=$(mktemp)
if ! ip netns add "$nsr" 2>"$errfile"; then
	msg=$(cat "$errfile")
	rm -f "$errfile"
	skip "ip netns add refused here: $msg"
fi
rm -f "$errfile"
ip netns add "$nst"

# IPv6 off in both namespaces before the veth arrives: no ND, no MLD.
for ns in "$nsr" "$nst"; do
	ip netns exec "$ns" sh -c 'for f in /proc/sys/net/ipv6/conf/default/disable_ipv6 \
		/proc/sys/net/ipv6/conf/all/disable_ipv6; do [ -w $f ] && echo 1 >$f; done; :'
done
ip link add "$a" netns "$nsr" type veth peer name "$b" netns "$nst"
ip -n "$nsr" addr add "$net.1/24" dev "$a"
ip -n "$nst" addr add "$net.2/24" dev "$b"
ip -n "$nsr" link set "$a" up
ip -n "$nst" link set "$b" up
ip -n "$nsr" link set lo up
maca=$(ip netns exec "$nsr" cat "/sys/class/net/$a/address")
macb=$(ip netns exec "$nst" cat "/sys/class/net/$b/address")
ip -n "$nst" neigh replace "$net.1" lladdr "$maca" dev "$b" nud permanent
ip -n "$nsr" neigh replace "$net.2" lladdr "$macb" dev "$a" nud permanent

# The sender: count datagrams of payload bytes to a closed port, 5 ms apart.
# python3 first: bash's loop forks a sleep a datagram, which on a loaded
# machine stretched the second of traffic past the samples.
if command -v python3 >/dev/null 2>&1; then
	send() {
		ip netns exec "$nst" python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range('"$count"'):
    s.sendto(b"x" * '"$payload"', ("'"$net"'.1", 9)); time.sleep(0.005)'
	}
elif command -v bash >/dev/null 2>&1; then
	send() {
		ip netns exec "$nst" bash -c 'for i in $(seq '"$count"'); do
			printf "%'"$payload"'s" "" >/dev/udp/'"$net"'.1/9; sleep 0.005; done'
	}
else
	fail "neither bash nor python3 to send the datagrams"
fi

rx() { ip netns exec "$nsr" cat "/sys/class/net/$a/statistics/$1"; }
rx_bytes0=$(rx rx_bytes)

# 6 reads 1 s apart (5 samples); traffic from 0.3 s to about 1.5 s, and
# room for it to take three times that on a loaded machine.
(sleep 0.3 && send) &
sender=$!
csv=$(ip netns exec "$nsr" "$GETCOUNTER" -i 1 -n 5 -f csv --precision 9 \
	"\\Network Adapter($a)\\Bytes Received/sec" \
	"\\Network Adapter($a)\\Packets Received/sec" \
	"\\Network Adapter($a)\\Bytes Sent/sec" \
	"\\Network Adapter($a)\\% Utilization") || fail "getcounter failed: $csv"
wait "$sender" || fail "the sender failed"
sender=""
rx_bytes1=$(rx rx_bytes)

printf '%s\n' "$csv"
# Each sample's % Utilization must be 100 x max(rx, tx) x 8 / 1e10 of the
# same sample's byte rates (full duplex at 10000 Mbit/s).
sums=$(printf '%s\n' "$csv" | tr -d '\r' | tail -n +2 | awk -F'","' '
	{
		for (i = 2; i <= 5; i++) {
			gsub(/"/, "", $i)
			if ($i !~ /^[0-9.]+$/) bad = 1
		}
		m = $2 > $4 ? $2 : $4
		want = 100 * m * 8 / 1e10
		d = $5 - want; if (d < 0) d = -d
		if (d > 1e-8 + want * 1e-6) {
			printf "util %s, wanted %.9f\n", $5, want > "/dev/stderr"; bad = 1
		}
		b += $2; p += $3; u += $5; n++
	}
	END { if (bad || n != 5) print "bad"; else printf "%.0f %.0f %.9f\n", b, p, u }')
[ "$sums" != bad ] || fail "missing or wrong values in the samples"
read -r bytes packets util <<EOF
$sums
EOF
want=$((count * frame))
echo "sent $count x $frame = $want bytes; getcounter saw $bytes bytes, $packets packets;" \
	"sysfs rx_bytes moved $((rx_bytes1 - rx_bytes0))"
close_to "$bytes" "$want" "$((want / 20))" || fail "Bytes Received $bytes, sent $want (5 %)"
close_to "$packets" "$count" "$((count / 20))" || fail "Packets Received $packets, sent $count"
# sum of % Utilization x 1 s = 100 x bytes x 8 / (1 s x 1e10)
uwant=$(awk -v b="$want" 'BEGIN { printf "%.9f", 100 * b * 8 / 1e10 }')
echo "% Utilization summed: $util, from the bytes sent: $uwant"
close_to "$util" "$uwant" "$(awk -v u="$uwant" 'BEGIN { print u / 20 }')" ||
	fail "% Utilization $util, wanted $uwant (5 %)"

# veth reports 10000 Mbit/s once up.
bw=$(ip netns exec "$nsr" "$GETCOUNTER" -i 0.1 -n 1 -f csv \
	"\\Network Adapter($a)\\Current Bandwidth" | tr -d '\r' | tail -1 |
	awk -F'","' '{ gsub(/"/, "", $2); print $2 }')
close_to "$bw" 10000000000 1 || fail "Current Bandwidth $bw, wanted 10000000000"

# netlink == sysfs on the quiet veth, through the provider itself.
unit=$(dirname "$GETCOUNTER")/tests/test_nic
if [ -x "$unit" ]; then
	out=$(cd "$(dirname "$0")/../unit" &&
		ip netns exec "$nsr" env GC_NIC_QUIET_IF="$a" GC_NIC_LINK_CHANGES=1 "$unit" 2>&1) ||
		fail "netlink and sysfs differ, or a link change was missed: $out"
	printf '%s\n' "$out" | grep "fields equal" || fail "no quiet comparison: $out"
	printf '%s\n' "$out" | grep "RTM_GETSTATS equals RTM_GETLINK" ||
		fail "no quiet RTM_GETSTATS comparison: $out"
	printf '%s\n' "$out" | grep "seen in the next read" || fail "no link-change test: $out"
else
	echo "note: $unit not built, netlink == sysfs shown by make unit only"
fi

# A short live run under valgrind: no errors, no definite leaks.
if command -v valgrind >/dev/null 2>&1 && ! grep -q __asan_init "$GETCOUNTER"; then
	ip netns exec "$nsr" valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite "$GETCOUNTER" -i 0.2 -n 3 -f csv \
		'\Network Adapter(*)\*' >/dev/null || fail "valgrind reported errors"
	echo "valgrind: clean"
fi
# A rename mid-run keeps the instance (same ifindex, no RESET): the sample
# after it has a value under the new name, and neither NEW nor a gap
rtmp=$(mktemp -d)
ip -n "$nsr" link add gcrn$$ type veth peer name gcrp$$
ip -n "$nsr" link set gcrn$$ up
ip -n "$nsr" link set gcrp$$ up
(sleep 0.7; ip -n "$nsr" link set gcrn$$ down; ip -n "$nsr" link set gcrn$$ name gcrm$$;
	ip -n "$nsr" link set gcrm$$ up) &
rn=$!
ip netns exec "$nsr" "$GETCOUNTER" -i 0.5 -n 3 -f json '\Network Adapter(gcr*)\Packets Sent/sec' \
	>"$rtmp/rename.json" 2>"$rtmp/rename.err" || fail "the run across a rename failed: $(cat "$rtmp/rename.err")"
wait "$rn" || fail "the rename failed"
cat "$rtmp/rename.json"
python3 - "$rtmp/rename.json" gcrn$$ gcrm$$ <<'EOF2' || fail "a rename was not followed (above)"
import json, sys
rows = [json.loads(l)["samples"] for l in open(sys.argv[1])]
old, new = sys.argv[2], sys.argv[3]
last = {r["instance"]: r for r in rows[-1]}
assert new in last and last[new]["status"] == "OK", last
assert old not in last, last
# the sample that saw the rename: the new name goes on (OK), it is not NEW
seen = [{r["instance"]: r["status"] for r in s} for s in rows]
assert all(s.get(new, "OK") in ("OK",) for s in seen), seen
EOF2
echo "ok"
