/*
 * json.c - the json output: NDJSON, one object per frame per line, with
 * every row of the frame (its path, set, instance, counter, value and
 * status). Always valid JSON: strings escaped, invalid UTF-8 replaced by
 * U+FFFD, numbers with a '.' whatever the locale, never NaN or Inf.
 */
#include <math.h>
#include <stdlib.h>

#include "output.h"

struct json {
	FILE *out;
	int precision;
	int utc;
	struct pathbuf pb;
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

/* Write s as a JSON string: quotes and backslashes escaped, control
 * characters as \u00XX, valid UTF-8 as is, each invalid byte as \ufffd. */
static void
json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;

	/* Plain runs go out in one fwrite; only what needs escaping is
	 * written piece by piece. */
	fputc('"', out);
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
		fwrite(run, 1, (size_t)(p - run), out);
		if (len == 0) {
			fputs("\\ufffd", out);
		} else if (*p == '"' || *p == '\\') {
			fputc('\\', out);
			fputc(*p, out);
		} else {
			fprintf(out, "\\u%04x", *p);
		}
		run = ++p;
	}
	fwrite(run, 1, (size_t)(p - run), out);
	fputc('"', out);
}

/* Write one frame as one line. */
static int
json_write(void *state, const struct frame *f, struct err *err)
{
	struct json *j = state;
	char buf[512];

	format_time_iso(buf, sizeof(buf), f->wall_ns, j->utc);
	fputs("{\"timestamp\": ", j->out);
	json_string(j->out, buf);
	fputs(", \"samples\": [", j->out);
	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		const struct frame_row *r = frame_row_at(f, i, &tmp);

		fputs(i ? ", {\"path\": " : "{\"path\": ", j->out);
		json_string(j->out, frame_row_path(f, r, &j->pb));
		fputs(", \"set\": ", j->out);
		json_string(j->out, r->set->name);
		fputs(", \"instance\": ", j->out);
		if (r->instance)
			json_string(j->out, r->instance);
		else
			fputs("null", j->out);
		fputs(", \"counter\": ", j->out);
		json_string(j->out, r->counter->name);
		fputs(", \"value\": ", j->out);
		if (frame_row_has_value(r) && isfinite(r->value)) {
			format_double(buf, sizeof(buf), r->value, j->precision);
			fputs(buf, j->out);
		} else {
			fputs("null", j->out);
		}
		fputs(", \"status\": ", j->out);
		json_string(j->out, status_name((enum value_status)r->status));
		fputc('}', j->out);
	}
	fputs("]}\n", j->out);
	return output_flush(j->out, "json", err);
}

/* Flush and free. */
static int
json_close(void *state, struct err *err)
{
	struct json *j = state;
	int ret = output_flush(j->out, "json", err);

	free(j->pb.buf);
	free(j);
	return ret;
}

const struct output output_json = {
	.name = "json",
	.open = json_open,
	.write = json_write,
	.close = json_close,
};
