#!/bin/sh
# Runs every tests/tui/test_*.sh against the binary in $GETCOUNTER (each in
# its own tmux server). A test exits 0 (pass), 77 (skip, saying why) or
# anything else (fail). Ends with the line "N passed, N failed, N skipped".
here=$(cd "$(dirname "$0")" && pwd)
: "${GETCOUNTER:?set GETCOUNTER to the binary}"
export GETCOUNTER
export FIXTURES="$here/../fixtures"
export LC_ALL=C
export TZ=UTC
pass=0 fail=0 skip=0
for t in "$here"/test_*.sh; do
	name=$(basename "$t" .sh)
	# a test that hangs is stopped after TUI_TIMEOUT s and fails, named
	out=$(timeout -k 10 "${TUI_TIMEOUT:-300}" sh "$t" 2>&1 </dev/null)
	rc=$?
	case $rc in
	124 | 137) out="$out
tui/run.sh: $name did not end within ${TUI_TIMEOUT:-300} s; stopped" ;;
	esac
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name" ;;
	77) skip=$((skip + 1)); echo "SKIP $name: $(printf '%s\n' "$out" | tail -1)" ;;
	*) fail=$((fail + 1)); echo "FAIL $name (exit $rc)"
	   printf '%s\n' "$out" | tail -40 | sed 's/^/    /' ;;
	esac
done
echo "tui: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
