/*
 * nic.c - the Network Adapter set (alias Network Interface), COUNTERS.md
 * section 5: one instance per network interface, fields from struct
 * rtnl_link_stats64 plus the link's speed and duplex, the root qdisc's
 * queue length and the bytes in flight by byte queue limits (BQL).
 *
 * Live (nic_netlink.c), one RTM_GETLINK dump at open names every interface
 * (ifindex -> name); each read then drains the RTNLGRP_LINK notifications
 * (links that came, changed or went) and does one RTM_GETSTATS dump, whose
 * interfaces are exactly the read's instances with their statistics. An
 * RTM_GETLINK dump (it carries the statistics too) is the read instead when
 * notifications were lost or the stats dump names a link the list does not
 * know yet, and on kernels without RTM_GETSTATS. Speed, duplex and the
 * `device` link come from sysfs only when an interface is first seen,
 * renamed, or its carrier changed (each sysfs speed read takes the RTNL
 * lock). Under --root the
 * fixture's sys/class/net is re-scanned each read and every needed
 * statistics file read; without sys/class/net, proc/net/dev. The provider
 * reads only what the requested counters need and never combines fields.
 *
 * Output Queue Length is live only: an RTM_GETQDISC dump per read (only
 * when the counter is requested), the qlen of each interface's root qdisc
 * (parent TC_H_ROOT). An mq or mqprio root needs no sum here: the kernel's
 * mq_dump() and mqprio_dump() add their children's queues into the root's
 * own statistics before the reply is built, so the root's qlen already is
 * the sum (tests/cli/test_nic_qdisc.sh checks it). No root qdisc, or
 * noqueue, is 0. Output Queue Bytes sums queues/tx-N/byte_queue_limits/
 * inflight through one kept-open file per queue, found when the interface
 * is first seen (again after a rename, a carrier change or a failed read).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "nic.h"
#include "provider.h"

static const char *const stat_names[NIC_NSTATS] = {
	[F_RX_PACKETS] = "rx_packets",
	[F_TX_PACKETS] = "tx_packets",
	[F_RX_BYTES] = "rx_bytes",
	[F_TX_BYTES] = "tx_bytes",
	[F_RX_ERRORS] = "rx_errors",
	[F_TX_ERRORS] = "tx_errors",
	[F_RX_DROPPED] = "rx_dropped",
	[F_TX_DROPPED] = "tx_dropped",
	[F_MULTICAST] = "multicast",
	[F_COLLISIONS] = "collisions",
	[F_RX_LENGTH_ERRORS] = "rx_length_errors",
	[F_RX_OVER_ERRORS] = "rx_over_errors",
	[F_RX_CRC_ERRORS] = "rx_crc_errors",
	[F_RX_FRAME_ERRORS] = "rx_frame_errors",
	[F_RX_FIFO_ERRORS] = "rx_fifo_errors",
	[F_RX_MISSED_ERRORS] = "rx_missed_errors",
	[F_TX_ABORTED_ERRORS] = "tx_aborted_errors",
	[F_TX_CARRIER_ERRORS] = "tx_carrier_errors",
	[F_TX_FIFO_ERRORS] = "tx_fifo_errors",
	[F_TX_HEARTBEAT_ERRORS] = "tx_heartbeat_errors",
	[F_TX_WINDOW_ERRORS] = "tx_window_errors",
	[F_RX_COMPRESSED] = "rx_compressed",
	[F_TX_COMPRESSED] = "tx_compressed",
	[F_RX_NOHANDLER] = "rx_nohandler",
};

static const struct field_desc fields[NIC_NFIELDS] = {
	[F_RX_PACKETS] = { "rx_packets", FW_32IN64, FK_COUNTER, FB_NONE,
			   PROM("received_packets", "", 0) },
	[F_TX_PACKETS] = { "tx_packets", FW_32IN64, FK_COUNTER, FB_NONE,
			   PROM("sent_packets", "", 0) },
	[F_RX_BYTES] = { "rx_bytes", FW_32IN64, FK_COUNTER, FB_IF_BYTES,
			 PROM("received", "bytes", 0) },
	[F_TX_BYTES] = { "tx_bytes", FW_32IN64, FK_COUNTER, FB_IF_BYTES, PROM("sent", "bytes", 0) },
	[F_RX_ERRORS] = { "rx_errors", FW_32IN64, FK_COUNTER, FB_NONE,
			  PROM("receive_errors", "", 0) },
	[F_TX_ERRORS] = { "tx_errors", FW_32IN64, FK_COUNTER, FB_NONE, PROM("send_errors", "", 0) },
	[F_RX_DROPPED] = { "rx_dropped", FW_32IN64, FK_COUNTER, FB_NONE,
			   PROM("receive_dropped", "", 0) },
	[F_TX_DROPPED] = { "tx_dropped", FW_32IN64, FK_COUNTER, FB_NONE,
			   PROM("send_dropped", "", 0) },
	[F_MULTICAST] = { "multicast", FW_32IN64, FK_COUNTER, FB_NONE,
			  PROM("received_multicast", "", 0) },
	[F_COLLISIONS] = { "collisions", FW_32IN64, FK_COUNTER, FB_NONE,
			   PROM("collisions", "", 0) },
	[F_RX_LENGTH_ERRORS] = { "rx_length_errors", FW_32IN64, FK_COUNTER, FB_NONE,
				 PROM("receive_length_errors", "", 0) },
	[F_RX_OVER_ERRORS] = { "rx_over_errors", FW_32IN64, FK_COUNTER, FB_NONE,
			       PROM("receive_over_errors", "", 0) },
	[F_RX_CRC_ERRORS] = { "rx_crc_errors", FW_32IN64, FK_COUNTER, FB_NONE,
			      PROM("receive_crc_errors", "", 0) },
	[F_RX_FRAME_ERRORS] = { "rx_frame_errors", FW_32IN64, FK_COUNTER, FB_NONE,
				PROM("receive_frame_errors", "", 0) },
	[F_RX_FIFO_ERRORS] = { "rx_fifo_errors", FW_32IN64, FK_COUNTER, FB_NONE,
			       PROM("receive_fifo_errors", "", 0) },
	[F_RX_MISSED_ERRORS] = { "rx_missed_errors", FW_32IN64, FK_COUNTER, FB_NONE,
				 PROM("receive_missed_errors", "", 0) },
	[F_TX_ABORTED_ERRORS] = { "tx_aborted_errors", FW_32IN64, FK_COUNTER, FB_NONE,
				  PROM("send_aborted_errors", "", 0) },
	[F_TX_CARRIER_ERRORS] = { "tx_carrier_errors", FW_32IN64, FK_COUNTER, FB_NONE,
				  PROM("send_carrier_errors", "", 0) },
	[F_TX_FIFO_ERRORS] = { "tx_fifo_errors", FW_32IN64, FK_COUNTER, FB_NONE,
			       PROM("send_fifo_errors", "", 0) },
	[F_TX_HEARTBEAT_ERRORS] = { "tx_heartbeat_errors", FW_32IN64, FK_COUNTER, FB_NONE,
				    PROM("send_heartbeat_errors", "", 0) },
	[F_TX_WINDOW_ERRORS] = { "tx_window_errors", FW_32IN64, FK_COUNTER, FB_NONE,
				 PROM("send_window_errors", "", 0) },
	[F_RX_COMPRESSED] = { "rx_compressed", FW_32IN64, FK_COUNTER, FB_NONE,
			      PROM("received_compressed", "", 0) },
	[F_TX_COMPRESSED] = { "tx_compressed", FW_32IN64, FK_COUNTER, FB_NONE,
			      PROM("sent_compressed", "", 0) },
	[F_RX_NOHANDLER] = { "rx_nohandler", FW_32IN64, FK_COUNTER, FB_NONE,
			     PROM("receive_unhandled", "", 0) },
	[F_SPEED] = { "speed", FW_64, FK_GAUGE, FB_NONE, PROM("speed", "bytes", 125000) },
	[F_DUPLEX] = { "duplex", FW_64, FK_GAUGE, FB_NONE, PROM("full_duplex", "", 0) },
	[F_QLEN] = { "qlen", FW_64, FK_GAUGE, FB_NONE, PROM("output_queue_length", "", 0) },
	[F_BQL_INFLIGHT] = { "bql_inflight", FW_64, FK_GAUGE, FB_NONE,
			     PROM("output_queue", "bytes", 0) },
};

static const struct counter_desc counters[] = {
	{
		.name = "Bytes Received/sec",
		.type = CT_RATE,
		.num = { { F_RX_BYTES, 1 } },
		.unit = "B/s",
		.help = "Bytes of good frames the interface received per second.",
	},
	{
		.name = "Bytes Sent/sec",
		.type = CT_RATE,
		.num = { { F_TX_BYTES, 1 } },
		.unit = "B/s",
		.help = "Bytes of frames the interface handed to its device per second.",
	},
	{
		.name = "Bytes Total/sec",
		.type = CT_RATE,
		.num = { { F_RX_BYTES, 1 }, { F_TX_BYTES, 1 } },
		.unit = "B/s",
		.help = "Bytes received plus bytes sent per second.",
	},
	{
		.name = "Packets Received/sec",
		.type = CT_RATE,
		.num = { { F_RX_PACKETS, 1 } },
		.unit = "/s",
		.help = "Good packets the interface received per second.",
	},
	{
		.name = "Packets Sent/sec",
		.type = CT_RATE,
		.num = { { F_TX_PACKETS, 1 } },
		.unit = "/s",
		.help = "Packets the interface handed to its device per second.",
	},
	{
		.name = "Packets/sec",
		.type = CT_RATE,
		.num = { { F_RX_PACKETS, 1 }, { F_TX_PACKETS, 1 } },
		.unit = "/s",
		.help = "Packets received plus packets sent per second.",
	},
	{
		.name = "Packets Received Non-Unicast/sec",
		.type = CT_RATE,
		.num = { { F_MULTICAST, 1 } },
		.unit = "/s",
		.help = "Multicast packets received per second as the driver defines them: often "
			"counted at the device (frames the host dropped included), mostly without "
			"broadcast, and 0 on many virtual interfaces.",
	},
	{
		.name = "Packets Received Multicast/sec",
		.type = CT_RATE,
		.num = { { F_MULTICAST, 1 } },
		.unit = "/s",
		.help = "Multicast packets received per second, as the driver defines them: often "
			"counted at the device (frames the host dropped included), mostly without "
			"broadcast, and 0 on many virtual interfaces.",
	},
	{
		.name = "Packets Received Discarded",
		.type = CT_RAW,
		.num = { { F_RX_DROPPED, 1 }, { F_RX_MISSED_ERRORS, 1 } },
		.unit = "",
		.help = "Received packets dropped by the host or missed by the device for lack of "
			"buffers, since the interface was created.",
	},
	{
		.name = "Packets Received Discarded/sec",
		.type = CT_RATE,
		.num = { { F_RX_DROPPED, 1 }, { F_RX_MISSED_ERRORS, 1 } },
		.unit = "/s",
		.help = "Received packets dropped by the host or missed by the device for lack of "
			"buffers, per second.",
	},
	{
		.name = "Packets Received Errors",
		.type = CT_RAW,
		.num = { { F_RX_ERRORS, 1 } },
		.unit = "",
		.help = "Bad packets received since the interface was created.",
	},
	{
		.name = "Packets Received Errors/sec",
		.type = CT_RATE,
		.num = { { F_RX_ERRORS, 1 } },
		.unit = "/s",
		.help = "Bad packets received per second.",
	},
	{
		.name = "Packets Received Unknown",
		.type = CT_RAW,
		.num = { { F_RX_NOHANDLER, 1 } },
		.unit = "",
		.help = "Received packets no protocol handler took, since the interface was "
			"created (not in /proc/net/dev).",
	},
	{
		.name = "Packets Received Unknown/sec",
		.type = CT_RATE,
		.num = { { F_RX_NOHANDLER, 1 } },
		.unit = "/s",
		.help = "Received packets no protocol handler took, per second.",
	},
	{
		.name = "Packets Outbound Discarded",
		.type = CT_RAW,
		.num = { { F_TX_DROPPED, 1 } },
		.unit = "",
		.help = "Packets dropped on the way out since the interface was created.",
	},
	{
		.name = "Packets Outbound Discarded/sec",
		.type = CT_RATE,
		.num = { { F_TX_DROPPED, 1 } },
		.unit = "/s",
		.help = "Packets dropped on the way out per second.",
	},
	{
		.name = "Packets Outbound Errors",
		.type = CT_RAW,
		.num = { { F_TX_ERRORS, 1 } },
		.unit = "",
		.help = "Packets that failed to transmit since the interface was created.",
	},
	{
		.name = "Packets Outbound Errors/sec",
		.type = CT_RATE,
		.num = { { F_TX_ERRORS, 1 } },
		.unit = "/s",
		.help = "Packets that failed to transmit per second.",
	},
	{
		.name = "Packets Received Frame Errors/sec",
		.type = CT_RATE,
		.num = { { F_RX_LENGTH_ERRORS, 1 },
			 { F_RX_OVER_ERRORS, 1 },
			 { F_RX_CRC_ERRORS, 1 },
			 { F_RX_FRAME_ERRORS, 1 } },
		.unit = "/s",
		.help = "Received frames with a bad length, overrun, bad CRC or misalignment per "
			"second (/proc/net/dev's frame column).",
	},
	{
		.name = "Packets Received FIFO Errors/sec",
		.type = CT_RATE,
		.num = { { F_RX_FIFO_ERRORS, 1 } },
		.unit = "/s",
		.help = "Receive FIFO overruns per second.",
	},
	{
		.name = "Packets Outbound FIFO Errors/sec",
		.type = CT_RATE,
		.num = { { F_TX_FIFO_ERRORS, 1 } },
		.unit = "/s",
		.help = "Transmit FIFO underruns per second.",
	},
	{
		.name = "Collisions/sec",
		.type = CT_RATE,
		.num = { { F_COLLISIONS, 1 } },
		.unit = "/s",
		.help = "Collisions on a shared medium per second.",
	},
	{
		.name = "Packets Outbound Carrier Errors/sec",
		.type = CT_RATE,
		.num = { { F_TX_CARRIER_ERRORS, 1 },
			 { F_TX_ABORTED_ERRORS, 1 },
			 { F_TX_WINDOW_ERRORS, 1 },
			 { F_TX_HEARTBEAT_ERRORS, 1 } },
		.unit = "/s",
		.help = "Transmissions lost to carrier, abort, late-collision window or heartbeat "
			"errors per second (/proc/net/dev's carrier column).",
	},
	{
		.name = "Packets Received Compressed/sec",
		.type = CT_RATE,
		.num = { { F_RX_COMPRESSED, 1 } },
		.unit = "/s",
		.help = "Compressed packets received per second (CSLIP, PPP).",
	},
	{
		.name = "Packets Sent Compressed/sec",
		.type = CT_RATE,
		.num = { { F_TX_COMPRESSED, 1 } },
		.unit = "/s",
		.help = "Compressed packets sent per second (CSLIP, PPP).",
	},
	{
		.name = "Packets Received CRC Errors/sec",
		.type = CT_RATE,
		.num = { { F_RX_CRC_ERRORS, 1 } },
		.unit = "/s",
		.help = "Received frames with a bad checksum per second.",
	},
	{
		.name = "Packets Received No Buffer/sec",
		.type = CT_RATE,
		.num = { { F_RX_MISSED_ERRORS, 1 } },
		.unit = "/s",
		.help = "Frames the device missed for lack of receive buffers per second.",
	},
	{
		.name = "Packets Received Length Errors/sec",
		.type = CT_RATE,
		.num = { { F_RX_LENGTH_ERRORS, 1 } },
		.unit = "/s",
		.help = "Received frames too short or too long per second.",
	},
	{
		.name = "Packets Received Over Errors/sec",
		.type = CT_RATE,
		.num = { { F_RX_OVER_ERRORS, 1 } },
		.unit = "/s",
		.help = "Received frames the device's ring could not hold per second.",
	},
	{
		.name = "Packets Outbound Aborted/sec",
		.type = CT_RATE,
		.num = { { F_TX_ABORTED_ERRORS, 1 } },
		.unit = "/s",
		.help = "Transmissions the device aborted per second.",
	},
	{
		.name = "Packets Outbound Heartbeat Errors/sec",
		.type = CT_RATE,
		.num = { { F_TX_HEARTBEAT_ERRORS, 1 } },
		.unit = "/s",
		.help = "Transmissions with a missing collision-detect heartbeat per second.",
	},
	{
		.name = "Packets Outbound Window Errors/sec",
		.type = CT_RATE,
		.num = { { F_TX_WINDOW_ERRORS, 1 } },
		.unit = "/s",
		.help = "Transmissions lost to late collisions per second.",
	},
	{
		.name = "Current Bandwidth",
		.type = CT_RAW,
		.num = { { F_SPEED, 1 } },
		.scale = 1e6,
		.unit = "bit/s",
		.help = "The link speed the driver reports, in bits per second (none when down or "
			"unknown).",
	},
	{
		.name = "Output Queue Length",
		.type = CT_RAW,
		.num = { { F_QLEN, 1 } },
		.unit = "",
		.help = "Packets waiting in the interface's root queueing discipline (all its "
			"queues for mq), 0 without one; read live only, through netlink.",
	},
	{
		.name = "Output Queue Bytes",
		.type = CT_RAW,
		.num = { { F_BQL_INFLIGHT, 1 } },
		.unit = "B",
		.help = "Bytes the driver took for transmission and has not yet completed, summed "
			"over its transmit queues by byte queue limits; 0 may also mean a driver "
			"that does not report to BQL.",
	},
	{
		.name = "% Utilization",
		.type = CT_UTILIZATION,
		.num = { { F_RX_BYTES, 1 } },
		.den = { { F_TX_BYTES, 1 } },
		.unit = "%",
		.help = "Bits moved per second as a share of the link speed: the larger of the "
			"received and sent bits on a full-duplex link, their sum otherwise (half "
			"or unknown duplex); none when the speed is unknown.",
	},
};

static const struct counter_set set = {
	.name = "Network Adapter",
	.alias = "Network Interface",
	.help = "Traffic and error counts of each network interface; _Total sums the "
		"interfaces backed by a device.",
	.multi_instance = 1,
	.has_total = 1,
	.fields = fields,
	.nfields = NIC_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
	.speed_field = FIELD_REF(F_SPEED),
	.duplex_field = FIELD_REF(F_DUPLEX),
	.prom_labels = "device",
};

#define BIT(f) ((uint64_t)1 << (f))
/* Fields that need speed and duplex: themselves, and the byte counts whose
 * wrap bound is the speed. */
