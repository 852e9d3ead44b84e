/*
 * test_gclog.c - the .gcl writer and reader (src/gclog.c) through their
 * public API: hand-made sets written to a temp file and read back exactly
 * (varint and zig-zag edges, wraps and resets, present masks, identities,
 * in_total, keys, instances that come and go, sets not read, failed reads,
 * wall and monotonic stamps), keyframe placement and reading from one, a
 * torn tail cut at every length, a flipped byte at every position of the
 * middle of a log, headers that must be refused, a circular log that wraps
 * several times, --append (clean and after a torn tail), a gap, --max-size,
 * and gclog_set_copy of every provider's set.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gclog.h"
#include "provider.h"
#include "sample.h"
#include "util.h"

/* The format's bytes, as man/gclog.5 and the header of src/gclog.c give them. */
static const uint8_t sync_marker[8] = { 0xf7, 'G', 'C', 'L', 's', 'y', 'n', 'c' };
enum { REC_SESSION = 1, REC_SCHEMA, REC_INSTANCE, REC_KEYFRAME, REC_SAMPLE, REC_MARK,
       REC_SEGMENT, REC_PATHS };
#define UNIT_MARKER (-1)

/* ---- two hand-made sets ------------------------------------------------- */

enum { TA, TB, TC };

static const struct field_desc t_fields[] = {
	[TA] = { "a", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[TB] = { "b", FW_32, FK_COUNTER, FB_NONE, NO_PROM },
	[TC] = { "c", FW_64, FK_GAUGE, FB_NONE, NO_PROM },
};

static const struct counter_desc t_counters[] = {
	{ .name = "A/sec", .type = CT_RATE, .num = { { TA, 1 } }, .unit = "/s",
	  .help = "Field a per second." },
	{ .name = "B Delta", .type = CT_DELTA, .num = { { TB, 1 } }, .scale = 512, .unit = "B",
	  .help = "Field b's change times 512." },
	{ .name = "C", .type = CT_RAW, .num = { { TC, 1 } }, .scale = 0.5, .unit = "",
	  .help = "Half of gauge c." },
	{ .name = "% A of A+B", .type = CT_SAMPLE_FRACTION, .num = { { TA, 1 } },
	  .den = { { TA, 1 }, { TB, 1 } }, .has_zero_base = 1, .zero_base = 100, .clamp100 = 1,
	  .total = TOTAL_MEAN, .unit = "%", .help = "Field a's share of a and b." },
};

static const struct counter_set t_set = {
	.name = "Test Set",
	.alias = "TS",
	.help = "A multi-instance set for the log tests.",
	.multi_instance = 1,
	.has_total = 1,
	.fields = t_fields,
	.nfields = ARRAY_SIZE(t_fields),
	.counters = t_counters,
	.ncounters = ARRAY_SIZE(t_counters),
};

enum { OX, OY };

static const struct field_desc o_fields[] = {
	[OX] = { "x", FW_ULONG, FK_COUNTER, FB_NONE, NO_PROM },
	[OY] = { "y", FW_64, FK_GAUGE, FB_NONE, NO_PROM },
};

static const struct counter_desc o_counters[] = {
	{ .name = "X/sec", .type = CT_RATE, .num = { { OX, 1 } }, .unit = "/s",
	  .help = "Field x per second." },
	{ .name = "Y", .type = CT_RAW, .num = { { OY, 1 } }, .unit = "",
	  .help = "Gauge y." },
};

static const struct counter_set o_set = {
	.name = "Other",
	.help = "A single-instance set for the log tests.",
	.fields = o_fields,
	.nfields = ARRAY_SIZE(o_fields),
	.counters = o_counters,
	.ncounters = ARRAY_SIZE(o_counters),
};

/* Set 0 records every field of t_set and is keyed; set 1 records only
 * o_set's x (the Y counter is not recorded), so y must never come back. */
static const uint64_t rec_mask[2] = { 7, 1 };

static size_t
key_fn(void *ctx, const char *instance, char *buf, size_t n)
{
	(void)ctx;
	return (size_t)snprintf(buf, n, "key:%s", instance);
}

static void
test_session(struct gclog_session *s, uint64_t id)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	snprintf(s->host, sizeof(s->host), "testhost");
	snprintf(s->kernel, sizeof(s->kernel), "6.1.0-test");
	snprintf(s->machine, sizeof(s->machine), "x86_64");
	s->ulong_bits = 32;
	s->user_hz = 250;
	s->page_size = 16384;
	snprintf(s->boot_id, sizeof(s->boot_id), "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
	s->start_ns = 1700000000123456789LL;
	snprintf(s->tz_name, sizeof(s->tz_name), "Europe/Berlin");
	s->tz_offset_s = 3600;
	snprintf(s->version, sizeof(s->version), "9.8.7");
}

static void
check_session(const struct gclog_session *got, const struct gclog_session *want)
{
	assert_non_null(got);
	assert_true(got->id == want->id);
	assert_string_equal(got->host, want->host);
	assert_string_equal(got->kernel, want->kernel);
	assert_string_equal(got->machine, want->machine);
	assert_int_equal(got->ulong_bits, want->ulong_bits);
	assert_int_equal(got->user_hz, want->user_hz);
	assert_int_equal(got->page_size, want->page_size);
	assert_string_equal(got->boot_id, want->boot_id);
	assert_true(got->start_ns == want->start_ns);
	assert_string_equal(got->tz_name, want->tz_name);
	assert_int_equal(got->tz_offset_s, want->tz_offset_s);
	assert_string_equal(got->version, want->version);
}

/* ---- files -------------------------------------------------------------- */

static int
tmp_file(char *path, size_t n)
{
	snprintf(path, n, "/tmp/test_gclog.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	return fd;
}

static uint8_t *
slurp(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	*len = (size_t)st.st_size;
	uint8_t *p = malloc(*len ? *len : 1);
	assert_non_null(p);
	assert_true(pread(fd, p, *len, 0) == (ssize_t)*len);
	close(fd);
	return p;
}

static void
spew(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_true(write(fd, p, len) == (ssize_t)len);
	close(fd);
}

/* A heap copy of exactly n bytes, so reading past them is an ASan error. */
static uint8_t *
dup_exact(const uint8_t *p, size_t n)
{
	uint8_t *q = malloc(n ? n : 1);
	assert_non_null(q);
	memcpy(q, p, n);
	return q;
}

/* ---- walking a log's bytes (linear logs, for expectations) --------------- */

struct unit {
	uint64_t off, end;
	int type; /* a record type, or UNIT_MARKER */
};

/* The end of the (well-formed) record at off. */
static uint64_t
record_end(const uint8_t *d, size_t len, uint64_t off)
{
	uint64_t plen = 0, q = off + 1;

	for (int shift = 0;; shift += 7) {
		assert_true(q < len && shift < 64);
		plen |= (uint64_t)(d[q] & 0x7f) << shift;
		if (!(d[q++] & 0x80))
			break;
	}
	assert_true(q + plen + 4 <= len);
	return q + plen + 4;
}

/* Split a well-formed linear log into sync markers and records (each
 * record's crc checked). */
static struct unit *
scan_units(const uint8_t *d, size_t len, size_t *n)
{
	struct unit *u = NULL;
	size_t cnt = 0;
	uint64_t pos = GCLOG_HEADER_SIZE;

	while (pos < len) {
		u = realloc(u, (cnt + 1) * sizeof(*u));
		assert_non_null(u);
		if (len - pos >= 8 && memcmp(d + pos, sync_marker, 8) == 0) {
			u[cnt++] = (struct unit){ pos, pos + 8, UNIT_MARKER };
			pos += 8;
			continue;
		}
		uint64_t end = record_end(d, len, pos);
		uint32_t crc = (uint32_t)d[end - 4] | (uint32_t)d[end - 3] << 8 |
			       (uint32_t)d[end - 2] << 16 | (uint32_t)d[end - 1] << 24;
		assert_true(gclog_crc32(0, d + pos, end - 4 - pos) == crc);
		u[cnt++] = (struct unit){ pos, end, d[pos] };
		pos = end;
	}
	*n = cnt;
	return u;
}

/* ---- expected samples ---------------------------------------------------- */

/* Compare one set of a read sample with what was written. 0, or -1 with
 * why filled. */
static int
cmp_set(const struct gclog_set_sample *got, size_t s, const struct raw_set *want, uint64_t mono,
	char *why, size_t n)
{
	char key[64];

	if (got->set != s)
		return snprintf(why, n, "set index %zu, want %zu", got->set, s), -1;
	if (got->valid != want->valid || got->rs->valid != want->valid)
		return snprintf(why, n, "set %zu valid %d, want %d", s, got->valid, want->valid),
		       -1;
	if (got->mono_ns != mono || got->rs->mono_ns != mono)
		return snprintf(why, n, "set %zu mono %llu, want %llu", s,
				(unsigned long long)got->mono_ns, (unsigned long long)mono),
		       -1;
	if (got->rs->ninstances != want->ninstances)
		return snprintf(why, n, "set %zu: %zu instances, want %zu", s,
				got->rs->ninstances, want->ninstances),
		       -1;
	for (size_t i = 0; i < want->ninstances; i++) {
		const struct raw_instance *g = &got->rs->inst[i], *w = &want->inst[i];
		uint64_t present = raw_present(want, w) & rec_mask[s];
		if (strcmp(raw_name(got->rs, g), raw_name(want, w)) != 0 ||
		    raw_identity(got->rs, g) != raw_identity(want, w) ||
		    raw_in_total(got->rs, g) != raw_in_total(want, w) || raw_present(got->rs, g) != present)
			return snprintf(why, n,
					"set %zu inst %zu: %s/%llu/%d/%llx, want %s/%llu/%d/%llx",
					s, i, raw_name(got->rs, g), (unsigned long long)raw_identity(got->rs, g),
					raw_in_total(got->rs, g), (unsigned long long)raw_present(got->rs, g),
					raw_name(want, w), (unsigned long long)raw_identity(want, w), raw_in_total(want, w),
					(unsigned long long)present),
			       -1;
		for (unsigned f = 0; f < 64; f++)
			if ((present >> f & 1) && raw_get(got->rs, g, f) != raw_get(want, w, f))
				return snprintf(why, n, "set %zu inst %s field %u: %llu, want %llu",
						s, raw_name(want, w), f,
						(unsigned long long)raw_get(got->rs, g, f),
						(unsigned long long)raw_get(want, w, f)),
				       -1;
		if (s == 0)
			snprintf(key, sizeof(key), "key:%s", raw_name(want, w));
		else
			key[0] = '\0';
		if (!got->keys || !got->keys[i] || strcmp(got->keys[i], key) != 0)
			return snprintf(why, n, "set %zu inst %s: key \"%s\", want \"%s\"", s,
					raw_name(want, w), got->keys && got->keys[i] ? got->keys[i] : "(null)",
					key),
			       -1;
	}
	return 0;
}

/* Compare a read sample with the written one (want[s] NULL: not read). */
static int
cmp_sample(const struct gclog_sample *got, int64_t wall, const uint64_t *mono,
	   const struct raw_set *const *want, size_t nsets, char *why, size_t n)
{
	size_t j = 0;

	if (got->wall_ns != wall)
		return snprintf(why, n, "wall %lld, want %lld", (long long)got->wall_ns,
				(long long)wall),
		       -1;
	for (size_t s = 0; s < nsets; s++) {
		if (!want[s])
			continue;
		if (j >= got->nsets)
			return snprintf(why, n, "%zu sets, set %zu missing", got->nsets, s), -1;
		if (cmp_set(&got->sets[j], s, want[s], mono[s], why, n) < 0)
			return -1;
		j++;
	}
	if (j != got->nsets)
		return snprintf(why, n, "%zu sets, want %zu", got->nsets, j), -1;
	return 0;
}

/* ---- a scripted log: every edge value, checked exactly -------------------- */

struct s_inst {
	const char *name;
	uint64_t identity;
	uint8_t in_total;
	uint64_t present;
	uint64_t v[3];
};

struct s_set {
	int read, valid;
	uint64_t mono;
	size_t n;
	struct s_inst inst[4];
};

struct s_sample {
	int64_t wall;
	struct s_set set[2];
};

#define TOP (UINT64_C(1) << 63)
#define U32 UINT32_MAX
#define U64 UINT64_MAX

static const struct s_sample script[] = {
	/* 1: first values, 0 / 1 / 2^63 / UINT64_MAX as the first (key) values */
	{ 1700000000123456789LL,
	  { { 1, 1, 1000, 3,
	      { { "eth0", 10, 1, 7, { 0, 0, 0 } },
		{ "eth1", 11, 1, 7, { 1, 1, 1 } },
		{ "lo", 1, 0, 7, { TOP, U32, U64 } } } },
	    { 1, 1, 1001, 1, { { "", 0, 1, 3, { 5, 6 } } } } } },
	/* 2: eth0 a 0 -> UINT64_MAX (delta -1), eth1 decreases (a reset),
	 * lo a 2^63 -> 0 (delta INT64_MIN), c UINT64_MAX -> 2^63; mono to
	 * UINT64_MAX; Other not read */
	{ 1700000001123456789LL,
	  { { 1, 1, U64, 3,
	      { { "eth0", 10, 1, 7, { U64, U32, 0 } },
		{ "eth1", 11, 1, 7, { 0, 0, 1 } },
		{ "lo", 1, 0, 7, { 0, 0, TOP } } } },
	    { 0, 0, 0, 0, { { NULL, 0, 0, 0, { 0 } } } } } },
	/* 3: wall steps back 5 s; eth0 wraps UINT64_MAX -> 1 with only a
	 * present; eth1 gone; lo changes identity and in_total; Other a failed
	 * read with no instances; mono back to 0 */
	{ 1699999996123456789LL,
	  { { 1, 1, 0, 2,
	      { { "eth0", 10, 1, 1, { 1, 0, 0 } },
		{ "lo", 2, 1, 7, { U64, 1, 2 } } } },
	    { 1, 0, 77, 0, { { NULL, 0, 0, 0, { 0 } } } } } },
	/* 4: a new eth2 first, eth1 comes back, eth0 without a; wall 0;
	 * Other's x decreases, its y (not recorded) changes */
	{ 0,
	  { { 1, 1, 5, 4,
	      { { "eth2", 12, 1, 7, { 7, 7, 7 } },
		{ "eth1", 11, 1, 7, { 2, 2, 2 } },
		{ "eth0", 10, 1, 6, { 0, 3, 4 } },
		{ "lo", 2, 0, 7, { 0, U32, U64 } } } },
	    { 1, 1, TOP, 1, { { "", 0, 1, 3, { 4, 9 } } } } } },
	/* 5: Test Set a failed read that still has an instance (a back after
	 * an absence, to 2^63); wall before the epoch; Other x = 2^63 */
	{ -1,
	  { { 1, 0, 6, 1, { { "eth0", 10, 1, 7, { TOP, 3, 4 } } } },
	    { 1, 1, TOP + 1, 1, { { "", 0, 1, 3, { TOP, 0 } } } } } },
	/* 6: a name twice in one read; wall INT64_MAX; Other not read */
	{ INT64_MAX,
	  { { 1, 1, 7, 2,
	      { { "eth0", 10, 1, 7, { 100, 200, 300 } },
		{ "eth0", 13, 1, 7, { 1, 2, 3 } } } },
	    { 0, 0, 0, 0, { { NULL, 0, 0, 0, { 0 } } } } } },
	/* 7: the same list (ids reused); wall INT64_MIN */
	{ INT64_MIN,
	  { { 1, 1, 8, 2,
	      { { "eth0", 10, 1, 7, { 101, 201, 301 } },
		{ "eth0", 13, 1, 5, { U64, 0, U64 - 1 } } } },
	    { 1, 1, 9, 1, { { "", 0, 1, 3, { 0, U64 } } } } } },
};

static void
fill_rs(struct raw_set *rs, const struct s_set *ss)
{
	raw_set_begin(rs);
	rs->valid = ss->valid;
	rs->mono_ns = ss->mono;
	for (size_t i = 0; i < ss->n; i++) {
		const struct s_inst *si = &ss->inst[i];
		struct raw_instance *ri = raw_set_add(rs, si->name, strlen(si->name), si->identity);
		raw_set_in_total(rs, ri, si->in_total);
		for (unsigned f = 0; f < rs->set->nfields; f++)
			if (si->present >> f & 1)
				raw_put(rs, ri, f, si->v[f]);
	}
}

static void
check_set_desc(const struct counter_set *got, const struct counter_set *want, uint64_t fields,
	       const struct counter_desc *const *counters, size_t n);

/* The scripted log, written with each set's previous read as the engine
 * gives it (with_prevs), or without. */
static void
roundtrip(int with_prevs)
{
	char path[64];
	int fd = tmp_file(path, sizeof(path));
	struct gclog_writer_opts o = { 0 };
	struct gclog_session ses;
	struct err err;
	struct raw_set rs[2], wrs[2][2];
	unsigned cur[2] = { 0, 0 };
	const struct counter_desc *tc[4], *oc[1] = { &o_counters[0] };
	const char *paths[] = { "\\Test Set(*)\\*", "\\Other\\X/sec" };
	char why[256];

	for (size_t k = 0; k < 4; k++)
		tc[k] = &t_counters[k];
	test_session(&ses, 0x0123456789abcdefULL);
	struct gclog_writer *w = gclog_writer_open(fd, path, &o, &ses, &err);
	assert_non_null(w);
	assert_int_equal(gclog_writer_add_set(w, &t_set, tc, 4, rec_mask[0], key_fn, NULL), 0);
	assert_int_equal(gclog_writer_add_set(w, &o_set, oc, 1, rec_mask[1], NULL, NULL), 1);
	assert_int_equal(gclog_writer_nsets(w), 2);
	gclog_writer_paths(w, paths, 2);
	raw_set_init(&rs[0], &t_set);
	raw_set_init(&rs[1], &o_set);
	for (size_t k = 0; k < 2; k++) {
		raw_set_init(&wrs[0][k], &t_set);
		raw_set_init(&wrs[1][k], &o_set);
	}
	for (size_t i = 0; i < ARRAY_SIZE(script); i++) {
		const struct raw_set *sets[2], *prevs[2];
		uint64_t mono[2];
		for (size_t s = 0; s < 2; s++) {
			/* a set's two reads take turns, as the engine's do */
			struct raw_set *next = &wrs[s][cur[s] ^ 1];
			prevs[s] = with_prevs ? &wrs[s][cur[s]] : NULL;
			fill_rs(next, &script[i].set[s]);
			sets[s] = script[i].set[s].read ? next : NULL;
			mono[s] = script[i].set[s].mono;
			if (sets[s])
				cur[s] ^= 1;
		}
		assert_int_equal(gclog_writer_sample(w, script[i].wall, mono, sets, prevs, &err), 0);
	}
	for (size_t k = 0; k < 2; k++) {
		raw_set_free(&wrs[0][k]);
		raw_set_free(&wrs[1][k]);
	}
	assert_true(gclog_writer_size(w) > GCLOG_HEADER_SIZE);
	uint64_t wsize = gclog_writer_size(w);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	/* the size counted before close, plus the end mark close adds */
	assert_true((uint64_t)st.st_size > wsize);
	close(fd);

	struct gclog_reader *r = gclog_reader_open(path, &err);
	assert_non_null(r);
	unsigned major, minor;
	gclog_reader_version(r, &major, &minor);
	assert_int_equal(major, GCLOG_MAJOR);
	assert_int_equal(minor, GCLOG_MINOR);
	assert_int_equal(gclog_reader_circular(r), 0);
	assert_string_equal(gclog_reader_name(r), path);
	assert_true(gclog_reader_size(r) == (uint64_t)st.st_size);
	assert_null(gclog_reader_session(r));

	/* SESSION, SCHEMA 0, SCHEMA 1, then the samples, the end MARK, END */
	assert_int_equal(gclog_reader_next(r), GCLOG_SESSION);
	check_session(gclog_reader_session(r), &ses);
	assert_int_equal(gclog_reader_next(r), GCLOG_SCHEMA);
	assert_int_equal(gclog_reader_next(r), GCLOG_SCHEMA);
	assert_int_equal(gclog_reader_nsets(r), 2);
	uint64_t fields;
	check_set_desc(gclog_reader_set(r, 0, &fields), &t_set, rec_mask[0], tc, 4);
	assert_true(fields == rec_mask[0]);
	check_set_desc(gclog_reader_set(r, 1, &fields), &o_set, rec_mask[1], oc, 1);
	assert_true(fields == rec_mask[1]);
	assert_null(gclog_reader_set(r, 2, &fields));
	assert_int_equal(gclog_reader_set_keyed(r, 0), 1);
	assert_int_equal(gclog_reader_set_keyed(r, 1), 0);
	assert_int_equal(gclog_reader_set_keyed(r, 2), 0);
	for (size_t i = 0; i < ARRAY_SIZE(script); i++) {
		const struct raw_set *want[2];
		uint64_t mono[2];
		assert_int_equal(gclog_reader_next(r), GCLOG_SAMPLE);
		const struct gclog_sample *g = gclog_reader_sample(r);
		for (size_t s = 0; s < 2; s++) {
			fill_rs(&rs[s], &script[i].set[s]);
			want[s] = script[i].set[s].read ? &rs[s] : NULL;
			mono[s] = script[i].set[s].mono;
		}
		if (cmp_sample(g, script[i].wall, mono, want, 2, why, sizeof(why)) < 0)
			fail_msg("sample %zu: %s", i + 1, why);
		assert_int_equal(g->gap, i == 0); /* the first follows a SESSION */
		assert_true(g->offset > GCLOG_HEADER_SIZE && g->offset < (uint64_t)st.st_size);
		if (i == 0) {
			size_t np;
			const char *const *p = gclog_reader_paths(r, &np);
			assert_int_equal(np, 2);
			assert_string_equal(p[0], paths[0]);
			assert_string_equal(p[1], paths[1]);
		}
	}
	assert_int_equal(gclog_reader_next(r), GCLOG_MARK);
	assert_string_equal(gclog_reader_mark(r), "end");
	assert_int_equal(gclog_reader_next(r), GCLOG_END);
	assert_int_equal(gclog_reader_next(r), GCLOG_END);
	assert_int_equal(gclog_reader_ndamage(r), 0);
	assert_null(gclog_reader_damage(r, 0));
	assert_true(gclog_reader_torn(r) == 0);
	struct gclog_tail t;
	gclog_reader_tail(r, &t);
	assert_int_equal(t.circular, 0);
	assert_true(t.end == (uint64_t)st.st_size);
	gclog_reader_close(r);
	raw_set_free(&rs[0]);
	raw_set_free(&rs[1]);
	unlink(path);
}

static void
test_roundtrip(void **unused)
{
	(void)unused;
	roundtrip(1);
	roundtrip(0);
}

/* ---- a generated log: deterministic samples for the bigger tests --------- */

#define BASE_WALL 1700000000000000000LL
#define STEP_NS 1000000000LL

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

struct gen {
	unsigned ninst;
	struct raw_set rs[2][2]; /* per set two reads, as the engine keeps them */
	unsigned cur[2];         /* per set the last read's buffer */
	const struct raw_set *sets[2];
	const struct raw_set *prevs[2];
	int prev_mode;           /* PREV_RIGHT, PREV_NONE or PREV_WRONG */
	int64_t wall;
	uint64_t mono[2];
};

/* Sample i (0-based) of a generated log: Test Set's instances come and go
 * and come back, instance 1 changes identity at 6, fields miss now and
 * then, b is a 32-bit counter that wraps, c a random gauge; Other is not
 * read when i % 4 == 2 and fails (no instances) when i % 5 == 3. */
/* What a generated sample gives the writer as each set's previous read:
 * the set's last read (what the engine gives), none, or now and then
 * another read (the writer must see it is not what it wrote). */
enum { PREV_RIGHT, PREV_NONE, PREV_WRONG };

/* The buffer set s's next read goes to: not its last read. */
static struct raw_set *
gen_next(struct gen *g, size_t s)
{
	return &g->rs[s][g->cur[s] ^ 1];
}

static void
gen_sample(struct gen *g, unsigned i)
{
	char name[32];
	struct raw_set *t = gen_next(g, 0), *o = gen_next(g, 1);

	raw_set_begin(t);
	t->valid = 1;
	for (unsigned k = 0; k < g->ninst; k++) {
		if ((i / 2 + k) % 4 == 3)
			continue;
		int len = snprintf(name, sizeof(name), "dev%u", k);
		uint64_t id = k + (k == 1 && i >= 6 ? 1000 : 0);
		struct raw_instance *ri = raw_set_add(t, name, (size_t)len, id);
		raw_set_in_total(t, ri, k % 3 != 2);
		raw_put(t, ri, TA, mix(k) + (uint64_t)i * (1000 + k));
		if ((i + k) % 5 != 0)
			raw_put(t, ri, TB, (uint32_t)((uint64_t)i * 4000000007ULL * (k + 1)));
		if ((i + 2 * k) % 7 != 0)
			raw_put(t, ri, TC, mix((uint64_t)i * 64 + k));
	}
	raw_set_begin(o);
	o->valid = i % 5 != 3;
	if (o->valid) {
		struct raw_instance *ri = raw_set_add(o, "", 0, 0);
		raw_put(o, ri, OX, (uint64_t)i * i);
		raw_put(o, ri, OY, i);
	}
	g->sets[0] = t;
	g->sets[1] = i % 4 == 2 ? NULL : o;
	g->wall = BASE_WALL + (int64_t)i * STEP_NS + (int64_t)(i % 3) * 1234;
	g->mono[0] = 5000000000ULL + (uint64_t)i * 1000000000ULL + 17 * i;
	g->mono[1] = g->mono[0] + 999;
	t->mono_ns = g->mono[0];
	o->mono_ns = g->mono[1];
	for (size_t s = 0; s < 2; s++) {
		const struct raw_set *last = &g->rs[s][g->cur[s]];
		g->prevs[s] = g->prev_mode == PREV_NONE			   ? NULL
			      : g->prev_mode == PREV_WRONG && i % 3 == 1 ? g->sets[s]
									   : last;
		if (g->sets[s])
			g->cur[s] ^= 1; /* a set read: this read is the next one's last */
	}
}

static void
gen_init(struct gen *g, unsigned ninst)
{
	memset(g, 0, sizeof(*g));
	g->ninst = ninst;
	for (size_t k = 0; k < 2; k++) {
		raw_set_init(&g->rs[0][k], &t_set);
		raw_set_init(&g->rs[1][k], &o_set);
	}
}

static void
gen_free(struct gen *g)
{
	for (size_t k = 0; k < 2; k++) {
		raw_set_free(&g->rs[0][k]);
		raw_set_free(&g->rs[1][k]);
	}
}

static struct gclog_writer *
gen_writer(int fd, const char *path, const struct gclog_writer_opts *o, uint64_t session_id)
{
	struct gclog_session ses;
	struct err err;
	const struct counter_desc *tc[4], *oc[1] = { &o_counters[0] };

	for (size_t k = 0; k < 4; k++)
		tc[k] = &t_counters[k];
	test_session(&ses, session_id);
	struct gclog_writer *w = gclog_writer_open(fd, path, o, &ses, &err);
	if (!w)
		fail_msg("gclog_writer_open: %s", err.msg);
	gclog_writer_add_set(w, &t_set, tc, 4, rec_mask[0], key_fn, NULL);
	gclog_writer_add_set(w, &o_set, oc, 1, rec_mask[1], NULL, NULL);
	return w;
}

/* Write generated samples [from, to) to w. */
static void
gen_write(struct gclog_writer *w, struct gen *g, unsigned from, unsigned to)
{
	struct err err;

	for (unsigned i = from; i < to; i++) {
		gen_sample(g, i);
		int rc = gclog_writer_sample(w, g->wall, g->mono, g->sets, g->prevs, &err);
		if (rc != 0)
			fail_msg("sample %u: %d %s", i, rc, err.msg);
	}
}

/* A whole linear generated log of n samples in memory, written with
 * previous reads as prev_mode says. */
static uint8_t *
gen_log_prevs(unsigned n, unsigned ninst, unsigned keyframe_every, int prev_mode, size_t *len)
{
	char path[64];
	int fd = tmp_file(path, sizeof(path));
	struct gclog_writer_opts o = { .keyframe_every = keyframe_every };
	struct gen g;
	struct err err;

	gen_init(&g, ninst);
	g.prev_mode = prev_mode;
	struct gclog_writer *w = gen_writer(fd, path, &o, 42);
	gen_write(w, &g, 0, n);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	close(fd);
	gen_free(&g);
	uint8_t *p = slurp(path, len);
	unlink(path);
	return p;
}

/* A whole linear generated log of n samples in memory. */
static uint8_t *
gen_log(unsigned n, unsigned ninst, unsigned keyframe_every, size_t *len)
{
	return gen_log_prevs(n, ninst, keyframe_every, PREV_RIGHT, len);
}

/* Which generated sample a read one is (by its wall time), checked
 * exactly; -1 with why when it differs from what was written. */
static int
gen_check(struct gen *g, const struct gclog_sample *s, char *why, size_t n)
{
	int64_t d = s->wall_ns - BASE_WALL;
	if (d < 0 || d / STEP_NS > 100000)
		return snprintf(why, n, "wall %lld is no generated sample's", (long long)s->wall_ns),
		       -1;
	unsigned i = (unsigned)(d / STEP_NS);
	gen_sample(g, i);
	if (cmp_sample(s, g->wall, g->mono, g->sets, 2, why, n) < 0)
		return -1;
	return (int)i;
}

struct readout {
	int idx[1024]; /* generated index of each sample read */
	int gap[1024];
	uint64_t off[1024];
	size_t n;
	size_t sessions;
};

/* Read r to its end, checking every sample exactly. -1 with why on the
 * first wrong one. */
static int
read_gen(struct gclog_reader *r, struct gen *g, struct readout *out, char *why, size_t n)
{
	enum gclog_event ev;

	memset(out, 0, sizeof(*out));
	while ((ev = gclog_reader_next(r)) != GCLOG_END) {
		if (ev == GCLOG_SESSION)
			out->sessions++;
		if (ev != GCLOG_SAMPLE)
			continue;
		const struct gclog_sample *s = gclog_reader_sample(r);
		int i = gen_check(g, s, why, n);
		if (i < 0)
			return -1;
		if (out->n == ARRAY_SIZE(out->idx))
			return snprintf(why, n, "too many samples"), -1;
		out->idx[out->n] = i;
		out->gap[out->n] = s->gap;
		out->off[out->n] = s->offset;
		out->n++;
	}
	return 0;
}

/* ---- the previous reads the writer is given ------------------------------- */

/* The writer writes against the previous read it is given when that is the
 * read it wrote last, and in full otherwise: each way the log reads back
 * exactly (instances that come and go, fields that go missing and come
 * back, a name the list drops and takes again), and the right previous
 * reads make the smallest log. */
static void
test_prevs(void **unused)
{
	const int modes[] = { PREV_RIGHT, PREV_NONE, PREV_WRONG };
	const unsigned every[] = { 0, 7 };
	struct err err;
	char why[256];

	(void)unused;
	for (size_t e = 0; e < ARRAY_SIZE(every); e++) {
		size_t len[3];
		for (size_t m = 0; m < 3; m++) {
			uint8_t *d = gen_log_prevs(40, 6, every[e], modes[m], &len[m]);
			struct gen g;
			struct readout ro;
			gen_init(&g, 6);
			struct gclog_reader *r = gclog_reader_open_mem(d, len[m], "p.gcl", &err);
			assert_non_null(r);
			if (read_gen(r, &g, &ro, why, sizeof(why)) < 0)
				fail_msg("mode %d, keyframe every %u: %s", modes[m], every[e], why);
			assert_int_equal(ro.n, 40);
			for (size_t i = 0; i < 40; i++)
				assert_int_equal(ro.idx[i], (int)i);
			assert_int_equal(gclog_reader_ndamage(r), 0);
			gclog_reader_close(r);
			gen_free(&g);
			free(d);
		}
		assert_true(len[0] < len[2]);
		assert_true(len[2] < len[1]);
	}
}

/* ---- blocks larger than the writer's buffer -------------------------------- */

/* The payload length of the record at d[off]. */
static uint64_t
record_payload(const uint8_t *d, size_t len, uint64_t off)
{
	uint64_t v = 0;
	for (unsigned shift = 0; off + 1 < len && shift < 64; shift += 7) {
		uint8_t byte = d[++off];
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			break;
	}
	return v;
}

/* 6,000 instances: a keyframe record (~97 KB, its block ~230 KB) and a
 * sample record (~92 KB) are more than the writer's 64 KiB buffer, so the writer sizes them, then streams
 * them through it. Linear, stopped by --max-size, and circular, the log
 * reads back exactly. */
static void
test_big_blocks(void **unused)
{
	char path[64];
	struct gen g;
	struct readout *ro = malloc(sizeof(*ro));
	struct err err;
	char why[256];
	size_t len;

	(void)unused;
	gen_init(&g, 6000);
	uint8_t *d = gen_log_prevs(10, 6000, 4, PREV_RIGHT, &len);
	struct gclog_reader *r = gclog_reader_open_mem(d, len, "big.gcl", &err);
	assert_non_null(r);
	if (read_gen(r, &g, ro, why, sizeof(why)) < 0)
		fail_msg("linear: %s", why);
	assert_int_equal(ro->n, 10);
	assert_int_equal(gclog_reader_ndamage(r), 0);
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(ro->idx[i], (int)i);
		assert_int_equal(d[ro->off[i]], i % 4 == 0 ? REC_KEYFRAME : REC_SAMPLE);
		assert_true(record_payload(d, len, ro->off[i]) > 64 * 1024);
	}
	gclog_reader_close(r);
	free(d);

	/* --max-size a little short of the whole: the last read stops it */
	size_t full;
	free(gen_log_prevs(10, 6000, 4, PREV_RIGHT, &full));
	int fd = tmp_file(path, sizeof(path));
	struct gclog_writer_opts o = { .max_size = full - 1000, .keyframe_every = 4 };
	struct gclog_writer *w = gen_writer(fd, path, &o, 800);
	for (unsigned i = 0; i < 10; i++) {
		gen_sample(&g, i);
		assert_int_equal(gclog_writer_sample(w, g.wall, g.mono, g.sets, g.prevs, &err),
				 i < 9 ? 0 : 1);
	}
	assert_int_equal(gclog_writer_close(w, &err), 0);
	close(fd);
	r = gclog_reader_open(path, &err);
	assert_non_null(r);
	if (read_gen(r, &g, ro, why, sizeof(why)) < 0)
		fail_msg("--max-size: %s", why);
	assert_int_equal(ro->n, 9);
	assert_int_equal(gclog_reader_ndamage(r), 0);
	gclog_reader_close(r);
	unlink(path);

	/* a ring of 8 segments of 700 KiB: a keyframe and a few samples
	 * each; 60 samples wrap it */
	fd = tmp_file(path, sizeof(path));
	struct gclog_writer_opts c = { .max_size = 32 + 8 * 700 * 1024, .circular = 1 };
	w = gen_writer(fd, path, &c, 900);
	gen_write(w, &g, 0, 60);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	close(fd);
	r = gclog_reader_open(path, &err);
	assert_non_null(r);
	if (read_gen(r, &g, ro, why, sizeof(why)) < 0)
		fail_msg("circular: %s", why);
	assert_true(ro->n > 8 && ro->idx[0] > 0);
	for (size_t i = 1; i < ro->n; i++)
		assert_int_equal(ro->idx[i], ro->idx[i - 1] + 1);
	assert_int_equal(ro->idx[ro->n - 1], 59);
	assert_int_equal(gclog_reader_ndamage(r), 0);
	gclog_reader_close(r);
	unlink(path);
	gen_free(&g);
	free(ro);
}

/* ---- keyframes ------------------------------------------------------------ */

static void
test_keyframes(void **unused)
{
	size_t len, nu;
	uint8_t *d = gen_log(10, 3, 3, &len);
	struct unit *u = scan_units(d, len, &nu);
	uint64_t markers[8];
	size_t nm = 0;
	struct gen g;
	struct readout ro;
	struct err err;
	char why[256];

	(void)unused;
	gen_init(&g, 3);
	/* the sync marker occurs exactly 4 times in the bytes */
	for (size_t p = 0; p + 8 <= len; p++)
		if (memcmp(d + p, sync_marker, 8) == 0) {
			assert_true(nm < ARRAY_SIZE(markers));
			markers[nm++] = p;
		}
	assert_int_equal(nm, 4);
	assert_true(markers[0] == GCLOG_HEADER_SIZE);

	struct gclog_reader *r = gclog_reader_open_mem(d, len, "k.gcl", &err);
	assert_non_null(r);
	if (read_gen(r, &g, &ro, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_int_equal(ro.n, 10);
	/* samples 1, 4, 7, 10 are KEYFRAME records, each the first sample after
	 * its marker; the others SAMPLE records */
	size_t m = 0;
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(ro.idx[i], (int)i);
		int key = i % 3 == 0;
		assert_int_equal(d[ro.off[i]], key ? REC_KEYFRAME : REC_SAMPLE);
		if (key) {
			assert_true(markers[m] < ro.off[i]);
			assert_true(i == 0 || markers[m] > ro.off[i - 1]);
			m++;
		}
	}
	assert_int_equal(m, 4);
	/* every record between a marker and its keyframe belongs to the block */
	for (size_t k = 0; k < nu; k++)
		if (u[k].type == UNIT_MARKER)
			assert_int_equal(u[k + 1].type, REC_SESSION);
	gclog_reader_close(r);

	/* the header and the log from the 2nd keyframe block: samples 4..10 */
	for (int variant = 0; variant < 2; variant++) {
		size_t from = variant == 0 ? markers[1] : (size_t)(ro.off[1] + 3);
		size_t n2 = GCLOG_HEADER_SIZE + len - from;
		uint8_t *b = malloc(n2);
		memcpy(b, d, GCLOG_HEADER_SIZE);
		memcpy(b + GCLOG_HEADER_SIZE, d + from, len - from);
		r = gclog_reader_open_mem(b, n2, "mid.gcl", &err);
		assert_non_null(r);
		if (read_gen(r, &g, &ro, why, sizeof(why)) < 0)
			fail_msg("variant %d: %s", variant, why);
		assert_int_equal(ro.n, 7);
		for (size_t i = 0; i < 7; i++) {
			assert_int_equal(ro.idx[i], (int)i + 3);
			assert_int_equal(ro.gap[i], i == 0);
		}
		assert_int_equal(ro.sessions, 1);
		if (variant == 0) {
			assert_int_equal(gclog_reader_ndamage(r), 0);
		} else {
			/* starting inside sample 2's record: damage from byte 32
			 * to the marker of the 2nd block */
			assert_int_equal(gclog_reader_ndamage(r), 1);
			const struct gclog_damage *dm = gclog_reader_damage(r, 0);
			assert_true(dm->offset == GCLOG_HEADER_SIZE);
			assert_true(dm->bytes == markers[1] - from);
		}
		assert_true(gclog_reader_torn(r) == 0);
		gclog_reader_close(r);
		free(b);
	}

	/* the first block's SESSION record damaged: reading starts at the 2nd */
	uint8_t *b = dup_exact(d, len);
	b[u[1].off + 3] ^= 0x40;
	r = gclog_reader_open_mem(b, len, "bad1.gcl", &err);
	assert_non_null(r);
	if (read_gen(r, &g, &ro, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_int_equal(ro.n, 7);
	assert_int_equal(ro.idx[0], 3);
	assert_int_equal(gclog_reader_ndamage(r), 1);
	assert_true(gclog_reader_damage(r, 0)->offset == u[1].off);
	assert_true(gclog_reader_damage(r, 0)->bytes == markers[1] - u[1].off);
	gclog_reader_close(r);
	free(b);
	free(u);
	free(d);
	gen_free(&g);
}

/* ---- a torn tail at every length ------------------------------------------ */

static void
test_torn_tail(void **unused)
{
	size_t len, nu;
	uint8_t *d = gen_log(10, 3, 3, &len);
	struct unit *u = scan_units(d, len, &nu);
	struct gen g;
	struct readout ro;
	struct err err;
	char why[256];

	(void)unused;
	gen_init(&g, 3);
	for (size_t cut = GCLOG_HEADER_SIZE; cut <= len; cut++) {
		/* what is complete at cut */
		size_t want_n = 0;
		uint64_t want_end = GCLOG_HEADER_SIZE;
		for (size_t k = 0; k < nu && u[k].end <= cut; k++) {
			if (u[k].type == REC_KEYFRAME || u[k].type == REC_SAMPLE)
				want_n++;
			if (u[k].type != UNIT_MARKER)
				want_end = u[k].end;
		}
		uint8_t *b = dup_exact(d, cut);
		struct gclog_reader *r = gclog_reader_open_mem(b, cut, "torn.gcl", &err);
		if (!r)
			fail_msg("cut at %zu: %s", cut, err.msg);
		if (read_gen(r, &g, &ro, why, sizeof(why)) < 0)
			fail_msg("cut at %zu: %s", cut, why);
		if (ro.n != want_n)
			fail_msg("cut at %zu: %zu samples, want %zu", cut, ro.n, want_n);
		for (size_t i = 0; i < ro.n; i++)
			assert_int_equal(ro.idx[i], (int)i);
		if (gclog_reader_ndamage(r) != 0)
			fail_msg("cut at %zu: damage at %llu: %s", cut,
				 (unsigned long long)gclog_reader_damage(r, 0)->offset,
				 gclog_reader_damage(r, 0)->what);
		struct gclog_tail t;
		gclog_reader_tail(r, &t);
		if (t.end != want_end)
			fail_msg("cut at %zu: tail end %llu, want %llu", cut,
				 (unsigned long long)t.end, (unsigned long long)want_end);
		/* every byte after the last good record is the torn tail */
		if (gclog_reader_torn(r) != cut - want_end)
			fail_msg("cut at %zu: torn %llu bytes, want %llu (ignored from %llu)", cut,
				 (unsigned long long)gclog_reader_torn(r),
				 (unsigned long long)(cut - want_end),
				 (unsigned long long)want_end);
		gclog_reader_close(r);
		free(b);
	}

	/* damage right before a torn last block: every ignored byte is
	 * counted once, as damage or as the torn tail */
	size_t m3 = 0, s8 = 0, markers = 0, samples = 0;
	for (size_t k = 0; k < nu; k++) {
		if (u[k].type == UNIT_MARKER && ++markers == 4)
			m3 = k; /* the 4th block's marker: sample 10's */
		if ((u[k].type == REC_SAMPLE || u[k].type == REC_KEYFRAME) && ++samples == 8)
			s8 = k; /* sample 8's record */
	}
	assert_int_equal(u[s8].type, REC_SAMPLE);
	for (uint64_t cut = u[m3].end; cut < u[m3 + 1].end; cut++) {
		uint8_t *b = dup_exact(d, cut);
		b[u[s8].off + 2] ^= 0x10;
		struct gclog_reader *r = gclog_reader_open_mem(b, cut, "dt.gcl", &err);
		assert_non_null(r);
		if (read_gen(r, &g, &ro, why, sizeof(why)) < 0)
			fail_msg("cut at %llu: %s", (unsigned long long)cut, why);
		assert_int_equal(ro.n, 7); /* samples 1..7 */
		assert_int_equal(gclog_reader_ndamage(r), 1);
		const struct gclog_damage *dm = gclog_reader_damage(r, 0);
		assert_true(dm->offset == u[s8].off);
		assert_true(dm->bytes == u[m3].off - u[s8].off);
		if (gclog_reader_torn(r) != cut - u[m3].off)
			fail_msg("cut at %llu: torn %llu, want %llu: the damaged %llu bytes "
				 "counted twice?",
				 (unsigned long long)cut, (unsigned long long)gclog_reader_torn(r),
				 (unsigned long long)(cut - u[m3].off),
				 (unsigned long long)dm->bytes);
		gclog_reader_close(r);
		free(b);
	}
	free(u);
	free(d);
	gen_free(&g);
}

/* ---- one flipped byte at every position of the middle -------------------- */

static void
test_corruption(void **unused)
{
	const unsigned n = 10, every = 3;
	size_t len, nu;
	uint8_t *d = gen_log(n, 3, every, &len);
	struct unit *u = scan_units(d, len, &nu);
	static const uint8_t masks[] = { 0x01, 0x80, 0xff };
	struct gen g;
	struct readout ro;
	struct err err;
	char why[256];
	size_t sample_unit[16], ns = 0;

	(void)unused;
	gen_init(&g, 3);
	for (size_t k = 0; k < nu; k++)
		if (u[k].type == REC_KEYFRAME || u[k].type == REC_SAMPLE)
			sample_unit[ns++] = k;
	assert_int_equal(ns, n);
	/* the middle: after sample 1's keyframe to the end of sample 8 (the
	 * last keyframe block, sample 10's, stays whole) */
	uint64_t from = u[sample_unit[0]].end, to = u[sample_unit[7]].end;
	size_t tried = 0;
	for (uint64_t p = from; p < to; p++) {
		size_t uk = 0;
		while (!(u[uk].off <= p && p < u[uk].end))
			uk++;
		/* the first sample at or after the damaged unit, and the next
		 * keyframe after it */
		unsigned first = 0;
		while (sample_unit[first] < uk)
			first++;
		unsigned next_key = (first / every + 1) * every;
		for (size_t mi = 0; mi < ARRAY_SIZE(masks); mi++) {
			uint8_t *b = dup_exact(d, len);
			b[p] ^= masks[mi];
			tried++;
			struct gclog_reader *r = gclog_reader_open_mem(b, len, "flip.gcl", &err);
			assert_non_null(r);
			if (read_gen(r, &g, &ro, why, sizeof(why)) < 0)
				fail_msg("byte %llu ^%02x: a wrong value: %s", (unsigned long long)p,
					 masks[mi], why);
			/* in order, no sample twice, and only [first, next_key) lost */
			int seen[16] = { 0 };
			for (size_t i = 0; i < ro.n; i++) {
				assert_true(ro.idx[i] >= 0 && ro.idx[i] < (int)n);
				assert_true(i == 0 || ro.idx[i] > ro.idx[i - 1]);
				seen[ro.idx[i]] = 1;
				if ((unsigned)ro.idx[i] == next_key && !ro.gap[i])
					fail_msg("byte %llu ^%02x: sample %u after damage not a gap",
						 (unsigned long long)p, masks[mi], next_key + 1);
			}
			size_t lost = 0;
			for (unsigned i = 0; i < n; i++) {
				if (!seen[i] && (i < first || i >= next_key))
					fail_msg("byte %llu (in a %d unit at %llu) ^%02x: sample %u "
						 "lost, only %u..%u may be",
						 (unsigned long long)p, u[uk].type,
						 (unsigned long long)u[uk].off, masks[mi], i + 1,
						 first + 1, next_key);
				lost += !seen[i];
			}
			if (gclog_reader_ndamage(r) < 1)
				fail_msg("byte %llu ^%02x: no damage reported (torn %llu)",
					 (unsigned long long)p, masks[mi],
					 (unsigned long long)gclog_reader_torn(r));
			const struct gclog_damage *dm = gclog_reader_damage(r, 0);
			if (dm->offset < u[uk].off || dm->offset > p || p >= dm->offset + dm->bytes)
				fail_msg("byte %llu (unit at %llu) ^%02x: damage at %llu + %llu",
					 (unsigned long long)p, (unsigned long long)u[uk].off,
					 masks[mi], (unsigned long long)dm->offset,
					 (unsigned long long)dm->bytes);
			if (gclog_reader_torn(r) != 0)
				fail_msg("byte %llu ^%02x: reported as a torn tail",
					 (unsigned long long)p, masks[mi]);
			uint64_t said = 0;
			for (size_t k = 0; k < gclog_reader_ndamage(r); k++)
				said += gclog_reader_damage(r, k)->samples_lost;
			/* the damaged record itself may be past knowing (its type
			 * byte flipped): at most one sample uncounted */
			if (said > lost || said + 1 < lost)
				fail_msg("byte %llu (in a %d unit) ^%02x: %zu samples lost, damage "
					 "says %llu",
					 (unsigned long long)p, u[uk].type, masks[mi], lost,
					 (unsigned long long)said);
			gclog_reader_close(r);
			free(b);
		}
	}
	assert_true(tried > 300);
	free(u);
	free(d);
	gen_free(&g);
}

/* ---- a later minor version's bytes at the end of records ----------------- */

/* Every record of a log rewritten with two bytes more at the end of its
 * payload (its length and crc made right) reads back the same samples: a
 * later minor version may append fields to a record, and this reader steps
 * over what it does not know. */
static void
test_trailing_bytes(void **unused)
{
	size_t len, nu;
	uint8_t *d = gen_log(20, 4, 5, &len);
	struct unit *u = scan_units(d, len, &nu);
	uint8_t *x = malloc(len + nu * 8);
	size_t xl = GCLOG_HEADER_SIZE;
	struct gen g;
	struct readout ro;
	struct err err;
	char why[256];

	(void)unused;
	assert_non_null(x);
	memcpy(x, d, GCLOG_HEADER_SIZE);
	for (size_t i = 0; i < nu; i++) {
		if (u[i].type == UNIT_MARKER) {
			memcpy(x + xl, d + u[i].off, 8);
			xl += 8;
			continue;
		}
		uint64_t plen = 0, q = u[i].off + 1;
		for (int shift = 0;; shift += 7) {
			plen |= (uint64_t)(d[q] & 0x7f) << shift;
			if (!(d[q++] & 0x80))
				break;
		}
		size_t start = xl;
		x[xl++] = d[u[i].off];
		uint64_t v = plen + 2;
		do {
			x[xl++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
			v >>= 7;
		} while (v);
		memcpy(x + xl, d + q, plen);
		xl += plen;
		x[xl++] = 0xab;
		x[xl++] = 0xcd;
		uint32_t crc = gclog_crc32(0, x + start, xl - start);
		for (int k = 0; k < 4; k++)
			x[xl++] = (uint8_t)(crc >> (8 * k));
	}
	assert_true(xl > len);

	gen_init(&g, 4);
	struct gclog_reader *r = gclog_reader_open_mem(x, xl, "trailing.gcl", &err);
	if (!r)
		fail_msg("open: %s", err.msg);
	if (read_gen(r, &g, &ro, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_int_equal(ro.n, 20);
	for (size_t i = 0; i < ro.n; i++)
		assert_int_equal(ro.idx[i], (int)i);
	assert_int_equal(gclog_reader_ndamage(r), 0);
	assert_int_equal(gclog_reader_torn(r), 0);
	gclog_reader_close(r);
	gen_free(&g);
	free(x);
	free(u);
	free(d);
}

/* ---- headers refused -------------------------------------------------------- */

static void
test_bad_headers(void **unused)
{
	size_t len;
	uint8_t *d = gen_log(3, 2, 0, &len);
	char path[64];
	int fd = tmp_file(path, sizeof(path));
	struct err err;
	struct gclog_reader *r;

	(void)unused;
	close(fd);
	/* a newer major version (with a header crc that checks) */
	uint8_t *b = dup_exact(d, len);
	b[8] = 2;
	b[9] = 0;
	b[10] = 3;
	uint32_t crc = gclog_crc32(0, b, 28);
	for (int i = 0; i < 4; i++)
		b[28 + i] = (uint8_t)(crc >> (8 * i));
	spew(path, b, len);
	err.msg[0] = '\0';
	assert_null(gclog_reader_open(path, &err));
	assert_non_null(strstr(err.msg, "version 2.3"));
	assert_non_null(strstr(err.msg, path));
	err.msg[0] = '\0';
	assert_null(gclog_reader_open_mem(b, len, "new.gcl", &err));
	assert_non_null(strstr(err.msg, "version 2.3"));
	/* a newer minor version is read */
	b[8] = 1;
	b[9] = 0;
	b[10] = 7;
	crc = gclog_crc32(0, b, 28);
	for (int i = 0; i < 4; i++)
		b[28 + i] = (uint8_t)(crc >> (8 * i));
	r = gclog_reader_open_mem(b, len, "minor.gcl", &err);
	assert_non_null(r);
	unsigned major, minor;
	gclog_reader_version(r, &major, &minor);
	assert_int_equal(major, 1);
	assert_int_equal(minor, 7);
	size_t nsamples = 0;
	for (enum gclog_event ev; (ev = gclog_reader_next(r)) != GCLOG_END;)
		nsamples += ev == GCLOG_SAMPLE;
	assert_int_equal(nsamples, 3);
	gclog_reader_close(r);
	free(b);

	/* not a log: names the magic */
	static const char text[] = "timestamp,value\n2024-01-01,5\n2024-01-02,6\n2024-01-03,7\n";
	spew(path, text, sizeof(text) - 1);
	err.msg[0] = '\0';
	assert_null(gclog_reader_open(path, &err));
	assert_non_null(strstr(err.msg, "magic"));
	assert_non_null(strstr(err.msg, path));
	/* the magic cut short, and the header cut short */
	assert_null(gclog_reader_open_mem(d, 5, "m5", &err));
	assert_non_null(strstr(err.msg, "magic"));
	assert_null(gclog_reader_open_mem(d, 20, "h20", &err));
	assert_non_null(strstr(err.msg, "cut short"));
	/* an empty file */
	spew(path, "", 0);
	err.msg[0] = '\0';
	assert_null(gclog_reader_open(path, &err));
	assert_non_null(strstr(err.msg, "empty"));
	assert_null(gclog_reader_open_mem(d, 0, "empty", &err));
	/* a damaged header */
	b = dup_exact(d, len);
	b[20] ^= 1;
	assert_null(gclog_reader_open_mem(b, len, "dh", &err));
	assert_non_null(strstr(err.msg, "damaged"));
	free(b);
	/* a missing file, a directory */
	assert_null(gclog_reader_open("/nonexistent/x.gcl", &err));
	assert_non_null(strstr(err.msg, "/nonexistent/x.gcl"));
	assert_null(gclog_reader_open("/tmp", &err));
	/* just a header: nothing, no damage */
	r = gclog_reader_open_mem(d, GCLOG_HEADER_SIZE, "h", &err);
	assert_non_null(r);
	assert_int_equal(gclog_reader_next(r), GCLOG_END);
	assert_int_equal(gclog_reader_ndamage(r), 0);
	assert_true(gclog_reader_torn(r) == 0);
	gclog_reader_close(r);
	unlink(path);
	free(d);
}

/* ---- circular ------------------------------------------------------------- */

static void
check_ring(const char *path, struct gen *g, int last, int *oldest)
{
	size_t len;
	uint8_t *d = slurp(path, &len);
	struct err err;
	struct readout *ro = malloc(sizeof(*ro));
	char why[256];

	assert_true(len == GCLOG_HEADER_SIZE + 8 * 4096);
	struct gclog_reader *r = gclog_reader_open(path, &err);
	assert_non_null(r);
	assert_int_equal(gclog_reader_circular(r), 1);
	if (read_gen(r, g, ro, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_true(ro->n > 8);
	/* in time order, a run of consecutive samples ending at the last */
	for (size_t i = 1; i < ro->n; i++)
		if (ro->idx[i] != ro->idx[i - 1] + 1)
			fail_msg("sample %zu read is %d after %d", i, ro->idx[i], ro->idx[i - 1]);
	assert_int_equal(ro->idx[ro->n - 1], last);
	/* the oldest is a keyframe, and a ring has wrapped: it is not the first */
	assert_int_equal(d[ro->off[0]], REC_KEYFRAME);
	assert_true(ro->idx[0] > 0);
	*oldest = ro->idx[0];
	assert_int_equal(gclog_reader_ndamage(r), 0);
	assert_true(gclog_reader_torn(r) == 0);
	struct gclog_tail t;
	gclog_reader_tail(r, &t);
	assert_int_equal(t.circular, 1);
	assert_true(t.seg_size == 4096);
	assert_int_equal(t.nseg, 8);
	assert_true(t.seg < 8);
	assert_true(t.seq >= 8 * 2); /* wrapped at least twice */
	assert_true(t.end > GCLOG_HEADER_SIZE + (uint64_t)t.seg * 4096);
	assert_true(t.end <= GCLOG_HEADER_SIZE + (uint64_t)(t.seg + 1) * 4096);
	gclog_reader_close(r);
	free(ro);
	free(d);
}

static void
test_circular(void **unused)
{
	char path[64];
	int fd = tmp_file(path, sizeof(path));
	struct gclog_writer_opts o = { .max_size = 32 + 8 * 4096, .circular = 1 };
	struct gen g;
	struct err err;
	int oldest, oldest2;

	(void)unused;
	gen_init(&g, 24);
	struct gclog_writer *w = gen_writer(fd, path, &o, 7);
	/* ~600 bytes a sample: 400 samples fill the 32 KiB ring ~7 times */
	gen_write(w, &g, 0, 400);
	assert_true(gclog_writer_size(w) <= 32 + 8 * 4096);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	check_ring(path, &g, 399, &oldest);

	/* --append continues the ring after its newest sample */
	struct gclog_writer_opts a = { .append = 1 };
	w = gen_writer(fd, path, &a, 8);
	gen_write(w, &g, 400, 450);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	check_ring(path, &g, 449, &oldest2);
	assert_true(oldest2 > oldest);
	close(fd);
	unlink(path);

	/* too small for a ring */
	fd = tmp_file(path, sizeof(path));
	struct gclog_writer_opts small = { .max_size = 1000, .circular = 1 };
	struct gclog_session ses;
	test_session(&ses, 1);
	assert_null(gclog_writer_open(fd, path, &small, &ses, &err));
	assert_non_null(strstr(err.msg, "too small"));
	close(fd);
	unlink(path);
	gen_free(&g);
}

/* A flipped byte anywhere in a ring that wrapped: never a wrong value, never
 * out of order, damage reported, and the newest sample kept unless the flip
 * is in its own segment before its end. A kill in the middle of the newest
 * record (the rest of its segment was zeroed): the samples before it. */
static void
test_circular_damage(void **unused)
{
	char path[64];
	int fd = tmp_file(path, sizeof(path));
	struct gclog_writer_opts o = { .max_size = 32 + 8 * 4096, .circular = 1 };
	struct gen g;
	struct readout *ro = malloc(sizeof(*ro));
	struct err err;
	char why[256];

	(void)unused;
	gen_init(&g, 24);
	struct gclog_writer *w = gen_writer(fd, path, &o, 9);
	gen_write(w, &g, 0, 300);
	/* the bytes before close: no end mark after the newest sample */
	size_t len;
	uint8_t *d = slurp(path, &len);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	close(fd);
	unlink(path);

	struct gclog_reader *r = gclog_reader_open_mem(d, len, "ring.gcl", &err);
	assert_non_null(r);
	if (read_gen(r, &g, ro, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	gclog_reader_close(r);
	assert_true(ro->n > 8);
	assert_int_equal(ro->idx[ro->n - 1], 299);
	uint64_t last_off = ro->off[ro->n - 1];
	uint64_t seg_start = GCLOG_HEADER_SIZE + (last_off - GCLOG_HEADER_SIZE) / 4096 * 4096;
	uint64_t last_end = record_end(d, len, last_off);
	assert_int_equal(d[last_end], 0); /* the zeroed rest of the segment */

	size_t tried = 0;
	for (uint64_t p = GCLOG_HEADER_SIZE; p < len; p += 37) {
		uint8_t *b = dup_exact(d, len);
		b[p] ^= 0x5a;
		tried++;
		r = gclog_reader_open_mem(b, len, "ringflip.gcl", &err);
		assert_non_null(r);
		if (read_gen(r, &g, ro, why, sizeof(why)) < 0)
			fail_msg("byte %llu: a wrong value: %s", (unsigned long long)p, why);
		for (size_t i = 1; i < ro->n; i++)
			if (ro->idx[i] <= ro->idx[i - 1])
				fail_msg("byte %llu: sample %d read after %d", (unsigned long long)p,
					 ro->idx[i], ro->idx[i - 1]);
		if (!(p >= seg_start && p < last_end) && (ro->n == 0 || ro->idx[ro->n - 1] != 299))
			fail_msg("byte %llu: the newest sample lost", (unsigned long long)p);
		if (gclog_reader_ndamage(r) == 0 && gclog_reader_torn(r) == 0)
			fail_msg("byte %llu: nothing reported", (unsigned long long)p);
		gclog_reader_close(r);
		free(b);
	}
	assert_true(tried > 800);
	free(d);
	free(ro);
	gen_free(&g);
}

/* A kill while writing a ring's newest record (its last bytes never came;
 * the rest of its segment was zeroed before): the samples before it, the
 * tail where --append rewrites, and a torn tail as a linear log says it. */
static void
test_circular_torn(void **unused)
{
	char path[64];
	int fd = tmp_file(path, sizeof(path));
	struct gclog_writer_opts o = { .max_size = 32 + 8 * 4096, .circular = 1 };
	struct gen g;
	struct readout *ro = malloc(sizeof(*ro));
	struct err err;
	char why[256];

	(void)unused;
	gen_init(&g, 24);
	struct gclog_writer *w = gen_writer(fd, path, &o, 10);
	gen_write(w, &g, 0, 300);
	size_t len;
	uint8_t *d = slurp(path, &len); /* before close: no end mark */
	assert_int_equal(gclog_writer_close(w, &err), 0);
	close(fd);
	unlink(path);
	struct gclog_reader *r = gclog_reader_open_mem(d, len, "ring.gcl", &err);
	assert_non_null(r);
	if (read_gen(r, &g, ro, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	gclog_reader_close(r);
	assert_int_equal(ro->idx[ro->n - 1], 299);
	uint64_t last_off = ro->off[ro->n - 1];
	uint64_t last_end = record_end(d, len, last_off);
	uint64_t seg_end = GCLOG_HEADER_SIZE + ((last_off - GCLOG_HEADER_SIZE) / 4096 + 1) * 4096;

	uint8_t *b = dup_exact(d, len);
	memset(b + last_end - 5, 0, 5);
	r = gclog_reader_open_mem(b, len, "ringtorn.gcl", &err);
	assert_non_null(r);
	if (read_gen(r, &g, ro, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_true(ro->n > 8);
	assert_int_equal(ro->idx[ro->n - 1], 298);
	struct gclog_tail t;
	gclog_reader_tail(r, &t);
	assert_true(t.end == last_off);
	/* reported as a torn tail, not as damage */
	if (gclog_reader_ndamage(r) != 0)
		fail_msg("a torn newest record reported as damage at %llu: %s",
			 (unsigned long long)gclog_reader_damage(r, 0)->offset,
			 gclog_reader_damage(r, 0)->what);
	/* its bytes (the reader cannot tell its zeroed end from the padding) */
	assert_true(gclog_reader_torn(r) >= last_end - 5 - last_off);
	assert_true(gclog_reader_torn(r) <= seg_end - last_off);
	gclog_reader_close(r);
	free(b);
	free(d);
	free(ro);
	gen_free(&g);
}

/* ---- append ---------------------------------------------------------------- */

static void
test_append(void **unused)
{
	char path[64];
	int fd = tmp_file(path, sizeof(path));
	struct gclog_writer_opts o = { 0 }, a = { .append = 1 };
	struct gen g;
	struct readout ro;
	struct err err;
	char why[256];

	(void)unused;
	gen_init(&g, 4);
	struct gclog_writer *w = gen_writer(fd, path, &o, 100);
	gen_write(w, &g, 0, 5);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	w = gen_writer(fd, path, &a, 101);
	gen_write(w, &g, 5, 8);
	assert_int_equal(gclog_writer_close(w, &err), 0);

	struct gclog_reader *r = gclog_reader_open(path, &err);
	assert_non_null(r);
	size_t n = 0, sessions = 0, marks = 0;
	for (enum gclog_event ev; (ev = gclog_reader_next(r)) != GCLOG_END;) {
		if (ev == GCLOG_SESSION) {
			sessions++;
			/* the second session comes right before the 6th sample */
			assert_int_equal(n, sessions == 1 ? 0 : 5);
			assert_true(gclog_reader_session(r)->id == (sessions == 1 ? 100 : 101));
		}
		marks += ev == GCLOG_MARK;
		if (ev != GCLOG_SAMPLE)
			continue;
		const struct gclog_sample *s = gclog_reader_sample(r);
		int i = gen_check(&g, s, why, sizeof(why));
		if (i < 0)
			fail_msg("%s", why);
		assert_int_equal(i, (int)n);
		assert_int_equal(s->gap, n == 0 || n == 5);
		n++;
	}
	assert_int_equal(n, 8);
	assert_int_equal(sessions, 2);
	assert_int_equal(marks, 2);
	assert_int_equal(gclog_reader_ndamage(r), 0);
	gclog_reader_close(r);

	/* a torn tail (a kill in the middle of the 5th sample's record), then
	 * --append: the torn bytes go, 4 + 3 samples, no damage */
	close(fd);
	unlink(path);
	fd = tmp_file(path, sizeof(path));
	w = gen_writer(fd, path, &o, 200);
	gen_write(w, &g, 0, 5);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	size_t len, nu;
	uint8_t *d = slurp(path, &len);
	struct unit *u = scan_units(d, len, &nu);
	size_t k5 = 0, seen = 0;
	for (size_t k = 0; k < nu; k++)
		if ((u[k].type == REC_SAMPLE || u[k].type == REC_KEYFRAME) && ++seen == 5)
			k5 = k;
	assert_int_equal(ftruncate(fd, (off_t)(u[k5].off + 5)), 0);
	free(u);
	free(d);
	w = gen_writer(fd, path, &a, 201);
	gen_write(w, &g, 5, 8);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	r = gclog_reader_open(path, &err);
	assert_non_null(r);
	if (read_gen(r, &g, &ro, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_int_equal(ro.n, 7);
	static const int want[] = { 0, 1, 2, 3, 5, 6, 7 };
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(ro.idx[i], want[i]);
		assert_int_equal(ro.gap[i], i == 0 || i == 4);
	}
	assert_int_equal(ro.sessions, 2);
	assert_int_equal(gclog_reader_ndamage(r), 0);
	assert_true(gclog_reader_torn(r) == 0);
	gclog_reader_close(r);

	/* appending to something that is not a log fails, and leaves it */
	static const char text[] = "not a log at all, just some text that is long enough\n";
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_true(pwrite(fd, text, sizeof(text) - 1, 0) == (ssize_t)(sizeof(text) - 1));
	struct gclog_session ses;
	test_session(&ses, 300);
	assert_null(gclog_writer_open(fd, path, &a, &ses, &err));
	assert_non_null(strstr(err.msg, "magic"));
	d = slurp(path, &len);
	assert_true(len == sizeof(text) - 1 && memcmp(d, text, len) == 0);
	free(d);

	/* --append to an empty file starts a new log */
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_true(lseek(fd, 0, SEEK_SET) == 0);
	w = gen_writer(fd, path, &a, 400);
	gen_write(w, &g, 0, 2);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	r = gclog_reader_open(path, &err);
	assert_non_null(r);
	if (read_gen(r, &g, &ro, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_int_equal(ro.n, 2);
	gclog_reader_close(r);
	close(fd);
	unlink(path);
	gen_free(&g);
}

/* ---- --max-size that cannot hold one read -------------------------------------- */

/* A --max-size below what one read of the sets takes is an error (before
 * any read when the schemas alone do not fit; at the first read when its
 * instances do not), never a log holding only its header. */
static void
test_max_size_too_small(void **unused)
{
	char path[64];
	int fd;
	struct gclog_writer_opts o = { 0 };
	struct gen g;
	struct err err;
	size_t one;
	struct stat st;

	(void)unused;
	/* 40 instances: their records and values are far more than the
	 * 32 - (end mark) bytes the log keeps over its end mark */
	free(gen_log(1, 40, 0, &one));
	gen_init(&g, 40);

	/* 100 bytes: the 32-byte header, the sync marker, the session and
	 * the schemas with their help texts are more than that */
	fd = tmp_file(path, sizeof(path));
	o.max_size = 100;
	struct gclog_writer *w = gen_writer(fd, path, &o, 700);
	assert_int_equal(gclog_writer_check(w, &err), -1);
	assert_non_null(strstr(err.msg, "--max-size 100 is too small"));
	assert_non_null(strstr(err.msg, "give at least 1K"));
	assert_int_equal(gclog_writer_close(w, &err), 0);
	close(fd);
	unlink(path);

	/* exactly the size of a whole one-read log: the schemas fit, the
	 * first read does not (the room kept for the end mark is 32 bytes,
	 * more than the end mark itself), so that read is an error */
	fd = tmp_file(path, sizeof(path));
	o.max_size = one;
	w = gen_writer(fd, path, &o, 701);
	assert_int_equal(gclog_writer_check(w, &err), 0);
	gen_sample(&g, 0);
	assert_int_equal(gclog_writer_sample(w, g.wall, g.mono, g.sets, g.prevs, &err), -1);
	assert_non_null(strstr(err.msg, "the first read of these counters takes"));
	assert_non_null(strstr(err.msg, "give at least"));
	assert_int_equal(gclog_writer_close(w, &err), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, GCLOG_HEADER_SIZE); /* the caller removes it */
	close(fd);
	unlink(path);

	/* 32 bytes more than that: the read fits, the log holds it */
	fd = tmp_file(path, sizeof(path));
	o.max_size = one + 32;
	w = gen_writer(fd, path, &o, 702);
	assert_int_equal(gclog_writer_check(w, &err), 0);
	gen_sample(&g, 0);
	assert_int_equal(gclog_writer_sample(w, g.wall, g.mono, g.sets, g.prevs, &err), 0);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true((uint64_t)st.st_size == one);
	close(fd);
	unlink(path);
	gen_free(&g);
}

/* ---- a gap, and --max-size on a linear log ------------------------------------ */

static void
test_gap_and_max_size(void **unused)
{
	char path[64];
	int fd = tmp_file(path, sizeof(path));
	struct gclog_writer_opts o = { 0 };
	struct gen g;
	struct readout ro;
	struct err err;
	char why[256];

	(void)unused;
	gen_init(&g, 3);
	struct gclog_writer *w = gen_writer(fd, path, &o, 500);
	gen_write(w, &g, 0, 3);
	gclog_writer_gap(w);
	gen_write(w, &g, 3, 5);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	struct gclog_reader *r = gclog_reader_open(path, &err);
	assert_non_null(r);
	if (read_gen(r, &g, &ro, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_int_equal(ro.n, 5);
	assert_int_equal(ro.sessions, 2);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(ro.gap[i], i == 0 || i == 3);
	assert_true(gclog_reader_session(r)->id == 501);
	gclog_reader_close(r);
	close(fd);
	unlink(path);

	/* --max-size: the sample that does not fit stops the log, with a
	 * message; what was written reads back whole */
	size_t full;
	uint8_t *d = gen_log(6, 3, 0, &full);
	free(d);
	fd = tmp_file(path, sizeof(path));
	o.max_size = full - 40;
	w = gen_writer(fd, path, &o, 600);
	int stopped_at = -1;
	for (unsigned i = 0; i < 6; i++) {
		gen_sample(&g, i);
		int rc = gclog_writer_sample(w, g.wall, g.mono, g.sets, g.prevs, &err);
		assert_true(rc == 0 || rc == 1);
		if (rc == 1 && stopped_at < 0) {
			stopped_at = (int)i;
			assert_non_null(strstr(err.msg, "--max-size"));
		}
		if (stopped_at >= 0)
			assert_int_equal(rc, 1);
	}
	assert_true(stopped_at > 0);
	assert_true(gclog_writer_size(w) <= o.max_size);
	assert_int_equal(gclog_writer_close(w, &err), 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_true((uint64_t)st.st_size <= o.max_size);
	r = gclog_reader_open(path, &err);
	assert_non_null(r);
	if (read_gen(r, &g, &ro, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_int_equal(ro.n, (size_t)stopped_at);
	assert_int_equal(gclog_reader_ndamage(r), 0);
	assert_true(gclog_reader_torn(r) == 0);
	gclog_reader_close(r);
	close(fd);
	unlink(path);
	gen_free(&g);
}

/* ---- gclog_set_copy ---------------------------------------------------------- */

static int
str_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static void
check_counter(const struct counter_desc *got, const struct counter_desc *want)
{
	assert_string_equal(got->name, want->name);
	assert_int_equal(got->type, want->type);
	assert_memory_equal(got->num, want->num, sizeof(want->num));
	assert_memory_equal(got->den, want->den, sizeof(want->den));
	assert_int_equal(got->mul, want->mul);
	assert_true(got->scale == want->scale);
	assert_int_equal(got->total, want->total);
	assert_int_equal(got->has_zero_base, want->has_zero_base);
	assert_true(got->zero_base == want->zero_base);
	assert_int_equal(got->clamp100, want->clamp100);
	assert_true(str_eq(got->rows_set, want->rows_set));
	assert_true(str_eq(got->rows_counter, want->rows_counter));
	assert_true((got->rows_set == NULL) == (want->rows_set == NULL || !*want->rows_set));
	assert_non_null(got->unit);
	assert_true(str_eq(got->unit, want->unit));
	assert_non_null(got->help);
	assert_true(str_eq(got->help, want->help));
}

/* A set as a log gives it back: everything of want, with only counters. */
static void
check_set_desc(const struct counter_set *got, const struct counter_set *want, uint64_t fields,
	       const struct counter_desc *const *counters, size_t n)
{
	(void)fields;
	assert_non_null(got);
	assert_string_equal(got->name, want->name);
	assert_true(str_eq(got->alias, want->alias));
	assert_string_equal(got->help, want->help);
	assert_int_equal(got->multi_instance, want->multi_instance);
	assert_int_equal(got->has_total, want->has_total);
	assert_int_equal(got->group, want->group);
	assert_int_equal(got->nfields, want->nfields);
	for (size_t f = 0; f < want->nfields; f++) {
		assert_string_equal(got->fields[f].name, want->fields[f].name);
		assert_int_equal(got->fields[f].width, want->fields[f].width);
		assert_int_equal(got->fields[f].kind, want->fields[f].kind);
		assert_int_equal(got->fields[f].bound, want->fields[f].bound);
	}
	assert_int_equal(got->inflight_field, want->inflight_field);
	assert_int_equal(got->speed_field, want->speed_field);
	assert_int_equal(got->duplex_field, want->duplex_field);
	assert_int_equal(got->ncounters, n);
	for (size_t k = 0; k < n; k++)
		check_counter(&got->counters[k], counters[k]);
}

static void
test_set_copy(void **unused)
{
	const struct provider *p = provider_find("Processor");
	const struct counter_desc **all;

	(void)unused;
	assert_non_null(p);
	const struct counter_set *set = p->set;
	assert_true(set->ncounters > 5);
	all = malloc(set->ncounters * sizeof(*all));
	for (size_t k = 0; k < set->ncounters; k++)
		all[k] = &set->counters[k];
	struct counter_set *c = gclog_set_copy(set, all, set->ncounters);
	assert_non_null(c);
	check_set_desc(c, set, 0, all, set->ncounters);
	gclog_set_free(c);
	/* a subset, out of order */
	const struct counter_desc *some[2] = { all[3], all[0] };
	c = gclog_set_copy(set, some, 2);
	assert_non_null(c);
	check_set_desc(c, set, 0, some, 2);
	gclog_set_free(c);
	/* no counters at all */
	c = gclog_set_copy(set, NULL, 0);
	assert_non_null(c);
	check_set_desc(c, set, 0, NULL, 0);
	gclog_set_free(c);
	free(all);

	/* every provider's set copies whole */
	for (size_t i = 0; i < nproviders; i++) {
		set = providers[i]->set;
		all = malloc((set->ncounters ? set->ncounters : 1) * sizeof(*all));
		for (size_t k = 0; k < set->ncounters; k++)
			all[k] = &set->counters[k];
		c = gclog_set_copy(set, all, set->ncounters);
		if (!c)
			fail_msg("set %s does not copy", set->name);
		check_set_desc(c, set, 0, all, set->ncounters);
		gclog_set_free(c);
		free(all);
	}
	gclog_set_free(NULL);
}

/* ---- crc ---------------------------------------------------------------------- */

static void
test_crc(void **unused)
{
	(void)unused;
	/* the IEEE CRC-32 check value of "123456789" */
	assert_true(gclog_crc32(0, "123456789", 9) == 0xCBF43926u);
	assert_true(gclog_crc32(0, "", 0) == 0);
	/* incremental equals whole */
	assert_true(gclog_crc32(gclog_crc32(0, "1234", 4), "56789", 5) == 0xCBF43926u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_prevs),
		cmocka_unit_test(test_big_blocks),
		cmocka_unit_test(test_keyframes),
		cmocka_unit_test(test_torn_tail),
		cmocka_unit_test(test_corruption),
		cmocka_unit_test(test_trailing_bytes),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_circular),
		cmocka_unit_test(test_circular_damage),
		cmocka_unit_test(test_circular_torn),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_gap_and_max_size),
		cmocka_unit_test(test_max_size_too_small),
		cmocka_unit_test(test_set_copy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
