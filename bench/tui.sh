#!/bin/sh
# bench/tui.sh - the cost of the --tui screen (issue 7): CPU and bytes
# written to the terminal per refresh, at 80x24 and 200x60 with 1, 8 and 32
# series, replaying a log at max speed under a pty (script -q).
#
# Each case runs twice inside `script`: once quitting at once (start, read
# the log, one screen) and once playing the whole log at max speed (+ x7,
# Space: one refresh per sample, no sleeping) then quitting; the difference
# divided by the refreshes is the cost of one refresh. CPU is the
# getcounter process's own (bench/cputime inside the pty); bytes are what
# the pty carried (the typescript's size).
#
# usage: bench/tui.sh    environment: BUILD (default build), SAMPLES (400),
#   ROUNDS (5: rounds of the target case, whose median is judged)
# Prints a markdown table. Targets: <= 0.2 ms and <= 4 KiB per refresh at
# 200x60 with 8 series.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GC=$(pwd)/$BUILD/getcounter
CPUTIME=$(pwd)/$BUILD/bench/cputime
SAMPLES=${SAMPLES:-400}
ROUNDS=${ROUNDS:-5}
case $ROUNDS in '' | *[!0-9]* | 0) echo "bench/tui.sh: ROUNDS must be a whole number above 0" >&2; exit 2 ;; esac
command -v script >/dev/null 2>&1 || { echo "bench/tui.sh: no script(1): skipped"; exit 0; }
"$GC" --tui </dev/null >/dev/null 2>&1 || true
if "$GC" --tui 2>&1 </dev/null | grep -q "not built in"; then
	echo "bench/tui.sh: --tui is not built in: skipped"
	exit 0
fi
[ -x "$CPUTIME" ] || { mkdir -p "$(dirname "$CPUTIME")" && cc -O2 -std=gnu11 -Ibench -Iinclude -o "$CPUTIME" bench/cputime.c; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 32 single series: Memory (14), System (9), 3 x Processor(0, 1, _Total)
# on this 2-CPU machine; the first 8 and the first 1 of them
"$GC" -q Memory >"$tmp/paths"
"$GC" -q System >>"$tmp/paths"
for c in '% Processor Time' '% User Time' '% Privileged Time'; do
	for i in 0 1 _Total; do echo "\\Processor($i)\\$c"; done
done >>"$tmp/paths"
head -32 "$tmp/paths" >"$tmp/p32"
head -8 "$tmp/paths" >"$tmp/p8"
head -1 "$tmp/paths" >"$tmp/p1"
tr '\n' '\0' <"$tmp/p32" | xargs -0 "$GC" -i 0.01 -n "$SAMPLES" -o "$tmp/log.gcl"

# run COLS ROWS PATHFILE KEYS WAIT: one screen in script; prints "cpu_us bytes"
run() {
	args=""
	while IFS= read -r p; do args="$args '$p'"; done <"$3"
	printf 'stty cols %s rows %s; LANG=C.UTF-8 TERM=xterm-256color exec %s --keep-stdout %s --tui --input %s %s\n' \
		"$1" "$2" "$CPUTIME" "$GC" "$tmp/log.gcl" "$args" >"$tmp/cmd.sh"
	rm -f "$tmp/ts"
	{ sleep 0.5; printf '%s' "$4"; sleep "$5"; printf q; sleep 0.5; } |
		script -q -c "sh $tmp/cmd.sh" "$tmp/ts" >/dev/null 2>&1 || true
	cpu=$(tr -d '\r' <"$tmp/ts" | sed -n 's/.*cpu_us=\([0-9]*\).*/\1/p' | tail -1)
	echo "${cpu:-0} $(wc -c <"$tmp/ts")"
}

echo "| screen | series | CPU per refresh | bytes per refresh |"
echo "|---|---|---|---|"
# refreshes: a screen per sample played, and one per key
refreshes=$((SAMPLES - 1 + 8))
for size in "80 24" "200 60"; do
	for n in 1 8 32; do
		set -- $size
		# the targets (issue 7) are set at 200x60 with 8 series: that case
		# takes ROUNDS rounds and gives their median and range, as one
		# round moves by a third with the machine's state
		t=0
		[ "$1x$2" = 200x60 ] && [ "$n" = 8 ] && t=1
		rounds=1
		[ "$t" = 1 ] && rounds=$ROUNDS
		: >"$tmp/rounds"
		i=0
		while [ "$i" -lt "$rounds" ]; do
			base=$(run "$1" "$2" "$tmp/p$n" "" 0)
			play=$(run "$1" "$2" "$tmp/p$n" '+++++++ ' 3)
			echo "$base $play" | awk -v r="$refreshes" \
				'{ printf "%.6f %.1f\n", ($3 - $1) / r / 1000, ($4 - $2) / r }' >>"$tmp/rounds"
			i=$((i + 1))
		done
		sort -n "$tmp/rounds" | awk -v c="$1x$2" -v n="$n" -v t="$t" '
			{ ms[NR] = $1; b[NR] = $2 }
			END {
				m = NR % 2 ? ms[(NR + 1) / 2] : (ms[NR / 2] + ms[NR / 2 + 1]) / 2
				# the bytes of the median round (one round: its own)
				bb = b[int((NR + 1) / 2)]
				range = NR > 1 ? sprintf(" (%.3f-%.3f, %d rounds)", ms[1], ms[NR], NR) : ""
				printf "| %s | %d | %.3f ms%s%s | %.0f B%s |\n", c, n, m, range,
					t ? (m <= 0.2 ? " ok" : " **MISSED**") : "", bb,
					t ? (bb <= 4096 ? " ok" : " **MISSED**") : "" }'
	done
done
