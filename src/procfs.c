/*
 * procfs.c - root-aware file access for providers. Every file is opened
 * relative to a directory descriptor of the root in use ("/" live, a fixture
 * tree under --root), kept open, and re-read with pread from offset 0 (a
 * /proc file on to its end: pfile_pread) into a buffer fitted to it. A
 * file read once in a generation is served from its buffer to every
 * provider that asks again in the same generation. A large file of records
 * that is parsed as it comes (/proc/diskstats) has no buffer: pfile_lines
 * streams its lines through a window on the stack, to its reader and, in
 * the same pass, to the file's taps (pfile_tap), the other readers.
 *
 * Memory per file is kept small, since a large tree has tens of thousands:
 * a record is 20 bytes in a 4 KiB block aligned to its size whose first slot
 * names the procfs (so a record needs no pointer back to it), a path is
 * two ids (its directory and its last part, each string kept once: 500
 * interfaces' statistics share 27 last parts and each interface's
 * directory), and an attribute file (procfs_attr: a few bytes parsed at
 * once) has no buffer of its own but reads into one scratch buffer all
 * attributes share. Directories are listed with getdents64 on a kept-open
 * descriptor into a buffer on the stack, so a listing allocates nothing
 * either.
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
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "procfs.h"

#define NBUCKETS 4096

/* A block of records: PFILE_BLOCK_BYTES, aligned to that; its first
 * record's room holds the procfs, the rest are records. */
#define PFILE_BLOCK_BYTES 4096
#define PFILE_PER_BLOCK (PFILE_BLOCK_BYTES / sizeof(struct pfile) - 1)

/* The id of the empty directory part ("stat" rather than "proc/stat"). */
#define NO_DIR UINT32_MAX

/* The directory-listing buffer, on the stack (one getdents64 call fills
 * it). */
#define DENTS_SIZE (32 * 1024)

/* A file's record: its path, descriptor and buffer. What a read
 * generation knows of the file (its text, or why it could not be read) is
 * its buffer's; an attribute's text is the scratch buffer's while it is the
 * last attribute read, and a failed attribute is tried again when asked. */
struct pfile {
	uint32_t next;     /* hash chain: the next record's number + 1, 0 for none */
	uint32_t dir, leaf; /* the path: fs->parts ids of "DIR/LEAF" (dir NO_DIR: "LEAF") */
	uint32_t buf : 31; /* its buffer's number + 1 in fs->bufs; 0 for an attribute,
			    * which reads into fs->scratch */
	uint32_t malformed : 1; /* pfile_malformed said so (once a run) */
	int32_t fd;
};

_Static_assert(sizeof(struct pfile) == 20, "a pfile record is 20 bytes");

/* A file's own buffer (procfs_file). */
struct pbuf {
	char *p;
	uint32_t cap : 30;
	uint32_t to_eof : 1; /* a /proc file: read until pread gives 0 (pfile_pread) */
	uint32_t fold : 1;   /* runs of blanks kept as two spaces at most (pfile_fold_blanks) */
	uint32_t len;
	uint32_t gen;       /* the generation (low 32 bits, never 0) its text is of, 0 none */
	int32_t read_errno; /* errno of this generation's failed open or read, 0 if none */
};

/* What a block's first record slot holds. */
struct pfile_head {
	struct procfs *fs;
	uint32_t index; /* the block's, in fs->blocks */
};

/* A reader handed the lines of a file another reader streams (pfile_tap). */
struct ptap {
	uint32_t pf;  /* the file's number (pfile_number) */
	uint32_t gen; /* the generation whose lines it was handed, 0 none */
	pfile_line_fn fn;
	void *arg;
};

/* The taps a procfs holds: two readers of one file are all there are. */
#define MAX_TAPS 4

