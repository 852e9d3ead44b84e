/*
 * test_interrupts.c - the /proc/interrupts and /proc/softirqs parsers on
 * strings (the header's CPU numbers, rows with fewer cells, ERR and MIS,
 * shared IRQs, action names with blanks, arm's layout, 1,200 CPUs) and the
 * Interrupt and Softirq providers end to end through derive over
 * tests/fixtures/irq-basic: CPUs 0 and 3 online (header "CPU0 CPU3"), an
 * IRQ number reused by another driver (RESET), a row that appears (NEW), a
 * 32-bit count that wraps (WRAPPED); softirqs of 4 possible CPUs; counts
 * that overflow uint64 (tests/fixtures/irq-overflow): that cell absent,
 * UNSUPPORTED, never 0. And the Interrupt help text of each row (describe)
 * as reads change the rows.
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
#include "interrupts.h"
#include "provider.h"

extern const struct provider provider_interrupt;
extern const struct provider provider_softirq;

#define MAX_ROOTS 4

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
		if (strcmp(raw_name_at(rs, i), name) == 0)
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
	FIELD_DELTAS_DECLARE(d);

	if (!cur)
		fail_msg("no instance '%s' in read %zu", instance, i);
	if (i == 0)
		return derive_value(&s->rs[i], c, cur, NULL, ST_FIRST, &env);
	prev = find(&s->rs[i - 1], instance);
	if (!prev)
		return derive_value(&s->rs[i], c, cur, NULL, ST_NEW, &env);
	derive_deltas(&s->rs[i - 1], prev, &s->rs[i], cur, &env, &d);
	return derive_value(&s->rs[i], c, cur, &d, ST_OK, &env);
}

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
		struct value got = value_at(s, i, name, w[k].instance);

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

/* Parse one row of text with max columns; the row must be found. */
static void
parse_row(const char *text, uint64_t *vals, size_t max, struct interrupts_row *row)
{
	const char *p = text, *end = text + strlen(text);

	assert_int_equal(interrupts_row_next(&p, end, vals, max, row), 1);
}

static void
assert_span(const char *p, size_t len, const char *want)
{
	if (len != strlen(want) || memcmp(p, want, len) != 0)
		fail_msg("'%.*s', want '%s'", (int)len, p, want);
}

/* The header gives each column's CPU, whatever its position. */
static void
test_header(void **unused)
{
	const char text[] = "           CPU0       CPU3       \n  0: 1 2 x\n";
	const char *p = text, *end = text + strlen(text);
	unsigned cpus[4] = { 9, 9, 9, 9 };

	(void)unused;
	assert_int_equal(interrupts_header(&p, end, cpus, 4), 2);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 3);
	assert_ptr_equal(p, text + strlen("           CPU0       CPU3       \n"));
	/* Too small an array: the count says how many to make room for. */
	p = text;
	cpus[1] = 9;
	assert_int_equal(interrupts_header(&p, end, cpus, 1), 2);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 9);
	/* Other tokens are not columns; an empty file has none. */
	p = "CPU1 CPUx CPU 7 CPU12\n";
	assert_int_equal(interrupts_header(&p, p + strlen(p), cpus, 4), 2);
	assert_int_equal(cpus[0], 1);
	assert_int_equal(cpus[1], 12);
	p = "";
	assert_int_equal(interrupts_header(&p, p, cpus, 4), 0);
	/* column_of: a header with CPU 2 offline. */
	const unsigned hdr[] = { 0, 1, 3, 7 };
	assert_int_equal(interrupts_column_of(hdr, 4, 0), 0);
	assert_int_equal(interrupts_column_of(hdr, 4, 3), 2);
	assert_int_equal(interrupts_column_of(hdr, 4, 7), 3);
	assert_int_equal(interrupts_column_of(hdr, 4, 2), 4); /* none */
	assert_int_equal(interrupts_column_of(hdr, 0, 0), 0);
}

