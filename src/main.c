/*
 * main.c - parse the options, pick the mode and the output, run the engine,
 * and turn what failed into one line on standard error and an exit status
 * (0 success, 1 runtime error, 2 usage error).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <locale.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "engine.h"
#include "gclog.h"
#include "output.h"
#include "replay.h"
#include "serve.h"
#include "tui.h"

/* The format a file name implies (".csv"), or NULL. */
static const char *
format_from_name(const char *file)
{
	static const char *const exts[] = { "csv", "tsv", "json" };
	const char *dot = strrchr(file, '.');

	if (!dot)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(exts); i++)
		if (strcasecmp(dot + 1, exts[i]) == 0)
			return exts[i];
	return NULL;
}

/* The canonical name of file: realpath of its directory, then its own
 * name (the file need not exist yet). 0, or -1 when its directory does
 * not resolve. */
static int
canonical_name(const char *file, char *buf, size_t n)
{
	char dcopy[PATH_MAX], bcopy[PATH_MAX], dir[PATH_MAX];

	snprintf(dcopy, sizeof(dcopy), "%s", file);
	snprintf(bcopy, sizeof(bcopy), "%s", file);
	if (!realpath(dirname(dcopy), dir))
		return -1;
	snprintf(buf, n, "%s/%s", dir, basename(bcopy));
	return 0;
}

/* Nonzero when a and b name one file: the same device and inode when both
 * exist, else the same canonical name. "-" is standard output, no file. */
static int
same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char ca[PATH_MAX * 2], cb[PATH_MAX * 2];

	if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
		return 0;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (canonical_name(a, ca, sizeof(ca)) < 0 || canonical_name(b, cb, sizeof(cb)) < 0)
		return strcmp(a, b) == 0;
	return strcmp(ca, cb) == 0;
}

/* Refuse an output (-o, --log) that is one of the --input logs, or -o and
 * --log naming one file: checked before anything is opened or truncated.
 * 0, or -1 with err. */
static int
check_output_files(const struct config *cfg, struct err *err)
{
	const char *outs[2] = { cfg->output_file, cfg->log_file };
	const char *opts[2] = { "-o", "--log" };

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; outs[k] && i < cfg->ninputs; i++)
			if (same_file(outs[k], cfg->inputs[i]))
				return err_set(err, "%s %s is the --input log %s: write to another "
						    "file", opts[k], outs[k], cfg->inputs[i]);
	if (same_file(cfg->output_file, cfg->log_file))
		return err_set(err, "-o %s and --log %s are the same file: give two files",
			       cfg->output_file, cfg->log_file);
	/* the binary log and the display would interleave on one stream */
	if (cfg->log_file && strcmp(cfg->log_file, "-") == 0 &&
	    (!cfg->output_file || strcmp(cfg->output_file, "-") == 0))
		return err_set(err, "--log - and the display both go to standard output: give "
				    "-o FILE for the display, or --log FILE");
	return 0;
}

/* -o FILE names a non-empty regular file and -y was not given: -1 with
 * *rc and err (checked before anything is created or emptied). */
