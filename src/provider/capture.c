/*
 * capture.c - the Network Capture set (COUNTERS.md section 9): frames
 * counted by direction, destination class and protocol, from libpcap.
 *
 * Two sources, one set:
 * - files (--pcap FILE, instance "file:BASENAME"): every read is one
 *   bucket [t0 + k x interval, t0 + (k+1) x interval) from the first frame
 *   t0 (over all files), in integer ns; read 0 is t0 itself (nothing yet),
 *   and the read after the bucket holding the last frame ends the run. The
 *   stamp of a read is its bucket's end, so the engine derives rates over
 *   exactly one interval and never sleeps.
 * - live interfaces (instance = the interface name, "*" every up one,
 *   "any"): two EN10MB handles per interface filtered "inbound" and
 *   "outbound", nonblocking; the engine calls capture_wait() instead of
 *   sleeping, which polls the handles and dispatches until one block
 *   timeout past the deadline. A frame whose timestamp is before the
 *   deadline's wall time counts in this read, a later one in the next, so
 *   TPACKET_V3 blocks delivered late still land in the right sample.
 *   "any" is one SLL handle whose packet type gives the direction (SLL,
 *   not SLL2: libpcap puts stripped VLAN tags back only into SLL).
 *
 * The callback only classifies (capture_classify.h, inline for Ethernet)
 * and adds the frame to one cell of an array the state owns (frames and
 * bytes per direction, class and protocol): no allocation, no syscalls.
 * Each read expands the cells into the counters (capture_expand), so the
 * per-frame work is one classification and two additions. Counts are raw
 * and cumulative; derive makes the rates. pcap_stats' ps_drop is 32-bit
 * and cumulative since activation: read every sample, it is extended to
 * 64 bits across wraps here (one wrap between reads at most). Interface
 * Dropped is what ps_ifdrop would be, the interface's rx_missed_errors +
 * rx_fifo_errors since the start, read from sysfs here: libpcap 1.10 reads
 * them only in promiscuous mode and otherwise gives 0.
 *
 * Without libpcap (NO_PCAP=1 or no libpcap-dev) the set is still listed,
 * says "not built in", and every counter asked for is UNSUPPORTED.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <grp.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/if_packet.h>
#include <linux/filter.h>

#ifdef HAVE_PCAP
#include <pcap/pcap.h>

#include "dynlib.h"

/* libpcap is loaded when a capture opens (dynlib.h): every call below
 * goes through these pointers, named as the functions they stand for. */
#define PCAP_FUNCS(X) \
	X(pcap_create) \
	X(pcap_set_snaplen) \
	X(pcap_set_promisc) \
	X(pcap_set_timeout) \
	X(pcap_set_buffer_size) \
	X(pcap_set_tstamp_precision) \
	X(pcap_activate) \
	X(pcap_geterr) \
	X(pcap_set_datalink) \
	X(pcap_datalink) \
	X(pcap_datalink_val_to_name) \
	X(pcap_setnonblock) \
	X(pcap_get_selectable_fd) \
	X(pcap_compile) \
	X(pcap_setfilter) \
	X(pcap_freecode) \
	X(pcap_fileno) \
	X(pcap_dispatch) \
	X(pcap_stats) \
	X(pcap_close) \
	X(pcap_open_offline_with_tstamp_precision) \
	X(pcap_next_ex) \
	X(pcap_open_dead)

#define PCAP_DECLARE(f) static __typeof__(f) *dl_##f;
PCAP_FUNCS(PCAP_DECLARE)
#define PCAP_SYM(f) { #f, (void **)&dl_##f },
static const struct dynlib_sym pcap_syms[] = { PCAP_FUNCS(PCAP_SYM) };
#define pcap_create dl_pcap_create
#define pcap_set_snaplen dl_pcap_set_snaplen
#define pcap_set_promisc dl_pcap_set_promisc
#define pcap_set_timeout dl_pcap_set_timeout
#define pcap_set_buffer_size dl_pcap_set_buffer_size
#define pcap_set_tstamp_precision dl_pcap_set_tstamp_precision
#define pcap_activate dl_pcap_activate
#define pcap_geterr dl_pcap_geterr
#define pcap_set_datalink dl_pcap_set_datalink
#define pcap_datalink dl_pcap_datalink
#define pcap_datalink_val_to_name dl_pcap_datalink_val_to_name
#define pcap_setnonblock dl_pcap_setnonblock
#define pcap_get_selectable_fd dl_pcap_get_selectable_fd
#define pcap_compile dl_pcap_compile
#define pcap_setfilter dl_pcap_setfilter
#define pcap_freecode dl_pcap_freecode
#define pcap_fileno dl_pcap_fileno
#define pcap_dispatch dl_pcap_dispatch
#define pcap_stats dl_pcap_stats
#define pcap_close dl_pcap_close
#define pcap_open_offline_with_tstamp_precision dl_pcap_open_offline_with_tstamp_precision
#define pcap_next_ex dl_pcap_next_ex
#define pcap_open_dead dl_pcap_open_dead

/* Load libpcap once. 0, or -1 with err. */
static int
pcap_load(struct err *err)
{
	static const char *const sonames[] = { "libpcap.so.0.8", "libpcap.so.1", "libpcap.so",
					       NULL };
	static void *handle;

	if (!handle) {
		handle = dynlib_open(sonames, pcap_syms, ARRAY_SIZE(pcap_syms),
				     "libpcap (Debian: libpcap0.8)", err);
		if (!handle) {
			char msg[sizeof(err->msg)];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			return err_set(err, "Network Capture: %s", msg);
		}
	}
	return 0;
}
#endif

#include "capture.h"
#include "capture_classify.h"
#include "procfs.h"
#include "provider.h"

#define BIT(f) ((uint64_t)1 << (f))
#define NOT_BUILT "not built in: install libpcap-dev and rebuild"

/* Not served to Prometheus: a capture opens only the interfaces a path
 * names (open_request), which --serve does not give. */
