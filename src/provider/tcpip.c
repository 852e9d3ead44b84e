/*
 * tcpip.c - the TCP, UDPv4, UDPv6, IPv4, IPv6, ICMP and ICMPv6 sets
 * (COUNTERS.md section 8), one instance named "" each, from the kernel's
 * network MIBs: the "Tcp:", "Udp:", "Ip:" and "Icmp:" tables of
 * /proc/net/snmp, the "TcpExt:" table of /proc/net/netstat, and the
 * "name value" lines of /proc/net/snmp6. Linux keeps one TCP MIB for IPv4
 * and IPv6, hence one TCP set.
 *
 * The v4 and v6 sets of a protocol share one field enum and one counter
 * table; only their field names differ, and a field's name is the kernel's
 * name for it (the header name, or the snmp6 key), so it is also the key the
 * parser looks for. The three snmp files are shared pfiles: read once per
 * sample whichever sets need them, and not at all when no requested
 * counter needs one of their fields. A field the kernel lacks is absent,
 * so its counters are UNSUPPORTED. Also home of the table parser declared
 * in netsnmp.h.
 */
#include <stdlib.h>
#include <string.h>

#include "netsnmp.h"
#include "procstat.h"
#include "provider.h"

#define BIT(f) ((uint64_t)1 << (f))

/* A one-field counter: a count since boot, or a count per second. */
#define COUNT(n, f, h)                                                                             \
	{ .name = (n), .type = CT_RAW, .num = { { (f), 1 } }, .unit = "", .help = (h) }
#define RATE(n, f, h)                                                                              \
	{ .name = (n), .type = CT_RATE, .num = { { (f), 1 } }, .unit = "/s", .help = (h) }
/* A rate of the sum of two fields. */
#define RATE2(n, f, g, h)                                                                          \
	{                                                                                          \
		.name = (n), .type = CT_RATE, .num = { { (f), 1 }, { (g), 1 } }, .unit = "/s",     \
		.help = (h)                                                                        \
	}

/* TCP: the Tcp table of /proc/net/snmp, then TcpExt of /proc/net/netstat. */
enum {
	F_TCP_ACTIVE_OPENS,
	F_TCP_PASSIVE_OPENS,
	F_TCP_ATTEMPT_FAILS,
	F_TCP_ESTAB_RESETS,
	F_TCP_CURR_ESTAB,
	F_TCP_IN_SEGS,
	F_TCP_OUT_SEGS,
	F_TCP_RETRANS_SEGS,
	F_TCP_IN_ERRS,
	F_TCP_OUT_RSTS,
	F_TCP_IN_CSUM_ERRORS,
	F_TCP_LISTEN_OVERFLOWS,
	F_TCP_LISTEN_DROPS,
	F_TCP_TIMEOUTS,
	F_TCP_NFIELDS,
};

#define TCP_MIB_N (F_TCP_IN_CSUM_ERRORS + 1)
#define TCPEXT_FIRST F_TCP_LISTEN_OVERFLOWS
#define TCPEXT_N (F_TCP_NFIELDS - TCPEXT_FIRST)

static const struct field_desc tcp_fields[F_TCP_NFIELDS] = {
	[F_TCP_ACTIVE_OPENS] = { "ActiveOpens", FW_ULONG, FK_COUNTER, FB_NONE,
				 PROM("active_opens", "", 0) },
	[F_TCP_PASSIVE_OPENS] = { "PassiveOpens", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("passive_opens", "", 0) },
	[F_TCP_ATTEMPT_FAILS] = { "AttemptFails", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("attempt_fails", "", 0) },
	[F_TCP_ESTAB_RESETS] = { "EstabResets", FW_ULONG, FK_COUNTER, FB_NONE,
				 PROM("established_resets", "", 0) },
	[F_TCP_CURR_ESTAB] = { "CurrEstab", FW_ULONG, FK_GAUGE, FB_NONE,
			       PROM("established_connections", "", 0) },
	[F_TCP_IN_SEGS] = { "InSegs", FW_ULONG, FK_COUNTER, FB_NONE,
			    PROM("received_segments", "", 0) },
	[F_TCP_OUT_SEGS] = { "OutSegs", FW_ULONG, FK_COUNTER, FB_NONE,
			     PROM("sent_segments", "", 0) },
	[F_TCP_RETRANS_SEGS] = { "RetransSegs", FW_ULONG, FK_COUNTER, FB_NONE,
				 PROM("retransmitted_segments", "", 0) },
	[F_TCP_IN_ERRS] = { "InErrs", FW_ULONG, FK_COUNTER, FB_NONE,
			    PROM("receive_errors", "", 0) },
	[F_TCP_OUT_RSTS] = { "OutRsts", FW_ULONG, FK_COUNTER, FB_NONE, PROM("sent_resets", "", 0) },
	[F_TCP_IN_CSUM_ERRORS] = { "InCsumErrors", FW_ULONG, FK_COUNTER, FB_NONE,
				   PROM("checksum_errors", "", 0) },
	[F_TCP_LISTEN_OVERFLOWS] = { "ListenOverflows", FW_ULONG, FK_COUNTER, FB_NONE,
				     PROM("listen_overflows", "", 0) },
	[F_TCP_LISTEN_DROPS] = { "ListenDrops", FW_ULONG, FK_COUNTER, FB_NONE,
				 PROM("listen_drops", "", 0) },
	[F_TCP_TIMEOUTS] = { "TCPTimeouts", FW_ULONG, FK_COUNTER, FB_NONE,
			     PROM("timeouts", "", 0) },
};

