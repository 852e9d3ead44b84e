#!/bin/sh
# bench/capture.sh - the Network Capture benchmark (issue 8): a sender in a
# namespace made here (bench/capsend.c, AF_PACKET + sendmmsg) sends RATE
# frames/s of LEN bytes over a veth for DURATION seconds; on the other end
# three consumers count them in turn:
#   getcounter  '\Network Capture(IF)\*'-style: two kernel-filtered handles,
#               frames bucketed by time stamp (Frames Received/sec, Capture
#               Dropped);
#   tcpdump     -w /dev/null -s 128 (its own statistics line);
#   pcapcount   bench/pcapcount.c: libpcap opened as getcounter opens it,
#               pcap_loop counting frames (the plain floor).
# For each: frames seen, frames dropped by the capture, CPU (user + system,
# from wait4/getrusage, the whole process: start-up, libpcap's loading,
# its rings and, for getcounter, its samples included) per frame seen.
# getcounter's ratio to pcapcount is the figure the issue asks for (target
# <= 1.3, and no drops where pcapcount has none).
#
# Fair turns: the sender starts only when the tool's packet sockets exist
# in the namespace (/proc/net/packet; getcounter has two, the others one)
# and half a second more, not after a fixed second that a loaded machine
# can overrun (frames sent before getcounter's first read are not counted
# but cost it CPU). The machine is shared, so each case runs ROUNDS times,
# the tools alternating, and the table gives the median (min-max) and the
# median of the per-round ratios. Each tool also runs once without traffic
# for as long (the "idle" CPU: start-up, rings, samples); the last columns
# take it out, leaving the per-frame cost alone. Both are shown; the first
# is the figure. Needs root; prints a markdown table (also appended to
# $BUILD/bench/capture.md).
#
# usage: bench/capture.sh     environment: BUILD (default build), DURATION
# (seconds per run, default 10), RATES (default "100000 500000"), LENS
# (default "64 1514"), TOOLS (default "pcapcount getcounter tcpdump"),
# ROUNDS (default 3), CAPTURE_DEBUG (set: show each tool's output).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
CC=${CC:-cc}
DURATION=${DURATION:-10}
RATES=${RATES:-100000 500000}
LENS=${LENS:-64 1514}
TOOLS=${TOOLS:-pcapcount getcounter tcpdump}
ROUNDS=${ROUNDS:-3}
GC=$(pwd)/$BUILD/getcounter
out=$BUILD/bench
mkdir -p "$out"
[ "$(id -u)" -eq 0 ] || { echo "bench/capture.sh: needs root (namespaces, capture)"; exit 77; }
[ -x "$GC" ] || { echo "bench/capture.sh: build $GC first"; exit 1; }
command -v tcpdump >/dev/null 2>&1 || { echo "bench/capture.sh: needs tcpdump"; exit 77; }
CFL="-O2 -g -Wall -Wextra -Werror"
$CC $CFL -o "$out/capsend" bench/capsend.c
$CC $CFL -o "$out/pcapcount" bench/pcapcount.c -lpcap
$CC $CFL -std=gnu11 -Iinclude -o "$out/cputime" bench/cputime.c
SEND=$(pwd)/$out/capsend COUNT=$(pwd)/$out/pcapcount CPUTIME=$(pwd)/$out/cputime

. tests/cli/lib.sh
fail() { echo "bench/capture.sh: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'netns_cleanup; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
nsa=gcba$$
nsb=gcbb$$
netns_add "$nsa"
netns_add "$nsb"
netns_veth "$nsa" "$nsb" "10.95.$(($$ % 250))"
run=$((DURATION + 3)) # the sender starts ~1 s in and may run late

# start_tool TOOL NAME: start TOOL on B in the background (output in
# $tmp/NAME.out and .err); its pid in $c
start_tool() {
	case $1 in
	pcapcount)
		"$CPUTIME" --keep-stdout ip netns exec "$nsb" "$COUNT" "$veth_b" "$run" \
			>"$tmp/$2.out" 2>"$tmp/$2.err" &
		;;
	getcounter)
		"$CPUTIME" --keep-stdout ip netns exec "$nsb" "$GC" \
			"\\Network Capture($veth_b)\\Frames Received/sec" \
			"\\Network Capture($veth_b)\\Capture Dropped" -i 1 -n "$run" -f csv \
			>"$tmp/$2.out" 2>"$tmp/$2.err" &
		;;
	tcpdump)
		"$CPUTIME" timeout -s INT "$run" ip netns exec "$nsb" tcpdump -i "$veth_b" \
			-w /dev/null -s 128 -B 8192 >"$tmp/$2.out" 2>"$tmp/$2.err" &
		;;
	esac
	c=$!
}

