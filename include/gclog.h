/*
 * gclog.h - the .gcl binary log (man/gclog.5): a writer that records raw
 * samples, and a reader that gives them back with their schema, instances
 * and times, reporting damage instead of failing on it.
 *
 * A log is a fixed 32-byte header and records [type][length][payload]
 * [crc32]. Every keyframe block starts with an 8-byte sync marker followed
 * by the session, the schemas, the instances in force and a full sample, so
 * reading can start there; ordinary samples are fields delta-encoded as
 * zig-zag varints against the same instance's previous sample.
 */
#ifndef GETCOUNTER_GCLOG_H
#define GETCOUNTER_GCLOG_H

#include <stddef.h>
#include <stdint.h>

#include "counter.h"
#include "sample.h"
#include "util.h"

#define GCLOG_MAJOR 1
#define GCLOG_MINOR 0
#define GCLOG_HEADER_SIZE 32
#define GCLOG_KEYFRAME_EVERY 64 /* samples between keyframes */

/* One recording: who recorded, on what, from when. A new session (a
 * restart, an --append, a gap in a relog) is never derived across. */
struct gclog_session {
	uint64_t id;
	char host[256];
	char kernel[128];  /* uname -r */
	char machine[64];  /* uname -m */
	uint8_t ulong_bits;
	uint32_t user_hz;
	uint32_t page_size;
	char boot_id[64];
	int64_t start_ns;  /* UTC */
	char tz_name[128]; /* "Europe/Berlin", or a POSIX TZ string */
	int32_t tz_offset_s; /* east of UTC at start */
	char version[32];  /* the getcounter that wrote it */
};

/* Fill s with this machine's facts (or, under --root, what the caller
 * overrides afterwards). */
void gclog_session_local(struct gclog_session *s);

/* ---- writing ------------------------------------------------------------ */

struct gclog_writer;

struct gclog_writer_opts {
	uint64_t max_size; /* 0 for none */
	int circular;      /* a ring of segments within max_size */
	int append;        /* continue an existing log */
	unsigned keyframe_every; /* 0: GCLOG_KEYFRAME_EVERY */
};

/* The instance key of a set (which rows an instance totals, for sets whose
 * provider matches rows itself): written to buf, its length or 0. */
typedef size_t (*gclog_key_fn)(void *ctx, const char *instance, char *buf, size_t n);

/* Start a log on fd (borrowed; the caller closes it). name is for messages.
 * With opts->append, fd must be open read-write on an existing file. NULL
 * with err on failure. */
struct gclog_writer *gclog_writer_open(int fd, const char *name,
				       const struct gclog_writer_opts *opts,
				       const struct gclog_session *s, struct err *err);

/* Declare a recorded set (before the first sample): the counters recorded
 * and the fields they need; key NULL when its instances have no keys (the
 * set does not match rows itself). Returns its index in the sets argument of
 * gclog_writer_sample. */
size_t gclog_writer_add_set(struct gclog_writer *w, const struct counter_set *set,
			    const struct counter_desc *const *counters, size_t ncounters,
			    uint64_t fields, gclog_key_fn key, void *key_ctx);

/* How many sets were declared. */
size_t gclog_writer_nsets(const struct gclog_writer *w);

/* Record one read: sets[i] for the i-th declared set, NULL when it was not
 * read this time. prevs (or NULL) holds, for each set, the caller's
 * previous read of it: when that is the read last written for the set
 * (raw_set.stamp tells), its values are what this one's are written
 * against, and the writer needs no copy of its own. Any other prevs[i] is
 * ignored and the set's instances are written in full. Returns 0; 1 when --max-size stops the log (nothing more
 * is written, err says so); -1 with err on a write error, or when not even
 * the first read of a new log fits in --max-size. */
int gclog_writer_sample(struct gclog_writer *w, int64_t wall_ns, const uint64_t *mono_ns,
			const struct raw_set *const *sets, const struct raw_set *const *prevs,
			struct err *err);

/* The counter paths the user asked for, stored in every keyframe block so
 * a replay without paths shows what was watched. */
void gclog_writer_paths(struct gclog_writer *w, const char *const *paths, size_t n);

/* What follows is not continuous with what came before (a gap in a
 * replayed source): the next sample starts a new session. */
void gclog_writer_gap(struct gclog_writer *w);
/* What follows is another recording (a relog of a source's next --append or
 * restart, or of another log): like a gap, but the next session's id is
 * not the last one's + 1, so a replay primes with its first read (the
 * recording run printed no row for it) instead of showing it blank. */
void gclog_writer_restart(struct gclog_writer *w);
/* The machine booted again (a new boot id): a gap, and the next session
 * records boot_id. */
void gclog_writer_boot(struct gclog_writer *w, const char *boot_id);