struct procfs {
	char **roots;
	size_t nroots;
	size_t current;
	int rootfd;
	uint64_t root_serial; /* roots opened so far */
	uint64_t gen;
	size_t nopen;     /* pfile descriptors kept open */
	size_t max_open;  /* past this, a pfile is opened and closed per read */
	/* the buffer every attribute reads into, and whose text it holds */
	char *scratch;
	size_t scratch_cap, scratch_len;
	const struct pfile *scratch_owner;
	uint32_t scratch_gen; /* the generation of scratch's text */
	/* pfile_malformed's notes not yet taken by procfs_next_note */
	char notes[8][256];
	unsigned nnotes, notes_taken;
	uint32_t buckets[NBUCKETS]; /* record number + 1, 0 for none */
	struct strset parts;   /* the directories and last parts of paths */
	struct pfile **blocks; /* PFILE_PER_BLOCK records each, after the head */
	size_t nblocks, nrecords;
	struct pbuf *bufs;     /* the files' own buffers */
	size_t nbufs, bufs_cap;
	struct ptap taps[MAX_TAPS];
	unsigned ntaps;
	void *shared[PROCFS_NSHARED]; /* procfs_shared */
};

_Static_assert(sizeof(struct pfile_head) <= sizeof(struct pfile),
	       "a block's head fits in its first record's room");

/* The procfs of pf: its block's head. */
static struct procfs *
pf_fs(const struct pfile *pf)
{
	uintptr_t block = (uintptr_t)pf & ~(uintptr_t)(PFILE_BLOCK_BYTES - 1);
	return ((const struct pfile_head *)block)->fs;
}

/* Record number k of fs. */
static struct pfile *
pf_at(const struct procfs *fs, size_t k)
{
	return &fs->blocks[k / PFILE_PER_BLOCK][1 + k % PFILE_PER_BLOCK];
}

/* The generation as a record keeps it. */
static uint32_t
gen32(const struct procfs *fs)
{
	return (uint32_t)fs->gen;
}

/* The path of pf relative to the root, in buf; NULL when it does not fit
 * (n is PATH_MAX where it is opened: the kernel would refuse it too). */
static const char *
pfile_path_fit(const struct pfile *pf, char *buf, size_t n)
{
	const struct procfs *fs = pf_fs(pf);
	const char *leaf = strset_str(&fs->parts, pf->leaf);

	if (pf->dir == NO_DIR)
		return leaf;
	int len = snprintf(buf, n, "%s/%s", strset_str(&fs->parts, pf->dir), leaf);
	return len >= 0 && (size_t)len < n ? buf : NULL;
}

/* The same for a message: cut to fit. */
static const char *
pfile_path(const struct pfile *pf, char *buf, size_t n)
{
	const char *p = pfile_path_fit(pf, buf, n);
	return p ? p : buf;
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
	for (size_t k = 0; k < fs->nrecords; k++) {
		struct pfile *pf = pf_at(fs, k);
		if (pf->fd >= 0) {
			close(pf->fd);
			fs->nopen--;
		}
		pf->fd = -1;
	}
	for (size_t k = 0; k < fs->nbufs; k++)
		fs->bufs[k].gen = 0;
	fs->scratch_owner = NULL;
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
	for (size_t k = 0; k < fs->nbufs; k++)
		free(fs->bufs[k].p);
	free(fs->bufs);
	for (size_t k = 0; k < fs->nblocks; k++)
		free(fs->blocks[k]);
	free(fs->blocks);
	strset_free(&fs->parts);
	free(fs->scratch);
	for (size_t i = 0; i < fs->nroots; i++)
		free(fs->roots[i]);
	free(fs->roots);
	free(fs);
}

