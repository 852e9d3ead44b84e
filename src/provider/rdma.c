/*
 * rdma.c - the RDMA Activity set (COUNTERS.md section 7): one instance per
 * port of each RDMA device, "DEVICE/PORT", from sysfs:
 *   sys/class/infiniband/DEV/ports/P/counters/      standard port counters
 *   sys/class/infiniband/DEV/ports/P/hw_counters/   driver counters, else
 *   sys/class/infiniband/DEV/hw_counters/           on a one-port device
 *   sys/class/infiniband/DEV/ports/P/cm_{tx,rx}_msgs/TYPE   CM counters, else
 *   sys/class/infiniband_cm/DEV/P/cm_{tx,rx}_msgs/TYPE      (kernels to 5.9)
 * Each counter file is looked for in that order (the first that exists);
 * only named counters are opened, so hw_counters/lifespan (a setting) never
 * is. A counter with no file is UNSUPPORTED and its bit is set in the port's
 * Missing Counter Mask, computed at discovery.
 *
 * RDMA Active Connections is live only: the rdma netlink socket opened at
 * open (where ib_core offers none, the counter stays UNSUPPORTED), and at
 * each read that wants it an RDMA_NLDEV_CMD_RES_GET dump, whose per-device
 * resource summary has a "cm_id" entry: the device's RDMA CM IDs. A
 * one-port device's port gets that count; a device with more ports gets,
 * per port, the entries of an RDMA_NLDEV_CMD_RES_CM_ID_GET dump of the
 * device bound to that port (an ID listening on every port counts in the
 * summary but on no port). Its mask bit is clear while it has a value. The
 * kernel shows the IDs of getcounter's PID namespace (all in the initial
 * one).
 *
 * port_rcv_data and port_xmit_data count units of 4 octets (the counters'
 * scale). Where the port has the extended (IETF) counters, shown by
 * counters/unicast_rcv_packets, the data and packet counters are 64-bit;
 * otherwise they may be the legacy 32-bit ones, which stop at 0xFFFFFFFF
 * rather than wrap: a value there is left out (UNSUPPORTED, no rate). A
 * device with 64-bit but no IETF counters looks legacy; it loses a sample
 * only if a counter sits at exactly 0xFFFFFFFF.
 *
 * The describe hook (-l -v, -q -x -v) tells, after a read, which counters
 * of a port sit saturated and which have no source (the files it lacks);
 * without an instance, the ports where each is so.
 *
 * Discovery runs every read under --root, live at most once a second and at
 * the next read after a file that was there fails. Live, the directory
 * stream of sys/class/infiniband stays open and a device's ports are listed
 * when it first appears, so a discovery allocates nothing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "provider.h"
#include "rdma.h"

#define BIT(f) ((uint64_t)1 << (f))
#define SOURCES_MASK (BIT(RD_MISSING_MASK) - 1)
#define RESCAN_NS 1000000000ull
#define IB_CLASS "sys/class/infiniband"
#define IB_CM_CLASS "sys/class/infiniband_cm"
#define NL_BUF_SIZE 65536 /* a dump message is at most 32 KiB */
#define NL_TIMEOUT_US 500000
#define NL_MAX_PORTS 256  /* per-port counts kept for ports below this */

static const struct field_desc fields[RD_NFIELDS] = {
	[RD_CM_TX_REQ] = { "cm_tx_msgs/req", FW_ULONG, FK_COUNTER, FB_NONE,
			   PROM("cm_sent_requests", "", 0) },
	[RD_CM_TX_REP] = { "cm_tx_msgs/rep", FW_ULONG, FK_COUNTER, FB_NONE,
			   PROM("cm_sent_replies", "", 0) },
	[RD_CM_TX_REJ] = { "cm_tx_msgs/rej", FW_ULONG, FK_COUNTER, FB_NONE,
			   PROM("cm_sent_rejects", "", 0) },
	[RD_CM_RX_REJ] = { "cm_rx_msgs/rej", FW_ULONG, FK_COUNTER, FB_NONE,
			   PROM("cm_received_rejects", "", 0) },
	[RD_LOCAL_ACK_TIMEOUT_ERR] = { "local_ack_timeout_err", FW_64, FK_COUNTER, FB_NONE,
				       PROM("local_ack_timeout_errors", "", 0) },
	[RD_RNR_NAK_RETRY_ERR] = { "rnr_nak_retry_err", FW_64, FK_COUNTER, FB_NONE,
				   PROM("rnr_nak_retry_errors", "", 0) },
	[RD_ACTIVE_CONNECTIONS] = { "active_connections", FW_64, FK_GAUGE, FB_NONE,
				    PROM("active_connections", "", 0) },
	[RD_REQ_CQE_ERROR] = { "req_cqe_error", FW_64, FK_COUNTER, FB_NONE,
			       PROM("requester_cqe_errors", "", 0) },
	[RD_RESP_CQE_ERROR] = { "resp_cqe_error", FW_64, FK_COUNTER, FB_NONE,
				PROM("responder_cqe_errors", "", 0) },
	/* 64-bit, or legacy 32-bit counters that saturate (never wrap): a
	 * decrease is a reset either way. */
	[RD_PORT_RCV_DATA] = { "port_rcv_data", FW_64, FK_COUNTER, FB_NONE,
			       PROM("received", "bytes", 4) },
	[RD_PORT_XMIT_DATA] = { "port_xmit_data", FW_64, FK_COUNTER, FB_NONE,
				PROM("sent", "bytes", 4) },
	[RD_PORT_RCV_PACKETS] = { "port_rcv_packets", FW_64, FK_COUNTER, FB_NONE,
				  PROM("received_frames", "", 0) },
	[RD_PORT_XMIT_PACKETS] = { "port_xmit_packets", FW_64, FK_COUNTER, FB_NONE,
				   PROM("sent_frames", "", 0) },
	[RD_MISSING_MASK] = { "missing_counter_mask", FW_64, FK_GAUGE, FB_NONE,
			      PROM("missing_source_mask", "", 0) },
};

