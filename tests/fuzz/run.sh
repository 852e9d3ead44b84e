#!/bin/sh
# Build each libFuzzer target in tests/fuzz with clang and run it for a
# bounded time (FUZZ_SECONDS, default 20 each) from its seed corpus.
# FUZZ_TARGETS: the targets to run (names, e.g. "fuzz_gclog"), default all.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${FUZZ_SECONDS:-20}
# the version the Makefile passes to every compile (make fuzz sets it)
version=${GETCOUNTER_VERSION:-$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")}
out=$top/build-fuzz
if ! command -v clang >/dev/null; then
	echo "fuzz: clang is not installed (apt-get install clang); skipped"
	exit 0
fi
mkdir -p "$out"
lib=$(ls "$top"/src/*.c "$top"/src/provider/*.c "$top"/src/output/*.c | grep -v '/main\.c$')

# The targets asked for.
targets=""
for target in "$here"/fuzz_*.c; do
	name=$(basename "$target" .c)
	case " ${FUZZ_TARGETS:-$name} " in
	*" $name "*) targets="$targets $target" ;;
	esac
done

# Nonzero (true) when $out/$1 is missing or older than a source or header
# (make check's short run has built fuzz_gclog already for make fuzz).
stale() {
	[ -x "$out/$1" ] || return 0
	for f in "$here/$1.c" $lib "$top"/include/*.h "$top/Makefile"; do
		[ "$f" -nt "$out/$1" ] && return 0
	done
	return 1
}

# Build the stale ones at once, each its own clang (a whole build each).
pids=""
for target in $targets; do
	name=$(basename "$target" .c)
	stale "$name" || continue
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-DGETCOUNTER_VERSION="\"$version\"" -I"$top/include" -o "$out/$name.tmp" "$target" $lib \
		-lm >"$out/$name.build.log" 2>&1 &
	pids="$pids $!:$name"
done
failed=0
for pn in $pids; do
	name=${pn#*:}
	if wait "${pn%%:*}"; then
		mv "$out/$name.tmp" "$out/$name"
	else
		echo "fuzz: building $name failed:"
		cat "$out/$name.build.log"
		failed=1
	fi
done
[ $failed = 0 ] || exit 1

for target in $targets; do
	name=$(basename "$target" .c)
	corpus=$out/corpus-$name
	mkdir -p "$corpus"
	[ -d "$here/seeds/$name" ] && cp -n "$here/seeds/$name"/* "$corpus"/ 2>/dev/null || true
	echo "== $name for ${secs}s"
	"$out/$name" -max_total_time="$secs" -max_len=4096 "$corpus" >"$out/$name.log" 2>&1 ||
		{ tail -40 "$out/$name.log"; exit 1; }
	tail -1 "$out/$name.log"
done
