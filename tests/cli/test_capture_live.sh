#!/bin/sh
# cli-run: exclusive (captures on interfaces the machine shares, promiscuous mode)
# Network Capture live and from files: a veth pair between two namespaces
# made here; capture_send.py sends a known mix (unicast, broadcast ARP,
# multicast 239.1.2.3, IPv6 echo and ND, 802.1Q and 802.1ad+802.1Q tags, an
# unknown ethertype, a hop-by-hop then ICMPv6 frame; lengths known) from
# one end. getcounter captures both ends live (sent on A, received on B);
# tcpdump records B to a microsecond pcap and to a nanosecond one cut at 96
# bytes; a pcapng with two interfaces (µs and ns resolution) is written
# here from the first. Every counter is checked against the mix
# (capture_lib.sh works it out), live and file numbers alike.
set -e
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
G=$GETCOUNTER
capture_needs
command -v tcpdump >/dev/null 2>&1 || skip "needs tcpdump to record the pcap files"

capture_tmp
nsa=gcpa$$
nsb=gcpb$$
netns_add "$nsa"
netns_add "$nsb"
netns_veth "$nsa" "$nsb" "10.98.$(($$ % 250))"

ip netns exec "$nsb" tcpdump -i "$veth_b" -U -w "$tmp/us.pcap" 2>"$tmp/td1.err" &
pids="$pids $!"
ip netns exec "$nsb" tcpdump -i "$veth_b" -U -s 96 --time-stamp-precision nano \
	-w "$tmp/ns.pcap" 2>"$tmp/td2.err" &
pids="$pids $!"
ip netns exec "$nsb" "$G" "\\Network Capture($veth_b)\\*" -i 1 -n 4 -f csv >"$tmp/b.csv" \
	2>"$tmp/b.err" &
gb=$!
ip netns exec "$nsa" "$G" "\\Network Capture($veth_a)\\*" -i 1 -n 4 -f csv >"$tmp/a.csv" \
	2>"$tmp/a.err" &
ga=$!
pids="$pids $gb $ga"
# and "any" (SLL2: the packet type gives the direction) in both
ip netns exec "$nsb" "$G" "\\Network Capture(any)\\*" -i 1 -n 4 -f csv >"$tmp/anyb.csv" \
	2>"$tmp/anyb.err" &
gab=$!
ip netns exec "$nsa" "$G" "\\Network Capture(any)\\*" -i 1 -n 4 -f csv >"$tmp/anya.csv" \
	2>"$tmp/anya.err" &
gaa=$!
pids="$pids $gab $gaa"
# a user filter, live: ARP only
ip netns exec "$nsb" "$G" "\\Network Capture($veth_b)\\*" --capture-filter arp -i 1 -n 4 \
	-f csv >"$tmp/farp.csv" 2>"$tmp/farp.err" &
gf=$!
pids="$pids $gf"
# any recorded by tcpdump (Linux cooked v2, and v1)
ip netns exec "$nsb" tcpdump -i any -y LINUX_SLL2 -U -w "$tmp/any.pcap" 2>"$tmp/td3.err" &
pids="$pids $!"
ip netns exec "$nsb" tcpdump -i any -y LINUX_SLL -U -w "$tmp/any1.pcap" 2>"$tmp/td4.err" &
pids="$pids $!"
# the mix lands in the second sample (from 1 s to 2 s)
sleep 1.4
ip netns exec "$nsa" python3 "$here/capture_send.py" "$veth_a" "$mac_a" "$mac_b" mix
wait "$gb" || fail "getcounter on $veth_b failed: $(cat "$tmp/b.err")"
wait "$ga" || fail "getcounter on $veth_a failed: $(cat "$tmp/a.err")"
wait "$gab" || fail "getcounter on any in B failed: $(cat "$tmp/anyb.err")"
wait "$gaa" || fail "getcounter on any in A failed: $(cat "$tmp/anya.err")"
wait "$gf" || fail "getcounter --capture-filter arp failed: $(cat "$tmp/farp.err")"
sleep 0.3
for p in $pids; do kill -INT "$p" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=""

# live: every frame received on B, every frame sent on A
expect_mix "$tmp/b.csv" Received
expect_mix "$tmp/a.csv" Sent
# the frames landed in the sample of their time: only sample 2 has any
n=$(awk -F, 'NR > 1 { v = $2; gsub(/"/, "", v); if (v + 0 > 0) n++ } END { print n + 0 }' \
	"$tmp/b.csv")
