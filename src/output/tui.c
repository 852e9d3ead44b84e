/*
 * tui.c - getcounter --tui: the live screen, the only file that includes
 * curses. It drives the engine itself (a terminal needs its own loop: poll
 * on the terminal and on a timerfd for the next read, nothing else wakes
 * it), borrows each frame into the history of tui_hist.c, and draws three
 * views of that history: a graph (braille, or ASCII), a histogram and a
 * report, with a legend and one status line. It computes nothing: values
 * and statuses are the frames'; the legend's minimum, average and maximum
 * are those of the values shown, as the table's summary.
 *
 * A live source samples on the interval, letting a source with its own
 * clock (a live capture) work until each read as engine_run does; a finite
 * one (--input logs, a --root series, --pcap files) is read whole at the
 * start and then stepped, sought and played from the history, so stepping
 * back costs no re-reading.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "engine.h"
#include "tui.h"

#ifndef HAVE_NCURSESW

int
tui_built_in(void)
{
	return 0;
}

int
tui_run(struct engine **e, const struct config *cfg, int log_fd, struct err *err)
{
	(void)e;
	(void)cfg;
	(void)log_fd;
	err_set(err, "--tui is not built in: install libncurses-dev and rebuild");
	return EXIT_RUNTIME;
}

#else

#include <curses.h>

int
tui_built_in(void)
{
	return 1;
}

#define MIN_COLS 80
#define MIN_LINES 24
#define LIVE_KEEP 2048 /* samples kept live: 2 x a 1024-column screen */
#define AXIS_W 5       /* "100 |" */
#define ADD_MAX_SERIES 32

enum view { VIEW_GRAPH, VIEW_HISTOGRAM, VIEW_REPORT };
enum stat_kind { STAT_LAST, STAT_AVERAGE, STAT_MINIMUM, STAT_MAXIMUM };
enum prompt_kind { PROMPT_NONE, PROMPT_ADD, PROMPT_GOTO };

static const double intervals[] = { 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60 };
static const int speeds[] = { 1, 2, 4, 8, 16, 32, 64, 0 }; /* 0: max */
static const char *const stat_names[] = { "last", "average", "minimum", "maximum" };

static volatile sig_atomic_t term_requested;

/* SIGTERM, SIGHUP, kill -INT: leave as q does. */
static void
on_term(int sig)
{
	(void)sig;
	term_requested = 1;
}

struct tui {
	const struct config *cfg;
	struct config cfg_reopen; /* cfg with --append for a reopened log */
	struct engine **e;
	int log_fd;
	const char *log_name;
	char **paths; /* owned: what the engine samples */
	size_t npaths;
	struct tui_hist h;
	int finite;        /* a replay, a --root series or --pcap files: all read */
	uint64_t cursor;   /* finite: the newest sample shown */
	int playing;
	int speed;         /* index into speeds */
	int frozen;        /* live */
	uint64_t frozen_n; /* live: samples when frozen */
	double interval;
	uint64_t deadline; /* live: the monotonic time of the timer's next tick */
	uint64_t nframes;  /* live: frames read (-n N stops after N) */
	int ended;         /* a live source ran out, or gave its -n samples */
	enum view view;
	enum stat_kind stat;
	size_t sel;
	int report_top;   /* the report's first row shown */
	int report_rows;  /* rows of the report on the screen */
	int report_total; /* rows of the whole report */
	int highlight;
	int yfit;
	int ascii, color;
	int too_small;
	/* the braille or ASCII grid, sized at layout */
	uint8_t *dots;
	uint8_t *owner;
	size_t grid_cap;
	/* prompt and messages */
	enum prompt_kind prompt;
	char input[512];
	size_t ilen;
	int tabs;
	char **cands; /* completion: every path of the registry */
	size_t ncands;
	char listing[2048];
	char msg[1024];
	int help;
	int timer_fd;
	int quit;
	int fatal; /* the run cannot go on: err says why */
	struct err *err;
};

/* ---- small helpers ------------------------------------------------------ */

static double
scale_of(const struct tui_series *s)
{
	return pow(10, s->scale_exp);
}

/* "x0.001", "x10", or "x1e-9" past four places. */
static void
format_scale(char *buf, size_t n, int e)
{
	if (e > 4 || e < -4)
		snprintf(buf, n, "x1e%d", e);
	else if (e >= 0)
		snprintf(buf, n, "x%.0f", pow(10, e));
	else
		snprintf(buf, n, "x%.*f", -e, pow(10, e));
}

/* Seconds as "0.2s", "22s", "3m05s" or "1h02m". */
static void
format_secs(char *buf, size_t n, double s)
{
	if (s < 60)
		snprintf(buf, n, "%.3gs", s);
	else if (s < 3600)
		snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, n, "%dh%02dm", (int)s / 3600, (int)s % 3600 / 60);
}

/* A sample's time (as the source stamped it) as YYYY-MM-DD HH:MM:SS. */
static void
format_wall(char *buf, size_t n, int64_t wall_ns, int utc)
{
	time_t t = (time_t)(wall_ns / 1000000000);
	struct tm tm;

	if (utc)
		gmtime_r(&t, &tm);
	else
		localtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm);
}

/* A size in B, KiB, MiB or GiB. */
static void
format_bytes(char *buf, size_t n, double b)
{
	if (b < 1024)
		snprintf(buf, n, "%.0f B", b);
	else if (b < 1024 * 1024)
		snprintf(buf, n, "%.1f KiB", b / 1024);
	else if (b < 1024.0 * 1024 * 1024)
		snprintf(buf, n, "%.1f MiB", b / 1024 / 1024);
	else
		snprintf(buf, n, "%.1f GiB", b / 1024 / 1024 / 1024);
}

/* mvaddstr(y, x, s), clipped at the screen's right edge. Printable ASCII
 * goes in as one run of cells (waddchnstr) in the attributes on, where
 * waddnstr takes each byte through the multibyte decoder: a legend line of
 * 60 characters cost 18,000 instructions that way, a third of a refresh's
 * legend. Anything else goes through mvaddstr. The cursor ends where
 * mvaddstr leaves it, so that the bytes sent to the terminal stay the same. */
static void
put_str(int y, int x, const char *s)
{
	chtype run[512];
	size_t n = strlen(s);
	attr_t attrs;
	short pair;

	if (y < 0 || y >= LINES || x < 0 || x >= COLS || n > ARRAY_SIZE(run)) {
		mvaddstr(y, x, s);
		return;
	}
	for (size_t k = 0; k < n; k++)
		if ((unsigned char)s[k] < 0x20 || (unsigned char)s[k] > 0x7e) {
			mvaddstr(y, x, s);
			return;
		}
	if (n > (size_t)(COLS - x))
		n = (size_t)(COLS - x);
	wattr_get(stdscr, &attrs, &pair, NULL);
	for (size_t k = 0; k < n; k++)
		run[k] = (chtype)(unsigned char)s[k] | attrs | COLOR_PAIR(pair);
	mvaddchnstr(y, x, run, (int)n);
	if (x + (int)n < COLS)
		move(y, x + (int)n);
	else if (y + 1 < LINES)
		move(y + 1, 0); /* where mvaddstr's wrap leaves it */
	else
		move(y, COLS - 1);
}

/* Print s at most w columns wide, control characters as '?', and bytes
 * above 0x7f as '?' on an ASCII screen. */
static void
put_clipped(const struct tui *t, int y, int x, const char *s, int w)
{
	char buf[1024];
	size_t o = 0;
	int cols = 0;

	while (*s && cols < w && o + 5 < sizeof(buf)) {
		unsigned char c = (unsigned char)*s;
		size_t len = c < 0x80 ? 1 : utf8_seq_len((const unsigned char *)s);
		if (c < 0x20 || c == 0x7f || len == 0 || (c >= 0x80 && t->ascii)) {
			buf[o++] = '?';
			s += len ? len : 1;
		} else {
			memcpy(buf + o, s, len);
			o += len;
			s += len;
		}
		cols++;
	}
	buf[o] = '\0';
	put_str(y, x, buf);
}

/* Shorten s in place to at most len characters (len >= 3) by replacing
 * its middle with '~'. */
static void
mid_trunc(char *s, size_t len)
{
	size_t have = strlen(s);

	if (have <= len || len < 3)
		return;
	size_t keep = len - 1, head = (keep + 1) / 2, tail = keep - head;
	memmove(s + head + 1, s + have - tail, tail + 1);
	s[head] = '~';
}

/* "\Set(instance)\Counter" in w columns, shortened in the middle of its
 * parts: the counter (the part that tells series apart) keeps priority,
 * then the instance, then the set: the set gives way first, down to 5
 * characters, then the instance, then both down to 3, the counter last. */
