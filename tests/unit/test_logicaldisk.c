/*
 * test_logicaldisk.c - the mountinfo and statvfs-file parsers and the
 * LogicalDisk provider, end to end through derive over tests/fixtures/ldisk-*:
 *   ldisk-basic  /dev/sda1 on /, btrfs on /dev/mapper/vg-data (field 3 is the
 *                anonymous 0:40; a second subvolume adds nothing), /dev/md0 (a
 *                15-field line), "/mnt/my disk" (\040) with a bind mount of the
 *                same device, "/mnt/my (old) disk", vfat with f_files 0, tmpfs,
 *                overlay and proc (no device); /media/usb appears in t1 (no
 *                statvfs line until t2), "/mnt/my (old) disk" goes in t2
 *   ldisk-over   a file of sda1 bind-mounted on /etc/hosts before sda1's /
 *                (the whole filesystem's mount wins), / from /dev/root (diskstats
 *                has no "root": field 3 decides), a directory of /dev/sdc1
 *                mounted over /data in t1 and gone in t2 (RESET both times), no
 *                statvfs file in t1
 * Every root's proc/uptime advances 2.00 s, so dt = 2 throughout. A live
 * test compares the helper thread's figures with statvfs(3).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cmocka.h>

#include "derive.h"
#include "gc_test.h"
#include "mountinfo.h"
#include "provider.h"

extern const struct provider provider_logicaldisk;
extern const struct provider provider_physicaldisk;

#define MAX_ROOTS 3
#define DT 2.0
#define MB 1048576.0

/* A fixture series read through the provider, one raw_set per root. */
struct series {
	struct procfs *fs;
	void *state;
	size_t n;
	struct raw_set rs[MAX_ROOTS];
	struct derive_env env;
};

static const struct counter_set *
ld_set(void)
{
	return provider_logicaldisk.set;
}

/* Read roots ../fixtures/NAME/t0 .. t(n-1) with one provider state, as the
 * engine does. needed 0 asks for every field. */
static void
series_load(struct series *s, const char *name, size_t n, uint64_t needed)
{
	char paths[MAX_ROOTS][128];
	const char *roots[MAX_ROOTS];
	struct err err = { { 0 } };

	assert_true(n <= MAX_ROOTS);
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "../fixtures/%s/t%zu", name, i);
		roots[i] = paths[i];
	}
	s->fs = procfs_new(roots, n);
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(procfs_begin_read(s->fs, i, &err), 0);
		if (i == 0) {
			struct provider_ctx ctx = { .fs = s->fs, .needed = needed };
			s->state = provider_logicaldisk.open(&ctx, &err);
			assert_non_null(s->state);
		}
		raw_set_init(&s->rs[i], ld_set());
		raw_set_begin(&s->rs[i]);
		if (provider_logicaldisk.read(s->state, &s->rs[i], &err) != 0)
			fail_msg("read of %s failed: %s", roots[i], err.msg);
	}
	s->env = (struct derive_env){ .dt = DT, .wall_s = 0, .user_hz = 100, .ulong_bits = 64 };
}

static void
series_free(struct series *s)
{
	provider_logicaldisk.close(s->state);
	for (size_t i = 0; i < s->n; i++)
		raw_set_free(&s->rs[i]);
	procfs_free(s->fs);
}

static const struct raw_instance *
find(const struct raw_set *rs, const char *name)
{
	for (size_t i = 0; i < rs->ninstances; i++)
		if (strcmp(raw_name_at(rs, i), name) == 0)
			return &rs->inst[i];
	return NULL;
}

static const struct counter_desc *
counter(const char *name)
{
	const struct counter_desc *c = counter_set_find(ld_set(), name);
	if (!c)
		fail_msg("no counter '%s'", name);
	return c;
}

/* The value of inst's counter over the interval ending at root i, paired by
 * name as the engine pairs (absent before: NEW). */
static struct value
value_at(struct series *s, size_t i, const char *inst, const char *name)
{
	const struct raw_instance *cur = find(&s->rs[i], inst);
	const struct raw_instance *prev = i ? find(&s->rs[i - 1], inst) : NULL;
	FIELD_DELTAS_DECLARE(d);

	if (!cur)
		fail_msg("no instance %s in root %zu", inst, i);
	if (!prev)
		return derive_value(&s->rs[i], counter(name), cur, NULL, i ? ST_NEW : ST_FIRST,
				    &s->env);
	derive_deltas(&s->rs[i - 1], prev, &s->rs[i], cur, &s->env, &d);
	return derive_value(&s->rs[i], counter(name), cur, &d, ST_OK, &s->env);
}

/* _Total of a counter over the interval ending at root i (i >= 1). */
static struct value
total_at(struct series *s, size_t i, const char *name)
{
	const struct raw_set *rs = &s->rs[i];
	const struct raw_instance *cur[16];
	const struct field_deltas *dp[16];
	FIELD_DELTAS_ARRAY(d, 16);
	uint8_t pst[16];
	size_t n = 0;

	for (size_t k = 0; k < rs->ninstances; k++) {
		const struct raw_instance *prev = find(&s->rs[i - 1], raw_name_at(rs, k));
		if (!raw_in_total_at(rs, k))
			continue;
		assert_true(n < 16);
		cur[n] = &rs->inst[k];
		dp[n] = NULL;
		pst[n] = ST_NEW;
		if (prev) {
			derive_deltas(&s->rs[i - 1], prev, rs, cur[n], &s->env, &d[n]);
			dp[n] = &d[n];
			pst[n] = ST_OK;
		}
		n++;
	}
	return derive_total(rs, counter(name), cur, dp, pst, n, &s->env);
}

/* Assert the status st and, where a value exists, the value want within
 * 1e-9 relative. */
