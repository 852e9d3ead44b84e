#!/bin/sh
# The report view scrolls: samples/baseline.gcl at 80x24 has 48 report rows
# (32 series under their set and instance lines) on 21 screen rows; End,
# Home, PgDn, PgUp and Down move it, and the tab line says which rows show.
# At 80 columns the tab line does not overlap itself and the status line
# keeps its counts of values that are not OK.
set -eu
. "$(dirname "$0")/lib.sh"
B=$tui_dir/../../samples/baseline.gcl
[ -f "$B" ] || skip "no samples/baseline.gcl"

tui_start 80 24 "$utf8" --tui --input "$B"
wait_for "sample 1/11"
# the status line: "REPLAY paused  2023-11-14 22:30:02  sample 1/11  interval
# 2s  duration 2s  NO_INSTANCE 3  UNSUPPORTED 2" is 96 columns: the date
# and the duration give way, the counts stay whole
screen | sed -n 23p | grep -q "NO_INSTANCE 3  UNSUPPORTED 2 *$" ||
	fail "the status line lost its counts: $(screen | sed -n 23p)"
keys 3
wait_for "[Report]"
# 24 rows less the tab, status and message lines: 21 rows of 48
wait_for "rows 1-21 of 48"
screen | head -1 | grep -q "rows 1-21 of 48 *? keys   q quit$" || fail "tab line: $(screen | head -1)"
screen | grep -q "^PhysicalDisk" && fail "PhysicalDisk shows before scrolling: $(screen)"
keys End
wait_for "rows 28-48 of 48"
screen | grep -q "^PhysicalDisk" || fail "End does not show PhysicalDisk: $(screen)"
screen | grep -q "^Memory" || fail "End does not show Memory: $(screen)"
# the selected series (the last one) is on the screen, in reverse
screen -e | sed -n 22p | grep -q "$(printf '\033')\[7m.*Avg. Disk sec/Read" ||
	fail "the last series is not selected on the last row: $(screen -e | sed -n 22p | od -c | head)"
keys Home
wait_for "rows 1-21 of 48"
keys NPage
wait_for "rows 21-41 of 48"
keys PPage
wait_for "rows 1-21 of 48"
# Down past the last row scrolls so that the selection stays on screen
i=0
while [ $i -lt 24 ]; do keys Down; i=$((i + 1)); done
wait_gone "rows 1-21 of 48"
screen -e | grep -q "$(printf '\033')\[7m" || fail "the selection is off the screen: $(screen)"

# the histogram's tab line at 80 columns: bars, y axis and keys apart
keys 2 v v v Y
wait_for "bars: maximum (v)"
wait_for "y fitted"
screen | head -1 | grep -q "bars: maximum (v)  *y fitted  *? keys   q quit$" ||
	fail "tab line: $(screen | head -1)"
keys q
wait_rc 0
