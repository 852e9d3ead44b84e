/*
 * test_tcpip.c - the TCP, UDPv4, UDPv6, IPv4, IPv6, ICMP and ICMPv6 sets and
 * the netsnmp table parser: the parser on strings (names found by header,
 * MaxConn's -1, Tcp vs TcpExt and Udp vs UdpLite, remapping only when the
 * header changes), then every counter end to end through derive over the
 * fixture series tests/fixtures/tcpip-*: a 6.x kernel (tcpip-basic), a
 * 2.6-era kernel without InCsumErrors, RcvbufErrors, Icmp6OutErrors and an
 * early TcpExt without TCPTimeouts (tcpip-old), no snmp6 and no netstat
 * (tcpip-nosnmp6), unknown names in the middle of every header
 * (tcpip-extra), reading only what the requested counters need, and the
 * live kernel's files.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "derive.h"
#include "netsnmp.h"
#include "provider.h"

extern const struct provider provider_tcp;
extern const struct provider provider_udpv4;
extern const struct provider provider_udpv6;
extern const struct provider provider_ipv4;
extern const struct provider provider_ipv6;
extern const struct provider provider_icmp;
extern const struct provider provider_icmpv6;

static const struct provider *const all_providers[] = {
	&provider_tcp, &provider_udpv4, &provider_udpv6, &provider_ipv4,
	&provider_ipv6, &provider_icmp, &provider_icmpv6,
};

#define MAX_ROOTS 4
#define ALL ~(uint64_t)0

/* A fixture series read through a provider, one raw_set per root. */
struct series {
	struct procfs *fs;
	struct provider_ctx ctx;
	const struct provider *prov;
	void *state;
	size_t n;
	double uptime[MAX_ROOTS];
	struct raw_set rs[MAX_ROOTS];
};

/* Read roots ../fixtures/CASE/t0 .. t(n-1) with provider p. */
static void
series_load(struct series *s, const struct provider *p, const char *fixture, size_t n,
	    uint64_t needed)
{
	char paths[MAX_ROOTS][256];
	const char *roots[MAX_ROOTS];
	struct err err = { "" };

	assert_true(n <= MAX_ROOTS);
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "../fixtures/%s/t%zu", fixture, i);
		roots[i] = paths[i];
	}
	s->fs = procfs_new(roots, n);
	s->ctx.fs = s->fs;
	s->ctx.needed = needed;
	s->prov = p;
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		char buf[64];

		assert_int_equal(procfs_begin_read(s->fs, i, &err), 0);
		if (i == 0) {
			s->state = p->open(&s->ctx, &err);
			assert_non_null(s->state);
		}
		raw_set_init(&s->rs[i], p->set);
		raw_set_begin(&s->rs[i]);
		if (p->read(s->state, &s->rs[i], &err) != 0)
			fail_msg("%s: %s", paths[i], err.msg);
		assert_int_equal(s->rs[i].ninstances, 1);
		assert_string_equal(raw_name_at(&s->rs[i], 0), "");
		assert_true(procfs_read_small(s->fs, "proc/uptime", buf, sizeof(buf)) > 0);
		s->uptime[i] = strtod(buf, NULL);
	}
}

static void
series_free(struct series *s)
{
	s->prov->close(s->state);
	for (size_t i = 0; i < s->n; i++)
		raw_set_free(&s->rs[i]);
	procfs_free(s->fs);
}

static double
dt_at(const struct series *s, size_t i)
{
	return i > 0 ? s->uptime[i] - s->uptime[i - 1] : 0;
}

/* The value of counter c of the one instance over the interval ending at
 * read i (i = 0: the first read). */
static struct value
value_of(const struct series *s, size_t i, const struct counter_desc *c)
{
	struct derive_env env = { dt_at(s, i), 0, 100, 64 };
	FIELD_DELTAS_DECLARE(d);

	if (i == 0)
		return derive_value(&s->rs[0], c, &s->rs[0].inst[0], NULL, ST_FIRST, &env);
	derive_deltas(&s->rs[i - 1], &s->rs[i - 1].inst[0], &s->rs[i], &s->rs[i].inst[0], &env, &d);
	return derive_value(&s->rs[i], c, &s->rs[i].inst[0], &d, ST_OK, &env);
}

static const struct counter_desc *
counter(const struct counter_set *set, const char *name)
{
	const struct counter_desc *c = counter_set_find(set, name);

	if (!c)
		fail_msg("no counter '%s' in %s", name, set->name);
	return c;
}

/* One expected value: status ST_OK (0) unless st says otherwise. */
struct want {
	const char *counter;
	double v;
	uint8_t st;
};

#define OKV(name, v) { (name), (v), ST_OK }
#define NOV(name, st) { (name), 0, (st) }
#define FIRSTV(name, v) { (name), (v), ST_FIRST }

static void
check(const struct series *s, size_t i, const struct want *w)
{
	struct value got = value_of(s, i, counter(s->prov->set, w->counter));

	if (got.status != w->st)
		fail_msg("%s read %zu %s: status %s, want %s", s->prov->set->name, i, w->counter,
			 status_name(got.status), status_name(w->st));
	if (w->st != ST_OK && w->st != ST_FIRST)
		return;
	if (w->st == ST_FIRST && counter_type_needs_two(counter(s->prov->set, w->counter)->type))
		return;
	if (!isfinite(got.v) || fabs(got.v - w->v) > 1e-9 * fmax(1.0, fabs(w->v)))
		fail_msg("%s read %zu %s: %.12g, want %.12g", s->prov->set->name, i, w->counter,
			 got.v, w->v);
}

/* Check a table of values at read i; with all set, the table must name
 * every counter of the set. */
static void
check_table(const struct series *s, size_t i, const struct want *w, size_t n, int all)
{
	for (size_t k = 0; k < n; k++)
		check(s, i, &w[k]);
	if (all)
		assert_int_equal(n, s->prov->set->ncounters);
}

#define CHECK_ALL(s, i, table) check_table((s), (i), (table), ARRAY_SIZE(table), 1)
#define CHECK_SOME(s, i, table) check_table((s), (i), (table), ARRAY_SIZE(table), 0)

/* Load fixture for provider p and check the tables of each read given. */
static void
check_series(const struct provider *p, const char *fixture, size_t n, const struct want *const *t,
	     const size_t *nt, int all)
{
	struct series s;

	series_load(&s, p, fixture, n, ALL);
	for (size_t i = 0; i < n; i++)
		if (t[i])
			check_table(&s, i, t[i], nt[i], all);
	series_free(&s);
}

#define CHECK3(p, fixture, a, b, c)                                                                \
	check_series((p), (fixture), 3, (const struct want *const[]){ (a), (b), (c) },            \
		     (const size_t[]){ ARRAY_SIZE(a), ARRAY_SIZE(b), ARRAY_SIZE(c) }, 1)

/* ---- the sets' shape */

static const char *const tcp_names[] = {
	"Segments/sec", "Segments Received/sec", "Segments Sent/sec", "Segments Retransmitted/sec",
	"Connections Established", "Connections Active", "Connections Active/sec",
	"Connections Passive", "Connections Passive/sec", "Connection Failures",
	"Connection Failures/sec", "Connections Reset", "Connections Reset/sec",
	"Segments Received Errors", "Segments Received Errors/sec", "Checksum Errors",
	"Checksum Errors/sec", "Resets Sent/sec", "Listen Overflows/sec", "Listen Drops/sec",
	"Timeouts/sec",
};

static const char *const udp_names[] = {
	"Datagrams/sec", "Datagrams Received/sec", "Datagrams Sent/sec", "Datagrams No Port/sec",
	"Datagrams Received Errors", "Datagrams Received Errors/sec", "Receive Buffer Errors/sec",
};

static const char *const ip_names[] = {
	"Datagrams/sec", "Datagrams Received/sec", "Datagrams Sent/sec",
	"Datagrams Forwarded/sec", "Datagrams Received Delivered/sec",
	"Datagrams Received Header Errors", "Datagrams Received Header Errors/sec",
	"Datagrams Received Address Errors", "Datagrams Received Address Errors/sec",
	"Datagrams Received Unknown Protocol", "Datagrams Received Unknown Protocol/sec",
	"Datagrams Received Discarded", "Datagrams Received Discarded/sec",
	"Datagrams Outbound Discarded", "Datagrams Outbound Discarded/sec",
	"Datagrams Outbound No Route", "Datagrams Outbound No Route/sec",
	"Fragments Received/sec", "Fragments Re-assembled/sec", "Fragment Re-assembly Failures",
	"Fragment Re-assembly Failures/sec", "Fragmented Datagrams/sec", "Fragmentation Failures",
	"Fragmentation Failures/sec", "Fragments Created/sec",
};

