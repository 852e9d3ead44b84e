/*
 * test_system.c - the System provider and its parsers (/proc/stat scalar
 * lines, /proc/loadavg, /proc/uptime), end to end through derive over the
 * fixture series tests/fixtures/sysmem-*: every counter with its arithmetic,
 * a 2.4 kernel's /proc/stat without procs_running and procs_blocked, and
 * reading only the files the requested counters need.
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
#include "procstat.h"
#include "provider.h"

extern const struct provider provider_system;

/* Check a table of values of the one instance "" at read i. */
static void
check_all(const struct series *s, size_t i, const struct want *w, size_t n)
{
	for (size_t k = 0; k < n; k++)
		series_check(series_value(s, i, w[k].counter, ""), &w[k], "", i);
}

#define CHECK_ALL(s, i, table) check_all((s), (i), (table), ARRAY_SIZE(table))

/* The mask of the fields counter name needs. */
static uint64_t
fields_of(const struct counter_set *set, const char *name)
{
	const struct counter_desc *c = counter_set_find(set, name);

	assert_non_null(c);
	return counter_fields(c);
}

static const char *const all_counters[] = {
	"Context Switches/sec",  "Processes Created/sec", "Processor Queue Length",
	"Blocked Threads",       "Threads",               "System Up Time",
	"Load Average (1 min)",  "Load Average (5 min)",  "Load Average (15 min)",
};

static void
test_set_shape(void **unused)
{
	const struct counter_set *set = provider_system.set;

	(void)unused;
	assert_string_equal(set->name, "System");
	assert_false(set->multi_instance);
	assert_false(set->has_total);
	assert_int_equal(set->ncounters, ARRAY_SIZE(all_counters));
	for (size_t i = 0; i < ARRAY_SIZE(all_counters); i++) {
		const struct counter_desc *c = counter_set_find(set, all_counters[i]);
		assert_non_null(c);
		assert_non_null(c->help);
		assert_non_null(c->unit);
	}
}

/* /proc/stat's scalar lines by key; the long intr line costs one memchr. */
static void
test_parse_stat_keys(void **unused)
{
	const char text[] = "cpu  1 2 3 4 5 6 7 8 9 10\n"
			    "cpu0 1 2 3 4 5 6 7 8 9 10\n"
			    "intr 99 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n"
			    "ctxtx 7\n"
			    "ctxt 123456789012\n"
			    "btime 1700000000\n"
			    "processes 4242\n"
			    "procs_running 3\n"
			    "procs_blocked 1\n"
			    "softirq 1 2 3\n";
	uint64_t v[PSTAT_NKEYS] = { 0 };
	uint64_t all = (1u << PSTAT_NKEYS) - 1, got;

	(void)unused;
	got = procstat_keys(text, strlen(text), procstat_stat_keys, PSTAT_NKEYS, all, v);
	assert_int_equal(got, all);
	assert_int_equal(v[PSTAT_CTXT], 123456789012ull); /* not "ctxtx" */
	assert_int_equal(v[PSTAT_BTIME], 1700000000);
	assert_int_equal(v[PSTAT_PROCESSES], 4242);
	assert_int_equal(v[PSTAT_PROCS_RUNNING], 3);
	assert_int_equal(v[PSTAT_PROCS_BLOCKED], 1);

	/* Only wanted keys are parsed. */
	memset(v, 0, sizeof(v));
	got = procstat_keys(text, strlen(text), procstat_stat_keys, PSTAT_NKEYS,
			    1u << PSTAT_PROCS_BLOCKED, v);
	assert_int_equal(got, 1u << PSTAT_PROCS_BLOCKED);
	assert_int_equal(v[PSTAT_PROCS_BLOCKED], 1);
	assert_int_equal(v[PSTAT_CTXT], 0);

	/* A 2.4 kernel: no procs_* lines; nothing wanted: nothing found. */
	const char old[] = "cpu0 1 2 3 4\npage 5 6\nctxt 10\nprocesses 20";
	got = procstat_keys(old, strlen(old), procstat_stat_keys, PSTAT_NKEYS, all, v);
	assert_int_equal(got, (1u << PSTAT_CTXT) | (1u << PSTAT_PROCESSES));
	assert_int_equal(v[PSTAT_PROCESSES], 20); /* last line without newline */
	assert_int_equal(procstat_keys(old, strlen(old), procstat_stat_keys, PSTAT_NKEYS, 0, v), 0);

	/* A key without a value, an empty buffer. */
	const char bare[] = "ctxt\nctxt x\n";
	assert_int_equal(procstat_keys(bare, strlen(bare), procstat_stat_keys, PSTAT_NKEYS, all, v),
			 0);
	assert_int_equal(procstat_keys("", 0, procstat_stat_keys, PSTAT_NKEYS, all, v), 0);
}

