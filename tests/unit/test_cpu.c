/*
 * test_cpu.c - the Processor provider and its /proc/stat cpuN parser, end to
 * end through derive over the fixture series tests/fixtures/cpu-*: every
 * counter per CPU and for _Total (weighted by T), old kernels' short lines,
 * a field going backwards (clamped), T falling a lot (RESET), ticks that do
 * not move (zero bases), and a CPU that goes offline and comes back. The
 * frequency and C-state counters over tests/fixtures/cpufreq-*: POLL and
 * four deep states, an idle time that reads 0 then too much (clamped),
 * old kernels (no cpufreq, cpuinfo_max_freq 0, "<unknown>", no POLL, more
 * than ten states), and reading only the files the requested counters need.
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

#include "series.h"

#include "derive.h"
#include "procstat.h"
#include "provider.h"

extern const struct provider provider_processor;

#define MAX_INST 16

/* _Total over the interval ending at read i, through derive_total. */
static struct value
total_at(const struct series *s, size_t i, const char *name)
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

		if (!raw_in_total_at(rs, k))
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

/* Check a table of values of one instance (NULL: _Total) at read i. */
static void
check_all(const struct series *s, size_t i, const char *instance, const struct want *w, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct value v = instance ? series_value(s, i, w[k].counter, instance)
					  : total_at(s, i, w[k].counter);
		series_check(v, &w[k], instance ? instance : "_Total", i);
	}
}

#define CHECK_ALL(s, i, inst, table) check_all((s), (i), (inst), (table), ARRAY_SIZE(table))

/* Every Processor counter, by type. */
static const char *const time_counters[] = {
	"% Processor Time", "% User Time", "% Privileged Time", "% Interrupt Time",
	"% DPC Time",       "% Idle Time", "% IOWait Time",     "% Steal Time",
	"% Nice Time",      "% Guest Time",
};
static const char *const cstate_counters[] = { "% C1 Time", "% C2 Time", "% C3 Time" };
static const char *const transition_counters[] = { "C1 Transitions/sec", "C2 Transitions/sec",
						    "C3 Transitions/sec" };

/* The index of the field named name. */
static unsigned
field_index(const struct counter_set *set, const char *name)
{
	for (unsigned f = 0; f < set->nfields; f++)
		if (strcmp(set->fields[f].name, name) == 0)
			return f;
	fail_msg("no field %s", name);
	return 0;
}

