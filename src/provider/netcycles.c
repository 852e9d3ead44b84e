/*
 * netcycles.c - the eBPF source of COUNTERS.md section 10 (include/
 * netcycles.h) and the Per Processor Network Activity Cycles set it feeds:
 * instances "IF/CPU" for the interfaces of our network namespace (virtual
 * ones included) the programs follow, and every online CPU, "IF/_Total"
 * from derive (GROUP_PARENT). The programs follow NC_MAX_IF interfaces:
 * those the run's paths name exactly, then those their wildcards match
 * (netcycles_if_rank, netcycles_pick); the notice says how many named ones
 * are left out. Live, the interfaces come from a netlink dump, so names
 * and ifindexes are of the namespace the programs filter on; sysfs gives
 * an interface's device and IRQs only when it holds the same ifindex.
 *
 * The loader opens the skeleton of src/bpf/netcycles.bpf.c, sizes its
 * per-CPU array by libbpf_num_possible_cpus(), loads the tp_btf programs
 * (the raw_tp ones when those fail), attaches them and maps the array into
 * our memory: a read is plain loads. Before loading it checks what would
 * make the kernel refuse (--root, no BTF, no CAP_BPF + CAP_PERFMON), so the
 * user gets one line naming the cause instead of libbpf's messages, which
 * are never printed. Links and programs go with the last release (or with
 * the process: they are file descriptors).
 *
 * Raw fields are nanosecond sums and counts; the Cycles counters multiply
 * by the CPU's nominal frequency (a field, scale 1e-9) in derive. An
 * interface's IRQs are found as section 6 finds them (nicirq_device_irqs);
 * one without a device has none, so its interrupt fields are 0, not absent.
 *
 * Built without libbpf (NO_BPF=1, or a piece missing), the set still lists
 * its instances and every counter is UNSUPPORTED, with a line saying so.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuinfo.h"
#include "interrupts.h"
#include "netcycles.h"
#include "nicdev.h"
#include "nic.h"
#include "nicirq.h"
#include "provider.h"

#ifdef HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "netcycles.skel.h"
#endif

/* Without link notifications (or under --root) the interfaces are
 * listed again each second. Live, a notification socket says when they
 * changed: the list (an RTM_GETLINK dump, about 2 ms of CPU over 401
 * interfaces) is taken again only then, not at every sample of a 1 s
 * interval. */
#define RESCAN_NS 1000000000ull

/* ---- the loader ------------------------------------------------------ */

static struct {
	int users;          /* acquires not yet released */
	int loaded;
	char reason[256];   /* why not loaded; "" when it is */
	int notice_given;
	unsigned ncpus;     /* possible CPUs */
	uint64_t *freq_hz;  /* per possible CPU; 0 unknown */
	const char **freq_src;
	const char *mode;
	unsigned attached;  /* NC_HOOK_* attached */
	unsigned loaded_hooks; /* NC_HOOK_* whose programs are loaded */
	uint32_t netns_ino; /* our network namespace */
#ifdef HAVE_BPF
	struct netcycles_bpf *skel;
	void *map;          /* the mmapped per-CPU array */
	size_t map_len;
#endif
} nc;

uint64_t
netcycles_tsc_hz(uint16_t time_shift, uint32_t time_mult)
{
	if (time_mult == 0 || time_shift > 63)
		return 0;
	/* 2^shift x 1e9 / mult, rounded, without overflowing 64 bits */
	unsigned __int128 num = ((unsigned __int128)1 << time_shift) * 1000000000u;
	return (uint64_t)((num + time_mult / 2) / time_mult);
}

uint64_t
netcycles_cpuinfo_hz(const char *cpuinfo)
{
	const char *flags = strstr(cpuinfo, "\nflags"), *mhz = strstr(cpuinfo, "\ncpu MHz");
	const char *eol;
	uint64_t whole = 0, frac = 0, scale = 1000000;

	if (strncmp(cpuinfo, "flags", 5) == 0)
		flags = cpuinfo;
	if (strncmp(cpuinfo, "cpu MHz", 7) == 0)
		mhz = cpuinfo;
	if (!flags || !mhz)
		return 0;
	eol = strchr(flags + 1, '\n');
	if (!eol)
		eol = flags + strlen(flags);
	if (!memmem(flags, (size_t)(eol - flags), " constant_tsc", 13) ||
	    memmem(flags, (size_t)(eol - flags), " aperfmperf", 11))
		return 0;
	mhz = strchr(mhz, ':');
	if (!mhz)
		return 0;
	mhz = skip_blanks(mhz + 1);
	if (parse_u64(&mhz, &whole) < 0 || whole > UINT64_MAX / 1000000 / 2)
		return 0;
	if (*mhz == '.')
		for (mhz++; *mhz >= '0' && *mhz <= '9' && scale > 1; mhz++) {
			scale /= 10;
			frac += (uint64_t)(*mhz - '0') * scale;
		}
	return whole * 1000000 + frac;
}

/* The TSC rate the kernel gives perf users (x86: the mmap page's
 * time_mult and time_shift convert TSC ticks to ns), or 0. Opens a dummy
 * software event: no BPF, no privilege. */
static uint64_t
kernel_tsc_hz(void)
{
#if defined(HAVE_BPF) && (defined(__x86_64__) || defined(__i386__))
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pg;
	uint64_t hz = 0;
	long psz = sysconf(_SC_PAGESIZE);
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	pg = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, fd, 0);
	if (pg != MAP_FAILED) {
		if (pg->cap_user_time)
			hz = netcycles_tsc_hz(pg->time_shift, pg->time_mult);
		munmap(pg, (size_t)psz);
	}
	close(fd);
	return hz;
#else
	return 0;
#endif
}

/* x86 without cpufreq: /proc/cpuinfo's "cpu MHz" is the kernel's cpu_khz
 * (its calibrated TSC rate), or 0. */
static uint64_t
cpuinfo_tsc_hz(struct procfs *fs)
{
#if defined(__x86_64__) || defined(__i386__)
	size_t len;
	const char *buf = pfile_read(procfs_file(fs, "proc/cpuinfo"), &len, NULL);

	return buf ? netcycles_cpuinfo_hz(buf) : 0;
#else
	(void)fs;
	return 0;
#endif
}

