#!/bin/sh
# cli-run: exclusive (loop devices and mounts)
# A disk that fills up mid-run: exit 1 with a message, and the file ends at
# the last whole record (json lines all parse, csv ends in CRLF), never in
# half a line. Uses a 16 KiB tmpfs the test mounts and removes.
set -eu
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
errfile=$(mktemp)
trap 'umount "$dir" 2>/dev/null; rm -rf "$dir" "$errfile"' EXIT
mount -t tmpfs -o size=16k tmpfs "$dir" 2>/dev/null || skip "cannot mount a tmpfs here (not root?)"
for fmt in json csv; do
	set +e
	"$GETCOUNTER" --continuous -i 0.01 -f $fmt -o "$dir/out.$fmt" '\Memory\*' '\System\*' 2>"$errfile"
	rc=$?
	set -e
	[ "$rc" -eq 1 ] || fail "$fmt on a full disk: exit $rc"
	grep -q 'No space left' "$errfile" || fail "$fmt: message: $(cat "$errfile")"
	[ -s "$dir/out.$fmt" ] || fail "$fmt: nothing was kept"
	if [ $fmt = json ] && command -v python3 >/dev/null; then
		python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$dir/out.json" ||
			fail "json ends in a broken line"
	fi
	[ "$(tail -c 1 "$dir/out.$fmt" | od -An -c | tr -d ' ')" = '\n' ] || fail "$fmt: no newline at the end"
	rm -f "$dir/out.$fmt"
done
echo ok
