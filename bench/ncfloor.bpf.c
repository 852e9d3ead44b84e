// SPDX-License-Identifier: GPL-2.0
/*
 * ncfloor.bpf.c - bench only, never part of getcounter: programs that tell
 * the kernel's fixed cost of running a program on a tracepoint from the
 * cost of netcycles.bpf.c's bodies (bench/netcycles, its floor part; loaded by bench/ncfloor.c).
 *   e_*: empty programs on the nine tracepoints netcycles.bpf.c uses;
 *   sys_e0..3: empty programs on sys_enter (a tracepoint a loop of getppid()
 *     hits at will: the slope over 1..4 attached is the cost of one run);
 *   sys_b: on sys_enter, a body like netcycles' softirq_entry (the per-CPU
 *     element, a clock read, a store), to time a body against sys_e0.
 */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

__u64 sink[64];
const volatile long getppid_nr = -1; /* set by bench/ncfloor.c */

#define EMPTY(tp)                                                                          \
	SEC("tp_btf/" #tp)                                                                 \
	int BPF_PROG(e_##tp)                                                               \
	{                                                                                  \
		return 0;                                                                  \
	}
EMPTY(softirq_raise)
EMPTY(softirq_entry)
EMPTY(softirq_exit)
EMPTY(napi_poll)
EMPTY(irq_handler_entry)
EMPTY(irq_handler_exit)
EMPTY(netif_receive_skb)
EMPTY(net_dev_start_xmit)
EMPTY(net_dev_xmit)

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_e0)
{
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_e1)
{
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_e2)
{
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_e3)
{
	return 0;
}

/* the shape of netcycles' on_softirq_entry for its NET_RX case */
SEC("tp_btf/sys_enter")
int BPF_PROG(sys_b, struct pt_regs *regs, long id)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (id != getppid_nr)
		return 0;
	sink[cpu & 63] += bpf_ktime_get_ns();
	return 0;
}
