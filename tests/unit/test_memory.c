/*
 * test_memory.c - the Memory provider and the keyed parser of /proc/meminfo
 * and /proc/vmstat, end to end through derive over the fixture series
 * tests/fixtures/sysmem-*: every counter with its arithmetic, keys in any
 * order (and keys that share a prefix or suffix), a 2.4 kernel's meminfo
 * with no vmstat, and reading only the files the requested counters need.
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

extern const struct provider provider_memory;

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
	"Available Bytes", "Available KBytes", "Available MBytes", "Committed Bytes",
	"Commit Limit",    "% Committed Bytes In Use", "Cache Bytes", "Page Faults/sec",
	"Major Faults/sec", "Pages Input/sec", "Pages Output/sec", "Pages/sec",
	"Free Bytes",      "Swap Used Bytes",
};

static void
test_set_shape(void **unused)
{
	const struct counter_set *set = provider_memory.set;

	(void)unused;
	assert_string_equal(set->name, "Memory");
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

/* Keys match whole, in any order: "Cached" is not "SwapCached", "Mem:" is
 * not "MemFree", "pgfault" is not "pgfault_x". */
static void
test_parse_keys(void **unused)
{
	static const char *const keys[] = { "Cached", "MemFree", "Committed_AS", "pgfault",
					    "SwapFree" };
	const char text[] = "        total:    used:    free:\n"
			    "Mem:  262144000 221184000 40960000\n"
			    "SwapCached:       1200 kB\n"
			    "Committed_AS_x:      9 kB\n"
			    "pgfault_x 17\n"
			    "Committed_AS:    3048574 kB\n"
			    "MemFree:        40000 kB\n"
			    "Cached:         90000 kB\n"
			    "pgfault 1000\n"
			    "Cached:         1 kB\n"
			    "SwapFree:\n";
	uint64_t v[5] = { 0 };
	uint64_t got;

	(void)unused;
	got = procstat_keys(text, strlen(text), keys, 5, 0x1f, v);
	assert_int_equal(got, 0xf); /* SwapFree has no value */
	assert_int_equal(v[0], 90000); /* the first Cached line, not SwapCached */
	assert_int_equal(v[1], 40000);
	assert_int_equal(v[2], 3048574);
	assert_int_equal(v[3], 1000);
	/* unwanted keys are left alone; bits past nkeys are ignored */
	memset(v, 0, sizeof(v));
	got = procstat_keys(text, strlen(text), keys, 5, 0x2 | 0x100, v);
	assert_int_equal(got, 0x2);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 40000);
}

/* procstat_keys_at, its places kept from text to text, gives what
 * procstat_keys gives: with the lines where they were, moved, some gone or
 * valueless, the text shorter than a place, a place that lands inside
 * another key's line. */
static void
test_parse_keys_at(void **unused)
{
	static const char *const keys[] = { "ctxt", "btime", "procs_running", "Cached", "pgfault" };
	static const char *const lines[] = {
		"ctxt 111\n", "btime 222\n", "procs_running 3\n", "Cached:   44 kB\n",
		"pgfault 555\n", "SwapCached: 6 kB\n", "intr 1 2 3 4 5 6 7 8 9\n",
		"procs_running\n", "btime_x 9\n", "ctx 1\n",
	};
	uint32_t at[5];
	unsigned seed = 5;

	(void)unused;
	memset(at, 0xFF, sizeof(at));
	for (int round = 0; round < 400; round++) {
		char text[512] = "";
		size_t n = (size_t)(rand_r(&seed) % 8);
		/* mostly the same text as the round before, as a file is */
		if (round % 4 == 0)
			seed = (unsigned)round;
		unsigned local = seed;
		for (size_t k = 0; k < n + 3; k++)
			strcat(text, lines[rand_r(&local) % (sizeof(lines) / sizeof(lines[0]))]);
		uint64_t want = (uint64_t)(rand_r(&seed) % 32) | 1;
		uint64_t a[5] = { 0 }, b[5] = { 0 };
		uint64_t fa = procstat_keys_at(text, strlen(text), keys, 5, want, a, at);
		uint64_t fb = procstat_keys(text, strlen(text), keys, 5, want, b);
		assert_int_equal(fa, fb);
		for (int i = 0; i < 5; i++)
			if (fb & ((uint64_t)1 << i))
				assert_int_equal(a[i], b[i]);
	}
	/* a place found is used: the same text again finds every key */
	const char *t = "x 1\nbtime 7\nctxt 8\n";
	uint64_t v[5];
	memset(at, 0xFF, sizeof(at));
	assert_int_equal(procstat_keys_at(t, strlen(t), keys, 5, 3, v, at), 3);
	assert_int_equal(at[0], 12);
	assert_int_equal(at[1], 4);
	assert_int_equal(procstat_keys_at(t, strlen(t), keys, 5, 3, v, at), 3);
	assert_int_equal(v[0], 8);
	assert_int_equal(v[1], 7);
	/* a place inside a line ("Cached" in "SwapCached"), on a longer key
	 * ("btime9"), or past the text's end is not the key's line */
	t = "SwapCached: 6 kB\nbtime9 5\nCached: 44 kB\nbtime 222\n";
	at[3] = 4;
	at[1] = 17;
	at[0] = 4000;
	assert_int_equal(procstat_keys_at(t, strlen(t), keys, 5, 0xb, v, at), 0xa);
	assert_int_equal(v[3], 44);
	assert_int_equal(v[1], 222);
	assert_int_equal(at[3], 26);
	assert_int_equal(at[1], 40);
	assert_int_equal(at[0], 4000); /* not found: left as it was */
}