static const struct counter_desc tcp_counters[] = {
	RATE2("Segments/sec", F_TCP_IN_SEGS, F_TCP_OUT_SEGS,
	      "TCP segments received plus sent per second, over IPv4 and IPv6."),
	RATE("Segments Received/sec", F_TCP_IN_SEGS,
	     "TCP segments received per second, those in error included."),
	RATE("Segments Sent/sec", F_TCP_OUT_SEGS,
	     "TCP segments sent per second, not counting retransmissions."),
	RATE("Segments Retransmitted/sec", F_TCP_RETRANS_SEGS,
	     "TCP segments sent again per second because their first copy was not acknowledged."),
	COUNT("Connections Established", F_TCP_CURR_ESTAB,
	      "TCP connections now in the ESTABLISHED or CLOSE-WAIT state."),
	COUNT("Connections Active", F_TCP_ACTIVE_OPENS,
	      "TCP connections this host opened (sent the SYN) since boot."),
	RATE("Connections Active/sec", F_TCP_ACTIVE_OPENS,
	     "TCP connections this host opened (sent the SYN) per second."),
	COUNT("Connections Passive", F_TCP_PASSIVE_OPENS,
	      "TCP connections a listening socket here accepted a SYN for since boot."),
	RATE("Connections Passive/sec", F_TCP_PASSIVE_OPENS,
	     "TCP connections a listening socket here accepted a SYN for per second."),
	COUNT("Connection Failures", F_TCP_ATTEMPT_FAILS,
	      "TCP connection attempts that failed before being established, since boot."),
	RATE("Connection Failures/sec", F_TCP_ATTEMPT_FAILS,
	     "TCP connection attempts that failed before being established, per second."),
	COUNT("Connections Reset", F_TCP_ESTAB_RESETS,
	      "Established TCP connections that were reset, since boot."),
	RATE("Connections Reset/sec", F_TCP_ESTAB_RESETS,
	     "Established TCP connections that were reset, per second."),
	COUNT("Segments Received Errors", F_TCP_IN_ERRS,
	      "TCP segments received in error (bad checksum or header) since boot."),
	RATE("Segments Received Errors/sec", F_TCP_IN_ERRS,
	     "TCP segments received in error (bad checksum or header) per second."),
	COUNT("Checksum Errors", F_TCP_IN_CSUM_ERRORS,
	      "TCP segments received with a bad checksum since boot."),
	RATE("Checksum Errors/sec", F_TCP_IN_CSUM_ERRORS,
	     "TCP segments received with a bad checksum per second."),
	RATE("Resets Sent/sec", F_TCP_OUT_RSTS, "TCP segments with the RST flag sent per second."),
	RATE("Listen Overflows/sec", F_TCP_LISTEN_OVERFLOWS,
	     "Completed connections per second that found a listening socket's accept queue full."),
	RATE("Listen Drops/sec", F_TCP_LISTEN_DROPS,
	     "Connection requests per second a listening socket dropped, for any reason."),
	RATE("Timeouts/sec", F_TCP_TIMEOUTS,
	     "TCP retransmission timer expiries per second."),
};

/* UDPv4 and UDPv6: the Udp table of /proc/net/snmp, or Udp6 snmp6 keys. */
enum {
	F_UDP_IN_DATAGRAMS,
	F_UDP_NO_PORTS,
	F_UDP_IN_ERRORS,
	F_UDP_OUT_DATAGRAMS,
	F_UDP_RCVBUF_ERRORS,
	F_UDP_NFIELDS,
};

static const struct field_desc udpv4_fields[F_UDP_NFIELDS] = {
	[F_UDP_IN_DATAGRAMS] = { "InDatagrams", FW_ULONG, FK_COUNTER, FB_NONE,
				 PROM("received_datagrams", "", 0) },
	[F_UDP_NO_PORTS] = { "NoPorts", FW_ULONG, FK_COUNTER, FB_NONE,
			     PROM("no_port_datagrams", "", 0) },
	[F_UDP_IN_ERRORS] = { "InErrors", FW_ULONG, FK_COUNTER, FB_NONE,
			      PROM("receive_errors", "", 0) },
	[F_UDP_OUT_DATAGRAMS] = { "OutDatagrams", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("sent_datagrams", "", 0) },
	[F_UDP_RCVBUF_ERRORS] = { "RcvbufErrors", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("receive_buffer_errors", "", 0) },
};

static const struct field_desc udpv6_fields[F_UDP_NFIELDS] = {
	[F_UDP_IN_DATAGRAMS] = { "Udp6InDatagrams", FW_ULONG, FK_COUNTER, FB_NONE,
				 PROM("received_datagrams", "", 0) },
	[F_UDP_NO_PORTS] = { "Udp6NoPorts", FW_ULONG, FK_COUNTER, FB_NONE,
			     PROM("no_port_datagrams", "", 0) },
	[F_UDP_IN_ERRORS] = { "Udp6InErrors", FW_ULONG, FK_COUNTER, FB_NONE,
			      PROM("receive_errors", "", 0) },
	[F_UDP_OUT_DATAGRAMS] = { "Udp6OutDatagrams", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("sent_datagrams", "", 0) },
	[F_UDP_RCVBUF_ERRORS] = { "Udp6RcvbufErrors", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("receive_buffer_errors", "", 0) },
};

static const struct counter_desc udp_counters[] = {
	RATE2("Datagrams/sec", F_UDP_IN_DATAGRAMS, F_UDP_OUT_DATAGRAMS,
	      "UDP datagrams delivered to sockets plus datagrams sent, per second."),
	RATE("Datagrams Received/sec", F_UDP_IN_DATAGRAMS,
	     "UDP datagrams delivered to a socket per second."),
	RATE("Datagrams Sent/sec", F_UDP_OUT_DATAGRAMS, "UDP datagrams sent per second."),
	RATE("Datagrams No Port/sec", F_UDP_NO_PORTS,
	     "UDP datagrams received per second for a port no socket was bound to."),
	COUNT("Datagrams Received Errors", F_UDP_IN_ERRORS,
	      "UDP datagrams received since boot that could not be delivered, for reasons "
	      "other than no port."),
	RATE("Datagrams Received Errors/sec", F_UDP_IN_ERRORS,
	     "UDP datagrams received per second that could not be delivered, for reasons "
	     "other than no port."),
	RATE("Receive Buffer Errors/sec", F_UDP_RCVBUF_ERRORS,
	     "UDP datagrams dropped per second because the socket's receive buffer was full."),
};

