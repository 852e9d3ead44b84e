/*
 * logicaldisk.c - the LogicalDisk counter set (COUNTERS.md section 4): one
 * instance per mounted block-device filesystem, named by its mount point.
 *
 * The mounts come from proc/self/mountinfo, re-read live only when poll()
 * says the mount table changed (under --root, at every read). Each mount is
 * tied to a block device (its source /dev/NAME or /dev/mapper/NAME, else
 * the major:minor of mountinfo field 3); the first mount of a device is its
 * instance. Block counters come from that device's /proc/diskstats line,
 * through the parser PhysicalDisk uses; space counters from statvfs(3),
 * live: in the read itself for a local filesystem that answers from memory
 * on a path that never waits (mark_direct), else in a helper thread,
 * started when a mount first needs it, so that a hung filesystem never
 * blocks a read; and from the file
 * DIR/statvfs under --root. Also home of the mountinfo and statvfs-file
 * parsers (include/mountinfo.h).
 */
#define _GNU_SOURCE /* sched_getcpu, pthread_setaffinity_np */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "diskcounters.h"
#include "diskstats.h"
#include "mountinfo.h"
#include "provider.h"

/* The raw fields: the diskstats fields in their own order (as PhysicalDisk
 * has them, so the counter table below is the same), then statvfs's. */
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
	F_FRSIZE = DS_NFIELDS,
	F_BLOCKS,
	F_BFREE,
	F_BAVAIL,
	F_FILES,
	F_FAVAIL,
	F_NFIELDS
};

static const struct field_desc fields[F_NFIELDS] = {
	DISK_FIELD_DESCS
	/* --serve exports the sizes in bytes (fragments x f_frsize), so the
	 * fragment size is no series of its own */
	[F_FRSIZE] = { "f_frsize", FW_64, FK_GAUGE, FB_NONE, NO_PROM },
	[F_BLOCKS] = { "f_blocks", FW_64, FK_GAUGE, FB_NONE,
		       PROM_M("size", "bytes", FIELD_REF(F_FRSIZE)) },
	[F_BFREE] = { "f_bfree", FW_64, FK_GAUGE, FB_NONE,
		      PROM_M("free", "bytes", FIELD_REF(F_FRSIZE)) },
	[F_BAVAIL] = { "f_bavail", FW_64, FK_GAUGE, FB_NONE,
		       PROM_M("available", "bytes", FIELD_REF(F_FRSIZE)) },
	[F_FILES] = { "f_files", FW_64, FK_GAUGE, FB_NONE, PROM("inodes", "", 0) },
	[F_FAVAIL] = { "f_favail", FW_64, FK_GAUGE, FB_NONE, PROM("available_inodes", "", 0) },
};

/* Where each statvfs field comes from in a statvfs result. */
static const uint8_t space_source[F_NFIELDS - F_FRSIZE] = {
	SV_FRSIZE, SV_BLOCKS, SV_BFREE, SV_BAVAIL, SV_FILES, SV_FAVAIL,
};


/* The block counters are PhysicalDisk's, entry for entry. */
static const struct counter_desc counters[] = {
	DISK_BLOCK_COUNTERS
	{
		.name = "% Free Space",
		.type = CT_FRACTION,
		.num = { { F_BAVAIL, 1 } },
		.den = { { F_BLOCKS, 1 }, { F_BFREE, -1 }, { F_BAVAIL, 1 } },
		.mul = FIELD_REF(F_FRSIZE),
		.unit = "%",
		.help = "Space an unprivileged user may still fill, as a share of the space "
			"such a user can have (as df counts it).",
	},
	{
		.name = "Free Megabytes",
		.type = CT_RAW,
		.num = { { F_BAVAIL, 1 } },
		.mul = FIELD_REF(F_FRSIZE),
		.scale = 1.0 / 1048576,
		.unit = "MB",
		.help = "Megabytes an unprivileged user may still write to the filesystem.",
	},
	{
		.name = "% Free Inodes",
		.type = CT_FRACTION,
		.num = { { F_FAVAIL, 1 } },
		.den = { { F_FILES, 1 } },
		.unit = "%",
		.help = "Inodes (file slots) still free for an unprivileged user, as a share "
			"of all; unsupported where the filesystem has no fixed number.",
	},
};

static const struct counter_set set = {
	.name = "LogicalDisk",
	.help = "Requests, bytes, times and queues of the device under each mounted "
		"filesystem, and the filesystem's free space and inodes.",
	.multi_instance = 1,
	.has_total = 1,
	.fields = fields,
	.nfields = ARRAY_SIZE(fields),
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
	.inflight_field = FIELD_REF(F_INFLIGHT),
	.prom_labels = "mountpoint;device",
};

#define BIT(f) ((uint64_t)1 << (f))
#define DS_FIELDS (BIT(DS_NFIELDS) - 1)
#define SPACE_FIELDS ((BIT(F_NFIELDS) - 1) & ~DS_FIELDS)
/* The fields whose wrap bound needs I/Os in progress. */
#define DISK_MS_FIELDS                                                                      \
	(BIT(F_MS_READING) | BIT(F_MS_WRITING) | BIT(F_TIME_IN_QUEUE) | BIT(F_MS_DISCARDING) | \
	 BIT(F_MS_FLUSHING))

/* How long a read waits for the statvfs calls it asked for. */
#define SPACE_WAIT_NS 100000000ull

/* 64 bytes hold every kernel disk name (DISK_NAME_LEN is 32). */
#define NAME_MAX_LEN 63

/* ---- parsers ---- */

/* The next space-separated token of [*p, end): its start and length. */
static int
next_token(const char **p, const char *end, const char **tok, size_t *len)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end)
		return -1;
	*tok = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	*len = (size_t)(s - *tok);
	*p = s;
	return 0;
}

/* Parse a whole token tok[0..len) as an unsigned decimal. */
static int
token_u64(const char *tok, size_t len, uint64_t *v)
{
	const char *p = tok;

	if (parse_u64(&p, v) < 0 || p != tok + len)
		return -1;
	return 0;
}