static const char *const icmp_names[] = {
	"Messages/sec", "Messages Received/sec", "Messages Sent/sec", "Messages Received Errors",
	"Messages Received Errors/sec", "Messages Outbound Errors", "Messages Outbound Errors/sec",
	"Received Echo/sec", "Received Echo Reply/sec", "Received Redirect/sec", "Sent Echo/sec",
	"Sent Echo Reply/sec", "Sent Redirect/sec", "Received Dest. Unreachable",
	"Received Dest. Unreachable/sec", "Received Time Exceeded", "Received Time Exceeded/sec",
	"Received Parameter Problem", "Received Parameter Problem/sec",
	"Sent Destination Unreachable", "Sent Destination Unreachable/sec", "Sent Time Exceeded",
	"Sent Time Exceeded/sec", "Sent Parameter Problem", "Sent Parameter Problem/sec",
};

/* Names exactly as COUNTERS.md section 8, each counter with help and unit,
 * every field an unsigned long, every RAW count with its /sec RATE twin
 * (same fields) except the gauge Connections Established, and the sets in
 * the provider table in order, found by name. */
static void
test_set_shape(void **unused)
{
	static const struct {
		const char *name;
		const char *const *counters;
		size_t n;
	} want[] = {
		{ "TCP", tcp_names, ARRAY_SIZE(tcp_names) },
		{ "UDPv4", udp_names, ARRAY_SIZE(udp_names) },
		{ "UDPv6", udp_names, ARRAY_SIZE(udp_names) },
		{ "IPv4", ip_names, ARRAY_SIZE(ip_names) },
		{ "IPv6", ip_names, ARRAY_SIZE(ip_names) },
		{ "ICMP", icmp_names, ARRAY_SIZE(icmp_names) },
		{ "ICMPv6", icmp_names, ARRAY_SIZE(icmp_names) },
	};
	size_t first = nproviders;

	(void)unused;
	for (size_t k = 0; k < nproviders; k++)
		if (providers[k] == &provider_tcp)
			first = k;
	assert_true(first + ARRAY_SIZE(want) <= nproviders);
	for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
		const struct counter_set *set = all_providers[k]->set;

		assert_ptr_equal(providers[first + k], all_providers[k]);
		assert_ptr_equal(provider_find(want[k].name), all_providers[k]);
		assert_string_equal(set->name, want[k].name);
		assert_false(set->multi_instance);
		assert_false(set->has_total);
		assert_non_null(set->help);
		assert_int_equal(set->ncounters, want[k].n);
		for (size_t i = 0; i < want[k].n; i++)
			assert_string_equal(set->counters[i].name, want[k].counters[i]);
		for (size_t f = 0; f < set->nfields; f++) {
			assert_int_equal(set->fields[f].width, FW_ULONG);
			int gauge = strcmp(set->fields[f].name, "CurrEstab") == 0;

			assert_int_equal(set->fields[f].kind, gauge ? FK_GAUGE : FK_COUNTER);
		}
		for (size_t i = 0; i < set->ncounters; i++) {
			const struct counter_desc *c = &set->counters[i], *twin;
			char name[128];

			assert_non_null(c->help);
			assert_non_null(c->unit);
			assert_true(c->type == CT_RAW || c->type == CT_RATE);
			assert_string_equal(c->unit, c->type == CT_RATE ? "/s" : "");
			if (c->type != CT_RAW || strcmp(c->name, "Connections Established") == 0)
				continue;
			snprintf(name, sizeof(name), "%s/sec", c->name);
			twin = counter(set, name);
			assert_int_equal(twin->type, CT_RATE);
			assert_int_equal(counter_fields(twin), counter_fields(c));
		}
	}
}

/* ---- the parser on strings */

static const char *const tcp_keys[] = { "ActiveOpens", "MaxConn", "InSegs", "InCsumErrors",
					"RtoMin", "NotThere" };

/* Values by header name; MaxConn's -1 is no value; only wanted names are
 * stored; "Tcp:" is not "TcpExt:", and "Udp:" not "UdpLite:". */
static void
test_parse_table(void **unused)
{
	const char text[] = "TcpExt: ActiveOpens InSegs\n"
			    "TcpExt: 91 92\n"
			    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens "
			    "InSegs\n"
			    "Tcp: 1 200 120000 -1 17 3 18446744073709551615\n"
			    "UdpLite: InDatagrams NoPorts\n"
			    "UdpLite: 777 778\n"
			    "Udp: InDatagrams NoPorts\n"
			    "Udp: 5 6"; /* no final newline */
	static const char *const udp_keys[] = { "NoPorts", "InDatagrams" };
	struct netsnmp_table t;
	uint64_t v[6] = { 0 };
	uint64_t got;

	(void)unused;
	netsnmp_table_init(&t, "Tcp", tcp_keys, ARRAY_SIZE(tcp_keys));
	got = netsnmp_table_read(&t, text, strlen(text), ALL, v);
	/* ActiveOpens, InSegs, RtoMin; MaxConn is -1, InCsumErrors and
	 * NotThere are not in this header */
	assert_int_equal(got, 0x1 | 0x4 | 0x10);
	assert_int_equal(v[0], 17);
	assert_true(v[2] == UINT64_MAX);
	assert_int_equal(v[4], 200);
	assert_int_equal(t.have, 0x1 | 0x2 | 0x4 | 0x10);
	assert_int_equal(t.remaps, 1);
	/* only the wanted names are stored */
	memset(v, 0, sizeof(v));
	got = netsnmp_table_read(&t, text, strlen(text), 0x1, v);
	assert_int_equal(got, 0x1);
	assert_int_equal(v[0], 17);
	assert_int_equal(v[2], 0);
	assert_int_equal(t.remaps, 1); /* same header: no remap */
	got = netsnmp_table_read(&t, text, strlen(text), 0, v);
	assert_int_equal(got, 0);
	netsnmp_table_free(&t);

	netsnmp_table_init(&t, "Udp", udp_keys, ARRAY_SIZE(udp_keys));
	got = netsnmp_table_read(&t, text, strlen(text), ALL, v);
	assert_int_equal(got, 0x3);
	assert_int_equal(v[0], 6);
	assert_int_equal(v[1], 5);
	netsnmp_table_free(&t);
}

/* A header that changes is mapped again (new names in the middle, names
 * moved); one that does not is not. Odd value lines lose only what they
 * lack. */
