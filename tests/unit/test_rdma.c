/*
 * test_rdma.c - the RDMA Activity provider (COUNTERS.md section 7): its
 * helpers, and every counter over the fixture series tests/fixtures/
 * rdma-basic (made by its gen.sh after the kernel's
 * Documentation/ABI/stable/sysfs-class-infiniband layout) through derive.c,
 * with the arithmetic beside each expected value: the source order (port
 * hw_counters, else the device's on a one-port device; CM per port, else
 * infiniband_cm), the Missing Counter Mask bits, data counted in 4-octet
 * units, a saturated legacy 32-bit counter giving no rate, a device that
 * appears and one that vanishes; what is read when few counters are
 * wanted; and no instances where there is no sys/class/infiniband (this
 * machine has none). The describe hook's notes (-q -x -v, -l -v): a
 * saturated legacy counter, a counter with no source or one of two. The
 * rdma netlink dump parsers behind RDMA Active Connections on hand-built
 * messages: nested summary tables, several devices, a device without a
 * summary or without a cm_id entry, other sequence numbers, error and
 * failed-dump messages, a cut message, and the per-port count of cm_id
 * entries.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <cmocka.h>

#include "derive.h"
#include "procfs.h"
#include "provider.h"
#include "rdma.h"
#include "sample.h"

extern const struct provider provider_rdma_activity;

#define PROV provider_rdma_activity
#define ALL_FIELDS ((((uint64_t)1) << RD_NFIELDS) - 1)
#define BIT(f) ((uint64_t)1 << (f))
#define MAX_ROOTS 4

/* The mask bits of COUNTERS.md section 7, by counter. */
#define M_INITIATED BIT(0)
#define M_ACCEPTED BIT(1)
#define M_FAILED BIT(2)
#define M_CONN_ERRORS BIT(3)
#define M_ACTIVE BIT(4)
#define M_CQ_ERRORS BIT(25)
#define M_IN_BYTES BIT(26)
#define M_OUT_BYTES BIT(27)
#define M_IN_FRAMES BIT(28)
#define M_OUT_FRAMES BIT(29)

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