int
mountinfo_parse_line(const char *line, size_t len, struct mountinfo_line *out)
{
	const char *p = line, *end = line + len, *tok, *colon;
	size_t n;
	uint64_t major, minor;

	memset(out, 0, sizeof(*out));
	/* mount ID, parent ID */
	if (next_token(&p, end, &tok, &n) < 0 || next_token(&p, end, &tok, &n) < 0)
		return -1;
	if (next_token(&p, end, &tok, &n) < 0)
		return -1;
	colon = memchr(tok, ':', n);
	if (!colon || token_u64(tok, (size_t)(colon - tok), &major) < 0 ||
	    token_u64(colon + 1, (size_t)(tok + n - colon - 1), &minor) < 0 ||
	    major > 0xFFFFFFFFu || minor > 0xFFFFFFFFu)
		return -1;
	out->major = (unsigned int)major;
	out->minor = (unsigned int)minor;
	if (next_token(&p, end, &out->root, &out->root_len) < 0 ||
	    next_token(&p, end, &out->point, &out->point_len) < 0 ||
	    next_token(&p, end, &tok, &n) < 0) /* mount options */
		return -1;
	/* optional fields up to the separator */
	do {
		if (next_token(&p, end, &tok, &n) < 0)
			return -1;
	} while (n != 1 || tok[0] != '-');
	if (next_token(&p, end, &out->fstype, &out->fstype_len) < 0)
		return -1;
	if (next_token(&p, end, &out->source, &out->source_len) < 0) {
		out->source = p;
		out->source_len = 0;
	}
	if (next_token(&p, end, &out->super, &out->super_len) < 0) {
		out->super = p;
		out->super_len = 0;
	}
	return 0;
}

/* The value of an octal digit, or -1. */
static int
octal(char c)
{
	return c >= '0' && c <= '7' ? c - '0' : -1;
}

size_t
mountinfo_unescape(const char *s, size_t len, char *dst)
{
	size_t i = 0, n = 0;

	while (i < len) {
		/* \ooo up to \377: one byte */
		if (s[i] == '\\' && len - i >= 4 && octal(s[i + 1]) >= 0 && octal(s[i + 1]) <= 3 &&
		    octal(s[i + 2]) >= 0 && octal(s[i + 3]) >= 0) {
			int c = octal(s[i + 1]) * 64 + octal(s[i + 2]) * 8 + octal(s[i + 3]);
			dst[n++] = (char)c;
			i += 4;
		} else {
			dst[n++] = s[i++];
		}
	}
	dst[n] = '\0';
	return n;
}

/* Whether type[0..len) is one of list's n names. */
static int
type_in(const char *type, size_t len, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && memcmp(list[i], type, len) == 0)
			return 1;
	return 0;
}

/* Local filesystems whose statfs(2) sums counters the superblock keeps in
 * memory: it does not read the device, so a dead disk cannot hold it
 * (but with project quotas: mountinfo_project_quota). */
static const char *const statfs_in_memory[] = { "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs" };

/* Those, and the filesystems held in memory: a path walk through any of
 * them never revalidates a name with a server or a daemon (NFS, CIFS and
 * FUSE do, and wait while it does not answer), and a mount point and the
 * directories above it are pinned in the dentry cache, so it reads no
 * disk either. */
static const char *const walk_in_memory[] = { "ext2", "ext3",  "ext4",  "xfs",     "btrfs",
					      "f2fs", "tmpfs", "ramfs", "devtmpfs" };

int
mountinfo_statfs_in_memory(const char *fstype, size_t len)
{
	return type_in(fstype, len, statfs_in_memory,
		       sizeof(statfs_in_memory) / sizeof(statfs_in_memory[0]));
}

int
mountinfo_walk_in_memory(const char *fstype, size_t len)
{
	return type_in(fstype, len, walk_in_memory,
		       sizeof(walk_in_memory) / sizeof(walk_in_memory[0]));
}

/* The mount options that enforce or account project quotas: ext4's, xfs's
 * and f2fs's statfs then look up the project's quota for a directory
 * that inherits a project, and that lookup may read the disk. */
static const char *const project_quota_options[] = { "prjquota", "prjjquota", "pquota",
						     "pqnoenforce" };

int
mountinfo_project_quota(const char *opts, size_t len)
{
	const char *p = opts, *end = opts + len;

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *q = comma ? comma : end;
		const char *eq = memchr(p, '=', (size_t)(q - p));
		if (type_in(p, (size_t)((eq ? eq : q) - p), project_quota_options,
			    sizeof(project_quota_options) / sizeof(project_quota_options[0])))
			return 1;
		p = q + 1;
	}
	return 0;
}

int
mountinfo_point_on_path(const char *point, size_t plen, const char *path, size_t len)
{
	if (plen == 1 && point[0] == '/')
		return len > 0 && path[0] == '/';
	return plen <= len && memcmp(point, path, plen) == 0 && (plen == len || path[plen] == '/');
}

int
mountinfo_parse_statvfs_line(const char *line, size_t len, struct mountinfo_statvfs_line *out)
{
	const char *p = line, *end = line + len, *tok;
	size_t n;

	for (unsigned int f = 0; f < SV_NFIELDS; f++)
		if (next_token(&p, end, &tok, &n) < 0 || token_u64(tok, n, &out->values[f]) < 0)
			return -1;
	if (next_token(&p, end, &out->point, &out->point_len) < 0)
		return -1;
	return 0;
}

/* ---- a hash index of items by key, open addressing ---- */

struct index {
	uint32_t *slot; /* item number + 1; 0 is empty */
	size_t n;       /* a power of two, more than twice the items */
};

/* Empty ix, with room for items items. */
static void
index_clear(struct index *ix, size_t items)
{
	size_t want = 16;

	while (want < items * 2 + 2)
		want *= 2;
	if (want > ix->n) {
		free(ix->slot);
		ix->slot = xcalloc(want, sizeof(*ix->slot));
		ix->n = want;
	} else {
		memset(ix->slot, 0, ix->n * sizeof(*ix->slot));
	}
}

/* Enter item i under hash h (room is left by index_clear). */
static void
index_put(struct index *ix, uint64_t h, size_t i)
{
	size_t s = (size_t)h & (ix->n - 1);

	while (ix->slot[s])
		s = (s + 1) & (ix->n - 1);
	ix->slot[s] = (uint32_t)(i + 1);
}

/* FNV-1a of name[0..len). */
static uint64_t
name_hash(const char *name, size_t len)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
	return h;
}

/* A device number's hash. */
static uint64_t
devt_hash(uint64_t devt)
{
	return (devt * 0x9E3779B97F4A7C15ull) >> 29;
}

