/*
 * test_sample.c - raw sample storage: the slot map that keeps only the
 * fields a run derives from (raw_set_keep), copies between sets that keep
 * different fields, and deltas derived from kept fields equal to those
 * from every field.
 */
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
#include "sample.h"

enum { F_A, F_B, F_C, F_D, F_E, NF };

static const struct field_desc fields[NF] = {
	[F_A] = { "a", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_B] = { "b", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_C] = { "c", FW_32, FK_COUNTER, FB_NONE, NO_PROM },
	[F_D] = { "d", FW_64, FK_GAUGE, FB_NONE, NO_PROM },
	[F_E] = { "e", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
};

enum { C_RATE, C_AVG, NC };

static const struct counter_desc counters[NC] = {
	/* (a + c) / dt */
	[C_RATE] = { .name = "Rate", .type = CT_RATE, .num = { { F_A, 1 }, { F_C, 1 } } },
	/* delta e / delta c */
	[C_AVG] = { .name = "Avg", .type = CT_AVG_BULK, .num = { { F_E, 1 } },
		    .den = { { F_C, 1 } } },
};

static const struct counter_set set = {
	.name = "Test",
	.fields = fields,
	.nfields = NF,
	.counters = counters,
	.ncounters = NC,
};

#define BIT(f) ((uint64_t)1 << (f))

/* Put every field: value base + 10 f (c is 32 bits wide). */
static struct raw_instance *
put_all(struct raw_set *rs, const char *name, uint64_t base)
{
	struct raw_instance *ri = raw_set_add(rs, name, strlen(name), 7);
	for (unsigned f = 0; f < NF; f++)
		raw_put(rs, ri, f, base + 10 * f);
	return ri;
}

static void
test_keep(void **state)
{
	(void)state;
	struct raw_set rs;

	raw_set_init(&rs, &set);
	assert_int_equal(rs.nslots, NF);
	raw_set_keep(&rs, BIT(F_A) | BIT(F_C) | BIT(F_E));
	assert_int_equal(rs.nslots, 3);
	for (int i = 0; i < 20; i++) { /* past the first growth */
		char name[16];
		snprintf(name, sizeof(name), "i%d", i);
		put_all(&rs, name, (uint64_t)i * 100);
	}
	assert_int_equal(rs.ninstances, 20);
	for (int i = 0; i < 20; i++) {
		const struct raw_instance *ri = &rs.inst[i];
		/* b and d were put but are not kept: absent */
		assert_int_equal(raw_present(&rs, ri), BIT(F_A) | BIT(F_C) | BIT(F_E));
		assert_int_equal(raw_get(&rs, ri, F_A), (uint64_t)i * 100);      /* base + 0 */
		assert_int_equal(raw_get(&rs, ri, F_C), (uint64_t)i * 100 + 20); /* base + 10 x 2 */
		assert_int_equal(raw_get(&rs, ri, F_E), (uint64_t)i * 100 + 40); /* base + 10 x 4 */
		/* three words an instance, back to back */
		assert_ptr_equal(raw_words(&rs, i), rs.values + 3 * i);
	}
	raw_set_free(&rs);
}

/* Deltas and values from kept fields equal those from every field. */
static void
test_derive_kept(void **state)
{
	(void)state;
	struct raw_set full[2], kept[2];
	struct derive_env env = { .dt = 2, .user_hz = 100, .ulong_bits = 64 };
	FIELD_DELTAS_DECLARE(dfull);
	FIELD_DELTAS_DECLARE(dkept);

	for (int k = 0; k < 2; k++) {
		raw_set_init(&full[k], &set);
		raw_set_init(&kept[k], &set);
		raw_set_keep(&kept[k], BIT(F_A) | BIT(F_C) | BIT(F_E));
	}
	/* read 1: a 1000, c 0xFFFFFFF0 (about to wrap), e 500;
	 * read 2: a 1600, c 0x10 (wrapped: 0x20 more), e 820. */
	const uint64_t r[2][NF] = { { 1000, 5, 0xFFFFFFF0u, 9, 500 },
				    { 1600, 6, 0x10, 9, 820 } };
	for (int k = 0; k < 2; k++) {
		struct raw_instance *a = raw_set_add(&full[k], "x", 1, 1);
		struct raw_instance *b = raw_set_add(&kept[k], "x", 1, 1);
		for (unsigned f = 0; f < NF; f++) {
			raw_put(&full[k], a, f, r[k][f]);
			raw_put(&kept[k], b, f, r[k][f]);
		}
	}
	derive_deltas(&full[0], &full[0].inst[0], &full[1], &full[1].inst[0], &env, &dfull);
	derive_deltas(&kept[0], &kept[0].inst[0], &kept[1], &kept[1].inst[0], &env, &dkept);
	assert_int_equal(dkept.status, ST_WRAPPED);
	assert_int_equal(dkept.wrapped, BIT(F_C));
	assert_int_equal(dkept.d[kept[1].slot[F_C]], 0x20);

	struct value vf =
		derive_value(&full[1], &counters[C_RATE], &full[1].inst[0], &dfull, ST_OK, &env);
	struct value vk =
		derive_value(&kept[1], &counters[C_RATE], &kept[1].inst[0], &dkept, ST_OK, &env);
	/* (600 + 32) / 2 = 316 */
	assert_true(vk.v == 316.0);
	assert_true(vf.v == vk.v);
	assert_int_equal(vk.status, ST_WRAPPED);
	vk = derive_value(&kept[1], &counters[C_AVG], &kept[1].inst[0], &dkept, ST_OK, &env);
	/* 320 / 32 = 10 */
	assert_true(vk.v == 10.0);
	for (int k = 0; k < 2; k++) {
		raw_set_free(&full[k]);
		raw_set_free(&kept[k]);
	}
}

/* Copies between sets keeping different fields keep what both keep. */
static void
test_copy(void **state)
{
	(void)state;
	struct raw_set full, kept, back, other;
	static const struct counter_set set2 = {
		.name = "Other", .fields = fields, .nfields = 2,
	};

	raw_set_init(&full, &set);
	raw_set_init(&kept, &set);
	raw_set_init(&back, &set);
	raw_set_init(&other, &set2);
	raw_set_keep(&kept, BIT(F_B) | BIT(F_D));
	put_all(&full, "one", 1);
	put_all(&full, "two", 2);
	full.mono_ns = 42;
	full.valid = 1;

	raw_set_copy(&kept, &full);
	assert_int_equal(kept.ninstances, 2);
	assert_int_equal(kept.mono_ns, 42);
	assert_int_equal(raw_present_at(&kept, 1), BIT(F_B) | BIT(F_D));
	assert_int_equal(raw_get(&kept, &kept.inst[1], F_B), 12); /* 2 + 10 */
	assert_int_equal(raw_get(&kept, &kept.inst[1], F_D), 32); /* 2 + 30 */
	assert_string_equal(raw_name_at(&kept, 1), "two");

	raw_set_copy(&back, &kept); /* back keeps all, gets b and d */
	assert_int_equal(raw_present_at(&back, 0), BIT(F_B) | BIT(F_D));
	assert_int_equal(raw_get(&back, &back.inst[0], F_B), 11);
	assert_int_equal(raw_get(&back, &back.inst[0], F_D), 31);

	raw_set_copy(&other, &kept); /* another set: takes src's set, all kept */
	assert_ptr_equal(other.set, &set);
	assert_null(other.slot);
	assert_int_equal(raw_get(&other, &other.inst[0], F_D), 31);

	raw_set_free(&full);
	raw_set_free(&kept);
	raw_set_free(&back);
	raw_set_free(&other);
}

/* Interfaces that come and go (a new veth name every read) do not grow a
 * set's names without end: a set with names of its own drops the ones no
 * instance has any more, and two sets sharing names do the same through
 * raw_sets_compact_names; names stay right across it. */
static void
test_names_churn(void **state)
{
	(void)state;
	struct raw_set own, a, b;
	struct strset shared = { 0 };
	char name[32];

	raw_set_init(&own, &set);
	raw_set_init(&a, &set);
	raw_set_init(&b, &set);
	raw_set_share_names(&a, &shared);
	raw_set_share_names(&b, &shared);
	for (unsigned k = 0; k < 10000; k++) {
		struct raw_set *cur = k % 2 ? &a : &b, *prev = k % 2 ? &b : &a;
		snprintf(name, sizeof(name), "veth%u", k);
		raw_set_begin(&own);
		put_all(&own, "eth0", k);
		put_all(&own, name, k);
		raw_set_begin(cur);
		put_all(cur, "lo", k);
		put_all(cur, name, k);
		raw_sets_compact_names((struct raw_set *const[]){ cur, prev }, 2);
		assert_true(own.own_names->n <= 2 * 2 + 64 + 1);
		assert_true(shared.n <= 2 * 4 + 64 + 1);
		assert_string_equal(raw_name_at(&own, 0), "eth0");
		assert_string_equal(raw_name_at(&own, 1), name);
		assert_string_equal(raw_name_at(cur, 1), name);
		if (k) {
			snprintf(name, sizeof(name), "veth%u", k - 1);
			assert_string_equal(raw_name_at(prev, 0), "lo");
			assert_string_equal(raw_name_at(prev, 1), name);
		}
	}
	raw_set_free(&own);
	raw_set_free(&a);
	raw_set_free(&b);
	strset_free(&shared);
}

/* Whether two reads hold the same instances, fields, words and flags. */
static void
assert_same_read(const struct raw_set *got, const struct raw_set *want, unsigned round)
{
	if (got->ninstances != want->ninstances)
		fail_msg("round %u: %zu instances, want %zu", round, got->ninstances,
			 want->ninstances);
	for (size_t i = 0; i < want->ninstances; i++) {
		const struct raw_instance *g = &got->inst[i], *w = &want->inst[i];
		if (strcmp(raw_name(got, g), raw_name(want, w)) != 0 ||
		    raw_identity(got, g) != raw_identity(want, w) ||
		    raw_present(got, g) != raw_present(want, w) ||
		    raw_in_total(got, g) != raw_in_total(want, w))
			fail_msg("round %u instance %zu: %s/%llu, want %s/%llu", round, i,
				 raw_name(got, g), (unsigned long long)raw_identity(got, g),
				 raw_name(want, w), (unsigned long long)raw_identity(want, w));
		for (uint64_t m = raw_present(want, w); m; m &= m - 1) {
			unsigned f = (unsigned)__builtin_ctzll(m);
			assert_true(raw_get(got, g, f) == raw_get(want, w, f));
		}
	}
}

/* Two reads of a set taken in turn share their instance records while
 * their lists are equal; reads that differ (an instance more, less, renamed
 * or with a new identity, anywhere in the list) read back exactly as reads
 * of sets that share nothing, and the other read is never disturbed. */
static void
test_pair(void **state)
{
	(void)state;
	struct raw_set pr[2], ref[2];
	struct strset names = { 0 };
	uint64_t seed = 12345;
	char name[32];

	raw_set_init(&pr[0], &set);
	raw_set_init(&pr[1], &set);
	raw_set_keep(&pr[0], BIT(F_A) | BIT(F_C) | BIT(F_E));
	raw_set_keep(&pr[1], BIT(F_A) | BIT(F_C) | BIT(F_E));
	raw_set_pair(&pr[0], &pr[1], &names);
	raw_set_init(&ref[0], &set);
	raw_set_init(&ref[1], &set);
	raw_set_keep(&ref[0], BIT(F_A) | BIT(F_C) | BIT(F_E));
	raw_set_keep(&ref[1], BIT(F_A) | BIT(F_C) | BIT(F_E));
	unsigned n = 0, list[64], ident[64];
	int shared = 0;
	for (unsigned round = 0; round < 4000; round++) {
		unsigned k = round % 2;
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned r = (unsigned)(seed >> 33);
		/* most rounds list the same instances; some change one */
		switch (r % 8) {
		case 0: /* one more, somewhere */
			if (n < 64) {
				unsigned at = (r >> 3) % (n + 1);
				memmove(list + at + 1, list + at, (n - at) * sizeof(*list));
				memmove(ident + at + 1, ident + at, (n - at) * sizeof(*ident));
				list[at] = (r >> 9) % 48; /* names repeat now and then */
				ident[at] = (r >> 15) % 3;
				n++;
			}
			break;
		case 1: /* one less */
			if (n) {
				unsigned at = (r >> 3) % n;
				memmove(list + at, list + at + 1, (n - at - 1) * sizeof(*list));
				memmove(ident + at, ident + at + 1, (n - at - 1) * sizeof(*ident));
				n--;
			}
			break;
		case 2: /* a new identity */
			if (n)
				ident[(r >> 3) % n]++;
			break;
		}
		raw_set_begin(&pr[k]);
		raw_set_begin(&ref[k]);
		for (unsigned i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "dev%u", list[i]);
			struct raw_set *both[2] = { &pr[k], &ref[k] };
			for (int j = 0; j < 2; j++) {
				struct raw_instance *ri =
					raw_set_add(both[j], name, strlen(name), ident[i]);
				raw_put(both[j], ri, F_A, round * 100 + i);
				if ((round + i) % 3)
					raw_put(both[j], ri, F_C, i);
				raw_put(both[j], ri, F_B, 1); /* not kept */
				raw_set_in_total(both[j], ri, (i + round) % 5 != 0);
			}
		}
		raw_sets_compact_names((struct raw_set *const[]){ &pr[k], &pr[k ^ 1] }, 2);
		if (r % 13 == 0) {
			raw_set_trim(&pr[k]);
			raw_set_trim(&pr[k ^ 1]);
		}
		assert_same_read(&pr[k], &ref[k], round);
		if (round)
			assert_same_read(&pr[k ^ 1], &ref[k ^ 1], round);
		shared += n && pr[0].inst == pr[1].inst && pr[0].ninstances == pr[1].ninstances;
	}
	assert_true(shared > 1000); /* most rounds shared one list */
	/* a copy into a paired read (a replay's), then either freed first */
	raw_set_copy(&pr[0], &ref[1]);
	assert_same_read(&pr[0], &ref[1], 0);
	assert_same_read(&pr[1], &ref[1], 0);
	raw_set_free(&pr[0]);
	assert_same_read(&pr[1], &ref[1], 1);
	raw_set_begin(&pr[1]);
	put_all(&pr[1], "alone", 5);
	assert_string_equal(raw_name_at(&pr[1], 0), "alone");
	raw_set_free(&pr[1]);
	raw_set_free(&ref[0]);
	raw_set_free(&ref[1]);

	/* each read on the other's list (the second differs at its first
	 * instance): freeing either leaves the other its instances */
	for (int which = 0; which < 2; which++) {
		raw_set_init(&pr[0], &set);
		raw_set_init(&pr[1], &set);
		raw_set_pair(&pr[0], &pr[1], &names);
		raw_set_begin(&pr[0]);
		put_all(&pr[0], "x0", 1);
		put_all(&pr[0], "x1", 2);
		raw_set_begin(&pr[1]);
		put_all(&pr[1], "y0", 3);
		assert_true(pr[0].list == &pr[1].own && pr[1].list == &pr[0].own);
		raw_set_free(&pr[which]);
		struct raw_set *left = &pr[which ^ 1];
		assert_null(left->sibling);
		assert_true(left->list == &left->own);
		assert_string_equal(raw_name_at(left, 0), which ? "x0" : "y0");
		assert_true(raw_get(left, &left->inst[0], F_A) == (which ? 1u : 3u));
		if (which)
			assert_string_equal(raw_name_at(left, 1), "x1");
		raw_set_free(left);
	}
	strset_free(&names);
}

