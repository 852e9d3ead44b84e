/*
 * engine.c - one source to the outputs. Resolves the counter paths against
 * the provider table, opens only the providers whose sets are asked for
 * (each told which fields it must read), reads on absolute monotonic
 * deadlines, pairs each instance with its previous read, derives the frame
 * and hands it to the output.
 *
 * Per read, in steady state, nothing is allocated: raw sets are reused and
 * swapped, and the rows of each counter path (their formatted paths and
 * matched instances) are rebuilt only when a set's instance list changes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio_ext.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "derive.h"
#include "engine.h"
#include "gclog.h"
#include "path.h"
#include "provider.h"
#include "replay.h"

/* A group total: its name and its members: cur indices members[first ..
 * first + n), or, when the set's members is NULL, first .. first + n. */
struct group {
	char *name; /* "NMI/_Total" */
	uint32_t first, n;
};

/* prev_of[i] of an instance that has no previous read */
#define NO_PREV DERIVE_NO_PREV

/* One requested counter set and its two reads. */
struct eset {
	const struct provider *prov;
	void *state;
	struct provider_ctx ctx;
	struct provider_ctx *pctx; /* owned: the ctx the state was opened with */
	struct eset *adopted; /* engine_reopen: the old engine's set whose state this is */
	struct raw_set a, b;
	struct raw_set *cur, *prev;
	struct strset names; /* both reads' instance names (raw_sets_compact_names) */
	int names_shown; /* a "*" shows every instance: the names are e->names' (the
			  * columns'), kept once, never compacted */
	int have_prev;
	int changed;     /* the instance list differs from the previous read */
	int list_moved;  /* a merged replay: cur's list differs from the last frame's,
			  * though perhaps not from its own input's previous read */
	uint64_t list_gen; /* counts the changes of the instance list (items built
			    * on an older one are built again) */
	int unsettled;   /* the list changed since the arrays were last fitted */
	double dt;
	size_t cap;      /* of delta_st */
	uint8_t *delta_st;    /* per cur instance: derive_deltas' status */
	int prev_same;   /* the list is prev's: cur instance i is prev's i */
	uint32_t *prev_of; /* otherwise cur index -> prev index, NO_PREV for none
			    * (kept while the list is unsettled, freed after) */
	size_t prev_cap;
	struct delta_store ds; /* the deltas, as derive forms them */
	size_t gone_cap, ngone;
	uint32_t *gone;  /* prev indices absent now */
	/* group totals (set->group): rebuilt when the list changes */
	size_t ngroups, groups_cap;
	struct group *groups;
	uint32_t *members; /* every group's members (cur indices), group after group;
			    * NULL when each group is a range of instances */
	size_t members_cap;
	struct err read_err;
	int read_failed_reported;
	int absent;      /* a replayed read that does not hold this set */
	int gap_kind;    /* a replayed gap: 1 a break, 2 its source's first read */
	size_t source;   /* a replayed read's source (replay_read) */
	size_t nsources; /* a relog writes a set for each source */
	size_t cat;      /* its index in the catalogue */
	const char **patterns; /* the instance patterns asked of it (ctx) */
	/* cur's instances by name, for the items that name one instance
	 * (item_build): fold_hash << 32 | index, sorted; made once a list
	 * (by_name_gen) and only for a set of many instances */
	uint64_t *by_name;
	size_t by_name_cap, nby_name;
	uint64_t by_name_gen;
	int by_name_made;
};

enum ref_kind { REF_CUR, REF_GONE, REF_MISSING, REF_TOTAL, REF_GROUP, REF_SINGLE };

/* A run of an item's rows: n rows of one kind whose instances (cur or prev
 * indices) and columns both count up from idx and column. A wildcard's
 * rows are mostly one run. Each row's instance is its column's
 * (col_instance). */
struct row_ref {
	uint32_t idx;     /* the first row's instance (cur or prev) or group */
	uint32_t column;  /* the first row's column */
	uint32_t n;
	uint8_t kind;     /* enum ref_kind */
	uint8_t joins;    /* its first column follows the ref before's last */
};

/* A rows counter's rows of one ref: the runs item->rows[first .. first + n). */
struct ref_rows {
	uint32_t first, n;
};

/* One counter of one set with an instance pattern, from a path: what each
 * frame reads first, then what set-up and rebuilds do. */
struct item {
	struct eset *es;
	const struct counter_desc *c;
	struct row_ref *refs; /* the rows, in runs */
	/* a counter totalling another set's rows (counter_desc.rows_set) */
	struct eset *rows_es;
	uint64_t basis;   /* es->list_gen it was built on */
	uint64_t rows_basis; /* rows_es->list_gen its rows were listed on */
	uint32_t nrefs;   /* rows */
	uint32_t nruns;
	uint8_t built;
	uint8_t has_gone;
	/* its counter's terms over the reads' layouts, kept from frame to
	 * frame. Every item has its own: a single-instance set's items once
	 * shared one, each forming its terms again in every frame, which
	 * cost 1-2 % of a sample of every counter after a 10 ms sleep. */
	struct derive_plan plan;
	uint64_t need;    /* the fields its value is formed from (counter_fields) */
	size_t cap;       /* of refs */
	char *pattern; /* NULL for a single-instance set */
	char *path;       /* a copy of the path it came from */
	uint32_t sc;      /* the id of "Set\\Counter" in e->setctr: with the
			   * instance's, the key of its rows' columns */
	size_t path_index; /* which path: items of one path share it */
	int wildcard;
	int want_total;
	const struct counter_desc *rows_c;
	struct ref_rows *ref_rows; /* per ref, rows items only */
	size_t ref_rows_cap;
	struct idx_run *rows; /* rows_es cur indices, ref after ref, in runs
			       * (a CPU's IRQ rows are one: 256 rows, 12 bytes) */
	size_t nrows, rows_cap; /* runs */
	int rows_open;    /* the last run may take the next row (same ref) */
};

/* A column's --smooth average. */
struct smooth_cell {
	double avg;
	uint8_t on; /* avg holds a value */
};

struct engine {
	const struct config *cfg;
	char host[256];
	struct procfs *fs;       /* NULL for a replay */
	struct replay *replay;   /* --input, else NULL */
	/* the sets paths resolve against: providers[], or the logs' */
	const struct provider *const *catalog;
	size_t ncatalog;
	const struct provider **catalog_own;
	const char *const *paths; /* as given (or the defaults) */
	size_t npaths;
	char **own_paths;         /* a replay's "every set" paths */
	size_t nown_paths;
	/* recording (-f gcl, --log) */
	struct gclog_writer *log;
	int log_only;            /* the log is the only output */
	int log_stopped;
	int log_started;
	/* -y: the log is written under log_tmp, to take log_final's place
	 * once its first record is in (engine_log_replace) */
	char *log_tmp, *log_final;
	int absent_rows;         /* a replay shows absent sets' rows, blank */
	uint64_t *log_mono;
	const struct raw_set **log_sets; /* per log set its read, then its previous one */
	size_t *log_index; /* eset -> the writer's set */
	size_t nlog;       /* the writer's sets */
	size_t nsets;
	struct eset *sets;
	size_t nitems;
	struct item *items;
	/* The same path has the same column all run long: a column is the id
	 * of (set and counter, instance). Paths are formed only when an
	 * output prints them (frame_row_path), never stored. */
	struct idmap cols;
	int cols_unsettled;   /* columns came since cols and names were fitted */
	struct strset setctr; /* "Set\\Counter" of every item */
	struct frame_counter *counters; /* setctr id -> set, counter */
	size_t counters_cap;
	struct strset names;  /* every instance name a row has shown (rows borrow it) */
	struct frame_columns fcols; /* what the frame's columns stand for */
	int sources_opened;         /* engine_sources_opened ran */
	char notice[256];           /* the first note of a set it opened */
	struct smooth_cell *smooth; /* --smooth: per column */
	size_t smooth_cap;
	/* the frame's rows: runs of their columns, the values (8 bytes a
	 * row) of the runs that are not uniform, and the statuses of those
	 * that are not one status (a byte a row) */
	size_t nrows;
	size_t nvals, vals_cap;
	size_t nsts, sts_cap;
	struct frame_run *runs;
	size_t nruns, runs_cap;
	double *row_val;
	uint8_t *row_st;
	uint32_t user_hz;
	uint8_t ulong_bits;
	/* --root series clock */
	int64_t uptime_ns_prev, uptime_ns_cur;
	int uptime_prev_ok, uptime_cur_ok;
	uint64_t series_ns;
	int64_t series_step;
	int series_started;
	/* the boot id (COUNTERS.md 1: a new one is a gap) */
	char boot_id[64];
	int boot_changed;   /* this read found a new boot id */
	int have_clock;
	int64_t clock_off;  /* wall - monotonic at the last read (live) */
	int64_t wall_ns;
	uint64_t skipped;
	/* of the skips: those whose read was woken only after the next
	 * deadline had passed (the system ran the process late) and the
	 * most it was late; the others' longest read (wake to output) */
	uint64_t skipped_late;
	uint64_t late_max_ns;
	uint64_t overrun_max_ns;
	int sets_primed;
	uint64_t nframes;
	struct frame frame;
	const char *resolving;  /* the path resolve_path is on */
	size_t npaths_resolved; /* its index */
	struct engine *donor;   /* engine_reopen: the engine whose open sets it takes */
	int fs_borrowed;        /* fs is the donor's until the reopen succeeds */
};

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

void
engine_hostname(const struct config *cfg, char *buf, size_t n)
{
	if (cfg->nroots) {
		struct procfs *fs = procfs_new((const char *const *)cfg->roots, 1);
		long got = -1;
		if (procfs_begin_read(fs, 0, NULL) == 0)
			got = procfs_read_small(fs, "proc/sys/kernel/hostname", buf, n);
		procfs_free(fs);
		if (got > 0)
			return;
	}
	if (gethostname(buf, n) < 0 || buf[0] == '\0')
		snprintf(buf, n, "localhost");
	buf[n - 1] = '\0';
}

/* Put the sets in the catalogue's order, whatever the paths' order: a
 * file two sets read is read by the first in one pass the second is handed
 * (pfile_tap: PhysicalDisk's of /proc/diskstats, for LogicalDisk). The
 * new place of the set that was at each place; the caller frees it. */
static size_t *
sets_in_catalog_order(struct engine *e)
{
	size_t *moved = xcalloc(e->nsets ? e->nsets : 1, sizeof(*moved));
	size_t *at = xcalloc(e->nsets ? e->nsets : 1, sizeof(*at));
	struct eset *sorted = xcalloc(e->nsets ? e->nsets : 1, sizeof(*sorted));
	size_t n = 0;

	for (size_t s = 0; s < e->nsets; s++) {
		at[s] = e->ncatalog; /* a set of no catalogue: last */
		for (size_t k = 0; k < e->ncatalog; k++)
			if (e->catalog[k] == e->sets[s].prov)
				at[s] = k;
	}
	for (size_t c = 0; c <= e->ncatalog; c++)
		for (size_t s = 0; s < e->nsets; s++)
			if (at[s] == c) {
				moved[s] = n;
				sorted[n++] = e->sets[s];
			}
	memcpy(e->sets, sorted, e->nsets * sizeof(*sorted));
	free(sorted);
	free(at);
	return moved;
}

/* ---- resolving paths ---------------------------------------------------- */

static struct eset *
eset_for(struct engine *e, const struct provider *prov)
{
	for (size_t i = 0; i < e->nsets; i++)
		if (e->sets[i].prov == prov)
			return &e->sets[i];
	e->sets = xrealloc(e->sets, (e->nsets + 1) * sizeof(*e->sets));
	struct eset *es = &e->sets[e->nsets++];
	memset(es, 0, sizeof(*es));
	es->prov = prov;
	return es;
}

/* The catalogue's provider of the set named name (or its alias), or NULL. */
static const struct provider *
catalog_find(const struct engine *e, const char *name)
{
	for (size_t i = 0; i < e->ncatalog; i++) {
		const struct counter_set *s = e->catalog[i]->set;
		if (strcasecmp(s->name, name) == 0 || (s->alias && strcasecmp(s->alias, name) == 0))
			return e->catalog[i];
	}
	return NULL;
}

static int
has_wildcard(const char *s)
{
	return strchr(s, '*') != NULL;
}

static void
add_item(struct engine *e, const struct provider *prov, const struct counter_desc *c,
	 const char *instance)
{
	struct item *it;

	e->items = xrealloc(e->items, (e->nitems + 1) * sizeof(*e->items));
	it = &e->items[e->nitems++];
	memset(it, 0, sizeof(*it));
	/* the eset array may move: store its index, fixed up after resolving */
	it->es = (struct eset *)(uintptr_t)(eset_for(e, prov) - e->sets);
	it->c = c;
	it->need = counter_fields(c);
	it->path = xstrdup(e->resolving);
	char sc[512];
	snprintf(sc, sizeof(sc), "%s\\%s", prov->set->name, c->name);
	it->sc = strset_add(&e->setctr, sc, NULL);
	xgrow((void **)&e->counters, &e->counters_cap, it->sc + 1, sizeof(*e->counters));
	e->counters[it->sc] = (struct frame_counter){ prov->set, c };
	it->path_index = e->npaths_resolved;
	if (c->rows_set) {
		const struct provider *rp = catalog_find(e, c->rows_set);
		/* a table error, caught by test_engine: every rows_set exists */
		if (rp) {
			it->rows_es = (struct eset *)(uintptr_t)(eset_for(e, rp) - e->sets + 1);
			it->rows_c = counter_set_find(rp->set, c->rows_counter);
		}
	}
	if (prov->set->multi_instance) {
		it->pattern = xstrdup(instance);
		it->wildcard = has_wildcard(instance);
		it->want_total = prov->set->has_total && glob_match_ci(instance, "_Total");
	}
}

