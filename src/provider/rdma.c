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
 * Missing Counter Mask, computed at discovery. RDMA Active Connections would
 * need the rdma netlink cm_id count: not read, so always UNSUPPORTED.
 *
 * port_rcv_data and port_xmit_data count units of 4 octets (the counters'
 * scale). Where the port has the extended (IETF) counters, shown by
 * counters/unicast_rcv_packets, the data and packet counters are 64-bit;
 * otherwise they may be the legacy 32-bit ones, which stop at 0xFFFFFFFF
 * rather than wrap: a value there is left out (UNSUPPORTED, no rate). A
 * device with 64-bit but no IETF counters looks legacy; it loses a sample
 * only if a counter sits at exactly 0xFFFFFFFF.
 *
 * Discovery runs every read under --root, live at most once a second and at
 * the next read after a file that was there fails. Live, the directory
 * stream of sys/class/infiniband stays open and a device's ports are listed
 * when it first appears, so a discovery allocates nothing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provider.h"
#include "rdma.h"

#define BIT(f) ((uint64_t)1 << (f))
#define SOURCES_MASK (BIT(RD_MISSING_MASK) - 1)
#define RESCAN_NS 1000000000ull
#define IB_CLASS "sys/class/infiniband"
#define IB_CM_CLASS "sys/class/infiniband_cm"

static const struct field_desc fields[RD_NFIELDS] = {
	[RD_CM_TX_REQ] = { "cm_tx_msgs/req", FW_ULONG, FK_COUNTER, FB_NONE },
	[RD_CM_TX_REP] = { "cm_tx_msgs/rep", FW_ULONG, FK_COUNTER, FB_NONE },
	[RD_CM_TX_REJ] = { "cm_tx_msgs/rej", FW_ULONG, FK_COUNTER, FB_NONE },
	[RD_CM_RX_REJ] = { "cm_rx_msgs/rej", FW_ULONG, FK_COUNTER, FB_NONE },
	[RD_LOCAL_ACK_TIMEOUT_ERR] = { "local_ack_timeout_err", FW_64, FK_COUNTER, FB_NONE },
	[RD_RNR_NAK_RETRY_ERR] = { "rnr_nak_retry_err", FW_64, FK_COUNTER, FB_NONE },
	[RD_ACTIVE_CONNECTIONS] = { "active_connections", FW_64, FK_GAUGE, FB_NONE },
	[RD_REQ_CQE_ERROR] = { "req_cqe_error", FW_64, FK_COUNTER, FB_NONE },
	[RD_RESP_CQE_ERROR] = { "resp_cqe_error", FW_64, FK_COUNTER, FB_NONE },
	/* 64-bit, or legacy 32-bit counters that saturate (never wrap): a
	 * decrease is a reset either way. */
	[RD_PORT_RCV_DATA] = { "port_rcv_data", FW_64, FK_COUNTER, FB_NONE },
	[RD_PORT_XMIT_DATA] = { "port_xmit_data", FW_64, FK_COUNTER, FB_NONE },
	[RD_PORT_RCV_PACKETS] = { "port_rcv_packets", FW_64, FK_COUNTER, FB_NONE },
	[RD_PORT_XMIT_PACKETS] = { "port_xmit_packets", FW_64, FK_COUNTER, FB_NONE },
	[RD_MISSING_MASK] = { "missing_counter_mask", FW_64, FK_GAUGE, FB_NONE },
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
		.help = "Connections open now; not read yet (it needs the rdma netlink cm_id "
			"count), so always unsupported.",
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
};

