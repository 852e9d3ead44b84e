/*
 * tui.h - the live screen, getcounter --tui: a terminal perfmon that
 * graphs chosen counters, records while watching (--log) and replays logs
 * (--input). The screen is an output: it borrows each frame into a history
 * of values per series and computes nothing (values and statuses come from
 * derive through the frames). Only src/output/tui.c includes curses; the
 * history below is plain C so that it can be tested without a terminal.
 */
#ifndef GETCOUNTER_TUI_H
#define GETCOUNTER_TUI_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "output.h"
#include "util.h"

struct engine;

/* Nonzero when getcounter was built with ncursesw. */
int tui_built_in(void);

/* Run the screen on the terminal until q, Ctrl-C or SIGTERM. *e is the
 * opened engine (the screen may reopen it to add a counter: *e is then the
 * new one; the caller closes whatever *e is at the end). log_fd is the
 * --log file already opened with engine_log_open (or -1). Returns an exit
 * status; on failure err names the problem. */
int tui_run(struct engine **e, const struct config *cfg, int log_fd, struct err *err);

/* ---- the history of values per series (src/output/tui_hist.c) ---------- */

#define TUI_MAX_SERIES 32
/* st[] values: the status in the low 7 bits, TUI_HAS_VALUE when the value
 * exists (value_exists), TUI_NO_ROW when the frame held no such row. */
#define TUI_HAS_VALUE 0x80
#define TUI_NO_ROW 0x7f

struct tui_series {
	char *path;     /* owned: "\\host\Set(instance)\Counter" */
	char *set;      /* owned */
	char *instance; /* owned; NULL for a single-instance set */
	char *counter;  /* owned */
	char *unit;     /* owned */
	int scale_exp;  /* shown as value x 10^scale_exp */
	int scaled;     /* autoscaled once, when it first had a value */
	int hidden;     /* removed from the screen with d */
};

struct tui_hist {
	size_t cap;   /* samples kept: a ring unless grow */
	int grow;     /* keep every sample (a replay) */
	uint64_t n;   /* samples pushed so far; sample i is kept when i >= first */
	int64_t *wall; /* cap wall times (UTC ns) */
	double *val;  /* cap x TUI_MAX_SERIES */
	uint8_t *st;  /* cap x TUI_MAX_SERIES */
	size_t nseries;
	struct tui_series series[TUI_MAX_SERIES];
	uint32_t *colmap; /* frame column -> series index + 1; 0 unknown */
	size_t ncolmap;
	size_t dropped; /* rows of the last frame beyond TUI_MAX_SERIES */
	/* the wall time of the read before the first sample kept (set by the
	 * caller with the first sample; a ring that drops its oldest sample
	 * moves it to that sample's time); 0 unknown */
	int64_t span_start;
};

/* An empty history keeping cap samples (grow: every sample). */
void tui_hist_init(struct tui_hist *h, size_t cap, int grow);
void tui_hist_free(struct tui_hist *h);
/* Copy f's rows (borrowed) into a new sample. Allocates only when a
 * series or column is first seen, or when a growing history doubles. */
void tui_hist_push(struct tui_hist *h, const struct frame *f);
/* Forget the frame columns (the engine was reopened); series stay. */
void tui_hist_forget_columns(struct tui_hist *h);
/* Forget every sample (series and their scales stay). */
void tui_hist_clear(struct tui_hist *h);
/* The oldest sample kept. */
uint64_t tui_hist_first(const struct tui_hist *h);
/* Series s at sample i: the st byte, and *v when it has a value. */
uint8_t tui_hist_get(const struct tui_hist *h, uint64_t i, size_t s, double *v);
int64_t tui_hist_wall(const struct tui_hist *h, uint64_t i);
/* [*from, *to] narrowed to the samples kept, for a walk that takes each
 * sample's slot from the last (tui_hist_next_slot) instead of dividing
 * for every sample as tui_hist_get does: the slot of *from, or SIZE_MAX
 * when none of them is kept. Series s at sample i is then
 * h->st[slot * TUI_MAX_SERIES + s] and h->val[...] likewise. */
size_t tui_hist_span(const struct tui_hist *h, uint64_t *from, uint64_t *to);

static inline size_t
tui_hist_next_slot(const struct tui_hist *h, size_t slot)
{
	return slot + 1 == h->cap ? 0 : slot + 1;
}

/* Last (at sample to), average, minimum and maximum over samples
 * [from, to] of the values that exist. */
struct tui_stats {
	uint64_t n;       /* values that exist in the window */
	int has_last;
	uint8_t last_st;  /* the st byte at sample to */
	double last, avg, min, max;
};
void tui_hist_stats(const struct tui_hist *h, size_t s, uint64_t from, uint64_t to,
		    struct tui_stats *out);

/* The largest power of ten e (-9..9) that keeps max x 10^e under 100
 * (0 when max <= 0). */
int tui_autoscale_exp(double max);

/* A legend value in at most TUI_VALUE_COLUMNS columns (n at least 16): as
 * the table prints it (precision) when that fits, which with two decimals
 * is below 1 million (and above -100 thousand); else in thousands, millions ... with
 * k, M, G, T or P and two decimals (1.50M, -24.71G); beyond, as 1.00e+21. */
#define TUI_VALUE_COLUMNS 9
void tui_format_value(char *buf, size_t n, double v, int precision);

/* Parse a `g` target: "+5m", "-30s", "+2h" (relative to now_ns), or a
 * --begin time (ISO 8601, M/D/YYYY H:MM:SS). 0, or -1. */
int tui_parse_goto(const char *s, int64_t now_ns, int64_t *out);

#endif