[ "$n" = 1 ] || fail "the mix spread over $n samples, want 1: $(cat "$tmp/b.csv" | cut -c1-80)"
# Avg. Frame Size over that sample: 1750 / 16 = 109.375
close_to "$(csv_max "$tmp/b.csv" "Avg. Frame Size")" 109.375 0.001 ||
	fail "Avg. Frame Size $(csv_max "$tmp/b.csv" "Avg. Frame Size"), want 109.375"
# drops are reported every sample (0 here)
d=$(awk -F, 'NR > 1 { n++ } END { print n + 0 }' "$tmp/b.csv")
[ "$(csv_total "$tmp/b.csv" "Capture Dropped")" = 0 ] || fail "drops on a quiet veth"
[ "$d" = 4 ] || fail "$d samples, want 4"

# any: received classes from the packet type, as on the interface; the
# sent split from the IP destination: multicast items 3 (239.1.2.3), 5
# and 9 (ff02::) = 2 + 1 + 1 = 4, no IP broadcast, the other 16 - 4 = 12
# directed (ARP and 0x88b5 carry no IP destination). Live any is SLL, into
# which libpcap puts back the VLAN tag the kernel took off, so the bytes are
# the mix's 1750 (with SLL2 they were 1738: 4 short for each of the 3
# tagged frames of items 6 and 7). Item 7 (802.1ad + 802.1Q) stays IPv6 but
# not UDP: the kernel gives its cooked protocol as the innermost type with
# the inner tag's TCI still in front of the IPv6 header (seen with tcpdump
# -xx), so UDP is items 1 and 3 only: 3 + 2 = 5 (the man page says so).
for c in "Frames Received/sec:16" "Directed Frames Received/sec:10" \
	"Multicast Frames Received/sec:4" "Broadcast Frames Received/sec:2" "Frames Sent/sec:0" \
	"IPv4 Packets/sec:7" "IPv6 Packets/sec:5" "ARP Packets/sec:2" "Other Frames/sec:2" \
	"TCP Segments/sec:2" "ICMP Messages/sec:4" "Bytes Received/sec:1750" \
	"UDP Datagrams/sec:5" "Directed Bytes Received/sec:1054"; do
	expect_total "$tmp/anyb.csv" "${c%:*}" "${c##*:}"
done
# tcpdump's SLL (v1) file of any: the same, tags and all
"$G" --pcap "$tmp/any1.pcap" -f csv >"$tmp/any1f.csv" || fail "--pcap any1.pcap failed"
for c in "Frames Received/sec:16" "Bytes Received/sec:1750" "UDP Datagrams/sec:5" \
	"TCP Segments/sec:2" "Directed Bytes Received/sec:1054"; do
	expect_total "$tmp/any1f.csv" "${c%:*}" "${c##*:}"
done
# the same from tcpdump's SLL2 file of any
"$G" --pcap "$tmp/any.pcap" -f csv >"$tmp/anyf.csv" || fail "--pcap any.pcap failed"
for c in "Frames Received/sec:16" "Directed Frames Received/sec:10" \
	"Multicast Frames Received/sec:4" "Broadcast Frames Received/sec:2" "Frames Sent/sec:0" \
	"IPv4 Packets/sec:7" "IPv6 Packets/sec:5" "ARP Packets/sec:2" "Other Frames/sec:2" \
	"TCP Segments/sec:2" "ICMP Messages/sec:4"; do
	expect_total "$tmp/anyf.csv" "${c%:*}" "${c##*:}"
done
# an SLL2 file has no place for the stripped tag (documented): each of the
# 3 tagged frames counts 4 bytes short, 1750 - 3 x 4 = 1738
expect_total "$tmp/anyf.csv" "Bytes Received/sec" 1738
# --capture-filter arp, live: the 2 ARP frames, 2 x 60 = 120 bytes
expect_total "$tmp/farp.csv" "Frames Received/sec" 2
expect_total "$tmp/farp.csv" "Bytes Received/sec" 120
expect_total "$tmp/farp.csv" "IPv4 Packets/sec" 0
for c in "Frames Sent/sec:16" "Directed Frames Sent/sec:12" "Multicast Frames Sent/sec:4" \
	"Broadcast Frames Sent/sec:0" "Frames Received/sec:0"; do
	expect_total "$tmp/anya.csv" "${c%:*}" "${c##*:}"
