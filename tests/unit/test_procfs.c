/*
 * test_procfs.c - root-aware file access (src/procfs.c) over a tree this
 * test writes under /tmp: a file read once per generation and grown past
 * its first buffer; attribute files (procfs_attr) sharing one buffer, each
 * read again when another attribute was read in between; a directory listed
 * without "." and "..", again after an entry came, from inside another
 * listing, and not at all when missing; a root switch closing and reopening
 * everything; a file read with its blanks folded; a file streamed line by
 * line through a window (pfile_lines) and the taps handed its lines; live,
 * a /proc file of records longer than the kernel's page (mountinfo with 300
 * mounts, made in a mount namespace of a child) read whole, and streamed,
 * though each read gives one page of it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "procfs.h"

/* Write text to root/rel (directories made as needed). */
static void
put(const char *root, const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A fresh tree under /tmp; its path in root (size n). */
static void
make_tree(char *root, size_t n)
{
	char cmd[300];

	snprintf(root, n, "/tmp/gc-test-procfs-%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	(void)!system(cmd);
	assert_int_equal(mkdir(root, 0755), 0);
	put(root, "sys/class/net/eth0/statistics/rx_bytes", "1000\n");
	put(root, "sys/class/net/eth0/statistics/tx_bytes", "2000\n");
	put(root, "sys/class/net/lo/statistics/rx_bytes", "7\n");
	put(root, "sys/class/net/bonding_masters", "\n");
}

static void
remove_tree(const char *root)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	(void)!system(cmd);
}

/* A file bigger than its first buffer is read whole, once per generation. */
static void
test_file_grows(void **unused)
{
	char root[256], big[5000];
	const char *roots[1] = { root };
	struct err err = { "" };
	const char *text;
	size_t len;

	(void)unused;
	make_tree(root, sizeof(root));
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put(root, "proc/big", big);
	struct procfs *fs = procfs_new(roots, 1);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	struct pfile *pf = procfs_file(fs, "proc/big");
	text = pfile_read(pf, &len, &err);
	assert_non_null(text);
	assert_int_equal(len, sizeof(big) - 1); /* 4999 bytes, past the 128 B start */
	assert_string_equal(text, big);
	/* the same generation: the same buffer, not read again */
	put(root, "proc/big", "short\n");
	assert_ptr_equal(pfile_read(pf, &len, &err), text);
	assert_int_equal(len, sizeof(big) - 1);
	/* a new generation reads it again */
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	text = pfile_read(pf, &len, &err);
	assert_string_equal(text, "short\n");
	/* a missing file: NULL, with the path in the message */
	assert_null(pfile_read(procfs_file(fs, "proc/none"), &len, &err));
	assert_non_null(strstr(err.msg, "proc/none"));
	procfs_free(fs);
	remove_tree(root);
}

/* Attributes share one buffer: each text is right when it is read, and one
 * asked for again after another attribute is read again. */
static void
test_attrs_share_a_buffer(void **unused)
{
	char root[256];
	const char *roots[1] = { root };
	struct err err = { "" };
	const char *a, *b;
	size_t len;

	(void)unused;
	make_tree(root, sizeof(root));
	struct procfs *fs = procfs_new(roots, 1);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	struct pfile *rx = procfs_attr(fs, "sys/class/net/eth0/statistics/rx_bytes");
	struct pfile *tx = procfs_attr(fs, "sys/class/net/eth0/statistics/tx_bytes");
	assert_ptr_equal(procfs_attr(fs, "sys/class/net/eth0/statistics/rx_bytes"), rx);
	a = pfile_read(rx, &len, &err);
	assert_string_equal(a, "1000\n");
	assert_int_equal(len, 5);
	b = pfile_read(tx, &len, &err);
	assert_string_equal(b, "2000\n");
	assert_ptr_equal(a, b); /* one buffer */
	a = pfile_read(rx, &len, &err); /* read again: tx took the buffer */
	assert_string_equal(a, "1000\n");
	assert_ptr_equal(pfile_read(rx, &len, &err), a); /* still its text */
	/* a missing attribute fails without touching the shared text */
	assert_null(pfile_read(procfs_attr(fs, "sys/class/net/eth0/speed"), &len, &err));
	assert_null(pfile_read(procfs_attr(fs, "sys/class/net/eth0/speed"), &len, &err));
	assert_string_equal(pfile_read(rx, &len, &err), "1000\n");
	procfs_free(fs);
	remove_tree(root);
}

struct names {
	int n;
	char name[8][32];
	unsigned char type[8];
	struct procfs *fs;
	int nested; /* entries the nested listings saw */
};

static int
collect(const char *name, unsigned char type, void *arg)
{
	struct names *s = arg;

	assert_true(s->n < 8);
	snprintf(s->name[s->n], sizeof(s->name[0]), "%s", name);
	s->type[s->n++] = type;
	return 0;
}

static int
count(const char *name, unsigned char type, void *arg)
{
	(void)name;
	(void)type;
	(*(int *)arg)++;
	return 0;
}

/* For each interface, list its statistics from inside the outer listing. */
static int
nested(const char *name, unsigned char type, void *arg)
{
	struct names *s = arg;
	char rel[128];

	if (strcmp(name, "bonding_masters") == 0)
		return 0;
	(void)type;
	snprintf(rel, sizeof(rel), "sys/class/net/%s/statistics", name);
	assert_int_equal(procfs_list(s->fs, rel, count, &s->nested), 0);
	return 0;
}

/* Nonzero when name is among the n names of s. */
static int
has(const struct names *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->name[i], name) == 0)
			return 1;
	return 0;
}