#define LINK_MASK (BIT(F_SPEED) | BIT(F_DUPLEX) | BIT(F_RX_BYTES) | BIT(F_TX_BYTES))

/* One interface the provider has seen, kept from read to read. */
struct nic_if {
	char *name; /* owned */
	uint64_t seen;    /* number of the last read that listed it */
	uint64_t probed_id;
	uint64_t speed;
	/* BQL: queues/tx-N/byte_queue_limits/inflight, one file per queue */
	struct pfile **bql; /* owned array; the files are owned by procfs */
	int ifindex;      /* live */
	uint32_t carrier_changes;
	/* live: this read's instance in the raw_set, and its root qdisc */
	uint32_t slot;
	uint32_t qlen;
	uint32_t nbql;
	uint32_t name_len; /* strlen(name) */
	uint8_t probed;   /* `device` checked (files: for the ifindex probed_id) */
	uint8_t link_probed; /* live: speed and duplex read */
	uint8_t in_total;
	uint8_t has_speed, has_duplex;
	uint8_t duplex;   /* 1: full (nic_parse_duplex) */
	uint8_t has_qlen;
	uint8_t bql_probed;
};

/* 72 bytes: a record per interface, 2,000 at fixture L. */
_Static_assert(sizeof(struct nic_if) == 72, "an interface record is 72 bytes");

