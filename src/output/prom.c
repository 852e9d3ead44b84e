/*
 * prom.c - the Prometheus text 0.0.4 / OpenMetrics 1.0.0 exposition of a raw
 * sample (issue 9). Raw fields are exported, not derived counters; one rule
 * names them: getcounter_<set>_<stem>_<unit>[_total], "_total" iff a
 * counter, base units only. The per-field metadata is the table below,
 * keyed by set and field name (zero rows = not exported).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "prom.h"
#include "util.h"

#define KB 1024.0
#define SECTOR 512.0
#define MS 0.001

/* The exported fields. Processor's time fields share one name and differ
 * by the mode label. */
static const struct prom_field table[] = {
	{ "Processor", "user", "time", "seconds", PROM_SCALE_TICKS, 1, "user",
	  "CPU time spent in each mode." },
	{ "Processor", "nice", "time", "seconds", PROM_SCALE_TICKS, 1, "nice", NULL },
	{ "Processor", "system", "time", "seconds", PROM_SCALE_TICKS, 1, "system", NULL },
	{ "Processor", "idle", "time", "seconds", PROM_SCALE_TICKS, 1, "idle", NULL },
	{ "Processor", "iowait", "time", "seconds", PROM_SCALE_TICKS, 1, "iowait", NULL },
	{ "Processor", "irq", "time", "seconds", PROM_SCALE_TICKS, 1, "irq", NULL },
	{ "Processor", "softirq", "time", "seconds", PROM_SCALE_TICKS, 1, "softirq", NULL },
	{ "Processor", "steal", "time", "seconds", PROM_SCALE_TICKS, 1, "steal", NULL },
	{ "Processor", "guest", "guest_time", "seconds", PROM_SCALE_TICKS, 1, "guest",
	  "CPU time spent running guests, also counted in user and nice." },
	{ "Processor", "guest_nice", "guest_time", "seconds", PROM_SCALE_TICKS, 1, "guest_nice",
	  NULL },
	{ "Memory", "MemFree", "free", "bytes", KB, 0, NULL, "Memory not used at all." },
	{ "Memory", "MemAvailable", "available", "bytes", KB, 0, NULL,
	  "Memory available to new work without swapping." },
	{ "Memory", "Buffers", "buffers", "bytes", KB, 0, NULL, "Memory in block buffers." },
	{ "Memory", "Cached", "cached", "bytes", KB, 0, NULL, "Memory in the page cache." },
	{ "Memory", "SwapTotal", "swap_size", "bytes", KB, 0, NULL, "Size of all swap space." },
	{ "Memory", "SwapFree", "swap_free", "bytes", KB, 0, NULL, "Unused swap space." },
	{ "Memory", "CommitLimit", "commit_limit", "bytes", KB, 0, NULL,
	  "Memory that can be committed without overcommit." },
	{ "Memory", "Committed_AS", "committed", "bytes", KB, 0, NULL,
	  "Memory committed to all processes." },
	{ "Memory", "pgfault", "page_faults", "", 0, 1, NULL, "Page faults, minor and major." },
	{ "Memory", "pgmajfault", "major_page_faults", "", 0, 1, NULL,
	  "Page faults that needed a read from disk." },
	{ "Network Adapter", "rx_bytes", "received", "bytes", 0, 1, NULL,
	  "Bytes received by the interface." },
	{ "Network Adapter", "tx_bytes", "sent", "bytes", 0, 1, NULL,
	  "Bytes sent by the interface." },
	{ "Network Adapter", "rx_packets", "received_packets", "", 0, 1, NULL,
	  "Packets received by the interface." },
	{ "Network Adapter", "tx_packets", "sent_packets", "", 0, 1, NULL,
	  "Packets sent by the interface." },
	{ "Network Adapter", "rx_errors", "receive_errors", "", 0, 1, NULL,
	  "Received packets with errors." },
	{ "Network Adapter", "tx_errors", "send_errors", "", 0, 1, NULL,
	  "Packets that could not be sent because of errors." },
	{ "Network Adapter", "rx_dropped", "receive_dropped", "", 0, 1, NULL,
	  "Received packets dropped." },
	{ "Network Adapter", "tx_dropped", "send_dropped", "", 0, 1, NULL,
	  "Outgoing packets dropped." },
	{ "PhysicalDisk", "reads", "reads", "", 0, 1, NULL, "Read requests completed." },
	{ "PhysicalDisk", "writes", "writes", "", 0, 1, NULL, "Write requests completed." },
	{ "PhysicalDisk", "sectors read", "read", "bytes", SECTOR, 1, NULL, "Bytes read." },
	{ "PhysicalDisk", "sectors written", "written", "bytes", SECTOR, 1, NULL,
	  "Bytes written." },
	{ "PhysicalDisk", "ms reading", "read_time", "seconds", MS, 1, NULL,
	  "Time spent on reads, summed over requests." },
	{ "PhysicalDisk", "ms writing", "write_time", "seconds", MS, 1, NULL,
	  "Time spent on writes, summed over requests." },
	{ "PhysicalDisk", "I/Os in progress", "io_in_progress", "", 0, 0, NULL,
	  "Requests in flight now." },
	{ "PhysicalDisk", "io_ticks", "io_time", "seconds", MS, 1, NULL,
	  "Time the device had requests in flight." },
	{ "PhysicalDisk", "time_in_queue", "io_time_weighted", "seconds", MS, 1, NULL,
	  "Time spent on requests, weighted by requests in flight." },
};

