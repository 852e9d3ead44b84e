/*
 * test_engine.c - engine_reopen, the screen's add-counter: on a bad path
 * the old engine is as it was and goes on reading; on success the new one
 * reads the sets taken over and the ones opened anew, and both engines
 * close cleanly (each state closed once: make asan checks). Live, on this
 * machine's /proc/meminfo (Memory is read on any Linux). Sets read in the
 * catalogue's order, so that a file two of them read is read once; a
 * frame's statuses kept only where a run's rows differ; an item's terms
 * formed again when a value passes 2^32; paths naming one instance each
 * among many found through the set's name index.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine.h"
#include "gc_test.h"

#define AVAIL "\\Memory\\Available MBytes"
#define COMMIT "\\Memory\\Committed Bytes"
#define UPTIME "\\System\\System Up Time"

static void
parse(struct config *cfg)
{
	char *argv[] = { "getcounter", NULL };
	struct err err;

	memset(&err, 0, sizeof(err));
	assert_int_equal(cli_parse(1, argv, cfg, &err), 0);
}

/* Prime e, then one frame: its rows (0 when the read gave no frame). */
static size_t
rows_of(struct engine *e, int prime, const char *want_path)
{
	const struct frame *f = NULL;
	struct err err;

	if (prime)
		assert_int_equal(engine_step(e, 0, 0, &f, &err), 0);
	assert_int_equal(engine_step(e, 0, 0, &f, &err), 0);
	assert_non_null(f);
	int found = 0;
	struct pathbuf pb = { 0 };
	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		const struct frame_row *r = frame_row_at(f, i, &tmp);
		if (strstr(frame_row_path(f, r, &pb), want_path) && r->status == ST_OK)
			found = 1;
	}
	free(pb.buf);
	assert_true(found);
	return f->nrows;
}

static void
test_reopen_bad_path_keeps_old(void **state)
{
	struct config cfg;
	struct err err;
	int rc;
	const char *paths[] = { AVAIL, "\\Nope(x)\\y" };

	(void)state;
	parse(&cfg);
	struct engine *e = engine_open(&cfg, paths, 1, &rc, &err);
	assert_non_null(e);
	assert_int_equal(rows_of(e, 1, "Available MBytes"), 1);
	assert_null(engine_reopen(e, &cfg, paths, 2, &rc, &err));
	assert_int_equal(rc, EXIT_USAGE);
	/* the old engine still reads: its set was not lost */
	assert_int_equal(rows_of(e, 0, "Available MBytes"), 1);
	engine_close(e);
	config_free(&cfg);
}

static void
test_reopen_takes_over(void **state)
{
	struct config cfg;
	struct err err;
	int rc;
	/* Memory again with the same field (taken over), and System (new) */
	const char *p1[] = { AVAIL };
	const char *p2[] = { AVAIL, UPTIME };
	/* Memory with one field more: opened anew */
	const char *p3[] = { AVAIL, UPTIME, COMMIT };

	(void)state;
	parse(&cfg);
	struct engine *e = engine_open(&cfg, p1, 1, &rc, &err);
	assert_non_null(e);
	assert_int_equal(rows_of(e, 1, "Available MBytes"), 1);
	struct engine *n = engine_reopen(e, &cfg, p2, 2, &rc, &err);
	assert_non_null(n);
	engine_close(e);
	assert_int_equal(rows_of(n, 1, "Available MBytes"), 2);
	assert_int_equal(rows_of(n, 0, "System Up Time"), 2);
	e = engine_reopen(n, &cfg, p3, 3, &rc, &err);
	assert_non_null(e);
	engine_close(n);
	assert_int_equal(rows_of(e, 1, "Committed Bytes"), 3);
	assert_int_equal(rows_of(e, 0, "Available MBytes"), 3);
	engine_close(e);
	config_free(&cfg);
}

/* Sets are read in the catalogue's order whatever the paths' order, so
 * that PhysicalDisk's pass over /proc/diskstats hands LogicalDisk its
 * lines: with LogicalDisk's path first, a sample still reads the file
 * once (a copy of ldisk-basic/t0 whose diskstats has 3,000 more lines, so
 * that the file is most of what a sample reads). */
