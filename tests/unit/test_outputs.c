/*
 * test_outputs.c - the five outputs (table, list, csv, tsv, json) rendered
 * from hand-built frames into memory and compared byte for byte with the
 * files in tests/unit/expected/ (run with cwd tests/unit). TZ is UTC and the
 * wall time fixed, so the files do not depend on the machine. On a
 * mismatch the actual output is left in /tmp/getcounter-<name>.actual.
 */
#define _GNU_SOURCE
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "gc_test.h"

#include "output.h"

extern const struct output output_table;
extern const struct output output_list;
extern const struct output output_csv;
extern const struct output output_tsv;
extern const struct output output_json;

enum { F_BYTES, F_QUEUE, NF };

static const struct field_desc fields[NF] = {
	[F_BYTES] = { "bytes", FW_64, FK_COUNTER, FB_NONE, NO_PROM },
	[F_QUEUE] = { "queue", FW_64, FK_GAUGE, FB_NONE, NO_PROM },
};

enum { C_BYTES, C_QUEUE, NC };

static const struct counter_desc counters[NC] = {
	[C_BYTES] = { .name = "Bytes/sec", .type = CT_RATE, .num = { { F_BYTES, 1 } },
		      .unit = "B/s", .help = "Bytes per second." },
	[C_QUEUE] = { .name = "Queue Length", .type = CT_RAW, .num = { { F_QUEUE, 1 } },
		      .unit = "", .help = "Requests waiting." },
};

static const struct counter_set test_set = {
	.name = "Test Set",
	.help = "A set made up for the output tests.",
	.multi_instance = 1,
	.fields = fields,
	.nfields = NF,
	.counters = counters,
	.ncounters = NC,
};

static const struct counter_desc solo_counters[] = {
	{ .name = "Uptime", .type = CT_RAW, .num = { { F_QUEUE, 1 } }, .unit = "s",
	  .help = "Seconds." },
};

static const struct counter_set solo_set = {
	.name = "Solo",
	.help = "A single-instance set.",
	.fields = fields,
	.nfields = NF,
	.counters = solo_counters,
	.ncounters = 1,
};

/* 1700000000 s is 2023-11-14 22:13:20 UTC. */
#define WALL0 1700000000123000000LL

#define BYTES (&counters[C_BYTES])
#define QUEUE (&counters[C_QUEUE])
#define UPTIME (&solo_counters[0])

/*
 * Frame 1: columns 0..4.
 *  0 RATE 1536.5 OK                  shown
 *  1 RAW  3 FIRST                    shown: RAW needs one read
 *  2 RATE FIRST                      missing: RATE needs two reads
 *  3 single-instance RAW 12345.25 OK shown, instance null
 *  4 RATE 1000000.125 WRAPPED        shown
 */
static const struct frame_row rows1[] = {
	{ &test_set, BYTES, "a \"quoted\" name", 0, ST_OK, 1536.5 },
	{ &test_set, QUEUE, "back\\slash (x)",
	  1, ST_FIRST, 3 },
	{ &test_set, BYTES, "caf\xc3\xa9 \x01"
			    "ctl",
	  2, ST_FIRST, 0 },
	{ &solo_set, UPTIME, NULL, 3, ST_OK, 12345.25 },
	{ &test_set, BYTES, "eth 0", 4, ST_WRAPPED, 1000000.125 },
};

/*
 * Frame 2, 1.5 s later, rows in another order:
 *  2 RATE 1/3 OK                     shown (shortest form in json)
 *  0 RATE 2048 OK
 *  1 RAW RESET                       missing
 *  3 gone: no row                    csv " "
 *  4 NO_INSTANCE                     missing
 *  5 RATE NEW                        missing; no csv column
 *  6 RAW 7 NEW, invalid UTF-8 name   shown; no csv column; json \ufffd
 */
