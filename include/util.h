/*
 * util.h - small helpers every module uses: allocation that aborts on
 * failure, the error record functions fill for main to print, and clocks.
 */
#ifndef GETCOUNTER_UTIL_H
#define GETCOUNTER_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* A message naming the problem (file, line, field, value); filled by the
 * function that failed, printed by main. */
struct err {
	char msg[512];
};

/* Fill err (which may be NULL) with a printf-style message; returns -1. */
int err_set(struct err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Allocation helpers: never return NULL; print and abort on failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Grow *p (an array of *cap elements of size elem) to hold at least want. */
void xgrow(void **p, size_t *cap, size_t want, size_t elem);
/* Shrink *p (*cap elements of elem bytes) to n elements (at least one)
 * when more than an eighth of it is unused: an array grown by doubling
 * can leave half of itself unused. Nonzero when it shrank. */
int xtrim(void **p, size_t *cap, size_t n, size_t elem);

/* A set of strings stored once each, in chunks, so that they never move
 * (callers keep the pointers), numbered 0, 1, ... in order of first
 * appearance; an id costs 4 bytes (where its string is stored). A set made
 * with strset_by_place numbers each string by that place instead (ids
 * that grow but are not dense), so a string costs its bytes and nothing
 * more once the set has settled (strset_trim). No string has a heap block
 * of its own. Zero-initialize; free with strset_free. */
struct strset {
	char **chunks;       /* every chunk, the last one being filled */
	uint32_t *chunk_len; /* bytes used in each chunk */
	size_t nchunks, chunk_size;
	uint32_t *locs;      /* id -> place (chunk << 16 | offset); none by place */
	size_t n, locs_cap;  /* strings */
	uint32_t *slots;     /* open addressing: id + 1, 0 empty */
	size_t nslots;       /* at least 4/3 of n; 0 after strset_trim */
	int by_place;        /* ids are places (strset_by_place) */
};

/* Chunks hold at most 64 KiB, so a place is the chunk's index above 16
 * bits of offset (a longer string has a chunk of its own, at offset 0). */
#define STRSET_CHUNK_MAX 65536u

/* Number ss's strings by where they are stored (ss empty). */
void strset_by_place(struct strset *ss);

/* The string of id. */
static inline const char *
strset_str(const struct strset *ss, uint32_t id)
{
	uint32_t place = ss->by_place ? id : ss->locs[id];
	return ss->chunks[place >> 16] + (place & 0xFFFFu);
}

/* The id of s (added the first time); *stored, when not NULL, is the set's
 * copy of s. */
uint32_t strset_add(struct strset *ss, const char *s, const char **stored);
/* The same for s[0..len), which need not end in a NUL. */
uint32_t strset_add_n(struct strset *ss, const char *s, size_t len, const char **stored);
void strset_free(struct strset *ss);
/* Once the set has settled: give back the lookup table (the next add
 * builds it again, in time linear in n). Ids and strings stay. */
void strset_trim(struct strset *ss);

/* The first slot, of a table of n, of a key whose hash is h (strset's and
 * idmap's): h mixed first, so that keys alike but for their last bits
 * (FNV-1a of names that differ only at the end) spread over the table. */
size_t hash_slot(uint64_t h, size_t n);

/* Strings appended one after another, with no lookup, until
 * strpool_reset, which keeps the memory for the next ones: a set of names
 * rebuilt again and again (a log's keyframes) allocates nothing once it
 * has held the most it holds. Zero-initialize; free with strpool_free. */
struct strpool {
	char **chunks;
	size_t *sizes;
	size_t nchunks, cur, used;
};

/* A copy of s, valid until strpool_reset or strpool_free. */
const char *strpool_add(struct strpool *p, const char *s);
void strpool_reset(struct strpool *p);
void strpool_free(struct strpool *p);

/* Ids id .. id + n - 1, whose keys are key .. key + n - 1. */
struct idrun {
	uint64_t key;
	uint32_t id, n;
};

/* Numbers for 64-bit keys, 0, 1, ... in order of first appearance. Keys
 * that count up with their ids (a wildcard's columns: one counter, its
 * instances' names numbered in order) are kept as one run, so a settled
 * map costs 16 bytes a run, not 8 a key; the keys one by one and the
 * lookup table exist only while ids are added (idmap_trim drops them, the
 * next add builds them again). Zero-initialize; free with idmap_free. */
struct idmap {
	struct idrun *runs;
	size_t nruns, runs_cap;
	size_t n;
	uint64_t *keys;  /* id -> key, while adding; NULL after idmap_trim */
	size_t keys_cap;
	uint32_t *slots; /* open addressing: id + 1, 0 empty */
	size_t nslots;   /* at least 4/3 of n; 0 after idmap_trim */
};

/* The id of key (added the first time). */
uint32_t idmap_add(struct idmap *m, uint64_t key);
void idmap_free(struct idmap *m);
/* Once the map has settled: drop the keys one by one and the lookup table,
 * keep the runs. */
void idmap_trim(struct idmap *m);

/* The run of runs[0 .. nruns) that holds x: runs of stride bytes, in
 * order and covering x, each with a uint32_t start at byte first and a
 * uint32_t count at byte count. Runs are mostly asked for in order: *hint,
 * the last answer, is tried first, then the next run, then a binary search
 * for the last run that starts at or before x. */
static inline size_t
run_find(const void *runs, size_t nruns, size_t stride, size_t first, size_t count, uint32_t x,
	 size_t *hint)
{
	const unsigned char *b = runs;
#define RUN_FIELD(k, off) (*(const uint32_t *)(const void *)(b + (k) * stride + (off)))
#define RUN_HOLDS(k) (RUN_FIELD(k, first) <= x && x - RUN_FIELD(k, first) < RUN_FIELD(k, count))
	size_t k = *hint, lo = 0, hi = nruns;

	if (k < nruns && RUN_HOLDS(k))
		return k;
	if (k + 1 < nruns && RUN_HOLDS(k + 1))
		return *hint = k + 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (RUN_FIELD(mid, first) <= x)
			lo = mid;
		else
			hi = mid;
	}
#undef RUN_HOLDS
#undef RUN_FIELD
	return *hint = lo;
}

