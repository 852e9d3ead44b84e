/*
 * gc_test.h - what the unit tests share beyond cmocka: a double comparison
 * with an absolute tolerance (cmocka 1.1's assert_float_equal is float),
 * and the bytes a process has read, with a tree whose /proc/diskstats is
 * most of what a read of the disk sets reads (tests that count a file's
 * reads). Include after <cmocka.h>.
 */
#ifndef GC_TEST_H
#define GC_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef assert_double_equal
#define assert_double_equal(a, b, eps)                                                      \
	do {                                                                                \
		double a_ = (a), b_ = (b);                                                  \
		if (!(fabs(a_ - b_) <= (eps)))                                              \
			fail_msg("%s = %.17g, expected %.17g (within %g)", #a, a_, b_,      \
				 (double)(eps));                                            \
	} while (0)

/* The bytes this process has had from read(2) and pread(2) so far
 * (/proc/self/io's rchar). */
static inline unsigned long long
gc_rchar(void)
{
	char buf[512];
	unsigned long long v = 0;
	FILE *f = fopen("/proc/self/io", "r");

	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "rchar: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* A copy of ../fixtures/ldisk-basic/t0 at /tmp/gc-test-NAME-PID (its path
 * in root, n bytes) whose proc/diskstats has 3,000 more lines (loop
 * devices sys/block does not list): the file's size, over 150 KB. Remove
 * it with gc_remove_tree. */
static inline long
gc_grown_disk_tree(const char *name, char *root, size_t n)
{
	char cmd[400], path[300];

	snprintf(root, n, "/tmp/gc-test-%s-%d", name, (int)getpid());
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r ../fixtures/ldisk-basic/t0 '%s'", root,
		 root);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/proc/diskstats", root);
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	for (int i = 0; i < 3000; i++)
		fprintf(f, "   7 %7d loop%d 1 0 2 3 4 0 5 6 0 7 8 0 0 0 0 0 0\n", i, i);
	long size = ftell(f);
	fclose(f);
	assert_true(size > 150000);
	return size;
}

static inline void
gc_remove_tree(const char *root)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

#endif

#endif
