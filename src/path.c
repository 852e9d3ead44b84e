/*
 * path.c - counter paths: [\\HOST]\Set[(INSTANCE)]\Counter. Parsing keeps
 * instances whole (mount points and odd interface names survive: the
 * instance runs from the first '(' after the set name to the last ')'
 * before the final '\'); matching is glob_match_ci() in util.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "path.h"

void
path_free(struct counter_path *p)
{
	free(p->host);
	free(p->set);
	free(p->instance);
	free(p->counter);
	memset(p, 0, sizeof(*p));
}

int
path_parse(const char *s, struct counter_path *out, struct err *err)
{
	const char *p = s, *last, *set_end, *open;

	memset(out, 0, sizeof(*out));
	if (p[0] == '\\' && p[1] == '\\') {
		const char *h = p + 2, *e = strchr(h, '\\');
		if (!e || e == h)
			return err_set(err, "'%s' is not a counter path: \\\\HOST must be followed by "
					    "\\Set\\Counter", s);
		out->host = xstrndup(h, (size_t)(e - h));
		p = e;
	}
	if (*p != '\\') {
		path_free(out);
		return err_set(err, "'%s' is not a counter path: it must start with '\\' "
				    "(\\Set(instance)\\Counter)", s);
	}
	p++;
	last = strrchr(p, '\\');
	if (!last) {
		path_free(out);
		return err_set(err, "'%s' is not a counter path: no '\\Counter' after the set name", s);
	}
	if (last[1] == '\0') {
		path_free(out);
		return err_set(err, "'%s' is not a counter path: the counter name is empty", s);
	}
	open = memchr(p, '(', (size_t)(last - p));
	set_end = open ? open : last;
	/* The set name itself never holds a backslash. */
	if (memchr(p, '\\', (size_t)(set_end - p))) {
		path_free(out);
		return err_set(err, "'%s' is not a counter path: too many '\\' in the set name", s);
	}
	if (set_end == p) {
		path_free(out);
		return err_set(err, "'%s' is not a counter path: the set name is empty", s);
	}
	if (open) {
		if (last[-1] != ')' || last - 1 <= open) {
			path_free(out);
			return err_set(err, "'%s' is not a counter path: the instance must end with ')' "
					    "right before '\\Counter'", s);
		}
		out->instance = xstrndup(open + 1, (size_t)(last - 1 - (open + 1)));
		if (out->instance[0] == '\0') {
			path_free(out);
			return err_set(err, "'%s' is not a counter path: the instance is empty "
					    "(use (*) for every instance)", s);
		}
	}
	out->set = xstrndup(p, (size_t)(set_end - p));
	out->counter = xstrdup(last + 1);
	return 0;
}

int
path_host_is_local(const char *host, const char *hostname)
{
	return strcmp(host, ".") == 0 || strcasecmp(host, "localhost") == 0 ||
	       strcasecmp(host, hostname) == 0;
}

/* snprintf's result, made by copies: an output formats every row's path
 * in every sample (json, list, table), and printf parsing its format was
 * a quarter of json's time. */
size_t
path_format(char *buf, size_t n, const char *host, const char *set, const char *instance,
	    const char *counter)
{
	size_t at = 0;

	str_append(buf, n, &at, "\\\\", 2);
	str_append(buf, n, &at, host, strlen(host));
	str_append(buf, n, &at, "\\", 1);
	str_append(buf, n, &at, set, strlen(set));
	if (instance) {
		str_append(buf, n, &at, "(", 1);
		str_append(buf, n, &at, instance, strlen(instance));
		str_append(buf, n, &at, ")", 1);
	}
	str_append(buf, n, &at, "\\", 1);
	str_append(buf, n, &at, counter, strlen(counter));
	str_end(buf, n, at);
	return at;
}
