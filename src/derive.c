/*
 * derive.c - every formula, wrap and reset rule, and _Total (COUNTERS.md
 * section 1). Inputs are raw reads and their deltas; outputs are a value and
 * a status. Never returns NaN, infinity or a negative spike from a reset.
 */
#include <math.h>
#include <string.h>

#include "derive.h"
#include "util.h"

static const char *const status_names[] = {
	[ST_OK] = "OK",
	[ST_FIRST] = "FIRST",
	[ST_NEW] = "NEW",
	[ST_NO_INSTANCE] = "NO_INSTANCE",
	[ST_RESET] = "RESET",
	[ST_WRAPPED] = "WRAPPED",
	[ST_UNSUPPORTED] = "UNSUPPORTED",
	[ST_BAD_TIME] = "BAD_TIME",
};

const char *
status_name(enum value_status st)
{
	if ((size_t)st < ARRAY_SIZE(status_names))
		return status_names[st];
	return "?";
}

GC_HOT int
value_exists(const struct counter_desc *c, enum value_status st)
{
	if (st == ST_OK || st == ST_WRAPPED)
		return 1;
	if (st == ST_FIRST || st == ST_NEW)
		return !counter_type_needs_two(c->type);
	return 0;
}

static uint64_t
bit(unsigned f)
{
	return (uint64_t)1 << f;
}

/* The plausible maximum of a wrapped delta of field f, or 0 for no bound. */
static double
wrap_bound(const struct field_desc *fd, const struct raw_set *prs,
	   const struct raw_instance *prev, const struct raw_set *crs,
	   const struct raw_instance *cur, double dt)
{
	const struct counter_set *set = crs->set;

	switch (fd->bound) {
	case FB_DISK_MS: {
		double inflight = 0;
		if (set->inflight_field) {
			unsigned f = set->inflight_field - 1u;
			uint64_t a = (raw_present(prs, prev) & bit(f)) ? raw_get(prs, prev, f) : 0;
			uint64_t b = (raw_present(crs, cur) & bit(f)) ? raw_get(crs, cur, f) : 0;
			inflight = (double)(a > b ? a : b);
		}
		return dt * 1000.0 * (1.0 + inflight);
	}
	case FB_IO_TICKS:
		return dt * 1000.0 + 10.0;
	case FB_IF_BYTES:
		if (set->speed_field) {
			unsigned f = set->speed_field - 1u;
			uint64_t speed = (raw_present(crs, cur) & bit(f)) ? raw_get(crs, cur, f) : 0;
			if (speed > 0 && speed < 0xFFFFFFFFu)
				return (double)speed * 1e6 / 8.0 * dt * 1.1;
		}
		return 0;
	default:
		return 0;
	}
}

/* Field f's delta from a to b by derive_deltas' rule for one field:
 * *wrapped when a narrow counter wrapped once (the delta corrected),
 * *reset when it went back otherwise (the delta 0). */
static inline __attribute__((always_inline)) uint64_t
field_delta(const struct field_desc *fd, uint64_t a, uint64_t b, const struct raw_set *prs,
	    const struct raw_instance *prev, const struct raw_set *crs,
	    const struct raw_instance *cur, const struct derive_env *env, int *wrapped,
	    int *reset)
{
	if (fd->kind == FK_GAUGE)
		return 0;
	if (b >= a)
		return b - a;
	if (fd->kind == FK_CPU_TIME || fd->kind == FK_CPU_EXTRA)
		return 0; /* clamped to 0, as mpstat does */
	int narrow = fd->width == FW_32 || (fd->width == FW_ULONG && env->ulong_bits == 32) ||
		     (fd->width == FW_32IN64 && a <= 0xFFFFFFFFu);
	if (narrow && a <= 0xFFFFFFFFu && b <= 0xFFFFFFFFu) {
		uint64_t corrected = ((uint64_t)1 << 32) - a + b;
		double bound = wrap_bound(fd, prs, prev, crs, cur, env->dt);
		if (corrected < ((uint64_t)1 << 31) && (bound <= 0 || (double)corrected < bound)) {
			*wrapped = 1;
			return corrected;
		}
	}
	*reset = 1;
	return 0;
}

void
derive_deltas(const struct raw_set *prs, const struct raw_instance *prev,
	      const struct raw_set *crs, const struct raw_instance *cur,
	      const struct derive_env *env, struct field_deltas *out)
{
	const struct counter_set *set = crs->set;
	uint64_t both = raw_present(prs, prev) & raw_present(crs, cur);
	uint64_t t_prev = 0, t_cur = 0;
	int have_cpu = 0, reset = 0;

	out->present = both;
	out->wrapped = 0;
	out->status = ST_OK;
	if (!raw_same_identity(prs, (size_t)(prev - prs->inst), crs, (size_t)(cur - crs->inst))) {
		for (uint64_t m = both; m; m &= m - 1)
			out->d[raw_slot(crs, (unsigned)__builtin_ctzll(m))] = 0;
		out->status = ST_RESET;
		return;
	}
	/* the words and maps in locals: a delta stored through out->d could
	 * alias the sets' fields, which the compiler would load again */
	const uint32_t *pw = raw_words(prs, (size_t)(prev - prs->inst));
	const uint32_t *cw = raw_words(crs, (size_t)(cur - crs->inst));
	const uint8_t *pslot = prs->slot, *cslot = crs->slot;
	int narrow = !prs->wide && !crs->wide;
	/* only the fields read both times: a run keeps few of a set's fields */
	for (uint64_t m = both; m; m &= m - 1) {
		unsigned f = (unsigned)__builtin_ctzll(m);
		const struct field_desc *fd = &set->fields[f];
		unsigned ps = pslot ? pslot[f] : f, cs = cslot ? cslot[f] : f;
		uint64_t a = narrow ? pw[ps] : raw_word(prs, pw, ps);
		uint64_t b = narrow ? cw[cs] : raw_word(crs, cw, cs);
		int wrapped = 0;

		if (fd->kind == FK_CPU_TIME) {
			t_prev += a;
			t_cur += b;
			have_cpu = 1;
		}
		out->d[cs] = field_delta(fd, a, b, prs, prev, crs, cur, env, &wrapped, &reset);
		if (wrapped)
			out->wrapped |= bit(f);
	}
	if (reset)
		out->status = ST_RESET;
	if (have_cpu && t_cur < t_prev) {
		double fall = (double)(t_prev - t_cur);
		if (fall > 0.01 * env->dt * (double)env->user_hz)
			out->status = ST_RESET;
	}
	if (out->status == ST_OK && out->wrapped)
		out->status = ST_WRAPPED;
}

uint8_t
derive_pair_status(const struct raw_set *prs, const struct raw_instance *prev,
		   const struct raw_set *crs, const struct raw_instance *cur,
		   const struct derive_env *env, uint64_t *words)
{
	/* The usual case: the same identity and every field read both times
	 * risen, or a gauge (whose delta is 0): nothing wraps or resets, and
	 * CPU times that all rose cannot fall in sum, so derive_deltas would
	 * say OK. Anything else asks it. */
	size_t j = (size_t)(prev - prs->inst), i = (size_t)(cur - crs->inst);

	if (raw_same_identity(prs, j, crs, i)) {
		const uint32_t *pw = raw_words(prs, j), *cw = raw_words(crs, i);
		const uint8_t *pslot = prs->slot, *cslot = crs->slot;
		int narrow = !prs->wide && !crs->wide;
		uint64_t m = raw_present_at(prs, j) & raw_present_at(crs, i) & ~crs->gauges;

		for (; m; m &= m - 1) {
			unsigned f = (unsigned)__builtin_ctzll(m);
			unsigned ps = pslot ? pslot[f] : f, cs = cslot ? cslot[f] : f;
			uint64_t a = narrow ? pw[ps] : raw_word(prs, pw, ps);
			uint64_t b = narrow ? cw[cs] : raw_word(crs, cw, cs);
			if (b < a)
				break;
		}
		if (!m)
			return ST_OK;
	}
	struct field_deltas d = { .d = words };
	derive_deltas(prs, prev, crs, cur, env, &d);
	return d.status;
}

static inline struct wref
wref_of(const struct raw_set *rs, unsigned f)
{
	unsigned s = raw_slot(rs, f);

	if (!rs->wide)
		return (struct wref){ (uint8_t)s, 0 };
	return (struct wref){ rs->woff[s], (uint8_t)(rs->wide >> s & 1) };
}