/* major << 32 | minor: the key of a block device. */
static uint64_t
devt_of(unsigned int major, unsigned int minor)
{
	return (uint64_t)major << 32 | minor;
}

/* ---- the statvfs helper thread (live) ---- */

/* The last statvfs call that returned for one mount. */
struct space_result {
	uint8_t fresh; /* returned since the reader last took it */
	uint8_t ok;
	uint64_t sv[SV_NFIELDS];
};

/* What the reader and the helper thread share. A round is handed over by
 * two futex words rather than a condition variable: post (the reader's
 * latest round, with SPACE_QUIT set when the thread is to stop) and done
 * (the thread's latest finished round). On this path a condition variable
 * made six futex calls a round, three of them waking no one (its mutex was
 * left marked contended), and a system call is a microsecond on a virtual
 * machine; the words make two when the woken thread runs first, four when
 * the reader waits for it. mu guards res, version and orphaned. The reader
 * writes paths and grows res only while no round runs (post == done), so
 * the thread reads paths without the lock. Freed by whichever side is
 * last: the reader at close, or the thread if close found it stuck in a
 * call. */
struct space_worker {
	pthread_t thread;
	pthread_mutex_t mu;
	_Atomic uint32_t post;    /* round number | SPACE_QUIT: the thread waits here */
	_Atomic uint32_t done;    /* the last round the thread finished: the reader waits here */
	_Atomic uint32_t waiting; /* the reader waits (or is about to) on done */
	int cpu;      /* the CPU the thread is bound to, -1 for none yet */
	int orphaned; /* the reader has gone: the thread frees everything */
	uint64_t version; /* the mount list the paths are from */
	char *paths;      /* one NUL-terminated mount point per mount, "" to skip */
	size_t paths_cap;
	size_t npaths;
	struct space_result *res; /* res[i]: paths' mount i */
	size_t res_cap;
};

/* post's bit asking the thread to stop; the round number is the rest. */
#define SPACE_QUIT 0x80000000u

/* Sleep while *word is val, until woken or (deadline_ns nonzero) the
 * monotonic deadline passes. Returns ETIMEDOUT when it passed, else 0
 * (woken, or the word had already changed, or a signal). */
static int
futex_wait_until(_Atomic uint32_t *word, uint32_t val, uint64_t deadline_ns)
{
	struct timespec ts = { (time_t)(deadline_ns / 1000000000u),
			       (long)(deadline_ns % 1000000000u) };
	long rc = syscall(SYS_futex, word, FUTEX_WAIT_BITSET_PRIVATE, val,
			  deadline_ns ? &ts : NULL, NULL, FUTEX_BITSET_MATCH_ANY);

	return rc < 0 && errno == ETIMEDOUT ? ETIMEDOUT : 0;
}

static void
futex_wake_one(_Atomic uint32_t *word)
{
	(void)syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Nonzero while a posted round has not finished. */
static int
space_busy(struct space_worker *w)
{
	return (atomic_load(&w->post) & ~SPACE_QUIT) != atomic_load(&w->done);
}

static void
space_free(struct space_worker *w)
{
	pthread_mutex_destroy(&w->mu);
	free(w->paths);
	free(w->res);
	free(w);
}

/* statvfs(3) of path into sv (enum mountinfo_statvfs_field order): 0, or
 * -1 when the call failed. */
static int
space_of(const char *path, uint64_t sv[SV_NFIELDS])
{
	struct statvfs s;

	if (statvfs(path, &s) != 0)
		return -1;
	sv[SV_FRSIZE] = s.f_frsize;
	sv[SV_BLOCKS] = s.f_blocks;
	sv[SV_BFREE] = s.f_bfree;
	sv[SV_BAVAIL] = s.f_bavail;
	sv[SV_FILES] = s.f_files;
	sv[SV_FFREE] = s.f_ffree;
	sv[SV_FAVAIL] = s.f_favail;
	return 0;
}

/* One round: a statvfs call for each path, each result stored as it
 * returns; stops early when asked to quit. */
static void
space_round(struct space_worker *w)
{
	const char *path = w->paths;

	for (size_t i = 0; i < w->npaths && !(atomic_load(&w->post) & SPACE_QUIT); i++) {
		size_t len = strlen(path);
		uint64_t sv[SV_NFIELDS];
		int ok = len > 0 && space_of(path, sv) == 0;

		pthread_mutex_lock(&w->mu);
		w->res[i].fresh = 1;
		w->res[i].ok = (uint8_t)ok;
		if (ok)
			memcpy(w->res[i].sv, sv, sizeof(sv));
		pthread_mutex_unlock(&w->mu);
		path += len + 1;
	}
}

/* The helper thread: runs each posted round in turn. done is stored before
 * waiting is read, and the reader stores waiting before it reads done
 * (both sequentially consistent), so a reader about to sleep is always
 * woken. */
static void *
space_main(void *arg)
{
	struct space_worker *w = arg;
	uint32_t seen = 0;
	int orphaned;

	for (;;) {
		uint32_t p = atomic_load(&w->post);
		if (p & SPACE_QUIT)
			break;
		if (p == seen) {
			(void)futex_wait_until(&w->post, p, 0);
			continue;
		}
		space_round(w);
		seen = p;
		atomic_store(&w->done, p);
		if (atomic_load(&w->waiting))
			futex_wake_one(&w->done);
	}
	pthread_mutex_lock(&w->mu);
	orphaned = w->orphaned;
	pthread_mutex_unlock(&w->mu);
	if (orphaned)
		space_free(w);
	return NULL;
}

/* Start the helper thread, with every signal blocked in it (they are the
 * sampler's). NULL with err filled when it cannot start. */
static struct space_worker *
space_start(struct err *err)
{
	struct space_worker *w = xcalloc(1, sizeof(*w));
	sigset_t all, old;
	int rc;

	pthread_mutex_init(&w->mu, NULL);
	atomic_init(&w->post, 0);
	atomic_init(&w->done, 0);
	atomic_init(&w->waiting, 0);
	w->version = UINT64_MAX;
	w->cpu = -1;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&w->thread, NULL, space_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		space_free(w);
		err_set(err, "cannot start the statvfs thread: %s", strerror(rc));
		return NULL;
	}
	return w;
}

