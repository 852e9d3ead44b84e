/*
 * serve.c - getcounter --serve (issue 9): our own listening socket handed
 * to libmicrohttpd; each GET /metrics reads one raw sample from the
 * providers under one lock, formats it (prom.c) into a reused buffer and
 * releases the lock. Beyond --serve-max-requests concurrent requests: 503.
 * Without libmicrohttpd the build still works and --serve says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve.h"

/* Split [ADDR:]PORT. */
int
serve_parse_listen(const char *s, char *host, size_t n, unsigned *port, struct err *err)
{
	const char *colon = strrchr(s, ':');
	const char *p = colon ? colon + 1 : s;
	char *end;
	unsigned long v;
	size_t hl;

	if (!colon) {
		snprintf(host, n, "127.0.0.1");
	} else {
		const char *h = s;

		hl = (size_t)(colon - s);
		if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
			h++;
			hl -= 2;
		} else if (memchr(h, ':', hl)) {
			return err_set(err, "--serve '%s': write an IPv6 address in brackets, "
					    "[::1]:PORT", s);
		}
		if (hl == 0 || hl >= n)
			return err_set(err, "--serve '%s': no address before the port", s);
		memcpy(host, h, hl);
		host[hl] = 0;
	}
	errno = 0;
	v = strtoul(p, &end, 10);
	if (!*p || *end || errno || v > 65535 || *p == '-' || *p == '+')
		return err_set(err, "--serve '%s': the port must be 0 to 65535", s);
	*port = (unsigned)v;
	return 0;
}

#ifndef HAVE_MICROHTTPD

/* Built without libmicrohttpd. */
int
serve_run(const struct serve_opts *o)
{
	(void)o;
	fprintf(stderr, "getcounter: --serve is not built in (build with libmicrohttpd-dev "
			"installed)\n");
	return 2;
}

#else

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

#include "procfs.h"
#include "prom.h"
#include "provider.h"
#include "sample.h"

#ifndef GETCOUNTER_VERSION
#define GETCOUNTER_VERSION "unknown"
#endif

/* One served set. */
struct served {
	const struct provider *p;
	void *state;
	struct raw_set rs;
	struct provider_ctx ctx;
	const char *const *patterns; /* instance patterns of the paths naming it */
	size_t npatterns;            /* 0: every instance */
	char **owned;
	char setname[64];
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
	unsigned max_requests;
};

/* Split a counter path into its set name and instance pattern ("" none). */
static int
split_path(const char *path, char *set, size_t sn, char *inst, size_t in)
{
	const char *p = path, *e;
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
	if (*e == '(') {
		const char *c = strrchr(e, ')');

		if (!c || (size_t)(c - e - 1) >= in)
			return -1;
		memcpy(inst, e + 1, (size_t)(c - e - 1));
		inst[c - e - 1] = 0;
	}
	return 0;
}

/* The fields of set cs that the table exports. */
static uint64_t
exported_fields(const struct counter_set *cs)
{
	uint64_t m = 0;

	for (size_t f = 0; f < cs->nfields && f < 64; f++)
		if (prom_field_find(cs->name, cs->fields[f].name))
			m |= (uint64_t)1 << f;
	return m;
}

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

/* Choose and open the served sets. */
static int
open_sets(struct server *s, const struct serve_opts *o)
{
	s->sets = xcalloc(nproviders, sizeof(*s->sets));
	for (size_t i = 0; i < nproviders; i++) {
		const struct provider *p = providers[i];
		struct served *sv = &s->sets[s->nsets];
		struct err err = { "" };
		uint64_t mask = exported_fields(p->set);
		int named = o->npaths == 0;

		if (!mask)
			continue;
		for (size_t k = 0; k < o->npaths; k++) {
			char set[128], inst[256];

			if (split_path(o->paths[k], set, sizeof(set), inst, sizeof(inst)) < 0)
				continue;
			if (strcasecmp(set, p->set->name) &&
			    !(p->set->alias && !strcasecmp(set, p->set->alias)))
				continue;
			named = 1;
			if (!inst[0] || !strcmp(inst, "*")) {
				sv->npatterns = 0;
				sv->owned = NULL;
				break;
			}
			sv->owned = xrealloc(sv->owned, (sv->npatterns + 1) * sizeof(char *));
			sv->owned[sv->npatterns++] = xstrdup(inst);
		}
		sv->patterns = (const char *const *)sv->owned;
		if (!named)
			continue;
		if (!p->open) {
			/* a set opened per request (Network Capture) is not served */
			for (size_t k = 0; k < sv->npatterns; k++)
				free(sv->owned[k]);
			free(sv->owned);
			memset(sv, 0, sizeof(*sv));
			continue;
		}
		sv->p = p;
		sv->ctx.fs = s->fs;
		sv->ctx.needed = mask;
		sv->state = p->open(&sv->ctx, &err);
		if (!sv->state) {
			fprintf(stderr, "getcounter: %s not served: %s\n", p->set->name, err.msg);
			for (size_t k = 0; k < sv->npatterns; k++)
				free(sv->owned[k]);
			free(sv->owned);
			memset(sv, 0, sizeof(*sv));
			continue;
		}
		raw_set_init(&sv->rs, p->set);
		prom_set_name(sv->setname, sizeof(sv->setname), p->set->name);
		s->nsets++;
	}
	return s->nsets ? 0 : -1;
}