static const struct field_desc fields[CAP_NFIELDS] = {
	[CAP_RX_FRAMES] = { "rx_frames", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_RX_BYTES] = { "rx_bytes", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_TX_FRAMES] = { "tx_frames", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_TX_BYTES] = { "tx_bytes", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_RX_DIRECTED_FRAMES] = { "rx_directed_frames", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_RX_MULTICAST_FRAMES] = { "rx_multicast_frames", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_RX_BROADCAST_FRAMES] = { "rx_broadcast_frames", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_RX_DIRECTED_BYTES] = { "rx_directed_bytes", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_RX_MULTICAST_BYTES] = { "rx_multicast_bytes", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_RX_BROADCAST_BYTES] = { "rx_broadcast_bytes", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_TX_DIRECTED_FRAMES] = { "tx_directed_frames", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_TX_MULTICAST_FRAMES] = { "tx_multicast_frames", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_TX_BROADCAST_FRAMES] = { "tx_broadcast_frames", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_TX_DIRECTED_BYTES] = { "tx_directed_bytes", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_TX_MULTICAST_BYTES] = { "tx_multicast_bytes", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_TX_BROADCAST_BYTES] = { "tx_broadcast_bytes", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_IPV4] = { "ipv4", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_IPV6] = { "ipv6", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_ARP] = { "arp", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_TCP] = { "tcp", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_UDP] = { "udp", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_ICMP] = { "icmp", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_OTHER] = { "other", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	/* ps_drop, extended from 32 bits here; rx_missed + rx_fifo errors */
	[CAP_CAPTURE_DROPPED] = { "ps_drop", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[CAP_INTERFACE_DROPPED] = { "ps_ifdrop", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
};

#define RATE(nm, f, text)                                                                   \
	{                                                                                   \
		.name = nm, .type = CT_RATE, .num = { { f, 1 } }, .unit = "/s", .help = text \
	}
#define RATE2(nm, f1, f2, text)                                                             \
	{                                                                                   \
		.name = nm, .type = CT_RATE, .num = { { f1, 1 }, { f2, 1 } }, .unit = "/s", \
		.help = text                                                                \
	}

static const struct counter_desc counters[] = {
	RATE("Frames Received/sec", CAP_RX_FRAMES,
	     "Frames received per second, as captured (with --promisc also other hosts' "
	     "frames)."),
	RATE("Frames Sent/sec", CAP_TX_FRAMES, "Frames sent per second, as captured."),
	{ .name = "Bytes Received/sec", .type = CT_RATE, .num = { { CAP_RX_BYTES, 1 } },
	  .unit = "B/s",
	  .help = "Bytes of received frames per second, at their length on the wire (not the "
		  "captured length; an SLL2 file lacks the 4 bytes of each VLAN tag the kernel "
		  "had taken off)." },
	{ .name = "Bytes Sent/sec", .type = CT_RATE, .num = { { CAP_TX_BYTES, 1 } },
	  .unit = "B/s",
	  .help = "Bytes of sent frames per second, at their length on the wire (an SLL2 file "
		  "lacks the 4 bytes of each VLAN tag the kernel had taken off)." },
	RATE("Directed Frames Received/sec", CAP_RX_DIRECTED_FRAMES,
	     "Received frames per second whose destination MAC is one station (no group bit)."),
	RATE("Multicast Frames Received/sec", CAP_RX_MULTICAST_FRAMES,
	     "Received frames per second whose destination MAC has the group bit set, other "
	     "than broadcast."),
	RATE("Broadcast Frames Received/sec", CAP_RX_BROADCAST_FRAMES,
	     "Received frames per second sent to ff:ff:ff:ff:ff:ff."),
	{ .name = "Directed Bytes Received/sec", .type = CT_RATE,
	  .num = { { CAP_RX_DIRECTED_BYTES, 1 } }, .unit = "B/s",
	  .help = "Wire bytes per second of received directed frames." },
	{ .name = "Multicast Bytes Received/sec", .type = CT_RATE,
	  .num = { { CAP_RX_MULTICAST_BYTES, 1 } }, .unit = "B/s",
	  .help = "Wire bytes per second of received multicast frames." },
	{ .name = "Broadcast Bytes Received/sec", .type = CT_RATE,
	  .num = { { CAP_RX_BROADCAST_BYTES, 1 } }, .unit = "B/s",
	  .help = "Wire bytes per second of received broadcast frames." },
	RATE("Directed Frames Sent/sec", CAP_TX_DIRECTED_FRAMES,
	     "Sent frames per second to one station (on 'any': by IP destination, "
	     "approximate)."),
	RATE("Multicast Frames Sent/sec", CAP_TX_MULTICAST_FRAMES,
	     "Sent multicast frames per second (on 'any': IP multicast destinations, "
	     "approximate)."),
	RATE("Broadcast Frames Sent/sec", CAP_TX_BROADCAST_FRAMES,
	     "Sent broadcast frames per second (on 'any': to 255.255.255.255, approximate)."),
	{ .name = "Directed Bytes Sent/sec", .type = CT_RATE,
	  .num = { { CAP_TX_DIRECTED_BYTES, 1 } }, .unit = "B/s",
	  .help = "Wire bytes per second of sent directed frames (on 'any': approximate)." },
	{ .name = "Multicast Bytes Sent/sec", .type = CT_RATE,
	  .num = { { CAP_TX_MULTICAST_BYTES, 1 } }, .unit = "B/s",
	  .help = "Wire bytes per second of sent multicast frames (on 'any': approximate)." },
	{ .name = "Broadcast Bytes Sent/sec", .type = CT_RATE,
	  .num = { { CAP_TX_BROADCAST_BYTES, 1 } }, .unit = "B/s",
	  .help = "Wire bytes per second of sent broadcast frames (on 'any': approximate)." },
	RATE("Packets Received Unicast/sec", CAP_RX_DIRECTED_FRAMES,
	     "The Network Interface name for Directed Frames Received/sec."),
	RATE2("Packets Received Non-Unicast/sec", CAP_RX_MULTICAST_FRAMES,
	      CAP_RX_BROADCAST_FRAMES,
	      "The Network Interface name for multicast plus broadcast frames received per "
	      "second."),
	RATE("Packets Sent Unicast/sec", CAP_TX_DIRECTED_FRAMES,
	     "The Network Interface name for Directed Frames Sent/sec."),
	RATE2("Packets Sent Non-Unicast/sec", CAP_TX_MULTICAST_FRAMES, CAP_TX_BROADCAST_FRAMES,
	      "The Network Interface name for multicast plus broadcast frames sent per "
	      "second."),
	RATE("IPv4 Packets/sec", CAP_IPV4,
	     "Frames per second, both directions, whose innermost ethertype (after any VLAN "
	     "tags) is IPv4."),
	RATE("IPv6 Packets/sec", CAP_IPV6,
	     "Frames per second, both directions, whose innermost ethertype is IPv6."),
	RATE("ARP Packets/sec", CAP_ARP,
	     "Frames per second, both directions, whose innermost ethertype is ARP."),
	RATE("TCP Segments/sec", CAP_TCP,
	     "Frames per second carrying TCP (the IPv4 protocol, or the IPv6 next header "
	     "after extension headers)."),
	RATE("UDP Datagrams/sec", CAP_UDP,
	     "Frames per second carrying UDP (the IPv4 protocol, or the IPv6 next header "
	     "after extension headers)."),
	RATE("ICMP Messages/sec", CAP_ICMP, "Frames per second carrying ICMPv4 or ICMPv6."),
	RATE("Other Frames/sec", CAP_OTHER,
	     "Frames per second that are not IPv4, IPv6 or ARP (so IPv4 + IPv6 + ARP + Other "
	     "= all frames)."),
	{ .name = "Avg. Frame Size", .type = CT_AVG_BULK,
	  .num = { { CAP_RX_BYTES, 1 }, { CAP_TX_BYTES, 1 } },
	  .den = { { CAP_RX_FRAMES, 1 }, { CAP_TX_FRAMES, 1 } }, .unit = "B",
	  .help = "Wire bytes per frame over the interval, both directions." },
	{ .name = "Capture Dropped", .type = CT_RAW, .num = { { CAP_CAPTURE_DROPPED, 1 } },
	  .unit = "",
	  .help = "Frames the capture lost since it started because its buffer was full "
		  "(pcap_stats ps_drop, both handles): counts above are low by this much "
		  "(raise --capture-buffer)." },
	{ .name = "Interface Dropped", .type = CT_RAW, .num = { { CAP_INTERFACE_DROPPED, 1 } },
	  .unit = "",
	  .help = "Frames the interface lost since the capture started (pcap_stats ps_ifdrop: "
		  "the kernel's rx_missed + rx_fifo only; Network Adapter's discards count "
		  "more). UNSUPPORTED on 'any'." },
};

#ifdef HAVE_PCAP
#define SET_HELP                                                                            \
	"Frames and bytes by direction, destination class and protocol, counted from a "    \
	"libpcap capture of an interface or a pcap/pcapng file (--pcap)."
#else
#define SET_HELP                                                                            \
	"Frames and bytes by direction, destination class and protocol, from libpcap. "     \
	"Not built in: install libpcap-dev and rebuild."
#endif

static const struct counter_set set = {
	.name = "Network Capture",
	.help = SET_HELP,
	.multi_instance = 1,
	.fields = fields,
	.nfields = CAP_NFIELDS,
	.counters = counters,
	.ncounters = sizeof(counters) / sizeof(counters[0]),
	.named_only = "any", /* every interface again: (*) means each one once */
};

/* -1 with err when files[i] (whose stat is a) is an earlier file again
 * ("-" is standard input: /dev/stdin beside it is the same). */
static int
same_as_earlier(const char *const *files, size_t i, const struct stat *a, struct err *err)
{
	for (size_t j = 0; j < i; j++) {
		struct stat b;
		int ok = strcmp(files[j], "-") == 0 ? fstat(STDIN_FILENO, &b) == 0
						    : stat(files[j], &b) == 0;
		if (ok && a->st_dev == b.st_dev && a->st_ino == b.st_ino)
			return err_set(err, "--pcap %s is the same file as --pcap %s: give each "
					    "file once", files[i], files[j]);
	}
	return 0;
}

int
capture_check_files(const char *const *files, size_t n, struct err *err)
{
	for (size_t i = 0; i < n; i++) {
		struct stat a;
#ifdef HAVE_PCAP
		/* a file that is not there, or not a capture, is a mistake in
		 * the command (exit 2), as for --input. Only a regular file is
		 * looked into: a pipe or FIFO (--pcap /dev/stdin, <(...)) would
		 * lose what is read, or block, and libpcap says what it is. */
		unsigned char m[4];
		if (strcmp(files[i], "-") == 0) {
			/* standard input, as tcpdump -r - */
			for (size_t j = i + 1; j < n; j++)
				if (strcmp(files[j], "-") == 0)
					return err_set(err, "--pcap - is given twice: standard "
							    "input can be read once");
			if (fstat(STDIN_FILENO, &a) < 0)
				return err_set(err, "--pcap -: standard input is closed");
			if (S_ISCHR(a.st_mode) && major(a.st_rdev) == 1 && minor(a.st_rdev) == 3)
				return err_set(err, "--pcap - is not a pcap or pcapng capture "
						    "(too short)"); /* < /dev/null */
			if (same_as_earlier(files, i, &a, err) < 0)
				return -1;
			continue;
		}
		if (stat(files[i], &a) < 0)
			return err_set(err, "cannot read --pcap %s: %s", files[i], strerror(errno));
		if (S_ISDIR(a.st_mode))
			return err_set(err, "--pcap %s is a directory, not a capture file", files[i]);
		if (S_ISCHR(a.st_mode) && major(a.st_rdev) == 1 && minor(a.st_rdev) == 3)
			return err_set(err, "--pcap %s is not a pcap or pcapng capture (too short)",
				       files[i]); /* /dev/null: empty, as an empty file is */
		if (same_as_earlier(files, i, &a, err) < 0)
			return -1;
		if (!S_ISREG(a.st_mode))
			continue;
		int fd = open(files[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return err_set(err, "cannot read --pcap %s: %s", files[i], strerror(errno));
		ssize_t got = read(fd, m, 4);
		close(fd);
		static const unsigned char magics[][4] = {
			{ 0xa1, 0xb2, 0xc3, 0xd4 }, { 0xd4, 0xc3, 0xb2, 0xa1 }, /* pcap, us */
			{ 0xa1, 0xb2, 0x3c, 0x4d }, { 0x4d, 0x3c, 0xb2, 0xa1 }, /* pcap, ns */
			{ 0x0a, 0x0d, 0x0d, 0x0a },                             /* pcapng */
		};
		int known = 0;
		for (size_t k = 0; got == 4 && k < ARRAY_SIZE(magics); k++)
			known |= memcmp(m, magics[k], 4) == 0;
		if (!known)
			return err_set(err, "--pcap %s is not a pcap or pcapng capture%s", files[i],
				       got >= 0 && got < 4 ? " (too short)" : "");
		/* a pcap file header is 24 bytes, a pcapng section header 28 */
		if (a.st_size < (m[0] == 0x0a ? 28 : 24))
			return err_set(err, "--pcap %s is not a pcap or pcapng capture (too short)",
				       files[i]);
#endif
		if (stat(files[i], &a) < 0)
			continue; /* opening it says why */
		if (same_as_earlier(files, i, &a, err) < 0)
			return -1;
	}
	return 0;
}

const char *
capture_idle_option(const struct capture_opts *o, int captures, int *files)
{
	*files = captures && o->nfiles;
	if (!captures && o->filter)
		return "--capture-filter";
	if (!captures || o->nfiles)
		return o->snaplen ? "--snaplen" : o->buffer ? "--capture-buffer"
		       : o->promisc ? "--promisc" : o->user ? "--user" : NULL;
	return NULL;
}

#ifdef HAVE_PCAP
static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The instance name of files[i]: "file:" and its base name, and "#K"
 * when it is the K-th file (K >= 2) of that base name, as PDH numbers
 * instances of one name. */
static void
file_instance(const char *const *files, size_t i, char *buf, size_t n)
{
	const char *base = base_name(files[i]);
	unsigned same = 1;

	for (size_t j = 0; j < i; j++)
		same += strcmp(base_name(files[j]), base) == 0;
	if (same > 1)
		snprintf(buf, n, "file:%s#%u", base, same);
	else
		snprintf(buf, n, "file:%s", base);
}
#endif

#ifndef HAVE_PCAP

/* Without libpcap: the names asked for, every field absent. */
struct capture {
	char **names;
	size_t n;
};

static void *
capture_open(const struct provider_ctx *ctx, const struct provider_request *req,
	     struct err *err)
{
	struct capture *c = xcalloc(1, sizeof(*c));

	(void)ctx;
	if (req->listing)
		return c;
	if (req->capture && req->capture->nfiles) {
		/* a file is the run's only source: nothing to show */
		free(c);
		err_set(err, "Network Capture: --pcap: " NOT_BUILT);
		return NULL;
	}
	c->names = xcalloc(req->ninstances + 1, sizeof(char *));
	for (size_t i = 0; i < req->ninstances; i++)
		if (!strpbrk(req->instances[i], "*?["))
			c->names[c->n++] = xstrdup(req->instances[i]);
	return c;
}

/* The one line DESIGN.md asks for (the engine prints it); the counters
 * show UNSUPPORTED. */
static const char *
capture_notice(void *state)
{
	(void)state;
	return "Network Capture: " NOT_BUILT;
}

static int
capture_read(void *state, struct raw_set *out, struct err *err)
{
	struct capture *c = state;

	(void)err;
	for (size_t i = 0; i < c->n; i++)
		raw_set_add(out, c->names[i], strlen(c->names[i]), 0);
	return 0;
}

static void
capture_close(void *state)
{
	struct capture *c = state;

	for (size_t i = 0; i < c->n; i++)
		free(c->names[i]);
	free(c->names);
	free(c);
}

static size_t
capture_describe(void *state, const struct counter_desc *cd, const char *instance, char *buf,
		 size_t n)
{
	(void)state;
	(void)cd;
	(void)instance;
	return (size_t)snprintf(buf, n, "(" NOT_BUILT ")");
}

const struct provider provider_network_capture = {
	.set = &set,
	.open_request = capture_open,
	.read = capture_read,
	.close = capture_close,
	.describe = capture_describe,
	.notice = capture_notice,
};

int
capture_check_filter(const char *filter, struct err *err)
{
	(void)filter;
	(void)err;
	return 0;
}

#else /* HAVE_PCAP */

/* The longest --capture-filter: with "(...) and outbound" around it, the
 * text fits the 4096-byte buffers it is compiled from. */
#define FILTER_MAX 4000

/* The direction keyword filter names as a word ("inbound", "outbound"),
 * or NULL. */
static const char *
direction_word(const char *filter)
{
	static const char *const words[] = { "inbound", "outbound" };

	for (const char *p = filter; *p;) {
		size_t n = 0;
		/* a token as libpcap reads one: a host name may hold '.',
		 * '-' and ':' ("outbound-proxy" is a host, not a keyword) */
		while (p[n] && (isalnum((unsigned char)p[n]) || strchr("_.-:", p[n])))
			n++;
		for (size_t k = 0; n && k < ARRAY_SIZE(words); k++)
			if (strlen(words[k]) == n && strncmp(p, words[k], n) == 0)
				return words[k];
		p += n ? n : 1;
	}
	return NULL;
}

/* The filter as a message shows it: whole when short, else its start and
 * end, so that the reason after it still fits one line. */
static const char *
filter_text(const char *filter, char *buf, size_t n)
{
	size_t len = strlen(filter);

	if (len < 80)
		return filter;
	snprintf(buf, n, "%.40s ... %s", filter, filter + len - 30);
	return buf;
}

int
capture_check_filter(const char *filter, struct err *err)
{
	static const int links[] = { DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2 };
	char why[PCAP_ERRBUF_SIZE] = "", shown[96];
	struct err ignored;
	const char *dir = filter ? direction_word(filter) : NULL;
	unsigned insns = 0;

	if (filter && strlen(filter) > FILTER_MAX)
		return err_set(err, "--capture-filter is %zu characters long: at most %d",
			       strlen(filter), FILTER_MAX);
	/* each interface has a handle per direction filtered "(USER) and
	 * inbound" / "... outbound"; a direction in USER would empty one */
	if (dir)
		return err_set(err, "--capture-filter '%s': '%s' is not allowed: Network Capture "
				    "splits frames by direction itself (Received and Sent counters)",
			       filter_text(filter, shown, sizeof(shown)), dir);
	if (!filter || !*filter || pcap_load(&ignored) < 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(links); i++) {
		pcap_t *p = pcap_open_dead(links[i], 65535);
		struct bpf_program prog;
		if (!p)
			return 0;
		int ok = pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) == 0;
		if (ok) {
			insns = prog.bf_len;
			pcap_freecode(&prog);
		} else if (!why[0]) {
			snprintf(why, sizeof(why), "%s", pcap_geterr(p));
		}
		pcap_close(p);
		/* the kernel takes BPF_MAXINSNS, the direction and the
		 * other-hosts check take a few: over that, libpcap would
		 * filter in user space, with a warning of its own */
		if (ok && insns + 8 > BPF_MAXINSNS)
			return err_set(err, "--capture-filter '%s' compiles to %u instructions: the "
					    "kernel takes at most %d",
				       filter_text(filter, shown, sizeof(shown)), insns,
				       BPF_MAXINSNS - 8);
		if (ok)
			return 0;
	}
	return err_set(err, "--capture-filter '%s': %s", filter_text(filter, shown, sizeof(shown)),
		       why);
}

#define DEFAULT_SNAPLEN 128
#define DEFAULT_BUFFER (8u << 20)
/* Without --capture-buffer, the handles of one run share at most this
 * much (each at least MIN_SHARED_BUFFER): (*) on a host with hundreds of
 * veths would otherwise map gigabytes of rings (401 interfaces: 6 GB). */
#define SHARED_BUFFERS (64u << 20)
#define MIN_SHARED_BUFFER (1u << 20)
/* Frames one pcap_dispatch reads at most (64 k: dozens of blocks). */
#define DISPATCH_MAX 65536

/* One libpcap handle and what its callback needs. */
struct handle {
	pcap_t *p;
	int fd;                /* selectable, live */
	int given;             /* enum capture_given_dir for EN10MB */
	struct source *src;
	uint32_t last_drop;    /* ps_drop at the previous read */
	uint64_t drop;         /* extended to 64 bits */
};

/* One instance: an interface or a file. */
struct source {
	char name[IF_NAMESIZE + 512];
	int link;              /* enum capture_link, -1 unsupported */
	char why[128];         /* an unsupported link type, said by describe */
	struct handle h[2];
	size_t nh;
	const uint8_t *local_mac;
	int64_t boundary;      /* live: frames before it count now, else next */
	int64_t start;         /* live: frames before it are ignored */
	struct capture_cell cells[CAPTURE_NCELLS]; /* frames before boundary */
	struct capture_cell next[CAPTURE_NCELLS];  /* live: frames after it */
	int stats;             /* live: pcap_stats gives drops */
	int has_ifdrop;        /* live on an interface: its sysfs statistics */
	uint64_t last_ifdrop;  /* rx_missed + rx_fifo at the previous read */
	uint64_t ifdrop;       /* since the start */
	/* a file */
	int done;
	int has_pending;       /* a frame read past the current bucket */
	int64_t pending_ts;
	uint32_t pending_len;
	struct capture_frame pending;
	uint64_t nframes;      /* frames read from the file */
	uint64_t out_of_order; /* frames stamped before the frame before them */
	uint64_t first_out_of_order;
	int loopback;          /* live on a loopback interface */
	int gone;              /* live: the interface went away */
	int down;              /* live: it went down, and may yet go away */
	unsigned ifindex;      /* live on an interface: its index at the open */
	int skip_otherhost;    /* live on any without --promisc */
};

struct capture {
	struct procfs *fs;     /* live: the interfaces' sysfs statistics */
	struct source *src;
	size_t n;
	int files;             /* the sources are files */
	int listing;
	const struct capture_opts *opts;
	uint64_t interval_ns;
	uint64_t grace_ns;     /* live: one block timeout */
	unsigned buffer;       /* live: each handle's ring (bytes) */
	int64_t t0;            /* files: the first frame */
	uint64_t bucket;       /* files: reads so far */
	int ended;
	struct err file_err;
	int file_failed;
	int64_t stamp_wall;
	uint64_t stamp_mono;
	int stamped;
	int started;           /* live: the first read was taken */
	char note[512];        /* what the engine says once after open */
	struct pollfd *pfd;
	struct handle **pfd_h;
	size_t npfd;
	int dropped; /* privileges given up (capture_opened) */
	uid_t drop_uid; /* whom a root run becomes (drop_target) */
	gid_t drop_gid;
};

static int64_t
ts_ns(const struct pcap_pkthdr *h)
{
	/* NANO precision: tv_usec holds nanoseconds */
	return (int64_t)h->ts.tv_sec * 1000000000 + (int64_t)h->ts.tv_usec;
}

static int
link_of(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
		return CAPTURE_EN10MB;
	case DLT_LINUX_SLL:
		return CAPTURE_SLL;
	case DLT_LINUX_SLL2:
		return CAPTURE_SLL2;
	default:
		return -1;
	}
}

/* libpcap's callback, live on "any" (cooked): classify and add, by
 * timestamp. */
static void
on_frame(u_char *user, const struct pcap_pkthdr *hdr, const u_char *bytes)
{
	struct handle *h = (struct handle *)(void *)user;
	struct source *s = h->src;
	struct capture_frame f;
	int64_t t = ts_ns(hdr);

	if (t < s->start)
		return; /* captured before the first read */
	if (s->skip_otherhost && hdr->caplen >= 2 && bytes[0] == 0 && bytes[1] == PACKET_OTHERHOST)
		return; /* SLL's packet type: another host's frame, without --promisc */
	capture_classify(s->link, bytes, hdr->caplen, h->given, s->local_mac, &f);
	capture_count(t < s->boundary ? s->cells : s->next, &f,
		      capture_wire_len(s->link, hdr->len));
}

/* The same for an Ethernet handle, whose direction is its filter's: the
 * classifier is compiled in here and the wire length is pcap's. */
static void
on_frame_eth(u_char *user, const struct pcap_pkthdr *hdr, const u_char *bytes)
{
	struct handle *h = (struct handle *)(void *)user;
	struct source *s = h->src;
	int64_t t = ts_ns(hdr);

	if (t < s->start)
		return; /* captured before the first read */
	struct capture_cell *c =
		&(t < s->boundary ? s->cells : s->next)[capture_cell_eth(bytes, hdr->caplen, h->given)];
	c->frames++;
	c->bytes += hdr->len;
}

static void
discard(u_char *user, const struct pcap_pkthdr *hdr, const u_char *bytes)
{
	(void)user;
	(void)hdr;
	(void)bytes;
}

/* Attach "(USER) and dir" in the kernel. libpcap 1.10 also runs a live
 * handle's filter in userland, where "inbound" and "outbound" match
 * nothing (libpcap issue 1482), so libpcap gets USER alone (userland
 * and kernel), and then the kernel's copy is replaced by the one with the
 * direction. Frames the ring took before that are read and dropped. */
static int
set_kernel_direction(pcap_t *p, const char *user, const char *dir, int promisc,
		     const char *what, struct err *err)
{
	char text[4096];
	struct bpf_program prog;
	struct sock_fprog fp;
	int rc;
	/* Without --promisc, other hosts' frames are not Received: a NIC
	 * filters them, but a veth or a bridge port hands them to a capture
	 * anyway. The kernel's packet type says which they are (whatever
	 * the interface's address is now): drop PACKET_OTHERHOST first. */
	static const struct sock_filter not_otherhost[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OTHERHOST, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter insns[BPF_MAXINSNS];
	char shown[96];

	if (user && *user)
		snprintf(text, sizeof(text), "(%s) and %s", user, dir);
	else
		snprintf(text, sizeof(text), "%s", dir);
	if (pcap_compile(p, &prog, text, 1, PCAP_NETMASK_UNKNOWN) < 0)
		return err_set(err, "%s: --capture-filter '%s': %s", what, user ? filter_text(user, shown, sizeof(shown)) : "",
			       pcap_geterr(p));
	fp.len = (unsigned short)prog.bf_len;
	fp.filter = (struct sock_filter *)(void *)prog.bf_insns;
	if (!promisc && strcmp(dir, "inbound") == 0) {
		/* jumps are relative: the program runs the same after the
		 * prefix */
		size_t k = ARRAY_SIZE(not_otherhost);
		if (prog.bf_len + k > BPF_MAXINSNS) {
			pcap_freecode(&prog);
			return err_set(err, "%s: --capture-filter '%s' is too long a program",
				       what, user ? filter_text(user, shown, sizeof(shown)) : "");
		}
		memcpy(insns, not_otherhost, sizeof(not_otherhost));
		memcpy(insns + k, prog.bf_insns, prog.bf_len * sizeof(*insns));
		fp.len = (unsigned short)(prog.bf_len + k);
		fp.filter = insns;
	}
	rc = setsockopt(pcap_fileno(p), SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp));
	pcap_freecode(&prog);
	if (rc < 0)
		return err_set(err, "%s: cannot attach the %s filter: %s", what, dir,
			       strerror(errno));
	for (int i = 0; i < 64 && pcap_dispatch(p, -1, discard, NULL) > 0; i++)
		; /* bounded: a busy link never runs dry */
	return 0;
}

/* Compile "(USER) and dir" (either part may be absent) and attach it. */
static int
set_filter(pcap_t *p, const char *user, const char *dir, int promisc, const char *what,
	   struct err *err)
{
	char shown[96];

	char text[4096];
	struct bpf_program prog;

	if (dir) {
		if (user && *user && set_filter(p, user, NULL, promisc, what, err) < 0)
			return -1;
		return set_kernel_direction(p, user, dir, promisc, what, err);
	}

	if (user && *user && dir)
		snprintf(text, sizeof(text), "(%s) and %s", user, dir);
	else if (user && *user)
		snprintf(text, sizeof(text), "%s", user);
	else if (dir)
		snprintf(text, sizeof(text), "%s", dir);
	else
		return 0;
	if (pcap_compile(p, &prog, text, 1, PCAP_NETMASK_UNKNOWN) < 0)
		return err_set(err, "%s: --capture-filter '%s': %s", what, user ? filter_text(user, shown, sizeof(shown)) : "",
			       pcap_geterr(p));
	int rc = pcap_setfilter(p, &prog);
	pcap_freecode(&prog);
	if (rc < 0)
		return err_set(err, "%s: cannot attach the filter: %s", what, pcap_geterr(p));
	return 0;
}

/* Add a line's worth to the note the engine prints after open. */
static void __attribute__((format(printf, 2, 3)))
add_note(struct capture *c, const char *fmt, ...)
{
	size_t len = strlen(c->note);
	va_list ap;

	if (len && len + 2 < sizeof(c->note)) {
		memcpy(c->note + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(c->note + len, sizeof(c->note) - len, fmt, ap);
	va_end(ap);
}

/* ---- files -------------------------------------------------------------- */

/* The next frame of file source s into its pending slot; at the end,
 * s->done. 0, or -1 with err. */
static int
file_next(struct source *s, struct err *err)
{
	struct pcap_pkthdr *hdr;
	const u_char *bytes;
	int rc = pcap_next_ex(s->h[0].p, &hdr, &bytes);

	if (rc == 1) {
		int64_t t = ts_ns(hdr);
		s->nframes++;
		if (s->nframes > 1 && t < s->pending_ts && !s->out_of_order++)
			s->first_out_of_order = s->nframes;
		s->pending_ts = t;
		s->pending_len = capture_wire_len(s->link, hdr->len);
		capture_classify(s->link, bytes, hdr->caplen, CAPTURE_DIR_BY_MAC, s->local_mac,
				 &s->pending);
		s->has_pending = 1;
		return 0;
	}
	s->has_pending = 0;
	s->done = 1;
	if (s->out_of_order)
		/* buckets are cut as the file is read: an earlier frame cannot
		 * go back to a bucket already given */
		fprintf(stderr, "getcounter: %s: %llu frame%s earlier than the frame before "
				"(the first: frame %llu), counted in the bucket being read\n",
			s->name + 5, (unsigned long long)s->out_of_order,
			s->out_of_order == 1 ? " is" : "s are",
			(unsigned long long)s->first_out_of_order);
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	const char *msg = pcap_geterr(s->h[0].p);
	if (strstr(msg, "truncated")) {
		/* a torn tail (a capture cut short): what came before counts,
		 * as a log's torn tail does; said once, on stderr */
		fprintf(stderr, "getcounter: %s: the file ends inside a frame (%s): the %llu "
				"frames before it are counted\n",
			s->name + 5, msg, (unsigned long long)s->nframes);
		return 0;
	}
	if (strstr(msg, "different from the type"))
		return err_set(err, "%s: its interfaces have different link types (%s): "
				    "getcounter counts one link type per file",
			       s->name + 5, msg);
	return err_set(err, "%s: %s", s->name + 5, msg);
}

static int
open_files(struct capture *c, struct err *err)
{
	const struct capture_opts *o = c->opts;
	int have_t0 = 0, filtered = o->filter && *o->filter;
	size_t nempty = 0;

	c->files = 1;
	c->src = xcalloc(o->nfiles, sizeof(*c->src));
	for (size_t i = 0; i < o->nfiles; i++) {
		struct source *s = &c->src[c->n++];
		char ebuf[PCAP_ERRBUF_SIZE] = "";
		pcap_t *p = pcap_open_offline_with_tstamp_precision(o->files[i],
								    PCAP_TSTAMP_PRECISION_NANO,
								    ebuf);
		file_instance(o->files, i, s->name, sizeof(s->name));
		if (!p && strstr(ebuf, "truncated dump file; tried to read 4 file header"))
			/* a pipe's first bytes were missing: as for a short file */
			return err_set(err, "--pcap %s is not a pcap or pcapng capture (too short)",
				       o->files[i]);
		if (!p && strstr(ebuf, "unknown file format"))
			return err_set(err, "--pcap %s is not a pcap or pcapng capture",
				       o->files[i]);
		if (!p)
			return err_set(err, "%s: %s", o->files[i], ebuf);
		s->h[0].p = p;
		s->nh = 1;
		s->h[0].src = s;
		s->link = link_of(pcap_datalink(p));
		if (s->link < 0)
			return err_set(err, "%s: unsupported link type %s: getcounter reads "
					    "Ethernet, Linux cooked (SLL) and SLL2 captures",
				       o->files[i], pcap_datalink_val_to_name(pcap_datalink(p))
							    ?: "unknown");
		s->local_mac = o->has_local_mac ? o->local_mac : NULL;
		if (set_filter(p, o->filter, NULL, 1, o->files[i], err) < 0)
			return -1;
		if (file_next(s, err) < 0)
			return -1;
		if (s->has_pending && (!have_t0 || s->pending_ts < c->t0)) {
			c->t0 = s->pending_ts;
			have_t0 = 1;
		}
		if (!s->has_pending)
			nempty++;
	}
	/* No frame anywhere: no bucket to cut, nothing could be counted (a
	 * runtime condition, exit 1). Some files empty: the others give the
	 * timeline, where the empty ones count 0, said once. */
	for (size_t i = 0; i < c->n; i++) {
		if (c->src[i].has_pending)
			continue;
		if (nempty == c->n && c->n == 1)
			return err_set(err, "%s holds no frame%s%s%s", o->files[i],
				       filtered ? " matching --capture-filter '" : "",
				       filtered ? o->filter : "", filtered ? "'" : "");
		if (nempty < c->n)
			add_note(c, "%s holds no frame%s: its counts are 0", o->files[i],
				 filtered ? " matching --capture-filter" : "");
	}
	if (nempty == c->n && c->n > 1)
		return err_set(err, "none of the %zu files holds a frame%s", c->n,
			       filtered ? " matching --capture-filter" : "");
	return 0;
}

/* One bucket: every frame before boundary into its file's counts. */
static int
read_files(struct capture *c, int64_t boundary, struct err *err)
{
	int more = 0;

	for (size_t i = 0; i < c->n; i++) {
		struct source *s = &c->src[i];
		while (s->has_pending && s->pending_ts < boundary) {
			capture_count(s->cells, &s->pending, s->pending_len);
			if (file_next(s, err) < 0)
				return -1;
		}
		more |= s->has_pending;
	}
	return more;
}

/* ---- live --------------------------------------------------------------- */

static int
open_handle(struct capture *c, struct source *s, const char *ifname, int any, struct err *err)
{
	const struct capture_opts *o = c->opts;
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	struct handle *h = &s->h[s->nh];
	pcap_t *p = pcap_create(ifname, ebuf);
	int rc, timeout_ms;

	if (!p)
		return err_set(err, "capturing on %s: %s", ifname, ebuf);
	h->p = p;
	h->src = s;
	s->nh++;
	timeout_ms = (int)(c->grace_ns / 1000000);
	if (timeout_ms < 1)
		timeout_ms = 1;
	pcap_set_snaplen(p, (int)(o->snaplen ? o->snaplen : DEFAULT_SNAPLEN));
	pcap_set_promisc(p, o->promisc ? 1 : 0);
	pcap_set_timeout(p, timeout_ms);
	pcap_set_buffer_size(p, (int)c->buffer);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	rc = pcap_activate(p);
	if (rc == PCAP_ERROR_PERM_DENIED || rc == PCAP_ERROR_PROMISC_PERM_DENIED)
		return err_set(err, "capturing on %s needs CAP_NET_RAW: run as root or "
				    "`setcap cap_net_raw+ep getcounter`", ifname);
	if (rc == PCAP_ERROR_NO_SUCH_DEVICE || rc == PCAP_ERROR_IFACE_NOT_UP) {
		/* as for any set, a named instance that is not there has no
		 * value (NO_INSTANCE); the run goes on */
		add_note(c, "capturing on %s: %s: its counters have no instance", ifname,
			 rc == PCAP_ERROR_IFACE_NOT_UP ? "the interface is not up"
						       : "no such interface");
		s->gone = 1;
		return 0;
	}
	if (rc < 0)
		return err_set(err, "capturing on %s: %s", ifname, pcap_geterr(p));
	if (rc > 0) /* a warning: the capture works, the user should know */
		add_note(c, "capturing on %s: %s", ifname,
			 rc == PCAP_WARNING_PROMISC_NOTSUP ? "promiscuous mode not supported"
			 : rc == PCAP_WARNING_TSTAMP_TYPE_NOTSUP ? "time stamp type not supported"
								 : pcap_geterr(p));
	/* SLL, not SLL2: libpcap puts a VLAN tag the kernel stripped back
	 * into an SLL (and Ethernet) frame, counting its 4 bytes, but has no
	 * place for it in SLL2, which would count each tagged frame short */
	if (any && pcap_set_datalink(p, DLT_LINUX_SLL) < 0)
		return err_set(err, "capturing on any: %s", pcap_geterr(p));
	s->link = link_of(pcap_datalink(p));
	if (!any && s->link != CAPTURE_EN10MB) {
		const char *nm = pcap_datalink_val_to_name(pcap_datalink(p));
		snprintf(s->why, sizeof(s->why), "unsupported link type %s", nm ? nm : "?");
		s->link = -1;
		/* said once: the counters of this instance are UNSUPPORTED */
		add_note(c, "capturing on %s: %s (Ethernet only): its counters are UNSUPPORTED",
			 ifname, s->why);
		return 0;
	}
	h->given = any ? CAPTURE_DIR_BY_MAC : (s->nh == 1 ? CAPTURE_DIR_IN : CAPTURE_DIR_OUT);
	if (pcap_setnonblock(p, 1, ebuf) < 0)
		return err_set(err, "capturing on %s: %s", ifname, ebuf);
	/* on any, other hosts' frames are skipped by SLL's packet type */
	s->skip_otherhost = any && !o->promisc;
	if (set_filter(p, o->filter, any ? NULL : (s->nh == 1 ? "inbound" : "outbound"),
		       o->promisc, ifname, err) < 0)
		return -1;
	h->fd = pcap_get_selectable_fd(p);
	if (h->fd < 0)
		return err_set(err, "capturing on %s: no selectable descriptor", ifname);
	return 0;
}

static void
add_live(struct capture *c, const char *name, size_t *cap)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->src[i].name, name) == 0)
			return;
	xgrow((void **)&c->src, cap, c->n + 1, sizeof(*c->src));
	memset(&c->src[c->n], 0, sizeof(c->src[0]));
	snprintf(c->src[c->n].name, sizeof(c->src[0].name), "%s", name);
	c->n++;
}

/* The interfaces the patterns name: a plain name as it is, a wildcard
 * every up interface it matches (and, with_any, "any" too: a listing
 * shows every instance a path can name). */
static int
live_names(struct capture *c, const struct provider_request *req, int with_any,
	   struct err *err)
{
	size_t cap = 0;
	struct ifaddrs *ifa = NULL;

	for (size_t i = 0; i < req->ninstances; i++) {
		const char *pat = req->instances[i];
		if (!strpbrk(pat, "*?[")) {
			if (strlen(pat) >= IF_NAMESIZE)
				return err_set(err, "Network Capture: '%s' is not an interface name", pat);
			/* instance names match case-insensitively, as in every
			 * set: LO is lo, ANY is any (an exact name first) */
			if (strcasecmp(pat, "any") == 0) {
				add_live(c, "any", &cap);
				continue;
			}
			if (!if_nametoindex(pat)) {
				if (!ifa && getifaddrs(&ifa) < 0)
					ifa = NULL;
				for (struct ifaddrs *a = ifa; a; a = a->ifa_next)
					if (a->ifa_addr && a->ifa_addr->sa_family == AF_PACKET &&
					    strcasecmp(a->ifa_name, pat) == 0) {
						pat = a->ifa_name;
						break;
					}
			}
			add_live(c, pat, &cap);
			continue;
		}
		if (!ifa && getifaddrs(&ifa) < 0)
			return err_set(err, "Network Capture: cannot list interfaces: %s", strerror(errno));
		for (struct ifaddrs *a = ifa; a; a = a->ifa_next)
			if (a->ifa_addr && a->ifa_addr->sa_family == AF_PACKET &&
			    (a->ifa_flags & IFF_UP) && glob_match_ci(pat, a->ifa_name))
				add_live(c, a->ifa_name, &cap);
		if (with_any && glob_match_ci(pat, "any"))
			add_live(c, "any", &cap);
	}
	if (ifa)
		freeifaddrs(ifa);
	return 0;
}

/* A user or group id in decimal: 0, or -1 when s is not one. */
static int
id_number(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v >= (unsigned long)UINT32_MAX)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* Whom a root run becomes once its capture is open: --user NAME, else
 * SUDO_UID and SUDO_GID (or that user's group), else nobody; never root's
 * group without root. Checked at open, before any output is written. 0,
 * or -1 with err. */
static int
drop_target(const char *user, uid_t *uid_out, gid_t *gid_out, struct err *err)
{
	unsigned uid = 0, gid = 0;
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");

	if (user) {
		struct passwd *pw = getpwnam(user);
		if (!pw)
			return err_set(err, "--user %s: no such user", user);
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	} else if (su && *su) {
		/* sudo's user (its primary group when SUDO_GID is missing);
		 * sudo from a root shell gives 0: nobody, below */
		if (id_number(su, &uid) < 0)
			return err_set(err, "SUDO_UID '%s' is not a user id", su);
		if (sg && *sg) {
			if (id_number(sg, &gid) < 0)
				return err_set(err, "SUDO_GID '%s' is not a group id", sg);
		} else if (uid != 0) {
			struct passwd *pw = getpwuid((uid_t)uid);
			if (!pw)
				return err_set(err, "SUDO_UID %s has no SUDO_GID and no user entry "
						    "to take a group from",
					       su);
			gid = pw->pw_gid;
		}
	}
	struct passwd *nobody = NULL;
	if ((!user && uid == 0) || (uid != 0 && gid == 0))
		nobody = getpwnam("nobody");
	if (!user && uid == 0) /* neither, or sudo's user was root */
		uid = nobody ? nobody->pw_uid : 65534;
	if (uid != 0 && gid == 0) /* never root's group without root */
		gid = nobody ? nobody->pw_gid : 65534;
	*uid_out = (uid_t)uid;
	*gid_out = (gid_t)gid;
	return 0;
}

/* Become uid and gid (drop_target's; nothing when uid is 0: --user root,
 * or not root), then give up every capability for good. 0, or -1 with
 * err. */
static int
drop_privileges(uid_t uid, gid_t gid, struct err *err)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (geteuid() == 0 && uid != 0) {
		if (setgroups(1, &gid) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
			return err_set(err, "cannot drop privileges to uid %u: %s", (unsigned)uid,
				       strerror(errno));
		if (setuid(0) == 0)
			return err_set(err, "dropping privileges did not stick");
	}
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) < 0)
		return err_set(err, "cannot clear capabilities: %s", strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return err_set(err, "cannot set no_new_privs: %s", strerror(errno));
	return 0;
}

/* The interface's rx_missed_errors + rx_fifo_errors, which libpcap's
 * ps_ifdrop counts (but only in promiscuous mode). 0, or -1 when sysfs
 * does not have them. */
static int
if_drops(struct capture *c, const char *ifname, uint64_t *out)
{
	char path[IF_NAMESIZE + 64];
	uint64_t missed, fifo;

	snprintf(path, sizeof(path), "sys/class/net/%.*s/statistics/rx_missed_errors",
		 (int)IF_NAMESIZE, ifname);
	if (!c->fs || procfs_read_u64(c->fs, path, &missed) < 0)
		return -1;
	snprintf(path, sizeof(path), "sys/class/net/%.*s/statistics/rx_fifo_errors",
		 (int)IF_NAMESIZE, ifname);
	if (procfs_read_u64(c->fs, path, &fifo) < 0)
		return -1;
	*out = missed + fifo;
	return 0;
}

/* Ask about interface name: SIOCGIFFLAGS into *flags, and with index,
 * SIOCGIFINDEX into *index. 0, or -1 when it is not there (or cannot be
 * asked). */
static int
if_ask(const char *name, short *flags, unsigned *index)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	if (strlen(name) < sizeof(ifr.ifr_name)) {
		memcpy(ifr.ifr_name, name, strlen(name));
		if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
			*flags = ifr.ifr_flags;
			rc = 0;
			if (index && (rc = ioctl(fd, SIOCGIFINDEX, &ifr)) == 0)
				*index = (unsigned)ifr.ifr_ifindex;
		}
	}
	close(fd);
	return rc;
}