static void
short_path(char *buf, size_t n, const struct tui_series *s, int w)
{
	char set[128], inst[128], ctr[128];
	static const struct {
		int part; /* 0 set, 1 instance, 2 counter */
		size_t floor;
	} steps[] = { { 0, 5 }, { 1, 5 }, { 0, 3 }, { 1, 3 }, { 2, 3 } };
	char *parts[3] = { set, inst, ctr };

	snprintf(set, sizeof(set), "%s", s->set);
	snprintf(inst, sizeof(inst), "%s", s->instance ? s->instance : "");
	snprintf(ctr, sizeof(ctr), "%s", s->counter);
	for (size_t k = 0; k < ARRAY_SIZE(steps); k++) {
		int total = (int)(strlen(set) + strlen(ctr) + 2 + (s->instance ? strlen(inst) + 2 : 0));
		int len = (int)strlen(parts[steps[k].part]), least = (int)steps[k].floor;
		if (total <= w)
			break;
		if (len <= least)
			continue;
		mid_trunc(parts[steps[k].part], (size_t)(len - (total - w) < least ? least
										  : len - (total - w)));
	}
	if (s->instance)
		snprintf(buf, n, "\\%s(%s)\\%s", set, inst, ctr);
	else
		snprintf(buf, n, "\\%s\\%s", set, ctr);
}

/* The newest sample shown and the number of samples on the screen. */
static uint64_t
shown_last(const struct tui *t)
{
	if (t->h.n == 0)
		return 0;
	if (t->finite)
		return t->cursor;
	if (!t->frozen)
		return t->h.n - 1;
	/* frozen longer than the ring holds: the oldest screenful kept */
	uint64_t last = t->frozen_n - 1, keep = tui_hist_first(&t->h) + (uint64_t)COLS * 2;
	if (last < keep)
		last = keep < t->h.n ? keep : t->h.n - 1;
	return last;
}

/* Columns of the plot: the screen less the y axis and the letter column. */
static int
plot_width(void)
{
	return COLS - AXIS_W - 2;
}

/* Samples in the window: 2 per column in braille, 1 in ASCII. */
static uint64_t
window_samples(const struct tui *t)
{
	return (uint64_t)plot_width() * (t->ascii ? 1 : 2);
}

/* The oldest sample on the screen. */
static uint64_t
shown_first(const struct tui *t)
{
	uint64_t last = shown_last(t), per = t->ascii ? 1 : 2, cols = (uint64_t)plot_width();
	/* the first sample of the leftmost column (see draw_graph) */
	uint64_t first = last / per + 1 > cols ? (last / per + 1 - cols) * per : 0;

	return first < tui_hist_first(&t->h) ? tui_hist_first(&t->h) : first;
}

/* Nonzero when series s is drawn (not removed with d). */
static int
series_visible(const struct tui *t, size_t s)
{
	return s < t->h.nseries && !t->h.series[s].hidden;
}

/* "\\host\Set(instance)\Counter" without its "\\host": the screen shows
 * no machine. */
static const char *
path_without_host(const char *p)
{
	if (p[0] == '\\' && p[1] == '\\') {
		const char *q = strchr(p + 2, '\\');
		if (q)
			return q;
	}
	return p;
}

/* The letter of series s: a-z, then A-F. */
static char
series_letter(size_t s)
{
	return (char)(s < 26 ? 'a' + s : 'A' + (s - 26));
}

/* Series s's colour, and bold or dim under a highlight. */
static attr_t
series_attr(const struct tui *t, size_t s)
{
	attr_t a = A_NORMAL;

	if (t->color)
		a |= COLOR_PAIR((short)(1 + s % 6));
	if (t->highlight)
		a |= s == t->sel ? A_BOLD : A_DIM;
	return a;
}

/* The sample interval the status line shows. */
static double
shown_interval(const struct tui *t)
{
	if (!t->finite)
		return t->interval;
	uint64_t i = t->cursor;
	if (t->h.n < 2)
		return t->cfg->interval;
	if (i == 0)
		i = 1;
	return (double)(tui_hist_wall(&t->h, i) - tui_hist_wall(&t->h, i - 1)) / 1e9;
}

static void select_step(struct tui *t, int dir);

/* ---- drawing ------------------------------------------------------------ */

static void
draw_tabs(const struct tui *t)
{
	static const char *const names[] = { "Graph", "Histogram", "Report" };
	char buf[128];
	size_t o = 0;

	for (int v = 0; v < 3; v++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, v == (int)t->view ? "[%s]  " : " %s   ",
				      names[v]);
	/* at 80 columns: the tabs end by 32, "bars: average (v)" takes 34-50,
	 * "y fitted" 53-60, "? keys   q quit" 63-77 */
	put_str(0, 0, buf);
	if (t->view == VIEW_HISTOGRAM) {
		snprintf(buf, sizeof(buf), "bars: %s (v)", stat_names[t->stat]);
		put_str(0, 34, buf);
	}
	if (t->view == VIEW_REPORT && t->report_total > t->report_rows) {
		snprintf(buf, sizeof(buf), "rows %d-%d of %d", t->report_top + 1,
			 t->report_top + t->report_rows, t->report_total);
		put_str(0, 34, buf);
	}
	if (t->view != VIEW_REPORT)
		put_str(0, 53, t->yfit ? "y fitted" : "y 0-100");
	put_str(0, COLS - 17, "? keys   q quit");
}

/* Rows of the legend (header included) for the series shown. */
static int
legend_rows(const struct tui *t)
{
	int n = 0;

	for (size_t s = 0; s < t->h.nseries; s++)
		n += series_visible(t, s);
	if (n < 1)
		n = 1;
	int most = (LINES - 6) / 3;
	return 1 + (n < most ? n : most);
}

/* The legend's Counter column: what the other columns leave of the screen.
 * Below 100 columns that would be too narrow to tell paths apart, so the
 * Minimum column (and, if still too narrow, the Maximum column) gives way:
 * *nmin and *nmax say whether they are shown. */
static int
legend_path_width(int *nmin, int *nmax)
{
	/* "   Scale   " + Last, Average, Minimum, Maximum (10 each) + status */
	int w = COLS - 3 - 8 - 40 - 2 - 12;

	*nmin = *nmax = 1;
	if (w < 32) {
		*nmin = 0;
		w += 10;
	}
	if (w < 32) {
		*nmax = 0;
		w += 10;
	}
	return w;
}

/* Append s at line + o padded with spaces to |w| characters, on the left
 * (w > 0, printf's %ws) or on the right (w < 0, %-ws); the new end. The
 * legend's fields are at most 23 characters and a line holds 512: room
 * for every field of a line. */
static size_t
put_field(char *line, size_t o, const char *s, int w)
{
	size_t n = strlen(s), width = (size_t)(w < 0 ? -w : w);
	size_t pad = n < width ? width - n : 0;

	if (w > 0) {
		memset(line + o, ' ', pad);
		o += pad;
	}
	memcpy(line + o, s, n);
	o += n;
	if (w < 0) {
		memset(line + o, ' ', pad);
		o += pad;
	}
	return o;
}