/* Identities are kept by runs: the cells of a row (one identity) take one
 * run, not one each. A read that changes one cell's identity splits its
 * run on a list of its own, and the other read, which shared the list,
 * keeps its identities; raw_set_identity and raw_set_copy keep them too. */
static void
test_identity_runs(void **state)
{
	(void)state;
	struct raw_set pr[2], copy;
	struct strset names = { 0 };
	char name[32];
	/* 3 rows of 4 cells, each row one identity; the read of round 1 gives
	 * cell 5 (row 1) another */
	const uint64_t rows[3] = { 10, 20, 30 };

	raw_set_init(&pr[0], &set);
	raw_set_init(&pr[1], &set);
	raw_set_pair(&pr[0], &pr[1], &names);
	for (int round = 0; round < 3; round++) {
		struct raw_set *rs = &pr[round % 2];
		raw_set_begin(rs);
		for (size_t i = 0; i < 12; i++) {
			snprintf(name, sizeof(name), "%u/%zu", (unsigned)rows[i / 4], i % 4);
			uint64_t id = round == 2 && i == 5 ? 21 : rows[i / 4];
			struct raw_instance *ri = raw_set_add(rs, name, strlen(name), id);
			raw_put(rs, ri, F_A, i);
		}
		if (round < 2) {
			assert_int_equal(rs->list->nruns, 3);
			assert_int_equal(rs->list->run_start[1], 4);
			assert_int_equal(rs->list->run_start[2], 8);
		}
		if (round == 1)
			assert_ptr_equal(pr[0].inst, pr[1].inst); /* one list */
	}
	/* round 2 (pr[0]): 10 x 4, 20, 21, 20 x 2, 30 x 4 on a list of its own */
	assert_ptr_not_equal(pr[0].inst, pr[1].inst);
	assert_int_equal(pr[0].list->nruns, 5);
	for (size_t i = 0; i < 12; i++) {
		assert_int_equal(raw_identity_at(&pr[0], i), i == 5 ? 21 : rows[i / 4]);
		assert_int_equal(raw_identity_at(&pr[1], i), rows[i / 4]);
		snprintf(name, sizeof(name), "%u/%zu", (unsigned)rows[i / 4], i % 4);
		assert_string_equal(raw_name_at(&pr[0], i), name);
		assert_string_equal(raw_name_at(&pr[1], i), name);
	}
	/* a copy keeps the runs' identities, and so does a set made by hand */
	raw_set_init(&copy, &set);
	raw_set_copy(&copy, &pr[0]);
	assert_int_equal(copy.list->nruns, 5);
	for (size_t i = 0; i < 12; i++)
		assert_int_equal(raw_identity_at(&copy, i), raw_identity_at(&pr[0], i));
	raw_set_identity(&copy, 5, 20); /* the row whole again */
	raw_set_identity(&copy, 11, 31); /* the last cell apart */
	assert_int_equal(copy.list->nruns, 4);
	for (size_t i = 0; i < 12; i++)
		assert_int_equal(raw_identity_at(&copy, i), i == 11 ? 31 : rows[i / 4]);
	raw_set_free(&copy);
	raw_set_free(&pr[0]);
	raw_set_free(&pr[1]);
	strset_free(&names);
}

