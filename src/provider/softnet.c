/*
 * softnet.c - the Per Processor Network Activity set (COUNTERS.md section
 * 6): one instance per row of /proc/net/softnet_stat (one per online CPU),
 * named by its CPU ("0", "3"), and _Total from derive. The receive path's
 * per-CPU counters come from softnet_stat's hex columns; NET_RX and NET_TX
 * softirq counts from /proc/softirqs (shared with the Softirq set), matched
 * by CPU number through that file's header.
 *
 * softnet_stat grew with the kernel: 9 columns, 10 with received_rps
 * (2.6.35), 11 with flow_limit_count (3.11), 13 with the backlog length and
 * the CPU id (5.10), 15 with the queue lengths (6.x). Column 13, where
 * present, names the row's CPU (the kernel skips offline CPUs); before it,
 * row k is the k-th CPU of sys/devices/system/cpu/online read in the same
 * sample, or CPU k when that file is missing. A column a row lacks is not
 * put, so its counters are UNSUPPORTED.
 *
 * The kernel prints column 13 as (int)seq->index: the CPU number, below
 * nr_cpu_ids, rows in ascending CPU order. A value that cannot be that
 * (ffffffff, anything above CPUINFO_MAX_CPU, or not above the previous
 * row's CPU) names no CPU, but the row is still the counts of an online
 * CPU: it is not skipped (its packets stay in _Total) but placed by its
 * position, as before 5.10 (the k-th online CPU; without the list, CPU k),
 * and never at or below the previous row's CPU, so names stay unique.
 *
 * softnet_stat is read on every sample, whatever is requested: it is the
 * list of instances (and short). /proc/softirqs only when NET_RX or NET_TX
 * is needed. Also home of the softnet_stat and CPU list parsers
 * (include/interrupts.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpuinfo.h"
#include "interrupts.h"
#include "netcycles.h"
#include "provider.h"

enum {
	F_PROCESSED,
	F_DROPPED,
	F_TIME_SQUEEZE,
	F_RECEIVED_RPS,
	F_FLOW_LIMIT_COUNT,
	F_BACKLOG_LEN,
	F_NET_RX,
	F_NET_TX,
	/* eBPF (COUNTERS.md section 10; include/netcycles.h) */
	F_NET_RX_NS,
	F_NET_TX_NS,
	F_NET_RX_LATENCY_NS,
	F_NET_RX_LATENCIES,
	F_NAPI_POLLS,
	F_NAPI_WORK,
	F_NAPI_FULL,
	F_FREQ_HZ,
	F_NFIELDS,
};

#define BIT(f) ((uint64_t)1 << (f))

static const struct field_desc fields[F_NFIELDS] = {
	/* Every softnet_stat column and softirq count is 32 bits wide. */
	[F_PROCESSED] = { "processed", FW_32, FK_COUNTER, FB_NONE,
			  PROM("processed_packets", "", 0) },
	[F_DROPPED] = { "dropped", FW_32, FK_COUNTER, FB_NONE, PROM("dropped_packets", "", 0) },
	[F_TIME_SQUEEZE] = { "time_squeeze", FW_32, FK_COUNTER, FB_NONE,
			     PROM("time_squeezes", "", 0) },
	[F_RECEIVED_RPS] = { "received_rps", FW_32, FK_COUNTER, FB_NONE,
			     PROM("received_rps_ipis", "", 0) },
	[F_FLOW_LIMIT_COUNT] = { "flow_limit_count", FW_32, FK_COUNTER, FB_NONE,
				 PROM("flow_limit_drops", "", 0) },
	[F_BACKLOG_LEN] = { "backlog_len", FW_32, FK_GAUGE, FB_NONE,
			    PROM("backlog_length", "", 0) },
	[F_NET_RX] = { "NET_RX", FW_32, FK_COUNTER, FB_NONE, PROM("net_rx_softirqs", "", 0) },
	[F_NET_TX] = { "NET_TX", FW_32, FK_COUNTER, FB_NONE, PROM("net_tx_softirqs", "", 0) },
	/* the eBPF fields are not served to Prometheus: serving them would
	 * attach the programs for every scrape (NO_PROM) */
	[F_NET_RX_NS] = { "net_rx_ns", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_NET_TX_NS] = { "net_tx_ns", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_NET_RX_LATENCY_NS] = { "net_rx_latency_ns", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_NET_RX_LATENCIES] = { "net_rx_latencies", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_NAPI_POLLS] = { "napi_polls", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_NAPI_WORK] = { "napi_work", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_NAPI_FULL] = { "napi_full", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_FREQ_HZ] = { "freq_hz", FW_64, FK_GAUGE, FB_NONE, NO_PROM },
};

