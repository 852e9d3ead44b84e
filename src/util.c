/*
 * util.c - allocation that aborts on failure, error records, clocks, and
 * the small text helpers every parser shares.
 */
#define _GNU_SOURCE /* strverscmp */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

int
err_set(struct err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static void *
check(void *p, size_t n)
{
	if (!p && n) {
		fprintf(stderr, "getcounter: out of memory (%zu bytes)\n", n);
		abort();
	}
	return p;
}

void *
xmalloc(size_t n)
{
	return check(malloc(n ? n : 1), n);
}

void *
xcalloc(size_t n, size_t size)
{
	return check(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *
xrealloc(void *p, size_t n)
{
	return check(realloc(p, n ? n : 1), n);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

GC_HOT void
xgrow(void **p, size_t *cap, size_t want, size_t elem)
{
	size_t c = *cap;

	if (want <= c)
		return;
	if (c < 8)
		c = 8;
	while (c < want)
		c *= 2;
	*p = xrealloc(*p, c * elem);
	memset((char *)*p + *cap * elem, 0, (c - *cap) * elem);
	*cap = c;
}

GC_HOT int
xtrim(void **p, size_t *cap, size_t n, size_t elem)
{
	if (n == 0)
		n = 1;
	if (*cap <= n + n / 8)
		return 0;
	*p = xrealloc(*p, n * elem);
	*cap = n;
	return 1;
}

int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

uint64_t
str_hash(const char *s)
{
	return str_hash_n(s, strlen(s));
}

uint64_t
str_hash_n(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603u;
	for (size_t k = 0; k < len; k++)
		h = (h ^ (unsigned char)s[k]) * 1099511628211u;
	return h;
}

/* Copy s[0..len) and a NUL into the current chunk, starting a new one
 * when it does not fit; strings never move. Chunks double from 1 KiB to
 * 64 KiB, so that a set of a few names stays small. The new string's id. */
static uint32_t
strset_store(struct strset *ss, const char *s, size_t len)
{
	size_t used = ss->nchunks ? ss->chunk_len[ss->nchunks - 1] : 0;

	if (!ss->nchunks || used + len + 1 > ss->chunk_size) {
		size_t size = ss->nchunks ? ss->chunk_size * 2 : 1024;
		if (size > STRSET_CHUNK_MAX)
			size = STRSET_CHUNK_MAX;
		if (size < len + 1)
			size = len + 1;
		if (ss->nchunks >= 65536) { /* 4 GiB of names: ids are 32 bits */
			fprintf(stderr, "getcounter: out of memory (%zu names)\n", ss->n);
			abort();
		}
		ss->chunks = xrealloc(ss->chunks, (ss->nchunks + 1) * sizeof(*ss->chunks));
		ss->chunk_len = xrealloc(ss->chunk_len, (ss->nchunks + 1) * sizeof(*ss->chunk_len));
		ss->chunks[ss->nchunks] = xmalloc(size);
		ss->chunk_len[ss->nchunks++] = 0;
		ss->chunk_size = size;
		used = 0;
	}
	char *d = ss->chunks[ss->nchunks - 1] + used;
	memcpy(d, s, len);
	d[len] = '\0';
	ss->chunk_len[ss->nchunks - 1] = (uint32_t)(used + len + 1);
	return (uint32_t)((ss->nchunks - 1) << 16 | used);
}

uint32_t
strset_add(struct strset *ss, const char *s, const char **stored)
{
	return strset_add_n(ss, s, strlen(s), stored);
}

/* A 64-bit mix (splitmix64's finalizer): keys that differ in a few low
 * bits of either half spread over the whole table. */
static uint64_t
key_hash(uint64_t k)
{
	k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9u;
	k = (k ^ (k >> 27)) * 0x94d049bb133111ebu;
	return k ^ (k >> 31);
}

/* Open addressing over ids, shared by strset and idmap: a table of any
 * size n (slot i holds id + 1, 0 when empty), a key's first slot scaled
 * from the high bits of its mixed 64-bit hash, linear probing, grown
 * (doubled) at a load of 3/4. The table serves adds only: the _trim
 * functions drop it once a set has settled, and the next add builds it
 * again from the ids, so a settled set costs its strings or keys alone.
 * A string's FNV-1a is mixed too: its last multiply leaves the high bits
 * the same for names that differ only in their last characters (sd1 ...
 * sd4000 made one run of probes that every add walked). */
size_t
hash_slot(uint64_t h, size_t n)
{
	return (size_t)(((unsigned __int128)key_hash(h) * n) >> 64);
}

static size_t
slot_next(size_t i, size_t n)
{
	return i + 1 == n ? 0 : i + 1;
}

/* Nonzero when a table of n slots is full for one more id. */
static int
slots_full(size_t count, size_t n)
{
	return (count + 1) * 4 > n * 3;
}

/* The size to build a full (or dropped) table of n slots at for count
 * ids: doubled, and at most half full. */
static size_t
slots_next(size_t count, size_t n)
{
	size_t want = n ? n * 2 : 64;
	return want < count * 2 + 2 ? count * 2 + 2 : want;
}

void
strset_by_place(struct strset *ss)
{
	ss->by_place = 1;
}

static void
strset_rehash(struct strset *ss, size_t n)
{
	uint32_t id = 0;

	free(ss->slots);
	ss->slots = xcalloc(n, sizeof(*ss->slots));
	ss->nslots = n;
	/* every string, chunk after chunk: ids in order */
	for (size_t c = 0; c < ss->nchunks; c++)
		for (uint32_t off = 0; off < ss->chunk_len[c]; id++) {
			const char *str = ss->chunks[c] + off;
			size_t len = strlen(str);
			size_t i = hash_slot(str_hash_n(str, len), n);
			while (ss->slots[i])
				i = slot_next(i, n);
			ss->slots[i] = (ss->by_place ? (uint32_t)(c << 16 | off) : id) + 1;
			off += (uint32_t)len + 1;
		}
}

uint32_t
strset_add_n(struct strset *ss, const char *s, size_t len, const char **stored)
{
	size_t i;

	len = strnlen(s, len); /* a NUL ends the string */
	if (slots_full(ss->n, ss->nslots))
		strset_rehash(ss, slots_next(ss->n, ss->nslots));
	for (i = hash_slot(str_hash_n(s, len), ss->nslots); ss->slots[i];
	     i = slot_next(i, ss->nslots)) {
		uint32_t id = ss->slots[i] - 1;
		const char *str = strset_str(ss, id);
		if (strncmp(str, s, len) == 0 && str[len] == '\0') {
			if (stored)
				*stored = str;
			return id;
		}
	}
	uint32_t place = strset_store(ss, s, len), id = place;
	if (!ss->by_place) {
		xgrow((void **)&ss->locs, &ss->locs_cap, ss->n + 1, sizeof(*ss->locs));
		ss->locs[ss->n] = place;
		id = (uint32_t)ss->n;
	}
	ss->slots[i] = id + 1;
	ss->n++;
	if (stored)
		*stored = strset_str(ss, id);
	return id;
}

void
strset_trim(struct strset *ss)
{
	xtrim((void **)&ss->locs, &ss->locs_cap, ss->n, sizeof(*ss->locs));
	free(ss->slots);
	ss->slots = NULL;
	ss->nslots = 0;
}

void
strset_free(struct strset *ss)
{
	for (size_t k = 0; k < ss->nchunks; k++)
		free(ss->chunks[k]);
	free(ss->chunks);
	free(ss->chunk_len);
	free(ss->locs);
	free(ss->slots);
	memset(ss, 0, sizeof(*ss));
}

const char *
strpool_add(struct strpool *p, const char *s)
{
	size_t len = strlen(s) + 1;

	/* the chunk in use, else the next kept one that fits, else a new one */
	while (p->cur < p->nchunks && p->used + len > p->sizes[p->cur]) {
		p->cur++;
		p->used = 0;
	}
	if (p->cur == p->nchunks) {
		size_t size = p->nchunks ? p->sizes[p->nchunks - 1] * 2 : 1024;
		if (size > 65536)
			size = 65536;
		if (size < len)
			size = len;
		p->chunks = xrealloc(p->chunks, (p->nchunks + 1) * sizeof(*p->chunks));
		p->sizes = xrealloc(p->sizes, (p->nchunks + 1) * sizeof(*p->sizes));
		p->chunks[p->nchunks] = xmalloc(size);
		p->sizes[p->nchunks++] = size;
		p->used = 0;
	}
	char *d = p->chunks[p->cur] + p->used;
	memcpy(d, s, len);
	p->used += len;
	return d;
}

void
strpool_reset(struct strpool *p)
{
	p->cur = 0;
	p->used = 0;
}

void
strpool_free(struct strpool *p)
{
	for (size_t k = 0; k < p->nchunks; k++)
		free(p->chunks[k]);
	free(p->chunks);
	free(p->sizes);
	memset(p, 0, sizeof(*p));
}

static void
idmap_rehash(struct idmap *m, size_t n)
{
	free(m->slots);
	m->slots = xcalloc(n, sizeof(*m->slots));
	m->nslots = n;
	for (size_t id = 0; id < m->n; id++) {
		size_t i = hash_slot(m->keys[id], n);
		while (m->slots[i])
			i = slot_next(i, n);
		m->slots[i] = (uint32_t)id + 1;
	}
}

uint32_t
idmap_add(struct idmap *m, uint64_t key)
{
	size_t i;

	if (!m->keys && m->n) { /* trimmed: the keys one by one again */
		m->keys_cap = m->n + m->n / 8 + 8;
		m->keys = xmalloc(m->keys_cap * sizeof(*m->keys));
		for (size_t k = 0; k < m->nruns; k++)
			for (uint32_t q = 0; q < m->runs[k].n; q++)
				m->keys[m->runs[k].id + q] = m->runs[k].key + q;
	}
	if (slots_full(m->n, m->nslots))
		idmap_rehash(m, slots_next(m->n, m->nslots));
	for (i = hash_slot(key, m->nslots); m->slots[i]; i = slot_next(i, m->nslots))
		if (m->keys[m->slots[i] - 1] == key)
			return m->slots[i] - 1;
	xgrow((void **)&m->keys, &m->keys_cap, m->n + 1, sizeof(*m->keys));
	m->keys[m->n] = key;
	m->slots[i] = (uint32_t)m->n + 1;
	struct idrun *last = m->nruns ? &m->runs[m->nruns - 1] : NULL;
	if (last && last->key + last->n == key) {
		last->n++;
	} else {
		xgrow((void **)&m->runs, &m->runs_cap, m->nruns + 1, sizeof(*m->runs));
		m->runs[m->nruns++] = (struct idrun){ key, (uint32_t)m->n, 1 };
	}
	return (uint32_t)m->n++;
}

void
idmap_trim(struct idmap *m)
{
	xtrim((void **)&m->runs, &m->runs_cap, m->nruns, sizeof(*m->runs));
	free(m->keys);
	m->keys = NULL;
	m->keys_cap = 0;
	free(m->slots);
	m->slots = NULL;
	m->nslots = 0;
}

void
idmap_free(struct idmap *m)
{
	free(m->runs);
	free(m->keys);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

GC_HOT uint64_t
now_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

GC_HOT int64_t
now_wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

size_t
name_place(const void *base, size_t n, size_t size, size_t off, const char *key, int *found)
{
	size_t lo = 0, hi = n;

	*found = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strverscmp((const char *)base + mid * size + off, key);
		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
glob_match_ci(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat && tolower((unsigned char)*pat) == tolower((unsigned char)*s)) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else {
			return 0;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

void
str_append(char *buf, size_t cap, size_t *at, const char *s, size_t n)
{
	if (*at < cap) {
		size_t room = cap - 1 - *at;
		memcpy(buf + *at, s, n < room ? n : room);
	}
	*at += n;
}

size_t
fmt_uint(char *buf, uint64_t v)
{
	char digits[FMT_UINT_MAX];
	size_t k = sizeof(digits);

	do {
		digits[--k] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(buf, digits + k, sizeof(digits) - k);
	return sizeof(digits) - k;
}