const char *
netcycles_nominal_hz(struct procfs *fs, unsigned cpu, uint64_t *hz)
{
	/* the TSC rate, found once a process (UINT64_MAX: not yet) */
	static uint64_t tsc = UINT64_MAX;
	char path[96];
	uint64_t khz;

	*hz = 0;
	snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%u/cpufreq/base_frequency", cpu);
	if (procfs_read_u64(fs, path, &khz) == 0 && khz && khz <= UINT64_MAX / 1000) {
		*hz = khz * 1000;
		return "cpufreq base_frequency";
	}
	snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%u/cpufreq/cpuinfo_max_freq", cpu);
	if (procfs_read_u64(fs, path, &khz) == 0 && khz && khz <= UINT64_MAX / 1000) {
		*hz = khz * 1000;
		return "cpufreq cpuinfo_max_freq";
	}
	if (!procfs_is_live(fs))
		return NULL;
	if (tsc == UINT64_MAX) {
		tsc = kernel_tsc_hz();
		if (!tsc)
			tsc = cpuinfo_tsc_hz(fs);
	}
	if (!tsc)
		return NULL;
	*hz = tsc;
	return "the TSC rate";
}

#ifdef HAVE_BPF
/* The nominal frequency of each possible CPU (netcycles_nominal_hz). */
static void
read_frequencies(struct procfs *fs)
{
	nc.freq_hz = xcalloc(nc.ncpus, sizeof(*nc.freq_hz));
	nc.freq_src = xcalloc(nc.ncpus, sizeof(*nc.freq_src));
	for (unsigned c = 0; c < nc.ncpus; c++) {
		const char *src = netcycles_nominal_hz(fs, c, &nc.freq_hz[c]);
		nc.freq_src[c] = src ? src : "";
	}
}

/* libbpf's messages are not for our users (its RLIMIT_MEMLOCK hint is
 * wrong on current kernels); our own line says what failed. */
static int
libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level;
	(void)fmt;
	(void)args;
	return 0;
}

/* Nonzero when this process may load tracing programs: CAP_BPF and
 * CAP_PERFMON, or CAP_SYS_ADMIN, effective. */
static int
may_load_bpf(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	uint64_t eff;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) < 0)
		return 0;
	eff = (uint64_t)data[1].effective << 32 | data[0].effective;
#define HAS_CAP(c) ((eff >> (c)) & 1)
	return HAS_CAP(CAP_SYS_ADMIN) || (HAS_CAP(CAP_BPF) && HAS_CAP(CAP_PERFMON));
#undef HAS_CAP
}

/* One tracepoint's two programs (tp_btf, raw_tp), their links in the
 * skeleton, and the hooks (NC_HOOK_*) that need it. */
struct nc_prog {
	unsigned hooks;
	struct bpf_program *prog[2]; /* [0] tp_btf, [1] raw_tp */
	struct bpf_link **link[2];
};

#define NC_NPROGS 9

/* The programs of skeleton k, exits before entries: attached in this
 * order, no exit finds a stale entry time. */