# tool_result TOOL NAME: "frames drops cpu_ns" from its output files
tool_result() {
	o=$tmp/$2.out e=$tmp/$2.err
	case $1 in
	pcapcount)
		# the whole process, as for the others (its own getrusage
		# would leave out exec, ip netns exec and libpcap's loading)
		cpu=$(sed -n 's/.*cpu_us=\([0-9]*\).*/\1/p' "$e")
		sed -n "s/.*frames=\\([0-9]*\\).*drops=\\([0-9]*\\) .*/\\1 \\2 $((cpu * 1000))/p" "$o"
		;;
	getcounter)
		cpu=$(sed -n 's/.*cpu_us=\([0-9]*\).*/\1/p' "$e")
		awk -F, -v cpu="$cpu" 'NR > 1 && /^"[0-9]/ {
			f = $2; d = $3; gsub(/["\r]/, "", f); gsub(/["\r]/, "", d)
			frames += f; if (d + 0 > drops) drops = d + 0 }
			END { printf "%.0f %d %d\n", frames, drops, cpu * 1000 }' "$o"
		;;
	tcpdump)
		cpu=$(sed -n 's/.*cpu_us=\([0-9]*\).*/\1/p' "$e")
		f=$(sed -n 's/^\([0-9]*\) packets captured.*/\1/p' "$e")
		d=$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$e")
		echo "${f:-0} ${d:-0} $((cpu * 1000))"
		;;
	esac
}

# wait_sockets N: until B has N packet sockets open (a header line first)
wait_sockets() {
	for i in $(seq 100); do
		n=$(ip netns exec "$nsb" cat /proc/net/packet | wc -l)
		[ "$n" -gt "$1" ] && break
		sleep 0.1
	done
	sleep 0.5
}

# one_case TOOL RATE LEN: prints "frames drops cpu_ns sent" (RATE 0: no
# sender, the idle run)
one_case() {
	start_tool "$1" c
	# ready: the tool's packet sockets are open (a header line first)
	want=1
	[ "$1" = getcounter ] && want=2
	for i in $(seq 100); do
		n=$(ip netns exec "$nsb" cat /proc/net/packet | wc -l)
		[ "$n" -gt "$want" ] && break
		sleep 0.1
	done
	sleep 0.5
	if [ "$2" -gt 0 ]; then
		ip netns exec "$nsa" "$SEND" "$veth_a" "$mac_a" "$mac_b" "$2" "$3" "$DURATION" \
			>"$tmp/s.out"
	else
		echo "sent=0" >"$tmp/s.out"
	fi
	wait "$c" || true
	[ -z "${CAPTURE_DEBUG:-}" ] || cat "$tmp/c.out" "$tmp/c.err" "$tmp/s.out" >&2
	sent=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' "$tmp/s.out")
	tool_result "$1" c | sed "s/\$/ $sent/"
}

# both_case RATE LEN: pcapcount and getcounter on B at once, on the same
# frames: prints "pcap_frames pcap_cpu_ns gc_frames gc_cpu_ns gc_drops".
# The machine's noise (other jobs, frequency, steal) then falls on both
# alike, which alternating turns cannot promise on a shared VM.
both_case() {
	start_tool pcapcount p
	cp=$c
	start_tool getcounter g
	cg=$c
	wait_sockets 3
	ip netns exec "$nsa" "$SEND" "$veth_a" "$mac_a" "$mac_b" "$1" "$2" "$DURATION" >"$tmp/s.out"
	wait "$cp" || true
	wait "$cg" || true
	set -- $(tool_result pcapcount p) $(tool_result getcounter g)
	echo "${1:-0} ${3:-0} ${4:-0} ${6:-0} ${5:-0}"
}

