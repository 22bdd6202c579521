/* VOQs and wire accounting: pure code, tested without root. */
#include "config.h"

#include <errno.h>
#include <linux/virtio_net.h>
#include <stdlib.h>
#include <string.h>

#include "emul/ocs.h"

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Length of the Ethernet, IP and TCP/UDP headers of a frame, or 0 if they
 * cannot be read (then the frame is counted as one segment). */
static uint32_t l4_header_len(const unsigned char *f, uint32_t len)
{
	uint32_t off = 14, l4;
	uint16_t type;
	uint8_t proto;

	if (len < off)
		return 0;
	type = get16(f + 12);
	if (type == 0x8100) { /* one VLAN tag */
		if (len < off + 4)
			return 0;
		type = get16(f + 16);
		off += 4;
	}
	if (type == 0x0800) {
		if (len < off + 20 || (f[off] >> 4) != 4)
			return 0;
		proto = f[off + 9];
		l4 = off + (uint32_t)(f[off] & 0x0f) * 4;
	} else if (type == 0x86dd) {
		if (len < off + 40)
			return 0;
		proto = f[off + 6];
		l4 = off + 40;
	} else {
		return 0;
	}
	if (proto == 6) {
		if (len < l4 + 20)
			return 0;
		return l4 + (uint32_t)(f[l4 + 12] >> 4) * 4;
	}
	if (proto == 17)
		return l4 + 8;
	return 0;
}

uint64_t ocs_wire_bytes(const void *vnet, const void *frame, uint32_t len)
{
	struct virtio_net_hdr vh;
	uint32_t hdr, payload, segs;

	/* The header is in host byte order on AF_PACKET (little-endian
	 * virtio on x86). */
	memcpy(&vh, vnet, sizeof(vh));
	if ((vh.gso_type & ~VIRTIO_NET_HDR_GSO_ECN) == VIRTIO_NET_HDR_GSO_NONE ||
	    vh.gso_size == 0)
		return len;
	hdr = l4_header_len(frame, len);
	if (hdr == 0 || hdr >= len)
		return len;
	payload = len - hdr;
	segs = (payload + vh.gso_size - 1) / vh.gso_size;
	return (uint64_t)len + (uint64_t)(segs - 1) * hdr;
}

uint64_t ocs_voq_default(uint64_t rate_bps, int64_t delta_ns)
{
	/* delta x bw_o in bytes. In double: rate x delta overflows 64 bits
	 * (10Gbit x 10s in bit-ns), and a byte of rounding does not matter. */
	double b = (double)rate_bps / 8.0 * (double)delta_ns / 1e9;
	uint64_t v = b > 1e15 ? (uint64_t)1e15 : (uint64_t)(b + 0.5);

	return v < OCS_VOQ_MIN ? OCS_VOQ_MIN : v;
}

int ocs_voq_push(struct ocs_voq *q, uint64_t bound, const void *vnet,
		 const void *frame, uint32_t len, uint32_t wire)
{
	struct ocs_frame *f;

	if (q->bytes + len > bound) {
		q->dropped_frames++;
		q->dropped_bytes += len;
		return -ENOBUFS;
	}
	f = xmalloc(sizeof(*f) + OCS_VNET_LEN + len);
	f->next = NULL;
	f->len = len;
	f->wire = wire;
	memcpy(f->buf, vnet, OCS_VNET_LEN);
	memcpy(f->buf + OCS_VNET_LEN, frame, len);
	if (q->tail)
		q->tail->next = f;
	else
		q->head = f;
	q->tail = f;
	q->frames++;
	q->bytes += len;
	if (q->bytes > q->peak_bytes)
		q->peak_bytes = q->bytes;
	return 0;
}

struct ocs_frame *ocs_voq_pop(struct ocs_voq *q)
{
	struct ocs_frame *f = q->head;

	if (!f)
		return NULL;
	q->head = f->next;
	if (!q->head)
		q->tail = NULL;
	q->frames--;
	q->bytes -= f->len;
	f->next = NULL;
	return f;
}

void ocs_voq_clear(struct ocs_voq *q)
{
	struct ocs_frame *f;

	while ((f = ocs_voq_pop(q)))
		free(f);
}