/* The legend: a row per series under a header line. */
static void
draw_legend(const struct tui *t, int y0, int rows)
{
	uint64_t first = shown_first(t), last = shown_last(t);
	char line[512];
	size_t shown = 0, skip = 0;

	int nmin, nmax, pw = legend_path_width(&nmin, &nmax);

	attron(A_UNDERLINE);
	snprintf(line, sizeof(line), "   %-7s %9s %9s", "Scale", "Last", "Average");
	if (nmin)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " %9s", "Minimum");
	if (nmax)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " %9s", "Maximum");
	snprintf(line + strlen(line), sizeof(line) - strlen(line), "  %-11s %s", "Status", "Counter");
	put_str(y0, 0, line);
	attroff(A_UNDERLINE);
	/* scroll so that the selected series is on screen */
	size_t visible_before_sel = 0;
	for (size_t s = 0; s < t->sel && s < t->h.nseries; s++)
		visible_before_sel += series_visible(t, s);
	if ((int)visible_before_sel >= rows - 1)
		skip = visible_before_sel - (size_t)(rows - 2);
	for (size_t s = 0; s < t->h.nseries && (int)shown < rows - 1; s++) {
		const struct tui_series *se = &t->h.series[s];
		struct tui_stats st;
		char scale[24], vl[24] = "-", va[24] = "-", vmin[24] = "-", vmax[24] = "-";
		char path[400];
		const char *status = "-";
		if (!series_visible(t, s))
			continue;
		if (skip) {
			skip--;
			continue;
		}
		tui_hist_stats(&t->h, s, first, last, &st);
		format_scale(scale, sizeof(scale), se->scale_exp);
		if (st.has_last)
			tui_format_value(vl, sizeof(vl), st.last, t->cfg->precision);
		if (st.n) {
			tui_format_value(va, sizeof(va), st.avg, t->cfg->precision);
			tui_format_value(vmin, sizeof(vmin), st.min, t->cfg->precision);
			tui_format_value(vmax, sizeof(vmax), st.max, t->cfg->precision);
		}
		if (st.last_st != TUI_NO_ROW)
			status = status_name((enum value_status)(st.last_st & 0x7f));
		int y = y0 + 1 + (int)shown++;
		short_path(path, sizeof(path), se, pw);
		if (s == t->sel)
			attron(A_REVERSE);
		/* "%-7s %9s %9s[ %9s][ %9s]  %-11s ", without a printf a field */
		size_t o = 0;
		o = put_field(line, o, scale, -7);
		o = put_field(line, o, " ", 0);
		o = put_field(line, o, vl, 9);
		o = put_field(line, o, " ", 0);
		o = put_field(line, o, va, 9);
		if (nmin) {
			o = put_field(line, o, " ", 0);
			o = put_field(line, o, vmin, 9);
		}
		if (nmax) {
			o = put_field(line, o, " ", 0);
			o = put_field(line, o, vmax, 9);
		}
		o = put_field(line, o, "  ", 0);
		o = put_field(line, o, status, -11);
		o = put_field(line, o, " ", 0);
		line[o] = '\0';
		put_str(y, 3, line);
		put_clipped(t, y, 3 + (int)o, path, pw);
		if (s == t->sel)
			attroff(A_REVERSE);
		attron(series_attr(t, s) & ~(attr_t)A_DIM);
		mvaddch(y, 0, (chtype)(unsigned char)series_letter(s));
		if (t->color) {
			attron(A_REVERSE);
			mvaddch(y, 1, ' ');
			attroff(A_REVERSE);
		}
		attroff(series_attr(t, s));
	}
}

/* The y range: 0-100, or fitted to the visible scaled values. */
static void
y_range(const struct tui *t, double *lo, double *hi)
{
	*lo = 0;
	*hi = 100;
	if (!t->yfit)
		return;
	int any = 0;
	uint64_t first = shown_first(t), last = shown_last(t);
	for (size_t s = 0; s < t->h.nseries; s++) {
		struct tui_stats st;
		if (!series_visible(t, s))
			continue;
		tui_hist_stats(&t->h, s, first, last, &st);
		if (!st.n)
			continue;
		double mn = st.min * scale_of(&t->h.series[s]), mx = st.max * scale_of(&t->h.series[s]);
		if (!any || mn < *lo)
			*lo = mn;
		if (!any || mx > *hi)
			*hi = mx;
		any = 1;
	}
	if (!any) {
		*lo = 0;
		*hi = 100;
	}
	if (*hi - *lo < 1e-9)
		*hi = *lo + 1;
}

/* A y axis label in four columns. */
static void
y_label(char *buf, size_t n, double v)
{
	if (fabs(v) >= 1000 || (fabs(v) < 1 && v != 0))
		snprintf(buf, n, "%4.2g", v);
	else
		snprintf(buf, n, "%4.0f", v);
}

/* The y axis: top, middle and bottom labels and the rule. */
static void
draw_axis(const struct tui *t, int y0, int rows)
{
	double lo, hi;
	char lab[16];

	y_range(t, &lo, &hi);
	for (int r = 0; r < rows; r++) {
		if (r == 0 || r == rows - 1 || r == rows / 2) {
			double v = r == 0 ? hi : r == rows - 1 ? lo : (hi + lo) / 2;
			y_label(lab, sizeof(lab), v);
			mvprintw(y0 + r, 0, "%.4s", lab);
		}
		mvaddch(y0 + r, 4, '|');
	}
}

/* Braille dot bits: [column 0-1][row 0-3]. */
static const uint8_t braille_bit[2][4] = { { 0x01, 0x02, 0x04, 0x40 }, { 0x08, 0x10, 0x20, 0x80 } };

/* The graph: a braille dot (or a letter) per sample, gaps where no value. */
static void
draw_graph(struct tui *t, int y0, int rows)
{
	int pw = plot_width();
	uint64_t first = shown_first(t), last = shown_last(t);
	int sub_x = t->ascii ? 1 : 2, sub_y = t->ascii ? 1 : 4;
	/* sub_x and sub_y are powers of two: shifts, not a division a dot */
	unsigned shx = t->ascii ? 0 : 1, shy = t->ascii ? 0 : 2;
	int dots_h = rows * sub_y;
	double lo, hi;

	draw_axis(t, y0, rows);
	if (t->h.n == 0 || rows < 1 || pw < 1)
		return;
	y_range(t, &lo, &hi);
	memset(t->dots, 0, (size_t)rows * (size_t)pw);
	memset(t->owner, 0xff, (size_t)rows * (size_t)pw);
	/* draw the selected series last so that it wins a shared cell */
	for (size_t k = 0; k <= t->h.nseries; k++) {
		size_t s = k < t->h.nseries ? (k == t->sel ? SIZE_MAX : k) : t->sel;
		int end_row = -1;
		if (s == SIZE_MAX || !series_visible(t, s))
			continue;
		double mul = scale_of(&t->h.series[s]);
		int prev_dy = -1;
		/* the samples kept of those shown: the others are gaps, and a
		 * gap before the first or after the last draws nothing */
		uint64_t from = first, to = last;
		size_t slot = tui_hist_span(&t->h, &from, &to);
		for (uint64_t i = from; slot != SIZE_MAX && i <= to;
		     i++, slot = tui_hist_next_slot(&t->h, slot)) {
			double v = t->h.val[slot * TUI_MAX_SERIES + s];
			uint8_t st = t->h.st[slot * TUI_MAX_SERIES + s];
			if (!(st & TUI_HAS_VALUE) || st == TUI_NO_ROW) {
				prev_dy = -1; /* not OK: a gap */
				continue;
			}
			double f = (v * mul - lo) / (hi - lo);
			if (f < 0)
				f = 0;
			if (f > 1)
				f = 1;
			int dy = dots_h - 1 - (int)lround(f * (dots_h - 1));
			/* columns hold whole pairs of samples (2i, 2i+1), so that a
			 * new sample changes the last column only, every other
			 * time: the graph moves by whole cells */
			int dx = (int)((((uint64_t)(pw - 1) - ((last >> shx) - (i >> shx))) << shx) +
				       (i & (uint64_t)(sub_x - 1)));
			int cx = dx >> shx, cy = dy >> shy;
			if (cx < 0 || cx >= pw)
				continue;
			/* braille joins a sample to the one before it: the dots
			 * in between, in this sample's dot column */
			int from_y = dy, to_y = dy;
			/* highlighted without colour, the others stay loose dots */
			int joined = !t->highlight || t->color || s == t->sel;
			if (!t->ascii && prev_dy >= 0 && joined) {
				from_y = prev_dy < dy ? prev_dy + 1 : dy;
				to_y = prev_dy > dy ? prev_dy - 1 : dy;
			}
			prev_dy = dy;
			for (int y = from_y; y <= to_y; y++) {
				size_t c = (size_t)(y >> shy) * (size_t)pw + (size_t)cx;
				t->dots[c] |= t->ascii ? 1 : braille_bit[dx % 2][y % 4];
				t->owner[c] = (uint8_t)s;
			}
			if (i == last)
				end_row = cy;
		}
		if (end_row >= 0) {
			attron(series_attr(t, s));
			mvaddch(y0 + end_row, AXIS_W + pw, (chtype)(unsigned char)series_letter(s));
			attroff(series_attr(t, s));
		}
	}
	for (int cy = 0; cy < rows; cy++) {
		const uint8_t *row = t->dots + (size_t)cy * (size_t)pw;
		for (int cx = 0; cx < pw; cx++) {
			uint64_t word;
			/* most cells are empty: eight looked at at once */
			if (cx + 8 <= pw && (memcpy(&word, row + cx, sizeof(word)), word == 0)) {
				cx += 7;
				continue;
			}
			if (!row[cx])
				continue;
			size_t cell = (size_t)cy * (size_t)pw + (size_t)cx;
			size_t s = t->owner[cell];
			attr_t a = series_attr(t, s);
			attron(a);
			if (t->ascii) {
				char c = series_letter(s);
				if (t->highlight && s != t->sel && !t->color)
					c = '.';
				mvaddch(y0 + cy, AXIS_W + cx, (chtype)(unsigned char)c);
			} else {
				/* the braille cell as a wide character: no UTF-8
				 * decoding per cell */
				wchar_t w[2] = { (wchar_t)(0x2800 + row[cx]), 0 };
				cchar_t cc;
				setcchar(&cc, w, a, t->color ? (short)(1 + s % 6) : 0, NULL);
				mvadd_wch(y0 + cy, AXIS_W + cx, &cc);
			}
			attroff(a);
		}
	}
}

