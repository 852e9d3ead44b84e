#!/bin/sh
# gcl logs, the acceptance review's defects (issue 5): an output that is an
# input (or -o and --log the same file) is refused before anything is
# truncated; inputs recorded at the same time merge (each input derives
# against its own previous sample); --begin/--end outside the log say so
# and are inclusive to the millisecond; a boot id change inside a --root
# series is a gap; a counter a log lacks gets a hint that lists the log.
#
# The series built here (ser/s0 .. ser/s5): copies of sysmem-basic/t0 with
#   proc/uptime  5000 + 2k s   (btime 1700000000: sample k is at
#                               2023-11-14T23:36:40Z + 2k s = 23:36:(40+2k))
#   ctxt         1000000 + 1000 k (k + 1)
# so Context Switches/sec at sample k (over k-1 -> k, dt 2 s) is
#   (1000 k (k + 1) - 1000 (k - 1) k) / 2 = 1000 k,
# and a second series (ser2/s0 .. s5) with ctxt 5000000 + 3000 k, so its
# rate is 3000 / 2 = 1500 at every sample.
# Available MBytes is MemAvailable 4000000 kB / 1024 = 3906.25 throughout.
set -eu
. "$(dirname "$0")/lib.sh"
G=$GETCOUNTER
F=$FIXTURES
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CS='\System\Context Switches/sec'
AM='\Memory\Available MBytes'
PT='\Processor(_Total)\% Processor Time'
lf() {
	printf '%s\n' "$out" | tr -d '\r'
}
mkdir "$tmp/ser" "$tmp/ser2"
r1=""
r2=""
for k in 0 1 2 3 4 5; do
	for s in ser ser2; do
		cp -r "$F/sysmem-basic/t0" "$tmp/$s/s$k"
		echo "$((5000 + 2 * k)).00 $((9000 + 3 * k)).00" >"$tmp/$s/s$k/proc/uptime"
	done
	sed -i "s/^ctxt .*/ctxt $((1000000 + 1000 * k * (k + 1)))/" "$tmp/ser/s$k/proc/stat"
	sed -i "s/^ctxt .*/ctxt $((5000000 + 3000 * k))/" "$tmp/ser2/s$k/proc/stat"
	r1="$r1 --root $tmp/ser/s$k"
	r2="$r2 --root $tmp/ser2/s$k"
done
bugs=""

# ---- 1. an output that is an input, or -o and --log one file -------------
# shellcheck disable=SC2086
"$G" $r1 -o "$tmp/f.gcl" "$CS" "$AM"
cp "$tmp/f.gcl" "$tmp/f.orig"
ln -s f.gcl "$tmp/link.gcl"
for args in "-o $tmp/f.gcl -y" "--log $tmp/f.gcl -y -n 2" "-o $tmp/link.gcl -y" \
	"-o $tmp/../$(basename "$tmp")/f.gcl -y" "-o $tmp/f.gcl --append"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$G" --input "$tmp/f.gcl" $args
	[ "$(printf '%s\n' "$errout" | wc -l)" -eq 1 ] || fail "input as output ($args): $errout"
	printf '%s\n' "$errout" | grep -q 'f.gcl' || fail "input as output ($args) names no file: $errout"
	cmp -s "$tmp/f.gcl" "$tmp/f.orig" || fail "input as output ($args) changed the log"
done
# -o and --log the same file, existing or not yet
for f in same.csv new.csv; do
	echo keep >"$tmp/same.csv"
	expect_exit 2 "$G" --root "$tmp/ser/s0" --root "$tmp/ser/s1" "$AM" -o "$tmp/$f" --log "$tmp/$f" -y
	printf '%s\n' "$errout" | grep -q "$f" || fail "-o and --log $f: $errout"
	[ "$(cat "$tmp/same.csv")" = keep ] || fail "-o and --log $f: same.csv changed"
	[ ! -e "$tmp/new.csv" ] || fail "-o and --log $f: new.csv created"
done
expect_exit 2 "$G" --root "$tmp/ser/s0" --root "$tmp/ser/s1" "$AM" -o "$tmp/x.csv" --log "$tmp/../$(basename "$tmp")/x.csv"
[ ! -e "$tmp/x.csv" ] || fail "-o and --log x.csv (another spelling): created"
# different files are fine
expect_exit 0 "$G" --input "$tmp/f.gcl" -o "$tmp/g.csv" --log "$tmp/g.gcl"