static void
test_parse_remap(void **unused)
{
	const char a[] = "Tcp: RtoMin MaxConn ActiveOpens InSegs\nTcp: 200 -1 10 20\n";
	const char b[] = "Tcp: RtoMin MaxConn New1 ActiveOpens New2 InSegs InCsumErrors\n"
			 "Tcp: 200 -1 -5 11 99 21 3\n";
	const char moved[] = "Tcp: InSegs InCsumErrors RtoMin ActiveOpens\n"
			     "Tcp: 22 4 201 12\n";
	const char shorter[] = "Tcp: RtoMin MaxConn ActiveOpens InSegs\nTcp: 200 -1 13\n";
	const char junk[] = "Tcp: RtoMin MaxConn ActiveOpens InSegs\nTcp: 200 -1 1x4 -\n";
	const char novalues[] = "Tcp: RtoMin MaxConn ActiveOpens InSegs\nIp: 1 2 3 4\n";
	const char header_last[] = "Ip: 1\nTcp: RtoMin MaxConn ActiveOpens InSegs\n";
	const char none[] = "Ip: Forwarding\nIp: 1\n";
	struct netsnmp_table t;
	uint64_t v[6] = { 0 };

	(void)unused;
	netsnmp_table_init(&t, "Tcp", tcp_keys, ARRAY_SIZE(tcp_keys));
	assert_int_equal(netsnmp_table_read(&t, a, strlen(a), ALL, v), 0x1 | 0x4 | 0x10);
	assert_int_equal(v[0], 10);
	assert_int_equal(v[2], 20);
	assert_int_equal(netsnmp_table_read(&t, b, strlen(b), ALL, v), 0x1 | 0x4 | 0x8 | 0x10);
	assert_int_equal(t.remaps, 2);
	assert_int_equal(v[0], 11); /* past New1 = -5 */
	assert_int_equal(v[2], 21); /* past New2 = 99 */
	assert_int_equal(v[3], 3);
	assert_int_equal(netsnmp_table_read(&t, b, strlen(b), ALL, v), 0x1 | 0x4 | 0x8 | 0x10);
	assert_int_equal(t.remaps, 2);
	assert_int_equal(netsnmp_table_read(&t, moved, strlen(moved), ALL, v),
			 0x1 | 0x4 | 0x8 | 0x10);
	assert_int_equal(t.remaps, 3);
	assert_int_equal(v[0], 12);
	assert_int_equal(v[2], 22);
	assert_int_equal(v[3], 4);
	assert_int_equal(v[4], 201);
	/* a value line shorter than its header */
	assert_int_equal(netsnmp_table_read(&t, shorter, strlen(shorter), ALL, v), 0x1 | 0x10);
	assert_int_equal(v[0], 13);
	/* values that are not whole unsigned numbers */
	assert_int_equal(netsnmp_table_read(&t, junk, strlen(junk), ALL, v), 0x10);
	assert_int_equal(t.remaps, 4); /* a, b, moved, shorter; junk has shorter's header */
	assert_int_equal(netsnmp_table_read(&t, novalues, strlen(novalues), ALL, v), 0);
	assert_int_equal(netsnmp_table_read(&t, header_last, strlen(header_last), ALL, v), 0);
	assert_int_equal(netsnmp_table_read(&t, none, strlen(none), ALL, v), 0);
	assert_int_equal(netsnmp_table_read(&t, "", 0, ALL, v), 0);
	netsnmp_table_free(&t);
}

/* ---- tcpip-basic: a 6.x kernel; dt(t0,t1) = 2 s, dt(t1,t2) = 4 s.
 * The raw values are in the fixture files; each expected value shows its
 * arithmetic. On the first read the counts have values, the rates none. */

static const struct want tcp_t0[] = {
	NOV("Segments/sec", ST_FIRST),
	NOV("Segments Received/sec", ST_FIRST),
	NOV("Segments Sent/sec", ST_FIRST),
	NOV("Segments Retransmitted/sec", ST_FIRST),
	FIRSTV("Connections Established", 7),
	FIRSTV("Connections Active", 1000),
	NOV("Connections Active/sec", ST_FIRST),
	FIRSTV("Connections Passive", 500),
	NOV("Connections Passive/sec", ST_FIRST),
	FIRSTV("Connection Failures", 20),
	NOV("Connection Failures/sec", ST_FIRST),
	FIRSTV("Connections Reset", 30),
	NOV("Connections Reset/sec", ST_FIRST),
	FIRSTV("Segments Received Errors", 4),
	NOV("Segments Received Errors/sec", ST_FIRST),
	FIRSTV("Checksum Errors", 2),
	NOV("Checksum Errors/sec", ST_FIRST),
	NOV("Resets Sent/sec", ST_FIRST),
	NOV("Listen Overflows/sec", ST_FIRST),
	NOV("Listen Drops/sec", ST_FIRST),
	NOV("Timeouts/sec", ST_FIRST),
};

static const struct want tcp_t1[] = {
	OKV("Segments/sec", 2500),              /* (5000002000 - 5000000000 + 93000 - 90000) / 2 */
	OKV("Segments Received/sec", 1000),     /* (5000002000 - 5000000000) / 2 */
	OKV("Segments Sent/sec", 1500),         /* (93000 - 90000) / 2 */
	OKV("Segments Retransmitted/sec", 5),   /* (310 - 300) / 2 */
	OKV("Connections Established", 9),      /* CurrEstab */
	OKV("Connections Active", 1010),
	OKV("Connections Active/sec", 5),       /* (1010 - 1000) / 2 */
	OKV("Connections Passive", 506),
	OKV("Connections Passive/sec", 3),      /* (506 - 500) / 2 */
	OKV("Connection Failures", 22),
	OKV("Connection Failures/sec", 1),      /* (22 - 20) / 2 */
	OKV("Connections Reset", 34),
	OKV("Connections Reset/sec", 2),        /* (34 - 30) / 2 */
	OKV("Segments Received Errors", 8),
	OKV("Segments Received Errors/sec", 2), /* (8 - 4) / 2 */
	OKV("Checksum Errors", 2),
	OKV("Checksum Errors/sec", 0),          /* (2 - 2) / 2 */
	OKV("Resets Sent/sec", 5),              /* (260 - 250) / 2 */
	OKV("Listen Overflows/sec", 2),         /* (14 - 10) / 2 */
	OKV("Listen Drops/sec", 3),             /* (18 - 12) / 2 */
	OKV("Timeouts/sec", 2),                 /* (104 - 100) / 2 */
};

static const struct want tcp_t2[] = {
	OKV("Segments/sec", 5000),              /* (8000 + 12000) / 4 */
	OKV("Segments Received/sec", 2000),     /* (5000010000 - 5000002000) / 4 */
	OKV("Segments Sent/sec", 3000),         /* (105000 - 93000) / 4 */
	OKV("Segments Retransmitted/sec", 5),   /* (330 - 310) / 4 */
	OKV("Connections Established", 3),      /* a gauge goes down freely */
	OKV("Connections Active", 1030),
	OKV("Connections Active/sec", 5),       /* (1030 - 1010) / 4 */
	OKV("Connections Passive", 510),
	OKV("Connections Passive/sec", 1),      /* (510 - 506) / 4 */
	OKV("Connection Failures", 22),
	OKV("Connection Failures/sec", 0),      /* (22 - 22) / 4 */
	OKV("Connections Reset", 42),
	OKV("Connections Reset/sec", 2),        /* (42 - 34) / 4 */
	OKV("Segments Received Errors", 8),
	OKV("Segments Received Errors/sec", 0), /* (8 - 8) / 4 */
	OKV("Checksum Errors", 4),
	OKV("Checksum Errors/sec", 0.5),        /* (4 - 2) / 4 */
	OKV("Resets Sent/sec", 1),              /* (264 - 260) / 4 */
	OKV("Listen Overflows/sec", 0),         /* (14 - 14) / 4 */
	OKV("Listen Drops/sec", 0.5),           /* (20 - 18) / 4 */
	OKV("Timeouts/sec", 5),                 /* (124 - 104) / 4 */
};

static const struct want udpv4_t0[] = {
	NOV("Datagrams/sec", ST_FIRST),
	NOV("Datagrams Received/sec", ST_FIRST),
	NOV("Datagrams Sent/sec", ST_FIRST),
	NOV("Datagrams No Port/sec", ST_FIRST),
	FIRSTV("Datagrams Received Errors", 6),
	NOV("Datagrams Received Errors/sec", ST_FIRST),
	NOV("Receive Buffer Errors/sec", ST_FIRST),
};

static const struct want udpv4_t1[] = {
	OKV("Datagrams/sec", 500),                /* (5600 - 5000 + 4400 - 4000) / 2 */
	OKV("Datagrams Received/sec", 300),       /* (5600 - 5000) / 2 */
	OKV("Datagrams Sent/sec", 200),           /* (4400 - 4000) / 2 */
	OKV("Datagrams No Port/sec", 2),          /* (44 - 40) / 2 */
	OKV("Datagrams Received Errors", 10),
	OKV("Datagrams Received Errors/sec", 2),  /* (10 - 6) / 2 */
	OKV("Receive Buffer Errors/sec", 1),      /* (5 - 3) / 2 */
};

static const struct want udpv4_t2[] = {
	OKV("Datagrams/sec", 300),                /* (6000 - 5600 + 5200 - 4400) / 4 */
	OKV("Datagrams Received/sec", 100),       /* 400 / 4 */
	OKV("Datagrams Sent/sec", 200),           /* 800 / 4 */
	OKV("Datagrams No Port/sec", 0),          /* (44 - 44) / 4 */
	OKV("Datagrams Received Errors", 10),
	OKV("Datagrams Received Errors/sec", 0),  /* (10 - 10) / 4 */
	OKV("Receive Buffer Errors/sec", 0),      /* (5 - 5) / 4 */
};

