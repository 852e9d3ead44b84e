/*
 * test_derive.c - every counter type, wrap and reset rule, and _Total of
 * derive.c against hand-computed values on a synthetic counter set.
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

#include "gc_test.h"

#include "derive.h"

enum { F_A, F_B, F_C32, F_MS, F_INFLIGHT, F_TICKS, F_BYTES, F_SPEED, F_DUPLEX, F_U, F_I,
       F_GUEST, F_G, F_TX, NF };

static const struct field_desc fields[NF] = {
	[F_A] = { "a", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_B] = { "b", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_C32] = { "c32", FW_32, FK_COUNTER, FB_NONE, NO_PROM },
	[F_MS] = { "ms", FW_32, FK_COUNTER, FB_DISK_MS, NO_PROM },
	[F_INFLIGHT] = { "inflight", FW_64, FK_GAUGE, FB_NONE, NO_PROM },
	[F_TICKS] = { "ticks", FW_32, FK_COUNTER, FB_IO_TICKS, NO_PROM },
	[F_BYTES] = { "bytes", FW_32IN64, FK_COUNTER, FB_IF_BYTES, NO_PROM },
	[F_SPEED] = { "speed", FW_64, FK_GAUGE, FB_NONE, NO_PROM },
	[F_DUPLEX] = { "duplex", FW_64, FK_GAUGE, FB_NONE, NO_PROM },
	[F_U] = { "user", FW_64, FK_CPU_TIME, FB_NONE, NO_PROM },
	[F_I] = { "idle", FW_64, FK_CPU_TIME, FB_NONE, NO_PROM },
	[F_GUEST] = { "guest", FW_64, FK_CPU_EXTRA, FB_NONE, NO_PROM },
	[F_G] = { "gauge", FW_64, FK_GAUGE, FB_NONE, NO_PROM },
	[F_TX] = { "tx", FW_32IN64, FK_COUNTER, FB_IF_BYTES, NO_PROM },
};

enum { C_RAW, C_DELTA, C_RATE, C_FRAC, C_SFRAC, C_AVGT, C_AVGB, C_TIMER, C_TINV, C_QLEN,
       C_ELAPSED, C_UTIL, C_RATE32, C_MEAN_TIMER, C_SFRAC_NOZB, C_DIFF, C_RAW2, C_RATE2W,
       C_DELTA2, C_QLEN2, C_MULF, C_MULAVG, C_GRATE, C_GRATE1, C_CLAMP1, NC };

static const struct counter_desc counters[NC] = {
	[C_RAW] = { .name = "Raw", .type = CT_RAW, .num = { { F_G, 1 } }, .scale = 2 },
	[C_DELTA] = { .name = "Delta", .type = CT_DELTA, .num = { { F_A, 1 } } },
	[C_RATE] = { .name = "Rate", .type = CT_RATE, .num = { { F_A, 1 }, { F_B, 1 } } },
	[C_FRAC] = { .name = "Frac", .type = CT_FRACTION, .num = { { F_G, 1 } },
		     .den = { { F_SPEED, 1 } } },
	[C_SFRAC] = { .name = "SFrac", .type = CT_SAMPLE_FRACTION, .num = { { F_U, 1 } },
		      .den = { { F_U, 1 }, { F_I, 1 } }, .has_zero_base = 1, .zero_base = 0 },
	[C_AVGT] = { .name = "AvgT", .type = CT_AVG_TIMER, .num = { { F_MS, 1 } },
		     .den = { { F_A, 1 } }, .scale = 0.001 },
	[C_AVGB] = { .name = "AvgB", .type = CT_AVG_BULK, .num = { { F_B, 1 } },
		     .den = { { F_A, 1 } }, .scale = 512 },
	[C_TIMER] = { .name = "Timer", .type = CT_TIMER, .num = { { F_TICKS, 1 } },
		      .scale = 0.001 },
	[C_TINV] = { .name = "TimerInv", .type = CT_TIMER_INV, .num = { { F_TICKS, 1 } },
		     .scale = 0.001, .total = TOTAL_MEAN },
	[C_QLEN] = { .name = "QLen", .type = CT_QUEUELEN, .num = { { F_MS, 1 } }, .scale = 0.001 },
	[C_ELAPSED] = { .name = "Elapsed", .type = CT_ELAPSED, .num = { { F_G, 1 } } },
	[C_UTIL] = { .name = "Util", .type = CT_UTILIZATION, .num = { { F_BYTES, 1 } },
		     .den = { { F_TX, 1 } } },
	[C_RATE32] = { .name = "Rate32", .type = CT_RATE, .num = { { F_C32, 1 } } },
	[C_MEAN_TIMER] = { .name = "MeanTimer", .type = CT_TIMER, .num = { { F_TICKS, 1 } },
			   .scale = 0.001, .total = TOTAL_MEAN },
	[C_SFRAC_NOZB] = { .name = "SFracNoZero", .type = CT_SAMPLE_FRACTION,
			   .num = { { F_U, 1 } }, .den = { { F_U, 1 }, { F_I, 1 } } },
	[C_DIFF] = { .name = "Diff", .type = CT_RAW, .num = { { F_SPEED, 1 }, { F_G, -1 } } },
	/* sums of fields, which derive_run forms in loops of their own */
	[C_RAW2] = { .name = "Raw2", .type = CT_RAW, .num = { { F_A, 1 }, { F_B, 1 } },
		     .scale = 0.5 },
	[C_RATE2W] = { .name = "Rate2W", .type = CT_RATE, .num = { { F_C32, 1 }, { F_A, 1 } } },
	[C_DELTA2] = { .name = "Delta2", .type = CT_DELTA, .num = { { F_B, 1 }, { F_MS, 1 } } },
	[C_QLEN2] = { .name = "QLen2", .type = CT_QUEUELEN, .num = { { F_MS, 1 }, { F_A, 1 } },
		      .scale = 0.001 },
	/* a multiplier: of N and B (statvfs' f_frsize), of N alone (cycles) */
	[C_MULF] = { .name = "MulFrac", .type = CT_FRACTION, .num = { { F_G, 1 } },
		     .den = { { F_SPEED, 1 } }, .mul = FIELD_REF(F_DUPLEX) },
	[C_MULAVG] = { .name = "MulAvg", .type = CT_AVG_BULK, .num = { { F_B, 1 } },
		       .den = { { F_A, 1 } }, .mul = FIELD_REF(F_G), .mul_num_only = 1 },
	/* a gauge among a rate's terms: its delta is 0 */
	[C_GRATE] = { .name = "GaugeRate", .type = CT_RATE, .num = { { F_A, 1 }, { F_G, 1 } } },
	/* one field: a gauge's rate (its delta is 0), and a timer clamped
	 * to 100 */
	[C_GRATE1] = { .name = "GaugeRate1", .type = CT_RATE, .num = { { F_G, 1 } } },
	[C_CLAMP1] = { .name = "Clamp1", .type = CT_TIMER, .num = { { F_TICKS, 1 } },
		       .scale = 0.1, .clamp100 = 1 },
};

static const struct counter_set set = {
	.name = "Test",
	.help = "synthetic",
	.multi_instance = 1,
	.has_total = 1,
	.fields = fields,
	.nfields = NF,
	.counters = counters,
	.ncounters = NC,
	.inflight_field = FIELD_REF(F_INFLIGHT),
	.speed_field = FIELD_REF(F_SPEED),
	.duplex_field = FIELD_REF(F_DUPLEX),
};

/* Slot s's low word is word 2s: every slot wide. */
static uint8_t wide_woff[SET_MAX_FIELDS];

/* A set of one instance ri over cs whose words are w (two a field, every
 * slot wide, so that no value moves it): nothing on the heap (never
 * raw_set_free'd); set_value changes a value. */