/* Reads of a pair filled in turn, instance by instance: a read whose first
 * instance went its own way (the sibling had none yet) and whose second
 * follows the list finds that instance's run again, not where an older
 * read left its cursor (found by a review: the cursor pointed past the
 * runs, and the read took the list's identity for its own). raw_set_identity
 * on a read sharing its list leaves the sibling's identities alone. */
static void
test_identity_cursor_interleaved(void **state)
{
	(void)state;
	struct raw_set pr[2];
	struct strset names = { 0 };
	char name[8];
	struct raw_set *a = &pr[0], *b = &pr[1];

	raw_set_init(a, &set);
	raw_set_init(b, &set);
	raw_set_pair(a, b, &names);
	/* three reads of 6 instances, 6 identities: a's cursor ends at run 5 */
	for (int round = 0; round < 3; round++) {
		struct raw_set *rs = round % 2 ? b : a;
		raw_set_begin(rs);
		for (unsigned i = 0; i < 6; i++) {
			snprintf(name, sizeof(name), "a%u", i);
			raw_set_add(rs, name, strlen(name), 10 + i);
		}
	}
	assert_int_equal(a->run_at, 5);
	/* both begun, then filled in turn */
	raw_set_begin(b);
	raw_set_begin(a);
	raw_set_add(a, "a0", 2, 1); /* b has none: a's own path */
	raw_set_add(b, "a0", 2, 1); /* a's list, followed */
	raw_set_add(b, "a1", 2, 1); /* past a's instances: written on the list */
	raw_set_add(a, "a1", 2, 15); /* follows b's instance 1: another identity */
	assert_int_equal(raw_identity_at(b, 1), 1);
	assert_int_equal(raw_identity_at(a, 1), 15);
	/* a by hand, on the list b reads: b keeps its own */
	raw_set_begin(a);
	raw_set_add(a, "a0", 2, 1);
	raw_set_add(a, "a1", 2, 1);
	assert_ptr_equal(a->inst, b->inst);
	raw_set_identity(a, 1, 7);
	assert_int_equal(raw_identity_at(a, 1), 7);
	assert_int_equal(raw_identity_at(b, 1), 1);
	raw_set_free(a);
	raw_set_free(b);
	strset_free(&names);
}

