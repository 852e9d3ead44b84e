/*
 * cli.c - the option table. Hand-written rather than getopt, which reads
 * "-cf F" as "-c f" and "-ListSet" as "-l istSet". Long options match whole
 * ("--name value" or "--name=value"); a single-dash word is first matched
 * whole, case-insensitively, against the Windows spellings, and otherwise is
 * one short option (case-sensitive) with its argument attached or next.
 */
#include <errno.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli.h"
#include "replay.h"

enum opt_id {
	O_COUNTER,
	O_COUNTER_FILE,
	O_INTERVAL,
	O_SAMPLES,
	O_CONTINUOUS,
	O_FORMAT,
	O_OUTPUT,
	O_PRECISION,
	O_LIST_SET,
	O_QUERY,
	O_QUERY_INSTANCES,
	O_INSTANCES,
	O_ROOT,
	O_VERBOSE,
	O_HELP,
	O_VERSION,
	O_YES,
	O_UTC,
	O_LOG,
	O_INPUT,
	O_BEGIN,
	O_END,
	O_EVERY,
	O_SUMMARY,
	O_MAX_SIZE,
	O_CIRCULAR,
	O_APPEND,
	O_SERVE,
	O_SERVE_MAX_REQUESTS,
	O_TUI,
	O_ASCII,
	O_NO_COLOR,
	O_PCAP,
	O_LOCAL_MAC,
	O_CAPTURE_FILTER,
	O_SNAPLEN,
	O_CAPTURE_BUFFER,
	O_PROMISC,
	O_USER,
	O_TLS_CERT,
	O_TLS_KEY,
	O_TLS_CLIENT_CA,
	O_BASIC_AUTH,
	O_PROMETHEUS_RULES,
	O_SMOOTH,
};

struct option_spec {
	enum opt_id id;
	char short_name;         /* 0 for none */
	const char *long_name;   /* without "--", or NULL */
	const char *windows[3];  /* single-dash spellings, case-insensitive */
	int takes_arg;
};

static const struct option_spec options[] = {
	{ O_COUNTER, 'c', "counter", { "Counter" }, 1 },
	{ O_COUNTER_FILE, 0, "counter-file", { "cf" }, 1 },
	{ O_INTERVAL, 'i', "interval", { "SampleInterval", "si" }, 1 },
	{ O_SAMPLES, 'n', "samples", { "MaxSamples", "sc" }, 1 },
	{ O_CONTINUOUS, 0, "continuous", { "Continuous" }, 0 },
	{ O_FORMAT, 'f', "format", { "f" }, 1 },
	{ O_OUTPUT, 'o', "output", { "o" }, 1 },
	{ O_PRECISION, 0, "precision", { 0 }, 1 },
	{ O_SMOOTH, 0, "smooth", { 0 }, 1 },
	{ O_LIST_SET, 'l', "list-set", { "ListSet" }, 0 },
	{ O_QUERY, 'q', NULL, { "q" }, 0 },
	{ O_QUERY_INSTANCES, 0, NULL, { "qx" }, 0 },
	{ O_INSTANCES, 'x', "instances", { 0 }, 0 },
	{ O_ROOT, 0, "root", { 0 }, 1 },
	{ O_VERBOSE, 'v', "verbose", { 0 }, 0 },
	{ O_HELP, 'h', "help", { "?" }, 0 },
	{ O_VERSION, 'V', "version", { 0 }, 0 },
	{ O_YES, 'y', "yes", { "y" }, 0 },
	{ O_UTC, 0, "utc", { 0 }, 0 },
	{ O_LOG, 0, "log", { 0 }, 1 },
	{ O_INPUT, 0, "input", { 0 }, 1 },
	{ O_BEGIN, 0, "begin", { 0 }, 1 },
	{ O_END, 0, "end", { 0 }, 1 },
	{ O_EVERY, 0, "every", { 0 }, 1 },
	{ O_SUMMARY, 0, "summary", { 0 }, 0 },
	{ O_MAX_SIZE, 0, "max-size", { 0 }, 1 },
	{ O_CIRCULAR, 0, "circular", { 0 }, 0 },
	{ O_APPEND, 0, "append", { 0 }, 0 },
	{ O_SERVE, 0, "serve", { 0 }, 1 },
	{ O_SERVE_MAX_REQUESTS, 0, "serve-max-requests", { 0 }, 1 },
	{ O_TUI, 0, "tui", { 0 }, 0 },
	{ O_ASCII, 0, "ascii", { 0 }, 0 },
	{ O_NO_COLOR, 0, "no-color", { 0 }, 0 },
	{ O_PCAP, 0, "pcap", { 0 }, 1 },
	{ O_LOCAL_MAC, 0, "local-mac", { 0 }, 1 },
	{ O_CAPTURE_FILTER, 0, "capture-filter", { 0 }, 1 },
	{ O_SNAPLEN, 0, "snaplen", { 0 }, 1 },
	{ O_CAPTURE_BUFFER, 0, "capture-buffer", { 0 }, 1 },
	{ O_PROMISC, 0, "promisc", { 0 }, 0 },
	{ O_USER, 0, "user", { 0 }, 1 },
	{ O_TLS_CERT, 0, "tls-cert", { 0 }, 1 },
	{ O_TLS_KEY, 0, "tls-key", { 0 }, 1 },
	{ O_TLS_CLIENT_CA, 0, "tls-client-ca", { 0 }, 1 },
	{ O_BASIC_AUTH, 0, "basic-auth", { 0 }, 1 },
	{ O_PROMETHEUS_RULES, 0, "prometheus-rules", { 0 }, 0 },
};

