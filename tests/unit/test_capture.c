/*
 * test_capture.c - the Network Capture classifier on hand-built frames:
 * destination classes by MAC, VLAN tags up to depth 3 (802.1ad, 0x9100,
 * 802.1Q), IPv4 TCP/UDP/ICMP, IPv6 hop-by-hop then ICMPv6, IPv6 fragment
 * then UDP, ARP, an unknown ethertype, an 802.3 length, runts and frames
 * cut by the snap length, SLL and SLL2 packet types, direction by
 * --local-mac, the cells capture_count() adds to (bytes = wire length)
 * and the counters capture_expand() makes of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include "capture_classify.h"

static const uint8_t LOCAL[6] = { 0x02, 0, 0, 0, 0, 1 };
static const uint8_t PEER[6] = { 0x02, 0, 0, 0, 0, 2 };
static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t MCAST[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };

/* Build an Ethernet header dst, src, then tags (ethertypes) and type at
 * f; returns the length so far. */
static size_t
eth(uint8_t *f, const uint8_t *dst, const uint8_t *src, const uint16_t *tags, size_t ntags,
    uint16_t type)
{
	size_t n = 0;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	n = 12;
	for (size_t i = 0; i < ntags; i++) {
		f[n++] = (uint8_t)(tags[i] >> 8);
		f[n++] = (uint8_t)tags[i];
		f[n++] = 0x00; /* TCI: VLAN 5 */
		f[n++] = 0x05;
	}
	f[n++] = (uint8_t)(type >> 8);
	f[n++] = (uint8_t)type;
	return n;
}

/* An IPv4 header with protocol proto and destination d at f. */
static size_t
ipv4(uint8_t *f, uint8_t proto, const uint8_t d[4])
{
	memset(f, 0, 20);
	f[0] = 0x45;
	f[9] = proto;
	memcpy(f + 16, d, 4);
	return 20;
}

/* An IPv6 header with next header nh and destination first byte d0. */
static size_t
ipv6(uint8_t *f, uint8_t nh, uint8_t d0)
{
	memset(f, 0, 40);
	f[0] = 0x60;
	f[6] = nh;
	f[24] = d0;
	return 40;
}

static struct capture_frame
classify(const uint8_t *f, size_t n, int given)
{
	struct capture_frame cf;

	capture_classify(CAPTURE_EN10MB, f, (uint32_t)n, given, LOCAL, &cf);
	return cf;
}

static void
test_classes_by_mac(void **state)
{
	uint8_t f[128];
	const uint8_t d[4] = { 10, 0, 0, 2 };
	size_t n;
	struct capture_frame cf;

	(void)state;
	n = eth(f, PEER, LOCAL, NULL, 0, 0x0800);
	n += ipv4(f + n, 17, d);
	cf = classify(f, n, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.dir, CAPTURE_TX); /* src is the local MAC */
	assert_int_equal(cf.dclass, CAPTURE_DIRECTED);
	assert_int_equal(cf.l3, CAPTURE_L3_IPV4);
	assert_int_equal(cf.l4, CAPTURE_L4_UDP);

	eth(f, BCAST, PEER, NULL, 0, 0x0806);
	cf = classify(f, 42, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.dir, CAPTURE_RX);
	assert_int_equal(cf.dclass, CAPTURE_BROADCAST);
	assert_int_equal(cf.l3, CAPTURE_L3_ARP);
	assert_int_equal(cf.l4, CAPTURE_L4_NONE);

	n = eth(f, MCAST, PEER, NULL, 0, 0x0800);
	n += ipv4(f + n, 1, d);
	cf = classify(f, n, CAPTURE_DIR_OUT); /* a live outbound handle */
	assert_int_equal(cf.dir, CAPTURE_TX);
	assert_int_equal(cf.dclass, CAPTURE_MULTICAST);
	assert_int_equal(cf.l4, CAPTURE_L4_ICMP);

	/* given inbound wins over a local source MAC */
	n = eth(f, PEER, LOCAL, NULL, 0, 0x0800);
	cf = classify(f, n, CAPTURE_DIR_IN);
	assert_int_equal(cf.dir, CAPTURE_RX);
}