void
pfile_malformed(struct pfile *pf, const char *why)
{
	struct procfs *fs = pf_fs(pf);

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

GC_HOT const char *
procfs_next_note(struct procfs *fs)
{
	if (fs->notes_taken == fs->nnotes)
		return NULL;
	return fs->notes[fs->notes_taken++ % ARRAY_SIZE(fs->notes)];
}

GC_HOT int
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

uint64_t
procfs_generation(const struct procfs *fs)
{
	return fs->gen;
}

void **
procfs_shared(struct procfs *fs, enum procfs_shared which)
{
	return &fs->shared[which];
}

GC_HOT int
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
		fs->root_serial++;
	}
	fs->gen++;
	if (gen32(fs) == 0) /* 0 is a record's "none" */
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
	for (uint32_t k = fs->buckets[h]; k; k = pf->next) {
		pf = pf_at(fs, k - 1);
		if (pf->dir == dir && pf->leaf == leaf)
			return pf;
	}
	if (fs->nrecords == fs->nblocks * PFILE_PER_BLOCK) {
		struct pfile *block = aligned_alloc(PFILE_BLOCK_BYTES, PFILE_BLOCK_BYTES);
		if (!block)
			abort(); /* as xmalloc does: out of memory */
		((struct pfile_head *)(void *)block)->fs = fs;
		((struct pfile_head *)(void *)block)->index = (uint32_t)fs->nblocks;
		fs->blocks = xrealloc(fs->blocks, (fs->nblocks + 1) * sizeof(*fs->blocks));
		fs->blocks[fs->nblocks++] = block;
	}
	pf = pf_at(fs, fs->nrecords++);
	memset(pf, 0, sizeof(*pf));
	pf->fd = -1;
	pf->dir = dir;
	pf->leaf = leaf;
	if (!attr) {
		xgrow((void **)&fs->bufs, &fs->bufs_cap, fs->nbufs + 1, sizeof(*fs->bufs));
		fs->bufs[fs->nbufs++] = (struct pbuf){
			.to_eof = strncmp(relpath, "proc/", 5) == 0,
		};
		if (fs->nbufs > 0x7FFFFFFFu) /* 31 bits; 0 means an attribute */
			abort();
		pf->buf = (uint32_t)fs->nbufs;
	}
	pf->next = fs->buckets[h];
	fs->buckets[h] = (uint32_t)fs->nrecords;
	return pf;
}

uint32_t
pfile_number(const struct pfile *pf)
{
	uintptr_t block = (uintptr_t)pf & ~(uintptr_t)(PFILE_BLOCK_BYTES - 1);
	size_t slot = (size_t)(pf - (const struct pfile *)block) - 1;

	return (uint32_t)(((const struct pfile_head *)block)->index * PFILE_PER_BLOCK + slot + 1);
}

