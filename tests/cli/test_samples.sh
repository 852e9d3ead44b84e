#!/bin/sh
# cli-run: long
# samples/*.txt, the counter files for common investigations (-cf):
#   - the samples directory holds no file this test does not cover;
#   - each file starts with a # header that shows how to run it (getcounter -cf samples/NAME);
#   - each counter path is spelled exactly as in `getcounter -q` (set and counter names);
#   - over a fixture series that holds every set the file uses (fixture trees merged into one
#     root per step), `--root t0 --root t1 -cf FILE -f csv` exits 0 and every path of the file
#     gives at least one column (instance wildcards matched as getcounter does: '*' only,
#     case-insensitive);
#   - live, `-cf FILE -n 1 -i 0.2 -f csv` exits 0, and a path that gives no column is a set
#     absent on this machine: its "matches no instance" warning must name the path. RDMA
#     Activity is the expected one (no /sys/class/infiniband); the test says which were absent.
set -eu
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
samples=$here/../../samples
[ -d "$samples" ] || fail "no samples directory at $samples"

# The fixture trees that together hold every set a sample file uses (merged in this order;
# a later tree's file wins, which only matters for proc/stat and proc/uptime).
fixtures_for() {
	case $1 in
	nic-triage.txt) echo "nicirq-basic softnet-v510" ;;	# adapters, NIC IRQs; softnet
	disk-latency.txt) echo "ldisk-basic" ;;		# diskstats, sys/block, mountinfo
	cpu-interrupts.txt) echo "cpu-irq" ;;			# stat, interrupts, softirqs
	tcpip.txt) echo "tcpip-basic" ;;
	rdma.txt) echo "rdma-basic" ;;
	baseline.txt)
		echo "sysmem-basic pressure-basic ldisk-basic nic-sysfs softnet-v510 tcpip-basic" ;;
	*) return 1 ;;
	esac
}
# Files in samples/ that a check below covers (space-separated shell patterns): the .gcl
# sample logs and the script that records them (see "sample logs" at the end).
covered_elsewhere="*.gcl record-logs.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# Every file of samples/ is covered.
for p in "$samples"/* "$samples"/.[!.]*; do
	[ -e "$p" ] || continue
	name=$(basename "$p")
	covered=0
	for pat in $covered_elsewhere; do
		# shellcheck disable=SC2254
		case $name in $pat) covered=1 ;; esac
	done
	[ "$covered" -eq 1 ] && continue
	case $name in
	*.txt) fixtures_for "$name" >/dev/null ||
		fail "samples/$name has no fixture series in this test (fixtures_for)" ;;
	*) fail "samples/$name is covered by no test (add it to covered_elsewhere with its test)" ;;
	esac
done

"$GETCOUNTER" -q >"$tmp/q" || fail "getcounter -q failed"

# check_columns FILE CSV STDERR MODE: every path of FILE (read as the counter-file reader does)
# matched by a CSV header column; MODE fixture: none may be missing; MODE live: a missing one
# must be named in STDERR. Prints "absent SET" for each set with a missing path (live).
check_columns() {
	awk -v mode="$4" -v errf="$3" -v csvf="$2" -v qf="$tmp/q" -v q="'" \
	    -v bom="$(printf '\357\273\277')" '
	function trim(s) { sub(/^[ \t\r]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
	# parse(p): split a path into P["set"], P["inst"], P["ctr"], P["multi"]
	function parse(p,   i, rest) {
		if (substr(p, 1, 2) == "\\\\") {	# \\HOST
			p = substr(p, 3)
			p = substr(p, index(p, "\\"))
		}
		p = substr(p, 2)
		P["multi"] = 0; P["inst"] = ""
		if (match(p, /^[^\\(]*\(/)) {
			P["set"] = substr(p, 1, RLENGTH - 1); rest = substr(p, RLENGTH + 1)
			# the instance runs to the last ")\": instances may hold parentheses
			for (i = length(rest) - 1; i > 0; i--)
				if (substr(rest, i, 2) == ")\\") break
			if (i <= 0) return 0
			P["inst"] = substr(rest, 1, i - 1)
			P["ctr"] = substr(rest, i + 2)
			P["multi"] = 1
		} else {
			i = index(p, "\\")
			if (!i) return 0
			P["set"] = substr(p, 1, i - 1); P["ctr"] = substr(p, i + 1)
		}
		return 1
	}
	# glob(pat, s): getcounter matching, "*" the only wildcard, case-insensitive
	function glob(pat, s,   re, c, i) {
		pat = tolower(pat)
		re = "^"
		for (i = 1; i <= length(pat); i++) {
			c = substr(pat, i, 1)
			if (c == "*") re = re ".*"
			else if (index("\\^$.[]|()?+{}/", c)) re = re "\\" c
			else re = re c
		}
		return tolower(s) ~ (re "$")
	}
	BEGIN {
		while ((getline l < qf) > 0) known[l] = 1
		getline hdr < csvf
		sub(/^"/, "", hdr); sub(/"[ \t\r]*$/, "", hdr)
		ncol = split(hdr, col, /","/)
		while ((getline l < errf) > 0) err = err l "\n"
	}
	{
		s = trim($0)
		if (FNR == 1 && substr(s, 1, 3) == bom) s = substr(s, 4)
		if (s == "" || substr(s, 1, 1) == "#") next
		if (s ~ /^".*"$/) s = substr(s, 2, length(s) - 2)
		if (!parse(s)) { print "unparsable path line " FNR ": " s; bad = 1; next }
		set = P["set"]; inst = P["inst"]; ctr = P["ctr"]; multi = P["multi"]
		canon = multi ? "\\" set "(*)\\" ctr : "\\" set "\\" ctr
		if (!(canon in known)) {
			print "line " FNR ": " canon " is not a path of getcounter -q"
			bad = 1
		}
		found = 0
		for (c = 2; c <= ncol && !found; c++) {
			if (!parse(col[c])) continue
			if (tolower(P["set"]) == tolower(set) && glob(ctr, P["ctr"]) &&
			    (!multi || glob(inst, P["inst"])))
				found = 1
		}
		if (found) next
		if (mode == "live" && index(err, q s q " matches no instance")) {
			if (!(set in absent)) { absent[set] = 1; print "absent " set }
			next
		}
		print "line " FNR ": " s " gave no column"; bad = 1
	}
	END { exit bad }' "$1"
}

n=0
for f in "$samples"/*.txt; do
	[ -e "$f" ] || continue
	name=$(basename "$f")
	n=$((n + 1))
	head -1 "$f" | grep -q '^#' || fail "$name: does not start with a # comment header"
	grep -q "^#.*getcounter -cf samples/$name" "$f" ||
		fail "$name: header shows no 'getcounter -cf samples/$name'"

	# fixture series: t0 and t1 of each listed tree merged into one root per step
	rm -rf "$tmp/t0" "$tmp/t1"
	mkdir "$tmp/t0" "$tmp/t1"
	for fx in $(fixtures_for "$name"); do
		[ -d "$FIXTURES/$fx/t1" ] || fail "$name: no fixture $fx"
		for t in t0 t1; do
			cp -R "$FIXTURES/$fx/$t/." "$tmp/$t/" || fail "$name: merging $fx/$t"
		done
	done
	expect_exit 0 "$GETCOUNTER" --root "$tmp/t0" --root "$tmp/t1" -cf "$f" -f csv
	printf '%s\n' "$out" >"$tmp/csv"
	printf '%s\n' "$errout" >"$tmp/err"
	[ "$(wc -l <"$tmp/csv")" -eq 2 ] || fail "$name: wanted a header and one sample: $out"
	res=$(check_columns "$f" "$tmp/csv" "$tmp/err" fixture) ||
		fail "$name over $(fixtures_for "$name"): $res :: $errout"

	# live: exit 0; a path without column names an absent set on standard error
	expect_exit 0 "$GETCOUNTER" -cf "$f" -n 1 -i 0.2 -f csv
	printf '%s\n' "$out" >"$tmp/csv"
	printf '%s\n' "$errout" >"$tmp/err"
	res=$(check_columns "$f" "$tmp/csv" "$tmp/err" live) || fail "$name live: $res :: $errout"
	printf '%s\n' "$res" |
		sed -n "s/^absent \(.*\)/$name live: set \1 absent here (warned on stderr)/p"
done
[ "$n" -gt 0 ] || fail "no samples/*.txt"
# RDMA: absent here unless the machine has InfiniBand/RoCE devices; then the warning names it
if [ ! -d /sys/class/infiniband ] && [ -e "$samples/rdma.txt" ]; then
	expect_exit 0 "$GETCOUNTER" -cf "$samples/rdma.txt" -n 1 -i 0.2 -f csv
	want="'\\RDMA Activity(*)\\RDMA Inbound Bytes/sec' matches no instance"
	printf '%s\n' "$errout" | grep -qF "$want" ||
		fail "rdma.txt live: no warning naming RDMA Activity: $errout"
	echo "rdma.txt live: no /sys/class/infiniband: RDMA Activity absent (the warning names it)"
fi

# sample logs: each replays (csv, with a value in every row), and record-logs.sh records them
# again to logs that replay to the same bytes, so they cannot drift from the format or the
# fixtures they came from.
nlogs=0
mkdir -p "$tmp/rerecorded"
sh "$samples/record-logs.sh" "$GETCOUNTER" "$tmp/rerecorded" >/dev/null 2>"$tmp/rec.err" ||
	fail "record-logs.sh failed: $(cat "$tmp/rec.err")"
for g in "$samples"/*.gcl; do
	[ -e "$g" ] || continue
	nlogs=$((nlogs + 1))
	name=$(basename "$g")
	expect_exit 0 "$GETCOUNTER" --input "$g" --utc -f csv
	printf '%s\n' "$out" >"$tmp/replay.csv"
	rows=$(($(wc -l <"$tmp/replay.csv") - 1))
	[ "$rows" -ge 10 ] || fail "$name: replayed $rows samples, wanted at least 10"
	# every sample row holds a number: the clock moved between the recorded roots
	awk -F'","' 'NR > 1 { ok = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]/) ok = 1
		if (!ok) { print "row " NR " has no value"; exit 1 } }' "$tmp/replay.csv" ||
		fail "$name: a replayed sample has no value"
	[ -f "$tmp/rerecorded/$name" ] || fail "$name: record-logs.sh does not record it"
	expect_exit 0 "$GETCOUNTER" --input "$tmp/rerecorded/$name" --utc -f csv
	[ "$out" = "$(cat "$tmp/replay.csv")" ] ||
		fail "$name: record-logs.sh records a log that replays differently (run it again)"
done
[ "$nlogs" -ge 2 ] || fail "wanted at least two sample logs in samples/, found $nlogs"
echo "ok: $n sample files, $nlogs sample logs"