/* Files: the attribute files of an interface, in nic_state.files: its
 * ifindex, speed and duplex, then each needed statistic (stat_slot). */
enum { SLOT_IFINDEX, SLOT_SPEED, SLOT_DUPLEX, SLOT_STATS };

struct nic_state {
	const struct provider_ctx *ctx;
	struct procfs *fs;
	struct nic_netlink *nl; /* live; NULL reads files */
	uint8_t monitor;   /* live: RTNLGRP_LINK notifications arrive on nl */
	uint8_t use_stats; /* live: the kernel answers RTM_GETSTATS */
	uint8_t redump;    /* live: notifications were lost: dump the links */
	uint8_t unknown;   /* live: this stats dump named an unknown ifindex */
	size_t cursor;     /* live: where a dump's next ifindex should be */
	struct pfile *proc_net_dev;
	struct nic_if *ifs; /* live: by ifindex; files: by name (strverscmp) */
	size_t nifs, cap;
	/* files: nper attribute files per interface, row i for ifs[i] (moved
	 * with it), each opened when first read and kept open: its descriptor
	 * + 1, 0 when not open, FILE_ONCE when opened per read (no descriptor
	 * left in the budget). 4 bytes a file, no procfs record: 54,000 of
	 * them at 2,000 interfaces. Descriptors of root files_serial. */
	uint32_t *files;
	size_t nper;
	uint64_t files_serial;
	char text[64]; /* the last attribute read (if_read) */
	uint8_t stat_slot[NIC_NSTATS]; /* a needed statistic's slot in a row */
	uint64_t reads;
	struct raw_set *out; /* during a read; NULL for discovery */
	char path[512];
};