/* The value of counter name of instance inst over read i-1 -> i. */
static struct value
value_of(const struct series *s, size_t i, const char *inst, const char *name)
{
	struct derive_env env = { .dt = s->uptime[i] - s->uptime[i - 1],
				  .user_hz = 100,
				  .ulong_bits = 64 };
	const struct raw_instance *cur = find_inst(&s->rs[i], inst);
	const struct raw_instance *prev = find_inst(&s->rs[i - 1], inst);
	FIELD_DELTAS_DECLARE(d);

	if (!cur)
		fail_msg("no instance '%s' in read %zu", inst, i);
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

#define INITIATED "RDMA Initiated Connections"
#define ACCEPTED "RDMA Accepted Connections"
#define FAILED "RDMA Failed Connection Attempts"
#define CONN_ERRORS "RDMA Connection Errors"
#define ACTIVE "RDMA Active Connections"
#define CQ_ERRORS "RDMA Completion Queue Errors"
#define IN_BYTES "RDMA Inbound Bytes/sec"
#define OUT_BYTES "RDMA Outbound Bytes/sec"
#define IN_FRAMES "RDMA Inbound Frames/sec"
#define OUT_FRAMES "RDMA Outbound Frames/sec"
#define MASK "Missing Counter Mask"

/* Counter files: decimals; 0xFFFFFFFF only when the counter saturates. */
static void
test_parse_counter(void **unused)
{
	uint64_t v = 7;

	(void)unused;
	assert_int_equal(rdma_parse_counter("12345\n", 0, &v), 0);
	assert_int_equal(v, 12345);
	assert_int_equal(rdma_parse_counter("4294967294\n", 1, &v), 0);
	assert_int_equal(v, 4294967294u);
	/* a legacy 32-bit counter at its ceiling has stopped counting */
	assert_int_equal(rdma_parse_counter("4294967295\n", 1, &v), -1);
	/* a 64-bit one merely passes through that value */
	assert_int_equal(rdma_parse_counter("4294967295\n", 0, &v), 0);
	assert_int_equal(v, 4294967295u);
	assert_int_equal(rdma_parse_counter("4294967296\n", 1, &v), 0);
	assert_int_equal(v, 4294967296u);
	assert_int_equal(rdma_parse_counter("18446744073709551615\n", 0, &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(rdma_parse_counter("", 0, &v), -1);
	assert_int_equal(rdma_parse_counter("N/A\n", 0, &v), -1);
	assert_int_equal(rdma_parse_counter("12 34\n", 0, &v), -1);
}

/* The mask: a bit per counter with no source at all. */
static void
test_missing_mask(void **unused)
{
	/* every file there can be (the cm_id count is no file) */
	uint64_t all = (BIT(RD_MISSING_MASK) - 1) & ~BIT(RD_ACTIVE_CONNECTIONS);

	(void)unused;
	/* nothing: bits 0-4 and 25-29 = 0x1F + 0x3E000000 */
	assert_int_equal(rdma_missing_mask(0), 0x3E00001Fu);
	/* every file: still bit 4 (16), RDMA Active Connections */
	assert_int_equal(rdma_missing_mask(all), M_ACTIVE);
	/* a sum with one of its terms is supplied */
	assert_int_equal(rdma_missing_mask(all & ~BIT(RD_RNR_NAK_RETRY_ERR)), M_ACTIVE);
	assert_int_equal(rdma_missing_mask(all & ~BIT(RD_RNR_NAK_RETRY_ERR) &
					   ~BIT(RD_LOCAL_ACK_TIMEOUT_ERR)),
			 M_ACTIVE | M_CONN_ERRORS);
	assert_int_equal(rdma_missing_mask(all & ~BIT(RD_CM_TX_REJ)), M_ACTIVE);
	assert_int_equal(rdma_missing_mask(all & ~BIT(RD_CM_TX_REJ) & ~BIT(RD_CM_RX_REJ)),
			 M_ACTIVE | M_FAILED);
	assert_int_equal(rdma_missing_mask(all & ~RDMA_PORT_COUNTERS_MASK),
			 M_ACTIVE | M_IN_BYTES | M_OUT_BYTES | M_IN_FRAMES | M_OUT_FRAMES);
	assert_int_equal(rdma_missing_mask(all & ~BIT(RD_CM_TX_REQ)), M_ACTIVE | M_INITIATED);
	assert_int_equal(rdma_missing_mask(all & ~BIT(RD_CM_TX_REP)), M_ACTIVE | M_ACCEPTED);
	assert_int_equal(rdma_missing_mask(all & ~BIT(RD_REQ_CQE_ERROR) &
					   ~BIT(RD_RESP_CQE_ERROR)),
			 M_ACTIVE | M_CQ_ERRORS);
}

/* Instances "DEV/PORT" in device then port order; one appears, one goes. */
static void
test_instances(void **unused)
{
	static const char *const t0[] = { "mlx4_0/1", "mlx5_0/1", "mlx5_0/2", "qib0/1" };
	static const char *const t2[] = { "mlx5_0/1", "mlx5_0/2", "qib0/1", "rxe0/1" };
	struct series s;

	(void)unused;
	series_load(&s, "rdma-basic", 3, ALL_FIELDS);
	assert_int_equal(s.rs[0].ninstances, 4);
	assert_int_equal(s.rs[1].ninstances, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(raw_name_at(&s.rs[0], i), t0[i]);
		assert_string_equal(raw_name_at(&s.rs[1], i), t0[i]);
		assert_int_equal(raw_identity_at(&s.rs[0], i), raw_identity_at(&s.rs[1], i));
	}
	assert_int_equal(s.rs[2].ninstances, 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(raw_name_at(&s.rs[2], i), t2[i]);
	/* two ports of one device: distinct identities */
	assert_true(raw_identity(&s.rs[0], find_inst(&s.rs[0], "mlx5_0/1")) !=
		    raw_identity(&s.rs[0], find_inst(&s.rs[0], "mlx5_0/2")));
	/* the cm_id count is never supplied */
	for (size_t i = 0; i < 4; i++)
		assert_false(raw_present_at(&s.rs[1], i) & BIT(RD_ACTIVE_CONNECTIONS));
	series_free(&s);
}

/* mlx5_0: two ports, extended counters, hw_counters and CM per port. */
static void
test_mlx5_two_ports(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "rdma-basic", 3, ALL_FIELDS);
	/* port 1, t1 (CM tx req 40, rep 25, tx rej 3, rx rej 4) */
	CHECK(&s, 1, "mlx5_0/1", INITIATED, 40, ST_OK); /* cm_tx_msgs/req, not rx's 999 */
	CHECK(&s, 1, "mlx5_0/1", ACCEPTED, 25, ST_OK);  /* cm_tx_msgs/rep */
	CHECK(&s, 1, "mlx5_0/1", FAILED, 7, ST_OK);     /* 3 + 4 */
	CHECK(&s, 1, "mlx5_0/1", CONN_ERRORS, 7, ST_OK); /* 5 + 2 */
	CHECK(&s, 1, "mlx5_0/1", ACTIVE, 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "mlx5_0/1", CQ_ERRORS, 33, ST_OK); /* 12 + 21, not the device's 777 + 888 */
	/* port_rcv_data 10000000000 -> 10005000000 in 2 s: 5000000 x 4 / 2 */
	CHECK(&s, 1, "mlx5_0/1", IN_BYTES, 10000000, ST_OK);
	/* port_xmit_data 20000000000 -> 20010000000: 10000000 x 4 / 2 */
	CHECK(&s, 1, "mlx5_0/1", OUT_BYTES, 20000000, ST_OK);
	CHECK(&s, 1, "mlx5_0/1", IN_FRAMES, 1000, ST_OK); /* (30002000 - 30000000) / 2 */
	/* extended counters pass 0xFFFFFFFF: 4294967295 -> 4294967395 is 100 / 2 */
	CHECK(&s, 1, "mlx5_0/1", OUT_FRAMES, 50, ST_OK);
	CHECK(&s, 1, "mlx5_0/1", MASK, 16, ST_OK); /* bit 4 only */
	/* t1 -> t2, 4 s: port_rcv_data +2000000: 2000000 x 4 / 4 */
	CHECK(&s, 2, "mlx5_0/1", IN_BYTES, 2000000, ST_OK);
	CHECK(&s, 2, "mlx5_0/1", OUT_BYTES, 0, ST_OK);
	CHECK(&s, 2, "mlx5_0/1", OUT_FRAMES, 0, ST_OK);

	/* port 2: local_ack_timeout_err 9 only; no cqe counters in its
	 * hw_counters, and the device's are not its (two ports) */
	CHECK(&s, 1, "mlx5_0/2", CONN_ERRORS, 9, ST_OK); /* 9 + (no rnr_nak_retry_err) */
	CHECK(&s, 1, "mlx5_0/2", CQ_ERRORS, 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "mlx5_0/2", INITIATED, 0, ST_OK);
	CHECK(&s, 1, "mlx5_0/2", IN_BYTES, 0, ST_OK);
	CHECK(&s, 1, "mlx5_0/2", MASK, 16 + 33554432, ST_OK); /* bits 4 and 25 */
	series_free(&s);
}

/* mlx4_0: one port, hw_counters of the device, CM in infiniband_cm. */
static void
test_mlx4_old_layout(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "rdma-basic", 2, ALL_FIELDS);
	CHECK(&s, 1, "mlx4_0/1", INITIATED, 1010, ST_OK);
	CHECK(&s, 1, "mlx4_0/1", ACCEPTED, 905, ST_OK);
	CHECK(&s, 1, "mlx4_0/1", FAILED, 33, ST_OK);      /* 11 + 22 */
	CHECK(&s, 1, "mlx4_0/1", CONN_ERRORS, 153, ST_OK); /* 101 + 52 */
	CHECK(&s, 1, "mlx4_0/1", CQ_ERRORS, 17, ST_OK);   /* 9 + 8 */
	CHECK(&s, 1, "mlx4_0/1", IN_BYTES, 800, ST_OK);   /* (900 - 500) x 4 / 2 */
	CHECK(&s, 1, "mlx4_0/1", OUT_BYTES, 0, ST_OK);    /* 1000 -> 1000 */
	CHECK(&s, 1, "mlx4_0/1", IN_FRAMES, 5, ST_OK);    /* (20 - 10) / 2 */
	CHECK(&s, 1, "mlx4_0/1", OUT_FRAMES, 2, ST_OK);   /* (14 - 10) / 2 */
	CHECK(&s, 1, "mlx4_0/1", MASK, 16, ST_OK);
	/* hw_counters/lifespan (10, a setting) is no field of any counter */
	assert_int_equal(raw_get(&s.rs[1], find_inst(&s.rs[1], "mlx4_0/1"), RD_LOCAL_ACK_TIMEOUT_ERR), 101);
	series_free(&s);
}

/* qib0: standard legacy counters only; saturation at 0xFFFFFFFF. */
static void
test_qib_legacy_saturated(void **unused)
{
	struct series s;
	const struct raw_instance *ri;

	(void)unused;
	series_load(&s, "rdma-basic", 3, ALL_FIELDS);
	/* no CM, no hw_counters: bits 0, 1, 2, 3, 4 and 25 = 31 + 33554432 */
	CHECK(&s, 1, "qib0/1", MASK, 33554463, ST_OK);
	CHECK(&s, 1, "qib0/1", INITIATED, 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "qib0/1", ACCEPTED, 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "qib0/1", FAILED, 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "qib0/1", CONN_ERRORS, 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "qib0/1", CQ_ERRORS, 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "qib0/1", ACTIVE, 0, ST_UNSUPPORTED);
	/* port_rcv_data 1000000 -> 1250000 in 2 s: 250000 x 4 / 2 */
	CHECK(&s, 1, "qib0/1", IN_BYTES, 500000, ST_OK);
	CHECK(&s, 1, "qib0/1", IN_FRAMES, 300, ST_OK); /* (5600 - 5000) / 2 */
	/* port_xmit_data 4294967000 -> 4294967295: saturated at t1, so no
	 * rate (not 295 x 4 / 2, a lower bound posing as a rate) */
	ri = find_inst(&s.rs[0], "qib0/1");
	assert_true(raw_present(&s.rs[0], ri) & BIT(RD_PORT_XMIT_DATA));
	assert_false(raw_present(&s.rs[0], ri) & BIT(RD_PORT_XMIT_PACKETS)); /* already saturated */
	ri = find_inst(&s.rs[1], "qib0/1");
	assert_false(raw_present(&s.rs[1], ri) & BIT(RD_PORT_XMIT_DATA));
	CHECK(&s, 1, "qib0/1", OUT_BYTES, 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "qib0/1", OUT_FRAMES, 0, ST_UNSUPPORTED);
	/* t1 -> t2 (4 s): 200000 x 4 / 4 and 400 / 4; xmit_data still
	 * saturated; xmit_packets cleared to 100 but has no previous value */
	CHECK(&s, 2, "qib0/1", IN_BYTES, 200000, ST_OK);
	CHECK(&s, 2, "qib0/1", IN_FRAMES, 100, ST_OK);
	CHECK(&s, 2, "qib0/1", OUT_BYTES, 0, ST_UNSUPPORTED);
	CHECK(&s, 2, "qib0/1", OUT_FRAMES, 0, ST_UNSUPPORTED);
	assert_true(raw_present(&s.rs[2], find_inst(&s.rs[2], "qib0/1")) & BIT(RD_PORT_XMIT_PACKETS));
	series_free(&s);
}

/* rxe0 appears in t2: NEW, with no port counters and none of the named
 * hw_counters; mlx4_0 is gone. */
static void
test_rxe_appears(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "rdma-basic", 3, ALL_FIELDS);
	assert_null(find_inst(&s.rs[2], "mlx4_0/1"));
	CHECK(&s, 2, "rxe0/1", INITIATED, 5, ST_NEW);
	CHECK(&s, 2, "rxe0/1", ACCEPTED, 4, ST_NEW);
	CHECK(&s, 2, "rxe0/1", FAILED, 3, ST_NEW); /* 1 + 2 */
	CHECK(&s, 2, "rxe0/1", CONN_ERRORS, 0, ST_UNSUPPORTED);
	CHECK(&s, 2, "rxe0/1", CQ_ERRORS, 0, ST_UNSUPPORTED);
	CHECK(&s, 2, "rxe0/1", IN_BYTES, 0, ST_UNSUPPORTED);
	CHECK(&s, 2, "rxe0/1", OUT_FRAMES, 0, ST_UNSUPPORTED);
	/* bits 3, 4, 25, 26, 27, 28, 29: 8 + 16 + 33554432 + 67108864 +
	 * 134217728 + 268435456 + 536870912 */
	CHECK(&s, 2, "rxe0/1", MASK, 1040187416, ST_NEW);
	series_free(&s);
}

/* Only the needed files are read; the mask alone reads no counter. */
static void
test_needed(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "rdma-basic", 2, BIT(RD_PORT_RCV_DATA));
	for (size_t i = 0; i < s.rs[1].ninstances; i++)
		assert_int_equal(raw_present_at(&s.rs[1], i), BIT(RD_PORT_RCV_DATA));
	CHECK(&s, 1, "mlx5_0/1", IN_BYTES, 10000000, ST_OK);
	series_free(&s);

	series_load(&s, "rdma-basic", 1, BIT(RD_MISSING_MASK));
	for (size_t i = 0; i < s.rs[0].ninstances; i++)
		assert_int_equal(raw_present_at(&s.rs[0], i), BIT(RD_MISSING_MASK));
	assert_int_equal(raw_get(&s.rs[0], find_inst(&s.rs[0], "qib0/1"), RD_MISSING_MASK), 33554463);
	assert_int_equal(raw_get(&s.rs[0], find_inst(&s.rs[0], "mlx5_0/2"), RD_MISSING_MASK), 33554448);
	series_free(&s);
}

