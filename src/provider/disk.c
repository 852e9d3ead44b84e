/*
 * disk.c - the PhysicalDisk counter set (COUNTERS.md section 4): one
 * instance per whole disk, from /proc/diskstats, plus the diskstats line
 * parser (include/diskstats.h) that LogicalDisk will share.
 *
 * Which diskstats names are whole disks is decided from sysfs when a name
 * first appears and kept in the provider state, so a steady read is one
 * pread of proc/diskstats plus one of `size` for each device whose size
 * comes and goes (loop, nbd, zram, removable media).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskcounters.h"
#include "diskstats.h"
#include "provider.h"

/* The raw fields: exactly the diskstats order, so a parsed value's place is
 * its field number. */
enum {
	F_READS = DS_READS,
	F_READS_MERGED = DS_READS_MERGED,
	F_SECTORS_READ = DS_SECTORS_READ,
	F_MS_READING = DS_MS_READING,
	F_WRITES = DS_WRITES,
	F_WRITES_MERGED = DS_WRITES_MERGED,
	F_SECTORS_WRITTEN = DS_SECTORS_WRITTEN,
	F_MS_WRITING = DS_MS_WRITING,
	F_INFLIGHT = DS_INFLIGHT,
	F_IO_TICKS = DS_IO_TICKS,
	F_TIME_IN_QUEUE = DS_TIME_IN_QUEUE,
	F_DISCARDS = DS_DISCARDS,
	F_DISCARDS_MERGED = DS_DISCARDS_MERGED,
	F_SECTORS_DISCARDED = DS_SECTORS_DISCARDED,
	F_MS_DISCARDING = DS_MS_DISCARDING,
	F_FLUSHES = DS_FLUSHES,
	F_MS_FLUSHING = DS_MS_FLUSHING,
	F_NFIELDS = DS_NFIELDS
};

static const struct field_desc fields[F_NFIELDS] = {
	DISK_FIELD_DESCS
};


static const struct counter_desc counters[] = {
	DISK_BLOCK_COUNTERS
};

static const struct counter_set set = {
	.name = "PhysicalDisk",
	.help = "Requests, bytes, times and queues of each whole disk.",
	.multi_instance = 1,
	.has_total = 1,
	.fields = fields,
	.nfields = ARRAY_SIZE(fields),
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
	.inflight_field = FIELD_REF(F_INFLIGHT),
	.prom_labels = "device",
};

/* The fields whose wrap bound needs I/Os in progress. */
#define DISK_MS_FIELDS                                                                      \
	((1u << F_MS_READING) | (1u << F_MS_WRITING) | (1u << F_TIME_IN_QUEUE) |            \
	 (1u << F_MS_DISCARDING) | (1u << F_MS_FLUSHING))
#define ALL_FIELDS ((1u << F_NFIELDS) - 1u)

/* 64 bytes hold every kernel disk name (DISK_NAME_LEN is 32). */
#define NAME_MAX_LEN 63

enum disk_kind {
	DISK_SKIP,  /* a partition, dm, md, hidden or sized 0 */
	DISK_WHOLE, /* a whole disk, counted */
};

/* What we know of one name diskstats has listed: 48 bytes (4,000 disks
 * make 192 KB of them). */
struct disk_entry {
	uint64_t identity;
	uint64_t size;       /* the last size read from size_file */
	uint32_t name;       /* its place in the state's names */
	uint32_t size_file;  /* pfile_number of the size file re-read each read
			      * (loop, nbd, zram, removable), or 0 */
	unsigned int major, minor;
	uint32_t classified_epoch; /* 0: never classified */
	uint32_t seen;   /* the read number it was last listed in */
	uint32_t listed; /* the read number it was last registered in (no sys/block) */
	uint8_t kind;    /* enum disk_kind */
};

_Static_assert(sizeof(struct disk_entry) == 48, "a disk entry is 48 bytes");

