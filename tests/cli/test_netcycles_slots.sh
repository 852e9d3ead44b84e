#!/bin/sh
# cli-run: exclusive (eBPF programs attached for the whole machine)
# The eBPF counters (COUNTERS.md section 10): which interfaces the programs
# follow, whose names, and what is loaded. Live, as root; skips (77) like
# test_netcycles_live.sh when the counters cannot load here.
#
# 1. Slots go to the interfaces the paths name. Namespace gc-ns-PID-b holds
#    the veth end B (traffic from gc-ns-PID-a: 2000 UDP datagrams of 64
#    bytes, static neighbours, IPv6 off) and 40 ifb interfaces d00 ... d39,
#    made before B and sorting before it ("d" < "g"); with lo, 42 interfaces, and the
#    programs follow 32. Asked for B/* by name and for * (Sent Packets):
#    - B has values, and its Received Packets/sec over the CPUs is within
#      2 % of \Network Adapter(B)\Packets Received/sec, at least the 2000
#      datagrams (over 1.5 s: 2000 / 1.5 = 1333.3/s; 1300, 2.5 % of slack for
#      an interval a little longer);
#    - the * path gives 32 interfaces: B and the first 31 others in name
#      order (d00 ... d30); d31 ... d39 and lo have no column, never 0;
#    - stderr is exactly one line: the paths name 42 interfaces, 32 are
#      followed, 10 (42 - 32) have no instances.
# 2. Names and ifindexes from the same namespace: under `unshare -n`, whose
#    /sys still shows this machine's interfaces, a veth pair P0 -> P1 made
#    there (static neighbour): -q -x lists exactly lo, P0 and P1 (not the
#    stale /sys's eth0 or ifb0); 1000 datagrams from P0: P0's eBPF Sent
#    Packets/sec agrees (2 %) with Network Adapter's, P1's Received with
#    its; P0's Interrupts/sec is UNSUPPORTED (the stale /sys cannot say
#    whether it has IRQs) and lo's is 0 (lo is in the stale /sys with the
#    same ifindex 1 and has no device).
# 3. Nothing loads for a listing: -l -v, -q -v and -q -x -v of both sets
#    make no BPF_PROG_LOAD of our programs (strace; else bpftool polled),
#    and the -l -v note gives the frequency without "eBPF tp_btf". A run
#    asking only for % NET_RX Time has exactly our softirq_entry and
#    softirq_exit programs loaded (bpftool, while it runs), not all 9.
# The trap kills the helpers and deletes both namespaces.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netcycles_lib.sh"
netcycles_needs

pfx=gc-ns-$$
nsa=$pfx-a
nsb=$pfx-b
net=10.217.$(($$ % 250))
netcycles_tmp

nc='\Per Processor Network Activity Cycles'
pna='\Per Processor Network Activity'
# csv_sum FILE REGEX: the sum of the cells of the data rows under the headers
# (after \\host) matching REGEX; fails when none matches or a cell is not a
# number.
csv_sum() {
	python3 - "$1" "$2" <<'EOF'
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
pat = re.compile(sys.argv[2])
cols = [i for i, h in enumerate(rows[0]) if i and pat.search(re.sub(r"^\\\\[^\\]*", "", h))]
if not cols or len(rows) < 2:
    sys.exit(1)
s = 0.0
for r in rows[1:]:
    for i in cols:
        s += float(r[i])
print("%.3f" % s)
EOF
}
# csv_ifs FILE SET COUNTER: the interfaces of the SET(IF/CPU)\COUNTER columns
csv_ifs() {
	head -1 "$1" | tr ',' '\n' | sed -n "s/.*$2(\([^/]*\)\/[^)]*)\\\\$3\"\$/\1/p" | sort -u
}
# within A B PCT: |A - B| <= PCT % of B
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'
}
q() { printf '%s' "$1" | sed 's/[][\\.()*%/^$|+?{}]/\\&/g'; }

# ---- 1. slots for the named interfaces
netns_add "$nsa"
netns_add "$nsb"
# the ifbs first: B comes after them in ifindex (directory) order too
for i in $(seq -w 0 39); do
	ip -n "$nsb" link add "d$i" type ifb 2>"$tmp/ifb.err" ||
		skip "cannot add ifb interfaces here: $(cat "$tmp/ifb.err")"
done
netns_veth "$nsa" "$nsb" "$net"
B=$veth_b
nifs=$(ip -n "$nsb" -o link show | wc -l)
[ "$nifs" -eq 42 ] || fail "$nsb has $nifs interfaces, wanted 42"

burst() {
	sleep 0.3
	exec ip netns exec "$nsa" timeout 10 python3 -c '
import socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(2000):
    u.sendto(b"y" * 64, (sys.argv[1], 9))
' "$net.2"
}
burst &
sender=$!
pids="$pids $sender"
ip netns exec "$nsb" "$GETCOUNTER" -i 1.5 -n 1 -f csv "$nc($B/*)\\Received Packets/sec" \
	"$nc(*)\\Sent Packets/sec" "\\Network Adapter($B)\\Packets Received/sec" \
	>"$tmp/slots.csv" 2>"$tmp/slots.err" || fail "getcounter failed: $(cat "$tmp/slots.err")"
