/*
 * cli.h - the command line: a hand-written option table accepting the
 * getcounter spellings and the Windows ones (DESIGN.md "Command line").
 */
#ifndef GETCOUNTER_CLI_H
#define GETCOUNTER_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "util.h"

enum cli_mode { MODE_SAMPLE, MODE_LIST_SETS, MODE_LIST_PATHS, MODE_HELP, MODE_VERSION };

/* Everything the options say; owned by main, freed with config_free. */
struct config {
	enum cli_mode mode;
	char **paths;        /* counter paths (from -c, bare words, --counter-file) */
	char **path_origins; /* per path: "FILE:LINE" for a counter file, else NULL */
	size_t npaths;
	char **patterns;     /* -l / -q patterns */
	size_t npatterns;
	char **roots;        /* --root series */
	size_t nroots;
	double interval;     /* seconds */
	long samples;        /* printed samples */
	int samples_given;
	int continuous;
	const char *format;  /* -f value, NULL for the default */
	const char *output_file;
	int precision;       /* -1 for the format's default */
	int smooth;          /* --smooth C (2..127), 0 for none */
	int instances;       /* -x */
	int verbose;
	int yes;             /* -y: replace a non-empty output file */
	int utc;
	int interval_given;
	/* the binary log */
	const char *log_file; /* --log: record beside the display */
	char **inputs;        /* --input: replay these logs */
	size_t ninputs;
	const char *begin, *end; /* --begin, --end */
	unsigned every;       /* --every N */
	int summary;          /* --summary of the inputs */
	uint64_t max_size;    /* --max-size, 0 for none */
	int circular;
	int append;
	/* --serve: a Prometheus endpoint (serve.h) */
	const char *serve;             /* [ADDR:]PORT, or NULL */
	unsigned serve_max_requests;   /* 0: the default, 8 */
	/* --tui: the live screen (tui.h) */
	int tui;
	int ascii;    /* --ascii: no braille */
	int no_color; /* --no-color */
	/* Network Capture (capture.h): --pcap files, --local-mac,
	 * --capture-filter, --snaplen, --capture-buffer, --promisc, --user */
	char **pcaps;
	size_t npcaps;
	int counter_file_stdin; /* -cf - read the paths from standard input */
	struct capture_opts capture;
	const char *tls_cert, *tls_key; /* --tls-cert, --tls-key: https */
	const char *tls_client_ca;     /* --tls-client-ca: require client certificates */
	const char *basic_auth;        /* --basic-auth FILE of user:bcrypt lines */
	int prometheus_rules;          /* --prometheus-rules: print recording rules */
};

/* Parse argv into cfg. Returns 0, or -1 with err naming the bad option or
 * value (a usage error: exit 2). */
int cli_parse(int argc, char **argv, struct config *cfg, struct err *err);
void config_free(struct config *cfg);

/* Nonzero when the output itself is the binary log (-f gcl, -f BIN, or -o
 * NAME.gcl without -f). */
int config_logs_to_output(const struct config *cfg);

/* The --help text. */
void cli_usage(FILE *out);

#endif
