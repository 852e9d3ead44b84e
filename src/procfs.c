/*
 * procfs.c - root-aware file access for providers. Every file is opened
 * relative to a directory descriptor of the root in use ("/" live, a fixture
 * tree under --root), kept open, and re-read with pread at offset 0 into a
 * buffer that only grows. A file read once in a generation is served from
 * its buffer to every provider that asks again in the same generation.
 *
 * Memory per file is kept small, since a large tree has tens of thousands:
 * records are 64 bytes in blocks of 256, a path is two ids (its directory
 * and its last part, each string kept once: 500 interfaces' statistics
 * share 27 last parts and each interface's directory), and an attribute
 * file (procfs_attr: a few bytes parsed at once) has no buffer of its own
 * but reads into one scratch buffer all attributes share. Directories are
 * listed with getdents64 on a kept-open descriptor into a reused buffer, so
 * a listing allocates nothing either.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procfs.h"

#define NBUCKETS 4096

/* Records a block holds. */
#define PFILE_BLOCK 256

/* The id of the empty directory part ("stat" rather than "proc/stat"). */
#define NO_DIR UINT32_MAX

/* The directory-listing buffer (one getdents64 call fills it). */
#define DENTS_SIZE (32 * 1024)

struct pfile {
	struct pfile *next; /* hash chain */
	struct procfs *fs;
	char *buf;        /* NULL for an attribute: it reads into fs->scratch */
	uint64_t gen;     /* generation buf holds, 0 for none */
	uint32_t cap, len;
	int fd;
	int open_errno;   /* why the last open failed, 0 if it did not */
	int read_errno;   /* errno of this generation's failed read */
	uint32_t dir, leaf; /* the path: fs->parts ids of "DIR/LEAF" (dir NO_DIR: "LEAF") */
	uint8_t attr;     /* an attribute: shares fs->scratch */
	uint8_t malformed; /* pfile_malformed said so (once a run) */
};

struct procfs {
	char **roots;
	size_t nroots;
	size_t current;
	int rootfd;
	uint64_t gen;
	size_t nopen;     /* pfile descriptors kept open */
	size_t max_open;  /* past this, a pfile is opened and closed per read */
	/* the buffer every attribute reads into, and whose text it holds */
	char *scratch;
	size_t scratch_cap;
	const struct pfile *scratch_owner;
	char *dents;      /* DENTS_SIZE bytes, for procfs_list */
	int listing;      /* a procfs_list is running (dents in use) */
	/* pfile_malformed's notes not yet taken by procfs_next_note */
	char notes[8][256];
	unsigned nnotes, notes_taken;
	struct pfile *buckets[NBUCKETS];
	struct strset parts;   /* the directories and last parts of paths */
	struct pfile **blocks; /* the records, PFILE_BLOCK a block */
	size_t nblocks, nused; /* blocks, and records used in the last */
};

/* The path of pf relative to the root, in buf. */
static const char *
pfile_path(const struct pfile *pf, char *buf, size_t n)
{
	const char *leaf = pf->fs->parts.strs[pf->leaf];

	if (pf->dir == NO_DIR)
		return leaf;
	snprintf(buf, n, "%s/%s", pf->fs->parts.strs[pf->dir], leaf);
	return buf;
}

static unsigned
hash(const char *s)
{
	unsigned h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h % NBUCKETS;
}

/* How many files may stay open: the soft limit, raised to the hard one,
 * less room for sockets, outputs and directory scans. */
static size_t
procfs_fd_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 512;
	if (rl.rlim_cur < rl.rlim_max) {
		struct rlimit want = rl;
		want.rlim_cur = rl.rlim_max == RLIM_INFINITY ? 1048576 : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			rl = want;
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1048576)
		rl.rlim_cur = 1048576;
	return rl.rlim_cur > 256 ? (size_t)rl.rlim_cur - 128 : (size_t)rl.rlim_cur / 2;
}

struct procfs *
procfs_new(const char *const *roots, size_t nroots)
{
	struct procfs *fs = xcalloc(1, sizeof(*fs));

	fs->nroots = nroots;
	fs->roots = xcalloc(nroots ? nroots : 1, sizeof(char *));
	for (size_t i = 0; i < nroots; i++)
		fs->roots[i] = xstrdup(roots[i]);
	fs->rootfd = -1;
	fs->current = (size_t)-1;
	fs->max_open = procfs_fd_budget();
	return fs;
}