/* 802.1ad, then 0x9100, then 802.1Q: depth 3, then IPv4 TCP. */
static void
test_tags_depth3(void **state)
{
	uint8_t f[128];
	const uint16_t tags[3] = { 0x88a8, 0x9100, 0x8100 };
	const uint8_t d[4] = { 10, 0, 0, 2 };
	size_t n = eth(f, PEER, PEER, tags, 3, 0x0800);
	struct capture_frame cf;

	(void)state;
	assert_int_equal(n, 26); /* 12 + 3 x 4 + 2 */
	n += ipv4(f + n, 6, d);
	cf = classify(f, n, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.l3, CAPTURE_L3_IPV4);
	assert_int_equal(cf.l4, CAPTURE_L4_TCP);

	/* cut inside the third tag: the ethertype is unknown, Other */
	cf = classify(f, 24, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.l3, CAPTURE_L3_OTHER);
	assert_int_equal(cf.dclass, CAPTURE_DIRECTED);

	/* cut after the ethertype, before the IPv4 protocol: IPv4, no L4 */
	cf = classify(f, 26 + 9, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.l3, CAPTURE_L3_IPV4);
	assert_int_equal(cf.l4, CAPTURE_L4_NONE);
}

static void
test_ipv6_extension_headers(void **state)
{
	uint8_t f[128];
	size_t n = eth(f, MCAST, PEER, NULL, 0, 0x86dd);
	struct capture_frame cf;

	(void)state;
	n += ipv6(f + n, 0, 0xff); /* hop-by-hop first */
	f[n] = 58;                 /* then ICMPv6 */
	f[n + 1] = 0;              /* 8 bytes of options */
	memset(f + n + 2, 1, 6);
	n += 8;
	f[n] = 143; /* MLDv2 report */
	n += 8;
	cf = classify(f, n, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.l3, CAPTURE_L3_IPV6);
	assert_int_equal(cf.l4, CAPTURE_L4_ICMP);
	assert_int_equal(cf.dclass, CAPTURE_MULTICAST);

	/* cut inside the hop-by-hop header's first two bytes: no L4 */
	cf = classify(f, 14 + 40 + 1, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.l3, CAPTURE_L3_IPV6);
	assert_int_equal(cf.l4, CAPTURE_L4_NONE);

	/* destination options (16 bytes), fragment, UDP */
	n = eth(f, PEER, PEER, NULL, 0, 0x86dd);
	n += ipv6(f + n, 60, 0x20);
	f[n] = 44;
	f[n + 1] = 1; /* (1 + 1) x 8 = 16 bytes */
	n += 16;
	f[n] = 17;
	n += 8;
	cf = classify(f, n, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.l4, CAPTURE_L4_UDP);

	/* no next header (59): IPv6 without L4 */
	n = eth(f, PEER, PEER, NULL, 0, 0x86dd);
	n += ipv6(f + n, 59, 0x20);
	cf = classify(f, n, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.l3, CAPTURE_L3_IPV6);
	assert_int_equal(cf.l4, CAPTURE_L4_NONE);
}

static void
test_other_and_runts(void **state)
{
	uint8_t f[128];
	struct capture_frame cf;

	(void)state;
	memset(f, 0, sizeof(f));
	eth(f, PEER, PEER, NULL, 0, 0x88b5); /* local experimental ethertype */
	cf = classify(f, 60, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.l3, CAPTURE_L3_OTHER);
	eth(f, PEER, PEER, NULL, 0, 46); /* 802.3 length field */
	cf = classify(f, 60, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.l3, CAPTURE_L3_OTHER);

	/* caplen 13: the ethertype is not whole */
	eth(f, BCAST, PEER, NULL, 0, 0x0800);
	cf = classify(f, 13, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.dclass, CAPTURE_BROADCAST);
	assert_int_equal(cf.l3, CAPTURE_L3_OTHER);
	/* caplen 5: not even the destination MAC: directed, received */
	cf = classify(f, 5, CAPTURE_DIR_BY_MAC);
	assert_int_equal(cf.dclass, CAPTURE_DIRECTED);
	assert_int_equal(cf.dir, CAPTURE_RX);
	/* caplen 0 */
	cf = classify(f, 0, CAPTURE_DIR_OUT);
	assert_int_equal(cf.dir, CAPTURE_TX);
	assert_int_equal(cf.l3, CAPTURE_L3_OTHER);
}

