#!/bin/sh
# Bad input: one line on standard error starting "getcounter: " that names the
# problem, exit 2 for usage errors and 1 for runtime errors, never a crash and
# never anything on standard output.
set -eu
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/cli-basic
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

# one_line: $errout is exactly one line starting "getcounter: "
one_line() {
	[ "$(printf '%s\n' "$errout" | wc -l)" -eq 1 ] || fail "not one line on stderr: $errout"
	case $errout in
	"getcounter: "?*) ;;
	*) fail "stderr does not start with 'getcounter: ': $errout" ;;
	esac
}

# bad CODE WORD CMD...: CMD exits CODE, prints nothing on stdout and one
# stderr line that contains WORD (case-insensitive).
bad() {
	code=$1 word=$2
	shift 2
	expect_exit "$code" "$@"
	[ -z "$out" ] || fail "stdout not empty for: $* :: $out"
	one_line
	printf '%s\n' "$errout" | grep -qiF -- "$word" || fail "message lacks '$word': $errout"
}

# An unknown set names the typo and says where the sets are listed.
bad 2 "'Procesor'" "$GETCOUNTER" '\Procesor(*)\% Processor Time'
printf '%s\n' "$errout" | grep -qF 'getcounter -l' || fail "no hint to getcounter -l: $errout"
bad 2 'Procesor' "$GETCOUNTER" -f csv -n 2 -i 0.01 -c '\Memory\Available MBytes' \
	-c '\Procesor(*)\% Processor Time'
bad 2 'Nothing' "$GETCOUNTER" '\*\Nothing'

# A --user that is no user is a usage error, found before anything opens;
# so is a --smooth factor outside 2..127.
bad 2 "'nosuchuser-$$': no such user" "$GETCOUNTER" --user "nosuchuser-$$" --pcap /dev/null
bad 2 "--smooth" "$GETCOUNTER" --smooth 0 '\Memory\Available MBytes'

# Unknown counters, in a good set and with a wildcard instance.
bad 2 '% Procesor Time' "$GETCOUNTER" '\Processor(*)\% Procesor Time'
bad 2 'Available Mbites' "$GETCOUNTER" '\Memory\Available Mbites'
bad 2 'Bytes Totl/sec' "$GETCOUNTER" '\Network Adapter(*)\Bytes Totl/sec'

# Malformed paths.
bad 2 'must start with' "$GETCOUNTER" 'Processor(*)\% Processor Time'
bad 2 'not a counter path' "$GETCOUNTER" ''
bad 2 'not a counter path' "$GETCOUNTER" '\'
bad 2 'not a counter path' "$GETCOUNTER" '\Memory'
bad 2 'not a counter path' "$GETCOUNTER" '\Memory\'
bad 2 'not a counter path' "$GETCOUNTER" '\Processor(*'
bad 2 'not a counter path' "$GETCOUNTER" '\Processor(0\% Processor Time'
bad 2 'not a counter path' "$GETCOUNTER" '\Processor()\% Processor Time'
bad 2 'not a counter path' "$GETCOUNTER" '\\'
bad 2 'no instances' "$GETCOUNTER" '\Memory(x)\Available MBytes'

# A remote host is refused; this machine's names are accepted.
bad 2 "'otherhost'" "$GETCOUNTER" '\\otherhost\Processor(*)\% Processor Time'
bad 2 "'vm-that-is-not-here'" "$GETCOUNTER" --root "$F/t0" \
	'\\vm-that-is-not-here\Memory\Available MBytes'
expect_exit 0 "$GETCOUNTER" --root "$F/t0" -f csv '\\fixture\Memory\Available MBytes'
expect_exit 0 "$GETCOUNTER" --root "$F/t0" -f csv '\\localhost\Memory\Available MBytes'
expect_exit 0 "$GETCOUNTER" --root "$F/t0" -f csv '\\.\Memory\Available MBytes'

