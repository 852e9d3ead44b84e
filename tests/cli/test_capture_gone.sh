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
ip -n "$ns" link add "$a" type veth peer name "$b" || fail "cannot create a veth pair"
ip -n "$ns" link set "$a" up
ip -n "$ns" link set "$b" up

# 6 samples of 0.5 s; the pair goes after 1.3 s (in the third interval)
(sleep 1.3; ip -n "$ns" link del "$a") &
pids="$!"
ip netns exec "$ns" "$G" -i 0.5 -n 6 -f csv "\\Network Capture($a)\\Frames Received/sec" \
	"\\Network Capture($b)\\Frames Sent/sec" "\\Network Adapter($a)\\Packets Received/sec" \
	>"$tmp/gone.csv" 2>"$tmp/gone.err" &
g=$!
pids="$pids $g"
wait "$g" || fail "the run failed when its interfaces went: $(cat "$tmp/gone.err")"
pids=""
cat "$tmp/gone.csv" "$tmp/gone.err"
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
ip -n "$ns" link add "$a" type veth peer name "$b"
ip -n "$ns" link set "$a" up
ip -n "$ns" link set "$b" up
(sleep 0.8; ip -n "$ns" link set "$a" down; sleep 0.8; ip -n "$ns" link del "$a") &
pids="$!"
ip netns exec "$ns" "$G" -i 0.5 -n 5 -f csv "\Network Capture($a)\Frames Received/sec" \
	>"$tmp/down.csv" 2>"$tmp/down.err" &
g=$!
pids="$pids $g"
wait "$g" || fail "the run failed when its interface went down, then away: $(cat "$tmp/down.err")"
wait
pids=""
cat "$tmp/down.csv" "$tmp/down.err"
grep -q "capturing on $a stopped: The interface disappeared" "$tmp/down.err" ||
	fail "an interface down, then deleted: no line says the capture stopped: $(cat "$tmp/down.err")"
[ "$(tr -d '\r' <"$tmp/down.csv" | sed -n 6p | cut -d, -f2)" = '" "' ] ||
	fail "an interface down, then deleted: the last sample is not empty: $(cat "$tmp/down.csv")"
# down, then up again: not gone; its socket counts again. 5 frames of 100
# bytes are sent to it once it is back up (IPv6 on the link may add its
# own: at least 5 in all, then)
ip -n "$ns" link add "$a" type veth peer name "$b"
ip -n "$ns" link set "$a" up
ip -n "$ns" link set "$b" up
mac_b=$(ip netns exec "$ns" cat "/sys/class/net/$b/address")
(sleep 0.8; ip -n "$ns" link set "$b" down; sleep 0.6; ip -n "$ns" link set "$b" up; sleep 0.5
	ip netns exec "$ns" python3 "$(dirname "$0")/capture_send.py" "$a" 02:99:00:00:00:02 "$mac_b" \
		flood 5 100) &
pids="$!"
ip netns exec "$ns" "$G" -i 0.5 -n 6 -f csv "\\Network Capture($b)\\Frames Received/sec" \
	>"$tmp/up.csv" 2>"$tmp/up.err" &
g=$!
pids="$pids $g"
wait "$g" || fail "the run failed when its interface went down and up: $(cat "$tmp/up.err")"
wait
pids=""
cat "$tmp/up.csv" "$tmp/up.err"
[ ! -s "$tmp/up.err" ] || fail "an interface down, then up: $(cat "$tmp/up.err")"
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