static int
stop_at_first(const char *name, unsigned char type, void *arg)
{
	(void)name;
	(void)type;
	(*(int *)arg)++;
	return 1;
}

/* procfs_list: the entries but "." and "..", with their types; again from
 * the start after a change; nested; stopped early; a missing directory. */
static void
test_list(void **unused)
{
	char root[256];
	const char *roots[1] = { root };
	struct err err = { "" };
	struct names seen;
	int n = 0;

	(void)unused;
	make_tree(root, sizeof(root));
	struct procfs *fs = procfs_new(roots, 1);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(procfs_list(fs, "sys/class/net", collect, &seen), 0);
	assert_int_equal(seen.n, 3); /* eth0, lo, bonding_masters */
	assert_true(has(&seen, "eth0"));
	assert_true(has(&seen, "lo"));
	assert_true(has(&seen, "bonding_masters"));
	for (int i = 0; i < seen.n; i++) /* DT_UNKNOWN where the fs has no d_type */
		if (strcmp(seen.name[i], "bonding_masters") == 0)
			assert_true(seen.type[i] == DT_REG || seen.type[i] == DT_UNKNOWN);
		else
			assert_true(seen.type[i] == DT_DIR || seen.type[i] == DT_UNKNOWN);
	/* an interface comes: the next listing (same descriptor) shows it */
	put(root, "sys/class/net/eth1/statistics/rx_bytes", "1\n");
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(procfs_list(fs, "sys/class/net", collect, &seen), 0);
	assert_int_equal(seen.n, 4);
	assert_true(has(&seen, "eth1"));
	/* a listing inside a listing: eth0 2 + eth1 1 + lo 1 statistics */
	memset(&seen, 0, sizeof(seen));
	seen.fs = fs;
	assert_int_equal(procfs_list(fs, "sys/class/net", nested, &seen), 0);
	assert_int_equal(seen.nested, 4);
	/* fn returning nonzero stops the listing */
	assert_int_equal(procfs_list(fs, "sys/class/net", stop_at_first, &n), 0);
	assert_int_equal(n, 1);
	/* a missing directory */
	assert_int_equal(procfs_list(fs, "sys/class/none", count, &n), -1);
	assert_int_equal(errno, ENOENT);
	procfs_free(fs);
	remove_tree(root);
}