struct pfile *
procfs_pfile(struct procfs *fs, uint32_t number)
{
	return pf_at(fs, (size_t)number - 1);
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

/* Open pf if it is not open: 0, or -1 with errno set. */
static int
pfile_open(struct pfile *pf)
{
	struct procfs *fs = pf_fs(pf);

	if (pf->fd >= 0)
		return 0;
	if (fs->rootfd < 0) {
		errno = EBADF;
		return -1;
	}
	char path[PATH_MAX];
	const char *p = pfile_path_fit(pf, path, sizeof(path));
	if (!p) {
		errno = ENAMETOOLONG;
		return -1;
	}
	pf->fd = openat(fs->rootfd, p, O_RDONLY | O_CLOEXEC);
	if (pf->fd < 0)
		return -1;
	fs->nopen++;
	return 0;
}

/* Past the descriptor budget a file is not kept open: a slower read, but
 * never a counter lost to EMFILE. */
static void
pfile_release(struct pfile *pf)
{
	struct procfs *fs = pf_fs(pf);

	if (pf->fd >= 0 && fs->nopen > fs->max_open) {
		close(pf->fd);
		pf->fd = -1;
		fs->nopen--;
	}
}

/* A read of pf failed (errno e): close it, so that a vanished sysfs file
 * is opened again next time; -1 with errno e. */
static long
pfile_read_failed(struct pfile *pf, int e)
{
	close(pf->fd);
	pf->fd = -1;
	pf_fs(pf)->nopen--;
	errno = e;
	return -1;
}

/* pread the whole of pf into *buf (capacity *cap, grown as needed);
 * the length, or -1 (errno kept, pf closed: a vanished sysfs file is
 * reopened next time).
 *
 * A sysfs attribute comes whole in one read, so a read that leaves room
 * in the buffer has it all. A /proc file made of records (a seq_file:
 * /proc/interrupts, /proc/diskstats, /proc/net/dev, mountinfo) does not:
 * one read gives at most the kernel's page-sized buffer of whole records,
 * so with to_eof the reads go on from where the last ended (which the
 * kernel continues without formatting the file again) until one gives 0
 * bytes. A single read would see the first 4 KiB of /proc/diskstats alone
 * on a machine with 100 disks. */
static GC_HOT long
pfile_pread(struct pfile *pf, char **buf, size_t *cap, size_t start, int to_eof)
{
	size_t len = 0;

	if (*cap < start) {
		free(*buf);
		*cap = start;
		*buf = xmalloc(*cap);
	}
	for (;;) {
		ssize_t n = pread(pf->fd, *buf + len, *cap - 1 - len, (off_t)len);
		if (n < 0)
			return pfile_read_failed(pf, errno);
		len += (size_t)n;
		if (n == 0 || (!to_eof && len < *cap - 1)) {
			(*buf)[len] = '\0';
			return (long)len;
		}
		if (len == *cap - 1) {
			if (*cap > 0x1FFFFFFFu) /* a buffer keeps its size in 30 bits */
				return pfile_read_failed(pf, EFBIG);
			*cap *= 2;
			*buf = xrealloc(*buf, *cap);
		}
	}
}

/* The blanks of the 16 bytes at p: bit i for p[i] a space or a tab; the
 * bytes themselves, tabs made spaces, into conv[0 .. 16). */
static inline unsigned
blank_bits(const char *p, char *conv)
{
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i sp = _mm_set1_epi8(' ');
	__m128i tb = _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'));
	__m128i bl = _mm_or_si128(_mm_cmpeq_epi8(v, sp), tb);

	_mm_storeu_si128((__m128i *)(void *)conv,
			 _mm_or_si128(_mm_andnot_si128(tb, v), _mm_and_si128(tb, sp)));
	return (unsigned)_mm_movemask_epi8(bl);
#else
	unsigned m = 0;

	for (unsigned i = 0; i < 16; i++) {
		int blank = p[i] == ' ' || p[i] == '\t';
		m |= (unsigned)blank << i;
		conv[i] = blank ? ' ' : p[i];
	}
	return m;
#endif
}

/* The fold of [q, end) 16 bytes at a time while out (at *len) has room
 * below limit for 32 more: what the byte loop of pfile_pread_folded does,
 * the blank count *blank carried in and out. Each run of bytes a block
 * keeps is stored as 16 bytes, of which the next run or block writes over
 * what is not the run's (/proc/interrupts' blocks keep a run or two:
 * digits between their padding). Returns where it stopped (the byte loop
 * goes on from there). */
static const char *
fold_blocks(const char *q, const char *end, char *out, size_t *len, size_t limit,
	    unsigned *blank)
{
	char conv[32] = { 0 }; /* a run's 16 bytes from any start below 16 */
	size_t o = *len;
	unsigned b = *blank;

	for (; end - q >= 16 && o < limit; q += 16) {
		unsigned m = blank_bits(q, conv);
		unsigned p1 = b >= 1, p2 = b >= 2;
		/* byte i is cut when it and the two before it are blanks */
		unsigned keep = ~(m & ((m << 1) | p1) & ((m << 2) | (p1 << 1) | p2)) & 0xFFFFu;

		while (keep) {
			unsigned s = (unsigned)__builtin_ctz(keep);
			unsigned n = (unsigned)__builtin_ctz(~(keep >> s)); /* the run's length */
			memcpy(out + o, conv + s, 16);
			o += n;
			keep &= ~((((uint32_t)1 << n) - 1) << s);
		}
		/* the blanks that end the block, on top of the run before it */
		if (m == 0xFFFFu)
			b = 2; /* two or more: all the loops tell apart */
		else
			b = (unsigned)__builtin_clz(~(m << 16)); /* leading ones of m's 16 bits */
	}
	*len = o;
	*blank = b;
	return q;
}

/* The window a folded file is read through (pfile_fold_blanks). */
#define FOLD_WINDOW (16 * 1024)

/* pf read whole (on to its end, as pfile_pread with to_eof) through a
 * window on the stack into pb->p, a blank kept as one space and a run of
 * two or more as two; the length, or -1 as pfile_pread. The buffer grows
 * (doubling) only when the folded text reaches its end, so a file of the
 * same size allocates nothing. */
static GC_HOT long
pfile_pread_folded(struct pfile *pf, struct pbuf *pb, size_t *cap)
{
	char win[FOLD_WINDOW];
	size_t len = 0;
	off_t off = 0;
	unsigned blank = 0; /* blanks in a row so far */

	for (;;) {
		ssize_t n = pread(pf->fd, win, sizeof(win), off);
		if (n < 0)
			return pfile_read_failed(pf, errno);
		if (n > 0 && *cap > 0x1FFFFFFFu) /* a buffer keeps its size in 30 bits */
			return pfile_read_failed(pf, EFBIG);
		if (n == 0)
			break;
		off += n;
		const char *q = win, *end = win + n;
		if (*cap > 32)
			q = fold_blocks(q, end, pb->p, &len, *cap - 32, &blank);
		while (q < end) {
			if (len + 1 >= *cap) {
				*cap = *cap ? *cap * 2 : 4096;
				pb->p = xrealloc(pb->p, *cap);
			}
			/* as many bytes as the buffer has room for, were none
			 * folded away: the loop tests nothing but the bytes */
			size_t room = *cap - 1 - len;
			const char *stop = (size_t)(end - q) < room ? end : q + room;
			char *out = pb->p + len;
			for (; q < stop; q++) {
				char c = *q;
				if (c == ' ' || c == '\t') {
					if (blank++ >= 2)
						continue;
					c = ' ';
				} else {
					blank = 0;
				}
				*out++ = c;
			}
			len = (size_t)(out - pb->p);
		}
	}
	if (!*cap) {
		*cap = 128;
		pb->p = xrealloc(pb->p, *cap);
	}
	pb->p[len] = '\0';
	return (long)len;
}

void
pfile_fold_blanks(struct pfile *pf)
{
	struct procfs *fs = pf_fs(pf);

	if (pf->buf)
		fs->bufs[pf->buf - 1].fold = 1;
}

/* pf could not be read this generation (errno e): say so in err. */
static const char *
pfile_failed(struct pfile *pf, struct pbuf *pb, const char *what, int e, struct err *err)
{
	char path[PATH_MAX];

	if (pb)
		pb->read_errno = e;
	err_set(err, "cannot %s %s: %s", what, pfile_path(pf, path, sizeof(path)), strerror(e));
	errno = e;
	return NULL;
}

/* ---- streamed files and taps ---------------------------------------- */

void
pfile_tap(struct pfile *pf, pfile_line_fn fn, void *arg)
{
	struct procfs *fs = pf_fs(pf);

	if (fs->ntaps == MAX_TAPS) {
		fprintf(stderr, "getcounter: more than %d taps of files\n", MAX_TAPS);
		abort(); /* a programming error: two readers of one file are all there are */
	}
	fs->taps[fs->ntaps++] = (struct ptap){ pfile_number(pf), 0, fn, arg };
}

void
pfile_untap(struct pfile *pf, pfile_line_fn fn, void *arg)
{
	struct procfs *fs = pf_fs(pf);
	uint32_t number = pfile_number(pf);

	for (unsigned k = 0; k < fs->ntaps; k++)
		if (fs->taps[k].pf == number && fs->taps[k].fn == fn && fs->taps[k].arg == arg) {
			fs->taps[k] = fs->taps[--fs->ntaps];
			return;
		}
}

int
pfile_tapped(const struct pfile *pf, pfile_line_fn fn, void *arg)
{
	const struct procfs *fs = pf_fs(pf);
	uint32_t number = pfile_number(pf);

	for (unsigned k = 0; k < fs->ntaps; k++)
		if (fs->taps[k].pf == number && fs->taps[k].fn == fn && fs->taps[k].arg == arg)
			return fs->taps[k].gen == gen32(fs);
	return 0;
}

/* The readers a pass over pf hands its lines to: fn(arg) (if fn) and the
 * taps of pf not yet handed this generation's, at most 1 + MAX_TAPS. */
struct line_sinks {
	pfile_line_fn fn[MAX_TAPS + 1];
	void *arg[MAX_TAPS + 1];
	struct ptap *tap[MAX_TAPS];
	unsigned n, ntaps;
};

static void
sinks_for(struct pfile *pf, pfile_line_fn fn, void *arg, struct line_sinks *ls)
{
	struct procfs *fs = pf_fs(pf);
	uint32_t number = pfile_number(pf);

	ls->n = ls->ntaps = 0;
	if (fn) {
		ls->fn[ls->n] = fn;
		ls->arg[ls->n++] = arg;
	}
	for (unsigned k = 0; k < fs->ntaps; k++) {
		struct ptap *t = &fs->taps[k];
		if (t->pf != number || t->gen == gen32(fs) || (t->fn == fn && t->arg == arg))
			continue;
		ls->fn[ls->n] = t->fn;
		ls->arg[ls->n++] = t->arg;
		ls->tap[ls->ntaps++] = t;
	}
}

static void
sinks_line(const struct line_sinks *ls, const char *line, size_t len)
{
	for (unsigned k = 0; k < ls->n; k++)
		ls->fn[k](ls->arg[k], line, len);
}

/* The pass is whole: its taps have this generation's lines. */
static void
sinks_done(const struct line_sinks *ls, const struct procfs *fs)
{
	for (unsigned k = 0; k < ls->ntaps; k++)
		ls->tap[k]->gen = gen32(fs);
}

/* Hand the taps of pf not yet handed them the lines of text[0..len), just
 * read whole by pfile_read. */
static void
taps_feed(struct pfile *pf, const char *text, size_t len)
{
	struct line_sinks ls;

	sinks_for(pf, NULL, NULL, &ls);
	if (!ls.n)
		return;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		sinks_line(&ls, p, (size_t)(eol - p));
		p = eol + 1;
	}
	sinks_done(&ls, pf_fs(pf));
}

