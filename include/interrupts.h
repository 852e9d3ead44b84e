/*
 * interrupts.h - parsers of /proc/interrupts, /proc/softirqs and
 * /proc/net/softnet_stat, behind the Interrupt, Softirq and Per Processor
 * Network Activity sets (COUNTERS.md sections 2 and 6). They take a buffer
 * (NUL-terminated at its end, as pfile_read gives it) and fill the caller's
 * arrays; they allocate nothing and never fail on odd input, so a unit test
 * can feed them strings and a 1,000-CPU row costs one pass.
 *
 * The /proc/interrupts and /proc/softirqs parsers (one format: a header of
 * CPU columns, then "NAME: count count ... description" rows) live in
 * src/provider/interrupts.c; the softnet_stat and CPU list parsers in
 * src/provider/softnet.c.
 */
#ifndef GETCOUNTER_INTERRUPTS_H
#define GETCOUNTER_INTERRUPTS_H

#include <stddef.h>
#include <stdint.h>

#include "provider.h"

/* The file at relpath ("proc/interrupts", "proc/softirqs") of fs, its runs
 * of blanks read as two spaces at most (pfile_fold_blanks): a cell takes
 * eleven bytes there, most of them blanks, and every reader of these files
 * parses them with the functions below, which split on blanks and find an
 * IRQ's actions after the last gap of two or more. */
struct pfile *interrupts_file(struct procfs *fs, const char *relpath);

/*
 * The header line at *pp ("   CPU0   CPU3 ..."): the CPU number of each
 * column into cpus[0 .. max), in order. Returns the number of columns, which
 * may exceed max (then only max are stored: grow the array and parse again
 * from the same start). Moves *pp past the line. Tokens other than CPUn are
 * ignored.
 */
size_t interrupts_header(const char **pp, const char *end, unsigned *cpus, size_t max);

/* One row of /proc/interrupts or /proc/softirqs. Pointers are into the
 * buffer. */
struct interrupts_row {
	const char *name;    /* "24", "NMI", "NET_RX": the text before ':' */
	size_t name_len;
	size_t ncells;       /* counts read into vals; may be fewer than the
			      * header's columns (cell i is column i) */
	const char *desc;    /* the text after the counts, outer blanks
			      * trimmed, inner spacing kept: "IO-APIC   5-edge
			      *      ACPI:Ged", "Local timer interrupts", ""
			      * for softirqs and ERR */
	size_t desc_len;
	const char *actions; /* a numbered row's action names ("ACPI:Ged",
			      * "acpi, i801_smbus"): the part of desc after
			      * its last run of two or more blanks (the
			      * kernel prints two before the first name);
			      * the whole desc for other rows */
	size_t actions_len;
	uint8_t numbered;    /* the name is an IRQ number */
	uint8_t system_wide; /* ERR and MIS (arm's Err): one count for the
			      * whole system, in no CPU's column */
};

/* A cell whose digits do not make a count (more than uint64 holds). No
 * kernel count comes near it; the cell is absent, never 0. */
#define INTERRUPTS_NO_COUNT UINT64_MAX

/*
 * The next row in [*pp, end): its counts into vals[0 .. max) (max is the
 * header's column count; counts past it are left in the description), the
 * rest into row; a count of UINT64_MAX or more is INTERRUPTS_NO_COUNT (the
 * cell still counts in ncells, so later cells keep their columns). Lines
 * with no "NAME:" (the header, blank lines) are skipped. Moves *pp past the
 * row and returns 1; returns 0 at the end.
 */
int interrupts_row_next(const char **pp, const char *end, uint64_t *vals, size_t max,
			struct interrupts_row *row);

/* A row's identity (COUNTERS.md section 1): a hash of its name and its
 * action names, so a reused IRQ number with other names differs. Never 0. */
uint64_t interrupts_row_identity(const struct interrupts_row *row);

/* Write the instance name "NAME/CPU" of a row's cell into buf (size n >=
 * 64; a longer row name is cut to fit). Returns its length. */
size_t interrupts_instance_name(char *buf, size_t n, const struct interrupts_row *row,
				unsigned cpu);

/* A row's help text for the Interrupt set into buf (size n), cut to fit:
 * "(IRQ 24: PCI-MSI 512000-edge ahci[0000:00:1f.2])" for a numbered row
 * (runs of blanks squeezed to one), "(Local timer interrupts)" for others,
 * "(IRQ 24)" for a numbered row with no description. Returns its length; 0
 * for an unnumbered row with no description (ERR) or n < 2. */
size_t interrupts_describe_row(char *buf, size_t n, const char *name, size_t name_len,
			       int numbered, const char *desc, size_t desc_len);

/* The column of cpu among cpus[0 .. n) (a header, ascending as the kernel
 * prints it; any order works), or n when it has none. */
size_t interrupts_column_of(const unsigned *cpus, size_t n, unsigned cpu);

/* softnet_stat columns, 1-based as COUNTERS.md section 6 numbers them. */
enum softnet_column {
	SOFTNET_PROCESSED = 1,
	SOFTNET_DROPPED = 2,
	SOFTNET_TIME_SQUEEZE = 3,
	SOFTNET_RECEIVED_RPS = 10,     /* 2.6.35+ */
	SOFTNET_FLOW_LIMIT_COUNT = 11, /* 3.11+ */
	SOFTNET_BACKLOG_LEN = 12,      /* 5.10+ */
	SOFTNET_CPU = 13,              /* 5.10+ */
	SOFTNET_INPUT_QLEN = 14,       /* 6.x */
	SOFTNET_PROCESS_QLEN = 15,     /* 6.x */
	SOFTNET_MAX_COLUMNS = 16,      /* columns kept; more are ignored */
};

/* One row of /proc/net/softnet_stat: column k is v[k - 1]. */
struct softnet_row {
	unsigned ncols; /* columns the row has (at most SOFTNET_MAX_COLUMNS) */
	uint64_t v[SOFTNET_MAX_COLUMNS];
};

/* The next row in [*pp, end) (hex columns); moves *pp past it and returns
 * 1, or 0 at the end. Lines with no hex column are skipped. */
int softnet_row_next(const char **pp, const char *end, struct softnet_row *row);

/* A walk over a CPU list ("0-3,8,10-11", sys/devices/system/cpu/online). */
struct softnet_cpulist {
	const char *p;
	unsigned next, last; /* the range in progress: next .. last */
	int in_range;
};

/* Start walking list (NUL-terminated; a trailing newline is fine). */
void softnet_cpulist_begin(struct softnet_cpulist *it, const char *list);
/* The next CPU of the list into *cpu: 1, or 0 at its end or at malformed
 * text. */
int softnet_cpulist_next(struct softnet_cpulist *it, unsigned *cpu);

/* The per-CPU table of /proc/interrupts or /proc/softirqs as a provider
 * state: one instance "ROW/CPU" per cell (field 0, the count), a system-wide
 * row (ERR, MIS) as "ROW/_Total" outside _Total, each cell's identity the
 * row's number and action names. The file is read only when ctx->needed
 * asks for field 0. Owned by the caller: percpu_rows_close. */
void *percpu_rows_open(const struct provider_ctx *ctx, const char *relpath);
int percpu_rows_read(void *state, struct raw_set *out, struct err *err);
void percpu_rows_close(void *state);

#endif