/* The histogram: a bar per series of the chosen statistic. */
static void
draw_histogram(const struct tui *t, int y0, int rows)
{
	int pw = plot_width();
	uint64_t first = shown_first(t), last = shown_last(t);
	size_t nvis = 0, k = 0;
	double lo, hi;

	draw_axis(t, y0, rows);
	y_range(t, &lo, &hi);
	for (size_t s = 0; s < t->h.nseries; s++)
		nvis += series_visible(t, s);
	if (!nvis || rows < 2)
		return;
	int bw = pw / (int)nvis;
	if (bw > 8)
		bw = 8;
	if (bw < 1)
		bw = 1;
	for (size_t s = 0; s < t->h.nseries; s++) {
		struct tui_stats st;
		double v;
		if (!series_visible(t, s))
			continue;
		int x = AXIS_W + 1 + (int)k++ * (bw + 1);
		if (x + bw > AXIS_W + pw)
			break;
		tui_hist_stats(&t->h, s, first, last, &st);
		attron(series_attr(t, s));
		mvaddch(y0 + rows - 1, x, (chtype)(unsigned char)series_letter(s));
		attroff(series_attr(t, s));
		int has = t->stat == STAT_LAST ? st.has_last : st.n > 0;
		if (!has) {
			mvaddch(y0 + rows - 2, x, '-');
			continue;
		}
		v = t->stat == STAT_LAST ? st.last : t->stat == STAT_AVERAGE ? st.avg
						     : t->stat == STAT_MINIMUM ? st.min : st.max;
		double f = (v * scale_of(&t->h.series[s]) - lo) / (hi - lo);
		if (f < 0)
			f = 0;
		if (f > 1)
			f = 1;
		int h = (int)lround(f * (rows - 1));
		attron(series_attr(t, s));
		for (int r = 0; r < h; r++)
			for (int c = 0; c < bw; c++) {
				if (t->ascii)
					mvaddch(y0 + rows - 2 - r, x + c, '#');
				else
					mvaddstr(y0 + rows - 2 - r, x + c, "\xe2\x96\x88");
			}
		attroff(series_attr(t, s));
	}
}

/* The report's rows: a set line when the set changes, an instance line
 * when the instance changes, then a line per series. Returns the rows of
 * the whole report; *line is series want's row and *head the row of the
 * set or instance lines just above it (its own row when none), or -1 when
 * want is not shown. */
static int
report_walk(const struct tui *t, size_t want, int *line, int *head)
{
	const char *set = NULL, *inst = NULL;
	int y = 0;

	*line = *head = -1;
	for (size_t s = 0; s < t->h.nseries; s++) {
		const struct tui_series *se = &t->h.series[s];
		int top = y;
		if (!series_visible(t, s))
			continue;
		if (!set || strcmp(set, se->set) != 0) {
			y++;
			set = se->set;
			inst = NULL;
		}
		if (se->instance && (!inst || strcmp(inst, se->instance) != 0)) {
			y++;
			inst = se->instance;
		}
		if (s == want) {
			*line = y;
			*head = top;
		}
		y++;
	}
	return y;
}

/* Scroll the report so that the selected series (and the set and instance
 * lines above it, when they fit) is on a screen of rows rows. */
static void
report_scroll(struct tui *t, int rows)
{
	int line, head;

	t->report_total = report_walk(t, t->sel, &line, &head);
	t->report_rows = rows;
	if (line >= 0) {
		if (line < t->report_top)
			t->report_top = line - head < rows ? head : line;
		if (line >= t->report_top + rows)
			t->report_top = line - rows + 1;
	}
	if (t->report_top > t->report_total - rows)
		t->report_top = t->report_total - rows;
	if (t->report_top < 0)
		t->report_top = 0;
}

/* The report: every series by set and instance, value, unit, status;
 * rows report_top on. */
static void
draw_report(struct tui *t, int y0, int rows)
{
	uint64_t last = shown_last(t);
	const char *set = NULL, *inst = NULL;
	int row = 0, top;

	report_scroll(t, rows);
	top = t->report_top;
	for (size_t s = 0; s < t->h.nseries && row < top + rows; s++) {
		const struct tui_series *se = &t->h.series[s];
		char val[64] = "-", line[512];
		double v = 0;
		if (!series_visible(t, s))
			continue;
		if (!set || strcmp(set, se->set) != 0) {
			if (row >= top) {
				attron(A_BOLD);
				put_clipped(t, y0 + row - top, 0, se->set, COLS);
				attroff(A_BOLD);
			}
			row++;
			set = se->set;
			inst = NULL;
		}
		if (se->instance && (!inst || strcmp(inst, se->instance) != 0)) {
			if (row >= top && row < top + rows)
				put_clipped(t, y0 + row - top, 2, se->instance, COLS - 2);
			row++;
			inst = se->instance;
		}
		if (row < top || row >= top + rows) {
			row++;
			continue;
		}
		uint8_t st = tui_hist_get(&t->h, last, s, &v);
		if ((st & TUI_HAS_VALUE) && st != TUI_NO_ROW) {
			format_value_human(val, sizeof(val) - 8, v, t->cfg->precision);
			if (se->unit[0])
				snprintf(val + strlen(val), sizeof(val) - strlen(val), " %s", se->unit);
		}
		snprintf(line, sizeof(line), "%-40.40s %18s  %s", se->counter, val,
			 st == TUI_NO_ROW ? "-" : status_name((enum value_status)(st & 0x7f)));
		if (s == t->sel)
			attron(A_REVERSE);
		put_clipped(t, y0 + row - top, 4, line, COLS - 4);
		if (s == t->sel)
			attroff(A_REVERSE);
		row++;
	}
}

/* Report view: PgUp/PgDn move the selection a screen of rows, Home/End to
 * the first and last series. */
static void
report_key(struct tui *t, int ch)
{
	int line, head, rows;
	size_t best = t->sel;

	report_scroll(t, LINES - 3); /* the rows draw gives the report */
	rows = t->report_rows > 1 ? t->report_rows : 1;

	if (ch == KEY_HOME || ch == KEY_END) {
		for (size_t s = 0; s < t->h.nseries; s++)
			if (series_visible(t, s)) {
				best = s;
				if (ch == KEY_HOME)
					break;
			}
		t->sel = best;
		return;
	}
	/* a screen on, as a pager; the selection follows onto the screen */
	t->report_top += ch == KEY_NPAGE ? rows - 1 : -(rows - 1);
	if (t->report_top > t->report_total - rows)
		t->report_top = t->report_total - rows;
	if (t->report_top < 0)
		t->report_top = 0;
	report_walk(t, t->sel, &line, &head);
	if (line >= t->report_top && line < t->report_top + rows)
		return;
	for (size_t s = 0; s < t->h.nseries; s++) {
		int l, h;
		if (!series_visible(t, s))
			continue;
		report_walk(t, s, &l, &h);
		if (l >= t->report_top && l < t->report_top + rows) {
			best = s;
			if (ch == KEY_NPAGE)
				break; /* the first on the new screen */
		}
	}
	t->sel = best;
}

/* The status line at a level of shortening: 0 says everything; each level
 * up gives way one more part (the REC file name, the duration, the date,
 * the interval, the words "paused" and "sample") so that the counts of
 * values that are not OK, which come last, always fit. */
