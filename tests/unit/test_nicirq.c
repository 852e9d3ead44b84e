/*
 * test_nicirq.c - the Per Processor Network Interface Card Activity
 * provider (COUNTERS.md section 6): the action-name rule, the instances
 * and which Interrupt rows each one totals (rows_match) over the fixture
 * series tests/fixtures/nicirq-basic (made by its gen.sh), and
 * Interrupts/sec summed over those rows as the engine does (each row's
 * delta through derive.c, then derive_total), with the arithmetic beside
 * each expected value.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "derive.h"
#include "nicirq.h"
#include "procfs.h"
#include "provider.h"
#include "sample.h"

extern const struct provider provider_per_processor_nic_activity;
extern const struct provider provider_interrupt;

#define PROV provider_per_processor_nic_activity
#define IRQ provider_interrupt
#define NROOTS 2

/* Both providers read over the roots of a fixture series. */
struct series {
	struct procfs *fs;
	struct provider_ctx ctx, irq_ctx;
	void *state, *irq_state;
	struct raw_set rs[NROOTS], irq[NROOTS];
	size_t n;
	int rc[NROOTS];
};

/* Open both providers over ../fixtures/dir/t0 .. t(n-1) and read each root. */
static void
series_load(struct series *s, const char *dir, size_t n)
{
	char paths[NROOTS][256];
	const char *roots[NROOTS];
	struct err err = { "" };

	memset(s, 0, sizeof(*s));
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "../fixtures/%s/t%zu", dir, i);
		roots[i] = paths[i];
	}
	s->fs = procfs_new(roots, n);
	s->ctx.fs = s->fs;
	s->ctx.needed = 0; /* Interrupts/sec needs no field of this set */
	s->irq_ctx.fs = s->fs;
	s->irq_ctx.needed = 1; /* Interrupt's count */
	assert_int_equal(procfs_begin_read(s->fs, 0, &err), 0);
	s->state = PROV.open(&s->ctx, &err);
	s->irq_state = IRQ.open(&s->irq_ctx, &err);
	assert_non_null(s->state);
	assert_non_null(s->irq_state);
	for (size_t i = 0; i < n; i++) {
		if (i)
			assert_int_equal(procfs_begin_read(s->fs, i, &err), 0);
		raw_set_init(&s->rs[i], PROV.set);
		raw_set_begin(&s->rs[i]);
		s->rc[i] = PROV.read(s->state, &s->rs[i], &err);
		raw_set_init(&s->irq[i], IRQ.set);
		raw_set_begin(&s->irq[i]);
		assert_int_equal(IRQ.read(s->irq_state, &s->irq[i], &err), 0);
	}
}

static void
series_free(struct series *s)
{
	for (size_t i = 0; i < s->n; i++) {
		raw_set_free(&s->rs[i]);
		raw_set_free(&s->irq[i]);
	}
	PROV.close(s->state);
	IRQ.close(s->irq_state);
	procfs_free(s->fs);
}

static const struct raw_instance *
find_inst(const struct raw_set *rs, const char *name)
{
	for (size_t i = 0; i < rs->ninstances; i++)
		if (strcmp(raw_name_at(rs, i), name) == 0)
			return &rs->inst[i];
	return NULL;
}

/* Interrupts/sec over t0 -> t1 of instance inst ("eth0/2"), or of every
 * member of group "IF/_Total": the Interrupt rows rows_match gives, summed
 * as the engine sums them (none: UNSUPPORTED). */
