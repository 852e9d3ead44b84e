/*
 * interrupts.c - the Interrupt set (COUNTERS.md section 2): one instance
 * per cell of /proc/interrupts, named "ROW/CPU" ("24/0", "NMI/3"), holding
 * that CPU's count of that row; ERR and MIS, one system-wide count each, are
 * "ERR/_Total" and "MIS/_Total" and in no CPU's sum (in_total 0). A column's
 * CPU comes from the header line, never from its position: the kernel
 * prints online CPUs only, and a row may have fewer cells than the header.
 * Each cell carries its row's identity (number plus action names), so a
 * reused IRQ number with another device is a RESET, not a rate.
 *
 * The per-row _Total ("24/_Total") needs a grouped total from the engine
 * and is not made here: providers never combine raw fields.
 *
 * Also home of the parsers of /proc/interrupts and /proc/softirqs (one
 * format), declared in include/interrupts.h. The file is expensive (tens of
 * microseconds, more with many CPUs), so it is read only when a requested
 * counter needs it, and parsed in one pass with no allocation once the
 * column arrays have grown to the header's width.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "interrupts.h"
#include "provider.h"

enum {
	F_COUNT,
	F_NFIELDS,
};

static const struct field_desc fields[F_NFIELDS] = {
	/* The kernel keeps each per-CPU count in an unsigned int. */
	[F_COUNT] = { "count", FW_32, FK_COUNTER, FB_NONE },
};

static const struct counter_desc counters[] = {
	{
		.name = "Interrupts/sec",
		.type = CT_RATE,
		.num = { { F_COUNT, 1 } },
		.unit = "/s",
		.help = "Interrupts of this source handled by this processor per second.",
	},
};

static const struct counter_set interrupt_set = {
	.name = "Interrupt",
	.group = GROUP_PARENT, /* IRQ/_Total per row */
	.help = "Each row of /proc/interrupts (a device IRQ or an architecture source "
		"such as LOC or NMI) on each processor, as instances ROW/CPU.",
	.multi_instance = 1,
	.fields = fields,
	.nfields = F_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
};

/* A blank between the file's columns. */
static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* A decimal digit. */
static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The end of the line starting at p. */
static const char *
line_end(const char *p, const char *end)
{
	const char *eol = memchr(p, '\n', (size_t)(end - p));

	return eol ? eol : end;
}

/* Parse the digits in [p, e) (all digits, at least one), saturating. */
static uint64_t
digits_value(const char *p, const char *e)
{
	uint64_t v = 0;

	for (; p < e; p++) {
		unsigned d = (unsigned)(*p - '0');
		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
	}
	return v;
}

size_t
interrupts_header(const char **pp, const char *end, unsigned *cpus, size_t max)
{
	const char *p = *pp, *eol = line_end(p, end);
	size_t n = 0;

	while (p < eol) {
		const char *t, *d;

		while (p < eol && is_blank(*p))
			p++;
		t = p;
		while (p < eol && !is_blank(*p))
			p++;
		if (p - t < 4 || memcmp(t, "CPU", 3) != 0)
			continue;
		for (d = t + 3; d < p && is_digit(*d); d++)
			;
		if (d != p)
			continue;
		uint64_t v = digits_value(t + 3, p);
		if (n < max)
			cpus[n] = v > 0xFFFFFFFFu ? 0xFFFFFFFFu : (unsigned)v;
		n++;
	}
	*pp = eol < end ? eol + 1 : end;
	return n;
}

/* The action names of a numbered row: what follows the last run of two or
 * more blanks in its description (the kernel prints "  " before the first
 * action, single blanks inside "a, b"); the whole description when none. */
static void
row_actions(struct interrupts_row *row)
{
	const char *d = row->desc, *e = row->desc + row->desc_len, *start = d;

	for (const char *p = d; p + 1 < e; p++)
		if (is_blank(p[0]) && is_blank(p[1])) {
			while (p < e && is_blank(*p))
				p++;
			start = p;
		}
	row->actions = start;
	row->actions_len = (size_t)(e - start);
}

int
interrupts_row_next(const char **pp, const char *end, uint64_t *vals, size_t max,
		    struct interrupts_row *row)
{
	const char *p = *pp;

