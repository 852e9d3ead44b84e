# Helpers for the shell tests: . "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
# expect_exit CODE CMD...: runs CMD, checks its exit status; output in $out, stderr in $errout
expect_exit() {
	want=$1; shift
	errfile=$(mktemp)
	set +e
	out=$("$@" 2>"$errfile")
	got=$?
	set -e
	errout=$(cat "$errfile"); rm -f "$errfile"
	[ "$got" -eq "$want" ] || fail "exit $got, wanted $want: $* :: $errout"
}
# close_to A B TOLERANCE: |A - B| <= TOLERANCE
close_to() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}
# Network namespaces for the live tests: netns_add NS creates NS and lists it
# in $netns_made (before creating it, so a signal in between still cleans
# up); the first refusal skips (77: not root, no CONFIG_NET_NS), a later one
# fails. netns_cleanup deletes them all: call it from the test's EXIT trap
# after killing the test's processes in them (a veth goes with its namespace
# once no process is left in it).
netns_made=""
netns_add() {
	made_before=$netns_made
	netns_made="$netns_made $1"
	nserr=$(ip netns add "$1" 2>&1) && return 0
	[ -n "$made_before" ] || skip "ip netns add refused here: $nserr"
	fail "ip netns add $1: $nserr"
}
# netns_cleanup: deletes every namespace netns_add made.
netns_cleanup() {
	for ns in $netns_made; do
		ip netns del "$ns" 2>/dev/null || true
	done
	netns_made=""
}
# netns_left PREFIX: prints the namespaces named PREFIX* that still exist.
netns_left() {
	ip netns list | awk -v p="$1" 'index($1, p) == 1 { print $1 }'
}
# netns_veth NSA NSB NET: a veth pair between the (made) namespaces NSA and
# NSB: end $veth_a (NET.1/24) in NSA, $veth_b (NET.2/24) in NSB, both up with
# lo, IPv6 off, RPS off on both ends (a frame is received on the CPU that sent
# it) and static neighbours, so the only frames on the link are the test's.
netns_veth() {
	veth_a=gcva$$
	veth_b=gcvb$$
	for ns in "$1" "$2"; do
		ip netns exec "$ns" sh -c 'for f in /proc/sys/net/ipv6/conf/default/disable_ipv6 \
			/proc/sys/net/ipv6/conf/all/disable_ipv6; do [ -w $f ] && echo 1 >$f; done; :'
	done
	ip link add "$veth_a" netns "$1" type veth peer name "$veth_b" netns "$2" ||
		fail "cannot create a veth pair between $1 and $2"
	ip -n "$1" addr add "$3.1/24" dev "$veth_a"
	ip -n "$2" addr add "$3.2/24" dev "$veth_b"
	for ns in "$1:$veth_a" "$2:$veth_b"; do
		ip -n "${ns%%:*}" link set lo up
		ip -n "${ns%%:*}" link set "${ns#*:}" up
		ip netns exec "${ns%%:*}" sh -c 'for f in /sys/class/net/'"${ns#*:}"'/queues/rx-*/rps_cpus
			do [ -w $f ] && echo 0 >$f; done; :'
	done
	mac_a=$(ip netns exec "$1" cat "/sys/class/net/$veth_a/address")
	mac_b=$(ip netns exec "$2" cat "/sys/class/net/$veth_b/address")
	ip -n "$1" neigh replace "$3.2" lladdr "$mac_b" dev "$veth_a" nud permanent
	ip -n "$2" neigh replace "$3.1" lladdr "$mac_a" dev "$veth_b" nud permanent
}
