/* Fuzz target: the shuffle service's requests, as the service reads them
 * from a peer. The first byte says which socket: the TCP one (a fetch:
 * the first line, at most SHUFFLE_REQ_MAX bytes, is the request) or the
 * registration socket (every line a registration). The properties: a
 * request accepted has 1 or more partitions, each of a map number and a
 * byte count below 2^63, and no more partitions than the line could
 * hold; the first bytes of each partition's stream can be made. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "core/util.h"
#include "emul/shuffle.h"
#include "fuzz.h"

FUZZ_TARGET(shuffle)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct shuffle_req r;
	const char *p, *nl;
	size_t left, len;
	uint32_t i;

	if (!size)
		return 0;
	p = (const char *)data + 1;
	left = size - 1;
	if (data[0] & 1) {
		/* registrations: one per line, the last without an end of
		 * line is left unread */
		while ((nl = memchr(p, '\n', left))) {
			uint32_t j, m;

			len = (size_t)(nl - p);
			if (!shuffle_reg_parse(p, len, &j, &m) && len < 7)
				fuzz_fail("a registration of %zu bytes accepted", len);
			left -= len + 1;
			p = nl + 1;
		}
		return 0;
	}
	nl = memchr(p, '\n', left < SHUFFLE_REQ_MAX ? left : SHUFFLE_REQ_MAX);
	if (!nl)
		return 0; /* no whole request: the service waits, then closes */
	len = (size_t)(nl - p);
	if (shuffle_req_parse(p, len, &r, errbuf)) {
		if (!errbuf[0])
			fuzz_fail("a refusal without a reason");
		return 0;
	}
	if (!r.n_parts || !r.parts || r.n_parts > len / 4 + 1)
		fuzz_fail("%u partitions from a line of %zu bytes", r.n_parts, len);
	for (i = 0; i < r.n_parts && i < 16; i++) {
		uint8_t head[16];

		if (r.parts[i].bytes > UINT64_MAX / 2)
			fuzz_fail("partition of %llu bytes", (unsigned long long)r.parts[i].bytes);
		shuffle_fill(shuffle_key(1, r.job, r.parts[i].map, r.reduce), 0, head,
			     r.parts[i].bytes < sizeof(head) ? (size_t)r.parts[i].bytes : sizeof(head));
	}
	shuffle_req_free(&r);
	return 0;
}
