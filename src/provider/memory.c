/*
 * memory.c - the Memory set (COUNTERS.md section 3), one instance named "":
 * gauges from /proc/meminfo (kB, shown as bytes, KB or MB by scale) and page
 * fault and swap counters from /proc/vmstat. Both files are parsed by key
 * name, since the order and the set of keys vary by kernel; each is read
 * only when a requested counter needs one of its fields. Also home of the
 * keyed parser the System set uses for /proc/stat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procstat.h"
#include "provider.h"

/* meminfo fields first, in the order of meminfo_keys, then vmstat's. */
enum {
	F_MEM_FREE,
	F_MEM_AVAILABLE,
	F_BUFFERS,
	F_CACHED,
	F_SRECLAIMABLE,
	F_SWAP_TOTAL,
	F_SWAP_FREE,
	F_COMMIT_LIMIT,
	F_COMMITTED_AS,
	F_PGFAULT,
	F_PGMAJFAULT,
	F_PSWPIN,
	F_PSWPOUT,
	F_NFIELDS,
};

#define BIT(f) ((uint64_t)1 << (f))
#define MEMINFO_FIRST F_MEM_FREE
#define MEMINFO_N (F_COMMITTED_AS + 1 - F_MEM_FREE)
#define VMSTAT_FIRST F_PGFAULT
#define VMSTAT_N (F_PSWPOUT + 1 - F_PGFAULT)
#define MEMINFO_FIELDS ((BIT(MEMINFO_N) - 1) << MEMINFO_FIRST)
#define VMSTAT_FIELDS ((BIT(VMSTAT_N) - 1) << VMSTAT_FIRST)

static const char *const meminfo_keys[MEMINFO_N] = {
	"MemFree", "MemAvailable", "Buffers", "Cached", "SReclaimable",
	"SwapTotal", "SwapFree", "CommitLimit", "Committed_AS",
};

static const char *const vmstat_keys[VMSTAT_N] = {
	"pgfault", "pgmajfault", "pswpin", "pswpout",
};

static const struct field_desc fields[F_NFIELDS] = {
	[F_MEM_FREE] = { "MemFree", FW_64, FK_GAUGE, FB_NONE, PROM("free", "bytes", 1024) },
	[F_MEM_AVAILABLE] = { "MemAvailable", FW_64, FK_GAUGE, FB_NONE,
			      PROM("available", "bytes", 1024) },
	[F_BUFFERS] = { "Buffers", FW_64, FK_GAUGE, FB_NONE, PROM("buffers", "bytes", 1024) },
	[F_CACHED] = { "Cached", FW_64, FK_GAUGE, FB_NONE, PROM("cached", "bytes", 1024) },
	[F_SRECLAIMABLE] = { "SReclaimable", FW_64, FK_GAUGE, FB_NONE,
			     PROM("slab_reclaimable", "bytes", 1024) },
	[F_SWAP_TOTAL] = { "SwapTotal", FW_64, FK_GAUGE, FB_NONE,
			   PROM("swap_size", "bytes", 1024) },
	[F_SWAP_FREE] = { "SwapFree", FW_64, FK_GAUGE, FB_NONE, PROM("swap_free", "bytes", 1024) },
	[F_COMMIT_LIMIT] = { "CommitLimit", FW_64, FK_GAUGE, FB_NONE,
			     PROM("commit_limit", "bytes", 1024) },
	[F_COMMITTED_AS] = { "Committed_AS", FW_64, FK_GAUGE, FB_NONE,
			     PROM("committed", "bytes", 1024) },
	[F_PGFAULT] = { "pgfault", FW_ULONG, FK_COUNTER, FB_NONE, PROM("page_faults", "", 0) },
	[F_PGMAJFAULT] = { "pgmajfault", FW_ULONG, FK_COUNTER, FB_NONE,
			   PROM("major_page_faults", "", 0) },
	[F_PSWPIN] = { "pswpin", FW_ULONG, FK_COUNTER, FB_NONE, PROM("pages_swapped_in", "", 0) },
	[F_PSWPOUT] = { "pswpout", FW_ULONG, FK_COUNTER, FB_NONE,
			PROM("pages_swapped_out", "", 0) },
};

