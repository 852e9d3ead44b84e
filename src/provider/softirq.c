/*
 * softirq.c - the Softirq set (COUNTERS.md section 2): one instance per
 * cell of /proc/softirqs, named "TYPE/CPU" ("NET_RX/0", "TIMER/3"), TYPE as
 * the file names it (HI, TIMER, NET_TX, NET_RX, BLOCK, IRQ_POLL, TASKLET,
 * SCHED, HRTIMER, RCU on current kernels). The header gives each column's
 * CPU (every possible CPU, online or not). The file is shared with Per
 * Processor Network Activity (NET_RX, NET_TX), so a sample reads it once.
 *
 * The per-type _Total ("NET_RX/_Total") needs a grouped total from the
 * engine and is not made here. The parser is interrupts.c's.
 */
#include <errno.h>
#include <stdlib.h>

#include "interrupts.h"
#include "provider.h"

enum {
	F_COUNT,
	F_NFIELDS,
};

static const struct field_desc fields[F_NFIELDS] = {
	/* kstat_softirqs_cpu(): an unsigned int per CPU. */
	[F_COUNT] = { "count", FW_32, FK_COUNTER, FB_NONE },
};

static const struct counter_desc counters[] = {
	{
		.name = "Softirqs/sec",
		.type = CT_RATE,
		.num = { { F_COUNT, 1 } },
		.unit = "/s",
		.help = "Softirqs of this type run on this processor per second.",
	},
};

static const struct counter_set softirq_set = {
	.name = "Softirq",
	.group = GROUP_PARENT, /* TYPE/_Total per type */
	.help = "Deferred work (softirqs, Linux's DPCs) of each type on each processor, "
		"from /proc/softirqs, as instances TYPE/CPU.",
	.multi_instance = 1,
	.fields = fields,
	.nfields = F_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
};

struct softirq_state {
	struct pfile *pf; /* NULL when no requested counter needs the file */
	unsigned *cpus;   /* the header's CPU of each column */
	size_t cpus_cap;
	uint64_t *vals;   /* one row's counts */
	size_t vals_cap;
};

/* Open: the shared file, only when a requested counter needs the count. */
static void *
softirq_open(const struct provider_ctx *ctx, struct err *err)
{
	struct softirq_state *st = xcalloc(1, sizeof(*st));

	(void)err;
	if (ctx->needed & ((uint64_t)1 << F_COUNT))
		st->pf = procfs_file(ctx->fs, "proc/softirqs");
	return st;
}

/* Read: one instance per cell, in the file's order. A missing file (before
 * 2.6.31) gives no instances. */
static int
softirq_read(void *state, struct raw_set *out, struct err *err)
{
	struct softirq_state *st = state;
	struct interrupts_row row;
	const char *buf, *p, *end;
	size_t len, ncols;
	char name[64];

	if (!st->pf)
		return 0;
	buf = pfile_read(st->pf, &len, err);
	if (!buf)
		return errno == ENOENT ? 0 : -1;
	p = buf;
	end = buf + len;
	ncols = interrupts_header(&p, end, st->cpus, st->cpus_cap);
	if (ncols > st->cpus_cap || ncols > st->vals_cap) {
		xgrow((void **)&st->cpus, &st->cpus_cap, ncols, sizeof(*st->cpus));
		xgrow((void **)&st->vals, &st->vals_cap, ncols, sizeof(*st->vals));
		p = buf;
		interrupts_header(&p, end, st->cpus, st->cpus_cap);
	}
	while (interrupts_row_next(&p, end, st->vals, ncols, &row)) {
		for (size_t i = 0; i < row.ncells; i++) {
			len = interrupts_instance_name(name, sizeof(name), &row, st->cpus[i]);
			raw_put(raw_set_add(out, name, len, 0), F_COUNT, st->vals[i]);
		}
	}
	return 0;
}

static void
softirq_close(void *state)
{
	struct softirq_state *st = state;

	free(st->cpus);
	free(st->vals);
	free(st);
}

const struct provider provider_softirq = {
	.set = &softirq_set,
	.open = softirq_open,
	.read = softirq_read,
	.close = softirq_close,
};