/* A series: read i reads root i; switching roots closes and reopens. */
static void
test_root_switch(void **unused)
{
	char r0[256], r1[300];
	const char *roots[2] = { r0, r1 };
	struct err err = { "" };
	struct names seen;
	size_t len;

	(void)unused;
	make_tree(r0, sizeof(r0));
	snprintf(r1, sizeof(r1), "%s/t1", r0);
	assert_int_equal(mkdir(r1, 0755), 0);
	put(r1, "sys/class/net/eth9/statistics/rx_bytes", "99\n");
	struct procfs *fs = procfs_new(roots, 2);
	struct pfile *rx = procfs_attr(fs, "sys/class/net/eth0/statistics/rx_bytes");
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	assert_string_equal(pfile_read(rx, &len, &err), "1000\n");
	assert_int_equal(procfs_begin_read(fs, 1, &err), 0);
	assert_null(pfile_read(rx, &len, &err)); /* no eth0 in t1 */
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(procfs_list(fs, "sys/class/net", collect, &seen), 0);
	assert_int_equal(seen.n, 1);
	assert_string_equal(seen.name[0], "eth9");
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	assert_string_equal(pfile_read(rx, &len, &err), "1000\n");
	procfs_free(fs);
	remove_tree(r0);
}

/* The fold of random text (blanks, tabs, letters, newlines, runs of every
 * length across the 16-byte blocks and the 16 KiB windows) against the
 * rule done byte by byte here: a blank is one space, a run of two or more
 * is two; sizes from 0 to past three windows, the buffer growing from
 * nothing and then read again in place. */
static void
test_fold_random(void **unused)
{
	char root[256];
	const char *roots[1] = { root };
	struct err err = { "" };
	static const char alphabet[] = "    \t\t ab1\n";
	static const size_t sizes[] = { 0, 1, 2, 3, 15, 16, 17, 31, 33, 100, 4095, 16384, 16385, 50000 };
	static char text[50001], want[50001];
	unsigned seed = 12345;

	(void)unused;
	make_tree(root, sizeof(root));
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		size_t n = sizes[z], w = 0;
		unsigned blank = 0;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			/* long runs now and then, as /proc/interrupts' padding */
			size_t pick = (seed >> 16) % (sizeof(alphabet) - 1);
			text[i] = (seed >> 8) % 7 == 0 ? ' ' : alphabet[pick];
			if (text[i] == ' ' || text[i] == '\t') {
				if (blank++ < 2)
					want[w++] = ' ';
			} else {
				blank = 0;
				want[w++] = text[i];
			}
		}
		text[n] = want[w] = '\0';
		put(root, "proc/interrupts", text);
		struct procfs *fs = procfs_new(roots, 1);
		struct pfile *pf = procfs_file(fs, "proc/interrupts");
		pfile_fold_blanks(pf);
		for (int gen = 0; gen < 2; gen++) {
			size_t len;
			assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
			const char *got = pfile_read(pf, &len, &err);
			assert_non_null(got);
			assert_int_equal(len, w);
			assert_memory_equal(got, want, w + 1);
		}
		procfs_free(fs);
	}
	remove_tree(root);
}

/* A file read with its blanks folded (pfile_fold_blanks): one blank stays
 * one space, a run of two or more (tabs too) is two, across the 16 KiB
 * window it is read through; the text is the same at every generation and
 * the buffer settles (no growth once it fits). */
static void
test_fold_blanks(void **unused)
{
	char root[256];
	const char *roots[1] = { root };
	struct err err = { "" };
	const char *text;
	size_t len, wlen = 0;
	/* 3,000 rows of "  NN:          7 \t  0  a b  c      \n" (36 bytes):
	 * past six windows, with runs of blanks across their edges */
	static char big[3000 * 40 + 1], want[3000 * 40 + 1];

	(void)unused;
	make_tree(root, sizeof(root));
	for (int i = 0, k = 0; i < 3000; i++) {
		k += snprintf(big + k, sizeof(big) - (size_t)k, "  %02d:%*d \t  0  a b  c%*s\n",
			      i % 100, 11, 7, 6, "");
		wlen += (size_t)snprintf(want + wlen, sizeof(want) - wlen,
					 "  %02d:  7  0  a b  c  \n", i % 100);
	}
	assert_int_equal(strlen(big), 3000 * 36);
	put(root, "proc/interrupts", big);
	struct procfs *fs = procfs_new(roots, 1);
	struct pfile *pf = procfs_file(fs, "proc/interrupts");
	pfile_fold_blanks(pf);
	const char *settled = NULL;
	for (int gen = 0; gen < 3; gen++) {
		assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
		text = pfile_read(pf, &len, &err);
		assert_non_null(text);
		assert_int_equal(len, wlen);
		assert_string_equal(text, want);
		/* fitted after the first read, then read again in place */
		if (gen == 1)
			settled = text;
		else if (gen == 2)
			assert_ptr_equal(text, settled);
	}
	/* a file with no blanks at all, and an empty one */
	put(root, "proc/interrupts", "x");
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	assert_string_equal(pfile_read(pf, &len, &err), "x");
	put(root, "proc/interrupts", "");
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	assert_string_equal(pfile_read(pf, &len, &err), "");
	assert_int_equal(len, 0);
	procfs_free(fs);
	remove_tree(root);
}

