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
	[F_COUNT] = { "count", FW_32, FK_COUNTER, FB_NONE, PROM("softirqs", "", 0) },
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
	.prom_labels = "type/cpu",
};

/* Open: /proc/softirqs (shared with Per Processor Network Activity), only
 * when a requested counter needs the count. Its rows are read exactly as
 * /proc/interrupts' are (percpu_rows in interrupts.c); a missing file
 * (before 2.6.31) gives no instances. */
static void *
softirq_open(const struct provider_ctx *ctx, struct err *err)
{
	(void)err;
	return percpu_rows_open(ctx, "proc/softirqs");
}

const struct provider provider_softirq = {
	.set = &softirq_set,
	.open = softirq_open,
	.read = percpu_rows_read,
	.close = percpu_rows_close,
};
