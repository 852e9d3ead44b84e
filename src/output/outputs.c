/*
 * outputs.c - the table of outputs, one line each, and the formatting
 * helpers they share (times, zone, numbers).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "derive.h"
#include "output.h"
#include "path.h"

extern const struct output output_table;
extern const struct output output_list;
extern const struct output output_csv;
extern const struct output output_tsv;
extern const struct output output_json;

const struct output *const outputs[] = {
	&output_table, &output_list, &output_csv, &output_tsv, &output_json,
};

const size_t noutputs = ARRAY_SIZE(outputs);

const struct output *
output_find(const char *name)
{
	for (size_t i = 0; i < noutputs; i++)
		if (strcasecmp(outputs[i]->name, name) == 0)
			return outputs[i];
	return NULL;
}

const char *
frame_row_path(const struct frame *f, const struct frame_row *r, struct pathbuf *pb)
{
	const char *host = f->host ? f->host : "";
	size_t need = path_format(pb->buf, pb->cap, host, r->set->name, r->instance,
				  r->counter->name);

	if (need + 1 > pb->cap) {
		pb->cap = need + 1 > 256 ? need + 1 : 256;
		pb->buf = xrealloc(pb->buf, pb->cap);
		path_format(pb->buf, pb->cap, host, r->set->name, r->instance, r->counter->name);
	}
	return pb->buf;
}

int
frame_row_has_value(const struct frame_row *r)
{
	return value_exists(r->counter, (enum value_status)r->status);
}

static void
split_time(int64_t wall_ns, int utc, struct tm *tm, int *ms)
{
	time_t secs = (time_t)(wall_ns / 1000000000);
	int64_t rem = wall_ns % 1000000000;

	if (rem < 0) {
		rem += 1000000000;
		secs--;
	}
	*ms = (int)(rem / 1000000);
	if (utc)
		gmtime_r(&secs, tm);
	else
		localtime_r(&secs, tm);
}

void
format_time_pdh(char *buf, size_t n, int64_t wall_ns, int utc)
{
	struct tm tm;
	int ms;

	split_time(wall_ns, utc, &tm, &ms);
	snprintf(buf, n, "%02d/%02d/%04d %02d:%02d:%02d.%03d", tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

void
format_time_iso(char *buf, size_t n, int64_t wall_ns, int utc)
{
	struct tm tm;
	int ms;
	long off;

	split_time(wall_ns, utc, &tm, &ms);
	off = utc ? 0 : tm.tm_gmtoff;
	if (off == 0 && utc) {
		snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
		return;
	}
	snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03d%c%02ld:%02ld", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms,
		 off < 0 ? '-' : '+', labs(off) / 3600, labs(off) % 3600 / 60);
}

void
time_zone_at(int64_t wall_ns, int utc, char *name, size_t n, int *bias_minutes)
{
	struct tm tm;
	int ms;

	if (utc) {
		snprintf(name, n, "UTC"); /* as a machine on UTC names it */
		*bias_minutes = 0;
		return;
	}
	split_time(wall_ns, 0, &tm, &ms);
	snprintf(name, n, "%s", tm.tm_zone ? tm.tm_zone : "UTC");
	*bias_minutes = (int)(-tm.tm_gmtoff / 60);
}

/* printf's "%.*f" of v, when it can be had without printf: v * 10^precision
 * below 2^43 (so the product's rounding error is under 2^-10) and not
 * within 2^-8 of a half, where rounding to nearest could go either way and
 * printf's exact decimal expansion decides. Writes buf and returns 1, or
 * returns 0 and leaves the case to snprintf. The csv of every counter spent
 * half its time in printf's float formatting (bench, callgrind). */
