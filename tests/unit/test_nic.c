/*
 * test_nic.c - the Network Adapter provider: its /proc/net/dev, sysfs and
 * netlink (RTM_GETLINK, RTM_GETQDISC) readers, and every counter of
 * COUNTERS.md section 5 over the fixture series tests/fixtures/nic-sysfs
 * (sysfs form, made by its gen.sh) and tests/fixtures/nic-procnetdev
 * (/proc/net/dev form), through derive.c, with the arithmetic beside each
 * expected value; % Utilization also over hand-made raw reads. The live
 * tests read this machine: netlink and sysfs must agree (sysfs, netlink,
 * sysfs: each netlink value between the two sysfs values; with
 * GC_NIC_QUIET_IF=IF, equal for that quiet interface, as
 * tests/cli/test_nic_veth.sh runs it in a netns), Output Queue Length
 * comes from every interface's root qdisc, Output Queue Bytes exactly where
 * sysfs has byte_queue_limits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "derive.h"
#include "nic.h"
#include "procfs.h"
#include "provider.h"
#include "sample.h"

extern const struct provider provider_network_adapter;

#define ALL_FIELDS ((((uint64_t)1) << NIC_NFIELDS) - 1)
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
	s->state = provider_network_adapter.open(&s->ctx, &err);
	assert_non_null(s->state);
	for (size_t i = 0; i < n; i++) {
		if (i)
			assert_int_equal(procfs_begin_read(s->fs, i, &err), 0);
		raw_set_init(&s->rs[i], provider_network_adapter.set);
		raw_set_begin(&s->rs[i]);
		if (provider_network_adapter.read(s->state, &s->rs[i], &err) != 0)
			fail_msg("read of root %zu: %s", i, err.msg);
	}
}

static void
series_free(struct series *s)
{
	for (size_t i = 0; i < s->n; i++)
		raw_set_free(&s->rs[i]);
	provider_network_adapter.close(s->state);
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
	const struct counter_desc *c = counter_set_find(provider_network_adapter.set, name);
	if (!c)
		fail_msg("no counter '%s'", name);
	return c;
}

static struct derive_env
env_at(const struct series *s, size_t i)
{
	struct derive_env env = { .dt = s->uptime[i] - s->uptime[i - 1],
				  .user_hz = 100,
				  .ulong_bits = 64 };
	return env;
}

/* The value of counter name of instance inst over read i-1 -> i. */
static struct value
value_of(const struct series *s, size_t i, const char *inst, const char *name)
{
	struct derive_env env = env_at(s, i);
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

/* The _Total of counter name over read i-1 -> i, formed as the engine does:
 * the instances marked in_total, paired by name with the previous read. */
static struct value
total_of(const struct series *s, size_t i, const char *name)
{
	struct derive_env env = env_at(s, i);
	const struct raw_instance *cur[16];
	const struct field_deltas *dp[16];
	FIELD_DELTAS_ARRAY(d, 16);
	uint8_t pair[16];
	size_t n = 0;

	for (size_t k = 0; k < s->rs[i].ninstances; k++) {
		const struct raw_instance *ri = &s->rs[i].inst[k];
		const struct raw_instance *prev;
		if (!raw_in_total(&s->rs[i], ri))
			continue;
		assert_true(n < 16);
		cur[n] = ri;
		prev = find_inst(&s->rs[i - 1], raw_name(&s->rs[i], ri));
		if (prev) {
			derive_deltas(&s->rs[i - 1], prev, &s->rs[i], ri, &env, &d[n]);
			dp[n] = &d[n];
			pair[n] = ST_OK;
		} else {
			dp[n] = NULL;
			pair[n] = ST_NEW;
		}
		n++;
	}
	return derive_total(&s->rs[i], counter(name), cur, dp, pair, n, &env);
}

/* Check a value and its status; the number of a RESET, UNSUPPORTED or
 * BAD_TIME value is not checked. */
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
#define CHECK_TOTAL(s, i, name, expect, st) \
	check(total_of(s, i, name), expect, st, "_Total " name, __LINE__)

/* /proc/net/dev lines: headers skipped, columns mapped, short lines. */
static void
test_parse_proc_net_dev_line(void **unused)
{
	const char *text =
		"Inter-|   Receive                                                |  Transmit\n"
		" face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
		"packets errs drop fifo colls carrier compressed\n"
		"  eth1:4294967000     300    1    2    3     4          5         6    20000"
		"     400    7    8    9    10      11         12\n"
		"   sl0: 1 2 3\n"
		"odd name:5";
	const char *p = text, *end = text + strlen(text), *name;
	size_t len;
	struct nic_stats st;

	(void)unused;
	assert_int_equal(nic_parse_proc_net_dev_line(&p, end, &name, &len, &st), 0);
	assert_int_equal(nic_parse_proc_net_dev_line(&p, end, &name, &len, &st), 0);
	assert_int_equal(nic_parse_proc_net_dev_line(&p, end, &name, &len, &st), 1);
	assert_int_equal(len, 4);
	assert_memory_equal(name, "eth1", 4);
	/* the 16 columns in the kernel's order; drop, frame and carrier are
	 * the sums, stored as rx_dropped, rx_frame_errors, tx_carrier_errors */
	assert_int_equal(st.v[F_RX_BYTES], 4294967000u);
	assert_int_equal(st.v[F_RX_PACKETS], 300);
	assert_int_equal(st.v[F_RX_ERRORS], 1);
	assert_int_equal(st.v[F_RX_DROPPED], 2);
	assert_int_equal(st.v[F_RX_FIFO_ERRORS], 3);
	assert_int_equal(st.v[F_RX_FRAME_ERRORS], 4);
	assert_int_equal(st.v[F_RX_COMPRESSED], 5);
	assert_int_equal(st.v[F_MULTICAST], 6);
	assert_int_equal(st.v[F_TX_BYTES], 20000);
	assert_int_equal(st.v[F_TX_PACKETS], 400);
	assert_int_equal(st.v[F_TX_ERRORS], 7);
	assert_int_equal(st.v[F_TX_DROPPED], 8);
	assert_int_equal(st.v[F_TX_FIFO_ERRORS], 9);
	assert_int_equal(st.v[F_COLLISIONS], 10);
	assert_int_equal(st.v[F_TX_CARRIER_ERRORS], 11);
	assert_int_equal(st.v[F_TX_COMPRESSED], 12);
	/* the other fields of the sums, and rx_nohandler, are missing */
	assert_int_equal(st.present,
			 BIT(F_RX_BYTES) | BIT(F_RX_PACKETS) | BIT(F_RX_ERRORS) |
				 BIT(F_RX_DROPPED) | BIT(F_RX_FIFO_ERRORS) |
				 BIT(F_RX_FRAME_ERRORS) | BIT(F_RX_COMPRESSED) | BIT(F_MULTICAST) |
				 BIT(F_TX_BYTES) | BIT(F_TX_PACKETS) | BIT(F_TX_ERRORS) |
				 BIT(F_TX_DROPPED) | BIT(F_TX_FIFO_ERRORS) | BIT(F_COLLISIONS) |
				 BIT(F_TX_CARRIER_ERRORS) | BIT(F_TX_COMPRESSED));
	/* a short line: only the columns it has */
	assert_int_equal(nic_parse_proc_net_dev_line(&p, end, &name, &len, &st), 1);
	assert_int_equal(len, 3);
	assert_memory_equal(name, "sl0", 3);
	assert_int_equal(st.present, BIT(F_RX_BYTES) | BIT(F_RX_PACKETS) | BIT(F_RX_ERRORS));
	assert_int_equal(st.v[F_RX_ERRORS], 3);
	/* a last line without newline, a name with a space */
	assert_int_equal(nic_parse_proc_net_dev_line(&p, end, &name, &len, &st), 1);
	assert_int_equal(len, 8);
	assert_memory_equal(name, "odd name", 8);
	assert_int_equal(st.v[F_RX_BYTES], 5);
	assert_int_equal(nic_parse_proc_net_dev_line(&p, end, &name, &len, &st), -1);
}

/* sysfs speed and duplex texts. */
static void
test_parse_speed_duplex(void **unused)
{
	uint64_t v = 7;

	(void)unused;
	assert_int_equal(nic_parse_speed("1000\n", &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(nic_parse_speed("10000", &v), 0);
	assert_int_equal(v, 10000);
	assert_int_equal(nic_parse_speed("-1", &v), -1);
	assert_int_equal(nic_parse_speed("unknown", &v), -1);
	assert_int_equal(nic_parse_speed("", &v), -1);
	assert_int_equal(nic_parse_speed("4294967295", &v), -1);
	assert_int_equal(nic_parse_duplex("full"), 1);
	assert_int_equal(nic_parse_duplex("half"), 0);
	assert_int_equal(nic_parse_duplex("unknown"), 0);
	assert_int_equal(nic_parse_duplex(""), 0);
	assert_string_equal(nic_stat_name(F_RX_NOHANDLER), "rx_nohandler");
	assert_null(nic_stat_name(NIC_NSTATS));
}

/* IFLA_STATS64 payloads of other lengths than this header's struct. */
static void
test_netlink_stats64(void **unused)
{
	uint64_t raw[32];
	struct nic_stats st;

	(void)unused;
	for (unsigned i = 0; i < 32; i++)
		raw[i] = 100 + i;
	/* a 4.5 kernel: 23 fields, no rx_nohandler */
	nic_netlink_stats64(raw, 23 * 8, &st);
	assert_int_equal(st.present, NIC_STATS_MASK & ~BIT(F_RX_NOHANDLER));
	assert_int_equal(st.v[F_RX_PACKETS], 100);
	assert_int_equal(st.v[F_TX_COMPRESSED], 122);
	assert_int_equal(st.v[F_RX_NOHANDLER], 0);
	/* a newer kernel sends more than we know: the rest is ignored */
	nic_netlink_stats64(raw, sizeof(raw), &st);
	assert_int_equal(st.present, NIC_STATS_MASK);
	assert_int_equal(st.v[F_RX_NOHANDLER], 123);
	/* half a field is no field */
	nic_netlink_stats64(raw, 12, &st);
	assert_int_equal(st.present, BIT(F_RX_PACKETS));
	nic_netlink_stats64(raw, 0, &st);
	assert_int_equal(st.present, 0);
}

/* Append a netlink attribute to msg (whose nlmsg_len grows). */
static void
add_attr(struct nlmsghdr *nh, unsigned short type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* Start a message of type at *pos in buf. */
static struct nlmsghdr *
add_msg(char *buf, size_t *pos, uint16_t type, uint32_t seq, size_t payload)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)(buf + *pos);

	nh->nlmsg_type = type;
	nh->nlmsg_seq = seq;
	nh->nlmsg_len = (uint32_t)NLMSG_LENGTH(payload);
	return nh;
}

static void
end_msg(size_t *pos, const struct nlmsghdr *nh)
{
	*pos += NLMSG_ALIGN(nh->nlmsg_len);
}

struct seen_links {
	int n;
	int ifindex[4];
	char name[4][16];
	struct nic_stats stats[4];
	uint32_t carrier[4];
};

static int
collect(const struct nic_link *l, void *arg, struct err *err)
{
	struct seen_links *s = arg;

	(void)err;
	assert_true(s->n < 4);
	s->ifindex[s->n] = l->ifindex;
	snprintf(s->name[s->n], sizeof(s->name[0]), "%.*s", (int)l->name_len,
		 l->name ? l->name : "");
	s->stats[s->n] = l->stats;
	s->carrier[s->n] = l->carrier_changes;
	s->n++;
	return 0;
}

/* A hand-built dump reply: two links, a stale reply, then DONE; an error. */
static void
test_netlink_parse(void **unused)
{
	static char buf[4096] __attribute__((aligned(8)));
	struct rtnl_link_stats64 s64;
	struct rtnl_link_stats legacy;
	struct seen_links seen;
	struct ifinfomsg *ifi;
	struct nlmsghdr *nh;
	struct nlmsgerr *e;
	struct err err = { "" };
	size_t pos = 0;
	uint32_t carrier = 3;

	(void)unused;
	memset(buf, 0, sizeof(buf));
	memset(&seen, 0, sizeof(seen));
	memset(&s64, 0, sizeof(s64));
	memset(&legacy, 0xff, sizeof(legacy));
	s64.rx_bytes = 5000000000u;
	s64.tx_packets = 42;
	s64.rx_nohandler = 9;

	/* link 2 "eth0": IFLA_STATS (ignored) then IFLA_STATS64, carrier */
	nh = add_msg(buf, &pos, RTM_NEWLINK, 77, sizeof(*ifi));
	ifi = NLMSG_DATA(nh);
	ifi->ifi_index = 2;
	add_attr(nh, IFLA_IFNAME, "eth0", 5);
	add_attr(nh, IFLA_STATS, &legacy, sizeof(legacy));
	add_attr(nh, IFLA_STATS64, &s64, sizeof(s64));
	add_attr(nh, IFLA_CARRIER_CHANGES, &carrier, sizeof(carrier));
	end_msg(&pos, nh);
	/* a reply to another request: ignored */
	nh = add_msg(buf, &pos, RTM_NEWLINK, 76, sizeof(*ifi));
	((struct ifinfomsg *)NLMSG_DATA(nh))->ifi_index = 9;
	add_attr(nh, IFLA_IFNAME, "stale", 6);
	end_msg(&pos, nh);
	/* link 5 "veth1": an old kernel's 23-field stats64 */
	nh = add_msg(buf, &pos, RTM_NEWLINK, 77, sizeof(*ifi));
	((struct ifinfomsg *)NLMSG_DATA(nh))->ifi_index = 5;
	add_attr(nh, IFLA_IFNAME, "veth1", 6);
	add_attr(nh, IFLA_STATS64, &s64, 23 * 8);
	end_msg(&pos, nh);
	assert_int_equal(nic_netlink_parse(buf, pos, 77, collect, &seen, &err), 0);
	nh = add_msg(buf, &pos, NLMSG_DONE, 77, sizeof(int));
	end_msg(&pos, nh);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(nic_netlink_parse(buf, pos, 77, collect, &seen, &err), 1);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.ifindex[0], 2);
	assert_string_equal(seen.name[0], "eth0");
	assert_int_equal(seen.stats[0].present, NIC_STATS_MASK);
	assert_int_equal(seen.stats[0].v[F_RX_BYTES], 5000000000u); /* not IFLA_STATS' */
	assert_int_equal(seen.stats[0].v[F_TX_PACKETS], 42);
	assert_int_equal(seen.stats[0].v[F_RX_NOHANDLER], 9);
	assert_int_equal(seen.carrier[0], 3);
	assert_int_equal(seen.ifindex[1], 5);
	assert_string_equal(seen.name[1], "veth1");
	assert_int_equal(seen.stats[1].present, NIC_STATS_MASK & ~BIT(F_RX_NOHANDLER));

	/* an error message ends the dump with the kernel's errno */
	pos = 0;
	nh = add_msg(buf, &pos, NLMSG_ERROR, 78, sizeof(*e));
	e = NLMSG_DATA(nh);
	e->error = -EPERM;
	end_msg(&pos, nh);
	assert_int_equal(nic_netlink_parse(buf, pos, 78, collect, &seen, &err), -1);
	assert_non_null(strstr(err.msg, "not permitted"));
	/* a length beyond the datagram is malformed */
	nh = (struct nlmsghdr *)buf;
	nh->nlmsg_len = 9999;
	assert_int_equal(nic_netlink_parse(buf, pos, 78, collect, &seen, &err), -1);
	assert_non_null(strstr(err.msg, "malformed"));
}

/* A hand-built RTM_GETSTATS dump reply: two interfaces (one with an old
 * kernel's shorter struct), a stale reply, then DONE; an error. */
static void
test_netlink_parse_stats(void **unused)
{
	static char buf[4096] __attribute__((aligned(8)));
	struct rtnl_link_stats64 s64;
	struct seen_links seen;
	struct if_stats_msg *ifsm;
	struct nlmsghdr *nh;
	struct nlmsgerr *e;
	struct err err = { "" };
	size_t pos = 0;

	(void)unused;
	memset(buf, 0, sizeof(buf));
	memset(&seen, 0, sizeof(seen));
	memset(&s64, 0, sizeof(s64));
	s64.rx_bytes = 7000000000u;
	s64.tx_bytes = 11;
	s64.rx_missed_errors = 4;
	s64.rx_nohandler = 2;

	/* ifindex 3: the whole struct */
	nh = add_msg(buf, &pos, RTM_NEWSTATS, 90, sizeof(*ifsm));
	ifsm = NLMSG_DATA(nh);
	ifsm->ifindex = 3;
	ifsm->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
	add_attr(nh, IFLA_STATS_LINK_64, &s64, sizeof(s64));
	end_msg(&pos, nh);
	/* a reply to another request: ignored */
	nh = add_msg(buf, &pos, RTM_NEWSTATS, 89, sizeof(*ifsm));
	((struct if_stats_msg *)NLMSG_DATA(nh))->ifindex = 8;
	end_msg(&pos, nh);
	/* ifindex 7: 23 fields (before rx_nohandler, Linux 4.6) */
	nh = add_msg(buf, &pos, RTM_NEWSTATS, 90, sizeof(*ifsm));
	((struct if_stats_msg *)NLMSG_DATA(nh))->ifindex = 7;
	add_attr(nh, IFLA_STATS_LINK_64, &s64, 23 * 8);
	end_msg(&pos, nh);
	assert_int_equal(nic_netlink_parse_stats(buf, pos, 90, collect, &seen, &err), 0);
	nh = add_msg(buf, &pos, NLMSG_DONE, 90, sizeof(int));
	end_msg(&pos, nh);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(nic_netlink_parse_stats(buf, pos, 90, collect, &seen, &err), 1);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.ifindex[0], 3);
	assert_string_equal(seen.name[0], ""); /* RTM_NEWSTATS names nothing */
	assert_int_equal(seen.stats[0].present, NIC_STATS_MASK);
	assert_int_equal(seen.stats[0].v[F_RX_BYTES], 7000000000u);
	assert_int_equal(seen.stats[0].v[F_TX_BYTES], 11);
	assert_int_equal(seen.stats[0].v[F_RX_MISSED_ERRORS], 4);
	assert_int_equal(seen.stats[0].v[F_RX_NOHANDLER], 2);
	assert_int_equal(seen.ifindex[1], 7);
	assert_int_equal(seen.stats[1].present, NIC_STATS_MASK & ~BIT(F_RX_NOHANDLER));
	assert_int_equal(seen.stats[1].v[F_RX_BYTES], 7000000000u);

	/* a kernel without RTM_GETSTATS answers EOPNOTSUPP */
	pos = 0;
	nh = add_msg(buf, &pos, NLMSG_ERROR, 91, sizeof(*e));
	e = NLMSG_DATA(nh);
	e->error = -EOPNOTSUPP;
	end_msg(&pos, nh);
	assert_int_equal(nic_netlink_parse_stats(buf, pos, 91, collect, &seen, &err), -1);
	assert_non_null(strstr(err.msg, "RTM_GETSTATS"));
}

