/*
 * test_cpuidle.c - the cpufreq and cpuidle reader and the Processor Idle
 * State set, end to end through derive over tests/fixtures/cpufreq-*: the
 * attribute parsers on strings, the k-th non-POLL state as C-state k (ten
 * at most), the state names the help text can show ("C6 + C10"), only the
 * wanted files read, every state an instance ("0/C1E", "1/POLL") with
 * "_Total/STATE" the mean over CPUs, an idle time that reads 0 then too
 * much (clamped), CPUs going offline and back, and no cpuidle at all.
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
#include <sys/resource.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "series.h"

#include "cpuidle.h"
#include "derive.h"
#include "provider.h"

extern const struct provider provider_processor_idle_state;

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

static void
test_parse(void **unused)
{
	uint64_t v = 0;
	char name[CPUIDLE_NAME_LEN];

	(void)unused;
	assert_int_equal(cpuidle_parse_u64("2400000\n", &v), 0);
	assert_int_equal(v, 2400000);
	assert_int_equal(cpuidle_parse_u64(" 7 \n", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(cpuidle_parse_u64("18446744073709551615\n", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(cpuidle_parse_u64("<unknown>\n", &v), -1); /* some cpufreq drivers */
	assert_int_equal(cpuidle_parse_u64("", &v), -1);
	assert_int_equal(cpuidle_parse_u64("\n", &v), -1);
	assert_int_equal(cpuidle_parse_u64("12 34\n", &v), -1);
	assert_int_equal(cpuidle_parse_u64("-1\n", &v), -1);

	assert_int_equal(cpuidle_parse_name("C1E\n", name, sizeof(name)), 3);
	assert_string_equal(name, "C1E");
	assert_int_equal(cpuidle_parse_name("C6 \n", name, sizeof(name)), 2);
	assert_string_equal(name, "C6");
	cpuidle_parse_name("a/b\tc\n", name, sizeof(name)); /* no '/' in an instance's part */
	assert_string_equal(name, "a_b_c");
	assert_int_equal(cpuidle_parse_name("ABCDEFGHIJKLMNOPQRST\n", name, sizeof(name)), 15);
	assert_string_equal(name, "ABCDEFGHIJKLMNO");
	assert_int_equal(cpuidle_parse_name("", name, sizeof(name)), 0);
	assert_string_equal(name, "");
}

/* A reader over one root, read 0. */
static struct cpuidle_reader *
reader_at(struct procfs **fs, const char *root, const struct cpuidle_want *want)
{
	struct err err = { "" };

	*fs = procfs_new(&root, 1);
	assert_int_equal(procfs_begin_read(*fs, 0, &err), 0);
	return cpuidle_reader_new(*fs, want);
}

