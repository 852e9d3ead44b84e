/*
 * test_softnet.c - the softnet_stat and CPU list parsers on strings, and the
 * Per Processor Network Activity provider end to end through derive over
 * three kernels' layouts:
 *   softnet-v510  15 columns (6.x): column 13 names the CPU; CPU 2 is
 *                 offline (no row) and there is no online file, so only
 *                 the CPU column can name the third row "3"; a wrap;
 *   softnet-v4    11 columns (3.11 to 5.9): rows are the CPUs of
 *                 sys/devices/system/cpu/online "0,2-3"; no Backlog Length;
 *   softnet-v3    9 columns (2.6.32), no online file, no /proc/softirqs:
 *                 row k is CPU k; every counter of a missing column or of
 *                 NET_RX/NET_TX is UNSUPPORTED.
 *   softnet-badcpu 13 columns whose CPU-id column names no CPU in some
 *                 rows (ffffffff, above CPUINFO_MAX_CPU, repeated): the
 *                 row is placed by position, never named 4294967295.
 * NET_RX and NET_TX come from /proc/softirqs columns matched by CPU; a
 * softirq count that overflows uint64 (irq-overflow) is absent, never 0.
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

#define SERIES_NO_WANT /* its want names an instance, not a counter */
#include "series.h"

#include "derive.h"
#include "interrupts.h"
#include "provider.h"

extern const struct provider provider_per_processor_network_activity;
#define PROV (&provider_per_processor_network_activity)

/* One expected value of one instance: status ST_OK (0) unless st says
 * otherwise. */
struct want {
	const char *instance;
	double v;
	uint8_t st;
};

#define OKV(inst, v) { (inst), (v), ST_OK }
#define WRV(inst, v) { (inst), (v), ST_WRAPPED }
#define NOV(inst, st) { (inst), 0, (st) }

/* Check counter name over instances w[0 .. n) at read i. */
static void
check_all(const struct series *s, size_t i, const char *name, const struct want *w, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct value got = series_value(s, i, name, w[k].instance);

		if (got.status != w[k].st)
			fail_msg("read %zu %s(%s): status %s, want %s", i, name, w[k].instance,
				 status_name(got.status), status_name(w[k].st));
		if (w[k].st != ST_OK && w[k].st != ST_WRAPPED && w[k].st != ST_FIRST)
			continue;
		if (!isfinite(got.v) || fabs(got.v - w[k].v) > 1e-9 * fmax(1.0, fabs(w[k].v)))
			fail_msg("read %zu %s(%s): %.12g, want %.12g", i, name, w[k].instance,
				 got.v, w[k].v);
	}
}

#define CHECK_ALL(s, i, name, table) check_all((s), (i), (name), (table), ARRAY_SIZE(table))

/* The _Total of counter name over read i's instances (derive's rule: the
 * instances that pair with read i - 1 are summed, then the formula). */
static struct value
total_at(const struct series *s, size_t i, const char *name)
{
	const struct counter_desc *c = series_counter(s, name);
	const struct raw_set *rs = &s->rs[i];
	const struct raw_instance *cur[16];
	const struct field_deltas *dp[16];
	FIELD_DELTAS_ARRAY(d, 16);
	uint8_t pair[16];
	struct derive_env env = series_env(s, i);
	size_t n = 0;

	assert_true(rs->ninstances <= 16);
	for (size_t k = 0; k < rs->ninstances; k++) {
		const struct raw_instance *prev = i ? series_find(&s->rs[i - 1], raw_name_at(rs, k)) : NULL;

		if (!raw_in_total_at(rs, k))
			continue;
		cur[n] = &rs->inst[k];
		dp[n] = NULL;
		pair[n] = i == 0 ? ST_FIRST : prev ? ST_OK : ST_NEW;
		if (prev) {
			derive_deltas(&s->rs[i - 1], prev, rs, cur[n], &env, &d[n]);
			dp[n] = &d[n];
		}
		n++;
	}
	return derive_total(rs, c, cur, dp, pair, n, &env);
}

static void
check_total(const struct series *s, size_t i, const char *name, double v, uint8_t st)
{
	struct value got = total_at(s, i, name);

	if (got.status != st)
		fail_msg("read %zu %s(_Total): status %s, want %s", i, name,
			 status_name(got.status), status_name(st));
	if ((st == ST_OK || st == ST_WRAPPED) && fabs(got.v - v) > 1e-9 * fmax(1.0, fabs(v)))
		fail_msg("read %zu %s(_Total): %.12g, want %.12g", i, name, got.v, v);
}

