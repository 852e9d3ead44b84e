/*
 * fuzz_gclog.c - libFuzzer target: the .gcl reader must never crash, leak
 * or read out of bounds on any input, and what it gives back must hold
 * together (indexes in range, a tail inside the file, every set it
 * accepted copyable as a replay copies it).
 *
 * The first byte picks the mode. Even: the rest is a whole log. Odd: the
 * rest is a circular log's geometry (seg_size = 64 x (1 + b1 % 32), nseg =
 * 2 + b2 % 7) and its segments, behind a valid header made here, so the
 * fuzzer spends its time on the ring and not on the header's crc.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gclog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void
check(int ok)
{
	if (!ok)
		abort();
}

static void
touch_str(const char *s)
{
	check(s != NULL);
	sink += strlen(s);
}

/* Every part of set i the reader declared, and a copy as replay makes. */
static void
touch_set(struct gclog_reader *r, size_t i)
{
	uint64_t fields = 0;
	const struct counter_set *s = gclog_reader_set(r, i, &fields);

	if (!s)
		return;
	touch_str(s->name);
	if (s->alias)
		touch_str(s->alias);
	touch_str(s->help);
	check(s->nfields <= SET_MAX_FIELDS);
	check(s->nfields == 64 || (fields >> s->nfields) == 0);
	for (size_t f = 0; f < s->nfields; f++) {
		touch_str(s->fields[f].name);
		sink += s->fields[f].width + s->fields[f].kind + s->fields[f].bound;
	}
	sink += (uint64_t)gclog_reader_set_keyed(r, i);
	const struct counter_desc **list = malloc((s->ncounters ? s->ncounters : 1) *
						  sizeof(*list));
	for (size_t k = 0; k < s->ncounters; k++) {
		const struct counter_desc *c = &s->counters[k];
		touch_str(c->name);
		touch_str(c->unit);
		touch_str(c->help);
		if (c->rows_set)
			touch_str(c->rows_set);
		if (c->rows_counter)
			touch_str(c->rows_counter);
		for (size_t t = 0; t < COUNTER_MAX_TERMS && c->num[t].sign; t++)
			check(c->num[t].field < s->nfields);
		for (size_t t = 0; t < COUNTER_MAX_TERMS && c->den[t].sign; t++)
			check(c->den[t].field < s->nfields);
		check(c->mul <= s->nfields);
		sink += (uint64_t)c->scale + (uint64_t)c->zero_base;
		list[k] = c;
	}
	struct counter_set *copy = gclog_set_copy(s, list, s->ncounters);
	check(copy != NULL); /* a set the reader took must copy */
	check(copy->ncounters == s->ncounters && copy->nfields == s->nfields);
	gclog_set_free(copy);
	free(list);
}

static void
touch_sample(struct gclog_reader *r)
{
	const struct gclog_sample *s = gclog_reader_sample(r);

	sink += (uint64_t)s->wall_ns + (uint64_t)s->gap + s->offset;
	check(s->offset < gclog_reader_size(r));
	check(s->nsets <= gclog_reader_nsets(r));
	for (size_t k = 0; k < s->nsets; k++) {
		const struct gclog_set_sample *ss = &s->sets[k];
		const struct counter_set *set = gclog_reader_set(r, ss->set, NULL);
		check(set != NULL);
		check(ss->rs != NULL && ss->rs->set == set);
		for (size_t j = 0; j < k; j++)
			check(s->sets[j].set != ss->set);
		sink += ss->mono_ns + (uint64_t)ss->valid + ss->rs->mono_ns;
		for (size_t i = 0; i < ss->rs->ninstances; i++) {
			const struct raw_instance *ri = &ss->rs->inst[i];
			touch_str(raw_name(ss->rs, ri));
			touch_str(ss->keys[i]);
			check(set->nfields == 64 || (raw_present(ss->rs, ri) >> set->nfields) == 0);
			sink += raw_identity(ss->rs, ri) + (uint64_t)raw_in_total(ss->rs, ri);
			for (size_t f = 0; f < set->nfields; f++)
				if (raw_present(ss->rs, ri) >> f & 1)
					sink += raw_get(ss->rs, ri, (unsigned)f);
		}
	}
}

static void
touch_session(struct gclog_reader *r)
{
	const struct gclog_session *s = gclog_reader_session(r);

	check(s != NULL);
	touch_str(s->host);
	touch_str(s->kernel);
	touch_str(s->machine);
	touch_str(s->boot_id);
	touch_str(s->tz_name);
	touch_str(s->version);
	sink += s->id + s->ulong_bits + s->user_hz + s->page_size + (uint64_t)s->start_ns +
		(uint64_t)s->tz_offset_s;
}

