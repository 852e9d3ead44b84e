/*
 * serve.c - getcounter --serve (issue 9): our own listening socket handed
 * to libmicrohttpd; each GET /metrics reads one raw sample from the
 * providers under one lock, formats it (prom.c) into a reused buffer and
 * releases the lock. Beyond --serve-max-requests concurrent requests: 503.
 * A scrape deadline (X-Prometheus-Scrape-Timeout-Seconds) leaves out a set
 * that misses it; per-series unwrap state (prom_track) is all that is kept
 * between scrapes. TLS (--tls-cert, --tls-key, --tls-client-ca) and basic
 * auth (bcrypt through crypt(3)). --prometheus-rules is here too: it needs
 * the same path selection. Without libmicrohttpd the build still works and
 * --serve says so.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "procfs.h"
#include "prom.h"
#include "provider.h"
#include "sample.h"
#include "serve.h"

/* Nonzero when host can be a host name: dot-separated labels of letters,
 * digits and '-' (not at either end), at most 63 characters each, 253 in
 * all, the last not all digits (that would be an IPv4 address). */
static int
host_name_ok(const char *host)
{
	size_t len = strlen(host), label = 0;
	int digits_only = 1;

	if (len && host[len - 1] == '.')
		len--; /* a fully qualified name's final dot */
	if (len == 0 || len > 253)
		return 0;
	for (size_t i = 0; i <= len; i++) {
		unsigned char c = i < len ? (unsigned char)host[i] : '.';

		if (c == '.') {
			if (label == 0 || label > 63 || host[i - 1] == '-')
				return 0;
			if (i == len)
				return !digits_only;
			label = 0;
			digits_only = 1;
			continue;
		}
		if (!isalnum(c) && !(c == '-' && label > 0))
			return 0;
		if (!isdigit(c))
			digits_only = 0;
		label++;
	}
	return 0;
}

/* Split [ADDR:]PORT. */
int
serve_parse_listen(const char *s, char *host, size_t n, unsigned *port, struct err *err)
{
	const char *colon = strrchr(s, ':');
	const char *p = colon ? colon + 1 : s;
	char *end;
	unsigned long v;
	size_t hl;
	struct in6_addr a6;
	struct in_addr a4;

	if (!colon) {
		snprintf(host, n, "127.0.0.1");
	} else {
		const char *h = s;

		int v6 = 0;

		hl = (size_t)(colon - s);
		if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
			h++;
			hl -= 2;
			v6 = 1;
		} else if (memchr(h, ':', hl)) {
			return err_set(err, "--serve '%s': write an IPv6 address in brackets, "
					    "[::1]:PORT", s);
		}
		if (hl == 0 || hl >= n)
			return err_set(err, "--serve '%s': no address before the port", s);
		memcpy(host, h, hl);
		host[hl] = 0;
		if (v6 ? inet_pton(AF_INET6, host, &a6) != 1
		       : inet_pton(AF_INET, host, &a4) != 1 && !host_name_ok(host))
			return err_set(err, "--serve '%s': '%s' is not an %s", s, host,
				       v6 ? "IPv6 address" : "IPv4 address or a host name");
	}
	errno = 0;
	v = strtoul(p, &end, 10);
	if (!*p || *end || errno || v > 65535 || *p == '-' || *p == '+')
		return err_set(err, "--serve '%s': the port must be 0 to 65535", s);
	*port = (unsigned)v;
	return 0;
}

/* Split a counter path into its set name, instance pattern ("" none) and
 * counter pattern ("" none). */
static int
split_path(const char *path, char *set, size_t sn, char *inst, size_t in, char *ctr, size_t cn)
{
	const char *p = path, *e, *c;
	size_t len;

	if (p[0] == '\\' && p[1] == '\\') {
		p = strchr(p + 2, '\\');
		if (!p)
			return -1;
	}
	if (*p == '\\')
		p++;
	e = p + strcspn(p, "(\\");
	len = (size_t)(e - p);
	if (!len || len >= sn)
		return -1;
	memcpy(set, p, len);
	set[len] = 0;
	inst[0] = 0;
	c = e;
	if (*e == '(') {
		const char *close = strrchr(e, ')');

		if (!close || (size_t)(close - e - 1) >= in)
			return -1;
		memcpy(inst, e + 1, (size_t)(close - e - 1));
		inst[close - e - 1] = 0;
		c = close + 1;
	}
	if (*c == '\\')
		c++;
	if (strlen(c) >= cn)
		return -1;
	snprintf(ctr, cn, "%s", c);
	return 0;
}

/* The exported fields of set cs. */
static uint64_t
exported_fields(const struct counter_set *cs)
{
	uint64_t m = 0;

	for (size_t f = 0; f < cs->nfields && f < 64; f++)
		if (cs->fields[f].prom.stem)
			m |= (uint64_t)1 << f;
	return m;
}

/* What the paths select of set cs: *fields (the exported raw fields the
 * named counters need; every exported field for "*" or no paths), the
 * instance patterns (*pats, *npats: none = every instance; the caller frees
 * them) and, for --prometheus-rules, the counter patterns (*cpats). Returns
 * nonzero when the set is named. */
