/*
 * replay.c - .gcl logs as a source (--input). Opening reads every log once
 * for its schemas: sets with the same name merge into one catalogue set
 * (fields and counters united by name), which is what paths resolve
 * against. Each step then takes the next read in time order over all logs
 * (or the Nth with --every, the one before --begin as the reference),
 * copies every set it holds into that set's staging raw_set (fields mapped
 * to the catalogue's), and says whether the set is continuous with its
 * previous read: a new session or damage is a gap, never derived across.
 *
 * Sources: a set's reads come from one or more sources, a source being
 * one input's set id (the first pass lists them). Each read derives
 * against the previous read of its own source, never another's, so logs
 * recorded at the same time interleave (a read from another source than
 * the engine's previous one comes with its source's own previous read),
 * and a relog keeps the sources apart as sets of their own.
 * One step also takes the next read of other inputs whose sets it does
 * not hold yet (logs of different sets recorded together make one frame).
 * Logs one after another: the first read of each is a gap.
 *
 * Steady state allocates nothing: staging sets and key buffers are reused.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engine.h"
#include "output.h"
#include "replay.h"

/* One catalogue set. */
struct cat {
	struct provider prov;
	struct counter_set *set; /* owned */
	struct raw_set stage;
	int present, gap;
	int have_src;
	uint64_t src;  /* input << 32 | session of its last read */
	int gap_kind;           /* 1 a break, 2 the first read of its source */
	int first;              /* the staged read is a recording's first (primes) */
	/* its sources (input, set id); with more than one, each one's last read */
	struct source {
		size_t input, id;
		struct raw_set last;
		int have;
		uint32_t session;
	} *srcs;
	size_t nsrcs;
	size_t cur_src;         /* the source of the staged read */
	size_t eng_src;         /* the source of the read the engine holds */
	int eng_have;
	struct raw_set prevbuf; /* cur_src's previous read, when eng_src differs */
	int has_prev;
	/* the instances of the set's first read in any log (known up front) */
	char **seed;
	uint8_t *seed_total;
	size_t nseed;
	char **keys;   /* per staged instance, reused buffers */
	size_t *key_caps;
	size_t keys_cap;
};

/* A log set's place in the catalogue. */
struct setmap {
	size_t cat;
	int ok;
	int identity; /* fields line up: copy as they are */
	uint8_t field[SET_MAX_FIELDS];
};

struct input {
	struct gclog_reader *rd;
	int pending, done;
	uint32_t session;
	struct setmap map[256];
	uint32_t user_hz;
	uint8_t ulong_bits;
	size_t reported;
	int torn_reported;
	int stepped;           /* consumed in this step */
	uint64_t session_id;   /* the current session's id */
	int have_session_id;
	int new_run;           /* the current session is a new recording */
	int64_t last_wall, prev_wall; /* its last two reads' times (0: none) */
};

struct replay {
	struct input *in;
	size_t nin;
	struct cat **cat;
	size_t ncat;
	char host[256];
	int64_t begin_ns, end_ns;
	int has_begin, has_end;
	unsigned every;
	int started;
	int64_t wall;
	uint32_t user_hz;
	uint8_t ulong_bits;
	char **paths; /* the first log's recorded paths */
	size_t npaths;
	struct gclog_session first;
	int have_first;
	int64_t walls[2]; /* the first log's first two samples */
	int nwalls;
};

/* ---- times -------------------------------------------------------------- */

static int
digits(const char **p, int min, int max, int *out)
{
	int n = 0, v = 0;
	while (isdigit((unsigned char)**p) && n < max) {
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	if (n < min)
		return -1;
	*out = v;
	return 0;
}

/* --begin / --end: ISO 8601 ("2026-11-22T10:00:00", fractions, "Z" or an
 * offset; a space for the T; a date alone) or relog's "M/D/YYYY H:MM:SS"
 * (with AM/PM). Without a zone the time is local (the log's zone when the
 * replay took it). 0, or -1 when s is neither. */
static int
parse_time(const char *s, int64_t *ns)
{
	struct tm tm;
	const char *p = s;
	int y, mo, d, h = 0, mi = 0, sec = 0, zone = 0, off = 0;
	long frac = 0;

	memset(&tm, 0, sizeof(tm));
	if (strchr(s, '/')) {
		if (digits(&p, 1, 2, &mo) < 0 || *p++ != '/' || digits(&p, 1, 2, &d) < 0 ||
		    *p++ != '/' || digits(&p, 4, 4, &y) < 0)
			return -1;
	} else {
		if (digits(&p, 4, 4, &y) < 0 || *p++ != '-' || digits(&p, 2, 2, &mo) < 0 ||
		    *p++ != '-' || digits(&p, 2, 2, &d) < 0)
			return -1;
	}
	if (*p == 'T' || *p == ' ') {
		p++;
		if (digits(&p, 1, 2, &h) < 0 || *p++ != ':' || digits(&p, 2, 2, &mi) < 0)
			return -1;
		if (*p == ':') {
			p++;
			if (digits(&p, 2, 2, &sec) < 0)
				return -1;
			if (*p == '.' || *p == ',') {
				long scale = 100000000;
				p++;
				if (!isdigit((unsigned char)*p))
					return -1;
				while (isdigit((unsigned char)*p)) {
					frac += (*p++ - '0') * scale;
					scale /= 10;
				}
			}
		}
		while (*p == ' ')
			p++;
		if ((p[0] == 'A' || p[0] == 'a' || p[0] == 'P' || p[0] == 'p') &&
		    (p[1] == 'M' || p[1] == 'm')) {
			if (h < 1 || h > 12)
				return -1;
			h = h % 12 + ((p[0] == 'P' || p[0] == 'p') ? 12 : 0);
			p += 2;
		}
		if (*p == 'Z' || *p == 'z') {
			zone = 1;
			p++;
		} else if (*p == '+' || *p == '-') {
			int sign = *p++ == '-' ? -1 : 1, oh, om = 0;
			if (digits(&p, 2, 2, &oh) < 0)
				return -1;
			if (*p == ':')
				p++;
			if (isdigit((unsigned char)*p) && digits(&p, 2, 2, &om) < 0)
				return -1;
			zone = 1;
			off = sign * (oh * 3600 + om * 60);
		}
	}
	static const int mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (*p || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && !leap) || h > 23 || mi > 59 || sec > 60 || y < 1970)
		return -1; /* 02/30 is a mistake, not 03/02 */
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	time_t t = zone ? timegm(&tm) - off : mktime(&tm);
	/* nanoseconds since 1970 in 64 bits reach 2262-04-11 */
	if (t == (time_t)-1 || t < 0 || t >= INT64_MAX / 1000000000)
		return -1;
	*ns = (int64_t)t * 1000000000 + frac;
	return 0;
}