/* Nonzero when interface name is a loopback (IFF_LOOPBACK). */
static int
is_loopback(const char *name)
{
	short flags;

	return if_ask(name, &flags, NULL) == 0 && (flags & IFF_LOOPBACK);
}

static int
open_live(struct capture *c, const struct provider_request *req, struct err *err)
{
	size_t nh = 0;

	/* one block timeout: min(100 ms, interval / 10) */
	c->grace_ns = c->interval_ns / 10;
	if (c->grace_ns > 100000000)
		c->grace_ns = 100000000;
	if (c->fs && !procfs_is_live(c->fs)) {
		/* a fixture tree has no frames, and this machine's interfaces
		 * are not the tree's: named instances show UNSUPPORTED */
		size_t cap = 0;
		for (size_t i = 0; i < req->ninstances; i++)
			if (!strpbrk(req->instances[i], "*?[") &&
			    strlen(req->instances[i]) < IF_NAMESIZE)
				add_live(c, req->instances[i], &cap);
		for (size_t i = 0; i < c->n; i++)
			c->src[i].link = -1;
		add_note(c, "Network Capture is UNSUPPORTED under --root (it captures this "
			    "machine's interfaces; --pcap FILE reads a capture)");
		return 0;
	}
	if (live_names(c, req, 0, err) < 0)
		return -1;
	c->buffer = c->opts->buffer ? c->opts->buffer : DEFAULT_BUFFER;
	if (!c->opts->buffer && c->n * 2 * (uint64_t)DEFAULT_BUFFER > SHARED_BUFFERS) {
		c->buffer = (unsigned)(SHARED_BUFFERS / (c->n * 2));
		if (c->buffer < MIN_SHARED_BUFFER)
			c->buffer = MIN_SHARED_BUFFER;
	}
	for (size_t i = 0; i < c->n; i++) {
		struct source *s = &c->src[i];
		int any = strcmp(s->name, "any") == 0;
		if (open_handle(c, s, s->name, any, err) < 0)
			return -1;
		if (!any && !s->gone && s->link >= 0 && open_handle(c, s, s->name, 0, err) < 0)
			return -1;
		if (s->link < 0 || s->gone) {
			for (size_t k = 0; k < s->nh; k++)
				pcap_close(s->h[k].p);
			s->nh = 0;
		}
		s->stats = s->nh > 0;
		if (s->stats && !any) {
			s->has_ifdrop = if_drops(c, s->name, &s->last_ifdrop) == 0;
			short flags;
			if (if_ask(s->name, &flags, &s->ifindex) < 0)
				s->ifindex = 0; /* not known: the name alone is looked at */
		}
		s->loopback = !any && is_loopback(s->name);
		nh += s->nh;
	}
	c->pfd = xcalloc(nh + 1, sizeof(*c->pfd));
	c->pfd_h = xcalloc(nh + 1, sizeof(*c->pfd_h));
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->src[i].nh; k++) {
			c->pfd[c->npfd].fd = c->src[i].h[k].fd;
			c->pfd[c->npfd].events = POLLIN;
			c->pfd_h[c->npfd++] = &c->src[i].h[k];
		}
	/* whom to become is known now, before -o and --log are opened: a
	 * mistake in SUDO_UID leaves no file behind */
	if (c->npfd && geteuid() == 0 &&
	    drop_target(c->opts->user, &c->drop_uid, &c->drop_gid, err) < 0)
		return -1;
	if (c->npfd && c->opts->user && geteuid() != 0) /* setcap: already not root */
		add_note(c, "--user %s has no effect: the run is not root (uid %u)", c->opts->user,
			 (unsigned)geteuid());
	return 0; /* privileges go in capture_opened, once every set is open */
}