static size_t
format_status(const struct tui *t, char *buf, size_t n, int level)
{
	char tm[64] = "-", iv[32], dur[32];
	size_t o = 0;
	uint64_t last = shown_last(t), first = shown_first(t);
	unsigned counts[8] = { 0 };

#define ADD(...)                                                                              \
	do {                                                                                  \
		if (o < n)                                                                    \
			o += (size_t)snprintf(buf + o, n - o, __VA_ARGS__);                   \
	} while (0)
	buf[0] = '\0';
	if (t->h.n)
		format_wall(tm, sizeof(tm), tui_hist_wall(&t->h, last), t->cfg->utc);
	format_secs(iv, sizeof(iv), shown_interval(t));
	/* what the screen spans: from the read before its first sample (a
	 * live run knows it, whatever the interval has become since) */
	if (t->h.n && first > tui_hist_first(&t->h))
		format_secs(dur, sizeof(dur), (double)(tui_hist_wall(&t->h, last) -
						       tui_hist_wall(&t->h, first - 1)) / 1e9);
	else if (t->h.n && !t->finite && t->h.span_start)
		format_secs(dur, sizeof(dur),
			    (double)(tui_hist_wall(&t->h, last) - t->h.span_start) / 1e9);
	else
		format_secs(dur, sizeof(dur), t->h.n ? (double)(tui_hist_wall(&t->h, last) -
							       tui_hist_wall(&t->h, first)) / 1e9 +
							      shown_interval(t) : 0);
	if (t->finite) {
		if (t->h.n == 0 || t->cursor + 1 >= t->h.n)
			ADD("END");
		else if (t->playing && speeds[t->speed])
			ADD("REPLAY %dx", speeds[t->speed]);
		else if (t->playing)
			ADD("REPLAY max");
		else
			ADD(level >= 5 ? "PAUSED" : "REPLAY paused");
	} else {
		ADD("%s", t->ended ? "END" : t->frozen ? "FROZEN" : "LIVE");
	}
	/* "YYYY-MM-DD HH:MM:SS": the time alone from level 3 */
	ADD("  %s", level >= 3 && strlen(tm) > 11 ? tm + 11 : tm);
	if (t->finite)
		ADD(level >= 5 ? "  %llu/%llu" : "  sample %llu/%llu",
		    (unsigned long long)(t->h.n ? last + 1 : 0), (unsigned long long)t->h.n);
	if (level < 4)
		ADD("  interval %s", iv);
	if (level < 2)
		ADD("  duration %s", dur);
	if (t->log_fd >= 0) {
		struct stat st;
		char size[32] = "?";
		const char *base = strrchr(t->log_name, '/');
		if (fstat(t->log_fd, &st) == 0)
			format_bytes(size, sizeof(size), (double)st.st_size);
		if (level >= 1)
			ADD("  REC %s", size);
		else
			ADD("  REC %s %s", base ? base + 1 : t->log_name, size);
	}
	for (size_t s = 0; s < t->h.nseries && t->h.n; s++) {
		double v;
		uint8_t st;
		if (!series_visible(t, s))
			continue;
		st = tui_hist_get(&t->h, last, s, &v);
		if (st != TUI_NO_ROW && (st & 0x7f) != ST_OK && (st & 0x7f) < 8)
			counts[st & 0x7f]++;
	}
	for (int k = 1; k < 8; k++)
		if (counts[k])
			ADD("  %s %u", status_name((enum value_status)k), counts[k]);
#undef ADD
	return o < n ? o : n - 1;
}

/* The status line: mode, time, sample, interval, span, REC, statuses,
 * shortened until it fits the screen. */
static void
draw_status(const struct tui *t, int y)
{
	char buf[512];

	for (int level = 0; level <= 5; level++)
		if ((int)format_status(t, buf, sizeof(buf), level) <= COLS)
			break;
	attron(A_REVERSE);
	mvhline(y, 0, ' ', COLS);
	put_clipped(t, y, 0, buf, COLS);
	attroff(A_REVERSE);
}

static const char *const help_lines[] = {
	"getcounter --tui: keys",
	"",
	"  1 2 3        Graph, Histogram, Report view     v      histogram: last/avg/min/max",
	"  Up Down      select a series                   h      highlight the selected series",
	"  < >          scale the selected series x0.1 / x10",
	"  =            autoscale the selected series     A      autoscale every series",
	"  Y            y axis 0-100 / fitted to the data",
	"  a Insert     add a counter (Tab completes, a second Tab lists; Enter adds, Esc cancels)",
	"  d Delete     remove the selected series from the screen",
	"  Space p      live: freeze the display (sampling and --log go on); replay: play/pause",
	"  + -          live: interval 0.1 0.2 0.5 1 2 5 10 30 60 s; replay: speed 1x .. 64x, max",
	"  Left Right   replay: one sample back / forward",
	"  PgUp PgDn    replay: one screen back / forward; report: a screen up / down",
	"  Home End     replay: the first / last sample; report: the first / last series",
	"  g            replay: go to a time (2026-11-22T10:00:00, 11/22/2026 10:00:00, +5m, -30s)",
	"  Ctrl-L       redraw                            ?      this screen",
	"  q Ctrl-C     quit",
	"",
	"Values that are not OK (FIRST NEW RESET NO_INSTANCE UNSUPPORTED BAD_TIME) are gaps.",
	"Press any key.",
};

/* The prompt line, and the listed candidates above it. */
static void
draw_prompt(const struct tui *t, int y)
{
	const char *label = t->prompt == PROMPT_ADD ? "add counter: " : "go to: ";
	int lw = (int)strlen(label);

	put_str(y, 0, label);
	/* show the end of a long input */
	const char *in = t->input;
	if ((int)t->ilen > COLS - lw - 1)
		in += t->ilen - (size_t)(COLS - lw - 1);
	put_clipped(t, y, lw, in, COLS - lw - 1);
	if (t->listing[0]) {
		/* the candidates above the prompt, one line each */
		int n = 0;
		for (const char *p = t->listing; *p; p++)
			n += *p == '\n';
		int yy = y - n;
		if (yy < 1)
			yy = 1;
		const char *p = t->listing;
		while (*p && yy < y) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			char line[256];
			snprintf(line, sizeof(line), "%.*s", (int)len, p);
			mvhline(yy, 0, ' ', COLS);
			put_clipped(t, yy++, 2, line, COLS - 2);
			p += len + (nl ? 1 : 0);
		}
	}
}

/* Draw the whole screen into curses' buffer and send what changed. */
static void
draw(struct tui *t)
{
	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		char buf[80];
		int n = snprintf(buf, sizeof(buf), "terminal too small: %dx%d, need %dx%d", COLS, LINES,
				 MIN_COLS, MIN_LINES);
		put_str(LINES / 2, COLS > n ? (COLS - n) / 2 : 0, buf);
		wnoutrefresh(stdscr);
		doupdate();
		return;
	}
	if (t->help) {
		for (size_t i = 0; i < ARRAY_SIZE(help_lines) && (int)i < LINES; i++)
			put_clipped(t, (int)i, 0, help_lines[i], COLS);
		wnoutrefresh(stdscr);
		doupdate();
		return;
	}
	int legend = t->view == VIEW_REPORT ? 0 : legend_rows(t);
	int body = LINES - 1 - 2 - legend;
	if (t->view == VIEW_GRAPH)
		draw_graph(t, 1, body);
	else if (t->view == VIEW_HISTOGRAM)
		draw_histogram(t, 1, body);
	else
		draw_report(t, 1, body);
	if (legend)
		draw_legend(t, 1 + body, legend);
	draw_tabs(t); /* after the report, which sets its rows */
	draw_status(t, LINES - 2);
	if (t->prompt != PROMPT_NONE) {
		draw_prompt(t, LINES - 1);
		curs_set(1);
	} else {
		curs_set(0);
		if (t->msg[0])
			put_clipped(t, LINES - 1, 0, t->msg, COLS);
		else if (t->h.dropped)
			mvprintw(LINES - 1, 0, "%zu series not shown: at most %d", t->h.dropped,
				 TUI_MAX_SERIES);
	}
	if (t->prompt != PROMPT_NONE) {
		int lw = t->prompt == PROMPT_ADD ? 13 : 7;
		int x = lw + ((int)t->ilen > COLS - lw - 1 ? COLS - lw - 1 : (int)t->ilen);
		move(LINES - 1, x);
	}
	wnoutrefresh(stdscr);
	doupdate();
}

/* Size the grid for this screen (on start and on resize only). */
static void
layout(struct tui *t)
{
	size_t need = (size_t)(LINES > 0 ? LINES : 1) * (size_t)(COLS > 0 ? COLS : 1);

	if (need > t->grid_cap) {
		free(t->dots);
		free(t->owner);
		t->dots = xcalloc(need, 1);
		t->owner = xcalloc(need, 1);
		t->grid_cap = need;
	}
}

/* ---- the source --------------------------------------------------------- */

static void
autoscale(struct tui *t, size_t s)
{
	struct tui_stats st;

	tui_hist_stats(&t->h, s, shown_first(t), shown_last(t), &st);
	t->h.series[s].scale_exp = tui_autoscale_exp(st.n ? st.max : 0);
}

/* Push a frame, autoscaling each series once it first has a value. */
static void
push_frame(struct tui *t, const struct frame *f)
{
	if (t->h.n == 0 && !t->finite) /* the first sample spans one interval */
		t->h.span_start = f->wall_ns - (int64_t)(t->interval * 1e9);
	tui_hist_push(&t->h, f);
	for (size_t s = 0; s < t->h.nseries; s++) {
		double v;
		struct tui_series *se = &t->h.series[s];
		if (!se->scaled && (tui_hist_get(&t->h, t->h.n - 1, s, &v) & TUI_HAS_VALUE)) {
			se->scale_exp = tui_autoscale_exp(v);
			se->scaled = 1;
		}
	}
}