/* --begin and --end at millisecond precision, as times are printed: a
 * sample whose time cut to milliseconds equals --end (or --begin) is in. */
static int64_t
ms_of(int64_t ns)
{
	return ns >= 0 ? ns / 1000000 : -((-ns + 999999) / 1000000);
}

static int
before_begin(const struct replay *r, int64_t wall)
{
	return r->has_begin && ms_of(wall) < ms_of(r->begin_ns);
}

static int
after_end(const struct replay *r, int64_t wall)
{
	return r->has_end && ms_of(wall) > ms_of(r->end_ns);
}

/* ---- the catalogue ------------------------------------------------------ */

static int
find_field(const struct counter_set *s, const char *name)
{
	for (size_t f = 0; f < s->nfields; f++)
		if (strcmp(s->fields[f].name, name) == 0)
			return (int)f;
	return -1;
}

static struct cat *
cat_find(struct replay *r, const char *name, size_t *idx)
{
	for (size_t i = 0; i < r->ncat; i++)
		if (strcmp(r->cat[i]->set->name, name) == 0) {
			if (idx)
				*idx = i;
			return r->cat[i];
		}
	return NULL;
}

static int replay_rows_match(void *state, const char *instance, const char *row);
static void add_paths(struct replay *r, struct gclog_reader *rd);
static void seed_sets(struct replay *r, size_t input, const struct gclog_sample *s);

/* A log read from a later keyframe (a wrapped ring, damage at its start)
 * has schemas without help texts: take this build's, where it has the
 * same set and counter. Only for showing: deriving never needs help. */
static void
fill_help(struct counter_set *set)
{
	const struct provider *p = provider_find(set->name);

	if (!p)
		return;
	if (!set->help[0]) {
		free((char *)set->help);
		set->help = xstrdup(p->set->help);
	}
	for (size_t k = 0; k < set->ncounters; k++) {
		struct counter_desc *d = (struct counter_desc *)&set->counters[k];
		const struct counter_desc *live = counter_set_find(p->set, d->name);
		if (live && !d->help[0]) {
			free((char *)d->help);
			d->help = xstrdup(live->help);
		}
	}
}

/* Merge log set s into the catalogue: a new set, or the fields and
 * counters the catalogue's set lacks. keyed: its rows match by keys. */
static void
cat_merge(struct replay *r, const struct counter_set *s, int keyed)
{
	struct cat *c = cat_find(r, s->name, NULL);
	const struct counter_desc **list;

	if (!c) {
		list = xmalloc((s->ncounters ? s->ncounters : 1) * sizeof(*list));
		for (size_t k = 0; k < s->ncounters; k++)
			list[k] = &s->counters[k];
		struct counter_set *copy = gclog_set_copy(s, list, s->ncounters);
		free(list);
		if (!copy)
			return;
		fill_help(copy);
		c = xcalloc(1, sizeof(*c));
		c->set = copy;
		c->prov.set = copy;
		if (keyed)
			c->prov.rows_match = replay_rows_match;
		raw_set_init(&c->stage, copy);
		r->cat = xrealloc(r->cat, (r->ncat + 1) * sizeof(*r->cat));
		r->cat[r->ncat++] = c;
		return;
	}
	/* A second schema of the set (another log, another version): unite
	 * fields and counters by name; the first descriptor of a name wins. */
	struct counter_set *old = c->set;
	struct field_desc fields[SET_MAX_FIELDS];
	size_t nf = old->nfields;
	uint8_t remap[SET_MAX_FIELDS];
	int grew = 0;

	memset(remap, 0xff, sizeof(remap));
	memcpy(fields, old->fields, nf * sizeof(*fields));
	for (size_t f = 0; f < s->nfields; f++) {
		int at = find_field(old, s->fields[f].name);
		for (size_t k = old->nfields; at < 0 && k < nf; k++)
			if (strcmp(fields[k].name, s->fields[f].name) == 0)
				at = (int)k;
		if (at < 0 && nf < SET_MAX_FIELDS) {
			fields[nf] = s->fields[f];
			at = (int)nf++;
			grew = 1;
		}
		remap[f] = at < 0 ? 0xff : (uint8_t)at;
	}
	size_t nc = old->ncounters;
	struct counter_desc *counters = xmalloc((old->ncounters + s->ncounters + 1) *
						sizeof(*counters));
	memcpy(counters, old->counters, nc * sizeof(*counters));
	for (size_t k = 0; k < s->ncounters; k++) {
		struct counter_desc d = s->counters[k];
		int ok = counter_set_find(old, d.name) == NULL;
		for (int t = 0; ok && t < COUNTER_MAX_TERMS && d.num[t].sign; t++)
			ok = remap[d.num[t].field] != 0xff;
		for (int t = 0; ok && t < COUNTER_MAX_TERMS && d.den[t].sign; t++)
			ok = remap[d.den[t].field] != 0xff;
		if (!ok || (d.mul && remap[d.mul - 1] == 0xff))
			continue;
		for (int t = 0; t < COUNTER_MAX_TERMS && d.num[t].sign; t++)
			d.num[t].field = remap[d.num[t].field];
		for (int t = 0; t < COUNTER_MAX_TERMS && d.den[t].sign; t++)
			d.den[t].field = remap[d.den[t].field];
		if (d.mul)
			d.mul = FIELD_REF(remap[d.mul - 1]);
		counters[nc++] = d;
		grew = 1;
	}
	if (grew) {
		struct counter_set merged = *old;
		const struct counter_desc **list2 = xmalloc(nc * sizeof(*list2));
		merged.fields = fields;
		merged.nfields = nf;
		merged.counters = counters;
		merged.ncounters = nc;
		for (size_t k = 0; k < nc; k++)
			list2[k] = &counters[k];
		struct counter_set *copy = gclog_set_copy(&merged, list2, nc);
		free(list2);
		if (copy) {
			raw_set_free(&c->stage);
			gclog_set_free(c->set);
			c->set = copy;
			c->prov.set = copy;
			raw_set_init(&c->stage, copy);
		}
	}
	free(counters);
}

