/*
 * gclog.c - the .gcl binary log: writer and reader (man/gclog.5).
 *
 * Layout: a 32-byte header (magic, version, flags, ring geometry, crc),
 * then records [type u8][length varint][payload][crc32 u32 LE]. Records:
 * SESSION (who and where), SCHEMA (a set's fields and recorded counters,
 * with every descriptor, so a later version derives an old log the old
 * way), INSTANCE (an id bound to a name, identity and key), KEYFRAME and
 * SAMPLE (one read: per set the monotonic stamp and, per instance, which
 * fields are present and which of them moved, and the moved ones as zig-zag
 * varint deltas against the instance's previous values; a KEYFRAME starts
 * from zero), MARK (a note), SEGMENT (a ring segment's
 * sequence number), PATHS (the counter paths the user asked for). A
 * keyframe block is the sync marker, then [SEGMENT], SESSION, every SCHEMA,
 * PATHS, every INSTANCE in force, and the KEYFRAME: reading can start at
 * any sync marker.
 *
 * The writer keeps no copy of what it wrote: each read is written against
 * the caller's previous read (see struct wset). It builds each read's
 * records in a 64 KiB buffer and writes them with one write(2); a larger
 * block (a keyframe of many instances) is sized first, then streamed
 * through the buffer. Either way a kill leaves at worst one torn record at
 * the end, or a keyframe block without its KEYFRAME record. The
 * reader takes the whole file into memory, checks every CRC, and on damage
 * scans for the next sync marker; it never trusts a length or an index it
 * has not bounded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "gclog.h"

static const uint8_t magic[8] = { 0x89, 'G', 'C', 'L', '\r', '\n', 0x1a, '\n' };
static const uint8_t sync_marker[8] = { 0xf7, 'G', 'C', 'L', 's', 'y', 'n', 'c' };

enum rec_type {
	REC_PAD, /* a zero byte: unwritten space (the end of a ring segment) */
	REC_SESSION,
	REC_SCHEMA,
	REC_INSTANCE,
	REC_KEYFRAME,
	REC_SAMPLE,
	REC_MARK,
	REC_SEGMENT,
	REC_PATHS,
};

#define FLAG_CIRCULAR 1u
#define MAX_RECORD (16u << 20)
#define MAX_NAME 4096
#define MAX_KEY 4096
#define MAX_HELP 4096
#define MAX_INSTANCES (1u << 22)
#define MAX_SETS 256
#define MAX_COUNTERS 4096

/* ---- crc32 (IEEE 802.3, reflected, as zlib and PNG) ---------------------- */

static uint32_t crc_table[256];

static void
crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t
gclog_crc32(uint32_t crc, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	if (!crc_table[1])
		crc_init();
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- encoding ----------------------------------------------------------- */

/* An encoding buffer. Left zero, it grows to hold what is put. A log
 * writer's is bounded instead (limit): a block that fits is kept whole and
 * written with one write(2); past the limit the buffer only counts (over),
 * which sizes the block without keeping it, and the block is then encoded
 * again streaming (sink): a full buffer is handed to the sink, so a
 * keyframe of any size costs limit bytes of memory. A streamed record
 * whose payload may outgrow the buffer (the read's KEYFRAME or SAMPLE) has
 * its length from the counting pass (rec_begin_known), and its crc is kept
 * across the flushes. */
struct gbuf {
	uint8_t *p;
	size_t len, cap;
	size_t limit;   /* nonzero: bounded */
	int over;       /* bounded and past the limit: bytes are counted only */
	size_t last_payload; /* the payload length of the last record ended */
	/* streaming */
	int (*sink)(void *ctx, const uint8_t *p, size_t n);
	void *sink_ctx;
	int failed;     /* the sink failed: nothing more is written */
	uint64_t flushed; /* bytes handed to the sink */
	size_t known_at;  /* the open known-length record's unhashed bytes, or SIZE_MAX */
	uint32_t known_crc;
	uint64_t known_end; /* where its payload ends (flushed + len) */
};

#define GB_NONE SIZE_MAX

/* Hand what the buffer holds to the sink. */
static void
gb_flush(struct gbuf *b)
{
	if (b->known_at != GB_NONE) {
		b->known_crc = gclog_crc32(b->known_crc, b->p + b->known_at, b->len - b->known_at);
		b->known_at = 0;
	}
	if (b->len && !b->failed && b->sink(b->sink_ctx, b->p, b->len) < 0)
		b->failed = 1;
	b->flushed += b->len;
	b->len = 0;
}

/* n more bytes: where to put them, or NULL when they are only counted. */
static uint8_t *
gb_take(struct gbuf *b, size_t n)
{
	if (b->over) {
		b->len += n;
		return NULL;
	}
	if (b->len + n > b->cap && b->sink && b->known_at != GB_NONE)
		gb_flush(b); /* inside a record of known length: it may be cut */
	if (b->limit && !b->sink && b->len + n > b->limit) {
		b->over = 1;
		b->len += n;
		return NULL;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	uint8_t *q = b->p + b->len;
	b->len += n;
	return q;
}

static void
gb_put(struct gbuf *b, const void *p, size_t n)
{
	if (n == 0)
		return; /* p may be NULL: an empty string */
	uint8_t *q = gb_take(b, n);
	if (q)
		memcpy(q, p, n);
}

static void
gb_u8(struct gbuf *b, uint8_t v)
{
	gb_put(b, &v, 1);
}

/* v as a varint into out (10 bytes at most); its length. */
static size_t
varint_bytes(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

static void
gb_varint(struct gbuf *b, uint64_t v)
{
	uint8_t tmp[10];
	gb_put(b, tmp, varint_bytes(tmp, v));
}

static uint64_t
zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);
}

static int64_t
unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void
gb_zz(struct gbuf *b, int64_t v)
{
	gb_varint(b, zigzag(v));
}

static void
gb_le(struct gbuf *b, uint64_t v, int bytes)
{
	uint8_t tmp[8];
	for (int i = 0; i < bytes; i++)
		tmp[i] = (uint8_t)(v >> (8 * i));
	gb_put(b, tmp, (size_t)bytes);
}

static void
gb_f64(struct gbuf *b, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof(v));
	gb_le(b, v, 8);
}

static void
gb_str(struct gbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	gb_varint(b, n);
	gb_put(b, s, n);
}

/* Start a record of type t in b; rec_end() fills in its length and crc.
 * The length is a varint, so the payload is built after a 5-byte hole and
 * moved down once its size is known. Streaming, a record starts in a
 * buffer at most half full, so it is never cut (records of unknown length
 * are small: a name, a key, a schema). */
static size_t
rec_begin(struct gbuf *b, uint8_t t)
{
	static const uint8_t hole[5];

	if (b->sink && b->len > b->limit / 2)
		gb_flush(b);
	size_t at = b->len;
	gb_u8(b, t);
	gb_put(b, hole, sizeof(hole));
	return at;
}

static void
rec_end(struct gbuf *b, size_t at)
{
	size_t payload = b->len - at - 6;
	uint8_t lenbuf[10];
	size_t nl = varint_bytes(lenbuf, payload);

	b->last_payload = payload;
	if (b->over) {
		b->len = at + 1 + nl + payload + 4; /* counted only */
		return;
	}
	memmove(b->p + at + 1 + nl, b->p + at + 6, payload);
	memcpy(b->p + at + 1, lenbuf, nl);
	b->len = at + 1 + nl + payload;
	gb_le(b, gclog_crc32(0, b->p + at, b->len - at), 4);
}

/* Start a streamed record of type t whose payload the counting pass found
 * to be payload bytes: it may be flushed as it goes. */
static void
rec_begin_known(struct gbuf *b, uint8_t t, size_t payload)
{
	if (b->sink && b->len > b->limit / 2)
		gb_flush(b);
	b->known_at = b->len;
	b->known_crc = 0;
	gb_u8(b, t);
	gb_varint(b, payload);
	b->known_end = b->flushed + b->len + payload;
}

/* End it: its crc. -1 when its payload was not the length given. */
static int
rec_end_known(struct gbuf *b)
{
	int ok = b->flushed + b->len == b->known_end;

	b->known_crc = gclog_crc32(b->known_crc, b->p + b->known_at, b->len - b->known_at);
	b->known_at = GB_NONE;
	gb_le(b, b->known_crc, 4);
	return ok ? 0 : -1;
}

/* ---- decoding ----------------------------------------------------------- */

struct cur {
	const uint8_t *p, *end;
	int bad;
};

static uint8_t
cu_u8(struct cur *c)
{
	if (c->p >= c->end) {
		c->bad = 1;
		return 0;
	}
	return *c->p++;
}

static uint64_t
cu_varint(struct cur *c)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 70; shift += 7) {
		if (c->p >= c->end) {
			c->bad = 1;
			return 0;
		}
		uint8_t byte = *c->p++;
		if (shift == 63 && byte > 1) {
			c->bad = 1;
			return 0;
		}
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	c->bad = 1;
	return 0;
}

static int64_t
cu_zz(struct cur *c)
{
	return unzigzag(cu_varint(c));
}

static uint64_t
cu_le(struct cur *c, int bytes)
{
	uint64_t v = 0;

	if (c->end - c->p < bytes) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += bytes;
	return v;
}

static double
cu_f64(struct cur *c)
{
	uint64_t v = cu_le(c, 8);
	double d;
	memcpy(&d, &v, sizeof(d));
	if (!isfinite(d)) {
		c->bad = 1;
		return 0;
	}
	return d;
}

/* A string of at most max bytes into a fresh allocation (NUL-terminated,
 * no NUL inside), or NULL with c->bad set. */
static char *
cu_strdup(struct cur *c, size_t max)
{
	uint64_t n = cu_varint(c);

	if (c->bad || n > max || n > (uint64_t)(c->end - c->p) || memchr(c->p, 0, n)) {
		c->bad = 1;
		return NULL;
	}
	char *s = xstrndup((const char *)c->p, n);
	c->p += n;
	return s;
}

/* The same into a fixed buffer of size n. */
static void
cu_strbuf(struct cur *c, char *buf, size_t n)
{
	char *s = cu_strdup(c, n - 1);
	snprintf(buf, n, "%s", s ? s : "");
	free(s);
}

static int record_at(const uint8_t *data, uint64_t pos, uint64_t end, uint8_t *type,
		     uint64_t *pstart, uint64_t *plen, uint64_t *rec_end_off);

/* ---- the session ---------------------------------------------------------- */

/* Copy src into dst[n], cut short when it does not fit. */
static void
copy_str(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src);
	if (len > n - 1)
		len = n - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void
local_zone(char *name, size_t n, int32_t *offset)
{
	time_t now = time(NULL);
	struct tm tm;
	const char *tz = getenv("TZ");
	char link[512];
	ssize_t got;

	localtime_r(&now, &tm);
	*offset = (int32_t)tm.tm_gmtoff;
	if (tz && *tz) {
		copy_str(name, n, tz[0] == ':' ? tz + 1 : tz);
		return;
	}
	got = readlink("/etc/localtime", link, sizeof(link) - 1);
	if (got > 0) {
		link[got] = '\0';
		const char *z = strstr(link, "zoneinfo/");
		if (z && z[9]) {
			copy_str(name, n, z + 9);
			return;
		}
	}
	snprintf(name, n, "%s", tm.tm_zone ? tm.tm_zone : "UTC");
}

