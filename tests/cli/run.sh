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
# Prints each result as it comes, then the failures' output, and ends with
# the line "cli: N passed, N failed, N skipped".
here=$(cd "$(dirname "$0")" && pwd)
: "${GETCOUNTER:?set GETCOUNTER to the binary}"
export GETCOUNTER
export FIXTURES="$here/../fixtures"
export LC_ALL=C
export TZ=UTC

if [ "${1-}" = "--one" ]; then
	# one test (run by xargs below): $2 the results folder, $3 the test
	res=$2 t=$3
	name=$(basename "$t" .sh)
	start=$(date +%s)
	if grep -q '^# cli-run: exclusive' "$t" && [ "${CLI_LOCK-}" != none ]; then
		out=$(flock "${CLI_LOCK:-/tmp/getcounter-cli-exclusive.lock}" sh "$t" 2>&1)
	else
		out=$(sh "$t" 2>&1)
	fi
	rc=$?
	secs=$(($(date +%s) - start))
	printf '%s\n' "$out" >"$res/$name.out"
	echo "$rc" >"$res/$name.rc"
	case $rc in
	0) echo "PASS $name (${secs} s)" ;;
	77) echo "SKIP $name: $(printf '%s\n' "$out" | tail -1)" ;;
	*) echo "FAIL $name (exit $rc, ${secs} s)" ;;
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
		xargs -n 1 sh "$here/run.sh" --one "$res"
else
	cat "$res/long" "$res/other" | xargs -P "$jobs" -n 1 sh "$here/run.sh" --one "$res"
	xargs -n 1 sh "$here/run.sh" --one "$res" <"$res/exclusive"
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
echo "cli: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
