/*
 * test_tui.c - the history behind getcounter --tui (tui_hist.c): the ring
 * keeps the last samples, a series is found again by its path after the
 * engine is reopened, statistics skip values that do not exist, autoscale
 * picks the largest power of ten under 100, and `g` reads its times.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tui.h"

static const struct counter_set test_set = { .name = "Memory" };
static const struct counter_desc test_counter = { .name = "Available MBytes", .type = CT_RAW,
						  .unit = "MB" };
static const struct counter_desc test_rate = { .name = "Pages/sec", .type = CT_RATE,
					       .unit = "/s" };

/* A frame of one row of \\h\Memory\COUNTER: value, status, column. */
static void
push1(struct tui_hist *h, const struct counter_desc *c, uint32_t column, double v,
      enum value_status st, int64_t wall)
{
	struct frame_row r = { .set = &test_set, .counter = c, .column = column, .value = v,
			       .status = (uint8_t)st };
	struct frame f = { .wall_ns = wall, .host = "h", .index = 1, .nrows = 1, .rows = &r };

	tui_hist_push(h, &f);
}

static void
test_ring(void **state)
{
	struct tui_hist h;
	double v = 0;

	(void)state;
	tui_hist_init(&h, 4, 0);
	for (int i = 0; i < 6; i++)
		push1(&h, &test_counter, 0, 10.0 * i, ST_OK,
		      (int64_t)i * 1000000000);
	assert_int_equal(h.n, 6);
	/* 4 kept: samples 2..5 */
	assert_int_equal(tui_hist_first(&h), 2);
	assert_int_equal(tui_hist_get(&h, 1, 0, &v), TUI_NO_ROW);
	assert_int_equal(tui_hist_get(&h, 5, 0, &v), TUI_HAS_VALUE | ST_OK);
	assert_true(v == 50.0);
	assert_true(tui_hist_wall(&h, 3) == 3000000000);
	/* the span now starts at the read before sample 2: sample 1's, 1 s */
	assert_true(h.span_start == 1000000000);
	tui_hist_free(&h);
}

static void
test_grow_and_reopen(void **state)
{
	struct tui_hist h;
	double v = 0;

	(void)state;
	tui_hist_init(&h, 2, 1);
	h.span_start = -1;
	for (int i = 0; i < 5; i++)
		push1(&h, &test_counter, 7, i, ST_OK, i);
	/* nothing is dropped, so the span keeps its start */
	assert_true(h.span_start == -1);
	/* a growing history keeps every sample */
	assert_int_equal(tui_hist_first(&h), 0);
	assert_int_equal(tui_hist_get(&h, 0, 0, &v), TUI_HAS_VALUE | ST_OK);
	assert_true(v == 0.0);
	assert_int_equal(tui_hist_get(&h, 4, 0, &v), TUI_HAS_VALUE | ST_OK);
	assert_true(v == 4.0);
	/* a reopened engine numbers columns anew: the path finds the series */
	tui_hist_forget_columns(&h);
	push1(&h, &test_counter, 0, 5, ST_OK, 5);
	assert_int_equal(h.nseries, 1);
	/* the series keeps the path the frame's host and names form */
	assert_string_equal(h.series[0].path, "\\\\h\\Memory\\Available MBytes");
	/* a new series has no earlier values */
	push1(&h, &test_rate, 1, 3, ST_OK, 6);
	assert_int_equal(h.nseries, 2);
	assert_int_equal(tui_hist_get(&h, 6, 1, &v), TUI_HAS_VALUE | ST_OK);
	assert_int_equal(tui_hist_get(&h, 6, 0, &v), TUI_NO_ROW);
	assert_int_equal(tui_hist_get(&h, 2, 1, &v), TUI_NO_ROW);
	assert_string_equal(h.series[1].unit, "/s");
	tui_hist_free(&h);
}

