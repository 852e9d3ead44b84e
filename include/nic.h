/*
 * nic.h - the Network Adapter set's raw fields and the readers behind them
 * (COUNTERS.md section 5): parsers of sysfs attributes and /proc/net/dev
 * lines (src/provider/nic.c), and the rtnetlink RTM_GETSTATS, RTM_GETLINK
 * and RTM_GETQDISC dumps and the RTNLGRP_LINK notifications used live
 * (src/provider/nic_netlink.c). The parsers
 * take a buffer and fill values, allocate nothing and never fail on odd
 * input, so a unit test can feed them strings or hand-built netlink
 * messages.
 */
#ifndef GETCOUNTER_NIC_H
#define GETCOUNTER_NIC_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* The raw fields: every struct rtnl_link_stats64 field a counter uses, in
 * the struct's order (sysfs names its statistics files the same), then the
 * link's speed and duplex, the root qdisc's queue length and the bytes in
 * flight by byte queue limits. */
enum nic_field {
	F_RX_PACKETS,
	F_TX_PACKETS,
	F_RX_BYTES,
	F_TX_BYTES,
	F_RX_ERRORS,
	F_TX_ERRORS,
	F_RX_DROPPED,
	F_TX_DROPPED,
	F_MULTICAST,
	F_COLLISIONS,
	F_RX_LENGTH_ERRORS,
	F_RX_OVER_ERRORS,
	F_RX_CRC_ERRORS,
	F_RX_FRAME_ERRORS,
	F_RX_FIFO_ERRORS,
	F_RX_MISSED_ERRORS,
	F_TX_ABORTED_ERRORS,
	F_TX_CARRIER_ERRORS,
	F_TX_FIFO_ERRORS,
	F_TX_HEARTBEAT_ERRORS,
	F_TX_WINDOW_ERRORS,
	F_RX_COMPRESSED,
	F_TX_COMPRESSED,
	F_RX_NOHANDLER,
	NIC_NSTATS, /* the statistics fields end here */
	F_SPEED = NIC_NSTATS, /* Mbit/s */
	F_DUPLEX,             /* 1 full, 0 half or unknown */
	F_QLEN,               /* packets in the root qdisc (live only) */
	F_BQL_INFLIGHT,       /* sum of queues/tx-N/byte_queue_limits/inflight */
	NIC_NFIELDS,
};

/* Bit mask of the statistics fields (F_RX_PACKETS .. F_RX_NOHANDLER). */
#define NIC_STATS_MASK (((uint64_t)1 << NIC_NSTATS) - 1)

/* The sysfs statistics file (and struct member) name of field f < NIC_NSTATS. */
const char *nic_stat_name(unsigned f);

/* One interface's statistics as a reader found them: bit f of present is
 * set for each field f < NIC_NSTATS the source supplied. */
struct nic_stats {
	uint64_t v[NIC_NSTATS];
	uint64_t present;
};

/* Parse the interface line of /proc/net/dev at *p (up to end), advancing *p
 * past it. Fills name/name_len (borrowed from the buffer) and st, with
 * `drop` stored as rx_dropped, `frame` as rx_frame_errors and `carrier` as
 * tx_carrier_errors; the other fields of those sums, and fields a short
 * line lacks, are not present. Returns 1 for an interface line, 0 for a
 * line that is not one (the two headers), -1 at end. */
int nic_parse_proc_net_dev_line(const char **p, const char *end, const char **name,
				size_t *name_len, struct nic_stats *st);

/* Parse a sysfs `speed` attribute: 0 and *mbit set for a known speed; -1
 * for "-1", "unknown", an empty or unparsable text. */
int nic_parse_speed(const char *text, uint64_t *mbit);

/* Parse a sysfs `duplex` attribute: 1 for "full", 0 for anything else. */
uint64_t nic_parse_duplex(const char *text);

/* Copy an IFLA_STATS64 payload of len bytes into st: min(len, sizeof(struct
 * rtnl_link_stats64)) bytes into a zeroed struct; a field beyond len is not
 * present (rx_nohandler before Linux 4.6). */
void nic_netlink_stats64(const void *payload, size_t len, struct nic_stats *st);

/* What an RTM_NEWLINK reply of a dump (or notification), or an
 * RTM_NEWSTATS reply, says about one interface. */
struct nic_link {
	int ifindex;
	const char *name; /* IFLA_IFNAME, borrowed from the reply; NULL if none
			   * (always NULL from RTM_NEWSTATS) */
	size_t name_len;
	struct nic_stats stats; /* from IFLA_STATS64 (never IFLA_STATS), or
				 * RTM_NEWSTATS's IFLA_STATS_LINK_64 */
	uint32_t carrier_changes; /* IFLA_CARRIER_CHANGES, 0 if absent */
};

/* Called once per interface of a dump; returns 0, or -1 (err filled) to stop. */
typedef int (*nic_link_fn)(const struct nic_link *link, void *arg, struct err *err);

/* Parse one datagram of a dump reply (buf, len): call fn for each
 * RTM_NEWLINK whose sequence number is seq. Returns 1 when the dump's
 * NLMSG_DONE was seen, 0 when more datagrams follow, -1 (err filled) on a
 * netlink error message or a malformed reply. */
int nic_netlink_parse(const void *buf, size_t len, uint32_t seq, nic_link_fn fn, void *arg,
		      struct err *err);