void
gclog_session_local(struct gclog_session *s)
{
	struct utsname u;
	FILE *f;

	memset(s, 0, sizeof(*s));
	if (getrandom(&s->id, sizeof(s->id), GRND_NONBLOCK) != (ssize_t)sizeof(s->id))
		s->id = (uint64_t)now_wall_ns() ^ ((uint64_t)getpid() << 32);
	if (gethostname(s->host, sizeof(s->host)) < 0 || !s->host[0])
		snprintf(s->host, sizeof(s->host), "localhost");
	s->host[sizeof(s->host) - 1] = '\0';
	if (uname(&u) == 0) {
		copy_str(s->kernel, sizeof(s->kernel), u.release);
		copy_str(s->machine, sizeof(s->machine), u.machine);
	}
	s->ulong_bits = sizeof(long) * 8;
	long hz = sysconf(_SC_CLK_TCK);
	s->user_hz = hz > 0 ? (uint32_t)hz : 100;
	long ps = sysconf(_SC_PAGESIZE);
	s->page_size = ps > 0 ? (uint32_t)ps : 4096;
	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (f) {
		if (fgets(s->boot_id, sizeof(s->boot_id), f))
			s->boot_id[strcspn(s->boot_id, "\n")] = '\0';
		fclose(f);
	}
	s->start_ns = now_wall_ns();
	local_zone(s->tz_name, sizeof(s->tz_name), &s->tz_offset_s);
	copy_str(s->version, sizeof(s->version), GETCOUNTER_VERSION);
}

static void
put_session(struct gbuf *b, const struct gclog_session *s)
{
	size_t at = rec_begin(b, REC_SESSION);
	gb_le(b, s->id, 8);
	gb_str(b, s->host);
	gb_str(b, s->kernel);
	gb_str(b, s->machine);
	gb_u8(b, s->ulong_bits);
	gb_varint(b, s->user_hz);
	gb_varint(b, s->page_size);
	gb_str(b, s->boot_id);
	gb_zz(b, s->start_ns);
	gb_str(b, s->tz_name);
	gb_zz(b, s->tz_offset_s);
	gb_str(b, s->version);
	rec_end(b, at);
}

static int
get_session(struct cur *c, struct gclog_session *s)
{
	memset(s, 0, sizeof(*s));
	s->id = cu_le(c, 8);
	cu_strbuf(c, s->host, sizeof(s->host));
	cu_strbuf(c, s->kernel, sizeof(s->kernel));
	cu_strbuf(c, s->machine, sizeof(s->machine));
	s->ulong_bits = cu_u8(c);
	uint64_t hz = cu_varint(c), ps = cu_varint(c);
	cu_strbuf(c, s->boot_id, sizeof(s->boot_id));
	s->start_ns = cu_zz(c);
	cu_strbuf(c, s->tz_name, sizeof(s->tz_name));
	int64_t off = cu_zz(c);
	cu_strbuf(c, s->version, sizeof(s->version));
	if (c->bad || (s->ulong_bits != 32 && s->ulong_bits != 64) || hz == 0 || hz > 1000000 ||
	    ps > (1u << 30) || off < -86400 || off > 86400)
		return -1;
	s->user_hz = (uint32_t)hz;
	s->page_size = (uint32_t)ps;
	s->tz_offset_s = (int32_t)off;
	return 0;
}

/* ---- schemas ------------------------------------------------------------ */

static void
put_terms(struct gbuf *b, const struct term *t)
{
	uint8_t n = 0;
	while (n < COUNTER_MAX_TERMS && t[n].sign)
		n++;
	gb_u8(b, n);
	for (uint8_t i = 0; i < n; i++) {
		gb_u8(b, t[i].field);
		gb_u8(b, (uint8_t)t[i].sign);
	}
}

#define SCHEMA_KEYED 1u   /* instances carry keys that match rows */
#define SCHEMA_NO_HELP 2u /* help texts left out (given by the session's first) */

static void
put_schema(struct gbuf *b, size_t id, const struct counter_set *set,
	   const struct counter_desc *const *counters, size_t n, uint64_t fields, int keyed,
	   int help)
{
	size_t at = rec_begin(b, REC_SCHEMA);
	gb_varint(b, id);
	gb_str(b, set->name);
	gb_str(b, set->alias);
	gb_str(b, help ? set->help : "");
	gb_u8(b, set->multi_instance);
	gb_u8(b, set->has_total);
	gb_u8(b, set->group);
	gb_varint(b, set->nfields);
	for (size_t f = 0; f < set->nfields; f++) {
		gb_str(b, set->fields[f].name);
		gb_u8(b, set->fields[f].width);
		gb_u8(b, set->fields[f].kind);
		gb_u8(b, set->fields[f].bound);
	}
	gb_u8(b, set->inflight_field);
	gb_u8(b, set->speed_field);
	gb_u8(b, set->duplex_field);
	gb_u8(b, (keyed ? SCHEMA_KEYED : 0) | (help ? 0 : SCHEMA_NO_HELP));
	gb_varint(b, fields);
	gb_varint(b, n);
	for (size_t k = 0; k < n; k++) {
		const struct counter_desc *c = counters[k];
		gb_str(b, c->name);
		gb_u8(b, c->type);
		put_terms(b, c->num);
		put_terms(b, c->den);
		gb_u8(b, (uint8_t)(c->mul | (c->mul_num_only ? 0x80 : 0)));
		gb_f64(b, c->scale);
		gb_u8(b, c->total);
		gb_u8(b, c->has_zero_base);
		gb_f64(b, c->zero_base);
		gb_u8(b, c->clamp100);
		gb_str(b, c->rows_set);
		gb_str(b, c->rows_counter);
		gb_str(b, c->unit);
		gb_str(b, help ? c->help : "");
	}
	rec_end(b, at);
}

/* A set as a schema record declared it; owns every string. */
struct rschema {
	struct counter_set set;
	struct field_desc *fields;
	struct counter_desc *counters;
	uint64_t recorded;
	int keyed, no_help;
	uint8_t *payload; /* the record, to tell a repeat from a change */
	size_t payload_len;
	uint8_t *bare;    /* the same without help texts (later keyframes') */
	size_t bare_len;
};

static void
rschema_free(struct rschema *s)
{
	if (!s)
		return;
	free((char *)s->set.name);
	free((char *)s->set.alias);
	free((char *)s->set.help);
	for (size_t f = 0; s->fields && f < s->set.nfields; f++)
		free((char *)s->fields[f].name);
	for (size_t k = 0; s->counters && k < s->set.ncounters; k++) {
		struct counter_desc *c = &s->counters[k];
		free((char *)c->name);
		free((char *)c->rows_set);
		free((char *)c->rows_counter);
		free((char *)c->unit);
		free((char *)c->help);
	}
	free(s->fields);
	free(s->counters);
	free(s->payload);
	free(s->bare);
	free(s);
}

static int
get_terms(struct cur *c, struct term *t, size_t nfields)
{
	uint8_t n = cu_u8(c);
	if (n > COUNTER_MAX_TERMS)
		return -1;
	for (uint8_t i = 0; i < n; i++) {
		t[i].field = cu_u8(c);
		t[i].sign = (int8_t)cu_u8(c);
		if (t[i].field >= nfields || (t[i].sign != 1 && t[i].sign != -1))
			return -1;
	}
	return c->bad ? -1 : 0;
}

/* A string that may be empty: NULL for empty. */
static char *
cu_optstr(struct cur *c, size_t max)
{
	char *s = cu_strdup(c, max);
	if (s && !*s) {
		free(s);
		return NULL;
	}
	return s;
}

/* Decode a SCHEMA payload (after its id) into a new rschema, or NULL. */
static struct rschema *
get_schema(struct cur *c)
{
	struct rschema *s = xcalloc(1, sizeof(*s));
	struct counter_set *set = &s->set;

	set->name = cu_strdup(c, 255);
	set->alias = cu_optstr(c, 255);
	set->help = cu_strdup(c, MAX_HELP);
	set->multi_instance = cu_u8(c);
	set->has_total = cu_u8(c);
	set->group = cu_u8(c);
	uint64_t nf = cu_varint(c);
	if (c->bad || !set->name || !*set->name || !set->help || nf > SET_MAX_FIELDS ||
	    set->multi_instance > 1 || set->has_total > 1 || set->group > GROUP_NODE)
		goto bad;
	s->fields = xcalloc(nf ? nf : 1, sizeof(*s->fields));
	set->fields = s->fields;
	for (size_t f = 0; f < nf; f++) {
		s->fields[f].name = cu_strdup(c, 255);
		set->nfields = f + 1;
		s->fields[f].width = cu_u8(c);
		s->fields[f].kind = cu_u8(c);
		s->fields[f].bound = cu_u8(c);
		if (c->bad || s->fields[f].width > FW_ULONG || s->fields[f].kind > FK_CPU_EXTRA ||
		    s->fields[f].bound > FB_IF_BYTES)
			goto bad;
	}
	set->inflight_field = cu_u8(c);
	set->speed_field = cu_u8(c);
	set->duplex_field = cu_u8(c);
	uint8_t flags = cu_u8(c);
	s->keyed = flags & SCHEMA_KEYED;
	s->no_help = (flags & SCHEMA_NO_HELP) != 0;
	s->recorded = cu_varint(c);
	uint64_t nc = cu_varint(c);
	uint64_t all = nf == 64 ? UINT64_MAX : ((uint64_t)1 << nf) - 1;
	if (c->bad || (flags & ~(SCHEMA_KEYED | SCHEMA_NO_HELP)) || set->inflight_field > nf || set->speed_field > nf ||
	    set->duplex_field > nf || (s->recorded & ~all) || nc > MAX_COUNTERS)
		goto bad;
	s->counters = xcalloc(nc ? nc : 1, sizeof(*s->counters));
	set->counters = s->counters;
	for (size_t k = 0; k < nc; k++) {
		struct counter_desc *d = &s->counters[k];
		set->ncounters = k + 1;
		d->name = cu_strdup(c, 255);
		d->type = cu_u8(c);
		if (c->bad || !d->name || !*d->name || d->type > CT_UTILIZATION ||
		    get_terms(c, d->num, nf) < 0 || get_terms(c, d->den, nf) < 0)
			goto bad;
		d->mul = cu_u8(c);
		d->mul_num_only = d->mul >> 7; /* bit 7: scales N only */
		d->mul &= 0x7f;
		d->scale = cu_f64(c);
		d->total = cu_u8(c);
		d->has_zero_base = cu_u8(c);
		d->zero_base = cu_f64(c);
		d->clamp100 = cu_u8(c);
		d->rows_set = cu_optstr(c, 255);
		d->rows_counter = cu_optstr(c, 255);
		d->unit = cu_strdup(c, 31);
		d->help = cu_strdup(c, MAX_HELP);
		if (c->bad || d->mul > nf || d->total > TOTAL_MEAN || d->has_zero_base > 1 ||
		    d->clamp100 > 1 || !d->unit || !d->help || (!d->rows_set != !d->rows_counter))
			goto bad;
	}
	/* bytes after what this version knows: a later minor version's */
	return s;
bad:
	rschema_free(s);
	return NULL;
}

