/*
 * replay.h - .gcl logs read back as a source (--input): their sets become
 * the catalogue paths resolve against, and each step hands the engine the
 * next recorded read, several logs merged in time order, with --begin,
 * --end and --every applied. Also --summary of a log.
 */
#ifndef GETCOUNTER_REPLAY_H
#define GETCOUNTER_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "gclog.h"
#include "provider.h"
#include "sample.h"
#include "util.h"

struct replay;

struct replay_opts {
	const char *begin; /* --begin TIME, or NULL */
	const char *end;   /* --end TIME, or NULL */
	unsigned every;    /* keep every Nth sample; 0 or 1 keeps all */
	int utc;           /* --utc: do not switch to the log's time zone */
};

/* Open the logs (and read them once for their sets). Unless opts->utc or
 * TZ is set, the process takes the first log's recorded time zone. NULL
 * with *status (EXIT_USAGE for a bad time, EXIT_RUNTIME otherwise) and err. */
struct replay *replay_open(const char *const *files, size_t n, const struct replay_opts *opts,
			   int *status, struct err *err);
void replay_close(struct replay *r);

/* The sets the logs hold, as providers (set and rows_match; never opened:
 * the engine takes replay_state() for their state). */
size_t replay_ncatalog(const struct replay *r);
const struct provider *replay_provider(const struct replay *r, size_t i);
void *replay_state(struct replay *r, size_t i);
/* The counter paths the first log recorded (n 0 for none). */
const char *const *replay_paths(const struct replay *r, size_t *n);
/* Nonzero when the first log's interval is not whole seconds (the table
 * then shows milliseconds, as live). */
int replay_subsecond(const struct replay *r);
/* The first log's first session, or NULL. */
const struct gclog_session *replay_session(const struct replay *r);
/* The recording machine's host name. */
const char *replay_host(const struct replay *r);

/* Advance to the next kept read: 1, or 0 at the end. */
int replay_next(struct replay *r);
int64_t replay_wall(const struct replay *r);
uint32_t replay_user_hz(const struct replay *r);
uint8_t replay_ulong_bits(const struct replay *r);

/* Nonzero when every set this read holds has it as the first read of a
 * recording (a session whose id is not the last one's + 1, or another
 * input): a read the recording run primed with and never printed (after an
 * --append, a restart, a second --input), which a replay does not print
 * either. A break inside a recording (damage, a reboot) is not one. */
int replay_priming(const struct replay *r);

/* Catalogue set i in this read: 0 when the read does not hold it; else 1,
 * with out filled (instances, fields, valid, mono_ns) and *gap nonzero when
 * the set is not continuous with its previous read: 1 a break (a new
 * session, damage), 2 the first read of its source. A source is one
 * input's set id: a set has several when several logs hold it, or a relog
 * of them. *prev is NULL when the set's previous read in the engine is the
 * one to derive against; else (it came from another source) the read to
 * derive against instead, this source's own previous read. *source: which
 * of the set's sources (0 .. replay_nsources - 1) the read comes from. */
int replay_read(struct replay *r, size_t i, struct raw_set *out, int *gap,
		const struct raw_set **prev, size_t *source);
/* The number of sources of catalogue set i (at least 1): a relog writes
 * one set for each, so their reads stay apart. */
size_t replay_nsources(const struct replay *r, size_t i);
/* The instances of set i's first read in any of the logs, into out (no
 * values): what the set's rows are before the replay reaches it. */
void replay_seed(struct replay *r, size_t i, struct raw_set *out);

/* The recorded key of instance (see gclog_key_fn) of catalogue set i. */
size_t replay_key(void *state, const char *instance, char *buf, size_t n);

/* --summary: what each log holds and any damage, to out. Returns an exit
 * status. */
int replay_summary(const char *const *files, size_t n, FILE *out, struct err *err);

/* Nonzero when s is a --begin/--end time (ISO 8601 or M/D/YYYY H:MM:SS). */
int replay_time_valid(const char *s);
/* s as a --begin/--end time in UTC nanoseconds: 0, or -1. */
int replay_parse_time(const char *s, int64_t *ns);

/* Report the damage and torn tails found so far on stderr (once each). */
void replay_report(struct replay *r);

#endif
