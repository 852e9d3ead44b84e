# Helpers for the Network Capture tests: . "$(dirname "$0")/capture_lib.sh"
# after lib.sh.

# capture_needs: skip unless root, python3 and the set built in.
capture_needs() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (namespaces and CAP_NET_RAW)"
	command -v python3 >/dev/null 2>&1 || skip "needs python3 for the AF_PACKET sender"
	if "$GETCOUNTER" -l 'Network Capture' | grep -q 'Not built in'; then
		skip "Network Capture is not built in (no libpcap-dev)"
	fi
}

# csv_total FILE COUNTER [INSTANCE]: the sum over the samples of FILE (a -f
# csv output at -i 1) of COUNTER's value x 1 s, rounded: the count of the
# run. With INSTANCE, only that instance's column.
csv_total() {
	awk -F, -v c="$2" -v inst="${3:-}" '
	NR == 1 {
		for (i = 1; i <= NF; i++) {
			f = $i; gsub(/["\r]/, "", f)
			tail = "\\" c
			if (substr(f, length(f) - length(tail) + 1) == tail &&
			    (inst == "" || index(f, "(" inst ")")))
				col = i
		}
		next
	}
	{ v = $col; gsub(/["\r]/, "", v); if (v != " ") sum += v }
	END { if (!col) { print "nocolumn"; exit } printf "%.0f\n", sum }' "$1"
}

# csv_max FILE COUNTER: the largest value COUNTER shows in FILE.
csv_max() {
	awk -F, -v c="$2" '
	NR == 1 {
		for (i = 1; i <= NF; i++) {
			f = $i; gsub(/["\r]/, "", f)
			tail = "\\" c
			if (substr(f, length(f) - length(tail) + 1) == tail) col = i
		}
		next
	}
	{ v = $col; gsub(/["\r]/, "", v); if (v != " " && v + 0 > m) m = v + 0 }
	END { if (!col) { print "nocolumn"; exit } print m + 0 }' "$1"
}

# expect_total FILE COUNTER WANT [INSTANCE]
expect_total() {
	got=$(csv_total "$1" "$2" "${4:-}")
	[ "$got" = "$3" ] || fail "$(basename "$1"): $2 totals $got, want $3"
}

# The mix capture_send.py sends (its items 1-9), worked out once:
#   frames  3 + 2 + 2 + 2 + 1 + 2 + 1 + 2 + 1 = 16
#   bytes   3x100 + 2x60 + 2x200 + 2x118 + 86 + 2x120 + 150 + 2x64 + 90 = 1750
#   directed  items 1,4,6,7,8: 3 + 2 + 2 + 1 + 2 = 10 frames,
#             300 + 236 + 240 + 150 + 128 = 1054 bytes
#   multicast items 3,5,9: 2 + 1 + 1 = 4 frames, 400 + 86 + 90 = 576 bytes
#   broadcast item 2: 2 frames, 120 bytes  (10 + 4 + 2 = 16, 1054 + 576 + 120 = 1750)
#   IPv4 items 1,3,6: 3 + 2 + 2 = 7; IPv6 items 4,5,7,9: 2 + 1 + 1 + 1 = 5;
#   ARP 2; Other (0x88b5) 2: 7 + 5 + 2 + 2 = 16
#   TCP item 6: 2; UDP items 1,3,7: 3 + 2 + 1 = 6; ICMP items 4,5,9: 2 + 1 + 1 = 4
# expect_mix FILE DIR [INSTANCE]: FILE counted the mix in direction DIR
# (Received or Sent) and nothing in the other.
expect_mix() {
	d=$2
	if [ "$d" = Received ]; then o=Sent; else o=Received; fi
	expect_total "$1" "Frames $d/sec" 16 "${3:-}"
	expect_total "$1" "Bytes $d/sec" 1750 "${3:-}"
	expect_total "$1" "Directed Frames $d/sec" 10 "${3:-}"
	expect_total "$1" "Multicast Frames $d/sec" 4 "${3:-}"
	expect_total "$1" "Broadcast Frames $d/sec" 2 "${3:-}"
	expect_total "$1" "Directed Bytes $d/sec" 1054 "${3:-}"
	expect_total "$1" "Multicast Bytes $d/sec" 576 "${3:-}"
	expect_total "$1" "Broadcast Bytes $d/sec" 120 "${3:-}"
	expect_total "$1" "Packets $d Unicast/sec" 10 "${3:-}"
	expect_total "$1" "Packets $d Non-Unicast/sec" 6 "${3:-}"
	expect_total "$1" "Frames $o/sec" 0 "${3:-}"
	expect_total "$1" "Bytes $o/sec" 0 "${3:-}"
	expect_total "$1" "IPv4 Packets/sec" 7 "${3:-}"
	expect_total "$1" "IPv6 Packets/sec" 5 "${3:-}"
	expect_total "$1" "ARP Packets/sec" 2 "${3:-}"
	expect_total "$1" "Other Frames/sec" 2 "${3:-}"
	expect_total "$1" "TCP Segments/sec" 2 "${3:-}"
	expect_total "$1" "UDP Datagrams/sec" 6 "${3:-}"
	expect_total "$1" "ICMP Messages/sec" 4 "${3:-}"
}

# capture_tmp: a temporary directory $tmp, and an EXIT trap that stops the
# processes in $pids (continuing stopped ones first), deletes the
# namespaces netns_add made and $tmp, whether the test passes or fails.
capture_tmp() {
	tmp=$(mktemp -d)
	pids=""
	trap capture_cleanup EXIT
	trap 'exit 1' INT TERM
}
capture_cleanup() {
	for p in $pids; do
		kill -CONT "$p" 2>/dev/null || true
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	netns_cleanup
	rm -rf "$tmp"
}