void
cli_usage(FILE *out)
{
	fputs("usage: getcounter [OPTIONS] [PATH...]\n"
	      "Read Linux counters (processor, memory, disk, network), sample them and print\n"
	      "derived values, like Get-Counter and typeperf.\n"
	      "\n"
	      "  -c, --counter PATH       a counter path (repeatable; a bare PATH works too)\n"
	      "      --counter-file FILE  one path per line; blank lines and # comments ignored\n"
	      "  -i, --interval SECONDS   sample interval, at least 0.01 (or [[hh:]mm:]ss);\n"
	      "                           default 1\n"
	      "  -n, --samples N          number of samples to print; default 1\n"
	      "      --continuous         sample until interrupted (SIGINT or SIGTERM)\n"
	      "  -f, --format FORMAT      table (default), list, csv, tsv, json, gcl (binary\n"
	      "                           log; BIN too); -o NAME.gcl (.blg), .csv, .tsv or\n"
	      "                           .json implies the format\n"
	      "  -o, --output FILE        write to FILE instead of standard output\n"
	      "  -y, --yes                replace a non-empty output or log file\n"
	      "      --log FILE           also record the raw samples to FILE (.gcl)\n"
	      "      --max-size SIZE      stop a log at SIZE bytes (K, M, G suffixes)\n"
	      "      --circular           with --max-size: a ring that overwrites the oldest\n"
	      "                           samples\n"
	      "      --append             continue a gcl log after its last good record\n"
	      "      --input FILE         replay a gcl log as the source (repeatable: merged\n"
	      "                           in time; - is standard input)\n"
	      "      --begin TIME         with --input: from TIME (2026-11-22T10:00:00 or\n"
	      "                           11/22/2026 10:00:00)\n"
	      "      --end TIME           with --input: up to TIME\n"
	      "      --every N            with --input: every Nth sample, derived over the span\n"
	      "      --summary            with --input: what the logs hold, and any damage\n"
	      "      --serve [ADDR:]PORT  serve the raw fields of PATHS (default all sets) to\n"
	      "                           Prometheus at /metrics; PORT alone binds 127.0.0.1\n"
	      "      --serve-max-requests N  concurrent scrapes before 503 (default 8)\n"
	      "      --tui                the live screen: graph, histogram and report of\n"
	      "                           PATHS; records with --log, replays --input (? lists\n"
	      "                           the keys)\n"
	      "      --ascii              with --tui: an ASCII graph instead of braille\n"
	      "      --no-color           with --tui: no colour (also when NO_COLOR is set)\n"
	      "      --pcap FILE          count \\Network Capture(file:NAME) from a pcap or\n"
	      "                           pcapng file (- reads stdin), a sample per interval\n"
	      "                           of its time (repeatable)\n"
	      "      --local-mac MAC      with --pcap: Ethernet frames from MAC count as sent\n"
	      "      --capture-filter BPF only frames matching the filter (tcpdump syntax)\n"
	      "      --snaplen N          bytes kept of each live frame (default 128)\n"
	      "      --capture-buffer SIZE  live capture buffer (default 8M; K, M, G suffixes)\n"
	      "      --promisc            capture promiscuously: other hosts' frames count too\n"
	      "      --user NAME          run as NAME once capture is open (root: default\n"
	      "                           SUDO_UID, else nobody); every capability is dropped\n"
	      "      --tls-cert FILE      with --serve: serve https with this PEM certificate\n"
	      "      --tls-key FILE       with --tls-cert: its PEM private key\n"
	      "      --tls-client-ca FILE with --tls-cert: require client certificates signed\n"
	      "                           by this CA\n"
	      "      --basic-auth FILE    with --serve: require the password of a user:bcrypt\n"
	      "                           line of FILE (htpasswd -nBC 10 USER)\n"
	      "      --prometheus-rules   print Prometheus recording rules that derive the\n"
	      "                           counters of PATHS (default all) from --serve's series\n"
	      "      --precision N        decimals of values (csv/tsv default 6)\n"
	      "      --smooth C           show the load average (avg*C + x*(128-C))/128 of\n"
	      "                           each value instead (1 < C < 128; display only)\n"
	      "      --utc                show times in UTC\n"
	      "  -l, --list-set [PATTERN] counter sets matching PATTERN (default *)\n"
	      "  -q [PATTERN]             every counter path of the matching sets\n"
	      "  -x, --instances          with -q: one line per current instance\n"
	      "      --root DIR           read DIR/proc and DIR/sys; repeat for a series\n"
	      "  -v, --verbose            more detail (help texts with -l and -q)\n"
	      "  -h, --help               this text\n"
	      "  -V, --version            the version\n"
	      "\n"
	      "Windows spellings work too: -Counter, -SampleInterval, -MaxSamples, -Continuous,\n"
	      "-ListSet, and typeperf's -si, -sc, -cf, -q, -qx, -o, -f, -y.\n"
	      "\n"
	      "PATH is [\\\\HOST]\\Set(instance)\\Counter, case-insensitive, '*' a wildcard:\n"
	      "  getcounter '\\Processor(_Total)\\% Processor Time' -i 2 -n 5\n"
	      "  getcounter '\\Network Adapter(*)\\Bytes Total/sec' -f csv -o net.csv -n 60\n"
	      "  getcounter -l            (the counter sets)      getcounter -q PhysicalDisk\n"
	      "  getcounter -i 5 --continuous -o base.gcl;  getcounter --input base.gcl -f csv\n"
	      "\n"
	      "Exit status: 0 success, 1 runtime error, 2 usage error. See getcounter(1).\n",
	      out);
}