/* The statistics file name of field f. */
const char *
nic_stat_name(unsigned f)
{
	return f < NIC_NSTATS ? stat_names[f] : NULL;
}

/* One line of /proc/net/dev (see nic.h). */
int
nic_parse_proc_net_dev_line(const char **pp, const char *end, const char **name,
			    size_t *name_len, struct nic_stats *st)
{
	/* The columns after "name:", in the kernel's order. */
	static const uint8_t column_field[] = {
		F_RX_BYTES, F_RX_PACKETS, F_RX_ERRORS, F_RX_DROPPED, F_RX_FIFO_ERRORS,
		F_RX_FRAME_ERRORS, F_RX_COMPRESSED, F_MULTICAST, F_TX_BYTES, F_TX_PACKETS,
		F_TX_ERRORS, F_TX_DROPPED, F_TX_FIFO_ERRORS, F_COLLISIONS, F_TX_CARRIER_ERRORS,
		F_TX_COMPRESSED,
	};
	const char *p = *pp, *eol, *colon, *s, *e;

	if (p >= end)
		return -1;
	eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	*pp = eol < end ? eol + 1 : end;
	colon = memchr(p, ':', (size_t)(eol - p));
	if (!colon)
		return 0; /* the two header lines */
	for (s = p; s < colon && (*s == ' ' || *s == '\t'); s++)
		;
	for (e = colon; e > s && (e[-1] == ' ' || e[-1] == '\t'); e--)
		;
	if (e == s)
		return 0;
	*name = s;
	*name_len = (size_t)(e - s);
	memset(st, 0, sizeof(*st));
	p = colon + 1;
	for (size_t i = 0; i < ARRAY_SIZE(column_field); i++) {
		uint64_t v;
		p = skip_blanks(p);
		if (p >= eol || parse_u64(&p, &v) < 0)
			break;
		st->v[column_field[i]] = v;
		st->present |= BIT(column_field[i]);
	}
	return 1;
}

/* A sysfs speed text: Mbit/s, or -1 when unknown. */
int
nic_parse_speed(const char *text, uint64_t *mbit)
{
	const char *p = skip_blanks(text);
	uint64_t v;

	if (parse_u64(&p, &v) < 0 || v >= 0xFFFFFFFFu)
		return -1; /* "-1", "unknown", "" */
	*mbit = v;
	return 0;
}

/* A sysfs duplex text: 1 for full. */
uint64_t
nic_parse_duplex(const char *text)
{
	return strncmp(skip_blanks(text), "full", 4) == 0;
}

/* FNV-1a of an interface name: its identity where no ifindex is known. */
static uint64_t
name_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211u;
	return h;
}

/* A file of a row opened per read, not kept. */
#define FILE_ONCE UINT32_MAX

/* Files: interface i's row of attribute files (see nic_state.files). */
static uint32_t *
if_files(const struct nic_state *st, size_t i)
{
	return st->files + i * st->nper;
}