/* x86 rows: the counts, the description, the action names. */
static void
test_rows_x86(void **unused)
{
	struct interrupts_row row;
	uint64_t v[2];

	(void)unused;
	parse_row(" 16:        100        200   IO-APIC  16-fasteoi   ehci_hcd:usb1\n", v, 2,
		  &row);
	assert_span(row.name, row.name_len, "16");
	assert_int_equal(row.ncells, 2);
	assert_int_equal(v[0], 100);
	assert_int_equal(v[1], 200);
	assert_span(row.desc, row.desc_len, "IO-APIC  16-fasteoi   ehci_hcd:usb1");
	assert_span(row.actions, row.actions_len, "ehci_hcd:usb1");
	assert_true(row.numbered);
	assert_false(row.system_wide);

	/* A shared IRQ lists its actions "a, b". */
	parse_row("  9:          0          4   IO-APIC   9-fasteoi   acpi, i801_smbus\n", v, 2,
		  &row);
	assert_span(row.actions, row.actions_len, "acpi, i801_smbus");
	/* An action name with blanks of its own. */
	parse_row(" 130:    5    6  IR-PCI-MSIX-0000:00:14.3    0-edge      iwlwifi: default queue",
		  v, 2, &row);
	assert_span(row.name, row.name_len, "130");
	assert_int_equal(v[1], 6);
	assert_span(row.actions, row.actions_len, "iwlwifi: default queue");
	/* A 10-digit count fills its column; the chip follows one blank. */
	parse_row(" 27: 4294967000         10  PCI-MSI 512000-edge      ahci[0000:00:1f.2]\n", v,
		  2, &row);
	assert_int_equal(v[0], 4294967000u);
	assert_span(row.actions, row.actions_len, "ahci[0000:00:1f.2]");

	/* Architecture rows: the description is the whole text. */
	parse_row("NMI:          1          2   Non-maskable interrupts\n", v, 2, &row);
	assert_span(row.name, row.name_len, "NMI");
	assert_false(row.numbered);
	assert_span(row.actions, row.actions_len, "Non-maskable interrupts");
	/* A row with fewer cells than the header: cell i is column i. */
	parse_row("PMI:          7   Performance monitoring interrupts\n", v, 2, &row);
	assert_int_equal(row.ncells, 1);
	assert_int_equal(v[0], 7);
	assert_span(row.desc, row.desc_len, "Performance monitoring interrupts");
	/* ERR and MIS: one system-wide count, no description. */
	parse_row("ERR:          3\n", v, 2, &row);
	assert_true(row.system_wide);
	assert_int_equal(row.ncells, 1);
	assert_int_equal(v[0], 3);
	assert_int_equal(row.desc_len, 0);
	parse_row("MIS:          0", v, 2, &row);
	assert_true(row.system_wide);
	assert_int_equal(row.ncells, 1);
	/* Counts past the header's columns are left in the description. */
	parse_row("  5:  1  2  3  chip", v, 2, &row);
	assert_int_equal(row.ncells, 2);
	assert_span(row.desc, row.desc_len, "3  chip");
	/* A description starting with digits is not a count ("2-edge"). */
	parse_row("  6:  1  2-edge  x", v, 2, &row);
	assert_int_equal(row.ncells, 1);
}

/* A count whose digits overflow uint64 (or reach UINT64_MAX) is
 * INTERRUPTS_NO_COUNT, and the cells after it keep their columns. */
static void
test_rows_overflow(void **unused)
{
	struct interrupts_row row;
	uint64_t v[3];

	(void)unused;
	/* 2^64 in CPU0's column; CPU1 and CPU2 still 5 and 6 */
	parse_row(" 24: 18446744073709551616  5  6  PCI-MSI 524288-edge      eth0\n", v, 3, &row);
	assert_int_equal(row.ncells, 3);
	assert_true(v[0] == INTERRUPTS_NO_COUNT);
	assert_int_equal(v[1], 5);
	assert_int_equal(v[2], 6);
	assert_span(row.actions, row.actions_len, "eth0");
	/* 2^64 - 1 itself is no count either; 2^64 - 2 is one */
	parse_row("LOC: 18446744073709551614 18446744073709551615 99999999999999999999999999 x",
		  v, 3, &row);
	assert_int_equal(row.ncells, 3);
	assert_true(v[0] == 18446744073709551614u);
	assert_true(v[1] == INTERRUPTS_NO_COUNT);
	assert_true(v[2] == INTERRUPTS_NO_COUNT);
	assert_span(row.desc, row.desc_len, "x");
	/* a system-wide row's one count */
	parse_row("ERR: 100000000000000000000\n", v, 3, &row);
	assert_true(row.system_wide);
	assert_int_equal(row.ncells, 1);
	assert_true(v[0] == INTERRUPTS_NO_COUNT);
	/* 0 and a 32-bit count as before */
	parse_row("NMI: 0 4294967295", v, 3, &row);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 4294967295u);
}