/* IPv4 and IPv6: the Ip table of /proc/net/snmp, or Ip6 snmp6 keys. */
enum {
	F_IP_IN_RECEIVES,
	F_IP_IN_HDR_ERRORS,
	F_IP_IN_ADDR_ERRORS,
	F_IP_FORW_DATAGRAMS,
	F_IP_IN_UNKNOWN_PROTOS,
	F_IP_IN_DISCARDS,
	F_IP_IN_DELIVERS,
	F_IP_OUT_REQUESTS,
	F_IP_OUT_DISCARDS,
	F_IP_OUT_NO_ROUTES,
	F_IP_REASM_REQDS,
	F_IP_REASM_OKS,
	F_IP_REASM_FAILS,
	F_IP_FRAG_OKS,
	F_IP_FRAG_FAILS,
	F_IP_FRAG_CREATES,
	F_IP_NFIELDS,
};

static const struct field_desc ipv4_fields[F_IP_NFIELDS] = {
	[F_IP_IN_RECEIVES] = { "InReceives", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("received_datagrams", "", 0) },
	[F_IP_IN_HDR_ERRORS] = { "InHdrErrors", FW_ULONG, FK_COUNTER, FB_NONE,
				 PROM("header_errors", "", 0) },
	[F_IP_IN_ADDR_ERRORS] = { "InAddrErrors", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("address_errors", "", 0) },
	[F_IP_FORW_DATAGRAMS] = { "ForwDatagrams", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("forwarded_datagrams", "", 0) },
	[F_IP_IN_UNKNOWN_PROTOS] = { "InUnknownProtos", FW_ULONG, FK_COUNTER, FB_NONE,
				     PROM("unknown_protocol_datagrams", "", 0) },
	[F_IP_IN_DISCARDS] = { "InDiscards", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("received_discarded", "", 0) },
	[F_IP_IN_DELIVERS] = { "InDelivers", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("delivered_datagrams", "", 0) },
	[F_IP_OUT_REQUESTS] = { "OutRequests", FW_ULONG, FK_COUNTER, FB_NONE,
				PROM("sent_datagrams", "", 0) },
	[F_IP_OUT_DISCARDS] = { "OutDiscards", FW_ULONG, FK_COUNTER, FB_NONE,
				PROM("sent_discarded", "", 0) },
	[F_IP_OUT_NO_ROUTES] = { "OutNoRoutes", FW_ULONG, FK_COUNTER, FB_NONE,
				 PROM("no_route_datagrams", "", 0) },
	[F_IP_REASM_REQDS] = { "ReasmReqds", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("reassembly_fragments", "", 0) },
	[F_IP_REASM_OKS] = { "ReasmOKs", FW_ULONG, FK_COUNTER, FB_NONE,
			     PROM("reassembled_datagrams", "", 0) },
	[F_IP_REASM_FAILS] = { "ReasmFails", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("reassembly_failures", "", 0) },
	[F_IP_FRAG_OKS] = { "FragOKs", FW_ULONG, FK_COUNTER, FB_NONE,
			    PROM("fragmented_datagrams", "", 0) },
	[F_IP_FRAG_FAILS] = { "FragFails", FW_ULONG, FK_COUNTER, FB_NONE,
			      PROM("fragmentation_failures", "", 0) },
	[F_IP_FRAG_CREATES] = { "FragCreates", FW_ULONG, FK_COUNTER, FB_NONE,
				PROM("created_fragments", "", 0) },
};

static const struct field_desc ipv6_fields[F_IP_NFIELDS] = {
	[F_IP_IN_RECEIVES] = { "Ip6InReceives", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("received_datagrams", "", 0) },
	[F_IP_IN_HDR_ERRORS] = { "Ip6InHdrErrors", FW_ULONG, FK_COUNTER, FB_NONE,
				 PROM("header_errors", "", 0) },
	[F_IP_IN_ADDR_ERRORS] = { "Ip6InAddrErrors", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("address_errors", "", 0) },
	[F_IP_FORW_DATAGRAMS] = { "Ip6OutForwDatagrams", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("forwarded_datagrams", "", 0) },
	[F_IP_IN_UNKNOWN_PROTOS] = { "Ip6InUnknownProtos", FW_ULONG, FK_COUNTER, FB_NONE,
				     PROM("unknown_protocol_datagrams", "", 0) },
	[F_IP_IN_DISCARDS] = { "Ip6InDiscards", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("received_discarded", "", 0) },
	[F_IP_IN_DELIVERS] = { "Ip6InDelivers", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("delivered_datagrams", "", 0) },
	[F_IP_OUT_REQUESTS] = { "Ip6OutRequests", FW_ULONG, FK_COUNTER, FB_NONE,
				PROM("sent_datagrams", "", 0) },
	[F_IP_OUT_DISCARDS] = { "Ip6OutDiscards", FW_ULONG, FK_COUNTER, FB_NONE,
				PROM("sent_discarded", "", 0) },
	[F_IP_OUT_NO_ROUTES] = { "Ip6OutNoRoutes", FW_ULONG, FK_COUNTER, FB_NONE,
				 PROM("no_route_datagrams", "", 0) },
	[F_IP_REASM_REQDS] = { "Ip6ReasmReqds", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("reassembly_fragments", "", 0) },
	[F_IP_REASM_OKS] = { "Ip6ReasmOKs", FW_ULONG, FK_COUNTER, FB_NONE,
			     PROM("reassembled_datagrams", "", 0) },
	[F_IP_REASM_FAILS] = { "Ip6ReasmFails", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("reassembly_failures", "", 0) },
	[F_IP_FRAG_OKS] = { "Ip6FragOKs", FW_ULONG, FK_COUNTER, FB_NONE,
			    PROM("fragmented_datagrams", "", 0) },
	[F_IP_FRAG_FAILS] = { "Ip6FragFails", FW_ULONG, FK_COUNTER, FB_NONE,
			      PROM("fragmentation_failures", "", 0) },
	[F_IP_FRAG_CREATES] = { "Ip6FragCreates", FW_ULONG, FK_COUNTER, FB_NONE,
				PROM("created_fragments", "", 0) },
};

