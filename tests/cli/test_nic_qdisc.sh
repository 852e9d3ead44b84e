#!/bin/sh
# Output Queue Length and Output Queue Bytes (Network Adapter).
#
# Under --root (the nic-sysfs fixture): Output Queue Length is UNSUPPORTED
# (qdiscs come from netlink only) and Output Queue Bytes sums the fixture's
# byte_queue_limits/inflight files: eth0 t1 4542 + 1514 + 0 + 0 = 6056.
#
# Live, on a veth pair between two network namespaces this test creates
# (gc-q-PID-tx holds end B with 4 transmit queues, gc-q-PID-rx end A; IPv6
# off, static neighbours, so the only frames are ours):
#   - B idle with its default noqueue: Output Queue Length 0;
#   - Output Queue Bytes of B is UNSUPPORTED when the kernel gives veth no
#     byte_queue_limits (6.8+), else the sum of its inflight files; an ifb
#     device (BQL, never used here) shows 0 = its inflight files;
#   - tbf as B's root qdisc at 1 kbit/s (burst 1600: one datagram passes,
#     the next would wait 4 s): a burst of N = 60 datagrams of 1000 bytes
#     (N x 1042 = 62520 bytes, below the 100000-byte limit) stays queued,
#     so Output Queue Length must equal the root's packet backlog that
#     `tc -s qdisc show` gives just before and after (unchanged), and be in
#     (0, N]; then the rate is raised to 100 Mbit/s: drained, 0;
#   - mq root with such a tbf under each of its 4 classes (the datagrams
#     spread over the queues): Output Queue Length, read from the mq root
#     alone, equals the sum of the 4 children's backlogs in tc (the kernel
#     sums them into the root); raised, drained: 0;
#   - root qdisc deleted (noqueue again): 0.
# Skips (77) only when `ip netns add` is refused; a sub-check the kernel
# refuses (no tbf, no mq, no ifb) is skipped with a message.
set -eu
. "$(dirname "$0")/lib.sh"

[ -n "${GETCOUNTER:-}" ] && [ -x "$GETCOUNTER" ] ||
	skip "no getcounter binary (GETCOUNTER unset or not built)"
command -v ip >/dev/null 2>&1 || fail "no ip command: install iproute2"
command -v tc >/dev/null 2>&1 || fail "no tc command: install iproute2"

# cell JSONLINE INSTANCE COUNTER: "STATUS VALUE" of that cell.
cell() {
	printf '%s\n' "$1" | sed 's/{"path"/\n{"path"/g' |
		grep -F "\"instance\": \"$2\", \"counter\": \"$3\"" |
		sed 's/.*"value": \([^,]*\), "status": "\([A-Z_]*\)".*/\2 \1/'
}

# --- under --root --------------------------------------------------------
fx=${FIXTURES:-$(dirname "$0")/../fixtures}/nic-sysfs
out=$("$GETCOUNTER" --root "$fx/t0" --root "$fx/t1" -f json \
	'\Network Adapter(eth0)\Output Queue Length' \
	'\Network Adapter(eth0)\Output Queue Bytes') || fail "getcounter --root failed"
got=$(cell "$out" eth0 "Output Queue Length")
[ "$got" = "UNSUPPORTED null" ] || fail "--root Output Queue Length: '$got', wanted UNSUPPORTED"
got=$(cell "$out" eth0 "Output Queue Bytes")
[ "$got" = "OK 6056" ] || fail "--root Output Queue Bytes: '$got', wanted OK 6056"
echo "--root: Output Queue Length UNSUPPORTED, Output Queue Bytes 6056"

# --- live ----------------------------------------------------------------
nsr=gc-q-$$-rx
nst=gc-q-$$-tx
a=gcqa$$
b=gcqb$$
ifb=gcqi$$
net=10.214.$(($$ % 250))
count=60
payload=1000

