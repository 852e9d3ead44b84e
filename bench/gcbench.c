/*
 * gcbench.c - getcounter's cost per sample, measured through the library
 * (every object but main.o) with startup excluded: engine_open, a few
 * warm-up steps, then many engine_step calls, each timed alone with the
 * process CPU clock (user + system; the timer's own cost is subtracted).
 *
 * Live (no --root): read_index 0 every step, as engine_run does. Under
 * --root DIR: one root, read_index 0 every step (files stay open, as live),
 * and before each step, outside the timed region, the ticker moves the
 * root's uptime, stat and diskstats forward so every step derives real
 * deltas over dt = 1 s.
 *
 * Prints one line of key=value figures (see bench/README.md). With
 * malloc-count.so preloaded it also counts allocations in the measured
 * steps and the heap the engine holds. --files F writes the files the
 * engine keeps open and read in its last warm-up step (relative to the
 * root; pread is recorded below), and the netlink requests and
 * statvfs calls of that step ("@netlink PROTOCOL HEX",
 * "@statvfs PATH", recorded by the sendto and statvfs below): the floor
 * reads exactly those files, sends exactly those requests and makes those
 * calls.
 *
 * --turn IN,OUT takes turns with the floor, 16 steps a turn, one with
 * --sleep (common.h's bench_turn): warm-up steps too, so both must be given
 * the same --warmup.
 *
 * gcbench [--root DIR] [--steps N] [--warmup N] [--output FMT] [--files F]
 *         [--sleep MS] [--flush MB] [--turn IN,OUT] [--marker] [--] [PATH...]
 *         (no PATH: the default counters)
 */
#include "common.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>

#include "cli.h"
#include "counter.h"
#include "engine.h"
#include "output.h"
#include "provider.h"

typedef void (*count_fn)(long long out[4]);

/* The netlink requests and statvfs calls of one step, as "@netlink
 * PROTOCOL HEX" and "@statvfs PATH" lines (statvfs comes from LogicalDisk's
 * helper thread: the lines are added under a lock). */
static int recording;
static char requests[16384];
static size_t requests_len;
static pthread_mutex_t requests_mu = PTHREAD_MUTEX_INITIALIZER;

/* Every sendto of the library objects linked here comes through this
 * definition (it takes precedence over libc's); while recording, a
 * netlink request is written down before it is sent. */
ssize_t
sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
       socklen_t tolen)
{
	int dom = 0, proto = 0;
	socklen_t sl = sizeof(dom);

	if (recording && getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &sl) == 0 &&
	    dom == AF_NETLINK) {
		sl = sizeof(proto);
		(void)getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &sl);
		pthread_mutex_lock(&requests_mu);
		int n = snprintf(requests + requests_len, sizeof(requests) - requests_len,
				 "@netlink %d ", proto);
		if (n > 0 && requests_len + (size_t)n + 2 * len + 2 < sizeof(requests)) {
			requests_len += (size_t)n;
			for (size_t i = 0; i < len; i++)
				requests_len += (size_t)sprintf(requests + requests_len, "%02x",
								((const unsigned char *)buf)[i]);
			requests[requests_len++] = '\n';
			requests[requests_len] = '\0';
		}
		pthread_mutex_unlock(&requests_mu);
	}
	return syscall(SYS_sendto, fd, buf, len, flags, to, tolen);
}

/* Every statvfs of the library objects comes through here, as sendto does:
 * the space figures of a mount are a call to the kernel, which the floor
 * makes too. */
int
statvfs(const char *path, struct statvfs *buf)
{
	static int (*real)(const char *, struct statvfs *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "statvfs");
	if (recording && !strchr(path, '\n')) {
		pthread_mutex_lock(&requests_mu);
		int n = snprintf(requests + requests_len, sizeof(requests) - requests_len,
				 "@statvfs %s\n", path);
		if (n > 0 && requests_len + (size_t)n < sizeof(requests))
			requests_len += (size_t)n;
		else
			requests[requests_len] = '\0';
		pthread_mutex_unlock(&requests_mu);
	}
	return real ? real(path, buf) : -1;
}

