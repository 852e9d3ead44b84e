/*
 * cpuidle.h - per-CPU cpufreq and cpuidle values (COUNTERS.md section 2),
 * read for the Processor, Processor Information and Processor Idle State
 * sets from sys/devices/system/cpu/cpuN/{cpufreq,cpuidle/stateK}.
 *
 * A reader discovers a CPU's files the first time it is asked for that CPU
 * and keeps the wanted ones open (live), so each read is one pread per
 * wanted file into a stack buffer: no allocation in steady state. Under
 * --root, every read starts afresh from the current root.
 */
#ifndef GETCOUNTER_CPUIDLE_H
#define GETCOUNTER_CPUIDLE_H

#include <stddef.h>
#include <stdint.h>

#include "procfs.h"

#define CPUIDLE_MAX_STATES 16 /* stateK directories looked at (the kernel has 10) */
#define CPUIDLE_CSTATES 10    /* non-POLL states exposed as C1 .. C10 */
#define CPUIDLE_NAME_LEN 16   /* the kernel's CPUIDLE_NAME_LEN */

/* Bits of cpuidle_state.have and cpuidle_cpu.have. */
#define CPUIDLE_HAVE_TIME 1u
#define CPUIDLE_HAVE_USAGE 2u
#define CPUIDLE_HAVE_CUR_FREQ 1u
#define CPUIDLE_HAVE_MAX_FREQ 2u

/* Bit 0 of cpuidle_want.time / .usage: every state, POLL included. */
#define CPUIDLE_EVERY_STATE 1u

/* What a reader reads. time and usage: bit k (1 .. 10) for the k-th
 * non-POLL state, or CPUIDLE_EVERY_STATE. */
struct cpuidle_want {
	uint8_t cur_freq; /* scaling_cur_freq, each read */
	uint8_t max_freq; /* cpuinfo_max_freq, read once */
	uint32_t time;
	uint32_t usage;
};

/* One idle state of one CPU at the last read. */
struct cpuidle_state {
	char name[CPUIDLE_NAME_LEN]; /* stateK/name: "C1E", "POLL" */
	uint8_t cstate;              /* k for the k-th non-POLL state (1 .. 10), else 0 */
	uint8_t have;                /* CPUIDLE_HAVE_TIME, CPUIDLE_HAVE_USAGE */
	uint64_t time_us;
	uint64_t usage;
};

/* One CPU's values at the last read. */
struct cpuidle_cpu {
	unsigned cpu;
	uint8_t have;     /* CPUIDLE_HAVE_CUR_FREQ, CPUIDLE_HAVE_MAX_FREQ */
	uint64_t cur_khz; /* scaling_cur_freq */
	uint64_t max_khz; /* cpuinfo_max_freq */
	unsigned nstates; /* stateK directories found, in order of K */
	struct cpuidle_state *state;
};

struct cpuidle_reader;

/* A reader of fs's cpufreq and cpuidle files that reads at least *want.
 * One reader serves every caller on fs: a later call adds its want to what
 * the reader reads (so a CPU may show values the caller did not ask for)
 * and gets the same reader. Each call is matched by a cpuidle_reader_free;
 * the last one frees it. */
struct cpuidle_reader *cpuidle_reader_new(struct procfs *fs, const struct cpuidle_want *want);
void cpuidle_reader_free(struct cpuidle_reader *r);

/* Start a read. Under --root the current root may be another tree: every
 * CPU is discovered again, once a read generation whoever calls it. Live,
 * nothing changes. */
void cpuidle_reader_begin(struct cpuidle_reader *r);

/* Read CPU cpu's wanted files, discovering them first if needed. The
 * record is owned by r and valid until the next begin or read of the same
 * CPU; a CPU already read in this read generation (procfs_begin_read) is
 * not read again, by this caller or another. Never NULL (a CPU without
 * cpufreq and cpuidle has have 0 and no states). A file that fails to read
 * is simply not marked in have, and the CPU is discovered again next time. */
const struct cpuidle_cpu *cpuidle_reader_read(struct cpuidle_reader *r, unsigned cpu);

/* The names of c's non-POLL states first .. last (1-based), joined by
 * " + " into buf ("C6 + C10"); the length, 0 when there is none. */
size_t cpuidle_cstate_names(const struct cpuidle_cpu *c, unsigned first, unsigned last,
			    char *buf, size_t n);

/* A sysfs number attribute ("2400000\n"): 0 with *out, or -1 when the text
 * is not one unsigned decimal ("<unknown>", empty). */
int cpuidle_parse_u64(const char *buf, uint64_t *out);

/* A state name attribute ("C1E\n") into out (size n): trailing blanks and
 * newlines dropped, other control characters and '/' replaced by '_', so it
 * can be an instance name. The length. */
size_t cpuidle_parse_name(const char *buf, char *out, size_t n);

#endif
