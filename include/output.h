/*
 * output.h - an output borrows a frame (the derived values of one interval)
 * and renders it. Outputs compute nothing: values and statuses come from
 * derive.c. The table of outputs is in src/output/outputs.c.
 */
#ifndef GETCOUNTER_OUTPUT_H
#define GETCOUNTER_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "counter.h"
#include "util.h"

/* One derived value, as an output sees it (frame_row_at). */
struct frame_row {
	const struct counter_set *set;
	const struct counter_desc *counter;
	const char *instance; /* NULL for a single-instance set; borrowed */
	uint32_t column;      /* the same path has the same column all run long */
	uint8_t status;       /* enum value_status */
	double value;         /* meaningful when value_exists() */
};

/* What a column stands for, in a compact frame: its counter (a set and one
 * of its counters) and its instance, both as numbers. */
struct frame_counter {
	const struct counter_set *set;
	const struct counter_desc *counter;
};

struct frame_columns {
	/* column -> counter number << 33 | (instance number + 1, 0 for none) */
	const struct idmap *ids;
	const struct frame_counter *counters; /* counter number -> set, counter */
	const struct strset *names;           /* instance number - 1 -> name (strset_str) */
};

/* Rows row .. row + n - 1 of a frame, whose columns are col .. col + n - 1
 * and whose values are value[val ..]: a wildcard's rows are mostly one
 * run. Their statuses are status[sti ..], or, with sti FRAME_RUN_UNIFORM,
 * all st (the usual case: a frame of rows that are all OK, or all FIRST,
 * keeps no status). With val FRAME_RUN_UNIFORM every row of the run is 0
 * with status st, and nothing is stored (the rows of a set that can supply
 * nothing cost no 9 bytes each). */
struct frame_run {
	uint32_t row, col, n;
	uint32_t val;
	uint32_t sti;
	uint8_t st;
};

#define FRAME_RUN_UNIFORM UINT32_MAX

/* The derived values of one interval, stamped with the later read. Its
 * rows are stored one of two ways: as frame_row records (rows; a frame
 * built by hand), or, the engine's way, as runs of columns, which name
 * their set, counter and instance through cols, and arrays of their values
 * (8 bytes a row) and of the statuses of runs that are not one (a byte a
 * row; rows NULL). Outputs read either through frame_row_at. */
struct frame {
	int64_t wall_ns;  /* UTC nanoseconds */
	const char *host; /* the HOST of the rows' paths */
	uint64_t index;   /* 1 for the first printed sample */
	size_t nrows;
	const struct frame_row *rows;
	const struct frame_run *runs; /* in row order, covering every row */
	size_t nruns;
	const double *value;    /* the runs' values (frame_run.val) */
	const uint8_t *status;  /* and their statuses (frame_run.sti) */
	const struct frame_columns *cols;
};

/* The column of row i of a compact frame (rows are mostly read in order:
 * run_find tries the run found last first). */
static inline const struct frame_run *
frame_run_of(const struct frame *f, size_t i)
{
	static _Thread_local size_t hint;
	return &f->runs[run_find(f->runs, f->nruns, sizeof(*f->runs),
				 offsetof(struct frame_run, row), offsetof(struct frame_run, n),
				 (uint32_t)i, &hint)];
}

static inline uint32_t
frame_column(const struct frame *f, size_t i)
{
	const struct frame_run *r = frame_run_of(f, i);
	return r->col + (uint32_t)(i - r->row);
}

/* Row i of f: a pointer into f->rows, or tmp filled from the compact
 * arrays (valid until tmp's next use). */
static inline const struct frame_row *
frame_row_at(const struct frame *f, size_t i, struct frame_row *tmp)
{
	if (f->rows)
		return &f->rows[i];
	const struct frame_run *run = frame_run_of(f, i);
	uint32_t col = run->col + (uint32_t)(i - run->row);
	uint64_t key = idmap_key(f->cols->ids, col);
	uint64_t inst = key & (((uint64_t)1 << 33) - 1);
	const struct frame_counter *fc = &f->cols->counters[key >> 33];

	tmp->set = fc->set;
	tmp->counter = fc->counter;
	tmp->instance = inst ? strset_str(f->cols->names, (uint32_t)(inst - 1)) : NULL;
	tmp->column = col;
	if (run->val == FRAME_RUN_UNIFORM) {
		tmp->status = run->st;
		tmp->value = 0;
	} else {
		tmp->status = run->sti == FRAME_RUN_UNIFORM ? run->st
							     : f->status[run->sti + (i - run->row)];
		tmp->value = f->value[run->val + (i - run->row)];
	}
	return tmp;
}

