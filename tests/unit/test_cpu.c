/*
 * test_cpu.c - the Processor provider and its /proc/stat cpuN parser, end to
 * end through derive over the fixture series tests/fixtures/cpu-*: every
 * counter per CPU and for _Total (weighted by T), old kernels' short lines,
 * a field going backwards (clamped), T falling a lot (RESET), ticks that do
 * not move (zero bases), and a CPU that goes offline and comes back.
 *
 * Every fixture root has USER_HZ 100 ticks; dt comes from proc/uptime.
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

#include "derive.h"
#include "procstat.h"
#include "provider.h"

extern const struct provider provider_processor;

#define MAX_ROOTS 8
#define MAX_INST 16

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

/* Read roots ../fixtures/CASE/t0 .. t(n-1) with provider p. */
static void
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

static void
series_free(struct series *s)
{
	s->prov->close(s->state);
	for (size_t i = 0; i < s->n; i++)
		raw_set_free(&s->rs[i]);
	procfs_free(s->fs);
}

static const struct raw_instance *
find(const struct raw_set *rs, const char *name)
{
	for (size_t i = 0; i < rs->ninstances; i++)
		if (strcmp(rs->inst[i].name, name) == 0)
			return &rs->inst[i];
	return NULL;
}

static struct derive_env
env_at(const struct series *s, size_t i)
{
	struct derive_env env = { 0, 0, 100, 64 };

	if (i > 0)
		env.dt = s->uptime[i] - s->uptime[i - 1];
	return env;
}

static const struct counter_desc *
counter(const struct series *s, const char *name)
{
	const struct counter_desc *c = counter_set_find(s->prov->set, name);

	if (!c)
		fail_msg("no counter '%s' in %s", name, s->prov->set->name);
	return c;
}

/* The value of one instance over the interval ending at read i (i = 0:
 * the first read). */
static struct value
value_at(const struct series *s, size_t i, const char *name, const char *instance)
{
	const struct counter_desc *c = counter(s, name);
	const struct raw_instance *cur = find(&s->rs[i], instance), *prev;
	struct derive_env env = env_at(s, i);
	struct field_deltas d;

	if (!cur)
		fail_msg("no instance '%s' in read %zu", instance, i);
	if (i == 0)
		return derive_value(s->prov->set, c, cur, NULL, ST_FIRST, &env);
	prev = find(&s->rs[i - 1], instance);
	if (!prev)
		return derive_value(s->prov->set, c, cur, NULL, ST_NEW, &env);
	derive_deltas(s->prov->set, prev, cur, &env, &d);
	return derive_value(s->prov->set, c, cur, &d, ST_OK, &env);
}

/* _Total over the interval ending at read i, through derive_total. */
static struct value
total_at(const struct series *s, size_t i, const char *name)
{
	const struct counter_desc *c = counter(s, name);
	const struct raw_set *rs = &s->rs[i];
	const struct raw_instance *cur[MAX_INST];
	const struct field_deltas *dp[MAX_INST];
	struct field_deltas d[MAX_INST];
	uint8_t pair[MAX_INST];
	struct derive_env env = env_at(s, i);
	size_t n = 0;

	assert_true(i > 0);
	for (size_t k = 0; k < rs->ninstances && n < MAX_INST; k++) {
		const struct raw_instance *prev = find(&s->rs[i - 1], rs->inst[k].name);

		if (!rs->inst[k].in_total)
			continue;
		cur[n] = &rs->inst[k];
		dp[n] = NULL;
		pair[n] = ST_NEW;
		if (prev) {
			derive_deltas(s->prov->set, prev, cur[n], &env, &d[n]);
			dp[n] = &d[n];
			pair[n] = ST_OK;
		}
		n++;
	}
	return derive_total(s->prov->set, c, cur, dp, pair, n, &env);
}

/* One expected value: status ST_OK (0) unless st says otherwise. */
struct want {
	const char *counter;
	double v;
	uint8_t st;
};

#define OKV(name, v) { (name), (v), ST_OK }
#define NOV(name, st) { (name), 0, (st) }

static void
check(struct value got, const struct want *w, const char *instance, size_t i)
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

/* Check a table of values of one instance (NULL: _Total) at read i. */
static void
check_all(const struct series *s, size_t i, const char *instance, const struct want *w, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct value v = instance ? value_at(s, i, w[k].counter, instance)
					  : total_at(s, i, w[k].counter);
		check(v, &w[k], instance ? instance : "_Total", i);
	}
}