static struct value
rate_of(const struct series *s, const char *inst)
{
	struct derive_env env = { .dt = 2.0, .user_hz = 100, .ulong_bits = 64 };
	const struct counter_desc *c = counter_set_find(IRQ.set, "Interrupts/sec");
	const struct raw_instance *cur[64];
	const struct field_deltas *dp[64];
	uint8_t pair[64];
	size_t n = 0, iflen = strchr(inst, '/') - inst;
	int group = strcmp(inst + iflen + 1, "_Total") == 0;
	FIELD_DELTAS_ARRAY(d, 64);

	assert_non_null(c);
	for (size_t k = 0; k < s->rs[1].ninstances; k++) {
		const char *name = raw_name_at(&s->rs[1], k);
		if (group ? strncmp(name, inst, iflen + 1) != 0 : strcmp(name, inst) != 0)
			continue;
		for (size_t i = 0; i < s->irq[1].ninstances; i++) {
			const struct raw_instance *row = &s->irq[1].inst[i];
			const char *row_name = raw_name(&s->irq[1], row);
			const struct raw_instance *prev = find_inst(&s->irq[0], row_name);
			if (!strstr(row_name, "/_Total") &&
			    PROV.rows_match(s->state, name, row_name)) {
				assert_true(n < 64);
				assert_non_null(prev);
				derive_deltas(&s->irq[0], prev, &s->irq[1], row, &env, &d[n]);
				cur[n] = row;
				dp[n] = &d[n];
				pair[n] = ST_OK;
				n++;
			}
		}
	}
	if (n == 0)
		return (struct value){ 0, ST_UNSUPPORTED };
	return derive_total(&s->irq[1], c, cur, dp, pair, n, &env);
}

static void
check(struct value v, double expect, enum value_status st, const char *what, int line)
{
	if (v.status != st)
		fail_msg("line %d, %s: status %s, expected %s", line, what,
			 status_name((enum value_status)v.status), status_name(st));
	if (st != ST_OK && st != ST_WRAPPED)
		return;
	if (v.v - expect > 1e-9 || expect - v.v > 1e-9)
		fail_msg("line %d, %s: value %.9g, expected %.9g", line, what, v.v, expect);
}

#define CHECK(s, inst, expect, st) check(rate_of(s, inst), expect, st, inst, __LINE__)

/* The action-name rule: a token, never a prefix of a longer name. */
static void
test_action_match(void **unused)
{
#define M(a, i, v) nicirq_action_match(a, strlen(a), i, v)
	(void)unused;
	assert_true(M("eth1-TxRx-0", "eth1", ""));
	assert_true(M("eth1", "eth1", ""));
	assert_true(M("eth1:lsc", "eth1", ""));
	assert_true(M("i40e-eth1-TxRx-0", "eth1", "")); /* after a '-' */
	assert_true(M("ehci_hcd:usb1, eth1:lsc", "eth1", "")); /* second of two */
	assert_true(M("eth1 , acpi", "eth1", ""));
	assert_false(M("eth10-TxRx-0", "eth1", ""));
	assert_false(M("eth10", "eth1", ""));
	assert_false(M("xeth1-rx", "eth1", ""));
	assert_false(M("veth1", "eth1", ""));
	assert_false(M("eth1_rx", "eth1", "")); /* '_' is no separator */
	assert_false(M("", "eth1", ""));
	assert_false(M("acpi, i801_smbus", "eth1", ""));
	/* virtio: the device's name then '-', the interface's name unused */
	assert_true(M("virtio2-input.0", "eth0", "virtio2"));
	assert_true(M("virtio2-config", "eth0", "virtio2"));
	assert_false(M("virtio20-input.0", "eth0", "virtio2"));
	assert_false(M("virtio2", "eth0", "virtio2"));
	assert_false(M("eth0-rx", "eth0", "virtio2"));
	assert_true(M("eth0-rx", "eth0", NULL));
#undef M
}

/* Instances: IF/CPU for each interface with a device (version order) and
 * each header CPU (0 and 2); lo and veth0 have none. */