/* Read a finite source whole into the history. 0, or -1 with err. */
static int
load_all(struct tui *t)
{
	const struct config *cfg = t->cfg;
	size_t reads = cfg->nroots ? cfg->nroots : SIZE_MAX;
	int snapshot = cfg->nroots == 1;

	tui_hist_clear(&t->h);
	for (size_t r = 0; r < reads; r++) {
		const struct frame *f;
		int rc = engine_step(*t->e, cfg->nroots ? r : 0, snapshot, &f, t->err);
		if (rc < 0)
			return -1;
		if (rc > 0)
			break;
		if (f)
			push_frame(t, f);
		if (cfg->samples_given && t->h.n >= (uint64_t)cfg->samples)
			break; /* -n N: the first N samples */
	}
	return 0;
}

/* Fire every secs (0: stop). */
static void
arm_timer(struct tui *t, double secs)
{
	struct itimerspec its;
	long long ns = (long long)(secs * 1e9 + 0.5);

	memset(&its, 0, sizeof(its));
	if (secs > 0) {
		its.it_value.tv_sec = (time_t)(ns / 1000000000);
		its.it_value.tv_nsec = (long)(ns % 1000000000);
		its.it_interval = its.it_value;
	}
	timerfd_settime(t->timer_fd, 0, &its, NULL);
	t->deadline = now_mono_ns() + (uint64_t)ns;
}

/* Arm the replay's play timer for the current speed (or stop it). */
static void
arm_play(struct tui *t)
{
	if (!t->playing || !speeds[t->speed]) {
		arm_timer(t, 0);
		return;
	}
	double iv = shown_interval(t);
	if (iv <= 0)
		iv = 1;
	arm_timer(t, iv / speeds[t->speed]);
}

/* One live read at the monotonic deadline (the time it stands for; a
 * source with its own clock works until then): 0, or -1 with err. */
static int
live_step(struct tui *t, uint64_t deadline)
{
	const struct frame *f;
	int rc;

	if (t->ended)
		return 0;
	if (engine_wait(*t->e, deadline, t->err) < 0)
		return -1;
	rc = engine_step(*t->e, 0, 0, &f, t->err);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		t->ended = 1;
		arm_timer(t, 0);
		return 0;
	}
	if (f) {
		push_frame(t, f);
		/* -n N: N samples, then the screen stays until q */
		if (t->cfg->samples_given && ++t->nframes >= (uint64_t)t->cfg->samples) {
			t->ended = 1;
			arm_timer(t, 0);
		}
	}
	return 0;
}

/* The timer ticked exp times since it was read: read once, at the last
 * tick (the ones before it were missed, as engine_run skips a deadline a
 * read overran). 0, or -1 with err. */
static int
live_tick(struct tui *t, uint64_t exp)
{
	uint64_t iv = (uint64_t)(t->interval * 1e9 + 0.5);
	uint64_t deadline = t->deadline + (exp ? exp - 1 : 0) * iv;

	t->deadline = deadline + iv;
	return live_step(t, deadline);
}

/* Reopen the engine on t->paths: 0, or -1 with the error in err (the old
 * engine then stays). */
static int
reopen(struct tui *t, struct err *err)
{
	int rc;
	/* the sets open already stay open: a capture cannot open again
	 * once it has given up its privileges */
	struct engine *ne = engine_reopen(*t->e, &t->cfg_reopen, (const char *const *)t->paths,
					  t->npaths, &rc, err);

	if (!ne)
		return -1;
	/* the old writer closes first: the new one continues the file */
	engine_close(*t->e);
	*t->e = ne;
	tui_hist_forget_columns(&t->h);
	if (t->log_fd >= 0 && engine_log_open(ne, t->log_fd, t->log_name, 0, err) < 0) {
		/* the log cannot go on: say so and stop */
		*t->err = *err;
		t->fatal = 1;
		return -1;
	}
	if (t->finite) {
		uint64_t cursor = t->cursor;
		if (load_all(t) < 0)
			return -1;
		t->cursor = t->h.n && cursor >= t->h.n ? t->h.n - 1 : cursor;
		return 0;
	}
	/* the first read primes, standing for now (a capture taken over
	 * counts up to now, so the next rate spans only the time since) */
	return live_step(t, now_mono_ns());
}

/* ---- the add-counter prompt --------------------------------------------- */

static void
cands_add(struct tui *t, size_t *cap, const char *line)
{
	for (size_t i = 0; i < t->ncands; i++)
		if (strcmp(t->cands[i], line) == 0)
			return;
	xgrow((void **)&t->cands, cap, t->ncands + 1, sizeof(*t->cands));
	t->cands[t->ncands++] = xstrdup(line);
}

/* Every path of the registry: sets and counters, and the instances that
 * exist now (or that the log holds), from the listing -q and -qx print. */
static void
load_candidates(struct tui *t)
{
	size_t cap = 0;

	for (int inst = 0; inst < 2; inst++) {
		struct config c = *t->cfg;
		struct err err;
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);
		if (!mem)
			return;
		c.mode = MODE_LIST_PATHS;
		c.instances = inst;
		c.patterns = NULL;
		c.npatterns = 0;
		c.verbose = 0;
		engine_list(&c, mem, &err);
		fclose(mem);
		for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			if (line[0] == '\\')
				cands_add(t, &cap, line);
		}
		free(buf);
	}
}

/* The part of a candidate after the typed prefix, up to and including the
 * next '(' or '\', or to its end. */
static size_t
next_part(const char *rest)
{
	size_t i = 0;

	while (rest[i] && rest[i] != '(' && rest[i] != '\\')
		i++;
	if (rest[i])
		i++;
	return i;
}

/* Tab: complete the input one part, or (a second Tab) list the parts. */
static void
complete(struct tui *t, int list_only)
{
	size_t lcp = 0, n = 0, o = 0;
	const char *first = NULL;

	if (!t->cands)
		load_candidates(t);
	for (size_t i = 0; i < t->ncands; i++) {
		const char *c = t->cands[i];
		if (strncasecmp(c, t->input, t->ilen) != 0)
			continue;
		if (!first) {
			first = c;
			lcp = strlen(c);
		} else {
			size_t k = t->ilen;
			while (k < lcp && c[k] && tolower((unsigned char)c[k]) ==
							  tolower((unsigned char)first[k]))
				k++;
			lcp = k;
		}
		n++;
	}
	if (!first) {
		snprintf(t->msg, sizeof(t->msg), "no counter path begins with '%s'", t->input);
		t->listing[0] = '\0';
		return;
	}
	/* complete to the common prefix, but only one part at a time */
	size_t upto = t->ilen + next_part(first + t->ilen);
	if (lcp > upto)
		lcp = upto;
	if (!list_only && lcp > t->ilen && lcp < sizeof(t->input)) {
		memcpy(t->input, first, lcp);
		t->input[lcp] = '\0';
		t->ilen = lcp;
		t->tabs = 1;
		t->listing[0] = '\0';
		return;
	}
	if (!t->tabs++ && n > 1)
		return;
	/* the second Tab: list the next parts, filtered by what is typed */
	t->listing[0] = '\0';
	size_t shown = 0;
	for (size_t i = 0; i < t->ncands && shown < 12; i++) {
		const char *c = t->cands[i];
		if (strncasecmp(c, t->input, t->ilen) != 0)
			continue;
		size_t len = next_part(c + t->ilen);
		char part[1024];
		snprintf(part, sizeof(part), "%s%.*s\n", t->input, (int)len, c + t->ilen);
		if (strstr(t->listing, part))
			continue;
		if (o + strlen(part) + 1 >= sizeof(t->listing))
			break;
		memcpy(t->listing + o, part, strlen(part) + 1);
		o += strlen(part);
		shown++;
	}
}

/* Nonzero when the run captures live (and so has given up its privileges
 * for good). */
static int
captures(const struct tui *t)
{
	static const char set[] = "\\Network Capture";

	if (t->cfg->capture.nfiles)
		return 0;
	for (size_t i = 0; i < t->npaths; i++)
		if (strncasecmp(path_without_host(t->paths[i]), set, sizeof(set) - 1) == 0)
			return 1;
	return 0;
}

