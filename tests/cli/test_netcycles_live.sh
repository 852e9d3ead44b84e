#!/bin/sh
# cli-run: exclusive (eBPF programs attached for the whole machine)
# The eBPF counters (COUNTERS.md section 10), live. Skips (77) unless root
# with the capabilities to load BPF, the kernel has BTF, getcounter was
# built with them, and `ip netns add` works.
#
# 1. Traffic over a veth pair between two network namespaces this test
#    creates (gc-nc-PID-a holds end A, NET.1; gc-nc-PID-b end B, NET.2; IPv6
#    off, static neighbours: the only frames on the link are ours), bounded:
#    a TCP transfer of 8 MB and a burst of 3000 UDP datagrams of 64 bytes
#    from A to B, from 0.3 s on, while getcounter in gc-nc-PID-b takes 4
#    reads 1 s apart (3 samples) with --log. Then, summed over the samples:
#    - % NET_RX Time and NAPI Polls/sec are above 0 on some CPU (the
#      receive softirq ran the backlog's NAPI poll for the veth);
#    - \Per Processor Network Activity Cycles(B/*)\Received Packets/sec over
#      every CPU is within 2 % of \Network Adapter(B)\Packets Received/sec
#      (both count the skbs veth handed to B: netif_receive_skb and veth's
#      rx_packets), and Sent Packets/sec (B's ACKs) within 2 % of Packets
#      Sent/sec, each at least 3000 (the datagrams) received;
#    - B/_Total Received Packets/sec is the sum over B's CPUs (to 0.5 %);
#    - B/* Interrupts/sec is 0 with a value (a veth has no IRQs: 0, OK);
#    - B/_Total Avg. Send Cycles per Packet is above 0 (cycles over sent
#      packets: the frequency scales the numerator only);
#    - replaying the log (--input) gives the same values (so the log keeps
#      that rule too).
# 2. While that getcounter runs, bpftool lists new programs with our names
#    (bpftool may not show pids): 7 loaded and attached (the hooks the
#    requested counters need; not softirq_raise, nor irq_handler_exit,
#    which only times the handlers); after it exits none of
#    those ids is left.
# 3. In the first namespace, for each interface with a device and IRQs
#    (this VM's virtio NIC), its Interrupts/sec on every IF/CPU and IF/_Total
#    is a number and agrees, sample by sample, with the /proc/interrupts-
#    based Per Processor Network Interface Card Activity counter of the same
#    instance (we only watch: no traffic is sent to it; up to 2 runs of 3 x
#    1.5 s wait for it to take an interrupt, and an idle one shows only
#    0 = 0, said so); a message says when no interface has IRQs.
# 4. As nobody without capabilities (setpriv): exit 0, exactly one line on
#    stderr saying to run as root or grant cap_bpf,cap_perfmon, the eBPF
#    counters empty (UNSUPPORTED) and the others printed; asking only for
#    a counter that needs no eBPF prints nothing on stderr; nobody with
#    only CAP_BPF and CAP_PERFMON (ambient) gets the values.
# 5. The raw_tp fallback (GETCOUNTER_BPF_RAW_TP=1), one sample of 1.5 s over
#    datagrams sent 200 every 50 ms until it is taken: B/_Total Received
#    Packets/sec within 2 % of Network Adapter's, and at least 1,200/s.
# The trap kills the sink and sender and deletes both namespaces.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netcycles_lib.sh"
netcycles_needs

pfx=gc-nc-$$
nsa=$pfx-a
nsb=$pfx-b
net=10.215.$(($$ % 250))
samples=3
udp_count=3000
netcycles_tmp

netns_add "$nsa"
netns_add "$nsb"
netns_veth "$nsa" "$nsb" "$net"