struct counter_set *
gclog_set_copy(const struct counter_set *set, const struct counter_desc *const *counters,
	       size_t n)
{
	struct gbuf b = { 0 };
	uint8_t type;
	uint64_t ps, pl, re;
	struct rschema *s = NULL;

	put_schema(&b, 0, set, counters, n, 0, 0, 1);
	if (record_at(b.p, 0, b.len, &type, &ps, &pl, &re) == 0) {
		struct cur c = { b.p + ps, b.p + ps + pl, 0 };
		(void)cu_varint(&c);
		s = get_schema(&c);
	}
	free(b.p);
	return s ? &s->set : NULL;
}

void
gclog_set_free(struct counter_set *set)
{
	/* set is the first member of the rschema it came from */
	rschema_free((struct rschema *)(void *)set);
}

/* ---- writer ------------------------------------------------------------- */

/* A recorded set. The writer keeps no copy of what it wrote: the values
 * of the last read it wrote are the caller's previous read (the prevs of
 * gclog_writer_sample), known by its stamp, and each instance's id is its
 * position in that read unless the list changed since the keyframe. */
struct wset {
	const struct counter_set *set;
	const struct counter_desc **counters;
	size_t ncounters;
	uint64_t fields;
	gclog_key_fn key;
	void *key_ctx;
	uint64_t stamp;     /* raw_set.stamp of the read last written; 0 none */
	uint32_t *ids;      /* that read's ids, in order; NULL: ids 0..nids-1 */
	size_t nids;
	size_t nbound;      /* ids bound since the keyframe (the next new id) */
	const char **keys;  /* keyed sets: per bound id, its key (in names) */
	size_t keys_cap;
	struct strpool names; /* the keys (reset at a keyframe, memory kept) */
	uint64_t last_mono;
};

/* Bytes an end MARK record takes at most: type, length, flags, a zig-zag
 * time (10), "end" with its length, and the CRC. */
#define END_MARK_ROOM 32

struct wmap;

/* The writer's buffer: a block up to this is written with one write(2);
 * a larger one streams through it. */
#define GB_LIMIT (64u << 10)

struct gclog_writer {
	int fd;
	char *name;
	struct gclog_writer_opts opts;
	struct gclog_session session;
	struct wset *sets;
	size_t nsets;
	struct gbuf buf;
	int started;      /* a keyframe block was written in this session */
	unsigned since_key;
	int64_t last_wall;
	uint64_t size;    /* linear: the file's size; circular: bytes written */
	int stopped;
	int full;       /* stopped at --max-size: the end mark still fits */
	/* circular */
	uint64_t seg_size;
	uint32_t nseg, seg;
	uint64_t seq, seg_off;
	char keybuf[MAX_KEY];
	char **paths;
	size_t npaths;
	int help_written; /* this session's schemas carried their help texts */
	int layout_fixed; /* circular: the segments are sized (first keyframe) */
	int wrote;        /* this writer wrote a sample */
	struct wmap *maps; /* per set, how the read being written is */
	size_t read_payload; /* the read record's payload, as sized */
	int stream_bad;   /* a streamed record's payload was not its size */
};

static void
header_bytes(uint8_t *h, int circular, uint64_t seg_size, uint32_t nseg)
{
	struct gbuf b = { 0 };
	gb_put(&b, magic, sizeof(magic));
	gb_le(&b, GCLOG_MAJOR, 2);
	gb_le(&b, GCLOG_MINOR, 2);
	gb_le(&b, circular ? FLAG_CIRCULAR : 0, 4);
	gb_le(&b, seg_size, 8);
	gb_le(&b, nseg, 4);
	gb_le(&b, gclog_crc32(0, b.p, b.len), 4);
	memcpy(h, b.p, GCLOG_HEADER_SIZE);
	free(b.p);
}

static int
write_all(struct gclog_writer *w, const void *p, size_t n, off_t at, struct err *err)
{
	const uint8_t *q = p;

	while (n) {
		ssize_t got = at >= 0 ? pwrite(w->fd, q, n, at) : write(w->fd, q, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err_set(err, "cannot write %s: %s", w->name,
				got < 0 ? strerror(errno) : "nothing written");
			return -1;
		}
		q += got;
		n -= (size_t)got;
		if (at >= 0)
			at += got;
	}
	return 0;
}

static int
zero_range(struct gclog_writer *w, uint64_t at, uint64_t n, struct err *err)
{
	static const uint8_t zeros[4096];

	while (n) {
		size_t k = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);
		if (write_all(w, zeros, k, (off_t)at, err) < 0)
			return -1;
		at += k;
		n -= k;
	}
	return 0;
}

struct gclog_writer *
gclog_writer_open(int fd, const char *name, const struct gclog_writer_opts *opts,
		  const struct gclog_session *s, struct err *err)
{
	struct gclog_writer *w = xcalloc(1, sizeof(*w));
	uint8_t h[GCLOG_HEADER_SIZE];

	w->fd = fd;
	w->name = xstrdup(name);
	w->opts = *opts;
	w->buf.limit = GB_LIMIT;
	w->buf.known_at = GB_NONE;
	if (!w->opts.keyframe_every)
		w->opts.keyframe_every = GCLOG_KEYFRAME_EVERY;
	w->session = *s;
	if (opts->append) {
			struct stat st;
		if (fstat(fd, &st) == 0 && st.st_size > 0) {
			struct gclog_reader *r = gclog_reader_open(name, err);
			struct gclog_tail t;
			if (!r)
				goto fail;
			gclog_reader_tail(r, &t);
			gclog_reader_close(r);
			/* a log goes on as it was made: say so rather than
			 * drop what the options ask */
			if (opts->circular && !t.circular) {
				err_set(err, "%s is a linear log: --append continues it as it is, "
					     "not as a ring (--circular does not apply)", name);
				goto fail;
			}
			if (t.circular && opts->max_size &&
			    opts->max_size != GCLOG_HEADER_SIZE + (uint64_t)t.seg_size * t.nseg) {
				err_set(err, "%s is a ring of %llu bytes: --append keeps its size "
					     "(--max-size %llu does not apply)", name,
					(unsigned long long)(GCLOG_HEADER_SIZE +
							     (uint64_t)t.seg_size * t.nseg),
					(unsigned long long)opts->max_size);
				goto fail;
			}
			w->opts.circular = t.circular;
			if (t.circular) {
				w->seg_size = t.seg_size;
				w->nseg = t.nseg;
				w->seg = t.seg;
				w->seq = t.seq;
				w->seg_off = t.end - (GCLOG_HEADER_SIZE + (uint64_t)t.seg * t.seg_size);
				w->opts.max_size = GCLOG_HEADER_SIZE + t.seg_size * t.nseg;
				w->layout_fixed = 1;
				/* the rest of the segment may hold a torn record */
				if (zero_range(w, t.end, t.seg_size - w->seg_off, err) < 0)
					goto fail;
				w->size = t.end;
			} else {
				if (ftruncate(fd, (off_t)t.end) < 0) {
					err_set(err, "cannot append to %s: %s", name, strerror(errno));
					goto fail;
				}
				if (lseek(fd, 0, SEEK_END) < 0) {
					err_set(err, "cannot append to %s: %s", name, strerror(errno));
					goto fail;
				}
				w->size = t.end;
			}
			return w;
		}
	}
	if (w->opts.circular) {
		uint64_t room = opts->max_size > GCLOG_HEADER_SIZE ? opts->max_size - GCLOG_HEADER_SIZE : 0;
		w->nseg = 8;
		while (w->nseg > 2 && room / w->nseg < 4096)
			w->nseg--;
		w->seg_size = room / w->nseg;
		if (w->seg_size < 1024) {
			err_set(err, "--max-size %llu is too small for a circular log (at least %u "
				     "bytes)", (unsigned long long)opts->max_size,
				GCLOG_HEADER_SIZE + 2 * 1024);
			goto fail;
		}
		w->seg = 0;
		w->seq = 0;
		w->seg_off = 0;
	}
	header_bytes(h, w->opts.circular, w->seg_size, w->nseg);
	if (write_all(w, h, sizeof(h), w->opts.circular ? 0 : -1, err) < 0)
		goto fail;
	w->size = sizeof(h);
	return w;
fail:
	free(w->name);
	free(w);
	return NULL;
}

size_t
gclog_writer_add_set(struct gclog_writer *w, const struct counter_set *set,
		     const struct counter_desc *const *counters, size_t ncounters, uint64_t fields,
		     gclog_key_fn key, void *key_ctx)
{
	w->sets = xrealloc(w->sets, (w->nsets + 1) * sizeof(*w->sets));
	struct wset *ws = &w->sets[w->nsets];
	memset(ws, 0, sizeof(*ws));
	ws->set = set;
	ws->counters = xmalloc((ncounters ? ncounters : 1) * sizeof(*ws->counters));
	if (ncounters)
		memcpy(ws->counters, counters, ncounters * sizeof(*counters));
	ws->ncounters = ncounters;
	ws->fields = fields;
	ws->key = key;
	ws->key_ctx = key_ctx;
	return w->nsets++;
}

size_t
gclog_writer_nsets(const struct gclog_writer *w)
{
	return w->nsets;
}

/* The key of instance name in ws (into w->keybuf), "" for none. */
static const char *
instance_key(struct gclog_writer *w, struct wset *ws, const char *name)
{
	size_t n = ws->key ? ws->key(ws->key_ctx, name, w->keybuf, sizeof(w->keybuf)) : 0;
	w->keybuf[n < sizeof(w->keybuf) ? n : sizeof(w->keybuf) - 1] = '\0';
	return w->keybuf;
}

/* The key id was bound with. */
static const char *
wset_key(const struct wset *ws, uint32_t id)
{
	return ws->keys && id < ws->nbound ? ws->keys[id] : "";
}

/* Remember the key id is bound with (keyed sets). */
static void
bind_key(struct wset *ws, uint32_t id, const char *key)
{
	if (!ws->key)
		return;
	xgrow((void **)&ws->keys, &ws->keys_cap, (size_t)id + 1, sizeof(*ws->keys));
	ws->keys[id] = key[0] ? strpool_add(&ws->names, key) : "";
}

/* The INSTANCE record binding id to instance i of rs. */
static void
put_instance(struct gbuf *b, size_t set_id, const struct wset *ws, const struct raw_set *rs,
	     size_t i, uint32_t id)
{
	const struct raw_instance *ri = &rs->inst[i];
	size_t at = rec_begin(b, REC_INSTANCE);

	gb_varint(b, set_id);
	gb_varint(b, id);
	gb_str(b, raw_name(rs, ri));
	gb_varint(b, raw_identity_at(rs, i));
	gb_u8(b, (uint8_t)raw_in_total(rs, ri));
	gb_str(b, wset_key(ws, id));
	rec_end(b, at);
}

/* Unbind every id; the keys' memory is reused by the next binding (a
 * keyframe binds afresh, so a keyframe like the last allocates nothing). */
static void
wset_forget(struct wset *ws)
{
	strpool_reset(&ws->names);
	free(ws->ids);
	ws->ids = NULL;
	ws->nids = 0;
	ws->nbound = 0;
	ws->stamp = 0;
	ws->last_mono = 0;
}

/* The id of the i-th instance of the last read written. */
static uint32_t
wset_id(const struct wset *ws, size_t i)
{
	return ws->ids ? ws->ids[i] : (uint32_t)i;
}