static void
push(char ***list, size_t *n, const char *s)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(char *));
	(*list)[(*n)++] = xstrdup(s);
}

/* Add a counter path; origin ("FILE:LINE") may be NULL. */
static void
push_path(struct config *cfg, const char *path, const char *origin)
{
	cfg->path_origins = xrealloc(cfg->path_origins, (cfg->npaths + 1) * sizeof(char *));
	cfg->path_origins[cfg->npaths] = origin ? xstrdup(origin) : NULL;
	push(&cfg->paths, &cfg->npaths, path);
}

void
config_free(struct config *cfg)
{
	for (size_t i = 0; i < cfg->npaths; i++) {
		free(cfg->paths[i]);
		free(cfg->path_origins[i]);
	}
	free(cfg->path_origins);
	for (size_t i = 0; i < cfg->npatterns; i++)
		free(cfg->patterns[i]);
	for (size_t i = 0; i < cfg->nroots; i++)
		free(cfg->roots[i]);
	for (size_t i = 0; i < cfg->ninputs; i++)
		free(cfg->inputs[i]);
	free(cfg->inputs);
	for (size_t i = 0; i < cfg->npcaps; i++)
		free(cfg->pcaps[i]);
	free(cfg->pcaps);
	free(cfg->paths);
	free(cfg->patterns);
	free(cfg->roots);
	memset(cfg, 0, sizeof(*cfg));
}

/* Seconds, fractional, or typeperf's [[hh:]mm:]ss. */
static int
parse_interval(const char *s, double *out, struct err *err)
{
	double parts[3] = { 0, 0, 0 };
	int n = 0;
	const char *p = s;

	for (;;) {
		char *end;
		if (n == 3 || *p == '\0' || *p == '-' || *p == '+' || *p == ' ')
			goto bad;
		errno = 0;
		parts[n] = strtod(p, &end);
		if (end == p || errno || !isfinite(parts[n]))
			goto bad;
		/* Only decimal digits and one '.': no hex, exponents or inf. */
		for (const char *q = p; q < end; q++)
			if (!((*q >= '0' && *q <= '9') || *q == '.'))
				goto bad;
		n++;
		if (*end == '\0')
			break;
		if (*end != ':')
			goto bad;
		p = end + 1;
	}
	/* in [[hh:]mm:]ss, minutes and seconds are below 60 */
	for (int k = 1; k < n; k++)
		if (parts[k] >= 60)
			goto bad;
	if (n == 1)
		*out = parts[0];
	else if (n == 2)
		*out = parts[0] * 60 + parts[1];
	else
		*out = parts[0] * 3600 + parts[1] * 60 + parts[2];
	if (!(*out >= 0.01))
		return err_set(err, "interval '%s' is too short: it must be at least 0.01 seconds", s);
	if (*out > 31 * 86400.0)
		return err_set(err, "interval '%s' is too long: at most 31 days", s);
	return 0;
bad:
	return err_set(err, "interval '%s' is not a number of seconds (like 1, 0.5 or 00:01:30)", s);
}

