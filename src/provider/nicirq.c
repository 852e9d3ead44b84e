/*
 * nicirq.c - the Per Processor Network Interface Card Activity set
 * (COUNTERS.md section 6): instances "IF/CPU", one per interface with a
 * device (include/nicdev.h) and per CPU column of /proc/interrupts' header.
 * Its one counter, Interrupts/sec, is a total over rows of the Interrupt set
 * (the engine sums them, COUNTERS.md 1): this provider reads no count, it
 * only lists the instances and answers rows_match, which Interrupt row
 * ("38/1") belongs to which instance ("eth0/1"): same CPU, and an IRQ of the
 * interface. The engine forms "eth0/_Total" (GROUP_PARENT).
 *
 * An interface's IRQs are the numbers in its device's msi_irqs/ directory;
 * without one (or with it empty), the /proc/interrupts rows whose action
 * names name the interface (nicirq_action_match: the interface as a token,
 * or for virtio the virtio device's name followed by '-').
 *
 * Discovery lists sys/class/net and works out each interface's IRQs: under
 * --root every read (each root is its own tree); live at most once a
 * second, the IRQs only for an interface that is new or whose ifindex
 * changed, with the directory stream kept open and the records kept in name
 * order, so a steady state allocates nothing. /proc/interrupts is the
 * pfile the Interrupt set reads too, so it is read once per sample.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interrupts.h"
#include "nic.h"
#include "nicdev.h"
#include "nicirq.h"
#include "provider.h"

#define RESCAN_NS 1000000000ull

enum {
	F_CPU, /* never put: the counter totals Interrupt rows, no field */
	F_NFIELDS,
};

static const struct field_desc fields[F_NFIELDS] = {
	[F_CPU] = { "cpu", FW_64, FK_GAUGE, FB_NONE, NO_PROM },
};

static const struct counter_desc counters[] = {
	{
		/* The interface's IRQ rows of \Interrupt(IRQ/CPU), summed. */
		.name = "Interrupts/sec",
		.type = CT_RATE,
		.rows_set = "Interrupt",
		.rows_counter = "Interrupts/sec",
		.unit = "/s",
		.help = "Hardware interrupts of the interface's device that this processor "
			"handled per second (its IRQs' cells of /proc/interrupts).",
	},
};

static const struct counter_set set = {
	.name = "Per Processor Network Interface Card Activity",
	.help = "Interrupts of each network interface's device per processor, as "
		"instances IF/CPU, for interfaces that have a device.",
	.multi_instance = 1,
	.group = GROUP_PARENT, /* IF/_Total per interface */
	.fields = fields,
	.nfields = F_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
};

/* One interface with a device, as the last discovery found it. */
struct ni_if {
	char name[64];
	uint64_t seen;     /* the discovery that last listed it */
	uint64_t identity; /* ifindex, else a hash of the name */
	int from_msi;      /* the IRQs came from msi_irqs/ */
	unsigned *irqs;    /* its IRQ numbers, ascending, no repeats */
	size_t nirqs, irqs_cap;
};

struct ni_state {
	struct procfs *fs;
	struct pfile *pf;   /* proc/interrupts */
	struct ni_if *ifs;  /* in name order (strverscmp) */
	size_t nifs, cap;
	uint64_t scans;      /* discoveries run */
	uint64_t scanned_ns; /* live: when discovery last ran; 0 never */
	struct nic_link_watch watch; /* live: link notifications */
	unsigned *cpus;      /* the header's CPU of each column */
	size_t cpus_cap, ncols;
	uint64_t *vals;      /* one row's counts (discovery by names) */
	size_t vals_cap;
	const char *rows;    /* this read's rows (after the header) .. end */
	const char *end;
	char path[256];
};

/* A letter or a digit. */
static int
is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Nonzero when ifname occurs in name[0 .. len) as a token (nicirq.h). */
static int
has_token(const char *name, size_t len, const char *ifname, size_t iflen)
{
	for (size_t k = 0; k + iflen <= len; k++) {
		char before = k ? name[k - 1] : ' ';
		char after = k + iflen < len ? name[k + iflen] : '\0';
		if (memcmp(name + k, ifname, iflen) != 0)
			continue;
		if (is_alnum(before) || before == '.' || before == '_')
			continue;
		if (after == '-' || after == ':' || after == '\0')
			return 1;
	}
	return 0;
}

