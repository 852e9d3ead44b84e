/*
 * pressure.c - the Pressure set (COUNTERS.md section 3): one instance per
 * file of /proc/pressure (cpu, memory, io, irq; PSI, Linux 4.20+), with the
 * share of time some or all non-idle tasks were stalled on that resource,
 * a TIMER of the "total=" microseconds. No /proc/pressure (PSI disabled or
 * an old kernel): no instances. No _Total.
 *
 * The kernel's "full" line of cpu means nothing at system level (and is a
 * constant 0 since 5.13), so it is never put; irq has only a full line.
 * Live, which files exist is decided once at open; a file whose read fails
 * (EOPNOTSUPP when PSI is off) gives no instance.
 */
#include <stdlib.h>
#include <string.h>

#include "pressure.h"
#include "provider.h"

enum {
	F_SOME,
	F_FULL,
	F_NFIELDS,
};

static const struct field_desc fields[F_NFIELDS] = {
	[F_SOME] = { "some_total", FW_64, FK_COUNTER, FB_NONE,
		     PROM("some_stall_time", "seconds", 1e-6) },
	[F_FULL] = { "full_total", FW_64, FK_COUNTER, FB_NONE,
		     PROM("full_stall_time", "seconds", 1e-6) },
};

static const struct counter_desc counters[] = {
	{
		.name = "% Some Stall Time",
		.type = CT_TIMER,
		.num = { { F_SOME, 1 } },
		.scale = 1e-6,
		.unit = "%",
		.help = "Share of time at least one task waited for this resource (PSI "
			"\"some\"), so work ran slower than it could.",
	},
	{
		.name = "% Full Stall Time",
		.type = CT_TIMER,
		.num = { { F_FULL, 1 } },
		.scale = 1e-6,
		.unit = "%",
		.help = "Share of time every non-idle task waited for this resource at once "
			"(PSI \"full\"), so no useful work ran.",
	},
};

static const struct counter_set pressure_set = {
	.name = "Pressure",
	.help = "Pressure stall information: how much of the time tasks were held up "
		"waiting for CPU, memory, I/O or interrupts, from /proc/pressure.",
	.multi_instance = 1,
	.fields = fields,
	.nfields = F_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
	.prom_labels = "resource",
};

/* The resources, in instance order, and the lines each can supply. */
static const struct {
	const char *name;
	const char *path;
	unsigned lines; /* PRESSURE_SOME, PRESSURE_FULL */
} resources[] = {
	{ "cpu", "proc/pressure/cpu", PRESSURE_SOME },
	{ "memory", "proc/pressure/memory", PRESSURE_SOME | PRESSURE_FULL },
	{ "io", "proc/pressure/io", PRESSURE_SOME | PRESSURE_FULL },
	{ "irq", "proc/pressure/irq", PRESSURE_FULL },
};

#define NRESOURCES ARRAY_SIZE(resources)

struct pressure_state {
	struct procfs *fs;
	unsigned want;                /* PRESSURE_SOME, PRESSURE_FULL */
	int live;
	struct pfile *file[NRESOURCES];
	uint8_t exists[NRESOURCES];   /* live: the file was there at open */
};

/* The total= value after key at p (before end), or -1. */
static int
total_of(const char *p, const char *end, uint64_t *v)
{
	while (p < end) {
		const char *q = memchr(p, 't', (size_t)(end - p));
		if (!q || end - q < 6)
			return -1;
		if ((q == p || q[-1] == ' ') && memcmp(q, "total=", 6) == 0) {
			const char *d = q + 6;
			if (d >= end || *d < '0' || *d > '9')
				return -1;
			*v = 0;
			while (d < end && *d >= '0' && *d <= '9') {
				unsigned dig = (unsigned)(*d - '0');
				*v = *v > (UINT64_MAX - dig) / 10 ? UINT64_MAX : *v * 10 + dig;
				d++;
			}
			return 0;
		}
		p = q + 1;
	}
	return -1;
}

unsigned
pressure_parse(const char *buf, size_t len, uint64_t *some, uint64_t *full)
{
	const char *p = buf, *end = buf + len;
	unsigned found = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (eol - p > 5 && memcmp(p, "some ", 5) == 0 && total_of(p + 5, eol, some) == 0)
			found |= PRESSURE_SOME;
		else if (eol - p > 5 && memcmp(p, "full ", 5) == 0 &&
			 total_of(p + 5, eol, full) == 0)
			found |= PRESSURE_FULL;
		p = eol + 1;
	}
	return found;
}

/* Open: one shared file per resource; live, note which exist. */
static void *
pressure_open(const struct provider_ctx *ctx, struct err *err)
{
	struct pressure_state *st = xcalloc(1, sizeof(*st));

	(void)err;
	st->fs = ctx->fs;
	st->live = procfs_is_live(ctx->fs);
	if (ctx->needed & ((uint64_t)1 << F_SOME))
		st->want |= PRESSURE_SOME;
	if (ctx->needed & ((uint64_t)1 << F_FULL))
		st->want |= PRESSURE_FULL;
	for (size_t i = 0; i < NRESOURCES; i++) {
		st->file[i] = procfs_file(ctx->fs, resources[i].path);
		if (st->live)
			st->exists[i] = (uint8_t)procfs_exists(ctx->fs, resources[i].path);
	}
	return st;
}

/* Read: an instance per resource file there, with the lines wanted. */
static int
pressure_read(void *state, struct raw_set *out, struct err *err)
{
	struct pressure_state *st = state;

	(void)err;
	for (size_t i = 0; i < NRESOURCES; i++) {
		unsigned want = st->want & resources[i].lines;
		uint64_t some = 0, full = 0;
		unsigned found = 0;
		const char *buf;
		size_t len;

		if (st->live && !st->exists[i])
			continue;
		if (want) {
			buf = pfile_read(st->file[i], &len, NULL);
			if (!buf)
				continue;
			found = pressure_parse(buf, len, &some, &full) & want;
		} else if (!st->live && !procfs_exists(st->fs, resources[i].path)) {
			continue; /* nothing to read, but the instance is there */
		}

		struct raw_instance *ri =
			raw_set_add(out, resources[i].name, strlen(resources[i].name), i);
		if (found & PRESSURE_SOME)
			raw_put(out, ri, F_SOME, some);
		if (found & PRESSURE_FULL)
			raw_put(out, ri, F_FULL, full);
	}
	return 0;
}

static void
pressure_close(void *state)
{
	free(state);
}

const struct provider provider_pressure = {
	.set = &pressure_set,
	.open = pressure_open,
	.read = pressure_read,
	.close = pressure_close,
};
