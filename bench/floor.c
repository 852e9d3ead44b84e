/*
 * floor.c - the unavoidable work of one sample, timed like gcbench: pread
 * from offset 0 of each file getcounter keeps open (kept open here too, into
 * one reused buffer per file; a /proc file read on to its end) and, for each "@netlink PROTOCOL HEX" line of
 * the list, the same netlink dump request getcounter sent in a steady-state
 * step (RTM_GETSTATS for the Network Adapter statistics, RTM_GETQDISC when
 * Output Queue Length is asked for), on one socket per protocol, receiving
 * the dump into a 64 KiB buffer and walking the message headers only to
 * find NLMSG_DONE. A bare "@netlink" line sends an RTM_GETLINK dump (the
 * first slice's request). Each "@statvfs PATH" line is a statfs(2) of that
 * mount point (LogicalDisk's space figures). A path listed twice is read
 * once: the floor is the least work, so a file getcounter reads twice in a
 * step counts against getcounter. Nothing is parsed, except
 * with --tokenize (fixture roots: there a file is a page-cache copy, not
 * kernel formatting, so the floor also turns every decimal into a number).
 *
 * --turn IN,OUT takes turns with gcbench, 16 steps a turn, one with --sleep
 * (common.h's bench_turn).
 *
 * floor [--root DIR] [--steps N] [--warmup N] [--tokenize] [--files LIST] [--sleep MS]
 *       [--flush MB] [--turn IN,OUT] [FILE...]       (FILEs relative to the root)
 */
#include "common.h"

#include <stddef.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

struct ffile {
	int fd;
	int to_eof; /* a /proc file: read on to the end (read_whole) */
	char *buf;
	size_t cap;
};

/* pread fd whole into *buf (capacity *cap, grown): the bytes, or -1. As
 * getcounter must, a /proc file (to_eof) is read on from where each read
 * ended until one gives 0 bytes: a seq_file (/proc/interrupts,
 * /proc/diskstats) gives about a page a read. Any other file is whole once
 * a read leaves room. */
static ssize_t
read_whole(int fd, char **buf, size_t *cap, int to_eof)
{
	size_t len = 0;

	for (;;) {
		ssize_t n = pread(fd, *buf + len, *cap - len, (off_t)len);
		if (n < 0)
			return len ? (ssize_t)len : -1;
		len += (size_t)n;
		if (n == 0 || (!to_eof && len < *cap))
			return (ssize_t)len;
		if (len == *cap) {
			*cap *= 2;
			*buf = realloc(*buf, *cap);
		}
	}
}

/* One netlink dump request to send each step, and its socket. */
struct nlreq {
	int proto;
	int fd;
	unsigned char *msg; /* starts with a struct nlmsghdr */
	size_t len;
};

static size_t nfiles, files_cap, nreqs;
static struct ffile *ff;
static struct nlreq reqs[16];
static char *nlbuf;
static size_t nlcap = 64 * 1024; /* as src/provider/nic_netlink.c */
static uint32_t nlseq = 1;
static volatile uint64_t sink;

/* The value of hex digit c. */
static int
hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Add the request of an "@netlink PROTOCOL HEX" line (bare "@netlink": an
 * RTM_GETLINK dump on NETLINK_ROUTE), opening its protocol's socket once. */
