/*
 * test_nicpower.c - the Physical Network Interface Card Activity provider
 * (COUNTERS.md section 6): its parsers, include/nicdev.h's device lookup,
 * and every counter over the fixture series tests/fixtures/nicpower-basic
 * (made by its gen.sh: sysfs-shaped trees with symlinks) through derive.c,
 * with the arithmetic beside each expected value; what the provider reads
 * when few counters are wanted; and this machine's interfaces.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "derive.h"
#include "nicdev.h"
#include "nicpower.h"
#include "procfs.h"
#include "provider.h"
#include "sample.h"

extern const struct provider provider_physical_nic_activity;

#define PROV provider_physical_nic_activity
#define ALL_FIELDS ((((uint64_t)1) << NP_NFIELDS) - 1)
#define BIT(f) ((uint64_t)1 << (f))
#define MAX_ROOTS 4

/* A provider read over every root of a fixture series. */
struct series {
	struct procfs *fs;
	struct provider_ctx ctx;
	void *state;
	struct raw_set rs[MAX_ROOTS];
	double uptime[MAX_ROOTS];
	size_t n;
};

/* The first number of DIR/proc/uptime. */
static double
read_uptime(const char *root)
{
	char path[512];
	double up = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/uptime", root);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lf", &up), 1);
	fclose(f);
	return up;
}

/* Open the provider over dir/t0 .. dir/t(n-1) and read each root. */
static void
series_load(struct series *s, const char *dir, size_t n, uint64_t needed)
{
	char paths[MAX_ROOTS][256];
	const char *roots[MAX_ROOTS];
	struct err err = { "" };

	memset(s, 0, sizeof(*s));
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "../fixtures/%s/t%zu", dir, i);
		roots[i] = paths[i];
		s->uptime[i] = read_uptime(paths[i]);
	}
	s->fs = procfs_new(roots, n);
	s->ctx.fs = s->fs;
	s->ctx.needed = needed;
	assert_int_equal(procfs_begin_read(s->fs, 0, &err), 0);
	s->state = PROV.open(&s->ctx, &err);
	assert_non_null(s->state);
	for (size_t i = 0; i < n; i++) {
		if (i)
			assert_int_equal(procfs_begin_read(s->fs, i, &err), 0);
		raw_set_init(&s->rs[i], PROV.set);
		raw_set_begin(&s->rs[i]);
		if (PROV.read(s->state, &s->rs[i], &err) != 0)
			fail_msg("read of root %zu: %s", i, err.msg);
	}
}

static void
series_free(struct series *s)
{
	for (size_t i = 0; i < s->n; i++)
		raw_set_free(&s->rs[i]);
	PROV.close(s->state);
	procfs_free(s->fs);
}

static const struct raw_instance *
find_inst(const struct raw_set *rs, const char *name)
{
	for (size_t i = 0; i < rs->ninstances; i++)
		if (strcmp(raw_name_at(rs, i), name) == 0)
			return &rs->inst[i];
	return NULL;
}

static const struct counter_desc *
counter(const char *name)
{
	const struct counter_desc *c = counter_set_find(PROV.set, name);
	if (!c)
		fail_msg("no counter '%s'", name);
	return c;
}

/* The value of counter name of instance inst over read i-1 -> i; i = 0
 * is a snapshot of the first read. */
static struct value
value_of(const struct series *s, size_t i, const char *inst, const char *name)
{
	struct derive_env env = { .dt = i ? s->uptime[i] - s->uptime[i - 1] : 0,
				  .user_hz = 100,
				  .ulong_bits = 64 };
	const struct raw_instance *cur = find_inst(&s->rs[i], inst);
	const struct raw_instance *prev = i ? find_inst(&s->rs[i - 1], inst) : NULL;
	FIELD_DELTAS_DECLARE(d);

	if (!cur)
		fail_msg("no instance '%s' in read %zu", inst, i);
	if (i == 0)
		return derive_value(&s->rs[i], counter(name), cur, NULL, ST_OK, &env);
	if (!prev)
		return derive_value(&s->rs[i], counter(name), cur, NULL, ST_NEW, &env);
	derive_deltas(&s->rs[i - 1], prev, &s->rs[i], cur, &env, &d);
	return derive_value(&s->rs[i], counter(name), cur, &d, ST_OK, &env);
}

