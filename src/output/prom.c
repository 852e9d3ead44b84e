/*
 * prom.c - the Prometheus text 0.0.4 / OpenMetrics 1.0.0 exposition of a raw
 * sample (issue 9). Raw fields are exported, not derived counters; one rule
 * names them: getcounter_<set>_<stem>[_<unit>][_total], "_total" iff the
 * field is not a gauge, base units only. Each field's stem, unit and scale
 * are in its provider's field table (struct prom_desc); the instance labels
 * are the set's prom_labels. Nothing here knows a set by name.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "prom.h"
#include "util.h"

#define MAX_LABELS 2

/* Nonzero when field f of cs is exported. */
static int
field_exported(const struct counter_set *cs, size_t f)
{
	return cs->fields[f].prom.stem != NULL;
}

int
prom_set_exported(const struct counter_set *cs)
{
	if (cs->multi_instance && !cs->prom_labels)
		return 0;
	for (size_t f = 0; f < cs->nfields; f++)
		if (field_exported(cs, f))
			return 1;
	return 0;
}

/* Split cs->prom_labels ("irq/cpu") into names; returns how many. */
static size_t
set_labels(const struct counter_set *cs, char names[MAX_LABELS][32])
{
	const char *p = cs->prom_labels;
	size_t k = 0;

	while (p && *p && *p != ';' && k < MAX_LABELS) {
		size_t len = strcspn(p, "/;");

		if (len >= 32)
			len = 31;
		memcpy(names[k], p, len);
		names[k++][len] = 0;
		p += len;
		if (*p == '/')
			p++;
	}
	return k;
}

/* The extra label's name (after ';' in prom_labels), or NULL. */
static const char *
extra_label(const struct counter_set *cs)
{
	const char *semi = cs->prom_labels ? strchr(cs->prom_labels, ';') : NULL;

	return semi && semi[1] ? semi + 1 : NULL;
}

/* snake_case a set name: a lower/upper step or a space becomes "_". */
int
prom_set_name(char *buf, size_t n, const char *set)
{
	size_t len = 0;

	for (const char *p = set; *p; p++) {
		char c = *p;
		int up = c >= 'A' && c <= 'Z';
		int word = (c >= 'a' && c <= 'z') || up || (c >= '0' && c <= '9');

		if (!word || (up && p > set && p[-1] >= 'a' && p[-1] <= 'z')) {
			if (len + 1 >= n)
				return -1;
			if (len && buf[len - 1] != '_')
				buf[len++] = '_';
			if (!word)
				continue;
		}
		if (len + 1 >= n)
			return -1;
		buf[len++] = up ? (char)(c - 'A' + 'a') : c;
	}
	while (len && buf[len - 1] == '_')
		len--;
	buf[len] = 0;
	return (int)len;
}

/* getcounter_<set>_<stem>[_<unit>][_total]. */
int
prom_name(char *buf, size_t n, const struct counter_set *cs, size_t f, int family)
{
	const struct field_desc *fd = &cs->fields[f];
	char set[96];
	int len;

	if (!fd->prom.stem || prom_set_name(set, sizeof(set), cs->name) < 0)
		return -1;
	len = snprintf(buf, n, "getcounter_%s_%s%s%s%s", set, fd->prom.stem,
		       fd->prom.unit && *fd->prom.unit ? "_" : "",
		       fd->prom.unit ? fd->prom.unit : "",
		       fd->kind != FK_GAUGE && !family ? "_total" : "");
	return len < 0 || (size_t)len >= n ? -1 : len;
}

/* Skip spaces and tabs. */
static const char *
skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Walk the comma-separated media ranges; OpenMetrics when one names
 * application/openmetrics-text with q absent or > 0. */