static const struct counter_desc ip_counters[] = {
	RATE2("Datagrams/sec", F_IP_IN_RECEIVES, F_IP_OUT_REQUESTS,
	      "IP datagrams received from the interfaces plus datagrams local protocols "
	      "handed to IP to send, per second."),
	RATE("Datagrams Received/sec", F_IP_IN_RECEIVES,
	     "IP datagrams received from the interfaces per second, those in error included."),
	RATE("Datagrams Sent/sec", F_IP_OUT_REQUESTS,
	     "IP datagrams local protocols handed to IP to send per second, forwarding "
	     "not included."),
	RATE("Datagrams Forwarded/sec", F_IP_FORW_DATAGRAMS,
	     "IP datagrams per second this host routed on towards another destination."),
	RATE("Datagrams Received Delivered/sec", F_IP_IN_DELIVERS,
	     "IP datagrams per second handed up to a local protocol (TCP, UDP, ICMP ...)."),
	COUNT("Datagrams Received Header Errors", F_IP_IN_HDR_ERRORS,
	      "IP datagrams dropped since boot for a bad header (checksum, version, TTL ...)."),
	RATE("Datagrams Received Header Errors/sec", F_IP_IN_HDR_ERRORS,
	     "IP datagrams dropped per second for a bad header (checksum, version, TTL ...)."),
	COUNT("Datagrams Received Address Errors", F_IP_IN_ADDR_ERRORS,
	      "IP datagrams dropped since boot because their destination address was not "
	      "valid here."),
	RATE("Datagrams Received Address Errors/sec", F_IP_IN_ADDR_ERRORS,
	     "IP datagrams dropped per second because their destination address was not "
	     "valid here."),
	COUNT("Datagrams Received Unknown Protocol", F_IP_IN_UNKNOWN_PROTOS,
	      "IP datagrams for this host dropped since boot because no local protocol "
	      "handles them."),
	RATE("Datagrams Received Unknown Protocol/sec", F_IP_IN_UNKNOWN_PROTOS,
	     "IP datagrams for this host dropped per second because no local protocol "
	     "handles them."),
	COUNT("Datagrams Received Discarded", F_IP_IN_DISCARDS,
	      "Valid incoming IP datagrams dropped since boot for lack of resources."),
	RATE("Datagrams Received Discarded/sec", F_IP_IN_DISCARDS,
	     "Valid incoming IP datagrams dropped per second for lack of resources."),
	COUNT("Datagrams Outbound Discarded", F_IP_OUT_DISCARDS,
	      "Valid outgoing IP datagrams dropped since boot for lack of resources."),
	RATE("Datagrams Outbound Discarded/sec", F_IP_OUT_DISCARDS,
	     "Valid outgoing IP datagrams dropped per second for lack of resources."),
	COUNT("Datagrams Outbound No Route", F_IP_OUT_NO_ROUTES,
	      "Outgoing IP datagrams dropped since boot because no route led to their "
	      "destination."),
	RATE("Datagrams Outbound No Route/sec", F_IP_OUT_NO_ROUTES,
	     "Outgoing IP datagrams dropped per second because no route led to their "
	     "destination."),
	RATE("Fragments Received/sec", F_IP_REASM_REQDS,
	     "IP fragments received per second that had to be reassembled."),
	RATE("Fragments Re-assembled/sec", F_IP_REASM_OKS,
	     "IP datagrams reassembled from fragments per second."),
	COUNT("Fragment Re-assembly Failures", F_IP_REASM_FAILS,
	      "Failures to reassemble an IP datagram from its fragments since boot."),
	RATE("Fragment Re-assembly Failures/sec", F_IP_REASM_FAILS,
	     "Failures to reassemble an IP datagram from its fragments per second."),
	RATE("Fragmented Datagrams/sec", F_IP_FRAG_OKS,
	     "Outgoing IP datagrams split into fragments per second."),
	COUNT("Fragmentation Failures", F_IP_FRAG_FAILS,
	      "Outgoing IP datagrams dropped since boot because they needed fragmenting "
	      "and could not be."),
	RATE("Fragmentation Failures/sec", F_IP_FRAG_FAILS,
	     "Outgoing IP datagrams dropped per second because they needed fragmenting "
	     "and could not be."),
	RATE("Fragments Created/sec", F_IP_FRAG_CREATES,
	     "IP fragments produced by fragmentation per second."),
};

/* ICMP and ICMPv6: the Icmp table of /proc/net/snmp, or Icmp6 snmp6 keys. */
enum {
	F_ICMP_IN_MSGS,
	F_ICMP_IN_ERRORS,
	F_ICMP_IN_DEST_UNREACHS,
	F_ICMP_IN_TIME_EXCDS,
	F_ICMP_IN_PARM_PROBS,
	F_ICMP_IN_REDIRECTS,
	F_ICMP_IN_ECHOS,
	F_ICMP_IN_ECHO_REPS,
	F_ICMP_OUT_MSGS,
	F_ICMP_OUT_ERRORS,
	F_ICMP_OUT_DEST_UNREACHS,
	F_ICMP_OUT_TIME_EXCDS,
	F_ICMP_OUT_PARM_PROBS,
	F_ICMP_OUT_REDIRECTS,
	F_ICMP_OUT_ECHOS,
	F_ICMP_OUT_ECHO_REPS,
	F_ICMP_NFIELDS,
};

