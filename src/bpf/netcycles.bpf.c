// SPDX-License-Identifier: GPL-2.0
/*
 * netcycles.bpf.c - the eBPF programs behind the Per Processor Network
 * Activity Cycles counters (COUNTERS.md section 10), loaded by
 * src/provider/netcycles.c only when a requested counter needs them.
 *
 * Each program adds to the element of the "cpus" array for the CPU it runs
 * on (struct nc_cpu, include/netcycles_abi.h): nanosecond sums and counts
 * for the NET_RX and NET_TX softirqs, NAPI polls, and per tracked interface
 * its hard IRQ handlers, received and sent packets and send time. The
 * array is BPF_F_MMAPABLE: getcounter reads it with plain loads. It is a
 * map of its own rather than a .bss array because its size is the number
 * of possible CPUs, known only at load time, and resizing a .bss needs
 * libbpf 1.2 (Debian 12 has 1.1); the lookup is inlined and bounds the
 * index for the verifier. The small slot tables are in .bss, masked.
 *
 * Every hook exists twice: tp_btf (BTF-typed, cheapest) and raw_tp, the
 * fallback the loader enables when tp_btf cannot load; both bodies are the
 * same inline function. Interfaces are told apart by ifindex in
 * getcounter's own network namespace (netns_ino), IRQs by number; the
 * tables mapping them to slots are in .bss, written by getcounter.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "netcycles_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* getcounter's network namespace: ifindexes are looked up only there. */
const volatile __u32 netns_ino = 0;
/* Nonzero when the handler time is asked for (irq_handler_exit loaded):
 * only then does irq_handler_entry read the clock. */
const volatile __u8 irq_time = 0;

/* Slot + 1 of the interface with this ifindex, or of the interface this
 * IRQ belongs to; 0: not tracked. Written by getcounter. */
__u8 if_slot[NC_MAX_IFINDEX];
__u8 irq_slot[NC_MAX_IRQ];

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct nc_cpu);
	__uint(max_entries, 1); /* set to the possible CPUs before load */
} cpus SEC(".maps");

static __always_inline struct nc_cpu *
this_cpu(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&cpus, &cpu);
}

/* The slot + 1 of dev when it is a tracked interface of our namespace.
 * btf (a constant once inlined): tp_btf may load through the typed
 * pointers directly, which costs no helper call; raw_tp reads with
 * bpf_probe_read_kernel (BPF_CORE_READ). Both relocate by CO-RE. */
static __always_inline __u32
dev_slot(const struct net_device *dev, const int btf)
{
	__u32 ifindex, s;

	if (btf)
		ifindex = (__u32)__builtin_preserve_access_index(dev->ifindex);
	else
		ifindex = (__u32)BPF_CORE_READ(dev, ifindex);
	if (ifindex >= NC_MAX_IFINDEX)
		return 0;
	s = if_slot[ifindex & (NC_MAX_IFINDEX - 1)];
	if (!s)
		return 0;
	if (btf) {
		const struct net *net = __builtin_preserve_access_index(dev->nd_net.net);
		if (!net || __builtin_preserve_access_index(net->ns.inum) != netns_ino)
			return 0;
	} else if (BPF_CORE_READ(dev, nd_net.net, ns.inum) != netns_ino) {
		return 0;
	}
	return s;
}

static __always_inline void
on_softirq_raise(unsigned int vec)
{
	struct nc_cpu *c;

	if (vec != NC_NET_RX_SOFTIRQ || !(c = this_cpu()))
		return;
	if (!c->rx_raise_ns)
		c->rx_raise_ns = bpf_ktime_get_ns();
}

static __always_inline void
on_softirq_entry(unsigned int vec)
{
	struct nc_cpu *c;
	__u64 now;

	if ((vec != NC_NET_RX_SOFTIRQ && vec != NC_NET_TX_SOFTIRQ) || !(c = this_cpu()))
		return;
	now = bpf_ktime_get_ns();
	if (vec == NC_NET_TX_SOFTIRQ) {
		c->tx_entry_ns = now;
		return;
	}
	c->rx_entry_ns = now;
	if (c->rx_raise_ns) {
		c->net_rx_latency_ns += now - c->rx_raise_ns;
		c->net_rx_latencies++;
		c->rx_raise_ns = 0;
	}
}

static __always_inline void
on_softirq_exit(unsigned int vec)
{
	struct nc_cpu *c;
	__u64 now;

	if ((vec != NC_NET_RX_SOFTIRQ && vec != NC_NET_TX_SOFTIRQ) || !(c = this_cpu()))
		return;
	now = bpf_ktime_get_ns();
	if (vec == NC_NET_TX_SOFTIRQ) {
		if (c->tx_entry_ns)
			c->net_tx_ns += now - c->tx_entry_ns;
		c->tx_entry_ns = 0;
	} else {
		if (c->rx_entry_ns)
			c->net_rx_ns += now - c->rx_entry_ns;
		c->rx_entry_ns = 0;
	}
}

static __always_inline void
on_napi_poll(int work, int budget)
{
	struct nc_cpu *c = this_cpu();

	if (!c)
		return;
	c->napi_polls++;
	if (work > 0)
		c->napi_work += (__u64)work;
	if (budget > 0 && work >= budget)
		c->napi_full++;
}

/* Counts the handler run (Interrupts/sec alone needs no exit program);
 * takes the time only for the exit program's handler time. */