# ---- 2. inputs recorded at the same time --------------------------------
# (a) m1 (ser) and m2 (ser2) hold the same counters at the same times: each
# input derives against its own previous read, so the rows alternate m1's
# rate 1000 k and m2's 1500 (never m2's read against m1's). m1's first
# read (23:36:40) is the reference; m2's first read only primes too (the
# run that recorded m2 printed no row for it), so no row at 23:36:40.
# % Processor Time: the cpu lines never change, 0 ticks busy of 0 -> 0.
# shellcheck disable=SC2086
"$G" $r1 -o "$tmp/m1.gcl" "$CS" "$PT"
# shellcheck disable=SC2086
"$G" $r2 -o "$tmp/m2.gcl" "$CS" "$PT"
hm='"(PDH-CSV 4.0) (UTC)(0)","\\fixture\System\Context Switches/sec","\\fixture\Processor(_Total)\% Processor Time"'
{
	printf '%s\n' "$hm"
	for k in 1 2 3 4 5; do
		printf '"11/14/2023 23:36:%s.000","%s.000000","0.000000"\n' $((40 + 2 * k)) $((1000 * k)) \
			$((40 + 2 * k)) 1500
	done
} >"$tmp/m.exp"
expect_exit 0 "$G" --input "$tmp/m1.gcl" --input "$tmp/m2.gcl" -f csv
lf | cmp -s - "$tmp/m.exp" || { lf | diff "$tmp/m.exp" - | head; fail "merged m1 m2"; }
# the table: one header, a row per read
expect_exit 0 "$G" --input "$tmp/m1.gcl" --input "$tmp/m2.gcl"
[ "$(printf '%s\n' "$out" | grep -c '^Time ')" -eq 1 ] || fail "merged m1 m2 table headers: $out"
[ "$(printf '%s\n' "$out" | grep -c '^23:36:4[2-9]\|^23:36:50')" -eq 10 ] || fail "merged m1 m2 table rows: $out"
# relogged (each input's reads of a set become a set of their own in the
# log), then replayed: the same csv; and relogged again: the same
expect_exit 0 "$G" --input "$tmp/m1.gcl" --input "$tmp/m2.gcl" -o "$tmp/m12.gcl"
[ -z "$errout" ] || fail "relog of m1 m2: $errout"
expect_exit 0 "$G" --input "$tmp/m12.gcl" -f csv
lf | cmp -s - "$tmp/m.exp" || { lf | diff "$tmp/m.exp" - | head; fail "relog of m1 m2"; }
"$G" --input "$tmp/m12.gcl" --summary | grep -q '^Sessions *: 1$' || fail "relog of m1 m2: a gap"
expect_exit 0 "$G" --input "$tmp/m12.gcl" -o "$tmp/m12b.gcl"
"$G" --input "$tmp/m12b.gcl" -f csv | tr -d '\r' | cmp -s - "$tmp/m.exp" || fail "relog of the relog of m1 m2"

