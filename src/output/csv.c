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
	size_t *first_col; /* row.column -> first column showing it + 1, or 0 */
	size_t nfirst;
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

/* Place each row of f in the first free column showing its path. */
static void
csv_map(struct csv *c, const struct frame *f)
{
	memset(c->cells, 0, c->ncols * sizeof(*c->cells));
	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		const struct frame_row *r = frame_row_at(f, i, &tmp);
		size_t j;

		if (r->column >= c->nfirst || c->first_col[r->column] == 0)
			continue; /* appeared after the first frame: no column */
		j = c->first_col[r->column] - 1;
		while (c->cells[j] && c->col_next[j])
			j = c->col_next[j] - 1;
		if (!c->cells[j])
			c->cells[j] = i + 1;
	}
}

/* Write one line: the time, then each column's value or " ". */
static int
csv_write(void *state, const struct frame *f, struct err *err)
{
	struct csv *c = state;
	char buf[512];

	if (!c->started)
		csv_header(c, f);
	csv_map(c, f);
	format_time_pdh(buf, sizeof(buf), f->wall_ns, c->utc);
	csv_cell(c, buf, 1);
	for (size_t i = 0; i < c->ncols; i++) {
		struct frame_row tmp;
		const struct frame_row *r = c->cells[i] ? frame_row_at(f, c->cells[i] - 1, &tmp) : NULL;

		if (r && frame_row_has_value(r)) {
			format_double(buf, sizeof(buf), r->value, c->precision);
			csv_cell(c, buf, 0);
		} else {
			csv_cell(c, " ", 0);
		}
	}
	fputs("\r\n", c->out);
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
	free(c->first_col);
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