static inline __attribute__((always_inline)) uint64_t
wload(const uint32_t *w, struct wref r)
{
	return r.wide ? (uint64_t)w[r.off] | (uint64_t)w[r.off + 1] << 32 : w[r.off];
}

/* Nonzero when some slot s < n with care[s] (all ones, else 0) has
 * cw[s] < pw[s]: a fall, found eight slots at a time. The last block of
 * eight (or of four, for n below 8) ends at n and may overlap the one
 * before: a slot compared twice is still one fall, and nothing past n is
 * read. */
static inline __attribute__((always_inline)) int
any_fell(const uint32_t *pw, const uint32_t *cw, const uint32_t *care, unsigned n)
{
	typedef uint32_t u32x8 __attribute__((vector_size(32)));
	typedef uint32_t u32x4 __attribute__((vector_size(16)));

	if (n >= 8) {
		u32x8 acc = { 0 }, a, b, m;
		uint64_t q[4];
		for (unsigned s = 0;; s += 8) {
			if (s + 8 > n)
				s = n - 8; /* the last block, ending at n */
			memcpy(&a, pw + s, sizeof(a));
			memcpy(&b, cw + s, sizeof(b));
			memcpy(&m, care + s, sizeof(m));
			acc |= (u32x8)(b < a) & m;
			if (s + 8 == n)
				break;
		}
		memcpy(q, &acc, sizeof(q));
		return (q[0] | q[1] | q[2] | q[3]) != 0;
	}
	if (n >= 4) {
		u32x4 a, b, m, acc;
		uint64_t q[2];
		memcpy(&a, pw, sizeof(a));
		memcpy(&b, cw, sizeof(b));
		memcpy(&m, care, sizeof(m));
		acc = (u32x4)(b < a) & m;
		memcpy(&a, pw + n - 4, sizeof(a));
		memcpy(&b, cw + n - 4, sizeof(b));
		memcpy(&m, care + n - 4, sizeof(m));
		acc |= (u32x4)(b < a) & m;
		memcpy(q, &acc, sizeof(q));
		return (q[0] | q[1]) != 0;
	}
	uint32_t r = 0;
	for (unsigned s = 0; s < n; s++)
		r |= (uint32_t)-(uint32_t)(cw[s] < pw[s]) & care[s];
	return r != 0;
}

/* derive_pairs' body: static, as clang makes clones of a static function
 * only (see CLONED_FOR_AVX2). */
static CLONED_FOR_AVX2 void
pairs(struct delta_store *ds, const struct raw_set *prev, const struct raw_set *cur,
      const uint32_t *prev_of, uint8_t *status, const struct derive_env *env, int paired)
{
	uint64_t all = cur->keep, both = prev->keep & cur->keep, care_fields = 0;
	int plain = paired && !prev_of;

	*ds = (struct delta_store){ prev, cur, prev_of, status, *env, 0, 0, 0 };
	for (size_t i = 0; i < cur->ninstances; i++)
		all &= raw_present_at(cur, i);
	ds->all = all;
	if (!paired)
		return;
	/* the fields a fall matters in (not a gauge's), found once */
	struct {
		uint64_t bit;
		struct wref p, c;
	} t[SET_MAX_FIELDS];
	unsigned nt = 0;
	uint64_t words[SET_MAX_FIELDS];
	/* reads of one layout (the same fields kept, none wide): their words
	 * compared whole, care[s] saying which slots matter */
	int same = prev->keep == cur->keep && !prev->wide && !cur->wide;
	uint32_t care[SET_MAX_FIELDS] = { 0 };

	for (uint64_t m = both & ~cur->gauges; m; m &= m - 1) {
		unsigned f = (unsigned)__builtin_ctzll(m);
		t[nt].bit = bit(f);
		t[nt].p = wref_of(prev, f);
		t[nt].c = wref_of(cur, f);
		if (same) /* no slot wide: off is the slot, below SET_MAX_FIELDS */
			care[t[nt].c.off] = UINT32_MAX;
		care_fields |= bit(f);
		nt++;
	}
	for (size_t i = 0; i < cur->ninstances; i++) {
		size_t j = prev_of ? prev_of[i] : i;
		if (j == DERIVE_NO_PREV)
			continue;
		const uint32_t *pw = raw_words(prev, j), *cw = raw_words(cur, i);
		uint64_t m = raw_present_at(prev, j) & raw_present_at(cur, i);
		int fell = 0;

		both &= m;
		/* derive_pair_status's usual case, every field compared */
		if (same && !(care_fields & ~m)) {
			fell = any_fell(pw, cw, care, cur->nslots);
		} else {
			for (unsigned k = 0; k < nt; k++)
				fell |= ((m & t[k].bit) != 0) &
					(wload(cw, t[k].c) < wload(pw, t[k].p));
		}
		if (!fell && raw_same_identity(prev, j, cur, i)) {
			status[i] = ST_OK;
		} else {
			plain = 0;
			status[i] = derive_pair_status(prev, &prev->inst[j], cur, &cur->inst[i], env,
						       words);
		}
	}
	ds->plain = plain;
	ds->both = both;
}

GC_HOT void
derive_pairs(struct delta_store *ds, const struct raw_set *prev, const struct raw_set *cur,
	     const uint32_t *prev_of, uint8_t *status, const struct derive_env *env, int paired)
{
	pairs(ds, prev, cur, prev_of, status, env, paired);
}

/* A delta store's reads, looked up once for many instances. */
struct ds_reads {
	const struct delta_store *ds;
	const struct raw_set *crs, *prs;
	const struct field_desc *fields;
	uint64_t gauges; /* crs->gauges */
	const uint8_t *cslot, *pslot; /* the reads' slot maps (NULL: slot f is f) */
	int narrow; /* no slot of either read is wide: slot s is word s */
};

static inline __attribute__((always_inline)) void
ds_reads_init(struct ds_reads *r, const struct delta_store *ds)
{
	r->ds = ds;
	r->crs = ds->cur;
	r->prs = ds->prev;
	r->fields = r->crs->set->fields;
	r->gauges = r->crs->gauges;
	/* kept in locals: a delta stored through a uint64_t pointer could
	 * alias the reads' fields, which the compiler would load again */
	r->cslot = r->crs->slot;
	r->pslot = r->prs->slot;
	r->narrow = !r->crs->wide && !r->prs->wide;
}

static inline __attribute__((always_inline)) void
ds_get(const struct ds_reads *r, size_t i, uint64_t need, uint64_t *words,
       struct field_deltas *out)
{
	size_t j = r->ds->prev_of ? r->ds->prev_of[i] : i;
	const struct raw_instance *cur = &r->crs->inst[i], *prev = &r->prs->inst[j];
	const uint32_t *cv = raw_words(r->crs, i), *pv = raw_words(r->prs, j);

	out->d = words;
	out->present = raw_present(r->prs, prev) & raw_present(r->crs, cur);
	out->status = r->ds->status[i];
	out->wrapped = 0;
	if (out->status == ST_RESET)
		return; /* derive reads no delta of a RESET */
	for (uint64_t m = out->present & need; m; m &= m - 1) {
		unsigned f = (unsigned)__builtin_ctzll(m);
		unsigned cs = r->cslot ? r->cslot[f] : f, ps = r->pslot ? r->pslot[f] : f;
		uint64_t a = r->narrow ? pv[ps] : raw_word(r->prs, pv, ps);
		uint64_t b = r->narrow ? cv[cs] : raw_word(r->crs, cv, cs);
		int wrapped = 0, reset = 0;
		if (b >= a && !(r->gauges & bit(f))) { /* the usual case */
			words[cs] = b - a;
			continue;
		}
		words[cs] = field_delta(&r->fields[f], a, b, r->prs, prev, r->crs, cur, &r->ds->env,
					&wrapped, &reset);
		if (wrapped)
			out->wrapped |= bit(f);
	}
}

void
delta_store_get(const struct delta_store *ds, size_t i, uint64_t need, uint64_t *words,
		struct field_deltas *out)
{
	struct ds_reads r;

	ds_reads_init(&r, ds);
	ds_get(&r, i, need, words, out);
}

/* Sum the signed terms (only fields in present); returns how many terms
 * were present. Field f is deltas[raw_slot(rs, f)], or with no deltas the
 * value in rs's words w. */
static inline __attribute__((always_inline)) int
term_sum(const struct term *t, const uint64_t *deltas, const struct raw_set *rs,
	 const uint32_t *w, uint64_t present, double *sum)
{
	const uint8_t *slot = rs->slot;
	int n = 0;
	*sum = 0;
	for (int i = 0; i < COUNTER_MAX_TERMS && t[i].sign; i++) {
		if (!(present & bit(t[i].field)))
			continue;
		unsigned s = slot ? slot[t[i].field] : t[i].field;
		double v = (double)(deltas ? deltas[s] : raw_word(rs, w, s));
		*sum += t[i].sign > 0 ? v : -v;
		n++;
	}
	return n;
}

