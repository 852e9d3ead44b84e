/*
 * counter.c - look-ups over the const counter tables.
 */
#include <strings.h>

#include "counter.h"

const struct counter_desc *
counter_set_find(const struct counter_set *set, const char *name)
{
	for (size_t i = 0; i < set->ncounters; i++)
		if (strcasecmp(set->counters[i].name, name) == 0)
			return &set->counters[i];
	return NULL;
}

uint64_t
counter_fields(const struct counter_desc *c)
{
	uint64_t m = 0;

	for (int i = 0; i < COUNTER_MAX_TERMS && c->num[i].sign; i++)
		m |= (uint64_t)1 << c->num[i].field;
	for (int i = 0; i < COUNTER_MAX_TERMS && c->den[i].sign; i++)
		m |= (uint64_t)1 << c->den[i].field;
	if (c->mul)
		m |= (uint64_t)1 << (c->mul - 1u);
	return m;
}