static void
one_instance_set(struct raw_set *rs, const struct counter_set *cs, struct raw_instance *ri,
		 uint32_t *w, uint64_t *present, uint8_t *in_total)
{
	raw_set_init(rs, cs);
	for (unsigned s = 0; s < SET_MAX_FIELDS; s++)
		wide_woff[s] = (uint8_t)(2 * s);
	rs->inst = ri;
	rs->values = w;
	rs->wide = cs->nfields >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << cs->nfields) - 1u;
	rs->woff = wide_woff;
	rs->stride = 2 * cs->nfields;
	rs->present = present;
	rs->pw = sizeof(*present);
	rs->in_total = in_total;
	rs->ninstances = rs->cap = 1;
	rs->valid = 1;
	*in_total = 1;
}

/* Field f of the one instance of rs is v (marked present). */
static void
set_value(struct raw_set *rs, unsigned f, uint64_t v)
{
	raw_put(rs, &rs->inst[0], f, v);
}

struct inst {
	uint32_t w[2 * NF];
	uint8_t in_total;
	uint64_t present;
	struct raw_instance ri;
	struct raw_set rs; /* of ri alone */
};

static void
inst_init(struct inst *in, const uint64_t *vals, uint64_t present)
{
	memset(&in->ri, 0, sizeof(in->ri));
	one_instance_set(&in->rs, &set, &in->ri, in->w, &in->present, &in->in_total);
	for (unsigned f = 0; f < NF; f++)
		set_value(&in->rs, f, vals[f]);
	in->present = present;
}

#define ALL (((uint64_t)1 << NF) - 1)

static struct derive_env env2 = { .dt = 2.0, .wall_s = 1000.0, .user_hz = 100, .ulong_bits = 64 };

static struct value
pair_value(const uint64_t *a, const uint64_t *b, int counter, struct field_deltas *d)
{
	struct inst p, c;
	inst_init(&p, a, ALL);
	inst_init(&c, b, ALL);
	derive_deltas(&p.rs, &p.ri, &c.rs, &c.ri, &env2, d);
	return derive_value(&c.rs, &counters[counter], &c.ri, d, ST_OK, &env2);
}

static void
test_types(void **state)
{
	(void)state;
	uint64_t a[NF] = { [F_A] = 100, [F_B] = 50, [F_MS] = 1000, [F_TICKS] = 500,
			   [F_G] = 40, [F_SPEED] = 80, [F_U] = 10, [F_I] = 90, [F_BYTES] = 0,
			   [F_DUPLEX] = 1, [F_TX] = 0 };
	uint64_t b[NF] = { [F_A] = 110, [F_B] = 70, [F_MS] = 1050, [F_TICKS] = 1500,
			   [F_G] = 20, [F_SPEED] = 80, [F_U] = 40, [F_I] = 160,
			   [F_BYTES] = 1000000, [F_DUPLEX] = 1, [F_TX] = 250000 };
	FIELD_DELTAS_DECLARE(d);
	struct value v;

	/* RAW: N x scale = 20 x 2 = 40 */
	v = pair_value(a, b, C_RAW, &d);
	assert_int_equal(v.status, ST_OK);
	assert_double_equal(v.v, 40, 1e-9);
	/* DELTA: 110 - 100 = 10 */
	v = pair_value(a, b, C_DELTA, &d);
	assert_double_equal(v.v, 10, 1e-9);
	/* RATE: (10 + 20) / 2 s = 15 */
	v = pair_value(a, b, C_RATE, &d);
	assert_double_equal(v.v, 15, 1e-9);
	/* FRACTION: 100 x 20 / 80 = 25 */
	v = pair_value(a, b, C_FRAC, &d);
	assert_double_equal(v.v, 25, 1e-9);
	/* SAMPLE_FRACTION: 100 x 30 / (30 + 70) = 30 */
	v = pair_value(a, b, C_SFRAC, &d);
	assert_double_equal(v.v, 30, 1e-9);
	/* AVG_TIMER: 50 ms x 0.001 / 10 ops = 0.005 s */
	v = pair_value(a, b, C_AVGT, &d);
	assert_double_equal(v.v, 0.005, 1e-12);
	/* AVG_BULK: 20 sectors x 512 / 10 ops = 1024 */
	v = pair_value(a, b, C_AVGB, &d);
	assert_double_equal(v.v, 1024, 1e-9);
	/* TIMER: 100 x 1000 ms x 0.001 / 2 s = 50 */
	v = pair_value(a, b, C_TIMER, &d);
	assert_double_equal(v.v, 50, 1e-9);
	/* TIMER_INV: 100 x (1 - 1 / 2) = 50 */
	v = pair_value(a, b, C_TINV, &d);
	assert_double_equal(v.v, 50, 1e-9);
	/* QUEUELEN: 50 ms x 0.001 / 2 s = 0.025 */
	v = pair_value(a, b, C_QLEN, &d);
	assert_double_equal(v.v, 0.025, 1e-12);
	/* ELAPSED: wall 1000 s - 20 = 980 */
	v = pair_value(a, b, C_ELAPSED, &d);
	assert_double_equal(v.v, 980, 1e-9);
	/* UTILIZATION, full duplex: 100 x max(1e6, 2.5e5) x 8 / (2 s x 80e6) = 5 */
	v = pair_value(a, b, C_UTIL, &d);
	assert_double_equal(v.v, 5, 1e-9);
	/* half duplex: the sum: 100 x 1.25e6 x 8 / 160e6 = 6.25 */
	b[F_DUPLEX] = 0;
	v = pair_value(a, b, C_UTIL, &d);
	assert_double_equal(v.v, 6.25, 1e-9);
	/* signed terms: speed - gauge = 80 - 20 = 60 */
	v = pair_value(a, b, C_DIFF, &d);
	assert_double_equal(v.v, 60, 1e-9);
}

static void
test_edges(void **state)
{
	(void)state;
	uint64_t a[NF] = { [F_A] = 100, [F_U] = 10, [F_I] = 90, [F_SPEED] = 0 };
	uint64_t b[NF] = { [F_A] = 100, [F_U] = 10, [F_I] = 90, [F_SPEED] = 0 };
	FIELD_DELTAS_DECLARE(d);
	struct value v;

	/* AVG_*: dB = 0 gives 0, OK */
	v = pair_value(a, b, C_AVGT, &d);
	assert_int_equal(v.status, ST_OK);
	assert_double_equal(v.v, 0, 0);
	/* SAMPLE_FRACTION: dB = 0 gives the zero base (0), or UNSUPPORTED */
	v = pair_value(a, b, C_SFRAC, &d);
	assert_int_equal(v.status, ST_OK);
	assert_double_equal(v.v, 0, 0);
	v = pair_value(a, b, C_SFRAC_NOZB, &d);
	assert_int_equal(v.status, ST_UNSUPPORTED);
	/* FRACTION: B = 0 gives UNSUPPORTED */
	v = pair_value(a, b, C_FRAC, &d);
	assert_int_equal(v.status, ST_UNSUPPORTED);
	/* UTILIZATION: bandwidth 0 gives UNSUPPORTED */
	v = pair_value(a, b, C_UTIL, &d);
	assert_int_equal(v.status, ST_UNSUPPORTED);

	/* dt <= 0: every two-read type is BAD_TIME; one-read types are not */
	struct derive_env zero = env2;
	struct inst p, c;
	zero.dt = 0;
	inst_init(&p, a, ALL);
	inst_init(&c, b, ALL);
	derive_deltas(&p.rs, &p.ri, &c.rs, &c.ri, &zero, &d);
	for (int k = 0; k < NC; k++) {
		v = derive_value(&c.rs, &counters[k], &c.ri, &d, ST_OK, &zero);
		assert_true(isfinite(v.v));
		if (counter_type_needs_two(counters[k].type))
			assert_int_equal(v.status, ST_BAD_TIME);
	}
	/* time going back (roots in the wrong order) with a decrease: BAD_TIME,
	 * not RESET, for an instance and for a total */
	{
		uint64_t hi[NF] = { [F_A] = 500 }, lo[NF] = { [F_A] = 400 };
		struct derive_env back = env2;
		back.dt = -2;
		inst_init(&p, hi, ALL);
		inst_init(&c, lo, ALL);
		derive_deltas(&p.rs, &p.ri, &c.rs, &c.ri, &back, &d);
		assert_int_equal(d.status, ST_RESET);
		v = derive_value(&c.rs, &counters[C_RATE], &c.ri, &d, ST_OK, &back);
		assert_int_equal(v.status, ST_BAD_TIME);
		const struct raw_instance *ci[1] = { &c.ri };
		const struct field_deltas *di[1] = { &d };
		uint8_t pi[1] = { ST_OK };
		v = derive_total(&c.rs, &counters[C_RATE], ci, di, pi, 1, &back);
		assert_int_equal(v.status, ST_BAD_TIME);
	}
	/* negative dt, huge values: never NaN or infinite */
	zero.dt = -1;
	uint64_t huge[NF];
	for (int f = 0; f < NF; f++)
		huge[f] = UINT64_MAX;
	inst_init(&c, huge, ALL);
	for (int k = 0; k < NC; k++) {
		derive_deltas(&p.rs, &p.ri, &c.rs, &c.ri, &env2, &d);
		v = derive_value(&c.rs, &counters[k], &c.ri, &d, ST_OK, &env2);
		assert_true(isfinite(v.v));
		v = derive_value(&c.rs, &counters[k], &c.ri, &d, ST_OK, &zero);
		assert_true(isfinite(v.v));
		v = derive_value(&c.rs, &counters[k], &c.ri, NULL, ST_NEW, &env2);
		assert_true(isfinite(v.v));
	}
}

