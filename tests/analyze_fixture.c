/* The golden run directory (see analyze_fixture.h).
 *
 * Topology tiny (2 racks x 2 hosts). Timeline of a flow starting at t0, on
 * the client's host port: SYN t0, SYN-ACK t0+100us, ACK t0+200us, request
 * (100 bytes) t0+210us, data segment i at t0+300us+i*100us (in emission
 * order), a client ACK after every second segment (never one that covers
 * the last byte), the client's ACK of the last byte 50us after the last
 * data packet, then FIN, FIN, ACK 10/20/30us later. So FCT = 50us after
 * the last data packet - t0, e.g. 7 segments: 950us.
 *
 *  flow job path  client -> server          bytes   what              FCT
 *  1    a   eps   r0h0:40001 <- r1h0        10000   7 segs, the last  950us
 *                                                   again after close
 *  2    a   ocs   r0h1:40002 <- r1h1 (OCS)  5000    seg 1 sent twice  750us
 *  3    a   rack  r0h0:40003 <- r0h1        4344    segs 1,0,2        550us
 *  4    b   eps   r1h0:40004 <- r0h0        8000    3 segs, no end    -
 *  5    c   eps   r1h1:40005 <- r0h1        150000  90000+60000 super 450us
 *  6    c   eps   r1h0:40006 <- r0h1        3000    port reused by 7  550us
 *  7    c   eps   r1h0:40006 <- r0h1        2000    new ISN           450us
 *  8    c   host  r1h0 <- r1h0              7000    loopback: app     2ms
 *  9    b   eps   r1h1:40009 <- r0h1        1000    never captured    -
 *  10   a   eps   r1h1:40010 -> r0h0:9866   3000    an output write   550us
 * Flow 10 is an HDFS write: the client sends a 40-byte request, then the
 * data (3 segments from t0+300us), the server ACKs after the second and
 * covers the last byte 50us after it: measured on the server's port
 * (tor0-h0), its path bytes on tor0-up, the request left out.
 * plus a connection in no manifest line (10.0.0.1:50000 -> 10.0.1.2:22)
 * and ARP frames. Segment sizes above the MTU are GSO/GRO super-frames; the
 * 90000-byte one is a BIG TCP frame (IP total length 0). The app's connect() is 20us before each SYN; its last
 * byte is at the final ACK + e: e = -100, +30, -500, -, 0, -50, +2000 us. */
#include "config.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/pcap_read.h"
#include "core/rundir.h"
#include "analyze_fixture.h"
#include "pcap_fixture.h"

#define US 1000LL
#define MS 1000000LL
#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

enum { P_T0H0, P_T0H1, P_T1H0, P_T1H1, P_T0UP, P_T1UP, P_T0OCS, P_T1OCS, P_N };
static const char *const port_names[P_N] = {
	"tor0-h0", "tor0-h1", "tor1-h0", "tor1-h1",
	"tor0-up", "tor1-up", "tor0-ocs", "tor1-ocs",
};

struct fx_end {
	struct fx_pcap *host, *eps, *ocs; /* this end's ToR ports */
};

struct fx_conn {
	uint32_t cli, srv;
	uint16_t cport, sport;
	uint32_t isn_c, isn_s;
	struct fx_end c, s;
	bool cross, ocs;
};

struct fx_opt {
	uint64_t bytes;
	uint32_t mss;
	int retrans;	/* segment sent again after the last one, -1 none */
	int swap;	/* segment emitted after the next one, -1 none */
	int stop_after; /* segments emitted before the capture ends, -1 all */
	bool late;	/* the last segment sent again after the close */
};

/* Where a packet is seen: client -> server over the EPS (HYDE_TOS_REVERSE
 * keeps requests and ACKs off the OCS), server -> client over its path. */
static void emit(const struct fx_conn *c, int64_t ts, bool from_cli,
		 uint32_t seq, uint32_t ack, uint8_t flags, uint32_t payload)
{
	struct fx_seg s = {
		.saddr = from_cli ? c->cli : c->srv,
		.daddr = from_cli ? c->srv : c->cli,
		.sport = from_cli ? c->cport : c->sport,
		.dport = from_cli ? c->sport : c->cport,
		.seq = seq, .ack = ack, .flags = flags, .payload = payload,
	};

	fx_tcp(c->c.host, ts, &s);
	if (c->s.host && c->s.host != c->c.host)
		fx_tcp(c->s.host, ts, &s);
	if (!c->cross)
		return;
	if (!from_cli && c->ocs) {
		fx_tcp(c->s.ocs, ts, &s);
		fx_tcp(c->c.ocs, ts, &s);
	} else {
		fx_tcp(c->s.eps, ts, &s);
		fx_tcp(c->c.eps, ts, &s);
	}
}

