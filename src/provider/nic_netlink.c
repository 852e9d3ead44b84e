/*
 * nic_netlink.c - the live source of the Network Adapter set: one rtnetlink
 * RTM_GETLINK dump (NLM_F_DUMP) per read, on a NETLINK_ROUTE socket opened
 * once, into a receive buffer allocated once. Each RTM_NEWLINK reply gives
 * an interface's index, name (IFLA_IFNAME) and struct rtnl_link_stats64
 * (IFLA_STATS64; the 32-bit IFLA_STATS is never used). Hand-written on the
 * uapi headers, no libmnl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "nic.h"

/* A dump datagram is at most 32 KiB (the kernel caps its skb there); more
 * room costs nothing and MSG_TRUNC still catches a longer one. */
#define NIC_NL_BUFSIZE (64 * 1024)

/* Seconds a dump may stall before the read fails instead of hanging. */
#define NIC_NL_TIMEOUT_S 5

struct nic_netlink {
	int fd;
	uint32_t seq;
	size_t cap;
	char *buf; /* the reused receive buffer, cap bytes */
};

/* Where each field lives in struct rtnl_link_stats64. */
static const uint16_t stats64_offset[NIC_NSTATS] = {
	[F_RX_PACKETS] = offsetof(struct rtnl_link_stats64, rx_packets),
	[F_TX_PACKETS] = offsetof(struct rtnl_link_stats64, tx_packets),
	[F_RX_BYTES] = offsetof(struct rtnl_link_stats64, rx_bytes),
	[F_TX_BYTES] = offsetof(struct rtnl_link_stats64, tx_bytes),
	[F_RX_ERRORS] = offsetof(struct rtnl_link_stats64, rx_errors),
	[F_TX_ERRORS] = offsetof(struct rtnl_link_stats64, tx_errors),
	[F_RX_DROPPED] = offsetof(struct rtnl_link_stats64, rx_dropped),
	[F_TX_DROPPED] = offsetof(struct rtnl_link_stats64, tx_dropped),
	[F_MULTICAST] = offsetof(struct rtnl_link_stats64, multicast),
	[F_COLLISIONS] = offsetof(struct rtnl_link_stats64, collisions),
	[F_RX_LENGTH_ERRORS] = offsetof(struct rtnl_link_stats64, rx_length_errors),
	[F_RX_OVER_ERRORS] = offsetof(struct rtnl_link_stats64, rx_over_errors),
	[F_RX_CRC_ERRORS] = offsetof(struct rtnl_link_stats64, rx_crc_errors),
	[F_RX_FRAME_ERRORS] = offsetof(struct rtnl_link_stats64, rx_frame_errors),
	[F_RX_FIFO_ERRORS] = offsetof(struct rtnl_link_stats64, rx_fifo_errors),
	[F_RX_MISSED_ERRORS] = offsetof(struct rtnl_link_stats64, rx_missed_errors),
	[F_TX_ABORTED_ERRORS] = offsetof(struct rtnl_link_stats64, tx_aborted_errors),
	[F_TX_CARRIER_ERRORS] = offsetof(struct rtnl_link_stats64, tx_carrier_errors),
	[F_TX_FIFO_ERRORS] = offsetof(struct rtnl_link_stats64, tx_fifo_errors),
	[F_TX_HEARTBEAT_ERRORS] = offsetof(struct rtnl_link_stats64, tx_heartbeat_errors),
	[F_TX_WINDOW_ERRORS] = offsetof(struct rtnl_link_stats64, tx_window_errors),
	[F_RX_COMPRESSED] = offsetof(struct rtnl_link_stats64, rx_compressed),
	[F_TX_COMPRESSED] = offsetof(struct rtnl_link_stats64, tx_compressed),
	[F_RX_NOHANDLER] = offsetof(struct rtnl_link_stats64, rx_nohandler),
};

/* Copy an IFLA_STATS64 payload, marking the fields it covers. */
void
nic_netlink_stats64(const void *payload, size_t len, struct nic_stats *st)
{
	struct rtnl_link_stats64 s;
	size_t n = len < sizeof(s) ? len : sizeof(s);

	memset(&s, 0, sizeof(s));
	memcpy(&s, payload, n);
	st->present = 0;
	for (unsigned f = 0; f < NIC_NSTATS; f++) {
		uint64_t v;
		st->v[f] = 0;
		if (stats64_offset[f] + sizeof(uint64_t) > n)
			continue; /* beyond what this kernel sent: missing */
		memcpy(&v, (const char *)&s + stats64_offset[f], sizeof(v));
		st->v[f] = v;
		st->present |= (uint64_t)1 << f;
	}
}