/* The fields only the eBPF programs supply. */
#define BPF_FIELDS                                                                    \
	(BIT(F_NET_RX_NS) | BIT(F_NET_TX_NS) | BIT(F_NET_RX_LATENCY_NS) |              \
	 BIT(F_NET_RX_LATENCIES) | BIT(F_NAPI_POLLS) | BIT(F_NAPI_WORK) | BIT(F_NAPI_FULL) | \
	 BIT(F_FREQ_HZ))

/* The softnet_stat column behind each of its fields. */
static const struct {
	uint8_t column;
	uint8_t field;
} softnet_fields[] = {
	{ SOFTNET_PROCESSED, F_PROCESSED },
	{ SOFTNET_DROPPED, F_DROPPED },
	{ SOFTNET_TIME_SQUEEZE, F_TIME_SQUEEZE },
	{ SOFTNET_RECEIVED_RPS, F_RECEIVED_RPS },
	{ SOFTNET_FLOW_LIMIT_COUNT, F_FLOW_LIMIT_COUNT },
	{ SOFTNET_BACKLOG_LEN, F_BACKLOG_LEN },
};

static const struct counter_desc counters[] = {
	{
		.name = "Received Packets/sec",
		.type = CT_RATE,
		.num = { { F_PROCESSED, 1 } },
		.unit = "/s",
		.help = "Packets this processor handed to the network stack per second "
			"(after GRO merged them, so not wire packets).",
	},
	{
		.name = "Receive Indications/sec",
		.type = CT_RATE,
		.num = { { F_NET_RX, 1 } },
		.unit = "/s",
		.help = "Receive softirqs (NET_RX) this processor ran per second.",
	},
	{
		.name = "Avg. Packets per Indication",
		.type = CT_AVG_BULK,
		.num = { { F_PROCESSED, 1 } },
		.den = { { F_NET_RX, 1 } },
		.unit = "",
		.help = "Packets handled per receive softirq over the interval: the batch "
			"size of the receive path.",
	},
	{
		.name = "Send Softirqs/sec",
		.type = CT_RATE,
		.num = { { F_NET_TX, 1 } },
		.unit = "/s",
		.help = "Transmit softirqs (NET_TX) this processor ran per second.",
	},
	{
		.name = "Dropped Packets/sec",
		.type = CT_RATE,
		.num = { { F_DROPPED, 1 } },
		.unit = "/s",
		.help = "Packets dropped per second because this processor's input "
			"backlog was full.",
	},
	{
		.name = "DPCs Deferred/sec",
		.type = CT_RATE,
		.num = { { F_TIME_SQUEEZE, 1 } },
		.unit = "/s",
		.help = "Times per second the receive softirq ran out of budget or time "
			"and left work for later (time_squeeze).",
	},
	{
		.name = "DPCs Queued on Other CPUs/sec",
		.type = CT_RATE,
		.num = { { F_RECEIVED_RPS, 1 } },
		.unit = "/s",
		.help = "Wake-ups per second that other processors sent this one to process "
			"packets they steered to it (RPS).",
	},
	{
		.name = "Flow Limit Drops/sec",
		.type = CT_RATE,
		.num = { { F_FLOW_LIMIT_COUNT, 1 } },
		.unit = "/s",
		.help = "Packets dropped per second by the per-flow limit of the input "
			"backlog.",
	},
	{
		.name = "Backlog Length",
		.type = CT_RAW,
		.num = { { F_BACKLOG_LEN, 1 } },
		.unit = "",
		.help = "Packets waiting in this processor's input backlog when read.",
	},
	{
		.name = "% NET_RX Time",
		.type = CT_TIMER,
		.num = { { F_NET_RX_NS, 1 } },
		.scale = 1e-9,
		.total = TOTAL_MEAN,
		.unit = "%",
		.help = "Share of the interval this processor spent in the receive softirq "
			"(NET_RX; eBPF, softirq_entry to softirq_exit).",
	},
	{
		.name = "% NET_TX Time",
		.type = CT_TIMER,
		.num = { { F_NET_TX_NS, 1 } },
		.scale = 1e-9,
		.total = TOTAL_MEAN,
		.unit = "%",
		.help = "Share of the interval this processor spent in the transmit softirq "
			"(NET_TX; eBPF).",
	},
	{
		.name = "Interrupt DPC Cycles/sec",
		.type = CT_RATE,
		.num = { { F_NET_RX_NS, 1 } },
		.mul = FIELD_REF(F_FREQ_HZ),
		.scale = 1e-9,
		.unit = "/s",
		.help = "Nominal processor cycles per second in the receive softirq (its "
			"time x the processor's nominal frequency; eBPF).",
	},
	{
		.name = "Interrupt DPC Latency",
		.type = CT_AVG_TIMER,
		.num = { { F_NET_RX_LATENCY_NS, 1 } },
		.den = { { F_NET_RX_LATENCIES, 1 } },
		.scale = 1e-9,
		.unit = "s",
		.help = "Mean time from the receive softirq being raised to it running on "
			"this processor (eBPF, softirq_raise to softirq_entry).",
	},
	{
		.name = "NAPI Polls/sec",
		.type = CT_RATE,
		.num = { { F_NAPI_POLLS, 1 } },
		.unit = "/s",
		.help = "NAPI polls (a driver's or the backlog's) this processor ran per "
			"second (eBPF, napi_poll).",
	},
	{
		.name = "Avg. Packets per Poll",
		.type = CT_AVG_BULK,
		.num = { { F_NAPI_WORK, 1 } },
		.den = { { F_NAPI_POLLS, 1 } },
		.unit = "",
		.help = "Packets handled per NAPI poll over the interval (eBPF).",
	},
	{
		.name = "Polls at Full Budget/sec",
		.type = CT_RATE,
		.num = { { F_NAPI_FULL, 1 } },
		.unit = "/s",
		.help = "NAPI polls per second that used their whole budget: the processor "
			"could not keep up with the packets (eBPF).",
	},
};

