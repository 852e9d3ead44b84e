/*
 * cpuidle.c - the cpufreq and cpuidle reader behind the frequency and
 * C-state counters of Processor and Processor Information, and the
 * Processor Idle State set (COUNTERS.md section 2): one instance per online
 * CPU and idle state, "CPU/STATE" with STATE the state's name (POLL
 * included); the engine forms "_Total/STATE" (the set's GROUP_CHILD rule).
 *
 * Files live under sys/devices/system/cpu/cpuN/: cpufreq/scaling_cur_freq
 * and cpufreq/cpuinfo_max_freq (kHz), cpuidle/stateK/{name,time,usage}
 * (time in microseconds). Live, the wanted files stay open and each read is
 * one pread apiece into a stack buffer; a file that fails makes its CPU be
 * discovered again (hotplug). A reader keeps at most a quarter of the
 * process's descriptor limit open; past that, or should the process run
 * out of descriptors, a file is opened for each read instead.
 *
 * The three sets share one reader per procfs (procfs_shared), which reads
 * what any of them wants, each CPU's files once a read generation: the
 * second and third set to ask for a CPU get the record the first one read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuidle.h"
#include "cpuinfo.h"
#include "procstat.h"
#include "provider.h"

#define FD_NONE (-1)   /* not wanted, or not there */
#define FD_REOPEN (-2) /* wanted, but no descriptor to keep: open per read */

enum attr { A_CUR_FREQ, A_MAX_FREQ, A_NAME, A_TIME, A_USAGE };

/* A CPU's record: the public values plus the files behind them. */
struct idle_cpu {
	struct cpuidle_cpu pub;
	uint8_t discovered;
	int cur_fd;
	size_t cap;  /* states allocated */
	int *fd;     /* per state: time, usage */
	uint64_t gen; /* the read generation pub is of, 0 none */
};

struct cpuidle_reader {
	struct procfs *fs;
	struct cpuidle_want want;
	int live;
	int base;    /* sys/devices/system/cpu of the current root, or -1 */
	size_t ncpus; /* length of cpus[] */
	struct idle_cpu **cpus;
	struct cpuidle_cpu none; /* what a CPU out of range reads as */
	unsigned users;  /* the sets sharing it */
	uint64_t begun;  /* the generation cpuidle_reader_begin ran in, 0 none */
};

int
cpuidle_parse_u64(const char *buf, uint64_t *out)
{
	const char *p = skip_blanks(buf);

	if (parse_u64(&p, out) < 0)
		return -1;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return *p ? -1 : 0;
}

size_t
cpuidle_parse_name(const char *buf, char *out, size_t n)
{
	size_t len = 0;

	if (n == 0)
		return 0;
	while (buf[len] && buf[len] != '\n' && len + 1 < n) {
		unsigned char ch = (unsigned char)buf[len];
		out[len] = ch < 0x20 || ch == 0x7f || ch == '/' ? '_' : (char)ch;
		len++;
	}
	while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		len--;
	out[len] = '\0';
	return len;
}

/* The path of one attribute, relative to sys/devices/system/cpu. */
static void
attr_path(char *buf, size_t n, unsigned cpu, unsigned k, enum attr a)
{
	static const char *const file[] = {
		[A_CUR_FREQ] = "scaling_cur_freq", [A_MAX_FREQ] = "cpuinfo_max_freq",
		[A_NAME] = "name", [A_TIME] = "time", [A_USAGE] = "usage",
	};

	if (a == A_CUR_FREQ || a == A_MAX_FREQ)
		snprintf(buf, n, "cpu%u/cpufreq/%s", cpu, file[a]);
	else
		snprintf(buf, n, "cpu%u/cpuidle/state%u/%s", cpu, k, file[a]);
}

/* Open one attribute to keep: its descriptor, FD_NONE when it is not
 * there, FD_REOPEN when the budget or the process has no descriptor left. */