#define FIELD_BIT(name) ((uint64_t)1 << field_index(provider_processor.set, (name)))

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
	const struct counter_desc *c;

	(void)unused;
	assert_string_equal(set->name, "Processor");
	assert_true(set->multi_instance);
	assert_true(set->has_total);
	assert_true(set->nfields <= SET_MAX_FIELDS);
	/* + 2 frequency counters, + 2 totals of other sets' rows */
	assert_int_equal(set->ncounters, ARRAY_SIZE(time_counters) + 2 + 2 +
						 ARRAY_SIZE(cstate_counters) +
						 ARRAY_SIZE(transition_counters));
	for (size_t i = 0; i < set->ncounters; i++) {
		assert_non_null(set->counters[i].help);
		assert_non_null(set->counters[i].unit);
		assert_ptr_equal(counter_set_find(set, set->counters[i].name), &set->counters[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(time_counters); i++) {
		c = counter_set_find(set, time_counters[i]);
		assert_non_null(c);
		assert_int_equal(c->type, CT_SAMPLE_FRACTION);
		assert_true(c->has_zero_base);
		assert_true(c->zero_base == (strcmp(c->name, "% Idle Time") == 0 ? 100 : 0));
		assert_string_equal(c->unit, "%");
	}
	/* Interrupts/sec and DPCs Queued/sec total the Interrupt and Softirq
	 * rows of the CPU (values: tests/cli/test_groups.sh) */
	c = counter_set_find(set, "Interrupts/sec");
	assert_non_null(c);
	assert_string_equal(c->rows_set, "Interrupt");
	assert_string_equal(c->rows_counter, "Interrupts/sec");
	c = counter_set_find(set, "DPCs Queued/sec");
	assert_non_null(c);
	assert_string_equal(c->rows_set, "Softirq");
	assert_string_equal(c->rows_counter, "Softirqs/sec");
	c = counter_set_find(set, "Processor Frequency");
	assert_non_null(c);
	assert_int_equal(c->type, CT_RAW);
	assert_true(c->scale == 0.001); /* kHz -> MHz */
	assert_int_equal(c->total, TOTAL_MEAN);
	assert_string_equal(c->unit, "MHz");
	c = counter_set_find(set, "% of Maximum Frequency");
	assert_non_null(c);
	assert_int_equal(c->type, CT_FRACTION);
	for (size_t i = 0; i < ARRAY_SIZE(cstate_counters); i++) {
		c = counter_set_find(set, cstate_counters[i]);
		assert_non_null(c);
		assert_int_equal(c->type, CT_TIMER);
		assert_true(c->scale == 1e-6); /* microseconds */
		assert_true(c->clamp100);
		assert_int_equal(c->total, TOTAL_MEAN);
	}
	for (size_t i = 0; i < ARRAY_SIZE(transition_counters); i++) {
		c = counter_set_find(set, transition_counters[i]);
		assert_non_null(c);
		assert_int_equal(c->type, CT_RATE);
		assert_int_equal(c->total, TOTAL_SUM);
	}
	/* % C3 Time sums the 3rd to the 10th non-POLL state: 8 terms */
	c = counter_set_find(set, "% C3 Time");
	assert_int_equal(c->num[7].field, field_index(set, "c10_time"));
	assert_int_equal(c->num[0].field, field_index(set, "c3_time"));
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
		assert_string_equal(raw_name_at(&s.rs[i], 0), "0");
		assert_string_equal(raw_name_at(&s.rs[i], 1), "1");
		assert_int_equal(raw_identity_at(&s.rs[i], 1), 1); /* the cpu number */
		assert_int_equal(raw_present_at(&s.rs[i], 0), 0x3ff); /* all 10 fields */
		assert_true(raw_in_total_at(&s.rs[i], 0));
	}
	assert_int_equal(raw_get(&s.rs[1], &s.rs[1].inst[1], PCPU_GUEST), 340);
	/* The first read: two-sample counters have no value yet. */
	struct value v = series_value(&s, 0, "% Processor Time", "0");
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
	assert_int_equal(raw_present_at(&s.rs[1], 0), 0xf); /* user nice system idle */
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
		series_check(total_at(&s4, 1, old4[i]), &w, "_Total", 1);
	}
	for (size_t i = 0; i < ARRAY_SIZE(old7); i++) {
		struct want w = NOV(old7[i], ST_UNSUPPORTED);
		series_check(total_at(&s7, 1, old7[i]), &w, "_Total", 1);
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
	assert_int_equal(raw_present_at(&s.rs[1], 0), 0x7f);
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
	assert_string_equal(raw_name_at(&s.rs[1], 0), "0");
	assert_string_equal(raw_name_at(&s.rs[1], 1), "2"); /* named by number, not position */
	assert_int_equal(raw_identity_at(&s.rs[1], 1), 2);
	assert_null(series_find(&s.rs[1], "1"));
	assert_int_equal(s.rs[2].ninstances, 3);
	CHECK_ALL(&s, 1, NULL, total_t1);
	CHECK_ALL(&s, 2, "1", cpu1_t2);
	CHECK_ALL(&s, 2, NULL, total_t1);
	CHECK_ALL(&s, 3, "1", cpu1_t3);
	CHECK_ALL(&s, 3, NULL, total_t3);
	series_free(&s);
}

