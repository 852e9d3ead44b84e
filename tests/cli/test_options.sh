#!/bin/sh
# The command line end to end: the Windows spellings, -n and the reads it
# makes, -o and the format its extension picks, --precision, -q/-l patterns,
# -q -x, -V/-h, the [[hh:]mm:]ss interval, and --continuous ended by SIGINT.
# Exact values come from the cli-basic series (see its README for the
# arithmetic).
set -eu
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/cli-basic
R3="--root $F/t0 --root $F/t1 --root $F/t2"
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
CR=$(printf '\r')

# rows TEXT: number of data rows of a csv/tsv text (lines after the header)
rows() { printf '%s\n' "$1" | sed '1d' | grep -c . || true; }
# now: seconds since the epoch, fractional
now() { date +%s.%N; }

# --- Windows spellings, live: a header and 2 rows ---------------------------
expect_exit 0 "$GETCOUNTER" -Counter '\Memory\Available MBytes' -SampleInterval 0.1 \
	-MaxSamples 2 -f csv
[ "$(rows "$out")" -eq 2 ] || fail "-Counter/-SampleInterval/-MaxSamples: $out"
printf '%s\n' "$out" | head -1 | grep -q '^"(PDH-CSV 4.0) ' || fail "no PDH header: $out"
printf '%s\n' "$out" | head -1 | grep -qF '\Memory\Available MBytes"' || fail "header: $out"
# The spellings are case-insensitive; typeperf's -si/-sc/-f CSV too.
expect_exit 0 "$GETCOUNTER" -COUNTER '\Memory\Available MBytes' -sampleinterval 0.05 \
	-maxsamples 2 -F csv
[ "$(rows "$out")" -eq 2 ] || fail "lower/upper-case spellings: $out"
expect_exit 0 "$GETCOUNTER" '\Memory\Available MBytes' -si 0.05 -sc 3 -f CSV
[ "$(rows "$out")" -eq 3 ] || fail "-si/-sc/-f CSV: $out"
expect_exit 0 "$GETCOUNTER" '\Memory\Available MBytes' -si 0.05 -sc 1 -f TSV
printf '%s\n' "$out" | head -1 | grep -q '^"(PDH-TSV 4.0) ' || fail "-f TSV: $out"
# -Continuous and -ListSet are accepted (ListSet lists; -Continuous under a
# series of roots ends with the series).
expect_exit 0 "$GETCOUNTER" -ListSet Memory
printf '%s\n' "$out" | grep -q '^CounterSetName : Memory' || fail "-ListSet: $out"
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -Continuous -f csv '\Memory\Available MBytes'
[ "$(rows "$out")" -eq 2 ] || fail "-Continuous over a series: $out"

# typeperf's -cf: comments, blank lines, quoted paths.
cat >"$tmp/counters.txt" <<'EOF'
# memory and cpu

\Memory\Available MBytes
  "\Processor(_Total)\% Processor Time"
EOF
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -cf "$tmp/counters.txt" -f csv
[ "$out" = "$(printf '%s\r\n' \
	'"(PDH-CSV 4.0) (UTC)(0)","\\fixture\Memory\Available MBytes","\\fixture\Processor(_Total)\% Processor Time"' \
	'"11/14/2023 22:30:02.000","1000.000000","57.500000"' \
	'"11/14/2023 22:30:04.000","500.000000","55.000000"')" ] ||
	fail "-cf output: $out"
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 --counter-file "$tmp/counters.txt" -f csv
[ "$(rows "$out")" -eq 2 ] || fail "--counter-file: $out"