/* Nonzero when a field of c's numerator is in present (stops at the
 * first: usually the first term). */
static inline __attribute__((always_inline)) int
num_present(const struct counter_desc *c, uint64_t present)
{
	for (int i = 0; i < COUNTER_MAX_TERMS && c->num[i].sign; i++)
		if (present & bit(c->num[i].field))
			return 1;
	return 0;
}

static int
has_den(const struct counter_desc *c)
{
	return c->den[0].sign != 0;
}

/* N and B of one instance for counter c: from deltas for two-read types,
 * from current values otherwise, each scaled by the multiplier field. */
struct nb {
	double n, b;
	int n_terms, b_terms;
	int wrapped;
};

static inline __attribute__((always_inline)) int
instance_nb(const struct raw_set *rs, const struct counter_desc *c, const struct raw_instance *cur,
	    const struct field_deltas *deltas, struct nb *out)
{
	const uint64_t *d = NULL;
	uint64_t present;
	double mul = 1;

	if (counter_type_needs_two(c->type)) {
		d = deltas->d;
		present = deltas->present;
	} else {
		present = raw_present(rs, cur);
	}
	if (d) { /* each call with its source known: no test per term */
		out->n_terms = term_sum(c->num, d, rs, NULL, present, &out->n);
		out->b_terms = has_den(c) ? term_sum(c->den, d, rs, NULL, present, &out->b) : 0;
	} else {
		const uint32_t *w = raw_words(rs, (size_t)(cur - rs->inst));
		out->n_terms = term_sum(c->num, NULL, rs, w, present, &out->n);
		out->b_terms = has_den(c) ? term_sum(c->den, NULL, rs, w, present, &out->b) : 0;
	}
	if (!has_den(c))
		out->b = 0;
	/* a wrap is rare: the counter's field mask only when one happened */
	out->wrapped = deltas && deltas->wrapped && counter_type_needs_two(c->type) &&
		       (counter_fields(c) & deltas->wrapped) != 0;
	if (c->mul) {
		unsigned f = c->mul - 1u;
		if (!(raw_present(rs, cur) & bit(f)))
			return -1;
		mul = (double)raw_get(rs, cur, f);
	}
	out->n *= mul;
	if (!c->mul_num_only)
		out->b *= mul;
	return 0;
}

static double
clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Where CT_UTILIZATION's link fields lie in a read, found once for many
 * instances: the set's speed field (Mbit/s) and duplex field. A bit is 0
 * when the read keeps no such field. */
struct link_refs {
	uint64_t speed_bit, duplex_bit;
	struct wref speed, duplex;
};

static inline void
link_refs_of(const struct raw_set *rs, struct link_refs *lr)
{
	unsigned sf = rs->set->speed_field, df = rs->set->duplex_field;

	*lr = (struct link_refs){ 0, 0, { 0, 0 }, { 0, 0 } };
	if (sf && (rs->keep & bit(sf - 1u))) {
		lr->speed_bit = bit(sf - 1u);
		lr->speed = wref_of(rs, sf - 1u);
	}
	if (df && (rs->keep & bit(df - 1u))) {
		lr->duplex_bit = bit(df - 1u);
		lr->duplex = wref_of(rs, df - 1u);
	}
}

/* CT_UTILIZATION's link, of instance i of rs: its bandwidth (bw 0 when
 * unknown) and whether it is full duplex. */
static inline __attribute__((always_inline)) void
link_at(const struct raw_set *rs, const struct link_refs *lr, size_t i, double *bw, int *full)
{
	uint64_t present = raw_present_at(rs, i);
	const uint32_t *w = raw_words(rs, i);

	*bw = 0;
	if (present & lr->speed_bit) {
		uint64_t speed = wload(w, lr->speed);
		if (speed > 0 && speed < 0xFFFFFFFFu)
			*bw = (double)speed * 1e6;
	}
	*full = (present & lr->duplex_bit) && wload(w, lr->duplex) == 1;
}

/* CT_UTILIZATION of n received and b sent bytes over dt on a link of bw
 * bit/s (> 0): the larger on a full-duplex link, their sum otherwise. */
static inline double
utilization(double n, double b, double bw, int full, double dt)
{
	double bytes = full ? (n > b ? n : b) : n + b;

	return 100.0 * bytes * 8.0 / (dt * bw);
}

/* apply's last steps, on the value its formula gave: c's clamp, BAD_TIME
 * for a value that is not finite, 0 for a negative one where c's type
 * cannot be negative. */
static inline __attribute__((always_inline)) struct value
settle(const struct counter_desc *c, struct value r)
{
	if (c->clamp100)
		r.v = clamp(r.v, 0, 100);
	if (!isfinite(r.v)) {
		r.v = 0;
		r.status = ST_BAD_TIME;
	}
	if (r.v < 0 && c->type != CT_ELAPSED && c->type != CT_RAW && c->type != CT_DELTA)
		r.v = 0;
	return r;
}

/* The formula of c's type over N and B (already summed, means divided). */
static inline __attribute__((always_inline)) struct value
apply(const struct raw_set *rs, const struct counter_desc *c, double n, double b,
      const struct raw_instance *cur, const struct field_deltas *deltas,
      const struct derive_env *env)
{
	struct value r = { 0, ST_OK };
	double scale = c->scale != 0 ? c->scale : 1;
	double dt = env->dt;

	switch ((enum counter_type)c->type) {
	case CT_RAW:
		r.v = n * scale;
		break;
	case CT_DELTA:
		r.v = n * scale;
		break;
	case CT_RATE:
	case CT_QUEUELEN:
		r.v = n * scale / dt;
		break;
	case CT_FRACTION:
		if (b == 0) {
			r.status = ST_UNSUPPORTED;
			return r;
		}
		r.v = 100.0 * n / b;
		break;
	case CT_SAMPLE_FRACTION:
		if (b == 0) {
			if (!c->has_zero_base) {
				r.status = ST_UNSUPPORTED;
				return r;
			}
			r.v = c->zero_base;
		} else {
			r.v = 100.0 * n / b;
		}
		break;
	case CT_AVG_TIMER:
	case CT_AVG_BULK:
		r.v = b == 0 ? 0 : n * scale / b;
		break;
	case CT_TIMER:
		r.v = 100.0 * n * scale / dt;
		break;
	case CT_TIMER_INV:
		r.v = clamp(100.0 * (1.0 - n * scale / dt), 0, 100);
		break;
	case CT_ELAPSED:
		r.v = env->wall_s - n * scale;
		break;
	case CT_UTILIZATION: {
		double bw = 0;
		int full = 0;
		if (cur) {
			struct link_refs lr;
			link_refs_of(rs, &lr);
			link_at(rs, &lr, (size_t)(cur - rs->inst), &bw, &full);
		}
		if (bw <= 0) {
			r.status = ST_UNSUPPORTED;
			return r;
		}
		r.v = utilization(n, b, bw, full, dt);
		break;
	}
	}
	(void)deltas;
	return settle(c, r);
}

/* Nonzero when c cannot be formed from what the instance supplied. */
static int
unsupported(const struct counter_desc *c, const struct nb *nb)
{
	if (nb->n_terms == 0)
		return 1;
	if (has_den(c) && nb->b_terms == 0 && c->type != CT_UTILIZATION)
		return 1;
	return 0;
}

static inline __attribute__((always_inline)) struct value
value_of(const struct raw_set *rs, const struct counter_desc *c, const struct raw_instance *cur,
	 const struct field_deltas *deltas, enum value_status pair_status,
	 const struct derive_env *env)
{
	struct value r = { 0, ST_UNSUPPORTED };
	struct nb nb;
	int two = counter_type_needs_two(c->type);

	/* A counter the source cannot supply is UNSUPPORTED whatever else. */
	if (!num_present(c, raw_present(rs, cur)) ||
	    (c->mul && !(raw_present(rs, cur) & bit(c->mul - 1u))))
		return r;
	if (!two) {
		if (instance_nb(rs, c, cur, NULL, &nb) < 0 || unsupported(c, &nb))
			return r;
		r = apply(rs, c, nb.n, nb.b, cur, NULL, env);
		if (r.status == ST_OK && pair_status != ST_OK && pair_status != ST_RESET &&
		    pair_status != ST_WRAPPED)
			r.status = (uint8_t)pair_status;
		return r;
	}
	if (!deltas) {
		r.status = (uint8_t)pair_status;
		if (pair_status == ST_OK)
			r.status = ST_BAD_TIME; /* a snapshot: no interval */
		return r;
	}
	/* No interval (or time went back: roots in the wrong order): every
	 * decrease is meaningless then, so BAD_TIME before RESET. */
	if (!(env->dt > 0)) {
		r.status = ST_BAD_TIME;
		return r;
	}
	if (deltas->status == ST_RESET) {
		r.status = ST_RESET;
		return r;
	}
	if (instance_nb(rs, c, cur, deltas, &nb) < 0 || unsupported(c, &nb))
		return r;
	r = apply(rs, c, nb.n, nb.b, cur, deltas, env);
	if (r.status == ST_OK && nb.wrapped)
		r.status = ST_WRAPPED;
	return r;
}