static const struct frame_row rows2[] = {
	{ &test_set, BYTES, "caf\xc3\xa9 \x01"
			    "ctl",
	  2, ST_OK, 1.0 / 3.0 },
	{ &test_set, BYTES, "a \"quoted\" name", 0, ST_OK, 2048 },
	{ &test_set, QUEUE, "back\\slash (x)",
	  1, ST_RESET, 0 },
	{ &test_set, BYTES, "eth 0", 4, ST_NO_INSTANCE, 0 },
	{ &test_set, BYTES, "new one", 5, ST_NEW, 0 },
	{ &test_set, QUEUE, "bad\xff", 6, ST_NEW, 7 },
};

static const struct frame two_frames[] = {
	{ .wall_ns = WALL0, .host = "fixture", .index = 1, .nrows = ARRAY_SIZE(rows1), .rows = rows1 },
	{ .wall_ns = WALL0 + 1500000000LL, .host = "fixture", .index = 2,
	  .nrows = ARRAY_SIZE(rows2), .rows = rows2 },
};

/* Render frames through output o with opts into a malloc'd buffer. */
static char *
render(const struct output *o, const struct output_opts *opts, const struct frame *frames,
       size_t n, size_t *len)
{
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, len);
	struct err err = { { 0 } };
	void *st;

	assert_non_null(mem);
	st = o->open(mem, opts, &err);
	assert_non_null(st);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(o->write(st, &frames[i], &err), 0);
	assert_int_equal(o->close(st, &err), 0);
	assert_int_equal(fclose(mem), 0);
	return buf;
}

/* Fail unless buf equals expected/name byte for byte. */
static void
compare_expected(const char *name, const char *buf, size_t len)
{
	char path[256], actual[256];
	char *want = NULL;
	size_t wlen = 0, at = 0;
	FILE *f;

	snprintf(path, sizeof(path), "expected/%s", name);
	f = fopen(path, "rb");
	if (f) {
		want = malloc(1 << 16);
		assert_non_null(want);
		wlen = fread(want, 1, 1 << 16, f);
		fclose(f);
	}
	if (want && wlen == len && memcmp(want, buf, len) == 0) {
		free(want);
		return;
	}
	while (want && at < len && at < wlen && want[at] == buf[at])
		at++;
	snprintf(actual, sizeof(actual), "/tmp/getcounter-%s.actual", name);
	f = fopen(actual, "wb");
	if (f) {
		fwrite(buf, 1, len, f);
		fclose(f);
	}
	free(want);
	fail_msg("%s differs from %s at byte %zu (actual output in %s)", name, path, at, actual);
}

/* Render and compare with an expected file. */
static void
check_render(const struct output *o, const struct output_opts *opts, const struct frame *frames,
	     size_t n, const char *name)
{
	size_t len;
	char *buf = render(o, opts, frames, n, &len);

	compare_expected(name, buf, len);
	free(buf);
}

static const struct output_opts defaults = { .precision = -1 };

static int
setup_utc(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	setlocale(LC_ALL, "C");
	return 0;
}

/* csv: quoted cells, CRLF, first frame's columns, " " when missing. */
static void
test_csv(void **state)
{
	struct output_opts two = { .precision = 2 };

	(void)state;
	check_render(&output_csv, &defaults, two_frames, 2, "two_frames.csv");
	check_render(&output_csv, &two, two_frames, 2, "precision2.csv");
}

/* tsv: the same with tabs and PDH-TSV 4.0. */
static void
test_tsv(void **state)
{
	(void)state;
	check_render(&output_tsv, &defaults, two_frames, 2, "two_frames.tsv");
}