static int
parse_count(const char *opt, const char *s, long min, long *out, struct err *err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE && *end == '\0' && *s != '-')
		return err_set(err, "%s '%s' is too large", opt, s);
	if (*s == '\0' || *end != '\0' || errno || v < min || *s == '+' || *s == ' ')
		return err_set(err, "%s '%s' is not a whole number of at least %ld", opt, s, min);
	*out = v;
	return 0;
}

/* A size in bytes: digits with an optional K, M, G or T (powers of 1024),
 * optionally followed by B or iB. */
static int
parse_size(const char *opt, const char *s, uint64_t *out, struct err *err)
{
	const char *p = s;
	uint64_t v = 0, mul = 1;

	if (parse_u64(&p, &v) < 0 || v == UINT64_MAX)
		goto bad;
	switch (*p) {
	case 'k': case 'K': mul = 1ull << 10; p++; break;
	case 'm': case 'M': mul = 1ull << 20; p++; break;
	case 'g': case 'G': mul = 1ull << 30; p++; break;
	case 't': case 'T': mul = 1ull << 40; p++; break;
	default: break;
	}
	if (mul > 1 && (*p == 'i' || *p == 'I'))
		p++;
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p || v == 0)
		goto bad;
	if (v > UINT64_MAX / mul)
		return err_set(err, "%s '%s' is too large", opt, s);
	*out = v * mul;
	return 0;
bad:
	return err_set(err, "%s '%s' is not a size (like 500K, 10M or 1G)", opt, s);
}

static int
read_counter_file(struct config *cfg, const char *file, struct err *err)
{
	/* "-": standard input (typeperf -cf takes a file; a pipe is handy) */
	int in = strcmp(file, "-") == 0, fd = in ? dup(STDIN_FILENO) : -1;
	FILE *f = in ? (fd >= 0 ? fdopen(fd, "r") : NULL) : fopen(file, "r");
	char line[8192];
	unsigned lineno = 0;
	size_t total = 0, before = cfg->npaths;

	if (!f) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return err_set(err, "cannot read counter file %s: %s",
			       in ? "- (standard input)" : file, strerror(e));
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		char *s = line, *e = line + len;
		lineno++;
		total += len ? len : 1; /* a line of NULs still counts */
		if (total > 16u << 20 || lineno > 1000000) {
			fclose(f);
			return err_set(err, "%s: larger than 16 MiB: not a counter file", file);
		}
		if (len == sizeof(line) - 1 && e[-1] != '\n' && !feof(f)) {
			fclose(f);
			return err_set(err, "%s:%u: line too long (at most %zu characters)", file,
				       lineno, sizeof(line) - 2);
		}
		if (len == 0)
			continue;
		while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		/* a byte-order mark, as Windows editors write them */
		if (lineno == 1 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
			s += 3;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || *s == '#')
			continue;
		/* a control character is in no path: a binary file, named
		 * without echoing its bytes to the terminal */
		for (const char *c = s; *c; c++)
			if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f) {
				fclose(f);
				return err_set(err, "%s:%u: a control character (0x%02x): not a "
						    "counter file", file, lineno, (unsigned char)*c);
			}
		/* typeperf files may quote their paths */
		if (*s == '"' && e - s >= 2 && e[-1] == '"') {
			e[-1] = '\0';
			s++;
		}
		char origin[512];
		snprintf(origin, sizeof(origin), "%s:%u", file, lineno);
		push_path(cfg, s, origin);
		if (cfg->npaths > 100000) {
			fclose(f);
			return err_set(err, "%s: more than 100000 counter paths", file);
		}
	}
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		return err_set(err, "cannot read counter file %s: %s", file, strerror(e));
	}
	fclose(f);
	if (cfg->npaths == before)
		return err_set(err, "counter file %s has no counter paths (only blank lines "
				    "and # comments)", file);
	return 0;
}

/* The binary log is the format (-f gcl/BIN, or -o NAME.gcl). */
int
config_logs_to_output(const struct config *cfg)
{
	if (cfg->format)
		return strcasecmp(cfg->format, "gcl") == 0 || strcasecmp(cfg->format, "bin") == 0;
	if (cfg->output_file) {
		const char *dot = strrchr(cfg->output_file, '.');
		/* .blg: what typeperf -f BIN writes to; ours is gcl */
		return dot && (strcasecmp(dot, ".gcl") == 0 || strcasecmp(dot, ".blg") == 0);
	}
	return 0;
}