# Bad interval, count, format, precision.
bad 2 "'0'" "$GETCOUNTER" -i 0
bad 2 "'0.001'" "$GETCOUNTER" -i 0.001
bad 2 "'abc'" "$GETCOUNTER" -i abc
bad 2 "'-1'" "$GETCOUNTER" -i -1
bad 2 "'1:2:3:4'" "$GETCOUNTER" -si 1:2:3:4
bad 2 "'0'" "$GETCOUNTER" -n 0
bad 2 "'x'" "$GETCOUNTER" -n x
bad 2 "'1.5'" "$GETCOUNTER" -MaxSamples 1.5
bad 2 "'-3'" "$GETCOUNTER" -sc -3
bad 2 "'xml'" "$GETCOUNTER" -f xml
bad 2 "format" "$GETCOUNTER" --format=
bad 2 "'99'" "$GETCOUNTER" --precision 99
bad 2 "needs a value" "$GETCOUNTER" -c
bad 2 "needs a value" "$GETCOUNTER" -n
bad 2 "contradict" "$GETCOUNTER" --continuous -n 2
bad 2 "-x" "$GETCOUNTER" -x '\Memory\Available MBytes'

# Unknown options, and no bundling of short options.
bad 2 "'--bogus'" "$GETCOUNTER" --bogus
bad 2 "'--sample'" "$GETCOUNTER" --sample 3
bad 2 "'-Z'" "$GETCOUNTER" -Z
bad 2 "'-MaxSample'" "$GETCOUNTER" -MaxSample 3
bad 2 "takes no value" "$GETCOUNTER" --continuous=1
bad 2 "'-vx'" "$GETCOUNTER" -vx
bad 2 "'-lv'" "$GETCOUNTER" -lv

# --root: missing, and a directory with neither proc/ nor sys/.
bad 2 "$tmp/missing" "$GETCOUNTER" --root "$tmp/missing"
mkdir -p "$tmp/empty/etc"
bad 2 "$tmp/empty" "$GETCOUNTER" --root "$tmp/empty"
bad 2 "$tmp/empty" "$GETCOUNTER" --root "$F/t0" --root "$tmp/empty"
bad 2 "directory" "$GETCOUNTER" --root ''

# -n above what a root series gives; more than one sample from a snapshot.
bad 2 "-n 3" "$GETCOUNTER" --root "$F/t0" --root "$F/t1" --root "$F/t2" -n 3
bad 2 "snapshot" "$GETCOUNTER" --root "$F/t0" -n 2

# --counter-file that does not exist.
bad 2 "$tmp/nofile.txt" "$GETCOUNTER" --counter-file "$tmp/nofile.txt"
bad 2 "$tmp/nofile.txt" "$GETCOUNTER" -cf "$tmp/nofile.txt"
# a binary file: named, its bytes not echoed to the terminal
printf '\\Memory\\Available MBytes\n\177ELF\001\002\n' >"$tmp/bin.cf"
bad 2 "$tmp/bin.cf:2: a control character (0x7f)" "$GETCOUNTER" -cf "$tmp/bin.cf"
case $errout in *"$(printf '\001')"*) fail "-cf echoed a control byte: $errout" ;; esac

# -o into a directory that does not exist, or under a file: runtime error.
R="--root $F/t0 --root $F/t1"
# shellcheck disable=SC2086
bad 1 "$tmp/nodir/out.csv" "$GETCOUNTER" $R -o "$tmp/nodir/out.csv" '\Memory\Available MBytes'
: >"$tmp/plain"
# shellcheck disable=SC2086
bad 1 "$tmp/plain/out.csv" "$GETCOUNTER" $R -o "$tmp/plain/out.csv" '\Memory\Available MBytes'
if [ "$(id -u)" -ne 0 ]; then
	mkdir "$tmp/ro"
	chmod 555 "$tmp/ro"
	# shellcheck disable=SC2086
	bad 1 "$tmp/ro/out.csv" "$GETCOUNTER" $R -o "$tmp/ro/out.csv" '\Memory\Available MBytes'
fi

# -o onto a non-empty file: refused without -y (file untouched), done with -y.
echo keep >"$tmp/full.csv"
# shellcheck disable=SC2086
bad 2 "$tmp/full.csv" "$GETCOUNTER" $R -o "$tmp/full.csv" '\Memory\Available MBytes'
[ "$(cat "$tmp/full.csv")" = keep ] || fail "-o without -y changed the file"
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R -o "$tmp/full.csv" -y '\Memory\Available MBytes'
grep -q 'PDH-CSV 4.0' "$tmp/full.csv" || fail "-o -y did not write csv: $(cat "$tmp/full.csv")"
# An empty file needs no -y.
: >"$tmp/empty.json"
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R -o "$tmp/empty.json" '\Memory\Available MBytes'
grep -q '"timestamp"' "$tmp/empty.json" || fail "-o x.json did not write json"