static void
test_instances(void **unused)
{
	static const char *const want[] = {
		"eth0/0", "eth0/2", "eth1/0", "eth1/2", "eth2/0", "eth2/2",
		"eth3/0", "eth3/2", "eth10/0", "eth10/2",
	};
	struct series s;

	(void)unused;
	series_load(&s, "nicirq-basic", 2);
	for (size_t r = 0; r < 2; r++) {
		assert_int_equal(s.rc[r], 0);
		assert_int_equal(s.rs[r].ninstances, sizeof(want) / sizeof(want[0]));
		for (size_t i = 0; i < s.rs[r].ninstances; i++) {
			assert_string_equal(raw_name_at(&s.rs[r], i), want[i]);
			assert_int_equal(raw_present_at(&s.rs[r], i), 0); /* no raw field */
		}
	}
	/* identity: the ifindex (eth0 2, eth10 4) */
	assert_int_equal(raw_identity(&s.rs[1], find_inst(&s.rs[1], "eth0/2")), 2);
	assert_int_equal(raw_identity(&s.rs[1], find_inst(&s.rs[1], "eth10/0")), 4);
	series_free(&s);
}

/* Which Interrupt rows an instance totals. */
static void
test_rows_match(void **unused)
{
	struct series s;
	void *st;

	(void)unused;
	series_load(&s, "nicirq-basic", 2);
	st = s.state;
	/* eth0: virtio1-* (25, 26, 27), same CPU only; not virtio10's 28 */
	assert_true(PROV.rows_match(st, "eth0/0", "25/0"));
	assert_true(PROV.rows_match(st, "eth0/0", "26/0"));
	assert_true(PROV.rows_match(st, "eth0/2", "27/2"));
	assert_false(PROV.rows_match(st, "eth0/0", "26/2"));
	assert_false(PROV.rows_match(st, "eth0/0", "28/0"));
	/* eth1: 30, 31, 32, 36 (shared); never eth10's 33/34 nor xeth1's 35 */
	assert_true(PROV.rows_match(st, "eth1/0", "30/0"));
	assert_true(PROV.rows_match(st, "eth1/2", "31/2"));
	assert_true(PROV.rows_match(st, "eth1/0", "32/0"));
	assert_true(PROV.rows_match(st, "eth1/2", "36/2"));
	assert_false(PROV.rows_match(st, "eth1/0", "33/0"));
	assert_false(PROV.rows_match(st, "eth1/2", "34/2"));
	assert_false(PROV.rows_match(st, "eth1/0", "35/0"));
	/* eth10: 33, 34 */
	assert_true(PROV.rows_match(st, "eth10/0", "33/0"));
	assert_true(PROV.rows_match(st, "eth10/2", "34/2"));
	assert_false(PROV.rows_match(st, "eth10/0", "30/0"));
	/* eth2: msi_irqs 40, 41; "eth2-bogus" (45) is not its */
	assert_true(PROV.rows_match(st, "eth2/0", "40/0"));
	assert_true(PROV.rows_match(st, "eth2/2", "41/2"));
	assert_false(PROV.rows_match(st, "eth2/0", "45/0"));
	/* eth3: nothing; architecture rows and unknown names: nothing */
	assert_false(PROV.rows_match(st, "eth3/0", "30/0"));
	assert_false(PROV.rows_match(st, "eth1/0", "NMI/0"));
	assert_false(PROV.rows_match(st, "lo/0", "0/0"));
	assert_false(PROV.rows_match(st, "eth1", "30/0"));
	series_free(&s);
}