static __always_inline void
on_irq_entry(int irq)
{
	struct nc_cpu *c;
	__u32 s;

	if (irq < 0 || irq >= NC_MAX_IRQ)
		return;
	s = irq_slot[irq & (NC_MAX_IRQ - 1)];
	if (!s || !(c = this_cpu()))
		return;
	c->ifs[(s - 1) & (NC_MAX_IF - 1)].irqs++;
	if (irq_time) {
		c->irq_slot = s;
		c->irq_entry_ns = bpf_ktime_get_ns();
	}
}

static __always_inline void
on_irq_exit(void)
{
	struct nc_cpu *c = this_cpu();
	__u32 s;

	if (!c || !(s = c->irq_slot))
		return;
	c->ifs[(s - 1) & (NC_MAX_IF - 1)].irq_ns += bpf_ktime_get_ns() - c->irq_entry_ns;
	c->irq_slot = 0;
}

static __always_inline void
on_receive(const struct sk_buff *skb, const int btf)
{
	struct nc_cpu *c;
	__u32 s = dev_slot(btf ? __builtin_preserve_access_index(skb->dev) : BPF_CORE_READ(skb, dev),
			   btf);

	if (!s || !(c = this_cpu()))
		return;
	c->ifs[(s - 1) & (NC_MAX_IF - 1)].rx_packets++;
}

static __always_inline void
on_start_xmit(const struct sk_buff *skb, const struct net_device *dev, const int btf)
{
	struct nc_cpu *c;
	__u32 s = dev_slot(dev, btf);

	if (!s || !(c = this_cpu()))
		return;
	c->xmit_slot = s;
	c->xmit_skb = (__u64)(unsigned long)skb;
	c->xmit_start_ns = bpf_ktime_get_ns();
}

static __always_inline void
on_xmit(const struct sk_buff *skb, int rc, const struct net_device *dev, const int btf)
{
	struct nc_cpu *c;
	__u32 s = dev_slot(dev, btf);

	if (!s || !(c = this_cpu()))
		return;
	struct nc_if *f = &c->ifs[(s - 1) & (NC_MAX_IF - 1)];
	if (rc == 0)
		f->tx_packets++;
	if (c->xmit_slot == s && c->xmit_skb == (__u64)(unsigned long)skb)
		f->tx_ns += bpf_ktime_get_ns() - c->xmit_start_ns;
	c->xmit_slot = 0;
	c->xmit_skb = 0;
}

/* tp_btf: typed arguments. */
SEC("tp_btf/softirq_raise")
int BPF_PROG(btf_softirq_raise, unsigned int vec)
{
	on_softirq_raise(vec);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(btf_softirq_entry, unsigned int vec)
{
	on_softirq_entry(vec);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(btf_softirq_exit, unsigned int vec)
{
	on_softirq_exit(vec);
	return 0;
}

SEC("tp_btf/napi_poll")
int BPF_PROG(btf_napi_poll, struct napi_struct *napi, int work, int budget)
{
	on_napi_poll(work, budget);
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(btf_irq_handler_entry, int irq, struct irqaction *action)
{
	on_irq_entry(irq);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(btf_irq_handler_exit, int irq, struct irqaction *action, int ret)
{
	on_irq_exit();
	return 0;
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(btf_netif_receive_skb, struct sk_buff *skb)
{
	on_receive(skb, 1);
	return 0;
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(btf_net_dev_start_xmit, const struct sk_buff *skb, const struct net_device *dev)
{
	on_start_xmit(skb, dev, 1);
	return 0;
}

SEC("tp_btf/net_dev_xmit")
int BPF_PROG(btf_net_dev_xmit, struct sk_buff *skb, int rc, struct net_device *dev,
	     unsigned int len)
{
	on_xmit(skb, rc, dev, 1);
	return 0;
}

/* raw_tp: the same, for kernels where tp_btf does not load. */
SEC("raw_tp/softirq_raise")
int BPF_PROG(raw_softirq_raise, unsigned int vec)
{
	on_softirq_raise(vec);
	return 0;
}

SEC("raw_tp/softirq_entry")
int BPF_PROG(raw_softirq_entry, unsigned int vec)
{
	on_softirq_entry(vec);
	return 0;
}

SEC("raw_tp/softirq_exit")
int BPF_PROG(raw_softirq_exit, unsigned int vec)
{
	on_softirq_exit(vec);
	return 0;
}

SEC("raw_tp/napi_poll")
int BPF_PROG(raw_napi_poll, struct napi_struct *napi, int work, int budget)
{
	on_napi_poll(work, budget);
	return 0;
}

SEC("raw_tp/irq_handler_entry")
int BPF_PROG(raw_irq_handler_entry, int irq, struct irqaction *action)
{
	on_irq_entry(irq);
	return 0;
}

SEC("raw_tp/irq_handler_exit")
int BPF_PROG(raw_irq_handler_exit, int irq, struct irqaction *action, int ret)
{
	on_irq_exit();
	return 0;
}

SEC("raw_tp/netif_receive_skb")
int BPF_PROG(raw_netif_receive_skb, struct sk_buff *skb)
{
	on_receive(skb, 0);
	return 0;
}

SEC("raw_tp/net_dev_start_xmit")
int BPF_PROG(raw_net_dev_start_xmit, const struct sk_buff *skb, const struct net_device *dev)
{
	on_start_xmit(skb, dev, 0);
	return 0;
}

SEC("raw_tp/net_dev_xmit")
int BPF_PROG(raw_net_dev_xmit, struct sk_buff *skb, int rc, struct net_device *dev,
	     unsigned int len)
{
	on_xmit(skb, rc, dev, 0);
	return 0;
}
