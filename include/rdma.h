/*
 * rdma.h - the RDMA Activity set's raw fields and the pure helpers behind
 * them (COUNTERS.md section 7, src/provider/rdma.c): the Missing Counter
 * Mask a port's sources give, and the reading of one counter file, which
 * knows that a legacy 32-bit port counter saturates instead of wrapping.
 */
#ifndef GETCOUNTER_RDMA_H
#define GETCOUNTER_RDMA_H

#include <stdint.h>

/* The raw fields of one port: one per source file, plus the mask. */
enum rdma_field {
	RD_CM_TX_REQ,            /* cm_tx_msgs/req */
	RD_CM_TX_REP,            /* cm_tx_msgs/rep */
	RD_CM_TX_REJ,            /* cm_tx_msgs/rej */
	RD_CM_RX_REJ,            /* cm_rx_msgs/rej */
	RD_LOCAL_ACK_TIMEOUT_ERR, /* hw_counters/local_ack_timeout_err */
	RD_RNR_NAK_RETRY_ERR,    /* hw_counters/rnr_nak_retry_err */
	RD_ACTIVE_CONNECTIONS,   /* the rdma netlink cm_id count: never read yet */
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

#endif
