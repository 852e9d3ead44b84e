/*
 * test_prom.c - the Prometheus exposition (issue 9): the name builder,
 * label escaping, the Accept parser, unwrap and clamp, and the round trip
 * exposition -> raw sample.
 */
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "prom.h"
#include "provider.h"
#include "util.h"

/* Every exported name matches ^[a-z_][a-z0-9_]*$, counters (and only
 * they) end in _total, (name, own label) pairs are unique over every set,
 * and no label is instance or job (Prometheus would rename them). */
static void
test_names(void **state)
{
	static char names[1024][160];
	static const char *labels[1024];
	regex_t re;
	size_t n = 0;

	(void)state;
	assert_int_equal(regcomp(&re, "^[a-z_][a-z0-9_]*$", REG_EXTENDED | REG_NOSUB), 0);
	for (size_t p = 0; p < nproviders; p++) {
		const struct counter_set *cs = providers[p]->set;

		if (!prom_set_exported(cs))
			continue;
		if (cs->prom_labels) {
			assert_null(strstr(cs->prom_labels, "instance"));
			assert_null(strstr(cs->prom_labels, "job"));
		}
		for (size_t f = 0; f < cs->nfields; f++) {
			const struct field_desc *fd = &cs->fields[f];
			size_t len;

			if (!fd->prom.stem)
				continue;
			assert_true(n < 1024);
			assert_true(prom_name(names[n], sizeof(names[n]), cs, f, 0) > 0);
			if (regexec(&re, names[n], 0, NULL, 0))
				fail_msg("%s: bad name %s", cs->name, names[n]);
			len = strlen(names[n]);
			assert_int_equal(fd->kind != FK_GAUGE,
					 len > 6 && !strcmp(names[n] + len - 6, "_total"));
			labels[n] = fd->prom.label;
			/* fields of one family are adjacent (one HELP and TYPE) */
			for (size_t g = 0; g + 1 < f; g++) {
				size_t h = f;

				if (!cs->fields[g].prom.stem ||
				    strcmp(cs->fields[g].prom.stem, fd->prom.stem))
					continue;
				while (h-- > 0 && !cs->fields[h].prom.stem)
					;
				if (strcmp(cs->fields[h].prom.stem, fd->prom.stem))
					fail_msg("%s: family %s is split", cs->name, names[n]);
			}
			if (fd->prom.label)
				assert_true(strncmp(fd->prom.label, "instance=", 9) &&
					    strncmp(fd->prom.label, "job=", 4));
			for (size_t j = 0; j < n; j++)
				if (!strcmp(names[n], names[j]) &&
				    ((!labels[n] && !labels[j]) ||
				     (labels[n] && labels[j] && !strcmp(labels[n], labels[j]))))
					fail_msg("%s: %s twice", cs->name, names[n]);
			n++;
		}
	}
	assert_true(n > 150);
	regfree(&re);
}

/* The metric name of field fname of set sname. */
static const char *
name_of(const char *sname, const char *fname, int family)
{
	static char buf[160];
	const struct counter_set *cs = provider_find(sname)->set;

	for (size_t f = 0; f < cs->nfields; f++)
		if (!strcmp(cs->fields[f].name, fname)) {
			assert_true(prom_name(buf, sizeof(buf), cs, f, family) > 0);
			return buf;
		}
	fail_msg("%s has no field %s", sname, fname);
	return NULL;
}