static void
test_missing(void **state)
{
	(void)state;
	uint64_t a[NF] = { [F_A] = 1, [F_B] = 1 }, b[NF] = { [F_A] = 5, [F_B] = 9 };
	struct inst p, c;
	FIELD_DELTAS_DECLARE(d);
	struct value v;

	/* F_B missing: counts as 0 in the sum: (5 - 1) / 2 = 2 */
	inst_init(&p, a, (uint64_t)1 << F_A);
	inst_init(&c, b, (uint64_t)1 << F_A);
	derive_deltas(&p.rs, &p.ri, &c.rs, &c.ri, &env2, &d);
	v = derive_value(&c.rs, &counters[C_RATE], &c.ri, &d, ST_OK, &env2);
	assert_int_equal(v.status, ST_OK);
	assert_double_equal(v.v, 2, 1e-9);
	/* every N field missing: UNSUPPORTED, even as NEW */
	inst_init(&c, b, 0);
	v = derive_value(&c.rs, &counters[C_RATE], &c.ri, NULL, ST_NEW, &env2);
	assert_int_equal(v.status, ST_UNSUPPORTED);
	/* NEW: no value for two-read types; a one-read type has its value */
	inst_init(&c, b, ALL);
	v = derive_value(&c.rs, &counters[C_RATE], &c.ri, NULL, ST_NEW, &env2);
	assert_int_equal(v.status, ST_NEW);
	assert_false(value_exists(&counters[C_RATE], ST_NEW));
	v = derive_value(&c.rs, &counters[C_RAW], &c.ri, NULL, ST_NEW, &env2);
	assert_int_equal(v.status, ST_NEW);
	assert_true(value_exists(&counters[C_RAW], ST_NEW));
	/* a snapshot (no previous, pair OK): BAD_TIME */
	v = derive_value(&c.rs, &counters[C_RATE], &c.ri, NULL, ST_OK, &env2);
	assert_int_equal(v.status, ST_BAD_TIME);
}

static void
test_wrap(void **state)
{
	(void)state;
	uint64_t a[NF] = { [F_C32] = 0xFFFFFF00u, [F_A] = 10 };
	uint64_t b[NF] = { [F_C32] = 0x100, [F_A] = 10 };
	FIELD_DELTAS_DECLARE(d);
	struct value v;

	/* 32-bit wrap: 2^32 - 0xFFFFFF00 + 0x100 = 0x200 = 512; / 2 s = 256 */
	v = pair_value(a, b, C_RATE32, &d);
	assert_int_equal(v.status, ST_WRAPPED);
	assert_double_equal(v.v, 256, 1e-9);
	assert_int_equal(d.status, ST_WRAPPED);
	/* a corrected delta of 2^31 or more is a RESET: 2^32 - 0x10 + 0x7FFFFFFF */
	a[F_C32] = 0x10;
	b[F_C32] = 0x0F;
	v = pair_value(a, b, C_RATE32, &d);
	assert_int_equal(v.status, ST_RESET);
	/* disk ms wrap bound: dt x 1000 x (1 + inflight) = 2000 x (1 + 0) = 2000;
	 * corrected 2^32 - 0xFFFFFF00 + 0x100 = 512 < 2000: WRAPPED */
	uint64_t ma[NF] = { [F_MS] = 0xFFFFFF00u, [F_A] = 1 };
	uint64_t mb[NF] = { [F_MS] = 0x100, [F_A] = 2 };
	v = pair_value(ma, mb, C_QLEN, &d);
	assert_int_equal(v.status, ST_WRAPPED);
	/* QUEUELEN: 512 ms x 0.001 / 2 s = 0.256 */
	assert_double_equal(v.v, 0.256, 1e-12);
	/* corrected 2^32 - 0xFFFF0000 + 0x100 = 65792 > 2000: RESET */
	ma[F_MS] = 0xFFFF0000u;
	v = pair_value(ma, mb, C_QLEN, &d);
	assert_int_equal(v.status, ST_RESET);
	/* ... unless 40 I/Os were in flight: 2000 x 41 = 82000 > 65792 */
	ma[F_INFLIGHT] = 40;
	v = pair_value(ma, mb, C_QLEN, &d);
	assert_int_equal(v.status, ST_WRAPPED);
	/* io_ticks bound: dt x 1000 + 10 = 2010; corrected 2^32 - (2^32 - 1000) + 500 = 1500 */
	uint64_t ta[NF] = { [F_TICKS] = 0xFFFFFFFFu - 999 }, tb[NF] = { [F_TICKS] = 500 };
	v = pair_value(ta, tb, C_TIMER, &d);
	assert_int_equal(v.status, ST_WRAPPED);
	/* TIMER: 100 x 1500 x 0.001 / 2 = 75 */
	assert_double_equal(v.v, 75, 1e-9);
	tb[F_TICKS] = 1500; /* corrected 2500 > 2010: RESET */
	v = pair_value(ta, tb, C_TIMER, &d);
	assert_int_equal(v.status, ST_RESET);
	/* 32-in-64: wraps only when the previous value fits in 32 bits. Speed
	 * 80 Mbit/s: bound 80e6 / 8 x 2 x 1.1 = 22e6 bytes */
	uint64_t na[NF] = { [F_BYTES] = 0xFFFFF000u, [F_SPEED] = 80, [F_TX] = 0 };
	uint64_t nb[NF] = { [F_BYTES] = 0x1000, [F_SPEED] = 80, [F_TX] = 0 };
	struct inst p, c;
	inst_init(&p, na, ALL);
	inst_init(&c, nb, ALL);
	derive_deltas(&p.rs, &p.ri, &c.rs, &c.ri, &env2, &d);
	assert_int_equal(d.status, ST_WRAPPED);
	/* 2^32 - 0xFFFFF000 + 0x1000 = 8192 */
	assert_int_equal(d.d[F_BYTES], 8192);
	na[F_BYTES] = 0x100000000ull; /* above 32 bits: a decrease is a RESET */
	inst_init(&p, na, ALL);
	derive_deltas(&p.rs, &p.ri, &c.rs, &c.ri, &env2, &d);
	assert_int_equal(d.status, ST_RESET);
	/* bound: corrected 2^32 - 0x80000000 + 0x10 = 2147483664 is also >= 2^31 */
	na[F_BYTES] = 0xFE000000u; /* corrected 0x2000000 + 0x1000 = 33558528 > 22e6 */
	inst_init(&p, na, ALL);
	derive_deltas(&p.rs, &p.ri, &c.rs, &c.ri, &env2, &d);
	assert_int_equal(d.status, ST_RESET);
	/* 64-bit decrease: RESET, and every two-read counter of the instance */
	uint64_t ra[NF] = { [F_A] = 500, [F_B] = 5 }, rb[NF] = { [F_A] = 400, [F_B] = 9 };
	v = pair_value(ra, rb, C_RATE, &d);
	assert_int_equal(v.status, ST_RESET);
	v = pair_value(ra, rb, C_AVGB, &d);
	assert_int_equal(v.status, ST_RESET);
	/* a one-read counter of it still has its value */
	rb[F_G] = 7;
	v = pair_value(ra, rb, C_RAW, &d);
	assert_int_equal(v.status, ST_OK);
	assert_double_equal(v.v, 14, 1e-9);
	/* ulong on a 32-bit kernel wraps like a 32-bit field */
	struct derive_env e32 = env2;
	e32.ulong_bits = 32;
	static const struct field_desc ulf[1] = { { "u", FW_ULONG, FK_COUNTER, FB_NONE, NO_PROM } };
	struct counter_set ul = set;
	ul.fields = ulf;
	ul.nfields = 1;
	ul.inflight_field = ul.speed_field = ul.duplex_field = 0;
	uint32_t ua[2], ub[2];
	struct raw_instance pu = { 0 }, cu = { 0 };
	uint64_t pp = 1, cp = 1;
	struct raw_set pus, cus;
	uint8_t put, cut;
	one_instance_set(&pus, &ul, &pu, ua, &pp, &put);
	one_instance_set(&cus, &ul, &cu, ub, &cp, &cut);
	set_value(&pus, 0, 0xFFFFFFF0u);
	set_value(&cus, 0, 0x10);
	derive_deltas(&pus, &pu, &cus, &cu, &e32, &d);
	assert_int_equal(d.status, ST_WRAPPED);
	assert_int_equal(d.d[0], 0x20);
	derive_deltas(&pus, &pu, &cus, &cu, &env2, &d);
	assert_int_equal(d.status, ST_RESET);
	/* a changed identity is a RESET, never a wrap */
	raw_set_identity(&pus, 0, 1);
	raw_set_identity(&cus, 0, 2);
	set_value(&cus, 0, 0xFFFFFFF8u);
	derive_deltas(&pus, &pu, &cus, &cu, &e32, &d);
	assert_int_equal(d.status, ST_RESET);
	/* the runs are the only heap these hand-built sets have */
	free(pus.own.run_start);
	free(pus.own.run_id);
	free(cus.own.run_start);
	free(cus.own.run_id);
}