/* The map of log set id in input in (its schema s) to the catalogue. */
static void
map_set(struct replay *r, struct input *in, size_t id, const struct counter_set *s)
{
	struct setmap *m = &in->map[id];
	struct cat *c = cat_find(r, s->name, &m->cat);

	m->ok = c != NULL;
	if (!c)
		return;
	m->identity = s->nfields == c->set->nfields;
	for (size_t f = 0; f < s->nfields; f++) {
		int at = find_field(c->set, s->fields[f].name);
		m->field[f] = at < 0 ? 0xff : (uint8_t)at;
		if (at != (int)f)
			m->identity = 0;
	}
}

/* ---- reading ------------------------------------------------------------ */

/* Advance input in to its next sample (pending), or to its end. */
static void
input_fill(struct replay *r, struct input *in)
{
	while (!in->pending && !in->done) {
		switch (gclog_reader_next(in->rd)) {
		case GCLOG_END:
			in->done = 1;
			break;
		case GCLOG_SESSION: {
			const struct gclog_session *s = gclog_reader_session(in->rd);
			in->session++;
			/* a writer adds 1 to the id at a break in one recording (a
			 * reboot, a relog's gap); any other id is a new recording */
			in->new_run = !in->have_session_id || s->id != in->session_id + 1;
			in->session_id = s->id;
			in->have_session_id = 1;
			memset(in->map, 0, sizeof(in->map));
			in->user_hz = s->user_hz;
			in->ulong_bits = s->ulong_bits;
			break;
		}
		case GCLOG_SCHEMA:
			for (size_t i = 0; i < gclog_reader_nsets(in->rd) && i < 256; i++) {
				const struct counter_set *s = gclog_reader_set(in->rd, i, NULL);
				if (s)
					map_set(r, in, i, s);
			}
			break;
		case GCLOG_SAMPLE:
			in->pending = 1;
			break;
		case GCLOG_MARK:
			break;
		}
	}
}

/* The input whose pending sample comes first, or NULL at the end. */
static struct input *
peek(struct replay *r)
{
	struct input *best = NULL;
	int64_t bw = 0;

	for (size_t i = 0; i < r->nin; i++) {
		struct input *in = &r->in[i];
		input_fill(r, in);
		if (!in->pending)
			continue;
		int64_t w = gclog_reader_sample(in->rd)->wall_ns;
		if (!best || w < bw) {
			best = in;
			bw = w;
		}
	}
	return best;
}

/* Keep key for staged instance i of c, reusing its buffer. */
static void
stage_key(struct cat *c, size_t i, const char *key)
{
	if (i >= c->keys_cap) {
		size_t cap = c->keys_cap ? c->keys_cap * 2 : 16;
		while (cap <= i)
			cap *= 2;
		c->keys = xrealloc(c->keys, cap * sizeof(*c->keys));
		c->key_caps = xrealloc(c->key_caps, cap * sizeof(*c->key_caps));
		memset(c->keys + c->keys_cap, 0, (cap - c->keys_cap) * sizeof(*c->keys));
		memset(c->key_caps + c->keys_cap, 0, (cap - c->keys_cap) * sizeof(*c->key_caps));
		c->keys_cap = cap;
	}
	size_t n = strlen(key);
	if (c->keys[i] && strcmp(c->keys[i], key) == 0)
		return;
	if (c->key_caps[i] < n + 1) {
		free(c->keys[i]);
		c->key_caps[i] = n + 1 < 16 ? 16 : n + 1;
		c->keys[i] = xmalloc(c->key_caps[i]);
	}
	memcpy(c->keys[i], key, n + 1);
}

/* The source of set id of input in c's list (listed by the first pass). */
static size_t
source_of(const struct cat *c, size_t input, size_t id)
{
	for (size_t k = 0; k < c->nsrcs; k++)
		if (c->srcs[k].input == input && c->srcs[k].id == id)
			return k;
	return 0;
}

/* Take in's pending sample into the staging sets. */
static void
consume(struct replay *r, struct input *in)
{
	const struct gclog_sample *s = gclog_reader_sample(in->rd);
	uint64_t src = (uint64_t)(in - r->in) << 32 | in->session;

	for (size_t k = 0; k < s->nsets; k++) {
		const struct gclog_set_sample *ss = &s->sets[k];
		const struct setmap *m = ss->set < 256 ? &in->map[ss->set] : NULL;
		if (!m || !m->ok)
			continue;
		struct cat *c = r->cat[m->cat];
		const struct raw_set *from = ss->rs;
		raw_set_begin(&c->stage);
		for (size_t i = 0; i < from->ninstances; i++) {
			const struct raw_instance *fi = &from->inst[i];
			const char *name = raw_name(from, fi);
			struct raw_instance *ti = raw_set_add(&c->stage, name, strlen(name),
							      raw_identity_at(from, i));
			raw_set_in_total(&c->stage, ti, raw_in_total(from, fi));
			if (m->identity) {
				raw_copy_values(&c->stage, ti, from, fi);
			} else {
				for (size_t f = 0; f < from->set->nfields; f++)
					if ((raw_present(from, fi) >> f & 1) && m->field[f] != 0xff)
						raw_put(&c->stage, ti, m->field[f], raw_get(from, fi, (unsigned)f));
			}
			stage_key(c, i, ss->keys[i]);
		}
		c->stage.valid = ss->valid;
		c->stage.mono_ns = ss->mono_ns;
		if (c->nsrcs > 1) {
			/* derive against this source's own previous read */
			size_t at = source_of(c, (size_t)(in - r->in), ss->set);
			struct source *l = &c->srcs[at];
			int kind = !l->have ? 2 : s->gap || l->session != in->session ? 1 : 0;
			c->first = !l->have || (l->session != in->session && in->new_run);
			if (c->eng_have && c->eng_src == at) {
				c->gap |= kind != 0; /* the engine holds this source's read */
				c->has_prev = 0;
			} else {
				c->gap = kind != 0;
				c->gap_kind = 0;
				c->has_prev = !kind;
				if (!kind)
					raw_set_copy(&c->prevbuf, &l->last);
			}
			if (kind && c->gap_kind != 1)
				c->gap_kind = kind;
			raw_set_copy(&l->last, &c->stage);
			l->have = 1;
			l->session = in->session;
			c->cur_src = at;
		} else {
			int kind = !c->have_src ? 2 : s->gap || c->src != src ? 1 : 0;
			c->first = !c->have_src ||
				   (c->src != src && (c->src >> 32 != src >> 32 || in->new_run));
			c->gap |= kind != 0;
			if (kind && c->gap_kind != 1)
				c->gap_kind = kind;
		}
		c->src = src;
		c->have_src = 1;
		c->present = 1;
	}
	r->wall = s->wall_ns;
	in->prev_wall = in->last_wall;
	in->last_wall = s->wall_ns;
	r->user_hz = in->user_hz;
	r->ulong_bits = in->ulong_bits;
	in->pending = 0;
	in->stepped = 1;
}

