/*
 * test_netcycles.c - the arithmetic of the eBPF counters (COUNTERS.md
 * section 10) on recorded raw fields: cycles from nanoseconds and the
 * nominal frequency, averages per event, IF/_Total, an interface without
 * IRQs, a machine without a known frequency; and the TSC rate from perf's
 * time conversion. The values are computed by hand in the comments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "gc_test.h"

#include "derive.h"
#include "netcycles.h"
#include "provider.h"

#define CYCLES_SET "Per Processor Network Activity Cycles"
#define SOFTNET_SET "Per Processor Network Activity"

/* One raw field value by name. */
struct fv {
	const char *field;
	uint64_t v;
};

static unsigned
field_index(const struct counter_set *set, const char *name)
{
	for (unsigned f = 0; f < set->nfields; f++)
		if (strcmp(set->fields[f].name, name) == 0)
			return f;
	fail_msg("no field %s in %s", name, set->name);
	return 0;
}

/* Add instance name to rs with the fields in v[0 .. n). */
static void
put(struct raw_set *rs, const char *name, const struct fv *v, size_t n)
{
	struct raw_instance *ri = raw_set_add(rs, name, strlen(name), 1);

	for (size_t i = 0; i < n; i++)
		raw_put(rs, ri, field_index(rs->set, v[i].field), v[i].v);
}

/* Two reads of a set, dt seconds apart, and the deltas of each instance. */
struct pair {
	const struct counter_set *set;
	struct raw_set a, b;
	struct derive_env env;
	uint64_t store[8][SET_MAX_FIELDS];
	struct field_deltas d[8];
};

static void
pair_init(struct pair *p, const char *set_name, double dt)
{
	const struct provider *prov = provider_find(set_name);

	assert_non_null(prov);
	memset(p, 0, sizeof(*p));
	p->set = prov->set;
	raw_set_init(&p->a, p->set);
	raw_set_init(&p->b, p->set);
	p->env.dt = dt;
	p->env.user_hz = 100;
	p->env.ulong_bits = 64;
}

static void
pair_derive(struct pair *p)
{
	assert_int_equal(p->a.ninstances, p->b.ninstances);
	for (size_t i = 0; i < p->b.ninstances; i++) {
		p->d[i].d = p->store[i];
		derive_deltas(&p->a, &p->a.inst[i], &p->b, &p->b.inst[i], &p->env, &p->d[i]);
	}
}

static void
pair_free(struct pair *p)
{
	raw_set_free(&p->a);
	raw_set_free(&p->b);
}

/* Instance i's value of counter name. */
static struct value
value_of(struct pair *p, size_t i, const char *name)
{
	const struct counter_desc *c = counter_set_find(p->set, name);

	assert_non_null(c);
	return derive_value(&p->b, c, &p->b.inst[i], &p->d[i], ST_OK, &p->env);
}

/* The total of counter name over every instance. */
static struct value
total_of(struct pair *p, const char *name)
{
	const struct counter_desc *c = counter_set_find(p->set, name);
	const struct raw_instance *cur[8];
	const struct field_deltas *d[8];
	uint8_t st[8];

	assert_non_null(c);
	for (size_t i = 0; i < p->b.ninstances; i++) {
		cur[i] = &p->b.inst[i];
		d[i] = &p->d[i];
		st[i] = ST_OK;
	}
	return derive_total(&p->b, c, cur, d, st, p->b.ninstances, &p->env);
}

static void
check(struct value v, double want, double eps)
{
	assert_int_equal(v.status, ST_OK);
	assert_double_equal(v.v, want, eps);
}

/* eth0/0 over 2 s at a nominal 2.5 GHz: +400 handler runs, +800 us in
 * them, +4000 received, +2000 sent, +1 ms sending. */
static const struct fv eth0_0_t0[] = {
	{ "irqs", 1000 }, { "irq_ns", 2000000 }, { "rx_packets", 5000 },
	{ "tx_packets", 4000 }, { "tx_ns", 3000000 }, { "freq_hz", 2500000000u },
};
static const struct fv eth0_0_t1[] = {
	{ "irqs", 1400 }, { "irq_ns", 2800000 }, { "rx_packets", 9000 },
	{ "tx_packets", 6000 }, { "tx_ns", 4000000 }, { "freq_hz", 2500000000u },
};
/* eth0/1 at 2.0 GHz: +100 runs, +400 us, +1000 received, +0 sent. */
static const struct fv eth0_1_t0[] = {
	{ "irqs", 50 }, { "irq_ns", 100000 }, { "rx_packets", 0 },
	{ "tx_packets", 7 }, { "tx_ns", 9000 }, { "freq_hz", 2000000000u },
};
static const struct fv eth0_1_t1[] = {
	{ "irqs", 150 }, { "irq_ns", 500000 }, { "rx_packets", 1000 },
	{ "tx_packets", 7 }, { "tx_ns", 9000 }, { "freq_hz", 2000000000u },
};