static const struct field_desc icmp_fields[F_ICMP_NFIELDS] = {
	[F_ICMP_IN_MSGS] = { "InMsgs", FW_ULONG, FK_COUNTER, FB_NONE,
			     PROM("received_messages", "", 0) },
	[F_ICMP_IN_ERRORS] = { "InErrors", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("receive_errors", "", 0) },
	[F_ICMP_IN_DEST_UNREACHS] = { "InDestUnreachs", FW_ULONG, FK_COUNTER, FB_NONE,
				      PROM("received_dest_unreachable", "", 0) },
	[F_ICMP_IN_TIME_EXCDS] = { "InTimeExcds", FW_ULONG, FK_COUNTER, FB_NONE,
				   PROM("received_time_exceeded", "", 0) },
	[F_ICMP_IN_PARM_PROBS] = { "InParmProbs", FW_ULONG, FK_COUNTER, FB_NONE,
				   PROM("received_parameter_problems", "", 0) },
	[F_ICMP_IN_REDIRECTS] = { "InRedirects", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("received_redirects", "", 0) },
	[F_ICMP_IN_ECHOS] = { "InEchos", FW_ULONG, FK_COUNTER, FB_NONE,
			      PROM("received_echos", "", 0) },
	[F_ICMP_IN_ECHO_REPS] = { "InEchoReps", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("received_echo_replies", "", 0) },
	[F_ICMP_OUT_MSGS] = { "OutMsgs", FW_ULONG, FK_COUNTER, FB_NONE,
			      PROM("sent_messages", "", 0) },
	[F_ICMP_OUT_ERRORS] = { "OutErrors", FW_ULONG, FK_COUNTER, FB_NONE,
				PROM("send_errors", "", 0) },
	[F_ICMP_OUT_DEST_UNREACHS] = { "OutDestUnreachs", FW_ULONG, FK_COUNTER, FB_NONE,
				       PROM("sent_dest_unreachable", "", 0) },
	[F_ICMP_OUT_TIME_EXCDS] = { "OutTimeExcds", FW_ULONG, FK_COUNTER, FB_NONE,
				    PROM("sent_time_exceeded", "", 0) },
	[F_ICMP_OUT_PARM_PROBS] = { "OutParmProbs", FW_ULONG, FK_COUNTER, FB_NONE,
				    PROM("sent_parameter_problems", "", 0) },
	[F_ICMP_OUT_REDIRECTS] = { "OutRedirects", FW_ULONG, FK_COUNTER, FB_NONE,
				   PROM("sent_redirects", "", 0) },
	[F_ICMP_OUT_ECHOS] = { "OutEchos", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("sent_echos", "", 0) },
	[F_ICMP_OUT_ECHO_REPS] = { "OutEchoReps", FW_ULONG, FK_COUNTER, FB_NONE,
				   PROM("sent_echo_replies", "", 0) },
};

static const struct field_desc icmpv6_fields[F_ICMP_NFIELDS] = {
	[F_ICMP_IN_MSGS] = { "Icmp6InMsgs", FW_ULONG, FK_COUNTER, FB_NONE,
			     PROM("received_messages", "", 0) },
	[F_ICMP_IN_ERRORS] = { "Icmp6InErrors", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("receive_errors", "", 0) },
	[F_ICMP_IN_DEST_UNREACHS] = { "Icmp6InDestUnreachs", FW_ULONG, FK_COUNTER, FB_NONE,
				      PROM("received_dest_unreachable", "", 0) },
	[F_ICMP_IN_TIME_EXCDS] = { "Icmp6InTimeExcds", FW_ULONG, FK_COUNTER, FB_NONE,
				   PROM("received_time_exceeded", "", 0) },
	[F_ICMP_IN_PARM_PROBS] = { "Icmp6InParmProblems", FW_ULONG, FK_COUNTER, FB_NONE,
				   PROM("received_parameter_problems", "", 0) },
	[F_ICMP_IN_REDIRECTS] = { "Icmp6InRedirects", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("received_redirects", "", 0) },
	[F_ICMP_IN_ECHOS] = { "Icmp6InEchos", FW_ULONG, FK_COUNTER, FB_NONE,
			      PROM("received_echos", "", 0) },
	[F_ICMP_IN_ECHO_REPS] = { "Icmp6InEchoReplies", FW_ULONG, FK_COUNTER, FB_NONE,
				  PROM("received_echo_replies", "", 0) },
	[F_ICMP_OUT_MSGS] = { "Icmp6OutMsgs", FW_ULONG, FK_COUNTER, FB_NONE,
			      PROM("sent_messages", "", 0) },
	[F_ICMP_OUT_ERRORS] = { "Icmp6OutErrors", FW_ULONG, FK_COUNTER, FB_NONE,
				PROM("send_errors", "", 0) },
	[F_ICMP_OUT_DEST_UNREACHS] = { "Icmp6OutDestUnreachs", FW_ULONG, FK_COUNTER, FB_NONE,
				       PROM("sent_dest_unreachable", "", 0) },
	[F_ICMP_OUT_TIME_EXCDS] = { "Icmp6OutTimeExcds", FW_ULONG, FK_COUNTER, FB_NONE,
				    PROM("sent_time_exceeded", "", 0) },
	[F_ICMP_OUT_PARM_PROBS] = { "Icmp6OutParmProblems", FW_ULONG, FK_COUNTER, FB_NONE,
				    PROM("sent_parameter_problems", "", 0) },
	[F_ICMP_OUT_REDIRECTS] = { "Icmp6OutRedirects", FW_ULONG, FK_COUNTER, FB_NONE,
				   PROM("sent_redirects", "", 0) },
	[F_ICMP_OUT_ECHOS] = { "Icmp6OutEchos", FW_ULONG, FK_COUNTER, FB_NONE,
			       PROM("sent_echos", "", 0) },
	[F_ICMP_OUT_ECHO_REPS] = { "Icmp6OutEchoReplies", FW_ULONG, FK_COUNTER, FB_NONE,
				   PROM("sent_echo_replies", "", 0) },
};

