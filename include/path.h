/*
 * path.h - counter paths: [\\HOST]\Set[(INSTANCE)]\Counter, case-insensitive,
 * '*' matching any run of characters in set, instance and counter names.
 */
#ifndef GETCOUNTER_PATH_H
#define GETCOUNTER_PATH_H

#include <stddef.h>

#include "util.h"

struct counter_path {
	char *host;     /* NULL when the path has no \\HOST */
	char *set;      /* a pattern */
	char *instance; /* NULL when the path has no (INSTANCE) */
	char *counter;  /* a pattern */
};

/* Parse s; 0, or -1 with err naming what is wrong. The strings are owned by
 * out: path_free. The instance is everything between the first '(' after
 * the set name and the last ')' before the final '\'. */
int path_parse(const char *s, struct counter_path *out, struct err *err);
void path_free(struct counter_path *p);

/* Nonzero when host names this machine ("." and "localhost" do). */
int path_host_is_local(const char *host, const char *hostname);

/* Format "\\host\set(instance)\counter" (no "(...)" when instance is NULL)
 * into buf; returns the length it needed. */
size_t path_format(char *buf, size_t n, const char *host, const char *set,
		   const char *instance, const char *counter);

#endif