/*
 * sysmem-basic (meminfo in kB; dt(t0,t1) = 2 s, dt(t1,t2) = 1.5 s):
 *       MemFree MemAvail Buffers Cached  SRecl  SwapTotal SwapFree CommitLimit Committed_AS
 *   t0  1000000 4000000  100000  2000000 300000 2097148   2000000  6097148     3048574
 *   t1   900000 3900000  100100  2050000 299900 2097148   1990000  6097148     4572861
 *   t2   800000    1024       0     1000      0 2097148         0  6097148     9145722
 * vmstat:
 *       pgfault  pgmajfault pswpin pswpout
 *   t0  1000000  500        100    200
 *   t1  1000600  510        104    210
 *   t2  1001200  513        104    213
 */
static void
test_basic(void **unused)
{
	struct series s;
	/* The first read: RAW and FRACTION have values (FIRST), rates none. */
	static const struct want t0[] = {
		{ "Available Bytes", 4000000.0 * 1024, ST_FIRST },  /* = 4096000000 */
		{ "Available KBytes", 4000000, ST_FIRST },
		{ "Available MBytes", 3906.25, ST_FIRST },          /* 4000000 / 1024 */
		{ "Committed Bytes", 3048574.0 * 1024, ST_FIRST },  /* = 3121739776 */
		{ "Commit Limit", 6097148.0 * 1024, ST_FIRST },     /* = 6243479552 */
		{ "% Committed Bytes In Use", 50, ST_FIRST },       /* 100 x 3048574 / 6097148 */
		/* (2000000 + 100000 + 300000) x 1024 */
		{ "Cache Bytes", 2400000.0 * 1024, ST_FIRST },
		{ "Free Bytes", 1000000.0 * 1024, ST_FIRST },       /* = 1024000000 */
		{ "Swap Used Bytes", 97148.0 * 1024, ST_FIRST },    /* (2097148 - 2000000) x 1024 = 99479552 */
		NOV("Page Faults/sec", ST_FIRST),
		NOV("Major Faults/sec", ST_FIRST),
		NOV("Pages Input/sec", ST_FIRST),
		NOV("Pages Output/sec", ST_FIRST),
		NOV("Pages/sec", ST_FIRST),
	};
	static const struct want t1[] = {
		OKV("Available Bytes", 3900000.0 * 1024), /* = 3993600000 */
		OKV("Available KBytes", 3900000),
		OKV("Available MBytes", 3808.59375),      /* 3900000 / 1024 */
		OKV("Committed Bytes", 4572861.0 * 1024), /* = 4682609664 */
		OKV("Commit Limit", 6097148.0 * 1024),    /* = 6243479552 */
		OKV("% Committed Bytes In Use", 75),      /* 100 x 4572861 / 6097148 */
		OKV("Cache Bytes", 2450000.0 * 1024),     /* (2050000 + 100100 + 299900) x 1024 = 2508800000 */
		OKV("Free Bytes", 900000.0 * 1024),       /* = 921600000 */
		OKV("Swap Used Bytes", 107148.0 * 1024),  /* (2097148 - 1990000) x 1024 = 109719552 */
		OKV("Page Faults/sec", 300),              /* (1000600 - 1000000) / 2 */
		OKV("Major Faults/sec", 5),               /* (510 - 500) / 2 */
		OKV("Pages Input/sec", 2),                /* (104 - 100) / 2 */
		OKV("Pages Output/sec", 5),               /* (210 - 200) / 2 */
		OKV("Pages/sec", 7),                      /* (4 + 10) / 2 */
	};
	static const struct want t2[] = {
		OKV("Available Bytes", 1048576),          /* 1024 x 1024 */
		OKV("Available KBytes", 1024),
		OKV("Available MBytes", 1),               /* 1024 / 1024 */
		OKV("Committed Bytes", 9145722.0 * 1024), /* = 9365219328 */
		OKV("Commit Limit", 6097148.0 * 1024),
		OKV("% Committed Bytes In Use", 150),     /* 100 x 9145722 / 6097148: overcommitted */
		OKV("Cache Bytes", 1024000),              /* (1000 + 0 + 0) x 1024 */
		OKV("Free Bytes", 800000.0 * 1024),       /* = 819200000 */
		OKV("Swap Used Bytes", 2097148.0 * 1024), /* (2097148 - 0) x 1024 = 2147479552 */
		OKV("Page Faults/sec", 400),              /* (1001200 - 1000600) / 1.5 */
		OKV("Major Faults/sec", 2),               /* (513 - 510) / 1.5 */
		OKV("Pages Input/sec", 0),                /* (104 - 104) / 1.5 */
		OKV("Pages Output/sec", 2),               /* (213 - 210) / 1.5 */
		OKV("Pages/sec", 2),                      /* (0 + 3) / 1.5 */
	};

	(void)unused;
	series_load(&s, &provider_memory, "sysmem-basic", 3, ~(uint64_t)0);
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
 * sysmem-old: a 2.4 kernel. meminfo starts with its "Mem:"/"Swap:" table and
 * has no MemAvailable, SReclaimable, CommitLimit or Committed_AS; there is
 * no /proc/vmstat. dt = 4 s. t1: MemFree 39000, Buffers 8100, Cached 91000,
 * SwapTotal 524288, SwapFree 499000.
 */
static void
test_old(void **unused)
{
	struct series s;
	static const struct want t1[] = {
		NOV("Available Bytes", ST_UNSUPPORTED),
		NOV("Available KBytes", ST_UNSUPPORTED),
		NOV("Available MBytes", ST_UNSUPPORTED),
		NOV("Committed Bytes", ST_UNSUPPORTED),
		NOV("Commit Limit", ST_UNSUPPORTED),
		NOV("% Committed Bytes In Use", ST_UNSUPPORTED),
		OKV("Cache Bytes", 99100.0 * 1024),    /* (91000 + 8100) x 1024 = 101478400 */
		OKV("Free Bytes", 39000.0 * 1024),     /* = 39936000 */
		OKV("Swap Used Bytes", 25288.0 * 1024),/* (524288 - 499000) x 1024 = 25894912 */
		NOV("Page Faults/sec", ST_UNSUPPORTED),
		NOV("Major Faults/sec", ST_UNSUPPORTED),
		NOV("Pages Input/sec", ST_UNSUPPORTED),
		NOV("Pages Output/sec", ST_UNSUPPORTED),
		NOV("Pages/sec", ST_UNSUPPORTED),
	};

	(void)unused;
	series_load(&s, &provider_memory, "sysmem-old", 2, ~(uint64_t)0);
	CHECK_ALL(&s, 1, t1);
	series_free(&s);
}

/* Only the files of the requested counters are read, and only the keys
 * they need are parsed. */
static void
test_needed(void **unused)
{
	const struct counter_set *set = provider_memory.set;
	uint64_t faults = fields_of(set, "Page Faults/sec");
	uint64_t avail = fields_of(set, "Available MBytes");
	uint64_t commit = fields_of(set, "% Committed Bytes In Use");
	struct series s;

	(void)unused;
	series_load(&s, &provider_memory, "sysmem-basic", 2, faults);
	assert_int_equal(raw_present_at(&s.rs[1], 0), faults); /* nothing from meminfo */
	series_free(&s);

	series_load(&s, &provider_memory, "sysmem-basic", 2, avail | commit);
	assert_int_equal(raw_present_at(&s.rs[1], 0), avail | commit); /* nothing from vmstat */
	static const struct want t1[] = {
		OKV("Available MBytes", 3808.59375),  /* 3900000 / 1024 */
		OKV("% Committed Bytes In Use", 75),  /* 100 x 4572861 / 6097148 */
		NOV("Free Bytes", ST_UNSUPPORTED),    /* not asked for, not read */
	};
	CHECK_ALL(&s, 1, t1);
	series_free(&s);

	series_load(&s, &provider_memory, "sysmem-basic", 2, 0);
	assert_int_equal(s.rs[1].ninstances, 1);
	assert_int_equal(raw_present_at(&s.rs[1], 0), 0);
	series_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_shape),
		cmocka_unit_test(test_parse_keys),
		cmocka_unit_test(test_parse_keys_at),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_old),
		cmocka_unit_test(test_needed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