/*
 * cpufreq-basic: two CPUs, cpufreq and POLL + C1, C1E, C6, C10 (so C1 = C1,
 * C2 = C1E, C3 = C6 + C10); dt(t0,t1) = 2 s, dt(t1,t2) = 1 s.
 *
 *             cur kHz  max kHz    POLL        C1          C1E         C6           C10
 *                                 time usage  time  usage time  usage time   usage time   usage
 *  cpu0 t0   2400000  3000000    1000  10   100000 500  200000 300 1000000 100  3000000 50
 *  cpu0 t1   1500000  3000000    1500  12   300000 900  400000 500 1400000 140  3600000 70
 *  cpu0 t2   3000000  3000000    1500  12   400000 1000 400000 500 1700000 150  3800000 80
 *  cpu1 t0   1200000  3000000       0   0    50000 100       0   0  500000  20        0  0
 *  cpu1 t1   2700000  3000000       0   0    50000 100       0   0  500000  20        0  0
 *  cpu1 t2   2700000  3000000       0   0    50000 100       0   0 3500000  21        0  0
 *
 * cpu1's C6 reads nothing from t0 to t1 (a long idle not credited yet), then
 * 3 s of residency in a 1 s interval: clamped to 100.
 */
static void
test_freq_cstates_t1(void **unused)
{
	struct series s;
	/* cpu0, dt = 2 */
	static const struct want cpu0[] = {
		OKV("% Processor Time", 20),        /* stat: 100 x (20 + 20) / 200 */
		OKV("Processor Frequency", 1500),   /* 1500000 kHz / 1000 */
		OKV("% of Maximum Frequency", 50),  /* 100 x 1500000 / 3000000 */
		OKV("% C1 Time", 10),               /* 100 x (300000 - 100000) x 1e-6 / 2 */
		OKV("% C2 Time", 10),               /* 100 x (400000 - 200000) x 1e-6 / 2 */
		OKV("% C3 Time", 50),               /* 100 x (400000 + 600000) x 1e-6 / 2 */
		OKV("C1 Transitions/sec", 200),     /* (900 - 500) / 2 */
		OKV("C2 Transitions/sec", 100),     /* (500 - 300) / 2 */
		OKV("C3 Transitions/sec", 30),      /* ((140 - 100) + (70 - 50)) / 2 */
	};
	static const struct want cpu1[] = {
		OKV("% Processor Time", 50),        /* stat: 100 x 100 / 200 */
		OKV("Processor Frequency", 2700),   /* 2700000 / 1000 */
		OKV("% of Maximum Frequency", 90),  /* 100 x 2700000 / 3000000 */
		OKV("% C1 Time", 0),                /* 100 x 0 x 1e-6 / 2 */
		OKV("% C2 Time", 0),
		OKV("% C3 Time", 0),                /* C6 and C10 did not move */
		OKV("C1 Transitions/sec", 0),
		OKV("C2 Transitions/sec", 0),
		OKV("C3 Transitions/sec", 0),
	};
	/* _Total: frequency and % Cn Time are means, % of Maximum and the
	 * transitions are sums */
	static const struct want total[] = {
		OKV("Processor Frequency", 2100),   /* (1500000 + 2700000) / 2 / 1000 */
		OKV("% of Maximum Frequency", 70),  /* 100 x (1500000 + 2700000) / 6000000 */
		OKV("% C1 Time", 5),                /* 100 x (200000 + 0) / 2 x 1e-6 / 2 */
		OKV("% C2 Time", 5),                /* 100 x (200000 + 0) / 2 x 1e-6 / 2 */
		OKV("% C3 Time", 25),               /* 100 x (1000000 + 0) / 2 x 1e-6 / 2 */
		OKV("C1 Transitions/sec", 200),     /* (400 + 0) / 2 */
		OKV("C2 Transitions/sec", 100),     /* (200 + 0) / 2 */
		OKV("C3 Transitions/sec", 30),      /* (60 + 0) / 2 */
	};
	/* The first read: the one-sample counters have values, the others
	 * none yet. */
	static const struct want first[] = {
		{ "Processor Frequency", 2400, ST_FIRST },     /* 2400000 / 1000 */
		{ "% of Maximum Frequency", 80, ST_FIRST },    /* 100 x 2400000 / 3000000 */
		NOV("% C1 Time", ST_FIRST),
		NOV("C3 Transitions/sec", ST_FIRST),
	};

	(void)unused;
	series_load(&s, &provider_processor, "cpufreq-basic", 3, ~(uint64_t)0);
	assert_int_equal(s.rs[0].ninstances, 2);
	/* every field: 10 of /proc/stat, 2 of cpufreq, 4 deep states x 2 */
	assert_int_equal(raw_present_at(&s.rs[0], 0),
			 0x3ff | FIELD_BIT("scaling_cur_freq") | FIELD_BIT("cpuinfo_max_freq") |
				 FIELD_BIT("c1_time") | FIELD_BIT("c2_time") |
				 FIELD_BIT("c3_time") | FIELD_BIT("c4_time") |
				 FIELD_BIT("c1_usage") | FIELD_BIT("c2_usage") |
				 FIELD_BIT("c3_usage") | FIELD_BIT("c4_usage"));
	for (size_t k = 0; k < ARRAY_SIZE(first); k++) {
		struct value v = series_value(&s, 0, first[k].counter, "0");
		assert_int_equal(v.status, first[k].st);
		if (first[k].v != 0)
			assert_true(fabs(v.v - first[k].v) < 1e-9);
	}
	CHECK_ALL(&s, 1, "0", cpu0);
	CHECK_ALL(&s, 1, "1", cpu1);
	CHECK_ALL(&s, 1, NULL, total);
	series_free(&s);
}