/* SLL: pkttype(2) hatype(2) halen(2) addr(8) protocol(2); SLL2:
 * protocol(2) reserved(2) ifindex(4) hatype(2) pkttype(1) halen(1)
 * addr(8). A VLAN tag follows the header (libpcap puts it back). */
static void
test_cooked(void **state)
{
	uint8_t f[128];
	const uint8_t bc[4] = { 255, 255, 255, 255 }, mc[4] = { 239, 1, 2, 3 },
		      uc[4] = { 10, 0, 0, 2 };
	struct capture_frame cf;

	(void)state;
	memset(f, 0, sizeof(f));
	f[1] = 2; /* MULTICAST */
	f[14] = 0x08;
	ipv4(f + 16, 17, mc);
	capture_classify(CAPTURE_SLL, f, 36, 0, NULL, &cf);
	assert_int_equal(cf.dir, CAPTURE_RX);
	assert_int_equal(cf.dclass, CAPTURE_MULTICAST);
	assert_int_equal(cf.l4, CAPTURE_L4_UDP);

	f[1] = 4; /* OUTGOING: class from the IPv4 destination */
	ipv4(f + 16, 17, bc);
	capture_classify(CAPTURE_SLL, f, 36, 0, NULL, &cf);
	assert_int_equal(cf.dir, CAPTURE_TX);
	assert_int_equal(cf.dclass, CAPTURE_BROADCAST);

	memset(f, 0, sizeof(f));
	f[0] = 0x81; /* SLL2 with an 802.1Q tag after the header */
	f[10] = 4;
	f[22] = 0x08; /* the tag's inner ethertype at 20 + 2 */
	ipv4(f + 24, 6, mc);
	capture_classify(CAPTURE_SLL2, f, 44, 0, NULL, &cf);
	assert_int_equal(cf.dir, CAPTURE_TX);
	assert_int_equal(cf.dclass, CAPTURE_MULTICAST);
	assert_int_equal(cf.l3, CAPTURE_L3_IPV4);
	assert_int_equal(cf.l4, CAPTURE_L4_TCP);

	ipv4(f + 24, 6, uc);
	capture_classify(CAPTURE_SLL2, f, 44, 0, NULL, &cf);
	assert_int_equal(cf.dclass, CAPTURE_DIRECTED);

	f[10] = 1; /* BROADCAST received */
	capture_classify(CAPTURE_SLL2, f, 44, 0, NULL, &cf);
	assert_int_equal(cf.dir, CAPTURE_RX);
	assert_int_equal(cf.dclass, CAPTURE_BROADCAST);

	f[10] = 3; /* OTHERHOST: received, directed */
	capture_classify(CAPTURE_SLL2, f, 44, 0, NULL, &cf);
	assert_int_equal(cf.dir, CAPTURE_RX);
	assert_int_equal(cf.dclass, CAPTURE_DIRECTED);

	/* an SLL2 runt: too short for the packet type */
	capture_classify(CAPTURE_SLL2, f, 10, 0, NULL, &cf);
	assert_int_equal(cf.l3, CAPTURE_L3_OTHER);
}

/* Frames counted into cells, then expanded: a received broadcast ARP of
 * 60 bytes, two sent directed IPv4/TCP of 1514 and 66 bytes. */
