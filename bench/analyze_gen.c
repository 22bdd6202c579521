/* analyze_gen DIR [FLOWS [BYTES [SEED]]]: write a large run directory for
 * bench/analyze.sh: the rack8 fabric (8 racks x 4 hosts, OCS), FLOWS
 * shuffle fetches of BYTES each (default 700 x 1 MB, about 3 million
 * packets over 48 captures), concurrent, written in time order through a
 * min-heap of flows, so every capture holds interleaved connections as a
 * ToR port would: MTU-sized segments at the host rate, an ACK every second
 * segment, 0.5% of segments sent twice, a third of the cross-rack flows
 * over the OCS (data on the ocs ports, requests and ACKs on the uplinks). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/pcap_read.h"
#include "core/rng.h"
#include "core/rundir.h"
#include "pcap_fixture.h"

#define RACKS 8
#define HOSTS 4
#define US ((int64_t)1000)
#define MSS 1448
#define GAP (123 * US) /* a 1514-byte frame at 100 Mbit/s */
#define BASE 1700000000000000000LL

enum { PH_SYN, PH_SYNACK, PH_ACK, PH_REQ, PH_DATA, PH_FINACK, PH_FIN1, PH_FIN2, PH_LAST, PH_DONE };

struct gflow {
	unsigned id, cr, ch, sr, sh; /* client and server rack/host */
	bool ocs;
	uint16_t cport;
	uint32_t isn_c, isn_s;
	uint64_t bytes, nseg, k; /* next segment */
	int phase;
	int64_t t, t0, t_end;
	bool ack_due, resend;
	uint64_t resend_seg;
};

static struct fx_pcap *host_cap[RACKS][HOSTS], *up_cap[RACKS], *ocs_cap[RACKS];

static uint32_t addr(unsigned rack, unsigned host, bool ocs)
{
	return (10u << 24) | ((ocs ? 16u : 0u) << 16) | (rack << 8) | (host + 1);
}

static void put(struct gflow *f, bool from_cli, uint32_t seq, uint32_t ack,
		uint8_t flags, uint32_t payload)
{
	uint32_t c = addr(f->cr, f->ch, f->ocs), s = addr(f->sr, f->sh, f->ocs);
	struct fx_seg g = {
		.saddr = from_cli ? c : s, .daddr = from_cli ? s : c,
		.sport = from_cli ? f->cport : 13562, .dport = from_cli ? 13562 : f->cport,
		.seq = seq, .ack = ack, .flags = flags, .payload = payload,
	};

	fx_tcp(host_cap[f->cr][f->ch], f->t, &g);
	fx_tcp(host_cap[f->sr][f->sh], f->t, &g);
	if (f->cr == f->sr)
		return;
	if (!from_cli && f->ocs) {
		fx_tcp(ocs_cap[f->sr], f->t, &g);
		fx_tcp(ocs_cap[f->cr], f->t, &g);
	} else {
		fx_tcp(up_cap[f->sr], f->t, &g);
		fx_tcp(up_cap[f->cr], f->t, &g);
	}
}

/* Emit the flow's next packet at f->t and schedule the one after. */
static void step(struct gflow *f, struct rng *r)
{
	uint32_t cs = f->isn_c + 101, ss = f->isn_s + 1;

	switch (f->phase) {
	case PH_SYN:
		put(f, true, f->isn_c, 0, TCPF_SYN, 0);
		f->t += 60 * US, f->phase = PH_SYNACK;
		return;
	case PH_SYNACK:
		put(f, false, f->isn_s, f->isn_c + 1, TCPF_SYN | TCPF_ACK, 0);
		f->t += 60 * US, f->phase = PH_ACK;
		return;
	case PH_ACK:
		put(f, true, f->isn_c + 1, ss, TCPF_ACK, 0);
		f->t += 10 * US, f->phase = PH_REQ;
		return;
	case PH_REQ:
		put(f, true, f->isn_c + 1, ss, TCPF_ACK | TCPF_PSH, 100);
		f->t += 100 * US, f->phase = PH_DATA;
		return;
	case PH_DATA:
		if (f->ack_due) {
			put(f, true, cs, ss + (uint32_t)(f->k * MSS), TCPF_ACK, 0);
			f->ack_due = false;
			f->t += GAP - 5 * US;
			return;
		}
		if (f->resend) {
			uint64_t off = f->resend_seg * MSS;

			put(f, false, ss + (uint32_t)off, cs, TCPF_ACK, MSS);
			f->resend = false;
			f->t += GAP;
			return;
		}
		{
			uint64_t off = f->k * MSS;
			uint32_t len = (uint32_t)(f->bytes - off < MSS ? f->bytes - off : MSS);

			put(f, false, ss + (uint32_t)off, cs, TCPF_ACK, len);
			f->k++;
			if (f->k < f->nseg && rng_below(r, 200) == 0) {
				f->resend = true;
				f->resend_seg = f->k - 1;
			}
			if (f->k == f->nseg) {
				f->t += 50 * US, f->phase = PH_FINACK;
			} else if (f->k % 2 == 0) {
				f->ack_due = true;
				f->t += 5 * US;
			} else {
				f->t += GAP;
			}
		}
		return;
	case PH_FINACK:
		put(f, true, cs, ss + (uint32_t)f->bytes, TCPF_ACK, 0);
		f->t_end = f->t;
		f->t += 10 * US, f->phase = PH_FIN1;
		return;
	case PH_FIN1:
		put(f, false, ss + (uint32_t)f->bytes, cs, TCPF_FIN | TCPF_ACK, 0);
		f->t += 10 * US, f->phase = PH_FIN2;
		return;
	case PH_FIN2:
		put(f, true, cs, ss + (uint32_t)f->bytes + 1, TCPF_FIN | TCPF_ACK, 0);
		f->t += 10 * US, f->phase = PH_LAST;
		return;
	case PH_LAST:
		put(f, false, ss + (uint32_t)f->bytes + 1, cs + 1, TCPF_ACK, 0);
		f->phase = PH_DONE;
		return;
	}
}