/* Udp6* keys; the UdpLite6* lines (5551 ..) are not taken for them. */
static const struct want udpv6_t0[] = {
	NOV("Datagrams/sec", ST_FIRST),
	NOV("Datagrams Received/sec", ST_FIRST),
	NOV("Datagrams Sent/sec", ST_FIRST),
	NOV("Datagrams No Port/sec", ST_FIRST),
	FIRSTV("Datagrams Received Errors", 1),
	NOV("Datagrams Received Errors/sec", ST_FIRST),
	NOV("Receive Buffer Errors/sec", ST_FIRST),
};

static const struct want udpv6_t1[] = {
	OKV("Datagrams/sec", 80),                 /* (760 - 700 + 1000 - 900) / 2 */
	OKV("Datagrams Received/sec", 30),        /* (760 - 700) / 2 */
	OKV("Datagrams Sent/sec", 50),            /* (1000 - 900) / 2 */
	OKV("Datagrams No Port/sec", 1),          /* (12 - 10) / 2 */
	OKV("Datagrams Received Errors", 3),
	OKV("Datagrams Received Errors/sec", 1),  /* (3 - 1) / 2 */
	OKV("Receive Buffer Errors/sec", 1),      /* (2 - 0) / 2 */
};

static const struct want udpv6_t2[] = {
	OKV("Datagrams/sec", 20),                 /* (800 - 760 + 1040 - 1000) / 4 */
	OKV("Datagrams Received/sec", 10),        /* 40 / 4 */
	OKV("Datagrams Sent/sec", 10),            /* 40 / 4 */
	OKV("Datagrams No Port/sec", 0),
	OKV("Datagrams Received Errors", 3),
	OKV("Datagrams Received Errors/sec", 0),
	OKV("Receive Buffer Errors/sec", 0),
};

static const struct want ipv4_t0[] = {
	NOV("Datagrams/sec", ST_FIRST),
	NOV("Datagrams Received/sec", ST_FIRST),
	NOV("Datagrams Sent/sec", ST_FIRST),
	NOV("Datagrams Forwarded/sec", ST_FIRST),
	NOV("Datagrams Received Delivered/sec", ST_FIRST),
	FIRSTV("Datagrams Received Header Errors", 10),
	NOV("Datagrams Received Header Errors/sec", ST_FIRST),
	FIRSTV("Datagrams Received Address Errors", 20),
	NOV("Datagrams Received Address Errors/sec", ST_FIRST),
	FIRSTV("Datagrams Received Unknown Protocol", 5),
	NOV("Datagrams Received Unknown Protocol/sec", ST_FIRST),
	FIRSTV("Datagrams Received Discarded", 6),
	NOV("Datagrams Received Discarded/sec", ST_FIRST),
	FIRSTV("Datagrams Outbound Discarded", 7),
	NOV("Datagrams Outbound Discarded/sec", ST_FIRST),
	FIRSTV("Datagrams Outbound No Route", 8),
	NOV("Datagrams Outbound No Route/sec", ST_FIRST),
	NOV("Fragments Received/sec", ST_FIRST),
	NOV("Fragments Re-assembled/sec", ST_FIRST),
	FIRSTV("Fragment Re-assembly Failures", 2),
	NOV("Fragment Re-assembly Failures/sec", ST_FIRST),
	NOV("Fragmented Datagrams/sec", ST_FIRST),
	FIRSTV("Fragmentation Failures", 1),
	NOV("Fragmentation Failures/sec", ST_FIRST),
	NOV("Fragments Created/sec", ST_FIRST),
};

static const struct want ipv4_t1[] = {
	OKV("Datagrams/sec", 800),                         /* (1000 + 600) / 2: the two below */
	OKV("Datagrams Received/sec", 500),                /* (201000 - 200000) / 2 */
	OKV("Datagrams Sent/sec", 300),                    /* (180600 - 180000) / 2 */
	OKV("Datagrams Forwarded/sec", 5),                 /* (310 - 300) / 2 */
	OKV("Datagrams Received Delivered/sec", 400),      /* (190800 - 190000) / 2 */
	OKV("Datagrams Received Header Errors", 12),
	OKV("Datagrams Received Header Errors/sec", 1),    /* (12 - 10) / 2 */
	OKV("Datagrams Received Address Errors", 20),
	OKV("Datagrams Received Address Errors/sec", 0),   /* (20 - 20) / 2 */
	OKV("Datagrams Received Unknown Protocol", 5),
	OKV("Datagrams Received Unknown Protocol/sec", 0), /* (5 - 5) / 2 */
	OKV("Datagrams Received Discarded", 8),
	OKV("Datagrams Received Discarded/sec", 1),        /* (8 - 6) / 2 */
	OKV("Datagrams Outbound Discarded", 9),
	OKV("Datagrams Outbound Discarded/sec", 1),        /* (9 - 7) / 2 */
	OKV("Datagrams Outbound No Route", 8),
	OKV("Datagrams Outbound No Route/sec", 0),         /* (8 - 8) / 2 */
	OKV("Fragments Received/sec", 10),                 /* (120 - 100) / 2 */
	OKV("Fragments Re-assembled/sec", 4),              /* (48 - 40) / 2 */
	OKV("Fragment Re-assembly Failures", 4),
	OKV("Fragment Re-assembly Failures/sec", 1),       /* (4 - 2) / 2 */
	OKV("Fragmented Datagrams/sec", 3),                /* (36 - 30) / 2 */
	OKV("Fragmentation Failures", 1),
	OKV("Fragmentation Failures/sec", 0),              /* (1 - 1) / 2 */
	OKV("Fragments Created/sec", 6),                   /* (102 - 90) / 2 */
};

static const struct want ipv4_t2[] = {
	OKV("Datagrams/sec", 1000),                        /* (2000 + 2000) / 4: the two below */
	OKV("Datagrams Received/sec", 500),                /* (203000 - 201000) / 4 */
	OKV("Datagrams Sent/sec", 500),                    /* (182600 - 180600) / 4 */
	OKV("Datagrams Forwarded/sec", 5),                 /* (330 - 310) / 4 */
	OKV("Datagrams Received Delivered/sec", 300),      /* (192000 - 190800) / 4 */
	OKV("Datagrams Received Header Errors", 16),
	OKV("Datagrams Received Header Errors/sec", 1),    /* (16 - 12) / 4 */
	OKV("Datagrams Received Address Errors", 24),
	OKV("Datagrams Received Address Errors/sec", 1),   /* (24 - 20) / 4 */
	OKV("Datagrams Received Unknown Protocol", 9),
	OKV("Datagrams Received Unknown Protocol/sec", 1), /* (9 - 5) / 4 */
	OKV("Datagrams Received Discarded", 8),
	OKV("Datagrams Received Discarded/sec", 0),
	OKV("Datagrams Outbound Discarded", 9),
	OKV("Datagrams Outbound Discarded/sec", 0),
	OKV("Datagrams Outbound No Route", 12),
	OKV("Datagrams Outbound No Route/sec", 1),         /* (12 - 8) / 4 */
	OKV("Fragments Received/sec", 0),
	OKV("Fragments Re-assembled/sec", 0),
	OKV("Fragment Re-assembly Failures", 4),
	OKV("Fragment Re-assembly Failures/sec", 0),
	OKV("Fragmented Datagrams/sec", 0),
	OKV("Fragmentation Failures", 5),
	OKV("Fragmentation Failures/sec", 1),              /* (5 - 1) / 4 */
	OKV("Fragments Created/sec", 0),
};

/* Ip6* keys: forwarding is Ip6OutForwDatagrams; Ip6InNoRoutes (99) is not
 * Ip6OutNoRoutes. */
