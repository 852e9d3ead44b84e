/*
 * cputime.c - run a command and print the CPU time (user + system, in
 * microseconds), wall time and peak RSS of it and its children, from
 * wait4/getrusage: finer than /usr/bin/time's centiseconds. Standard output
 * of the command goes to /dev/null unless --keep-stdout is given.
 *
 * cputime [--keep-stdout] CMD [ARG...]
 *   -> cpu_us=N user_us=N sys_us=N wall_us=N maxrss_kb=N status=N
 */
#include "common.h"

#include <sys/wait.h>

int
main(int argc, char **argv)
{
	int keep = 0, i = 1, st = 0;
	struct rusage ru;
	pid_t pid;

	if (i < argc && strcmp(argv[i], "--keep-stdout") == 0) {
		keep = 1;
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: cputime [--keep-stdout] CMD [ARG...]\n");
		return 2;
	}
	uint64_t w0 = bench_wall_ns();
	pid = fork();
	if (pid < 0) {
		perror("cputime: fork");
		return 1;
	}
	if (pid == 0) {
		if (!keep) {
			int fd = open("/dev/null", O_WRONLY);
			if (fd >= 0)
				dup2(fd, 1);
		}
		execvp(argv[i], &argv[i]);
		perror(argv[i]);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0) {
		perror("cputime: waitpid");
		return 1;
	}
	uint64_t w1 = bench_wall_ns();
	getrusage(RUSAGE_CHILDREN, &ru);
	long long user = (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec;
	long long sys = (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
	fprintf(stderr, "cpu_us=%lld user_us=%lld sys_us=%lld wall_us=%llu maxrss_kb=%ld status=%d\n",
		user + sys, user, sys, (unsigned long long)((w1 - w0) / 1000), ru.ru_maxrss,
		WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}