/* Check a value and its status; the number is checked only for statuses
 * that carry one. */
static void
check(struct value v, double expect, enum value_status st, const char *what, int line)
{
	double tol = 1e-9 * (expect < 0 ? -expect : expect) + 1e-9;

	if (v.status != st)
		fail_msg("line %d, %s: status %s, expected %s", line, what,
			 status_name((enum value_status)v.status), status_name(st));
	if (st != ST_OK && st != ST_WRAPPED && st != ST_NEW && st != ST_FIRST)
		return;
	if (v.v - expect > tol || expect - v.v > tol)
		fail_msg("line %d, %s: value %.9g, expected %.9g", line, what, v.v, expect);
}

#define CHECK(s, i, inst, name, expect, st) \
	check(value_of(s, i, inst, name), expect, st, inst " " name, __LINE__)

#define STATE "Device Power State"
#define LIFE "% Time Suspended (Lifetime)"
#define INST "% Time Suspended (Instantaneous)"
#define RTS "Runtime Status"

/* power_state words, including the ones that are no state. */
static void
test_parse_power_state(void **unused)
{
	uint64_t v = 99;

	(void)unused;
	assert_int_equal(nicpower_parse_power_state("D0\n", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(nicpower_parse_power_state("D1", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(nicpower_parse_power_state("D2\n", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(nicpower_parse_power_state("D3hot\n", &v), 0);
	assert_int_equal(v, 3);
	v = 99;
	assert_int_equal(nicpower_parse_power_state("D3cold\n", &v), 0);
	assert_int_equal(v, 3);
	v = 99;
	assert_int_equal(nicpower_parse_power_state("unknown\n", &v), -1);
	assert_int_equal(nicpower_parse_power_state("error\n", &v), -1);
	assert_int_equal(nicpower_parse_power_state("", &v), -1);
	assert_int_equal(nicpower_parse_power_state("D3\n", &v), -1);
	assert_int_equal(nicpower_parse_power_state("D0x\n", &v), -1);
	assert_int_equal(nicpower_parse_power_state("D4\n", &v), -1);
	assert_int_equal(v, 99); /* untouched by a failed parse */
}

/* runtime_status words and their numbers. */
static void
test_parse_runtime_status(void **unused)
{
	static const char *const words[] = { "active",      "suspended", "suspending",
					     "resuming",    "unsupported", "error" };
	uint64_t v = 99;

	(void)unused;
	for (size_t i = 0; i < 6; i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "%s\n", words[i]);
		assert_int_equal(nicpower_parse_runtime_status(buf, &v), 0);
		assert_int_equal(v, i); /* active 0 ... error 5 */
	}
	assert_int_equal(NP_RT_UNSUPPORTED, 4);
	v = 99;
	assert_int_equal(nicpower_parse_runtime_status("", &v), -1);
	assert_int_equal(nicpower_parse_runtime_status("activ\n", &v), -1);
	assert_int_equal(nicpower_parse_runtime_status("actives\n", &v), -1);
	assert_int_equal(v, 99);
}

/* runtime_*_time: milliseconds; a pre-5.1 negative print is no value. */
static void
test_parse_ms(void **unused)
{
	uint64_t v = 99;

	(void)unused;
	assert_int_equal(nicpower_parse_ms("3064647\n", &v), 0);
	assert_int_equal(v, 3064647);
	assert_int_equal(nicpower_parse_ms("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(nicpower_parse_ms("18446744073709551615\n", &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(nicpower_parse_ms("-2147000000\n", &v), -1);
	assert_int_equal(nicpower_parse_ms("", &v), -1);
	assert_int_equal(nicpower_parse_ms("12 ms\n", &v), -1);
}

/* nicdev_find: virtio's parent, a PCI function, a USB device, virtual
 * interfaces, and the older fixture whose `device` is a plain file. */
static void
test_nicdev_find(void **unused)
{
	const char *root[] = { "../fixtures/nicpower-basic/t0" };
	const char *old[] = { "../fixtures/nic-sysfs/t0" };
	struct procfs *fs = procfs_new(root, 1);
	struct err err = { "" };
	struct nicdev dev;
	char path[160], buf[64];

	(void)unused;
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	assert_int_equal(nicdev_find(fs, "eth0", &dev), 0);
	assert_string_equal(dev.dir, "sys/class/net/eth0/device/..");
	assert_string_equal(dev.virtio, "virtio2");
	/* ".." after the symlink is the PCI function, not the interface */
	snprintf(path, sizeof(path), "%s/power_state", dev.dir);
	assert_true(procfs_read_small(fs, path, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "D0");
	assert_int_equal(nicdev_find(fs, "eth1", &dev), 0);
	assert_string_equal(dev.dir, "sys/class/net/eth1/device");
	assert_string_equal(dev.virtio, "");
	assert_int_equal(nicdev_find(fs, "eth3", &dev), 0); /* USB */
	assert_string_equal(dev.dir, "sys/class/net/eth3/device");
	assert_int_equal(nicdev_find(fs, "lo", &dev), -1);
	assert_int_equal(nicdev_find(fs, "veth0", &dev), -1);
	assert_int_equal(nicdev_find(fs, "nosuch0", &dev), -1);
	procfs_free(fs);

	fs = procfs_new(old, 1);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	assert_int_equal(nicdev_find(fs, "eth0", &dev), 0);
	assert_string_equal(dev.dir, "sys/class/net/eth0/device");
	assert_int_equal(nicdev_find(fs, "lo", &dev), -1);
	procfs_free(fs);
}

/* Instances: interfaces with a device, in name order; identity ifindex. */
static void
test_instances(void **unused)
{
	static const char *const t0[] = { "eth0", "eth1", "eth2", "eth3", "eth4" };
	static const char *const t2[] = { "eth0", "eth1", "eth2", "eth4", "eth5" };
	struct series s;

	(void)unused;
	series_load(&s, "nicpower-basic", 3, ALL_FIELDS);
	/* lo and veth0 are virtual, bonding_masters is a file: none of them */
	assert_int_equal(s.rs[0].ninstances, 5);
	assert_int_equal(s.rs[1].ninstances, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(raw_name_at(&s.rs[0], i), t0[i]);
		assert_string_equal(raw_name_at(&s.rs[1], i), t0[i]);
	}
	/* t2: eth3 gone, eth5 new */
	assert_int_equal(s.rs[2].ninstances, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(raw_name_at(&s.rs[2], i), t2[i]);
	assert_int_equal(raw_identity(&s.rs[0], find_inst(&s.rs[0], "eth0")), 2);
	assert_int_equal(raw_identity(&s.rs[1], find_inst(&s.rs[1], "eth1")), 3);
	assert_int_equal(raw_identity(&s.rs[2], find_inst(&s.rs[2], "eth1")), 9); /* recreated */
	assert_int_equal(raw_identity(&s.rs[2], find_inst(&s.rs[2], "eth5")), 8);
	/* eth2 says "unknown" and "unsupported": only the status is there */
	assert_int_equal(raw_present(&s.rs[0], find_inst(&s.rs[0], "eth2")), BIT(NP_RUNTIME_STATUS));
	/* eth3 is USB: no power_state */
	assert_int_equal(raw_present(&s.rs[0], find_inst(&s.rs[0], "eth3")),
			 BIT(NP_RUNTIME_STATUS) | BIT(NP_ACTIVE_TIME) | BIT(NP_SUSPENDED_TIME));
	series_free(&s);
}

/* Every counter of every interface, t0 alone, t0 -> t1 and t1 -> t2. */
static void
test_counters(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "nicpower-basic", 3, ALL_FIELDS);

	/* t0 as a snapshot: one-read counters have values, the
	 * instantaneous one has no interval */
	CHECK(&s, 0, "eth1", STATE, 3, ST_OK);         /* D3hot */
	CHECK(&s, 0, "eth1", LIFE, 40, ST_OK);         /* 100 x 4000 / (6000 + 4000) */
	CHECK(&s, 0, "eth1", INST, 0, ST_BAD_TIME);
	CHECK(&s, 0, "eth1", RTS, 1, ST_OK);           /* suspended */

	/* eth0, virtio: the PCI function's attributes (virtio2's own say
	 * "unsupported" and would give UNSUPPORTED) */
	CHECK(&s, 1, "eth0", STATE, 0, ST_OK);         /* D0 */
	CHECK(&s, 1, "eth0", LIFE, 0, ST_OK);          /* 100 x 0 / (3002000 + 0) */
	CHECK(&s, 1, "eth0", INST, 0, ST_OK);          /* 100 x 0 / (2000 + 0) */
	CHECK(&s, 1, "eth0", RTS, 0, ST_OK);           /* active */

	/* eth1: active 6000 -> 6500, suspended 4000 -> 5500 */
	CHECK(&s, 1, "eth1", STATE, 3, ST_OK);         /* D3hot */
	CHECK(&s, 1, "eth1", LIFE, 100.0 * 5500 / 12000, ST_OK); /* 45.83: 5500 / (6500 + 5500) */
	CHECK(&s, 1, "eth1", INST, 75, ST_OK);         /* 100 x 1500 / (500 + 1500) */
	CHECK(&s, 1, "eth1", RTS, 1, ST_OK);

	/* eth2: power_state "unknown", runtime "unsupported": the times (0)
	 * are left out, so both percentages are UNSUPPORTED, never 0 */
	CHECK(&s, 1, "eth2", STATE, 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth2", LIFE, 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth2", INST, 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth2", RTS, 4, ST_OK);           /* unsupported */

	/* eth3, USB: no power_state; times frozen at 100 and 900 */
	CHECK(&s, 1, "eth3", STATE, 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth3", LIFE, 90, ST_OK);         /* 100 x 900 / (100 + 900) */
	CHECK(&s, 1, "eth3", INST, 0, ST_OK);          /* dB = 0: the zero base, 0 */
	CHECK(&s, 1, "eth3", RTS, 2, ST_OK);           /* suspending */

	/* eth4: D3cold, runtime error; active 1000 both times, suspended 0 */
	CHECK(&s, 1, "eth4", STATE, 3, ST_OK);         /* D3cold */
	CHECK(&s, 1, "eth4", LIFE, 0, ST_OK);          /* 100 x 0 / 1000 */
	CHECK(&s, 1, "eth4", INST, 0, ST_OK);          /* dB = 0: zero base */
	CHECK(&s, 1, "eth4", RTS, 5, ST_OK);           /* error */

	/* t1 -> t2 (4 s) */
	CHECK(&s, 2, "eth0", INST, 0, ST_OK);          /* 100 x 0 / (4000 + 0) */
	/* eth1 recreated (ifindex 3 -> 9): RESET for the interval, the
	 * one-read counters stand */
	CHECK(&s, 2, "eth1", INST, 0, ST_RESET);
	CHECK(&s, 2, "eth1", LIFE, 56.25, ST_OK);      /* 100 x 9000 / (7000 + 9000) */
	CHECK(&s, 2, "eth1", STATE, 3, ST_OK);
	/* eth5 appears: NEW, active 50000, suspended 250 */
	CHECK(&s, 2, "eth5", STATE, 0, ST_NEW);
	CHECK(&s, 2, "eth5", LIFE, 100.0 * 250 / 50250, ST_NEW); /* 0.4975 */
	CHECK(&s, 2, "eth5", INST, 0, ST_NEW);
	CHECK(&s, 2, "eth5", RTS, 0, ST_NEW);
	series_free(&s);
}

/* Only what the requested counters need is read and stored. */
static void
test_needed(void **unused)
{
	struct series s;

	(void)unused;
	/* Device Power State alone */
	series_load(&s, "nicpower-basic", 2, BIT(NP_POWER_STATE));
	for (size_t i = 0; i < s.rs[1].ninstances; i++)
		assert_int_equal(raw_present_at(&s.rs[1], i) & ~BIT(NP_POWER_STATE), 0);
	assert_int_equal(raw_present(&s.rs[1], find_inst(&s.rs[1], "eth1")), BIT(NP_POWER_STATE));
	series_free(&s);

	/* the times: runtime_status is read to know "unsupported", but not
	 * stored when Runtime Status is not wanted */
	series_load(&s, "nicpower-basic", 2, BIT(NP_SUSPENDED_TIME) | BIT(NP_ACTIVE_TIME));
	assert_int_equal(raw_present(&s.rs[1], find_inst(&s.rs[1], "eth1")),
			 BIT(NP_SUSPENDED_TIME) | BIT(NP_ACTIVE_TIME));
	assert_int_equal(raw_present(&s.rs[1], find_inst(&s.rs[1], "eth2")), 0); /* unsupported */
	CHECK(&s, 1, "eth1", INST, 75, ST_OK);
	CHECK(&s, 1, "eth2", INST, 0, ST_UNSUPPORTED);
	series_free(&s);

	/* nothing wanted: instances, no fields */
	series_load(&s, "nicpower-basic", 1, 0);
	assert_int_equal(s.rs[0].ninstances, 5);
	for (size_t i = 0; i < s.rs[0].ninstances; i++)
		assert_int_equal(raw_present_at(&s.rs[0], i), 0);
	series_free(&s);
}

/* A root without sys/class/net: no instances, no error. */
static void
test_no_sysfs(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "nic-procnetdev", 1, ALL_FIELDS);
	assert_int_equal(s.rs[0].ninstances, 0);
	series_free(&s);
}

/* This machine: one instance per /sys/class/net entry with a device, and
 * each stored field equal to the sysfs text (read just before). */
static void
test_live(void **unused)
{
	struct provider_ctx ctx;
	struct procfs *fs = procfs_new(NULL, 0);
	struct err err = { "" };
	struct raw_set rs;
	size_t want = 0;
	DIR *d = opendir("/sys/class/net");
	struct dirent *de;
	void *st;

	(void)unused;
	if (!d) {
		procfs_free(fs);
		skip();
	}
	while ((de = readdir(d))) {
		char path[512];
		struct stat sb;
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/device", de->d_name);
		want += lstat(path, &sb) == 0;
	}
	closedir(d);
	ctx.fs = fs;
	ctx.needed = ALL_FIELDS;
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	st = PROV.open(&ctx, &err);
	assert_non_null(st);
	raw_set_init(&rs, PROV.set);
	raw_set_begin(&rs);
	assert_int_equal(PROV.read(st, &rs, &err), 0);
	assert_int_equal(rs.ninstances, want);
	for (size_t i = 0; i < rs.ninstances; i++) {
		const struct raw_instance *ri = &rs.inst[i];
		struct nicdev dev;
		char path[256], text[64];
		uint64_t v;

		assert_int_equal(nicdev_find(fs, raw_name(&rs, ri), &dev), 0);
		snprintf(path, sizeof(path), "%s/power_state", dev.dir);
		if (procfs_read_small(fs, path, text, sizeof(text)) >= 0 &&
		    nicpower_parse_power_state(text, &v) == 0) {
			assert_true(raw_present(&rs, ri) & BIT(NP_POWER_STATE));
			assert_int_equal(raw_get(&rs, ri, NP_POWER_STATE), v);
		} else {
			assert_false(raw_present(&rs, ri) & BIT(NP_POWER_STATE));
		}
		snprintf(path, sizeof(path), "%s/power/runtime_status", dev.dir);
		if (procfs_read_small(fs, path, text, sizeof(text)) >= 0 &&
		    nicpower_parse_runtime_status(text, &v) == 0) {
			assert_true(raw_present(&rs, ri) & BIT(NP_RUNTIME_STATUS));
			if (v == NP_RT_UNSUPPORTED)
				assert_false(raw_present(&rs, ri) & BIT(NP_ACTIVE_TIME));
		}
		printf("live %s: device %s, fields 0x%llx\n", raw_name(&rs, ri), dev.dir,
		       (unsigned long long)raw_present(&rs, ri));
	}
	raw_set_free(&rs);
	PROV.close(st);
	procfs_free(fs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_power_state),
		cmocka_unit_test(test_parse_runtime_status),
		cmocka_unit_test(test_parse_ms),
		cmocka_unit_test(test_nicdev_find),
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_needed),
		cmocka_unit_test(test_no_sysfs),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