static void
test_count(void **state)
{
	struct capture_cell cells[CAPTURE_NCELLS];
	uint64_t c[CAP_NFIELDS];
	struct capture_frame rx_bc_arp = { CAPTURE_RX, CAPTURE_BROADCAST, CAPTURE_L3_ARP,
					   CAPTURE_L4_NONE };
	struct capture_frame tx_uc_tcp = { CAPTURE_TX, CAPTURE_DIRECTED, CAPTURE_L3_IPV4,
					   CAPTURE_L4_TCP };

	(void)state;
	memset(cells, 0, sizeof(cells));
	capture_count(cells, &rx_bc_arp, 60);
	capture_count(cells, &tx_uc_tcp, 1514);
	capture_count(cells, &tx_uc_tcp, 66);
	/* two cells: ((0 x 3 + 2) x 4 + 3) x 4 + 0 = 44 and
	 * ((1 x 3 + 0) x 4 + 1) x 4 + 1 = 53 */
	assert_int_equal(capture_cell_index(&rx_bc_arp), 44);
	assert_int_equal(capture_cell_index(&tx_uc_tcp), 53);
	assert_int_equal(cells[44].frames, 1);
	assert_int_equal(cells[44].bytes, 60);
	assert_int_equal(cells[53].frames, 2);
	assert_int_equal(cells[53].bytes, 1580);
	c[CAP_CAPTURE_DROPPED] = 7; /* left as it is */
	c[CAP_INTERFACE_DROPPED] = 8;
	capture_expand(cells, c);
	assert_int_equal(c[CAP_RX_FRAMES], 1);
	assert_int_equal(c[CAP_RX_BYTES], 60);
	assert_int_equal(c[CAP_RX_BROADCAST_FRAMES], 1);
	assert_int_equal(c[CAP_RX_BROADCAST_BYTES], 60);
	assert_int_equal(c[CAP_RX_DIRECTED_FRAMES], 0);
	assert_int_equal(c[CAP_TX_FRAMES], 2);
	assert_int_equal(c[CAP_TX_BYTES], 1580); /* 1514 + 66 */
	assert_int_equal(c[CAP_TX_DIRECTED_FRAMES], 2);
	assert_int_equal(c[CAP_TX_DIRECTED_BYTES], 1580);
	assert_int_equal(c[CAP_TX_BROADCAST_FRAMES], 0);
	assert_int_equal(c[CAP_ARP], 1);
	assert_int_equal(c[CAP_IPV4], 2);
	assert_int_equal(c[CAP_TCP], 2);
	assert_int_equal(c[CAP_UDP], 0);
	assert_int_equal(c[CAP_OTHER], 0);
	assert_int_equal(c[CAP_CAPTURE_DROPPED], 7);
	assert_int_equal(c[CAP_INTERFACE_DROPPED], 8);
}

/* Every cell holding frames: cell i gets i + 1 frames of (i + 1) x 10
 * bytes, so each counter is a sum over the cells of one kind, computed
 * here by hand from the index layout ((d x 3 + k) x 4 + l3) x 4 + l4. */
static void
test_expand_every_cell(void **state)
{
	struct capture_cell cells[CAPTURE_NCELLS];
	uint64_t c[CAP_NFIELDS];

	(void)state;
	for (unsigned i = 0; i < CAPTURE_NCELLS; i++) {
		cells[i].frames = i + 1;
		cells[i].bytes = (i + 1) * 10;
	}
	capture_expand(cells, c);
	/* received: cells 0..47, frames 1 + ... + 48 = 48 x 49 / 2 = 1176;
	 * sent: cells 48..95, frames 49 + ... + 96 = 96 x 97 / 2 - 1176 = 3480 */
	assert_int_equal(c[CAP_RX_FRAMES], 1176);
	assert_int_equal(c[CAP_RX_BYTES], 11760);
	assert_int_equal(c[CAP_TX_FRAMES], 3480);
	assert_int_equal(c[CAP_TX_BYTES], 34800);
	/* received directed: cells 0..15, 1 + ... + 16 = 136; multicast
	 * 16..31: 17 + ... + 32 = 392; broadcast 32..47: 33 + ... + 48 = 648
	 * (136 + 392 + 648 = 1176) */
	assert_int_equal(c[CAP_RX_DIRECTED_FRAMES], 136);
	assert_int_equal(c[CAP_RX_MULTICAST_FRAMES], 392);
	assert_int_equal(c[CAP_RX_BROADCAST_FRAMES], 648);
	assert_int_equal(c[CAP_RX_DIRECTED_BYTES], 1360);
	assert_int_equal(c[CAP_RX_MULTICAST_BYTES], 3920);
	assert_int_equal(c[CAP_RX_BROADCAST_BYTES], 6480);
	/* sent: each class 16 cells, 256 more frames than the received one:
	 * 136 + 768 = 904, 392 + 768 = 1160, 648 + 768 = 1416 */
	assert_int_equal(c[CAP_TX_DIRECTED_FRAMES], 904);
	assert_int_equal(c[CAP_TX_MULTICAST_FRAMES], 1160);
	assert_int_equal(c[CAP_TX_BROADCAST_FRAMES], 1416);
	assert_int_equal(c[CAP_TX_DIRECTED_BYTES], 9040);
	assert_int_equal(c[CAP_TX_MULTICAST_BYTES], 11600);
	assert_int_equal(c[CAP_TX_BROADCAST_BYTES], 14160);
	/* l3 = i / 4 % 4: each l3 has 24 cells i = 16g + 4 x l3 + l4 (g the
	 * 6 (d, k) groups, l4 0..3); frames sum over them: sum over g of
	 * (4 x (16g + 4 x l3) + 0+1+2+3 + 4) = 64 x (0+...+5) + 6 x (16 x l3 + 10)
	 * = 960 + 96 x l3 + 60. Other (l3 0) 1020, IPv4 1116, IPv6 1212,
	 * ARP 1308; together 4656 = 1176 + 3480 */
	assert_int_equal(c[CAP_OTHER], 1020);
	assert_int_equal(c[CAP_IPV4], 1116);
	assert_int_equal(c[CAP_IPV6], 1212);
	assert_int_equal(c[CAP_ARP], 1308);
	/* l4 = i % 4: 24 cells i = 4j + l4 (j 0..23); frames sum over j of
	 * (4j + l4 + 1) = 4 x 276 + 24 x (l4 + 1): TCP (1) 1152, UDP (2)
	 * 1176, ICMP (3) 1200; cells with l4 0 count in none of them */
	assert_int_equal(c[CAP_TCP], 1152);
	assert_int_equal(c[CAP_UDP], 1176);
	assert_int_equal(c[CAP_ICMP], 1200);
}

