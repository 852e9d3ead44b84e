/*
 * test_cpuinfo.c - CPU lists ("0-3,8-11") on strings, the CPU -> NUMA node
 * map, and the Processor Information set end to end through derive over
 * tests/fixtures/cpuinfo-numa (two nodes with interleaved ranges, a node
 * without CPUs), cpu-basic (no node directory: node 0) and cpu-offline (a
 * CPU that goes and comes back). "N,_Total" is the total of the instances
 * "N,*", formed here as the engine forms it (GROUP_NODE).
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

#include "cpuinfo.h"
#include "derive.h"
#include "provider.h"

extern const struct provider provider_processor;
extern const struct provider provider_processor_information;

#define MAX_INST 32

/* The total over the instances of read i whose names match pattern (NULL:
 * every instance in _Total), over the interval ending at read i, through
 * derive_total, as the engine forms _Total and group totals. */
static struct value
group_at(const struct series *s, size_t i, const char *name, const char *pattern)
{
	const struct counter_desc *c = series_counter(s, name);
	const struct raw_set *rs = &s->rs[i];
	const struct raw_instance *cur[MAX_INST];
	const struct field_deltas *dp[MAX_INST];
	FIELD_DELTAS_ARRAY(d, MAX_INST);
	uint8_t pair[MAX_INST];
	struct derive_env env = series_env(s, i);
	size_t n = 0;

	assert_true(i > 0);
	for (size_t k = 0; k < rs->ninstances && n < MAX_INST; k++) {
		const struct raw_instance *prev = series_find(&s->rs[i - 1], raw_name_at(rs, k));

		if (!raw_in_total_at(rs, k) ||
		    (pattern && !glob_match_ci(pattern, raw_name_at(rs, k))))
			continue;
		cur[n] = &rs->inst[k];
		dp[n] = NULL;
		pair[n] = ST_NEW;
		if (prev) {
			derive_deltas(&s->rs[i - 1], prev, rs, cur[n], &env, &d[n]);
			dp[n] = &d[n];
			pair[n] = ST_OK;
		}
		n++;
	}
	return derive_total(rs, c, cur, dp, pair, n, &env);
}

/* Check a table of values of one instance at read i. */
static void
check_all(const struct series *s, size_t i, const char *instance, const struct want *w, size_t n)
{
	for (size_t k = 0; k < n; k++)
		series_check(series_value(s, i, w[k].counter, instance), &w[k], instance, i);
}

/* Check a table of values of the total of the instances matching pattern. */
static void
check_group(const struct series *s, size_t i, const char *pattern, const struct want *w,
	    size_t n)
{
	for (size_t k = 0; k < n; k++)
		series_check(group_at(s, i, w[k].counter, pattern), &w[k], pattern ? pattern : "_Total",
		      i);
}

#define CHECK_ALL(s, i, inst, table) check_all((s), (i), (inst), (table), ARRAY_SIZE(table))
#define CHECK_GROUP(s, i, pat, table) check_group((s), (i), (pat), (table), ARRAY_SIZE(table))

/* The ranges of text, as "lo-hi " pairs, into out. */
static void
ranges(const char *text, char *out, size_t n)
{
	const char *p = text, *end = text + strlen(text);
	unsigned lo, hi;
	size_t len = 0;

	out[0] = '\0';
	while (cpuinfo_cpulist_next(&p, end, &lo, &hi) && len < n)
		len += (size_t)snprintf(out + len, n - len, "%u-%u ", lo, hi);
	assert_ptr_equal(p, end);
}