static void
test_parse_loadavg_uptime(void **unused)
{
	uint64_t v[PLOAD_NVALUES] = { 0 }, c = 0;
	const char *p;

	(void)unused;
	assert_int_equal(procstat_loadavg("0.52 0.58 0.59 3/312 4567\n", v), 0x1f);
	assert_int_equal(v[PLOAD_1], 52);
	assert_int_equal(v[PLOAD_5], 58);
	assert_int_equal(v[PLOAD_15], 59);
	assert_int_equal(v[PLOAD_RUNNING], 3);
	assert_int_equal(v[PLOAD_THREADS], 312);
	/* one decimal, none, three (the third is dropped) */
	assert_int_equal(procstat_loadavg("2.5 10 0.129 1/2", v), 0x1f);
	assert_int_equal(v[PLOAD_1], 250);
	assert_int_equal(v[PLOAD_5], 1000);
	assert_int_equal(v[PLOAD_15], 12);
	/* malformed: only what precedes the damage */
	assert_int_equal(procstat_loadavg("0.10 x", v), 0x1);
	assert_int_equal(procstat_loadavg("0.1 0.2 0.3 4 5", v), 0xf); /* no '/' */
	assert_int_equal(procstat_loadavg("", v), 0);

	assert_int_equal(procstat_uptime("12345.67 9.00\n", &c), 0);
	assert_int_equal(c, 1234567);
	assert_int_equal(procstat_uptime("5\n", &c), 0);
	assert_int_equal(c, 500);
	assert_int_equal(procstat_uptime("abc", &c), -1);
	p = "99999999999999999999.99";
	assert_int_equal(procstat_centi(&p, &c), 0);
	assert_int_equal(c, UINT64_MAX); /* saturates */
	assert_int_equal(*p, '\0');
}

/*
 * sysmem-basic, dt(t0,t1) = 5002.00 - 5000.00 = 2 s, dt(t1,t2) = 5003.50 -
 * 5002.00 = 1.5 s:
 *        ctxt     processes running blocked  loadavg                     uptime
 *   t0   1000000  20000     3       1        0.52 0.58 0.59 3/312 4567   5000.00
 *   t1   1004000  20010     2       0        1.25 0.75 0.66 2/320 4580   5002.00
 *   t2   1007000  20016     5       2        10.05 2.50 0.70 5/301 4590  5003.50
 */
static void
test_basic(void **unused)
{
	struct series s;
	/* The first read: one-sample counters have values (status FIRST),
	 * rates have none. */
	static const struct want t0[] = {
		NOV("Context Switches/sec", ST_FIRST),
		NOV("Processes Created/sec", ST_FIRST),
		{ "Processor Queue Length", 3, ST_FIRST },  /* procs_running 3 */
		{ "Blocked Threads", 1, ST_FIRST },         /* procs_blocked 1 */
		{ "Threads", 312, ST_FIRST },               /* 3/312 */
		{ "System Up Time", 5000, ST_FIRST },       /* 500000 x 0.01 */
		{ "Load Average (1 min)", 0.52, ST_FIRST }, /* 52 x 0.01 */
		{ "Load Average (5 min)", 0.58, ST_FIRST }, /* 58 x 0.01 */
		{ "Load Average (15 min)", 0.59, ST_FIRST },/* 59 x 0.01 */
	};
	static const struct want t1[] = {
		OKV("Context Switches/sec", 2000), /* (1004000 - 1000000) / 2 */
		OKV("Processes Created/sec", 5),   /* (20010 - 20000) / 2 */
		OKV("Processor Queue Length", 2),  /* procs_running 2 */
		OKV("Blocked Threads", 0),         /* procs_blocked 0 */
		OKV("Threads", 320),               /* 2/320 */
		OKV("System Up Time", 5002),       /* 500200 x 0.01 */
		OKV("Load Average (1 min)", 1.25), /* 125 x 0.01 */
		OKV("Load Average (5 min)", 0.75), /* 75 x 0.01 */
		OKV("Load Average (15 min)", 0.66),/* 66 x 0.01 */
	};
	static const struct want t2[] = {
		OKV("Context Switches/sec", 2000),  /* (1007000 - 1004000) / 1.5 */
		OKV("Processes Created/sec", 4),    /* (20016 - 20010) / 1.5 */
		OKV("Processor Queue Length", 5),   /* procs_running 5 */
		OKV("Blocked Threads", 2),          /* procs_blocked 2 */
		OKV("Threads", 301),                /* 5/301 */
		OKV("System Up Time", 5003.5),      /* 500350 x 0.01 */
		OKV("Load Average (1 min)", 10.05), /* 1005 x 0.01 */
		OKV("Load Average (5 min)", 2.5),   /* 250 x 0.01 */
		OKV("Load Average (15 min)", 0.7),  /* 70 x 0.01 */
	};

	(void)unused;
	series_load(&s, &provider_system, "sysmem-basic", 3, ~(uint64_t)0);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(s.rs[i].ninstances, 1);
		assert_string_equal(raw_name_at(&s.rs[i], 0), "");
	}
	CHECK_ALL(&s, 0, t0);
	CHECK_ALL(&s, 1, t1);
	CHECK_ALL(&s, 2, t2);
	series_free(&s);
}

