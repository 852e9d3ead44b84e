/*
 * netsnmp.h - the parser of the kernel's network MIB tables behind the TCP,
 * UDPv4, IPv4 and ICMP sets: /proc/net/snmp and /proc/net/netstat print
 * each table as a pair of lines, "Tcp: Name1 Name2 ..." then
 * "Tcp: value1 value2 ...". Kernels add names over the years (anywhere in
 * the line), so values are found by header name: the header is mapped to
 * column numbers once, and again only when its text changes; each read then
 * walks the value line by column. The /proc/net/snmp6 "name value" lines of
 * the IPv6, UDPv6 and ICMPv6 sets are parsed with procstat_keys().
 *
 * The parser lives in src/provider/tcpip.c. It never fails on odd input: a
 * name the header lacks, a missing value line, a value line shorter than
 * its header, or a negative value (Tcp MaxConn is -1) leaves that value not
 * found. Buffers are NUL-terminated at len (pfile_read guarantees it).
 */
#ifndef GETCOUNTER_NETSNMP_H
#define GETCOUNTER_NETSNMP_H

#include <stddef.h>
#include <stdint.h>

#define NETSNMP_MAX_NAMES 64

/* One table ("Tcp", "TcpExt") and the names wanted from it, with the
 * mapping of its last header. Owned by the caller: netsnmp_table_init,
 * netsnmp_table_free. */
struct netsnmp_table {
	const char *prefix;       /* "Tcp": lines starting "Tcp:" (borrowed) */
	const char *const *names; /* names[i] is the header name of value i (borrowed) */
	size_t nnames;            /* at most NETSNMP_MAX_NAMES */
	char *header;             /* the header text last mapped (after the colon) */
	size_t header_len, header_cap;
	int mapped;               /* header and the fields below are valid */
	uint64_t have;            /* bit i: the header has names[i] */
	size_t ncols;             /* names the header has */
	uint8_t name_at[NETSNMP_MAX_NAMES]; /* their indexes in names, by column */
	uint32_t col[NETSNMP_MAX_NAMES];    /* their columns (0 = first value), ascending */
	uint64_t remaps;          /* how many headers were mapped (for tests) */
};

/* Prepare table t for the lines starting "prefix:" and the values named
 * names[0 .. nnames-1]; prefix and names must outlive t. */
void netsnmp_table_init(struct netsnmp_table *t, const char *prefix, const char *const *names,
			size_t nnames);
/* Free what t owns. */
void netsnmp_table_free(struct netsnmp_table *t);

/*
 * Find t's header and value lines in buf (the whole file) and store value
 * i in vals[i] for each i with its bit set in want. Returns the mask of
 * values found. The header is remapped when its text differs from the last
 * one; otherwise nothing is allocated.
 */
uint64_t netsnmp_table_read(struct netsnmp_table *t, const char *buf, size_t len, uint64_t want,
			    uint64_t *vals);

#endif
