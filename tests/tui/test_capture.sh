#!/bin/sh
# A live capture on the screen (root: CAP_NET_RAW; traffic only to
# loopback, bounded): the screen lets the capture dispatch frames before
# each read as engine_run does, so its rate moves with the adapter's
# (before, every value was 0.00 with status OK); once the capture has
# started (and the run has given up its privileges), `a` still adds a
# counter that needs none, and one that needs a new capture handle gives a
# clear message and leaves the screen as it was.
set -eu
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (CAP_NET_RAW)"
command -v ping >/dev/null 2>&1 || skip "needs ping"
if "$GETCOUNTER" -l 'Network Capture' | grep -q 'Not built in'; then
	skip "Network Capture is not built in (no libpcap-dev)"
fi
ip link show lo >/dev/null 2>&1 || skip "no loopback interface"
# wait_row TEXT: poll until a legend row (a series' letter first) shows TEXT
wait_row() {
	n=0
	while [ $n -lt 50 ]; do
		screen | grep '^[a-zA-Z] ' | grep -qF -- "$1" && return 0
		sleep 0.1
		n=$((n + 1))
	done
	fail "no legend row shows '$1': $(screen)"
}
C='\Network Capture(lo)\Frames Received/sec'
tui_start 120 30 "$utf8" --tui -i 0.5 "$C" '\Network Adapter(lo)\Packets Received/sec'
wait_for "LIVE"
wait_for "Frames Received/sec"
# 40 echo requests and 40 replies on lo over 2 s: lo receives each frame
# once as "inbound", so the capture counts 80 frames / 2 s = about 40/s
# (the adapter counts the same packets); any rate above 0 shows the
# capture dispatched frames
ping -q -c 40 -i 0.05 -W 1 127.0.0.1 >/dev/null 2>&1 || true
# the legend's maximum (field 6 at 120 columns: a x1 last average minimum maximum) of the capture series
n=0
max=0
while [ $n -lt 30 ]; do
	max=$(screen | awk '/^a .*Frames Received/ { print $6; exit }')
	case $max in ''|-|0.00) ;; *) break ;; esac
	sleep 0.1
	n=$((n + 1))
done
case $max in
''|-|0.00) fail "the capture never counted a frame (maximum '$max'): $(screen)" ;;
esac
# a counter that needs no privilege: added, the capture still counts
keys a
type_text '\Memory\Available MBytes'
keys Enter
wait_for "added '\\Memory\\Available MBytes'"
wait_row "\\Memory\\Available MBytes"
# a counter of the capture already open (the same instance): added
keys a
type_text '\Network Capture(lo)\Frames Sent/sec'
keys Enter
wait_for "added '\\Network Capture(lo)\\Frames Sent/sec'"
wait_row "Frames Sent/sec"
screen | grep -q "CAP_NET_RAW" && fail "the capture was opened again: $(screen)"
# a new capture handle needs the privilege the run gave up: said, and the
# screen keeps what it had
keys a
type_text '\Network Capture(any)\Frames Received/sec'
keys Enter
wait_for "not added: the run gave up CAP_NET_RAW when its capture began"
screen | grep -q '^[a-z] .*(any)' && fail "the failed path is in the legend: $(screen)"
[ "$(screen | grep -c '^[a-z] ')" -eq 4 ] || fail "not the 4 series as before: $(screen)"
# an eBPF counter added after the capture gave up the privileges: added,
# and the status line says why it has no values (never a silent blank)
if [ -r /sys/kernel/btf/vmlinux ] && "$GETCOUNTER" -l 'Per Processor Network Activity Cycles' |
	grep -q MultiInstance; then
	keys a
	type_text '\Per Processor Network Activity Cycles(lo/_Total)\Sent Packets/sec'
	keys Enter
	wait_for "added, but eBPF counters"
fi
keys q
wait_rc 0
