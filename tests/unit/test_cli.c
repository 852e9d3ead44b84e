/*
 * test_cli.c - the option table: long, short and Windows spellings, values,
 * and the one-line errors of bad input.
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
#include "cli.h"

static int
parse(struct config *cfg, struct err *err, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	const char *a;

	argv[argc++] = "getcounter";
	va_start(ap, err);
	while ((a = va_arg(ap, const char *)) != NULL)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	memset(err, 0, sizeof(*err));
	return cli_parse(argc, argv, cfg, err);
}

static void
test_defaults(void **state)
{
	struct config c;
	struct err e;
	(void)state;
	assert_int_equal(parse(&c, &e, NULL), 0);
	assert_int_equal(c.mode, MODE_SAMPLE);
	assert_double_equal(c.interval, 1, 0);
	assert_int_equal(c.samples, 1);
	assert_int_equal(c.precision, -1);
	assert_int_equal(c.npaths, 0);
	config_free(&c);
}

static void
test_spellings(void **state)
{
	struct config c;
	struct err e;
	(void)state;
	assert_int_equal(parse(&c, &e, "-Counter", "\\Memory\\Free Bytes", "-SampleInterval",
			       "2.5", "-MaxSamples", "3", "\\Processor(*)\\% User Time", NULL),
			 0);
	assert_int_equal(c.npaths, 2);
	assert_string_equal(c.paths[0], "\\Memory\\Free Bytes");
	assert_string_equal(c.paths[1], "\\Processor(*)\\% User Time");
	assert_double_equal(c.interval, 2.5, 0);
	assert_int_equal(c.samples, 3);
	config_free(&c);

	/* case-insensitive Windows words; typeperf's -si [[hh:]mm:]ss, -sc, -f */
	assert_int_equal(parse(&c, &e, "-sampleinterval", "01:30", "-SC", "4", "-f", "CSV",
			       "-o", "x.csv", "-y", NULL), 0);
	assert_double_equal(c.interval, 90, 0);
	assert_int_equal(c.samples, 4);
	assert_string_equal(c.format, "CSV");
	assert_string_equal(c.output_file, "x.csv");
	assert_int_equal(c.yes, 1);
	config_free(&c);
	assert_int_equal(parse(&c, &e, "-si", "1:00:00", NULL), 0);
	assert_double_equal(c.interval, 3600, 0);
	config_free(&c);

	/* short options with attached values; long with '=' */
	assert_int_equal(parse(&c, &e, "-n5", "-i0.5", "--precision=2", "--format", "json", NULL),
			 0);
	assert_int_equal(c.samples, 5);
	assert_double_equal(c.interval, 0.5, 0);
	assert_int_equal(c.precision, 2);
	config_free(&c);

	/* -ListSet is not -l istSet; -l takes its patterns from bare words */
	assert_int_equal(parse(&c, &e, "-ListSet", "Proc*", "Mem*", NULL), 0);
	assert_int_equal(c.mode, MODE_LIST_SETS);
	assert_int_equal(c.npatterns, 2);
	assert_int_equal(c.npaths, 0);
	config_free(&c);
	assert_int_equal(parse(&c, &e, "-qx", "PhysicalDisk", NULL), 0);
	assert_int_equal(c.mode, MODE_LIST_PATHS);
	assert_int_equal(c.instances, 1);
	config_free(&c);
	assert_int_equal(parse(&c, &e, "-q", "-x", "-v", NULL), 0);
	assert_int_equal(c.verbose, 1);
	config_free(&c);

	/* -- ends options: a path may start with '-' after it */
	assert_int_equal(parse(&c, &e, "--", "-odd", NULL), 0);
	assert_string_equal(c.paths[0], "-odd");
	config_free(&c);

	/* --continuous, -Continuous */
	assert_int_equal(parse(&c, &e, "-Continuous", NULL), 0);
	assert_int_equal(c.continuous, 1);
	config_free(&c);
}