/* The zone in the header and the times follow TZ, or UTC with opts->utc. */
static void
test_csv_zone(void **state)
{
	struct output_opts utc = { .precision = -1, .utc = 1 };
	size_t len;
	char *buf;

	(void)state;
	/* POSIX TZ "XXX-1": one hour east of UTC, so bias = -60 minutes and
	 * 22:13:20.123 UTC is 23:13:20.123 local. */
	setenv("TZ", "XXX-1", 1);
	tzset();
	buf = render(&output_csv, &defaults, two_frames, 1, &len);
	assert_true(strncmp(buf, "\"(PDH-CSV 4.0) (XXX)(-60)\",", 27) == 0);
	assert_non_null(strstr(buf, "\r\n\"11/14/2023 23:13:20.123\",\"1536.500000\","));
	free(buf);
	buf = render(&output_csv, &utc, two_frames, 1, &len);
	assert_true(strncmp(buf, "\"(PDH-CSV 4.0) (UTC)(0)\",", 25) == 0);
	assert_non_null(strstr(buf, "\r\n\"11/14/2023 22:13:20.123\","));
	free(buf);
	buf = render(&output_json, &defaults, two_frames, 1, &len);
	assert_true(strncmp(buf, "{\"timestamp\": \"2023-11-14T23:13:20.123+01:00\"", 45) == 0);
	free(buf);
	setup_utc(NULL);
}

/* Run python3 on file with a check script; 0 when it passes, -1 when no
 * python3, else the exit status. */
static int
run_python(const char *script, const char *file)
{
	char cmd[4096];
	int rc;

	if (system("command -v python3 >/dev/null 2>&1") != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "python3 -c '%s' %s", script, file);
	rc = system(cmd);
	return rc == 0 ? 0 : (rc < 0 ? 1 : rc);
}

/* json: NDJSON, escaped strings, null values, shortest numbers. */
static void
test_json(void **state)
{
	struct output_opts three = { .precision = 3 };
	/* Each line parses, no NaN/Infinity constant, and the odd names decode
	 * back to the bytes the rows carry. */
	static const char script[] =
		"import json, sys\n"
		"def bad(c): sys.exit(\"constant \" + c)\n"
		"lines = open(sys.argv[1], encoding=\"utf-8\").read().split(\"\\n\")\n"
		"assert lines[-1] == \"\" and len(lines) == 3\n"
		"a, b = [json.loads(l, parse_constant=bad) for l in lines[:2]]\n"
		"s = a[\"samples\"]\n"
		"assert s[0][\"instance\"] == \"a \\\"quoted\\\" name\"\n"
		"assert s[1][\"path\"] == \"\\\\\\\\fixture\\\\Test Set(back\\\\slash (x))"
		"\\\\Queue Length\"\n"
		"assert s[2][\"instance\"] == \"caf\\u00e9 \\u0001ctl\"\n"
		"assert s[2][\"value\"] is None and s[2][\"status\"] == \"FIRST\"\n"
		"assert s[3][\"instance\"] is None and s[3][\"value\"] == 12345.25\n"
		"assert s[4][\"value\"] == 1000000.125 and s[4][\"status\"] == \"WRAPPED\"\n"
		"t = b[\"samples\"]\n"
		"assert t[0][\"value\"] == 1 / 3\n"
		"assert t[5][\"instance\"] == \"bad\\ufffd\"\n";
	char tmp[] = "/tmp/getcounter-json-XXXXXX";
	size_t len;
	char *buf;
	FILE *f;
	int fd, rc;

	(void)state;
	check_render(&output_json, &defaults, two_frames, 2, "two_frames.json");
	check_render(&output_json, &three, two_frames, 2, "precision3.json");

	buf = render(&output_json, &defaults, two_frames, 2, &len);
	assert_null(strstr(buf, "nan"));
	assert_null(strstr(buf, "inf"));
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
	free(buf);
	rc = run_python(script, tmp);
	unlink(tmp);
	if (rc < 0)
		print_message("python3 not found: json checked against the expected file only\n");
	else
		assert_int_equal(rc, 0);
}

/* A value that is not finite is never written as NaN or Inf. */
static void
test_json_not_finite(void **state)
{
	struct frame_row rows[2] = { rows1[0], rows1[3] };
	struct frame f = { .wall_ns = WALL0, .host = "fixture", .index = 1, .nrows = 2, .rows = rows };
	size_t len;
	char *buf;

	(void)state;
	rows[0].value = INFINITY;
	rows[1].value = NAN;
	buf = render(&output_json, &defaults, &f, 1, &len);
	assert_non_null(strstr(buf, "Bytes/sec\", \"value\": null, \"status\": \"OK\"}"));
	assert_non_null(strstr(buf, "Uptime\", \"value\": null, \"status\": \"OK\"}"));
	free(buf);
}

