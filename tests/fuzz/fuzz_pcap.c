/* Fuzz target: the pcap reader. The input is read as a capture file
 * (pcap or pcapng, libpcap underneath) packet by packet, every packet
 * through the header decoder; and the input itself is decoded as one
 * frame, with wire lengths at and beyond what was captured. */
#include "config.h"

#include <errno.h>

#include "analyze/pcap_read.h"
#include "fuzz.h"

FUZZ_TARGET(pcap)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct capfile *c;
	enum pkt_kind kind;
	struct pkt_tcp p;
	uint32_t wirelen, caplen = size > 0xffff ? 0xffff : (uint32_t)size;
	int r;

	kind = pkt_decode(data, caplen, caplen, 1, &p);
	if (kind == PKT_TCP && p.ts != 1)
		fuzz_fail("a decoded segment lost its timestamp");
	(void)pkt_decode(data, caplen, caplen + 65536, 1, &p); /* a GSO frame */
	if (capfile_open(fuzz_file(data, size), &c, errbuf))
		return 0;
	while ((r = capfile_next(c, &p, &kind, &wirelen, errbuf)) == 1)
		if (kind > PKT_BAD)
			fuzz_fail("packet kind %d", (int)kind);
	if (r != 0 && r != -EINVAL && r != -ENODATA)
		fuzz_fail("capfile_next returned %d", r);
	capfile_close(c);
	return 0;
}
