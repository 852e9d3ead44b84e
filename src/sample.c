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

static uint64_t
gauge_fields(const struct counter_set *cs)
{
	uint64_t m = 0;

	for (size_t f = 0; f < cs->nfields && f < 64; f++)
		if (cs->fields[f].kind == FK_GAUGE)
			m |= (uint64_t)1 << f;
	return m;
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
	rs->gauges = gauge_fields(cs);
	rs->pw = present_width(rs->keep);
	rs->nslots = cs->nfields;
	rs->stride = narrow_stride(rs);
}

/* The run of from holding instance i (from has runs up to i). */
static size_t
run_of(const struct raw_list *from, size_t i)
{
	size_t lo = 0, hi = from->nruns;

	/* the last run starting at or before i */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (from->run_start[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The run of l holding instance i, from run, the run of an instance
 * before i (a read's adds walk the runs so, with no search); searched when
 * run is not that. */
static inline __attribute__((always_inline)) size_t
run_follow(const struct raw_list *l, size_t run, size_t i)
{
	if (run >= l->nruns || l->run_start[run] > i)
		return run_of(l, i);
	while (run + 1 < l->nruns && l->run_start[run + 1] <= i)
		run++;
	return run;
}

uint64_t
raw_identity_at(const struct raw_set *rs, size_t i)
{
	const struct raw_list *l = rs->list;

	if (!l || !l->nruns)
		return 0;
	return l->run_id[run_of(l, i)];
}

/* Room for n runs in l. */
static void
runs_room(struct raw_list *l, size_t n)
{
	if (n <= l->runs_cap)
		return;
	size_t cap = l->runs_cap;
	xgrow((void **)&l->run_start, &cap, n, sizeof(*l->run_start));
	xgrow((void **)&l->run_id, &l->runs_cap, n, sizeof(*l->run_id));
}

/* to holds from's first n instances (records and identities) and the
 * records past them that it had. */
static void
list_copy_prefix(struct raw_list *to, const struct raw_list *from, size_t n)
{
	xgrow((void **)&to->inst, &to->cap, n, sizeof(*to->inst));
	if (n)
		memcpy(to->inst, from->inst, n * sizeof(*to->inst));
	to->nruns = n ? run_of(from, n - 1) + 1 : 0;
	runs_room(to, to->nruns);
	if (to->nruns) {
		memcpy(to->run_start, from->run_start, to->nruns * sizeof(*to->run_start));
		memcpy(to->run_id, from->run_id, to->nruns * sizeof(*to->run_id));
	}
}

/* Instance i of a read writing list l has identity id: the runs of
 * instances i and later are dropped, and a new run starts at i unless
 * instance i - 1's has id. */
static void
list_set_identity(struct raw_list *l, size_t i, uint64_t id)
{
	while (l->nruns && l->run_start[l->nruns - 1] >= i)
		l->nruns--;
	if (l->nruns && l->run_id[l->nruns - 1] == id)
		return;
	runs_room(l, l->nruns + 1);
	l->run_start[l->nruns] = (uint32_t)i;
	l->run_id[l->nruns++] = id;
}

void
raw_set_identity(struct raw_set *rs, size_t i, uint64_t id)
{
	size_t n = rs->ninstances > i ? rs->ninstances : i + 1;
	uint64_t *ids = xmalloc(n * sizeof(*ids));

	if (rs->sibling && rs->sibling->list == rs->list) {
		/* the sibling's identities stay: a list of rs's own */
		struct raw_list *l = rs->list == &rs->own ? &rs->sibling->own : &rs->own;
		list_copy_prefix(l, rs->list, rs->ninstances);
		rs->list = l;
		rs->inst = l->inst;
	}

	for (size_t k = 0; k < n; k++)
		ids[k] = k == i ? id : raw_identity_at(rs, k);
	rs->list->nruns = 0;
	for (size_t k = 0; k < n; k++)
		list_set_identity(rs->list, k, ids[k]);
	free(ids);
}

static void
list_free(struct raw_list *l)
{
	free(l->inst);
	free(l->run_start);
	free(l->run_id);
	memset(l, 0, sizeof(*l));
}

/* rs goes back to its own list: a copy of the instances it has. */
static void
take_own(struct raw_set *rs)
{
	if (rs->list != &rs->own) {
		list_copy_prefix(&rs->own, rs->list, rs->ninstances);
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
	list_free(&rs->own);
	rs->woff = NULL;
	rs->wide = 0;
	rs->stride = narrow_stride(rs);
	rs->inst = NULL;
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

GC_HOT void
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
			if (i < used && ri->name)
				ri->name = strset_add(&fresh, strset_str(names, ri->name - 1), NULL) + 1;
			else
				ri->name = 0;
		}
	}
	strset_free(names);
	*names = fresh;
}

GC_HOT void
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

GC_HOT void
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
	size_t cap = l->runs_cap;
	if (xtrim((void **)&l->run_start, &cap, l->nruns, sizeof(*l->run_start)))
		xtrim((void **)&l->run_id, &l->runs_cap, l->nruns, sizeof(*l->run_id));
	/* the list neither read uses any more */
	if (rs->sibling && rs->sibling->list == l)
		list_free(l == &rs->own ? &rs->sibling->own : &rs->own);
}

/* Whether slot ri of rs holds name[0..len). */
static inline __attribute__((always_inline)) int
same_name(const struct raw_set *rs, const struct raw_instance *ri, const char *name, size_t len)
{
	if (!ri->name)
		return 0;
	const char *s = raw_name(rs, ri);
	return strncmp(s, name, len) == 0 && s[len] == '\0';
}

/* raw_set_add's slot i when it is not the sibling's (or no longer is):
 * rs's own list, the name stored when it is not the slot's already. */
static __attribute__((noinline)) struct raw_instance *
add_own(struct raw_set *rs, size_t i, const char *name, size_t len, uint64_t identity)
{
	struct raw_instance *ri;

	list_room(rs, i);
	ri = &rs->inst[i];
	if (!same_name(rs, ri, name, len)) {
		if (!rs->names) {
			rs->names = rs->own_names = xcalloc(1, sizeof(*rs->own_names));
			strset_by_place(rs->names); /* names, not numbers */
		}
		ri->name = strset_add_n(rs->names, name, len, NULL) + 1;
	}
	list_set_identity(rs->list, i, identity);
	return ri;
}

GC_HOT struct raw_instance *
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
		const struct raw_list *shared = rs->list;
		/* the cursor is this read's while its adds have followed the
		 * list from instance 0; otherwise (reads of a pair filled in
		 * turn) it is found again */
		rs->run_at = run_follow(shared, i == 0 ? 0 : rs->run_at, i);
		ri = &shared->inst[i];
		if (shared->run_id[rs->run_at] != identity || !same_name(rs, ri, name, len)) {
			struct raw_list *l = rs->list == &rs->own ? &sib->own : &rs->own;
			list_copy_prefix(l, rs->list, i);
			rs->list = l;
			rs->inst = l->inst;
			ri = add_own(rs, i, name, len, identity);
		}
	} else {
		ri = add_own(rs, i, name, len, identity);
	}
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

/* raw_put_all's body: static, as clang makes clones of a static function
 * only (see CLONED_FOR_AVX2). */
static CLONED_FOR_AVX2 void
put_all(struct raw_set *rs, struct raw_instance *ri, const uint64_t *v, uint64_t mask)
{
	size_t i = (size_t)(ri - rs->inst);
	uint64_t put = 0;

	if (!rs->slot && !rs->wide) {
		/* every field kept, one word each: field f is word f (a NIC's
		 * statistics at once, the usual case) */
		uint32_t *w = raw_words(rs, i);
		uint64_t big = 0, m = mask & rs->keep;
		unsigned lo = m ? (unsigned)__builtin_ctzll(m) : 0;
		unsigned hi = m ? 64 - (unsigned)__builtin_clzll(m) : 0;
		if (m && (m >> lo) == (hi - lo == 64 ? ~0ull : (1ull << (hi - lo)) - 1)) {
			/* fields lo .. hi all put (a NIC's statistics): four
			 * at a time, each value cut to its low word */
			typedef uint64_t u64x4 __attribute__((vector_size(32)));
			typedef uint32_t u32x4 __attribute__((vector_size(16)));
			u64x4 bigs = { 0, 0, 0, 0 };
			unsigned f = lo;
			for (; f + 4 <= hi; f += 4) {
				u64x4 x;
				memcpy(&x, v + f, sizeof(x));
				u32x4 low = __builtin_convertvector(x, u32x4);
				memcpy(w + f, &low, sizeof(low));
				bigs |= x >> 32;
			}
			big = bigs[0] | bigs[1] | bigs[2] | bigs[3];
			for (; f < hi; f++) {
				w[f] = (uint32_t)v[f];
				big |= v[f] >> 32;
			}
		} else {
			for (; m; m &= m - 1) {
				unsigned f = (unsigned)__builtin_ctzll(m);
				w[f] = (uint32_t)v[f];
				big |= v[f] >> 32;
			}
		}
		if (!big) {
			raw_set_present_at(rs, i, raw_present_at(rs, i) | (mask & rs->keep));
			return;
		}
		/* a value needs two words: the general way below */
	} else if (!rs->wide) {
		/* some fields kept, one word each: field f is word slot[f] (a
		 * NIC's statistics when a counter asks for some of them) */
		uint32_t *w = raw_words(rs, i);
		const uint8_t *slot = rs->slot;
		uint64_t any = 0, m = mask & rs->keep;
		for (uint64_t k = m; k; k &= k - 1) {
			unsigned f = (unsigned)__builtin_ctzll(k);
			w[slot[f]] = (uint32_t)v[f];
			any |= v[f];
		}
		if (!(any >> 32)) {
			raw_set_present_at(rs, i, raw_present_at(rs, i) | m);
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
raw_put_all(struct raw_set *rs, struct raw_instance *ri, const uint64_t *v, uint64_t mask)
{
	put_all(rs, ri, v, mask);
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
		dst->gauges = src->gauges;
		dst->pw = present_width(dst->keep);
		dst->nslots = src->set->nfields;
		if (!dst->wide) /* a fresh layout (a kept one has nslots) */
			dst->stride = narrow_stride(dst);
	}
	raw_set_begin(dst);
	for (size_t i = 0, run = 0; i < src->ninstances; i++) {
		const struct raw_instance *s = &src->inst[i];
		const char *name = raw_name(src, s);
		run = run_follow(src->list, run, i);
		struct raw_instance *d = raw_set_add(dst, name, strlen(name),
						     src->list->nruns ? src->list->run_id[run] : 0);
		raw_copy_values(dst, d, src, s);
		raw_set_in_total(dst, d, raw_in_total(src, s));
	}
	dst->mono_ns = src->mono_ns;
	dst->valid = src->valid;
	dst->stamp = src->stamp; /* the same content */
}