static void
close_files(struct procfs *fs)
{
	for (size_t b = 0; b < NBUCKETS; b++)
		for (struct pfile *pf = fs->buckets[b]; pf; pf = pf->next) {
			if (pf->fd >= 0) {
				close(pf->fd);
				fs->nopen--;
			}
			pf->fd = -1;
			pf->open_errno = 0;
			pf->gen = 0;
		}
	if (fs->rootfd >= 0)
		close(fs->rootfd);
	fs->rootfd = -1;
}

void
procfs_free(struct procfs *fs)
{
	if (!fs)
		return;
	close_files(fs);
	for (size_t b = 0; b < NBUCKETS; b++)
		for (struct pfile *pf = fs->buckets[b]; pf; pf = pf->next)
			free(pf->buf);
	for (size_t k = 0; k < fs->nblocks; k++)
		free(fs->blocks[k]);
	free(fs->blocks);
	strset_free(&fs->parts);
	free(fs->scratch);
	free(fs->dents);
	for (size_t i = 0; i < fs->nroots; i++)
		free(fs->roots[i]);
	free(fs->roots);
	free(fs);
}

void
pfile_malformed(struct pfile *pf, const char *why)
{
	struct procfs *fs = pf->fs;

	const char *root = procfs_root(fs);
	size_t rl = strlen(root);
	char path[200]; /* a note is 256 bytes: a longer path is cut */

	if (pf->malformed || fs->nnotes - fs->notes_taken >= ARRAY_SIZE(fs->notes))
		return; /* said already, or said at the next read: the queue is full */
	pf->malformed = 1;
	snprintf(fs->notes[fs->nnotes++ % ARRAY_SIZE(fs->notes)], sizeof(fs->notes[0]),
		 "%s%s%s: %s: its counters are left blank", root,
		 rl && root[rl - 1] == '/' ? "" : "/", pfile_path(pf, path, sizeof(path)), why);
}

const char *
procfs_next_note(struct procfs *fs)
{
	if (fs->notes_taken == fs->nnotes)
		return NULL;
	return fs->notes[fs->notes_taken++ % ARRAY_SIZE(fs->notes)];
}

int
procfs_is_live(const struct procfs *fs)
{
	return fs->nroots == 0;
}

size_t
procfs_nroots(const struct procfs *fs)
{
	return fs->nroots ? fs->nroots : 1;
}

const char *
procfs_root(const struct procfs *fs)
{
	if (fs->nroots == 0)
		return "/";
	return fs->roots[fs->current < fs->nroots ? fs->current : 0];
}

int
procfs_begin_read(struct procfs *fs, size_t index, struct err *err)
{
	size_t want = fs->nroots ? index : 0;

	if (fs->nroots && want >= fs->nroots)
		return err_set(err, "no root number %zu in the --root series", index + 1);
	if (want != fs->current || fs->rootfd < 0) {
		const char *dir = fs->nroots ? fs->roots[want] : "/";
		close_files(fs);
		fs->rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fs->rootfd < 0)
			return err_set(err, "cannot open root %s: %s", dir, strerror(errno));
		fs->current = want;
	}
	fs->gen++;
	return 0;
}

/* The record of relpath, created on first use. A file asked for both
 * ways keeps its first form. */
static struct pfile *
pfile_get(struct procfs *fs, const char *relpath, int attr)
{
	unsigned h = hash(relpath);
	const char *slash = strrchr(relpath, '/');
	uint32_t dir = NO_DIR, leaf;
	struct pfile *pf;

	if (slash)
		dir = strset_add_n(&fs->parts, relpath, (size_t)(slash - relpath), NULL);
	leaf = strset_add(&fs->parts, slash ? slash + 1 : relpath, NULL);
	for (pf = fs->buckets[h]; pf; pf = pf->next)
		if (pf->dir == dir && pf->leaf == leaf)
			return pf;
	if (fs->nblocks == 0 || fs->nused == PFILE_BLOCK) {
		fs->blocks = xrealloc(fs->blocks, (fs->nblocks + 1) * sizeof(*fs->blocks));
		fs->blocks[fs->nblocks++] = xmalloc(PFILE_BLOCK * sizeof(struct pfile));
		fs->nused = 0;
	}
	pf = &fs->blocks[fs->nblocks - 1][fs->nused++];
	memset(pf, 0, sizeof(*pf));
	pf->fs = fs;
	pf->fd = -1;
	pf->dir = dir;
	pf->leaf = leaf;
	pf->attr = (uint8_t)attr;
	pf->next = fs->buckets[h];
	fs->buckets[h] = pf;
	return pf;
}

