/*
 * tui_hist.c - the history behind getcounter --tui: per series, the values
 * and statuses of the last samples, copied from each borrowed frame. A
 * ring of fixed size while live (2 x the widest screen), every sample of a
 * replay. Plain C, no curses: tests/unit/test_tui.c drives it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "tui.h"

void
tui_hist_init(struct tui_hist *h, size_t cap, int grow)
{
	memset(h, 0, sizeof(*h));
	h->cap = cap ? cap : 1;
	h->grow = grow;
	h->wall = xcalloc(h->cap, sizeof(*h->wall));
	h->val = xcalloc(h->cap * TUI_MAX_SERIES, sizeof(*h->val));
	h->st = xcalloc(h->cap * TUI_MAX_SERIES, sizeof(*h->st));
}

static void
series_free(struct tui_series *s)
{
	free(s->path);
	free(s->set);
	free(s->instance);
	free(s->counter);
	free(s->unit);
}

void
tui_hist_free(struct tui_hist *h)
{
	for (size_t i = 0; i < h->nseries; i++)
		series_free(&h->series[i]);
	free(h->wall);
	free(h->val);
	free(h->st);
	free(h->colmap);
	memset(h, 0, sizeof(*h));
}

void
tui_hist_forget_columns(struct tui_hist *h)
{
	if (h->colmap)
		memset(h->colmap, 0, h->ncolmap * sizeof(*h->colmap));
}

void
tui_hist_clear(struct tui_hist *h)
{
	h->n = 0;
	tui_hist_forget_columns(h);
}

uint64_t
tui_hist_first(const struct tui_hist *h)
{
	return h->n > h->cap ? h->n - h->cap : 0;
}

/* Double a growing history, keeping every sample at its index mod cap. */
static void
hist_double(struct tui_hist *h)
{
	size_t cap = h->cap * 2;
	int64_t *wall = xcalloc(cap, sizeof(*wall));
	double *val = xcalloc(cap * TUI_MAX_SERIES, sizeof(*val));
	uint8_t *st = xcalloc(cap * TUI_MAX_SERIES, sizeof(*st));

	for (uint64_t i = tui_hist_first(h); i < h->n; i++) {
		size_t from = (size_t)(i % h->cap), to = (size_t)(i % cap);
		wall[to] = h->wall[from];
		memcpy(&val[to * TUI_MAX_SERIES], &h->val[from * TUI_MAX_SERIES],
		       TUI_MAX_SERIES * sizeof(*val));
		memcpy(&st[to * TUI_MAX_SERIES], &h->st[from * TUI_MAX_SERIES], TUI_MAX_SERIES);
	}
	free(h->wall);
	free(h->val);
	free(h->st);
	h->wall = wall;
	h->val = val;
	h->st = st;
	h->cap = cap;
}

/* The series of row r: by column, else by path (a reopened engine), else
 * a new one; SIZE_MAX when TUI_MAX_SERIES are taken. */
static size_t
series_of(struct tui_hist *h, const struct frame *f, const struct frame_row *r)
{
	size_t s;

	if (r->column < h->ncolmap && h->colmap[r->column])
		return h->colmap[r->column] - 1;
	for (s = 0; s < h->nseries; s++) {
		const struct tui_series *se = &h->series[s];
		if (strcmp(se->counter, r->counter->name) == 0 &&
		    strcmp(se->set, r->set->name) == 0 && !se->instance == !r->instance &&
		    (!r->instance || strcmp(se->instance, r->instance) == 0))
			break;
	}
	if (s == h->nseries) {
		if (h->nseries == TUI_MAX_SERIES)
			return SIZE_MAX;
		struct tui_series *se = &h->series[h->nseries++];
		memset(se, 0, sizeof(*se));
		struct pathbuf pb = { 0 };
		se->path = xstrdup(frame_row_path(f, r, &pb));
		free(pb.buf);
		se->set = xstrdup(r->set->name);
		se->instance = r->instance ? xstrdup(r->instance) : NULL;
		se->counter = xstrdup(r->counter->name);
		se->unit = xstrdup(r->counter->unit ? r->counter->unit : "");
		/* a series that appears late has no earlier values */
		for (uint64_t i = tui_hist_first(h); i < h->n; i++)
			h->st[(i % h->cap) * TUI_MAX_SERIES + s] = TUI_NO_ROW;
	}
	if (r->column >= h->ncolmap) {
		size_t n = h->ncolmap;
		xgrow((void **)&h->colmap, &h->ncolmap, (size_t)r->column + 1, sizeof(*h->colmap));
		memset(h->colmap + n, 0, (h->ncolmap - n) * sizeof(*h->colmap));
	}
	h->colmap[r->column] = (uint32_t)(s + 1);
	return s;
}

