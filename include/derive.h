/*
 * derive.h - the only place formulas live. A pair of raw reads of one
 * instance becomes field deltas (each field with its own width, wrap and
 * reset rule); deltas and current values become a value and a status with a
 * counter's descriptor. Totals sum per-instance N and B before the formula.
 */
#ifndef GETCOUNTER_DERIVE_H
#define GETCOUNTER_DERIVE_H

#include <stdint.h>

#include "counter.h"
#include "sample.h"

struct derive_env {
	double dt;          /* seconds between this set's two reads */
	double wall_s;      /* UTC seconds of the later read (ELAPSED) */
	uint32_t user_hz;   /* /proc/stat ticks per second */
	uint8_t ulong_bits; /* 32 or 64 */
};

/* Field deltas of one instance between two reads. d points at one word per
 * field the set keeps, storage the owner provides (the engine keeps one pool
 * per set, so an instance costs its kept fields' words, not SET_MAX_FIELDS);
 * field f's delta is d[raw_slot(rs, f)], rs the later read's set. */
struct field_deltas {
	uint64_t *d;
	uint64_t present; /* fields read in both */
	uint64_t wrapped; /* fields whose delta was corrected for one wrap */
	uint8_t status;   /* ST_OK, ST_WRAPPED or ST_RESET */
};