/* What a line reader was handed: the lines joined by newlines, and a count. */
struct got_lines {
	char *text;
	size_t len, cap, n;
};

static void
got_line(void *arg, const char *line, size_t len)
{
	struct got_lines *g = arg;

	if (g->len + len + 1 > g->cap) {
		g->cap = (g->len + len + 1) * 2;
		g->text = realloc(g->text, g->cap);
		assert_non_null(g->text);
	}
	memcpy(g->text + g->len, line, len);
	g->len += len;
	g->text[g->len++] = '\n';
	g->n++;
}

/* A file streamed through the window: every line as it is, across the
 * window's edges, an empty one, a last one without a newline; a line
 * longer than the window skipped with a note. Taps: handed the lines of
 * another reader's pass once a generation (of pfile_read's fresh read
 * too), not their own reader's twice, none after a failed read or once
 * removed. */
static void
test_lines_and_taps(void **unused)
{
	char root[256];
	const char *roots[1] = { root };
	struct err err = { "" };
	static char text[400 * 1024], want[400 * 1024];
	size_t tlen = 0, wlen = 0, len;
	struct got_lines a = { 0 }, b = { 0 };

	(void)unused;
	make_tree(root, sizeof(root));
	/* 5,000 lines of 0 to 119 bytes: past eighteen windows */
	for (int i = 0; i < 5000; i++) {
		int n = (i * 37) % 120;
		if (i == 2500) { /* a line longer than the window, then an empty one */
			memset(text + tlen, 'L', 20000);
			tlen += 20000;
			text[tlen++] = '\n';
			text[tlen++] = '\n';
			want[wlen++] = '\n';
		}
		for (int k = 0; k < n; k++)
			text[tlen + (size_t)k] = want[wlen + (size_t)k] = (char)('a' + (i + k) % 26);
		tlen += (size_t)n;
		wlen += (size_t)n;
		text[tlen++] = '\n';
		want[wlen++] = '\n';
	}
	memcpy(text + tlen, "last", 4); /* no newline */
	tlen += 4;
	text[tlen] = '\0';
	memcpy(want + wlen, "last\n", 5);
	wlen += 5;
	assert_true(tlen > 18 * PFILE_LINE_MAX);
	put(root, "proc/diskstats", text);

	struct procfs *fs = procfs_new(roots, 1);
	struct pfile *pf = procfs_file(fs, "proc/diskstats");
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	pfile_tap(pf, got_line, &a);
	assert_false(pfile_tapped(pf, got_line, &a));
	assert_int_equal(pfile_lines(pf, got_line, &b, &err), 0);
	assert_int_equal(b.n, 5002);
	assert_int_equal(b.len, wlen);
	assert_memory_equal(b.text, want, wlen);
	const char *note = procfs_next_note(fs);
	assert_non_null(note);
	assert_non_null(strstr(note, "proc/diskstats: a line longer than 16 KiB"));
	/* the tap had the same lines, in the same pass */
	assert_true(pfile_tapped(pf, got_line, &a));
	assert_int_equal(a.n, 5002);
	assert_memory_equal(a.text, want, wlen);
	/* a second pass in the generation: the tap is not handed them again */
	b.len = b.n = 0;
	assert_int_equal(pfile_lines(pf, got_line, &b, &err), 0);
	assert_int_equal(b.n, 5002);
	assert_int_equal(a.n, 5002);

	/* the next generation: the tap's own pass hands it each line once */
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	assert_false(pfile_tapped(pf, got_line, &a));
	a.len = a.n = 0;
	assert_int_equal(pfile_lines(pf, got_line, &a, &err), 0);
	assert_int_equal(a.n, 5002);

	/* pfile_read's fresh read hands the tap the lines; a cached one not */
	put(root, "proc/diskstats", "x\ny\n");
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	a.len = a.n = 0;
	assert_non_null(pfile_read(pf, &len, &err));
	assert_non_null(pfile_read(pf, &len, &err));
	assert_true(pfile_tapped(pf, got_line, &a));
	assert_int_equal(a.n, 2);
	assert_memory_equal(a.text, "x\ny\n", 4);

	/* a file that cannot be read: -1, the reason, the tap not handed it */
	struct pfile *gone = procfs_file(fs, "proc/nothere");
	struct got_lines c = { 0 };
	pfile_tap(gone, got_line, &c);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	assert_int_equal(pfile_lines(gone, got_line, &b, &err), -1);
	assert_non_null(strstr(err.msg, "cannot open"));
	assert_non_null(strstr(err.msg, "proc/nothere"));
	assert_false(pfile_tapped(gone, got_line, &c));
	assert_int_equal(c.n, 0);
	pfile_untap(gone, got_line, &c);

	/* removed: handed nothing */
	put(root, "proc/diskstats", "z\n");
	pfile_untap(pf, got_line, &a);
	a.len = a.n = 0;
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	assert_int_equal(pfile_lines(pf, got_line, &b, &err), 0);
	assert_int_equal(a.n, 0);
	assert_false(pfile_tapped(pf, got_line, &a));
	procfs_free(fs);
	free(a.text);
	free(b.text);
	remove_tree(root);
}

