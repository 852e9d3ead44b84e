/*
 * sample.c - raw sample storage, reused from read to read so that a steady
 * state allocates nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "util.h"

void
raw_set_init(struct raw_set *rs, const struct counter_set *cs)
{
	memset(rs, 0, sizeof(*rs));
	rs->set = cs;
}

void
raw_set_free(struct raw_set *rs)
{
	for (size_t i = 0; i < rs->cap; i++) {
		free(rs->inst[i].name);
		free(rs->inst[i].values);
	}
	free(rs->inst);
	rs->inst = NULL;
	rs->cap = rs->ninstances = 0;
}

void
raw_set_begin(struct raw_set *rs)
{
	rs->ninstances = 0;
	rs->valid = 0;
}

struct raw_instance *
raw_set_add(struct raw_set *rs, const char *name, size_t len, uint64_t identity)
{
	struct raw_instance *ri;

	if (rs->ninstances == rs->cap)
		xgrow((void **)&rs->inst, &rs->cap, rs->ninstances + 1, sizeof(*rs->inst));
	ri = &rs->inst[rs->ninstances++];
	if (!ri->values)
		ri->values = xcalloc(rs->set->nfields ? rs->set->nfields : 1, sizeof(uint64_t));
	else
		memset(ri->values, 0, sizeof(uint64_t) * rs->set->nfields);
	if (!ri->name || strncmp(ri->name, name, len) != 0 || ri->name[len] != '\0') {
		if (ri->name_cap < len + 1) {
			ri->name_cap = len + 1 < 16 ? 16 : len + 1;
			free(ri->name);
			ri->name = xmalloc(ri->name_cap);
		}
		memcpy(ri->name, name, len);
		ri->name[len] = '\0';
	}
	ri->identity = identity;
	ri->present = 0;
	ri->in_total = 1;
	return ri;
}

void
raw_set_copy(struct raw_set *dst, const struct raw_set *src)
{
	raw_set_begin(dst);
	dst->set = src->set;
	for (size_t i = 0; i < src->ninstances; i++) {
		const struct raw_instance *s = &src->inst[i];
		struct raw_instance *d = raw_set_add(dst, s->name, strlen(s->name), s->identity);
		memcpy(d->values, s->values, sizeof(uint64_t) * src->set->nfields);
		d->present = s->present;
		d->in_total = s->in_total;
	}
	dst->mono_ns = src->mono_ns;
	dst->valid = src->valid;
}