static const struct counter_desc icmp_counters[] = {
	RATE2("Messages/sec", F_ICMP_IN_MSGS, F_ICMP_OUT_MSGS,
	      "ICMP messages received plus sent per second."),
	RATE("Messages Received/sec", F_ICMP_IN_MSGS,
	     "ICMP messages received per second, those in error included."),
	RATE("Messages Sent/sec", F_ICMP_OUT_MSGS,
	     "ICMP messages this host tried to send per second."),
	COUNT("Messages Received Errors", F_ICMP_IN_ERRORS,
	      "ICMP messages received since boot with an error (bad checksum or length)."),
	RATE("Messages Received Errors/sec", F_ICMP_IN_ERRORS,
	     "ICMP messages received per second with an error (bad checksum or length)."),
	COUNT("Messages Outbound Errors", F_ICMP_OUT_ERRORS,
	      "ICMP messages this host failed to send since boot."),
	RATE("Messages Outbound Errors/sec", F_ICMP_OUT_ERRORS,
	     "ICMP messages this host failed to send per second."),
	RATE("Received Echo/sec", F_ICMP_IN_ECHOS, "Echo requests (pings) received per second."),
	RATE("Received Echo Reply/sec", F_ICMP_IN_ECHO_REPS,
	     "Echo replies (answers to pings) received per second."),
	RATE("Received Redirect/sec", F_ICMP_IN_REDIRECTS,
	     "Redirect messages (a better next hop) received per second."),
	RATE("Sent Echo/sec", F_ICMP_OUT_ECHOS, "Echo requests (pings) sent per second."),
	RATE("Sent Echo Reply/sec", F_ICMP_OUT_ECHO_REPS,
	     "Echo replies (answers to pings) sent per second."),
	RATE("Sent Redirect/sec", F_ICMP_OUT_REDIRECTS,
	     "Redirect messages (a better next hop) sent per second."),
	COUNT("Received Dest. Unreachable", F_ICMP_IN_DEST_UNREACHS,
	      "Destination Unreachable messages received since boot."),
	RATE("Received Dest. Unreachable/sec", F_ICMP_IN_DEST_UNREACHS,
	     "Destination Unreachable messages received per second."),
	COUNT("Received Time Exceeded", F_ICMP_IN_TIME_EXCDS,
	      "Time Exceeded messages (hop limit or reassembly time ran out) received since boot."),
	RATE("Received Time Exceeded/sec", F_ICMP_IN_TIME_EXCDS,
	     "Time Exceeded messages (hop limit or reassembly time ran out) received per second."),
	COUNT("Received Parameter Problem", F_ICMP_IN_PARM_PROBS,
	      "Parameter Problem messages (a bad header field) received since boot."),
	RATE("Received Parameter Problem/sec", F_ICMP_IN_PARM_PROBS,
	     "Parameter Problem messages (a bad header field) received per second."),
	COUNT("Sent Destination Unreachable", F_ICMP_OUT_DEST_UNREACHS,
	      "Destination Unreachable messages sent since boot."),
	RATE("Sent Destination Unreachable/sec", F_ICMP_OUT_DEST_UNREACHS,
	     "Destination Unreachable messages sent per second."),
	COUNT("Sent Time Exceeded", F_ICMP_OUT_TIME_EXCDS,
	      "Time Exceeded messages sent since boot."),
	RATE("Sent Time Exceeded/sec", F_ICMP_OUT_TIME_EXCDS,
	     "Time Exceeded messages sent per second."),
	COUNT("Sent Parameter Problem", F_ICMP_OUT_PARM_PROBS,
	      "Parameter Problem messages sent since boot."),
	RATE("Sent Parameter Problem/sec", F_ICMP_OUT_PARM_PROBS,
	     "Parameter Problem messages sent per second."),
};

static const struct counter_set tcp_set = {
	.name = "TCP",
	.help = "TCP segments and connections, over IPv4 and IPv6 together (Linux keeps one "
		"TCP MIB).",
	.fields = tcp_fields,
	.nfields = F_TCP_NFIELDS,
	.counters = tcp_counters,
	.ncounters = ARRAY_SIZE(tcp_counters),
};

static const struct counter_set udpv4_set = {
	.name = "UDPv4",
	.help = "UDP datagrams over IPv4.",
	.fields = udpv4_fields,
	.nfields = F_UDP_NFIELDS,
	.counters = udp_counters,
	.ncounters = ARRAY_SIZE(udp_counters),
};

static const struct counter_set udpv6_set = {
	.name = "UDPv6",
	.help = "UDP datagrams over IPv6.",
	.fields = udpv6_fields,
	.nfields = F_UDP_NFIELDS,
	.counters = udp_counters,
	.ncounters = ARRAY_SIZE(udp_counters),
};

static const struct counter_set ipv4_set = {
	.name = "IPv4",
	.help = "IPv4 datagrams received, sent, forwarded, dropped and fragmented.",
	.fields = ipv4_fields,
	.nfields = F_IP_NFIELDS,
	.counters = ip_counters,
	.ncounters = ARRAY_SIZE(ip_counters),
};

static const struct counter_set ipv6_set = {
	.name = "IPv6",
	.help = "IPv6 datagrams received, sent, forwarded, dropped and fragmented.",
	.fields = ipv6_fields,
	.nfields = F_IP_NFIELDS,
	.counters = ip_counters,
	.ncounters = ARRAY_SIZE(ip_counters),
};

