/*
 * counter.h - counters as data: a counter set is a const table of raw fields
 * and counter descriptors (COUNTERS.md section 1). Providers fill raw fields;
 * derive.c alone turns them into values with these descriptors.
 */
#ifndef GETCOUNTER_COUNTER_H
#define GETCOUNTER_COUNTER_H

#include <stddef.h>
#include <stdint.h>

/* The counter types: the only formulas (COUNTERS.md section 1). */
enum counter_type {
	CT_RAW,             /* N x scale */
	CT_DELTA,           /* dN x scale */
	CT_RATE,            /* dN x scale / dt */
	CT_FRACTION,        /* 100 x N / B */
	CT_SAMPLE_FRACTION, /* 100 x dN / dB */
	CT_AVG_TIMER,       /* dN x scale / dB, seconds per operation */
	CT_AVG_BULK,        /* dN x scale / dB, units per operation */
	CT_TIMER,           /* 100 x dN x scale / dt */
	CT_TIMER_INV,       /* 100 x (1 - dN x scale / dt), clamped to [0, 100] */
	CT_QUEUELEN,        /* dN x scale / dt */
	CT_ELAPSED,         /* t - N x scale */
	CT_UTILIZATION,     /* 100 x max-or-sum(d rx, d tx) x 8 / (dt x bandwidth) */
};

/* Every derived value carries one of these (DESIGN.md "Statuses"). */
enum value_status {
	ST_OK,
	ST_FIRST,       /* no previous read yet, or after a gap */
	ST_NEW,         /* the instance appeared this interval */
	ST_NO_INSTANCE, /* the instance is gone; shown once */
	ST_RESET,       /* went backwards and could not be a wrap */
	ST_WRAPPED,     /* a 32-bit field wrapped; value corrected */
	ST_UNSUPPORTED, /* this machine or source cannot supply it */
	ST_BAD_TIME,    /* dt <= 0 */
};

/* The word a status is shown as ("OK", "NO_INSTANCE", ...). */
const char *status_name(enum value_status st);

/* Nonzero when a value of this type needs two reads. Inline: derive asks
 * it for every value of every sample. */
static inline int
counter_type_needs_two(enum counter_type type)
{
	return type != CT_RAW && type != CT_FRACTION && type != CT_ELAPSED;
}

/* Raw field widths (COUNTERS.md "Width, wrap and reset"). */
enum field_width {
	FW_64,
	FW_32,
	FW_32IN64, /* struct rtnl_link_stats64: may be a 32-bit register */
	FW_ULONG,  /* the kernel's unsigned long: 32 or 64 by word size */
};

/* What a field is, hence what a decrease means. */
enum field_kind {
	FK_COUNTER,   /* cumulative: a decrease is a wrap or a reset */
	FK_GAUGE,     /* an instant value: it may go down freely */
	FK_CPU_TIME,  /* /proc/stat cpu time in T: a decrease clamps to 0 */
	FK_CPU_EXTRA, /* /proc/stat cpu time outside T (guest): clamps */
};

/* The plausible maximum of a wrapped delta (COUNTERS.md section 1). */
enum field_bound {
	FB_NONE,
	FB_DISK_MS,  /* dt x 1000 x (1 + the larger I/Os in progress) */
	FB_IO_TICKS, /* dt x 1000 + 10 */
	FB_IF_BYTES, /* speed (Mbit/s) x 1e6 / 8 x dt x 1.1, when known */
};

/* How --serve exposes a raw field (issue 9): the name is
 * getcounter_<set>_<stem>[_<unit>][_total], "_total" iff the field's kind
 * is not FK_GAUGE; the value is raw x scale (x the raw value of field mul,
 * when set), in base units. */
struct prom_desc {
	const char *stem;  /* "received"; NULL: not exported */
	const char *unit;  /* base unit: "bytes", "seconds", "hertz" or "" */
	double scale;      /* raw -> unit; 0 means 1; PROM_TICKS: / USER_HZ */
	const char *label; /* "mode=user": a label of the field's own, or NULL */
	uint8_t mul;       /* FIELD_REF of a field multiplying the value (the
			    * fragment size of a fragment count), or 0 */
};

