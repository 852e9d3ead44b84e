/*
 * nic_netlink.c - the live source of the Network Adapter set, on a
 * NETLINK_ROUTE socket opened once and a receive buffer allocated once:
 *  - RTM_GETSTATS dumps filtered to IFLA_STATS_LINK_64 (the hot path): each
 *    RTM_NEWSTATS reply is one ifindex and its struct rtnl_link_stats64;
 *  - RTM_GETLINK dumps (at start, and when the link list may have changed):
 *    each RTM_NEWLINK reply gives an interface's index, name (IFLA_IFNAME),
 *    carrier changes and statistics (IFLA_STATS64; the 32-bit IFLA_STATS is
 *    never used);
 *  - RTM_GETQDISC dumps when Output Queue Length is requested: each qdisc's
 *    interface, parent, kind and queue length (TCA_STATS2 ->
 *    TCA_STATS_QUEUE);
 *  - a second, non-blocking socket subscribed to RTNLGRP_LINK, drained each
 *    read: the RTM_NEWLINK and RTM_DELLINK notifications of links that came,
 *    changed or went since the last read.
 * Hand-written on the uapi headers, no libmnl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
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
	int mon_fd;      /* the RTNLGRP_LINK subscription, -1 for none */
	uint32_t seq;
	int last_errno;  /* the error a netlink error message of the last dump gave */
	size_t cap;
	char *buf; /* the reused receive buffer, cap bytes */
};

/* The statistics fields are numbered in struct rtnl_link_stats64's order
 * (nic.h), each a __u64: field f is the f-th word of the struct, so a
 * payload is copied whole. */