/* tui_hist_span and tui_hist_next_slot walk a ring that wrapped as
 * tui_hist_get reads it, sample by sample, and the statistics they give
 * are those of tui_hist_get's values: a ring of 5 holding samples 8..12
 * (slots 3, 4, 0, 1, 2), every third value missing, windows on and past
 * both ends. */
static void
test_span_walk(void **state)
{
	struct tui_hist h;

	(void)state;
	tui_hist_init(&h, 5, 0);
	for (int i = 0; i < 13; i++)
		push1(&h, &test_counter, 0, 100.0 - 3.0 * i, i % 3 ? ST_OK : ST_FIRST, i);
	uint64_t from = 0, to = 99;
	size_t slot = tui_hist_span(&h, &from, &to);
	assert_int_equal(from, 8);
	assert_int_equal(to, 12);
	assert_int_equal(slot, 3);
	for (uint64_t i = from; i <= to; i++, slot = tui_hist_next_slot(&h, slot)) {
		double v = 0;
		uint8_t st = tui_hist_get(&h, i, 0, &v);
		assert_int_equal(h.st[slot * TUI_MAX_SERIES], st);
		if (st & TUI_HAS_VALUE)
			assert_true(h.val[slot * TUI_MAX_SERIES] == v);
	}
	assert_int_equal(slot, 3); /* around once */
	/* a window of samples no longer kept, or not yet taken: none */
	from = 2;
	to = 7;
	assert_int_equal(tui_hist_span(&h, &from, &to), SIZE_MAX);
	from = 13;
	to = 20;
	assert_int_equal(tui_hist_span(&h, &from, &to), SIZE_MAX);
	/* statistics over each window against a sum of tui_hist_get's */
	for (uint64_t a = 0; a < 15; a++)
		for (uint64_t b = a; b < 15; b++) {
			struct tui_stats st;
			double sum = 0, mn = 0, mx = 0, v = 0, last = 0;
			uint64_t n = 0;
			uint8_t last_st = TUI_NO_ROW;
			for (uint64_t i = a; i <= b; i++) {
				uint8_t s = tui_hist_get(&h, i, 0, &v);
				if (i == (b > 12 ? 12 : b)) { /* the last sample taken */
					last_st = s;
					last = (s & TUI_HAS_VALUE) ? v : 0;
				}
				if (!(s & TUI_HAS_VALUE))
					continue;
				mn = n == 0 || v < mn ? v : mn;
				mx = n == 0 || v > mx ? v : mx;
				sum += v;
				n++;
			}
			tui_hist_stats(&h, 0, a, b, &st);
			assert_int_equal(st.n, n);
			assert_int_equal(st.last_st, last_st);
			assert_true(st.last == last);
			assert_true(st.min == mn && st.max == mx);
			assert_true(st.avg == (n ? sum / (double)n : 0));
		}
	/* a series the history does not have: nothing */
	struct tui_stats none;
	tui_hist_stats(&h, 3, 0, 20, &none);
	assert_int_equal(none.n, 0);
	assert_int_equal(none.last_st, TUI_NO_ROW);
	tui_hist_free(&h);
}

static void
test_stats(void **state)
{
	struct tui_hist h;
	struct tui_stats st;

	(void)state;
	tui_hist_init(&h, 16, 0);
	/* 10, RESET (no value), 30, FIRST of a rate (no value), 20 */
	push1(&h, &test_rate, 0, 10, ST_OK, 1);
	push1(&h, &test_rate, 0, 999, ST_RESET, 2);
	push1(&h, &test_rate, 0, 30, ST_OK, 3);
	push1(&h, &test_rate, 0, 999, ST_FIRST, 4);
	push1(&h, &test_rate, 0, 20, ST_WRAPPED, 5);
	tui_hist_stats(&h, 0, 0, 4, &st);
	/* values 10, 30, 20: n 3, average 60 / 3 = 20, min 10, max 30 */
	assert_int_equal(st.n, 3);
	assert_true(st.avg == 20.0);
	assert_true(st.min == 10.0 && st.max == 30.0);
	assert_true(st.has_last && st.last == 20.0);
	assert_int_equal(st.last_st & 0x7f, ST_WRAPPED);
	/* the window ending at the RESET: its last is no value */
	tui_hist_stats(&h, 0, 0, 1, &st);
	assert_false(st.has_last);
	assert_int_equal(st.last_st, ST_RESET);
	assert_int_equal(st.n, 1);
	tui_hist_free(&h);
}