/* Names of locales with a decimal comma to try. */
static const char *const comma_locales[] = {
	"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8",
};

/* Under a decimal-comma LC_NUMERIC every format still writes a '.'. */
static void
test_comma_locale(void **state)
{
	const char *found = NULL;
	struct output_opts two = { .precision = 2 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(comma_locales) && !found; i++)
		if (setlocale(LC_NUMERIC, comma_locales[i]) &&
		    strcmp(localeconv()->decimal_point, ",") == 0)
			found = comma_locales[i];
	if (!found) {
		setlocale(LC_ALL, "C");
		print_message("no decimal-comma locale installed (de_DE.UTF-8): skipped\n");
		skip();
	}
	check_render(&output_csv, &defaults, two_frames, 2, "two_frames.csv");
	check_render(&output_csv, &two, two_frames, 2, "precision2.csv");
	check_render(&output_tsv, &defaults, two_frames, 2, "two_frames.tsv");
	check_render(&output_json, &defaults, two_frames, 2, "two_frames.json");
	check_render(&output_json, &(struct output_opts){ .precision = 3 }, two_frames, 2,
		     "precision3.json");
	check_render(&output_list, &(struct output_opts){ .precision = -1, .summary = 1 },
		     two_frames, 2, "list.txt");
	check_render(&output_table, &(struct output_opts){ .precision = -1, .summary = 1 },
		     two_frames, 2, "table_line.txt");
	setlocale(LC_ALL, "C");
}

/* table, not a terminal (width 0): the rows fit 160 columns, so one line
 * per sample; the rows change in frame 2, so the header is printed again;
 * the summary lists every column seen (block form: the columns changed). */
static void
test_table_line(void **state)
{
	(void)state;
	check_render(&output_table, &(struct output_opts){ .precision = -1, .summary = 1 },
		     two_frames, 2, "table_line.txt");
}

/* table on an 80-column terminal: the same rows do not fit (116 columns),
 * so one block per sample with units and status words; then precision 4. */
static void
test_table_block(void **state)
{
	(void)state;
	check_render(&output_table,
		     &(struct output_opts){ .precision = -1, .width = 80, .summary = 1 },
		     two_frames, 2, "table_block.txt");
	check_render(&output_table, &(struct output_opts){ .precision = 4, .width = 80 },
		     two_frames, 2, "table_precision.txt");
}

/* The one-line width is 116 columns: 116 fits a 116-column terminal, not
 * a 115-column one. */
static void
test_table_width_edge(void **state)
{
	size_t len;
	char *buf;

	(void)state;
	/* Two sets in the frame, so names carry the set: 8 (time) + 2+35
	 * "Test Set(a "quoted" name) Bytes/sec" + 2+37 "Test Set(back\slash
	 * (x)) Queue Length" + 2+29 "Test Set(café ?ctl) Bytes/sec" + 2+12
	 * ("Solo Uptime" is 11; the value "12345.25 s" takes 10 + 1 + 1) +
	 * 2+25 "Test Set(eth 0) Bytes/sec" = 156. */
	buf = render(&output_table, &(struct output_opts){ .precision = -1, .width = 156 },
		     two_frames, 1, &len);
	assert_true(strncmp(buf, "Time      ", 10) == 0);
	free(buf);
	buf = render(&output_table, &(struct output_opts){ .precision = -1, .width = 155 },
		     two_frames, 1, &len);
	assert_true(strncmp(buf, "2023-11-14 22:13:20\n", 20) == 0);
	free(buf);
}

/* Fail when a line of buf ends in a space. */
static void
assert_no_trailing_space(const char *buf)
{
	for (const char *p = buf; (p = strchr(p, '\n')); p++)
		if (p > buf && p[-1] == ' ')
			fail_msg("a line ends in a space before byte %zu", (size_t)(p - buf));
}