int
pfile_lines(struct pfile *pf, pfile_line_fn fn, void *arg, struct err *err)
{
	char win[PFILE_LINE_MAX];
	size_t have = 0; /* the start of a line not handed out yet, at win[0] */
	off_t off = 0;
	int skipping = 0; /* in a line longer than the window */
	struct line_sinks ls;

	if (pfile_open(pf) < 0) {
		pfile_failed(pf, NULL, "open", errno, err);
		return -1;
	}
	sinks_for(pf, fn, arg, &ls);
	for (;;) {
		ssize_t n = pread(pf->fd, win + have, sizeof(win) - have, off);
		if (n < 0) {
			pfile_read_failed(pf, errno);
			pfile_failed(pf, NULL, "read", errno, err);
			return -1;
		}
		if (n == 0)
			break;
		off += n;
		size_t end = have + (size_t)n, start = 0;
		for (const char *nl; (nl = memchr(win + start, '\n', end - start));) {
			if (!skipping)
				sinks_line(&ls, win + start, (size_t)(nl - win) - start);
			skipping = 0;
			start = (size_t)(nl - win) + 1;
		}
		have = end - start;
		if (have == sizeof(win)) {
			/* no newline in a whole window: not a file of records */
			if (!skipping)
				pfile_malformed(pf, "a line longer than 16 KiB");
			skipping = 1;
			have = 0;
		} else if (start) {
			memmove(win, win + start, have);
		}
	}
	if (have && !skipping)
		sinks_line(&ls, win, have);
	sinks_done(&ls, pf_fs(pf));
	pfile_release(pf);
	return 0;
}