static void
test_cpulist(void **unused)
{
	char got[256];

	(void)unused;
	ranges("0-3,8-11\n", got, sizeof(got));
	assert_string_equal(got, "0-3 8-11 ");
	ranges("5", got, sizeof(got));
	assert_string_equal(got, "5-5 ");
	ranges("0,2,4-5,7\n", got, sizeof(got));
	assert_string_equal(got, "0-0 2-2 4-5 7-7 ");
	ranges("", got, sizeof(got));
	assert_string_equal(got, "");
	ranges("\n", got, sizeof(got)); /* a node without CPUs */
	assert_string_equal(got, "");
	ranges("0-65535\n", got, sizeof(got));
	assert_string_equal(got, "0-65535 ");
	/* not a CPU list: stop there */
	ranges("0-1,a\n", got, sizeof(got));
	assert_string_equal(got, "0-1 ");
	ranges("3-1\n", got, sizeof(got));
	assert_string_equal(got, "");
	ranges("0-99999999999\n", got, sizeof(got));
	assert_string_equal(got, "");
	ranges("1-\n", got, sizeof(got));
	assert_string_equal(got, "");
	ranges("2x\n", got, sizeof(got));
	assert_string_equal(got, "");
	/* the end bounds the scan, not a NUL */
	const char *text = "0-3,8-11";
	const char *p = text;
	unsigned lo, hi;
	assert_int_equal(cpuinfo_cpulist_next(&p, text + 3, &lo, &hi), 1);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 3);
	assert_int_equal(cpuinfo_cpulist_next(&p, text + 3, &lo, &hi), 0);
}

/* cpuinfo-numa: node0 "0-1,4", node1 "2-3,5", node2 "" (no CPU). */
static void
test_node_map(void **unused)
{
	const char *root = "../fixtures/cpuinfo-numa/t0";
	const char *flat = "../fixtures/cpu-basic/t0";
	struct err err = { "" };
	struct procfs *fs = procfs_new(&root, 1);
	struct cpuinfo_nodes *nm = cpuinfo_nodes_new(fs);
	static const unsigned want[] = { 0, 0, 1, 1, 0, 1 };

	(void)unused;
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	cpuinfo_nodes_load(nm);
	for (unsigned cpu = 0; cpu < ARRAY_SIZE(want); cpu++)
		assert_int_equal(cpuinfo_node_of(nm, cpu), want[cpu]);
	assert_int_equal(cpuinfo_node_of(nm, 6), 0);    /* named by no node: 0 */
	assert_int_equal(cpuinfo_node_of(nm, 1000), 0);
	assert_int_equal(cpuinfo_node_of(nm, 5), 1);    /* still known */
	cpuinfo_nodes_free(nm);
	procfs_free(fs);

	/* no sys/devices/system/node: every CPU in node 0 */
	fs = procfs_new(&flat, 1);
	nm = cpuinfo_nodes_new(fs);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	cpuinfo_nodes_load(nm);
	assert_int_equal(cpuinfo_node_of(nm, 0), 0);
	assert_int_equal(cpuinfo_node_of(nm, 1), 0);
	cpuinfo_nodes_free(nm);
	procfs_free(fs);
}

/* The same counters and fields as Processor, with node totals. */
static void
test_set_shape(void **unused)
{
	const struct counter_set *set = provider_processor_information.set;
	const struct counter_set *proc = provider_processor.set;

	(void)unused;
	assert_string_equal(set->name, "Processor Information");
	assert_true(set->multi_instance);
	assert_true(set->has_total);
	assert_int_equal(set->group, GROUP_NODE);
	assert_int_equal(set->ncounters, proc->ncounters);
	assert_int_equal(set->nfields, proc->nfields);
	for (size_t i = 0; i < set->ncounters; i++)
		assert_string_equal(set->counters[i].name, proc->counters[i].name);
	assert_non_null(set->help);
}

/*
 * cpuinfo-numa, dt = 2: six CPUs, 10-field lines; from t0 to t1 CPU k has
 * user +20 x (k + 1) and idle +200 - 20 x (k + 1) (T = 200), and runs at
 * (k + 1) x 1000000 kHz of 6000000.
 *   node 0: CPUs 0, 1, 4; node 1: CPUs 2, 3, 5
 */
