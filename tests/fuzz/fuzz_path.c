/*
 * fuzz_path.c - libFuzzer target: counter paths and the option table must
 * never crash, leak or read out of bounds on any input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct counter_path p;
	struct err err;

	memcpy(s, data, size);
	s[size] = '\0';
	if (path_parse(s, &p, &err) == 0) {
		char buf[64];
		path_format(buf, sizeof(buf), "h", p.set, p.instance, p.counter);
		glob_match_ci(p.set, "Network Adapter");
		glob_match_ci(p.counter, s);
		path_free(&p);
	}

	/* The same bytes as an argv split at NUL and newline. */
	char *argv[34];
	int argc = 0;
	argv[argc++] = "getcounter";
	for (char *tok = strtok(s, "\n"); tok && argc < 33; tok = strtok(NULL, "\n"))
		argv[argc++] = tok;
	argv[argc] = NULL;
	struct config cfg;
	if (cli_parse(argc, argv, &cfg, &err) == 0)
		config_free(&cfg);
	free(s);
	return 0;
}