# --- -n N: N rows from N+1 reads ---------------------------------------------
t0=$(now)
expect_exit 0 "$GETCOUNTER" -n 3 -i 0.1 -f csv '\Memory\Available MBytes'
t1=$(now)
[ "$(rows "$out")" -eq 3 ] || fail "-n 3 gave: $out"
# 4 reads 0.1 s apart span 0.3 s at least
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 0.29) }' || fail "-n 3 -i 0.1 took $t0..$t1"
# -n 1 primes with a first read: a rate has a value in the only sample.
expect_exit 0 "$GETCOUNTER" -n 1 -i 0.1 -f json '\System\Context Switches/sec'
printf '%s\n' "$out" | grep -q '"status": "OK"' || fail "-n 1 rate not OK: $out"
expect_exit 0 "$GETCOUNTER" -n5 -i 0.01 -f csv '\Memory\Available MBytes'
[ "$(rows "$out")" -eq 5 ] || fail "-n5 (attached) gave: $out"
expect_exit 0 "$GETCOUNTER" --samples=2 --interval=0.01 -f csv '\Memory\Available MBytes'
[ "$(rows "$out")" -eq 2 ] || fail "--samples=2 gave: $out"
# Under a series: every sample by default, fewer with -n.
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -f csv '\Memory\Available MBytes'
[ "$(rows "$out")" -eq 2 ] || fail "3 roots gave: $out"
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -n 1 -f csv '\Memory\Available MBytes'
[ "$(rows "$out")" -eq 1 ] || fail "3 roots -n 1 gave: $out"
# One root: a snapshot, one sample, two-read counters BAD_TIME.
expect_exit 0 "$GETCOUNTER" --root "$F/t0" -f json '\Memory\Available MBytes' \
	'\System\Context Switches/sec'
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "snapshot lines: $out"
printf '%s\n' "$out" | grep -q '"value": 2000, "status": "OK"' || fail "snapshot level: $out"
printf '%s\n' "$out" | grep -q '"value": null, "status": "BAD_TIME"' ||
	fail "snapshot rate not BAD_TIME: $out"

# --- bare words, --, and the defaults ----------------------------------------
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -f csv -- '\Memory\Available MBytes'
[ "$(rows "$out")" -eq 2 ] || fail "-- PATH: $out"
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -f csv
for p in '\Processor(_Total)\% Processor Time' '\Memory\Available MBytes' \
	'\Memory\% Committed Bytes In Use' '\PhysicalDisk(_Total)\% Disk Time' \
	'\PhysicalDisk(_Total)\Current Disk Queue Length' '\Network Adapter(eth0)\Bytes Total/sec' \
	'\Network Adapter(_Total)\Bytes Total/sec'; do
	printf '%s\n' "$out" | head -1 | grep -qF "\"\\\\fixture$p\"" || fail "default $p missing: $out"
done

# --- -o: the extension picks the format, -f wins over it ---------------------
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -o "$tmp/a.csv" '\Memory\Available MBytes'
[ -z "$out" ] || fail "-o also wrote stdout: $out"
head -1 "$tmp/a.csv" | grep -q '^"(PDH-CSV 4.0) ' || fail "a.csv: $(cat "$tmp/a.csv")"
[ "$(tail -1 "$tmp/a.csv")" = '"11/14/2023 22:30:04.000","500.000000"'"$CR" ] ||
	fail "a.csv last row: $(tail -1 "$tmp/a.csv")"
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -o "$tmp/a.JSON" '\Memory\Available MBytes'
[ "$(wc -l <"$tmp/a.JSON")" -eq 2 ] || fail "a.JSON: $(cat "$tmp/a.JSON")"
grep -q '^{"timestamp": "2023-11-14T22:30:02.000+00:00", "samples": \[' "$tmp/a.JSON" ||
	fail "a.JSON: $(cat "$tmp/a.JSON")"
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -o "$tmp/a.tsv" '\Memory\Available MBytes'
head -1 "$tmp/a.tsv" | grep -q '^"(PDH-TSV 4.0) ' || fail "a.tsv: $(cat "$tmp/a.tsv")"
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -f json -o "$tmp/b.csv" '\Memory\Available MBytes'
grep -q '"timestamp"' "$tmp/b.csv" || fail "-f json -o b.csv: $(cat "$tmp/b.csv")"
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -o "$tmp/plain.txt" '\Memory\Available MBytes'
grep -q 'Available MBytes' "$tmp/plain.txt" || fail "-o plain.txt (table): $(cat "$tmp/plain.txt")"
grep -q '"' "$tmp/plain.txt" && fail "-o plain.txt is not the table: $(cat "$tmp/plain.txt")"
# -o - is standard output
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -f csv -o - '\Memory\Available MBytes'
[ "$(rows "$out")" -eq 2 ] || fail "-o -: $out"

