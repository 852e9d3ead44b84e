#!/bin/sh
# cli-run: exclusive (captures on interfaces the machine shares, promiscuous mode)
# Network Capture and privileges: without CAP_NET_RAW a live capture stops
# with one line naming the fix (exit 1); as root it opens every handle,
# then becomes --user (or SUDO_UID/SUDO_GID) and drops every capability
# with no_new_privs: /proc/PID/status of the running capture shows a
# non-root Uid, CapEff and CapPrm 0 and NoNewPrivs 1.
set -e
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
G=$GETCOUNTER
capture_needs
command -v setpriv >/dev/null 2>&1 || skip "needs setpriv (util-linux)"
nobody=$(id -u nobody 2>/dev/null) || skip "needs a user nobody"
nogroup=$(id -g nobody)

capture_tmp
chmod 755 "$tmp"
nsa=gcqa$$
nsb=gcqb$$
netns_add "$nsa"
netns_add "$nsb"
netns_veth "$nsa" "$nsb" "10.97.$(($$ % 250))"

# the binary must be reachable by nobody: a copy in a world-readable place
cp "$G" "$tmp/getcounter"
chmod 755 "$tmp/getcounter"

# 1. no CAP_NET_RAW: exactly one line, exit 1
expect_exit 1 ip netns exec "$nsb" setpriv --reuid="$nobody" --regid="$nogroup" \
	--clear-groups --inh-caps=-all "$tmp/getcounter" "\\Network Capture($veth_b)\\Frames Received/sec"
want="capturing on $veth_b needs CAP_NET_RAW: run as root or \`setcap cap_net_raw+ep getcounter\`"
[ "$errout" = "getcounter: $want" ] || fail "no CAP_NET_RAW: '$errout', want '$want'"
[ "$(printf '%s\n' "$errout" | wc -l)" -eq 1 ] || fail "more than one line: $errout"
[ -z "$out" ] || fail "output without CAP_NET_RAW: $out"

# check_dropped PID WHAT [root]: the capture's process is nobody (with root:
# uid 0) and holds no capability
check_dropped() {
	st=/proc/$1/status
	i=0
	while ! grep -q '^CapEff:[[:space:]]*0*$' "$st" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -r "$st" ] || fail "$2: the capture ended early"
	uid=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "$st")
	if [ "${3:-}" = root ]; then
		[ "$uid" = "0 0 0 0" ] || fail "$2: Uid $uid, want 0"
	else
		[ "$uid" = "$nobody $nobody $nobody $nobody" ] || fail "$2: Uid $uid, want $nobody"
		gid=$(awk '/^Gid:/ { print $2, $3, $4, $5 }' "$st")
		[ "$gid" = "$nogroup $nogroup $nogroup $nogroup" ] || fail "$2: Gid $gid"
		groups=$(awk '/^Groups:/ { $1 = ""; print }' "$st" | tr -d ' ')
		[ "$groups" = "$nogroup" ] || fail "$2: supplementary groups '$groups'"
	fi
	for c in CapEff CapPrm CapInh CapAmb; do
		v=$(awk -v c="$c:" '$1 == c { print $2 }' "$st")
		[ "$v" = 0000000000000000 ] || fail "$2: $c $v, want 0"
	done
	nnp=$(awk '/^NoNewPrivs:/ { print $2 }' "$st")
	[ "$nnp" = 1 ] || fail "$2: NoNewPrivs $nnp"
}

# 2. root with --user nobody
ip netns exec "$nsb" "$tmp/getcounter" "\\Network Capture($veth_b)\\Frames Received/sec" \
	--user nobody -i 1 -n 3 -f csv >"$tmp/u.csv" 2>"$tmp/u.err" &
p=$!
pids="$p"
check_dropped "$p" "--user nobody"
ip netns exec "$nsa" python3 "$(dirname "$0")/capture_send.py" "$veth_a" "$mac_a" "$mac_b" mix
wait "$p" || fail "the capture as nobody failed: $(cat "$tmp/u.err")"
# it still counts after dropping: 16 frames (capture_lib.sh)
expect_total "$tmp/u.csv" "Frames Received/sec" 16

# 3. root under sudo: SUDO_UID and SUDO_GID
SUDO_UID=$nobody SUDO_GID=$nogroup ip netns exec "$nsb" "$tmp/getcounter" \
	"\\Network Capture($veth_b)\\Frames Received/sec" -i 1 -n 2 >/dev/null 2>"$tmp/s.err" &
p=$!
pids="$p"
check_dropped "$p" "SUDO_UID"
wait "$p" || fail "the capture under SUDO_UID failed: $(cat "$tmp/s.err")"
pids=""

# 3b. root with neither SUDO_UID nor --user: it becomes nobody, holds no
# capability and has no_new_privs, as the man page says
env -u SUDO_UID -u SUDO_GID ip netns exec "$nsb" "$tmp/getcounter" \
	"\\Network Capture($veth_b)\\Frames Received/sec" -i 1 -n 2 >/dev/null 2>"$tmp/r.err" &
p=$!
pids="$p"
check_dropped "$p" "root without --user"
wait "$p" || fail "the capture as root without --user failed: $(cat "$tmp/r.err")"
pids=""
# 3c. sudo from a root shell (SUDO_UID 0) becomes nobody too; SUDO_UID
# without SUDO_GID takes the user's primary group; SUDO_GID 0 (root's
# group) is never kept: nobody's group instead
for env in "SUDO_UID=0 SUDO_GID=0" "SUDO_UID=$nobody" "SUDO_UID=$nobody SUDO_GID=0"; do
	# shellcheck disable=SC2086 # the assignments are words
	env -u SUDO_UID -u SUDO_GID $env ip netns exec "$nsb" "$tmp/getcounter" \
		"\\Network Capture($veth_b)\\Frames Received/sec" -i 1 -n 2 >/dev/null 2>"$tmp/r.err" &
	p=$!
	pids="$p"
	check_dropped "$p" "$env"
	wait "$p" || fail "the capture with $env failed: $(cat "$tmp/r.err")"
	pids=""
