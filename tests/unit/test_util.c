/*
 * test_util.c - the string set (strset): ids in order of first appearance,
 * one copy of each string, and stored strings that never move while the
 * set grows past its first table and its first chunk; hash_slot spreading
 * names that differ only at their end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gc_test.h"

#include "util.h"

static void
test_strset_ids(void **state)
{
	(void)state;
	struct strset ss = { 0 };
	const char *a, *b, *a2;

	assert_int_equal(strset_add(&ss, "\\\\h\\Processor(0)\\% User Time", &a), 0);
	assert_int_equal(strset_add(&ss, "eth0", &b), 1);
	assert_int_equal(strset_add(&ss, "\\\\h\\Processor(0)\\% User Time", &a2), 0);
	assert_ptr_equal(a, a2); /* one copy */
	assert_string_equal(b, "eth0");
	assert_int_equal(strset_add(&ss, "", NULL), 2); /* the empty string is a string */
	assert_int_equal(strset_add(&ss, "", NULL), 2);
	assert_int_equal(ss.n, 3);
	assert_ptr_equal(strset_str(&ss, 0), a);
	assert_ptr_equal(strset_str(&ss, 1), b);
	assert_string_equal(strset_str(&ss, 2), "");
	strset_free(&ss);
	assert_int_equal(ss.n, 0);

	/* numbered by place: ids grow, each names its string */
	strset_by_place(&ss);
	uint32_t ia = strset_add(&ss, "eth0", &a), ib = strset_add(&ss, "eth1", &b);
	assert_true(ib > ia);
	assert_int_equal(strset_add(&ss, "eth0", &a2), ia);
	assert_ptr_equal(a2, a);
	assert_ptr_equal(strset_str(&ss, ia), a);
	assert_ptr_equal(strset_str(&ss, ib), b);
	assert_null(ss.locs); /* no id array */
	strset_free(&ss);
}

/* 100,000 strings of about 12 bytes: past 64 KiB chunks and many table
 * growths; every pointer handed out still reads its string. */
static void
strset_stable(int by_place)
{
	enum { N = 100000 };
	struct strset ss = { 0 };
	static const char *kept[N];
	static uint32_t ids[N];
	char buf[32];

	if (by_place)
		strset_by_place(&ss);
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "veth%d/cpu%d", i, i % 7);
		ids[i] = strset_add(&ss, buf, &kept[i]);
		assert_true(by_place ? i == 0 || ids[i] > ids[i - 1] : ids[i] == (uint32_t)i);
		assert_ptr_equal(strset_str(&ss, ids[i]), kept[i]);
	}
	assert_true(ss.nchunks > 1);
	for (int i = 0; i < N; i += 997) {
		snprintf(buf, sizeof(buf), "veth%d/cpu%d", i, i % 7);
		assert_string_equal(kept[i], buf);
		const char *again;
		assert_int_equal(strset_add(&ss, buf, &again), ids[i]);
		assert_ptr_equal(again, kept[i]);
	}
	/* trimmed (no table until the next add builds it): the same ids and
	 * copies, and it still grows */
	strset_trim(&ss);
	assert_int_equal(ss.nslots, 0);
	for (int i = 0; i < N; i += 991) {
		const char *again;
		snprintf(buf, sizeof(buf), "veth%d/cpu%d", i, i % 7);
		assert_int_equal(strset_add(&ss, buf, &again), ids[i]);
		assert_ptr_equal(again, kept[i]);
	}
	/* a string longer than a chunk gets a chunk of its own */
	static char big[70000];
	memset(big, 'x', sizeof(big) - 1);
	const char *bigp;
	uint32_t idbig = strset_add(&ss, big, &bigp);
	assert_true(by_place ? idbig > ids[N - 1] && (idbig & 0xFFFF) == 0 : idbig == N);
	assert_int_equal(strlen(bigp), sizeof(big) - 1);
	assert_ptr_equal(strset_str(&ss, idbig), bigp);
	/* the next string goes on after it; both found again after a
	 * rebuild of the table, which walks the chunks */
	uint32_t idafter = strset_add(&ss, "after", NULL);
	assert_true(idafter > idbig);
	strset_trim(&ss);
	assert_int_equal(strset_add(&ss, big, NULL), idbig);
	assert_int_equal(strset_add(&ss, "after", NULL), idafter);
	assert_string_equal(strset_str(&ss, idafter), "after");
	assert_int_equal(strset_add(&ss, "veth5/cpu5", NULL), ids[5]);
	assert_string_equal(kept[N - 1], "veth99999/cpu4"); /* 99999 = 7 x 14285 + 4 */
	strset_free(&ss);
}