int
prom_accept_openmetrics(const char *accept)
{
	static const char om[] = "application/openmetrics-text";
	const char *p = accept;

	if (!p)
		return 0;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *semi;
		double q = 1.0;

		p = skip_ws(p);
		len = end ? (size_t)(end - p) : strlen(p);
		if (len >= sizeof(om) - 1 && !strncasecmp(p, om, sizeof(om) - 1) &&
		    (len == sizeof(om) - 1 || p[sizeof(om) - 1] == ';' ||
		     p[sizeof(om) - 1] == ' ')) {
			for (semi = memchr(p, ';', len); semi; ) {
				const char *a = skip_ws(semi + 1);

				if ((a[0] == 'q' || a[0] == 'Q') && skip_ws(a + 1)[0] == '=')
					q = strtod(skip_ws(skip_ws(a + 1) + 1), NULL);
				semi = memchr(a, ';', len - (size_t)(a - p));
			}
			if (q > 0)
				return 1;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

/* Forget the contents, keep the memory. */
void
prom_buf_reset(struct prom_buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = 0;
}

/* Free the memory. */
void
prom_buf_free(struct prom_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* Append len bytes (kept NUL-terminated). */
void
prom_buf_puts(struct prom_buf *b, const char *s, size_t len)
{
	if (b->len + len + 1 > b->cap) {
		size_t want = b->cap ? b->cap : 4096;

		while (want < b->len + len + 1)
			want *= 2;
		b->p = xrealloc(b->p, want);
		b->cap = want;
	}
	memcpy(b->p + b->len, s, len);
	b->len += len;
	b->p[b->len] = 0;
}

/* Append a NUL-terminated string. */
static void
buf_str(struct prom_buf *b, const char *s)
{
	prom_buf_puts(b, s, strlen(s));
}

/* Append v[0..len) as a label value, escaping \, " and newline. */
static void
escape_n(struct prom_buf *b, const char *v, size_t len)
{
	size_t run = 0;

	for (size_t i = 0; i < len; i++) {
		const char *esc = v[i] == '\\' ? "\\\\" : v[i] == '"' ? "\\\"" :
				  v[i] == '\n' ? "\\n" : NULL;

		if (!esc)
			continue;
		prom_buf_puts(b, v + run, i - run);
		prom_buf_puts(b, esc, 2);
		run = i + 1;
	}
	prom_buf_puts(b, v + run, len - run);
}

/* Append a label value, escaping \, " and newline. */
void
prom_buf_escape(struct prom_buf *b, const char *v)
{
	escape_n(b, v, strlen(v));
}

/* Unwrap 32-bit counters, hold CPU times that step back. */
uint64_t
prom_unwrap(struct prom_series *s, uint64_t v, int bits, int kind)
{
	uint64_t out;

	if (!s->seen) {
		s->seen = 1;
		s->last = v;
		s->high = kind == FK_CPU_TIME || kind == FK_CPU_EXTRA ? v : 0;
		return v;
	}
	if (kind == FK_CPU_TIME || kind == FK_CPU_EXTRA) {
		/* high holds the largest value given out */
		if (v > s->high)
			s->high = v;
		s->last = v;
		return s->high;
	}
	if (kind == FK_COUNTER && bits == 32 && v < s->last && v <= 0xffffffffu &&
	    s->last <= 0xffffffffu && ((uint64_t)1 << 32) - s->last + v < ((uint64_t)1 << 31))
		s->high += (uint64_t)1 << 32;
	else if (kind == FK_COUNTER && v < s->last)
		s->high = 0; /* a real reset: let the value drop */
	s->last = v;
	out = v + s->high;
	return out;
}

/* ---- unwrap state per series -------------------------------------------- */

struct track_inst {
	char *name;
	uint64_t seen;    /* the call that last saw it */
	uint64_t identity;
	uint64_t sum_t;   /* the CPU time fields' sum at the last read */
	uint64_t mono_ns; /* when */
	struct prom_series *s; /* nfields */
};

struct prom_track {
	const struct counter_set *cs;
	struct track_inst *inst;
	size_t n, cap;
	uint64_t calls;
	/* per call: the values to print, ninstances x nfields, reused */
	uint64_t *values;
	size_t values_cap;
};

struct prom_track *
prom_track_new(const struct counter_set *cs)
{
	struct prom_track *t = xcalloc(1, sizeof(*t));

	t->cs = cs;
	return t;
}

void
prom_track_free(struct prom_track *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->inst[i].name);
		free(t->inst[i].s);
	}
	free(t->inst);
	free(t->values);
	free(t);
}

/* The state of instance name (the hint-th slot first: instances usually
 * come in the same order), made when new. */
static struct track_inst *
track_find(struct prom_track *t, size_t hint, const char *name)
{
	struct track_inst *ti;

	if (hint < t->n && !strcmp(t->inst[hint].name, name))
		return &t->inst[hint];
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->inst[i].name, name))
			return &t->inst[i];
	xgrow((void **)&t->inst, &t->cap, t->n + 1, sizeof(*t->inst));
	ti = &t->inst[t->n++];
	memset(ti, 0, sizeof(*ti));
	ti->name = xstrdup(name);
	ti->s = xcalloc(t->cs->nfields, sizeof(*ti->s));
	return ti;
}