static void
test_cycles_per_instance(void **unused)
{
	struct pair p;

	(void)unused;
	pair_init(&p, CYCLES_SET, 2.0);
	put(&p.a, "eth0/0", eth0_0_t0, ARRAY_SIZE(eth0_0_t0));
	put(&p.b, "eth0/0", eth0_0_t1, ARRAY_SIZE(eth0_0_t1));
	pair_derive(&p);
	/* 400 / 2 s */
	check(value_of(&p, 0, "Interrupts/sec"), 200, 1e-9);
	/* 100 x 800000 ns x 1e-9 / 2 s = 0.04 % */
	check(value_of(&p, 0, "% Interrupt Time"), 0.04, 1e-12);
	/* 800000 ns x 2.5e9 Hz x 1e-9 / 2 s = 1e6 cycles/s */
	check(value_of(&p, 0, "Interrupt Cycles/sec"), 1e6, 1e-6);
	/* 800000 x 2.5 = 2e6 cycles over 400 runs = 5000 (the frequency
	 * scales N only) */
	check(value_of(&p, 0, "Avg. Interrupt Cycles per Interrupt"), 5000, 1e-9);
	/* 4000 / 2 s and 2000 / 2 s */
	check(value_of(&p, 0, "Received Packets/sec"), 2000, 1e-9);
	check(value_of(&p, 0, "Sent Packets/sec"), 1000, 1e-9);
	/* 1e6 ns x 2.5 / 2 s = 1.25e6; 2.5e6 cycles / 2000 packets = 1250 */
	check(value_of(&p, 0, "Send Cycles/sec"), 1.25e6, 1e-6);
	check(value_of(&p, 0, "Avg. Send Cycles per Packet"), 1250, 1e-9);
	pair_free(&p);
}

static void
test_cycles_total(void **unused)
{
	struct pair p;

	(void)unused;
	pair_init(&p, CYCLES_SET, 2.0);
	put(&p.a, "eth0/0", eth0_0_t0, ARRAY_SIZE(eth0_0_t0));
	put(&p.a, "eth0/1", eth0_1_t0, ARRAY_SIZE(eth0_1_t0));
	put(&p.b, "eth0/0", eth0_0_t1, ARRAY_SIZE(eth0_0_t1));
	put(&p.b, "eth0/1", eth0_1_t1, ARRAY_SIZE(eth0_1_t1));
	pair_derive(&p);
	/* eth0/1 alone: 400000 ns x 2.0 = 800000 cycles / 100 runs = 8000 */
	check(value_of(&p, 1, "Avg. Interrupt Cycles per Interrupt"), 8000, 1e-9);
	/* (400 + 100) / 2 s */
	check(total_of(&p, "Interrupts/sec"), 250, 1e-9);
	/* each CPU's cycles at its own frequency: (800000 x 2.5 + 400000 x
	 * 2.0) = 2.8e6 cycles over 500 runs = 5600 */
	check(total_of(&p, "Avg. Interrupt Cycles per Interrupt"), 5600, 1e-9);
	/* 2.8e6 / 2 s */
	check(total_of(&p, "Interrupt Cycles/sec"), 1.4e6, 1e-6);
	/* a mean over CPUs: 100 x (800000 + 400000) / 2 x 1e-9 / 2 s = 0.03 % */
	check(total_of(&p, "% Interrupt Time"), 0.03, 1e-12);
	/* 2.5e6 send cycles over 2000 + 0 packets */
	check(total_of(&p, "Avg. Send Cycles per Packet"), 1250, 1e-9);
	/* (4000 + 1000) / 2 s */
	check(total_of(&p, "Received Packets/sec"), 2500, 1e-9);
	pair_free(&p);
}

/* No nominal frequency (no freq_hz field): the Cycles counters are
 * UNSUPPORTED, never 0; the time and count counters still work. */
