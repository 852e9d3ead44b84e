#!/bin/sh
# Live: \Physical Network Interface Card Activity(*)\* against this
# machine's sysfs. The instances must be the interfaces with a `device`
# link; each counter is either a valid number matching the device's power
# attributes (for virtio, the PCI function above the virtio device), read
# here before and after the sample, or UNSUPPORTED where the attribute is
# missing or says "unknown"/"unsupported" -- never a made-up 0. Also: with
# no /sys/class/infiniband, \RDMA Activity(*)\* has no instances.
set -eu
. "$(dirname "$0")/lib.sh"

[ -n "${GETCOUNTER:-}" ] && [ -x "$GETCOUNTER" ] ||
	skip "no getcounter binary (GETCOUNTER unset or not built)"
[ -d /sys/class/net ] || skip "no /sys/class/net here"

# The interfaces with a device, in the provider's order (version sort).
ifs=""
for d in /sys/class/net/*; do
	[ -e "$d/device" ] && ifs="$ifs $(basename "$d")"
done
[ -n "$ifs" ] || skip "no network interface here has a device (all virtual)"
# shellcheck disable=SC2086 # one name a word
ifs=$(printf '%s\n' $ifs | sort -V | tr '\n' ' ')

# devdir IF: the device directory, the PCI parent for virtio
devdir() {
	dev=/sys/class/net/$1/device
	sub=$(readlink "$dev/subsystem" 2>/dev/null || true)
	if [ "${sub##*/}" = virtio ]; then
		readlink -f "$dev/.."
	else
		readlink -f "$dev"
	fi
}

# attr FILE: its first line, or "" when it cannot be read
attr() { head -n 1 "$1" 2>/dev/null || true; }

# JSON samples -> "instance|counter|value|status" lines, last sample only.
rows() {
	tail -1 | sed 's/{"path"/\n{"path"/g' |
		sed -n 's/.*"instance": "\([^"]*\)", "counter": "\([^"]*\)", "value": \([^,]*\), '\
'"status": "\([A-Z_]*\)".*/\1|\2|\3|\4/p'
}

before=""
for i in $ifs; do
	d=$(devdir "$i")
	before="$before $i=$(attr "$d/power/runtime_suspended_time")"
done
json=$("$GETCOUNTER" -i 1 -n 1 -f json '\Physical Network Interface Card Activity(*)\*') ||
	fail "getcounter failed: $json"
out=$(printf '%s\n' "$json" | rows)

got=$(printf '%s\n' "$out" | awk -F'|' '$2 == "Runtime Status" { print $1 }' | tr '\n' ' ')
[ "$got" = "$ifs" ] || fail "instances '$got', wanted the interfaces with a device '$ifs'"

# cell IF COUNTER: "value|status"
cell() {
	printf '%s\n' "$out" |
		awk -F'|' -v i="$1" -v c="$2" '$1 == i && $2 == c { print $3 "|" $4 }'
}

