/*
 * system.c - the System set (COUNTERS.md section 3), one instance named "":
 * context switches, process creation, the run queue and blocked tasks from
 * /proc/stat, threads and load averages from /proc/loadavg, and the up time
 * from /proc/uptime. Each file is read only when a requested counter needs
 * one of its fields; /proc/stat is the same shared file the Processor set
 * reads, so it is read once per sample. Decimal values (load averages, up
 * time) are stored x 100 with scale 0.01.
 */
#include <stdlib.h>
#include <string.h>

#include "procstat.h"
#include "provider.h"

enum {
	F_CTXT,
	F_PROCESSES,
	F_PROCS_RUNNING,
	F_PROCS_BLOCKED,
	F_THREADS,
	F_UPTIME,
	F_LOAD1,
	F_LOAD5,
	F_LOAD15,
	F_NFIELDS,
};

#define BIT(f) ((uint64_t)1 << (f))
#define STAT_FIELDS (BIT(F_CTXT) | BIT(F_PROCESSES) | BIT(F_PROCS_RUNNING) | BIT(F_PROCS_BLOCKED))
#define LOADAVG_FIELDS (BIT(F_THREADS) | BIT(F_LOAD1) | BIT(F_LOAD5) | BIT(F_LOAD15))
#define UPTIME_FIELDS BIT(F_UPTIME)

static const struct field_desc fields[F_NFIELDS] = {
	[F_CTXT] = { "ctxt", FW_64, FK_COUNTER, FB_NONE, PROM("context_switches", "", 0) },
	[F_PROCESSES] = { "processes", FW_ULONG, FK_COUNTER, FB_NONE,
			  PROM("processes_created", "", 0) },
	[F_PROCS_RUNNING] = { "procs_running", FW_64, FK_GAUGE, FB_NONE,
			      PROM("processes_running", "", 0) },
	[F_PROCS_BLOCKED] = { "procs_blocked", FW_64, FK_GAUGE, FB_NONE,
			      PROM("processes_blocked", "", 0) },
	[F_THREADS] = { "threads", FW_64, FK_GAUGE, FB_NONE, PROM("threads", "", 0) },
	[F_UPTIME] = { "uptime_centis", FW_64, FK_GAUGE, FB_NONE, PROM("uptime", "seconds", 1e-2) },
	[F_LOAD1] = { "load1_centis", FW_64, FK_GAUGE, FB_NONE, PROM("load1", "", 1e-2) },
	[F_LOAD5] = { "load5_centis", FW_64, FK_GAUGE, FB_NONE, PROM("load5", "", 1e-2) },
	[F_LOAD15] = { "load15_centis", FW_64, FK_GAUGE, FB_NONE, PROM("load15", "", 1e-2) },
};

static const struct counter_desc counters[] = {
	{
		.name = "Context Switches/sec",
		.type = CT_RATE,
		.num = { { F_CTXT, 1 } },
		.unit = "/s",
		.help = "How often the processors switched from one task to another.",
	},
	{
		.name = "Processes Created/sec",
		.type = CT_RATE,
		.num = { { F_PROCESSES, 1 } },
		.unit = "/s",
		.help = "How many processes and threads fork and clone created per second.",
	},
	{
		.name = "Processor Queue Length",
		.type = CT_RAW,
		.num = { { F_PROCS_RUNNING, 1 } },
		.unit = "",
		.help = "Tasks running or ready to run right now, getcounter itself "
			"included.",
	},
	{
		.name = "Blocked Threads",
		.type = CT_RAW,
		.num = { { F_PROCS_BLOCKED, 1 } },
		.unit = "",
		.help = "Tasks sleeping uninterruptibly right now, mostly waiting for I/O.",
	},
	{
		.name = "Threads",
		.type = CT_RAW,
		.num = { { F_THREADS, 1 } },
		.unit = "",
		.help = "Threads that exist on the machine right now.",
	},
	{
		.name = "System Up Time",
		.type = CT_RAW,
		.num = { { F_UPTIME, 1 } },
		.scale = 0.01,
		.unit = "s",
		.help = "Seconds since the machine booted.",
	},
	{
		.name = "Load Average (1 min)",
		.type = CT_RAW,
		.num = { { F_LOAD1, 1 } },
		.scale = 0.01,
		.unit = "",
		.help = "The kernel's average of running plus uninterruptible tasks over "
			"about the last minute.",
	},
	{
		.name = "Load Average (5 min)",
		.type = CT_RAW,
		.num = { { F_LOAD5, 1 } },
		.scale = 0.01,
		.unit = "",
		.help = "The kernel's average of running plus uninterruptible tasks over "
			"about the last five minutes.",
	},
	{
		.name = "Load Average (15 min)",
		.type = CT_RAW,
		.num = { { F_LOAD15, 1 } },
		.scale = 0.01,
		.unit = "",
		.help = "The kernel's average of running plus uninterruptible tasks over "
			"about the last fifteen minutes.",
	},
};

static const struct counter_set system_set = {
	.name = "System",
	.help = "Machine-wide scheduler activity, load and up time.",
	.multi_instance = 0,
	.fields = fields,
	.nfields = F_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
};

const char *const procstat_stat_keys[PSTAT_NKEYS] = {
	[PSTAT_CTXT] = "ctxt",
	[PSTAT_BTIME] = "btime",
	[PSTAT_PROCESSES] = "processes",
	[PSTAT_PROCS_RUNNING] = "procs_running",
	[PSTAT_PROCS_BLOCKED] = "procs_blocked",
};

/* The field of each /proc/stat key (btime has none) and of each loadavg
 * value (the running count has none). */