/* Nonzero when in's pending read holds no set this step already holds. */
static int
disjoint(struct replay *r, struct input *in)
{
	const struct gclog_sample *s = gclog_reader_sample(in->rd);

	for (size_t k = 0; k < s->nsets; k++) {
		const struct gclog_set_sample *ss = &s->sets[k];
		const struct setmap *m = ss->set < 256 ? &in->map[ss->set] : NULL;
		if (m && m->ok && r->cat[m->cat]->present)
			return 0;
	}
	return 1;
}

/* Nonzero when an input this step took from has its next read at wall
 * too (then a read at wall belongs to the next step), or has no next read
 * and wall is more than one of its intervals after its last: a log
 * recorded after it ended is not the same moment (two logs recorded one
 * after the other must not merge the first one's last read with the
 * second one's first). */
static int
stepped_at(struct replay *r, int64_t wall)
{
	for (size_t i = 0; i < r->nin; i++) {
		const struct input *in = &r->in[i];
		if (!in->stepped)
			continue;
		if (in->pending && gclog_reader_sample(in->rd)->wall_ns <= wall)
			return 1;
		if (!in->pending && in->prev_wall && in->last_wall > in->prev_wall &&
		    wall - in->last_wall > in->last_wall - in->prev_wall)
			return 1;
	}
	return 0;
}

/* After consuming a read: also take the next reads of other inputs while
 * they come next in time, before the next read of any input taken from,
 * and hold only sets this step lacks. */
static void
combine(struct replay *r)
{
	struct input *in;

	if (r->nin < 2)
		return;
	while ((in = peek(r)) && !in->stepped && disjoint(r, in) &&
	       !stepped_at(r, gclog_reader_sample(in->rd)->wall_ns) &&
	       !after_end(r, gclog_reader_sample(in->rd)->wall_ns))
		consume(r, in);
}

/* The end of a step: the engine now holds the staged reads. */
static int
step_done(struct replay *r, int got)
{
	for (size_t i = 0; i < r->nin; i++)
		r->in[i].stepped = 0;
	for (size_t i = 0; got && i < r->ncat; i++)
		if (r->cat[i]->present) {
			r->cat[i]->eng_src = r->cat[i]->cur_src;
			r->cat[i]->eng_have = 1;
		}
	return got;
}

int
replay_next(struct replay *r)
{
	struct input *in;
	unsigned n = r->started && r->every > 1 ? r->every : 1;

	for (size_t i = 0; i < r->ncat; i++) {
		r->cat[i]->present = 0;
		r->cat[i]->gap = 0;
		r->cat[i]->has_prev = 0;
		r->cat[i]->gap_kind = 0;
	}
	if (!r->started) {
		r->started = 1;
		if (r->has_begin) {
			/* the reads before --begin: the last is the reference */
			int any = 0;
			while ((in = peek(r)) && before_begin(r, gclog_reader_sample(in->rd)->wall_ns)) {
				consume(r, in);
				in->stepped = 0;
				any = 1;
			}
			if (any)
				return step_done(r, 1);
		}
	}
	for (unsigned k = 0; k < n; k++) {
		in = peek(r);
		if (!in || after_end(r, gclog_reader_sample(in->rd)->wall_ns))
			return step_done(r, 0); /* a span cut short by the end is not a sample */
		consume(r, in);
		combine(r);
	}
	return step_done(r, 1);
}

int
replay_priming(const struct replay *r)
{
	int any = 0;

	for (size_t i = 0; i < r->ncat; i++) {
		if (!r->cat[i]->present)
			continue;
		if (!r->cat[i]->first)
			return 0;
		any = 1;
	}
	return any;
}

int
replay_read(struct replay *r, size_t i, struct raw_set *out, int *gap,
	    const struct raw_set **prev, size_t *source)
{
	struct cat *c = r->cat[i];

	if (!c->present)
		return 0;
	raw_set_copy(out, &c->stage);
	*gap = c->gap ? (c->gap_kind ? c->gap_kind : 1) : 0;
	*prev = c->has_prev ? &c->prevbuf : NULL;
	*source = c->cur_src;
	return 1;
}

size_t
replay_nsources(const struct replay *r, size_t i)
{
	return r->cat[i]->nsrcs ? r->cat[i]->nsrcs : 1;
}

void
replay_seed(struct replay *r, size_t i, struct raw_set *out)
{
	struct cat *c = r->cat[i];

	raw_set_begin(out);
	for (size_t k = 0; k < c->nseed; k++) {
		struct raw_instance *ri = raw_set_add(out, c->seed[k], strlen(c->seed[k]), 0);
		raw_set_in_total(out, ri, c->seed_total[k]);
	}
	out->valid = 1;
}

int64_t
replay_wall(const struct replay *r)
{
	return r->wall;
}

uint32_t
replay_user_hz(const struct replay *r)
{
	return r->user_hz ? r->user_hz : 100;
}

uint8_t
replay_ulong_bits(const struct replay *r)
{
	return r->ulong_bits ? r->ulong_bits : 64;
}

size_t
replay_ncatalog(const struct replay *r)
{
	return r->ncat;
}

const struct provider *
replay_provider(const struct replay *r, size_t i)
{
	return &r->cat[i]->prov;
}

void *
replay_state(struct replay *r, size_t i)
{
	return r->cat[i];
}

const char *const *
replay_paths(const struct replay *r, size_t *n)
{
	*n = r->npaths;
	return (const char *const *)r->paths;
}

int
replay_subsecond(const struct replay *r)
{
	if (r->nwalls < 2)
		return 0;
	int64_t d = r->walls[1] - r->walls[0], ms = (d % 1000000000 + 1000000000) % 1000000000;
	return ms > 5000000 && ms < 995000000;
}

