/*
 * common.h - what gcbench.c and floor.c share: CPU clocks, the open-file
 * limit, peak RSS, and the "ticker" that makes a fixture root move between
 * reads (so a single-root benchmark derives real deltas without switching
 * roots, which would close and reopen every file).
 *
 * The ticker rewrites, in place and outside the timed region, the files
 * whose values a generated root wants to move: proc/uptime (+1 s per step,
 * so dt = 1 s), the cpu lines and counters of proc/stat, and the counter
 * columns of proc/diskstats (+1 each per step). Numbers are bumped digit by
 * digit, so the files keep their length and no allocation happens.
 */
#ifndef GETCOUNTER_BENCH_COMMON_H
#define GETCOUNTER_BENCH_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* CPU time (user + system) of the whole process, in ns. */
static inline uint64_t
bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The process's user and system CPU time so far, in ns (getrusage: the
 * split of bench_cpu_ns between getcounter's own work and the kernel's,
 * read over many steps). */
static inline void
bench_user_sys_ns(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u;
	*sys = (uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u;
}

/* Monotonic wall time, in ns. */
static inline uint64_t
bench_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep ms milliseconds (outside any timed region: a step after a sleep
 * finds cold caches, as a sampler at an interval does). */
static inline void
bench_sleep_ms(double ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* --flush MB: before each step, write a line of every 64 bytes of an
 * MB MiB buffer (outside the timed region), so that the step finds the
 * caches holding none of its code or data: the cold step of a sampler at
 * an interval, without the interval's wait. A diagnostic (bench/README.md):
 * an idle interval also leaves a virtual machine's TLBs and the host's
 * caches cold, which this does not do. */
static inline void
bench_flush(unsigned mb)
{
	static volatile unsigned char *buf;
	static size_t n;

	if (!mb)
		return;
	if (!buf) {
		n = (size_t)mb << 20;
		buf = malloc(n);
		if (!buf) {
			fprintf(stderr, "bench: --flush %u: cannot allocate %u MiB\n", mb, mb);
			exit(1);
		}
	}
	for (size_t i = 0; i < n; i += 64)
		buf[i]++;
}

/* --turn IN,OUT: the floor and gcbench take turns, BENCH_TURN_STEPS
 * steps each. Each waits for a byte on descriptor IN before its turn and
 * writes one to OUT (the other's IN) after it. bench/run also binds both
 * to the same CPU: so the floor's steps and getcounter's run within
 * milliseconds of each other on the same CPU, and the slow and fast spells
 * of a shared machine fall on both alike (on a VM whose host runs other
 * guests, a CPU's every system call can cost 40 % more for a second, and
 * the two CPUs are not in the same spell). A turn is many steps, not one:
 * the other's turn costs a process some of its caches, so only a turn's
 * first step pays for it, and the median step does not. With --sleep
 * every step finds cold caches anyway, and a turn is one step. A wait of
 * 10 s (the other died, or has fewer steps) ends the turns. */
#define BENCH_TURN_STEPS 16

struct bench_turn {
	int in, out;
	unsigned long step; /* steps taken, warm-up steps too */
	unsigned long per;  /* steps a turn */
};

/* Parse "IN,OUT" into t; -1 when it is not two descriptors. */
static inline int
bench_turn_parse(struct bench_turn *t, const char *arg)
{
	char *end;
	long in = strtol(arg, &end, 10), out;

	if (end == arg || *end != ',')
		return -1;
	out = strtol(end + 1, &end, 10);
	if (*end || in < 0 || out < 0 || in > 1 << 20 || out > 1 << 20)
		return -1;
	t->in = (int)in;
	t->out = (int)out;
	t->step = 0;
	t->per = BENCH_TURN_STEPS;
	return 0;
}

/* Before a step: at the start of a turn, wait for it. */
static inline void
bench_turn_wait(struct bench_turn *t)
{
	struct pollfd p = { .fd = t->in, .events = POLLIN };
	char c;

	if (t->in < 0 || t->step % t->per != 0)
		return;
	if (poll(&p, 1, 10000) <= 0 || read(t->in, &c, 1) != 1) {
		fprintf(stderr, "bench: no turn for 10 s: going on alone\n");
		t->in = t->out = -1;
	}
}

/* After a step: at the end of a turn, or after the last step (last
 * nonzero), give the other its turn. */
static inline void
bench_turn_pass(struct bench_turn *t, int last)
{
	if (t->out < 0)
		return;
	t->step++;
	if (t->step % t->per == 0 || last)
		(void)!write(t->out, "t", 1);
}

/* The cost of one bench_cpu_ns() pair, in ns (the minimum of many). */
static inline uint64_t
bench_clock_overhead(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 2000; i++) {
		uint64_t a = bench_cpu_ns();
		uint64_t b = bench_cpu_ns();
		if (b - a < best)
			best = b - a;
	}
	return best;
}

/* Raise the open-file limit as far as allowed: every file read per sample
 * stays open (2,000 interfaces in sysfs form are 50,000 files). */
static inline long
bench_raise_nofile(void)
{
	struct rlimit rl;
	static const rlim_t tries[] = { 1 << 20, 1 << 18, 1 << 17 };

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		rl.rlim_cur = rl.rlim_max = tries[i];
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			return (long)tries[i];
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		return (long)rl.rlim_cur;
	}
	return -1;
}