# (b) d1 (ser: Available MBytes) and d2 (ser2: Context Switches/sec)
# recorded together: one frame per time, both columns from the first row:
# 3906.25 and 1500 at 23:36:42 .. 23:36:50.
# shellcheck disable=SC2086
"$G" $r1 -o "$tmp/d1.gcl" "$AM"
# shellcheck disable=SC2086
"$G" $r2 -o "$tmp/d2.gcl" "$CS"
hd='"(PDH-CSV 4.0) (UTC)(0)","\\fixture\Memory\Available MBytes","\\fixture\System\Context Switches/sec"'
{
	printf '%s\n' "$hd"
	for t in 42 44 46 48 50; do
		printf '"11/14/2023 23:36:%s.000","3906.250000","1500.000000"\n' $t
	done
} >"$tmp/d.exp"
expect_exit 0 "$G" --input "$tmp/d1.gcl" --input "$tmp/d2.gcl" -f csv
lf | cmp -s - "$tmp/d.exp" || { lf | diff "$tmp/d.exp" - | head; fail "merged d1 d2"; }
[ -z "$errout" ] || fail "merged d1 d2: $errout"
expect_exit 0 "$G" --input "$tmp/d1.gcl" --input "$tmp/d2.gcl"
[ "$(printf '%s\n' "$out" | grep -c '^Time ')" -eq 1 ] || fail "merged d1 d2 table headers: $out"
# relogged, then replayed: the same csv
expect_exit 0 "$G" --input "$tmp/d1.gcl" --input "$tmp/d2.gcl" -o "$tmp/d12.gcl"
expect_exit 0 "$G" --input "$tmp/d12.gcl" -f csv
lf | cmp -s - "$tmp/d.exp" || { lf | diff "$tmp/d.exp" - | head; fail "relog of d1 d2"; }
# d3: ser2 from sample 2 (23:36:44) on: its column is there from the first
# row, blank until d3's first rate (23:36:46)
d3r=""
for k in 2 3 4 5; do d3r="$d3r --root $tmp/ser2/s$k"; done
# shellcheck disable=SC2086
"$G" $d3r -o "$tmp/d3.gcl" "$CS"
{
	printf '%s\n' "$hd"
	printf '"11/14/2023 23:36:%s.000","3906.250000"," "\n' 42 44
	for t in 46 48 50; do
		printf '"11/14/2023 23:36:%s.000","3906.250000","1500.000000"\n' $t
	done
} >"$tmp/d3.exp"
expect_exit 0 "$G" --input "$tmp/d3.gcl" --input "$tmp/d1.gcl" -f csv "$AM" "$CS"
lf | cmp -s - "$tmp/d3.exp" || { lf | diff "$tmp/d3.exp" - | head; fail "merged d3 d1"; }

# ---- 4. --circular: the ring's segments follow the keyframe's size -------
# cpu-irq with these sets: the first keyframe (with the help texts) is about
# 17.5K, more than a 64K ring's 8 segments of 8188 bytes; the ring takes 2
# segments of (65536 - 32) / 2 = 32752 bytes instead
ci=""
for d in "$F"/cpu-irq/t*; do ci="$ci --root $d"; done
RS='\Processor(*)\*|\Processor Information(*)\*|\Memory\*|\System\*|\Softirq(*)\*|\Interrupt(*)\*|\PhysicalDisk(*)\*|\TCP\*'
IFS='|'
# shellcheck disable=SC2086
set -- $RS
unset IFS
# shellcheck disable=SC2086
expect_exit 0 "$G" $ci --max-size 64K --circular -o "$tmp/ring.gcl" "$@"
# shellcheck disable=SC2086
"$G" $ci -f csv "$@" >"$tmp/ring.exp"
"$G" --input "$tmp/ring.gcl" -f csv | cmp -s - "$tmp/ring.exp" || fail "64K ring replay differs"
"$G" --input "$tmp/ring.gcl" --summary | grep -q '^Format *: gcl 1.0, circular' || fail "64K ring: not circular"
# every counter: a keyframe of K bytes needs 2 (K + K/8 + 1) + 32 bytes,
# rounded up to a KiB: refused at the first sample, naming that size, and
# the file removed; that size works, a KiB less does not
# shellcheck disable=SC2086
expect_exit 1 "$G" $ci --max-size 64K --circular -o "$tmp/ring2.gcl" '\*(*)\*' '\*\*'
[ ! -e "$tmp/ring2.gcl" ] || fail "too small a ring left $(stat -c %s "$tmp/ring2.gcl") bytes"
key=$(printf '%s\n' "$errout" | sed -n 's/.*one keyframe of these counters takes \([0-9]*\) bytes: a circular log of them needs --max-size \([0-9]*\)K or more$/\1/p')
min=$(printf '%s\n' "$errout" | sed -n 's/.* needs --max-size \([0-9]*\)K or more$/\1/p')
[ -n "$key" ] && [ -n "$min" ] || fail "too small a ring: $errout"
[ "$min" -eq $(((32 + 2 * (key + key / 8 + 1) + 1023) / 1024)) ] || fail "too small a ring: $key bytes, ${min}K"
# shellcheck disable=SC2086
expect_exit 0 "$G" $ci --max-size "${min}K" --circular -o "$tmp/ring2.gcl" '\*(*)\*' '\*\*'
rm -f "$tmp/ring2.gcl"
# shellcheck disable=SC2086
expect_exit 1 "$G" $ci --max-size "$((min - 1))K" --circular -o "$tmp/ring2.gcl" '\*(*)\*' '\*\*'

