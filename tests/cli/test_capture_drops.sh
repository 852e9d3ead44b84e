#!/bin/sh
# cli-run: exclusive (captures on interfaces the machine shares, promiscuous mode)
# Network Capture drops: a capture with a 1 MiB buffer is stopped
# (SIGSTOP) while 20000 frames of 1000 bytes (20 MB) leave a veth, so the
# kernel must drop most of them; Capture Dropped shows it in every sample,
# and on the sending end (where the capture sees every frame the socket
# sent, before any queue) counted + dropped = 20000 exactly. On "any",
# Interface Dropped is UNSUPPORTED.
set -e
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
G=$GETCOUNTER
capture_needs

capture_tmp
nsa=gcda$$
nsb=gcdb$$
netns_add "$nsa"
netns_add "$nsb"
netns_veth "$nsa" "$nsb" "10.96.$(($$ % 250))"

ip netns exec "$nsa" "$G" "\\Network Capture($veth_a)\\Frames Sent/sec" \
	"\\Network Capture($veth_a)\\Capture Dropped" "\\Network Capture($veth_a)\\Interface Dropped" \
	--capture-buffer 1M -i 1 -n 5 -f csv >"$tmp/d.csv" 2>"$tmp/d.err" &
p=$!
pids=$p
sleep 1.3
kill -STOP "$p"
ip netns exec "$nsa" python3 "$(dirname "$0")/capture_send.py" "$veth_a" "$mac_a" "$mac_b" \
	flood 20000 1000
kill -CONT "$p"
wait "$p" || fail "the capture failed: $(cat "$tmp/d.err")"
pids=""

rows=$(awk 'NR > 1' "$tmp/d.csv" | wc -l)
[ "$rows" -eq 5 ] || fail "$rows samples, want 5"
# a value in every sample (RAW: no empty cell)
if awk -F, 'NR > 1 && ($3 ~ /" "/ || $4 ~ /" "/)' "$tmp/d.csv" | grep -q .; then
	fail "a sample without drops: $(cat "$tmp/d.csv")"
fi
sent=$(csv_total "$tmp/d.csv" "Frames Sent/sec")
dropped=$(csv_max "$tmp/d.csv" "Capture Dropped")
[ "$dropped" -gt 0 ] || fail "nothing dropped from a 1 MiB buffer: sent $sent"
# every frame is either counted or dropped: 20000
[ $((sent + dropped)) -eq 20000 ] || fail "counted $sent + dropped $dropped != 20000"
# a veth has no rx_missed or rx_fifo errors
[ "$(csv_max "$tmp/d.csv" "Interface Dropped")" = 0 ] || fail "interface drops on a veth"

# on "any" no interface's statistics stand for the capture: Interface
# Dropped is UNSUPPORTED (an empty cell, " "), not 0, while Capture
# Dropped is a number in every sample
ip netns exec "$nsb" "$G" '\Network Capture(any)\Capture Dropped' \
	'\Network Capture(any)\Interface Dropped' -i 0.5 -n 2 -f csv >"$tmp/any.csv" 2>"$tmp/any.err" ||
	fail "capturing on any failed: $(cat "$tmp/any.err")"
[ "$(awk -F, '{ sub(/\r$/, "") } NR > 1 && $2 ~ /^"[0-9]+(\.0*)?"$/ && $3 == "\" \""' "$tmp/any.csv" | wc -l)" -eq 2 ] ||
	fail "any: want Capture Dropped numbers and Interface Dropped UNSUPPORTED: $(cat "$tmp/any.csv")"
exit 0