/* Enter at the add prompt: reopen the engine with the path added. */
static void
add_counter(struct tui *t)
{
	struct err err;
	size_t before = t->h.nseries;

	if (!t->ilen)
		return;
	/* series removed with d that the path names come back: they were
	 * sampled all along */
	size_t shown_again = 0, first_again = SIZE_MAX;
	uint32_t again = 0; /* a bit per series shown again (TUI_MAX_SERIES) */
	const char *want = path_without_host(t->input);
	for (size_t s = 0; s < t->h.nseries; s++) {
		struct tui_series *se = &t->h.series[s];
		if (se->hidden && glob_match_ci(want, path_without_host(se->path))) {
			se->hidden = 0;
			again |= (uint32_t)1 << s;
			shown_again++;
			if (first_again == SIZE_MAX)
				first_again = s;
		}
	}
	int known = 0;
	for (size_t i = 0; i < t->npaths; i++)
		known |= strcasecmp(path_without_host(t->paths[i]), want) == 0;
	if (known) {
		/* the engine samples it already: nothing to reopen */
		snprintf(t->msg, sizeof(t->msg), "added '%s': %zu series", t->input, shown_again);
		if (shown_again)
			t->sel = first_again;
		return;
	}
	if (!t->finite && t->ended) {
		snprintf(t->msg, sizeof(t->msg), "the run has ended: nothing more is read");
		goto hide_again;
	}
	if (t->finite && t->log_fd >= 0) {
		snprintf(t->msg, sizeof(t->msg), "a replay recorded with --log is recorded once: "
						 "give every path on the command line");
		goto hide_again;
	}
	t->paths = xrealloc(t->paths, (t->npaths + 1) * sizeof(*t->paths));
	t->paths[t->npaths++] = xstrdup(t->input);
	if (reopen(t, &err) < 0) {
		free(t->paths[--t->npaths]);
		if (strstr(err.msg, " needs CAP_NET_RAW") && captures(t))
			/* not "run as root": it was, until its capture began */
			snprintf(t->msg, sizeof(t->msg), "not added: the run gave up "
				 "CAP_NET_RAW when its capture began; name every capture on the "
				 "command line");
		else
			snprintf(t->msg, sizeof(t->msg), "%s", err.msg);
		goto hide_again;
	}
	size_t added = t->h.nseries - before + shown_again;
	if (first_again < before)
		before = first_again;
	if (!t->finite && engine_notice(*t->e))
		/* e.g. the eBPF counters after a capture gave up the privileges */
		snprintf(t->msg, sizeof(t->msg), "added, but %s", engine_notice(*t->e));
	else if (!t->finite)
		snprintf(t->msg, sizeof(t->msg), "added '%s': its values start with the next read",
			 t->input);
	else if (t->h.dropped)
		snprintf(t->msg, sizeof(t->msg), "'%s' would make more than %d series: %zu not shown",
			 t->input, ADD_MAX_SERIES, t->h.dropped);
	else
		snprintf(t->msg, sizeof(t->msg), "added '%s': %zu series", t->input, added);
	if (added)
		t->sel = before;
	return;
hide_again:
	for (size_t s = 0; s < t->h.nseries; s++)
		if (again & ((uint32_t)1 << s))
			t->h.series[s].hidden = 1;
}

/* ---- keys --------------------------------------------------------------- */

static void
go_to(struct tui *t, uint64_t i)
{
	if (!t->finite || t->h.n == 0)
		return;
	t->cursor = i >= t->h.n ? t->h.n - 1 : i;
}

/* Enter at the go-to prompt: the first sample at or after the time. */
static void
goto_time(struct tui *t)
{
	int64_t target;
	int64_t now = t->h.n ? tui_hist_wall(&t->h, t->cursor) : 0;

	if (tui_parse_goto(t->input, now, &target) < 0) {
		snprintf(t->msg, sizeof(t->msg), "'%s' is not a time (2026-11-22T10:00:00, "
						 "11/22/2026 10:00:00, +5m, -30s)", t->input);
		return;
	}
	uint64_t i = 0;
	while (i + 1 < t->h.n && tui_hist_wall(&t->h, i) < target)
		i++;
	go_to(t, i);
}

/* A key while a prompt is open. */
static void
prompt_key(struct tui *t, int ch)
{
	if (ch == 27) { /* Esc */
		t->prompt = PROMPT_NONE;
		t->listing[0] = '\0';
		return;
	}
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		enum prompt_kind k = t->prompt;
		t->prompt = PROMPT_NONE;
		t->listing[0] = '\0';
		t->msg[0] = '\0';
		if (k == PROMPT_ADD)
			add_counter(t);
		else
			goto_time(t);
		return;
	}
	if (ch == '\t' && t->prompt == PROMPT_ADD) {
		t->msg[0] = '\0';
		complete(t, 0);
		return;
	}
	if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (t->ilen)
			t->input[--t->ilen] = '\0';
	} else if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && t->ilen + 1 < sizeof(t->input)) {
		t->input[t->ilen++] = (char)ch;
		t->input[t->ilen] = '\0';
	} else {
		return;
	}
	t->tabs = 0;
	if (t->listing[0]) { /* the list follows what is typed */
		t->tabs = 1;
		complete(t, 1);
		if (t->listing[0] == '\0')
			t->tabs = 0;
	}
}

/* Select the next or previous series still drawn. */
static void
select_step(struct tui *t, int dir)
{
	size_t s = t->sel;

	for (size_t k = 0; k < t->h.nseries; k++) {
		if (dir < 0 && s == 0)
			return;
		s = dir < 0 ? s - 1 : s + 1;
		if (s >= t->h.nseries)
			return;
		if (series_visible(t, s)) {
			t->sel = s;
			return;
		}
	}
}

/* + and - live: the next shorter or longer interval of the list. */
static void
change_interval(struct tui *t, int dir)
{
	size_t k = 0;

	if (dir > 0) {
		while (k + 1 < ARRAY_SIZE(intervals) && intervals[k] <= t->interval + 1e-9)
			k++;
		if (intervals[k] <= t->interval + 1e-9)
			return;
	} else {
		k = ARRAY_SIZE(intervals) - 1;
		while (k > 0 && intervals[k] >= t->interval - 1e-9)
			k--;
		if (intervals[k] >= t->interval - 1e-9)
			return;
	}
	t->interval = intervals[k];
	if (!t->ended)
		arm_timer(t, t->interval);
}

/* One key outside a prompt. */
static void
key(struct tui *t, int ch)
{
	uint64_t page = window_samples(t);

	if (t->help) {
		t->help = 0;
		return;
	}
	if (t->prompt != PROMPT_NONE) {
		prompt_key(t, ch);
		return;
	}
	t->msg[0] = '\0';
	switch (ch) {
	case 'q':
	case 3: /* Ctrl-C */
		t->quit = 1;
		break;
	case '?':
		t->help = 1;
		break;
	case 12: /* Ctrl-L */
		clearok(curscr, TRUE);
		break;
	case '1': t->view = VIEW_GRAPH; break;
	case '2': t->view = VIEW_HISTOGRAM; break;
	case '3': t->view = VIEW_REPORT; break;
	case 'v': t->stat = (enum stat_kind)((t->stat + 1) % 4); break;
	case KEY_UP: select_step(t, -1); break;
	case KEY_DOWN: select_step(t, 1); break;
	case 'h': t->highlight = !t->highlight; break;
	case '<':
		if (t->sel < t->h.nseries && t->h.series[t->sel].scale_exp > -9)
			t->h.series[t->sel].scale_exp--;
		break;
	case '>':
		if (t->sel < t->h.nseries && t->h.series[t->sel].scale_exp < 9)
			t->h.series[t->sel].scale_exp++;
		break;
	case '=':
		if (t->sel < t->h.nseries)
			autoscale(t, t->sel);
		break;
	case 'A':
		for (size_t s = 0; s < t->h.nseries; s++)
			autoscale(t, s);
		break;
	case 'Y': t->yfit = !t->yfit; break;
	case ' ':
	case 'p':
		if (t->finite) {
			if (t->cursor + 1 >= t->h.n)
				break;
			t->playing = !t->playing;
			arm_play(t);
		} else {
			t->frozen = !t->frozen;
			t->frozen_n = t->h.n;
		}
		break;
	case '+':
	case '-':
		if (t->finite) {
			int sp = t->speed + (ch == '+' ? 1 : -1);
			if (sp >= 0 && sp < (int)ARRAY_SIZE(speeds))
				t->speed = sp;
			arm_play(t);
		} else {
			change_interval(t, ch == '+' ? -1 : 1);
		}
		break;
	case KEY_PPAGE:
	case KEY_NPAGE:
	case KEY_HOME:
	case KEY_END:
		if (t->view == VIEW_REPORT) {
			report_key(t, ch);
			break;
		}
		if (ch == KEY_PPAGE)
			go_to(t, t->cursor > page ? t->cursor - page : 0);
		else if (ch == KEY_NPAGE)
			go_to(t, t->cursor + page);
		else
			go_to(t, ch == KEY_HOME ? 0 : UINT64_MAX - 1);
		break;
	case KEY_LEFT: if (t->cursor) go_to(t, t->cursor - 1); break;
	case KEY_RIGHT: go_to(t, t->cursor + 1); break;
	case 'g':
		if (!t->finite) {
			snprintf(t->msg, sizeof(t->msg), "g goes to a time in a replay (--input)");
			break;
		}
		t->prompt = PROMPT_GOTO;
		t->ilen = 0;
		t->input[0] = '\0';
		break;
	case 'a':
	case KEY_IC:
		/* candidates afresh: instances come and go */
		for (size_t i = 0; i < t->ncands; i++)
			free(t->cands[i]);
		free(t->cands);
		t->cands = NULL;
		t->ncands = 0;
		t->prompt = PROMPT_ADD;
		t->ilen = 0;
		t->input[0] = '\0';
		t->tabs = 0;
		t->listing[0] = '\0';
		break;
	case 'd':
	case KEY_DC:
		if (series_visible(t, t->sel)) {
			t->h.series[t->sel].hidden = 1;
			snprintf(t->msg, sizeof(t->msg), "removed %s",
				 path_without_host(t->h.series[t->sel].path));
			select_step(t, 1);
			if (!series_visible(t, t->sel))
				select_step(t, -1);
		}
		break;
	case KEY_RESIZE:
		layout(t);
		break;
	default:
		break;
	}
	if (t->finite && t->playing && t->cursor + 1 >= t->h.n) {
		t->playing = 0;
		arm_play(t);
	}
}