static void
test_no_frequency(void **unused)
{
	struct pair p;

	(void)unused;
	pair_init(&p, CYCLES_SET, 2.0);
	put(&p.a, "eth0/0", eth0_0_t0, ARRAY_SIZE(eth0_0_t0) - 1);
	put(&p.b, "eth0/0", eth0_0_t1, ARRAY_SIZE(eth0_0_t1) - 1);
	pair_derive(&p);
	assert_int_equal(value_of(&p, 0, "Interrupt Cycles/sec").status, ST_UNSUPPORTED);
	assert_int_equal(value_of(&p, 0, "Avg. Interrupt Cycles per Interrupt").status,
			 ST_UNSUPPORTED);
	assert_int_equal(value_of(&p, 0, "Send Cycles/sec").status, ST_UNSUPPORTED);
	assert_int_equal(value_of(&p, 0, "Avg. Send Cycles per Packet").status,
			 ST_UNSUPPORTED);
	check(value_of(&p, 0, "% Interrupt Time"), 0.04, 1e-12);
	check(value_of(&p, 0, "Interrupts/sec"), 200, 1e-9);
	pair_free(&p);
}

/* A veth: no IRQs, so its interrupt fields stay 0: 0 with status OK. */
static void
test_no_irqs(void **unused)
{
	static const struct fv t0[] = {
		{ "irqs", 0 }, { "irq_ns", 0 }, { "rx_packets", 10 },
		{ "tx_packets", 10 }, { "tx_ns", 100 }, { "freq_hz", 1000000000u },
	};
	static const struct fv t1[] = {
		{ "irqs", 0 }, { "irq_ns", 0 }, { "rx_packets", 20 },
		{ "tx_packets", 30 }, { "tx_ns", 2100 }, { "freq_hz", 1000000000u },
	};
	struct pair p;

	(void)unused;
	pair_init(&p, CYCLES_SET, 1.0);
	put(&p.a, "veth0/0", t0, ARRAY_SIZE(t0));
	put(&p.b, "veth0/0", t1, ARRAY_SIZE(t1));
	pair_derive(&p);
	check(value_of(&p, 0, "Interrupts/sec"), 0, 0);
	check(value_of(&p, 0, "% Interrupt Time"), 0, 0);
	check(value_of(&p, 0, "Interrupt Cycles/sec"), 0, 0);
	/* no runs: an average over nothing is 0, OK (COUNTERS.md 1) */
	check(value_of(&p, 0, "Avg. Interrupt Cycles per Interrupt"), 0, 0);
	/* 2000 ns x 1 GHz = 2000 cycles over 20 packets = 100 */
	check(value_of(&p, 0, "Avg. Send Cycles per Packet"), 100, 1e-9);
	pair_free(&p);
}

/* The per-CPU eBPF counters of Per Processor Network Activity. */
static void
test_softnet_ebpf(void **unused)
{
	static const struct fv t0[] = {
		{ "net_rx_ns", 1000000000 }, { "net_tx_ns", 0 },
		{ "net_rx_latency_ns", 5000000 }, { "net_rx_latencies", 2000 },
		{ "napi_polls", 10000 }, { "napi_work", 100000 }, { "napi_full", 5 },
		{ "freq_hz", 3000000000u },
	};
	static const struct fv t1[] = {
		{ "net_rx_ns", 1050000000 }, { "net_tx_ns", 2000000 },
		{ "net_rx_latency_ns", 7000000 }, { "net_rx_latencies", 3000 },
		{ "napi_polls", 13000 }, { "napi_work", 148000 }, { "napi_full", 15 },
		{ "freq_hz", 3000000000u },
	};
	/* CPU 1 idle: nothing moves, and its frequency is unknown */
	static const struct fv idle[] = {
		{ "net_rx_ns", 7 }, { "net_tx_ns", 7 }, { "net_rx_latency_ns", 7 },
		{ "net_rx_latencies", 7 }, { "napi_polls", 7 }, { "napi_work", 7 },
		{ "napi_full", 7 },
	};
	struct pair p;

	(void)unused;
	pair_init(&p, SOFTNET_SET, 1.0);
	put(&p.a, "0", t0, ARRAY_SIZE(t0));
	put(&p.a, "1", idle, ARRAY_SIZE(idle));
	put(&p.b, "0", t1, ARRAY_SIZE(t1));
	put(&p.b, "1", idle, ARRAY_SIZE(idle));
	pair_derive(&p);
	/* 100 x 50e6 ns x 1e-9 / 1 s = 5 %; NET_TX 100 x 2e6 x 1e-9 = 0.2 % */
	check(value_of(&p, 0, "% NET_RX Time"), 5, 1e-12);
	check(value_of(&p, 0, "% NET_TX Time"), 0.2, 1e-12);
	/* 50e6 ns x 3e9 Hz x 1e-9 = 1.5e8 cycles/s */
	check(value_of(&p, 0, "Interrupt DPC Cycles/sec"), 1.5e8, 1e-3);
	/* 2e6 ns over 1000 entries = 2 us */
	check(value_of(&p, 0, "Interrupt DPC Latency"), 2e-6, 1e-15);
	/* 3000 polls, 48000 packets: 16 a poll; 10 at full budget */
	check(value_of(&p, 0, "NAPI Polls/sec"), 3000, 1e-9);
	check(value_of(&p, 0, "Avg. Packets per Poll"), 16, 1e-12);
	check(value_of(&p, 0, "Polls at Full Budget/sec"), 10, 1e-9);
	/* _Total: % NET_RX Time is the mean, (5 + 0) / 2 */
	check(total_of(&p, "% NET_RX Time"), 2.5, 1e-12);
	check(total_of(&p, "NAPI Polls/sec"), 3000, 1e-9);
	/* CPU 1 has no frequency: its Cycles counter is UNSUPPORTED */
	assert_int_equal(value_of(&p, 1, "Interrupt DPC Cycles/sec").status, ST_UNSUPPORTED);
	check(value_of(&p, 1, "Interrupt DPC Latency"), 0, 0);
	pair_free(&p);
}