static int
select_set(const struct counter_set *cs, const char *const *paths, size_t npaths,
	   uint64_t *fields, char ***pats, size_t *npats, char ***cpats, size_t *ncpats)
{
	uint64_t all = exported_fields(cs);
	int named = npaths == 0, every_inst = 0;

	*fields = npaths ? 0 : all;
	*pats = NULL;
	*npats = 0;
	if (cpats) {
		*cpats = NULL;
		*ncpats = 0;
	}
	for (size_t k = 0; k < npaths; k++) {
		char set[128], inst[256], ctr[256];

		if (split_path(paths[k], set, sizeof(set), inst, sizeof(inst), ctr, sizeof(ctr)) < 0)
			continue;
		if (strcasecmp(set, cs->name) && !(cs->alias && !strcasecmp(set, cs->alias)))
			continue;
		named = 1;
		if (!ctr[0] || !strcmp(ctr, "*")) {
			*fields = all;
		} else {
			for (size_t c = 0; c < cs->ncounters; c++)
				if (glob_match_ci(ctr, cs->counters[c].name))
					*fields |= counter_fields(&cs->counters[c]) & all;
		}
		if (cpats) {
			*cpats = xrealloc(*cpats, (*ncpats + 1) * sizeof(char *));
			(*cpats)[(*ncpats)++] = xstrdup(ctr[0] ? ctr : "*");
		}
		if (!inst[0] || !strcmp(inst, "*"))
			every_inst = 1;
		else {
			*pats = xrealloc(*pats, (*npats + 1) * sizeof(char *));
			(*pats)[(*npats)++] = xstrdup(inst);
		}
	}
	/* a field exported times another (fragments x f_frsize) needs that
	 * one read too, though it is no series of its own */
	for (size_t f = 0; f < cs->nfields && f < 64; f++)
		if ((*fields >> f & 1) && cs->fields[f].prom.mul)
			*fields |= (uint64_t)1 << (cs->fields[f].prom.mul - 1);
	if (every_inst) {
		for (size_t k = 0; k < *npats; k++)
			free((*pats)[k]);
		free(*pats);
		*pats = NULL;
		*npats = 0;
	}
	return named;
}

/* Free a list of strings. */
static void
free_list(char **v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(v[k]);
	free(v);
}

/* A counter pattern list, for prom_rules_set. */
struct cpat {
	char **v;
	size_t n;
};

/* Nonzero when counter name matches one of the patterns. */
static int
want_counter(void *arg, const char *name)
{
	const struct cpat *c = arg;

	for (size_t k = 0; k < c->n; k++)
		if (glob_match_ci(c->v[k], name))
			return 1;
	return c->n == 0;
}

/* Nonzero when every path names something --serve serves: a set that is
 * exported and read at each scrape, and a counter of it that needs an
 * exported field. */
static int
check_paths(const char *const *paths, size_t npaths, struct err *err)
{
	for (size_t k = 0; k < npaths; k++) {
		char set[128], inst[256], ctr[256];
		const struct provider *p;
		uint64_t all, need = 0;

		if (split_path(paths[k], set, sizeof(set), inst, sizeof(inst), ctr, sizeof(ctr)) < 0)
			return !err_set(err, "'%s' is not a counter path (\\Set(instance)\\Counter)",
					paths[k]);
		p = provider_find(set);
		if (!p)
			return !err_set(err, "'%s': no counter set named '%s' (getcounter -l lists "
					     "them)", paths[k], set);
		if (!prom_set_exported(p->set) || !p->open)
			return !err_set(err, "'%s': %s is not served to Prometheus%s", paths[k],
					p->set->name,
					!strcasecmp(p->set->name, "Processor Information") ?
					" (it repeats Processor: use \\Processor)" :
					p->open ? "" : " (it is read per run, not per scrape)");
		all = exported_fields(p->set);
		size_t named = 0;
		for (size_t c = 0; c < p->set->ncounters; c++)
			if (!ctr[0] || glob_match_ci(ctr, p->set->counters[c].name)) {
				need |= counter_fields(&p->set->counters[c]) & all;
				named++;
			}
		if (!named)
			return !err_set(err, "no counter matches '%s' in '%s' (getcounter -q '%s' "
					     "lists them)", ctr, paths[k], p->set->name);
		if (!need)
			return !err_set(err, "'%s': none of the counters of %s it names is served "
					     "to Prometheus (getcounter --serve PORT '\\%s%s\\*' serves "
					     "what %s has)", paths[k], p->set->name, p->set->name,
					p->set->multi_instance ? "(*)" : "", p->set->name);
	}
	return 1;
}

/* The set named name, for counters that total another set's rows. */
static const struct counter_set *
find_set(const char *name)
{
	const struct provider *p = provider_find(name);

	return p ? p->set : NULL;
}

/* Write the rule groups paths select (none: every exported set) to out. */
static void
put_rules(FILE *out, const char *const *paths, size_t npaths)
{
	for (size_t i = 0; i < nproviders; i++) {
		const struct counter_set *cs = providers[i]->set;
		struct cpat c;
		char **pats;
		size_t npats;
		uint64_t fields;

		if (!prom_set_exported(cs) ||
		    !select_set(cs, paths, npaths, &fields, &pats, &npats, &c.v, &c.n))
			continue;
		free_list(pats, npats);
		prom_rules_set(out, cs, want_counter, &c, find_set);
		free_list(c.v, c.n);
	}
}

int
serve_rules(FILE *out, const char *const *paths, size_t npaths, struct err *err)
{
	if (!check_paths(paths, npaths, err))
		return 2;
	/* each path must give a rule: its counters may all be ones PromQL
	 * cannot derive (a utilization) */
	for (size_t k = 0; k < npaths; k++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		if (!f) {
			err_set(err, "cannot make the rules: %s", strerror(errno));
			return 1;
		}
		put_rules(f, paths + k, 1);
		fclose(f);
		free(text);
		if (len == 0) {
			err_set(err, "'%s': no recording rule derives its counters from the served "
				     "series", paths[k]);
			return 2;
		}
	}
	fputs("# Prometheus recording rules: getcounter's counters derived from the raw\n"
	      "# series of getcounter --serve (getcounter --prometheus-rules).\n"
	      "groups:\n", out);
	put_rules(out, paths, npaths);
	return ferror(out) ? 1 : 0;
}

