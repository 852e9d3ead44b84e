#!/bin/sh
# cli-run: exclusive (captures on interfaces the machine shares, promiscuous mode)
# Network Capture of an interface that goes away mid-run: a veth pair in a
# namespace made here, deleted while getcounter captures both ends. The
# samples before count (OK, a number); after, both instances are gone, so
# their columns are empty (NO_INSTANCE, as Network Adapter's are) and never
# a made-up 0; one line per interface says the capture stopped, and the run
# ends normally (exit 0).
set -e
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
G=$GETCOUNTER
capture_needs

capture_tmp
ns=gcpg$$
netns_add "$ns"
a=gcga$$
b=gcgb$$

# capture_while NAME N CHANGE PATH...: a veth pair $a-$b, both up; the function
# CHANGE runs in the background while getcounter reads PATHs N times at
# 0.5 s into $tmp/NAME.csv (what it says: $tmp/NAME.err), which must end
# well (exit 0)
capture_while() {
	name=$1 n=$2 change=$3
	shift 3
	ip -n "$ns" link add "$a" type veth peer name "$b" || fail "cannot create a veth pair"
	ip -n "$ns" link set "$a" up
	ip -n "$ns" link set "$b" up
	$change &
	pids="$!"
	ip netns exec "$ns" "$G" -i 0.5 -n "$n" -f csv "$@" >"$tmp/$name.csv" 2>"$tmp/$name.err" &
	g=$!
	pids="$pids $g"
	wait "$g" || fail "the run failed ($name): $(cat "$tmp/$name.err")"
	wait
	pids=""
	cat "$tmp/$name.csv" "$tmp/$name.err"
}

# 6 samples of 0.5 s; the pair goes after 1.3 s (in the third interval)
deleted() {
	sleep 1.3
	ip -n "$ns" link del "$a"
}
capture_while gone 6 deleted "\\Network Capture($a)\\Frames Received/sec" \
	"\\Network Capture($b)\\Frames Sent/sec" "\\Network Adapter($a)\\Packets Received/sec"
for i in "$a" "$b"; do
	grep -q "capturing on $i stopped: " "$tmp/gone.err" ||
		fail "no line says the capture on $i stopped: $(cat "$tmp/gone.err")"
done
[ "$(wc -l <"$tmp/gone.err")" -eq 2 ] || fail "more than one line per interface: $(cat "$tmp/gone.err")"
# rows 2-3: before the deletion, numbers; the last 3 rows: every column empty
tr -d '\r' <"$tmp/gone.csv" | awk -F, -v f="$tmp/rows" '
	NR == 2 || NR == 3 { for (i = 2; i <= NF; i++) if ($i !~ /^"[0-9.]+"$/) bad = bad " " NR ":" i }
	NR >= 5 { for (i = 2; i <= NF; i++) if ($i != "\" \"") bad = bad " " NR ":" i }
	END { print NR; print bad > f }' >"$tmp/n"
[ "$(cat "$tmp/n")" -eq 7 ] || fail "wanted a header and 6 samples: $(cat "$tmp/gone.csv")"
[ -z "$(tr -d ' \n' <"$tmp/rows")" ] || fail "cells not as expected (row:column):$(cat "$tmp/rows")"
# an interface that goes down, then away: the kernel tells the capture's
# socket only of the first (ENETDOWN, while the interface is still there),
# so the capture notices the deletion itself, at the next read
down_deleted() {
	sleep 0.8
	ip -n "$ns" link set "$a" down
	sleep 0.8
	ip -n "$ns" link del "$a"
}
capture_while down 5 down_deleted "\\Network Capture($a)\\Frames Received/sec"
grep -q "capturing on $a stopped: The interface disappeared" "$tmp/down.err" ||
	fail "an interface down, then deleted: no line says the capture stopped: $(cat "$tmp/down.err")"
[ "$(tr -d '\r' <"$tmp/down.csv" | sed -n 6p | cut -d, -f2)" = '" "' ] ||
	fail "an interface down, then deleted: the last sample is not empty: $(cat "$tmp/down.csv")"
# down, then up again: not gone; its socket counts again. 5 frames of 100
# bytes are sent to it once it is back up (IPv6 on the link may add its
# own: at least 5 in all, then)
here=$(dirname "$0")
down_up() {
	sleep 0.8
	ip -n "$ns" link set "$b" down
	sleep 0.6
	ip -n "$ns" link set "$b" up
	sleep 0.5
	ip netns exec "$ns" python3 "$here/capture_send.py" "$a" 02:99:00:00:00:02 \
		"$(ip netns exec "$ns" cat "/sys/class/net/$b/address")" flood 5 100
}
capture_while up 6 down_up "\\Network Capture($b)\\Frames Received/sec"
[ ! -s "$tmp/up.err" ] || fail "an interface down, then up: $(cat "$tmp/up.err")"
# frames counted: each sample's Frames Received/sec x its 0.5 s, summed
frames=$(tr -d '\r' <"$tmp/up.csv" | awk -F, 'NR >= 2 { gsub(/"/, "", $2); n += $2 * 0.5 } END { printf "%.0f", n }')
[ "$frames" -ge 5 ] || fail "an interface down, then up: $frames frames counted after it came up: $(cat "$tmp/up.csv")"
ip -n "$ns" link del "$a"
# a named interface that is not there, or not up, has no instance either
# (one line each says why) and the run goes on with the other counters
ip -n "$ns" link add "$a" type veth peer name "$b"
expect_exit 0 ip netns exec "$ns" "$G" -n 1 -i 0.3 -f csv "\\Network Capture(nosuch$$)\\Frames Received/sec" \
	"\\Network Capture($a)\\Frames Received/sec" '\Memory\Available Bytes'
case $errout in
*"capturing on nosuch$$: no such interface: its counters have no instance"*"capturing on $a: the interface is not up"*) ;;
*) fail "a missing and a down interface: '$errout'" ;;
esac
row=$(printf '%s\n' "$out" | sed -n 2p | tr -d '\r')
case $row in *'," "," ","'[0-9]*) ;; *) fail "a missing and a down interface, values: $row" ;; esac
# a wildcard never stands for any (every interface again), even when a
# path names any: (*) is each interface once (lo, up, here)
ip -n "$ns" link set lo up
expect_exit 0 ip netns exec "$ns" "$G" -n 1 -i 0.3 -f csv '\Network Capture(*)\Frames Received/sec' \
	'\Network Capture(any)\Frames Sent/sec'
hdr=$(printf '%s\n' "$out" | head -1)
case $hdr in *'Network Capture(any)\Frames Received/sec'*) fail "(*) stood for any: $hdr" ;; esac
case $hdr in *'Network Capture(any)\Frames Sent/sec'*) ;; *) fail "(any) named, not shown: $hdr" ;; esac
case $hdr in *'Network Capture(lo)\Frames Received/sec'*) ;; *) fail "(*) without lo: $hdr" ;; esac
# names match case-insensitively, as in every set: LO is lo, ANY is any
expect_exit 0 ip netns exec "$ns" "$G" -n 1 -i 0.3 -f csv '\Network Capture(LO)\Frames Received/sec' \
	'\Network Capture(ANY)\Frames Received/sec'
case $errout in *"no such interface"*) fail "LO or ANY not found: $errout" ;; esac
[ "$(printf '%s\n' "$out" | sed -n 2p | tr -d '\r' | grep -c '" "')" -eq 0 ] ||
	fail "LO or ANY without a value: $out"
exit 0
