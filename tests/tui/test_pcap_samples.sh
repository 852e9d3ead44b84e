#!/bin/sh
# --pcap files are a recording: the screen replays them as it replays
# --input logs (REPLAY, sample n/N, the replay keys), not LIVE at one
# interval a second. -n N gives N samples: a replay's first N, and live
# N reads after the priming one, then END and the screen stays until q.
set -eu
. "$(dirname "$0")/lib.sh"

if "$GETCOUNTER" -l 'Network Capture' | grep -q 'Not built in'; then
	echo "Network Capture is not built in: --pcap not checked"
elif ! command -v python3 >/dev/null 2>&1; then
	echo "no python3 to write a pcap file: --pcap not checked"
else
	# the frames of tests/cli/test_capture_files.sh: 1000.0 ARP broadcast
	# (60 B), 1000.5 and 1001.2 UDP in (134 B), 1003.9 ARP, 1005.0 UDP out
	python3 - "$W" <<'PY'
import struct, sys
d = sys.argv[1]
bc, peer, loc = b"\xff" * 6, b"\x02\0\0\0\0\x02", b"\x02\0\0\0\0\x01"
arp = bc + peer + b"\x08\x06" + bytes(46)
udp_in = loc + peer + b"\x08\x00" + bytes([0x45] + [0] * 8 + [17] + [0] * 10) + bytes(100)
udp_out = peer + loc + b"\x08\x00" + bytes([0x45] + [0] * 8 + [17] + [0] * 10) + bytes(100)
frames = [(1000, 0, arp), (1000, 500000, udp_in), (1001, 200000, udp_in), (1003, 900000, arp),
          (1005, 0, udp_out)]
with open(d + "/us.pcap", "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for sec, usec, fr in frames:
        f.write(struct.pack("<IIII", sec, usec, len(fr), len(fr)) + fr)
PY
	# buckets [1000,1001) .. [1005,1006): 6 samples (as -f csv gives);
	# frames received 2, 1, 0, 1, 0, 0 a second
	tui_start 100 30 "$utf8" --tui --pcap "$W/us.pcap" --local-mac 02:00:00:00:00:01 \
		'\Network Capture(*)\Frames Received/sec'
	wait_for "REPLAY paused"
	wait_for "sample 1/6"
	screen | grep -q "LIVE" && fail "a capture file is shown LIVE: $(screen)"
	screen | grep -q '^a .* 2\.00  .*Frames Received/sec' || fail "sample 1 is not 2/s: $(screen)"
	keys Right
	wait_for "sample 2/6"
	screen | grep -q '^a .* 1\.00  .*Frames Received/sec' || fail "sample 2 is not 1/s: $(screen)"
	keys End
	wait_for "sample 6/6"
	wait_for "END"
	keys Home
	wait_for "sample 1/6"
	# Space plays; + up to max speed (at 1x the 5 steps would take 5 s)
	keys Space + + + + + + +
	wait_for "sample 6/6"
	wait_for "END"
	keys q
	wait_rc 0
fi

# a replay with -n 4: its first 4 of 11 samples
tui_start 100 30 "$utf8" --tui -n 4 $roots "$P2"
wait_for "sample 1/4"
keys End
wait_for "sample 4/4"
keys q
wait_rc 0

# live with -n 3: 3 samples after the priming read (the log records the
# reads: 1 + 3 = 4, as without --tui), then END until q
tui_start 100 30 "$utf8" --tui -i 0.1 -n 3 --log "$W/n3.gcl" "$P2"
wait_for "END"
sleep 0.3
[ -f "$W/rc" ] && fail "the screen left by itself after -n: $(cat "$W/stderr")"
screen | grep -q "^END" || fail "the status is not END: $(screen | tail -1)"
# nothing more is read: a counter cannot be added
keys a
type_text '\Memory\Committed Bytes'
keys Enter
wait_for "the run has ended: nothing more is read"
keys q
wait_rc 0
"$GETCOUNTER" -i 0.1 -n 3 --log "$W/plain.gcl" "$P2" >/dev/null
"$GETCOUNTER" --input "$W/n3.gcl" --summary | grep -i "^Samples" >"$W/n3.sum"
"$GETCOUNTER" --input "$W/plain.gcl" --summary | grep -i "^Samples" >"$W/plain.sum"
[ -s "$W/n3.sum" ] || fail "no Samples line in the summary"
diff "$W/plain.sum" "$W/n3.sum" || fail "-n 3 on the screen sampled otherwise than without it"