static void
test_sets_in_catalog_order(void **state)
{
	char root[128];
	struct config cfg;
	struct err err;
	int rc;
	const char *paths[] = { "\\LogicalDisk(*)\\Disk Reads/sec",
				"\\PhysicalDisk(*)\\Disk Reads/sec" };
	const struct frame *f = NULL;

	(void)state;
	long size = gc_grown_disk_tree("engine", root, sizeof(root));
	char *argv[] = { "getcounter", "--root", root, NULL };
	memset(&err, 0, sizeof(err));
	assert_int_equal(cli_parse(3, argv, &cfg, &err), 0);
	struct engine *e = engine_open(&cfg, paths, 2, &rc, &err);
	assert_non_null(e);
	assert_int_equal(engine_step(e, 0, 0, &f, &err), 0);
	for (int k = 0; k < 3; k++) {
		unsigned long long before = gc_rchar();
		assert_int_equal(engine_step(e, 0, 0, &f, &err), 0);
		unsigned long long got = gc_rchar() - before;
		assert_true(got >= (unsigned long long)size);
		assert_true(got < (unsigned long long)size * 3 / 2);
	}
	/* and the rows keep the paths' order */
	struct frame_row tmp;
	struct pathbuf pb = { 0 };
	assert_non_null(f);
	assert_non_null(strstr(frame_row_path(f, frame_row_at(f, 0, &tmp), &pb), "LogicalDisk("));
	free(pb.buf);
	engine_close(e);
	config_free(&cfg);
	gc_remove_tree(root);
}

/* The row of f for instance inst (which must be there). */
static struct frame_row
row_of(const struct frame *f, const char *inst)
{
	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		const struct frame_row *r = frame_row_at(f, i, &tmp);
		if (r->instance && strcmp(r->instance, inst) == 0)
			return *r;
	}
	fail_msg("no row for %s", inst);
	return (struct frame_row){ 0 };
}

/* The status of the row of f for instance inst (which must be there). */
static enum value_status
status_of(const struct frame *f, const char *inst)
{
	return (enum value_status)row_of(f, inst).status;
}

/* Make ROOT/proc with ROOT/proc/uptime (up seconds); ROOT/proc/diskstats
 * opened for writing. */
static FILE *
root_diskstats(const char *root, int up)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "mkdir -p '%s/proc'", root);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/proc/uptime", root);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%d.00 %d.00\n", up, 2 * up);
	fclose(f);
	snprintf(path, sizeof(path), "%s/proc/diskstats", root);
	assert_non_null(f = fopen(path, "w"));
	return f;
}

/* Write ROOT/proc/uptime and a /proc/diskstats of disks d0 (reads r0) and
 * d1 (reads r1). */
static void
write_reads(const char *root, int up, uint64_t r0, uint64_t r1)
{
	FILE *f = root_diskstats(root, up);

	fprintf(f, " 240 0 d0 %llu 0 8 1 0 0 0 0 0 1 1 0 0 0 0 0 0\n", (unsigned long long)r0);
	fprintf(f, " 240 1 d1 %llu 0 8 1 0 0 0 0 0 1 1 0 0 0 0 0 0\n", (unsigned long long)r1);
	fclose(f);
}

/* An item keeps its counter's terms from frame to frame (struct
 * derive_plan), keyed by the reads' layouts: when d0's reads pass 2^32
 * (its field takes two words from then on, in one read and then both),
 * the terms are formed again and every frame's rates are right. Reads
 * one second apart:
 *   t0: d0 1000, d1 10
 *   t1: d0 3000, d1 30                     d0 2000/s, d1 20/s, _Total 2020
 *   t2: d0 2^32 + 8000 = 4294975296, d1 60 d0 2^32 + 5000 = 4294972296/s,
 *                                          d1 30/s, _Total 4294972326
 *   t3: d0 4294982296, d1 100              d0 7000/s, d1 40/s, _Total 7040
 *   t4: d0 4294991296, d1 150              d0 9000/s, d1 50/s, _Total 9050 */
