# Helpers for the --tui tests: . "$(dirname "$0")/lib.sh"
# Each test drives the real binary in its own tmux server (socket gct$$,
# no config), waits by polling capture-pane every 0.1 s (at most 5 s, never
# a blind sleep), types with send-keys, and takes the exit status from a
# file the command writes. Inputs are deterministic (a --root series and
# logs recorded from it in the test), so whole screens are compared with
# golden files in tests/tui/golden (UPDATE_GOLDEN=1 rewrites them).
. "$(dirname "$0")/../cli/lib.sh"
: "${GETCOUNTER:?set GETCOUNTER to the binary}"
: "${FIXTURES:=$(cd "$(dirname "$0")/../fixtures" && pwd)}"
tui_dir=$(cd "$(dirname "$0")" && pwd)
golden=$tui_dir/golden
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed"
W=$(mktemp -d)
T="tmux -u -L gct$$ -f /dev/null"
trap '$T kill-server 2>/dev/null || :; rm -rf "$W"' EXIT
set +e
"$GETCOUNTER" --tui </dev/null >/dev/null 2>"$W/built"
set -e
grep -q "not built in" "$W/built" && skip "--tui is not built in (no ncursesw)"
# the series: 12 roots, 11 samples (tests/fixtures/tui-series/README)
S=$FIXTURES/tui-series
roots=""
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do roots="$roots --root $S/t$i"; done
P1='\Processor(_Total)\% Processor Time'
P2='\Memory\Available MBytes'
P3='\Network Adapter(*)\Bytes Total/sec'

# q WORD: WORD quoted for sh
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
# tui_start X Y ENV ARGS...: run "env ENV getcounter ARGS" in a X x Y
# pane (ENV: assignments, e.g. 'LANG=C.UTF-8 TERM=xterm-256color').
tui_start() {
	x=$1 y=$2 envs=$3
	shift 3
	cmd="cd $(q "$W") && env -u LC_ALL TZ=UTC $envs $(q "$GETCOUNTER")"
	for a in "$@"; do cmd="$cmd $(q "$a")"; done
	printf '%s 2>%s; echo $? >%s\n' "$cmd" "$(q "$W/stderr")" "$(q "$W/rc")" >"$W/cmd.sh"
	rm -f "$W/rc"
	$T kill-server 2>/dev/null || true
	$T new-session -d -s t -x "$x" -y "$y" "sh $(q "$W/cmd.sh")"
}
# screen [-e]: the pane as text (with -e, attributes as escapes)
screen() { $T capture-pane -p -t t "$@"; }
# wait_for TEXT: poll until the screen shows TEXT (fixed string), 5 s at most
wait_for() {
	n=0
	while [ $n -lt 50 ]; do
		if [ -f "$W/rc" ]; then
			fail "the screen ended (exit $(cat "$W/rc")) before '$1': $(cat "$W/stderr")"
		fi
		screen 2>/dev/null | grep -qF -- "$1" && return 0
		sleep 0.1
		n=$((n + 1))
	done
	screen || true
	fail "the screen never showed '$1'"
}
# wait_gone TEXT: poll until the screen no longer shows TEXT
wait_gone() {
	n=0
	while [ $n -lt 50 ]; do
		screen 2>/dev/null | grep -qF -- "$1" || return 0
		sleep 0.1
		n=$((n + 1))
	done
	screen || true
	fail "the screen still shows '$1'"
}
keys() { $T send-keys -t t "$@"; }
type_text() { $T send-keys -t t -l "$1"; }
# wait_rc WANT: poll for the exit status file, 5 s at most; check it
wait_rc() {
	n=0
	while [ ! -s "$W/rc" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
	[ -s "$W/rc" ] || fail "getcounter --tui did not exit"
	got=$(cat "$W/rc")
	[ "$got" = "$1" ] || fail "exit $got, wanted $1: $(cat "$W/stderr")"
}
# golden NAME [-e]: the screen (with -e, and its attributes as escapes)
# equals tests/tui/golden/NAME.txt
golden() {
	screen ${2:-} >"$W/$1.txt"
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$W/$1.txt" "$golden/$1.txt"
		return 0
	fi
	[ -f "$golden/$1.txt" ] || fail "no golden file $golden/$1.txt"
	diff -u "$golden/$1.txt" "$W/$1.txt" || fail "the screen differs from golden/$1.txt"
}
# utf8: the environment of a UTF-8 colour terminal
utf8='LANG=C.UTF-8 TERM=xterm-256color'