/* cpufreq-basic t0: POLL, C1, C1E, C6, C10 per CPU, with cpufreq. */
static void
test_reader_states(void **unused)
{
	struct cpuidle_want all = { 1, 1, CPUIDLE_EVERY_STATE, CPUIDLE_EVERY_STATE };
	struct procfs *fs;
	struct cpuidle_reader *r = reader_at(&fs, "../fixtures/cpufreq-basic/t0", &all);
	const struct cpuidle_cpu *c;
	char names[64];
	static const char *const want_names[] = { "POLL", "C1", "C1E", "C6", "C10" };

	(void)unused;
	cpuidle_reader_begin(r);
	c = cpuidle_reader_read(r, 0);
	assert_int_equal(c->cpu, 0);
	assert_int_equal(c->have, CPUIDLE_HAVE_CUR_FREQ | CPUIDLE_HAVE_MAX_FREQ);
	assert_int_equal(c->cur_khz, 2400000);
	assert_int_equal(c->max_khz, 3000000);
	assert_int_equal(c->nstates, 5);
	for (unsigned k = 0; k < 5; k++) {
		assert_string_equal(c->state[k].name, want_names[k]);
		assert_int_equal(c->state[k].cstate, k); /* POLL is 0, then C-state 1, 2, ... */
		assert_int_equal(c->state[k].have, CPUIDLE_HAVE_TIME | CPUIDLE_HAVE_USAGE);
	}
	assert_int_equal(c->state[3].time_us, 1000000);
	assert_int_equal(c->state[4].usage, 50);
	/* the help text's "here ..." */
	assert_int_equal(cpuidle_cstate_names(c, 3, CPUIDLE_CSTATES, names, sizeof(names)), 8);
	assert_string_equal(names, "C6 + C10");
	cpuidle_cstate_names(c, 1, 1, names, sizeof(names));
	assert_string_equal(names, "C1");
	cpuidle_cstate_names(c, 2, 2, names, sizeof(names));
	assert_string_equal(names, "C1E");
	assert_int_equal(cpuidle_cstate_names(c, 5, CPUIDLE_CSTATES, names, sizeof(names)), 0);
	assert_string_equal(names, "");
	assert_int_equal(cpuidle_cstate_names(c, 1, 10, names, 6), 2); /* "C1 + C1E" cut */
	assert_string_equal(names, "C1");
	/* a CPU that is not there: nothing, never NULL */
	c = cpuidle_reader_read(r, 7);
	assert_int_equal(c->have, 0);
	assert_int_equal(c->nstates, 0);
	c = cpuidle_reader_read(r, 1u << 30);
	assert_int_equal(c->nstates, 0);
	cpuidle_reader_free(r);
	procfs_free(fs);
}

/* Only what is wanted is read: C1's time, no cpufreq, no other state. */
static void
test_reader_wanted(void **unused)
{
	struct cpuidle_want c1 = { 0, 0, 1u << 1, 0 };
	struct procfs *fs;
	struct cpuidle_reader *r = reader_at(&fs, "../fixtures/cpufreq-basic/t1", &c1);
	const struct cpuidle_cpu *c;

	(void)unused;
	cpuidle_reader_begin(r);
	c = cpuidle_reader_read(r, 0);
	assert_int_equal(c->have, 0);
	assert_int_equal(c->nstates, 5);
	assert_int_equal(c->state[1].have, CPUIDLE_HAVE_TIME);
	assert_int_equal(c->state[1].time_us, 300000);
	for (unsigned k = 0; k < 5; k++)
		if (k != 1)
			assert_int_equal(c->state[k].have, 0);
	/* again: same values from the files kept open (pread at 0) */
	c = cpuidle_reader_read(r, 0);
	assert_int_equal(c->state[1].time_us, 300000);
	cpuidle_reader_free(r);
	procfs_free(fs);

	/* nothing wanted of cpuidle: its states are not even looked at */
	struct cpuidle_want freq = { 1, 0, 0, 0 };
	r = reader_at(&fs, "../fixtures/cpufreq-basic/t1", &freq);
	c = cpuidle_reader_read(r, 1);
	assert_int_equal(c->have, CPUIDLE_HAVE_CUR_FREQ);
	assert_int_equal(c->cur_khz, 2700000);
	assert_int_equal(c->nstates, 0);
	cpuidle_reader_free(r);
	procfs_free(fs);
}