/* The callback's shortcut (capture_cell_eth) gives the cell the full
 * classifier gives, for every IPv4 protocol number, every length an IPv4
 * frame can be cut to, both directions and the three destination classes,
 * and for frames it leaves to the classifier (tagged, IPv6, ARP, an
 * unknown ethertype, an IPv4 header of another version). */
static void
test_cell_shortcut(void **state)
{
	static const uint8_t *const dsts[] = { PEER, MCAST, BCAST };
	static const uint16_t tag[] = { 0x8100 };
	uint8_t f[128];
	struct capture_frame cf;
	unsigned checked = 0;

	(void)state;
	for (int given = CAPTURE_DIR_IN; given <= CAPTURE_DIR_OUT; given++)
		for (size_t d = 0; d < 3; d++)
			for (unsigned proto = 0; proto < 256; proto++) {
				size_t n = eth(f, dsts[d], LOCAL, NULL, 0, 0x0800);
				n += ipv4(f + n, (uint8_t)proto, (const uint8_t[4]){ 10, 0, 0, 1 });
				for (uint32_t cut = 0; cut <= n; cut++) {
					capture_classify(CAPTURE_EN10MB, f, cut, given, NULL, &cf);
					assert_int_equal(capture_cell_eth(f, cut, given),
							 capture_cell_index(&cf));
					checked++;
				}
			}
	/* 2 x 3 x 256 x 35 lengths (0 .. 14 + 20) */
	assert_int_equal(checked, 53760);
	/* an untagged UDP frame: directed received cell ((0 x 3 + 0) x 4 +
	 * 1) x 4 + 2 = 6; sent broadcast ((1 x 3 + 2) x 4 + 1) x 4 + 2 = 86 */
	size_t n = eth(f, PEER, LOCAL, NULL, 0, 0x0800);
	n += ipv4(f + n, 17, (const uint8_t[4]){ 10, 0, 0, 1 });
	assert_int_equal(capture_cell_eth(f, (uint32_t)n, CAPTURE_DIR_IN), 6);
	memcpy(f, BCAST, 6);
	assert_int_equal(capture_cell_eth(f, (uint32_t)n, CAPTURE_DIR_OUT), 86);
	/* left to the classifier: a tag, IPv6, ARP, 0x88b5, IPv4 version 6 */
	n = eth(f, PEER, LOCAL, tag, 1, 0x0800);
	n += ipv4(f + n, 6, (const uint8_t[4]){ 10, 0, 0, 1 });
	capture_classify(CAPTURE_EN10MB, f, (uint32_t)n, CAPTURE_DIR_IN, NULL, &cf);
	assert_int_equal(capture_cell_eth(f, (uint32_t)n, CAPTURE_DIR_IN), capture_cell_index(&cf));
	assert_int_equal(capture_cell_index(&cf), 5); /* IPv4 TCP: 1 x 4 + 1 */
	n = eth(f, MCAST, LOCAL, NULL, 0, 0x86dd);
	n += ipv6(f + n, 58, 0xff);
	capture_classify(CAPTURE_EN10MB, f, (uint32_t)n, CAPTURE_DIR_OUT, NULL, &cf);
	assert_int_equal(capture_cell_eth(f, (uint32_t)n, CAPTURE_DIR_OUT), capture_cell_index(&cf));
	assert_int_equal(capture_cell_index(&cf), 75); /* ((1 x 3 + 1) x 4 + 2) x 4 + 3 */
	n = eth(f, BCAST, LOCAL, NULL, 0, 0x0806);
	assert_int_equal(capture_cell_eth(f, (uint32_t)n + 28, CAPTURE_DIR_IN), 44);
	n = eth(f, PEER, LOCAL, NULL, 0, 0x88b5);
	assert_int_equal(capture_cell_eth(f, (uint32_t)n + 46, CAPTURE_DIR_IN), 0);
	n = eth(f, PEER, LOCAL, NULL, 0, 0x0800);
	n += ipv4(f + n, 6, (const uint8_t[4]){ 10, 0, 0, 1 });
	f[14] = 0x65; /* not version 4: IPv4 by ethertype, no TCP */
	assert_int_equal(capture_cell_eth(f, (uint32_t)n, CAPTURE_DIR_IN), 4);
}

