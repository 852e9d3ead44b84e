#!/bin/sh
# \Per Processor Network Interface Card Activity(IF/CPU)\Interrupts/sec, the
# total of the interface's IRQ rows of \Interrupt(IRQ/CPU).
#
# Fixture nicirq-basic (tests/fixtures/nicirq-basic/gen.sh; header CPUs 0
# and 2; dt = 1002 - 1000 = 2 s):
#   eth0/0      virtio1-*: 25 (0) + 26 (300-100) + 27 (90-50) = 240; / 2 = 120
#   eth0/2      0 + 26 (30-10) + 27 (4-0) = 24; / 2 = 12
#   eth0/_Total (240 + 24) / 2 = 132
#   eth1/0      30 (30-10) + 31 (0) + 32 (7-5) + 36 "eth1:lsc" (3-1) = 24; / 2 = 12
#   eth1/2      30 (0) + 31 (60-20) + 32 (0) + 36 (9-1) = 48; / 2 = 24
#               (never eth10's 33/34 nor "xeth1-rx" 35)
#   eth1/_Total (24 + 48) / 2 = 36
#   eth10/0     33 (1400-1000) = 400; / 2 = 200
#   eth10/2     34 (1800-1000) = 800; / 2 = 400
#   eth10/_Total (400 + 800) / 2 = 600
#   eth2/0      msi_irqs 40 (50-10) + 41 (0) = 40; / 2 = 20 ("eth2-bogus" 45 unused)
#   eth2/2      40 (60-20) + 41 wraps: 2^32 - 4294967000 + 200 = 496; 536 / 2 = 268, WRAPPED
#   eth2/_Total (40 + 536) / 2 = 288, WRAPPED
#   eth3/*      no IRQ row names it, no msi_irqs: UNSUPPORTED
#   lo, veth0   virtual: no instances
# Live: eth0's instances against this machine's /proc/interrupts.
set -eu
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/nicirq-basic
SET='Per Processor Network Interface Card Activity'
out=$("$GETCOUNTER" --root "$F/t0" --root "$F/t1" -f json "\\$SET(*)\\Interrupts/sec") ||
	fail "getcounter failed on the fixture: $out"
check() { # instance value status
	want="\"instance\": \"$1\", \"counter\": \"Interrupts/sec\", \"value\": $2"
	printf '%s\n' "$out" | grep -qF "$want, \"status\": \"$3\"" ||
		fail "$1: wanted $2 $3 in $out"
}
check eth0/0 120 OK
check eth0/2 12 OK
check eth0/_Total 132 OK
check eth1/0 12 OK
check eth1/2 24 OK
check eth1/_Total 36 OK
check eth10/0 200 OK
check eth10/2 400 OK
check eth10/_Total 600 OK
check eth2/0 20 OK
check eth2/2 268 WRAPPED
check eth2/_Total 288 WRAPPED
check eth3/0 null UNSUPPORTED
check eth3/2 null UNSUPPORTED
check eth3/_Total null UNSUPPORTED
n=$(printf '%s\n' "$out" | grep -o '"instance": "[^"]*"' | wc -l)
[ "$n" -eq 15 ] || fail "$n instances, wanted 5 interfaces x (2 CPUs + _Total) = 15: $out"
if printf '%s\n' "$out" | grep -q '"instance": "\(lo\|veth0\)/'; then
	fail "a virtual interface has instances"
fi
# one interface's cells by wildcard, CSV
out=$("$GETCOUNTER" --root "$F/t0" --root "$F/t1" -f csv "\\$SET(eth1/*)\\Interrupts/sec")
printf '%s\n' "$out" | tail -1 | grep -qF '"12.000000","24.000000","36.000000"' ||
	fail "eth1/* values: $out"

# A log replays what the run showed when an interface's IRQs change while
# the instances stay the same: r0 is t0 without eth1's row 31, r1 is t1, r2
# is t1 2 s later with every count + 100. eth1's key (its IRQs) changes
# from r0 to r1; the writer wrote no INSTANCE record for it (the list was
# the same), so the replay used the old key's rows until the next keyframe.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$F/t0" "$tmp/r0"
cp -r "$F/t1" "$tmp/r1"
cp -r "$F/t1" "$tmp/r2"
sed -i '/eth1-TxRx-1/d' "$tmp/r0/proc/interrupts"
echo "1004.00 1802.00" >"$tmp/r2/proc/uptime"
# the two count columns + 100, in place (an IRQ's action text is its identity)
awk '$1 ~ /^[0-9]+:$/ {
	match($0, /^ *[0-9]+: +[0-9]+ +[0-9]+/)
	head = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
	n = split(head, f, " ")
	printf "%4s %10d %10d%s\n", f[1], f[2] + 100, f[3] + 100, rest
	next
} { print }' "$F/t1/proc/interrupts" >"$tmp/r2/proc/interrupts"
roots="--root $tmp/r0 --root $tmp/r1 --root $tmp/r2"
# shellcheck disable=SC2086
live=$("$GETCOUNTER" $roots -f csv "\\$SET(eth1/*)\\Interrupts/sec" | sed 1d | cut -d, -f2-)
# shellcheck disable=SC2086
"$GETCOUNTER" $roots -o "$tmp/k.gcl" "\\$SET(*)\\Interrupts/sec"
replay=$("$GETCOUNTER" --input "$tmp/k.gcl" -f csv "\\$SET(eth1/*)\\Interrupts/sec" | sed 1d |
	cut -d, -f2-)
