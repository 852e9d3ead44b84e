/*
 * cpu.c - the Processor set and, with the same fields and counters, the
 * Processor Information set (COUNTERS.md section 2): one instance per online
 * CPU (an offline CPU has no cpuN line in /proc/stat, so it is simply
 * absent). Times are USER_HZ ticks; every percentage is a SAMPLE_FRACTION
 * over T, the delta of the eight fields of T, so it needs no HZ. _Total
 * comes from derive (sums of the per-CPU deltas), never from the kernel's
 * aggregate "cpu" line. Old kernels print 4 to 10 fields: a field a line
 * lacks is not put, and the counters that need it are UNSUPPORTED.
 *
 * Frequency and C-state fields come from cpufreq and cpuidle (cpuidle.c
 * reads them), only when a requested counter needs them; when none of the
 * /proc/stat fields is needed, the online CPUs come from the small
 * sys/devices/system/cpu/online instead of /proc/stat. Processor
 * Information's instance names are cpuinfo.c's. Interrupts/sec and DPCs
 * Queued/sec are not here yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "cpuidle.h"
#include "cpuinfo.h"
#include "procstat.h"
#include "provider.h"

/* The raw fields: the cpuN line's fields in its order, the frequencies in
 * kHz, then the time (microseconds) and usage of the k-th non-POLL idle
 * state as C1 .. C10. */
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
	F_CUR_FREQ,
	F_MAX_FREQ,
	F_C1_TIME,
	F_C10_TIME = F_C1_TIME + CPUIDLE_CSTATES - 1,
	F_C1_USAGE,
	F_C10_USAGE = F_C1_USAGE + CPUIDLE_CSTATES - 1,
	F_NFIELDS,
};

#define BIT(f) ((uint64_t)1 << (f))
#define STAT_FIELDS (BIT(PCPU_NFIELDS) - 1)
#define FREQ_FIELDS (BIT(F_CUR_FREQ) | BIT(F_MAX_FREQ))
#define CSTATE_FIELDS ((BIT(F_C10_USAGE + 1) - 1) & ~(BIT(F_C1_TIME) - 1))