/* The options of recording and replaying that need each other. */
static int
cli_check_log_options(const struct config *cfg, struct err *err)
{
	int logs = cfg->log_file || config_logs_to_output(cfg);

	if (cfg->ninputs && cfg->nroots)
		return err_set(err, "--input and --root are both sources: give one");
	/* a log given twice would merge with itself: every row twice */
	for (size_t i = 0; i < cfg->ninputs; i++) {
		if (strcmp(cfg->inputs[i], "-") != 0)
			continue;
		if (cfg->counter_file_stdin)
			return err_set(err, "-cf - and --input - both read standard input: give one "
					    "of them a file");
		if (cfg->tui)
			return err_set(err, "--tui reads its keys from standard input: give --input "
					    "a file, not -");
		for (size_t j = 0; j < i; j++)
			if (strcmp(cfg->inputs[j], "-") == 0)
				return err_set(err, "--input - (standard input) is given twice: give "
						    "each log once");
	}
	for (size_t i = 1; i < cfg->ninputs; i++) {
		struct stat a, b;
		if (strcmp(cfg->inputs[i], "-") == 0 || stat(cfg->inputs[i], &a) < 0)
			continue; /* opening it says why */
		for (size_t j = 0; j < i; j++)
			if (stat(cfg->inputs[j], &b) == 0 && a.st_dev == b.st_dev &&
			    a.st_ino == b.st_ino)
				return err_set(err, "--input %s is the same file as --input %s: "
						    "give each log once",
					       cfg->inputs[i], cfg->inputs[j]);
	}
	if (cfg->serve && cfg->ninputs)
		return err_set(err, "--serve reads live counters at each scrape: it cannot serve "
				    "--input logs");
	if (cfg->serve_max_requests && !cfg->serve)
		return err_set(err, "--serve-max-requests goes with --serve");
	if (cfg->serve && (cfg->output_file || cfg->format))
		return err_set(err, "--serve answers over HTTP in the Prometheus format: %s does "
				    "not apply", cfg->output_file ? "-o" : "-f");
	if (cfg->serve && (cfg->samples_given || cfg->continuous || cfg->interval_given))
		return err_set(err, "--serve reads the counters at each scrape until stopped: %s "
				    "does not apply",
			       cfg->samples_given ? "-n" : cfg->continuous ? "--continuous" : "-i");
	if (cfg->summary && (cfg->format || cfg->output_file || cfg->begin || cfg->end ||
			     cfg->every || cfg->npaths))
		return err_set(err, "--summary describes the whole of the logs as text: %s does "
				    "not apply",
			       cfg->format ? "-f" : cfg->output_file ? "-o" : cfg->begin ? "--begin"
			       : cfg->end ? "--end" : cfg->every ? "--every" : "a counter path");
	if ((cfg->tls_cert || cfg->tls_key || cfg->tls_client_ca || cfg->basic_auth) &&
	    !cfg->serve)
		return err_set(err, "%s goes with --serve",
			       cfg->tls_cert ? "--tls-cert" : cfg->tls_key ? "--tls-key" :
			       cfg->tls_client_ca ? "--tls-client-ca" : "--basic-auth");
	if (!cfg->tls_cert != !cfg->tls_key)
		return err_set(err, "--tls-cert and --tls-key go together");
	if (cfg->tls_client_ca && !cfg->tls_cert)
		return err_set(err, "--tls-client-ca needs --tls-cert and --tls-key");
	if (cfg->prometheus_rules && (cfg->serve || cfg->ninputs))
		return err_set(err, "--prometheus-rules prints a file and exits: it goes with "
				    "neither --serve nor --input");
	if (cfg->ninputs && cfg->interval_given)
		return err_set(err, "-i has no meaning with --input: a log keeps its own times "
				    "(--every N keeps every Nth sample)");
	/* Each log derives against its own previous read; thinning a merge of
	 * logs would need each log's span since its last kept read, which the
	 * replay does not keep yet: refused rather than a wrong value. */
	if (cfg->ninputs > 1 && cfg->every > 1)
		return err_set(err, "--every works on one --input log: relog the logs into one "
				    "(-o merged.gcl) and thin that");
	if (cfg->ninputs && cfg->continuous)
		return err_set(err, "--continuous has no meaning with --input: a replay ends with "
				    "the log");
	if (!cfg->ninputs && (cfg->begin || cfg->end || cfg->every || cfg->summary))
		return err_set(err, "%s goes with --input (it cuts or describes a replayed log)",
			       cfg->begin ? "--begin" : cfg->end ? "--end" :
			       cfg->every ? "--every" : "--summary");
	if ((cfg->max_size || cfg->circular || cfg->append) && !logs)
		return err_set(err, "%s goes with a gcl log (--log FILE, or -o FILE.gcl / -f gcl)",
			       cfg->max_size ? "--max-size" : cfg->circular ? "--circular"
									  : "--append");
	if (cfg->circular && !cfg->max_size && !cfg->append)
		return err_set(err, "--circular needs --max-size SIZE (the size of the ring)");
	if (cfg->circular && cfg->max_size && cfg->max_size < 64 * 1024)
		return err_set(err, "--max-size %llu is too small for a circular log: give at least "
				    "64K", (unsigned long long)cfg->max_size);
	if (cfg->append && cfg->yes)
		return err_set(err, "--append and --yes contradict each other: --append keeps "
				    "the log, --yes replaces it");
	if (cfg->log_file && config_logs_to_output(cfg))
		return err_set(err, "--log records beside a display: with -f gcl or -o FILE.gcl the "
				    "output is already the log");
	if ((cfg->ascii || cfg->no_color) && !cfg->tui)
		return err_set(err, "%s goes with --tui", cfg->ascii ? "--ascii" : "--no-color");
	if (cfg->tui && (cfg->format || cfg->output_file || cfg->serve || cfg->summary))
		return err_set(err, "--tui is the display: %s does not apply to it (--log FILE "
				    "records beside it)", cfg->format ? "-f" : cfg->output_file ? "-o" :
				    cfg->serve ? "--serve" : "--summary");
	if (cfg->summary && (cfg->mode == MODE_LIST_SETS || cfg->mode == MODE_LIST_PATHS))
		return err_set(err, "--summary and -l/-q both list a log: give one");
	return 0;
}

