/*
 * interrupts.c - the Interrupt set (COUNTERS.md section 2): one instance
 * per cell of /proc/interrupts, named "ROW/CPU" ("24/0", "NMI/3"), holding
 * that CPU's count of that row; ERR and MIS, one system-wide count each, are
 * "ERR/_Total" and "MIS/_Total" and in no CPU's sum (in_total 0). A column's
 * CPU comes from the header line, never from its position: the kernel
 * prints online CPUs only, and a row may have fewer cells than the header.
 * Each cell carries its row's identity (number plus action names), so a
 * reused IRQ number with another device is a RESET, not a rate. A cell
 * whose digits overflow uint64 (INTERRUPTS_NO_COUNT) is an instance without
 * its count: UNSUPPORTED for that row and CPU, never 0. The help
 * text of an instance (-q -x -v) ends with its row's description, "(IRQ 24:
 * PCI-MSI 512000-edge ahci[0000:00:1f.2])" or "(Local timer interrupts)",
 * kept from the last read with its identity: an unchanged row is neither
 * copied nor hashed again.
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
	[F_COUNT] = { "count", FW_32, FK_COUNTER, FB_NONE, PROM("interrupts", "", 0) },
};

static const struct counter_desc counters[] = {
	{
		.name = "Interrupts/sec",
		.type = CT_RATE,
		.num = { { F_COUNT, 1 } },
		.unit = "/s",
		.help = "Interrupts of this source handled per second by this processor (by all "
			"of them for ROW/_Total).",
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
	.prom_labels = "irq/cpu",
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

/* Parse the digits in [p, e) (all digits, at least one), saturating at
 * UINT64_MAX (INTERRUPTS_NO_COUNT for a count). Nineteen digits cannot
 * pass it: only the digits after them are tested. */
static uint64_t
digits_value(const char *p, const char *e)
{
	uint64_t v = 0;

	for (const char *safe = e - p > 19 ? p + 19 : e; p < safe; p++)
		v = v * 10 + (unsigned)(*p - '0');
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
 * action, single blanks inside "a, b"); the whole description when none.
 * Found from the end: the last pair of blanks ends that run (the
 * description ends in no blank), and the actions are the short part. */