struct seen_events {
	int n;
	int type[4];
	int ifindex[4];
	char name[4][16];
	uint32_t carrier[4];
};

static void
collect_event(int type, const struct nic_link *l, void *arg)
{
	struct seen_events *s = arg;

	assert_true(s->n < 4);
	s->type[s->n] = type;
	s->ifindex[s->n] = l->ifindex;
	snprintf(s->name[s->n], sizeof(s->name[0]), "%.*s", (int)l->name_len,
		 l->name ? l->name : "");
	s->carrier[s->n] = l->carrier_changes;
	s->n++;
}

/* Hand-built RTNLGRP_LINK notifications: a new link, a bridge's message
 * about a port (skipped), an address message (skipped), a link gone. */
static void
test_netlink_parse_events(void **unused)
{
	static char buf[4096] __attribute__((aligned(8)));
	struct seen_events seen;
	struct ifinfomsg *ifi;
	struct nlmsghdr *nh;
	size_t pos = 0;
	uint32_t carrier = 4;

	(void)unused;
	memset(buf, 0, sizeof(buf));
	memset(&seen, 0, sizeof(seen));
	nh = add_msg(buf, &pos, RTM_NEWLINK, 0, sizeof(*ifi));
	ifi = NLMSG_DATA(nh);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = 12;
	add_attr(nh, IFLA_IFNAME, "veth9", 6);
	add_attr(nh, IFLA_CARRIER_CHANGES, &carrier, sizeof(carrier));
	end_msg(&pos, nh);
	nh = add_msg(buf, &pos, RTM_DELLINK, 0, sizeof(*ifi));
	ifi = NLMSG_DATA(nh);
	ifi->ifi_family = AF_BRIDGE; /* a port left its bridge: the link stays */
	ifi->ifi_index = 5;
	add_attr(nh, IFLA_IFNAME, "eth1", 5);
	end_msg(&pos, nh);
	nh = add_msg(buf, &pos, RTM_NEWADDR, 0, sizeof(struct ifaddrmsg));
	end_msg(&pos, nh);
	nh = add_msg(buf, &pos, RTM_DELLINK, 0, sizeof(*ifi));
	ifi = NLMSG_DATA(nh);
	ifi->ifi_index = 6;
	add_attr(nh, IFLA_IFNAME, "veth3", 6);
	end_msg(&pos, nh);
	assert_int_equal(nic_netlink_parse_events(buf, pos, collect_event, &seen), 0);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.type[0], RTM_NEWLINK);
	assert_int_equal(seen.ifindex[0], 12);
	assert_string_equal(seen.name[0], "veth9");
	assert_int_equal(seen.carrier[0], 4);
	assert_int_equal(seen.type[1], RTM_DELLINK);
	assert_int_equal(seen.ifindex[1], 6);
	/* a length beyond the datagram is malformed: the caller dumps again */
	((struct nlmsghdr *)buf)->nlmsg_len = 9999;
	assert_int_equal(nic_netlink_parse_events(buf, pos, collect_event, &seen), -1);
}

