/*
 * sample.h - raw samples: for each counter set its instances and, per
 * instance, the cumulative raw uint64_t fields a provider read. Sources
 * never compute rates; a raw sample is what the log stores.
 *
 * Storage is reused from read to read: raw_set_begin() forgets the
 * instances but keeps their memory, raw_set_add() reuses a slot (and its
 * name when unchanged), so a steady state allocates nothing.
 */
#ifndef GETCOUNTER_SAMPLE_H
#define GETCOUNTER_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "counter.h"

struct raw_instance {
	char *name;        /* owned by the raw_set; "0", "vda", "eth0" */
	size_t name_cap;
	uint64_t identity; /* a changed identity under the same name is a RESET */
	uint64_t present;  /* bit f: field f was read this time */
	uint8_t in_total;  /* counted in _Total */
	uint64_t *values;  /* set->nfields values, owned by the raw_set */
};

struct raw_set {
	const struct counter_set *set;
	uint64_t mono_ns; /* monotonic time taken right after this set's read */
	int valid;        /* the read succeeded */
	size_t ninstances;
	size_t cap;
	struct raw_instance *inst;
};

/* The read of every requested set at one moment. */
struct raw_sample {
	int64_t wall_ns;    /* UTC wall-clock time of the read */
	uint32_t user_hz;   /* USER_HZ of /proc/stat ticks (100 under --root) */
	uint8_t ulong_bits; /* the kernel's word size (64 under --root) */
	uint64_t boot_id;   /* a hash of the boot id; a change is a gap */
	size_t nsets;
	struct raw_set *sets;
};

/* Initialise an empty set for counter set cs. */
void raw_set_init(struct raw_set *rs, const struct counter_set *cs);
/* Free what the set owns (not rs itself). */
void raw_set_free(struct raw_set *rs);
/* Start a new read: no instances, memory kept. */
void raw_set_begin(struct raw_set *rs);
/* Append an instance named name[0..len) with all fields zero and absent;
 * the returned pointer is valid until the next raw_set_add. */
struct raw_instance *raw_set_add(struct raw_set *rs, const char *name, size_t len,
				 uint64_t identity);
/* Record value v for field f of instance ri (marks it present). */
static inline void
raw_put(struct raw_instance *ri, unsigned f, uint64_t v)
{
	ri->values[f] = v;
	ri->present |= (uint64_t)1 << f;
}
/* Copy src into dst (same counter set), reusing dst's memory. */
void raw_set_copy(struct raw_set *dst, const struct raw_set *src);

#endif
