#!/bin/sh
# Keys on a replayed series: < > = A scale, h highlight, Y, views 1/2/3 and
# v, ? and Ctrl-L; live: Space freezes while --log keeps growing, + and -
# change the interval.
set -eu
. "$(dirname "$0")/lib.sh"

tui_start 100 30 "$utf8" --tui $roots "$P1" "$P2"
wait_for "sample 1/11"
keys End
wait_for "sample 11/11"
# a: % Processor Time, autoscaled at its first value (5: x10)
screen | grep -q "^a  x10 " || fail "a's scale is not x10: $(screen)"
keys '<'
wait_for "a  x1 "
keys '<' '<' '<'
wait_for "a  x0.001 "
# = : the largest power of ten keeping the maximum (55) under 100: x1
keys =
wait_for "a  x1 "
keys Down '>' '>'
wait_for "b  x1 "
# A: b's maximum 2100 -> x0.01
keys A
wait_for "b  x0.01 "
keys h Y
wait_for "y fitted"
golden keys-highlight-fit
# and its attributes: b (selected) bold in its colour, a dim, in the graph
# and in the legend's letters
golden keys-highlight-attr -e
keys 2
wait_for "[Histogram]"
wait_for "bars: last (v)"
keys v
wait_for "bars: average (v)"
golden histogram-average
keys 3
wait_for "[Report]"
golden report
keys '?'
wait_for "getcounter --tui: keys"
keys x
wait_gone "getcounter --tui: keys"
keys C-l 1
wait_for "[Graph]"
keys q
wait_rc 0

# live, recording: Space freezes the screen while the log grows
tui_start 100 30 "$utf8" --tui -i 0.1 --log "$W/live.gcl" '\Memory\Available MBytes'
wait_for "LIVE"
wait_for "interval 0.1s"
keys Space
wait_for "FROZEN"
a=$(stat -c %s "$W/live.gcl")
frozen=$(screen)
n=0
while [ "$(stat -c %s "$W/live.gcl")" -le "$a" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
[ "$(stat -c %s "$W/live.gcl")" -gt "$a" ] || fail "the log did not grow while frozen"
[ "$(screen)" = "$frozen" ] || fail "the screen changed while frozen"
keys Space
wait_for "LIVE"
keys -
wait_for "interval 0.2s"
keys + +
wait_for "interval 0.1s"
# at least 5 samples recorded (polled, 5 s at most)
n=0
while [ "$("$GETCOUNTER" --input "$W/live.gcl" -f csv 2>/dev/null | wc -l)" -lt 6 ] && [ $n -lt 50 ]; do
	sleep 0.1
	n=$((n + 1))
done
keys q
wait_rc 0
"$GETCOUNTER" --input "$W/live.gcl" -f csv >"$W/live.csv" || fail "cannot replay the live log"
[ "$(wc -l <"$W/live.csv")" -ge 6 ] || fail "the live log holds few samples: $(cat "$W/live.csv")"