/* arm64's layout (level column, IPIn rows, "Err") and softirq rows. */
static void
test_rows_other(void **unused)
{
	const char text[] = "           CPU0       CPU1       \n"
			    " 11:      12345      67890     GICv3  27 Level     arch_timer\n"
			    "IPI0:       100        200       Rescheduling interrupts\n"
			    "\n"
			    "Err:          0\n";
	const char *p = text, *end = text + strlen(text);
	struct interrupts_row row;
	unsigned cpus[2];
	uint64_t v[2];

	(void)unused;
	assert_int_equal(interrupts_header(&p, end, cpus, 2), 2);
	assert_int_equal(interrupts_row_next(&p, end, v, 2, &row), 1);
	assert_span(row.actions, row.actions_len, "arch_timer");
	assert_int_equal(v[1], 67890);
	assert_int_equal(interrupts_row_next(&p, end, v, 2, &row), 1);
	assert_span(row.name, row.name_len, "IPI0");
	assert_false(row.numbered);
	assert_false(row.system_wide);
	assert_int_equal(interrupts_row_next(&p, end, v, 2, &row), 1); /* the blank line skipped */
	assert_span(row.name, row.name_len, "Err");
	assert_true(row.system_wide);
	assert_int_equal(interrupts_row_next(&p, end, v, 2, &row), 0);
	assert_ptr_equal(p, end);

	parse_row("      NET_RX:       1649       1673\n", v, 2, &row);
	assert_span(row.name, row.name_len, "NET_RX");
	assert_int_equal(row.ncells, 2);
	assert_int_equal(v[1], 1673);
	assert_int_equal(row.desc_len, 0);
}

/* Identity: number and action names; the chip columns' spacing is not part
 * of it. */
static void
test_identity(void **unused)
{
	struct interrupts_row a, b;
	uint64_t v[2];

	(void)unused;
	parse_row("  9:   0   4   IO-APIC   9-fasteoi   acpi, i801_smbus", v, 2, &a);
	parse_row("  9:   5   6   IO-APIC    9-fasteoi   acpi, i801_smbus", v, 2, &b);
	assert_true(interrupts_row_identity(&a) == interrupts_row_identity(&b));
	parse_row("  9:   5   6   IO-APIC   9-fasteoi   acpi", v, 2, &b);
	assert_true(interrupts_row_identity(&a) != interrupts_row_identity(&b));
	parse_row(" 10:   0   4   IO-APIC   9-fasteoi   acpi, i801_smbus", v, 2, &b);
	assert_true(interrupts_row_identity(&a) != interrupts_row_identity(&b));
	assert_true(interrupts_row_identity(&a) != 0);
}

/* Instance names "ROW/CPU", cut to fit a small buffer. */
static void
test_instance_name(void **unused)
{
	struct interrupts_row row;
	uint64_t v[1];
	char buf[64];

	(void)unused;
	parse_row("LOC:  5  Local timer interrupts", v, 1, &row);
	assert_int_equal(interrupts_instance_name(buf, sizeof(buf), &row, 1023), 8);
	assert_string_equal(buf, "LOC/1023");
	assert_int_equal(interrupts_instance_name(buf, sizeof(buf), &row, 0), 5);
	assert_string_equal(buf, "LOC/0");
	assert_int_equal(interrupts_instance_name(buf, 7, &row, 12), 6);
	assert_string_equal(buf, "LOC/12");
	assert_int_equal(interrupts_instance_name(buf, 6, &row, 12), 5);
	assert_string_equal(buf, "LO/12");
}