#define CHECK_ALL(s, i, inst, table) check_all((s), (i), (inst), (table), ARRAY_SIZE(table))

/* Every Processor counter must be checked by the basic series. */
static const char *const all_counters[] = {
	"% Processor Time", "% User Time", "% Privileged Time", "% Interrupt Time",
	"% DPC Time",       "% Idle Time", "% IOWait Time",     "% Steal Time",
	"% Nice Time",      "% Guest Time",
};

static void
test_parse_lines(void **unused)
{
	const char text[] = "cpu  1 2 3 4 5 6 7 8 9 10\n"
			    "cpu0 10 20 30 40 50 60 70 80 90 100\n"
			    "cpu1 1 2 3 4\n"
			    "cpuX 1 2 3 4\n"
			    "cpu12 7 6 5 4 3 2 1\n"
			    "cpu3\n"
			    "cpu4 1 2 3 4 5 6 7 8 9 10 11 12\n"
			    "cpu5   18446744073709551615 99999999999999999999 0 0\n"
			    "intr 1 2 3\n"
			    "cpu6 1 2 3 4\n";
	const char *p = text, *end = text + strlen(text);
	struct procstat_cpu c;

	(void)unused;
	assert_int_equal(procstat_cpu_next(&p, end, &c), 1);
	assert_int_equal(c.cpu, 0);
	assert_int_equal(c.nfields, 10);
	assert_int_equal(c.v[PCPU_USER], 10);
	assert_int_equal(c.v[PCPU_GUEST_NICE], 100);
	assert_int_equal(procstat_cpu_next(&p, end, &c), 1);
	assert_int_equal(c.cpu, 1);
	assert_int_equal(c.nfields, 4); /* a 2.4 kernel's line */
	assert_int_equal(c.v[PCPU_IDLE], 4);
	/* cpuX is malformed and skipped */
	assert_int_equal(procstat_cpu_next(&p, end, &c), 1);
	assert_int_equal(c.cpu, 12); /* named by its number, not its position */
	assert_int_equal(c.nfields, 7);
	assert_int_equal(c.v[PCPU_SOFTIRQ], 1);
	/* "cpu3" has no fields and is skipped */
	assert_int_equal(procstat_cpu_next(&p, end, &c), 1);
	assert_int_equal(c.cpu, 4);
	assert_int_equal(c.nfields, 10); /* fields past the 10th are ignored */
	assert_int_equal(c.v[PCPU_GUEST_NICE], 10);
	assert_int_equal(procstat_cpu_next(&p, end, &c), 1);
	assert_int_equal(c.cpu, 5);
	assert_int_equal(c.v[PCPU_USER], UINT64_MAX);
	assert_int_equal(c.v[PCPU_NICE], UINT64_MAX); /* saturates */
	/* the scan stops at intr: cpu6 after it is not looked at */
	assert_int_equal(procstat_cpu_next(&p, end, &c), 0);
	assert_ptr_equal(p, end);
	assert_int_equal(procstat_cpu_next(&p, end, &c), 0);

	/* A last line without a newline, and an empty buffer. */
	const char tail[] = "cpu7 5 6 7 8";
	p = tail;
	assert_int_equal(procstat_cpu_next(&p, tail + strlen(tail), &c), 1);
	assert_int_equal(c.cpu, 7);
	assert_int_equal(c.nfields, 4);
	assert_int_equal(c.v[PCPU_IDLE], 8);
	assert_int_equal(procstat_cpu_next(&p, tail + strlen(tail), &c), 0);
	p = tail;
	assert_int_equal(procstat_cpu_next(&p, tail, &c), 0);
}

/* The set as COUNTERS.md names it, with every counter present once. */
static void
test_set_shape(void **unused)
{
	const struct counter_set *set = provider_processor.set;

	(void)unused;
	assert_string_equal(set->name, "Processor");
	assert_true(set->multi_instance);
	assert_true(set->has_total);
	assert_int_equal(set->ncounters, ARRAY_SIZE(all_counters));
	for (size_t i = 0; i < ARRAY_SIZE(all_counters); i++) {
		const struct counter_desc *c = counter_set_find(set, all_counters[i]);
		assert_non_null(c);
		assert_int_equal(c->type, CT_SAMPLE_FRACTION);
		assert_true(c->has_zero_base);
		assert_true(c->zero_base == (strcmp(c->name, "% Idle Time") == 0 ? 100 : 0));
		assert_non_null(c->help);
		assert_string_equal(c->unit, "%");
	}
}