void
tui_hist_push(struct tui_hist *h, const struct frame *f)
{
	size_t slot;

	if (h->grow && h->n >= h->cap)
		hist_double(h);
	slot = (size_t)(h->n % h->cap);
	if (!h->grow && h->n >= h->cap)
		h->span_start = h->wall[slot]; /* the read before the new oldest */
	h->wall[slot] = f->wall_ns;
	memset(&h->st[slot * TUI_MAX_SERIES], TUI_NO_ROW, TUI_MAX_SERIES);
	h->dropped = 0;
	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		const struct frame_row *r = frame_row_at(f, i, &tmp);
		size_t s = series_of(h, f, r);
		if (s == SIZE_MAX) {
			h->dropped++;
			continue;
		}
		int has = frame_row_has_value(r) && isfinite(r->value);
		h->val[slot * TUI_MAX_SERIES + s] = has ? r->value : 0;
		h->st[slot * TUI_MAX_SERIES + s] = (uint8_t)((r->status & 0x7f) |
							    (has ? TUI_HAS_VALUE : 0));
	}
	h->n++;
}

uint8_t
tui_hist_get(const struct tui_hist *h, uint64_t i, size_t s, double *v)
{
	size_t k;

	if (i >= h->n || i < tui_hist_first(h) || s >= h->nseries)
		return TUI_NO_ROW;
	k = (size_t)(i % h->cap) * TUI_MAX_SERIES + s;
	*v = h->val[k];
	return h->st[k];
}

int64_t
tui_hist_wall(const struct tui_hist *h, uint64_t i)
{
	if (i >= h->n || i < tui_hist_first(h))
		return 0;
	return h->wall[i % h->cap];
}

size_t
tui_hist_span(const struct tui_hist *h, uint64_t *from, uint64_t *to)
{
	if (h->n == 0)
		return SIZE_MAX;
	if (*from < tui_hist_first(h))
		*from = tui_hist_first(h);
	if (*to >= h->n)
		*to = h->n - 1;
	return *from <= *to ? (size_t)(*from % h->cap) : SIZE_MAX;
}

void
tui_hist_stats(const struct tui_hist *h, size_t s, uint64_t from, uint64_t to,
	       struct tui_stats *out)
{
	double sum = 0;
	size_t k = tui_hist_span(h, &from, &to);

	memset(out, 0, sizeof(*out));
	out->last_st = TUI_NO_ROW;
	if (k == SIZE_MAX || s >= h->nseries)
		return;
	for (uint64_t i = from;; i++, k = tui_hist_next_slot(h, k)) {
		uint8_t st = h->st[k * TUI_MAX_SERIES + s];
		double v = h->val[k * TUI_MAX_SERIES + s];
		if (i == to) {
			out->last_st = st;
			out->has_last = (st & TUI_HAS_VALUE) != 0;
			out->last = out->has_last ? v : 0;
		}
		if ((st & TUI_HAS_VALUE) && st != TUI_NO_ROW) {
			if (out->n == 0 || v < out->min)
				out->min = v;
			if (out->n == 0 || v > out->max)
				out->max = v;
			sum += v;
			out->n++;
		}
		if (i == to)
			break;
	}
	out->avg = out->n ? sum / (double)out->n : 0;
}

int
tui_autoscale_exp(double max)
{
	int e;

	if (!(max > 0) || !isfinite(max))
		return 0;
	for (e = 9; e > -9; e--)
		if (max * pow(10, e) < 100)
			break;
	return e;
}

int
tui_parse_goto(const char *s, int64_t now_ns, int64_t *out)
{
	if (s[0] == '+' || s[0] == '-') {
		char *end;
		double n = strtod(s + 1, &end);
		double unit = 1;
		if (end == s + 1 || n < 0)
			return -1;
		switch (*end) {
		case 's': case '\0': unit = 1; break;
		case 'm': unit = 60; break;
		case 'h': unit = 3600; break;
		case 'd': unit = 86400; break;
		default: return -1;
		}
		if (*end && end[1])
			return -1;
		int64_t d = (int64_t)(n * unit * 1e9);
		*out = s[0] == '+' ? now_ns + d : now_ns - d;
		return 0;
	}
	return replay_parse_time(s, out);
}

void
tui_format_value(char *buf, size_t n, double v, int precision)
{
	static const char *const suffix[] = { "k", "M", "G", "T", "P" };
	double x = v;
	int k = -1;

	if (!buf || n == 0) /* nothing to write to (GCC's sanitizer builds ask) */
		return;
	format_value_human(buf, n, v, precision);
	if (strlen(buf) <= TUI_VALUE_COLUMNS || !isfinite(v))
		return;
	/* 999.995 and up rounds to 1000.00: the next unit's 1.00 */
	while (fabs(x) >= 999.995 && k < 4) {
		x /= 1000;
		k++;
	}
	if (k >= 0) {
		snprintf(buf, n, "%.2f%s", x, suffix[k]);
		if (strlen(buf) <= TUI_VALUE_COLUMNS)
			return;
	}
	/* beyond P, or a long fraction (-p 8): the digits give way */
	snprintf(buf, n, "%.3g", v);
	if (strlen(buf) > TUI_VALUE_COLUMNS)
		snprintf(buf, n, "%.2g", v);
}
