/*
 * test_pairmodel.c - a model check of a set's two paired reads, which share
 * instance lists and identity runs: random instance lists (rows of cells
 * with one identity, single instances, appends, truncations, inserts,
 * deletes, identity changes, names that churn), failed reads, copies into
 * the other read (a replay's), compaction, trim, keep and pair set up
 * again. After each step every read holds exactly the names and identities
 * written into it; two reads sharing a list have equal identities at equal
 * indices (raw_same_identity takes that for granted); raw_same_name
 * says what the names say.
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

enum { F_A, F_B, NF };

static const struct field_desc fields[NF] = {
	[F_A] = { "a", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_B] = { "b", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
};

static const struct counter_set set = {
	.name = "Test",
	.fields = fields,
	.nfields = NF,
};

#define MAXN 200

struct model {
	unsigned n;
	unsigned name[MAXN];
	uint64_t id[MAXN];
};

static uint64_t seed;
/* the states the steps went through: each must be reached */
static unsigned nshared, ncross, nwritepast, ncompact;

static unsigned
rnd(unsigned n)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return n ? (unsigned)(seed >> 33) % n : 0;
}

static void
fill(struct raw_set *rs, const struct model *m, int begin)
{
	char name[32];

	if (begin)
		raw_set_begin(rs);
	for (unsigned i = 0; i < m->n; i++) {
		snprintf(name, sizeof(name), "n%u", m->name[i]);
		struct raw_instance *ri = raw_set_add(rs, name, strlen(name), m->id[i]);
		raw_put(rs, ri, F_A, m->name[i]);
	}
}

static void
check(const struct raw_set *rs, const struct model *m, unsigned step, int which)
{
	char name[32];

	if (rs->ninstances != m->n)
		fail_msg("step %u read %d: %zu instances, want %u", step, which, rs->ninstances,
			 m->n);
	for (unsigned i = 0; i < m->n; i++) {
		snprintf(name, sizeof(name), "n%u", m->name[i]);
		if (strcmp(raw_name_at(rs, i), name) != 0 || raw_identity_at(rs, i) != m->id[i] ||
		    raw_get(rs, &rs->inst[i], F_A) != m->name[i])
			fail_msg("step %u read %d inst %u: %s/%llu, want %s/%llu", step, which, i,
				 raw_name_at(rs, i), (unsigned long long)raw_identity_at(rs, i),
				 name, (unsigned long long)m->id[i]);
	}
}

static void
mutate(struct model *m, unsigned *fresh)
{
	switch (rnd(10)) {
	case 0: /* a row of cells, one identity, appended */
	{
		unsigned k = 1 + rnd(12);
		uint64_t id = rnd(4);
		for (unsigned c = 0; c < k && m->n < MAXN; c++) {
			m->name[m->n] = (*fresh)++;
			m->id[m->n++] = id;
		}
		break;
	}
	case 1: /* cut at the end */
		m->n = rnd(m->n + 1);
		break;
	case 2: /* insert one */
		if (m->n < MAXN) {
			unsigned at = rnd(m->n + 1);
			memmove(m->name + at + 1, m->name + at, (m->n - at) * sizeof(*m->name));
			memmove(m->id + at + 1, m->id + at, (m->n - at) * sizeof(*m->id));
			m->name[at] = rnd(3) ? (*fresh)++ : rnd(20);
			m->id[at] = rnd(4);
			m->n++;
		}
		break;
	case 3: /* delete one */
		if (m->n) {
			unsigned at = rnd(m->n);
			memmove(m->name + at, m->name + at + 1, (m->n - at - 1) * sizeof(*m->name));
			memmove(m->id + at, m->id + at + 1, (m->n - at - 1) * sizeof(*m->id));
			m->n--;
		}
		break;
	case 4: /* an identity changed */
		if (m->n)
			m->id[rnd(m->n)] = rnd(4);
		break;
	case 5: /* a range's identity changed */
		if (m->n) {
			unsigned a = rnd(m->n), b = a + rnd(m->n - a + 1);
			uint64_t id = rnd(4);
			for (unsigned i = a; i < b; i++)
				m->id[i] = id;
		}
		break;
	default: /* the same list */
		break;
	}
}