/* Write text to root/rel, making its directories. */
static void
put_file(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		(void)mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

#define STATE0 "sys/devices/system/cpu/cpu0/cpuidle/state0/"
#define STATE1 "sys/devices/system/cpu/cpu0/cpuidle/state1/"

/* The three sets share one reader per procfs: a CPU is read once a read
 * generation whoever asks, with what any of them wants; the last free
 * frees it. A file rewritten within a generation is not read again. */
static void
test_reader_shared(void **unused)
{
	char root[] = "/tmp/gc-cpuidle-XXXXXX";
	const char *roots[1] = { root };
	struct cpuidle_want c1 = { 0, 0, 1u << 1, 0 }, all = { 0, 0, CPUIDLE_EVERY_STATE,
							       CPUIDLE_EVERY_STATE };
	struct err err = { "" };
	const struct cpuidle_cpu *c;
	char cmd[64];

	(void)unused;
	assert_non_null(mkdtemp(root));
	put_file(root, STATE0 "name", "POLL\n");
	put_file(root, STATE0 "time", "5\n");
	put_file(root, STATE0 "usage", "6\n");
	put_file(root, STATE1 "name", "C1\n");
	put_file(root, STATE1 "time", "100\n");
	put_file(root, STATE1 "usage", "7\n");
	struct procfs *fs = procfs_new(roots, 1);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);

	struct cpuidle_reader *a = cpuidle_reader_new(fs, &c1);
	struct cpuidle_reader *b = cpuidle_reader_new(fs, &all);
	assert_ptr_equal(a, b);
	cpuidle_reader_begin(a);
	c = cpuidle_reader_read(a, 0);
	assert_int_equal(c->nstates, 2);
	/* both wants: POLL's time and usage too, for the second set */
	assert_int_equal(c->state[0].have, CPUIDLE_HAVE_TIME | CPUIDLE_HAVE_USAGE);
	assert_int_equal(c->state[1].time_us, 100);
	assert_int_equal(c->state[1].usage, 7);

	/* the same generation: the second set gets the first one's read */
	put_file(root, STATE1 "time", "200\n");
	cpuidle_reader_begin(b);
	c = cpuidle_reader_read(b, 0);
	assert_int_equal(c->state[1].time_us, 100);
	/* the next one reads the file again */
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	cpuidle_reader_begin(a);
	c = cpuidle_reader_read(a, 0);
	assert_int_equal(c->state[1].time_us, 200);

	/* one free leaves it to the other; the last one frees it, and a new
	 * reader reads only its own want */
	cpuidle_reader_free(a);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	cpuidle_reader_begin(b);
	c = cpuidle_reader_read(b, 0);
	assert_int_equal(c->state[0].usage, 6);
	cpuidle_reader_free(b);
	assert_null(*procfs_shared(fs, PROCFS_SHARED_CPUIDLE));
	a = cpuidle_reader_new(fs, &c1);
	cpuidle_reader_begin(a);
	c = cpuidle_reader_read(a, 0);
	assert_int_equal(c->state[0].have, 0);
	assert_int_equal(c->state[1].have, CPUIDLE_HAVE_TIME);
	cpuidle_reader_free(a);
	procfs_free(fs);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/* cpufreq-old t1: no POLL (C1 is state0), "<unknown>", eleven states. */
static void
test_reader_old(void **unused)
{
	struct cpuidle_want all = { 1, 1, CPUIDLE_EVERY_STATE, CPUIDLE_EVERY_STATE };
	struct procfs *fs;
	struct cpuidle_reader *r = reader_at(&fs, "../fixtures/cpufreq-old/t1", &all);
	const struct cpuidle_cpu *c;
	char names[128];

	(void)unused;
	c = cpuidle_reader_read(r, 0);
	assert_int_equal(c->have, 0); /* no cpufreq */
	assert_int_equal(c->nstates, 2);
	assert_int_equal(c->state[0].cstate, 1);
	assert_int_equal(c->state[1].cstate, 2);
	c = cpuidle_reader_read(r, 1);
	assert_int_equal(c->have, CPUIDLE_HAVE_CUR_FREQ | CPUIDLE_HAVE_MAX_FREQ);
	assert_int_equal(c->max_khz, 0);
	assert_int_equal(c->nstates, 0);
	c = cpuidle_reader_read(r, 2);
	assert_int_equal(c->have, CPUIDLE_HAVE_MAX_FREQ); /* scaling_cur_freq "<unknown>" */
	assert_int_equal(c->nstates, 1);
	assert_int_equal(c->state[0].cstate, 0);
	c = cpuidle_reader_read(r, 3);
	assert_int_equal(c->nstates, 12);
	assert_int_equal(c->state[10].cstate, 10); /* S10 */
	assert_int_equal(c->state[11].cstate, 0);  /* S11: past the tenth */
	assert_int_equal(c->state[11].have, CPUIDLE_HAVE_TIME | CPUIDLE_HAVE_USAGE);
	cpuidle_cstate_names(c, 3, CPUIDLE_CSTATES, names, sizeof(names));
	assert_string_equal(names, "S3 + S4 + S5 + S6 + S7 + S8 + S9 + S10");
	cpuidle_reader_free(r);
	procfs_free(fs);
}

/* Past its share of the descriptor limit (a quarter) a reader opens files
 * for each read instead of keeping them: the same values either way. */
static void
test_reader_fd_budget(void **unused)
{
	struct cpuidle_want all = { 1, 1, CPUIDLE_EVERY_STATE, CPUIDLE_EVERY_STATE };
	struct rlimit saved, low;
	struct procfs *fs;
	struct cpuidle_reader *r;

	(void)unused;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
	low = saved;
	low.rlim_cur = 40; /* a budget of 10 kept files; cpu3 wants 24 */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	r = reader_at(&fs, "../fixtures/cpufreq-old/t1", &all);
	for (int pass = 0; pass < 2; pass++) {
		const struct cpuidle_cpu *c = cpuidle_reader_read(r, 3);
		assert_int_equal(c->nstates, 12);
		for (unsigned k = 1; k < 12; k++) {
			/* S<k>: time k x 10000, usage k */
			assert_int_equal(c->state[k].have, CPUIDLE_HAVE_TIME | CPUIDLE_HAVE_USAGE);
			assert_int_equal(c->state[k].time_us, k * 10000);
			assert_int_equal(c->state[k].usage, k);
		}
	}
	cpuidle_reader_free(r);
	procfs_free(fs);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
}

static void
test_set_shape(void **unused)
{
	const struct counter_set *set = provider_processor_idle_state.set;
	const struct counter_desc *c;

	(void)unused;
	assert_string_equal(set->name, "Processor Idle State");
	assert_true(set->multi_instance);
	assert_false(set->has_total); /* only _Total/STATE */
	assert_int_equal(set->group, GROUP_CHILD);
	assert_int_equal(set->ncounters, 2);
	c = counter_set_find(set, "% Time in State");
	assert_non_null(c);
	assert_int_equal(c->type, CT_TIMER);
	assert_true(c->clamp100);
	assert_int_equal(c->total, TOTAL_MEAN);
	c = counter_set_find(set, "Transitions/sec");
	assert_non_null(c);
	assert_int_equal(c->type, CT_RATE);
	assert_int_equal(c->total, TOTAL_SUM);
}

/* cpufreq-basic (see test_cpu.c for the table): every state of both CPUs. */
static void
test_idle_state_basic(void **unused)
{
	struct series s;
	static const char *const names[] = { "0/POLL", "0/C1", "0/C1E", "0/C6", "0/C10",
					     "1/POLL", "1/C1", "1/C1E", "1/C6", "1/C10" };
	/* t0 -> t1, dt = 2 */
	static const struct want poll0[] = {
		OKV("% Time in State", 0.025), /* 100 x (1500 - 1000) x 1e-6 / 2 */
		OKV("Transitions/sec", 1),     /* (12 - 10) / 2 */
	};
	static const struct want c6_0[] = {
		OKV("% Time in State", 20), /* 100 x (1400000 - 1000000) x 1e-6 / 2 */
		OKV("Transitions/sec", 20), /* (140 - 100) / 2 */
	};
	static const struct want c10_0[] = {
		OKV("% Time in State", 30), /* 100 x 600000 x 1e-6 / 2 */
		OKV("Transitions/sec", 10), /* 20 / 2 */
	};
	static const struct want c6_1[] = {
		OKV("% Time in State", 0), /* a long idle, not credited yet */
		OKV("Transitions/sec", 0),
	};
	/* _Total/STATE: mean time over the CPUs, summed transitions */
	static const struct want c6_total[] = {
		OKV("% Time in State", 10), /* 100 x (400000 + 0) / 2 x 1e-6 / 2 */
		OKV("Transitions/sec", 20), /* (40 + 0) / 2 */
	};
	static const struct want poll_total[] = {
		OKV("% Time in State", 0.0125), /* 100 x (500 + 0) / 2 x 1e-6 / 2 */
		OKV("Transitions/sec", 1),      /* (2 + 0) / 2 */
	};
	/* t1 -> t2, dt = 1: cpu1's C6 is credited 3 s at once */
	static const struct want c6_1_t2[] = {
		OKV("% Time in State", 100), /* 100 x 3000000 x 1e-6 / 1 = 300, clamped */
		OKV("Transitions/sec", 1),   /* (21 - 20) / 1 */
	};
	static const struct want c6_total_t2[] = {
		OKV("% Time in State", 100), /* 100 x (300000 + 3000000) / 2 x 1e-6 / 1 = 165 */
		OKV("Transitions/sec", 11),  /* (10 + 1) / 1 */
	};
	static const struct want c1_total_t2[] = {
		OKV("% Time in State", 5),   /* 100 x (100000 + 0) / 2 x 1e-6 / 1 */
		OKV("Transitions/sec", 100), /* (100 + 0) / 1 */
	};

	(void)unused;
	series_load(&s, &provider_processor_idle_state, "cpufreq-basic", 3, ~(uint64_t)0);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(s.rs[i].ninstances, ARRAY_SIZE(names));
		for (size_t k = 0; k < ARRAY_SIZE(names); k++)
			assert_string_equal(raw_name_at(&s.rs[i], k), names[k]);
	}
	assert_int_equal(series_value(&s, 0, "% Time in State", "0/C6").status, ST_FIRST);
	CHECK_ALL(&s, 1, "0/POLL", poll0);
	CHECK_ALL(&s, 1, "0/C6", c6_0);
	CHECK_ALL(&s, 1, "0/C10", c10_0);
	CHECK_ALL(&s, 1, "1/C6", c6_1);
	CHECK_GROUP(&s, 1, "*/C6", c6_total);
	CHECK_GROUP(&s, 1, "*/POLL", poll_total);
	CHECK_ALL(&s, 2, "1/C6", c6_1_t2);
	CHECK_GROUP(&s, 2, "*/C6", c6_total_t2);
	CHECK_GROUP(&s, 2, "*/C1", c1_total_t2);
	series_free(&s);
}