#ifndef HAVE_MICROHTTPD

/* Built without libmicrohttpd. */
int
serve_run(const struct serve_opts *o)
{
	(void)o;
	fprintf(stderr, "getcounter: --serve is not built in: install libmicrohttpd-dev and "
			"rebuild\n");
	return 1;
}

#else

#include <arpa/inet.h>
#include <crypt.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>
#ifdef HAVE_GNUTLS
#include <gnutls/gnutls.h>
#endif

#include "dynlib.h"

/* libmicrohttpd, GnuTLS and libcrypt are loaded when --serve starts
 * (dynlib.h): every other run stays without their megabytes. */
static struct {
	struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
					   MHD_AccessHandlerCallback, void *, ...);
	void (*stop_daemon)(struct MHD_Daemon *);
	MHD_socket (*quiesce_daemon)(struct MHD_Daemon *);
	enum MHD_Result (*add_connection)(struct MHD_Daemon *, MHD_socket, const struct sockaddr *,
					  socklen_t);
	struct MHD_Response *(*create_response_from_buffer)(size_t, void *,
							    enum MHD_ResponseMemoryMode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
	enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int,
					  struct MHD_Response *);
	void (*destroy_response)(struct MHD_Response *);
	const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind,
					       const char *);
	char *(*basic_auth_get_username_password)(struct MHD_Connection *, char **);
	void (*free)(void *);
	enum MHD_Result (*queue_basic_auth_fail_response)(struct MHD_Connection *, const char *,
							  struct MHD_Response *);
	const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *,
							       enum MHD_ConnectionInfoType, ...);
	char *(*crypt_r)(const char *, const char *, struct crypt_data *);
#ifdef HAVE_GNUTLS
	const gnutls_datum_t *(*certificate_get_peers)(gnutls_session_t, unsigned int *);
	int (*certificate_verify_peers2)(gnutls_session_t, unsigned int *);
#endif
} mhd;

/* Load what --serve calls; 0, or -1 with err saying what to install. */
static int
load_libraries(int client_ca, int basic_auth, struct err *err)
{
	static const char *const mhd_names[] = { "libmicrohttpd.so.12", "libmicrohttpd.so", NULL };
	static const char *const crypt_names[] = { "libcrypt.so.1", "libcrypt.so", NULL };
	const struct dynlib_sym mhd_syms[] = {
		{ "MHD_start_daemon", (void **)&mhd.start_daemon },
		{ "MHD_stop_daemon", (void **)&mhd.stop_daemon },
		{ "MHD_quiesce_daemon", (void **)&mhd.quiesce_daemon },
		{ "MHD_add_connection", (void **)&mhd.add_connection },
		{ "MHD_create_response_from_buffer", (void **)&mhd.create_response_from_buffer },
		{ "MHD_add_response_header", (void **)&mhd.add_response_header },
		{ "MHD_queue_response", (void **)&mhd.queue_response },
		{ "MHD_destroy_response", (void **)&mhd.destroy_response },
		{ "MHD_lookup_connection_value", (void **)&mhd.lookup_connection_value },
		{ "MHD_basic_auth_get_username_password",
		  (void **)&mhd.basic_auth_get_username_password },
		{ "MHD_free", (void **)&mhd.free },
		{ "MHD_queue_basic_auth_fail_response",
		  (void **)&mhd.queue_basic_auth_fail_response },
		{ "MHD_get_connection_info", (void **)&mhd.get_connection_info },
	};
	const struct dynlib_sym crypt_syms[] = { { "crypt_r", (void **)&mhd.crypt_r } };

	if (!dynlib_open(mhd_names, mhd_syms, ARRAY_SIZE(mhd_syms), "libmicrohttpd12", err))
		return -1;
	if (basic_auth &&
	    !dynlib_open(crypt_names, crypt_syms, ARRAY_SIZE(crypt_syms), "libcrypt1", err))
		return -1;
#ifdef HAVE_GNUTLS
	if (client_ca) {
		static const char *const tls_names[] = { "libgnutls.so.30", "libgnutls.so", NULL };
		const struct dynlib_sym tls_syms[] = {
			{ "gnutls_certificate_get_peers", (void **)&mhd.certificate_get_peers },
			{ "gnutls_certificate_verify_peers2",
			  (void **)&mhd.certificate_verify_peers2 },
		};

		if (!dynlib_open(tls_names, tls_syms, ARRAY_SIZE(tls_syms), "libgnutls30", err))
			return -1;
	}
#else
	(void)client_ca;
#endif
	return 0;
}

#ifndef GETCOUNTER_VERSION
#define GETCOUNTER_VERSION "unknown"
#endif

/* One served set. */
struct served {
	const struct provider *p;
	void *state;
	struct raw_set rs;
	struct provider_ctx ctx;
	char **patterns;  /* instance patterns of the paths naming it */
	size_t npatterns; /* 0: every instance */
	uint64_t fields;  /* the exported fields the paths need */
	struct prom_track *track;
	char setname[96];
	int success;          /* the last scrape read it in time */
	uint64_t duration_ns; /* how long its read took */
};

/* One --basic-auth user. */
struct user {
	char *name;
	char *hash;
	char *good; /* the last password that checked, or NULL */
};

