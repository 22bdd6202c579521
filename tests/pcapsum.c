/* pcapsum [--from NS] [--to NS] [--src-mac MAC] FILE...: per capture file,
 * "FILE PACKETS BYTES", bytes being the sum of every record's original
 * length (what was on the interface, also when the capture kept a few
 * bytes of each frame); only records stamped in [from, to) (CLOCK_REALTIME
 * ns, the captures' clock) and, with --src-mac, sent from that Ethernet
 * address (one direction of a port's capture). For the shell tests. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

static int parse_mac(const char *s, unsigned char mac[6])
{
	unsigned v[6];
	int k;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		return -1;
	for (k = 0; k < 6; k++) {
		if (v[k] > 255)
			return -1;
		mac[k] = (unsigned char)v[k];
	}
	return 0;
}

int main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	long long from = 0, to = -1;
	unsigned char mac[6];
	int i, have_mac = 0;

	for (i = 1; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "--from"))
			from = strtoll(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--to"))
			to = strtoll(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--src-mac") && !parse_mac(argv[i + 1], mac))
			have_mac = 1;
		else
			break;
	}
	if (i >= argc || argv[i][0] == '-') {
		fprintf(stderr, "usage: pcapsum [--from NS] [--to NS] [--src-mac MAC] FILE...\n");
		return 2;
	}
	for (; i < argc; i++) {
		struct pcap_pkthdr *h;
		const u_char *data;
		uint64_t packets = 0, bytes = 0;
		pcap_t *p = pcap_open_offline_with_tstamp_precision(argv[i], PCAP_TSTAMP_PRECISION_NANO,
								     errbuf);
		int r;

		if (!p) {
			fprintf(stderr, "pcapsum: %s\n", errbuf);
			return 1;
		}
		while ((r = pcap_next_ex(p, &h, &data)) == 1) {
			long long ts = (long long)h->ts.tv_sec * 1000000000LL + h->ts.tv_usec;

			if (ts < from || (to >= 0 && ts >= to))
				continue;
			if (have_mac && (h->caplen < 12 || memcmp(data + 6, mac, 6)))
				continue;
			packets++;
			bytes += h->len;
		}
		if (r == PCAP_ERROR) {
			fprintf(stderr, "pcapsum: %s: %s\n", argv[i], pcap_geterr(p));
			pcap_close(p);
			return 1;
		}
		pcap_close(p);
		printf("%s %llu %llu\n", argv[i], (unsigned long long)packets,
		       (unsigned long long)bytes);
	}
	return 0;
}