struct value
derive_value(const struct raw_set *rs, const struct counter_desc *c,
	     const struct raw_instance *cur, const struct field_deltas *deltas,
	     enum value_status pair_status, const struct derive_env *env)
{
	return value_of(rs, c, cur, deltas, pair_status, env);
}

/* Nonzero for the usual counter: a rate or a delta of one field, with no
 * base, no multiplier and no clamp (most of a NIC's or a disk's). */
static int
one_field_rate(const struct counter_desc *c)
{
	return (c->type == CT_RATE || c->type == CT_QUEUELEN || c->type == CT_DELTA) &&
	       c->num[0].sign > 0 && c->num[1].sign == 0 && !has_den(c) && !c->mul &&
	       !c->clamp100;
}

/* What value_of and apply make of a rate's or delta's summed deltas (rate:
 * divided by dt) when dt > 0: WRAPPED where a term wrapped, BAD_TIME where
 * the value is not finite, a negative rate 0. */
static inline __attribute__((always_inline)) struct value
sum_value(double sum, double scale, double dt, int rate, int wrapped)
{
	struct value v = { rate ? sum * scale / dt : sum * scale, wrapped ? ST_WRAPPED : ST_OK };

	if (!isfinite(v.v)) {
		v.v = 0;
		v.status = ST_BAD_TIME;
	}
	if (v.v < 0 && rate)
		v.v = 0;
	return v;
}

/* A sum of fields added (every term's sign +1), no denominator, multiplier
 * or clamp: "Bytes Total/sec" (rx + tx) as a rate, a count as CT_RAW. */
static int
sum_of_fields(const struct counter_desc *c)
{
	if (c->num[0].sign <= 0 || has_den(c) || c->mul || c->clamp100)
		return 0;
	for (int i = 1; i < COUNTER_MAX_TERMS && c->num[i].sign; i++)
		if (c->num[i].sign < 0)
			return 0;
	return 1;
}

static void
plain_term(struct plain_terms *pt, unsigned t, const struct term *term,
	   const struct raw_set *prs, const struct raw_set *crs)
{
	unsigned f = term->field;

	pt->p[t] = prs ? wref_of(prs, f) : (struct wref){ 0, 0 };
	pt->c[t] = wref_of(crs, f);
	pt->neg[t] = term->sign < 0;
	pt->is_gauge[t] = (crs->gauges & bit(f)) != 0;
	pt->gauge |= pt->is_gauge[t];
	pt->narrow &= !pt->p[t].wide && !pt->c[t].wide;
}

/* Fill pt for counter c when every field it reads is in mask; 0 when one
 * is not (the loops that test each instance take it then). */
static int
plain_terms(const struct counter_desc *c, const struct raw_set *prs, const struct raw_set *crs,
	    uint64_t mask, struct plain_terms *pt)
{
	if (counter_fields(c) & ~mask)
		return 0;
	pt->nn = pt->nd = 0;
	pt->narrow = 1;
	pt->gauge = 0;
	pt->simple = (uint8_t)sum_of_fields(c);
	for (unsigned t = 0; t < COUNTER_MAX_TERMS && c->num[t].sign; t++)
		plain_term(pt, pt->nn++, &c->num[t], prs, crs);
	for (unsigned t = 0; t < COUNTER_MAX_TERMS && c->den[t].sign; t++)
		plain_term(pt, pt->nn + pt->nd++, &c->den[t], prs, crs);
	pt->mul = (uint8_t)(c->mul != 0);
	if (pt->mul) {
		pt->m = wref_of(crs, c->mul - 1u);
		pt->narrow &= !pt->m.wide;
	}
	return pt->nn > 0;
}

/* plain_terms from plan when it holds them for the same counter, fields
 * and layouts of the reads, else formed (into plan, when there is one, for
 * the next call; else into local): NULL when c is not plain there. */
static GC_HOT const struct plain_terms *
plain_terms_of(struct derive_plan *plan, const struct counter_desc *c,
	       const struct raw_set *prs, const struct raw_set *crs, uint64_t mask,
	       struct plain_terms *local)
{
	if (!plan)
		return plain_terms(c, prs, crs, mask, local) ? local : NULL;
	uint64_t pkeep = prs ? prs->keep : 0, pwide = prs ? prs->wide : 0;

	if (plan->c != c || plan->set != crs->set || plan->mask != mask ||
	    plan->two != (prs != NULL) || plan->pkeep != pkeep || plan->pwide != pwide ||
	    plan->ckeep != crs->keep || plan->cwide != crs->wide) {
		plan->ok = plain_terms(c, prs, crs, mask, &plan->pt);
		plan->c = c;
		plan->set = crs->set;
		plan->mask = mask;
		plan->two = prs != NULL;
		plan->pkeep = pkeep;
		plan->pwide = pwide;
		plan->ckeep = crs->keep;
		plan->cwide = crs->wide;
	}
	return plan->ok ? &plan->pt : NULL;
}

/* An instance's sum of terms first .. first + nt (in term order, as
 * term_sum forms it): with two, of the deltas from pw to cw (a gauge's 0),
 * else of cw's values. nt, narrow, simple (every term added, none a gauge)
 * and two are constants where it is inlined for the usual counters, so the
 * loops that call it are made for them. */
static inline __attribute__((always_inline)) double
plain_sum(const struct plain_terms *pt, unsigned first, unsigned nt, int narrow, int simple,
	  int two, const uint32_t *pw, const uint32_t *cw)
{
	double sum = 0;

	for (unsigned t = first; t < first + nt; t++) {
		double v = 0;
		if (simple || !two || !pt->is_gauge[t]) {
			uint64_t b = narrow ? cw[pt->c[t].off] : wload(cw, pt->c[t]);
			if (two)
				b -= narrow ? pw[pt->p[t].off] : wload(pw, pt->p[t]);
			/* a narrow value or delta is below 2^32: converted
			 * as signed, one instruction, to the same double */
			v = narrow ? (double)(int64_t)b : (double)b;
		}
		if (simple && t == first)
			sum = v; /* 0 + v: v is never -0 */
		else
			sum += simple || !pt->neg[t] ? v : -v;
	}
	return sum;
}

/* An instance's N and B as instance_nb forms them. nn and nd: N's and B's
 * terms when constants where it is inlined (a loop made for them), else
 * 0 (pt's). */
static inline __attribute__((always_inline)) void
plain_nb_of(const struct plain_terms *pt, const struct counter_desc *c, unsigned nn,
	    unsigned nd, int narrow, const uint32_t *pw, const uint32_t *cw, double *n,
	    double *b)
{
	double mul = 1;

	if (!nn) {
		nn = pt->nn;
		nd = pt->nd;
	}
	*n = plain_sum(pt, 0, nn, narrow, 0, pw != NULL, pw, cw);
	*b = nd ? plain_sum(pt, nn, nd, narrow, 0, pw != NULL, pw, cw) : 0;
	if (pt->mul)
		mul = (double)wload(cw, pt->m);
	*n *= mul;
	if (!c->mul_num_only)
		*b *= mul;
}

static inline __attribute__((always_inline)) void
plain_nb(const struct plain_terms *pt, const struct counter_desc *c, const uint32_t *pw,
	 const uint32_t *cw, double *n, double *b)
{
	plain_nb_of(pt, c, 0, 0, 0, pw, cw, n, b);
}

/* Nonzero when sum_value can neither overflow nor go negative for any sum
 * of a plain counter's terms (each below 2^64), so need not look. */
static int
sum_safe(double scale, double dt, int rate)
{
	double most = 0x1p64 * COUNTER_MAX_TERMS * scale;

	return scale > 0 && isfinite(rate ? most / dt : most);
}

