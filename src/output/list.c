/*
 * list.c - the list output, Get-Counter's layout: a Timestamp line, then
 * for each row its path followed by " :" and, on the next line, indented,
 * its value or the status word when it has none; a blank line between
 * samples. With opts->summary, close prints each counter's minimum,
 * average and maximum.
 */
#include <stdlib.h>

#include "output.h"

#define INDENT "    "

struct list {
	FILE *out;
	int precision;
	int utc;
	int summary;
	int printed;
	struct summary sum;
	struct pathbuf pb;
};

/* Start the list on out. */
static void *
list_open(FILE *out, const struct output_opts *opts, struct err *err)
{
	struct list *l = xcalloc(1, sizeof(*l));

	(void)err;
	l->out = out;
	l->precision = opts->precision;
	l->utc = opts->utc;
	l->summary = opts->summary;
	return l;
}

/* Write one sample. */
static int
list_write(void *state, const struct frame *f, struct err *err)
{
	struct list *l = state;
	char buf[512];

	if (l->printed)
		fputc('\n', l->out);
	format_time_pdh(buf, sizeof(buf), f->wall_ns, l->utc);
	fprintf(l->out, "Timestamp: %s\n", buf);
	for (size_t i = 0; i < f->nrows; i++) {
		struct frame_row tmp;
		const struct frame_row *r = frame_row_at(f, i, &tmp);

		put_text(l->out, frame_row_path(f, r, &l->pb));
		fputs(" :\n" INDENT, l->out);
		if (frame_row_has_value(r)) {
			/* Get-Counter's list shows the value in full */
			format_double(buf, sizeof(buf), r->value, l->precision);
			fputs(buf, l->out);
		} else {
			fputs(status_name((enum value_status)r->status), l->out);
		}
		fputc('\n', l->out);
		if (l->summary)
			summary_add(&l->sum, f, r, 1);
	}
	l->printed = 1;
	return output_flush(l->out, "list", err);
}

/* Each counter's minimum, average and maximum, in the same layout. */
static void
list_summary(struct list *l)
{
	char buf[512];

	fputs("\nSummary:\n", l->out);
	for (size_t i = 0; i < l->sum.ncols; i++) {
		const struct summary_col *c = &l->sum.cols[i];

		put_text(l->out, c->path);
		fputs(" :\n" INDENT, l->out);
		if (c->n == 0) {
			fputs("no values\n", l->out);
			continue;
		}
		format_double(buf, sizeof(buf), c->min, l->precision);
		fprintf(l->out, "minimum %s", buf);
		format_double(buf, sizeof(buf), c->sum / (double)c->n, l->precision);
		fprintf(l->out, "  average %s", buf);
		format_double(buf, sizeof(buf), c->max, l->precision);
		fprintf(l->out, "  maximum %s\n", buf);
	}
}

/* Print the summary when asked, flush and free. */
static int
list_close(void *state, struct err *err)
{
	struct list *l = state;
	int ret;

	if (l->summary && l->printed)
		list_summary(l);
	ret = output_flush(l->out, "list", err);
	summary_free(&l->sum);
	free(l->pb.buf);
	free(l);
	return ret;
}

const struct output output_list = {
	.name = "list",
	.open = list_open,
	.write = list_write,
	.close = list_close,
};
