#!/bin/sh
# Live: more busy loops than CPUs keep a runnable task waiting, so
# \Pressure(cpu)\% Some Stall Time must be above 0 while they run (PSI "some"
# counts the time at least one task waits for a CPU; with a loop per CPU and
# one more, that is most of the time). Then the frequency and C-state
# counters of Processor: where this machine has no cpufreq or cpuidle they
# must be UNSUPPORTED (never a made-up 0), otherwise valid percentages.
set -eu
. "$(dirname "$0")/lib.sh"

[ -n "${GETCOUNTER:-}" ] && [ -x "$GETCOUNTER" ] ||
	skip "no getcounter binary (GETCOUNTER unset or not built)"
[ -r /proc/pressure/cpu ] ||
	skip "no /proc/pressure/cpu here (PSI disabled or a kernel before 4.20)"
ncpu=$(grep -c '^cpu[0-9]' /proc/stat)
[ "$ncpu" -ge 1 ] || fail "no cpuN lines in /proc/stat"
[ "$ncpu" -le 64 ] || skip "$ncpu CPUs: too many busy loops for a bounded test"
command -v timeout >/dev/null || skip "no timeout(1) to bound the busy loops"

# JSON samples -> "instance|counter|value|status" lines, last sample only.
rows() {
	tail -1 | sed 's/{"path"/\n{"path"/g' |
		sed -n 's/.*"instance": "\([^"]*\)", "counter": "\([^"]*\)", "value": \([^,]*\), '\
'"status": "\([A-Z_]*\)".*/\1|\2|\3|\4/p'
}

busy=""
cleanup() {
	for pid in $busy; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in $busy; do
		wait "$pid" 2>/dev/null || true
	done
	busy=""
}
trap cleanup EXIT INT TERM

# ncpu + 1 loops (3 on a 2-CPU machine) for the ~2 s of two 1 s samples.
n=0
while [ "$n" -le "$ncpu" ]; do
	# bounded even if this script is killed before its trap runs
	timeout 20 sh -c 'while :; do :; done' &
	busy="$busy $!"
	n=$((n + 1))
done
sleep 0.2
json=$("$GETCOUNTER" -i 1 -n 2 -f json '\Pressure(cpu)\% Some Stall Time' \
	'\Pressure(cpu)\% Full Stall Time') || fail "getcounter failed: $json"
cleanup

some=$(printf '%s\n' "$json" | rows | awk -F'|' '$2 == "% Some Stall Time" { print $3 "|" $4 }')
full=$(printf '%s\n' "$json" | rows | awk -F'|' '$2 == "% Full Stall Time" { print $4 }')
echo "cpus $ncpu, $((ncpu + 1)) busy loops: \\Pressure(cpu)\\% Some Stall Time = $some"
case $some in
*'|OK') ;;
*) fail "% Some Stall Time has no value: $some" ;;
esac
v=${some%|OK}
awk -v v="$v" 'BEGIN { exit !(v > 0 && v <= 105) }' ||
	fail "\\Pressure(cpu)\\% Some Stall Time $v with more busy loops than CPUs, wanted > 0"
[ "$full" = UNSUPPORTED ] || fail "\\Pressure(cpu)\\% Full Stall Time is $full, wanted UNSUPPORTED"

# Frequency and C-states of every CPU and _Total.
json=$("$GETCOUNTER" -i 0.5 -n 1 -f json '\Processor(*)\Processor Frequency' \
	'\Processor(*)\% of Maximum Frequency' '\Processor(*)\% C1 Time' '\Processor(*)\% C2 Time' \
	'\Processor(*)\% C3 Time' '\Processor(*)\C1 Transitions/sec' \
	'\Processor(*)\C2 Transitions/sec' '\Processor(*)\C3 Transitions/sec') ||
	fail "getcounter failed: $json"
out=$(printf '%s\n' "$json" | rows)
[ -n "$out" ] || fail "no rows in: $json"

if [ -d /sys/devices/system/cpu/cpu0/cpuidle ]; then
	echo "cpuidle here: $(cat /sys/devices/system/cpu/cpu0/cpuidle/state*/name | tr '\n' ' ')"
	# A state this machine lacks is UNSUPPORTED; any value is a valid one.
	printf '%s\n' "$out" | awk -F'|' '
		$2 ~ /^% C/ && $4 == "OK" && !($3 >= 0 && $3 <= 100) { bad = bad $0 "; " }
		$2 ~ /Transitions/ && $4 == "OK" && !($3 >= 0) { bad = bad $0 "; " }
		$2 ~ /C[123]/ && $4 != "OK" && $4 != "UNSUPPORTED" { bad = bad $0 "; " }
		END { if (bad != "") { print bad; exit 1 } }' || fail "bad C-state values"
	if grep -qv '^POLL$' /sys/devices/system/cpu/cpu0/cpuidle/state*/name; then
		printf '%s\n' "$out" | grep -q '^0|% C1 Time|[0-9.e+-]*|OK$' ||
			fail "cpu0 has a C-state but \\Processor(0)\\% C1 Time has no value"
	fi
else
	echo "no cpuidle here: the C-state counters must be UNSUPPORTED"
	printf '%s\n' "$out" | awk -F'|' '$2 ~ /C[123]/ && $4 != "UNSUPPORTED" { print; bad = 1 }
		END { exit bad }' || fail "C-state counters without cpuidle must be UNSUPPORTED"
fi

if [ -r /sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq ]; then
	khz=$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq)
	echo "cpufreq here: cpu0 at $khz kHz"
	case $khz in
	*[!0-9]*) ;; # "<unknown>": UNSUPPORTED is right
	*)
		printf '%s\n' "$out" | grep -q '^0|Processor Frequency|[0-9.e+]*|OK$' ||
			fail "cpu0 has cpufreq but no \\Processor(0)\\Processor Frequency"
		;;
	esac
	printf '%s\n' "$out" | awk -F'|' '$2 == "% of Maximum Frequency" && $4 == "OK" &&
		!($3 > 0 && $3 <= 200) { print; bad = 1 } END { exit bad }' ||
		fail "bad % of Maximum Frequency"
else
	echo "no cpufreq here: the frequency counters must be UNSUPPORTED"
	printf '%s\n' "$out" | awk -F'|' '$2 ~ /Frequency/ && $4 != "UNSUPPORTED" { print; bad = 1 }
		END { exit bad }' || fail "frequency counters without cpufreq must be UNSUPPORTED"
fi
nrows=$(printf '%s\n' "$out" | wc -l)
[ "$nrows" -eq $((8 * (ncpu + 1))) ] ||
	fail "$nrows rows, wanted 8 counters x ($ncpu CPUs + _Total)"