static void
check(struct value got, enum value_status st, double want, const char *what)
{
	if (got.status != st)
		fail_msg("%s: status %s, want %s", what, status_name(got.status),
			 status_name(st));
	if (st != ST_OK && st != ST_WRAPPED && st != ST_FIRST && st != ST_NEW)
		return;
	if (!isfinite(got.v) || fabs(got.v - want) > 1e-9 * (fabs(want) > 1 ? fabs(want) : 1))
		fail_msg("%s: %.12g, want %.12g", what, got.v, want);
}

static void
check_at(struct series *s, size_t i, const char *inst, const char *name, enum value_status st,
	 double want)
{
	char what[200];
	snprintf(what, sizeof(what), "t%zu %s %s", i, inst, name);
	check(value_at(s, i, inst, name), st, want, what);
}

static void
check_total(struct series *s, size_t i, const char *name, enum value_status st, double want)
{
	char what[200];
	snprintf(what, sizeof(what), "t%zu _Total %s", i, name);
	check(total_at(s, i, name), st, want, what);
}

/* The instances of rs are exactly names (in order), NULL-terminated. */
static void
check_instances(const struct raw_set *rs, const char *const *names)
{
	size_t n = 0;
	for (; names[n]; n++) {
		if (n >= rs->ninstances)
			fail_msg("instance %zu: none, want %s", n, names[n]);
		if (strcmp(raw_name_at(rs, n), names[n]) != 0)
			fail_msg("instance %zu: %s, want %s", n, raw_name_at(rs, n), names[n]);
	}
	if (rs->ninstances != n)
		fail_msg("%zu instances, want %zu (extra: %s)", rs->ninstances, n,
			 raw_name_at(rs, n));
}

/* Parse the NUL-terminated line s. */
static int
parse(const char *s, struct mountinfo_line *ml)
{
	return mountinfo_parse_line(s, strlen(s), ml);
}

/* Nonzero when p[0..len) is the string want. */
static int
is(const char *p, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(p, want, len) == 0;
}

static void
test_parse_line(void **state)
{
	struct mountinfo_line ml;
	(void)state;

	/* proc(5)'s example: one optional field */
	assert_int_equal(parse("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root "
			       "rw,errors=continue",
			       &ml),
			 0);
	assert_int_equal(ml.major, 98);
	assert_int_equal(ml.minor, 0);
	assert_true(is(ml.root, ml.root_len, "/mnt1"));
	assert_true(is(ml.point, ml.point_len, "/mnt2"));
	assert_true(is(ml.fstype, ml.fstype_len, "ext3"));
	assert_true(is(ml.source, ml.source_len, "/dev/root"));
	assert_true(is(ml.super, ml.super_len, "rw,errors=continue"));

	/* no optional field; escapes stay in the strings */
	assert_int_equal(parse("27 22 8:18 / /mnt/my\\040disk rw - ext4 /dev/sdb2 rw", &ml), 0);
	assert_int_equal(ml.major, 8);
	assert_int_equal(ml.minor, 18);
	assert_true(is(ml.point, ml.point_len, "/mnt/my\\040disk"));
	assert_true(is(ml.source, ml.source_len, "/dev/sdb2"));
	assert_true(is(ml.super, ml.super_len, "rw"));

	/* several optional fields, a large anonymous minor */
	assert_int_equal(parse("30 25 0:1234 /@s /home/.s rw shared:34 master:2 propagate_from:1 "
			       "- btrfs /dev/mapper/vg-data rw,subvol=/@s",
			       &ml),
			 0);
	assert_int_equal(ml.major, 0);
	assert_int_equal(ml.minor, 1234);
	assert_true(is(ml.source, ml.source_len, "/dev/mapper/vg-data"));

	/* a source the kernel left empty */
	assert_int_equal(parse("40 1 0:50 / /x rw - fuse", &ml), 0);
	assert_true(is(ml.fstype, ml.fstype_len, "fuse"));
	assert_int_equal(ml.source_len, 0);
}

static void
test_parse_line_bad(void **state)
{
	struct mountinfo_line ml;
	(void)state;

	assert_int_equal(parse("", &ml), -1);
	assert_int_equal(parse("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 ext3 /dev/root rw",
			       &ml),
			 -1); /* no separator */
	assert_int_equal(parse("36 35 98-0 / /m rw - ext3 /dev/root rw", &ml), -1);
	assert_int_equal(parse("36 35 98: / /m rw - ext3 /dev/root rw", &ml), -1);
	assert_int_equal(parse("36 35 x:0 / /m rw - ext3 /dev/root rw", &ml), -1);
	assert_int_equal(parse("36 35 4294967296:0 / /m rw - ext3 /dev/root rw", &ml), -1);
	assert_int_equal(parse("36 35 8:1 / /m rw -", &ml), -1); /* no type */
	assert_int_equal(parse("36 35 8:1 /", &ml), -1);
}

#define TYPE(s) (s), strlen(s)

/* Which filesystems are asked in the read (their statfs answers from
 * memory) and which may sit on the way to one; others, and a type that
 * only starts like one, go to the helper thread. */
static void
test_direct_types(void **state)
{
	(void)state;
	const char *in_memory[] = { "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs" };
	const char *walk_only[] = { "tmpfs", "ramfs", "devtmpfs" };
	const char *neither[] = { "nfs",  "nfs4",	  "cifs", "fuse", "fuseblk", "overlay",
				  "vfat", "squashfs", "proc", "ext",  "ext44",   "" };

	for (size_t i = 0; i < sizeof(in_memory) / sizeof(in_memory[0]); i++) {
		assert_true(mountinfo_statfs_in_memory(TYPE(in_memory[i])));
		assert_true(mountinfo_walk_in_memory(TYPE(in_memory[i])));
	}
	for (size_t i = 0; i < sizeof(walk_only) / sizeof(walk_only[0]); i++) {
		assert_false(mountinfo_statfs_in_memory(TYPE(walk_only[i])));
		assert_true(mountinfo_walk_in_memory(TYPE(walk_only[i])));
	}
	for (size_t i = 0; i < sizeof(neither) / sizeof(neither[0]); i++) {
		assert_false(mountinfo_statfs_in_memory(TYPE(neither[i])));
		assert_false(mountinfo_walk_in_memory(TYPE(neither[i])));
	}
	/* a type is the token's length, not a prefix of it */
	assert_true(mountinfo_statfs_in_memory("ext4 /dev/vda", 4));
	assert_false(mountinfo_statfs_in_memory("ext4 /dev/vda", 3));
}