/* The describe hook's note on counter name of instance inst (NULL: -l -v). */
static const char *
note_of(const struct series *s, const char *inst, const char *name)
{
	static char buf[256];
	size_t len;

	memset(buf, 'x', sizeof(buf));
	len = PROV.describe(s->state, counter(name), inst, buf, sizeof(buf));
	assert_int_equal(len, strlen(buf));
	return buf;
}

#define SAT_NOTE " sits at 0xFFFFFFFF: a saturated legacy 32-bit counter gives no rate"

/* -q -x -v / -l -v: a saturated legacy counter and a counter with no source
 * are told, after the last read; a counting one gets no note. */
static void
test_describe(void **unused)
{
	struct series s;
	char small[16];

	(void)unused;
	/* after t1: qib0 port_xmit_data 4294967295 (and xmit_packets, since t0) */
	series_load(&s, "rdma-basic", 2, ALL_FIELDS);
	assert_string_equal(note_of(&s, "qib0/1", OUT_BYTES), "here port_xmit_data" SAT_NOTE);
	assert_string_equal(note_of(&s, "qib0/1", OUT_FRAMES), "here port_xmit_packets" SAT_NOTE);
	assert_string_equal(note_of(&s, "qib0/1", IN_BYTES), ""); /* 1250000: counting */
	/* extended counters past 0xFFFFFFFF (4294967395) never saturate */
	assert_string_equal(note_of(&s, "mlx5_0/1", OUT_FRAMES), "");
	assert_string_equal(note_of(&s, "mlx5_0/1", CQ_ERRORS), "");
	assert_string_equal(note_of(&s, "qib0/1", CQ_ERRORS),
			    "here no source on this port: no req_cqe_error or resp_cqe_error "
			    "file (bit 25 of the Missing Counter Mask)");
	assert_string_equal(note_of(&s, "qib0/1", INITIATED),
			    "here no source on this port: no cm_tx_msgs/req file (bit 0 of the "
			    "Missing Counter Mask)");
	/* one of two sources */
	assert_string_equal(note_of(&s, "mlx5_0/2", CONN_ERRORS),
			    "here no rnr_nak_retry_err file: the sum of local_ack_timeout_err "
			    "only");
	/* under --root no cm_id count */
	assert_string_equal(note_of(&s, "mlx4_0/1", ACTIVE),
			    "here none: live only (bit 4 of the Missing Counter Mask)");
	/* 33554463 = bits 0-4 and 25 */
	assert_string_equal(note_of(&s, "qib0/1", MASK),
			    "here set: 0 1 2 3 4 25 (counters with no source on this port)");
	assert_string_equal(note_of(&s, "mlx5_0/2", MASK),
			    "here set: 4 25 (counters with no source on this port)");
	/* instances that are no port here */
	assert_string_equal(note_of(&s, "qib0/2", OUT_BYTES), "");
	assert_string_equal(note_of(&s, "qib0", OUT_BYTES), "");
	assert_string_equal(note_of(&s, "nope0/1", OUT_BYTES), "");
	assert_string_equal(note_of(&s, "_Total", OUT_BYTES), "");
	/* -l -v: the ports where it is so */
	assert_string_equal(note_of(&s, NULL, OUT_BYTES),
			    "here saturated at 0xFFFFFFFF (a legacy 32-bit counter: no rate) on "
			    "qib0/1");
	assert_string_equal(note_of(&s, NULL, CQ_ERRORS), "here no source on mlx5_0/2, qib0/1");
	assert_string_equal(note_of(&s, NULL, IN_BYTES), "");
	assert_string_equal(note_of(&s, NULL, MASK), "");
	/* cut to the buffer, still a string */
	memset(small, 'x', sizeof(small));
	assert_int_equal(PROV.describe(s.state, counter(OUT_BYTES), "qib0/1", small,
				       sizeof(small)),
			 15);
	assert_string_equal(small, "here port_xmit_");
	assert_int_equal(PROV.describe(s.state, counter(OUT_BYTES), "qib0/1", small, 0), 0);
	series_free(&s);

	/* after t2: port_xmit_packets cleared to 100 counts again; rxe0 has
	 * no port counters */
	series_load(&s, "rdma-basic", 3, ALL_FIELDS);
	assert_string_equal(note_of(&s, "qib0/1", OUT_BYTES), "here port_xmit_data" SAT_NOTE);
	assert_string_equal(note_of(&s, "qib0/1", OUT_FRAMES), "");
	assert_string_equal(note_of(&s, "rxe0/1", IN_BYTES),
			    "here no source on this port: no port_rcv_data file (bit 26 of the "
			    "Missing Counter Mask)");
	assert_string_equal(note_of(&s, "mlx4_0/1", OUT_BYTES), ""); /* gone */
	series_free(&s);

	/* only port_xmit_data wanted: the files not looked for are not called
	 * missing */
	series_load(&s, "rdma-basic", 2, BIT(RD_PORT_XMIT_DATA));
	assert_string_equal(note_of(&s, "qib0/1", OUT_BYTES), "here port_xmit_data" SAT_NOTE);
	assert_string_equal(note_of(&s, "qib0/1", CQ_ERRORS), "");
	assert_string_equal(note_of(&s, "qib0/1", MASK), "");
	assert_string_equal(note_of(&s, NULL, CQ_ERRORS), "");
	series_free(&s);
}