# The sink in B: a TCP listener that reads to the end and a UDP socket,
# ports to a file; it exits by itself after 20 s at most.
ip netns exec "$nsb" timeout 20 python3 -c '
import os, socket, sys, threading
t = socket.socket(); t.bind((sys.argv[2], 0)); t.listen(1)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind((sys.argv[2], 0))
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d %d\n" % (t.getsockname()[1], u.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
def drain_udp():
    while True:
        u.recv(2048)
threading.Thread(target=drain_udp, daemon=True).start()
c, _ = t.accept()
while c.recv(1 << 16):
    pass
' "$tmp/ports" "$net.2" &
pids="$pids $!"
i=0
while [ ! -s "$tmp/ports" ]; do
	i=$((i + 1))
	[ "$i" -le 100 ] || fail "the sink in $nsb did not start"
	sleep 0.1
done
read -r tport uport <"$tmp/ports"

# The sender in A, from 0.3 s on: 8 MB over TCP, then the UDP burst.
send() {
	sleep 0.3
	exec ip netns exec "$nsa" timeout 10 python3 -c '
import socket, sys
host, tport, uport, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
t = socket.create_connection((host, tport))
block = b"x" * 65536
for i in range(128):
    t.sendall(block)
t.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(n):
    u.sendto(b"y" * 64, (host, uport))
' "$net.2" "$tport" "$uport" "$udp_count"
}

B=$veth_b
nc='\Per Processor Network Activity Cycles'
pna='\Per Processor Network Activity'
set -- "$pna(*)\\% NET_RX Time" "$pna(*)\\NAPI Polls/sec" \
	"$nc($B/*)\\Received Packets/sec" "$nc($B/*)\\Sent Packets/sec" \
	"$nc($B/*)\\Interrupts/sec" "$nc($B/_Total)\\Avg. Send Cycles per Packet" \
	"\\Network Adapter($B)\\Packets Received/sec" "\\Network Adapter($B)\\Packets Sent/sec"
# our_progs: the ids of the loaded BPF programs named as ours
our_progs() {
	bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
names = ("softirq_raise", "softirq_entry", "softirq_exit", "napi_poll", "irq_handler_entry",
         "irq_handler_exit", "netif_receive_skb", "net_dev_start_xmit", "net_dev_xmit")
for p in json.load(sys.stdin):
    n = p.get("name", "")
    if n.split("_", 1)[0] in ("btf", "raw") and n.split("_", 1)[-1] in names:
        print(p["id"])
' || true
}
our_progs >"$tmp/before"
send &
sender=$!
pids="$pids $sender"
ip netns exec "$nsb" "$GETCOUNTER" -i 1 -n "$samples" -f csv --log "$tmp/run.gcl" "$@" \
	>"$tmp/out.csv" 2>"$tmp/out.err" &