/* The instance names of read i, joined by blanks. */
static void
assert_names(const struct raw_set *rs, const char *want)
{
	char got[256] = "";

	for (size_t k = 0; k < rs->ninstances; k++) {
		if (k)
			strcat(got, " ");
		strcat(got, raw_name_at(rs, k));
	}
	assert_string_equal(got, want);
}

/* Rows of every layout; hex of either case; junk lines skipped. */
static void
test_parse_rows(void **unused)
{
	const char text[] =
		"0000047a 00000000 00000001 00000000 00000000 00000000 00000000 00000000 "
		"00000000\n"
		"\n"
		"not a row\n"
		"0000074B 00000002 00000000 00000000 00000000 00000000 00000000 00000000 "
		"00000000 0000000a 0000000b\n"
		"ffffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
		"00000000 00000000 00000000 00000005 00000003 00000001 00000002\n"
		"1 2 3 4 5 6 7 8 9 a b c d e f 10 11 12";
	const char *p = text, *end = text + strlen(text);
	struct softnet_row row;

	(void)unused;
	assert_int_equal(softnet_row_next(&p, end, &row), 1);
	assert_int_equal(row.ncols, 9);
	assert_int_equal(row.v[SOFTNET_PROCESSED - 1], 0x47a);
	assert_int_equal(row.v[SOFTNET_TIME_SQUEEZE - 1], 1);
	assert_int_equal(softnet_row_next(&p, end, &row), 1);
	assert_int_equal(row.ncols, 11);
	assert_int_equal(row.v[SOFTNET_PROCESSED - 1], 0x74b);
	assert_int_equal(row.v[SOFTNET_DROPPED - 1], 2);
	assert_int_equal(row.v[SOFTNET_RECEIVED_RPS - 1], 10);
	assert_int_equal(row.v[SOFTNET_FLOW_LIMIT_COUNT - 1], 11);
	assert_int_equal(softnet_row_next(&p, end, &row), 1);
	assert_int_equal(row.ncols, 15);
	assert_int_equal(row.v[SOFTNET_PROCESSED - 1], 0xffffffffu);
	assert_int_equal(row.v[SOFTNET_BACKLOG_LEN - 1], 5);
	assert_int_equal(row.v[SOFTNET_CPU - 1], 3);
	assert_int_equal(row.v[SOFTNET_PROCESS_QLEN - 1], 2);
	/* More columns than kept: the first 16. */
	assert_int_equal(softnet_row_next(&p, end, &row), 1);
	assert_int_equal(row.ncols, SOFTNET_MAX_COLUMNS);
	assert_int_equal(row.v[15], 0x10);
	assert_int_equal(softnet_row_next(&p, end, &row), 0);
	assert_ptr_equal(p, end);
}

/* CPU lists as sysfs prints them. */
static void
test_cpulist(void **unused)
{
	struct softnet_cpulist it;
	unsigned cpu, got[16];
	size_t n = 0;

	(void)unused;
	softnet_cpulist_begin(&it, "0-3,8,10-11\n");
	while (n < 16 && softnet_cpulist_next(&it, &cpu))
		got[n++] = cpu;
	assert_int_equal(n, 7);
	assert_int_equal(got[3], 3);
	assert_int_equal(got[4], 8);
	assert_int_equal(got[6], 11);
	softnet_cpulist_begin(&it, "5");
	assert_int_equal(softnet_cpulist_next(&it, &cpu), 1);
	assert_int_equal(cpu, 5);
	assert_int_equal(softnet_cpulist_next(&it, &cpu), 0);
	softnet_cpulist_begin(&it, "\n");
	assert_int_equal(softnet_cpulist_next(&it, &cpu), 0);
	softnet_cpulist_begin(&it, "3-1");
	assert_int_equal(softnet_cpulist_next(&it, &cpu), 0);
	softnet_cpulist_begin(&it, "0-");
	assert_int_equal(softnet_cpulist_next(&it, &cpu), 0);
	softnet_cpulist_begin(&it, "99999999999");
	assert_int_equal(softnet_cpulist_next(&it, &cpu), 0);
}

