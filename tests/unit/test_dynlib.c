/*
 * test_dynlib.c - loading an optional library when its feature is used:
 * the first soname that loads wins, every symbol lands in its slot, and a
 * missing library or symbol is one message naming it and the package.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dynlib.h"

/* libm is on every glibc system; its soname is libm.so.6. */
static void
test_loads_first_that_exists(void **state)
{
	static const char *const names[] = { "libgetcounter-none.so.9", "libm.so.6", NULL };
	double (*cosine)(double) = NULL;
	double (*sine)(double) = NULL;
	const struct dynlib_sym syms[] = {
		{ "cos", (void **)&cosine },
		{ "sin", (void **)&sine },
	};
	struct err err = { "" };
	void *h;

	(void)state;
	h = dynlib_open(names, syms, 2, "libm6", &err);
	assert_non_null(h);
	assert_non_null(cosine);
	assert_non_null(sine);
	assert_true(cosine(0.0) == 1.0); /* cos 0 = 1 exactly */
	assert_true(sine(0.0) == 0.0);
}

static void
test_missing_library(void **state)
{
	static const char *const names[] = { "libgetcounter-none.so.9", NULL };
	void *slot = NULL;
	const struct dynlib_sym syms[] = { { "x", &slot } };
	struct err err = { "" };

	(void)state;
	assert_null(dynlib_open(names, syms, 1, "libnone-dev", &err));
	assert_non_null(strstr(err.msg, "cannot load libgetcounter-none.so.9"));
	assert_non_null(strstr(err.msg, "install libnone-dev"));
	assert_null(slot);
}

static void
test_missing_symbol(void **state)
{
	static const char *const names[] = { "libm.so.6", NULL };
	void *a = NULL, *b = NULL;
	const struct dynlib_sym syms[] = { { "cos", &a }, { "getcounter_no_such_fn", &b } };
	struct err err = { "" };

	(void)state;
	assert_null(dynlib_open(names, syms, 2, "libm6", &err));
	assert_non_null(strstr(err.msg, "libm.so.6 lacks getcounter_no_such_fn"));
	assert_null(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads_first_that_exists),
		cmocka_unit_test(test_missing_library),
		cmocka_unit_test(test_missing_symbol),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