/* Resolve one path into items; 0, or -1 with err (a usage error). */
static int
resolve_path(struct engine *e, const char *text, struct err *err)
{
	struct counter_path p;
	size_t before = e->nitems;
	int any_set = 0;

	if (path_parse(text, &p, err) < 0)
		return -1;
	e->resolving = text;
	if (p.host && !path_host_is_local(p.host, e->host)) {
		err_set(err, "'%s' names host '%s': getcounter reads this machine only (%s, '.' "
			     "or localhost)", text, p.host, e->host);
		path_free(&p);
		return -1;
	}
	for (size_t i = 0; i < e->ncatalog; i++) {
		const struct counter_set *s = e->catalog[i]->set;
		if (!glob_match_ci(p.set, s->name) && !(s->alias && glob_match_ci(p.set, s->alias)))
			continue;
		any_set = 1;
		if (s->multi_instance && !p.instance) {
			if (!has_wildcard(p.set)) {
				err_set(err, "'%s': set %s has instances: name one, as in "
					     "\\%s(*)\\%s", text, s->name, s->name, p.counter);
				path_free(&p);
				return -1;
			}
			continue;
		}
		if (!s->multi_instance && p.instance) {
			if (!has_wildcard(p.set)) {
				err_set(err, "'%s': set %s has no instances: write \\%s\\%s", text,
					s->name, s->name, p.counter);
				path_free(&p);
				return -1;
			}
			continue;
		}
		for (size_t k = 0; k < s->ncounters; k++)
			if (glob_match_ci(p.counter, s->counters[k].name))
				add_item(e, e->catalog[i], &s->counters[k], p.instance);
	}
	char inputs[1024] = "";
	for (size_t k = 0; e->replay && k < e->cfg->ninputs; k++) {
		size_t len = strlen(inputs);
		snprintf(inputs + len, sizeof(inputs) - len, "--input %s ", e->cfg->inputs[k]);
	}
	if (!any_set) {
		if (e->replay)
			err_set(err, "no counter set matches '%s' in '%s': the log does not hold it "
				     "(getcounter %s-l lists what it holds)", p.set, text, inputs);
		else
			err_set(err, "no counter set matches '%s' in '%s' (getcounter -l lists them)",
				p.set, text);
		path_free(&p);
		return -1;
	}
	e->npaths_resolved++;
	if (e->nitems == before) {
		err_set(err, "no counter matches '%s' in '%s' (getcounter %s-q '%s' lists them)",
			p.counter, text, inputs, p.set);
		path_free(&p);
		return -1;
	}
	path_free(&p);
	return 0;
}

static const char *const default_paths[] = {
	"\\Processor(_Total)\\% Processor Time",
	"\\Memory\\Available MBytes",
	"\\Memory\\% Committed Bytes In Use",
	"\\PhysicalDisk(_Total)\\% Disk Time",
	"\\PhysicalDisk(_Total)\\Current Disk Queue Length",
	"\\Network Adapter(*)\\Bytes Total/sec",
};

/* With --pcap and no paths: every capture counter of every file. */
static const char *const pcap_default_paths[] = {
	"\\Network Capture(*)\\*",
};

/* ---- reading ------------------------------------------------------------ */

static uint64_t
fields_needed(const struct counter_set *s, uint64_t needed, int utilization)
{
	uint64_t cpu = 0, bounds = 0;

	/* The CPU reset rule needs every field of T; a wrap bound needs the
	 * in-progress I/Os (disk times) or the speed (interface bytes), and
	 * % Utilization the speed and duplex. Nothing else is read. */
	for (unsigned f = 0; f < s->nfields; f++) {
		if (s->fields[f].kind == FK_CPU_TIME)
			cpu |= (uint64_t)1 << f;
		if (needed & ((uint64_t)1 << f))
			bounds |= (uint64_t)1 << s->fields[f].bound;
	}
	if (needed & cpu)
		needed |= cpu;
	if (s->inflight_field && (bounds & ((uint64_t)1 << FB_DISK_MS)))
		needed |= (uint64_t)1 << (s->inflight_field - 1u);
	if (s->speed_field && (utilization || (bounds & ((uint64_t)1 << FB_IF_BYTES))))
		needed |= (uint64_t)1 << (s->speed_field - 1u);
	if (s->duplex_field && utilization)
		needed |= (uint64_t)1 << (s->duplex_field - 1u);
	return needed;
}

/* -v: name each instance whose speed lets a 32-bit byte counter pass 2^31
 * within one interval, where no wrap can be told from a reset. */
static void
warn_fast_links(const struct engine *e)
{
	for (size_t s = 0; s < e->nsets; s++) {
		const struct raw_set *rs = e->sets[s].cur;
		const struct counter_set *cs = rs->set;
		if (!cs->speed_field)
			continue;
		unsigned f = cs->speed_field - 1u;
		for (size_t i = 0; i < rs->ninstances; i++) {
			const struct raw_instance *ri = &rs->inst[i];
			uint64_t speed = (raw_present(rs, ri) & ((uint64_t)1 << f)) ? raw_get(rs, ri, f) : 0;
			if (speed == 0 || speed >= 0xFFFFFFFFu)
				continue;
			double secs = 2147483648.0 / ((double)speed * 1e6 / 8.0);
			if (e->cfg->interval >= secs)
				fprintf(stderr, "getcounter: %s(%s): at %llu Mbit/s a 32-bit byte "
						"counter can pass 2^31 in %.1f s, within one %g s "
						"interval: a wrap there shows as RESET\n",
					cs->name, raw_name(rs, ri), (unsigned long long)speed, secs,
					e->cfg->interval);
		}
	}
}

/* The capacity to grow cap to so that it holds want (doubling). */
static size_t
next_cap(size_t cap, size_t want)
{
	if (cap < 8)
		cap = 8;
	while (cap < want)
		cap *= 2;
	return cap;
}

static void
eset_grow(struct eset *es, size_t n)
{
	if (n <= es->cap)
		return;
	es->cap = next_cap(es->cap, n);
	es->delta_st = xrealloc(es->delta_st, es->cap * sizeof(*es->delta_st));
}

static void eset_group(struct eset *es);

/* Once the instance list has settled: the per-instance arrays sized to the
 * instances (they grew by doubling while it changed). */
static void
eset_trim(struct eset *es)
{
	/* a settled list is prev's: no instance needs a pairing */
	free(es->prev_of);
	es->prev_of = NULL;
	es->prev_cap = 0;
	xtrim((void **)&es->delta_st, &es->cap, es->cur->ninstances, sizeof(*es->delta_st));
}
static int engine_setup_sets(struct engine *e, struct err *err);
static int columns_fixed(const struct config *cfg);

/* Pair cur instances with prev ones by name; sets changed, prev_of, gone,
 * and rebuilds the groups when the instance list changed. */
/* Nonzero when identity id is held by exactly one instance of prev that
 * used does not mark. */
static int
identity_once_gone(const struct raw_set *prev, uint64_t id, const uint8_t *used)
{
	int n = 0;

	for (size_t k = 0; k < prev->ninstances && n < 2; k++)
		n += !used[k] && raw_identity_at(prev, k) == id;
	return n == 1;
}

/* Nonzero when identity id is held by exactly one instance of cur without
 * a pair in prev_of. */
static int
identity_once_new(const struct raw_set *cur, uint64_t id, const uint32_t *prev_of)
{
	int n = 0;

	for (size_t k = 0; k < cur->ninstances && n < 2; k++)
		n += prev_of[k] == NO_PREV && raw_identity_at(cur, k) == id;
	return n == 1;
}

/* A renamed instance (COUNTERS.md 5: an interface's new name keeps its
 * identity, no RESET): a new name whose identity only one gone instance
 * had goes on from that one. Identities held by several (or 0, none) are
 * left alone; so is a churn too large to compare pair by pair. */
static void
pair_renamed(struct eset *es, uint8_t *used)
{
	const struct raw_set *cur = es->cur, *prev = es->prev;
	size_t nnew = 0, ngone = 0;

	if (!es->have_prev)
		return; /* a first read: nothing went (used has no room for prev) */
	for (size_t i = 0; i < cur->ninstances; i++)
		nnew += es->prev_of[i] == NO_PREV;
	for (size_t j = 0; j < prev->ninstances; j++)
		ngone += !used[j];
	if (!nnew || !ngone || nnew * ngone > 1000000)
		return;
	for (size_t i = 0; i < cur->ninstances; i++) {
		uint64_t id = raw_identity_at(cur, i);
		if (es->prev_of[i] != NO_PREV || id == 0)
			continue;
		for (size_t j = 0; j < prev->ninstances; j++) {
			if (used[j] || raw_identity_at(prev, j) != id)
				continue;
			if (identity_once_gone(prev, id, used) &&
			    identity_once_new(cur, id, es->prev_of)) {
				es->prev_of[i] = (uint32_t)j;
				used[j] = 1;
			}
			break;
		}
	}
}

static GC_HOT void
eset_pair(struct eset *es)
{
	struct raw_set *cur = es->cur, *prev = es->prev;
	size_t n = cur->ninstances, m = es->have_prev ? prev->ninstances : 0;

	/* names of instances gone from both reads are dropped, now and then
	 * (not the columns': they stay) */
	if (!es->names_shown)
		raw_sets_compact_names((struct raw_set *const[]){ cur, prev }, 2);
	eset_grow(es, n);
	es->changed = !es->have_prev || n != m || es->list_moved;
	es->list_moved = 0;
	if (!es->changed && cur->inst != prev->inst) /* one list shared: the same */
		for (size_t i = 0; i < n; i++)
			if (!raw_same_name(cur, i, prev, i)) {
				es->changed = 1;
				break;
			}
	es->ngone = 0;
	es->list_gen += (uint64_t)es->changed;
	es->prev_same = !es->changed;
	if (!es->changed) {
		if (es->unsettled) {
			/* Settled: a read like the last. The arrays grew by
			 * doubling (and the names' table was built) while the
			 * list changed; fitted now, not at each change, so that
			 * instances coming and going read after read cost no
			 * reallocation each time. */
			raw_set_trim(cur);
			raw_set_trim(prev);
			eset_trim(es);
			if (!es->names_shown)
				strset_trim(&es->names);
			es->unsettled = 0;
		}
		return;
	}
	es->unsettled = 1;
	if (n > es->prev_cap) {
		es->prev_cap = next_cap(es->prev_cap, n);
		es->prev_of = xrealloc(es->prev_of, es->prev_cap * sizeof(*es->prev_of));
	}
	eset_group(es);
	/* Rare: instances came or went. Hash prev names. */
	size_t hcap = 16;
	while (hcap < m + m / 3 + 1) /* a load of at most 3/4 */
		hcap *= 2;
	uint32_t *hash = xmalloc(hcap * sizeof(*hash));
	for (size_t k = 0; k < hcap; k++)
		hash[k] = NO_PREV;
	for (size_t j = 0; j < m; j++) {
		size_t h = str_hash(raw_name_at(prev, j)) & (hcap - 1);
		while (hash[h] != NO_PREV)
			h = (h + 1) & (hcap - 1);
		hash[h] = (uint32_t)j;
	}
	uint8_t *used = xcalloc(m ? m : 1, 1);
	for (size_t i = 0; i < n; i++) {
		size_t h = str_hash(raw_name_at(cur, i)) & (hcap - 1);
		es->prev_of[i] = NO_PREV;
		for (; hash[h] != NO_PREV; h = (h + 1) & (hcap - 1)) {
			size_t j = hash[h];
			if (!used[j] && strcmp(raw_name_at(prev, j), raw_name_at(cur, i)) == 0) {
				es->prev_of[i] = (uint32_t)j;
				used[j] = 1;
				break;
			}
		}
	}
	free(hash);
	pair_renamed(es, used);
	for (size_t j = 0; j < m; j++)
		if (!used[j]) {
			xgrow((void **)&es->gone, &es->gone_cap, es->ngone + 1, sizeof(*es->gone));
			es->gone[es->ngone++] = (uint32_t)j;
		}
	free(used);
}

/* The group key of name under rule: its length and start, or 0 when the
 * instance is in no group. */
static size_t
group_key(uint8_t rule, const char *name, const char **key)
{
	const char *sep;

	switch (rule) {
	case GROUP_PARENT:
		sep = strrchr(name, '/');
		if (!sep || strcmp(sep + 1, "_Total") == 0)
			return 0;
		*key = name;
		return (size_t)(sep - name);
	case GROUP_CHILD:
		sep = strchr(name, '/');
		if (!sep || ((size_t)(sep - name) == 6 && strncmp(name, "_Total", 6) == 0))
			return 0;
		*key = sep + 1;
		return strlen(sep + 1);
	case GROUP_NODE:
		sep = strchr(name, ',');
		if (!sep || strcmp(sep + 1, "_Total") == 0)
			return 0;
		*key = name;
		return (size_t)(sep - name);
	default:
		return 0;
	}
}

static void
groups_clear(struct eset *es)
{
	for (size_t g = 0; g < es->ngroups; g++)
		free(es->groups[g].name);
	es->ngroups = 0;
}

/* One instance's group key, for sorting. */
struct group_ent {
	const char *key;
	size_t len;
	size_t idx; /* instance index */
};

static int
group_ent_cmp(const void *a, const void *b)
{
	const struct group_ent *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);

	if (c == 0 && x->len != y->len)
		c = x->len < y->len ? -1 : 1;
	if (c == 0)
		c = (x->idx > y->idx) - (x->idx < y->idx);
	return c;
}

