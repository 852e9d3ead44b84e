#!/bin/sh
# cli-run: exclusive (eBPF programs attached for the whole machine)
# The eBPF counters (COUNTERS.md section 10) follow the interfaces through
# link notifications, live, as root; skips (77) like test_netcycles_live.sh
# when the counters cannot load here.
#
# 1. A veth pair L0/L1 made in namespace gc-ns-PID-l while getcounter reads
#    every 0.3 s (1.0 s after it starts) has instances from a later sample
#    on, and none once it is deleted (2.4 s after the start): the first
#    sample has none of L0's, some sample has L0/0 and L0/_Total, and the
#    last one has none again.
# 2. No link changes, no new list: over 4 samples 1.1 s apart (each past
#    the one-second rescan the counters had before notifications), the
#    interfaces are dumped (RTM_GETLINK, strace) once, at the start.
# The trap kills the helpers and deletes the namespace.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netcycles_lib.sh"
netcycles_needs

ns=gc-ns-$$-l
netcycles_tmp
nc='\Per Processor Network Activity Cycles'

# ---- 1. an interface that comes and goes
netns_add "$ns"
ip -n "$ns" link set lo up
changes() {
	sleep 1.0
	ip -n "$ns" link add L0 type veth peer name L1
	ip -n "$ns" link set L0 up
	ip -n "$ns" link set L1 up
	sleep 1.4
	ip -n "$ns" link del L0
}
changes &
changer=$!
pids="$pids $changer"
ip netns exec "$ns" "$GETCOUNTER" -i 0.3 -n 14 -f json "$nc(*)\\Sent Packets/sec" \
	>"$tmp/links.json" 2>"$tmp/links.err" || fail "getcounter failed: $(cat "$tmp/links.err")"
wait "$changer" || fail "the link changes in $ns failed"
pids=""
python3 - "$tmp/links.json" <<'EOF' || fail "L0 did not come and go with the link changes"
import json, sys
frames = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
have = [{s["instance"] for s in f["samples"]} for f in frames]
l0 = ["L0/0" in h and "L0/_Total" in h for h in have]
print("samples with L0's instances:", "".join("x" if x else "." for x in l0))
if len(frames) != 14:
    sys.exit("%d samples, wanted 14" % len(frames))
if l0[0] or l0[-1]:
    sys.exit("L0 in the first or the last sample")
if not any(l0):
    sys.exit("L0 in no sample")
if not all("lo/_Total" in h for h in have):
    sys.exit("lo missing from some sample")
EOF

# ---- 2. one list while nothing changes
command -v strace >/dev/null 2>&1 || skip "no strace to count the link dumps (part 1 passed)"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	ip netns exec "$ns" strace -f -e trace=sendto -o "$tmp/strace" "$GETCOUNTER" -i 1.1 -n 4 \
	"$nc(*)\\Sent Packets/sec" >/dev/null 2>"$tmp/quiet.err" ||
	fail "getcounter under strace failed: $(cat "$tmp/quiet.err")"
dumps=$(grep -c 'RTM_GETLINK' "$tmp/strace" || true)
echo "RTM_GETLINK dumps over 4 samples 1.1 s apart: $dumps"
[ "$dumps" -eq 1 ] || fail "$dumps link dumps over 4 quiet samples, wanted 1: $(grep RTM_GETLINK "$tmp/strace")"
echo "ok"