/* Forget the instances the last call did not see, once they are many
 * (interfaces come and go), so the state stays the size of the set. */
static void
track_prune(struct prom_track *t, size_t ninstances)
{
	size_t k = 0;

	if (t->n <= 2 * ninstances + 16)
		return;
	for (size_t i = 0; i < t->n; i++) {
		if (t->inst[i].seen == t->calls) {
			t->inst[k++] = t->inst[i];
			continue;
		}
		free(t->inst[i].name);
		free(t->inst[i].s);
	}
	t->n = k;
}

/* The width in bits a decrease of field fd is judged with, given value v
 * and the previous value last. */
static int
field_bits(const struct field_desc *fd, uint8_t ulong_bits, uint64_t last, uint64_t v)
{
	switch (fd->width) {
	case FW_32:
		return 32;
	case FW_32IN64:
		return last <= 0xffffffffu && v <= 0xffffffffu ? 32 : 64;
	case FW_ULONG:
		return ulong_bits == 32 ? 32 : 64;
	default:
		return 64;
	}
}

/* Unwrap every present field of ri into out[0..nfields). The instance starts
 * afresh when its identity changed, or (a CPU) when the sum of its time
 * fields fell by more than 1 % of dt x USER_HZ: a real reset. */
static void
track_instance(struct track_inst *ti, const struct raw_instance *ri, const struct raw_set *rs,
	       const struct prom_fmt *fmt, uint64_t *out)
{
	const struct counter_set *cs = rs->set;
	uint64_t sum_t = 0;
	uint64_t identity = raw_identity(rs, ri);
	int has_cpu = 0, fresh = ti->identity != identity;

	for (size_t f = 0; f < cs->nfields; f++)
		if (cs->fields[f].kind == FK_CPU_TIME && (raw_present(rs, ri) >> f & 1)) {
			sum_t += raw_get(rs, ri, (unsigned)f);
			has_cpu = 1;
		}
	if (has_cpu && ti->mono_ns && rs->mono_ns > ti->mono_ns) {
		double slack = (double)(rs->mono_ns - ti->mono_ns) * 1e-9 *
			       (fmt->user_hz ? fmt->user_hz : 100) * 0.01;

		if ((double)sum_t + slack < (double)ti->sum_t)
			fresh = 1;
	}
	if (fresh)
		memset(ti->s, 0, cs->nfields * sizeof(*ti->s));
	ti->identity = identity;
	ti->sum_t = sum_t;
	ti->mono_ns = rs->mono_ns;
	for (size_t f = 0; f < cs->nfields; f++) {
		const struct field_desc *fd = &cs->fields[f];
		uint64_t v = (raw_present(rs, ri) >> f & 1) ? raw_get(rs, ri, (unsigned)f) : 0;

		if (!(raw_present(rs, ri) >> f & 1) || !fd->prom.stem || fd->kind == FK_GAUGE) {
			out[f] = v;
			continue;
		}
		out[f] = prom_unwrap(&ti->s[f], v, field_bits(fd, fmt->ulong_bits, ti->s[f].last, v),
				     fd->kind);
	}
}

/* ---- formatting ---------------------------------------------------------- */

/* The shortest of %.15g / %.17g that reads back as d. */
static int
fmt_double(char *num, size_t n, double d)
{
	int len = snprintf(num, n, "%.15g", d);

	if (strtod(num, NULL) != d)
		len = snprintf(num, n, "%.17g", d);
	return len;
}