/*
 * cpu-basic: two CPUs with 10 fields; the aggregate "cpu" line is nonsense
 * (1 2 ... 10) to show it is not used. dt(t0,t1) = 1002 - 1000 = 2 s,
 * dt(t1,t2) = 1003 - 1002 = 1 s.
 *
 *                 user nice system idle iowait irq softirq steal guest guest_nice
 *   cpu0 t0       1000  100   500  8000   200   50   150     0     0     0
 *   cpu0 t1       1060  110   530  8080   210   54   156     0     0     0
 *   cpu0 t2       1065  110   535  8165   215   54   156     0     0     0
 *   cpu1 t0       2000    0   400  7000   100    0   100    20   300    10
 *   cpu1 t1       2100    0   420  7050   100    2   108    40   340    10
 *   cpu1 t2       2130    6   426  7062   100    2   108    46   358    13
 */
static void
test_basic_instances(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, &provider_processor, "cpu-basic", 3, ~(uint64_t)0);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(s.rs[i].ninstances, 2); /* cpu0, cpu1; not the aggregate */
		assert_string_equal(s.rs[i].inst[0].name, "0");
		assert_string_equal(s.rs[i].inst[1].name, "1");
		assert_int_equal(s.rs[i].inst[1].identity, 1); /* the cpu number */
		assert_int_equal(s.rs[i].inst[0].present, 0x3ff); /* all 10 fields */
		assert_true(s.rs[i].inst[0].in_total);
	}
	assert_int_equal(s.rs[1].inst[1].values[PCPU_GUEST], 340);
	/* The first read: two-sample counters have no value yet. */
	struct value v = value_at(&s, 0, "% Processor Time", "0");
	assert_int_equal(v.status, ST_FIRST);
	series_free(&s);
}

static void
test_basic_t1(void **unused)
{
	struct series s;
	/* cpu0 deltas: user 60, nice 10, system 30, idle 80, iowait 10, irq 4,
	 * softirq 6, steal 0, guest 0, guest_nice 0;
	 * T = 60 + 10 + 30 + 80 + 10 + 4 + 6 + 0 = 200 */
	static const struct want cpu0[] = {
		OKV("% Processor Time", 55),  /* 100 x (60 + 10 + 30 + 4 + 6) / 200 = 110 / 2 */
		OKV("% User Time", 35),       /* 100 x (60 + 10) / 200 */
		OKV("% Privileged Time", 20), /* 100 x (30 + 4 + 6) / 200 */
		OKV("% Interrupt Time", 2),   /* 100 x 4 / 200 */
		OKV("% DPC Time", 3),         /* 100 x 6 / 200 */
		OKV("% Idle Time", 45),       /* 100 x (80 + 10) / 200 */
		OKV("% IOWait Time", 5),      /* 100 x 10 / 200 */
		OKV("% Steal Time", 0),       /* 100 x 0 / 200 */
		OKV("% Nice Time", 5),        /* 100 x 10 / 200 */
		OKV("% Guest Time", 0),       /* 100 x (0 + 0) / 200 */
	};
	/* cpu1 deltas: user 100, nice 0, system 20, idle 50, iowait 0, irq 2,
	 * softirq 8, steal 20, guest 40, guest_nice 0;
	 * T = 100 + 0 + 20 + 50 + 0 + 2 + 8 + 20 = 200 */
	static const struct want cpu1[] = {
		OKV("% Processor Time", 65),  /* 100 x (100 + 0 + 20 + 2 + 8) / 200 = 130 / 2 */
		OKV("% User Time", 50),       /* 100 x (100 + 0) / 200 */
		OKV("% Privileged Time", 15), /* 100 x (20 + 2 + 8) / 200 */
		OKV("% Interrupt Time", 1),   /* 100 x 2 / 200 */
		OKV("% DPC Time", 4),         /* 100 x 8 / 200 */
		OKV("% Idle Time", 25),       /* 100 x (50 + 0) / 200 */
		OKV("% IOWait Time", 0),      /* 100 x 0 / 200 */
		OKV("% Steal Time", 10),      /* 100 x 20 / 200 */
		OKV("% Nice Time", 0),        /* 100 x 0 / 200 */
		OKV("% Guest Time", 20),      /* 100 x (40 + 0) / 200 */
	};
	/* _Total sums the deltas: T = 200 + 200 = 400 */
	static const struct want total[] = {
		OKV("% Processor Time", 60),    /* 100 x (110 + 130) / 400 */
		OKV("% User Time", 42.5),       /* 100 x (70 + 100) / 400 */
		OKV("% Privileged Time", 17.5), /* 100 x (40 + 30) / 400 */
		OKV("% Interrupt Time", 1.5),   /* 100 x (4 + 2) / 400 */
		OKV("% DPC Time", 3.5),         /* 100 x (6 + 8) / 400 */
		OKV("% Idle Time", 35),         /* 100 x (90 + 50) / 400 */
		OKV("% IOWait Time", 2.5),      /* 100 x (10 + 0) / 400 */
		OKV("% Steal Time", 5),         /* 100 x (0 + 20) / 400 */
		OKV("% Nice Time", 2.5),        /* 100 x (10 + 0) / 400 */
		OKV("% Guest Time", 10),        /* 100 x (0 + 40) / 400 */
	};

	(void)unused;
	series_load(&s, &provider_processor, "cpu-basic", 3, ~(uint64_t)0);
	CHECK_ALL(&s, 1, "0", cpu0);
	CHECK_ALL(&s, 1, "1", cpu1);
	CHECK_ALL(&s, 1, NULL, total);
	series_free(&s);
}

