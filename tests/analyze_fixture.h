/* A small run directory with known connections and timings (the golden
 * analyzer test, also behind tests/mkfixture for the shell test and the
 * README's example). Every expected figure follows from the timeline in
 * analyze_fixture.c. */
#ifndef HYDE_ANALYZE_FIXTURE_H
#define HYDE_ANALYZE_FIXTURE_H

#include <stdint.h>

/* The base time: 2023-11-14 22:13:20 UTC, in ns. */
#define FX_B 1700000000000000000LL

enum fx_variant {
	FX_GOOD,
	FX_TRUNCATED,	  /* tor0-h0.pcap cut inside its last packet */
	FX_CORRUPT,	  /* tor0-up.pcap with a garbage file header */
	FX_LINKTYPE,	  /* tor1-up.pcap of link type RAW, not Ethernet */
	FX_MANIFEST_TOPO, /* a manifest line naming a host the topology lacks */
	FX_MANIFEST_RUN,  /* a manifest of another run: no 4-tuple matches */
	FX_MANIFEST_HDR,  /* a manifest with another header */
	FX_FETCH_CONN,	  /* app/fetches.csv naming another connection */
	FX_MANY,	  /* FX_MANY_FLOWS short fetches, one a second */
};

#define FX_MANY_FLOWS 400

/* Write the run directory (which must exist) for a variant; 0 or -1. */
int fixture_write_run(const char *dir, enum fx_variant v);
/* Variant by name ("good", "truncated", ...); -1 if unknown. */
int fixture_variant(const char *name);

#endif