/* The fields an instance read take as many bytes as the highest field
 * kept needs (1, 2, 4 or 8); each width keeps every bit, and a copy to a
 * set that keeps fewer fields keeps those. */
static void
test_present_width(void **state)
{
	(void)state;
	static struct field_desc wide[64];
	static const unsigned nf[] = { 3, 8, 9, 16, 17, 32, 33, 64 };
	static const uint8_t want_pw[] = { 1, 1, 2, 2, 4, 4, 8, 8 };

	for (unsigned f = 0; f < 64; f++)
		wide[f] = (struct field_desc){ "w", FW_64, FK_COUNTER, FB_NONE, NO_PROM };
	for (size_t k = 0; k < sizeof(nf) / sizeof(nf[0]); k++) {
		struct counter_set cs = { .name = "Wide", .fields = wide, .nfields = nf[k] };
		struct raw_set rs, low;
		raw_set_init(&rs, &cs);
		assert_int_equal(rs.pw, want_pw[k]);
		raw_set_init(&low, &cs);
		raw_set_keep(&low, 1); /* field 0 alone: a byte */
		assert_int_equal(low.pw, 1);
		for (unsigned i = 0; i < 40; i++) {
			char name[16];
			snprintf(name, sizeof(name), "i%u", i);
			struct raw_instance *ri = raw_set_add(&rs, name, strlen(name), i);
			/* the highest field, the lowest, and one between */
			raw_put(&rs, ri, nf[k] - 1, 1000 + i);
			if (i % 2)
				raw_put(&rs, ri, 0, i);
			raw_put(&rs, ri, (nf[k] - 1) / 2, 7);
		}
		raw_set_copy(&low, &rs);
		for (unsigned i = 0; i < 40; i++) {
			uint64_t want = (uint64_t)1 << (nf[k] - 1) | (uint64_t)1 << ((nf[k] - 1) / 2) |
					(i % 2 ? 1u : 0u);
			assert_true(raw_present_at(&rs, i) == want);
			assert_true(raw_get(&rs, &rs.inst[i], nf[k] - 1) == 1000 + i);
			assert_true(raw_present_at(&low, i) == (want & 1));
		}
		raw_set_free(&rs);
		raw_set_free(&low);
	}
}