# Writing to a full device: exit 1 with a message, for stdout and for -o,
# in every format and in the list modes.
for fmt in table list csv tsv json; do
	set +e
	# shellcheck disable=SC2086
	"$GETCOUNTER" $R -f "$fmt" '\Memory\Available MBytes' >/dev/full 2>"$tmp/err"
	rc=$?
	set -e
	[ "$rc" -eq 1 ] || fail "-f $fmt to /dev/full: exit $rc, wanted 1"
	errout=$(cat "$tmp/err")
	one_line
	grep -qi 'No space' "$tmp/err" || fail "-f $fmt to /dev/full: $errout"
done
# shellcheck disable=SC2086
bad 1 "No space" "$GETCOUNTER" $R -f csv -o /dev/full '\Memory\Available MBytes'
set +e
"$GETCOUNTER" -l >/dev/full 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "-l to /dev/full: exit $rc, wanted 1"
grep -qi 'No space' "$tmp/err" || fail "-l to /dev/full: $(cat "$tmp/err")"

# A usage error found in the paths or roots leaves -o's file alone: not
# created, and not emptied even with -y.
set +e
"$GETCOUNTER" -o "$tmp/never.csv" '\Nope\X' 2>/dev/null
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad path with -o: exit $rc"
[ ! -e "$tmp/never.csv" ] || fail "a usage error created the -o file"
echo keep >"$tmp/keep.csv"
set +e
"$GETCOUNTER" -y -o "$tmp/keep.csv" --root /nonexistent '\Memory\Free Bytes' 2>/dev/null
set -e
[ "$(cat "$tmp/keep.csv")" = keep ] || fail "a usage error emptied the -o file"
# -l and -q write to -o too.
expect_exit 0 "$GETCOUNTER" -l Memory -o "$tmp/sets.txt"
[ -z "$out" ] || fail "-l -o also printed to stdout"
grep -q '^CounterSetName : Memory' "$tmp/sets.txt" || fail "-l -o wrote: $(cat "$tmp/sets.txt")"

# A write error names the file it was writing.
set +e
"$GETCOUNTER" -y -o /proc/version '\Memory\Free Bytes' 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "-o /proc/version: exit $rc"
grep -q '^getcounter: cannot write /proc/version: ' "$tmp/err" || fail "-o /proc/version: $(cat "$tmp/err")"
# A path whose wildcard matches nothing is named on stderr (csv keeps the
# first sample's columns, so it would never show).
"$GETCOUNTER" --root "$F/t0" -f csv '\Network Adapter(nosuch*)\Bytes Total/sec' \
	'\Memory\Free Bytes' >/dev/null 2>"$tmp/err"
grep -qF 'Adapter(nosuch*)\Bytes Total/sec'"'"' matches no instance' "$tmp/err" ||
	fail "no warning for an empty wildcard: $(cat "$tmp/err")"

# Options that would be ignored, or one of two dropped, are usage errors
bad 2 "-f is given twice (json, csv)" "$GETCOUNTER" -f json -f csv
bad 2 "-n does not apply" "$GETCOUNTER" --serve 127.0.0.1:1 -n 3
bad 2 "-i does not apply" "$GETCOUNTER" --serve 127.0.0.1:1 -i 2
"$GETCOUNTER" --root "$F/t0" --root "$F/t1" -o "$tmp/s.gcl" '\Memory\Available MBytes'
bad 2 "--summary describes the whole of the logs as text: -f does not apply" \
	"$GETCOUNTER" --input "$tmp/s.gcl" --summary -f json
bad 2 "--begin does not apply" "$GETCOUNTER" --input "$tmp/s.gcl" --summary --begin 2020-01-01T00:00:00
bad 2 "a counter path does not apply" "$GETCOUNTER" --input "$tmp/s.gcl" --summary '\Memory\*'
bad 2 "is the same file as --input" "$GETCOUNTER" --input "$tmp/s.gcl" --input "$tmp/./s.gcl" -f csv
# -cf - reads the paths from standard input
expect_exit 0 sh -c 'printf "# c\\n\\\\Memory\\\\Available MBytes\\n" | "$0" --root "$1" -cf - -f csv' \
	"$GETCOUNTER" "$F/t0"