/* Project quotas among a superblock's options (statfs then reads the
 * project's quota, perhaps from the disk): a whole option's name, with or
 * without a value, anywhere in the list. */
static void
test_project_quota(void **state)
{
	(void)state;
	assert_true(mountinfo_project_quota(TYPE("rw,prjquota")));
	assert_true(mountinfo_project_quota(TYPE("prjquota")));
	assert_true(mountinfo_project_quota(TYPE("rw,relatime,attr2,inode64,logbufs=8,pquota")));
	assert_true(mountinfo_project_quota(TYPE("rw,pqnoenforce,noquota")));
	assert_true(mountinfo_project_quota(TYPE("rw,prjjquota=aquota.group,jqfmt=vfsv0")));
	assert_false(mountinfo_project_quota(TYPE("rw,usrquota,grpquota")));
	assert_false(mountinfo_project_quota(TYPE("rw,errors=remount-ro")));
	assert_false(mountinfo_project_quota(TYPE("rw,noprjquota")));
	assert_false(mountinfo_project_quota(TYPE("rw,prjquotas")));
	assert_false(mountinfo_project_quota(TYPE("")));
	assert_false(mountinfo_project_quota(TYPE(",")));
	/* the list's length, not its NUL */
	assert_false(mountinfo_project_quota("rw,prjquota", 2));
}

/* A mount point on the way to a path: the path itself, "/", or a
 * directory above it at a '/'; not a sibling that shares a prefix. */
static void
test_point_on_path(void **state)
{
	(void)state;
	assert_true(mountinfo_point_on_path(TYPE("/"), TYPE("/")));
	assert_true(mountinfo_point_on_path(TYPE("/"), TYPE("/srv/data")));
	assert_true(mountinfo_point_on_path(TYPE("/srv"), TYPE("/srv/data")));
	assert_true(mountinfo_point_on_path(TYPE("/srv/data"), TYPE("/srv/data")));
	assert_true(mountinfo_point_on_path(TYPE("/mnt/my disk"), TYPE("/mnt/my disk/x")));
	assert_false(mountinfo_point_on_path(TYPE("/sr"), TYPE("/srv/data")));
	assert_false(mountinfo_point_on_path(TYPE("/srv/data2"), TYPE("/srv/data")));
	assert_false(mountinfo_point_on_path(TYPE("/srv/data"), TYPE("/srv")));
	assert_false(mountinfo_point_on_path(TYPE("/srv/dat"), TYPE("/srv/data")));
	assert_false(mountinfo_point_on_path(TYPE("/"), TYPE("")));
	assert_false(mountinfo_point_on_path(TYPE("/"), TYPE("relative")));
}

/* Decode s and compare with want (len_want bytes, may hold NUL-free bytes). */
static void
check_unescape(const char *s, const char *want)
{
	char dst[128];
	size_t n = mountinfo_unescape(s, strlen(s), dst);

	if (n != strlen(want) || strcmp(dst, want) != 0)
		fail_msg("unescape '%s': '%s' (%zu), want '%s'", s, dst, n, want);
}

static void
test_unescape(void **state)
{
	(void)state;
	check_unescape("/mnt/my\\040disk", "/mnt/my disk");
	check_unescape("/mnt/my\\040(old)\\040disk", "/mnt/my (old) disk");
	check_unescape("/a\\011b", "/a\tb");
	check_unescape("/a\\012b", "/a\nb");
	check_unescape("/a\\134b", "/a\\b");
	check_unescape("\\134\\134", "\\\\");
	check_unescape("/x\\043y", "/x#y");    /* any \ooo */
	check_unescape("/plain", "/plain");
	check_unescape("", "");
	check_unescape("/a\\b", "/a\\b");      /* not an escape: kept */
	check_unescape("/a\\08x", "/a\\08x");  /* 8 is no octal digit */
	check_unescape("/a\\400", "/a\\400");  /* above \377 */
	check_unescape("/a\\04", "/a\\04");    /* cut short */
	check_unescape("/a\\", "/a\\");
}

static void
test_statvfs_line(void **state)
{
	struct mountinfo_statvfs_line sl;
	const char *l = "4096 262144 131072 131000 65536 32768 32000 /mnt/my\\040disk";
	(void)state;

	assert_int_equal(mountinfo_parse_statvfs_line(l, strlen(l), &sl), 0);
	assert_int_equal(sl.values[SV_FRSIZE], 4096);
	assert_int_equal(sl.values[SV_BLOCKS], 262144);
	assert_int_equal(sl.values[SV_BFREE], 131072);
	assert_int_equal(sl.values[SV_BAVAIL], 131000);
	assert_int_equal(sl.values[SV_FILES], 65536);
	assert_int_equal(sl.values[SV_FFREE], 32768);
	assert_int_equal(sl.values[SV_FAVAIL], 32000);
	assert_true(is(sl.point, sl.point_len, "/mnt/my\\040disk"));

	l = "4096 1 2 3 4 5 6";
	assert_int_equal(mountinfo_parse_statvfs_line(l, strlen(l), &sl), -1); /* no point */
	l = "4096 1 2 3 4 5 x /";
	assert_int_equal(mountinfo_parse_statvfs_line(l, strlen(l), &sl), -1);
	l = "4096 1 2 3 4 5 /";
	assert_int_equal(mountinfo_parse_statvfs_line(l, strlen(l), &sl), -1);
	l = "";
	assert_int_equal(mountinfo_parse_statvfs_line(l, strlen(l), &sl), -1);
}