struct disk_state {
	struct procfs *fs;
	struct pfile *diskstats;
	uint32_t put; /* fields to record */
	int sysblock; /* sys/block exists: -1 unknown */
	uint32_t epoch; /* from 1, bumped when sysblock changes: classify anew */
	uint32_t reads; /* read number, from 1 (never 0, which is none) */
	uint32_t registered; /* read number whose names are all in the table */
	struct disk_entry *entries;
	size_t nentries, cap;
	struct strset names; /* the entries' names (entries are never dropped) */
	int added;           /* an entry was added in this read */
	uint32_t *slots; /* open addressing: entry index + 1, 0 empty */
	size_t nslots;   /* a power of two, at least twice nentries */
	size_t cursor;   /* the entry expected next: diskstats keeps its order */
};

/* Parse one unsigned decimal token after blanks. */
static int
parse_token(const char **p, const char *end, uint64_t *v)
{
	*p = skip_blanks(*p);
	if (*p >= end)
		return -1;
	if (parse_u64(p, v) < 0)
		return -1;
	if (*p < end && **p != ' ' && **p != '\t')
		return -1;
	return 0;
}

/* The major and minor numbers that start a line at *p (up to end), *p
 * moved past them. */
static int
parse_devt(const char **p, const char *end, unsigned int *major, unsigned int *minor)
{
	uint64_t ma, mi;

	if (parse_token(p, end, &ma) < 0 || parse_token(p, end, &mi) < 0)
		return -1;
	if (ma > 0xFFFFFFFFu || mi > 0xFFFFFFFFu)
		return -1;
	*major = (unsigned int)ma;
	*minor = (unsigned int)mi;
	return 0;
}

int
diskstats_line_devt(const char *line, size_t len, unsigned int *major, unsigned int *minor)
{
	const char *p = line;

	return parse_devt(&p, line + len, major, minor);
}

/* The major, minor and name that start line[0..len) into out; where its
 * stat fields start, or NULL when they are not there. */
static const char *
parse_head(const char *line, size_t len, struct diskstats_line *out)
{
	const char *p = line, *end = line + len;

	if (parse_devt(&p, end, &out->major, &out->minor) < 0)
		return NULL;
	p = skip_blanks(p);
	out->name = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	out->name_len = (size_t)(p - out->name);
	return out->name_len ? p : NULL;
}

/* The stat fields of a line, from p to end, into out (its head parsed). */
static int
parse_fields(const char *p, const char *end, struct diskstats_line *out)
{
	static const uint8_t partition_fields[4] = { DS_READS, DS_SECTORS_READ, DS_WRITES,
						     DS_SECTORS_WRITTEN };
	uint64_t v[DS_NFIELDS];
	uint64_t x;
	unsigned int n = 0;

	for (;;) {
		p = skip_blanks(p);
		if (p >= end)
			break;
		if (parse_token(&p, end, &x) < 0)
			return -1;
		if (n < DS_NFIELDS)
			v[n] = x;
		n++;
	}
	if (n < 4 || (n > 4 && n < 11))
		return -1;
	out->nfields = n;
	out->present = 0;
	memset(out->values, 0, sizeof(out->values));
	if (n == 4) {
		for (unsigned int i = 0; i < 4; i++) {
			out->values[partition_fields[i]] = v[i];
			out->present |= 1u << partition_fields[i];
		}
		return 0;
	}
	if (n > DS_NFIELDS)
		n = DS_NFIELDS;
	for (unsigned int i = 0; i < n; i++) {
		out->values[i] = v[i];
		out->present |= 1u << i;
	}
	return 0;
}

int
diskstats_parse_line(const char *line, size_t len, struct diskstats_line *out)
{
	const char *p = parse_head(line, len, out);

	return p ? parse_fields(p, line + len, out) : -1;
}

