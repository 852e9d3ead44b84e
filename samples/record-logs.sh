#!/bin/sh
# record-logs.sh - record the sample logs samples/*.gcl again (after a change
# of the log format, or of the fixtures they come from).
#
# Each log is recorded with getcounter --root over a series of 12 fixture
# roots made here: the two steps t0 and t1 of test fixtures (merged into one
# tree per step), extended in a straight line, so that step k holds, for each
# decimal number of a file, t0's value + k x (t1's - t0's). Counters then grow
# at the fixtures' rates and the clock (proc/uptime) moves at theirs.
#
#   baseline.gcl         -cf samples/baseline.txt over the Memory, System,
#                        Pressure, LogicalDisk, Network Adapter, softnet and
#                        TCP/IP fixtures
#   cpu-interrupts.gcl   -cf samples/cpu-interrupts.txt over cpu-irq
#
# usage: samples/record-logs.sh [GETCOUNTER [OUTDIR]]
# (defaults: build/getcounter, and samples/ itself)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
gc=${1:-$top/build/getcounter}
outdir=${2:-$here}
steps=12
fixtures=$top/tests/fixtures

if [ ! -x "$gc" ]; then
	echo "record-logs.sh: $gc is not built (run make first)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# series NAME FIXTURE...: $tmp/NAME/s0 .. s(steps-1)
series() {
	name=$1
	shift
	mkdir -p "$tmp/$name/t0" "$tmp/$name/t1"
	for fx in "$@"; do
		for t in t0 t1; do
			cp -R "$fixtures/$fx/$t/." "$tmp/$name/$t/"
		done
	done
	k=0
	while [ $k -lt $steps ]; do
		s=$tmp/$name/s$k
		cp -R "$tmp/$name/t0" "$s"
		(cd "$tmp/$name/t0" && find . -type f) | while read -r f; do
			[ -f "$tmp/$name/t1/$f" ] || continue
			awk -v k=$k '
			# the decimal tokens of a line, with what lies between
			function split_line(line, tok, sep,   n) {
				n = 0
				sep[0] = ""
				while (match(line, /(^|[^0-9A-Za-z_.:x])[0-9]+([^0-9A-Za-z_.:]|$)/)) {
					lead = substr(line, RSTART, 1) ~ /[0-9]/ ? 0 : 1
					start = RSTART + lead
					len = RLENGTH - lead
					if (substr(line, RSTART + RLENGTH - 1, 1) !~ /[0-9]/)
						len--
					n++
					sep[n - 1] = sep[n - 1] substr(line, 1, start - 1)
					tok[n] = substr(line, start, len)
					line = substr(line, start + len)
					sep[n] = ""
				}
				sep[n] = sep[n] line
				return n
			}
			NR == FNR { t1[FNR] = $0; next }
			{
				n0 = split_line($0, a, s0)
				n1 = split_line(t1[FNR], b, s1)
				if (n0 != n1 || k == 0) { print; next }
				out = s0[0]
				for (i = 1; i <= n0; i++) {
					v = a[i] + k * (b[i] - a[i])
					if (v < 0)
						v = 0
					out = out sprintf("%.0f", v) s0[i]
				}
				print out
			}' "$tmp/$name/t1/$f" "$tmp/$name/t0/$f" >"$s/$f.new"
			mv "$s/$f.new" "$s/$f"
		done
		# proc/uptime holds decimals, which the token rule above leaves alone
		if [ -f "$tmp/$name/t0/proc/uptime" ] && [ -f "$tmp/$name/t1/proc/uptime" ]; then
			awk -v k=$k 'NR == FNR { u1 = $1; i1 = $2; next }
				{ printf "%.2f %.2f\n", $1 + k * (u1 - $1), $2 + k * (i1 - $2) }' \
				"$tmp/$name/t1/proc/uptime" "$tmp/$name/t0/proc/uptime" >"$s/proc/uptime"
		fi
		k=$((k + 1))
	done
}

# record NAME COUNTER-FILE: outdir/NAME.gcl from series NAME
record() {
	roots=""
	k=0
	while [ $k -lt $steps ]; do
		roots="$roots --root $tmp/$1/s$k"
		k=$((k + 1))
	done
	rm -f "$outdir/$1.gcl"
	# shellcheck disable=SC2086
	"$gc" $roots -cf "$2" -o "$outdir/$1.gcl" 2>"$tmp/$1.err" || {
		cat "$tmp/$1.err" >&2
		exit 1
	}
	echo "record-logs.sh: $outdir/$1.gcl: $(wc -c <"$outdir/$1.gcl") bytes"
}

series baseline sysmem-basic pressure-basic ldisk-basic nic-sysfs softnet-v510 tcpip-basic
record baseline "$here/baseline.txt"
series cpu-interrupts cpu-irq
record cpu-interrupts "$here/cpu-interrupts.txt"
