#!/bin/sh
# Network Capture from files, as an ordinary user: pcap files written here
# (microsecond and nanosecond magic, one cut at 20 bytes) are cut into
# buckets of -i from the first frame: one sample per bucket, empty ones 0,
# each stamped with its bucket's end; a frame exactly on a boundary opens
# the next bucket; --local-mac decides the direction; and the options'
# mistakes are one-line errors (exit 2 for usage, 1 for a file).
set -e
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
G=$GETCOUNTER
command -v python3 >/dev/null 2>&1 || skip "needs python3 to write the pcap files"
if "$G" -l 'Network Capture' | grep -q 'Not built in'; then
	expect_exit 1 "$G" --pcap /dev/null
	case $errout in *"not built in: install libpcap-dev and rebuild"*) ;;
	*) fail "without libpcap: '$errout'" ;; esac
	skip "Network Capture is not built in (no libpcap-dev): checked the message only"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Frames (time, kind): 1000.0 ARP broadcast from the peer (60 B),
# 1000.5 UDP peer -> local (134 B), 1001.2 the same, 1003.9 ARP from the
# peer, 1005.0 UDP local -> peer (134 B): exactly on the 1 s boundary.
python3 - "$tmp" <<'EOF'
import struct, sys
d = sys.argv[1]
bc, peer, loc = b"\xff" * 6, b"\x02\0\0\0\0\x02", b"\x02\0\0\0\0\x01"
arp = bc + peer + b"\x08\x06" + bytes(46)
udp_in = peer[:0] + loc + peer + b"\x08\x00" + bytes([0x45] + [0] * 8 + [17] + [0] * 10) + bytes(100)
udp_out = peer + loc + b"\x08\x00" + bytes([0x45] + [0] * 8 + [17] + [0] * 10) + bytes(100)
frames = [(1000, 0, arp), (1000, 500000, udp_in), (1001, 200000, udp_in), (1003, 900000, arp),
          (1005, 0, udp_out)]
def write(name, nano, snap):
    with open(d + "/" + name, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d if nano else 0xa1b2c3d4, 2, 4, 0, 0, snap, 1))
        for sec, usec, fr in frames:
            cap = fr[:snap]
            f.write(struct.pack("<IIII", sec, usec * 1000 if nano else usec, len(cap), len(fr)) + cap)
write("us.pcap", False, 65535)
write("ns.pcap", True, 65535)
write("cut.pcap", True, 20)
# out of time order: 100.0, 101.5, 101.2 (earlier than the one before),
# 100.9 (too), 102.1
frames = [(100, 0, arp), (101, 500000, arp), (101, 200000, arp), (100, 900000, arp),
          (102, 100000, arp)]
write("ooo.pcap", False, 65535)
open(d + "/junk.pcap", "wb").write(b"not a capture file at all")
with open(d + "/empty.pcap", "wb") as f: # the header alone: no frame
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
EOF

expect_exit 0 "$G" --pcap "$tmp/us.pcap" --local-mac 02:00:00:00:00:01 --utc -f csv \
	'\Network Capture(*)\Frames Received/sec' '\Network Capture(*)\Frames Sent/sec' \
	'\Network Capture(*)\Bytes Received/sec' '\Network Capture(*)\Broadcast Frames Received/sec'
printf '%s\n' "$out" | tr -d '\r' >"$tmp/us.csv"
# buckets [1000,1001) [1001,1002) [1002,1003) [1003,1004) [1004,1005) [1005,1006):
#   received frames 2, 1, 0, 1, 0, 0; sent 0, 0, 0, 0, 0, 1;
#   received bytes 60 + 134 = 194, 134, 0, 60, 0, 0; broadcast 1, 0, 0, 1, 0, 0
cat >"$tmp/want.csv" <<'EOF'
"01/01/1970 00:16:41.000","2.000000","0.000000","194.000000","1.000000"
"01/01/1970 00:16:42.000","1.000000","0.000000","134.000000","0.000000"
"01/01/1970 00:16:43.000","0.000000","0.000000","0.000000","0.000000"
"01/01/1970 00:16:44.000","1.000000","0.000000","60.000000","1.000000"
"01/01/1970 00:16:45.000","0.000000","0.000000","0.000000","0.000000"
"01/01/1970 00:16:46.000","0.000000","1.000000","0.000000","0.000000"
EOF
tail -n +2 "$tmp/us.csv" | diff "$tmp/want.csv" - || fail "buckets of us.pcap differ (above)"