/* The descriptors the engine preads during the recorded step. A file it
 * keeps open but does not read at every step (LogicalDisk's mountinfo,
 * read when the mounts change; netcycles' cpuinfo, read at open) is no
 * part of a sample, so the floor must not read it: list_files lists the
 * kept-open files read in the recorded step only. */
#define MAX_FD 65536
static unsigned char fd_read[MAX_FD / 8];

static void
note_read(int fd)
{
	if (recording && fd >= 0 && fd < MAX_FD)
		__atomic_fetch_or(&fd_read[fd / 8], (unsigned char)(1u << (fd % 8)),
				  __ATOMIC_RELAXED);
}

/* Every pread of the library objects comes through these, as sendto
 * does. */
ssize_t
pread(int fd, void *buf, size_t n, off_t off)
{
	note_read(fd);
	return (ssize_t)syscall(SYS_pread64, fd, buf, n, off);
}

ssize_t
pread64(int fd, void *buf, size_t n, off_t off)
{
	note_read(fd);
	return (ssize_t)syscall(SYS_pread64, fd, buf, n, off);
}

/* The files the engine opens during the recorded step, as "@open REL" (a
 * file: past its descriptor budget it opens, reads and closes a file every
 * read) and "@dir REL" (a directory it lists every read) lines. Files it
 * keeps open were opened before that step and are listed from
 * /proc/self/fd instead. The buffer is mapped, not malloc'd, so that the
 * heap figure is getcounter's alone. */
static char *opens;
static size_t opens_len, opens_cap;
static char bench_root[4096];

static void
record_open(int dirfd, const char *path, int fd)
{
	char dir[4096], link[64], line[8192];
	struct stat sb;
	ssize_t got;

	if (path[0] == '/' || dirfd == AT_FDCWD || fstat(fd, &sb) < 0)
		return;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	got = readlink(link, dir, sizeof(dir) - 1);
	if (got < 0)
		return;
	dir[got] = '\0';
	size_t rl = strlen(bench_root);
	const char *rel = dir;
	if (strncmp(dir, bench_root, rl) == 0 && (dir[rl] == '/' || dir[rl] == '\0'))
		rel = dir + rl;
	while (*rel == '/')
		rel++;
	char full[8192];
	int n = snprintf(full, sizeof(full), "%s%s%s", rel, *rel ? "/" : "", path);
	if (n <= 0 || (size_t)n >= sizeof(full))
		return;
	/* proc/net is a link to proc/self/net: the path names our pid */
	const char *tail = full;
	if (strncmp(full, "proc/", 5) == 0 && full[5] >= '0' && full[5] <= '9') {
		const char *q = full + 5;
		while (*q >= '0' && *q <= '9')
			q++;
		if (*q == '/')
			tail = q;
	}
	n = snprintf(line, sizeof(line), "%s %s%s\n", S_ISDIR(sb.st_mode) ? "@dir" : "@open",
		     tail == full ? "" : "proc/self", tail);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	if (opens_len + (size_t)n + 1 > opens_cap) {
		size_t cap = (opens_len + (size_t)n + 1) * 2;
		void *p = opens ? mremap(opens, opens_cap, cap, MREMAP_MAYMOVE)
				: mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			exit(1);
		opens = p;
		opens_cap = cap;
	}
	memcpy(opens + opens_len, line, (size_t)n + 1);
	opens_len += (size_t)n;
}

/* Every openat of the library objects comes through here, as sendto does. */
int
openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | __O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	int fd = (int)syscall(SYS_openat, dirfd, path, flags, mode);
	if (recording && fd >= 0)
		record_open(dirfd, path, fd);
	return fd;
}

