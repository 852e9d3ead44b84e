#!/bin/sh
# The add-counter prompt: a prefix, Tab completes one part, a second Tab
# lists the candidates (filtered as one types), Enter adds; a bad path shows
# the command line's error text; d removes the selected series.
set -eu
. "$(dirname "$0")/lib.sh"

tui_start 100 30 "$utf8" --tui $roots "$P2"
wait_for "sample 1/11"
keys a
wait_for "add counter:"
type_text '\Network A'
keys Tab
wait_for 'add counter: \Network Adapter('
type_text 'e'
keys Tab
wait_for 'add counter: \Network Adapter(eth'
keys Tab
wait_for '  \Network Adapter(eth1)\'
screen | grep -qF '  \Network Adapter(eth0)\' || fail "the list lacks eth0: $(screen)"
type_text '1'
wait_gone '  \Network Adapter(eth0)\'
type_text ')\Bytes Total'
keys Tab
wait_for 'add counter: \Network Adapter(eth1)\Bytes Total/sec'
keys Enter
wait_for "added '\\Network Adapter(eth1)\\Bytes Total/sec': 1 series"
screen | grep -q '^b .*50000.00 .*eth1' || fail "eth1 was not added: $(screen)"
golden add-eth1

# a bad path: the command line's own error
"$GETCOUNTER" $roots '\Nope(x)\y' 2>"$W/cli.err" && fail "the command line took a bad path"
msg=$(sed 's/^getcounter: //' "$W/cli.err")
keys a
type_text '\Nope(x)\y'
keys Enter
wait_for "$msg"
# a wildcard past 32 series: the first ones are shown, and a message
keys a
type_text '\Network Adapter(*)\*'
keys Enter
wait_for "would make more than 32 series"
# Esc cancels
keys a
type_text '\Mem'
keys Escape
wait_gone "add counter:"
# d removes the selected series (b: eth1, added first)
keys Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up
keys Down
keys d
# the message names the path as the screen does: no "\\fixture"
wait_for "removed \\Network Adapter(eth1)\\Bytes Total/sec"
screen | grep -qF 'removed \\' && fail "the message names the machine: $(screen | tail -1)"
screen | grep -q "^b .*(eth1)" && fail "eth1 is still in the legend: $(screen)"
keys q
wait_rc 0

# removed with Delete and added back: the series returns (1 series)
tui_start 100 30 "$utf8" --tui $roots "$P2" "$P1"
wait_for "sample 1/11"
keys End
wait_for "sample 11/11"
keys DC
wait_for "removed \\Memory\\Available MBytes"
wait_gone "Available MBytes  "
screen | grep -q '^a ' && fail "a is still in the legend: $(screen)"
keys a
type_text "$P2"
keys Enter
wait_for "added '\\Memory\\Available MBytes': 1 series"
screen | grep -q '^a .*2100.00 .*\\Memory\\Available MBytes' || fail "a did not come back: $(screen)"
keys q
wait_rc 0

# live and recording: the added counter's values start with the next read,
# and the log continues with a new session that holds it
tui_start 100 30 "$utf8" --tui -i 0.1 --log "$W/add.gcl" '\Memory\Available MBytes'
wait_for "REC add.gcl"
keys a
type_text '\Memory\Committed Bytes'
keys Enter
wait_for "its values start with the next read"
wait_for "\\Memory\\Committed Bytes"
# the new session's first read only primes (a replay prints no row for
# it, as the screen showed no value): wait until the log holds a second
n=0
until "$GETCOUNTER" --input "$W/add.gcl" -f json '\Memory\Committed Bytes' 2>/dev/null |
	grep -q '"counter": "Committed Bytes", "value": [0-9]'; do
	n=$((n + 1))
	[ $n -lt 50 ] || break
	sleep 0.1
done
keys q
wait_rc 0
"$GETCOUNTER" --input "$W/add.gcl" --summary >"$W/sum"
grep -q "^Sessions *: 2" "$W/sum" || fail "not two sessions: $(cat "$W/sum")"
"$GETCOUNTER" --input "$W/add.gcl" -f json '\Memory\Committed Bytes' >"$W/add.json"
grep -q '"counter": "Committed Bytes", "value": [0-9]' "$W/add.json" ||
	fail "the log has no values of the added counter: $(tail -2 "$W/add.json")"