static const struct want ipv6_t0[] = {
	NOV("Datagrams/sec", ST_FIRST),
	NOV("Datagrams Received/sec", ST_FIRST),
	NOV("Datagrams Sent/sec", ST_FIRST),
	NOV("Datagrams Forwarded/sec", ST_FIRST),
	NOV("Datagrams Received Delivered/sec", ST_FIRST),
	FIRSTV("Datagrams Received Header Errors", 1),
	NOV("Datagrams Received Header Errors/sec", ST_FIRST),
	FIRSTV("Datagrams Received Address Errors", 2),
	NOV("Datagrams Received Address Errors/sec", ST_FIRST),
	FIRSTV("Datagrams Received Unknown Protocol", 3),
	NOV("Datagrams Received Unknown Protocol/sec", ST_FIRST),
	FIRSTV("Datagrams Received Discarded", 4),
	NOV("Datagrams Received Discarded/sec", ST_FIRST),
	FIRSTV("Datagrams Outbound Discarded", 5),
	NOV("Datagrams Outbound Discarded/sec", ST_FIRST),
	FIRSTV("Datagrams Outbound No Route", 6),
	NOV("Datagrams Outbound No Route/sec", ST_FIRST),
	NOV("Fragments Received/sec", ST_FIRST),
	NOV("Fragments Re-assembled/sec", ST_FIRST),
	FIRSTV("Fragment Re-assembly Failures", 0),
	NOV("Fragment Re-assembly Failures/sec", ST_FIRST),
	NOV("Fragmented Datagrams/sec", ST_FIRST),
	FIRSTV("Fragmentation Failures", 0),
	NOV("Fragmentation Failures/sec", ST_FIRST),
	NOV("Fragments Created/sec", ST_FIRST),
};

static const struct want ipv6_t1[] = {
	OKV("Datagrams/sec", 150),                         /* (8200 - 8000 + 6100 - 6000) / 2 */
	OKV("Datagrams Received/sec", 100),                /* (8200 - 8000) / 2 */
	OKV("Datagrams Sent/sec", 50),                     /* (6100 - 6000) / 2 */
	OKV("Datagrams Forwarded/sec", 2),                 /* (44 - 40) / 2 */
	OKV("Datagrams Received Delivered/sec", 80),       /* (7160 - 7000) / 2 */
	OKV("Datagrams Received Header Errors", 3),
	OKV("Datagrams Received Header Errors/sec", 1),    /* (3 - 1) / 2 */
	OKV("Datagrams Received Address Errors", 2),
	OKV("Datagrams Received Address Errors/sec", 0),
	OKV("Datagrams Received Unknown Protocol", 3),
	OKV("Datagrams Received Unknown Protocol/sec", 0),
	OKV("Datagrams Received Discarded", 6),
	OKV("Datagrams Received Discarded/sec", 1),        /* (6 - 4) / 2 */
	OKV("Datagrams Outbound Discarded", 5),
	OKV("Datagrams Outbound Discarded/sec", 0),
	OKV("Datagrams Outbound No Route", 10),
	OKV("Datagrams Outbound No Route/sec", 2),         /* (10 - 6) / 2 */
	OKV("Fragments Received/sec", 2),                  /* (14 - 10) / 2 */
	OKV("Fragments Re-assembled/sec", 1),              /* (7 - 5) / 2 */
	OKV("Fragment Re-assembly Failures", 2),
	OKV("Fragment Re-assembly Failures/sec", 1),       /* (2 - 0) / 2 */
	OKV("Fragmented Datagrams/sec", 2),                /* (12 - 8) / 2 */
	OKV("Fragmentation Failures", 0),
	OKV("Fragmentation Failures/sec", 0),
	OKV("Fragments Created/sec", 4),                   /* (24 - 16) / 2 */
};

static const struct want ipv6_t2[] = {
	OKV("Datagrams/sec", 200),                         /* (8600 - 8200 + 6500 - 6100) / 4 */
	OKV("Datagrams Received/sec", 100),                /* 400 / 4 */
	OKV("Datagrams Sent/sec", 100),                    /* 400 / 4 */
	OKV("Datagrams Forwarded/sec", 0),
	OKV("Datagrams Received Delivered/sec", 0),
	OKV("Datagrams Received Header Errors", 3),
	OKV("Datagrams Received Header Errors/sec", 0),
	OKV("Datagrams Received Address Errors", 2),
	OKV("Datagrams Received Address Errors/sec", 0),
	OKV("Datagrams Received Unknown Protocol", 3),
	OKV("Datagrams Received Unknown Protocol/sec", 0),
	OKV("Datagrams Received Discarded", 6),
	OKV("Datagrams Received Discarded/sec", 0),
	OKV("Datagrams Outbound Discarded", 5),
	OKV("Datagrams Outbound Discarded/sec", 0),
	OKV("Datagrams Outbound No Route", 10),
	OKV("Datagrams Outbound No Route/sec", 0),
	OKV("Fragments Received/sec", 0),
	OKV("Fragments Re-assembled/sec", 0),
	OKV("Fragment Re-assembly Failures", 2),
	OKV("Fragment Re-assembly Failures/sec", 0),
	OKV("Fragmented Datagrams/sec", 0),
	OKV("Fragmentation Failures", 0),
	OKV("Fragmentation Failures/sec", 0),
	OKV("Fragments Created/sec", 0),
};

static const struct want icmp_t0[] = {
	NOV("Messages/sec", ST_FIRST),
	NOV("Messages Received/sec", ST_FIRST),
	NOV("Messages Sent/sec", ST_FIRST),
	FIRSTV("Messages Received Errors", 4),
	NOV("Messages Received Errors/sec", ST_FIRST),
	FIRSTV("Messages Outbound Errors", 1),
	NOV("Messages Outbound Errors/sec", ST_FIRST),
	NOV("Received Echo/sec", ST_FIRST),
	NOV("Received Echo Reply/sec", ST_FIRST),
	NOV("Received Redirect/sec", ST_FIRST),
	NOV("Sent Echo/sec", ST_FIRST),
	NOV("Sent Echo Reply/sec", ST_FIRST),
	NOV("Sent Redirect/sec", ST_FIRST),
	FIRSTV("Received Dest. Unreachable", 50),
	NOV("Received Dest. Unreachable/sec", ST_FIRST),
	FIRSTV("Received Time Exceeded", 6),
	NOV("Received Time Exceeded/sec", ST_FIRST),
	FIRSTV("Received Parameter Problem", 2),
	NOV("Received Parameter Problem/sec", ST_FIRST),
	FIRSTV("Sent Destination Unreachable", 20),
	NOV("Sent Destination Unreachable/sec", ST_FIRST),
	FIRSTV("Sent Time Exceeded", 3),
	NOV("Sent Time Exceeded/sec", ST_FIRST),
	FIRSTV("Sent Parameter Problem", 1),
	NOV("Sent Parameter Problem/sec", ST_FIRST),
};

static const struct want icmp_t1[] = {
	OKV("Messages/sec", 25),                    /* (320 - 300 + 290 - 260) / 2 */
	OKV("Messages Received/sec", 10),           /* (320 - 300) / 2 */
	OKV("Messages Sent/sec", 15),               /* (290 - 260) / 2 */
	OKV("Messages Received Errors", 6),
	OKV("Messages Received Errors/sec", 1),     /* (6 - 4) / 2 */
	OKV("Messages Outbound Errors", 1),
	OKV("Messages Outbound Errors/sec", 0),
	OKV("Received Echo/sec", 2),                /* (104 - 100) / 2 */
	OKV("Received Echo Reply/sec", 5),          /* (150 - 140) / 2 */
	OKV("Received Redirect/sec", 1),            /* (5 - 3) / 2 */
	OKV("Sent Echo/sec", 5),                    /* (150 - 140) / 2 */
	OKV("Sent Echo Reply/sec", 2),              /* (104 - 100) / 2 */
	OKV("Sent Redirect/sec", 0),                /* (2 - 2) / 2 */
	OKV("Received Dest. Unreachable", 54),
	OKV("Received Dest. Unreachable/sec", 2),   /* (54 - 50) / 2 */
	OKV("Received Time Exceeded", 6),
	OKV("Received Time Exceeded/sec", 0),
	OKV("Received Parameter Problem", 2),
	OKV("Received Parameter Problem/sec", 0),
	OKV("Sent Destination Unreachable", 30),
	OKV("Sent Destination Unreachable/sec", 5), /* (30 - 20) / 2 */
	OKV("Sent Time Exceeded", 5),
	OKV("Sent Time Exceeded/sec", 1),           /* (5 - 3) / 2 */
	OKV("Sent Parameter Problem", 1),
	OKV("Sent Parameter Problem/sec", 0),
};

