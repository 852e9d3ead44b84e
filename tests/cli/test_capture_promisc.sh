#!/bin/sh
# cli-run: exclusive (captures on interfaces the machine shares, promiscuous mode)
# Network Capture and other hosts' frames: a veth hands a capture every
# frame its peer sends, also unicast frames to another MAC (the kernel's
# PACKET_OTHERHOST), which a NIC would have filtered. COUNTERS.md 9: only
# --promisc adds them to Received. Sent to B from A: 3 frames to B's MAC
# and 5 to 02:99:00:00:00:01, 100 bytes each. Without --promisc B receives
# 3 (300 bytes) on the interface and on "any"; with it, 8 (800 bytes).
set -e
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
G=$GETCOUNTER
capture_needs

capture_tmp
nsa=gcma$$
nsb=gcmb$$
netns_add "$nsa"
netns_add "$nsb"
netns_veth "$nsa" "$nsb" "10.97.$(($$ % 250))"

# run NAME [OPTION]: capture B and any in nsb for 2 samples of 1 s while A
# sends the frames (to B's MAC, $mac_b, at the time), into $tmp/NAME.csv.
# With $newmac set, B takes that address once the capture runs.
run() {
	name=$1
	shift
	ip netns exec "$nsb" "$G" -i 1 -n 2 -f csv "$@" \
		"\\Network Capture($veth_b)\\Frames Received/sec" \
		"\\Network Capture($veth_b)\\Bytes Received/sec" \
		"\\Network Capture(any)\\Frames Received/sec" >"$tmp/$name.csv" 2>"$tmp/$name.err" &
	g=$!
	pids="$g"
	sleep 0.5
	if [ -n "${newmac:-}" ]; then
		ip -n "$nsb" link set "$veth_b" address "$newmac"
		mac_b=$newmac
	fi
	ip netns exec "$nsa" python3 "$here/capture_send.py" "$veth_a" "$mac_a" "$mac_b" flood 3 100
	ip netns exec "$nsa" python3 "$here/capture_send.py" "$veth_a" "$mac_a" 02:99:00:00:00:01 \
		flood 5 100
	wait "$g" || fail "the capture ($name) failed: $(cat "$tmp/$name.err")"
	pids=""
	cat "$tmp/$name.csv"
}

run plain
[ "$(csv_total "$tmp/plain.csv" "Frames Received/sec" "$veth_b")" = 3 ] ||
	fail "without --promisc, other hosts' frames were received on $veth_b"
[ "$(csv_total "$tmp/plain.csv" "Bytes Received/sec" "$veth_b")" = 300 ] ||
	fail "without --promisc, other hosts' bytes were received on $veth_b"
[ "$(csv_total "$tmp/plain.csv" "Frames Received/sec" any)" = 3 ] ||
	fail "without --promisc, other hosts' frames were received on any"

run promisc --promisc
[ "$(csv_total "$tmp/promisc.csv" "Frames Received/sec" "$veth_b")" = 8 ] ||
	fail "with --promisc, $veth_b did not receive the other hosts' frames"
[ "$(csv_total "$tmp/promisc.csv" "Bytes Received/sec" "$veth_b")" = 800 ] ||
	fail "with --promisc, $veth_b did not count the other hosts' bytes"
# B's address changes while the capture runs: frames to the new one are
# still B's own (the kernel's packet type decides, not the address at start)
newmac=02:00:00:00:00:42
run newmac
[ "$(csv_total "$tmp/newmac.csv" "Frames Received/sec" "$veth_b")" = 3 ] ||
	fail "after B's address changed, its own frames were not received"
exit 0