/* Write one attribute at p; returns its aligned size. */
static size_t
put_rta(char *p, unsigned short type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)p;

	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	return RTA_ALIGN(rta->rta_len);
}

/* Append an RTM_NEWQDISC message: ifindex, parent, kind (NULL for none),
 * then a TCA_STATS2 holding a TCA_STATS_BASIC and a TCA_STATS_QUEUE of
 * queue_len bytes (0: no TCA_STATS2) with qlen; nested_flag sets
 * NLA_F_NESTED on TCA_STATS2. */
static void
add_qdisc(char *buf, size_t *pos, uint32_t seq, int ifindex, uint32_t parent, const char *kind,
	  size_t queue_len, uint32_t qlen, int nested_flag)
{
	struct nlmsghdr *nh = add_msg(buf, pos, RTM_NEWQDISC, seq, sizeof(struct tcmsg));
	struct tcmsg *tcm = NLMSG_DATA(nh);
	char nest[128] __attribute__((aligned(4)));
	struct gnet_stats_basic basic = { 123456, 789 };
	struct gnet_stats_queue q = { .qlen = qlen, .backlog = qlen * 1000, .drops = 5 };
	struct tc_stats legacy;
	size_t n = 0;

	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = parent;
	tcm->tcm_handle = 0x10000;
	if (kind)
		add_attr(nh, TCA_KIND, kind, strlen(kind) + 1);
	/* the old TCA_STATS: never read */
	memset(&legacy, 0, sizeof(legacy));
	legacy.qlen = 999;
	add_attr(nh, TCA_STATS, &legacy, sizeof(legacy));
	if (queue_len) {
		n += put_rta(nest + n, TCA_STATS_BASIC, &basic, sizeof(basic));
		n += put_rta(nest + n, TCA_STATS_QUEUE, &q, queue_len);
		add_attr(nh, (unsigned short)(TCA_STATS2 | (nested_flag ? NLA_F_NESTED : 0)), nest,
			 n);
	}
	end_msg(pos, nh);
}

struct seen_qdiscs {
	int n;
	struct nic_qdisc q[8];
	char kind[8][16];
};

static int
collect_qdisc(const struct nic_qdisc *q, void *arg, struct err *err)
{
	struct seen_qdiscs *s = arg;

	(void)err;
	assert_true(s->n < 8);
	s->q[s->n] = *q;
	snprintf(s->kind[s->n], sizeof(s->kind[0]), "%.*s", (int)q->kind_len,
		 q->kind ? q->kind : "");
	s->n++;
	return 0;
}

/* A hand-built RTM_GETQDISC dump reply: roots, a child, ingress, noqueue,
 * a short queue attribute, a stale reply, a foreign message type. */
static void
test_netlink_parse_qdisc(void **unused)
{
	static char buf[4096] __attribute__((aligned(8)));
	const size_t full = sizeof(struct gnet_stats_queue);
	struct seen_qdiscs seen;
	struct err err = { "" };
	struct nlmsghdr *nh;
	struct nlmsgerr *e;
	size_t pos = 0;

	(void)unused;
	memset(buf, 0, sizeof(buf));
	memset(&seen, 0, sizeof(seen));
	add_qdisc(buf, &pos, 90, 2, TC_H_ROOT, "pfifo_fast", full, 7, 0);
	add_qdisc(buf, &pos, 90, 3, TC_H_ROOT, "mq", full, 12, 1);
	add_qdisc(buf, &pos, 90, 3, TC_H_MAKE(0x10000u, 1), "tbf", full, 12, 0);
	add_qdisc(buf, &pos, 89, 6, TC_H_ROOT, "stale", full, 50, 0); /* another request */
	add_qdisc(buf, &pos, 90, 4, TC_H_INGRESS, "ingress", full, 0, 0);
	add_qdisc(buf, &pos, 90, 1, TC_H_ROOT, "noqueue", full, 5, 0); /* its 5 not read */
	add_qdisc(buf, &pos, 90, 5, TC_H_ROOT, "tbf", 2, 3, 0); /* qlen cut off */
	nh = add_msg(buf, &pos, RTM_NEWLINK, 90, sizeof(struct ifinfomsg)); /* not ours */
	end_msg(&pos, nh);
	add_qdisc(buf, &pos, 90, 7, TC_H_ROOT, NULL, 0, 0, 0); /* no kind, no stats */
	assert_int_equal(nic_netlink_parse_qdisc(buf, pos, 90, collect_qdisc, &seen, &err), 0);
	nh = add_msg(buf, &pos, NLMSG_DONE, 90, sizeof(int));
	end_msg(&pos, nh);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(nic_netlink_parse_qdisc(buf, pos, 90, collect_qdisc, &seen, &err), 1);
	assert_int_equal(seen.n, 7);
	/* the root of ifindex 2: TCA_STATS2's queue, not TCA_STATS' 999 */
	assert_int_equal(seen.q[0].ifindex, 2);
	assert_int_equal(seen.q[0].parent, TC_H_ROOT);
	assert_int_equal(seen.q[0].handle, 0x10000);
	assert_string_equal(seen.kind[0], "pfifo_fast");
	assert_int_equal(seen.q[0].has_qlen, 1);
	assert_int_equal(seen.q[0].qlen, 7);
	/* NLA_F_NESTED on TCA_STATS2 is masked off */
	assert_string_equal(seen.kind[1], "mq");
	assert_int_equal(seen.q[1].qlen, 12);
	assert_int_equal(seen.q[2].parent, 0x10001);
	assert_string_equal(seen.kind[3], "ingress");
	assert_int_equal(seen.q[3].parent, TC_H_INGRESS);
	/* noqueue holds no queue: 0, its statistics not walked */
	assert_string_equal(seen.kind[4], "noqueue");
	assert_int_equal(seen.q[4].has_qlen, 1);
	assert_int_equal(seen.q[4].qlen, 0);
	/* a TCA_STATS_QUEUE too short to hold qlen: none */
	assert_int_equal(seen.q[5].ifindex, 5);
	assert_int_equal(seen.q[5].has_qlen, 0);
	assert_int_equal(seen.q[5].qlen, 0);
	assert_null(seen.q[6].kind);
	assert_int_equal(seen.q[6].has_qlen, 0);
	/* a NULL function only walks */
	assert_int_equal(nic_netlink_parse_qdisc(buf, pos, 90, NULL, NULL, &err), 1);

	/* an error names the request */
	pos = 0;
	nh = add_msg(buf, &pos, NLMSG_ERROR, 91, sizeof(*e));
	e = NLMSG_DATA(nh);
	e->error = -EOPNOTSUPP;
	end_msg(&pos, nh);
	assert_int_equal(nic_netlink_parse_qdisc(buf, pos, 91, collect_qdisc, &seen, &err), -1);
	assert_non_null(strstr(err.msg, "RTM_GETQDISC"));
	/* a message shorter than struct tcmsg is malformed */
	pos = 0;
	nh = add_msg(buf, &pos, RTM_NEWQDISC, 92, 4);
	end_msg(&pos, nh);
	assert_int_equal(nic_netlink_parse_qdisc(buf, pos, 92, collect_qdisc, &seen, &err), -1);
	assert_non_null(strstr(err.msg, "malformed"));
}

/* Descriptors this process has open. */
static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d) /* no descriptor left: a count no check accepts */
		return -1000;
	while (readdir(d))
		n++;
	closedir(d);
	return n - 3; /* ".", ".." and d's own */
}

/* Two reads are the same: instances, identities, fields read, values. */
static int
same_reads(const struct raw_set *a, const struct raw_set *b)
{
	if (a->ninstances != b->ninstances)
		return 0;
	for (size_t i = 0; i < a->ninstances; i++) {
		const struct raw_instance *x = &a->inst[i], *y = &b->inst[i];
		if (strcmp(raw_name(a, x), raw_name(b, y)) != 0 || raw_identity(a, x) != raw_identity(b, y) ||
		    raw_present(a, x) != raw_present(b, y))
			return 0;
		for (unsigned f = 0; f < NIC_NFIELDS; f++)
			if ((raw_present(a, x) >> f & 1) && raw_get(a, x, f) != raw_get(b, y, f))
				return 0;
	}
	return 1;
}

/* The sysfs form keeps each interface's attribute files open itself (a
 * descriptor each, no procfs record): reads of one root reuse them, a
 * root of a series replaces them (never the old root's values), closing
 * the provider gives every one back, and with no descriptor left in the
 * budget each file is opened per read, with the same values. */
