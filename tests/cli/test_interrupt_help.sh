#!/bin/sh
# getcounter -q -x -v Interrupt: each instance's help text ends with its
# /proc/interrupts row's description (COUNTERS.md section 2), blanks
# squeezed: tests/fixtures/irq-basic/t0 has
#   LOC:  1000  2000   Local timer interrupts
#    27:  4294967000  10   PCI-MSI 512000-edge      ahci[0000:00:1f.2]
# ERR (no description) gets nothing appended.
set -eu
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/irq-basic/t0
expect_exit 0 "$GETCOUNTER" --root "$F" -q -x -v Interrupt
# the line after an instance's path is its help text
help_of() {
	printf '%s\n' "$out" | awk -v p="$1" 'f { print; exit } $0 == p { f = 1 }'
}
h=$(help_of '\Interrupt(LOC/3)\Interrupts/sec')
case $h in
*" (Local timer interrupts)") ;;
*) fail "LOC/3 help: '$h'" ;;
esac
h=$(help_of '\Interrupt(LOC/_Total)\Interrupts/sec')
case $h in
*" (Local timer interrupts)") ;;
*) fail "LOC/_Total help: '$h'" ;;
esac
h=$(help_of '\Interrupt(27/0)\Interrupts/sec')
case $h in
*" (IRQ 27: PCI-MSI 512000-edge ahci[0000:00:1f.2])") ;;
*) fail "27/0 help: '$h'" ;;
esac
h=$(help_of '\Interrupt(ERR/_Total)\Interrupts/sec')
case $h in
*")") fail "ERR/_Total help: '$h'" ;;
esac
[ -n "$h" ] || fail "no help line after ERR/_Total"
# -l -v (no instance): the counter's own help, no row
expect_exit 0 "$GETCOUNTER" --root "$F" -l -v Interrupt
printf '%s\n' "$out" | grep -q 'Local timer' && fail "-l -v names a row: $out"
exit 0
