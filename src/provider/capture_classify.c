/*
 * capture_classify.c - the Network Capture classifier (COUNTERS.md section
 * 9): one captured frame in, its direction, destination class and protocol
 * out. Pure, so the unit tests feed it hand-built frames; the capture
 * provider calls it from libpcap's callback, where nothing may allocate.
 */
#include <string.h>

#include "capture.h"

#define ETH_IPV4 0x0800
#define ETH_ARP 0x0806
#define ETH_IPV6 0x86dd
#define ETH_8021Q 0x8100
#define ETH_8021AD 0x88a8
#define ETH_QINQ_OLD 0x9100

/* SLL/SLL2 packet types (linux/if_packet.h). */
#define PKT_HOST 0
#define PKT_BROADCAST 1
#define PKT_MULTICAST 2
#define PKT_OTHERHOST 3
#define PKT_OUTGOING 4

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The class of a destination MAC. */
static uint8_t
mac_class(const uint8_t *mac)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	if (memcmp(mac, bcast, 6) == 0)
		return CAPTURE_BROADCAST;
	return (mac[0] & 1) ? CAPTURE_MULTICAST : CAPTURE_DIRECTED;
}

/* The IPv4 header at p[0 .. n): its protocol, or -1 when unreadable. */
static int
ipv4_proto(const uint8_t *p, uint32_t n)
{
	if (n < 10 || (p[0] >> 4) != 4)
		return -1;
	return p[9];
}

/* The IPv6 header at p[0 .. n): the upper-layer protocol after every
 * extension header, or -1 when the headers run past what was captured. */