/* A group's first member, for ordering groups by first appearance. */
static int
group_first_cmp(const void *a, const void *b, void *arg)
{
	const struct eset *es = arg;
	size_t i = es->members[((const struct group *)a)->first];
	size_t j = es->members[((const struct group *)b)->first];

	return (i > j) - (i < j);
}

/* Rebuild the groups of the current instances (only when the list
 * changed): groups in order of first appearance, members in instance
 * order. The keys are sorted once (n log n): one pass per group over the
 * instances took half a second at start for 512 CPUs x 256 IRQs. */
static void
eset_group(struct eset *es)
{
	const struct raw_set *cur = es->cur;
	uint8_t rule = cur->set->group;
	struct group_ent *ents;
	size_t nent = 0, nm = 0;

	groups_clear(es);
	if (rule == GROUP_NONE)
		return;
	if (es->members_cap < cur->ninstances) {
		es->members_cap = next_cap(es->members_cap, cur->ninstances);
		es->members = xrealloc(es->members, es->members_cap * sizeof(*es->members));
	}
	ents = xmalloc((cur->ninstances ? cur->ninstances : 1) * sizeof(*ents));
	for (size_t i = 0; i < cur->ninstances; i++) {
		ents[nent].len = group_key(rule, raw_name_at(cur, i), &ents[nent].key);
		ents[nent].idx = i;
		if (ents[nent].len)
			nent++;
	}
	qsort(ents, nent, sizeof(*ents), group_ent_cmp);
	for (size_t k = 0; k < nent;) {
		size_t end = k + 1;
		char name[512];

		while (end < nent && group_ent_cmp(&(struct group_ent){ ents[k].key, ents[k].len, 0 },
						   &(struct group_ent){ ents[end].key, ents[end].len, 0 }) == 0)
			end++;
		if (es->ngroups == es->groups_cap) {
			es->groups_cap = next_cap(es->groups_cap, es->ngroups + 1);
			es->groups = xrealloc(es->groups, es->groups_cap * sizeof(*es->groups));
		}
		struct group *g = &es->groups[es->ngroups++];
		if (rule == GROUP_CHILD)
			snprintf(name, sizeof(name), "_Total/%.*s", (int)ents[k].len, ents[k].key);
		else
			snprintf(name, sizeof(name), "%.*s%c_Total", (int)ents[k].len, ents[k].key,
				 rule == GROUP_NODE ? ',' : '/');
		g->name = xstrdup(name);
		g->first = (uint32_t)nm;
		g->n = (uint32_t)(end - k);
		for (; k < end; k++) /* in instance order: idx breaks ties */
			es->members[nm++] = (uint32_t)ents[k].idx;
	}
	free(ents);
	xtrim((void **)&es->members, &es->members_cap, nm, sizeof(*es->members));
	if (es->ngroups) /* groups is NULL when there are none: UBSan */
		qsort_r(es->groups, es->ngroups, sizeof(*es->groups), group_first_cmp, es);
	/* Most groups are a range of instances (an IRQ's CPUs, listed
	 * together): then no member list is kept. */
	int ranges = 1;
	for (size_t g = 0; g < es->ngroups && ranges; g++) {
		const uint32_t *m = es->members + es->groups[g].first;
		for (uint32_t k = 1; k < es->groups[g].n && ranges; k++)
			ranges = m[k] == m[0] + k;
	}
	if (ranges) {
		for (size_t g = 0; g < es->ngroups; g++)
			es->groups[g].first = es->members[es->groups[g].first];
		free(es->members);
		es->members = NULL;
		es->members_cap = 0;
	}
}

/* Member m of group g (a cur index). */
static uint32_t
group_inst(const struct eset *es, const struct group *g, size_t m)
{
	return es->members ? es->members[g->first + m] : g->first + (uint32_t)m;
}

static GC_HOT void
eset_derive_pairs(struct engine *e, struct eset *es, int snapshot)
{
	struct raw_set *cur = es->cur, *prev = es->prev;
	struct derive_env env = { es->dt, (double)e->wall_ns / 1e9, e->user_hz, e->ulong_bits };

	derive_pairs(&es->ds, prev, cur, es->prev_same ? NULL : es->prev_of, es->delta_st, &env,
		     !snapshot && es->have_prev);
}

/* Cur instance i's pair status: ST_OK with a previous read (and in a
 * snapshot), ST_FIRST without any, ST_NEW for an instance prev lacks. */
static uint8_t
eset_pair_of(const struct eset *es, size_t i, int snapshot)
{
	if (snapshot)
		return ST_OK;
	if (!es->have_prev)
		return ST_FIRST;
	return es->prev_same || es->prev_of[i] != NO_PREV ? ST_OK : ST_NEW;
}

static GC_HOT int
read_uptime(struct engine *e, int64_t *ns)
{
	struct pfile *pf = procfs_file(e->fs, "proc/uptime");
	size_t len;
	const char *buf = pfile_read(pf, &len, NULL);
	uint64_t whole = 0, frac = 0;
	int digits = 0;

	if (!buf)
		return -1;
	const char *p = skip_blanks(buf);
	if (parse_u64(&p, &whole) < 0)
		return -1;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9' && digits < 9) {
			frac = frac * 10 + (uint64_t)(*p++ - '0');
			digits++;
		}
		while (digits++ < 9)
			frac *= 10;
	}
	*ns = (int64_t)(whole * 1000000000u + frac);
	return 0;
}

/* Under --root: the wall clock is btime + uptime when the root has both,
 * so a fixture series prints the same times every run. */
static GC_HOT int64_t
root_wall_ns(struct engine *e, int uptime_ok, int64_t uptime_ns)
{
	struct pfile *pf = procfs_file(e->fs, "proc/stat");
	size_t len;
	const char *buf = pfile_read(pf, &len, NULL);
	const char *p;

	if (!buf || !uptime_ok)
		return now_wall_ns();
	p = strstr(buf, "\nbtime ");
	if (!p)
		return now_wall_ns();
	p = skip_blanks(p + 7);
	uint64_t bt;
	if (parse_u64(&p, &bt) < 0)
		return now_wall_ns();
	return (int64_t)bt * 1000000000 + uptime_ns;
}

/* Nonzero when a and b hold the same instance names in the same order. */
static int
same_names(const struct raw_set *a, const struct raw_set *b)
{
	if (a->ninstances != b->ninstances)
		return 0;
	for (size_t i = 0; i < a->ninstances; i++)
		if (!raw_same_name(a, i, b, i))
			return 0;
	return 1;
}

/* A replay's read: the next kept read of the logs. 0, or 1 at the end. */
static int
engine_read_replay(struct engine *e)
{
	if (!replay_next(e->replay))
		return 1;
	e->wall_ns = replay_wall(e->replay);
	e->user_hz = replay_user_hz(e->replay);
	e->ulong_bits = replay_ulong_bits(e->replay);
	for (size_t s = 0; s < e->nsets; s++) {
		struct eset *es = &e->sets[s];
		struct raw_set *t = es->prev;
		const struct raw_set *own = NULL;
		int gap = 0;
		if (!replay_read(e->replay, es->cat, t, &gap, &own, &es->source)) {
			es->absent = 1;
			continue;
		}
		es->absent = 0;
		es->prev = es->cur;
		es->cur = t;
		if (own) {
			/* several inputs: derive against this input's own read.
			 * The groups and items were built on the last frame's
			 * list (es->prev until the copy): a list that differs from
			 * it is a change, whatever own's is. */
			es->list_moved = !same_names(es->cur, es->prev);
			raw_set_copy(es->prev, own);
			es->have_prev = 1;
		}
		es->gap_kind = gap;
		if (gap)
			es->have_prev = 0;
		es->dt = (double)(int64_t)(es->cur->mono_ns - es->prev->mono_ns) / 1e9;
	}
	return 0;
}

/* A new boot id since the last read is a gap (COUNTERS.md 1): every set
 * starts over. Under --root it is read with every read (one small file);
 * live, a process does not outlive a reboot, so it is read again only when
 * the wall clock moved against the monotonic one (a suspend, a restored
 * checkpoint, a clock set), which is when the machine could have been
 * rebooted. */
static GC_HOT void
engine_check_boot(struct engine *e, int live)
{
	char id[sizeof(e->boot_id)];
	long got;

	e->boot_changed = 0;
	if (live) {
		int64_t off = now_wall_ns() - (int64_t)now_mono_ns(), d = off - e->clock_off;
		int due = !e->have_clock || d > 1000000000 || d < -1000000000;
		e->clock_off = off;
		e->have_clock = 1;
		if (!due)
			return;
	}
	got = procfs_read_small(e->fs, "proc/sys/kernel/random/boot_id", id, sizeof(id));
	if (got <= 0)
		return;
	id[(size_t)got < sizeof(id) ? (size_t)got : sizeof(id) - 1] = '\0';
	id[strcspn(id, "\n")] = '\0';
	if (!id[0])
		return;
	if (e->boot_id[0] && strcmp(id, e->boot_id) != 0) {
		for (size_t s = 0; s < e->nsets; s++)
			e->sets[s].have_prev = 0;
		e->boot_changed = 1;
	}
	snprintf(e->boot_id, sizeof(e->boot_id), "%s", id);
}

/* Only the fields some requested counter needs count as read: a replay
 * then derives exactly what was derived live (a log stores those). */
static void
mask_present(struct raw_set *rs, uint64_t needed)
{
	for (size_t i = 0; i < rs->ninstances; i++)
		raw_set_present_at(rs, i, raw_present_at(rs, i) & needed);
}

/* Read every set once; read_index selects the root of a series. 0, 1 at
 * the end of a replay, or -1 with err. */
static GC_HOT int
engine_read(struct engine *e, size_t read_index, struct err *err)
{
	if (e->replay)
		return engine_read_replay(e);

	int live = procfs_is_live(e->fs);

	if (procfs_begin_read(e->fs, read_index, err) < 0)
		return -1;
	engine_check_boot(e, live);
	if (!live)
		e->wall_ns = 0;
	else
		e->wall_ns = now_wall_ns();
	for (size_t s = 0; s < e->nsets; s++) {
		struct eset *es = &e->sets[s];
		struct raw_set *t = es->prev;
		es->prev = es->cur;
		es->cur = t;
		raw_set_begin(es->cur);
		if (es->prov->read(es->state, es->cur, &es->read_err) == 0) {
			es->cur->valid = 1;
		} else {
			es->cur->valid = 0;
			es->cur->ninstances = 0;
			if (e->cfg->verbose && !es->read_failed_reported)
				fprintf(stderr, "getcounter: %s: %s\n", es->prov->set->name,
					es->read_err.msg);
			es->read_failed_reported = 1;
		}
		mask_present(es->cur, es->ctx.needed);
		es->cur->mono_ns = now_mono_ns();
		if (es->prov->stamp) {
			/* a capture keeps its own clock (a file: its buckets) */
			int64_t wall;
			uint64_t mono;
			int st = es->prov->stamp(es->state, &wall, &mono, err);
			if (st < 0)
				return -1;
			if (st == 1)
				return 1;
			if (st == 0) {
				e->wall_ns = wall;
				es->cur->mono_ns = mono;
			}
		}
	}
	/* a file unlike what the kernel writes there: said once, as it is found */
	for (const char *note; (note = procfs_next_note(e->fs));)
		fprintf(stderr, "getcounter: %s\n", note);
	if (!live) {
		int64_t up = 0;
		e->uptime_ns_prev = e->uptime_ns_cur;
		e->uptime_prev_ok = e->uptime_cur_ok;
		e->uptime_cur_ok = read_uptime(e, &up) == 0;
		e->uptime_ns_cur = up;
		e->wall_ns = root_wall_ns(e, e->uptime_cur_ok, up);
	}
	if (!live) {
		/* a series' clock, advanced by each root's uptime (else by the
		 * interval): the stamp a log of the series records */
		int64_t step = e->uptime_cur_ok && e->uptime_prev_ok
			? e->uptime_ns_cur - e->uptime_ns_prev
			: (int64_t)(e->cfg->interval * 1e9 + 0.5);
		if (read_index == 0 || !e->series_started)
			e->series_ns = e->uptime_cur_ok ? (uint64_t)e->uptime_ns_cur : 0;
		else
			e->series_ns += (uint64_t)step;
		e->series_started = 1;
		e->series_step = step;
	}
	for (size_t s = 0; s < e->nsets; s++) {
		struct eset *es = &e->sets[s];
		if (!live) {
			es->dt = (double)e->series_step / 1e9;
			es->cur->mono_ns = e->series_ns;
		} else {
			es->dt = (double)(es->cur->mono_ns - es->prev->mono_ns) / 1e9;
		}
	}
	return 0;
}

/* ---- rows --------------------------------------------------------------- */

static void
item_clear(struct item *it)
{
	it->nrefs = it->nruns = 0;
	it->has_gone = 0;
}

/* The instance name of a column (NULL for a single-instance set's). */
static const char *
col_instance(const struct engine *e, uint32_t column)
{
	uint64_t inst = idmap_key(&e->cols, column) & (((uint64_t)1 << 33) - 1);

	return inst ? strset_str(&e->names, (uint32_t)(inst - 1)) : NULL;
}

static void
item_add_ref(struct engine *e, struct item *it, enum ref_kind kind, size_t idx,
	     const char *instance)
{
	uint64_t inst = 0; /* a single-instance set's row: none */
	struct row_ref *r = it->nruns ? &it->refs[it->nruns - 1] : NULL;

	if (instance)
		inst = (uint64_t)strset_add(&e->names, instance, NULL) + 1;
	uint32_t column = idmap_add(&e->cols, (uint64_t)it->sc << 33 | inst);
	it->nrefs++;
	if (r && r->kind == kind && r->idx + r->n == idx && r->column + r->n == column) {
		r->n++;
	} else {
		xgrow((void **)&it->refs, &it->cap, it->nruns + 1, sizeof(*it->refs));
		r = &it->refs[it->nruns++];
		r->kind = kind;
		r->idx = (uint32_t)idx;
		r->column = column;
		r->n = 1;
		r->joins = it->nruns > 1 && r[-1].column + r[-1].n == column;
	}
	if (kind == REF_GONE)
		it->has_gone = 1;
}

