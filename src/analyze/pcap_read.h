/* Reading captures offline with libpcap, one packet at a time, and decoding
 * the Ethernet/IPv4/TCP headers the analyzer needs. Only headers are read:
 * the captures are taken with a short snaplen, and with GSO/TSO/GRO a frame
 * may stand for many MTU-sized segments, so payload lengths come from the IP
 * total length and the TCP header, never from the captured length. */
#ifndef HYDE_PCAP_READ_H
#define HYDE_PCAP_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "core/util.h"

struct pcap_pkthdr;

/* TCP flags as on the wire. */
#define TCPF_FIN 0x01
#define TCPF_SYN 0x02
#define TCPF_RST 0x04
#define TCPF_PSH 0x08
#define TCPF_ACK 0x10

/* A decoded TCP/IPv4 segment (addresses and ports in host byte order). */
struct pkt_tcp {
	int64_t ts; /* ns since the epoch */
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint32_t payload; /* TCP payload bytes the segment carries */
};

enum pkt_kind {
	PKT_TCP,   /* decoded into struct pkt_tcp */
	PKT_OTHER, /* not TCP over IPv4 (ARP, IPv6, UDP, ICMP, a fragment) */
	PKT_SHORT, /* captured too little of the headers to decode */
	PKT_BAD,   /* headers that cannot be right (IHL < 5, lengths) */
};

/* Decode one Ethernet frame (an optional 802.1Q tag is skipped). `len` is
 * the frame's length on the wire, `caplen` what was captured. */
enum pkt_kind pkt_decode(const uint8_t *data, uint32_t caplen, uint32_t len,
			 int64_t ts, struct pkt_tcp *out);

/* One capture file being read. */
struct capfile;

/* Open a capture (pcap or pcapng, microsecond or nanosecond timestamps:
 * timestamps are returned in ns either way). Refuses anything but Ethernet
 * (DLT_EN10MB) with a message naming the link type. On error returns
 * -EINVAL (or -errno) with "path: what is wrong" in errbuf. The caller owns
 * *out (capfile_close). */
int capfile_open(const char *path, struct capfile **out, char *errbuf);

/* Next packet: returns 1 with *kind set (and *p filled when PKT_TCP), 0 at
 * the end of the file, -ENODATA when the file ends inside a record (its
 * writer was stopped while writing it), or -EINVAL for a corrupt file,
 * with "path: packet N: what libpcap said" in errbuf. `wirelen` gets the
 * frame's length on the wire. */
int capfile_next(struct capfile *c, struct pkt_tcp *p, enum pkt_kind *kind,
		 uint32_t *wirelen, char *errbuf);

/* Packets returned so far. */
uint64_t capfile_packets(const struct capfile *c);
void capfile_close(struct capfile *c);

#endif