static int
ipv6_proto(const uint8_t *p, uint32_t n)
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
static void
classify_l3(uint16_t type, const uint8_t *p, uint32_t n, struct capture_frame *f)
{
	int proto = -1;

	switch (type) {
	case ETH_IPV4:
		f->l3 = CAPTURE_L3_IPV4;
		proto = ipv4_proto(p, n);
		if (proto == 1)
			f->l4 = CAPTURE_L4_ICMP;
		break;
	case ETH_IPV6:
		f->l3 = CAPTURE_L3_IPV6;
		proto = ipv6_proto(p, n);
		if (proto == 58)
			f->l4 = CAPTURE_L4_ICMP;
		break;
	case ETH_ARP:
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

/* Walk from the ethertype at p[type_off] (the link header ends at
 * hdr_end) through any 802.1Q, 802.1ad and 0x9100 tags, each TCI then the
 * next ethertype. The innermost ethertype into *type and where its payload
 * starts; -1 when the tags run past what was captured. */
static int
walk_tags(const uint8_t *p, uint32_t caplen, uint32_t type_off, uint32_t hdr_end,
	  uint16_t *type, uint32_t *l3)
{
	uint16_t t;

	if (type_off + 2 > caplen)
		return -1;
	t = be16(p + type_off);
	while (t == ETH_8021Q || t == ETH_8021AD || t == ETH_QINQ_OLD) {
		if (hdr_end + 4 > caplen)
			return -1;
		t = be16(p + hdr_end + 2);
		hdr_end += 4;
	}
	*type = t;
	*l3 = hdr_end;
	return 0;
}

/* The protocol of the frame whose ethertype is at p[type_off]. */
static void
classify_from_type(const uint8_t *p, uint32_t caplen, uint32_t type_off, uint32_t hdr_end,
		   struct capture_frame *f)
{
	uint16_t type;
	uint32_t l3;

	if (walk_tags(p, caplen, type_off, hdr_end, &type, &l3) < 0)
		return; /* Other: the ethertype was not captured */
	classify_l3(type, l3 <= caplen ? p + l3 : p, l3 <= caplen ? caplen - l3 : 0, f);
}

/* A sent cooked frame's class from its IP destination (the MAC is not
 * there): multicast ranges, the limited broadcast, else directed. */
static uint8_t
l3_class(const uint8_t *p, uint32_t caplen, uint32_t type_off, uint32_t hdr_end)
{
	uint16_t type;
	uint32_t off;

	if (walk_tags(p, caplen, type_off, hdr_end, &type, &off) < 0)
		return CAPTURE_DIRECTED;
	if (type == ETH_IPV4 && off + 20 <= caplen) {
		const uint8_t *d = p + off + 16;
		if (d[0] == 255 && d[1] == 255 && d[2] == 255 && d[3] == 255)
			return CAPTURE_BROADCAST;
		if ((d[0] & 0xf0) == 0xe0)
			return CAPTURE_MULTICAST;
	} else if (type == ETH_IPV6 && off + 40 <= caplen) {
		if (p[off + 24] == 0xff)
			return CAPTURE_MULTICAST;
	}
	return CAPTURE_DIRECTED;
}

/* A cooked frame: packet type pkttype, ethertype at p[type_off]. */
static void
classify_cooked(const uint8_t *p, uint32_t caplen, unsigned pkttype, uint32_t type_off,
		uint32_t hdr_end, struct capture_frame *f)
{
	switch (pkttype) {
	case PKT_OUTGOING:
		f->dir = CAPTURE_TX;
		f->dclass = l3_class(p, caplen, type_off, hdr_end);
		break;
	case PKT_BROADCAST:
		f->dclass = CAPTURE_BROADCAST;
		break;
	case PKT_MULTICAST:
		f->dclass = CAPTURE_MULTICAST;
		break;
	default: /* HOST, OTHERHOST (promiscuous) */
		f->dclass = CAPTURE_DIRECTED;
		break;
	}
	classify_from_type(p, caplen, type_off, hdr_end, f);
}

void
capture_classify(int link, const uint8_t *p, uint32_t caplen, int given,
		 const uint8_t *local_mac, struct capture_frame *out)
{
	out->dir = CAPTURE_RX;
	out->dclass = CAPTURE_DIRECTED;
	out->l3 = CAPTURE_L3_OTHER;
	out->l4 = CAPTURE_L4_NONE;

	switch (link) {
	case CAPTURE_EN10MB:
		if (given == CAPTURE_DIR_OUT)
			out->dir = CAPTURE_TX;
		else if (given == CAPTURE_DIR_BY_MAC && local_mac && caplen >= 12 &&
			 memcmp(p + 6, local_mac, 6) == 0)
			out->dir = CAPTURE_TX;
		if (caplen >= 6)
			out->dclass = mac_class(p);
		classify_from_type(p, caplen, 12, 14, out);
		break;
	case CAPTURE_SLL:
		/* pkttype(2) hatype(2) halen(2) addr(8) protocol(2) */
		if (caplen >= 2)
			classify_cooked(p, caplen, be16(p), 14, 16, out);
		break;
	case CAPTURE_SLL2:
		/* protocol(2) reserved(2) ifindex(4) hatype(2) pkttype(1)
		 * halen(1) addr(8) */
		if (caplen >= 11)
			classify_cooked(p, caplen, p[10], 0, 20, out);
		break;
	default:
		break;
	}
}

uint32_t
capture_wire_len(int link, uint32_t len)
{
	if (link == CAPTURE_SLL && len >= 16)
		return len - 2;
	if (link == CAPTURE_SLL2 && len >= 20)
		return len - 6;
	return len;
}

void
capture_count(uint64_t *c, const struct capture_frame *f, uint32_t len)
{
	static const uint8_t frames[2][3] = {
		{ CAP_RX_DIRECTED_FRAMES, CAP_RX_MULTICAST_FRAMES, CAP_RX_BROADCAST_FRAMES },
		{ CAP_TX_DIRECTED_FRAMES, CAP_TX_MULTICAST_FRAMES, CAP_TX_BROADCAST_FRAMES },
	};
	static const uint8_t bytes[2][3] = {
		{ CAP_RX_DIRECTED_BYTES, CAP_RX_MULTICAST_BYTES, CAP_RX_BROADCAST_BYTES },
		{ CAP_TX_DIRECTED_BYTES, CAP_TX_MULTICAST_BYTES, CAP_TX_BROADCAST_BYTES },
	};
	static const uint8_t l3[4] = { CAP_OTHER, CAP_IPV4, CAP_IPV6, CAP_ARP };
	static const uint8_t l4[4] = { 0, CAP_TCP, CAP_UDP, CAP_ICMP };
	unsigned d = f->dir & 1, k = f->dclass < 3 ? f->dclass : 0;

	c[d ? CAP_TX_FRAMES : CAP_RX_FRAMES]++;
	c[d ? CAP_TX_BYTES : CAP_RX_BYTES] += len;
	c[frames[d][k]]++;
	c[bytes[d][k]] += len;
	c[l3[f->l3 & 3]]++;
	if (f->l4 != CAPTURE_L4_NONE)
		c[l4[f->l4 & 3]]++;
}

/* "aa:bb:cc:dd:ee:ff", ':' or '-' between bytes. */
int
capture_parse_mac(const char *s, uint8_t mac[6])
{
	for (int i = 0; i < 6; i++) {
		unsigned v = 0;
		for (int k = 0; k < 2; k++) {
			char ch = *s++;
			unsigned d;
			if (ch >= '0' && ch <= '9')
				d = (unsigned)(ch - '0');
			else if (ch >= 'a' && ch <= 'f')
				d = (unsigned)(ch - 'a' + 10);
			else if (ch >= 'A' && ch <= 'F')
				d = (unsigned)(ch - 'A' + 10);
			else
				return -1;
			v = v << 4 | d;
		}
		mac[i] = (uint8_t)v;
		if (i < 5 && *s != ':' && *s != '-')
			return -1;
		if (i < 5)
			s++;
	}
	return *s ? -1 : 0;
}
