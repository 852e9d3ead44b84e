/*
 * csv.c - the csv and tsv outputs: PDH-CSV 4.0 / PDH-TSV 4.0, as typeperf
 * and relog write them, so perfmon logs tools read the files. The columns
 * are the paths of the first frame and stay fixed (PDH): a later frame is
 * mapped onto them by row.column; a row that appears later gets no column,
 * and a column without a row or without a value is written " ".
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"

struct csv {
	FILE *out;
	char sep;
	const char *tag; /* "PDH-CSV 4.0" */
	int precision;
	int utc;
	int started; /* the header is written */
	size_t ncols;
	uint32_t *col_id;  /* column -> the row.column it shows */
	size_t *col_next;  /* column -> next column with the same id + 1, or 0 */
	size_t *cells; /* this frame's row (index + 1, 0 none) per column */
	double *value; /* per column, this frame's value where cells has a row */
	uint8_t *shown; /* per column: the row there has a value to show */
	size_t *first_col; /* row.column -> first column showing it + 1, or 0 */
	size_t nfirst;
	char *line;    /* the line being written, LINE_PART bytes at a time */
	size_t line_cap;
};

/* Start a csv or tsv file on out. */
static void *
csv_open_sep(FILE *out, const struct output_opts *opts, char sep, const char *tag)
{
	struct csv *c = xcalloc(1, sizeof(*c));

	c->out = out;
	c->sep = sep;
	c->tag = tag;
	c->precision = opts->precision < 0 ? 6 : opts->precision;
	c->utc = opts->utc;
	return c;
}

/* Start a csv file. */
static void *
csv_open(FILE *out, const struct output_opts *opts, struct err *err)
{
	(void)err;
	return csv_open_sep(out, opts, ',', "PDH-CSV 4.0");
}

/* Start a tsv file. */
static void *
tsv_open(FILE *out, const struct output_opts *opts, struct err *err)
{
	(void)err;
	return csv_open_sep(out, opts, '\t', "PDH-TSV 4.0");
}

/* Write s as one quoted cell, embedded quotes doubled: one fwrite for a
 * cell without quotes (every value cell), not a call per byte. */
static void
csv_cell(struct csv *c, const char *s, int first)
{
	char cell[256];
	size_t len = strlen(s);

	if (len + 3 <= sizeof(cell) && !memchr(s, '"', len)) {
		size_t k = 0;
		if (!first)
			cell[k++] = c->sep;
		cell[k++] = '"';
		memcpy(cell + k, s, len);
		k += len;
		cell[k++] = '"';
		fwrite(cell, 1, k, c->out);
		return;
	}
	if (!first)
		fputc(c->sep, c->out);
	fputc('"', c->out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', c->out);
		fputc(*s, c->out);
	}
	fputc('"', c->out);
}

/* Fix the columns from the first frame and write the header line. */
static void
csv_header(struct csv *c, const struct frame *f)
{
	char zone[128], cell[192];
	int bias;

	c->ncols = f->nrows;
	c->col_id = xcalloc(c->ncols ? c->ncols : 1, sizeof(*c->col_id));
	c->col_next = xcalloc(c->ncols ? c->ncols : 1, sizeof(*c->col_next));
	c->cells = xcalloc(c->ncols ? c->ncols : 1, sizeof(*c->cells));
	c->value = xcalloc(c->ncols ? c->ncols : 1, sizeof(*c->value));
	c->shown = xcalloc(c->ncols ? c->ncols : 1, sizeof(*c->shown));
	for (size_t i = 0; i < c->ncols; i++) {
		struct frame_row tmp;
		uint32_t id = frame_row_at(f, i, &tmp)->column;

		c->col_id[i] = id;
		if (id >= c->nfirst)
			xgrow((void **)&c->first_col, &c->nfirst, (size_t)id + 1,
			      sizeof(*c->first_col));
		if (c->first_col[id] == 0) {
			c->first_col[id] = i + 1;
		} else {
			/* The same path twice: chain its columns in order. */
			size_t j = c->first_col[id] - 1;
			while (c->col_next[j])
				j = c->col_next[j] - 1;
			c->col_next[j] = i + 1;
		}
	}

	time_zone_at(f->wall_ns, c->utc, zone, sizeof(zone), &bias);
	snprintf(cell, sizeof(cell), "(%s) (%s)(%d)", c->tag, zone, bias);
	csv_cell(c, cell, 1);
	struct pathbuf pb = { 0 };
	for (size_t i = 0; i < c->ncols; i++) {
		struct frame_row tmp;
		csv_cell(c, frame_row_path(f, frame_row_at(f, i, &tmp), &pb), 0);
	}
	free(pb.buf);
	fputs("\r\n", c->out);
	c->started = 1;
}

