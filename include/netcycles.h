/*
 * netcycles.h - the eBPF source of COUNTERS.md section 10, shared by the
 * two sets that use it: Per Processor Network Activity (src/provider/
 * softnet.c, its per-CPU softirq and NAPI counters) and Per Processor
 * Network Activity Cycles (src/provider/netcycles.c, per interface per
 * CPU). The programs are loaded by the first netcycles_acquire and
 * unloaded by the last netcycles_release; between the two, a CPU's counts
 * are plain memory (netcycles_cpu), read with no system call.
 */
#ifndef GETCOUNTER_NETCYCLES_H
#define GETCOUNTER_NETCYCLES_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

#include "netcycles_abi.h"
#include "procfs.h"

/* The tracepoints, in groups a counter needs together. */
enum {
	NC_HOOK_RAISE = 1 << 0,      /* softirq_raise (NET_RX latency) */
	NC_HOOK_SOFTIRQ = 1 << 1,    /* softirq_entry and softirq_exit */
	NC_HOOK_NAPI = 1 << 2,       /* napi_poll */
	NC_HOOK_IRQ = 1 << 3,        /* irq_handler_entry (handler runs) */
	NC_HOOK_RECEIVE = 1 << 4,    /* netif_receive_skb */
	NC_HOOK_START_XMIT = 1 << 5, /* net_dev_start_xmit (send time) */
	NC_HOOK_XMIT = 1 << 6,       /* net_dev_xmit */
	NC_HOOK_IRQ_TIME = 1 << 7,   /* irq_handler_exit (handler time) */
};

/* Load the programs (once; counted) and attach those of hooks (NC_HOOK_*)
 * not yet attached: no tracepoint runs a program no requested counter
 * needs, and no program is even loaded that none needs (a later acquire
 * asking for more loads a new object with the union and carries the
 * counts over). A listing (-l, -q) never acquires. fs must be live: under --root nothing is loaded. 0, or -1 when
 * the counters cannot be had here; the reason is kept for
 * netcycles_notice. Every acquire, failed or not, is matched by a
 * netcycles_release; the last one detaches and unloads everything. */
int netcycles_acquire(struct procfs *fs, unsigned hooks);
void netcycles_release(void);

/* CPU cpu's counts (written by the programs as we read), or NULL when not
 * loaded or cpu is not a possible CPU. Valid until the last release. */
const struct nc_cpu *netcycles_cpu(unsigned cpu);

/* CPU cpu's nominal frequency in Hz (cpufreq base_frequency, else
 * cpuinfo_max_freq, else the TSC rate), into *hz: 0, or -1 when unknown. */
int netcycles_freq_hz(unsigned cpu, uint64_t *hz);

/* The nominal frequency of cpu found now, without loading anything
 * (cpufreq base_frequency, else cpuinfo_max_freq, else, live, the TSC
 * rate), into *hz; where it comes from ("cpufreq base_frequency", ...), or
 * NULL with *hz 0 when none is known. For -l -v, which loads nothing. */
const char *netcycles_nominal_hz(struct procfs *fs, unsigned cpu, uint64_t *hz);

/* Where the frequency of cpu comes from ("base_frequency", ...), or "". */
const char *netcycles_freq_source(unsigned cpu);

/* How the programs are attached ("tp_btf", "raw_tp"), or NULL. */
const char *netcycles_mode(void);

/* Why the counters are UNSUPPORTED, once per run (NULL after, or when
 * nothing failed): the one line main prints. */
const char *netcycles_notice(void);

/* Track interface ifindex (of our namespace) with IRQs irqs[0 .. n) in
 * slot (below NC_MAX_IF), or forget it; IRQs or ifindexes beyond the
 * tables' sizes are not tracked. No-ops when not loaded. */
void netcycles_slot_set(unsigned slot, uint32_t ifindex, const unsigned *irqs, size_t n);
void netcycles_slot_clear(unsigned slot, uint32_t ifindex, const unsigned *irqs, size_t n);

/* How the run's instance patterns name interface ifname: NC_RANK_EXACT
 * when one names it before its last '/' without a wildcard ("veth3/0",
 * "veth3/_Total"), else NC_RANK_WILDCARD when one with a wildcard matches
 * one of its instances (IF/_Total or IF/CPU for cpus[0 .. ncpus)), else
 * NC_RANK_NONE. patterns NULL: every interface is asked for (WILDCARD). */
enum { NC_RANK_EXACT, NC_RANK_WILDCARD, NC_RANK_NONE };
int netcycles_if_rank(const char *ifname, const char *const *patterns, size_t npatterns,
		      const unsigned *cpus, size_t ncpus);

/* Which of n interfaces (in name order, rank[i] NC_RANK_*) the programs
 * follow, at most max: every NC_RANK_EXACT first, then NC_RANK_WILDCARD,
 * each in order; never NC_RANK_NONE. pick[i] is set to 1 for those, 0 for
 * the others. Returns how many named ones (EXACT or WILDCARD) were left
 * out. */
size_t netcycles_pick(const int *rank, size_t n, size_t max, uint8_t *pick);

/* The TSC rate from a perf_event_mmap_page's time_shift and time_mult
 * (ns = cycles x mult >> shift): 2^shift x 1e9 / mult Hz, or 0 when mult
 * is 0. */
uint64_t netcycles_tsc_hz(uint16_t time_shift, uint32_t time_mult);

/* From /proc/cpuinfo text (NUL-terminated): its first "cpu MHz" in Hz
 * when its first "flags" line has constant_tsc and no aperfmperf (then the
 * kernel prints its cpu_khz, the calibrated TSC rate, there: x86 without
 * cpufreq), else 0. */
uint64_t netcycles_cpuinfo_hz(const char *cpuinfo);

#endif