static void
test_sysfs_files_kept(void **unused)
{
	(void)unused;
	struct series ref;
	const char *roots[] = { "../fixtures/nic-sysfs/t0", "../fixtures/nic-sysfs/t1",
				"../fixtures/nic-sysfs/t2" };
	struct err err = { "" };

	struct raw_set want[3];
	/* eth0's statistics/rx_bytes in t0, t1, t2 */
	static const uint64_t rx_bytes[3] = { 1000000, 1200000, 1600000 };

	/* the reads of the usual path, kept past its files (closed) */
	series_load(&ref, "nic-sysfs", 3, ALL_FIELDS);
	for (size_t i = 0; i < 3; i++) {
		raw_set_init(&want[i], provider_network_adapter.set);
		raw_set_copy(&want[i], &ref.rs[i]);
	}
	series_free(&ref);
	for (int starved = 0; starved < 2; starved++) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int bad = 0;
			if (starved) { /* a budget of 20 descriptors: most files per read */
				struct rlimit rl = { 40, 40 };
				if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
					_exit(77);
			}
			int before = open_fds();
			struct procfs *fs = procfs_new(roots, 3);
			struct provider_ctx ctx = { .fs = fs, .needed = ALL_FIELDS };
			struct raw_set rs;
			raw_set_init(&rs, provider_network_adapter.set);
			bad |= procfs_begin_read(fs, 0, &err) != 0;
			void *state = provider_network_adapter.open(&ctx, &err);
			bad |= !state;
			int kept = 0;
			for (size_t i = 0; !bad && i < 3; i++) {
				/* each root twice: the second read reuses the files */
				for (int again = 0; again < 2; again++) {
					bad |= procfs_begin_read(fs, i, &err) != 0;
					raw_set_begin(&rs);
					bad |= provider_network_adapter.read(state, &rs, &err) != 0;
					bad |= !same_reads(&rs, &want[i]) << 1;
					/* this root's file, never the last root's */
					const struct raw_instance *e0 = find_inst(&rs, "eth0");
					bad |= (!e0 || raw_get(&rs, e0, F_RX_BYTES) != rx_bytes[i]) << 5;
					if (!again)
						kept = open_fds();
					else
						bad |= (open_fds() != kept) << 2;
				}
			}
			/* kept open unless starved, and never piling up */
			bad |= (starved ? kept > before + 24 : kept < before + 30) << 3;
			provider_network_adapter.close(state);
			procfs_free(fs);
			bad |= (open_fds() != before) << 4;
			raw_set_free(&rs);
			if (getenv("NIC_FD_DEBUG"))
				fprintf(stderr, "starved=%d before=%d kept=%d after=%d bad=%#x\n",
					starved, before, kept, open_fds(), bad);
			_exit(bad);
		}
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		if (WEXITSTATUS(status) == 77)
			continue; /* cannot lower the limit here */
		if (WEXITSTATUS(status) != 0)
			fail_msg("starved=%d: check bits %#x failed", starved, WEXITSTATUS(status));
	}
	for (size_t i = 0; i < 3; i++)
		raw_set_free(&want[i]);
}

/* Instances, identities and _Total membership of the sysfs series. */
static void
test_sysfs_instances(void **unused)
{
	struct series s;
	const struct raw_instance *ri;
	static const char *const t0_names[] = { "eth0", "eth1", "eth2", "eth3",
						"eth4", "lo",	"veth0" };

	(void)unused;
	series_load(&s, "nic-sysfs", 3, ALL_FIELDS);
	/* bonding_masters (a regular file) is not an interface; name order */
	assert_int_equal(s.rs[0].ninstances, 7);
	for (size_t i = 0; i < 7; i++)
		assert_string_equal(raw_name_at(&s.rs[0], i), t0_names[i]);
	/* identity is the ifindex file */
	assert_int_equal(raw_identity(&s.rs[0], find_inst(&s.rs[0], "lo")), 1);
	assert_int_equal(raw_identity(&s.rs[0], find_inst(&s.rs[0], "eth4")), 6);
	/* _Total: interfaces with a device link only */
	assert_int_equal(raw_in_total(&s.rs[0], find_inst(&s.rs[0], "lo")), 0);
	assert_int_equal(raw_in_total(&s.rs[0], find_inst(&s.rs[0], "veth0")), 0);
	assert_int_equal(raw_in_total(&s.rs[0], find_inst(&s.rs[0], "eth0")), 1);
	assert_int_equal(raw_in_total(&s.rs[0], find_inst(&s.rs[0], "eth3")), 1);
	/* every field read (but qlen: netlink only); speed and duplex where
	 * the files say so */
	ri = find_inst(&s.rs[0], "eth0");
	assert_int_equal(raw_present(&s.rs[0], ri), ALL_FIELDS & ~BIT(F_QLEN));
	assert_int_equal(raw_get(&s.rs[0], ri, F_SPEED), 1000);
	assert_int_equal(raw_get(&s.rs[0], ri, F_DUPLEX), 1);
	ri = find_inst(&s.rs[0], "eth1");
	assert_int_equal(raw_get(&s.rs[0], ri, F_DUPLEX), 0); /* half */
	ri = find_inst(&s.rs[0], "eth3"); /* speed -1, duplex unknown, no rx_nohandler */
	assert_int_equal(raw_present(&s.rs[0], ri), ALL_FIELDS & ~BIT(F_SPEED) & ~BIT(F_RX_NOHANDLER) &
					      ~BIT(F_QLEN) & ~BIT(F_BQL_INFLIGHT));
	assert_int_equal(raw_get(&s.rs[0], ri, F_DUPLEX), 0);
	ri = find_inst(&s.rs[0], "lo"); /* no speed, no duplex files, no BQL */
	assert_int_equal(raw_present(&s.rs[0], ri), NIC_STATS_MASK);
	/* t2: eth3 gone, wlan0 new, veth0 recreated with ifindex 9 */
	assert_int_equal(s.rs[2].ninstances, 7);
	assert_null(find_inst(&s.rs[2], "eth3"));
	assert_non_null(find_inst(&s.rs[2], "wlan0"));
	assert_int_equal(raw_identity(&s.rs[2], find_inst(&s.rs[2], "veth0")), 9);
	series_free(&s);
}

