/*
 * sample.c - raw sample storage, reused from read to read so that a steady
 * state allocates nothing. The values of a set's instances live in one
 * block, nfields words per instance slot, so an instance costs no heap
 * block of its own: instance slot i's values are at block + i * nfields,
 * and the block (inst[0].values) grows with the instance array.
 */
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "util.h"

/* Words of values per instance slot. */
static size_t
slot_words(const struct raw_set *rs)
{
	return rs->set->nfields ? rs->set->nfields : 1;
}

void
raw_set_init(struct raw_set *rs, const struct counter_set *cs)
{
	memset(rs, 0, sizeof(*rs));
	rs->set = cs;
}

void
raw_set_free(struct raw_set *rs)
{
	for (size_t i = 0; i < rs->cap; i++)
		free(rs->inst[i].name);
	if (rs->cap)
		free(rs->inst[0].values);
	free(rs->inst);
	rs->inst = NULL;
	rs->cap = rs->ninstances = 0;
}

void
raw_set_begin(struct raw_set *rs)
{
	rs->ninstances = 0;
	rs->valid = 0;
}

/* Grow the instance array and the values block to hold one more. */
static void
raw_set_grow(struct raw_set *rs)
{
	size_t old = rs->cap, nw = slot_words(rs);
	uint64_t *block = old ? rs->inst[0].values : NULL;

	xgrow((void **)&rs->inst, &rs->cap, rs->ninstances + 1, sizeof(*rs->inst));
	block = xrealloc(block, rs->cap * nw * sizeof(uint64_t));
	memset(block + old * nw, 0, (rs->cap - old) * nw * sizeof(uint64_t));
	for (size_t i = 0; i < rs->cap; i++)
		rs->inst[i].values = block + i * nw;
}

struct raw_instance *
raw_set_add(struct raw_set *rs, const char *name, size_t len, uint64_t identity)
{
	struct raw_instance *ri;

	if (rs->ninstances == rs->cap)
		raw_set_grow(rs);
	ri = &rs->inst[rs->ninstances++];
	memset(ri->values, 0, sizeof(uint64_t) * rs->set->nfields);
	if (!ri->name || strncmp(ri->name, name, len) != 0 || ri->name[len] != '\0') {
		if (ri->name_cap < len + 1) {
			ri->name_cap = len + 1 < 16 ? 16 : len + 1;
			free(ri->name);
			ri->name = xmalloc(ri->name_cap);
		}
		memcpy(ri->name, name, len);
		ri->name[len] = '\0';
	}
	ri->identity = identity;
	ri->present = 0;
	ri->in_total = 1;
	return ri;
}

void
raw_set_copy(struct raw_set *dst, const struct raw_set *src)
{
	if (dst->set != src->set && dst->cap && slot_words(dst) != slot_words(src))
		raw_set_free(dst); /* the values block has another slot size */
	raw_set_begin(dst);
	dst->set = src->set;
	for (size_t i = 0; i < src->ninstances; i++) {
		const struct raw_instance *s = &src->inst[i];
		struct raw_instance *d = raw_set_add(dst, s->name, strlen(s->name), s->identity);
		memcpy(d->values, s->values, sizeof(uint64_t) * src->set->nfields);
		d->present = s->present;
		d->in_total = s->in_total;
	}
	dst->mono_ns = src->mono_ns;
	dst->valid = src->valid;
}