static const struct want icmp_t2[] = {
	OKV("Messages/sec", 10),                    /* (340 - 320 + 310 - 290) / 4 */
	OKV("Messages Received/sec", 5),            /* 20 / 4 */
	OKV("Messages Sent/sec", 5),                /* 20 / 4 */
	OKV("Messages Received Errors", 6),
	OKV("Messages Received Errors/sec", 0),
	OKV("Messages Outbound Errors", 3),
	OKV("Messages Outbound Errors/sec", 0.5),   /* (3 - 1) / 4 */
	OKV("Received Echo/sec", 2),                /* (112 - 104) / 4 */
	OKV("Received Echo Reply/sec", 0),
	OKV("Received Redirect/sec", 0),
	OKV("Sent Echo/sec", 0),
	OKV("Sent Echo Reply/sec", 2),              /* (112 - 104) / 4 */
	OKV("Sent Redirect/sec", 1),                /* (6 - 2) / 4 */
	OKV("Received Dest. Unreachable", 58),
	OKV("Received Dest. Unreachable/sec", 1),   /* (58 - 54) / 4 */
	OKV("Received Time Exceeded", 10),
	OKV("Received Time Exceeded/sec", 1),       /* (10 - 6) / 4 */
	OKV("Received Parameter Problem", 2),
	OKV("Received Parameter Problem/sec", 0),
	OKV("Sent Destination Unreachable", 30),
	OKV("Sent Destination Unreachable/sec", 0),
	OKV("Sent Time Exceeded", 5),
	OKV("Sent Time Exceeded/sec", 0),
	OKV("Sent Parameter Problem", 3),
	OKV("Sent Parameter Problem/sec", 0.5),     /* (3 - 1) / 4 */
};

/* Icmp6* keys: echo replies are Icmp6In/OutEchoReplies, parameter
 * problems Icmp6In/OutParmProblems. */
static const struct want icmpv6_t0[] = {
	NOV("Messages/sec", ST_FIRST),
	NOV("Messages Received/sec", ST_FIRST),
	NOV("Messages Sent/sec", ST_FIRST),
	FIRSTV("Messages Received Errors", 2),
	NOV("Messages Received Errors/sec", ST_FIRST),
	FIRSTV("Messages Outbound Errors", 1),
	NOV("Messages Outbound Errors/sec", ST_FIRST),
	NOV("Received Echo/sec", ST_FIRST),
	NOV("Received Echo Reply/sec", ST_FIRST),
	NOV("Received Redirect/sec", ST_FIRST),
	NOV("Sent Echo/sec", ST_FIRST),
	NOV("Sent Echo Reply/sec", ST_FIRST),
	NOV("Sent Redirect/sec", ST_FIRST),
	FIRSTV("Received Dest. Unreachable", 10),
	NOV("Received Dest. Unreachable/sec", ST_FIRST),
	FIRSTV("Received Time Exceeded", 3),
	NOV("Received Time Exceeded/sec", ST_FIRST),
	FIRSTV("Received Parameter Problem", 1),
	NOV("Received Parameter Problem/sec", ST_FIRST),
	FIRSTV("Sent Destination Unreachable", 12),
	NOV("Sent Destination Unreachable/sec", ST_FIRST),
	FIRSTV("Sent Time Exceeded", 2),
	NOV("Sent Time Exceeded/sec", ST_FIRST),
	FIRSTV("Sent Parameter Problem", 0),
	NOV("Sent Parameter Problem/sec", ST_FIRST),
};

static const struct want icmpv6_t1[] = {
	OKV("Messages/sec", 50),                    /* (540 - 500 + 660 - 600) / 2 */
	OKV("Messages Received/sec", 20),           /* (540 - 500) / 2 */
	OKV("Messages Sent/sec", 30),               /* (660 - 600) / 2 */
	OKV("Messages Received Errors", 4),
	OKV("Messages Received Errors/sec", 1),     /* (4 - 2) / 2 */
	OKV("Messages Outbound Errors", 1),
	OKV("Messages Outbound Errors/sec", 0),
	OKV("Received Echo/sec", 2),                /* (24 - 20) / 2 */
	OKV("Received Echo Reply/sec", 3),          /* (36 - 30) / 2 */
	OKV("Received Redirect/sec", 1),            /* (6 - 4) / 2 */
	OKV("Sent Echo/sec", 3),                    /* (36 - 30) / 2 */
	OKV("Sent Echo Reply/sec", 2),              /* (24 - 20) / 2 */
	OKV("Sent Redirect/sec", 0),
	OKV("Received Dest. Unreachable", 14),
	OKV("Received Dest. Unreachable/sec", 2),   /* (14 - 10) / 2 */
	OKV("Received Time Exceeded", 3),
	OKV("Received Time Exceeded/sec", 0),
	OKV("Received Parameter Problem", 3),
	OKV("Received Parameter Problem/sec", 1),   /* (3 - 1) / 2 */
	OKV("Sent Destination Unreachable", 12),
	OKV("Sent Destination Unreachable/sec", 0),
	OKV("Sent Time Exceeded", 4),
	OKV("Sent Time Exceeded/sec", 1),           /* (4 - 2) / 2 */
	OKV("Sent Parameter Problem", 2),
	OKV("Sent Parameter Problem/sec", 1),       /* (2 - 0) / 2 */
};

/* t2 also gains an Icmp6OutType1 line, as the kernel adds per-type lines. */
static const struct want icmpv6_t2[] = {
	OKV("Messages/sec", 10),                    /* (560 - 540 + 680 - 660) / 4 */
	OKV("Messages Received/sec", 5),            /* 20 / 4 */
	OKV("Messages Sent/sec", 5),                /* 20 / 4 */
	OKV("Messages Received Errors", 4),
	OKV("Messages Received Errors/sec", 0),
	OKV("Messages Outbound Errors", 1),
	OKV("Messages Outbound Errors/sec", 0),
	OKV("Received Echo/sec", 0),
	OKV("Received Echo Reply/sec", 0),
	OKV("Received Redirect/sec", 0),
	OKV("Sent Echo/sec", 0),
	OKV("Sent Echo Reply/sec", 0),
	OKV("Sent Redirect/sec", 0),
	OKV("Received Dest. Unreachable", 14),
	OKV("Received Dest. Unreachable/sec", 0),
	OKV("Received Time Exceeded", 3),
	OKV("Received Time Exceeded/sec", 0),
	OKV("Received Parameter Problem", 3),
	OKV("Received Parameter Problem/sec", 0),
	OKV("Sent Destination Unreachable", 12),
	OKV("Sent Destination Unreachable/sec", 0),
	OKV("Sent Time Exceeded", 4),
	OKV("Sent Time Exceeded/sec", 0),
	OKV("Sent Parameter Problem", 2),
	OKV("Sent Parameter Problem/sec", 0),
};

static void
test_basic(void **unused)
{
	(void)unused;
	CHECK3(&provider_tcp, "tcpip-basic", tcp_t0, tcp_t1, tcp_t2);
	CHECK3(&provider_udpv4, "tcpip-basic", udpv4_t0, udpv4_t1, udpv4_t2);
	CHECK3(&provider_udpv6, "tcpip-basic", udpv6_t0, udpv6_t1, udpv6_t2);
	CHECK3(&provider_ipv4, "tcpip-basic", ipv4_t0, ipv4_t1, ipv4_t2);
	CHECK3(&provider_ipv6, "tcpip-basic", ipv6_t0, ipv6_t1, ipv6_t2);
	CHECK3(&provider_icmp, "tcpip-basic", icmp_t0, icmp_t1, icmp_t2);
	CHECK3(&provider_icmpv6, "tcpip-basic", icmpv6_t0, icmpv6_t1, icmpv6_t2);
}

/*
 * tcpip-old: a 2.6-era kernel (Tcp, Icmp and Udp without InCsumErrors, Icmp
 * without OutRateLimit*, Udp with only its first four names, snmp6 without
 * Udp6RcvbufErrors and Icmp6OutErrors) and an early 2.4 TcpExt table
 * without TCPTimeouts. t0 and t1 hold tcpip-basic's t0 and t1 values;
 * dt = 5 s.
 */