/* Every set of the run is open: a live capture gives up its privileges
 * (once; a --tui reopen that keeps this capture calls again). */
static int
capture_opened(void *state, struct err *err)
{
	struct capture *c = state;

	if (!c->npfd || c->dropped)
		return 0;
	if (drop_privileges(c->drop_uid, c->drop_gid, err) < 0)
		return -1;
	c->dropped = 1;
	return 0;
}

/* The interface of s went away (deleted, or its namespace): its handles
 * are no longer polled and the instance is gone from the next read on
 * (NO_INSTANCE where a path names it), said once. */
static void
source_gone(struct capture *c, struct source *s, const char *why)
{
	if (s->gone)
		return;
	s->gone = 1;
	for (size_t i = 0; i < c->npfd; i++)
		if (c->pfd_h[i]->src == s)
			c->pfd[i].fd = -1; /* ppoll skips it */
	fprintf(stderr, "getcounter: capturing on %s stopped: %s\n", s->name, why);
}

/* The interface s captures on is still the one it opened: not deleted,
 * moved to another namespace, or deleted and made again (a socket bound
 * to the old one never counts again). *up: it is up (IFF_UP). */
static int
still_there(const struct source *s, int *up)
{
	short flags = 0;
	unsigned now = 0;

	if (if_ask(s->name, &flags, &now) < 0 || (s->ifindex && now != s->ifindex))
		return 0;
	*up = (flags & IFF_UP) != 0;
	return 1;
}