/* t1 -> t2: cpu1 accounted only 60 ticks (tickless), cpu0 100: _Total is
 * weighted by T, not the mean of the two percentages. */
static void
test_basic_t2_weighted(void **unused)
{
	struct series s;
	/* cpu0 deltas: user 5, nice 0, system 5, idle 85, iowait 5, irq 0,
	 * softirq 0, steal 0, guest 0, guest_nice 0; T = 5 + 5 + 85 + 5 = 100 */
	static const struct want cpu0[] = {
		OKV("% Processor Time", 10), /* 100 x (5 + 0 + 5 + 0 + 0) / 100 */
		OKV("% User Time", 5),       /* 100 x (5 + 0) / 100 */
		OKV("% Privileged Time", 5), /* 100 x (5 + 0 + 0) / 100 */
		OKV("% Interrupt Time", 0),  /* 100 x 0 / 100 */
		OKV("% DPC Time", 0),        /* 100 x 0 / 100 */
		OKV("% Idle Time", 90),      /* 100 x (85 + 5) / 100 */
		OKV("% IOWait Time", 5),     /* 100 x 5 / 100 */
		OKV("% Steal Time", 0),      /* 100 x 0 / 100 */
		OKV("% Nice Time", 0),       /* 100 x 0 / 100 */
		OKV("% Guest Time", 0),      /* 100 x 0 / 100 */
	};
	/* cpu1 deltas: user 30, nice 6, system 6, idle 12, iowait 0, irq 0,
	 * softirq 0, steal 6, guest 18, guest_nice 3;
	 * T = 30 + 6 + 6 + 12 + 0 + 0 + 0 + 6 = 60 */
	static const struct want cpu1[] = {
		OKV("% Processor Time", 70),  /* 100 x (30 + 6 + 6) / 60 = 4200 / 60 */
		OKV("% User Time", 60),       /* 100 x (30 + 6) / 60 */
		OKV("% Privileged Time", 10), /* 100 x 6 / 60 */
		OKV("% Interrupt Time", 0),   /* 100 x 0 / 60 */
		OKV("% DPC Time", 0),         /* 100 x 0 / 60 */
		OKV("% Idle Time", 20),       /* 100 x (12 + 0) / 60 */
		OKV("% IOWait Time", 0),      /* 100 x 0 / 60 */
		OKV("% Steal Time", 10),      /* 100 x 6 / 60 */
		OKV("% Nice Time", 10),       /* 100 x 6 / 60 */
		OKV("% Guest Time", 35),      /* 100 x (18 + 3) / 60 */
	};
	/* _Total: T = 100 + 60 = 160 (the mean of percentages would give
	 * (10 + 70) / 2 = 40 % busy, the weighted value is 32.5 %) */
	static const struct want total[] = {
		OKV("% Processor Time", 32.5),   /* 100 x (10 + 42) / 160 */
		OKV("% User Time", 25.625),      /* 100 x (5 + 36) / 160 */
		OKV("% Privileged Time", 6.875), /* 100 x (5 + 6) / 160 */
		OKV("% Interrupt Time", 0),      /* 100 x 0 / 160 */
		OKV("% DPC Time", 0),            /* 100 x 0 / 160 */
		OKV("% Idle Time", 63.75),       /* 100 x (90 + 12) / 160 */
		OKV("% IOWait Time", 3.125),     /* 100 x (5 + 0) / 160 */
		OKV("% Steal Time", 3.75),       /* 100 x (0 + 6) / 160 */
		OKV("% Nice Time", 3.75),        /* 100 x (0 + 6) / 160 */
		OKV("% Guest Time", 13.125),     /* 100 x (0 + 21) / 160 */
	};

	(void)unused;
	series_load(&s, &provider_processor, "cpu-basic", 3, ~(uint64_t)0);
	CHECK_ALL(&s, 2, "0", cpu0);
	CHECK_ALL(&s, 2, "1", cpu1);
	CHECK_ALL(&s, 2, NULL, total);
	/* % Processor Time + % Idle Time + % Steal Time = 100 */
	for (size_t i = 1; i < 3; i++) {
		double sum = total_at(&s, i, "% Processor Time").v + total_at(&s, i, "% Idle Time").v +
			     total_at(&s, i, "% Steal Time").v;
		assert_true(fabs(sum - 100) < 1e-9);
	}
	series_free(&s);
}