const struct gclog_session *
replay_session(const struct replay *r)
{
	return r->have_first ? &r->first : NULL;
}

const char *
replay_host(const struct replay *r)
{
	return r->host;
}

/* The staged key of instance, or NULL. */
static const char *
cat_key(const struct cat *c, const char *instance)
{
	for (size_t i = 0; i < c->stage.ninstances && i < c->keys_cap; i++)
		if (strcmp(raw_name_at(&c->stage, i), instance) == 0)
			return c->keys[i];
	return NULL;
}

size_t
replay_key(void *state, const char *instance, char *buf, size_t n)
{
	const char *key = cat_key(state, instance);
	int k = snprintf(buf, n, "%s", key ? key : "");
	return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n - 1;
}

/* A recorded key lists the row parents an instance's rows have ("24 25");
 * a row "24/3" is instance "eth0/3"'s when its parent is listed and its
 * CPU is the instance's. */
static int
replay_rows_match(void *state, const char *instance, const char *row)
{
	const char *key = cat_key(state, instance);
	const char *isep = strrchr(instance, '/'), *rsep = strrchr(row, '/');

	if (!key || !isep || !rsep || strcmp(isep + 1, rsep + 1) != 0)
		return 0;
	size_t plen = (size_t)(rsep - row);
	for (const char *p = key; *p;) {
		while (*p == ' ')
			p++;
		size_t len = strcspn(p, " ");
		if (len && len == plen && strncmp(p, row, plen) == 0)
			return 1;
		p += len;
	}
	return 0;
}

/* ---- opening ------------------------------------------------------------ */

/* Take the log's time zone: its name when this machine knows the zone,
 * else a fixed offset. */
static void
take_zone(const struct gclog_session *s)
{
	char path[512], tz[160];
	struct stat st;
	int ok = s->tz_name[0] && strstr(s->tz_name, "..") == NULL;

	snprintf(path, sizeof(path), "/usr/share/zoneinfo/%s", s->tz_name);
	if (ok && s->tz_name[0] != '/' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		snprintf(tz, sizeof(tz), "%s", s->tz_name);
	} else {
		/* POSIX offsets are west of UTC: "<+0100>-01:00" */
		int off = s->tz_offset_s, a = off < 0 ? -off : off;
		snprintf(tz, sizeof(tz), "<%c%02d%02d>%c%02d:%02d", off < 0 ? '-' : '+', a / 3600,
			 a % 3600 / 60, off < 0 ? '+' : '-', a / 3600, a % 3600 / 60);
	}
	setenv("TZ", tz, 1);
	tzset();
}

void
replay_close(struct replay *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nin; i++)
		gclog_reader_close(r->in[i].rd);
	free(r->in);
	for (size_t i = 0; i < r->ncat; i++) {
		struct cat *c = r->cat[i];
		raw_set_free(&c->stage);
		raw_set_free(&c->prevbuf);
		for (size_t k = 0; k < c->nsrcs; k++)
			raw_set_free(&c->srcs[k].last);
		free(c->srcs);
		for (size_t k = 0; k < c->nseed; k++)
			free(c->seed[k]);
		free(c->seed);
		free(c->seed_total);
		for (size_t k = 0; k < c->keys_cap; k++)
			free(c->keys[k]);
		free(c->keys);
		free(c->key_caps);
		gclog_set_free(c->set);
		free(c);
	}
	free(r->cat);
	for (size_t i = 0; i < r->npaths; i++)
		free(r->paths[i]);
	free(r->paths);
	free(r);
}

struct replay *
replay_open(const char *const *files, size_t n, const struct replay_opts *opts, int *status,
	    struct err *err)
{
	struct replay *r = xcalloc(1, sizeof(*r));
	int64_t oldest = 0, newest = 0;
	uint64_t nsamples = 0, inrange = 0, printable = 0;