/* A handle's socket reports an error: take it (so that poll does not
 * report it again). The interface is gone when it is no longer there
 * (deleted, or moved to another namespace): the source stops. It only
 * went down when it is still there: the socket stays bound and counts
 * again when it comes up. The kernel reports a deletion as going down
 * (ENETDOWN) just before the interface is unregistered, and says nothing
 * more: a source that went down is looked at again at each read
 * (capture_read) until it is up again (frames it still hands over after
 * the error are from before). Nonzero when the source stopped. */
static int
socket_failed(struct capture *c, struct handle *h)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0 || e == 0)
		return 0;
	if (e == ENETDOWN && strcmp(h->src->name, "any") == 0)
		return 0;
	int up;
	if (e == ENETDOWN && still_there(h->src, &up)) {
		h->src->down = 1;
		return 0;
	}
	source_gone(c, h->src, e == ENETDOWN || e == ENODEV ? "The interface disappeared"
							       : strerror(e));
	return 1;
}

/* Dispatch what every readable handle holds. One call reads every
 * TPACKET_V3 block the kernel has handed over (libpcap 1.10 walks the ring
 * until it meets a block the kernel owns); a second call would find none
 * and only cost the poll libpcap makes before it gives up. A block handed
 * over meanwhile, or frames past DISPATCH_MAX (a ring that refills as fast
 * as it is read must not keep the sample waiting), leave the descriptor
 * readable for the next poll. */