/* No line of the table ends in padding, even for a value without a unit
 * and without a status word beside rows that have units. */
static void
test_table_no_trailing_space(void **state)
{
	struct frame_row rows[2] = { rows1[0], rows1[1] };
	struct frame f = { .wall_ns = WALL0, .host = "fixture", .index = 1, .nrows = 2, .rows = rows };
	static const int widths[] = { 0, 1, 80 };
	size_t len;
	char *buf;

	(void)state;
	rows[0].status = ST_NEW; /* missing, "-" */
	rows[1].status = ST_OK;  /* "3.00", no unit, no status */
	for (size_t i = 0; i < ARRAY_SIZE(widths); i++) {
		struct output_opts o = { .precision = -1, .width = widths[i], .summary = 1 };

		buf = render(&output_table, &o, &f, 1, &len);
		assert_no_trailing_space(buf);
		free(buf);
		buf = render(&output_table, &o, two_frames, 2, &len);
		assert_no_trailing_space(buf);
		free(buf);
	}
	/* Width 1: a block, whose Queue Length line (the longer path) ends in
	 * its value: 2 spaces, then "3.00" right-aligned in 10 columns. */
	buf = render(&output_table, &(struct output_opts){ .precision = -1, .width = 1 }, &f, 1,
		     &len);
	assert_non_null(strstr(buf, "\\Queue Length        3.00\n"));
	free(buf);
}

/* 22 samples of the same two rows: the header comes again after 20 lines,
 * and the summary is sar's Minimum:/Average:/Maximum: lines under the
 * columns. Values: row 0 = 1000 + 10.5 i, row 1 = 100 + i, i = 0..21, so
 * row 0 min 1000, avg 1000 + 10.5 x 10.5 = 1110.25, max 1220.5; row 1 min
 * 100, avg 110.5, max 121. */
static void
test_table_repeat(void **state)
{
	struct frame_row rows[22][2];
	struct frame frames[22];

	(void)state;
	for (int i = 0; i < 22; i++) {
		rows[i][0] = rows1[0];
		rows[i][0].value = 1000 + 10.5 * i;
		rows[i][1] = rows1[3];
		rows[i][1].value = 100 + i;
		frames[i] = (struct frame){ .wall_ns = WALL0 + i * 1000000000LL, .host = "fixture",
					    .index = (uint64_t)i + 1, .nrows = 2, .rows = rows[i] };
	}
	check_render(&output_table, &(struct output_opts){ .precision = -1, .summary = 1 }, frames,
		     22, "table_repeat.txt");
}

/* list: Get-Counter's layout, the status word for a missing value. */
static void
test_list(void **state)
{
	(void)state;
	check_render(&output_list, &(struct output_opts){ .precision = -1, .summary = 1 },
		     two_frames, 2, "list.txt");
}

/* Every output reports a failed write (a full disk) instead of losing it. */
static void
test_write_error(void **state)
{
	/* and a frame whose line is longer than stdio's buffer: written by
	 * its own fwrite, which fails before the flush */
	static struct frame_row many[400];
	for (size_t k = 0; k < ARRAY_SIZE(many); k++) {
		many[k] = rows1[0];
		many[k].column = (uint32_t)k;
	}
	const struct frame big = { .wall_ns = WALL0, .host = "fixture", .index = 1,
				   .nrows = ARRAY_SIZE(many), .rows = many };
	const struct frame *frames[] = { &two_frames[0], &big };

	(void)state;
	for (size_t i = 0; i < noutputs; i++)
		for (size_t k = 0; k < ARRAY_SIZE(frames); k++) {
			const struct output *o = outputs[i];
			FILE *full = fopen("/dev/full", "w");
			struct err err = { { 0 } };
			void *st;

			if (!full)
				skip();
			st = o->open(full, &defaults, &err);
			assert_non_null(st);
			assert_int_equal(o->write(st, frames[k], &err), -1);
			/* the reason; the engine adds which file (test_errors.sh) */
			if (!strstr(err.msg, "No space left on device"))
				fail_msg("%s, frame %zu: %s", o->name, k, err.msg);
			o->close(st, &err);
			fclose(full);
		}
}