static void
test_freq_cstates_clamp(void **unused)
{
	struct series s;
	/* t1 -> t2, dt = 1 */
	static const struct want cpu0[] = {
		OKV("% Processor Time", 10),        /* stat: 100 x 10 / 100 */
		OKV("Processor Frequency", 3000),   /* 3000000 / 1000 */
		OKV("% of Maximum Frequency", 100), /* 100 x 3000000 / 3000000 */
		OKV("% C1 Time", 10),               /* 100 x 100000 x 1e-6 / 1 */
		OKV("% C2 Time", 0),                /* C1E did not move */
		OKV("% C3 Time", 50),               /* 100 x (300000 + 200000) x 1e-6 / 1 */
		OKV("C1 Transitions/sec", 100),     /* 100 / 1 */
		OKV("C2 Transitions/sec", 0),
		OKV("C3 Transitions/sec", 20),      /* (10 + 10) / 1 */
	};
	static const struct want cpu1[] = {
		OKV("% C3 Time", 100),              /* 100 x 3000000 x 1e-6 / 1 = 300, clamped */
		OKV("C3 Transitions/sec", 1),       /* (21 - 20) / 1 */
		OKV("% C1 Time", 0),
	};
	/* _Total sums before the formula, then clamps: the mean of C3's
	 * deltas is already more than the interval */
	static const struct want total[] = {
		OKV("% C3 Time", 100),  /* 100 x (500000 + 3000000) / 2 x 1e-6 / 1 = 175 */
		OKV("% C1 Time", 5),                /* 100 x (100000 + 0) / 2 x 1e-6 / 1 */
		OKV("C3 Transitions/sec", 21),      /* (20 + 1) / 1 */
		OKV("Processor Frequency", 2850),   /* (3000000 + 2700000) / 2 / 1000 */
		OKV("% of Maximum Frequency", 95),  /* 100 x 5700000 / 6000000 */
	};

	(void)unused;
	series_load(&s, &provider_processor, "cpufreq-basic", 3, ~(uint64_t)0);
	CHECK_ALL(&s, 2, "0", cpu0);
	CHECK_ALL(&s, 2, "1", cpu1);
	CHECK_ALL(&s, 2, NULL, total);
	series_free(&s);
}