static void
test_plan_follows_layout(void **state)
{
	static const struct {
		uint64_t r0, r1;
		double d0, d1, total;
	} reads[] = {
		{ 1000, 10, 0, 0, 0 },
		{ 3000, 30, 2000, 20, 2020 },
		{ 4294975296ull, 60, 4294972296.0, 30, 4294972326.0 },
		{ 4294982296ull, 100, 7000, 40, 7040 },
		{ 4294991296ull, 150, 9000, 50, 9050 },
	};
	enum { N = sizeof(reads) / sizeof(reads[0]) };
	char roots[N][96], dir[64];
	char *argv[2 * N + 1];
	const char *paths[] = { "\\PhysicalDisk(*)\\Disk Reads/sec" };
	struct config cfg;
	struct err err;
	int rc, argc = 0;
	const struct frame *f = NULL;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gc-test-plan-%d", (int)getpid());
	argv[argc++] = "getcounter";
	for (size_t k = 0; k < N; k++) {
		snprintf(roots[k], sizeof(roots[k]), "%s/t%zu", dir, k);
		write_reads(roots[k], 100 + (int)k, reads[k].r0, reads[k].r1);
		argv[argc++] = "--root";
		argv[argc++] = roots[k];
	}
	memset(&err, 0, sizeof(err));
	assert_int_equal(cli_parse(argc, argv, &cfg, &err), 0);
	struct engine *e = engine_open(&cfg, paths, 1, &rc, &err);
	assert_non_null(e);
	assert_int_equal(engine_step(e, 0, 0, &f, &err), 0);
	for (size_t k = 1; k < N; k++) {
		assert_int_equal(engine_step(e, k, 0, &f, &err), 0);
		assert_non_null(f);
		struct frame_row d0 = row_of(f, "d0"), d1 = row_of(f, "d1"), t = row_of(f, "_Total");
		assert_int_equal(d0.status, ST_OK);
		assert_int_equal(d1.status, ST_OK);
		assert_int_equal(t.status, ST_OK);
		assert_true(d0.value == reads[k].d0);
		assert_true(d1.value == reads[k].d1);
		assert_true(t.value == reads[k].total);
	}
	engine_close(e);
	config_free(&cfg);
	gc_remove_tree(dir);
}

/* A frame keeps statuses only for runs of rows that are not one status:
 * over disk-appear, where disks come (NEW) and go (NO_INSTANCE) and one
 * is re-attached (RESET), each row has its own; over disk-modern, every
 * row is OK and no run stores any, beside an item of no rows. */
static void
test_frame_statuses(void **state)
{
	struct config cfg;
	struct err err;
	int rc;
	const char *paths[] = { "\\PhysicalDisk(*)\\Disk Reads/sec", "\\PhysicalDisk(*)\\Disk Writes/sec" };
	const struct frame *f = NULL;
	char *argv[] = { "getcounter", "--root", "../fixtures/disk-appear/t0", "--root",
			 "../fixtures/disk-appear/t1", "--root", "../fixtures/disk-appear/t2", NULL };

	(void)state;
	memset(&err, 0, sizeof(err));
	assert_int_equal(cli_parse(7, argv, &cfg, &err), 0);
	struct engine *e = engine_open(&cfg, paths, 2, &rc, &err);
	assert_non_null(e);
	assert_int_equal(engine_step(e, 0, 0, &f, &err), 0);
	assert_int_equal(engine_step(e, 1, 0, &f, &err), 0);
	assert_non_null(f);
	assert_int_equal(status_of(f, "sda"), ST_OK);
	assert_int_equal(status_of(f, "sdb"), ST_OK);
	assert_int_equal(status_of(f, "loop0"), ST_NEW);
	assert_int_equal(status_of(f, "loop1"), ST_OK);
	assert_int_equal(status_of(f, "sr0"), ST_NEW);
	assert_int_equal(status_of(f, "_Total"), ST_OK);
	assert_int_equal(engine_step(e, 2, 0, &f, &err), 0);
	assert_non_null(f);
	assert_int_equal(status_of(f, "sda"), ST_OK);
	assert_int_equal(status_of(f, "loop0"), ST_OK);
	assert_int_equal(status_of(f, "loop1"), ST_RESET);
	assert_int_equal(status_of(f, "sdb"), ST_NO_INSTANCE);
	engine_close(e);
	config_free(&cfg);

	char *steady[] = { "getcounter", "--root", "../fixtures/disk-modern/t0", "--root",
			   "../fixtures/disk-modern/t1", NULL };
	/* and an item with no rows (its pattern matches nothing) */
	const char *more[] = { "\\PhysicalDisk(nosuch*)\\Disk Reads/sec", paths[0], paths[1] };
	assert_int_equal(cli_parse(5, steady, &cfg, &err), 0);
	e = engine_open(&cfg, more, 3, &rc, &err);
	assert_non_null(e);
	assert_int_equal(engine_step(e, 0, 0, &f, &err), 0);
	assert_int_equal(engine_step(e, 1, 0, &f, &err), 0);
	assert_non_null(f);
	assert_int_equal(f->nrows, 6);
	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		assert_int_equal(frame_row_at(f, i, &tmp)->status, ST_OK);
	}
	for (size_t k = 0; k < f->nruns; k++)
		assert_int_equal(f->runs[k].sti, FRAME_RUN_UNIFORM);
	engine_close(e);
	config_free(&cfg);
}