# ---- 5. --begin/--end outside the log; inclusive to the millisecond -----
# f.gcl (ser s0..s5) runs 23:36:40 .. 23:36:50
for cut in "--begin 2023-11-14T23:37:00" "--end 2023-11-14T23:36:00" \
	"--begin 2023-11-14T23:36:42.5 --end 2023-11-14T23:36:43"; do
	# shellcheck disable=SC2086
	expect_exit 1 "$G" --input "$tmp/f.gcl" -f csv $cut -o "$tmp/cut.csv"
	[ "$(printf '%s\n' "$errout" | wc -l)" -eq 1 ] || fail "$cut: $errout"
	printf '%s\n' "$errout" | grep -q 'no sample .*: the log runs from 2023-11-14T23:36:40.000+00:00 to 2023-11-14T23:36:50.000+00:00$' ||
		fail "$cut: $errout"
	[ ! -e "$tmp/cut.csv" ] || fail "$cut: wrote a file"
done
# us: uptimes 5000.123456 + 2k, so samples at 23:36:40.123456 + 2k s,
# printed 23:36:40.123, 42.123, 44.123; rates 1000 and 2000 (as ser)
mkdir "$tmp/us"
ur=""
for k in 0 1 2; do
	cp -r "$tmp/ser/s$k" "$tmp/us/s$k"
	echo "$((5000 + 2 * k)).123456 9000.00" >"$tmp/us/s$k/proc/uptime"
	ur="$ur --root $tmp/us/s$k"
done
# shellcheck disable=SC2086
"$G" $ur -o "$tmp/us.gcl" "$CS"
hu='"(PDH-CSV 4.0) (UTC)(0)","\\fixture\System\Context Switches/sec"'
expect_exit 0 "$G" --input "$tmp/us.gcl" -f csv --end 2023-11-14T23:36:42.123
[ "$(lf)" = "$hu
\"11/14/2023 23:36:42.123\",\"1000.000000\"" ] || fail "--end a printed time: $out"
expect_exit 0 "$G" --input "$tmp/us.gcl" -f csv --begin '11/14/2023 23:36:44.123'
[ "$(lf)" = "$hu
\"11/14/2023 23:36:44.123\",\"2000.000000\"" ] || fail "--begin a printed time: $out"

# ---- 6. a new boot id inside a --root series is a gap -------------------
# ser s0..s2 with boot_id aaaa, bbbb, bbbb: sample 1 follows a reboot, so
# its rate is blank (not 1000); sample 2 derives against 1: 2000
mkdir "$tmp/boot"
br=""
for k in 0 1 2; do
	cp -r "$tmp/ser/s$k" "$tmp/boot/s$k"
	mkdir -p "$tmp/boot/s$k/proc/sys/kernel/random"
	id=bbbb
	[ $k -eq 0 ] && id=aaaa
	echo "$id" >"$tmp/boot/s$k/proc/sys/kernel/random/boot_id"
	br="$br --root $tmp/boot/s$k"
done
hb='"(PDH-CSV 4.0) (UTC)(0)","\\fixture\System\Context Switches/sec"'
bexp="$hb
\"11/14/2023 23:36:42.000\",\" \"
\"11/14/2023 23:36:44.000\",\"2000.000000\""
# shellcheck disable=SC2086
expect_exit 0 "$G" $br -f csv "$CS"
[ "$(lf)" = "$bexp" ] || fail "reboot in a series: $out"
# recorded: the log holds the reboot as a new session, and replays the gap
# shellcheck disable=SC2086
"$G" $br -o "$tmp/boot.gcl" "$CS"
expect_exit 0 "$G" --input "$tmp/boot.gcl" -f csv
[ "$(lf)" = "$bexp" ] || fail "reboot in a log: $out"
"$G" --input "$tmp/boot.gcl" --summary | grep -q '^Sessions *: 2 ' || fail "reboot: sessions"

# ---- 7. a counter the log lacks: the hint lists the log's ---------------
expect_exit 2 "$G" --input "$tmp/f.gcl" '\System\Threads'
printf '%s\n' "$errout" | grep -qF "getcounter --input $tmp/f.gcl -q 'System'" || fail "hint for a log: $errout"
expect_exit 2 "$G" --input "$tmp/f.gcl" '\Processor(*)\% Idle Time'
printf '%s\n' "$errout" | grep -qF "getcounter --input $tmp/f.gcl -l" || fail "hint for a log's sets: $errout"
expect_exit 2 "$G" --input "$tmp/f.gcl" -q Nope
printf '%s\n' "$errout" | grep -qF "getcounter --input $tmp/f.gcl -l" || fail "hint of -q for a log: $errout"