/*
 * softnet-v510, dt = 2 s. softnet_stat (hex) by CPU column 13:
 *        processed   dropped squeeze rps  flow backlog | NET_RX    NET_TX
 *   t0 0 0x100=256   0       2       0x10 0    0       | 100       10
 *      1 0x1000=4096 5       0       0    1    3       | 1000      20
 *      3 0xfffffff0  0       0       0    0    0       | 5         30
 *   t1 0 0x300=768   0       6       0x30 0    0       | 164       12
 *      1 0x1400=5120 9       0       0    3    7       | 1256      20
 *      3 0x10=16     0       0       0    0    0       | 7         40
 * (/proc/softirqs has CPU2's column, 77 and 99 both times: no instance.)
 * CPU 3's processed wraps: 2^32 - 0xfffffff0 + 0x10 = 16 + 16 = 32.
 */
static void
test_v510(void **unused)
{
	static const struct want rx_packets[] = {
		OKV("0", 256), /* (768 - 256) / 2 */
		OKV("1", 512), /* (5120 - 4096) / 2 */
		WRV("3", 16),  /* 32 / 2 */
	};
	static const struct want indications[] = {
		OKV("0", 32),  /* (164 - 100) / 2 */
		OKV("1", 128), /* (1256 - 1000) / 2 */
		OKV("3", 1),   /* (7 - 5) / 2 */
	};
	static const struct want per_indication[] = {
		OKV("0", 8),  /* 512 / 64 */
		OKV("1", 4),  /* 1024 / 256 */
		WRV("3", 16), /* 32 / 2 */
	};
	static const struct want send[] = {
		OKV("0", 1), /* (12 - 10) / 2 */
		OKV("1", 0), /* (20 - 20) / 2 */
		OKV("3", 5), /* (40 - 30) / 2 */
	};
	static const struct want dropped[] = { OKV("0", 0), OKV("1", 2) }; /* (9 - 5) / 2 */
	static const struct want deferred[] = { OKV("0", 2), OKV("1", 0) }; /* (6 - 2) / 2 */
	static const struct want rps[] = { OKV("0", 16), OKV("3", 0) };     /* (48 - 16) / 2 */
	static const struct want flow[] = { OKV("0", 0), OKV("1", 1) };     /* (3 - 1) / 2 */
	static const struct want backlog[] = { OKV("0", 0), OKV("1", 7), OKV("3", 0) };
	static const struct want backlog0[] = { { "1", 3, ST_FIRST } };
	static const struct want first[] = { NOV("1", ST_FIRST) };
	struct series s;

	(void)unused;
	series_load(&s, PROV, "softnet-v510", 2, ~(uint64_t)0);
	assert_names(&s.rs[0], "0 1 3");
	assert_names(&s.rs[1], "0 1 3");
	CHECK_ALL(&s, 0, "Received Packets/sec", first);
	CHECK_ALL(&s, 0, "Backlog Length", backlog0);
	CHECK_ALL(&s, 1, "Received Packets/sec", rx_packets);
	CHECK_ALL(&s, 1, "Receive Indications/sec", indications);
	CHECK_ALL(&s, 1, "Avg. Packets per Indication", per_indication);
	CHECK_ALL(&s, 1, "Send Softirqs/sec", send);
	CHECK_ALL(&s, 1, "Dropped Packets/sec", dropped);
	CHECK_ALL(&s, 1, "DPCs Deferred/sec", deferred);
	CHECK_ALL(&s, 1, "DPCs Queued on Other CPUs/sec", rps);
	CHECK_ALL(&s, 1, "Flow Limit Drops/sec", flow);
	CHECK_ALL(&s, 1, "Backlog Length", backlog);
	/* _Total: sums of the per-CPU deltas, then the formula. */
	check_total(&s, 1, "Received Packets/sec", 784, ST_WRAPPED); /* (512 + 1024 + 32) / 2 */
	check_total(&s, 1, "Receive Indications/sec", 161, ST_OK);  /* (64 + 256 + 2) / 2 */
	/* (512 + 1024 + 32) / (64 + 256 + 2) = 1568 / 322 */
	check_total(&s, 1, "Avg. Packets per Indication", 1568.0 / 322.0, ST_WRAPPED);
	check_total(&s, 1, "Send Softirqs/sec", 6, ST_OK);          /* (2 + 0 + 10) / 2 */
	check_total(&s, 1, "Backlog Length", 7, ST_OK);             /* 0 + 7 + 0 */
	check_total(&s, 0, "Received Packets/sec", 0, ST_FIRST);
	series_free(&s);
}

