/*
 * cpuinfo.c - the Processor Information set (COUNTERS.md section 2): the
 * Processor set's fields and counters (cpu.c reads them), with instances
 * named "node,cpu" after the CPU's NUMA node. derive forms _Total (the
 * set's has_total) and the engine each "node,_Total" (its GROUP_NODE rule).
 *
 * Also the CPU-list parser ("0-3,8-11") and the CPU -> node map, from
 * sys/devices/system/node/nodeK/cpulist; with no node directory every CPU
 * is in node 0. Live, the map is read once and again only when a CPU it
 * does not know shows up; under --root, at every read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "cpuinfo.h"
#include "provider.h"

#define NODE_UNKNOWN UINT32_MAX

/* Parse an unsigned decimal in [p, end) into *v (at most CPUINFO_MAX_CPU
 * + 1, so nothing overflows); the end of the digits, or NULL for none. */
static const char *
cpu_number(const char *p, const char *end, unsigned *v)
{
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	*v = 0;
	while (p < end && *p >= '0' && *p <= '9') {
		*v = *v * 10 + (unsigned)(*p - '0');
		if (*v > CPUINFO_MAX_CPU)
			*v = CPUINFO_MAX_CPU + 1;
		p++;
	}
	return p;
}

int
cpuinfo_cpulist_next(const char **pp, const char *end, unsigned *lo, unsigned *hi)
{
	const char *p = *pp;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == ','))
		p++;
	if (p >= end || *p == '\0')
		goto done;
	p = cpu_number(p, end, lo);
	if (!p)
		goto done;
	*hi = *lo;
	if (p < end && *p == '-') {
		p = cpu_number(p + 1, end, hi);
		if (!p)
			goto done;
	}
	if (*hi < *lo || *hi > CPUINFO_MAX_CPU)
		goto done;
	if (p < end && *p != ',' && *p != '\n' && *p != ' ' && *p != '\t' && *p != '\0')
		goto done;
	*pp = p;
	return 1;
done:
	*pp = end;
	return 0;
}

struct cpuinfo_nodes {
	struct procfs *fs;
	size_t cap;     /* entries in node[] */
	uint32_t *node; /* per CPU, NODE_UNKNOWN where no cpulist names it */
};

struct cpuinfo_nodes *
cpuinfo_nodes_new(struct procfs *fs)
{
	struct cpuinfo_nodes *nm = xcalloc(1, sizeof(*nm));

	nm->fs = fs;
	return nm;
}

void
cpuinfo_nodes_free(struct cpuinfo_nodes *nm)
{
	if (!nm)
		return;
	free(nm->node);
	free(nm);
}

/* Make node[] hold CPU cpu, new entries unknown. */
static void
nodes_grow(struct cpuinfo_nodes *nm, unsigned cpu)
{
	size_t n = nm->cap ? nm->cap : 64;

	if (cpu < nm->cap)
		return;
	while (n <= cpu)
		n *= 2;
	nm->node = xrealloc(nm->node, n * sizeof(*nm->node));
	for (size_t i = nm->cap; i < n; i++)
		nm->node[i] = NODE_UNKNOWN;
	nm->cap = n;
}

/* One entry of sys/devices/system/node: a nodeK sets the node of every
 * CPU its cpulist names. */
static int
node_entry(const char *name, unsigned char type, void *arg)
{
	struct cpuinfo_nodes *nm = arg;
	char path[300], list[4096];
	const char *p, *end;
	unsigned node, lo, hi;
	long len;

	(void)type;
	if (strncmp(name, "node", 4) != 0 ||
	    !(p = cpu_number(name + 4, name + strlen(name), &node)) || *p != '\0' ||
	    node > CPUINFO_MAX_CPU)
		return 0;
	snprintf(path, sizeof(path), "sys/devices/system/node/%s/cpulist", name);
	len = procfs_read_small(nm->fs, path, list, sizeof(list));
	if (len < 0)
		return 0;
	p = list;
	end = list + len;
	while (cpuinfo_cpulist_next(&p, end, &lo, &hi)) {
		nodes_grow(nm, hi);
		for (unsigned cpu = lo; cpu <= hi; cpu++)
			nm->node[cpu] = node;
	}
	return 0;
}

/* Set the node of every CPU some nodeK/cpulist names; others untouched. */
static void
nodes_fill(struct cpuinfo_nodes *nm)
{
	procfs_list(nm->fs, "sys/devices/system/node", node_entry, nm);
}

void
cpuinfo_nodes_load(struct cpuinfo_nodes *nm)
{
	for (size_t i = 0; i < nm->cap; i++)
		nm->node[i] = NODE_UNKNOWN;
	nodes_fill(nm);
}

unsigned
cpuinfo_node_of(struct cpuinfo_nodes *nm, unsigned cpu)
{
	if (cpu > CPUINFO_MAX_CPU)
		return 0;
	if (cpu < nm->cap && nm->node[cpu] != NODE_UNKNOWN)
		return nm->node[cpu];
	/* Live, a CPU brought online since the last look: look once more,
	 * then remember it (node 0 if still unnamed) so it never costs again. */
	if (procfs_is_live(nm->fs))
		nodes_fill(nm);
	nodes_grow(nm, cpu);
	if (nm->node[cpu] == NODE_UNKNOWN)
		nm->node[cpu] = 0;
	return nm->node[cpu];
}

/* ---- the Processor Information set ------------------------------------ */

struct info_state {
	struct cpu_reader *cpus;
	struct cpuinfo_nodes *nodes;
	int loaded;
};

static void *
info_open(const struct provider_ctx *ctx, struct err *err)
{
	struct info_state *st = xcalloc(1, sizeof(*st));

	(void)err;
	st->cpus = cpu_reader_new(ctx);
	st->nodes = cpuinfo_nodes_new(ctx->fs);
	return st;
}

/* "node,cpu" */
static size_t
info_name(void *arg, unsigned cpu, char *buf, size_t n)
{
	struct info_state *st = arg;
	char tmp[2 * FMT_UINT_MAX + 1];
	size_t len = fmt_uint(tmp, cpuinfo_node_of(st->nodes, cpu));

	tmp[len++] = ',';
	len += fmt_uint(tmp + len, cpu);
	if (len >= n)
		len = n ? n - 1 : 0;
	memcpy(buf, tmp, len);
	return len;
}

/* Read: Processor's fields per online CPU, named by node. */
static int
info_read(void *state, struct raw_set *out, struct err *err)
{
	struct info_state *st = state;

	if (!st->loaded || !procfs_is_live(st->nodes->fs)) {
		cpuinfo_nodes_load(st->nodes);
		st->loaded = 1;
	}
	return cpu_reader_read(st->cpus, out, info_name, st, err);
}

static void
info_close(void *state)
{
	struct info_state *st = state;

	cpu_reader_free(st->cpus);
	cpuinfo_nodes_free(st->nodes);
	free(st);
}

/* The idle states a C-state counter covers on the instance's CPU ("0,3"). */
static size_t
info_describe(void *state, const struct counter_desc *c, const char *instance, char *buf,
	      size_t n)
{
	struct info_state *st = state;
	const char *comma = instance ? strrchr(instance, ',') : NULL;
	unsigned cpu = comma && comma[1] >= '0' && comma[1] <= '9'
			       ? (unsigned)strtoul(comma + 1, NULL, 10)
			       : 0;

	return cpu_reader_describe(st->cpus, c, cpu, buf, n);
}

const struct provider provider_processor_information = {
	.set = &cpu_information_set,
	.open = info_open,
	.read = info_read,
	.close = info_close,
	.describe = info_describe,
};