/*
 * cpu-old4: a 2.4 kernel prints 4 fields (user nice system idle); dt = 2.
 *   cpu0 t0 100 0 50 850   t1 150 10 60 980  deltas 50 10 10 130, T = 200
 *   cpu1 t0 200 0 100 700  t1 300 0 120 780  deltas 100 0 20 80,  T = 200
 * iowait, irq, softirq, steal, guest and guest_nice are absent: not put.
 */
static void
test_old4(void **unused)
{
	struct series s;
	static const struct want cpu0[] = {
		OKV("% Processor Time", 35), /* 100 x (50 + 10 + 10) / 200 */
		OKV("% User Time", 30),      /* 100 x (50 + 10) / 200 */
		OKV("% Privileged Time", 5), /* 100 x 10 / 200 (no irq, softirq) */
		OKV("% Idle Time", 65),      /* 100 x 130 / 200 (no iowait) */
		OKV("% Nice Time", 5),       /* 100 x 10 / 200 */
		NOV("% IOWait Time", ST_UNSUPPORTED),
		NOV("% Interrupt Time", ST_UNSUPPORTED),
		NOV("% DPC Time", ST_UNSUPPORTED),
		NOV("% Steal Time", ST_UNSUPPORTED),
		NOV("% Guest Time", ST_UNSUPPORTED),
	};
	static const struct want cpu1[] = {
		OKV("% Processor Time", 60),  /* 100 x (100 + 0 + 20) / 200 */
		OKV("% User Time", 50),       /* 100 x 100 / 200 */
		OKV("% Privileged Time", 10), /* 100 x 20 / 200 */
		OKV("% Idle Time", 40),       /* 100 x 80 / 200 */
		OKV("% Nice Time", 0),        /* 100 x 0 / 200 */
		NOV("% IOWait Time", ST_UNSUPPORTED),
	};
	/* _Total: T = 400 */
	static const struct want total[] = {
		OKV("% Processor Time", 47.5), /* 100 x (70 + 120) / 400 */
		OKV("% User Time", 40),        /* 100 x (60 + 100) / 400 */
		OKV("% Privileged Time", 7.5), /* 100 x (10 + 20) / 400 */
		OKV("% Idle Time", 52.5),      /* 100 x (130 + 80) / 400 */
		OKV("% Nice Time", 2.5),       /* 100 x (10 + 0) / 400 */
	};

	(void)unused;
	series_load(&s, &provider_processor, "cpu-old4", 2, ~(uint64_t)0);
	assert_int_equal(s.rs[1].ninstances, 2);
	assert_int_equal(s.rs[1].inst[0].present, 0xf); /* user nice system idle */
	CHECK_ALL(&s, 1, "0", cpu0);
	CHECK_ALL(&s, 1, "1", cpu1);
	CHECK_ALL(&s, 1, NULL, total);
	series_free(&s);
}

/* The _Total of a counter no CPU can supply (old4: iowait, irq, softirq,
 * steal, guest; old7: steal, guest) is UNSUPPORTED too. */