#define PROM_TICKS (-1.0)
/* For a field_desc row: its Prometheus stem, unit and scale (and label). */
#define PROM(s, u, k) .prom = { .stem = (s), .unit = (u), .scale = (k) }
#define PROM_L(s, u, k, l) .prom = { .stem = (s), .unit = (u), .scale = (k), .label = (l) }
/* ... a count of units the size of field m (a FIELD_REF) holds. */
#define PROM_M(s, u, m) .prom = { .stem = (s), .unit = (u), .mul = (m) }
#define NO_PROM .prom = { .stem = NULL }

struct field_desc {
	const char *name;
	uint8_t width; /* enum field_width */
	uint8_t kind;  /* enum field_kind */
	uint8_t bound; /* enum field_bound */
	struct prom_desc prom;
};

/* One signed term of a numerator or denominator; sign 0 ends the list. */
struct term {
	uint8_t field;
	int8_t sign;
};

#define COUNTER_MAX_TERMS 8
#define SET_MAX_FIELDS 64

enum total_rule { TOTAL_SUM, TOTAL_MEAN };

/* Totals over groups of instances, formed like _Total (COUNTERS.md 1):
 * GROUP_PARENT   "P/x" instances sum into "P/_Total"   (Interrupt, Softirq)
 * GROUP_CHILD    "x/C" instances sum into "_Total/C"   (Processor Idle State)
 * GROUP_NODE     "N,x" instances sum into "N,_Total"   (Processor Information)
 * An instance whose own part is already "_Total" is in no group. */
enum group_rule { GROUP_NONE, GROUP_PARENT, GROUP_CHILD, GROUP_NODE };

/* Field references that may be absent are stored as index + 1; 0 is none. */
#define FIELD_REF(f) ((uint8_t)((f) + 1))

struct counter_desc {
	/* What a frame asks of every value, together at the start: one line
	 * of each of the 340 a step of every counter reads, where they lay
	 * across two or three (lines a step fetches cost after a sleep) */
	uint8_t type;       /* enum counter_type */
	uint8_t mul;        /* FIELD_REF of a field scaling N and B, or 0 */
	uint8_t mul_num_only; /* the multiplier scales N only (cycles per event) */
	uint8_t total;      /* enum total_rule */
	uint8_t has_zero_base;
	uint8_t clamp100;   /* clamp the value to [0, 100] */
	double scale;       /* raw units -> shown units; 0 means 1 */
	double zero_base;   /* SAMPLE_FRACTION value when dB = 0 */
	struct term num[COUNTER_MAX_TERMS];
	struct term den[COUNTER_MAX_TERMS];
	const char *name; /* exactly the user-visible string */
	/* A total over another set's rows instead of terms: the counter
	 * rows_counter of set rows_set, summed over the rows "ROW/INSTANCE"
	 * whose child part is this instance's name (for _Total: every row
	 * whose child is not _Total), as _Total sums (COUNTERS.md 1). */
	const char *rows_set;
	const char *rows_counter;
	const char *unit;   /* "%", "B/s", "s", "" ... */
	const char *help;   /* one sentence of our own */
};

struct counter_set {
	const char *name;  /* "PhysicalDisk" */
	const char *alias; /* a second name the set answers to, or NULL */
	const char *help;
	uint8_t multi_instance;
	uint8_t has_total; /* derive adds a _Total instance */
	uint8_t group;     /* enum group_rule: per-group totals */
	const struct field_desc *fields;
	size_t nfields;
	const struct counter_desc *counters;
	size_t ncounters;
	uint8_t inflight_field; /* FIELD_REF for FB_DISK_MS, or 0 */
	uint8_t speed_field;    /* FIELD_REF (Mbit/s) for FB_IF_BYTES, or 0 */
	uint8_t duplex_field;   /* FIELD_REF (1 = full) for UTILIZATION, or 0 */
	/* --serve: the Prometheus labels of an instance name, split at '/'
	 * ("device", "irq/cpu"), then after ';' one label whose value the
	 * provider's label_value gives ("mountpoint;device"); NULL for a
	 * single-instance set. A multi-instance set without labels is not
	 * exported. */
	const char *prom_labels;
	/* an instance a wildcard never matches, only a path naming it
	 * (Network Capture's "any": every interface again), or NULL */
	const char *named_only;
};

/* The counter named name in set (case-insensitive), or NULL. */
const struct counter_desc *counter_set_find(const struct counter_set *set, const char *name);

/* Bit mask of the fields counter c reads (num, den, mul). */
uint64_t counter_fields(const struct counter_desc *c);

#endif