/* A buffer of hand-built netlink messages, as one recv() gives them. */
struct nlb {
	union {
		unsigned char b[4096];
		uint64_t align;
	} u;
	size_t len, msg;
};

/* Append n bytes of data (padded to 4) to b. */
static void
nlb_put(struct nlb *b, const void *data, size_t n)
{
	assert_true(b->len + NLA_ALIGN(n) <= sizeof(b->u.b));
	memcpy(b->u.b + b->len, data, n);
	memset(b->u.b + b->len + n, 0, NLA_ALIGN(n) - n);
	b->len += NLA_ALIGN(n);
}

/* Start a message of type with sequence number seq. */
static void
msg_begin(struct nlb *b, uint16_t type, uint32_t seq)
{
	struct nlmsghdr h = { 0, type, NLM_F_MULTI, seq, 0 };

	b->msg = b->len;
	nlb_put(b, &h, sizeof(h));
}

/* End the message begun last: its length. */
static void
msg_end(struct nlb *b)
{
	uint32_t len = (uint32_t)(b->len - b->msg);

	memcpy(b->u.b + b->msg, &len, sizeof(len));
}

/* An attribute of type with n bytes of data. */
static void
attr(struct nlb *b, uint16_t type, const void *data, size_t n)
{
	struct nlattr a = { (uint16_t)(NLA_HDRLEN + n), type };

	nlb_put(b, &a, sizeof(a));
	if (n)
		nlb_put(b, data, n);
}

static void
attr_str(struct nlb *b, uint16_t type, const char *s)
{
	attr(b, type, s, strlen(s) + 1);
}

static void
attr_u32(struct nlb *b, uint16_t type, uint32_t v)
{
	attr(b, type, &v, sizeof(v));
}

