#!/bin/sh
# The graph view and its legend, at 100x30 and 80x24, against golden
# screens; the legend's Last/Average/Minimum/Maximum against the csv replay
# of the same log.
set -eu
. "$(dirname "$0")/lib.sh"

# a log of the series, recorded by the command line
"$GETCOUNTER" $roots -o "$W/s.gcl" "$P1" "$P2" "$P3"

tui_start 100 30 "$utf8" --tui --input "$W/s.gcl"
wait_for "sample 1/11"
keys End
wait_for "sample 11/11"
golden graph-100x30
keys q
wait_rc 0

# the legend's numbers are the csv's: per column, the last value and the
# average, minimum and maximum of the values shown (a " " is no value)
tui_start 100 30 "$utf8 NO_COLOR=1" --tui --input "$W/s.gcl"
wait_for "sample 1/11"
keys End
wait_for "sample 11/11"
screen >"$W/end.txt"
"$GETCOUNTER" --input "$W/s.gcl" -f csv >"$W/s.csv"
# legend rows: letter, scale, last, average, minimum, maximum, status, path
awk '/^[a-f]  x/ { print $3, $4, $5, $6 }' "$W/end.txt" >"$W/legend"
[ "$(wc -l <"$W/legend")" -eq 6 ] || fail "legend rows: $(cat "$W/end.txt")"
awk -F'","' 'NR > 1 { for (c = 2; c <= NF; c++) { v = $c; gsub(/"/, "", v)
		last[c] = v; if (v == " ") continue; n[c]++; s[c] += v
		if (n[c] == 1 || v < lo[c]) lo[c] = v; if (n[c] == 1 || v > hi[c]) hi[c] = v } nc = NF }
	END { for (c = 2; c <= nc; c++) {
		l = last[c] == " " ? "-" : sprintf("%.2f", last[c])
		printf "%s %.2f %.2f %.2f\n", l, s[c] / n[c], lo[c], hi[c] } }' "$W/s.csv" >"$W/csv"
diff -u "$W/csv" "$W/legend" || fail "legend and csv differ"
keys q
wait_rc 0

tui_start 80 24 "$utf8" --tui $roots "$P1" "$P2" "$P3"
wait_for "sample 1/11"
keys End
wait_for "sample 11/11"
golden graph-80x24
keys C-c
wait_rc 0