/* 1,200 CPUs: every column parsed, the last one right. */
static void
test_wide(void **unused)
{
	enum { N = 1200 };
	size_t cap = N * 24 + 256, len = 0;
	char *text = malloc(cap);
	unsigned *cpus = malloc(N * sizeof(*cpus));
	uint64_t *v = malloc(N * sizeof(*v));
	struct interrupts_row row;
	const char *p, *end;

	(void)unused;
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "      ");
	for (unsigned c = 0; c < N; c++)
		len += (size_t)snprintf(text + len, cap - len, "CPU%-7u ", 2 * c);
	len += (size_t)snprintf(text + len, cap - len, "\nLOC:");
	for (unsigned c = 0; c < N; c++)
		len += (size_t)snprintf(text + len, cap - len, " %10u", c * 3);
	len += (size_t)snprintf(text + len, cap - len, "   Local timer interrupts\n");
	p = text;
	end = text + len;
	assert_int_equal(interrupts_header(&p, end, cpus, N), N);
	assert_int_equal(cpus[N - 1], 2 * (N - 1));
	assert_int_equal(interrupts_row_next(&p, end, v, N, &row), 1);
	assert_int_equal(row.ncells, N);
	assert_int_equal(v[N - 1], 3 * (N - 1));
	assert_span(row.desc, row.desc_len, "Local timer interrupts");
	free(text);
	free(cpus);
	free(v);
}

/*
 * irq-basic /proc/interrupts, header "CPU0 CPU3", dt = 1002 - 1000 = 2 s:
 *          t0 CPU0     CPU3   actions             t1 CPU0  CPU3   actions
 *   0      46          0      timer                  66    0      timer
 *   9      0           4      acpi, i801_smbus       0     10     (same; chip spacing differs)
 *   16     100         200    ehci_hcd:usb1          150   250    snd_hda_intel:card0
 *   27     4294967000  10     ahci[...]              200   30     ahci[...]
 *   30     -           -                             8     9      eth0 (appears)
 *   NMI    1           2                             1     6
 *   LOC    1000        2000                          1400  2100
 *   PMI    7           -      (one cell)             11    -
 *   ERR    3                                         7
 *   MIS    0                                         0
 */
static void
test_interrupt_provider(void **unused)
{
	static const struct want t1[] = {
		OKV("0/0", 10),             /* (66 - 46) / 2 */
		OKV("0/3", 0),              /* (0 - 0) / 2 */
		OKV("9/0", 0),
		OKV("9/3", 3),              /* (10 - 4) / 2: same actions, same instance */
		NOV("16/0", ST_RESET),      /* 100 -> 150 but another driver: no rate */
		NOV("16/3", ST_RESET),
		WRV("27/0", 248),           /* (2^32 - 4294967000 + 200) / 2 = (296 + 200) / 2 */
		OKV("27/3", 10),            /* (30 - 10) / 2 */
		NOV("30/0", ST_NEW),        /* the driver loaded */
		NOV("30/3", ST_NEW),
		OKV("NMI/0", 0),            /* (1 - 1) / 2 */
		OKV("NMI/3", 2),            /* (6 - 2) / 2 */
		OKV("LOC/0", 200),          /* (1400 - 1000) / 2 */
		OKV("LOC/3", 50),           /* (2100 - 2000) / 2 */
		OKV("PMI/0", 2),            /* (11 - 7) / 2 */
		OKV("ERR/_Total", 2),       /* (7 - 3) / 2 */
		OKV("MIS/_Total", 0),
	};
	static const char *const names0[] = {
		"0/0",   "0/3",   "9/0",   "9/3",   "16/0",  "16/3",      "27/0",      "27/3",
		"NMI/0", "NMI/3", "LOC/0", "LOC/3", "PMI/0", "ERR/_Total", "MIS/_Total",
	};
	struct series s;

	(void)unused;
	series_load(&s, &provider_interrupt, "irq-basic", 2, ~(uint64_t)0);
	/* Columns are CPUs 0 and 3 (never 0 and 1); PMI has CPU 0's cell only;
	 * ERR and MIS are one instance each, outside any CPU sum. */
	assert_int_equal(s.rs[0].ninstances, ARRAY_SIZE(names0));
	for (size_t i = 0; i < ARRAY_SIZE(names0); i++)
		assert_string_equal(raw_name_at(&s.rs[0], i), names0[i]);
	assert_int_equal(s.rs[1].ninstances, ARRAY_SIZE(names0) + 2); /* + 30/0, 30/3 */
	assert_null(find(&s.rs[1], "PMI/3"));
	assert_null(find(&s.rs[1], "ERR/0"));
	assert_int_equal(raw_in_total(&s.rs[1], find(&s.rs[1], "ERR/_Total")), 0);
	assert_int_equal(raw_in_total(&s.rs[1], find(&s.rs[1], "MIS/_Total")), 0);
	assert_int_equal(raw_in_total(&s.rs[1], find(&s.rs[1], "LOC/3")), 1);
	/* The cells of one row share its identity. */
	assert_true(raw_identity(&s.rs[1], find(&s.rs[1], "27/0")) == raw_identity(&s.rs[1], find(&s.rs[1], "27/3")));
	assert_true(raw_identity(&s.rs[1], find(&s.rs[1], "27/0")) != raw_identity(&s.rs[1], find(&s.rs[1], "0/0")));
	assert_false(s.prov->set->has_total);
	CHECK_ALL(&s, 1, "Interrupts/sec", t1);
	series_free(&s);

	/* No requested counter: the file is not even read. */
	series_load(&s, &provider_interrupt, "irq-basic", 1, 0);
	assert_int_equal(s.rs[0].ninstances, 0);
	series_free(&s);
	/* No file (a fixture without it): no instances, no error. */
	series_load(&s, &provider_interrupt, "softnet-v3", 1, ~(uint64_t)0);
	assert_int_equal(s.rs[0].ninstances, 0);
	series_free(&s);
}

