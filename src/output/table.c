/*
 * table.c - the table output (the default), for a person at a terminal.
 * When every row fits the width (the terminal's, or 160 columns when not a
 * terminal) a sample is one line: the time, then one column per row under a
 * header of short names, repeated when the rows change and every 20 lines.
 * Otherwise a sample is a block: a time line, then one aligned line per row
 * with path, value, unit and the status word when not OK. A missing value
 * is a '-'. With opts->summary, close prints each counter's minimum,
 * average and maximum (sar's Average: line).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output.h"

#define TIME_COLUMNS 8     /* "HH:MM:SS", and "Average:" */
#define TIME_COLUMNS_MS 12 /* "HH:MM:SS.mmm", for sub-second intervals */
#define VALUE_COLUMNS 10   /* room for a value in a one-line column */
#define HEADER_EVERY 20    /* sample lines between repeated headers */
#define NO_TERMINAL_WIDTH 160

struct table {
	FILE *out;
	int precision;
	int utc;
	int summary;
	size_t time_cols; /* TIME_COLUMNS, or TIME_COLUMNS_MS */
	int with_set;     /* short names carry the set: the frame has several */
	size_t limit;     /* columns a one-line sample may take */
	int dim;          /* a terminal: show '-' dim */
	int printed;      /* anything was written */
	int line_mode;    /* the last sample was one line */
	unsigned lines;   /* sample lines since the last header */
	uint32_t *header; /* the columns under the last header, in order */
	size_t nheader, header_cap;
	struct summary sum;
	struct pathbuf pb;
	uint32_t *path_cols; /* column -> its path's width + 1 (0: not known yet) */
	size_t npath_cols;
};

/* A line written with lazy padding, so no line ends in spaces. */
struct line {
	FILE *out;
	size_t pending;
};

/* Add n spaces before the next text. */
static void
line_pad(struct line *l, size_t n)
{
	l->pending += n;
}

/* Write the pending spaces. */
static void
line_flush(struct line *l)
{
	static const char spaces[] = "                                ";

	while (l->pending) {
		size_t k = l->pending < sizeof(spaces) - 1 ? l->pending : sizeof(spaces) - 1;
		fwrite(spaces, 1, k, l->out);
		l->pending -= k;
	}
}

/* Write s with control characters as '?', after the pending spaces when s
 * is not empty. */
static void
line_text(struct line *l, const char *s)
{
	if (!s[0])
		return;
	line_flush(l);
	put_text(l->out, s);
}

/* Write s padded to width columns, on the right when right is set. */
static void
line_cell(struct line *l, const char *s, size_t width, int right)
{
	size_t cols = text_columns(s);
	size_t pad = cols < width ? width - cols : 0;

	if (right)
		line_pad(l, pad);
	line_text(l, s);
	if (!right)
		line_pad(l, pad);
}

/* End the line, dropping trailing padding. */
static void
line_end(struct line *l)
{
	l->pending = 0;
	fputc('\n', l->out);
}

/* Start the table on out. */
static void *
table_open(FILE *out, const struct output_opts *opts, struct err *err)
{
	struct table *t = xcalloc(1, sizeof(*t));

	(void)err;
	t->out = out;
	t->precision = opts->precision;
	t->utc = opts->utc;
	t->summary = opts->summary;
	t->time_cols = opts->subsecond ? TIME_COLUMNS_MS : TIME_COLUMNS;
	t->limit = opts->width > 0 ? (size_t)opts->width : NO_TERMINAL_WIDTH;
	/* dim only on a terminal that can, and unless NO_COLOR asks not to */
	const char *term = getenv("TERM");
	t->dim = opts->width > 0 && isatty(fileno(out)) && !getenv("NO_COLOR") &&
		 !(term && strcmp(term, "dumb") == 0);
	return t;
}

/* The wall time as strftime fmt, local or UTC. */
static void
clock_text(char *buf, size_t n, int64_t wall_ns, int utc, const char *fmt)
{
	time_t secs = (time_t)(wall_ns / 1000000000);
	struct tm tm;

	if (wall_ns % 1000000000 < 0)
		secs--;
	if (utc)
		gmtime_r(&secs, &tm);
	else
		localtime_r(&secs, &tm);
	if (strftime(buf, n, fmt, &tm) == 0)
		buf[0] = '\0';
}

/* The unit of a counter, "" for none. */
static const char *
unit_of(const struct counter_desc *c)
{
	return c->unit ? c->unit : "";
}

/* Columns of a one-line cell: its short name, or a value and its unit. */
static size_t
cell_width(const char *name, const char *unit)
{
	size_t w = VALUE_COLUMNS;
	size_t n = text_columns(name);

	if (unit[0])
		w += 1 + text_columns(unit);
	return n > w ? n : w;
}

/* Write a value (or '-' when v is NULL) right-aligned in width columns,
 * followed by its unit when it has one. */