#define NO_REF UINT32_MAX

/* How one set's read is written (planned before it is encoded, so it can
 * be encoded twice: to size the block, then streaming). ref is the last
 * read written (NULL when the caller no longer holds it: every instance is
 * then bound anew). */
struct wmap {
	const struct raw_set *ref;
	int same;         /* the list is ref's: instance i is ref's i */
	int bind_all;     /* a keyframe: instance i is bound to id i */
	uint32_t *refidx; /* the list changed: per instance, its index in ref or NO_REF */
	uint32_t *ids;    /* the ids changed: the new list's */
	uint32_t *bind;   /* the instances bound (given INSTANCE records), in order */
	size_t nbind, bind_cap;
};

/* Instance i's index in the last read written, NO_REF for none. A field
 * read now and not then makes it a new id too: what the reader holds for a
 * field not read last time is older than the last read, which the writer
 * no longer has; a new id starts from zero. */
static uint32_t
wmap_ref(const struct wmap *m, const struct raw_set *rs, size_t i, uint64_t fields)
{
	uint32_t j = m->same ? (uint32_t)i : m->refidx ? m->refidx[i] : NO_REF;

	if (j != NO_REF && (raw_present_at(rs, i) & fields & ~raw_present_at(m->ref, j)))
		return NO_REF;
	return j;
}

/* Instance i's id in the read being written. */
static uint32_t
wmap_id(const struct wset *ws, const struct wmap *m, size_t i)
{
	return m->ids ? m->ids[i] : wset_id(ws, i);
}

static void
wmap_free(struct wmap *m)
{
	free(m->refidx);
	free(m->ids);
	free(m->bind);
	memset(m, 0, sizeof(*m));
}

/* Instance i is bound to id (an INSTANCE record) with key. */
static void
wmap_bind(struct wset *ws, struct wmap *m, size_t i, uint32_t id, const char *key)
{
	bind_key(ws, id, key);
	xgrow((void **)&m->bind, &m->bind_cap, m->nbind + 1, sizeof(*m->bind));
	m->bind[m->nbind++] = (uint32_t)i;
}

/* The list changed: find each instance of rs in ref by name (m->refidx),
 * and make room for the new list's ids. */
static void
map_changed(struct wmap *m, const struct raw_set *rs)
{
	const struct raw_set *ref = m->ref;
	size_t n = rs->ninstances, nref = ref ? ref->ninstances : 0, hcap = 16;

	m->refidx = xmalloc((n ? n : 1) * sizeof(*m->refidx));
	m->ids = xmalloc((n ? n : 1) * sizeof(*m->ids));
	while (hcap < nref + nref / 3 + 1) /* a load of at most 3/4 */
		hcap *= 2;
	uint32_t *hash = xmalloc(hcap * sizeof(*hash));
	uint8_t *taken = xcalloc(nref ? nref : 1, 1);
	memset(hash, 0xff, hcap * sizeof(*hash));
	for (size_t j = 0; j < nref; j++) {
		size_t h = str_hash(raw_name_at(ref, j)) & (hcap - 1);
		while (hash[h] != UINT32_MAX)
			h = (h + 1) & (hcap - 1);
		hash[h] = (uint32_t)j;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = raw_name_at(rs, i);
		uint32_t j = NO_REF;
		/* a name twice in one read: the second is another instance */
		for (size_t h = str_hash(name) & (hcap - 1); nref && hash[h] != UINT32_MAX;
		     h = (h + 1) & (hcap - 1))
			if (!taken[hash[h]] && strcmp(raw_name_at(ref, hash[h]), name) == 0) {
				j = hash[h];
				taken[j] = 1;
				break;
			}
		m->refidx[i] = j;
	}
	free(taken);
	free(hash);
}

/* Plan how rs is written: map its instances onto the ids of ws's last
 * read (m->ref), binding a new id to each instance that has none, and an
 * id again when its identity, _Total flag or key changed. A keyframe binds
 * ids 0..n-1 in order. */
static void
map_instances(struct gclog_writer *w, struct wset *ws, const struct raw_set *rs, struct wmap *m,
	      int key)
{
	const struct raw_set *ref = m->ref;
	size_t n = rs->ninstances;

	if (key) {
		wset_forget(ws);
		m->ref = NULL;
		m->bind_all = 1;
		for (size_t i = 0; i < n && ws->key; i++)
			bind_key(ws, (uint32_t)i, instance_key(w, ws, raw_name_at(rs, i)));
		ws->nbound = n;
		return;
	}
	m->same = ref && ref->ninstances == n;
	for (size_t i = 0; m->same && i < n; i++)
		m->same = raw_same_name(ref, i, rs, i);
	if (!m->same)
		map_changed(m, rs); /* rare */
	for (size_t i = 0; i < n; i++) {
		const struct raw_instance *ri = &rs->inst[i];
		uint32_t j = wmap_ref(m, rs, i, ws->fields);
		const char *k = ws->key ? instance_key(w, ws, raw_name(rs, ri)) : "";
		uint32_t id;
		if (j == NO_REF) {
			id = (uint32_t)ws->nbound++;
			wmap_bind(ws, m, i, id, k);
		} else {
			const struct raw_instance *rj = &ref->inst[j];
			id = wset_id(ws, j);
			if (!raw_same_identity(ref, j, rs, i) ||
			    raw_in_total(ref, rj) != raw_in_total(rs, ri) ||
			    strcmp(wset_key(ws, id), k) != 0)
				wmap_bind(ws, m, i, id, k);
		}
		if (m->ids)
			m->ids[i] = id;
		else if (id != wset_id(ws, i)) {
			/* the same list, a new id (a field read again): list them */
			m->ids = xmalloc((n ? n : 1) * sizeof(*m->ids));
			for (size_t k2 = 0; k2 < i; k2++)
				m->ids[k2] = wset_id(ws, k2);
			m->ids[i] = id;
		}
	}
}

/* Plan one read (see struct wmap); prevs[s] is the caller's previous read
 * of set s (or NULL). */
static void
plan_read(struct gclog_writer *w, const struct raw_set *const *sets,
	  const struct raw_set *const *prevs, int key)
{
	for (size_t s = 0; s < w->nsets; s++) {
		struct wset *ws = &w->sets[s];
		struct wmap *m = &w->maps[s];
		const struct raw_set *prev = prevs ? prevs[s] : NULL;
		wmap_free(m);
		/* the last read written, if the caller still holds it */
		if (prev && ws->stamp && prev->stamp == ws->stamp && prev->ninstances == ws->nids)
			m->ref = prev;
		if (sets[s])
			map_instances(w, ws, sets[s], m, key);
		else if (key)
			wset_forget(ws);
	}
}

/* The planned read is written: it is the next one's reference. */
static void
commit_read(struct gclog_writer *w, int64_t wall_ns, const uint64_t *mono_ns,
	    const struct raw_set *const *sets, int key)
{
	for (size_t s = 0; s < w->nsets; s++) {
		const struct raw_set *rs = sets[s];
		struct wset *ws = &w->sets[s];
		struct wmap *m = &w->maps[s];
		if (rs) {
			ws->stamp = rs->stamp;
			ws->nids = rs->ninstances;
			ws->last_mono = mono_ns[s];
			if (m->ids) {
				size_t i = 0;
				while (i < rs->ninstances && m->ids[i] == i)
					i++;
				free(ws->ids);
				ws->ids = NULL;
				if (i < rs->ninstances) { /* 0..n-1 needs no list */
					ws->ids = m->ids;
					m->ids = NULL;
				}
			}
		}
		wmap_free(m);
	}
	if (key)
		w->help_written = 1;
	w->last_wall = wall_ns;
}

/* The read's KEYFRAME (key) or SAMPLE record; streaming (known), with the
 * payload length the counting pass found. */
static void
put_read(struct gclog_writer *w, int64_t wall_ns, const uint64_t *mono_ns,
	 const struct raw_set *const *sets, int key, int known)
{
	struct gbuf *b = &w->buf;
	size_t nread = 0, at = 0;
	uint8_t type = key ? REC_KEYFRAME : REC_SAMPLE;

	for (size_t s = 0; s < w->nsets; s++)
		nread += sets[s] != NULL;
	if (known)
		rec_begin_known(b, type, w->read_payload);
	else
		at = rec_begin(b, type);
	gb_zz(b, key ? wall_ns : (int64_t)((uint64_t)wall_ns - (uint64_t)w->last_wall));
	gb_varint(b, nread);
	for (size_t s = 0; s < w->nsets; s++) {
		const struct raw_set *rs = sets[s];
		const struct wset *ws = &w->sets[s];
		const struct wmap *m = &w->maps[s];
		const struct raw_set *ref = m->ref;
		if (!rs)
			continue;
		int same = !key && m->same && !m->ids;
		gb_varint(b, s);
		gb_u8(b, (uint8_t)((rs->valid ? 1 : 0) | (same ? 2 : 0)));
		gb_zz(b, (int64_t)(mono_ns[s] - ws->last_mono));
		if (!same) {
			gb_varint(b, rs->ninstances);
			for (size_t i = 0; i < rs->ninstances; i++)
				gb_varint(b, wmap_id(ws, m, i));
		}
		for (size_t i = 0; i < rs->ninstances; i++) {
			const struct raw_instance *ri = &rs->inst[i];
			uint32_t j = ref ? wmap_ref(m, rs, i, ws->fields) : NO_REF;
			const struct raw_instance *rj = j == NO_REF ? NULL : &ref->inst[j];
			uint64_t present = raw_present(rs, ri) & ws->fields, changed = 0, bit = 1;
			gb_varint(b, present ^ (rj ? raw_present(ref, rj) & ws->fields : 0));
			/* which present fields moved: bit k for the k-th present one */
			for (uint64_t p = present; p; p &= p - 1, bit <<= 1) {
				unsigned f = (unsigned)__builtin_ctzll(p);
				if (raw_get(rs, ri, f) != (rj ? raw_get(ref, rj, f) : 0))
					changed |= bit;
			}
			gb_varint(b, changed);
			for (uint64_t p = present; p; p &= p - 1, changed >>= 1) {
				unsigned f = (unsigned)__builtin_ctzll(p);
				if (changed & 1)
					gb_zz(b, (int64_t)(raw_get(rs, ri, f) -
							   (rj ? raw_get(ref, rj, f) : 0)));
			}
		}
	}
	if (known) {
		if (rec_end_known(b) < 0)
			w->stream_bad = 1;
	} else {
		rec_end(b, at);
		w->read_payload = b->last_payload;
	}
}

/* The planned read's block into w->buf: with key, a keyframe block (sync,
 * [segment], session, schemas, paths); then the INSTANCE records, then the
 * read. */
