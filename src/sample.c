/*
 * sample.c - raw sample storage, reused from read to read so that a steady
 * state allocates nothing. The values of a set's instances live in one
 * block, nslots words per instance slot (one per kept field), so an
 * instance costs no heap block of its own: instance slot i's values are at
 * values + i * nslots, and the block grows with the instance array, as
 * does the in_total array.
 */
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "util.h"

static uint64_t
all_fields(const struct counter_set *cs)
{
	return cs->nfields >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << cs->nfields) - 1u;
}

/* Words of values per instance slot. */
static size_t
slot_words(const struct raw_set *rs)
{
	return rs->nslots ? rs->nslots : 1;
}

void
raw_set_init(struct raw_set *rs, const struct counter_set *cs)
{
	memset(rs, 0, sizeof(*rs));
	rs->set = cs;
	rs->keep = all_fields(cs);
	rs->nslots = cs->nfields;
}

static void
free_instances(struct raw_set *rs)
{
	free(rs->values);
	free(rs->in_total);
	free(rs->inst);
	rs->inst = NULL;
	rs->values = NULL;
	rs->in_total = NULL;
	rs->cap = rs->ninstances = 0;
}

/* Free the set's own names (not shared ones): none is kept after. */
static void
drop_names(struct raw_set *rs)
{
	if (rs->own_names) {
		strset_free(rs->own_names);
		free(rs->own_names);
	}
	rs->own_names = NULL;
	rs->names = NULL;
}

void
raw_set_free(struct raw_set *rs)
{
	free_instances(rs);
	free(rs->slot);
	rs->slot = NULL;
	drop_names(rs);
}

void
raw_set_share_names(struct raw_set *rs, struct strset *names)
{
	free_instances(rs);
	drop_names(rs);
	rs->names = names;
}

void
raw_set_keep(struct raw_set *rs, uint64_t mask)
{
	const struct counter_set *cs = rs->set;
	unsigned n = 0;

	mask &= all_fields(cs);
	free_instances(rs);
	free(rs->slot);
	rs->slot = NULL;
	rs->keep = mask;
	rs->nslots = cs->nfields;
	if (mask == all_fields(cs))
		return;
	rs->slot = xmalloc(SET_MAX_FIELDS);
	memset(rs->slot, RAW_SLOT_NONE, SET_MAX_FIELDS);
	for (unsigned f = 0; f < cs->nfields; f++)
		if (mask >> f & 1)
			rs->slot[f] = (uint8_t)n++;
	rs->nslots = n;
}

void
raw_sets_compact_names(struct raw_set *const *sets, size_t n)
{
	struct strset *names = sets[0]->names, fresh = { 0 };
	size_t live = 0;

	for (size_t k = 0; k < n; k++)
		live += sets[k]->names == names ? sets[k]->ninstances : 0;
	if (!names || names->n <= 2 * live + 64)
		return;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; sets[k]->names == names && i < sets[k]->cap; i++) {
			struct raw_instance *ri = &sets[k]->inst[i];
			if (i < sets[k]->ninstances)
				strset_add(&fresh, ri->name, &ri->name);
			else
				ri->name = NULL;
		}
	strset_free(names);
	*names = fresh;
}

void
raw_set_begin(struct raw_set *rs)
{
	if (rs->own_names)
		raw_sets_compact_names(&rs, 1);
	rs->ninstances = 0;
	rs->valid = 0;
	/* unique in the process: the log writer knows its last read by it */
	static uint64_t stamps;
	rs->stamp = __atomic_add_fetch(&stamps, 1, __ATOMIC_RELAXED);
}

/* Grow the instance array and the values block to hold one more. */
static void
raw_set_grow(struct raw_set *rs)
{
	size_t old = rs->cap, nw = slot_words(rs);

	xgrow((void **)&rs->inst, &rs->cap, rs->ninstances + 1, sizeof(*rs->inst));
	rs->values = xrealloc(rs->values, rs->cap * nw * sizeof(uint64_t));
	memset(rs->values + old * nw, 0, (rs->cap - old) * nw * sizeof(uint64_t));
	rs->in_total = xrealloc(rs->in_total, rs->cap);
}

void
raw_set_trim(struct raw_set *rs)
{
	if (!xtrim((void **)&rs->inst, &rs->cap, rs->ninstances, sizeof(*rs->inst)))
		return;
	rs->values = xrealloc(rs->values, rs->cap * slot_words(rs) * sizeof(uint64_t));
	rs->in_total = xrealloc(rs->in_total, rs->cap);
}

struct raw_instance *
raw_set_add(struct raw_set *rs, const char *name, size_t len, uint64_t identity)
{
	struct raw_instance *ri;

	len = strnlen(name, len); /* a NUL ends a name */
	if (rs->ninstances == rs->cap)
		raw_set_grow(rs);
	ri = &rs->inst[rs->ninstances++];
	memset(raw_values(rs, ri), 0, sizeof(uint64_t) * slot_words(rs));
	if (!ri->name || strncmp(ri->name, name, len) != 0 || ri->name[len] != '\0') {
		if (!rs->names)
			rs->names = rs->own_names = xcalloc(1, sizeof(*rs->own_names));
		strset_add_n(rs->names, name, len, &ri->name);
	}
	ri->identity = identity;
	ri->present = 0;
	rs->in_total[ri - rs->inst] = 1;
	return ri;
}

void
raw_set_copy(struct raw_set *dst, const struct raw_set *src)
{
	if (dst->set != src->set) {
		/* another set: its own fields, all kept (the memory is reused
		 * when the words per instance stay the same) */
		if (dst->slot || dst->nslots != src->set->nfields)
			raw_set_free(dst);
		size_t cap = dst->cap, n = dst->ninstances;
		struct raw_instance *inst = dst->inst;
		uint64_t *values = dst->values;
		uint8_t *in_total = dst->in_total;
		struct strset *names = dst->names, *own = dst->own_names;
		raw_set_init(dst, src->set);
		dst->cap = cap;
		dst->ninstances = n;
		dst->inst = inst;
		dst->values = values;
		dst->in_total = in_total;
		dst->names = names;
		dst->own_names = own;
	}
	raw_set_begin(dst);
	int same = dst->keep == src->keep;
	for (size_t i = 0; i < src->ninstances; i++) {
		const struct raw_instance *s = &src->inst[i];
		struct raw_instance *d = raw_set_add(dst, s->name, strlen(s->name), s->identity);
		if (same) {
			memcpy(raw_values(dst, d), raw_values(src, s), sizeof(uint64_t) * slot_words(src));
			d->present = s->present;
		} else {
			for (uint64_t m = s->present; m; m &= m - 1) {
				unsigned f = (unsigned)__builtin_ctzll(m);
				raw_put(dst, d, f, raw_get(src, s, f));
			}
		}
		raw_set_in_total(dst, d, raw_in_total(src, s));
	}
	dst->mono_ns = src->mono_ns;
	dst->valid = src->valid;
	dst->stamp = src->stamp; /* the same content */
}