/* perf's time conversion: ns = cycles x mult >> shift, so the rate is
 * 2^shift x 1e9 / mult. 2.5 GHz with shift 31: mult = floor(2^31 / 2.5) =
 * 858993459, giving 2147483648e9 / 858993459 = 2500000000.58 -> 2500000001. */
static void
test_tsc_rate(void **unused)
{
	(void)unused;
	assert_int_equal(netcycles_tsc_hz(31, 858993459u), 2500000001ull);
	/* shift 0, mult 1: 1 ns per cycle, 1 GHz */
	assert_int_equal(netcycles_tsc_hz(0, 1), 1000000000ull);
	assert_int_equal(netcycles_tsc_hz(31, 0), 0);
	assert_int_equal(netcycles_tsc_hz(64, 1), 0);
}

/* /proc/cpuinfo's cpu MHz is the TSC rate only with constant_tsc and
 * without aperfmperf (else it is a measured current frequency). */
static void
test_cpuinfo_rate(void **unused)
{
	static const char vm[] = "processor\t: 0\nmodel name\t: AMD EPYC\n"
				 "cpu MHz\t\t: 2596.122\ncache size\t: 512 KB\n"
				 "flags\t\t: fpu tsc constant_tsc rep_good nopl tsc_known_freq\n"
				 "processor\t: 1\ncpu MHz\t\t: 1.5\n";
	static const char metal[] = "cpu MHz\t\t: 3400.000\n"
				    "flags\t\t: fpu tsc constant_tsc aperfmperf\n";
	static const char old[] = "cpu MHz\t\t: 1000.000\nflags\t\t: fpu tsc\n";

	(void)unused;
	/* 2596.122 MHz = 2596122000 Hz (the first CPU's line) */
	assert_int_equal(netcycles_cpuinfo_hz(vm), 2596122000ull);
	assert_int_equal(netcycles_cpuinfo_hz(metal), 0);
	assert_int_equal(netcycles_cpuinfo_hz(old), 0);
	assert_int_equal(netcycles_cpuinfo_hz("flags : constant_tsc\n"), 0);
}

/* The set's shape: names exactly as COUNTERS.md 10, IF/_Total groups. */
static void
test_set_shape(void **unused)
{
	static const char *const names[] = {
		"Interrupts/sec", "% Interrupt Time", "Interrupt Cycles/sec",
		"Avg. Interrupt Cycles per Interrupt", "Received Packets/sec",
		"Sent Packets/sec", "Send Cycles/sec", "Avg. Send Cycles per Packet",
	};
	const struct provider *prov = provider_find(CYCLES_SET);

	(void)unused;
	assert_non_null(prov);
	assert_int_equal(prov->set->group, GROUP_PARENT);
	assert_false(prov->set->has_total);
	assert_int_equal(prov->set->ncounters, ARRAY_SIZE(names));
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		assert_string_equal(prov->set->counters[i].name, names[i]);
}