	*status = EXIT_USAGE;
	r->in = xcalloc(n, sizeof(*r->in));
	r->nin = n;
	r->every = opts->every;
	/* The times of --begin and --end without a zone are in the zone the
	 * replay shows (the first log's, unless --utc or TZ): take it before
	 * parsing them. */
	if (n && !opts->utc && !getenv("TZ")) {
		struct gclog_reader *rd = gclog_reader_open(files[0], err);
		enum gclog_event ev;
		if (!rd)
			goto fail;
		while ((ev = gclog_reader_next(rd)) != GCLOG_END)
			if (ev == GCLOG_SESSION) {
				take_zone(gclog_reader_session(rd));
				break;
			}
		gclog_reader_close(rd);
	}
	if (opts->begin) {
		if (parse_time(opts->begin, &r->begin_ns) < 0) {
			err_set(err, "--begin '%s' is not a time (2026-11-22T10:00:00 or "
				     "11/22/2026 10:00:00)", opts->begin);
			goto fail;
		}
		r->has_begin = 1;
	}
	if (opts->end) {
		if (parse_time(opts->end, &r->end_ns) < 0) {
			err_set(err, "--end '%s' is not a time (2026-11-22T10:00:00 or "
				     "11/22/2026 10:00:00)", opts->end);
			goto fail;
		}
		r->has_end = 1;
	}
	if (r->has_begin && r->has_end && r->end_ns < r->begin_ns) {
		err_set(err, "--end %s is before --begin %s", opts->end, opts->begin);
		goto fail;
	}
	/* one pass over each log for its sets */
	for (size_t i = 0; i < n; i++) {
		struct gclog_reader *rd = gclog_reader_open(files[i], err);
		enum gclog_event ev;
		uint64_t paths_gen = 0, in_i = 0, before_i = 0;
		if (!rd)
			goto fail;
		while ((ev = gclog_reader_next(rd)) != GCLOG_END) {
			if (ev == GCLOG_SESSION && !r->have_first) {
				const struct gclog_session *s = gclog_reader_session(rd);
				r->first = *s;
				r->have_first = 1;
				snprintf(r->host, sizeof(r->host), "%s", s->host);
				if (!opts->utc && !getenv("TZ")) /* (taken above already, once TZ is set) */
					take_zone(s);
			}
			if (ev == GCLOG_SAMPLE && i == 0 && r->nwalls < 2)
				r->walls[r->nwalls++] = gclog_reader_sample(rd)->wall_ns;
			if (ev == GCLOG_SAMPLE) {
				int64_t w = gclog_reader_sample(rd)->wall_ns;
				seed_sets(r, i, gclog_reader_sample(rd));
				if (!nsamples || w < oldest)
					oldest = w;
				if (!nsamples || w > newest)
					newest = w;
				nsamples++;
				if (!before_begin(r, w) && !after_end(r, w))
					in_i++;
				else if (before_begin(r, w))
					before_i++;
			}
			if (ev == GCLOG_SAMPLE && gclog_reader_paths_gen(rd) != paths_gen) {
				paths_gen = gclog_reader_paths_gen(rd);
				add_paths(r, rd);
			}
			if (ev != GCLOG_SCHEMA)
				continue;
			for (size_t k = 0; k < gclog_reader_nsets(rd); k++) {
				const struct counter_set *s = gclog_reader_set(rd, k, NULL);
				if (s)
					cat_merge(r, s, gclog_reader_set_keyed(rd, k));
			}
		}
		/* the samples this log can print: every (Nth) in-range read after
		 * a reference, which is the read before --begin or else the
		 * first in range */
		inrange += in_i;
		if (in_i)
			printable += (before_i ? in_i : in_i - 1) / (r->every > 1 ? r->every : 1);
		gclog_reader_close(rd);
		r->in[i].rd = gclog_reader_open(files[i], err);
		if (!r->in[i].rd)
			goto fail;
	}
	if (!r->host[0])
		snprintf(r->host, sizeof(r->host), "localhost");
	if (nsamples > 1 && inrange && !printable && (r->has_begin || r->has_end || r->every > 1)) {
		err_set(err, "the range holds %llu read%s of the log%s, too few for a sample%s "
			     "(a sample is the interval between two reads%s)",
			(unsigned long long)inrange, inrange == 1 ? "" : "s", n > 1 ? "s" : "",
			r->every > 1 ? " with --every" : "",
			r->every > 1 ? ", and --every N keeps every Nth" : "");
		*status = EXIT_RUNTIME;
		goto fail;
	}
	if (nsamples && !inrange && (r->has_begin || r->has_end)) {
		char a[64], b[64];
		format_time_iso(a, sizeof(a), oldest, 0);
		format_time_iso(b, sizeof(b), newest, 0);
		err_set(err, "no sample %s%s%s%s%s: the log%s run%s from %s to %s",
			r->has_begin ? "at or after --begin " : "", r->has_begin ? opts->begin : "",
			r->has_begin && r->has_end ? " and " : "",
			r->has_end ? "at or before --end " : "", r->has_end ? opts->end : "",
			n > 1 ? "s" : "", n > 1 ? "" : "s", a, b);
		*status = EXIT_RUNTIME;
		goto fail;
	}
	for (size_t i = 0; i < r->ncat; i++) {
		struct cat *c = r->cat[i];
		raw_set_init(&c->prevbuf, c->set);
		for (size_t k = 0; c->nsrcs > 1 && k < c->nsrcs; k++)
			raw_set_init(&c->srcs[k].last, c->set);
	}
	return r;
fail:
	replay_close(r);
	return NULL;
}

/* The instances of each set's first read in any log: a replay knows every
 * row up front (csv and tsv columns, the table's header). */
static void
seed_sets(struct replay *r, size_t input, const struct gclog_sample *s)
{
	for (size_t k = 0; k < s->nsets; k++) {
		const struct raw_set *rs = s->sets[k].rs;
		struct cat *c = cat_find(r, rs->set->name, NULL);
		if (!c)
			continue;
		/* the sources of its reads */
		size_t at = 0;
		while (at < c->nsrcs && !(c->srcs[at].input == input && c->srcs[at].id == s->sets[k].set))
			at++;
		if (at == c->nsrcs) {
			c->srcs = xrealloc(c->srcs, (c->nsrcs + 1) * sizeof(*c->srcs));
			memset(&c->srcs[at], 0, sizeof(c->srcs[at]));
			c->srcs[at].input = input;
			c->srcs[at].id = s->sets[k].set;
			c->nsrcs++;
		}
		if (c->seed)
			continue;
		c->seed = xcalloc(rs->ninstances ? rs->ninstances : 1, sizeof(char *));
		c->seed_total = xcalloc(rs->ninstances ? rs->ninstances : 1, 1);
		for (size_t i = 0; i < rs->ninstances; i++) {
			c->seed[i] = xstrdup(raw_name_at(rs, i));
			c->seed_total[i] = (uint8_t)raw_in_total_at(rs, i);
		}
		c->nseed = rs->ninstances;
	}
}

/* Add the paths rd recorded that r does not have yet (every session's
 * and every log's, in order: a replay without paths shows them all). */
static void
add_paths(struct replay *r, struct gclog_reader *rd)
{
	size_t n;
	const char *const *p = gclog_reader_paths(rd, &n);

	for (size_t k = 0; k < n; k++) {
		int have = 0;
		for (size_t j = 0; j < r->npaths && !have; j++)
			have = strcmp(r->paths[j], p[k]) == 0;
		if (have)
			continue;
		r->paths = xrealloc(r->paths, (r->npaths + 1) * sizeof(char *));
		r->paths[r->npaths++] = xstrdup(p[k]);
	}
}

/* Nonzero when s is a valid --begin/--end time (for the option parser). */
int
replay_time_valid(const char *s)
{
	int64_t ns;
	return parse_time(s, &ns) == 0;
}

/* A --begin/--end time as UTC nanoseconds (the TUI's `g`). */
int
replay_parse_time(const char *s, int64_t *ns)
{
	return parse_time(s, ns);
}

void
replay_report(struct replay *r)
{
	for (size_t i = 0; i < r->nin; i++) {
		struct input *in = &r->in[i];
		const char *name = gclog_reader_name(in->rd);
		for (; in->reported < gclog_reader_ndamage(in->rd); in->reported++) {
			const struct gclog_damage *d = gclog_reader_damage(in->rd, in->reported);
			fprintf(stderr, "getcounter: %s: damaged at byte %llu: %s; skipped %llu "
					"bytes\n", name, (unsigned long long)d->offset, d->what,
				(unsigned long long)d->bytes);
		}
		if (gclog_reader_torn(in->rd) && !in->torn_reported) {
			fprintf(stderr, "getcounter: %s: ignored a torn tail of %llu bytes (the "
					"recording was cut off mid-record)\n", name,
				(unsigned long long)gclog_reader_torn(in->rd));
			in->torn_reported = 1;
		}
	}
}