/* One fetch on the timeline above; returns the time of the client's ACK of
 * the last byte (-1 if the flow stops before). */
static int64_t fx_flow(const struct fx_conn *c, int64_t t0, const struct fx_opt *o)
{
	uint32_t nseg = (uint32_t)((o->bytes + o->mss - 1) / o->mss), i, k, n = 0;
	uint32_t cs = c->isn_c + 1 + 100, ss = c->isn_s + 1;
	uint32_t order[64];
	bool got[64] = { false };
	uint64_t contig = 0;
	int64_t t = t0 + 300 * US, t_ack;

	emit(c, t0, true, c->isn_c, 0, TCPF_SYN, 0);
	emit(c, t0 + 100 * US, false, c->isn_s, c->isn_c + 1, TCPF_SYN | TCPF_ACK, 0);
	emit(c, t0 + 200 * US, true, c->isn_c + 1, ss, TCPF_ACK, 0);
	emit(c, t0 + 210 * US, true, c->isn_c + 1, ss, TCPF_ACK | TCPF_PSH, 100);
	for (i = 0; i < nseg; i++)
		order[n++] = i;
	if (o->swap >= 0) {
		order[o->swap] = (uint32_t)o->swap + 1;
		order[o->swap + 1] = (uint32_t)o->swap;
	}
	if (o->retrans >= 0)
		order[n++] = (uint32_t)o->retrans;
	if (o->stop_after >= 0)
		n = (uint32_t)o->stop_after;
	for (k = 0; k < n; k++, t += 100 * US) {
		uint32_t seg = order[k];
		uint64_t off = (uint64_t)seg * o->mss;
		uint32_t len = (uint32_t)(o->bytes - off < o->mss ? o->bytes - off : o->mss);

		emit(c, t, false, ss + (uint32_t)off, cs,
		     TCPF_ACK | (seg == nseg - 1 ? TCPF_PSH : 0), len);
		got[seg] = true;
		while (contig < o->bytes && got[contig / o->mss])
			contig = contig + o->mss > o->bytes ? o->bytes : contig + o->mss;
		if (k % 2 == 1 && contig < o->bytes)
			emit(c, t + 10 * US, true, cs, ss + (uint32_t)contig, TCPF_ACK, 0);
	}
	if (o->stop_after >= 0)
		return -1;
	t_ack = t - 100 * US + 50 * US;
	emit(c, t_ack, true, cs, ss + (uint32_t)o->bytes, TCPF_ACK, 0);
	emit(c, t_ack + 10 * US, false, ss + (uint32_t)o->bytes, cs, TCPF_FIN | TCPF_ACK, 0);
	emit(c, t_ack + 20 * US, true, cs, ss + (uint32_t)o->bytes + 1, TCPF_FIN | TCPF_ACK, 0);
	emit(c, t_ack + 30 * US, false, ss + (uint32_t)o->bytes + 1, cs + 1, TCPF_ACK, 0);
	if (o->late) {
		uint64_t off = (uint64_t)(nseg - 1) * o->mss;

		emit(c, t_ack + 40 * US, false, ss + (uint32_t)off, cs + 1, TCPF_ACK,
		     (uint32_t)(o->bytes - off));
	}
	return t_ack;
}

/* An output write on the same timeline, the other way: request (req
 * bytes) and data from the client, ACKs from the server. */
static void fx_write(const struct fx_conn *c, int64_t t0, uint32_t req, uint32_t bytes)
{
	uint32_t cs = c->isn_c + 1, ss = c->isn_s + 1, off = 0, k = 0;
	int64_t t = t0 + 300 * US, t_ack;

	emit(c, t0, true, c->isn_c, 0, TCPF_SYN, 0);
	emit(c, t0 + 100 * US, false, c->isn_s, cs, TCPF_SYN | TCPF_ACK, 0);
	emit(c, t0 + 200 * US, true, cs, ss, TCPF_ACK, 0);
	emit(c, t0 + 210 * US, true, cs, ss, TCPF_ACK | TCPF_PSH, req);
	while (off < bytes) {
		uint32_t len = bytes - off < 1448 ? bytes - off : 1448;

		emit(c, t, true, cs + req + off, ss, TCPF_ACK, len);
		off += len;
		if (++k % 2 == 0 && off < bytes)
			emit(c, t + 10 * US, false, ss, cs + req + off, TCPF_ACK, 0);
		t += 100 * US;
	}
	t_ack = t - 100 * US + 50 * US;
	emit(c, t_ack, false, ss, cs + req + bytes, TCPF_ACK, 0);
	emit(c, t_ack + 10 * US, true, cs + req + bytes, ss, TCPF_FIN | TCPF_ACK, 0);
	emit(c, t_ack + 20 * US, false, ss, cs + req + bytes + 1, TCPF_FIN | TCPF_ACK, 0);
	emit(c, t_ack + 30 * US, true, cs + req + bytes + 1, ss + 1, TCPF_ACK, 0);
}

