/*
 * nicpower.c - the Physical Network Interface Card Activity set
 * (COUNTERS.md section 6): one instance per network interface that has a
 * device (include/nicdev.h: the PCI function, also behind virtio), with the
 * device's PCI power state and its runtime power management status and
 * times.
 *
 * Discovery lists sys/class/net, finds each interface's device and keeps a
 * pfile for each attribute some requested counter needs and the device
 * has; a read preads those. Under --root discovery runs every read (each
 * root is its own tree); live at most once a second (a provider does not see
 * the Network Adapter list change), and at the next read after an attribute
 * that was there fails (the device went away). Live, the directory stream
 * stays open and the interface records are kept in name order, so a
 * discovery allocates nothing once the interfaces are known. The provider
 * turns the attributes' words into numbers and reads nothing no counter
 * needs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic.h"
#include "nicdev.h"
#include "nicpower.h"
#include "provider.h"

#define BIT(f) ((uint64_t)1 << (f))
#define TIMES_MASK (BIT(NP_SUSPENDED_TIME) | BIT(NP_ACTIVE_TIME))
#define RESCAN_NS 1000000000ull

static const struct field_desc fields[NP_NFIELDS] = {
	[NP_POWER_STATE] = { "power_state", FW_64, FK_GAUGE, FB_NONE, PROM("power_state", "", 0) },
	[NP_SUSPENDED_TIME] = { "runtime_suspended_time", FW_64, FK_COUNTER, FB_NONE,
				PROM("suspended_time", "seconds", 1e-3) },
	[NP_ACTIVE_TIME] = { "runtime_active_time", FW_64, FK_COUNTER, FB_NONE,
			     PROM("active_time", "seconds", 1e-3) },
	[NP_RUNTIME_STATUS] = { "runtime_status", FW_64, FK_GAUGE, FB_NONE,
				PROM("runtime_status", "", 0) },
};

/* The attribute file of each field, under the device directory. */
static const char *const attr_names[NP_NFIELDS] = {
	[NP_POWER_STATE] = "power_state",
	[NP_SUSPENDED_TIME] = "power/runtime_suspended_time",
	[NP_ACTIVE_TIME] = "power/runtime_active_time",
	[NP_RUNTIME_STATUS] = "power/runtime_status",
};

static const struct counter_desc counters[] = {
	{
		.name = "Device Power State",
		.type = CT_RAW,
		.num = { { NP_POWER_STATE, 1 } },
		.unit = "",
		.help = "The PCI power state of the interface's device: 0 for D0 (fully on) up "
			"to 3 for D3 (off); none when the device is not PCI or the state is "
			"unknown.",
	},
	{
		.name = "% Time Suspended (Lifetime)",
		.type = CT_FRACTION,
		.num = { { NP_SUSPENDED_TIME, 1 } },
		.den = { { NP_ACTIVE_TIME, 1 }, { NP_SUSPENDED_TIME, 1 } },
		.unit = "%",
		.help = "Share of the time runtime power management has kept the device "
			"suspended since it was set up; none when the device does not support "
			"runtime power management.",
	},
	{
		.name = "% Time Suspended (Instantaneous)",
		.type = CT_SAMPLE_FRACTION,
		.num = { { NP_SUSPENDED_TIME, 1 } },
		.den = { { NP_ACTIVE_TIME, 1 }, { NP_SUSPENDED_TIME, 1 } },
		.has_zero_base = 1,
		.zero_base = 0,
		.unit = "%",
		.help = "Share of the last interval the device spent runtime-suspended (0 when "
			"neither time advanced); none without runtime power management.",
	},
	{
		.name = "Runtime Status",
		.type = CT_RAW,
		.num = { { NP_RUNTIME_STATUS, 1 } },
		.unit = "",
		.help = "The device's runtime power management status: 0 active, 1 suspended, 2 "
			"suspending, 3 resuming, 4 unsupported, 5 error.",
	},
};

static const struct counter_set set = {
	.name = "Physical Network Interface Card Activity",
	.help = "Power management state of the device behind each network interface that "
		"has one (the PCI function, also for virtio).",
	.multi_instance = 1,
	.fields = fields,
	.nfields = NP_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
	.prom_labels = "device",
};

/* One interface with a device, as the last discovery found it. */
struct np_if {
	char name[64];
	uint64_t seen;                  /* the discovery that last listed it */
	uint64_t identity;              /* ifindex, else a hash of the name */
	struct pfile *pf[NP_NFIELDS];   /* NULL: not needed, or not there */
};