/* In a child with a mount namespace of its own holding 300 more tmpfs
 * mounts: procfs's live read of proc/self/mountinfo against a plain read()
 * loop. Exit 0 alike, 1 not, 77 when no namespace can be made. */
static int
mountinfo_child(const char *dir)
{
	static char want[1 << 20];
	char path[300];
	struct err err = { "" };
	size_t n = 0, len = 0;
	ssize_t got;
	int fd;

	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return 77;
	for (int i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "%s/mount-point-%03d", dir, i);
		if (mkdir(path, 0755) != 0 || mount("gctest", path, "tmpfs", 0, "size=4k") != 0)
			return 77;
	}
	fd = open("/proc/self/mountinfo", O_RDONLY);
	while (fd >= 0 && (got = read(fd, want + n, sizeof(want) - 1 - n)) > 0)
		n += (size_t)got;
	if (fd < 0 || n <= PFILE_LINE_MAX) /* past a page, and past the window */
		return 1;
	close(fd);
	struct procfs *fs = procfs_new(NULL, 0);
	if (procfs_begin_read(fs, 0, &err) != 0)
		return 1;
	struct pfile *pf = procfs_file(fs, "proc/self/mountinfo");
	const char *text = pfile_read(pf, &len, &err);
	int same = text && len == n && memcmp(text, want, n) == 0;
	if (!same)
		fprintf(stderr, "procfs read %zu bytes of mountinfo, read() %zu\n", len, n);
	/* streamed through the window, as pfile_lines reads it */
	struct got_lines g = { 0 };
	if (pfile_lines(pf, got_line, &g, &err) != 0 || g.len != n || memcmp(g.text, want, n) != 0) {
		fprintf(stderr, "pfile_lines gave %zu bytes of mountinfo, read() %zu\n", g.len, n);
		same = 0;
	}
	free(g.text);
	procfs_free(fs);
	return same ? 0 : 1;
}

/* A /proc file of records (a seq_file) gives a page or so a read: procfs
 * reads on until the end, live, where one pread would stop after the
 * first page. */
static void
test_proc_file_past_a_page(void **unused)
{
	char dir[256], cmd[300];
	int status = 0;
	pid_t pid;

	(void)unused;
	snprintf(dir, sizeof(dir), "/tmp/gc-test-procfs-mnt-%d", (int)getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(mountinfo_child(dir));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		print_message("skipped: a mount namespace with tmpfs mounts needs root "
			      "(CAP_SYS_ADMIN)\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_grows),
		cmocka_unit_test(test_attrs_share_a_buffer),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_root_switch),
		cmocka_unit_test(test_fold_blanks),
		cmocka_unit_test(test_fold_random),
		cmocka_unit_test(test_lines_and_taps),
		cmocka_unit_test(test_proc_file_past_a_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