/*
 * irq-hotplug /proc/interrupts, dt = 2 s each: the header's CPUs change
 * under the same rows, so the names follow each read's header and a CPU's
 * counts follow it to another column:
 *   t0 "CPU0 CPU1":      0: 10 20        LONG: 1 2        LOC: 1000 2000
 *   t1 "CPU0 CPU2":      0: 14 30        LONG: 3 6        LOC: 1100 2200
 *   t2 "CPU0 CPU1 CPU2": 0: 16 40 32     LONG: 5 2 8      LOC: 1200 2300 2300
 * LONG is a 62-character row name: "LONG/0" does not fit the 64 bytes of a
 * name, so the name is cut to 61 characters, as for any CPU.
 */
static void
test_interrupt_hotplug(void **unused)
{
	static const char long_name[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHI";
	static const struct want t1[] = {
		OKV("0/0", 2),      /* (14 - 10) / 2 */
		NOV("0/2", ST_NEW), /* CPU 2 came online in CPU 1's column */
		OKV("LOC/0", 50),   /* (1100 - 1000) / 2 */
		NOV("LOC/2", ST_NEW),
	};
	static const struct want t2[] = {
		OKV("0/0", 1),        /* (16 - 14) / 2 */
		NOV("0/1", ST_NEW),   /* back, in its own column again */
		OKV("0/2", 1),        /* (32 - 30) / 2: from column 1 to column 2 */
		OKV("LOC/2", 50),     /* (2300 - 2200) / 2 */
	};
	char cut[64];
	struct series s;

	(void)unused;
	series_load(&s, &provider_interrupt, "irq-hotplug", 3, ~(uint64_t)0);
	static const char *const names[3][6] = {
		{ "0/0", "0/1", NULL, NULL, "LOC/0", "LOC/1" },
		{ "0/0", "0/2", NULL, NULL, "LOC/0", "LOC/2" },
		{ "0/0", "0/1", "0/2", NULL, NULL, NULL },
	};
	for (size_t r = 0; r < 3; r++)
		for (size_t i = 0; i < 6; i++)
			if (names[r][i])
				assert_non_null(find(&s.rs[r], names[r][i]));
	assert_int_equal(s.rs[0].ninstances, 6);
	assert_int_equal(s.rs[1].ninstances, 6);
	assert_int_equal(s.rs[2].ninstances, 9);
	assert_null(find(&s.rs[1], "0/1"));
	assert_non_null(find(&s.rs[2], "LOC/1"));
	/* the long row: cut to fit "/CPU" and the NUL, whichever the CPU */
	snprintf(cut, sizeof(cut), "%.61s/0", long_name);
	assert_string_equal(raw_name_at(&s.rs[0], 2), cut);
	snprintf(cut, sizeof(cut), "%.61s/2", long_name);
	assert_string_equal(raw_name_at(&s.rs[1], 3), cut);
	assert_string_equal(raw_name_at(&s.rs[2], 5), cut);
	CHECK_ALL(&s, 1, "Interrupts/sec", t1);
	CHECK_ALL(&s, 2, "Interrupts/sec", t2);
	series_free(&s);
}

/*
 * irq-basic /proc/softirqs, 4 possible CPUs, dt = 2 s:
 *           t0: CPU0 CPU1 CPU2 CPU3        t1: CPU0 CPU1 CPU2 CPU3
 *   TIMER       100  200  300  400             300  200  310  404
 *   NET_RX      1000 2000 5    0               1100 2600 5    0
 *   RCU         900  800  700  4294967290      900  800  700  4
 *   (the other rows do not change)
 */
static void
test_softirq_provider(void **unused)
{
	static const struct want t1[] = {
		OKV("TIMER/0", 100),    /* (300 - 100) / 2 */
		OKV("TIMER/1", 0),      /* (200 - 200) / 2 */
		OKV("TIMER/2", 5),      /* (310 - 300) / 2 */
		OKV("TIMER/3", 2),      /* (404 - 400) / 2 */
		OKV("NET_RX/0", 50),    /* (1100 - 1000) / 2 */
		OKV("NET_RX/1", 300),   /* (2600 - 2000) / 2 */
		OKV("NET_RX/2", 0),
		OKV("HI/0", 0),
		OKV("RCU/0", 0),
		WRV("RCU/3", 5),        /* (2^32 - 4294967290 + 4) / 2 = (6 + 4) / 2 */
	};
	static const char *const types[] = { "HI",  "TIMER",    "NET_TX",  "NET_RX", "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };
	struct series s;
	char name[32];

	(void)unused;
	series_load(&s, &provider_softirq, "irq-basic", 2, ~(uint64_t)0);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(s.rs[i].ninstances, 40); /* 10 types x 4 CPUs */
		for (size_t t = 0; t < ARRAY_SIZE(types); t++)
			for (unsigned c = 0; c < 4; c++) {
				snprintf(name, sizeof(name), "%s/%u", types[t], c);
				assert_string_equal(raw_name_at(&s.rs[i], t * 4 + c), name);
			}
	}
	assert_string_equal(s.prov->set->name, "Softirq");
	CHECK_ALL(&s, 1, "Softirqs/sec", t1);
	static const struct want t0[] = { NOV("NET_RX/0", ST_FIRST) };
	CHECK_ALL(&s, 0, "Softirqs/sec", t0);
	series_free(&s);

	series_load(&s, &provider_softirq, "irq-basic", 1, 0);
	assert_int_equal(s.rs[0].ninstances, 0);
	series_free(&s);
}

/*
 * irq-overflow, CPUs 0 and 1, dt = 2 s: a cell whose digits overflow uint64
 * (or are 2^64 - 1) is an instance without its count, UNSUPPORTED, never 0
 * (nor a rate against the other read):
 *   /proc/interrupts  t0: CPU0  CPU1               t1: CPU0  CPU1
 *     24                  100   18446744073709551616   300   500
 *     LOC                 1000  2000                   10^23 2400
 *     ERR                 3                            2^64 - 1
 *   /proc/softirqs
 *     NET_TX              10    10^20                  14    30
 *     NET_RX              100   200                    10^20 260
 */
static void
test_overflow(void **unused)
{
	static const struct want irq[] = {
		OKV("24/0", 100),                /* (300 - 100) / 2 */
		NOV("24/1", ST_UNSUPPORTED),     /* no count at t0 */
		NOV("LOC/0", ST_UNSUPPORTED),    /* no count at t1 */
		OKV("LOC/1", 200),               /* (2400 - 2000) / 2 */
		NOV("ERR/_Total", ST_UNSUPPORTED), /* no count at t1 */
	};
	static const struct want soft[] = {
		OKV("NET_TX/0", 2),              /* (14 - 10) / 2 */
		NOV("NET_TX/1", ST_UNSUPPORTED), /* no count at t0 */
		NOV("NET_RX/0", ST_UNSUPPORTED), /* no count at t1 */
		OKV("NET_RX/1", 30),             /* (260 - 200) / 2 */
	};
	static const struct want first[] = {
		{ "24/0", 0, ST_FIRST },
		NOV("24/1", ST_UNSUPPORTED),     /* never 0 */
		NOV("ERR/_Total", ST_FIRST),
	};
	struct series s;

	(void)unused;
	series_load(&s, &provider_interrupt, "irq-overflow", 2, ~(uint64_t)0);
	/* the cells are instances still, without the count */
	assert_non_null(find(&s.rs[0], "24/1"));
	assert_false(raw_present(&s.rs[0], find(&s.rs[0], "24/1")));
	assert_true(raw_present(&s.rs[0], find(&s.rs[0], "24/0")));
	assert_false(raw_present(&s.rs[1], find(&s.rs[1], "LOC/0")));
	assert_false(raw_present(&s.rs[1], find(&s.rs[1], "ERR/_Total")));
	CHECK_ALL(&s, 0, "Interrupts/sec", first);
	CHECK_ALL(&s, 1, "Interrupts/sec", irq);
	series_free(&s);

	series_load(&s, &provider_softirq, "irq-overflow", 2, ~(uint64_t)0);
	assert_false(raw_present(&s.rs[0], find(&s.rs[0], "NET_TX/1")));
	assert_false(raw_present(&s.rs[1], find(&s.rs[1], "NET_RX/0")));
	CHECK_ALL(&s, 1, "Softirqs/sec", soft);
	series_free(&s);
}

/* The help text of one row, squeezed, cut to fit, or nothing. */
static void
test_describe_row(void **unused)
{
	static const char desc[] = "PCI-MSI 512000-edge      ahci[0000:00:1f.2]";
	char buf[64];
	size_t len;

	(void)unused;
	len = interrupts_describe_row(buf, sizeof(buf), "27", 2, 1, desc, strlen(desc));
	assert_string_equal(buf, "(IRQ 27: PCI-MSI 512000-edge ahci[0000:00:1f.2])");
	assert_int_equal(len, strlen(buf));
	len = interrupts_describe_row(buf, sizeof(buf), "LOC", 3, 0, "Local  timer\tinterrupts",
				      23);
	assert_string_equal(buf, "(Local timer interrupts)");
	assert_int_equal(len, 24); /* 22 squeezed + 2 parentheses */
	/* a numbered row with nothing after its counts */
	interrupts_describe_row(buf, sizeof(buf), "5", 1, 1, "", 0);
	assert_string_equal(buf, "(IRQ 5)");
	/* ERR: nothing to say */
	assert_int_equal(interrupts_describe_row(buf, sizeof(buf), "ERR", 3, 0, "", 0), 0);
	/* cut to fit, still closed: 9 bytes = "(IRQ 27" + ")" + NUL */
	len = interrupts_describe_row(buf, 9, "27", 2, 1, desc, strlen(desc));
	assert_string_equal(buf, "(IRQ 27)");
	assert_int_equal(len, 8);
	assert_int_equal(interrupts_describe_row(buf, 1, "27", 2, 1, desc, strlen(desc)), 0);
}

/* The describe of instance inst by the Interrupt provider's state st. */
static const char *
describe_of(void *st, const char *inst, char *buf, size_t n)
{
	size_t len = provider_interrupt.describe(st, &provider_interrupt.set->counters[0], inst,
						 buf, n);

	if (len == 0)
		return NULL;
	assert_int_equal(len, strlen(buf));
	return buf;
}

/* describe on irq-basic: each instance's row as the last read saw it,
 * through reads t0, t1, t0 again (rows 16 and 30 change and go). */
static void
test_interrupt_describe(void **unused)
{
	const char *roots[] = { "../fixtures/irq-basic/t0", "../fixtures/irq-basic/t1",
				"../fixtures/irq-basic/t0" };
	struct procfs *fs = procfs_new(roots, 3);
	struct provider_ctx ctx = { fs, ~(uint64_t)0 };
	struct err err = { "" };
	struct raw_set rs;
	char buf[256];
	void *st;

	(void)unused;
	assert_non_null(provider_interrupt.describe);
	assert_null(provider_softirq.describe); /* softirq rows have no text */
	raw_set_init(&rs, provider_interrupt.set);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	st = provider_interrupt.open(&ctx, &err);
	assert_non_null(st);
	for (size_t i = 0; i < 3; i++) {
		if (i)
			assert_int_equal(procfs_begin_read(fs, i, &err), 0);
		raw_set_begin(&rs);
		assert_int_equal(provider_interrupt.read(st, &rs, &err), 0);
		/* the same in every read */
		assert_string_equal(describe_of(st, "27/3", buf, sizeof(buf)),
				    "(IRQ 27: PCI-MSI 512000-edge ahci[0000:00:1f.2])");
		assert_string_equal(describe_of(st, "LOC/0", buf, sizeof(buf)),
				    "(Local timer interrupts)");
		assert_string_equal(describe_of(st, "LOC/_Total", buf, sizeof(buf)),
				    "(Local timer interrupts)");
		assert_string_equal(describe_of(st, "PMI/0", buf, sizeof(buf)),
				    "(Performance monitoring interrupts)");
		assert_string_equal(describe_of(st, "0/_Total", buf, sizeof(buf)),
				    "(IRQ 0: IO-APIC 2-edge timer)");
		/* t1 prints four blanks before 9-fasteoi: squeezed alike */
		assert_string_equal(describe_of(st, "9/3", buf, sizeof(buf)),
				    "(IRQ 9: IO-APIC 9-fasteoi acpi, i801_smbus)");
		assert_null(describe_of(st, "ERR/_Total", buf, sizeof(buf)));
		assert_null(describe_of(st, NULL, buf, sizeof(buf)));
		assert_null(describe_of(st, "77/0", buf, sizeof(buf)));
		assert_null(describe_of(st, "LOC", buf, sizeof(buf)));
		if (i == 1) {
			assert_string_equal(describe_of(st, "16/0", buf, sizeof(buf)),
					    "(IRQ 16: IO-APIC 16-fasteoi snd_hda_intel:card0)");
			assert_string_equal(describe_of(st, "30/_Total", buf, sizeof(buf)),
					    "(IRQ 30: PCI-MSI 524288-edge eth0)");
		} else {
			assert_string_equal(describe_of(st, "16/3", buf, sizeof(buf)),
					    "(IRQ 16: IO-APIC 16-fasteoi ehci_hcd:usb1)");
			assert_null(describe_of(st, "30/0", buf, sizeof(buf)));
		}
	}
	/* a small buffer: cut, still closed */
	assert_string_equal(describe_of(st, "LOC/0", buf, 8), "(Local)");
	provider_interrupt.close(st);
	raw_set_free(&rs);
	procfs_free(fs);
}

/* Set shapes: names exactly as COUNTERS.md spells them, help everywhere. */
static void
test_set_shape(void **unused)
{
	const struct counter_set *sets[] = { provider_interrupt.set, provider_softirq.set };

	(void)unused;
	assert_string_equal(sets[0]->name, "Interrupt");
	assert_non_null(counter_set_find(sets[0], "Interrupts/sec"));
	assert_non_null(counter_set_find(sets[1], "Softirqs/sec"));
	assert_ptr_equal(provider_find("Interrupt"), &provider_interrupt);
	assert_ptr_equal(provider_find("Softirq"), &provider_softirq);
	for (size_t i = 0; i < ARRAY_SIZE(sets); i++) {
		assert_true(sets[i]->multi_instance);
		assert_false(sets[i]->has_total);
		assert_non_null(sets[i]->help);
		for (size_t k = 0; k < sets[i]->ncounters; k++) {
			assert_non_null(sets[i]->counters[k].help);
			assert_int_equal(sets[i]->fields[0].width, FW_32);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_rows_x86),
		cmocka_unit_test(test_rows_overflow),
		cmocka_unit_test(test_rows_other),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_interrupt_hotplug),
		cmocka_unit_test(test_instance_name),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_interrupt_provider),
		cmocka_unit_test(test_softirq_provider),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_describe_row),
		cmocka_unit_test(test_interrupt_describe),
		cmocka_unit_test(test_set_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