static int write_text(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fp = fopen(path, "w");
	if (!fp)
		return -1;
	fputs(text, fp);
	return fclose(fp) ? -1 : 0;
}

static int mkdirs(const char *dir)
{
	char path[4096];
	static const char *const sub[] = { "inputs", "app", "pcap" };
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		if (mkdir(path, 0777) && errno != EEXIST)
			return -1;
	}
	return 0;
}

static const char topo_text[] =
	"name tiny\nracks 2\nhosts 2\ncontainers 2\nhost_rate 100Mbit\n"
	"uplink_rate 20Mbit\nocs yes\nocs_rate 400Mbit\ndelta 10ms\nt_e 4.5MB\n";

static const char jobs_text[] =
	"job,user,arrival_ns,ready_ns,start_ns,maps_done_ns,end_ns,maps,reduces,shuffle_bytes\n"
	"a,alice,1700000000000000000,1700000000000500000,1700000000001000000,1700000000009000000,1700000000050000000,2,2,19344\n"
	"b,bob,1700000000005000000,1700000000005500000,1700000000006000000,1700000000019000000,-1,1,2,9000\n"
	"c,alice,1700000000025000000,1700000000025500000,1700000000026000000,1700000000029000000,1700000000060000000,2,2,162000\n";

static const char coflows_text[] =
	"coflow,job,flows,bytes,ocs_bytes,lower_bound_ns,start_ns,end_ns\n"
	"0,a,3,19344,5000,10100000,1700000000009980000,1700000000012450000\n"
	"1,b,2,9000,0,-1,1700000000019980000,-1\n"
	"2,c,4,162000,0,-1,1700000000029980000,1700000000035000000\n";

static const char manifest_head[] =
	"conn,flow,coflow,job,maps,reduce,cli_node,cli_ip,cli_port,srv_node,srv_ip,srv_port,path,bytes,kind,req_bytes,name\n";
static const char manifest_body[] =
	"c1,1,0,a,1,0,r0h0,10.0.0.1,40001,r1h0,10.0.1.1,13562,eps,10000,shuffle,0,a/shuffle/r0/m1@r1h0\n"
	"c2,2,0,a,0,1,r0h1,10.16.0.2,40002,r1h1,10.16.1.2,13562,ocs,5000,shuffle,0,a/shuffle/r1/m2@r1h1\n"
	"c3,3,0,a,1,1,r0h0,10.0.0.1,40003,r0h1,10.0.0.2,13562,rack,4344,shuffle,0,a/shuffle/r1/m3@r0h1\n"
	"c4,4,1,b,0,0,r1h0,10.0.1.1,40004,r0h0,10.0.0.1,13562,eps,8000,shuffle,0,b/shuffle/r0/m4@r0h0\n"
	"c5,5,2,c,0,0,r1h1,10.0.1.2,40005,r0h1,10.0.0.2,13562,eps,150000,shuffle,0,c/shuffle/r0/m5@r0h1\n"
	"c6,6,2,c,0,1,r1h0,10.0.1.1,40006,r0h1,10.0.0.2,13562,eps,3000,shuffle,0,c/shuffle/r1/m6@r0h1\n"
	"c7,7,2,c,1,1,r1h0,10.0.1.1,40006,r0h1,10.0.0.2,13562,eps,2000,shuffle,0,c/shuffle/r1/m7@r0h1\n"
	"c8,8,2,c,1,0,r1h0,10.0.1.1,40008,r1h0,10.0.1.1,13562,host,7000,shuffle,0,c/shuffle/r0/m8@r1h0\n"
	"c9,9,1,b,0,1,r1h1,10.0.1.2,40009,r0h1,10.0.0.2,13562,eps,1000,shuffle,0,b/shuffle/r1/m9@r0h1\n"
	"c10,10,0,a,1,0,r1h1,10.0.1.2,40010,r0h0,10.0.0.1,9866,eps,3000,output,40,a/output/r0/10@r1h1\n";