# nanosecond and cut files: the same numbers (the bytes are the wire length)
for f in ns cut; do
	expect_exit 0 "$G" --pcap "$tmp/$f.pcap" --local-mac 02:00:00:00:00:01 --utc -f csv \
		'\Network Capture(*)\Frames Received/sec' '\Network Capture(*)\Frames Sent/sec' \
		'\Network Capture(*)\Bytes Received/sec' '\Network Capture(*)\Broadcast Frames Received/sec'
	printf '%s\n' "$out" | tr -d '\r' | tail -n +2 | diff "$tmp/want.csv" - ||
		fail "$f.pcap differs from us.pcap (above)"
done

# (The frames are stamped 1000 s after 1970, so 1970 dates are right above.)

# a file without a frame (or none matching the filter): no sample, one line
# on stderr, exit 1 (nothing could be counted); it used to print one row of
# zeros dated 01/01/1970 00:00:01 and exit 0
expect_exit 1 "$G" --pcap "$tmp/empty.pcap" -f csv '\Network Capture(*)\Frames Received/sec'
[ -z "$out" ] || fail "a file without frames printed: $out"
case $errout in *"empty.pcap holds no frame"*) ;; *) fail "empty file: $errout" ;; esac
[ "$(printf '%s\n' "$errout" | wc -l)" -eq 1 ] || fail "empty file, more than one line: $errout"
expect_exit 1 "$G" --pcap "$tmp/us.pcap" --capture-filter 'tcp' -f csv
[ -z "$out" ] || fail "a filter matching nothing printed: $out"
case $errout in *"us.pcap holds no frame matching --capture-filter 'tcp'"*) ;;
*) fail "filter matching nothing: $errout" ;; esac
# one empty file among others: the others' timeline, the empty one 0, said
# once. us.pcap's 6 buckets (above), so 6 rows; without --local-mac its 5
# frames are all received (2 + 1 + 0 + 1 + 0 + 1 = 5); empty.pcap sums to 0.
expect_exit 0 "$G" --pcap "$tmp/us.pcap" --pcap "$tmp/empty.pcap" -f csv \
	'\Network Capture(*)\Frames Received/sec'
[ "$(printf '%s\n' "$out" | wc -l)" -eq 7 ] || fail "us + empty: $out"
printf '%s\n' "$out" >"$tmp/ue.csv"
expect_total "$tmp/ue.csv" "Frames Received/sec" 5 file:us.pcap
expect_total "$tmp/ue.csv" "Frames Received/sec" 0 file:empty.pcap
case $errout in *"empty.pcap holds no frame: its counts are 0"*) ;; *) fail "us + empty: $errout" ;; esac

# -i 2: [1000,1002) holds 3 frames, 194 + 134 = 328 B: 1.5 frames/s, 164 B/s
expect_exit 0 "$G" --pcap "$tmp/us.pcap" -i 2 -f csv '\Network Capture(*)\Bytes Received/sec'
printf '%s\n' "$out" | sed -n 2p | grep -q '"164.000000"' || fail "-i 2: $out"
# -n cuts the file short
expect_exit 0 "$G" --pcap "$tmp/us.pcap" -n 2 -f csv '\Network Capture(*)\Frames Received/sec'
[ "$(printf '%s\n' "$out" | wc -l)" -eq 3 ] || fail "-n 2 gave: $out"
# the instance is file:BASENAME; two files give two instances
expect_exit 0 "$G" --pcap "$tmp/us.pcap" --pcap "$tmp/ns.pcap" -n 1 -f csv \
	'\Network Capture(*)\Frames Received/sec'
case $out in *'Network Capture(file:us.pcap)'*'Network Capture(file:ns.pcap)'*) ;;
*) fail "instances: $out" ;; esac
# the same file twice is a usage error (it gave two identical columns), by
# any name; two files of one base name are file:us.pcap and file:us.pcap#2
expect_exit 2 "$G" --pcap "$tmp/us.pcap" --pcap "$tmp/us.pcap" -n 1
case $errout in *"is the same file as --pcap"*) ;; *) fail "same file twice: $errout" ;; esac
ln -s us.pcap "$tmp/link.pcap"
expect_exit 2 "$G" --pcap "$tmp/us.pcap" --pcap "$tmp/link.pcap" -n 1
mkdir "$tmp/d2"
cp "$tmp/ns.pcap" "$tmp/d2/us.pcap"
expect_exit 0 "$G" --pcap "$tmp/us.pcap" --pcap "$tmp/d2/us.pcap" -f csv \
	'\Network Capture(*)\Frames Received/sec'
case $out in *'Network Capture(file:us.pcap)\'*'Network Capture(file:us.pcap#2)\'*) ;;
*) fail "two us.pcap: $out" ;; esac
# and the second can be asked for by its name
expect_exit 0 "$G" --pcap "$tmp/us.pcap" --pcap "$tmp/d2/us.pcap" -f csv \
	'\Network Capture(file:us.pcap#2)\Frames Received/sec'