# --- --precision ------------------------------------------------------------
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -n 1 -f csv --precision 2 '\Processor(_Total)\% Processor Time'
[ "$(printf '%s\n' "$out" | sed -n 2p)" = '"11/14/2023 22:30:02.000","57.50"'"$CR" ] ||
	fail "--precision 2: $out"
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -n 1 -f tsv --precision 0 '\Memory\Available MBytes'
[ "$(printf '%s\n' "$out" | sed -n 2p)" = "\"11/14/2023 22:30:02.000\"	\"1000\"$CR" ] ||
	fail "--precision 0: $out"
# shellcheck disable=SC2086
expect_exit 0 "$GETCOUNTER" $R3 -n 1 -f csv '\Processor(_Total)\% Processor Time'
printf '%s\n' "$out" | grep -qF '"57.500000"' || fail "csv default precision 6: $out"

# --- -l and -q with patterns -------------------------------------------------
expect_exit 0 "$GETCOUNTER" -l
nsets=$(printf '%s\n' "$out" | grep -c '^CounterSetName : ')
[ "$nsets" -ge 5 ] || fail "-l lists $nsets sets"
expect_exit 0 "$GETCOUNTER" -l 'PhysicalD*'
[ "$(printf '%s\n' "$out" | grep '^CounterSetName : ')" = 'CounterSetName : PhysicalDisk' ] ||
	fail "-l Phys*: $out"
expect_exit 0 "$GETCOUNTER" --list-set memory system
[ "$(printf '%s\n' "$out" | grep -c '^CounterSetName : ')" -eq 2 ] || fail "-l memory system: $out"
printf '%s\n' "$out" | grep -q '^CounterSetType : SingleInstance' || fail "-l type: $out"
expect_exit 0 "$GETCOUNTER" -l -v Memory
printf '%s\n' "$out" | grep -q '^        [A-Z]' || fail "-l -v has no help text: $out"
expect_exit 0 "$GETCOUNTER" -q Memory
[ -n "$out" ] || fail "-q Memory printed nothing"
printf '%s\n' "$out" | grep -v '^\\Memory\\' && fail "-q Memory printed other sets"
printf '%s\n' "$out" | grep -qxF '\Memory\Available MBytes' || fail "-q Memory: $out"
expect_exit 0 "$GETCOUNTER" -q 'net*'
printf '%s\n' "$out" | grep -qxF '\Network Adapter(*)\Bytes Total/sec' || fail "-q net*: $out"
expect_exit 0 "$GETCOUNTER" -q 'Network Interface'
printf '%s\n' "$out" | grep -qxF '\Network Adapter(*)\Bytes Total/sec' || fail "-q alias: $out"
expect_exit 0 "$GETCOUNTER" -q
all=$(printf '%s\n' "$out" | wc -l)
expect_exit 0 "$GETCOUNTER" -q '*'
[ "$(printf '%s\n' "$out" | wc -l)" -eq "$all" ] || fail "-q and -q '*' differ"
expect_exit 0 "$GETCOUNTER" -q Processor Memory
n2=$(printf '%s\n' "$out" | wc -l)
[ "$n2" -gt 10 ] && [ "$n2" -lt "$all" ] || fail "-q Processor Memory: $n2 of $all lines"
expect_exit 0 "$GETCOUNTER" -q -v System
printf '%s\n' "$out" | grep -q '^        [A-Z]' || fail "-q -v has no help text: $out"