/*
 * sysmem-old: a 2.4 kernel's /proc/stat (no procs_running, procs_blocked);
 * dt = 704 - 700 = 4 s; ctxt 5000 -> 5400, processes 300 -> 312;
 * loadavg "0.10 0.20 0.30 1/48 301".
 */
static void
test_old(void **unused)
{
	struct series s;
	static const struct want t1[] = {
		OKV("Context Switches/sec", 100), /* (5400 - 5000) / 4 */
		OKV("Processes Created/sec", 3),  /* (312 - 300) / 4 */
		NOV("Processor Queue Length", ST_UNSUPPORTED),
		NOV("Blocked Threads", ST_UNSUPPORTED),
		OKV("Threads", 48),               /* 1/48 */
		OKV("System Up Time", 704),       /* 70400 x 0.01 */
		OKV("Load Average (1 min)", 0.1), /* 10 x 0.01 */
		OKV("Load Average (5 min)", 0.2), /* 20 x 0.01 */
		OKV("Load Average (15 min)", 0.3),/* 30 x 0.01 */
	};

	(void)unused;
	series_load(&s, &provider_system, "sysmem-old", 2, ~(uint64_t)0);
	CHECK_ALL(&s, 1, t1);
	series_free(&s);
}

/* Only the fields of the requested counters are read: asking for Threads
 * reads /proc/loadavg only (no /proc/stat field, no up time appears);
 * asking for nothing still gives the one instance. A missing file leaves
 * its counters UNSUPPORTED without failing the set. */
static void
test_needed(void **unused)
{
	const struct counter_set *set = provider_system.set;
	uint64_t threads = fields_of(set, "Threads");
	uint64_t ctxt = fields_of(set, "Context Switches/sec");
	uint64_t loadavg = threads | fields_of(set, "Load Average (1 min)") |
			   fields_of(set, "Load Average (5 min)") |
			   fields_of(set, "Load Average (15 min)");
	struct series s;

	(void)unused;
	series_load(&s, &provider_system, "sysmem-basic", 2, threads);
	assert_int_equal(s.rs[1].ninstances, 1);
	/* the whole of /proc/loadavg, nothing from /proc/stat or uptime */
	assert_int_equal(raw_present_at(&s.rs[1], 0), loadavg);
	series_free(&s);

	series_load(&s, &provider_system, "sysmem-basic", 2, ctxt);
	assert_int_equal(raw_present_at(&s.rs[1], 0), ctxt);
	series_free(&s);

	series_load(&s, &provider_system, "sysmem-basic", 2, 0);
	assert_int_equal(s.rs[1].ninstances, 1);
	assert_int_equal(raw_present_at(&s.rs[1], 0), 0);
	series_free(&s);

	/* cpu-basic has no proc/loadavg */
	series_load(&s, &provider_system, "cpu-basic", 2, ~(uint64_t)0);
	static const struct want t1[] = {
		NOV("Threads", ST_UNSUPPORTED),
		NOV("Load Average (1 min)", ST_UNSUPPORTED),
		OKV("System Up Time", 1002), /* 100200 x 0.01 */
		OKV("Context Switches/sec", 0), /* ctxt 500000 both times */
	};
	CHECK_ALL(&s, 1, t1);
	series_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_shape),
		cmocka_unit_test(test_parse_stat_keys),
		cmocka_unit_test(test_parse_loadavg_uptime),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_old),
		cmocka_unit_test(test_needed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