printf '%s\n' "$out" >"$tmp/u2.csv"
expect_total "$tmp/u2.csv" "Frames Received/sec" 5 'file:us.pcap#2'
# a file has no drops: UNSUPPORTED, not 0
expect_exit 0 "$G" --pcap "$tmp/us.pcap" -n 1 -f json '\Network Capture(*)\Capture Dropped'
printf '%s\n' "$out" | grep -q '"status": "UNSUPPORTED"' || fail "drops of a file: $out"

# -l -v: the 30 counters of COUNTERS.md section 9, each with its help line
expect_exit 0 "$G" -l 'Network Capture' -v
n=$(printf '%s\n' "$out" | awk '/^    \\Network Capture\(\*\)\\/ { n++; getline; if (/^        [A-Z]/) h++ }
	END { print n + 0, h + 0 }')
[ "$n" = "30 30" ] || fail "-l -v: counters and help lines $n, want 30 30"
for c in 'Frames Received/sec' 'Packets Sent Non-Unicast/sec' 'Avg. Frame Size' 'Capture Dropped' \
	'Interface Dropped' 'Other Frames/sec'; do
	printf '%s\n' "$out" | grep -qF "\\Network Capture(*)\\$c" || fail "-l lacks $c"
done

# mistakes
expect_exit 2 "$G" --pcap "$tmp/us.pcap" '\Processor(_Total)\% Processor Time'
expect_exit 2 "$G" --pcap "$tmp/us.pcap" --local-mac 02:00:00:00:01
case $errout in *"--local-mac '02:00:00:00:01' is not a MAC address"*) ;;
*) fail "bad MAC: $errout" ;; esac
expect_exit 2 "$G" --local-mac 02:00:00:00:00:01 '\Network Capture(lo)\Frames Sent/sec'
expect_exit 2 "$G" --pcap "$tmp/us.pcap" --continuous
expect_exit 2 "$G" --snaplen 5 '\Network Capture(lo)\Frames Sent/sec'
expect_exit 2 "$G" --capture-buffer 1K '\Network Capture(lo)\Frames Sent/sec'
# an option with nothing to act on is a usage error, one line (both were
# accepted silently): live-only options with --pcap, any capture option
# when no \Network Capture counter is asked for
for o in '--snaplen 96' '--capture-buffer 1M' --promisc '--user nobody'; do
	# shellcheck disable=SC2086
	expect_exit 2 "$G" --pcap "$tmp/us.pcap" $o
	case $errout in "getcounter: ${o%% *} has no effect on --pcap files"*) ;;
	*) fail "$o with --pcap: $errout" ;; esac
done
for o in '--snaplen 96' '--capture-buffer 1M' --promisc '--user nobody' '--capture-filter udp'; do
	# shellcheck disable=SC2086
	expect_exit 2 "$G" -n 1 $o '\Memory\Available MBytes'
	case $errout in "getcounter: ${o%% *} has no effect: the run captures no"*) ;;
	*) fail "$o without a capture counter: $errout" ;; esac
	[ "$(printf '%s\n' "$errout" | wc -l)" -eq 1 ] || fail "$o: more than one line: $errout"
done
# with a capture counter --capture-filter works on files
expect_exit 0 "$G" --pcap "$tmp/us.pcap" --capture-filter udp -f csv \
	'\Network Capture(*)\Frames Received/sec'
printf '%s\n' "$out" >"$tmp/f.csv"
# the three UDP frames of us.pcap, all received without --local-mac
expect_total "$tmp/f.csv" "Frames Received/sec" 3
# a file that is not there, a directory or not a capture: a usage error
# naming it (exit 2), as for --input
expect_exit 2 "$G" --pcap "$tmp/missing.pcap"
case $errout in *"cannot read --pcap $tmp/missing.pcap"*) ;; *) fail "missing file: $errout" ;; esac
[ "$(printf '%s\n' "$errout" | wc -l)" -eq 1 ] || fail "more than one line: $errout"
expect_exit 2 "$G" --pcap "$tmp/junk.pcap"
case $errout in *"--pcap $tmp/junk.pcap is not a pcap or pcapng capture"*) ;;
*) fail "junk file: $errout" ;; esac
expect_exit 2 "$G" --pcap "$tmp"
case $errout in *"is a directory"*) ;; *) fail "directory: $errout" ;; esac
# a pipe is read as it comes (the format check reads regular files only)
out=$(cat "$tmp/us.pcap" | "$G" --pcap /dev/stdin -f csv '\Network Capture(*)\Frames Received/sec') ||
	fail "--pcap /dev/stdin: exit $?"