struct np_state {
	const struct provider_ctx *ctx;
	struct procfs *fs;
	struct np_if *ifs; /* in name order (strverscmp) */
	size_t nifs, cap;
	uint64_t scans;      /* discoveries run */
	uint64_t scanned_ns; /* live: when discovery last ran; 0 never */
	int rescan;          /* an attribute failed: discover again */
	struct nic_link_watch watch; /* live: link notifications */
	char path[192];
};

/* Nonzero when text starts with word followed by blanks or the end. */
static int
is_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p = skip_blanks(text);

	if (strncmp(p, word, n) != 0)
		return 0;
	p += n;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return *p == '\0';
}

/* A PCI power_state text (see nicpower.h). */
int
nicpower_parse_power_state(const char *text, uint64_t *state)
{
	static const char *const words[] = { "D0", "D1", "D2", "D3hot", "D3cold" };
	static const uint8_t values[] = { 0, 1, 2, 3, 3 };

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (is_word(text, words[i])) {
			*state = values[i];
			return 0;
		}
	return -1; /* "unknown", "error" */
}

/* A power/runtime_status text (see nicpower.h). */
int
nicpower_parse_runtime_status(const char *text, uint64_t *status)
{
	static const char *const words[] = {
		[NP_RT_ACTIVE] = "active",           [NP_RT_SUSPENDED] = "suspended",
		[NP_RT_SUSPENDING] = "suspending",   [NP_RT_RESUMING] = "resuming",
		[NP_RT_UNSUPPORTED] = "unsupported", [NP_RT_ERROR] = "error",
	};

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (is_word(text, words[i])) {
			*status = i;
			return 0;
		}
	return -1;
}

/* A power/runtime_*_time text (see nicpower.h). */
int
nicpower_parse_ms(const char *text, uint64_t *ms)
{
	const char *p = skip_blanks(text);

	if (parse_u64(&p, ms) < 0)
		return -1;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return *p ? -1 : 0;
}

/* The fields whose attributes a read opens: the needed ones, and the
 * runtime status whenever a time is needed (it decides whether the times
 * mean anything). */
static uint64_t
wanted_fields(uint64_t needed)
{
	uint64_t want = needed & (BIT(NP_NFIELDS) - 1);

	if (want & TIMES_MASK)
		want |= BIT(NP_RUNTIME_STATUS);
	return want;
}

/* Fill ni (named already) from its device dev: identity and files. */
static void
probe_if(struct np_state *st, struct np_if *ni, const struct nicdev *dev)
{
	uint64_t want = wanted_fields(st->ctx->needed), ifindex;

	snprintf(st->path, sizeof(st->path), "sys/class/net/%s/ifindex", ni->name);
	ni->identity = procfs_read_u64(st->fs, st->path, &ifindex) == 0 ? ifindex
									 : str_hash(ni->name);
	for (unsigned f = 0; f < NP_NFIELDS; f++) {
		ni->pf[f] = NULL;
		if (!(want & BIT(f)))
			continue;
		snprintf(st->path, sizeof(st->path), "%s/%s", dev->dir, attr_names[f]);
		if (procfs_exists(st->fs, st->path))
			ni->pf[f] = procfs_file(st->fs, st->path);
	}
}

/* The interface named name (len bytes, shorter than its name field):
 * found, or inserted in name order. */
static struct np_if *
lookup_if(struct np_state *st, const char *name, size_t len)
{
	int found;
	size_t lo = name_place(st->ifs, st->nifs, sizeof(*st->ifs), offsetof(struct np_if, name),
			       name, &found);
	struct np_if *ni;

	if (found)
		return &st->ifs[lo];
	xgrow((void **)&st->ifs, &st->cap, st->nifs + 1, sizeof(*st->ifs));
	memmove(&st->ifs[lo + 1], &st->ifs[lo], (st->nifs - lo) * sizeof(*st->ifs));
	st->nifs++;
	ni = &st->ifs[lo];
	memset(ni, 0, sizeof(*ni));
	memcpy(ni->name, name, len + 1);
	return ni;
}

/* One entry of sys/class/net: an interface with a device is kept. */
static int
net_entry(const char *name, unsigned char type, void *arg)
{
	struct np_state *st = arg;
	struct nicdev dev;
	size_t len = strlen(name);
	struct np_if *ni;

	if (nicdev_of_entry(st->fs, name, type, sizeof(st->ifs->name), &dev) < 0)
		return 0; /* virtual: no instance */
	ni = lookup_if(st, name, len);
	ni->seen = st->scans;
	probe_if(st, ni, &dev);
	return 0;
}