static void
row_actions(struct interrupts_row *row)
{
	const char *d = row->desc, *e = row->desc + row->desc_len, *start = d;

	for (const char *p = e - 1; p > d; p--)
		if (is_blank(p[0]) && is_blank(p[-1])) {
			start = p + 1;
			break;
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

struct pfile *
interrupts_file(struct procfs *fs, const char *relpath)
{
	struct pfile *pf = procfs_file(fs, relpath);

	pfile_fold_blanks(pf);
	return pf;
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
	char digits[FMT_UINT_MAX];
	size_t ndigits = fmt_uint(digits, cpu);

	return name_with(buf, n, row, digits, ndigits);
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

/* A row's name and description as the last read saw them, for describe
 * and for its identity: offsets into percpu_rows.text. */
struct row_text {
	size_t name_off, name_len;
	size_t desc_off, desc_len; /* the parser's desc, inner blanks kept */
	uint64_t identity;         /* interrupts_row_identity of the row */
	uint8_t numbered;
};

/* A column's "/CPU", made when the header first gives the column that CPU. */
struct col_suffix {
	unsigned cpu;
	uint8_t len; /* 0: not made yet */
	char text[11]; /* '/' and up to ten digits */
};

struct percpu_rows {
	struct pfile *pf; /* NULL when no requested counter needs the file */
	unsigned *cpus;   /* the header's CPU of each column */
	size_t cpus_cap;
	uint64_t *vals;   /* one row's counts */
	size_t vals_cap;
	struct col_suffix *suffix; /* one a column, cpus_cap of them */
	/* each row's name and description, in file order. Compared with the
	 * file's rows at each read and rewritten from the first row that
	 * differs, so an unchanged file allocates, copies and hashes nothing. */
	struct row_text *rows;
	size_t nrows, rows_cap;
	char *text; /* names and descriptions, back to back */
	size_t text_len, text_cap;
};

/* Append [p, p + n) to the kept text; returns its offset. */
static size_t
text_append(struct percpu_rows *st, const char *p, size_t n)
{
	size_t off = st->text_len;

	if (off + n > st->text_cap)
		xgrow((void **)&st->text, &st->text_cap, off + n, 1);
	if (n)
		memcpy(st->text + off, p, n);
	st->text_len = off + n;
	return off;
}

/* Keep row as the k-th row of the file and return its identity: the kept
 * one when the k-th kept row has the same name and description (the
 * steady state); otherwise forget rows k and later and store this one. */
static uint64_t
keep_row(struct percpu_rows *st, size_t k, const struct interrupts_row *row)
{
	struct row_text *rt = k < st->nrows ? &st->rows[k] : NULL;

	if (rt && rt->name_len == row->name_len && rt->desc_len == row->desc_len &&
	    memcmp(st->text + rt->name_off, row->name, row->name_len) == 0 &&
	    memcmp(st->text + rt->desc_off, row->desc, row->desc_len) == 0)
		return rt->identity;
	if (k < st->nrows) {
		st->text_len = st->rows[k].name_off;
		st->nrows = k;
	}
	if (k + 1 > st->rows_cap)
		xgrow((void **)&st->rows, &st->rows_cap, k + 1, sizeof(*st->rows));
	rt = &st->rows[k];
	rt->name_off = text_append(st, row->name, row->name_len);
	rt->name_len = row->name_len;
	rt->desc_off = text_append(st, row->desc, row->desc_len);
	rt->desc_len = row->desc_len;
	rt->numbered = row->numbered;
	rt->identity = interrupts_row_identity(row);
	st->nrows = k + 1;
	return rt->identity;
}

/* Column i's "/CPU" for the header's cpu there, made again only when the
 * header moves another CPU into that column. */
static const struct col_suffix *
column_suffix(struct percpu_rows *st, size_t i)
{
	struct col_suffix *sx = &st->suffix[i];

	if (sx->len == 0 || sx->cpu != st->cpus[i]) {
		sx->cpu = st->cpus[i];
		sx->text[0] = '/';
		sx->len = (uint8_t)(1 + fmt_uint(sx->text + 1, sx->cpu));
	}
	return sx;
}

void *
percpu_rows_open(const struct provider_ctx *ctx, const char *relpath)
{
	struct percpu_rows *st = xcalloc(1, sizeof(*st));

	if (ctx->needed & ((uint64_t)1 << F_COUNT))
		st->pf = interrupts_file(ctx->fs, relpath);
	return st;
}

int
percpu_rows_read(void *state, struct raw_set *out, struct err *err)
{
	struct percpu_rows *st = state;
	struct interrupts_row row;
	const char *buf, *p, *end;
	size_t len, ncols, nrows = 0;
	char name[64];

	if (!st->pf)
		return 0;
	buf = pfile_read(st->pf, &len, err);
	if (!buf) {
		st->nrows = 0;
		st->text_len = 0;
		return errno == ENOENT ? 0 : -1;
	}
	p = buf;
	end = buf + len;
	ncols = interrupts_header(&p, end, st->cpus, st->cpus_cap);
	if (ncols > st->cpus_cap || ncols > st->vals_cap) {
		size_t cap = st->cpus_cap;
		xgrow((void **)&st->cpus, &st->cpus_cap, ncols, sizeof(*st->cpus));
		xgrow((void **)&st->suffix, &cap, ncols, sizeof(*st->suffix));
		xgrow((void **)&st->vals, &st->vals_cap, ncols, sizeof(*st->vals));
		p = buf;
		interrupts_header(&p, end, st->cpus, st->cpus_cap);
	}
	while (interrupts_row_next(&p, end, st->vals, ncols, &row)) {
		uint64_t id = keep_row(st, nrows++, &row);
		struct raw_instance *ri;

		if (row.system_wide) {
			if (row.ncells == 0)
				continue;
			len = name_with(name, sizeof(name), &row, "_Total", 6);
			ri = raw_set_add(out, name, len, id);
			raw_set_in_total(out, ri, 0);
			if (st->vals[0] != INTERRUPTS_NO_COUNT)
				raw_put(out, ri, F_COUNT, st->vals[0]);
			continue;
		}
		/* "ROW" once, then each cell's "/CPU" after it; a name with
		 * no room for the longest "/CPU" and the NUL is cut by
		 * name_with */
		int fits = row.name_len + sizeof(st->suffix->text) + 1 <= sizeof(name);
		if (fits)
			memcpy(name, row.name, row.name_len);
		for (size_t i = 0; i < row.ncells; i++) {
			const struct col_suffix *sx = column_suffix(st, i);

			if (fits) {
				memcpy(name + row.name_len, sx->text, sx->len);
				len = row.name_len + sx->len;
			} else {
				len = name_with(name, sizeof(name), &row, sx->text + 1,
						(size_t)sx->len - 1);
			}
			ri = raw_set_add(out, name, len, id);
			if (st->vals[i] != INTERRUPTS_NO_COUNT)
				raw_put(out, ri, F_COUNT, st->vals[i]);
		}
	}
	if (nrows < st->nrows) {
		st->text_len = st->rows[nrows].name_off;
		st->nrows = nrows;
	}
	return 0;
}

void
percpu_rows_close(void *state)
{
	struct percpu_rows *st = state;

	free(st->cpus);
	free(st->suffix);
	free(st->vals);
	free(st->rows);
	free(st->text);
	free(st);
}

/* Append ch to buf (size n) at *len, keeping room for ')' and the NUL. */
static void
put_char(char *buf, size_t n, size_t *len, char ch)
{
	if (*len + 2 < n)
		buf[(*len)++] = ch;
}

size_t
interrupts_describe_row(char *buf, size_t n, const char *name, size_t name_len, int numbered,
			const char *desc, size_t desc_len)
{
	size_t len = 0;
	int blank = 0;

	if (n < 2 || (!numbered && desc_len == 0))
		return 0;
	put_char(buf, n, &len, '(');
	if (numbered) {
		for (const char *c = "IRQ "; *c; c++)
			put_char(buf, n, &len, *c);
		for (size_t i = 0; i < name_len; i++)
			put_char(buf, n, &len, name[i]);
		if (desc_len) {
			put_char(buf, n, &len, ':');
			put_char(buf, n, &len, ' ');
		}
	}
	for (size_t i = 0; i < desc_len; i++) {
		if (is_blank(desc[i])) {
			blank = 1;
			continue;
		}
		if (blank)
			put_char(buf, n, &len, ' ');
		blank = 0;
		put_char(buf, n, &len, desc[i]);
	}
	buf[len++] = ')';
	buf[len] = '\0';
	return len;
}

/* -q -x -v: the description of the instance's row ("24/3", "24/_Total") as
 * the last read saw it; nothing for the set as a whole or a row without
 * one (ERR, MIS). */
static size_t
interrupt_describe(void *state, const struct counter_desc *c, const char *instance, char *buf,
		   size_t n)
{
	struct percpu_rows *st = state;
	const char *sep = instance ? strrchr(instance, '/') : NULL;
	size_t name_len;

	(void)c;
	if (!sep)
		return 0;
	name_len = (size_t)(sep - instance);
	for (size_t k = 0; k < st->nrows; k++) {
		const struct row_text *rt = &st->rows[k];

		if (rt->name_len == name_len &&
		    memcmp(st->text + rt->name_off, instance, name_len) == 0)
			return interrupts_describe_row(buf, n, instance, name_len, rt->numbered,
						       st->text + rt->desc_off, rt->desc_len);
	}
	return 0;
}

/* Open: /proc/interrupts, only when a requested counter needs the count;
 * the rows' descriptions are kept for describe. */
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
	.describe = interrupt_describe,
};
