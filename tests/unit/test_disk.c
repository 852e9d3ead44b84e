/*
 * test_disk.c - the diskstats parser and the PhysicalDisk provider, end to
 * end through derive over the fixture series tests/fixtures/disk-*:
 *   disk-modern  17-field lines with sys/block: every counter by hand, _Total,
 *                partitions, dm, md, size 0, hidden and removable-empty left out
 *   disk-wrap    32-bit ms fields that wrap (WRAPPED) or fall past the bound
 *                (RESET), a 64-bit sector count that goes backwards (RESET)
 *   disk-appear  loop and removable devices that appear, a disk that vanishes,
 *                a re-attached loop device (new diskseq: RESET)
 *   disk-old     no sys/: partitions by name, 4-, 11-, 15- and 17-field lines
 * Every root's proc/uptime advances 2.00 s, so dt = 2 throughout.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "derive.h"
#include "diskstats.h"
#include "provider.h"

extern const struct provider provider_physicaldisk;

#define MAX_ROOTS 5
#define DT 2.0
#define BIT(f) ((uint64_t)1 << (f))

/* A fixture series read through the provider, one raw_set per root. */
struct series {
	struct procfs *fs;
	void *state;
	size_t n;
	struct raw_set rs[MAX_ROOTS];
	struct derive_env env;
};

static const struct counter_set *
disk_set(void)
{
	return provider_physicaldisk.set;
}

/* Read roots ../fixtures/NAME/t0 .. t(n-1) with one provider state, as the
 * engine does. needed 0 asks for every field. */
static void
series_load(struct series *s, const char *name, size_t n, uint64_t needed)
{
	char paths[MAX_ROOTS][128];
	const char *roots[MAX_ROOTS];
	struct err err = { { 0 } };

	assert_true(n <= MAX_ROOTS);
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "../fixtures/%s/t%zu", name, i);
		roots[i] = paths[i];
	}
	s->fs = procfs_new(roots, n);
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(procfs_begin_read(s->fs, i, &err), 0);
		if (i == 0) {
			struct provider_ctx ctx = { .fs = s->fs, .needed = needed };
			s->state = provider_physicaldisk.open(&ctx, &err);
			assert_non_null(s->state);
		}
		raw_set_init(&s->rs[i], disk_set());
		raw_set_begin(&s->rs[i]);
		if (provider_physicaldisk.read(s->state, &s->rs[i], &err) != 0)
			fail_msg("read of %s failed: %s", roots[i], err.msg);
	}
	s->env = (struct derive_env){ .dt = DT, .wall_s = 0, .user_hz = 100, .ulong_bits = 64 };
}