/* Fill link from the attributes of one RTM_NEWLINK message. */
static void
parse_newlink(const struct nlmsghdr *nh, struct nic_link *link)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	const char *p = (const char *)ifi + NLMSG_ALIGN(sizeof(*ifi));
	const char *end = (const char *)nh + nh->nlmsg_len;

	memset(link, 0, sizeof(*link));
	link->ifindex = ifi->ifi_index;
	while (end - p >= (ptrdiff_t)sizeof(struct rtattr)) {
		const struct rtattr *rta = (const void *)p;
		size_t alen = rta->rta_len;
		const char *data = p + RTA_LENGTH(0);
		size_t dlen;

		if (alen < sizeof(*rta) || alen > (size_t)(end - p))
			break; /* malformed: keep what was read so far */
		dlen = alen - RTA_LENGTH(0);
		switch (rta->rta_type & NLA_TYPE_MASK) {
		case IFLA_IFNAME:
			link->name = data;
			link->name_len = strnlen(data, dlen);
			break;
		case IFLA_STATS64:
			nic_netlink_stats64(data, dlen, &link->stats);
			break;
		case IFLA_CARRIER_CHANGES:
			if (dlen >= sizeof(uint32_t))
				memcpy(&link->carrier_changes, data, sizeof(uint32_t));
			break;
		default:
			break;
		}
		p += RTA_ALIGN(alen);
	}
}

/* Walk one datagram of a dump reply (see nic.h). */
int
nic_netlink_parse(const void *buf, size_t len, uint32_t seq, nic_link_fn fn, void *arg,
		  struct err *err)
{
	const char *p = buf;
	const char *end = p + len;

	while ((size_t)(end - p) >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *nh = (const void *)p;
		size_t mlen = nh->nlmsg_len;

		if (mlen < sizeof(*nh) || mlen > (size_t)(end - p))
			return err_set(err, "malformed netlink reply (message length %zu)", mlen);
		p += NLMSG_ALIGN(mlen) < (size_t)(end - p) ? NLMSG_ALIGN(mlen) : (size_t)(end - p);
		if (nh->nlmsg_seq != seq)
			continue; /* a stale reply to an earlier request */
		switch (nh->nlmsg_type) {
		case NLMSG_DONE:
			return 1;
		case NLMSG_ERROR: {
			const struct nlmsgerr *e = NLMSG_DATA(nh);
			if (mlen < NLMSG_LENGTH(sizeof(*e)))
				return err_set(err, "malformed netlink error message");
			if (e->error == 0)
				continue; /* an acknowledgement */
			return err_set(err, "netlink RTM_GETLINK dump failed: %s",
				       strerror(-e->error));
		}
		case RTM_NEWLINK: {
			struct nic_link link;
			if (mlen < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
				return err_set(err, "malformed RTM_NEWLINK message (length %zu)",
					       mlen);
			parse_newlink(nh, &link);
			if (fn && fn(&link, arg, err) < 0)
				return -1;
			break;
		}
		default:
			break;
		}
	}
	return 0;
}

/* A NETLINK_ROUTE socket with its receive buffer. */
struct nic_netlink *
nic_netlink_open(struct err *err)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = NIC_NL_TIMEOUT_S };
	struct nic_netlink *nl;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		err_set(err, "cannot open a netlink socket: %s", strerror(errno));
		return NULL;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err_set(err, "cannot bind a netlink socket: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	nl = xcalloc(1, sizeof(*nl));
	nl->fd = fd;
	nl->cap = NIC_NL_BUFSIZE;
	nl->buf = xmalloc(nl->cap);
	nl->seq = (uint32_t)now_mono_ns();
	return nl;
}

/* Send the RTM_GETLINK dump request with sequence number seq. */
static int
send_request(struct nic_netlink *nl, uint32_t seq, struct err *err)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
	req.nh.nlmsg_type = RTM_GETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = seq;
	req.ifi.ifi_family = AF_UNSPEC;
	do
		n = sendto(nl->fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel,
			   sizeof(kernel));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return err_set(err, "cannot send the netlink RTM_GETLINK request: %s",
			       strerror(errno));
	return 0;
}

/* One RTM_GETLINK dump: send, then read datagrams until NLMSG_DONE. */
int
nic_netlink_dump(struct nic_netlink *nl, nic_link_fn fn, void *arg, struct err *err)
{
	uint32_t seq = ++nl->seq;
	int failed = 0;

	if (send_request(nl, seq, err) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(nl->fd, nl->buf, nl->cap, MSG_TRUNC);
		int r;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return err_set(err, "the netlink RTM_GETLINK dump timed out");
			return err_set(err, "cannot read the netlink RTM_GETLINK dump: %s",
				       strerror(errno));
		}
		if (n == 0)
			return err_set(err, "the netlink RTM_GETLINK dump ended early");
		if ((size_t)n > nl->cap && !failed) {
			/* Keep draining the dump so the next one starts
			 * clean, then fail this read. */
			err_set(err, "a netlink reply of %zd bytes did not fit in %zu", n,
				nl->cap);
			failed = 1;
		}
		r = nic_netlink_parse(nl->buf, (size_t)n > nl->cap ? nl->cap : (size_t)n, seq,
				      failed ? NULL : fn, arg, failed ? NULL : err);
		if (r < 0 && (!failed || (size_t)n <= nl->cap))
			return -1;
		if (r == 1)
			return failed ? -1 : 0;
	}
}

/* Close the socket and free the buffer. */
void
nic_netlink_close(struct nic_netlink *nl)
{
	if (!nl)
		return;
	close(nl->fd);
	free(nl->buf);
	free(nl);
}