done
# ... and a SUDO_UID that is not a number is an error, not uid 0, found
# before -o and --log are written
expect_exit 1 env SUDO_UID=abc SUDO_GID=abc ip netns exec "$nsb" "$tmp/getcounter" \
	"\\Network Capture($veth_b)\\Frames Received/sec" -i 0.3 -n 2 -f csv -o "$tmp/bad.csv" \
	--log "$tmp/bad.gcl"
case $errout in *"SUDO_UID 'abc' is not a user id"*) ;; *) fail "SUDO_UID=abc: '$errout'" ;; esac
[ ! -e "$tmp/bad.csv" ] && [ ! -e "$tmp/bad.gcl" ] ||
	fail "a bad SUDO_UID left files behind: $(ls "$tmp" | grep bad)"

# ... and its -o and --log open before the capabilities go: a directory
# only its owner (nobody) may write is writable to root
mkdir "$tmp/nobodys"
chown "$nobody" "$tmp/nobodys"
chmod 700 "$tmp/nobodys"
expect_exit 0 env -u SUDO_UID -u SUDO_GID ip netns exec "$nsb" "$tmp/getcounter" \
	"\\Network Capture($veth_b)\\Frames Received/sec" -i 0.3 -n 2 \
	-o "$tmp/nobodys/c.csv" --log "$tmp/nobodys/c.gcl"
[ -s "$tmp/nobodys/c.csv" ] && [ -s "$tmp/nobodys/c.gcl" ] ||
	fail "root's capture could not write into a directory of nobody's: $errout"

# ... and a log its first read does not fit (a ring too small for one
# keyframe) is refused and removed while the run is still root: a
# directory only root may write keeps no empty log behind
mkdir "$tmp/roots"
chmod 700 "$tmp/roots"
expect_exit 1 env -u SUDO_UID -u SUDO_GID ip netns exec "$nsb" "$tmp/getcounter" \
	"\\Network Capture($veth_b)\\Frames Received/sec" '\*(*)\*' '\*\*' -i 0.3 -n 2 \
	--max-size 64K --circular -o "$tmp/roots/ring.gcl"
case $errout in
*"a circular log of them needs --max-size"*) ;;
*) fail "a ring too small for one read: '$errout'" ;;
esac
[ ! -e "$tmp/roots/ring.gcl" ] || fail "a refused log was left behind: $(ls -l "$tmp/roots")"

# 3c. not root but with CAP_NET_RAW (as after setcap): --user has nothing to
# do, one line says so, and the capture runs
expect_exit 0 ip netns exec "$nsb" setpriv --reuid="$nobody" --regid="$nogroup" \
	--clear-groups --inh-caps=+net_raw --ambient-caps=+net_raw "$tmp/getcounter" \
	"\\Network Capture($veth_b)\\Frames Received/sec" --user nobody -n 1
case $errout in
*"--user nobody has no effect: the run is not root (uid $nobody)"*) ;;
*) fail "--user when not root: '$errout'" ;;
esac

# 4. a link type other than Ethernet (a tun device: raw IP): one line,
# and the instance's counters are UNSUPPORTED, not 0
tun=gct$$
ip -n "$nsb" tuntap add mode tun name "$tun" || skip "cannot create a tun device"
ip -n "$nsb" link set "$tun" up
expect_exit 0 ip netns exec "$nsb" "$G" "\\Network Capture($tun)\\Frames Received/sec" -f json
case $errout in
*"capturing on $tun: unsupported link type"*) ;;
*) fail "tun: no unsupported link type line: '$errout'" ;;
esac
printf '%s\n' "$out" | grep -q '"status": "UNSUPPORTED"' || fail "tun: not UNSUPPORTED: $out"

# 4. --user that does not exist: one line, exit 2 (a usage error, found
# before the capture opens)
expect_exit 2 ip netns exec "$nsb" "$tmp/getcounter" "\\Network Capture($veth_b)\\Frames Received/sec" \
	--user no-such-user-$$
case $errout in
*"--user 'no-such-user-$$': no such user"*) ;;
*) fail "unknown --user: $errout" ;;
esac

# 5. the privileges go once every set is open, whatever the order of the
# paths: the eBPF counters named after a capture still load (root, BTF)
if [ -r /sys/kernel/btf/vmlinux ] && "$G" -l 'Per Processor Network Activity Cycles' |
	grep -q MultiInstance; then
	expect_exit 0 ip netns exec "$nsb" "$tmp/getcounter" -i 0.3 -n 2 -f csv \
		"\\Network Capture($veth_b)\\Frames Received/sec" \
		"\\Per Processor Network Activity Cycles($veth_b/_Total)\\Received Packets/sec"
	case $errout in *"needs root"* | *UNSUPPORTED*) fail "eBPF after a capture: $errout" ;; esac
	last=$(printf '%s\n' "$out" | tail -1 | cut -d, -f3 | tr -d '"\r')
	[ -n "$last" ] && [ "$last" != " " ] || fail "eBPF after a capture has no value: $out"
else
	echo "skipped part 5: no BTF or no eBPF support built in"
fi
exit 0