static int
attr_open(struct cpuidle_reader *r, unsigned cpu, unsigned k, enum attr a)
{
	char path[96];
	int fd;

	attr_path(path, sizeof(path), cpu, k, a);
	fd = openat(r->base, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == EMFILE || errno == ENFILE ? FD_REOPEN : FD_NONE;
	if (procfs_fd_take(r->fs) < 0) {
		close(fd);
		return FD_REOPEN;
	}
	return fd;
}

/* Read an open attribute into buf (size n, NUL-terminated); the length,
 * or -1. */
static long
attr_pread(int fd, char *buf, size_t n)
{
	ssize_t got = pread(fd, buf, n - 1, 0);

	if (got < 0)
		return -1;
	buf[got] = '\0';
	return (long)got;
}

/* Open, read and close one attribute. */
static long
attr_read_once(const struct cpuidle_reader *r, unsigned cpu, unsigned k, enum attr a, char *buf,
	       size_t n)
{
	char path[96];
	long got;
	int fd;

	attr_path(path, sizeof(path), cpu, k, a);
	fd = openat(r->base, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = attr_pread(fd, buf, n);
	close(fd);
	return got;
}

/* Read a number attribute through *fd: 0, -1 when the file failed, -2
 * when it holds no number ("<unknown>"). */
static int
attr_u64(const struct cpuidle_reader *r, int fd, unsigned cpu, unsigned k, enum attr a,
	 uint64_t *out)
{
	char buf[32];
	long got = fd == FD_REOPEN ? attr_read_once(r, cpu, k, a, buf, sizeof(buf))
				   : attr_pread(fd, buf, sizeof(buf));

	if (got < 0)
		return -1;
	return cpuidle_parse_u64(buf, out) < 0 ? -2 : 0;
}

static void
fd_close(struct cpuidle_reader *r, int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		procfs_fd_give(r->fs);
	}
	*fd = FD_NONE;
}

/* Close a CPU's files and forget what was found. */
static void
cpu_forget(struct cpuidle_reader *r, struct idle_cpu *c)
{
	fd_close(r, &c->cur_fd);
	for (unsigned k = 0; k < 2 * c->pub.nstates; k++)
		fd_close(r, &c->fd[k]);
	c->pub.nstates = 0;
	c->pub.have = 0;
	c->discovered = 0;
}

/* Nonzero when the wanted mask asks for a state with this C-state index. */
static int
wanted(uint32_t mask, unsigned cstate)
{
	return (mask & CPUIDLE_EVERY_STATE) || (cstate && (mask & (1u << cstate)));
}

/* Find a CPU's files: its cpufreq, and its idle states in order of K. */
static void
cpu_discover(struct cpuidle_reader *r, struct idle_cpu *c)
{
	unsigned cpu = c->pub.cpu, nth = 0;
	char buf[64];

	cpu_forget(r, c);
	c->discovered = 1;
	if (r->want.cur_freq)
		c->cur_fd = attr_open(r, cpu, 0, A_CUR_FREQ);
	if (r->want.max_freq &&
	    attr_read_once(r, cpu, 0, A_MAX_FREQ, buf, sizeof(buf)) >= 0 &&
	    cpuidle_parse_u64(buf, &c->pub.max_khz) == 0)
		c->pub.have |= CPUIDLE_HAVE_MAX_FREQ;
	if (!r->want.time && !r->want.usage)
		return;
	for (unsigned k = 0; k < CPUIDLE_MAX_STATES; k++) {
		struct cpuidle_state *st;

		if (attr_read_once(r, cpu, k, A_NAME, buf, sizeof(buf)) < 0)
			break;
		if (k >= c->cap) { /* one at a time: 512 CPUs x 16 states x 3 sets is 1 MB */
			c->cap = k + 1;
			c->pub.state = xrealloc(c->pub.state, c->cap * sizeof(*c->pub.state));
			c->fd = xrealloc(c->fd, 2 * c->cap * sizeof(*c->fd));
		}
		st = &c->pub.state[k];
		memset(st, 0, sizeof(*st));
		cpuidle_parse_name(buf, st->name, sizeof(st->name));
		if (strcmp(st->name, "POLL") != 0 && ++nth <= CPUIDLE_CSTATES)
			st->cstate = (uint8_t)nth;
		c->fd[2 * k] = wanted(r->want.time, st->cstate) ? attr_open(r, cpu, k, A_TIME)
								: FD_NONE;
		c->fd[2 * k + 1] = wanted(r->want.usage, st->cstate)
					   ? attr_open(r, cpu, k, A_USAGE)
					   : FD_NONE;
		c->pub.nstates = k + 1;
	}
}

/* The directory every path is relative to, in the current root. */
static void
base_open(struct cpuidle_reader *r)
{
	r->base = procfs_open_dir(r->fs, "sys/devices/system/cpu");
}

/* Add want to what r reads; every CPU found with less is found again. */
static void
want_add(struct cpuidle_reader *r, const struct cpuidle_want *want)
{
	struct cpuidle_want w = r->want;

	w.cur_freq |= want->cur_freq;
	w.max_freq |= want->max_freq;
	w.time |= want->time;
	w.usage |= want->usage;
	if (memcmp(&w, &r->want, sizeof(w)) == 0)
		return;
	r->want = w;
	for (size_t i = 0; i < r->ncpus; i++)
		if (r->cpus[i]) {
			r->cpus[i]->discovered = 0;
			r->cpus[i]->gen = 0;
		}
}

struct cpuidle_reader *
cpuidle_reader_new(struct procfs *fs, const struct cpuidle_want *want)
{
	void **slot = procfs_shared(fs, PROCFS_SHARED_CPUIDLE);
	struct cpuidle_reader *r = *slot;

	if (r) {
		r->users++;
		want_add(r, want);
		return r;
	}
	r = xcalloc(1, sizeof(*r));
	r->fs = fs;
	r->want = *want;
	r->live = procfs_is_live(fs);
	r->users = 1;
	base_open(r);
	*slot = r;
	return r;
}

void
cpuidle_reader_free(struct cpuidle_reader *r)
{
	if (!r || --r->users > 0)
		return;
	*procfs_shared(r->fs, PROCFS_SHARED_CPUIDLE) = NULL;
	for (size_t i = 0; i < r->ncpus; i++) {
		struct idle_cpu *c = r->cpus[i];
		if (!c)
			continue;
		cpu_forget(r, c);
		free(c->pub.state);
		free(c->fd);
		free(c);
	}
	free(r->cpus);
	if (r->base >= 0)
		close(r->base);
	free(r);
}

void
cpuidle_reader_begin(struct cpuidle_reader *r)
{
	uint64_t gen = procfs_generation(r->fs);

	if (r->live || (gen && gen == r->begun))
		return;
	r->begun = gen;
	for (size_t i = 0; i < r->ncpus; i++)
		if (r->cpus[i])
			cpu_forget(r, r->cpus[i]);
	if (r->base >= 0)
		close(r->base);
	base_open(r);
}

const struct cpuidle_cpu *
cpuidle_reader_read(struct cpuidle_reader *r, unsigned cpu)
{
	struct idle_cpu *c;
	int failed = 0;

	if (cpu > CPUINFO_MAX_CPU || r->base < 0) {
		memset(&r->none, 0, sizeof(r->none));
		r->none.cpu = cpu;
		return &r->none;
	}
	if (cpu >= r->ncpus) {
		size_t n = r->ncpus ? r->ncpus : 8;
		while (n <= cpu)
			n *= 2;
		r->cpus = xrealloc(r->cpus, n * sizeof(*r->cpus));
		memset(r->cpus + r->ncpus, 0, (n - r->ncpus) * sizeof(*r->cpus));
		r->ncpus = n;
	}
	c = r->cpus[cpu];
	if (!c) {
		c = r->cpus[cpu] = xcalloc(1, sizeof(*c));
		c->pub.cpu = cpu;
		c->cur_fd = FD_NONE;
	}
	uint64_t gen = procfs_generation(r->fs);
	if (gen && c->gen == gen && c->discovered)
		return &c->pub; /* read by another set this generation */
	if (!c->discovered)
		cpu_discover(r, c);
	c->gen = gen;
	c->pub.have &= CPUIDLE_HAVE_MAX_FREQ;
	if (c->cur_fd != FD_NONE) {
		int rc = attr_u64(r, c->cur_fd, cpu, 0, A_CUR_FREQ, &c->pub.cur_khz);
		if (rc == 0)
			c->pub.have |= CPUIDLE_HAVE_CUR_FREQ;
		failed |= rc == -1;
	}
	for (unsigned k = 0; k < c->pub.nstates; k++) {
		struct cpuidle_state *st = &c->pub.state[k];
		int rc;

		st->have = 0;
		if (c->fd[2 * k] != FD_NONE) {
			rc = attr_u64(r, c->fd[2 * k], cpu, k, A_TIME, &st->time_us);
			if (rc == 0)
				st->have |= CPUIDLE_HAVE_TIME;
			failed |= rc == -1;
		}
		if (c->fd[2 * k + 1] != FD_NONE) {
			rc = attr_u64(r, c->fd[2 * k + 1], cpu, k, A_USAGE, &st->usage);
			if (rc == 0)
				st->have |= CPUIDLE_HAVE_USAGE;
			failed |= rc == -1;
		}
	}
	if (failed)
		c->discovered = 0; /* gone with a hot-unplugged CPU: look again */
	return &c->pub;
}

size_t
cpuidle_cstate_names(const struct cpuidle_cpu *c, unsigned first, unsigned last, char *buf,
		     size_t n)
{
	size_t len = 0;

	if (n == 0)
		return 0;
	buf[0] = '\0';
	for (unsigned k = 0; k < c->nstates; k++) {
		const struct cpuidle_state *st = &c->state[k];
		int w;

		if (st->cstate < first || st->cstate > last || st->cstate == 0)
			continue;
		w = snprintf(buf + len, n - len, "%s%s", len ? " + " : "", st->name);
		if (w < 0 || (size_t)w >= n - len) {
			buf[len] = '\0';
			break;
		}
		len += (size_t)w;
	}
	return len;
}

/* ---- the Processor Idle State set ------------------------------------- */

enum {
	F_TIME,
	F_USAGE,
	F_NFIELDS,
};

static const struct field_desc fields[F_NFIELDS] = {
	[F_TIME] = { "time", FW_64, FK_COUNTER, FB_NONE, PROM("time", "seconds", 1e-6) },
	[F_USAGE] = { "usage", FW_64, FK_COUNTER, FB_NONE, PROM("transitions", "", 0) },
};

static const struct counter_desc counters[] = {
	{
		.name = "% Time in State",
		.type = CT_TIMER,
		.num = { { F_TIME, 1 } },
		.scale = 1e-6,
		.total = TOTAL_MEAN,
		.clamp100 = 1,
		.unit = "%",
		.help = "Share of time the processor rested in this idle state; the kernel "
			"credits a stay when the processor wakes, so a long one shows late.",
	},
	{
		.name = "Transitions/sec",
		.type = CT_RATE,
		.num = { { F_USAGE, 1 } },
		.unit = "/s",
		.help = "Times per second the processor entered this idle state.",
	},
};

static const struct counter_set idle_state_set = {
	.name = "Processor Idle State",
	.help = "Residency and entries of each cpuidle state of each processor, POLL "
		"included, from sys/devices/system/cpu/cpuN/cpuidle.",
	.multi_instance = 1,
	.group = GROUP_CHILD,
	.fields = fields,
	.nfields = F_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
	.prom_labels = "cpu/state",
};

struct idle_state {
	struct cpuidle_reader *r;
	struct pfile *online; /* sys/devices/system/cpu/online */
	struct pfile *stat;   /* proc/stat, where there is no online list */
};

/* Open: a reader of every state's time and usage, as needed. */
static void *
idle_open(const struct provider_ctx *ctx, struct err *err)
{
	struct idle_state *st = xcalloc(1, sizeof(*st));
	struct cpuidle_want want = { 0 };

	(void)err;
	if (ctx->needed & ((uint64_t)1 << F_TIME))
		want.time = CPUIDLE_EVERY_STATE;
	if (ctx->needed & ((uint64_t)1 << F_USAGE))
		want.usage = CPUIDLE_EVERY_STATE;
	st->r = cpuidle_reader_new(ctx->fs, &want);
	st->online = procfs_file(ctx->fs, "sys/devices/system/cpu/online");
	st->stat = procfs_file(ctx->fs, "proc/stat");
	return st;
}

/* One instance per idle state of one CPU. */
static void
idle_add_cpu(struct idle_state *st, struct raw_set *out, unsigned cpu)
{
	const struct cpuidle_cpu *c = cpuidle_reader_read(st->r, cpu);
	char name[16 + CPUIDLE_NAME_LEN];

	for (unsigned k = 0; k < c->nstates; k++) {
		const struct cpuidle_state *s = &c->state[k];
		/* "CPU/STATE" (a snprintf an instance was a tenth of the read) */
		size_t n = fmt_uint(name, cpu), sl = strnlen(s->name, CPUIDLE_NAME_LEN - 1);
		name[n++] = '/';
		memcpy(name + n, s->name, sl);
		struct raw_instance *ri = raw_set_add(out, name, n + sl, ((uint64_t)cpu << 32) | k);

		if (s->have & CPUIDLE_HAVE_TIME)
			raw_put(out, ri, F_TIME, s->time_us);
		if (s->have & CPUIDLE_HAVE_USAGE)
			raw_put(out, ri, F_USAGE, s->usage);
	}
}

/* Read: the online CPUs (from the online list, else /proc/stat's cpuN
 * lines) and each one's states. No cpuidle: no instances. */
static int
idle_read(void *state, struct raw_set *out, struct err *err)
{
	struct idle_state *st = state;
	const char *buf, *p;
	size_t len;

	(void)err;
	cpuidle_reader_begin(st->r);
	buf = pfile_read(st->online, &len, NULL);
	if (buf) {
		unsigned lo, hi;
		p = buf;
		while (cpuinfo_cpulist_next(&p, buf + len, &lo, &hi))
			for (unsigned cpu = lo; cpu <= hi; cpu++)
				idle_add_cpu(st, out, cpu);
		return 0;
	}
	buf = pfile_read(st->stat, &len, NULL);
	if (buf) {
		struct procstat_cpu line;
		p = buf;
		while (procstat_cpu_next(&p, buf + len, &line))
			idle_add_cpu(st, out, line.cpu);
	}
	return 0;
}

static void
idle_close(void *state)
{
	struct idle_state *st = state;

	cpuidle_reader_free(st->r);
	free(st);
}

const struct provider provider_processor_idle_state = {
	.set = &idle_state_set,
	.open = idle_open,
	.read = idle_read,
	.close = idle_close,
};