/* Interrupts/sec, t0 -> t1, dt = 1002.00 - 1000.00 = 2 s. */
static void
test_values(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "nicirq-basic", 2);
	/* eth0/0: 25 (0-0) + 26 (300-100) + 27 (90-50) = 240; 240 / 2 = 120 */
	CHECK(&s, "eth0/0", 120, ST_OK);
	/* eth0/2: 0 + 26 (30-10) + 27 (4-0) = 24; 24 / 2 = 12 */
	CHECK(&s, "eth0/2", 12, ST_OK);
	/* eth0/_Total: (240 + 24) / 2 = 132 */
	CHECK(&s, "eth0/_Total", 132, ST_OK);
	/* eth1/0: 30 (30-10) + 31 (0) + 32 (7-5) + 36 (3-1) = 24; / 2 = 12 */
	CHECK(&s, "eth1/0", 12, ST_OK);
	/* eth1/2: 30 (0) + 31 (60-20) + 32 (5-5) + 36 (9-1) = 48; / 2 = 24 */
	CHECK(&s, "eth1/2", 24, ST_OK);
	/* eth1/_Total: (24 + 48) / 2 = 36 */
	CHECK(&s, "eth1/_Total", 36, ST_OK);
	/* eth10/0: 33 (1400-1000) + 34 (0) = 400; / 2 = 200 */
	CHECK(&s, "eth10/0", 200, ST_OK);
	/* eth10/2: 33 (0) + 34 (1800-1000) = 800; / 2 = 400 */
	CHECK(&s, "eth10/2", 400, ST_OK);
	/* eth2/0: 40 (50-10) + 41 (0) = 40; / 2 = 20 */
	CHECK(&s, "eth2/0", 20, ST_OK);
	/* eth2/2: 40 (60-20) + 41 wrapped (2^32 - 4294967000 + 200 = 296 +
	 * 200 = 496) = 536; / 2 = 268 */
	CHECK(&s, "eth2/2", 268, ST_WRAPPED);
	/* eth2/_Total: (40 + 536) / 2 = 288, still WRAPPED */
	CHECK(&s, "eth2/_Total", 288, ST_WRAPPED);
	/* eth3: no IRQ row at all */
	CHECK(&s, "eth3/0", 0, ST_UNSUPPORTED);
	CHECK(&s, "eth3/_Total", 0, ST_UNSUPPORTED);
	series_free(&s);
}

/* -l -v / -q -v text: the IRQs and where they came from. */
static void
test_describe(void **unused)
{
	const struct counter_desc *c = &PROV.set->counters[0];
	struct series s;
	char buf[128];
	size_t n;

	(void)unused;
	series_load(&s, "nicirq-basic", 2);
	n = PROV.describe(s.state, c, "eth2/0", buf, sizeof(buf));
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf, "here msi_irqs IRQs: 40 41");
	PROV.describe(s.state, c, "eth0/2", buf, sizeof(buf));
	assert_string_equal(buf, "here named IRQs: 25 26 27");
	PROV.describe(s.state, c, "eth1/0", buf, sizeof(buf));
	assert_string_equal(buf, "here named IRQs: 30 31 32 36");
	PROV.describe(s.state, c, "eth3/0", buf, sizeof(buf));
	assert_string_equal(buf, "here named IRQs: none");
	/* cut to fit, NUL-terminated */
	n = PROV.describe(s.state, c, "eth1/0", buf, 12);
	assert_int_equal(n, 11);
	assert_int_equal(strlen(buf), 11);
	assert_int_equal(PROV.describe(s.state, c, NULL, buf, sizeof(buf)), 0);
	assert_int_equal(PROV.describe(s.state, c, "lo/0", buf, sizeof(buf)), 0);
	series_free(&s);
}

/* A root with no proc/interrupts: no instances, no error. */
static void
test_no_interrupts(void **unused)
{
	const char *roots[1] = { "../fixtures/nicpower-basic/t0" };
	struct provider_ctx ctx = { 0 };
	struct err err = { "" };
	struct raw_set rs;
	void *st;

	(void)unused;
	ctx.fs = procfs_new(roots, 1);
	assert_int_equal(procfs_begin_read(ctx.fs, 0, &err), 0);
	st = PROV.open(&ctx, &err);
	assert_non_null(st);
	raw_set_init(&rs, PROV.set);
	raw_set_begin(&rs);
	assert_int_equal(PROV.read(st, &rs, &err), 0);
	assert_int_equal(rs.ninstances, 0);
	raw_set_free(&rs);
	PROV.close(st);
	procfs_free(ctx.fs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_action_match), cmocka_unit_test(test_instances),
		cmocka_unit_test(test_rows_match),   cmocka_unit_test(test_values),
		cmocka_unit_test(test_describe),     cmocka_unit_test(test_no_interrupts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
