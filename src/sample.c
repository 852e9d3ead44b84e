/*
 * sample.c - raw sample storage, reused from read to read so that a steady
 * state allocates nothing. The values of a set's instances live in one
 * block of 32-bit words, stride words per instance slot (one per kept
 * field, two for a field whose values passed 32 bits), so an instance
 * costs no heap block of its own: instance slot i's words are at
 * values + i * stride, and the block grows with the instance array, as
 * does the in_total bits.
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

/* The bytes a mask of the fields in keep takes: 1, 2, 4 or 8 (an
 * Interrupt instance's fields read cost a byte, not eight). */
static uint8_t
present_width(uint64_t keep)
{
	unsigned bits = keep ? 64u - (unsigned)__builtin_clzll(keep) : 1u;
	return bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8;
}

/* Words per instance slot while no slot is wide. */
static unsigned
narrow_stride(const struct raw_set *rs)
{
	return rs->nslots ? rs->nslots : 1;
}

void
raw_set_init(struct raw_set *rs, const struct counter_set *cs)
{
	memset(rs, 0, sizeof(*rs));
	rs->list = &rs->own;
	rs->set = cs;
	rs->keep = all_fields(cs);
	rs->pw = present_width(rs->keep);
	rs->nslots = cs->nfields;
	rs->stride = narrow_stride(rs);
}

/* rs goes back to its own list: a copy of the instances it has. */
static void
take_own(struct raw_set *rs)
{
	if (rs->list != &rs->own) {
		xgrow((void **)&rs->own.inst, &rs->own.cap, rs->ninstances, sizeof(*rs->own.inst));
		if (rs->ninstances)
			memcpy(rs->own.inst, rs->list->inst, rs->ninstances * sizeof(*rs->own.inst));
		rs->list = &rs->own;
	}
	rs->inst = rs->own.inst;
}

/* Stop sharing lists with the sibling: each keeps its instances, on a list
 * of its own. */
static void
unpair(struct raw_set *rs)
{
	struct raw_set *sib = rs->sibling;

	if (!sib)
		return;
	if (rs->list == &sib->own && sib->list == &rs->own) {
		/* each on the other's: trade the lists */
		struct raw_list t = rs->own;
		rs->own = sib->own;
		sib->own = t;
		rs->list = &rs->own;
		sib->list = &sib->own;
	}
	/* both on one list: the one whose list it is not copies it */
	take_own(rs->list == &rs->own ? sib : rs);
	take_own(rs);
	take_own(sib);
	sib->sibling = NULL;
	rs->sibling = NULL;
}