/* Read every set afresh and format the answer into s->buf (locked). */
static void
scrape(struct server *s, int om)
{
	char line[256];
	struct err err = { "" };
	size_t idx = s->scrapes < s->nroots ? s->scrapes : s->nroots - 1;

	prom_buf_reset(&s->buf);
	s->scrapes++;
	snprintf(line, sizeof(line),
		 "# HELP getcounter_build_info The getcounter version serving.\n"
		 "# TYPE getcounter_build_info gauge\n"
		 "getcounter_build_info{version=\"%s\"} 1\n", GETCOUNTER_VERSION);
	prom_buf_puts(&s->buf, line, strlen(line));
	if (procfs_begin_read(s->fs, idx, &err) < 0)
		fprintf(stderr, "getcounter: %s\n", err.msg);
	for (size_t i = 0; i < s->nsets; i++) {
		struct served *sv = &s->sets[i];

		raw_set_begin(&sv->rs);
		sv->rs.valid = sv->p->read(sv->state, &sv->rs, &err) == 0;
		prom_format_set(&s->buf, &sv->rs, 100, om, keep_instance, sv);
	}
	snprintf(line, sizeof(line), "# HELP getcounter_scrape_set_success 1 when the set was "
		 "read.\n# TYPE getcounter_scrape_set_success gauge\n");
	prom_buf_puts(&s->buf, line, strlen(line));
	for (size_t i = 0; i < s->nsets; i++) {
		snprintf(line, sizeof(line), "getcounter_scrape_set_success{set=\"%s\"} %d\n",
			 s->sets[i].setname, s->sets[i].rs.valid ? 1 : 0);
		prom_buf_puts(&s->buf, line, strlen(line));
	}
	if (om)
		prom_buf_puts(&s->buf, "# EOF\n", 6);
}

/* Queue a constant answer. */
static enum MHD_Result
reply(struct MHD_Connection *c, unsigned code, const char *body, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

/* The request handler. */
static enum MHD_Result
handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
       const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct server *s = cls;
	struct MHD_Response *r;
	enum MHD_Result ret;
	const char *accept;
	int om;

	(void)version;
	(void)upload;
	(void)upload_size;
	if (!*con_cls) {
		*con_cls = s; /* headers seen; answer on the next call */
		return MHD_YES;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n", "text/plain");
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK,
			     "<html><head><title>getcounter</title></head><body>"
			     "<a href=\"/metrics\">/metrics</a></body></html>\n", "text/html");
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "not found\n", "text/plain");
	if (atomic_fetch_add(&s->inflight, 1) >= s->max_requests) {
		atomic_fetch_sub(&s->inflight, 1);
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "too many requests\n", "text/plain");
	}
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	om = prom_accept_openmetrics(accept);
	pthread_mutex_lock(&s->lock);
	scrape(s, om);
	r = MHD_create_response_from_buffer(s->buf.len, s->buf.p, MHD_RESPMEM_MUST_COPY);
	pthread_mutex_unlock(&s->lock);
	atomic_fetch_sub(&s->inflight, 1);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				   : "text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* Create, bind and listen; print the cause on failure. */
static int
listen_on(const char *host, unsigned port, char *url, size_t n)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char portstr[8], addr[INET6_ADDRSTRLEN];
	int fd, one = 1, rc;

	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = getaddrinfo(host, portstr, &hints, &ai);
	if (rc) {
		fprintf(stderr, "getcounter: cannot listen on %s:%u: %s\n", host, port,
			gai_strerror(rc));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0) {
		fprintf(stderr, "getcounter: cannot listen on %s:%u: %s\n", host, port,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, addr, sizeof(addr));
		snprintf(url, n, "http://[%s]:%u/metrics", addr, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, addr, sizeof(addr));
		snprintf(url, n, "http://%s:%u/metrics", addr, ntohs(s4->sin_port));
	}
	return fd;
}

/* Serve until SIGINT or SIGTERM. */
int
serve_run(const struct serve_opts *o)
{
	struct server s = { .max_requests = o->max_requests ? o->max_requests : 8 };
	struct err err = { "" };
	struct MHD_Daemon *d;
	char host[256], url[320];
	unsigned port;
	sigset_t sigs;
	int fd, sig = 0, rc = 0;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* every thread started later inherits it */
	if (serve_parse_listen(o->listen, host, sizeof(host), &port, &err) < 0) {
		fprintf(stderr, "getcounter: %s\n", err.msg);
		return 2;
	}
	fd = listen_on(host, port, url, sizeof(url));
	if (fd < 0)
		return 1;
	pthread_mutex_init(&s.lock, NULL);
	s.fs = procfs_new(o->roots, o->nroots);
	s.nroots = o->nroots ? o->nroots : 1;
	if (procfs_begin_read(s.fs, 0, &err) < 0 || open_sets(&s, o) < 0) {
		fprintf(stderr, "getcounter: %s\n", err.msg[0] ? err.msg : "no set to serve");
		close(fd);
		procfs_free(s.fs);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0,
			     NULL, NULL, handle, &s, MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_TIMEOUT, 30U, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "getcounter: cannot start the HTTP server\n");
		close(fd);
		rc = 1;
	} else {
		fprintf(stderr, "serving %s\n", url);
		sigwait(&sigs, &sig);
		MHD_quiesce_daemon(d);
		MHD_stop_daemon(d); /* waits for the scrapes in flight */
		close(fd);
	}
	for (size_t i = 0; i < s.nsets; i++) {
		s.sets[i].p->close(s.sets[i].state);
		raw_set_free(&s.sets[i].rs);
	}
	for (size_t i = 0; i < nproviders && s.sets; i++) {
		for (size_t k = 0; k < s.sets[i].npatterns && s.sets[i].owned; k++)
			free(s.sets[i].owned[k]);
		free(s.sets[i].owned);
	}
	free(s.sets);
	prom_buf_free(&s.buf);
	procfs_free(s.fs);
	pthread_mutex_destroy(&s.lock);
	return rc;
}

#endif
