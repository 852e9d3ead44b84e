#!/bin/sh
# Every output format end to end on fixture series, against expected files.
# Values (checked by hand; sysmem-basic t0 -> t1 is 2 s, t1 -> t2 1.5 s):
#   Available MBytes   3900000 kB / 1024 = 3808.59375; 1024 kB / 1024 = 1
#   % Committed        100 x 4572861 / 6097148 = 75; 100 x 9145722 / 6097148 = 150
#   Context Switches   (1004000 - 1000000) / 2 = 2000; (1007000 - 1004000) / 1.5 = 2000
#   Load Average       1.25 and 10.05 from proc/loadavg
#   Processor          T = 0 (cpu lines unchanged): 0 % busy (the zero base)
#   time               btime 1700000000 + uptime 5002 s = 11/14/2023 23:36:42 UTC
# nic-sysfs (statuses): eth1 wraps (WRAPPED, 1296 bytes / 2 s = 648), eth2
# resets (RESET, " "), eth3 vanishes in t2 (NO_INSTANCE once), wlan0 appears
# (NEW), veth0's ifindex changes in t2 (RESET); csv keeps t1's columns.
set -eu
. "$(dirname "$0")/lib.sh"
exp=$(dirname "$0")/expected
S=$FIXTURES/sysmem-basic
N=$FIXTURES/nic-sysfs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for f in csv tsv json list table; do
	"$GETCOUNTER" --root "$S/t0" --root "$S/t1" --root "$S/t2" -f "$f" \
		'\Memory\Available MBytes' '\Memory\% Committed Bytes In Use' \
		'\System\Context Switches/sec' '\System\Load Average (1 min)' \
		'\Processor(*)\% Processor Time' >"$tmp/out.$f"
	cmp -s "$tmp/out.$f" "$exp/sysmem.$f" || { diff "$exp/sysmem.$f" "$tmp/out.$f"; fail "$f differs"; }
done

"$GETCOUNTER" --root "$N/t0" --root "$N/t1" --root "$N/t2" -f json '\Network Adapter(*)\Bytes Received/sec' |
	sed 's/"timestamp": "[^"]*"/"timestamp": "T"/' >"$tmp/nic.json"
cmp -s "$tmp/nic.json" "$exp/nic-statuses.json" || { diff "$exp/nic-statuses.json" "$tmp/nic.json"; fail "nic json differs"; }
"$GETCOUNTER" --root "$N/t0" --root "$N/t1" --root "$N/t2" -f csv '\Network Adapter(*)\Bytes Received/sec' |
	sed 's/^"[0-9][^"]*"/"T"/' >"$tmp/nic.csv"
cmp -s "$tmp/nic.csv" "$exp/nic-statuses.csv" || { diff "$exp/nic-statuses.csv" "$tmp/nic.csv"; fail "nic csv differs"; }

# Every json line parses, whatever the locale says about decimal points.
if command -v python3 >/dev/null; then
	LC_ALL=C.UTF-8 "$GETCOUNTER" --root "$N/t0" --root "$N/t1" -f json '\Network Adapter(*)\*' |
		python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' || fail "invalid json"
fi
# --utc names UTC with bias 0 in the PDH header; TZ moves the local times.
TZ=XXX-1 "$GETCOUNTER" --root "$S/t0" --root "$S/t1" -f csv '\Memory\Free Bytes' >"$tmp/tz.csv"
head -1 "$tmp/tz.csv" | grep -q '^"(PDH-CSV 4.0) (XXX)(-60)"' || fail "zone header: $(head -1 "$tmp/tz.csv")"
grep -q '^"11/15/2023 00:36:42.000"' "$tmp/tz.csv" || fail "local time not shifted"
TZ=XXX-1 "$GETCOUNTER" --utc --root "$S/t0" --root "$S/t1" -f csv '\Memory\Free Bytes' >"$tmp/utc.csv"
head -1 "$tmp/utc.csv" | grep -qF '(PDH-CSV 4.0) (UTC)(0)' || fail "--utc header"
grep -q '^"11/14/2023 23:36:42.000"' "$tmp/utc.csv" || fail "--utc time"
# One root is a snapshot: rates are BAD_TIME (missing), raw values shown.
"$GETCOUNTER" --root "$S/t0" -f json '\System\Context Switches/sec' '\System\Threads' >"$tmp/snap.json"
grep -q '"counter": "Context Switches/sec", "value": null, "status": "BAD_TIME"' "$tmp/snap.json" || fail "snapshot rate: $(cat "$tmp/snap.json")"
grep -q '"counter": "Threads", "value": [0-9]' "$tmp/snap.json" || fail "snapshot raw"
echo ok
