/*
 * cpu.h - the reader behind the Processor and Processor Information sets
 * (COUNTERS.md section 2), which share their fields and counters: per online
 * CPU, one raw instance with its /proc/stat times, its cpufreq frequencies
 * and its first ten non-POLL cpuidle states' time and usage.
 */
#ifndef GETCOUNTER_CPU_H
#define GETCOUNTER_CPU_H

#include <stddef.h>

#include "provider.h"

/* The two sets (src/provider/cpu.c). */
extern const struct counter_set cpu_processor_set;
extern const struct counter_set cpu_information_set;

struct cpu_reader;

/* A reader of what ctx->needed asks for (ctx is borrowed until free):
 * /proc/stat only when a time field is needed, cpufreq and cpuidle files
 * only when their fields are. Owned by the caller: cpu_reader_free. */
struct cpu_reader *cpu_reader_new(const struct provider_ctx *ctx);
void cpu_reader_free(struct cpu_reader *r);

/* The provider describe hook's text for counter c on CPU cpu: the names of
 * the idle states a C-state counter covers here ("(Here C6 + C10.)"); 0
 * for counters with nothing to add. */
size_t cpu_reader_describe(struct cpu_reader *r, const struct counter_desc *c, unsigned cpu,
			   char *buf, size_t n);

/* Add one instance per online CPU to out, named by name(arg, cpu, buf, n)
 * (which writes a NUL-terminated name into buf and returns its length) or
 * by the CPU number when name is NULL; identity is the CPU number. The
 * online CPUs are /proc/stat's cpuN lines, or sys/devices/system/cpu/online
 * when no time field is needed. Returns 0, or -1 with err filled when
 * neither can be read. */
int cpu_reader_read(struct cpu_reader *r, struct raw_set *out,
		    size_t (*name)(void *arg, unsigned cpu, char *buf, size_t n), void *arg,
		    struct err *err);

#endif
