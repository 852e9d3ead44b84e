/*
 * diskcounters.h - the block counters PhysicalDisk and LogicalDisk share
 * (COUNTERS.md 4): the diskstats fields in the kernel's order and the
 * counter descriptors over them, as initializer lists, so each set's table
 * is these plus its own rows and no counter is spelled twice. A file using
 * them names its fields F_READS ... F_MS_FLUSHING (= DS_READS ...).
 */
#ifndef GETCOUNTER_DISKCOUNTERS_H
#define GETCOUNTER_DISKCOUNTERS_H

#include "counter.h"
#include "diskstats.h"

#define DISK_SECTOR 512.0 /* a diskstats sector is always 512 bytes */
#define DISK_MS 0.001     /* diskstats times are milliseconds */

/* The 17 diskstats fields, for a field_desc table indexed by F_*. */
#define DISK_FIELD_DESCS \
	[F_READS] = { "reads", FW_ULONG, FK_COUNTER, FB_NONE, PROM("reads", "", 0) }, \
	[F_READS_MERGED] = { "reads merged", FW_ULONG, FK_COUNTER, FB_NONE, \
			     PROM("merged_reads", "", 0) }, \
	[F_SECTORS_READ] = { "sectors read", FW_ULONG, FK_COUNTER, FB_NONE, \
			     PROM("read", "bytes", 512) }, \
	[F_MS_READING] = { "ms reading", FW_32, FK_COUNTER, FB_DISK_MS, \
			   PROM("read_time", "seconds", 1e-3) }, \
	[F_WRITES] = { "writes", FW_ULONG, FK_COUNTER, FB_NONE, PROM("writes", "", 0) }, \
	[F_WRITES_MERGED] = { "writes merged", FW_ULONG, FK_COUNTER, FB_NONE, \
			      PROM("merged_writes", "", 0) }, \
	[F_SECTORS_WRITTEN] = { "sectors written", FW_ULONG, FK_COUNTER, FB_NONE, \
				PROM("written", "bytes", 512) }, \
	[F_MS_WRITING] = { "ms writing", FW_32, FK_COUNTER, FB_DISK_MS, \
			   PROM("write_time", "seconds", 1e-3) }, \
	[F_INFLIGHT] = { "I/Os in progress", FW_32, FK_GAUGE, FB_NONE, \
			 PROM("io_in_progress", "", 0) }, \
	[F_IO_TICKS] = { "io_ticks", FW_32, FK_COUNTER, FB_IO_TICKS, \
			 PROM("io_time", "seconds", 1e-3) }, \
	[F_TIME_IN_QUEUE] = { "time_in_queue", FW_32, FK_COUNTER, FB_DISK_MS, \
			      PROM("io_time_weighted", "seconds", 1e-3) }, \
	[F_DISCARDS] = { "discards", FW_ULONG, FK_COUNTER, FB_NONE, PROM("discards", "", 0) }, \
	[F_DISCARDS_MERGED] = { "discards merged", FW_ULONG, FK_COUNTER, FB_NONE, \
				PROM("merged_discards", "", 0) }, \
	[F_SECTORS_DISCARDED] = { "sectors discarded", FW_ULONG, FK_COUNTER, FB_NONE, \
				  PROM("discarded", "bytes", 512) }, \
	[F_MS_DISCARDING] = { "ms discarding", FW_32, FK_COUNTER, FB_DISK_MS, \
			      PROM("discard_time", "seconds", 1e-3) }, \
	[F_FLUSHES] = { "flushes", FW_ULONG, FK_COUNTER, FB_NONE, PROM("flushes", "", 0) }, \
	[F_MS_FLUSHING] = { "ms flushing", FW_32, FK_COUNTER, FB_DISK_MS, \
			    PROM("flush_time", "seconds", 1e-3) },

