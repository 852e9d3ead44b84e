/*
 * procfs.h - root-aware access to /proc and /sys (and fixture trees under
 * --root). Files stay open and are re-read with pread from offset 0 (a
 * /proc file on to its end) into buffers reused across reads; a file
 * several providers need is read once per read generation.
 *
 * Paths are relative to the root and start with "proc/" or "sys/".
 */
#ifndef GETCOUNTER_PROCFS_H
#define GETCOUNTER_PROCFS_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct procfs;
struct pfile;

/* A procfs over the live system (nroots 0) or a series of fixture roots.
 * The roots are copied. Owned by the caller: procfs_free. */
struct procfs *procfs_new(const char *const *roots, size_t nroots);
void procfs_free(struct procfs *fs);

/* Nonzero when reading the real /proc and /sys (netlink may be used). */
int procfs_is_live(const struct procfs *fs);
/* Number of roots in the series (1 when live). */
size_t procfs_nroots(const struct procfs *fs);
/* The root directory in use ("/" when live), for messages. */
const char *procfs_root(const struct procfs *fs);

/* Start read number index: switches to root index of a series (closing the
 * previous root's files) and starts a new generation, so every file is read
 * afresh. Returns 0, or -1 if the root cannot be opened. */
int procfs_begin_read(struct procfs *fs, size_t index, struct err *err);
/* The read generation procfs_begin_read started: what a tap that keeps
 * values for its own read tags them with. */
uint64_t procfs_generation(const struct procfs *fs);

/* What the providers of one procfs share, one slot each: cpuidle.c's
 * reader of the cpufreq and cpuidle files, so that Processor, Processor
 * Information and Processor Idle State read each file once a generation.
 * NULL until its user sets it; the user clears it when done. */
enum procfs_shared {
	PROCFS_SHARED_CPUIDLE,
	PROCFS_NSHARED,
};
void **procfs_shared(struct procfs *fs, enum procfs_shared which);

/* The file at relpath, shared by everyone asking for the same path; owned by
 * fs. Never NULL (a missing file shows at read time). */
struct pfile *procfs_file(struct procfs *fs, const char *relpath);

/* An attribute file at relpath (a sysfs attribute of a few bytes, parsed
 * as soon as it is read): like procfs_file, but without a buffer of its
 * own: every attribute reads into one buffer of fs, so pfile_read's text
 * is valid only until the next pfile_read of any attribute. Thousands of
 * them then cost a small record each. */
struct pfile *procfs_attr(struct procfs *fs, const char *relpath);

/* Keep pf's text with a blank (space, tab) as one space and each run of
 * two or more as two spaces, and read it through a window (16 KiB on the
 * stack), never whole into a buffer of the file's size: for a file of
 * aligned columns (/proc/interrupts, /proc/softirqs: eleven bytes a cell,
 * most of them blanks), whose text then takes about a third of the bytes.
 * A reader that splits on blanks, or tells one blank from a wider gap (the
 * kernel's two spaces before an IRQ's actions), reads it as before. A
 * property of the file: every reader of it gets folded text. Not for
 * attribute files (procfs_attr). */
void pfile_fold_blanks(struct pfile *pf);

/* pf's number in its procfs (1, 2, ...): 4 bytes to keep, not a pointer,
 * for a caller that keeps thousands of files. */
uint32_t pfile_number(const struct pfile *pf);
/* The file of a number pfile_number gave. */
struct pfile *procfs_pfile(struct procfs *fs, uint32_t number);

/* The whole content of pf, NUL-terminated, read at most once per
 * generation; *len gets its length. NULL (err filled, errno kept) when the
 * file is missing or unreadable. The buffer is owned by pf and valid until
 * the next generation (for an attribute, see procfs_attr: until the next
 * attribute read, and read again if asked for after another). */
const char *pfile_read(struct pfile *pf, size_t *len, struct err *err);

/* Called with each line of a streamed file, without its newline (a last
 * line without one too). */
typedef void (*pfile_line_fn)(void *arg, const char *line, size_t len);