static const char fetches_text[] =
	"flow,conn,connect_ns,established_ns,first_byte_ns,last_byte_ns,bytes,verified\n"
	"1,c1,1700000000009980000,1700000000010200000,1700000000010300000,1700000000010850000,10000,1\n"
	"2,c2,1700000000010980000,1700000000011200000,1700000000011300000,1700000000011780000,5000,1\n"
	"3,c3,1700000000011980000,1700000000012200000,1700000000012300000,1700000000012050000,4344,1\n"
	"4,c4,1700000000019980000,1700000000020200000,1700000000020300000,-1,4344,0\n"
	"5,c5,1700000000029980000,1700000000030200000,1700000000030300000,1700000000030450000,150000,1\n"
	"6,c6,1700000000030980000,1700000000031200000,1700000000031300000,1700000000031500000,3000,1\n"
	"7,c7,1700000000031980000,1700000000032200000,1700000000032300000,1700000000034450000,2000,1\n"
	"8,c8,1700000000033000000,1700000000033100000,1700000000033200000,1700000000035000000,7000,1\n"
	"9,c9,1700000000021000000,-1,-1,-1,0,0\n"
	"10,c10,1700000000012980000,1700000000013200000,1700000000013300000,1700000000013560000,3000,1\n";

/* Replace the ports of every manifest line (another run's manifest). */
static char *other_run_manifest(void)
{
	char *s = malloc(sizeof(manifest_head) + sizeof(manifest_body) + 64), *p;

	strcpy(s, manifest_head);
	strcat(s, manifest_body);
	for (p = strstr(s, ",400"); p; p = strstr(p + 1, ",400"))
		p[2] = '5'; /* 400xx -> 500xx */
	for (p = strstr(s, ",13562,"); p; p = strstr(p + 1, ",13562,"))
		memcpy(p, ",13563,", 7);
	return s;
}

static int write_captures(const char *dir, enum fx_variant v)
{
	struct fx_pcap *p[P_N] = { NULL };
	char path[4096];
	int i, ret = -1;
	int64_t t;

	for (i = 0; i < P_N; i++) {
		snprintf(path, sizeof(path), "%s/pcap/%s.pcap", dir, port_names[i]);
		p[i] = fx_pcap_open(path, v == FX_LINKTYPE && i == P_T1UP ? DLT_RAW : DLT_EN10MB);
		if (!p[i])
			goto out;
	}
	{
		struct fx_end r0h0 = { p[P_T0H0], p[P_T0UP], p[P_T0OCS] };
		struct fx_end r0h1 = { p[P_T0H1], p[P_T0UP], p[P_T0OCS] };
		struct fx_end r1h0 = { p[P_T1H0], p[P_T1UP], p[P_T1OCS] };
		struct fx_end r1h1 = { p[P_T1H1], p[P_T1UP], p[P_T1OCS] };
		struct fx_conn c1 = { IP(10, 0, 0, 1), IP(10, 0, 1, 1), 40001, 13562,
				      1000, 2000000000u, r0h0, r1h0, true, false };
		struct fx_conn c2 = { IP(10, 16, 0, 2), IP(10, 16, 1, 2), 40002, 13562,
				      4294967000u, 4294966000u, r0h1, r1h1, true, true };
		struct fx_conn c3 = { IP(10, 0, 0, 1), IP(10, 0, 0, 2), 40003, 13562,
				      3000, 4000, r0h0, r0h1, false, false };
		struct fx_conn c4 = { IP(10, 0, 1, 1), IP(10, 0, 0, 1), 40004, 13562,
				      5000, 6000, r1h0, r0h0, true, false };
		struct fx_conn c5 = { IP(10, 0, 1, 2), IP(10, 0, 0, 2), 40005, 13562,
				      7000, 8000, r1h1, r0h1, true, false };
		struct fx_conn c6 = { IP(10, 0, 1, 1), IP(10, 0, 0, 2), 40006, 13562,
				      9000, 10000, r1h0, r0h1, true, false };
		struct fx_conn c7 = c6;
		struct fx_conn c10 = { IP(10, 0, 1, 2), IP(10, 0, 0, 1), 40010, 9866,
				       13000, 14000, r1h1, r0h0, true, false };
		struct fx_opt o1 = { 10000, 1448, -1, -1, -1, true };
		struct fx_opt o2 = { 5000, 1448, 1, -1, -1, false };
		struct fx_opt o3 = { 4344, 1448, -1, 0, -1, false };
		struct fx_opt o4 = { 8000, 1448, -1, -1, 3, false };
		struct fx_opt o5 = { 150000, 90000, -1, -1, -1, false };
		struct fx_opt o6 = { 3000, 1448, -1, -1, -1, false };
		struct fx_opt o7 = { 2000, 1448, -1, -1, -1, false };
		struct fx_seg u = { IP(10, 0, 0, 1), IP(10, 0, 1, 2), 50000, 22,
				    777, 0, TCPF_SYN, 0 };

		c7.isn_c = 11000;
		c7.isn_s = 12000;
		fx_arp(p[P_T0H0], FX_B + 1 * MS);
		fx_arp(p[P_T1UP], FX_B + 1 * MS);
		fx_flow(&c1, FX_B + 10 * MS, &o1);
		fx_flow(&c2, FX_B + 11 * MS, &o2);
		fx_flow(&c3, FX_B + 12 * MS, &o3);
		fx_flow(&c4, FX_B + 20 * MS, &o4);
		fx_flow(&c5, FX_B + 30 * MS, &o5);
		fx_flow(&c6, FX_B + 31 * MS, &o6);
		fx_flow(&c7, FX_B + 32 * MS, &o7);
		fx_write(&c10, FX_B + 13 * MS, 40, 3000);
		/* the connection in no manifest line */
		t = FX_B + 40 * MS;
		fx_tcp(p[P_T0H0], t, &u);
		u = (struct fx_seg){ IP(10, 0, 1, 2), IP(10, 0, 0, 1), 22, 50000,
				     888, 778, TCPF_SYN | TCPF_ACK, 0 };
		fx_tcp(p[P_T0H0], t + 100 * US, &u);
		u = (struct fx_seg){ IP(10, 0, 0, 1), IP(10, 0, 1, 2), 50000, 22,
				     778, 889, TCPF_ACK, 0 };
		fx_tcp(p[P_T0H0], t + 200 * US, &u);
	}
	ret = 0;
out:
	for (i = 0; i < P_N; i++)
		if (p[i])
			fx_pcap_close(p[i]);
	return ret;
}

