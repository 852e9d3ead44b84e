/*
 * mountinfo.h - the parsers behind the LogicalDisk set (COUNTERS.md section
 * 4): a line of /proc/self/mountinfo, the kernel's octal escapes in its
 * paths, and a line of the DIR/statvfs file that stands in for statvfs(3)
 * under --root. They take a buffer and fill a struct; nothing is allocated.
 */
#ifndef GETCOUNTER_MOUNTINFO_H
#define GETCOUNTER_MOUNTINFO_H

#include <stddef.h>
#include <stdint.h>

/* One mountinfo line. The strings point into the parsed buffer, are not
 * NUL-terminated and are still escaped (mountinfo_unescape decodes them). */
struct mountinfo_line {
	unsigned int major, minor; /* field 3: the st_dev of the filesystem */
	const char *root;          /* field 4: the directory mounted */
	size_t root_len;
	const char *point; /* field 5: the mount point */
	size_t point_len;
	const char *fstype; /* after " - " */
	size_t fstype_len;
	const char *source; /* after the type: "/dev/sda1", "tmpfs"; may be empty */
	size_t source_len;
	const char *super; /* the superblock's options: "rw,prjquota"; may be empty */
	size_t super_len;
};

/* Parse line[0..len) (no newline in it): "ID PARENT MAJ:MIN ROOT POINT
 * OPTIONS [OPTIONAL...] - TYPE SOURCE SUPEROPTIONS". Returns 0, or -1 when
 * the line lacks a field before the source or has no " - " separator. */
int mountinfo_parse_line(const char *line, size_t len, struct mountinfo_line *out);

/* Decode the escapes the kernel writes in mountinfo paths (a backslash and
 * three octal digits: \040 space, \011 tab, \012 newline, \134 backslash)
 * from s[0..len) into dst, which must hold len + 1 bytes (decoding never
 * lengthens). A backslash not followed by three octal digits is kept.
 * Returns the decoded length; dst is NUL-terminated. */
size_t mountinfo_unescape(const char *s, size_t len, char *dst);

/* Whether statfs(2) of a filesystem of type fstype[0..len) answers from
 * counters in memory (ext2/3/4, xfs, btrfs, f2fs): it cannot wait on its
 * device. */
int mountinfo_statfs_in_memory(const char *fstype, size_t len);

/* Whether a path walk through a filesystem of type fstype[0..len) never
 * waits on a server, a daemon or a device: the types above, tmpfs, ramfs
 * and devtmpfs (not NFS, CIFS, FUSE, overlay, ...). */
int mountinfo_walk_in_memory(const char *fstype, size_t len);

/* Whether the comma-separated mount options opts[0..len) enforce or
 * account project quotas (prjquota, prjjquota, pquota, pqnoenforce): a
 * statfs of a directory in a project then reads the quota, maybe from
 * the disk. */
int mountinfo_project_quota(const char *opts, size_t len);

/* Whether the decoded, absolute mount point point[0..plen) is path[0..len)
 * or a directory above it ("/" is above every absolute path): a walk to
 * path passes through what is mounted there. */
int mountinfo_point_on_path(const char *point, size_t plen, const char *path, size_t len);

/* The fields of a DIR/statvfs line, as statvfs(3) names them. */
enum mountinfo_statvfs_field {
	SV_FRSIZE,
	SV_BLOCKS,
	SV_BFREE,
	SV_BAVAIL,
	SV_FILES,
	SV_FFREE,
	SV_FAVAIL,
	SV_NFIELDS
};

/* One DIR/statvfs line: "frsize blocks bfree bavail files ffree favail
 * mountpoint", the mount point last and escaped as in mountinfo. */
struct mountinfo_statvfs_line {
	uint64_t values[SV_NFIELDS];
	const char *point; /* into the parsed buffer, escaped, not NUL-terminated */
	size_t point_len;
};

/* Parse line[0..len). Returns 0, or -1 when a number is missing or not
 * decimal, or the mount point is missing. */
int mountinfo_parse_statvfs_line(const char *line, size_t len,
				 struct mountinfo_statvfs_line *out);

#endif