/* One port as the last discovery found it. */
struct rd_port {
	unsigned num;         /* the port number */
	char name[80];        /* "DEV/P" */
	uint64_t identity;    /* the device's node GUID and the port number */
	uint64_t missing;     /* the Missing Counter Mask */
	uint8_t saturating;   /* legacy 32-bit port counters */
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
	DIR *ib_dir;          /* live: sys/class/infiniband, kept open */
	uint64_t scans;       /* discoveries run */
	uint64_t scanned_ns;  /* live: when discovery last ran; 0 never */
	int rescan;           /* a file failed: discover again */
	char path[256];
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

/* List device dev's ports (its ports/ directory) into dev->ports, in
 * order, and read its node GUID. */
static void
list_ports(struct rd_state *st, struct rd_dev *dev)
{
	char guid[64];
	DIR *d;
	struct dirent *de;
	unsigned num;
	long n;

	snprintf(st->path, sizeof(st->path), IB_CLASS "/%s/node_guid", dev->name);
	n = procfs_read_small(st->fs, st->path, guid, sizeof(guid));
	dev->guid_hash = n > 0 ? fnv(1469598103934665603u, guid, (size_t)n)
			       : fnv(1469598103934665603u, dev->name, strlen(dev->name));
	dev->nports = 0;
	snprintf(st->path, sizeof(st->path), IB_CLASS "/%s/ports", dev->name);
	d = procfs_opendir(st->fs, st->path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t k;
		if (port_number(de->d_name, &num) < 0)
			continue;
		xgrow((void **)&dev->ports, &dev->cap, dev->nports + 1, sizeof(*dev->ports));
		/* insertion in order: a device has a port or two */
		for (k = dev->nports; k > 0 && dev->ports[k - 1].num > num; k--)
			dev->ports[k] = dev->ports[k - 1];
		memset(&dev->ports[k], 0, sizeof(dev->ports[k]));
		dev->ports[k].num = num;
		dev->nports++;
	}
	closedir(d);
}

/* The device named name (len bytes, shorter than its name field): found,
 * or inserted in name order with *fresh set. */
static struct rd_dev *
lookup_dev(struct rd_state *st, const char *name, size_t len, int *fresh)
{
	size_t lo = 0, hi = st->ndevs;
	struct rd_dev *dev;

	*fresh = 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strverscmp(st->devs[mid].name, name);
		if (c == 0)
			return &st->devs[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	xgrow((void **)&st->devs, &st->cap, st->ndevs + 1, sizeof(*st->devs));
	memmove(&st->devs[lo + 1], &st->devs[lo], (st->ndevs - lo) * sizeof(*st->devs));
	st->ndevs++;
	dev = &st->devs[lo];
	memset(dev, 0, sizeof(*dev));
	memcpy(dev->name, name, len + 1);
	*fresh = 1;
	return dev;
}

/* sys/class/infiniband to list: live, one directory stream kept and
 * rewound (a discovery allocates nothing); under --root, opened in each
 * root. NULL when there is no such directory (no RDMA device). */
static DIR *
open_ib_dir(struct rd_state *st)
{
	if (!procfs_is_live(st->fs))
		return procfs_opendir(st->fs, IB_CLASS);
	if (st->ib_dir)
		rewinddir(st->ib_dir);
	else
		st->ib_dir = procfs_opendir(st->fs, IB_CLASS);
	return st->ib_dir;
}

/* List sys/class/infiniband again: every device in name order, its ports
 * listed when it is new (live: a device's ports do not change; under
 * --root, every time), each port's files looked for; the devices gone are
 * forgotten. */
static void
discover(struct rd_state *st)
{
	DIR *d = open_ib_dir(st);
	struct dirent *de;
	size_t j = 0;

	st->scans++;
	st->rescan = 0;
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct rd_dev *dev;
		int fresh;

		if (de->d_name[0] == '.' || len >= sizeof(st->devs->name))
			continue;
		dev = lookup_dev(st, de->d_name, len, &fresh);
		dev->seen = st->scans;
		if (fresh || !procfs_is_live(st->fs))
			list_ports(st, dev);
		for (size_t k = 0; k < dev->nports; k++)
			probe_port(st, dev, &dev->ports[k]);
	}
	if (d && d != st->ib_dir)
		closedir(d);
	for (size_t i = 0; i < st->ndevs; i++) {
		if (st->devs[i].seen != st->scans) {
			free(st->devs[i].ports);
			continue;
		}
		st->devs[j++] = st->devs[i];
	}
	st->ndevs = j;
}

/* Read one port's needed files into a new instance of out. */
static void
read_port(struct rd_state *st, const struct rd_port *p, struct raw_set *out)
{
	uint64_t needed = st->ctx->needed, v;
	struct raw_instance *ri = raw_set_add(out, p->name, strlen(p->name), p->identity);

	ri->in_total = 0; /* the set has no _Total */
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
		if (rdma_parse_counter(text, p->saturating && (RDMA_PORT_COUNTERS_MASK & BIT(f)),
				       &v) == 0)
			raw_put(ri, f, v);
	}
	if (needed & BIT(RD_MISSING_MASK))
		raw_put(ri, RD_MISSING_MASK, p->missing);
}

/* Prepare; discovery waits for the first read. */
static void *
rdma_open(const struct provider_ctx *ctx, struct err *err)
{
	struct rd_state *st = xcalloc(1, sizeof(*st));

	(void)err;
	st->ctx = ctx;
	st->fs = ctx->fs;
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
	for (size_t i = 0; i < st->ndevs; i++)
		for (size_t k = 0; k < st->devs[i].nports; k++)
			read_port(st, &st->devs[i].ports[k], out);
	return 0;
}

/* Free the state (the pfiles belong to the procfs). */
static void
rdma_close(void *state)
{
	struct rd_state *st = state;

	if (!st)
		return;
	if (st->ib_dir)
		closedir(st->ib_dir);
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
};
