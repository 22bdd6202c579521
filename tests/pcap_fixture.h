/* Writing captures for tests and benchmarks: hand-built Ethernet/IPv4/TCP
 * headers dumped with libpcap (nanosecond magic), as hyde's ToR ports
 * would capture them (snaplen 128, TCP timestamp option on every segment,
 * super-frames above the MTU when the payload asks for it). */
#ifndef HYDE_PCAP_FIXTURE_H
#define HYDE_PCAP_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#define FX_SNAPLEN 128

struct fx_pcap;

struct fx_seg {
	uint32_t saddr, daddr; /* host order */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags; /* TCPF_* */
	uint32_t payload;
};

/* linktype: DLT_EN10MB for a normal capture. NULL on error (message on
 * stderr). */
struct fx_pcap *fx_pcap_open(const char *path, int linktype);
/* One TCP segment at ts (ns since the epoch). A payload above 65483 bytes
 * makes a BIG TCP super-frame (IP total length 0). */
void fx_tcp(struct fx_pcap *f, int64_t ts, const struct fx_seg *s);
/* An ARP request (not TCP: counted, never decoded). */
void fx_arp(struct fx_pcap *f, int64_t ts);
/* Raw bytes as one record (for other link types). */
void fx_raw(struct fx_pcap *f, int64_t ts, const uint8_t *data, uint32_t len);
int fx_pcap_close(struct fx_pcap *f);

#endif
