/*
 * cpu.c - the Processor set (COUNTERS.md section 2): one instance per cpuN
 * line of /proc/stat, named by N (an offline CPU has no line, so it is
 * simply absent). Times are USER_HZ ticks; every percentage is a
 * SAMPLE_FRACTION over T, the delta of the eight fields of T, so it needs no
 * HZ. _Total comes from derive (sums of the per-CPU deltas), never from the
 * kernel's aggregate "cpu" line. Old kernels print 4 to 10 fields: a field a
 * line lacks is not put, and the counters that need it are UNSUPPORTED.
 *
 * Interrupts/sec, DPCs Queued/sec, the frequency and C-state counters are
 * not here yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procstat.h"
#include "provider.h"

/* The raw fields are the cpuN line's fields, in its order. */
enum {
	F_USER = PCPU_USER,
	F_NICE = PCPU_NICE,
	F_SYSTEM = PCPU_SYSTEM,
	F_IDLE = PCPU_IDLE,
	F_IOWAIT = PCPU_IOWAIT,
	F_IRQ = PCPU_IRQ,
	F_SOFTIRQ = PCPU_SOFTIRQ,
	F_STEAL = PCPU_STEAL,
	F_GUEST = PCPU_GUEST,
	F_GUEST_NICE = PCPU_GUEST_NICE,
	F_NFIELDS,
};

static const struct field_desc fields[F_NFIELDS] = {
	[F_USER] = { "user", FW_64, FK_CPU_TIME, FB_NONE },
	[F_NICE] = { "nice", FW_64, FK_CPU_TIME, FB_NONE },
	[F_SYSTEM] = { "system", FW_64, FK_CPU_TIME, FB_NONE },
	[F_IDLE] = { "idle", FW_64, FK_CPU_TIME, FB_NONE },
	[F_IOWAIT] = { "iowait", FW_64, FK_CPU_TIME, FB_NONE },
	[F_IRQ] = { "irq", FW_64, FK_CPU_TIME, FB_NONE },
	[F_SOFTIRQ] = { "softirq", FW_64, FK_CPU_TIME, FB_NONE },
	[F_STEAL] = { "steal", FW_64, FK_CPU_TIME, FB_NONE },
	[F_GUEST] = { "guest", FW_64, FK_CPU_EXTRA, FB_NONE },
	[F_GUEST_NICE] = { "guest_nice", FW_64, FK_CPU_EXTRA, FB_NONE },
};

/* T: the eight fields every percentage is a fraction of. */
#define T_TERMS                                                                   \
	{ { F_USER, 1 }, { F_NICE, 1 }, { F_SYSTEM, 1 }, { F_IDLE, 1 },           \
	  { F_IOWAIT, 1 }, { F_IRQ, 1 }, { F_SOFTIRQ, 1 }, { F_STEAL, 1 } }

static const struct counter_desc counters[] = {
	{
		.name = "% Processor Time",
		.type = CT_SAMPLE_FRACTION,
		.num = { { F_USER, 1 }, { F_NICE, 1 }, { F_SYSTEM, 1 }, { F_IRQ, 1 },
			 { F_SOFTIRQ, 1 } },
		.den = T_TERMS,
		.has_zero_base = 1,
		.zero_base = 0,
		.unit = "%",
		.help = "Share of time the processor ran anything but the idle task, "
			"in user mode, kernel mode or interrupts.",
	},
	{
		.name = "% User Time",
		.type = CT_SAMPLE_FRACTION,
		.num = { { F_USER, 1 }, { F_NICE, 1 } },
		.den = T_TERMS,
		.has_zero_base = 1,
		.zero_base = 0,
		.unit = "%",
		.help = "Share of time the processor ran user-mode code, niced or not "
			"(guest time included).",
	},
	{
		.name = "% Privileged Time",
		.type = CT_SAMPLE_FRACTION,
		.num = { { F_SYSTEM, 1 }, { F_IRQ, 1 }, { F_SOFTIRQ, 1 } },
		.den = T_TERMS,
		.has_zero_base = 1,
		.zero_base = 0,
		.unit = "%",
		.help = "Share of time the processor ran kernel code, hard and soft "
			"interrupt handlers included.",
	},
	{
		.name = "% Interrupt Time",
		.type = CT_SAMPLE_FRACTION,
		.num = { { F_IRQ, 1 } },
		.den = T_TERMS,
		.has_zero_base = 1,
		.zero_base = 0,
		.unit = "%",
		.help = "Share of time the processor spent in hardware interrupt handlers.",
	},
	{
		.name = "% DPC Time",
		.type = CT_SAMPLE_FRACTION,
		.num = { { F_SOFTIRQ, 1 } },
		.den = T_TERMS,
		.has_zero_base = 1,
		.zero_base = 0,
		.unit = "%",
		.help = "Share of time the processor spent in softirqs, the deferred work "
			"Linux runs after interrupts.",
	},
	{
		.name = "% Idle Time",
		.type = CT_SAMPLE_FRACTION,
		.num = { { F_IDLE, 1 }, { F_IOWAIT, 1 } },
		.den = T_TERMS,
		.has_zero_base = 1,
		.zero_base = 100,
		.unit = "%",
		.help = "Share of time the processor had nothing to run, waiting for I/O "
			"included.",
	},
	{
		.name = "% IOWait Time",
		.type = CT_SAMPLE_FRACTION,
		.num = { { F_IOWAIT, 1 } },
		.den = T_TERMS,
		.has_zero_base = 1,
		.zero_base = 0,
		.unit = "%",
		.help = "Share of time the processor was idle while a task it ran waited "
			"for disk I/O.",
	},
	{
		.name = "% Steal Time",
		.type = CT_SAMPLE_FRACTION,
		.num = { { F_STEAL, 1 } },
		.den = T_TERMS,
		.has_zero_base = 1,
		.zero_base = 0,
		.unit = "%",
		.help = "Share of time this virtual processor wanted to run but the "
			"hypervisor ran something else.",
	},
	{
		.name = "% Nice Time",
		.type = CT_SAMPLE_FRACTION,
		.num = { { F_NICE, 1 } },
		.den = T_TERMS,
		.has_zero_base = 1,
		.zero_base = 0,
		.unit = "%",
		.help = "Share of time the processor ran user-mode code of tasks with a "
			"positive nice value.",
	},
	{
		.name = "% Guest Time",
		.type = CT_SAMPLE_FRACTION,
		.num = { { F_GUEST, 1 }, { F_GUEST_NICE, 1 } },
		.den = T_TERMS,
		.has_zero_base = 1,
		.zero_base = 0,
		.unit = "%",
		.help = "Share of time the processor ran virtual machines' processors "
			"(already counted in % User Time).",
	},
};

