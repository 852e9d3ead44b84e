/*
 * promrules.c - getcounter --prometheus-rules (issue 9): --serve exposes raw
 * fields, and these recording rules derive the counters from them in PromQL,
 * each generated from the counter's descriptor (its type, terms, scale,
 * multiplier and zero base) as derive.c computes it, over a 1 m window.
 * Rates replace deltas over the interval: rate(N) / rate(B) is ΔN / ΔB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"

#define WINDOW "[1m]"

/* The scale of field f to its base unit; ticks count as seconds (they only
 * appear in ratios of ticks). */
static double
field_scale(const struct counter_set *cs, size_t f)
{
	double k = cs->fields[f].prom.scale;

	return k == 0 || k == PROM_TICKS ? 1 : k;
}

/* The rule name's counter part: "Avg. Disk sec/Read" -> avg_disk_sec_per_read,
 * "% Idle Time" -> pct_idle_time. */
static void
counter_snake(char *buf, size_t n, const char *name)
{
	size_t len = 0;

	for (const char *p = name; *p && len + 6 < n; p++) {
		char c = *p;
		const char *word = c == '%' ? "pct" : c == '/' ? "per" : NULL;

		if (word || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9'))) {
			if (len && buf[len - 1] != '_')
				buf[len++] = '_';
			if (word) {
				memcpy(buf + len, word, 3);
				len += 3;
				buf[len++] = '_';
			}
			continue;
		}
		buf[len++] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	while (len && buf[len - 1] == '_')
		len--;
	buf[len] = 0;
}

/* Append the selector of field f: name{label="value"}. */
static void
put_selector(struct prom_buf *b, const struct counter_set *cs, size_t f)
{
	char name[160];
	const char *label = cs->fields[f].prom.label;

	prom_name(name, sizeof(name), cs, f, 0);
	prom_buf_puts(b, name, strlen(name));
	if (label) {
		size_t ln = strcspn(label, "=");

		prom_buf_puts(b, "{", 1);
		prom_buf_puts(b, label, ln);
		prom_buf_puts(b, "=\"", 2);
		prom_buf_escape(b, label + ln + (label[ln] ? 1 : 0));
		prom_buf_puts(b, "\"}", 2);
	}
}

/* Append one term: fn(selector[1m]) or the selector, summed without the
 * field's own label so that terms of several modes add up. */
static void
put_term(struct prom_buf *b, const struct counter_set *cs, size_t f, const char *fn)
{
	const char *label = cs->fields[f].prom.label;

	if (label) {
		prom_buf_puts(b, "sum without (", 13);
		prom_buf_puts(b, label, strcspn(label, "="));
		prom_buf_puts(b, ") (", 3);
	}
	if (fn) {
		prom_buf_puts(b, fn, strlen(fn));
		prom_buf_puts(b, "(", 1);
	}
	put_selector(b, cs, f);
	if (fn)
		prom_buf_puts(b, WINDOW ")", sizeof(WINDOW));
	if (label)
		prom_buf_puts(b, ")", 1);
}

/* Append a number the shortest way. */
static void
put_number(struct prom_buf *b, double k)
{
	char num[40];
	int len = snprintf(num, sizeof(num), "%.15g", k);

	if (strtod(num, NULL) != k)
		len = snprintf(num, sizeof(num), "%.17g", k);

	prom_buf_puts(b, num, (size_t)len);
}

/* Terms that add fields of one metric differing only by their own label
 * (Processor's modes) are one selector: sum without (mode)
 * (rate(name{mode=~"user|nice"}[1m])). Returns -1 when they are not. */
static int
put_modes(struct prom_buf *b, const struct counter_set *cs, const struct term *t, int n,
	  const char *fn)
{
	const char *l0 = cs->fields[t[0].field].prom.label;
	size_t ln = l0 ? strcspn(l0, "=") : 0;
	char name[160];

	for (int i = 0; i < n; i++) {
		const char *l = cs->fields[t[i].field].prom.label;

		if (t[i].sign < 0 || !l || strncmp(l, l0, ln + 1) ||
		    strcmp(cs->fields[t[i].field].prom.stem, cs->fields[t[0].field].prom.stem))
			return -1;
	}
	prom_name(name, sizeof(name), cs, t[0].field, 0);
	prom_buf_puts(b, "sum without (", 13);
	prom_buf_puts(b, l0, ln);
	prom_buf_puts(b, ") (", 3);
	if (fn) {
		prom_buf_puts(b, fn, strlen(fn));
		prom_buf_puts(b, "(", 1);
	}
	prom_buf_puts(b, name, strlen(name));
	prom_buf_puts(b, "{", 1);
	prom_buf_puts(b, l0, ln);
	prom_buf_puts(b, "=~\"", 3);
	for (int i = 0; i < n; i++) {
		if (i)
			prom_buf_puts(b, "|", 1);
		prom_buf_escape(b, cs->fields[t[i].field].prom.label + ln + 1);
	}
	prom_buf_puts(b, "\"}", 2);
	if (fn)
		prom_buf_puts(b, WINDOW ")", sizeof(WINDOW));
	prom_buf_puts(b, ")", 1);
	return 0;
}

/* Append (±t1 ± t2 ...) in raw units: each term divided by its field's
 * scale unless they share one, which *common then holds (else 1). Returns
 * -1 when a term's field is not exported. */
static int
put_sum(struct prom_buf *b, const struct counter_set *cs, const struct term *t, const char *fn,
	double *common)
{
	int n = 0, same = 1;

	for (int i = 0; i < COUNTER_MAX_TERMS && t[i].sign; i++) {
		if (t[i].field >= cs->nfields || !cs->fields[t[i].field].prom.stem)
			return -1;
		if (field_scale(cs, t[i].field) != field_scale(cs, t[0].field))
			same = 0;
		n++;
	}
	if (!n)
		return -1;
	*common = same ? field_scale(cs, t[0].field) : 1;
	if (n > 1 && put_modes(b, cs, t, n, fn) == 0)
		return 0;
	prom_buf_puts(b, "(", 1);
	for (int i = 0; i < n; i++) {
		if (i || t[i].sign < 0)
			prom_buf_puts(b, t[i].sign < 0 ? " - " : " + ", 3);
		put_term(b, cs, t[i].field, fn);
		if (!same && field_scale(cs, t[i].field) != 1) {
			prom_buf_puts(b, " / ", 3);
			put_number(b, field_scale(cs, t[i].field));
		}
	}
	prom_buf_puts(b, ")", 1);
	return 0;
}

/* Nonzero when every term's field is exported times field mul already. */
static int
premultiplied(const struct counter_set *cs, const struct term *t, uint8_t mul)
{
	for (int i = 0; i < COUNTER_MAX_TERMS && t[i].sign; i++)
		if (t[i].field >= cs->nfields || cs->fields[t[i].field].prom.mul != mul)
			return 0;
	return 1;
}

/* Append the PromQL of counter c, or return -1 when it has none (a
 * utilization, a field not exported, rows matched by a provider hook). */
static int
counter_expr(struct prom_buf *b, const struct counter_set *cs, const struct counter_desc *c,
	     const struct counter_set *(*find)(const char *name))
{
	double scale = c->scale == 0 ? 1 : c->scale, kn = 1, kb = 1;
	int two = counter_type_needs_two(c->type);
	const char *fn = c->type == CT_DELTA ? "increase" : two ? "rate" : NULL;
	struct prom_buf num = { 0 }, den = { 0 };
	int rc = -1;

	if (c->rows_set) {
		const struct counter_set *rows = find ? find(c->rows_set) : NULL;
		const struct counter_desc *rc_desc = rows ? counter_set_find(rows, c->rows_counter)
							   : NULL;
		const char *child = rows && rows->prom_labels ? strchr(rows->prom_labels, '/')
							      : NULL;

		if (!rc_desc || !child || !cs->prom_labels || strcmp(child + 1, cs->prom_labels) ||
		    !prom_set_exported(rows))
			return -1;
		prom_buf_puts(b, "sum by (", 8);
		prom_buf_puts(b, child + 1, strlen(child + 1));
		prom_buf_puts(b, ") (", 3);
		/* rows without the child label ("ERR/_Total") are in no sum */
		if (rc_desc->num[1].sign || rc_desc->num[0].field >= rows->nfields ||
		    !rows->fields[rc_desc->num[0].field].prom.stem)
			return -1;
		prom_buf_puts(b, "rate(", 5);
		put_selector(b, rows, rc_desc->num[0].field);
		prom_buf_puts(b, "{", 1);
		prom_buf_puts(b, child + 1, strlen(child + 1));
		prom_buf_puts(b, "!=\"\"}" WINDOW "))", strlen("!=\"\"}" WINDOW "))"));
		return 0;
	}
	if (c->type == CT_UTILIZATION)
		return -1;
	if (put_sum(&num, cs, c->num, fn, &kn) < 0)
		goto out;
	if (c->den[0].sign && put_sum(&den, cs, c->den, fn, &kb) < 0)
		goto out;
	/* a multiplier cancels in a ratio; otherwise it scales N, unless the
	 * exposition multiplied the fields by it already (sizes in bytes) */
	if (c->mul && !c->den[0].sign && !premultiplied(cs, c->num, c->mul)) {
		if (!cs->fields[c->mul - 1].prom.stem)
			goto out;
		prom_buf_puts(&num, " * ", 3);
		put_selector(&num, cs, c->mul - 1);
		kn *= field_scale(cs, c->mul - 1);
	}
	switch (c->type) {
	case CT_RAW:
	case CT_DELTA:
	case CT_RATE:
	case CT_QUEUELEN:
		scale /= kn;
		break;
	case CT_FRACTION:
	case CT_SAMPLE_FRACTION:
		scale = 100 * kb / kn;
		break;
	case CT_AVG_TIMER:
	case CT_AVG_BULK:
		scale = scale * kb / kn;
		break;
	case CT_TIMER:
	case CT_TIMER_INV:
		scale = 100 * scale / kn;
		break;
	case CT_ELAPSED:
		scale /= kn;
		prom_buf_puts(b, "time() - ", 9);
		break;
	default:
		goto out;
	}
	if (c->type == CT_TIMER_INV) {
		prom_buf_puts(b, "clamp(100 - ", 12);
	} else if (c->clamp100) {
		prom_buf_puts(b, "clamp(", 6);
	}
	if (den.len)
		prom_buf_puts(b, "(", 1);
	if (scale != 1) {
		put_number(b, scale);
		prom_buf_puts(b, " * ", 3);
	}
	prom_buf_puts(b, num.p, num.len);
	if (den.len) {
		/* B = 0: AVG_* give 0, a SAMPLE_FRACTION its zero base, any
		 * other ratio no value (UNSUPPORTED), as derive does */
		prom_buf_puts(b, " / (", 4);
		prom_buf_puts(b, den.p, den.len);
		prom_buf_puts(b, " > 0))", 6);
		if (c->type == CT_AVG_TIMER || c->type == CT_AVG_BULK ||
		    (c->type == CT_SAMPLE_FRACTION && c->has_zero_base)) {
			prom_buf_puts(b, " or (", 5);
			prom_buf_puts(b, den.p, den.len);
			prom_buf_puts(b, " * 0", 4);
			if (c->type == CT_SAMPLE_FRACTION && c->zero_base != 0) {
				prom_buf_puts(b, " + ", 3);
				put_number(b, c->zero_base);
			}
			prom_buf_puts(b, ")", 1);
		}
	}
	if (c->type == CT_TIMER_INV || c->clamp100)
		prom_buf_puts(b, ", 0, 100)", 9);
	rc = 0;
out:
	prom_buf_free(&num);
	prom_buf_free(&den);
	return rc;
}

void
prom_rules_set(FILE *out, const struct counter_set *cs,
	       int (*want)(void *arg, const char *counter), void *arg,
	       const struct counter_set *(*find)(const char *name))
{
	struct prom_buf b = { 0 };
	char set[96], ctr[128];
	int any = 0;

	if (!prom_set_exported(cs) || prom_set_name(set, sizeof(set), cs->name) < 0)
		return;
	for (size_t i = 0; i < cs->ncounters; i++) {
		const struct counter_desc *c = &cs->counters[i];

		if (want && !want(arg, c->name))
			continue;
		prom_buf_reset(&b);
		if (counter_expr(&b, cs, c, find) < 0)
			continue;
		if (!any)
			fprintf(out, "  - name: getcounter_%s\n    rules:\n", set);
		any = 1;
		counter_snake(ctr, sizeof(ctr), c->name);
		fprintf(out, "      # \\%s\\%s\n      - record: getcounter:%s:%s\n        expr: '%s'\n",
			cs->name, c->name, set, ctr, b.p);
	}
	prom_buf_free(&b);
}