/* Parse one datagram of an RTM_GETSTATS dump reply, as nic_netlink_parse
 * does for links: fn gets each RTM_NEWSTATS whose sequence number is seq,
 * with its ifindex and statistics (no name). */
int nic_netlink_parse_stats(const void *buf, size_t len, uint32_t seq, nic_link_fn fn, void *arg,
			    struct err *err);

/* Called once per link notification: type is RTM_NEWLINK (a link came or
 * changed: name, carrier changes) or RTM_DELLINK (it went). */
typedef void (*nic_event_fn)(int type, const struct nic_link *link, void *arg);

/* Parse one datagram of RTNLGRP_LINK notifications: fn gets each
 * RTM_NEWLINK and RTM_DELLINK of family AF_UNSPEC (a bridge's AF_BRIDGE
 * messages are about its ports and are skipped). 0, or -1 when the
 * datagram is malformed. */
int nic_netlink_parse_events(const void *buf, size_t len, nic_event_fn fn, void *arg);

/* What an RTM_NEWQDISC reply of a dump says about one qdisc. */
struct nic_qdisc {
	int ifindex;      /* tcm_ifindex */
	uint32_t handle;  /* tcm_handle */
	uint32_t parent;  /* tcm_parent: TC_H_ROOT for a root qdisc */
	const char *kind; /* TCA_KIND, borrowed from the reply; NULL if none */
	size_t kind_len;
	uint32_t qlen;    /* TCA_STATS2 -> TCA_STATS_QUEUE qlen; 0 for noqueue */
	int has_qlen;     /* the reply carried it, or the kind is noqueue */
};

/* Called once per qdisc of a dump; returns 0, or -1 (err filled) to stop. */
typedef int (*nic_qdisc_fn)(const struct nic_qdisc *qdisc, void *arg, struct err *err);

/* Parse one datagram of an RTM_GETQDISC dump reply, as nic_netlink_parse
 * does for links: fn gets each RTM_NEWQDISC whose sequence number is seq. */
int nic_netlink_parse_qdisc(const void *buf, size_t len, uint32_t seq, nic_qdisc_fn fn,
			    void *arg, struct err *err);

/* A NETLINK_ROUTE socket and its reused receive buffer (and, after
 * nic_netlink_monitor, a second socket for link notifications). */
struct nic_netlink;

/* Open the socket; NULL with err filled when netlink is unavailable.
 * Owned by the caller: nic_netlink_close. */
struct nic_netlink *nic_netlink_open(struct err *err);
/* Run one RTM_GETLINK dump (NLM_F_DUMP), calling fn for every interface.
 * Allocates nothing. Returns 0, or -1 with err filled. */
int nic_netlink_dump(struct nic_netlink *nl, nic_link_fn fn, void *arg, struct err *err);
/* Run one RTM_GETSTATS dump filtered to IFLA_STATS_LINK_64, calling fn for
 * every interface (ifindex and statistics, no name). Allocates nothing.
 * Returns 0; -2 when the kernel does not support the request (EOPNOTSUPP
 * or EINVAL, before Linux 4.7: use nic_netlink_dump); -1 with err filled
 * on any other failure. */
int nic_netlink_stats_dump(struct nic_netlink *nl, nic_link_fn fn, void *arg, struct err *err);
/* Subscribe a second, non-blocking NETLINK_ROUTE socket to RTNLGRP_LINK
 * (subscribe before the RTM_GETLINK dump it complements, so no change is
 * missed in between). 0, or -1 (err filled). */
int nic_netlink_monitor(struct nic_netlink *nl, struct err *err);
/* Drain the notifications that arrived since the last call, without
 * blocking, calling fn for each (nic_netlink_parse_events). Returns 0 when
 * every notification was seen, 1 when some were lost (the socket's queue
 * overflowed: ENOBUFS) or could not be read, so the caller must dump the
 * links again; -1 without a subscription. Allocates nothing. */
int nic_netlink_events(struct nic_netlink *nl, nic_event_fn fn, void *arg);
/* For a set that lists the interfaces itself and needs only to know when
 * to list them again: a subscriber of the process's one socket on
 * RTNLGRP_LINK (opened by the first, closed with the last). */
struct nic_link_watch {
	uint64_t seen; /* the changes counted when it last asked */
	int on;        /* subscribed */
};
/* Subscribe (live): 0, or -1 when there is no such socket (then list the
 * interfaces each time). Subscribe before the first listing, so no change
 * falls between them. */
int nic_link_watch_open(struct nic_link_watch *w);
/* Nonzero when the links changed since w last asked (or notifications
 * were lost, or w is not subscribed). The socket is drained once a read
 * (the read of procfs fs numbered read: procfs_generation), for every
 * subscriber. Allocates nothing. */
int nic_link_watch_changed(struct nic_link_watch *w, const void *fs, uint64_t read);
void nic_link_watch_close(struct nic_link_watch *w);
/* Run one RTM_GETQDISC dump on the same socket and buffer, calling fn for
 * every qdisc of every interface. Allocates nothing. 0, or -1 (err). */
int nic_netlink_qdisc_dump(struct nic_netlink *nl, nic_qdisc_fn fn, void *arg,
			   struct err *err);
void nic_netlink_close(struct nic_netlink *nl);

#endif