/* FNV-1a of name[0..len). */
static uint32_t
name_hash(const char *name, size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

/* The name of e. */
static const char *
entry_name(const struct disk_state *st, const struct disk_entry *e)
{
	return strset_str(&st->names, e->name);
}

/* Nonzero when e is named name[0..len). */
static int
entry_named(const struct disk_state *st, const struct disk_entry *e, const char *name, size_t len)
{
	const char *n = entry_name(st, e);
	return strncmp(n, name, len) == 0 && n[len] == '\0';
}

/* Put entry index i into the slot table (which has room). */
static void
slot_insert(struct disk_state *st, size_t i)
{
	const char *name = entry_name(st, &st->entries[i]);
	size_t mask = st->nslots - 1;
	size_t s = name_hash(name, strlen(name)) & mask;

	while (st->slots[s])
		s = (s + 1) & mask;
	st->slots[s] = (uint32_t)(i + 1);
}

/* The entry named name[0..len), or NULL (a NUL ends a name, as it does
 * where the names are kept). */
static struct disk_entry *
entry_find(struct disk_state *st, const char *name, size_t len)
{
	struct disk_entry *e;

	len = strnlen(name, len);
	if (st->cursor < st->nentries) {
		e = &st->entries[st->cursor];
		if (entry_named(st, e, name, len)) {
			st->cursor++;
			return e;
		}
	}
	if (!st->nslots)
		return NULL;
	size_t mask = st->nslots - 1;
	for (size_t s = name_hash(name, len) & mask; st->slots[s]; s = (s + 1) & mask) {
		e = &st->entries[st->slots[s] - 1];
		if (entry_named(st, e, name, len)) {
			st->cursor = (size_t)(e - st->entries) + 1;
			return e;
		}
	}
	return NULL;
}

/* A new, unclassified entry named name[0..len) (len <= NAME_MAX_LEN). */
static struct disk_entry *
entry_add(struct disk_state *st, const char *name, size_t len)
{
	struct disk_entry *e;

	if (st->nentries == st->cap)
		xgrow((void **)&st->entries, &st->cap, st->nentries + 1, sizeof(*st->entries));
	if ((st->nentries + 1) * 2 > st->nslots) {
		size_t n = st->nslots ? st->nslots * 2 : 64;
		free(st->slots);
		st->slots = xcalloc(n, sizeof(*st->slots));
		st->nslots = n;
		for (size_t i = 0; i < st->nentries; i++)
			slot_insert(st, i);
	}
	e = &st->entries[st->nentries];
	memset(e, 0, sizeof(*e));
	e->name = strset_add_n(&st->names, name, len, NULL);
	st->added = 1;
	slot_insert(st, st->nentries);
	st->nentries++;
	return e;
}

/* Nonzero when name starts with prefix. */
static int
starts_with(const char *name, const char *prefix)
{
	return strncmp(name, prefix, strlen(prefix)) == 0;
}

/* sysfs spells a '/' of a disk name as '!' (cciss/c0d0). */
static void
sysfs_name(char *dst, const char *name)
{
	for (; *name; name++)
		*dst++ = *name == '/' ? '!' : *name;
	*dst = '\0';
}

/* Nonzero when name[0..len) is listed in this read's diskstats. */
static int
listed_now(struct disk_state *st, const char *name, size_t len)
{
	size_t cursor = st->cursor;
	struct disk_entry *e = entry_find(st, name, len);

	st->cursor = cursor;
	return e && e->listed == st->reads;
}

/* Without sys/block: a partition is a listed name plus N after a letter
 * (sda1) or plus pN after a digit (nvme0n1p2, mmcblk0p1, loop0p1). */
static int
named_partition(struct disk_state *st, const char *name)
{
	size_t len = strlen(name), base = len;

	while (base > 0 && name[base - 1] >= '0' && name[base - 1] <= '9')
		base--;
	if (base == len || base == 0)
		return 0;
	char last = name[base - 1];
	if (((last >= 'a' && last <= 'z') || (last >= 'A' && last <= 'Z')) &&
	    listed_now(st, name, base))
		return 1;
	if (last == 'p' && base >= 2 && name[base - 2] >= '0' && name[base - 2] <= '9' &&
	    listed_now(st, name, base - 1))
		return 1;
	return 0;
}

/* Enter every name of this read's diskstats into the table (needed once per
 * read, and only when a new name must be classified without sys/block). */
static void
register_names(struct disk_state *st, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	size_t cursor = st->cursor;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct diskstats_line dl;

		if (diskstats_parse_line(p, (size_t)(eol - p), &dl) == 0 &&
		    dl.name_len <= NAME_MAX_LEN) {
			struct disk_entry *e = entry_find(st, dl.name, dl.name_len);
			if (!e) {
				e = entry_add(st, dl.name, dl.name_len);
				e->major = dl.major;
				e->minor = dl.minor;
			}
			e->listed = st->reads;
		}
		p = eol + 1;
	}
	st->registered = st->reads;
	st->cursor = cursor;
}