static void
test_old(void **unused)
{
	struct series s;
	static const struct want tcp[] = {
		OKV("Segments/sec", 1000),               /* (2000 + 3000) / 5 */
		OKV("Segments Received/sec", 400),       /* 2000 / 5 */
		OKV("Segments Sent/sec", 600),           /* 3000 / 5 */
		OKV("Segments Retransmitted/sec", 2),    /* (310 - 300) / 5 */
		OKV("Connections Established", 9),
		OKV("Connections Active", 1010),
		OKV("Connections Active/sec", 2),        /* (1010 - 1000) / 5 */
		OKV("Connections Passive", 506),
		OKV("Connections Passive/sec", 1.2),     /* (506 - 500) / 5 */
		OKV("Connection Failures", 22),
		OKV("Connection Failures/sec", 0.4),     /* (22 - 20) / 5 */
		OKV("Connections Reset", 34),
		OKV("Connections Reset/sec", 0.8),       /* (34 - 30) / 5 */
		OKV("Segments Received Errors", 8),
		OKV("Segments Received Errors/sec", 0.8),/* (8 - 4) / 5 */
		NOV("Checksum Errors", ST_UNSUPPORTED),
		NOV("Checksum Errors/sec", ST_UNSUPPORTED),
		OKV("Resets Sent/sec", 2),               /* (260 - 250) / 5 */
		OKV("Listen Overflows/sec", 0.8),        /* (14 - 10) / 5 */
		OKV("Listen Drops/sec", 1.2),            /* (18 - 12) / 5 */
		NOV("Timeouts/sec", ST_UNSUPPORTED),
	};
	static const struct want udpv4[] = {
		OKV("Datagrams/sec", 200),               /* (600 + 400) / 5 */
		OKV("Datagrams Received/sec", 120),      /* 600 / 5 */
		OKV("Datagrams Sent/sec", 80),           /* 400 / 5 */
		OKV("Datagrams No Port/sec", 0.8),       /* (44 - 40) / 5 */
		OKV("Datagrams Received Errors", 10),
		OKV("Datagrams Received Errors/sec", 0.8), /* (10 - 6) / 5 */
		NOV("Receive Buffer Errors/sec", ST_UNSUPPORTED),
	};
	static const struct want udpv6[] = {
		OKV("Datagrams/sec", 32),                /* (60 + 100) / 5 */
		OKV("Datagrams Received/sec", 12),       /* 60 / 5 */
		OKV("Datagrams Sent/sec", 20),           /* 100 / 5 */
		OKV("Datagrams No Port/sec", 0.4),       /* (12 - 10) / 5 */
		OKV("Datagrams Received Errors", 3),
		OKV("Datagrams Received Errors/sec", 0.4), /* (3 - 1) / 5 */
		NOV("Receive Buffer Errors/sec", ST_UNSUPPORTED),
	};
	static const struct want ipv4[] = {
		OKV("Datagrams/sec", 320),               /* (1000 + 600) / 5 */
		OKV("Datagrams Received Header Errors", 12),
		OKV("Fragments Created/sec", 2.4),       /* (102 - 90) / 5: the last column now */
	};
	static const struct want ipv6[] = {
		OKV("Datagrams/sec", 60),                /* (200 + 100) / 5 */
		OKV("Datagrams Forwarded/sec", 0.8),     /* (44 - 40) / 5 */
	};
	/* every name after InErrors sits one column earlier than on 6.x */
	static const struct want icmp[] = {
		OKV("Messages/sec", 10),                    /* (20 + 30) / 5 */
		OKV("Messages Received/sec", 4),            /* 20 / 5 */
		OKV("Messages Sent/sec", 6),                /* 30 / 5 */
		OKV("Messages Received Errors", 6),
		OKV("Messages Received Errors/sec", 0.4),   /* (6 - 4) / 5 */
		OKV("Messages Outbound Errors", 1),
		OKV("Messages Outbound Errors/sec", 0),
		OKV("Received Echo/sec", 0.8),              /* (104 - 100) / 5 */
		OKV("Received Echo Reply/sec", 2),          /* (150 - 140) / 5 */
		OKV("Received Redirect/sec", 0.4),          /* (5 - 3) / 5 */
		OKV("Sent Echo/sec", 2),                    /* (150 - 140) / 5 */
		OKV("Sent Echo Reply/sec", 0.8),            /* (104 - 100) / 5 */
		OKV("Sent Redirect/sec", 0),
		OKV("Received Dest. Unreachable", 54),
		OKV("Received Dest. Unreachable/sec", 0.8), /* (54 - 50) / 5 */
		OKV("Received Time Exceeded", 6),
		OKV("Received Time Exceeded/sec", 0),
		OKV("Received Parameter Problem", 2),
		OKV("Received Parameter Problem/sec", 0),
		OKV("Sent Destination Unreachable", 30),
		OKV("Sent Destination Unreachable/sec", 2), /* (30 - 20) / 5 */
		OKV("Sent Time Exceeded", 5),
		OKV("Sent Time Exceeded/sec", 0.4),         /* (5 - 3) / 5 */
		OKV("Sent Parameter Problem", 1),
		OKV("Sent Parameter Problem/sec", 0),
	};
	static const struct want icmpv6[] = {
		OKV("Messages/sec", 20),                 /* (40 + 60) / 5 */
		NOV("Messages Outbound Errors", ST_UNSUPPORTED),
		NOV("Messages Outbound Errors/sec", ST_UNSUPPORTED),
		OKV("Messages Received Errors", 4),
		OKV("Sent Parameter Problem/sec", 0.4),  /* (2 - 0) / 5 */
	};

	(void)unused;
	series_load(&s, &provider_tcp, "tcpip-old", 2, ALL);
	CHECK_ALL(&s, 1, tcp);
	series_free(&s);
	series_load(&s, &provider_udpv4, "tcpip-old", 2, ALL);
	CHECK_ALL(&s, 1, udpv4);
	series_free(&s);
	series_load(&s, &provider_udpv6, "tcpip-old", 2, ALL);
	CHECK_ALL(&s, 1, udpv6);
	series_free(&s);
	series_load(&s, &provider_ipv4, "tcpip-old", 2, ALL);
	CHECK_SOME(&s, 1, ipv4);
	series_free(&s);
	series_load(&s, &provider_ipv6, "tcpip-old", 2, ALL);
	CHECK_SOME(&s, 1, ipv6);
	series_free(&s);
	series_load(&s, &provider_icmp, "tcpip-old", 2, ALL);
	CHECK_ALL(&s, 1, icmp);
	series_free(&s);
	series_load(&s, &provider_icmpv6, "tcpip-old", 2, ALL);
	CHECK_SOME(&s, 1, icmpv6);
	series_free(&s);
}

/* tcpip-nosnmp6: IPv6 is off (no snmp6) and there is no netstat. The IPv6
 * sets read fine with one empty instance: every counter UNSUPPORTED; TCP
 * loses only its TcpExt counters. dt = 2 s. */
static void
test_nosnmp6(void **unused)
{
	static const struct provider *const v6[] = { &provider_ipv6, &provider_udpv6,
						     &provider_icmpv6 };
	static const struct want tcp[] = {
		OKV("Segments/sec", 2500),       /* (2000 + 3000) / 2 */
		OKV("Connections Established", 9),
		OKV("Checksum Errors/sec", 0),   /* (2 - 2) / 2 */
		NOV("Listen Overflows/sec", ST_UNSUPPORTED),
		NOV("Listen Drops/sec", ST_UNSUPPORTED),
		NOV("Timeouts/sec", ST_UNSUPPORTED),
	};
	static const struct want ipv4[] = {
		OKV("Datagrams/sec", 800),       /* (1000 + 600) / 2 */
	};
	struct series s;

	(void)unused;
	for (size_t k = 0; k < ARRAY_SIZE(v6); k++) {
		const struct counter_set *set = v6[k]->set;

		series_load(&s, v6[k], "tcpip-nosnmp6", 2, ALL);
		for (size_t i = 0; i < 2; i++) {
			assert_int_equal(raw_present_at(&s.rs[i], 0), 0);
			for (size_t c = 0; c < set->ncounters; c++) {
				struct want w = { set->counters[c].name, 0, ST_UNSUPPORTED };
				check(&s, i, &w);
			}
		}
		series_free(&s);
	}
	series_load(&s, &provider_tcp, "tcpip-nosnmp6", 2, ALL);
	CHECK_SOME(&s, 1, tcp);
	series_free(&s);
	series_load(&s, &provider_ipv4, "tcpip-nosnmp6", 2, ALL);
	CHECK_SOME(&s, 1, ipv4);
	series_free(&s);
}