enum source_kind { SRC_NONE, SRC_PORT, SRC_HW, SRC_CM };

/* Where each field's file is: its kind, directory (CM) and name. */
static const struct {
	uint8_t kind;
	const char *group;
	const char *name;
} sources[RD_MISSING_MASK] = {
	[RD_CM_TX_REQ] = { SRC_CM, "cm_tx_msgs", "req" },
	[RD_CM_TX_REP] = { SRC_CM, "cm_tx_msgs", "rep" },
	[RD_CM_TX_REJ] = { SRC_CM, "cm_tx_msgs", "rej" },
	[RD_CM_RX_REJ] = { SRC_CM, "cm_rx_msgs", "rej" },
	[RD_LOCAL_ACK_TIMEOUT_ERR] = { SRC_HW, NULL, "local_ack_timeout_err" },
	[RD_RNR_NAK_RETRY_ERR] = { SRC_HW, NULL, "rnr_nak_retry_err" },
	[RD_ACTIVE_CONNECTIONS] = { SRC_NONE, NULL, NULL },
	[RD_REQ_CQE_ERROR] = { SRC_HW, NULL, "req_cqe_error" },
	[RD_RESP_CQE_ERROR] = { SRC_HW, NULL, "resp_cqe_error" },
	[RD_PORT_RCV_DATA] = { SRC_PORT, NULL, "port_rcv_data" },
	[RD_PORT_XMIT_DATA] = { SRC_PORT, NULL, "port_xmit_data" },
	[RD_PORT_RCV_PACKETS] = { SRC_PORT, NULL, "port_rcv_packets" },
	[RD_PORT_XMIT_PACKETS] = { SRC_PORT, NULL, "port_xmit_packets" },
};

/* Each counter's bit in the Missing Counter Mask and the fields behind it. */
static const struct {
	uint8_t bit;
	uint64_t fields;
} mask_bits[] = {
	{ 0, BIT(RD_CM_TX_REQ) },
	{ 1, BIT(RD_CM_TX_REP) },
	{ 2, BIT(RD_CM_TX_REJ) | BIT(RD_CM_RX_REJ) },
	{ 3, BIT(RD_LOCAL_ACK_TIMEOUT_ERR) | BIT(RD_RNR_NAK_RETRY_ERR) },
	{ 4, BIT(RD_ACTIVE_CONNECTIONS) },
	{ 25, BIT(RD_REQ_CQE_ERROR) | BIT(RD_RESP_CQE_ERROR) },
	{ 26, BIT(RD_PORT_RCV_DATA) },
	{ 27, BIT(RD_PORT_XMIT_DATA) },
	{ 28, BIT(RD_PORT_RCV_PACKETS) },
	{ 29, BIT(RD_PORT_XMIT_PACKETS) },
};

static const struct counter_desc counters[] = {
	{
		.name = "RDMA Initiated Connections",
		.type = CT_RAW,
		.num = { { RD_CM_TX_REQ, 1 } },
		.unit = "",
		.help = "Connection requests the port's connection manager has sent.",
	},
	{
		.name = "RDMA Accepted Connections",
		.type = CT_RAW,
		.num = { { RD_CM_TX_REP, 1 } },
		.unit = "",
		.help = "Connection requests the port's connection manager has accepted with a "
			"reply.",
	},
	{
		.name = "RDMA Failed Connection Attempts",
		.type = CT_RAW,
		.num = { { RD_CM_TX_REJ, 1 }, { RD_CM_RX_REJ, 1 } },
		.unit = "",
		.help = "Connection rejections the port's connection manager has sent plus those "
			"it has received.",
	},
	{
		.name = "RDMA Connection Errors",
		.type = CT_RAW,
		.num = { { RD_LOCAL_ACK_TIMEOUT_ERR, 1 }, { RD_RNR_NAK_RETRY_ERR, 1 } },
		.unit = "",
		.help = "Connections broken by an acknowledgement timeout or by exhausted "
			"receiver-not-ready retries, from the driver's hardware counters.",
	},
	{
		.name = "RDMA Active Connections",
		.type = CT_RAW,
		.num = { { RD_ACTIVE_CONNECTIONS, 1 } },
		.unit = "",
		.help = "RDMA CM IDs open now, from the rdma netlink resource count: the "
			"device's on a one-port device, else those bound to this port (a "
			"listener on every port counts on none); live only.",
	},
	{
		.name = "RDMA Completion Queue Errors",
		.type = CT_RAW,
		.num = { { RD_REQ_CQE_ERROR, 1 }, { RD_RESP_CQE_ERROR, 1 } },
		.unit = "",
		.help = "Work completions with an error status, as requester plus as responder, "
			"from the driver's hardware counters.",
	},
	{
		.name = "RDMA Inbound Bytes/sec",
		.type = CT_RATE,
		.num = { { RD_PORT_RCV_DATA, 1 } },
		.scale = 4,
		.unit = "B/s",
		.help = "Data bytes the port received per second (the counter counts 4-byte "
			"words); none while a legacy 32-bit counter sits saturated.",
	},
	{
		.name = "RDMA Outbound Bytes/sec",
		.type = CT_RATE,
		.num = { { RD_PORT_XMIT_DATA, 1 } },
		.scale = 4,
		.unit = "B/s",
		.help = "Data bytes the port sent per second (the counter counts 4-byte words); "
			"none while a legacy 32-bit counter sits saturated.",
	},
	{
		.name = "RDMA Inbound Frames/sec",
		.type = CT_RATE,
		.num = { { RD_PORT_RCV_PACKETS, 1 } },
		.unit = "/s",
		.help = "Packets the port received per second, errored ones included; none while "
			"a legacy 32-bit counter sits saturated.",
	},
	{
		.name = "RDMA Outbound Frames/sec",
		.type = CT_RATE,
		.num = { { RD_PORT_XMIT_PACKETS, 1 } },
		.unit = "/s",
		.help = "Packets the port sent per second; none while a legacy 32-bit counter "
			"sits saturated.",
	},
	{
		.name = "Missing Counter Mask",
		.type = CT_RAW,
		.num = { { RD_MISSING_MASK, 1 } },
		.unit = "",
		.help = "One bit per counter of this set the port has no source for (bits 0-4 "
			"and 25-29, in the set's order), as an NDK provider declares them.",
	},
};