# -q -x: one line per current instance, under a root the fixture's.
expect_exit 0 "$GETCOUNTER" --root "$F/t0" -q -x 'Network Adapter'
for i in lo eth0 _Total; do
	printf '%s\n' "$out" | grep -qxF "\\Network Adapter($i)\\Bytes Total/sec" ||
		fail "-q -x lacks $i: $out"
done
printf '%s\n' "$out" | grep -qF '(*)' && fail "-q -x printed (*): $out"
expect_exit 0 "$GETCOUNTER" --root "$F/t0" -qx Processor
[ "$(printf '%s\n' "$out" | grep -F '\% User Time')" = "$(printf '%s\n' \
	'\Processor(0)\% User Time' '\Processor(1)\% User Time' '\Processor(_Total)\% User Time')" ] ||
	fail "-qx Processor: $out"
expect_exit 0 "$GETCOUNTER" --root "$F/t0" --instances -q PhysicalDisk
printf '%s\n' "$out" | grep -qxF '\PhysicalDisk(sda)\Disk Reads/sec' || fail "-q --instances: $out"
printf '%s\n' "$out" | grep -qF '(sda1)' && fail "a partition listed as a PhysicalDisk: $out"

# --- -V, -h ------------------------------------------------------------------
expect_exit 0 "$GETCOUNTER" -V
printf '%s\n' "$out" | grep -Eqx 'getcounter [0-9]+\.[0-9]+\.[0-9]+' || fail "-V: $out"
expect_exit 0 "$GETCOUNTER" --version
printf '%s\n' "$out" | grep -Eqx 'getcounter [0-9]+\.[0-9]+\.[0-9]+' || fail "--version: $out"
for h in -h --help -?; do
	expect_exit 0 "$GETCOUNTER" "$h"
	printf '%s\n' "$out" | head -1 | grep -q '^usage: getcounter' || fail "$h: $out"
	printf '%s\n' "$out" | grep -q -- '--counter-file' || fail "$h lacks options: $out"
done

# --- -i in [[hh:]mm:]ss ------------------------------------------------------
t0=$(now)
expect_exit 0 "$GETCOUNTER" -i 00:00:01 -n 1 -f csv '\Memory\Available MBytes'
t1=$(now)
[ "$(rows "$out")" -eq 1 ] || fail "-i 00:00:01: $out"
awk -v a="$t0" -v b="$t1" 'BEGIN { d = b - a; exit !(d >= 0.95 && d < 5) }' ||
	fail "-i 00:00:01 -n 1 took $t0..$t1, wanted about 1 s"
t0=$(now)
expect_exit 0 "$GETCOUNTER" -si 0:0.2 -sc 2 -f csv '\Memory\Available MBytes'
t1=$(now)
[ "$(rows "$out")" -eq 2 ] || fail "-si 0:0.2: $out"
awk -v a="$t0" -v b="$t1" 'BEGIN { d = b - a; exit !(d >= 0.38 && d < 4) }' ||
	fail "-si 0:0.2 -sc 2 took $t0..$t1, wanted about 0.4 s"