/* The block counters are PhysicalDisk's, the same in every respect. */
static void
test_same_as_physicaldisk(void **state)
{
	const struct counter_set *pd = provider_physicaldisk.set, *ld = ld_set();
	(void)state;

	assert_string_equal(ld->name, "LogicalDisk");
	assert_true(ld->has_total);
	assert_true(ld->multi_instance);
	assert_int_equal(ld->inflight_field, pd->inflight_field);
	assert_int_equal(ld->ncounters, pd->ncounters + 3);
	for (size_t f = 0; f < pd->nfields; f++) {
		assert_string_equal(ld->fields[f].name, pd->fields[f].name);
		assert_int_equal(ld->fields[f].width, pd->fields[f].width);
		assert_int_equal(ld->fields[f].kind, pd->fields[f].kind);
		assert_int_equal(ld->fields[f].bound, pd->fields[f].bound);
	}
	for (size_t i = 0; i < pd->ncounters; i++) {
		const struct counter_desc *p = &pd->counters[i], *l = &ld->counters[i];
		assert_string_equal(l->name, p->name);
		assert_int_equal(l->type, p->type);
		assert_memory_equal(l->num, p->num, sizeof(p->num));
		assert_memory_equal(l->den, p->den, sizeof(p->den));
		assert_int_equal(l->mul, p->mul);
		assert_true(l->scale == p->scale);
		assert_int_equal(l->total, p->total);
		assert_int_equal(l->clamp100, p->clamp100);
		assert_string_equal(l->unit, p->unit);
		assert_non_null(l->help);
	}
	for (size_t i = 0; i < ld->ncounters; i++)
		assert_true(ld->counters[i].help && ld->counters[i].help[0]);
	/* space counters: one sample each; bytes weight the totals */
	assert_int_equal(counter("% Free Space")->type, CT_FRACTION);
	assert_int_not_equal(counter("% Free Space")->mul, 0);
	assert_int_equal(counter("Free Megabytes")->mul, counter("% Free Space")->mul);
	assert_int_equal(counter("% Free Inodes")->mul, 0);
}

static void
test_basic_instances(void **state)
{
	struct series s;
	(void)state;

	series_load(&s, "ldisk-basic", 3, 0);
	/* proc, /dev (udev), overlay, tmpfs: no device; /mnt/bind is sdb2 again
	 * and /home/.snapshots vg-data again: the first mount point wins */
	check_instances(&s.rs[0], (const char *const[]){ "/", "/home", "/srv/raid", "/mnt/my disk",
							 "/mnt/my (old) disk", "/boot/efi",
							 NULL });
	check_instances(&s.rs[1], (const char *const[]){ "/", "/home", "/srv/raid", "/mnt/my disk",
							 "/mnt/my (old) disk", "/boot/efi",
							 "/media/usb", NULL });
	check_instances(&s.rs[2], (const char *const[]){ "/", "/home", "/srv/raid", "/mnt/my disk",
							 "/boot/efi", "/media/usb", NULL });
	/* identity: the device's dev_t (8:1 is 8 << 20 | 1) */
	assert_int_equal(raw_identity(&s.rs[0], find(&s.rs[0], "/")), (8u << 20) | 1u);
	assert_int_equal(raw_identity(&s.rs[0], find(&s.rs[0], "/home")), (253u << 20) | 0u);
	assert_int_equal(raw_identity(&s.rs[0], find(&s.rs[0], "/srv/raid")), (9u << 20) | 0u);
	assert_int_equal(raw_identity(&s.rs[0], find(&s.rs[0], "/mnt/my disk")), (8u << 20) | 18u);
	series_free(&s);
}

/* Every block counter for / (sda1) over t0 -> t1, deltas:
 * reads 200, reads merged 20, sectors read 4000, ms reading 300,
 * writes 100, writes merged 30, sectors written 2048, ms writing 500,
 * I/Os in progress 3 (now), io_ticks 600, time_in_queue 900,
 * discards 10, discards merged 1, sectors discarded 8192, ms discarding 40,
 * flushes 25, ms flushing 50. The whole disk sda moves otherwise. */