/* The time and usage fields of C-state k. */
#define CSTATE_FIELD_DESCS(k)                                                      \
	[F_C1_TIME + (k) - 1] = { "c" #k "_time", FW_64, FK_COUNTER, FB_NONE, NO_PROM },    \
	[F_C1_USAGE + (k) - 1] = { "c" #k "_usage", FW_64, FK_COUNTER, FB_NONE, NO_PROM }

static const struct field_desc fields[F_NFIELDS] = {
	[F_USER] = { "user", FW_64, FK_CPU_TIME, FB_NONE,
		     PROM_L("time", "seconds", PROM_TICKS, "mode=user") },
	[F_NICE] = { "nice", FW_64, FK_CPU_TIME, FB_NONE,
		     PROM_L("time", "seconds", PROM_TICKS, "mode=nice") },
	[F_SYSTEM] = { "system", FW_64, FK_CPU_TIME, FB_NONE,
		       PROM_L("time", "seconds", PROM_TICKS, "mode=system") },
	[F_IDLE] = { "idle", FW_64, FK_CPU_TIME, FB_NONE,
		     PROM_L("time", "seconds", PROM_TICKS, "mode=idle") },
	[F_IOWAIT] = { "iowait", FW_64, FK_CPU_TIME, FB_NONE,
		       PROM_L("time", "seconds", PROM_TICKS, "mode=iowait") },
	[F_IRQ] = { "irq", FW_64, FK_CPU_TIME, FB_NONE,
		    PROM_L("time", "seconds", PROM_TICKS, "mode=irq") },
	[F_SOFTIRQ] = { "softirq", FW_64, FK_CPU_TIME, FB_NONE,
			PROM_L("time", "seconds", PROM_TICKS, "mode=softirq") },
	[F_STEAL] = { "steal", FW_64, FK_CPU_TIME, FB_NONE,
		      PROM_L("time", "seconds", PROM_TICKS, "mode=steal") },
	[F_GUEST] = { "guest", FW_64, FK_CPU_EXTRA, FB_NONE,
		      PROM_L("guest_time", "seconds", PROM_TICKS, "mode=user") },
	[F_GUEST_NICE] = { "guest_nice", FW_64, FK_CPU_EXTRA, FB_NONE,
			   PROM_L("guest_time", "seconds", PROM_TICKS, "mode=nice") },
	[F_CUR_FREQ] = { "scaling_cur_freq", FW_64, FK_GAUGE, FB_NONE,
			 PROM("frequency", "hertz", 1e3) },
	[F_MAX_FREQ] = { "cpuinfo_max_freq", FW_64, FK_GAUGE, FB_NONE,
			 PROM("max_frequency", "hertz", 1e3) },
	CSTATE_FIELD_DESCS(1),
	CSTATE_FIELD_DESCS(2),
	CSTATE_FIELD_DESCS(3),
	CSTATE_FIELD_DESCS(4),
	CSTATE_FIELD_DESCS(5),
	CSTATE_FIELD_DESCS(6),
	CSTATE_FIELD_DESCS(7),
	CSTATE_FIELD_DESCS(8),
	CSTATE_FIELD_DESCS(9),
	CSTATE_FIELD_DESCS(10),
};

_Static_assert(F_NFIELDS <= SET_MAX_FIELDS, "Processor has too many fields");

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
	{
		/* The processor's column of every /proc/interrupts row with
		 * per-CPU counts, devices and IPIs (COUNTERS.md 2). */
		.name = "Interrupts/sec",
		.type = CT_RATE,
		.rows_set = "Interrupt",
		.rows_counter = "Interrupts/sec",
		.unit = "/s",
		.help = "Hardware interrupts and inter-processor interrupts this processor "
			"handled per second (its column of /proc/interrupts).",
	},
	{
		.name = "DPCs Queued/sec",
		.type = CT_RATE,
		.rows_set = "Softirq",
		.rows_counter = "Softirqs/sec",
		.unit = "/s",
		.help = "Softirqs (Linux's deferred procedure calls) this processor ran per "
			"second, every type (its column of /proc/softirqs).",
	},
	{
		.name = "Processor Frequency",
		.type = CT_RAW,
		.num = { { F_CUR_FREQ, 1 } },
		.scale = 0.001,
		.total = TOTAL_MEAN,
		.unit = "MHz",
		.help = "Current clock frequency of the processor as cpufreq reports it "
			"(scaling_cur_freq).",
	},
	{
		.name = "% of Maximum Frequency",
		.type = CT_FRACTION,
		.num = { { F_CUR_FREQ, 1 } },
		.den = { { F_MAX_FREQ, 1 } },
		.unit = "%",
		.help = "Current frequency as a share of the highest frequency the processor "
			"can run at (cpuinfo_max_freq).",
	},
	{
		.name = "% C1 Time",
		.type = CT_TIMER,
		.num = { { F_C1_TIME, 1 } },
		.scale = 1e-6,
		.total = TOTAL_MEAN,
		.clamp100 = 1,
		.unit = "%",
		.help = "Share of time the processor rested in its shallowest idle state "
			"(the first cpuidle state after POLL).",
	},
	{
		.name = "% C2 Time",
		.type = CT_TIMER,
		.num = { { F_C1_TIME + 1, 1 } },
		.scale = 1e-6,
		.total = TOTAL_MEAN,
		.clamp100 = 1,
		.unit = "%",
		.help = "Share of time the processor rested in its second idle state "
			"(the second cpuidle state after POLL).",
	},
	{
		.name = "% C3 Time",
		.type = CT_TIMER,
		.num = { { F_C1_TIME + 2, 1 }, { F_C1_TIME + 3, 1 }, { F_C1_TIME + 4, 1 },
			 { F_C1_TIME + 5, 1 }, { F_C1_TIME + 6, 1 }, { F_C1_TIME + 7, 1 },
			 { F_C1_TIME + 8, 1 }, { F_C1_TIME + 9, 1 } },
		.scale = 1e-6,
		.total = TOTAL_MEAN,
		.clamp100 = 1,
		.unit = "%",
		.help = "Share of time the processor rested in its third or any deeper "
			"idle state, together.",
	},
	{
		.name = "C1 Transitions/sec",
		.type = CT_RATE,
		.num = { { F_C1_USAGE, 1 } },
		.unit = "/s",
		.help = "Times per second the processor entered the idle state of % C1 Time.",
	},
	{
		.name = "C2 Transitions/sec",
		.type = CT_RATE,
		.num = { { F_C1_USAGE + 1, 1 } },
		.unit = "/s",
		.help = "Times per second the processor entered the idle state of % C2 Time.",
	},
	{
		.name = "C3 Transitions/sec",
		.type = CT_RATE,
		.num = { { F_C1_USAGE + 2, 1 }, { F_C1_USAGE + 3, 1 }, { F_C1_USAGE + 4, 1 },
			 { F_C1_USAGE + 5, 1 }, { F_C1_USAGE + 6, 1 }, { F_C1_USAGE + 7, 1 },
			 { F_C1_USAGE + 8, 1 }, { F_C1_USAGE + 9, 1 } },
		.unit = "/s",
		.help = "Times per second the processor entered any of the idle states of "
			"% C3 Time.",
	},
};

const struct counter_set cpu_processor_set = {
	.name = "Processor",
	.help = "Time use of each logical processor, from the per-CPU lines of /proc/stat, "
		"with its frequency and idle states from cpufreq and cpuidle.",
	.multi_instance = 1,
	.has_total = 1,
	.fields = fields,
	.nfields = F_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
	.prom_labels = "cpu",
};

const struct counter_set cpu_information_set = {
	.name = "Processor Information",
	.help = "The Processor counters with each processor named \"node,cpu\" after its "
		"NUMA node, plus a total per node.",
	.multi_instance = 1,
	.has_total = 1,
	.group = GROUP_NODE,
	.fields = fields,
	.nfields = F_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
};

struct cpu_reader {
	struct pfile *stat;
	struct pfile *online;
	int want_stat;               /* some /proc/stat field is needed */
	struct cpuidle_reader *idle; /* NULL when no cpufreq or cpuidle field is */
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

struct cpu_reader *
cpu_reader_new(const struct provider_ctx *ctx)
{
	struct cpu_reader *r = xcalloc(1, sizeof(*r));
	struct cpuidle_want want = { 0 };

	r->stat = procfs_file(ctx->fs, "proc/stat");
	r->online = procfs_file(ctx->fs, "sys/devices/system/cpu/online");
	r->want_stat = (ctx->needed & STAT_FIELDS) != 0;
	if (!(ctx->needed & (FREQ_FIELDS | CSTATE_FIELDS)))
		return r;
	want.cur_freq = (ctx->needed & BIT(F_CUR_FREQ)) != 0;
	want.max_freq = (ctx->needed & BIT(F_MAX_FREQ)) != 0;
	for (unsigned k = 1; k <= CPUIDLE_CSTATES; k++) {
		if (ctx->needed & BIT(F_C1_TIME + k - 1))
			want.time |= 1u << k;
		if (ctx->needed & BIT(F_C1_USAGE + k - 1))
			want.usage |= 1u << k;
	}
	r->idle = cpuidle_reader_new(ctx->fs, &want);
	return r;
}

void
cpu_reader_free(struct cpu_reader *r)
{
	if (!r)
		return;
	cpuidle_reader_free(r->idle);
	free(r);
}

/* One CPU's instance: its /proc/stat line (when given) and its cpufreq and
 * cpuidle values. */
static void
cpu_add(struct cpu_reader *r, struct raw_set *out, unsigned cpu, const struct procstat_cpu *line,
	size_t (*name)(void *arg, unsigned cpu, char *buf, size_t n), void *arg)
{
	struct raw_instance *ri;
	char buf[32];
	size_t len;

	if (name) {
		len = name(arg, cpu, buf, sizeof(buf));
	} else {
		len = fmt_uint(buf, cpu);
	}
	ri = raw_set_add(out, buf, len, cpu);
	if (line)
		for (unsigned f = 0; f < line->nfields; f++)
			raw_put(out, ri, f, line->v[f]);
	if (!r->idle)
		return;

	const struct cpuidle_cpu *c = cpuidle_reader_read(r->idle, cpu);
	if (c->have & CPUIDLE_HAVE_CUR_FREQ)
		raw_put(out, ri, F_CUR_FREQ, c->cur_khz);
	if (c->have & CPUIDLE_HAVE_MAX_FREQ)
		raw_put(out, ri, F_MAX_FREQ, c->max_khz);
	for (unsigned k = 0; k < c->nstates; k++) {
		const struct cpuidle_state *st = &c->state[k];
		if (!st->cstate)
			continue;
		if (st->have & CPUIDLE_HAVE_TIME)
			raw_put(out, ri, F_C1_TIME + st->cstate - 1u, st->time_us);
		if (st->have & CPUIDLE_HAVE_USAGE)
			raw_put(out, ri, F_C1_USAGE + st->cstate - 1u, st->usage);
	}
}

int
cpu_reader_read(struct cpu_reader *r, struct raw_set *out,
		size_t (*name)(void *arg, unsigned cpu, char *buf, size_t n), void *arg,
		struct err *err)
{
	struct procstat_cpu line;
	const char *buf, *p, *end;
	size_t len;

	if (r->idle)
		cpuidle_reader_begin(r->idle);
	if (!r->want_stat && (buf = pfile_read(r->online, &len, NULL)) != NULL) {
		unsigned lo, hi;
		p = buf;
		while (cpuinfo_cpulist_next(&p, buf + len, &lo, &hi))
			for (unsigned cpu = lo; cpu <= hi; cpu++)
				cpu_add(r, out, cpu, NULL, name, arg);
		return 0;
	}
	buf = pfile_read(r->stat, &len, err);
	if (!buf)
		return -1;
	p = buf;
	end = buf + len;
	size_t ncpus = 0;
	for (; procstat_cpu_next(&p, end, &line); ncpus++)
		cpu_add(r, out, line.cpu, r->want_stat ? &line : NULL, name, arg);
	if (ncpus == 0)
		pfile_malformed(r->stat, "no cpuN line");
	return 0;
}

/* Open: /proc/stat (shared with System, read once per sample) and, as
 * needed, the cpufreq and cpuidle files. */
static void *
cpu_open(const struct provider_ctx *ctx, struct err *err)
{
	(void)err;
	return cpu_reader_new(ctx);
}

/* Read: one instance per online CPU, named by its number. */
static int
cpu_read(void *state, struct raw_set *out, struct err *err)
{
	return cpu_reader_read(state, out, NULL, NULL, err);
}

static void
cpu_close(void *state)
{
	cpu_reader_free(state);
}

size_t
cpu_reader_describe(struct cpu_reader *r, const struct counter_desc *c, unsigned cpu,
		    char *buf, size_t n)
{
	/* the non-POLL states a C-state counter covers: C1, C2, C3 and deeper */
	static const struct {
		const char *name;
		unsigned first, last;
	} ranges[] = {
		{ "% C1 Time", 1, 1 },  { "C1 Transitions/sec", 1, 1 },
		{ "% C2 Time", 2, 2 },  { "C2 Transitions/sec", 2, 2 },
		{ "% C3 Time", 3, 10 }, { "C3 Transitions/sec", 3, 10 },
	};
	char names[160];

	if (!r->idle)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(ranges); i++) {
		if (strcmp(c->name, ranges[i].name) != 0)
			continue;
		const struct cpuidle_cpu *cc = cpuidle_reader_read(r->idle, cpu);
		size_t len = cpuidle_cstate_names(cc, ranges[i].first, ranges[i].last, names,
						  sizeof(names));
		int w = snprintf(buf, n, len ? "(Here %s.)" : "(No such state here.)", names);
		return w < 0 ? 0 : (size_t)w < n ? (size_t)w : n - 1;
	}
	return 0;
}

/* The CPU an instance name ("3", "0,3", "_Total", NULL) is about; 0 for
 * totals, which describe the states of CPU 0. */
static unsigned
cpu_of(const char *instance)
{
	const char *p = instance ? strrchr(instance, ',') : NULL;
	p = p ? p + 1 : instance;
	return p && *p >= '0' && *p <= '9' ? (unsigned)strtoul(p, NULL, 10) : 0;
}

static size_t
cpu_describe(void *state, const struct counter_desc *c, const char *instance, char *buf,
	     size_t n)
{
	return cpu_reader_describe(state, c, cpu_of(instance), buf, n);
}

const struct provider provider_processor = {
	.set = &cpu_processor_set,
	.open = cpu_open,
	.read = cpu_read,
	.close = cpu_close,
	.describe = cpu_describe,
};
