#include "config.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/pcap_read.h"
#include "pcap_fixture.h"

struct fx_pcap {
	pcap_t *p;
	pcap_dumper_t *d;
	uint16_t ip_id;
};

struct fx_pcap *fx_pcap_open(const char *path, int linktype)
{
	struct fx_pcap *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->p = pcap_open_dead_with_tstamp_precision(linktype, FX_SNAPLEN,
						    PCAP_TSTAMP_PRECISION_NANO);
	if (!f->p)
		goto err;
	f->d = pcap_dump_open(f->p, path);
	if (!f->d) {
		fprintf(stderr, "%s: %s\n", path, pcap_geterr(f->p));
		pcap_close(f->p);
		goto err;
	}
	return f;
err:
	free(f);
	return NULL;
}

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

void fx_raw(struct fx_pcap *f, int64_t ts, const uint8_t *data, uint32_t len)
{
	struct pcap_pkthdr h;

	h.ts.tv_sec = ts / 1000000000;
	h.ts.tv_usec = ts % 1000000000; /* nanoseconds: opened with NANO */
	h.len = len;
	h.caplen = len < FX_SNAPLEN ? len : FX_SNAPLEN;
	pcap_dump((u_char *)f->d, &h, data);
}

void fx_tcp(struct fx_pcap *f, int64_t ts, const struct fx_seg *s)
{
	uint8_t b[FX_SNAPLEN];
	uint32_t hdrs = 20 + 32, tot = hdrs + s->payload, sum = 0, wire;
	struct pcap_pkthdr h;
	int i;

	memset(b, 0, sizeof(b));
	/* Ethernet: locally administered MACs derived from the addresses */
	b[0] = 0x02, put32(b + 2, s->daddr);
	b[6] = 0x02, put32(b + 8, s->saddr);
	put16(b + 12, 0x0800);
	/* IPv4 */
	b[14] = 0x45;
	put16(b + 16, tot > 65535 ? 0 : (uint16_t)tot);
	put16(b + 18, f->ip_id++);
	put16(b + 20, 0x4000); /* DF */
	b[22] = 64;
	b[23] = 6;
	put32(b + 26, s->saddr);
	put32(b + 30, s->daddr);
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)(b[14 + i] << 8 | b[15 + i]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(b + 24, (uint16_t)~sum);
	/* TCP with NOP, NOP, timestamps: 32 bytes as Linux sends them */
	put16(b + 34, s->sport);
	put16(b + 36, s->dport);
	put32(b + 38, s->seq);
	put32(b + 42, s->ack);
	b[46] = 8 << 4;
	b[47] = s->flags;
	put16(b + 48, 502);
	b[54] = 1, b[55] = 1, b[56] = 8, b[57] = 10;
	put32(b + 58, (uint32_t)(ts / 1000000));
	wire = 14 + tot;
	h.ts.tv_sec = ts / 1000000000;
	h.ts.tv_usec = ts % 1000000000;
	h.len = wire < 60 ? 60 : wire; /* Ethernet pads to 60 */
	h.caplen = h.len < FX_SNAPLEN ? h.len : FX_SNAPLEN;
	pcap_dump((u_char *)f->d, &h, b);
}

void fx_arp(struct fx_pcap *f, int64_t ts)
{
	uint8_t b[60];

	memset(b, 0, sizeof(b));
	memset(b, 0xff, 6);
	b[6] = 0x02;
	put16(b + 12, 0x0806);
	put16(b + 14, 1);
	put16(b + 16, 0x0800);
	b[18] = 6, b[19] = 4;
	put16(b + 20, 1);
	fx_raw(f, ts, b, sizeof(b));
}

int fx_pcap_close(struct fx_pcap *f)
{
	if (!f)
		return -1;
	pcap_dump_close(f->d);
	pcap_close(f->p);
	free(f);
	return 0;
}