static void
test_basic_block_counters(void **state)
{
	struct series s;
	(void)state;

	series_load(&s, "ldisk-basic", 3, 0);
	check_at(&s, 1, "/", "Disk Reads/sec", ST_OK, 100);            /* 200 / 2 */
	check_at(&s, 1, "/", "Disk Writes/sec", ST_OK, 50);            /* 100 / 2 */
	check_at(&s, 1, "/", "Disk Transfers/sec", ST_OK, 150);        /* 300 / 2 */
	check_at(&s, 1, "/", "Disk Read Bytes/sec", ST_OK, 1024000);   /* 4000 * 512 / 2 */
	check_at(&s, 1, "/", "Disk Write Bytes/sec", ST_OK, 524288);   /* 2048 * 512 / 2 */
	check_at(&s, 1, "/", "Disk Bytes/sec", ST_OK, 1548288);        /* 6048 * 512 / 2 */
	check_at(&s, 1, "/", "Avg. Disk Bytes/Read", ST_OK, 10240);    /* 4000 * 512 / 200 */
	check_at(&s, 1, "/", "Avg. Disk Bytes/Write", ST_OK, 10485.76); /* 2048 * 512 / 100 */
	check_at(&s, 1, "/", "Avg. Disk Bytes/Transfer", ST_OK, 10321.92); /* 6048*512/300 */
	check_at(&s, 1, "/", "Avg. Disk sec/Read", ST_OK, 0.0015);     /* 300 ms / 200 */
	check_at(&s, 1, "/", "Avg. Disk sec/Write", ST_OK, 0.005);     /* 500 ms / 100 */
	check_at(&s, 1, "/", "Avg. Disk sec/Transfer", ST_OK, 0.8 / 300); /* 800 ms / 300 */
	check_at(&s, 1, "/", "Avg. Disk Read Queue Length", ST_OK, 0.15);  /* 0.3 s / 2 */
	check_at(&s, 1, "/", "Avg. Disk Write Queue Length", ST_OK, 0.25); /* 0.5 s / 2 */
	check_at(&s, 1, "/", "Avg. Disk Queue Length", ST_OK, 0.4);    /* 0.8 s / 2 */
	check_at(&s, 1, "/", "% Disk Time", ST_OK, 40);                /* 100 * 0.4 */
	check_at(&s, 1, "/", "% Disk Read Time", ST_OK, 15);           /* 100 * 0.15 */
	check_at(&s, 1, "/", "% Disk Write Time", ST_OK, 25);          /* 100 * 0.25 */
	check_at(&s, 1, "/", "% Idle Time", ST_OK, 70);                /* 100 * (1 - 0.6/2) */
	check_at(&s, 1, "/", "Current Disk Queue Length", ST_OK, 3);   /* RAW 3 */
	check_at(&s, 1, "/", "Avg. Disk Queue Size", ST_OK, 0.45);     /* 0.9 s / 2 */
	check_at(&s, 1, "/", "% Disk Busy Time", ST_OK, 30);           /* 100 * 0.6 / 2 */
	check_at(&s, 1, "/", "Merged Reads/sec", ST_OK, 10);           /* 20 / 2 */
	check_at(&s, 1, "/", "Merged Writes/sec", ST_OK, 15);          /* 30 / 2 */
	check_at(&s, 1, "/", "Discards/sec", ST_OK, 5);                /* 10 / 2 */
	check_at(&s, 1, "/", "Discard Bytes/sec", ST_OK, 2097152);     /* 8192 * 512 / 2 */
	check_at(&s, 1, "/", "Avg. Disk sec/Discard", ST_OK, 0.004);   /* 40 ms / 10 */
	check_at(&s, 1, "/", "Flushes/sec", ST_OK, 12.5);              /* 25 / 2 */
	check_at(&s, 1, "/", "Avg. Disk sec/Flush", ST_OK, 0.002);     /* 50 ms / 25 */
	/* t0: FIRST; t2: sda1 deltas reads 5, writes 10, sectors written 80 */
	check_at(&s, 0, "/", "Disk Reads/sec", ST_FIRST, 0);
	check_at(&s, 0, "/", "Current Disk Queue Length", ST_FIRST, 1); /* RAW exists */
	check_at(&s, 2, "/", "Disk Reads/sec", ST_OK, 2.5);            /* 5 / 2 */
	check_at(&s, 2, "/", "Disk Write Bytes/sec", ST_OK, 20480);    /* 80 * 512 / 2 */

	/* /home: btrfs on /dev/mapper/vg-data = dm-0 (not dm-1, vg-swap):
	 * writes 50, sectors written 1000, ms writing 100, io_ticks 80 */
	check_at(&s, 1, "/home", "Disk Writes/sec", ST_OK, 25);        /* 50 / 2 */
	check_at(&s, 1, "/home", "Disk Write Bytes/sec", ST_OK, 256000); /* 1000 * 512 / 2 */
	check_at(&s, 1, "/home", "Avg. Disk sec/Write", ST_OK, 0.002); /* 100 ms / 50 */
	check_at(&s, 1, "/home", "% Disk Busy Time", ST_OK, 4);        /* 100 * 0.08 / 2 */
	check_at(&s, 1, "/home", "Disk Reads/sec", ST_OK, 0);

	/* /srv/raid: md0, a 15-field line (no flush fields): reads 10,
	 * sectors read 160, ms reading 20 */
	check_at(&s, 1, "/srv/raid", "Disk Reads/sec", ST_OK, 5);      /* 10 / 2 */
	check_at(&s, 1, "/srv/raid", "Disk Read Bytes/sec", ST_OK, 40960); /* 160 * 512 / 2 */
	check_at(&s, 1, "/srv/raid", "Avg. Disk sec/Read", ST_OK, 0.002); /* 20 ms / 10 */
	check_at(&s, 1, "/srv/raid", "Discards/sec", ST_OK, 0);
	check_at(&s, 1, "/srv/raid", "Flushes/sec", ST_UNSUPPORTED, 0);
	check_at(&s, 1, "/srv/raid", "Avg. Disk sec/Flush", ST_UNSUPPORTED, 0);

	/* /mnt/my disk: sdb2, the partition, not sdb (77777 sectors):
	 * writes 4, sectors written 32768 (16 MiB), ms writing 40 */
	check_at(&s, 1, "/mnt/my disk", "Disk Write Bytes/sec", ST_OK, 8388608); /* 32768*512/2 */
	check_at(&s, 1, "/mnt/my disk", "Avg. Disk Bytes/Write", ST_OK, 4194304); /* 32768*512/4 */
	check_at(&s, 1, "/mnt/my (old) disk", "Disk Transfers/sec", ST_OK, 0);   /* sdb1 idle */
	check_at(&s, 1, "/boot/efi", "Disk Transfers/sec", ST_OK, 0);            /* sdc1 idle */

	/* /media/usb (sdd1) appears in t1: NEW, then writes 8, sectors 2048 */
	check_at(&s, 1, "/media/usb", "Disk Write Bytes/sec", ST_NEW, 0);
	check_at(&s, 2, "/media/usb", "Disk Write Bytes/sec", ST_OK, 524288); /* 2048*512/2 */
	check_at(&s, 2, "/media/usb", "Disk Writes/sec", ST_OK, 4);           /* 8 / 2 */

	/* _Total sums sectors written of the instances in both reads:
	 * t1: (2048 + 1000 + 0 + 32768 + 0 + 0) * 512 / 2 = 9168896 (usb is NEW)
	 * t2: (80 + 2048) * 512 / 2 = 544768 (the old disk is gone) */
	check_total(&s, 1, "Disk Write Bytes/sec", ST_OK, 9168896);
	check_total(&s, 2, "Disk Write Bytes/sec", ST_OK, 544768);
	/* % Idle Time is a mean over the 6 paired instances at t1: io_ticks
	 * 600 + 80 + 20 + 40 = 740 ms, / 6 = 123.33 ms, 100 * (1 - 0.12333/2) */
	check_total(&s, 1, "% Idle Time", ST_OK, 100.0 * (1.0 - 0.740 / 6 / 2));
	/* Flushes/sec: md0 lacks the field and adds nothing: 25 / 2 */
	check_total(&s, 1, "Flushes/sec", ST_OK, 12.5);
	series_free(&s);
}

