/*
 * prom.h - the Prometheus / OpenMetrics exposition of a raw sample (issue 9):
 * raw cumulative fields, not derived counters, named by one rule
 * getcounter_<set>_<stem>[_<unit>][_total] ("_total" iff the field is not a
 * gauge), in base units, with each set's instance labels. The names, units
 * and scales are the fields' own (struct prom_desc in each provider's field
 * table), the labels the set's (counter_set.prom_labels). The server
 * (serve.c) calls prom_format_set() under its lock; everything here is
 * testable on a string.
 */
#ifndef GETCOUNTER_PROM_H
#define GETCOUNTER_PROM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "counter.h"
#include "sample.h"

/* Nonzero when set cs is exported: it has a field with a stem, and labels
 * when it has several instances (Processor Information has none). */
int prom_set_exported(const struct counter_set *cs);

/* Write the metric name of field f of set cs into buf (size n); returns its
 * length, or -1 when it does not fit or the field is not exported. family:
 * the OpenMetrics family name, without "_total". */
int prom_name(char *buf, size_t n, const struct counter_set *cs, size_t f, int family);

/* The set part of a name: "Network Adapter" -> "network_adapter",
 * "PhysicalDisk" -> "physical_disk". Returns the length or -1. */
int prom_set_name(char *buf, size_t n, const char *set);

/* Nonzero when Accept asks for OpenMetrics with q > 0. */
int prom_accept_openmetrics(const char *accept);

/* A growing output buffer, reused from scrape to scrape. */
struct prom_buf {
	char *p;
	size_t len;
	size_t cap;
};

void prom_buf_reset(struct prom_buf *b);
void prom_buf_free(struct prom_buf *b);
void prom_buf_puts(struct prom_buf *b, const char *s, size_t len);
/* Append v as a label value with \, " and newline escaped. */
void prom_buf_escape(struct prom_buf *b, const char *v);

/* Per-series unwrap and clamp state kept between scrapes. */
struct prom_series {
	uint64_t last; /* the last raw value seen */
	uint64_t high; /* the added high part (32-bit unwrap) or held value */
	uint8_t seen;
};

/* The monotonic value of a field of width bits (32 or 64) and kind (enum
 * field_kind) after raw value v: a 32-bit wrap (a corrected delta below
 * 2^31) adds 2^32; a CPU time that steps back is held at its last value; a
 * counter that drops otherwise is passed through (a real reset). */
uint64_t prom_unwrap(struct prom_series *s, uint64_t v, int bits, int kind);

/* The unwrap state of every series of one set, by instance name. Owned by
 * the caller: prom_track_new / prom_track_free. */
struct prom_track;
struct prom_track *prom_track_new(const struct counter_set *cs);
void prom_track_free(struct prom_track *t);

/* How a set is formatted. */
struct prom_fmt {
	uint32_t user_hz;    /* ticks per second (USER_HZ; 100 under --root) */
	uint8_t ulong_bits;  /* the kernel's word size: FW_ULONG is 32 or 64 */
	int openmetrics;     /* OpenMetrics 1.0.0 (the caller appends "# EOF") */
	uint64_t fields;     /* bit f: export field f (all bits: every field) */
	/* keep(arg, instance): nonzero to export the instance; NULL: all */
	int (*keep)(void *arg, const char *inst);
	void *arg;
	/* the value of the set's extra label (after ';' in prom_labels) for
	 * inst, written to buf; its length, 0 for none; NULL: no such label */
	size_t (*label_value)(void *arg, const char *inst, char *buf, size_t n);
};

/* Append the exposition of rs (HELP/TYPE per family, one sample per
 * instance and field; absent fields have no sample; no _Total). t (may be
 * NULL) unwraps 32-bit fields and holds CPU times between calls. Returns
 * the number of samples written. */
size_t prom_format_set(struct prom_buf *b, const struct raw_set *rs, struct prom_track *t,
		       const struct prom_fmt *fmt);

/* Parse one sample line "name{l="v",...} value" back into the set (of
 * sets[0..nsets)) and field it came from, the instance name (labels joined
 * as the set names it, into inst of size n) and the raw value: the value
 * over the field's scale, which for a field with a multiplier (prom.mul:
 * LogicalDisk's sizes, fragments x f_frsize) is the product raw x
 * multiplier, since the multiplier is no series of its own. Returns 0,
 * or -1 when the line is not a getcounter field sample. */
int prom_parse_sample(const char *line, const struct counter_set *const *sets, size_t nsets,
		      const struct counter_set **cs, size_t *field, char *inst, size_t n,
		      uint64_t *raw, uint32_t user_hz);

/* --prometheus-rules: write to out one rule group (YAML, under "groups:")
 * with a recording rule per counter of cs that want(arg, name) accepts (want
 * NULL: every counter) and that PromQL can derive from the exported fields.
 * find names another set, for counters that total its rows. */
void prom_rules_set(FILE *out, const struct counter_set *cs,
		    int (*want)(void *arg, const char *counter), void *arg,
		    const struct counter_set *(*find)(const char *name));

#endif
