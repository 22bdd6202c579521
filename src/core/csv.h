/* A strict reader of the run directory's CSV files: the header must be the
 * one rundir.h fixes, every line has exactly that many fields (the values
 * never hold commas, so there is no quoting). Errors name the file, the
 * line and the field. */
#ifndef HYDE_CSV_H
#define HYDE_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CSV_MAX_FIELDS 32

/* A strict reader of the run directory's CSV files: the header must be the
 * one rundir.h fixes, every line has exactly that many fields (the values
 * never hold commas, so there is no quoting). */
struct csv {
	FILE *fp;
	char *path;
	const char *header;
	char *names[CSV_MAX_FIELDS]; /* field names, split from a copy */
	char *hdr_copy;
	int nfields;
	size_t line;
	char *buf;
	size_t cap;
	char *f[CSV_MAX_FIELDS];
	bool partial; /* csv_open_partial */
	bool cut;     /* a last line without its end of line was dropped */
};

/* Open dir/rel and check its header; errors: -EINVAL, errbuf says why. */
int csv_open(struct csv *c, const char *dir, const char *rel, const char *header,
	     char *errbuf);
/* The same for a file an interrupted run was writing: a missing or empty
 * file has no lines, and a last line cut short (no end of line: the
 * writer was killed in the middle) is dropped, with c->cut set. */
int csv_open_partial(struct csv *c, const char *dir, const char *rel,
		     const char *header, char *errbuf);
void csv_close(struct csv *c);
/* 1 with c->f filled, 0 at the end, -EINVAL on a malformed line. */
int csv_next(struct csv *c, char *errbuf);
/* The index of a column of the header, or -1. */
int csv_col(const struct csv *c, const char *name);
/* Field checks and conversions; -EINVAL with file:line: field in errbuf. */
int csv_err(struct csv *c, int field, const char *expect, char *errbuf);
int csv_u64(struct csv *c, int field, uint64_t max, uint64_t *out, char *errbuf);
/* A timestamp in ns, or -1 for "never happened". */
int csv_ns(struct csv *c, int field, int64_t *out, char *errbuf);
int csv_word(struct csv *c, int field, char *errbuf);

#endif