/* Only the transitions asked for: no time file is read. */
static void
test_idle_state_needed(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, &provider_processor_idle_state, "cpufreq-basic", 2, 1u << 1);
	assert_int_equal(s.rs[1].ninstances, 10);
	for (size_t k = 0; k < 10; k++)
		assert_int_equal(raw_present_at(&s.rs[1], k), 1u << 1);
	assert_int_equal(series_value(&s, 1, "% Time in State", "0/C6").status, ST_UNSUPPORTED);
	assert_true(fabs(series_value(&s, 1, "Transitions/sec", "0/C6").v - 20) < 1e-9); /* 40 / 2 */
	series_free(&s);
}

/*
 * cpufreq-old, dt = 2: no online list (the CPUs are /proc/stat's), cpu1 has
 * no cpuidle, cpu2 only POLL, cpu3 eleven states past POLL (all shown here,
 * S11 included).
 */
static void
test_idle_state_old(void **unused)
{
	struct series s;
	static const struct want c1_0[] = {
		OKV("% Time in State", 10), /* 100 x 200000 x 1e-6 / 2 */
		OKV("Transitions/sec", 10), /* 20 / 2 */
	};
	static const struct want poll2[] = {
		OKV("% Time in State", 0.00025), /* 100 x 5 x 1e-6 / 2 */
		OKV("Transitions/sec", 0.5),     /* 1 / 2 */
	};
	static const struct want s11[] = {
		OKV("% Time in State", 5.5), /* 100 x 110000 x 1e-6 / 2 */
		OKV("Transitions/sec", 5.5), /* 11 / 2 */
	};
	static const struct want poll_total[] = {
		OKV("% Time in State", 0.000125), /* 100 x (5 + 0) / 2 x 1e-6 / 2 */
		OKV("Transitions/sec", 0.5),      /* (1 + 0) / 2 */
	};

	(void)unused;
	series_load(&s, &provider_processor_idle_state, "cpufreq-old", 2, ~(uint64_t)0);
	assert_int_equal(s.rs[1].ninstances, 2 + 1 + 12);
	assert_string_equal(raw_name_at(&s.rs[1], 0), "0/C1");
	assert_string_equal(raw_name_at(&s.rs[1], 1), "0/C2");
	assert_string_equal(raw_name_at(&s.rs[1], 2), "2/POLL");
	assert_string_equal(raw_name_at(&s.rs[1], 3), "3/POLL");
	assert_string_equal(raw_name_at(&s.rs[1], 14), "3/S11");
	assert_null(series_find(&s.rs[1], "1/C1"));
	CHECK_ALL(&s, 1, "0/C1", c1_0);
	CHECK_ALL(&s, 1, "2/POLL", poll2);
	CHECK_ALL(&s, 1, "3/S11", s11);
	CHECK_GROUP(&s, 1, "*/POLL", poll_total);
	series_free(&s);
}