/* The child part of a row name "ROW/CHILD", or NULL. */
static const char *
row_child(const char *name)
{
	const char *sep = strrchr(name, '/');
	return sep ? sep + 1 : NULL;
}

/* The CPU part of a Processor-style instance name: "3", or "0,3" (node,cpu). */
static const char *
cpu_part(const char *name)
{
	const char *comma = strrchr(name, ',');
	return comma ? comma + 1 : name;
}

/* Row indexes of a rows set, ordered by child part, then by index: each
 * instance's candidate rows are then one run found by binary search, so
 * matching n instances against r rows costs n log r, not n r (512 CPUs,
 * 256 IRQs and 8 NICs: a million rows against four thousand instances). */
struct row_order {
	const struct raw_set *rows;
	size_t *idx; /* rows with a child that is not _Total */
	size_t n;
};

static int
row_order_cmp(const void *a, const void *b, void *arg)
{
	const struct raw_set *rows = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(row_child(raw_name_at(rows, i)), row_child(raw_name_at(rows, j)));

	return c ? c : (i > j) - (i < j);
}

static void
row_order_build(struct row_order *o, const struct raw_set *rows)
{
	o->rows = rows;
	o->n = 0;
	o->idx = xmalloc((rows->ninstances ? rows->ninstances : 1) * sizeof(*o->idx));
	for (size_t i = 0; i < rows->ninstances; i++) {
		const char *child = row_child(raw_name_at(rows, i));
		if (child && strcmp(child, "_Total") != 0)
			o->idx[o->n++] = i;
	}
	qsort_r(o->idx, o->n, sizeof(*o->idx), row_order_cmp, (void *)rows);
}

/* The first position of o whose row's child is not below key. */
static size_t
row_order_find(const struct row_order *o, const char *key)
{
	size_t lo = 0, hi = o->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(row_child(raw_name_at(o->rows, o->idx[mid])), key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Append row i to it->rows: to the last run when it goes on in step. */
static void
item_add_row(struct item *it, size_t i)
{
	struct idx_run *r = it->rows_open ? &it->rows[it->nrows - 1] : NULL;

	if (r && r->n == 1 && i > r->start) {
		r->stride = (uint32_t)(i - r->start);
		r->n = 2;
		return;
	}
	if (r && r->n > 1 && i == (size_t)r->start + (size_t)r->n * r->stride) {
		r->n++;
		return;
	}
	if (it->nrows == it->rows_cap) {
		it->rows_cap = next_cap(it->rows_cap, it->nrows + 1);
		it->rows = xrealloc(it->rows, it->rows_cap * sizeof(*it->rows));
	}
	it->rows[it->nrows++] = (struct idx_run){ (uint32_t)i, 1, 1 };
	it->rows_open = 1;
}

/* Append to it->rows the rows instance sums: by the provider's rows_match
 * when it has one (asked only about rows of the instance's CPU: the part
 * after its last '/'), else every row whose child is the instance's CPU
 * part (instance NULL: every row with a CPU child, in row order). */
static size_t
add_rows_of(struct item *it, const struct row_order *o, const char *instance)
{
	const struct provider *prov = it->es->prov;
	const struct raw_set *rows = o->rows;
	const char *key;
	size_t n = 0;

	it->rows_open = 0; /* runs of one ref's rows only */
	if (!instance) {
		for (size_t i = 0; i < rows->ninstances; i++) {
			const char *child = row_child(raw_name_at(rows, i));
			if (child && strcmp(child, "_Total") != 0) {
				item_add_row(it, i);
				n++;
			}
		}
		return n;
	}
	if (prov->rows_match) {
		key = strrchr(instance, '/');
		if (!key)
			return 0;
		key++;
	} else {
		key = cpu_part(instance);
	}
	for (size_t k = row_order_find(o, key); k < o->n; k++) {
		size_t i = o->idx[k];
		if (strcmp(row_child(raw_name_at(rows, i)), key) != 0)
			break;
		if (prov->rows_match && !prov->rows_match(it->es->state, instance, raw_name_at(rows, i)))
			continue;
		item_add_row(it, i);
		n++;
	}
	return n;
}

/* The rows instance i's own ref listed (n NONE_ROWS: it has none). */
#define NONE_ROWS UINT32_MAX

/* The rows of cur instances first .. first + n (group members, in order)
 * as one range of it->rows, when each has a ref of its own and their rows
 * lie back to back: a total of them sums the same rows, and listing them
 * again would double the list (_Total and a node's group over 131,072
 * Interrupt rows). 0 when they do not. */
static int
rows_reuse(const struct ref_rows *by_inst, const uint32_t *members, size_t n,
	   struct ref_rows *out)
{
	size_t end = 0;

	for (size_t m = 0; m < n; m++) {
		const struct ref_rows *r = &by_inst[members ? members[m] : m];
		if (r->n == NONE_ROWS || (m > 0 && r->first != end))
			return 0;
		if (m == 0)
			out->first = r->first;
		end = (size_t)r->first + r->n;
	}
	out->n = n ? (uint32_t)(end - out->first) : 0;
	if (!n)
		out->first = 0;
	return 1;
}

/* For a counter over another set's rows: which rows each ref sums (an
 * instance's; every instance's for _Total; the group's for a group total).
 * Runs when either set's instance list changed. A total whose rows its
 * instances' refs listed already takes their range (rows_reuse). */
static void
item_build_rows(const struct engine *e, struct item *it)
{
	const struct eset *es = it->es;
	const struct raw_set *cur = es->cur;
	struct row_order o;
	struct ref_rows *by_inst;
	uint8_t *seen;
	size_t ncur = 0;
	int dup = 0, all_total = 1;

	it->nrows = 0;
	if (!it->rows_es)
		return;
	it->rows_basis = it->rows_es->list_gen;
	xgrow((void **)&it->ref_rows, &it->ref_rows_cap, it->nrefs, sizeof(*it->ref_rows));
	row_order_build(&o, it->rows_es->cur);
	by_inst = xmalloc((cur->ninstances ? cur->ninstances : 1) * sizeof(*by_inst));
	for (size_t i = 0; i < cur->ninstances; i++) {
		by_inst[i].n = NONE_ROWS;
		all_total &= raw_in_total_at(cur, i);
	}
	seen = xcalloc(it->rows_es->cur->ninstances ? it->rows_es->cur->ninstances : 1, 1);
	for (size_t u = 0, r = 0; u < it->nruns; u++) {
		for (uint32_t k = 0; k < it->refs[u].n; k++, r++) {
			const struct row_ref *ref = &it->refs[u];
			struct ref_rows *rr = &it->ref_rows[r];
			size_t r0 = it->nrows; /* its runs start here */
			if (ref->kind == REF_CUR) {
				ncur += add_rows_of(it, &o, col_instance(e, ref->column + k));
				for (size_t q = r0; q < it->nrows; q++)
					for (uint32_t j = 0; j < it->rows[q].n; j++) {
						size_t row = (size_t)it->rows[q].start +
							     (size_t)j * it->rows[q].stride;
						dup |= seen[row];
						seen[row] = 1;
					}
				by_inst[ref->idx + k] =
					(struct ref_rows){ (uint32_t)r0, (uint32_t)(it->nrows - r0) };
			} else if (ref->kind == REF_TOTAL && !es->prov->rows_match) {
				/* every row with a CPU child: the instances' own
				 * rows when they hold each of those once */
				if (!dup && ncur == o.n && rows_reuse(by_inst, NULL, cur->ninstances, rr))
					continue;
				add_rows_of(it, &o, NULL);
			} else if (ref->kind == REF_TOTAL) {
				if (all_total && rows_reuse(by_inst, NULL, cur->ninstances, rr))
					continue;
				for (size_t i = 0; i < cur->ninstances; i++)
					if (raw_in_total_at(cur, i))
						add_rows_of(it, &o, raw_name_at(cur, i));
			} else if (ref->kind == REF_GROUP) {
				const struct group *g = &es->groups[ref->idx + k];
				if (es->members ? rows_reuse(by_inst, es->members + g->first, g->n, rr)
						: rows_reuse(by_inst + g->first, NULL, g->n, rr))
					continue;
				for (size_t m = 0; m < g->n; m++)
					add_rows_of(it, &o, raw_name_at(cur, group_inst(es, g, m)));
			}
			rr->n = (uint32_t)(it->nrows - r0);
			rr->first = (uint32_t)r0;
		}
	}
	free(seen);
	free(by_inst);
	free(o.idx);
	xtrim((void **)&it->rows, &it->rows_cap, it->nrows, sizeof(*it->rows));
	xtrim((void **)&it->ref_rows, &it->ref_rows_cap, it->nrefs, sizeof(*it->ref_rows));
}

/* A rows counter's value for one ref: its rows summed as for _Total. */
static struct value
rows_value(struct engine *e, struct item *it, size_t r, int snapshot)
{
	struct eset *rs = it->rows_es;
	struct derive_env env = { rs->dt, (double)e->wall_ns / 1e9, e->user_hz, e->ulong_bits };
	struct value v = { 0, ST_UNSUPPORTED };
	const struct ref_rows *ref = &it->ref_rows[r];

	/* no source set, or an instance none of whose rows exist: nothing
	 * this machine can supply (never a made-up 0) */
	if (!it->rows_c || !rs->cur->valid || ref->n == 0)
		return v;
	struct derive_span sp = { rs->cur, snapshot ? NULL : &rs->ds, !snapshot && !rs->have_prev,
				  NULL, ref->n, 0, it->rows + ref->first, &it->plan };
	return derive_total_span(it->rows_c, &sp, &env);
}

/* --smooth C (COUNTERS.md 1): each column shows NDIS's load average
 * avg = (avg x C + x x (128 - C)) / 128 from its first value on; a row
 * without a value is shown as it is and starts the average again. Display
 * only: the log holds the raw reads. */
static void
engine_smooth(struct engine *e)
{
	xgrow((void **)&e->smooth, &e->smooth_cap, e->cols.n, sizeof(*e->smooth));
	for (size_t k = 0; k < e->nruns; k++)
		for (uint32_t q = 0; q < e->runs[k].n; q++) {
			const struct frame_run *run = &e->runs[k];
			int uniform = run->val == FRAME_RUN_UNIFORM;
			size_t r = uniform ? 0 : run->val + q;
			uint8_t st = run->sti == FRAME_RUN_UNIFORM ? run->st : e->row_st[run->sti + q];
			uint32_t col = run->col + q;
			struct smooth_cell *s = &e->smooth[col];
			const struct counter_desc *c = e->counters[idmap_key(&e->cols, col) >> 33].counter;
			if (uniform || !value_exists(c, (enum value_status)st)) {
				s->on = 0;
				continue;
			}
			if (s->on)
				e->row_val[r] = derive_smooth(s->avg, e->row_val[r],
							      (unsigned)e->cfg->smooth);
			s->avg = e->row_val[r];
			s->on = 1;
		}
}

/* Whether index a (of run n long) continues at b: both FRAME_RUN_UNIFORM,
 * or b is a + n. */
static int
continues(uint32_t a, uint32_t n, uint32_t b)
{
	return a == FRAME_RUN_UNIFORM ? b == FRAME_RUN_UNIFORM
				      : b != FRAME_RUN_UNIFORM && a + n == b;
}

/* Append the columns of it's rows, which start at frame row row, to the
 * frame's runs (continuing the last run where the columns, values and
 * statuses do): their values from val on, or none (FRAME_RUN_UNIFORM: each
 * 0), their statuses from sti on, or none (FRAME_RUN_UNIFORM: each st). */
static GC_HOT void
frame_add_runs(struct engine *e, const struct item *it, size_t row, uint32_t val, uint32_t sti,
	       uint8_t st)
{
	for (size_t u = 0; u < it->nruns; u++) {
		const struct row_ref *ref = &it->refs[u];
		struct frame_run *last = e->nruns ? &e->runs[e->nruns - 1] : NULL;
		/* the ref before ended last, and an item's rows, values and
		 * statuses go on from ref to ref: its columns alone decide */
		if (u > 0 && ref->joins) {
			last->n += ref->n;
		} else if (last && last->row + last->n == row && last->col + last->n == ref->column &&
		    continues(last->val, last->n, val) && continues(last->sti, last->n, sti) &&
		    (sti != FRAME_RUN_UNIFORM || last->st == st)) {
			last->n += ref->n;
		} else {
			xgrow((void **)&e->runs, &e->runs_cap, e->nruns + 1, sizeof(*e->runs));
			e->runs[e->nruns++] = (struct frame_run){ (uint32_t)row, ref->column, ref->n,
								  val, sti, st };
		}
		row += ref->n;
		if (val != FRAME_RUN_UNIFORM)
			val += ref->n;
		if (sti != FRAME_RUN_UNIFORM)
			sti += ref->n;
	}
}

/* Room in the value and status arrays for n more than stored. */
static void
frame_vals_room(struct engine *e, size_t n)
{
	if (e->nvals + n > e->vals_cap) {
		e->vals_cap = next_cap(e->vals_cap, e->nvals + n);
		e->row_val = xrealloc(e->row_val, e->vals_cap * sizeof(*e->row_val));
	}
	if (e->nsts + n > e->sts_cap) {
		e->sts_cap = next_cap(e->sts_cap, e->nsts + n);
		e->row_st = xrealloc(e->row_st, e->sts_cap * sizeof(*e->row_st));
	}
}

/* Whether n statuses are one (not for none: there is no st[0]); eight
 * compared at a time (a frame's every status passes here). */
static int
one_status(const uint8_t *st, size_t n)
{
	uint64_t all, diff = 0;
	size_t r = 0;

	if (n == 0)
		return 0;
	all = 0x0101010101010101ull * st[0];
	for (; r + 8 <= n; r += 8) {
		uint64_t w;
		memcpy(&w, st + r, sizeof(w));
		diff |= w ^ all;
	}
	for (; r < n; r++)
		diff |= (uint64_t)(st[r] ^ st[0]);
	return diff == 0;
}

/* Whether n rows of counter c are one status without a value (and 0, as
 * such rows are): stored as a uniform run. Rows with values are always
 * stored, zeros too. */
static int
rows_uniform(const struct counter_desc *c, const double *val, const uint8_t *st, size_t n)
{
	if (n == 0 || value_exists(c, (enum value_status)st[0]))
		return 0;
	for (size_t r = 0; r < n; r++)
		if (val[r] != 0 || signbit(val[r]) || st[r] != st[0])
			return 0;
	return 1;
}

/* Nonzero when instance name is one of it's: its pattern matches, and a
 * wildcard does not stand for the set's named-only instance. */
static int
item_matches(const struct item *it, const char *name)
{
	const char *only = it->es->prov->set->named_only;

	return glob_match_ci(it->pattern, name) &&
	       !(it->wildcard && only && strcasecmp(name, only) == 0);
}

/* Whether it's first rows are every instance of its set's current read,
 * in order (derive_small_run's): a single-instance set's one row, or a
 * multi-instance set's run, perhaps with groups and _Total after it. */
static int
item_every_instance(const struct item *it)
{
	const struct raw_set *cur = it->es->cur;

	if (it->rows_es || !cur->valid || it->nruns == 0 || it->refs[0].idx != 0 ||
	    it->refs[0].n != cur->ninstances)
		return 0;
	return it->refs[0].kind == REF_CUR || (it->refs[0].kind == REF_SINGLE && it->nruns == 1);
}

/* The most instances an item naming one instance scans for its name; past
 * it the set's name index finds them. */
enum { NAME_SCAN_MAX = 32 };

/* FNV-1a of s folded to lower case as glob_match_ci folds it: the key of
 * an instance in its set's name index. */
static uint32_t
fold_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint32_t)tolower((unsigned char)*s)) * 16777619u;
	return h;
}