static const struct option_spec *
find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(options); i++)
		if (options[i].long_name && strlen(options[i].long_name) == len &&
		    strncmp(options[i].long_name, name, len) == 0)
			return &options[i];
	return NULL;
}

static const struct option_spec *
find_windows(const char *word)
{
	for (size_t i = 0; i < ARRAY_SIZE(options); i++)
		for (int k = 0; k < 3 && options[i].windows[k]; k++)
			if (strcasecmp(options[i].windows[k], word) == 0)
				return &options[i];
	return NULL;
}

static const struct option_spec *
find_short(char c)
{
	for (size_t i = 0; i < ARRAY_SIZE(options); i++)
		if (options[i].short_name == c)
			return &options[i];
	return NULL;
}

static int
apply(struct config *cfg, const struct option_spec *o, const char *name, const char *arg,
      struct err *err)
{
	long v;

	switch (o->id) {
	case O_COUNTER:
		push_path(cfg, arg, NULL);
		break;
	case O_COUNTER_FILE:
		if (strcmp(arg, "-") == 0) {
			for (size_t i = 0; i < cfg->npcaps; i++)
				if (strcmp(cfg->pcaps[i], "-") == 0)
					return err_set(err, "-cf - and --pcap - both read standard "
							    "input: give one of them a file");
			for (size_t i = 0; i < cfg->ninputs; i++)
				if (strcmp(cfg->inputs[i], "-") == 0)
					return err_set(err, "-cf - and --input - both read standard "
							    "input: give one of them a file");
			cfg->counter_file_stdin = 1;
		}
		return read_counter_file(cfg, arg, err);
	case O_INTERVAL:
		cfg->interval_given = 1;
		return parse_interval(arg, &cfg->interval, err);
	case O_SAMPLES:
		if (parse_count(name, arg, 1, &v, err) < 0)
			return -1;
		cfg->samples = v;
		cfg->samples_given = 1;
		break;
	case O_CONTINUOUS:
		cfg->continuous = 1;
		break;
	case O_FORMAT:
		/* two different formats: one would be dropped without a word */
		if (cfg->format && strcasecmp(cfg->format, arg) != 0)
			return err_set(err, "-f is given twice (%s, %s): give one format",
				       cfg->format, arg);
		cfg->format = arg;
		break;
	case O_OUTPUT:
		cfg->output_file = arg;
		break;
	case O_PRECISION:
		if (parse_count(name, arg, 0, &v, err) < 0)
			return -1;
		if (v > 17)
			return err_set(err, "%s '%s' is too large: at most 17 decimals", name, arg);
		cfg->precision = (int)v;
		break;
	case O_SMOOTH:
		if (parse_count(name, arg, 0, &v, err) < 0)
			return -1;
		if (v < 2 || v > 127)
			return err_set(err, "%s '%s' is out of range: C is 2 to 127 (1 < C < 128)",
				       name, arg);
		cfg->smooth = (int)v;
		break;
	case O_LIST_SET:
		cfg->mode = MODE_LIST_SETS;
		break;
	case O_QUERY:
		cfg->mode = MODE_LIST_PATHS;
		break;
	case O_QUERY_INSTANCES:
		cfg->mode = MODE_LIST_PATHS;
		cfg->instances = 1;
		break;
	case O_INSTANCES:
		cfg->instances = 1;
		break;
	case O_ROOT:
		if (*arg == '\0')
			return err_set(err, "%s needs a directory", name);
		push(&cfg->roots, &cfg->nroots, arg);
		break;
	case O_VERBOSE:
		cfg->verbose++;
		break;
	case O_HELP:
		cfg->mode = MODE_HELP;
		break;
	case O_VERSION:
		cfg->mode = MODE_VERSION;
		break;
	case O_YES:
		cfg->yes = 1;
		break;
	case O_UTC:
		cfg->utc = 1;
		break;
	case O_LOG:
		if (*arg == '\0')
			return err_set(err, "%s needs a file name", name);
		cfg->log_file = arg;
		break;
	case O_INPUT:
		if (*arg == '\0')
			return err_set(err, "%s needs a file name", name);
		push(&cfg->inputs, &cfg->ninputs, arg);
		break;
	case O_BEGIN:
	case O_END:
		if (!replay_time_valid(arg))
			return err_set(err, "%s '%s' is not a time (2026-11-22T10:00:00, "
					    "2026-11-22 10:00:00Z or 11/22/2026 10:00:00 AM)", name, arg);
		if (o->id == O_BEGIN)
			cfg->begin = arg;
		else
			cfg->end = arg;
		break;
	case O_EVERY:
		if (parse_count(name, arg, 1, &v, err) < 0)
			return -1;
		if (v > 1000000000L)
			return err_set(err, "%s '%s' is too large", name, arg);
		cfg->every = (unsigned)v;
		break;
	case O_SUMMARY:
		cfg->summary = 1;
		break;
	case O_MAX_SIZE:
		return parse_size(name, arg, &cfg->max_size, err);
	case O_CIRCULAR:
		cfg->circular = 1;
		break;
	case O_APPEND:
		cfg->append = 1;
		break;
	case O_SERVE:
		if (*arg == '\0')
			return err_set(err, "%s needs [ADDR:]PORT", name);
		cfg->serve = arg;
		break;
	case O_SERVE_MAX_REQUESTS:
		if (parse_count(name, arg, 1, &v, err) < 0)
			return -1;
		if (v > 100000)
			return err_set(err, "%s '%s' is too large", name, arg);
		cfg->serve_max_requests = (unsigned)v;
		break;
	case O_TUI:
		cfg->tui = 1;
		break;
	case O_ASCII:
		cfg->ascii = 1;
		break;
	case O_NO_COLOR:
		cfg->no_color = 1;
		break;
	case O_PCAP:
		if (*arg == '\0')
			return err_set(err, "%s needs a file name", name);
		push(&cfg->pcaps, &cfg->npcaps, arg);
		break;
	case O_LOCAL_MAC:
		if (capture_parse_mac(arg, cfg->capture.local_mac) < 0)
			return err_set(err, "%s '%s' is not a MAC address (02:00:00:00:00:01)", name,
				       arg);
		cfg->capture.has_local_mac = 1;
		break;
	case O_CAPTURE_FILTER:
		cfg->capture.filter = arg;
		break;
	case O_SNAPLEN:
		if (parse_count(name, arg, 14, &v, err) < 0)
			return -1;
		if (v > 262144)
			return err_set(err, "%s '%s' is too large: at most 262144", name, arg);
		cfg->capture.snaplen = (unsigned)v;
		break;
	case O_CAPTURE_BUFFER: {
		uint64_t b;
		if (parse_size(name, arg, &b, err) < 0)
			return -1;
		if (b < 65536 || b > (1u << 30))
			return err_set(err, "%s '%s' is out of range: 64K to 1G", name, arg);
		cfg->capture.buffer = (unsigned)b;
		break;
	}
	case O_PROMISC:
		cfg->capture.promisc = 1;
		break;
	case O_USER:
		if (*arg == '\0')
			return err_set(err, "%s needs a user name", name);
		/* a name that is not a user is a mistake in the command, found
		 * now rather than after the capture has opened */
		if (!getpwnam(arg))
			return err_set(err, "%s '%s': no such user", name, arg);
		cfg->capture.user = arg;
		break;
	case O_TLS_CERT:
		cfg->tls_cert = arg;
		break;
	case O_TLS_KEY:
		cfg->tls_key = arg;
		break;
	case O_TLS_CLIENT_CA:
		cfg->tls_client_ca = arg;
		break;
	case O_BASIC_AUTH:
		cfg->basic_auth = arg;
		break;
	case O_PROMETHEUS_RULES:
		cfg->prometheus_rules = 1;
		break;
	}
	return 0;
}

