/* The strict reader of a run directory's CSV files (src/core/rundir.h
 * fixes their headers), shared by the analyzer and hyde compare. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/util.h"


void csv_close(struct csv *c)
{
	if (c->fp)
		fclose(c->fp);
	free(c->path);
	free(c->hdr_copy);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

static int open_common(struct csv *c, const char *dir, const char *rel,
		       const char *header, bool partial, char *errbuf)
{
	long n;

	memset(c, 0, sizeof(*c));
	c->partial = partial;
	c->path = xasprintf("%s/%s", dir, rel);
	c->header = header;
	c->hdr_copy = xstrdup(header);
	c->nfields = str_split_commas(c->hdr_copy, c->names, CSV_MAX_FIELDS);
	c->fp = fopen(c->path, "r");
	if (!c->fp && partial && errno == ENOENT)
		c->fp = fopen("/dev/null", "r"); /* not written yet: no lines */
	if (!c->fp) {
		errbuf_set(errbuf, "%s: %s", c->path, strerror(errno));
		csv_close(c);
		return -EINVAL;
	}
	n = read_line(c->fp, &c->buf, &c->cap);
	c->line = 1;
	if (partial && (n == -1 || (n >= 0 && feof(c->fp) && !strncmp(header, c->buf, (size_t)n)))) {
		c->cut = n > 0;
		return 0; /* empty, or its header cut short: no lines */
	}
	if (n == -1 || n == -2 || strcmp(c->buf, header)) {
		errbuf_set(errbuf, "%s:1: expected the header '%s'%s", c->path,
			   header, n == -1 ? ", got an empty file" : "");
		csv_close(c);
		return -EINVAL;
	}
	return 0;
}

int csv_open(struct csv *c, const char *dir, const char *rel,
	     const char *header, char *errbuf)
{
	return open_common(c, dir, rel, header, false, errbuf);
}

int csv_open_partial(struct csv *c, const char *dir, const char *rel,
		     const char *header, char *errbuf)
{
	return open_common(c, dir, rel, header, true, errbuf);
}

/* 1 with c->f filled, 0 at the end, -EINVAL on a malformed line. */
int csv_next(struct csv *c, char *errbuf)
{
	long n;
	int got;

	for (;;) {
		n = read_line(c->fp, &c->buf, &c->cap);
		c->line++;
		if (n == -1)
			return 0;
		if (n == -2) {
			errbuf_set(errbuf, "%s:%zu: NUL byte: not a text file",
				   c->path, c->line);
			return -EINVAL;
		}
		if (n > 0 && c->partial && feof(c->fp)) {
			c->cut = true; /* no end of line: cut short */
			return 0;
		}
		if (n > 0)
			break;
	}
	got = str_split_commas(c->buf, c->f, CSV_MAX_FIELDS);
	if (got != c->nfields) {
		errbuf_set(errbuf, "%s:%zu: expected %d comma-separated fields (%s), got %d",
			   c->path, c->line, c->nfields, c->header, got);
		return -EINVAL;
	}
	return 1;
}

int csv_err(struct csv *c, int field, const char *expect, char *errbuf)
{
	errbuf_set(errbuf, "%s:%zu: %s: expected %s, got '%s'", c->path,
		   c->line, c->names[field], expect, c->f[field]);
	return -EINVAL;
}

int csv_u64(struct csv *c, int field, uint64_t max, uint64_t *out,
		   char *errbuf)
{
	if (parse_uint(c->f[field], 0, max, out))
		return csv_err(c, field, "a whole number", errbuf);
	return 0;
}

/* A timestamp in ns, or -1 for "never happened". */
int csv_ns(struct csv *c, int field, int64_t *out, char *errbuf)
{
	uint64_t v;

	if (!strcmp(c->f[field], "-1")) {
		*out = -1;
		return 0;
	}
	if (parse_uint(c->f[field], 0, INT64_MAX, &v))
		return csv_err(c, field, "nanoseconds (a whole number, or -1)", errbuf);
	*out = (int64_t)v;
	return 0;
}

int csv_word(struct csv *c, int field, char *errbuf)
{
	const char *s = c->f[field];

	if (!*s || strpbrk(s, " \t\"\\"))
		return csv_err(c, field, "a name without blanks or quotes", errbuf);
	return 0;
}


int csv_col(const struct csv *c, const char *name)
{
	int i;

	for (i = 0; i < c->nfields; i++)
		if (!strcmp(c->names[i], name))
			return i;
	return -1;
}