/* The examples come out of the rule. */
static void
test_examples(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(name_of("Network Adapter", "rx_bytes", 0),
			    "getcounter_network_adapter_received_bytes_total");
	assert_string_equal(name_of("PhysicalDisk", "ms reading", 0),
			    "getcounter_physical_disk_read_time_seconds_total");
	assert_string_equal(name_of("Processor", "user", 0),
			    "getcounter_processor_time_seconds_total");
	assert_string_equal(name_of("Memory", "MemAvailable", 0),
			    "getcounter_memory_available_bytes");
	assert_string_equal(name_of("TCP", "RetransSegs", 0),
			    "getcounter_tcp_retransmitted_segments_total");
	/* an OpenMetrics family drops _total */
	assert_string_equal(name_of("Network Adapter", "rx_bytes", 1),
			    "getcounter_network_adapter_received_bytes");
	prom_set_name(buf, sizeof(buf), "TCPv4");
	assert_string_equal(buf, "tcpv4");
	prom_set_name(buf, sizeof(buf), "Per Processor Network Activity");
	assert_string_equal(buf, "per_processor_network_activity");
}

/* Every set with raw fields is exported, except Processor Information (it
 * repeats Processor), with the labels the issue names. */
static void
test_sets_exported(void **state)
{
	static const char *const sets[][2] = {
		{ "Processor", "cpu" },
		{ "Processor Idle State", "cpu/state" },
		{ "Memory", NULL },
		{ "System", NULL },
		{ "PhysicalDisk", "device" },
		{ "LogicalDisk", "mountpoint;device" },
		{ "Network Adapter", "device" },
		{ "Pressure", "resource" },
		{ "Interrupt", "irq/cpu" },
		{ "Softirq", "type/cpu" },
		{ "Per Processor Network Activity", "cpu" },
		{ "Physical Network Interface Card Activity", "device" },
		{ "RDMA Activity", "device/port" },
		{ "TCP", NULL },
		{ "UDPv4", NULL },
		{ "UDPv6", NULL },
		{ "IPv4", NULL },
		{ "IPv6", NULL },
		{ "ICMP", NULL },
		{ "ICMPv6", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sets); i++) {
		const struct provider *p = provider_find(sets[i][0]);

		assert_non_null(p);
		if (!prom_set_exported(p->set))
			fail_msg("%s is not exported", sets[i][0]);
		if (sets[i][1])
			assert_string_equal(p->set->prom_labels, sets[i][1]);
		else
			assert_null(p->set->prom_labels);
	}
	assert_false(prom_set_exported(provider_find("Processor Information")->set));
}

/* a"b\c and a newline escape as \", \\ and \n. */
static void
test_escape(void **state)
{
	struct prom_buf b = { 0 };

	(void)state;
	prom_buf_escape(&b, "a\"b\\c\nd");
	assert_string_equal(b.p, "a\\\"b\\\\c\\nd");
	prom_buf_free(&b);
}