/* Begin a nested attribute (NLA_F_NESTED, as nla_nest_start sets it);
 * returns its offset for nest_end. */
static size_t
nest_begin(struct nlb *b, uint16_t type)
{
	size_t off = b->len;

	attr(b, type | NLA_F_NESTED, NULL, 0);
	return off;
}

static void
nest_end(struct nlb *b, size_t off)
{
	uint16_t len = (uint16_t)(b->len - off);

	memcpy(b->u.b + off, &len, sizeof(len));
}

/* One RES_SUMMARY entry; pad puts an RDMA_NLDEV_ATTR_PAD before the u64, as
 * nla_put_u64_64bit does where unaligned access is slow. */
static void
summary_entry(struct nlb *b, const char *name, uint64_t curr, int pad)
{
	size_t e = nest_begin(b, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);

	attr_str(b, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, name);
	if (pad)
		attr(b, RDMA_NLDEV_ATTR_PAD, NULL, 0);
	attr(b, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, &curr, sizeof(curr));
	nest_end(b, e);
}

#define RES_GET RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_GET)
#define CM_ID_GET RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_CM_ID_GET)

/* A RES_GET dump message of device index/name with a summary of pd, cq,
 * cm_id (when cm >= 0) and qp. */
static void
res_dev(struct nlb *b, uint32_t seq, uint32_t index, const char *name, int64_t cm, int pad)
{
	size_t t;

	msg_begin(b, RES_GET, seq);
	attr_u32(b, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	attr_str(b, RDMA_NLDEV_ATTR_DEV_NAME, name);
	t = nest_begin(b, RDMA_NLDEV_ATTR_RES_SUMMARY);
	summary_entry(b, "pd", 3, pad);
	summary_entry(b, "cq", 2, pad);
	if (cm >= 0)
		summary_entry(b, "cm_id", (uint64_t)cm, pad);
	summary_entry(b, "qp", 1, pad);
	nest_end(b, t);
	msg_end(b);
}

/* NLMSG_DONE or NLMSG_ERROR carrying error e. */
static void
msg_status(struct nlb *b, uint16_t type, uint32_t seq, int e)
{
	struct nlmsgerr err;

	memset(&err, 0, sizeof(err));
	err.error = e;
	msg_begin(b, type, seq);
	if (type == NLMSG_ERROR)
		nlb_put(b, &err, sizeof(err));
	else
		nlb_put(b, &e, sizeof(e));
	msg_end(b);
}

/* Several devices, nested tables, a device without a summary and one
 * without a cm_id entry, messages of another dump, then DONE. */
static void
test_nl_summary(void **unused)
{
	struct nlb b = { .len = 0 };
	struct rdma_nl_dev devs[8];
	size_t n = 0, t;
	int done = 0;

	(void)unused;
	res_dev(&b, 7, 0, "mlx5_0", 12, 0);
	res_dev(&b, 6, 9, "stale0", 99, 0); /* an earlier dump's: skipped */
	res_dev(&b, 7, 1, "rxe0", 0, 1);
	res_dev(&b, 7, 2, "siw0", -1, 1);   /* no cm_id entry */
	msg_begin(&b, RES_GET, 7);          /* no summary at all */
	attr_u32(&b, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	attr_str(&b, RDMA_NLDEV_ATTR_DEV_NAME, "qib0");
	msg_end(&b);
	msg_begin(&b, RES_GET, 7);          /* an empty summary */
	attr_u32(&b, RDMA_NLDEV_ATTR_DEV_INDEX, 4);
	attr_str(&b, RDMA_NLDEV_ATTR_DEV_NAME, "hfi1_0");
	t = nest_begin(&b, RDMA_NLDEV_ATTR_RES_SUMMARY);
	nest_end(&b, t);
	msg_end(&b);
	assert_int_equal(rdma_nl_parse_summary(b.u.b, b.len, 7, devs, 8, &n, &done), 0);
	assert_int_equal(done, 0); /* no DONE yet: the caller receives again */
	assert_int_equal(n, 5);
	assert_string_equal(devs[0].name, "mlx5_0");
	assert_int_equal(devs[0].index, 0);
	assert_int_equal(devs[0].has_cm_ids, 1);
	assert_int_equal(devs[0].cm_ids, 12);
	assert_string_equal(devs[1].name, "rxe0");
	assert_int_equal(devs[1].index, 1);
	assert_int_equal(devs[1].has_cm_ids, 1);
	assert_int_equal(devs[1].cm_ids, 0); /* 0 is a value, not missing */
	assert_string_equal(devs[2].name, "siw0");
	assert_int_equal(devs[2].has_cm_ids, 0);
	assert_string_equal(devs[3].name, "qib0");
	assert_int_equal(devs[3].has_cm_ids, 0);
	assert_string_equal(devs[4].name, "hfi1_0");
	assert_int_equal(devs[4].index, 4);
	assert_int_equal(devs[4].has_cm_ids, 0);

	/* The next recv(): the last device and DONE; *ndevs goes on. */
	b.len = 0;
	res_dev(&b, 7, 5, "bnxt_re0", 4294967296ll, 1); /* 2^32: a u64 */
	msg_status(&b, NLMSG_DONE, 7, 0);
	res_dev(&b, 7, 6, "after_done", 1, 0);           /* never looked at */
	assert_int_equal(rdma_nl_parse_summary(b.u.b, b.len, 7, devs, 8, &n, &done), 0);
	assert_int_equal(done, 1);
	assert_int_equal(n, 6);
	assert_string_equal(devs[5].name, "bnxt_re0");
	assert_true(devs[5].cm_ids == 4294967296ull);

	/* More devices than room: counted, the first max stored. */
	b.len = 0;
	res_dev(&b, 1, 0, "a0", 1, 0);
	res_dev(&b, 1, 1, "a1", 2, 0);
	res_dev(&b, 1, 2, "a2", 3, 0);
	msg_status(&b, NLMSG_DONE, 1, 0);
	n = 0;
	done = 0;
	assert_int_equal(rdma_nl_parse_summary(b.u.b, b.len, 1, devs, 2, &n, &done), 0);
	assert_int_equal(n, 3);
	assert_string_equal(devs[1].name, "a1");
	assert_int_equal(devs[1].cm_ids, 2);
	/* seq 0 takes every message */
	n = 0;
	assert_int_equal(rdma_nl_parse_summary(b.u.b, b.len, 0, NULL, 0, &n, &done), 0);
	assert_int_equal(n, 3);
	/* no device at all (no RDMA hardware): DONE only */
	b.len = 0;
	msg_status(&b, NLMSG_DONE, 2, 0);
	n = 0;
	done = 0;
	assert_int_equal(rdma_nl_parse_summary(b.u.b, b.len, 2, devs, 8, &n, &done), 0);
	assert_int_equal(n, 0);
	assert_int_equal(done, 1);
}

/* Error messages, a failed dump's DONE, a cut message, a long name. */
static void
test_nl_errors(void **unused)
{
	struct nlb b = { .len = 0 };
	struct rdma_nl_dev devs[4];
	char longname[100];
	size_t n = 0;
	int done = 0;

	(void)unused;
	msg_status(&b, NLMSG_ERROR, 3, -EOPNOTSUPP);
	assert_int_equal(rdma_nl_parse_summary(b.u.b, b.len, 3, devs, 4, &n, &done),
			 -EOPNOTSUPP);
	assert_int_equal(n, 0);
	/* an acknowledgement (error 0) is no error; another dump's error is
	 * not ours */
	b.len = 0;
	msg_status(&b, NLMSG_ERROR, 3, 0);
	msg_status(&b, NLMSG_ERROR, 2, -EPERM);
	res_dev(&b, 3, 0, "mlx5_0", 5, 0);
	assert_int_equal(rdma_nl_parse_summary(b.u.b, b.len, 3, devs, 4, &n, &done), 0);
	assert_int_equal(n, 1);
	assert_int_equal(devs[0].cm_ids, 5);
	/* a dump that failed midway ends with DONE carrying the error */
	b.len = 0;
	msg_status(&b, NLMSG_DONE, 3, -EMSGSIZE);
	assert_int_equal(rdma_nl_parse_summary(b.u.b, b.len, 3, devs, 4, &n, &done), -EMSGSIZE);
	assert_int_equal(done, 1);
	/* a message longer than the buffer */
	b.len = 0;
	res_dev(&b, 3, 0, "mlx5_0", 5, 0);
	n = 0;
	assert_int_equal(rdma_nl_parse_summary(b.u.b, b.len - 4, 3, devs, 4, &n, &done),
			 -EBADMSG);
	assert_int_equal(n, 0);
	/* an attribute running past its message: the message's device is
	 * kept, the rest of its attributes ignored */
	b.len = 0;
	msg_begin(&b, RES_GET, 3);
	attr_str(&b, RDMA_NLDEV_ATTR_DEV_NAME, "cut0");
	attr_u32(&b, RDMA_NLDEV_ATTR_DEV_INDEX, 8);
	msg_end(&b);
	{
		uint16_t bad = 200;
		memcpy(b.u.b + NLMSG_HDRLEN + 12, &bad, sizeof(bad)); /* DEV_INDEX's length */
	}
	n = 0;
	assert_int_equal(rdma_nl_parse_summary(b.u.b, b.len, 3, devs, 4, &n, &done), 0);
	assert_int_equal(n, 1);
	assert_string_equal(devs[0].name, "cut0");
	assert_int_equal(devs[0].index, 0);
	/* a name longer than the field: cut to 63 bytes */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	b.len = 0;
	res_dev(&b, 3, 0, longname, 1, 0);
	n = 0;
	assert_int_equal(rdma_nl_parse_summary(b.u.b, b.len, 3, devs, 4, &n, &done), 0);
	assert_int_equal(strlen(devs[0].name), 63);
}

/* A cm_id entry bound to port (0: none). */
static void
cm_entry(struct nlb *b, uint32_t port)
{
	size_t e = nest_begin(b, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY);

	attr_u32(b, RDMA_NLDEV_ATTR_RES_PS, 0x106);
	if (port)
		attr_u32(b, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	attr_u32(b, RDMA_NLDEV_ATTR_RES_CM_IDN, 1);
	nest_end(b, e);
}

/* Per-port counts of a RES_CM_ID_GET dump over two messages. */
static void
test_nl_cm_ids(void **unused)
{
	struct nlb b = { .len = 0 };
	uint64_t ports[4] = { 0 };
	size_t t;
	int done = 0;

	(void)unused;
	msg_begin(&b, CM_ID_GET, 5);
	attr_u32(&b, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	attr_str(&b, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
	t = nest_begin(&b, RDMA_NLDEV_ATTR_RES_CM_ID);
	cm_entry(&b, 1);
	cm_entry(&b, 2);
	cm_entry(&b, 0); /* a listener on every port: none */
	cm_entry(&b, 2);
	cm_entry(&b, 9); /* beyond ports[]: none */
	nest_end(&b, t);
	msg_end(&b);
	msg_begin(&b, CM_ID_GET, 4); /* another dump's */
	t = nest_begin(&b, RDMA_NLDEV_ATTR_RES_CM_ID);
	cm_entry(&b, 1);
	nest_end(&b, t);
	msg_end(&b);
	msg_begin(&b, CM_ID_GET, 5);
	attr_u32(&b, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	t = nest_begin(&b, RDMA_NLDEV_ATTR_RES_CM_ID);
	cm_entry(&b, 2);
	nest_end(&b, t);
	msg_end(&b);
	msg_status(&b, NLMSG_DONE, 5, 0);
	assert_int_equal(rdma_nl_count_cm_ids(b.u.b, b.len, 5, ports, 4, &done), 0);
	assert_int_equal(done, 1);
	assert_int_equal(ports[0], 0);
	assert_int_equal(ports[1], 1); /* one entry on port 1 */
	assert_int_equal(ports[2], 3); /* two in the first message, one in the second */
	assert_int_equal(ports[3], 0);
	/* the kernel refuses (no such device) */
	b.len = 0;
	msg_status(&b, NLMSG_ERROR, 6, -ENODEV);
	assert_int_equal(rdma_nl_count_cm_ids(b.u.b, b.len, 6, ports, 4, &done), -ENODEV);
}

/* Queue b as one datagram to the provider's end of the socketpair. */
static void
nlb_send(int fd, struct nlb *b)
{
	assert_int_equal(send(fd, b->u.b, b->len, 0), (ssize_t)b->len);
	b->len = 0;
}

/* The next request the provider sent: its type, sequence number and
 * DEV_INDEX (-1 without). */
static void
expect_request(int fd, uint16_t type, uint32_t seq, int64_t dev_index)
{
	unsigned char buf[256];
	struct nlmsghdr h;
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

	assert_true(n >= (ssize_t)NLMSG_HDRLEN);
	memcpy(&h, buf, sizeof(h));
	assert_int_equal(h.nlmsg_len, n);
	assert_int_equal(h.nlmsg_type, type);
	assert_int_equal(h.nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
	assert_int_equal(h.nlmsg_seq, seq);
	if (dev_index < 0) {
		assert_int_equal(n, NLMSG_HDRLEN);
	} else {
		struct nlattr a;
		uint32_t v;

		assert_int_equal(n, NLMSG_HDRLEN + NLA_HDRLEN + 4);
		memcpy(&a, buf + NLMSG_HDRLEN, sizeof(a));
		memcpy(&v, buf + NLMSG_HDRLEN + NLA_HDRLEN, sizeof(v));
		assert_int_equal(a.nla_type, RDMA_NLDEV_ATTR_DEV_INDEX);
		assert_int_equal(v, dev_index);
	}
}

/* RDMA Active Connections end to end over rdma-basic/t0 (mlx4_0 one port,
 * mlx5_0 ports 1 and 2, qib0 one port) with a socketpair answering as the
 * kernel would: a one-port device takes the summary's cm_id count; mlx5_0's
 * ports count the entries of its cm_id dump; a device without the entry,
 * or whose dump fails, has none and keeps bit 4 of its mask. */
static void
test_active_connections(void **unused)
{
	const char *root = "../fixtures/rdma-basic/t0";
	struct procfs *fs = procfs_new(&root, 1);
	struct provider_ctx ctx = { fs, BIT(RD_ACTIVE_CONNECTIONS) | BIT(RD_MISSING_MASK) };
	struct err err = { "" };
	struct nlb b = { .len = 0 };
	struct raw_set rs;
	const struct raw_instance *ri;
	char note[256];
	int sv[2];
	size_t t;
	void *st;

	(void)unused;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	st = PROV.open(&ctx, &err);
	assert_non_null(st);
	rdma_use_netlink_fd(st, sv[1]);
	raw_set_init(&rs, PROV.set);

	/* Read 1: the summary over two datagrams, then mlx5_0's cm_ids. */
	res_dev(&b, 1, 0, "mlx4_0", 3, 0);
	res_dev(&b, 1, 1, "mlx5_0", 5, 1);
	nlb_send(sv[0], &b);
	res_dev(&b, 1, 2, "qib0", -1, 0);
	res_dev(&b, 1, 3, "gone0", 8, 0); /* not in sysfs: ignored */
	msg_status(&b, NLMSG_DONE, 1, 0);
	nlb_send(sv[0], &b);
	msg_begin(&b, CM_ID_GET, 2);
	attr_u32(&b, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	t = nest_begin(&b, RDMA_NLDEV_ATTR_RES_CM_ID);
	cm_entry(&b, 1);
	cm_entry(&b, 2);
	cm_entry(&b, 0); /* listening on both ports */
	cm_entry(&b, 2);
	cm_entry(&b, 2);
	nest_end(&b, t);
	msg_end(&b);
	msg_status(&b, NLMSG_DONE, 2, 0);
	nlb_send(sv[0], &b);
	raw_set_begin(&rs);
	assert_int_equal(PROV.read(st, &rs, &err), 0);
	expect_request(sv[0], RES_GET, 1, -1);
	expect_request(sv[0], CM_ID_GET, 2, 1); /* only the two-port device's */
	ri = find_inst(&rs, "mlx4_0/1");
	assert_true(raw_present(&rs, ri) & BIT(RD_ACTIVE_CONNECTIONS));
	assert_int_equal(raw_get(&rs, ri, RD_ACTIVE_CONNECTIONS), 3); /* the device's count */
	assert_int_equal(raw_get(&rs, ri, RD_MISSING_MASK) & M_ACTIVE, 0);
	ri = find_inst(&rs, "mlx5_0/1");
	assert_int_equal(raw_get(&rs, ri, RD_ACTIVE_CONNECTIONS), 1); /* one entry on port 1 */
	assert_int_equal(raw_get(&rs, ri, RD_MISSING_MASK) & M_ACTIVE, 0);
	ri = find_inst(&rs, "mlx5_0/2");
	assert_int_equal(raw_get(&rs, ri, RD_ACTIVE_CONNECTIONS), 3); /* three on port 2 (of 5) */
	assert_int_equal(raw_get(&rs, ri, RD_MISSING_MASK) & M_ACTIVE, 0);
	ri = find_inst(&rs, "qib0/1");
	assert_false(raw_present(&rs, ri) & BIT(RD_ACTIVE_CONNECTIONS)); /* no cm_id entry */
	assert_int_equal(raw_get(&rs, ri, RD_MISSING_MASK) & M_ACTIVE, M_ACTIVE);
	/* describe: a port with a count has no note, nor bit 4 in its mask's;
	 * -l -v names the port without one */
	assert_int_equal(PROV.describe(st, counter(ACTIVE), "mlx4_0/1", note, sizeof(note)), 0);
	assert_int_equal(PROV.describe(st, counter(MASK), "mlx4_0/1", note, sizeof(note)), 0);
	assert_int_not_equal(PROV.describe(st, counter(ACTIVE), "qib0/1", note, sizeof(note)), 0);
	assert_non_null(strstr(note, "bit 4 of the Missing Counter Mask"));
	assert_int_not_equal(PROV.describe(st, counter(MASK), "qib0/1", note, sizeof(note)), 0);
	/* 33554463: bits 0-4 and 25, bit 4 kept (no count) */
	assert_string_equal(note, "here set: 0 1 2 3 4 25 (counters with no source on this port)");
	assert_int_not_equal(PROV.describe(st, counter(ACTIVE), NULL, note, sizeof(note)), 0);
	assert_string_equal(note, "here no source on qib0/1");

	/* Read 2: mlx5_0 has none (no per-port dump needed: 0 on both);
	 * read 3: mlx5_0's dump fails (its ports have none), mlx4_0 keeps its
	 * value. */
	res_dev(&b, 3, 0, "mlx4_0", 0, 0);
	res_dev(&b, 3, 1, "mlx5_0", 0, 0);
	msg_status(&b, NLMSG_DONE, 3, 0);
	nlb_send(sv[0], &b);
	raw_set_begin(&rs);
	assert_int_equal(PROV.read(st, &rs, &err), 0);
	expect_request(sv[0], RES_GET, 3, -1);
	assert_int_equal(raw_get(&rs, find_inst(&rs, "mlx4_0/1"), RD_ACTIVE_CONNECTIONS), 0);
	assert_int_equal(raw_get(&rs, find_inst(&rs, "mlx5_0/1"), RD_ACTIVE_CONNECTIONS), 0);
	assert_int_equal(raw_get(&rs, find_inst(&rs, "mlx5_0/2"), RD_ACTIVE_CONNECTIONS), 0);
	assert_true(raw_present(&rs, find_inst(&rs, "mlx5_0/2")) & BIT(RD_ACTIVE_CONNECTIONS));
	assert_false(raw_present(&rs, find_inst(&rs, "qib0/1")) & BIT(RD_ACTIVE_CONNECTIONS));

	res_dev(&b, 4, 0, "mlx4_0", 2, 0);
	res_dev(&b, 4, 1, "mlx5_0", 6, 0);
	msg_status(&b, NLMSG_DONE, 4, 0);
	nlb_send(sv[0], &b);
	msg_status(&b, NLMSG_ERROR, 5, -ENOENT);
	nlb_send(sv[0], &b);
	raw_set_begin(&rs);
	assert_int_equal(PROV.read(st, &rs, &err), 0);
	expect_request(sv[0], RES_GET, 4, -1);
	expect_request(sv[0], CM_ID_GET, 5, 1);
	assert_int_equal(raw_get(&rs, find_inst(&rs, "mlx4_0/1"), RD_ACTIVE_CONNECTIONS), 2);
	ri = find_inst(&rs, "mlx5_0/1");
	assert_false(raw_present(&rs, ri) & BIT(RD_ACTIVE_CONNECTIONS));
	assert_int_equal(raw_get(&rs, ri, RD_MISSING_MASK) & M_ACTIVE, M_ACTIVE);

	/* Read 4: the summary dump itself fails: no port has a count. */
	msg_status(&b, NLMSG_ERROR, 6, -EPERM);
	nlb_send(sv[0], &b);
	raw_set_begin(&rs);
	assert_int_equal(PROV.read(st, &rs, &err), 0);
	expect_request(sv[0], RES_GET, 6, -1);
	for (size_t i = 0; i < rs.ninstances; i++) {
		assert_false(raw_present_at(&rs, i) & BIT(RD_ACTIVE_CONNECTIONS));
		assert_int_equal(raw_get(&rs, &rs.inst[i], RD_MISSING_MASK) & M_ACTIVE, M_ACTIVE);
	}

	/* Read 5: more devices than the state has room for (8): it grows and
	 * dumps again. */
	for (int round = 7; round <= 8; round++) {
		char name[32];

		for (int k = 0; k < 10; k++) {
			snprintf(name, sizeof(name), "extra%d", k);
			res_dev(&b, (uint32_t)round, (uint32_t)(10 + k), name, 1, 0);
		}
		res_dev(&b, (uint32_t)round, 0, "mlx4_0", round == 7 ? 70 : 80, 0);
		msg_status(&b, NLMSG_DONE, (uint32_t)round, 0);
		nlb_send(sv[0], &b);
	}
	raw_set_begin(&rs);
	assert_int_equal(PROV.read(st, &rs, &err), 0);
	expect_request(sv[0], RES_GET, 7, -1);
	expect_request(sv[0], RES_GET, 8, -1);
	/* the second dump's count */
	assert_int_equal(raw_get(&rs, find_inst(&rs, "mlx4_0/1"), RD_ACTIVE_CONNECTIONS), 80);
	raw_set_free(&rs);
	PROV.close(st); /* closes sv[1] */
	close(sv[0]);
	procfs_free(fs);
}

/* No sys/class/infiniband under a root: no instances, no error. */
static void
test_no_devices(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "nicpower-basic", 2, ALL_FIELDS);
	assert_int_equal(s.rs[0].ninstances, 0);
	assert_int_equal(s.rs[1].ninstances, 0);
	series_free(&s);
}

/* This machine: no RDMA hardware, so no instances (skipped where there
 * is some). */
static void
test_live(void **unused)
{
	struct provider_ctx ctx;
	struct procfs *fs;
	struct err err = { "" };
	struct raw_set rs;
	void *st;

	(void)unused;
	if (access("/sys/class/infiniband", F_OK) == 0) {
		printf("this machine has /sys/class/infiniband: not checking for no instances\n");
		skip();
	}
	fs = procfs_new(NULL, 0);
	ctx.fs = fs;
	ctx.needed = ALL_FIELDS;
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	st = PROV.open(&ctx, &err);
	assert_non_null(st);
	raw_set_init(&rs, PROV.set);
	for (int i = 0; i < 2; i++) {
		raw_set_begin(&rs);
		assert_int_equal(PROV.read(st, &rs, &err), 0);
		assert_int_equal(rs.ninstances, 0);
	}
	PROV.close(st);
	/* RDMA Active Connections alone: the rdma netlink socket is opened
	 * where the kernel has one, and still no port to give a count to */
	ctx.needed = BIT(RD_ACTIVE_CONNECTIONS);
	st = PROV.open(&ctx, &err);
	assert_non_null(st);
	raw_set_begin(&rs);
	assert_int_equal(PROV.read(st, &rs, &err), 0);
	assert_int_equal(rs.ninstances, 0);
	raw_set_free(&rs);
	PROV.close(st);
	procfs_free(fs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_counter),
		cmocka_unit_test(test_missing_mask),
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_mlx5_two_ports),
		cmocka_unit_test(test_mlx4_old_layout),
		cmocka_unit_test(test_qib_legacy_saturated),
		cmocka_unit_test(test_rxe_appears),
		cmocka_unit_test(test_needed),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_no_devices),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_nl_summary),
		cmocka_unit_test(test_nl_errors),
		cmocka_unit_test(test_nl_cm_ids),
		cmocka_unit_test(test_active_connections),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