/*
 * softnet-v4, dt = 2 s, online "0,2-3" (rows 0, 1, 2 are CPUs 0, 2, 3):
 *        processed dropped squeeze rps flow | NET_RX  (NET_TX 1 0 2 3 both times)
 *   t0 0 0x10=16   0       1       4   0    | 10
 *      2 0x20=32   1       0       0   0    | 20
 *      3 0x30=48   0       0       2   1    | 30
 *   t1 0 0x14=20   0       3       8   0    | 12
 *      2 0x40=64   3       0       0   0    | 28
 *      3 0x30=48   0       0       2   5    | 30
 */
static void
test_v4(void **unused)
{
	static const struct want rx_packets[] = {
		OKV("0", 2),  /* (20 - 16) / 2 */
		OKV("2", 16), /* (64 - 32) / 2 */
		OKV("3", 0),  /* (48 - 48) / 2 */
	};
	static const struct want indications[] = {
		OKV("0", 1), /* (12 - 10) / 2 */
		OKV("2", 4), /* (28 - 20) / 2 */
		OKV("3", 0), /* (30 - 30) / 2 */
	};
	static const struct want per_indication[] = {
		OKV("0", 2), /* 4 / 2 */
		OKV("2", 4), /* 32 / 8 */
		OKV("3", 0), /* 0 / 0: no indications, no packets per indication */
	};
	static const struct want send[] = { OKV("0", 0), OKV("2", 0), OKV("3", 0) };
	static const struct want dropped[] = { OKV("2", 1) };         /* (3 - 1) / 2 */
	static const struct want deferred[] = { OKV("0", 1) };        /* (3 - 1) / 2 */
	static const struct want rps[] = { OKV("0", 2), OKV("3", 0) }; /* (8 - 4) / 2 */
	static const struct want flow[] = { OKV("3", 2) };            /* (5 - 1) / 2 */
	static const struct want backlog[] = { NOV("0", ST_UNSUPPORTED), NOV("3", ST_UNSUPPORTED) };
	struct series s;

	(void)unused;
	series_load(&s, PROV, "softnet-v4", 2, ~(uint64_t)0);
	assert_names(&s.rs[0], "0 2 3");
	assert_names(&s.rs[1], "0 2 3");
	CHECK_ALL(&s, 1, "Received Packets/sec", rx_packets);
	CHECK_ALL(&s, 1, "Receive Indications/sec", indications);
	CHECK_ALL(&s, 1, "Avg. Packets per Indication", per_indication);
	CHECK_ALL(&s, 1, "Send Softirqs/sec", send);
	CHECK_ALL(&s, 1, "Dropped Packets/sec", dropped);
	CHECK_ALL(&s, 1, "DPCs Deferred/sec", deferred);
	CHECK_ALL(&s, 1, "DPCs Queued on Other CPUs/sec", rps);
	CHECK_ALL(&s, 1, "Flow Limit Drops/sec", flow);
	CHECK_ALL(&s, 1, "Backlog Length", backlog);
	check_total(&s, 1, "Received Packets/sec", 18, ST_OK);     /* (4 + 32 + 0) / 2 */
	check_total(&s, 1, "Avg. Packets per Indication", 3.6, ST_OK); /* 36 / (2 + 8 + 0) */
	check_total(&s, 1, "Backlog Length", 0, ST_UNSUPPORTED);
	series_free(&s);
}

/*
 * softnet-v3, dt = 2 s, 9 columns, no online file, no /proc/softirqs:
 *        processed dropped squeeze
 *   t0 0 0x0a=10   0       0
 *      1 0x14=20   0       0
 *   t1 0 0x1e=30   2       0
 *      1 0x14=20   0       0
 */