int
nicirq_action_match(const char *actions, size_t len, const char *ifname, const char *virtio)
{
	const char *p = actions, *e = actions + len;
	size_t vlen = virtio ? strlen(virtio) : 0, iflen = strlen(ifname);

	while (p < e) {
		const char *q = memchr(p, ',', (size_t)(e - p)), *ne;
		ne = q ? q : e;
		while (p < ne && (*p == ' ' || *p == '\t'))
			p++;
		const char *te = ne;
		while (te > p && (te[-1] == ' ' || te[-1] == '\t'))
			te--;
		size_t n = (size_t)(te - p);
		if (vlen) {
			if (n > vlen && memcmp(p, virtio, vlen) == 0 && p[vlen] == '-')
				return 1;
		} else if (iflen && has_token(p, n, ifname, iflen)) {
			return 1;
		}
		p = q ? q + 1 : e;
	}
	return 0;
}

/* qsort order of IRQ numbers. */
static int
irq_cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* The decimal number that is all of [p, p + n), into *v: 0, or -1. */
static int
parse_irq(const char *p, size_t n, unsigned *v)
{
	uint64_t x = 0;

	if (n == 0 || n > 9)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(p[i] - '0');
	}
	*v = (unsigned)x;
	return 0;
}

/* The IRQ numbers listed so far (nicirq_device_irqs). */
struct irq_list {
	unsigned **irqs;
	size_t *cap, n;
};

/* One entry of a device's msi_irqs/: an IRQ number. */
static int
msi_entry(const char *name, unsigned char type, void *arg)
{
	struct irq_list *l = arg;
	unsigned irq;

	(void)type;
	if (parse_irq(name, strlen(name), &irq) == 0) {
		xgrow((void **)l->irqs, l->cap, l->n + 1, sizeof(**l->irqs));
		(*l->irqs)[l->n++] = irq;
	}
	return 0;
}

size_t
nicirq_device_irqs(struct procfs *fs, const char *ifname, const struct nicdev *dev,
		   const struct nicirq_rows *rows, unsigned **irqs, size_t *cap, int *from_msi)
{
	struct interrupts_row row;
	const char *p;
	unsigned irq;
	char path[sizeof(dev->dir) + 16];
	struct irq_list l = { irqs, cap, 0 };
	size_t n, j = 0;

	*from_msi = 0;
	snprintf(path, sizeof(path), "%s/msi_irqs", dev->dir);
	procfs_list(fs, path, msi_entry, &l);
	n = l.n;
	if (n) {
		*from_msi = 1;
	} else {
		p = rows->rows;
		while (p && interrupts_row_next(&p, rows->end, rows->vals, rows->ncols, &row))
			if (row.numbered && parse_irq(row.name, row.name_len, &irq) == 0 &&
			    nicirq_action_match(row.actions, row.actions_len, ifname,
						dev->virtio)) {
				xgrow((void **)irqs, cap, n + 1, sizeof(**irqs));
				(*irqs)[n++] = irq;
			}
	}
	if (n > 1)
		qsort(*irqs, n, sizeof(**irqs), irq_cmp);
	for (size_t i = 0; i < n; i++)
		if (j == 0 || (*irqs)[j - 1] != (*irqs)[i])
			(*irqs)[j++] = (*irqs)[i];
	return j;
}

/* Work out ni's IRQs from its device dev (nicirq_device_irqs). */
static void
find_irqs(struct ni_state *st, struct ni_if *ni, const struct nicdev *dev)
{
	struct nicirq_rows rows = { st->rows, st->end, st->vals, st->ncols };

	ni->nirqs = nicirq_device_irqs(st->fs, ni->name, dev, &rows, &ni->irqs, &ni->irqs_cap,
				       &ni->from_msi);
}

/* The interface named name (NUL-terminated, shorter than the name field),
 * or NULL. *at gets where it would go in name order. */
static struct ni_if *
find_if(struct ni_state *st, const char *name, size_t *at)
{
	int found;
	size_t i = name_place(st->ifs, st->nifs, sizeof(*st->ifs), offsetof(struct ni_if, name),
			      name, &found);

	*at = i;
	return found ? &st->ifs[i] : NULL;
}

/* The interface named name (len bytes, shorter than its name field):
 * found, or inserted in name order (*is_new set). */