static void
prog_table(struct netcycles_bpf *k, struct nc_prog t[NC_NPROGS])
{
#define PROG(bit, name)                                                                    \
	(struct nc_prog)                                                                   \
	{                                                                                  \
		bit, { k->progs.btf_##name, k->progs.raw_##name },                         \
		{                                                                          \
			&k->links.btf_##name, &k->links.raw_##name                         \
		}                                                                          \
	}
	t[0] = PROG(NC_HOOK_SOFTIRQ, softirq_exit);
	t[1] = PROG(NC_HOOK_SOFTIRQ | NC_HOOK_RAISE, softirq_entry);
	t[2] = PROG(NC_HOOK_RAISE, softirq_raise);
	t[3] = PROG(NC_HOOK_NAPI, napi_poll);
	t[4] = PROG(NC_HOOK_IRQ_TIME, irq_handler_exit);
	t[5] = PROG(NC_HOOK_IRQ | NC_HOOK_IRQ_TIME, irq_handler_entry);
	t[6] = PROG(NC_HOOK_RECEIVE, netif_receive_skb);
	t[7] = PROG(NC_HOOK_XMIT | NC_HOOK_START_XMIT, net_dev_xmit);
	t[8] = PROG(NC_HOOK_START_XMIT, net_dev_start_xmit);
#undef PROG
}

/* Let load only the programs of one kind (tp_btf or raw_tp) that hooks
 * need: a program no requested counter needs is not even loaded. */
static void
choose_programs(struct netcycles_bpf *skel, int raw, unsigned hooks)
{
	struct nc_prog t[NC_NPROGS];

	prog_table(skel, t);
	for (size_t i = 0; i < NC_NPROGS; i++) {
		bpf_program__set_autoload(t[i].prog[0], !raw && (t[i].hooks & hooks));
		bpf_program__set_autoload(t[i].prog[1], raw && (t[i].hooks & hooks));
	}
}

/* Attach the loaded programs of hooks not attached yet; their links go
 * into the skeleton, which detaches them when destroyed. 0, or -1 with
 * errno and nc.reason set. */
static int
attach_hooks(unsigned hooks)
{
	struct nc_prog t[NC_NPROGS];
	int raw = strcmp(nc.mode, "raw_tp") == 0;

	prog_table(nc.skel, t);
	for (size_t i = 0; i < NC_NPROGS; i++) {
		if (!(t[i].hooks & hooks) || *t[i].link[raw])
			continue;
		*t[i].link[raw] = bpf_program__attach(t[i].prog[raw]);
		if (!*t[i].link[raw]) {
			int err = errno;
			snprintf(nc.reason, sizeof(nc.reason),
				 "eBPF counters UNSUPPORTED: cannot attach %s: %s",
				 bpf_program__name(t[i].prog[raw]), strerror(err));
			errno = err;
			return -1;
		}
	}
	nc.attached |= hooks;
	return 0;
}

/* Open, size and load a skeleton with the programs of hooks (tp_btf, else
 * raw_tp; prefer says which to try first), and map its per-CPU array into
 * *map; nothing is attached. The skeleton, or NULL with errno and
 * nc.reason set. */
static struct netcycles_bpf *
load_programs(uint32_t netns_ino, unsigned hooks, int prefer_raw, const char **mode, void **map)
{
	struct netcycles_bpf *skel = NULL;
	int err = 0;

	/* GETCOUNTER_BPF_RAW_TP=1 skips tp_btf: the fallback, for tests */
	const char *force_raw = getenv("GETCOUNTER_BPF_RAW_TP");

	if (force_raw && *force_raw == '1')
		prefer_raw = 1;
	for (int raw = prefer_raw; raw < 2; raw++) {
		skel = netcycles_bpf__open();
		if (!skel) {
			err = errno;
			snprintf(nc.reason, sizeof(nc.reason), "cannot open the BPF object: %s",
				 strerror(err));
			break;
		}
		skel->rodata->netns_ino = netns_ino;
		skel->rodata->irq_time = (hooks & NC_HOOK_IRQ_TIME) != 0;
		bpf_map__set_max_entries(skel->maps.cpus, nc.ncpus);
		choose_programs(skel, raw, hooks);
		if (netcycles_bpf__load(skel) == 0) {
			*mode = raw ? "raw_tp" : "tp_btf";
			break;
		}
		err = errno;
		snprintf(nc.reason, sizeof(nc.reason), "the kernel refused the BPF programs: %s",
			 strerror(err));
		netcycles_bpf__destroy(skel);
		skel = NULL;
	}
	if (!skel) {
		errno = err;
		return NULL;
	}
	*map = mmap(NULL, nc.map_len, PROT_READ, MAP_SHARED, bpf_map__fd(skel->maps.cpus), 0);
	if (*map == MAP_FAILED) {
		err = errno;
		snprintf(nc.reason, sizeof(nc.reason), "cannot map the BPF counters: %s",
			 strerror(err));
		*map = NULL;
		netcycles_bpf__destroy(skel);
		errno = err;
		return NULL;
	}
	return skel;
}

/* A later acquire needs programs the loaded object left out: load a new
 * object with those too, carry the counts and slot tables over (the
 * programs of the old one keep counting until it goes; the few events in
 * between are lost, never counted twice) and attach hooks on it. In
 * practice every acquire comes at open, before the first read. 0, or -1
 * with nc.reason set (the old object stays, for the hooks it has). */
static int
reload_programs(unsigned hooks)
{
	struct netcycles_bpf *skel;
	const char *mode = NULL;
	void *map = NULL;
	unsigned old_attached = nc.attached;

	skel = load_programs(nc.netns_ino, nc.loaded_hooks | hooks, strcmp(nc.mode, "raw_tp") == 0,
			     &mode, &map);
	if (!skel) {
		char why[sizeof(nc.reason)];
		memcpy(why, nc.reason, sizeof(why));
		snprintf(nc.reason, sizeof(nc.reason), "eBPF counters UNSUPPORTED: %.160s", why);
		return -1;
	}
	/* the array is read-only to us: the programs' map takes a write
	 * through the syscall, element by element */
	for (unsigned c = 0; c < nc.ncpus; c++)
		bpf_map__update_elem(skel->maps.cpus, &c, sizeof(c),
				     (const char *)nc.map + (size_t)c * sizeof(struct nc_cpu),
				     sizeof(struct nc_cpu), BPF_ANY);
	memcpy(skel->bss, nc.skel->bss, sizeof(*skel->bss));
	munmap(nc.map, nc.map_len);
	netcycles_bpf__destroy(nc.skel);
	nc.skel = skel;
	nc.map = map;
	nc.mode = mode;
	nc.loaded_hooks |= hooks;
	nc.attached = 0;
	return attach_hooks(old_attached | hooks);
}
#endif

int
netcycles_acquire(struct procfs *fs, unsigned hooks)
{
	if (nc.users++ > 0) {
#ifdef HAVE_BPF
		if (nc.loaded && (hooks & ~nc.loaded_hooks))
			return reload_programs(hooks);
		if (nc.loaded && (hooks & ~nc.attached))
			return attach_hooks(hooks & ~nc.attached);
#endif
		return nc.loaded ? 0 : -1;
	}
	nc.loaded = 0;
	nc.mode = NULL;
	nc.attached = 0;
	nc.loaded_hooks = 0;
	if (!procfs_is_live(fs)) {
		snprintf(nc.reason, sizeof(nc.reason),
			 "eBPF counters are UNSUPPORTED under --root (they need the live kernel)");
		return -1;
	}
#ifndef HAVE_BPF
	(void)hooks;
	snprintf(nc.reason, sizeof(nc.reason),
		 "eBPF counters not built in: install libbpf-dev, clang and bpftool and "
		 "rebuild");
	return -1;
#else
	struct stat sb;
	int n;

	libbpf_set_print(libbpf_quiet);
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		snprintf(nc.reason, sizeof(nc.reason),
			 "eBPF counters UNSUPPORTED: this kernel has no BTF "
			 "(/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)");
		return -1;
	}
	if (!may_load_bpf()) {
		snprintf(nc.reason, sizeof(nc.reason),
			 "eBPF counters UNSUPPORTED: loading BPF programs needs root or "
			 "CAP_BPF and CAP_PERFMON (run as root or grant cap_bpf,cap_perfmon)");
		return -1;
	}
	n = libbpf_num_possible_cpus();
	if (n <= 0) {
		snprintf(nc.reason, sizeof(nc.reason),
			 "eBPF counters UNSUPPORTED: cannot count the possible CPUs");
		return -1;
	}
	nc.ncpus = (unsigned)n;
	nc.map_len = (size_t)nc.ncpus * sizeof(struct nc_cpu);
	if (stat("/proc/self/ns/net", &sb) != 0) {
		snprintf(nc.reason, sizeof(nc.reason),
			 "eBPF counters UNSUPPORTED: cannot stat /proc/self/ns/net: %s",
			 strerror(errno));
		return -1;
	}
	nc.netns_ino = (uint32_t)sb.st_ino;
	nc.skel = load_programs(nc.netns_ino, hooks, 0, &nc.mode, &nc.map);
	if (!nc.skel) {
		char why[sizeof(nc.reason)];
		memcpy(why, nc.reason, sizeof(why));
		snprintf(nc.reason, sizeof(nc.reason), "eBPF counters UNSUPPORTED: %.160s%s", why,
			 errno == EPERM || errno == EACCES
				 ? " (run as root or grant cap_bpf,cap_perfmon)"
				 : "");
		return -1;
	}
	nc.reason[0] = '\0';
	nc.loaded_hooks = hooks;
	read_frequencies(fs);
	nc.loaded = 1;
	return attach_hooks(hooks);
#endif
}