/* A NUL inside a name ends it, in a string set and in a raw set. */
static void
test_names_nul(void **state)
{
	(void)state;
	struct strset ss = { 0 };
	struct raw_set rs;
	const char *stored;

	uint32_t ab = strset_add(&ss, "ab", NULL);
	assert_int_equal(strset_add_n(&ss, "ab\0xyz-and-more-after-the-nul", 30, &stored), ab);
	assert_string_equal(stored, "ab");
	assert_int_equal(ss.n, 1);
	raw_set_init(&rs, &set);
	raw_set_add(&rs, "ab", 2, 0);
	raw_set_begin(&rs);
	raw_set_add(&rs, "ab\0xyz", 6, 0);
	assert_string_equal(raw_name_at(&rs, 0), "ab");
	raw_set_free(&rs);
	strset_free(&ss);
}

/* A value of any size comes back as it was put. The first value past 32
 * bits makes its slot wide in that read, with every value the read holds
 * kept, whatever slot it is, whatever the read keeps; copies between
 * reads of other widths, raw_put_all, growth, trim and a new read after
 * all keep values exactly. Checked against plain arrays over random
 * reads. */
#define W_INST 40
static uint64_t
w_value(unsigned *seed)
{
	unsigned r = (unsigned)rand_r(seed);
	switch (r % 8) {
	case 0:
		return 0;
	case 1:
		return UINT32_MAX;
	case 2:
		return (uint64_t)UINT32_MAX + 1u;
	case 3:
		return UINT64_MAX - (uint64_t)(r >> 8);
	case 4:
		return ((uint64_t)(unsigned)rand_r(seed) << 32) | (unsigned)rand_r(seed);
	default: /* most counts are small */
		return r >> 3;
	}
}