static void
test_numa(void **unused)
{
	struct series s;
	static const char *const names[] = { "0,0", "0,1", "1,2", "1,3", "0,4", "1,5" };
	static const double busy[] = { 10, 20, 30, 40, 50, 60 }; /* 100 x 20 (k + 1) / 200 */
	static const struct want node0[] = {
		OKV("% Processor Time", 160.0 / 6),       /* 100 x (20 + 40 + 100) / 600 = 26.67 */
		OKV("% Idle Time", 440.0 / 6),            /* 100 x (180 + 160 + 100) / 600 */
		OKV("Processor Frequency", 8000.0 / 3),   /* (1000 + 2000 + 5000) / 3 = 2666.67 */
		OKV("% of Maximum Frequency", 400.0 / 9), /* 100 x 8e6 / 18e6 = 44.44 */
	};
	static const struct want node1[] = {
		OKV("% Processor Time", 260.0 / 6),        /* 100 x (60 + 80 + 120) / 600 = 43.33 */
		OKV("% Idle Time", 340.0 / 6),             /* 100 x (140 + 120 + 80) / 600 */
		OKV("Processor Frequency", 13000.0 / 3),   /* (3000 + 4000 + 6000) / 3 = 4333.33 */
		OKV("% of Maximum Frequency", 650.0 / 9),  /* 100 x 13e6 / 18e6 = 72.22 */
	};
	static const struct want total[] = {
		OKV("% Processor Time", 35),               /* 100 x 420 / 1200 */
		OKV("Processor Frequency", 3500),          /* 21000 / 6 */
		OKV("% of Maximum Frequency", 175.0 / 3),  /* 100 x 21e6 / 36e6 = 58.33 */
		NOV("% C1 Time", ST_UNSUPPORTED),          /* no cpuidle */
	};

	(void)unused;
	series_load(&s, &provider_processor_information, "cpuinfo-numa", 2, ~(uint64_t)0);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(s.rs[i].ninstances, ARRAY_SIZE(names));
		for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
			assert_string_equal(raw_name_at(&s.rs[i], k), names[k]);
			assert_int_equal(raw_identity_at(&s.rs[i], k), k); /* the CPU number */
			assert_true(raw_in_total_at(&s.rs[i], k));
		}
	}
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		struct want w = OKV("% Processor Time", busy[k]);
		series_check(series_value(&s, 1, w.counter, names[k]), &w, names[k], 1);
	}
	CHECK_GROUP(&s, 1, "0,*", node0);
	CHECK_GROUP(&s, 1, "1,*", node1);
	CHECK_GROUP(&s, 1, NULL, total);
	series_free(&s);
}

/* cpu-basic has no node directory: "0,0" and "0,1", the Processor values
 * (test_cpu.c: cpu0 55 %, cpu1 65 %, _Total 60 % from t0 to t1). */
static void
test_no_numa(void **unused)
{
	struct series s;
	static const struct want cpu0[] = { OKV("% Processor Time", 55) }; /* 110 / 200 */
	static const struct want cpu1[] = { OKV("% Processor Time", 65) }; /* 130 / 200 */
	static const struct want total[] = { OKV("% Processor Time", 60) }; /* 240 / 400 */

	(void)unused;
	series_load(&s, &provider_processor_information, "cpu-basic", 2, ~(uint64_t)0);
	assert_int_equal(s.rs[1].ninstances, 2);
	CHECK_ALL(&s, 1, "0,0", cpu0);
	CHECK_ALL(&s, 1, "0,1", cpu1);
	CHECK_GROUP(&s, 1, "0,*", total);
	CHECK_GROUP(&s, 1, NULL, total);
	series_free(&s);
}

/* cpu-offline: cpu1 vanishes at t1 and is NEW at t2 (test_cpu.c has the
 * values: _Total 37.5 % from t0 to t1 and from t1 to t2). */
static void
test_offline(void **unused)
{
	struct series s;
	static const struct want total[] = { OKV("% Processor Time", 37.5) }; /* 150 / 400 */
	static const struct want cpu1[] = { NOV("% Processor Time", ST_NEW) };

	(void)unused;
	series_load(&s, &provider_processor_information, "cpu-offline", 3, ~(uint64_t)0);
	assert_int_equal(s.rs[0].ninstances, 3);
	assert_int_equal(s.rs[1].ninstances, 2);
	assert_null(series_find(&s.rs[1], "0,1"));
	assert_int_equal(s.rs[2].ninstances, 3);
	CHECK_GROUP(&s, 1, "0,*", total);
	CHECK_ALL(&s, 2, "0,1", cpu1);
	CHECK_GROUP(&s, 2, "0,*", total);
	series_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_node_map),
		cmocka_unit_test(test_set_shape),
		cmocka_unit_test(test_numa),
		cmocka_unit_test(test_no_numa),
		cmocka_unit_test(test_offline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
