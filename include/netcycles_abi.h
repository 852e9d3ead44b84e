/*
 * netcycles_abi.h - the memory the eBPF programs of src/bpf/netcycles.bpf.c
 * share with getcounter (src/provider/netcycles.c): per-CPU counts and
 * nanosecond sums, and the tables that say which IRQs and ifindexes belong
 * to which tracked interface. Included by both sides, so only __u32/__u64
 * (from vmlinux.h on the BPF side, <linux/types.h> on ours).
 */
#ifndef GETCOUNTER_NETCYCLES_ABI_H
#define GETCOUNTER_NETCYCLES_ABI_H

#define NC_MAX_IF 32         /* interfaces tracked at once (slots) */
#define NC_MAX_IFINDEX 16384 /* ifindexes below this can be tracked */
#define NC_MAX_IRQ 8192      /* IRQ numbers below this can be tracked */

#define NC_NET_TX_SOFTIRQ 2 /* enum in include/linux/interrupt.h */
#define NC_NET_RX_SOFTIRQ 3

/* One interface's counts on one CPU. */
struct nc_if {
	__u64 irqs;       /* hard IRQ handler runs of its IRQs */
	__u64 irq_ns;     /* time in those handlers */
	__u64 rx_packets; /* netif_receive_skb */
	__u64 tx_packets; /* net_dev_xmit with rc 0 */
	__u64 tx_ns;      /* net_dev_start_xmit -> net_dev_xmit */
};

/* One CPU's counts, an element of the mmapped array map (a multiple of 64
 * bytes, so no two CPUs share a cache line). Written by that CPU only. */
struct nc_cpu {
	__u64 net_rx_ns;         /* in the NET_RX softirq */
	__u64 net_tx_ns;         /* in the NET_TX softirq */
	__u64 net_rx_latency_ns; /* NET_RX raise -> entry */
	__u64 net_rx_latencies;  /* entries that had a raise to measure from */
	__u64 napi_polls;
	__u64 napi_work;         /* packets the polls handled */
	__u64 napi_full;         /* polls whose work reached the budget */
	/* the programs' own state */
	__u64 rx_entry_ns, tx_entry_ns, rx_raise_ns, irq_entry_ns, xmit_start_ns;
	__u64 xmit_skb;
	__u32 irq_slot; /* slot + 1 of the IRQ being handled, 0 none */
	__u32 xmit_slot;
	__u64 pad[2];
	struct nc_if ifs[NC_MAX_IF];
};

#endif
