/*
 * test_path.c - counter path parsing, formatting and wildcard matching.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>

#include <cmocka.h>

#include "path.h"

static void
check(const char *s, const char *host, const char *set, const char *inst, const char *ctr)
{
	struct counter_path p;
	struct err err;

	assert_int_equal(path_parse(s, &p, &err), 0);
	if (host)
		assert_string_equal(p.host, host);
	else
		assert_null(p.host);
	assert_string_equal(p.set, set);
	if (inst)
		assert_string_equal(p.instance, inst);
	else
		assert_null(p.instance);
	assert_string_equal(p.counter, ctr);
	path_free(&p);
}

static void
test_parse(void **state)
{
	(void)state;
	check("\\Processor(_Total)\\% Processor Time", NULL, "Processor", "_Total",
	      "% Processor Time");
	check("\\Memory\\Available MBytes", NULL, "Memory", NULL, "Available MBytes");
	check("\\\\web1\\PhysicalDisk(*)\\Avg. Disk sec/*", "web1", "PhysicalDisk", "*",
	      "Avg. Disk sec/*");
	/* the instance runs to the last ')' before the final '\' */
	check("\\LogicalDisk(/mnt/my (old) disk)\\% Free Space", NULL, "LogicalDisk",
	      "/mnt/my (old) disk", "% Free Space");
	check("\\Network Adapter(we\\ird)\\Bytes Total/sec", NULL, "Network Adapter", "we\\ird",
	      "Bytes Total/sec");
	check("\\Processor Information(0,_Total)\\% Processor Time", NULL,
	      "Processor Information", "0,_Total", "% Processor Time");
	check("\\Interrupt(NMI/0)\\Interrupts/sec", NULL, "Interrupt", "NMI/0", "Interrupts/sec");
}

static void
test_errors(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"Processor(_Total)\\% Processor Time", /* no leading backslash */
		"\\Processor",                         /* no counter */
		"\\Processor(_Total)\\",               /* empty counter */
		"\\(x)\\c",                            /* empty set */
		"\\Processor(0\\c",                    /* no ')' */
		"\\Processor(0)x\\c",                  /* junk after ')' */
		"\\Processor()\\c",                    /* empty instance */
		"\\\\\\Memory\\x",                     /* empty host */
		"\\\\host",                            /* host only */
		"",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct counter_path p;
		struct err err = { "" };
		assert_int_equal(path_parse(bad[i], &p, &err), -1);
		assert_true(err.msg[0] != '\0');
		assert_null(p.set);
	}
}

static void
test_format_and_match(void **state)
{
	char buf[128];
	(void)state;
	path_format(buf, sizeof(buf), "h", "PhysicalDisk", "vda", "Disk Reads/sec");
	assert_string_equal(buf, "\\\\h\\PhysicalDisk(vda)\\Disk Reads/sec");
	path_format(buf, sizeof(buf), "h", "Memory", NULL, "Available MBytes");
	assert_string_equal(buf, "\\\\h\\Memory\\Available MBytes");
	/* snprintf's result at every size, cut short or not, and its length */
	for (size_t n = 0; n <= 40; n++) {
		char want[64], got[64];
		for (int inst = 0; inst < 2; inst++) {
			const char *i = inst ? "vda" : NULL;
			int len = i ? snprintf(want, n, "\\\\%s\\%s(%s)\\%s", "h", "PhysicalDisk", i,
					       "Disk Reads/sec")
				    : snprintf(want, n, "\\\\%s\\%s\\%s", "h", "PhysicalDisk",
					       "Disk Reads/sec");
			memset(got, 'x', sizeof(got));
			assert_int_equal(path_format(got, n, "h", "PhysicalDisk", i, "Disk Reads/sec"),
					 len);
			if (n)
				assert_string_equal(got, want);
			else
				assert_int_equal(got[0], 'x');
		}
	}
	assert_true(glob_match_ci("eth*", "ETH0"));
	assert_true(glob_match_ci("*", "_Total"));
	assert_true(glob_match_ci("avg. disk sec/*", "Avg. Disk sec/Read"));
	assert_true(glob_match_ci("*sec*", "Disk Reads/sec"));
	assert_false(glob_match_ci("eth*", "veth0"));
	assert_true(glob_match_ci("*eth*", "veth0"));
	assert_true(glob_match_ci("a*b*c", "aXXbYYc"));
	assert_false(glob_match_ci("a*b*c", "aXXbYY"));
	assert_true(path_host_is_local(".", "web1"));
	assert_true(path_host_is_local("LOCALHOST", "web1"));
	assert_true(path_host_is_local("WEB1", "web1"));
	assert_false(path_host_is_local("db2", "web1"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_format_and_match),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