static const struct counter_set softnet_set = {
	.name = "Per Processor Network Activity",
	.help = "The receive path of each processor: packets, receive and transmit "
		"softirqs, drops and squeezes, from softnet_stat and /proc/softirqs; time "
		"in the softirqs, their latency and NAPI polls from eBPF.",
	.multi_instance = 1,
	.has_total = 1,
	.fields = fields,
	.nfields = F_NFIELDS,
	.counters = counters,
	.ncounters = ARRAY_SIZE(counters),
	.prom_labels = "cpu",
};

int
softnet_row_next(const char **pp, const char *end, struct softnet_row *row)
{
	const char *p = *pp;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		row->ncols = 0;
		while (p < eol) {
			uint64_t v = 0;
			const char *t;
			int d;

			while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
				p++;
			for (t = p; p < eol && (d = hex_digit(*p)) >= 0; p++)
				v = v > (UINT64_MAX >> 4) ? UINT64_MAX : (v << 4) | (uint64_t)d;
			if (p == t || (p < eol && *p != ' ' && *p != '\t' && *p != '\r'))
				break;
			if (row->ncols < SOFTNET_MAX_COLUMNS)
				row->v[row->ncols++] = v;
		}
		p = eol < end ? eol + 1 : end;
		if (row->ncols > 0) {
			*pp = p;
			return 1;
		}
	}
	*pp = end;
	return 0;
}

/* Parse a decimal at it->p into *v; 0, or -1 with no digit. */
static int
cpulist_number(struct softnet_cpulist *it, unsigned *v)
{
	uint64_t n = 0;
	const char *t = it->p;

	while (*it->p >= '0' && *it->p <= '9') {
		n = n * 10 + (uint64_t)(*it->p - '0');
		if (n > 0xFFFFFFFFu)
			return -1;
		it->p++;
	}
	*v = (unsigned)n;
	return it->p == t ? -1 : 0;
}

void
softnet_cpulist_begin(struct softnet_cpulist *it, const char *list)
{
	it->p = list;
	it->in_range = 0;
	it->next = it->last = 0;
}

int
softnet_cpulist_next(struct softnet_cpulist *it, unsigned *cpu)
{
	if (!it->in_range) {
		unsigned a, b;

		while (*it->p == ' ' || *it->p == ',')
			it->p++;
		if (cpulist_number(it, &a) < 0)
			return 0;
		b = a;
		if (*it->p == '-') {
			it->p++;
			if (cpulist_number(it, &b) < 0 || b < a)
				return 0;
		}
		it->next = a;
		it->last = b;
		it->in_range = 1;
	}
	*cpu = it->next;
	if (it->next == it->last)
		it->in_range = 0;
	else
		it->next++;
	return 1;
}