/* A csv line of 20,000 columns goes out in parts
 * (csv.c's LINE_PART): the same line as one written at once would be,
 * every cell in its place, one CRLF at its end. */
static void
test_csv_long_line(void **state)
{
	enum { N = 20000 };
	static struct frame_row many[N];
	char *buf, *line, *save = NULL;
	size_t len = 0, cells = 0;

	(void)state;
	for (size_t k = 0; k < N; k++) {
		many[k] = rows1[0];
		many[k].column = (uint32_t)k;
		many[k].value = (double)k;
	}
	const struct frame big = { .wall_ns = WALL0, .host = "fixture", .index = 1, .nrows = N,
				   .rows = many };
	buf = render(&output_csv, &defaults, &big, 1, &len);
	/* the values alone: ,"k.000000" is k's digits + 10 bytes: 10 x 11 +
	 * 90 x 12 + 900 x 13 + 9,000 x 14 + 10,000 x 15 = 288,890 bytes,
	 * more than four parts of 64 KiB (262,144) */
	assert_true(len > 288890 && 288890 > 4 * 64 * 1024);
	/* the header, then the values line, each ending in CRLF */
	line = strstr(buf, "\r\n");
	assert_non_null(line);
	line += 2;
	assert_true(len >= 2 && buf[len - 2] == '\r' && buf[len - 1] == '\n');
	assert_null(memchr(line, '\n', (size_t)(buf + len - 1 - line)));
	buf[len - 2] = '\0';
	for (char *cell = strtok_r(line, ",", &save); cell; cell = strtok_r(NULL, ",", &save)) {
		if (cells > 0) { /* after the time: "k.000000" */
			char want[32];
			snprintf(want, sizeof(want), "\"%zu.000000\"", cells - 1);
			if (strcmp(cell, want) != 0)
				fail_msg("cell %zu: %s, not %s", cells, cell, want);
		}
		cells++;
	}
	assert_int_equal(cells, N + 1);
	free(buf);
}

/* The table of outputs: every name found, case-insensitively. */
static void
test_output_find(void **state)
{
	(void)state;
	assert_ptr_equal(output_find("table"), &output_table);
	assert_ptr_equal(output_find("LIST"), &output_list);
	assert_ptr_equal(output_find("Csv"), &output_csv);
	assert_ptr_equal(output_find("tsv"), &output_tsv);
	assert_ptr_equal(output_find("json"), &output_json);
	assert_null(output_find("xml"));
}