/* ---- --summary ---------------------------------------------------------- */

/* The distinct instance names of one set over a log. */
struct sum_set {
	char *name;
	char **counters;
	size_t ncounters;
	char **inst;
	size_t ninst, cap;
	size_t hcap;
	size_t *hash;
};

static void
sum_add_instance(struct sum_set *ss, const char *name)
{
	if (ss->ninst * 2 + 2 > ss->hcap) {
		size_t cap = ss->hcap ? ss->hcap * 2 : 64;
		while (cap < ss->ninst * 2 + 2)
			cap *= 2;
		free(ss->hash);
		ss->hash = xmalloc(cap * sizeof(size_t));
		for (size_t k = 0; k < cap; k++)
			ss->hash[k] = SIZE_MAX;
		ss->hcap = cap;
		for (size_t i = 0; i < ss->ninst; i++) {
			size_t h = str_hash(ss->inst[i]) & (cap - 1);
			while (ss->hash[h] != SIZE_MAX)
				h = (h + 1) & (cap - 1);
			ss->hash[h] = i;
		}
	}
	size_t h = str_hash(name) & (ss->hcap - 1);
	for (; ss->hash[h] != SIZE_MAX; h = (h + 1) & (ss->hcap - 1))
		if (strcmp(ss->inst[ss->hash[h]], name) == 0)
			return;
	xgrow((void **)&ss->inst, &ss->cap, ss->ninst + 1, sizeof(char *));
	ss->inst[ss->ninst] = xstrdup(name);
	ss->hash[h] = ss->ninst++;
}

static struct sum_set *
sum_set_of(struct sum_set **sets, size_t *n, const struct counter_set *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*sets)[i].name, s->name) == 0) {
			struct sum_set *ss = &(*sets)[i];
			for (size_t k = 0; k < s->ncounters; k++) {
				int have = 0;
				for (size_t j = 0; j < ss->ncounters && !have; j++)
					have = strcmp(ss->counters[j], s->counters[k].name) == 0;
				if (!have) {
					ss->counters = xrealloc(ss->counters, (ss->ncounters + 1) *
										      sizeof(char *));
					ss->counters[ss->ncounters++] = xstrdup(s->counters[k].name);
				}
			}
			return ss;
		}
	*sets = xrealloc(*sets, (*n + 1) * sizeof(**sets));
	struct sum_set *ss = &(*sets)[(*n)++];
	memset(ss, 0, sizeof(*ss));
	ss->name = xstrdup(s->name);
	ss->counters = xcalloc(s->ncounters ? s->ncounters : 1, sizeof(char *));
	for (size_t k = 0; k < s->ncounters; k++)
		ss->counters[k] = xstrdup(s->counters[k].name);
	ss->ncounters = s->ncounters;
	return ss;
}

/* A recorded path and the sessions (numbered from 1) that recorded it. */
struct sum_path {
	char *path;
	size_t *sess;
	size_t nsess, cap;
};

/* Note that session recorded rd's current paths. */
static void
sum_paths_add(struct sum_path **paths, size_t *n, size_t *cap, struct gclog_reader *rd,
	      size_t session)
{
	size_t np;
	const char *const *p = gclog_reader_paths(rd, &np);

	for (size_t i = 0; i < np; i++) {
		size_t k = 0;
		while (k < *n && strcmp((*paths)[k].path, p[i]) != 0)
			k++;
		if (k == *n) {
			xgrow((void **)paths, cap, *n + 1, sizeof(**paths));
			memset(&(*paths)[k], 0, sizeof(**paths));
			(*paths)[k].path = xstrdup(p[i]);
			(*n)++;
		}
		struct sum_path *sp = &(*paths)[k];
		if (sp->nsess && sp->sess[sp->nsess - 1] == session)
			continue;
		xgrow((void **)&sp->sess, &sp->cap, sp->nsess + 1, sizeof(*sp->sess));
		sp->sess[sp->nsess++] = session;
	}
}