static void
test_cpu_clamp(void **state)
{
	(void)state;
	FIELD_DELTAS_DECLARE(d);
	struct value v;
	/* idle falls by 3 ticks while user rises by 50: T falls not at all
	 * (T: 10 + 90 = 100 -> 60 + 87 = 147): clamp idle's delta to 0.
	 * % = 100 x 50 / (50 + 0) = 100 */
	uint64_t a[NF] = { [F_U] = 10, [F_I] = 90 }, b[NF] = { [F_U] = 60, [F_I] = 87 };
	v = pair_value(a, b, C_SFRAC, &d);
	assert_int_equal(v.status, ST_OK);
	assert_double_equal(v.v, 100, 1e-9);
	/* T falls by 1 tick (100 -> 99): 1 % of dt x USER_HZ = 0.01 x 2 x 100
	 * = 2 ticks: still a clamp */
	uint64_t c[NF] = { [F_U] = 10, [F_I] = 89 };
	v = pair_value(a, c, C_SFRAC, &d);
	assert_int_equal(d.status, ST_OK);
	/* T falls by 50 ticks: RESET */
	uint64_t e[NF] = { [F_U] = 5, [F_I] = 45 };
	v = pair_value(a, e, C_SFRAC, &d);
	assert_int_equal(v.status, ST_RESET);
	/* guest (outside T) going back: clamped, no reset */
	uint64_t g1[NF] = { [F_U] = 10, [F_I] = 90, [F_GUEST] = 9 };
	uint64_t g2[NF] = { [F_U] = 20, [F_I] = 180, [F_GUEST] = 3 };
	v = pair_value(g1, g2, C_SFRAC, &d);
	assert_int_equal(d.status, ST_OK);
	assert_int_equal(d.d[F_GUEST], 0);
}

static void
test_totals(void **state)
{
	(void)state;
	/* two disks: 10 ops taking 100 ms and 30 ops taking 900 ms.
	 * Weighted: (100 + 900) x 0.001 / (10 + 30) = 0.025 s, not the mean
	 * of averages (0.01 + 0.03) / 2 = 0.02 */
	uint64_t a0[NF] = { [F_A] = 0, [F_MS] = 0, [F_TICKS] = 0 };
	uint64_t b0[NF] = { [F_A] = 10, [F_MS] = 100, [F_TICKS] = 400 };
	uint64_t a1[NF] = { [F_A] = 0, [F_MS] = 0, [F_TICKS] = 0 };
	uint64_t b1[NF] = { [F_A] = 30, [F_MS] = 900, [F_TICKS] = 1200 };
	uint64_t b2[NF] = { [F_A] = 99999, [F_MS] = 99999 };
	struct inst p0, p1;
	struct raw_set cs; /* the later read: c0, c1 and a NEW c2 */
	FIELD_DELTAS_DECLARE(d0);
	FIELD_DELTAS_DECLARE(d1);
	inst_init(&p0, a0, ALL);
	inst_init(&p1, a1, ALL);
	raw_set_init(&cs, &set);
	for (int k = 0; k < 3; k++) {
		const uint64_t *b = k == 0 ? b0 : k == 1 ? b1 : b2;
		struct raw_instance *ri = raw_set_add(&cs, k == 0 ? "c0" : k == 1 ? "c1" : "c2", 2, 0);
		for (unsigned f = 0; f < NF; f++)
			raw_put(&cs, ri, f, b[f]);
	}
	derive_deltas(&p0.rs, &p0.ri, &cs, &cs.inst[0], &env2, &d0);
	derive_deltas(&p1.rs, &p1.ri, &cs, &cs.inst[1], &env2, &d1);
	const struct raw_instance *cur[3] = { &cs.inst[0], &cs.inst[1], NULL };
	const struct field_deltas *dl[3] = { &d0, &d1, NULL };
	uint8_t ps[3] = { ST_OK, ST_OK, ST_NEW };
	struct value v = derive_total(&cs, &counters[C_AVGT], cur, dl, ps, 2, &env2);
	assert_int_equal(v.status, ST_OK);
	assert_double_equal(v.v, 0.025, 1e-12);
	/* SUM: QUEUELEN (100 + 900) x 0.001 / 2 = 0.5 */
	v = derive_total(&cs, &counters[C_QLEN], cur, dl, ps, 2, &env2);
	assert_double_equal(v.v, 0.5, 1e-12);
	/* MEAN: TIMER ((400 + 1200) / 2) x 0.001 x 100 / 2 = 40 */
	v = derive_total(&cs, &counters[C_MEAN_TIMER], cur, dl, ps, 2, &env2);
	assert_double_equal(v.v, 40, 1e-9);
	/* TIMER_INV mean: 100 x (1 - 0.8 / 2) = 60 */
	v = derive_total(&cs, &counters[C_TINV], cur, dl, ps, 2, &env2);
	assert_double_equal(v.v, 60, 1e-9);
	/* a NEW third instance adds nothing to the deltas: still 0.5 */
	cur[2] = &cs.inst[2];
	v = derive_total(&cs, &counters[C_QLEN], cur, dl, ps, 3, &env2);
	assert_double_equal(v.v, 0.5, 1e-12);
	/* ... but its current value counts in a RAW total: 20 + 0 + 0 = 20 x 2 */
	raw_put(&cs, &cs.inst[0], F_G, 20);
	v = derive_total(&cs, &counters[C_RAW], cur, dl, ps, 3, &env2);
	assert_double_equal(v.v, 40, 1e-9);
	/* a RESET instance is left out of the sum: 900 x 0.001 / 2 = 0.45 */
	d0.status = ST_RESET;
	v = derive_total(&cs, &counters[C_QLEN], cur, dl, ps, 2, &env2);
	assert_double_equal(v.v, 0.45, 1e-12);
	/* no instances: NO_INSTANCE */
	v = derive_total(&cs, &counters[C_QLEN], cur, dl, ps, 0, &env2);
	assert_int_equal(v.status, ST_NO_INSTANCE);
	/* all NEW: NEW */
	const struct field_deltas *none[1] = { NULL };
	uint8_t newst[1] = { ST_NEW };
	v = derive_total(&cs, &counters[C_QLEN], cur, none, newst, 1, &env2);
	assert_int_equal(v.status, ST_NEW);
	/* UTILIZATION has no total */
	v = derive_total(&cs, &counters[C_UTIL], cur, dl, ps, 2, &env2);
	assert_int_equal(v.status, ST_UNSUPPORTED);
	raw_set_free(&cs);
}

