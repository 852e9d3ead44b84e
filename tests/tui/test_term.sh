#!/bin/sh
# The terminal: NO_COLOR, --no-color and TERM=vt100 draw no colour; LANG=C
# puts no byte >= 0x80 on the screen; 60x20 shows the too-small message
# and 100x30 again the same screen; q and Ctrl-C exit 0; not a terminal: 2.
set -eu
. "$(dirname "$0")/lib.sh"

# a colour is SGR 30-37, 40-47, 90-97, 100-107 or 38;/48; (39 and 49 are
# the defaults tmux writes to reset)
colours() { screen -e | grep -cE "$(printf '\033')\\[([0-9;]*;)?(3[0-7]|4[0-7]|9[0-7]|10[0-7]|38;|48;)" || :; }

tui_start 100 30 "$utf8" --tui $roots "$P1" "$P2"
wait_for "sample 1/11"
[ "$(colours)" -gt 0 ] || fail "no colour on a colour terminal: the check cannot fail"
keys q
wait_rc 0
for envs in "$utf8 NO_COLOR=1" "LANG=C.UTF-8 TERM=vt100"; do
	tui_start 100 30 "$envs" --tui $roots "$P1" "$P2"
	wait_for "sample 1/11"
	keys End
	wait_for "sample 11/11"
	[ "$(colours)" -eq 0 ] || fail "$envs: colour escapes: $(screen -e | cat -v | head -5)"
	keys q
	wait_rc 0
done
tui_start 100 30 "$utf8" --tui --no-color $roots "$P1" "$P2"
wait_for "sample 1/11"
[ "$(colours)" -eq 0 ] || fail "--no-color: colour escapes"
# without colour, a highlight is bold against dim, and the other series
# are loose dots (attributes compared too)
keys End Down h
wait_for "sample 11/11"
golden no-color-highlight -e
keys q
wait_rc 0

# LANG=C: ASCII only (letters plot the series)
tui_start 100 30 "LANG=C TERM=xterm-256color" --tui $roots "$P1" "$P2"
wait_for "sample 1/11"
keys End
wait_for "sample 11/11"
screen >"$W/c.txt"
if LC_ALL=C grep -q "$(printf '[\200-\377]')" "$W/c.txt"; then
	fail "LANG=C: bytes >= 0x80 on the screen"
fi
golden ascii-lang-c
keys C-c
wait_rc 0

# resize: too small, then back with the same history
tui_start 100 30 "$utf8" --tui $roots "$P1" "$P2"
wait_for "sample 1/11"
keys End
wait_for "sample 11/11"
screen >"$W/before.txt"
$T resize-window -t t -x 60 -y 20
wait_for "terminal too small: 60x20, need 80x24"
golden too-small
$T resize-window -t t -x 100 -y 30
wait_for "sample 11/11"
screen >"$W/after.txt"
diff -u "$W/before.txt" "$W/after.txt" || fail "the screen differs after a resize"
keys q
wait_rc 0

# not a terminal
set +e
"$GETCOUNTER" --tui $roots >"$W/out" 2>"$W/err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "--tui to a file: exit $rc"
[ "$(wc -l <"$W/err")" -eq 1 ] || fail "not one line: $(cat "$W/err")"

# the options that go with --tui, and what does not go with it (usage: 2)
for args in "--ascii" "--no-color" "--tui -f csv" "--tui -o x.csv"; do
	set +e
	"$GETCOUNTER" $args >"$W/out" 2>"$W/err" </dev/null
	rc=$?
	set -e
	[ "$rc" -eq 2 ] || fail "$args: exit $rc"
	[ "$(wc -l <"$W/err")" -eq 1 ] || fail "$args: not one line: $(cat "$W/err")"
done