static void
assert_values(const struct raw_set *rs, size_t n, uint64_t ref[][NF], const uint64_t *present)
{
	assert_int_equal(rs->ninstances, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t want = present[i] & rs->keep;
		assert_true(raw_present_at(rs, i) == want);
		for (unsigned f = 0; f < NF; f++)
			if (want >> f & 1)
				assert_true(raw_get(rs, &rs->inst[i], f) == ref[i][f]);
	}
	/* a slot is wide only when a value needed it, and the words add up */
	assert_int_equal(rs->stride, (rs->nslots ? rs->nslots : 1) +
					     (unsigned)__builtin_popcountll(rs->wide));
}

static void
test_widen(void **state)
{
	(void)state;
	static const uint64_t keeps[] = { 0x1F, BIT(F_A) | BIT(F_C) | BIT(F_E), BIT(F_E),
					  BIT(F_B) | BIT(F_D) };
	static uint64_t ref[W_INST][NF];
	uint64_t present[W_INST];
	unsigned seed = 7;

	for (size_t k = 0; k < ARRAY_SIZE(keeps); k++) {
		struct raw_set rs, copy, narrow;
		raw_set_init(&rs, &set);
		raw_set_init(&copy, &set);
		raw_set_init(&narrow, &set);
		raw_set_keep(&rs, keeps[k]);
		raw_set_keep(&narrow, keeps[k]);
		for (int read = 0; read < 60; read++) {
			size_t n = (size_t)rand_r(&seed) % W_INST + 1u;
			raw_set_begin(&rs);
			for (size_t i = 0; i < n; i++) {
				char name[16];
				snprintf(name, sizeof(name), "i%zu", i);
				struct raw_instance *ri = raw_set_add(&rs, name, strlen(name), i);
				present[i] = 0;
				for (unsigned f = 0; f < NF; f++)
					ref[i][f] = 0;
				if (i % 3 == 0) { /* at once */
					uint64_t v[NF], m = (uint64_t)rand_r(&seed) & 0x1F;
					for (unsigned f = 0; f < NF; f++)
						v[f] = w_value(&seed);
					raw_put_all(&rs, ri, v, m);
					for (unsigned f = 0; f < NF; f++)
						if (m >> f & 1)
							ref[i][f] = v[f];
					present[i] = m & keeps[k]; /* what rs holds */
					continue;
				}
				for (int puts = rand_r(&seed) % 8; puts > 0; puts--) {
					unsigned f = (unsigned)rand_r(&seed) % NF;
					ref[i][f] = w_value(&seed);
					present[i] |= BIT(f);
					raw_put(&rs, ri, f, ref[i][f]);
				}
				present[i] &= keeps[k];
				/* the earlier instances keep theirs while this one widens */
				if (i % 7 == 6)
					assert_values(&rs, i + 1, ref, present);
			}
			assert_values(&rs, n, ref, present);
			if (read % 5 == 4)
				raw_set_trim(&rs);
			raw_set_copy(&copy, &rs); /* all kept: gets what rs has */
			assert_values(&copy, n, ref, present);
			if (read % 4 == 0) {
				/* a fresh narrow read copies a wide one, and back */
				raw_set_keep(&narrow, keeps[k]);
				raw_set_copy(&narrow, &rs);
				assert_values(&narrow, n, ref, present);
				raw_set_copy(&rs, &narrow);
				assert_values(&rs, n, ref, present);
			}
		}
		/* a new read of small values: zeros where nothing was put */
		raw_set_begin(&rs);
		struct raw_instance *ri = raw_set_add(&rs, "z", 1, 0);
		raw_put(&rs, ri, F_E, 5);
		for (unsigned f = 0; f < NF; f++)
			if (keeps[k] >> f & 1)
				assert_true(raw_get(&rs, ri, f) == (f == F_E ? 5u : 0u));
		raw_set_free(&rs);
		raw_set_free(&copy);
		raw_set_free(&narrow);
	}
}