/* derive_run over cur instances 1.. of ds's reads against derive_value of
 * each, in a paired read, a first read and a snapshot, for every counter. */
static void
run_matches_value(const struct delta_store *ds)
{
	const struct raw_set *crs = ds->cur;
	const uint32_t *prev_of = ds->prev_of;
	size_t n = crs->ninstances;
	uint64_t words[SET_MAX_FIELDS];

	/* one plan for every call: each takes it only for its own counter
	 * and reads, and the second call of a pair takes what the first
	 * formed */
	struct derive_plan plan = { 0 };

	assert_true(n >= 2 && n <= 16);
	for (int mode = 0; mode < 6; mode++) { /* paired, first read, snapshot; then planned */
		for (int c = 0; c < NC; c++) {
			double val[16];
			uint8_t st[16];
			uint64_t need = counter_fields(&counters[c]);
			/* from 1 on: a run need not start at the first instance */
			struct derive_span sp = { crs, mode % 3 == 2 ? NULL : ds, mode % 3 == 1, NULL,
						  n - 1, 0, NULL, mode >= 3 ? &plan : NULL };
			for (int twice = 0; twice <= (mode >= 3); twice++)
				derive_run(&sp, &counters[c], need, 1, &env2, val, st);
			for (size_t k = 1; k < n; k++) {
				enum value_status pair = mode % 3 == 2	 ? ST_OK
							 : mode % 3 == 1 ? ST_FIRST
							 : prev_of && prev_of[k] == DERIVE_NO_PREV ? ST_NEW
											: ST_OK;
				struct field_deltas d;
				int two = counter_type_needs_two(counters[c].type);
				int paired = mode % 3 == 0 && pair == ST_OK && two;
				if (paired)
					delta_store_get(ds, k, need, words, &d);
				struct value v = derive_value(crs, &counters[c], &crs->inst[k],
							      paired ? &d : NULL,
							      pair, &env2);
				assert_int_equal(st[k - 1], v.status);
				assert_memory_equal(&val[k - 1], &v.v, sizeof(v.v));
			}
		}
	}
}

/* derive_run gives each instance what derive_value gives it, with the
 * deltas delta_store_get forms: over instances that pair, NEW ones, a reset
 * (a new identity), a 32-bit wrap and fields one read lacks; in a paired
 * read, a first read and a snapshot, for every counter. */
static void
test_run(void **state)
{
	(void)state;
	enum { NP = 6, NCUR = 7 };
	struct raw_set prs, crs;
	unsigned seed = 7;
	/* cur i pairs with prev prev_of[i]; cur 2 and 5 are NEW */
	const uint32_t prev_of[NCUR] = { 1, 0, DERIVE_NO_PREV, 2, 3, DERIVE_NO_PREV, 5 };
	uint8_t status[NCUR];
	raw_set_init(&prs, &set);
	raw_set_init(&crs, &set);
	for (int k = 0; k < NP; k++) {
		char name[16];
		snprintf(name, sizeof(name), "p%d", k);
		struct raw_instance *ri = raw_set_add(&prs, name, strlen(name), (uint64_t)k);
		for (unsigned f = 0; f < NF; f++)
			if (f != F_A || k != 2) /* prev 2 (of cur 3) lacks a */
				raw_put(&prs, ri, f, (uint64_t)(rand_r(&seed) % 100000) + 1000000u);
	}
	raw_put(&prs, &prs.inst[3], F_C32, 0xFFFFFF00u); /* wraps to cur 4 */
	raw_put(&prs, &prs.inst[3], F_SPEED, 1000);
	for (int k = 0; k < NCUR; k++) {
		char name[16];
		snprintf(name, sizeof(name), "c%d", k);
		/* cur 6 has a new identity: a RESET */
		uint64_t id = prev_of[k] == DERIVE_NO_PREV ? 99 : k == 6 ? 77 : prev_of[k];
		struct raw_instance *ri = raw_set_add(&crs, name, strlen(name), id);
		for (unsigned f = 0; f < NF; f++)
			if (f != F_MS || k != 1) /* cur 1 lacks ms */
				raw_put(&crs, ri, f, (uint64_t)(rand_r(&seed) % 100000) + 1100000u);
	}
	raw_put(&crs, &crs.inst[4], F_C32, 0x10);
	raw_put(&crs, &crs.inst[4], F_SPEED, 1000);
	for (int k = 0; k < NCUR; k++) {
		FIELD_DELTAS_DECLARE(d);
		if (prev_of[k] == DERIVE_NO_PREV)
			continue;
		derive_deltas(&prs, &prs.inst[prev_of[k]], &crs, &crs.inst[k], &env2, &d);
		status[k] = d.status;
		/* the status alone, without the deltas in the usual case */
		uint64_t scratch[SET_MAX_FIELDS];
		assert_int_equal(derive_pair_status(&prs, &prs.inst[prev_of[k]], &crs,
						    &crs.inst[k], &env2, scratch),
				 d.status);
	}
	assert_int_equal(status[6], ST_RESET);
	assert_int_equal(status[4], ST_WRAPPED);
	struct delta_store ds = { .prev = &prs, .cur = &crs, .prev_of = prev_of, .status = status,
				  .env = env2 };
	run_matches_value(&ds);
	/* derive_pairs learns the same statuses; a list that changed is
	 * never plain */
	uint8_t learnt[NCUR];
	struct delta_store dp;
	derive_pairs(&dp, &prs, &crs, prev_of, learnt, &env2, 1);
	assert_false(dp.plain);
	for (int k = 0; k < NCUR; k++)
		if (prev_of[k] != DERIVE_NO_PREV)
			assert_int_equal(learnt[k], status[k]);
	run_matches_value(&dp);
	/* again with 64-bit values of a: both reads' slots of a wide */
	raw_put(&prs, &prs.inst[0], F_A, ((uint64_t)1 << 40) + 5);
	raw_put(&crs, &crs.inst[1], F_A, ((uint64_t)1 << 40) + 1005);
	raw_put(&crs, &crs.inst[0], F_A, ((uint64_t)1 << 41) + 7);
	assert_true(prs.wide && crs.wide);
	run_matches_value(&ds);
	raw_set_free(&prs);
	raw_set_free(&crs);
}

