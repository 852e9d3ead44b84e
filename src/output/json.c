/*
 * json.c - the json output: NDJSON, one object per frame per line, with
 * every row of the frame (its path, set, instance, counter, value and
 * status). Always valid JSON: strings escaped, invalid UTF-8 replaced by
 * U+FFFD, numbers with a '.' whatever the locale, never NaN or Inf.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

struct json {
	FILE *out;
	int precision;
	int utc;
	struct pathbuf pb;
	/* the line being written, kept from line to line: one fwrite a
	 * line, not a call a string, a quote or an escape */
	char *line;
	size_t len, cap;
	/* Per column, its row's text from "path" to "value" (the same all
	 * run long, as the column's path is), made when first written and
	 * copied after: forming and escaping the names again was most of a
	 * line. For the host they were made for. */
	char *frag;
	size_t frag_len, frag_cap;
	struct frag_at {
		uint32_t off, len; /* len 0: not made */
	} *at;
	size_t nat;
	char *host;
};

/* Start writing NDJSON to out. */
static void *
json_open(FILE *out, const struct output_opts *opts, struct err *err)
{
	struct json *j = xcalloc(1, sizeof(*j));

	(void)err;
	j->out = out;
	j->precision = opts->precision;
	j->utc = opts->utc;
	return j;
}

/* Room in j's line for n more bytes. */
static char *
line_room(struct json *j, size_t n)
{
	xgrow((void **)&j->line, &j->cap, j->len + n, 1);
	return j->line + j->len;
}

/* Append n bytes of s to j's line. */
static void
put(struct json *j, const char *s, size_t n)
{
	memcpy(line_room(j, n), s, n);
	j->len += n;
}

static void
put_str(struct json *j, const char *s)
{
	put(j, s, strlen(s));
}

/* Append s as a JSON string: quotes and backslashes escaped, control
 * characters as \u00XX, valid UTF-8 as is, each invalid byte as \ufffd. */
static void
json_string(struct json *j, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *run = p;

	/* plain runs copied whole; only what needs escaping piece by piece */
	put(j, "\"", 1);
	while (*p) {
		size_t len;

		if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') {
			p++;
			continue;
		}
		len = utf8_seq_len(p);
		if (*p >= 0x80 && len > 0) {
			p += len;
			continue;
		}
		put(j, (const char *)run, (size_t)(p - run));
		if (len == 0) {
			put(j, "\\ufffd", 6);
		} else if (*p == '"' || *p == '\\') {
			char esc[2] = { '\\', (char)*p };
			put(j, esc, 2);
		} else {
			char esc[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };
			put(j, esc, 6);
		}
		run = ++p;
	}
	put(j, (const char *)run, (size_t)(p - run));
	put(j, "\"", 1);
}

/* Append row r's "path", "set", "instance" and "counter" and the start of
 * its "value": its column's text, made the first time. */
static void
row_names(struct json *j, const struct frame *f, const struct frame_row *r)
{
	uint32_t col = r->column;

	if (col < j->nat && j->at[col].len) {
		put(j, j->frag + j->at[col].off, j->at[col].len);
		return;
	}
	size_t start = j->len;
	put_str(j, "\"path\": ");
	json_string(j, frame_row_path(f, r, &j->pb));
	put_str(j, ", \"set\": ");
	json_string(j, r->set->name);
	put_str(j, ", \"instance\": ");
	if (r->instance)
		json_string(j, r->instance);
	else
		put_str(j, "null");
	put_str(j, ", \"counter\": ");
	json_string(j, r->counter->name);
	put_str(j, ", \"value\": ");
	size_t n = j->len - start;
	if (j->frag_len + n > UINT32_MAX)
		return; /* past what an offset holds: formed each time */
	xgrow((void **)&j->at, &j->nat, (size_t)col + 1, sizeof(*j->at));
	xgrow((void **)&j->frag, &j->frag_cap, j->frag_len + n, 1);
	memcpy(j->frag + j->frag_len, j->line + start, n);
	j->at[col] = (struct frag_at){ (uint32_t)j->frag_len, (uint32_t)n };
	j->frag_len += n;
}

/* Write one frame as one line. */
static int
json_write(void *state, const struct frame *f, struct err *err)
{
	struct json *j = state;
	char buf[512];

	j->len = 0;
	const char *host = f->host ? f->host : "";
	if (!j->host || strcmp(j->host, host) != 0) { /* another host's paths */
		free(j->host);
		j->host = xstrdup(host);
		j->frag_len = 0;
		if (j->at)
			memset(j->at, 0, j->nat * sizeof(*j->at));
	}
	format_time_iso(buf, sizeof(buf), f->wall_ns, j->utc);
	put_str(j, "{\"timestamp\": ");
	json_string(j, buf);
	put_str(j, ", \"samples\": [");
	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		const struct frame_row *r = frame_row_at(f, i, &tmp);

		put_str(j, i ? ", {" : "{");
		row_names(j, f, r);
		if (frame_row_has_value(r) && isfinite(r->value)) {
			format_double(buf, sizeof(buf), r->value, j->precision);
			put_str(j, buf);
		} else {
			put_str(j, "null");
		}
		put_str(j, ", \"status\": ");
		json_string(j, status_name((enum value_status)r->status));
		put(j, "}", 1);
	}
	put_str(j, "]}\n");
	fwrite(j->line, 1, j->len, j->out);
	return output_flush(j->out, "json", err);
}

/* Flush and free. */
static int
json_close(void *state, struct err *err)
{
	struct json *j = state;
	int ret = output_flush(j->out, "json", err);

	free(j->pb.buf);
	free(j->line);
	free(j->frag);
	free(j->at);
	free(j->host);
	free(j);
	return ret;
}

const struct output output_json = {
	.name = "json",
	.open = json_open,
	.write = json_write,
	.close = json_close,
};