wait "$sender" || fail "the sender in $nsa failed"
pids=""
cat "$tmp/slots.err"
rx=$(csv_sum "$tmp/slots.csv" "^$(q "$nc($B/")[0-9]+\\)$(q '\Received Packets/sec')\$") ||
	fail "no Received Packets/sec for $B, named by its path, with 40 interfaces before it"
na=$(csv_sum "$tmp/slots.csv" "^$(q "\\Network Adapter($B)\\Packets Received/sec")\$") ||
	fail "no Network Adapter value for $B"
echo "$B (after 40 interfaces in name order): eBPF received $rx/s, Network Adapter $na/s"
awk -v v="$na" 'BEGIN { exit !(v >= 1300) }' || fail "the 2000 datagrams did not arrive ($na/s)"
within "$rx" "$na" 2 || fail "$B: Received Packets $rx not within 2 % of $na"
csv_ifs "$tmp/slots.csv" 'Cycles' 'Sent Packets\/sec' >"$tmp/ifs"
want=$(printf '%s\n' "$B" $(seq -f 'd%02g' 0 30) | sort)
[ "$(cat "$tmp/ifs")" = "$want" ] ||
	fail "the * path followed: $(tr '\n' ' ' <"$tmp/ifs"); wanted $B and d00 ... d30"
[ "$(wc -l <"$tmp/slots.err")" -eq 1 ] || fail "not one line on stderr: $(cat "$tmp/slots.err")"
grep -q 'the paths name 42 interfaces, the eBPF programs follow 32 at once; 10 ' "$tmp/slots.err" ||
	fail "the notice does not say 42 named, 32 followed, 10 left: $(cat "$tmp/slots.err")"

# ---- 3. what loads: nothing for a listing, only what is asked for a run
our_progs() {
	bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
names = ("softirq_raise", "softirq_entry", "softirq_exit", "napi_poll", "irq_handler_entry",
         "irq_handler_exit", "netif_receive_skb", "net_dev_start_xmit", "net_dev_xmit")
for p in json.load(sys.stdin):
    n = p.get("name", "")
    if n.split("_", 1)[0] in ("btf", "raw") and n.split("_", 1)[-1] in names:
        print(p["id"], n)
' || true
}
command -v bpftool >/dev/null 2>&1 || skip "no bpftool to see what is loaded"
for args in "-l -v" "-q -v" "-q -x -v"; do
	# shellcheck disable=SC2086
	if command -v strace >/dev/null 2>&1; then
		# (LeakSanitizer cannot run under ptrace: an ASan build leaks unchecked here)
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -e trace=bpf -o "$tmp/strace" "$GETCOUNTER" $args \
			'Per Processor Network Activity*' >"$tmp/list.out" 2>"$tmp/list.err" ||
			fail "getcounter $args failed: $(cat "$tmp/list.err")"
		loads=$(grep -c 'prog_name="\(btf\|raw\)_' "$tmp/strace" || true)
		[ "$loads" -eq 0 ] || fail "getcounter $args loaded $loads BPF programs of ours"
	else
		our_progs >"$tmp/before"
		"$GETCOUNTER" $args 'Per Processor Network Activity*' >"$tmp/list.out" 2>&1 &
		gc=$!
		while kill -0 "$gc" 2>/dev/null; do
			our_progs | grep -vxF -f "$tmp/before" >>"$tmp/seen" || true
		done
		wait "$gc" || fail "getcounter $args failed"
		[ ! -s "$tmp/seen" ] || fail "getcounter $args loaded: $(cat "$tmp/seen")"
	fi
	! grep -q 'eBPF tp_btf\|eBPF raw_tp' "$tmp/list.out" ||
		fail "getcounter $args describes loaded programs: $(grep -m1 'eBPF' "$tmp/list.out")"
done
grep -q '(Here nominal frequency [0-9]* MHz from \|(Here no nominal frequency known' "$tmp/list.out" ||
	fail "-q -x -v gives no frequency note"
echo "-l -v, -q -v, -q -x -v: no program loaded"

our_progs >"$tmp/before"
"$GETCOUNTER" -i 1 -n 2 "$pna(*)\\% NET_RX Time" >/dev/null 2>"$tmp/one.err" &
gc=$!
pids="$gc"
sleep 1.2
loaded=$(our_progs | grep -vxF -f "$tmp/before" | awk '{print $2}' | sort | tr '\n' ' ')
wait "$gc" || fail "getcounter % NET_RX Time failed: $(cat "$tmp/one.err")"
pids=""
echo "% NET_RX Time alone loaded: $loaded"
case $loaded in
"btf_softirq_entry btf_softirq_exit " | "raw_softirq_entry raw_softirq_exit ") ;;
*) fail "% NET_RX Time alone loaded: $loaded; wanted softirq_entry and softirq_exit only" ;;
esac

