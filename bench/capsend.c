/*
 * capsend.c - the capture benchmark's sender: RATE frames per second of LEN
 * bytes (UDP to a far address, so the receiver only drops them) on IF for
 * SECONDS, through an AF_PACKET socket in batches of sendmmsg, paced on the
 * monotonic clock in 1 ms steps.
 *
 * capsend IF SRC_MAC DST_MAC RATE LEN SECONDS  -> sent=N seconds=S
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define BATCH 64

static uint64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
mac(const char *s, unsigned char *m)
{
	for (int i = 0; i < 6; i++)
		m[i] = (unsigned char)strtoul(s + 3 * i, NULL, 16);
}

int
main(int argc, char **argv)
{
	unsigned char frame[2048] = { 0 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct mmsghdr msgs[BATCH];
	struct iovec iov;
	uint64_t sent = 0, rate, want, t0, end, len;
	int s;

	if (argc != 7) {
		fprintf(stderr, "usage: capsend IF SRC_MAC DST_MAC RATE LEN SECONDS\n");
		return 2;
	}
	rate = strtoull(argv[4], NULL, 10);
	len = strtoull(argv[5], NULL, 10);
	if (len < 60 || len > 1514)
		return 2;
	mac(argv[3], frame);
	mac(argv[2], frame + 6);
	frame[12] = 0x08; /* IPv4, UDP to 10.99.99.99 */
	frame[14] = 0x45;
	frame[16] = (unsigned char)((len - 14) >> 8);
	frame[17] = (unsigned char)(len - 14);
	frame[22] = 64;
	frame[23] = 17;
	frame[30] = 10, frame[31] = 99, frame[32] = 99, frame[33] = 99;
	s = socket(AF_PACKET, SOCK_RAW, 0);
	sll.sll_ifindex = (int)if_nametoindex(argv[1]);
	if (s < 0 || sll.sll_ifindex == 0 || bind(s, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("capsend");
		return 1;
	}
	iov.iov_base = frame;
	iov.iov_len = len;
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < BATCH; i++) {
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	t0 = now_ns();
	end = t0 + strtoull(argv[6], NULL, 10) * 1000000000u;
	for (uint64_t t = t0; t < end; t = now_ns()) {
		want = (t - t0) / 1000000 * rate / 1000; /* due by this millisecond */
		while (sent < want) {
			unsigned n = want - sent > BATCH ? BATCH : (unsigned)(want - sent);
			int k = sendmmsg(s, msgs, n, 0);
			if (k <= 0)
				break;
			sent += (uint64_t)k;
		}
		struct timespec ts = { 0, 200000 };
		nanosleep(&ts, NULL);
	}
	printf("sent=%llu seconds=%.3f\n", (unsigned long long)sent, (double)(now_ns() - t0) / 1e9);
	return 0;
}