/* The space counters, from DIR/statvfs (frsize blocks bfree bavail files
 * ffree favail point). % Free Space = bavail / (blocks - bfree + bavail). */
static void
test_basic_space(void **state)
{
	struct series s;
	(void)state;

	series_load(&s, "ldisk-basic", 3, 0);
	/* /: 4096 1050000 300000 250000 655360 600000 600000
	 * 250000 / (1050000 - 300000 + 250000) = 250000 / 1000000 */
	check_at(&s, 0, "/", "% Free Space", ST_FIRST, 25);
	check_at(&s, 1, "/", "% Free Space", ST_OK, 25);
	check_at(&s, 1, "/", "Free Megabytes", ST_OK, 976.5625);     /* 250000 * 4096 / 2^20 */
	check_at(&s, 1, "/", "% Free Inodes", ST_OK, 91.552734375);  /* 600000 / 655360 */
	/* /home (btrfs): 4096 2000000 1000000 1000000, f_files 0 */
	check_at(&s, 1, "/home", "% Free Space", ST_OK, 50);         /* 1e6 / 2e6 */
	check_at(&s, 1, "/home", "Free Megabytes", ST_OK, 3906.25);  /* 1e6 * 4096 / 2^20 */
	check_at(&s, 1, "/home", "% Free Inodes", ST_UNSUPPORTED, 0);
	/* /srv/raid: 1024 4200000 1200000 1000000 250000 210000 200000 */
	check_at(&s, 1, "/srv/raid", "% Free Space", ST_OK, 25);     /* 1e6 / 4e6 */
	check_at(&s, 1, "/srv/raid", "Free Megabytes", ST_OK, 976.5625); /* 1e6 * 1024 / 2^20 */
	check_at(&s, 1, "/srv/raid", "% Free Inodes", ST_OK, 80);    /* 200000 / 250000 */
	/* /mnt/my disk: t0 4096 262144 131072 131072 65536 32768 32768,
	 * t1 bfree = bavail = 122880, favail 32760 (32 MiB written) */
	check_at(&s, 0, "/mnt/my disk", "% Free Space", ST_FIRST, 50); /* 131072 / 262144 */
	check_at(&s, 0, "/mnt/my disk", "Free Megabytes", ST_FIRST, 512); /* 131072 * 4096 / 2^20 */
	check_at(&s, 1, "/mnt/my disk", "% Free Space", ST_OK, 46.875); /* 122880 / 262144 */
	check_at(&s, 1, "/mnt/my disk", "Free Megabytes", ST_OK, 480); /* 122880 * 4096 / 2^20 */
	check_at(&s, 1, "/mnt/my disk", "% Free Inodes", ST_OK, 49.98779296875); /* 32760/65536 */
	/* /mnt/my (old) disk: 2048 100000 10000 10000 1000 250 250 */
	check_at(&s, 1, "/mnt/my (old) disk", "% Free Space", ST_OK, 10); /* 1e4 / 1e5 */
	/* 1e4 * 2048 / 2^20 */
	check_at(&s, 1, "/mnt/my (old) disk", "Free Megabytes", ST_OK, 19.53125);
	check_at(&s, 1, "/mnt/my (old) disk", "% Free Inodes", ST_OK, 25); /* 250 / 1000 */
	/* /boot/efi (vfat): 512 1048576 524288 524288 0 0 0 */
	check_at(&s, 1, "/boot/efi", "% Free Space", ST_OK, 50);
	check_at(&s, 1, "/boot/efi", "Free Megabytes", ST_OK, 256); /* 524288 * 512 / 2^20 */
	check_at(&s, 1, "/boot/efi", "% Free Inodes", ST_UNSUPPORTED, 0);
	/* /media/usb: no statvfs line in t1; in t2 4096 66000 34000 32000 16384
	 * 4096 4096: 32000 / (66000 - 34000 + 32000) = 32000 / 64000 */
	check_at(&s, 1, "/media/usb", "% Free Space", ST_UNSUPPORTED, 0);
	check_at(&s, 1, "/media/usb", "Free Megabytes", ST_UNSUPPORTED, 0);
	check_at(&s, 2, "/media/usb", "% Free Space", ST_OK, 50);
	check_at(&s, 2, "/media/usb", "Free Megabytes", ST_OK, 125); /* 32000 * 4096 / 2^20 */
	check_at(&s, 2, "/media/usb", "% Free Inodes", ST_OK, 25);   /* 4096 / 16384 */

	/* _Total % Free Space adds bytes (each term times f_frsize). t1:
	 * free  250000*4096 + 1e6*4096 + 1e6*1024 + 122880*4096 + 1e4*2048
	 *       + 524288*512 = 6936231936
	 * room  1e6*4096 + 2e6*4096 + 4e6*1024 + 262144*4096 + 1e5*2048
	 *       + 1048576*512 = 18199412736
	 * (the mean of the percentages would be 34.48) */
	check_total(&s, 1, "% Free Space", ST_OK, 100.0 * 6936231936.0 / 18199412736.0);
	check_total(&s, 1, "Free Megabytes", ST_OK, 6936231936.0 / MB); /* 6614.90625 */
	/* inodes: (600000 + 0 + 200000 + 32760 + 250 + 0)
	 *       / (655360 + 0 + 250000 + 65536 + 1000 + 0) = 833010 / 971896 */
	check_total(&s, 1, "% Free Inodes", ST_OK, 100.0 * 833010.0 / 971896.0);
	/* t2: the old disk out (-1e4*2048, -1e5*2048), usb in (+32000*4096,
	 * +64000*4096): 7046823936 / 18256756736 */
	check_total(&s, 2, "% Free Space", ST_OK, 100.0 * 7046823936.0 / 18256756736.0);
	check_total(&s, 2, "Free Megabytes", ST_OK, 7046823936.0 / MB); /* 6720.375 */
	/* inodes: 833010 - 250 + 4096 = 836856 over 971896 - 1000 + 16384 = 987280 */
	check_total(&s, 2, "% Free Inodes", ST_OK, 100.0 * 836856.0 / 987280.0);
	series_free(&s);
}

