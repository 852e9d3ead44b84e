/*
 * util.h - small helpers every module uses: allocation that aborts on
 * failure, the error record functions fill for main to print, and clocks.
 */
#ifndef GETCOUNTER_UTIL_H
#define GETCOUNTER_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* A message naming the problem (file, line, field, value); filled by the
 * function that failed, printed by main. */
struct err {
	char msg[512];
};

/* Fill err (which may be NULL) with a printf-style message; returns -1. */
int err_set(struct err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Allocation helpers: never return NULL; print and abort on failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Grow *p (an array of *cap elements of size elem) to hold at least want. */
void xgrow(void **p, size_t *cap, size_t want, size_t elem);

/* CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds. */
uint64_t now_mono_ns(void);
int64_t now_wall_ns(void);

/* Case-insensitive glob match where '*' matches any run of characters
 * (nothing else is special). */
int glob_match_ci(const char *pattern, const char *s);

/* Parse an unsigned decimal at *p, advancing *p; returns 0, or -1 if no
 * digit is there. Saturates at UINT64_MAX. */
int parse_u64(const char **p, uint64_t *out);

/* Skip spaces and tabs. */
const char *skip_blanks(const char *p);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
