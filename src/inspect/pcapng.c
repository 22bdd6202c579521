/* pcapng writer (see pcapng.h). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "inspect/pcapng.h"

#define BT_SHB 0x0A0D0D0A
#define BT_IDB 0x00000001
#define BT_EPB 0x00000006
#define BYTE_ORDER_MAGIC 0x1A2B3C4D

#define OPT_END 0
#define OPT_COMMENT 1
#define SHB_USERAPPL 4
#define IF_NAME 2
#define IF_DESCRIPTION 3
#define IF_SPEED 8
#define IF_TSRESOL 9
#define EPB_FLAGS 2

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static void put(struct pcapng_writer *w, const void *p, size_t n)
{
	if (w->err || !n)
		return;
	if (fwrite(p, 1, n, w->fp) != n)
		w->err = errno ? -errno : -EIO;
}

static void put32(struct pcapng_writer *w, uint32_t v)
{
	put(w, &v, 4);
}

static void put_pad(struct pcapng_writer *w, size_t n)
{
	static const uint8_t zero[4];

	put(w, zero, pad4(n) - n);
}

/* Option values longer than an option can say are cut (65535 bytes: a
 * comment that long is a bug upstream, not something to fail on). */
static size_t opt_len(size_t n)
{
	return n > 65532 ? 65532 : n;
}

static size_t opt_size(size_t n)
{
	return 4 + pad4(opt_len(n));
}

static void put_opt(struct pcapng_writer *w, uint16_t code, const void *v, size_t n)
{
	uint16_t h[2] = { code, (uint16_t)opt_len(n) };

	put(w, h, 4);
	put(w, v, opt_len(n));
	put_pad(w, opt_len(n));
}

static size_t str_opt_size(const char *s)
{
	return s && *s ? opt_size(strlen(s)) : 0;
}

static void put_str_opt(struct pcapng_writer *w, uint16_t code, const char *s)
{
	if (s && *s)
		put_opt(w, code, s, strlen(s));
}

static void put_end(struct pcapng_writer *w)
{
	put32(w, OPT_END);
}

void pcapng_begin(struct pcapng_writer *w, FILE *fp, const char *appl,
		  const char *comment)
{
	uint16_t ver[2] = { 1, 0 };
	int64_t section_len = -1; /* not known when the header is written */
	size_t opts = str_opt_size(appl) + str_opt_size(comment);
	uint32_t len;

	memset(w, 0, sizeof(*w));
	w->fp = fp;
	if (opts)
		opts += 4;
	len = (uint32_t)(28 + opts);
	put32(w, BT_SHB);
	put32(w, len);
	put32(w, BYTE_ORDER_MAGIC);
	put(w, ver, 4);
	put(w, &section_len, 8);
	put_str_opt(w, OPT_COMMENT, comment);
	put_str_opt(w, SHB_USERAPPL, appl);
	if (opts)
		put_end(w);
	put32(w, len);
}

uint32_t pcapng_add_if(struct pcapng_writer *w, const struct pcapng_if *ifc)
{
	uint16_t lt[2] = { ifc->linktype, 0 };
	uint8_t tsresol = 9; /* 10^-9 s */
	size_t opts = str_opt_size(ifc->name) + str_opt_size(ifc->descr) +
		      str_opt_size(ifc->comment) + opt_size(1) + 4;
	uint32_t len;

	if (ifc->speed_bps)
		opts += opt_size(8);
	len = (uint32_t)(20 + opts);
	put32(w, BT_IDB);
	put32(w, len);
	put(w, lt, 4);
	put32(w, ifc->snaplen);
	put_str_opt(w, OPT_COMMENT, ifc->comment);
	put_str_opt(w, IF_NAME, ifc->name);
	put_str_opt(w, IF_DESCRIPTION, ifc->descr);
	if (ifc->speed_bps)
		put_opt(w, IF_SPEED, &ifc->speed_bps, 8);
	put_opt(w, IF_TSRESOL, &tsresol, 1);
	put_end(w);
	put32(w, len);
	return w->n_ifs++;
}

void pcapng_packet(struct pcapng_writer *w, uint32_t if_id, int64_t ts_ns,
		   const uint8_t *data, uint32_t caplen, uint32_t wirelen,
		   enum pcapng_dir dir, const char *comment)
{
	uint64_t ts = ts_ns < 0 ? 0 : (uint64_t)ts_ns;
	uint32_t flags = (uint32_t)dir;
	size_t opts = str_opt_size(comment) + (dir ? opt_size(4) : 0);
	uint32_t len;

	if (opts)
		opts += 4;
	len = (uint32_t)(32 + pad4(caplen) + opts);
	put32(w, BT_EPB);
	put32(w, len);
	put32(w, if_id);
	put32(w, (uint32_t)(ts >> 32));
	put32(w, (uint32_t)ts);
	put32(w, caplen);
	put32(w, wirelen);
	put(w, data, caplen);
	put_pad(w, caplen);
	put_str_opt(w, OPT_COMMENT, comment);
	if (dir)
		put_opt(w, EPB_FLAGS, &flags, 4);
	if (opts)
		put_end(w);
	put32(w, len);
	w->packets++;
}

int pcapng_error(const struct pcapng_writer *w)
{
	return w->err;
}

static size_t tlv(uint8_t *buf, size_t size, size_t off, uint16_t tag,
		  const void *v, size_t n)
{
	size_t padded = pad4(n);

	if (off + 4 + padded > size)
		return 0;
	buf[off] = (uint8_t)(tag >> 8);
	buf[off + 1] = (uint8_t)tag;
	buf[off + 2] = (uint8_t)(padded >> 8); /* NUL padding counts */
	buf[off + 3] = (uint8_t)padded;
	memset(buf + off + 4, 0, padded);
	if (n)
		memcpy(buf + off + 4, v, n);
	return off + 4 + padded;
}

size_t pcapng_exported_pdu_header(uint8_t *buf, size_t size,
				  const char *dissector, int dir)
{
	size_t off = tlv(buf, size, 0, EXP_PDU_TAG_DISSECTOR_NAME, dissector,
			 strlen(dissector));

	if (off && (dir == EXP_PDU_P2P_SENT || dir == EXP_PDU_P2P_RECV)) {
		uint8_t v[4] = { 0, 0, 0, (uint8_t)dir }; /* big-endian */

		off = tlv(buf, size, off, EXP_PDU_TAG_P2P_DIRECTION, v, 4);
	}
	if (off)
		off = tlv(buf, size, off, EXP_PDU_TAG_END_OF_OPT, NULL, 0);
	return off;
}