struct server {
	pthread_mutex_t lock;
	struct procfs *fs;
	size_t nroots;
	size_t scrapes;
	struct served *sets;
	size_t nsets;
	struct prom_buf buf;
	atomic_uint inflight;
	/* for a clean stop: connections that have not sent a request yet
	 * (fresh), connections with a request in progress (busy), and the
	 * flag set once SIGINT/SIGTERM came (answers then say Connection:
	 * close); pending: backlog connections handed to the daemon on the
	 * stop and not yet announced by it */
	atomic_uint fresh, busy, pending;
	atomic_int stopping;
	unsigned max_requests;
	uint32_t user_hz;
	uint8_t ulong_bits;
	/* --basic-auth */
	struct user *users;
	size_t nusers;
	pthread_mutex_t auth_lock;
	struct crypt_data *crypt;
	int client_ca; /* --tls-client-ca: verify the peer */
};

/* Keep an instance matching one of the set's patterns. */
static int
keep_instance(void *arg, const char *inst)
{
	const struct served *sv = arg;

	if (!sv->npatterns)
		return 1;
	for (size_t i = 0; i < sv->npatterns; i++)
		if (glob_match_ci(sv->patterns[i], inst))
			return 1;
	return 0;
}

/* The provider's value of the set's extra label for inst. */
static size_t
label_value(void *arg, const char *inst, char *buf, size_t n)
{
	const struct served *sv = arg;

	return sv->p->label_value ? sv->p->label_value(sv->state, inst, buf, n) : 0;
}

/* Choose and open the served sets. */
static int
open_sets(struct server *s, const struct serve_opts *o)
{
	s->sets = xcalloc(nproviders, sizeof(*s->sets));
	for (size_t i = 0; i < nproviders; i++) {
		const struct provider *p = providers[i];
		struct served *sv = &s->sets[s->nsets];
		struct err err = { "" };

		if (!prom_set_exported(p->set) ||
		    !select_set(p->set, o->paths, o->npaths, &sv->fields, &sv->patterns,
				&sv->npatterns, NULL, NULL))
			continue;
		if (!sv->fields) {
			free_list(sv->patterns, sv->npatterns);
			memset(sv, 0, sizeof(*sv));
			continue;
		}
		if (!p->open) {
			/* a set opened per request (Network Capture) is not served */
			free_list(sv->patterns, sv->npatterns);
			memset(sv, 0, sizeof(*sv));
			continue;
		}
		sv->p = p;
		sv->ctx.fs = s->fs;
		sv->ctx.needed = sv->fields;
		sv->state = p->open(&sv->ctx, &err);
		if (!sv->state) {
			fprintf(stderr, "getcounter: %s not served: %s\n", p->set->name, err.msg);
			free_list(sv->patterns, sv->npatterns);
			memset(sv, 0, sizeof(*sv));
			continue;
		}
		raw_set_init(&sv->rs, p->set);
		sv->track = prom_track_new(p->set);
		prom_set_name(sv->setname, sizeof(sv->setname), p->set->name);
		s->nsets++;
	}
	return s->nsets ? 0 : -1;
}