/* ldisk-over: sda1 on /etc/hosts (a bind-mounted file, listed first) and on
 * / from /dev/root (field 3, 8:1); /dev/sdc1's /sub mounted over /data
 * (sdb1) in t1 and gone again in t2; no statvfs file in t1. */
static void
test_over(void **state)
{
	struct series s;
	(void)state;

	series_load(&s, "ldisk-over", 3, 0);
	for (size_t i = 0; i < 3; i++)
		check_instances(&s.rs[i], (const char *const[]){ "/", "/data", NULL });
	assert_int_equal(raw_identity(&s.rs[0], find(&s.rs[0], "/data")), (8u << 20) | 17u);
	assert_int_equal(raw_identity(&s.rs[1], find(&s.rs[1], "/data")), (8u << 20) | 33u);
	assert_int_equal(raw_identity(&s.rs[2], find(&s.rs[2], "/data")), (8u << 20) | 17u);
	/* sda1: 40 writes, 640 sectors, then 20 and 160 */
	check_at(&s, 1, "/", "Disk Write Bytes/sec", ST_OK, 163840); /* 640 * 512 / 2 */
	check_at(&s, 2, "/", "Disk Write Bytes/sec", ST_OK, 40960);  /* 160 * 512 / 2 */
	check_at(&s, 2, "/", "Disk Writes/sec", ST_OK, 10);          /* 20 / 2 */
	/* another device under the same name: RESET, either way */
	check_at(&s, 1, "/data", "Disk Reads/sec", ST_RESET, 0);
	check_at(&s, 2, "/data", "Disk Reads/sec", ST_RESET, 0);
	check_at(&s, 1, "/data", "Current Disk Queue Length", ST_OK, 0);
	/* space: t0 / 4096 1000 500 400 100 60 50: 400 / (1000 - 500 + 400) */
	check_at(&s, 0, "/", "% Free Space", ST_FIRST, 100.0 * 400 / 900);
	check_at(&s, 0, "/", "% Free Inodes", ST_FIRST, 50);        /* 50 / 100 */
	check_at(&s, 1, "/", "% Free Space", ST_UNSUPPORTED, 0);    /* no statvfs file */
	check_at(&s, 1, "/data", "Free Megabytes", ST_UNSUPPORTED, 0);
	/* t2 /data 4096 2000 1000 1000 400 200 200 */
	check_at(&s, 2, "/data", "% Free Space", ST_OK, 50);         /* 1000 / 2000 */
	check_at(&s, 2, "/data", "Free Megabytes", ST_OK, 1000.0 * 4096 / MB);
	series_free(&s);
}

/* A root with no proc/self/mountinfo: no instances, no error. */
static void
test_no_mountinfo(void **state)
{
	const char *root = "../fixtures/disk-old/t0";
	struct err err = { { 0 } };
	struct raw_set rs;
	struct procfs *fs = procfs_new(&root, 1);
	struct provider_ctx ctx = { .fs = fs, .needed = 0 };
	(void)state;

	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	void *st = provider_logicaldisk.open(&ctx, &err);
	assert_non_null(st);
	raw_set_init(&rs, ld_set());
	raw_set_begin(&rs);
	assert_int_equal(provider_logicaldisk.read(st, &rs, &err), 0);
	assert_int_equal(rs.ninstances, 0);
	provider_logicaldisk.close(st);
	raw_set_free(&rs);
	procfs_free(fs);
}

/* Only the fields some counter needs are recorded. */
static void
test_needed(void **state)
{
	struct series s;
	const struct raw_instance *ri;
	(void)state;

	series_load(&s, "ldisk-basic", 2, counter_fields(counter("% Free Space")));
	ri = find(&s.rs[1], "/");
	assert_non_null(ri);
	/* f_frsize, f_blocks, f_bfree, f_bavail: fields 17 .. 20 */
	assert_int_equal(raw_present(&s.rs[1], ri), (uint64_t)0xF << 17);
	check_at(&s, 1, "/", "% Free Space", ST_OK, 25);
	check_at(&s, 1, "/", "Free Megabytes", ST_OK, 976.5625);
	series_free(&s);

	series_load(&s, "ldisk-basic", 2, counter_fields(counter("Disk Reads/sec")));
	ri = find(&s.rs[1], "/");
	assert_non_null(ri);
	assert_int_equal(raw_present(&s.rs[1], ri), (uint64_t)1); /* reads */
	check_at(&s, 1, "/", "Disk Reads/sec", ST_OK, 100);
	check_at(&s, 1, "/", "% Free Space", ST_UNSUPPORTED, 0);
	series_free(&s);
}

