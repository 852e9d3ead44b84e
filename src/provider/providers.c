/*
 * providers.c - the table of every provider, one line per counter set, in
 * the order -l lists them.
 */
#include <strings.h>

#include "provider.h"

extern const struct provider provider_processor;
extern const struct provider provider_processor_information;
extern const struct provider provider_processor_idle_state;
extern const struct provider provider_interrupt;
extern const struct provider provider_softirq;
extern const struct provider provider_per_processor_network_activity;
extern const struct provider provider_per_processor_nic_activity;
extern const struct provider provider_per_processor_network_activity_cycles;
extern const struct provider provider_physical_nic_activity;
extern const struct provider provider_rdma_activity;
extern const struct provider provider_memory;
extern const struct provider provider_system;
extern const struct provider provider_pressure;
extern const struct provider provider_physicaldisk;
extern const struct provider provider_logicaldisk;
extern const struct provider provider_network_adapter;
extern const struct provider provider_tcp;
extern const struct provider provider_udpv4;
extern const struct provider provider_udpv6;
extern const struct provider provider_ipv4;
extern const struct provider provider_ipv6;
extern const struct provider provider_icmp;
extern const struct provider provider_icmpv6;
extern const struct provider provider_network_capture;

const struct provider *const providers[] = {
	&provider_processor,
	&provider_processor_information,
	&provider_processor_idle_state,
	&provider_interrupt,
	&provider_softirq,
	&provider_memory,
	&provider_network_adapter,
	&provider_per_processor_network_activity,
	&provider_per_processor_nic_activity,
	&provider_per_processor_network_activity_cycles,
	&provider_physical_nic_activity,
	&provider_rdma_activity,
	&provider_physicaldisk,
	&provider_logicaldisk,
	&provider_system,
	&provider_pressure,
	&provider_tcp,
	&provider_udpv4,
	&provider_udpv6,
	&provider_ipv4,
	&provider_ipv6,
	&provider_icmp,
	&provider_icmpv6,
	&provider_network_capture,
};

const size_t nproviders = ARRAY_SIZE(providers);

const struct provider *
provider_find(const char *name)
{
	for (size_t i = 0; i < nproviders; i++) {
		const struct counter_set *s = providers[i]->set;
		if (strcasecmp(s->name, name) == 0 || (s->alias && strcasecmp(s->alias, name) == 0))
			return providers[i];
	}
	return NULL;
}