/* Prometheus' own header gets OpenMetrics; curl's and q=0 get text. */
static void
test_accept(void **state)
{
	(void)state;
	assert_true(prom_accept_openmetrics(
		"application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		"version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	assert_false(prom_accept_openmetrics("*/*"));
	assert_false(prom_accept_openmetrics(NULL));
	assert_false(prom_accept_openmetrics("application/openmetrics-text;q=0"));
	assert_false(prom_accept_openmetrics("text/plain, application/openmetrics-text; q=0.0"));
	assert_true(prom_accept_openmetrics("text/plain, Application/OpenMetrics-Text; q=0.2"));
}

/* Unwrap a 32-bit counter, hold a CPU time, pass a reset. */
static void
test_unwrap(void **state)
{
	struct prom_series s = { 0 };

	(void)state;
	assert_int_equal(prom_unwrap(&s, 0xfffffff0u, 32, FK_COUNTER), 0xfffffff0u);
	/* wraps to 0x10: 0x10 + 2^32 = 0x100000010 */
	assert_int_equal(prom_unwrap(&s, 0x10, 32, FK_COUNTER), 0x100000010ull);
	assert_int_equal(prom_unwrap(&s, 0x20, 32, FK_COUNTER), 0x100000020ull);
	/* 0x20 -> 0x10 would be a wrap of 2^32 - 0x10 >= 2^31: a reset, the
	 * value drops to 0x10 */
	assert_int_equal(prom_unwrap(&s, 0x10, 32, FK_COUNTER), 0x10);

	memset(&s, 0, sizeof(s));
	assert_int_equal(prom_unwrap(&s, 1000, 64, FK_CPU_TIME), 1000);
	/* steps back to 990: held at 1000 */
	assert_int_equal(prom_unwrap(&s, 990, 64, FK_CPU_TIME), 1000);
	assert_int_equal(prom_unwrap(&s, 1005, 64, FK_CPU_TIME), 1005);

	memset(&s, 0, sizeof(s));
	assert_int_equal(prom_unwrap(&s, 5000, 64, FK_COUNTER), 5000);
	/* a real reset: the value drops and Prometheus sees it */
	assert_int_equal(prom_unwrap(&s, 7, 64, FK_COUNTER), 7);
}

/* Format set rs with track t; the text. */
static const char *
format(struct prom_buf *b, const struct raw_set *rs, struct prom_track *t)
{
	struct prom_fmt fmt = { .user_hz = 100, .ulong_bits = 64, .fields = ~(uint64_t)0 };

	prom_buf_reset(b);
	prom_format_set(b, rs, t, &fmt);
	return b->p ? b->p : "";
}

/* The index of field fname in cs. */
static unsigned
field_of(const struct counter_set *cs, const char *fname)
{
	for (size_t f = 0; f < cs->nfields; f++)
		if (!strcmp(cs->fields[f].name, fname))
			return (unsigned)f;
	fail_msg("no field %s", fname);
	return 0;
}

/* Scrapes keep unwrap state: a 32-bit diskstats ms field wraps and stays
 * monotonic; a /proc/stat CPU time that steps back is held; a real CPU
 * reset (the sum of its times falls) lets the value drop. */
static void
test_track(void **state)
{
	const struct counter_set *disk = provider_find("PhysicalDisk")->set;
	const struct counter_set *cpu = provider_find("Processor")->set;
	unsigned ms = field_of(disk, "ms reading"), user = field_of(cpu, "user");
	unsigned idle = field_of(cpu, "idle");
	struct prom_track *t = prom_track_new(disk);
	struct prom_buf b = { 0 };
	struct raw_set rs;
	struct raw_instance *ri;

	(void)state;
	raw_set_init(&rs, disk);
	raw_set_begin(&rs);
	rs.valid = 1;
	raw_put(&rs, raw_set_add(&rs, "sda", 3, 8), ms, 0xFFFFFF00u);
	/* 0xFFFFFF00 = 4294967040 ms = 4294967.04 s */
	assert_non_null(strstr(format(&b, &rs, t),
		"getcounter_physical_disk_read_time_seconds_total{device=\"sda\"} 4294967.04\n"));
	raw_set_begin(&rs);
	rs.valid = 1;
	raw_put(&rs, raw_set_add(&rs, "sda", 3, 8), ms, 0x100);
	/* wrapped: 0x100 + 2^32 = 4294967552 ms = 4294967.552 s */
	assert_non_null(strstr(format(&b, &rs, t),
		"getcounter_physical_disk_read_time_seconds_total{device=\"sda\"} 4294967.552\n"));
	/* a new identity (another disk under the same name) starts afresh */
	raw_set_begin(&rs);
	rs.valid = 1;
	raw_put(&rs, raw_set_add(&rs, "sda", 3, 9), ms, 0x80);
	/* 0x80 = 128 ms = 0.128 s */
	assert_non_null(strstr(format(&b, &rs, t),
		"getcounter_physical_disk_read_time_seconds_total{device=\"sda\"} 0.128\n"));
	raw_set_free(&rs);
	prom_track_free(t);

	t = prom_track_new(cpu);
	raw_set_init(&rs, cpu);
	raw_set_begin(&rs);
	rs.valid = 1;
	rs.mono_ns = 1000000000;
	ri = raw_set_add(&rs, "0", 1, 0);
	raw_put(&rs, ri, user, 1000);
	raw_put(&rs, ri, idle, 5000);
	/* 1000 ticks / 100 = 10 s */
	assert_non_null(strstr(format(&b, &rs, t),
		"getcounter_processor_time_seconds_total{cpu=\"0\",mode=\"user\"} 10\n"));
	raw_set_begin(&rs);
	rs.valid = 1;
	rs.mono_ns = 2000000000;
	ri = raw_set_add(&rs, "0", 1, 0);
	raw_put(&rs, ri, user, 990);
	raw_put(&rs, ri, idle, 5100);
	/* user steps back by 10 ticks while the sum grows: held at 10 s */
	assert_non_null(strstr(format(&b, &rs, t),
		"getcounter_processor_time_seconds_total{cpu=\"0\",mode=\"user\"} 10\n"));
	raw_set_begin(&rs);
	rs.valid = 1;
	rs.mono_ns = 3000000000;
	ri = raw_set_add(&rs, "0", 1, 0);
	raw_put(&rs, ri, user, 20);
	raw_put(&rs, ri, idle, 30);
	/* the sum fell from 6090 to 50, more than 1 % of 1 s x 100: a real
	 * reset, the value drops to 20 / 100 = 0.2 s */
	assert_non_null(strstr(format(&b, &rs, t),
		"getcounter_processor_time_seconds_total{cpu=\"0\",mode=\"user\"} 0.2\n"));
	raw_set_free(&rs);
	prom_track_free(t);
	prom_buf_free(&b);
}

/* A set with labels, escaping, an absent field, a _Total and ERR/_Total. */
static void
test_format(void **state)
{
	const struct counter_set *nic = provider_find("Network Adapter")->set;
	const struct counter_set *irq = provider_find("Interrupt")->set;
	struct prom_buf b = { 0 };
	struct raw_set rs;
	struct raw_instance *ri;
	unsigned rx = field_of(nic, "rx_bytes");
	const char *text;

	(void)state;
	raw_set_init(&rs, nic);
	raw_set_begin(&rs);
	rs.valid = 1;
	ri = raw_set_add(&rs, "eth0", 4, 1);
	raw_put(&rs, ri, rx, 123456789012ull);
	ri = raw_set_add(&rs, "we\"ird\\", 7, 2);
	raw_put(&rs, ri, rx, 7);
	ri = raw_set_add(&rs, "_Total", 6, 0);
	raw_put(&rs, ri, rx, 1);
	text = format(&b, &rs, NULL);
	assert_non_null(strstr(text,
		"# TYPE getcounter_network_adapter_received_bytes_total counter\n"
		"getcounter_network_adapter_received_bytes_total{device=\"eth0\"} 123456789012\n"
		"getcounter_network_adapter_received_bytes_total{device=\"we\\\"ird\\\\\"} 7\n"));
	assert_null(strstr(text, "_Total"));
	assert_null(strstr(text, "sent_bytes")); /* absent everywhere: no series */
	raw_set_free(&rs);

	raw_set_init(&rs, irq);
	raw_set_begin(&rs);
	rs.valid = 1;
	raw_put(&rs, raw_set_add(&rs, "24/1", 4, 0), 0, 5);
	raw_put(&rs, raw_set_add(&rs, "ERR/_Total", 10, 0), 0, 3);
	text = format(&b, &rs, NULL);
	assert_non_null(strstr(text, "getcounter_interrupt_interrupts_total{irq=\"24\",cpu=\"1\"} 5\n"
				     "getcounter_interrupt_interrupts_total{irq=\"ERR\"} 3\n"));
	raw_set_free(&rs);
	prom_buf_free(&b);
}

/* A fixed device for every mount point. */
static size_t
dev_of(void *arg, const char *inst, char *buf, size_t n)
{
	(void)arg;
	(void)inst;
	return (size_t)snprintf(buf, n, "sda1");
}

/* LogicalDisk's extra label: device, beside the mount point; parsing back
 * ignores it (the instance is the mount point). */
static void
test_extra_label(void **state)
{
	const struct counter_set *ld = provider_find("LogicalDisk")->set;
	const struct counter_set *sets[1] = { ld };
	struct prom_fmt fmt = { .user_hz = 100, .ulong_bits = 64, .fields = ~(uint64_t)0,
				.label_value = dev_of };
	struct prom_buf b = { 0 };
	struct raw_set rs;
	const struct counter_set *got;
	size_t f;
	char inst[64];
	uint64_t raw;
	const char *line;

	(void)state;
	raw_set_init(&rs, ld);
	raw_set_begin(&rs);
	rs.valid = 1;
	raw_put(&rs, raw_set_add(&rs, "/mnt/my disk", 12, 1), field_of(ld, "reads"), 42);
	prom_format_set(&b, &rs, NULL, &fmt);
	line = strstr(b.p, "getcounter_logical_disk_reads_total{mountpoint=\"/mnt/my disk\","
			   "device=\"sda1\"} 42\n");
	assert_non_null(line);
	assert_int_equal(prom_parse_sample(line, sets, 1, &got, &f, inst, sizeof(inst), &raw, 100),
			 0);
	assert_string_equal(inst, "/mnt/my disk");
	assert_int_equal(raw, 42);
	assert_int_equal(f, field_of(ld, "reads"));
	raw_set_free(&rs);
	prom_buf_free(&b);
}

/* LogicalDisk's space is in bytes, base units only: fragments x f_frsize,
 * multiplied at exposition; no fragment series, and no size without the
 * fragment size (UNSUPPORTED: absent, never a wrong number). */
static void
test_logical_disk_bytes(void **state)
{
	const struct counter_set *ld = provider_find("LogicalDisk")->set;
	const struct counter_set *sets[1] = { ld };
	struct prom_fmt fmt = { .user_hz = 100, .ulong_bits = 64, .fields = ~(uint64_t)0 };
	struct prom_buf b = { 0 };
	struct raw_set rs;
	struct raw_instance *ri;
	const struct counter_set *got;
	size_t f;
	char inst[64];
	uint64_t raw;
	const char *line;

	(void)state;
	raw_set_init(&rs, ld);
	raw_set_begin(&rs);
	rs.valid = 1;
	ri = raw_set_add(&rs, "/", 1, 1);
	raw_put(&rs, ri, field_of(ld, "f_frsize"), 4096);
	raw_put(&rs, ri, field_of(ld, "f_blocks"), 1000);
	raw_put(&rs, ri, field_of(ld, "f_bfree"), 300);
	raw_put(&rs, ri, field_of(ld, "f_bavail"), 250);
	/* 2^62 fragments of 4096 bytes = 2^74 bytes: past 64 bits, a float */
	ri = raw_set_add(&rs, "/huge", 5, 2);
	raw_put(&rs, ri, field_of(ld, "f_frsize"), 4096);
	raw_put(&rs, ri, field_of(ld, "f_blocks"), (uint64_t)1 << 62);
	/* no fragment size: no size series */
	ri = raw_set_add(&rs, "/nofr", 5, 3);
	raw_put(&rs, ri, field_of(ld, "f_blocks"), 7);
	prom_format_set(&b, &rs, NULL, &fmt);
	/* 1000 x 4096 = 4096000; 300 x 4096 = 1228800; 250 x 4096 = 1024000 */
	line = strstr(b.p, "getcounter_logical_disk_size_bytes{mountpoint=\"/\"} 4096000\n");
	assert_non_null(line);
	assert_non_null(strstr(b.p, "getcounter_logical_disk_free_bytes{mountpoint=\"/\"} 1228800\n"));
	assert_non_null(strstr(b.p, "getcounter_logical_disk_available_bytes{mountpoint=\"/\"} "
				    "1024000\n"));
	/* 2^74 = 18889465931478580854784 */
	assert_non_null(strstr(b.p, "getcounter_logical_disk_size_bytes{mountpoint=\"/huge\"} "
				    "1.8889465931478581e+22\n"));
	assert_null(strstr(b.p, "/nofr"));
	assert_null(strstr(b.p, "fragment"));
	assert_non_null(strstr(b.p, "# TYPE getcounter_logical_disk_size_bytes gauge\n"));
	/* the round trip gives the product, bytes: the fragment size is no
	 * series of its own */
	assert_int_equal(prom_parse_sample(line, sets, 1, &got, &f, inst, sizeof(inst), &raw, 100),
			 0);
	assert_int_equal(f, field_of(ld, "f_blocks"));
	assert_string_equal(inst, "/");
	assert_int_equal(raw, 4096000);
	raw_set_free(&rs);
	prom_buf_free(&b);
}

/* Every exported field of every set, formatted and parsed back into the
 * same set, field, instance and raw value. */
static void
test_round_trip(void **state)
{
	const struct counter_set *sets[64];
	size_t nsets = 0, lines = 0, expect = 0;
	struct prom_buf b = { 0 };

	(void)state;
	for (size_t p = 0; p < nproviders && nsets < 64; p++)
		sets[nsets++] = providers[p]->set;
	for (size_t k = 0; k < nsets; k++) {
		const struct counter_set *cs = sets[k];
		const char *names[2][2] = { { "sda", "eth0" }, { "24/0", "mlx5_0/1" } };
		int two = cs->prom_labels && strchr(cs->prom_labels, '/');
		size_t ninst = cs->multi_instance ? 2 : 1;
		struct prom_fmt fmt = { .user_hz = 250, .ulong_bits = 64, .fields = ~(uint64_t)0 };
		struct raw_set rs;
		char *line, *save = NULL;

		if (!prom_set_exported(cs))
			continue;
		raw_set_init(&rs, cs);
		raw_set_begin(&rs);
	rs.valid = 1;
		rs.valid = 1;
		for (size_t i = 0; i < ninst; i++) {
			const char *name = cs->multi_instance ? names[two][i] : "";
			struct raw_instance *ri = raw_set_add(&rs, name, strlen(name), i);

			for (size_t f = 0; f < cs->nfields; f++) {
				raw_put(&rs, ri, (unsigned)f, 1000 * (f + 1) + i);
				expect += cs->fields[f].prom.stem != NULL;
			}
		}
		prom_buf_reset(&b);
		prom_format_set(&b, &rs, NULL, &fmt);
		for (line = strtok_r(b.p, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			const struct counter_set *got;
			size_t f, i;
			char inst[128];
			uint64_t raw;

			if (line[0] == '#')
				continue;
			if (prom_parse_sample(line, sets, nsets, &got, &f, inst, sizeof(inst), &raw,
					      250) < 0)
				fail_msg("%s: cannot parse back %s", cs->name, line);
			assert_ptr_equal(got, cs);
			/* a field times its multiplier (bytes = fragments x
			 * f_frsize) parses back to the product: (1000 (f + 1) +
			 * i) (1000 m + i), whose last three digits are i x i = i
			 * for i = 0 or 1 */
			i = raw % 1000;
			if (cs->fields[f].prom.mul)
				assert_int_equal(raw, (1000 * (f + 1) + i) *
							      (1000 * cs->fields[f].prom.mul + i));
			else
				assert_int_equal(raw, 1000 * (f + 1) + i);
			assert_string_equal(inst, cs->multi_instance ? names[two][i] : "");
			lines++;
		}
		raw_set_free(&rs);
	}
	assert_int_equal(lines, expect);
	assert_int_equal(prom_parse_sample("# EOF", sets, nsets, NULL, NULL, NULL, 0, NULL, 100), -1);
	prom_buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_sets_exported),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_unwrap),
		cmocka_unit_test(test_track),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_extra_label),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_logical_disk_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