/* Write ROOT/proc/uptime (up seconds) and ROOT/proc/diskstats with disks
 * d0 .. d(n-1), each with reads r, but for disk skip (none when n). */
static void
write_disks(const char *root, int up, size_t n, size_t skip, unsigned r)
{
	FILE *f = root_diskstats(root, up);

	for (size_t d = 0; d < n; d++)
		if (d != skip)
			fprintf(f, " 240 %4zu d%zu %u 0 8 1 0 0 0 0 0 1 1 0 0 0 0 0 0\n", d, d, r);
	fclose(f);
}

/* One row NEW among OK ones, at each place of a run of 21 rows (the
 * statuses are compared eight at a time, then the rest): that row alone
 * says NEW, and only that run keeps statuses. */
static void
test_frame_status_each_place(void **state)
{
	enum { N = 21 };
	char t0[200], t1[200];
	const char *paths[] = { "\\PhysicalDisk(*)\\Disk Reads/sec" };

	(void)state;
	snprintf(t0, sizeof(t0), "/tmp/gc-test-places-%d/t0", (int)getpid());
	snprintf(t1, sizeof(t1), "/tmp/gc-test-places-%d/t1", (int)getpid());
	for (size_t skip = 0; skip <= N; skip++) {
		struct config cfg;
		struct err err;
		int rc;
		const struct frame *f = NULL;
		char *argv[] = { "getcounter", "--root", t0, "--root", t1, NULL };

		write_disks(t0, 100, N, skip, 10);
		write_disks(t1, 101, N, N, 20);
		memset(&err, 0, sizeof(err));
		assert_int_equal(cli_parse(5, argv, &cfg, &err), 0);
		struct engine *e = engine_open(&cfg, paths, 1, &rc, &err);
		assert_non_null(e);
		assert_int_equal(engine_step(e, 0, 0, &f, &err), 0);
		assert_int_equal(engine_step(e, 1, 0, &f, &err), 0);
		assert_non_null(f);
		for (size_t d = 0; d < N; d++) {
			char name[16];
			snprintf(name, sizeof(name), "d%zu", d);
			assert_int_equal(status_of(f, name), d == skip ? ST_NEW : ST_OK);
		}
		int kept = 0;
		for (size_t k = 0; k < f->nruns; k++)
			kept |= f->runs[k].sti != FRAME_RUN_UNIFORM;
		assert_int_equal(kept, skip < N);
		engine_close(e);
		config_free(&cfg);
	}
	char dir[200];
	snprintf(dir, sizeof(dir), "/tmp/gc-test-places-%d", (int)getpid());
	gc_remove_tree(dir);
}