/*
 * cpufreq-old: a 3.x-era root, 7-field /proc/stat, no online list, dt = 2.
 *   cpu0: no cpufreq; acpi_idle states C1, C2 without POLL:
 *         C1 time 100000 -> 300000 usage 10 -> 30; C2 1000000 -> 1500000, 5 -> 9
 *   cpu1: cpufreq cur 800000, cpuinfo_max_freq 0; no cpuidle
 *   cpu2: scaling_cur_freq "<unknown>", max 2000000; cpuidle POLL only
 *   cpu3: POLL and eleven states S1 .. S11, time 0 -> k x 10000, usage 0 -> k
 */
static void
test_freq_cstates_old(void **unused)
{
	struct series s;
	static const struct want cpu0[] = {
		OKV("% Processor Time", 50),                  /* 100 x (50 + 50) / 200 */
		NOV("Processor Frequency", ST_UNSUPPORTED),    /* no cpufreq */
		NOV("% of Maximum Frequency", ST_UNSUPPORTED),
		OKV("% C1 Time", 10),                         /* 100 x 200000 x 1e-6 / 2 */
		OKV("% C2 Time", 25),                         /* 100 x 500000 x 1e-6 / 2 */
		NOV("% C3 Time", ST_UNSUPPORTED),              /* no third state */
		OKV("C1 Transitions/sec", 10),                /* 20 / 2 */
		OKV("C2 Transitions/sec", 2),                 /* 4 / 2 */
		NOV("C3 Transitions/sec", ST_UNSUPPORTED),
	};
	static const struct want cpu1[] = {
		OKV("Processor Frequency", 800),               /* 800000 / 1000 */
		NOV("% of Maximum Frequency", ST_UNSUPPORTED), /* cpuinfo_max_freq 0 */
		NOV("% C1 Time", ST_UNSUPPORTED),              /* no cpuidle */
		NOV("C1 Transitions/sec", ST_UNSUPPORTED),
	};
	static const struct want cpu2[] = {
		NOV("Processor Frequency", ST_UNSUPPORTED),    /* "<unknown>" */
		NOV("% of Maximum Frequency", ST_UNSUPPORTED),
		NOV("% C1 Time", ST_UNSUPPORTED),              /* POLL is no C-state */
		NOV("% C3 Time", ST_UNSUPPORTED),
	};
	static const struct want cpu3[] = {
		OKV("% C1 Time", 0.5),         /* 100 x 10000 x 1e-6 / 2 */
		OKV("% C2 Time", 1),           /* 100 x 20000 x 1e-6 / 2 */
		OKV("% C3 Time", 26),          /* 100 x (3 + 4 + ... + 10) x 10000 x 1e-6 / 2;
						* S11 is past the 10th state */
		OKV("C1 Transitions/sec", 0.5), /* 1 / 2 */
		OKV("C2 Transitions/sec", 1),   /* 2 / 2 */
		OKV("C3 Transitions/sec", 26),  /* (3 + ... + 10) / 2 = 52 / 2 */
	};
	static const struct want total[] = {
		OKV("Processor Frequency", 800),               /* only cpu1 has one */
		NOV("% of Maximum Frequency", ST_UNSUPPORTED), /* 100 x 800000 / 0 */
		OKV("% C1 Time", 5.25),        /* 100 x (200000 + 10000) / 2 x 1e-6 / 2 */
		OKV("% C2 Time", 13),          /* 100 x (500000 + 20000) / 2 x 1e-6 / 2 */
		OKV("% C3 Time", 26),          /* cpu3 alone */
		OKV("C1 Transitions/sec", 10.5), /* (20 + 1) / 2 */
		OKV("C2 Transitions/sec", 3),    /* (4 + 2) / 2 */
	};

	(void)unused;
	series_load(&s, &provider_processor, "cpufreq-old", 2, ~(uint64_t)0);
	assert_int_equal(s.rs[1].ninstances, 4);
	CHECK_ALL(&s, 1, "0", cpu0);
	CHECK_ALL(&s, 1, "1", cpu1);
	CHECK_ALL(&s, 1, "2", cpu2);
	CHECK_ALL(&s, 1, "3", cpu3);
	CHECK_ALL(&s, 1, NULL, total);
	series_free(&s);
}