static void
test_model(void **state)
{
	(void)state;
	struct raw_set pr[2], other;
	struct strset names = { 0 };
	struct model want[2] = { 0 }, cur = { 0 }, om = { 0 };
	unsigned fresh = 100;

	for (unsigned trial = 0; trial < 40; trial++) {
		seed = 1000 + trial;
		raw_set_init(&pr[0], &set);
		raw_set_init(&pr[1], &set);
		strset_by_place(&names);
		raw_set_pair(&pr[0], &pr[1], &names);
		raw_set_init(&other, &set);
		memset(want, 0, sizeof(want));
		memset(&cur, 0, sizeof(cur));
		int k = 0;
		for (unsigned step = 0; step < 3000; step++) {
			unsigned op = rnd(40);
			mutate(&cur, &fresh);
			if (op == 0) {
				/* a failed read: the engine drops what it added */
				raw_set_begin(&pr[k]);
				fill(&pr[k], &cur, 0);
				pr[k].ninstances = 0;
				want[k].n = 0;
			} else if (op == 1) {
				/* a replay's copy into the other read after this one */
				fill(&pr[k], &cur, 1);
				want[k] = cur;
				om = cur;
				mutate(&om, &fresh);
				mutate(&om, &fresh);
				fill(&other, &om, 1);
				raw_set_copy(&pr[k ^ 1], &other);
				want[k ^ 1] = om;
			} else if (op == 2) {
				/* keep re-initialised: both reads emptied, paired again */
				raw_set_keep(&pr[0], 1);
				raw_set_keep(&pr[1], 1);
				raw_set_pair(&pr[0], &pr[1], &names);
				want[0].n = want[1].n = 0;
				fill(&pr[k], &cur, 1);
				want[k] = cur;
			} else {
				fill(&pr[k], &cur, 1);
				want[k] = cur;
			}
			if (rnd(2))
				raw_sets_compact_names((struct raw_set *const[]){ &pr[k], &pr[k ^ 1] },
						       2);
			if (rnd(5) == 0) {
				raw_set_trim(&pr[k]);
				raw_set_trim(&pr[k ^ 1]);
			}
			nshared += pr[0].list == pr[1].list && pr[0].ninstances && pr[1].ninstances;
			ncross += pr[0].list == &pr[1].own && pr[1].list == &pr[0].own;
			nwritepast += pr[0].list == pr[1].list && pr[0].ninstances != pr[1].ninstances;
			ncompact += names.n < 80;
			check(&pr[0], &want[0], step, 0);
			check(&pr[1], &want[1], step, 1);
			if (pr[0].list == pr[1].list) {
				size_t n = pr[0].ninstances < pr[1].ninstances ? pr[0].ninstances
									       : pr[1].ninstances;
				for (size_t i = 0; i < n; i++)
					if (want[0].id[i] != want[1].id[i])
						fail_msg("step %u: shared list, inst %zu: ids %llu/%llu",
							 step, i, (unsigned long long)want[0].id[i],
							 (unsigned long long)want[1].id[i]);
			}
			for (size_t i = 0; i < want[0].n && i < want[1].n; i++) {
				int same = want[0].name[i] == want[1].name[i];
				if (raw_same_name(&pr[0], i, &pr[1], i) != same)
					fail_msg("step %u: raw_same_name %zu wrong", step, i);
			}
			k ^= 1;
		}
		raw_set_free(&pr[0]);
		raw_set_free(&pr[1]);
		raw_set_free(&other);
		strset_free(&names);
	}
	/* reads on one list, each on the other's, one list with more
	 * instances for one read, names compacted: all were checked */
	assert_true(nshared > 1000 && ncross > 100 && nwritepast > 1000 && ncompact > 100);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