static struct ni_if *
lookup_if(struct ni_state *st, const char *name, size_t len, int *is_new)
{
	size_t lo = 0;
	struct ni_if *ni = find_if(st, name, &lo);

	*is_new = !ni;
	if (ni)
		return ni;
	xgrow((void **)&st->ifs, &st->cap, st->nifs + 1, sizeof(*st->ifs));
	memmove(&st->ifs[lo + 1], &st->ifs[lo], (st->nifs - lo) * sizeof(*st->ifs));
	st->nifs++;
	ni = &st->ifs[lo];
	memset(ni, 0, sizeof(*ni));
	memcpy(ni->name, name, len + 1);
	return ni;
}

/* One entry of sys/class/net: an interface with a device is kept (its IRQs
 * found again when it is new, changed, or under --root). */
static int
net_entry(const char *name, unsigned char type, void *arg)
{
	struct ni_state *st = arg;
	struct nicdev dev;
	uint64_t ifindex, id;
	size_t len = strlen(name);
	struct ni_if *ni;
	int is_new;

	if (nicdev_of_entry(st->fs, name, type, sizeof(st->ifs->name), &dev) < 0)
		return 0; /* virtual: no instance */
	snprintf(st->path, sizeof(st->path), "sys/class/net/%.64s/ifindex", name);
	id = procfs_read_u64(st->fs, st->path, &ifindex) == 0 ? ifindex : str_hash(name);
	ni = lookup_if(st, name, len, &is_new);
	ni->seen = st->scans;
	if (is_new || !procfs_is_live(st->fs) || ni->identity != id) {
		ni->identity = id;
		find_irqs(st, ni, &dev);
	}
	return 0;
}

/* List sys/class/net again: every interface with a device, in name order,
 * the others forgotten; the IRQs of each new or changed one (every one
 * under --root). No sys/class/net gives no interfaces. */
static void
discover(struct ni_state *st)
{
	size_t j = 0;

	st->scans++;
	procfs_list(st->fs, "sys/class/net", net_entry, st);
	for (size_t i = 0; i < st->nifs; i++) {
		if (st->ifs[i].seen == st->scans)
			st->ifs[j++] = st->ifs[i];
		else
			free(st->ifs[i].irqs);
	}
	st->nifs = j;
}

/* Prepare; discovery waits for the first read. Interrupts/sec needs no raw
 * field of this set, so the file is always wanted. */
static void *
nicirq_open(const struct provider_ctx *ctx, struct err *err)
{
	struct ni_state *st = xcalloc(1, sizeof(*st));

	(void)err;
	st->fs = ctx->fs;
	st->pf = interrupts_file(ctx->fs, "proc/interrupts");
	if (procfs_is_live(ctx->fs))
		(void)nic_link_watch_open(&st->watch);
	return st;
}

/* One read: the header's CPUs, discovery when due, then IF/CPU for every
 * interface with a device and every CPU column. */
static int
nicirq_read(void *state, struct raw_set *out, struct err *err)
{
	struct ni_state *st = state;
	const char *buf, *p;
	size_t len;
	char name[96];

	buf = pfile_read(st->pf, &len, err);
	if (!buf)
		return errno == ENOENT ? 0 : -1;
	p = buf;
	st->end = buf + len;
	st->ncols = interrupts_header(&p, st->end, st->cpus, st->cpus_cap);
	if (st->ncols > st->cpus_cap || st->ncols > st->vals_cap) {
		xgrow((void **)&st->cpus, &st->cpus_cap, st->ncols, sizeof(*st->cpus));
		xgrow((void **)&st->vals, &st->vals_cap, st->ncols, sizeof(*st->vals));
		p = buf;
		interrupts_header(&p, st->end, st->cpus, st->cpus_cap);
	}
	st->rows = p;
	/* live, listed again when the links changed (or each second
	 * without notifications): listing sys/class/net was 3.8 ms over 401
	 * interfaces, every sample at a 1 s interval */
	int changed = st->watch.on ? nic_link_watch_changed(&st->watch, st->fs,
							     procfs_generation(st->fs))
				   : now_mono_ns() - st->scanned_ns >= RESCAN_NS;
	if (!procfs_is_live(st->fs) || st->scanned_ns == 0 || changed) {
		discover(st);
		st->scanned_ns = now_mono_ns();
	}
	for (size_t i = 0; i < st->nifs; i++) {
		const struct ni_if *ni = &st->ifs[i];
		/* "IFNAME/CPU": the name once, then each CPU's number */
		size_t base = strnlen(ni->name, sizeof(ni->name) - 1);
		memcpy(name, ni->name, base);
		name[base++] = '/';
		for (size_t c = 0; c < st->ncols; c++) {
			size_t n = base + fmt_uint(name + base, st->cpus[c]);
			struct raw_instance *ri = raw_set_add(out, name, n, ni->identity);
			raw_set_in_total(out, ri, 0); /* no set-wide _Total; IF/_Total is a group */
		}
	}
	st->rows = NULL;
	return 0;
}