struct output_opts {
	int precision; /* decimals; -1 for the format's default */
	int utc;       /* show times in UTC */
	int width;     /* terminal columns for table; 0 when not a terminal */
	int summary;   /* table and list: print min/avg/max when closing */
	int subsecond; /* the interval is not whole seconds: show milliseconds */
};

struct output {
	const char *name; /* the -f value: "csv" */
	/* Start writing to out (borrowed; the caller closes it). Returns the
	 * output's state, or NULL with err filled. */
	void *(*open)(FILE *out, const struct output_opts *opts, struct err *err);
	/* Render one frame; 0, or -1 with err filled (a write failed). */
	int (*write)(void *state, const struct frame *f, struct err *err);
	/* Finish (summary, flush) and free the state; 0 or -1. */
	int (*close)(void *state, struct err *err);
};

extern const struct output *const outputs[];
extern const size_t noutputs;

/* The output named name (case-insensitive), or NULL. */
const struct output *output_find(const char *name);

/* Helpers shared by outputs (src/output/outputs.c). */

/* A path buffer an output keeps (zero-initialized; free(buf) at close):
 * it grows to the longest path seen, so a steady state allocates nothing. */
struct pathbuf {
	char *buf;
	size_t cap;
};

/* The row's path "\\HOST\Set(instance)\Counter", formed in pb (valid
 * until its next use). Frames do not store paths: an output forms the ones
 * it prints. */
const char *frame_row_path(const struct frame *f, const struct frame_row *r,
			   struct pathbuf *pb);

/* Nonzero when the row has a value to show (value_exists). */
int frame_row_has_value(const struct frame_row *r);
/* Local (or UTC) time as "MM/DD/YYYY HH:MM:SS.mmm" (PDH). */
void format_time_pdh(char *buf, size_t n, int64_t wall_ns, int utc);
/* ISO 8601 with milliseconds and offset: "2026-11-21T15:04:05.123+01:00". */
void format_time_iso(char *buf, size_t n, int64_t wall_ns, int utc);
/* The zone name and PDH bias (minutes to add to local time to get UTC) in
 * force at wall_ns. */
void time_zone_at(int64_t wall_ns, int utc, char *name, size_t n, int *bias_minutes);
/* A double as text with a '.' decimal point whatever the locale; precision
 * < 0 gives the shortest form that reads back exactly. */
void format_double(char *buf, size_t n, double v, int precision);

/* A value for a person (the table): precision decimals when >= 0, else 2
 * decimals, or 3 significant digits below 1 (0.0015). */
void format_value_human(char *buf, size_t n, double v, int precision);
/* Bytes of the valid UTF-8 sequence at s (1 for ASCII), or 0 when the
 * bytes there are not valid UTF-8. */
size_t utf8_seq_len(const unsigned char *s);
/* Terminal columns s takes: one per character (an invalid byte counts 1). */
size_t text_columns(const char *s);
/* Write s with control characters shown as '?', so that a name cannot
 * drive the terminal. */
void put_text(FILE *out, const char *s);
/* "instance counter", or "counter" for a single-instance set; with_set,
 * "Set(instance) counter" or "Set counter" (needed as soon as a frame holds
 * two sets: \Processor(_Total)\% Idle Time and \PhysicalDisk(_Total)\% Idle
 * Time would look alike). */
void row_short_name(char *buf, size_t n, const struct frame_row *r, int with_set);
/* Nonzero when f's rows come from more than one counter set. */
int frame_spans_sets(const struct frame *f);

/* Per-column minimum, average and maximum of the values shown, kept for
 * the table and list summaries. Zero-initialize; free with summary_free. */
struct summary_col {
	char *path; /* owned copies: rows are only borrowed during write */
	char *name; /* row_short_name */
	const char *unit;
	uint32_t column;
	uint64_t n; /* values shown */
	double sum, min, max;
};

struct summary {
	struct summary_col *cols; /* in order of first appearance */
	size_t ncols, cap;
	size_t *index; /* column -> cols index + 1; 0 for none */
	size_t nindex;
	struct pathbuf pb;
};

/* Record the row's column (even without a value) and its value, if shown.
 * Allocates only when a column is first seen. */
void summary_add(struct summary *s, const struct frame *f, const struct frame_row *r,
		 int with_set);
/* The column's record, or NULL. */
const struct summary_col *summary_find(const struct summary *s, uint32_t column);
void summary_free(struct summary *s);

/* Flush out; 0, or -1 with err naming the format and the write error. */
int output_flush(FILE *out, const char *format, struct err *err);

#endif