static void
put_block(struct gclog_writer *w, int64_t wall_ns, const uint64_t *mono_ns,
	  const struct raw_set *const *sets, int key, int known)
{
	struct gbuf *b = &w->buf;

	if (key) {
		gb_put(b, sync_marker, sizeof(sync_marker));
		if (w->opts.circular && w->seg_off == 0) {
			size_t at = rec_begin(b, REC_SEGMENT);
			gb_varint(b, w->seq);
			rec_end(b, at);
		}
		put_session(b, &w->session);
		for (size_t s = 0; s < w->nsets; s++) {
			struct wset *ws = &w->sets[s];
			put_schema(b, s, ws->set, ws->counters, ws->ncounters, ws->fields,
				   ws->key != NULL, !w->help_written);
		}
		if (w->npaths) {
			size_t at = rec_begin(b, REC_PATHS);
			gb_varint(b, w->npaths);
			for (size_t i = 0; i < w->npaths; i++)
				gb_str(b, w->paths[i]);
			rec_end(b, at);
		}
	}
	for (size_t s = 0; s < w->nsets; s++) {
		const struct raw_set *rs = sets[s];
		const struct wmap *m = &w->maps[s];
		if (!rs)
			continue;
		if (m->bind_all)
			for (size_t i = 0; i < rs->ninstances; i++)
				put_instance(b, s, &w->sets[s], rs, i, (uint32_t)i);
		for (size_t k = 0; k < m->nbind; k++)
			put_instance(b, s, &w->sets[s], rs, m->bind[k],
				     wmap_id(&w->sets[s], m, m->bind[k]));
	}
	put_read(w, wall_ns, mono_ns, sets, key, known);
}

/* Size the planned read's block: it is left in w->buf when it fits the
 * buffer's limit, else only counted (w->buf.over). Its size. */
static uint64_t
size_block(struct gclog_writer *w, int64_t wall_ns, const uint64_t *mono_ns,
	   const struct raw_set *const *sets, int key)
{
	w->buf.len = 0;
	w->buf.over = 0;
	put_block(w, wall_ns, mono_ns, sets, key, 0);
	return w->buf.len;
}

struct wsink {
	struct gclog_writer *w;
	off_t at; /* -1: append */
	struct err *err;
};

static int
sink_write(void *ctx, const uint8_t *p, size_t n)
{
	struct wsink *k = ctx;

	if (write_all(k->w, p, n, k->at, k->err) < 0)
		return -1;
	if (k->at >= 0)
		k->at += (off_t)n;
	return 0;
}

/* Write the sized block at file offset at (-1: append): the buffer when it
 * holds it (one write), else encoded again, streaming. 0, or -1 with err. */
static int
write_block(struct gclog_writer *w, off_t at, uint64_t size, int64_t wall_ns,
	    const uint64_t *mono_ns, const struct raw_set *const *sets, int key, struct err *err)
{
	struct gbuf *b = &w->buf;

	if (!b->over)
		return write_all(w, b->p, b->len, at, err);
	struct wsink k = { w, at, err };
	b->len = 0;
	b->over = 0;
	b->flushed = 0;
	b->failed = 0;
	b->known_at = GB_NONE;
	b->sink = sink_write;
	b->sink_ctx = &k;
	w->stream_bad = 0;
	put_block(w, wall_ns, mono_ns, sets, key, 1);
	gb_flush(b);
	b->sink = NULL;
	int bad = w->stream_bad || b->flushed != size;
	uint64_t flushed = b->flushed;
	b->len = 0;
	if (b->cap > b->limit) { /* a record larger than the buffer (many paths) */
		b->cap = b->limit;
		b->p = xrealloc(b->p, b->cap);
	}
	if (b->failed)
		return -1;
	if (bad)
		return err_set(err, "%s: a block of %llu bytes came out as %llu: not written whole",
			       w->name, (unsigned long long)size, (unsigned long long)flushed);
	return 0;
}

void
gclog_writer_paths(struct gclog_writer *w, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < w->npaths; i++)
		free(w->paths[i]);
	free(w->paths);
	w->paths = xcalloc(n ? n : 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		w->paths[i] = xstrdup(paths[i]);
	w->npaths = n;
}

/* The bytes a linear log reaches at the least once this session's first
 * read is written: what it holds now, a keyframe block with no instances
 * and no values (sync, session, schemas with their help texts, paths, an
 * empty keyframe record), and the room kept for the end mark. A first read
 * only adds to that block, so a --max-size below it can never work. */
static uint64_t
writer_floor(const struct gclog_writer *w)
{
	struct gbuf b = { 0 };
	uint64_t n;

	gb_put(&b, sync_marker, sizeof(sync_marker));
	put_session(&b, &w->session);
	for (size_t s = 0; s < w->nsets; s++)
		put_schema(&b, s, w->sets[s].set, w->sets[s].counters, w->sets[s].ncounters,
			   w->sets[s].fields, w->sets[s].key != NULL, !w->help_written);
	if (w->npaths) {
		size_t at = rec_begin(&b, REC_PATHS);
		gb_varint(&b, w->npaths);
		for (size_t i = 0; i < w->npaths; i++)
			gb_str(&b, w->paths[i]);
		rec_end(&b, at);
	}
	size_t at = rec_begin(&b, REC_KEYFRAME);
	gb_zz(&b, 0);
	gb_varint(&b, 0);
	rec_end(&b, at);
	n = w->size + b.len + END_MARK_ROOM;
	free(b.p);
	return n;
}

/* The smallest --max-size, in whole K, for a log whose first read needs
 * need bytes in all. */
static unsigned long long
kib_up(uint64_t need)
{
	return (unsigned long long)((need + 1023) / 1024);
}

int
gclog_writer_check(const struct gclog_writer *w, struct err *err)
{
	uint64_t need;

	/* a log that already holds records (an --append, a --tui reopen)
	 * is not empty when it is full: it stops as a full log does */
	if (w->opts.circular || !w->opts.max_size || w->started || w->size > GCLOG_HEADER_SIZE)
		return 0;
	need = writer_floor(w);
	if (need <= w->opts.max_size)
		return 0;
	/* the first read's instances are not known yet: the floor, said as
	 * one (the read's own error gives the exact size) */
	return err_set(err, "--max-size %llu is too small for a log of these counters: "
			    "their descriptions alone take %llu bytes before the first read's "
			    "values: give at least %lluK, more for many instances",
		       (unsigned long long)w->opts.max_size, (unsigned long long)need,
		       kib_up(need));
}

/* A new ring's segments, sized once its first keyframe block (key bytes)
 * is known: as many segments (8 down to 2) as leave each room for two
 * keyframes, and never one too small for a keyframe and an eighth more
 * (instances may come). Rewrites the header. 0, or -1 with err naming the
 * smallest --max-size that works for these counters. */
static int
ring_layout(struct gclog_writer *w, uint64_t key, struct err *err)
{
	uint64_t room = w->opts.max_size > GCLOG_HEADER_SIZE ? w->opts.max_size - GCLOG_HEADER_SIZE
							      : 0;
	uint64_t need = key + key / 8 + 1;
	uint8_t h[GCLOG_HEADER_SIZE];

	if (room / 2 < need) {
		uint64_t min = GCLOG_HEADER_SIZE + 2 * need;
		err_set(err, "%s: one keyframe of these counters takes %llu bytes: a circular log "
			     "of them needs --max-size %lluK or more", w->name,
			(unsigned long long)key, (unsigned long long)((min + 1023) / 1024));
		return -1;
	}
	w->nseg = 8;
	while (w->nseg > 2 && room / w->nseg < 2 * key)
		w->nseg--;
	w->seg_size = room / w->nseg;
	header_bytes(h, 1, w->seg_size, w->nseg);
	if (write_all(w, h, sizeof(h), 0, err) < 0)
		return -1;
	w->layout_fixed = 1;
	return 0;
}

int
gclog_writer_sample(struct gclog_writer *w, int64_t wall_ns, const uint64_t *mono_ns,
		    const struct raw_set *const *sets, const struct raw_set *const *prevs,
		    struct err *err)
{
	int key = !w->started || w->since_key >= w->opts.keyframe_every;
	uint64_t size;

	if (w->stopped)
		return 1;
	/* new ids are bound until the next keyframe: keep them well inside
	 * what a reader takes */
	for (size_t s = 0; s < w->nsets; s++)
		key |= w->sets[s].nbound > MAX_INSTANCES / 2;
	if (!w->maps)
		w->maps = xcalloc(w->nsets ? w->nsets : 1, sizeof(*w->maps));
	plan_read(w, sets, prevs, key);
	size = size_block(w, wall_ns, mono_ns, sets, key);
	if (w->opts.circular && !w->layout_fixed && ring_layout(w, size, err) < 0) {
		w->stopped = 1;
		return -1;
	}
	if (w->opts.circular) {
		if (w->seg_off == 0 && size > w->seg_size) {
			err_set(err, "%s: one keyframe of these counters takes %llu bytes, more than "
				     "a segment of the ring (%llu): raise --max-size", w->name,
				(unsigned long long)size, (unsigned long long)w->seg_size);
			w->stopped = 1;
			return -1;
		}
		if (w->seg_off + size > w->seg_size) {
			/* the next segment: it is the oldest; clear it, then
			 * start it with a keyframe block */
			w->seg = (w->seg + 1) % w->nseg;
			w->seq++;
			w->seg_off = 0;
			uint64_t at = GCLOG_HEADER_SIZE + (uint64_t)w->seg * w->seg_size;
			if (zero_range(w, at, w->seg_size, err) < 0)
				return -1;
			key = 1;
			plan_read(w, sets, prevs, key);
			size = size_block(w, wall_ns, mono_ns, sets, key);
			if (size > w->seg_size) {
				err_set(err, "%s: one keyframe of these counters takes %llu bytes, "
					     "more than a segment of the ring (%llu): raise --max-size",
					w->name, (unsigned long long)size,
					(unsigned long long)w->seg_size);
				w->stopped = 1;
				return -1;
			}
		}
		uint64_t at = GCLOG_HEADER_SIZE + (uint64_t)w->seg * w->seg_size + w->seg_off;
		if (write_block(w, (off_t)at, size, wall_ns, mono_ns, sets, key, err) < 0)
			return -1;
		w->seg_off += size;
		if (at + size > w->size)
			w->size = at + size;
	} else {
		/* room is kept for the end mark, so a log stopped at --max-size
		 * still reads as ended cleanly, not as killed */
		if (w->opts.max_size && w->size + size + END_MARK_ROOM > w->opts.max_size &&
		    !w->wrote && w->size <= GCLOG_HEADER_SIZE) {
			/* not one read fits: an error, never an empty log */
			uint64_t need = w->size + size + END_MARK_ROOM;
			err_set(err, "%s: the first read of these counters takes %llu bytes, more "
				     "than --max-size %llu leaves: give at least %lluK", w->name,
				(unsigned long long)size, (unsigned long long)w->opts.max_size,
				kib_up(need));
			w->stopped = 1;
			return -1;
		}
		if (w->opts.max_size && w->size + size + END_MARK_ROOM > w->opts.max_size) {
			err_set(err, "%s reached --max-size (%llu bytes): recording stopped", w->name,
				(unsigned long long)w->opts.max_size);
			w->stopped = 1;
			w->full = 1;
			return 1;
		}
		if (write_block(w, -1, size, wall_ns, mono_ns, sets, key, err) < 0)
			return -1;
		w->size += size;
	}
	commit_read(w, wall_ns, mono_ns, sets, key);
	w->wrote = 1;
	w->started = 1;
	w->since_key = key ? 1 : w->since_key + 1;
	return 0;
}

void
gclog_writer_gap(struct gclog_writer *w)
{
	w->session.id++;
	w->started = 0;
	w->help_written = 0;
}