/* List sys/class/net again: every interface with a device, in name order,
 * the others forgotten. No sys/class/net gives no interfaces. */
static void
discover(struct np_state *st)
{
	size_t j = 0;

	st->scans++;
	st->rescan = 0;
	procfs_list(st->fs, "sys/class/net", net_entry, st);
	for (size_t i = 0; i < st->nifs; i++)
		if (st->ifs[i].seen == st->scans)
			st->ifs[j++] = st->ifs[i];
	st->nifs = j;
}

/* The text of pf this read, or NULL (and a discovery next read) when it
 * was there at discovery but cannot be read now. */
static const char *
attr_read(struct np_state *st, struct pfile *pf)
{
	size_t len;
	const char *text = pfile_read(pf, &len, NULL);

	if (!text)
		st->rescan = 1;
	return text;
}

/* Read one interface's needed attributes into a new instance of out. */
static void
read_if(struct np_state *st, const struct np_if *ni, struct raw_set *out)
{
	uint64_t needed = st->ctx->needed, v, status = NP_RT_ACTIVE;
	struct raw_instance *ri = raw_set_add(out, ni->name, strlen(ni->name), ni->identity);
	const char *text;

	raw_set_in_total(out, ri, 0); /* the set has no _Total */
	if ((needed & BIT(NP_POWER_STATE)) && ni->pf[NP_POWER_STATE] &&
	    (text = attr_read(st, ni->pf[NP_POWER_STATE])) &&
	    nicpower_parse_power_state(text, &v) == 0)
		raw_put(out, ri, NP_POWER_STATE, v);
	if (ni->pf[NP_RUNTIME_STATUS] && (text = attr_read(st, ni->pf[NP_RUNTIME_STATUS])) &&
	    nicpower_parse_runtime_status(text, &status) == 0 &&
	    (needed & BIT(NP_RUNTIME_STATUS)))
		raw_put(out, ri, NP_RUNTIME_STATUS, status);
	/* Without runtime power management the times stay at 0: leave them
	 * out, so both percentages are UNSUPPORTED rather than 0. */
	if (!(needed & TIMES_MASK) || status == NP_RT_UNSUPPORTED)
		return;
	for (unsigned f = NP_SUSPENDED_TIME; f <= NP_ACTIVE_TIME; f++)
		if ((needed & BIT(f)) && ni->pf[f] && (text = attr_read(st, ni->pf[f])) &&
		    nicpower_parse_ms(text, &v) == 0)
			raw_put(out, ri, f, v);
}

/* Prepare; discovery waits for the first read. */
static void *
nicpower_open(const struct provider_ctx *ctx, struct err *err)
{
	struct np_state *st = xcalloc(1, sizeof(*st));

	(void)err;
	st->ctx = ctx;
	st->fs = ctx->fs;
	if (procfs_is_live(ctx->fs))
		(void)nic_link_watch_open(&st->watch);
	return st;
}

/* One read: discover when due, then every interface with a device. */
static int
nicpower_read(void *state, struct raw_set *out, struct err *err)
{
	struct np_state *st = state;

	(void)err;
	/* live, listed again when the links changed (or each second
	 * without notifications): listing sys/class/net was 3.7 ms over 401
	 * interfaces, every sample at a 1 s interval */
	int changed = st->watch.on ? nic_link_watch_changed(&st->watch, st->fs,
							     procfs_generation(st->fs))
				   : now_mono_ns() - st->scanned_ns >= RESCAN_NS;
	if (!procfs_is_live(st->fs) || st->rescan || st->scanned_ns == 0 || changed) {
		discover(st);
		st->scanned_ns = now_mono_ns();
	}
	for (size_t i = 0; i < st->nifs; i++)
		read_if(st, &st->ifs[i], out);
	return 0;
}

/* Free the state (the pfiles belong to the procfs). */
static void
nicpower_close(void *state)
{
	struct np_state *st = state;

	if (!st)
		return;
	nic_link_watch_close(&st->watch);
	free(st->ifs);
	free(st);
}

const struct provider provider_physical_nic_activity = {
	.set = &set,
	.open = nicpower_open,
	.read = nicpower_read,
	.close = nicpower_close,
};