/* Insert a zeroed interface at position pos. */
static struct nic_if *
insert_if(struct nic_state *st, size_t pos, const char *name, size_t len)
{
	struct nic_if *ni;
	size_t cap = st->cap;

	xgrow((void **)&st->ifs, &st->cap, st->nifs + 1, sizeof(*st->ifs));
	memmove(&st->ifs[pos + 1], &st->ifs[pos], (st->nifs - pos) * sizeof(*st->ifs));
	if (st->nper) {
		if (st->cap != cap)
			st->files = xrealloc(st->files, st->cap * st->nper * sizeof(*st->files));
		memmove(if_files(st, pos + 1), if_files(st, pos),
			(st->nifs - pos) * st->nper * sizeof(*st->files));
		memset(if_files(st, pos), 0, st->nper * sizeof(*st->files));
	}
	st->nifs++;
	ni = &st->ifs[pos];
	memset(ni, 0, sizeof(*ni));
	ni->name = xstrndup(name, len);
	ni->name_len = (uint32_t)strlen(ni->name);
	return ni;
}

/* Files: close interface i's row of files. */
static void
close_row(struct nic_state *st, size_t i)
{
	uint32_t *row = if_files(st, i);

	for (size_t k = 0; k < st->nper; k++) {
		if (row[k] && row[k] != FILE_ONCE) {
			close((int)(row[k] - 1));
			procfs_fd_give(st->fs);
		}
		row[k] = 0;
	}
}

/* Free what an interface owns. */
static void
free_if(struct nic_if *ni)
{
	free(ni->name);
	free(ni->bql);
}

/* Forget the interfaces the last read did not list. */
static void
prune(struct nic_state *st)
{
	size_t j = 0;

	for (size_t i = 0; i < st->nifs; i++) {
		if (st->ifs[i].seen != st->reads) {
			if (st->nper)
				close_row(st, i);
			free_if(&st->ifs[i]);
			continue;
		}
		if (j != i) {
			st->ifs[j] = st->ifs[i];
			if (st->nper)
				memcpy(if_files(st, j), if_files(st, i),
				       st->nper * sizeof(*st->files));
		}
		j++;
	}
	st->nifs = j;
}

/* Read a small sysfs attribute of the live interface ni into buf. */
static long
read_live_attr(struct nic_state *st, const struct nic_if *ni, const char *attr, char *buf,
	       size_t n)
{
	snprintf(st->path, sizeof(st->path), "sys/class/net/%s/%s", ni->name, attr);
	return procfs_read_small(st->fs, st->path, buf, n);
}

/* Live: check the `device` link of a new interface, and read its speed and
 * duplex when some counter needs them. */
static void
probe_live(struct nic_state *st, struct nic_if *ni, int relink)
{
	char buf[64];

	if (!procfs_exists(st->fs, "sys/class/net"))
		return; /* no sysfs (yet): try again next read */
	if (!ni->probed) {
		snprintf(st->path, sizeof(st->path), "sys/class/net/%s/device", ni->name);
		ni->in_total = (uint8_t)procfs_exists(st->fs, st->path);
		ni->probed = 1;
	}
	if (!(st->ctx->needed & LINK_MASK) || (ni->link_probed && !relink))
		return;
	ni->link_probed = 1;
	ni->has_speed = read_live_attr(st, ni, "speed", buf, sizeof(buf)) >= 0 &&
			nic_parse_speed(buf, &ni->speed) == 0;
	ni->has_duplex = read_live_attr(st, ni, "duplex", buf, sizeof(buf)) >= 0;
	ni->duplex = ni->has_duplex ? (uint8_t)nic_parse_duplex(buf) : 0;
}

/* Put the needed statistics fields of s into ri (all of them at once when
 * every field s has is wanted: the usual netlink case). */
static void
put_stats(struct raw_set *rs, struct raw_instance *ri, const struct nic_stats *s,
	  uint64_t needed)
{
	uint64_t want = s->present & needed & NIC_STATS_MASK;

	if (!want)
		return;
	raw_put_all(rs, ri, s->v, want);
}

/* Put speed (when known) and duplex (when readable) into ri. */
static void
put_link(struct raw_set *rs, struct raw_instance *ri, const struct nic_if *ni, uint64_t needed)
{
	if (!(needed & LINK_MASK))
		return;
	if (ni->has_speed)
		raw_put(rs, ri, F_SPEED, ni->speed);
	if (ni->has_duplex)
		raw_put(rs, ri, F_DUPLEX, ni->duplex);
}

/* probe_bql's listing of one interface's queues. */
struct bql_scan {
	struct nic_state *st;
	struct nic_if *ni;
	size_t cap;
};

/* One entry of queues/: a tx-N queue with byte_queue_limits is kept. */
static int
bql_entry(const char *name, unsigned char type, void *arg)
{
	struct bql_scan *b = arg;
	char path[sizeof(b->st->path)];

	(void)type;
	if (strncmp(name, "tx-", 3) != 0)
		return 0;
	snprintf(path, sizeof(path), "sys/class/net/%s/queues/%s/byte_queue_limits/inflight",
		 b->ni->name, name);
	if (!procfs_exists(b->st->fs, path))
		return 0; /* no BQL on this queue (or this kernel) */
	xgrow((void **)&b->ni->bql, &b->cap, b->ni->nbql + 1, sizeof(*b->ni->bql));
	b->ni->bql[b->ni->nbql++] = procfs_attr(b->st->fs, path);
	return 0;
}

/* Find the queues of ni that have byte queue limits (none: UNSUPPORTED). */
static void
probe_bql(struct nic_state *st, struct nic_if *ni)
{
	struct bql_scan b = { st, ni, 0 };

	free(ni->bql);
	ni->bql = NULL;
	ni->nbql = 0;
	ni->bql_probed = 1;
	snprintf(st->path, sizeof(st->path), "sys/class/net/%s/queues", ni->name);
	procfs_list(st->fs, st->path, bql_entry, &b);
}

/* Put the sum of ni's BQL inflight bytes into ri, when needed and every
 * queue's file could be read; a failed read finds the queues again next
 * time (a queue removed by a channel change). */