static void
add_request(const char *line)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nlreq *r = &reqs[nreqs];
	const char *hex;
	char *end;

	if (nreqs == sizeof(reqs) / sizeof(reqs[0])) {
		fprintf(stderr, "floor: too many netlink requests\n");
		exit(1);
	}
	if (strcmp(line, "@netlink") == 0) {
		struct {
			struct nlmsghdr nh;
			struct ifinfomsg ifi;
		} req;
		memset(&req, 0, sizeof(req));
		req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
		req.nh.nlmsg_type = RTM_GETLINK;
		req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		r->proto = NETLINK_ROUTE;
		r->len = req.nh.nlmsg_len;
		r->msg = malloc(r->len);
		memcpy(r->msg, &req, r->len);
	} else {
		r->proto = (int)strtol(line + 8, &end, 10);
		hex = end + 1;
		r->len = strlen(hex) / 2;
		r->msg = malloc(r->len + 1);
		for (size_t i = 0; i < r->len; i++)
			r->msg[i] = (unsigned char)(hexval(hex[2 * i]) * 16 + hexval(hex[2 * i + 1]));
		if (r->len < sizeof(struct nlmsghdr)) {
			fprintf(stderr, "floor: bad netlink request line %s\n", line);
			exit(1);
		}
	}
	r->fd = -1;
	for (size_t i = 0; i < nreqs; i++)
		if (reqs[i].proto == r->proto)
			r->fd = reqs[i].fd;
	if (r->fd < 0) {
		r->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, r->proto);
		if (r->fd < 0 || bind(r->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			perror("floor: netlink");
			exit(1);
		}
	}
	if (!nlbuf)
		nlbuf = malloc(nlcap);
	nreqs++;
}

/* Sum the decimal numbers of buf[0..n) into sink: the least parsing a
 * reader of the file must do. */
static void
tokenize_numbers(const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n;
	uint64_t acc = 0;

	while (p < end) {
		if (*p >= '0' && *p <= '9') {
			uint64_t v = 0;
			while (p < end && *p >= '0' && *p <= '9')
				v = v * 10 + (uint64_t)(*p++ - '0');
			acc += v;
		} else {
			p++;
		}
	}
	sink += acc;
}

/* Files and directories opened, read (or listed) and closed every step:
 * getcounter's files past its descriptor budget, and the directories it
 * lists every read ("@open REL", "@dir REL"). */
struct popen_file {
	char *rel;
	int dir;
};
static struct popen_file *po;
static size_t npo, po_cap;
static char *po_buf;
static size_t po_buf_cap = 4096;

static void
add_per_step(const char *rel, int dir)
{
	if (npo == po_cap) {
		po_cap = po_cap ? po_cap * 2 : 64;
		po = realloc(po, po_cap * sizeof(*po));
	}
	po[npo].rel = strdup(rel);
	po[npo].dir = dir;
	npo++;
	if (!po_buf)
		po_buf = malloc(po_buf_cap);
}

/* Open, read (or list) and close each per-step file; returns the bytes. */
static size_t
read_per_step(int rootfd, int tokenize)
{
	size_t total = 0;

	for (size_t i = 0; i < npo; i++) {
		int fd = openat(rootfd, po[i].rel,
				O_RDONLY | O_CLOEXEC | (po[i].dir ? O_DIRECTORY : 0));
		long n;
		if (fd < 0)
			continue;
		if (po[i].dir) {
			while ((n = syscall(SYS_getdents64, fd, po_buf, po_buf_cap)) > 0)
				total += (size_t)n;
		} else {
			n = read_whole(fd, &po_buf, &po_buf_cap, strncmp(po[i].rel, "proc/", 5) == 0);
			if (n > 0) {
				total += (size_t)n;
				if (tokenize)
					tokenize_numbers(po_buf, (size_t)n);
			}
		}
		close(fd);
	}
	return total;
}

/* The mount points of "@statvfs PATH" lines: statfs(2) of each a step,
 * the call glibc's statvfs makes. */
static char **statfs_paths;
static size_t nstatfs;

static size_t
statfs_all(void)
{
	size_t ok = 0;

	for (size_t i = 0; i < nstatfs; i++) {
		struct statfs sf;
		if (statfs(statfs_paths[i], &sf) == 0) {
			sink += (uint64_t)sf.f_bavail;
			ok++;
		}
	}
	return ok;
}

/* FNV-1a of a path. */
static uint64_t
path_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}

/* The paths add_file took, to read each once (a hash set that doubles at
 * half full). Nonzero when relpath was taken before. */