for i in $ifs; do
	d=$(devdir "$i")
	ps=$(attr "$d/power_state")
	rs=$(attr "$d/power/runtime_status")
	act=$(attr "$d/power/runtime_active_time")
	sus=$(attr "$d/power/runtime_suspended_time")
	# shellcheck disable=SC2086 # one IF=ms a word
	sus0=$(printf '%s\n' $before | sed -n "s/^$i=//p")
	echo "$i: device $d: power_state '$ps', runtime_status '$rs', active '$act' ms," \
		"suspended '$sus' ms"

	case $ps in
	D0) want=0 ;; D1) want=1 ;; D2) want=2 ;; D3hot | D3cold) want=3 ;; *) want="" ;;
	esac
	c=$(cell "$i" "Device Power State")
	if [ -n "$want" ]; then
		[ "$c" = "$want|OK" ] || fail "$i Device Power State '$c', wanted $want ($ps)"
	else
		[ "$c" = "null|UNSUPPORTED" ] || fail "$i Device Power State '$c' for '$ps'"
	fi

	case $rs in
	active) want=0 ;; suspended) want=1 ;; suspending) want=2 ;; resuming) want=3 ;;
	unsupported) want=4 ;; error) want=5 ;; *) want="" ;;
	esac
	c=$(cell "$i" "Runtime Status")
	if [ -n "$want" ]; then
		# a device may suspend or resume during the sample: any status is
		# a number 0-5; "active" and "unsupported" do not move here
		case $c in
		[0-5]"|OK") ;;
		*) fail "$i Runtime Status '$c', wanted $want ($rs)" ;;
		esac
		case $rs in
		active | unsupported)
			[ "$c" = "$want|OK" ] ||
				fail "$i Runtime Status '$c', wanted $want ($rs)"
			;;
		esac
	else
		[ "$c" = "null|UNSUPPORTED" ] || fail "$i Runtime Status '$c' without a status"
	fi

	life=$(cell "$i" "% Time Suspended (Lifetime)")
	inst=$(cell "$i" "% Time Suspended (Instantaneous)")
	if [ "$rs" = unsupported ] || [ -z "$act" ] || [ -z "$sus" ]; then
		[ "$life" = "null|UNSUPPORTED" ] ||
			fail "$i Lifetime '$life' without runtime PM, wanted UNSUPPORTED"
		[ "$inst" = "null|UNSUPPORTED" ] ||
			fail "$i % Time Suspended (Instantaneous) '$inst' without runtime PM"
		continue
	fi
	if [ $((act + sus)) -eq 0 ]; then
		[ "$life" = "null|UNSUPPORTED" ] || fail "$i Lifetime '$life' with both times 0"
	else
		want=$(awk -v s="$sus" -v a="$act" 'BEGIN { printf "%.6f", 100 * s / (a + s) }')
		case $life in *"|OK") ;; *) fail "$i Lifetime '$life', wanted about $want" ;; esac
		close_to "${life%|OK}" "$want" 1 ||
			fail "$i Lifetime ${life%|OK}, sysfs gives $want"
	fi
	case $inst in *"|OK") ;; *) fail "$i Instantaneous '$inst', wanted a value" ;; esac
	v=${inst%|OK}
	awk -v v="$v" 'BEGIN { exit !(v >= 0 && v <= 100) }' || fail "$i Instantaneous $v"
	if [ "$sus0" = "$sus" ]; then
		# not suspended at all during the sample: exactly 0
		close_to "$v" 0 0 || fail "$i Instantaneous $v while suspended time stayed $sus"
	fi
done

if [ ! -e /sys/class/infiniband ]; then
	json=$("$GETCOUNTER" -n 1 -f json '\RDMA Activity(*)\Missing Counter Mask') ||
		fail "getcounter failed on RDMA Activity: $json"
	n=$(printf '%s\n' "$json" | rows | wc -l)
	[ "$n" -eq 0 ] || fail "no /sys/class/infiniband, yet RDMA Activity has $n rows: $json"
	echo "no /sys/class/infiniband: RDMA Activity has no instances"
fi
# In a new network namespace whose /sys is still the old one (unshare -n
# mounts no new sysfs), the interfaces sysfs lists are not this process's:
# neither set with devices may show them (a new namespace has only lo).
if command -v unshare >/dev/null 2>&1 && unshare -n true 2>/dev/null; then
	stale=$(GC=$GETCOUNTER unshare -n sh -c '
		ls /sys/class/net | tr "\n" " "; echo
		"$GC" -q -x "Physical Network Interface Card Activity"
		"$GC" -q -x "Per Processor Network Interface Card Activity"')
	first=$(printf '%s\n' "$stale" | head -1)
	listed=$(printf '%s\n' "$stale" | sed 1d)
	case " $first " in
	*" ${ifs%% *} "*)
		[ -z "$listed" ] ||
			fail "under unshare -n, another namespace's interfaces are listed: $listed" ;;
	*) echo "note: /sys follows the new namespace here; the stale-/sys case is not shown" ;;
	esac
fi
echo "ok: $ifs"