static const struct counter_set set = {
	.name = "RDMA Activity",
	.help = "Connection, error and traffic counts of each RDMA device port, from the "
		"InfiniBand sysfs class.",
	.multi_instance = 1,
	.fields = fields,
	.nfields = RD_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
	.prom_labels = "device/port",
};

/* One port as the last discovery found it. */
struct rd_port {
	unsigned num;         /* the port number */
	char name[80];        /* "DEV/P" */
	uint64_t identity;    /* the device's node GUID and the port number */
	uint64_t missing;     /* the Missing Counter Mask */
	uint64_t looked;      /* fields whose files discovery looked for */
	uint64_t have;        /* of those, the fields with a file */
	uint64_t saturated;   /* fields the last read found saturated */
	uint8_t saturating;   /* legacy 32-bit port counters */
	uint8_t cm_have;      /* cm_ids holds this read's count */
	uint64_t cm_ids;      /* RDMA Active Connections */
	struct pfile *pf[RD_MISSING_MASK]; /* NULL: not needed, or no file */
};

/* One RDMA device and its ports, kept from discovery to discovery. */
struct rd_dev {
	char name[64];
	uint64_t seen;        /* the discovery that last listed it */
	uint64_t guid_hash;   /* FNV-1a of node_guid (else of the name) */
	struct rd_port *ports; /* in port order; owned */
	size_t nports, cap;
};

struct rd_state {
	const struct provider_ctx *ctx;
	struct procfs *fs;
	struct rd_dev *devs;  /* in name order (strverscmp) */
	size_t ndevs, cap;
	uint64_t scans;       /* discoveries run */
	uint64_t scanned_ns;  /* live: when discovery last ran; 0 never */
	int rescan;           /* a file failed: discover again */
	char path[256];
	/* RDMA Active Connections (live): the rdma netlink socket, -1 when
	 * none; one receive buffer and the dump's devices, kept. */
	int nl_fd;
	uint32_t nl_seq;
	unsigned char *nl_buf;
	struct rdma_nl_dev *nl_devs;
	size_t nl_cap;
	uint64_t nl_ports[NL_MAX_PORTS];
};

/* The Missing Counter Mask of a port (see rdma.h). */
uint64_t
rdma_missing_mask(uint64_t have)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < ARRAY_SIZE(mask_bits); i++)
		if (!(have & mask_bits[i].fields))
			mask |= BIT(mask_bits[i].bit);
	return mask;
}

/* One counter file's text (see rdma.h). */
int
rdma_parse_counter(const char *text, int saturating, uint64_t *v)
{
	const char *p = skip_blanks(text);

	if (parse_u64(&p, v) < 0)
		return -1;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p)
		return -1;
	if (saturating && *v == 0xFFFFFFFFu)
		return -1;
	return 0;
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t
fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211u;
	return h;
}

/* Point st->path at the first file that exists for field f of port port of
 * device dev (nports ports). Returns 1, or 0 when there is none. */
static int
source_path(struct rd_state *st, const char *dev, unsigned port, size_t nports, unsigned f)
{
	const char *name = sources[f].name, *group = sources[f].group;

	switch (sources[f].kind) {
	case SRC_PORT:
		snprintf(st->path, sizeof(st->path), IB_CLASS "/%s/ports/%u/counters/%s", dev,
			 port, name);
		return procfs_exists(st->fs, st->path);
	case SRC_HW:
		snprintf(st->path, sizeof(st->path), IB_CLASS "/%s/ports/%u/hw_counters/%s", dev,
			 port, name);
		if (procfs_exists(st->fs, st->path))
			return 1;
		if (nports != 1)
			return 0;
		snprintf(st->path, sizeof(st->path), IB_CLASS "/%s/hw_counters/%s", dev, name);
		return procfs_exists(st->fs, st->path);
	case SRC_CM:
		snprintf(st->path, sizeof(st->path), IB_CLASS "/%s/ports/%u/%s/%s", dev, port,
			 group, name);
		if (procfs_exists(st->fs, st->path))
			return 1;
		snprintf(st->path, sizeof(st->path), IB_CM_CLASS "/%s/%u/%s/%s", dev, port, group,
			 name);
		return procfs_exists(st->fs, st->path);
	default:
		return 0;
	}
}