/* Two reads of n instances (n <= 16) over the same list: every field
 * read, each counter's field risen by up to 10^5 from prev to cur, gauges
 * anything; instance 1 out of _Total. wide: a's values past 2^32. */
static void
plain_reads(struct raw_set *prs, struct raw_set *crs, size_t n, int wide, unsigned *seed)
{
	raw_set_init(prs, &set);
	raw_set_init(crs, &set);
	for (size_t k = 0; k < n; k++) {
		char name[24]; /* "i" and any size_t */
		snprintf(name, sizeof(name), "i%zu", k);
		struct raw_instance *p = raw_set_add(prs, name, strlen(name), k);
		struct raw_instance *c = raw_set_add(crs, name, strlen(name), k);
		for (unsigned f = 0; f < NF; f++) {
			uint64_t a = (uint64_t)(rand_r(seed) % 100000) + 1000000u;
			if (wide && f == F_A)
				a += (uint64_t)1 << 40;
			uint64_t b = fields[f].kind == FK_GAUGE ? (uint64_t)(rand_r(seed) % 5000)
							       : a + (uint64_t)(rand_r(seed) % 100000);
			if (f == F_SPEED && k % 3 == 0)
				b = 100; /* a few with a link speed */
			raw_put(prs, p, f, fields[f].kind == FK_GAUGE ? b / 2 : a);
			raw_put(crs, c, f, b);
		}
		raw_set_in_total(crs, c, k != 1);
	}
}

/* derive_total_span of every counter over a span equals what the loops
 * that test each instance give (ds with nothing known); so does
 * derive_total_spans over it and spans of fewer instances. */
static void
totals_match(const struct delta_store *ds, const struct derive_span *shape)
{
	struct delta_store slow = *ds;
	struct derive_plan plan = { 0 }; /* shared, as run_matches_value's */
	slow.plain = 0;
	slow.both = slow.all = 0;
	for (int mode = 0; mode < 6; mode++) { /* paired, first read, snapshot; then planned */
		struct derive_span a = *shape, b = *shape;
		a.ds = mode % 3 == 2 ? NULL : ds;
		b.ds = mode % 3 == 2 ? NULL : &slow;
		a.first = b.first = mode % 3 == 1;
		a.plan = mode >= 3 ? &plan : NULL;
		b.plan = NULL;
		for (int c = 0; c < NC; c++) {
			struct value x = derive_total_span(&counters[c], &a, &env2);
			if (mode >= 3) /* again, from what the first formed */
				x = derive_total_span(&counters[c], &a, &env2);
			struct value y = derive_total_span(&counters[c], &b, &env2);
			assert_int_equal(x.status, y.status);
			assert_memory_equal(&x.v, &y.v, sizeof(x.v));
		}
		/* derive_total_spans: the same totals, beside spans of fewer
		 * instances (as a set's groups come, one after another) */
		struct derive_span many[3] = { a, a, a };
		many[1].n = a.n > 1 ? a.n - 1 : a.n;
		many[2].n = a.n > 2 ? a.n - 2 : a.n;
		for (int c = 0; c < NC; c++) {
			double val[3];
			uint8_t st[3];
			derive_total_spans(&counters[c], many, 3, &env2, val, st);
			for (int k = 0; k < 3; k++) {
				struct derive_span bk = b;
				bk.n = many[k].n;
				struct value y = derive_total_span(&counters[c], &bk, &env2);
				assert_int_equal(st[k], y.status);
				assert_memory_equal(&val[k], &y.v, sizeof(y.v));
			}
		}
	}
}

/* _Total over 300 instances, most of them out of it (a namespace of
 * veths): a block of 64 out, a block in but for one, a block with only its
 * last byte's in, one with every fifth in, and a last part block: the
 * plain walk, which passes over 64 out at a time, equals the loops that
 * test each instance. */
static void
test_totals_blocks(void **state)
{
	(void)state;
	enum { N = 300 };
	unsigned seed = 5;
	uint8_t status[N];
	struct raw_set prs, crs;
	struct delta_store ds;

	plain_reads(&prs, &crs, N, 0, &seed);
	for (size_t k = 0; k < N; k++)
		raw_set_in_total(&crs, &crs.inst[k],
				 (k >= 64 && k < 128 && k != 100) || k == 190 ||
					 (k >= 192 && k < 256 && k % 5 == 0) || k == 299);
	derive_pairs(&ds, &prs, &crs, NULL, status, &env2, 1);
	assert_true(ds.plain);
	totals_match(&ds, &(struct derive_span){ &crs, NULL, 0, NULL, N, 1, NULL, NULL });
	raw_set_free(&prs);
	raw_set_free(&crs);
}

/* derive_pairs: each status as derive_pair_status gives it, and a plain
 * pair (the same list, nothing fell, no identity changed) known as one;
 * then every counter's values and totals over it, by the loops that test
 * nothing per instance, equal derive_value's and the testing loops'. */
static void
test_plain(void **state)
{
	(void)state;
	enum { N = 11 };
	unsigned seed = 11;
	uint8_t status[N];

	for (int wide = 0; wide < 2; wide++) {
		struct raw_set prs, crs;
		struct delta_store ds;
		plain_reads(&prs, &crs, N, wide, &seed);
		assert_int_equal(!!crs.wide, wide);
		derive_pairs(&ds, &prs, &crs, NULL, status, &env2, 1);
		assert_true(ds.plain);
		assert_int_equal(ds.both, ALL);
		assert_int_equal(ds.all, ALL);
		for (size_t k = 0; k < N; k++)
			assert_int_equal(status[k], ST_OK);
		run_matches_value(&ds);
		/* the whole list in _Total, by index, and by runs (0, 3, 6,
		 * 9 then 1, 4, 7, 10), as groups take them */
		const uint32_t idx[] = { 4, 2, 9, 1, 0 };
		const struct idx_run runs[] = { { 0, 3, 4 }, { 1, 3, 4 } };
		totals_match(&ds, &(struct derive_span){ &crs, NULL, 0, NULL, N, 1, NULL, NULL });
		totals_match(&ds, &(struct derive_span){ &crs, NULL, 0, idx, 5, 1, NULL, NULL });
		totals_match(&ds, &(struct derive_span){ &crs, NULL, 0, NULL, 2, 0, runs, NULL });
		/* no dt: BAD_TIME, not the plain loops */
		struct delta_store nodt = ds;
		nodt.env.dt = 0;
		struct derive_env env0 = env2;
		env0.dt = 0;
		double val[N];
		uint8_t st[N];
		derive_run(&(struct derive_span){ &crs, &nodt, 0, NULL, N, 0, NULL, NULL },
			   &counters[C_RATE], counter_fields(&counters[C_RATE]), 0, &env0, val, st);
		assert_int_equal(st[0], ST_BAD_TIME);

		/* a fall in one instance's counter (a reset), an identity
		 * changed in another, a field one read lacks: not plain, each
		 * status still derive_pair_status's */
		raw_put(&crs, &crs.inst[3], F_B, 5);
		raw_set_identity(&crs, 5, 99);
		raw_set_present_at(&crs, 7, ALL & ~((uint64_t)1 << F_MS));
		derive_pairs(&ds, &prs, &crs, NULL, status, &env2, 1);
		assert_false(ds.plain);
		assert_int_equal(ds.both, ALL & ~((uint64_t)1 << F_MS));
		assert_int_equal(ds.all, ALL & ~((uint64_t)1 << F_MS));
		for (size_t k = 0; k < N; k++) {
			uint64_t scratch[SET_MAX_FIELDS];
			assert_int_equal(status[k], derive_pair_status(&prs, &prs.inst[k], &crs,
								       &crs.inst[k], &env2,
								       scratch));
		}
		assert_int_equal(status[3], ST_RESET);
		assert_int_equal(status[5], ST_RESET);
		run_matches_value(&ds);
		totals_match(&ds, &(struct derive_span){ &crs, NULL, 0, NULL, N, 1, NULL, NULL });
		/* a gauge that fell is no fall: plain again once the rest is */
		raw_put(&crs, &crs.inst[3], F_B, prs.wide ? raw_get(&prs, &prs.inst[3], F_B) + 1
							  : raw_get(&prs, &prs.inst[3], F_B) + 1);
		raw_set_identity(&crs, 5, 5);
		raw_set_present_at(&crs, 7, ALL);
		raw_put(&crs, &crs.inst[2], F_G, 0);
		raw_put(&prs, &prs.inst[2], F_G, 4000);
		derive_pairs(&ds, &prs, &crs, NULL, status, &env2, 1);
		assert_true(ds.plain);
		run_matches_value(&ds);
		/* no previous read: nothing paired, all still known */
		memset(status, 0xEE, sizeof(status));
		derive_pairs(&ds, &prs, &crs, NULL, status, &env2, 0);
		assert_false(ds.plain);
		assert_int_equal(ds.all, ALL);
		assert_int_equal(status[0], 0xEE);
		raw_set_free(&prs);
		raw_set_free(&crs);
	}
}