void
netcycles_release(void)
{
	if (nc.users == 0 || --nc.users > 0)
		return;
#ifdef HAVE_BPF
	if (nc.map)
		munmap(nc.map, nc.map_len);
	nc.map = NULL;
	netcycles_bpf__destroy(nc.skel); /* detaches and unloads */
	nc.skel = NULL;
#endif
	free(nc.freq_hz);
	free(nc.freq_src);
	nc.freq_hz = NULL;
	nc.freq_src = NULL;
	nc.loaded = 0;
	nc.attached = 0;
	nc.loaded_hooks = 0;
	nc.ncpus = 0;
}

const struct nc_cpu *
netcycles_cpu(unsigned cpu)
{
#ifdef HAVE_BPF
	if (nc.loaded && cpu < nc.ncpus)
		return (const struct nc_cpu *)nc.map + cpu;
#else
	(void)cpu;
#endif
	return NULL;
}

int
netcycles_freq_hz(unsigned cpu, uint64_t *hz)
{
	if (!nc.loaded || cpu >= nc.ncpus || !nc.freq_hz[cpu])
		return -1;
	*hz = nc.freq_hz[cpu];
	return 0;
}

const char *
netcycles_freq_source(unsigned cpu)
{
	return nc.loaded && cpu < nc.ncpus ? nc.freq_src[cpu] : "";
}

const char *
netcycles_mode(void)
{
	return nc.loaded ? nc.mode : NULL;
}

const char *
netcycles_notice(void)
{
	/* a reason while loaded: a later acquire could not load or attach
	 * what it needed (the earlier counters still work) */
	if (!nc.reason[0] || nc.notice_given)
		return NULL;
	nc.notice_given = 1;
	return nc.reason;
}

void
netcycles_slot_set(unsigned slot, uint32_t ifindex, const unsigned *irqs, size_t n)
{
#ifdef HAVE_BPF
	if (!nc.loaded || slot >= NC_MAX_IF)
		return;
	if (ifindex < NC_MAX_IFINDEX)
		nc.skel->bss->if_slot[ifindex] = (__u8)(slot + 1);
	for (size_t i = 0; i < n; i++)
		if (irqs[i] < NC_MAX_IRQ && !nc.skel->bss->irq_slot[irqs[i]])
			nc.skel->bss->irq_slot[irqs[i]] = (__u8)(slot + 1);
#else
	(void)slot;
	(void)ifindex;
	(void)irqs;
	(void)n;
#endif
}

void
netcycles_slot_clear(unsigned slot, uint32_t ifindex, const unsigned *irqs, size_t n)
{
#ifdef HAVE_BPF
	if (!nc.loaded || slot >= NC_MAX_IF)
		return;
	if (ifindex < NC_MAX_IFINDEX && nc.skel->bss->if_slot[ifindex] == slot + 1)
		nc.skel->bss->if_slot[ifindex] = 0;
	for (size_t i = 0; i < n; i++)
		if (irqs[i] < NC_MAX_IRQ && nc.skel->bss->irq_slot[irqs[i]] == slot + 1)
			nc.skel->bss->irq_slot[irqs[i]] = 0;
#else
	(void)slot;
	(void)ifindex;
	(void)irqs;
	(void)n;
#endif
}

/* ---- the Per Processor Network Activity Cycles set ------------------- */

enum {
	NCF_IRQS,
	NCF_IRQ_NS,
	NCF_RX_PACKETS,
	NCF_TX_PACKETS,
	NCF_TX_NS,
	NCF_FREQ_HZ,
	NCF_NFIELDS,
};

#define BIT(f) ((uint64_t)1 << (f))

