#!/bin/sh
# Per Processor Network Interface Card Activity and Physical Network
# Interface Card Activity list sys/class/net again only when the links
# change (a link notification), live, as root in a namespace this test
# makes (ip netns exec mounts its own /sys there):
# 1. 4 samples 1.1 s apart with nothing changing: sys/class/net is listed
#    twice in all, once by each set, at the start (strace). Before
#    notifications each set listed it every second: 3.7 ms a sample over
#    401 interfaces.
# 2. 7 samples 0.5 s apart with a veth pair made 1.2 s in: each set lists
#    it again after the change, so at least 4 listings, and fewer than one
#    each a sample.
# Skips (77) without root, ip or strace. The trap deletes the namespace.
set -eu
. "$(dirname "$0")/lib.sh"
[ -n "${GETCOUNTER:-}" ] && [ -x "$GETCOUNTER" ] || skip "no getcounter binary (GETCOUNTER unset or not built)"
[ "$(id -u)" -eq 0 ] || skip "not root: a network namespace is needed"
command -v ip >/dev/null 2>&1 || skip "no ip command (iproute2)"
command -v strace >/dev/null 2>&1 || skip "no strace to count the listings"
tmp=$(mktemp -d)
changer=""
cleanup() {
	[ -n "$changer" ] && { kill "$changer" 2>/dev/null || true; wait "$changer" 2>/dev/null || true; }
	netns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
ns=gc-ns-$$-r
netns_add "$ns"
ip -n "$ns" link set lo up

P1='\Per Processor Network Interface Card Activity(*)\Interrupts/sec'
P2='\Physical Network Interface Card Activity(*)\% Time Suspended (Instantaneous)'
# listings FILE: how often sys/class/net was listed: each listing looks
# for lo's device (the directory itself stays open, read again from 0)
listings() {
	grep -c '"sys/class/net/lo/device"' "$1" || true
}
run() { # run INTERVAL SAMPLES: getcounter under strace, in the namespace
	# (LeakSanitizer cannot run under ptrace: an ASan build leaks unchecked here)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		ip netns exec "$ns" strace -f -e trace=%file -o "$tmp/strace" "$GETCOUNTER" \
		-i "$1" -n "$2" "$P1" "$P2" >"$tmp/out" 2>"$tmp/err" ||
		fail "getcounter failed: $(cat "$tmp/err")"
}

# ---- 1. quiet
run 1.1 4
n=$(listings "$tmp/strace")
echo "quiet: sys/class/net listed $n times over 4 samples 1.1 s apart"
[ "$n" -eq 2 ] || fail "$n listings over 4 quiet samples, wanted 2 (one a set)"

# ---- 2. a change
(
	sleep 1.2
	ip -n "$ns" link add R0 type veth peer name R1
	ip -n "$ns" link set R0 up
) &
changer=$!
run 0.5 7
wait "$changer" || fail "the veth could not be made in $ns"
changer=""
n=$(listings "$tmp/strace")
echo "a veth made 1.2 s in: sys/class/net listed $n times over 7 samples 0.5 s apart"
[ "$n" -ge 4 ] || fail "$n listings: the sets did not list the interfaces again after the change"
[ "$n" -lt 14 ] || fail "$n listings: once a sample or more"
echo "ok"