/* v[k] / d for each of n values, four at a time: a division is the
 * dearest step of a rate, and one instruction divides four (AVX2) or two
 * (SSE2) as fast as one, each quotient the same as alone. Over 401
 * interfaces' rates (15,000 values) that was 9 us a sample two at a time,
 * 4.4 four at a time, on the VM of bench/RESULTS.md. */
static CLONED_FOR_AVX2 void
divide_all(double *v, size_t n, double d)
{
	typedef double f64x4 __attribute__((vector_size(32)));
	const f64x4 dd = { d, d, d, d };
	size_t k = 0;

	for (; k + 4 <= n; k += 4) {
		f64x4 x;
		memcpy(&x, v + k, sizeof(x));
		x /= dd;
		memcpy(v + k, &x, sizeof(x));
	}
	for (; k < n; k++)
		v[k] /= d;
}

/* run_plain_rate's loop for nt terms, narrow or not, where sum_value need
 * not look (safe) or must. The reads' words and the terms are copied to
 * locals: a status stored through a uint8_t pointer could alias them,
 * which the compiler would load again for each instance. */
static inline __attribute__((always_inline)) void
plain_rate_loop(const struct raw_set *prs, const struct raw_set *crs,
		const struct plain_terms *pt, unsigned nt, int narrow, int safe, size_t from,
		size_t n, double scale, double dt, int rate, double *val, uint8_t *st)
{
	const struct plain_terms t = *pt;
	const uint32_t *pv = prs->values, *cv = crs->values;
	size_t ps = prs->stride, cs = crs->stride;

	for (size_t k = 0; k < n; k++) {
		size_t i = from + k;
		double sum = plain_sum(&t, 0, nt, narrow, 1, 1, pv + i * ps, cv + i * cs);
		if (safe) {
			val[k] = sum * scale; /* rate: divided by dt below */
		} else {
			struct value v = sum_value(sum, scale, dt, rate, 0);
			val[k] = v.v;
			st[k] = v.status;
		}
	}
	if (safe)
		memset(st, ST_OK, n); /* each one OK, stored at once */
	if (safe && rate)
		divide_all(val, n, dt);
}

/* derive_run's loop for a rate or delta of a sum_of_fields (no gauge)
 * over a plain pair (dt > 0) whose fields every instance read both times:
 * each value its deltas' sum, ST_OK, as value_of gives it. */
static __attribute__((noinline)) void
run_plain_rate(const struct delta_store *ds, const struct counter_desc *c,
	       const struct plain_terms *pt, size_t from, size_t n, const struct derive_env *env,
	       double *val, uint8_t *st)
{
	const struct raw_set *crs = ds->cur, *prs = ds->prev;
	double scale = c->scale != 0 ? c->scale : 1, dt = env->dt;
	int rate = c->type != CT_DELTA;

	if (!sum_safe(scale, dt, rate))
		plain_rate_loop(prs, crs, pt, pt->nn, 0, 0, from, n, scale, dt, rate, val, st);
	else if (!pt->narrow)
		plain_rate_loop(prs, crs, pt, pt->nn, 0, 1, from, n, scale, dt, rate, val, st);
	else if (pt->nn == 1 && rate)
		plain_rate_loop(prs, crs, pt, 1, 1, 1, from, n, scale, dt, 1, val, st);
	else if (pt->nn == 2 && rate)
		plain_rate_loop(prs, crs, pt, 2, 1, 1, from, n, scale, dt, 1, val, st);
	else
		plain_rate_loop(prs, crs, pt, pt->nn, 1, 1, from, n, scale, dt, rate, val, st);
}

/* derive_run's loop for any other counter whose fields every instance
 * read (both times, over a plain pair with dt > 0, for a type of two reads
 * (two): pv prev's words, else NULL): N and B as instance_nb forms them,
 * then apply, as value_of does; a one-read type's value takes its pair
 * status (pair, or NEW where prev_of says so) as value_of gives it. */
static inline __attribute__((always_inline)) void
run_plain_loop(const struct raw_set *rs, const struct raw_set *prs,
	       const struct counter_desc *c, const struct plain_terms *pt, unsigned tn,
	       unsigned td, int narrow, size_t from, size_t n, const struct derive_env *env,
	       const uint32_t *prev_of, enum value_status pair, double *val, uint8_t *st)
{
	const struct plain_terms t = *pt;
	const uint32_t *pv = prs ? prs->values : NULL, *cv = rs->values;
	size_t ps = prs ? prs->stride : 0, cs = rs->stride;

	for (size_t k = 0; k < n; k++) {
		size_t i = from + k;
		double nn, bb;
		plain_nb_of(&t, c, tn, td, narrow, pv ? pv + i * ps : NULL, cv + i * cs, &nn, &bb);
		struct value r = apply(rs, c, nn, bb, &rs->inst[i], NULL, env);
		if (!prs) {
			enum value_status p =
				prev_of && prev_of[i] == DERIVE_NO_PREV ? ST_NEW : pair;
			if (r.status == ST_OK && p != ST_OK && p != ST_RESET && p != ST_WRAPPED)
				r.status = (uint8_t)p;
		}
		val[k] = r.v;
		st[k] = r.status;
	}
}

/* run_plain_loop for CT_UTILIZATION over two reads, N and B one narrow
 * term each (received and sent bytes): apply's, with where the link's
 * speed and duplex lie found once for the run rather than each value. */
static void
run_utilization(const struct raw_set *rs, const struct raw_set *prs,
		const struct counter_desc *c, const struct plain_terms *pt, size_t from,
		size_t n, const struct derive_env *env, double *val, uint8_t *st)
{
	const struct plain_terms t = *pt;
	const uint32_t *pv = prs->values, *cv = rs->values;
	size_t ps = prs->stride, cs = rs->stride;
	struct link_refs lr;

	link_refs_of(rs, &lr);
	for (size_t k = 0; k < n; k++) {
		size_t i = from + k;
		double nn, bb, bw;
		int full;
		struct value r = { 0, ST_UNSUPPORTED };

		plain_nb_of(&t, c, 1, 1, 1, pv + i * ps, cv + i * cs, &nn, &bb);
		link_at(rs, &lr, i, &bw, &full);
		if (bw > 0)
			r = settle(c, (struct value){ utilization(nn, bb, bw, full, env->dt), ST_OK });
		val[k] = r.v;
		st[k] = r.status;
	}
}

/* run_plain_loop, made for N and B of one term each (a fraction, a
 * utilization: received over sent bytes) or for any terms. */
static void
run_plain(const struct raw_set *rs, const struct raw_set *prs, const struct counter_desc *c,
	  const struct plain_terms *pt, size_t from, size_t n, const struct derive_env *env,
	  const uint32_t *prev_of, enum value_status pair, double *val, uint8_t *st)
{
	if (c->type == CT_UTILIZATION && prs && pt->nn == 1 && pt->nd == 1 && pt->narrow)
		run_utilization(rs, prs, c, pt, from, n, env, val, st);
	else if (pt->nn == 1 && pt->nd == 1 && pt->narrow)
		run_plain_loop(rs, prs, c, pt, 1, 1, 1, from, n, env, prev_of, pair, val, st);
	else if (pt->nn == 1 && pt->nd == 1)
		run_plain_loop(rs, prs, c, pt, 1, 1, 0, from, n, env, prev_of, pair, val, st);
	else if (pt->narrow)
		run_plain_loop(rs, prs, c, pt, 0, 0, 1, from, n, env, prev_of, pair, val, st);
	else
		run_plain_loop(rs, prs, c, pt, 0, 0, 0, from, n, env, prev_of, pair, val, st);
}

/* derive_run's paired loop for a rate or delta of a sum_of_fields of
 * several terms (dt > 0): what value_of gives, the deltas of its fields
 * alone formed in place. */