/* Append a printf-formatted line. */
static void
put_line(struct prom_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void
put_line(struct prom_buf *b, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		prom_buf_puts(b, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* Read every set afresh and format the answer into s->buf (locked). A set
 * whose read would start, or ends, after deadline_ns (0: none) is left out
 * with success 0. */
static void
scrape(struct server *s, int om, uint64_t deadline_ns)
{
	struct err err = { "" };
	size_t idx = s->scrapes < s->nroots ? s->scrapes : s->nroots - 1;
	struct prom_fmt fmt = { .user_hz = s->user_hz, .ulong_bits = s->ulong_bits,
				.openmetrics = om, .keep = keep_instance,
				.label_value = label_value };

	prom_buf_reset(&s->buf);
	s->scrapes++;
	put_line(&s->buf, "# HELP getcounter_build_info The getcounter version serving.\n"
			  "# TYPE getcounter_build_info gauge\n"
			  "getcounter_build_info{version=\"%s\"} 1\n", GETCOUNTER_VERSION);
	if (procfs_begin_read(s->fs, idx, &err) < 0)
		fprintf(stderr, "getcounter: %s\n", err.msg);
	for (size_t i = 0; i < s->nsets; i++) {
		struct served *sv = &s->sets[i];
		uint64_t t0 = now_mono_ns(), t1;

		sv->success = 0;
		sv->duration_ns = 0;
		if (deadline_ns && t0 >= deadline_ns)
			continue;
		raw_set_begin(&sv->rs);
		sv->rs.valid = sv->p->read(sv->state, &sv->rs, &err) == 0;
		t1 = now_mono_ns();
		sv->rs.mono_ns = t1;
		sv->duration_ns = t1 - t0;
		if (deadline_ns && t1 > deadline_ns)
			continue;
		sv->success = sv->rs.valid;
		fmt.fields = sv->fields;
		fmt.arg = sv;
		prom_format_set(&s->buf, &sv->rs, sv->track, &fmt);
	}
	/* a file unlike what the kernel writes there: said once, as a run does */
	for (const char *note; (note = procfs_next_note(s->fs));)
		fprintf(stderr, "getcounter: %s\n", note);
	put_line(&s->buf, "# HELP getcounter_scrape_set_success 1 when the set was read in "
			  "time.\n# TYPE getcounter_scrape_set_success gauge\n");
	for (size_t i = 0; i < s->nsets; i++)
		put_line(&s->buf, "getcounter_scrape_set_success{set=\"%s\"} %d\n",
			 s->sets[i].setname, s->sets[i].success);
	put_line(&s->buf, "# HELP getcounter_scrape_set_duration_seconds How long the set's "
			  "read took.\n# TYPE getcounter_scrape_set_duration_seconds gauge\n");
	if (om)
		put_line(&s->buf, "# UNIT getcounter_scrape_set_duration_seconds seconds\n");
	for (size_t i = 0; i < s->nsets; i++)
		put_line(&s->buf, "getcounter_scrape_set_duration_seconds{set=\"%s\"} %.9f\n",
			 s->sets[i].setname, (double)s->sets[i].duration_ns * 1e-9);
	if (om)
		prom_buf_puts(&s->buf, "# EOF\n", 6);
}

/* Once stopping, an answer closes its connection: a kept-alive client
 * does not send another request into a server about to go. */
static void
close_when_stopping(struct server *s, struct MHD_Response *r)
{
	if (atomic_load(&s->stopping))
		mhd.add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
}

/* Queue a constant answer. */
static enum MHD_Result
reply(struct server *s, struct MHD_Connection *c, unsigned code, const char *body,
      const char *type)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(strlen(body), (void *)body,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	close_when_stopping(s, r);
	ret = mhd.queue_response(c, code, r);
	mhd.destroy_response(r);
	return ret;
}

/* Equal strings, in time that depends on the lengths only. */
static int
same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

/* Nonzero when user and password match a --basic-auth line. A bcrypt check
 * costs tens of ms, so the last good password of each user is kept. */
static int
auth_ok(struct server *s, const char *user, const char *pass)
{
	int ok = 0;

	pthread_mutex_lock(&s->auth_lock);
	for (size_t i = 0; i < s->nusers && !ok; i++) {
		struct user *u = &s->users[i];
		const char *h;

		if (strcmp(u->name, user))
			continue;
		if (u->good && same_secret(u->good, pass)) {
			ok = 1;
			break;
		}
		h = mhd.crypt_r(pass, u->hash, s->crypt);
		if (h && h[0] != '*' && same_secret(h, u->hash)) {
			free(u->good);
			u->good = xstrdup(pass);
			ok = 1;
		}
	}
	pthread_mutex_unlock(&s->auth_lock);
	return ok;
}

/* Check the client: its certificate (--tls-client-ca) and password
 * (--basic-auth). Queues the refusal and returns 0 when it fails. */
static int
client_ok(struct server *s, struct MHD_Connection *c, enum MHD_Result *ret)
{
#ifdef HAVE_GNUTLS
	if (s->client_ca) {
		const union MHD_ConnectionInfo *ci =
			mhd.get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
		unsigned status = 1, nc = 0;

		if (ci && ci->tls_session) {
			gnutls_session_t ts = (gnutls_session_t)ci->tls_session;

			if (mhd.certificate_get_peers(ts, &nc) && nc > 0 &&
			    mhd.certificate_verify_peers2(ts, &status) != 0)
				status = 1;
		}
		if (nc == 0 || status != 0) {
			*ret = reply(s, c, MHD_HTTP_FORBIDDEN, "a client certificate signed by the "
				     "--tls-client-ca is required\n", "text/plain");
			return 0;
		}
	}
#endif
	if (s->nusers) {
		char *pass = NULL;
		char *user = mhd.basic_auth_get_username_password(c, &pass);
		int ok = user && pass && auth_ok(s, user, pass);

		mhd.free(user);
		mhd.free(pass);
		if (!ok) {
			static const char body[] = "unauthorized\n";
			struct MHD_Response *r = mhd.create_response_from_buffer(
				sizeof(body) - 1, (void *)body, MHD_RESPMEM_PERSISTENT);

			if (r)
				close_when_stopping(s, r);
			*ret = r ? mhd.queue_basic_auth_fail_response(c, "getcounter", r) : MHD_NO;
			if (r)
				mhd.destroy_response(r);
			return 0;
		}
	}
	return 1;
}

/* The scrape deadline from X-Prometheus-Scrape-Timeout-Seconds: a little
 * before the timeout, so the answer still arrives; 0 when not given. */
static uint64_t
deadline_of(struct MHD_Connection *c, uint64_t start_ns)
{
	const char *h = mhd.lookup_connection_value(c, MHD_HEADER_KIND,
						    "X-Prometheus-Scrape-Timeout-Seconds");
	char *end;
	double t;

	if (!h)
		return 0;
	t = strtod(h, &end);
	if (end == h || !(t > 0) || t > 1e6)
		return 0;
	t = t > 0.2 ? t - 0.1 : t * 0.5;
	return start_ns + (uint64_t)(t * 1e9);
}

/* What a connection is doing, for a clean stop (its socket context). */
enum conn_state { CONN_FRESH, CONN_BUSY, CONN_IDLE };

/* Move the connection whose state is *st to state to, keeping the counts. */
static void
conn_set(struct server *s, int *st, enum conn_state to)
{
	if (*st == CONN_FRESH)
		atomic_fetch_sub(&s->fresh, 1);
	else if (*st == CONN_BUSY)
		atomic_fetch_sub(&s->busy, 1);
	if (to == CONN_FRESH)
		atomic_fetch_add(&s->fresh, 1);
	else if (to == CONN_BUSY)
		atomic_fetch_add(&s->busy, 1);
	*st = (int)to;
}

/* Move connection c to state to (a request began or ended). */
static void
conn_mark(struct server *s, struct MHD_Connection *c, enum conn_state to)
{
	const union MHD_ConnectionInfo *ci =
		mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	if (ci && ci->socket_context)
		conn_set(s, ci->socket_context, to);
}

/* MHD_OPTION_NOTIFY_CONNECTION: a connection opened (fresh until its
 * first request) or closed. Each connection has its own thread, so its
 * state is only touched there (STARTED comes before the thread starts). */
static void
notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
		  enum MHD_ConnectionNotificationCode toe)
{
	struct server *s = cls;
	int *st = *socket_context;

	(void)c;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		unsigned p = atomic_load(&s->pending);

		st = xmalloc(sizeof(*st));
		*st = -1;
		conn_set(s, st, CONN_FRESH);
		*socket_context = st;
		/* one of the connections drain() handed over (or, rarely, one
		 * the daemon accepted as the stop began: fresh counts it) */
		while (p && !atomic_compare_exchange_weak(&s->pending, &p, p - 1))
			;
	} else if (st) {
		conn_set(s, st, CONN_IDLE);
		free(st);
		*socket_context = NULL;
	}
}

/* MHD_OPTION_NOTIFY_COMPLETED: a request was answered (or given up). */
static void
notify_completed(void *cls, struct MHD_Connection *c, void **con_cls,
		 enum MHD_RequestTerminationCode toe)
{
	(void)con_cls;
	(void)toe;
	conn_mark(cls, c, CONN_IDLE);
}

/* MHD_OPTION_UNESCAPE_CALLBACK: %XX decoded in place, as libmicrohttpd
 * does, except %00, which stays as it is: a NUL would end the path, and
 * "/metrics%00" would be "/metrics". */
static size_t
unescape(void *cls, struct MHD_Connection *c, char *s)
{
	char *w = s;
	const char *r = s;
	int hi, lo;

	(void)cls;
	(void)c;
	while (*r) {
		if (r[0] == '%' && (hi = hex_digit(r[1])) >= 0 && (lo = hex_digit(r[2])) >= 0 &&
		    (hi | lo) != 0) {
			*w++ = (char)(hi * 16 + lo);
			r += 3;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

/* The request handler. */
static enum MHD_Result
handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
       const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct server *s = cls;
	struct MHD_Response *r;
	enum MHD_Result ret;
	uint64_t start = now_mono_ns(), deadline;
	int om;

	(void)version;
	(void)upload;
	(void)upload_size;
	if (!*con_cls) {
		*con_cls = s; /* headers seen; answer on the next call */
		conn_mark(s, c, CONN_BUSY);
		return MHD_YES;
	}
	if (!client_ok(s, c, &ret))
		return ret;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(s, c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n", "text/plain");
	if (!strcmp(url, "/"))
		return reply(s, c, MHD_HTTP_OK,
			     "<html><head><title>getcounter</title></head><body>"
			     "<a href=\"/metrics\">/metrics</a></body></html>\n", "text/html");
	if (strcmp(url, "/metrics"))
		return reply(s, c, MHD_HTTP_NOT_FOUND, "not found\n", "text/plain");
	if (atomic_fetch_add(&s->inflight, 1) >= s->max_requests) {
		atomic_fetch_sub(&s->inflight, 1);
		return reply(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, "too many requests\n", "text/plain");
	}
	om = prom_accept_openmetrics(
		mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	deadline = deadline_of(c, start);
	pthread_mutex_lock(&s->lock);
	scrape(s, om, deadline);
	r = mhd.create_response_from_buffer(s->buf.len, s->buf.p, MHD_RESPMEM_MUST_COPY);
	pthread_mutex_unlock(&s->lock);
	atomic_fetch_sub(&s->inflight, 1);
	if (!r)
		return MHD_NO;
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				   : "text/plain; version=0.0.4; charset=utf-8");
	close_when_stopping(s, r);
	ret = mhd.queue_response(c, MHD_HTTP_OK, r);
	mhd.destroy_response(r);
	return ret;
}

/* Create, bind and listen on the first address of host that works (a
 * name may resolve to several: localhost to ::1 and 127.0.0.1); print the
 * cause on failure. *is_loopback tells whether the bound address is. */
static int
listen_on(const char *host, unsigned port, int tls, char *url, size_t n, int *is_loopback)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char portstr[8], addr[INET6_ADDRSTRLEN];
	const char *scheme = tls ? "https" : "http";
	int fd = -1, one = 1, rc, saved = 0;

	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = getaddrinfo(host, portstr, &hints, &ai);
	if (rc) {
		fprintf(stderr, "getcounter: cannot listen on %s:%u: %s\n", host, port,
			rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return -1;
	}
	for (const struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0)
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (fd >= 0 && bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 64) == 0)
			break;
		if (!saved)
			saved = errno; /* the first address's reason */
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		fprintf(stderr, "getcounter: cannot listen on %s:%u: %s\n", host, port,
			strerror(saved));
		return -1;
	}
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, addr, sizeof(addr));
		snprintf(url, n, "%s://[%s]:%u/metrics", scheme, addr, ntohs(s6->sin6_port));
		*is_loopback = IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, addr, sizeof(addr));
		snprintf(url, n, "%s://%s:%u/metrics", scheme, addr, ntohs(s4->sin_port));
		*is_loopback = (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	}
	return fd;
}