/* The key of id (< m->n). */
static inline uint64_t
idmap_key(const struct idmap *m, uint32_t id)
{
	static _Thread_local size_t hint;
	const struct idrun *r = &m->runs[run_find(m->runs, m->nruns, sizeof(*m->runs),
						  offsetof(struct idrun, id),
						  offsetof(struct idrun, n), id, &hint)];
	return r->key + (id - r->id);
}

/* The value of hex digit c, or -1. */
int hex_digit(char c);

/* FNV-1a of s: hash tables, and an instance's identity where the kernel
 * gives none (the same value in every run, so logs agree). */
uint64_t str_hash(const char *s);
/* The same of s[0..len). */
uint64_t str_hash_n(const char *s, size_t len);

/* CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds. */
uint64_t now_mono_ns(void);
int64_t now_wall_ns(void);

/* Where key is among n records of size bytes from base, whose names (a
 * char array at offset off in each) are in strverscmp order: its record's
 * index, with *found 1, or the index it would go at, with *found 0. */
size_t name_place(const void *base, size_t n, size_t size, size_t off, const char *key,
		  int *found);

/* Case-insensitive glob match where '*' matches any run of characters
 * (nothing else is special). */
int glob_match_ci(const char *pattern, const char *s);

/* Parse an unsigned decimal at *p, advancing *p; returns 0, or -1 if no
 * digit is there. Saturates at UINT64_MAX. Inline: the readers' loops call
 * it for every number of every file; nineteen digits cannot pass 2^64, so
 * only a longer number pays for the test. */
static inline int
parse_u64(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	unsigned d, n = 0;

	if ((d = (unsigned)(unsigned char)*p - '0') > 9)
		return -1;
	do {
		v = v * 10 + d;
		p++;
	} while (++n < 19 && (d = (unsigned)(unsigned char)*p - '0') <= 9);
	while ((d = (unsigned)(unsigned char)*p - '0') <= 9) {
		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
		p++;
	}
	*pp = p;
	*out = v;
	return 0;
}

/* Write v in decimal at buf (FMT_UINT_MAX bytes of room), with no NUL;
 * returns the digits written. */
#define FMT_UINT_MAX 20
size_t fmt_uint(char *buf, uint64_t v);

/* Append the n bytes of s at *at in buf (cap bytes, the last kept for a
 * NUL) as far as they fit, counting them all in *at, as snprintf counts:
 * text made of parts without a printf (path_format, row_short_name).
 * The caller ends it with str_end. */
void str_append(char *buf, size_t cap, size_t *at, const char *s, size_t n);

/* End the text str_append made in buf (cap bytes) at *at, cut to fit. */
static inline void
str_end(char *buf, size_t cap, size_t at)
{
	if (cap)
		buf[at < cap ? at : cap - 1] = '\0';
}

/* Skip spaces and tabs. */
static inline const char *
skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A function made twice where the machine allows: for AVX2 and for any
 * x86-64, the one to run chosen when the program loads (a loop over
 * vectors of 32 bytes takes one instruction a step on AVX2, two on SSE2).
 * Static functions only: clang (14) defines no symbol for an exported one
 * that other files can call. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CLONED_FOR_AVX2 __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef CLONED_FOR_AVX2
#define CLONED_FOR_AVX2
#endif

/* The code every sample runs whatever sets it reads (the engine's step,
 * the reads' bookkeeping, derive's passes), laid out together: a
 * .text.hot section, which GNU ld and lld place before the rest of the
 * text. After an idle interval a sample finds its code gone from the
 * caches and the TLB; among the set-up code, one counter's sample touched
 * 203 lines of code on 29 pages (bench/README.md, "Cold caches"). Not for
 * a CLONED_FOR_AVX2 function (clang refuses both). */
#define GC_HOT __attribute__((section(".text.hot.getcounter")))

#endif