cleanup() {
	ip netns del "$nsr" 2>/dev/null || true
	ip netns del "$nst" 2>/dev/null || true
	rm -f "${tmp:-}"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
tmp=$(mktemp)

if ! ip netns add "$nsr" 2>"$tmp"; then
	skip "ip netns add refused here: $(cat "$tmp")"
fi
ip netns add "$nst"
for ns in "$nsr" "$nst"; do
	ip netns exec "$ns" sh -c 'for f in /proc/sys/net/ipv6/conf/default/disable_ipv6 \
		/proc/sys/net/ipv6/conf/all/disable_ipv6; do [ -w $f ] && echo 1 >$f; done; :'
done
ip -n "$nst" link add "$b" numtxqueues 4 type veth peer name "$a" netns "$nsr"
ip -n "$nsr" addr add "$net.1/24" dev "$a"
ip -n "$nst" addr add "$net.2/24" dev "$b"
ip -n "$nsr" link set "$a" up
ip -n "$nst" link set "$b" up
ip -n "$nst" link set lo up
maca=$(ip netns exec "$nsr" cat "/sys/class/net/$a/address")
macb=$(ip netns exec "$nst" cat "/sys/class/net/$b/address")
ip -n "$nst" neigh replace "$net.1" lladdr "$maca" dev "$b" nud permanent
ip -n "$nsr" neigh replace "$net.2" lladdr "$macb" dev "$a" nud permanent

# burst [N]: N (default count) datagrams of payload bytes from B to A's
# closed port, at once.
if command -v bash >/dev/null 2>&1; then
	burst() {
		ip netns exec "$nst" bash -c 'for i in $(seq '"${1:-$count}"'); do
			printf "%'"$payload"'s" "" >/dev/udp/'"$net"'.1/9; done'
	}
elif command -v python3 >/dev/null 2>&1; then
	burst() {
		ip netns exec "$nst" python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range('"${1:-$count}"'):
    s.sendto(b"x" * '"$payload"', ("'"$net"'.1", 9))'
	}
else
	fail "neither bash nor python3 to send the datagrams"
fi

# snapshot COUNTER IF: "STATUS VALUE" of one live read in the sender's netns.
snapshot() {
	o=$(ip netns exec "$nst" "$GETCOUNTER" -n 1 -i 0.1 -f json \
		"\\Network Adapter($2)\\$1") || fail "getcounter failed: $o"
	cell "$o" "$2" "$1"
}

# inflight_sum IF: the sum of IF's byte_queue_limits/inflight, or "none".
inflight_sum() {
	ip netns exec "$nst" sh -c 'n=none
		for f in /sys/class/net/'"$1"'/queues/tx-*/byte_queue_limits/inflight; do
			[ -r "$f" ] || continue
			[ "$n" = none ] && n=0
			n=$((n + $(cat "$f")))
		done; echo $n'
}

# tc_backlog: "ROOT CHILDREN": packets queued in B's root qdisc and in the
# qdiscs under it, from tc -s.
tc_backlog() {
	tc -n "$nst" -s qdisc show dev "$b" | awk '
		/^qdisc/ { root = ($0 ~ / root /) }
		/backlog/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+p$/) {
				n = $i; sub(/p$/, "", n); if (root) r += n; else c += n } }
		END { printf "%d %d\n", r, c }'
}

