/* pcapcount.c - the plain counter the capture benchmark compares with:
 * libpcap as getcounter opens it, pcap_loop counting frames and bytes.
 * pcapcount IF SECONDS -> frames=N drops=N cpu_ns=N */
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
static pcap_t *p;
static unsigned long long frames, bytes;
static void stop(int sig) { (void)sig; pcap_breakloop(p); }
static void count(u_char *u, const struct pcap_pkthdr *h, const u_char *b)
{ (void)u; (void)b; frames++; bytes += h->len; }
int main(int argc, char **argv)
{
	char e[PCAP_ERRBUF_SIZE];
	struct pcap_stat st = { 0 };
	struct rusage ru;
	if (argc != 3 || !(p = pcap_create(argv[1], e))) return 2;
	pcap_set_snaplen(p, 128);
	pcap_set_timeout(p, 100);
	pcap_set_buffer_size(p, 8 << 20);
	if (pcap_activate(p) < 0) { fprintf(stderr, "%s\n", pcap_geterr(p)); return 1; }
	signal(SIGALRM, stop);
	alarm((unsigned)atoi(argv[2]));
	pcap_loop(p, -1, count, NULL);
	pcap_stats(p, &st);
	getrusage(RUSAGE_SELF, &ru);
	printf("frames=%llu bytes=%llu drops=%u cpu_ns=%lld\n", frames, bytes, st.ps_drop,
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
	return 0;
}