struct softnet_state {
	struct pfile *softnet;
	struct pfile *softirqs; /* NULL when neither NET_RX nor NET_TX is needed */
	struct pfile *online;
	unsigned *cpus;         /* /proc/softirqs header: CPU of each column */
	size_t cpus_cap;
	uint64_t *vals, *rx, *tx; /* a row's counts; NET_RX's and NET_TX's */
	size_t vals_cap, rx_cap, tx_cap;
	size_t ncols, nrx, ntx; /* columns; cells of NET_RX and NET_TX (0: none) */
	int bpf;                /* netcycles acquired (a BPF field is needed) */
	int bpf_loaded;
};

/* Open: softnet_stat always (the instances), softirqs when needed, the
 * eBPF programs when needed and not a listing (-l, -q: nothing loads). */
static void *
softnet_open_request(const struct provider_ctx *ctx, const struct provider_request *req,
		     struct err *err)
{
	struct softnet_state *st = xcalloc(1, sizeof(*st));

	(void)err;
	st->softnet = procfs_file(ctx->fs, "proc/net/softnet_stat");
	st->online = procfs_file(ctx->fs, "sys/devices/system/cpu/online");
	if (ctx->needed & (BIT(F_NET_RX) | BIT(F_NET_TX)))
		st->softirqs = interrupts_file(ctx->fs, "proc/softirqs");
	if ((ctx->needed & BPF_FIELDS) && !(req && req->listing)) {
		unsigned hooks = 0;
		if (ctx->needed & (BIT(F_NET_RX_NS) | BIT(F_NET_TX_NS)))
			hooks |= NC_HOOK_SOFTIRQ;
		if (ctx->needed & (BIT(F_NET_RX_LATENCY_NS) | BIT(F_NET_RX_LATENCIES)))
			hooks |= NC_HOOK_RAISE;
		if (ctx->needed & (BIT(F_NAPI_POLLS) | BIT(F_NAPI_WORK) | BIT(F_NAPI_FULL)))
			hooks |= NC_HOOK_NAPI;
		st->bpf = 1;
		st->bpf_loaded = netcycles_acquire(ctx->fs, hooks) == 0;
	}
	return st;
}

static void *
softnet_open(const struct provider_ctx *ctx, struct err *err)
{
	return softnet_open_request(ctx, NULL, err);
}

/* Parse /proc/softirqs' header and NET_RX and NET_TX rows into the state;
 * a missing file leaves nrx = ntx = 0. */
static void
read_net_softirqs(struct softnet_state *st)
{
	struct interrupts_row row;
	const char *buf, *p, *end;
	size_t len, n;

	st->ncols = st->nrx = st->ntx = 0;
	if (!st->softirqs || !(buf = pfile_read(st->softirqs, &len, NULL)))
		return;
	p = buf;
	end = buf + len;
	n = interrupts_header(&p, end, st->cpus, st->cpus_cap);
	if (n > st->cpus_cap || n > st->vals_cap || n > st->rx_cap || n > st->tx_cap) {
		xgrow((void **)&st->cpus, &st->cpus_cap, n, sizeof(*st->cpus));
		xgrow((void **)&st->vals, &st->vals_cap, n, sizeof(*st->vals));
		xgrow((void **)&st->rx, &st->rx_cap, n, sizeof(*st->rx));
		xgrow((void **)&st->tx, &st->tx_cap, n, sizeof(*st->tx));
		p = buf;
		interrupts_header(&p, end, st->cpus, st->cpus_cap);
	}
	st->ncols = n;
	while ((!st->nrx || !st->ntx) && interrupts_row_next(&p, end, st->vals, n, &row)) {
		if (row.name_len != 6 || memcmp(row.name, "NET_", 4) != 0)
			continue;
		if (memcmp(row.name + 4, "RX", 2) == 0) {
			memcpy(st->rx, st->vals, row.ncells * sizeof(*st->rx));
			st->nrx = row.ncells;
		} else if (memcmp(row.name + 4, "TX", 2) == 0) {
			memcpy(st->tx, st->vals, row.ncells * sizeof(*st->tx));
			st->ntx = row.ncells;
		}
	}
}

/* The online CPU list of one read, walked as rows need it. */
struct online_walk {
	struct softnet_cpulist it;
	int state;    /* -1: not read yet; 0: none or ended; 1: walking */
	size_t taken; /* entries taken from the list */
	unsigned cpu; /* the last entry taken */
};

/* The k-th CPU (0-based; k never decreases from call to call) of the
 * online list into *cpu: 0, or -1 without the list or past its end. The
 * file is read at the first call of a read. */