# --- --continuous, stopped by SIGINT ------------------------------------------
for fmt in csv json; do
	"$GETCOUNTER" --continuous -i 0.2 -f "$fmt" '\Memory\Available MBytes' \
		'\Processor(_Total)\% Processor Time' >"$tmp/cont.$fmt" 2>"$tmp/cont.err" &
	pid=$!
	sleep 1.5
	kill -INT "$pid"
	# wait at most 5 s for it to finish the sample and exit
	k=0
	while kill -0 "$pid" 2>/dev/null && [ $k -lt 50 ]; do
		sleep 0.1
		k=$((k + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		fail "--continuous -f $fmt did not stop on SIGINT"
	fi
	set +e
	wait "$pid"
	rc=$?
	set -e
	pid=""
	[ "$rc" -eq 0 ] || fail "--continuous -f $fmt: exit $rc after SIGINT: $(cat "$tmp/cont.err")"
	[ ! -s "$tmp/cont.err" ] || fail "--continuous -f $fmt wrote stderr: $(cat "$tmp/cont.err")"
	# the last byte is a line end: no partial line
	[ "$(tail -c 1 "$tmp/cont.$fmt" | od -An -c | tr -d ' ')" = '\n' ] ||
		fail "--continuous -f $fmt ends in a partial line"
	if [ "$fmt" = csv ]; then
		n=$(sed 1d "$tmp/cont.csv" | grep -c .)
		# every row: time and 2 values, CRLF
		bad=$(sed 1d "$tmp/cont.csv" |
			grep -cv '^"[0-9/]* [0-9:.]*","[0-9.]*","[0-9.]*"'"$CR"'$' || true)
		[ "$bad" -eq 0 ] || fail "--continuous csv has broken rows: $(cat "$tmp/cont.csv")"
	else
		n=$(grep -c . "$tmp/cont.json")
		bad=$(grep -cv '^{"timestamp": .*}]}$' "$tmp/cont.json" || true)
		[ "$bad" -eq 0 ] || fail "--continuous json has broken lines: $(cat "$tmp/cont.json")"
	fi
	# about 1.5 s / 0.2 s = 7 samples
	[ "$n" -ge 4 ] && [ "$n" -le 9 ] || fail "--continuous -f $fmt: $n samples in 1.5 s"
done

# SIGTERM ends a run the same way.
"$GETCOUNTER" --continuous -i 0.2 -f csv '\Memory\Available MBytes' >"$tmp/term.csv" &
pid=$!
sleep 0.7
kill -TERM "$pid"
set +e
wait "$pid"
rc=$?
set -e
pid=""
[ "$rc" -eq 0 ] || fail "--continuous: exit $rc after SIGTERM"
[ "$(sed 1d "$tmp/term.csv" | grep -c .)" -ge 1 ] || fail "SIGTERM: no rows: $(cat "$tmp/term.csv")"

# --- --smooth C: NDIS's load average, restarted by a value that is missing --
# Five roots: cli-basic t0..t2, then t3 without MemAvailable (Available
# MBytes unsupported: blank) and t4 with 2048000 kB (2000 MB); 2 s apart.
for k in 3 4; do
	cp -r "$F/t2" "$tmp/t$k"
	echo "$((1004 + 2 * (k - 2))).00 2008.00" >"$tmp/t$k/proc/uptime"
done
sed -i '/^MemAvailable/d' "$tmp/t3/proc/meminfo"
sed -i 's/^MemAvailable:.*/MemAvailable:    2048000 kB/' "$tmp/t4/proc/meminfo"
expect_exit 0 "$GETCOUNTER" $R3 --root "$tmp/t3" --root "$tmp/t4" -f csv --smooth 32 \
	'\Memory\Available MBytes'
# t1 1000 (the first value: as is); t2 (1000 x 32 + 500 x 96) / 128 = 625;
# t3 blank; t4 2000, the average started again (not (625 x 32 + 2000 x 96)
# / 128 = 1656.25)
got=$(printf '%s\n' "$out" | sed 1d | cut -d, -f2 | tr -d '"\r' | tr '\n' ' ')
[ "$got" = "1000.000000 625.000000   2000.000000 " ] || fail "--smooth 32: '$got'"
expect_exit 2 "$GETCOUNTER" --smooth 128 '\Memory\Available MBytes'
expect_exit 2 "$GETCOUNTER" --smooth 1 '\Memory\Available MBytes'
expect_exit 2 "$GETCOUNTER" --smooth x '\Memory\Available MBytes'
echo ok