static const struct {
	uint8_t key, field;
} stat_map[] = {
	{ PSTAT_CTXT, F_CTXT },
	{ PSTAT_PROCESSES, F_PROCESSES },
	{ PSTAT_PROCS_RUNNING, F_PROCS_RUNNING },
	{ PSTAT_PROCS_BLOCKED, F_PROCS_BLOCKED },
}, loadavg_map[] = {
	{ PLOAD_1, F_LOAD1 },
	{ PLOAD_5, F_LOAD5 },
	{ PLOAD_15, F_LOAD15 },
	{ PLOAD_THREADS, F_THREADS },
};

int
procstat_centi(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t whole, frac = 0;

	if (parse_u64(&p, &whole) < 0)
		return -1;
	if (*p == '.') {
		p++;
		for (int i = 0; i < 2; i++) {
			frac *= 10;
			if (*p >= '0' && *p <= '9')
				frac += (uint64_t)(*p++ - '0');
		}
		while (*p >= '0' && *p <= '9')
			p++;
	}
	*out = whole > (UINT64_MAX - frac) / 100 ? UINT64_MAX : whole * 100 + frac;
	*pp = p;
	return 0;
}

uint64_t
procstat_loadavg(const char *buf, uint64_t *vals)
{
	const char *p = skip_blanks(buf);
	uint64_t found = 0;

	for (int i = PLOAD_1; i <= PLOAD_15; i++) {
		if (procstat_centi(&p, &vals[i]) < 0)
			return found;
		found |= BIT(i);
		p = skip_blanks(p);
	}
	if (parse_u64(&p, &vals[PLOAD_RUNNING]) < 0)
		return found;
	found |= BIT(PLOAD_RUNNING);
	if (*p++ != '/' || parse_u64(&p, &vals[PLOAD_THREADS]) < 0)
		return found;
	return found | BIT(PLOAD_THREADS);
}

int
procstat_uptime(const char *buf, uint64_t *centis)
{
	const char *p = skip_blanks(buf);

	return procstat_centi(&p, centis);
}

struct system_state {
	uint64_t needed;
	struct pfile *stat, *loadavg, *uptime;
	uint32_t stat_at[PSTAT_NKEYS]; /* procstat_keys_at */
};

/* Open: pick the files the requested counters need. */
static void *
system_open(const struct provider_ctx *ctx, struct err *err)
{
	struct system_state *st = xcalloc(1, sizeof(*st));

	memset(st->stat_at, 0xFF, sizeof(st->stat_at)); /* PROCSTAT_AT_NONE */

	(void)err;
	st->needed = ctx->needed;
	if (st->needed & STAT_FIELDS)
		st->stat = procfs_file(ctx->fs, "proc/stat");
	if (st->needed & LOADAVG_FIELDS)
		st->loadavg = procfs_file(ctx->fs, "proc/loadavg");
	if (st->needed & UPTIME_FIELDS)
		st->uptime = procfs_file(ctx->fs, "proc/uptime");
	return st;
}

_Static_assert((int)PSTAT_NKEYS <= 8 && (int)PLOAD_NVALUES <= 8, "vals[] too small");

/* Read: the one instance; a file that is missing leaves its fields absent
 * (its counters UNSUPPORTED), it does not fail the set. */
static int
system_read(void *state, struct raw_set *out, struct err *err)
{
	struct system_state *st = state;
	struct raw_instance *ri = raw_set_add(out, "", 0, 0);
	uint64_t vals[8];
	uint64_t want = 0, found;
	const char *buf;
	size_t len;

	(void)err;
	if (st->stat && (buf = pfile_read(st->stat, &len, NULL)) != NULL) {
		for (size_t i = 0; i < ARRAY_SIZE(stat_map); i++)
			if (st->needed & BIT(stat_map[i].field))
				want |= BIT(stat_map[i].key);
		found = procstat_keys_at(buf, len, procstat_stat_keys, PSTAT_NKEYS, want, vals,
					 st->stat_at);
		/* every kernel prints ctxt, btime and processes (2.4 lacks procs_) */
		if (want && !found &&
		    !procstat_keys(buf, len, procstat_stat_keys, PSTAT_NKEYS,
				   BIT(PSTAT_NKEYS) - 1, vals))
			pfile_malformed(st->stat, "none of its ctxt, btime, processes lines");
		for (size_t i = 0; i < ARRAY_SIZE(stat_map); i++)
			if (found & BIT(stat_map[i].key))
				raw_put(out, ri, stat_map[i].field, vals[stat_map[i].key]);
	}
	if (st->loadavg && (buf = pfile_read(st->loadavg, &len, NULL)) != NULL) {
		found = procstat_loadavg(buf, vals);
		if (!found)
			pfile_malformed(st->loadavg, "not 'load1 load5 load15 running/threads pid'");
		for (size_t i = 0; i < ARRAY_SIZE(loadavg_map); i++)
			if (found & BIT(loadavg_map[i].key))
				raw_put(out, ri, loadavg_map[i].field, vals[loadavg_map[i].key]);
	}
	if (st->uptime && (buf = pfile_read(st->uptime, &len, NULL)) != NULL) {
		if (procstat_uptime(buf, &vals[0]) == 0)
			raw_put(out, ri, F_UPTIME, vals[0]);
		else
			pfile_malformed(st->uptime, "not 'seconds idle-seconds'");
	}
	return 0;
}

static void
system_close(void *state)
{
	free(state);
}

const struct provider provider_system = {
	.set = &system_set,
	.open = system_open,
	.read = system_read,
	.close = system_close,
};