/* Nonzero when scale k is a whole number >= 1, so raw x k stays exact. */
static int
whole_scale(double k)
{
	return k >= 1 && k < 1e9 && floor(k) == k;
}

/* Append raw value v of field fd times m (its multiplier field's raw
 * value, else 1) in base units. */
static void
put_value(struct prom_buf *b, const struct field_desc *fd, uint64_t v, uint64_t m,
	  uint32_t user_hz)
{
	double k = fd->prom.scale;
	char num[48];
	int len;

	if (m != 1 && v > UINT64_MAX / m) {
		len = fmt_double(num, sizeof(num), (double)v * (double)m * (k == 0 ? 1 : k));
		prom_buf_puts(b, num, (size_t)len);
		return;
	}
	v *= m;
	if (k == 0 || k == 1 || (whole_scale(k) && v <= UINT64_MAX / (uint64_t)k))
		len = snprintf(num, sizeof(num), "%llu",
			       (unsigned long long)(k > 1 ? v * (uint64_t)k : v));
	else if (k == PROM_TICKS)
		len = fmt_double(num, sizeof(num), (double)v / (user_hz ? user_hz : 100));
	else
		len = fmt_double(num, sizeof(num), (double)v * k);
	prom_buf_puts(b, num, (size_t)len);
}

/* Append name="value" (value of length len), after a comma when not first. */
static void
put_label(struct prom_buf *b, int first, const char *name, const char *v, size_t len)
{
	buf_str(b, first ? "{" : ",");
	buf_str(b, name);
	prom_buf_puts(b, "=\"", 2);
	escape_n(b, v, len);
	prom_buf_puts(b, "\"", 1);
}

/* Append {labels} of instance inst and of the field's own label; returns
 * -1 for an instance that is not exported (a _Total). */
static int
put_labels(struct prom_buf *b, char names[MAX_LABELS][32], size_t nlabels, const char *inst,
	   const struct field_desc *fd, const char *extra, const char *extra_value)
{
	const char *sep = nlabels > 1 ? strrchr(inst, '/') : NULL;
	size_t first_len = sep ? (size_t)(sep - inst) : strlen(inst);
	int any = 0;

	if (nlabels && first_len == 6 && !strncmp(inst, "_Total", 6))
		return -1;
	if (nlabels) {
		put_label(b, 1, names[0], inst, first_len);
		any = 1;
		/* "ERR/_Total", a system-wide row: no second label */
		if (sep && strcmp(sep + 1, "_Total"))
			put_label(b, 0, names[1], sep + 1, strlen(sep + 1));
		if (extra && extra_value && *extra_value)
			put_label(b, 0, extra, extra_value, strlen(extra_value));
	}
	if (fd->prom.label) {
		const char *eq = strchr(fd->prom.label, '=');
		char lname[32];
		size_t ln = eq ? (size_t)(eq - fd->prom.label) : 0;

		if (eq && ln < sizeof(lname)) {
			memcpy(lname, fd->prom.label, ln);
			lname[ln] = 0;
			put_label(b, !any, lname, eq + 1, strlen(eq + 1));
			any = 1;
		}
	}
	if (any)
		prom_buf_puts(b, "}", 1);
	return 0;
}

/* Nonzero when fields a and b of cs share one metric family. */
static int
same_family(const struct counter_set *cs, size_t a, size_t b)
{
	const struct prom_desc *pa = &cs->fields[a].prom, *pb = &cs->fields[b].prom;

	return !strcmp(pa->stem, pb->stem) && !strcmp(pa->unit, pb->unit) &&
	       (cs->fields[a].kind == FK_GAUGE) == (cs->fields[b].kind == FK_GAUGE);
}