/* binary min-heap of flows by next packet time */
static struct gflow **heap;
static size_t heap_n;

static void heap_push(struct gflow *f)
{
	size_t i = heap_n++;

	while (i && heap[(i - 1) / 2]->t > f->t) {
		heap[i] = heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	heap[i] = f;
}

static struct gflow *heap_pop(void)
{
	struct gflow *top = heap[0], *last = heap[--heap_n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < heap_n) {
		if (c + 1 < heap_n && heap[c + 1]->t < heap[c]->t)
			c++;
		if (heap[c]->t >= last->t)
			break;
		heap[i] = heap[c];
		i = c;
	}
	heap[i] = last;
	return top;
}

static FILE *open_in(const char *dir, const char *rel)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fp = fopen(path, "w");
	if (!fp) {
		perror(path);
		exit(1);
	}
	return fp;
}

int main(int argc, char **argv)
{
	unsigned n = 700, per_coflow = 20, i, r, h;
	uint64_t bytes = 1000000, seed = 1;
	struct gflow *flows;
	struct rng rng;
	char path[4096];
	FILE *mf, *ff, *jf, *cf, *tf;
	int64_t t;

	if (argc < 2 || argc > 5) {
		fprintf(stderr, "usage: analyze_gen DIR [FLOWS [BYTES [SEED]]]\n");
		return 2;
	}
	if (argc > 2)
		n = (unsigned)strtoul(argv[2], NULL, 10);
	if (argc > 3)
		bytes = strtoull(argv[3], NULL, 10);
	if (argc > 4)
		seed = strtoull(argv[4], NULL, 10);
	if (!n || !bytes) {
		fprintf(stderr, "analyze_gen: FLOWS and BYTES must be positive\n");
		return 2;
	}
	rng_seed(&rng, seed);
	mkdir(argv[1], 0777);
	snprintf(path, sizeof(path), "%s/inputs", argv[1]);
	mkdir(path, 0777);
	snprintf(path, sizeof(path), "%s/app", argv[1]);
	mkdir(path, 0777);
	snprintf(path, sizeof(path), "%s/pcap", argv[1]);
	mkdir(path, 0777);
	tf = open_in(argv[1], "inputs/topology.topo");
	fprintf(tf, "name rack8\nracks 8\nhosts 4\ncontainers 4\nhost_rate 100Mbit\n"
		    "uplink_rate 40Mbit\nocs yes\nocs_rate 400Mbit\ndelta 10ms\nt_e 4.5MB\n");
	fclose(tf);
	for (r = 0; r < RACKS; r++) {
		for (h = 0; h < HOSTS; h++) {
			snprintf(path, sizeof(path), "%s/pcap/tor%u-h%u.pcap", argv[1], r, h);
			host_cap[r][h] = fx_pcap_open(path, DLT_EN10MB);
		}
		snprintf(path, sizeof(path), "%s/pcap/tor%u-up.pcap", argv[1], r);
		up_cap[r] = fx_pcap_open(path, DLT_EN10MB);
		snprintf(path, sizeof(path), "%s/pcap/tor%u-ocs.pcap", argv[1], r);
		ocs_cap[r] = fx_pcap_open(path, DLT_EN10MB);
	}

	/* Flows start as a Poisson process at a rate that keeps about 24
	 * fetches in flight (a shuffle's worth across 32 hosts). */
	flows = calloc(n, sizeof(*flows));
	heap = calloc(n, sizeof(*heap));
	t = BASE + 1000000;
	for (i = 0; i < n; i++) {
		struct gflow *f = &flows[i];
		int64_t dur = (int64_t)((bytes + MSS - 1) / MSS) * GAP;

		f->id = i;
		f->cr = (unsigned)rng_below(&rng, RACKS);
		f->ch = (unsigned)rng_below(&rng, HOSTS);
		do {
			f->sr = (unsigned)rng_below(&rng, RACKS);
			f->sh = (unsigned)rng_below(&rng, HOSTS);
		} while (f->sr == f->cr && f->sh == f->ch);
		f->ocs = f->sr != f->cr && rng_below(&rng, 3) == 0;
		f->cport = (uint16_t)(32768 + i % 28000);
		f->isn_c = (uint32_t)rng_u64(&rng);
		f->isn_s = (uint32_t)rng_u64(&rng);
		f->bytes = bytes;
		f->nseg = (bytes + MSS - 1) / MSS;
		t += (int64_t)rng_exp(&rng, (double)dur / 24.0);
		f->t = f->t0 = t;
		heap_push(f);
	}
	while (heap_n) {
		struct gflow *f = heap_pop();

		step(f, &rng);
		if (f->phase != PH_DONE)
			heap_push(f);
	}
	for (r = 0; r < RACKS; r++) {
		for (h = 0; h < HOSTS; h++)
			fx_pcap_close(host_cap[r][h]);
		fx_pcap_close(up_cap[r]);
		fx_pcap_close(ocs_cap[r]);
	}

	mf = open_in(argv[1], "manifest.csv");
	ff = open_in(argv[1], "app/fetches.csv");
	jf = open_in(argv[1], "app/jobs.csv");
	cf = open_in(argv[1], "app/coflows.csv");
	fprintf(mf, "%s\n", RUNDIR_MANIFEST_HEADER);
	fprintf(ff, "flow,conn,connect_ns,established_ns,first_byte_ns,last_byte_ns,bytes,verified\n");
	fprintf(jf, "job,user,arrival_ns,ready_ns,start_ns,maps_done_ns,end_ns,maps,reduces,shuffle_bytes\n");
	fprintf(cf, "coflow,job,flows,bytes,ocs_bytes,lower_bound_ns,start_ns,end_ns\n");
	for (i = 0; i < n; i += per_coflow) {
		unsigned j, m = n - i < per_coflow ? n - i : per_coflow;
		int64_t s = INT64_MAX, e = 0;
		uint64_t ob = 0;

		for (j = i; j < i + m; j++) {
			if (flows[j].t0 - 15 * US < s)
				s = flows[j].t0 - 15 * US;
			if (flows[j].t_end > e)
				e = flows[j].t_end;
			ob += flows[j].ocs ? bytes : 0;
		}
		fprintf(jf, "j%u,u%u,%" PRId64 ",-1,%" PRId64 ",-1,%" PRId64 ",%u,%u,%" PRIu64 "\n",
			i / per_coflow, i / per_coflow % 4, s - (int64_t)NSEC_PER_MSEC, s, e + 100 * US,
			m, m, (uint64_t)m * bytes);
		fprintf(cf, "%u,j%u,%u,%" PRIu64 ",%" PRIu64 ",-1,%" PRId64 ",%" PRId64 "\n",
			i / per_coflow, i / per_coflow, m, (uint64_t)m * bytes, ob, s, e);
	}
	for (i = 0; i < n; i++) {
		const struct gflow *f = &flows[i];
		char c[16], s[16];

		snprintf(c, sizeof(c), "r%uh%u", f->cr, f->ch);
		snprintf(s, sizeof(s), "r%uh%u", f->sr, f->sh);
		fprintf(mf, "k%u,%u,%u,j%u,%u,%u,%s,10.%u.%u.%u,%u,%s,10.%u.%u.%u,13562,%s,%" PRIu64 ",shuffle,0,j%u/shuffle/r0/m%u@%s\n",
			i, i, i / per_coflow, i / per_coflow, i % per_coflow, 0u, c,
			f->ocs ? 16 : 0, f->cr, f->ch + 1, f->cport, s, f->ocs ? 16 : 0,
			f->sr, f->sh + 1,
			f->cr != f->sr ? (f->ocs ? "ocs" : "eps") : "rack", bytes,
			i / per_coflow, i, s);
		/* the reducer's clock: connect() 15us before the SYN, the last
		 * byte read 0-100us before its ACK leaves */
		fprintf(ff, "%u,k%u,%" PRId64 ",-1,-1,%" PRId64 ",%" PRIu64 ",1\n", i, i,
			f->t0 - 15 * US,
			f->t_end - (int64_t)rng_below(&rng, 100) * US, bytes);
	}
	if (fclose(mf) || fclose(ff) || fclose(jf) || fclose(cf)) {
		perror("analyze_gen");
		return 1;
	}
	free(flows);
	free(heap);
	return 0;
}