printf '%s\n' "$out" | head -1 | grep -qF 'Memory\Available MBytes' || fail "-cf -: $out"
# --input - replays a log read from standard input (a pipe: it cannot seek)
"$GETCOUNTER" --root "$F/t0" --root "$F/t1" -o "$tmp/pipe.gcl" '\Memory\Available MBytes'
expect_exit 0 sh -c 'cat "$1" | "$0" --input - -f csv' "$GETCOUNTER" "$tmp/pipe.gcl"
[ "$out" = "$("$GETCOUNTER" --input "$tmp/pipe.gcl" -f csv)" ] || fail "--input - differs: $out"
bad 2 "standard input" sh -c 'cat "$1" | "$0" --input - --input - -f csv' "$GETCOUNTER" "$tmp/pipe.gcl"
bad 2 "standard input" sh -c 'printf "x\n" | "$0" --input - -cf - -f csv' "$GETCOUNTER"
bad 2 "not a getcounter log" sh -c 'printf "x\n" | "$0" --input - -f csv' "$GETCOUNTER"
bad 2 "empty" sh -c '"$0" --input - -f csv </dev/null' "$GETCOUNTER"
bad 2 "standard input is closed" sh -c '"$0" --input - -f csv <&-' "$GETCOUNTER"
# -cf - after --input - is refused before -cf reads the log as paths
bad 2 "both read standard input" sh -c 'cat "$1" | "$0" --input - -cf - -f csv' "$GETCOUNTER" \
	"$tmp/pipe.gcl"
# a terminal is not waited on: refused at once
if command -v script >/dev/null 2>&1; then
	tty_out=$(timeout 10 script -qec "\"$GETCOUNTER\" --input - -f csv" /dev/null </dev/null 2>&1 || true)
	case $tty_out in
	*"standard input is a terminal"*) ;;
	*) fail "--input - on a terminal: $tty_out" ;;
	esac
fi
# -o NAME.blg (typeperf -f BIN's name) records a gcl log
expect_exit 0 "$GETCOUNTER" --root "$F/t0" --root "$F/t1" -o "$tmp/t.blg" '\Memory\Available MBytes'
[ "$("$GETCOUNTER" --input "$tmp/t.blg" -f csv | wc -l)" -eq 2 ] || fail "-o NAME.blg is not a gcl log"
# ... and the same format twice is only said once
expect_exit 0 "$GETCOUNTER" --root "$F/t0" -f csv -f CSV '\Memory\Available MBytes'

# A source file unlike the kernel's (random bytes for /proc/stat) leaves its
# counters blank and says so once, naming the file; the run goes on (exit 0).
for t in t0 t1 t2; do
	mkdir -p "$tmp/garbage/$t/proc"
	cp -R "$F/$t/proc/." "$tmp/garbage/$t/proc/"
	head -c 3000 /dev/urandom | tr -d 'c' >"$tmp/garbage/$t/proc/stat"
	printf 'foo 1 2\n' >"$tmp/garbage/$t/proc/meminfo"
done
expect_exit 0 "$GETCOUNTER" --root "$tmp/garbage/t0" --root "$tmp/garbage/t1" \
	--root "$tmp/garbage/t2" -f csv '\Processor(*)\% Processor Time' '\System\Context Switches/sec' \
	'\Memory\Available MBytes'
[ "$(printf '%s\n' "$errout" | grep -c 'proc/stat: no cpuN line: its counters are left blank')" -eq 1 ] ||
	fail "garbage /proc/stat not said once: $errout"
[ "$(printf '%s\n' "$errout" | grep -c "proc/meminfo: no 'MemTotal:' line")" -eq 1 ] ||
	fail "garbage /proc/meminfo not said once: $errout"
[ "$(printf '%s\n' "$errout" | wc -l)" -eq 2 ] || fail "more than the two notes: $errout"
printf '%s\n' "$out" | sed -n 2,3p | grep -q '[0-9]"$' && fail "a value from garbage: $out"
# ... but an old kernel's files are not garbage: 2.4's /proc/stat has no
# procs_ lines, its /proc/meminfo begins with a table and lacks MemAvailable
for fx in cpu-old4 sysmem-old; do
	for c in '\System\Processor Queue Length' '\System\Blocked Threads' \
		'\Memory\Available MBytes' '\Memory\Committed Bytes'; do
		expect_exit 0 "$GETCOUNTER" --root "$FIXTURES/$fx/t0" --root "$FIXTURES/$fx/t1" -f csv "$c"
		case $errout in *"left blank"*) fail "$fx $c: a note on a good file: $errout" ;; esac
	done
done

# Every usage error above left stdout empty; a good run after them still works.
expect_exit 0 "$GETCOUNTER" --root "$F/t0" -f csv '\Memory\Available MBytes'
echo ok