/* Bind the helper thread to the CPU the reader runs on, when that changed.
 * A wakeup there is a switch; a wakeup on another CPU is an interrupt sent
 * to it, which on a virtual machine exits to the hypervisor: with the
 * reader waiting for the round, that was a tenth of a sample of every
 * counter (401 interfaces, on the VM of bench/RESULTS.md). A hung call
 * costs that CPU nothing (the thread sleeps in it). Where the binding is
 * refused (a cpuset that changed), it is tried again when the reader
 * moves. */
static void
space_follow(struct space_worker *w)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	if (cpu < 0 || cpu == w->cpu || cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	(void)pthread_setaffinity_np(w->thread, sizeof(one), &one);
	w->cpu = cpu;
}

/* Wait until the posted round ends or the monotonic deadline passes. */
static void
space_wait(struct space_worker *w, uint64_t deadline_ns)
{
	uint32_t want = atomic_load(&w->post) & ~SPACE_QUIT, d;

	if (atomic_load(&w->done) == want)
		return;
	atomic_store(&w->waiting, 1);
	while ((d = atomic_load(&w->done)) != want)
		if (futex_wait_until(&w->done, d, deadline_ns) == ETIMEDOUT)
			break;
	atomic_store(&w->waiting, 0);
}

/* Stop the thread: joined when its round ends in time, else left to free
 * everything itself when its call returns. */
static void
space_stop(struct space_worker *w)
{
	pthread_t thread = w->thread;
	int stuck;

	atomic_fetch_or(&w->post, SPACE_QUIT);
	futex_wake_one(&w->post);
	space_wait(w, now_mono_ns() + SPACE_WAIT_NS);
	pthread_mutex_lock(&w->mu);
	stuck = space_busy(w);
	w->orphaned = stuck;
	pthread_mutex_unlock(&w->mu);
	if (stuck) {
		pthread_detach(thread);
		return;
	}
	pthread_join(thread, NULL);
	space_free(w);
}

/* ---- the provider ---- */

/* One instance: a mounted filesystem on a block device. */
struct ld_mount {
	size_t name_off, name_len; /* the decoded mount point, NUL-terminated in names */
	uint64_t devt;             /* devt_of() its device */
	uint64_t identity;
	size_t line_no;   /* its mountinfo line */
	uint8_t hidden;   /* another device is mounted over the same point */
	uint8_t space_ok; /* sv holds this read's statvfs figures */
	uint8_t direct;   /* live: statvfs is called in the read, not the thread */
	uint32_t ds_present;
	uint64_t ds_gen; /* the procfs generation whose line ds holds, 0 for none */
	uint64_t ds[DS_NFIELDS];
	uint64_t sv[SV_NFIELDS];
	char dev[32]; /* its diskstats name ("sda1"), --serve's device label */
};

/* A diskstats line, while the mounts are resolved: its name (in
 * st->line_names) and numbers, and its values for the mounts found. */
struct ld_line {
	size_t name_off, name_len;
	unsigned int major, minor;
	uint32_t present;
	uint64_t ds[DS_NFIELDS];
};

/* A device-mapper volume's name (its dm/name), while mounts are resolved. */
struct ld_mapper {
	size_t line;     /* the ld_line of its dm-N */
	size_t name_off; /* in st->mapper_names */
};

/* The provider's state: the mount list, rebuilt when mountinfo changes, and
 * what resolving it needs, all kept for reuse. */
struct ld_state {
	struct procfs *fs;
	int live;
	uint64_t put; /* fields to record */
	struct pfile *mountinfo, *diskstats, *statvfs_file;
	int poll_fd;  /* live: our own /proc/self/mountinfo, polled for changes */
	int stale;    /* the mount list must be built again */
	uint64_t reads;   /* read number, from 1 */
	uint64_t version; /* bumped at every rebuild of the mount list */
	struct ld_mount *mounts;
	size_t nmounts, mounts_cap;
	size_t *order; /* the mounts in mountinfo order */
	size_t order_cap;
	char *names;
	size_t names_len, names_cap;
	struct index by_devt, by_name; /* mounts by device and by (visible) name */
	/* used while resolving, freed after */
	struct ld_line *lines;
	size_t nlines, lines_cap;
	char *line_names;
	size_t line_names_len, line_names_cap;
	struct index lines_by_name;
	struct ld_mapper *mappers;
	size_t nmappers, mappers_cap;
	int mappers_loaded;
	char *mapper_names; /* NUL-terminated, one after another */
	size_t mapper_names_len, mapper_names_cap;
	int space_live;   /* live, with space fields: statvfs, not DIR/statvfs */
	size_t nthreaded; /* live: mounts whose statvfs the thread calls */
	int space_failed; /* the thread could not start: those mounts have no space */
	char *scratch; /* a decoded source or statvfs mount point */
	size_t scratch_cap;
	/* under --root: the mountinfo text and root the list was built from */
	char *built_from;
	size_t built_len, built_cap;
	uint64_t root_serial;
	struct space_worker *worker;
};

/* Make st->scratch hold at least n bytes. */
static char *
scratch(struct ld_state *st, size_t n)
{
	if (n > st->scratch_cap)
		xgrow((void **)&st->scratch, &st->scratch_cap, n, 1);
	return st->scratch;
}

/* The mount named name[0..len) (visible), or -1. */
static long
mount_by_name(const struct ld_state *st, const char *name, size_t len)
{
	size_t mask = st->by_name.n - 1;

	if (!st->by_name.n)
		return -1;
	for (size_t s = (size_t)name_hash(name, len) & mask; st->by_name.slot[s];
	     s = (s + 1) & mask) {
		const struct ld_mount *m = &st->mounts[st->by_name.slot[s] - 1];
		if (m->name_len == len && memcmp(st->names + m->name_off, name, len) == 0)
			return (long)(st->by_name.slot[s] - 1);
	}
	return -1;
}

/* The slot of by_name holding mount i (which is there). */
static size_t
name_slot(const struct ld_state *st, size_t i)
{
	const struct ld_mount *m = &st->mounts[i];
	size_t mask = st->by_name.n - 1;
	size_t s = (size_t)name_hash(st->names + m->name_off, m->name_len) & mask;

	while (st->by_name.slot[s] != i + 1)
		s = (s + 1) & mask;
	return s;
}