gc=$!
pids="$pids $gc"
# the programs of this getcounter, by id, while it runs: ours by name,
# new since before it started (this bpftool may not list pids)
sleep 1.5
ids=$(our_progs | grep -vxF -f "$tmp/before" || true)
# the links to them: only the hooks the requested counters need (softirq
# entry and exit, napi_poll, irq_handler_entry (Interrupts/sec without the
# handler time), netif_receive_skb, net_dev_start_xmit and net_dev_xmit:
# 7 of 9; not softirq_raise nor irq_handler_exit)
nlinks=$(bpftool -j link show 2>/dev/null | IDS="$ids" python3 -c '
import json, os, sys
ids = set(int(i) for i in os.environ["IDS"].split())
print(sum(1 for l in json.load(sys.stdin) if l.get("prog_id") in ids))
' || echo "?")
wait "$gc" || fail "getcounter failed: $(cat "$tmp/out.err")"
wait "$sender" || fail "the sender in $nsa failed"
pids=${pids% *}
pids=${pids% *}
cat "$tmp/out.csv"
[ ! -s "$tmp/out.err" ] || fail "getcounter wrote to stderr: $(cat "$tmp/out.err")"

# ---- 2. attached while running, gone after
if command -v bpftool >/dev/null 2>&1; then
	[ -n "$ids" ] || fail "bpftool lists no BPF program of getcounter while it ran"
	nids=$(printf '%s\n' $ids | wc -l)
	# the kernel frees a program after an RCU grace period: give it 3 s
	tries=0
	while :; do
		left=""
		for id in $ids; do
			! bpftool prog show id "$id" >/dev/null 2>&1 || left="$left $id"
		done
		tries=$((tries + 1))
		[ -n "$left" ] && [ "$tries" -le 30 ] || break
		sleep 0.1
	done
	[ -z "$left" ] || fail "BPF programs of getcounter still loaded after it exited:$left"
	[ "$nids" = 7 ] || fail "$nids programs loaded, wanted the 7 the counters need"
	[ "$nlinks" = 7 ] || fail "$nlinks programs attached, wanted the 7 the counters need"
	echo "getcounter had $nids BPF programs loaded, $nlinks attached; none left after exit"
fi

# csv_cols FILE PATTERN: the sum over the data rows and over every column
# whose header path (after \\host) matches the awk regex PATTERN; fails
# unless there are $samples rows and every matching cell is a number.
csv_cols() {
	tr -d '\r' <"$1" | PAT=$2 awk -F'","' -v rows="$samples" '
		NR == 1 {
			for (i = 2; i <= NF; i++) {
				h = $i; gsub(/"/, "", h); sub(/^\\\\[^\\]*/, "", h)
				if (h ~ ENVIRON["PAT"]) col[i] = 1
			}
			next
		}
		{
			for (i in col) { v = $i; gsub(/"/, "", v); if (v !~ /^[0-9.]+$/) bad = 1; s += v }
			n++
		}
		END { if (bad || length(col) == 0 || n != rows) exit 1; printf "%.3f\n", s }'
}
# csv_max FILE PATTERN: the largest cell of the matching columns.
csv_max() {
	tr -d '\r' <"$1" | PAT=$2 awk -F'","' '
		NR == 1 {
			for (i = 2; i <= NF; i++) {
				h = $i; gsub(/"/, "", h); sub(/^\\\\[^\\]*/, "", h)
				if (h ~ ENVIRON["PAT"]) col[i] = 1
			}
			next
		}
		{ for (i in col) { v = $i; gsub(/"/, "", v); if (v + 0 > m) m = v + 0 } }
		END { printf "%.6f\n", m }'
}
# within A B PCT: |A - B| <= PCT % of B
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'
}

# ---- 1. the values
[ "$(($(wc -l <"$tmp/out.csv") - 1))" -eq "$samples" ] || fail "not $samples samples"
q() { printf '%s' "$1" | sed 's/[][\\.()*%/^$]/\\&/g'; }
rx_cpus=$(csv_cols "$tmp/out.csv" "^$(q "$nc($B/")[0-9]+\\)$(q '\Received Packets/sec')\$") ||
	fail "no Received Packets/sec per CPU for $B"
rx_total=$(csv_cols "$tmp/out.csv" "^$(q "$nc($B/_Total)\\Received Packets/sec")\$") ||
	fail "no $B/_Total Received Packets/sec"
tx_cpus=$(csv_cols "$tmp/out.csv" "^$(q "$nc($B/")[0-9]+\\)$(q '\Sent Packets/sec')\$") ||
	fail "no Sent Packets/sec per CPU for $B"
irqs=$(csv_cols "$tmp/out.csv" "^$(q "$nc($B/")[^)]*\\)$(q '\Interrupts/sec')\$") ||
	fail "no Interrupts/sec value for $B (a veth has none: 0, not UNSUPPORTED)"
na_rx=$(csv_cols "$tmp/out.csv" "^$(q "\\Network Adapter($B)\\Packets Received/sec")\$") ||
	fail "no Network Adapter Packets Received/sec"
na_tx=$(csv_cols "$tmp/out.csv" "^$(q "\\Network Adapter($B)\\Packets Sent/sec")\$") ||
	fail "no Network Adapter Packets Sent/sec"
netrx=$(csv_max "$tmp/out.csv" "^$(q "$pna(")[0-9]+\\)$(q '\% NET_RX Time')\$")
polls=$(csv_max "$tmp/out.csv" "^$(q "$pna(")[0-9]+\\)$(q '\NAPI Polls/sec')\$")
echo "$B over $samples samples: Received Packets $rx_cpus (eBPF, CPUs summed), $rx_total" \
	"(_Total) vs $na_rx (Network Adapter); Sent $tx_cpus vs $na_tx; Interrupts $irqs;" \
	"max % NET_RX Time $netrx, max NAPI Polls/sec $polls"
awk -v v="$na_rx" -v n="$udp_count" 'BEGIN { exit !(v >= n) }' ||
	fail "Network Adapter saw $na_rx packets received, fewer than the $udp_count datagrams"
within "$rx_cpus" "$na_rx" 2 || fail "Received Packets $rx_cpus not within 2 % of $na_rx"
within "$tx_cpus" "$na_tx" 2 || fail "Sent Packets $tx_cpus not within 2 % of $na_tx"
within "$rx_total" "$rx_cpus" 0.5 || fail "$B/_Total $rx_total is not the CPUs' sum $rx_cpus"
[ "$irqs" = "0.000" ] || fail "a veth's Interrupts/sec summed to $irqs, not 0"
awk -v v="$netrx" 'BEGIN { exit !(v > 0) }' || fail "% NET_RX Time never above 0"
awk -v v="$polls" 'BEGIN { exit !(v > 0) }' || fail "NAPI Polls/sec never above 0"
# (UNSUPPORTED, an empty cell, only where no nominal frequency is known:
# the -l -v help says which)
if spc=$(csv_cols "$tmp/out.csv" "^$(q "$nc($B/_Total)\Avg. Send Cycles per Packet")\$"); then
	echo "$B/_Total Avg. Send Cycles per Packet summed over the samples: $spc"
	awk -v v="$spc" 'BEGIN { exit !(v > 0) }' || fail "Avg. Send Cycles per Packet never above 0"
else
	"$GETCOUNTER" -l -v 'Per Processor Network Activity Cycles' | grep -q 'no nominal frequency known' ||
		fail "Avg. Send Cycles per Packet has no value though a frequency is known"
	echo "no nominal frequency known here: Avg. Send Cycles per Packet not checked"
fi

# replaying the log gives the same numbers
"$GETCOUNTER" --input "$tmp/run.gcl" -f csv "$@" >"$tmp/replay.csv" 2>"$tmp/replay.err" ||
	fail "replay failed: $(cat "$tmp/replay.err")"
cut -d, -f2- "$tmp/out.csv" >"$tmp/a"
cut -d, -f2- "$tmp/replay.csv" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "the replay differs: $(diff "$tmp/a" "$tmp/b" | head -5)"

# ---- 3. IRQs of interfaces with a device, here (only watched)
ifs=$("$GETCOUNTER" -q -x 'Per Processor Network Interface Card Activity' 2>/dev/null |
	sed -n 's/.*Activity(\(.*\)\/_Total).*/\1/p' || true)
[ -n "$ifs" ] || echo "no interface here has IRQs: Interrupts/sec agreement with /proc/interrupts not checked"
pnic='\Per Processor Network Interface Card Activity'
for ifn in $ifs; do
	# 3 samples of 1.5 s, every CPU and _Total of both sets; a second run
	# when the interface took no interrupt in the first (we send it nothing)
	for try in 1 2; do
		"$GETCOUNTER" -i 1.5 -n 3 -f csv "$nc($ifn/*)\\Interrupts/sec" "$pnic($ifn/*)\\Interrupts/sec" \
			>"$tmp/irq.csv" 2>"$tmp/irq.err" || fail "getcounter on $ifn: $(cat "$tmp/irq.err")"
		[ ! -s "$tmp/irq.err" ] || fail "getcounter on $ifn wrote: $(cat "$tmp/irq.err")"
		# every eBPF IF/CPU cell beside the /proc/interrupts one of the
		# same instance and sample: "e p" lines; fails on a cell that is
		# not a number (an interface with IRQs: never UNSUPPORTED)
		python3 - "$tmp/irq.csv" >"$tmp/irq.pairs" <<'EOF2' || fail "$ifn: a cell is not a number: $(cat "$tmp/irq.csv")"
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
inst = lambda h: re.search(r"\(([^()]*)\)\\Interrupts/sec$", h).group(1)
ebpf = {inst(h): i for i, h in enumerate(rows[0]) if "Network Activity Cycles(" in h}
proc = {inst(h): i for i, h in enumerate(rows[0]) if "Interface Card Activity(" in h}
if not ebpf or set(ebpf) != set(proc):
    sys.exit("instances differ: %s vs %s" % (sorted(ebpf), sorted(proc)))
for r in rows[1:]:
    for k in sorted(ebpf):
        print(k, float(r[ebpf[k]]), float(r[proc[k]]))
EOF2
		[ "$(wc -l <"$tmp/irq.pairs")" -ge 9 ] || fail "$ifn: fewer than 3 samples x 3 instances"
		moved=$(awk '$1 ~ /_Total$/ { s += $3 } END { print s + 0 }' "$tmp/irq.pairs")
		[ "$moved" = 0 ] || break
	done
	echo "$ifn (watched, no traffic of ours): Interrupts/sec per sample, eBPF vs /proc/interrupts:" \
		"$(awk '$1 ~ /_Total$/ { printf "%s %.2f/%.2f", (n++ ? "," : ""), $2, $3 }' "$tmp/irq.pairs")"
	# read a moment apart in each sample: 5 % and 1.5 interrupts/s (2.25 in 1.5 s) of slack
	awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > $3 * 0.05 + 1.5) { print; bad = 1 } }
		END { exit bad }' "$tmp/irq.pairs" >"$tmp/irq.bad" ||
		fail "$ifn: eBPF Interrupts/sec and /proc/interrupts disagree (IF/CPU eBPF proc): $(cat "$tmp/irq.bad")"
	[ "$moved" != 0 ] ||
		echo "$ifn took no interrupt in 9 s (idle; we send it nothing): agreement shown only as 0 = 0"
done

# ---- 4. without privileges
if command -v setpriv >/dev/null 2>&1; then
	cp "$GETCOUNTER" "$tmp/gc"
	chmod 755 "$tmp" "$tmp/gc"
	set +e
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$tmp/gc" -i 0.2 -n 1 -f csv "$pna(_Total)\\NAPI Polls/sec" \
		"$pna(_Total)\\Received Packets/sec" >"$tmp/np.csv" 2>"$tmp/np.err"
	rc=$?
	set -e
	cat "$tmp/np.csv" "$tmp/np.err"
	[ "$rc" -eq 0 ] || fail "unprivileged run exited $rc: $(cat "$tmp/np.err")"
	[ "$(wc -l <"$tmp/np.err")" -eq 1 ] || fail "not one line on stderr: $(cat "$tmp/np.err")"
	grep -q 'run as root or grant cap_bpf,cap_perfmon' "$tmp/np.err" ||
		fail "the message does not say what to do: $(cat "$tmp/np.err")"
	! grep -qi 'libbpf' "$tmp/np.err" || fail "libbpf's own messages leaked"
	# a counter of the same set that needs no eBPF: nothing loaded, no line
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$tmp/gc" -i 0.2 -n 1 -f csv "$pna(_Total)\\Received Packets/sec" >/dev/null 2>"$tmp/np2.err" ||
		fail "unprivileged run of a text counter failed: $(cat "$tmp/np2.err")"
	[ ! -s "$tmp/np2.err" ] || fail "a counter without eBPF printed: $(cat "$tmp/np2.err")"
	# nobody with just CAP_BPF and CAP_PERFMON (ambient): the counters work
	if setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=+bpf,+perfmon \
		--ambient-caps=+bpf,+perfmon true 2>/dev/null; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=+bpf,+perfmon \
			--ambient-caps=+bpf,+perfmon "$tmp/gc" -i 0.2 -n 1 -f csv \
			"$pna(_Total)\\NAPI Polls/sec" >"$tmp/caps.csv" 2>"$tmp/caps.err" ||
			fail "nobody with cap_bpf,cap_perfmon failed: $(cat "$tmp/caps.err")"
		[ ! -s "$tmp/caps.err" ] || fail "nobody with cap_bpf,cap_perfmon: $(cat "$tmp/caps.err")"
		tail -1 "$tmp/caps.csv" | tr -d '\r' | grep -Eq '","[0-9.]+"$' ||
			fail "nobody with cap_bpf,cap_perfmon got no value: $(tail -1 "$tmp/caps.csv")"
		echo "nobody with only cap_bpf,cap_perfmon: $(tail -1 "$tmp/caps.csv")"
	fi
	row=$(tail -1 "$tmp/np.csv" | tr -d '\r')
	case $row in
	*'," ","'[0-9]*) ;;
	*) fail "unprivileged: wanted NAPI Polls/sec empty and Received Packets/sec a number: $row" ;;
	esac
fi

# ---- 5. the raw_tp fallback (GETCOUNTER_BPF_RAW_TP=1): 200 datagrams
# every 50 ms until getcounter has taken its sample (at most 10 s), so the
# sample's 1.5 s see traffic however long the programs take to load (a
# single burst 0.3 s in came before the first read on a loaded machine)
udp_burst() {
	exec ip netns exec "$nsa" timeout 10 python3 -c '
import os, socket, sys, time
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
while not os.path.exists(sys.argv[3]):
    for i in range(200):
        u.sendto(b"z" * 64, (sys.argv[1], int(sys.argv[2])))
    time.sleep(0.05)
' "$net.2" "$uport" "$tmp/raw.done"
}
udp_burst &
sender=$!
pids="$pids $sender"
samples=1
ip netns exec "$nsb" env GETCOUNTER_BPF_RAW_TP=1 "$GETCOUNTER" -i 1.5 -n 1 -f csv \
	"$nc($B/_Total)\\Received Packets/sec" "\\Network Adapter($B)\\Packets Received/sec" \
	>"$tmp/raw.csv" 2>"$tmp/raw.err" || fail "getcounter with raw_tp failed: $(cat "$tmp/raw.err")"
: >"$tmp/raw.done"
wait "$sender" || fail "the UDP sender in $nsa failed"
pids=${pids% *}
[ ! -s "$tmp/raw.err" ] || fail "getcounter with raw_tp wrote to stderr: $(cat "$tmp/raw.err")"
e=$(csv_cols "$tmp/raw.csv" "^$(q "$nc($B/_Total)\Received Packets/sec")\$") ||
	fail "no Received Packets/sec with raw_tp"
a=$(csv_cols "$tmp/raw.csv" "^$(q "\Network Adapter($B)\Packets Received/sec")\$") ||
	fail "no Network Adapter value in the raw_tp run"
echo "raw_tp: $B received $e packets/s (eBPF) vs $a (Network Adapter) over 1.5 s"
awk -v v="$a" 'BEGIN { exit !(v * 1.5 >= 1800) }' || fail "raw_tp run: the datagrams did not arrive ($a/s)"
within "$e" "$a" 2 || fail "raw_tp: Received Packets $e not within 2 % of $a"

netcycles_cleanup
left=$(netns_left "$pfx-")
[ -z "$left" ] || fail "namespaces left behind: $left"
echo "ok"