# awk: med(a, n), the median of a[1..n] (sorts a); span(a, n), " (min-max)"
AWK_STATS='
function med(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function span(a, n,    i, lo, hi) {
	lo = hi = a[1]
	for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
	return n > 1 ? sprintf(" (%.1f-%.1f)", lo, hi) : ""
}'
report=$out/capture.md
say() { printf '%s\n' "$*" | tee -a "$report"; }
rows=$tmp/rows
: >"$rows"
for tool in $TOOLS; do
	set -- $(one_case "$tool" 0 64)
	echo "idle $tool ${3:-0}" >>"$rows"
done
for r in $(seq "$ROUNDS"); do
	for len in $LENS; do
		for rate in $RATES; do
			for tool in $TOOLS; do
				set -- $(one_case "$tool" "$rate" "$len")
				echo "run $r $len $rate $tool ${4:-0} ${1:-0} ${2:-0} ${3:-0}" >>"$rows"
			done
		done
	done
done
[ -z "${CAPTURE_DEBUG:-}" ] || cat "$rows" >&2
say ""
say "### Network Capture: $DURATION s per run, $ROUNDS rounds, $(nproc) CPUs, $(uname -r)"
say ""
say "| rate/s | bytes | tool | sent | seen | dropped | CPU ns/frame | vs pcapcount | less idle ns/frame | vs pcapcount |"
say "|---|---|---|---|---|---|---|---|---|---|"
# per case and tool: medians (min-max) over the rounds of sent, seen, the
# largest drop count, ns/frame, and the median of the per-round ratios to
# pcapcount; then the same with the tool's idle CPU taken out
awk -v tools="$TOOLS" -v lens="$LENS" -v rates="$RATES" "$AWK_STATS"'
$1 == "idle" { idle[$2] = $3; next }
{ k = $3 " " $4 " " $5; n = ++cnt[k]; sent[k, n] = $6; seen[k, n] = $7; drop[k, n] = $8
  cpu[k, n] = $9; round[k, n] = $2 }
END {
	nt = split(tools, T, " "); nl = split(lens, L, " "); nr = split(rates, R, " ")
	for (l = 1; l <= nl; l++) for (r = 1; r <= nr; r++) for (t = 1; t <= nt; t++) {
		k = L[l] " " R[r] " " T[t]; b = L[l] " " R[r] " pcapcount"; n = cnt[k]
		if (!n) continue
		maxd = 0; delete A; delete S; delete F; delete P; delete Q; delete X; delete Y
		for (i = 1; i <= n; i++) {
			S[i] = sent[k, i]; F[i] = seen[k, i]; if (drop[k, i] > maxd) maxd = drop[k, i]
			P[i] = F[i] > 0 ? cpu[k, i] / F[i] : 0
			Q[i] = F[i] > 0 ? (cpu[k, i] - idle[T[t]]) / F[i] : 0
			X[i] = seen[b, i] > 0 && cpu[b, i] > 0 ? P[i] / (cpu[b, i] / seen[b, i]) : 0
			Y[i] = seen[b, i] > 0 && cpu[b, i] > idle["pcapcount"] ? \
				Q[i] / ((cpu[b, i] - idle["pcapcount"]) / seen[b, i]) : 0
		}
		ms = med(S, n); mf = med(F, n); sp = span(P, n); sq = span(Q, n)
		printf "| %s | %s | %s | %.0f | %.0f | %d | %.1f%s | %.2f | %.1f%s | %.2f |\n",
			R[r], L[l], T[t], ms, mf, maxd, med(P, n), sp, med(X, n), med(Q, n), sq, med(Y, n)
	}
	printf "\nIdle (the same run without traffic), CPU ms:"
	for (t = 1; t <= nt; t++) printf " %s %.1f;", T[t], idle[T[t]] / 1e6
	printf "\n"
}' "$rows" | tee -a "$report"

# both at once: the ratio of each round, median (min-max)
if [ "${TOGETHER:-1}" = 1 ] && echo " $TOOLS " | grep -q ' getcounter ' &&
	echo " $TOOLS " | grep -q ' pcapcount '; then
	say ""
	say "Both at once (pcapcount and getcounter capturing the same frames, $ROUNDS rounds): CPU"
	say "ns/frame, median (min-max), and the median of the per-round ratios."
	say ""
	say "| rate/s | bytes | pcapcount ns/frame | getcounter ns/frame | getcounter drops | vs pcapcount |"
	say "|---|---|---|---|---|---|"
	for len in $LENS; do
		for rate in $RATES; do
			: >"$tmp/both"
			for r in $(seq "$ROUNDS"); do
				both_case "$rate" "$len" >>"$tmp/both"
			done
			awk -v rate="$rate" -v len="$len" "$AWK_STATS"'
			$1 > 0 && $3 > 0 { n++; P[n] = $2 / $1; G[n] = $4 / $3; R[n] = G[n] / P[n]
				if ($5 > d) d = $5 }
			END { if (!n) exit
				sp = span(P, n); sg = span(G, n)
				printf "| %s | %s | %.1f%s | %.1f%s | %d | %.2f |\n", rate, len,
					med(P, n), sp, med(G, n), sg, d, med(R, n) }' "$tmp/both" | tee -a "$report"
		done
	done
fi