printf '%s\n' "$out" >"$tmp/pipe.csv"
expect_total "$tmp/pipe.csv" "Frames Received/sec" 5
# a torn tail: us.pcap cut inside its last frame (24 + 76 + 150 + 150 + 76
# bytes hold the first 4 frames whole, 50 more the start of the fifth):
# the 4 frames count, with a warning; the sent frame is gone
head -c 526 "$tmp/us.pcap" >"$tmp/torn.pcap"
expect_exit 0 "$G" --pcap "$tmp/torn.pcap" -f csv '\Network Capture(*)\Frames Received/sec' \
	'\Network Capture(*)\Frames Sent/sec'
case $errout in *"torn.pcap: the file ends inside a frame"*"the 4 frames before it are counted"*) ;;
*) fail "torn pcap: $errout" ;; esac
printf '%s\n' "$out" >"$tmp/torn.csv"
expect_total "$tmp/torn.csv" "Frames Received/sec" 4
expect_total "$tmp/torn.csv" "Frames Sent/sec" 0
# a filter libpcap cannot compile for any link type: a usage error (exit 2)
# naming it, before anything opens
expect_exit 2 "$G" --pcap "$tmp/us.pcap" --capture-filter 'no such filter ((('
case $errout in *"--capture-filter 'no such filter ((('"*) ;; *) fail "bad filter: $errout" ;; esac
[ "$(printf '%s\n' "$errout" | wc -l)" -eq 1 ] || fail "bad filter, more than one line: $errout"
# a direction in the filter is refused (exit 2, one line): each interface
# has a handle per direction already, and one of them would match nothing
for f in outbound 'udp and inbound' 'not (inbound)'; do
	expect_exit 2 "$G" --pcap "$tmp/us.pcap" --capture-filter "$f"
	case $errout in *"--capture-filter '$f': '"*"bound' is not allowed"*) ;;
	*) fail "--capture-filter '$f': '$errout'" ;; esac
done
# ... but only as a word
expect_exit 2 "$G" --pcap "$tmp/us.pcap" --capture-filter 'host inboundx'
case $errout in *"not allowed"*) fail "'inboundx' taken for a direction: $errout" ;; esac
# frames out of time order: buckets are cut as the file is read, so the two
# late ones (101.2 in [101,102), 100.9 in [100,101)) count in the bucket
# being read, [101,102): 1, 3, 1 -- and one line says so
expect_exit 0 "$G" --pcap "$tmp/ooo.pcap" -f csv '\Network Capture(*)\Frames Received/sec'
[ "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f2 | tr -d '"\r' | tr '\n' ' ')" = \
	"1.000000 3.000000 1.000000 " ] || fail "out-of-order file: $out"
case $errout in
*"ooo.pcap: 2 frames are earlier than the frame before (the first: frame 3), counted in the bucket being read"*) ;;
*) fail "out-of-order file, message: '$errout'" ;;
esac
# --pcap - reads standard input (as tcpdump -r -): the same numbers as the
# file; given twice, a usage error; /dev/null is empty, as an empty file
expect_exit 0 sh -c "\"\$0\" --pcap - --local-mac 02:00:00:00:00:01 --utc -f csv \
	'\\Network Capture(*)\\Frames Received/sec' '\\Network Capture(*)\\Frames Sent/sec' \
	'\\Network Capture(*)\\Bytes Received/sec' \
	'\\Network Capture(*)\\Broadcast Frames Received/sec' <\"\$1\"" "$G" "$tmp/us.pcap"
printf '%s\n' "$out" | tr -d '\r' | tail -n +2 | diff "$tmp/want.csv" - ||
	fail "--pcap - differs from us.pcap (above)"