static void
test_strset_stable(void **state)
{
	(void)state;
	strset_stable(0);
	strset_stable(1);
}

/* A pool's strings stay put until a reset; a reset keeps its memory, so
 * the same strings again allocate nothing (counted by the chunks). */
static void
test_strpool(void **state)
{
	(void)state;
	struct strpool p = { 0 };
	const char *kept[3000];
	char buf[32];

	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 3000; i++) {
			snprintf(buf, sizeof(buf), "irq%d/cpu%d", i, i % 64);
			kept[i] = strpool_add(&p, buf);
		}
		for (int i = 0; i < 3000; i += 7) {
			snprintf(buf, sizeof(buf), "irq%d/cpu%d", i, i % 64);
			assert_string_equal(kept[i], buf);
		}
		size_t chunks = p.nchunks;
		strpool_reset(&p);
		if (round > 0)
			assert_int_equal(p.nchunks, chunks);
	}
	assert_string_equal(strpool_add(&p, ""), "");
	static char big[70000];
	memset(big, 'y', sizeof(big) - 1);
	assert_int_equal(strlen(strpool_add(&p, big)), sizeof(big) - 1);
	strpool_free(&p);
	assert_null(p.chunks);
}

/* Keys get 0, 1, ... in order of first appearance, the same id again
 * later, across the table's growth; keys that differ only in one half
 * (a counter's instances, an instance's counters) stay apart. */
static void
test_idmap(void **state)
{
	(void)state;
	struct idmap m = { 0 };

	for (uint64_t c = 0; c < 30; c++)
		for (uint64_t i = 0; i < 1000; i++)
			assert_int_equal(idmap_add(&m, c << 32 | i), (uint32_t)(c * 1000 + i));
	assert_int_equal(m.n, 30000);
	assert_true(m.nslots * 3 >= m.n * 4);
	/* each c's keys count up with their ids: one run each */
	assert_int_equal(m.nruns, 30);
	idmap_trim(&m); /* runs alone until the next add: the same ids and keys */
	assert_int_equal(m.nslots, 0);
	assert_null(m.keys);
	for (uint32_t id = 0; id < 30000; id += 7)
		assert_true(idmap_key(&m, id) == ((uint64_t)(id / 1000) << 32 | id % 1000));
	assert_true(idmap_key(&m, 29999) == ((uint64_t)29 << 32 | 999));
	assert_int_equal(idmap_add(&m, (uint64_t)7 << 32 | 999), 7999);
	assert_int_equal(idmap_add(&m, 0), 0);
	assert_int_equal(idmap_add(&m, UINT64_MAX), 30000);
	assert_int_equal(idmap_add(&m, (uint64_t)29 << 32), 29000);
	/* a key out of order starts a run; the next one in order extends it */
	assert_int_equal(idmap_add(&m, (uint64_t)40 << 32 | 5), 30001);
	assert_int_equal(idmap_add(&m, (uint64_t)40 << 32 | 6), 30002);
	assert_int_equal(m.nruns, 32);
	assert_true(idmap_key(&m, 30000) == UINT64_MAX);
	assert_true(idmap_key(&m, 30002) == ((uint64_t)40 << 32 | 6));
	idmap_free(&m);
	assert_null(m.runs);
	assert_int_equal(idmap_add(&m, 5), 0);
	idmap_free(&m);
}

/* fmt_uint writes what "%llu" does, without a NUL, and says how much. */
static void
test_fmt_uint(void **state)
{
	(void)state;
	const uint64_t v[] = { 0, 7, 10, 99, 100, 511, 4294967295u, 4294967296u, UINT64_MAX };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char buf[FMT_UINT_MAX + 1], want[32];
		memset(buf, 'x', sizeof(buf));
		size_t n = fmt_uint(buf, v[i]);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v[i]);
		assert_int_equal(n, strlen(want));
		assert_memory_equal(buf, want, n);
		assert_int_equal(buf[n], n < FMT_UINT_MAX ? 'x' : buf[n]);
	}
	assert_int_equal(fmt_uint((char[FMT_UINT_MAX]){ 0 }, UINT64_MAX), FMT_UINT_MAX);
}

