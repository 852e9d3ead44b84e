/*
 * netload.c - bounded traffic for bench/netcycles: a sink and a sender, each
 * running for a fixed time. The packet rate is measured by the caller from
 * the receiving interface's counters, not here.
 *
 *   netload sink PORTFILE ADDR [SECONDS]   TCP and UDP sink on ADDR (ports
 *                                          written to PORTFILE), SECONDS (60)
 *                                          at most
 *   netload udp ADDR PORT SIZE SECONDS     send SIZE-byte datagrams, flat out
 *   netload tcp ADDR PORT SECONDS [CC]     stream to the TCP sink, flat out
 *                                          (with congestion control CC)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct sockaddr_in
addr_of(const char *host, int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		fprintf(stderr, "netload: bad address %s\n", host);
		exit(2);
	}
	return a;
}

/* TCP and UDP on addr, reading everything for 60 s at most. */
static int
sink(const char *portfile, const char *host, double seconds)
{
	struct sockaddr_in a = addr_of(host, 0);
	socklen_t len = sizeof(a);
	int t = socket(AF_INET, SOCK_STREAM, 0), u = socket(AF_INET, SOCK_DGRAM, 0), c = -1;
	int one = 1;
	char tmp[256], buf[65536];
	struct sockaddr_in ta, ua;
	double end = now() + seconds;
	FILE *f;

	setsockopt(t, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(t, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(t, 4) < 0 ||
	    bind(u, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("netload: sink");
		return 1;
	}
	getsockname(t, (struct sockaddr *)&ta, &len);
	len = sizeof(ua);
	getsockname(u, (struct sockaddr *)&ua, &len);
	snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
	if (!(f = fopen(tmp, "w")))
		return 1;
	fprintf(f, "%d %d\n", ntohs(ta.sin_port), ntohs(ua.sin_port));
	fclose(f);
	rename(tmp, portfile);
	while (now() < end) {
		struct pollfd p[3] = { { t, POLLIN, 0 }, { u, POLLIN, 0 }, { c, POLLIN, 0 } };
		if (poll(p, c >= 0 ? 3 : 2, 1000) <= 0)
			continue;
		if (p[0].revents & POLLIN) {
			if (c >= 0)
				close(c);
			c = accept(t, NULL, NULL);
		}
		if (p[1].revents & POLLIN)
			while (recv(u, buf, sizeof(buf), MSG_DONTWAIT) > 0)
				;
		if (c >= 0 && (p[2].revents & (POLLIN | POLLHUP))) {
			ssize_t n = recv(c, buf, sizeof(buf), MSG_DONTWAIT);
			if (n == 0 || (n < 0 && errno != EAGAIN)) {
				close(c);
				c = -1;
			}
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	char buf[65536];
	long long n = 0;

	memset(buf, 'x', sizeof(buf));
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "sink") == 0)
		return sink(argv[2], argv[3], argc == 5 ? atof(argv[4]) : 60);
	if (argc == 6 && strcmp(argv[1], "udp") == 0) {
		struct sockaddr_in a = addr_of(argv[2], atoi(argv[3]));
		size_t size = (size_t)atoi(argv[4]);
		double end = now() + atof(argv[5]);
		int s = socket(AF_INET, SOCK_DGRAM, 0);

		if (size > sizeof(buf) || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0)
			return 1;
		while (now() < end)
			for (int i = 0; i < 64; i++)
				n += send(s, buf, size, 0) > 0;
		printf("sent=%lld\n", n);
		return 0;
	}
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "tcp") == 0) {
		struct sockaddr_in a = addr_of(argv[2], atoi(argv[3]));
		double end = now() + atof(argv[4]);
		int s = socket(AF_INET, SOCK_STREAM, 0);

		if (argc == 6 && setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, argv[5], (socklen_t)strlen(argv[5])) < 0) {
			perror("netload: TCP_CONGESTION");
			return 1;
		}

		if (connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
			perror("netload: tcp");
			return 1;
		}
		while (now() < end) {
			ssize_t k = send(s, buf, sizeof(buf), 0);
			if (k < 0)
				return 1;
			n += k;
		}
		close(s);
		printf("bytes=%lld\n", n);
		return 0;
	}
	fprintf(stderr, "usage: netload sink PORTFILE ADDR | udp ADDR PORT SIZE SECONDS | "
			"tcp ADDR PORT SECONDS\n");
	return 2;
}