void
gclog_writer_restart(struct gclog_writer *w)
{
	/* not id + 1: a reader takes that for a break in one recording */
	w->session.id += 2;
	w->started = 0;
	w->help_written = 0;
}

void
gclog_writer_boot(struct gclog_writer *w, const char *boot_id)
{
	snprintf(w->session.boot_id, sizeof(w->session.boot_id), "%s", boot_id);
	gclog_writer_gap(w);
}

uint64_t
gclog_writer_size(const struct gclog_writer *w)
{
	return w->size;
}

int
gclog_writer_close(struct gclog_writer *w, struct err *err)
{
	int rc = 0;

	if (!w)
		return 0;
	if (w->started && (!w->stopped || w->full)) {
		/* an end mark: the summary tells a clean end from a kill */
		w->buf.over = 0;
		w->buf.len = 0;
		size_t at = rec_begin(&w->buf, REC_MARK);
		gb_u8(&w->buf, 1);
		gb_zz(&w->buf, w->last_wall);
		gb_str(&w->buf, "end");
		rec_end(&w->buf, at);
		if (w->opts.circular) {
			if (w->seg_off + w->buf.len <= w->seg_size) {
				uint64_t off = GCLOG_HEADER_SIZE + (uint64_t)w->seg * w->seg_size +
					       w->seg_off;
				rc = write_all(w, w->buf.p, w->buf.len, (off_t)off, err);
			}
		} else if (!w->opts.max_size || w->size + w->buf.len <= w->opts.max_size) {
			rc = write_all(w, w->buf.p, w->buf.len, -1, err);
			if (rc == 0)
				w->size += w->buf.len;
		}
	}
	if (rc == 0 && fdatasync(w->fd) < 0 && errno != EINVAL && errno != EROFS) {
		err_set(err, "cannot write %s: %s", w->name, strerror(errno));
		rc = -1;
	}
	for (size_t s = 0; s < w->nsets; s++) {
		wset_forget(&w->sets[s]);
		strpool_free(&w->sets[s].names);
		free(w->sets[s].keys);
		free(w->sets[s].counters);
		if (w->maps)
			wmap_free(&w->maps[s]);
	}
	free(w->maps);
	free(w->sets);
	for (size_t i = 0; i < w->npaths; i++)
		free(w->paths[i]);
	free(w->paths);
	free(w->buf.p);
	free(w->name);
	free(w);
	return rc;
}

/* ---- reader ------------------------------------------------------------- */

struct rinst {
	char *name;
	uint64_t identity;
	uint8_t in_total;
	uint8_t bound;
	char *key;
	uint64_t present;
	uint64_t *values;
};

struct rset {
	struct rschema *schema;
	struct rinst *inst;
	size_t ninst;
	uint32_t *ids;
	size_t nids, ids_cap;
	uint64_t last_mono;
	struct raw_set rs;
	int rs_init;
	const char **keys;
	size_t keys_cap;
	int key_pending; /* a keyframe is being read and has not listed it */
};

/* Forget the instance bindings from id n on (a keyframe renumbered). */
static void
rset_unbind(struct rset *s, size_t n)
{
	for (size_t i = n; i < s->ninst; i++) {
		free(s->inst[i].name);
		free(s->inst[i].key);
		free(s->inst[i].values);
		memset(&s->inst[i], 0, sizeof(s->inst[i]));
	}
	if (n < s->ninst)
		s->ninst = n;
}

struct range {
	uint64_t off, end;
};

struct gclog_reader {
	const uint8_t *data;
	size_t len;
	int mapped;
	uint8_t *owned;
	char *name;
	unsigned major, minor;
	int circular;
	uint64_t seg_size;
	uint32_t nseg;
	struct range *ranges;
	uint32_t *range_seg;
	uint64_t *range_seq;
	size_t nranges, ri;
	uint64_t pos;
	uint64_t good_end;
	uint64_t skipped_to; /* the end of the last damage skipped */
	struct gclog_session session;
	int have_session;
	struct rset *sets[MAX_SETS];
	size_t nsets;
	int need_key, gap;
	int64_t last_wall;
	struct gclog_sample sample;
	struct gclog_set_sample *ss;
	size_t ss_cap;
	char *mark;
	struct gclog_damage *damage;
	size_t ndamage, damage_cap;
	uint64_t torn;
	char **paths;
	size_t npaths;
	uint64_t paths_gen;
};

static void
reader_free_paths(struct gclog_reader *r)
{
	for (size_t i = 0; i < r->npaths; i++)
		free(r->paths[i]);
	free(r->paths);
	r->paths = NULL;
	r->npaths = 0;
}

static int
rec_paths(struct gclog_reader *r, struct cur *c)
{
	uint64_t n = cu_varint(c);
	if (c->bad || n > 65536 || n > (uint64_t)(c->end - c->p))
		return -1;
	char **paths = xcalloc(n ? n : 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		paths[i] = cu_strdup(c, MAX_NAME);
		if (!paths[i]) {
			for (size_t k = 0; k < i; k++)
				free(paths[k]);
			free(paths);
			return -1;
		}
	}
	int same = n == r->npaths;
	for (size_t i = 0; same && i < n; i++)
		same = strcmp(paths[i], r->paths[i]) == 0;
	reader_free_paths(r);
	r->paths = paths;
	r->npaths = n;
	r->paths_gen += !same;
	return 0;
}

static void
rset_free(struct rset *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ninst; i++) {
		free(s->inst[i].name);
		free(s->inst[i].key);
		free(s->inst[i].values);
	}
	free(s->inst);
	free(s->ids);
	free(s->keys);
	if (s->rs_init)
		raw_set_free(&s->rs);
	rschema_free(s->schema);
	free(s);
}

static void
reader_clear_sets(struct gclog_reader *r)
{
	for (size_t i = 0; i < r->nsets; i++) {
		rset_free(r->sets[i]);
		r->sets[i] = NULL;
	}
	r->nsets = 0;
}

static void
add_damage(struct gclog_reader *r, uint64_t off, uint64_t bytes, const char *what)
{
	xgrow((void **)&r->damage, &r->damage_cap, r->ndamage + 1, sizeof(*r->damage));
	struct gclog_damage *d = &r->damage[r->ndamage++];
	d->offset = off;
	d->bytes = bytes;
	d->samples_lost = 0;
	snprintf(d->what, sizeof(d->what), "%s", what);
}

static int
seg_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Parse one record header at pos within [pos, end): type, payload bounds.
 * 0 ok; 1 cut short by end; -1 malformed. */
static int
record_at(const uint8_t *data, uint64_t pos, uint64_t end, uint8_t *type, uint64_t *pstart,
	  uint64_t *plen, uint64_t *rec_end_off)
{
	struct cur c = { data + pos, data + end, 0 };

	*type = cu_u8(&c);
	uint64_t len = cu_varint(&c);
	if (c.bad)
		return 1;
	if (len > MAX_RECORD)
		return -1;
	uint64_t start = (uint64_t)(c.p - data);
	if (start + len + 4 > end)
		return 1;
	uint32_t want = (uint32_t)(data[start + len] | data[start + len + 1] << 8 |
				   data[start + len + 2] << 16 |
				   (uint32_t)data[start + len + 3] << 24);
	if (gclog_crc32(0, data + pos, start + len - pos) != want)
		return -1;
	*pstart = start;
	*plen = len;
	*rec_end_off = start + len + 4;
	return 0;
}

/* Set up the ranges to read: one for a linear log, the ring's segments in
 * sequence order for a circular one. */
static void
reader_ranges(struct gclog_reader *r)
{
	if (!r->circular) {
		r->ranges = xmalloc(sizeof(*r->ranges));
		r->range_seg = xcalloc(1, sizeof(uint32_t));
		r->range_seq = xcalloc(1, sizeof(uint64_t));
		r->ranges[0].off = GCLOG_HEADER_SIZE;
		r->ranges[0].end = r->len;
		r->nranges = 1;
		return;
	}
	uint64_t (*found)[2] = xcalloc(r->nseg, sizeof(*found));
	size_t n = 0;
	for (uint32_t k = 0; k < r->nseg; k++) {
		uint64_t off = GCLOG_HEADER_SIZE + (uint64_t)k * r->seg_size;
		uint64_t end = off + r->seg_size < r->len ? off + r->seg_size : r->len;
		uint8_t type;
		uint64_t ps, pl, re;
		if (off + sizeof(sync_marker) >= end)
			continue;
		if (memcmp(r->data + off, sync_marker, sizeof(sync_marker)) != 0) {
			int zero = 1;
			for (size_t i = 0; i < sizeof(sync_marker); i++)
				zero &= r->data[off + i] == 0;
			if (!zero)
				add_damage(r, off, end - off, "a ring segment without its start");
			continue;
		}
		if (record_at(r->data, off + 8, end, &type, &ps, &pl, &re) != 0 ||
		    type != REC_SEGMENT) {
			add_damage(r, off, end - off, "a ring segment whose first record is damaged");
			continue;
		}
		struct cur c = { r->data + ps, r->data + ps + pl, 0 };
		uint64_t seq = cu_varint(&c);
		if (c.bad)
			continue;
		found[n][0] = seq;
		found[n][1] = k;
		n++;
	}
	qsort(found, n, sizeof(*found), seg_cmp);
	r->ranges = xmalloc((n ? n : 1) * sizeof(*r->ranges));
	r->range_seg = xmalloc((n ? n : 1) * sizeof(uint32_t));
	r->range_seq = xmalloc((n ? n : 1) * sizeof(uint64_t));
	for (size_t i = 0; i < n; i++) {
		uint64_t off = GCLOG_HEADER_SIZE + found[i][1] * r->seg_size;
		r->ranges[i].off = off;
		r->ranges[i].end = off + r->seg_size < r->len ? off + r->seg_size : r->len;
		r->range_seg[i] = (uint32_t)found[i][1];
		r->range_seq[i] = found[i][0];
	}
	r->nranges = n;
	free(found);
}