static void
run_sum_rate(const struct ds_reads *r, const struct counter_desc *c, size_t from, size_t n,
	     const struct derive_env *env, double *val, uint8_t *st)
{
	const struct raw_set *crs = r->crs, *prs = r->prs;
	const uint32_t *prev_of = r->ds->prev_of;
	const uint8_t *status = r->ds->status;
	unsigned nt = 0, f[COUNTER_MAX_TERMS], cs[COUNTER_MAX_TERMS], ps[COUNTER_MAX_TERMS];
	uint64_t num = 0;
	double scale = c->scale != 0 ? c->scale : 1, dt = env->dt;
	int rate = c->type != CT_DELTA;

	for (; nt < COUNTER_MAX_TERMS && c->num[nt].sign; nt++) {
		f[nt] = c->num[nt].field;
		cs[nt] = r->cslot ? r->cslot[f[nt]] : f[nt];
		ps[nt] = r->pslot ? r->pslot[f[nt]] : f[nt];
		num |= bit(f[nt]);
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = from + k, j = prev_of ? prev_of[i] : i;
		uint64_t cp = raw_present_at(crs, i);
		struct value v = { 0, ST_UNSUPPORTED };

		if (!(cp & num)) {
			/* UNSUPPORTED whatever else */
		} else if (j == DERIVE_NO_PREV) {
			v.status = ST_NEW;
		} else if (status[i] == ST_RESET) {
			v.status = ST_RESET;
		} else {
			uint64_t both = raw_present_at(prs, j) & cp;
			const uint32_t *pw = raw_words(prs, j), *cw = raw_words(crs, i);
			double sum = 0; /* in term order, as term_sum forms it */
			int terms = 0, wrapped = 0;

			for (unsigned t = 0; t < nt; t++) {
				if (!(both & bit(f[t])))
					continue;
				const struct field_desc *fd = &r->fields[f[t]];
				uint64_t a = r->narrow ? pw[ps[t]] : raw_word(prs, pw, ps[t]);
				uint64_t b = r->narrow ? cw[cs[t]] : raw_word(crs, cw, cs[t]);
				int w = 0, reset = 0;
				uint64_t delta = b >= a && !(r->gauges & bit(f[t]))
							 ? b - a
							 : field_delta(fd, a, b, prs, &prs->inst[j],
								       crs, &crs->inst[i], &r->ds->env,
								       &w, &reset);
				wrapped |= w;
				sum += (double)delta;
				terms++;
			}
			if (terms)
				v = sum_value(sum, scale, dt, rate, wrapped);
		}
		val[k] = v.v;
		st[k] = v.status;
	}
}

/* run_sum_raw's loop when every instance read every term (as
 * plain_rate_loop, its inputs in locals). */
static inline __attribute__((always_inline)) void
plain_raw_loop(const struct raw_set *rs, const struct plain_terms *pt, unsigned nt, int narrow,
	       size_t from, size_t n, double scale, const uint32_t *prev_of,
	       enum value_status pair, double *val, uint8_t *st)
{
	const struct plain_terms t = *pt;
	const uint32_t *v = rs->values;
	size_t stride = rs->stride;

	for (size_t k = 0; k < n; k++) {
		size_t i = from + k;
		val[k] = plain_sum(&t, 0, nt, narrow, 1, 0, NULL, v + i * stride) * scale;
	}
	/* the statuses at once: each the pair's, but a new instance's */
	memset(st, pair, n);
	if (prev_of)
		for (size_t k = 0; k < n; k++)
			if (prev_of[from + k] == DERIVE_NO_PREV)
				st[k] = ST_NEW;
}

/* derive_run's loop for a CT_RAW sum_of_fields: the current values' sum,
 * pair status p for each instance as value_of gives it. */
static void
run_sum_raw(const struct raw_set *rs, const struct counter_desc *c, size_t from, size_t n,
	    const uint32_t *prev_of, enum value_status pair, uint64_t all,
	    struct derive_plan *plan, double *val, uint8_t *st)
{
	unsigned nt = 0, f[COUNTER_MAX_TERMS], s[COUNTER_MAX_TERMS];
	uint64_t num = 0;
	double scale = c->scale != 0 ? c->scale : 1;
	struct plain_terms local;
	const struct plain_terms *pt = plain_terms_of(plan, c, NULL, rs, all, &local);

	/* every instance read every term, and no sum can overflow: nothing
	 * to test but whether the instance is new */
	if (pt && isfinite(0x1p64 * COUNTER_MAX_TERMS * scale)) {
		if (pt->narrow && pt->nn == 1)
			plain_raw_loop(rs, pt, 1, 1, from, n, scale, prev_of, pair, val, st);
		else
			plain_raw_loop(rs, pt, pt->nn, pt->narrow, from, n, scale, prev_of, pair,
				       val, st);
		return;
	}
	for (; nt < COUNTER_MAX_TERMS && c->num[nt].sign; nt++) {
		f[nt] = c->num[nt].field;
		s[nt] = raw_slot(rs, f[nt]);
		num |= bit(f[nt]);
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = from + k;
		uint64_t present = raw_present_at(rs, i);
		struct value v = { 0, ST_UNSUPPORTED };

		if (present & num) {
			const uint32_t *w = raw_words(rs, i);
			double sum = 0; /* in term order, as term_sum forms it */
			for (unsigned t = 0; t < nt; t++)
				if (present & bit(f[t]))
					sum += (double)raw_word(rs, w, s[t]);
			v.v = sum * scale;
			v.status = ST_OK;
			if (!isfinite(v.v)) {
				v.v = 0;
				v.status = ST_BAD_TIME;
			} else if (prev_of && prev_of[i] == DERIVE_NO_PREV) {
				v.status = ST_NEW;
			} else if (pair != ST_OK) {
				v.status = (uint8_t)pair;
			}
		}
		val[k] = v.v;
		st[k] = v.status;
	}
}

/* derive_run's paired loop for a one_field_rate counter (dt > 0): what
 * value_of gives, with the delta of that field alone formed in place. */
static void
run_one_field_rate(const struct ds_reads *r, const struct counter_desc *c, size_t from,
		   size_t n, const struct derive_env *env, double *val, uint8_t *st)
{
	const struct raw_set *crs = r->crs, *prs = r->prs;
	const uint32_t *prev_of = r->ds->prev_of;
	const uint8_t *status = r->ds->status;
	unsigned f = c->num[0].field;
	uint64_t fb = bit(f);
	unsigned cs = r->cslot ? r->cslot[f] : f, ps = r->pslot ? r->pslot[f] : f;
	const struct field_desc *fd = &r->fields[f];
	double scale = c->scale != 0 ? c->scale : 1, dt = env->dt;
	int rate = c->type != CT_DELTA;

	for (size_t k = 0; k < n; k++) {
		size_t i = from + k, j = prev_of ? prev_of[i] : i;
		struct value v = { 0, ST_UNSUPPORTED };

		if (!(raw_present_at(crs, i) & fb)) {
			/* UNSUPPORTED whatever else */
		} else if (j == DERIVE_NO_PREV) {
			v.status = ST_NEW;
		} else if (status[i] == ST_RESET) {
			v.status = ST_RESET;
		} else if (raw_present_at(prs, j) & fb) {
			uint64_t a = r->narrow ? raw_words(prs, j)[ps] : raw_word(prs, raw_words(prs, j), ps);
			uint64_t b = r->narrow ? raw_words(crs, i)[cs] : raw_word(crs, raw_words(crs, i), cs);
			int wrapped = 0, reset = 0;
			uint64_t delta = b >= a && !(r->gauges & fb)
						 ? b - a
						 : field_delta(fd, a, b, prs, &prs->inst[j], crs,
							       &crs->inst[i], &r->ds->env, &wrapped,
							       &reset);
			double sum = 0;
			sum += (double)delta; /* as term_sum forms it */
			v = sum_value(sum, scale, dt, rate, wrapped);
		}
		val[k] = v.v;
		st[k] = v.status;
	}
}