static const struct counter_desc counters[] = {
	{
		.name = "Available Bytes",
		.type = CT_RAW,
		.num = { { F_MEM_AVAILABLE, 1 } },
		.scale = 1024,
		.unit = "B",
		.help = "Memory that could be given to programs now without swapping, "
			"as the kernel estimates it (MemAvailable).",
	},
	{
		.name = "Available KBytes",
		.type = CT_RAW,
		.num = { { F_MEM_AVAILABLE, 1 } },
		.scale = 1,
		.unit = "KB",
		.help = "Available Bytes in kibibytes.",
	},
	{
		.name = "Available MBytes",
		.type = CT_RAW,
		.num = { { F_MEM_AVAILABLE, 1 } },
		.scale = 1 / 1024.0,
		.unit = "MB",
		.help = "Available Bytes in mebibytes.",
	},
	{
		.name = "Committed Bytes",
		.type = CT_RAW,
		.num = { { F_COMMITTED_AS, 1 } },
		.scale = 1024,
		.unit = "B",
		.help = "Memory that programs have been promised, used or not yet "
			"(Committed_AS).",
	},
	{
		.name = "Commit Limit",
		.type = CT_RAW,
		.num = { { F_COMMIT_LIMIT, 1 } },
		.scale = 1024,
		.unit = "B",
		.help = "How much memory may be promised before strict overcommit "
			"accounting refuses more (CommitLimit).",
	},
	{
		.name = "% Committed Bytes In Use",
		.type = CT_FRACTION,
		.num = { { F_COMMITTED_AS, 1 } },
		.den = { { F_COMMIT_LIMIT, 1 } },
		.unit = "%",
		.help = "Committed Bytes as a share of Commit Limit; above 100 when the "
			"kernel overcommits.",
	},
	{
		.name = "Cache Bytes",
		.type = CT_RAW,
		.num = { { F_CACHED, 1 }, { F_BUFFERS, 1 }, { F_SRECLAIMABLE, 1 } },
		.scale = 1024,
		.unit = "B",
		.help = "Memory holding file pages, block buffers and reclaimable kernel "
			"caches.",
	},
	{
		.name = "Page Faults/sec",
		.type = CT_RATE,
		.num = { { F_PGFAULT, 1 } },
		.unit = "/s",
		.help = "Page faults per second, minor and major.",
	},
	{
		.name = "Major Faults/sec",
		.type = CT_RATE,
		.num = { { F_PGMAJFAULT, 1 } },
		.unit = "/s",
		.help = "Page faults per second that had to wait for a disk read.",
	},
	{
		.name = "Pages Input/sec",
		.type = CT_RATE,
		.num = { { F_PSWPIN, 1 } },
		.unit = "/s",
		.help = "Pages read in from swap per second.",
	},
	{
		.name = "Pages Output/sec",
		.type = CT_RATE,
		.num = { { F_PSWPOUT, 1 } },
		.unit = "/s",
		.help = "Pages written out to swap per second.",
	},
	{
		.name = "Pages/sec",
		.type = CT_RATE,
		.num = { { F_PSWPIN, 1 }, { F_PSWPOUT, 1 } },
		.unit = "/s",
		.help = "Pages swapped in plus pages swapped out per second.",
	},
	{
		.name = "Free Bytes",
		.type = CT_RAW,
		.num = { { F_MEM_FREE, 1 } },
		.scale = 1024,
		.unit = "B",
		.help = "Memory nobody uses at all, not even the cache (MemFree).",
	},
	{
		.name = "Swap Used Bytes",
		.type = CT_RAW,
		.num = { { F_SWAP_TOTAL, 1 }, { F_SWAP_FREE, -1 } },
		.scale = 1024,
		.unit = "B",
		.help = "Swap space in use.",
	},
};

static const struct counter_set memory_set = {
	.name = "Memory",
	.help = "Machine-wide memory use, commit, page faults and swapping.",
	.multi_instance = 0,
	.fields = fields,
	.nfields = F_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
};

/* Parse the value after key (klen bytes) at p, line end eol: "key value"
 * or "key: value [kB]". 0 when there is no number. */
static int
key_value(const char *p, const char *eol, uint64_t *val)
{
	if (p < eol && *p == ':')
		p++;
	p = skip_blanks(p);
	return p < eol && parse_u64(&p, val) == 0 ? 0 : -1;
}