/* name_place over records in strverscmp order (eth2 before eth10): each
 * name found at its place, each other name placed where it would go, and
 * an empty array. */
static void
test_name_place(void **state)
{
	(void)state;
	struct rec {
		int before;
		char name[12];
	};
	static const struct rec r[] = { { 0, "eth0" }, { 1, "eth2" }, { 2, "eth10" },
					{ 3, "lo" },   { 4, "veth3" } };
	static const struct {
		const char *key;
		size_t at;
		int found;
	} want[] = { { "eth0", 0, 1 }, { "eth2", 1, 1 },  { "eth10", 2, 1 }, { "lo", 3, 1 },
		     { "veth3", 4, 1 }, { "a", 0, 0 },    { "eth1", 1, 0 },  { "eth9", 2, 0 },
		     { "eth11", 3, 0 }, { "m", 4, 0 },    { "zz", 5, 0 } };
	int found;

	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		size_t at = name_place(r, 5, sizeof(r[0]), offsetof(struct rec, name), want[k].key,
				       &found);
		assert_int_equal(at, want[k].at);
		assert_int_equal(found, want[k].found);
	}
	assert_int_equal(name_place(r, 0, sizeof(r[0]), offsetof(struct rec, name), "lo", &found),
			 0);
	assert_int_equal(found, 0);
}

/* parse_u64: digits up to the first non-digit, the pointer moved past
 * them; 19 digits exactly, 2^64 - 1, and anything past it saturating (the
 * 20th digit and on take the checked loop); no digit is -1, *p unmoved. */
static void
test_parse_u64(void **unused)
{
	static const struct {
		const char *text;
		uint64_t v;
		size_t used;
	} cases[] = {
		{ "0", 0, 1 },
		{ "7 8", 7, 1 },
		{ "0012x", 12, 4 },
		{ "4294967296\n", 4294967296ull, 10 },
		{ "9999999999999999999", 9999999999999999999ull, 19 },
		{ "1234567890123456789 ", 1234567890123456789ull, 19 },
		{ "18446744073709551615", UINT64_MAX, 20 },
		{ "18446744073709551614:", UINT64_MAX - 1, 20 },
		{ "18446744073709551616", UINT64_MAX, 20 },
		{ "99999999999999999999999", UINT64_MAX, 23 },
	};

	(void)unused;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *p = cases[k].text;
		uint64_t v = 1;
		assert_int_equal(parse_u64(&p, &v), 0);
		assert_true(v == cases[k].v);
		assert_int_equal((size_t)(p - cases[k].text), cases[k].used);
	}
	for (const char *const *t = (const char *const[]){ "", " 1", "-1", "x", ":", NULL }; *t;
	     t++) {
		const char *p = *t;
		uint64_t v = 5;
		assert_int_equal(parse_u64(&p, &v), -1);
		assert_ptr_equal(p, *t);
	}
	assert_string_equal(skip_blanks(" \t \tx y"), "x y");
	assert_string_equal(skip_blanks("x"), "x");
}

/* Names alike but for their last characters (sd0 ... sd4095, loop0 ...)
 * spread over a table: inserted with linear probing at a load of one half,
 * no name lands more than 64 slots past its first (FNV-1a's high bits
 * alone put each family in runs that land names 399 to 499 slots past
 * their first, computed for these four families). */
static void
test_hash_slot_spread(void **state)
{
	enum { N = 8192 };
	static const char *const families[] = { "sd%d", "loop%d", "veth%d", "nvme0n%d" };
	static unsigned char used[N];
	char name[32];

	(void)state;
	for (size_t f = 0; f < sizeof(families) / sizeof(*families); f++) {
		size_t worst = 0;
		memset(used, 0, sizeof(used));
		for (int k = 0; k < N / 2; k++) {
			snprintf(name, sizeof(name), families[f], k);
			size_t i = hash_slot(str_hash(name), N), d = 0;
			assert_true(i < N);
			while (used[i]) {
				i = (i + 1) % N;
				d++;
			}
			used[i] = 1;
			if (d > worst)
				worst = d;
		}
		assert_true(worst <= 64);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strset_ids),
		cmocka_unit_test(test_strset_stable),
		cmocka_unit_test(test_idmap),
		cmocka_unit_test(test_hash_slot_spread),
		cmocka_unit_test(test_strpool),
		cmocka_unit_test(test_fmt_uint),
		cmocka_unit_test(test_name_place),
		cmocka_unit_test(test_parse_u64),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
