/*
 * nic_netlink.c - the live source of the Network Adapter set: one rtnetlink
 * RTM_GETLINK dump (NLM_F_DUMP) per read, on a NETLINK_ROUTE socket opened
 * once, into a receive buffer allocated once. Each RTM_NEWLINK reply gives
 * an interface's index, name (IFLA_IFNAME) and struct rtnl_link_stats64
 * (IFLA_STATS64; the 32-bit IFLA_STATS is never used). When Output Queue
 * Length is requested, an RTM_GETQDISC dump on the same socket and buffer
 * gives each qdisc's interface, parent, kind and queue length (TCA_STATS2 ->
 * TCA_STATS_QUEUE). Hand-written on the uapi headers, no libmnl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
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

/* What one dump is: its request, the reply type it wants and how to hand
 * each reply message on. */
struct dump_kind {
	const char *name;  /* "RTM_GETLINK", for messages */
	uint16_t request;  /* RTM_GETLINK, RTM_GETQDISC */
	uint16_t reply;    /* RTM_NEWLINK, RTM_NEWQDISC */
	size_t header;     /* the fixed header after nlmsghdr */
	/* parse one reply message and call the caller's function in cb */
	int (*msg)(const struct nlmsghdr *nh, const void *cb, struct err *err);
};

/* The caller's function and argument, for each kind of dump. */
struct link_cb {
	nic_link_fn fn;
	void *arg;
};
struct qdisc_cb {
	nic_qdisc_fn fn;
	void *arg;
};

/* Hand one RTM_NEWLINK message to a nic_link_fn. */
static int
link_msg(const struct nlmsghdr *nh, const void *cb, struct err *err)
{
	const struct link_cb *c = cb;
	struct nic_link link;

	parse_newlink(nh, &link);
	return c->fn(&link, c->arg, err);
}

/* Take qlen from the TCA_STATS_QUEUE (struct gnet_stats_queue) nested in a
 * TCA_STATS2 payload of len bytes. */
static void
stats2_qlen(const char *p, size_t len, struct nic_qdisc *q)
{
	const size_t need = offsetof(struct gnet_stats_queue, qlen) + sizeof(uint32_t);
	const char *end = p + len;

	while (end - p >= (ptrdiff_t)sizeof(struct rtattr)) {
		const struct rtattr *rta = (const void *)p;
		size_t alen = rta->rta_len;

		if (alen < sizeof(*rta) || alen > (size_t)(end - p))
			return;
		if ((rta->rta_type & NLA_TYPE_MASK) == TCA_STATS_QUEUE &&
		    alen - RTA_LENGTH(0) >= need) {
			memcpy(&q->qlen,
			       p + RTA_LENGTH(0) + offsetof(struct gnet_stats_queue, qlen),
			       sizeof(uint32_t));
			q->has_qlen = 1;
		}
		p += RTA_ALIGN(alen);
	}
}

/* Fill q from the attributes of one RTM_NEWQDISC message. */
static void
parse_newqdisc(const struct nlmsghdr *nh, struct nic_qdisc *q)
{
	const struct tcmsg *tcm = NLMSG_DATA(nh);
	const char *p = (const char *)tcm + NLMSG_ALIGN(sizeof(*tcm));
	const char *end = (const char *)nh + nh->nlmsg_len;

	memset(q, 0, sizeof(*q));
	q->ifindex = tcm->tcm_ifindex;
	q->handle = tcm->tcm_handle;
	q->parent = tcm->tcm_parent;
	while (end - p >= (ptrdiff_t)sizeof(struct rtattr)) {
		const struct rtattr *rta = (const void *)p;
		size_t alen = rta->rta_len;
		const char *data = p + RTA_LENGTH(0);

		if (alen < sizeof(*rta) || alen > (size_t)(end - p))
			break; /* malformed: keep what was read so far */
		switch (rta->rta_type & NLA_TYPE_MASK) {
		case TCA_KIND:
			q->kind = data;
			q->kind_len = strnlen(data, alen - RTA_LENGTH(0));
			break;
		case TCA_STATS2:
			stats2_qlen(data, alen - RTA_LENGTH(0), q);
			break;
		default:
			break;
		}
		p += RTA_ALIGN(alen);
	}
}

/* Hand one RTM_NEWQDISC message to a nic_qdisc_fn. */
static int
qdisc_msg(const struct nlmsghdr *nh, const void *cb, struct err *err)
{
	const struct qdisc_cb *c = cb;
	struct nic_qdisc q;

	parse_newqdisc(nh, &q);
	return c->fn(&q, c->arg, err);
}

