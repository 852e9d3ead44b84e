#!/bin/sh
# cli-run: long
# Crash safety of .gcl logs (issue 5): a live recording of every counter of
# a few sets is killed with SIGKILL at a random moment, 30 times, each into
# a fresh file; every other time the tail is also cut by 1..300 bytes (a
# write torn by a power loss). Each time the log must read back: --summary
# and a replay exit 0, the replay prints one frame per sample but the first,
# no damage is reported (only, where there is one, a torn tail, whose size
# is exact: the log without it reads clean), and --append resumes the log
# after its last good record: two sessions, the first replayed as before.
set -eu
. "$(dirname "$0")/lib.sh"
G=$GETCOUNTER
tmp=$(mktemp -d)
pid=""
trap '[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
P1='\Processor(*)\*'
P2='\Interrupt(*)\*'
P3='\Memory\*'
P4='\Network Adapter(*)\*'

# rnd N: a random number in 0 .. N-1
rnd() {
	echo $(($(od -An -tu2 -N2 /dev/urandom | tr -d ' ') % $1))
}
# field FILE NAME: the value of a --summary line "NAME : value"
field() {
	sed -n "s|^$2 *: ||p" "$1" | head -1
}
# frames: the number of json lines in $out
frames() {
	if [ -z "$out" ]; then echo 0; else printf '%s\n' "$out" | wc -l; fi
}

start=$(date +%s)
runs=30
torn_seen=0
# The earliest kill: how long this binary takes here to record its first
# two samples (startup and a keyframe; under ASan or on a busy machine far
# more than otherwise), and 50 ms more (five samples), so that every run's
# log holds a sample more than a cut of up to 300 bytes can tear.
t0=$(date +%s%N)
"$G" -n 2 -i 0.01 -o "$tmp/calibrate.gcl" "$P1" "$P2" "$P3" "$P4" 2>/dev/null ||
	fail "a recording of two samples failed"
least=$((($(date +%s%N) - t0) / 1000000 + 50))
i=0
while [ $i -lt $runs ]; do
	K=$tmp/k$i.gcl
	ms=$(($(rnd 551) + least))
	"$G" -i 0.01 --continuous -o "$K" "$P1" "$P2" "$P3" "$P4" 2>"$tmp/rec.err" &
	pid=$!
	sleep "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	pid=""
	[ -s "$K" ] || fail "run $i: no log after $ms ms: $(cat "$tmp/rec.err")"
	[ ! -s "$tmp/rec.err" ] || fail "run $i: the recorder said: $(cat "$tmp/rec.err")"
	cut=0
	if [ $((i % 2)) -eq 1 ]; then
		cut=$(($(rnd 300) + 1))
		truncate -s "-$cut" "$K"
	fi
	what="run $i (killed after $ms ms, $cut bytes cut)"

	expect_exit 0 "$G" --input "$K" --summary
	printf '%s\n' "$out" >"$tmp/sum"
	n=$(field "$tmp/sum" Samples)
	[ "$n" -ge 1 ] || fail "$what: $n samples"
	grep -q '^Damage *: at' "$tmp/sum" && fail "$what: damage in a killed log: $(grep '^Damage' "$tmp/sum")"
	[ "$(field "$tmp/sum" Sessions)" = 1 ] || fail "$what: sessions"
	field "$tmp/sum" Ended | grep -q '^without an end mark' || fail "$what: ended $(field "$tmp/sum" Ended)"
	torn=$(sed -n 's/^Torn tail *: \([0-9]*\) bytes ignored.*/\1/p' "$tmp/sum")
	if [ -n "$torn" ]; then
		torn_seen=$((torn_seen + 1))
		[ "$torn" -gt 0 ] || fail "$what: a torn tail of 0 bytes"
		grep -q '^Damage' "$tmp/sum" && fail "$what: a torn tail also reported as damage"
		# without the torn bytes the log reads clean, with the same samples
		size=$(stat -c %s "$K")
		head -c $((size - torn)) "$K" >"$tmp/good.gcl"
		"$G" --input "$tmp/good.gcl" --summary >"$tmp/gsum"
		[ "$(field "$tmp/gsum" Damage)" = none ] ||
			fail "$what: the log less its $torn torn bytes is not clean: $(grep -E '^(Damage|Torn)' "$tmp/gsum")"
		[ "$(field "$tmp/gsum" Samples)" = "$n" ] || fail "$what: the torn bytes held a sample"
	else
		[ "$(field "$tmp/sum" Damage)" = none ] || fail "$what: no damage line"
	fi

	expect_exit 0 "$G" --input "$K" -f json
	[ "$(frames)" -eq $((n - 1)) ] || fail "$what: $(frames) frames replayed of $n samples"
	printf '%s\n' "$out" >"$tmp/pre.json"
	pre=$(frames)
	if [ -n "$torn" ]; then
		printf '%s\n' "$errout" | grep -q "ignored a torn tail of $torn bytes" ||
			fail "$what: replay stderr: $errout"
	else
		[ -z "$errout" ] || fail "$what: replay stderr: $errout"
	fi

	# --append resumes after the last good record
	expect_exit 0 "$G" -i 0.01 -n 2 -o "$K" --append "$P1" "$P2" "$P3" "$P4"
	expect_exit 0 "$G" --input "$K" --summary
	printf '%s\n' "$out" >"$tmp/sum"
	[ "$(field "$tmp/sum" Sessions)" = "2 (restarts or appends; never derived across)" ] ||
		fail "$what: after --append: sessions $(field "$tmp/sum" Sessions)"
	[ "$(field "$tmp/sum" Samples)" = $((n + 3)) ] ||
		fail "$what: after --append: $(field "$tmp/sum" Samples) samples, wanted $n + 3"
	[ "$(field "$tmp/sum" Damage)" = none ] ||
		fail "$what: after --append: $(grep -E '^(Damage|Torn)' "$tmp/sum")"
	[ "$(field "$tmp/sum" Ended)" = cleanly ] || fail "$what: after --append: not ended cleanly"
	expect_exit 0 "$G" --input "$K" -f json
	[ -z "$errout" ] || fail "$what: after --append: replay stderr: $errout"
	# each session's first read only primes: n - 1 frames, then 3 - 1
	[ "$(frames)" -eq $((n + 1)) ] || fail "$what: after --append: $(frames) frames of $((n + 3)) samples"
	if [ "$pre" -gt 0 ]; then
		printf '%s\n' "$out" | head -n "$pre" | cmp -s - "$tmp/pre.json" ||
			fail "$what: after --append the first session replays differently"
	fi
	rm -f "$K"
	i=$((i + 1))
done
echo "$runs kills, $torn_seen with a torn tail, $(($(date +%s) - start)) s"