/* The mount of device devt, or -1. */
static long
mount_by_devt(const struct ld_state *st, uint64_t devt)
{
	size_t mask = st->by_devt.n - 1;

	if (!st->by_devt.n)
		return -1;
	for (size_t s = (size_t)devt_hash(devt) & mask; st->by_devt.slot[s]; s = (s + 1) & mask)
		if (st->mounts[st->by_devt.slot[s] - 1].devt == devt)
			return (long)(st->by_devt.slot[s] - 1);
	return -1;
}

/* One diskstats line, collected for resolving: name, numbers, values. */
static void
collect_line(void *arg, const char *line, size_t len)
{
	struct ld_state *st = arg;
	struct diskstats_line dl;
	struct ld_line *l;

	if (diskstats_parse_line(line, len, &dl) < 0 || dl.name_len > NAME_MAX_LEN)
		return;
	if (st->nlines == st->lines_cap)
		xgrow((void **)&st->lines, &st->lines_cap, st->nlines + 1, sizeof(*st->lines));
	if (st->line_names_len + dl.name_len > st->line_names_cap)
		xgrow((void **)&st->line_names, &st->line_names_cap,
		      st->line_names_len + dl.name_len, 1);
	l = &st->lines[st->nlines++];
	*l = (struct ld_line){ st->line_names_len, dl.name_len, dl.major, dl.minor,
			       dl.present & (uint32_t)st->put, { 0 } };
	memcpy(l->ds, dl.values, sizeof(l->ds));
	memcpy(st->line_names + st->line_names_len, dl.name, dl.name_len);
	st->line_names_len += dl.name_len;
}

/* Collect this read's diskstats lines for resolving, and index them by
 * name. */
static void
collect_lines(struct ld_state *st)
{
	st->nlines = 0;
	st->line_names_len = 0;
	st->mappers_loaded = 0;
	if (pfile_lines(st->diskstats, collect_line, st, NULL) < 0)
		st->nlines = 0;
	index_clear(&st->lines_by_name, st->nlines + 1);
	for (size_t i = 0; i < st->nlines; i++) {
		const struct ld_line *l = &st->lines[i];
		index_put(&st->lines_by_name, name_hash(st->line_names + l->name_off, l->name_len),
			  i);
	}
}

/* Free what resolving used: a mount list is rebuilt seldom, and the lines
 * of 4,000 disks are 700 KiB. */
static void
resolved(struct ld_state *st)
{
	free(st->lines);
	free(st->line_names);
	free(st->lines_by_name.slot);
	free(st->mappers);
	free(st->mapper_names);
	st->lines = NULL;
	st->line_names = NULL;
	st->lines_by_name = (struct index){ 0 };
	st->mappers = NULL;
	st->mapper_names = NULL;
	st->nlines = st->lines_cap = st->line_names_len = st->line_names_cap = 0;
	st->nmappers = st->mappers_cap = st->mapper_names_len = st->mapper_names_cap = 0;
	st->mappers_loaded = 0;
}

/* The diskstats line named name[0..len), or -1. */
static long
line_by_name(const struct ld_state *st, const char *name, size_t len)
{
	size_t mask = st->lines_by_name.n - 1;

	if (!st->nlines)
		return -1;
	for (size_t s = (size_t)name_hash(name, len) & mask; st->lines_by_name.slot[s];
	     s = (s + 1) & mask) {
		const struct ld_line *l = &st->lines[st->lines_by_name.slot[s] - 1];
		if (l->name_len == len && memcmp(st->line_names + l->name_off, name, len) == 0)
			return (long)(st->lines_by_name.slot[s] - 1);
	}
	return -1;
}

/* Read sys/block/dm-N/dm/name of every dm line, once per rebuild. */
static void
load_mappers(struct ld_state *st)
{
	char path[NAME_MAX_LEN + 32], name[256];

	st->mappers_loaded = 1;
	st->nmappers = 0;
	st->mapper_names_len = 0;
	for (size_t i = 0; i < st->nlines; i++) {
		const struct ld_line *l = &st->lines[i];
		const char *lname = st->line_names + l->name_off;
		long n;

		if (l->name_len < 4 || memcmp(lname, "dm-", 3) != 0)
			continue;
		snprintf(path, sizeof(path), "sys/block/%.*s/dm/name", (int)l->name_len, lname);
		n = procfs_read_small(st->fs, path, name, sizeof(name));
		if (n <= 0)
			continue;
		if (st->nmappers == st->mappers_cap)
			xgrow((void **)&st->mappers, &st->mappers_cap, st->nmappers + 1,
			      sizeof(*st->mappers));
		if (st->mapper_names_len + (size_t)n + 1 > st->mapper_names_cap)
			xgrow((void **)&st->mapper_names, &st->mapper_names_cap,
			      st->mapper_names_len + (size_t)n + 1, 1);
		memcpy(st->mapper_names + st->mapper_names_len, name, (size_t)n + 1);
		st->mappers[st->nmappers++] = (struct ld_mapper){ i, st->mapper_names_len };
		st->mapper_names_len += (size_t)n + 1;
	}
}

/* The device of a mountinfo line: its source /dev/NAME or /dev/mapper/NAME
 * where diskstats lists that device, else field 3 unless anonymous (major
 * 0). Returns devt_of() it, or 0 for none. */
static uint64_t
resolve_device(struct ld_state *st, const struct mountinfo_line *ml)
{
	char *src = scratch(st, ml->source_len + 1);
	size_t n = mountinfo_unescape(ml->source, ml->source_len, src);
	long line = -1;

	if (n > 12 && memcmp(src, "/dev/mapper/", 12) == 0) {
		if (!st->mappers_loaded)
			load_mappers(st);
		for (size_t i = 0; i < st->nmappers; i++)
			if (strcmp(st->mapper_names + st->mappers[i].name_off, src + 12) == 0) {
				line = (long)st->mappers[i].line;
				break;
			}
	} else if (n > 5 && memcmp(src, "/dev/", 5) == 0) {
		line = line_by_name(st, src + 5, n - 5);
	}
	if (line >= 0)
		return devt_of(st->lines[line].major, st->lines[line].minor);
	if (ml->major != 0)
		return devt_of(ml->major, ml->minor);
	return 0;
}

/* A block device's identity: dev_t, mixed with its disk's diskseq where
 * the kernel has one (a partition's is its disk's: NAME/../diskseq). */