static int
output_refused(const struct config *cfg, int *rc, struct err *err)
{
	struct stat st;

	if (!cfg->output_file || strcmp(cfg->output_file, "-") == 0 || cfg->yes ||
	    stat(cfg->output_file, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return 0;
	*rc = EXIT_USAGE;
	return err_set(err, "%s exists and is not empty: give -y (--yes) to replace it",
		       cfg->output_file);
}

/* Open -o FILE; refuses to replace a non-empty regular file without -y. */
static FILE *
open_output(const struct config *cfg, int *rc, struct err *err)
{
	FILE *f;

	if (!cfg->output_file || strcmp(cfg->output_file, "-") == 0)
		return stdout;
	if (output_refused(cfg, rc, err) < 0)
		return NULL;
	f = fopen(cfg->output_file, "w");
	if (!f) {
		err_set(err, "cannot write %s: %s", cfg->output_file, strerror(errno));
		*rc = EXIT_RUNTIME;
		return NULL;
	}
	return f;
}

/* Nonzero when another process records to the log file (holds the lock
 * open_log takes). A replay does not lock: it may read a log being
 * recorded. */
static int
log_in_use(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC), busy = 0;

	if (fd < 0)
		return 0;
	busy = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return busy;
}

/* Open a gcl log for writing: "-" is standard output (never a terminal);
 * an existing non-empty file is replaced only with -y, continued with
 * --append (after checking it is a gcl log). A file -y replaces is written
 * under a new name beside it (*tmp, to free) until its first record is in
 * (hand_over_log): a run refused before that (--max-size too small for
 * one read) leaves the old file as it was. Returns the fd, or -1 with *rc
 * and err. */
static int
open_log(const struct config *cfg, const char *file, char **tmp, int *rc, struct err *err)
{
	struct stat st;
	int exists, fd, flags = O_RDWR | O_CREAT | O_CLOEXEC;

	*tmp = NULL;

	*rc = EXIT_USAGE;
	if (strcmp(file, "-") == 0) {
		if (isatty(STDOUT_FILENO)) {
			err_set(err, "a binary log would go to the terminal: give -o FILE.gcl");
			return -1;
		}
		if (cfg->circular || cfg->append) {
			err_set(err, "%s needs a log file (-o FILE.gcl), not standard output",
				cfg->circular ? "--circular" : "--append");
			return -1;
		}
		return STDOUT_FILENO;
	}
	exists = stat(file, &st) == 0;
	if (exists && S_ISREG(st.st_mode) && log_in_use(file)) {
		err_set(err, "%s is being recorded by another getcounter: give another file",
			file);
		*rc = EXIT_RUNTIME;
		return -1;
	}
	if (exists && S_ISREG(st.st_mode) && st.st_size > 0) {
		if (cfg->append) {
			struct gclog_reader *r = gclog_reader_open(file, err);
			if (!r) {
				char msg[sizeof(err->msg)];
				snprintf(msg, sizeof(msg), "%s", err->msg);
				err_set(err, "cannot append: %s", msg);
				return -1;
			}
			gclog_reader_close(r);
		} else if (!cfg->yes) {
			err_set(err, "%s exists and is not empty: give -y (--yes) to replace it, or "
				     "--append to continue it", file);
			return -1;
		} else {
			size_t n = strlen(file) + 8;
			mode_t mask = umask(0);
			umask(mask);
			*tmp = xmalloc(n);
			snprintf(*tmp, n, "%s.XXXXXX", file);
			fd = mkostemp(*tmp, O_CLOEXEC);
			if (fd < 0 || fchmod(fd, 0666 & ~mask) < 0 ||
			    flock(fd, LOCK_EX | LOCK_NB) < 0) {
				err_set(err, "cannot write %s: %s", *tmp, strerror(errno));
				if (fd >= 0) {
					close(fd);
					unlink(*tmp);
				}
				free(*tmp);
				*tmp = NULL;
				*rc = EXIT_RUNTIME;
				return -1;
			}
			return fd;
		}
	}
	if (exists && !S_ISREG(st.st_mode) && (cfg->circular || cfg->append)) {
		err_set(err, "%s is not a regular file: %s needs one", file,
			cfg->circular ? "--circular" : "--append");
		return -1;
	}
	fd = open(file, flags, 0666);
	if (fd < 0) {
		err_set(err, "cannot write %s: %s", file, strerror(errno));
		*rc = EXIT_RUNTIME;
		return -1;
	}
	/* a regular file is ours alone while we record (a FIFO or a device
	 * cannot be shared anyway) */
	if (!exists || S_ISREG(st.st_mode)) {
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			err_set(err, errno == EWOULDBLOCK
					     ? "%s is being recorded by another getcounter: give "
					       "another file"
					     : "cannot lock %s: %s",
				file, strerror(errno));
			close(fd);
			*rc = EXIT_RUNTIME;
			return -1;
		}
	}
	return fd;
}

/* The log written under *tmp (open_log) is to take the place of file:
 * the engine renames it once its first record is in, so that a run
 * refused at its first read leaves file as it was. Nothing to do without
 * *tmp. */
static void
hand_over_log(struct engine *e, const char *file, char **tmp)
{
	if (*tmp)
		engine_log_replace(e, *tmp, file);
	free(*tmp);
	*tmp = NULL;
}

/* A refused run: the log under *tmp goes, the file it was to replace stays. */
static void
discard_log(char **tmp)
{
	if (*tmp)
		unlink(*tmp);
	free(*tmp);
	*tmp = NULL;
}

/* After a failed recording: a log that holds no record (its header at
 * most) is of no use; remove it (an appended log is kept as it was). */