/* Read the size file of e into e->size; 0, or -1 when it cannot be read. */
static int
read_size(struct disk_state *st, struct disk_entry *e)
{
	const char *buf, *p;
	size_t len;

	buf = pfile_read(procfs_pfile(st->fs, e->size_file), &len, NULL);
	if (!buf)
		return -1;
	p = skip_blanks(buf);
	return parse_u64(&p, &e->size);
}

/* e's identity: dev_t, mixed with the disk sequence number where the
 * kernel has one (sys/class/block/NAME/diskseq; sname NULL: none). */
static void
set_identity(struct disk_state *st, struct disk_entry *e, const char *sname)
{
	char path[NAME_MAX_LEN + 64];
	uint64_t diskseq;

	e->identity = ((uint64_t)e->major << 20) | e->minor;
	if (!sname)
		return;
	snprintf(path, sizeof(path), "sys/class/block/%s/diskseq", sname);
	if (procfs_read_u64(st->fs, path, &diskseq) == 0)
		e->identity ^= diskseq << 32;
}

/* Decide whether e (its name, major and minor set) is a whole disk. Without
 * sys/block, this read's names must be registered first. */
static void
classify(struct disk_state *st, struct disk_entry *e)
{
	char sname[NAME_MAX_LEN + 1], path[NAME_MAX_LEN + 64];
	const char *name = entry_name(st, e);
	uint64_t v;

	e->classified_epoch = st->epoch;
	e->kind = DISK_SKIP;
	e->size_file = 0;
	if (starts_with(name, "dm-") || starts_with(name, "md"))
		return;
	if (!st->sysblock) {
		if (named_partition(st, name))
			return;
		e->kind = DISK_WHOLE;
		set_identity(st, e, NULL);
		return;
	}
	sysfs_name(sname, name);
	snprintf(path, sizeof(path), "sys/block/%s", sname);
	if (!procfs_exists(st->fs, path))
		return;
	snprintf(path, sizeof(path), "sys/class/block/%s/partition", sname);
	if (procfs_exists(st->fs, path))
		return;
	snprintf(path, sizeof(path), "sys/block/%s/hidden", sname);
	if (procfs_read_u64(st->fs, path, &v) == 0 && v == 1)
		return;
	snprintf(path, sizeof(path), "sys/block/%s/removable", sname);
	int removable = procfs_read_u64(st->fs, path, &v) == 0 && v == 1;
	snprintf(path, sizeof(path), "sys/block/%s/size", sname);
	if (removable || starts_with(name, "loop") || starts_with(name, "nbd") ||
	    starts_with(name, "zram")) {
		/* Its size comes and goes: checked at every read. */
		e->size_file = pfile_number(procfs_file(st->fs, path));
		if (read_size(st, e) < 0)
			e->size = 1; /* no size to go by: counted */
	} else if (procfs_read_u64(st->fs, path, &v) == 0 && v == 0) {
		return;
	}
	e->kind = DISK_WHOLE;
	set_identity(st, e, sname);
}

/* Nonzero when e, a whole disk re-checked at every read, is sized now. A
 * changed size means it was re-attached: its diskseq is read again. */
static int
sized_now(struct disk_state *st, struct disk_entry *e)
{
	uint64_t before = e->size;
	char sname[NAME_MAX_LEN + 1];

	if (read_size(st, e) < 0)
		return 1;
	if (e->size != before) {
		sysfs_name(sname, entry_name(st, e));
		set_identity(st, e, sname);
	}
	return e->size != 0;
}

/* Check whether sys/block exists (once live, at every read of a series). */
static void
check_sysblock(struct disk_state *st)
{
	int now;

	if (st->sysblock >= 0 && procfs_is_live(st->fs))
		return;
	now = procfs_exists(st->fs, "sys/block");
	if (now != st->sysblock)
		st->epoch++;
	st->sysblock = now;
}