/* Fill port p of device dev: its files, mask and identity. */
static void
probe_port(struct rd_state *st, const struct rd_dev *dev, struct rd_port *p)
{
	uint64_t needed = st->ctx->needed;
	uint64_t want = needed & SOURCES_MASK;
	/* The mask needs every source looked for; else only the needed. */
	uint64_t look = (needed & BIT(RD_MISSING_MASK)) ? SOURCES_MASK : want;
	uint64_t have = 0;

	snprintf(p->name, sizeof(p->name), "%s/%u", dev->name, p->num);
	p->identity = (dev->guid_hash ^ p->num) * 1099511628211u;
	for (unsigned f = 0; f < RD_MISSING_MASK; f++) {
		p->pf[f] = NULL;
		if (!(look & BIT(f)) || !source_path(st, dev->name, p->num, dev->nports, f))
			continue;
		have |= BIT(f);
		if (want & BIT(f))
			p->pf[f] = procfs_file(st->fs, st->path);
	}
	p->missing = rdma_missing_mask(have);
	p->looked = look;
	p->have = have;
	p->saturating = 0;
	if (want & RDMA_PORT_COUNTERS_MASK) {
		snprintf(st->path, sizeof(st->path),
			 IB_CLASS "/%s/ports/%u/counters/unicast_rcv_packets", dev->name, p->num);
		p->saturating = !procfs_exists(st->fs, st->path);
	}
}

/* The decimal d_name as a port number: 0, or -1 if it is not one. */
static int
port_number(const char *s, unsigned *out)
{
	const char *p = s;
	uint64_t v;

	if (*s < '0' || *s > '9' || parse_u64(&p, &v) < 0 || *p || v > 0xFFFF)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* One entry of a device's ports/: a port number, inserted in order (a
 * device has a port or two). */
static int
port_entry(const char *name, unsigned char type, void *arg)
{
	struct rd_dev *dev = arg;
	unsigned num;
	size_t k;

	(void)type;
	if (port_number(name, &num) < 0)
		return 0;
	xgrow((void **)&dev->ports, &dev->cap, dev->nports + 1, sizeof(*dev->ports));
	for (k = dev->nports; k > 0 && dev->ports[k - 1].num > num; k--)
		dev->ports[k] = dev->ports[k - 1];
	memset(&dev->ports[k], 0, sizeof(dev->ports[k]));
	dev->ports[k].num = num;
	dev->nports++;
	return 0;
}

/* List device dev's ports (its ports/ directory) into dev->ports, in
 * order, and read its node GUID. */
static void
list_ports(struct rd_state *st, struct rd_dev *dev)
{
	char guid[64];
	long n;

	snprintf(st->path, sizeof(st->path), IB_CLASS "/%s/node_guid", dev->name);
	n = procfs_read_small(st->fs, st->path, guid, sizeof(guid));
	dev->guid_hash = n > 0 ? fnv(1469598103934665603u, guid, (size_t)n)
			       : fnv(1469598103934665603u, dev->name, strlen(dev->name));
	dev->nports = 0;
	snprintf(st->path, sizeof(st->path), IB_CLASS "/%s/ports", dev->name);
	procfs_list(st->fs, st->path, port_entry, dev);
}

/* The device named name (len bytes, shorter than its name field): found,
 * or inserted in name order with *fresh set. */
static struct rd_dev *
lookup_dev(struct rd_state *st, const char *name, size_t len, int *fresh)
{
	int found;
	size_t lo = name_place(st->devs, st->ndevs, sizeof(*st->devs),
			       offsetof(struct rd_dev, name), name, &found);
	struct rd_dev *dev;

	*fresh = 0;
	if (found)
		return &st->devs[lo];
	xgrow((void **)&st->devs, &st->cap, st->ndevs + 1, sizeof(*st->devs));
	memmove(&st->devs[lo + 1], &st->devs[lo], (st->ndevs - lo) * sizeof(*st->devs));
	st->ndevs++;
	dev = &st->devs[lo];
	memset(dev, 0, sizeof(*dev));
	memcpy(dev->name, name, len + 1);
	*fresh = 1;
	return dev;
}

/* One entry of sys/class/infiniband: a device, its ports listed when it is
 * new (or under --root), each port's files looked for. */
static int
ib_entry(const char *name, unsigned char type, void *arg)
{
	struct rd_state *st = arg;
	size_t len = strlen(name);
	struct rd_dev *dev;
	int fresh;

	(void)type;
	if (len >= sizeof(st->devs->name))
		return 0;
	dev = lookup_dev(st, name, len, &fresh);
	dev->seen = st->scans;
	if (fresh || !procfs_is_live(st->fs))
		list_ports(st, dev);
	for (size_t k = 0; k < dev->nports; k++)
		probe_port(st, dev, &dev->ports[k]);
	return 0;
}

/* List sys/class/infiniband again: every device in name order, its ports
 * listed when it is new (live: a device's ports do not change; under
 * --root, every time), each port's files looked for; the devices gone are
 * forgotten. */
