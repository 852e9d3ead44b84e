#!/bin/sh
# cli-run: exclusive (loop devices and mounts)
# test_logicaldisk_loop.sh - live: an ext4 filesystem on a 64 MiB loop device,
# mounted on a directory whose name has a space, as \LogicalDisk(<mount point>):
#   - it appears while getcounter runs (the mount table is polled);
#   - 16 MiB written to it show in Disk Write Bytes/sec (90 % .. 150 %);
#   - % Free Space falls, and Free Megabytes matches statvfs within 1 MB;
#   - ext4 on a path of local filesystems is asked in the read itself (its
#     statfs calls, traced with strace, are all the reading thread's);
#   - mounted under an overlay (a walk that may wait), it is asked by the
#     helper thread, and a statvfs call that hangs there blocks neither the
#     reads nor the exit;
#   - it goes when unmounted while getcounter runs.
# Skips (77) when not root, or losetup, mkfs.ext4 or mount are missing or
# not permitted. Everything is undone in a trap.
set -eu

. "$(dirname "$0")/lib.sh"
: "${GETCOUNTER:?GETCOUNTER must name the getcounter binary}"

[ "$(id -u)" -eq 0 ] || skip "skip: needs root to attach and mount a loop device"
for tool in losetup mkfs.ext4 mount umount; do
	command -v "$tool" >/dev/null 2>&1 || skip "skip: $tool is not installed"
done

dir=$(mktemp -d)
mnt="$dir/my disk"
ov="$dir/ov"
hung="$ov/hung disk"
dev=
mounted=
ov_mounted=
hung_mounted=
pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	if [ -n "$hung_mounted" ]; then
		umount "$hung" 2>/dev/null || umount -l "$hung" 2>/dev/null || true
	fi
	if [ -n "$ov_mounted" ]; then
		umount "$ov" 2>/dev/null || umount -l "$ov" 2>/dev/null || true
	fi
	if [ -n "$mounted" ]; then
		umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
	fi
	if [ -n "$dev" ]; then
		losetup -d "$dev" 2>/dev/null || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mkdir "$mnt"
dd if=/dev/zero of="$dir/disk.img" bs=1M count=64 status=none
if ! dev=$(losetup -f --show "$dir/disk.img" 2>"$dir/losetup.err"); then
	dev=
	if grep -qiE 'permission denied|operation not permitted' "$dir/losetup.err"; then
		skip "skip: losetup is not permitted here: $(cat "$dir/losetup.err")"
	fi
	fail "losetup -f --show failed: $(cat "$dir/losetup.err")"
fi
mkfs.ext4 -q -F "$dev" || fail "mkfs.ext4 $dev failed"

free_space="\\LogicalDisk($mnt)\\% Free Space"
free_mb="\\LogicalDisk($mnt)\\Free Megabytes"
reads="\\LogicalDisk($mnt)\\Disk Reads/sec"
write_bytes="\\LogicalDisk($mnt)\\Disk Write Bytes/sec"

# column N (1 = time) of CSV row R (1 = header) of file F, unquoted
cell() {
	awk -F'","' -v r="$2" -v n="$3" 'NR == r { v = $n; gsub(/["\r]/, "", v); print v }' "$1"
}
is_number() {
	case $1 in '' | *[!0-9.]*) return 1 ;; esac
}

# 1. The mount appears during a run: 5 reads 0.5 s apart, mounted after 0.8 s.
"$GETCOUNTER" -i 0.5 -n 4 -f csv "$free_mb" >"$dir/appear.csv" 2>"$dir/err" &
pid=$!
sleep 0.8
if ! mount "$dev" "$mnt" 2>"$dir/mount.err"; then
	if grep -qiE 'permission denied|operation not permitted' "$dir/mount.err"; then
		skip "skip: mount is not permitted here: $(cat "$dir/mount.err")"
	fi
	fail "mount $dev failed: $(cat "$dir/mount.err")"
fi
mounted=1
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || fail "getcounter exited $status: $(cat "$dir/err")"
first=$(cell "$dir/appear.csv" 2 2)
last=$(cell "$dir/appear.csv" 5 2)
[ "$first" = " " ] || { cat "$dir/appear.csv"; fail "before the mount: '$first', want no value"; }
is_number "$last" || { cat "$dir/appear.csv"; fail "after the mount: '$last', want a value"; }