static const struct counter_set icmp_set = {
	.name = "ICMP",
	.help = "ICMP messages over IPv4, by type.",
	.fields = icmp_fields,
	.nfields = F_ICMP_NFIELDS,
	.counters = icmp_counters,
	.ncounters = ARRAY_SIZE(icmp_counters),
};

static const struct counter_set icmpv6_set = {
	.name = "ICMPv6",
	.help = "ICMPv6 messages, by type.",
	.fields = icmpv6_fields,
	.nfields = F_ICMP_NFIELDS,
	.counters = icmp_counters,
	.ncounters = ARRAY_SIZE(icmp_counters),
};

/* Where a run of a set's fields comes from: a "prefix:" table, or (prefix
 * NULL) snmp6 "name value" lines. */
struct tcpip_source {
	const char *file;
	const char *prefix;
	uint8_t first, n; /* fields first .. first + n - 1 */
};

#define TCPIP_MAX_SOURCES 2

/* A set and its sources. */
struct tcpip_kind {
	const struct counter_set *set;
	struct tcpip_source src[TCPIP_MAX_SOURCES];
};

static const struct tcpip_kind tcp_kind = {
	&tcp_set,
	{ { "proc/net/snmp", "Tcp", 0, TCP_MIB_N },
	  { "proc/net/netstat", "TcpExt", TCPEXT_FIRST, TCPEXT_N } },
};
static const struct tcpip_kind udpv4_kind = {
	&udpv4_set, { { "proc/net/snmp", "Udp", 0, F_UDP_NFIELDS } },
};
static const struct tcpip_kind udpv6_kind = {
	&udpv6_set, { { "proc/net/snmp6", NULL, 0, F_UDP_NFIELDS } },
};
static const struct tcpip_kind ipv4_kind = {
	&ipv4_set, { { "proc/net/snmp", "Ip", 0, F_IP_NFIELDS } },
};
static const struct tcpip_kind ipv6_kind = {
	&ipv6_set, { { "proc/net/snmp6", NULL, 0, F_IP_NFIELDS } },
};
static const struct tcpip_kind icmp_kind = {
	&icmp_set, { { "proc/net/snmp", "Icmp", 0, F_ICMP_NFIELDS } },
};
static const struct tcpip_kind icmpv6_kind = {
	&icmpv6_set, { { "proc/net/snmp6", NULL, 0, F_ICMP_NFIELDS } },
};

void
netsnmp_table_init(struct netsnmp_table *t, const char *prefix, const char *const *names,
		   size_t nnames)
{
	memset(t, 0, sizeof(*t));
	t->prefix = prefix;
	t->names = names;
	t->nnames = nnames < NETSNMP_MAX_NAMES ? nnames : NETSNMP_MAX_NAMES;
}

void
netsnmp_table_free(struct netsnmp_table *t)
{
	free(t->header);
	t->header = NULL;
	t->header_cap = t->header_len = 0;
	t->mapped = 0;
}

/* The first line at or after p that starts "prefix:", or NULL; *eol gets
 * its end. */
static const char *
find_line(const char *p, const char *end, const char *prefix, size_t plen, const char **eol)
{
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));

		if (!e)
			e = end;
		if ((size_t)(e - p) > plen && p[plen] == ':' && memcmp(p, prefix, plen) == 0) {
			*eol = e;
			return p;
		}
		p = e + 1;
	}
	return NULL;
}

/* Map the header text [h, hend) to the columns of the wanted names. */
static void
table_map(struct netsnmp_table *t, const char *h, const char *hend)
{
	size_t len = (size_t)(hend - h);
	uint32_t col = 0;

	if (t->header_cap < len + 1) {
		t->header = xrealloc(t->header, len + 1);
		t->header_cap = len + 1;
	}
	memcpy(t->header, h, len);
	t->header[len] = '\0';
	t->header_len = len;
	t->have = 0;
	t->ncols = 0;
	for (const char *p = h; p < hend; col++) {
		const char *tok;
		size_t tlen;

		while (p < hend && (*p == ' ' || *p == '\t'))
			p++;
		if (p == hend)
			break;
		tok = p;
		while (p < hend && *p != ' ' && *p != '\t')
			p++;
		tlen = (size_t)(p - tok);
		for (size_t i = 0; i < t->nnames; i++) {
			if ((t->have & BIT(i)) || strncmp(t->names[i], tok, tlen) != 0 ||
			    t->names[i][tlen] != '\0')
				continue;
			t->have |= BIT(i);
			t->name_at[t->ncols] = (uint8_t)i;
			t->col[t->ncols] = col; /* columns come in order: col[] ascends */
			t->ncols++;
			break;
		}
	}
	t->mapped = 1;
	t->remaps++;
}

uint64_t
netsnmp_table_read(struct netsnmp_table *t, const char *buf, size_t len, uint64_t want,
		   uint64_t *vals)
{
	size_t plen = strlen(t->prefix);
	const char *end = buf + len, *h, *hend, *v, *vend;
	uint64_t found = 0, left;
	uint32_t col = 0;
	size_t k = 0;

	h = find_line(buf, end, t->prefix, plen, &hend);
	if (!h)
		return 0;
	h += plen + 1;
	/* the value line is the next line, with the same prefix */
	v = hend < end ? hend + 1 : end;
	if (find_line(v, end, t->prefix, plen, &vend) != v)
		return 0;
	v += plen + 1;
	if (!t->mapped || t->header_len != (size_t)(hend - h) ||
	    memcmp(t->header, h, t->header_len) != 0)
		table_map(t, h, hend);
	left = want & t->have;
	for (const char *p = v; left && k < t->ncols && p < vend; col++) {
		const char *tok, *q;
		unsigned i;
		uint64_t x;

		while (p < vend && (*p == ' ' || *p == '\t'))
			p++;
		if (p == vend)
			break;
		tok = p;
		while (p < vend && *p != ' ' && *p != '\t')
			p++;
		if (col != t->col[k])
			continue;
		i = t->name_at[k++];
		if (!(left & BIT(i)))
			continue;
		left &= ~BIT(i);
		/* a whole unsigned number; "-1" (MaxConn) is no counter value */
		q = tok;
		if (parse_u64(&q, &x) == 0 && q == p) {
			vals[i] = x;
			found |= BIT(i);
		}
	}
	return found;
}

