/*
 * diskstats.h - the /proc/diskstats line parser shared by the disk counter
 * sets. A line is "major minor name" and 4 (2.6 partitions), 11, 15 (4.18+)
 * or 17 (5.5+) stat fields; the parser places each value at its place in the
 * full 17-field order and says which places the line filled.
 */
#ifndef GETCOUNTER_DISKSTATS_H
#define GETCOUNTER_DISKSTATS_H

#include <stddef.h>
#include <stdint.h>

/* The stat fields in the order of a 17-field line. */
enum diskstats_field {
	DS_READS,
	DS_READS_MERGED,
	DS_SECTORS_READ,
	DS_MS_READING,
	DS_WRITES,
	DS_WRITES_MERGED,
	DS_SECTORS_WRITTEN,
	DS_MS_WRITING,
	DS_INFLIGHT,
	DS_IO_TICKS,
	DS_TIME_IN_QUEUE,
	DS_DISCARDS,
	DS_DISCARDS_MERGED,
	DS_SECTORS_DISCARDED,
	DS_MS_DISCARDING,
	DS_FLUSHES,
	DS_MS_FLUSHING,
	DS_NFIELDS
};

struct diskstats_line {
	unsigned int major, minor;
	const char *name; /* into the parsed buffer; not NUL-terminated */
	size_t name_len;
	unsigned int nfields; /* stat fields on the line (4, 11, 15, 17; more are ignored) */
	uint32_t present;     /* bit DS_x: values[DS_x] came from the line */
	uint64_t values[DS_NFIELDS];
};

/* Parse the line line[0..len) (no newline in it). Returns 0, or -1 when it
 * is not a diskstats line: fewer than 4 stat fields, 5 to 10 of them, or a
 * token that is not a decimal number. A 4-field line fills reads, sectors
 * read, writes and sectors written; a longer one fills its first fields in
 * order. Fields beyond 17 (a newer kernel) are counted and ignored. */
int diskstats_parse_line(const char *line, size_t len, struct diskstats_line *out);

/* The major and minor numbers of the line line[0..len), as
 * diskstats_parse_line reads them, without the rest: 0, or -1. */
int diskstats_line_devt(const char *line, size_t len, unsigned int *major, unsigned int *minor);

#endif
