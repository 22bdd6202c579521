/* Offline capture reading with libpcap (see pcap_read.h). */
#include "config.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/pcap_read.h"

#define ETH_HLEN 14
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_VLAN 0x8100
#define IPPROTO_TCP_NUM 6

struct capfile {
	pcap_t *p;
	char *path;
	uint64_t packets;
};

static inline uint16_t rd16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t rd32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

enum pkt_kind pkt_decode(const uint8_t *data, uint32_t caplen, uint32_t len,
			 int64_t ts, struct pkt_tcp *out)
{
	uint32_t off = ETH_HLEN, ihl, doff, tot;
	uint16_t type;
	const uint8_t *ip, *tcp;

	if (caplen < ETH_HLEN)
		return PKT_SHORT;
	type = rd16(data + 12);
	if (type == ETHERTYPE_VLAN) {
		if (caplen < ETH_HLEN + 4)
			return PKT_SHORT;
		type = rd16(data + 16);
		off += 4;
	}
	if (type != ETHERTYPE_IPV4)
		return PKT_OTHER;
	if (caplen < off + 20)
		return PKT_SHORT;
	ip = data + off;
	if (ip[0] >> 4 != 4)
		return PKT_BAD;
	ihl = (ip[0] & 0x0f) * 4u;
	if (ihl < 20)
		return PKT_BAD;
	if (ip[9] != IPPROTO_TCP_NUM)
		return PKT_OTHER;
	/* Later fragments carry no TCP header; shuffle traffic over TCP with
	 * PMTU discovery never fragments, so they are just counted. */
	if (rd16(ip + 6) & 0x1fff)
		return PKT_OTHER;
	tot = rd16(ip + 2);
	/* A GSO/GRO super-frame above 64 KB (BIG TCP) has total length 0:
	 * its length is then the frame's own. */
	if (tot == 0) {
		if (len < off + 64 * 1024)
			return PKT_BAD;
		tot = len - off;
	}
	if (caplen < off + ihl + 20)
		return PKT_SHORT;
	tcp = ip + ihl;
	doff = (tcp[12] >> 4) * 4u;
	if (doff < 20 || tot < ihl + doff)
		return PKT_BAD;
	out->ts = ts;
	out->saddr = rd32(ip + 12);
	out->daddr = rd32(ip + 16);
	out->sport = rd16(tcp);
	out->dport = rd16(tcp + 2);
	out->seq = rd32(tcp + 4);
	out->ack = rd32(tcp + 8);
	out->flags = tcp[13];
	out->payload = tot - ihl - doff;
	return PKT_TCP;
}

int capfile_open(const char *path, struct capfile **out, char *errbuf)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	struct capfile *c;
	const char *name;
	pcap_t *p;
	int dlt;

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO,
						    perr);
	if (!p) {
		/* libpcap's text already names the problem ("unknown file
		 * format", "truncated dump file", the errno text). */
		errbuf_set(errbuf, "%s: cannot read as a capture: %s", path, perr);
		return -EINVAL;
	}
	dlt = pcap_datalink(p);
	if (dlt != DLT_EN10MB) {
		name = pcap_datalink_val_to_name(dlt);
		errbuf_set(errbuf, "%s: link type %d (%s): expected Ethernet (EN10MB), as hyde captures its ToR ports",
			   path, dlt, name ? name : "unknown");
		pcap_close(p);
		return -EINVAL;
	}
	c = xcalloc(1, sizeof(*c));
	c->p = p;
	c->path = xstrdup(path);
	*out = c;
	return 0;
}

int capfile_next(struct capfile *c, struct pkt_tcp *p, enum pkt_kind *kind,
		 uint32_t *wirelen, char *errbuf)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int r;

	r = pcap_next_ex(c->p, &h, &data);
	if (r == PCAP_ERROR_BREAK)
		return 0;
	if (r != 1 && pcap_file(c->p) && feof(pcap_file(c->p))) {
		/* the file ends inside a record: its writer was stopped in
		 * the middle of writing it */
		errbuf_set(errbuf, "%s: packet %llu: %s (the file ends inside it)",
			   c->path, (unsigned long long)c->packets + 1, pcap_geterr(c->p));
		return -ENODATA;
	}
	if (r != 1) {
		errbuf_set(errbuf, "%s: packet %llu: %s (truncated or corrupt capture)",
			   c->path, (unsigned long long)c->packets + 1,
			   pcap_geterr(c->p));
		return -EINVAL;
	}
	c->packets++;
	if (h->caplen > h->len) {
		errbuf_set(errbuf, "%s: packet %llu: captured length %u exceeds the frame length %u (corrupt capture)",
			   c->path, (unsigned long long)c->packets, h->caplen, h->len);
		return -EINVAL;
	}
	/* Opened with nanosecond precision: tv_usec holds nanoseconds. */
	*kind = pkt_decode(data, h->caplen, h->len,
			   (int64_t)h->ts.tv_sec * NSEC_PER_SEC + h->ts.tv_usec, p);
	*wirelen = h->len;
	return 1;
}

uint64_t capfile_packets(const struct capfile *c)
{
	return c->packets;
}

void capfile_close(struct capfile *c)
{
	if (!c)
		return;
	pcap_close(c->p);
	free(c->path);
	free(c);
}
