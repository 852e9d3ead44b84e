#!/bin/sh
# The legend's values fit their 9 columns at any magnitude: cli-basic's
# eth0 moves 3,000,000 bytes in 2 s = 1500000.00/s, which printed whole is
# 10 columns (the row shifted and wrapped); shown as 1.50M (1500000 /
# 1000^2). Every row's status starts under the header's "Status", at 100
# and 120 columns.
set -eu
. "$(dirname "$0")/lib.sh"
B=$FIXTURES/cli-basic
# aligned: every legend row's status starts where the header's does
aligned() {
	screen | awk '
	/Scale .*Status/ { col = index($0, "Status"); next }
	col && /^[a-zA-Z] / {
		if (substr($0, col, 3) != "OK ") { print "misaligned: " $0; bad = 1 }
		n++
	}
	END { if (!col || n < 8) { print "no legend (" n " rows)"; bad = 1 } exit bad }'
}
for w in 100 120; do
	tui_start $w 30 "$utf8" --tui --root "$B/t0" --root "$B/t1" --root "$B/t2"
	wait_for "sample 1/2"
	out=$(aligned) || fail "at $w columns: $out: $(screen)"
	screen | grep -q '^g .* 1\.50M  *1\.50M  *1\.50M  *1\.50M  OK ' ||
		fail "at $w columns, eth0 is not 1.50M: $(screen)"
	[ $w = 100 ] && golden legend-wide-values
	keys q
	wait_rc 0
done