static void
test_v3(void **unused)
{
	static const struct want rx_packets[] = { OKV("0", 10), OKV("1", 0) }; /* (30 - 10) / 2 */
	static const struct want dropped[] = { OKV("0", 1) };                /* (2 - 0) / 2 */
	static const struct want none[] = { NOV("0", ST_UNSUPPORTED), NOV("1", ST_UNSUPPORTED) };
	static const char *const unsupported[] = {
		"Receive Indications/sec", "Avg. Packets per Indication", "Send Softirqs/sec",
		"DPCs Queued on Other CPUs/sec", "Flow Limit Drops/sec", "Backlog Length",
		/* eBPF (COUNTERS.md section 10) */
		"% NET_RX Time", "% NET_TX Time", "Interrupt DPC Cycles/sec",
		"Interrupt DPC Latency", "NAPI Polls/sec", "Avg. Packets per Poll",
		"Polls at Full Budget/sec",
	};
	struct series s;

	(void)unused;
	series_load(&s, PROV, "softnet-v3", 2, ~(uint64_t)0);
	assert_names(&s.rs[1], "0 1");
	CHECK_ALL(&s, 1, "Received Packets/sec", rx_packets);
	CHECK_ALL(&s, 1, "Dropped Packets/sec", dropped);
	for (size_t i = 0; i < ARRAY_SIZE(unsupported); i++) {
		CHECK_ALL(&s, 1, unsupported[i], none);
		/* Avg. Packets per Indication's _Total too: N present, B
		 * absent everywhere */
		check_total(&s, 1, unsupported[i], 0, ST_UNSUPPORTED);
	}
	check_total(&s, 1, "Received Packets/sec", 10, ST_OK); /* (20 + 0) / 2 */
	series_free(&s);
}

/*
 * softnet-badcpu, 13 columns (5.10), dt = 2 s: a CPU-id column that names
 * no CPU (ffffffff, 0x10000 above CPUINFO_MAX_CPU, or not above the
 * previous row's) never becomes an instance "4294967295": the row is
 * placed by position, the k-th online CPU, else the next CPU.
 *        online   column 13 (row 0..4)     -> instances    processed
 *   t0   0-1,3-5  0 1 ffffffff 4 10000     -> 0 1 3 4 5    0x100 0x200 0x300 0x400 0x500
 *                 (row 2: online[2] = 3; row 4: online[4] = 5)
 *   t1   0-1,3-5  0 1 3 1 5                -> 0 1 3 4 5    0x180 0x280 0x400 0x500 0x600
 *                 (row 3: 1 is not above 3; online[3] = 4)
 *   t2   (none)   0 1 3 ffffffff 5         -> 0 1 3 4 5    0x200 0x300 0x480 0x580 0x700
 *                 (row 3: no list, the next CPU after 3)
 * so every row keeps its instance from read to read, and its packets stay
 * in _Total.
 */
static void
test_bad_cpu_id(void **unused)
{
	static const struct want t1[] = {
		OKV("0", 64),  /* (0x180 - 0x100) / 2 = 128 / 2 */
		OKV("1", 64),  /* (0x280 - 0x200) / 2 */
		OKV("3", 128), /* (0x400 - 0x300) / 2 = 256 / 2 */
		OKV("4", 128), /* (0x500 - 0x400) / 2 */
		OKV("5", 128), /* (0x600 - 0x500) / 2 */
	};
	static const struct want t2[] = {
		OKV("0", 64),  /* (0x200 - 0x180) / 2 */
		OKV("1", 64),  /* (0x300 - 0x280) / 2 */
		OKV("3", 64),  /* (0x480 - 0x400) / 2 = 128 / 2 */
		OKV("4", 64),  /* (0x580 - 0x500) / 2 */
		OKV("5", 128), /* (0x700 - 0x600) / 2 = 256 / 2 */
	};
	struct series s;

	(void)unused;
	series_load(&s, PROV, "softnet-badcpu", 3, ~(uint64_t)0);
	assert_names(&s.rs[0], "0 1 3 4 5");
	assert_names(&s.rs[1], "0 1 3 4 5");
	assert_names(&s.rs[2], "0 1 3 4 5");
	assert_null(series_find(&s.rs[0], "4294967295"));
	assert_null(series_find(&s.rs[0], "65536"));
	CHECK_ALL(&s, 1, "Received Packets/sec", t1);
	CHECK_ALL(&s, 2, "Received Packets/sec", t2);
	check_total(&s, 1, "Received Packets/sec", 512, ST_OK); /* (128*2 + 256*3) / 2 */
	check_total(&s, 2, "Received Packets/sec", 384, ST_OK); /* (128*4 + 256) / 2 */
	series_free(&s);
}

/*
 * irq-overflow (13 columns, CPUs 0 and 1, dt = 2 s): a NET_RX or NET_TX
 * cell of /proc/softirqs whose digits overflow uint64 is absent, never 0:
 *        processed      NET_RX (t0 -> t1)     NET_TX (t0 -> t1)
 *   0    0x10 -> 0x30   100 -> 10^20          10 -> 14
 *   1    0x20 -> 0x40   200 -> 260            10^20 -> 30
 */