/* cpufreq-hotplug: cpu1 offline at t1, back at t2 (NEW); dt = 2. */
static void
test_idle_state_hotplug(void **unused)
{
	struct series s;
	static const struct want c1_0[] = {
		OKV("% Time in State", 5), /* 100 x 100000 x 1e-6 / 2 */
		OKV("Transitions/sec", 5), /* 10 / 2 */
	};
	static const struct want c1_1[] = {
		NOV("% Time in State", ST_NEW),
		NOV("Transitions/sec", ST_NEW),
	};

	(void)unused;
	series_load(&s, &provider_processor_idle_state, "cpufreq-hotplug", 3, ~(uint64_t)0);
	assert_int_equal(s.rs[0].ninstances, 4);
	assert_int_equal(s.rs[1].ninstances, 2);
	assert_null(series_find(&s.rs[1], "1/C1"));
	assert_int_equal(s.rs[2].ninstances, 4);
	CHECK_ALL(&s, 1, "0/C1", c1_0);
	CHECK_GROUP(&s, 1, "*/C1", c1_0); /* cpu0 alone */
	CHECK_ALL(&s, 2, "0/C1", c1_0);
	CHECK_ALL(&s, 2, "1/C1", c1_1);
	CHECK_GROUP(&s, 2, "*/C1", c1_0); /* the NEW cpu1 is not in it yet */
	series_free(&s);
}

/* No cpuidle (cpu-basic has no sys/): no instances, and no error. */
static void
test_idle_state_none(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, &provider_processor_idle_state, "cpu-basic", 2, ~(uint64_t)0);
	assert_int_equal(s.rs[0].ninstances, 0);
	assert_int_equal(s.rs[1].ninstances, 0);
	series_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_reader_states),
		cmocka_unit_test(test_reader_wanted),
		cmocka_unit_test(test_reader_shared),
		cmocka_unit_test(test_reader_old),
		cmocka_unit_test(test_reader_fd_budget),
		cmocka_unit_test(test_set_shape),
		cmocka_unit_test(test_idle_state_basic),
		cmocka_unit_test(test_idle_state_needed),
		cmocka_unit_test(test_idle_state_old),
		cmocka_unit_test(test_idle_state_hotplug),
		cmocka_unit_test(test_idle_state_none),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
