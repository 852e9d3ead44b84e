#!/bin/sh
# Replay of a log recorded from the series: opens paused on sample 1;
# Right x3 shows sample 4 and its values; End, Home, g +10s, g with an ISO
# time; + to max speed and Space plays to END; --begin/--end cut the log.
set -eu
. "$(dirname "$0")/lib.sh"

"$GETCOUNTER" $roots -o "$W/s.gcl" "$P1" "$P2" "$P3"
tui_start 100 30 "$utf8" --tui --input "$W/s.gcl"
wait_for "REPLAY paused  2023-11-14 22:30:02  sample 1/11"
keys Right Right Right
# sample 4 (22:30:08): 5 x 4 = 20 %, 1000 + 100 x 4 = 1400 MB
wait_for "sample 4/11"
screen | grep -q "^a  x10 *20.00 " || fail "sample 4: % Processor Time is not 20: $(screen)"
screen | grep -q "^b  x0.01 *1400.00 " || fail "sample 4: Available MBytes is not 1400"
golden replay-sample4
keys End
wait_for "END  2023-11-14 22:30:22  sample 11/11"
keys Home
wait_for "sample 1/11"
# g +10s from 22:30:02: the first sample at or after 22:30:12 is sample 6
keys g
wait_for "go to:"
type_text "+10s"
keys Enter
wait_for "22:30:12  sample 6/11"
keys g
type_text "2023-11-14T22:30:16Z"
keys Enter
wait_for "22:30:16  sample 8/11"
keys g
type_text "tomorrow"
keys Enter
wait_for "'tomorrow' is not a time"
# play at max: + seven times (1x 2x 4x .. 64x, max), Space, runs to END
keys Home
wait_for "sample 1/11"
for i in 1 2 3 4 5 6 7; do keys +; done
keys Space
wait_for "END  2023-11-14 22:30:22  sample 11/11"
keys q
wait_rc 0

# --begin and --end: samples 3..6 only
tui_start 100 30 "$utf8" --tui --input "$W/s.gcl" --begin 2023-11-14T22:30:06Z \
	--end 2023-11-14T22:30:12Z
wait_for "sample 1/"
keys End
wait_for "END  2023-11-14 22:30:12"
screen | grep -q "sample [34]/[34]" || fail "--begin/--end: $(screen | tail -2)"
keys q
wait_rc 0