/* # HELP, # TYPE (and # UNIT) of the family of field f. */
static void
put_family(struct prom_buf *b, const struct counter_set *cs, size_t f, int om)
{
	const struct field_desc *fd = &cs->fields[f];
	char name[160], help[320];

	prom_name(name, sizeof(name), cs, f, om);
	if (fd->prom.label) {
		size_t ln = strcspn(fd->prom.label, "=");

		snprintf(help, sizeof(help), "%s: raw fields by %.*s (%s, ...)%s%s.", cs->name,
			 (int)ln, fd->prom.label, fd->name, *fd->prom.unit ? ", in " : "",
			 fd->prom.unit);
	} else {
		snprintf(help, sizeof(help), "%s: raw field %s%s%s%s%s.", cs->name, fd->name,
			 fd->prom.mul ? " x " : "", fd->prom.mul ? cs->fields[fd->prom.mul - 1].name : "",
			 *fd->prom.unit ? ", in " : "", fd->prom.unit);
	}
	buf_str(b, "# HELP ");
	buf_str(b, name);
	buf_str(b, " ");
	buf_str(b, help);
	buf_str(b, "\n# TYPE ");
	buf_str(b, name);
	buf_str(b, fd->kind == FK_GAUGE ? " gauge\n" : " counter\n");
	if (om && *fd->prom.unit) {
		buf_str(b, "# UNIT ");
		buf_str(b, name);
		buf_str(b, " ");
		buf_str(b, fd->prom.unit);
		buf_str(b, "\n");
	}
}

/* Forget a family's HELP and TYPE (written from mark on) when it got no
 * sample. */
static void
drop_empty_family(struct prom_buf *b, size_t mark, int empty)
{
	if (mark != (size_t)-1 && empty && mark <= b->len) {
		b->len = mark;
		if (b->p)
			b->p[mark] = 0;
	}
}

size_t
prom_format_set(struct prom_buf *b, const struct raw_set *rs, struct prom_track *t,
		const struct prom_fmt *fmt)
{
	const struct counter_set *cs = rs->set;
	char names[MAX_LABELS][32], name[160], extra_value[128];
	const char *extra = extra_label(cs);
	size_t nlabels, nsamples = 0, nf = cs->nfields, prev = (size_t)-1;
	const uint64_t *vals = NULL;
	size_t family_mark = (size_t)-1, family_samples = 0;

	if (!rs->valid || !prom_set_exported(cs))
		return 0;
	nlabels = set_labels(cs, names);
	if (t) {
		xgrow((void **)&t->values, &t->values_cap, rs->ninstances * nf + 1,
		      sizeof(*t->values));
		t->calls++;
		for (size_t i = 0; i < rs->ninstances; i++) {
			struct track_inst *ti = track_find(t, i, raw_name_at(rs, i));

			ti->seen = t->calls;
			track_instance(ti, &rs->inst[i], rs, fmt, t->values + i * nf);
		}
		vals = t->values;
		track_prune(t, rs->ninstances);
	}
	for (size_t f = 0; f < nf; f++) {
		const struct field_desc *fd = &cs->fields[f];
		size_t len;

		if (!fd->prom.stem || !(fmt->fields >> f & 1))
			continue;
		if (prev == (size_t)-1 || !same_family(cs, prev, f)) {
			drop_empty_family(b, family_mark, nsamples == family_samples);
			family_mark = b->len;
			family_samples = nsamples;
			put_family(b, cs, f, fmt->openmetrics);
		}
		prev = f;
		prom_name(name, sizeof(name), cs, f, 0);
		len = strlen(name);
		for (size_t i = 0; i < rs->ninstances; i++) {
			const struct raw_instance *ri = &rs->inst[i];
			size_t mark = b->len, mf = fd->prom.mul ? fd->prom.mul - 1u : f;

			if (!(raw_present(rs, ri) >> f & 1) || !(raw_present(rs, ri) >> mf & 1) ||
			    (fmt->keep && !fmt->keep(fmt->arg, raw_name(rs, ri))))
				continue;
			prom_buf_puts(b, name, len);
			extra_value[0] = 0;
			if (extra && fmt->label_value)
				fmt->label_value(fmt->arg, raw_name(rs, ri), extra_value, sizeof(extra_value));
			if (put_labels(b, names, nlabels, raw_name(rs, ri), fd, extra, extra_value) < 0) {
				b->len = mark;
				b->p[mark] = 0;
				continue;
			}
			prom_buf_puts(b, " ", 1);
			put_value(b, fd, vals ? vals[i * nf + f] : raw_get(rs, ri, (unsigned)f),
				  fd->prom.mul ? raw_get(rs, ri, (unsigned)mf) : 1, fmt->user_hz);
			prom_buf_puts(b, "\n", 1);
			nsamples++;
		}
	}
	drop_empty_family(b, family_mark, nsamples == family_samples);
	return nsamples;
}