/* raw_put_all of every run of fields lo .. hi of a set of twelve (the
 * NIC's way: four values at a time, then the rest), and of masks with
 * holes, each with small values and with one value past 32 bits at each
 * place, into a read that keeps every field and into one that keeps some
 * (a slot each, the NIC's when a counter needs some of its statistics):
 * every value kept comes back, and nothing outside the mask is put. */
#define R_NF 12
static void
put_all_runs(uint64_t keep)
{
	static struct field_desc rf[R_NF];
	static const char *names[R_NF] = { "f0", "f1", "f2", "f3", "f4",  "f5",
					   "f6", "f7", "f8", "f9", "f10", "f11" };
	for (unsigned f = 0; f < R_NF; f++)
		rf[f] = (struct field_desc){ names[f], FW_64, FK_COUNTER, FB_NONE, NO_PROM };
	const struct counter_set rset = { .name = "Runs", .fields = rf, .nfields = R_NF };
	struct raw_set rs;
	uint64_t v[R_NF];

	for (unsigned lo = 0; lo < R_NF; lo++)
		for (unsigned hi = lo + 1; hi <= R_NF; hi++)
			for (int hole = 0; hole < 2; hole++)
				for (int big = -1; big < (int)R_NF; big++) {
					uint64_t m = (((uint64_t)1 << hi) - 1) & ~(((uint64_t)1 << lo) - 1);
					if (hole && hi - lo >= 3)
						m &= ~((uint64_t)1 << (lo + 1));
					else if (hole)
						continue;
					/* a fresh read: a wide slot stays wide */
					raw_set_init(&rs, &rset);
					if (keep != ((uint64_t)1 << R_NF) - 1)
						raw_set_keep(&rs, keep);
					struct raw_instance *ri = raw_set_add(&rs, "x", 1, 1);
					for (unsigned f = 0; f < R_NF; f++)
						v[f] = 1000u * lo + 37u * f + hi +
						       ((int)f == big ? (uint64_t)1 << 32 : 0);
					raw_put_all(&rs, ri, v, m);
					assert_true(raw_present(&rs, ri) == (m & keep));
					for (unsigned f = 0; f < R_NF; f++)
						if ((m & keep) >> f & 1)
							assert_true(raw_get(&rs, ri, f) == v[f]);
					raw_set_free(&rs);
				}
}

static void
test_put_all_runs(void **state)
{
	(void)state;
	put_all_runs(((uint64_t)1 << R_NF) - 1);
	put_all_runs(0xA5B); /* fields 0 1 3 4 6 8 9 11 */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_churn),
		cmocka_unit_test(test_names_nul),
		cmocka_unit_test(test_pair),
		cmocka_unit_test(test_identity_runs),
		cmocka_unit_test(test_identity_cursor_interleaved),
		cmocka_unit_test(test_present_width),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_derive_kept),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_widen),
		cmocka_unit_test(test_put_all_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