/* Read the whole log and everything a --summary shows. */
static void
read_all(const uint8_t *buf, size_t len)
{
	struct err err;
	struct gclog_reader *r = gclog_reader_open_mem(buf, len, "fuzz.gcl", &err);
	enum gclog_event ev;
	unsigned major, minor;
	size_t events = 0;

	if (!r) {
		touch_str(err.msg);
		return;
	}
	gclog_reader_version(r, &major, &minor);
	check(major == GCLOG_MAJOR);
	sink += minor + (uint64_t)gclog_reader_circular(r);
	touch_str(gclog_reader_name(r));
	check(gclog_reader_size(r) == len);
	while ((ev = gclog_reader_next(r)) != GCLOG_END) {
		events++;
		check(events <= len); /* every event consumes bytes */
		switch (ev) {
		case GCLOG_SESSION:
			touch_session(r);
			break;
		case GCLOG_SCHEMA:
			for (size_t i = 0; i < gclog_reader_nsets(r); i++)
				touch_set(r, i);
			break;
		case GCLOG_SAMPLE:
			touch_sample(r);
			break;
		case GCLOG_MARK:
			touch_str(gclog_reader_mark(r));
			break;
		default:
			check(0);
		}
	}
	check(gclog_reader_next(r) == GCLOG_END);
	for (size_t i = 0; i < gclog_reader_nsets(r); i++)
		touch_set(r, i);
	size_t np;
	const char *const *paths = gclog_reader_paths(r, &np);
	for (size_t i = 0; i < np; i++)
		touch_str(paths[i]);
	for (size_t i = 0; i < gclog_reader_ndamage(r); i++) {
		const struct gclog_damage *d = gclog_reader_damage(r, i);
		check(d != NULL);
		check(d->offset < len && d->bytes <= len - d->offset);
		touch_str(d->what);
		sink += d->samples_lost;
	}
	check(gclog_reader_torn(r) <= len);
	struct gclog_tail t;
	gclog_reader_tail(r, &t);
	check(t.end >= GCLOG_HEADER_SIZE && t.end <= len);
	if (t.circular) {
		/* --append writes at t.end and clears the rest of that segment */
		check(t.nseg >= 2 && t.seg < t.nseg && t.seg_size > 0);
		uint64_t seg_off = GCLOG_HEADER_SIZE + (uint64_t)t.seg * t.seg_size;
		check(t.end >= seg_off && t.end <= seg_off + t.seg_size);
	}
	gclog_reader_close(r);

	/* the tail straight away, as --append asks it */
	r = gclog_reader_open_mem(buf, len, "fuzz.gcl", &err);
	check(r != NULL);
	struct gclog_tail t2;
	gclog_reader_tail(r, &t2);
	check(t2.end == t.end && t2.seg == t.seg && t2.seq == t.seq);
	gclog_reader_close(r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (!(data[0] & 1)) {
		/* an exact-size copy: reading past it is an ASan error */
		uint8_t *buf = malloc(size - 1 ? size - 1 : 1);
		memcpy(buf, data + 1, size - 1);
		read_all(buf, size - 1);
		free(buf);
		return 0;
	}
	if (size < 3)
		return 0;
	uint64_t seg_size = 64 * (1 + (uint64_t)(data[1] % 32));
	uint32_t nseg = 2 + data[2] % 7;
	size_t len = GCLOG_HEADER_SIZE + size - 3;
	uint8_t *buf = malloc(len);
	static const uint8_t magic[8] = { 0x89, 'G', 'C', 'L', '\r', '\n', 0x1a, '\n' };
	uint8_t *h = buf;
	memcpy(h, magic, 8);
	h[8] = GCLOG_MAJOR;
	h[9] = 0;
	h[10] = GCLOG_MINOR;
	h[11] = 0;
	h[12] = 1; /* circular */
	h[13] = h[14] = h[15] = 0;
	for (int i = 0; i < 8; i++)
		h[16 + i] = (uint8_t)(seg_size >> (8 * i));
	for (int i = 0; i < 4; i++)
		h[24 + i] = (uint8_t)(nseg >> (8 * i));
	uint32_t crc = gclog_crc32(0, h, 28);
	for (int i = 0; i < 4; i++)
		h[28 + i] = (uint8_t)(crc >> (8 * i));
	memcpy(buf + GCLOG_HEADER_SIZE, data + 3, size - 3);
	read_all(buf, len);
	free(buf);
	return 0;
}