/* A standalone field_deltas with room for any set (tests, one-off use). */
#define FIELD_DELTAS_DECLARE(name)                                                    \
	uint64_t name##_store_[SET_MAX_FIELDS];                                          \
	struct field_deltas name = { .d = name##_store_ }

/* An array of n of them. */
#define FIELD_DELTAS_ARRAY(name, n)                                                   \
	uint64_t name##_store_[n][SET_MAX_FIELDS];                                       \
	struct field_deltas name[n];                                                     \
	for (size_t name##_i_ = 0; name##_i_ < (size_t)(n); name##_i_++)                \
	name[name##_i_].d = name##_store_[name##_i_]

/* Compare two reads of one instance, field by field (COUNTERS.md 1). A
 * changed identity is a RESET. */
void derive_deltas(const struct raw_set *prs, const struct raw_instance *prev,
		   const struct raw_set *crs, const struct raw_instance *cur,
		   const struct derive_env *env, struct field_deltas *out);

/* The status derive_deltas would give the pair (OK, WRAPPED or RESET),
 * found without forming the deltas in the usual case (every field risen);
 * words (SET_MAX_FIELDS) is scratch for the others. */
uint8_t derive_pair_status(const struct raw_set *prs, const struct raw_instance *prev,
			   const struct raw_set *crs, const struct raw_instance *cur,
			   const struct derive_env *env, uint64_t *words);

/* A set's deltas as their owner keeps them, a byte an instance: cur
 * instance i's derive_deltas status in status[i], its previous read
 * prev->inst[prev_of[i]], env the pair's. The deltas themselves are formed
 * again from the two reads, for the fields a value needs, when it is
 * derived: a word per field and instance fewer to keep. */
/* prev_of[i] of a cur instance that has no previous read */
#define DERIVE_NO_PREV UINT32_MAX

struct delta_store {
	const struct raw_set *prev, *cur;
	const uint32_t *prev_of; /* cur index -> prev index; NULL: the same index */
	const uint8_t *status;
	struct derive_env env;
	/* What derive_pairs learns of the whole set (zero: nothing known):
	 * plain, the reads list the same instances (prev_of NULL), no
	 * identity changed and no field read both times but a gauge fell, so
	 * every delta is the later value less the earlier and every status
	 * ST_OK; both, the fields every instance read both times; all, the
	 * fields every instance of cur read. A counter whose fields are all
	 * in them is derived by loops that test nothing per instance. */
	int plain;
	uint64_t both, all;
};

/* Fill ds (prev_of NULL when cur instance i is prev's i) and, when paired
 * (a previous read, no snapshot), the pair status of each cur instance
 * that has a previous read into status[i], as derive_pair_status gives it;
 * then ds->plain, ds->both and ds->all. */
void derive_pairs(struct delta_store *ds, const struct raw_set *prev, const struct raw_set *cur,
		  const uint32_t *prev_of, uint8_t *status, const struct derive_env *env,
		  int paired);

/* The field_deltas of cur instance i (which has a previous read), with the
 * deltas of the fields in need formed in words (SET_MAX_FIELDS of them, by
 * raw_slot); a RESET forms none. */
void delta_store_get(const struct delta_store *ds, size_t i, uint64_t need, uint64_t *words,
		     struct field_deltas *out);

struct value {
	double v;
	uint8_t status; /* enum value_status */
};

/* Nonzero when a value with this status and counter type is shown. */
int value_exists(const struct counter_desc *c, enum value_status st);

/* One instance's value. deltas is NULL when there is no usable previous
 * read; then pair_status says why (ST_FIRST, ST_NEW; ST_OK for a snapshot,
 * which gives BAD_TIME to types that need two reads). */
struct value derive_value(const struct raw_set *rs, const struct counter_desc *c,
			  const struct raw_instance *cur, const struct field_deltas *deltas,
			  enum value_status pair_status, const struct derive_env *env);

/* A total over instances: cur[i] with deltas[i] (NULL for an instance that
 * has no usable pair, whose status is pair_status[i]). Sums N and B (with
 * each instance's multiplier) over the instances that pair, then applies the
 * formula; a MEAN total divides by their number. */
struct value derive_total(const struct raw_set *rs, const struct counter_desc *c,
			  const struct raw_instance *const *cur,
			  const struct field_deltas *const *deltas, const uint8_t *pair_status,
			  size_t n, const struct derive_env *env);

/* Indices start, start + stride, ... (n of them): the rows of one CPU in
 * a list of IRQ rows by CPU are one such run. */
struct idx_run {
	uint32_t start, stride, n;
};

/* Where a field's value lies in an instance's words of one read: its
 * first word, and whether it takes two (low, high). */
struct wref {
	uint8_t off;  /* a slot's first word is below 2 x SET_MAX_FIELDS */
	uint8_t wide;
};

/* A counter whose every field (N's and B's terms, the multiplier) each
 * instance read, as derive.c's plain loops take it: where each term lies
 * in the two reads (prs NULL for a type of one read), in N's then B's
 * order. */
struct plain_terms {
	uint8_t nn, nd;     /* terms of N, then of B */
	uint8_t narrow;     /* no value takes two words in either read */
	uint8_t simple;     /* N's terms all added, no B, no multiplier */
	uint8_t gauge;      /* some term is a gauge (whose delta is 0) */
	uint8_t mul;        /* a multiplier, at m in cur */
	struct wref m;
	struct wref p[2 * COUNTER_MAX_TERMS], c[2 * COUNTER_MAX_TERMS];
	uint8_t neg[2 * COUNTER_MAX_TERMS], is_gauge[2 * COUNTER_MAX_TERMS];
};

/* The plain terms of one counter over one pair of reads, formed by the
 * first derive_run or derive_total_span that needs them and taken by the
 * next ones given the same plan. The terms depend on the counter, the
 * fields every instance read (mask) and the layout of the two reads' words
 * (the fields they keep and those that take two words), never on their
 * values: each call checks all of that, so a plan is never taken for
 * another counter's or another layout's, and one kept from frame to frame
 * (an item's, in the engine) is formed again only when a layout changes
 * (a value past 2^32 makes its field wide). */
struct derive_plan {
	const struct counter_desc *c; /* NULL: empty */
	const struct counter_set *set;
	uint64_t mask;
	uint64_t pkeep, pwide, ckeep, cwide; /* the layouts of the reads */
	int two; /* formed with a previous read (pkeep and pwide are its) */
	int ok; /* pt holds the terms; 0: the counter is not plain there */
	struct plain_terms pt;
};

/* Instances of one read taken by index, for a total that copies nothing:
 * rs->inst[i] for i = idx[k], k < n (idx NULL: i = k), or for each index of
 * runs[0 .. n) when runs is not NULL; each paired with its deltas in ds
 * (NULL in a snapshot) unless it is new (ds->prev_of says so) or there is
 * no previous read (first). With in_total, an instance whose in_total is 0
 * is left out. */
struct derive_span {
	const struct raw_set *rs;
	const struct delta_store *ds; /* NULL: a snapshot (every pair ST_OK) */
	int first;        /* no previous read: every pair ST_FIRST */
	const uint32_t *idx;
	size_t n;
	int in_total;
	const struct idx_run *runs;
	struct derive_plan *plan; /* NULL: terms formed by each call */
};

/* derive_total over a span. */
struct value derive_total_span(const struct counter_desc *c, const struct derive_span *sp,
			       const struct derive_env *env);

/* derive_total_span of each of n spans into val[k] and st[k]: spans of one
 * read that differ only in their instances (idx, n, runs), so the
 * counter's terms are looked at once (a set's groups, e.g. IF/_Total). */
void derive_total_spans(const struct counter_desc *c, const struct derive_span *sp, size_t n,
			const struct derive_env *env, double *val, uint8_t *st);

/* The values of counter c for the sp->n current instances from index from
 * on (sp->idx and sp->runs unused): each instance's derive_value, with its
 * deltas of the fields in need formed from sp->ds when it pairs; into
 * val[k] and st[k]. */
void derive_run(const struct derive_span *sp, const struct counter_desc *c, uint64_t need,
		size_t from, const struct derive_env *env, double *val, uint8_t *st);

/* The most instances derive_small_run takes: past it, derive_run's loops
 * made for each kind of counter (and their four-at-a-time divisions) cost
 * less than its one loop for every kind. */
#define DERIVE_SMALL_RUN 32

/* Counter c's values for every instance of ds's current read into val[k]
 * and st[k], k < n, and (tval not NULL) its _Total over them into *tval
 * and *tst: what derive_run and derive_total_span give, in one pass with
 * one loop for every kind of counter. It takes a plain pair (ds->plain, dt
 * > 0) of 1 to DERIVE_SMALL_RUN instances that all read c's fields, with
 * plan for c's terms, and returns 1; otherwise it returns 0 and writes
 * nothing. Over the few instances of a set of CPUs, interfaces or disks,
 * the calls and the choice of a loop were most of a counter's cost. */
int derive_small_run(const struct delta_store *ds, const struct counter_desc *c,
		     struct derive_plan *plan, const struct derive_env *env, double *val,
		     uint8_t *st, double *tval, uint8_t *tst);

/* --smooth C (COUNTERS.md 1): NDIS's load average of one column, avg =
 * (avg x C + x x (128 - C)) / 128, where avg is the last value shown. */
static inline double
derive_smooth(double avg, double x, unsigned c)
{
	return (avg * (double)c + x * (128.0 - (double)c)) / 128.0;
}

#endif