# held_check WHAT SPEEDUP: send the burst into B's held queue; Output Queue
# Length must equal tc's backlog (root, and for mq the children's sum) read
# just before and after; then run SPEEDUP (raise the rates): 0 once drained.
held_check() {
	burst || fail "$1: the burst failed"
	sleep 0.2
	for _ in 1 2 3; do
		before=$(tc_backlog)
		got=$(snapshot "Output Queue Length" "$b")
		after=$(tc_backlog)
		[ "$before" = "$after" ] && break
		echo "$1: the queue moved during the read ($before, $after), again"
	done
	[ "$before" = "$after" ] || fail "$1: the queue would not hold still"
	root=${before% *}
	children=${before#* }
	echo "$1: Output Queue Length '$got'; tc: root $root packets, children $children"
	[ "$got" = "OK $root" ] || fail "$1: Output Queue Length '$got', tc's root backlog $root"
	if [ "$root" -le 0 ] || [ "$root" -gt "$count" ]; then
		fail "$1: $root queued of $count sent"
	fi
	if [ "$2" = mq ]; then
		[ "$root" -eq "$children" ] ||
			fail "$1: mq root $root is not the sum of its children $children"
	fi
	speedup
	# tbf's timer still waits for the old rate: one more datagram makes
	# the qdisc run now
	burst 1 || fail "$1: the kick failed"
	for _ in $(seq 30); do
		sleep 0.2
		[ "$(tc_backlog)" = "0 0" ] && break
	done
	got=$(snapshot "Output Queue Length" "$b")
	[ "$got" = "OK 0" ] || fail "$1: drained, Output Queue Length '$got', wanted OK 0"
	echo "$1: drained, Output Queue Length 0"
}

# noqueue, idle: 0.
tc -n "$nst" qdisc show dev "$b"
got=$(snapshot "Output Queue Length" "$b")
[ "$got" = "OK 0" ] || fail "noqueue Output Queue Length: '$got', wanted OK 0"
got=$(snapshot "Output Queue Length" lo)
[ "$got" = "OK 0" ] || fail "lo Output Queue Length: '$got', wanted OK 0"
echo "noqueue: Output Queue Length 0"

# BQL on veth?
want=$(inflight_sum "$b")
got=$(snapshot "Output Queue Bytes" "$b")
if [ "$want" = none ]; then
	[ "$got" = "UNSUPPORTED null" ] ||
		fail "veth without byte_queue_limits: Output Queue Bytes '$got', wanted UNSUPPORTED"
	echo "veth has no byte_queue_limits: Output Queue Bytes UNSUPPORTED"
else
	[ "$got" = "OK $want" ] || fail "veth Output Queue Bytes '$got', sysfs sum $want"
	echo "veth has byte_queue_limits: Output Queue Bytes $want"
fi
# an ifb device has byte_queue_limits, idle here: 0.
if ip -n "$nst" link add "$ifb" type ifb 2>"$tmp"; then
	want=$(inflight_sum "$ifb")
	got=$(snapshot "Output Queue Bytes" "$ifb")
	if [ "$want" = none ]; then
		[ "$got" = "UNSUPPORTED null" ] || fail "ifb Output Queue Bytes '$got', no BQL"
		echo "ifb has no byte_queue_limits here: UNSUPPORTED"
	else
		[ "$got" = "OK $want" ] || fail "ifb Output Queue Bytes '$got', sysfs sum $want"
		echo "ifb: Output Queue Bytes $got = sysfs sum $want"
	fi
else
	echo "skipped the ifb check: $(cat "$tmp")"
fi

# tbf root at 1 kbit/s: the burst waits in it.
held="rate 1kbit burst 1600 limit 100000"
fast="rate 100mbit burst 1600 limit 100000"
# shellcheck disable=SC2086
if tc -n "$nst" qdisc add dev "$b" root tbf $held 2>"$tmp"; then
	speedup() {
		# shellcheck disable=SC2086
		tc -n "$nst" qdisc change dev "$b" root tbf $fast
	}
	held_check "tbf root" tbf
	tc -n "$nst" qdisc del dev "$b" root
else
	echo "skipped the tbf check: $(cat "$tmp")"
fi

# mq root, a held tbf per queue: the root's qlen holds its children's.
if tc -n "$nst" qdisc add dev "$b" root handle 1: mq 2>"$tmp"; then
	for i in 1 2 3 4; do
		# shellcheck disable=SC2086
		tc -n "$nst" qdisc replace dev "$b" parent "1:$i" tbf $held
	done
	tc -n "$nst" qdisc show dev "$b"
	speedup() {
		for i in 1 2 3 4; do
			# shellcheck disable=SC2086
			tc -n "$nst" qdisc change dev "$b" parent "1:$i" tbf $fast
		done
	}
	held_check "mq root" mq
	tc -n "$nst" qdisc del dev "$b" root
else
	echo "skipped the mq check: $(cat "$tmp")"
fi

# back to noqueue: 0.
got=$(snapshot "Output Queue Length" "$b")
[ "$got" = "OK 0" ] || fail "after deleting the root: '$got', wanted OK 0"
echo "ok"
