/*
 * engine.h - wires one source to the outputs: resolves counter paths against
 * the providers, schedules reads on absolute monotonic deadlines, keeps the
 * previous and current raw sample, derives each frame and hands it to the
 * outputs. Only engine.c sees both providers and outputs.
 */
#ifndef GETCOUNTER_ENGINE_H
#define GETCOUNTER_ENGINE_H

#include <stdio.h>

#include "cli.h"
#include "output.h"
#include "util.h"

/* Exit statuses. */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* Sample the counters cfg names into the output on out. Returns an exit
 * status; on failure err names the problem. */
int engine_run(const struct config *cfg, const struct output *output, FILE *out,
	       struct err *err);

/* -l and -q: list sets or counter paths matching cfg->patterns to out. */
int engine_list(const struct config *cfg, FILE *out, struct err *err);

/* The host name printed in paths: under --root the first root's
 * proc/sys/kernel/hostname when it has one, else this machine's. */
void engine_hostname(const struct config *cfg, char *buf, size_t n);

#endif