GC_HOT const char *
pfile_read(struct pfile *pf, size_t *len, struct err *err)
{
	struct procfs *fs = pf_fs(pf);
	struct pbuf *pb = pf->buf ? &fs->bufs[pf->buf - 1] : NULL;
	long n;

	if (pb && pb->gen == gen32(fs)) {
		if (pb->read_errno)
			return pfile_failed(pf, pb, "read", pb->read_errno, err);
		*len = pb->len;
		return pb->p;
	}
	if (!pb && fs->scratch_owner == pf && fs->scratch_gen == gen32(fs)) {
		*len = fs->scratch_len;
		return fs->scratch;
	}
	if (pb) {
		pb->gen = gen32(fs);
		pb->read_errno = 0;
	}
	if (pfile_open(pf) < 0)
		return pfile_failed(pf, pb, "open", errno, err);
	if (!pb) {
		fs->scratch_owner = NULL;
		n = pfile_pread(pf, &fs->scratch, &fs->scratch_cap, 4096, 0);
		if (n >= 0) {
			fs->scratch_owner = pf;
			fs->scratch_gen = gen32(fs);
			fs->scratch_len = (size_t)n;
		}
	} else {
		/* Start small: most sysfs attributes are a few bytes, and a
		 * tree of thousands of them must not cost 4 KiB each. */
		size_t cap = pb->cap;
		n = pb->fold ? pfile_pread_folded(pf, pb, &cap)
			     : pfile_pread(pf, &pb->p, &cap, 128, pb->to_eof);
		/* The buffer doubled until the file fit: give back what an
		 * eighth more than the file leaves unused (a megabyte of
		 * /proc/interrupts at 512 CPUs). A file that grows past it
		 * doubles again, once. */
		if (n >= 0 && cap > (size_t)n + (size_t)n / 4 + 256) {
			cap = (size_t)n + (size_t)n / 8 + 256;
			pb->p = xrealloc(pb->p, cap);
		}
		pb->cap = (uint32_t)cap;
		if (n >= 0)
			pb->len = (uint32_t)n;
	}
	if (n < 0)
		return pfile_failed(pf, pb, "read", errno, err);
	pfile_release(pf);
	*len = (size_t)n;
	if (pb && fs->ntaps)
		taps_feed(pf, pb->p, (size_t)n);
	return pb ? pb->p : fs->scratch;
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
	/* on the stack, not kept: a listing from inside fn has its own */
	char buf[DENTS_SIZE] __attribute__((aligned(8)));
	size_t size = sizeof(buf);
	int stop = 0;

	if (pfile_open(pf) < 0)
		return -1;
	if (lseek(pf->fd, 0, SEEK_SET) < 0) {
		pfile_release(pf);
		return -1;
	}
	while (!stop) {
		long n = syscall(SYS_getdents64, pf->fd, buf, size);
		if (n <= 0) {
			if (n < 0) {
				int e = errno;
				close(pf->fd); /* a vanished directory: reopen next time */
				pf->fd = -1;
				fs->nopen--;
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
procfs_open_file(struct procfs *fs, const char *relpath)
{
	if (fs->rootfd < 0) {
		errno = EBADF;
		return -1;
	}
	return openat(fs->rootfd, relpath, O_RDONLY | O_CLOEXEC);
}

uint64_t
procfs_root_serial(const struct procfs *fs)
{
	return fs->root_serial;
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