static void
discover(struct rd_state *st)
{
	size_t j = 0;

	st->scans++;
	st->rescan = 0;
	procfs_list(st->fs, IB_CLASS, ib_entry, st);
	for (size_t i = 0; i < st->ndevs; i++) {
		if (st->devs[i].seen != st->scans) {
			free(st->devs[i].ports);
			continue;
		}
		st->devs[j++] = st->devs[i];
	}
	st->ndevs = j;
}

/* One netlink attribute at *p (before end): its type (flags masked), data
 * and length; moves *p past it. Returns 1, or 0 at the end or at one that
 * does not fit. */
static int
nl_attr_next(const unsigned char **p, const unsigned char *end, uint16_t *type,
	     const unsigned char **data, size_t *dlen)
{
	struct nlattr a;
	size_t left = (size_t)(end - *p), step;

	if (left < sizeof(a))
		return 0;
	memcpy(&a, *p, sizeof(a));
	if (a.nla_len < sizeof(a) || a.nla_len > left)
		return 0;
	*type = a.nla_type & NLA_TYPE_MASK;
	*data = *p + NLA_HDRLEN;
	*dlen = (size_t)a.nla_len - NLA_HDRLEN;
	step = (size_t)NLA_ALIGN(a.nla_len);
	*p += step < left ? step : left;
	return 1;
}

/* An attribute's u32 or u64 value (by its length); 0 for another size. */
static uint64_t
nl_uint(const unsigned char *data, size_t dlen)
{
	uint32_t v32;
	uint64_t v64;

	if (dlen == sizeof(v64)) {
		memcpy(&v64, data, sizeof(v64));
		return v64;
	}
	if (dlen == sizeof(v32)) {
		memcpy(&v32, data, sizeof(v32));
		return v32;
	}
	return 0;
}

/* The "cm_id" entry of a RES_SUMMARY table into dev. */
static void
summary_cm_ids(const unsigned char *p, const unsigned char *end, struct rdma_nl_dev *dev)
{
	const unsigned char *d, *q, *qend, *ed;
	size_t dlen, elen;
	uint16_t type, etype;

	while (nl_attr_next(&p, end, &type, &d, &dlen)) {
		int is_cm = 0, has_curr = 0;
		uint64_t curr = 0;

		if (type != RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY)
			continue;
		q = d;
		qend = d + dlen;
		while (nl_attr_next(&q, qend, &etype, &ed, &elen)) {
			if (etype == RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME)
				is_cm = strnlen((const char *)ed, elen) == 5 &&
					memcmp(ed, "cm_id", 5) == 0;
			else if (etype == RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR) {
				curr = nl_uint(ed, elen);
				has_curr = 1;
			}
		}
		if (is_cm && has_curr) {
			dev->cm_ids = curr;
			dev->has_cm_ids = 1;
		}
	}
}

/* The cm_id entries of a RES_CM_ID table, counted by port into ports. */
static void
count_entries(const unsigned char *p, const unsigned char *end, uint64_t *ports, size_t nports)
{
	const unsigned char *d, *q, *ed;
	size_t dlen, elen;
	uint16_t type, etype;

	while (nl_attr_next(&p, end, &type, &d, &dlen)) {
		if (type != RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY)
			continue;
		q = d;
		while (nl_attr_next(&q, d + dlen, &etype, &ed, &elen))
			if (etype == RDMA_NLDEV_ATTR_PORT_INDEX) {
				uint64_t port = nl_uint(ed, elen);
				if (port < nports)
					ports[port]++;
				break;
			}
	}
}

/* What a dump's messages are parsed into: a device list (summary) or
 * per-port counts (ports). */
struct nl_sink {
	int summary; /* else ports */
	struct rdma_nl_dev *devs;
	size_t max, *ndevs;
	uint64_t *ports;
	size_t nports;
};

/* Walk the messages of buf: see rdma_nl_parse_summary. */
static int
nl_walk(const void *buf, size_t len, uint32_t seq, uint16_t want, struct nl_sink *sink, int *done)
{
	const unsigned char *p = buf, *end = p + len;

	while ((size_t)(end - p) >= NLMSG_HDRLEN) {
		struct nlmsghdr h;
		const unsigned char *a, *aend, *d;
		size_t dlen, step;
		uint16_t type;

		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > (size_t)(end - p))
			return -EBADMSG;
		a = p + NLMSG_HDRLEN;
		aend = p + h.nlmsg_len;
		step = (size_t)NLMSG_ALIGN(h.nlmsg_len);
		p += step < (size_t)(end - p) ? step : (size_t)(end - p);
		if (seq && h.nlmsg_seq != seq)
			continue;
		if (h.nlmsg_type == NLMSG_DONE || h.nlmsg_type == NLMSG_ERROR) {
			int e = 0;

			if (aend - a >= (ptrdiff_t)sizeof(e))
				memcpy(&e, a, sizeof(e));
			if (h.nlmsg_type == NLMSG_DONE)
				*done = 1;
			if (e < 0)
				return e;
			if (h.nlmsg_type == NLMSG_DONE)
				return 0;
			continue; /* an acknowledgement */
		}
		if (h.nlmsg_type != want)
			continue;
		if (sink->summary) {
			struct rdma_nl_dev dev = { "", 0, 0, 0 };

			while (nl_attr_next(&a, aend, &type, &d, &dlen)) {
				if (type == RDMA_NLDEV_ATTR_DEV_INDEX) {
					dev.index = (uint32_t)nl_uint(d, dlen);
				} else if (type == RDMA_NLDEV_ATTR_DEV_NAME) {
					size_t n = strnlen((const char *)d, dlen);
					if (n >= sizeof(dev.name))
						n = sizeof(dev.name) - 1;
					memcpy(dev.name, d, n);
					dev.name[n] = '\0';
				} else if (type == RDMA_NLDEV_ATTR_RES_SUMMARY) {
					summary_cm_ids(d, d + dlen, &dev);
				}
			}
			if (*sink->ndevs < sink->max)
				sink->devs[*sink->ndevs] = dev;
			(*sink->ndevs)++;
		} else {
			while (nl_attr_next(&a, aend, &type, &d, &dlen))
				if (type == RDMA_NLDEV_ATTR_RES_CM_ID)
					count_entries(d, d + dlen, sink->ports, sink->nports);
		}
	}
	return 0;
}