struct tcpip_state {
	const struct tcpip_kind *kind;
	struct pfile *pf[TCPIP_MAX_SOURCES];      /* NULL: not needed */
	uint64_t want[TCPIP_MAX_SOURCES];         /* needed fields, bit 0 = src.first */
	struct netsnmp_table table[TCPIP_MAX_SOURCES];
	const char *keys[SET_MAX_FIELDS];         /* the field names: the kernel's keys */
	uint32_t at[SET_MAX_FIELDS];              /* procstat_keys_at, by field */
};

/* Open a set of kind k: a source file is opened only when a requested
 * counter needs one of its fields. */
static void *
tcpip_open(const struct tcpip_kind *k, const struct provider_ctx *ctx)
{
	struct tcpip_state *st = xcalloc(1, sizeof(*st));

	memset(st->at, 0xFF, sizeof(st->at)); /* PROCSTAT_AT_NONE */

	st->kind = k;
	for (size_t f = 0; f < k->set->nfields; f++)
		st->keys[f] = k->set->fields[f].name;
	for (size_t s = 0; s < TCPIP_MAX_SOURCES && k->src[s].file; s++) {
		const struct tcpip_source *src = &k->src[s];

		st->want[s] = (ctx->needed >> src->first) & (BIT(src->n) - 1);
		if (!st->want[s])
			continue;
		st->pf[s] = procfs_file(ctx->fs, src->file);
		if (src->prefix)
			netsnmp_table_init(&st->table[s], src->prefix, &st->keys[src->first],
					   src->n);
	}
	return st;
}

/* Read: the one instance; a missing file, table or name leaves its fields
 * absent (their counters UNSUPPORTED), it does not fail the set. */
static int
tcpip_read(void *state, struct raw_set *out, struct err *err)
{
	struct tcpip_state *st = state;
	struct raw_instance *ri = raw_set_add(out, "", 0, 0);

	(void)err;
	for (size_t s = 0; s < TCPIP_MAX_SOURCES; s++) {
		const struct tcpip_source *src = &st->kind->src[s];
		uint64_t vals[NETSNMP_MAX_NAMES];
		uint64_t found;
		const char *buf;
		size_t len;

		if (!st->pf[s] || !(buf = pfile_read(st->pf[s], &len, NULL)))
			continue;
		if (src->prefix)
			found = netsnmp_table_read(&st->table[s], buf, len, st->want[s], vals);
		else
			found = procstat_keys_at(buf, len, &st->keys[src->first], src->n,
						 st->want[s], vals, &st->at[src->first]);
		for (unsigned i = 0; i < src->n; i++)
			if (found & BIT(i))
				raw_put(out, ri, src->first + i, vals[i]);
	}
	return 0;
}

/* Close: the parsers' header copies and the state; the pfiles are fs's. */
static void
tcpip_close(void *state)
{
	struct tcpip_state *st = state;

	for (size_t s = 0; s < TCPIP_MAX_SOURCES; s++)
		netsnmp_table_free(&st->table[s]);
	free(st);
}

/* The open function of each set. */
static void *
tcp_open(const struct provider_ctx *ctx, struct err *err)
{
	(void)err;
	return tcpip_open(&tcp_kind, ctx);
}

static void *
udpv4_open(const struct provider_ctx *ctx, struct err *err)
{
	(void)err;
	return tcpip_open(&udpv4_kind, ctx);
}

static void *
udpv6_open(const struct provider_ctx *ctx, struct err *err)
{
	(void)err;
	return tcpip_open(&udpv6_kind, ctx);
}

static void *
ipv4_open(const struct provider_ctx *ctx, struct err *err)
{
	(void)err;
	return tcpip_open(&ipv4_kind, ctx);
}

static void *
ipv6_open(const struct provider_ctx *ctx, struct err *err)
{
	(void)err;
	return tcpip_open(&ipv6_kind, ctx);
}

static void *
icmp_open(const struct provider_ctx *ctx, struct err *err)
{
	(void)err;
	return tcpip_open(&icmp_kind, ctx);
}

static void *
icmpv6_open(const struct provider_ctx *ctx, struct err *err)
{
	(void)err;
	return tcpip_open(&icmpv6_kind, ctx);
}

const struct provider provider_tcp = {
	.set = &tcp_set,
	.open = tcp_open,
	.read = tcpip_read,
	.close = tcpip_close,
};

const struct provider provider_udpv4 = {
	.set = &udpv4_set,
	.open = udpv4_open,
	.read = tcpip_read,
	.close = tcpip_close,
};

const struct provider provider_udpv6 = {
	.set = &udpv6_set,
	.open = udpv6_open,
	.read = tcpip_read,
	.close = tcpip_close,
};

const struct provider provider_ipv4 = {
	.set = &ipv4_set,
	.open = ipv4_open,
	.read = tcpip_read,
	.close = tcpip_close,
};

const struct provider provider_ipv6 = {
	.set = &ipv6_set,
	.open = ipv6_open,
	.read = tcpip_read,
	.close = tcpip_close,
};

const struct provider provider_icmp = {
	.set = &icmp_set,
	.open = icmp_open,
	.read = tcpip_read,
	.close = tcpip_close,
};

const struct provider provider_icmpv6 = {
	.set = &icmpv6_set,
	.open = icmpv6_open,
	.read = tcpip_read,
	.close = tcpip_close,
};
