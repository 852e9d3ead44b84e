/*
 * nicpower.h - the Physical Network Interface Card Activity set's raw
 * fields and the parsers of the device power attributes behind them
 * (COUNTERS.md section 6, src/provider/nicpower.c). The parsers take the
 * text of one sysfs attribute, allocate nothing and never fail on odd
 * input, so a unit test can feed them strings.
 */
#ifndef GETCOUNTER_NICPOWER_H
#define GETCOUNTER_NICPOWER_H

#include <stdint.h>

/* The raw fields, one per attribute of the interface's device. */
enum nicpower_field {
	NP_POWER_STATE,     /* power_state: D0 0 .. D3hot and D3cold 3 */
	NP_SUSPENDED_TIME,  /* power/runtime_suspended_time, ms */
	NP_ACTIVE_TIME,     /* power/runtime_active_time, ms */
	NP_RUNTIME_STATUS,  /* power/runtime_status: enum nicpower_runtime */
	NP_NFIELDS,
};

/* The numbers Runtime Status shows. */
enum nicpower_runtime {
	NP_RT_ACTIVE,
	NP_RT_SUSPENDED,
	NP_RT_SUSPENDING,
	NP_RT_RESUMING,
	NP_RT_UNSUPPORTED,
	NP_RT_ERROR,
};

/* Parse a PCI `power_state` text ("D0\n"): 0 with *state set to 0 for D0, 1
 * for D1, 2 for D2, 3 for D3hot and D3cold; -1 for "unknown", "error" or
 * anything else. */
int nicpower_parse_power_state(const char *text, uint64_t *state);

/* Parse a `power/runtime_status` text ("active\n"): 0 with *status set to
 * its enum nicpower_runtime value; -1 for anything else. */
int nicpower_parse_runtime_status(const char *text, uint64_t *status);

/* Parse a `power/runtime_*_time` text (milliseconds): 0 with *ms set; -1 for
 * a text that is not an unsigned decimal (kernels before 5.1 print the
 * 32-bit count signed, so a long-lived device may show a negative one). */
int nicpower_parse_ms(const char *text, uint64_t *ms);

#endif
