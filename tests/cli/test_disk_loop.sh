#!/bin/sh
# cli-run: exclusive (loop devices and mounts)
# test_disk_loop.sh - live: 16 MiB written with O_DIRECT to a loop device we
# attach must show in \PhysicalDisk(loopN)\Disk Write Bytes/sec: the two
# one-second values sum to 16 MiB within 10 %. Skips (77) only when losetup
# is missing or not permitted.
set -eu

: "${GETCOUNTER:?GETCOUNTER must name the getcounter binary}"

if ! command -v losetup >/dev/null 2>&1; then
	echo "skip: losetup is not installed"
	exit 77
fi

dir=$(mktemp -d)
dev=
pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	if [ -n "$dev" ]; then
		losetup -d "$dev" 2>/dev/null || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

dd if=/dev/zero of="$dir/disk.img" bs=1M count=64 status=none
if ! dev=$(losetup -f --show "$dir/disk.img" 2>"$dir/losetup.err"); then
	dev=
	if grep -qiE 'permission denied|operation not permitted' "$dir/losetup.err"; then
		echo "skip: losetup is not permitted here: $(cat "$dir/losetup.err")"
		exit 77
	fi
	echo "FAIL: losetup -f --show failed: $(cat "$dir/losetup.err")"
	exit 1
fi
name=${dev#/dev/}

# Read at 0, 1 and 2 s; the 16 MiB go in between.
"$GETCOUNTER" -i 1 -n 2 -f csv "\\PhysicalDisk($name)\\Disk Write Bytes/sec" \
	>"$dir/out.csv" 2>"$dir/err" &
pid=$!
sleep 0.3
dd if=/dev/zero of="$dev" bs=1M count=16 oflag=direct status=none
status=0
wait "$pid" || status=$?
pid=
if [ "$status" -ne 0 ]; then
	echo "FAIL: getcounter exited $status: $(cat "$dir/err")"
	exit 1
fi

# Rows after the header: "time","value"; a missing value is " ".
result=$(awk -F'","' '
	NR == 1 { next }
	{
		v = $2
		gsub(/["\r]/, "", v)
		if (v !~ /^[0-9.]+$/) { bad = 1 }
		sum += v
		rows++
	}
	END {
		want = 16 * 1048576
		ok = !bad && rows == 2 && sum >= want * 0.9 && sum <= want * 1.1
		printf "%s rows=%d sum=%.0f want=%d\n", ok ? "ok" : "bad", rows, sum, want
	}' "$dir/out.csv")
case $result in
ok*)
	echo "$result ($name)"
	;;
*)
	echo "FAIL: $result"
	cat "$dir/out.csv"
	exit 1
	;;
esac
