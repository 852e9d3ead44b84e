/*
 * series.h - what the provider unit tests share: a fixture series
 * (../fixtures/CASE/t0 .. tN-1) read through one provider, one raw_set per
 * root, and the values derive gives over it, checked against hand-computed
 * expectations. Include after <cmocka.h>.
 */
#ifndef GC_SERIES_H
#define GC_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "derive.h"
#include "provider.h"

#define MAX_ROOTS 8

/* A fixture series read through a provider, one raw_set per root. */
struct series {
	struct procfs *fs;
	struct provider_ctx ctx;
	const struct provider *prov;
	void *state;
	size_t n;
	double uptime[MAX_ROOTS];
	struct raw_set rs[MAX_ROOTS];
};

/* A test with expectations of its own shape defines SERIES_NO_WANT before
 * including this header, and does without series_check. */
#ifndef SERIES_NO_WANT
/* One expected value: status ST_OK (0) unless st says otherwise. */
struct want {
	const char *counter;
	double v;
	uint8_t st;
};

#define OKV(name, v) { (name), (v), ST_OK }
#define NOV(name, st) { (name), 0, (st) }
#endif

/* Read roots ../fixtures/CASE/t0 .. t(n-1) with provider p, asking for the
 * fields in needed. */
void series_load(struct series *s, const struct provider *p, const char *fixture, size_t n,
		 uint64_t needed);
void series_free(struct series *s);
/* The instance named name in rs, or NULL. */
const struct raw_instance *series_find(const struct raw_set *rs, const char *name);
/* The derive environment of the interval ending at read i. */
struct derive_env series_env(const struct series *s, size_t i);
/* The counter named name of the series' set (fails the test when none). */
const struct counter_desc *series_counter(const struct series *s, const char *name);
/* One instance's value over the interval ending at read i. */
struct value series_value(const struct series *s, size_t i, const char *name,
			  const char *instance);
#ifndef SERIES_NO_WANT
/* Fail unless got matches the expectation w (instance and read for the message). */
void series_check(struct value got, const struct want *w, const char *instance, size_t i);
#endif

#endif
