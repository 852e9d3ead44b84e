/*
 * test_pressure.c - the /proc/pressure parser on strings and the Pressure
 * set end to end through derive over tests/fixtures/pressure-*: cpu,
 * memory, io and irq on a 6.x kernel (cpu's "full" never used, irq with
 * only "full", irq gone from a later root), a 4.20 - 5.12 kernel (cpu has
 * no "full" line, no irq), PSI disabled (no /proc/pressure: no instances),
 * and reading only the lines requested counters need.
 *
 * dt comes from each root's proc/uptime.
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

#include "derive.h"
#include "pressure.h"
#include "provider.h"

extern const struct provider provider_pressure;

#define SOME_BIT 1u /* field bits, in the set's order */
#define FULL_BIT 2u

/* Check a table of values of one instance at read i. */
static void
check_all(const struct series *s, size_t i, const char *instance, const struct want *w, size_t n)
{
	for (size_t k = 0; k < n; k++)
		series_check(series_value(s, i, w[k].counter, instance), &w[k], instance, i);
}

#define CHECK_ALL(s, i, inst, table) check_all((s), (i), (inst), (table), ARRAY_SIZE(table))

static void
test_parse(void **unused)
{
	uint64_t some = 0, full = 0;
	const char both[] = "some avg10=0.58 avg60=0.86 avg300=0.82 total=12578579\n"
			    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
	const char full_only[] = "full avg10=1.00 avg60=2.00 avg300=3.00 total=987654321\n";
	const char no_newline[] = "some avg10=0.00 avg60=0.00 avg300=0.00 total=42";
	const char odd[] = "some avg10=0.00 total=abc\n"
			   "full avg10=0.00 avg60=0.00 avg300=0.00 nototal=5 total=7\n"
			   "other total=9\n";
	const char big[] = "some total=18446744073709551615\nfull total=99999999999999999999\n";

	(void)unused;
	assert_int_equal(pressure_parse(both, strlen(both), &some, &full),
			 PRESSURE_SOME | PRESSURE_FULL);
	assert_int_equal(some, 12578579);
	assert_int_equal(full, 0);
	some = 5;
	assert_int_equal(pressure_parse(full_only, strlen(full_only), &some, &full),
			 PRESSURE_FULL);
	assert_int_equal(full, 987654321);
	assert_int_equal(some, 5); /* untouched */
	assert_int_equal(pressure_parse(no_newline, strlen(no_newline), &some, &full),
			 PRESSURE_SOME);
	assert_int_equal(some, 42);
	/* "total=abc" is no total; "nototal=" is not "total=" */
	assert_int_equal(pressure_parse(odd, strlen(odd), &some, &full), PRESSURE_FULL);
	assert_int_equal(full, 7);
	assert_int_equal(pressure_parse(big, strlen(big), &some, &full),
			 PRESSURE_SOME | PRESSURE_FULL);
	assert_true(some == UINT64_MAX);
	assert_true(full == UINT64_MAX); /* saturates */
	assert_int_equal(pressure_parse("", 0, &some, &full), 0);
	/* len bounds the scan */
	assert_int_equal(pressure_parse(both, 10, &some, &full), 0);
}

static void
test_set_shape(void **unused)
{
	const struct counter_set *set = provider_pressure.set;
	static const char *const names[] = { "% Some Stall Time", "% Full Stall Time" };

	(void)unused;
	assert_string_equal(set->name, "Pressure");
	assert_true(set->multi_instance);
	assert_false(set->has_total);
	assert_int_equal(set->ncounters, 2);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const struct counter_desc *c = counter_set_find(set, names[i]);
		assert_non_null(c);
		assert_int_equal(c->type, CT_TIMER);
		assert_true(c->scale == 1e-6); /* microseconds */
		assert_int_equal(c->num[0].field, i);
		assert_string_equal(c->unit, "%");
		assert_non_null(c->help);
	}
}

/*
 * pressure-basic: dt(t0,t1) = 2 s, dt(t1,t2) = 1 s; total= in microseconds
 *              cpu some / full    memory some / full   io some / full     irq full
 *   t0         1000000 / 0        200000 / 100000      5000000 / 4000000   300000
 *   t1         1500000 / 0        240000 / 110000      6000000 / 4600000   302000
 *   t2         2500000 / 0        240000 / 110000      6000500 / 4600100   (no file)
 */