#define STATS64_AT(f, member) \
	_Static_assert(offsetof(struct rtnl_link_stats64, member) == (f) * sizeof(uint64_t), \
		       #member " is not word " #f " of struct rtnl_link_stats64")
STATS64_AT(F_RX_PACKETS, rx_packets);
STATS64_AT(F_TX_PACKETS, tx_packets);
STATS64_AT(F_RX_BYTES, rx_bytes);
STATS64_AT(F_TX_BYTES, tx_bytes);
STATS64_AT(F_RX_ERRORS, rx_errors);
STATS64_AT(F_TX_ERRORS, tx_errors);
STATS64_AT(F_RX_DROPPED, rx_dropped);
STATS64_AT(F_TX_DROPPED, tx_dropped);
STATS64_AT(F_MULTICAST, multicast);
STATS64_AT(F_COLLISIONS, collisions);
STATS64_AT(F_RX_LENGTH_ERRORS, rx_length_errors);
STATS64_AT(F_RX_OVER_ERRORS, rx_over_errors);
STATS64_AT(F_RX_CRC_ERRORS, rx_crc_errors);
STATS64_AT(F_RX_FRAME_ERRORS, rx_frame_errors);
STATS64_AT(F_RX_FIFO_ERRORS, rx_fifo_errors);
STATS64_AT(F_RX_MISSED_ERRORS, rx_missed_errors);
STATS64_AT(F_TX_ABORTED_ERRORS, tx_aborted_errors);
STATS64_AT(F_TX_CARRIER_ERRORS, tx_carrier_errors);
STATS64_AT(F_TX_FIFO_ERRORS, tx_fifo_errors);
STATS64_AT(F_TX_HEARTBEAT_ERRORS, tx_heartbeat_errors);
STATS64_AT(F_TX_WINDOW_ERRORS, tx_window_errors);
STATS64_AT(F_RX_COMPRESSED, rx_compressed);
STATS64_AT(F_TX_COMPRESSED, tx_compressed);
STATS64_AT(F_RX_NOHANDLER, rx_nohandler);

/* Copy an IFLA_STATS64 payload, marking the fields it covers: the whole
 * words of min(len, the struct) bytes; the others are zero and missing. */
void
nic_netlink_stats64(const void *payload, size_t len, struct nic_stats *st)
{
	size_t n = len < sizeof(struct rtnl_link_stats64) ? len : sizeof(struct rtnl_link_stats64);
	size_t nf = n / sizeof(uint64_t);

	if (nf >= NIC_NSTATS) { /* every field (a newer kernel's more are not used) */
		memcpy(st->v, payload, sizeof(st->v)); /* of constant size: inline */
		st->present = NIC_STATS_MASK;
		return;
	}
	memcpy(st->v, payload, nf * sizeof(uint64_t));
	memset(st->v + nf, 0, (NIC_NSTATS - nf) * sizeof(uint64_t));
	st->present = ((uint64_t)1 << nf) - 1;
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
			if (q->kind_len == 7 && memcmp(data, "noqueue", 7) == 0) {
				/* no queue, so a length of 0 whatever its
				 * statistics say: they are not walked (a
				 * veth's, hundreds of them on a container
				 * host) */
				q->qlen = 0;
				q->has_qlen = 1;
				return;
			}
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

/* Fill link (no name) from one RTM_NEWSTATS message: its ifindex and the
 * IFLA_STATS_LINK_64 attribute. */
static void
parse_newstats(const struct nlmsghdr *nh, struct nic_link *link)
{
	const struct if_stats_msg *ifsm = NLMSG_DATA(nh);
	const char *p = (const char *)ifsm + NLMSG_ALIGN(sizeof(*ifsm));
	const char *end = (const char *)nh + nh->nlmsg_len;

	/* the statistics are filled by their attribute or marked missing */
	link->ifindex = (int)ifsm->ifindex;
	link->name = NULL;
	link->name_len = 0;
	link->carrier_changes = 0;
	link->stats.present = 0;
	while (end - p >= (ptrdiff_t)sizeof(struct rtattr)) {
		const struct rtattr *rta = (const void *)p;
		size_t alen = rta->rta_len;

		if (alen < sizeof(*rta) || alen > (size_t)(end - p))
			break; /* malformed: keep what was read so far */
		if ((rta->rta_type & NLA_TYPE_MASK) == IFLA_STATS_LINK_64)
			nic_netlink_stats64(p + RTA_LENGTH(0), alen - RTA_LENGTH(0), &link->stats);
		p += RTA_ALIGN(alen);
	}
}

/* Hand one RTM_NEWSTATS message to a nic_link_fn. */
static int
stats_msg(const struct nlmsghdr *nh, const void *cb, struct err *err)
{
	const struct link_cb *c = cb;
	struct nic_link link;

	parse_newstats(nh, &link);
	return c->fn(&link, c->arg, err);
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
static const struct dump_kind stats_dump = {
	.name = "RTM_GETSTATS",
	.request = RTM_GETSTATS,
	.reply = RTM_NEWSTATS,
	.header = sizeof(struct if_stats_msg),
	.msg = stats_msg,
};

/* Walk one datagram of a dump reply of kind k: the callback cb (NULL for
 * none) gets each reply message whose sequence number is seq. 1 at
 * NLMSG_DONE, 0 for more, -1 (err filled) on an error message (its errno
 * into *nlerr when nlerr is not NULL) or a malformed reply. */
static int
walk(const struct dump_kind *k, const void *buf, size_t len, uint32_t seq, const void *cb,
     struct err *err, int *nlerr)
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
			if (nlerr)
				*nlerr = -e->error;
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

	return walk(&link_dump, buf, len, seq, fn ? &cb : NULL, err, NULL);
}

/* Walk one datagram of an RTM_GETSTATS dump reply (see nic.h). */
int
nic_netlink_parse_stats(const void *buf, size_t len, uint32_t seq, nic_link_fn fn, void *arg,
			struct err *err)
{
	struct link_cb cb = { fn, arg };

	return walk(&stats_dump, buf, len, seq, fn ? &cb : NULL, err, NULL);
}

/* Walk one datagram of an RTM_GETQDISC dump reply (see nic.h). */
int
nic_netlink_parse_qdisc(const void *buf, size_t len, uint32_t seq, nic_qdisc_fn fn, void *arg,
			struct err *err)
{
	struct qdisc_cb cb = { fn, arg };

	return walk(&qdisc_dump, buf, len, seq, fn ? &cb : NULL, err, NULL);
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
	nl->mon_fd = -1;
	nl->cap = NIC_NL_BUFSIZE;
	nl->buf = xmalloc(nl->cap);
	nl->seq = (uint32_t)now_mono_ns();
	return nl;
}

/* Send the dump request of kind k with sequence number seq: the fixed
 * header zeroed (family AF_UNSPEC, every interface), but for RTM_GETSTATS
 * the filter that asks for IFLA_STATS_LINK_64 alone. */
static int
send_request(struct nic_netlink *nl, const struct dump_kind *k, uint32_t seq, struct err *err)
{
	struct {
		struct nlmsghdr nh;
		union {
			struct ifinfomsg ifi;
			struct tcmsg tcm;
			struct if_stats_msg ifsm;
		} u;
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = (uint32_t)NLMSG_LENGTH(k->header);
	req.nh.nlmsg_type = k->request;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = seq;
	if (k == &stats_dump) /* the 64-bit link statistics only */
		req.u.ifsm.filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
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

	nl->last_errno = 0;
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
			 failed ? NULL : cb, failed ? NULL : err, &nl->last_errno);
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

/* One RTM_GETSTATS dump (see nic.h): -2 when the kernel does not know the
 * request (EOPNOTSUPP, EINVAL: before Linux 4.7). */
int
nic_netlink_stats_dump(struct nic_netlink *nl, nic_link_fn fn, void *arg, struct err *err)
{
	struct link_cb cb = { fn, arg };

	if (dump(nl, &stats_dump, fn ? &cb : NULL, err) == 0)
		return 0;
	if (nl->last_errno == EOPNOTSUPP || nl->last_errno == EINVAL)
		return -2;
	return -1;
}

/* One RTM_GETQDISC dump (see nic.h). */
int
nic_netlink_qdisc_dump(struct nic_netlink *nl, nic_qdisc_fn fn, void *arg, struct err *err)
{
	struct qdisc_cb cb = { fn, arg };

	return dump(nl, &qdisc_dump, fn ? &cb : NULL, err);
}

/* Subscribe a second, non-blocking socket to RTNLGRP_LINK (see nic.h). */
int
nic_netlink_monitor(struct nic_netlink *nl, struct err *err)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1u << (RTNLGRP_LINK - 1),
	};
	int fd;

	if (nl->mon_fd >= 0)
		return 0;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (fd < 0)
		return err_set(err, "cannot open a netlink socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err_set(err, "cannot subscribe to link notifications: %s", strerror(errno));
		close(fd);
		return -1;
	}
	nl->mon_fd = fd;
	return 0;
}

/* The process's one socket subscribed to RTNLGRP_LINK alone, shared by
 * the sets that only need to know when to list the interfaces again (see
 * nic.h): drained once a read, each subscriber comparing the count of
 * changes with the one it last saw. */
static struct {
	pthread_mutex_t mu;
	int fd;
	unsigned users;
	uint64_t changes;             /* drains that found notifications */
	const void *drained_fs;       /* the read last drained: its procfs */
	uint64_t drained_read;        /* and generation */
} link_watch = { PTHREAD_MUTEX_INITIALIZER, -1, 0, 0, NULL, 0 };

/* Whether notifications came on fd since it was last drained (or some
 * were lost, or the socket failed): drains it without blocking. They are
 * only counted, so a datagram cut short by the small buffer is as good as
 * whole. */
static int
link_watch_drain(int fd)
{
	char buf[512];
	int changed = 0;

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n >= 0) {
			changed = 1;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return changed;
		return 1; /* ENOBUFS: some were lost; or the socket failed */
	}
}