	while (p < end) {
		const char *eol = line_end(p, end);
		const char *next = eol < end ? eol + 1 : end;
		const char *name = p, *q;

		while (name < eol && is_blank(*name))
			name++;
		for (q = name; q < eol && *q != ':' && !is_blank(*q); q++)
			;
		if (q == name || q >= eol || *q != ':') {
			p = next;
			continue;
		}
		row->name = name;
		row->name_len = (size_t)(q - name);
		row->ncells = 0;
		q++;
		/* Counts: whole tokens of digits, at most max of them. */
		while (row->ncells < max) {
			const char *t = q, *d;

			while (t < eol && is_blank(*t))
				t++;
			for (d = t; d < eol && is_digit(*d); d++)
				;
			if (d == t || (d < eol && !is_blank(*d)))
				break;
			vals[row->ncells++] = digits_value(t, d);
			q = d;
		}
		while (q < eol && is_blank(*q))
			q++;
		const char *de = eol;
		while (de > q && is_blank(de[-1]))
			de--;
		row->desc = q;
		row->desc_len = (size_t)(de - q);
		row->numbered = 1;
		for (const char *c = name; c < name + row->name_len; c++)
			if (!is_digit(*c))
				row->numbered = 0;
		if (row->numbered) {
			row_actions(row);
		} else {
			row->actions = row->desc;
			row->actions_len = row->desc_len;
		}
		row->system_wide = row->name_len == 3 && (strncasecmp(name, "ERR", 3) == 0 ||
							  strncasecmp(name, "MIS", 3) == 0);
		*pp = next;
		return 1;
	}
	*pp = end;
	return 0;
}

/* FNV-1a over [p, p + n), continuing from h. */
static uint64_t
fnv1a(uint64_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
	return h;
}

uint64_t
interrupts_row_identity(const struct interrupts_row *row)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv1a(h, row->name, row->name_len);
	h = fnv1a(h, ":", 1);
	h = fnv1a(h, row->actions, row->actions_len);
	return h ? h : 1;
}

/* "NAME" + "/" + suffix into buf (size n), the name cut to fit. */
static size_t
name_with(char *buf, size_t n, const struct interrupts_row *row, const char *suffix,
	  size_t suffix_len)
{
	size_t len = row->name_len;

	if (len + 1 + suffix_len + 1 > n)
		len = n > suffix_len + 2 ? n - suffix_len - 2 : 0;
	memcpy(buf, row->name, len);
	buf[len++] = '/';
	memcpy(buf + len, suffix, suffix_len);
	len += suffix_len;
	buf[len] = '\0';
	return len;
}

size_t
interrupts_instance_name(char *buf, size_t n, const struct interrupts_row *row, unsigned cpu)
{
	char digits[12];
	size_t k = sizeof(digits);

	do {
		digits[--k] = (char)('0' + cpu % 10);
		cpu /= 10;
	} while (cpu);
	return name_with(buf, n, row, digits + k, sizeof(digits) - k);
}

size_t
interrupts_column_of(const unsigned *cpus, size_t n, unsigned cpu)
{
	size_t lo = 0, hi = n;

	if (cpu < n && cpus[cpu] == cpu)
		return cpu;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cpus[mid] == cpu)
			return mid;
		if (cpus[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = 0; i < n; i++)
		if (cpus[i] == cpu)
			return i;
	return n;
}

struct percpu_rows {
	struct pfile *pf; /* NULL when no requested counter needs the file */
	unsigned *cpus;   /* the header's CPU of each column */
	size_t cpus_cap;
	uint64_t *vals;   /* one row's counts */
	size_t vals_cap;
};

void *
percpu_rows_open(const struct provider_ctx *ctx, const char *relpath)
{
	struct percpu_rows *st = xcalloc(1, sizeof(*st));

	if (ctx->needed & ((uint64_t)1 << F_COUNT))
		st->pf = procfs_file(ctx->fs, relpath);
	return st;
}

int
percpu_rows_read(void *state, struct raw_set *out, struct err *err)
{
	struct percpu_rows *st = state;
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
		uint64_t id = interrupts_row_identity(&row);
		struct raw_instance *ri;

		if (row.system_wide) {
			if (row.ncells == 0)
				continue;
			len = name_with(name, sizeof(name), &row, "_Total", 6);
			ri = raw_set_add(out, name, len, id);
			ri->in_total = 0;
			raw_put(ri, F_COUNT, st->vals[0]);
			continue;
		}
		for (size_t i = 0; i < row.ncells; i++) {
			len = interrupts_instance_name(name, sizeof(name), &row, st->cpus[i]);
			ri = raw_set_add(out, name, len, id);
			raw_put(ri, F_COUNT, st->vals[i]);
		}
	}
	return 0;
}

void
percpu_rows_close(void *state)
{
	struct percpu_rows *st = state;

	free(st->cpus);
	free(st->vals);
	free(st);
}

/* Open: /proc/interrupts, only when a requested counter needs the count. */
static void *
interrupt_open(const struct provider_ctx *ctx, struct err *err)
{
	(void)err;
	return percpu_rows_open(ctx, "proc/interrupts");
}

const struct provider provider_interrupt = {
	.set = &interrupt_set,
	.open = interrupt_open,
	.read = percpu_rows_read,
	.close = percpu_rows_close,
};
