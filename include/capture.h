/*
 * capture.h - the Network Capture set (COUNTERS.md section 9): the frame
 * classifier, a pure function over one captured frame, and the options a
 * capture takes. The provider (src/provider/capture.c) feeds frames from
 * libpcap, live or from a file, through the classifier
 * (capture_classify.h) into cumulative cells, expanded into the counters
 * at each read; derive makes the rates.
 */
#ifndef GETCOUNTER_CAPTURE_H
#define GETCOUNTER_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

/* The raw fields of the set, all cumulative. */
enum capture_field {
	CAP_RX_FRAMES,
	CAP_RX_BYTES,
	CAP_TX_FRAMES,
	CAP_TX_BYTES,
	/* by destination class: directed, multicast, broadcast */
	CAP_RX_DIRECTED_FRAMES,
	CAP_RX_MULTICAST_FRAMES,
	CAP_RX_BROADCAST_FRAMES,
	CAP_RX_DIRECTED_BYTES,
	CAP_RX_MULTICAST_BYTES,
	CAP_RX_BROADCAST_BYTES,
	CAP_TX_DIRECTED_FRAMES,
	CAP_TX_MULTICAST_FRAMES,
	CAP_TX_BROADCAST_FRAMES,
	CAP_TX_DIRECTED_BYTES,
	CAP_TX_MULTICAST_BYTES,
	CAP_TX_BROADCAST_BYTES,
	/* by protocol, both directions */
	CAP_IPV4,
	CAP_IPV6,
	CAP_ARP,
	CAP_TCP,
	CAP_UDP,
	CAP_ICMP,
	CAP_OTHER,
	/* pcap_stats, live only */
	CAP_CAPTURE_DROPPED,
	CAP_INTERFACE_DROPPED,
	CAP_NFIELDS,
};

/* The link types the classifier reads (libpcap's DLT_ values differ). */
enum capture_link {
	CAPTURE_EN10MB, /* Ethernet: dst MAC, src MAC, ethertype */
	CAPTURE_SLL,    /* Linux cooked v1, 16 bytes: packet type first */
	CAPTURE_SLL2,   /* Linux cooked v2, 20 bytes: protocol first */
};

enum capture_dir { CAPTURE_RX, CAPTURE_TX };
enum capture_dclass { CAPTURE_DIRECTED, CAPTURE_MULTICAST, CAPTURE_BROADCAST };
enum capture_l3 { CAPTURE_L3_OTHER, CAPTURE_L3_IPV4, CAPTURE_L3_IPV6, CAPTURE_L3_ARP };
enum capture_l4 { CAPTURE_L4_NONE, CAPTURE_L4_TCP, CAPTURE_L4_UDP, CAPTURE_L4_ICMP };

/* What one frame is. */
struct capture_frame {
	uint8_t dir;    /* enum capture_dir */
	uint8_t dclass; /* enum capture_dclass */
	uint8_t l3;     /* enum capture_l3 */
	uint8_t l4;     /* enum capture_l4 */
};

/* Direction of an Ethernet frame, when the caller knows it. */
enum capture_given_dir {
	CAPTURE_DIR_BY_MAC = -1, /* a file: sent when src MAC is local_mac */
	CAPTURE_DIR_IN = CAPTURE_RX,
	CAPTURE_DIR_OUT = CAPTURE_TX,
};

/* Classify the frame p[0 .. caplen) of link type link (enum capture_link).
 * For CAPTURE_EN10MB, given (enum capture_given_dir) is the direction,
 * or CAPTURE_DIR_BY_MAC to compare the source MAC with local_mac (6
 * bytes; NULL: every frame is received). SLL and SLL2 take the direction
 * and received class from their packet type; a sent frame's class then
 * comes from the IP destination (approximate). A frame cut short by the
 * snap length or a runt counts with what could be read: no destination
 * MAC is directed, an unreadable ethertype is Other, an unreadable IP
 * header leaves no TCP/UDP/ICMP. Pure: no allocation, no syscalls. */
void capture_classify(int link, const uint8_t *p, uint32_t caplen, int given,
		      const uint8_t *local_mac, struct capture_frame *out);

/* The Ethernet wire length of a frame whose pcap length is len: a cooked
 * header (SLL 16 bytes, SLL2 20) stands where the 14-byte Ethernet header
 * was. On SLL2 libpcap does not put a stripped VLAN tag back, so such a
 * frame counts 4 bytes short (live "any" is captured as SLL for that). */
uint32_t capture_wire_len(int link, uint32_t len);

/* The frames and wire bytes of one class of frame: one cell per
 * (direction, destination class, protocol, upper protocol), index
 * ((dir x 3 + dclass) x 4 + l3) x 4 + l4. A frame adds to one cell
 * (capture_count() in capture_classify.h); the counters of section 9 are
 * made from the cells once a sample (capture_expand), not per frame. */
#define CAPTURE_NCELLS (2 * 3 * 4 * 4)
struct capture_cell {
	uint64_t frames;
	uint64_t bytes;
};

/* The counters c[0 .. CAP_CAPTURE_DROPPED) of cells[CAPTURE_NCELLS]
 * (cumulative cells give cumulative counters); the drop fields are left
 * as they are. */
void capture_expand(const struct capture_cell *cells, uint64_t *c);

/* The options of a capture (cli.c fills them from the command line). */
struct capture_opts {
	const char *const *files; /* --pcap FILE, repeatable */
	size_t nfiles;
	const char *filter;       /* --capture-filter BPF, or NULL */
	int has_local_mac;
	uint8_t local_mac[6];     /* --local-mac */
	unsigned snaplen;         /* --snaplen, 0: 128 */
	unsigned buffer;          /* --capture-buffer bytes, 0: 8 MiB */
	int promisc;              /* --promisc */
	const char *user;         /* --user NAME to become when root, or NULL */
	uint64_t interval_ns;     /* the sample interval: file buckets, timeout */
};

struct err;

/* --pcap names the same file twice (same device and inode): -1 with err
 * (a usage error). Files that cannot be read are left to the open. */
int capture_check_files(const char *const *files, size_t n, struct err *err);
/* A --capture-filter that compiles for no link type getcounter reads is a
 * mistake in the command: 0, or -1 with err naming it (libpcap's words).
 * Without libpcap, 0 (the run says what is missing). */
int capture_check_filter(const char *filter, struct err *err);

/* The first capture option given that has no effect in the run: any of
 * them when the run captures nothing (captures 0), the live-only ones
 * (--snaplen, --capture-buffer, --promisc, --user) when it reads --pcap
 * files (then *files is 1). NULL when every one given has its effect. */
const char *capture_idle_option(const struct capture_opts *o, int captures, int *files);

/* Parse "aa:bb:cc:dd:ee:ff" (or '-' separators) into mac. 0, or -1. */
int capture_parse_mac(const char *s, uint8_t mac[6]);

#endif