/* Under --root nothing loads; the notice says why, once. */
static void
test_root_unsupported(void **unused)
{
	const char *roots[] = { "../fixtures/softnet-v4/t0" };
	struct procfs *fs = procfs_new(roots, 1);
	const char *note;

	(void)unused;
	assert_int_equal(netcycles_acquire(fs, NC_HOOK_NAPI), -1);
	assert_null(netcycles_cpu(0));
	note = netcycles_notice();
	assert_non_null(note);
	assert_non_null(strstr(note, "--root"));
	assert_null(netcycles_notice());
	netcycles_release();
	procfs_free(fs);
}

/* How the paths name an interface: exactly (no wildcard before the last
 * '/'), by a wildcard matching one of its instances (IF/_Total or IF/CPU
 * for an online CPU), or not at all. */
static void
test_if_rank(void **unused)
{
	const unsigned cpus[] = { 0, 1 };
	const char *exact[] = { "veth3/*" };
	const char *exact_total[] = { "VETH3/_Total" };
	const char *all[] = { "*" };
	const char *cpu1[] = { "v*/1" };
	const char *cpu7[] = { "v*/7" };
	const char *totals[] = { "*/_Total" };
	const char *bare[] = { "veth3" };
	const char *both[] = { "v*", "veth3/0" };

	(void)unused;
	assert_int_equal(netcycles_if_rank("veth3", exact, 1, cpus, 2), NC_RANK_EXACT);
	/* "veth30" is not "veth3": the part before '/' must be the whole name */
	assert_int_equal(netcycles_if_rank("veth30", exact, 1, cpus, 2), NC_RANK_NONE);
	assert_int_equal(netcycles_if_rank("veth", exact, 1, cpus, 2), NC_RANK_NONE);
	assert_int_equal(netcycles_if_rank("veth3", exact_total, 1, cpus, 2), NC_RANK_EXACT);
	assert_int_equal(netcycles_if_rank("lo", all, 1, cpus, 2), NC_RANK_WILDCARD);
	assert_int_equal(netcycles_if_rank("veth3", cpu1, 1, cpus, 2), NC_RANK_WILDCARD);
	assert_int_equal(netcycles_if_rank("lo", cpu1, 1, cpus, 2), NC_RANK_NONE);
	/* CPU 7 is not online: no instance of veth3 matches */
	assert_int_equal(netcycles_if_rank("veth3", cpu7, 1, cpus, 2), NC_RANK_NONE);
	assert_int_equal(netcycles_if_rank("lo", totals, 1, cpus, 2), NC_RANK_WILDCARD);
	/* no '/': matches no IF/CPU instance */
	assert_int_equal(netcycles_if_rank("veth3", bare, 1, cpus, 2), NC_RANK_NONE);
	/* the exact one wins over an earlier wildcard */
	assert_int_equal(netcycles_if_rank("veth3", both, 2, cpus, 2), NC_RANK_EXACT);
	assert_int_equal(netcycles_if_rank("veth9", both, 2, cpus, 2), NC_RANK_WILDCARD);
	/* no patterns (a provider opened without the run's request): all */
	assert_int_equal(netcycles_if_rank("lo", NULL, 0, cpus, 2), NC_RANK_WILDCARD);
}

/* Which interfaces get the slots: exact ones first, then wildcard ones,
 * each in name order, never unnamed ones. */
static void
test_pick(void **unused)
{
	const int e = NC_RANK_EXACT, w = NC_RANK_WILDCARD, n = NC_RANK_NONE;
	/* 3 slots over W W W E N W: E (index 3), then the first two W (0,
	 * 1); left out: the W at 2 and 5, so 2 (5 named - 3 slots) */
	const int r1[] = { w, w, w, e, n, w };
	const uint8_t want1[] = { 1, 1, 0, 1, 0, 0 };
	/* 2 slots over E E E: the first two; 1 left out */
	const int r2[] = { e, e, e };
	const uint8_t want2[] = { 1, 1, 0 };
	/* 4 slots over N W N: the W only; none left out */
	const int r3[] = { n, w, n };
	const uint8_t want3[] = { 0, 1, 0 };
	uint8_t pick[6];

	(void)unused;
	memset(pick, 7, sizeof(pick));
	assert_int_equal(netcycles_pick(r1, 6, 3, pick), 2);
	assert_memory_equal(pick, want1, 6);
	memset(pick, 7, sizeof(pick));
	assert_int_equal(netcycles_pick(r2, 3, 2, pick), 1);
	assert_memory_equal(pick, want2, 3);
	memset(pick, 7, sizeof(pick));
	assert_int_equal(netcycles_pick(r3, 3, 4, pick), 0);
	assert_memory_equal(pick, want3, 3);
}