static void
test_autoscale(void **state)
{
	(void)state;
	/* 55 x 1 = 55 < 100, 55 x 10 = 550: e = 0 */
	assert_int_equal(tui_autoscale_exp(55), 0);
	/* 2100 x 0.01 = 21 < 100, x 0.1 = 210: e = -2 */
	assert_int_equal(tui_autoscale_exp(2100), -2);
	/* 5 x 10 = 50 < 100, x 100 = 500: e = 1 */
	assert_int_equal(tui_autoscale_exp(5), 1);
	/* exactly 100 is not under 100: x 0.1 */
	assert_int_equal(tui_autoscale_exp(100), -1);
	assert_int_equal(tui_autoscale_exp(0), 0);
	assert_int_equal(tui_autoscale_exp(1e-12), 9);
}

static void
test_goto(void **state)
{
	int64_t t = 0, now = 1700000000LL * 1000000000LL;

	(void)state;
	assert_int_equal(tui_parse_goto("+5m", now, &t), 0);
	assert_true(t == now + 300LL * 1000000000LL);
	assert_int_equal(tui_parse_goto("-30s", now, &t), 0);
	assert_true(t == now - 30LL * 1000000000LL);
	assert_int_equal(tui_parse_goto("+1h", now, &t), 0);
	assert_true(t == now + 3600LL * 1000000000LL);
	/* 2023-11-14T22:13:20Z is 1700000000 */
	assert_int_equal(tui_parse_goto("2023-11-14T22:13:20Z", 0, &t), 0);
	assert_true(t == now);
	assert_int_equal(tui_parse_goto("+5x", now, &t), -1);
	assert_int_equal(tui_parse_goto("soon", now, &t), -1);
}

/* v formatted for the legend equals want, and fits its column. */
static void
check_value(double v, int precision, const char *want)
{
	char buf[32];

	tui_format_value(buf, sizeof(buf), v, precision);
	assert_string_equal(buf, want);
	assert_true(strlen(buf) <= TUI_VALUE_COLUMNS);
}

static void
test_value_width(void **state)
{
	(void)state;
	/* as the table prints it while it fits 9 columns */
	check_value(999999.99, -1, "999999.99");
	check_value(24.5, -1, "24.50");
	check_value(-99999.99, -1, "-99999.99");
	/* "1500000.00" would be 10 columns: 1500000 / 1000^2 = 1.50M */
	check_value(1500000, -1, "1.50M");
	check_value(9999999.99, -1, "10.00M"); /* 9999999.99 / 1e6 = 9.99999999 */
	check_value(1000000, -1, "1.00M");
	/* 999999.999 rounds to 1000000.00: 1.00M, not 1000.00k */
	check_value(999999.999, -1, "1.00M");
	/* "-150000.00" is 10 columns: -150.00k */
	check_value(-150000, -1, "-150.00k");
	check_value(24.71e9, -1, "24.71G");
	check_value(999.99e15, -1, "999.99P");
	/* beyond P: 1e21 / 1e15 = 1000000.00P is too wide: 3 digits */
	check_value(1e21, -1, "1e+21");
	check_value(-1.5e300, -1, "-1.5e+300");
	/* -p 6: "1234.500000" is 11 columns: 1.23k */
	check_value(1234.5, 6, "1.23k");
	check_value(0.5, 8, "0.5");
	check_value(12.3456789, 6, "12.345679");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_grow_and_reopen),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_span_walk),
		cmocka_unit_test(test_autoscale),
		cmocka_unit_test(test_goto),
		cmocka_unit_test(test_value_width),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