# ---- 2. names and ifindexes of the same namespace: unshare -n, stale /sys
command -v unshare >/dev/null 2>&1 || skip "no unshare"
P0=gcp0$$
P1=gcp1$$
unet=10.218.$(($$ % 250))
GC=$GETCOUNTER P0=$P0 P1=$P1 NET=$unet OUT=$tmp timeout 30 unshare -n sh -c '
set -eu
ip link set lo up
ip link add "$P0" type veth peer name "$P1"
ip link set "$P0" up
ip link set "$P1" up
ip addr add "$NET.1/24" dev "$P0"
mac=$(ip -o link show "$P1" | sed -n "s/.*link\/ether \([0-9a-f:]*\).*/\1/p")
ip neigh replace "$NET.2" lladdr "$mac" dev "$P0" nud permanent
ls /sys/class/net >"$OUT/sysfs"
"$GC" -q -x "Per Processor Network Activity Cycles" >"$OUT/unshare.list" 2>&1
(sleep 0.3; python3 -c "
import socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(1000):
    u.sendto(b\"z\" * 64, (sys.argv[1], 9))
" "$NET.2") &
nc="\\Per Processor Network Activity Cycles"
"$GC" -i 1.5 -n 1 -f csv "$nc($P0/_Total)\\Sent Packets/sec" "\\Network Adapter($P0)\\Packets Sent/sec" \
	"$nc($P1/_Total)\\Received Packets/sec" "\\Network Adapter($P1)\\Packets Received/sec" \
	"$nc($P0/_Total)\\Interrupts/sec" "$nc(lo/_Total)\\Interrupts/sec" \
	>"$OUT/unshare.csv" 2>"$OUT/unshare.err"
wait
' || fail "the run under unshare -n failed: $(cat "$tmp/unshare.err" 2>/dev/null)"
cat "$tmp/unshare.csv" "$tmp/unshare.err"
if grep -qx "$P0" "$tmp/sysfs"; then
	echo "note: /sys follows the new namespace here; the stale-/sys case is not shown"
fi
got=$(sed -n 's/.*Cycles(\([^/]*\)\/.*/\1/p' "$tmp/unshare.list" | sort -u | tr '\n' ' ')
want=$(printf '%s\n' lo "$P0" "$P1" | sort | tr '\n' ' ')
[ "$got" = "$want" ] || fail "under unshare -n, -q -x lists interfaces $got; wanted $want"
[ ! -s "$tmp/unshare.err" ] || fail "getcounter under unshare -n: $(cat "$tmp/unshare.err")"
s=$(csv_sum "$tmp/unshare.csv" "^$(q "$nc($P0/_Total)\\Sent Packets/sec")\$") || fail "no Sent Packets for $P0"
a=$(csv_sum "$tmp/unshare.csv" "^$(q "\\Network Adapter($P0)\\Packets Sent/sec")\$") ||
	fail "no Network Adapter Packets Sent for $P0"
r=$(csv_sum "$tmp/unshare.csv" "^$(q "$nc($P1/_Total)\\Received Packets/sec")\$") ||
	fail "no Received Packets for $P1"
b=$(csv_sum "$tmp/unshare.csv" "^$(q "\\Network Adapter($P1)\\Packets Received/sec")\$") ||
	fail "no Network Adapter Packets Received for $P1"
echo "under unshare -n: $P0 sent $s/s (eBPF) vs $a/s; $P1 received $r/s vs $b/s"
# 1000 datagrams over 1.5 s: 666.7/s (650: 2.5 % of slack)
awk -v v="$a" 'BEGIN { exit !(v >= 650) }' || fail "the 1000 datagrams were not sent ($a/s)"
within "$s" "$a" 2 || fail "$P0: Sent Packets $s not within 2 % of $a"
within "$r" "$b" 2 || fail "$P1: Received Packets $r not within 2 % of $b"
if ! grep -qx "$P0" "$tmp/sysfs"; then
	! csv_sum "$tmp/unshare.csv" "^$(q "$nc($P0/_Total)\\Interrupts/sec")\$" >/dev/null 2>&1 ||
		fail "$P0 Interrupts/sec has a value, though the stale /sys cannot say its IRQs"
fi
l=$(csv_sum "$tmp/unshare.csv" "^$(q "$nc(lo/_Total)\\Interrupts/sec")\$") ||
	fail "lo Interrupts/sec is not 0 with a value"
[ "$l" = "0.000" ] || fail "lo Interrupts/sec is $l, not 0"

netcycles_cleanup
left=$(netns_left "$pfx-")
[ -z "$left" ] || fail "namespaces left behind: $left"
echo "ok"