static uint64_t
device_identity(struct ld_state *st, const struct ld_line *l)
{
	char path[NAME_MAX_LEN + 48], sname[NAME_MAX_LEN + 1];
	uint64_t id = ((uint64_t)l->major << 20) | l->minor, seq;

	const char *lname = st->line_names + l->name_off;

	for (size_t i = 0; i < l->name_len; i++)
		sname[i] = lname[i] == '/' ? '!' : lname[i];
	sname[l->name_len] = '\0';
	snprintf(path, sizeof(path), "sys/class/block/%s/diskseq", sname);
	if (procfs_read_u64(st->fs, path, &seq) == 0)
		return id ^ seq << 32;
	snprintf(path, sizeof(path), "sys/class/block/%s/../diskseq", sname);
	if (procfs_read_u64(st->fs, path, &seq) == 0)
		return id ^ seq << 32;
	return id;
}

/* Add the mount of line ml (line number line_no) on device devt, unless
 * its device has one. */
static void
add_mount(struct ld_state *st, const struct mountinfo_line *ml, uint64_t devt, size_t line_no)
{
	struct ld_mount *m;
	size_t i = st->nmounts;
	long prev;

	if (mount_by_devt(st, devt) >= 0)
		return; /* a bind mount, or another mount point of the device */
	if (st->names_len + ml->point_len + 1 > st->names_cap)
		xgrow((void **)&st->names, &st->names_cap, st->names_len + ml->point_len + 1, 1);
	if (st->nmounts == st->mounts_cap)
		xgrow((void **)&st->mounts, &st->mounts_cap, st->nmounts + 1, sizeof(*st->mounts));
	m = &st->mounts[i];
	memset(m, 0, sizeof(*m));
	m->name_off = st->names_len;
	m->name_len = mountinfo_unescape(ml->point, ml->point_len, st->names + st->names_len);
	st->names_len += m->name_len + 1;
	m->devt = devt;
	m->identity = ((devt >> 32) << 20) | (devt & 0xFFFFFFFFu);
	m->line_no = line_no;
	m->direct = st->space_live && mountinfo_statfs_in_memory(ml->fstype, ml->fstype_len) &&
		    !mountinfo_project_quota(ml->super, ml->super_len);
	st->nmounts++;
	index_put(&st->by_devt, devt_hash(devt), i);
	prev = mount_by_name(st, st->names + m->name_off, m->name_len);
	if (prev < 0) {
		index_put(&st->by_name, name_hash(st->names + m->name_off, m->name_len), i);
	} else if (st->mounts[prev].line_no < line_no) {
		/* Mounted over the earlier one, which is out of sight. */
		st->by_name.slot[name_slot(st, (size_t)prev)] = (uint32_t)(i + 1);
		st->mounts[prev].hidden = 1;
	} else {
		m->hidden = 1; /* the earlier one was mounted over this */
	}
}

/* Nonzero when line ml mounts the root of its filesystem: not a bind mount
 * of a directory in it. */
static int
whole_filesystem(const struct mountinfo_line *ml)
{
	return ml->root_len == 1 && ml->root[0] == '/';
}

/* Live: a mount stays direct only when no filesystem whose walk may wait
 * is mounted on its way (mountinfo_point_on_path), itself included (an
 * NFS mounted over it). Counts the others, which the thread asks. */
static void
mark_direct(struct ld_state *st, const char *mi, size_t len)
{
	const char *end = mi + len;

	for (const char *p = mi; p < end; p++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		struct mountinfo_line ml;

		if (!eol)
			eol = end;
		if (mountinfo_parse_line(p, (size_t)(eol - p), &ml) == 0 &&
		    !mountinfo_walk_in_memory(ml.fstype, ml.fstype_len)) {
			char *point = scratch(st, ml.point_len + 1);
			size_t n = mountinfo_unescape(ml.point, ml.point_len, point);
			for (size_t i = 0; i < st->nmounts; i++) {
				struct ld_mount *m = &st->mounts[i];
				if (m->direct && mountinfo_point_on_path(point, n, st->names + m->name_off,
									 m->name_len))
					m->direct = 0;
			}
		}
		p = eol;
	}
	st->nthreaded = 0;
	for (size_t i = 0; i < st->nmounts; i++)
		st->nthreaded += !st->mounts[i].hidden && !st->mounts[i].direct;
}

/* Put the mounts in mountinfo order into st->order: mounts [0, n1) and
 * [n1, nmounts) are each in that order already. */
static void
merge_order(struct ld_state *st, size_t n1)
{
	size_t a = 0, b = n1;

	if (st->nmounts > st->order_cap)
		xgrow((void **)&st->order, &st->order_cap, st->nmounts, sizeof(*st->order));
	for (size_t k = 0; k < st->nmounts; k++)
		if (b >= st->nmounts ||
		    (a < n1 && st->mounts[a].line_no < st->mounts[b].line_no))
			st->order[k] = a++;
		else
			st->order[k] = b++;
}

/* Build the mount list from mountinfo mi[0..len), resolving devices with
 * this read's diskstats. A device's instance is its first mount of the whole
 * filesystem, else (btrfs subvolumes, a container's bind-mounted files) its
 * first mount. */
static void
rebuild(struct ld_state *st, const char *mi, size_t len)
{
	const char *p, *end = mi + len;
	size_t nl = 1, first_pass = 0;
	uint64_t gen = procfs_generation(st->fs);

	collect_lines(st);
	for (const char *q = mi; (q = memchr(q, '\n', (size_t)(end - q))); q++)
		nl++;
	index_clear(&st->by_devt, nl);
	index_clear(&st->by_name, nl);
	st->nmounts = 0;
	st->names_len = 0;
	st->version++;
	for (int whole = 1; whole >= 0; whole--) {
		size_t line_no = 0;
		if (!whole)
			first_pass = st->nmounts;
		for (p = mi; p < end; p++, line_no++) {
			const char *eol = memchr(p, '\n', (size_t)(end - p));
			struct mountinfo_line ml;
			uint64_t devt;

			if (!eol)
				eol = end;
			if (mountinfo_parse_line(p, (size_t)(eol - p), &ml) == 0 &&
			    whole_filesystem(&ml) == whole && (devt = resolve_device(st, &ml)) != 0)
				add_mount(st, &ml, devt, line_no);
			p = eol;
		}
	}
	merge_order(st, first_pass);
	if (st->space_live)
		mark_direct(st, mi, len);
	for (size_t i = 0; i < st->nlines; i++) {
		const struct ld_line *l = &st->lines[i];
		long m = mount_by_devt(st, devt_of(l->major, l->minor));
		if (m < 0)
			continue;
		if (l->name_len < sizeof(st->mounts[m].dev)) {
			memcpy(st->mounts[m].dev, st->line_names + l->name_off, l->name_len);
			st->mounts[m].dev[l->name_len] = 0;
		}
		/* this read's values: the device's first line */
		if (st->mounts[m].ds_gen != gen) {
			st->mounts[m].ds_gen = gen;
			st->mounts[m].ds_present = l->present;
			memcpy(st->mounts[m].ds, l->ds, sizeof(l->ds));
		}
	}
	if (st->nmounts && procfs_exists(st->fs, "sys/class/block"))
		for (size_t i = 0; i < st->nlines; i++) {
			const struct ld_line *l = &st->lines[i];
			long m = mount_by_devt(st, devt_of(l->major, l->minor));
			if (m >= 0) /* dev_t with the diskseq mixed in */
				st->mounts[m].identity = device_identity(st, l);
		}
	resolved(st);
}

