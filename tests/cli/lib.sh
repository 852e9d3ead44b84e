# Helpers for the shell tests: . "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
# expect_exit CODE CMD...: runs CMD, checks its exit status; output in $out, stderr in $errout
expect_exit() {
	want=$1; shift
	errfile=$(mktemp)
	set +e
	out=$("$@" 2>"$errfile")
	got=$?
	set -e
	errout=$(cat "$errfile"); rm -f "$errfile"
	[ "$got" -eq "$want" ] || fail "exit $got, wanted $want: $* :: $errout"
}
# close_to A B TOLERANCE: |A - B| <= TOLERANCE
close_to() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}
