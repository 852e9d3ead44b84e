/*
 * test_util.c - the string set (strset): ids in order of first appearance,
 * one copy of each string, and stored strings that never move while the
 * set grows past its first table and its first chunk.
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
	strset_free(&ss);
	assert_int_equal(ss.n, 0);
}

/* 100,000 strings of about 12 bytes: past 64 KiB chunks and many table
 * growths; every pointer handed out still reads its string. */
static void
test_strset_stable(void **state)
{
	(void)state;
	enum { N = 100000 };
	struct strset ss = { 0 };
	static const char *kept[N];
	char buf[32];

	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "veth%d/cpu%d", i, i % 7);
		assert_int_equal(strset_add(&ss, buf, &kept[i]), (uint32_t)i);
	}
	assert_true(ss.nchunks > 1);
	for (int i = 0; i < N; i += 997) {
		snprintf(buf, sizeof(buf), "veth%d/cpu%d", i, i % 7);
		assert_string_equal(kept[i], buf);
		const char *again;
		assert_int_equal(strset_add(&ss, buf, &again), (uint32_t)i);
		assert_ptr_equal(again, kept[i]);
	}
	/* trimmed (no table until the next add builds it): the same ids and
	 * copies, and it still grows */
	strset_trim(&ss);
	assert_int_equal(ss.nslots, 0);
	for (int i = 0; i < N; i += 991) {
		const char *again;
		snprintf(buf, sizeof(buf), "veth%d/cpu%d", i, i % 7);
		assert_int_equal(strset_add(&ss, buf, &again), (uint32_t)i);
		assert_ptr_equal(again, kept[i]);
	}
	/* a string longer than a chunk gets a chunk of its own */
	static char big[70000];
	memset(big, 'x', sizeof(big) - 1);
	const char *bigp;
	assert_int_equal(strset_add(&ss, big, &bigp), (uint32_t)N);
	assert_int_equal(strlen(bigp), sizeof(big) - 1);
	assert_string_equal(kept[N - 1], "veth99999/cpu4"); /* 99999 = 7 x 14285 + 4 */
	strset_free(&ss);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strset_ids),
		cmocka_unit_test(test_strset_stable),
		cmocka_unit_test(test_idmap),
		cmocka_unit_test(test_strpool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
