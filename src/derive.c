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

int
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
	if (prev->identity != cur->identity) {
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
	if (prev->identity == cur->identity) {
		const struct field_desc *fields = crs->set->fields;
		size_t j = (size_t)(prev - prs->inst), i = (size_t)(cur - crs->inst);
		const uint32_t *pw = raw_words(prs, j), *cw = raw_words(crs, i);
		const uint8_t *pslot = prs->slot, *cslot = crs->slot;
		int narrow = !prs->wide && !crs->wide;
		uint64_t m = raw_present_at(prs, j) & raw_present_at(crs, i);

		for (; m; m &= m - 1) {
			unsigned f = (unsigned)__builtin_ctzll(m);
			if (fields[f].kind == FK_GAUGE)
				continue;
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

/* A delta store's reads, looked up once for many instances. */
struct ds_reads {
	const struct delta_store *ds;
	const struct raw_set *crs, *prs;
	const struct field_desc *fields;
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
		if (b >= a && r->fields[f].kind != FK_GAUGE) { /* the usual case */
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
		/* num: received bytes; den: sent bytes; bandwidth from the
		 * set's speed field (Mbit/s), duplex from its duplex field. */
		double bw = 0;
		int full = 0;
		if (cur && rs->set->speed_field) {
			unsigned f = rs->set->speed_field - 1u;
			uint64_t speed = (raw_present(rs, cur) & bit(f)) ? raw_get(rs, cur, f) : 0;
			if (speed > 0 && speed < 0xFFFFFFFFu)
				bw = (double)speed * 1e6;
		}
		if (cur && rs->set->duplex_field) {
			unsigned f = rs->set->duplex_field - 1u;
			full = (raw_present(rs, cur) & bit(f)) && raw_get(rs, cur, f) == 1;
		}
		if (bw <= 0) {
			r.status = ST_UNSUPPORTED;
			return r;
		}
		double bytes = full ? (n > b ? n : b) : n + b;
		r.v = 100.0 * bytes * 8.0 / (dt * bw);
		break;
	}
	}
	(void)deltas;
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
				uint64_t delta = b >= a && fd->kind != FK_GAUGE
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

/* derive_run's loop for a CT_RAW sum_of_fields: the current values' sum,
 * pair status p for each instance as value_of gives it. */
static void
run_sum_raw(const struct raw_set *rs, const struct counter_desc *c, size_t from, size_t n,
	    const uint32_t *prev_of, enum value_status pair, double *val, uint8_t *st)
{
	unsigned nt = 0, f[COUNTER_MAX_TERMS], s[COUNTER_MAX_TERMS];
	uint64_t num = 0;
	double scale = c->scale != 0 ? c->scale : 1;

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
			uint64_t delta = b >= a && fd->kind != FK_GAUGE
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
		if (c->type == CT_RAW && sum_of_fields(c)) {
			run_sum_raw(rs, c, from, sp->n, prev_of, pair, val, st);
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

struct value
derive_total_span(const struct counter_desc *c,
		  const struct derive_span *sp, const struct derive_env *env)
{
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