/* The block counters, for a counter_desc table. */
#define DISK_BLOCK_COUNTERS \
	{ \
		.name = "Disk Reads/sec", \
		.type = CT_RATE, \
		.num = { { F_READS, 1 } }, \
		.unit = "/s", \
		.help = "Read requests the disk completed per second.", \
	}, \
	{ \
		.name = "Disk Writes/sec", \
		.type = CT_RATE, \
		.num = { { F_WRITES, 1 } }, \
		.unit = "/s", \
		.help = "Write requests the disk completed per second.", \
	}, \
	{ \
		.name = "Disk Transfers/sec", \
		.type = CT_RATE, \
		.num = { { F_READS, 1 }, { F_WRITES, 1 } }, \
		.unit = "/s", \
		.help = "Read and write requests the disk completed per second.", \
	}, \
	{ \
		.name = "Disk Read Bytes/sec", \
		.type = CT_RATE, \
		.num = { { F_SECTORS_READ, 1 } }, \
		.scale = DISK_SECTOR, \
		.unit = "B/s", \
		.help = "Bytes read from the disk per second.", \
	}, \
	{ \
		.name = "Disk Write Bytes/sec", \
		.type = CT_RATE, \
		.num = { { F_SECTORS_WRITTEN, 1 } }, \
		.scale = DISK_SECTOR, \
		.unit = "B/s", \
		.help = "Bytes written to the disk per second.", \
	}, \
	{ \
		.name = "Disk Bytes/sec", \
		.type = CT_RATE, \
		.num = { { F_SECTORS_READ, 1 }, { F_SECTORS_WRITTEN, 1 } }, \
		.scale = DISK_SECTOR, \
		.unit = "B/s", \
		.help = "Bytes read from and written to the disk per second.", \
	}, \
	{ \
		.name = "Avg. Disk Bytes/Read", \
		.type = CT_AVG_BULK, \
		.num = { { F_SECTORS_READ, 1 } }, \
		.den = { { F_READS, 1 } }, \
		.scale = DISK_SECTOR, \
		.unit = "B", \
		.help = "Mean size of the read requests completed in the interval.", \
	}, \
	{ \
		.name = "Avg. Disk Bytes/Write", \
		.type = CT_AVG_BULK, \
		.num = { { F_SECTORS_WRITTEN, 1 } }, \
		.den = { { F_WRITES, 1 } }, \
		.scale = DISK_SECTOR, \
		.unit = "B", \
		.help = "Mean size of the write requests completed in the interval.", \
	}, \
	{ \
		.name = "Avg. Disk Bytes/Transfer", \
		.type = CT_AVG_BULK, \
		.num = { { F_SECTORS_READ, 1 }, { F_SECTORS_WRITTEN, 1 } }, \
		.den = { { F_READS, 1 }, { F_WRITES, 1 } }, \
		.scale = DISK_SECTOR, \
		.unit = "B", \
		.help = "Mean size of the read and write requests completed in the interval.", \
	}, \
	{ \
		.name = "Avg. Disk sec/Read", \
		.type = CT_AVG_TIMER, \
		.num = { { F_MS_READING, 1 } }, \
		.den = { { F_READS, 1 } }, \
		.scale = DISK_MS, \
		.unit = "s", \
		.help = "Mean time a read request took, queueing included.", \
	}, \
	{ \
		.name = "Avg. Disk sec/Write", \
		.type = CT_AVG_TIMER, \
		.num = { { F_MS_WRITING, 1 } }, \
		.den = { { F_WRITES, 1 } }, \
		.scale = DISK_MS, \
		.unit = "s", \
		.help = "Mean time a write request took, queueing included.", \
	}, \
	{ \
		.name = "Avg. Disk sec/Transfer", \
		.type = CT_AVG_TIMER, \
		.num = { { F_MS_READING, 1 }, { F_MS_WRITING, 1 } }, \
		.den = { { F_READS, 1 }, { F_WRITES, 1 } }, \
		.scale = DISK_MS, \
		.unit = "s", \
		.help = "Mean time a read or write request took, queueing included.", \
	}, \
	{ \
		.name = "Avg. Disk Read Queue Length", \
		.type = CT_QUEUELEN, \
		.num = { { F_MS_READING, 1 } }, \
		.scale = DISK_MS, \
		.unit = "", \
		.help = "Mean number of read requests outstanding over the interval.", \
	}, \
	{ \
		.name = "Avg. Disk Write Queue Length", \
		.type = CT_QUEUELEN, \
		.num = { { F_MS_WRITING, 1 } }, \
		.scale = DISK_MS, \
		.unit = "", \
		.help = "Mean number of write requests outstanding over the interval.", \
	}, \
	{ \
		.name = "Avg. Disk Queue Length", \
		.type = CT_QUEUELEN, \
		.num = { { F_MS_READING, 1 }, { F_MS_WRITING, 1 } }, \
		.scale = DISK_MS, \
		.unit = "", \
		.help = "Mean number of read and write requests outstanding over the interval.", \
	}, \
	{ \
		.name = "% Disk Time", \
		.type = CT_QUEUELEN, \
		.num = { { F_MS_READING, 1 }, { F_MS_WRITING, 1 } }, \
		.scale = 100 * DISK_MS, \
		.total = TOTAL_SUM, \
		.unit = "%", \
		.help = "The average disk queue length as a percentage; above 100 when " \
			"requests overlap.", \
	}, \
	{ \
		.name = "% Disk Read Time", \
		.type = CT_QUEUELEN, \
		.num = { { F_MS_READING, 1 } }, \
		.scale = 100 * DISK_MS, \
		.total = TOTAL_SUM, \
		.unit = "%", \
		.help = "The average read queue length as a percentage; above 100 when " \
			"reads overlap.", \
	}, \
	{ \
		.name = "% Disk Write Time", \
		.type = CT_QUEUELEN, \
		.num = { { F_MS_WRITING, 1 } }, \
		.scale = 100 * DISK_MS, \
		.total = TOTAL_SUM, \
		.unit = "%", \
		.help = "The average write queue length as a percentage; above 100 when " \
			"writes overlap.", \
	}, \
	{ \
		.name = "% Idle Time", \
		.type = CT_TIMER_INV, \
		.num = { { F_IO_TICKS, 1 } }, \
		.scale = DISK_MS, \
		.total = TOTAL_MEAN, \
		.unit = "%", \
		.help = "Share of the interval in which the disk had no request in flight.", \
	}, \
	{ \
		.name = "Current Disk Queue Length", \
		.type = CT_RAW, \
		.num = { { F_INFLIGHT, 1 } }, \
		.unit = "", \
		.help = "Requests issued to the disk and not yet completed, at the moment " \
			"of the read.", \
	}, \
	{ \
		.name = "Avg. Disk Queue Size", \
		.type = CT_QUEUELEN, \
		.num = { { F_TIME_IN_QUEUE, 1 } }, \
		.scale = DISK_MS, \
		.unit = "", \
		.help = "Mean number of requests of every kind outstanding over the interval " \
			"(iostat's aqu-sz).", \
	}, \
	{ \
		.name = "% Disk Busy Time", \
		.type = CT_TIMER, \
		.num = { { F_IO_TICKS, 1 } }, \
		.scale = DISK_MS, \
		.total = TOTAL_MEAN, \
		.clamp100 = 1, \
		.unit = "%", \
		.help = "Share of the interval in which the disk had at least one request " \
			"in flight (iostat's %util).", \
	}, \
	{ \
		.name = "Merged Reads/sec", \
		.type = CT_RATE, \
		.num = { { F_READS_MERGED, 1 } }, \
		.unit = "/s", \
		.help = "Read requests per second joined to a request already queued.", \
	}, \
	{ \
		.name = "Merged Writes/sec", \
		.type = CT_RATE, \
		.num = { { F_WRITES_MERGED, 1 } }, \
		.unit = "/s", \
		.help = "Write requests per second joined to a request already queued.", \
	}, \
	{ \
		.name = "Discards/sec", \
		.type = CT_RATE, \
		.num = { { F_DISCARDS, 1 } }, \
		.unit = "/s", \
		.help = "Discard (trim) requests the disk completed per second.", \
	}, \
	{ \
		.name = "Discard Bytes/sec", \
		.type = CT_RATE, \
		.num = { { F_SECTORS_DISCARDED, 1 } }, \
		.scale = DISK_SECTOR, \
		.unit = "B/s", \
		.help = "Bytes discarded (trimmed) per second.", \
	}, \
	{ \
		.name = "Avg. Disk sec/Discard", \
		.type = CT_AVG_TIMER, \
		.num = { { F_MS_DISCARDING, 1 } }, \
		.den = { { F_DISCARDS, 1 } }, \
		.scale = DISK_MS, \
		.unit = "s", \
		.help = "Mean time a discard request took.", \
	}, \
	{ \
		.name = "Flushes/sec", \
		.type = CT_RATE, \
		.num = { { F_FLUSHES, 1 } }, \
		.unit = "/s", \
		.help = "Cache flush requests the disk completed per second.", \
	}, \
	{ \
		.name = "Avg. Disk sec/Flush", \
		.type = CT_AVG_TIMER, \
		.num = { { F_MS_FLUSHING, 1 } }, \
		.den = { { F_FLUSHES, 1 } }, \
		.scale = DISK_MS, \
		.unit = "s", \
		.help = "Mean time a cache flush request took.", \
	},

#endif
