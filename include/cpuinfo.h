/*
 * cpuinfo.h - CPU lists ("0-3,8-11", as sys/devices/system/cpu/online and
 * sys/devices/system/node/nodeK/cpulist print them) and the NUMA node of
 * each CPU, for the Processor Information set (COUNTERS.md section 2).
 */
#ifndef GETCOUNTER_CPUINFO_H
#define GETCOUNTER_CPUINFO_H

#include <stddef.h>
#include <stdint.h>

#include "procfs.h"

#define CPUINFO_MAX_CPU 65535u /* larger CPU numbers are not a kernel's */

/* The next range of a CPU list in [*pp, end): 1 with the range in *lo ..
 * *hi (a single CPU gives lo = hi), *pp moved past it; 0 at the end, or at
 * text that is not a CPU list (a range backwards, a number above
 * CPUINFO_MAX_CPU), where *pp is set to end. Blanks and a final newline
 * are allowed; an empty list has no range. */
int cpuinfo_cpulist_next(const char **pp, const char *end, unsigned *lo, unsigned *hi);

/* The NUMA node of every CPU, from sys/devices/system/node/nodeK/cpulist.
 * Owned by the caller: cpuinfo_nodes_free. */
struct cpuinfo_nodes;
struct cpuinfo_nodes *cpuinfo_nodes_new(struct procfs *fs);
void cpuinfo_nodes_free(struct cpuinfo_nodes *nm);

/* Read the node directories of the current root again. */
void cpuinfo_nodes_load(struct cpuinfo_nodes *nm);

/* The node of cpu. A CPU no nodeK/cpulist names gives 0: with no node
 * directory at all (no NUMA), every CPU is in node 0. Live, a CPU the map
 * does not know makes it reload once (a CPU brought online since). */
unsigned cpuinfo_node_of(struct cpuinfo_nodes *nm, unsigned cpu);

#endif