static void
series_free(struct series *s)
{
	provider_physicaldisk.close(s->state);
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

static const struct counter_desc *
counter(const char *name)
{
	const struct counter_desc *c = counter_set_find(disk_set(), name);
	if (!c)
		fail_msg("no counter '%s'", name);
	return c;
}

/* The value of inst's counter over the interval ending at root i, paired by
 * name as the engine pairs (absent before: NEW). */
static struct value
value_at(struct series *s, size_t i, const char *inst, const char *name)
{
	const struct raw_instance *cur = find(&s->rs[i], inst);
	const struct raw_instance *prev = i ? find(&s->rs[i - 1], inst) : NULL;
	FIELD_DELTAS_DECLARE(d);

	if (!cur)
		fail_msg("no instance %s in root %zu", inst, i);
	if (!prev)
		return derive_value(&s->rs[i], counter(name), cur, NULL, i ? ST_NEW : ST_FIRST,
				    &s->env);
	derive_deltas(&s->rs[i - 1], prev, &s->rs[i], cur, &s->env, &d);
	return derive_value(&s->rs[i], counter(name), cur, &d, ST_OK, &s->env);
}

/* _Total of a counter over the interval ending at root i. */
static struct value
total_at(struct series *s, size_t i, const char *name)
{
	const struct raw_set *rs = &s->rs[i];
	const struct raw_instance *cur[16];
	const struct field_deltas *dp[16];
	FIELD_DELTAS_ARRAY(d, 16);
	uint8_t pst[16];
	size_t n = 0;

	for (size_t k = 0; k < rs->ninstances; k++) {
		const struct raw_instance *prev = find(&s->rs[i - 1], raw_name_at(rs, k));
		if (!raw_in_total_at(rs, k))
			continue;
		assert_true(n < 16);
		cur[n] = &rs->inst[k];
		dp[n] = NULL;
		pst[n] = ST_NEW;
		if (prev) {
			derive_deltas(&s->rs[i - 1], prev, rs, cur[n], &s->env, &d[n]);
			dp[n] = &d[n];
			pst[n] = ST_OK;
		}
		n++;
	}
	return derive_total(rs, counter(name), cur, dp, pst, n, &s->env);
}

/* Assert the status st and, for OK and WRAPPED, the value want within 1e-9
 * relative. */
static void
check(struct value got, enum value_status st, double want, const char *what)
{
	if (got.status != st)
		fail_msg("%s: status %s, want %s", what, status_name(got.status),
			 status_name(st));
	if (st != ST_OK && st != ST_WRAPPED)
		return;
	if (!isfinite(got.v) || fabs(got.v - want) > 1e-9 * (fabs(want) > 1 ? fabs(want) : 1))
		fail_msg("%s: %.12g, want %.12g", what, got.v, want);
}

static void
check_at(struct series *s, size_t i, const char *inst, const char *name, enum value_status st,
	 double want)
{
	char what[160];
	snprintf(what, sizeof(what), "t%zu %s %s", i, inst, name);
	check(value_at(s, i, inst, name), st, want, what);
}

static void
check_total(struct series *s, size_t i, const char *name, enum value_status st, double want)
{
	char what[160];
	snprintf(what, sizeof(what), "t%zu _Total %s", i, name);
	check(total_at(s, i, name), st, want, what);
}

/* The instances of rs are exactly names (in order), NULL-terminated. */
static void
check_instances(const struct raw_set *rs, const char *const *names)
{
	size_t n = 0;
	for (; names[n]; n++) {
		if (n >= rs->ninstances)
			fail_msg("instance %zu: none, want %s", n, names[n]);
		if (strcmp(raw_name_at(rs, n), names[n]) != 0)
			fail_msg("instance %zu: %s, want %s", n, raw_name_at(rs, n), names[n]);
	}
	if (rs->ninstances != n)
		fail_msg("%zu instances, want %zu (extra: %s)", rs->ninstances, n,
			 raw_name_at(rs, n));
}

/* ---- the parser ---------------------------------------------------------- */

static int
parse(const char *line, struct diskstats_line *dl)
{
	return diskstats_parse_line(line, strlen(line), dl);
}

static void
test_parse_17(void **unused)
{
	struct diskstats_line dl;
	(void)unused;
	assert_int_equal(parse(" 259       0 nvme0n1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17",
			       &dl), 0);
	assert_int_equal(dl.major, 259);
	assert_int_equal(dl.minor, 0);
	assert_int_equal(dl.name_len, 7);
	assert_memory_equal(dl.name, "nvme0n1", 7);
	assert_int_equal(dl.nfields, 17);
	assert_int_equal(dl.present, 0x1FFFF); /* 17 bits */
	for (unsigned i = 0; i < DS_NFIELDS; i++)
		assert_int_equal(dl.values[i], i + 1);
	assert_int_equal(dl.values[DS_MS_FLUSHING], 17);
}

static void
test_parse_4(void **unused)
{
	struct diskstats_line dl;
	(void)unused;
	/* 2.6 partition line: reads, sectors read, writes, sectors written */
	assert_int_equal(parse("   8    1 sda1 10 20 30 40", &dl), 0);
	assert_int_equal(dl.nfields, 4);
	assert_int_equal(dl.present, BIT(DS_READS) | BIT(DS_SECTORS_READ) | BIT(DS_WRITES) |
					     BIT(DS_SECTORS_WRITTEN));
	assert_int_equal(dl.values[DS_READS], 10);
	assert_int_equal(dl.values[DS_SECTORS_READ], 20);
	assert_int_equal(dl.values[DS_WRITES], 30);
	assert_int_equal(dl.values[DS_SECTORS_WRITTEN], 40);
	assert_int_equal(dl.values[DS_READS_MERGED], 0);
	assert_int_equal(dl.values[DS_MS_READING], 0);
}

static void
test_parse_11_15_20(void **unused)
{
	struct diskstats_line dl;
	(void)unused;
	assert_int_equal(parse("8 0 sda 1 2 3 4 5 6 7 8 9 10 11", &dl), 0);
	assert_int_equal(dl.nfields, 11);
	assert_int_equal(dl.present, 0x7FF); /* fields 0..10 */
	assert_int_equal(dl.values[DS_TIME_IN_QUEUE], 11);
	assert_int_equal(dl.values[DS_DISCARDS], 0);

	assert_int_equal(parse("8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", &dl), 0);
	assert_int_equal(dl.nfields, 15);
	assert_int_equal(dl.present, 0x7FFF); /* fields 0..14 */
	assert_int_equal(dl.values[DS_MS_DISCARDING], 15);
	assert_int_equal(dl.values[DS_FLUSHES], 0);

	/* A later kernel's extra fields are counted and ignored. */
	assert_int_equal(parse("8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
			       &dl), 0);
	assert_int_equal(dl.nfields, 20);
	assert_int_equal(dl.present, 0x1FFFF);
	assert_int_equal(dl.values[DS_MS_FLUSHING], 17);

	/* Tabs, a trailing blank, a cciss name, the largest value. */
	assert_int_equal(parse("104\t0\tcciss/c0d0\t18446744073709551615 0 0 0 ", &dl), 0);
	assert_int_equal(dl.name_len, 10);
	assert_memory_equal(dl.name, "cciss/c0d0", 10);
	assert_true(dl.values[DS_READS] == UINT64_MAX);
}

static void
test_parse_bad(void **unused)
{
	struct diskstats_line dl;
	(void)unused;
	assert_int_equal(parse("", &dl), -1);
	assert_int_equal(parse("8 0", &dl), -1);
	assert_int_equal(parse("8 0 sda", &dl), -1);              /* no stat field */
	assert_int_equal(parse("8 0 sda 1 2 3", &dl), -1);        /* 3 fields */
	assert_int_equal(parse("8 0 sda 1 2 3 4 5 6 7", &dl), -1); /* 7 fields */
	assert_int_equal(parse("8 0 sda 1 2 3 4 5 6 7 8 9 10", &dl), -1); /* 10 */
	assert_int_equal(parse("8 0 sda 1 2 x 4", &dl), -1);
	assert_int_equal(parse("8 0 sda 1 2 3 4x", &dl), -1);
	assert_int_equal(parse("8 0 sda 1 -2 3 4", &dl), -1);
	assert_int_equal(parse("x 0 sda 1 2 3 4", &dl), -1);
	assert_int_equal(parse("8x 0 sda 1 2 3 4", &dl), -1);
	/* The line ends at len: what follows is not read. */
	assert_int_equal(diskstats_parse_line("8 0 sda 1 2 3 4 5 6", 15, &dl), 0);
	assert_int_equal(dl.nfields, 4);
	/* The numbers alone (LogicalDisk's look at a line), as the parser
	 * reads them, whatever follows them. */
	unsigned int ma = 0, mi = 0;
	const char *odd = " 259   1 nvme0n1p1 oops";
	assert_int_equal(diskstats_line_devt(odd, strlen(odd), &ma, &mi), 0);
	assert_int_equal(ma, 259);
	assert_int_equal(mi, 1);
	assert_int_equal(diskstats_line_devt("8", 1, &ma, &mi), -1);
	assert_int_equal(diskstats_line_devt("8x 0 sda", 8, &ma, &mi), -1);
	assert_int_equal(diskstats_line_devt("4294967296 0 sda", 16, &ma, &mi), -1);
	assert_int_equal(diskstats_line_devt("8 0 sda", 2, &ma, &mi), -1); /* ends at len */
}

/* ---- disk-modern ---------------------------------------------------------- */

/* Every counter of the set with its expected value for sda, nvme0n1 and
 * _Total over t0 -> t1 (dt = 2 s). Deltas:
 *            reads rmrg sect_r ms_r writes wmrg sect_w ms_w infl(t1) io_ticks tiq
 *   sda       200   20   4000  300   100    10   8000  500    3        600    900
 *   nvme0n1   600    0   6000  150   300    30   3000  450    0       1800    700
 *            discards dmrg sect_d ms_d flushes ms_f
 *   sda          4      1   2048   40     10     30
 *   nvme0n1      0      0      0    0     30    150
 */
struct expect {
	const char *name;
	double sda, nvme, total;
};

static const struct expect modern[] = {
	{ "Disk Reads/sec", 100, 300, 400 },            /* 200/2; 600/2; 800/2 */
	{ "Disk Writes/sec", 50, 150, 200 },            /* 100/2; 300/2; 400/2 */
	{ "Disk Transfers/sec", 150, 450, 600 },        /* 300/2; 900/2; 1200/2 */
	{ "Disk Read Bytes/sec", 1024000, 1536000, 2560000 },
	/* 4000*512/2; 6000*512/2; 10000*512/2 */
	{ "Disk Write Bytes/sec", 2048000, 768000, 2816000 },
	/* 8000*512/2; 3000*512/2; 11000*512/2 */
	{ "Disk Bytes/sec", 3072000, 2304000, 5376000 },
	/* 12000*512/2; 9000*512/2; 21000*512/2 */
	{ "Avg. Disk Bytes/Read", 10240, 5120, 6400 },
	/* 4000*512/200; 6000*512/600; 10000*512/800 (weighted, not (10240+5120)/2) */
	{ "Avg. Disk Bytes/Write", 40960, 5120, 14080 },
	/* 8000*512/100; 3000*512/300; 11000*512/400 */
	{ "Avg. Disk Bytes/Transfer", 20480, 5120, 8960 },
	/* 12000*512/300; 9000*512/900; 21000*512/1200 */
	{ "Avg. Disk sec/Read", 0.0015, 0.00025, 0.0005625 },
	/* 300*0.001/200; 150*0.001/600; 450*0.001/800 */
	{ "Avg. Disk sec/Write", 0.005, 0.0015, 0.002375 },
	/* 500*0.001/100; 450*0.001/300; 950*0.001/400 */
	{ "Avg. Disk sec/Transfer", 0.8 / 300, 0.6 / 900, 1.4 / 1200 },
	/* 800*0.001/300; 600*0.001/900; 1400*0.001/1200 */
	{ "Avg. Disk Read Queue Length", 0.15, 0.075, 0.225 },
	/* 300*0.001/2; 150*0.001/2; 450*0.001/2 (sum) */
	{ "Avg. Disk Write Queue Length", 0.25, 0.225, 0.475 },
	/* 500*0.001/2; 450*0.001/2; 950*0.001/2 */
	{ "Avg. Disk Queue Length", 0.4, 0.3, 0.7 },
	/* 800*0.001/2; 600*0.001/2; 1400*0.001/2 */
	{ "% Disk Time", 40, 30, 70 },            /* 800*0.1/2; 600*0.1/2; 1400*0.1/2 (sum) */
	{ "% Disk Read Time", 15, 7.5, 22.5 },    /* 300*0.1/2; 150*0.1/2; 450*0.1/2 */
	{ "% Disk Write Time", 25, 22.5, 47.5 },  /* 500*0.1/2; 450*0.1/2; 950*0.1/2 */
	{ "% Idle Time", 70, 10, 40 },
	/* 100*(1-600*0.001/2); 100*(1-1800*0.001/2); mean: 100*(1-(2400/2)*0.001/2) */
	{ "Current Disk Queue Length", 3, 0, 3 }, /* t1 in progress 3; 0; 3+0 */
	{ "Avg. Disk Queue Size", 0.45, 0.35, 0.8 },
	/* 900*0.001/2; 700*0.001/2; 1600*0.001/2 */
	{ "% Disk Busy Time", 30, 90, 60 },
	/* 100*600*0.001/2; 100*1800*0.001/2; mean: 100*(2400/2)*0.001/2 */
	{ "Merged Reads/sec", 10, 0, 10 },        /* 20/2; 0/2; 20/2 */
	{ "Merged Writes/sec", 5, 15, 20 },       /* 10/2; 30/2; 40/2 */
	{ "Discards/sec", 2, 0, 2 },              /* 4/2; 0/2; 4/2 */
	{ "Discard Bytes/sec", 524288, 0, 524288 }, /* 2048*512/2; 0; 2048*512/2 */
	{ "Avg. Disk sec/Discard", 0.01, 0, 0.01 },
	/* 40*0.001/4; no discards: 0; 40*0.001/4 */
	{ "Flushes/sec", 5, 15, 20 },             /* 10/2; 30/2; 40/2 */
	{ "Avg. Disk sec/Flush", 0.003, 0.005, 0.0045 },
	/* 30*0.001/10; 150*0.001/30; 180*0.001/40 (not (0.003+0.005)/2) */
};

static void
test_modern_every_counter(void **unused)
{
	struct series s;
	(void)unused;
	series_load(&s, "disk-modern", 2, 0);

	/* The set lists exactly these counters, and each is checked here. */
	assert_int_equal(disk_set()->ncounters, ARRAY_SIZE(modern));
	for (size_t k = 0; k < disk_set()->ncounters; k++) {
		const struct counter_desc *c = &disk_set()->counters[k];
		int found = 0;
		for (size_t j = 0; j < ARRAY_SIZE(modern); j++)
			found |= strcmp(modern[j].name, c->name) == 0;
		if (!found)
			fail_msg("counter '%s' has no expected value", c->name);
		assert_non_null(c->help);
		assert_non_null(c->unit);
	}
	for (size_t j = 0; j < ARRAY_SIZE(modern); j++) {
		const struct expect *e = &modern[j];
		check_at(&s, 1, "sda", e->name, ST_OK, e->sda);
		check_at(&s, 1, "nvme0n1", e->name, ST_OK, e->nvme);
		check_total(&s, 1, e->name, ST_OK, e->total);
	}
	series_free(&s);
}

static void
test_modern_instances(void **unused)
{
	static const char *const want[] = { "sda", "nvme0n1", NULL };
	struct series s;
	(void)unused;
	series_load(&s, "disk-modern", 2, 0);
	assert_string_equal(disk_set()->name, "PhysicalDisk");
	assert_true(disk_set()->multi_instance);
	assert_true(disk_set()->has_total);
	/* Left out: sda1, sda2, nvme0n1p1 (sys/class/block/X/partition), dm-0,
	 * md0, loop0 and sdb (size 0), nvme1c1n1 (hidden 1), sr0 (removable,
	 * size 0). */
	check_instances(&s.rs[0], want);
	check_instances(&s.rs[1], want);
	/* dev_t 8:0 mixed with diskseq 1; nvme0n1 has no diskseq: dev_t 259:0 */
	assert_true(raw_identity(&s.rs[1], find(&s.rs[1], "sda")) == (((uint64_t)8 << 20) ^ ((uint64_t)1 << 32)));
	assert_true(raw_identity(&s.rs[1], find(&s.rs[1], "nvme0n1")) == (uint64_t)259 << 20);
	assert_true(raw_in_total(&s.rs[1], find(&s.rs[1], "sda")));
	/* A snapshot (one read) has RAW values and no rates. */
	check(derive_value(&s.rs[0], counter("Current Disk Queue Length"), find(&s.rs[0], "sda"),
			   NULL, ST_OK, &s.env),
	      ST_OK, 1, "t0 sda Current Disk Queue Length"); /* t0 in progress 1 */
	check(derive_value(&s.rs[0], counter("Disk Reads/sec"), find(&s.rs[0], "sda"), NULL,
			   ST_OK, &s.env),
	      ST_BAD_TIME, 0, "t0 sda snapshot rate");
	series_free(&s);
}

/* Only the fields some counter needs are recorded; a ms field brings I/Os in
 * progress along, for its wrap bound. */
static void
test_modern_needed(void **unused)
{
	struct series s;
	(void)unused;
	/* The whole line is parsed anyway: every field is recorded, whatever
	 * counters were asked for, so a reset in any field is seen. */
	series_load(&s, "disk-modern", 2, BIT(DS_READS));
	assert_true(raw_present(&s.rs[1], find(&s.rs[1], "sda")) == ((1u << 17) - 1));
	check_at(&s, 1, "sda", "Disk Reads/sec", ST_OK, 100); /* 200/2 */
	series_free(&s);

	series_load(&s, "disk-modern", 2, BIT(DS_MS_WRITING) | BIT(DS_WRITES));
	check_at(&s, 1, "sda", "Avg. Disk sec/Write", ST_OK, 0.005); /* 500*0.001/100 */
	series_free(&s);

	/* disk-wrap t2 -> t3: sdb's sectors read go backwards. Asking only for
	 * Disk Reads/sec (reads rose) must still give RESET: COUNTERS.md 1,
	 * "a RESET of any field resets the whole instance". */
	series_load(&s, "disk-wrap", 4, BIT(DS_READS));
	check_at(&s, 3, "sdb", "Disk Reads/sec", ST_RESET, 0);
	series_free(&s);
}

/* ---- disk-wrap ------------------------------------------------------------ */

static void
test_wrap(void **unused)
{
	struct series s;
	(void)unused;
	series_load(&s, "disk-wrap", 5, 0);

	/* t0 -> t1: sda ms writing 4294967000 -> 204 wrapped: corrected
	 * 2^32 - 4294967000 + 204 = 296 + 204 = 500 < bound 2*1000*(1+0) */
	check_at(&s, 1, "sda", "Avg. Disk sec/Write", ST_WRAPPED, 0.005); /* 500*0.001/100 */
	check_at(&s, 1, "sda", "% Disk Write Time", ST_WRAPPED, 25);      /* 500*0.1/2 */
	check_at(&s, 1, "sda", "% Disk Time", ST_WRAPPED, 35);  /* (200+500)*0.1/2 */
	check_at(&s, 1, "sda", "% Disk Read Time", ST_OK, 10);  /* 200*0.1/2: no wrap in it */
	check_at(&s, 1, "sda", "Disk Writes/sec", ST_OK, 50);   /* 100/2 */
	check_at(&s, 1, "sdb", "% Disk Write Time", ST_OK, 64.8); /* 1296*0.1/2 */
	/* _Total: sda 500 (corrected) + sdb 1296, (500+1296)*0.001/(100+100) */
	check_total(&s, 1, "Avg. Disk sec/Write", ST_WRAPPED, 1.796 / 200);
	check_total(&s, 1, "Disk Reads/sec", ST_OK, 150); /* (100+200)/2 */

	/* t1 -> t2: sda ms reading 4294958200 -> 10000: corrected
	 * 2^32 - 4294958200 + 10000 = 9096 + 10000 = 19096 < 2^31 but above the
	 * bound 2*1000*(1+max(0,2)) = 6000: RESET, every two-read counter. */
	check_at(&s, 2, "sda", "Avg. Disk sec/Read", ST_RESET, 0);
	check_at(&s, 2, "sda", "Disk Reads/sec", ST_RESET, 0);
	check_at(&s, 2, "sda", "Disk Write Bytes/sec", ST_RESET, 0);
	check_at(&s, 2, "sda", "% Idle Time", ST_RESET, 0);
	check_at(&s, 2, "sda", "Current Disk Queue Length", ST_OK, 2); /* RAW: t2 in progress */
	/* sdb ms writing 4294966296 -> 3000: corrected 1000 + 3000 = 4000, above
	 * 2*1000*1 but below the bound 2*1000*(1+max(0,4)) = 10000: WRAPPED. */
	check_at(&s, 2, "sdb", "% Disk Write Time", ST_WRAPPED, 200); /* 4000*0.1/2 */
	check_at(&s, 2, "sdb", "Avg. Disk sec/Write", ST_WRAPPED, 0.04); /* 4000*0.001/100 */
	/* _Total leaves the RESET sda out: sdb alone */
	check_total(&s, 2, "Disk Reads/sec", ST_OK, 100);    /* 200/2 */
	check_total(&s, 2, "% Idle Time", ST_OK, 75);        /* 100*(1-500*0.001/2), mean of 1 */
	check_total(&s, 2, "Avg. Disk sec/Write", ST_WRAPPED, 0.04); /* 4000*0.001/100 */
	check_total(&s, 2, "Current Disk Queue Length", ST_OK, 6);  /* RAW 2+4 */

	/* t2 -> t3: sda is fine again; sdb sectors read 34000 -> 1000, a 64-bit
	 * (ulong on a 64-bit kernel) field going backwards: RESET. */
	check_at(&s, 3, "sda", "Avg. Disk sec/Read", ST_OK, 0.002); /* 200*0.001/100 */
	check_at(&s, 3, "sda", "Disk Read Bytes/sec", ST_OK, 204800); /* 800*512/2 */
	check_at(&s, 3, "sdb", "Disk Read Bytes/sec", ST_RESET, 0);
	check_at(&s, 3, "sdb", "Disk Reads/sec", ST_RESET, 0);
	check_at(&s, 3, "sdb", "Avg. Disk sec/Write", ST_RESET, 0);
	check_total(&s, 3, "Disk Read Bytes/sec", ST_OK, 204800); /* sda alone: 800*512/2 */
	check_total(&s, 3, "% Disk Busy Time", ST_OK, 20); /* sda alone: 100*400*0.001/2 */

	/* t3 -> t4: sdb fine again from its new reference 1000 -> 3000 */
	check_at(&s, 4, "sdb", "Disk Read Bytes/sec", ST_OK, 512000); /* 2000*512/2 */
	check_at(&s, 4, "sdb", "Avg. Disk Bytes/Read", ST_OK, 5120);  /* 2000*512/200 */
	check_at(&s, 4, "sdb", "Avg. Disk sec/Write", ST_OK, 0.005);  /* 500*0.001/100 */
	/* sda 800 + sdb 2000 sectors: 2800*512/2 */
	check_total(&s, 4, "Disk Read Bytes/sec", ST_OK, 716800);
	/* io_ticks 400 and 500: mean 450 -> 100*(1-0.45/2) */
	check_total(&s, 4, "% Idle Time", ST_OK, 77.5);
	check_total(&s, 4, "% Disk Busy Time", ST_OK, 22.5); /* 100*0.45/2 */
	series_free(&s);
}

/* On a 32-bit kernel the ulong fields are 32 bits wide: a sector count that
 * falls from 34000 to 1000 would need a delta of 2^32 - 33000 > 2^31, so it
 * is still a RESET, not a wrap. */
static void
test_wrap_ulong32(void **unused)
{
	struct series s;
	(void)unused;
	series_load(&s, "disk-wrap", 5, 0);
	s.env.ulong_bits = 32;
	check_at(&s, 3, "sdb", "Disk Read Bytes/sec", ST_RESET, 0);
	check_at(&s, 1, "sda", "Avg. Disk sec/Write", ST_WRAPPED, 0.005); /* as above */
	series_free(&s);
}

/* ---- disk-bad ------------------------------------------------------------- */

/* A line that is not one names no disk: a later line of the same name
 * stands (t0's second sda), and a disk whose line is broken is absent for
 * that read (t0's sdb, t1's sdc), its fields parsed only once the disk is
 * known to be shown. */
static void
test_bad_lines(void **unused)
{
	static const char *const t0[] = { "sda", "sdc", NULL };
	static const char *const t1[] = { "sda", "sdb", NULL };
	struct series s;
	(void)unused;
	series_load(&s, "disk-bad", 2, 0);

	check_instances(&s.rs[0], t0);
	check_instances(&s.rs[1], t1);
	/* sda from its well-formed line: (110 - 100) reads over 2 s */
	check_at(&s, 1, "sda", "Disk Reads/sec", ST_OK, 5);
	check_at(&s, 1, "sdb", "Disk Reads/sec", ST_NEW, 0);
	series_free(&s);
}

/* ---- disk-appear ---------------------------------------------------------- */

static void
test_appear(void **unused)
{
	static const char *const t0[] = { "sda", "sdb", "loop1", NULL };
	static const char *const t1[] = { "sda", "sdb", "loop0", "loop1", "sr0", NULL };
	static const char *const t2[] = { "sda", "loop0", "loop1", "sr0", NULL };
	struct series s;
	(void)unused;
	series_load(&s, "disk-appear", 3, 0);

	/* t0: loop0 and sr0 have size 0, zram0 too: left out. t1: loop0 attached
	 * (size 131072) and media in sr0 (removable, size 2097152). t2: sdb gone. */
	check_instances(&s.rs[0], t0);
	check_instances(&s.rs[1], t1);
	check_instances(&s.rs[2], t2);

	/* loop0 appears at t1: NEW, no rate; RAW has its value. */
	check_at(&s, 1, "loop0", "Disk Write Bytes/sec", ST_NEW, 0);
	check_at(&s, 1, "loop0", "Current Disk Queue Length", ST_NEW, 0);
	assert_true(value_at(&s, 1, "loop0", "Current Disk Queue Length").v == 1); /* t1: 1 */
	check_at(&s, 1, "sr0", "Disk Reads/sec", ST_NEW, 0);
	/* its identity took the diskseq read when it got its size: 10, not 9 */
	assert_true(raw_identity(&s.rs[1], find(&s.rs[1], "loop0")) ==
		    ((((uint64_t)7 << 20) | 0) ^ ((uint64_t)10 << 32)));
	/* _Total over the pairs sda, sdb, loop1 (loop0, sr0 are NEW):
	 * reads (100 + 10 + 10)/2 */
	check_total(&s, 1, "Disk Reads/sec", ST_OK, 60);
	check_at(&s, 1, "loop1", "Disk Reads/sec", ST_OK, 5); /* (60-50)/2 */
	/* RAW _Total counts every instance: 0 + 0 + 1 + 0 + 0 */
	check_total(&s, 1, "Current Disk Queue Length", ST_OK, 1);

	/* t1 -> t2: loop0 wrote 16 MiB: (34816-2048)*512/2 */
	check_at(&s, 2, "loop0", "Disk Write Bytes/sec", ST_OK, 8388608);
	check_at(&s, 2, "loop0", "Disk Writes/sec", ST_OK, 100);        /* 200/2 */
	check_at(&s, 2, "loop0", "Avg. Disk Bytes/Write", ST_OK, 83886.08); /* 32768*512/200 */
	check_at(&s, 2, "sr0", "Disk Read Bytes/sec", ST_OK, 20480);    /* 80*512/2 */
	/* loop1 re-attached: size 2048 -> 4096 made us re-read its diskseq, 3 -> 4:
	 * another identity, so RESET although no field went backwards past a wrap */
	assert_true(raw_identity(&s.rs[1], find(&s.rs[1], "loop1")) ==
		    ((((uint64_t)7 << 20) | 1) ^ ((uint64_t)3 << 32)));
	assert_true(raw_identity(&s.rs[2], find(&s.rs[2], "loop1")) ==
		    ((((uint64_t)7 << 20) | 1) ^ ((uint64_t)4 << 32)));
	check_at(&s, 2, "loop1", "Disk Reads/sec", ST_RESET, 0);
	/* _Total: sda 1000 + loop0 32768 + sr0 0 sectors written (loop1 RESET,
	 * sdb gone): 33768*512/2 */
	check_total(&s, 2, "Disk Write Bytes/sec", ST_OK, 8644608);
	/* sdb vanished: not read at t2 (the engine shows it NO_INSTANCE once) */
	assert_null(find(&s.rs[2], "sdb"));
	series_free(&s);
}

/* ---- disk-old -------------------------------------------------------------- */

static void
test_old(void **unused)
{
	static const char *const want[] = { "sda", "sdb", "sdc", "nvme0n1", "mmcblk0", "loop0",
					     "xvdz9", NULL };
	struct series s;
	(void)unused;
	series_load(&s, "disk-old", 2, 0);

	/* No sys/: sda1 (sda + N), sdb1, nvme0n1p2 (nvme0n1 + pN), mmcblk0p1,
	 * loop0p1 are partitions; md0 and dm-0 are left out; loop0 (no size to
	 * go by) and xvdz9 (no xvdz listed) are whole disks. */
	check_instances(&s.rs[0], want);
	check_instances(&s.rs[1], want);
	assert_true(raw_identity(&s.rs[1], find(&s.rs[1], "sda")) == ((uint64_t)8 << 20)); /* dev_t only */
	assert_true(raw_identity(&s.rs[1], find(&s.rs[1], "sdc")) == (((uint64_t)8 << 20) | 32));

	/* sda: 11 fields. Deltas reads 200, sect_r 4000, ms_r 200, io 200, tiq 400 */
	check_at(&s, 1, "sda", "Disk Reads/sec", ST_OK, 100);          /* 200/2 */
	check_at(&s, 1, "sda", "Disk Read Bytes/sec", ST_OK, 1024000); /* 4000*512/2 */
	check_at(&s, 1, "sda", "Avg. Disk sec/Read", ST_OK, 0.001);    /* 200*0.001/200 */
	check_at(&s, 1, "sda", "% Idle Time", ST_OK, 90);              /* 100*(1-0.2/2) */
	check_at(&s, 1, "sda", "Avg. Disk Queue Size", ST_OK, 0.2);    /* 400*0.001/2 */
	check_at(&s, 1, "sda", "Current Disk Queue Length", ST_OK, 1);
	check_at(&s, 1, "sda", "Discards/sec", ST_UNSUPPORTED, 0);
	check_at(&s, 1, "sda", "Avg. Disk sec/Discard", ST_UNSUPPORTED, 0);
	check_at(&s, 1, "sda", "Flushes/sec", ST_UNSUPPORTED, 0);

	/* sdb: 15 fields. Deltas reads 100, ms_r 400, discards 20, dmrg 2,
	 * sect_d 2000, ms_d 40 */
	check_at(&s, 1, "sdb", "Avg. Disk sec/Read", ST_OK, 0.004);     /* 400*0.001/100 */
	check_at(&s, 1, "sdb", "Discards/sec", ST_OK, 10);              /* 20/2 */
	check_at(&s, 1, "sdb", "Discard Bytes/sec", ST_OK, 512000);     /* 2000*512/2 */
	check_at(&s, 1, "sdb", "Avg. Disk sec/Discard", ST_OK, 0.002);  /* 40*0.001/20 */
	check_at(&s, 1, "sdb", "Flushes/sec", ST_UNSUPPORTED, 0);
	check_at(&s, 1, "sdb", "Avg. Disk sec/Flush", ST_UNSUPPORTED, 0);

	/* sdc: 4 fields (reads, sectors read, writes, sectors written).
	 * Deltas 400, 3200, 200, 1600 */
	check_at(&s, 1, "sdc", "Disk Reads/sec", ST_OK, 200);           /* 400/2 */
	check_at(&s, 1, "sdc", "Disk Read Bytes/sec", ST_OK, 819200);   /* 3200*512/2 */
	check_at(&s, 1, "sdc", "Disk Writes/sec", ST_OK, 100);          /* 200/2 */
	check_at(&s, 1, "sdc", "Disk Write Bytes/sec", ST_OK, 409600);  /* 1600*512/2 */
	check_at(&s, 1, "sdc", "Disk Transfers/sec", ST_OK, 300);       /* 600/2 */
	check_at(&s, 1, "sdc", "Avg. Disk Bytes/Read", ST_OK, 4096);    /* 3200*512/400 */
	check_at(&s, 1, "sdc", "Avg. Disk Bytes/Transfer", ST_OK, 4096); /* 4800*512/600 */
	check_at(&s, 1, "sdc", "Avg. Disk sec/Read", ST_UNSUPPORTED, 0);
	check_at(&s, 1, "sdc", "Avg. Disk Queue Length", ST_UNSUPPORTED, 0);
	check_at(&s, 1, "sdc", "Merged Reads/sec", ST_UNSUPPORTED, 0);
	check_at(&s, 1, "sdc", "Current Disk Queue Length", ST_UNSUPPORTED, 0);
	check_at(&s, 1, "sdc", "% Idle Time", ST_UNSUPPORTED, 0);
	check_at(&s, 1, "sdc", "% Disk Busy Time", ST_UNSUPPORTED, 0);

	/* nvme0n1: 17 fields, no change: rates 0, averages 0 (no operations) */
	check_at(&s, 1, "nvme0n1", "Disk Reads/sec", ST_OK, 0);
	check_at(&s, 1, "nvme0n1", "Avg. Disk sec/Flush", ST_OK, 0);
	check_at(&s, 1, "nvme0n1", "% Idle Time", ST_OK, 100); /* 100*(1-0/2) */

	/* _Total: reads sda 200 + sdb 100 + sdc 400 (+0s): 700/2 */
	check_total(&s, 1, "Disk Reads/sec", ST_OK, 350);
	/* sdc has no ms reading, so its reads stay out of the denominator:
	 * (200+400)*0.001/(200+100) */
	check_total(&s, 1, "Avg. Disk sec/Read", ST_OK, 0.002);
	/* only sdb and the 17-field disks have discards: (20+0+0+0)/2 */
	check_total(&s, 1, "Discards/sec", ST_OK, 10);
	check_total(&s, 1, "Flushes/sec", ST_OK, 0); /* 17-field disks, all 0 */
	check_total(&s, 1, "Avg. Disk sec/Flush", ST_OK, 0);
	/* mean over the six disks with io_ticks (not sdc): (200+100)/6 = 50 ms,
	 * 100*(1-0.05/2) */
	check_total(&s, 1, "% Idle Time", ST_OK, 97.5);
	check_total(&s, 1, "% Disk Busy Time", ST_OK, 2.5); /* 100*0.05/2 */
	series_free(&s);
}

/* A missing proc/diskstats fails the read with the file named. */
static void
test_missing_file(void **unused)
{
	/* a root without proc/: the tree's proc directory itself */
	const char *root = "../fixtures/disk-old/t0/proc";
	struct procfs *fs;
	struct err err = { { 0 } };
	struct raw_set rs;
	(void)unused;
	fs = procfs_new(&root, 1);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	struct provider_ctx ctx = { .fs = fs, .needed = 0 };
	void *st = provider_physicaldisk.open(&ctx, &err);
	assert_non_null(st);
	raw_set_init(&rs, disk_set());
	raw_set_begin(&rs);
	assert_int_equal(provider_physicaldisk.read(st, &rs, &err), -1);
	assert_non_null(strstr(err.msg, "proc/diskstats"));
	provider_physicaldisk.close(st);
	raw_set_free(&rs);
	procfs_free(fs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_17),
		cmocka_unit_test(test_parse_4),
		cmocka_unit_test(test_parse_11_15_20),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_modern_every_counter),
		cmocka_unit_test(test_modern_instances),
		cmocka_unit_test(test_modern_needed),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_wrap_ulong32),
		cmocka_unit_test(test_appear),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_old),
		cmocka_unit_test(test_missing_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