# 2. Space before the write.
"$GETCOUNTER" -i 0.2 -n 1 -f csv "$free_space" "$free_mb" >"$dir/before.csv" 2>"$dir/err" ||
	fail "getcounter failed: $(cat "$dir/err")"
pct_before=$(cell "$dir/before.csv" 2 2)
is_number "$pct_before" || { cat "$dir/before.csv"; fail "no % Free Space before the write"; }

# 3. 16 MiB written (and synced) between reads 1 s apart.
"$GETCOUNTER" -i 1 -n 2 -f csv "$write_bytes" >"$dir/write.csv" 2>"$dir/err" &
pid=$!
sleep 0.3
dd if=/dev/urandom of="$mnt/file" bs=1M count=16 conv=fsync status=none
sync
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || fail "getcounter exited $status: $(cat "$dir/err")"
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
		ok = !bad && rows == 2 && sum >= want * 0.9 && sum <= want * 1.5
		printf "%s rows=%d sum=%.0f want=%d\n", ok ? "ok" : "bad", rows, sum, want
	}' "$dir/write.csv")
case $result in
ok*) echo "Disk Write Bytes/sec: $result" ;;
*) cat "$dir/write.csv"; fail "Disk Write Bytes/sec: $result" ;;
esac

# 4. Space after: % Free Space fell; Free Megabytes is statvfs's f_bavail x
# f_frsize / 2^20 (python's os.statvfs, else df -m, which rounds up).
"$GETCOUNTER" -i 0.2 -n 1 -f csv "$free_space" "$free_mb" >"$dir/after.csv" 2>"$dir/err" ||
	fail "getcounter failed: $(cat "$dir/err")"
pct_after=$(cell "$dir/after.csv" 2 2)
mb_after=$(cell "$dir/after.csv" 2 3)
is_number "$pct_after" && is_number "$mb_after" || { cat "$dir/after.csv"; fail "no values"; }
awk -v a="$pct_after" -v b="$pct_before" 'BEGIN { exit !(a < b) }' ||
	fail "% Free Space did not fall: $pct_before before, $pct_after after"