static void
dispatch(struct capture *c)
{
	for (size_t i = 0; i < c->npfd; i++) {
		struct handle *h = c->pfd_h[i];
		if (c->pfd[i].fd < 0 || !(c->pfd[i].revents & (POLLIN | POLLERR | POLLHUP)))
			continue;
		if ((c->pfd[i].revents & (POLLERR | POLLHUP)) && socket_failed(c, h))
			continue;
		int rc = pcap_dispatch(h->p, DISPATCH_MAX,
				       h->src->link == CAPTURE_EN10MB ? on_frame_eth : on_frame,
				       (u_char *)(void *)h);
		if (rc == PCAP_ERROR)
			source_gone(c, h->src, pcap_geterr(h->p));
		/* PCAP_ERROR_IFACE_NOT_UP: the interface went down; the
		 * socket stays bound and counts again when it comes up */
	}
}

/* Live: until deadline_ns and one block timeout more, dispatch frames;
 * the ones stamped before the deadline's wall time count in the read. */
static int
capture_wait(void *state, uint64_t deadline_ns, struct err *err)
{
	struct capture *c = state;
	int64_t boundary = (int64_t)deadline_ns + (now_wall_ns() - (int64_t)now_mono_ns());
	uint64_t until = deadline_ns + c->grace_ns;

	if (c->files)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		c->src[i].boundary = boundary;
	for (;;) {
		uint64_t now = now_mono_ns();
		if (now >= until)
			break;
		uint64_t left = until - now;
		struct timespec ts = { (time_t)(left / 1000000000), (long)(left % 1000000000) };
		int rc = ppoll(c->pfd, c->npfd, &ts, NULL);
		if (rc < 0 && errno == EINTR)
			return 0; /* a signal: the engine looks at why */
		if (rc < 0)
			return err_set(err, "Network Capture: waiting for frames: %s",
				       strerror(errno));
		if (rc > 0)
			dispatch(c);
	}
	/* the blocks handed over at the last moment: one poll for every
	 * handle, not one per handle inside pcap_dispatch */
	struct timespec zero = { 0, 0 };
	if (ppoll(c->pfd, c->npfd, &zero, NULL) > 0)
		dispatch(c);
	c->stamp_wall = boundary;
	c->stamp_mono = deadline_ns;
	c->stamped = 1;
	return 0;
}