struct gclog_reader *
gclog_reader_open_mem(const uint8_t *data, size_t len, const char *name, struct err *err)
{
	struct gclog_reader *r;
	struct cur c = { data, data + len, 0 };

	if (len < sizeof(magic) || memcmp(data, magic, sizeof(magic)) != 0) {
		err_set(err, "%s is not a getcounter log (.gcl): its first bytes are not the gcl "
			     "magic", name);
		return NULL;
	}
	if (len < GCLOG_HEADER_SIZE) {
		err_set(err, "%s: the gcl header is cut short (%zu of %d bytes)", name, len,
			GCLOG_HEADER_SIZE);
		return NULL;
	}
	c.p += sizeof(magic);
	unsigned major = (unsigned)cu_le(&c, 2), minor = (unsigned)cu_le(&c, 2);
	uint32_t flags = (uint32_t)cu_le(&c, 4);
	uint64_t seg_size = cu_le(&c, 8);
	uint32_t nseg = (uint32_t)cu_le(&c, 4);
	uint32_t crc = (uint32_t)cu_le(&c, 4);
	if (major > GCLOG_MAJOR) {
		err_set(err, "%s is a gcl version %u.%u log; this getcounter (%s) reads version %d: "
			     "use a newer getcounter", name, major, minor, GETCOUNTER_VERSION,
			GCLOG_MAJOR);
		return NULL;
	}
	if (gclog_crc32(0, data, 28) != crc || major == 0 || (flags & ~FLAG_CIRCULAR) ||
	    ((flags & FLAG_CIRCULAR) && (nseg < 2 || nseg > 1024 || seg_size < 64 ||
					 seg_size > ((uint64_t)1 << 40)))) {
		err_set(err, "%s: the gcl header is damaged", name);
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->data = data;
	r->len = len;
	r->name = xstrdup(name);
	r->major = major;
	r->minor = minor;
	r->circular = (flags & FLAG_CIRCULAR) != 0;
	r->seg_size = seg_size;
	r->nseg = nseg;
	r->need_key = 1;
	reader_ranges(r);
	r->ri = 0;
	r->pos = r->nranges ? r->ranges[0].off : 0;
	r->good_end = GCLOG_HEADER_SIZE;
	return r;
}

/* Standard input copied into an anonymous file: its descriptor, or -1
 * with err. */
static int
stdin_copy(struct err *err)
{
	char buf[65536];
	ssize_t n, w;

	if (fcntl(STDIN_FILENO, F_GETFD) < 0) {
		err_set(err, "--input -: standard input is closed");
		return -1;
	}
	if (isatty(STDIN_FILENO)) {
		err_set(err, "--input -: standard input is a terminal, not a log: pipe one in "
			     "(getcounter -o - -f gcl ... | getcounter --input -)");
		return -1;
	}
	int m = memfd_create("getcounter-stdin", MFD_CLOEXEC);
	if (m < 0) {
		err_set(err, "cannot keep standard input: %s", strerror(errno));
		return -1;
	}
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		for (ssize_t k = 0; k < n; k += w)
			while ((w = write(m, buf + k, (size_t)(n - k))) < 0)
				if (errno != EINTR)
					goto fail;
	}
	return m;
fail:
	err_set(err, "cannot read standard input: %s", strerror(errno));
	close(m);
	return -1;
}

/* "-": standard input, copied once into an anonymous file, since a reader
 * maps what it reads and a replay opens its logs more than once. A
 * descriptor of it (to close), or -1 with err. */
static int
stdin_log(struct err *err)
{
	static int fd = -1;

	if (fd < 0 && (fd = stdin_copy(err)) < 0)
		return -1;
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (d < 0)
		err_set(err, "cannot read standard input: %s", strerror(errno));
	return d;
}

