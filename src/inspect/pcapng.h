/* A pcapng writer (the IETF draft "PCAP Next Generation Dump File
 * Format", draft-ietf-opsawg-pcapng): one section, any number of
 * interfaces, enhanced packet blocks with a comment and a direction. Blocks
 * are written in the host's byte order (the section header's magic says
 * which), as libpcap, tshark and Wireshark expect. Timestamps are
 * nanoseconds (if_tsresol 9 on every interface). */
#ifndef HYDE_PCAPNG_H
#define HYDE_PCAPNG_H

#include <stdint.h>
#include <stdio.h>

/* Link types (tcpdump.org's LINKTYPE_* values). */
#define PCAPNG_LINKTYPE_ETHERNET 1
/* Wireshark's "exported PDU": TLVs naming the dissector, then the PDU
 * (epan/exported_pdu.h in Wireshark). */
#define PCAPNG_LINKTYPE_UPPER_PDU 252

/* Exported PDU tags (Wireshark's values). */
#define EXP_PDU_TAG_END_OF_OPT 0
#define EXP_PDU_TAG_DISSECTOR_NAME 12
#define EXP_PDU_TAG_P2P_DIRECTION 35
/* P2P_DIR_SENT / P2P_DIR_RECV as Wireshark numbers them */
#define EXP_PDU_P2P_SENT 0
#define EXP_PDU_P2P_RECV 1

/* epb_flags: the packet's direction on its interface. */
enum pcapng_dir {
	PCAPNG_DIR_UNKNOWN = 0,
	PCAPNG_DIR_IN = 1,  /* received on the interface */
	PCAPNG_DIR_OUT = 2, /* sent by it */
};

struct pcapng_if {
	uint16_t linktype;
	uint32_t snaplen;    /* 0: no limit */
	const char *name;    /* if_name, e.g. "tor3-up" */
	const char *descr;   /* if_description (may be NULL) */
	uint64_t speed_bps;  /* if_speed (0: not written) */
	const char *comment; /* opt_comment (may be NULL) */
};

struct pcapng_writer {
	FILE *fp;
	uint32_t n_ifs;
	uint64_t packets;
	int err; /* the first write error (-errno), sticky */
};

/* Start a section on fp: the section header block, with the writing
 * application (shb_userappl) and a comment (may be NULL). */
void pcapng_begin(struct pcapng_writer *w, FILE *fp, const char *appl,
		  const char *comment);
/* An interface description block; returns the interface's id. */
uint32_t pcapng_add_if(struct pcapng_writer *w, const struct pcapng_if *ifc);
/* An enhanced packet block: caplen bytes of data, of a frame of wirelen
 * bytes, at ts_ns since the epoch, with an optional comment. */
void pcapng_packet(struct pcapng_writer *w, uint32_t if_id, int64_t ts_ns,
		   const uint8_t *data, uint32_t caplen, uint32_t wirelen,
		   enum pcapng_dir dir, const char *comment);
/* 0, or the first write error (-errno). */
int pcapng_error(const struct pcapng_writer *w);

/* An exported-PDU header naming the dissector (and the direction, if dir
 * is EXP_PDU_P2P_SENT or _RECV; -1 for none) into buf; its length, or 0 if
 * size is too small. The PDU follows it in the packet. */
size_t pcapng_exported_pdu_header(uint8_t *buf, size_t size,
				  const char *dissector, int dir);

#endif