/* Write ROOT/proc/uptime and a /proc/diskstats of disks d0 .. d(n-1) but
 * disk skip (none when n), disk d with reads (d + 1) x r. */
static void
write_scaled_disks(const char *root, int up, size_t n, size_t skip, unsigned r)
{
	FILE *f = root_diskstats(root, up);

	for (size_t d = 0; d < n; d++)
		if (d != skip)
			fprintf(f, " 240 %4zu d%zu %zu 0 8 1 0 0 0 0 0 1 1 0 0 0 0 0 0\n", d, d,
				(d + 1) * r);
	fclose(f);
}

/* Paths that name one instance each, among more instances than an item
 * scans (the set's name index finds them): each finds its own disk, as
 * glob_match_ci does (any case), before and after the list changes (the
 * index made again: d99 moves from index 99 to 98 when d50 goes). Disk d
 * reads (d + 1) more each second, so a row of the wrong disk shows a wrong
 * rate:
 *   t0 -> t1: D7 8/s, d99 100/s, d50 51/s, nosuch none (NO_INSTANCE)
 *   t1 -> t2: d50 gone (NO_INSTANCE); D7 8/s, d99 100/s */
static void
test_named_instances_among_many(void **state)
{
	enum { N = 100 };
	char t[3][240], dir[200];
	const char *paths[] = { "\\PhysicalDisk(D7)\\Disk Reads/sec",
				"\\PhysicalDisk(d99)\\Disk Reads/sec",
				"\\PhysicalDisk(d50)\\Disk Reads/sec",
				"\\PhysicalDisk(nosuch)\\Disk Reads/sec" };
	struct config cfg;
	struct err err;
	int rc;
	const struct frame *f = NULL;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gc-test-named-%d", (int)getpid());
	for (size_t k = 0; k < 3; k++)
		snprintf(t[k], sizeof(t[k]), "%s/t%zu", dir, k);
	write_scaled_disks(t[0], 100, N, N, 1);
	write_scaled_disks(t[1], 101, N, N, 2);
	write_scaled_disks(t[2], 102, N, 50, 3);
	char *argv[] = { "getcounter", "--root", t[0], "--root", t[1], "--root", t[2], NULL };
	memset(&err, 0, sizeof(err));
	assert_int_equal(cli_parse(7, argv, &cfg, &err), 0);
	struct engine *e = engine_open(&cfg, paths, 4, &rc, &err);
	assert_non_null(e);
	assert_int_equal(engine_step(e, 0, 0, &f, &err), 0);
	assert_int_equal(engine_step(e, 1, 0, &f, &err), 0);
	assert_non_null(f);
	assert_int_equal(f->nrows, 4);
	struct frame_row d7 = row_of(f, "d7"), d99 = row_of(f, "d99"), d50 = row_of(f, "d50");
	assert_int_equal(d7.status, ST_OK);
	assert_true(d7.value == 8);
	assert_int_equal(d99.status, ST_OK);
	assert_true(d99.value == 100);
	assert_int_equal(d50.status, ST_OK);
	assert_true(d50.value == 51);
	assert_int_equal(status_of(f, "nosuch"), ST_NO_INSTANCE);
	assert_int_equal(engine_step(e, 2, 0, &f, &err), 0);
	assert_non_null(f);
	d7 = row_of(f, "d7");
	d99 = row_of(f, "d99");
	assert_int_equal(d7.status, ST_OK);
	assert_true(d7.value == 8);
	assert_int_equal(d99.status, ST_OK);
	assert_true(d99.value == 100);
	assert_int_equal(status_of(f, "d50"), ST_NO_INSTANCE);
	engine_close(e);
	config_free(&cfg);
	gc_remove_tree(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reopen_bad_path_keeps_old),
		cmocka_unit_test(test_reopen_takes_over),
		cmocka_unit_test(test_sets_in_catalog_order),
		cmocka_unit_test(test_frame_statuses),
		cmocka_unit_test(test_frame_status_each_place),
		cmocka_unit_test(test_plan_follows_layout),
		cmocka_unit_test(test_named_instances_among_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
