/*
 * gc_test.h - what the unit tests share beyond cmocka: a double comparison
 * with an absolute tolerance (cmocka 1.1's assert_float_equal is float).
 * Include after <cmocka.h>.
 */
#ifndef GC_TEST_H
#define GC_TEST_H

#include <math.h>

#ifndef assert_double_equal
#define assert_double_equal(a, b, eps)                                                      \
	do {                                                                                \
		double a_ = (a), b_ = (b);                                                  \
		if (!(fabs(a_ - b_) <= (eps)))                                              \
			fail_msg("%s = %.17g, expected %.17g (within %g)", #a, a_, b_,      \
				 (double)(eps));                                            \
	} while (0)
#endif

#endif