done

# files: the same numbers; the 96-byte capture the same bytes
[ -s "$tmp/us.pcap" ] || fail "tcpdump wrote nothing: $(cat "$tmp/td1.err")"
"$G" --pcap "$tmp/us.pcap" -f csv >"$tmp/us.csv" || fail "--pcap us.pcap failed"
expect_mix "$tmp/us.csv" Received
"$G" --pcap "$tmp/ns.pcap" -f csv >"$tmp/ns.csv" || fail "--pcap ns.pcap failed"
expect_mix "$tmp/ns.csv" Received
# --local-mac: A's frames are sent
"$G" --pcap "$tmp/us.pcap" --local-mac "$mac_a" -f csv >"$tmp/lm.csv"
expect_mix "$tmp/lm.csv" Sent
# --capture-filter on a file: only the ARP frames (2 x 60 bytes)
"$G" --pcap "$tmp/us.pcap" --capture-filter arp -f csv >"$tmp/arp.csv"
expect_total "$tmp/arp.csv" "Frames Received/sec" 2
expect_total "$tmp/arp.csv" "Bytes Received/sec" 120

# pcapng: the same frames over two interfaces, resolutions 10^-6 and 10^-9
python3 - "$tmp/us.pcap" "$tmp/two.pcapng" "$tmp/mixed.pcapng" "$tmp/one.pcapng" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
magic, = struct.unpack("<I", data[:4])
assert magic == 0xa1b2c3d4, hex(magic)
frames, off = [], 24
while off < len(data):
    sec, usec, cap, wire = struct.unpack("<IIII", data[off:off + 16])
    frames.append((sec * 10**6 + usec, wire, data[off + 16:off + 16 + cap]))
    off += 16 + cap

def block(kind, body):
    body += bytes(-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", kind, n) + body + struct.pack("<I", n)

def idb(link, tsresol=None):
    opts = b""
    if tsresol is not None:
        opts = struct.pack("<HHB", 9, 1, tsresol) + bytes(3) + struct.pack("<HH", 0, 0)
    return block(1, struct.pack("<HHI", link, 0, 65535) + opts)

def epb(iface, ts, wire, pkt):
    return block(6, struct.pack("<IIIII", iface, ts >> 32, ts & 0xffffffff, len(pkt), wire) + pkt)

shb = block(0x0a0d0d0a, struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1))
out = shb + idb(1) + idb(1, 9)
for i, (us, wire, pkt) in enumerate(frames):
    out += epb(i % 2, us if i % 2 == 0 else us * 1000, wire, pkt)
open(sys.argv[2], "wb").write(out)
one = shb + idb(1, 9)
for us, wire, pkt in frames:
    one += epb(0, us * 1000, wire, pkt)
open(sys.argv[4], "wb").write(one)
mixed = shb + idb(1) + idb(113)
for i, (us, wire, pkt) in enumerate(frames):
    mixed += epb(i % 2, us, wire, pkt)
open(sys.argv[3], "wb").write(mixed)
EOF
"$G" --pcap "$tmp/two.pcapng" -f csv >"$tmp/ng.csv" || fail "--pcap two.pcapng failed"
expect_mix "$tmp/ng.csv" Received
"$G" --pcap "$tmp/one.pcapng" -f csv >"$tmp/ng1.csv" || fail "--pcap one.pcapng failed"
expect_mix "$tmp/ng1.csv" Received
# identical frames give identical numbers, whatever the file format
for f in ns ng ng1; do
	cut -d, -f2- "$tmp/us.csv" >"$tmp/us.vals"
	cut -d, -f2- "$tmp/$f.csv" | sed "s/file:[a-z]*\.pcap[ng]*/file:X/g" >"$tmp/$f.vals"
	sed "s/file:[a-z]*\.pcap[ng]*/file:X/g" "$tmp/us.vals" >"$tmp/us2.vals"
	cmp -s "$tmp/us2.vals" "$tmp/$f.vals" || fail "$f numbers differ from us.pcap"
done
# two interfaces of different link types: one clear error, exit 1
expect_exit 1 "$G" --pcap "$tmp/mixed.pcapng"
case $errout in
*"different link types"*) ;;
*) fail "mixed link types: '$errout'" ;;
esac
exit 0
