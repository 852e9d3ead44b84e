/*
 * procstat.h - parsers of the /proc text files behind the Processor, System
 * and Memory sets: /proc/stat (cpuN lines and the scalar lines), /proc/meminfo,
 * /proc/vmstat, /proc/loadavg and /proc/uptime. They take a buffer and fill
 * values, allocate nothing and never fail on odd input (a value they cannot
 * find is simply not marked present), so a unit test can feed them strings.
 * Buffers are NUL-terminated at len (pfile_read guarantees it).
 *
 * The cpuN parser lives in src/provider/cpu.c, the loadavg and uptime
 * parsers in src/provider/system.c, and the keyed parser (meminfo, vmstat,
 * /proc/stat scalars) in src/provider/memory.c.
 */
#ifndef GETCOUNTER_PROCSTAT_H
#define GETCOUNTER_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>

/* The fields of a cpuN line, in the kernel's order. */
enum procstat_cpu_field {
	PCPU_USER,
	PCPU_NICE,
	PCPU_SYSTEM,
	PCPU_IDLE,
	PCPU_IOWAIT,
	PCPU_IRQ,
	PCPU_SOFTIRQ,
	PCPU_STEAL,
	PCPU_GUEST,
	PCPU_GUEST_NICE,
	PCPU_NFIELDS,
};

/* One cpuN line of /proc/stat. */
struct procstat_cpu {
	unsigned cpu;     /* N of cpuN */
	unsigned nfields; /* fields printed: 4 to 10 (more are ignored) */
	uint64_t v[PCPU_NFIELDS];
};

/* Find the next cpuN line in [*pp, end), skipping the aggregate "cpu" line
 * and any malformed cpu line; fill out, move *pp past the line and return 1.
 * Return 0 (and set *pp to end) at the first line that is not a cpu line:
 * the kernel prints all cpu lines first, so the long intr line is never
 * scanned. */
int procstat_cpu_next(const char **pp, const char *end, struct procstat_cpu *out);

/*
 * Keyed files: each line is "key value" or "key: value [kB]". keys[i] is the
 * key of value i. Only keys with their bit set in want are parsed (exact
 * key match), each once; parsing stops as soon as every wanted key was
 * found. Each value is stored in vals[i]; the mask of keys found is
 * returned. A line is skipped with memchr, so long lines cost little.
 */
uint64_t procstat_keys(const char *buf, size_t len, const char *const *keys, size_t nkeys,
		       uint64_t want, uint64_t *vals);

/* procstat_keys with each key's line remembered from one read to the
 * next: at[i] is where key i's line began in the last text that had it
 * (PROCSTAT_AT_NONE: not known). A key still at its place is read there;
 * the others are looked for line by line, and their places written down.
 * The files' keys are unique and their order fixed, so a sample reads
 * each key without passing every line before it. */
#define PROCSTAT_AT_NONE UINT32_MAX
uint64_t procstat_keys_at(const char *buf, size_t len, const char *const *keys, size_t nkeys,
			  uint64_t want, uint64_t *vals, uint32_t *at);

/* The scalar lines of /proc/stat, indexes into procstat_stat_keys. */
enum procstat_stat_key {
	PSTAT_CTXT,
	PSTAT_BTIME,
	PSTAT_PROCESSES,
	PSTAT_PROCS_RUNNING,
	PSTAT_PROCS_BLOCKED,
	PSTAT_NKEYS,
};
extern const char *const procstat_stat_keys[PSTAT_NKEYS];

/* /proc/loadavg: "0.52 0.58 0.59 3/312 4567". Loads are stored x 100. */
enum procstat_loadavg_value {
	PLOAD_1,
	PLOAD_5,
	PLOAD_15,
	PLOAD_RUNNING,
	PLOAD_THREADS,
	PLOAD_NVALUES,
};

/* Parse /proc/loadavg text into vals; returns the mask of values found
 * (a prefix of the list: parsing stops at the first malformed field). */
uint64_t procstat_loadavg(const char *buf, uint64_t *vals);

/* Parse the first field of /proc/uptime ("12345.67 ...") as hundredths of
 * a second into *centis; 0, or -1 when there is no number. */
int procstat_uptime(const char *buf, uint64_t *centis);

/* Parse a decimal "123.45" at *pp as hundredths (12345), advancing *pp;
 * digits past the second decimal are dropped; saturates at UINT64_MAX.
 * 0, or -1 with no digit. */
int procstat_centi(const char **pp, uint64_t *out);

#endif