int
nic_link_watch_open(struct nic_link_watch *w)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1u << (RTNLGRP_LINK - 1),
	};

	w->on = 0;
	pthread_mutex_lock(&link_watch.mu);
	if (link_watch.users == 0) {
		int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
		if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			close(fd);
			fd = -1;
		}
		link_watch.fd = fd;
	}
	if (link_watch.fd >= 0) {
		link_watch.users++;
		w->on = 1;
		w->seen = link_watch.changes;
	}
	pthread_mutex_unlock(&link_watch.mu);
	return w->on ? 0 : -1;
}

int
nic_link_watch_changed(struct nic_link_watch *w, const void *fs, uint64_t read)
{
	int changed;

	if (!w->on)
		return 1;
	pthread_mutex_lock(&link_watch.mu);
	if (link_watch.drained_fs != fs || link_watch.drained_read != read) {
		link_watch.changes += (uint64_t)link_watch_drain(link_watch.fd);
		link_watch.drained_fs = fs;
		link_watch.drained_read = read;
	}
	changed = w->seen != link_watch.changes;
	w->seen = link_watch.changes;
	pthread_mutex_unlock(&link_watch.mu);
	return changed;
}

void
nic_link_watch_close(struct nic_link_watch *w)
{
	if (!w->on)
		return;
	w->on = 0;
	pthread_mutex_lock(&link_watch.mu);
	if (--link_watch.users == 0) {
		close(link_watch.fd);
		link_watch.fd = -1;
		link_watch.drained_fs = NULL;
	}
	pthread_mutex_unlock(&link_watch.mu);
}

/* Walk one datagram of link notifications (see nic.h). */
int
nic_netlink_parse_events(const void *buf, size_t len, nic_event_fn fn, void *arg)
{
	const char *p = buf;
	const char *end = p + len;

	while ((size_t)(end - p) >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *nh = (const void *)p;
		size_t mlen = nh->nlmsg_len;
		const struct ifinfomsg *ifi = NLMSG_DATA(nh);
		struct nic_link link;

		if (mlen < sizeof(*nh) || mlen > (size_t)(end - p))
			return -1;
		p += NLMSG_ALIGN(mlen) < (size_t)(end - p) ? NLMSG_ALIGN(mlen) : (size_t)(end - p);
		if (nh->nlmsg_type != RTM_NEWLINK && nh->nlmsg_type != RTM_DELLINK)
			continue;
		if (mlen < NLMSG_LENGTH(sizeof(*ifi)))
			return -1;
		/* a bridge's own messages (AF_BRIDGE) are about its ports,
		 * not about links coming or going */
		if (ifi->ifi_family != AF_UNSPEC)
			continue;
		parse_newlink(nh, &link);
		fn(nh->nlmsg_type, &link, arg);
	}
	return 0;
}

/* Drain the link notifications (see nic.h). */
int
nic_netlink_events(struct nic_netlink *nl, nic_event_fn fn, void *arg)
{
	int lost = 0;

	if (nl->mon_fd < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(nl->mon_fd, nl->buf, nl->cap, MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return lost;
			lost = 1;
			if (errno == ENOBUFS)
				continue; /* the queue overflowed: drain the rest */
			return lost;
		}
		if ((size_t)n > nl->cap ||
		    nic_netlink_parse_events(nl->buf, (size_t)n, fn, arg) < 0)
			lost = 1;
	}
}

/* Close the sockets and free the buffer. */
void
nic_netlink_close(struct nic_netlink *nl)
{
	if (!nl)
		return;
	if (nl->mon_fd >= 0)
		close(nl->mon_fd);
	close(nl->fd);
	free(nl->buf);
	free(nl);
}