struct pfile *
procfs_file(struct procfs *fs, const char *relpath)
{
	return pfile_get(fs, relpath, 0);
}

struct pfile *
procfs_attr(struct procfs *fs, const char *relpath)
{
	return pfile_get(fs, relpath, 1);
}

static int
pfile_open(struct pfile *pf)
{
	if (pf->fd >= 0)
		return 0;
	if (pf->fs->rootfd < 0) {
		pf->open_errno = EBADF;
		return -1;
	}
	char path[PATH_MAX];
	pf->fd = openat(pf->fs->rootfd, pfile_path(pf, path, sizeof(path)), O_RDONLY | O_CLOEXEC);
	if (pf->fd < 0) {
		pf->open_errno = errno;
		return -1;
	}
	pf->fs->nopen++;
	pf->open_errno = 0;
	return 0;
}

/* Past the descriptor budget a file is not kept open: a slower read, but
 * never a counter lost to EMFILE. */
static void
pfile_release(struct pfile *pf)
{
	if (pf->fd >= 0 && pf->fs->nopen > pf->fs->max_open) {
		close(pf->fd);
		pf->fd = -1;
		pf->fs->nopen--;
	}
}

/* pread the whole of pf into *buf (capacity *cap, grown as needed);
 * the length, or -1 (errno kept, pf closed: a vanished sysfs file is
 * reopened next time). */
static long
pfile_pread(struct pfile *pf, char **buf, size_t *cap, size_t start)
{
	if (*cap < start) {
		free(*buf);
		*cap = start;
		*buf = xmalloc(*cap);
	}
	for (;;) {
		ssize_t n = pread(pf->fd, *buf, *cap - 1, 0);
		if (n < 0) {
			int e = errno;
			close(pf->fd);
			pf->fd = -1;
			pf->fs->nopen--;
			errno = e;
			return -1;
		}
		if ((size_t)n < *cap - 1) {
			(*buf)[n] = '\0';
			return (long)n;
		}
		*cap *= 2;
		free(*buf);
		*buf = xmalloc(*cap);
	}
}

const char *
pfile_read(struct pfile *pf, size_t *len, struct err *err)
{
	struct procfs *fs = pf->fs;
	char path[PATH_MAX];
	long n;

	if (pf->gen == fs->gen && (!pf->attr || pf->read_errno || fs->scratch_owner == pf)) {
		if (pf->read_errno) {
			errno = pf->read_errno;
			err_set(err, "cannot read %s: %s", pfile_path(pf, path, sizeof(path)),
				strerror(errno));
			return NULL;
		}
		*len = pf->len;
		return pf->attr ? fs->scratch : pf->buf;
	}
	pf->gen = fs->gen;
	pf->read_errno = 0;
	if (pfile_open(pf) < 0) {
		pf->read_errno = pf->open_errno;
		errno = pf->read_errno;
		err_set(err, "cannot open %s: %s", pfile_path(pf, path, sizeof(path)),
			strerror(errno));
		return NULL;
	}
	if (pf->attr) {
		fs->scratch_owner = NULL;
		n = pfile_pread(pf, &fs->scratch, &fs->scratch_cap, 4096);
		if (n >= 0)
			fs->scratch_owner = pf;
	} else {
		/* Start small: most sysfs attributes are a few bytes, and a
		 * tree of thousands of them must not cost 4 KiB each. */
		size_t cap = pf->cap;
		n = pfile_pread(pf, &pf->buf, &cap, 128);
		/* The buffer doubled until the file fit: give back what an
		 * eighth more than the file leaves unused (a megabyte of
		 * /proc/interrupts at 512 CPUs). A file that grows past it
		 * doubles again, once. */
		if (n >= 0 && cap > (size_t)n + (size_t)n / 4 + 256) {
			cap = (size_t)n + (size_t)n / 8 + 256;
			pf->buf = xrealloc(pf->buf, cap);
		}
		pf->cap = (uint32_t)cap;
	}
	if (n < 0) {
		pf->read_errno = errno;
		err_set(err, "cannot read %s: %s", pfile_path(pf, path, sizeof(path)),
			strerror(pf->read_errno));
		errno = pf->read_errno;
		return NULL;
	}
	pf->len = (uint32_t)n;
	pfile_release(pf);
	*len = pf->len;
	return pf->attr ? fs->scratch : pf->buf;
}

