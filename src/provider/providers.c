/*
 * providers.c - the table of every provider, one line per counter set, in
 * the order -l lists them.
 */
#include <strings.h>

#include "provider.h"

extern const struct provider provider_processor;
extern const struct provider provider_memory;
extern const struct provider provider_system;
extern const struct provider provider_physicaldisk;
extern const struct provider provider_network_adapter;

const struct provider *const providers[] = {
	&provider_processor,
	&provider_memory,
	&provider_network_adapter,
	&provider_physicaldisk,
	&provider_system,
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