static void
test_counter_file(void **state)
{
	struct config c;
	struct err e;
	char name[] = "/tmp/gc-cf-XXXXXX";
	int fd = mkstemp(name);
	FILE *f = fdopen(fd, "w");
	(void)state;
	fputs("# a comment\n\n\\Memory\\Free Bytes\r\n  \"\\Processor(*)\\% User Time\"  \n", f);
	fclose(f);
	assert_int_equal(parse(&c, &e, "-cf", name, NULL), 0);
	assert_int_equal(c.npaths, 2);
	assert_string_equal(c.paths[0], "\\Memory\\Free Bytes");
	assert_string_equal(c.paths[1], "\\Processor(*)\\% User Time");
	config_free(&c);
	assert_int_equal(parse(&c, &e, "--counter-file", name, NULL), 0);
	config_free(&c);
	remove(name);
	assert_int_equal(parse(&c, &e, "--counter-file", name, NULL), -1);
	assert_non_null(strstr(e.msg, name));

	/* a byte-order mark is skipped; each path remembers FILE:LINE */
	strcpy(name, "/tmp/gc-cf-XXXXXX");
	fd = mkstemp(name);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("\xef\xbb\xbf\\Memory\\Free Bytes\n# x\n\\System\\Threads\n", f);
	fclose(f);
	assert_int_equal(parse(&c, &e, "-cf", name, "\\Memory\\Cache Bytes", NULL), 0);
	assert_int_equal(c.npaths, 3);
	assert_string_equal(c.paths[0], "\\Memory\\Free Bytes");
	char where[600];
	snprintf(where, sizeof(where), "%s:3", name);
	assert_string_equal(c.path_origins[1], where);
	assert_null(c.path_origins[2]); /* from the command line */
	config_free(&c);
	/* comments only: an error naming the file, not the default counters */
	f = fopen(name, "w");
	fputs("# nothing\n\n", f);
	fclose(f);
	assert_int_equal(parse(&c, &e, "-cf", name, NULL), -1);
	assert_non_null(strstr(e.msg, "no counter paths"));
	remove(name);
}

static void
test_roots(void **state)
{
	struct config c;
	struct err e;
	(void)state;
	assert_int_equal(parse(&c, &e, "--root", "a", "--root", "b", "--root", "c", NULL), 0);
	assert_int_equal(c.nroots, 3);
	assert_int_equal(c.samples, 2); /* N roots give N - 1 samples */
	config_free(&c);
	assert_int_equal(parse(&c, &e, "--root", "a", "--root", "b", "-n", "2", NULL), -1);
	assert_non_null(strstr(e.msg, "at most 1"));
	assert_int_equal(parse(&c, &e, "--root", "a", NULL), 0);
	assert_int_equal(c.samples, 1);
	config_free(&c);
}

static void
test_errors(void **state)
{
	struct config c;
	struct err e;
	(void)state;
	assert_int_equal(parse(&c, &e, "-i", "0.001", NULL), -1);
	assert_non_null(strstr(e.msg, "0.001"));
	assert_int_equal(parse(&c, &e, "-i", "abc", NULL), -1);
	assert_int_equal(parse(&c, &e, "-i", "nan", NULL), -1);
	assert_int_equal(parse(&c, &e, "-i", "1e3", NULL), -1);
	assert_int_equal(parse(&c, &e, "-i", "-1", NULL), -1);
	assert_int_equal(parse(&c, &e, "-n", "0", NULL), -1);
	assert_int_equal(parse(&c, &e, "-n", "3x", NULL), -1);
	assert_int_equal(parse(&c, &e, "-n", "99999999999999999999999", NULL), -1);
	assert_non_null(strstr(e.msg, "too large"));
	assert_int_equal(parse(&c, &e, "-si", "00:60", NULL), -1);  /* seconds < 60 */
	assert_int_equal(parse(&c, &e, "-si", "1:60:00", NULL), -1); /* minutes < 60 */
	assert_int_equal(parse(&c, &e, "-n", NULL), -1);
	assert_non_null(strstr(e.msg, "needs a value"));
	assert_int_equal(parse(&c, &e, "--bogus", NULL), -1);
	assert_non_null(strstr(e.msg, "--bogus"));
	assert_int_equal(parse(&c, &e, "--interv", "1", NULL), -1); /* no abbreviations */
	assert_int_equal(parse(&c, &e, "-vx", NULL), -1);           /* no bundling */
	assert_non_null(strstr(e.msg, "-vx"));
	assert_int_equal(parse(&c, &e, "-f", "xml", NULL), -1);
	assert_non_null(strstr(e.msg, "xml"));
	assert_int_equal(parse(&c, &e, "--continuous", "-n", "3", NULL), -1);
	assert_int_equal(parse(&c, &e, "-x", NULL), -1);
	assert_int_equal(parse(&c, &e, "--help=1", NULL), -1);
	assert_int_equal(parse(&c, &e, "--precision", "99", NULL), -1);
	assert_int_equal(parse(&c, &e, "-V", NULL), 0);
	assert_int_equal(c.mode, MODE_VERSION);
	config_free(&c);
	assert_int_equal(parse(&c, &e, "-v", "-V", NULL), 0); /* -v is not -V */
	assert_int_equal(c.verbose, 1);
	config_free(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),     cmocka_unit_test(test_spellings),
		cmocka_unit_test(test_counter_file), cmocka_unit_test(test_roots),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
