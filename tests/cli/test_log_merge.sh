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

# ---- 7. a counter the log lacks: the hint lists the log's ---------------
expect_exit 2 "$G" --input "$tmp/f.gcl" '\System\Threads'
printf '%s\n' "$errout" | grep -qF "getcounter --input $tmp/f.gcl -q 'System'" || fail "hint for a log: $errout"
expect_exit 2 "$G" --input "$tmp/f.gcl" '\Processor(*)\% Idle Time'
printf '%s\n' "$errout" | grep -qF "getcounter --input $tmp/f.gcl -l" || fail "hint for a log's sets: $errout"
expect_exit 2 "$G" --input "$tmp/f.gcl" -q Nope
printf '%s\n' "$errout" | grep -qF "getcounter --input $tmp/f.gcl -l" || fail "hint of -q for a log: $errout"

[ -z "$bugs" ] || fail "$bugs"
echo ok