/* Peak resident set (VmHWM) in KiB, or -1. */
static inline long
bench_vmhwm_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0) {
			kb = strtol(line + 6, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

/* ---- the ticker --------------------------------------------------------- */

enum tick_kind { TICK_UPTIME, TICK_STAT, TICK_DISKSTATS };

struct tick_file {
	int fd;
	enum tick_kind kind;
	char *buf;
	size_t len;
};

struct ticker {
	size_t n;
	struct tick_file f[3];
};

/* Add 1 to the decimal number in [s, e) in place (a carry out of the first
 * digit is dropped: the generator starts numbers at 1xxxxx). */
static inline void
tick_bump(char *s, char *e)
{
	for (char *p = e - 1; p >= s; p--) {
		if (*p != '9') {
			(*p)++;
			return;
		}
		*p = '0';
	}
}

/* Bump the numeric tokens from token first on (token 0 starts the line)
 * of the line at p (ending at eol), except token skip. */
static inline void
tick_line(char *p, char *eol, int first, int last, int skip)
{
	int tok = 0;

	while (p < eol) {
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		char *s = p;
		while (p < eol && *p != ' ' && *p != '\t')
			p++;
		if (p == s)
			break;
		/* counters have 6 digits or more; shorter numbers are gauges */
		if (tok >= first && (last < 0 || tok <= last) && tok != skip && p - s >= 6 &&
		    *s >= '1' && *s <= '9')
			tick_bump(s, p);
		tok++;
	}
}

/* Open the movable files of root (those it has). 0, or -1. */
static inline int
ticker_open(struct ticker *t, const char *root)
{
	static const struct {
		const char *rel;
		enum tick_kind kind;
	} files[] = {
		{ "proc/uptime", TICK_UPTIME },
		{ "proc/stat", TICK_STAT },
		{ "proc/diskstats", TICK_DISKSTATS },
	};
	char path[4096];

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct stat sb;
		struct tick_file *tf = &t->f[t->n];
		snprintf(path, sizeof(path), "%s/%s", root, files[i].rel);
		tf->fd = open(path, O_RDWR | O_CLOEXEC);
		if (tf->fd < 0)
			continue;
		if (fstat(tf->fd, &sb) < 0 || sb.st_size <= 0) {
			close(tf->fd);
			continue;
		}
		tf->len = (size_t)sb.st_size;
		tf->buf = malloc(tf->len);
		if (!tf->buf || pread(tf->fd, tf->buf, tf->len, 0) != (ssize_t)tf->len) {
			fprintf(stderr, "ticker: cannot read %s\n", path);
			return -1;
		}
		tf->kind = files[i].kind;
		t->n++;
	}
	return 0;
}

/* Move every file one step forward and write it back. */
static inline void
ticker_step(struct ticker *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct tick_file *tf = &t->f[i];
		char *p = tf->buf, *end = tf->buf + tf->len;

		if (tf->kind == TICK_UPTIME) {
			char *dot = memchr(p, '.', tf->len);
			tick_bump(p, dot ? dot : p);
		} else {
			while (p < end) {
				char *eol = memchr(p, '\n', (size_t)(end - p));
				if (!eol)
					eol = end;
				if (tf->kind == TICK_DISKSTATS)
					/* major minor name, then counters; token 11 is
					 * the I/Os in progress (a gauge) */
					tick_line(p, eol, 3, -1, 11);
				else if (strncmp(p, "cpu", 3) == 0)
					tick_line(p, eol, 1, -1, -1);
				else if (strncmp(p, "ctxt ", 5) == 0 ||
					 strncmp(p, "processes ", 10) == 0 ||
					 strncmp(p, "intr ", 5) == 0)
					tick_line(p, eol, 1, 1, -1);
				p = eol + 1;
			}
		}
		if (pwrite(tf->fd, tf->buf, tf->len, 0) != (ssize_t)tf->len)
			fprintf(stderr, "ticker: write failed: %s\n", strerror(errno));
	}
}

static inline void
ticker_close(struct ticker *t)
{
	for (size_t i = 0; i < t->n; i++) {
		close(t->f[i].fd);
		free(t->f[i].buf);
	}
	t->n = 0;
}

#endif
