/*
 * capture_classify.h - the Network Capture classifier (COUNTERS.md section
 * 9) as static inline functions, so that libpcap's callback in capture.c
 * compiles it into itself: a 64-byte frame costs libpcap ~15 ns, and calls
 * across files (classifier, counter, wire length) had added ~10 more.
 * capture_classify.c gives the same code to the file reader and the unit
 * tests as capture_classify(). Pure: no allocation, no syscalls.
 *
 * Include capture.h first.
 */
#ifndef GETCOUNTER_CAPTURE_CLASSIFY_H
#define GETCOUNTER_CAPTURE_CLASSIFY_H

#include <stdint.h>
#include <string.h>

#define CC_ETH_IPV4 0x0800
#define CC_ETH_ARP 0x0806
#define CC_ETH_IPV6 0x86dd
#define CC_ETH_8021Q 0x8100
#define CC_ETH_8021AD 0x88a8
#define CC_ETH_QINQ_OLD 0x9100

/* SLL/SLL2 packet types (linux/if_packet.h). */
#define CC_PKT_BROADCAST 1
#define CC_PKT_MULTICAST 2
#define CC_PKT_OUTGOING 4

static inline uint16_t
cc_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The class of a destination MAC (6 bytes at mac). */
static inline uint8_t
cc_mac_class(const uint8_t *mac)
{
	if (!(mac[0] & 1))
		return CAPTURE_DIRECTED;
	if ((mac[0] & mac[1] & mac[2] & mac[3] & mac[4] & mac[5]) == 0xff)
		return CAPTURE_BROADCAST;
	return CAPTURE_MULTICAST;
}

/* The IPv6 header at p[0 .. n): the upper-layer protocol after every
 * extension header, or -1 when the headers run past what was captured. */
static inline int
cc_ipv6_proto(const uint8_t *p, uint32_t n)
{
	uint32_t off = 40;
	int next;

	if (n < 7 || (p[0] >> 4) != 6)
		return -1;
	next = p[6];
	for (int hops = 0; hops < 16; hops++) {
		uint32_t len;
		switch (next) {
		case 0:   /* hop-by-hop options */
		case 43:  /* routing */
		case 60:  /* destination options */
		case 135: /* mobility */
		case 139: /* HIP */
		case 140: /* shim6 */
			if (off + 2 > n)
				return -1;
			len = ((uint32_t)p[off + 1] + 1) * 8;
			break;
		case 44: /* fragment: fixed 8 bytes */
			if (off + 2 > n)
				return -1;
			len = 8;
			break;
		case 51: /* authentication header: length in 4-byte units, minus 2 */
			if (off + 2 > n)
				return -1;
			len = ((uint32_t)p[off + 1] + 2) * 4;
			break;
		default:
			return next;
		}
		next = p[off];
		off += len;
	}
	return -1;
}

/* The protocol of the L3 payload of ethertype type at p[0 .. n). */
static inline void
cc_classify_l3(uint16_t type, const uint8_t *p, uint32_t n, struct capture_frame *f)
{
	int proto;

	switch (type) {
	case CC_ETH_IPV4:
		f->l3 = CAPTURE_L3_IPV4;
		/* the protocol, when the header is readable */
		proto = n >= 10 && (p[0] >> 4) == 4 ? p[9] : -1;
		if (proto == 1)
			f->l4 = CAPTURE_L4_ICMP;
		break;
	case CC_ETH_IPV6:
		f->l3 = CAPTURE_L3_IPV6;
		proto = cc_ipv6_proto(p, n);
		if (proto == 58)
			f->l4 = CAPTURE_L4_ICMP;
		break;
	case CC_ETH_ARP:
		f->l3 = CAPTURE_L3_ARP;
		return;
	default:
		f->l3 = CAPTURE_L3_OTHER;
		return;
	}
	if (proto == 6)
		f->l4 = CAPTURE_L4_TCP;
	else if (proto == 17)
		f->l4 = CAPTURE_L4_UDP;
}

static inline int
cc_is_tag(uint16_t t)
{
	return t == CC_ETH_8021Q || t == CC_ETH_8021AD || t == CC_ETH_QINQ_OLD;
}

/* Walk from the ethertype at p[type_off] (the link header ends at
 * hdr_end) through any 802.1Q, 802.1ad and 0x9100 tags, each TCI then the
 * next ethertype. The innermost ethertype into *type and where its payload
 * starts; -1 when the tags run past what was captured. */
