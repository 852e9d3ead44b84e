#!/bin/sh
# test_skips.sh - live: a deadline getcounter cannot keep is skipped, never
# made up with a burst of reads, and -v says how many were and why:
#   - stopped (SIGSTOP) for 0.2 s in a run at 10 ms, it is woken after the
#     next deadline: the skips are the system's ("woken after the next
#     deadline ... late", 150 ms or more), and the run still prints -n
#     samples;
#   - its output held (a one-page FIFO nobody reads for 0.6 s), each write
#     waits: 20 or more skips are overruns ("overran (a read and its output
#     took ...)"). A loaded machine may add a skip of the other kind to
#     either run, which the checks allow;
#   - without skips -v prints no such line.
set -eu
. "$(dirname "$0")/lib.sh"
: "${GETCOUNTER:?GETCOUNTER must name the getcounter binary}"

dir=$(mktemp -d)
pid=
reader=
cleanup() {
	[ -z "$reader" ] || kill "$reader" 2>/dev/null || true
	if [ -n "$pid" ]; then
		kill -CONT "$pid" 2>/dev/null || true
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
path='\Memory\Available MBytes'

# 1. Stopped for 0.2 s: woken late.
"$GETCOUNTER" -v -n 60 -i 0.01 -f csv "$path" >"$dir/late.csv" 2>"$dir/late.err" &
pid=$!
sleep 0.2
kill -STOP "$pid"
sleep 0.2
kill -CONT "$pid"
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || fail "getcounter exited $status: $(cat "$dir/late.err")"
rows=$(($(wc -l <"$dir/late.csv") - 1))
[ "$rows" -eq 60 ] || fail "stopped run: $rows samples, want 60"
# (on a loaded machine a read may also overrun now and then: that part may follow)
grep -Eq '^getcounter: [0-9]+ reads skipped: [0-9]+ woken after the next deadline \(the system ran getcounter up to [0-9.]+ ms late\)' \
	"$dir/late.err" || { cat "$dir/late.err"; fail "stopped run: no 'woken after the next deadline' line"; }
late=$(sed -n 's/.* up to \([0-9.]*\) ms late.*/\1/p' "$dir/late.err")
awk -v l="$late" 'BEGIN { exit !(l >= 150 && l < 2000) }' ||
	fail "stopped 200 ms, reported $late ms late"
echo "stopped: $(cat "$dir/late.err")"

# 2. Output held: a FIFO of one page (F_SETPIPE_SZ, set before getcounter
# opens it) that nobody reads for 0.4 s; once rows of every Memory counter
# fill it, each write waits, and the reads overrun their deadlines.
if command -v python3 >/dev/null 2>&1; then
	mkfifo "$dir/fifo"
	python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ
open(sys.argv[2], "w").close()
time.sleep(0.6)
os.set_blocking(fd, True)
while os.read(fd, 65536):
    pass' "$dir/fifo" "$dir/ready" &
	reader=$!
	n=0
	while [ ! -e "$dir/ready" ] && [ $n -lt 100 ]; do sleep 0.02; n=$((n + 1)); done
	[ -e "$dir/ready" ] || fail "the FIFO's reader did not start"
	status=0
	"$GETCOUNTER" -v -n 40 -i 0.01 -f csv '\Memory\*' >"$dir/fifo" 2>"$dir/over.err" || status=$?
	wait "$reader" || true
	reader=
	[ "$status" -eq 0 ] || fail "held output: getcounter exited $status: $(cat "$dir/over.err")"
	# (the machine may also wake getcounter late now and then: that part
	# may come first; the overruns must be there)
	grep -Eq '^getcounter: [0-9]+ reads skipped:.* [0-9]+ overran \(a read and its output took up to [0-9.]+ ms\)$' \
		"$dir/over.err" || { cat "$dir/over.err"; fail "held output: no 'overran' part"; }
	over=$(sed -n 's/.* \([0-9][0-9]*\) overran .*/\1/p' "$dir/over.err")
	[ "$over" -ge 20 ] || { cat "$dir/over.err"; fail "held output 0.6 s at 10 ms: $over overruns, want 20 or more"; }
	echo "held output: $(cat "$dir/over.err")"
else
	echo "no python3: the held-output check is left out"
fi

# 3. No skip, no line: a short run at 0.2 s.
"$GETCOUNTER" -v -n 2 -i 0.2 -f csv "$path" >/dev/null 2>"$dir/none.err" ||
	fail "getcounter failed: $(cat "$dir/none.err")"
if grep -q 'reads skipped' "$dir/none.err"; then
	cat "$dir/none.err"
	fail "a run without a skip reported one"
fi
echo ok
