#!/bin/sh
# Live: a busy loop on one CPU raises \Processor(_Total)\% Processor Time.
# One fully busy CPU out of N adds 100/N points to _Total (the mean over the
# CPUs), so while the loop runs the value must exceed 60/N (30 on 2 CPUs),
# whatever else the machine is doing. The idle value is printed for context.
set -eu
. "$(dirname "$0")/lib.sh"

[ -n "${GETCOUNTER:-}" ] && [ -x "$GETCOUNTER" ] || skip "no getcounter binary (GETCOUNTER unset or not built)"
[ -r /proc/stat ] || skip "no /proc/stat on this machine"
ncpu=$(grep -c '^cpu[0-9]' /proc/stat)
[ "$ncpu" -ge 1 ] || fail "no cpuN lines in /proc/stat"

path='\Processor(_Total)\% Processor Time'

# One sample over 1 s; prints the value of the last CSV row.
sample() {
	csv=$("$GETCOUNTER" -i 1 -n 1 -f csv "$path") || fail "getcounter failed: $csv"
	v=$(printf '%s\n' "$csv" | tr -d '\r' | tail -1 | awk -F'","' '{ gsub(/"/, "", $2); print $2 }')
	case $v in
	'' | *[!0-9.]*) fail "no value in: $csv" ;;
	esac
	echo "$v"
}

busy=""
cleanup() {
	if [ -n "$busy" ]; then
		kill "$busy" 2>/dev/null || true
		wait "$busy" 2>/dev/null || true
	fi
}
trap cleanup EXIT INT TERM

idle=$(sample)
sh -c 'while :; do :; done' &
busy=$!
sleep 0.2
loaded=$(sample)
cleanup
busy=""

threshold=$(awk -v n="$ncpu" 'BEGIN { printf "%.3f", 60 / n }')
echo "cpus $ncpu: idle $idle %, with one busy loop $loaded % (must exceed $threshold)"
awk -v v="$loaded" -v t="$threshold" 'BEGIN { exit !(v > t && v <= 100) }' ||
	fail "% Processor Time $loaded with a busy loop, wanted > $threshold"