/* FX_MANY: FX_MANY_FLOWS fetches r0h0 <- r1h0, one a second, each closed
 * before the next: a capture much longer than a connection's life, to
 * show that closed connections are let go. */
static int write_many(const char *dir)
{
	char path[4096];
	struct fx_pcap *h, *up0, *up1, *o0, *o1;
	struct fx_end c, s;
	FILE *mf, *ff;
	unsigned i;
	int ret = -1;

	snprintf(path, sizeof(path), "%s/pcap/tor0-h0.pcap", dir);
	h = fx_pcap_open(path, DLT_EN10MB);
	snprintf(path, sizeof(path), "%s/pcap/tor0-up.pcap", dir);
	up0 = fx_pcap_open(path, DLT_EN10MB);
	snprintf(path, sizeof(path), "%s/pcap/tor1-up.pcap", dir);
	up1 = fx_pcap_open(path, DLT_EN10MB);
	o0 = up0, o1 = up1;
	snprintf(path, sizeof(path), "%s/manifest.csv", dir);
	mf = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/app/fetches.csv", dir);
	ff = fopen(path, "w");
	if (!h || !up0 || !up1 || !mf || !ff)
		goto out;
	c = (struct fx_end){ h, up0, o0 };
	s = (struct fx_end){ h, up1, o1 }; /* server's host port not captured */
	/* a manifest from before flows had names: still read */
	fputs(RUNDIR_MANIFEST_HEADER_V1 "\n", mf);
	fputs("flow,conn,connect_ns,established_ns,first_byte_ns,last_byte_ns,bytes,verified\n", ff);
	for (i = 0; i < FX_MANY_FLOWS; i++) {
		struct fx_conn k = { IP(10, 0, 0, 1), IP(10, 0, 1, 1), (uint16_t)(30000 + i), 13562,
				     i * 7919u, i * 104729u, c, s, true, false };
		struct fx_opt o = { 3000, 1448, -1, -1, -1, false };
		int64_t t0 = FX_B + (int64_t)i * 1000 * MS, t;

		k.s.host = NULL;
		t = fx_flow(&k, t0, &o);
		fprintf(mf, "m%u,%u,0,m,0,0,r0h0,10.0.0.1,%u,r1h0,10.0.1.1,13562,eps,3000,shuffle,0\n",
			i, i, 30000 + i);
		fprintf(ff, "%u,m%u,%lld,-1,-1,%lld,3000,1\n", i, i,
			(long long)(t0 - 20 * US), (long long)t);
	}
	ret = 0;
out:
	if (mf && fclose(mf))
		ret = -1;
	if (ff && fclose(ff))
		ret = -1;
	fx_pcap_close(h);
	fx_pcap_close(up0);
	fx_pcap_close(up1);
	return ret;
}