struct gclog_reader *
gclog_reader_open(const char *path, struct err *err)
{
	int in = strcmp(path, "-") == 0;
	int fd = in ? stdin_log(err) : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	struct gclog_reader *r;
	void *map = NULL;

	if (in)
		path = "standard input";
	if (fd < 0) {
		if (!in)
			err_set(err, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		err_set(err, "cannot read %s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		err_set(err, "cannot read %s: not a regular file", path);
		close(fd);
		return NULL;
	}
	if (st.st_size == 0) {
		err_set(err, "%s is empty: not a getcounter log (.gcl)", path);
		close(fd);
		return NULL;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			err_set(err, "cannot read %s: %s", path, strerror(errno));
			close(fd);
			return NULL;
		}
	}
	close(fd);
	r = gclog_reader_open_mem(map ? map : (const uint8_t *)"", (size_t)st.st_size, path, err);
	if (!r) {
		if (map)
			munmap(map, (size_t)st.st_size);
		return NULL;
	}
	r->mapped = map != NULL;
	return r;
}

void
gclog_reader_close(struct gclog_reader *r)
{
	if (!r)
		return;
	reader_clear_sets(r);
	if (r->mapped)
		munmap((void *)r->data, r->len);
	free(r->owned);
	free(r->ranges);
	free(r->range_seg);
	free(r->range_seq);
	free(r->ss);
	free(r->mark);
	free(r->damage);
	reader_free_paths(r);
	free(r->name);
	free(r);
}

static int
rec_schema(struct gclog_reader *r, struct cur *c, const uint8_t *payload, size_t len,
	   size_t *id_out)
{
	uint64_t id = cu_varint(c);
	if (c->bad || id >= MAX_SETS)
		return -1;
	struct rset *old = r->sets[id];
	if (old && ((old->schema->payload_len == len &&
		     memcmp(old->schema->payload, payload, len) == 0) ||
		    (old->schema->bare_len == len && memcmp(old->schema->bare, payload, len) == 0)))
		return 0; /* a keyframe's repeat (without the help texts) */
	struct rschema *s = get_schema(c);
	if (!s)
		return -1;
	s->payload = xmalloc(len ? len : 1);
	memcpy(s->payload, payload, len);
	s->payload_len = len;
	/* what later keyframes repeat: the same schema without help texts */
	struct gbuf bare = { 0 };
	const struct counter_desc **list = xmalloc((s->set.ncounters + 1) * sizeof(*list));
	for (size_t k = 0; k < s->set.ncounters; k++)
		list[k] = &s->counters[k];
	put_schema(&bare, id, &s->set, list, s->set.ncounters, s->recorded, s->keyed, 0);
	free(list);
	uint8_t type;
	uint64_t ps, pl, re;
	if (record_at(bare.p, 0, bare.len, &type, &ps, &pl, &re) == 0) {
		s->bare = xmalloc(pl ? pl : 1);
		memcpy(s->bare, bare.p + ps, pl);
		s->bare_len = pl;
	}
	free(bare.p);
	rset_free(old);
	struct rset *rs = xcalloc(1, sizeof(*rs));
	rs->schema = s;
	raw_set_init(&rs->rs, &s->set);
	rs->rs_init = 1;
	r->sets[id] = rs;
	if (id >= r->nsets)
		r->nsets = id + 1;
	*id_out = id;
	return 1;
}

static int
rec_instance(struct gclog_reader *r, struct cur *c)
{
	uint64_t set = cu_varint(c), id = cu_varint(c);
	if (c->bad || set >= r->nsets || !r->sets[set] || id >= MAX_INSTANCES)
		return -1;
	struct rset *rs = r->sets[set];
	char *name = cu_strdup(c, MAX_NAME);
	uint64_t identity = cu_varint(c);
	uint8_t in_total = cu_u8(c);
	char *key = cu_strdup(c, MAX_KEY);
	if (c->bad || !name || !key || in_total > 1) {
		free(name);
		free(key);
		return -1;
	}
	if (id >= rs->ninst) {
		/* ids are dense: a writer binds them in order */
		if (id > rs->ninst + 65536) {
			free(name);
			free(key);
			return -1;
		}
		rs->inst = xrealloc(rs->inst, (id + 1) * sizeof(*rs->inst));
		memset(rs->inst + rs->ninst, 0, (id + 1 - rs->ninst) * sizeof(*rs->inst));
		rs->ninst = id + 1;
	}
	struct rinst *ri = &rs->inst[id];
	free(ri->name);
	free(ri->key);
	ri->name = name;
	ri->key = key;
	ri->identity = identity;
	ri->in_total = in_total;
	if (!ri->bound) {
		size_t nf = rs->schema->set.nfields;
		ri->values = xcalloc(nf ? nf : 1, sizeof(uint64_t));
		ri->present = 0;
		ri->bound = 1;
	}
	return 0;
}

static int
rec_sample(struct gclog_reader *r, struct cur *c, int key, uint64_t offset)
{
	int64_t wall = cu_zz(c);
	uint64_t nsets = cu_varint(c);
	uint8_t seen[MAX_SETS] = { 0 };

	if (c->bad || nsets > r->nsets)
		return -1;
	if (!key)
		wall = (int64_t)((uint64_t)wall + (uint64_t)r->last_wall);
	if (nsets > r->ss_cap) {
		r->ss_cap = nsets;
		r->ss = xrealloc(r->ss, r->ss_cap * sizeof(*r->ss));
	}
	if (key)
		for (size_t s = 0; s < r->nsets; s++)
			if (r->sets[s]) {
				r->sets[s]->nids = 0;
				r->sets[s]->last_mono = 0;
				r->sets[s]->key_pending = 1;
			}
	for (size_t k = 0; k < nsets; k++) {
		uint64_t id = cu_varint(c);
		if (c->bad || id >= r->nsets || !r->sets[id] || seen[id])
			return -1;
		seen[id] = 1;
		struct rset *rs = r->sets[id];
		size_t nf = rs->schema->set.nfields;
		uint64_t all = nf == 64 ? UINT64_MAX : ((uint64_t)1 << nf) - 1;
		uint8_t flags = cu_u8(c);
		int64_t dmono = cu_zz(c);
		if (c->bad || flags > 3 || ((flags & 2) && key))
			return -1;
		rs->last_mono += (uint64_t)dmono;
		if (!(flags & 2)) {
			uint64_t n = cu_varint(c);
			if (c->bad || n > MAX_INSTANCES || n > (uint64_t)(c->end - c->p))
				return -1;
			/* a keyframe's instances are ids 0..n-1 (just bound): a
			 * binding past them is from before, as the writer forgot */
			if (key) {
				rset_unbind(rs, n);
				rs->key_pending = 0;
			}
			if (n > rs->ids_cap) {
				rs->ids_cap = n;
				rs->ids = xrealloc(rs->ids, n * sizeof(uint32_t));
			}
			for (size_t i = 0; i < n; i++) {
				uint64_t iid = cu_varint(c);
				if (c->bad || iid >= rs->ninst || !rs->inst[iid].bound)
					return -1;
				rs->ids[i] = (uint32_t)iid;
			}
			rs->nids = n;
		}
		raw_set_begin(&rs->rs);
		rs->rs.valid = flags & 1;
		rs->rs.mono_ns = rs->last_mono;
		if (rs->nids > rs->keys_cap) {
			rs->keys_cap = rs->nids;
			rs->keys = xrealloc(rs->keys, rs->keys_cap * sizeof(*rs->keys));
		}
		for (size_t i = 0; i < rs->nids; i++) {
			struct rinst *ri = &rs->inst[rs->ids[i]];
			if (key) {
				memset(ri->values, 0, (nf ? nf : 1) * sizeof(uint64_t));
				ri->present = 0;
			}
			uint64_t present = ri->present ^ cu_varint(c);
			if (c->bad || (present & ~all))
				return -1;
			ri->present = present;
			uint64_t changed = cu_varint(c);
			if (c->bad || (unsigned)__builtin_popcountll(present) < 64 - (unsigned)
			    (changed ? __builtin_clzll(changed) : 64))
				return -1; /* a bit beyond the present fields */
			for (uint64_t m = present; m; m &= m - 1, changed >>= 1)
				if (changed & 1)
					ri->values[__builtin_ctzll(m)] += (uint64_t)cu_zz(c);
			if (c->bad)
				return -1;
			struct raw_instance *out = raw_set_add(&rs->rs, ri->name, strlen(ri->name),
							       ri->identity);
			raw_set_in_total(&rs->rs, out, ri->in_total);
			raw_put_all(&rs->rs, out, ri->values, present);
			rs->keys[i] = ri->key;
		}
		r->ss[k].set = id;
		r->ss[k].valid = flags & 1;
		r->ss[k].mono_ns = rs->last_mono;
		r->ss[k].rs = &rs->rs;
		r->ss[k].keys = rs->keys;
	}
	if (key)
		for (size_t s = 0; s < r->nsets; s++)
			if (r->sets[s] && r->sets[s]->key_pending) {
				rset_unbind(r->sets[s], 0); /* not in the keyframe: forgotten */
				r->sets[s]->key_pending = 0;
			}
	r->last_wall = wall;
	r->sample.wall_ns = wall;
	r->sample.gap = r->gap;
	r->sample.nsets = nsets;
	r->sample.sets = r->ss;
	r->sample.offset = offset;
	r->gap = 0;
	return 0;
}

/* How many sample records [from, to) held, as far as they can be found:
 * every whole record that checks, walking byte by byte where one does not
 * (for --summary's "samples lost"). */
static uint64_t
count_samples(const struct gclog_reader *r, uint64_t from, uint64_t to)
{
	uint64_t n = 0, p = from;

	while (p < to) {
		uint8_t type;
		uint64_t ps, pl, re;
		if ((r->data[p] == REC_SAMPLE || r->data[p] == REC_KEYFRAME) &&
		    record_at(r->data, p, to, &type, &ps, &pl, &re) == 0) {
			n++;
			p = re;
			continue;
		}
		if (p + 1 < to && (r->data[p] == REC_SAMPLE || r->data[p] == REC_KEYFRAME) &&
		    p == from)
			n++; /* the damaged record itself was a sample */
		p++;
	}
	return n;
}

/* Where a torn tail starts: after the last good record (a sync marker
 * that begins a block cut short is part of the tail). */
static uint64_t
tail_start(const struct gclog_reader *r)
{
	const struct range *rg = &r->ranges[r->ri];
	uint64_t at = r->good_end > r->skipped_to ? r->good_end : r->skipped_to;
	return at > rg->off && at <= rg->end ? at : rg->off;
}

/* The offset of the first whole record (of a known type, its checksum
 * right) in (from, end), or end. At most 64 MiB of records are checked, so
 * that damage early in a large log costs a bounded time. */
static uint64_t
next_whole_record(const struct gclog_reader *r, uint64_t from, uint64_t end)
{
	uint64_t budget = (uint64_t)64 << 20;

	for (uint64_t p = from + 1; p < end; p++) {
		if (r->data[p] == REC_PAD || r->data[p] > REC_PATHS)
			continue;
		struct cur c = { r->data + p + 1, r->data + end, 0 };
		uint64_t len = cu_varint(&c);
		if (c.bad || len > MAX_RECORD || (uint64_t)(c.p - r->data) + len + 4 > end)
			continue;
		if (len > budget)
			break;
		budget -= len;
		uint8_t type;
		uint64_t ps, pl, re;
		if (record_at(r->data, p, end, &type, &ps, &pl, &re) == 0)
			return p;
	}
	return end;
}

/* A record that does not check at pos: skip to the next sync marker in the
 * range, or to its end. torn: the record runs past the end of the data;
 * when whole records follow it, it is damage in the middle (a flipped
 * length), not a write a crash cut off, and reading goes on there. */
static void
reader_skip(struct gclog_reader *r, const char *why, int torn)
{
	const struct range *rg = &r->ranges[r->ri];
	uint64_t from = r->pos, q;
	const uint8_t *hit = NULL;
	char what[120];

	if (from + 1 < rg->end)
		hit = memmem(r->data + from + 1, rg->end - from - 1, sync_marker, sizeof(sync_marker));
	r->need_key = 1;
	r->gap = 1;
	q = hit ? (uint64_t)(hit - r->data) : rg->end;
	if (!hit && torn && (q = next_whole_record(r, from, rg->end)) < rg->end) {
		torn = 0;
		hit = r->data + q;
		why = "a damaged record (its length runs past the records after it)";
	}
	/* in the newest ring segment, a record followed by nothing but the
	 * zeros the writer cleared the segment with is a torn write */
	if (!hit && !torn && r->circular && r->ri + 1 == r->nranges) {
		uint8_t type;
		uint64_t ps, pl, re;
		uint64_t p = from;
		if (record_at(r->data, from, rg->end, &type, &ps, &pl, &re) != 0) {
			struct cur c = { r->data + from, r->data + rg->end, 0 };
			(void)cu_u8(&c);
			uint64_t len = cu_varint(&c);
			p = c.bad || len > rg->end ? rg->end : (uint64_t)(c.p - r->data) + len + 4;
		}
		torn = 1;
		for (; p < rg->end && torn; p++)
			torn = r->data[p] == 0;
	}
	if (hit || !torn || r->ri + 1 != r->nranges) {
		if (hit)
			snprintf(what, sizeof(what), "%s", why);
		else
			snprintf(what, sizeof(what), "%s; nothing readable after it%s", why,
				 r->circular ? " in this ring segment" : "");
		add_damage(r, from, q - from, what);
		r->damage[r->ndamage - 1].samples_lost = count_samples(r, from, q);
	} else {
		r->torn = rg->end - tail_start(r);
	}
	r->pos = q;
	r->skipped_to = q;
}

enum gclog_event
gclog_reader_next(struct gclog_reader *r)
{
	for (;;) {
		if (r->ri >= r->nranges)
			return GCLOG_END;
		const struct range *rg = &r->ranges[r->ri];
		if (r->pos >= rg->end) {
			if (++r->ri < r->nranges)
				r->pos = r->ranges[r->ri].off;
			continue;
		}
		if (rg->end - r->pos >= sizeof(sync_marker) &&
		    memcmp(r->data + r->pos, sync_marker, sizeof(sync_marker)) == 0) {
			r->pos += sizeof(sync_marker);
			if (r->pos == rg->end && r->ri + 1 == r->nranges && !r->circular)
				r->torn = rg->end - tail_start(r); /* a block cut after its marker */
			continue;
		}
		if (r->data[r->pos] == REC_PAD) {
			uint64_t p = r->pos;
			while (p < rg->end && r->data[p] == 0)
				p++;
			if (p == rg->end && r->circular) {
				r->pos = p; /* the unwritten rest of a ring segment */
				continue;
			}
			if (p == rg->end && r->ri + 1 == r->nranges) {
				r->torn = rg->end - tail_start(r);
				r->pos = p;
				continue;
			}
			reader_skip(r, "zero bytes where a record should be", 0);
			continue;
		}
		uint8_t type;
		uint64_t ps, pl, re;
		int got = record_at(r->data, r->pos, rg->end, &type, &ps, &pl, &re);
		if (got != 0) {
			reader_skip(r, got > 0 ? "a record cut short" : "a record whose checksum "
					"does not match", got > 0);
			continue;
		}
		struct cur c = { r->data + ps, r->data + ps + pl, 0 };
		uint64_t at = r->pos;
		enum gclog_event ev = GCLOG_END;
		int bad = 0;
		switch (type) {
		case REC_SESSION: {
			struct gclog_session s;
			if (get_session(&c, &s) < 0) {
				bad = 1;
				break;
			}
			if (!r->have_session || s.id != r->session.id) {
				reader_clear_sets(r);
				r->session = s;
				r->have_session = 1;
				r->gap = 1;
				r->need_key = 1;
				ev = GCLOG_SESSION;
			}
			break;
		}
		case REC_SCHEMA: {
			size_t id;
			int rc = r->have_session ? rec_schema(r, &c, r->data + ps, pl, &id) : -1;
			if (rc < 0)
				bad = 1;
			else if (rc > 0)
				ev = GCLOG_SCHEMA;
			break;
		}
		case REC_INSTANCE:
			bad = rec_instance(r, &c) < 0;
			break;
		case REC_KEYFRAME:
		case REC_SAMPLE:
			if (type == REC_SAMPLE && r->need_key) {
				if (r->ndamage)
					r->damage[r->ndamage - 1].samples_lost++;
				break;
			}
			if (rec_sample(r, &c, type == REC_KEYFRAME, at) < 0) {
				bad = 1;
				break;
			}
			r->need_key = 0;
			ev = GCLOG_SAMPLE;
			break;
		case REC_PATHS:
			bad = rec_paths(r, &c) < 0;
			break;
		case REC_MARK: {
			uint8_t kind = cu_u8(&c);
			(void)kind;
			(void)cu_zz(&c);
			char *text = cu_strdup(&c, MAX_HELP);
			if (c.bad || !text) {
				bad = 1;
				break;
			}
			free(r->mark);
			r->mark = text;
			ev = GCLOG_MARK;
			break;
		}
		default:
			break; /* a later minor version's record: skipped whole */
		}
		if (bad) {
			reader_skip(r, "a record that does not decode", 0);
			continue;
		}
		r->pos = re;
		r->good_end = re;
		if (ev != GCLOG_END)
			return ev;
	}
}

const struct gclog_session *
gclog_reader_session(const struct gclog_reader *r)
{
	return r->have_session ? &r->session : NULL;
}

const struct counter_set *
gclog_reader_set(const struct gclog_reader *r, size_t i, uint64_t *fields)
{
	if (i >= r->nsets || !r->sets[i])
		return NULL;
	if (fields)
		*fields = r->sets[i]->schema->recorded;
	return &r->sets[i]->schema->set;
}

int
gclog_reader_set_keyed(const struct gclog_reader *r, size_t i)
{
	return i < r->nsets && r->sets[i] && r->sets[i]->schema->keyed;
}

size_t
gclog_reader_nsets(const struct gclog_reader *r)
{
	return r->nsets;
}

const struct gclog_sample *
gclog_reader_sample(const struct gclog_reader *r)
{
	return &r->sample;
}

uint64_t
gclog_reader_paths_gen(const struct gclog_reader *r)
{
	return r->paths_gen;
}

const char *const *
gclog_reader_paths(const struct gclog_reader *r, size_t *n)
{
	*n = r->npaths;
	return (const char *const *)r->paths;
}

const char *
gclog_reader_mark(const struct gclog_reader *r)
{
	return r->mark ? r->mark : "";
}

size_t
gclog_reader_ndamage(const struct gclog_reader *r)
{
	return r->ndamage;
}

const struct gclog_damage *
gclog_reader_damage(const struct gclog_reader *r, size_t i)
{
	return i < r->ndamage ? &r->damage[i] : NULL;
}

uint64_t
gclog_reader_torn(const struct gclog_reader *r)
{
	return r->torn;
}

uint64_t
gclog_reader_size(const struct gclog_reader *r)
{
	return r->len;
}

void
gclog_reader_version(const struct gclog_reader *r, unsigned *major, unsigned *minor)
{
	*major = r->major;
	*minor = r->minor;
}

int
gclog_reader_circular(const struct gclog_reader *r)
{
	return r->circular;
}

const char *
gclog_reader_name(const struct gclog_reader *r)
{
	return r->name;
}

void
gclog_reader_tail(struct gclog_reader *r, struct gclog_tail *t)
{
	while (gclog_reader_next(r) != GCLOG_END)
		;
	memset(t, 0, sizeof(*t));
	t->circular = r->circular;
	t->end = r->good_end;
	if (!r->circular)
		return;
	t->seg_size = r->seg_size;
	t->nseg = r->nseg;
	if (r->nranges == 0) {
		/* nothing readable: start over at segment 0 */
		t->seg = 0;
		t->seq = 0;
		t->end = GCLOG_HEADER_SIZE;
		return;
	}
	const struct range *last = &r->ranges[r->nranges - 1];
	t->seg = r->range_seg[r->nranges - 1];
	t->seq = r->range_seq[r->nranges - 1];
	if (t->end < last->off || t->end > last->end)
		t->end = last->off; /* rewrite the segment from its start */
}