static int
online_nth(struct pfile *online, struct online_walk *w, size_t k, unsigned *cpu)
{
	if (w->state < 0) {
		size_t len;
		const char *list = pfile_read(online, &len, NULL);

		w->state = list != NULL;
		if (list)
			softnet_cpulist_begin(&w->it, list);
	}
	while (w->state > 0 && w->taken <= k) {
		if (!softnet_cpulist_next(&w->it, &w->cpu) || w->cpu > CPUINFO_MAX_CPU)
			w->state = 0;
		else
			w->taken++;
	}
	if (w->taken <= k)
		return -1;
	*cpu = w->cpu;
	return 0;
}

/* CPU cpu's eBPF counts into ri (none when it has none). */
static void
put_bpf_fields(struct raw_set *rs, struct raw_instance *ri, unsigned cpu)
{
	const struct nc_cpu *c = netcycles_cpu(cpu);
	uint64_t hz;

	if (!c)
		return;
	raw_put(rs, ri, F_NET_RX_NS, c->net_rx_ns);
	raw_put(rs, ri, F_NET_TX_NS, c->net_tx_ns);
	raw_put(rs, ri, F_NET_RX_LATENCY_NS, c->net_rx_latency_ns);
	raw_put(rs, ri, F_NET_RX_LATENCIES, c->net_rx_latencies);
	raw_put(rs, ri, F_NAPI_POLLS, c->napi_polls);
	raw_put(rs, ri, F_NAPI_WORK, c->napi_work);
	raw_put(rs, ri, F_NAPI_FULL, c->napi_full);
	if (netcycles_freq_hz(cpu, &hz) == 0)
		raw_put(rs, ri, F_FREQ_HZ, hz);
}

/* Read: one instance per softnet_stat row, named by its CPU. */
static int
softnet_read(void *state, struct raw_set *out, struct err *err)
{
	struct softnet_state *st = state;
	struct online_walk online = { .state = -1 };
	struct softnet_row row;
	const char *buf, *p, *end;
	unsigned cpu = 0;
	size_t len;

	buf = pfile_read(st->softnet, &len, err);
	if (!buf)
		return errno == ENOENT ? 0 : -1;
	read_net_softirqs(st);
	p = buf;
	end = buf + len;
	for (size_t k = 0; softnet_row_next(&p, end, &row); k++) {
		unsigned prev = cpu;
		uint64_t id = row.ncols >= SOFTNET_CPU ? row.v[SOFTNET_CPU - 1] : UINT64_MAX;
		struct raw_instance *ri;
		char name[FMT_UINT_MAX];
		size_t col;

		/* Column 13 when it can be a CPU (see the top of this file),
		 * else the row's position: the k-th online CPU; without it,
		 * or when that is not above the previous row's CPU, the next
		 * CPU (CPU k when every row so far was placed so). */
		if (id <= CPUINFO_MAX_CPU && (k == 0 || id > prev))
			cpu = (unsigned)id;
		else if (online_nth(st->online, &online, k, &cpu) < 0 || (k && cpu <= prev))
			cpu = k ? prev + 1 : 0;
		ri = raw_set_add(out, name, fmt_uint(name, cpu), 0);
		for (size_t f = 0; f < ARRAY_SIZE(softnet_fields); f++)
			if (row.ncols >= softnet_fields[f].column)
				raw_put(out, ri, softnet_fields[f].field,
					row.v[softnet_fields[f].column - 1]);
		col = interrupts_column_of(st->cpus, st->ncols, cpu);
		/* a softirq count that does not parse is absent, never 0 */
		if (col < st->nrx && st->rx[col] != INTERRUPTS_NO_COUNT)
			raw_put(out, ri, F_NET_RX, st->rx[col]);
		if (col < st->ntx && st->tx[col] != INTERRUPTS_NO_COUNT)
			raw_put(out, ri, F_NET_TX, st->tx[col]);
		if (st->bpf_loaded)
			put_bpf_fields(out, ri, cpu);
	}
	return 0;
}

static void
softnet_close(void *state)
{
	struct softnet_state *st = state;

	free(st->cpus);
	free(st->vals);
	free(st->rx);
	free(st->tx);
	if (st->bpf)
		netcycles_release();
	free(st);
}

static const char *
softnet_notice(void *state)
{
	(void)state;
	return netcycles_notice();
}

const struct provider provider_per_processor_network_activity = {
	.set = &softnet_set,
	.open = softnet_open,
	.open_request = softnet_open_request,
	.read = softnet_read,
	.close = softnet_close,
	.notice = softnet_notice,
};