[ -n "$live" ] && [ "$live" = "$replay" ] ||
	fail "eth1's IRQs changed: the run showed '$live', its log replays '$replay'"
echo "fixture: ok"

# ---- live: eth0 ----
[ -e /sys/class/net/eth0/device ] ||
	skip "fixture checks passed; live part skipped: eth0 absent or has no device here"
dev=/sys/class/net/eth0/device
virtio=""
sub=$(readlink "$dev/subsystem" 2>/dev/null || true)
if [ "${sub##*/}" = virtio ]; then
	virtio=$(basename "$(readlink "$dev")")
	dev=$dev/..
fi
# eth0's IRQs: msi_irqs/, else the rows whose action names name it
irqs=""
if [ -d "$dev/msi_irqs" ]; then
	irqs=$(for f in "$dev"/msi_irqs/*; do echo "${f##*/}"; done | grep -E '^[0-9]+$' |
		sort -n | tr '\n' ' ')
fi
if [ -z "$irqs" ]; then
	if [ -n "$virtio" ]; then
		re="(^|, )$virtio-"
	else
		re="(^|[^A-Za-z0-9._])eth0([-:]|,|\$)"
	fi
	irqs=$(awk 'NR > 1 && $1 ~ /^[0-9]+:$/ { sub(":", "", $1); print }' /proc/interrupts |
		while read -r line; do
			n=${line%% *}
			act=$(printf '%s\n' "$line" | sed 's/.*[[:space:]][[:space:]]//')
			printf '%s\n' "$act" | grep -Eq "$re" && echo "$n"
		done | sort -n | tr '\n' ' ')
fi
echo "eth0 (virtio '${virtio}'): IRQs '$irqs'"

# the provider names the same IRQs (-q -x -v appends them)
desc=$("$GETCOUNTER" -q -x -v "$SET" | sed -n '/(eth0\/_Total)/{n;p;}')
case $desc in
*"IRQs: none"*) [ -z "$irqs" ] || fail "provider has no IRQs for eth0, shell finds '$irqs'" ;;
*"IRQs:"*)
	got=$(printf '%s\n' "$desc" | sed 's/.*IRQs://' | tr -s ' ' | sed 's/^ //; s/ *$//')
	want=$(printf '%s' "$irqs" | sed 's/ *$//')
	[ "$got" = "$want" ] || fail "provider's eth0 IRQs '$got', shell finds '$want'"
	;;
*) fail "no IRQ description for eth0/_Total: '$desc'" ;;
esac

cpus=$(head -1 /proc/interrupts | tr -s ' ' '\n' | sed -n 's/^CPU\([0-9]*\)$/\1/p' | tr '\n' ' ')
# cells CPU: eth0's IRQs' counts in CPU's column, summed
cells() {
	col=$(head -1 /proc/interrupts | tr -s ' ' '\n' | grep -n "^CPU$1\$" | cut -d: -f1)
	col=$((col - 1)) # the header's first field is empty
	sum=0
	for q in $irqs; do
		v=$(awk -v q="$q:" -v c="$col" '$1 == q { print $(c + 1) }' /proc/interrupts)
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}
before=""
for c in $cpus; do before="$before $c=$(cells "$c")"; done
json=$("$GETCOUNTER" -i 1 -n 1 -f json "\\$SET(eth0/*)\\Interrupts/sec") ||
	fail "getcounter failed live: $json"
rows=$(printf '%s\n' "$json" | tail -1 | sed 's/{"path"/\n{"path"/g' |
	sed -n 's/.*"instance": "\([^"]*\)", "counter": "[^"]*", '\
'"value": \([^,]*\), "status": "\([A-Z_]*\)".*/\1|\2|\3/p')
total=0
for c in $cpus; do
	after=$(cells "$c")
	# shellcheck disable=SC2086 # one CPU=count a word
	b=$(printf '%s\n' $before | sed -n "s/^$c=//p")
	r=$(printf '%s\n' "$rows" | awk -F'|' -v i="eth0/$c" '$1 == i { print $2 "|" $3 }')
	echo "eth0/$c: '$r', /proc/interrupts $b -> $after around the sample"
	if [ -z "$irqs" ]; then
		[ "$r" = "null|UNSUPPORTED" ] || fail "eth0/$c '$r' with no IRQ rows"
		continue
	fi
	case $r in *"|OK" | *"|WRAPPED") ;; *) fail "eth0/$c '$r', wanted a value" ;; esac
	v=${r%|*}
	d=$((after - b))
	# the sample's two reads lie between ours, about 1 s apart
	awk -v v="$v" -v d="$d" 'BEGIN { exit !(v >= 0 && v <= d / 0.8 + 0.5) }' ||
		fail "eth0/$c rate $v, but only $d interrupts came around the sample"
	[ "$d" -ne 0 ] || close_to "$v" 0 0 || fail "eth0/$c rate $v with no interrupt"
	total=$(awk -v t="$total" -v v="$v" 'BEGIN { print t + v }')
done
r=$(printf '%s\n' "$rows" | awk -F'|' '$1 == "eth0/_Total" { print $2 "|" $3 }')
if [ -z "$irqs" ]; then
	[ "$r" = "null|UNSUPPORTED" ] || fail "eth0/_Total '$r' with no IRQ rows"
else
	close_to "${r%|*}" "$total" 0.01 || fail "eth0/_Total '$r', the CPUs sum to $total"
fi
echo "ok: eth0 IRQs '$irqs', CPUs '$cpus'"