/* Allocation figures now (zeros without malloc-count.so). */
static void
counts(count_fn fn, long long out[4])
{
	out[0] = out[1] = out[2] = out[3] = 0;
	if (fn)
		fn(out);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nonzero when fd is one of the n in skip. */
static int
skipped(int fd, const int *skip, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (skip[i] == fd)
			return 1;
	return 0;
}

/* Write the regular files (relative to root) this process has open and
 * read in the recorded step, but the fds in skip, one a line, then the
 * netlink requests recorded, into path. Returns the number of lines
 * written. */
static long
list_files(const char *path, const char *root, const int *skip, size_t nskip)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	char link[64], target[4096];
	size_t rootlen = strlen(root);
	long n = 0;
	char *text = NULL;
	size_t tlen = 0;
	FILE *mem = open_memstream(&text, &tlen);
	FILE *out;

	if (!d) {
		if (mem)
			fclose(mem);
		free(text);
		return errno == EMFILE ? -2 : -1;
	}
	if (!mem) {
		closedir(d);
		return -1;
	}
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);
		struct stat sb;
		ssize_t got;

		if (de->d_name[0] == '.' || fd <= 2 || fd == dirfd(d) || skipped(fd, skip, nskip))
			continue;
		if (fd >= MAX_FD || !(fd_read[fd / 8] >> (fd % 8) & 1))
			continue; /* kept open, not read at every step */
		if (fstat(fd, &sb) < 0)
			continue;
		if (!S_ISREG(sb.st_mode))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		got = readlink(link, target, sizeof(target) - 1);
		if (got < 0)
			continue;
		target[got] = '\0';
		const char *rel = target;
		if (strncmp(target, root, rootlen) == 0)
			rel = target + rootlen;
		while (*rel == '/')
			rel++;
		/* proc/net is a link to proc/self/net: the fd names our pid */
		if (strncmp(rel, "proc/", 5) == 0 && rel[5] >= '0' && rel[5] <= '9') {
			const char *q = rel + 5;
			while (*q >= '0' && *q <= '9')
				q++;
			if (*q == '/') {
				fprintf(mem, "proc/self%s\n", q);
				n++;
				continue;
			}
		}
		fprintf(mem, "%s\n", rel);
		n++;
	}
	closedir(d);
	fputs(requests, mem);
	for (const char *q = requests; (q = strchr(q, '\n')); q++)
		n++;
	if (opens) {
		fputs(opens, mem);
		for (const char *q = opens; (q = strchr(q, '\n')); q++)
			n++;
	}
	fclose(mem);
	out = fopen(path, "w");
	if (!out) {
		free(text);
		return -1;
	}
	fwrite(text, 1, tlen, out);
	fclose(out);
	free(text);
	return n;
}

/* Whether name is a total the engine forms, not an instance read:
 * "_Total", and a group's "24/_Total", "_Total/eth0", "node0,_Total". */
static int
is_total(const char *name)
{
	size_t n = strlen(name);

	return strcmp(name, "_Total") == 0 || strncmp(name, "_Total/", 7) == 0 ||
	       (n > 7 && (strcmp(name + n - 7, "/_Total") == 0 ||
			  strcmp(name + n - 7, ",_Total") == 0));
}

/* Instances and instance-fields of a frame: per set, the distinct
 * instances (not totals: is_total) times the fields its requested counters use
 * (*all_fields), and times those fields only that some row has a value
 * from (*inst_fields): a field the run cannot read (an eBPF counter under
 * --root, a statistic the tree lacks) stores nothing, so counting it
 * would flatter the bytes per instance-field. */
static void
frame_shape(const struct frame *f, long *instances, long *inst_fields, long *all_fields,
	    long *values)
{
	const struct counter_desc *first[64] = { 0 };
	uint64_t fields[64] = { 0 }, got[64] = { 0 };
	long inst[64] = { 0 };

	*instances = *inst_fields = *all_fields = *values = 0;
	for (size_t r = 0; r < f->nrows; r++) {
		struct frame_row tmp;
		const struct frame_row *row = frame_row_at(f, r, &tmp);
		size_t s = 0;
		while (s < nproviders && providers[s]->set != row->set)
			s++;
		if (s >= 64)
			continue;
		if (frame_row_has_value(row)) {
			(*values)++;
			got[s] |= counter_fields(row->counter);
		}
		fields[s] |= counter_fields(row->counter);
		if (!first[s])
			first[s] = row->counter;
		if (row->counter == first[s] && !(row->instance && is_total(row->instance)))
			inst[s]++;
	}
	for (size_t s = 0; s < 64; s++) {
		*instances += inst[s];
		*inst_fields += inst[s] * __builtin_popcountll(got[s]);
		*all_fields += inst[s] * __builtin_popcountll(fields[s]);
	}
}

