#!/bin/sh
# Statuses: eth0's counter falls at sample 6 (RESET, a gap in its line, a
# RESET 1 on the status line); eth1 is gone at sample 8 (NO_INSTANCE 1),
# then has no row (a gap). The graph at sample 8 is compared whole.
set -eu
. "$(dirname "$0")/lib.sh"

tui_start 100 30 "$utf8" --tui $roots "$P3"
wait_for "sample 1/11"
keys Right Right Right Right Right
wait_for "sample 6/11"
screen | grep -q "RESET 1" || fail "no RESET 1 at sample 6: $(screen | tail -2)"
screen | grep -q "^b .* - .*RESET .*eth0" || fail "eth0's Last is not a gap at sample 6: $(screen)"
keys Right Right
wait_for "sample 8/11"
screen | grep -q "NO_INSTANCE 1" || fail "no NO_INSTANCE 1 at sample 8: $(screen | tail -2)"
golden statuses-sample8
keys End
wait_for "sample 11/11"
screen | grep -qE "NO_INSTANCE|RESET" && fail "statuses still counted at sample 11"
keys q
wait_rc 0

# with --log the status line is longer ("REPLAY paused  2023-11-14 22:30:12
# sample 6/11  interval 2s  duration 12s  REC a-long-recording-name.gcl
# 4.4 KiB  RESET 1" is over 100 columns): the file name, the duration and
# the date give way before the counts, at 100x30 and at 80x24
for size in "100 30" "80 24"; do
	set -- $size
	rm -f "$W/a-long-recording-name.gcl"
	tui_start "$1" "$2" "$utf8" --tui $roots --log "$W/a-long-recording-name.gcl" "$P1" "$P2" "$P3"
	wait_for "sample 1/11"
	keys Right Right Right Right Right
	wait_for "sample 6/11"
	screen | sed -n "$(($2 - 1))p" | grep -q "REC [0-9.]* KiB  RESET 1 *$" ||
		fail "${1}x$2: RESET 1 is not whole: $(screen | sed -n "$(($2 - 1))p")"
	keys Right Right
	wait_for "sample 8/11"
	screen | sed -n "$(($2 - 1))p" | grep -q "REC [0-9.]* KiB  NO_INSTANCE 1 *$" ||
		fail "${1}x$2: NO_INSTANCE 1 is not whole: $(screen | sed -n "$(($2 - 1))p")"
	keys q
	wait_rc 0
done