static void
drop_empty_log(const struct config *cfg, const char *file)
{
	struct stat st;

	if (!cfg->append && strcmp(file, "-") != 0 && stat(file, &st) == 0 &&
	    S_ISREG(st.st_mode) && st.st_size <= GCLOG_HEADER_SIZE)
		unlink(file);
}

/* Close (or flush) out; a failed write is a runtime error. */
static int
finish_output(const struct config *cfg, FILE *out, int rc)
{
	const char *name = cfg->output_file && out != stdout ? cfg->output_file
							      : "standard output";
	int failed = out != stdout ? fclose(out) != 0 : fflush(stdout) != 0;

	if (failed && rc == EXIT_OK) {
		fprintf(stderr, "getcounter: cannot write %s: %s\n", name, strerror(errno));
		rc = EXIT_RUNTIME;
	}
	return rc;
}

/* -f gcl / -o FILE.gcl: the log is the output. Returns an exit status. */
static int
run_log_only(const struct config *cfg, struct err *err)
{
	const char *file = cfg->output_file ? cfg->output_file : "-";
	int rc, fd;
	struct engine *e;

	/* paths first: a usage error must not create or empty the file */
	e = engine_open(cfg, (const char *const *)cfg->paths, cfg->npaths, &rc, err);
	if (!e)
		return rc;
	char *tmp;
	fd = open_log(cfg, file, &tmp, &rc, err);
	if (fd < 0) {
		engine_close(e);
		return rc;
	}
	rc = engine_log_open(e, fd, strcmp(file, "-") ? file : "standard output", 1, err);
	if (rc < 0) {
		engine_close(e);
		if (fd != STDOUT_FILENO)
			close(fd);
		if (tmp)
			discard_log(&tmp);
		else
			drop_empty_log(cfg, file);
		return rc == -2 ? EXIT_USAGE : EXIT_RUNTIME;
	}
	hand_over_log(e, file, &tmp);
	rc = engine_run(e, NULL, stdout, err);
	engine_close(e);
	if (fd != STDOUT_FILENO && close(fd) != 0 && rc == EXIT_OK) {
		err_set(err, "cannot write %s: %s", file, strerror(errno));
		rc = EXIT_RUNTIME;
	}
	if (rc != EXIT_OK)
		drop_empty_log(cfg, file);
	return rc;
}

/* getcounter --serve: the Prometheus endpoint until SIGINT/SIGTERM. */
static int
run_serve(struct config *cfg)
{
	struct serve_opts o = {
		.listen = cfg->serve,
		.paths = (const char *const *)cfg->paths,
		.npaths = cfg->npaths,
		.roots = (const char *const *)cfg->roots,
		.nroots = cfg->nroots,
		.max_requests = cfg->serve_max_requests,
		.tls_cert = cfg->tls_cert,
		.tls_key = cfg->tls_key,
		.tls_client_ca = cfg->tls_client_ca,
		.basic_auth = cfg->basic_auth,
	};
	int rc = serve_run(&o);

	config_free(cfg);
	return rc;
}