/* The whole of file path (for the TLS options), or NULL with a message. */
static char *
slurp(const char *opt, const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f) {
		fprintf(stderr, "getcounter: %s %s: %s\n", opt, path, strerror(errno));
		return NULL;
	}
	do {
		xgrow((void **)&buf, &cap, len + 4097, 1);
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
	} while (got > 0);
	buf[len] = 0;
	if (ferror(f) || len == 0) {
		fprintf(stderr, "getcounter: %s %s: %s\n", opt, path,
			ferror(f) ? strerror(errno) : "the file is empty");
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Read the --basic-auth file: user:HASH lines, bcrypt only. */
static int
read_users(struct server *s, const char *path)
{
	char *text = slurp("--basic-auth", path), *save = NULL;
	size_t lineno = 0;

	if (!text)
		return -1;
	for (char *line = text, *next; line; line = next) {
		char *colon;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		line[strcspn(line, "\r")] = 0;
		if (!*line || *line == '#')
			continue;
		colon = strchr(line, ':');
		if (!colon || colon == line ||
		    (strncmp(colon + 1, "$2y$", 4) && strncmp(colon + 1, "$2b$", 4))) {
			fprintf(stderr, "getcounter: %s:%zu: not a user:bcrypt-hash line (make one "
					"with htpasswd -nBC 10 USER)\n", path, lineno);
			free(text);
			return -1;
		}
		s->users = xrealloc(s->users, (s->nusers + 1) * sizeof(*s->users));
		s->users[s->nusers].name = xstrndup(line, (size_t)(colon - line));
		s->users[s->nusers].hash = xstrdup(colon + 1);
		s->users[s->nusers++].good = NULL;
	}
	(void)save;
	free(text);
	if (!s->nusers) {
		fprintf(stderr, "getcounter: --basic-auth %s: no user in it\n", path);
		return -1;
	}
	s->crypt = xcalloc(1, sizeof(*s->crypt));
	return 0;
}

/* The kernel's word size, for FW_ULONG fields. */
static uint8_t
word_bits(void)
{
	struct utsname u;

	if (uname(&u) == 0 && !strstr(u.machine, "64") && strcmp(u.machine, "s390x") != 0)
		return 32;
	return 64;
}

/* Free everything s holds (the daemon is stopped). */
static void
server_free(struct server *s)
{
	for (size_t i = 0; i < s->nsets; i++) {
		s->sets[i].p->close(s->sets[i].state);
		raw_set_free(&s->sets[i].rs);
		prom_track_free(s->sets[i].track);
		free_list(s->sets[i].patterns, s->sets[i].npatterns);
	}
	free(s->sets);
	for (size_t i = 0; i < s->nusers; i++) {
		free(s->users[i].name);
		free(s->users[i].hash);
		free(s->users[i].good);
	}
	free(s->users);
	free(s->crypt);
	prom_buf_free(&s->buf);
	if (s->fs)
		procfs_free(s->fs);
}

/* How long a stop waits for the requests in flight (the connection
 * timeout), for a connection that has not sent its request yet, and at
 * least, for the handshakes under way to complete (a round trip). */
#define STOP_BUSY_NS (30 * 1000000000ull)
#define STOP_FRESH_NS (2 * 1000000000ull)
#define STOP_LINGER_NS (250 * 1000000ull)

/* Nonzero while a connection made before the stop is still to be
 * answered: a request in progress (at most STOP_BUSY_NS after t0), or a
 * connection yet to send its request or yet to be taken up by the daemon's
 * thread (at most STOP_FRESH_NS). */
static int
stop_waits(struct server *s, uint64_t t0)
{
	uint64_t t = now_mono_ns() - t0;

	return t < STOP_BUSY_NS &&
	       (atomic_load(&s->busy) ||
		(t < STOP_FRESH_NS && (atomic_load(&s->fresh) || atomic_load(&s->pending))));
}

/* Make listening socket fd drop new connections (a TCP segment with SYN
 * and not ACK) while the handshakes under way still complete: closing a
 * listening socket resets the connections it has not accepted, so it must
 * take them all first, and no new one may come in meanwhile. A dropped SYN
 * is sent again a second later, and finds the port closed (refused). A
 * classic BPF socket filter sees the TCP header at offset 0; byte 13 holds
 * the flags. Returns 0 or -1. */
static int
refuse_new_connections(int fd)
{
	static struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 13),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x12), /* SYN | ACK */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x02, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),           /* SYN only: drop */
		BPF_STMT(BPF_RET | BPF_K, 0xffffffffu), /* anything else: keep */
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(code), .filter = code };

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

