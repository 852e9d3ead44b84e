#!/bin/sh
# --log while watching a --root series: quit, replay the new log to csv:
# it equals the csv of the same series read by the command line.
set -eu
. "$(dirname "$0")/lib.sh"

tui_start 100 30 "$utf8" --tui $roots --log "$W/w.gcl" "$P1" "$P2" "$P3"
wait_for "sample 1/11"
wait_for "REC w.gcl"
keys q
wait_rc 0
"$GETCOUNTER" --input "$W/w.gcl" -f csv >"$W/replayed.csv"
"$GETCOUNTER" $roots -f csv "$P1" "$P2" "$P3" >"$W/direct.csv"
diff -u "$W/direct.csv" "$W/replayed.csv" || fail "the log recorded by --tui replays differently"
[ "$(wc -l <"$W/direct.csv")" -eq 12 ] || fail "11 samples expected"
# a non-empty log is not replaced without -y
tui_start 100 30 "$utf8" --tui $roots --log "$W/w.gcl" "$P1"
wait_rc 2
grep -q "exists and is not empty" "$W/stderr" || fail "no refusal: $(cat "$W/stderr")"