static int
seen_before(const char *relpath)
{
	static char **slot;
	static size_t cap, n;

	if (2 * (n + 1) > cap) {
		size_t ncap = cap ? 2 * cap : 1024;
		char **ns = calloc(ncap, sizeof(*ns));
		if (!ns) {
			perror("floor");
			exit(1);
		}
		for (size_t i = 0; i < cap; i++)
			if (slot[i]) {
				size_t k = path_hash(slot[i]) & (ncap - 1);
				while (ns[k])
					k = (k + 1) & (ncap - 1);
				ns[k] = slot[i];
			}
		free(slot);
		slot = ns;
		cap = ncap;
	}
	size_t k = path_hash(relpath) & (cap - 1);
	for (; slot[k]; k = (k + 1) & (cap - 1))
		if (strcmp(slot[k], relpath) == 0)
			return 1;
	slot[k] = strdup(relpath);
	if (!slot[k]) {
		perror("floor");
		exit(1);
	}
	n++;
	return 0;
}

/* Add relpath (under rootfd) to the files read each step. */
static void
add_file(int rootfd, const char *relpath)
{
	if (strncmp(relpath, "@netlink", 8) == 0) {
		add_request(relpath);
		return;
	}
	if (strncmp(relpath, "@statvfs ", 9) == 0) {
		statfs_paths = realloc(statfs_paths, (nstatfs + 1) * sizeof(*statfs_paths));
		statfs_paths[nstatfs++] = strdup(relpath + 9);
		return;
	}
	if (strncmp(relpath, "@open ", 6) == 0 || strncmp(relpath, "@dir ", 5) == 0) {
		int dir = relpath[1] == 'd';
		add_per_step(relpath + (dir ? 5 : 6), dir);
		return;
	}
	if (seen_before(relpath))
		return;
	int fd = openat(rootfd, relpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "floor: cannot open %s: %s\n", relpath, strerror(errno));
		exit(1);
	}
	if (nfiles == files_cap) {
		files_cap = files_cap ? files_cap * 2 : 64;
		ff = realloc(ff, files_cap * sizeof(*ff));
	}
	ff[nfiles].fd = fd;
	ff[nfiles].to_eof = strncmp(relpath, "proc/", 5) == 0;
	ff[nfiles].cap = 4096;
	ff[nfiles].buf = malloc(4096);
	nfiles++;
}

/* Read every file once; returns the bytes read. */
static size_t
read_files(int tokenize)
{
	size_t total = 0;

	for (size_t i = 0; i < nfiles; i++) {
		struct ffile *f = &ff[i];
		ssize_t n = read_whole(f->fd, &f->buf, &f->cap, f->to_eof);
		if (n < 0)
			continue;
		total += (size_t)n;
		if (tokenize)
			tokenize_numbers(f->buf, (size_t)n);
	}
	return total;
}

/* Send request r with a new sequence number and receive its dump, walking
 * the message headers only to find NLMSG_DONE; returns the bytes received. */
static size_t
nl_dump(struct nlreq *r)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsghdr *req = (struct nlmsghdr *)r->msg;
	size_t total = 0;
	uint32_t seq = ++nlseq;

	req->nlmsg_seq = seq;
	if (sendto(r->fd, r->msg, r->len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		perror("floor: sendto");
		exit(1);
	}
	for (;;) {
		ssize_t n = recv(r->fd, nlbuf, nlcap, MSG_TRUNC);
		if (n <= 0) {
			perror("floor: recv");
			exit(1);
		}
		total += (size_t)n;
		const char *p = nlbuf, *end = nlbuf + ((size_t)n > nlcap ? nlcap : (size_t)n);
		while (end - p >= (ptrdiff_t)sizeof(struct nlmsghdr)) {
			const struct nlmsghdr *nh = (const void *)p;
			if (nh->nlmsg_len < sizeof(*nh))
				break;
			if (nh->nlmsg_seq == seq &&
			    (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR))
				return total;
			p += NLMSG_ALIGN(nh->nlmsg_len);
		}
	}
}