/* Hand every connection queued on listening socket fd to daemon d. */
static void
take_queued(struct server *s, struct MHD_Daemon *d, int fd)
{
	for (;;) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int cfd = accept(fd, (struct sockaddr *)&ss, &sl);

		if (cfd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (cfd < 0)
			return;
		/* pending until the daemon's thread takes it up (its
		 * NOTIFY_CONNECTION STARTED comes later, there) */
		atomic_fetch_add(&s->pending, 1);
		if (mhd.add_connection(d, cfd, (struct sockaddr *)&ss, sl) != MHD_YES)
			atomic_fetch_sub(&s->pending, 1); /* it closed cfd */
	}
}

/* Stop cleanly: the daemon stops accepting, new connections are dropped
 * (refuse_new_connections), and the connections the kernel accepted before
 * or completes after (their handshake under way) are taken here and handed
 * to the daemon, for at least STOP_LINGER_NS and until no connection is
 * still to be answered (stop_waits, twice in a row 5 ms apart, which covers
 * a connection the daemon's thread accepted just as the stop began). Then
 * the socket is closed: later connections are refused. The caller then
 * stops the daemon, which closes the idle kept-alive connections. */
static void
drain(struct server *s, struct MHD_Daemon *d, int fd)
{
	uint64_t t0 = now_mono_ns();
	int quiet = 0;

	atomic_store(&s->stopping, 1);
	if (mhd.quiesce_daemon(d) == MHD_INVALID_SOCKET)
		fd = -1; /* still the daemon's: it closes it when stopped */
	if (fd >= 0 && (refuse_new_connections(fd) < 0 ||
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0))
		fprintf(stderr, "getcounter: stopping: %s (connections not yet taken may be "
				"reset)\n", strerror(errno));
	while (quiet < 2 || (fd >= 0 && now_mono_ns() - t0 < STOP_LINGER_NS)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (fd >= 0)
			take_queued(s, d, fd);
		quiet = stop_waits(s, t0) ? 0 : quiet + 1;
		poll(&pfd, fd >= 0, 5);
	}
	if (fd >= 0) {
		take_queued(s, d, fd);
		close(fd);
		/* what was just taken is answered before the daemon stops */
		while (stop_waits(s, t0))
			poll(NULL, 0, 5);
	}
}