static const struct dump_kind link_dump = {
	.name = "RTM_GETLINK",
	.request = RTM_GETLINK,
	.reply = RTM_NEWLINK,
	.header = sizeof(struct ifinfomsg),
	.msg = link_msg,
};
static const struct dump_kind qdisc_dump = {
	.name = "RTM_GETQDISC",
	.request = RTM_GETQDISC,
	.reply = RTM_NEWQDISC,
	.header = sizeof(struct tcmsg),
	.msg = qdisc_msg,
};

/* Walk one datagram of a dump reply of kind k: the callback cb (NULL for
 * none) gets each reply message whose sequence number is seq. 1 at
 * NLMSG_DONE, 0 for more, -1 (err filled) on an error message or a
 * malformed reply. */
static int
walk(const struct dump_kind *k, const void *buf, size_t len, uint32_t seq, const void *cb,
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
		if (nh->nlmsg_type == NLMSG_DONE)
			return 1;
		if (nh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(nh);
			if (mlen < NLMSG_LENGTH(sizeof(*e)))
				return err_set(err, "malformed netlink error message");
			if (e->error == 0)
				continue; /* an acknowledgement */
			return err_set(err, "netlink %s dump failed: %s", k->name,
				       strerror(-e->error));
		}
		if (nh->nlmsg_type != k->reply)
			continue;
		if (mlen < NLMSG_LENGTH(k->header))
			return err_set(err, "malformed %s reply (length %zu)", k->name, mlen);
		if (cb && k->msg(nh, cb, err) < 0)
			return -1;
	}
	return 0;
}

/* Walk one datagram of an RTM_GETLINK dump reply (see nic.h). */
int
nic_netlink_parse(const void *buf, size_t len, uint32_t seq, nic_link_fn fn, void *arg,
		  struct err *err)
{
	struct link_cb cb = { fn, arg };

	return walk(&link_dump, buf, len, seq, fn ? &cb : NULL, err);
}

/* Walk one datagram of an RTM_GETQDISC dump reply (see nic.h). */
int
nic_netlink_parse_qdisc(const void *buf, size_t len, uint32_t seq, nic_qdisc_fn fn, void *arg,
			struct err *err)
{
	struct qdisc_cb cb = { fn, arg };

	return walk(&qdisc_dump, buf, len, seq, fn ? &cb : NULL, err);
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

/* Send the dump request of kind k with sequence number seq: the fixed
 * header zeroed (family AF_UNSPEC, every interface). */
static int
send_request(struct nic_netlink *nl, const struct dump_kind *k, uint32_t seq, struct err *err)
{
	struct {
		struct nlmsghdr nh;
		union {
			struct ifinfomsg ifi;
			struct tcmsg tcm;
		} u;
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = (uint32_t)NLMSG_LENGTH(k->header);
	req.nh.nlmsg_type = k->request;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = seq;
	do
		n = sendto(nl->fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel,
			   sizeof(kernel));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return err_set(err, "cannot send the netlink %s request: %s", k->name,
			       strerror(errno));
	return 0;
}

/* One dump of kind k: send, then read datagrams until NLMSG_DONE, handing
 * each reply to cb. */
static int
dump(struct nic_netlink *nl, const struct dump_kind *k, const void *cb, struct err *err)
{
	uint32_t seq = ++nl->seq;
	int failed = 0;

	if (send_request(nl, k, seq, err) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(nl->fd, nl->buf, nl->cap, MSG_TRUNC);
		int r;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return err_set(err, "the netlink %s dump timed out", k->name);
			return err_set(err, "cannot read the netlink %s dump: %s", k->name,
				       strerror(errno));
		}
		if (n == 0)
			return err_set(err, "the netlink %s dump ended early", k->name);
		if ((size_t)n > nl->cap && !failed) {
			/* Keep draining the dump so the next one starts
			 * clean, then fail this read. */
			err_set(err, "a netlink reply of %zd bytes did not fit in %zu", n,
				nl->cap);
			failed = 1;
		}
		r = walk(k, nl->buf, (size_t)n > nl->cap ? nl->cap : (size_t)n, seq,
			 failed ? NULL : cb, failed ? NULL : err);
		if (r < 0 && (!failed || (size_t)n <= nl->cap))
			return -1;
		if (r == 1)
			return failed ? -1 : 0;
	}
}

/* One RTM_GETLINK dump (see nic.h). */
int
nic_netlink_dump(struct nic_netlink *nl, nic_link_fn fn, void *arg, struct err *err)
{
	struct link_cb cb = { fn, arg };

	return dump(nl, &link_dump, fn ? &cb : NULL, err);
}

/* One RTM_GETQDISC dump (see nic.h). */
int
nic_netlink_qdisc_dump(struct nic_netlink *nl, nic_qdisc_fn fn, void *arg, struct err *err)
{
	struct qdisc_cb cb = { fn, arg };

	return dump(nl, &qdisc_dump, fn ? &cb : NULL, err);
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
