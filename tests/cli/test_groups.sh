#!/bin/sh
# Per-group totals (IRQ/_Total) formed like _Total, on the irq-basic series
# (dt = 1002 - 1000 = 2 s; CPUs 0 and 3 online):
#   0/_Total    ((66 - 46) + (0 - 0)) / 2 = 10
#   27/_Total   CPU0 wraps: 2^32 - 4294967000 + 200 = 496; CPU3 30 - 10 = 20;
#               (496 + 20) / 2 = 258, WRAPPED
#   16/_Total   IRQ 16 has a new driver: RESET, no value
#   30/_Total   a row that appears: NEW, no value
#   ERR/_Total  one system-wide count, a plain instance: in no group
set -eu
. "$(dirname "$0")/lib.sh"
F=$FIXTURES/irq-basic
out=$("$GETCOUNTER" --root "$F/t0" --root "$F/t1" -f json '\Interrupt(*/_Total)\Interrupts/sec')
check() { # instance value status
	printf '%s\n' "$out" | grep -qF "\"instance\": \"$1\", \"counter\": \"Interrupts/sec\", \"value\": $2, \"status\": \"$3\"" ||
		fail "$1: wanted $2 $3 in $out"
}
check 0/_Total 10 OK
check 27/_Total 258 WRAPPED
check 16/_Total null RESET
check 30/_Total null NEW
check ERR/_Total 2 OK
n=$(printf '%s\n' "$out" | grep -o '"instance": "ERR/_Total"' | wc -l)
[ "$n" -eq 1 ] || fail "ERR/_Total listed $n times"
# one CPU's cells: */3 selects CPU 3 of every row, and no group
out=$("$GETCOUNTER" --root "$F/t0" --root "$F/t1" -f csv '\Interrupt(27/*)\Interrupts/sec')
printf '%s\n' "$out" | head -1 | grep -qF '"\\fixture\Interrupt(27/0)\Interrupts/sec","\\fixture\Interrupt(27/3)\Interrupts/sec","\\fixture\Interrupt(27/_Total)\Interrupts/sec"' ||
	fail "27/* columns: $(printf '%s\n' "$out" | head -1)"
printf '%s\n' "$out" | tail -1 | grep -qF '"248.000000","10.000000","258.000000"' || fail "27/* values: $out"
# Node totals on a series whose instance list never changes (cpuinfo-numa:
# node 0 = CPUs 0,1,4, node 1 = CPUs 2,3,5; every CPU's T = 200 ticks):
#   0,_Total  % User Time = 100 x (20 + 40 + 100) / 600 = 26.666...
#   1,_Total  100 x (60 + 80 + 120) / 600 = 43.333...
#   _Total    100 x 420 / 1200 = 35
F=$FIXTURES/cpuinfo-numa
out=$("$GETCOUNTER" --root "$F/t0" --root "$F/t1" -f csv --precision 3 '\Processor Information(*)\% User Time')
printf '%s\n' "$out" | head -1 | grep -qF 'Information(0,_Total)' || fail "no node total: $out"
printf '%s\n' "$out" | tail -1 | grep -qF '"26.667","43.333","35.000"' || fail "node totals: $out"
# Counters over another set's rows (cpu-irq, dt = 2 s, CPUs 0 and 1):
#   Processor(0)\Interrupts/sec  rows 0, 24, NMI, LOC of CPU0:
#       (30-10) + (2^32 - 4294967290 + 14 = 20) + 0 + (1400-1000) = 440 / 2 = 220, WRAPPED
#   Processor(1)  0 + 200 + 2 + 600 = 802 / 2 = 401
#   _Total        (440 + 802) / 2 = 621 (ERR and MIS are in no CPU's sum), WRAPPED
#   DPCs Queued/sec  CPU0 (200 + 0 + 40) / 2 = 120; CPU1 (50 + 0 + 0) / 2 = 25; _Total 145
#   Processor Information(0,_Total): node 0 holds both CPUs (no node dirs): 621
F=$FIXTURES/cpu-irq
out=$("$GETCOUNTER" --root "$F/t0" --root "$F/t1" -f csv --precision 0 '\Processor(*)\Interrupts/sec' \
	'\Processor(*)\DPCs Queued/sec' '\Processor Information(0,*)\Interrupts/sec')
printf '%s\n' "$out" | tail -1 | grep -qF '"220","401","621","120","25","145","220","401","621"' ||
	fail "rows totals: $out"
out=$("$GETCOUNTER" --root "$F/t0" --root "$F/t1" -f json '\Processor(0)\Interrupts/sec')
printf '%s\n' "$out" | grep -qF '"value": 220, "status": "WRAPPED"' || fail "wrap status: $out"
echo ok