uint64_t
procstat_keys_at(const char *buf, size_t len, const char *const *keys, size_t nkeys, uint64_t want,
		 uint64_t *vals, uint32_t *at)
{
	const char *p = buf, *end = buf + len;
	uint64_t found = 0;

	if (nkeys < 64)
		want &= BIT(nkeys) - 1;
	/* each key where its line was last time */
	for (uint64_t m = at ? want : 0; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctzll(m);
		size_t klen = strlen(keys[i]);
		const char *line = buf + at[i];

		if (at[i] == PROCSTAT_AT_NONE || at[i] + klen >= len ||
		    (at[i] && line[-1] != '\n') || memcmp(line, keys[i], klen) != 0 ||
		    (line[klen] != ':' && line[klen] != ' ' && line[klen] != '\t'))
			continue;
		const char *eol = memchr(line + klen, '\n', (size_t)(end - line - klen));
		if (key_value(line + klen, eol ? eol : end, &vals[i]) == 0)
			found |= BIT(i);
	}
	while (p < end && found != want) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *key = p;
		size_t klen;

		if (!eol)
			eol = end;
		while (p < eol && *p != ':' && *p != ' ' && *p != '\t')
			p++;
		klen = (size_t)(p - key);
		for (size_t i = 0; klen && i < nkeys; i++) {
			if (!(want & BIT(i)) || (found & BIT(i)) || keys[i][0] != key[0] ||
			    strncmp(keys[i], key, klen) != 0 || keys[i][klen] != '\0')
				continue;
			if (key_value(p, eol, &vals[i]) == 0) {
				found |= BIT(i);
				if (at)
					at[i] = (uint32_t)(key - buf);
			}
			break;
		}
		p = eol < end ? eol + 1 : end;
	}
	return found;
}

uint64_t
procstat_keys(const char *buf, size_t len, const char *const *keys, size_t nkeys, uint64_t want,
	      uint64_t *vals)
{
	return procstat_keys_at(buf, len, keys, nkeys, want, vals, NULL);
}

struct memory_state {
	uint64_t needed;
	struct pfile *meminfo, *vmstat;
	uint32_t meminfo_at[MEMINFO_N], vmstat_at[VMSTAT_N]; /* procstat_keys_at */
};

/* Open: pick the files the requested counters need. */
static void *
memory_open(const struct provider_ctx *ctx, struct err *err)
{
	struct memory_state *st = xcalloc(1, sizeof(*st));

	memset(st->meminfo_at, 0xFF, sizeof(st->meminfo_at)); /* PROCSTAT_AT_NONE */
	memset(st->vmstat_at, 0xFF, sizeof(st->vmstat_at));

	(void)err;
	st->needed = ctx->needed;
	if (st->needed & MEMINFO_FIELDS)
		st->meminfo = procfs_file(ctx->fs, "proc/meminfo");
	if (st->needed & VMSTAT_FIELDS)
		st->vmstat = procfs_file(ctx->fs, "proc/vmstat");
	return st;
}

/* Nonzero when a line of buf begins with head. */
static int
has_line(const char *buf, const char *head)
{
	size_t n = strlen(head);

	for (const char *p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, head, n) == 0)
			return 1;
	return 0;
}

/* Parse the needed keys of one file into the fields first .. first+n-1.
 * A file that has none of them and no line the kernel's always has (head:
 * "MemTotal:", which 2.4 prints after a table) is said to be malformed. */
static void
read_keyed(struct pfile *pf, const char *const *keys, unsigned first, unsigned n,
	   uint64_t needed, struct raw_set *rs, struct raw_instance *ri, const char *head,
	   uint32_t *at)
{
	uint64_t vals[F_NFIELDS];
	uint64_t found;
	const char *buf;
	size_t len;

	if (!pf || !(buf = pfile_read(pf, &len, NULL)))
		return;
	found = procstat_keys_at(buf, len, keys, n, needed >> first, vals, at);
	if (!found && !has_line(buf, head)) {
		char why[64];
		snprintf(why, sizeof(why), "no '%s' line", head);
		pfile_malformed(pf, why);
	}
	for (unsigned i = 0; i < n; i++)
		if (found & BIT(i))
			raw_put(rs, ri, first + i, vals[i]);
}

/* Read: the one instance; a missing file leaves its fields absent (its
 * counters UNSUPPORTED), it does not fail the set. */
static int
memory_read(void *state, struct raw_set *out, struct err *err)
{
	struct memory_state *st = state;
	struct raw_instance *ri = raw_set_add(out, "", 0, 0);

	(void)err;
	read_keyed(st->meminfo, meminfo_keys, MEMINFO_FIRST, MEMINFO_N, st->needed, out, ri,
		   "MemTotal:", st->meminfo_at);
	read_keyed(st->vmstat, vmstat_keys, VMSTAT_FIRST, VMSTAT_N, st->needed, out, ri,
		   "nr_free_pages", st->vmstat_at);
	return 0;
}

static void
memory_close(void *state)
{
	free(state);
}

const struct provider provider_memory = {
	.set = &memory_set,
	.open = memory_open,
	.read = memory_read,
	.close = memory_close,
};