/* Serve until SIGINT or SIGTERM. */
int
serve_run(const struct serve_opts *o)
{
	struct server s = { .max_requests = o->max_requests ? o->max_requests : 8 };
	struct err err = { "" };
	struct MHD_OptionItem opts[12];
	struct MHD_Daemon *d;
	char host[256], url[320], *cert = NULL, *key = NULL, *ca = NULL;
	unsigned port = 0, flags = MHD_USE_THREAD_PER_CONNECTION |
					 MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC;
	size_t nopt = 0;
	sigset_t sigs;
	int fd, sig = 0, rc = 0, is_loopback = 0;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* every thread started later inherits it */
	if (serve_parse_listen(o->listen, host, sizeof(host), &port, &err) < 0) {
		fprintf(stderr, "getcounter: %s\n", err.msg);
		return 2;
	}
	if (!check_paths(o->paths, o->npaths, &err)) {
		fprintf(stderr, "getcounter: %s\n", err.msg);
		return 2;
	}
#ifndef HAVE_GNUTLS
	if (o->tls_client_ca) {
		fprintf(stderr, "getcounter: --tls-client-ca is not built in: install "
				"libgnutls28-dev and rebuild\n");
		return 1;
	}
#endif
	if (load_libraries(o->tls_client_ca != NULL, o->basic_auth != NULL, &err) < 0) {
		fprintf(stderr, "getcounter: --serve: %s\n", err.msg);
		return 1;
	}
	pthread_mutex_init(&s.auth_lock, NULL);
	if (o->basic_auth && read_users(&s, o->basic_auth) < 0) {
		server_free(&s);
		return 1;
	}
	if (o->tls_cert) {
		cert = slurp("--tls-cert", o->tls_cert);
		key = cert ? slurp("--tls-key", o->tls_key) : NULL;
		ca = key && o->tls_client_ca ? slurp("--tls-client-ca", o->tls_client_ca) : NULL;
		if (!cert || !key || (o->tls_client_ca && !ca)) {
			free(cert);
			free(key);
			server_free(&s);
			return 1;
		}
		flags |= MHD_USE_TLS;
		opts[nopt++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, cert };
		opts[nopt++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, key };
		if (ca) {
			opts[nopt++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0, ca };
			s.client_ca = 1;
		}
	}
	fd = listen_on(host, port, o->tls_cert != NULL, url, sizeof(url), &is_loopback);
	if (fd < 0) {
		free(cert);
		free(key);
		free(ca);
		server_free(&s);
		return 1;
	}
	if (o->basic_auth && !o->tls_cert && !is_loopback)
		fprintf(stderr, "getcounter: warning: --basic-auth without --tls-cert on %s: "
				"passwords cross the network in clear text\n", host);
	pthread_mutex_init(&s.lock, NULL);
	s.fs = procfs_new(o->roots, o->nroots);
	s.nroots = o->nroots ? o->nroots : 1;
	s.user_hz = 100;
	s.ulong_bits = 64;
	if (procfs_is_live(s.fs)) {
		long hz = sysconf(_SC_CLK_TCK);

		s.user_hz = hz > 0 ? (uint32_t)hz : 100;
		s.ulong_bits = word_bits();
	}
	if (procfs_begin_read(s.fs, 0, &err) < 0 || open_sets(&s, o) < 0) {
		fprintf(stderr, "getcounter: %s\n", err.msg[0] ? err.msg : "no set to serve");
		close(fd);
		rc = 1;
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	opts[nopt++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, fd, NULL };
	/* a thread a connection: idle ones must not pile up until a scraper
	 * cannot get in (a client that opens hundreds and sends nothing) */
	opts[nopt++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, 10, NULL };
	opts[nopt++] = (struct MHD_OptionItem){ MHD_OPTION_UNESCAPE_CALLBACK,
						(intptr_t)(uintptr_t)unescape, NULL };
	opts[nopt++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, 256, NULL };
	opts[nopt++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT, 64, NULL };
	opts[nopt++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION,
						(intptr_t)notify_connection, &s };
	opts[nopt++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED,
						(intptr_t)notify_completed, &s };
	opts[nopt++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	d = mhd.start_daemon(flags, 0, NULL, NULL, handle, &s, MHD_OPTION_ARRAY, opts,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "getcounter: cannot start the HTTP server%s\n",
			o->tls_cert ? " (is the certificate or the key unreadable or mismatched?)"
				    : "");
		close(fd);
		rc = 1;
	} else {
		fprintf(stderr, "serving %s\n", url);
		sigwait(&sigs, &sig);
		drain(&s, d, fd);
		mhd.stop_daemon(d);
	}
	pthread_mutex_destroy(&s.lock);
out:
	server_free(&s);
	pthread_mutex_destroy(&s.auth_lock);
	free(cert);
	free(key);
	free(ca);
	return rc;
}

#endif
