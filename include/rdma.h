/*
 * rdma.h - the RDMA Activity set's raw fields and the pure helpers behind
 * them (COUNTERS.md section 7, src/provider/rdma.c): the Missing Counter
 * Mask a port's sources give, and the reading of one counter file, which
 * knows that a legacy 32-bit port counter saturates instead of wrapping;
 * and the parsers of the rdma netlink dumps behind RDMA Active Connections.
 */
#ifndef GETCOUNTER_RDMA_H
#define GETCOUNTER_RDMA_H

#include <stddef.h>
#include <stdint.h>

/* The raw fields of one port: one per source file, plus the mask. */
enum rdma_field {
	RD_CM_TX_REQ,            /* cm_tx_msgs/req */
	RD_CM_TX_REP,            /* cm_tx_msgs/rep */
	RD_CM_TX_REJ,            /* cm_tx_msgs/rej */
	RD_CM_RX_REJ,            /* cm_rx_msgs/rej */
	RD_LOCAL_ACK_TIMEOUT_ERR, /* hw_counters/local_ack_timeout_err */
	RD_RNR_NAK_RETRY_ERR,    /* hw_counters/rnr_nak_retry_err */
	RD_ACTIVE_CONNECTIONS,   /* live: the rdma netlink cm_id count */
	RD_REQ_CQE_ERROR,        /* hw_counters/req_cqe_error */
	RD_RESP_CQE_ERROR,       /* hw_counters/resp_cqe_error */
	RD_PORT_RCV_DATA,        /* counters/port_rcv_data, units of 4 octets */
	RD_PORT_XMIT_DATA,       /* counters/port_xmit_data, units of 4 octets */
	RD_PORT_RCV_PACKETS,     /* counters/port_rcv_packets */
	RD_PORT_XMIT_PACKETS,    /* counters/port_xmit_packets */
	RD_MISSING_MASK,         /* computed from which sources exist */
	RD_NFIELDS,
};

/* Bit mask of the four standard port counters (the ones that are 32-bit
 * and saturate on a device without extended counters). */
#define RDMA_PORT_COUNTERS_MASK                                                    \
	(((uint64_t)1 << RD_PORT_RCV_DATA) | ((uint64_t)1 << RD_PORT_XMIT_DATA) |      \
	 ((uint64_t)1 << RD_PORT_RCV_PACKETS) | ((uint64_t)1 << RD_PORT_XMIT_PACKETS))

/* The Missing Counter Mask of a port whose source files are have (bit f:
 * field f < RD_MISSING_MASK has a file): for each counter of the set none of
 * whose fields has a file, its bit (COUNTERS.md section 7: 0-4, 25-29). */
uint64_t rdma_missing_mask(uint64_t have);

/* Parse a counter file's text (an unsigned decimal and a newline) into *v.
 * Returns 0, or -1 for a text that is not one, or, when saturating is
 * nonzero (a legacy 32-bit port counter), for 0xFFFFFFFF: the counter has
 * saturated and no longer counts. */
int rdma_parse_counter(const char *text, int saturating, uint64_t *v);

/* One RDMA device of an RDMA_NLDEV_CMD_RES_GET dump. */
struct rdma_nl_dev {
	char name[64];      /* RDMA_NLDEV_ATTR_DEV_NAME, cut to fit */
	uint32_t index;     /* RDMA_NLDEV_ATTR_DEV_INDEX */
	uint64_t cm_ids;    /* its RES_SUMMARY entry named "cm_id" (_CURR) */
	uint8_t has_cm_ids; /* the message had that entry */
};

/*
 * Parse buf[0 .. len), netlink messages as one recv() of an
 * RDMA_NLDEV_CMD_RES_GET dump gives them (any alignment), skipping those
 * whose sequence number is not seq (0: take all). Each device message is
 * added at devs[*ndevs] (only while *ndevs < max; *ndevs counts them all,
 * so a caller can grow and dump again); *done is set at NLMSG_DONE. Returns
 * 0, the negative errno of an NLMSG_ERROR (or of a failed dump's DONE), or
 * -EBADMSG for a message that does not fit.
 */
int rdma_nl_parse_summary(const void *buf, size_t len, uint32_t seq, struct rdma_nl_dev *devs,
			  size_t max, size_t *ndevs, int *done);

/*
 * The same for an RDMA_NLDEV_CMD_RES_CM_ID_GET dump of one device: each
 * cm_id entry (RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY) adds one to ports[P], P its
 * RDMA_NLDEV_ATTR_PORT_INDEX, when P < nports; an entry bound to no port (a
 * listener on every port) or a larger one adds to none.
 */
int rdma_nl_count_cm_ids(const void *buf, size_t len, uint32_t seq, uint64_t *ports,
			 size_t nports, int *done);

/* For tests: make fd (a socket that answers like the kernel, e.g. one end
 * of a SOCK_SEQPACKET socketpair) the rdma netlink socket of a state that
 * provider_rdma_activity.open returned, live or not; the state owns fd. */
void rdma_use_netlink_fd(void *state, int fd);

#endif