/* Each line of pf, in order, to fn: read on to its end through a window
 * (PFILE_LINE_MAX bytes on the stack), never whole into a buffer of the
 * file's size, for a large file of records one reader parses as it goes
 * (/proc/diskstats of 4,000 disks is 600 KiB). A line longer than the
 * window is skipped, with a pfile_malformed note. Every tap of pf not
 * handed this generation's lines yet is handed them in the same pass, so
 * a second reader does not read the file again. Not cached: each call
 * reads the file. 0, or -1 (err filled, errno kept) when pf cannot be
 * opened or read; lines handed out before a failed read stand. */
int pfile_lines(struct pfile *pf, pfile_line_fn fn, void *arg, struct err *err);
#define PFILE_LINE_MAX (16 * 1024)

/* Make fn(arg) a tap of pf: handed the lines of pf whenever another reader
 * reads it (pfile_lines, or pfile_read when it reads the file afresh), at
 * most once a generation. At most 4 taps per procfs; fn(arg) must outlive
 * fs or be removed (pfile_untap). */
void pfile_tap(struct pfile *pf, pfile_line_fn fn, void *arg);
void pfile_untap(struct pfile *pf, pfile_line_fn fn, void *arg);
/* Nonzero when tap fn(arg) of pf was handed this generation's lines (in
 * full: a read that failed part way does not count). */
int pfile_tapped(const struct pfile *pf, pfile_line_fn fn, void *arg);

/* A provider found pf's text unlike anything the kernel writes there (no
 * cpu line in a /proc/stat): a note for the user, kept once a run per file
 * ("proc/stat: why: its counters are left blank") until the engine takes
 * it with procfs_next_note and says it. Providers never print. */
void pfile_malformed(struct pfile *pf, const char *why);
/* The next note pfile_malformed kept, or NULL. */
const char *procfs_next_note(struct procfs *fs);

/* Called by procfs_list for each entry: its name and d_type (DT_DIR,
 * DT_LNK, DT_REG... or DT_UNKNOWN). Nonzero stops the listing. */
typedef int (*procfs_entry_fn)(const char *name, unsigned char type, void *arg);

/* List directory relpath (but "." and ".."), in the order the kernel gives,
 * calling fn for each entry. The directory stays open (as a file does) and
 * is read again from its start each call into a buffer on the stack: allocates
 * nothing in steady state. 0, or -1 (errno set) when it cannot be opened
 * or read. */
int procfs_list(struct procfs *fs, const char *relpath, procfs_entry_fn fn, void *arg);

/* Read a small file (a sysfs attribute) once, not cached: into buf (size n,
 * NUL-terminated, trailing newline removed). Returns the length, or -1. */
long procfs_read_small(struct procfs *fs, const char *relpath, char *buf, size_t n);

/* Read a small file holding one unsigned decimal; 0 or -1. */
int procfs_read_u64(struct procfs *fs, const char *relpath, uint64_t *out);

/* A descriptor of directory relpath in the current root (O_DIRECTORY,
 * close-on-exec; the caller closes it), or -1. To list a directory, use
 * procfs_list, which allocates nothing (opendir's DIR is a malloc). */
int procfs_open_dir(struct procfs *fs, const char *relpath);
/* A read-only descriptor of file relpath in the current root (close-on-
 * exec; the caller closes it), or -1 (errno set): for a provider that keeps
 * thousands of attribute files itself, a descriptor each (procfs_fd_take
 * first), and no record. */
int procfs_open_file(struct procfs *fs, const char *relpath);
/* Changes whenever the root in use is opened anew (another root of a
 * series): descriptors of files in the old one are stale. */
uint64_t procfs_root_serial(const struct procfs *fs);
/* A descriptor kept open outside procfs (cpuidle's attributes) counts
 * against the same budget as procfs's own files: take one before keeping
 * it (0, or -1 when the budget is spent: open it per read instead), give
 * it back when it is closed. Two budgets of their own summed past the
 * process's limit (512 CPUs: 4,096 cpuidle files beside 19,000 others). */
int procfs_fd_take(struct procfs *fs);
void procfs_fd_give(struct procfs *fs);
/* access / readlink relative to the current root. */
int procfs_exists(struct procfs *fs, const char *relpath);
long procfs_readlink(struct procfs *fs, const char *relpath, char *buf, size_t n);

#endif
