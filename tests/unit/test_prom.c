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

/* Every name matches ^[a-z_][a-z0-9_]*$, counters end in _total, and the
 * (name, mode) pairs are unique. */
static void
test_names(void **state)
{
	size_t n;
	const struct prom_field *t = prom_fields(&n);
	regex_t re;
	char names[128][128];

	(void)state;
	assert_true(n <= 128);
	assert_int_equal(regcomp(&re, "^[a-z_][a-z0-9_]*$", REG_EXTENDED | REG_NOSUB), 0);
	for (size_t i = 0; i < n; i++) {
		size_t len;

		assert_true(prom_name(names[i], sizeof(names[i]), &t[i], 0) > 0);
		assert_int_equal(regexec(&re, names[i], 0, NULL, 0), 0);
		len = strlen(names[i]);
		assert_int_equal(t[i].counter, len > 6 && !strcmp(names[i] + len - 6, "_total"));
		for (size_t j = 0; j < i; j++) {
			int same_mode = (!t[i].mode && !t[j].mode) ||
					(t[i].mode && t[j].mode && !strcmp(t[i].mode, t[j].mode));

			assert_false(!strcmp(names[i], names[j]) && same_mode);
		}
	}
	regfree(&re);
}

/* The examples come out of the rule. */
static void
test_examples(void **state)
{
	char buf[128];

	(void)state;
	prom_name(buf, sizeof(buf), prom_field_find("Network Adapter", "rx_bytes"), 0);
	assert_string_equal(buf, "getcounter_network_adapter_received_bytes_total");
	prom_name(buf, sizeof(buf), prom_field_find("PhysicalDisk", "ms reading"), 0);
	assert_string_equal(buf, "getcounter_physical_disk_read_time_seconds_total");
	prom_name(buf, sizeof(buf), prom_field_find("Processor", "user"), 0);
	assert_string_equal(buf, "getcounter_processor_time_seconds_total");
	prom_name(buf, sizeof(buf), prom_field_find("Memory", "MemAvailable"), 0);
	assert_string_equal(buf, "getcounter_memory_available_bytes");
	/* an OpenMetrics family drops _total */
	prom_name(buf, sizeof(buf), prom_field_find("Network Adapter", "rx_bytes"), 1);
	assert_string_equal(buf, "getcounter_network_adapter_received_bytes");
	prom_set_name(buf, sizeof(buf), "TCPv4");
	assert_string_equal(buf, "tcpv4");
	assert_null(prom_field_find("Network Adapter", "no such"));
}

/* Every table row names a real provider's set and one of its fields, so a
 * renamed field cannot silently drop a series. */
static void
test_table_matches_providers(void **state)
{
	size_t n;
	const struct prom_field *t = prom_fields(&n);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct provider *p = provider_find(t[i].set);
		size_t f;

		assert_non_null(p);
		for (f = 0; f < p->set->nfields; f++)
			if (!strcmp(p->set->fields[f].name, t[i].field))
				break;
		if (f == p->set->nfields)
			fail_msg("%s: no field %s", t[i].set, t[i].field);
	}
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