int
main(int argc, char **argv)
{
	struct config cfg;
	struct err err = { "" };
	const struct output *output;
	const char *format;
	struct engine *e;
	FILE *out;
	int rc = EXIT_OK, log_fd = -1;

	/* Character classes follow the user's locale; numbers never do. */
	setlocale(LC_CTYPE, "");
	if (cli_parse(argc, argv, &cfg, &err) < 0) {
		fprintf(stderr, "getcounter: %s\n", err.msg);
		return EXIT_USAGE;
	}
	if (check_output_files(&cfg, &err) < 0) {
		fprintf(stderr, "getcounter: %s\n", err.msg);
		config_free(&cfg);
		return EXIT_USAGE;
	}
	switch (cfg.mode) {
	case MODE_HELP:
		cli_usage(stdout);
		config_free(&cfg);
		return finish_output(&cfg, stdout, EXIT_OK);
	case MODE_VERSION:
		printf("getcounter %s\n", GETCOUNTER_VERSION);
		config_free(&cfg);
		return finish_output(&cfg, stdout, EXIT_OK);
	case MODE_LIST_SETS:
	case MODE_LIST_PATHS:
		out = open_output(&cfg, &rc, &err);
		if (!out) {
			fprintf(stderr, "getcounter: %s\n", err.msg);
			config_free(&cfg);
			return rc;
		}
		rc = engine_list(&cfg, out, &err);
		if (rc != EXIT_OK)
			fprintf(stderr, "getcounter: %s\n", err.msg);
		rc = finish_output(&cfg, out, rc);
		config_free(&cfg);
		return rc;
	case MODE_SAMPLE:
		break;
	}
	if (cfg.serve)
		return run_serve(&cfg);
	if (cfg.prometheus_rules) {
		rc = serve_rules(stdout, (const char *const *)cfg.paths, cfg.npaths, &err);
		if (rc == EXIT_USAGE)
			fprintf(stderr, "getcounter: %s\n", err.msg);
		config_free(&cfg);
		return finish_output(&cfg, stdout, rc);
	}
	if (cfg.summary) {
		out = open_output(&cfg, &rc, &err);
		if (out)
			rc = replay_summary((const char *const *)cfg.inputs, cfg.ninputs, out, &err);
		if (rc != EXIT_OK)
			fprintf(stderr, "getcounter: %s\n", err.msg);
		if (out)
			rc = finish_output(&cfg, out, rc);
		config_free(&cfg);
		return rc;
	}
	if (config_logs_to_output(&cfg)) {
		rc = run_log_only(&cfg, &err);
		if (rc != EXIT_OK)
			fprintf(stderr, "getcounter: %s\n", err.msg);
		config_free(&cfg);
		return rc;
	}
	if (cfg.tui && !tui_built_in()) {
		fprintf(stderr, "getcounter: --tui is not built in: install libncurses-dev and "
				"rebuild\n");
		config_free(&cfg);
		return EXIT_RUNTIME;
	}
	if (cfg.tui && !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "getcounter: --tui needs a terminal on standard output\n");
		config_free(&cfg);
		return EXIT_USAGE;
	}
	format = cfg.format;
	if (!format && cfg.output_file)
		format = format_from_name(cfg.output_file);
	output = output_find(format ? format : "table");
	if (!output) {
		fprintf(stderr, "getcounter: unknown format '%s'\n", format);
		config_free(&cfg);
		return EXIT_USAGE;
	}
	/* Paths, roots and providers first: a usage error must not create
	 * or empty the output file. */
	e = engine_open(&cfg, (const char *const *)cfg.paths, cfg.npaths, &rc, &err);
	if (!e) {
		fprintf(stderr, "getcounter: %s\n", err.msg);
		config_free(&cfg);
		return rc;
	}
	/* the log first: a --max-size it refuses must leave -o's file alone */
	if (output_refused(&cfg, &rc, &err) < 0) {
		fprintf(stderr, "getcounter: %s\n", err.msg);
		engine_close(e);
		config_free(&cfg);
		return rc;
	}
	if (cfg.log_file) {
		char *tmp;
		int fd = open_log(&cfg, cfg.log_file, &tmp, &rc, &err), lrc = 0;
		if (fd < 0 || (lrc = engine_log_open(e, fd, cfg.log_file, 0, &err)) < 0) {
			fprintf(stderr, "getcounter: %s\n", err.msg);
			if (fd >= 0)
				close(fd);
			else
				rc = rc ? rc : EXIT_RUNTIME;
			engine_close(e);
			if (tmp)
				discard_log(&tmp);
			else if (fd >= 0)
				drop_empty_log(&cfg, cfg.log_file);
			config_free(&cfg);
			return fd < 0 ? rc : lrc == -2 ? EXIT_USAGE : EXIT_RUNTIME;
		}
		hand_over_log(e, cfg.log_file, &tmp);
		log_fd = fd;
	}
	out = open_output(&cfg, &rc, &err);
	if (!out) {
		fprintf(stderr, "getcounter: %s\n", err.msg);
		engine_close(e);
		if (log_fd >= 0) {
			close(log_fd);
			drop_empty_log(&cfg, cfg.log_file);
		}
		config_free(&cfg);
		return rc;
	}
	if (cfg.tui)
		rc = tui_run(&e, &cfg, log_fd, &err);
	else
		rc = engine_run(e, output, out, &err);
	if (rc != EXIT_OK)
		fprintf(stderr, "getcounter: %s\n", err.msg);
	rc = finish_output(&cfg, out, rc);
	engine_close(e);
	if (log_fd >= 0 && close(log_fd) != 0 && rc == EXIT_OK) {
		fprintf(stderr, "getcounter: cannot write %s: %s\n", cfg.log_file, strerror(errno));
		rc = EXIT_RUNTIME;
	}
	if (log_fd >= 0 && rc != EXIT_OK)
		drop_empty_log(&cfg, cfg.log_file);
	config_free(&cfg);
	return rc;
}