# ---- logs recorded one after the other ------------------------------------
# sa: Available MBytes from ser s0..s2 (23:36:40, 42, 44); sb: Context
# Switches/sec from ser s4, s5 (23:36:48, 50), after sa ended and more than
# sa's 2 s interval after its last read. The replay is sa's two rows and
# sb's one (its first read primes), each at its own time: sa's last read is
# not merged with sb's first (it was, stamped 23:36:48).
"$G" --root "$tmp/ser/s0" --root "$tmp/ser/s1" --root "$tmp/ser/s2" -o "$tmp/sa.gcl" "$AM"
"$G" --root "$tmp/ser/s4" --root "$tmp/ser/s5" -o "$tmp/sb.gcl" "$CS"
expect_exit 0 "$G" --input "$tmp/sa.gcl" --input "$tmp/sb.gcl" -f csv --utc
got=$(lf | sed 1d | cut -c13-20 | tr '\n' ' ')
[ "$got" = "23:36:42 23:36:44 23:36:50 " ] || fail "sequential logs: rows at '$got': $(lf)"
lf | grep -q '23:36:44.000","3906.250000"," "' || fail "sequential logs: sa's last row: $(lf)"
lf | grep -q '23:36:50.000"," ","5000.000000"' || fail "sequential logs: sb's row: $(lf)"

# ---- 8. merged inputs whose instance lists differ ------------------------
# P: 3 CPUs, uptime 6000 + 2k; Q: 2 CPUs, uptime 6001 + 2k, so the merged
# replay alternates P, Q, P, Q, ... Each input derives against its own
# previous read, but the rows were built on the other input's list: on Q's
# reads Processor(2) has no instance (it showed P's stale value, and read
# past the instances once the engine's arrays were fitted to them). User
# ticks rise by 100 k (k + 1) ... per CPU: each read's % User Time is a value.
mkdir "$tmp/P" "$tmp/Q"
rp=""
rq=""
for k in 0 1 2 3; do
	for s in P Q; do
		cp -r "$F/cpu-basic/t0" "$tmp/$s/s$k"
		up=$((6000 + 2 * k))
		[ $s = Q ] && up=$((up + 1))
		echo "$up.00 1.00" >"$tmp/$s/s$k/proc/uptime"
		n=3
		[ $s = Q ] && n=2
		{
			echo "cpu  $((100 * k * n)) 0 0 $((800 * k * n)) 0 0 0 0 0 0"
			c=0
			while [ $c -lt $n ]; do
				echo "cpu$c $((100 * k)) 0 0 $((800 * k)) 0 0 0 0 0 0"
				c=$((c + 1))
			done
			grep -v '^cpu' "$F/cpu-basic/t0/proc/stat"
		} >"$tmp/$s/s$k/proc/stat"
	done
	rp="$rp --root $tmp/P/s$k"
	rq="$rq --root $tmp/Q/s$k"
done
UT='\Processor(*)\% User Time'
# shellcheck disable=SC2086
"$G" $rp -o "$tmp/p.gcl" "$UT"
# shellcheck disable=SC2086
"$G" $rq -o "$tmp/q.gcl" "$UT"
expect_exit 0 "$G" --input "$tmp/p.gcl" --input "$tmp/q.gcl" -f csv
[ -z "$errout" ] || fail "merged P Q: $errout"
# columns: time, Processor(0), (1), (2), (_Total); rows P Q P Q P Q after
# the first read of each input. 100 / (100 + 800) = 11.1 % everywhere.
got=$(lf | sed 1d | awk -F'","' '{printf "%s|", $4}')
[ "$got" = '11.111111| |11.111111| |11.111111| |' ] ||
	bugs="$bugs; merged P Q: Processor(2) by row '$got': $(lf)"
lf | sed 1d | awk -F'","' 'NR % 2 == 0 && NR > 2 && $2 != "11.111111" {bad = 1} END {exit bad}' ||
	bugs="$bugs; merged P Q: Q's Processor(0): $(lf)"

[ -z "$bugs" ] || fail "$bugs"
echo ok
