/*
 * prom.h - the Prometheus / OpenMetrics exposition of a raw sample (issue 9):
 * raw cumulative fields, not derived counters, named by one rule
 * getcounter_<set>_<stem>_<unit>[_total] ("_total" iff a counter), in base
 * units, with each set's instance labels. The server (serve.c) only calls
 * prom_format_set() under its lock; everything here is testable on a string.
 */
#ifndef GETCOUNTER_PROM_H
#define GETCOUNTER_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "sample.h"

/* A scale of PROM_SCALE_TICKS means "divide by the sample's USER_HZ". */
#define PROM_SCALE_TICKS (-1.0)

/* The Prometheus metadata of one raw field of one set. */
struct prom_field {
	const char *set;   /* the counter set name, "Network Adapter" */
	const char *field; /* the field_desc name, "rx_bytes" */
	const char *stem;  /* "received" */
	const char *unit;  /* base unit: "bytes", "seconds", "" */
	double scale;      /* raw -> base unit; 0 means 1 */
	uint8_t counter;   /* 1: a counter (_total), 0: a gauge */
	const char *mode;  /* the value of a per-field "mode" label, or NULL */
	const char *help;  /* one sentence */
};

/* The metadata of field fname of set sname, or NULL (not exported). */
const struct prom_field *prom_field_find(const char *sname, const char *fname);

/* The table, for tests that walk every exported name. */
const struct prom_field *prom_fields(size_t *n);

/* Write the metric family name of pf into buf (size n); returns its length
 * or -1 when it does not fit. OpenMetrics families drop "_total". */
int prom_name(char *buf, size_t n, const struct prom_field *pf, int family);

/* The set part of a name: "Network Adapter" -> "network_adapter". */
int prom_set_name(char *buf, size_t n, const char *set);

/* The label names of a set's instance ("device"; "cpu"); NULL-terminated. */
const char *const *prom_set_labels(const char *sname);

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
 * field_kind) after raw value v: a 32-bit wrap adds 2^32; a CPU time that
 * steps back is held at its last value; a 64-bit counter that drops is
 * passed through (a real reset). */
uint64_t prom_unwrap(struct prom_series *s, uint64_t v, int bits, int kind);

/* Append the exposition of rs (HELP/TYPE per family, one sample per
 * instance and field; UNSUPPORTED fields absent; no _Total). user_hz
 * scales ticks. openmetrics selects the OpenMetrics 1.0.0 form (the caller
 * appends "# EOF"). keep (may be NULL) selects instances by name. Returns
 * the number of samples written. */
size_t prom_format_set(struct prom_buf *b, const struct raw_set *rs, uint32_t user_hz,
		       int openmetrics, int (*keep)(void *arg, const char *inst), void *arg);

/* Parse one sample line "name{l="v",...} value" back into the field it came
 * from: fills *pf, the instance name (labels joined as the set builds it,
 * into inst of size n) and the raw value. Returns 0, or -1 when the line is
 * not a getcounter field sample. */
int prom_parse_sample(const char *line, const struct prom_field **pf, char *inst, size_t n,
		      uint64_t *raw, uint32_t user_hz);

#endif