static int
u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* es's name index of its current list, made when the list is new to it. */
static void
eset_name_index(struct eset *es)
{
	const struct raw_set *cur = es->cur;

	if (es->by_name_made && es->by_name_gen == es->list_gen)
		return;
	xgrow((void **)&es->by_name, &es->by_name_cap, cur->ninstances, sizeof(*es->by_name));
	for (size_t i = 0; i < cur->ninstances; i++)
		es->by_name[i] = (uint64_t)fold_hash(raw_name_at(cur, i)) << 32 | i;
	qsort(es->by_name, cur->ninstances, sizeof(*es->by_name), u64_cmp);
	es->nby_name = cur->ninstances;
	es->by_name_gen = es->list_gen;
	es->by_name_made = 1;
}

/* Add it's rows of the current instances its pattern matches, in index
 * order; whether there were any. A pattern without a wildcard is a name,
 * found through the set's name index among many instances: matching it
 * against every instance, item after item, made a start with 4,000
 * paths of one disk each quadratic (16 M matches, 0.3 s). */
static int
item_add_current(struct engine *e, struct item *it)
{
	struct eset *es = it->es;
	const struct raw_set *cur = es->cur;
	int found = 0;

	if (it->wildcard || cur->ninstances <= NAME_SCAN_MAX) {
		for (size_t i = 0; i < cur->ninstances; i++)
			if (item_matches(it, raw_name_at(cur, i))) {
				item_add_ref(e, it, REF_CUR, i, raw_name_at(cur, i));
				found = 1;
			}
		return found;
	}
	eset_name_index(es);
	uint64_t key = (uint64_t)fold_hash(it->pattern) << 32;
	size_t lo = 0, hi = es->nby_name;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (es->by_name[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* equal keys in index order: the rows come as the scan's would */
	for (; lo < es->nby_name && es->by_name[lo] >> 32 == key >> 32; lo++) {
		size_t i = (size_t)(es->by_name[lo] & 0xFFFFFFFFu);
		if (item_matches(it, raw_name_at(cur, i))) {
			item_add_ref(e, it, REF_CUR, i, raw_name_at(cur, i));
			found = 1;
		}
	}
	return found;
}

static void
item_build(struct engine *e, struct item *it)
{
	struct eset *es = it->es;
	int found = 0;

	item_clear(it);
	it->built = 1;
	it->basis = es->list_gen;
	if (!it->pattern) {
		item_add_ref(e, it, REF_SINGLE, 0, NULL);
		return;
	}
	found = item_add_current(e, it);
	for (size_t g = 0; g < es->ngone; g++) {
		const char *name = raw_name_at(es->prev, es->gone[g]);
		if (item_matches(it, name)) {
			item_add_ref(e, it, REF_GONE, es->gone[g], name);
			found = 1;
		}
	}
	for (size_t g = 0; g < es->ngroups; g++)
		if (glob_match_ci(it->pattern, es->groups[g].name)) {
			item_add_ref(e, it, REF_GROUP, g, es->groups[g].name);
			found = 1;
		}
	if (it->want_total) {
		item_add_ref(e, it, REF_TOTAL, 0, "_Total");
		found = 1;
	}
	if (!found && !it->wildcard)
		item_add_ref(e, it, REF_MISSING, 0, it->pattern);
	if (it->cap > it->nruns + it->nruns / 4 + 4) { /* runs sized to fit */
		it->cap = it->nruns ? it->nruns : 1;
		it->refs = xrealloc(it->refs, it->cap * sizeof(*it->refs));
	}
	item_build_rows(e, it);
}

/* The totals of a run of groups (ref's n, the first ref->idx), each its
 * members' pairs summed as for _Total: derived together, a chunk of spans
 * at a time (on the stack), into val and st. */
static void
group_values(struct eset *es, const struct counter_desc *c, const struct row_ref *ref,
	     int snapshot, const struct derive_env *env, struct derive_plan *plan, double *val,
	     uint8_t *st)
{
	enum { CHUNK = 32 };
	struct derive_span sp[CHUNK];
	struct idx_run range[CHUNK];

	for (uint32_t q = 0; q < ref->n; q += CHUNK) {
		uint32_t m = ref->n - q < CHUNK ? ref->n - q : CHUNK;
		for (uint32_t k = 0; k < m; k++) {
			const struct group *g = &es->groups[ref->idx + q + k];
			range[k] = (struct idx_run){ g->first, 1, g->n };
			sp[k] = (struct derive_span){ es->cur, snapshot ? NULL : &es->ds,
						      !snapshot && !es->have_prev,
						      es->members ? es->members + g->first : NULL,
						      es->members ? g->n : 1, 1,
						      es->members ? NULL : &range[k], plan };
		}
		derive_total_spans(c, sp, m, env, val + q, st + q);
	}
}

static GC_HOT void
engine_frame(struct engine *e, int snapshot, struct frame *f)
{
	size_t ncols = e->cols.n;

	e->nrows = e->nruns = e->nvals = e->nsts = 0;
	for (size_t s = 0; s < e->nsets; s++)
		if (!e->sets[s].absent)
			eset_derive_pairs(e, &e->sets[s], snapshot);
	/* The refs first (rebuilt where instances changed). */
	for (size_t k = 0; k < e->nitems; k++) {
		struct item *it = &e->items[k];
		struct eset *es = it->es;

		if (es->absent || (it->rows_es && it->rows_es->absent)) {
			/* csv, tsv, table: its rows without values (below) */
			if (!e->absent_rows)
				continue;
			if (!it->built)
				item_build(e, it);
			continue;
		}
		/* built on an older list of either set (a frame that skipped
		 * the item while its rows' set was absent missed a change) */
		if (!it->built || it->basis != es->list_gen || it->has_gone)
			item_build(e, it);
		else if (it->rows_es && it->rows_basis != it->rows_es->list_gen)
			item_build_rows(e, it);
	}
	/* the most the value arrays held at once (an item's rows go in
	 * before it is known whether they are a uniform run) */
	size_t vals_need = 0, sts_need = 0;
	double wall_s = (double)e->wall_ns / 1e9; /* divided once, not once an item */
	for (size_t k = 0; k < e->nitems; k++) {
		struct item *it = &e->items[k];
		struct eset *es = it->es;
		frame_vals_room(e, it->nrefs);
		if (e->nvals + it->nrefs > vals_need)
			vals_need = e->nvals + it->nrefs;
		if (e->nsts + it->nrefs > sts_need)
			sts_need = e->nsts + it->nrefs;
		double *val = e->row_val + e->nvals;
		uint8_t *st = e->row_st + e->nsts;
		struct derive_env env = { es->dt, wall_s, e->user_hz, e->ulong_bits };

		struct derive_plan *plan = &it->plan;
		/* a replayed read without this set: no rows for it, or (csv,
		 * tsv, table: fixed columns) its rows without values */
		if (es->absent || (it->rows_es && it->rows_es->absent)) {
			if (!e->absent_rows)
				continue;
			if (!it->built)
				item_build(e, it);
			frame_add_runs(e, it, e->nrows, FRAME_RUN_UNIFORM, FRAME_RUN_UNIFORM,
				       ST_NO_INSTANCE);
			e->nrows += it->nrefs;
			continue;
		}
		/* every instance of a few, and _Total when it is the last
		 * row: one pass; the rows between (groups) as below */
		size_t u0 = 0, r0 = 0, u_end = it->nruns;
		if (!snapshot && item_every_instance(it)) {
			int tot = it->nruns > 1 && it->refs[it->nruns - 1].kind == REF_TOTAL;
			size_t last = it->nrefs - 1;
			if (derive_small_run(&es->ds, it->c, plan, &env, val, st,
					     tot ? val + last : NULL, tot ? st + last : NULL)) {
				u0 = 1;
				r0 = it->refs[0].n;
				u_end -= (size_t)tot;
			}
		}
		for (size_t u = u0, r = r0; u < u_end; u++) {
			if (it->refs[u].kind == REF_GROUP && !it->rows_es) {
				/* a run of groups: their totals together */
				group_values(es, it->c, &it->refs[u], snapshot, &env, plan,
					     val + r, st + r);
				r += it->refs[u].n;
				continue;
			}
			if (it->refs[u].kind == REF_CUR && !it->rows_es) {
				/* a run of instances: derived together */
				derive_run(&(struct derive_span){ es->cur, snapshot ? NULL : &es->ds,
								  !snapshot && !es->have_prev, NULL,
								  it->refs[u].n, 0, NULL, plan },
					   it->c, it->need, it->refs[u].idx, &env, val + r, st + r);
				r += it->refs[u].n;
				continue;
			}
			for (uint32_t q = 0; q < it->refs[u].n; q++, r++) {
				const struct row_ref *ref = &it->refs[u];
				uint32_t idx = ref->idx + q;
				struct value v = { 0, ST_NO_INSTANCE };

				switch (ref->kind) {
				case REF_SINGLE:
					if (es->cur->ninstances == 0) {
						v.status = ST_UNSUPPORTED;
						break;
					}
					/* fall through */
				case REF_CUR: {
					size_t i = ref->kind == REF_SINGLE ? 0 : idx;
					if (it->rows_es) {
						v = rows_value(e, it, r, snapshot);
						break;
					}
					struct field_deltas d;
					uint64_t words[SET_MAX_FIELDS];
					/* a one-read type reads no delta */
					uint8_t pair = eset_pair_of(es, i, snapshot);
					int paired = !snapshot && pair == ST_OK &&
						     counter_type_needs_two(it->c->type);
					if (paired)
						delta_store_get(&es->ds, i, it->need, words, &d);
					v = derive_value(es->cur, it->c, &es->cur->inst[i],
							 paired ? &d : NULL, (enum value_status)pair,
							 &env);
					break;
				}
				case REF_TOTAL:
					if (!es->cur->valid) {
						v.status = ST_UNSUPPORTED;
						break;
					}
					if (it->rows_es)
						v = rows_value(e, it, r, snapshot);
					else
						v = derive_total_span(it->c, &(struct derive_span){
							es->cur, snapshot ? NULL : &es->ds,
							!snapshot && !es->have_prev, NULL,
							es->cur->ninstances, 1, NULL, plan },
							&env);
					break;
				case REF_GROUP: /* a rows item's (the others' above) */
					v = rows_value(e, it, r, snapshot);
					break;
				case REF_GONE:
				case REF_MISSING:
					v.status = es->cur->valid ? ST_NO_INSTANCE : ST_UNSUPPORTED;
					break;
				}
				val[r] = v.v;
				st[r] = v.status;
			}
		}
		/* a set that can supply nothing (eBPF under --root): its rows
		 * are one status, and no value is kept */
		if (rows_uniform(it->c, val, st, it->nrefs)) {
			frame_add_runs(e, it, e->nrows, FRAME_RUN_UNIFORM, FRAME_RUN_UNIFORM, st[0]);
		} else if (one_status(st, it->nrefs)) {
			frame_add_runs(e, it, e->nrows, (uint32_t)e->nvals, FRAME_RUN_UNIFORM, st[0]);
			e->nvals += it->nrefs;
		} else {
			frame_add_runs(e, it, e->nrows, (uint32_t)e->nvals, (uint32_t)e->nsts, 0);
			e->nvals += it->nrefs;
			e->nsts += it->nrefs;
		}
		e->nrows += it->nrefs;
	}
	/* the value arrays grew by doubling: fitted to what a frame needs */
	if (e->vals_cap > vals_need + vals_need / 4) {
		e->vals_cap = vals_need ? vals_need : 1;
		e->row_val = xrealloc(e->row_val, e->vals_cap * sizeof(*e->row_val));
	}
	if (e->sts_cap > sts_need + sts_need / 4) {
		e->sts_cap = sts_need ? sts_need : 1;
		e->row_st = xrealloc(e->row_st, e->sts_cap * sizeof(*e->row_st));
	}
	for (size_t s = 0; s < e->nsets; s++)
		if (!e->sets[s].absent)
			e->sets[s].have_prev = 1;
	/* The column tables grew by doubling (and built their lookup
	 * tables) while columns came: fitted once a frame adds none. */
	if (e->cols.n != ncols) {
		e->cols_unsettled = 1;
	} else if (e->cols_unsettled) {
		idmap_trim(&e->cols);
		strset_trim(&e->names);
		e->cols_unsettled = 0;
	}
	f->wall_ns = e->wall_ns;
	f->host = e->host;
	e->fcols.ids = &e->cols;
	e->fcols.counters = e->counters;
	e->fcols.names = &e->names;
	f->nrows = e->nrows;
	f->rows = NULL;
	f->runs = e->runs;
	f->nruns = e->nruns;
	f->value = e->row_val;
	f->status = e->row_st;
	f->cols = &e->fcols;
	if (e->cfg->smooth)
		engine_smooth(e);
}

/* ---- set-up and tear-down ----------------------------------------------- */

static void
engine_free_parts(struct engine *e)
{
	for (size_t k = 0; k < e->nitems; k++) {
		item_clear(&e->items[k]);
		free(e->items[k].refs);
		free(e->items[k].ref_rows);
		free(e->items[k].rows);
		free(e->items[k].path);
		free(e->items[k].pattern);
	}
	free(e->items);
	for (size_t s = 0; s < e->nsets; s++) {
		struct eset *es = &e->sets[s];
		if (es->state && !e->replay)
			es->prov->close(es->state);
		free(es->pctx);
		raw_set_free(&es->a);
		raw_set_free(&es->b);
		strset_free(&es->names);
		free(es->prev_of);
		free(es->patterns);
		free(es->delta_st);
		free(es->gone);
		groups_clear(es);
		free(es->groups);
		free(es->members);
		free(es->by_name);
	}
	free(e->sets);
	idmap_free(&e->cols);
	strset_free(&e->setctr);
	strset_free(&e->names);
	free(e->smooth);
	free(e->runs);
	free(e->row_val);
	free(e->row_st);
	free(e->counters);
	if (e->fs && !e->fs_borrowed)
		procfs_free(e->fs);
	if (e->log) {
		struct err ignored;
		gclog_writer_close(e->log, &ignored);
	}
	free(e->log_mono);
	free(e->log_sets);
	free(e->log_index);
	replay_close(e->replay);
	free(e->catalog_own);
	for (size_t i = 0; i < e->nown_paths; i++)
		free(e->own_paths[i]);
	free(e->own_paths);
}

static uint8_t
kernel_word_bits(void)
{
	struct utsname u;

	if (uname(&u) == 0 && !strstr(u.machine, "64") && strcmp(u.machine, "s390x") != 0)
		return 32;
	return 64;
}

/* Resolve paths and open providers. Returns an exit status. */
static int
engine_setup(struct engine *e, const struct config *cfg, const char *const *paths,
	     size_t npaths, struct err *err)
{
	struct engine *donor = e->donor;

	memset(e, 0, sizeof(*e));
	e->donor = donor;
	e->cfg = cfg;
	e->catalog = providers;
	e->ncatalog = nproviders;
	if (cfg->ninputs) {
		struct replay_opts ro = { cfg->begin, cfg->end, cfg->every, cfg->utc };
		int rc;
		e->replay = replay_open((const char *const *)cfg->inputs, cfg->ninputs, &ro, &rc, err);
		if (!e->replay)
			return rc;
		e->ncatalog = replay_ncatalog(e->replay);
		e->catalog_own = xcalloc(e->ncatalog ? e->ncatalog : 1, sizeof(*e->catalog_own));
		for (size_t i = 0; i < e->ncatalog; i++)
			e->catalog_own[i] = replay_provider(e->replay, i);
		e->catalog = e->catalog_own;
		/* the outputs with fixed columns (csv, tsv, the table's
		 * header) get every set's rows in every frame */
		const char *dot = cfg->output_file ? strrchr(cfg->output_file, '.') : NULL;
		e->absent_rows = columns_fixed(cfg) ||
				 (cfg->format ? strcasecmp(cfg->format, "table") == 0
					      : !dot || strcasecmp(dot, ".json") != 0);
		snprintf(e->host, sizeof(e->host), "%s", replay_host(e->replay));
		if (!paths) {
			/* what was being watched, else all the logs hold */
			paths = replay_paths(e->replay, &npaths);
			if (!npaths) {
				e->own_paths = xcalloc(e->ncatalog ? e->ncatalog : 1, sizeof(char *));
				for (size_t i = 0; i < e->ncatalog; i++) {
					char buf[512];
					const struct counter_set *cs = e->catalog[i]->set;
					snprintf(buf, sizeof(buf), "\\%s%s\\*", cs->name,
						 cs->multi_instance ? "(*)" : "");
					e->own_paths[i] = xstrdup(buf);
				}
				e->nown_paths = e->ncatalog;
				paths = (const char *const *)e->own_paths;
				npaths = e->nown_paths;
			}
		}
	} else {
		engine_hostname(cfg, e->host, sizeof(e->host));
		if (!paths && cfg->capture.nfiles) {
			paths = pcap_default_paths;
			npaths = ARRAY_SIZE(pcap_default_paths);
		} else if (!paths) {
			paths = default_paths;
			npaths = ARRAY_SIZE(default_paths);
		}
	}
	e->paths = paths;
	e->npaths = npaths;
	for (size_t i = 0; i < npaths; i++)
		if (resolve_path(e, paths[i], err) < 0) {
			/* a path from a counter file: say where it stands */
			if (paths == (const char *const *)cfg->paths && cfg->path_origins &&
			    cfg->path_origins[i]) {
				char msg[sizeof(err->msg)];
				snprintf(msg, sizeof(msg), "%s", err->msg);
				err_set(err, "%s: %s", cfg->path_origins[i], msg);
			}
			return EXIT_USAGE;
		}
	size_t *moved = sets_in_catalog_order(e);
	for (size_t k = 0; k < e->nitems; k++) {
		struct item *it = &e->items[k];
		it->es = &e->sets[moved[(uintptr_t)it->es]];
		if (it->rows_es)
			it->rows_es = &e->sets[moved[(uintptr_t)it->rows_es - 1]];
	}
	free(moved);
	for (size_t k = 0; k < e->nitems; k++)
		if (cfg->capture.nfiles &&
		    strcmp(e->items[k].es->prov->set->name, "Network Capture") != 0) {
			err_set(err, "'%s': --pcap replays a capture file, which holds only "
				     "\\Network Capture counters", e->items[k].path);
			return EXIT_USAGE;
		}
	if (cfg->mode == MODE_SAMPLE) {
		/* a capture option with nothing to act on is a mistake */
		int captures = 0, files;
		for (size_t k = 0; k < e->nitems && !e->replay; k++)
			captures |= strcmp(e->items[k].es->prov->set->name, "Network Capture") == 0;
		const char *idle = capture_idle_option(&cfg->capture, captures, &files);
		if (idle) {
			err_set(err, files ? "%s has no effect on --pcap files (it is for live capture)"
					   : "%s has no effect: the run captures no \\Network Capture "
					     "counter", idle);
			return EXIT_USAGE;
		}
	}
	if (e->replay) {
		if (!e->nitems) {
			err_set(err, "the log holds no counters: nothing to replay");
			return EXIT_USAGE;
		}
		return engine_setup_sets(e, err);
	}
	if (e->donor) {
		/* the sets taken over read through the old engine's files */
		e->fs = e->donor->fs;
		e->fs_borrowed = 1;
	} else {
		e->fs = procfs_new((const char *const *)cfg->roots, cfg->nroots);
	}
	if (procfs_begin_read(e->fs, 0, err) < 0)
		return cfg->nroots ? EXIT_USAGE : EXIT_RUNTIME;
	if (cfg->nroots) {
		/* A root that has neither proc nor sys is a typing error. */
		for (size_t r = 0; r < cfg->nroots; r++) {
			if (procfs_begin_read(e->fs, r, err) < 0)
				return EXIT_USAGE;
			if (!procfs_exists(e->fs, "proc") && !procfs_exists(e->fs, "sys")) {
				err_set(err, "--root %s has neither proc/ nor sys/ in it", cfg->roots[r]);
				return EXIT_USAGE;
			}
		}
		procfs_begin_read(e->fs, 0, err);
	}
	e->user_hz = 100;
	e->ulong_bits = 64;
	if (procfs_is_live(e->fs)) {
		long hz = sysconf(_SC_CLK_TCK);
		e->user_hz = hz > 0 ? (uint32_t)hz : 100;
		e->ulong_bits = kernel_word_bits();
	}
	return engine_setup_sets(e, err);
}

/* Nonzero when pattern p is one of list's n. */
static int
pattern_in(const char *p, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(p, list[i]) == 0)
			return 1;
	return 0;
}

/* engine_reopen: the donor's set that es may take as it is open: the same
 * provider, asked the same instances (a provider opened per request opens
 * those, and reads every field), else asked no field more. NULL for none. */
static struct eset *
donor_set(const struct engine *e, const struct eset *es, const struct provider_request *req)
{
	const struct engine *d = e->donor;

	if (!d)
		return NULL;
	for (size_t s = 0; s < d->nsets; s++) {
		struct eset *ds = &d->sets[s];
		if (ds->prov != es->prov || !ds->state || !ds->pctx)
			continue;
		if (!es->prov->open_request)
			return es->ctx.needed & ~ds->pctx->needed ? NULL : ds;
		size_t dn = 0;
		while (ds->patterns && ds->patterns[dn])
			dn++;
		for (size_t i = 0; i < req->ninstances; i++)
			if (!pattern_in(req->instances[i], ds->patterns, dn))
				return NULL;
		for (size_t i = 0; i < dn; i++)
			if (!pattern_in(ds->patterns[i], req->instances, req->ninstances))
				return NULL;
		return ds;
	}
	return NULL;
}

/* Once es's source is open: its reads keep only the words of the fields
 * it can supply (an eBPF set that is not loaded stores none). */
static void
eset_keep_supplied(struct engine *e, struct eset *es)
{
	uint64_t keep = es->ctx.needed;

	if (es->prov->supplied && es->state)
		keep &= es->prov->supplied(es->state);
	if (keep == es->ctx.needed)
		return;
	raw_set_keep(&es->a, keep);
	raw_set_keep(&es->b, keep);
	raw_set_pair(&es->a, &es->b, es->names_shown ? &e->names : &es->names);
}

/* Work out what each set must read, and open its provider (a replay's
 * sets take the replay's state). Returns an exit status. */
static int
engine_setup_sets(struct engine *e, struct err *err)
{
	for (size_t s = 0; s < e->nsets; s++) {
		struct eset *es = &e->sets[s];
		uint64_t needed = 0;
		int util = 0;
		for (size_t k = 0; k < e->nitems; k++) {
			if (e->items[k].es == es) {
				needed |= counter_fields(e->items[k].c);
				util |= e->items[k].c->type == CT_UTILIZATION;
			}
			if (e->items[k].rows_es == es && e->items[k].rows_c) {
				needed |= counter_fields(e->items[k].rows_c);
				util |= e->items[k].rows_c->type == CT_UTILIZATION;
			}
		}
		es->ctx.fs = e->fs;
		es->ctx.needed = fields_needed(es->prov->set, needed, util);
		raw_set_init(&es->a, es->prov->set);
		raw_set_init(&es->b, es->prov->set);
		/* store only what a counter derives from (a log records that) */
		raw_set_keep(&es->a, es->ctx.needed);
		raw_set_keep(&es->b, es->ctx.needed);
		/* both reads' names stored once, and their instance
		 * records while the list stays the same; a set whose every
		 * instance is a column keeps its names in the columns' */
		for (size_t k = 0; k < e->nitems; k++)
			es->names_shown |= e->items[k].es == es && e->items[k].pattern &&
					   strcmp(e->items[k].pattern, "*") == 0;
		strset_by_place(&es->names); /* names, not numbers */
		raw_set_pair(&es->a, &es->b, es->names_shown ? &e->names : &es->names);
		es->cur = &es->a;
		es->prev = &es->b;
		if (e->replay) {
			for (size_t i = 0; i < e->ncatalog; i++)
				if (e->catalog[i] == es->prov)
					es->cat = i;
			es->state = replay_state(e->replay, es->cat);
			replay_seed(e->replay, es->cat, es->cur);
			continue;
		}
		struct provider_request req = { NULL, 0, &e->cfg->capture,
						e->cfg->mode != MODE_SAMPLE };
		if (es->prov->open_request) {
			es->patterns = xcalloc(e->nitems + 1, sizeof(*es->patterns));
			for (size_t k = 0; k < e->nitems; k++)
				if (e->items[k].es == es && e->items[k].pattern)
					es->patterns[req.ninstances++] = e->items[k].pattern;
			req.instances = es->patterns;
		}
		es->adopted = donor_set(e, es, &req);
		if (es->adopted) {
			/* open already, the same way: taken as it is */
			es->state = es->adopted->state;
			es->pctx = es->adopted->pctx;
			eset_keep_supplied(e, es);
			continue;
		}
		es->pctx = xcalloc(1, sizeof(*es->pctx));
		*es->pctx = es->ctx;
		if (es->prov->open_request)
			es->state = es->prov->open_request(es->pctx, &req, err);
		else
			es->state = es->prov->open(es->pctx, err);
		if (!es->state) {
			/* a provider opened per request names what it opened
			 * ("capturing on eth0 needs CAP_NET_RAW: ...") */
			char msg[sizeof(err->msg)];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			if (!es->prov->open_request)
				err_set(err, "%s: %s", es->prov->set->name, msg);
			return EXIT_RUNTIME;
		}
		eset_keep_supplied(e, es);
		/* a listing (-l, -q) prints no notes; the live screen also
		 * shows an added set's in its status line (engine_notice) */
		const char *note = es->prov->notice ? es->prov->notice(es->state) : NULL;
		if (note && !e->notice[0])
			snprintf(e->notice, sizeof(e->notice), "%s", note);
		if (note && e->cfg->mode == MODE_SAMPLE)
			fprintf(stderr, "getcounter: %s\n", note);
	}
	return EXIT_OK;
}

/* After the first read (or before the first wait, whichever comes first):
 * every source is open, and so are the outputs and the log main opened
 * after engine_open, so what opening needed can go now (a capture's
 * privileges). The first read of a live capture looks at no frame. */
static GC_HOT int
engine_sources_opened(struct engine *e, struct err *err)
{
	if (e->sources_opened)
		return 0;
	e->sources_opened = 1;
	for (size_t s = 0; s < e->nsets; s++) {
		struct eset *es = &e->sets[s];
		if (es->state && es->prov->opened && !e->replay &&
		    es->prov->opened(es->state, err) < 0)
			return -1;
	}
	return 0;
}

/* Nonzero when the output keeps the first sample's columns (csv, tsv). */
static int
columns_fixed(const struct config *cfg)
{
	const char *f = cfg->format, *dot;

	if (!f && cfg->output_file && (dot = strrchr(cfg->output_file, '.')) != NULL)
		f = dot + 1;
	return f && (strcasecmp(f, "csv") == 0 || strcasecmp(f, "tsv") == 0);
}

/* After the first frame: name each path that matched no instance (its
 * wildcards matched nothing, or the instance it names is not there). */
static void
warn_empty_paths(const struct engine *e)
{
	/* a path's items are made together (add_item), one after another */
	for (size_t k = 0, end; k < e->nitems; k = end) {
		const char *path = e->items[k].path;
		size_t rows = 0;
		for (end = k; end < e->nitems && e->items[end].path_index == e->items[k].path_index;
		     end++) {
			const struct item *it = &e->items[end];
			for (size_t u = 0; u < it->nruns; u++)
				rows += it->refs[u].kind != REF_MISSING ? it->refs[u].n : 0;
		}
		if (!rows && path)
			fprintf(stderr, "getcounter: '%s' matches no instance now%s\n", path,
				columns_fixed(e->cfg) ? " (csv and tsv keep the columns of the first "
							"sample)" : "");
	}
}

struct engine *
engine_open(const struct config *cfg, const char *const *paths, size_t npaths, int *status,
	    struct err *err)
{
	struct engine *e = xcalloc(1, sizeof(*e));

	if (npaths == 0)
		paths = NULL;
	*status = engine_setup(e, cfg, paths, npaths, err);
	if (*status != EXIT_OK) {
		engine_free_parts(e);
		free(e);
		return NULL;
	}
	return e;
}

struct engine *
engine_reopen(struct engine *old, const struct config *cfg, const char *const *paths,
	      size_t npaths, int *status, struct err *err)
{
	struct engine *e = xcalloc(1, sizeof(*e));
	int live = !cfg->nroots && !cfg->ninputs && !cfg->capture.nfiles && old->fs &&
		   procfs_is_live(old->fs);

	e->donor = live ? old : NULL;
	if (npaths == 0)
		paths = NULL;
	*status = engine_setup(e, cfg, paths, npaths, err);
	for (size_t s = 0; s < e->nsets; s++) {
		struct eset *es = &e->sets[s];
		if (!es->adopted)
			continue;
		if (*status != EXIT_OK) {
			/* the old engine keeps what it had */
			es->state = NULL;
			es->pctx = NULL;
		} else {
			es->adopted->state = NULL;
			es->adopted->pctx = NULL;
		}
		es->adopted = NULL;
	}
	if (*status != EXIT_OK) {
		engine_free_parts(e);
		free(e);
		return NULL;
	}
	if (e->fs_borrowed) {
		old->fs = NULL;
		e->fs_borrowed = 0;
	}
	e->donor = NULL;
	/* a log still to take its file's place goes on with the new engine */
	e->log_tmp = old->log_tmp;
	e->log_final = old->log_final;
	old->log_tmp = old->log_final = NULL;
	return e;
}

void
engine_log_replace(struct engine *e, const char *tmp, const char *final)
{
	free(e->log_tmp);
	free(e->log_final);
	e->log_tmp = xstrdup(tmp);
	e->log_final = xstrdup(final);
}

/* The log's first record is in: it takes its file's place. 0, or -1 with
 * err (the file to replace is left as it was). */
static int
engine_log_commit(struct engine *e, struct err *err)
{
	int rc = 0;

	if (rename(e->log_tmp, e->log_final) < 0) {
		rc = err_set(err, "cannot replace %s: %s", e->log_final, strerror(errno));
		unlink(e->log_tmp);
	}
	free(e->log_tmp);
	free(e->log_final);
	e->log_tmp = e->log_final = NULL;
	return rc;
}

/* Record the read just taken to the log. 0, 1 when the log is full and
 * the only output (the run ends), or -1 with err. */
static int
engine_log_read(struct engine *e, struct err *err)
{
	int gap = 0;

	for (size_t s = 0; s < e->nsets; s++) {
		struct eset *es = &e->sets[s];
		/* a relog: a set of the log for each source of the set */
		for (size_t k = 0; k < es->nsources; k++) {
			int here = !es->absent && (!e->replay || k == es->source);
			e->log_sets[e->log_index[s] + k] = here ? es->cur : NULL;
			/* what the writer wrote last for it, most likely */
			e->log_sets[e->nlog + e->log_index[s] + k] = here ? es->prev : NULL;
			e->log_mono[e->log_index[s] + k] = es->cur->mono_ns;
		}
		/* a break in a source is a gap of the log; the first read of
		 * a source is a gap the set of its own shows anyway */
		if (e->replay)
			gap |= !es->absent && es->gap_kind == 1 && e->log_started;
		else
			gap |= !es->absent && !es->have_prev && e->log_started;
	}
	/* a replayed gap stays a gap in the log it is relogged to; a new
	 * boot id starts a session that records it */
	if (gap && e->replay && replay_priming(e->replay))
		gclog_writer_restart(e->log); /* a source's next recording */
	else if (gap && e->replay)
		gclog_writer_gap(e->log);
	if (e->boot_changed && e->log_started)
		gclog_writer_boot(e->log, e->boot_id);
	int rc = gclog_writer_sample(e->log, e->wall_ns, e->log_mono, e->log_sets,
				     e->log_sets + e->nlog, err);
	e->log_started = 1;
	if (rc == 1) {
		fprintf(stderr, "getcounter: %s\n", err->msg);
		e->log_stopped = 1;
		return e->log_only ? 1 : 0;
	}
	return rc;
}

GC_HOT int
engine_step(struct engine *e, size_t read_index, int snapshot, const struct frame **out,
	    struct err *err)
{
	int rc;

	*out = NULL;
	rc = engine_read(e, read_index, err);
	if (rc != 0)
		return rc;
	for (size_t s = 0; s < e->nsets; s++)
		if (!e->sets[s].absent)
			eset_pair(&e->sets[s]);
	if (e->log && !e->log_stopped) {
		rc = engine_log_read(e, err);
		if (rc != 0)
			return rc;
		if (e->log_tmp && !e->log_stopped && engine_log_commit(e, err) < 0)
			return -1;
	}
	/* after the first read and its record: a run refused there (a log
	 * too small for one read) can still remove the file it made */
	if (engine_sources_opened(e, err) < 0)
		return -1;
	if (!snapshot && !e->sets_primed) {
		for (size_t s = 0; s < e->nsets; s++)
			if (!e->sets[s].absent)
				e->sets[s].have_prev = 1;
		e->sets_primed = 1;
		if (e->cfg->verbose)
			warn_fast_links(e);
		return 0;
	}
	if (!snapshot && e->replay && replay_priming(e->replay)) {
		/* a later session's first read primes, as the recording did */
		for (size_t s = 0; s < e->nsets; s++)
			if (!e->sets[s].absent)
				e->sets[s].have_prev = 1;
		return 0;
	}
	engine_frame(e, snapshot, &e->frame);
	e->frame.index = ++e->nframes;
	if (e->nframes == 1 && e->cfg->mode == MODE_SAMPLE)
		warn_empty_paths(e);
	*out = &e->frame;
	return 0;
}

/* The key of an instance of es's set for the log (gclog_key_fn). */
static size_t
eset_instance_key(void *ctx, const char *instance, char *buf, size_t n)
{
	struct eset *es = ctx;

	if (es->prov->instance_key && es->state)
		return es->prov->instance_key(es->state, instance, buf, n);
	if (!es->prov->open)
		return replay_key(es->state, instance, buf, n); /* a replayed set */
	return 0;
}

/* A small file of the root's (osrelease, boot_id) into buf, or leave it. */
static void
root_fact(struct engine *e, const char *path, char *buf, size_t n)
{
	char tmp[256];
	long got = procfs_read_small(e->fs, path, tmp, sizeof(tmp));

	if (got > 0) {
		tmp[strcspn(tmp, "\n")] = '\0';
		snprintf(buf, n, "%.*s", (int)(n - 1), tmp);
	}
}

int
engine_log_open(struct engine *e, int fd, const char *name, int only, struct err *err)
{
	const struct config *cfg = e->cfg;
	struct gclog_writer_opts o = { cfg->max_size, cfg->circular, cfg->append, 0 };
	struct gclog_session s;

	gclog_session_local(&s);
	if (e->replay) {
		/* a relog keeps the recording machine's facts */
		const struct gclog_session *src = replay_session(e->replay);
		if (src) {
			uint64_t id = s.id;
			s = *src;
			s.id = id;
		}
	} else if (e->fs && !procfs_is_live(e->fs)) {
		snprintf(s.host, sizeof(s.host), "%s", e->host);
		s.user_hz = e->user_hz;
		s.ulong_bits = e->ulong_bits;
		s.boot_id[0] = '\0';
		snprintf(s.kernel, sizeof(s.kernel), "unknown");
		procfs_begin_read(e->fs, 0, NULL);
		root_fact(e, "proc/sys/kernel/osrelease", s.kernel, sizeof(s.kernel));
		root_fact(e, "proc/sys/kernel/random/boot_id", s.boot_id, sizeof(s.boot_id));
	} else {
		s.user_hz = e->user_hz;
		s.ulong_bits = e->ulong_bits;
	}
	e->log = gclog_writer_open(fd, name, &o, &s, err);
	if (!e->log)
		return -1;
	e->log_only = only;
	size_t nlog = 0;
	for (size_t k = 0; k < e->nsets; k++) {
		e->sets[k].nsources = e->replay ? replay_nsources(e->replay, e->sets[k].cat) : 1;
		nlog += e->sets[k].nsources;
	}
	e->log_mono = xcalloc(nlog ? nlog : 1, sizeof(*e->log_mono));
	e->log_sets = xcalloc(2 * nlog + 1, sizeof(*e->log_sets));
	e->nlog = nlog;
	e->log_index = xcalloc(e->nsets ? e->nsets : 1, sizeof(*e->log_index));
	/* sets in catalogue order, so a replay lists them as live does */
	for (size_t ci = 0; ci < e->ncatalog; ci++) {
		size_t k = 0;
		while (k < e->nsets && e->sets[k].prov != e->catalog[ci])
			k++;
		if (k == e->nsets)
			continue;
		e->log_index[k] = gclog_writer_nsets(e->log);
		struct eset *es = &e->sets[k];
		const struct counter_desc **list = xcalloc(e->nitems * 2 + 1, sizeof(*list));
		size_t n = 0;
		for (size_t i = 0; i < e->nitems; i++) {
			const struct counter_desc *pair[2] = { NULL, NULL };
			if (e->items[i].es == es)
				pair[0] = e->items[i].c;
			if (e->items[i].rows_es == es)
				pair[1] = e->items[i].rows_c;
			for (int j = 0; j < 2; j++) {
				int have = !pair[j];
				for (size_t m = 0; m < n && !have; m++)
					have = list[m] == pair[j];
				if (!have)
					list[n++] = pair[j];
			}
		}
		int keyed = es->prov->instance_key || (e->replay && es->prov->rows_match);
		for (size_t src = 0; src < es->nsources; src++)
			gclog_writer_add_set(e->log, es->prov->set, list, n, es->ctx.needed,
					     keyed ? eset_instance_key : NULL, es);
		free(list);
	}
	gclog_writer_paths(e->log, e->paths, e->npaths);
	if (gclog_writer_check(e->log, err) < 0)
		return -2; /* --max-size too small for these counters: a usage error */
	return 0;
}

void
engine_close(struct engine *e)
{
	if (!e)
		return;
	if (e->log_tmp) /* refused before its first record: the old file stays */
		unlink(e->log_tmp);
	free(e->log_tmp);
	free(e->log_final);
	engine_free_parts(e);
	free(e);
}

const char *
engine_notice(const struct engine *e)
{
	return e->notice[0] ? e->notice : NULL;
}

const char *const *
engine_paths(const struct engine *e, size_t *n)
{
	*n = e->npaths;
	return e->paths;
}

static void
sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = { (time_t)(deadline_ns / 1000000000u),
			       (long)(deadline_ns % 1000000000u) };
	while (!stop_requested && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Sleep until deadline, or let a source that waits on its own (a live
 * capture) do so. 0, or -1 with err. */
int
engine_wait(struct engine *e, uint64_t deadline, struct err *err)
{
	/* no frame is looked at before the capture gives up its privileges */
	if (engine_sources_opened(e, err) < 0)
		return -1;
	for (size_t s = 0; s < e->nsets; s++) {
		struct eset *es = &e->sets[s];
		if (es->prov->wait && es->state)
			return es->prov->wait(es->state, deadline, err);
	}
	sleep_until(deadline);
	return 0;
}

/* An output's write error (the reason) as "cannot write FILE: reason". */
static void
output_error(const struct config *cfg, struct err *err)
{
	char reason[sizeof(err->msg)];

	snprintf(reason, sizeof(reason), "%s", err->msg);
	err_set(err, "cannot write %s: %s",
		cfg->output_file && strcmp(cfg->output_file, "-") != 0 ? cfg->output_file
								      : "standard output",
		reason);
}

/* Why the read woken at woke, for the deadline due, ran past the next
 * one (next), now: 1 when the system woke it after next had passed (a
 * stall of the machine), 0 when it overran (the read and its output took
 * longer than what was left); the worst of each is kept for -v. */
static int
skip_late(struct engine *e, uint64_t woke, uint64_t due, uint64_t next, uint64_t now)
{
	if (woke >= next) {
		if (woke - due > e->late_max_ns)
			e->late_max_ns = woke - due;
		return 1;
	}
	if (now - woke > e->overrun_max_ns)
		e->overrun_max_ns = now - woke;
	return 0;
}

/* -v: how many deadlines were skipped, and why (skip_late). */
static void
skip_report(const struct engine *e)
{
	uint64_t over = e->skipped - e->skipped_late;

	fprintf(stderr, "getcounter: %llu reads skipped:", (unsigned long long)e->skipped);
	if (e->skipped_late)
		fprintf(stderr,
			" %llu woken after the next deadline (the system ran getcounter up to "
			"%.1f ms late)%s",
			(unsigned long long)e->skipped_late, (double)e->late_max_ns / 1e6,
			over ? ";" : "");
	if (over)
		fprintf(stderr, " %llu overran (a read and its output took up to %.1f ms)",
			(unsigned long long)over, (double)e->overrun_max_ns / 1e6);
	fputc('\n', stderr);
}

int
engine_run(struct engine *e, const struct output *output, FILE *out, struct err *err)
{
	const struct config *cfg = e->cfg;
	struct output_opts oo = { cfg->precision, cfg->utc, 0,
				  cfg->continuous || e->replay || cfg->capture.nfiles,
				  e->replay ? replay_subsecond(e->replay)
					    : cfg->interval != (double)(long)cfg->interval };
	void *ost = NULL;
	int rc, snapshot = cfg->nroots == 1;
	uint64_t reads, interval_ns = (uint64_t)(cfg->interval * 1e9 + 0.5);
	struct sigaction sa;
	struct stat st;
	int regular = 0;
	off_t record_start = -1;

	if (output && isatty(fileno(out))) {
		struct winsize ws;
		const char *cols = getenv("COLUMNS");
		oo.width = 80;
		if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
			oo.width = ws.ws_col;
		else if (cols && atoi(cols) > 0)
			oo.width = atoi(cols);
	}
	if (output) {
		ost = output->open(out, &oo, err);
		if (!ost) {
			rc = EXIT_RUNTIME;
			goto done;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* Where the current record starts in a regular file: a write that
	 * fails part way (a full disk) is cut back to it, so the file never
	 * ends in half a line. */
	regular = output && fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode);

	reads = snapshot ? 1 : (uint64_t)cfg->samples + 1;
	if ((e->replay || cfg->capture.nfiles) && !cfg->samples_given)
		reads = UINT64_MAX; /* the whole log, or capture file */
	uint64_t deadline = now_mono_ns(), woke = deadline;
	for (uint64_t r = 0; cfg->continuous || r < reads; r++) {
		const struct frame *f;
		if (r > 0 && e->fs && procfs_is_live(e->fs) && !cfg->capture.nfiles) {
			uint64_t now = now_mono_ns();
			deadline += interval_ns;
			int late = deadline <= now &&
				   skip_late(e, woke, deadline - interval_ns, deadline, now);
			while (deadline <= now) {
				deadline += interval_ns;
				e->skipped++;
				e->skipped_late += (uint64_t)late;
			}
			if (engine_wait(e, deadline, err) < 0) {
				rc = EXIT_RUNTIME;
				goto done;
			}
			woke = now_mono_ns();
			if (stop_requested)
				break;
		}
		int got = engine_step(e, cfg->nroots ? (size_t)r : 0, snapshot, &f, err);
		if (got < 0) {
			rc = EXIT_RUNTIME;
			goto done;
		}
		if (got > 0)
			break; /* the end of a replay, or a full log */
		if (!f && r > 0 && e->replay && reads != UINT64_MAX)
			reads++; /* a later recording's first read: -n counts rows */
		record_start = regular ? ftello(out) : -1;
		if (f && output && output->write(ost, f, err) < 0) {
			output_error(cfg, err);
			rc = EXIT_RUNTIME;
			goto done;
		}
		record_start = -1;
		if (stop_requested)
			break;
	}
	rc = EXIT_OK;
done:
	if (ost) {
		struct err cerr;
		if (output->close(ost, &cerr) < 0 && rc == EXIT_OK) {
			*err = cerr;
			output_error(cfg, err);
			rc = EXIT_RUNTIME;
		}
	}
	if (e->log) {
		struct err cerr;
		if (gclog_writer_close(e->log, &cerr) < 0 && rc == EXIT_OK) {
			*err = cerr;
			rc = EXIT_RUNTIME;
		}
		e->log = NULL;
	}
	if (e->replay)
		replay_report(e->replay);
	if (record_start >= 0) {
		/* drop what stdio still holds of the failed record, then cut
		 * the file back to the last whole record */
		__fpurge(out);
		if (ftruncate(fileno(out), record_start) != 0)
			(void)0; /* the error already reported stands */
	}
	if (cfg->verbose && e->skipped)
		skip_report(e);
	return rc;
}

/* ---- listing ------------------------------------------------------------ */

static int
set_matches(const struct counter_set *s, const struct config *cfg)
{
	if (cfg->npatterns == 0)
		return 1;
	for (size_t i = 0; i < cfg->npatterns; i++) {
		const char *p = cfg->patterns[i];
		if (glob_match_ci(p, s->name) || (s->alias && glob_match_ci(p, s->alias)))
			return 1;
	}
	return 0;
}

/* The paths of every counter of the sets cfg's patterns match, instances
 * as (*); owned by the caller (free each, then the array). */
static char **
list_paths(const struct config *cfg, const struct engine *cat, size_t *n)
{
	char **paths = NULL;

	*n = 0;
	for (size_t i = 0; i < cat->ncatalog; i++) {
		const struct counter_set *s = cat->catalog[i]->set;
		if (!set_matches(s, cfg))
			continue;
		/* every instance: the wildcard's, and the one only a name
		 * reaches (Network Capture's any) */
		for (int only = 0; only < (s->named_only ? 2 : 1); only++)
			for (size_t k = 0; k < s->ncounters; k++) {
				char buf[512];
				path_format(buf, sizeof(buf), ".", s->name,
					    only ? s->named_only : s->multi_instance ? "*" : NULL,
					    s->counters[k].name);
				paths = xrealloc(paths, (*n + 1) * sizeof(char *));
				paths[(*n)++] = xstrdup(buf);
			}
	}
	return paths;
}

/* Open the matching sets and read them once (for -x and -v), or NULL with
 * *rc and err set. */
static struct engine *
list_engine(const struct config *cfg, const struct engine *cat, int *rc, struct err *err)
{
	size_t n;
	char **paths = list_paths(cfg, cat, &n);
	struct config c2 = *cfg;
	struct engine *e;
	const struct frame *f;

	c2.nroots = cfg->nroots ? 1 : 0;
	e = engine_open(&c2, (const char *const *)paths, n, rc, err);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	if (e && engine_step(e, 0, 1, &f, err) < 0) {
		*rc = EXIT_RUNTIME;
		engine_close(e);
		return NULL;
	}
	/* the engine keeps a pointer to c2 only during open and step */
	if (e)
		e->cfg = cfg;
	return e;
}

/* A counter's help text, with what its provider says of this machine (and
 * instance) when it says something. */
static void
print_help(FILE *out, struct engine *e, const struct counter_set *set,
	   const struct counter_desc *c, const char *instance, const char *indent)
{
	char note[256];
	size_t len = 0;

	for (size_t s = 0; e && s < e->nsets; s++) {
		const struct eset *es = &e->sets[s];
		if (es->prov->set == set && es->prov->describe && es->state)
			len = es->prov->describe(es->state, c, instance, note, sizeof(note));
	}
	fprintf(out, "%s%s%s%s\n", indent, c->help, len ? " " : "", len ? note : "");
}

/* -q -x: a path per current instance. */
static void
list_instances(struct engine *e, FILE *out)
{
	const struct frame *f = &e->frame;
	struct pathbuf pb = { 0 };

	for (size_t r = 0; r < f->nrows; r++) {
		/* like -q, without the \\HOST prefix */
		struct frame_row tmp;
		const struct frame_row *row = frame_row_at(f, r, &tmp);
		if (row->status == ST_NO_INSTANCE)
			continue; /* a named-only instance that is not there */
		/* the path of an empty host is "\\\Set...": from its third \ */
		fprintf(out, "%s\n", frame_row_path(&(struct frame){ .host = "" }, row, &pb) + 2);
		if (e->cfg->verbose)
			print_help(out, e, row->set, row->counter, row->instance, "        ");
	}
	free(pb.buf);
}

int
engine_list(const struct config *cfg, FILE *out, struct err *err)
{
	int any = 0, rc = EXIT_OK;
	struct engine cat;
	struct engine *e = NULL;

	/* the catalogue: every provider, or what the logs hold */
	memset(&cat, 0, sizeof(cat));
	cat.catalog = providers;
	cat.ncatalog = nproviders;
	if (cfg->ninputs) {
		struct replay_opts ro = { NULL, NULL, 0, cfg->utc };
		cat.replay = replay_open((const char *const *)cfg->inputs, cfg->ninputs, &ro, &rc,
					 err);
		if (!cat.replay)
			return rc;
		cat.ncatalog = replay_ncatalog(cat.replay);
		cat.catalog_own = xcalloc(cat.ncatalog ? cat.ncatalog : 1, sizeof(*cat.catalog_own));
		for (size_t i = 0; i < cat.ncatalog; i++)
			cat.catalog_own[i] = replay_provider(cat.replay, i);
		cat.catalog = cat.catalog_own;
		snprintf(cat.host, sizeof(cat.host), "%s", replay_host(cat.replay));
	} else {
		engine_hostname(cfg, cat.host, sizeof(cat.host));
	}
	for (size_t i = 0; i < cfg->npatterns; i++) {
		int hit = 0;
		for (size_t k = 0; k < cat.ncatalog; k++) {
			const struct counter_set *s = cat.catalog[k]->set;
			if (glob_match_ci(cfg->patterns[i], s->name) ||
			    (s->alias && glob_match_ci(cfg->patterns[i], s->alias)))
				hit = 1;
		}
		if (!hit) {
			char inputs[1024] = "";
			for (size_t k = 0; k < cfg->ninputs; k++) {
				size_t len = strlen(inputs);
				snprintf(inputs + len, sizeof(inputs) - len, "--input %s ",
					 cfg->inputs[k]);
			}
			err_set(err, "no counter set matches '%s' (getcounter %s-l lists them)",
				cfg->patterns[i], inputs);
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (cfg->verbose || cfg->instances) {
		e = list_engine(cfg, &cat, &rc, err);
		if (!e)
			goto out;
	}
	if (cfg->mode == MODE_LIST_PATHS && cfg->instances) {
		list_instances(e, out);
		goto out;
	}
	for (size_t i = 0; i < cat.ncatalog; i++) {
		const struct counter_set *s = cat.catalog[i]->set;
		if (!set_matches(s, cfg))
			continue;
		if (cfg->mode == MODE_LIST_SETS) {
			fprintf(out, "%sCounterSetName : %s\n", any ? "\n" : "", s->name);
			if (s->alias)
				fprintf(out, "Alias          : %s\n", s->alias);
			fprintf(out, "CounterSetType : %s\n",
				s->multi_instance ? "MultiInstance" : "SingleInstance");
			fprintf(out, "Description    : %s\n", s->help);
			fprintf(out, "Paths          :\n");
		}
		for (size_t k = 0; k < s->ncounters; k++) {
			char buf[512];
			path_format(buf, sizeof(buf), cat.host, s->name,
				    s->multi_instance ? "*" : NULL, s->counters[k].name);
			/* -l shows paths without the host, as Get-Counter does */
			const char *shown = buf + 2 + strlen(cat.host);
			if (cfg->mode == MODE_LIST_SETS)
				fprintf(out, "    %s\n", shown);
			else
				fprintf(out, "%s\n", shown);
			if (cfg->verbose)
				print_help(out, e, s, &s->counters[k], NULL, "        ");
		}
		any = 1;
	}
	rc = EXIT_OK;
out:
	engine_close(e);
	replay_close(cat.replay);
	free(cat.catalog_own);
	return rc;
}