/* The interface of instance "IF/CPU" (its IF part is [inst, sep)), or NULL. */
static const struct ni_if *
instance_if(struct ni_state *st, const char *inst, const char *sep)
{
	char name[sizeof(st->ifs->name)];
	size_t len = (size_t)(sep - inst), at;

	if (len >= sizeof(name))
		return NULL;
	memcpy(name, inst, len);
	name[len] = '\0';
	return find_if(st, name, &at);
}

/* Nonzero when Interrupt row "IRQ/CPU" is one of instance "IF/CPU"'s: the
 * same CPU, and IRQ among the interface's IRQs. */
static int
nicirq_rows_match(void *state, const char *instance, const char *row)
{
	struct ni_state *st = state;
	const char *isep = strrchr(instance, '/'), *rsep = strrchr(row, '/');
	const struct ni_if *ni;
	unsigned irq;

	if (!isep || !rsep || strcmp(isep + 1, rsep + 1) != 0)
		return 0;
	if (parse_irq(row, (size_t)(rsep - row), &irq) < 0)
		return 0; /* NMI, LOC, ...: no device's */
	ni = instance_if(st, instance, isep);
	return ni && ni->nirqs && bsearch(&irq, ni->irqs, ni->nirqs, sizeof(*ni->irqs), irq_cmp);
}

/* For a log: instance "IF/CPU"'s row parents, its interface's IRQs. */
static size_t
nicirq_instance_key(void *state, const char *instance, char *buf, size_t n)
{
	struct ni_state *st = state;
	const char *sep = strrchr(instance, '/');
	const struct ni_if *ni = sep ? instance_if(st, instance, sep) : NULL;
	size_t len = 0;

	if (n)
		buf[0] = '\0';
	for (size_t i = 0; ni && i < ni->nirqs && len + 1 < n; i++) {
		int k = snprintf(buf + len, n - len, "%s%u", i ? " " : "", ni->irqs[i]);
		if (k < 0 || (size_t)k >= n - len)
			break;
		len += (size_t)k;
	}
	return len;
}

/* -l -v / -q -v: the IRQs an instance's interface has here. */
static size_t
nicirq_describe(void *state, const struct counter_desc *c, const char *instance, char *buf,
		size_t n)
{
	struct ni_state *st = state;
	const char *sep = instance ? strrchr(instance, '/') : NULL;
	const struct ni_if *ni = sep ? instance_if(st, instance, sep) : NULL;
	size_t len;
	int k;

	(void)c;
	if (!ni || n == 0)
		return 0;
	k = snprintf(buf, n, "here %s IRQs%s", ni->from_msi ? "msi_irqs" : "named",
		     ni->nirqs ? ":" : ": none");
	len = k > 0 ? (size_t)k : 0;
	for (size_t i = 0; i < ni->nirqs && len + 1 < n; i++) {
		k = snprintf(buf + len, n - len, " %u", ni->irqs[i]);
		len += k > 0 ? (size_t)k : 0;
	}
	return len < n ? len : n - 1;
}

/* Free the state (the pfile belongs to the procfs). */
static void
nicirq_close(void *state)
{
	struct ni_state *st = state;

	if (!st)
		return;
	for (size_t i = 0; i < st->nifs; i++)
		free(st->ifs[i].irqs);
	nic_link_watch_close(&st->watch);
	free(st->ifs);
	free(st->cpus);
	free(st->vals);
	free(st);
}

const struct provider provider_per_processor_nic_activity = {
	.set = &set,
	.open = nicirq_open,
	.read = nicirq_read,
	.close = nicirq_close,
	.describe = nicirq_describe,
	.rows_match = nicirq_rows_match,
	.instance_key = nicirq_instance_key,
};