static const struct field_desc fields[NCF_NFIELDS] = {
	[NCF_IRQS] = { "irqs", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[NCF_IRQ_NS] = { "irq_ns", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[NCF_RX_PACKETS] = { "rx_packets", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[NCF_TX_PACKETS] = { "tx_packets", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[NCF_TX_NS] = { "tx_ns", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[NCF_FREQ_HZ] = { "freq_hz", FW_64, FK_GAUGE, FB_NONE, NO_PROM },
};

static const struct counter_desc counters[] = {
	{
		.name = "Interrupts/sec",
		.type = CT_RATE,
		.num = { { NCF_IRQS, 1 } },
		.unit = "/s",
		.help = "Runs per second of the interface's hard interrupt handlers on this "
			"processor (eBPF, irq_handler_entry).",
	},
	{
		.name = "% Interrupt Time",
		.type = CT_TIMER,
		.num = { { NCF_IRQ_NS, 1 } },
		.scale = 1e-9,
		.total = TOTAL_MEAN,
		.unit = "%",
		.help = "Share of the interval this processor spent in the interface's hard "
			"interrupt handlers.",
	},
	{
		.name = "Interrupt Cycles/sec",
		.type = CT_RATE,
		.num = { { NCF_IRQ_NS, 1 } },
		.mul = FIELD_REF(NCF_FREQ_HZ),
		.scale = 1e-9,
		.unit = "/s",
		.help = "Nominal processor cycles per second spent in the interface's hard "
			"interrupt handlers (time x nominal frequency).",
	},
	{
		.name = "Avg. Interrupt Cycles per Interrupt",
		.type = CT_AVG_BULK,
		.num = { { NCF_IRQ_NS, 1 } },
		.den = { { NCF_IRQS, 1 } },
		.mul = FIELD_REF(NCF_FREQ_HZ),
		.mul_num_only = 1,
		.scale = 1e-9,
		.unit = "",
		.help = "Nominal processor cycles per run of the interface's hard interrupt "
			"handlers over the interval.",
	},
	{
		.name = "Received Packets/sec",
		.type = CT_RATE,
		.num = { { NCF_RX_PACKETS, 1 } },
		.unit = "/s",
		.help = "Packets of the interface this processor handed to the stack per "
			"second (netif_receive_skb; after GRO).",
	},
	{
		.name = "Sent Packets/sec",
		.type = CT_RATE,
		.num = { { NCF_TX_PACKETS, 1 } },
		.unit = "/s",
		.help = "Packets this processor handed to the interface's driver per second "
			"that it accepted (net_dev_xmit).",
	},
	{
		.name = "Send Cycles/sec",
		.type = CT_RATE,
		.num = { { NCF_TX_NS, 1 } },
		.mul = FIELD_REF(NCF_FREQ_HZ),
		.scale = 1e-9,
		.unit = "/s",
		.help = "Nominal processor cycles per second in the interface's transmit "
			"function (net_dev_start_xmit to net_dev_xmit).",
	},
	{
		.name = "Avg. Send Cycles per Packet",
		.type = CT_AVG_BULK,
		.num = { { NCF_TX_NS, 1 } },
		.den = { { NCF_TX_PACKETS, 1 } },
		.mul = FIELD_REF(NCF_FREQ_HZ),
		.mul_num_only = 1,
		.scale = 1e-9,
		.unit = "",
		.help = "Nominal processor cycles in the interface's transmit function per "
			"packet sent over the interval.",
	},
};

static const struct counter_set set = {
	.name = "Per Processor Network Activity Cycles",
	.help = "Processor time and cycles each network interface costs each processor "
		"(hard interrupts, sends) and its packets there, from eBPF programs on "
		"kernel tracepoints; live only, as root or with CAP_BPF and CAP_PERFMON. "
		"At most 32 interfaces at once, those the paths name exactly first; the "
		"others have no instances.",
	.multi_instance = 1,
	.group = GROUP_PARENT, /* IF/_Total per interface */
	.fields = fields,
	.nfields = NCF_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
};

/* One interface of our namespace, as the last discovery found it: 72
 * bytes, since a discovery keeps every interface (thousands of containers'
 * veths) to rank them, though at most NC_MAX_IF are followed. */
struct nci_if {
	char name[16];      /* IFNAMSIZ: the kernel's names are 15 bytes at most */
	uint64_t seen;      /* the discovery that last listed it */
	uint64_t identity;  /* ifindex, slot and the slot's use count */
	unsigned *irqs;
	size_t nirqs, irqs_cap;
	uint32_t ifindex;
	int from_msi;
	int8_t rank;        /* NC_RANK_*: how the paths name it */
	int8_t tracked;     /* among the NC_MAX_IF the programs follow */
	int8_t slot;        /* -1: none */
	int8_t irqs_known;  /* sysfs is of our namespace for it (its IRQs hold) */
};

_Static_assert(NC_MAX_IF <= 127, "a slot number fits nci_if.slot");

struct nci_state {
	struct procfs *fs;
	int acquired, loaded, listing;
	char **patterns;          /* the paths' instance patterns; NULL: every one */
	size_t npatterns;
	struct nic_netlink *nl;   /* live: the interfaces by netlink */
	struct pfile *interrupts; /* for IRQs by action name */
	struct pfile *online;
	struct nci_if *ifs;       /* in name order */
	size_t nifs, cap;
	uint64_t scans, scanned_ns;
	size_t nsorted;           /* ifs[0 .. nsorted) in name order (a scan's start) */
	struct nic_link_watch watch; /* live: link notifications */
	uint32_t slot_uses[NC_MAX_IF];
	uint8_t slot_busy[NC_MAX_IF];
	uint8_t *pick;            /* nci_assign scratch, one per interface */
	int *ranks;
	size_t pick_cap, ranks_cap;
	size_t untracked;         /* named by a path, not followed: no instances */
	unsigned *cpus;           /* this read's online CPUs */
	size_t ncpus, cpus_cap;
	uint64_t *vals;           /* /proc/interrupts scratch */
	size_t vals_cap;
	char notice[512];
};

int
netcycles_if_rank(const char *ifname, const char *const *patterns, size_t npatterns,
		  const unsigned *cpus, size_t ncpus)
{
	int rank = NC_RANK_NONE;
	char inst[96];

	if (!patterns)
		return NC_RANK_WILDCARD;
	for (size_t i = 0; i < npatterns && rank != NC_RANK_EXACT; i++) {
		const char *p = patterns[i], *slash = strrchr(p, '/');
		size_t len = strlen(ifname);
		int n;

		/* "IF/..." with no wildcard before the last '/': IF exactly */
		if (slash && (size_t)(slash - p) == len && !memchr(p, '*', len) &&
		    strncasecmp(p, ifname, len) == 0) {
			rank = NC_RANK_EXACT;
			continue;
		}
		if (!strchr(p, '*') || rank == NC_RANK_WILDCARD)
			continue;
		/* a wildcard: does it match one of IF's instances? */
		n = snprintf(inst, sizeof(inst), "%s/_Total", ifname);
		if (n > 0 && (size_t)n < sizeof(inst) && glob_match_ci(p, inst)) {
			rank = NC_RANK_WILDCARD;
			continue;
		}
		for (size_t k = 0; k < ncpus; k++) {
			n = snprintf(inst, sizeof(inst), "%s/%u", ifname, cpus[k]);
			if (n > 0 && (size_t)n < sizeof(inst) && glob_match_ci(p, inst)) {
				rank = NC_RANK_WILDCARD;
				break;
			}
		}
	}
	return rank;
}

size_t
netcycles_pick(const int *rank, size_t n, size_t max, uint8_t *pick)
{
	size_t taken = 0, left = 0;

	for (int r = NC_RANK_EXACT; r <= NC_RANK_WILDCARD; r++)
		for (size_t i = 0; i < n; i++) {
			if (r == NC_RANK_EXACT)
				pick[i] = 0;
			if (rank[i] != r)
				continue;
			if (taken < max) {
				pick[i] = 1;
				taken++;
			} else {
				left++;
			}
		}
	return left;
}

static int
nci_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct nci_if *)a)->name, ((const struct nci_if *)b)->name);
}

/* The IRQs of interface ni: none without a device; else section 6's. */
/* The interface named name (len bytes), or NULL: by halves over the
 * list as the last scan left it (in name order), else one by one (a name
 * not there, or added in this scan: rare). */
static struct nci_if *
nci_find(struct nci_state *st, const char *name, size_t len)
{
	char key[sizeof(st->ifs[0].name)];
	int found;

	memcpy(key, name, len);
	key[len] = '\0';
	size_t at = name_place(st->ifs, st->nsorted < st->nifs ? st->nsorted : st->nifs,
			       sizeof(*st->ifs), offsetof(struct nci_if, name), key, &found);
	if (found)
		return &st->ifs[at];
	for (size_t i = 0; i < st->nifs; i++)
		if (strcmp(st->ifs[i].name, key) == 0)
			return &st->ifs[i];
	return NULL;
}

static void
nci_find_irqs(struct nci_state *st, struct nci_if *ni)
{
	struct nicdev dev;
	struct nicirq_rows rows = { NULL, NULL, NULL, 0 };
	const char *buf;
	size_t len;

	ni->nirqs = 0;
	ni->from_msi = 0;
	if (nicdev_find(st->fs, ni->name, &dev) < 0)
		return;
	if ((buf = pfile_read(st->interrupts, &len, NULL)) != NULL) {
		const char *p = buf;
		size_t n = interrupts_header(&p, buf + len, NULL, 0);
		xgrow((void **)&st->vals, &st->vals_cap, n + 1, sizeof(*st->vals));
		rows.rows = p;
		rows.end = buf + len;
		rows.vals = st->vals;
		rows.ncols = n;
	}
	ni->nirqs = nicirq_device_irqs(st->fs, ni->name, &dev, &rows, &ni->irqs, &ni->irqs_cap,
				       &ni->from_msi);
}

/* Give ni a slot (and the BPF tables its ifindex and IRQs): one is free. */
static void
nci_take_slot(struct nci_state *st, struct nci_if *ni)
{
	ni->slot = -1;
	for (unsigned s = 0; s < NC_MAX_IF; s++) {
		if (st->slot_busy[s])
			continue;
		st->slot_busy[s] = 1;
		st->slot_uses[s]++;
		ni->slot = (int8_t)s;
		netcycles_slot_set(s, ni->ifindex, ni->irqs, ni->nirqs);
		break;
	}
	ni->identity = (uint64_t)ni->ifindex << 32 |
		       (ni->slot >= 0 ? (uint64_t)st->slot_uses[ni->slot] << 8 | (unsigned)ni->slot
				      : 0xff);
}

static void
nci_drop_slot(struct nci_state *st, struct nci_if *ni)
{
	if (ni->slot < 0)
		return;
	netcycles_slot_clear((unsigned)ni->slot, ni->ifindex, ni->irqs, ni->nirqs);
	st->slot_busy[ni->slot] = 0;
	ni->slot = -1;
}

/* One interface a listing found, name (len bytes) with ifindex: a new one
 * (or one whose ifindex changed) gets its IRQs and its rank. sysfs_ours:
 * the name came from sys/class/net itself, so its device and IRQs there
 * are its own; from netlink, only when sys/class/net holds the name with
 * the same ifindex (after `unshare -n` without a new /sys mount, sysfs
 * shows another namespace's interfaces). */
static void
nci_seen(struct nci_state *st, const char *name, size_t len, uint64_t ifindex, int sysfs_ours)
{
	struct nci_if *ni = NULL;
	char path[128];

	if (len == 0 || len >= sizeof(ni->name) || ifindex > UINT32_MAX)
		return;
	ni = nci_find(st, name, len);
	if (ni && ni->ifindex != ifindex) {
		nci_drop_slot(st, ni);
		ni->tracked = 0;
		ni->seen = 0;
		ni = NULL; /* a new interface under an old name */
	}
	if (!ni) {
		xgrow((void **)&st->ifs, &st->cap, st->nifs + 1, sizeof(*st->ifs));
		ni = &st->ifs[st->nifs++];
		memset(ni, 0, sizeof(*ni));
		memcpy(ni->name, name, len);
		ni->name[len] = '\0';
		ni->ifindex = (uint32_t)ifindex;
		ni->slot = -1;
		ni->rank = (int8_t)netcycles_if_rank(ni->name, (const char *const *)st->patterns,
					     st->npatterns, st->cpus, st->ncpus);
		if (!sysfs_ours) {
			uint64_t sys_ifindex = 0;
			snprintf(path, sizeof(path), "sys/class/net/%s/ifindex", ni->name);
			sysfs_ours = procfs_read_u64(st->fs, path, &sys_ifindex) == 0 &&
				     sys_ifindex == ifindex;
		}
		ni->irqs_known = (int8_t)(sysfs_ours != 0);
		if (sysfs_ours)
			nci_find_irqs(st, ni);
	}
	ni->seen = st->scans;
}

/* One entry of sys/class/net (files: --root, or live without netlink). */
static int
nci_entry(const char *name, unsigned char type, void *arg)
{
	struct nci_state *st = arg;
	uint64_t ifindex = 0;
	char path[128];

	if (type == DT_REG || strlen(name) >= sizeof(((struct nci_if *)0)->name))
		return 0;
	snprintf(path, sizeof(path), "sys/class/net/%.64s/ifindex", name);
	if (procfs_read_u64(st->fs, path, &ifindex) < 0 || ifindex > UINT32_MAX)
		ifindex = 0;
	nci_seen(st, name, strlen(name), ifindex, 1);
	return 0;
}

/* One interface of a netlink dump: names and ifindexes both of our
 * namespace, as the programs see them. */
static int
nci_link(const struct nic_link *link, void *arg, struct err *err)
{
	(void)err;
	if (link->name && link->ifindex > 0)
		nci_seen(arg, link->name, link->name_len, (uint64_t)link->ifindex, 0);
	return 0;
}

/* Which interfaces the programs follow: those the paths name exactly, then
 * those their wildcards match, in name order, NC_MAX_IF at most; an
 * interface that lost its place frees its slot before a newcomer takes
 * one. Counts the ones named but not followed. */
static void
nci_assign(struct nci_state *st)
{
	xgrow((void **)&st->pick, &st->pick_cap, st->nifs + 1, sizeof(*st->pick));
	xgrow((void **)&st->ranks, &st->ranks_cap, st->nifs + 1, sizeof(*st->ranks));
	for (size_t i = 0; i < st->nifs; i++)
		st->ranks[i] = st->ifs[i].rank;
	st->untracked = netcycles_pick(st->ranks, st->nifs, NC_MAX_IF, st->pick);
	for (size_t i = 0; i < st->nifs; i++)
		if (!st->pick[i] && st->ifs[i].tracked) {
			nci_drop_slot(st, &st->ifs[i]);
			st->ifs[i].tracked = 0;
		}
	for (size_t i = 0; i < st->nifs; i++)
		if (st->pick[i] && !st->ifs[i].tracked) {
			nci_take_slot(st, &st->ifs[i]);
			st->ifs[i].tracked = 1;
		}
}

/* List the interfaces (live by netlink, so names and ifindexes are of our
 * namespace; else sys/class/net), in name order: a new one (or one whose
 * ifindex changed) gets its IRQs, a gone one frees its slot, and the slots
 * go as nci_assign says. A discovery allocates nothing once the tables
 * have grown. */
static void
nci_discover(struct nci_state *st)
{
	size_t j = 0;

	st->scans++;
	st->nsorted = st->nifs; /* as the last scan sorted them */
	if (!st->nl) {
		procfs_list(st->fs, "sys/class/net", nci_entry, st);
	} else if (nic_netlink_dump(st->nl, nci_link, st, NULL) < 0) {
		/* a failed dump (perhaps half done): keep the last list, or
		 * the first time read sysfs */
		for (size_t i = 0; i < st->nifs; i++)
			st->ifs[i].seen = st->scans;
		if (st->scans == 1)
			procfs_list(st->fs, "sys/class/net", nci_entry, st);
	}
	for (size_t i = 0; i < st->nifs; i++) {
		if (st->ifs[i].seen == st->scans) {
			st->ifs[j++] = st->ifs[i];
		} else {
			nci_drop_slot(st, &st->ifs[i]);
			free(st->ifs[i].irqs);
		}
	}
	st->nifs = j;
	/* in name order; sorted only when a new interface broke it (glibc's
	 * qsort allocates for an array this size: one malloc a read) */
	for (size_t i = 1; i < st->nifs; i++)
		if (nci_cmp(&st->ifs[i - 1], &st->ifs[i]) > 0) {
			qsort(st->ifs, st->nifs, sizeof(*st->ifs), nci_cmp);
			break;
		}
	st->nsorted = st->nifs;
	nci_assign(st);
}

/* This read's online CPUs (sys/devices/system/cpu/online; else CPU 0). */
static void
nci_read_cpus(struct nci_state *st)
{
	struct softnet_cpulist it;
	const char *list;
	size_t len;
	unsigned cpu;

	st->ncpus = 0;
	list = pfile_read(st->online, &len, NULL);
	if (list) {
		softnet_cpulist_begin(&it, list);
		while (softnet_cpulist_next(&it, &cpu) && cpu <= CPUINFO_MAX_CPU) {
			xgrow((void **)&st->cpus, &st->cpus_cap, st->ncpus + 1, sizeof(*st->cpus));
			st->cpus[st->ncpus++] = cpu;
		}
	}
	if (st->ncpus == 0) {
		xgrow((void **)&st->cpus, &st->cpus_cap, 1, sizeof(*st->cpus));
		st->cpus[st->ncpus++] = 0;
	}
}

/* Open for a run: a listing (-l, -q) loads nothing; a sampling run loads
 * the programs its counters need. The interfaces are found now, so the
 * notice can say when the paths name more than the programs follow. */
static void *
nci_open_request(const struct provider_ctx *ctx, const struct provider_request *req,
		 struct err *err)
{
	struct nci_state *st = xcalloc(1, sizeof(*st));

	(void)err;
	st->fs = ctx->fs;
	st->listing = req && req->listing;
	if (req && req->instances && req->ninstances) {
		st->patterns = xcalloc(req->ninstances, sizeof(*st->patterns));
		for (size_t i = 0; i < req->ninstances; i++)
			st->patterns[st->npatterns++] = xstrdup(req->instances[i]);
	}
	st->interrupts = interrupts_file(ctx->fs, "proc/interrupts");
	st->online = procfs_file(ctx->fs, "sys/devices/system/cpu/online");
	if (procfs_is_live(ctx->fs)) {
		st->nl = nic_netlink_open(NULL); /* NULL: read sys/class/net */
		/* subscribed before the first dump, so no change falls
		 * between them */
		if (st->nl)
			(void)nic_link_watch_open(&st->watch);
	}
	if (ctx->needed && !st->listing) {
		unsigned hooks = 0;
		/* the handler runs are counted on entry; the exit program,
		 * and the entry's clock read, only for the handler time */
		if (ctx->needed & BIT(NCF_IRQS))
			hooks |= NC_HOOK_IRQ;
		if (ctx->needed & BIT(NCF_IRQ_NS))
			hooks |= NC_HOOK_IRQ | NC_HOOK_IRQ_TIME;
		if (ctx->needed & BIT(NCF_RX_PACKETS))
			hooks |= NC_HOOK_RECEIVE;
		if (ctx->needed & BIT(NCF_TX_PACKETS))
			hooks |= NC_HOOK_XMIT;
		if (ctx->needed & BIT(NCF_TX_NS))
			hooks |= NC_HOOK_XMIT | NC_HOOK_START_XMIT;
		st->acquired = 1;
		st->loaded = netcycles_acquire(ctx->fs, hooks) == 0;
	}
	nci_read_cpus(st);
	nci_discover(st);
	st->scanned_ns = now_mono_ns();
	return st;
}

/* Without the run's request (--serve, which does not serve this set):
 * every interface is asked for. */
static void *
nci_open(const struct provider_ctx *ctx, struct err *err)
{
	return nci_open_request(ctx, NULL, err);
}

/* One instance per followed interface per online CPU; the fields from the
 * BPF counters of the interface's slot, none when not loaded. The
 * interrupt fields only when the interface's IRQs are known (0 when it has
 * none). */
static int
nci_read(void *state, struct raw_set *out, struct err *err)
{
	struct nci_state *st = state;
	char name[96];

	(void)err;
	nci_read_cpus(st);
	/* notifications since the last read, or lost ones: scan again */
	int changed = st->watch.on ? nic_link_watch_changed(&st->watch, st->fs,
							     procfs_generation(st->fs))
				   : now_mono_ns() - st->scanned_ns >= RESCAN_NS;
	if (!procfs_is_live(st->fs) || st->scanned_ns == 0 || changed) {
		nci_discover(st);
		st->scanned_ns = now_mono_ns();
	}
	for (size_t i = 0; i < st->nifs; i++) {
		const struct nci_if *ni = &st->ifs[i];
		/* The programs follow NC_MAX_IF interfaces at once (those the
		 * paths name first): only those have instances, loaded or not.
		 * Every interface x every CPU was a million instances over
		 * 2,000 veths and 512 CPUs. */
		if (!ni->tracked)
			continue;
		/* "IFNAME/CPU": the name once, then each CPU's number (a
		 * snprintf an instance was a tenth of a read) */
		size_t base = strlen(ni->name);
		memcpy(name, ni->name, base);
		name[base++] = '/';
		for (size_t k = 0; k < st->ncpus; k++) {
			unsigned cpu = st->cpus[k];
			size_t n = base + fmt_uint(name + base, cpu);
			struct raw_instance *ri = raw_set_add(out, name, n, ni->identity);
			const struct nc_cpu *c = st->loaded ? netcycles_cpu(cpu) : NULL;
			uint64_t hz;

			if (!c || ni->slot < 0)
				continue;
			const struct nc_if *f = &c->ifs[ni->slot];
			if (ni->irqs_known) {
				raw_put(out, ri, NCF_IRQS, f->irqs);
				raw_put(out, ri, NCF_IRQ_NS, f->irq_ns);
			}
			raw_put(out, ri, NCF_RX_PACKETS, f->rx_packets);
			raw_put(out, ri, NCF_TX_PACKETS, f->tx_packets);
			raw_put(out, ri, NCF_TX_NS, f->tx_ns);
			if (netcycles_freq_hz(cpu, &hz) == 0)
				raw_put(out, ri, NCF_FREQ_HZ, hz);
		}
	}
	return 0;
}

/* -l -v / -q -v: how the counters are had here. A listing loads nothing:
 * it says the frequency only. */
static size_t
nci_describe(void *state, const struct counter_desc *c, const char *instance, char *buf,
	     size_t n)
{
	struct nci_state *st = state;
	const char *mode = netcycles_mode();
	const char *sep = instance ? strrchr(instance, '/') : NULL;
	unsigned cpu = sep ? (unsigned)strtoul(sep + 1, NULL, 10) : 0;
	const char *src = NULL;
	uint64_t hz = 0;
	int k;

	(void)c;
	if (n == 0)
		return 0;
	if (st->loaded && mode) {
		if (netcycles_freq_hz(cpu, &hz) == 0)
			k = snprintf(buf, n, "(Here eBPF %s; nominal frequency %.0f MHz from %s.)",
				     mode, (double)hz / 1e6, netcycles_freq_source(cpu));
		else
			k = snprintf(buf, n, "(Here eBPF %s; no nominal frequency known.)", mode);
	} else if (st->listing && procfs_is_live(st->fs)) {
		src = netcycles_nominal_hz(st->fs, cpu, &hz);
		if (src)
			k = snprintf(buf, n, "(Here nominal frequency %.0f MHz from %s.)",
				     (double)hz / 1e6, src);
		else
			k = snprintf(buf, n, "(Here no nominal frequency known.)");
	} else {
		return 0;
	}
	return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n - 1;
}

/* Why the counters are UNSUPPORTED, and how many interfaces the paths name
 * that the programs cannot follow (no instances), once. */
static const char *
nci_notice(void *state)
{
	struct nci_state *st = state;
	const char *why = netcycles_notice();
	int k = 0;

	st->notice[0] = '\0';
	if (why)
		k = snprintf(st->notice, sizeof(st->notice), "%s", why);
	if (st->untracked && k >= 0 && (size_t)k < sizeof(st->notice))
		snprintf(st->notice + k, sizeof(st->notice) - (size_t)k,
			 "%sPer Processor Network Activity Cycles: the paths name %zu interfaces, "
			 "the eBPF programs follow %d at once; %zu (the last in name order) "
			 "have no instances",
			 k ? "; " : "", st->untracked + NC_MAX_IF, NC_MAX_IF, st->untracked);
	st->untracked = 0; /* said once */
	return st->notice[0] ? st->notice : NULL;
}

static void
nci_close(void *state)
{
	struct nci_state *st = state;

	if (!st)
		return;
	for (size_t i = 0; i < st->nifs; i++) {
		nci_drop_slot(st, &st->ifs[i]);
		free(st->ifs[i].irqs);
	}
	if (st->acquired)
		netcycles_release();
	nic_link_watch_close(&st->watch);
	nic_netlink_close(st->nl);
	for (size_t i = 0; i < st->npatterns; i++)
		free(st->patterns[i]);
	free(st->patterns);
	free(st->ifs);
	free(st->pick);
	free(st->ranks);
	free(st->cpus);
	free(st->vals);
	free(st);
}

/* Nothing without the programs (under --root, or when they cannot load). */
static uint64_t
nci_supplied(void *state)
{
	const struct nci_state *st = state;
	return st->loaded ? UINT64_MAX : 0;
}

const struct provider provider_per_processor_network_activity_cycles = {
	.set = &set,
	.open = nci_open,
	.open_request = nci_open_request,
	.read = nci_read,
	.close = nci_close,
	.supplied = nci_supplied,
	.describe = nci_describe,
	.notice = nci_notice,
};