static void
value_cell(struct table *t, struct line *l, const char *value, const char *unit,
	   size_t width, size_t unit_width)
{
	size_t vw = width - (unit_width ? unit_width + 1 : 0);

	if (value) {
		line_cell(l, value, vw, 1);
	} else {
		line_pad(l, vw - 1);
		if (t->dim) {
			line_flush(l);
			fputs("\033[2m-\033[0m", t->out);
		} else {
			line_text(l, "-");
		}
	}
	if (unit_width) {
		line_pad(l, 1);
		if (value)
			line_cell(l, unit, unit_width, 0);
		else
			line_pad(l, unit_width);
	}
}

/* The columns a one-line sample of f takes. */
static size_t
line_width(const struct table *t, const struct frame *f)
{
	size_t w = t->time_cols;
	char name[512];

	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		const struct frame_row *r = frame_row_at(f, i, &tmp);
		row_short_name(name, sizeof(name), r, t->with_set);
		w += 2 + cell_width(name, unit_of(r->counter));
	}
	return w;
}

/* Nonzero when f's rows are not the columns under the last header. */
static int
rows_changed(const struct table *t, const struct frame *f)
{
	if (f->nrows != t->nheader)
		return 1;
	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		if (frame_row_at(f, i, &tmp)->column != t->header[i])
			return 1;
	}
	return 0;
}

/* Write the header of short names and remember its columns. */
static void
write_header(struct table *t, const struct frame *f)
{
	struct line l = {t->out, 0};
	char name[512];

	if (t->printed)
		fputc('\n', t->out);
	line_cell(&l, "Time", t->time_cols, 0);
	xgrow((void **)&t->header, &t->header_cap, f->nrows, sizeof(*t->header));
	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		const struct frame_row *r = frame_row_at(f, i, &tmp);

		row_short_name(name, sizeof(name), r, t->with_set);
		line_pad(&l, 2);
		line_cell(&l, name, cell_width(name, unit_of(r->counter)), 1);
		t->header[i] = r->column;
	}
	line_end(&l);
	t->nheader = f->nrows;
	t->lines = 0;
}

/* One sample on one line, under a header when one is due. */
static void
write_line(struct table *t, const struct frame *f)
{
	struct line l = {t->out, 0};
	char buf[512], name[512];

	if (!t->line_mode || !t->printed || t->lines >= HEADER_EVERY || rows_changed(t, f))
		write_header(t, f);
	clock_text(buf, sizeof(buf), f->wall_ns, t->utc, "%H:%M:%S");
	if (t->time_cols == TIME_COLUMNS_MS) {
		int64_t ms = (f->wall_ns / 1000000) % 1000;
		size_t len = strlen(buf);
		snprintf(buf + len, sizeof(buf) - len, ".%03d", (int)(ms < 0 ? ms + 1000 : ms));
	}
	line_cell(&l, buf, t->time_cols, 0);
	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		const struct frame_row *r = frame_row_at(f, i, &tmp);
		const char *unit = unit_of(r->counter);
		int shown = frame_row_has_value(r);

		row_short_name(name, sizeof(name), r, t->with_set);
		if (shown)
			format_value_human(buf, sizeof(buf), r->value, t->precision);
		line_pad(&l, 2);
		value_cell(t, &l, shown ? buf : NULL, unit, cell_width(name, unit),
			   text_columns(unit));
	}
	line_end(&l);
	t->lines++;
}

/* The terminal columns r's path takes, worked out once a column (a
 * column's path never changes), so a block does not form every path twice. */
static size_t
path_width(struct table *t, const struct frame *f, const struct frame_row *r)
{
	if (r->column >= t->npath_cols)
		xgrow((void **)&t->path_cols, &t->npath_cols, (size_t)r->column + 1,
		      sizeof(*t->path_cols));
	if (!t->path_cols[r->column])
		t->path_cols[r->column] = (uint32_t)text_columns(frame_row_path(f, r, &t->pb)) + 1;
	return t->path_cols[r->column] - 1;
}

/* One sample as a block: a time line, then path, value, unit, status. */
static void
write_block(struct table *t, const struct frame *f)
{
	struct line l = {t->out, 0};
	size_t pw = 0, vw = VALUE_COLUMNS, uw = 0;
	char buf[512];

	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		const struct frame_row *r = frame_row_at(f, i, &tmp);
		size_t n = path_width(t, f, r);

		pw = n > pw ? n : pw;
		n = text_columns(unit_of(r->counter));
		uw = n > uw ? n : uw;
		if (frame_row_has_value(r)) {
			format_value_human(buf, sizeof(buf), r->value, t->precision);
			n = strlen(buf);
			vw = n > vw ? n : vw;
		}
	}
	if (t->printed)
		fputc('\n', t->out);
	clock_text(buf, sizeof(buf), f->wall_ns, t->utc, "%Y-%m-%d %H:%M:%S");
	if (t->time_cols == TIME_COLUMNS_MS) {
		int64_t ms = (f->wall_ns / 1000000) % 1000;
		size_t len = strlen(buf);
		snprintf(buf + len, sizeof(buf) - len, ".%03d", (int)(ms < 0 ? ms + 1000 : ms));
	}
	line_text(&l, buf);
	line_end(&l);
	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		const struct frame_row *r = frame_row_at(f, i, &tmp);
		int shown = frame_row_has_value(r);

		if (shown)
			format_value_human(buf, sizeof(buf), r->value, t->precision);
		line_cell(&l, frame_row_path(f, r, &t->pb), pw, 0);
		line_pad(&l, 2);
		value_cell(t, &l, shown ? buf : NULL, unit_of(r->counter), vw + (uw ? uw + 1 : 0),
			   uw);
		if (r->status != ST_OK) {
			line_pad(&l, 2);
			line_text(&l, status_name((enum value_status)r->status));
		}
		line_end(&l);
	}
}

