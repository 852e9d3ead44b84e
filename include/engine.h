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

struct engine;

/* Resolve paths (NULL or none: the default counters) and open the providers
 * their sets need. Returns the engine (engine_close frees it), or NULL with
 * *status (EXIT_USAGE or EXIT_RUNTIME) and err set. */
struct engine *engine_open(const struct config *cfg, const char *const *paths, size_t npaths,
			   int *status, struct err *err);

/* One read (of root read_index of a --root series; 0 live). The first read
 * only primes: *f is NULL. After that *f is the frame of the interval just
 * ended, owned by the engine and valid until the next step. With snapshot,
 * every read gives a frame whose two-read counters are BAD_TIME. 0; 1 at
 * the end of a replay (or when a full log is the only output); -1. */
int engine_step(struct engine *e, size_t read_index, int snapshot, const struct frame **f,
		struct err *err);

void engine_close(struct engine *e);

/* engine_open again, for a run that goes on with other paths (the screen's
 * add-counter): a live run's sets that old has open the same way (the same
 * provider asked the same instances, or no field more) move over as they
 * are instead of being opened again, with the files they read through: a
 * capture gave up its privileges when it started, and keeps its handles.
 * On success, old has lost them (close it next); on failure old is as it
 * was. The states taken may keep pointing at old's cfg: it must outlive
 * the new engine. */
/* The first note of a set this engine opened itself (why some counters are
 * UNSUPPORTED), or NULL; sets an engine_reopen took over say nothing. */
const char *engine_notice(const struct engine *e);
struct engine *engine_reopen(struct engine *old, const struct config *cfg,
			     const char *const *paths, size_t npaths, int *status,
			     struct err *err);

/* Until the monotonic deadline_ns: sleep, or let a source that keeps its own
 * clock (a live capture, the provider's wait) do its work until then, as
 * engine_run does before each read. A caller with its own schedule (the
 * screen) calls it at each deadline, before engine_step. 0, or -1 with
 * err. */
int engine_wait(struct engine *e, uint64_t deadline_ns, struct err *err);

/* The counter paths e resolved (as given, else the defaults or what a
 * replayed log was watching); borrowed, valid while e is open. */
const char *const *engine_paths(const struct engine *e, size_t *n);

/* Record every read of e to the gcl log on fd (borrowed; name for
 * messages), as cfg says (--max-size, --circular, --append). only: the log
 * is the run's only output, so a full log ends the run. 0, or -1 with err;
 * -2 with err when --max-size cannot hold even one read (a usage error). */
int engine_log_open(struct engine *e, int fd, const char *name, int only, struct err *err);

/* -y: the log engine_log_open writes is the file tmp, to take final's
 * place (rename) once its first record is written; a run refused before
 * that (a log too small for one read) leaves final as it was, and
 * engine_close removes tmp. */
void engine_log_replace(struct engine *e, const char *tmp, const char *final);

/* Sample e's counters on cfg's schedule (a replay: through the logs, with
 * no sleeping) into the output on out (borrowed; e is not closed; output
 * may be NULL when the log is the only output). Returns an exit status; on
 * failure err names the problem. */
int engine_run(struct engine *e, const struct output *output, FILE *out, struct err *err);

/* -l and -q: list sets or counter paths matching cfg->patterns to out. */
int engine_list(const struct config *cfg, FILE *out, struct err *err);

/* The host name printed in paths: under --root the first root's
 * proc/sys/kernel/hostname when it has one, else this machine's. */
void engine_hostname(const struct config *cfg, char *buf, size_t n);

#endif