void
derive_run(const struct derive_span *sp, const struct counter_desc *c, uint64_t need,
	   size_t from, const struct derive_env *env, double *val, uint8_t *st)
{
	const struct raw_set *rs = sp->rs;
	struct value v;

	/* a snapshot or a first read forms no delta; nor does a one-read type */
	if (!sp->ds || sp->first || !counter_type_needs_two(c->type)) {
		enum value_status pair = !sp->ds ? ST_OK : sp->first ? ST_FIRST : ST_OK;
		const uint32_t *prev_of = sp->ds && !sp->first ? sp->ds->prev_of : NULL;
		struct plain_terms local;
		const struct plain_terms *pt;
		if (c->type == CT_RAW && sum_of_fields(c)) {
			run_sum_raw(rs, c, from, sp->n, prev_of, pair, sp->ds ? sp->ds->all : 0,
				    sp->plan, val, st);
			return;
		}
		if (sp->ds && !counter_type_needs_two(c->type) &&
		    (pt = plain_terms_of(sp->plan, c, NULL, rs, sp->ds->all, &local))) {
			run_plain(rs, NULL, c, pt, from, sp->n, env, prev_of, pair, val, st);
			return;
		}
		for (size_t k = 0; k < sp->n; k++) {
			size_t i = from + k;
			enum value_status p = prev_of && prev_of[i] == DERIVE_NO_PREV ? ST_NEW : pair;
			v = value_of(rs, c, &rs->inst[i], NULL, p, env);
			val[k] = v.v;
			st[k] = v.status;
		}
		return;
	}
	const uint32_t *prev_of = sp->ds->prev_of;
	uint64_t words[SET_MAX_FIELDS];
	struct field_deltas d;
	struct ds_reads r;

	struct plain_terms local;
	const struct plain_terms *pt;
	if (sp->ds->plain && env->dt > 0 &&
	    (pt = plain_terms_of(sp->plan, c, sp->ds->prev, sp->ds->cur, sp->ds->both, &local))) {
		if ((c->type == CT_RATE || c->type == CT_QUEUELEN || c->type == CT_DELTA) &&
		    pt->simple && !pt->gauge)
			run_plain_rate(sp->ds, c, pt, from, sp->n, env, val, st);
		else
			run_plain(rs, sp->ds->prev, c, pt, from, sp->n, env, NULL, ST_OK, val,
				  st);
		return;
	}
	ds_reads_init(&r, sp->ds);
	if (one_field_rate(c) && env->dt > 0) {
		run_one_field_rate(&r, c, from, sp->n, env, val, st);
		return;
	}
	if ((c->type == CT_RATE || c->type == CT_QUEUELEN || c->type == CT_DELTA) &&
	    sum_of_fields(c) && env->dt > 0) {
		run_sum_rate(&r, c, from, sp->n, env, val, st);
		return;
	}
	for (size_t k = 0; k < sp->n; k++) {
		size_t i = from + k;
		if (prev_of && prev_of[i] == DERIVE_NO_PREV) {
			v = value_of(rs, c, &rs->inst[i], NULL, ST_NEW, env);
		} else {
			ds_get(&r, i, need, words, &d);
			v = value_of(rs, c, &rs->inst[i], &d, ST_OK, env);
		}
		val[k] = v.v;
		st[k] = v.status;
	}
}

/* The running sums of a total (derive_total, derive_total_span). */
struct total_acc {
	double sn, sb;
	size_t n, used, supplied, resets, fresh, lacking;
	int wrapped, any_new, any_first;
	uint8_t first_pair;
};

/* Add one instance: cur with its deltas (NULL without a usable pair, whose
 * status is pair). */
static inline __attribute__((always_inline)) void
total_add(struct total_acc *a, const struct raw_set *rs, const struct counter_desc *c, int two,
	  const struct raw_instance *cur, const struct field_deltas *deltas, uint8_t pair,
	  const struct derive_env *env)
{
	struct nb nb;

	if (a->n++ == 0)
		a->first_pair = pair;
	a->any_new |= pair == ST_NEW;
	a->any_first |= pair == ST_FIRST;
	if (!num_present(c, raw_present(rs, cur)))
		return;
	a->supplied++;
	if (two) {
		if (!deltas) {
			if (pair == ST_FIRST || pair == ST_NEW)
				a->fresh++;
			return;
		}
		if (!(env->dt > 0))
			return; /* BAD_TIME below, whatever the pair says */
		if (deltas->status == ST_RESET) {
			a->resets++;
			return;
		}
	}
	if (instance_nb(rs, c, cur, two ? deltas : NULL, &nb) < 0 || unsupported(c, &nb)) {
		a->lacking++; /* e.g. a denominator the source lacks */
		return;
	}
	a->sn += nb.n;
	a->sb += nb.b;
	a->wrapped |= nb.wrapped;
	a->used++;
}

/* The total's value and status from its sums. */
static struct value
total_end(const struct raw_set *rs, const struct counter_desc *c, int two,
	  struct total_acc *a, const struct derive_env *env)
{
	struct value r = { 0, ST_NO_INSTANCE };

	if (a->n == 0)
		return r;
	if (a->supplied == 0) {
		r.status = ST_UNSUPPORTED;
		return r;
	}
	if (a->used == 0) {
		if (!two || a->lacking == a->supplied)
			r.status = ST_UNSUPPORTED;
		else if (a->fresh == a->supplied)
			/* Nothing has a previous read: FIRST anywhere, else NEW
			 * anywhere, else a snapshot (the instances say OK). */
			r.status = a->any_first ? ST_FIRST
				 : a->any_new	? ST_NEW
				 : a->first_pair == ST_OK ? ST_BAD_TIME
							  : ST_FIRST;
		else if (a->resets)
			r.status = ST_RESET;
		else
			r.status = ST_BAD_TIME;
		return r;
	}
	if (two && !(env->dt > 0)) {
		r.status = ST_BAD_TIME;
		return r;
	}
	if (c->total == TOTAL_MEAN) {
		a->sn /= (double)a->used;
		a->sb /= (double)a->used;
	}
	r = apply(rs, c, a->sn, a->sb, NULL, NULL, env);
	if (r.status == ST_OK && a->wrapped)
		r.status = ST_WRAPPED;
	return r;
}

/* A type no total is formed for: UNSUPPORTED over instances, else none. */
static int
no_total(const struct counter_desc *c)
{
	return c->type == CT_UTILIZATION || c->type == CT_ELAPSED;
}

struct value
derive_total(const struct raw_set *rs, const struct counter_desc *c,
	     const struct raw_instance *const *cur, const struct field_deltas *const *deltas,
	     const uint8_t *pair_status, size_t n, const struct derive_env *env)
{
	struct total_acc a = { 0 };
	int two = counter_type_needs_two(c->type);

	if (no_total(c))
		return (struct value){ 0, n ? ST_UNSUPPORTED : ST_NO_INSTANCE };
	for (size_t i = 0; i < n; i++)
		total_add(&a, rs, c, two, cur[i], deltas[i], pair_status[i], env);
	return total_end(rs, c, two, &a, env);
}

/* Instance i's pair status in a span: ST_FIRST without a previous read,
 * ST_NEW for an instance the previous read did not have, else ST_OK. */
static inline uint8_t
span_pair(const struct derive_span *sp, size_t i)
{
	if (sp->first)
		return ST_FIRST;
	if (sp->ds && sp->ds->prev_of && sp->ds->prev_of[i] == DERIVE_NO_PREV)
		return ST_NEW;
	return ST_OK;
}

/* Add instance i of a span to a; nonzero when the total needs no more. */
static inline __attribute__((always_inline)) int
span_add(struct total_acc *a, const struct derive_span *sp, struct ds_reads *r,
	 const struct counter_desc *c, int two, uint64_t need, uint64_t *words, size_t i,
	 size_t *n, const struct derive_env *env)
{
	if (sp->in_total && !raw_in_total_at(sp->rs, i))
		return 0;
	(*n)++;
	if (no_total(c))
		return 1;
	struct field_deltas d;
	uint8_t pair = span_pair(sp, i);
	int paired = two && sp->ds && pair == ST_OK; /* a one-read type reads none */
	if (paired)
		ds_get(r, i, need, words, &d);
	total_add(a, sp->rs, c, two, &sp->rs->inst[i], paired ? &d : NULL, pair, env);
	return 0;
}

/* Add instance i to a plain total: its N and B, from prev's words pv
 * (NULL: of current values) to cur's cv, when in_total is NULL or says
 * so. */
static inline __attribute__((always_inline)) void
plain_add(const struct plain_terms *pt, const struct counter_desc *c, unsigned nt, int narrow,
	  int simple, const uint32_t *pv, size_t ps, const uint32_t *cv, size_t cs,
	  const uint8_t *in_total, size_t i, size_t *n, double *sn, double *sb)
{
	if (in_total && !(in_total[i >> 3] >> (i & 7) & 1))
		return;
	(*n)++;
	if (simple) {
		*sn += plain_sum(pt, 0, nt, narrow, 1, pv != NULL, pv ? pv + i * ps : NULL,
				 cv + i * cs);
		return;
	}
	double nn, bb;
	plain_nb(pt, c, pv ? pv + i * ps : NULL, cv + i * cs, &nn, &bb);
	*sn += nn;
	*sb += bb;
}

/* plain_total's walk of a span's instances in its order: n of them in
 * _Total, their N and B added in sn and sb (two: of deltas). simple: N is
 * a plain_sum of nt terms (no B). */