static void
test_old_total_unsupported(void **unused)
{
	static const char *const old4[] = { "% IOWait Time", "% Interrupt Time", "% DPC Time",
					    "% Steal Time", "% Guest Time" };
	static const char *const old7[] = { "% Steal Time", "% Guest Time" };
	struct series s4, s7;

	(void)unused;
	series_load(&s4, &provider_processor, "cpu-old4", 2, ~(uint64_t)0);
	series_load(&s7, &provider_processor, "cpu-old7", 2, ~(uint64_t)0);
	for (size_t i = 0; i < ARRAY_SIZE(old4); i++) {
		struct want w = NOV(old4[i], ST_UNSUPPORTED);
		check(total_at(&s4, 1, old4[i]), &w, "_Total", 1);
	}
	for (size_t i = 0; i < ARRAY_SIZE(old7); i++) {
		struct want w = NOV(old7[i], ST_UNSUPPORTED);
		check(total_at(&s7, 1, old7[i]), &w, "_Total", 1);
	}
	series_free(&s4);
	series_free(&s7);
}

/*
 * cpu-old7: a 2.6.9 kernel prints 7 fields (no steal, guest, guest_nice).
 *   cpu0 t0 1000 0 300 5000 100 10 20   t1 1040 0 320 5120 110 14 26
 *   deltas user 40, nice 0, system 20, idle 120, iowait 10, irq 4, softirq 6;
 *   T = 40 + 0 + 20 + 120 + 10 + 4 + 6 = 200
 */
static void
test_old7(void **unused)
{
	struct series s;
	static const struct want cpu0[] = {
		OKV("% Processor Time", 35),  /* 100 x (40 + 0 + 20 + 4 + 6) / 200 */
		OKV("% User Time", 20),       /* 100 x 40 / 200 */
		OKV("% Privileged Time", 15), /* 100 x (20 + 4 + 6) / 200 */
		OKV("% Interrupt Time", 2),   /* 100 x 4 / 200 */
		OKV("% DPC Time", 3),         /* 100 x 6 / 200 */
		OKV("% Idle Time", 65),       /* 100 x (120 + 10) / 200 */
		OKV("% IOWait Time", 5),      /* 100 x 10 / 200 */
		OKV("% Nice Time", 0),        /* 100 x 0 / 200 */
		NOV("% Steal Time", ST_UNSUPPORTED),
		NOV("% Guest Time", ST_UNSUPPORTED),
	};

	(void)unused;
	series_load(&s, &provider_processor, "cpu-old7", 2, ~(uint64_t)0);
	assert_int_equal(s.rs[1].ninstances, 1);
	assert_int_equal(s.rs[1].inst[0].present, 0x7f);
	CHECK_ALL(&s, 1, "0", cpu0);
	check_all(&s, 1, NULL, cpu0, 8); /* _Total of one CPU is that CPU */
	series_free(&s);
}

/*
 * cpu-clamp: 8 fields (user nice system idle iowait irq softirq steal), dt = 2
 * throughout, so the RESET threshold is 1 % of 2 x 100 = 2 ticks of T.
 *
 *          cpu0                      cpu1                   cpu2
 *   t0  100 0 100 1000 500 0 0 0  500 0 200 3000 0...   0 0 0 1000 10 0 0 0
 *   t1  150 0 120 1132 498 0 0 0  500 0 200 3000 0...   0 0 0 1000  8 0 0 0
 *   t2   10 0  10  100   5 0 0 0  600 0 250 3050 0...   0 0 0 1200  8 0 0 0
 *   t3   60 0  30  220  15 0 0 0  700 0 300 3100 0...   0 0 0 1400  5 0 0 0
 */