static void
extend32(uint64_t *wide, uint32_t *last, uint32_t now)
{
	*wide += (uint32_t)(now - *last);
	*last = now;
}

/* ---- the provider ------------------------------------------------------- */

static void capture_close(void *state);

static void *
capture_open(const struct provider_ctx *ctx, const struct provider_request *req,
	     struct err *err)
{
	struct capture *c = xcalloc(1, sizeof(*c));

	c->opts = req->capture;
	c->listing = req->listing;
	c->fs = ctx->fs;
	c->interval_ns = c->opts && c->opts->interval_ns ? c->opts->interval_ns : 1000000000;
	if (c->listing && c->opts && c->opts->nfiles) {
		/* -q -x: the files' instances, nothing opened */
		c->src = xcalloc(c->opts->nfiles, sizeof(*c->src));
		for (size_t i = 0; i < c->opts->nfiles; i++)
			file_instance(c->opts->files, i, c->src[c->n++].name, sizeof(c->src[0].name));
		return c;
	}
	if (c->listing && c->fs && procfs_is_live(c->fs)) {
		/* -q -x: the interfaces a path can name, nothing opened (no
		 * privilege needed); a failed listing lists none */
		struct err ignored;
		if (live_names(c, req, 1, &ignored) < 0)
			c->n = 0;
		return c;
	}
	if (c->listing || !c->opts)
		return c;
	if (pcap_load(err) < 0) {
		capture_close(c);
		return NULL;
	}
	if (c->opts->nfiles ? open_files(c, err) < 0 : open_live(c, req, err) < 0) {
		capture_close(c);
		return NULL;
	}
	return c;
}

