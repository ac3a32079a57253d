/* A minimal test harness: one "PASS name" / "FAIL name" line per test, the
 * failed checks on stderr, and the failure count as the exit status. */
#ifndef PROBE_TEST_CHECK_H
#define PROBE_TEST_CHECK_H

#include <stdio.h>

static int check_failed_in_test __attribute__((unused));
extern int check_tests_failed;
extern int check_tests_run;

#define CHECK(cond)                                                                  \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failed_in_test = 1;                                    \
		}                                                                    \
	} while (0)

#define CHECK_EQ_U(a, b)                                                                          \
	do {                                                                                      \
		unsigned long long va_ = (unsigned long long)(a), vb_ = (unsigned long long)(b);  \
		if (va_ != vb_) {                                                                 \
			fprintf(stderr, "  %s:%d: %s == %llu, expected %s == %llu\n", __FILE__, __LINE__, \
				#a, va_, #b, vb_);                                                \
			check_failed_in_test = 1;                                                 \
		}                                                                                 \
	} while (0)

#define RUN(prefix, fn)                                                      \
	do {                                                                 \
		check_failed_in_test = 0;                                    \
		fn();                                                        \
		check_tests_run++;                                           \
		if (check_failed_in_test)                                    \
			check_tests_failed++;                                \
		printf("%s %s.%s\n", check_failed_in_test ? "FAIL" : "PASS", prefix, #fn); \
		fflush(stdout);                                              \
	} while (0)

#endif