static void
test_basic(void **unused)
{
	struct series s;
	static const char *const names[] = { "cpu", "memory", "io", "irq" };
	static const struct want cpu[] = {
		OKV("% Some Stall Time", 25),               /* 100 x 500000 x 1e-6 / 2 */
		NOV("% Full Stall Time", ST_UNSUPPORTED),    /* never, though the file has it */
	};
	static const struct want memory[] = {
		OKV("% Some Stall Time", 2),                /* 100 x 40000 x 1e-6 / 2 */
		OKV("% Full Stall Time", 0.5),              /* 100 x 10000 x 1e-6 / 2 */
	};
	static const struct want io[] = {
		OKV("% Some Stall Time", 50),               /* 100 x 1000000 x 1e-6 / 2 */
		OKV("% Full Stall Time", 30),               /* 100 x 600000 x 1e-6 / 2 */
	};
	static const struct want irq[] = {
		NOV("% Some Stall Time", ST_UNSUPPORTED),    /* irq has no "some" line */
		OKV("% Full Stall Time", 0.1),              /* 100 x 2000 x 1e-6 / 2 */
	};
	static const struct want cpu_t2[] = {
		OKV("% Some Stall Time", 100),              /* 100 x 1000000 x 1e-6 / 1 */
	};
	static const struct want memory_t2[] = {
		OKV("% Some Stall Time", 0),                /* no stall */
		OKV("% Full Stall Time", 0),
	};
	static const struct want io_t2[] = {
		OKV("% Some Stall Time", 0.05),             /* 100 x 500 x 1e-6 / 1 */
		OKV("% Full Stall Time", 0.01),             /* 100 x 100 x 1e-6 / 1 */
	};

	(void)unused;
	series_load(&s, &provider_pressure, "pressure-basic", 3, ~(uint64_t)0);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(s.rs[i].ninstances, 4);
		for (size_t k = 0; k < 4; k++)
			assert_string_equal(raw_name_at(&s.rs[i], k), names[k]);
	}
	assert_int_equal(raw_present_at(&s.rs[0], 0), SOME_BIT);      /* cpu: some only */
	assert_int_equal(raw_present_at(&s.rs[0], 1), SOME_BIT | FULL_BIT);
	assert_int_equal(raw_present_at(&s.rs[0], 3), FULL_BIT);      /* irq: full only */
	assert_int_equal(series_value(&s, 0, "% Some Stall Time", "cpu").status, ST_FIRST);
	CHECK_ALL(&s, 1, "cpu", cpu);
	CHECK_ALL(&s, 1, "memory", memory);
	CHECK_ALL(&s, 1, "io", io);
	CHECK_ALL(&s, 1, "irq", irq);
	/* t2: irq is gone (the engine shows it NO_INSTANCE once) */
	assert_int_equal(s.rs[2].ninstances, 3);
	assert_null(series_find(&s.rs[2], "irq"));
	CHECK_ALL(&s, 2, "cpu", cpu_t2);
	CHECK_ALL(&s, 2, "memory", memory_t2);
	CHECK_ALL(&s, 2, "io", io_t2);
	series_free(&s);
}

/* pressure-old (4.20 - 5.12): cpu prints no "full" line, no irq; dt = 2. */
static void
test_old(void **unused)
{
	struct series s;
	static const struct want cpu[] = {
		OKV("% Some Stall Time", 1),                /* 100 x 20000 x 1e-6 / 2 */
		NOV("% Full Stall Time", ST_UNSUPPORTED),
	};
	static const struct want memory[] = {
		OKV("% Some Stall Time", 0),
		OKV("% Full Stall Time", 0),
	};
	static const struct want io[] = {
		OKV("% Some Stall Time", 0.2),              /* 100 x 4000 x 1e-6 / 2 */
		OKV("% Full Stall Time", 0.1),              /* 100 x 2000 x 1e-6 / 2 */
	};

	(void)unused;
	series_load(&s, &provider_pressure, "pressure-old", 2, ~(uint64_t)0);
	assert_int_equal(s.rs[1].ninstances, 3);
	assert_null(series_find(&s.rs[1], "irq"));
	CHECK_ALL(&s, 1, "cpu", cpu);
	CHECK_ALL(&s, 1, "memory", memory);
	CHECK_ALL(&s, 1, "io", io);
	series_free(&s);
}

/* PSI disabled: no /proc/pressure, no instances, no error. */
static void
test_none(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, &provider_pressure, "pressure-none", 2, ~(uint64_t)0);
	assert_int_equal(s.rs[0].ninstances, 0);
	assert_int_equal(s.rs[1].ninstances, 0);
	series_free(&s);
}

/* Only full wanted: cpu is there with nothing read (so its % Full Stall
 * Time is UNSUPPORTED, not NO_INSTANCE); only some: irq likewise. */
static void
test_needed(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, &provider_pressure, "pressure-basic", 2, FULL_BIT);
	assert_int_equal(s.rs[1].ninstances, 4);
	assert_int_equal(raw_present_at(&s.rs[1], 0), 0);        /* cpu */
	assert_int_equal(raw_present_at(&s.rs[1], 1), FULL_BIT); /* memory */
	assert_int_equal(series_value(&s, 1, "% Full Stall Time", "cpu").status, ST_UNSUPPORTED);
	assert_true(fabs(series_value(&s, 1, "% Full Stall Time", "io").v - 30) < 1e-9);
	series_free(&s);

	series_load(&s, &provider_pressure, "pressure-basic", 2, SOME_BIT);
	assert_int_equal(s.rs[1].ninstances, 4);
	assert_int_equal(raw_present_at(&s.rs[1], 3), 0);        /* irq */
	assert_int_equal(raw_present_at(&s.rs[1], 2), SOME_BIT); /* io */
	assert_int_equal(series_value(&s, 1, "% Some Stall Time", "irq").status, ST_UNSUPPORTED);
	series_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_set_shape),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_old),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_needed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