static void
usage(void)
{
	fprintf(stderr, "usage: gcbench [--root DIR] [--steps N] [--warmup N] [--output FMT] "
			"[--files F] [--log FILE] [--sleep MS] [--flush MB] [--turn IN,OUT] [--marker] [--] "
			"[PATH...]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	const char *root = NULL, *format = NULL, *files = NULL, *log = NULL;
	long steps = 200, warmup = 5;
	double sleep_ms = 0;
	unsigned flush_mb = 0;
	struct bench_turn turn = { -1, -1, 0, 1 };
	int marker = 0, i;
	struct config cfg;
	struct err err = { 0 };
	struct ticker tk = { 0 };
	count_fn count = (count_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "malloc_count_get");
	long long c_open[4], c0[4], c1[4];

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
			root = argv[++i];
		else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
			steps = atol(argv[++i]);
		else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc)
			warmup = atol(argv[++i]);
		else if (strcmp(argv[i], "--sleep") == 0 && i + 1 < argc)
			sleep_ms = atof(argv[++i]);
		else if (strcmp(argv[i], "--flush") == 0 && i + 1 < argc)
			flush_mb = (unsigned)atoi(argv[++i]);
		else if (strcmp(argv[i], "--turn") == 0 && i + 1 < argc) {
			if (bench_turn_parse(&turn, argv[++i]) < 0)
				usage();
		} else if (strcmp(argv[i], "--output") == 0 && i + 1 < argc)
			format = argv[++i];
		else if (strcmp(argv[i], "--files") == 0 && i + 1 < argc)
			files = argv[++i];
		else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc)
			log = argv[++i];
		else if (strcmp(argv[i], "--marker") == 0)
			marker = 1;
		else if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (argv[i][0] == '-' && argv[i][1] == '-')
			usage();
		else
			break;
	}
	if (steps < 1 || warmup < 1)
		usage();
	if (sleep_ms > 0)
		turn.per = 1; /* every step cold anyway: a turn a step */
	const char *const *paths = (const char *const *)&argv[i];
	size_t npaths = (size_t)(argc - i);

	long nofile = bench_raise_nofile();
	char *cargv[4] = { "gcbench", NULL, NULL, NULL };
	if (root) {
		cargv[1] = "--root";
		cargv[2] = (char *)root;
	}
	memset(&cfg, 0, sizeof(cfg));
	if (cli_parse(root ? 3 : 1, cargv, &cfg, &err) < 0) {
		fprintf(stderr, "gcbench: %s\n", err.msg);
		return 2;
	}
	if (root && ticker_open(&tk, root) < 0)
		return 1;
	uint64_t *t = calloc((size_t)steps, sizeof(uint64_t));
	uint64_t overhead = bench_clock_overhead();

	counts(count, c_open);
	int status;
	struct engine *e = engine_open(&cfg, paths, npaths, &status, &err);
	if (!e) {
		fprintf(stderr, "gcbench: %s\n", err.msg);
		return status;
	}
	if (log) { /* record to a .gcl log too: the heap figure includes its encoder */
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || engine_log_open(e, fd, log, 0, &err) < 0) {
			fprintf(stderr, "gcbench: --log %s: %s\n", log,
				fd < 0 ? strerror(errno) : err.msg);
			return 1;
		}
	}
	const struct frame *f = NULL;
	{
		char *real = root ? realpath(root, NULL) : NULL;
		snprintf(bench_root, sizeof(bench_root), "%s", real ? real : "/");
		free(real);
	}
	for (long w = 0; w < warmup; w++) {
		bench_turn_wait(&turn);
		if (root)
			ticker_step(&tk);
		/* record the requests of the last warm-up step: steady state */
		recording = w == warmup - 1;
		memset(fd_read, 0, sizeof(fd_read));
		requests_len = 0;
		requests[0] = '\0';
		opens_len = 0;
		if (opens)
			opens[0] = '\0';
		if (engine_step(e, 0, 0, &f, &err) < 0) {
			fprintf(stderr, "gcbench: %s\n", err.msg);
			return 1;
		}
		bench_turn_pass(&turn, 0);
	}
	recording = 0;
	long nfiles = -1;
	if (files) {
		int skip[3];
		for (size_t k = 0; k < tk.n; k++)
			skip[k] = tk.f[k].fd;
		char *real = root ? realpath(root, NULL) : NULL;
		nfiles = list_files(files, real ? real : "/", skip, tk.n);
		free(real);
	}
	const struct output *out = NULL;
	void *ost = NULL;
	FILE *devnull = NULL;
	if (format) {
		struct output_opts oo = { .precision = -1 };
		out = output_find(format);
		devnull = fopen("/dev/null", "w");
		if (!out || !devnull || !(ost = out->open(devnull, &oo, &err))) {
			fprintf(stderr, "gcbench: output %s: %s\n", format, err.msg);
			return 2;
		}
	}
	/* getrusage outside the marked steps: strace counts what is between */
	uint64_t user0, sys0, user1, sys1;
	bench_user_sys_ns(&user0, &sys0);
	if (marker)
		(void)!write(-1, "gcbench-measure-start", 21);
	uint64_t wall0 = bench_wall_ns();
	counts(count, c0);
	for (long s = 0; s < steps; s++) {
		bench_turn_wait(&turn); /* before the ticker: the files are ours */
		if (root)
			ticker_step(&tk);
		if (sleep_ms > 0)
			bench_sleep_ms(sleep_ms);
		bench_flush(flush_mb);
		uint64_t a = bench_cpu_ns();
		if (engine_step(e, 0, 0, &f, &err) < 0) {
			fprintf(stderr, "gcbench: %s\n", err.msg);
			return 1;
		}
		if (ost && f && out->write(ost, f, &err) < 0) {
			fprintf(stderr, "gcbench: %s\n", err.msg);
			return 1;
		}
		uint64_t b = bench_cpu_ns();
		t[s] = b - a > overhead ? b - a - overhead : 0;
		bench_turn_pass(&turn, s == steps - 1);
	}
	counts(count, c1);
	uint64_t wall1 = bench_wall_ns();
	if (marker)
		(void)!write(-1, "gcbench-measure-end", 19);
	bench_user_sys_ns(&user1, &sys1);

	uint64_t sum = 0;
	for (long s = 0; s < steps; s++)
		sum += t[s];
	qsort(t, (size_t)steps, sizeof(uint64_t), cmp_u64);
	long instances = 0, inst_fields = 0, all_fields = 0, values = 0;
	char nfiles_text[32];
	if (nfiles == -2)
		snprintf(nfiles_text, sizeof(nfiles_text), "EMFILE");
	else
		snprintf(nfiles_text, sizeof(nfiles_text), "%ld", nfiles);
	if (f)
		frame_shape(f, &instances, &inst_fields, &all_fields, &values);
	printf("steps=%ld cpu_ns=%llu cpu_ns_med=%llu cpu_ns_min=%llu wall_ns=%llu rows=%zu "
	       "values=%ld instances=%ld inst_fields=%ld all_fields=%ld files=%s",
	       steps, (unsigned long long)(sum / (uint64_t)steps),
	       (unsigned long long)t[steps / 2], (unsigned long long)t[0],
	       (unsigned long long)((wall1 - wall0) / (uint64_t)steps), f ? f->nrows : 0, values,
	       instances, inst_fields, all_fields, nfiles_text);
	if (count)
		printf(" allocs=%.3f alloc_bytes=%.1f heap_bytes=%lld",
		       (double)(c1[0] - c0[0]) / (double)steps,
		       (double)(c1[1] - c0[1]) / (double)steps, c1[2] - c_open[2]);
	else
		printf(" allocs=NA alloc_bytes=NA heap_bytes=NA");
	printf(" vmhwm_kb=%ld nofile=%ld user_ns=%llu sys_ns=%llu\n", bench_vmhwm_kb(), nofile,
	       (unsigned long long)((user1 - user0) / (uint64_t)steps),
	       (unsigned long long)((sys1 - sys0) / (uint64_t)steps));
	fflush(stdout);

	if (ost)
		out->close(ost, &err);
	if (devnull)
		fclose(devnull);
	engine_close(e);
	config_free(&cfg);
	ticker_close(&tk);
	free(t);
	return 0;
}