if command -v python3 >/dev/null 2>&1; then
	want=$(python3 -c 'import os, sys
s = os.statvfs(sys.argv[1])
print("%.6f" % (s.f_bavail * s.f_frsize / 1048576.0))' "$mnt")
else
	want=$(df -m -P "$mnt" | awk 'NR == 2 { print $4 }')
fi
close_to "$mb_after" "$want" 1 || fail "Free Megabytes $mb_after, statvfs says $want"
echo "% Free Space $pct_before -> $pct_after; Free Megabytes $mb_after (statvfs $want)"

# 5a. ext4 mounted where every filesystem on the way is local (ext4, tmpfs,
# ...) is asked in the read: every statfs call of it is the reading
# thread's (the first line strace writes, its execve, names that thread).
local_path() {
	awk -v d="$dir/" '
		{
			t = ""
			for (i = 6; i < NF; i++) if ($i == "-") { t = $(i + 1); break }
			if (index(d, $5 "/") == 1 || $5 == "/")
				if (t !~ /^(ext[234]|xfs|btrfs|f2fs|tmpfs|ramfs|devtmpfs)$/) bad = 1
		}
		END { exit bad }' /proc/self/mountinfo
}
if command -v strace >/dev/null 2>&1 && local_path; then
	# (LeakSanitizer cannot run under ptrace: an ASan build's leak check is off here)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=execve,statfs -o "$dir/strace.txt" \
		"$GETCOUNTER" -i 0.2 -n 4 -f csv "$free_mb" >"$dir/direct.csv" 2>"$dir/err" ||
		fail "getcounter under strace failed: $(cat "$dir/err")"
	calls=$(grep -c 'statfs("'"$mnt"'"' "$dir/strace.txt" || true)
	main=$(awk 'NR == 1 { print $1 }' "$dir/strace.txt")
	wrong=$(grep 'statfs("'"$mnt"'"' "$dir/strace.txt" | awk -v m="$main" '$1 != m' | wc -l)
	[ "$calls" -ge 4 ] && [ "$wrong" -eq 0 ] ||
		{ cat "$dir/strace.txt"; fail "statfs of '$mnt': $calls calls, $wrong not by the reader"; }
	echo "direct: $calls statfs calls of '$mnt', all by the reading thread"
else
	echo "no strace, or '$dir' is not on local filesystems: the direct statfs check is left out"
fi

# 5b. Mounted under an overlay, whose walk may wait (on what lies under
# it), the mount is asked by the helper thread: a statvfs call that hangs
# (5 s, made so by an LD_PRELOAD shim, for this mount point only) blocks
# neither the reads nor the exit: 7 reads 0.3 s apart end within 3 s, with
# every block counter and no space counter.
mkdir "$dir/lower" "$dir/upper" "$dir/work" "$ov"
if ! command -v "${CC:-cc}" >/dev/null 2>&1; then
	echo "no C compiler: the hung statvfs check is left out"
elif ! mount -t overlay overlay -o "lowerdir=$dir/lower,upperdir=$dir/upper,workdir=$dir/work" \
	"$ov" 2>"$dir/ov.err"; then
	echo "overlay cannot be mounted here ($(cat "$dir/ov.err")): the hung statvfs check is left out"
else
	ov_mounted=1
	umount "$mnt"
	mounted=
	mkdir "$hung"
	mount "$dev" "$hung" || fail "mount $dev on '$hung' failed"
	hung_mounted=1
	free_space="\\LogicalDisk($hung)\\% Free Space"
	reads="\\LogicalDisk($hung)\\Disk Reads/sec"
	cat >"$dir/hang.c" <<'EOF_C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>
int statvfs(const char *path, struct statvfs *buf)
{
	int (*real)(const char *, struct statvfs *) =
		(int (*)(const char *, struct statvfs *))dlsym(RTLD_NEXT, "statvfs");
	const char *hang = getenv("GC_HANG_PATH");
	if (hang && strcmp(path, hang) == 0)
		usleep(5000000);
	return real(path, buf);
}
EOF_C
	"${CC:-cc}" -shared -fPIC -o "$dir/hang.so" "$dir/hang.c" -ldl ||
		fail "cannot build the statvfs shim"
	start=$(date +%s.%N)
	GC_HANG_PATH="$hung" LD_PRELOAD="$dir/hang.so" ASAN_OPTIONS=verify_asan_link_order=0 \
		"$GETCOUNTER" -i 0.3 -n 6 -f csv "$free_space" "$reads" \
		>"$dir/hang.csv" 2>"$dir/err" || fail "getcounter failed: $(cat "$dir/err")"
	end=$(date +%s.%N)
	awk -v a="$start" -v b="$end" 'BEGIN { exit !(b - a < 3) }' ||
		fail "a hung statvfs held getcounter: $start .. $end"
	result=$(awk -F'","' '
		NR == 1 { next }
		{
			s = $2; r = $3
			gsub(/["\r]/, "", s); gsub(/["\r]/, "", r)
			if (s != " ") space++
			if (r ~ /^[0-9.]+$/) reads++
			rows++
		}
		END { printf "%s rows=%d space=%d reads=%d\n",
		      rows == 6 && space == 0 && reads == 6 ? "ok" : "bad", rows, space, reads }
	' "$dir/hang.csv")
	case $result in
	ok*) echo "hung statvfs (under an overlay): $result" ;;
	*) cat "$dir/hang.csv"; fail "hung statvfs: $result" ;;
	esac
	umount "$hung"
	hung_mounted=
	umount "$ov"
	ov_mounted=
	mount "$dev" "$mnt" || fail "mount $dev on '$mnt' again failed"
	mounted=1
fi

# 6. The mount goes during a run: unmounted after 0.8 s.
"$GETCOUNTER" -i 0.5 -n 4 -f csv "$free_mb" >"$dir/vanish.csv" 2>"$dir/err" &
pid=$!
sleep 0.8
umount "$mnt"
mounted=
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || fail "getcounter exited $status: $(cat "$dir/err")"
first=$(cell "$dir/vanish.csv" 2 2)
last=$(cell "$dir/vanish.csv" 5 2)
is_number "$first" || { cat "$dir/vanish.csv"; fail "before the unmount: '$first', want a value"; }
[ "$last" = " " ] || { cat "$dir/vanish.csv"; fail "after the unmount: '$last', want no value"; }
echo "ok ($dev on '$mnt')"
