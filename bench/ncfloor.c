/*
 * ncfloor.c - bench only: what a BPF program on a tracepoint costs here,
 * apart from what it does (bench/netcycles, its floor part; the programs are in
 * bench/ncfloor.bpf.c).
 *   ncfloor empty SECONDS   attach the nine empty tp_btf programs on the
 *                           tracepoints of netcycles.bpf.c for SECONDS
 *   ncfloor syscall N       ns per getppid() over N calls with 0, 1, 2, 4
 *                           empty programs on sys_enter, and with 1 body
 *                           (prints "progs=K ns=X" lines)
 * Needs root. Built by bench/netcycles against BUILD's vmlinux.h.
 */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ncfloor.skel.h"

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* the best of 5 loops of n getppid(): ns per call */
static double
per_call(long n)
{
	double best = 0;

	for (int k = 0; k < 5; k++) {
		double t0 = now_ns();
		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
		double d = (now_ns() - t0) / (double)n;
		if (k == 0 || d < best)
			best = d;
	}
	return best;
}

static int
quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int
main(int argc, char **argv)
{
	struct ncfloor_bpf *s;
	int syscalls;

	if (argc != 3 || (strcmp(argv[1], "empty") != 0 && strcmp(argv[1], "syscall") != 0)) {
		fprintf(stderr, "usage: ncfloor empty SECONDS | ncfloor syscall N\n");
		return 2;
	}
	syscalls = strcmp(argv[1], "syscall") == 0;
	libbpf_set_print(quiet);
	s = ncfloor_bpf__open();
	if (!s) {
		perror("ncfloor: open");
		return 1;
	}
	s->rodata->getppid_nr = SYS_getppid;
	struct bpf_program *p;
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, (strncmp(bpf_program__name(p), "sys_", 4) == 0) == syscalls);
	if (ncfloor_bpf__load(s)) {
		perror("ncfloor: load");
		return 1;
	}
	if (!syscalls) {
		bpf_object__for_each_program(p, s->obj)
			if (bpf_program__autoload(p) && !bpf_program__attach(p)) {
				perror("ncfloor: attach");
				return 1;
			}
		printf("attached\n");
		fflush(stdout);
		sleep((unsigned)atoi(argv[2]));
		ncfloor_bpf__destroy(s);
		return 0;
	}
	long n = atol(argv[2]);
	struct bpf_program *e[4] = { s->progs.sys_e0, s->progs.sys_e1, s->progs.sys_e2,
				     s->progs.sys_e3 };
	struct bpf_link *l[4] = { 0 };
	int attached = 0;
	printf("progs=0 ns=%.1f\n", per_call(n));
	for (int want = 1; want <= 4; want *= 2) {
		while (attached < want) {
			l[attached] = bpf_program__attach(e[attached]);
			if (!l[attached]) {
				perror("ncfloor: attach");
				return 1;
			}
			attached++;
		}
		printf("progs=%d ns=%.1f\n", want, per_call(n));
	}
	for (int i = 0; i < 4; i++)
		bpf_link__destroy(l[i]);
	struct bpf_link *b = bpf_program__attach(s->progs.sys_b);
	if (!b) {
		perror("ncfloor: attach");
		return 1;
	}
	printf("progs=body ns=%.1f\n", per_call(n));
	bpf_link__destroy(b);
	printf("progs=0 ns=%.1f\n", per_call(n));
	ncfloor_bpf__destroy(s);
	return 0;
}