static void
test_clamp_t1(void **unused)
{
	struct series s;
	/* cpu0: iowait 500 -> 498 is clamped to 0 (no RESET: the raw sum rose
	 * from 1700 to 1900); deltas user 50, system 20, idle 132, iowait 0;
	 * T = 50 + 20 + 132 + 0 = 202 */
	static const struct want cpu0[] = {
		OKV("% Processor Time", 7000.0 / 202),  /* 100 x (50 + 20) / 202 = 34.65... */
		OKV("% User Time", 5000.0 / 202),       /* 100 x 50 / 202 */
		OKV("% Privileged Time", 2000.0 / 202), /* 100 x 20 / 202 */
		OKV("% Idle Time", 13200.0 / 202),      /* 100 x (132 + 0) / 202 */
		OKV("% IOWait Time", 0),                /* clamped: 100 x 0 / 202 */
		OKV("% Interrupt Time", 0),
		OKV("% DPC Time", 0),
		OKV("% Steal Time", 0),
		OKV("% Nice Time", 0),
		NOV("% Guest Time", ST_UNSUPPORTED), /* 8 fields: no guest */
	};
	/* cpu1: no tick moved, T = 0: the zero bases, 0 % busy, 100 % idle */
	static const struct want still[] = {
		OKV("% Processor Time", 0), OKV("% User Time", 0),  OKV("% Privileged Time", 0),
		OKV("% Interrupt Time", 0), OKV("% DPC Time", 0),   OKV("% Idle Time", 100),
		OKV("% IOWait Time", 0),    OKV("% Steal Time", 0), OKV("% Nice Time", 0),
	};
	/* _Total: T = 202 + 0 + 0 */
	static const struct want total[] = {
		OKV("% Processor Time", 7000.0 / 202), /* 100 x (70 + 0 + 0) / 202 */
		OKV("% Idle Time", 13200.0 / 202),     /* 100 x (132 + 0 + 0) / 202 */
		OKV("% IOWait Time", 0),
	};

	(void)unused;
	series_load(&s, &provider_processor, "cpu-clamp", 4, ~(uint64_t)0);
	CHECK_ALL(&s, 1, "0", cpu0);
	CHECK_ALL(&s, 1, "1", still);
	/* cpu2: only iowait fell, 10 -> 8: the raw sum fell by 2, which is not
	 * more than 1 % of dt x USER_HZ = 2: clamped, T = 0, zero bases */
	CHECK_ALL(&s, 1, "2", still);
	CHECK_ALL(&s, 1, NULL, total);
	series_free(&s);
}

static void
test_clamp_reset(void **unused)
{
	struct series s;
	/* t1 -> t2: cpu0's raw sum falls from 1900 to 125 (> 2): RESET, no
	 * value for any of its counters */
	static const struct want reset[] = {
		NOV("% Processor Time", ST_RESET),
		NOV("% Idle Time", ST_RESET),
		NOV("% IOWait Time", ST_RESET),
		NOV("% User Time", ST_RESET),
	};
	/* cpu1 deltas: user 100, system 50, idle 50; T = 200 */
	static const struct want cpu1_t2[] = {
		OKV("% Processor Time", 75), /* 100 x (100 + 50) / 200 */
		OKV("% Idle Time", 25),      /* 100 x 50 / 200 */
	};
	/* cpu2 deltas: idle 200; T = 200 */
	static const struct want cpu2_t2[] = {
		OKV("% Processor Time", 0), /* 100 x 0 / 200 */
		OKV("% Idle Time", 100),    /* 100 x 200 / 200 */
	};
	/* _Total leaves the RESET cpu0 out: T = 200 + 200 */
	static const struct want total_t2[] = {
		OKV("% Processor Time", 37.5), /* 100 x (150 + 0) / 400 */
		OKV("% Idle Time", 62.5),      /* 100 x (50 + 200) / 400 */
	};
	/* t2 -> t3: cpu0 counts again from its new values: deltas user 50,
	 * system 20, idle 120, iowait 10; T = 200 */
	static const struct want cpu0_t3[] = {
		OKV("% Processor Time", 35), /* 100 x (50 + 20) / 200 */
		OKV("% Idle Time", 65),      /* 100 x (120 + 10) / 200 */
		OKV("% IOWait Time", 5),     /* 100 x 10 / 200 */
	};
	/* cpu2 t2 -> t3: idle +200, iowait 8 -> 5 clamped; T = 200 */
	static const struct want cpu2_t3[] = {
		OKV("% Idle Time", 100), /* 100 x (200 + 0) / 200 */
		OKV("% IOWait Time", 0),
	};
	/* _Total t3: T = 200 x 3 = 600 */
	static const struct want total_t3[] = {
		OKV("% Processor Time", 22000.0 / 600), /* 100 x (70 + 150 + 0) / 600 = 36.67 */
		OKV("% Idle Time", 38000.0 / 600),      /* 100 x (130 + 50 + 200) / 600 = 63.33 */
		OKV("% IOWait Time", 1000.0 / 600),     /* 100 x (10 + 0 + 0) / 600 = 1.67 */
		OKV("% User Time", 15000.0 / 600),      /* 100 x (50 + 100 + 0) / 600 */
	};

	(void)unused;
	series_load(&s, &provider_processor, "cpu-clamp", 4, ~(uint64_t)0);
	CHECK_ALL(&s, 2, "0", reset);
	CHECK_ALL(&s, 2, "1", cpu1_t2);
	CHECK_ALL(&s, 2, "2", cpu2_t2);
	CHECK_ALL(&s, 2, NULL, total_t2);
	CHECK_ALL(&s, 3, "0", cpu0_t3);
	CHECK_ALL(&s, 3, "2", cpu2_t3);
	CHECK_ALL(&s, 3, NULL, total_t3);
	series_free(&s);
}