/* Write one sample, as a line when it fits, else as a block. */
static int
table_write(void *state, const struct frame *f, struct err *err)
{
	struct table *t = state;

	t->with_set = frame_spans_sets(f);
	if (line_width(t, f) <= t->limit) {
		write_line(t, f);
		t->line_mode = 1;
	} else {
		write_block(t, f);
		t->line_mode = 0;
	}
	t->printed = 1;
	if (t->summary)
		for (size_t i = 0; i < f->nrows; i++) {
			struct frame_row tmp;
			summary_add(&t->sum, f, frame_row_at(f, i, &tmp), t->with_set);
		}
	return output_flush(t->out, "table", err);
}

/* Nonzero when the summary's columns are exactly those under the header. */
static int
summary_matches_header(const struct table *t)
{
	if (!t->line_mode || t->sum.ncols != t->nheader)
		return 0;
	for (size_t i = 0; i < t->nheader; i++)
		if (!summary_find(&t->sum, t->header[i]))
			return 0;
	return 1;
}

/* The minimum (0), average (1) or maximum (2) of c as text, or NULL. */
static const char *
summary_value(const struct table *t, const struct summary_col *c, int which, char *buf,
	      size_t n)
{
	double v = which == 0 ? c->min : which == 1 ? c->sum / (double)c->n : c->max;

	if (c->n == 0)
		return NULL;
	format_value_human(buf, n, v, t->precision);
	return buf;
}

/* sar's way: Minimum:, Average: and Maximum: lines under the columns. */
static void
write_summary_lines(struct table *t)
{
	static const char *const labels[] = {"Minimum:", "Average:", "Maximum:"};
	char buf[512];

	fputc('\n', t->out);
	for (int which = 0; which < 3; which++) {
		struct line l = {t->out, 0};

		line_cell(&l, labels[which], t->time_cols, 0);
		for (size_t i = 0; i < t->nheader; i++) {
			const struct summary_col *c = summary_find(&t->sum, t->header[i]);

			line_pad(&l, 2);
			value_cell(t, &l, summary_value(t, c, which, buf, sizeof(buf)), c->unit,
				   cell_width(c->name, c->unit), text_columns(c->unit));
		}
		line_end(&l);
	}
}

/* One line per counter: path, minimum, average, maximum, unit. */
static void
write_summary_block(struct table *t)
{
	static const char *const heads[] = {"Minimum", "Average", "Maximum"};
	struct line l = {t->out, 0};
	size_t pw = 7, vw = VALUE_COLUMNS;
	char buf[512];

	for (size_t i = 0; i < t->sum.ncols; i++) {
		const struct summary_col *c = &t->sum.cols[i];
		size_t n = text_columns(c->path);

		pw = n > pw ? n : pw;
		for (int which = 0; which < 3; which++)
			if (summary_value(t, c, which, buf, sizeof(buf)) && strlen(buf) > vw)
				vw = strlen(buf);
	}
	fputc('\n', t->out);
	line_cell(&l, "Summary", pw, 0);
	for (int which = 0; which < 3; which++) {
		line_pad(&l, 2);
		line_cell(&l, heads[which], vw, 1);
	}
	line_end(&l);
	for (size_t i = 0; i < t->sum.ncols; i++) {
		const struct summary_col *c = &t->sum.cols[i];
		line_cell(&l, c->path, pw, 0);
		for (int which = 0; which < 3; which++) {
			line_pad(&l, 2);
			value_cell(t, &l, summary_value(t, c, which, buf, sizeof(buf)), "", vw, 0);
		}
		if (c->n && c->unit[0]) {
			line_pad(&l, 1);
			line_text(&l, c->unit);
		}
		line_end(&l);
	}
}

/* Print the summary when asked, flush and free. */
static int
table_close(void *state, struct err *err)
{
	struct table *t = state;
	int ret;

	if (t->summary && t->printed) {
		if (summary_matches_header(t))
			write_summary_lines(t);
		else
			write_summary_block(t);
	}
	ret = output_flush(t->out, "table", err);
	summary_free(&t->sum);
	free(t->pb.buf);
	free(t->header);
	free(t->path_cols);
	free(t);
	return ret;
}

const struct output output_table = {
	.name = "table",
	.open = table_open,
	.write = table_write,
	.close = table_close,
};
