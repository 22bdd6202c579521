/* pcapsum FILE...: per capture file, "FILE PACKETS BYTES", bytes being the
 * sum of every record's original length (what was on the interface, also
 * when the capture kept a few bytes of each frame). For the shell tests. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include <pcap/pcap.h>

int main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: pcapsum FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct pcap_pkthdr *h;
		const u_char *data;
		uint64_t packets = 0, bytes = 0;
		pcap_t *p = pcap_open_offline(argv[i], errbuf);
		int r;

		if (!p) {
			fprintf(stderr, "pcapsum: %s\n", errbuf);
			return 1;
		}
		while ((r = pcap_next_ex(p, &h, &data)) == 1) {
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