/* An RDMA_NLDEV_CMD_RES_GET dump's devices (see rdma.h). */
int
rdma_nl_parse_summary(const void *buf, size_t len, uint32_t seq, struct rdma_nl_dev *devs,
		      size_t max, size_t *ndevs, int *done)
{
	struct nl_sink sink = { 1, devs, devs ? max : 0, ndevs, NULL, 0 };

	return nl_walk(buf, len, seq, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_GET),
		       &sink, done);
}

/* An RDMA_NLDEV_CMD_RES_CM_ID_GET dump's entries by port (see rdma.h). */
int
rdma_nl_count_cm_ids(const void *buf, size_t len, uint32_t seq, uint64_t *ports, size_t nports,
		     int *done)
{
	struct nl_sink sink = { 0, NULL, 0, NULL, ports, nports };

	return nl_walk(buf, len, seq,
		       RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_CM_ID_GET), &sink, done);
}

/* Send a dump request of command cmd (for device index dev_index when
 * with_dev) and parse the answer into sink. Returns 0, or -1 (the counts
 * are then unknown for this read). */
static int
nl_dump(struct rd_state *st, uint16_t cmd, int with_dev, uint32_t dev_index,
	struct nl_sink *sink)
{
	struct {
		struct nlmsghdr h;
		struct nlattr a;
		uint32_t index;
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	uint16_t type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	int done = 0;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_HDRLEN + (with_dev ? NLA_HDRLEN + sizeof(uint32_t) : 0);
	req.h.nlmsg_type = type;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = ++st->nl_seq ? st->nl_seq : ++st->nl_seq;
	req.a.nla_len = NLA_HDRLEN + sizeof(uint32_t);
	req.a.nla_type = RDMA_NLDEV_ATTR_DEV_INDEX;
	req.index = dev_index;
	if (sendto(st->nl_fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -1;
	while (!done) {
		ssize_t n = recv(st->nl_fd, st->nl_buf, NL_BUF_SIZE, MSG_TRUNC);
		int rc;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (size_t)n > NL_BUF_SIZE)
			return -1; /* timeout, error or truncated: unknown */
		rc = nl_walk(st->nl_buf, (size_t)n, req.h.nlmsg_seq, type, sink, &done);
		/* on an error, the dump's remaining messages, if any, are
		 * skipped by their sequence number at the next dump */
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The device named name among st->devs, or NULL. */
static struct rd_dev *
find_dev(struct rd_state *st, const char *name)
{
	int found;
	size_t i = name_place(st->devs, st->ndevs, sizeof(*st->devs), offsetof(struct rd_dev, name),
			      name, &found);

	return found ? &st->devs[i] : NULL;
}

/* This read's cm_id count of each port (cm_have), from the netlink dumps:
 * a port keeps none where a dump fails. */
static void
cm_refresh(struct rd_state *st)
{
	size_t ndevs = 0;
	struct nl_sink sink = { 1, st->nl_devs, st->nl_cap, &ndevs, NULL, 0 };

	for (size_t i = 0; i < st->ndevs; i++)
		for (size_t k = 0; k < st->devs[i].nports; k++)
			st->devs[i].ports[k].cm_have = 0;
	if (st->ndevs == 0)
		return; /* no port to give a count to */
	if (nl_dump(st, RDMA_NLDEV_CMD_RES_GET, 0, 0, &sink) < 0)
		return;
	if (ndevs > st->nl_cap) {
		/* more devices than ever: grow, then ask again */
		xgrow((void **)&st->nl_devs, &st->nl_cap, ndevs, sizeof(*st->nl_devs));
		sink.devs = st->nl_devs;
		sink.max = st->nl_cap;
		ndevs = 0;
		if (nl_dump(st, RDMA_NLDEV_CMD_RES_GET, 0, 0, &sink) < 0 || ndevs > st->nl_cap)
			return;
	}
	for (size_t i = 0; i < ndevs; i++) {
		const struct rdma_nl_dev *nd = &st->nl_devs[i];
		struct rd_dev *dev = nd->has_cm_ids ? find_dev(st, nd->name) : NULL;
		struct nl_sink ports = { 0, NULL, 0, NULL, st->nl_ports, NL_MAX_PORTS };

		if (!dev || dev->nports == 0)
			continue;
		if (dev->nports == 1 || nd->cm_ids == 0) {
			/* the device's count is the port's (0 on every port) */
			for (size_t k = 0; k < dev->nports; k++) {
				dev->ports[k].cm_ids = nd->cm_ids;
				dev->ports[k].cm_have = 1;
			}
			continue;
		}
		memset(st->nl_ports, 0, sizeof(st->nl_ports));
		if (nl_dump(st, RDMA_NLDEV_CMD_RES_CM_ID_GET, 1, nd->index, &ports) < 0)
			continue;
		for (size_t k = 0; k < dev->nports; k++) {
			struct rd_port *p = &dev->ports[k];
			if (p->num < NL_MAX_PORTS) {
				p->cm_ids = st->nl_ports[p->num];
				p->cm_have = 1;
			}
		}
	}
}

/* Read one port's needed files into a new instance of out; the fields
 * found saturated are kept in p->saturated for describe. */
static void
read_port(struct rd_state *st, struct rd_port *p, struct raw_set *out)
{
	uint64_t needed = st->ctx->needed, v;
	struct raw_instance *ri = raw_set_add(out, p->name, strlen(p->name), p->identity);

	raw_set_in_total(out, ri, 0); /* the set has no _Total */
	p->saturated = 0;
	for (unsigned f = 0; f < RD_MISSING_MASK; f++) {
		const char *text;
		size_t len;

		if (!(needed & BIT(f)) || !p->pf[f])
			continue;
		text = pfile_read(p->pf[f], &len, NULL);
		if (!text) {
			st->rescan = 1; /* the device or port went away */
			continue;
		}
		if (rdma_parse_counter(text, 0, &v) < 0)
			continue;
		if (p->saturating && (RDMA_PORT_COUNTERS_MASK & BIT(f)) && v == 0xFFFFFFFFu) {
			p->saturated |= BIT(f); /* no value: see rdma_parse_counter */
			continue;
		}
		raw_put(out, ri, f, v);
	}
	if ((needed & BIT(RD_ACTIVE_CONNECTIONS)) && p->cm_have)
		raw_put(out, ri, RD_ACTIVE_CONNECTIONS, p->cm_ids);
	if (needed & BIT(RD_MISSING_MASK))
		raw_put(out, ri, RD_MISSING_MASK, p->cm_have ? p->missing & ~BIT(4) : p->missing);
}

/* Live, when RDMA Active Connections (or the mask) is wanted: the rdma
 * netlink socket, or -1 where the kernel has none (no ib_core). */
static int
nl_open(void)
{
	struct timeval tv = { 0, NL_TIMEOUT_US };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* For tests: fd as the netlink socket (see rdma.h). */
void
rdma_use_netlink_fd(void *state, int fd)
{
	struct rd_state *st = state;
	struct timeval tv = { 0, NL_TIMEOUT_US };

	if (st->nl_fd >= 0)
		close(st->nl_fd);
	st->nl_fd = fd;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (!st->nl_buf)
		st->nl_buf = xmalloc(NL_BUF_SIZE);
	if (st->nl_cap < 8)
		xgrow((void **)&st->nl_devs, &st->nl_cap, 8, sizeof(*st->nl_devs));
}

/* Prepare; discovery waits for the first read. */
static void *
rdma_open(const struct provider_ctx *ctx, struct err *err)
{
	struct rd_state *st = xcalloc(1, sizeof(*st));

	(void)err;
	st->ctx = ctx;
	st->fs = ctx->fs;
	st->nl_fd = -1;
	if (procfs_is_live(ctx->fs) &&
	    (ctx->needed & (BIT(RD_ACTIVE_CONNECTIONS) | BIT(RD_MISSING_MASK)))) {
		st->nl_fd = nl_open();
		if (st->nl_fd >= 0) {
			st->nl_buf = xmalloc(NL_BUF_SIZE);
			xgrow((void **)&st->nl_devs, &st->nl_cap, 8, sizeof(*st->nl_devs));
		}
	}
	return st;
}

/* One read: discover when due, then every port. */
static int
rdma_read(void *state, struct raw_set *out, struct err *err)
{
	struct rd_state *st = state;

	(void)err;
	if (!procfs_is_live(st->fs) || st->rescan || st->scanned_ns == 0 ||
	    now_mono_ns() - st->scanned_ns >= RESCAN_NS) {
		discover(st);
		st->scanned_ns = now_mono_ns();
	}
	if (st->nl_fd >= 0)
		cm_refresh(st);
	for (size_t i = 0; i < st->ndevs; i++)
		for (size_t k = 0; k < st->devs[i].nports; k++)
			read_port(st, &st->devs[i].ports[k], out);
	return 0;
}

/* A note being written into buf (size n), cut to fit. */
struct note {
	char *buf;
	size_t n, len;
};

/* Append to a note; once cut, nothing more. */
static void __attribute__((format(printf, 2, 3)))
note_add(struct note *nt, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (nt->len + 1 >= nt->n)
		return;
	va_start(ap, fmt);
	k = vsnprintf(nt->buf + nt->len, nt->n - nt->len, fmt, ap);
	va_end(ap);
	if (k < 0)
		nt->buf[nt->len] = '\0';
	else if ((size_t)k >= nt->n - nt->len)
		nt->len = nt->n - 1;
	else
		nt->len += (size_t)k;
}

/* Append the file names of the fields in fs, joined by sep. */
static void
note_fields(struct note *nt, uint64_t fs, const char *sep)
{
	const char *s = "";

	for (unsigned f = 0; f < RD_MISSING_MASK; f++)
		if (fs & BIT(f)) {
			note_add(nt, "%s%s", s, fields[f].name);
			s = sep;
		}
}

/* The Missing Counter Mask bit of the counter whose fields are fs, or -1. */
static int
mask_bit(uint64_t fs)
{
	for (size_t i = 0; i < ARRAY_SIZE(mask_bits); i++)
		if (mask_bits[i].fields == fs)
			return mask_bits[i].bit;
	return -1;
}

/* The port an instance name "DEV/P" names, or NULL. */
static struct rd_port *
find_port(struct rd_state *st, const char *instance)
{
	const char *sep = strrchr(instance, '/');
	char name[sizeof(st->devs->name)];
	struct rd_dev *dev;
	unsigned num;

	if (!sep || (size_t)(sep - instance) >= sizeof(name) || port_number(sep + 1, &num) < 0)
		return NULL;
	memcpy(name, instance, (size_t)(sep - instance));
	name[sep - instance] = '\0';
	dev = find_dev(st, name);
	for (size_t k = 0; dev && k < dev->nports; k++)
		if (dev->ports[k].num == num)
			return &dev->ports[k];
	return NULL;
}

/* The fields port p has a source for: files, and this read's cm_id count. */
static uint64_t
port_have(const struct rd_port *p)
{
	return p->have | (p->cm_have ? BIT(RD_ACTIVE_CONNECTIONS) : 0);
}

/* What counter c (its fields fs) is on port p after the last read. */
static void
port_note(struct rd_state *st, const struct rd_port *p, uint64_t fs, struct note *nt)
{
	uint64_t none = fs & ~port_have(p);

	if (fs == BIT(RD_MISSING_MASK)) {
		uint64_t m = p->cm_have ? p->missing & ~BIT(4) : p->missing;
		if (p->looked != SOURCES_MASK || !m)
			return;
		note_add(nt, "here set:");
		for (unsigned b = 0; b < 64; b++)
			if (m & ((uint64_t)1 << b))
				note_add(nt, " %u", b);
		note_add(nt, " (counters with no source on this port)");
		return;
	}
	if (fs == BIT(RD_ACTIVE_CONNECTIONS)) {
		if (p->cm_have || !(st->ctx->needed & BIT(RD_ACTIVE_CONNECTIONS)))
			return;
		if (!procfs_is_live(st->fs))
			note_add(nt, "here none: live only (bit 4 of the Missing Counter Mask)");
		else if (st->nl_fd < 0)
			note_add(nt, "here none: this kernel offers no rdma netlink socket (bit 4 "
				     "of the Missing Counter Mask)");
		else
			note_add(nt, "here none: the rdma netlink dump gave no cm_id count");
		return;
	}
	if (p->saturated & fs) {
		note_add(nt, "here ");
		note_fields(nt, p->saturated & fs, " and ");
		note_add(nt, " sits at 0xFFFFFFFF: a saturated legacy 32-bit counter gives no "
			     "rate");
		return;
	}
	if ((fs & p->looked) != fs || !none)
		return;
	if (none == fs) {
		note_add(nt, "here no source on this port: no ");
		note_fields(nt, none, " or ");
		note_add(nt, " file (bit %d of the Missing Counter Mask)", mask_bit(fs));
	} else {
		note_add(nt, "here no ");
		note_fields(nt, none, " or ");
		note_add(nt, " file: the sum of ");
		note_fields(nt, fs & port_have(p), " and ");
		note_add(nt, " only");
	}
}

/* -l -v (instance NULL): the ports where counter c (fields fs) is
 * saturated, then those where it has no source. */
static void
ports_note(struct rd_state *st, uint64_t fs, struct note *nt)
{
	const char *s = "here saturated at 0xFFFFFFFF (a legacy 32-bit counter: no rate) on";

	if (fs & ~SOURCES_MASK)
		return;
	for (int pass = 0; pass < 2; pass++) {
		int any = 0;

		for (size_t i = 0; i < st->ndevs; i++)
			for (size_t k = 0; k < st->devs[i].nports; k++) {
				const struct rd_port *p = &st->devs[i].ports[k];
				int none = (fs & p->looked) == fs && !(fs & port_have(p));

				if (pass == 0 ? !(p->saturated & fs) : !none)
					continue;
				note_add(nt, "%s %s", any ? "," : s, p->name);
				any = 1;
			}
		if (any && pass == 0)
			s = "; no source on";
		else if (pass == 0)
			s = "here no source on";
	}
}

/* -l -v / -q -v: a saturated legacy counter or a counter with no source on
 * the instance's port (instance NULL: the ports where it is so). */
static size_t
rdma_describe(void *state, const struct counter_desc *c, const char *instance, char *buf,
	      size_t n)
{
	struct rd_state *st = state;
	struct note nt = { buf, n, 0 };
	const struct rd_port *p;

	if (n == 0)
		return 0;
	buf[0] = '\0';
	if (!instance) {
		ports_note(st, counter_fields(c), &nt);
		return nt.len;
	}
	p = find_port(st, instance);
	if (p)
		port_note(st, p, counter_fields(c), &nt);
	return nt.len;
}

/* Free the state (the pfiles belong to the procfs). */
static void
rdma_close(void *state)
{
	struct rd_state *st = state;

	if (!st)
		return;
	if (st->nl_fd >= 0)
		close(st->nl_fd);
	free(st->nl_buf);
	free(st->nl_devs);
	for (size_t i = 0; i < st->ndevs; i++)
		free(st->devs[i].ports);
	free(st->devs);
	free(st);
}

const struct provider provider_rdma_activity = {
	.set = &set,
	.open = rdma_open,
	.read = rdma_read,
	.close = rdma_close,
	.describe = rdma_describe,
};
