/*
 * procfs.c - root-aware file access for providers. Every file is opened
 * relative to a directory descriptor of the root in use ("/" live, a fixture
 * tree under --root), kept open, and re-read with pread at offset 0 into a
 * buffer that only grows. A file read once in a generation is served from
 * its buffer to every provider that asks again in the same generation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfs.h"

#define NBUCKETS 4096

struct pfile {
	struct pfile *next; /* hash chain */
	struct procfs *fs;
	char *path;
	int fd;
	int open_errno;   /* why the last open failed, 0 if it did not */
	uint64_t gen;     /* generation buf holds, 0 for none */
	char *buf;
	size_t cap, len;
	int read_errno;   /* errno of this generation's failed read */
};

struct procfs {
	char **roots;
	size_t nroots;
	size_t current;
	int rootfd;
	uint64_t gen;
	size_t nopen;     /* pfile descriptors kept open */
	size_t max_open;  /* past this, a pfile is opened and closed per read */
	struct pfile *buckets[NBUCKETS];
};

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
	for (size_t b = 0; b < NBUCKETS; b++) {
		struct pfile *pf = fs->buckets[b];
		while (pf) {
			struct pfile *next = pf->next;
			free(pf->path);
			free(pf->buf);
			free(pf);
			pf = next;
		}
	}
	for (size_t i = 0; i < fs->nroots; i++)
		free(fs->roots[i]);
	free(fs->roots);
	free(fs);
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

struct pfile *
procfs_file(struct procfs *fs, const char *relpath)
{
	unsigned h = hash(relpath);
	struct pfile *pf;

	for (pf = fs->buckets[h]; pf; pf = pf->next)
		if (strcmp(pf->path, relpath) == 0)
			return pf;
	pf = xcalloc(1, sizeof(*pf));
	pf->fs = fs;
	pf->path = xstrdup(relpath);
	pf->fd = -1;
	pf->next = fs->buckets[h];
	fs->buckets[h] = pf;
	return pf;
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
	pf->fd = openat(pf->fs->rootfd, pf->path, O_RDONLY | O_CLOEXEC);
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

const char *
pfile_read(struct pfile *pf, size_t *len, struct err *err)
{
	if (pf->gen == pf->fs->gen) {
		if (pf->read_errno) {
			errno = pf->read_errno;
			err_set(err, "cannot read %s: %s", pf->path, strerror(errno));
			return NULL;
		}
		*len = pf->len;
		return pf->buf;
	}
	pf->gen = pf->fs->gen;
	pf->read_errno = 0;
	if (pfile_open(pf) < 0) {
		pf->read_errno = pf->open_errno;
		errno = pf->read_errno;
		err_set(err, "cannot open %s: %s", pf->path, strerror(errno));
		return NULL;
	}
	/* Start small: most sysfs attributes are a few bytes, and a tree of
	 * thousands of them must not cost 4 KiB each. */
	if (pf->cap < 128) {
		free(pf->buf);
		pf->cap = 128;
		pf->buf = xmalloc(pf->cap);
	}
	for (;;) {
		ssize_t n = pread(pf->fd, pf->buf, pf->cap - 1, 0);
		if (n < 0) {
			int e = errno;
			close(pf->fd); /* a vanished sysfs file: reopen next time */
			pf->fd = -1;
			pf->fs->nopen--;
			pf->read_errno = e;
			errno = e;
			err_set(err, "cannot read %s: %s", pf->path, strerror(e));
			return NULL;
		}
		if ((size_t)n < pf->cap - 1) {
			pf->len = (size_t)n;
			pf->buf[n] = '\0';
			break;
		}
		pf->cap *= 4;
		free(pf->buf);
		pf->buf = xmalloc(pf->cap);
	}
	pfile_release(pf);
	*len = pf->len;
	return pf->buf;
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

DIR *
procfs_opendir(struct procfs *fs, const char *relpath)
{
	int fd;
	DIR *d;

	if (fs->rootfd < 0)
		return NULL;
	fd = openat(fs->rootfd, relpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
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