static inline int
cc_walk_tags(const uint8_t *p, uint32_t caplen, uint32_t type_off, uint32_t hdr_end,
	     uint16_t *type, uint32_t *l3)
{
	uint16_t t;

	if (type_off + 2 > caplen)
		return -1;
	t = cc_be16(p + type_off);
	while (cc_is_tag(t)) {
		if (hdr_end + 4 > caplen)
			return -1;
		t = cc_be16(p + hdr_end + 2);
		hdr_end += 4;
	}
	*type = t;
	*l3 = hdr_end;
	return 0;
}

/* The protocol of the frame whose ethertype is at p[type_off]. */
static inline void
cc_classify_from_type(const uint8_t *p, uint32_t caplen, uint32_t type_off, uint32_t hdr_end,
		      struct capture_frame *f)
{
	uint16_t type;
	uint32_t l3;

	if (cc_walk_tags(p, caplen, type_off, hdr_end, &type, &l3) < 0)
		return; /* Other: the ethertype was not captured */
	cc_classify_l3(type, l3 <= caplen ? p + l3 : p, l3 <= caplen ? caplen - l3 : 0, f);
}

/* An Ethernet frame p[0 .. caplen) whose direction is given (enum
 * capture_given_dir; CAPTURE_DIR_BY_MAC: sent when its source MAC is
 * local_mac, NULL: received). As capture_classify() in capture.h. */
static inline void
capture_classify_eth(const uint8_t *p, uint32_t caplen, int given, const uint8_t *local_mac,
		     struct capture_frame *out)
{
	out->dir = CAPTURE_RX;
	out->dclass = CAPTURE_DIRECTED;
	out->l3 = CAPTURE_L3_OTHER;
	out->l4 = CAPTURE_L4_NONE;
	if (given == CAPTURE_DIR_OUT)
		out->dir = CAPTURE_TX;
	else if (given == CAPTURE_DIR_BY_MAC && local_mac && caplen >= 12 &&
		 memcmp(p + 6, local_mac, 6) == 0)
		out->dir = CAPTURE_TX;
	if (caplen < 14) {
		if (caplen >= 6)
			out->dclass = cc_mac_class(p);
		return; /* Other: the ethertype was not captured */
	}
	out->dclass = cc_mac_class(p);
	uint16_t type = cc_be16(p + 12);
	if (cc_is_tag(type)) {
		cc_classify_from_type(p, caplen, 12, 14, out);
		return;
	}
	cc_classify_l3(type, p + 14, caplen - 14, out);
}

/* The cell of a classified frame (capture.h). */
static inline unsigned
capture_cell_index(const struct capture_frame *f)
{
	unsigned k = f->dclass < 3 ? f->dclass : 0;

	return (((f->dir & 1u) * 3 + k) * 4 + (f->l3 & 3u)) * 4 + (f->l4 & 3u);
}

/* Add a classified frame of wire length len to its cell of cells. */
static inline void
capture_count(struct capture_cell *cells, const struct capture_frame *f, uint32_t len)
{
	struct capture_cell *c = &cells[capture_cell_index(f)];

	c->frames++;
	c->bytes += len;
}

/* The upper protocol (enum capture_l4) of each IPv4 protocol number. */
static const uint8_t cc_ipv4_l4[256] = {
	[1] = CAPTURE_L4_ICMP,
	[6] = CAPTURE_L4_TCP,
	[17] = CAPTURE_L4_UDP,
};

/* The cell index of an Ethernet frame p[0 .. caplen) whose direction is
 * given (CAPTURE_DIR_IN or CAPTURE_DIR_OUT): the same as
 * capture_cell_index() of capture_classify_eth(), with the common case, an
 * untagged IPv4 frame, in a few instructions (libpcap's callback runs it
 * for every frame) and every other frame through the full classifier. */
static inline unsigned
capture_cell_eth(const uint8_t *p, uint32_t caplen, int given)
{
	struct capture_frame f;

	if (caplen >= 14 && p[12] == 0x08 && p[13] == 0x00) {
		unsigned i = (given == CAPTURE_DIR_OUT ? 3u : 0u) + cc_mac_class(p);
		unsigned l4 = caplen >= 24 && (p[14] >> 4) == 4 ? cc_ipv4_l4[p[23]] : 0;
		return (i * 4 + CAPTURE_L3_IPV4) * 4 + l4;
	}
	capture_classify_eth(p, caplen, given, NULL, &f);
	return capture_cell_index(&f);
}

#endif
