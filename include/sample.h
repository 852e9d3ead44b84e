/*
 * sample.h - raw samples: for each counter set its instances and, per
 * instance, the cumulative raw uint64_t fields a provider read. Sources
 * never compute rates; a raw sample is what the log stores.
 *
 * Storage is reused from read to read: raw_set_begin() forgets the
 * instances but keeps their memory, raw_set_add() reuses a slot (and its
 * name when unchanged), so a steady state allocates nothing. Names are
 * kept once each in a string set: the set's own, or one that several sets
 * share (raw_set_share_names: the engine's two reads of a set). Names no
 * instance has any more are dropped once they outnumber the live ones
 * (raw_sets_compact_names), so interfaces that come and go do not grow it
 * without end.
 *
 * A set keeps only the fields it is told to (raw_set_keep): an instance
 * stores a value per kept field (its slot), found through the set's slot
 * map, so a run that derives two counters of a 40-field set stores two or
 * three values an instance, not 40. Without raw_set_keep every field is
 * kept and field f is slot f.
 *
 * A slot's values take one 32-bit word each until one of them passes 32
 * bits; from then on the slot is wide (two words: low, high) in that read
 * for good (raw_widen). Most counts stay small for a machine's life (an
 * IRQ's count on one CPU, errors, drops, a gauge), so a 512-CPU Interrupt
 * set keeps 4 bytes a cell, while a NIC's byte counts take 8.
 *
 * An instance's record is 4 bytes, its name's number in the set's names;
 * the fields it read (raw_present), its words and its in_total flag live in
 * arrays of the read, found by its index, so raw_put, raw_get, raw_name and
 * the like take the set. Identities are kept by runs: a run is the
 * instances from one index on that have one identity, so the 512 cells of
 * an IRQ row at 512 CPUs keep one identity, not 512 (an interface or a
 * disk, whose identity is its own, has a run of its own: 12 bytes).
 * The records and runs are a list the engine's two reads of a set share
 * while they are equal (raw_set_pair): a read that lists the same
 * instances as the other writes none, and a set of 131,072 Interrupt
 * instances (512 CPUs) keeps one list of them, not two.
 */
#ifndef GETCOUNTER_SAMPLE_H
#define GETCOUNTER_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "counter.h"
#include "util.h"

/* slot[f] of a field the set does not keep */
#define RAW_SLOT_NONE 0xFFu

struct raw_instance {
	uint32_t name; /* its number in the set's names + 1 ("0", "vda",
			* "eth0"), 0 for none: raw_name */
};

/* Instance records, past the instances of the reads using them too: a
 * slot keeps its name for the next read (the same name needs no lookup).
 * The identities of instances 0 .. n - 1 of a read using the list are
 * runs: instance i has run_id[k] for the last k with run_start[k] <= i (a
 * changed identity under the same name is a RESET). */
struct raw_list {
	struct raw_instance *inst;
	size_t cap;
	uint32_t *run_start; /* ascending, run_start[0] == 0 */
	uint64_t *run_id;
	size_t nruns, runs_cap;
};