/* The helpers the formats share. */
static void
test_helpers(void **state)
{
	char buf[64];

	(void)state;
	format_value_human(buf, sizeof(buf), 3, -1); /* integral but small */
	assert_string_equal(buf, "3.00");
	format_value_human(buf, sizeof(buf), 1234, -1); /* 2 decimals from 1 up */
	assert_string_equal(buf, "1234.00");
	format_value_human(buf, sizeof(buf), 0.0015, -1); /* 3 significant below 1 */
	assert_string_equal(buf, "0.0015");
	format_value_human(buf, sizeof(buf), 0.25, -1); /* ... at least 2 decimals */
	assert_string_equal(buf, "0.25");
	format_value_human(buf, sizeof(buf), 0, -1);
	assert_string_equal(buf, "0.00");
	format_value_human(buf, sizeof(buf), 1234.5678, -1);
	assert_string_equal(buf, "1234.57");
	format_value_human(buf, sizeof(buf), 1234, 1);
	assert_string_equal(buf, "1234.0");
	format_double(buf, sizeof(buf), 0.1, -1);
	assert_string_equal(buf, "0.1");
	format_double(buf, sizeof(buf), 1.0 / 3.0, -1); /* needs 16 digits */
	assert_string_equal(buf, "0.3333333333333333");
	format_double(buf, sizeof(buf), 0.1 + 0.2, -1); /* needs 17 digits */
	assert_string_equal(buf, "0.30000000000000004");
	{
		/* put_text: C0 controls and DEL as '?', the rest as is */
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		assert_non_null(m);
		put_text(m, "\ta\x01" "b\x7f" "caf\xc3\xa9\n");
		put_text(m, "");
		put_text(m, "plain");
		fclose(m);
		assert_string_equal(text, "?a?b?caf\xc3\xa9?plain");
		free(text);
	}
	{
		/* row_short_name: snprintf's text at every size, cut short or not */
		const struct counter_set set = { .name = "PhysicalDisk" };
		const struct counter_desc ctr = { .name = "Disk Reads/sec" };
		for (int shape = 0; shape < 4; shape++) {
			struct frame_row r = { .set = &set, .counter = &ctr,
					       .instance = shape & 1 ? "vda" : NULL };
			int with_set = shape >> 1;
			for (size_t n = 1; n <= 40; n++) {
				char want[64], got[64];
				if (with_set && r.instance)
					snprintf(want, n, "%s(%s) %s", set.name, r.instance, ctr.name);
				else if (with_set)
					snprintf(want, n, "%s %s", set.name, ctr.name);
				else if (r.instance)
					snprintf(want, n, "%s %s", r.instance, ctr.name);
				else
					snprintf(want, n, "%s", ctr.name);
				row_short_name(got, n, &r, with_set);
				assert_string_equal(got, want);
			}
		}
	}
	assert_int_equal(text_columns("caf\xc3\xa9"), 4);
	assert_int_equal(text_columns("bad\xff"), 4);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xed\xa0\x80"), 0); /* surrogate */
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xc0\xaf"), 0);	  /* overlong */
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xf0\x9f\x98\x80"), 4);
}

/* format_double with a precision gives exactly printf's "%.*f" (the C
 * locale here), whether its fast path or printf made it: halves that are
 * ties in binary (2.5, 0.125), halves that are not (0.0000005 is just
 * below), negatives, -0, the 2^43 edge, and a million pseudo-random values
 * over 24 orders of magnitude at precisions 0 to 9. */
static void
test_format_fixed(void **state)
{
	static const double edges[] = { 0, -0.0, 0.5, 1.5, 2.5, 0.125, 0.375, 1e-7, 5e-7,
					0.0000005, 0.0000015, 0.0000025, 2.675, 1.005, 123.4565,
					-0.4, -1e-9, -2.5, 8796093.022208, 8796093022207.9,
					8796093022208.5, 1e15, 4294967295.0, 0.999999949999,
					0.9999995, 99.99999999 };
	char got[64], want[64];
	uint64_t x = 88172645463325252ULL;

	(void)state;
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		for (int p = 0; p <= 12; p++) {
			format_double(got, sizeof(got), edges[i], p);
			snprintf(want, sizeof(want), "%.*f", p, edges[i]);
			if (strcmp(got, want) != 0)
				fail_msg("%.17g at %d: got %s, printf %s", edges[i], p, got, want);
		}
	}
	for (int k = 0; k < 1000000; k++) {
		double v;
		int p;

		x ^= x << 13; /* xorshift64 */
		x ^= x >> 7;
		x ^= x << 17;
		v = (double)(x >> 11) / 9007199254740992.0 * pow(10, (double)(x % 24) - 10);
		p = (int)((x >> 5) % 10);
		format_double(got, sizeof(got), v, p);
		snprintf(want, sizeof(want), "%.*f", p, v);
		if (strcmp(got, want) != 0)
			fail_msg("%.17g at %d: got %s, printf %s", v, p, got, want);
	}
}

/* The search format_double made for the shortest text that reads back
 * (precision -1) before it had a faster way: "%.Pf" for P from 0 to 20,
 * then "%.Pg", each read back with strtod. The reference the faster way
 * must give byte for byte (the C locale here). */