/* Every netlink request once; returns the bytes received. */
static size_t
nl_dumps(void)
{
	size_t total = 0;

	for (size_t i = 0; i < nreqs; i++)
		total += nl_dump(&reqs[i]);
	return total;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
usage(void)
{
	fprintf(stderr, "usage: floor [--root DIR] [--steps N] [--warmup N] [--tokenize] "
			"[--files LIST] [--sleep MS] [--flush MB] [--turn IN,OUT] [FILE...]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	const char *root = NULL, *list = NULL;
	long steps = 200, warmup = 5;
	double sleep_ms = 0;
	unsigned flush_mb = 0;
	struct bench_turn turn = { -1, -1, 0, 1 };
	int tokenize = 0, i, rootfd;
	struct ticker tk = { 0 };

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
		} else if (strcmp(argv[i], "--tokenize") == 0)
			tokenize = 1;
		else if (strcmp(argv[i], "--files") == 0 && i + 1 < argc)
			list = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1] == '-')
			usage();
		else
			break;
	}
	if (steps < 1 || warmup < 0)
		usage();
	if (sleep_ms > 0)
		turn.per = 1; /* every step cold anyway: a turn a step */
	bench_raise_nofile();
	rootfd = open(root ? root : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		perror("floor: root");
		return 1;
	}
	if (list) {
		FILE *lf = fopen(list, "r");
		char line[4096];
		if (!lf) {
			perror("floor: --files");
			return 1;
		}
		while (fgets(line, sizeof(line), lf)) {
			line[strcspn(line, "\n")] = '\0';
			if (line[0])
				add_file(rootfd, line);
		}
		fclose(lf);
	}
	for (; i < argc; i++)
		add_file(rootfd, argv[i]);
	if (root && ticker_open(&tk, root) < 0)
		return 1;
	uint64_t *t = calloc((size_t)steps, sizeof(uint64_t));
	uint64_t overhead = bench_clock_overhead();
	size_t bytes = 0, nlbytes = 0, nstatfs_ok = 0;

	for (long w = 0; w < warmup; w++) {
		bench_turn_wait(&turn);
		if (root)
			ticker_step(&tk);
		read_files(tokenize);
		read_per_step(rootfd, tokenize);
		nl_dumps();
		statfs_all();
		bench_turn_pass(&turn, 0);
	}
	uint64_t wall0 = bench_wall_ns(), user0, sys0, user1, sys1;
	bench_user_sys_ns(&user0, &sys0);
	for (long s = 0; s < steps; s++) {
		bench_turn_wait(&turn); /* before the ticker: the files are ours */
		if (root)
			ticker_step(&tk);
		if (sleep_ms > 0)
			bench_sleep_ms(sleep_ms);
		bench_flush(flush_mb);
		uint64_t a = bench_cpu_ns();
		bytes = read_files(tokenize);
		bytes += read_per_step(rootfd, tokenize);
		nlbytes = nl_dumps();
		nstatfs_ok = statfs_all();
		uint64_t b = bench_cpu_ns();
		t[s] = b - a > overhead ? b - a - overhead : 0;
		bench_turn_pass(&turn, s == steps - 1);
	}
	uint64_t wall1 = bench_wall_ns();
	bench_user_sys_ns(&user1, &sys1);
	uint64_t sum = 0;
	for (long s = 0; s < steps; s++)
		sum += t[s];
	qsort(t, (size_t)steps, sizeof(uint64_t), cmp_u64);
	printf("steps=%ld cpu_ns=%llu cpu_ns_med=%llu cpu_ns_min=%llu wall_ns=%llu files=%zu "
	       "per_step_opens=%zu netlink_requests=%zu bytes=%zu netlink_bytes=%zu statfs=%zu/%zu "
	       "vmhwm_kb=%ld user_ns=%llu sys_ns=%llu\n",
	       steps, (unsigned long long)(sum / (uint64_t)steps),
	       (unsigned long long)t[steps / 2], (unsigned long long)t[0],
	       (unsigned long long)((wall1 - wall0) / (uint64_t)steps), nfiles, npo, nreqs, bytes,
	       nlbytes, nstatfs_ok, nstatfs, bench_vmhwm_kb(),
	       (unsigned long long)((user1 - user0) / (uint64_t)steps),
	       (unsigned long long)((sys1 - sys0) / (uint64_t)steps));
	ticker_close(&tk);
	return 0;
}
