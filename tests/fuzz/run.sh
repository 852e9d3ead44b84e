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
for target in "$here"/fuzz_*.c; do
	name=$(basename "$target" .c)
	case " ${FUZZ_TARGETS:-$name} " in
	*" $name "*) ;;
	*) continue ;;
	esac
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-DGETCOUNTER_VERSION="\"$version\"" -I"$top/include" -o "$out/$name" "$target" $lib -lm
	corpus=$out/corpus-$name
	mkdir -p "$corpus"
	[ -d "$here/seeds/$name" ] && cp -n "$here/seeds/$name"/* "$corpus"/ 2>/dev/null || true
	echo "== $name for ${secs}s"
	"$out/$name" -max_total_time="$secs" -max_len=4096 "$corpus" >"$out/$name.log" 2>&1 ||
		{ tail -40 "$out/$name.log"; exit 1; }
	tail -1 "$out/$name.log"
done