/* Read a quoted, escaped label value at p into out; returns past the quote. */
static const char *
parse_quoted(const char *p, char *out, size_t n)
{
	size_t len = 0;

	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++) {
		char c = *p;

		if (c == '\\') {
			p++;
			c = *p == 'n' ? '\n' : *p;
			if (!c)
				return NULL;
		}
		if (len + 1 >= n)
			return NULL;
		out[len++] = c;
	}
	if (*p != '"')
		return NULL;
	out[len] = 0;
	return p + 1;
}

/* Invert one sample line. */
int
prom_parse_sample(const char *line, const struct counter_set *const *sets, size_t nsets,
		  const struct counter_set **csp, size_t *field, char *inst, size_t n,
		  uint64_t *raw, uint32_t user_hz)
{
	char name[160], lname[32], val[256];
	char lnames[8][32], lvals[8][256];
	size_t nl = 0;
	const char *p = line;
	size_t len = strcspn(p, "{ ");
	double v;

	if (len >= sizeof(name) || *line == '#')
		return -1;
	memcpy(name, p, len);
	name[len] = 0;
	p += len;
	if (*p == '{') {
		p++;
		while (*p && *p != '}') {
			size_t ln = strcspn(p, "=");

			if (ln >= sizeof(lname) || !p[ln] || nl == 8)
				return -1;
			memcpy(lnames[nl], p, ln);
			lnames[nl][ln] = 0;
			p = parse_quoted(p + ln + 1, val, sizeof(val));
			if (!p)
				return -1;
			memcpy(lvals[nl++], val, sizeof(val));
			if (*p == ',')
				p++;
		}
		if (*p++ != '}')
			return -1;
	}
	v = strtod(skip_ws(p), NULL);
	for (size_t s = 0; s < nsets; s++) {
		const struct counter_set *cs = sets[s];
		char names[MAX_LABELS][32];
		size_t nlabels;

		if (!prom_set_exported(cs))
			continue;
		nlabels = set_labels(cs, names);
		for (size_t f = 0; f < cs->nfields; f++) {
			const struct field_desc *fd = &cs->fields[f];
			const char *parts[MAX_LABELS] = { NULL, NULL };
			char tn[160];
			int ok = 1;

			if (prom_name(tn, sizeof(tn), cs, f, 0) < 0 || strcmp(tn, name))
				continue;
			for (size_t k = 0; k < nl && ok; k++) {
				size_t j;

				for (j = 0; j < nlabels; j++)
					if (!strcmp(lnames[k], names[j]))
						break;
				if (j < nlabels)
					parts[j] = lvals[k];
				else if (extra_label(cs) && !strcmp(lnames[k], extra_label(cs)))
					continue; /* a detail, not part of the instance */
				else if (fd->prom.label)
					ok = !strncmp(fd->prom.label, lnames[k], strlen(lnames[k])) &&
					     fd->prom.label[strlen(lnames[k])] == '=' &&
					     !strcmp(fd->prom.label + strlen(lnames[k]) + 1, lvals[k]);
				else
					ok = 0;
			}
			if (!ok || (nlabels && !parts[0]))
				continue;
			if (!nlabels)
				inst[0] = 0;
			else if (nlabels == 1)
				snprintf(inst, n, "%s", parts[0]);
			else
				snprintf(inst, n, "%s/%s", parts[0], parts[1] ? parts[1] : "_Total");
			*csp = cs;
			*field = f;
			if (fd->prom.scale == PROM_TICKS)
				v *= user_hz ? user_hz : 100;
			else if (fd->prom.scale != 0)
				v /= fd->prom.scale;
			*raw = (uint64_t)(v + 0.5);
			return 0;
		}
	}
	return -1;
}
