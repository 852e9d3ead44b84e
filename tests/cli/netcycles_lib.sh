# netcycles_lib.sh - sourced by the eBPF counters' tests after lib.sh.
# netcycles_needs: skip (saying why) unless this machine can load the eBPF
# programs: root, kernel BTF, python3, ip and timeout, and a getcounter
# built with eBPF whose Per Processor Network Activity loads; fail when it
# should load and does not.
netcycles_needs() {
	[ -n "${GETCOUNTER:-}" ] && [ -x "$GETCOUNTER" ] ||
		skip "no getcounter binary (GETCOUNTER unset or not built)"
	[ "$(id -u)" -eq 0 ] || skip "not root: the eBPF counters need root"
	[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF (/sys/kernel/btf/vmlinux)"
	command -v python3 >/dev/null 2>&1 || skip "no python3 for the traffic"
	command -v ip >/dev/null 2>&1 || skip "no ip command (iproute2)"
	command -v timeout >/dev/null 2>&1 || skip "no timeout command"
	probe=$("$GETCOUNTER" -i 0.1 -n 1 '\Per Processor Network Activity(_Total)\NAPI Polls/sec' 2>&1 >/dev/null) ||
		fail "getcounter failed: $probe"
	case $probe in
	*"not built in"*) skip "getcounter built without eBPF: $probe" ;;
	*"grant cap_bpf"*) skip "root without CAP_BPF here (a container?): $probe" ;;
	*UNSUPPORTED*) fail "the eBPF counters do not load as root here: $probe" ;;
	esac
}

# netcycles_tmp: a temporary directory $tmp, and an EXIT trap that stops
# the processes in $pids, deletes the namespaces netns_add made and $tmp,
# whether the test passes or fails.
netcycles_tmp() {
	tmp=$(mktemp -d)
	pids=""
	trap netcycles_cleanup EXIT
	trap 'exit 1' INT TERM
}
netcycles_cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	pids=""
	netns_cleanup
	rm -rf "$tmp"
}