/* " (session 2)", " (sessions 2-4, 7)": the sessions of sp, in order. */
static void
sum_path_sessions(const struct sum_path *sp, FILE *out)
{
	fprintf(out, " (session%s ", sp->nsess > 1 ? "s" : "");
	for (size_t i = 0; i < sp->nsess;) {
		size_t j = i;
		while (j + 1 < sp->nsess && sp->sess[j + 1] == sp->sess[j] + 1)
			j++;
		fprintf(out, "%s%zu", i ? ", " : "", sp->sess[i]);
		if (j > i)
			fprintf(out, "-%zu", sp->sess[j]);
		i = j + 1;
	}
	fputc(')', out);
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void
summary_one(struct gclog_reader *rd, FILE *out)
{
	struct gclog_session first;
	struct sum_set *sets = NULL;
	size_t nsets = 0, sessions = 0, npaths = 0, paths_cap = 0, sampled = 0, in_session = 0;
	uint64_t gen = 0;
	uint64_t samples = 0;
	int64_t oldest = 0, newest = 0, prev = 0;
	int64_t *gaps = NULL;
	size_t ngaps = 0, gaps_cap = 0;
	int ended = 0, have_prev = 0;
	struct sum_path *paths = NULL;
	enum gclog_event ev;
	unsigned major, minor;

	memset(&first, 0, sizeof(first));
	while ((ev = gclog_reader_next(rd)) != GCLOG_END) {
		switch (ev) {
		case GCLOG_SESSION:
			if (!sessions++)
				first = *gclog_reader_session(rd);
			have_prev = 0;
			ended = 0;
			break;
		case GCLOG_SCHEMA:
			for (size_t k = 0; k < gclog_reader_nsets(rd); k++) {
				const struct counter_set *s = gclog_reader_set(rd, k, NULL);
				if (s)
					sum_set_of(&sets, &nsets, s);
			}
			break;
		case GCLOG_SAMPLE: {
			const struct gclog_sample *s = gclog_reader_sample(rd);
			if (!samples || s->wall_ns < oldest)
				oldest = s->wall_ns;
			if (!samples || s->wall_ns > newest)
				newest = s->wall_ns;
			if (have_prev && !s->gap) {
				xgrow((void **)&gaps, &gaps_cap, ngaps + 1, sizeof(*gaps));
				gaps[ngaps++] = s->wall_ns - prev;
			}
			prev = s->wall_ns;
			have_prev = 1;
			samples++;
			ended = 0;
			for (size_t k = 0; k < s->nsets; k++) {
				const struct raw_set *rs = s->sets[k].rs;
				struct sum_set *ss = sum_set_of(&sets, &nsets, rs->set);
				for (size_t i = 0; i < rs->ninstances; i++)
					sum_add_instance(ss, raw_name_at(rs, i));
			}
			/* every session's paths (a later one may record more) */
			if (in_session != sessions || gclog_reader_paths_gen(rd) != gen) {
				sampled += in_session != sessions;
				in_session = sessions;
				gen = gclog_reader_paths_gen(rd);
				sum_paths_add(&paths, &npaths, &paths_cap, rd, sessions);
			}
			break;
		}
		case GCLOG_MARK:
			ended = strcmp(gclog_reader_mark(rd), "end") == 0;
			break;
		case GCLOG_END:
			break;
		}
	}
	gclog_reader_version(rd, &major, &minor);
	fprintf(out, "Log            : %s\n", gclog_reader_name(rd));
	fprintf(out, "Format         : gcl %u.%u, %s, %llu bytes\n", major, minor,
		gclog_reader_circular(rd) ? "circular" : "linear",
		(unsigned long long)gclog_reader_size(rd));
	if (sessions) {
		fprintf(out, "Host           : %s\n", first.host);
		fprintf(out, "Kernel         : Linux %s %s (%u-bit, USER_HZ %u, page %u bytes)\n",
			first.kernel, first.machine, first.ulong_bits, first.user_hz,
			first.page_size);
		fprintf(out, "Boot id        : %s\n", first.boot_id[0] ? first.boot_id : "unknown");
		fprintf(out, "Recorded by    : getcounter %s\n", first.version);
		fprintf(out, "Time zone      : %s (UTC%c%02d:%02d at start)\n", first.tz_name,
			first.tz_offset_s < 0 ? '-' : '+', abs(first.tz_offset_s) / 3600,
			abs(first.tz_offset_s) % 3600 / 60);
	}
	fprintf(out, "Sessions       : %zu%s\n", sessions,
		sessions > 1 ? " (restarts or appends; never derived across)" : "");
	if (samples) {
		char a[64], b[64];
		format_time_iso(a, sizeof(a), oldest, 0);
		format_time_iso(b, sizeof(b), newest, 0);
		fprintf(out, "Oldest sample  : %s\n", a);
		fprintf(out, "Newest sample  : %s\n", b);
	}
	fprintf(out, "Samples        : %llu\n", (unsigned long long)samples);
	if (ngaps) {
		char iv[64];
		qsort(gaps, ngaps, sizeof(*gaps), cmp_i64);
		format_double(iv, sizeof(iv), (double)gaps[ngaps / 2] / 1e9, 3);
		fprintf(out, "Interval       : %s s (median)\n", iv);
	}
	if (samples)
		fprintf(out, "Bytes/sample   : %.1f\n",
			(double)(gclog_reader_size(rd) - GCLOG_HEADER_SIZE) / (double)samples);
	fprintf(out, "Ended          : %s\n",
		ended ? "cleanly" : "without an end mark (stopped by a signal or still recording)");
	fprintf(out, "Sets           : %zu\n", nsets);
	for (size_t i = 0; i < nsets; i++) {
		struct sum_set *ss = &sets[i];
		fprintf(out, "  %s: %zu instance%s, %zu counter%s\n", ss->name, ss->ninst,
			ss->ninst == 1 ? "" : "s", ss->ncounters, ss->ncounters == 1 ? "" : "s");
		fprintf(out, "    Instances  :");
		if (ss->ninst == 1 && !ss->inst[0][0])
			fprintf(out, " (a single-instance set)");
		for (size_t k = 0; k < ss->ninst && k < 16 && ss->inst[k][0]; k++)
			fprintf(out, " %s", ss->inst[k]);
		fprintf(out, "%s\n", ss->ninst > 16 ? " ..." : ss->ninst ? "" : " (none)");
		for (size_t k = 0; k < ss->ncounters; k++)
			fprintf(out, "    %s\n", ss->counters[k]);
	}
	if (npaths) {
		/* a path not in every session that holds samples says which
		 * sessions (numbered from 1 in the log) recorded it */
		fprintf(out, "Paths recorded :\n");
		for (size_t i = 0; i < npaths; i++) {
			fprintf(out, "    %s", paths[i].path);
			if (paths[i].nsess != sampled)
				sum_path_sessions(&paths[i], out);
			fputc('\n', out);
		}
	}
	size_t nd = gclog_reader_ndamage(rd);
	if (!nd && !gclog_reader_torn(rd))
		fprintf(out, "Damage         : none\n");
	for (size_t i = 0; i < nd; i++) {
		const struct gclog_damage *d = gclog_reader_damage(rd, i);
		fprintf(out, "Damage         : at byte %llu, %s: skipped %llu bytes, %llu samples "
			     "lost\n", (unsigned long long)d->offset, d->what,
			(unsigned long long)d->bytes, (unsigned long long)d->samples_lost);
	}
	if (gclog_reader_torn(rd))
		fprintf(out, "Torn tail      : %llu bytes ignored (the recording was cut off "
			     "mid-record; --append resumes after the last good record)\n",
			(unsigned long long)gclog_reader_torn(rd));
	for (size_t i = 0; i < nsets; i++) {
		for (size_t k = 0; k < sets[i].ninst; k++)
			free(sets[i].inst[k]);
		for (size_t k = 0; k < sets[i].ncounters; k++)
			free(sets[i].counters[k]);
		free(sets[i].inst);
		free(sets[i].counters);
		free(sets[i].hash);
		free(sets[i].name);
	}
	free(sets);
	for (size_t i = 0; i < npaths; i++) {
		free(paths[i].path);
		free(paths[i].sess);
	}
	free(paths);
	free(gaps);
}

int
replay_summary(const char *const *files, size_t n, FILE *out, struct err *err)
{
	/* every file first: a bad one is reported before any output */
	for (size_t i = 0; i < n; i++) {
		struct gclog_reader *rd = gclog_reader_open(files[i], err);
		if (!rd)
			return EXIT_USAGE;
		if (i)
			fputc('\n', out);
		summary_one(rd, out);
		gclog_reader_close(rd);
	}
	return EXIT_OK;
}