static int truncate_file(const char *path, long cut)
{
	struct stat sb;

	if (stat(path, &sb))
		return -1;
	return truncate(path, sb.st_size - cut);
}

int fixture_write_run(const char *dir, enum fx_variant v)
{
	char path[4096], *m = NULL;
	int r;

	if (mkdirs(dir) || write_text(dir, "inputs/topology.topo", topo_text))
		return -1;
	if (v == FX_MANY) {
		char cf[256];

		snprintf(cf, sizeof(cf), "coflow,job,flows,bytes,ocs_bytes,lower_bound_ns,start_ns,end_ns\n"
			 "0,m,%d,%d,0,-1,-1,-1\n", FX_MANY_FLOWS, FX_MANY_FLOWS * 3000);
		if (write_text(dir, "app/jobs.csv",
			       "job,user,arrival_ns,ready_ns,start_ns,maps_done_ns,end_ns,maps,reduces,shuffle_bytes\n"
			       "m,alice,1700000000000000000,-1,-1,-1,-1,1,1,0\n") ||
		    write_text(dir, "app/coflows.csv", cf))
			return -1;
		return write_many(dir);
	}
	if (write_text(dir, "app/jobs.csv", jobs_text) ||
	    write_text(dir, "app/coflows.csv", coflows_text))
		return -1;
	switch (v) {
	case FX_MANIFEST_RUN:
		m = other_run_manifest();
		break;
	case FX_MANIFEST_TOPO:
		m = malloc(sizeof(manifest_head) + sizeof(manifest_body) + 8);
		strcpy(m, manifest_head);
		strcat(m, manifest_body);
		memcpy(strstr(m, "c5,5,2,c,0,0,r1h1"), "c5,5,2,c,0,0,r7h1", 17);
		break;
	case FX_MANIFEST_HDR:
		m = malloc(sizeof(manifest_head) + sizeof(manifest_body) + 8);
		strcpy(m, "conn,flow,coflow,job,cli_ip,cli_port,srv_ip,srv_port,bytes\n");
		strcat(m, manifest_body);
		break;
	default:
		m = malloc(sizeof(manifest_head) + sizeof(manifest_body));
		strcpy(m, manifest_head);
		strcat(m, manifest_body);
		break;
	}
	r = write_text(dir, "manifest.csv", m);
	free(m);
	if (r)
		return -1;
	if (v == FX_FETCH_CONN) {
		char *f = strdup(fetches_text);

		memcpy(strstr(f, "3,c3,"), "3,c4,", 5);
		r = write_text(dir, "app/fetches.csv", f);
		free(f);
	} else {
		r = write_text(dir, "app/fetches.csv", fetches_text);
	}
	if (r || write_captures(dir, v))
		return -1;
	switch (v) {
	case FX_TRUNCATED:
		snprintf(path, sizeof(path), "%s/pcap/tor0-h0.pcap", dir);
		return truncate_file(path, 10);
	case FX_CORRUPT:
		snprintf(path, sizeof(path), "%s/pcap/tor0-up.pcap", dir);
		{
			FILE *fp = fopen(path, "r+");

			if (!fp)
				return -1;
			fputs("this is not a pcap", fp);
			return fclose(fp) ? -1 : 0;
		}
	default:
		return 0;
	}
}

int fixture_variant(const char *name)
{
	static const char *const names[] = {
		[FX_GOOD] = "good", [FX_TRUNCATED] = "truncated",
		[FX_CORRUPT] = "corrupt", [FX_LINKTYPE] = "linktype",
		[FX_MANIFEST_TOPO] = "manifest-topo", [FX_MANIFEST_RUN] = "manifest-run",
		[FX_MANIFEST_HDR] = "manifest-header", [FX_FETCH_CONN] = "fetch-conn",
		[FX_MANY] = "many",
	};
	int i;

	for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}
