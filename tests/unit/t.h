/*
 * t.h: the unit-test harness: CHECK() records a failure with its line and
 * goes on; T_DONE() prints a summary and returns the exit status.
 */
#ifndef T_H
#define T_H

#include <stdio.h>
#include <string.h>

static int t_checks, t_failures;

#define CHECK(cond) do { \
	t_checks++; \
	if (!(cond)) { \
		t_failures++; \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_STR(got, want) do { \
	const char *g_ = (got), *w_ = (want); \
	t_checks++; \
	if (g_ == NULL || w_ == NULL ? g_ != w_ : strcmp(g_, w_) != 0) { \
		t_failures++; \
		fprintf(stderr, "%s:%d: got '%s', want '%s'\n", __FILE__, __LINE__, \
		    g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
	} \
} while (0)

#define CHECK_INT(got, want) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	t_checks++; \
	if (g_ != w_) { \
		t_failures++; \
		fprintf(stderr, "%s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, #got, g_, w_); \
	} \
} while (0)

#define T_DONE() do { \
	printf("%s: %d checks, %d failed\n", __FILE__, t_checks, t_failures); \
	return t_failures ? 1 : 0; \
} while (0)

#endif