/* A cooked header replaces the 14-byte Ethernet one: a 60-byte frame is
 * 60 - 14 + 16 = 62 in SLL and 60 - 14 + 20 = 66 in SLL2. */
static void
test_wire_len(void **state)
{
	(void)state;
	assert_int_equal(capture_wire_len(CAPTURE_EN10MB, 60), 60);
	assert_int_equal(capture_wire_len(CAPTURE_SLL, 62), 60);
	assert_int_equal(capture_wire_len(CAPTURE_SLL2, 66), 60);
	assert_int_equal(capture_wire_len(CAPTURE_SLL2, 10), 10); /* a runt stays */
}

static void
test_parse_mac(void **state)
{
	uint8_t m[6];

	(void)state;
	assert_int_equal(capture_parse_mac("02:00:00:AB:cd:01", m), 0);
	assert_int_equal(m[3], 0xab);
	assert_int_equal(m[5], 1);
	assert_int_equal(capture_parse_mac("02-00-00-ab-cd-01", m), 0);
	assert_int_equal(capture_parse_mac("02:00:00:ab:cd", m), -1);
	assert_int_equal(capture_parse_mac("02:00:00:ab:cd:011", m), -1);
	assert_int_equal(capture_parse_mac("g2:00:00:ab:cd:01", m), -1);
	/* one digit an octet, as ether_aton takes it */
	assert_int_equal(capture_parse_mac("2:0:0:ab:c:1", m), 0);
	static const uint8_t short_form[6] = { 0x02, 0, 0, 0xab, 0x0c, 0x01 };
	assert_memory_equal(m, short_form, 6);
	assert_int_equal(capture_parse_mac("2:0:0:ab:c:", m), -1);
	assert_int_equal(capture_parse_mac("2::0:ab:c:1", m), -1);
	/* mixed separators */
	assert_int_equal(capture_parse_mac("02:00-00:ab:cd:01", m), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes_by_mac),
		cmocka_unit_test(test_tags_depth3),
		cmocka_unit_test(test_ipv6_extension_headers),
		cmocka_unit_test(test_other_and_runts),
		cmocka_unit_test(test_cooked),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_expand_every_cell),
		cmocka_unit_test(test_cell_shortcut),
		cmocka_unit_test(test_wire_len),
		cmocka_unit_test(test_parse_mac),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