static void
test_softirq_overflow(void **unused)
{
	static const struct want packets[] = { OKV("0", 16), OKV("1", 16) }; /* 0x20 / 2 */
	static const struct want ind[] = {
		NOV("0", ST_UNSUPPORTED), /* no NET_RX count at t1 */
		OKV("1", 30),             /* (260 - 200) / 2 */
	};
	static const struct want per_ind[] = {
		NOV("0", ST_UNSUPPORTED),
		OKV("1", 32.0 / 60.0), /* (0x40 - 0x20) / (260 - 200) */
	};
	static const struct want send[] = {
		OKV("0", 2),              /* (14 - 10) / 2 */
		NOV("1", ST_UNSUPPORTED), /* no NET_TX count at t0 */
	};
	struct series s;

	(void)unused;
	series_load(&s, PROV, "irq-overflow", 2, ~(uint64_t)0);
	assert_names(&s.rs[1], "0 1");
	CHECK_ALL(&s, 1, "Received Packets/sec", packets);
	CHECK_ALL(&s, 1, "Receive Indications/sec", ind);
	CHECK_ALL(&s, 1, "Avg. Packets per Indication", per_ind);
	CHECK_ALL(&s, 1, "Send Softirqs/sec", send);
	series_free(&s);
}

/* /proc/softirqs is read only for NET_RX or NET_TX; softnet_stat always
 * (it lists the instances); no softnet_stat at all: no instances. */
static void
test_needed(void **unused)
{
	const struct counter_set *set = PROV->set;
	uint64_t packets = counter_fields(counter_set_find(set, "Received Packets/sec"));
	uint64_t ind = counter_fields(counter_set_find(set, "Receive Indications/sec"));
	struct series s;

	(void)unused;
	series_load(&s, PROV, "softnet-v510", 1, packets);
	assert_names(&s.rs[0], "0 1 3");
	for (size_t k = 0; k < s.rs[0].ninstances; k++)
		assert_int_equal(raw_present_at(&s.rs[0], k) & ind, 0);
	series_free(&s);

	series_load(&s, PROV, "softnet-v510", 1, ind);
	assert_true(raw_present_at(&s.rs[0], 0) & ind);
	series_free(&s);

	series_load(&s, PROV, "irq-basic", 1, ~(uint64_t)0);
	assert_int_equal(s.rs[0].ninstances, 0);
	series_free(&s);
}

static void
test_set_shape(void **unused)
{
	static const char *const names[] = {
		"Received Packets/sec", "Receive Indications/sec", "Avg. Packets per Indication",
		"Send Softirqs/sec", "Dropped Packets/sec", "DPCs Deferred/sec",
		"DPCs Queued on Other CPUs/sec", "Flow Limit Drops/sec", "Backlog Length",
		/* eBPF (COUNTERS.md section 10) */
		"% NET_RX Time", "% NET_TX Time", "Interrupt DPC Cycles/sec",
		"Interrupt DPC Latency", "NAPI Polls/sec", "Avg. Packets per Poll",
		"Polls at Full Budget/sec",
	};
	const struct counter_set *set = PROV->set;

	(void)unused;
	assert_string_equal(set->name, "Per Processor Network Activity");
	assert_ptr_equal(provider_find("Per Processor Network Activity"), PROV);
	assert_true(set->multi_instance);
	assert_true(set->has_total);
	assert_int_equal(set->ncounters, ARRAY_SIZE(names));
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		assert_string_equal(set->counters[i].name, names[i]);
		assert_non_null(set->counters[i].help);
	}
	/* the text sources' fields are 32 bits wide, the eBPF ones 64 */
	for (size_t f = 0; f < set->nfields; f++)
		assert_int_equal(set->fields[f].width,
				 strstr(set->fields[f].name, "_ns") || strstr(set->fields[f].name, "napi_") ||
						 strstr(set->fields[f].name, "latencies") ||
						 strcmp(set->fields[f].name, "freq_hz") == 0
					 ? FW_64
					 : FW_32);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_rows),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_v510),
		cmocka_unit_test(test_v4),
		cmocka_unit_test(test_v3),
		cmocka_unit_test(test_bad_cpu_id),
		cmocka_unit_test(test_softirq_overflow),
		cmocka_unit_test(test_needed),
		cmocka_unit_test(test_set_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