int
cli_parse(int argc, char **argv, struct config *cfg, struct err *err)
{
	char **bare = NULL;
	size_t nbare = 0;
	int only_words = 0, rc = -1;
	enum cli_mode mode;

	memset(cfg, 0, sizeof(*cfg));
	cfg->interval = 1;
	cfg->samples = 1;
	cfg->precision = -1;
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i], *arg = NULL;
		const struct option_spec *o = NULL;
		char name[64];

		if (only_words || w[0] != '-' || w[1] == '\0') {
			push(&bare, &nbare, w);
			continue;
		}
		if (strcmp(w, "--") == 0) {
			only_words = 1;
			continue;
		}
		if (w[1] == '-') {
			const char *eq = strchr(w + 2, '=');
			size_t len = eq ? (size_t)(eq - (w + 2)) : strlen(w + 2);
			o = find_long(w + 2, len);
			snprintf(name, sizeof(name), "--%.*s", (int)(len < 40 ? len : 40), w + 2);
			if (!o) {
				err_set(err, "unknown option '%s' (getcounter --help lists them)", name);
				goto out;
			}
			if (eq && !o->takes_arg) {
				err_set(err, "option %s takes no value", name);
				goto out;
			}
			if (eq)
				arg = eq + 1;
		} else if ((o = find_windows(w + 1)) != NULL) {
			snprintf(name, sizeof(name), "%.40s", w);
		} else {
			o = find_short(w[1]);
			snprintf(name, sizeof(name), "-%c", w[1]);
			if (!o) {
				err_set(err, "unknown option '%s' (getcounter --help lists them)", w);
				goto out;
			}
			if (w[2] != '\0') {
				if (!o->takes_arg) {
					err_set(err, "unknown option '%s': short options do not combine "
						     "(write -%c -%s)", w, w[1], w + 2);
					goto out;
				}
				arg = w + 2;
			}
		}
		if (o->takes_arg && !arg) {
			if (i + 1 >= argc) {
				err_set(err, "option %s needs a value", name);
				goto out;
			}
			arg = argv[++i];
		}
		if (apply(cfg, o, name, arg, err) < 0)
			goto out;
	}
	mode = cfg->mode;
	for (size_t k = 0; k < nbare; k++) {
		if (mode == MODE_LIST_SETS || mode == MODE_LIST_PATHS)
			push(&cfg->patterns, &cfg->npatterns, bare[k]);
		else
			push_path(cfg, bare[k], NULL);
	}
	if (mode == MODE_HELP || mode == MODE_VERSION) {
		rc = 0;
		goto out;
	}
	if (cfg->format && strcasecmp(cfg->format, "bin") != 0 &&
	    strcasecmp(cfg->format, "gcl") != 0 &&
	    strcasecmp(cfg->format, "table") != 0 && strcasecmp(cfg->format, "list") != 0 &&
	    strcasecmp(cfg->format, "csv") != 0 && strcasecmp(cfg->format, "tsv") != 0 &&
	    strcasecmp(cfg->format, "json") != 0) {
		err_set(err, "unknown format '%s' (table, list, csv, tsv, json or gcl)", cfg->format);
		goto out;
	}
	if (cli_check_log_options(cfg, err) < 0)
		goto out;
	for (size_t i = 0; cfg->counter_file_stdin && i < cfg->npcaps; i++)
		if (strcmp(cfg->pcaps[i], "-") == 0) {
			err_set(err, "-cf - and --pcap - both read standard input: give one of "
				     "them a file");
			goto out;
		}
	cfg->capture.files = (const char *const *)cfg->pcaps;
	cfg->capture.nfiles = cfg->npcaps;
	if (capture_check_files(cfg->capture.files, cfg->capture.nfiles, err) < 0 ||
	    capture_check_filter(cfg->capture.filter, err) < 0)
		goto out;
	cfg->capture.interval_ns = (uint64_t)(cfg->interval * 1e9 + 0.5);
	if (cfg->npcaps && (cfg->ninputs || cfg->nroots || cfg->continuous || cfg->serve)) {
		err_set(err, "--pcap is the source: it does not go with %s",
			cfg->ninputs ? "--input" : cfg->nroots ? "--root" :
			cfg->continuous ? "--continuous (a file ends)" : "--serve");
		goto out;
	}
	if (!cfg->npcaps && cfg->capture.has_local_mac) {
		err_set(err, "--local-mac goes with --pcap (live capture knows the direction)");
		goto out;
	}
	if (cfg->continuous && cfg->samples_given) {
		err_set(err, "--continuous and --samples contradict each other: give one");
		goto out;
	}
	if (cfg->instances && mode != MODE_LIST_PATHS) {
		err_set(err, "-x (--instances) goes with -q");
		goto out;
	}
	if (cfg->nroots >= 2) {
		long most = (long)cfg->nroots - 1;
		if (cfg->samples_given && cfg->samples > most) {
			err_set(err, "-n %ld asks for more samples than the %zu roots give (at most %ld)",
				cfg->samples, cfg->nroots, most);
			goto out;
		}
		if (!cfg->samples_given)
			cfg->samples = most;
		cfg->continuous = 0;
	} else if (cfg->nroots == 1) {
		if (cfg->samples_given && cfg->samples > 1) {
			err_set(err, "one --root is a snapshot of one sample: give a series of "
				     "roots for more");
			goto out;
		}
		cfg->samples = 1;
		cfg->continuous = 0;
	}
	rc = 0;
out:
	for (size_t k = 0; k < nbare; k++)
		free(bare[k]);
	free(bare);
	if (rc < 0)
		config_free(cfg);
	return rc;
}