struct raw_set {
	const struct counter_set *set;
	uint64_t mono_ns; /* monotonic time taken right after this set's read */
	int valid;        /* the read succeeded */
	size_t ninstances;
	size_t cap;       /* of values, present and in_total, in instances */
	struct raw_instance *inst; /* list->inst: the instances' records */
	struct raw_list *list;     /* &own, or the sibling's own while they are equal */
	struct raw_list own;
	struct raw_set *sibling;   /* the other read of a pair (raw_set_pair) */
	uint32_t *values; /* stride words per instance slot: each kept field's
			   * value in one word, or two when its slot is wide */
	uint64_t wide;    /* slots whose values take two words (low, high) */
	uint8_t *woff;    /* per slot, its first word; NULL (slot s is word s)
			   * while no slot is wide */
	unsigned stride;  /* words per instance slot: nslots (at least 1) plus
			   * one per wide slot */
	void *present;    /* per instance slot: bit f, field f was read (and is kept),
			   * in pw bytes (raw_present_at) */
	uint8_t pw;       /* 1, 2, 4 or 8: bytes that hold the highest field kept */
	uint8_t *in_total; /* bit i: instance slot i is counted in _Total */
	uint64_t keep;    /* fields kept (all of them without raw_set_keep) */
	uint64_t gauges;  /* set's fields of kind FK_GAUGE: a step's every pair
			   * asks, and one word is one line where the set's
			   * field table is many */
	uint8_t *slot;    /* field -> word; NULL when every field is kept */
	unsigned nslots;  /* fields kept */
	struct strset *names;     /* the instances' names: shared, or own_names */
	struct strset *own_names; /* allocated at the first name */
	uint64_t stamp;   /* names this read's content: new at each raw_set_begin,
			   * kept by raw_set_copy (0: never read) */
	size_t run_at;    /* raw_set_add on the sibling's list: the run of the
			   * last instance added */
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

/* Initialise an empty set for counter set cs, keeping every field. */
void raw_set_init(struct raw_set *rs, const struct counter_set *cs);
/* Keep only the fields in mask (at least a word an instance is stored).
 * Forgets the instances. */
void raw_set_keep(struct raw_set *rs, uint64_t mask);
/* Keep instance names in names (borrowed: it must outlive rs) instead of a
 * string set of rs's own. Forgets the instances. */
void raw_set_share_names(struct raw_set *rs, struct strset *names);
/* Make a and b (one set's two reads, taken in turn) keep their names in
 * names (as raw_set_share_names) and share their instance records while
 * they list the same instances: a read that differs from the other at
 * instance i takes a list of its own from there. Forgets the instances.
 * Neither may move in memory after; free both with raw_set_free. */
void raw_set_pair(struct raw_set *a, struct raw_set *b, struct strset *names);
/* When the names of sets[0] (and those of sets[1..n) that share them) hold
 * more than twice the instances the sets have now (and 64 more), keep only
 * those: the instances' names move, and the slots past each set's
 * instances forget theirs. A set with names of its own does this itself at
 * raw_set_begin. */
void raw_sets_compact_names(struct raw_set *const *sets, size_t n);
/* Free what the set owns (not rs itself). */
void raw_set_free(struct raw_set *rs);
/* Start a new read: no instances, memory kept, a new stamp. */
void raw_set_begin(struct raw_set *rs);
/* Give back the memory past the instances when more than an eighth of it
 * is unused (the instance array grows by doubling). */
void raw_set_trim(struct raw_set *rs);
/* Append an instance named name[0..len), counted in _Total, with all
 * fields zero and absent; the returned pointer is valid until the next
 * raw_set_add. */
struct raw_instance *raw_set_add(struct raw_set *rs, const char *name, size_t len,
				 uint64_t identity);

/* The name of instance ri of rs ("eth0"), in rs's names. */
static inline const char *
raw_name(const struct raw_set *rs, const struct raw_instance *ri)
{
	return strset_str(rs->names, ri->name - 1);
}

static inline const char *
raw_name_at(const struct raw_set *rs, size_t i)
{
	return raw_name(rs, &rs->inst[i]);
}

/* Whether instance i of a and j of b have one name: at once when they
 * keep names in one string set. */
static inline int
raw_same_name(const struct raw_set *a, size_t i, const struct raw_set *b, size_t j)
{
	if (a->names == b->names)
		return a->inst[i].name == b->inst[j].name;
	return strcmp(raw_name_at(a, i), raw_name_at(b, j)) == 0;
}

/* Give instance i of rs identity id (a read sharing its sibling's list
 * takes a list of its own first): for a test or a tool that builds a read
 * by hand. */
void raw_set_identity(struct raw_set *rs, size_t i, uint64_t id);

/* The identity of instance i of rs (0 for an instance of a set built by
 * hand, with no runs): a search of the runs. */
uint64_t raw_identity_at(const struct raw_set *rs, size_t i);

static inline uint64_t
raw_identity(const struct raw_set *rs, const struct raw_instance *ri)
{
	return raw_identity_at(rs, (size_t)(ri - rs->inst));
}

/* Whether instance i of a and j of b have one identity: at once, with no
 * search, when they are a set's two reads sharing their list (the usual
 * case: a read follows its sibling's list only while they agree) and i is
 * j. */
static inline int
raw_same_identity(const struct raw_set *a, size_t i, const struct raw_set *b, size_t j)
{
	return (i == j && a->list == b->list) || raw_identity_at(a, i) == raw_identity_at(b, j);
}

/* The word of field f in an instance's words, or RAW_SLOT_NONE. */
static inline unsigned
raw_slot(const struct raw_set *rs, unsigned f)
{
	return rs->slot ? rs->slot[f] : f;
}

/* The words of instance slot i of rs (raw_word reads a slot's value). */
static inline uint32_t *
raw_words(const struct raw_set *rs, size_t i)
{
	return rs->values + i * rs->stride;
}

/* The value of slot s in words w (raw_words of rs). */
static inline uint64_t
raw_word(const struct raw_set *rs, const uint32_t *w, unsigned s)
{
	if (!rs->wide)
		return w[s];
	w += rs->woff[s];
	return rs->wide >> s & 1 ? (uint64_t)w[0] | (uint64_t)w[1] << 32 : w[0];
}

/* Make slot s of rs wide (two words a value), keeping every value the
 * read holds: called by raw_put for a value past 32 bits. */
void raw_widen(struct raw_set *rs, unsigned s);

/* Store v in slot s of words w (raw_words of rs); the slot must be wide
 * if v needs it (raw_put sees to it). */
static inline void
raw_word_put(const struct raw_set *rs, uint32_t *w, unsigned s, uint64_t v)
{
	if (!rs->wide) {
		w[s] = (uint32_t)v;
		return;
	}
	w += rs->woff[s];
	w[0] = (uint32_t)v;
	if (rs->wide >> s & 1)
		w[1] = (uint32_t)(v >> 32);
}

/* The fields instance i of rs read (bit f for field f). */
static inline uint64_t
raw_present_at(const struct raw_set *rs, size_t i)
{
	switch (rs->pw) {
	case 1:
		return ((const uint8_t *)rs->present)[i];
	case 2:
		return ((const uint16_t *)rs->present)[i];
	case 4:
		return ((const uint32_t *)rs->present)[i];
	default:
		return ((const uint64_t *)rs->present)[i];
	}
}

static inline void
raw_set_present_at(struct raw_set *rs, size_t i, uint64_t mask)
{
	switch (rs->pw) {
	case 1:
		((uint8_t *)rs->present)[i] = (uint8_t)mask;
		break;
	case 2:
		((uint16_t *)rs->present)[i] = (uint16_t)mask;
		break;
	case 4:
		((uint32_t *)rs->present)[i] = (uint32_t)mask;
		break;
	default:
		((uint64_t *)rs->present)[i] = mask;
	}
}

/* Record value v for field f of instance ri of rs (marks it present); a
 * field the set does not keep is dropped. */
static inline void
raw_put(struct raw_set *rs, struct raw_instance *ri, unsigned f, uint64_t v)
{
	unsigned s = raw_slot(rs, f);
	size_t i = (size_t)(ri - rs->inst);

	if (s == RAW_SLOT_NONE)
		return;
	if (v > UINT32_MAX && !(rs->wide >> s & 1))
		raw_widen(rs, s);
	raw_word_put(rs, raw_words(rs, i), s, v);
	raw_set_present_at(rs, i, raw_present_at(rs, i) | (uint64_t)1 << f);
}

/* raw_put of v[f] for each field f in mask, at once. */
void raw_put_all(struct raw_set *rs, struct raw_instance *ri, const uint64_t *v, uint64_t mask);

/* The fields instance ri of rs read: bit f for field f. */
static inline uint64_t
raw_present(const struct raw_set *rs, const struct raw_instance *ri)
{
	return raw_present_at(rs, (size_t)(ri - rs->inst));
}

/* Set them (fields not kept must not be in mask). */
static inline void
raw_set_present(struct raw_set *rs, const struct raw_instance *ri, uint64_t mask)
{
	raw_set_present_at(rs, (size_t)(ri - rs->inst), mask);
}

/* The value of field f of instance ri of rs; f must be present. */
static inline uint64_t
raw_get(const struct raw_set *rs, const struct raw_instance *ri, unsigned f)
{
	return raw_word(rs, raw_words(rs, (size_t)(ri - rs->inst)), raw_slot(rs, f));
}

/* Whether instance i of rs is counted in _Total. */
static inline int
raw_in_total_at(const struct raw_set *rs, size_t i)
{
	return rs->in_total[i >> 3] >> (i & 7) & 1;
}

static inline int
raw_in_total(const struct raw_set *rs, const struct raw_instance *ri)
{
	return raw_in_total_at(rs, (size_t)(ri - rs->inst));
}

static inline void
raw_set_in_total(struct raw_set *rs, const struct raw_instance *ri, int on)
{
	size_t i = (size_t)(ri - rs->inst);
	uint8_t b = (uint8_t)(1u << (i & 7));

	rs->in_total[i >> 3] = (uint8_t)(on ? rs->in_total[i >> 3] | b : rs->in_total[i >> 3] & ~b);
}

/* Copy the values and fields read of instance s of src into instance d of
 * dst (the same counter set): the fields dst does not keep are dropped. */
void raw_copy_values(struct raw_set *dst, struct raw_instance *d, const struct raw_set *src,
		     const struct raw_instance *s);
/* Copy src into dst (same counter set), reusing dst's memory; dst keeps
 * what it keeps (the fields src has that dst does not keep are dropped). */
void raw_set_copy(struct raw_set *dst, const struct raw_set *src);

#endif