/* Unwrap a 32-bit counter, hold a CPU time, pass a 64-bit reset. */
static void
test_unwrap(void **state)
{
	struct prom_series s = { 0 };

	(void)state;
	assert_int_equal(prom_unwrap(&s, 0xfffffff0u, 32, FK_COUNTER), 0xfffffff0u);
	/* wraps to 0x10: 0x10 + 2^32 = 0x100000010 */
	assert_int_equal(prom_unwrap(&s, 0x10, 32, FK_COUNTER), 0x100000010ull);
	assert_int_equal(prom_unwrap(&s, 0x20, 32, FK_COUNTER), 0x100000020ull);

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

static const struct field_desc nic_fields[] = {
	{ "rx_bytes", FW_64, FK_COUNTER, FB_NONE },
	{ "tx_bytes", FW_64, FK_COUNTER, FB_NONE },
	{ "speed", FW_64, FK_GAUGE, FB_NONE },
};
static const struct counter_set nic_set = {
	.name = "Network Adapter", .multi_instance = 1, .fields = nic_fields, .nfields = 3,
};
static const struct field_desc cpu_fields[] = {
	{ "user", FW_64, FK_CPU_TIME, FB_NONE },
	{ "system", FW_64, FK_CPU_TIME, FB_NONE },
};
static const struct counter_set cpu_set = {
	.name = "Processor", .multi_instance = 1, .fields = cpu_fields, .nfields = 2,
};

/* Text exposition of a raw set, then each line parsed back. */
static void
test_format_round_trip(void **state)
{
	struct raw_set rs, cpu;
	struct raw_instance *ri;
	struct prom_buf b = { 0 };
	char inst[64], *line, *save = NULL;
	const struct prom_field *pf;
	uint64_t raw;
	int n = 0;

	(void)state;
	raw_set_init(&rs, &nic_set);
	raw_set_begin(&rs);
	rs.valid = 1;
	ri = raw_set_add(&rs, "eth0", 4, 1);
	raw_put(ri, 0, 123456789012ull);
	raw_put(ri, 1, 42);
	ri = raw_set_add(&rs, "we\"ird\\", 7, 2);
	raw_put(ri, 0, 7); /* tx_bytes absent: no series */
	ri = raw_set_add(&rs, "_Total", 6, 0);
	raw_put(ri, 0, 1);
	assert_int_equal(prom_format_set(&b, &rs, 100, 0, NULL, NULL), 3);
	assert_string_equal(b.p,
		"# HELP getcounter_network_adapter_received_bytes_total Bytes received by the "
		"interface.\n"
		"# TYPE getcounter_network_adapter_received_bytes_total counter\n"
		"getcounter_network_adapter_received_bytes_total{device=\"eth0\"} 123456789012\n"
		"getcounter_network_adapter_received_bytes_total{device=\"we\\\"ird\\\\\"} 7\n"
		"# HELP getcounter_network_adapter_sent_bytes_total Bytes sent by the interface.\n"
		"# TYPE getcounter_network_adapter_sent_bytes_total counter\n"
		"getcounter_network_adapter_sent_bytes_total{device=\"eth0\"} 42\n");
	for (line = strtok_r(b.p, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		assert_int_equal(prom_parse_sample(line, &pf, inst, sizeof(inst), &raw, 100), 0);
		if (n == 0) {
			assert_string_equal(pf->field, "rx_bytes");
			assert_string_equal(inst, "eth0");
			assert_int_equal(raw, 123456789012ull);
		} else if (n == 1) {
			assert_string_equal(inst, "we\"ird\\");
			assert_int_equal(raw, 7);
		} else {
			assert_string_equal(pf->field, "tx_bytes");
			assert_int_equal(raw, 42);
		}
		n++;
	}
	assert_int_equal(n, 3);

	/* Processor: ticks / USER_HZ 100, labels cpu and mode; OpenMetrics */
	raw_set_init(&cpu, &cpu_set);
	raw_set_begin(&cpu);
	cpu.valid = 1;
	ri = raw_set_add(&cpu, "0", 1, 0);
	raw_put(ri, 0, 12345); /* 12345 / 100 = 123.45 s */
	raw_put(ri, 1, 50);    /* 50 / 100 = 0.5 s */
	prom_buf_reset(&b);
	assert_int_equal(prom_format_set(&b, &cpu, 100, 1, NULL, NULL), 2);
	assert_non_null(strstr(b.p, "# TYPE getcounter_processor_time_seconds counter\n"
				    "# UNIT getcounter_processor_time_seconds seconds\n"));
	line = strstr(b.p, "getcounter_processor_time_seconds_total{cpu=\"0\",mode=\"user\"} "
			   "123.45");
	assert_non_null(line);
	assert_int_equal(prom_parse_sample(line, &pf, inst, sizeof(inst), &raw, 100), 0);
	assert_string_equal(pf->field, "user");
	assert_string_equal(inst, "0");
	assert_int_equal(raw, 12345);
	line = strstr(b.p, "getcounter_processor_time_seconds_total{cpu=\"0\",mode=\"system\"} "
			   "0.5\n");
	assert_non_null(line);
	assert_int_equal(prom_parse_sample(line, &pf, inst, sizeof(inst), &raw, 100), 0);
	assert_string_equal(pf->field, "system");
	assert_int_equal(raw, 50);
	assert_int_equal(prom_parse_sample("# EOF", &pf, inst, sizeof(inst), &raw, 100), -1);
	assert_int_equal(prom_parse_sample("other_metric 1", &pf, inst, sizeof(inst), &raw, 100),
			 -1);
	raw_set_free(&cpu);
	raw_set_free(&rs);
	prom_buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_table_matches_providers),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_unwrap),
		cmocka_unit_test(test_format_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