/* The counters of cells into ri. On a loopback interface every frame is
 * sent and received at once: the kernel hands a capture both copies and
 * libpcap keeps only the received one, so the sent counters are the
 * received ones (as the interface's own statistics count it). */
static void
put_counts(struct raw_set *rs, struct raw_instance *ri, const struct capture_cell *cells,
	   int loopback)
{
	uint64_t v[CAP_NFIELDS];
	struct capture_cell both[CAPTURE_NCELLS];

	if (loopback) {
		/* cells are direction-major: received first, then sent */
		memcpy(both, cells, sizeof(both));
		for (unsigned k = 0; k < CAPTURE_NCELLS / 2; k++)
			both[CAPTURE_NCELLS / 2 + k] = both[k];
		cells = both;
	}
	capture_expand(cells, v);
	for (unsigned f = 0; f < CAP_CAPTURE_DROPPED; f++)
		raw_put(rs, ri, f, v[f]);
}

static int
capture_read(void *state, struct raw_set *out, struct err *err)
{
	struct capture *c = state;

	if (c->listing) {
		/* the names alone: a listing shows instances, not values */
		for (size_t i = 0; i < c->n; i++)
			raw_set_add(out, c->src[i].name, strlen(c->src[i].name), 0);
		return 0;
	}
	if (c->files) {
		int64_t boundary = c->t0 + (int64_t)(c->bucket * c->interval_ns);
		int more = 0;
		if (c->ended)
			return 0;
		if (c->bucket > 0) {
			more = read_files(c, boundary, &c->file_err);
			if (more < 0) {
				/* the run ends with this error (capture_stamp) */
				c->file_failed = 1;
				return 0;
			}
		} else {
			for (size_t i = 0; i < c->n; i++)
				more |= c->src[i].has_pending;
		}
		c->stamp_wall = boundary;
		c->stamp_mono = (uint64_t)boundary;
		c->stamped = 1;
		if (!more && c->bucket > 0)
			c->ended = 1; /* this read holds the last frame */
		c->bucket++;
		for (size_t i = 0; i < c->n; i++) {
			struct raw_instance *ri = raw_set_add(out, c->src[i].name,
							      strlen(c->src[i].name), 0);
			put_counts(out, ri, c->src[i].cells, 0);
		}
		return 0;
	}
	if (!c->started) {
		/* the first read: frames from now on */
		c->started = 1;
		int64_t now = now_wall_ns();
		for (size_t i = 0; i < c->n; i++)
			c->src[i].start = c->src[i].boundary = now;
	}
	for (size_t i = 0; i < c->n; i++) {
		struct source *s = &c->src[i];
		int up = 0;
		if (s->down && !still_there(s, &up))
			source_gone(c, s, "The interface disappeared");
		else if (s->down && up)
			s->down = 0; /* up again: its socket counts again */
		if (s->gone)
			continue;
		struct raw_instance *ri = raw_set_add(out, s->name, strlen(s->name), 0);
		if (s->link < 0)
			continue; /* unsupported link type: every field absent */
		put_counts(out, ri, s->cells, s->loopback);
		for (unsigned k = 0; k < CAPTURE_NCELLS; k++) {
			s->cells[k].frames += s->next[k].frames;
			s->cells[k].bytes += s->next[k].bytes;
		}
		memset(s->next, 0, sizeof(s->next));
		if (!s->stats)
			continue;
		uint64_t drop = 0;
		int ok = 1;
		for (size_t k = 0; k < s->nh; k++) {
			struct pcap_stat st;
			if (pcap_stats(s->h[k].p, &st) < 0) {
				ok = 0;
				break;
			}
			extend32(&s->h[k].drop, &s->h[k].last_drop, st.ps_drop);
			drop += s->h[k].drop;
		}
		if (ok)
			raw_put(out, ri, CAP_CAPTURE_DROPPED, drop);
		uint64_t now;
		if (s->has_ifdrop && if_drops(c, s->name, &now) == 0) {
			/* a lower value: the statistics were reset, count again */
			s->ifdrop += now >= s->last_ifdrop ? now - s->last_ifdrop : now;
			s->last_ifdrop = now;
			raw_put(out, ri, CAP_INTERFACE_DROPPED, s->ifdrop);
		}
	}
	(void)err;
	return 0;
}

static int
capture_stamp(void *state, int64_t *wall_ns, uint64_t *mono_ns, struct err *err)
{
	struct capture *c = state;

	if (c->file_failed) {
		*err = c->file_err;
		return -1;
	}
	if (c->files && c->ended && !c->stamped)
		return 1;
	if (!c->stamped)
		return 2;
	*wall_ns = c->stamp_wall;
	*mono_ns = c->stamp_mono;
	c->stamped = 0;
	return 0;
}

static void
capture_close(void *state)
{
	struct capture *c = state;

	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->src[i].nh; k++)
			pcap_close(c->src[i].h[k].p);
	free(c->src);
	free(c->pfd);
	free(c->pfd_h);
	free(c);
}

static const char *
capture_notice(void *state)
{
	struct capture *c = state;

	return c->note[0] ? c->note : NULL;
}

static size_t
capture_describe(void *state, const struct counter_desc *cd, const char *instance, char *buf,
		 size_t n)
{
	struct capture *c = state;

	(void)cd;
	if (!instance)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->src[i].name, instance) == 0 && c->src[i].why[0])
			return (size_t)snprintf(buf, n, "(%s)", c->src[i].why);
	return 0;
}

const struct provider provider_network_capture = {
	.set = &set,
	.open_request = capture_open,
	.read = capture_read,
	.close = capture_close,
	.describe = capture_describe,
	.wait = capture_wait,
	.stamp = capture_stamp,
	.notice = capture_notice,
	.opened = capture_opened,
};

#endif /* HAVE_PCAP */