/* Prepare to read proc/diskstats. */
static void *
disk_open(const struct provider_ctx *ctx, struct err *err)
{
	struct disk_state *st = xcalloc(1, sizeof(*st));

	(void)err;
	st->fs = ctx->fs;
	strset_by_place(&st->names);
	st->diskstats = procfs_file(ctx->fs, "proc/diskstats");
	/* Every field of the line is parsed anyway, so all are recorded: a
	 * reset seen in any field resets the whole instance (COUNTERS.md 1),
	 * whichever counters were asked for. */
	st->put = ALL_FIELDS;
	st->sysblock = -1;
	return st;
}

/* One read's pass over proc/diskstats. */
struct disk_pass {
	struct disk_state *st;
	struct raw_set *out;
	const char *buf; /* the whole text, read without sys/block; else NULL */
	size_t len;
};

/* One line of proc/diskstats: a whole disk's into the pass's set. */
static void
disk_line(void *arg, const char *line, size_t len)
{
	struct disk_pass *dp = arg;
	struct disk_state *st = dp->st;
	struct diskstats_line dl;
	struct disk_entry *e;
	const char *rest = parse_head(line, len, &dl);

	/* the stat fields are parsed only for a disk that is shown: most
	 * lines are partitions or unattached loop devices */
	if (!rest || dl.name_len > NAME_MAX_LEN)
		return;
	e = entry_find(st, dl.name, dl.name_len);
	if (e && e->seen == st->reads)
		return; /* a name listed twice: the first wins */
	if (!e || e->classified_epoch != st->epoch || (uint32_t)(e->seen + 1) != st->reads ||
	    e->major != dl.major || e->minor != dl.minor) {
		/* New, back after an absence, or another device. */
		if (!st->sysblock && st->registered != st->reads) {
			register_names(st, dp->buf, dp->len);
			e = entry_find(st, dl.name, dl.name_len);
		}
		if (!e)
			e = entry_add(st, dl.name, dl.name_len);
		e->major = dl.major;
		e->minor = dl.minor;
		classify(st, e);
	}
	uint32_t seen_before = e->seen;
	e->seen = st->reads;
	if (e->kind != DISK_WHOLE || (e->size_file && !sized_now(st, e)))
		return;
	if (parse_fields(rest, line + len, &dl) < 0) {
		e->seen = seen_before; /* not a line: a later one of the name may be */
		return;
	}

	const char *name = entry_name(st, e);
	struct raw_instance *ri = raw_set_add(dp->out, name, strlen(name), e->identity);
	uint32_t put = dl.present & st->put;
	for (unsigned int f = 0; f < F_NFIELDS; f++)
		if (put & (1u << f))
			raw_put(dp->out, ri, f, dl.values[f]);
}

/* One read: every whole disk of proc/diskstats into out. With sys/block
 * (always, live) the file is parsed as it is read, through a window:
 * 4,000 disks make 600 KiB of text that no buffer keeps. Without it a
 * new name is classified against every name of the read (register_names),
 * so the text is read whole. */
static int
disk_read(void *state, struct raw_set *out, struct err *err)
{
	struct disk_state *st = state;
	struct disk_pass dp = { st, out, NULL, 0 };

	check_sysblock(st);
	if (!st->sysblock && !(dp.buf = pfile_read(st->diskstats, &dp.len, err)))
		return -1;
	if (++st->reads == 0) /* 0 is none: after 2^32 reads, 1 again */
		st->reads = 1;
	st->cursor = 0;
	if (dp.buf) {
		for (const char *p = dp.buf, *end = dp.buf + dp.len; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *eol = nl ? nl : end;
			disk_line(&dp, p, (size_t)(eol - p));
			p = eol + 1;
		}
	} else if (pfile_lines(st->diskstats, disk_line, &dp, err) < 0) {
		return -1;
	}
	/* entry_find finds names: the names' own table is for adding only */
	if (st->added)
		strset_trim(&st->names);
	st->added = 0;
	return 0;
}

/* Free the state. */
static void
disk_close(void *state)
{
	struct disk_state *st = state;

	if (!st)
		return;
	strset_free(&st->names);
	free(st->entries);
	free(st->slots);
	free(st);
}

const struct provider provider_physicaldisk = {
	.set = &set,
	.open = disk_open,
	.read = disk_read,
	.close = disk_close,
};