static const char *const labels_cpu[] = { "cpu", NULL };
static const char *const labels_device[] = { "device", NULL };
static const char *const labels_none[] = { NULL };

/* Look up the table row of field fname of set sname. */
const struct prom_field *
prom_field_find(const char *sname, const char *fname)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].set, sname) && !strcmp(table[i].field, fname))
			return &table[i];
	return NULL;
}

/* The whole table. */
const struct prom_field *
prom_fields(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

/* The instance labels a set declares. */
const char *const *
prom_set_labels(const char *sname)
{
	if (!strcmp(sname, "Processor"))
		return labels_cpu;
	if (!strcmp(sname, "Network Adapter") || !strcmp(sname, "PhysicalDisk"))
		return labels_device;
	return labels_none;
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
prom_name(char *buf, size_t n, const struct prom_field *pf, int family)
{
	char set[64];
	int len;

	if (prom_set_name(set, sizeof(set), pf->set) < 0)
		return -1;
	len = snprintf(buf, n, "getcounter_%s_%s%s%s%s", set, pf->stem, *pf->unit ? "_" : "",
		       pf->unit, pf->counter && !family ? "_total" : "");
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

/* Append a label value, escaping \, " and newline. */
void
prom_buf_escape(struct prom_buf *b, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\')
			prom_buf_puts(b, "\\\\", 2);
		else if (*v == '"')
			prom_buf_puts(b, "\\\"", 2);
		else if (*v == '\n')
			prom_buf_puts(b, "\\n", 2);
		else
			prom_buf_puts(b, v, 1);
	}
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
	    s->last <= 0xffffffffu)
		s->high += (uint64_t)1 << 32;
	else if (kind == FK_COUNTER && v < s->last)
		s->high = 0; /* a real reset: let the value drop */
	s->last = v;
	out = v + s->high;
	return out;
}

/* The shortest of %.15g / %.17g that reads back as d. */
static int
fmt_double(char *num, size_t n, double d)
{
	int len = snprintf(num, n, "%.15g", d);

	if (strtod(num, NULL) != d)
		len = snprintf(num, n, "%.17g", d);
	return len;
}

/* Append a value in base units. */
static void
put_value(struct prom_buf *b, const struct prom_field *pf, uint64_t v, uint32_t user_hz)
{
	char num[40];
	int len;

	if (pf->scale == 0 || pf->scale == 1)
		len = snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	else if (pf->scale == PROM_SCALE_TICKS)
		len = fmt_double(num, sizeof(num), (double)v / (user_hz ? user_hz : 100));
	else
		len = fmt_double(num, sizeof(num), (double)v * pf->scale);
	prom_buf_puts(b, num, (size_t)len);
}

/* Append {labels} for instance name under the set's labels and pf's mode. */
static void
put_labels(struct prom_buf *b, const char *const *labels, const char *inst,
	   const struct prom_field *pf)
{
	int any = 0;

	if (labels[0]) {
		buf_str(b, "{");
		buf_str(b, labels[0]);
		buf_str(b, "=\"");
		prom_buf_escape(b, inst);
		buf_str(b, "\"");
		any = 1;
	}
	if (pf->mode) {
		buf_str(b, any ? "," : "{");
		buf_str(b, "mode=\"");
		prom_buf_escape(b, pf->mode);
		buf_str(b, "\"");
		any = 1;
	}
	if (any)
		buf_str(b, "}");
}

/* Every family, in table order, with its samples. */
size_t
prom_format_set(struct prom_buf *b, const struct raw_set *rs, uint32_t user_hz, int openmetrics,
		int (*keep)(void *arg, const char *inst), void *arg)
{
	const struct counter_set *cs = rs->set;
	const char *const *labels = prom_set_labels(cs->name);
	const struct prom_field *prev = NULL;
	size_t nsamples = 0;
	char name[128];

	if (!rs->valid || !strcmp(cs->name, "Processor Information"))
		return 0;
	for (size_t t = 0; t < sizeof(table) / sizeof(table[0]); t++) {
		const struct prom_field *pf = &table[t];
		size_t f;

		if (strcmp(pf->set, cs->name))
			continue;
		for (f = 0; f < cs->nfields; f++)
			if (!strcmp(cs->fields[f].name, pf->field))
				break;
		if (f == cs->nfields)
			continue;
		if (!prev || strcmp(prev->stem, pf->stem)) {
			prom_name(name, sizeof(name), pf, openmetrics);
			if (pf->help) {
				buf_str(b, "# HELP ");
				buf_str(b, name);
				buf_str(b, " ");
				buf_str(b, pf->help);
				buf_str(b, "\n");
			}
			buf_str(b, "# TYPE ");
			buf_str(b, name);
			buf_str(b, pf->counter ? " counter\n" : " gauge\n");
			if (openmetrics && *pf->unit) {
				buf_str(b, "# UNIT ");
				buf_str(b, name);
				buf_str(b, " ");
				buf_str(b, pf->unit);
				buf_str(b, "\n");
			}
		}
		prev = pf;
		prom_name(name, sizeof(name), pf, 0);
		for (size_t i = 0; i < rs->ninstances; i++) {
			const struct raw_instance *ri = &rs->inst[i];

			if (!(ri->present & ((uint64_t)1 << f)) || !strcmp(ri->name, "_Total") ||
			    (keep && !keep(arg, ri->name)))
				continue;
			buf_str(b, name);
			put_labels(b, labels, ri->name, pf);
			buf_str(b, " ");
			put_value(b, pf, ri->values[f], user_hz);
			buf_str(b, "\n");
			nsamples++;
		}
	}
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
prom_parse_sample(const char *line, const struct prom_field **pf, char *inst, size_t n,
		  uint64_t *raw, uint32_t user_hz)
{
	char name[128], mode[256] = "", lname[32], val[256];
	const char *p = line;
	size_t len = strcspn(p, "{ ");
	double v;

	if (len >= sizeof(name) || *line == '#')
		return -1;
	memcpy(name, p, len);
	name[len] = 0;
	p += len;
	inst[0] = 0;
	if (*p == '{') {
		p++;
		while (*p && *p != '}') {
			size_t ln = strcspn(p, "=");

			if (ln >= sizeof(lname) || !p[ln])
				return -1;
			memcpy(lname, p, ln);
			lname[ln] = 0;
			p = parse_quoted(p + ln + 1, val, sizeof(val));
			if (!p)
				return -1;
			if (!strcmp(lname, "mode"))
				memcpy(mode, val, sizeof(mode));
			else if (snprintf(inst, n, "%s", val) >= (int)n)
				return -1;
			if (*p == ',')
				p++;
		}
		if (*p++ != '}')
			return -1;
	}
	v = strtod(skip_ws(p), NULL);
	for (size_t t = 0; t < sizeof(table) / sizeof(table[0]); t++) {
		char tn[128];

		if (prom_name(tn, sizeof(tn), &table[t], 0) < 0 || strcmp(tn, name))
			continue;
		if (table[t].mode && strcmp(table[t].mode, mode))
			continue;
		*pf = &table[t];
		if (table[t].scale == PROM_SCALE_TICKS)
			v *= user_hz ? user_hz : 100;
		else if (table[t].scale != 0)
			v /= table[t].scale;
		*raw = (uint64_t)(v + 0.5);
		return 0;
	}
	return -1;
}
