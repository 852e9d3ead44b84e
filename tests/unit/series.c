/*
 * series.c - the fixture-series helper the provider unit tests share
 * (series.h).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "series.h"

/* Read roots ../fixtures/CASE/t0 .. t(n-1) with provider p. */
void
series_load(struct series *s, const struct provider *p, const char *fixture, size_t n,
	    uint64_t needed)
{
	char paths[MAX_ROOTS][256];
	const char *roots[MAX_ROOTS];
	struct err err = { "" };

	assert_true(n <= MAX_ROOTS);
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "../fixtures/%s/t%zu", fixture, i);
		roots[i] = paths[i];
	}
	s->fs = procfs_new(roots, n);
	s->ctx.fs = s->fs;
	s->ctx.needed = needed;
	s->prov = p;
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		char buf[64];

		assert_int_equal(procfs_begin_read(s->fs, i, &err), 0);
		if (i == 0) {
			s->state = p->open(&s->ctx, &err);
			assert_non_null(s->state);
		}
		raw_set_init(&s->rs[i], p->set);
		raw_set_begin(&s->rs[i]);
		if (p->read(s->state, &s->rs[i], &err) != 0)
			fail_msg("%s: %s", paths[i], err.msg);
		assert_true(procfs_read_small(s->fs, "proc/uptime", buf, sizeof(buf)) > 0);
		s->uptime[i] = strtod(buf, NULL);
	}
}
void
series_free(struct series *s)
{
	s->prov->close(s->state);
	for (size_t i = 0; i < s->n; i++)
		raw_set_free(&s->rs[i]);
	procfs_free(s->fs);
}
const struct raw_instance *
series_find(const struct raw_set *rs, const char *name)
{
	for (size_t i = 0; i < rs->ninstances; i++)
		if (strcmp(raw_name_at(rs, i), name) == 0)
			return &rs->inst[i];
	return NULL;
}
struct derive_env
series_env(const struct series *s, size_t i)
{
	struct derive_env env = { 0, 0, 100, 64 };

	if (i > 0)
		env.dt = s->uptime[i] - s->uptime[i - 1];
	return env;
}
const struct counter_desc *
series_counter(const struct series *s, const char *name)
{
	const struct counter_desc *c = counter_set_find(s->prov->set, name);

	if (!c)
		fail_msg("no counter '%s' in %s", name, s->prov->set->name);
	return c;
}
/* The value of one instance over the interval ending at read i (i = 0:
 * the first read). */
struct value
series_value(const struct series *s, size_t i, const char *name, const char *instance)
{
	const struct counter_desc *c = series_counter(s, name);
	const struct raw_instance *cur = series_find(&s->rs[i], instance), *prev;
	struct derive_env env = series_env(s, i);
	FIELD_DELTAS_DECLARE(d);

	if (!cur)
		fail_msg("no instance '%s' in read %zu", instance, i);
	if (i == 0)
		return derive_value(&s->rs[i], c, cur, NULL, ST_FIRST, &env);
	prev = series_find(&s->rs[i - 1], instance);
	if (!prev)
		return derive_value(&s->rs[i], c, cur, NULL, ST_NEW, &env);
	derive_deltas(&s->rs[i - 1], prev, &s->rs[i], cur, &env, &d);
	return derive_value(&s->rs[i], c, cur, &d, ST_OK, &env);
}
void
series_check(struct value got, const struct want *w, const char *instance, size_t i)
{
	if (got.status != w->st)
		fail_msg("read %zu %s(%s): status %s, want %s", i, w->counter, instance,
			 status_name(got.status), status_name(w->st));
	if (w->st != ST_OK)
		return;
	if (!isfinite(got.v) || fabs(got.v - w->v) > 1e-9 * fmax(1.0, fabs(w->v)))
		fail_msg("read %zu %s(%s): %.12g, want %.12g", i, w->counter, instance, got.v,
			 w->v);
}
