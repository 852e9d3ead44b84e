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

struct provider {
	const struct counter_set *set;
	/* Prepare to read; ctx stays valid until close. Returns the
	 * provider's state, or NULL with err filled. */
	void *(*open)(const struct provider_ctx *ctx, struct err *err);
	/* Read every instance into out (already raw_set_begin'd). Returns
	 * 0, or -1 with err filled when the set cannot be read at all. */
	int (*read)(void *state, struct raw_set *out, struct err *err);
	void (*close)(void *state);
};

/* Every provider, in the order sets are listed. */
extern const struct provider *const providers[];
extern const size_t nproviders;

/* The provider of the set named name (or its alias), case-insensitive. */
const struct provider *provider_find(const char *name);

#endif