/* Nonzero when the mount list must be built again before this read: live,
 * when the kernel says the mount table changed; under --root, when the
 * root or its mountinfo's text did (a series' next root, or a tree
 * rewritten between reads). Either way not at each read: a rebuild reads
 * diskstats itself, and allocates. */
static int
mounts_changed(struct ld_state *st)
{
	struct pollfd pfd = { .fd = st->poll_fd, .events = POLLPRI };
	const char *mi;
	size_t len;

	if (st->live && st->poll_fd >= 0 && !st->stale)
		return poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLPRI | POLLERR));
	if (st->live || st->stale || st->root_serial != procfs_root_serial(st->fs) ||
	    !(mi = pfile_read(st->mountinfo, &len, NULL)) || len != st->built_len ||
	    memcmp(mi, st->built_from, len) != 0)
		return 1;
	return 0;
}

/* Under --root: keep the text the mount list was built from. */
static void
keep_built_from(struct ld_state *st, const char *mi, size_t len)
{
	if (st->live)
		return;
	if (len > st->built_cap)
		xgrow((void **)&st->built_from, &st->built_cap, len, 1);
	if (len)
		memcpy(st->built_from, mi, len);
	st->built_len = len;
	st->root_serial = procfs_root_serial(st->fs);
}

/* A line of this read's diskstats: its values, if a mount is on its
 * device (the device's first line). A tap: PhysicalDisk's pass over the
 * file hands it the lines, so the file is read once for both sets. */
static void
ds_line(void *arg, const char *line, size_t len)
{
	struct ld_state *st = arg;
	struct diskstats_line dl;
	uint64_t gen = procfs_generation(st->fs);
	unsigned int major, minor;
	long i;

	/* most lines are of devices no mount is on: their numbers are not
	 * read (PhysicalDisk reads them, in its own pass or tap) */
	if (diskstats_line_devt(line, len, &major, &minor) < 0 ||
	    (i = mount_by_devt(st, devt_of(major, minor))) < 0 || st->mounts[i].ds_gen == gen)
		return;
	if (diskstats_parse_line(line, len, &dl) == 0) {
		struct ld_mount *m = &st->mounts[i];
		m->ds_gen = gen;
		m->ds_present = dl.present & (uint32_t)st->put;
		memcpy(m->ds, dl.values, sizeof(m->ds));
	}
}

/* Each mount's diskstats line of this read, unless another reader's pass
 * (or the rebuild) handed them already. */
static void
read_diskstats(struct ld_state *st, int rebuilt)
{
	if (!rebuilt && !pfile_tapped(st->diskstats, ds_line, st))
		(void)pfile_lines(st->diskstats, ds_line, st, NULL);
}

/* Under --root: each mount's figures from the DIR/statvfs line naming it. */
static void
read_statvfs_file(struct ld_state *st)
{
	const char *buf, *p, *end;
	size_t len;

	buf = pfile_read(st->statvfs_file, &len, NULL);
	if (!buf)
		return;
	for (p = buf, end = buf + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		struct mountinfo_statvfs_line sl;
		long i;

		if (!eol)
			eol = end;
		if (mountinfo_parse_statvfs_line(p, (size_t)(eol - p), &sl) == 0) {
			char *name = scratch(st, sl.point_len + 1);
			size_t n = mountinfo_unescape(sl.point, sl.point_len, name);
			if ((i = mount_by_name(st, name, n)) >= 0) {
				memcpy(st->mounts[i].sv, sl.values, sizeof(sl.values));
				st->mounts[i].space_ok = 1;
			}
		}
		p = eol + 1;
	}
}

/* Live: hand the mount points the read does not ask itself (direct) to the
 * helper thread, unless it is still busy with an earlier round, or there
 * are none. Returns nonzero when a round was posted. */
static int
space_post(struct ld_state *st)
{
	struct space_worker *w = st->worker;

	if (!st->nthreaded)
		return 0;
	if (!w && !st->space_failed) {
		/* started at the first mount that needs it, not at open: on a
		 * machine of local filesystems it never does. Should it fail
		 * (a limit on threads), those mounts' space counters have no
		 * value, the others stay as they are. */
		struct err e = { { 0 } };
		w = st->worker = space_start(&e);
		st->space_failed = !w;
	}
	if (!w || space_busy(w))
		return 0;
	if (w->version != st->version) {
		size_t total = 1;
		char *q;
		pthread_mutex_lock(&w->mu);
		for (size_t i = 0; i < st->nmounts; i++)
			total += st->mounts[i].name_len + 1;
		if (total > w->paths_cap)
			xgrow((void **)&w->paths, &w->paths_cap, total, 1);
		if (st->nmounts > w->res_cap)
			xgrow((void **)&w->res, &w->res_cap, st->nmounts, sizeof(*w->res));
		q = w->paths;
		for (size_t i = 0; i < st->nmounts; i++) {
			const struct ld_mount *m = &st->mounts[i];
			size_t n = m->hidden || m->direct ? 0 : m->name_len;
			memcpy(q, st->names + m->name_off, n);
			q[n] = '\0';
			q += n + 1;
			w->res[i].fresh = 0;
		}
		w->npaths = st->nmounts;
		w->version = st->version;
		pthread_mutex_unlock(&w->mu);
	}
	space_follow(w);
	/* the round number wraps within 31 bits, clear of SPACE_QUIT */
	atomic_store(&w->post, (atomic_load(&w->post) + 1) & ~SPACE_QUIT);
	futex_wake_one(&w->post);
	return 1;
}