static inline __attribute__((always_inline)) void
plain_walk(const struct derive_span *sp, const struct plain_terms *pt,
	   const struct counter_desc *c, unsigned nt, int narrow, int simple, int two, size_t *n,
	   double *sn, double *sb)
{
	const struct plain_terms *t = pt; /* the caller's local copy */
	const uint32_t *pv = two ? sp->ds->prev->values : NULL, *cv = sp->rs->values;
	size_t ps = two ? sp->ds->prev->stride : 0, cs = sp->rs->stride;
	const uint8_t *in = sp->in_total ? sp->rs->in_total : NULL;
	size_t cnt = 0;
	double sumn = 0, sumb = 0;

	if (sp->runs) {
		for (size_t q = 0; q < sp->n; q++)
			for (uint32_t j = 0; j < sp->runs[q].n; j++)
				plain_add(t, c, nt, narrow, simple, pv, ps, cv, cs, in,
					  (size_t)sp->runs[q].start + (size_t)j * sp->runs[q].stride,
					  &cnt, &sumn, &sumb);
	} else if (sp->idx) {
		for (size_t k = 0; k < sp->n; k++)
			plain_add(t, c, nt, narrow, simple, pv, ps, cv, cs, in, sp->idx[k], &cnt,
				  &sumn, &sumb);
	} else {
		/* eight instances a byte of in_total: a whole byte all in
		 * _Total is added without a test, one all out (virtual
		 * interfaces) passed over (the last byte's bits past the
		 * instances are not set: it is tested bit by bit) */
		for (size_t k = 0; k < sp->n;) {
			size_t end = k + 8 < sp->n ? k + 8 : sp->n;
			int whole = end == k + 8;
			uint64_t none;
			/* sixty-four out at once (a namespace of veths) */
			if (in && k + 64 <= sp->n && (memcpy(&none, in + (k >> 3), 8), none == 0)) {
				k += 64;
				continue;
			}
			if (in && whole && in[k >> 3] == 0) {
				k = end;
				continue;
			}
			const uint8_t *byte_in = in && (!whole || in[k >> 3] != 0xFF) ? in : NULL;
			for (; k < end; k++)
				plain_add(t, c, nt, narrow, simple, pv, ps, cv, cs, byte_in, k,
					  &cnt, &sumn, &sumb);
		}
	}
	*n = cnt;
	*sn = sumn;
	*sb = sumb;
}

/* The terms plain_total takes for a total of c over sp: those of a counter
 * whose fields every instance read (both times, of a plain pair, for a
 * type of two reads with dt > 0), else NULL. */
static const struct plain_terms *
plain_total_terms(const struct counter_desc *c, const struct derive_span *sp,
		  const struct derive_env *env, struct plain_terms *local)
{
	const struct delta_store *ds = sp->ds;

	if (!ds || ds->cur != sp->rs || no_total(c))
		return NULL;
	if (counter_type_needs_two(c->type))
		return sp->first || !ds->plain || !(env->dt > 0)
			       ? NULL
			       : plain_terms_of(sp->plan, c, ds->prev, sp->rs, ds->both, local);
	return plain_terms_of(sp->plan, c, NULL, sp->rs, ds->all, local);
}

/* A plain total from its sums: N and B summed over the n instances in
 * _Total (none: NO_INSTANCE), a MEAN total's divided by n, then c's
 * formula (plain_total's and derive_small_run's end). */
static inline __attribute__((always_inline)) struct value
plain_total_of(const struct raw_set *rs, const struct counter_desc *c, size_t n, double sn,
	       double sb, const struct derive_env *env)
{
	if (n == 0)
		return (struct value){ 0, ST_NO_INSTANCE };
	if (c->total == TOTAL_MEAN) {
		sn /= (double)n;
		sb /= (double)n;
	}
	return apply(rs, c, sn, sb, NULL, NULL, env);
}

/* The total over sp of a counter plain_total_terms gave pt for (a local
 * copy): what total_add and total_end give, with nothing to test but
 * _Total's membership. */
static inline __attribute__((always_inline)) struct value
plain_total(const struct counter_desc *c, const struct derive_span *sp,
	    const struct plain_terms *pt, const struct derive_env *env)
{
	int two = counter_type_needs_two(c->type);
	size_t n = 0;
	double sn = 0, sb = 0;

	if (pt->simple && (!two || !pt->gauge)) {
		if (pt->narrow && pt->nn == 1 && two)
			plain_walk(sp, pt, c, 1, 1, 1, 1, &n, &sn, &sb);
		else if (pt->narrow && pt->nn == 1)
			plain_walk(sp, pt, c, 1, 1, 1, 0, &n, &sn, &sb);
		else
			plain_walk(sp, pt, c, pt->nn, pt->narrow, 1, two, &n, &sn, &sb);
	} else {
		plain_walk(sp, pt, c, 0, 0, 0, two, &n, &sn, &sb);
	}
	return plain_total_of(sp->rs, c, n, sn, sb, env);
}

GC_HOT int
derive_small_run(const struct delta_store *ds, const struct counter_desc *c,
		 struct derive_plan *plan, const struct derive_env *env, double *val, uint8_t *st,
		 double *tval, uint8_t *tst)
{
	const struct raw_set *crs = ds->cur, *prs = ds->prev;
	size_t n = crs->ninstances;
	int two = counter_type_needs_two(c->type);

	if (!ds->plain || !(env->dt > 0) || n == 0 || n > DERIVE_SMALL_RUN || !plan)
		return 0;
	const struct plain_terms *pt =
		plain_terms_of(plan, c, two ? prs : NULL, crs, two ? ds->both : ds->all, NULL);
	if (!pt)
		return 0;
	const uint32_t *pv = two ? prs->values : NULL, *cv = crs->values;
	size_t ps = prs->stride, cs = crs->stride, used = 0;
	double sn = 0, sb = 0;

	/* pt itself, not a copy (plain_rate_loop's): for a few instances
	 * the copy cost more than the loads it spares */
	for (size_t i = 0; i < n; i++) {
		double nn, bb;
		plain_nb(pt, c, pv ? pv + i * ps : NULL, cv + i * cs, &nn, &bb);
		struct value v = apply(crs, c, nn, bb, &crs->inst[i], NULL, env);
		val[i] = v.v;
		st[i] = v.status;
		if (raw_in_total_at(crs, i)) { /* in index order, as plain_walk adds */
			sn += nn;
			sb += bb;
			used++;
		}
	}
	if (!tval)
		return 1;
	struct value v = used && no_total(c) ? (struct value){ 0, ST_UNSUPPORTED }
					     : plain_total_of(crs, c, used, sn, sb, env);
	*tval = v.v;
	*tst = v.status;
	return 1;
}

void
derive_total_spans(const struct counter_desc *c, const struct derive_span *sp, size_t n,
		   const struct derive_env *env, double *val, uint8_t *st)
{
	struct plain_terms local;
	const struct plain_terms *pt = n ? plain_total_terms(c, sp, env, &local) : NULL;

	if (pt) {
		const struct plain_terms t = *pt; /* see plain_rate_loop */
		for (size_t k = 0; k < n; k++) {
			struct value v = plain_total(c, &sp[k], &t, env);
			val[k] = v.v;
			st[k] = v.status;
		}
		return;
	}
	for (size_t k = 0; k < n; k++) {
		struct value v = derive_total_span(c, &sp[k], env);
		val[k] = v.v;
		st[k] = v.status;
	}
}

struct value
derive_total_span(const struct counter_desc *c,
		  const struct derive_span *sp, const struct derive_env *env)
{
	struct plain_terms local;
	const struct plain_terms *pt = plain_total_terms(c, sp, env, &local);
	if (pt) {
		const struct plain_terms t = *pt; /* see plain_rate_loop */
		return plain_total(c, sp, &t, env);
	}
	struct total_acc a = { 0 };
	int two = counter_type_needs_two(c->type), stop = 0;
	uint64_t need = counter_fields(c), words[SET_MAX_FIELDS];
	size_t n = 0;

	struct ds_reads r = { 0 };
	if (sp->ds)
		ds_reads_init(&r, sp->ds);
	if (sp->runs) {
		for (size_t q = 0; q < sp->n && !stop; q++) {
			const struct idx_run *run = &sp->runs[q];
			for (uint32_t j = 0; j < run->n && !stop; j++)
				stop = span_add(&a, sp, &r, c, two, need, words,
						(size_t)run->start + (size_t)j * run->stride, &n, env);
		}
	} else {
		for (size_t k = 0; k < sp->n && !stop; k++)
			stop = span_add(&a, sp, &r, c, two, need, words, sp->idx ? sp->idx[k] : k,
					&n, env);
	}
	if (no_total(c))
		return (struct value){ 0, n ? ST_UNSUPPORTED : ST_NO_INSTANCE };
	return total_end(sp->rs, c, two, &a, env);
}