printf '%s\n' "$out" | head -1 | grep -q 'Network Capture(file:-)' || fail "--pcap -: instance"
expect_exit 2 "$G" --pcap - --pcap - </dev/null
case $errout in *"--pcap - is given twice"*) ;; *) fail "--pcap - twice: '$errout'" ;; esac
# a file with a capture's magic but not its whole header: the same words
head -c 10 "$tmp/us.pcap" >"$tmp/ten.pcap"
expect_exit 2 "$G" --pcap "$tmp/ten.pcap"
case $errout in *"ten.pcap is not a pcap or pcapng capture (too short)") ;;
*) fail "--pcap of a 10-byte file: '$errout'" ;; esac
expect_exit 2 "$G" --pcap /dev/null
case $errout in *"--pcap /dev/null is not a pcap or pcapng capture (too short)") ;;
*) fail "--pcap /dev/null: '$errout'" ;; esac
expect_exit 2 "$G" --pcap - </dev/null
case $errout in *"--pcap - is not a pcap or pcapng capture (too short)") ;;
*) fail "--pcap - </dev/null: '$errout'" ;; esac
expect_exit 2 sh -c '"$0" --pcap - <&-' "$G"
case $errout in *"--pcap -: standard input is closed") ;; *) fail "--pcap - <&-: '$errout'" ;; esac
expect_exit 2 sh -c '"$0" --pcap - --pcap /dev/stdin <"$1"' "$G" "$tmp/us.pcap"
case $errout in *"--pcap /dev/stdin is the same file as --pcap -"*) ;;
*) fail "--pcap - --pcap /dev/stdin: '$errout'" ;; esac
# a pipe that is not a capture: the same words (exit 1: known only once read)
expect_exit 1 sh -c 'printf "not a capture file at all" | "$0" --pcap -' "$G"
case $errout in *"--pcap - is not a pcap or pcapng capture") ;;
*) fail "--pcap - of junk: '$errout'" ;; esac
# -q -x lists the instances a path can name, opening nothing: the files'
# with --pcap (30 counters each), else the interfaces that are up and any
expect_exit 0 "$G" -qx --pcap "$tmp/us.pcap" 'Network Capture'
[ "$(printf '%s\n' "$out" | grep -c '^\\Network Capture(file:us\.pcap)\\')" -eq 30 ] &&
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 30 ] || fail "-qx --pcap: $out"
expect_exit 0 "$G" -qx 'Network Capture'
for i in lo any; do
	printf '%s\n' "$out" | grep -qF "\\Network Capture($i)\\Frames Received/sec" ||
		fail "-qx 'Network Capture' does not list $i: $out"
done
# -cf - and --pcap - cannot both have standard input, in either order
expect_exit 2 sh -c '"$0" --pcap - -cf - <"$1"' "$G" "$tmp/us.pcap"
case $errout in *"-cf - and --pcap - both read standard input"*) ;; *) fail "-cf - --pcap -: '$errout'" ;; esac
expect_exit 2 sh -c 'echo "\\Network Capture(*)\\Frames Received/sec" | "$0" -cf - --pcap -' "$G"
case $errout in *"-cf - and --pcap - both read standard input"*) ;; *) fail "--pcap - -cf -: '$errout'" ;; esac
# a filter the kernel cannot take (over 4096 instructions): a usage error,
# one line, the filter shortened so that the reason fits
f=$(python3 -c 'print(" or ".join("host ::%x" % i for i in range(300)))')
expect_exit 2 "$G" --pcap "$tmp/us.pcap" --capture-filter "$f"
case $errout in *" ... "*"compiles to "*" instructions: the kernel takes at most "*) ;;
*) fail "a filter of 300 hosts: '$errout'" ;; esac
[ "$(printf '%s\n' "$errout" | wc -l)" -eq 1 ] && [ ${#errout} -lt 300 ] || fail "a long filter's error: $errout"
# under --root nothing is captured (the tree holds no frames, and this
# machine's interfaces are not its): a named interface is UNSUPPORTED, a
# wildcard matches none, one line says why, and no packet socket opens
root0="$FIXTURES/cpu-irq/t0"
expect_exit 0 "$G" --root "$root0" -f csv '\Network Capture(*)\Frames Received/sec' \
	'\Network Capture(eth7)\Frames Sent/sec'
case $errout in *"Network Capture is UNSUPPORTED under --root"*) ;;
*) fail "capture under --root: '$errout'" ;; esac
[ "$(printf '%s\n' "$out" | head -1 | grep -o 'Network Capture([a-z0-9]*)' | sort -u)" = \
	'Network Capture(eth7)' ] || fail "capture under --root, columns: $(printf '%s\n' "$out" | head -1)"
# ... and its values are empty (UNSUPPORTED), never 0
[ "$(printf '%s\n' "$out" | sed -n 2p | tr -d "\r" | cut -d, -f2-)" = '" "," "' ] ||
	fail "capture under --root, values: $(printf '%s\n' "$out" | sed -n 2p)"
if command -v strace >/dev/null 2>&1; then
	strace -f -e trace=socket -o "$tmp/st" "$G" --root "$root0" \
		'\Network Capture(*)\Frames Received/sec' '\Network Capture(lo)\Frames Sent/sec' \
		>/dev/null 2>&1 || true
	! grep -q AF_PACKET "$tmp/st" || fail "a packet socket opened under --root: $(grep AF_PACKET "$tmp/st")"
fi
exit 0