static void
put_bql(struct nic_state *st, struct nic_if *ni, struct raw_set *rs, struct raw_instance *ri)
{
	uint64_t sum = 0, v;
	size_t len;

	if (!(st->ctx->needed & BIT(F_BQL_INFLIGHT)))
		return;
	if (!ni->bql_probed)
		probe_bql(st, ni);
	if (ni->nbql == 0)
		return;
	for (size_t i = 0; i < ni->nbql; i++) {
		const char *text = pfile_read(ni->bql[i], &len, NULL);
		const char *p = text ? skip_blanks(text) : NULL;
		if (!p || parse_u64(&p, &v) < 0) {
			ni->bql_probed = 0;
			return;
		}
		sum += v;
	}
	raw_put(rs, ri, F_BQL_INFLIGHT, sum);
}

/* Live: the position of ifindex in the list, or where it would go. */
static size_t
find_live(const struct nic_state *st, int ifindex)
{
	size_t lo = 0, hi = st->nifs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (st->ifs[mid].ifindex < ifindex)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Live: forget the interface at position pos. */
static void
remove_if(struct nic_state *st, size_t pos)
{
	if (st->nper)
		close_row(st, pos);
	free_if(&st->ifs[pos]);
	memmove(&st->ifs[pos], &st->ifs[pos + 1], (st->nifs - pos - 1) * sizeof(*st->ifs));
	if (st->nper)
		memmove(if_files(st, pos), if_files(st, pos + 1),
			(st->nifs - pos - 1) * st->nper * sizeof(*st->files));
	st->nifs--;
}

/* Live: what a link dump reply or notification says about an interface:
 * a new one is inserted; a new name (a rename: same identity, new sysfs
 * path) or a carrier change (the speed may differ) makes its sysfs
 * attributes and BQL queues be found again. The interface, or NULL for a
 * reply without a name. */
static struct nic_if *
track_link(struct nic_state *st, const struct nic_link *link)
{
	size_t lo;
	struct nic_if *ni;
	int relink = 0;

	if (!link->name || link->name_len == 0)
		return NULL;
	lo = find_live(st, link->ifindex);
	if (lo < st->nifs && st->ifs[lo].ifindex == link->ifindex) {
		ni = &st->ifs[lo];
		if (strncmp(ni->name, link->name, link->name_len) != 0 ||
		    ni->name[link->name_len] != '\0') {
			free(ni->name);
			ni->name = xstrndup(link->name, link->name_len);
			ni->name_len = (uint32_t)strlen(ni->name);
			relink = 1;
		}
		if (ni->carrier_changes != link->carrier_changes)
			relink = 1;
	} else {
		ni = insert_if(st, lo, link->name, link->name_len);
		ni->ifindex = link->ifindex;
	}
	ni->carrier_changes = link->carrier_changes;
	if (relink)
		ni->bql_probed = 0; /* a new sysfs path, or maybe new queues */
	if (relink || !ni->probed || ((st->ctx->needed & LINK_MASK) && !ni->link_probed))
		probe_live(st, ni, relink);
	return ni;
}

/* Live: put interface ni with statistics s into this read's raw set. */
static void
emit_live(struct nic_state *st, struct nic_if *ni, const struct nic_stats *s)
{
	struct raw_instance *ri =
		raw_set_add(st->out, ni->name, ni->name_len, (uint64_t)ni->ifindex);

	ni->slot = (uint32_t)(st->out->ninstances - 1);
	raw_set_in_total(st->out, ri, ni->in_total);
	/* the dump carries every statistic: record them all, so a reset in
	 * any field resets the instance whatever was asked; with the speed
	 * and duplex after them (put_link's), all put at once */
	uint64_t mask = s->present & NIC_STATS_MASK;
	if (st->ctx->needed & LINK_MASK) {
		uint64_t v[F_DUPLEX + 1];
		memcpy(v, s->v, sizeof(s->v));
		v[F_SPEED] = ni->speed;
		v[F_DUPLEX] = ni->duplex;
		mask |= (ni->has_speed ? BIT(F_SPEED) : 0) | (ni->has_duplex ? BIT(F_DUPLEX) : 0);
		raw_put_all(st->out, ri, v, mask);
	} else {
		raw_put_all(st->out, ri, s->v, mask);
	}
	if (st->ctx->needed & BIT(F_BQL_INFLIGHT))
		put_bql(st, ni, st->out, ri);
}

/* Live: one interface of an RTM_GETLINK dump. */
static int
live_link(const struct nic_link *link, void *arg, struct err *err)
{
	struct nic_state *st = arg;
	struct nic_if *ni = track_link(st, link);

	(void)err;
	if (!ni)
		return 0;
	ni->seen = st->reads;
	if (st->out)
		emit_live(st, ni, &link->stats);
	return 0;
}

/* Live: one interface of an RTM_GETSTATS dump. An ifindex the list does
 * not know is a link that came after the notifications were drained: the
 * read then falls back to an RTM_GETLINK dump. */
static int
live_stats(const struct nic_link *link, void *arg, struct err *err)
{
	struct nic_state *st = arg;
	size_t pos = st->cursor; /* the dump goes in ifindex order, as the list */

	(void)err;
	if (pos >= st->nifs || st->ifs[pos].ifindex != link->ifindex)
		pos = find_live(st, link->ifindex);
	if (pos >= st->nifs || st->ifs[pos].ifindex != link->ifindex) {
		st->unknown = 1;
		return 0;
	}
	st->cursor = pos + 1;
	st->ifs[pos].seen = st->reads;
	if (!st->unknown)
		emit_live(st, &st->ifs[pos], &link->stats);
	return 0;
}

/* Live: one link notification: a link that came or changed is tracked
 * (named, probed) now; one that went is forgotten. */
static void
live_event(int type, const struct nic_link *link, void *arg)
{
	struct nic_state *st = arg;
	size_t pos;

	if (type == RTM_NEWLINK) {
		track_link(st, link);
		return;
	}
	pos = find_live(st, link->ifindex);
	if (pos < st->nifs && st->ifs[pos].ifindex == link->ifindex)
		remove_if(st, pos);
}

/* Live: one qdisc of the dump; a root qdisc's qlen is its interface's
 * Output Queue Length (an mq root's already holds its children's). */
static int
live_qdisc(const struct nic_qdisc *q, void *arg, struct err *err)
{
	struct nic_state *st = arg;
	size_t pos;
	struct nic_if *ni;

	(void)err;
	if (q->parent != TC_H_ROOT)
		return 0; /* a child of a class, ingress, clsact */
	pos = st->cursor; /* the dump goes in the list's order, as a rule */
	if (pos >= st->nifs || st->ifs[pos].ifindex != q->ifindex)
		pos = find_live(st, q->ifindex);
	if (pos >= st->nifs || st->ifs[pos].ifindex != q->ifindex)
		return 0; /* an interface newer than the link dump: next read */
	st->cursor = pos + 1;
	ni = &st->ifs[pos];
	ni->qlen = q->qlen; /* a noqueue root's is 0 (the parser says so) */
	ni->has_qlen = (uint8_t)q->has_qlen;
	return 0;
}

/* Live: Output Queue Length of every interface of this read, from one
 * RTM_GETQDISC dump. An interface without a root qdisc in the dump has
 * none (noqueue): 0. A failed dump leaves the field missing (UNSUPPORTED)
 * rather than failing the other counters. */
static void
read_qlen(struct nic_state *st, struct raw_set *out)
{
	for (size_t i = 0; i < st->nifs; i++) {
		st->ifs[i].qlen = 0;
		st->ifs[i].has_qlen = 1;
	}
	st->cursor = 0;
	if (nic_netlink_qdisc_dump(st->nl, live_qdisc, st, NULL) < 0)
		return;
	for (size_t i = 0; i < st->nifs; i++)
		if (st->ifs[i].has_qlen)
			raw_put(out, &out->inst[st->ifs[i].slot], F_QLEN, st->ifs[i].qlen);
}

/* Live: one RTM_GETLINK dump (names, carrier changes and statistics of
 * every interface); out NULL only discovers. */
static int
read_links(struct nic_state *st, struct raw_set *out, struct err *err)
{
	st->reads++;
	st->out = out;
	if (nic_netlink_dump(st->nl, live_link, st, err) < 0) {
		st->out = NULL;
		return -1;
	}
	st->out = NULL;
	prune(st);
	return 0;
}

/* Live: the statistics of every interface from one RTM_GETSTATS dump,
 * named from the list. 0; 1 when the dump named an ifindex the list does
 * not know (out is then to be read again); -2 when the kernel has no
 * RTM_GETSTATS; -1 (err) when the dump failed. */
static int
read_stats(struct nic_state *st, struct raw_set *out, struct err *err)
{
	int r;

	st->reads++;
	st->out = out;
	st->unknown = 0;
	st->cursor = 0;
	r = nic_netlink_stats_dump(st->nl, live_stats, st, err);
	st->out = NULL;
	if (r < 0)
		return r;
	if (st->unknown)
		return 1;
	prune(st); /* listed before, not in the dump: gone since */
	return 0;
}

/* Live: one read. The link notifications since the last read update the
 * interface list (new, renamed, changed, gone), then one RTM_GETSTATS dump
 * gives every interface's statistics: the list is exactly the dump's
 * interfaces, so a link that comes or goes shows in the read it changed
 * in. An RTM_GETLINK dump is the read instead when notifications were lost,
 * when the stats dump names an unknown link (it came after the drain), and
 * without RTNLGRP_LINK or RTM_GETSTATS. */
static int
read_netlink(struct nic_state *st, struct raw_set *out, struct err *err)
{
	int r = -2;

	if (st->monitor && nic_netlink_events(st->nl, live_event, st) != 0)
		st->redump = 1;
	if (st->use_stats && st->monitor && !st->redump) {
		r = read_stats(st, out, err);
		if (r == -1)
			return -1;
		if (r == -2)
			st->use_stats = 0; /* before Linux 4.7 */
		if (r != 0)
			raw_set_begin(out); /* read again below */
	}
	if (r != 0) {
		if (read_links(st, out, err) < 0)
			return -1;
		st->redump = 0;
	}
	if (st->ctx->needed & BIT(F_QLEN))
		read_qlen(st, out);
	return 0;
}

/* Files: the interface named name, found or inserted in name order. */
static struct nic_if *
lookup_name(struct nic_state *st, const char *name)
{
	size_t lo = 0, hi = st->nifs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strverscmp(st->ifs[mid].name, name);
		if (c == 0)
			return &st->ifs[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return insert_if(st, lo, name, strlen(name));
}

/* The text of interface i's attribute dir/name (dir "" or "statistics/";
 * its file in row slot k, opened when first needed and kept open while the
 * budget allows), or NULL when it cannot be read. The text is valid until
 * the next if_read. */
static const char *
if_read(struct nic_state *st, size_t i, unsigned k, const char *dir, const char *name)
{
	uint32_t *slot = &if_files(st, i)[k];
	int fd;

	if (*slot == 0 || *slot == FILE_ONCE) {
		snprintf(st->path, sizeof(st->path), "sys/class/net/%s/%s%s", st->ifs[i].name, dir,
			 name);
		fd = procfs_open_file(st->fs, st->path);
		if (fd < 0)
			return NULL; /* not there (tried again next read) */
		if (*slot == 0)
			*slot = procfs_fd_take(st->fs) == 0 ? (uint32_t)fd + 1u : FILE_ONCE;
	} else {
		fd = (int)(*slot - 1);
	}
	ssize_t n = pread(fd, st->text, sizeof(st->text) - 1, 0);
	if (*slot == FILE_ONCE) {
		close(fd);
	} else if (n < 0) { /* a vanished file: opened again next time */
		close(fd);
		procfs_fd_give(st->fs);
		*slot = 0;
	}
	if (n < 0)
		return NULL;
	st->text[n] = '\0';
	return st->text;
}

/* Parse the decimal at the start of text (after blanks); 0 or -1. */
static int
parse_attr_u64(const char *text, uint64_t *v)
{
	const char *p;

	if (!text)
		return -1;
	p = skip_blanks(text);
	return parse_u64(&p, v);
}

/* Files: interface i's sysfs directory. */
static void
read_sysfs_if(struct nic_state *st, size_t i, struct raw_set *out)
{
	struct nic_if *ni = &st->ifs[i];
	uint64_t needed = st->ctx->needed;
	uint64_t identity, v;
	struct raw_instance *ri;
	const char *text;

	if (parse_attr_u64(if_read(st, i, SLOT_IFINDEX, "", "ifindex"), &identity) < 0)
		identity = name_hash(ni->name, ni->name_len);
	/* the `device` link (a physical NIC: in _Total) is the interface's
	 * for as long as its ifindex: looked at once, not every read */
	if (!ni->probed || ni->probed_id != identity) {
		snprintf(st->path, sizeof(st->path), "sys/class/net/%s/device", ni->name);
		ni->in_total = (uint8_t)procfs_exists(st->fs, st->path);
		ni->probed_id = identity;
		ni->probed = 1;
	}
	ri = raw_set_add(out, ni->name, ni->name_len, identity);
	raw_set_in_total(out, ri, ni->in_total);
	for (unsigned f = 0; f < NIC_NSTATS; f++) {
		if (!(needed & BIT(f)))
			continue;
		if (parse_attr_u64(if_read(st, i, st->stat_slot[f], "statistics/", stat_names[f]),
				   &v) == 0)
			raw_put(out, ri, f, v);
	}
	put_bql(st, ni, out, ri);
	if (!(needed & LINK_MASK))
		return;
	/* each file only when a counter needs it: the duplex only for
	 * % Utilization, not for the wrap bound of the byte counters */
	if (needed & BIT(F_SPEED)) {
		text = if_read(st, i, SLOT_SPEED, "", "speed");
		ni->has_speed = text && nic_parse_speed(text, &ni->speed) == 0;
	}
	if (needed & BIT(F_DUPLEX)) {
		text = if_read(st, i, SLOT_DUPLEX, "", "duplex");
		ni->has_duplex = text != NULL;
		ni->duplex = text ? (uint8_t)nic_parse_duplex(text) : 0;
	}
	put_link(out, ri, ni, needed);
}

/* Files: one entry of sys/class/net. */
static int
sysfs_entry(const char *name, unsigned char type, void *arg)
{
	struct nic_state *st = arg;

	if (name[0] == '.' || type == DT_REG)
		return 0; /* bonding_masters */
	lookup_name(st, name)->seen = st->reads;
	return 0;
}

/* Files: re-list sys/class/net and read every interface in name order. */
static int
read_sysfs(struct nic_state *st, struct raw_set *out, struct err *err)
{
	st->reads++;
	if (st->files_serial != procfs_root_serial(st->fs)) {
		/* another root: the files kept open are the old one's */
		for (size_t i = 0; i < st->nifs; i++)
			close_row(st, i);
		st->files_serial = procfs_root_serial(st->fs);
	}
	if (procfs_list(st->fs, "sys/class/net", sysfs_entry, st) < 0)
		return err_set(err, "cannot list %s/sys/class/net", procfs_root(st->fs));
	prune(st);
	for (size_t i = 0; i < st->nifs; i++)
		read_sysfs_if(st, i, out);
	return 0;
}

/* Files without sys/class/net: proc/net/dev, every interface but lo in
 * _Total, no speed. */
static int
read_proc_net_dev(struct nic_state *st, struct raw_set *out, struct err *err)
{
	size_t len;
	const char *buf = pfile_read(st->proc_net_dev, &len, err);
	const char *p = buf, *name;
	size_t name_len;
	struct nic_stats s;
	int r;

	if (!buf)
		return -1;
	while ((r = nic_parse_proc_net_dev_line(&p, buf + len, &name, &name_len, &s)) >= 0) {
		struct raw_instance *ri;
		if (r == 0)
			continue;
		ri = raw_set_add(out, name, name_len, name_hash(name, name_len));
		raw_set_in_total(out, ri, !(name_len == 2 && memcmp(name, "lo", 2) == 0));
		put_stats(out, ri, &s, NIC_STATS_MASK); /* the whole line is parsed anyway */
	}
	return 0;
}

/* Prepare: live, open the netlink socket and discover the interfaces. */
static void *
nic_open(const struct provider_ctx *ctx, struct err *err)
{
	struct nic_state *st = xcalloc(1, sizeof(*st));

	st->ctx = ctx;
	st->fs = ctx->fs;
	st->proc_net_dev = procfs_file(st->fs, "proc/net/dev");
	if (procfs_is_live(st->fs)) {
		/* Without netlink (a sandbox forbidding it), read the files.
		 * Subscribe to link notifications before the first dump, so
		 * no change falls between the two. */
		st->nl = nic_netlink_open(NULL);
		if (st->nl) {
			st->monitor = nic_netlink_monitor(st->nl, NULL) == 0;
			st->use_stats = 1;
		}
		if (st->nl && read_links(st, NULL, err) < 0) {
			nic_netlink_close(st->nl);
			st->nl = NULL;
			for (size_t i = 0; i < st->nifs; i++)
				free_if(&st->ifs[i]);
			st->nifs = 0; /* the files list them again */
		}
	}
	if (!st->nl) { /* files: a row of attribute files per interface */
		st->nper = SLOT_STATS;
		for (unsigned f = 0; f < NIC_NSTATS; f++)
			if (ctx->needed & BIT(f))
				st->stat_slot[f] = (uint8_t)st->nper++;
	}
	return st;
}

/* One read: netlink live, else sysfs, else /proc/net/dev. */
static int
nic_read(void *state, struct raw_set *out, struct err *err)
{
	struct nic_state *st = state;

	if (st->nl)
		return read_netlink(st, out, err);
	if (procfs_exists(st->fs, "sys/class/net"))
		return read_sysfs(st, out, err);
	return read_proc_net_dev(st, out, err);
}

/* Free the state, the socket and the interface list. */
static void
nic_close(void *state)
{
	struct nic_state *st = state;

	if (!st)
		return;
	nic_netlink_close(st->nl);
	for (size_t i = 0; i < st->nifs; i++) {
		if (st->nper)
			close_row(st, i);
		free_if(&st->ifs[i]);
	}
	free(st->ifs);
	free(st->files);
	free(st);
}

const struct provider provider_network_adapter = {
	.set = &set,
	.open = nic_open,
	.read = nic_read,
	.close = nic_close,
};
