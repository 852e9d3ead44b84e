#!/bin/sh
# Runs every tests/cli/test_*.sh against the binary in $GETCOUNTER, CLI_JOBS
# at once (default: the CPUs plus one; most of a test's time is spent
# waiting for samples). A test exits 0 (pass), 77 (skip, saying why) or
# anything else (fail). Two lines a test may have:
#   "# cli-run: exclusive": it uses what the whole machine shares (loopback
#     captures and promiscuous mode, eBPF programs, loop devices and
#     mounts), or counts frames a busy machine may drop. Those run last,
#     one at a time with nothing beside them, each holding a lock, so none
#     overlaps another in another run of this script either.
#   "# cli-run: long": it takes a while; started first.
# A test that runs longer than CLI_TIMEOUT seconds (default 300) is
# stopped and run once more; a process a test leaves running is killed.
# Both are named at the end.
# Prints each result as it comes, then the failures' output, and ends with
# the line "cli: N passed, N failed, N skipped".
here=$(cd "$(dirname "$0")" && pwd)
: "${GETCOUNTER:?set GETCOUNTER to the binary}"
export GETCOUNTER
export FIXTURES="$here/../fixtures"
export LC_ALL=C
export TZ=UTC

# run_one RESULTS TEST OUT: runs TEST once, its output into OUT, and sets
# rc (its exit status) and left (what it left running, killed). Its
# output goes to a file, not through a pipe: a process the test left
# behind would hold a pipe open, and the run would wait for it forever.
# timeout stops a test (and what it started: timeout leads their process
# group) after CLI_TIMEOUT seconds, the wait for the lock included.
# flock -o: the lock is not handed down to what the test starts, so a
# leftover cannot keep the next exclusive test out.
run_one() {
	if [ "$lock" = none ]; then
		timeout -k 10 "$limit" sh "$2" >"$3" 2>&1 </dev/null &
	else
		timeout -k 10 "$limit" flock -o "$lock" sh "$2" >"$3" 2>&1 </dev/null &
	fi
	pid=$!
	wait "$pid"
	rc=$?
	case $rc in
	124 | 137) echo "cli/run.sh: $name did not end within $limit s; stopped" >>"$3" ;;
	esac
	# Any process still in the group 10 s after the test ended (one sent
	# a signal at the end may take a moment to go) was left behind by
	# the test: ended here, so that it cannot disturb the tests after it.
	n=0
	while :; do
		left=$(pgrep -d, -g "$pid" 2>/dev/null)
		[ -n "$left" ] && left=$(ps -o pid=,stat=,args= -p "$left" 2>/dev/null | awk '$2 !~ /^Z/')
		[ -z "$left" ] || [ $n -ge 100 ] && break
		sleep 0.1
		n=$((n + 1))
	done
	if [ -n "$left" ]; then
		# shellcheck disable=SC2046 # the pids, one word each
		kill -KILL $(printf '%s\n' "$left" | awk '{ print $1 }') 2>/dev/null
		printf 'cli/run.sh: %s left these running; killed:\n%s\n' "$name" "$left" >>"$3"
	fi
}

if [ "${1-}" = "--one" ]; then
	# one test (run by xargs below): $2 the results folder, $3 the test.
	# One that did not end in time is run once more, and the first run's
	# output is kept (NAME.hung) and shown at the end: a hang is a defect
	# to find, but one seen once must not stall or sink the whole run.
	# One that left processes running is shown at the end too.
	res=$2 t=$3
	name=$(basename "$t" .sh)
	limit=${CLI_TIMEOUT:-300}
	start=$(date +%s)
	lock=none
	if grep -q '^# cli-run: exclusive' "$t" && [ "${CLI_LOCK-}" != none ]; then
		lock=${CLI_LOCK:-/tmp/getcounter-cli-exclusive.lock}
	fi
	run_one "$res" "$t" "$res/$name.out"
	again=""
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		mv "$res/$name.out" "$res/$name.hung"
		run_one "$res" "$t" "$res/$name.out"
		again=", run twice: the first run did not end within $limit s"
	fi
	[ -n "$left" ] && echo "$name" >>"$res/leftovers"
	secs=$(($(date +%s) - start))
	echo "$rc" >"$res/$name.rc"
	case $rc in
	0) echo "PASS $name (${secs} s$again)" ;;
	77) echo "SKIP $name: $(tail -1 "$res/$name.out")" ;;
	*) echo "FAIL $name (exit $rc, ${secs} s$again)" ;;
	esac
	exit 0
fi

jobs=${CLI_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT
: >"$res/exclusive"
: >"$res/long"
: >"$res/other"
for t in "$here"/test_*.sh; do
	if grep -q '^# cli-run: exclusive' "$t"; then
		echo "$t" >>"$res/exclusive"
	elif grep -q '^# cli-run: long' "$t"; then
		echo "$t" >>"$res/long"
	else
		echo "$t" >>"$res/other"
	fi
done
if [ "$jobs" -le 1 ] || ! command -v flock >/dev/null 2>&1; then
	# one at a time (no lock: nothing runs beside them)
	cat "$res/exclusive" "$res/long" "$res/other" | CLI_LOCK=none \
		xargs -r -n 1 sh "$here/run.sh" --one "$res"
else
	cat "$res/long" "$res/other" | xargs -r -P "$jobs" -n 1 sh "$here/run.sh" --one "$res"
	xargs -r -n 1 sh "$here/run.sh" --one "$res" <"$res/exclusive"
fi

pass=0 fail=0 skip=0 failed=""
for t in "$here"/test_*.sh; do
	name=$(basename "$t" .sh)
	rc=$(cat "$res/$name.rc" 2>/dev/null || echo 1)
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)); failed="$failed $name"
	   echo "FAIL $name (exit $rc):"
	   tail -30 "$res/$name.out" 2>/dev/null | sed 's/^/    /' ;;
	esac
done
for f in "$res"/*.hung; do
	[ -e "$f" ] || continue
	echo "HUNG $(basename "$f" .hung), its first run (the second's result is above):"
	tail -30 "$f" | sed 's/^/    /'
done
[ -s "$res/leftovers" ] && while read -r name; do
	echo "LEFT RUNNING by $name:"
	sed -n '/left these running; killed:$/,$p' "$res/$name.out" | sed 's/^/    /'
done <"$res/leftovers"
echo "cli: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