static const struct counter_set processor_set = {
	.name = "Processor",
	.help = "Time use of each logical processor, from the per-CPU lines of /proc/stat.",
	.multi_instance = 1,
	.has_total = 1,
	.fields = fields,
	.nfields = F_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
};

struct cpu_state {
	struct pfile *stat;
};

/* Parse an unsigned decimal at p (before end), skipping blanks first;
 * saturates at UINT64_MAX. The end of the number, or NULL for none. */
static const char *
field_at(const char *p, const char *end, uint64_t *v)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	*v = 0;
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');
		*v = *v > (UINT64_MAX - d) / 10 ? UINT64_MAX : *v * 10 + d;
		p++;
	}
	return p;
}

int
procstat_cpu_next(const char **pp, const char *end, struct procstat_cpu *out)
{
	const char *p = *pp;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q;
		uint64_t n;

		if (!eol)
			eol = end;
		if (end - p < 3 || memcmp(p, "cpu", 3) != 0)
			break;
		q = field_at(p + 3, eol, &n);
		/* "cpu " is the aggregate line: the number must follow "cpu"
		 * at once. */
		if (q && p[3] >= '0' && p[3] <= '9' && n <= 0xFFFFFFFFu) {
			out->cpu = (unsigned)n;
			out->nfields = 0;
			while (out->nfields < PCPU_NFIELDS &&
			       (q = field_at(q, eol, &out->v[out->nfields])) != NULL)
				out->nfields++;
			if (out->nfields > 0) {
				*pp = eol < end ? eol + 1 : end;
				return 1;
			}
		}
		p = eol < end ? eol + 1 : end;
	}
	*pp = end;
	return 0;
}

/* Open: the shared /proc/stat file (read once per sample with System). */
static void *
cpu_open(const struct provider_ctx *ctx, struct err *err)
{
	struct cpu_state *st = xcalloc(1, sizeof(*st));

	(void)err;
	st->stat = procfs_file(ctx->fs, "proc/stat");
	return st;
}

/* Read: one instance per cpuN line, every field the line has. */
static int
cpu_read(void *state, struct raw_set *out, struct err *err)
{
	struct cpu_state *st = state;
	struct procstat_cpu line;
	const char *buf, *p, *end;
	size_t len;
	char name[16];

	buf = pfile_read(st->stat, &len, err);
	if (!buf)
		return -1;
	p = buf;
	end = buf + len;
	while (procstat_cpu_next(&p, end, &line)) {
		int n = snprintf(name, sizeof(name), "%u", line.cpu);
		struct raw_instance *ri = raw_set_add(out, name, (size_t)n, line.cpu);

		for (unsigned f = 0; f < line.nfields; f++)
			raw_put(ri, f, line.v[f]);
	}
	return 0;
}

static void
cpu_close(void *state)
{
	free(state);
}

const struct provider provider_processor = {
	.set = &processor_set,
	.open = cpu_open,
	.read = cpu_read,
	.close = cpu_close,
};
