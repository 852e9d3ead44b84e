/*
 * capture_classify.c - the Network Capture classifier (COUNTERS.md section
 * 9): one captured frame in, its direction, destination class and protocol
 * out, and the cells frames are counted in expanded into the counters.
 * Pure, so the unit tests feed it hand-built frames. The Ethernet part is
 * inline in capture_classify.h, which libpcap's callback (capture.c) uses
 * directly; the cooked link types and files come through here.
 */
#include <string.h>

#include "capture.h"
#include "capture_classify.h"

/* A sent cooked frame's class from its IP destination (the MAC is not
 * there): multicast ranges, the limited broadcast, else directed. */
static uint8_t
l3_class(const uint8_t *p, uint32_t caplen, uint32_t type_off, uint32_t hdr_end)
{
	uint16_t type;
	uint32_t off;

	if (cc_walk_tags(p, caplen, type_off, hdr_end, &type, &off) < 0)
		return CAPTURE_DIRECTED;
	if (type == CC_ETH_IPV4 && off + 20 <= caplen) {
		const uint8_t *d = p + off + 16;
		if (d[0] == 255 && d[1] == 255 && d[2] == 255 && d[3] == 255)
			return CAPTURE_BROADCAST;
		if ((d[0] & 0xf0) == 0xe0)
			return CAPTURE_MULTICAST;
	} else if (type == CC_ETH_IPV6 && off + 40 <= caplen) {
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
	case CC_PKT_OUTGOING:
		f->dir = CAPTURE_TX;
		f->dclass = l3_class(p, caplen, type_off, hdr_end);
		break;
	case CC_PKT_BROADCAST:
		f->dclass = CAPTURE_BROADCAST;
		break;
	case CC_PKT_MULTICAST:
		f->dclass = CAPTURE_MULTICAST;
		break;
	default: /* HOST, OTHERHOST (promiscuous) */
		f->dclass = CAPTURE_DIRECTED;
		break;
	}
	cc_classify_from_type(p, caplen, type_off, hdr_end, f);
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
		capture_classify_eth(p, caplen, given, local_mac, out);
		break;
	case CAPTURE_SLL:
		/* pkttype(2) hatype(2) halen(2) addr(8) protocol(2) */
		if (caplen >= 2)
			classify_cooked(p, caplen, cc_be16(p), 14, 16, out);
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
capture_expand(const struct capture_cell *cells, uint64_t *c)
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

	for (unsigned f = 0; f < CAP_CAPTURE_DROPPED; f++)
		c[f] = 0;
	/* the index is ((d x 3 + k) x 4 + l3) x 4 + l4 (capture_cell_index) */
	for (unsigned i = 0; i < CAPTURE_NCELLS; i++) {
		const struct capture_cell *cell = &cells[i];
		unsigned d = i / 48, k = i / 16 % 3, p3 = i / 4 % 4, p4 = i % 4;
		if (!cell->frames)
			continue;
		c[d ? CAP_TX_FRAMES : CAP_RX_FRAMES] += cell->frames;
		c[d ? CAP_TX_BYTES : CAP_RX_BYTES] += cell->bytes;
		c[frames[d][k]] += cell->frames;
		c[bytes[d][k]] += cell->bytes;
		c[l3[p3]] += cell->frames;
		if (p4 != CAPTURE_L4_NONE)
			c[l4[p4]] += cell->frames;
	}
}

/* "aa:bb:cc:dd:ee:ff", ':' or '-' between bytes. */
int
capture_parse_mac(const char *s, uint8_t mac[6])
{
	char sep = 0;

	for (int i = 0; i < 6; i++) {
		unsigned v = 0;
		/* one or two hex digits an octet, as ether_aton and tcpdump
		 * take them (2:0:0:0:0:1) */
		for (int k = 0; k < 2; k++) {
			char ch = *s;
			unsigned d;
			if (ch >= '0' && ch <= '9')
				d = (unsigned)(ch - '0');
			else if (ch >= 'a' && ch <= 'f')
				d = (unsigned)(ch - 'a' + 10);
			else if (ch >= 'A' && ch <= 'F')
				d = (unsigned)(ch - 'A' + 10);
			else if (k == 1)
				break;
			else
				return -1;
			v = v << 4 | d;
			s++;
		}
		mac[i] = (uint8_t)v;
		if (i < 5 && *s != ':' && *s != '-')
			return -1;
		if (i < 5 && sep && *s != sep)
			return -1; /* one separator throughout */
		if (i < 5)
			sep = *s++;
	}
	return *s ? -1 : 0;
}