/* Live: the helper thread's figures are statvfs(3)'s, for every instance,
 * read after read; the steady read allocates nothing new in the set. */
static void
test_live(void **state)
{
	struct err err = { { 0 } };
	struct raw_set rs;
	struct procfs *fs = procfs_new(NULL, 0);
	struct provider_ctx ctx = { .fs = fs, .needed = 0 };
	const struct counter_set *set = ld_set();
	unsigned frsize = 0, blocks = 0, files = 0;
	(void)state;

	for (size_t f = 0; f < set->nfields; f++) {
		if (strcmp(set->fields[f].name, "f_frsize") == 0)
			frsize = (unsigned)f;
		if (strcmp(set->fields[f].name, "f_blocks") == 0)
			blocks = (unsigned)f;
		if (strcmp(set->fields[f].name, "f_files") == 0)
			files = (unsigned)f;
	}
	assert_true(frsize && blocks && files);
	void *st = provider_logicaldisk.open(&ctx, &err);
	assert_non_null(st);
	raw_set_init(&rs, set);
	for (int round = 0; round < 3; round++) {
		assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
		raw_set_begin(&rs);
		assert_int_equal(provider_logicaldisk.read(st, &rs, &err), 0);
		for (size_t i = 0; i < rs.ninstances; i++) {
			const struct raw_instance *ri = &rs.inst[i];
			struct statvfs sv;
			if (statvfs(raw_name(&rs, ri), &sv) != 0)
				continue;
			if (!(raw_present(&rs, ri) & ((uint64_t)1 << blocks)))
				fail_msg("%s: no f_blocks in round %d", raw_name(&rs, ri), round);
			assert_int_equal(raw_get(&rs, ri, frsize), sv.f_frsize);
			assert_int_equal(raw_get(&rs, ri, blocks), sv.f_blocks);
			assert_int_equal(raw_get(&rs, ri, files), sv.f_files);
		}
	}
	provider_logicaldisk.close(st);
	raw_set_free(&rs);
	procfs_free(fs);
}

/* Read together as the engine reads them, PhysicalDisk first, the two
 * sets read proc/diskstats once a generation: LogicalDisk takes the lines
 * of PhysicalDisk's pass (so the file rewritten between the two reads
 * changes nothing for it, and the bytes it reads are far fewer than the
 * file's), and reads the file itself when alone. The tree is a copy of
 * ldisk-basic/t0 under /tmp, its diskstats grown by 3,000 loop lines. */
static void
test_one_pass_for_both_sets(void **state)
{
	char root[128], cmd[1400], path[300];
	const char *roots[1] = { root };
	struct err err = { { 0 } };
	struct raw_set pd, ld;
	(void)state;

	long size = gc_grown_disk_tree("ldisk", root, sizeof(root));
	snprintf(path, sizeof(path), "%s/proc/diskstats", root);
	struct procfs *fs = procfs_new(roots, 1);
	struct provider_ctx ctx = { .fs = fs };
	raw_set_init(&pd, provider_physicaldisk.set);
	raw_set_init(&ld, ld_set());
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	void *pst = provider_physicaldisk.open(&ctx, &err), *lst = provider_logicaldisk.open(&ctx, &err);
	assert_non_null(pst);
	assert_non_null(lst);
	for (int gen = 0; gen < 4; gen++) {
		if (gen)
			assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
		raw_set_begin(&pd);
		raw_set_begin(&ld);
		if (gen != 2)
			assert_int_equal(provider_physicaldisk.read(pst, &pd, &err), 0);
		if (gen == 1) {
			/* sda1's reads 2001 -> 9001, after PhysicalDisk's pass (in
			 * place: the file is kept open) */
			snprintf(cmd, sizeof(cmd), "sed 's/ sda1 2001 / sda1 9001 /' '%s' > '%s.new' && "
				 "cat '%s.new' > '%s'", path, path, path, path);
			assert_int_equal(system(cmd), 0);
		}
		unsigned long long before = gc_rchar();
		assert_int_equal(provider_logicaldisk.read(lst, &ld, &err), 0);
		unsigned long long got = gc_rchar() - before;
		/* its own pass when alone (and at gen 0, to build its mounts) */
		if (gen == 0 || gen == 2)
			assert_true(got >= (unsigned long long)size);
		else
			assert_true(got < (unsigned long long)size / 4);
		const struct raw_instance *slash = find(&ld, "/");
		assert_non_null(slash);
		/* gen 1: the pass's lines, not the file's new text; gen 2: alone,
		 * its own pass; gen 3: PhysicalDisk's pass again */
		assert_int_equal(raw_get(&ld, slash, 0), gen <= 1 ? 2001 : 9001);
	}
	provider_logicaldisk.close(lst);
	provider_physicaldisk.close(pst);
	raw_set_free(&pd);
	raw_set_free(&ld);
	procfs_free(fs);
	gc_remove_tree(root);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_line),
		cmocka_unit_test(test_parse_line_bad),
		cmocka_unit_test(test_unescape),
		cmocka_unit_test(test_direct_types),
		cmocka_unit_test(test_point_on_path),
		cmocka_unit_test(test_project_quota),
		cmocka_unit_test(test_statvfs_line),
		cmocka_unit_test(test_same_as_physicaldisk),
		cmocka_unit_test(test_basic_instances),
		cmocka_unit_test(test_basic_block_counters),
		cmocka_unit_test(test_basic_space),
		cmocka_unit_test(test_over),
		cmocka_unit_test(test_no_mountinfo),
		cmocka_unit_test(test_needed),
		cmocka_unit_test(test_one_pass_for_both_sets),
		cmocka_unit_test(test_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