/* mkdir -p path: 0, or -1. */
static int
system_mkdirs(const char *path)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/* Add interface name with ifindex to the sys/class/net of root. */
static void
add_if(const char *root, const char *name, int ifindex)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/class/net/%s", root, name);
	assert_int_equal(system_mkdirs(path), 0);
	snprintf(path, sizeof(path), "%s/sys/class/net/%s/ifindex", root, name);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%d\n", ifindex);
	fclose(f);
}

/* Instances of rs whose name starts with prefix. */
static int
count_prefix(const struct raw_set *rs, const char *prefix)
{
	int n = 0;

	for (size_t i = 0; i < rs->ninstances; i++)
		n += strncmp(raw_name_at(rs, i), prefix, strlen(prefix)) == 0;
	return n;
}

/* The set under a root of 40 interfaces a00 ... a39 (ifindexes 2 ... 41),
 * CPUs 0-1, asked for zz/_Total and *: not loaded (--root), so the
 * instances are those of the 32 followed interfaces, 2 CPUs each (64).
 * First zz is not there: a00 ... a31 are followed, the notice says 40
 * named, 8 (40 - 32) left out. Then zz comes (ifindex 42; a root is
 * listed again each read): named exactly, it takes the place of the last
 * wildcard one, a31, though it sorts after every a: zz and a00 ... a30. */
static void
test_slots_named_first(void **unused)
{
	char root[] = "/tmp/gc-test-netcycles-XXXXXX";
	char path[256];
	const struct provider *prov = provider_find(CYCLES_SET);
	const char *pats[] = { "zz/_Total", "*" };
	struct provider_request req = { pats, 2, NULL, 0 };
	struct provider_ctx ctx;
	struct raw_set rs;
	struct err err = { "" };
	const char *roots[1];
	const char *note;
	FILE *f;

	(void)unused;
	assert_non_null(mkdtemp(root));
	for (int i = 0; i < 40; i++) {
		char name[16];
		snprintf(name, sizeof(name), "a%02d", i);
		add_if(root, name, i + 2);
	}
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu", root);
	assert_int_equal(system_mkdirs(path), 0);
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
	assert_non_null(f = fopen(path, "w"));
	fputs("0-1\n", f);
	fclose(f);

	roots[0] = root;
	memset(&ctx, 0, sizeof(ctx));
	ctx.fs = procfs_new(roots, 1);
	ctx.needed = ~(uint64_t)0 >> (64 - prov->set->nfields);
	assert_int_equal(procfs_begin_read(ctx.fs, 0, &err), 0);
	void *st = prov->open_request(&ctx, &req, &err);
	assert_non_null(st);
	note = prov->notice(st);
	assert_non_null(note);
	assert_non_null(strstr(note, "the paths name 40 interfaces, the eBPF programs follow 32 at "
				     "once; 8 "));
	raw_set_init(&rs, prov->set);
	raw_set_begin(&rs);
	assert_int_equal(prov->read(st, &rs, &err), 0);
	assert_int_equal(rs.ninstances, 64);
	assert_int_equal(count_prefix(&rs, "a31/"), 2);
	assert_int_equal(count_prefix(&rs, "a32/"), 0);
	assert_int_equal(count_prefix(&rs, "zz/"), 0);
	for (size_t i = 0; i < rs.ninstances; i++)
		assert_int_equal(raw_present_at(&rs, i), 0); /* UNSUPPORTED: nothing loaded */

	add_if(root, "zz", 42);
	raw_set_begin(&rs);
	assert_int_equal(prov->read(st, &rs, &err), 0);
	assert_int_equal(rs.ninstances, 64);
	assert_int_equal(count_prefix(&rs, "zz/"), 2);
	assert_int_equal(count_prefix(&rs, "a30/"), 2);
	assert_int_equal(count_prefix(&rs, "a31/"), 0);
	prov->close(st);
	raw_set_free(&rs);
	procfs_free(ctx.fs);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycles_per_instance),
		cmocka_unit_test(test_cycles_total),
		cmocka_unit_test(test_no_frequency),
		cmocka_unit_test(test_no_irqs),
		cmocka_unit_test(test_softnet_ebpf),
		cmocka_unit_test(test_tsc_rate),
		cmocka_unit_test(test_cpuinfo_rate),
		cmocka_unit_test(test_set_shape),
		cmocka_unit_test(test_root_unsupported),
		cmocka_unit_test(test_if_rank),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_slots_named_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