/* The layout of one getdents64 record. */
struct dirent64_rec {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

int
procfs_list(struct procfs *fs, const char *relpath, procfs_entry_fn fn, void *arg)
{
	struct pfile *pf = pfile_get(fs, relpath, 0);
	char small[4096], *buf;
	size_t size;
	int stop = 0;

	if (pfile_open(pf) < 0) {
		errno = pf->open_errno;
		return -1;
	}
	if (fs->listing) { /* called from fn: a buffer of its own */
		buf = small;
		size = sizeof(small);
	} else {
		if (!fs->dents)
			fs->dents = xmalloc(DENTS_SIZE);
		buf = fs->dents;
		size = DENTS_SIZE;
	}
	if (lseek(pf->fd, 0, SEEK_SET) < 0) {
		pfile_release(pf);
		return -1;
	}
	fs->listing++;
	while (!stop) {
		long n = syscall(SYS_getdents64, pf->fd, buf, size);
		if (n <= 0) {
			if (n < 0) {
				int e = errno;
				close(pf->fd); /* a vanished directory: reopen next time */
				pf->fd = -1;
				fs->nopen--;
				fs->listing--;
				errno = e;
				return -1;
			}
			break;
		}
		for (long off = 0; off < n && !stop;) {
			const struct dirent64_rec *d = (const void *)(buf + off);
			off += d->d_reclen;
			if (d->d_name[0] == '.' &&
			    (d->d_name[1] == '\0' || (d->d_name[1] == '.' && d->d_name[2] == '\0')))
				continue;
			stop = fn(d->d_name, d->d_type, arg);
		}
	}
	fs->listing--;
	pfile_release(pf);
	return 0;
}

long
procfs_read_small(struct procfs *fs, const char *relpath, char *buf, size_t n)
{
	int fd;
	ssize_t got;

	if (n == 0 || fs->rootfd < 0)
		return -1;
	fd = openat(fs->rootfd, relpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = read(fd, buf, n - 1);
	close(fd);
	if (got < 0)
		return -1;
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		got--;
	buf[got] = '\0';
	return (long)got;
}

int
procfs_read_u64(struct procfs *fs, const char *relpath, uint64_t *out)
{
	char buf[64];
	const char *p = buf;

	if (procfs_read_small(fs, relpath, buf, sizeof(buf)) < 0)
		return -1;
	p = skip_blanks(p);
	return parse_u64(&p, out);
}

int
procfs_fd_take(struct procfs *fs)
{
	if (fs->nopen >= fs->max_open)
		return -1;
	fs->nopen++;
	return 0;
}

void
procfs_fd_give(struct procfs *fs)
{
	if (fs->nopen)
		fs->nopen--;
}

int
procfs_open_dir(struct procfs *fs, const char *relpath)
{
	if (fs->rootfd < 0)
		return -1;
	return openat(fs->rootfd, relpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int
procfs_exists(struct procfs *fs, const char *relpath)
{
	if (fs->rootfd < 0)
		return 0;
	return faccessat(fs->rootfd, relpath, F_OK, 0) == 0;
}

long
procfs_readlink(struct procfs *fs, const char *relpath, char *buf, size_t n)
{
	ssize_t got;

	if (fs->rootfd < 0 || n == 0)
		return -1;
	got = readlinkat(fs->rootfd, relpath, buf, n - 1);
	if (got < 0)
		return -1;
	buf[got] = '\0';
	return (long)got;
}
