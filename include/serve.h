/*
 * serve.h - getcounter --serve: an HTTP endpoint (libmicrohttpd) that any
 * Prometheus can scrape; each scrape reads a fresh raw sample (issue 9).
 */
#ifndef GETCOUNTER_SERVE_H
#define GETCOUNTER_SERVE_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

/* What --serve needs from the command line. */
struct serve_opts {
	const char *listen;        /* [ADDR:]PORT */
	const char *const *paths;  /* select sets and instances; none = all */
	size_t npaths;
	const char *const *roots;  /* --root series (scrape k reads root k, then the last) */
	size_t nroots;
	unsigned max_requests;     /* beyond: 503 */
	const char *tls_cert, *tls_key; /* PEM files: serve https; NULL: http */
	const char *tls_client_ca; /* PEM CA: require client certificates it signed */
	const char *basic_auth;    /* a file of user:bcrypt-hash lines, or NULL */
};

/* Split [ADDR:]PORT ("9100", "0.0.0.0:9100", "[::1]:0") into host (size n,
 * "127.0.0.1" when absent) and port. Returns 0 or -1 with err filled. */
int serve_parse_listen(const char *s, char *host, size_t n, unsigned *port, struct err *err);

/* Serve until SIGINT or SIGTERM. Returns the exit status (0; 1 when the
 * socket cannot be had; 2 when built without libmicrohttpd). */
int serve_run(const struct serve_opts *o);

/* --prometheus-rules: print to out the recording rules that derive the
 * counters of paths (none: every exported set) from the served series.
 * Returns the exit status (2 for a bad path, with err filled). */
int serve_rules(FILE *out, const char *const *paths, size_t npaths, struct err *err);

#endif