/* derive_small_run of every counter over a plain pair of n instances
 * (instance 1 out of _Total): each value and the total, to the bit, what
 * derive_run and derive_total_span give, with a plan formed by the first
 * call and taken by the second. */
static void
small_matches(const struct delta_store *ds)
{
	const struct raw_set *crs = ds->cur;
	size_t n = crs->ninstances;

	for (int c = 0; c < NC; c++) {
		struct derive_plan plan = { 0 };
		double want[DERIVE_SMALL_RUN];
		uint8_t wst[DERIVE_SMALL_RUN];
		struct derive_span sp = { crs, ds, 0, NULL, n, 0, NULL, NULL };
		derive_run(&sp, &counters[c], counter_fields(&counters[c]), 0, &env2, want, wst);
		sp.in_total = 1;
		struct value t = derive_total_span(&counters[c], &sp, &env2);
		/* the call that forms the plan, the one that takes it, and
		 * one without the total (the values alone, tval untouched) */
		for (int call = 0; call < 3; call++) {
			double val[DERIVE_SMALL_RUN], tval = -1;
			uint8_t st[DERIVE_SMALL_RUN], tst = 0xEE;
			assert_true(derive_small_run(ds, &counters[c], &plan, &env2, val, st,
						     call < 2 ? &tval : NULL,
						     call < 2 ? &tst : NULL));
			for (size_t k = 0; k < n; k++) {
				assert_int_equal(st[k], wst[k]);
				assert_memory_equal(&val[k], &want[k], sizeof(val[k]));
			}
			if (call == 2) {
				assert_true(tval == -1 && tst == 0xEE);
				continue;
			}
			assert_int_equal(tst, t.status);
			assert_memory_equal(&tval, &t.v, sizeof(t.v));
		}
	}
}

/* derive_small_run: the values and totals of derive_run and
 * derive_total_span over plain pairs of 1, 2, 11 and DERIVE_SMALL_RUN
 * instances, narrow and wide; nothing (0, nothing written) over more
 * instances, a pair that is not plain, no previous read or no interval. */
static void
test_small_run(void **state)
{
	(void)state;
	const size_t sizes[] = { 1, 2, 11, DERIVE_SMALL_RUN };
	unsigned seed = 13;
	uint8_t status[DERIVE_SMALL_RUN + 1];

	for (int wide = 0; wide < 2; wide++)
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			struct raw_set prs, crs;
			struct delta_store ds;
			plain_reads(&prs, &crs, sizes[z], wide, &seed);
			derive_pairs(&ds, &prs, &crs, NULL, status, &env2, 1);
			assert_true(ds.plain);
			small_matches(&ds);
			/* no instance in _Total: NO_INSTANCE, as
			 * derive_total_span gives it (no_total types too) */
			for (size_t k = 0; k < sizes[z]; k++)
				raw_set_in_total(&crs, &crs.inst[k], 0);
			small_matches(&ds);
			raw_set_free(&prs);
			raw_set_free(&crs);
		}

	struct raw_set prs, crs;
	struct delta_store ds;
	struct derive_plan plan = { 0 };
	double val[DERIVE_SMALL_RUN + 1] = { 0 }, tval = 0;
	uint8_t st[DERIVE_SMALL_RUN + 1] = { 0 }, tst = 0;
	plain_reads(&prs, &crs, DERIVE_SMALL_RUN + 1, 0, &seed);
	derive_pairs(&ds, &prs, &crs, NULL, status, &env2, 1);
	assert_true(ds.plain);
	assert_false(derive_small_run(&ds, &counters[C_RATE], &plan, &env2, val, st, &tval, &tst));
	raw_set_free(&prs);
	raw_set_free(&crs);

	plain_reads(&prs, &crs, 4, 0, &seed);
	derive_pairs(&ds, &prs, &crs, NULL, status, &env2, 0); /* no previous read */
	assert_false(derive_small_run(&ds, &counters[C_RATE], &plan, &env2, val, st, &tval, &tst));
	derive_pairs(&ds, &prs, &crs, NULL, status, &env2, 1);
	struct derive_env env0 = env2;
	env0.dt = 0;
	assert_false(derive_small_run(&ds, &counters[C_RATE], &plan, &env0, val, st, &tval, &tst));
	/* a field one instance lacks: no plain terms for the counters that
	 * read it (the loops that test each instance take them) */
	raw_set_present_at(&crs, 2, ALL & ~((uint64_t)1 << F_A));
	derive_pairs(&ds, &prs, &crs, NULL, status, &env2, 1);
	assert_true(ds.plain);
	assert_false(derive_small_run(&ds, &counters[C_RATE], &plan, &env2, val, st, &tval, &tst));
	assert_true(derive_small_run(&ds, &counters[C_QLEN], &plan, &env2, val, st, &tval, &tst));
	raw_set_present_at(&crs, 2, ALL);
	raw_put(&crs, &crs.inst[2], F_A, 5); /* a fall: not plain */
	derive_pairs(&ds, &prs, &crs, NULL, status, &env2, 1);
	assert_false(ds.plain);
	assert_false(derive_small_run(&ds, &counters[C_RATE], &plan, &env2, val, st, &tval, &tst));
	memset(val, 0, sizeof(val));
	memset(st, 0, sizeof(st));
	tval = 0;
	tst = 0;
	assert_false(derive_small_run(&ds, &counters[C_RATE], &plan, &env2, val, st, &tval, &tst));
	for (size_t k = 0; k <= DERIVE_SMALL_RUN; k++)
		assert_true(val[k] == 0 && st[k] == 0);
	assert_true(tval == 0 && tst == 0);
	raw_set_free(&prs);
	raw_set_free(&crs);
}

/* derive_small_run over two instances whose values are written by hand,
 * dt 2 s: Rate (a + b per second) and MeanTimer (100 x ticks x 0.001 / dt,
 * its _Total the mean). */