static void
free_instances(struct raw_set *rs)
{
	unpair(rs);
	free(rs->values);
	free(rs->present);
	free(rs->in_total);
	free(rs->woff);
	free(rs->own.inst);
	rs->woff = NULL;
	rs->wide = 0;
	rs->stride = narrow_stride(rs);
	rs->own.inst = rs->inst = NULL;
	rs->own.cap = 0;
	rs->list = &rs->own;
	rs->values = NULL;
	rs->present = NULL;
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
raw_set_pair(struct raw_set *a, struct raw_set *b, struct strset *names)
{
	raw_set_share_names(a, names);
	raw_set_share_names(b, names);
	a->sibling = b;
	b->sibling = a;
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
	rs->pw = present_width(mask);
	rs->nslots = cs->nfields;
	if (mask != all_fields(cs)) {
		rs->slot = xmalloc(SET_MAX_FIELDS);
		memset(rs->slot, RAW_SLOT_NONE, SET_MAX_FIELDS);
		for (unsigned f = 0; f < cs->nfields; f++)
			if (mask >> f & 1)
				rs->slot[f] = (uint8_t)n++;
		rs->nslots = n;
	}
	rs->stride = narrow_stride(rs);
}

/* The instances of sets[0..n) that use list l: the most any of them has. */
static size_t
list_used(struct raw_set *const *sets, size_t n, const struct raw_list *l)
{
	size_t used = 0;

	for (size_t k = 0; k < n; k++)
		if (sets[k]->list == l && sets[k]->ninstances > used)
			used = sets[k]->ninstances;
	return used;
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
	fresh.by_place = names->by_place;
	/* every list of these sets (a pair's two), each once: the names of
	 * instances in use move, the slots past them forget theirs */
	for (size_t k = 0; k < n; k++) {
		struct raw_list *l = &sets[k]->own;
		size_t used = list_used(sets, n, l);
		for (size_t i = 0; sets[k]->names == names && i < l->cap; i++) {
			struct raw_instance *ri = &l->inst[i];
			if (i < used)
				strset_add(&fresh, ri->name, &ri->name);
			else
				ri->name = NULL;
		}
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
	if (rs->sibling) {
		/* a read starts on the other read's list: it lists the same
		 * instances, most of the time (raw_set_add) */
		rs->list = rs->sibling->list;
		rs->inst = rs->list->inst;
	}
	/* unique in the process: the log writer knows its last read by it */
	static uint64_t stamps;
	rs->stamp = __atomic_add_fetch(&stamps, 1, __ATOMIC_RELAXED);
}

/* Grow the read's arrays (values, present, in_total) to hold one more. */
static void
raw_set_grow(struct raw_set *rs)
{
	size_t old = rs->cap, nw = rs->stride;

	rs->cap = old < 8 ? 8 : old * 2;
	rs->values = xrealloc(rs->values, rs->cap * nw * sizeof(*rs->values));
	memset(rs->values + old * nw, 0, (rs->cap - old) * nw * sizeof(*rs->values));
	rs->present = xrealloc(rs->present, rs->cap * rs->pw);
	rs->in_total = xrealloc(rs->in_total, (rs->cap + 7) / 8);
}

/* Make rs's list hold slot i, keeping rs's (and a sibling's) view of it. */
static void
list_room(struct raw_set *rs, size_t i)
{
	struct raw_list *l = rs->list;

	if (i < l->cap)
		return;
	xgrow((void **)&l->inst, &l->cap, i + 1, sizeof(*l->inst));
	rs->inst = l->inst;
	if (rs->sibling && rs->sibling->list == l)
		rs->sibling->inst = l->inst;
}

void
raw_set_trim(struct raw_set *rs)
{
	size_t n = rs->ninstances ? rs->ninstances : 1;

	if (rs->cap > n + n / 8) {
		rs->cap = n;
		rs->values = xrealloc(rs->values, rs->cap * rs->stride * sizeof(*rs->values));
		rs->present = xrealloc(rs->present, rs->cap * rs->pw);
		rs->in_total = xrealloc(rs->in_total, (rs->cap + 7) / 8);
	}
	/* a list: fitted to the most instances a read using it has */
	struct raw_list *l = rs->list;
	size_t used = rs->ninstances;
	if (rs->sibling && rs->sibling->list == l && rs->sibling->ninstances > used)
		used = rs->sibling->ninstances;
	if (xtrim((void **)&l->inst, &l->cap, used, sizeof(*l->inst))) {
		rs->inst = l->inst;
		if (rs->sibling && rs->sibling->list == l)
			rs->sibling->inst = l->inst;
	}
	/* the list neither read uses any more */
	if (rs->sibling && rs->sibling->list == l) {
		struct raw_list *spare = l == &rs->own ? &rs->sibling->own : &rs->own;
		free(spare->inst);
		spare->inst = NULL;
		spare->cap = 0;
	}
}

/* Whether slot ri holds name[0..len). */
static int
same_name(const struct raw_instance *ri, const char *name, size_t len)
{
	return ri->name && strncmp(ri->name, name, len) == 0 && ri->name[len] == '\0';
}

struct raw_instance *
raw_set_add(struct raw_set *rs, const char *name, size_t len, uint64_t identity)
{
	struct raw_set *sib = rs->sibling;
	size_t i = rs->ninstances;
	struct raw_instance *ri;

	len = strnlen(name, len); /* a NUL ends a name */
	if (i == rs->cap)
		raw_set_grow(rs);
	if (sib && sib->list == rs->list && i < sib->ninstances) {
		/* slot i is the other read's too: the same instance is kept,
		 * another one takes the list rs's sibling does not use, a
		 * copy up to i */
		ri = &rs->list->inst[i];
		if (ri->identity != identity || !same_name(ri, name, len)) {
			struct raw_list *l = rs->list == &rs->own ? &sib->own : &rs->own;
			xgrow((void **)&l->inst, &l->cap, i + 1, sizeof(*l->inst));
			memcpy(l->inst, rs->list->inst, i * sizeof(*l->inst));
			rs->list = l;
			rs->inst = l->inst;
			sib = NULL; /* rs's own list now: written below */
		}
	} else {
		sib = NULL;
	}
	if (!sib) {
		list_room(rs, i);
		ri = &rs->inst[i];
		if (!same_name(ri, name, len)) {
			if (!rs->names) {
				rs->names = rs->own_names = xcalloc(1, sizeof(*rs->own_names));
				strset_by_place(rs->names); /* names, not numbers */
			}
			strset_add_n(rs->names, name, len, &ri->name);
		}
		ri->identity = identity;
	}
	ri = &rs->inst[i];
	rs->ninstances++;
	memset(raw_words(rs, i), 0, sizeof(*rs->values) * rs->stride);
	raw_set_present_at(rs, i, 0);
	raw_set_in_total(rs, ri, 1);
	return ri;
}

void
raw_widen(struct raw_set *rs, unsigned s)
{
	unsigned old = rs->stride, nw = old + 1;

	if (rs->wide >> s & 1)
		return;
	if (!rs->woff) {
		rs->woff = xmalloc(SET_MAX_FIELDS);
		for (unsigned k = 0; k < SET_MAX_FIELDS; k++)
			rs->woff[k] = (uint8_t)k;
	}
	/* the high word goes right after the slot's low word: every
	 * instance's words move up, the last instance first */
	unsigned at = rs->woff[s] + 1u;
	if (rs->cap) {
		rs->values = xrealloc(rs->values, rs->cap * nw * sizeof(*rs->values));
		for (size_t i = rs->ninstances; i-- > 0;) {
			uint32_t *from = rs->values + i * old, *to = rs->values + i * nw;
			memmove(to + at + 1, from + at, (old - at) * sizeof(*to));
			to[at] = 0;
			memmove(to, from, at * sizeof(*to));
		}
	}
	for (unsigned k = 0; k < SET_MAX_FIELDS; k++)
		if (rs->woff[k] >= at)
			rs->woff[k]++;
	rs->wide |= (uint64_t)1 << s;
	rs->stride = nw;
}

void
raw_put_all(struct raw_set *rs, struct raw_instance *ri, const uint64_t *v, uint64_t mask)
{
	size_t i = (size_t)(ri - rs->inst);
	uint64_t put = 0;

	if (!rs->slot && !rs->wide) {
		/* every field kept, one word each: field f is word f (a NIC's
		 * statistics at once, the usual case) */
		uint32_t *w = raw_words(rs, i);
		uint64_t big = 0;
		for (uint64_t m = mask & rs->keep; m; m &= m - 1) {
			unsigned f = (unsigned)__builtin_ctzll(m);
			w[f] = (uint32_t)v[f];
			big |= v[f] >> 32;
		}
		if (!big) {
			raw_set_present_at(rs, i, raw_present_at(rs, i) | (mask & rs->keep));
			return;
		}
		/* a value needs two words: the general way below */
	}
	for (uint64_t m = mask & rs->keep; m; m &= m - 1) {
		unsigned f = (unsigned)__builtin_ctzll(m), s = raw_slot(rs, f);
		if (v[f] > UINT32_MAX && !(rs->wide >> s & 1))
			raw_widen(rs, s);
		raw_word_put(rs, raw_words(rs, i), s, v[f]);
		put |= (uint64_t)1 << f;
	}
	raw_set_present_at(rs, i, raw_present_at(rs, i) | put);
}

void
raw_copy_values(struct raw_set *dst, struct raw_instance *d, const struct raw_set *src,
		const struct raw_instance *s)
{
	size_t i = (size_t)(s - src->inst);

	if (dst->keep == src->keep && dst->wide == src->wide) {
		memcpy(raw_words(dst, (size_t)(d - dst->inst)), raw_words(src, i),
		       sizeof(*src->values) * src->stride);
		raw_set_present(dst, d, raw_present_at(src, i));
		return;
	}
	for (uint64_t m = raw_present_at(src, i) & dst->keep; m; m &= m - 1) {
		unsigned f = (unsigned)__builtin_ctzll(m);
		raw_put(dst, d, f, raw_get(src, s, f));
	}
}

void
raw_set_copy(struct raw_set *dst, const struct raw_set *src)
{
	if (dst->set != src->set) {
		/* another set: its own fields, all kept (the memory is reused
		 * when the words per instance stay the same) */
		if (dst->slot || dst->nslots != src->set->nfields || dst->sibling ||
		    dst->pw != present_width(all_fields(src->set))) {
			free_instances(dst);
			free(dst->slot);
			dst->slot = NULL;
			drop_names(dst);
		}
		dst->set = src->set;
		dst->keep = all_fields(src->set);
		dst->pw = present_width(dst->keep);
		dst->nslots = src->set->nfields;
		if (!dst->wide) /* a fresh layout (a kept one has nslots) */
			dst->stride = narrow_stride(dst);
	}
	raw_set_begin(dst);
	for (size_t i = 0; i < src->ninstances; i++) {
		const struct raw_instance *s = &src->inst[i];
		struct raw_instance *d = raw_set_add(dst, s->name, strlen(s->name), s->identity);
		raw_copy_values(dst, d, src, s);
		raw_set_in_total(dst, d, raw_in_total(src, s));
	}
	dst->mono_ns = src->mono_ns;
	dst->valid = src->valid;
	dst->stamp = src->stamp; /* the same content */
}