static void
shortest_by_search(char *buf, size_t n, double v)
{
	char tmp[64];
	int found = 0;

	snprintf(buf, n, "%.17g", v);
	if (fabs(v) < 1e15 && (v == 0 || fabs(v) >= 1e-5)) {
		for (int prec = 0; prec <= 20 && !found; prec++) {
			snprintf(tmp, sizeof(tmp), "%.*f", prec, v);
			found = strtod(tmp, NULL) == v;
		}
	}
	for (int prec = 1; prec < 17 && !found; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		found = strtod(tmp, NULL) == v;
	}
	if (found)
		snprintf(buf, n, "%s", tmp);
}

/* format_double's shortest text (precision -1) is the search's: exact
 * halves at some precision (0.125, 2.5), carries (9.96, 99.999...),
 * 15, 16 and 17 significant digits, -0, negatives, both ends of the plain
 * range (1e-5, 1e15) and past them, and a million pseudo-random values:
 * ratios of small integers (the rates and percentages counters make) and
 * random bits over 22 orders of magnitude. */
static void
test_format_shortest(void **state)
{
	static const double edges[] = { 0, -0.0, 0.5, 1.5, 2.5, 0.125, -0.125, 0.375, 9.96,
					9.5, 99.99999999999999, 999999999999999.9, 1e15,
					999999999999999.0, 1e-5, 0.00001, 9.999999999999999e-6,
					1.2345678901234567e-5, 0.1, 0.2, 0.3, 0.1 + 0.2,
					1.0 / 3.0, 2.0 / 3.0, 100.0 / 7.0, 4294967295.0,
					18446744073709551616.0, 123456789012.34567, -7.25,
					5e-324, 1.7976931348623157e308, 0.30000000000000004,
					12345.678901234567, 0.000123456789 };
	char got[64], want[64];
	uint64_t x = 0x9E3779B97F4A7C15ULL;

	(void)state;
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		format_double(got, sizeof(got), edges[i], -1);
		shortest_by_search(want, sizeof(want), edges[i]);
		if (strcmp(got, want) != 0)
			fail_msg("%.17g: got %s, the search %s", edges[i], got, want);
	}
	for (int k = 0; k < 1000000; k++) {
		double v;

		x ^= x << 13; /* xorshift64 */
		x ^= x >> 7;
		x ^= x << 17;
		if (k & 1)
			v = (double)(x % 100000) / (double)((x >> 20) % 9999 + 1) *
			    pow(10, (double)((x >> 40) % 9) - 3);
		else
			v = (double)(x >> 11) / 9007199254740992.0 * pow(10, (double)(x % 22) - 7);
		if (x >> 63)
			v = -v;
		format_double(got, sizeof(got), v, -1);
		shortest_by_search(want, sizeof(want), v);
		if (strcmp(got, want) != 0)
			fail_msg("%.17g: got %s, the search %s", v, got, want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_csv, setup_utc),
		cmocka_unit_test_setup(test_tsv, setup_utc),
		cmocka_unit_test_setup(test_csv_zone, setup_utc),
		cmocka_unit_test_setup(test_json, setup_utc),
		cmocka_unit_test_setup(test_json_not_finite, setup_utc),
		cmocka_unit_test_setup(test_comma_locale, setup_utc),
		cmocka_unit_test_setup(test_table_line, setup_utc),
		cmocka_unit_test_setup(test_table_block, setup_utc),
		cmocka_unit_test_setup(test_table_width_edge, setup_utc),
		cmocka_unit_test_setup(test_table_no_trailing_space, setup_utc),
		cmocka_unit_test_setup(test_table_repeat, setup_utc),
		cmocka_unit_test_setup(test_list, setup_utc),
		cmocka_unit_test_setup(test_write_error, setup_utc),
		cmocka_unit_test_setup(test_csv_long_line, setup_utc),
		cmocka_unit_test(test_output_find),
		cmocka_unit_test_setup(test_helpers, setup_utc),
		cmocka_unit_test(test_format_fixed),
		cmocka_unit_test(test_format_shortest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