static void
test_small_run_values(void **state)
{
	(void)state;
	struct raw_set prs, crs;
	struct delta_store ds;
	uint8_t status[2];
	/* a, b, ticks of each instance, before and after */
	const uint64_t before[2][3] = { { 1000, 2000, 10000 }, { 5000, 7000, 20000 } };
	const uint64_t after[2][3] = { { 1100, 2600, 10500 }, { 5050, 7050, 21500 } };

	raw_set_init(&prs, &set);
	raw_set_init(&crs, &set);
	for (int k = 0; k < 2; k++) {
		struct raw_instance *p = raw_set_add(&prs, k ? "i1" : "i0", 2, (uint64_t)k);
		struct raw_instance *c = raw_set_add(&crs, k ? "i1" : "i0", 2, (uint64_t)k);
		raw_put(&prs, p, F_A, before[k][0]);
		raw_put(&prs, p, F_B, before[k][1]);
		raw_put(&prs, p, F_TICKS, before[k][2]);
		raw_put(&crs, c, F_A, after[k][0]);
		raw_put(&crs, c, F_B, after[k][1]);
		raw_put(&crs, c, F_TICKS, after[k][2]);
	}
	derive_pairs(&ds, &prs, &crs, NULL, status, &env2, 1);
	assert_true(ds.plain);

	struct derive_plan plan = { 0 };
	double val[2], tval;
	uint8_t st[2], tst;
	assert_true(derive_small_run(&ds, &counters[C_RATE], &plan, &env2, val, st, &tval, &tst));
	assert_true(val[0] == 350.0); /* (100 + 600) / 2 */
	assert_true(val[1] == 50.0);  /* (50 + 50) / 2 */
	assert_true(tval == 400.0);   /* (700 + 100) / 2 */
	assert_true(st[0] == ST_OK && st[1] == ST_OK && tst == ST_OK);
	assert_true(derive_small_run(&ds, &counters[C_MEAN_TIMER], &plan, &env2, val, st, &tval,
				     &tst));
	assert_true(fabs(val[0] - 25.0) < 1e-12); /* 100 x 500 x 0.001 / 2 */
	assert_true(fabs(val[1] - 75.0) < 1e-12); /* 100 x 1500 x 0.001 / 2 */
	assert_true(fabs(tval - 50.0) < 1e-12);   /* 100 x (2000 / 2) x 0.001 / 2 */
	/* instance 1 out of _Total: the total is instance 0's */
	raw_set_in_total(&crs, &crs.inst[1], 0);
	assert_true(derive_small_run(&ds, &counters[C_RATE], &plan, &env2, val, st, &tval, &tst));
	assert_true(tval == 350.0); /* 700 / 2 */
	raw_set_free(&prs);
	raw_set_free(&crs);
}

/* derive_pairs over a set of 40 fields whose values are all wide: a
 * slot's first word goes past SET_MAX_FIELDS (the fall check's mask of
 * slots once took those offsets, past its end: ASan caught it). */
static void
test_pairs_wide(void **state)
{
	(void)state;
	enum { NW = 40 };
	static struct field_desc wf[NW];
	for (int f = 0; f < NW; f++)
		wf[f] = (struct field_desc){ "f", FW_64, FK_COUNTER, FB_NONE, NO_PROM };
	const struct counter_set ws = { .name = "Forty", .help = "wide", .multi_instance = 1,
					.fields = wf, .nfields = NW };
	struct raw_set p, c;
	raw_set_init(&p, &ws);
	raw_set_init(&c, &ws);
	struct raw_instance *pi = raw_set_add(&p, "x", 1, 1), *ci = raw_set_add(&c, "x", 1, 1);
	for (unsigned f = 0; f < NW; f++) {
		raw_put(&p, pi, f, ((uint64_t)1 << 40) + f);
		raw_put(&c, ci, f, ((uint64_t)1 << 40) + 2 * f);
	}
	uint8_t st[1];
	struct delta_store ds;
	derive_pairs(&ds, &p, &c, NULL, st, &env2, 1);
	assert_true(ds.plain);
	assert_int_equal(st[0], ST_OK);
	/* one field fell: not plain, a RESET */
	raw_put(&c, ci, NW - 1, 5);
	derive_pairs(&ds, &p, &c, NULL, st, &env2, 1);
	assert_false(ds.plain);
	assert_int_equal(st[0], ST_RESET);
	raw_set_free(&p);
	raw_set_free(&c);
}

/* derive_pairs' fall check over reads of one layout, compared eight slots
 * at a time, the last block ending at the last slot (so overlapping the
 * one before), four for fewer than eight, one by one below four: a fall in
 * any one slot of a set of 1 to 21 fields is found (not plain, a RESET),
 * none is found where there is none, and a gauge's fall (in any slot, the
 * overlap too) is none. */
/* derive_pairs' status of an instance read as 1000 + f in each field f,
 * then 2000 + f but 999 in field fall (none when fall is nf); *plain the
 * pairs' plain. */
static uint8_t
fall_status(const struct counter_set *fs, unsigned nf, unsigned fall, int *plain)
{
	struct raw_set p, c;
	uint8_t st[1];
	struct delta_store ds;

	raw_set_init(&p, fs);
	raw_set_init(&c, fs);
	struct raw_instance *pi = raw_set_add(&p, "x", 1, 1);
	struct raw_instance *ci = raw_set_add(&c, "x", 1, 1);
	for (unsigned f = 0; f < nf; f++) {
		raw_put(&p, pi, f, 1000 + f);
		raw_put(&c, ci, f, f == fall ? 999 : 2000 + f);
	}
	derive_pairs(&ds, &p, &c, NULL, st, &env2, 1);
	*plain = ds.plain;
	raw_set_free(&p);
	raw_set_free(&c);
	return st[0];
}

static void
test_fall_each_slot(void **state)
{
	(void)state;
	enum { NMAX = 21 };
	static struct field_desc ff[NMAX], gf[NMAX];
	int plain;

	for (int f = 0; f < NMAX; f++)
		ff[f] = (struct field_desc){ "f", FW_64, FK_COUNTER, FB_NONE, NO_PROM };
	for (unsigned nf = 1; nf <= NMAX; nf++) {
		const struct counter_set fs = { .name = "Some", .help = "falls", .multi_instance = 1,
						.fields = ff, .nfields = nf };
		for (unsigned fall = 0; fall <= nf; fall++) { /* nf: no fall */
			uint8_t st = fall_status(&fs, nf, fall, &plain);
			assert_int_equal(plain, fall == nf);
			assert_int_equal(st, fall == nf ? ST_OK : ST_RESET);
		}
		const struct counter_set gs = { .name = "Some", .help = "falls", .multi_instance = 1,
						.fields = gf, .nfields = nf };
		for (unsigned g = 0; g < nf; g++) { /* a gauge falls: no fall */
			memcpy(gf, ff, sizeof(gf));
			gf[g].kind = FK_GAUGE;
			assert_int_equal(fall_status(&gs, nf, g, &plain), ST_OK);
		}
	}
}

static void
test_status_names(void **state)
{
	(void)state;
	assert_string_equal(status_name(ST_OK), "OK");
	assert_string_equal(status_name(ST_NO_INSTANCE), "NO_INSTANCE");
	assert_string_equal(status_name(ST_BAD_TIME), "BAD_TIME");
	assert_string_equal(status_name(ST_WRAPPED), "WRAPPED");
}

/* --smooth C: NDIS's load average. C = 96, avg 100, x 20:
 * (100 x 96 + 20 x 32) / 128 = (9600 + 640) / 128 = 80. C = 2, avg 0,
 * x 128: (0 + 128 x 126) / 128 = 126. */
static void
test_smooth(void **state)
{
	(void)state;
	assert_true(derive_smooth(100.0, 20.0, 96) == 80.0);
	assert_true(derive_smooth(0.0, 128.0, 2) == 126.0);
	/* a steady value stays itself */
	assert_true(derive_smooth(42.5, 42.5, 127) == 42.5);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types),     cmocka_unit_test(test_edges),
		cmocka_unit_test(test_missing),   cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_cpu_clamp), cmocka_unit_test(test_totals),
		cmocka_unit_test(test_status_names), cmocka_unit_test(test_smooth),
		cmocka_unit_test(test_run),       cmocka_unit_test(test_plain),
		cmocka_unit_test(test_small_run),
		cmocka_unit_test(test_small_run_values),
		cmocka_unit_test(test_pairs_wide),
		cmocka_unit_test(test_fall_each_slot), cmocka_unit_test(test_totals_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