static int
format_fixed_fast(char *buf, size_t n, double v, int precision)
{
	static const double pow10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	char digits[32];
	double r, f;
	uint64_t q, ip, fp, scale;
	size_t len = 0, k;
	int neg = signbit(v) != 0;

	if (precision > 9)
		return 0;
	r = fabs(v) * pow10[precision];
	if (!(r < 8796093022208.0)) /* 2^43 */
		return 0;
	f = r - floor(r);
	if (fabs(f - 0.5) < 1.0 / 256)
		return 0;
	q = (uint64_t)floor(r) + (f > 0.5);
	scale = (uint64_t)pow10[precision];
	ip = q / scale;
	fp = q % scale;
	/* the fraction's digits, then the integer's, backwards */
	for (int i = 0; i < precision; i++) {
		digits[len++] = (char)('0' + fp % 10);
		fp /= 10;
	}
	if (precision)
		digits[len++] = '.';
	do {
		digits[len++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	if (neg)
		digits[len++] = '-';
	if (len + 1 > n)
		return 0;
	for (k = 0; k < len; k++)
		buf[k] = digits[len - 1 - k];
	buf[len] = '\0';
	return 1;
}

/* The shortest "%.Pf" of v, P from 0 to 20, that strtod reads back as v:
 * what format_double's search over P finds, without a printf and a strtod
 * for each P. v's decimals come exactly from its bits (its fraction is m /
 * 2^k, k at most 69 from 1e-5 up: each decimal the integer part of ten
 * times it); each P's text is v rounded there as printf rounds (to
 * nearest, an exact half to even); and a text of at most 15 digits reads
 * back as v exactly when q / 10^P does (q its digits as an integer: both
 * exact, so the division rounds the same decimal strtod does), a longer
 * one through strtod. Writes buf and returns 1, or returns 0 when no P up
 * to 20 reads back or the locale's decimal point is not '.' (the search
 * then runs as before). The json and list of every counter spent two
 * thirds of their time in that search. */
static int
shortest_fixed(char *buf, size_t n, double v)
{
	static const double pow10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,
					1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13,
					1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20 };
	enum { P_MAX = 20 };
	double a = fabs(v);
	int e2;
	/* a = mant x 2^e2 (mant below 2^53), its integer part below 1e15 */
	uint64_t mant = (uint64_t)ldexp(frexp(a, &e2), 53), ip;
	unsigned __int128 m, one;
	unsigned k;

	e2 -= 53;
	if (a == 0) {
		ip = 0;
		m = 0;
		k = 0;
	} else if (e2 >= 0) {
		return 0; /* not below 2^53: not a's range */
	} else if (e2 > -53) {
		k = (unsigned)-e2;
		ip = mant >> k;
		m = mant & (((uint64_t)1 << k) - 1);
	} else {
		k = (unsigned)-e2;
		if (k > 100)
			return 0;
		ip = 0;
		m = mant;
	}
	one = (unsigned __int128)1 << k;
	/* the integer's digits, then P_MAX + 1 decimals and whether any
	 * after each is not 0 */
	char d[64], fd[P_MAX + 1];
	uint8_t more[P_MAX + 1];
	size_t ni = 0;
	char tmpi[24];
	do {
		tmpi[ni++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	for (size_t i = 0; i < ni; i++)
		d[1 + i] = tmpi[ni - 1 - i];
	for (size_t i = 0; i <= P_MAX; i++) {
		m *= 10;
		fd[i] = (char)('0' + (unsigned)(m >> k));
		m &= one - 1;
		more[i] = m != 0;
	}
	for (size_t p = 0; p <= P_MAX; p++) {
		size_t kd = ni + p, lead = 0;
		if (p)
			d[kd] = fd[p - 1];
		/* round at p: up past a half, to even at an exact half */
		char w[64];
		memcpy(w, d, kd + 1);
		int up = fd[p] > '5' || (fd[p] == '5' && (more[p] || ((w[kd] - '0') & 1)));
		for (size_t i = kd; up && i >= 1; i--) {
			if (w[i] == '9') {
				w[i] = '0';
			} else {
				w[i]++;
				up = 0;
			}
		}
		if (up) {
			w[0] = '1'; /* 9.96 at 1 decimal: 10.0 */
			lead = 1;
		}
		const char *digits = w + 1 - lead;
		size_t nd = kd + lead, nint = ni + lead;
		int back;
		if (nd <= 15) {
			uint64_t q = 0;
			for (size_t i = 0; i < nd; i++)
				q = q * 10 + (uint64_t)(digits[i] - '0');
			back = (double)q / pow10[p] == a;
		} else {
			char s[64];
			if (*localeconv()->decimal_point != '.')
				return 0;
			memcpy(s, digits, nint);
			s[nint] = '.';
			memcpy(s + nint + 1, digits + nint, p);
			s[nint + 1 + p] = '\0';
			back = strtod(s, NULL) == a;
		}
		if (!back)
			continue;
		size_t out = (signbit(v) ? 1 : 0) + nint + (p ? p + 1 : 0);
		if (out + 1 > n)
			return 0;
		char *o = buf;
		if (signbit(v))
			*o++ = '-';
		memcpy(o, digits, nint);
		o += nint;
		if (p) {
			*o++ = '.';
			memcpy(o, digits + nint, p);
			o += p;
		}
		*o = '\0';
		return 1;
	}
	return 0;
}

void
format_double(char *buf, size_t n, double v, int precision)
{
	char *p;

	if (!isfinite(v))
		v = 0;
	if (precision >= 0 && format_fixed_fast(buf, n, v, precision))
		return;
	if (precision < 0 && fabs(v) < 1e15 && (v == 0 || fabs(v) >= 1e-5) &&
	    shortest_fixed(buf, n, v))
		return;
	if (precision >= 0)
		snprintf(buf, n, "%.*f", precision, v);
	else
		snprintf(buf, n, "%.17g", v);
	/* Whatever LC_NUMERIC says, a decimal point is a '.'. */
	for (p = buf; *p; p++)
		if (*p == ',')
			*p = '.';
	if (precision < 0) {
		/* Shortest that reads back: try fewer digits first. strtod
		 * reads the locale's decimal point, so compare before the
		 * ',' -> '.' rewrite; 17 digits always read back. Plain
		 * decimals (50, not 5e+01) where the magnitude allows. */
		char tmp[64];
		int found = 0;
		if (fabs(v) < 1e15 && (v == 0 || fabs(v) >= 1e-5)) {
			for (int prec = 0; prec <= 20 && !found; prec++) {
				snprintf(tmp, sizeof(tmp), "%.*f", prec, v);
				found = strtod(tmp, NULL) == v;
			}
		}
		for (int prec = 1; prec < 17 && !found; prec++) {
			snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
			found = strtod(tmp, NULL) == v;
		}
		if (found) {
			for (p = tmp; *p; p++)
				if (*p == ',')
					*p = '.';
			snprintf(buf, n, "%s", tmp);
		}
	}
}

void
format_value_human(char *buf, size_t n, double v, int precision)
{
	int decimals = 2;

	if (precision >= 0) {
		format_double(buf, n, v, precision);
		return;
	}
	/* Below 1, three significant digits (a 1.5 ms latency is 0.0015,
	 * not 0.00), trailing zeros dropped down to two decimals. */
	if (v != 0 && fabs(v) < 1 && isfinite(v)) {
		decimals = 2 - (int)floor(log10(fabs(v)));
		if (decimals > 12)
			decimals = 12;
	}
	format_double(buf, n, v, decimals);
	if (decimals > 2) {
		size_t len = strlen(buf);
		char *dot = strchr(buf, '.');
		while (dot && len > (size_t)(dot - buf) + 3 && buf[len - 1] == '0')
			buf[--len] = '\0';
	}
}

/* Bytes in the UTF-8 sequence starting at s, or 0 when it is not valid
 * (overlong, surrogate, above U+10FFFF, truncated). */
size_t
utf8_seq_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1fu;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0fu;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07u;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Nonzero for a byte put_text shows as '?': C0 controls and DEL. */
static int
is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

size_t
text_columns(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t cols = 0;

	while (*p) {
		if (*p < 0x80) { /* ASCII, the usual text: a column a byte */
			p++;
			cols++;
			continue;
		}
		size_t len = utf8_seq_len(p);
		p += len ? len : 1;
		cols++;
	}
	return cols;
}

void
put_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;

	/* runs between controls in one fwrite: a call a byte was a third
	 * of the table of every counter */
	for (; *p; p++)
		if (is_control(*p)) {
			fwrite(run, 1, (size_t)(p - run), out);
			fputc('?', out);
			run = p + 1;
		}
	fwrite(run, 1, (size_t)(p - run), out);
}

/* snprintf's text, cut as it cuts, made by copies (the table forms every
 * row's name in every sample) */
void
row_short_name(char *buf, size_t n, const struct frame_row *r, int with_set)
{
	const char *inst = r->instance;
	size_t at = 0;

	if (with_set) {
		str_append(buf, n, &at, r->set->name, strlen(r->set->name));
		if (inst) {
			str_append(buf, n, &at, "(", 1);
			str_append(buf, n, &at, inst, strlen(inst));
			str_append(buf, n, &at, ")", 1);
		}
		str_append(buf, n, &at, " ", 1);
	} else if (inst) {
		str_append(buf, n, &at, inst, strlen(inst));
		str_append(buf, n, &at, " ", 1);
	}
	str_append(buf, n, &at, r->counter->name, strlen(r->counter->name));
	str_end(buf, n, at);
}

int
frame_spans_sets(const struct frame *f)
{
	struct frame_row t0, ti;

	if (f->nrows == 0)
		return 0;
	const struct counter_set *set = frame_row_at(f, 0, &t0)->set;
	for (size_t i = 1; i < f->nrows; i++)
		if (frame_row_at(f, i, &ti)->set != set)
			return 1;
	return 0;
}

void
summary_add(struct summary *s, const struct frame *f, const struct frame_row *r, int with_set)
{
	struct summary_col *c;
	char name[512];

	if (r->column >= s->nindex)
		xgrow((void **)&s->index, &s->nindex, (size_t)r->column + 1, sizeof(*s->index));
	if (s->index[r->column] == 0) {
		xgrow((void **)&s->cols, &s->cap, s->ncols + 1, sizeof(*s->cols));
		c = &s->cols[s->ncols++];
		row_short_name(name, sizeof(name), r, with_set);
		c->path = xstrdup(frame_row_path(f, r, &s->pb));
		c->name = xstrdup(name);
		c->unit = r->counter->unit ? r->counter->unit : "";
		c->column = r->column;
		s->index[r->column] = s->ncols;
	}
	c = &s->cols[s->index[r->column] - 1];
	if (!frame_row_has_value(r) || !isfinite(r->value))
		return;
	if (c->n == 0 || r->value < c->min)
		c->min = r->value;
	if (c->n == 0 || r->value > c->max)
		c->max = r->value;
	c->sum += r->value;
	c->n++;
}

const struct summary_col *
summary_find(const struct summary *s, uint32_t column)
{
	if (column >= s->nindex || s->index[column] == 0)
		return NULL;
	return &s->cols[s->index[column] - 1];
}

void
summary_free(struct summary *s)
{
	for (size_t i = 0; i < s->ncols; i++) {
		free(s->cols[i].path);
		free(s->cols[i].name);
	}
	free(s->cols);
	free(s->index);
	free(s->pb.buf);
	memset(s, 0, sizeof(*s));
}

int
output_flush(FILE *out, const char *format, struct err *err)
{
	/* a line past stdio's buffer goes out in its own fwrite, which
	 * failed before this and left the reason in errno */
	int before = ferror(out) ? errno : 0;

	errno = 0;
	if (fflush(out) == 0 && !ferror(out))
		return 0;
	if (!errno)
		errno = before;
	/* the reason only: the engine, which knows the file, says which */
	(void)format;
	return err_set(err, "%s", errno ? strerror(errno) : "write error");
}
