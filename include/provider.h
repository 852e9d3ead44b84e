/*
 * provider.h - a provider reads one counter set's raw fields from the
 * kernel (or a fixture root) into a raw_set. It never derives, prints or
 * exits. The table of providers is in src/provider/providers.c.
 */
#ifndef GETCOUNTER_PROVIDER_H
#define GETCOUNTER_PROVIDER_H

#include <stdint.h>

#include "counter.h"
#include "procfs.h"
#include "sample.h"
#include "util.h"

struct provider_ctx {
	struct procfs *fs; /* the files; procfs_is_live(fs) tells live */
	uint64_t needed;   /* bit f: some requested counter needs field f */
};

struct capture_opts;

/* What the run asks of a provider that opens only what is asked (Network
 * Capture): given to open_request. */
struct provider_request {
	const char *const *instances; /* the paths' instance patterns ("eth0", "*") */
	size_t ninstances;
	const struct capture_opts *capture; /* Network Capture's options */
	int listing; /* -l / -q: describe the set, open no device */
};

struct provider {
	const struct counter_set *set;
	/* Prepare to read; ctx stays valid until close. Returns the
	 * provider's state, or NULL with err filled. */
	void *(*open)(const struct provider_ctx *ctx, struct err *err);
	/* Optional, instead of open: the same, with what the run asks (req,
	 * valid during the call). */
	void *(*open_request)(const struct provider_ctx *ctx, const struct provider_request *req,
			      struct err *err);
	/* Read every instance into out (already raw_set_begin'd). Returns
	 * 0, or -1 with err filled when the set cannot be read at all. */
	int (*read)(void *state, struct raw_set *out, struct err *err);
	void (*close)(void *state);
	/* Optional: after open, the fields this source can supply at all in
	 * this run (none when it is unavailable: eBPF under --root); the
	 * engine stores no word for the others. NULL: every field. */
	uint64_t (*supplied)(void *state);
	/* Optional: what counter c is on this machine (and instance, which
	 * may be NULL), after a read: "here C6 + C10". Written to buf (size
	 * n), appended to the help text by -l -v and -q -v. The length
	 * written, 0 for nothing to add. */
	size_t (*describe)(void *state, const struct counter_desc *c, const char *instance,
			   char *buf, size_t n);
	/* Optional, for counters that total another set's rows (rows_set):
	 * nonzero when the row named row ("24/3") belongs to this set's
	 * instance ("eth0/3"). The engine asks only about rows whose child
	 * part equals the part after the instance's last '/' (the same CPU).
	 * Without it, a row belongs to an instance when its child part is the
	 * instance's CPU part ("3", "0,3"). Called only when either set's
	 * instances change. */
	int (*rows_match)(void *state, const char *instance, const char *row);
	/* With rows_match: the row parents of instance's rows, space-separated
	 * ("24 25 26": its IRQs), written to buf (size n); the length. A log
	 * records it, so that a replay matches rows as rows_match did: a row
	 * "P/C" is instance "X/C"'s when P is listed. */
	size_t (*instance_key)(void *state, const char *instance, char *buf, size_t n);
	/* Optional, for a source that keeps its own clock (Network Capture):
	 * called instead of sleeping until the monotonic deadline_ns, doing
	 * the source's work meanwhile (a live capture dispatches frames). 0,
	 * or -1 with err. */
	int (*wait)(void *state, uint64_t deadline_ns, struct err *err);
	/* Optional, with wait: after a read, the wall and monotonic times that
	 * read stands for (a capture file: its bucket's end). 0; 2 when the
	 * engine's own times stand; 1 when the source has ended (a file read
	 * out: the run ends); -1 with err when it failed (the run ends). */
	int (*stamp)(void *state, int64_t *wall_ns, uint64_t *mono_ns, struct err *err);
	/* Optional, for --serve: the value of the set's extra label (after
	 * ';' in prom_labels: "mountpoint;device") for instance, after a
	 * read, written to buf (size n); the length, 0 for none. */
	size_t (*label_value)(void *state, const char *instance, char *buf, size_t n);
	/* Optional: after open, a one-line note for the user about this run
	 * (why some counters are UNSUPPORTED and what to do), which the
	 * engine prints once to stderr; NULL for none. */
	const char *(*notice)(void *state);
	/* Optional: called before the first read, once every set of the run
	 * and the run's outputs are open, the place to give up what opening
	 * needed (a live capture drops its privileges here, not at its own
	 * open, so that a set opened after it, such as the eBPF counters, and
	 * root's -o and --log files still have them). 0, or -1 with err. */
	int (*opened)(void *state, struct err *err);
};

/* Every provider, in the order sets are listed. */
extern const struct provider *const providers[];
extern const size_t nproviders;

/* The provider of the set named name (or its alias), case-insensitive. */
const struct provider *provider_find(const char *name);

#endif