/*
 * cpu-offline: three CPUs; cpu1 has no line at t1 (offline), and is back
 * at t2. dt = 2 throughout; 10 fields, all zero but these:
 *          cpu0 (user system idle)  cpu1                cpu2
 *   t0     1000 1000 10000          2000 2000 20000     3000    0 30000
 *   t1     1100 1000 10100          -                   3000   50 30150
 *   t2     1200 1000 10200          2000 2000 20050     3000  100 30300
 *   t3     1300 1000 10300          2200 2000 20050     3000  150 30450
 */
static void
test_offline(void **unused)
{
	struct series s;
	/* t0 -> t1: cpu0 user +100, idle +100 (T 200); cpu2 system +50, idle
	 * +150 (T 200); cpu1 is absent, not in the total */
	static const struct want total_t1[] = {
		OKV("% Processor Time", 37.5), /* 100 x (100 + 50) / 400 */
		OKV("% Idle Time", 62.5),      /* 100 x (100 + 150) / 400 */
		OKV("% User Time", 25),        /* 100 x (100 + 0) / 400 */
	};
	/* t1 -> t2: cpu1 is back but has no previous read in t1: NEW, no
	 * value, and not in the total, which is again cpu0 + cpu2 */
	static const struct want cpu1_t2[] = {
		NOV("% Processor Time", ST_NEW),
		NOV("% Idle Time", ST_NEW),
	};
	/* t2 -> t3: cpu1 user +200 (T 200): all three, T = 600 */
	static const struct want cpu1_t3[] = {
		OKV("% Processor Time", 100), /* 100 x 200 / 200 */
		OKV("% Idle Time", 0),        /* 100 x 0 / 200 */
	};
	static const struct want total_t3[] = {
		OKV("% Processor Time", 35000.0 / 600), /* 100 x (100 + 200 + 50) / 600 = 58.33 */
		OKV("% Idle Time", 25000.0 / 600),      /* 100 x (100 + 0 + 150) / 600 = 41.67 */
	};

	(void)unused;
	series_load(&s, &provider_processor, "cpu-offline", 4, ~(uint64_t)0);
	assert_int_equal(s.rs[0].ninstances, 3);
	assert_int_equal(s.rs[1].ninstances, 2); /* cpu1 offline: simply absent */
	assert_string_equal(s.rs[1].inst[0].name, "0");
	assert_string_equal(s.rs[1].inst[1].name, "2"); /* named by number, not position */
	assert_int_equal(s.rs[1].inst[1].identity, 2);
	assert_null(find(&s.rs[1], "1"));
	assert_int_equal(s.rs[2].ninstances, 3);
	CHECK_ALL(&s, 1, NULL, total_t1);
	CHECK_ALL(&s, 2, "1", cpu1_t2);
	CHECK_ALL(&s, 2, NULL, total_t1);
	CHECK_ALL(&s, 3, "1", cpu1_t3);
	CHECK_ALL(&s, 3, NULL, total_t3);
	series_free(&s);
}

/* No /proc/stat under the root: the set cannot be read, with a message. */
static void
test_missing_stat(void **unused)
{
	const char *root = "../fixtures/cpu-basic";
	struct procfs *fs = procfs_new(&root, 1);
	struct provider_ctx ctx = { fs, ~(uint64_t)0 };
	struct err err = { "" };
	struct raw_set rs;
	void *st;

	(void)unused;
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	st = provider_processor.open(&ctx, &err);
	assert_non_null(st);
	raw_set_init(&rs, provider_processor.set);
	raw_set_begin(&rs);
	assert_int_equal(provider_processor.read(st, &rs, &err), -1);
	assert_non_null(strstr(err.msg, "proc/stat"));
	provider_processor.close(st);
	raw_set_free(&rs);
	procfs_free(fs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_lines),
		cmocka_unit_test(test_set_shape),
		cmocka_unit_test(test_basic_instances),
		cmocka_unit_test(test_basic_t1),
		cmocka_unit_test(test_basic_t2_weighted),
		cmocka_unit_test(test_old4),
		cmocka_unit_test(test_old_total_unsupported),
		cmocka_unit_test(test_old7),
		cmocka_unit_test(test_clamp_t1),
		cmocka_unit_test(test_clamp_reset),
		cmocka_unit_test(test_offline),
		cmocka_unit_test(test_missing_stat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