/* Live: statvfs of each direct mount, in the read: the same call made by
 * the thread costs two context switches and two futex calls more (20 us
 * of a sample of every counter after a 10 ms sleep, bench/HISTORY.md). */
static void
space_direct(struct ld_state *st)
{
	for (size_t i = 0; i < st->nmounts; i++) {
		struct ld_mount *m = &st->mounts[i];
		if (m->direct)
			m->space_ok = !m->hidden && space_of(st->names + m->name_off, m->sv) == 0;
	}
}

/* Live: wait a little for the round just posted, then take every result
 * that came back since the last read; the others stay absent. */
static void
space_take(struct ld_state *st, int posted, uint64_t posted_ns)
{
	struct space_worker *w = st->worker;
	int same = 0;

	if (!w) {
		for (size_t i = 0; i < st->nmounts; i++)
			if (!st->mounts[i].direct)
				st->mounts[i].space_ok = 0;
		return;
	}
	if (posted)
		space_wait(w, posted_ns + SPACE_WAIT_NS);
	pthread_mutex_lock(&w->mu);
	same = w->version == st->version;
	for (size_t i = 0; i < st->nmounts; i++) {
		struct ld_mount *m = &st->mounts[i];
		if (m->direct)
			continue; /* space_direct's */
		m->space_ok = 0;
		if (!same || !w->res[i].fresh)
			continue;
		w->res[i].fresh = 0;
		if (w->res[i].ok) {
			memcpy(m->sv, w->res[i].sv, sizeof(m->sv));
			m->space_ok = 1;
		}
	}
	pthread_mutex_unlock(&w->mu);
}

/* Prepare to read mountinfo, diskstats and the space figures. */
static void *
ldisk_open(const struct provider_ctx *ctx, struct err *err)
{
	struct ld_state *st = xcalloc(1, sizeof(*st));

	(void)err;
	st->fs = ctx->fs;
	st->live = procfs_is_live(ctx->fs);
	st->put = ctx->needed ? ctx->needed & (BIT(F_NFIELDS) - 1) : BIT(F_NFIELDS) - 1;
	if (st->put & DISK_MS_FIELDS)
		st->put |= BIT(F_INFLIGHT);
	st->mountinfo = procfs_file(ctx->fs, "proc/self/mountinfo");
	st->diskstats = procfs_file(ctx->fs, "proc/diskstats");
	st->poll_fd = -1;
	st->stale = 1;
	if (st->live) {
		st->poll_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		/* the helper thread starts when a mount needs it (space_post) */
		st->space_live = (st->put & SPACE_FIELDS) != 0;
	} else {
		st->statvfs_file = procfs_file(ctx->fs, "statvfs");
	}
	if (st->put & DS_FIELDS)
		pfile_tap(st->diskstats, ds_line, st);
	return st;
}

/* One read: every mounted block-device filesystem into out. */
static int
ldisk_read(void *state, struct raw_set *out, struct err *err)
{
	struct ld_state *st = state;
	uint64_t posted_ns = 0, gen = procfs_generation(st->fs);
	int posted = 0, rebuilt = 0;

	(void)err;
	st->reads++;
	if (mounts_changed(st)) {
		size_t len;
		const char *mi = pfile_read(st->mountinfo, &len, NULL);
		if (mi) {
			rebuild(st, mi, len);
			keep_built_from(st, mi, len);
			rebuilt = 1;
			st->stale = 0;
		} else {
			st->nmounts = 0; /* no mount table here: no instances */
			st->version++;
			st->stale = 1;
		}
	}
	if (!st->nmounts)
		return 0;
	if (st->space_live) {
		posted = space_post(st);
		posted_ns = now_mono_ns();
	}
	if (st->put & DS_FIELDS)
		read_diskstats(st, rebuilt);
	if (st->space_live) {
		space_direct(st);
		space_take(st, posted, posted_ns);
	} else if (st->statvfs_file && (st->put & SPACE_FIELDS)) {
		for (size_t i = 0; i < st->nmounts; i++)
			st->mounts[i].space_ok = 0;
		read_statvfs_file(st);
	}
	for (size_t k = 0; k < st->nmounts; k++) {
		const struct ld_mount *m = &st->mounts[st->order[k]];
		struct raw_instance *ri;

		if (m->hidden)
			continue;
		ri = raw_set_add(out, st->names + m->name_off, m->name_len, m->identity);
		if (m->ds_gen == gen)
			for (unsigned int f = 0; f < DS_NFIELDS; f++)
				if (m->ds_present & (1u << f))
					raw_put(out, ri, f, m->ds[f]);
		if (m->space_ok)
			for (unsigned int f = F_FRSIZE; f < F_NFIELDS; f++)
				if (st->put & BIT(f))
					raw_put(out, ri, f, m->sv[space_source[f - F_FRSIZE]]);
	}
	return 0;
}

/* Stop the helper thread and free the state. */
static void
ldisk_close(void *state)
{
	struct ld_state *st = state;

	if (!st)
		return;
	if (st->worker)
		space_stop(st->worker);
	if (st->poll_fd >= 0)
		close(st->poll_fd);
	free(st->mounts);
	free(st->order);
	free(st->names);
	free(st->by_devt.slot);
	free(st->by_name.slot);
	free(st->scratch);
	free(st->built_from);
	resolved(st);
	if (st->put & DS_FIELDS)
		pfile_untap(st->diskstats, ds_line, st);
	free(st);
}

/* --serve: the device label of a mount point ("sda1"). */
static size_t
ldisk_label_value(void *state, const char *instance, char *buf, size_t n)
{
	const struct ld_state *st = state;
	long m = mount_by_name(st, instance, strlen(instance));
	int k = m >= 0 && st->mounts[m].dev[0] ? snprintf(buf, n, "%s", st->mounts[m].dev) : 0;

	return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n - 1;
}

const struct provider provider_logicaldisk = {
	.set = &set,
	.open = ldisk_open,
	.read = ldisk_read,
	.close = ldisk_close,
	.label_value = ldisk_label_value,
};