/*
 * tcpip-extra: t0 is a 6.x kernel; t1 and t2 a kernel with unknown names in
 * the middle of every header (Tcp: MaxConnNew = -7 after MaxConn,
 * TcpNewThing and TcpOther after CurrEstab; Udp: UdpNewThing after NoPorts;
 * Ip: IpNewThing and IpSigned = -5 after InDelivers; Icmp: IcmpNewThing
 * after OutMsgs; TcpExt: TCPFirstNew first and TCPBrandNew after
 * ListenOverflows; snmp6: Ip6InReceivesNew), holding tcpip-basic's values
 * with dt = 1 s. So every count equals tcpip-basic's and every rate is
 * tcpip-basic's times its dt (2 s, then 4 s); a few by hand first.
 */
static void
test_extra(void **unused)
{
	static const struct want tcp[] = {
		OKV("Segments/sec", 5000),             /* (2000 + 3000) / 1 */
		OKV("Connections Active/sec", 10),     /* (1010 - 1000) / 1: past MaxConnNew */
		OKV("Connections Established", 9),     /* CurrEstab, before TcpNewThing */
		OKV("Segments Received/sec", 2000),    /* past TcpNewThing and TcpOther */
		OKV("Listen Overflows/sec", 4),        /* (14 - 10) / 1: past TCPFirstNew */
		OKV("Listen Drops/sec", 6),            /* (18 - 12) / 1: past TCPBrandNew */
		OKV("Timeouts/sec", 4),                /* (104 - 100) / 1 */
	};
	static const struct want udpv4[] = {
		OKV("Datagrams Received Errors", 10),  /* past UdpNewThing */
		OKV("Datagrams No Port/sec", 4),       /* (44 - 40) / 1 */
	};
	static const struct want ipv4[] = {
		OKV("Datagrams Sent/sec", 600),        /* (180600 - 180000) / 1: past IpSigned */
		OKV("Datagrams Received Delivered/sec", 800), /* (190800 - 190000) / 1 */
	};
	static const struct want icmp[] = {
		OKV("Messages Outbound Errors", 1),    /* past IcmpNewThing */
		OKV("Messages Sent/sec", 30),          /* (290 - 260) / 1 */
	};
	static const struct want ipv6[] = {
		OKV("Datagrams Received/sec", 200),    /* (8200 - 8000) / 1 */
	};
	struct series s, b;

	(void)unused;
	series_load(&s, &provider_tcp, "tcpip-extra", 3, ALL);
	CHECK_SOME(&s, 1, tcp);
	series_free(&s);
	series_load(&s, &provider_udpv4, "tcpip-extra", 3, ALL);
	CHECK_SOME(&s, 1, udpv4);
	series_free(&s);
	series_load(&s, &provider_ipv4, "tcpip-extra", 3, ALL);
	CHECK_SOME(&s, 1, ipv4);
	series_free(&s);
	series_load(&s, &provider_icmp, "tcpip-extra", 3, ALL);
	CHECK_SOME(&s, 1, icmp);
	series_free(&s);
	series_load(&s, &provider_ipv6, "tcpip-extra", 3, ALL);
	CHECK_SOME(&s, 1, ipv6);
	series_free(&s);

	for (size_t k = 0; k < ARRAY_SIZE(all_providers); k++) {
		const struct counter_set *set = all_providers[k]->set;

		series_load(&s, all_providers[k], "tcpip-extra", 3, ALL);
		series_load(&b, all_providers[k], "tcpip-basic", 3, ALL);
		for (size_t i = 1; i < 3; i++) {
			for (size_t c = 0; c < set->ncounters; c++) {
				const struct counter_desc *cd = &set->counters[c];
				struct value base = value_of(&b, i, cd);
				double scale = cd->type == CT_RATE ? dt_at(&b, i) / dt_at(&s, i)
								   : 1;
				struct want w = { cd->name, base.v * scale, base.status };

				assert_int_equal(base.status, ST_OK);
				check(&s, i, &w);
			}
		}
		series_free(&s);
		series_free(&b);
	}
}

/* Only the files of the requested counters are read, and only the names
 * they need are parsed. */
static void
test_needed(void **unused)
{
	const struct counter_set *tcp = provider_tcp.set;
	uint64_t sent = counter_fields(counter(tcp, "Segments Sent/sec"));
	uint64_t timeouts = counter_fields(counter(tcp, "Timeouts/sec"));
	uint64_t est = counter_fields(counter(tcp, "Connections Established"));
	uint64_t fwd = counter_fields(counter(provider_ipv6.set, "Datagrams Forwarded/sec"));
	struct series s;
	static const struct want t1[] = {
		OKV("Segments Sent/sec", 1500),          /* (93000 - 90000) / 2 */
		OKV("Timeouts/sec", 2),                  /* (104 - 100) / 2 */
		NOV("Segments Received/sec", ST_UNSUPPORTED), /* not asked for, not read */
		NOV("Listen Drops/sec", ST_UNSUPPORTED),
	};

	(void)unused;
	series_load(&s, &provider_tcp, "tcpip-basic", 2, sent | timeouts);
	assert_int_equal(raw_present_at(&s.rs[1], 0), sent | timeouts);
	CHECK_SOME(&s, 1, t1);
	series_free(&s);

	series_load(&s, &provider_tcp, "tcpip-basic", 2, est);
	assert_int_equal(raw_present_at(&s.rs[1], 0), est); /* nothing from netstat */
	series_free(&s);

	series_load(&s, &provider_ipv6, "tcpip-basic", 2, fwd);
	assert_int_equal(raw_present_at(&s.rs[1], 0), fwd);
	series_free(&s);

	for (size_t k = 0; k < ARRAY_SIZE(all_providers); k++) {
		series_load(&s, all_providers[k], "tcpip-basic", 2, 0);
		assert_int_equal(raw_present_at(&s.rs[1], 0), 0);
		series_free(&s);
	}
}

/* The live kernel: every field of a set whose file exists is found (this
 * needs a kernel of 3.10 or later, for InCsumErrors), and reading again
 * gives counts that do not go backwards. */
static void
test_live(void **unused)
{
	struct procfs *fs = procfs_new(NULL, 0);
	struct err err = { "" };

	(void)unused;
	for (size_t k = 0; k < ARRAY_SIZE(all_providers); k++) {
		const struct provider *p = all_providers[k];
		int v6 = p == &provider_udpv6 || p == &provider_ipv6 || p == &provider_icmpv6;
		const char *file = v6 ? "/proc/net/snmp6" : "/proc/net/snmp";
		struct provider_ctx ctx = { fs, ALL };
		struct raw_set rs[2];
		void *st;

		if (access(file, R_OK) != 0 || (k == 0 && access("/proc/net/netstat", R_OK) != 0)) {
			printf("# %s: no %s here, not checked live\n", p->set->name, file);
			continue;
		}
		assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
		st = p->open(&ctx, &err);
		assert_non_null(st);
		for (size_t i = 0; i < 2; i++) {
			if (i)
				assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
			raw_set_init(&rs[i], p->set);
			raw_set_begin(&rs[i]);
			assert_int_equal(p->read(st, &rs[i], &err), 0);
			assert_int_equal(rs[i].ninstances, 1);
			if (raw_present_at(&rs[i], 0) != (((uint64_t)1 << p->set->nfields) - 1))
				fail_msg("%s: live fields found %#llx", p->set->name,
					 (unsigned long long)raw_present_at(&rs[i], 0));
		}
		for (size_t f = 0; f < p->set->nfields; f++)
			if (p->set->fields[f].kind == FK_COUNTER)
				assert_true(raw_get(&rs[1], &rs[1].inst[0], (unsigned)f) >=
					    raw_get(&rs[0], &rs[0].inst[0], (unsigned)f));
		p->close(st);
		raw_set_free(&rs[0]);
		raw_set_free(&rs[1]);
	}
	procfs_free(fs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_shape),
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_remap),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_old),
		cmocka_unit_test(test_nosnmp6),
		cmocka_unit_test(test_extra),
		cmocka_unit_test(test_needed),
		cmocka_unit_test(test_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