/* ---- the loop ----------------------------------------------------------- */

/* Colours through terminfo, unless NO_COLOR (non-empty) or --no-color. */
static void
setup_colors(struct tui *t)
{
	static const short palette[] = { COLOR_GREEN, COLOR_RED,     COLOR_CYAN,
					 COLOR_YELLOW, COLOR_MAGENTA, COLOR_BLUE };
	const char *nc = getenv("NO_COLOR");

	t->color = 0;
	if (t->cfg->no_color || (nc && *nc) || !has_colors())
		return;
	if (start_color() != OK)
		return;
	use_default_colors();
	for (short i = 0; i < 6; i++)
		init_pair((short)(i + 1), palette[i], -1);
	t->color = 1;
}

/* ASCII when asked, when the codeset is not UTF-8, or on linux/vt100. */
static int
want_ascii(const struct config *cfg)
{
	const char *term = getenv("TERM");
	const char *cs = nl_langinfo(CODESET);

	if (cfg->ascii)
		return 1;
	if (!cs || strcasecmp(cs, "UTF-8") != 0)
		return 1;
	return term && (strcmp(term, "linux") == 0 || strncmp(term, "vt100", 5) == 0);
}

/* Wait on the terminal and the timer; read, step, draw. 0, or -1 with err. */
static int
loop(struct tui *t)
{
	struct pollfd pfd[2] = { { STDIN_FILENO, POLLIN, 0 }, { t->timer_fd, POLLIN, 0 } };
	int dirty = 1;

	while (!t->quit && !term_requested && !t->fatal) {
		int max_play = t->finite && t->playing && !speeds[t->speed];
		if (dirty)
			draw(t);
		dirty = 0;
		int n = poll(pfd, 2, max_play ? 0 : -1);
		if (n < 0 && errno != EINTR)
			return err_set(t->err, "poll: %s", strerror(errno));
		if (n > 0 && (pfd[1].revents & POLLIN)) {
			uint64_t exp;
			if (read(t->timer_fd, &exp, sizeof(exp)) == (ssize_t)sizeof(exp)) {
				if (t->finite) {
					go_to(t, t->cursor + 1);
					dirty = 1;
				} else {
					if (live_tick(t, exp) < 0)
						return -1;
					/* frozen: sampling goes on, the screen waits */
					dirty = !t->frozen;
				}
			}
		}
		if (max_play) {
			go_to(t, t->cursor + 1);
			dirty = 1;
		}
		int ch;
		while ((ch = getch()) != ERR) {
			key(t, ch);
			dirty = 1;
			if (t->quit || t->fatal)
				break;
		}
		if (n < 0)
			dirty = 1; /* a signal: perhaps SIGWINCH */
		if (t->finite && t->playing && t->cursor + 1 >= t->h.n) {
			t->playing = 0;
			arm_play(t);
			dirty = 1;
		}
	}
	return 0;
}

int
tui_run(struct engine **e, const struct config *cfg, int log_fd, struct err *err)
{
	struct tui t;
	int rc = EXIT_OK, saved_err = -1, err_mem = -1;
	struct sigaction sa;
	size_t np;
	const char *const *paths = engine_paths(*e, &np);

	memset(&t, 0, sizeof(t));
	t.cfg = cfg;
	t.cfg_reopen = *cfg;
	t.cfg_reopen.append = 1;
	t.cfg_reopen.yes = 0;
	t.e = e;
	t.err = err;
	t.log_fd = log_fd;
	t.log_name = cfg->log_file ? cfg->log_file : "";
	t.finite = cfg->ninputs > 0 || cfg->nroots > 0 || cfg->capture.nfiles > 0;
	t.interval = cfg->interval;
	t.paths = xcalloc(np + 1, sizeof(*t.paths));
	for (size_t i = 0; i < np; i++)
		t.paths[i] = xstrdup(paths[i]);
	t.npaths = np;
	tui_hist_init(&t.h, t.finite ? 1024 : LIVE_KEEP, t.finite);
	t.ascii = want_ascii(cfg);
	t.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (t.timer_fd < 0) {
		err_set(err, "timerfd_create: %s", strerror(errno));
		rc = EXIT_RUNTIME;
		goto out;
	}
	/* what the engine says on stderr would tear the screen: keep it and
	 * print it after the screen is gone */
	fflush(stderr);
	err_mem = memfd_create("getcounter-stderr", MFD_CLOEXEC);
	if (err_mem >= 0) {
		saved_err = dup(STDERR_FILENO);
		dup2(err_mem, STDERR_FILENO);
	}
	if (t.finite) {
		if (load_all(&t) < 0) {
			rc = EXIT_RUNTIME;
			goto out;
		}
	} else if (live_step(&t, now_mono_ns()) < 0) { /* the first read primes */
		rc = EXIT_RUNTIME;
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &sa, NULL); /* a kill -INT: Ctrl-C itself is a key */
	if (!newterm(NULL, stdout, stdin)) {
		err_set(err, "--tui: cannot use the terminal (TERM=%s)",
			getenv("TERM") ? getenv("TERM") : "");
		rc = EXIT_RUNTIME;
		goto out;
	}
	/* ncurses flushes after every cursor move until the screen has been
	 * suspended and resumed once: do that now, so that a refresh is one
	 * write instead of one per changed run of cells */
	endwin();
	refresh();
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	/* no input checks in the middle of an update: one write per refresh */
	typeahead(-1);
	/* what terminals (and tmux) send besides the terminfo entry */
	define_key("\033[1~", KEY_HOME);
	define_key("\033[4~", KEY_END);
	define_key("\033[H", KEY_HOME);
	define_key("\033[F", KEY_END);
	define_key("\033OH", KEY_HOME);
	define_key("\033OF", KEY_END);
	curs_set(0);
	setup_colors(&t);
	layout(&t);
	if (!t.finite)
		arm_timer(&t, t.interval);
	if (loop(&t) < 0 || t.fatal)
		rc = EXIT_RUNTIME;
	endwin();
out:
	if (saved_err >= 0) {
		/* hand on what was said while the screen was up */
		char buf[4096];
		ssize_t got;
		fflush(stderr);
		dup2(saved_err, STDERR_FILENO);
		close(saved_err);
		lseek(err_mem, 0, SEEK_SET);
		while ((got = read(err_mem, buf, sizeof(buf))) > 0)
			if (write(STDERR_FILENO, buf, (size_t)got) < 0)
				break;
	}
	if (err_mem >= 0)
		close(err_mem);
	if (t.timer_fd >= 0)
		close(t.timer_fd);
	for (size_t i = 0; i < t.npaths; i++)
		free(t.paths[i]);
	free(t.paths);
	for (size_t i = 0; i < t.ncands; i++)
		free(t.cands[i]);
	free(t.cands);
	free(t.dots);
	free(t.owner);
	tui_hist_free(&t.h);
	return rc;
}

#endif