/* Only the files a requested counter needs: the C1 time alone comes without
 * /proc/stat (the CPUs are the online list's), cpufreq or other states. */
static void
test_only_needed(void **unused)
{
	struct series s;
	uint64_t c1 = FIELD_BIT("c1_time");
	uint64_t freq = FIELD_BIT("scaling_cur_freq");
	static const struct want cpu0[] = {
		OKV("% C1 Time", 10), /* 100 x 200000 x 1e-6 / 2 */
		NOV("% Processor Time", ST_UNSUPPORTED),
		NOV("% C3 Time", ST_UNSUPPORTED),
		NOV("Processor Frequency", ST_UNSUPPORTED),
	};

	(void)unused;
	series_load(&s, &provider_processor, "cpufreq-basic", 2, c1);
	assert_int_equal(s.rs[0].ninstances, 2);
	assert_string_equal(raw_name_at(&s.rs[0], 1), "1");
	assert_int_equal(raw_present_at(&s.rs[0], 0), c1);
	assert_int_equal(raw_present_at(&s.rs[1], 1), c1);
	CHECK_ALL(&s, 1, "0", cpu0);
	series_free(&s);

	series_load(&s, &provider_processor, "cpufreq-basic", 1, freq);
	assert_int_equal(raw_present_at(&s.rs[0], 0), freq); /* not even cpuinfo_max_freq */
	series_free(&s);

	/* /proc/stat alone when only times are asked for */
	series_load(&s, &provider_processor, "cpufreq-basic", 1, 0x3ff);
	assert_int_equal(raw_present_at(&s.rs[0], 0), 0x3ff);
	series_free(&s);
}

/*
 * cpufreq-hotplug: cpu1 is offline at t1 (online "0"; its cpuidle files
 * stay, as intel_idle leaves them) and back at t2; dt = 2.
 *   C1 time: cpu0 0, 100000, 200000; cpu1 0, 200000, 400000
 */
static void
test_cstates_hotplug(void **unused)
{
	uint64_t needs[] = { FIELD_BIT("c1_time"), ~(uint64_t)0 };

	(void)unused;
	for (size_t k = 0; k < ARRAY_SIZE(needs); k++) {
		struct series s;
		/* 100 x 100000 x 1e-6 / 2 */
		static const struct want cpu0[] = { OKV("% C1 Time", 5) };
		static const struct want cpu1_t2[] = { NOV("% C1 Time", ST_NEW) };

		series_load(&s, &provider_processor, "cpufreq-hotplug", 3, needs[k]);
		assert_int_equal(s.rs[0].ninstances, 2);
		assert_int_equal(s.rs[1].ninstances, 1); /* offline: absent, files or not */
		assert_null(series_find(&s.rs[1], "1"));
		assert_int_equal(s.rs[2].ninstances, 2);
		CHECK_ALL(&s, 1, "0", cpu0);
		CHECK_ALL(&s, 2, "0", cpu0);
		CHECK_ALL(&s, 2, "1", cpu1_t2);
		CHECK_ALL(&s, 1, NULL, cpu0); /* _Total of cpu0 alone */
		series_free(&s);
	}
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
		cmocka_unit_test(test_freq_cstates_t1),
		cmocka_unit_test(test_freq_cstates_clamp),
		cmocka_unit_test(test_freq_cstates_old),
		cmocka_unit_test(test_only_needed),
		cmocka_unit_test(test_cstates_hotplug),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