/* Every counter of eth0 over t0 -> t1 (dt = 1002.00 - 1000.00 = 2 s). */
static void
test_sysfs_counters(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "nic-sysfs", 3, ALL_FIELDS);
	/* rx_bytes 1000000 -> 1200000: 200000 / 2 */
	CHECK(&s, 1, "eth0", "Bytes Received/sec", 100000, ST_OK);
	/* tx_bytes 3000000 -> 3500000: 500000 / 2 */
	CHECK(&s, 1, "eth0", "Bytes Sent/sec", 250000, ST_OK);
	/* (200000 + 500000) / 2 */
	CHECK(&s, 1, "eth0", "Bytes Total/sec", 350000, ST_OK);
	/* rx_packets 1000 -> 1400: 400 / 2 */
	CHECK(&s, 1, "eth0", "Packets Received/sec", 200, ST_OK);
	/* tx_packets 2000 -> 2600: 600 / 2 */
	CHECK(&s, 1, "eth0", "Packets Sent/sec", 300, ST_OK);
	/* (400 + 600) / 2 */
	CHECK(&s, 1, "eth0", "Packets/sec", 500, ST_OK);
	/* multicast 50 -> 60: 10 / 2, under both names */
	CHECK(&s, 1, "eth0", "Packets Received Non-Unicast/sec", 5, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Received Multicast/sec", 5, ST_OK);
	/* RAW rx_dropped + rx_missed_errors at t1: 36 + 20 */
	CHECK(&s, 1, "eth0", "Packets Received Discarded", 56, ST_OK);
	/* (36 - 30) + (20 - 6) = 20; / 2 */
	CHECK(&s, 1, "eth0", "Packets Received Discarded/sec", 10, ST_OK);
	/* RAW rx_errors 30; 10 -> 30: 20 / 2 */
	CHECK(&s, 1, "eth0", "Packets Received Errors", 30, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Received Errors/sec", 10, ST_OK);
	/* RAW rx_nohandler 45; 15 -> 45: 30 / 2 */
	CHECK(&s, 1, "eth0", "Packets Received Unknown", 45, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Received Unknown/sec", 15, ST_OK);
	/* RAW tx_dropped 48; 40 -> 48: 8 / 2 */
	CHECK(&s, 1, "eth0", "Packets Outbound Discarded", 48, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Outbound Discarded/sec", 4, ST_OK);
	/* RAW tx_errors 60; 20 -> 60: 40 / 2 */
	CHECK(&s, 1, "eth0", "Packets Outbound Errors", 60, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Outbound Errors/sec", 20, ST_OK);
	/* length 1->3, over 2->6, crc 3->9, frame 4->12: (2 + 4 + 6 + 8) / 2 */
	CHECK(&s, 1, "eth0", "Packets Received Frame Errors/sec", 10, ST_OK);
	/* rx_fifo_errors 5 -> 15: 10 / 2 */
	CHECK(&s, 1, "eth0", "Packets Received FIFO Errors/sec", 5, ST_OK);
	/* tx_fifo_errors 9 -> 29: 20 / 2 */
	CHECK(&s, 1, "eth0", "Packets Outbound FIFO Errors/sec", 10, ST_OK);
	/* collisions 60 -> 72: 12 / 2 */
	CHECK(&s, 1, "eth0", "Collisions/sec", 6, ST_OK);
	/* carrier 8->26, aborted 7->23, window 12->36, heartbeat 11->33:
	 * (18 + 16 + 24 + 22) / 2 = 80 / 2 */
	CHECK(&s, 1, "eth0", "Packets Outbound Carrier Errors/sec", 40, ST_OK);
	/* rx_compressed 13 -> 39: 26 / 2; tx_compressed 14 -> 42: 28 / 2 */
	CHECK(&s, 1, "eth0", "Packets Received Compressed/sec", 13, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Sent Compressed/sec", 14, ST_OK);
	/* rx_crc_errors 3 -> 9: 6 / 2 */
	CHECK(&s, 1, "eth0", "Packets Received CRC Errors/sec", 3, ST_OK);
	/* rx_missed_errors 6 -> 20: 14 / 2 */
	CHECK(&s, 1, "eth0", "Packets Received No Buffer/sec", 7, ST_OK);
	/* rx_length_errors 1 -> 3: 2 / 2 */
	CHECK(&s, 1, "eth0", "Packets Received Length Errors/sec", 1, ST_OK);
	/* rx_over_errors 2 -> 6: 4 / 2 */
	CHECK(&s, 1, "eth0", "Packets Received Over Errors/sec", 2, ST_OK);
	/* tx_aborted_errors 7 -> 23: 16 / 2 */
	CHECK(&s, 1, "eth0", "Packets Outbound Aborted/sec", 8, ST_OK);
	/* tx_heartbeat_errors 11 -> 33: 22 / 2 */
	CHECK(&s, 1, "eth0", "Packets Outbound Heartbeat Errors/sec", 11, ST_OK);
	/* tx_window_errors 12 -> 36: 24 / 2 */
	CHECK(&s, 1, "eth0", "Packets Outbound Window Errors/sec", 12, ST_OK);
	/* speed 1000 Mbit/s x 1e6 */
	CHECK(&s, 1, "eth0", "Current Bandwidth", 1e9, ST_OK);
	/* t1 -> t2 (dt = 1006 - 1002 = 4 s): rx_bytes 1200000 -> 1600000 */
	CHECK(&s, 2, "eth0", "Bytes Received/sec", 100000, ST_OK);
	/* errors unchanged: 0 / 4 */
	CHECK(&s, 2, "eth0", "Packets Received Errors/sec", 0, ST_OK);
	/* lo: rx_bytes 10000 -> 12000: 2000 / 2; no speed file */
	CHECK(&s, 1, "lo", "Bytes Received/sec", 1000, ST_OK);
	CHECK(&s, 1, "lo", "Current Bandwidth", 0, ST_UNSUPPORTED);
	series_free(&s);
}

/* Wraps, resets, unknown speed, an instance that appears and _Total. */
static void
test_sysfs_wrap_reset_total(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "nic-sysfs", 3, ALL_FIELDS);
	/* eth1 (100 Mbit/s): rx_bytes 4294967000 -> 1000 with the previous
	 * value <= 0xFFFFFFFF: corrected 2^32 - 4294967000 + 1000 = 1296,
	 * below 2^31 and below the bound 100e6 / 8 x 2 x 1.1 = 27500000, so
	 * WRAPPED: 1296 / 2 */
	CHECK(&s, 1, "eth1", "Bytes Received/sec", 648, ST_WRAPPED);
	CHECK(&s, 1, "eth1", "Bytes Total/sec", (1296 + 4000) / 2.0, ST_WRAPPED);
	/* counters without rx_bytes are not marked: tx 20000 -> 24000 */
	CHECK(&s, 1, "eth1", "Bytes Sent/sec", 2000, ST_OK);
	CHECK(&s, 1, "eth1", "Packets Received/sec", 5, ST_OK); /* 10 / 2 */
	/* next interval plain: 1000 -> 5000 over 4 s */
	CHECK(&s, 2, "eth1", "Bytes Received/sec", 1000, ST_OK);
	/* eth2 (100 Mbit/s): rx_bytes 4200000000 -> 100000000: corrected
	 * 2^32 - 4200000000 + 100000000 = 194967296 < 2^31 but above the
	 * bound 27500000 a 100 Mbit/s link can carry in 2 s: RESET, and the
	 * whole instance with it */
	CHECK(&s, 1, "eth2", "Bytes Received/sec", 0, ST_RESET);
	CHECK(&s, 1, "eth2", "Packets Sent/sec", 0, ST_RESET);
	CHECK(&s, 1, "eth2", "Current Bandwidth", 1e8, ST_OK); /* one read: 100 x 1e6 */
	/* t1 is the new reference: 100000000 -> 100400000 over 4 s */
	CHECK(&s, 2, "eth2", "Bytes Received/sec", 100000, ST_OK);
	/* eth4: 64-bit rx_packets 6000000000 -> 5 (previous > 0xFFFFFFFF): RESET */
	CHECK(&s, 1, "eth4", "Packets Received/sec", 0, ST_RESET);
	CHECK(&s, 1, "eth4", "Bytes Received/sec", 0, ST_RESET);
	CHECK(&s, 2, "eth4", "Packets Received/sec", 10, ST_OK); /* (45 - 5) / 4 */
	/* eth3: speed -1: Current Bandwidth UNSUPPORTED; rates fine;
	 * no rx_nohandler file: Packets Received Unknown UNSUPPORTED */
	CHECK(&s, 1, "eth3", "Current Bandwidth", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth3", "Bytes Received/sec", 5000, ST_OK); /* 10000 / 2 */
	CHECK(&s, 1, "eth3", "Packets Received Unknown", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth3", "Packets Received Unknown/sec", 0, ST_UNSUPPORTED);
	/* veth0: ifindex 7 -> 9 in t2, a new interface under an old name: RESET */
	CHECK(&s, 1, "veth0", "Bytes Received/sec", 5000, ST_OK); /* 10000 / 2 */
	CHECK(&s, 2, "veth0", "Bytes Received/sec", 0, ST_RESET);
	/* wlan0 appears in t2: NEW, no rate, but its RAW counters exist */
	CHECK(&s, 2, "wlan0", "Bytes Received/sec", 0, ST_NEW);
	CHECK(&s, 2, "wlan0", "Current Bandwidth", 54e6, ST_NEW);

	/* _Total t0 -> t1: eth0, eth1, eth2, eth3, eth4 have a device; eth2
	 * and eth4 are RESET, so eth0 + eth1 + eth3 (not lo, not veth0):
	 * rx_bytes (200000 + 1296 + 10000) / 2 = 105648, with eth1's wrap */
	CHECK_TOTAL(&s, 1, "Bytes Received/sec", 105648, ST_WRAPPED);
	/* tx_bytes (500000 + 4000 + 6000) / 2 */
	CHECK_TOTAL(&s, 1, "Bytes Sent/sec", 255000, ST_OK);
	/* rx_packets (400 + 10 + 40) / 2 */
	CHECK_TOTAL(&s, 1, "Packets Received/sec", 225, ST_OK);
	/* RAW sums current values of all five: rx_errors 30 + 0 + 0 + 0 + 0 */
	CHECK_TOTAL(&s, 1, "Packets Received Errors", 30, ST_OK);
	/* speed (1000 + 100 + 100 + 10000) x 1e6; eth3's -1 is not summed */
	CHECK_TOTAL(&s, 1, "Current Bandwidth", 11200e6, ST_OK);
	/* _Total t1 -> t2 (4 s): eth3 gone, wlan0 NEW: eth0 + eth1 + eth2 +
	 * eth4: (400000 + 4000 + 400000 + 4000) / 4 = 808000 / 4 */
	CHECK_TOTAL(&s, 2, "Bytes Received/sec", 202000, ST_OK);
	/* speed (1000 + 100 + 100 + 10000 + 54) x 1e6 */
	CHECK_TOTAL(&s, 2, "Current Bandwidth", 11254e6, ST_OK);
	series_free(&s);
}

/* Only what the requested counters need is read. */
static void
test_sysfs_needed(void **unused)
{
	struct series s;
	const struct raw_instance *ri;

	(void)unused;
	series_load(&s, "nic-sysfs", 2, BIT(F_RX_PACKETS));
	ri = find_inst(&s.rs[0], "eth0");
	assert_int_equal(raw_present(&s.rs[0], ri), BIT(F_RX_PACKETS));
	series_free(&s);
	/* a byte count: the engine asks for the speed too (its wrap bound),
	 * and the duplex file is then not read (only % Utilization needs it) */
	series_load(&s, "nic-sysfs", 2, BIT(F_RX_BYTES) | BIT(F_SPEED));
	ri = find_inst(&s.rs[0], "eth0");
	assert_int_equal(raw_present(&s.rs[0], ri), BIT(F_RX_BYTES) | BIT(F_SPEED));
	series_free(&s);
	series_load(&s, "nic-sysfs", 2, BIT(F_RX_BYTES) | BIT(F_SPEED) | BIT(F_DUPLEX));
	ri = find_inst(&s.rs[0], "eth0");
	assert_int_equal(raw_present(&s.rs[0], ri), BIT(F_RX_BYTES) | BIT(F_SPEED) | BIT(F_DUPLEX));
	series_free(&s);
	/* Output Queue Bytes alone: the inflight files, nothing else */
	series_load(&s, "nic-sysfs", 2, BIT(F_BQL_INFLIGHT));
	ri = find_inst(&s.rs[0], "eth0");
	assert_int_equal(raw_present(&s.rs[0], ri), BIT(F_BQL_INFLIGHT));
	assert_int_equal(raw_get(&s.rs[0], ri, F_BQL_INFLIGHT), 5542); /* 1000 + 0 + 3028 + 1514 */
	assert_int_equal(raw_present(&s.rs[0], find_inst(&s.rs[0], "lo")), 0);
	series_free(&s);
	/* nothing needed: the instances still, no fields */
	series_load(&s, "nic-sysfs", 2, 0);
	assert_int_equal(s.rs[0].ninstances, 7);
	assert_int_equal(raw_present(&s.rs[0], find_inst(&s.rs[0], "eth0")), 0);
	series_free(&s);
}

/* The /proc/net/dev form (no sys/class/net), t0 -> t1 = 2 s. eth0 holds
 * what the kernel prints for the sysfs eth0 above, so the counters the file
 * can give match test_sysfs_counters. */
static void
test_procnetdev_counters(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "nic-procnetdev", 2, ALL_FIELDS);
	assert_int_equal(s.rs[0].ninstances, 4);
	assert_string_equal(raw_name_at(&s.rs[0], 0), "lo");
	assert_string_equal(raw_name_at(&s.rs[0], 3), "docker0");
	/* without sysfs every interface but lo is in _Total */
	assert_int_equal(raw_in_total(&s.rs[0], find_inst(&s.rs[0], "lo")), 0);
	assert_int_equal(raw_in_total(&s.rs[0], find_inst(&s.rs[0], "docker0")), 1);
	/* bytes 1000000 -> 1200000, 3000000 -> 3500000 */
	CHECK(&s, 1, "eth0", "Bytes Received/sec", 100000, ST_OK);
	CHECK(&s, 1, "eth0", "Bytes Sent/sec", 250000, ST_OK);
	CHECK(&s, 1, "eth0", "Bytes Total/sec", 350000, ST_OK);
	/* packets 1000 -> 1400, 2000 -> 2600 */
	CHECK(&s, 1, "eth0", "Packets Received/sec", 200, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Sent/sec", 300, ST_OK);
	CHECK(&s, 1, "eth0", "Packets/sec", 500, ST_OK);
	/* multicast 50 -> 60 */
	CHECK(&s, 1, "eth0", "Packets Received Non-Unicast/sec", 5, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Received Multicast/sec", 5, ST_OK);
	/* drop (= rx_dropped + rx_missed_errors) 56 at t1; 36 -> 56: 20 / 2 */
	CHECK(&s, 1, "eth0", "Packets Received Discarded", 56, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Received Discarded/sec", 10, ST_OK);
	/* errs 10 -> 30 */
	CHECK(&s, 1, "eth0", "Packets Received Errors", 30, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Received Errors/sec", 10, ST_OK);
	/* rx_nohandler is not printed */
	CHECK(&s, 1, "eth0", "Packets Received Unknown", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth0", "Packets Received Unknown/sec", 0, ST_UNSUPPORTED);
	/* tx drop 40 -> 48, tx errs 20 -> 60 */
	CHECK(&s, 1, "eth0", "Packets Outbound Discarded", 48, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Outbound Discarded/sec", 4, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Outbound Errors", 60, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Outbound Errors/sec", 20, ST_OK);
	/* frame (the sum of four) 10 -> 30: 20 / 2 */
	CHECK(&s, 1, "eth0", "Packets Received Frame Errors/sec", 10, ST_OK);
	/* fifo 5 -> 15, tx fifo 9 -> 29, colls 60 -> 72 */
	CHECK(&s, 1, "eth0", "Packets Received FIFO Errors/sec", 5, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Outbound FIFO Errors/sec", 10, ST_OK);
	CHECK(&s, 1, "eth0", "Collisions/sec", 6, ST_OK);
	/* carrier (the sum of four) 38 -> 118: 80 / 2 */
	CHECK(&s, 1, "eth0", "Packets Outbound Carrier Errors/sec", 40, ST_OK);
	/* compressed 13 -> 39, 14 -> 42 */
	CHECK(&s, 1, "eth0", "Packets Received Compressed/sec", 13, ST_OK);
	CHECK(&s, 1, "eth0", "Packets Sent Compressed/sec", 14, ST_OK);
	/* the parts of the sums are not printed */
	CHECK(&s, 1, "eth0", "Packets Received CRC Errors/sec", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth0", "Packets Received No Buffer/sec", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth0", "Packets Received Length Errors/sec", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth0", "Packets Received Over Errors/sec", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth0", "Packets Outbound Aborted/sec", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth0", "Packets Outbound Heartbeat Errors/sec", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth0", "Packets Outbound Window Errors/sec", 0, ST_UNSUPPORTED);
	/* no speed without sysfs */
	CHECK(&s, 1, "eth0", "Current Bandwidth", 0, ST_UNSUPPORTED);
	/* eth1 "eth1:4294967000" -> 1000, no speed so no bound: corrected
	 * 2^32 - 4294967000 + 1000 = 1296, WRAPPED: 1296 / 2 */
	CHECK(&s, 1, "eth1", "Bytes Received/sec", 648, ST_WRAPPED);
	/* _Total: eth0 + eth1 + docker0, not lo:
	 * (200000 + 1296 + 1000) / 2 = 101148, with eth1's wrap */
	CHECK_TOTAL(&s, 1, "Bytes Received/sec", 101148, ST_WRAPPED);
	/* tx (500000 + 4000 + 2000) / 2 = 253000 */
	CHECK_TOTAL(&s, 1, "Bytes Sent/sec", 253000, ST_OK);
	CHECK_TOTAL(&s, 1, "Packets Received CRC Errors/sec", 0, ST_UNSUPPORTED);
	/* no sysfs: no queues, no speed; no netlink: no qdisc */
	CHECK(&s, 1, "eth0", "Output Queue Bytes", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth0", "% Utilization", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth0", "Output Queue Length", 0, ST_UNSUPPORTED);
	series_free(&s);
}

/* Output Queue Bytes (BQL inflight sums, read at each root) and Output
 * Queue Length (UNSUPPORTED under --root) over the sysfs series. */
static void
test_sysfs_queues(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "nic-sysfs", 3, ALL_FIELDS);
	/* eth0 t1: tx-0..3 inflight 4542 + 1514 + 0 + 0 */
	CHECK(&s, 1, "eth0", "Output Queue Bytes", 6056, ST_OK);
	/* t2: all four drained, 0 + 0 + 0 + 0 */
	CHECK(&s, 2, "eth0", "Output Queue Bytes", 0, ST_OK);
	/* eth1 t1: 0 + 1514 */
	CHECK(&s, 1, "eth1", "Output Queue Bytes", 1514, ST_OK);
	/* eth4 t1: eight queues, only tx-3 busy: 1514; its RESET (rx_packets
	 * went back) leaves a one-read counter alone */
	CHECK(&s, 1, "eth4", "Output Queue Bytes", 1514, ST_OK);
	/* t2: 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 */
	CHECK(&s, 2, "eth4", "Output Queue Bytes", 36, ST_OK);
	/* wlan0 appears in t2 with one queue of 256: shown, NEW */
	CHECK(&s, 2, "wlan0", "Output Queue Bytes", 256, ST_NEW);
	/* lo and veth0: a tx-0 without byte_queue_limits; eth2, eth3: no
	 * queues directory */
	CHECK(&s, 1, "lo", "Output Queue Bytes", 0, ST_UNSUPPORTED);
	CHECK(&s, 2, "veth0", "Output Queue Bytes", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth2", "Output Queue Bytes", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "eth3", "Output Queue Bytes", 0, ST_UNSUPPORTED);
	/* _Total t1 (device interfaces with BQL): eth0 6056 + eth1 1514 +
	 * eth4 1514 = 9084 */
	CHECK_TOTAL(&s, 1, "Output Queue Bytes", 9084, ST_OK);
	/* t2: eth0 0 + eth1 0 + eth4 36 + wlan0 256 = 292 */
	CHECK_TOTAL(&s, 2, "Output Queue Bytes", 292, ST_OK);
	/* qdiscs are netlink only: UNSUPPORTED under --root, _Total too */
	CHECK(&s, 1, "eth0", "Output Queue Length", 0, ST_UNSUPPORTED);
	CHECK(&s, 2, "lo", "Output Queue Length", 0, ST_UNSUPPORTED);
	CHECK_TOTAL(&s, 1, "Output Queue Length", 0, ST_UNSUPPORTED);
	series_free(&s);
}

/* % Utilization over the sysfs series: 100 x bytes x 8 / (dt x speed x 1e6),
 * bytes = max(d rx, d tx) on full duplex, d rx + d tx otherwise. */
static void
test_sysfs_utilization(void **unused)
{
	struct series s;

	(void)unused;
	series_load(&s, "nic-sysfs", 3, ALL_FIELDS);
	/* eth0 1000 full, dt 2: rx 200000, tx 500000: max 500000;
	 * 100 x 500000 x 8 / (2 x 1e9) = 4e8 / 2e9 */
	CHECK(&s, 1, "eth0", "% Utilization", 0.2, ST_OK);
	/* t1 -> t2, dt 4: rx 400000, tx 800000: 100 x 800000 x 8 / (4 x 1e9) */
	CHECK(&s, 2, "eth0", "% Utilization", 0.16, ST_OK);
	/* eth1 100 half, dt 2: rx 1296 (wrapped), tx 4000: sum 5296;
	 * 100 x 5296 x 8 / (2 x 1e8) = 4236800 / 2e8, WRAPPED like rx_bytes */
	CHECK(&s, 1, "eth1", "% Utilization", 0.021184, ST_WRAPPED);
	/* dt 4: rx 4000 + tx 4000 = 8000: 100 x 8000 x 8 / (4 x 1e8) */
	CHECK(&s, 2, "eth1", "% Utilization", 0.016, ST_OK);
	/* eth2 100 full: RESET t0 -> t1; then rx 400000, tx 1000, dt 4:
	 * 100 x 400000 x 8 / (4 x 1e8) = 3.2e8 / 4e8 */
	CHECK(&s, 1, "eth2", "% Utilization", 0, ST_RESET);
	CHECK(&s, 2, "eth2", "% Utilization", 0.8, ST_OK);
	/* veth0 10000 full: rx 10000, tx 20000: 100 x 20000 x 8 / (2 x 1e10) */
	CHECK(&s, 1, "veth0", "% Utilization", 0.0008, ST_OK);
	/* eth3 speed -1 and lo without speed: UNSUPPORTED, never a made-up
	 * speed; wlan0 NEW in t2 */
	CHECK(&s, 1, "eth3", "% Utilization", 0, ST_UNSUPPORTED);
	CHECK(&s, 1, "lo", "% Utilization", 0, ST_UNSUPPORTED);
	CHECK(&s, 2, "wlan0", "% Utilization", 0, ST_NEW);
	/* no _Total: the links' speeds do not add up to one link */
	CHECK_TOTAL(&s, 1, "% Utilization", 0, ST_UNSUPPORTED);
	CHECK_TOTAL(&s, 2, "% Utilization", 0, ST_UNSUPPORTED);
	series_free(&s);
}

/* One hand-made pair of reads of one interface: speed (Mbit/s) and duplex
 * put unless negative; rx and tx byte counts at both reads. */
static struct value
utilization(int64_t speed, int duplex, uint64_t rx0, uint64_t tx0, uint64_t rx1, uint64_t tx1,
	    double dt)
{
	const struct counter_set *set = provider_network_adapter.set;
	struct derive_env env = { .dt = dt, .user_hz = 100, .ulong_bits = 64 };
	struct raw_set a, b;
	struct raw_instance *ri;
	FIELD_DELTAS_DECLARE(d);
	struct value v;

	raw_set_init(&a, set);
	raw_set_init(&b, set);
	raw_set_begin(&a);
	raw_set_begin(&b);
	ri = raw_set_add(&a, "x", 1, 1);
	raw_put(&a, ri, F_RX_BYTES, rx0);
	raw_put(&a, ri, F_TX_BYTES, tx0);
	ri = raw_set_add(&b, "x", 1, 1);
	raw_put(&b, ri, F_RX_BYTES, rx1);
	raw_put(&b, ri, F_TX_BYTES, tx1);
	if (speed >= 0) {
		raw_put(&a, &a.inst[0], F_SPEED, (uint64_t)speed);
		raw_put(&b, ri, F_SPEED, (uint64_t)speed);
	}
	if (duplex >= 0) {
		raw_put(&a, &a.inst[0], F_DUPLEX, (uint64_t)duplex);
		raw_put(&b, ri, F_DUPLEX, (uint64_t)duplex);
	}
	derive_deltas(&a, &a.inst[0], &b, ri, &env, &d);
	v = derive_value(&b, counter("% Utilization"), ri, &d, ST_OK, &env);
	raw_set_free(&a);
	raw_set_free(&b);
	return v;
}

#define CHECK_UTIL(speed, duplex, rx0, tx0, rx1, tx1, dt, expect, st) \
	check(utilization(speed, duplex, rx0, tx0, rx1, tx1, dt), expect, st, "% Utilization", \
	      __LINE__)

/* derive.c's UTILIZATION as this set declares it (num rx_bytes, den
 * tx_bytes, speed_field, duplex_field). */
static void
test_utilization_derive(void **unused)
{
	const struct counter_set *set = provider_network_adapter.set;
	struct derive_env env = { .dt = 1, .user_hz = 100, .ulong_bits = 64 };
	const struct raw_instance *cur[2];
	const struct field_deltas *dp[2];
	FIELD_DELTAS_ARRAY(d, 2);
	uint8_t pair[2] = { ST_OK, ST_OK };
	struct raw_set a, b;

	(void)unused;
	assert_int_equal(set->speed_field, FIELD_REF(F_SPEED));
	assert_int_equal(set->duplex_field, FIELD_REF(F_DUPLEX));
	/* 1000 Mbit/s full, 1 s: rx 1000000, tx 250000: the larger,
	 * 100 x 1000000 x 8 / (1 x 1e9) */
	CHECK_UTIL(1000, 1, 0, 0, 1000000, 250000, 1, 0.8, ST_OK);
	/* the same bytes sent rather than received: max again */
	CHECK_UTIL(1000, 1, 0, 0, 250000, 1000000, 1, 0.8, ST_OK);
	/* half duplex: the sum, 100 x 1250000 x 8 / 1e9 */
	CHECK_UTIL(1000, 0, 0, 0, 1000000, 250000, 1, 1.0, ST_OK);
	/* duplex unreadable counts as half: the sum */
	CHECK_UTIL(1000, -1, 0, 0, 1000000, 250000, 1, 1.0, ST_OK);
	/* a saturated 10 Gbit/s link in 2 s: 2.5e9 bytes each way, full:
	 * 100 x 2.5e9 x 8 / (2 x 1e10) */
	CHECK_UTIL(10000, 1, 0, 0, 2500000000u, 2500000000u, 2, 100, ST_OK);
	/* ... and the same on half duplex: 200 %, not clamped */
	CHECK_UTIL(10000, 0, 0, 0, 2500000000u, 2500000000u, 2, 200, ST_OK);
	/* speed unknown (no field), 0, or -1 read as 0xFFFFFFFF: UNSUPPORTED */
	CHECK_UTIL(-1, 1, 0, 0, 1000, 1000, 1, 0, ST_UNSUPPORTED);
	CHECK_UTIL(0, 1, 0, 0, 1000, 1000, 1, 0, ST_UNSUPPORTED);
	CHECK_UTIL(0xFFFFFFFF, 1, 0, 0, 1000, 1000, 1, 0, ST_UNSUPPORTED);
	/* no interval */
	CHECK_UTIL(1000, 1, 0, 0, 1000, 1000, 0, 0, ST_BAD_TIME);
	/* idle: 0 */
	CHECK_UTIL(100, 1, 5, 5, 5, 5, 1, 0, ST_OK);

	/* _Total: UNSUPPORTED with instances, NO_INSTANCE without */
	raw_set_init(&a, set);
	raw_set_init(&b, set);
	raw_set_begin(&a);
	raw_set_begin(&b);
	for (int i = 0; i < 2; i++) {
		struct raw_instance *ri = raw_set_add(&a, i ? "y" : "x", 1, (uint64_t)i);
		raw_put(&a, ri, F_RX_BYTES, 0);
		raw_put(&a, ri, F_TX_BYTES, 0);
		raw_put(&a, ri, F_SPEED, 1000);
		raw_put(&a, ri, F_DUPLEX, 1);
		ri = raw_set_add(&b, i ? "y" : "x", 1, (uint64_t)i);
		raw_put(&b, ri, F_RX_BYTES, 1000);
		raw_put(&b, ri, F_TX_BYTES, 1000);
		raw_put(&b, ri, F_SPEED, 1000);
		raw_put(&b, ri, F_DUPLEX, 1);
	}
	for (int i = 0; i < 2; i++) {
		derive_deltas(&a, &a.inst[i], &b, &b.inst[i], &env, &d[i]);
		cur[i] = &b.inst[i];
		dp[i] = &d[i];
	}
	check(derive_total(&b, counter("% Utilization"), cur, dp, pair, 2, &env), 0,
	      ST_UNSUPPORTED, "_Total % Utilization", __LINE__);
	check(derive_total(&b, counter("% Utilization"), cur, dp, pair, 0, &env), 0,
	      ST_NO_INSTANCE, "empty _Total % Utilization", __LINE__);
	/* the first read of an instance has no value yet */
	check(derive_value(&b, counter("% Utilization"), cur[0], NULL, ST_FIRST, &env), 0,
	      ST_FIRST, "first % Utilization", __LINE__);
	raw_set_free(&a);
	raw_set_free(&b);
}

/* Read a live provider (netlink) or a --root / provider (sysfs) once. */
static void
read_once(const struct provider_ctx *ctx, void *state, struct raw_set *rs)
{
	struct err err = { "" };

	assert_int_equal(procfs_begin_read(ctx->fs, 0, &err), 0);
	raw_set_init(rs, provider_network_adapter.set);
	raw_set_begin(rs);
	if (provider_network_adapter.read(state, rs, &err) != 0)
		fail_msg("read: %s", err.msg);
}

/* The live provider lists lo (ifindex 1, no device) from netlink. */
static void
test_live_netlink(void **unused)
{
	struct procfs *fs = procfs_new(NULL, 0);
	struct provider_ctx ctx = { fs, ALL_FIELDS };
	struct err err = { "" };
	struct nic_netlink *nl = nic_netlink_open(&err);
	const struct raw_instance *lo;
	struct raw_set rs;
	void *st;

	(void)unused;
	if (!nl) {
		procfs_free(fs);
		print_message("skipped: %s\n", err.msg);
		skip();
	}
	nic_netlink_close(nl);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	st = provider_network_adapter.open(&ctx, &err);
	assert_non_null(st);
	for (int i = 0; i < 3; i++) { /* the same buffers every read */
		read_once(&ctx, st, &rs);
		lo = find_inst(&rs, "lo");
		assert_non_null(lo);
		assert_int_equal(raw_identity(&rs, lo), 1);
		assert_int_equal(raw_in_total(&rs, lo), 0);
		assert_true((raw_present(&rs, lo) & NIC_STATS_MASK) != 0);
		assert_int_equal(raw_present(&rs, lo) & BIT(F_SPEED), 0); /* EINVAL */
		raw_set_free(&rs);
	}
	provider_network_adapter.close(st);
	procfs_free(fs);
}

/* Live: Output Queue Length for every interface (lo's noqueue gives 0),
 * and only when asked; Output Queue Bytes exactly where sysfs has
 * byte_queue_limits on tx-0. */
static void
test_live_queues(void **unused)
{
	struct procfs *fs = procfs_new(NULL, 0);
	struct provider_ctx ctx = { fs, BIT(F_QLEN) | BIT(F_BQL_INFLIGHT) };
	struct err err = { "" };
	struct nic_netlink *nl = nic_netlink_open(&err);
	struct raw_set rs;
	void *st;

	(void)unused;
	if (!nl) {
		procfs_free(fs);
		print_message("skipped: %s\n", err.msg);
		skip();
	}
	nic_netlink_close(nl);
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	st = provider_network_adapter.open(&ctx, &err);
	assert_non_null(st);
	for (int i = 0; i < 3; i++) { /* the same socket, buffer, files */
		read_once(&ctx, st, &rs);
		assert_true(rs.ninstances > 0);
		for (size_t k = 0; k < rs.ninstances; k++) {
			const struct raw_instance *ri = &rs.inst[k];
			char path[256];
			int bql;

			if (!(raw_present(&rs, ri) & BIT(F_QLEN)))
				fail_msg("%s: no Output Queue Length", raw_name(&rs, ri));
			snprintf(path, sizeof(path),
				 "/sys/class/net/%s/queues/tx-0/byte_queue_limits/inflight",
				 raw_name(&rs, ri));
			bql = access(path, R_OK) == 0;
			if (!!(raw_present(&rs, ri) & BIT(F_BQL_INFLIGHT)) != bql)
				fail_msg("%s: Output Queue Bytes %s, sysfs %s", raw_name(&rs, ri),
					 bql ? "missing" : "present", bql ? "has BQL" : "has none");
			/* besides those, only the statistics the dump carries (all
			 * recorded, so a reset in any of them is seen) */
			assert_int_equal(raw_present(&rs, ri) & ~(BIT(F_QLEN) | BIT(F_BQL_INFLIGHT) |
							  NIC_STATS_MASK),
					 0);
		}
		/* lo: noqueue */
		assert_int_equal(raw_get(&rs, find_inst(&rs, "lo"), F_QLEN), 0);
		raw_set_free(&rs);
	}
	provider_network_adapter.close(st);
	/* not requested: no RTM_GETQDISC dump, no field */
	ctx.needed = BIT(F_RX_BYTES);
	st = provider_network_adapter.open(&ctx, &err);
	read_once(&ctx, st, &rs);
	for (size_t k = 0; k < rs.ninstances; k++)
		assert_int_equal(raw_present_at(&rs, k) & (BIT(F_QLEN) | BIT(F_BQL_INFLIGHT)), 0);
	raw_set_free(&rs);
	provider_network_adapter.close(st);
	procfs_free(fs);
}

/* sysfs, netlink, sysfs: every netlink value lies between the two sysfs
 * values; for GC_NIC_QUIET_IF (a quiet interface) all three are equal. */
static void
test_netlink_equals_sysfs(void **unused)
{
	const char *root = "/";
	const char *quiet = getenv("GC_NIC_QUIET_IF");
	struct procfs *live = procfs_new(NULL, 0), *files = procfs_new(&root, 1);
	struct provider_ctx lctx = { live, ALL_FIELDS }, fctx = { files, ALL_FIELDS };
	struct err err = { "" };
	struct raw_set a, n, b;
	void *lst, *fst;
	int compared = 0, quiet_seen = 0;

	(void)unused;
	assert_int_equal(procfs_begin_read(live, 0, &err), 0);
	assert_int_equal(procfs_begin_read(files, 0, &err), 0);
	lst = provider_network_adapter.open(&lctx, &err);
	fst = provider_network_adapter.open(&fctx, &err);
	assert_non_null(lst);
	assert_non_null(fst);
	read_once(&fctx, fst, &a);
	read_once(&lctx, lst, &n);
	read_once(&fctx, fst, &b);
	for (size_t i = 0; i < n.ninstances; i++) {
		const struct raw_instance *ni = &n.inst[i];
		const char *name = raw_name(&n, ni);
		const struct raw_instance *ai = find_inst(&a, name);
		const struct raw_instance *bi = find_inst(&b, name);
		int is_quiet = quiet && strcmp(quiet, name) == 0;

		if (!ai || !bi)
			continue; /* came or went meanwhile */
		/* same identity (ifindex), same _Total membership */
		assert_int_equal(raw_identity(&a, ai), raw_identity(&n, ni));
		assert_int_equal(raw_in_total(&a, ai), raw_in_total(&n, ni));
		quiet_seen |= is_quiet;
		for (unsigned f = 0; f < NIC_NSTATS; f++) {
			uint64_t m = BIT(f);
			if (!(raw_present(&n, ni) & raw_present(&a, ai) & raw_present(&b, bi) & m))
				continue;
			if (raw_get(&a, ai, f) > raw_get(&n, ni, f) || raw_get(&n, ni, f) > raw_get(&b, bi, f))
				fail_msg("%s %s: sysfs %llu, netlink %llu, sysfs %llu", ni->name,
					 nic_stat_name(f), (unsigned long long)raw_get(&a, ai, f),
					 (unsigned long long)raw_get(&n, ni, f),
					 (unsigned long long)raw_get(&b, bi, f));
			if (is_quiet && (raw_get(&a, ai, f) != raw_get(&n, ni, f) ||
					 raw_get(&b, bi, f) != raw_get(&n, ni, f)))
				fail_msg("quiet %s %s: sysfs %llu, netlink %llu, sysfs %llu",
					 name, nic_stat_name(f),
					 (unsigned long long)raw_get(&a, ai, f),
					 (unsigned long long)raw_get(&n, ni, f),
					 (unsigned long long)raw_get(&b, bi, f));
			compared++;
		}
		if (is_quiet)
			print_message("%s: %d fields equal in sysfs and netlink\n", name,
				      NIC_NSTATS);
	}
	assert_true(compared > 0);
	if (quiet && !quiet_seen)
		fail_msg("GC_NIC_QUIET_IF=%s: no such interface here", quiet);
	raw_set_free(&a);
	raw_set_free(&n);
	raw_set_free(&b);
	provider_network_adapter.close(lst);
	provider_network_adapter.close(fst);
	procfs_free(live);
	procfs_free(files);
}

/* Up to 1024 interfaces' statistics by ifindex, from one dump. */
struct stats_by_index {
	int n;
	int ifindex[1024];
	struct nic_stats stats[1024];
};

static int
collect_stats(const struct nic_link *l, void *arg, struct err *err)
{
	struct stats_by_index *s = arg;

	(void)err;
	if (s->n < 1024) {
		s->ifindex[s->n] = l->ifindex;
		s->stats[s->n] = l->stats;
		s->n++;
	}
	return 0;
}

/* The statistics of ifindex in s, or NULL. */
static const struct nic_stats *
stats_of(const struct stats_by_index *s, int ifindex)
{
	for (int i = 0; i < s->n; i++)
		if (s->ifindex[i] == ifindex)
			return &s->stats[i];
	return NULL;
}

/* RTM_GETLINK, RTM_GETSTATS, RTM_GETLINK: the same interfaces, and each
 * RTM_GETSTATS value between the two RTM_GETLINK values (equal for
 * GC_NIC_QUIET_IF, found by name in the first dump). */
static void
test_stats_dump_equals_link_dump(void **unused)
{
	static struct stats_by_index a, m, b;
	const char *quiet = getenv("GC_NIC_QUIET_IF");
	struct err err = { "" };
	struct nic_netlink *nl = nic_netlink_open(&err);
	int quiet_index = -1, compared = 0;

	(void)unused;
	if (!nl) {
		print_message("skipped: %s\n", err.msg);
		skip();
	}
	memset(&a, 0, sizeof(a));
	memset(&m, 0, sizeof(m));
	memset(&b, 0, sizeof(b));
	assert_int_equal(nic_netlink_dump(nl, collect_stats, &a, &err), 0);
	if (nic_netlink_stats_dump(nl, collect_stats, &m, &err) != 0)
		fail_msg("RTM_GETSTATS: %s", err.msg);
	assert_int_equal(nic_netlink_dump(nl, collect_stats, &b, &err), 0);
	if (quiet && if_nametoindex(quiet) > 0)
		quiet_index = (int)if_nametoindex(quiet);
	assert_true(m.n > 0);
	for (int i = 0; i < m.n; i++) {
		const struct nic_stats *sa = stats_of(&a, m.ifindex[i]);
		const struct nic_stats *sb = stats_of(&b, m.ifindex[i]);
		const struct nic_stats *sm = &m.stats[i];

		if (!sa || !sb)
			continue; /* came or went meanwhile */
		assert_int_equal(sm->present & ~sa->present, 0);
		for (unsigned f = 0; f < NIC_NSTATS; f++) {
			if (!(sm->present & BIT(f)))
				continue;
			if (sa->v[f] > sm->v[f] || sm->v[f] > sb->v[f])
				fail_msg("ifindex %d %s: link %llu, stats %llu, link %llu",
					 m.ifindex[i], nic_stat_name(f),
					 (unsigned long long)sa->v[f], (unsigned long long)sm->v[f],
					 (unsigned long long)sb->v[f]);
			if (m.ifindex[i] == quiet_index &&
			    (sa->v[f] != sm->v[f] || sb->v[f] != sm->v[f]))
				fail_msg("quiet %s %s: link %llu, stats %llu, link %llu", quiet,
					 nic_stat_name(f), (unsigned long long)sa->v[f],
					 (unsigned long long)sm->v[f], (unsigned long long)sb->v[f]);
			compared++;
		}
	}
	assert_true(compared > 0);
	if (quiet_index > 0)
		print_message("%s: RTM_GETSTATS equals RTM_GETLINK\n", quiet);
	nic_netlink_close(nl);
}

/* The live instance named name in rs, or NULL. */
static const struct raw_instance *
live_find(const struct raw_set *rs, const char *name)
{
	for (size_t i = 0; i < rs->ninstances; i++)
		if (strcmp(raw_name_at(rs, i), name) == 0)
			return &rs->inst[i];
	return NULL;
}

/* Run an ip command; fail the test if it fails. */
static void
ip(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("%s failed", cmd);
}

/* Live, in a throwaway network namespace only (GC_NIC_LINK_CHANGES set, as
 * tests/cli/test_nic_veth.sh runs it): links that come, are renamed or go
 * between two reads show in the very next read, through the RTNLGRP_LINK
 * notifications and the RTM_GETSTATS read; then 150 pairs at once (more
 * notifications than the socket holds: the read dumps the links again). */
static void
test_live_link_changes(void **unused)
{
	struct procfs *fs = procfs_new(NULL, 0);
	struct provider_ctx ctx = { fs, ALL_FIELDS };
	struct err err = { "" };
	struct raw_set rs;
	const struct raw_instance *ri;
	uint64_t id;
	int pid = (int)getpid() % 10000;
	void *st;

	(void)unused;
	if (!getenv("GC_NIC_LINK_CHANGES")) {
		procfs_free(fs);
		print_message("skipped: set GC_NIC_LINK_CHANGES in a throwaway netns\n");
		skip();
	}
	assert_int_equal(procfs_begin_read(fs, 0, &err), 0);
	st = provider_network_adapter.open(&ctx, &err);
	assert_non_null(st);
	read_once(&ctx, st, &rs);
	raw_set_free(&rs);

	/* a pair comes */
	ip("ip link add gcx%da type veth peer name gcx%db", pid, pid);
	char a[16], b[16], c[16];
	snprintf(a, sizeof(a), "gcx%da", pid);
	snprintf(b, sizeof(b), "gcx%db", pid);
	snprintf(c, sizeof(c), "gcy%da", pid);
	read_once(&ctx, st, &rs);
	ri = live_find(&rs, a);
	assert_non_null(ri);
	assert_int_equal(raw_identity(&rs, ri), if_nametoindex(a));
	assert_true((raw_present(&rs, ri) & NIC_STATS_MASK) != 0);
	assert_non_null(live_find(&rs, b));
	id = raw_identity(&rs, ri);
	raw_set_free(&rs);

	/* one is renamed: same identity, the new name */
	ip("ip link set %s name %s", a, c);
	read_once(&ctx, st, &rs);
	assert_null(live_find(&rs, a));
	ri = live_find(&rs, c);
	assert_non_null(ri);
	assert_int_equal(raw_identity(&rs, ri), id);
	raw_set_free(&rs);

	/* up: the carrier changes, speed is read again (veth: 10000) */
	ip("ip link set %s up", c);
	ip("ip link set %s up", b);
	for (int i = 0; i < 50; i++) { /* the carrier comes up asynchronously */
		read_once(&ctx, st, &rs);
		ri = live_find(&rs, c);
		assert_non_null(ri);
		if (raw_present(&rs, ri) & BIT(F_SPEED))
			break;
		raw_set_free(&rs);
		usleep(20000);
	}
	assert_true(raw_present(&rs, ri) & BIT(F_SPEED));
	assert_int_equal(raw_get(&rs, ri, F_SPEED), 10000);
	raw_set_free(&rs);

	/* the pair goes */
	ip("ip link del %s", c);
	read_once(&ctx, st, &rs);
	assert_null(live_find(&rs, c));
	assert_null(live_find(&rs, b));
	raw_set_free(&rs);

	/* 150 pairs at once: every one in the next read */
	FILE *batch = popen("ip -batch -", "w");
	assert_non_null(batch);
	for (int i = 0; i < 150; i++)
		fprintf(batch, "link add gcm%d type veth peer name gcn%d\n", i, i);
	assert_int_equal(pclose(batch), 0);
	read_once(&ctx, st, &rs);
	for (int i = 0; i < 150; i++) {
		snprintf(a, sizeof(a), "gcm%d", i);
		snprintf(b, sizeof(b), "gcn%d", i);
		if (!live_find(&rs, a) || !live_find(&rs, b))
			fail_msg("%s or %s missing from the read after they came", a, b);
	}
	raw_set_free(&rs);
	batch = popen("ip -batch -", "w");
	assert_non_null(batch);
	for (int i = 0; i < 150; i++)
		fprintf(batch, "link del gcm%d\n", i);
	assert_int_equal(pclose(batch), 0);
	read_once(&ctx, st, &rs);
	for (int i = 0; i < 150; i++) {
		snprintf(a, sizeof(a), "gcm%d", i);
		assert_null(live_find(&rs, a));
	}
	raw_set_free(&rs);
	print_message("links that came, were renamed and went: seen in the next read\n");
	provider_network_adapter.close(st);
	procfs_free(fs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_proc_net_dev_line),
		cmocka_unit_test(test_parse_speed_duplex),
		cmocka_unit_test(test_netlink_stats64),
		cmocka_unit_test(test_netlink_parse),
		cmocka_unit_test(test_netlink_parse_stats),
		cmocka_unit_test(test_netlink_parse_events),
		cmocka_unit_test(test_netlink_parse_qdisc),
		cmocka_unit_test(test_sysfs_instances),
		cmocka_unit_test(test_sysfs_files_kept),
		cmocka_unit_test(test_sysfs_counters),
		cmocka_unit_test(test_sysfs_wrap_reset_total),
		cmocka_unit_test(test_sysfs_needed),
		cmocka_unit_test(test_procnetdev_counters),
		cmocka_unit_test(test_sysfs_queues),
		cmocka_unit_test(test_sysfs_utilization),
		cmocka_unit_test(test_utilization_derive),
		cmocka_unit_test(test_live_netlink),
		cmocka_unit_test(test_live_queues),
		cmocka_unit_test(test_netlink_equals_sysfs),
		cmocka_unit_test(test_stats_dump_equals_link_dump),
		cmocka_unit_test(test_live_link_changes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