/* Before the first sample, once the sets and paths are declared: 0, or -1
 * with err naming the smallest --max-size that can work when a new linear
 * log of these sets cannot fit in --max-size even without its values. (A
 * log that holds records already stops at its first read, as a full one.) */
int gclog_writer_check(const struct gclog_writer *w, struct err *err);

/* Bytes written so far (file size for a linear log). */
uint64_t gclog_writer_size(const struct gclog_writer *w);

/* Finish (nothing buffered is lost) and free. 0, or -1 with err. */
int gclog_writer_close(struct gclog_writer *w, struct err *err);

/* ---- reading ------------------------------------------------------------ */

struct gclog_reader;

enum gclog_event {
	GCLOG_END,
	GCLOG_SESSION, /* gclog_reader_session() changed: a new session */
	GCLOG_SCHEMA,  /* a set was (re)declared: gclog_reader_set() */
	GCLOG_SAMPLE,  /* gclog_reader_sample() */
	GCLOG_MARK,    /* gclog_reader_mark() */
};

/* Damage found while reading: where, how much was skipped, and why. */
struct gclog_damage {
	uint64_t offset;
	uint64_t bytes;
	uint64_t samples_lost; /* samples skipped while waiting for a keyframe */
	char what[120];
};

/* One set of the current sample. */
struct gclog_set_sample {
	size_t set;      /* index for gclog_reader_set() */
	int valid;       /* the recorded read succeeded */
	uint64_t mono_ns;
	const struct raw_set *rs; /* instances (set, names, identities, fields) */
	const char *const *keys;  /* per instance: its recorded key ("" none) */
};

struct gclog_sample {
	int64_t wall_ns;
	int gap;         /* not continuous with the previous sample */
	size_t nsets;
	const struct gclog_set_sample *sets;
	uint64_t offset; /* of its record */
};

/* Open a log file (read into memory). NULL with err: not a gcl log, a
 * newer major version, unreadable. */
struct gclog_reader *gclog_reader_open(const char *path, struct err *err);
/* The same over a buffer (borrowed until close). */
struct gclog_reader *gclog_reader_open_mem(const uint8_t *data, size_t len, const char *name,
					   struct err *err);
void gclog_reader_close(struct gclog_reader *r);

/* The next event (GCLOG_END at the end). Damage is recorded, not
 * returned: the reader skips to the next keyframe and goes on. */
enum gclog_event gclog_reader_next(struct gclog_reader *r);

const struct gclog_session *gclog_reader_session(const struct gclog_reader *r);
/* Set i of the current session (NULL if undefined): its counters are the
 * recorded ones; *fields is the recorded field mask. */
const struct counter_set *gclog_reader_set(const struct gclog_reader *r, size_t i,
					   uint64_t *fields);
size_t gclog_reader_nsets(const struct gclog_reader *r);
/* Nonzero when set i's instances carry keys (its rows match by them). */
int gclog_reader_set_keyed(const struct gclog_reader *r, size_t i);
const struct gclog_sample *gclog_reader_sample(const struct gclog_reader *r);
/* The recorded counter paths (of the latest keyframe block). */
const char *const *gclog_reader_paths(const struct gclog_reader *r, size_t *n);
/* Changes whenever a keyframe block brings other paths than the last. */
uint64_t gclog_reader_paths_gen(const struct gclog_reader *r);
/* The last MARK's text. */
const char *gclog_reader_mark(const struct gclog_reader *r);

/* What reading found so far. */
size_t gclog_reader_ndamage(const struct gclog_reader *r);
const struct gclog_damage *gclog_reader_damage(const struct gclog_reader *r, size_t i);
uint64_t gclog_reader_torn(const struct gclog_reader *r); /* bytes of a torn tail */
uint64_t gclog_reader_size(const struct gclog_reader *r);
void gclog_reader_version(const struct gclog_reader *r, unsigned *major, unsigned *minor);
int gclog_reader_circular(const struct gclog_reader *r);
const char *gclog_reader_name(const struct gclog_reader *r);

/* For --append: where a new record goes. For a linear log: *end is the
 * end of the last good record. For a circular one also the segment it is
 * in, that segment's sequence number and the segment geometry. */
struct gclog_tail {
	int circular;
	uint64_t end;
	uint64_t seg_size;
	uint32_t nseg, seg;
	uint64_t seq;
};
/* Read r to its end and report its tail. */
void gclog_reader_tail(struct gclog_reader *r, struct gclog_tail *t);

/* A heap copy of set with only the given counters (as a log records it);
 * free with gclog_set_free. NULL if set cannot be recorded. */
struct counter_set *gclog_set_copy(const struct counter_set *set,
				   const struct counter_desc *const *counters, size_t n);
void gclog_set_free(struct counter_set *set);

/* ---- encoding helpers (shared with tests and fuzz targets) --------------- */

uint32_t gclog_crc32(uint32_t crc, const void *buf, size_t n);

#endif