/* Place row i of f (column col, status st, value v) in the first free
 * column showing its path, with its value and whether it has one. */
static void
csv_place(struct csv *c, const struct frame *f, size_t i, uint32_t col, uint8_t st, double v)
{
	size_t j;

	if (col >= c->nfirst || c->first_col[col] == 0)
		return; /* appeared after the first frame: no column */
	j = c->first_col[col] - 1;
	while (c->cells[j] && c->col_next[j])
		j = c->col_next[j] - 1;
	if (c->cells[j])
		return;
	c->cells[j] = i + 1;
	c->value[j] = v;
	if (f->rows) {
		c->shown[j] = (uint8_t)frame_row_has_value(&f->rows[i]);
	} else {
		uint64_t key = idmap_key(f->cols->ids, col);
		struct frame_row r = { .counter = f->cols->counters[key >> 33].counter, .status = st };
		c->shown[j] = (uint8_t)frame_row_has_value(&r);
	}
}

/* Place each row of f, a compact frame's run after run (no row looked up
 * by its index: that and a write a cell were most of a line's cost). */
static void
csv_map(struct csv *c, const struct frame *f)
{
	memset(c->cells, 0, c->ncols * sizeof(*c->cells));
	if (f->rows) {
		for (size_t i = 0; i < f->nrows; i++)
			csv_place(c, f, i, f->rows[i].column, f->rows[i].status, f->rows[i].value);
		return;
	}
	for (size_t k = 0; k < f->nruns; k++) {
		const struct frame_run *run = &f->runs[k];
		for (uint32_t q = 0; q < run->n; q++) {
			uint8_t st = run->st;
			double v = 0;
			if (run->val != FRAME_RUN_UNIFORM) {
				v = f->value[run->val + q];
				if (run->sti != FRAME_RUN_UNIFORM)
					st = f->status[run->sti + q];
			}
			csv_place(c, f, (size_t)run->row + q, run->col + q, st, v);
		}
	}
}

/* The bytes of a line written at once, at most (and a cell more). */
enum { LINE_PART = 64 * 1024 };

/* Room in the line for n more bytes after len. */
static char *
line_room(struct csv *c, size_t len, size_t n)
{
	xgrow((void **)&c->line, &c->line_cap, len + n, 1);
	return c->line + len;
}

/* Write one line: the time, then each column's value or " ". */
static int
csv_write(void *state, const struct frame *f, struct err *err)
{
	struct csv *c = state;
	char buf[512];
	size_t len = 0;

	if (!c->started)
		csv_header(c, f);
	csv_map(c, f);
	format_time_pdh(buf, sizeof(buf), f->wall_ns, c->utc);
	csv_cell(c, buf, 1);
	for (size_t i = 0; i < c->ncols; i++) {
		/* a line of every counter at scale is megabytes: written out a
		 * part at a time, so the buffer stays this size (a whole line
		 * held at once took 8 MiB more at 290,000 columns) */
		if (len >= LINE_PART) {
			fwrite(c->line, 1, len, c->out);
			len = 0;
		}
		/* a value never holds a quote: written in place, quoted */
		char *p = line_room(c, len, sizeof(buf) + 3);
		*p++ = c->sep;
		*p++ = '"';
		if (c->cells[i] && c->shown[i]) {
			format_double(p, sizeof(buf), c->value[i], c->precision);
			p += strlen(p);
		} else {
			*p++ = ' ';
		}
		*p++ = '"';
		len = (size_t)(p - c->line);
	}
	memcpy(line_room(c, len, 2), "\r\n", 2);
	fwrite(c->line, 1, len + 2, c->out);
	/* A user tails the file, and a SIGINT must not lose a sample. */
	return output_flush(c->out, c->sep == ',' ? "csv" : "tsv", err);
}

/* Flush and free. */
static int
csv_close(void *state, struct err *err)
{
	struct csv *c = state;
	int ret = output_flush(c->out, c->sep == ',' ? "csv" : "tsv", err);

	free(c->col_id);
	free(c->col_next);
	free(c->cells);
	free(c->value);
	free(c->shown);
	free(c->first_col);
	free(c->line);
	free(c);
	return ret;
}

const struct output output_csv = {
	.name = "csv",
	.open = csv_open,
	.write = csv_write,
	.close = csv_close,
};

const struct output output_tsv = {
	.name = "tsv",
	.open = tsv_open,
	.write = csv_write,
	.close = csv_close,
};
